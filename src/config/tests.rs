//! Option and environment resolution, message by message.

use super::*;
use serde_json::json;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

const NO_RG: Probes = Probes {
    ripgrep: Some(false),
    tree_sitter: None,
};

/// The checks of a tools object without host tools or redaction (the real ones, which need
/// the registry and the engines, are tested with `dispatch::open`).
struct Plain;

impl Checks for Plain {
    fn tool_names(&mut self, _: Option<&Value>) -> Result<Vec<String>, StartupError> {
        Ok(vec!["read_file".into(), "bash".into()])
    }

    fn redaction(&mut self, _: Option<&Value>) -> Result<Option<Vec<Value>>, StartupError> {
        Ok(None)
    }
}

#[test]
fn defaults_and_normalised_root() {
    let dir = tempfile::tempdir().unwrap();
    let raw = format!("{}/x/..", dir.path().display());
    let c = resolve_config(&json!({ "workspaceRoot": raw }), NO_RG, &mut Plain).unwrap();
    assert_eq!(c.workspace_root, dir.path());
    assert_eq!(c.max_output_bytes, 131_072);
    assert_eq!(c.max_file_bytes, 20_000_000);
    assert!(!c.read_only && c.confine_to_workspace);
}

#[test]
fn startup_messages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let err = |v: Value| resolve_config(&v, NO_RG, &mut Plain).unwrap_err().0;
    assert_eq!(
        err(json!({})),
        "No workspace root: options.workspaceRoot is required."
    );
    assert_eq!(
        err(json!({"workspaceRoot": root, "maxOutputBytes": 100})),
        "maxOutputBytes must be an integer >= 1024, got: 100"
    );
    assert_eq!(
        err(json!({"workspaceRoot": root, "maxFileBytes": 2048.5})),
        "maxFileBytes must be an integer >= 1024, got: 2048.5"
    );
    assert_eq!(
        err(json!({"workspaceRoot": root, "bashTimeoutMs": 10, "bashTimeoutMaxMs": 5})),
        "bashTimeoutMaxMs (5) must be >= bashTimeoutMs (10)."
    );
    let missing = format!("{root}/nope");
    assert_eq!(
        err(json!({ "workspaceRoot": missing })),
        format!("Workspace root does not exist: {missing}")
    );
    std::fs::write(dir.path().join("f"), "").unwrap();
    assert_eq!(
        err(json!({ "workspaceRoot": format!("{root}/f") })),
        format!("Workspace root is not a directory: {root}/f")
    );
}

#[cfg(unix)]
#[test]
fn write_scope_startup_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("f"), "").unwrap();
    std::os::unix::fs::symlink("/tmp", dir.path().join("out")).unwrap();
    let err = |scope: Value| {
        resolve_config(
            &json!({"workspaceRoot": root, "writeScope": scope}),
            NO_RG,
            &mut Plain,
        )
        .unwrap_err()
        .0
    };
    assert_eq!(
        err(json!("src")),
        "writeScope must be an array of workspace-relative directories, got: src"
    );
    assert_eq!(
        err(json!([])),
        "writeScope must name at least one directory (use readOnly: true to forbid every write)."
    );
    assert_eq!(
        err(json!([""])),
        "writeScope entries must be non-empty strings, got: "
    );
    assert_eq!(
        err(json!(["/etc"])),
        "writeScope entries must be workspace-relative directories, got: /etc"
    );
    assert_eq!(
        err(json!(["src/../../x"])),
        "writeScope entry escapes the workspace root: src/../../x"
    );
    assert_eq!(
        err(json!(["out/x"])),
        "writeScope entry escapes the workspace root: out/x"
    );
    assert_eq!(err(json!(["f"])), "writeScope entry is not a directory: f");
    let c = resolve_config(
        &json!({"workspaceRoot": root, "writeScope": ["src", "src/a", "./new/"]}),
        NO_RG,
        &mut Plain,
    )
    .unwrap();
    let names: Vec<&str> = c.write_scope.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["src", "src/a", "new"]);
    assert_eq!(c.to_json()["writeScope"], json!(["src", "src/a", "new"]));
}

