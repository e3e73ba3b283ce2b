//! The differential driver: run a case on two devices and compare every
//! output bit for bit; a loop over seeds that reports programs per second.

use crate::case::Case;
use crate::device::{Outputs, Runner};
use crate::gen::{generate, GenConfig};
use std::time::Instant;

/// Outcome of one case on two devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// The first difference: which output (`arg 0`, `global gscr`), the byte
    /// offset, and the aligned 8 bytes around it on each device (little-endian).
    Mismatch {
        output: String,
        offset: usize,
        a: u64,
        b: u64,
        /// For the `out` buffer: the work-item and its slot.
        item: Option<(usize, usize)>,
    },
    /// One device failed (or both: `a` and `b` name them).
    Error {
        device: String,
        message: String,
    },
    BothFailed {
        a: String,
        b: String,
    },
    /// A device says, as it should, that it cannot run this program the
    /// way the definition says ([`declined`]): not compared, not a finding.
    Skipped {
        device: String,
        message: String,
    },
}

impl Verdict {
    pub fn is_same(&self) -> bool {
        *self == Verdict::Same
    }

    /// Anything but `Same` and `Skipped`.
    pub fn is_finding(&self) -> bool {
        !matches!(self, Verdict::Same | Verdict::Skipped { .. })
    }
}

/// Whether a device's error is a documented refusal rather than a bug: a
/// device without a feature the program needs says so ("unsupported on this
/// device", "the device lacks `shaderFloat64`", docs/spec-notes.md). On
/// lavapipe nothing the generator writes is refused (sub-group code in any
/// control flow was, until reconvergence became structured).
pub fn declined(message: &str) -> bool {
    message.contains("unsupported on this device") || message.contains("the device lacks `")
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Same => write!(f, "same"),
            Verdict::Mismatch {
                output,
                offset,
                a,
                b,
                item,
            } => {
                write!(
                    f,
                    "mismatch in {output} at byte {offset}: {a:#018x} vs {b:#018x}"
                )?;
                if let Some((i, s)) = item {
                    write!(f, " (work-item {i}, slot {s})")?;
                }
                Ok(())
            }
            Verdict::Error { device, message } => write!(f, "{device} failed: {message}"),
            Verdict::BothFailed { a, b } => write!(f, "both failed: {a} | {b}"),
            Verdict::Skipped { device, message } => write!(f, "skipped ({device}: {message})"),
        }
    }
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    for (k, x) in w.iter_mut().enumerate() {
        *x = bytes.get(at + k).copied().unwrap_or(0);
    }
    u64::from_le_bytes(w)
}

/// The first difference between two devices' outputs, if any.
pub fn compare(case: &Case, a: &Outputs, b: &Outputs) -> Verdict {
    let named = |o: &Outputs| -> Vec<(String, Vec<u8>)> {
        o.buffers
            .iter()
            .map(|(i, v)| (format!("arg {i}"), v.clone()))
            .chain(
                o.globals
                    .iter()
                    .map(|(n, v)| (format!("global {n}"), v.clone())),
            )
            .collect()
    };
    let (na, nb) = (named(a), named(b));
    for (x, y) in na.iter().zip(nb.iter()) {
        if x.1 == y.1 && x.0 == y.0 {
            continue;
        }
        let len = x.1.len().max(y.1.len());
        let at = (0..len).find(|&k| x.1.get(k) != y.1.get(k)).unwrap_or(0);
        let base = at & !7;
        let item = (x.0 == "arg 0").then(|| {
            let per = case.program.slot_bytes as usize;
            (at / per, (at % per) / 8)
        });
        return Verdict::Mismatch {
            output: x.0.clone(),
            offset: at,
            a: word(&x.1, base),
            b: word(&y.1, base),
            item,
        };
    }
    if na.len() != nb.len() {
        return Verdict::Mismatch {
            output: "number of outputs".into(),
            offset: 0,
            a: na.len() as u64,
            b: nb.len() as u64,
            item: None,
        };
    }
    Verdict::Same
}

/// Runs `case` on both devices and compares the outputs.
pub fn check(case: &Case, a: &mut dyn Runner, b: &mut dyn Runner) -> Verdict {
    let ra = a.run(case);
    let rb = b.run(case);
    match (ra, rb) {
        (Ok(x), Ok(y)) => compare(case, &x, &y),
        (Err(e), _) if declined(&e) => Verdict::Skipped {
            device: a.name(),
            message: e,
        },
        (_, Err(e)) if declined(&e) => Verdict::Skipped {
            device: b.name(),
            message: e,
        },
        (Err(e), Ok(_)) => Verdict::Error {
            device: a.name(),
            message: e,
        },
        (Ok(_), Err(e)) => Verdict::Error {
            device: b.name(),
            message: e,
        },
        (Err(x), Err(y)) => Verdict::BothFailed { a: x, b: y },
    }
}

/// Runs `case` twice on one device: errors and nondeterminism are findings.
pub fn check_alone(case: &Case, a: &mut dyn Runner) -> Verdict {
    let name = a.name();
    match (a.run(case), a.run(case)) {
        (Ok(x), Ok(y)) => compare(case, &x, &y),
        (Err(e), _) | (_, Err(e)) if declined(&e) => Verdict::Skipped {
            device: name,
            message: e,
        },
        (Err(e), _) | (_, Err(e)) => Verdict::Error {
            device: name,
            message: e,
        },
    }
}

/// What a fuzzing run found.
#[derive(Debug, Clone, Default)]
pub struct FuzzStats {
    pub programs: u64,
    pub seconds: f64,
    /// Programs a device declined ([`Verdict::Skipped`]).
    pub skipped: u64,
    /// Seeds whose verdict was not `Same`, with the verdict.
    pub findings: Vec<(u64, Verdict)>,
}

impl FuzzStats {
    pub fn per_second(&self) -> f64 {
        self.programs as f64 / self.seconds.max(1e-9)
    }
}

/// Generates `count` programs from seeds `seed..seed+count` and checks each
/// on `a` against `b` (or, without `b`, on `a` twice). `on_finding` sees
/// every case whose verdict is not `Same` (to reduce or save it).
pub fn fuzz(
    seed: u64,
    count: u64,
    cfg: &GenConfig,
    a: &mut dyn Runner,
    mut b: Option<&mut dyn Runner>,
    on_finding: &mut dyn FnMut(u64, &Case, &Verdict),
) -> FuzzStats {
    let start = Instant::now();
    let mut stats = FuzzStats::default();
    for s in seed..seed.saturating_add(count) {
        let case = generate(s, cfg);
        let v = match b.as_deref_mut() {
            Some(b) => check(&case, a, b),
            None => check_alone(&case, a),
        };
        stats.programs += 1;
        if let Verdict::Skipped { .. } = v {
            stats.skipped += 1;
        }
        if v.is_finding() {
            on_finding(s, &case, &v);
            stats.findings.push((s, v));
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    stats
}
