//! Judging an assignment: whether its key names a secret ([`classify`]: `API_KEY` does,
//! `max_tokens`, `TOKEN_URL` and `publicKey` do not) and whether its value can be one
//! ([`plausible`]: `${VAR}`, `true` and `^1.2.3` cannot; [`code_argument`] and [`code_value`]:
//! `f(token=tok)`, `token: String,` and `secret: process.env.SECRET` are code, not
//! configuration).

/// The words of a key: split at `_`, `-`, `.` and camelCase humps, lowercased.
fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = key.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let hump = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if hump && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Last words that make a key name something about a secret, not the secret itself
/// (`TOKEN_URL`, `password_file`, `secret_name`, `api_key_id`, `token_count`).
const ABOUT: &[&str] = &[
    "url",
    "uri",
    "urls",
    "endpoint",
    "host",
    "hostname",
    "port",
    "file",
    "filename",
    "files",
    "path",
    "paths",
    "dir",
    "directory",
    "name",
    "names",
    "id",
    "ids",
    "type",
    "types",
    "kind",
    "count",
    "counts",
    "length",
    "len",
    "size",
    "limit",
    "limits",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "lifetime",
    "timeout",
    "header",
    "headers",
    "prefix",
    "suffix",
    "field",
    "fields",
    "env",
    "var",
    "variable",
    "format",
    "policy",
    "hint",
    "label",
    "regex",
    "pattern",
    "min",
    "max",
    "enabled",
    "required",
    "rotation",
    "location",
    "ref",
    "mode",
    "algorithm",
    "version",
    "scope",
    "scopes",
    "provider",
    "store",
    "manager",
    "source",
    "command",
    "cmd",
    "helper",
    "prompt",
    "placeholder",
    "description",
    "message",
    "error",
    "errors",
    "index",
    "usage",
    "budget",
    "used",
    "cost",
    "rate",
    "span",
    "spans",
    "kinds",
    "pos",
    "start",
    "end",
    "patterns",
    "regexes",
    "rules",
    "list",
    "lists",
    "map",
    "options",
    "opts",
    "params",
    "args",
    "schema",
    "example",
    "examples",
    "sample",
    "samples",
    "fixture",
    "fixtures",
    "test",
    "tests",
];

/// First words that make a key a number or a switch (`max_tokens`, `num_keys`, `no_password`).
const NOT_FIRST: &[&str] = &[
    "max", "min", "num", "no", "has", "is", "use", "show", "allow",
];

/// Words before `key` that make it a secret key (`api_key`, `signingKey`).
const KEY_OWNERS: &[&str] = &[
    "api",
    "access",
    "private",
    "secret",
    "auth",
    "signing",
    "encryption",
    "master",
    "session",
    "client",
    "app",
    "service",
    "account",
    "license",
    "subscription",
    "webhook",
    "shared",
];

/// `"password"`, `"secret"` or `None` for a key: the kind of secret it names, if it names one.
pub fn classify(key: &str) -> Option<&'static str> {
    let words = words(key);
    let (first, last) = (words.first()?, words.last()?);
    if ABOUT.contains(&last.as_str()) || (words.len() > 1 && NOT_FIRST.contains(&first.as_str())) {
        return None;
    }
    // The shell's working directories, not passwords.
    if matches!(key, "PWD" | "OLDPWD") {
        return None;
    }
    let password = |w: &str| {
        matches!(w, "pass" | "pwd" | "passphrase" | "passwd" | "pw")
            || w.contains("password")
            || w.contains("passwd")
    };
    if words.iter().any(|w| password(w)) {
        return Some("password");
    }
    let secret = |i: usize, w: &str| {
        matches!(
            w,
            "secret" | "secrets" | "token" | "credential" | "credentials" | "apikey"
        ) || w.contains("secret")
            || (w.ends_with("token") && w.len() > 5)
            || (w.ends_with("key")
                && KEY_OWNERS
                    .iter()
                    .any(|o| w.len() == o.len() + 3 && w.starts_with(o)))
            || (matches!(w, "key" | "keys") && i > 0 && KEY_OWNERS.contains(&words[i - 1].as_str()))
    };
    words
        .iter()
        .enumerate()
        .any(|(i, w)| secret(i, w))
        .then_some("secret")
}

