//! The tool registry: every [`ToolDef`] in the original's registry order, and the surface a
//! configuration selects.
//!
//! `listTools` and dispatch both go through [`select_surface`], so the advertised and the
//! callable surface are always the same set. A tool file holds its schema, description,
//! annotations, handler and call title (`pub fn title`); adding a tool means adding its module
//! to the `registry!` list and nothing else.

use crate::config::{Compat, Config};
use crate::error::{ToolError, ToolResult};
use crate::runtime::Runtime;
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

pub mod apply_patch;
pub mod bash;
mod call;
pub mod check_syntax;
pub mod checkpoint_changes;
pub mod checkpoint_create;
pub mod checkpoint_drop;
pub mod checkpoint_list;
pub mod checkpoint_restore;
pub mod copy_file;
pub mod diff;
pub mod edit_file;
pub mod endpoints;
pub mod file_stat;
pub mod find_references;
pub mod find_symbol;
pub mod glob;
pub mod grep;
pub mod insert_symbol;
pub mod list_dir;
pub mod mkdir;
pub mod monitor_list;
pub mod monitor_poll;
pub mod monitor_screen;
pub mod monitor_start;
pub mod monitor_stop;
pub mod monitor_write;
pub mod move_file;
pub mod multi_edit;
mod navigate;
pub mod outline;
pub mod read_file;
pub mod read_files;
pub mod read_image;
pub mod remove;
pub mod replace;
pub mod replace_symbol;
pub mod repo_map;
pub mod review_accept;
pub mod review_pending;
pub mod review_reject;
mod sources;
mod symbol_edit;
pub mod title;
pub mod tree;
pub mod undo;
pub mod write_file;

pub use call::{Call, Output, Part};

/// A boxed handler future.
pub type BoxFuture = Pin<Box<dyn Future<Output = ToolResult<Output>> + Send>>;

/// How a tool's handler runs.
#[derive(Clone, Copy)]
pub enum Handler {
    /// Filesystem work: runs on tokio's blocking pool.
    Blocking(fn(&Call) -> ToolResult<Output>),
    /// Process work: runs as a task on the runtime.
    Async(fn(Call) -> BoxFuture),
}

/// MCP tool annotations, so a host can run reads in parallel and gate writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only: bool,
    /// The tool may destroy or overwrite data.
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches beyond the workspace (processes, network).
    pub open_world: bool,
}

/// One tool: its name, model-facing description, input schema and handler.
#[derive(Clone, Copy)]
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// What the model reads: when to use it, when not, how to recover from errors.
    pub description: &'static str,
    /// Builds the JSON Schema of the arguments.
    pub schema: fn() -> Value,
    /// The tool bounds its own output; dispatch does not cut it again.
    pub bounded: bool,
    /// Hints for hosts.
    pub annotations: Annotations,
    /// The handler.
    pub handler: Handler,
    /// The error returned when the call is aborted before it runs.
    pub aborted: fn() -> ToolError,
    /// The tool needs tree-sitter: hidden when `treeSitterAvailable` is false.
    pub syntax: bool,
    /// Review mode: a mutating tool whose call stages nothing, as it changes the staging area
    /// itself (the host's accept and reject) or only checkpoint bookkeeping. Its result gets
    /// no staged clause (dispatch) and the guard's context no `staged` fact (index.js, through
    /// `toolDefsJson`). The one list of such tools (SPEC §13).
    pub unstaged: bool,
}

impl ToolDef {
    /// Whether the tool changes the workspace.
    pub fn mutating(&self) -> bool {
        !self.annotations.read_only
    }
}

const READ: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// A tool's call title (`describeCall`) from the arguments as given; see [`title`].
pub type Title = fn(&Map<String, Value>) -> String;

/// The registry: each tool module's `def()` and `title`, in one list so the two cannot
/// disagree on the order.
macro_rules! registry {
    ($($tool:ident),* $(,)?) => {
        /// Every tool, in the original's registry order (its `listTools()` order).
        pub fn all() -> &'static [ToolDef] {
            static ALL: OnceLock<Vec<ToolDef>> = OnceLock::new();
            ALL.get_or_init(|| vec![$($tool::def()),*])
        }

        /// Each tool's call title, in [`all`]'s order.
        const TITLES: &[Title] = &[$($tool::title),*];
    };
}

registry!(
    read_file,
    read_image,
    read_files,
    write_file,
    edit_file,
    multi_edit,
    apply_patch,
    replace,
    list_dir,
    glob,
    grep,
    diff,
    bash,
    monitor_start,
    monitor_poll,
    monitor_stop,
    monitor_list,
    monitor_write,
    monitor_screen,
    move_file,
    copy_file,
    mkdir,
    remove,
    file_stat,
    tree,
    outline,
    check_syntax,
    find_symbol,
    find_references,
    repo_map,
    replace_symbol,
    insert_symbol,
    undo,
    checkpoint_create,
    checkpoint_list,
    checkpoint_changes,
    checkpoint_restore,
    checkpoint_drop,
    review_pending,
    review_accept,
    review_reject,
);

/// The call title of `def` (a registered tool).
pub fn title_of(def: &ToolDef) -> Title {
    let i = all().iter().position(|t| t.name == def.name).unwrap_or(0);
    TITLES[i]
}

/// Tools off unless `toolPolicy.allow` names them (the checkpoint tools also with
/// `checkpointTools`, the review tools also with `review.tools`).
pub const OPT_IN: [&str; 9] = [
    "undo",
    "checkpoint_create",
    "checkpoint_list",
    "checkpoint_changes",
    "checkpoint_restore",
    "checkpoint_drop",
    "review_pending",
    "review_accept",
    "review_reject",
];

