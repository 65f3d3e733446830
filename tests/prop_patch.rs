//! Property tests ("fuzz targets" with bounded case counts, so they run in CI) for
//! `apply_patch`:
//!
//! - **Parsers never panic.** Random bytes read as text, a soup of patch syntax (headers,
//!   hunk headers with absurd counts, markers, fences, mixed line endings) and valid patches
//!   of both formats mutated line by line: `parse_patch` returns a plan or an `invalid_input`
//!   error, nothing else.
//! - **A diff from A to B turns A into B, byte for byte, through the whole tool.** Files with
//!   mixed `\n` / `\r\n` / `\r` terminators, a BOM, no final newline; several files per patch
//!   (modify, create, delete), applied by the `apply_patch` handler on a temp workspace.
//! - **All or nothing.** A random mutation of a valid patch (either format) never panics, is
//!   never an `internal` error, and when it fails, the workspace is exactly as before (every
//!   path, type, mode and byte; no temp file, no journal, no `.clarvis`).
//!
//! Case counts are fixed (no time-based fuzzing); the whole file runs in a few seconds.

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::Config;
use clarvis_agent_tools::error::{Code, ToolError};
use clarvis_agent_tools::patch::parse_patch;
use clarvis_agent_tools::runtime::Runtime;
use clarvis_agent_tools::tools::{self, Call, Handler};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "support/patch_cases.rs"]
mod patch_cases;
#[path = "support/patch_mutations.rs"]
mod patch_mutations;

use patch_cases::{file_case, scenario};
use patch_mutations::{mutate, mutation, soup};

// ---------------------------------------------------------------------------------------
// Running the tool

/// Calls the `apply_patch` handler directly (no dispatch, so a panic fails the test with
/// its message instead of becoming an `internal` error).
fn apply_patch(root: &Path, patch: &str) -> Result<String, ToolError> {
    apply_patch_with(Config::with_root(root), patch)
}

fn apply_patch_with(config: Config, patch: &str) -> Result<String, ToolError> {
    let def =
        tools::get_tool("apply_patch", &Config::with_root("/")).expect("apply_patch is registered");
    let Handler::Blocking(run) = def.handler else {
        panic!("apply_patch is a blocking handler");
    };
    let mut args = serde_json::Map::new();
    args.insert("patch".into(), patch.into());
    let call = Call::new(args, Runtime::new(config).shared(), Cancel::new());
    run(&call).map(|o| o.joined_text())
}

