//! `PISA_TIME_PASSES=1`: the CPU time of each phase of the tools on standard
//! error, as rustc's `-Z time-passes` (the issue "One typed instruction, one
//! device contract", item 7, measures `pisa check` and `pisa spirv` by phase).
//!
//! A phase's time is the calling thread's CPU time (user and system,
//! `/proc/thread-self/schedstat`, in nanoseconds) around it, so a loaded
//! machine does not inflate it; where that file cannot be read (not Linux)
//! nothing is printed. Phases nest: an inner phase's line comes first and
//! is indented. Each line also gives the phase's page faults (the first
//! touch of fresh memory is a good part of a large module's time) and the
//! resident memory at its end.

use std::cell::Cell;
use std::sync::OnceLock;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("PISA_TIME_PASSES").is_some_and(|v| v != "0"))
}

/// The calling thread's CPU time in nanoseconds and page faults so far, if
/// the system says them.
fn thread_cpu_ns() -> Option<(u64, u64)> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = s.split_whitespace().next()?.parse().ok()?;
    // `stat`: the 10th field is minflt, counted after the `(name)` field
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let faults = rest.split_whitespace().nth(7)?.parse().ok()?;
    Some((ns, faults))
}

/// The process's resident memory in MB, if the system says it.
fn resident_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: f64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096.0 / 1e6)
}

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` as the phase `name`, printing its CPU time when
/// `PISA_TIME_PASSES` is set (and not `0`).
pub fn phase<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let _phase = start(name);
    f()
}

/// A phase from now until the value is dropped (see [`phase`]).
pub fn start(name: &str) -> Phase<'_> {
    if !enabled() {
        return Phase(None);
    }
    let depth = DEPTH.with(|d| d.replace(d.get() + 1));
    Phase(Some(Running {
        name,
        depth,
        start: thread_cpu_ns(),
    }))
}

/// A running phase ([`start`]): prints its time when dropped.
pub struct Phase<'a>(Option<Running<'a>>);

/// A running phase's name, nesting depth, and CPU time and page faults at
/// its start.
struct Running<'a> {
    name: &'a str,
    depth: usize,
    start: Option<(u64, u64)>,
}

impl Drop for Phase<'_> {
    fn drop(&mut self) {
        let Some(Running { name, depth, start }) = self.0.take() else {
            return;
        };
        let end = thread_cpu_ns();
        DEPTH.with(|d| d.set(depth));
        if let (Some(a), Some(b)) = (start, end) {
            eprintln!(
                "time: {:>8.1} ms {:>7} faults {:>7.1} MB resident  {}{name}",
                b.0.saturating_sub(a.0) as f64 / 1e6,
                b.1.saturating_sub(a.1),
                resident_mb().unwrap_or(0.0),
                "  ".repeat(depth)
            );
        }
    }
}
