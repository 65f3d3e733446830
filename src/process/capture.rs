//! Capturing one output stream of a command in bounded memory.
//!
//! A [`Capture`] keeps the first `keep` bytes and (roughly) the last `keep` bytes of a
//! stream, where `keep` is `maxOutputBytes` — the most a stream can ever be shown. Once a
//! stream passes `keep` bytes it cannot fit its budget whatever the other stream does, so
//! from then on every byte also goes to its spill file, as it arrives; nothing in between is
//! held in memory. A stream that ends over its budget but under `keep` is spilled from
//! memory at the end. Memory per stream is therefore about `3 × keep` however much the
//! command writes. Past the capture ceiling the capture stops and reports it, so the
//! caller can kill the command.

use super::spill;
use super::view;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

enum Spill {
    /// Nothing written yet.
    Idle,
    /// Streaming to the file.
    Open(BufWriter<File>),
    /// Creating or writing the file failed; the view omits the file.
    Failed,
}

/// One stream's captured bytes, its total length, and its spill file.
pub struct Capture {
    keep: usize,
    ceiling: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
    path: PathBuf,
    spill: Spill,
    over_ceiling: bool,
}

/// One stream, finished: its total, and the file holding all of it if one was written.
pub struct Finished {
    capture: Capture,
    spill: Option<PathBuf>,
}

impl Capture {
    /// A capture that keeps `keep` bytes at each end, stops at `ceiling` bytes, and spills
    /// to `path` when needed.
    pub fn new(keep: u64, ceiling: u64, path: PathBuf) -> Capture {
        Capture {
            keep: usize::try_from(keep).unwrap_or(usize::MAX),
            ceiling,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
            path,
            spill: Spill::Idle,
            over_ceiling: false,
        }
    }

    /// Bytes captured so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether the stream went past the capture ceiling.
    pub fn over_ceiling(&self) -> bool {
        self.over_ceiling
    }

    /// Adds a chunk. Returns `false` once the ceiling is passed (the bytes beyond it are
    /// dropped).
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        let room = usize::try_from(self.ceiling - self.total).unwrap_or(usize::MAX);
        let chunk = if chunk.len() > room {
            self.over_ceiling = true;
            &chunk[..room]
        } else {
            chunk
        };
        self.total += chunk.len() as u64;
        let to_head = (self.keep - self.head.len()).min(chunk.len());
        self.head.extend_from_slice(&chunk[..to_head]);
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > self.keep.saturating_mul(2) {
            // Amortised: one move of `keep` bytes per `keep` bytes appended.
            self.tail.drain(..self.tail.len() - self.keep);
        }
        if self.total > self.keep as u64 {
            if matches!(self.spill, Spill::Idle) {
                self.spill = open(&self.path, &self.head);
            }
            if let Spill::Open(w) = &mut self.spill {
                if w.write_all(&chunk[to_head..]).is_err() {
                    self.fail();
                }
            }
        }
        !self.over_ceiling
    }

    fn fail(&mut self) {
        self.spill = Spill::Failed;
        // A partial file would pass for the full output: remove it.
        let _ = std::fs::remove_file(&self.path);
    }

    /// Flushes the spill file, or writes it now when the stream is over `budget` but was
    /// small enough to stay in memory.
    pub fn finish(mut self, budget: u64) -> Finished {
        if self.total > budget && matches!(self.spill, Spill::Idle) {
            self.spill = open(&self.path, &self.head);
        }
        let ok = match &mut self.spill {
            // No fsync: a spill file is a convenience copy, not data the user entrusted to us.
            Spill::Open(w) => w.flush().is_ok(),
            _ => false,
        };
        if !ok && matches!(self.spill, Spill::Open(_)) {
            self.fail();
        }
        let spill = ok.then(|| self.path.clone());
        Finished {
            capture: self,
            spill,
        }
    }
}

impl Finished {
    /// Total bytes captured.
    pub fn total(&self) -> u64 {
        self.capture.total
    }

    /// The view for `budget`; `display` turns the spill path into what the model sees.
    pub fn render(&self, budget: u64, display: impl Fn(&Path) -> String) -> String {
        let shown_path = self.spill.as_deref().map(display);
        let c = &self.capture;
        view::render(&c.head, &c.tail, c.total, budget, shown_path.as_deref())
    }
}

fn open(path: &Path, head: &[u8]) -> Spill {
    let Ok(file) = spill::create(path) else {
        return Spill::Failed;
    };
    let mut w = BufWriter::with_capacity(64 * 1024, file);
    if w.write_all(head).is_err() {
        let _ = std::fs::remove_file(path);
        return Spill::Failed;
    }
    Spill::Open(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(root: &Path, keep: u64, ceiling: u64) -> Capture {
        Capture::new(keep, ceiling, spill::spill_path(root, "t", "stdout"))
    }

    #[test]
    fn small_stream_stays_in_memory() {
        let root = tempfile::tempdir().unwrap();
        let mut c = cap(root.path(), 100, 1000);
        assert!(c.push(b"hello"));
        let f = c.finish(100);
        assert_eq!(f.render(100, |p| p.display().to_string()), "hello");
        assert!(!root.path().join(".clarvis").exists());
    }

    #[test]
    fn large_stream_is_spilled_whole_while_streaming() {
        let root = tempfile::tempdir().unwrap();
        let mut c = cap(root.path(), 1024, 1 << 20);
        let mut all = Vec::new();
        for i in 0..500 {
            let line = format!("line {i}\n");
            all.extend_from_slice(line.as_bytes());
            assert!(c.push(line.as_bytes()));
        }
        assert!(c.tail.len() <= 2048 && c.head.len() == 1024);
        let f = c.finish(1024);
        let path = spill::spill_path(root.path(), "t", "stdout");
        assert_eq!(std::fs::read(&path).unwrap(), all);
        let v = f.render(1024, |_| "S".into());
        assert!(
            v.starts_with("line 0\n") && v.ends_with("line 499\n"),
            "{v}"
        );
        assert!(v.contains("bytes shown; full output written to S ...]"));
    }

    #[test]
    fn over_budget_but_in_memory_is_spilled_at_finish() {
        let root = tempfile::tempdir().unwrap();
        let mut c = cap(root.path(), 1024, 1 << 20);
        let data = vec![b'a'; 800];
        assert!(c.push(&data));
        let f = c.finish(600);
        assert_eq!(
            std::fs::read(spill::spill_path(root.path(), "t", "stdout")).unwrap(),
            data
        );
        assert!(f
            .render(600, |_| "S".into())
            .contains("of 800 bytes shown; full output written to S"));
    }

    #[test]
    fn ceiling_stops_the_capture() {
        let root = tempfile::tempdir().unwrap();
        let mut c = cap(root.path(), 1024, 3000);
        assert!(c.push(&[b'x'; 2000]));
        assert!(!c.push(&[b'y'; 2000]));
        assert!(c.over_ceiling());
        assert_eq!(c.total(), 3000);
        let f = c.finish(1024);
        assert_eq!(
            std::fs::read(spill::spill_path(root.path(), "t", "stdout"))
                .unwrap()
                .len(),
            3000
        );
        assert_eq!(f.total(), 3000);
    }

    #[test]
    fn failed_spill_omits_the_file() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join(".clarvis"), "a file in the way").unwrap();
        let mut c = cap(root.path(), 1024, 1 << 20);
        assert!(c.push(&[b'z'; 5000]));
        let v = c.finish(1024).render(1024, |_| "S".into());
        assert!(v.contains("of 5000 bytes shown ...]"), "{v}");
    }
}
