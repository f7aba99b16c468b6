//! A progress bar for long work: drawn on standard error only when it is a terminal, and
//! only once the work has run for a second (short jobs never flash a bar).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// Byte progress shared by the threads doing the work.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// Progress over `total` bytes (`None`: unknown), labelled `what`.
    pub fn bytes(total: Option<u64>, what: &str) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            let template = if total.is_some() {
                "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}"
            } else {
                "{msg} {bytes} {binary_bytes_per_sec}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(what.to_owned());
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// Progress that never draws.
    pub fn none() -> Progress {
        Progress {
            bar: None,
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// Runs `f` with the bar hidden (for output to the same terminal), then redraws it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Whether a bar may be drawn (standard error is a terminal).
    pub fn is_active(&self) -> bool {
        self.bar.is_some()
    }

    /// Counts `n` more bytes done.
    pub fn add(&self, n: u64) {
        if let Some(bar) = &self.bar {
            if !self.shown.load(Ordering::Relaxed) && self.start.elapsed() >= DELAY {
                self.shown.store(true, Ordering::Relaxed);
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.inc(n);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