/// Whether a value can be a secret at all: not empty, not a reference to another variable or
/// a template (`$X`, `${X}`, `{{x}}`, `%(x)s`, `<token>`), not a boolean or null, not a mask
/// (`****`, `xxxx`).
pub fn plausible(v: &str) -> bool {
    // Empty, or already a placeholder (our own output, quoted back).
    if v.trim().is_empty() || v.starts_with("[REDACTED") {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    let reference = v.starts_with("${")
        || v.starts_with("$(")
        || v.starts_with("{{")
        || v.starts_with("%(")
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('$')
            && v[1..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    let word = matches!(
        lower.as_str(),
        "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "null"
            | "nil"
            | "none"
            | "undefined"
            | "~"
            | "read"
            | "write"
            | "required"
            | "optional"
            | "enabled"
            | "disabled"
    );
    // `^5.2.5`, `>=3.972.0 <4`: a version range (a package's dependency), not a secret.
    let version = v
        .trim_start_matches(['^', '~', '>', '<', '=', 'v'])
        .split([' ', '.'])
        .next()
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && v.contains('.');
    let interpolated = v.contains("${") || v.contains("{{");
    let mut chars = v.chars();
    let first = chars.next().unwrap_or(' ');
    let mask = v.len() >= 3
        && !first.is_ascii_digit()
        && v.chars().all(|c| c == first)
        && (!first.is_ascii_alphanumeric() || first == 'x' || first == 'X');
    !(reference || word || mask || version || interpolated)
}

fn is_identifier(v: &str) -> bool {
    let mut b = v.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `a.b.c` with each part an identifier: a member access, not a secret.
fn is_path(v: &str) -> bool {
    v.contains('.') && v.split('.').all(is_identifier)
}

/// Whether an identifier value is the key's own word again (`token=token`,
/// `password: hashedPassword`): code passing a variable along.
fn names_key(v: &str, key: &str) -> bool {
    let vw = words(v);
    words(key)
        .iter()
        .any(|k| k.len() >= 3 && vw.iter().any(|w| w.contains(k.as_str())))
}

/// `KEY=value` that is code, not configuration: a keyword argument or an assignment of an
/// identifier, followed by `,` or `)` (`Client(api_key=api_key)`, `f(token=tok, …)`).
pub fn code_argument(v: &str, key: &str, after: Option<char>) -> bool {
    (is_identifier(v) || is_path(v))
        && (matches!(after, Some(',') | Some(')')) || names_key(v, key))
}

/// Type names a `name: Type` declaration gives, never a password.
const TYPES: &[&str] = &[
    "string", "str", "number", "int", "integer", "float", "double", "bool", "boolean", "any",
    "object", "bytes", "unknown", "never", "void", "char", "u8", "u16", "u32", "u64", "usize",
    "i32", "i64", "isize", "f32", "f64", "option", "vec", "value", "self",
];

/// `key: value` that is code, not YAML: a declaration or an object literal
/// (`token: String,`, `password: hashedPassword`, `secret: process.env.SECRET`,
/// `token: await getToken()`, `key: Option<Key>`, `password: &str`), or a YAML value that
/// is not a scalar (an anchor, alias, tag, block scalar or flow collection).
pub fn code_value(v: &str, key: &str) -> bool {
    let first = v.chars().next().unwrap_or(' ');
    if matches!(first, '&' | '*' | '!' | '|' | '>' | '[' | '{' | '@' | '(') {
        return true;
    }
    if v.ends_with(['{', '(', '[', '\\', '=', ',', ';']) || v.ends_with("=>") || v.ends_with("->") {
        return true;
    }
    if v.contains('(') || v.contains("::") || (v.contains('<') && v.contains('>')) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if TYPES.contains(&lower.as_str()) || is_path(v) {
        return true;
    }
    if is_identifier(v) {
        // `Secret`, `TokenKind`: a type; `hashedPassword`, `token`: the key's variable.
        let pascal = first.is_ascii_uppercase()
            && v.chars().any(|c| c.is_ascii_lowercase())
            && !v.chars().any(|c| c.is_ascii_digit());
        return pascal || names_key(v, key);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_name_secrets() {
        for k in [
            "PASSWORD",
            "DB_PASSWORD",
            "db-pass",
            "dbPassword",
            "passwd",
            "MYSQL_PWD",
            "API_KEY",
            "apiKey",
            "api-key",
            "APIKey",
            "secret",
            "CLIENT_SECRET",
            "GITHUB_TOKEN",
            "authToken",
            "access_token",
            "private_key",
            "signingKey",
            "credentials",
            "aws_secret_access_key",
            "X-Api-Key",
            "--db-password",
            "id_token",
            "secretKey",
        ] {
            assert!(classify(k).is_some(), "{k}");
        }
        for k in [
            "max_tokens",
            "TOKEN_URL",
            "password_file",
            "secret_name",
            "api_key_id",
            "token_count",
            "PWD",
            "OLDPWD",
            "key",
            "keys",
            "monkey",
            "keyboard",
            "primary_key",
            "sort_key",
            "tokens",
            "tokenizer",
            "bypass_cache",
            "compass",
            "passing",
            "MAX_TOKENS",
            "no_password",
            "publicKey",
            "cache_key",
        ] {
            assert_eq!(classify(k), None, "{k}");
        }
    }

    #[test]
    fn words_split_humps_and_separators() {
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("db-pass_word.x"), ["db", "pass", "word", "x"]);
        assert_eq!(words("hashedPassword2"), ["hashed", "password2"]);
    }
}
