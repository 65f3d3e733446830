//! The two output streams of one command: their pumps (capture, spill, live feed), the
//! drain that ends them once the command is done, and the views the model sees. Shared by
//! [`super::run`] (a stateless `sh -c`) and [`super::session`] (a command in a persistent
//! shell), so both bound, spill and stream output the same way.

use super::capture::Capture;
use super::{capture_ceiling, live, pump, spill, view, DRAIN};
use crate::cancel::Cancel;
use std::path::Path;
use tokio::io::AsyncRead;
use tokio::task::JoinHandle;

/// What the streams of one command need: where spills go and how much to keep.
pub struct Budget<'a> {
    /// The workspace root, under which spill files go.
    pub root: &'a Path,
    /// The call's unique id (names the spill files).
    pub id: &'a str,
    /// The output budget shared by stdout and stderr.
    pub max_output_bytes: u64,
    /// Where live output goes while the command runs.
    pub on_output: Option<live::OutputSink>,
}

/// The running pumps of stdout and stderr.
pub struct Streams {
    out: JoinHandle<Capture>,
    err: JoinHandle<Capture>,
    limit: Cancel,
    stop: Cancel,
}

impl Streams {
    /// Starts pumping `out` and `err` (either may be absent).
    pub fn start<A, B>(out: Option<A>, err: Option<B>, b: &Budget<'_>) -> Streams
    where
        A: AsyncRead + pump::Buffered + Unpin + Send + 'static,
        B: AsyncRead + pump::Buffered + Unpin + Send + 'static,
    {
        let (limit, stop) = (Cancel::new(), Cancel::new());
        let ceiling = capture_ceiling(b.max_output_bytes);
        let new_capture = |stream| {
            Capture::new(
                b.max_output_bytes,
                ceiling,
                spill::spill_path(b.root, b.id, stream),
            )
        };
        let feed = |stream| b.on_output.clone().map(|s| live::Feed::new(stream, s));
        let out = start_pump(
            out,
            new_capture("stdout"),
            &limit,
            &stop,
            feed(live::Stream::Stdout),
        );
        let err = start_pump(
            err,
            new_capture("stderr"),
            &limit,
            &stop,
            feed(live::Stream::Stderr),
        );
        Streams {
            out,
            err,
            limit,
            stop,
        }
    }

    /// Fires when a stream passes the capture ceiling.
    pub fn limit(&self) -> &Cancel {
        &self.limit
    }

    /// Ends the pumps — at end of file, or [`DRAIN`] from now for pipes that background
    /// children hold — and returns both captures `(stdout, stderr)`.
    pub async fn finish(self) -> (Capture, Capture) {
        let stopper = {
            let stop = self.stop.clone();
            tokio::spawn(async move {
                tokio::time::sleep(DRAIN).await;
                stop.cancel();
            })
        };
        let (out, err) = (join(self.out).await, join(self.err).await);
        stopper.abort();
        (out, err)
    }
}

/// The views `(stdout, stderr)` of two finished captures sharing `max_output_bytes`;
/// `display` renders a spill file path for the model.
pub fn views(
    out: Capture,
    err: Capture,
    max_output_bytes: u64,
    display: &impl Fn(&Path) -> String,
) -> (String, String) {
    let (out_budget, err_budget) = view::split_budget(max_output_bytes, out.total(), err.total());
    let out = out.finish(out_budget);
    let err = err.finish(err_budget);
    (
        out.render(out_budget, display),
        err.render(err_budget, display),
    )
}

fn start_pump<R>(
    reader: Option<R>,
    capture: Capture,
    limit: &Cancel,
    stop: &Cancel,
    feed: Option<live::Feed>,
) -> JoinHandle<Capture>
where
    R: AsyncRead + pump::Buffered + Unpin + Send + 'static,
{
    let (limit, stop) = (limit.clone(), stop.clone());
    tokio::spawn(async move {
        match reader {
            Some(r) => pump::pump(r, capture, limit, stop, feed).await,
            None => capture,
        }
    })
}

async fn join(task: JoinHandle<Capture>) -> Capture {
    match task.await {
        Ok(c) => c,
        // A bug in the pump: let dispatch report it as an internal error.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => panic!("output capture task was cancelled"),
    }
}
