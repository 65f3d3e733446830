use super::*;

fn r() -> Redactor {
    Redactor::new(vec![("internal-[0-9]+".into(), "i".into())]).unwrap()
}

#[test]
fn well_known_formats_are_masked() {
    let cases = [
        ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED:aws_access_key] here"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED:aws_secret_key]",
        ),
        ("t=ghp_0123456789abcdefghijABCDEFGHIJ012345", "t=[REDACTED:github_token]"),
        ("npm_abcdefghijABCDEFGHIJ0123456789abcdef", "[REDACTED:npm_token]"),
        ("k sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "k [REDACTED:anthropic_key]"),
        ("k sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "k [REDACTED:openai_key]"),
        ("AIzaSyA-0123456789abcdefghijklmnopqrstu", "[REDACTED:google_api_key]"),
        ("PASSWORD=hunter2\nUSER=bob\n", "PASSWORD=[REDACTED:password]\nUSER=bob\n"),
        ("export API_TOKEN=\"a b c\"\n", "export API_TOKEN=\"[REDACTED:secret]\"\n"),
        ("     3\tDB_PASS=s3cret\n", "     3\tDB_PASS=[REDACTED:password]\n"),
        (".env:2:token=abc123\n", ".env:2:token=[REDACTED:secret]\n"),
        ("12:API_KEY=x1\n", "12:API_KEY=[REDACTED:secret]\n"),
        (
            "@@ -1 +1 @@\n-PASS=a\n+PASS=b\n",
            "@@ -1 +1 @@\n-PASS=[REDACTED:password]\n+PASS=[REDACTED:password]\n",
        ),
        (
            r#"{"stdout":"SECRET_KEY=xyz\nA=1\n"}"#,
            r#"{"stdout":"SECRET_KEY=[REDACTED:secret]\nA=1\n"}"#,
        ),
        (
            "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\nabc\n-----END RSA PRIVATE KEY-----\ny",
            "x\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED:private_key]\n[REDACTED:private_key]\n-----END RSA PRIVATE KEY-----\ny",
        ),
        ("ref INTERNAL-42 ok", "ref [REDACTED:custom] ok"),
        ("db:\n  password: s3cretpw\n", "db:\n  password: [REDACTED:password]\n"),
        (
            r#"{"password": "jsonpw123", "user": "x"}"#,
            r#"{"password":"[REDACTED:password]","user":"x"}"#,
        ),
        (
            "conf.yaml:2:  password: s3cret # old\n",
            "conf.yaml:2:  password: [REDACTED:password] # old\n",
        ),
        (
            "postgres://app:hunter22@db:5432/x",
            "postgres://app:[REDACTED:password]@db:5432/x",
        ),
        (
            "curl -H 'Authorization: Bearer abcdefghijklmnop1234'",
            "curl -H 'Authorization: Bearer [REDACTED:bearer_token]'",
        ),
        ("run --db-password=pw123 now", "run --db-password=[REDACTED:password] now"),
        ("X-Api-Key: 0123abcd", "X-Api-Key: [REDACTED:secret]"),
    ];
    for (input, want) in cases {
        assert_eq!(r().redact(input.to_string()), want, "{input}");
    }
}

#[test]
fn ordinary_code_is_left_alone() {
    for s in [
        "password = input('pw')",
        "const token = req.headers.token",
        "PASSWORD=$DB_PASSWORD",
        "sk-short",
        "AKIA_not_a_key",
        "ghp_short",
        "résumé password: é",
        "    pub token: String,",
        "  password: hashedPassword",
        "  token: process.env.TOKEN",
        "  secret: Secret",
        "client = Client(api_key=api_key, token=token)",
        "MAX_TOKENS=4096",
        "TOKEN_URL=https://example.com/token",
        "if password == other {",
        "let key = map.get(&key);",
        "PWD=/home/user",
        "================================================================",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "  token: Option<Token>,",
        "password: ${{ secrets.DB_PASSWORD }}",
        "    password: &str,",
    ] {
        assert_eq!(r().redact(s.to_string()), s);
    }
}

#[test]
fn option_parsing() {
    assert!(parse(None).unwrap().is_none());
    assert!(parse(Some(&Value::Bool(false))).unwrap().is_none());
    assert!(parse(Some(&Value::Bool(true))).unwrap().is_some());
    let e = parse(Some(&serde_json::json!({"patterns": ["x*"]})))
        .unwrap_err()
        .0;
    assert_eq!(e, "redactSecrets.patterns: /x*/ matches the empty string");
    let e = parse(Some(&serde_json::json!({"patterns": ["("]})))
        .unwrap_err()
        .0;
    assert!(
        e.starts_with("redactSecrets.patterns: /(/ is not a valid regex"),
        "{e}"
    );
    assert_eq!(
        parse(Some(&serde_json::json!("yes"))).unwrap_err().0,
        "redactSecrets must be true, false or { patterns }, got: yes"
    );
    assert_eq!(
        parse(Some(&serde_json::json!({"patterns": [1]})))
            .unwrap_err()
            .0,
        "redactSecrets.patterns entries must be non-empty strings or RegExps, got: 1"
    );
}

