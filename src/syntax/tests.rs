use super::*;
use std::time::Duration;

fn outline_of(name: &str, src: &str) -> String {
    let g = grammar_for(name).expect("grammar");
    let p = parse::parse(g, src.as_bytes(), parse::TOOL_BUDGET, None).expect("parse");
    outline::render(name, &Facts::of(&p, Purpose::Outline))
}

#[test]
fn typescript_outline_matches_the_original() {
    let src = "export abstract class Server {\n  private port: number = 3;\n  constructor() {}\n  abstract stop(): void;\n  async start(): Promise<void> {\n  }\n}\ninterface I { a(): void; b: string }\nnamespace N { export function f() {} }\n\n\nexport const parse = (s: string): number => Number(s);\n";
    assert_eq!(
        outline_of("a.ts", src),
        "a.ts — typescript, 13 lines\n  abstract class Server (1-7)\n    private port: number = 3 (2-2)\n    constructor() {} (3-3)\n    abstract stop(): void (4-4)\n    async start(): Promise<void> (5-6)\n  interface I { a(): void; b: string } (8-8)\n    a(): void (8-8)\n  namespace N { export function f() {} } (9-9)\n    function f() {} (9-9)\n  const parse = (s: string): number => Number(s); (12-12)"
    );
}

#[test]
fn javascript_and_tsx_share_the_rules() {
    let src =
        "function a() {\n  function b() {}\n}\nclass C { m() {} }\nconst g = function* () {};\n";
    assert_eq!(
        outline_of("a.js", src),
        "a.js — javascript, 6 lines\n  function a() (1-3)\n    function b() {} (2-2)\n  class C { m() {} } (4-4)\n    m() {} (4-4)\n  const g = function* () {}; (5-5)"
    );
    assert!(
        outline_of("a.tsx", "const A = () => <div/>;").contains("  const A = () => <div/>; (1-1)")
    );
}

#[test]
fn python_go_rust_java_csharp() {
    assert_eq!(
        outline_of(
            "a.py",
            "class A:\n    @staticmethod\n    def f(x):\n        pass\n"
        ),
        "a.py — python, 5 lines\n  class A (1-4)\n    def f(x) (3-4)"
    );
    assert_eq!(
        outline_of("a.go", "package m\n\ntype Server struct {\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n"),
        "a.go — go, 9 lines\n  Server struct (3-4)\n  func (s *Server) Start() error (6-8)"
    );
    assert_eq!(
        outline_of("a.rs", "mod m {\n    pub struct S;\n    impl S {\n        fn f() {}\n    }\n}\nmacro_rules! x { () => {} }\n"),
        "a.rs — rust, 8 lines\n  mod m (1-6)\n    pub struct S; (2-2)\n    impl S (3-5)\n      fn f() {} (4-4)\n  macro_rules! x { () => {} } (7-7)"
    );
    assert_eq!(
        outline_of("A.java", "class A {\n  A() {}\n  void m() {}\n  enum E { X }\n}\n"),
        "A.java — java, 6 lines\n  class A (1-5)\n    A() {} (2-2)\n    void m() {} (3-3)\n    enum E { X } (4-4)"
    );
    assert_eq!(
        outline_of("a.cs", "namespace Example;\nclass A {\n  int P { get; set; }\n  void M() {}\n}\n"),
        "a.cs — c-sharp, 6 lines\n  namespace Example; (1-1)\n  class A (2-5)\n    int P { get; set; } (3-3)\n    void M() {} (4-4)"
    );
}

#[test]
fn empty_errors_and_the_cap() {
    assert_eq!(
        outline_of("a.py", "x = 1\n"),
        "a.py — python, 2 lines\n  (no symbols found)"
    );
    let broken = outline_of("a.ts", "function f( {\n");
    assert!(
        broken.ends_with("outline may be incomplete — run check_syntax."),
        "{broken}"
    );
    let many: String = (0..2003).map(|i| format!("def f{i}(): pass\n")).collect();
    let out = outline_of("a.py", &many);
    assert_eq!(out.lines().count(), 1 + 2000 + 1);
    assert!(out.ends_with("  [... 3 more symbols omitted ...]"));
}

