//! The compile watchdog of `pisa run`: everything before the kernel runs
//! (assembling, translating, the driver's pipeline compilation) reports its
//! progress after a few seconds and is stopped at `--compile-timeout` with a
//! clear error, since a driver's compiler can neither be cancelled nor be
//! bounded by the launch's `--timeout`.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When progress is first shown, then how often.
const FIRST_NOTE: Duration = Duration::from_secs(5);
const NOTE_EVERY: Duration = Duration::from_secs(10);

pub struct CompileWatchdog {
    phase: Arc<Mutex<&'static str>>,
    stop: Option<Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CompileWatchdog {
    /// Starts watching; past `limit` the process ends with exit status 2.
    pub fn start(limit: Duration) -> CompileWatchdog {
        let phase = Arc::new(Mutex::new("assembling"));
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = Arc::clone(&phase);
        let t0 = Instant::now();
        let thread = std::thread::spawn(move || {
            let mut next_note = FIRST_NOTE;
            loop {
                let now = t0.elapsed();
                let wake = next_note.min(limit).saturating_sub(now);
                match stopped.recv_timeout(wake) {
                    Err(RecvTimeoutError::Timeout) => {}
                    // stopped, or the watchdog was dropped
                    _ => return,
                }
                let now = t0.elapsed();
                let what = *shown.lock().unwrap_or_else(|e| e.into_inner());
                if now >= limit {
                    eprintln!(
                        "error: {what} took longer than {} s (--compile-timeout); the driver's compiler cannot be interrupted, so pisa stops here. Smaller kernels (fewer instructions, fewer calls: some drivers inline every call) compile faster.",
                        limit.as_secs_f64()
                    );
                    std::process::exit(2);
                }
                if now >= next_note {
                    eprintln!("pisa: {what}… {} s", now.as_secs());
                    next_note = now + NOTE_EVERY;
                }
            }
        });
        CompileWatchdog {
            phase,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Names what is being done now (shown in progress notes and errors).
    pub fn phase(&self, what: &'static str) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = what;
    }
}

impl Drop for CompileWatchdog {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