#[test]
fn build_config_reads_flags_and_env() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let c = build_config(
        &argv(&["--workspace", root, "--read-only"]),
        &env(&[
            ("ALLOW_OUTSIDE_WORKSPACE", " Yes "),
            ("MAX_OUTPUT_BYTES", "2048"),
        ]),
        Probes {
            ripgrep: Some(true),
            tree_sitter: None,
        },
        &mut Plain,
    )
    .unwrap();
    assert!(c.read_only && !c.confine_to_workspace && c.ripgrep_available);
    assert_eq!(c.max_output_bytes, 2048);
    let c = build_config(
        &argv(&[&format!("--workspace={root}")]),
        &env(&[("READ_ONLY", "")]),
        NO_RG,
        &mut Plain,
    )
    .unwrap();
    assert!(!c.read_only);
    let e = |a: &[&str], v: &[(&str, &str)]| {
        build_config(&argv(a), &env(v), NO_RG, &mut Plain)
            .unwrap_err()
            .0
    };
    assert_eq!(
        e(&["--workspace"], &[]),
        "--workspace requires a path argument"
    );
    assert_eq!(
        e(&["--workspace", "--read-only"], &[]),
        "--workspace requires a path argument"
    );
    assert_eq!(
        e(&["--workspace="], &[]),
        "--workspace requires a path argument"
    );
    assert_eq!(
        e(&[], &[]),
        "No workspace root: pass --workspace <path> or set WORKSPACE_ROOT."
    );
    assert_eq!(
        e(&[], &[("WORKSPACE_ROOT", root), ("READ_ONLY", "maybe")]),
        "READ_ONLY must be one of 1/true/yes/on or 0/false/no/off, got: maybe"
    );
    for raw in [" 100 ", "12.5", "-5"] {
        assert_eq!(
            e(&[], &[("WORKSPACE_ROOT", root), ("MAX_FILE_BYTES", raw)]),
            format!("MAX_FILE_BYTES must be a positive integer, got: {raw}")
        );
    }
    assert_eq!(
        e(&[], &[("WORKSPACE_ROOT", root), ("BASH_TIMEOUT_MS", "0")]),
        "BASH_TIMEOUT_MS must be an integer >= 1, got: 0"
    );
    assert_eq!(
        e(
            &[],
            &[
                ("WORKSPACE_ROOT", root),
                ("BASH_TIMEOUT_MS", "20"),
                ("BASH_TIMEOUT_MAX_MS", "10")
            ]
        ),
        "BASH_TIMEOUT_MAX_MS (10) must be >= BASH_TIMEOUT_MS (20)."
    );
}

#[test]
fn budgets_past_v8_strings_act_as_the_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let c = resolve_config(
        &json!({ "workspaceRoot": root, "maxOutputBytes": 1u64 << 40, "maxImageBytes": 1u64 << 31 }),
        NO_RG, &mut Plain,
    )
    .unwrap();
    assert_eq!(c.max_output_bytes, MAX_OUTPUT_BYTES_CEILING);
    assert_eq!(c.max_image_bytes, MAX_IMAGE_BYTES_CEILING);
    let c = resolve_config(
        &json!({ "workspaceRoot": root, "maxOutputBytes": MAX_OUTPUT_BYTES_CEILING - 1 }),
        NO_RG,
        &mut Plain,
    )
    .unwrap();
    assert_eq!(c.max_output_bytes, MAX_OUTPUT_BYTES_CEILING - 1);
}

/// The public config carries every setting that is not at its default, so resolving it again
/// (what `dispatch` does with a copy of `tools.config`) gives the same configuration.
#[test]
fn the_public_config_resolves_to_the_same_configuration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let root = dir.path().to_string_lossy().to_string();
    for options in [
        json!({"workspaceRoot": root}),
        json!({"workspaceRoot": root, "compat": "0.1", "writeScope": ["src"], "toolPolicy": {"deny": ["bash"]}, "killGraceMs": 5}),
        json!({"workspaceRoot": root, "toolPolicy": {"allow": ["read_file"], "deny": ["bash"]}, "checkpointTools": true, "searchIndex": "off", "searchIndexThreshold": 9, "readOnly": true, "checkpointBytes": 0}),
        json!({"workspaceRoot": root, "sandbox": {"filesystem": {"allowWrite": ["src", "/opt/c"], "denyWrite": ["x.env"], "denyRead": ["/k"]}, "network": {"allowedDomains": ["a.com"], "deniedDomains": ["b.a.com"]}, "env": {"allow": ["A_TOKEN"]}, "require": ["writes"]}}),
        json!({"workspaceRoot": root, "compat": "0.1", "sandbox": true}),
    ] {
        let c = resolve_config(&options, NO_RG, &mut Plain).unwrap();
        let again = resolve_config(&c.to_json(), NO_RG, &mut Plain).unwrap();
        assert_eq!(again, c, "{options}");
    }
    // A 0.1 configuration with only 0.1's options is exactly 0.1's eight fields (the JS layer
    // recognises a copy of it as the config it issued).
    let plain = resolve_config(
        &json!({"workspaceRoot": root, "compat": "0.1"}),
        NO_RG,
        &mut Plain,
    )
    .unwrap();
    assert_eq!(plain.to_json().as_object().unwrap().len(), 8);
}
