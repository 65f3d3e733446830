//! The options that shape the surface and the writable area: `compat`, `toolPolicy`,
//! `writeScope`.

use super::{js_string, StartupError};
use crate::paths::normalize;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// Which generation of the original's surface a configuration reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// `compat: "0.1"`: the nine 0.1 tools in 0.1 order, strict schemas
    /// (`additionalProperties: false`, no coercion), results `{ isError, text }`.
    V01,
    /// The default: the original's newest release (0.5) — its registry order, scalar
    /// coercion, unknown keys ignored, `0` meaning "the default" for the named limits, and
    /// results made of content parts.
    #[default]
    Latest,
}

impl Compat {
    /// Parses the `compat` option (`"0.1"`; `"0.5"` or `"latest"` for the default).
    pub fn parse(v: &Value) -> Result<Compat, StartupError> {
        match v {
            Value::Null => Ok(Compat::Latest),
            Value::String(s) if s == "0.1" => Ok(Compat::V01),
            Value::String(s) if s == "0.5" || s == "latest" => Ok(Compat::Latest),
            other => Err(StartupError(format!(
                "compat must be \"0.1\" or \"0.5\", got: {}",
                js_string(other)
            ))),
        }
    }
}

/// `toolPolicy`: which tools the surface keeps. An empty `allow` keeps all; `deny` wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    /// Only these (when not empty).
    pub allow: Vec<String>,
    /// Never these.
    pub deny: Vec<String>,
}

impl ToolPolicy {
    /// Whether `name` stays on the surface.
    pub fn keeps(&self, name: &str) -> bool {
        (self.allow.is_empty() || self.allow.iter().any(|a| a == name))
            && !self.deny.iter().any(|d| d == name)
    }

    /// Parses the option; names must be tools of the registry (else `StartupError`).
    pub(super) fn parse(v: Option<&Value>, known: &[&str]) -> Result<ToolPolicy, StartupError> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(ToolPolicy::default());
        };
        let Value::Object(o) = v else {
            return Err(StartupError(format!(
                "toolPolicy must be an object with allow and/or deny lists, got: {}",
                js_string(v)
            )));
        };
        let list = |key: &str| -> Result<Vec<String>, StartupError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|n| match n.as_str() {
                        Some(name) if known.contains(&name) => Ok(name.to_string()),
                        _ => Err(StartupError(format!(
                            "toolPolicy.{key} names an unknown tool: {} (tools: {})",
                            js_string(n),
                            known.join(", ")
                        ))),
                    })
                    .collect(),
                Some(other) => Err(StartupError(format!(
                    "toolPolicy.{key} must be an array of tool names, got: {}",
                    js_string(other)
                ))),
            }
        };
        Ok(ToolPolicy {
            allow: list("allow")?,
            deny: list("deny")?,
        })
    }
}

/// One `writeScope` directory: the workspace-relative name the host gave (normalised) and
/// its real location, fixed when the configuration is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteScope {
    /// The directory as shown in errors (`src`, `.` for the whole workspace).
    pub name: String,
    /// Its real location (longest existing prefix realpath'd, the rest appended).
    pub real: PathBuf,
}

impl WriteScope {
    /// Parses the `writeScope` option against the workspace root. Absent or null → no
    /// scope (every write allowed). Overlapping entries are fine: the scope is their union.
    /// A `StartupError` for anything else than a non-empty array of non-empty relative
    /// paths whose real locations lie inside the root and are directories when they exist.
    pub fn parse(v: &Value, root: &Path) -> Result<Vec<WriteScope>, StartupError> {
        if v.is_null() {
            return Ok(Vec::new());
        }
        let Value::Array(entries) = v else {
            return Err(StartupError(format!(
                "writeScope must be an array of workspace-relative directories, got: {}",
                js_string(v)
            )));
        };
        if entries.is_empty() {
            return Err(StartupError(
                "writeScope must name at least one directory (use readOnly: true to forbid every write)."
                    .into(),
            ));
        }
        let real_root = std::fs::canonicalize(root)
            .map_err(|e| StartupError(format!("Workspace root does not resolve: {e}")))?;
        entries
            .iter()
            .map(|entry| {
                let raw = match entry {
                    Value::String(s) if !s.is_empty() && !s.contains('\0') => s,
                    other => {
                        return Err(StartupError(format!(
                            "writeScope entries must be non-empty strings, got: {}",
                            js_string(other)
                        )))
                    }
                };
                // Rooted (`\\x`) and drive paths too: Node's `path.isAbsolute` says so on Windows.
                let relative = matches!(
                    Path::new(raw).components().next(),
                    Some(Component::Normal(_) | Component::CurDir | Component::ParentDir)
                );
                if !relative {
                    return Err(StartupError(format!(
                        "writeScope entries must be workspace-relative directories, got: {raw}"
                    )));
                }
                let rel = normalize(Path::new(raw));
                let escapes = || {
                    StartupError(format!(
                        "writeScope entry escapes the workspace root: {raw}"
                    ))
                };
                if rel.starts_with("..") {
                    return Err(escapes());
                }
                let real =
                    crate::paths::realpath_prefix(&root.join(&rel)).map_err(|_| escapes())?;
                if !(real == real_root || real.starts_with(&real_root)) {
                    return Err(escapes());
                }
                if std::fs::metadata(&real).is_ok_and(|m| !m.is_dir()) {
                    return Err(StartupError(format!(
                        "writeScope entry is not a directory: {raw}"
                    )));
                }
                Ok(WriteScope {
                    name: rel.to_string_lossy().into_owned(),
                    real,
                })
            })
            .collect()
    }
}

/// `searchIndex`: when grep builds and uses the workspace index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexMode {
    /// Build once a scan saw the threshold's worth of files.
    Auto,
    /// Build at the first grep, whatever the size.
    On,
    /// Never index.
    Off,
}

impl IndexMode {
    /// Parses the option's value.
    pub fn parse(s: &str) -> Option<IndexMode> {
        match s {
            "auto" => Some(IndexMode::Auto),
            "on" => Some(IndexMode::On),
            "off" => Some(IndexMode::Off),
            _ => None,
        }
    }

    /// The option's value for this mode (what [`IndexMode::parse`] reads back).
    pub fn as_str(self) -> &'static str {
        match self {
            IndexMode::Auto => "auto",
            IndexMode::On => "on",
            IndexMode::Off => "off",
        }
    }
}