#[test]
fn issues_are_one_based_with_utf16_columns() {
    let src = "let s = \"é😀\"; let x = (1;\n";
    let p = parse::parse(
        Grammar::TypeScript,
        src.as_bytes(),
        parse::TOOL_BUDGET,
        None,
    )
    .unwrap();
    let v = check_json("a.ts", &Facts::of(&p, Purpose::Check));
    assert_eq!(v["ok"], false);
    let e = &v["errors"][0];
    assert_eq!(e["kind"], "missing");
    assert_eq!(e["line"], 1);
    // `let s = "é😀"; let x = (1` is 25 UTF-16 units (29 bytes): the missing `)` is at 26,
    // as web-tree-sitter reports it.
    assert_eq!(e["column"], 26);
    assert_eq!(e["near"], ")");
    let ok = parse::parse(Grammar::Ini, b"[a]\nb = c\n", parse::TOOL_BUDGET, None).unwrap();
    assert_eq!(
        check_json("a.ini", &Facts::of(&ok, Purpose::Check)).to_string(),
        r#"{"path":"a.ini","language":"ini","ok":true,"errors":[],"error_count":0,"truncated":false}"#
    );
}

#[test]
fn every_grammar_loads_and_parses() {
    for (name, src) in [
        ("a.c", "int main(void) { return 0; }"),
        ("a.rb", "def f; end"),
        ("a.php", "<?php echo 1;"),
        ("a.sh", "echo hi"),
        ("a.css", "a { color: red; }"),
        ("a.ps1", "Write-Host hi"),
    ] {
        let g = grammar_for(name).unwrap();
        let p = parse::parse(g, src.as_bytes(), parse::TOOL_BUDGET, None).unwrap();
        assert!(!p.tree.root_node().has_error(), "{name}");
    }
}

/// Each thread keeps its parser between parses: a parse that was interrupted halfway (it
/// keeps its state to resume) must not leak into the next file's tree, in the same grammar
/// or another one.
#[test]
fn a_kept_parser_starts_every_file_afresh() {
    let cancel = Cancel::new();
    cancel.cancel();
    let half = "let a = 1;\n".repeat(50_000);
    let next = "function f(x) { return g(x) }\nclass C { m() {} }\n";
    let fresh = |g: Grammar, src: &str| {
        std::thread::scope(|s| {
            s.spawn(|| {
                let p = parse::parse(g, src.as_bytes(), parse::TOOL_BUDGET, None).expect("parse");
                p.tree.root_node().to_sexp()
            })
            .join()
            .expect("thread")
        })
    };
    for g in [Grammar::TypeScript, Grammar::JavaScript] {
        let interrupted = [
            parse::parse(
                Grammar::TypeScript,
                half.as_bytes(),
                parse::TOOL_BUDGET,
                Some(&cancel),
            ),
            parse::parse(Grammar::TypeScript, half.as_bytes(), Duration::ZERO, None),
        ];
        assert!(interrupted.iter().all(Result::is_err));
        let p = parse::parse(g, next.as_bytes(), parse::TOOL_BUDGET, None).expect("parse");
        assert_eq!(p.tree.root_node().to_sexp(), fresh(g, next), "{g:?}");
        assert!(!p.tree.root_node().has_error());
    }
}

#[test]
fn limits_and_cancellation() {
    let big = vec![b'a'; MAX_PARSE_BYTES + 1];
    assert_eq!(
        parse::parse(Grammar::TypeScript, &big, parse::TOOL_BUDGET, None).err(),
        Some(ParseFailure::TooLarge)
    );
    let cancel = Cancel::new();
    cancel.cancel();
    let src = "let a = 1;\n".repeat(50_000);
    assert_eq!(
        parse::parse(
            Grammar::TypeScript,
            src.as_bytes(),
            parse::TOOL_BUDGET,
            Some(&cancel)
        )
        .err(),
        Some(ParseFailure::Aborted)
    );
    assert_eq!(
        parse::parse(Grammar::TypeScript, src.as_bytes(), Duration::ZERO, None).err(),
        Some(ParseFailure::Timeout)
    );
    // Deep nesting, invalid UTF-8 and NULs parse (or fail) without a crash.
    let deep = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
    let _ = parse::parse(
        Grammar::JavaScript,
        deep.as_bytes(),
        parse::TOOL_BUDGET,
        None,
    )
    .map(|p| {
        (
            outline::render("d.js", &Facts::of(&p, Purpose::Outline)),
            check_json("d.js", &Facts::of(&p, Purpose::Check)),
        )
    });
    let p = parse::parse(
        Grammar::Python,
        b"x = '\xff\xfe'\n",
        parse::TOOL_BUDGET,
        None,
    )
    .unwrap();
    assert_eq!(
        check_json("a.py", &Facts::of(&p, Purpose::Check))["ok"],
        true
    );
    let p = parse::parse(Grammar::Rust, &[0u8; 4096], parse::TOOL_BUDGET, None).unwrap();
    let _ = check_json("a.rs", &Facts::of(&p, Purpose::Check));
}

