//! `tree`'s walk on several threads: the output is the sequential depth-first rendering,
//! whatever order the jobs ran in; a subdirectory that vanished or turned into a link is
//! listed but not descended; the first failure in output order decides; a cancelled walk
//! is `aborted`.

use super::*;
use crate::cancel::Cancel;
use crate::config::Config;
use crate::runtime::Runtime;
use crate::warnings::Warnings;
use std::fs;

fn call_in(root: &Path, args: Value) -> Call {
    Call::new(
        args.as_object().cloned().unwrap_or_default(),
        Runtime::new(Config::with_root(root)).shared(),
        Cancel::new(),
    )
}

fn text(out: Output) -> String {
    match out.content.into_iter().next() {
        Some(crate::tools::Part::Text(t)) => t,
        other => panic!("not text: {other:?}"),
    }
}

/// The tree as a plain recursive walk renders it (the sequential reference): directories
/// first, then UTF-16 order; `*.log` and `.git` hidden, as the fixture's `.gitignore` says.
fn reference(dir: &Path, prefix: &str, levels: u64, out: &mut String) {
    let mut ents: Vec<(bool, bool, String, u64)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            let name = e.file_name().into_string().unwrap();
            let size = e.metadata().unwrap().len();
            (ft.is_dir(), ft.is_symlink(), name, size)
        })
        .filter(|(_, _, name, _)| name != ".git" && !name.ends_with(".log"))
        .collect();
    ents.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.2.encode_utf16().cmp(b.2.encode_utf16()))
    });
    let n = ents.len();
    for (i, (is_dir, link, name, size)) in ents.into_iter().enumerate() {
        let last = i + 1 == n;
        out.push('\n');
        out.push_str(prefix);
        out.push_str(if last { "└── " } else { "├── " });
        if link {
            out.push_str(&format!("{name}@"));
        } else if is_dir {
            out.push_str(&format!("{name}/"));
            if levels > 1 {
                let child = format!("{prefix}{}", if last { "    " } else { "│   " });
                reference(&dir.join(&name), &child, levels - 1, out);
            }
        } else {
            out.push_str(&format!("{name}\t{size}"));
        }
    }
}

/// 4 × 5 × 6 directories, files of distinct sizes, names whose UTF-16 order differs from
/// byte order, ignored files, a link and an empty directory.
fn fixture(root: &Path) {
    fs::create_dir(root.join(".git")).unwrap();
    fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    let mut k = 0;
    for a in 0..4 {
        for b in 0..5 {
            for c in 0..6 {
                let dir = root
                    .join(format!("a{a}"))
                    .join(format!("B{b}"))
                    .join(format!("c{c}"));
                fs::create_dir_all(&dir).unwrap();
                for (f, name) in [
                    "x.rs",
                    "Z.ts",
                    "\u{e9}t\u{e9}",
                    "\u{1f600}",
                    "\u{ff61}",
                    "t.log",
                ]
                .iter()
                .enumerate()
                {
                    k += 1;
                    fs::write(dir.join(format!("{f}{name}")), "y".repeat(k % 50)).unwrap();
                }
            }
        }
    }
    fs::create_dir(root.join("a0").join("empty")).unwrap();
    std::os::unix::fs::symlink("a1", root.join("link")).unwrap();
}

#[test]
fn the_parallel_walk_prints_the_sequential_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fixture(&root);
    for depth in [1u64, 2, 3, 4, 20] {
        let mut want = String::from(".");
        reference(&root, "", depth, &mut want);
        // Many runs: the jobs interleave differently each time, the output must not.
        for _ in 0..10 {
            let got = text(run(&call_in(&root, json!({ "depth": depth }))).unwrap());
            assert_eq!(got, want, "depth {depth}");
        }
    }
}

/// A walk over `root` whose jobs the test runs by hand.
fn walk_of<'a>(call: &'a Call, root: &Path) -> Walk<'a> {
    Walk {
        call,
        policy: Policy::new(Arc::clone(&call.config), root, true, Warnings::default()),
        queue: Mutex::new(Queue {
            jobs: Vec::new(),
            pending: 0,
        }),
        ready: Condvar::new(),
        next_id: AtomicUsize::new(1),
    }
}

