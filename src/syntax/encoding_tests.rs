//! Every text reaches tree-sitter decoded as read_file decodes it (issue 31): a UTF-8 BOM,
//! UTF-16 LE/BE and any line ending give the report, outline and warning of the plain UTF-8
//! LF text, with lines and columns of the text read_file shows.

use super::*;
use crate::config::Config;

/// A TypeScript source with a non-ASCII first line and, on line 2 after an emoji, a missing
/// `)`: line 2, column 26 in UTF-16 units.
fn source(variant: &str) -> String {
    format!("// ünïcode\nlet s = \"é😀\"; let x = (1;\nclass A {{\n  m() {{}}\n}}\n// {variant}\n")
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let units = text.encode_utf16().flat_map(|u| {
        if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        }
    });
    let bom: [u8; 2] = if big_endian {
        [0xFE, 0xFF]
    } else {
        [0xFF, 0xFE]
    };
    bom.into_iter().chain(units).collect()
}

/// Each name with the bytes of `source(name)` in that form. Every variant's text differs (its
/// last line names it), so no report is answered by the memo from another variant's parse.
fn variants() -> Vec<(&'static str, Vec<u8>)> {
    let bom = |t: String| [&[0xEF, 0xBB, 0xBF][..], t.as_bytes()].concat();
    vec![
        ("utf-8 bom", bom(source("utf-8 bom"))),
        ("utf-16le", utf16(&source("utf-16le"), false)),
        ("utf-16be", utf16(&source("utf-16be"), true)),
        (
            "utf-16le crlf",
            utf16(&source("utf-16le crlf").replace('\n', "\r\n"), false),
        ),
        (
            "utf-8 bom cr",
            bom(source("utf-8 bom cr").replace('\n', "\r")),
        ),
        ("crlf", source("crlf").replace('\n', "\r\n").into_bytes()),
        ("cr", source("cr").replace('\n', "\r").into_bytes()),
    ]
}

#[test]
fn check_and_outline_see_the_text_read_file_shows() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_root(dir.path());
    std::fs::write(dir.path().join("plain.ts"), source("plain")).unwrap();
    let (_, plain) = load_facts(&config, "plain.ts", Purpose::Check, None).unwrap();
    let want = check_json("f.ts", &plain);
    assert_eq!(
        want["errors"][0],
        serde_json::json!({"kind": "missing", "line": 2, "column": 26, "near": ")"})
    );
    let (_, plain) = load_facts(&config, "plain.ts", Purpose::Outline, None).unwrap();
    let outline = outline::render("f.ts", &plain);
    assert!(
        outline.starts_with("f.ts — typescript, 7 lines\n  class A (3-5)\n    m() {} (4-4)\n"),
        "{outline}"
    );
    for (name, bytes) in variants() {
        let file = format!("{}.ts", name.replace(' ', "-"));
        std::fs::write(dir.path().join(&file), &bytes).unwrap();
        let (_, facts) = load_facts(&config, &file, Purpose::Check, None).unwrap();
        assert_eq!(check_json("f.ts", &facts), want, "{name}");
        let (_, facts) = load_facts(&config, &file, Purpose::Outline, None).unwrap();
        assert_eq!(outline::render("f.ts", &facts), outline, "{name}");
        // The library calls go through the same load.
        let v = library_call(&config, &file, Purpose::Outline).unwrap();
        assert_eq!(v["lines"], 7, "{name}");
    }
}

#[test]
fn a_clean_utf16_file_is_ok() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_root(dir.path());
    for (file, big_endian) in [("le.ts", false), ("be.ts", true)] {
        std::fs::write(dir.path().join(file), utf16("const x = 1;\n", big_endian)).unwrap();
        let v = library_call(&config, file, Purpose::Check).unwrap();
        assert_eq!(v["ok"], true, "{file}: {v}");
    }
}

#[test]
fn the_parse_limit_is_on_the_decoded_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::with_root(dir.path());
    config.max_file_bytes = 8_000_000;
    // 2.2 MB of UTF-16 that decodes to 1.1 MB of UTF-8: under the limit, as in the original
    // (which measures the decoded text's UTF-8 length).
    let small = format!("let a = 1;\n{}", "// x\n".repeat(220_000));
    std::fs::write(dir.path().join("wide.ts"), utf16(&small, false)).unwrap();
    assert_eq!(
        library_call(&config, "wide.ts", Purpose::Check).unwrap()["ok"],
        true
    );
    // 1.84 MB of UTF-16 that decodes to 2.52 MB of UTF-8: over it.
    let cjk = format!("//{}\n", "漢".repeat(20)).repeat(40_000);
    let bytes = utf16(&cjk, false);
    assert!(bytes.len() < MAX_PARSE_BYTES && cjk.len() > MAX_PARSE_BYTES);
    std::fs::write(dir.path().join("cjk.ts"), bytes).unwrap();
    let e = library_call(&config, "cjk.ts", Purpose::Check).unwrap_err();
    assert_eq!(e.code, Code::TooLarge);
}

#[test]
fn warnings_point_into_the_decoded_text() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_root(dir.path());
    let want = |rel: &str| {
        format!("\nwarning: typescript syntax error in {rel} at line 2, column 26 (missing `)`); run check_syntax for details.")
    };
    for (name, bytes) in variants() {
        let rel = format!("w-{}.ts", name.replace(' ', "-"));
        assert_eq!(
            write_warning(&config, &rel, Written::Bytes(&bytes)),
            want(&rel),
            "{name}"
        );
    }
    // The editors' text is already decoded: a BOM-like character in it is text, as it is to
    // read_file (a file with two BOMs), and it is not stripped again.
    let twice = format!("\u{FEFF}{}", source("twice"));
    let once = write_warning(&config, "twice.ts", Written::Text(&twice));
    let as_bytes = [&[0xEF, 0xBB, 0xBF][..], twice.as_bytes()].concat();
    assert_eq!(
        write_warning(&config, "twice.ts", Written::Bytes(&as_bytes)),
        once
    );
    // Through the tree cache too: a second, incremental warning of the same path.
    let rel = "again.ts";
    let first = source("again 1").replace('\n', "\r\n");
    assert_eq!(
        write_warning(&config, rel, Written::Bytes(first.as_bytes())),
        want(rel)
    );
    let second = source("again 2").replace('\n', "\r");
    assert_eq!(
        write_warning(&config, rel, Written::Bytes(second.as_bytes())),
        want(rel)
    );
}

#[test]
fn a_bom_is_not_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_root(dir.path());
    let bytes = b"\xEF\xBB\xBFlet x = (1;\n";
    assert_eq!(
        write_warning(&config, "bom.ts", Written::Bytes(bytes)),
        "\nwarning: typescript syntax error in bom.ts at line 1, column 11 (missing `)`); run check_syntax for details."
    );
    std::fs::write(dir.path().join("bom.ts"), bytes).unwrap();
    let v = library_call(&config, "bom.ts", Purpose::Check).unwrap();
    assert_eq!(v["errors"][0]["column"], 11);
}
