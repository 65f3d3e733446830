//! The services of one tools object, built once from its [`Config`] and dropped with it.
//!
//! A [`Config`] is values; what lives and changes while the tools object is used lives here:
//! the checkpoint store, the search index (and its build thread, watches and image), the
//! redactor compiled from `redactSecrets`, the host's custom tools, the hashes of what
//! the model was shown (`staleWrites`), and the live terminals of its monitors (input ends,
//! screen emulators), and the shell sessions of `bash { session }`. `createAgentTools`
//! builds one `Runtime` (through `crate::dispatch::open`); every call receives it, and each
//! tool or engine takes what it uses from it — `&Config` and the one service it needs.
//!
//! Architecture invariant: the runtime sits above the engines and below the tools. It may
//! own any engine's service; no engine reaches back up to it, and it knows nothing of the
//! tool registry (the startup that needs both lives in `dispatch::open`).

use crate::checkpoint;
use crate::config::Config;
use crate::custom::CustomTool;
use crate::index::SearchIndex;
use crate::redact::Redactor;
use crate::sandbox::Sandbox;
use crate::symbols::stored::SymbolIndex;
use crate::terminal::Terminals;
use crate::workspace::overlay::Overlay;
use std::sync::Arc;

/// One tools object's configuration and services.
#[derive(Debug)]
pub struct Runtime {
    /// The frozen configuration.
    pub config: Arc<Config>,
    /// The checkpoints of this tools object (`checkpointBytes` is its budget).
    pub checkpoints: checkpoint::Store,
    /// The workspace's search index (`searchIndex`; off, building or ready).
    pub index: Arc<SearchIndex>,
    /// The symbols kept beside the index's postings (built after each image is installed).
    pub symbols: SymbolIndex,
    /// `redactSecrets`: masks credentials in what goes back to the model (`None`: off).
    /// Shared: each call's [`crate::redact::Scope`] and live masking hold it.
    pub redactor: Option<Arc<Redactor>>,
    /// `customTools`: the host's tools (their handlers stay in JavaScript).
    pub custom_tools: Vec<CustomTool>,
    /// What this tools object last showed the model of each file, by content hash
    /// (`staleWrites: "refuse"`; empty otherwise).
    pub seen: crate::stale::Seen,
    /// `sandbox`: the prepared confinement of `bash` and monitors (`None`: off).
    pub sandbox: Option<Arc<Sandbox>>,
    /// The input ends and screen emulators of this object's terminal monitors.
    pub terminals: Terminals,
    /// `bash { session }`: the named persistent shells, ended with the runtime.
    #[cfg(unix)]
    pub sessions: crate::process::session::Sessions,
    /// `review`: the scope's staging area, which the writers stage into and the readers
    /// see through (`None`: off). Holding it keeps it live for `workspace::overlay::of`.
    pub staging: Option<Arc<Overlay>>,
}

impl Runtime {
    /// The services `config` asks for, without host tools and without redaction (add them
    /// with [`Runtime::with_custom_tools`] and [`Runtime::with_redactor`]).
    pub fn new(config: Config) -> Runtime {
        let checkpoints = checkpoint::Store::new(&config.workspace_root, config.checkpoint_bytes);
        let index = Arc::new(SearchIndex::new(
            config.search_index,
            config.search_index_threshold,
        ));
        #[cfg(unix)]
        let sessions = crate::process::session::Sessions::new(
            config.max_shell_sessions,
            config.shell_session_idle_ms,
        );
        let config = Arc::new(config);
        let symbols = SymbolIndex::new(index.clone(), config.clone());
        Runtime {
            config,
            checkpoints,
            index,
            symbols,
            redactor: None,
            custom_tools: Vec::new(),
            seen: crate::stale::Seen::default(),
            sandbox: None,
            terminals: Terminals::default(),
            #[cfg(unix)]
            sessions,
            staging: None,
        }
    }

    /// The staging area, or the error of a review call (a host's `tools.pending()`, a review
    /// tool) on a tools object without review.
    pub fn review_staging(&self) -> crate::error::ToolResult<&Arc<Overlay>> {
        self.staging.as_ref().ok_or_else(|| {
            crate::error::ToolError::invalid(
                "Review mode is off: pass review: true (or { scope }) to createAgentTools.",
            )
        })
    }

    /// With the scope's staging area opened (`review`; `None`: off).
    pub fn with_staging(mut self, staging: Option<Arc<Overlay>>) -> Runtime {
        self.staging = staging;
        self
    }

    /// With a prepared sandbox (`None`: off).
    pub fn with_sandbox(mut self, sandbox: Option<Sandbox>) -> Runtime {
        self.sandbox = sandbox.map(Arc::new);
        self
    }

    /// With the host's tools.
    pub fn with_custom_tools(mut self, tools: Vec<CustomTool>) -> Runtime {
        self.custom_tools = tools;
        self
    }

    /// With a redactor (`None`: redaction off).
    pub fn with_redactor(mut self, redactor: Option<Redactor>) -> Runtime {
        self.redactor = redactor.map(Arc::new);
        self
    }

    /// With another search index (tests and benchmarks: a threshold of one, no watches).
    pub fn with_index(mut self, index: SearchIndex) -> Runtime {
        self.index = Arc::new(index);
        self.symbols = SymbolIndex::new(self.index.clone(), self.config.clone());
        self
    }

    /// The runtime behind an `Arc`, as calls share it.
    pub fn shared(self) -> Arc<Runtime> {
        Arc::new(self)
    }
}
