//! Review mode's capture on this kernel: real commands under the sandbox, over an overlay.
//! Run as root by `cargo test`; the same binary passes run as an unprivileged user
//! (`CLARVIS_TEST_DIR=<a directory it owns> setpriv --reuid=65534 … <test binary> capture`).

use super::capture::{CaptureError, Change, Layer, Refusal, Request};
use super::Sandbox;
use crate::config::{Config, SandboxPolicy};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    sandbox: Sandbox,
}

fn fixture_with(policy: SandboxPolicy, scope: &[&str]) -> Fixture {
    let base = std::env::var_os("CLARVIS_TEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/target").into());
    let dir = tempfile::tempdir_in(base).unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::create_dir_all(ws.join("d/sub")).unwrap();
    std::fs::write(ws.join("d/f1"), "f1\n").unwrap();
    std::fs::write(ws.join("d/sub/f2"), "f2\n").unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    let mut config = Config::with_root(&ws);
    config.sandbox = Some(policy);
    config.write_scope = scope
        .iter()
        .map(|s| crate::config::WriteScope {
            name: s.to_string(),
            real: ws.join(s),
        })
        .collect();
    for s in scope {
        std::fs::create_dir_all(ws.join(s)).unwrap();
    }
    let sandbox = Sandbox::new(&config).unwrap().unwrap();
    Fixture {
        _dir: dir,
        ws,
        sandbox,
    }
}

fn fixture() -> Fixture {
    fixture_with(SandboxPolicy::default(), &[])
}

