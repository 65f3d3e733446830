//! Opening a tools object: options (or a command line) → a [`Config`] → its [`Runtime`].
//!
//! This is the one place that knows both the tool registry and the services: the config
//! checks `customTools` against the registry's names and compiles the `redactSecrets`
//! patterns through [`Checks`] (at their place in the order of checks), and what those
//! checks built — the host's tools, the redactor — goes into the runtime.

use crate::config::{self, Checks, Probes, StartupError};
use crate::custom::CustomTool;
use crate::redact::Redactor;
use crate::runtime::Runtime;
use serde_json::Value;
use std::collections::HashMap;

/// The checks of one opening, keeping what they built for the runtime.
#[derive(Default)]
struct Opening {
    custom_tools: Vec<CustomTool>,
    redactor: Option<Redactor>,
}

impl Checks for Opening {
    fn tool_names(&mut self, custom_tools: Option<&Value>) -> Result<Vec<String>, StartupError> {
        let builtins: Vec<&str> = crate::tools::all().iter().map(|t| t.name).collect();
        self.custom_tools = crate::custom::parse(custom_tools, &builtins)?;
        Ok(builtins
            .into_iter()
            .map(str::to_string)
            .chain(self.custom_tools.iter().map(|t| t.name.clone()))
            .collect())
    }

    fn redaction(&mut self, option: Option<&Value>) -> Result<Option<Vec<Value>>, StartupError> {
        self.redactor = crate::redact::parse(option)?;
        Ok(self.redactor.as_ref().map(Redactor::host_patterns))
    }
}

impl Opening {
    fn runtime(self, config: config::Config) -> Result<Runtime, StartupError> {
        let sandbox = crate::sandbox::Sandbox::new(&config)?;
        let staging = crate::workspace::overlay::Overlay::open(&config).map_err(|e| {
            StartupError(format!(
                "Cannot open the review staging area under {}: {e}",
                config.workspace_root.join(".clarvis/review").display()
            ))
        })?;
        // What a captured monitor of this scope wrote before its host died is staged now.
        if let Some(staging) = &staging {
            crate::review::commands::adopt_orphans(staging);
        }
        Ok(Runtime::new(config)
            .with_staging(staging)
            .with_custom_tools(self.custom_tools)
            .with_redactor(self.redactor)
            .with_sandbox(sandbox))
    }
}

/// `createAgentTools(options)`: the options resolved, then the services built.
pub fn open(options: &Value, probes: Probes) -> Result<Runtime, StartupError> {
    let mut opening = Opening::default();
    let config = config::resolve_config(options, probes, &mut opening)?;
    opening.runtime(config)
}

/// [`open`] from a command line and an environment (`config::build_config`).
pub fn open_cli(
    argv: &[String],
    env: &HashMap<String, String>,
    probes: Probes,
) -> Result<Runtime, StartupError> {
    let mut opening = Opening::default();
    let config = config::build_config(argv, env, probes, &mut opening)?;
    opening.runtime(config)
}
