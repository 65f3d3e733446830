//! Review mode's commands (SPEC §13 "Commands"): a stateless `bash` call or a monitor runs
//! over an overlay of the workspace (see [`crate::sandbox::capture`]) that shows it the
//! staged tree, and what it wrote is staged here, in one batch, like a file tool's change.

use crate::error::ToolResult;
use crate::sandbox::capture::{Captured, Change, Layer};
use crate::sandbox::Sandbox;
use crate::workspace::overlay::{Base, Overlay, Staged};
use std::path::PathBuf;
use std::sync::Arc;

/// The permission bits a captured command sees on a staged new file.
const NEW_FILE_MODE: u32 = 0o644;

/// The staging area's entries as a captured command is to see them: a staged write is its
/// blob with the base's permission bits (0644 for a new file), a staged deletion hides the
/// path.
pub fn layers(overlay: &Overlay) -> Vec<Layer> {
    overlay
        .entries()
        .into_iter()
        .map(|(rel, e)| match e.staged {
            Staged::Write { blob, .. } => Layer::File {
                source: overlay.blob_path(&blob),
                mode: match e.base {
                    Base::File { mode, .. } => mode,
                    Base::Absent => NEW_FILE_MODE,
                },
                rel,
            },
            Staged::Delete => Layer::Deleted { rel },
            Staged::Dir => Layer::Dir { rel },
        })
        .collect()
}

/// Why review mode cannot capture commands with `sandbox` (`None`: it can).
pub fn unavailable(sandbox: Option<&Sandbox>) -> Option<String> {
    match sandbox {
        None => {
            Some("the sandbox is off (commands are captured only under `sandbox: true`)".into())
        }
        Some(s) => s.can_capture().err().map(|e| e.to_string()),
    }
}

/// Stages what a captured command changed, in one batch (all or nothing; `reviewBytes`
/// applies), `input` naming the command in errors. Returns one line for the tool result
/// that says what was staged and what was not (`None` when the command changed nothing).
pub fn stage(overlay: &Overlay, captured: &Captured, input: &str) -> ToolResult<Option<String>> {
    let changes = captured
        .changes()
        .map_err(|e| crate::error::ToolError::fs(&std::io::Error::from(e), input))?;
    let mut writes: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    let mut written: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    for change in changes {
        match change {
            Change::Write { rel, source, .. } => {
                let bytes =
                    std::fs::read(&source).map_err(|e| crate::error::ToolError::fs(&e, input))?;
                writes.push((overlay.abs(&rel), Some(bytes)));
                written.push(rel);
            }
            Change::Delete { rel } => writes.push((overlay.abs(&rel), None)),
            Change::Mode { rel, mode } => {
                skipped.push(format!("{rel} (permission bits {mode:o}: not staged)"))
            }
            Change::Dir { rel } => dirs.push(rel),
            Change::Refused { rel, why } => skipped.push(format!("{rel} ({why}: not staged)")),
        }
    }
    // A new directory with a new file in it reaches disk with the file; an empty one is staged
    // as `mkdir` stages it, so accept leaves the tree direct mode would have.
    let inside = |dir: &str, rel: &str| {
        rel.strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
    };
    let empty: Vec<PathBuf> = dirs
        .iter()
        .filter(|d| !written.iter().chain(&dirs).any(|r| inside(d, r)))
        .map(|d| overlay.abs(d))
        .collect();
    if !writes.is_empty() || !empty.is_empty() {
        let batch: Vec<crate::workspace::overlay::Change<'_>> = writes
            .iter()
            .map(|(abs, bytes)| (abs.as_path(), bytes.as_deref(), None))
            .collect();
        let dirs: Vec<&std::path::Path> = empty.iter().map(PathBuf::as_path).collect();
        overlay.stage_with_dirs(&batch, &dirs, input)?;
    }
    Ok(note(writes.len() + empty.len(), &skipped))
}

/// What stages a captured monitor's changes once it has ended ([`stage`], `command` naming
/// it): the line its last page ends with, or the error, which has no call to be returned by.
pub fn stager(overlay: Arc<Overlay>, command: &str) -> crate::process::monitor::captured::Stage {
    let command = command.to_string();
    Box::new(move |captured| monitor_line(&overlay, captured, &command))
}

