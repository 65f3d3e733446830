//! `bash` through the whole dispatch pipeline: the result JSON in the contract's key order,
//! the `cwd` errors, a command that cannot be spawned.

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::Config;
use clarvis_agent_tools::dispatch::{dispatch, Args};
use clarvis_agent_tools::runtime::Runtime;
use serde_json::{json, Value};

async fn call(config: Config, args: Value) -> (bool, String) {
    let out = dispatch(
        "bash",
        Args::Json(args),
        Runtime::new(config).shared(),
        Cancel::new(),
    )
    .await;
    (out.is_error, out.text)
}

#[tokio::test]
async fn success_json_in_contract_order() {
    let root = tempfile::tempdir().unwrap();
    let (err, text) = call(
        Config::with_root(root.path()),
        json!({"command": "echo hi; echo oops >&2; exit 3"}),
    )
    .await;
    assert!(!err);
    assert_eq!(
        text,
        r#"{"exit_code":3,"stdout":"hi\n","stderr":"oops\n","signal":null,"timed_out":false}"#
    );
}

#[tokio::test]
async fn cwd_errors() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("f"), "x").unwrap();
    let c = || Config::with_root(root.path());
    let (_, t) = call(c(), json!({"command": "true", "cwd": "nope"})).await;
    assert_eq!(
        t,
        r#"{"error":"not_found","message":"No such file: nope","path":"nope"}"#
    );
    let (_, t) = call(c(), json!({"command": "true", "cwd": "f"})).await;
    assert_eq!(
        t,
        r#"{"error":"not_a_file","message":"Not a directory: f","path":"f"}"#
    );
    let (_, t) = call(c(), json!({"command": "pwd", "cwd": ""})).await;
    assert!(
        t.contains(&format!("\"stdout\":\"{}\\n\"", root.path().display())),
        "{t}"
    );
}

#[tokio::test]
async fn nul_byte_is_a_spawn_failure() {
    let root = tempfile::tempdir().unwrap();
    let (err, t) = call(
        Config::with_root(root.path()),
        json!({"command": "echo a\u{0}b"}),
    )
    .await;
    assert!(err);
    assert_eq!(
        t,
        r#"{"error":"io_error","message":"Failed to spawn command: the command contains a NUL byte"}"#
    );
}
