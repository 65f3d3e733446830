use super::*;
use std::time::Duration;

fn req<'a>(root: &'a Path, command: &'a str, timeout_ms: u64) -> Request<'a> {
    Request {
        command,
        cwd: root,
        timeout: Duration::from_millis(timeout_ms),
        root,
        max_output_bytes: 4096,
        kill_grace: Duration::ZERO,
        on_output: None,
        sandbox: None,
        capture: None,
    }
}

async fn call(s: &Sessions, root: &Path, name: &str, command: &str) -> SessionOutcome {
    call_t(s, root, name, command, 60_000).await
}

async fn call_t(
    s: &Sessions,
    root: &Path,
    name: &str,
    command: &str,
    timeout_ms: u64,
) -> SessionOutcome {
    s.run(
        name,
        req(root, command, timeout_ms),
        None,
        &Cancel::new(),
        |p| p.display().to_string(),
    )
    .await
    .unwrap_or_else(|e| panic!("{command}: {e:?}"))
}

fn code(o: &SessionOutcome) -> i32 {
    match o.outcome.ending {
        Ending::Exited { code, .. } => code,
        ref e => panic!("not an exit: {e:?}"),
    }
}

/// Whether `pid` is gone (or a zombie nobody will run again), polling for up to a minute:
/// the kill is done when the call returns, the reaping by init may lag.
fn gone(pid: u32) -> bool {
    for _ in 0..600 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(s) if s[s.rfind(')').unwrap() + 2..].starts_with('Z') => return true,
            Ok(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    false
}

fn pid_of(o: &SessionOutcome) -> u32 {
    o.outcome.stdout.trim().parse().unwrap()
}

#[tokio::test]
async fn state_carries_over_and_output_is_the_commands_own() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    let first = call(
        &s,
        r,
        "a",
        "cd sub; export GREETING=hi; PLAIN=p; f() { echo \"f:$1\"; }; alias ll='echo aliased'; set -u; echo one",
    )
    .await;
    assert_eq!(
        (first.state, first.outcome.stdout.as_str()),
        (State::Started, "one\n")
    );
    assert!(first.cwd.unwrap().ends_with("sub"));
    let second = call(
        &s,
        r,
        "a",
        "pwd; echo $GREETING $PLAIN; f x; ll; case $- in *u*) echo nounset;; esac",
    )
    .await;
    assert_eq!(second.state, State::Resumed);
    let want = format!(
        "{}\nhi p\nf:x\naliased\nnounset\n",
        std::fs::canonicalize(r.join("sub")).unwrap().display()
    );
    assert_eq!(second.outcome.stdout, want);
    assert_eq!(second.outcome.stderr, "");
    // Another name is another shell.
    let other = call(&s, r, "b", "echo ${GREETING:-none}; pwd").await;
    assert_eq!(other.state, State::Started);
    assert!(other.outcome.stdout.starts_with("none\n"));
}

#[tokio::test]
async fn whatever_the_command_prints_is_exactly_its_output() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    // Look-alike frames, no trailing newline, a syntax error, stdin closed.
    let fake = "printf '0123 0 x\\n/\\n0123-pwd\\nexport A=1\\n0123-end\\n'; printf 'tail'";
    let o = call(&s, r, "s", fake).await;
    assert_eq!(
        o.outcome.stdout,
        "0123 0 x\n/\n0123-pwd\nexport A=1\n0123-end\ntail"
    );
    let o = call(
        &s,
        r,
        "s",
        "printf out; printf err >&2; exit_code() { return 7; }; exit_code",
    )
    .await;
    assert_eq!(
        (
            o.outcome.stdout.as_str(),
            o.outcome.stderr.as_str(),
            code(&o)
        ),
        ("out", "err", 7)
    );
    let o = call(&s, r, "s", "printf '\\0\\001\\377z'").await;
    assert_eq!(o.outcome.stdout, "\0\u{1}\u{FFFD}z");
    let o = call(&s, r, "s", "if then").await;
    assert_eq!(code(&o), 2);
    assert!(
        o.outcome.stderr.contains("Syntax error"),
        "{}",
        o.outcome.stderr
    );
    let o = call(&s, r, "s", "cat; echo after").await;
    assert_eq!(o.outcome.stdout, "after\n");
    // A trace shows the user's commands only, in the call that asked and in the next.
    let o = call(&s, r, "s", "set -x; echo t1").await;
    assert_eq!(o.outcome.stderr, "+ echo t1\n");
    let o = call(&s, r, "s", "echo t2").await;
    assert_eq!(
        (o.outcome.stdout.as_str(), o.outcome.stderr.as_str()),
        ("t2\n", "+ echo t2\n")
    );
    // A function named like the builtin we call does not take the session over.
    call(&s, r, "s", "command() { echo hijacked; }; set +x").await;
    let o = call(&s, r, "s", "echo t3").await;
    assert_eq!(o.outcome.stdout, "t3\n");
    // The shell survived all of it.
    assert_eq!(o.state, State::Resumed);
}

