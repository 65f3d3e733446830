//! `@clarvis/agent-tools`: the coding tools an LLM agent uses on a repository.
//!
//! The crate is a napi-free core — configuration, the services of a tools object, the tool
//! surface, the dispatch pipeline, the tools and the engines they share — plus, behind the
//! `node` feature, one thin napi layer (`binding`) that only converts values.
//! `cargo test --no-default-features` exercises the core directly. The modules are layered
//! (SPEC.md, "Layers and the module map"; `tests/layering.rs` checks it).
//!
//! ```no_run
//! # async fn demo() {
//! use clarvis_agent_tools::{cancel::Cancel, config::Probes, dispatch};
//! use std::sync::Arc;
//! let options = serde_json::json!({"workspaceRoot": "."});
//! let runtime = Arc::new(dispatch::open(&options, Probes::default()).unwrap());
//! // Roll back patches a crash interrupted (createAgentTools does this for JS callers).
//! for line in clarvis_agent_tools::atomic::journal::recover(&runtime.config) {
//!     eprint!("{line}");
//! }
//! let args = dispatch::Args::Json(serde_json::json!({"path": "README.md"}));
//! let out = dispatch::dispatch("read_file", args, runtime, Cancel::new()).await;
//! println!("{}", out.text);
//! # }
//! ```

pub mod atomic;
pub mod busy;
pub mod cancel;
pub mod checkpoint;
pub mod config;
pub mod custom;
pub mod diffops;
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
pub mod paths;
pub mod pool;
pub mod process;
pub mod redact;
pub mod review;
pub mod runtime;
pub mod sandbox;
pub mod schema;
pub mod search;
pub mod stale;
pub mod symbols;
pub mod syntax;
pub mod terminal;
pub mod text;
pub mod textdiff;
pub mod tools;
pub mod warnings;
pub mod workspace;

#[cfg(feature = "node")]
pub mod binding;
