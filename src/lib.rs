//! `@clarvis/agent-tools`: the coding tools an LLM agent uses on a repository.
//!
//! The crate is a napi-free core — configuration, the tool surface, the dispatch pipeline,
//! the nine tools and the pieces they share — plus, behind the `node` feature, one thin
//! napi layer (`binding`) that only converts values. `cargo test --no-default-features`
//! exercises the core directly.
//!
//! ```no_run
//! # async fn demo() {
//! use clarvis_agent_tools::{cancel::Cancel, config, dispatch};
//! use std::sync::Arc;
//! let cfg = Arc::new(config::resolve_config(&serde_json::json!({"workspaceRoot": "."}), Some(false)).unwrap());
//! // Roll back patches a crash interrupted (createAgentTools does this for JS callers).
//! for line in clarvis_agent_tools::patch::journal::recover(&cfg.workspace_root) {
//!     eprint!("{line}");
//! }
//! let args = dispatch::Args::Json(serde_json::json!({"path": "README.md"}));
//! let out = dispatch::dispatch("read_file", args, cfg, Cancel::new()).await;
//! println!("{}", out.text);
//! # }
//! ```

pub mod atomic;
pub mod cancel;
pub mod checkpoint;
pub mod config;
pub mod custom;
pub mod dispatch;
pub mod edit;
pub mod eol;
pub mod error;
pub mod fsmeta;
pub mod image;
pub mod index;
pub mod jsonstr;
pub mod jsregex;
pub mod output;
pub mod patch;
pub mod pool;
pub mod process;
pub mod redact;
pub mod schema;
pub mod search;
pub mod syntax;
pub mod text;
pub mod textdiff;
pub mod tools;
pub mod workspace;

#[cfg(feature = "node")]
pub mod binding;
