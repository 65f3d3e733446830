//! Streaming a monitor's new output to `onOutput` while a call waits on it.

use crate::process::live::{Feed, OutputSink, Stream as Channel};
use crate::terminal::clean::Cleaner;
use std::path::Path;

/// A monitor's output handed to `onOutput` as it arrives (`monitor_write`'s wait): from an
/// offset on, as the result shows it — cleaned text on a terminal (whole lines, then the
/// rest at the end), else the bytes as UTF-8 chunks.
pub struct Stream {
    at: u64,
    sink: OutputSink,
    form: Form,
}

enum Form {
    Clean(Box<Cleaner>),
    Raw(Feed),
}

impl Stream {
    /// A stream from log offset `at` to `sink`.
    pub fn new(clean: bool, sink: OutputSink, at: u64) -> Stream {
        let form = if clean {
            Form::Clean(Box::default())
        } else {
            Form::Raw(Feed::new(Channel::Stdout, sink.clone()))
        };
        Stream { at, sink, form }
    }

    /// Hands on the output between where it stopped and `to`.
    pub fn pump(&mut self, root: &Path, id: &str, to: u64) {
        while self.at < to {
            let (bytes, start) = super::bytes_from(root, id, self.at, to - self.at);
            if bytes.is_empty() {
                break;
            }
            self.at = start + bytes.len() as u64;
            match &mut self.form {
                Form::Clean(c) => {
                    c.push(&bytes);
                    let lines = c.take_lines();
                    if !lines.is_empty() {
                        self.sink.send(Channel::Stdout, lines);
                    }
                }
                Form::Raw(f) => f.push(&bytes),
            }
        }
    }

    /// The rest, up to `to`, and what was held back (an unfinished line or character).
    pub fn finish(mut self, root: &Path, id: &str, to: u64) {
        self.pump(root, id, to);
        match self.form {
            Form::Clean(c) => {
                let rest = c.finish();
                if !rest.is_empty() {
                    self.sink.send(Channel::Stdout, rest);
                }
            }
            Form::Raw(f) => f.finish(),
        }
    }
}
