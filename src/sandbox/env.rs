//! The environment a sandboxed command gets: the host's, less every variable whose name looks
//! like a secret (unless `env.allow` names it), plus `TMPDIR` and the proxy variables.

/// Name fragments that mark a secret: a name containing one of them (case-insensitive) is
/// dropped. `KEY` is deliberately broad (`OPENAI_API_KEY`, `AWS_ACCESS_KEY_ID`, `SSH_KEY`).
const SECRET_PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "KEY",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "PRIVATE",
    "COOKIE",
    "SESSION",
];

/// Words (between `_`) that mark a secret only as a whole word: `AUTH` drops `SSH_AUTH_SOCK`
/// and `NPM_AUTH`, not `GIT_AUTHOR_NAME`; `PAT` a personal access token, not `PATH`.
const SECRET_WORDS: &[&str] = &["AUTH", "PAT", "PWD_SECRET", "APIKEY", "DSN"];

/// Whether a variable named `name` looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper == "PWD" || upper == "OLDPWD" {
        return false;
    }
    SECRET_PARTS.iter().any(|p| upper.contains(p))
        || upper.split('_').any(|w| SECRET_WORDS.contains(&w))
}

/// The variables of `vars` a sandboxed command keeps: those that do not look secret, and
/// those `allow` names. Returns the kept ones and the names dropped.
pub fn scrub<I>(vars: I, allow: &[String]) -> (Vec<(String, String)>, Vec<String>)
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (k, v) in vars {
        if looks_secret(&k) && !allow.iter().any(|a| a == &k) {
            dropped.push(k);
        } else {
            kept.push((k, v));
        }
    }
    (kept, dropped)
}

/// Points every proxy variable a program may read (both spellings) at the filtering proxy on
/// `port`, the one way out of a sandbox whose network is a domain list.
pub fn set_proxy(cmd: &mut std::process::Command, port: u16) {
    let url = format!("http://127.0.0.1:{port}");
    for k in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env(k, &url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised_by_name() {
        for n in [
            "GITHUB_TOKEN",
            "npm_config__authToken",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "OPENAI_API_KEY",
            "PGPASSWORD",
            "SSH_AUTH_SOCK",
            "MY_CREDENTIALS",
            "GH_PAT",
            "SENTRY_DSN",
            "AWS_SESSION_TOKEN",
        ] {
            assert!(looks_secret(n), "{n}");
        }
        for n in [
            "PATH",
            "HOME",
            "PWD",
            "GIT_AUTHOR_NAME",
            "LANG",
            "TERM",
            "CARGO_HOME",
            "NODE_OPTIONS",
        ] {
            assert!(!looks_secret(n), "{n}");
        }
    }

    #[test]
    fn allow_keeps_a_named_secret() {
        let vars = vec![
            ("A_TOKEN".to_string(), "1".to_string()),
            ("B_TOKEN".to_string(), "2".to_string()),
            ("PATH".to_string(), "/bin".to_string()),
        ];
        let (kept, dropped) = scrub(vars, &["B_TOKEN".to_string()]);
        assert_eq!(
            kept,
            vec![
                ("B_TOKEN".to_string(), "2".to_string()),
                ("PATH".to_string(), "/bin".to_string())
            ]
        );
        assert_eq!(dropped, vec!["A_TOKEN".to_string()]);
    }
}
