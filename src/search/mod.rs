//! The search engine behind `glob` and `grep`, on ripgrep's libraries, in-process.
//!
//! - [`at`]: opening and stat-ing walked files relative to the base directory.
//! - [`policy`]: which entries a walk yields (git ignore stack, reserved names, symlinks).
//! - [`walk`]: the parallel directory walk over that policy.
//! - [`matcher`]: the regex, Rust engine first and PCRE2 when needed.
//! - [`scan`]: loading one file under the text rules and reporting its rows.
//! - [`collect`]: parallel search under the sequential scan budget, deterministically.
//! - [`render`]: the page, context, separators and footers.
//!
//! Non-goals: following symlinks, reading `.ignore`/`.rgignore`, searching binary files.

#[cfg(unix)]
pub mod at;
#[cfg(not(unix))]
#[path = "at_portable.rs"]
pub mod at;
pub mod collect;
pub mod matcher;
mod multiline;
pub mod policy;
pub mod render;
pub mod scan;
pub mod staged;
pub mod walk;