#[test]
fn unsupported_extensions() {
    assert_eq!(
        grammar_or_error("a.rb", Purpose::Outline).unwrap_err().message,
        "outline does not support ruby files (supported: typescript, tsx, javascript, python, go, rust, java, c-sharp); check_syntax does support them."
    );
    assert_eq!(
        grammar_or_error("a.txt", Purpose::Outline).unwrap_err().message,
        "outline does not support '.txt' files (supported: typescript, tsx, javascript, python, go, rust, java, c-sharp)."
    );
    assert!(grammar_or_error("Makefile", Purpose::Check)
        .unwrap_err()
        .message
        .starts_with("check_syntax does not support extensionless files; supported extensions: .bash, .c, .cc, .cjs, .cpp,"));
    assert_eq!(grammar_for("A.TS"), Some(Grammar::TypeScript));
}

#[test]
fn write_warnings_first_issue_only() {
    let config = crate::config::Config::with_root(std::env::current_dir().unwrap());
    let files = vec![
        ("notes.txt".to_string(), b"((((".to_vec()),
        ("a.ts".to_string(), b"let x = (1;\n".to_vec()),
        ("b.py".to_string(), b"def f(:\n  pass\n".to_vec()),
        ("c.go".to_string(), b"package m\nfunc f() { @@ }\n".to_vec()),
        ("ok.rs".to_string(), b"fn main() {}\n".to_vec()),
    ];
    let w = write_warnings(&config, as_bytes(&files));
    assert_eq!(
        w,
        "\nwarning: typescript syntax error in a.ts at line 1, column 11 (missing `)`); run check_syntax for details.\nwarning: python syntax error in b.py at line 1, column 7 (missing `)`); run check_syntax for details.\nwarning: go syntax error in c.go at line 2, column 12 (near `func f() { @@ }`); run check_syntax for details."
    );
    let mut off = config.clone();
    off.tree_sitter_available = false;
    assert_eq!(write_warnings(&off, as_bytes(&files)), "");
    let big = vec![(
        "big.ts".to_string(),
        format!("let x = (1;{}", " ".repeat(WARN_MAX_BYTES)).into_bytes(),
    )];
    assert_eq!(write_warnings(&config, as_bytes(&big)), "");
}

fn as_bytes(files: &[(String, Vec<u8>)]) -> impl Iterator<Item = (&str, Written<'_>)> {
    files.iter().map(|(r, b)| (r.as_str(), Written::Bytes(b)))
}

#[test]
fn the_warning_is_computed_beside_the_write() {
    let config = Arc::new(crate::config::Config::with_root(
        std::env::current_dir().unwrap(),
    ));
    let (value, w) =
        write_warning_during(&config, "beside.ts", Written::Bytes(b"let x = (1;\n"), || 7);
    assert_eq!(value, 7);
    assert_eq!(
        w,
        "\nwarning: typescript syntax error in beside.ts at line 1, column 11 (missing `)`); run check_syntax for details."
    );
    let mut ran = false;
    let (_, w) = write_warning_during(&config, "notes.txt", Written::Bytes(b"(((("), || ran = true);
    assert!(ran);
    assert_eq!(w, "");
    // Many at once, more than there are helpers: every write gets its own file's warning,
    // whether a helper or the caller parsed it.
    std::thread::scope(|s| {
        for i in 0..16 {
            let config = &config;
            s.spawn(move || {
                let rel = format!("many{i}.py");
                let src = format!("def f{i}(:\n    pass\n");
                let (_, w) = write_warning_during(config, &rel, Written::Text(&src), || ());
                assert!(
                    w.contains(&format!("python syntax error in {rel} at line 1")),
                    "{w}"
                );
            });
        }
    });
}