/// Every path under `root` with its type, permission bits and bytes (links: their target).
fn tree(root: &Path) -> BTreeMap<PathBuf, (char, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = clarvis_agent_tools::fsmeta::mode(&meta);
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if meta.is_dir() {
                stack.push(path);
                out.insert(rel, ('d', mode, Vec::new()));
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.insert(rel, ('l', 0, target.into_os_string().into_encoded_bytes()));
            } else {
                out.insert(rel, ('f', mode, fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// Names under `root` that a finished call must not leave behind.
fn debris(root: &Path) -> Vec<PathBuf> {
    tree(root)
        .into_keys()
        .filter(|p| {
            p.starts_with(".clarvis")
                || p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(clarvis_agent_tools::atomic::TEMP_PREFIX))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// (a) The parsers never panic

/// `parse_patch` gave a plan or an `invalid_input` error.
fn parses_or_refuses(text: &str) -> Result<(), TestCaseError> {
    match parse_patch(text) {
        Ok(_) => Ok(()),
        Err(e) if e.code == Code::InvalidInput => Ok(()),
        Err(e) => Err(TestCaseError::fail(format!(
            "parse_patch gave {:?} {:?} for {text:?}",
            e.code, e.message
        ))),
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 1500, ..RunnerConfig::default() })]

    #[test]
    fn parsers_never_panic_on_random_text(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        parses_or_refuses(&text)?;
        // The same text behind a codex start line goes through the other parser.
        parses_or_refuses(&format!("*** Begin Patch\n{text}"))?;
    }

    #[test]
    fn parsers_never_panic_on_a_soup_of_patch_syntax(text in soup()) {
        parses_or_refuses(&text)?;
        parses_or_refuses(&format!("*** Begin Patch\n{text}\n*** End Patch\n"))?;
        parses_or_refuses(&format!("```\n*** Begin Patch\n{text}"))?;
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 600, ..RunnerConfig::default() })]

    #[test]
    fn parsers_never_panic_on_mutated_valid_patches(
        cases in prop::collection::vec(file_case(), 1..4),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        // Only the patch text matters here; the scenario's files are not used.
        let s = scenario(&cases);
        for text in [&s.unified, &s.codex] {
            parses_or_refuses(text)?;
            let mut mutated = text.clone();
            for m in &mutations {
                mutated = mutate(&mutated, m);
                parses_or_refuses(&mutated)?;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// (b) Applying: A becomes B exactly; a broken patch changes nothing

/// Bounded case counts for the tests that touch the disk (each call fsyncs).
fn disk_runner(cases: u32) -> TestRunner {
    TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    })
}

#[test]
fn a_diff_from_a_to_b_turns_a_into_b_byte_for_byte_through_the_tool() {
    let mut runner = disk_runner(160);
    let strategy = prop::collection::vec(file_case(), 1..5);
    runner
        .run(&strategy, |cases| {
            let s = scenario(&cases);
            prop_assume!(!s.files.is_empty());
            let before = tree(&s.root);
            let result = apply_patch(&s.root, &s.unified);
            let summary = result.map_err(|e| {
                TestCaseError::fail(format!(
                    "{:?} {}\npatch:\n{}\nbefore: {before:?}",
                    e.code, e.message, s.unified
                ))
            })?;
            prop_assert!(summary.starts_with("Applied patch:"), "{}", summary);
            prop_assert_eq!(summary.lines().count(), s.files.len() + 1, "{}", summary);
            for (name, built) in &s.files {
                let on_disk = fs::read(s.root.join(name)).ok();
                prop_assert_eq!(
                    on_disk.as_ref(),
                    built.b.as_ref(),
                    "{}\npatch:\n{}\nA: {:?}",
                    name,
                    s.unified,
                    built
                        .a
                        .as_ref()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                );
            }
            prop_assert!(debris(&s.root).is_empty(), "{:?}", debris(&s.root));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_mutated_patch_never_panics_and_applies_all_or_nothing() {
    let mut runner = disk_runner(200);
    let strategy = (
        prop::collection::vec(file_case(), 1..4),
        prop::collection::vec(mutation(), 1..3),
        any::<bool>(),
    );
    let (failed, applied) = (Cell::new(0), Cell::new(0));
    runner
        .run(&strategy, |(cases, mutations, use_codex)| {
            let s = scenario(&cases);
            let mut text = if use_codex {
                s.codex.clone()
            } else {
                s.unified.clone()
            };
            for m in &mutations {
                text = mutate(&text, m);
            }
            let before = tree(&s.root);
            match apply_patch(&s.root, &text) {
                Ok(summary) => {
                    applied.set(applied.get() + 1);
                    prop_assert!(summary.starts_with("Applied patch:"), "{}", summary);
                }
                Err(e) => {
                    failed.set(failed.get() + 1);
                    prop_assert_ne!(e.code, Code::Internal, "{}\npatch:\n{}", e.message, text);
                    let after = tree(&s.root);
                    prop_assert!(
                        after == before,
                        "a failed patch ({:?} {}) changed the workspace\npatch:\n{}\nbefore: {:?}\nafter: {:?}",
                        e.code,
                        e.message,
                        text,
                        before,
                        after
                    );
                }
            }
            prop_assert!(debris(&s.root).is_empty(), "{:?}\npatch:\n{}", debris(&s.root), text);
            Ok(())
        })
        .unwrap();
    // Both outcomes must really be exercised, or the property says little.
    let (failed, applied) = (failed.get(), applied.get());
    assert!(
        failed > 20 && applied > 20,
        "failed {failed}, applied {applied}"
    );
}

#[test]
fn a_commit_failing_after_any_operation_leaves_the_workspace_as_it_was() {
    // The commit's own rollback, on mixed multi-file patches: the test hook fails the commit
    // after k file operations (k random, up to all of them but one).
    let mut runner = disk_runner(80);
    let strategy = (prop::collection::vec(file_case(), 2..6), any::<usize>());
    runner
        .run(&strategy, |(cases, k)| {
            let s = scenario(&cases);
            prop_assume!(s.files.len() >= 2);
            let mut config = Config::with_root(&s.root);
            let k = (k % s.files.len()) as u64;
            config.hooks.fail_commit_after = Some(k);
            let before = tree(&s.root);
            let e = apply_patch_with(config, &s.unified).expect_err("the hook fails the commit");
            let want = format!(
                "Failed to apply patch: EIO: injected failure after {k} file operations (test hook)"
            );
            prop_assert_eq!((e.code, e.message.as_str()), (Code::IoError, want.as_str()));
            let after = tree(&s.root);
            prop_assert!(
                after == before,
                "the workspace changed\nbefore: {:?}\nafter: {:?}",
                before,
                after
            );
            Ok(())
        })
        .unwrap();
}
