//! The warn sink's lines of one call, collected while it runs and delivered after it. Every
//! layer may push here; only the binding decides where the lines go (the host's `warnSink`,
//! or stderr).

use std::sync::{Arc, Mutex};

/// Warning lines collected during a call, delivered to the warn sink after it.
#[derive(Debug, Clone, Default)]
pub struct Warnings(Arc<Mutex<Vec<String>>>);

impl Warnings {
    /// Records `clarvis-agent-tools: <line>\n`.
    pub fn push(&self, line: impl AsRef<str>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(format!("clarvis-agent-tools: {}\n", line.as_ref()));
        }
    }

    /// Takes every recorded line.
    pub fn take(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}