/// Stages a monitor's capture; the line its last page ends with.
fn monitor_line(overlay: &Overlay, captured: &Captured, command: &str) -> Option<String> {
    match stage(overlay, captured, command) {
        Ok(line) => line,
        Err(e) => Some(format!(
            "[review: the monitor's changes were not staged: {}]",
            e.message
        )),
    }
}

/// Stages what the captured monitors of `overlay`'s scope wrote whose host died before them
/// (`monitor::captured::adopt`): nothing a command wrote stays unstaged. Called when a tools
/// object opens the scope, at `pending()` and at `monitor_stop`; a readdir of `.clarvis/`
/// when there is nothing to adopt.
pub fn adopt_orphans(overlay: &Overlay) -> usize {
    crate::process::monitor::captured::adopt(overlay.root(), overlay.dir(), |s, captured| {
        monitor_line(overlay, captured, &s.command)
    })
}

/// The line a captured command's result ends with.
fn note(staged: usize, skipped: &[String]) -> Option<String> {
    if staged == 0 && skipped.is_empty() {
        return None;
    }
    let mut line = match staged {
        0 => "[review: no file change staged".to_string(),
        1 => "[review: 1 file change staged for review (it reaches disk when the host accepts it)".to_string(),
        n => format!("[review: {n} file changes staged for review (they reach disk when the host accepts them)"),
    };
    if !skipped.is_empty() {
        line.push_str("; kept as it was: ");
        line.push_str(&skipped.join(", "));
    }
    line.push(']');
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::note;

    #[cfg(unix)]
    #[test]
    fn a_captured_command_sees_staged_writes_with_the_disk_mode_and_staged_deletions() {
        use super::layers;
        use crate::config::{Config, ReviewConfig};
        use crate::sandbox::capture::Layer;
        use crate::workspace::overlay::Overlay;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("run.sh"), "old\n").unwrap();
        std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o750))
            .unwrap();
        std::fs::write(root.join("gone.txt"), "bye\n").unwrap();
        let mut cfg = Config::with_root(&root);
        cfg.review = Some(ReviewConfig {
            scope: "cmd".into(),
            commands: crate::config::review::Commands::Refuse,
            bytes: 1 << 20,
            tools: false,
        });
        let overlay = Overlay::open(&cfg).unwrap().unwrap();
        overlay
            .stage_write(&root.join("run.sh"), b"new\n", "run.sh")
            .unwrap();
        overlay
            .stage_write(&root.join("n/new.txt"), b"n\n", "n/new.txt")
            .unwrap();
        overlay
            .stage_delete(&root.join("gone.txt"), "gone.txt")
            .unwrap();
        overlay.stage_dir(&root.join("empty"), "empty").unwrap();
        let got: Vec<(String, Option<u32>, Option<Vec<u8>>)> = layers(&overlay)
            .into_iter()
            .map(|l| match l {
                Layer::File { rel, source, mode } => {
                    (rel, Some(mode), Some(std::fs::read(source).unwrap()))
                }
                Layer::Deleted { rel } => (rel, None, None),
                Layer::Dir { rel } => (rel, Some(0), None),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("empty".into(), Some(0), None),
                ("gone.txt".into(), None, None),
                ("n/new.txt".into(), Some(0o644), Some(b"n\n".to_vec())),
                ("run.sh".into(), Some(0o750), Some(b"new\n".to_vec())),
            ]
        );
    }

    #[test]
    fn the_note_counts_staged_changes_and_names_what_was_not_staged() {
        assert_eq!(note(0, &[]), None);
        let one = note(1, &[]).unwrap();
        assert!(one.starts_with("[review: 1 file change staged"), "{one}");
        let mixed = note(2, &["l (a symbolic link (to a.txt): not staged)".into()]).unwrap();
        assert!(mixed.contains("2 file changes staged"), "{mixed}");
        assert!(mixed.ends_with("kept as it was: l (a symbolic link (to a.txt): not staged)]"));
        assert!(!mixed.contains('\n'));
    }
}