#[test]
fn a_subdirectory_gone_or_turned_into_a_link_or_file_is_not_descended() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir(root.join("real")).unwrap();
    fs::write(root.join("file"), "x").unwrap();
    std::os::unix::fs::symlink("real", root.join("link")).unwrap();
    let call = call_in(&root, json!({}));
    let walk = walk_of(&call, &root);
    let handle = workspace::open_dir_confined(&call.config, &root, ".").unwrap();
    let parent = Arc::new(Listing::of(&handle, &root).unwrap());
    let mut scratch = Scratch::default();
    // Listed as directories, then swapped before their jobs ran.
    for name in ["gone", "link", "file"] {
        let job = Job {
            id: 1,
            open: Open::Child(Arc::clone(&parent), OsString::from(name)),
            path: root.join(name),
            prefix: String::new(),
            levels: 3,
        };
        let (done, children) = walk.run(job, &mut scratch);
        assert!(matches!(done, Done::Vanished), "{name}");
        assert!(children.is_empty());
    }
    // In the output, the vanished directory keeps its line and nothing goes under it.
    let mut slots = vec![
        Some(Done::Listed {
            text: "\n├── gone/\n└── z\t1".into(),
            children: vec![("\n├── gone/".len(), 1)],
        }),
        Some(Done::Vanished),
    ];
    let mut out = String::new();
    stitch(&mut slots, 0, &mut out).unwrap();
    assert_eq!(out, "\n├── gone/\n└── z\t1");
}

#[test]
fn the_first_failure_in_output_order_wins_and_a_skipped_job_aborts() {
    let text = "\n├── a/\n└── b/";
    let (a, b) = (text.find("a/").unwrap() + 2, text.len());
    let listed = |children| Done::Listed {
        text: text.into(),
        children,
    };
    let failed = |m: &str| Done::Failed(ToolError::new(Code::IoError, m));
    // Job 2 (under b/, later in the output) may have failed first in time: a/'s error wins.
    let mut slots = vec![
        Some(listed(vec![(a, 1), (b, 2)])),
        Some(failed("under a")),
        Some(failed("under b")),
    ];
    let err = stitch(&mut slots, 0, &mut String::new()).unwrap_err();
    assert_eq!(err.message, "under a");
    let mut slots = vec![
        Some(listed(vec![(a, 1), (b, 2)])),
        Some(Done::Skipped),
        Some(failed("under b")),
    ];
    let err = stitch(&mut slots, 0, &mut String::new()).unwrap_err();
    assert_eq!(err.code, Code::Aborted);
}

#[test]
fn a_cancelled_walk_is_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fixture(&root);
    let call = call_in(&root, json!({}));
    call.cancel.cancel();
    let err = run(&call).err().unwrap();
    assert_eq!(err.code, Code::Aborted);
}

#[test]
fn a_subdirectory_that_cannot_be_opened_fails_with_its_path() {
    // Not a vanished entry (ENAMETOOLONG, as EACCES would be for a non-root user): the
    // call's error, naming the directory.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let call = call_in(&root, json!({}));
    let walk = walk_of(&call, &root);
    let handle = workspace::open_dir_confined(&call.config, &root, ".").unwrap();
    let parent = Arc::new(Listing::of(&handle, &root).unwrap());
    let name = "n".repeat(300);
    let job = Job {
        id: 1,
        open: Open::Child(parent, OsString::from(&name)),
        path: root.join(&name),
        prefix: String::new(),
        levels: 2,
    };
    match walk.run(job, &mut Scratch::default()).0 {
        Done::Failed(err) => {
            assert_eq!(err.code, Code::IoError);
            assert_eq!(err.fields.get("path"), Some(&json!(name)));
        }
        _ => panic!("expected a failure"),
    }
}
