//! The texts of one `find_references` call's files, each read at most once per call.
//!
//! Three steps of the call look at a file's lines: dropping the bare uses of a member-only
//! name ([`super::members`]), judging which uses are certain ([`super::certainty`]) and
//! rendering the page. Each used to read the file itself ([`super::ondemand::read_text`]:
//! confinement, a BOM dropped, UTF-16 transcoded, line ends normalised), three reads of every
//! Python or JavaScript file holding the name. Here the caller works file by file: the file
//! being judged is held whole while both judging steps look at it, then let go, keeping only
//! the lines the page may show; the page reads the files no step needed. So memory holds one
//! file's text and at most a page of lines, however many files the name is used in — never
//! every file at once, as a plain cache of texts would over thousands of files.
//!
//! Non-goal: sharing texts between calls (a file may change between two calls; each call
//! reflects the files as they are when it starts).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A file's text split at `\n` (line `n` is `[n - 1]`), shared by the steps of one call.
pub type Lines = Rc<[String]>;

/// `text` as [`Lines`].
pub fn lines_of(text: &str) -> Lines {
    text.split('\n').map(String::from).collect()
}

/// What is left of a file after its judging: the lines the page may show (`None`: the file
/// could not be read, which the page shows as empty lines, as before).
type Kept = Option<HashMap<u32, String>>;

/// One call's file texts (see the module doc). `read` gives a file's text as
/// [`super::ondemand::read_text`] does; it is called at most once per file as long as the
/// caller lets each file go before opening the next and keeps the lines its page needs.
pub struct CallTexts<R: FnMut(&Path) -> Option<String>> {
    read: R,
    /// The file being worked on and its lines (`None`: unreadable).
    open: Option<(PathBuf, Option<Lines>)>,
    /// Files read and let go.
    kept: HashMap<PathBuf, Kept>,
}

impl<R: FnMut(&Path) -> Option<String>> CallTexts<R> {
    /// Texts read through `read`.
    pub fn new(read: R) -> Self {
        CallTexts {
            read,
            open: None,
            kept: HashMap::new(),
        }
    }

    /// The lines of `abs` (`None`: it cannot be read), read now unless it is the open file.
    /// The file read becomes the open one; the previous open file is dropped whole — let it
    /// go with [`CallTexts::release`] first to keep lines of it.
    pub fn lines(&mut self, abs: &Path) -> Option<Lines> {
        match &self.open {
            Some((p, lines)) if p == abs => lines.clone(),
            _ => {
                let lines = (self.read)(abs).map(|t| lines_of(&t));
                self.open = Some((abs.to_path_buf(), lines.clone()));
                lines
            }
        }
    }

    /// Lets the open file go if it is `abs`, keeping its 1-based lines `keep` (those the page
    /// may show). Nothing happens when `abs` was not read.
    pub fn release(&mut self, abs: &Path, keep: impl IntoIterator<Item = u32>) {
        let Some((path, lines)) = self.open.take_if(|(p, _)| p == abs) else {
            return;
        };
        let kept = lines.map(|all| {
            keep.into_iter()
                .map(|n| (n, line_at(Some(&all), n)))
                .collect()
        });
        self.kept.insert(path, kept);
    }

    /// The text of 1-based `line` of `abs` for the page (empty when the file cannot be read
    /// or is shorter). A file let go without that line is read again: a caller's mistake
    /// about the page costs a read, never a wrong line.
    pub fn line(&mut self, abs: &Path, line: u32) -> String {
        match self.kept.get(abs) {
            Some(None) => return String::new(),
            Some(Some(map)) => {
                if let Some(text) = map.get(&line) {
                    return text.clone();
                }
            }
            None => {}
        }
        let lines = self.lines(abs);
        line_at(lines.as_ref(), line)
    }
}

/// 1-based line `n` of `lines`, empty past the end or when there are no lines.
fn line_at(lines: Option<&Lines>, n: u32) -> String {
    lines
        .and_then(|l| l.get((n as usize).checked_sub(1)?))
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::CallTexts;
    use std::cell::RefCell;
    use std::path::Path;

    #[test]
    fn a_file_is_read_once_and_only_the_kept_lines_outlive_it() {
        let reads = RefCell::new(Vec::new());
        let mut texts = CallTexts::new(|p: &Path| {
            reads.borrow_mut().push(p.to_path_buf());
            (p != Path::new("/gone")).then(|| format!("{}\none\ntwo", p.display()))
        });
        let a = Path::new("/a");
        assert_eq!(texts.lines(a).unwrap()[1], "one");
        assert_eq!(texts.lines(a).unwrap()[2], "two");
        texts.release(a, [2, 9]);
        assert!(texts.lines(Path::new("/gone")).is_none());
        texts.release(Path::new("/gone"), [1]);
        // Kept lines, an unreadable file, a line past the end: no read.
        assert_eq!(texts.line(a, 2), "one");
        assert_eq!(texts.line(a, 9), "");
        assert_eq!(texts.line(Path::new("/gone"), 1), "");
        assert_eq!(reads.borrow().len(), 2);
        // A line not kept is read again rather than shown wrong; a file no step read is read
        // for the page once.
        assert_eq!(texts.line(a, 3), "two");
        assert_eq!(texts.line(Path::new("/b"), 1), "/b");
        assert_eq!(texts.line(Path::new("/b"), 3), "two");
        assert_eq!(reads.borrow().len(), 4);
    }
}