#[tokio::test]
async fn big_output_is_spilled_whole() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let o = call(
        &s,
        root.path(),
        "s",
        "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo end",
    )
    .await;
    assert!(o.outcome.stdout.ends_with("end\n"), "{}", &o.outcome.stdout);
    let spill = std::fs::read_dir(root.path().join(".clarvis"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".stdout.log"))
        .unwrap();
    assert_eq!(std::fs::metadata(spill.path()).unwrap().len(), 3_000_005);
}

#[tokio::test]
async fn a_timeout_ends_the_command_and_the_shell_lives_on() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    call(&s, r, "s", "f() { echo kept; }; X=1").await;
    let o = call_t(
        &s,
        r,
        "s",
        "echo started; sleep 1000 & echo $! > bg; sleep 1000",
        1500,
    )
    .await;
    assert!(
        matches!(o.outcome.ending, Ending::TimedOut),
        "{:?}",
        o.outcome.ending
    );
    assert_eq!(
        (o.state, o.outcome.stdout.as_str()),
        (State::Kept, "started\n")
    );
    let bg: u32 = std::fs::read_to_string(r.join("bg"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone(bg), "the command's background process is gone too");
    let next = call(&s, r, "s", "f; echo $X").await;
    assert_eq!(next.outcome.stdout, "kept\n1\n");
}

#[tokio::test]
async fn a_process_that_takes_the_marker_after_the_interruption_is_ended_too() {
    // The subshell is a fork of the session shell, so it carries the shell's environment,
    // not the call's marker, until its `exec`; the `sleep 0.5` before it carries no marker
    // either (`env -u`), so the `exec` comes well after the first sweep.
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    call(&s, r, "s", "X=kept").await;
    let late = "( env -u CLARVIS_CALL_ID sleep 0.5; exec sleep 1000 )";
    let o = call_t(&s, r, "s", late, 200).await;
    assert!(matches!(o.outcome.ending, Ending::TimedOut));
    assert_eq!(o.state, State::Kept);
    assert_eq!(call(&s, r, "s", "echo $X").await.outcome.stdout, "kept\n");
}

#[tokio::test]
async fn a_shell_busy_in_a_loop_is_restarted_with_cwd_and_exports() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("d")).unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    let first = call(&s, r, "s", "cd d; export E='a b'; f() { :; }; echo $$").await;
    let pid = pid_of(&first);
    let marker = call(&s, r, "s", "printf %s \"$CLARVIS_SESSION_ID\"").await;
    let o = call_t(&s, r, "s", "while :; do :; done", 300).await;
    assert!(matches!(o.outcome.ending, Ending::TimedOut));
    assert_eq!(o.state, State::Restarted);
    assert!(gone(pid));
    // The replaced shell's marker sweep (run late, on another thread, when it is dropped)
    // never reaches the shell that took its place.
    let old = marker.outcome.stdout;
    assert!(!old.is_empty());
    crate::process::group::sweep_marked_as(crate::process::group::SESSION_ID_VAR, &old);
    let next = call(&s, r, "s", "pwd; echo \"$E\"; command -v f || echo no-f").await;
    let d = std::fs::canonicalize(r.join("d")).unwrap();
    assert_eq!(next.outcome.stdout, format!("{}\na b\nno-f\n", d.display()));
    assert_eq!(next.state, State::Resumed);
}

