//! The files a shell command names, as redaction sources: what `bash` and a monitor print is
//! a slice of some file more often than not (`sed -n 5,9p key.pem`, `tail -c 40 .env`,
//! `cut -d= -f2 .env`), and a slice cut away from its key or its BEGIN line is only known to
//! be a secret from the file. So, with `redactSecrets`, every word of the command that names
//! a regular file inside the workspace is read and handed to the call's redaction before the
//! output is masked. Words are the command split at blanks and shell punctuation, with
//! `key=` and `@` prefixes dropped (`if=key.pem`, `-d @.env`), relative to the command's
//! working directory; a directory, a glob, a file outside the workspace or larger than
//! [`MAX_BYTES`] teaches nothing (then the output is judged by itself).

use super::Call;
use crate::workspace;
use std::path::Path;

/// Most files one command teaches.
const MAX_FILES: usize = 32;
/// Largest file read as a source (a key or a `.env` is far smaller).
const MAX_BYTES: u64 = 4 << 20;

/// The words of `command` that may name a file.
fn words(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(|c: char| c.is_whitespace() || "|&;<>()`'\"$".contains(c))
        .map(|w| w.rsplit_once('=').map_or(w, |(_, v)| v))
        .map(|w| w.trim_start_matches('@'))
        .filter(|w| !w.is_empty() && !w.starts_with('-') && !w.contains(['*', '?', '[', '{']))
}

/// Learns every workspace file `command` names (run in `cwd_input`, as the tool's `cwd`
/// argument gives it) into the call's redaction. Free without `redactSecrets`.
pub fn learn_command(call: &Call, command: &str, cwd_input: &str) {
    if !call.redaction.is_on() {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for word in words(command) {
        if seen.len() >= MAX_FILES {
            break;
        }
        let input = if Path::new(word).is_absolute() || cwd_input.is_empty() {
            word.to_string()
        } else {
            format!("{cwd_input}/{word}")
        };
        let Ok(abs) = workspace::resolve(&call.config, &input) else {
            continue;
        };
        // Only a regular file: reading a FIFO or a device could block or never end.
        let small_file = std::fs::metadata(&abs).is_ok_and(|m| m.is_file() && m.len() <= MAX_BYTES);
        if !small_file || !seen.insert(abs.clone()) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&abs) {
            let text = String::from_utf8_lossy(&bytes);
            call.redaction.learn(&crate::text::normalize_eol(&text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_that_may_name_files() {
        let w: Vec<&str> =
            words("sed -n 5,9p key.pem | dd if=a/b.key; curl -d @.env x>out 'q r' *.pem").collect();
        assert_eq!(
            w,
            ["sed", "5,9p", "key.pem", "dd", "a/b.key", "curl", ".env", "x", "out", "q", "r"]
        );
    }
}
