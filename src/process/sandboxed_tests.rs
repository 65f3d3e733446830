//! `process::run` with a sandbox, on this kernel (here, not in `sandbox`: the sandbox does not
//! depend on `process`; the JavaScript suite `__test__/sandbox.test.mjs` runs the attack
//! battery through `bash` and monitors).

use crate::cancel::Cancel;
use crate::config::{Config, SandboxPolicy};
use crate::process::{run, Ending, Request};
use crate::sandbox::Sandbox;
use std::path::Path;
use std::time::Duration;

struct Fixture {
    _dir: tempfile::TempDir,
    ws: std::path::PathBuf,
    sandbox: Sandbox,
}

fn fixture(policy: SandboxPolicy) -> Fixture {
    // Not under /tmp or /var/tmp, which the sandbox replaces with its own (a write there
    // lands in the private one): the outside must be the host's.
    let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let mut config = Config::with_root(&ws);
    config.sandbox = Some(policy);
    let sandbox = Sandbox::new(&config).unwrap().unwrap();
    Fixture {
        _dir: dir,
        ws,
        sandbox,
    }
}

fn sh(f: &Fixture, command: &str) -> (i32, String, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let req = Request {
        command,
        cwd: &f.ws,
        timeout: Duration::from_secs(20),
        root: &f.ws,
        max_output_bytes: 65536,
        kill_grace: Duration::ZERO,
        on_output: None,
        sandbox: Some(&f.sandbox),
        capture: None,
    };
    let out = rt
        .block_on(run(req, &Cancel::new(), |p: &Path| p.display().to_string()))
        .unwrap();
    match out.ending {
        Ending::Exited { code, .. } => (code, out.stdout, out.stderr),
        e => panic!("{command}: {e:?}"),
    }
}

#[test]
fn writes_only_inside() {
    let f = fixture(SandboxPolicy::default());
    let (code, out, err) = sh(
        &f,
        "echo hi > a.txt && cat a.txt && echo x > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
    );
    assert_eq!((code, out.as_str()), (0, "hi\nx\n"), "{err}");
    let outside = f.ws.parent().unwrap().join("outside");
    let (code, _, err) = sh(&f, &format!("echo x > {}", outside.display()));
    assert_ne!(code, 0);
    assert!(!outside.exists(), "{err}");
}
