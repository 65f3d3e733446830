//! The masker's shapes: what it hides and what it leaves alone.

use super::mask;

fn masked(src: &str) -> String {
    mask(src).map_or_else(|| src.to_string(), |(m, _)| m)
}

/// `src` with each of `words` (in order, each after the previous) blanked.
fn blanked(src: &str, words: &[&str]) -> String {
    let mut out = src.to_string();
    let mut from = 0;
    for w in words {
        let at = from + out[from..].find(w).unwrap();
        out.replace_range(at..at + w.len(), &" ".repeat(w.len()));
        from = at + w.len();
    }
    out
}

#[test]
fn masks_macros_in_declarations_only() {
    let cases: [(&str, &[&str]); 12] = [
        ("class V8_EXPORT Isolate {\n};\n", &["V8_EXPORT"]),
        (
            "struct V8_EXPORT V8_NODISCARD S final : B {};",
            &["V8_EXPORT", "V8_NODISCARD"],
        ),
        (
            "mi_decl_nodiscard size_t f(void) mi_attr_noexcept {\n  if (x) y(1);\n}\n",
            &["mi_decl_nodiscard", "mi_attr_noexcept"],
        ),
        ("void mi_cdecl f(void);", &["mi_cdecl"]),
        ("typedef int (WINAPI *cb)(int);", &["WINAPI"]),
        ("typedef Array(Subtree) SubtreeArray;", &["(Subtree)"]),
        ("struct S {\n  UV_HANDLE_FIELDS\n};", &["UV_HANDLE_FIELDS"]),
        (
            "struct S {\n  UV_REQ_FIELDS\n  cb_t cb;\n};",
            &["UV_REQ_FIELDS"],
        ),
        (
            "namespace std {\nV8_INLINE static T* f() { return 0; }\n}",
            &["V8_INLINE"],
        ),
        (
            "class A {\n  A() _GLIBCXX_NOEXCEPT : x(1) { }\n  size_t size() const NOEXC;\n};",
            &["_GLIBCXX_NOEXCEPT", "NOEXC"],
        ),
        (
            "class A {\n  Q_OBJECT\npublic:\n  void f();\n};",
            &["Q_OBJECT"],
        ),
        (
            "PCRE2_EXP_DEFN int PCRE2_CALL_CONVENTION\nf(int a) {}",
            &["PCRE2_EXP_DEFN", "PCRE2_CALL_CONVENTION"],
        ),
    ];
    for (src, words) in cases {
        assert_eq!(masked(src), blanked(src, words), "{src}");
    }
    assert_eq!(
        masked("void* f(size_t n) ATTR;"),
        blanked("void* f(size_t n) ATTR;", &["ATTR"])
    );
    // Left alone: code, types on a line of their own, K&R definitions, ordinary
    // declarations, pointers, enums, preprocessor lines.
    for src in [
        "void f(void) {\n  if (p) free(p);\n  FOO BAR baz(1);\n}\n",
        "PCRE2_SPTR\nf(int a) {}",
        "int f(a, b) int a; char *b; {}",
        "struct S s;\nconst struct S *p;\nstatic unsigned long x = 1;\nstd::vector<int> v;",
        "static sljit_u8* f(int);\nT *g(void);\nint (*cb)(int);\nx_t (*h)(void);",
        "bool f(seg_t* s) {}\nvoid g(seg_t *s, int n);\nint (x_t *p);",
        "enum E {\n  A,\n  B\n};",
        "#define X(a) a b c(d) e\nint x;",
        "struct S { int x; } s;",
        "template <typename T> class X : public Y<T> { };",
        "extern \"C\" {\nint f(void);\n}",
    ] {
        assert_eq!(masked(src), src, "{src}");
    }
}
