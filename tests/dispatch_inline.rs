//! `dispatch_inline` (the whole pipeline on the calling thread, which the napi layer uses for
//! read_file) gives exactly the outcome of `dispatch` (runtime task + blocking pool) for
//! every kind of call: successes, each error, a fired token, a panic.

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::{Compat, Config};
use clarvis_agent_tools::dispatch::{self, Args};
use clarvis_agent_tools::runtime::Runtime;
use serde_json::json;
use std::sync::Arc;

fn both(config: &Arc<Runtime>, name: &str, args: Args, cancel: Cancel) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let pooled = rt.block_on(dispatch::dispatch(
        name,
        args.clone(),
        config.clone(),
        cancel.clone(),
    ));
    let inline = dispatch::dispatch_inline(name, args, config.clone(), cancel);
    assert_eq!(inline, pooled, "{name}");
}

#[test]
fn inline_and_pooled_dispatch_agree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.c"), "int main(void)\n{\n\treturn 0;\n}\n").unwrap();
    std::fs::write(root.join("crlf.txt"), "a\r\nb\r\n").unwrap();
    std::fs::write(root.join("bin.dat"), b"\x7fELF\0\0").unwrap();
    std::fs::write(root.join("empty.txt"), "").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    for compat in [Compat::Latest, Compat::V01] {
        let mut config = Config::with_root(root);
        config.compat = compat;
        let config = Runtime::new(config).shared();
        assert!(dispatch::runs_inline("read_file", &config.config));
        assert!(!dispatch::runs_inline("list_dir", &config.config));
        assert!(!dispatch::runs_inline("nope", &config.config));
        let cases = [
            json!({"path": "a.c"}),
            json!({"path": "a.c", "offset": -2}),
            json!({"path": "a.c", "offset": 2, "limit": 1}),
            json!({"path": "a.c", "offset": 9}),
            json!({"path": "a.c", "offset": 0}),
            json!({"path": "crlf.txt"}),
            json!({"path": "bin.dat"}),
            json!({"path": "empty.txt"}),
            json!({"path": "sub"}),
            json!({"path": "missing.txt"}),
            json!({"path": "../outside.txt"}),
            json!({"path": 5}),
            json!({}),
            json!([]),
        ];
        for args in cases {
            both(&config, "read_file", Args::Json(args), Cancel::new());
        }
        both(
            &config,
            "read_file",
            Args::NotJson("Arguments must be plain JSON: 'x' is a function".into()),
            Cancel::new(),
        );
        let fired = Cancel::new();
        fired.cancel();
        both(
            &config,
            "read_file",
            Args::Json(json!({"path": "a.c"})),
            fired,
        );
        // An async tool cannot run inline: an internal error, never a wrong answer.
        let out = dispatch::dispatch_inline(
            "bash",
            Args::Json(json!({"command": "true"})),
            config.clone(),
            Cancel::new(),
        );
        assert!(out.is_error && out.text.contains("\"internal\""));
    }
    // A panic in the handler: internal, with the detail for the warn sink.
    let mut config = Config::with_root(root);
    config.hooks.panic_in = Some("read_file".into());
    let config = Runtime::new(config).shared();
    both(
        &config,
        "read_file",
        Args::Json(json!({"path": "a.c"})),
        Cancel::new(),
    );
    let out = dispatch::dispatch_inline(
        "read_file",
        Args::Json(json!({"path": "a.c"})),
        config,
        Cancel::new(),
    );
    assert_eq!(
        out.warnings,
        ["clarvis-agent-tools: internal error: panic in read_file: test hook: deliberate panic in read_file\n"]
    );
}

#[test]
fn monitor_poll_runs_inline_with_the_same_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let state = root.join(".clarvis");
    std::fs::create_dir(&state).unwrap();
    // A monitor that exited on its own (its pid long gone): sidecar, log, exit file.
    let id = "mon_0000abcd";
    std::fs::write(
        state.join(format!("monitor-{id}.json")),
        json!({"id": id, "command": "x", "cwd": root, "pid": 4_000_000, "startedAt": 1, "readyWhen": null}).to_string(),
    )
    .unwrap();
    std::fs::write(state.join(format!("monitor-{id}.log")), "one\ntwo\nthree\n").unwrap();
    std::fs::write(state.join(format!("monitor-{id}.exit")), "3\n").unwrap();
    let mut config = Config::with_root(root);
    config.max_output_bytes = 6;
    let config = Runtime::new(config).shared();
    assert!(dispatch::runs_inline("monitor_poll", &config.config));
    for args in [
        json!({"id": id}),
        json!({"id": id, "offset": 4}),
        json!({"id": id, "offset": 99}),
        json!({"id": id, "match": "^t"}),
        json!({"id": id, "match": "("}),
        json!({"id": "mon_ffffffff"}),
        json!({"id": "../x"}),
        json!({"id": 7}),
    ] {
        both(&config, "monitor_poll", Args::Json(args), Cancel::new());
    }
    let mut v01 = Config::with_root(root);
    v01.compat = Compat::V01;
    assert!(!dispatch::runs_inline("monitor_poll", &v01));
}
