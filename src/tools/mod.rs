//! The tool registry: nine [`ToolDef`]s and the surface a configuration selects.
//!
//! `listTools` and dispatch both go through [`select_surface`], so the advertised and the
//! callable surface are always the same set.

use crate::cancel::Cancel;
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

pub mod apply_patch;
pub mod bash;
pub mod edit_file;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod multi_edit;
pub mod read_file;
pub mod write_file;

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

/// Everything a handler receives: validated arguments (defaults filled), the configuration,
/// the cancellation token and the warning collector.
#[derive(Debug, Clone)]
pub struct Call {
    /// Arguments after validation, with schema defaults filled in.
    pub args: Map<String, Value>,
    /// The frozen configuration.
    pub config: Arc<Config>,
    /// Fires when the caller aborts.
    pub cancel: Cancel,
    /// Warnings for the warn sink.
    pub warnings: Warnings,
}

/// A boxed handler future.
pub type BoxFuture = Pin<Box<dyn Future<Output = ToolResult<String>> + Send>>;

/// How a tool's handler runs.
#[derive(Clone, Copy)]
pub enum Handler {
    /// Filesystem work: runs on tokio's blocking pool.
    Blocking(fn(&Call) -> ToolResult<String>),
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

/// All nine tools, read tools first.
pub fn all() -> &'static [ToolDef] {
    static ALL: OnceLock<Vec<ToolDef>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            read_file::def(),
            list_dir::def(),
            glob::def(),
            grep::def(),
            write_file::def(),
            edit_file::def(),
            multi_edit::def(),
            apply_patch::def(),
            bash::def(),
        ]
    })
}

/// The annotations every read tool shares.
pub const fn read_annotations() -> Annotations {
    READ
}

/// The tools a configuration exposes: all nine, or the four read tools when read-only.
pub fn select_surface(read_only: bool) -> Vec<&'static ToolDef> {
    all()
        .iter()
        .filter(|t| !read_only || !t.mutating())
        .collect()
}

/// Looks `name` up in a surface.
pub fn get_tool(name: &str, read_only: bool) -> Option<&'static ToolDef> {
    all()
        .iter()
        .find(|t| t.name == name && (!read_only || !t.mutating()))
}

/// Cached JSON schemas, one per tool in [`all`] order.
pub fn schema_of(def: &ToolDef) -> &'static Value {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| all().iter().map(|t| (t.schema)()).collect());
    let i = all().iter().position(|t| t.name == def.name).unwrap_or(0);
    &schemas[i]
}

/// `listTools()` for a surface: `[{name, description, inputSchema, annotations}]`.
pub fn list_tools_json(read_only: bool) -> Value {
    Value::Array(
        select_surface(read_only)
            .into_iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": schema_of(t),
                    "annotations": {
                        "readOnlyHint": t.annotations.read_only,
                        "destructiveHint": t.annotations.destructive,
                        "idempotentHint": t.annotations.idempotent,
                        "openWorldHint": t.annotations.open_world,
                    },
                })
            })
            .collect(),
    )
}

/// Builds an object schema with `additionalProperties: false`.
pub fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