/// The host's review calls as tools (`review: { tools: true }`, the MCP server's
/// `--review-tools`), for a host that speaks MCP only: accepting is the host's decision, so
/// they are never on the surface unless the host asks, and a host that has a model behind the
/// same connection keeps them out of the model's list (SPEC §13, MCP).
pub const REVIEW_TOOLS: [&str; 3] = ["review_pending", "review_accept", "review_reject"];

/// The host's checkpoint calls as tools (`checkpointTools: true`, the MCP server's
/// `--checkpoints`): on the surface like any tool, so `toolPolicy`, `readOnly` (which keeps
/// only `checkpoint_list` and `checkpoint_changes`), validation and the guard apply to them.
pub const CHECKPOINT_TOOLS: [&str; 5] = [
    "checkpoint_create",
    "checkpoint_list",
    "checkpoint_changes",
    "checkpoint_restore",
    "checkpoint_drop",
];

/// The nine tools of 0.1, in 0.1's order: the whole surface under `compat: "0.1"`.
pub const V01_TOOLS: [&str; 9] = [
    "read_file",
    "write_file",
    "edit_file",
    "multi_edit",
    "apply_patch",
    "list_dir",
    "glob",
    "grep",
    "bash",
];

/// The annotations every read tool shares.
pub const fn read_annotations() -> Annotations {
    READ
}

/// The annotations of a tool that changes or deletes files and is not idempotent (a second
/// identical call sees the changed workspace).
pub const fn change_annotations() -> Annotations {
    Annotations {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    }
}

/// Whether `def` is on the surface `config` selects.
fn on_surface(def: &ToolDef, config: &Config) -> bool {
    if config.read_only && def.mutating() {
        return false;
    }
    if !config.tool_policy.keeps(def.name) {
        return false;
    }
    // Opt-in tools appear only when `toolPolicy.allow` names them (or, for the checkpoint
    // tools, `checkpointTools` is on).
    let opted_in = config.tool_policy.allow.iter().any(|a| a == def.name)
        || (config.checkpoint_tools && CHECKPOINT_TOOLS.contains(&def.name))
        || (config.review.as_ref().is_some_and(|r| r.tools) && REVIEW_TOOLS.contains(&def.name));
    if OPT_IN.contains(&def.name) && !opted_in {
        return false;
    }
    match config.compat {
        Compat::V01 => V01_TOOLS.contains(&def.name),
        Compat::Latest => !def.syntax || config.tree_sitter_available,
    }
}

/// The tools a configuration exposes, in listing order: under `compat: "0.1"` the nine 0.1
/// tools in 0.1 order; otherwise the registry order. Read-only drops every mutating tool;
/// tree-sitter tools need `treeSitterAvailable`.
pub fn select_surface(config: &Config) -> Vec<&'static ToolDef> {
    match config.compat {
        Compat::V01 => V01_TOOLS
            .iter()
            .filter_map(|n| all().iter().find(|t| t.name == *n))
            .filter(|t| on_surface(t, config))
            .collect(),
        Compat::Latest => all().iter().filter(|t| on_surface(t, config)).collect(),
    }
}

/// Whether the host's tool `t` is on the surface: not under `readOnly` unless it only reads,
/// and kept by `toolPolicy`. Custom tools are on both compat surfaces (the host added them).
fn custom_on_surface(t: &crate::custom::CustomTool, config: &Config) -> bool {
    (!config.read_only || t.read_only) && config.tool_policy.keeps(&t.name)
}

/// Looks `name` up among the host's tools on the surface `runtime`'s configuration selects.
pub fn get_custom<'r>(name: &str, runtime: &'r Runtime) -> Option<&'r crate::custom::CustomTool> {
    runtime
        .custom_tools
        .iter()
        .find(|t| t.name == name && custom_on_surface(t, &runtime.config))
}

/// Looks `name` up in the surface `config` selects.
pub fn get_tool(name: &str, config: &Config) -> Option<&'static ToolDef> {
    all()
        .iter()
        .find(|t| t.name == name && on_surface(t, config))
}

/// The tool's JSON schema for a compatibility mode, cached: 0.1's strict form, or the
/// latest form (see [`crate::schema::relax`]).
pub fn schema_of(def: &ToolDef, compat: Compat) -> &'static Value {
    static STRICT: OnceLock<Vec<Value>> = OnceLock::new();
    static RELAXED: OnceLock<Vec<Value>> = OnceLock::new();
    let schemas = match compat {
        Compat::V01 => STRICT.get_or_init(|| all().iter().map(|t| (t.schema)()).collect()),
        Compat::Latest => RELAXED.get_or_init(|| {
            all()
                .iter()
                .map(|t| {
                    let mut s = crate::schema::relax(t.name, (t.schema)());
                    if t.name == "bash" {
                        bash::add_session(&mut s);
                    }
                    s
                })
                .collect()
        }),
    };
    let i = all().iter().position(|t| t.name == def.name).unwrap_or(0);
    &schemas[i]
}

/// `listTools()` for a tools object: `[{name, description, inputSchema, annotations}]`.
pub fn list_tools_json(runtime: &Runtime) -> Value {
    let config = &*runtime.config;
    let custom = runtime
        .custom_tools
        .iter()
        .filter(|t| custom_on_surface(t, config))
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.input_schema,
                "annotations": t.annotations,
            })
        });
    Value::Array(
        select_surface(config)
            .into_iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": schema_of(t, config.compat),
                    "annotations": {
                        "readOnlyHint": t.annotations.read_only,
                        "destructiveHint": t.annotations.destructive,
                        "idempotentHint": t.annotations.idempotent,
                        "openWorldHint": t.annotations.open_world,
                    },
                })
            })
            .chain(custom)
            .collect(),
    )
}

/// Builds an object schema with `additionalProperties: false` (the latest surface strips it:
/// unknown keys are ignored there).
pub fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