/// A random-looking base64 line of `n` characters (upper, lower and digits), from `seed`.
fn b64(seed: &mut u64, n: usize) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s: String = (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            A[(*seed >> 33) as usize % 64] as char
        })
        .collect();
    s.replace_range(0..3, "aZ7");
    s
}

/// A file with a key block of `width`-wide body lines: (text, body lines).
fn keyed(seed: &mut u64, width: usize, lines: usize, last: usize) -> (String, Vec<String>) {
    let mut body: Vec<String> = (0..lines).map(|_| b64(seed, width)).collect();
    body.push(b64(seed, last));
    let text = format!(
        "fn a() {{}}\n// x\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\nfn b() {{}}\n",
        body.join("\n")
    );
    (text, body)
}

/// read_file's rows `from..=to` (1-based) of `text`.
fn rows(text: &str, from: usize, to: usize) -> String {
    text.lines()
        .enumerate()
        .filter(|(i, _)| (from..=to).contains(&(i + 1)))
        .map(|(i, l)| format!("{:>6}\t{l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_slice_of_a_key_is_masked_when_its_source_is_known() {
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let mut seed = 7;
    for (width, lines, last) in [(64, 12, 20), (70, 5, 9), (64, 1, 4), (76, 3, 40)] {
        let (text, body) = keyed(&mut seed, width, lines, last);
        let n = text.lines().count();
        for from in 1..=n {
            for to in from..=n {
                let scope = Scope::new(Some(&r));
                scope.learn(&text);
                let shown = scope.text(rows(&text, from, to));
                for b in &body {
                    assert!(
                        !shown.contains(b.as_str()),
                        "{from}..{to} leaks {b}:\n{shown}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_view_alone_masks_cut_blocks_by_their_end_line_or_shape() {
    let r = Redactor::new(vec![]).unwrap();
    let mut seed = 11;
    let (text, body) = keyed(&mut seed, 64, 8, 30);
    let lines: Vec<&str> = text.lines().collect();
    // Every slice: a body line is masked by the BEGIN or END line in view, by the width of
    // the lines around it, or (the short last line alone) by looking random.
    for from in 0..lines.len() {
        for to in from + 1..=lines.len() {
            let masked = r.redact(lines[from..to].join("\n"));
            for b in &body {
                assert!(
                    !masked.contains(b.as_str()),
                    "{from}..{to} leaks {b}:\n{masked}"
                );
            }
        }
    }
    // A certificate is public.
    let cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n{}\n-----END CERTIFICATE-----",
        b64(&mut seed, 64),
        b64(&mut seed, 64)
    );
    assert_eq!(r.redact(cert.clone()), cert);
    // The line structure stays: BEGIN and END visible, each body line its own mask.
    let shown = r.redact(rows(&text, 1, lines.len()));
    assert_eq!(shown.lines().count(), lines.len());
    assert_eq!(
        shown.matches("[REDACTED:private_key]").count(),
        body.len(),
        "{shown}"
    );
    assert!(
        shown.contains("-----BEGIN RSA PRIVATE KEY-----")
            && shown.contains("-----END RSA PRIVATE KEY-----")
    );
}

#[test]
fn learned_values_are_masked_in_hints_and_cut_views() {
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let scope = Scope::new(Some(&r));
    scope.learn("A=1\nDB_PASSWORD=hunter2\nSECRET_KEY=\"long value here\"\nPASS=x\n");
    // An edit hint: spaces shown as `·`, the line quoted mid-sentence.
    let hint =
        "closest: line 3 \"SECRET_KEY=\"long·value·here\"\" and DB_PASSWORD=hunter2… and PASS=x.";
    let masked = scope.text(hint.to_string());
    assert!(
        !masked.contains("hunter2") && !masked.contains("long·value") && !masked.contains("PASS=x"),
        "{masked}"
    );
    // A short value is masked only where it stands apart.
    assert_eq!(
        scope.text("PASS=xy".to_string()),
        "PASS=[REDACTED:password]"
    );
    assert_eq!(scope.text("x marks".to_string()), "x marks");
}

#[test]
fn live_output_is_masked_across_any_chunking() {
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let mut seed = 5;
    let (key, body) = keyed(&mut seed, 64, 4, 12);
    let text = format!("DB_PASSWORD=hunter2abc\n{key}tail API_TOKEN=zzsecretzz\nend");
    let whole = r.redact(text.clone());
    for step in [1, 2, 3, 7, 16, 64, 200] {
        let live = Live::new(Scope::new(Some(&r)));
        let mut out = String::new();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + step).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let got = live.push(0, &text[at..end]);
            for secret in body
                .iter()
                .map(String::as_str)
                .chain(["hunter2abc", "zzsecretzz"])
            {
                assert!(!got.contains(secret), "step {step}: {got}");
            }
            out.push_str(&got);
            at = end;
        }
        out.push_str(&live.finish(0));
        assert_eq!(out, whole, "step {step}");
    }
}

#[test]
fn a_secret_rewritten_in_part_is_masked_in_what_is_left() {
    let re = crate::jsregex::JsRegex::new("[a-z]", "").unwrap();
    let before = "slack xoxb-461830932265-mN1jLcMO9WIFAghq64Wnwpug\nkey=1\n";
    let (after, _, edits) = re.replace_all_mapped(before, "Y", &|| false).unwrap();
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let scope = Scope::new(Some(&r));
    scope.learn_rewritten(before, &after, &edits);
    let patch = crate::textdiff::file_patch("f", before, &after).unwrap();
    let shown = scope.text(patch);
    assert!(
        !shown.contains("461830932265") && !shown.contains("N1"),
        "{shown}"
    );
    // A cut-off quoted value is masked to the end of the line.
    assert_eq!(
        r.redact("{\"password\": \"abc12".into()),
        "{\"password\": \"[REDACTED:password]"
    );
    assert_eq!(
        r.redact("log(\"token: \" + t)".into()),
        "log(\"token: \" + t)"
    );
}

#[test]
fn code_and_data_that_look_like_assignments_are_left_alone() {
    for s in [
        "  return ok ? 'PASS' : 'MISS'",
        "  const secret = `SECRET-${hex()}`",
        "\"redactSecrets.patterns: /{source}/{flags} matches the empty string\"",
        "        \"@inquirer/password\": \"^5.2.5\",",
        "        \"@aws-sdk/credential-provider-node\": \">=3.972.0 <4\",",
        "      id-token: write # npm provenance",
        "  '../outside/secret.txt',",
        "and `.env`-style `password=`/`token=` values",
        "let t = format!(\"-----BEGIN RSA PRIVATE KEY-----\\n{}\\n-----END RSA PRIVATE KEY-----\", b);",
        "LanguageModelV3CallOptions",
        "AppDelegate2Test",
        "      secrets: env,",
        "DB_PASSWORD=[REDACTED:password] and \"token\": \"[REDACTED:secret]\"",
    ] {
        assert_eq!(r().redact(s.to_string()), s);
    }
}

/// False positives, measured: every line of a tree's text files (`REDACT_FP_DIR`, gitignore
/// respected) masked as a view with its file learned as a source; prints each changed line
/// and the count. `cargo test --release --lib redact::tests::false_positives -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn false_positives() {
    let dir = std::env::var("REDACT_FP_DIR").unwrap_or_else(|_| ".".into());
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let (mut lines, mut changed) = (0usize, 0usize);
    for entry in ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .build()
        .flatten()
    {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let scope = Scope::new(Some(&r));
        scope.learn(&text);
        let shown = scope.text(text.clone());
        for (a, b) in text.lines().zip(shown.lines()) {
            lines += 1;
            if a != b {
                changed += 1;
                let cut = |s: &str| s.chars().take(160).collect::<String>();
                println!("{}: {}\n    => {}", entry.path().display(), cut(a), cut(b));
            }
        }
    }
    println!("{changed} of {lines} lines masked");
}

/// Throughput on one file (`REDACT_BENCH_FILE`): learning it as a source, and masking it as
/// a view. `cargo test --release --lib redact::tests::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let path = std::env::var("REDACT_BENCH_FILE").unwrap_or_else(|_| "SPEC.md".into());
    let text = std::fs::read_to_string(&path).unwrap();
    let r = std::sync::Arc::new(Redactor::new(vec![]).unwrap());
    let mb = text.len() as f64 / 1e6;
    let t = std::time::Instant::now();
    let mut spans = Vec::new();
    r.rules.find(&text, &mut spans);
    let rules = t.elapsed();
    let t = std::time::Instant::now();
    blocks::Blocks::new(true, blocks::State::Outside).scan(&text, &mut spans);
    let blocks = t.elapsed();
    let t = std::time::Instant::now();
    let scope = Scope::new(Some(&r));
    scope.learn(&text);
    let learn = t.elapsed();
    let t = std::time::Instant::now();
    let _ = scope.text(text.clone());
    let view = t.elapsed();
    println!(
        "{path}: {mb:.1} MB; rules {rules:?}, blocks {blocks:?}, learn {learn:?}, view {view:?}"
    );
}