/// Every path under the workspace but `.clarvis` and the sandbox's placeholders (which come
/// and go with its commands, see `linux::janitor`), with its bytes (`None`: a directory) and
/// permission bits.
fn snapshot(ws: &Path) -> BTreeMap<PathBuf, (Option<Vec<u8>>, u32)> {
    fn walk(p: &Path, out: &mut BTreeMap<PathBuf, (Option<Vec<u8>>, u32)>) {
        if super::linux::is_placeholder(p) {
            return;
        }
        let Ok(m) = p.symlink_metadata() else {
            // A placeholder the janitor removed during the walk.
            return;
        };
        let bytes = m.is_file().then(|| std::fs::read(p).unwrap());
        out.insert(p.to_path_buf(), (bytes, m.permissions().mode()));
        if m.is_dir() {
            for e in std::fs::read_dir(p).unwrap().flatten() {
                if e.file_name() != ".clarvis" {
                    walk(&e.path(), out);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(ws, &mut out);
    out
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    changes: Vec<Change>,
    /// The new bytes of each write, read before the capture is dropped.
    bytes: BTreeMap<String, String>,
}

/// Runs `command` captured and checks the workspace is as it was.
fn run(f: &Fixture, staged: &[Layer], command: &str) -> Ran {
    let before = snapshot(&f.ws);
    let ran = capture(f, staged, command);
    let after = snapshot(&f.ws);
    let diff: Vec<_> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k)
        .chain(before.keys().filter(|k| !after.contains_key(*k)))
        .collect();
    assert!(
        diff.is_empty(),
        "the workspace changed: {command}: {diff:?}"
    );
    ran
}

fn capture(f: &Fixture, staged: &[Layer], command: &str) -> Ran {
    let dir = f.ws.join(".clarvis/review/t");
    let mut cmd = f.sandbox.shell();
    cmd.arg("-c").arg(command).current_dir(&f.ws);
    let captured = f
        .sandbox
        .confine_captured(
            &mut cmd,
            &f.ws,
            &Request {
                dir: &dir,
                staged,
                record: false,
            },
        )
        .unwrap();
    let out = cmd.output().unwrap();
    drop(cmd);
    let changes = captured.changes().unwrap();
    let mut bytes = BTreeMap::new();
    for c in &changes {
        if let Change::Write { rel, source, .. } = c {
            bytes.insert(rel.clone(), std::fs::read_to_string(source).unwrap());
        }
    }
    drop(captured);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "blobs")
        .collect();
    assert!(left.is_empty(), "scratch left behind: {left:?}");
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        changes,
        bytes,
    }
}

/// The changes as `(kind, path)` pairs, for compact assertions.
fn kinds(r: &Ran) -> Vec<(String, String)> {
    r.changes
        .iter()
        .map(|c| {
            let k = match c {
                Change::Write { created: true, .. } => "created".to_string(),
                Change::Write { .. } => "modified".into(),
                Change::Mode { mode, .. } => format!("mode {mode:o}"),
                Change::Delete { .. } => "deleted".into(),
                Change::Dir { .. } => "dir".into(),
                Change::Refused { why, .. } => format!("refused: {why}"),
            };
            (k, c.rel().to_string())
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn capture_sed_in_place_is_a_modification_and_the_disk_keeps_its_bytes() {
    let f = fixture();
    let r = run(&f, &[], "sed -i s/one/ONE/ a.txt && cat a.txt");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "ONE\ntwo\n"),
        "{}",
        r.stderr
    );
    assert_eq!(kinds(&r), pairs(&[("modified", "a.txt")]));
    assert_eq!(r.bytes["a.txt"], "ONE\ntwo\n");
    let Change::Write { mode, .. } = &r.changes[0] else {
        unreachable!()
    };
    assert_eq!(*mode, 0o644);
}

#[test]
fn capture_removals_moves_and_new_directories() {
    let f = fixture();
    let r = run(
        &f,
        &[],
        "rm a.txt && rm -r d/sub && mv d/f1 d/moved && mkdir empty && mkdir -p n/m && echo new > n/m/x",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        kinds(&r),
        pairs(&[
            ("deleted", "a.txt"),
            ("deleted", "d/f1"),
            ("created", "d/moved"),
            ("deleted", "d/sub/f2"),
            ("dir", "empty"),
            ("dir", "n"),
            ("dir", "n/m"),
            ("created", "n/m/x"),
        ])
    );
    assert_eq!(r.bytes["d/moved"], "f1\n");
    assert_eq!(r.bytes["n/m/x"], "new\n");
}

#[test]
fn capture_a_replaced_directory_loses_what_it_held() {
    let f = fixture();
    // The new `d` is opaque: f1 and sub/f2 are gone, `again` is new; `d` itself existed.
    let r = run(
        &f,
        &[],
        "rm -r d && mkdir d && echo a > d/again && touch a.txt",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        kinds(&r),
        pairs(&[
            ("created", "d/again"),
            ("deleted", "d/f1"),
            ("deleted", "d/sub/f2"),
        ])
    );
    // A file where a directory was: the directory's files are gone, the file is new.
    let r = run(&f, &[], "rm -r d && echo file > d");
    assert_eq!(
        kinds(&r),
        pairs(&[
            ("created", "d"),
            ("deleted", "d/f1"),
            ("deleted", "d/sub/f2"),
        ])
    );
}

#[test]
fn capture_links_and_special_files_are_refused_and_modes_reported() {
    let f = fixture();
    std::os::unix::fs::symlink("a.txt", f.ws.join("link")).unwrap();
    let r = run(
        &f,
        &[],
        "ln -s a.txt new-link && chmod +x a.txt && mkfifo pipe && rm link",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        kinds(&r),
        pairs(&[
            ("mode 755", "a.txt"),
            ("refused: a symbolic link removed", "link"),
            ("refused: a symbolic link (to a.txt)", "new-link"),
            ("refused: a special file (FIFO, socket or device)", "pipe"),
        ])
    );
    assert!(matches!(
        &r.changes[2],
        Change::Refused { why: Refusal::Symlink { target }, .. } if target == Path::new("a.txt")
    ));
}

#[test]
fn capture_the_command_sees_the_staged_tree() {
    let f = fixture();
    let blobs = f.ws.join(".clarvis/review/t/blobs");
    std::fs::create_dir_all(&blobs).unwrap();
    std::fs::write(blobs.join("0"), "staged new\n").unwrap();
    std::fs::write(blobs.join("1"), "staged a\n").unwrap();
    std::fs::set_permissions(blobs.join("1"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let staged = vec![
        Layer::File {
            rel: "deep/new.txt".into(),
            source: blobs.join("0"),
            mode: 0o755,
        },
        Layer::File {
            rel: "a.txt".into(),
            source: blobs.join("1"),
            mode: 0o644,
        },
        Layer::Deleted { rel: "d/f1".into() },
    ];
    let r = run(
        &f,
        &staged,
        "cat deep/new.txt a.txt; test -e d/f1 || echo 'no f1'; test -x deep/new.txt && echo x; ls d",
    );
    assert_eq!(
        r.stdout, "staged new\nstaged a\nno f1\nx\nsub\n",
        "{}",
        r.stderr
    );
    assert!(r.changes.is_empty(), "{:?}", r.changes);
    // Changing a staged file changes a copy: the blob keeps its bytes.
    let r = run(
        &f,
        &staged,
        "sed -i s/staged/edited/ a.txt deep/new.txt && rm deep/new.txt && echo back > d/f1",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        kinds(&r),
        pairs(&[
            ("modified", "a.txt"),
            ("created", "d/f1"),
            ("deleted", "deep/new.txt"),
        ])
    );
    assert_eq!(r.bytes["a.txt"], "edited a\n");
    assert_eq!(
        std::fs::read_to_string(blobs.join("0")).unwrap(),
        "staged new\n"
    );
    assert_eq!(
        std::fs::read_to_string(blobs.join("1")).unwrap(),
        "staged a\n"
    );
}

#[test]
fn capture_keeps_the_sandbox_rules() {
    let f = fixture();
    let outside = f.ws.parent().unwrap().join("outside");
    let r = run(
        &f,
        &[],
        &format!(
            "for p in .git/config .git/hooks/pre-commit .clarvis/x .envrc; do \
               (echo x > $p) 2>/dev/null && echo \"wrote $p\"; done; \
             (echo x > {}) 2>/dev/null; \
             rm -f .git/config 2>/dev/null; mv .git .git2 2>/dev/null && echo moved; \
             echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
            outside.display()
        ),
    );
    assert_eq!(r.stdout, "t\n", "{}", r.stderr);
    assert!(r.changes.is_empty(), "{:?}", r.changes);
    assert!(!outside.exists());
    assert_eq!(
        std::fs::read_to_string(f.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
}

#[test]
fn capture_under_a_write_scope_overlays_each_root() {
    let f = fixture_with(SandboxPolicy::default(), &["src"]);
    std::fs::write(f.ws.join("src/m.rs"), "fn main() {}\n").unwrap();
    let r = run(
        &f,
        &[],
        "sed -i s/main/start/ src/m.rs && echo n > src/n.rs && (echo x > a.txt) 2>/dev/null; cat a.txt",
    );
    assert_eq!(r.stdout, "one\ntwo\n", "{}", r.stderr);
    assert_eq!(
        kinds(&r),
        pairs(&[("modified", "src/m.rs"), ("created", "src/n.rs")])
    );
    assert_eq!(r.bytes["src/m.rs"], "fn start() {}\n");
}

#[test]
fn capture_unavailable_without_the_mount_namespace_is_a_typed_error() {
    let mut policy = SandboxPolicy::default();
    policy.force.no_userns = true;
    policy.require = Some(Vec::new());
    let f = fixture_with(policy, &[]);
    let err = f.sandbox.can_capture().unwrap_err();
    assert!(
        matches!(&err, CaptureError::Unavailable(why) if why.contains("mount namespace")),
        "{err}"
    );
    let mut cmd = f.sandbox.shell();
    let dir = f.ws.join(".clarvis/review/t");
    let r = f.sandbox.confine_captured(
        &mut cmd,
        &f.ws,
        &Request {
            dir: &dir,
            staged: &[],
            record: false,
        },
    );
    assert!(matches!(r, Err(CaptureError::Unavailable(_))));
}

/// Every path under `ws` but `.clarvis`, as it is on disk (placeholders included).
fn raw_paths(ws: &Path) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        out.push(p.to_path_buf());
        if let Ok(rd) = std::fs::read_dir(p) {
            for e in rd.flatten().filter(|e| e.file_name() != ".clarvis") {
                walk(&e.path(), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(ws, &mut out);
    out.sort();
    out
}

#[test]
fn capture_placeholders_are_never_changes_and_leave_the_disk_with_the_last_process() {
    let f = fixture();
    if f.sandbox.can_capture().is_err() {
        return;
    }
    let before = raw_paths(&f.ws);
    // The placeholders exist while the command runs (`.git/hooks` is missing here: it is
    // covered by one), in a directory the command writes into.
    let r = capture(
        &f,
        &[],
        "test -d .git/hooks && echo covered; echo x > new.txt; touch .git 2>/dev/null; ls -a .git",
    );
    assert!(
        r.stdout.starts_with("covered\n"),
        "{} {}",
        r.stdout,
        r.stderr
    );
    assert_eq!(kinds(&r), pairs(&[("created", "new.txt")]));
    // Once no sandboxed process is left the janitor removes them: the disk is as it was
    // (bounded wait: the janitor looks at most a second apart).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while raw_paths(&f.ws) != before && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(raw_paths(&f.ws), before);
}