#[tokio::test]
async fn an_abort_ends_the_command() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    let cancel = Cancel::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let o = s
        .run("s", req(r, "sleep 1000", 600_000), None, &cancel, |p| {
            p.display().to_string()
        })
        .await
        .unwrap();
    assert!(matches!(o.outcome.ending, Ending::Aborted));
    assert_eq!(call(&s, r, "s", "echo ok").await.outcome.stdout, "ok\n");
}

#[tokio::test]
async fn the_output_ceiling_ends_the_command() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let o = call(&s, root.path(), "s", "yes").await;
    assert!(
        matches!(o.outcome.ending, Ending::OutputLimit),
        "{:?}",
        o.outcome.ending
    );
    assert_eq!(o.state, State::Kept);
    assert_eq!(
        call(&s, root.path(), "s", "echo ok").await.outcome.stdout,
        "ok\n"
    );
}

#[tokio::test]
async fn exit_ends_that_session_only() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("d")).unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    let other = pid_of(&call(&s, r, "other", "echo $$").await);
    let pid = pid_of(&call(&s, r, "s", "cd d; sleep 1000 & echo $$").await);
    let o = call(&s, r, "s", "echo bye; exit 3").await;
    assert_eq!(
        (code(&o), o.state, o.outcome.stdout.as_str()),
        (3, State::Ended, "bye\n")
    );
    assert!(gone(pid));
    let fresh = call(&s, r, "s", "pwd").await;
    assert_eq!(fresh.state, State::Started);
    assert_eq!(
        fresh.outcome.stdout.trim(),
        std::fs::canonicalize(r).unwrap().to_string_lossy()
    );
    assert_eq!(pid_of(&call(&s, r, "other", "echo $$").await), other);
}

#[tokio::test]
async fn past_the_limit_the_least_recently_used_idle_session_ends() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(2, 60_000);
    let r = root.path();
    let a = pid_of(&call(&s, r, "a", "echo $$").await);
    let b = pid_of(&call(&s, r, "b", "echo $$").await);
    call(&s, r, "a", "true").await;
    call(&s, r, "c", "true").await;
    assert_eq!(s.len(), 2);
    assert!(gone(b), "b was the least recently used");
    assert_eq!(pid_of(&call(&s, r, "a", "echo $$").await), a);
}

#[tokio::test]
async fn at_the_limit_with_every_session_busy_a_new_name_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let s = Arc::new(Sessions::new(1, 60_000));
    let r = root.path().to_path_buf();
    let (s2, r2) = (Arc::clone(&s), r.clone());
    let busy = tokio::spawn(async move { call(&s2, &r2, "a", "echo up > up; sleep 1000").await });
    while !r.join("up").exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refused = s
        .run("b", req(&r, "true", 1000), None, &Cancel::new(), |p| {
            p.display().to_string()
        })
        .await;
    assert!(matches!(refused, Err(SessionError::Limit(1))));
    s.end_all().await;
    assert_eq!(busy.await.unwrap().state, State::Ended);
}

#[tokio::test]
async fn an_idle_session_ends() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 50);
    let pid = pid_of(&call(&s, root.path(), "a", "echo $$").await);
    for _ in 0..600 {
        if s.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(s.is_empty());
    assert!(gone(pid));
}

#[tokio::test]
async fn dropping_the_sessions_ends_every_shell_and_what_it_started() {
    let root = tempfile::tempdir().unwrap();
    let s = Sessions::new(8, 60_000);
    let r = root.path();
    let shell = pid_of(&call(&s, r, "a", "echo $$").await);
    let bg = pid_of(&call(&s, r, "a", "sleep 1000 >/dev/null 2>&1 & echo $!").await);
    drop(s);
    assert!(gone(shell) && gone(bg));
}
