//! What each emulation costs (issue "Any Vulkan GPU", item 7): every
//! benchmark kernel translated for the default device as it is (native) and
//! with one emulation forced, launched by the same runtime in the same
//! process, interleaved round by round. The table gives, per kernel and
//! emulation, the median of the per-round ratios emulated/native.
//!
//! The emulations are what a device without the feature gets (docs/devices.md;
//! the `PISA_SPIRV_OPTIONS` tokens in brackets, vk-runtime/src/device.rs):
//! - `int64-atomics`: 64-bit global atomics under a lock table (`no-int64-atomics`);
//! - `f32-numerics`: the exact f32 library and the math library's f32
//!   kernels instead of f64 (`exact-f32`, `mathlib-f32`: numerics f32);
//! - `soft-f64`: numerics soft, the f32 paths and `.df` in integers
//!   (`exact-f32`, `mathlib-f32`, `soft-f64`);
//! - `narrow-ints`: 8- and 16-bit integers held in 32-bit ones (`no-narrow-ints`);
//! - `float16`: `.hf` results rounded without the 16-bit float type (`no-float16`).
//!
//! Each emulation changes only its own fields of the device's options, so
//! the driver workarounds the device needs stay as they are. A kernel that
//! does not use the emulated feature shows about 1.0.
//!
//! The kernels: the nine of `benches/kernels.rs` (`cases.rs`, each output
//! checked against its CPU reference) and seven small ones of
//! `benches/kernels/` that exercise one emulation each (`atom64`,
//! `poly_df`, `fma_df`, `sqrt`, `sin_f32`, `int16`, `half`, `bf16`: the
//! exact library's bfloat16 rounding, on every device), whose outputs are computed once
//! by the cpu device (`pisa-interp`). Every variant's outputs must equal the
//! reference after the warm-up and after every round, so no wrong result
//! is timed.
//!
//! ```text
//! cargo bench --bench emulation_cost                  # full sizes, 5 rounds
//! cargo bench --bench emulation_cost -- --quick       # small sizes, 3 rounds
//! cargo bench --bench emulation_cost -- --rounds 7 poly half
//! ```
//! The same through the environment: `PISA_BENCH_QUICK=1`,
//! `PISA_BENCH_FILTER=poly,half`, `PISA_BENCH_ROUNDS=7`.

#[path = "kernels/cases.rs"]
mod cases;

use anyhow::{anyhow, bail, Context, Result};
use cases::*;
use pisa_translator::spirv::{Numerics, Options};
use pisa_vk_runtime::{Device, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// (name, what it forces, how it changes the device's options)
type Emulation = (&'static str, &'static str, fn(Options) -> Options);

const EMULATIONS: [Emulation; 5] = [
    ("int64-atomics", "no-int64-atomics", |mut o| {
        o.int64_buffer_atomics = false;
        o
    }),
    ("f32-numerics", "exact-f32,mathlib-f32", |o| {
        o.with_numerics(Numerics::F32)
    }),
    ("soft-f64", "exact-f32,mathlib-f32,soft-f64", |o| {
        o.with_numerics(Numerics::Soft)
    }),
    ("narrow-ints", "no-narrow-ints", |mut o| {
        o.narrow_integers = [false; 2];
        o
    }),
    ("float16", "no-float16", |mut o| {
        o.float16 = false;
        o
    }),
];

/// The kernels of this bench that `cases::make_case` does not have.
const OWN: [&str; 8] = [
    "atom64", "poly_df", "fma_df", "sqrt", "sin_f32", "int16", "half", "bf16",
];

#[path = "kernels/opts.rs"]
mod opts;
use opts::parse_opts;

fn d1(n: usize) -> NdRange {
    NdRange::d1(n as u32).local([256, 1, 1])
}

/// The kernels of `OWN`, their expected outputs left to the cpu device.
fn own_case(name: &str, quick: bool) -> Case {
    let n: usize = if quick { 1 << 14 } else { 1 << 18 };
    let mut rng = Rng(0xE4u64 ^ name.len() as u64);
    let size = format!("n = {}", thousands(n));
    let out = |bytes: usize| output(bytes * n);
    let raw = |b: Vec<u8>| BufSpec {
        init: b,
        output: false,
    };
    let (pisa, bufs, args) = match name {
        "atom64" => {
            let v: Vec<u32> = (0..n).map(|_| rng.next()).collect();
            (
                "benches/kernels/atom64.pisa",
                vec![input(&v), output(8 * 4096)],
                vec![Arg::Buf(0), Arg::Buf(1)],
            )
        }
        "poly_df" => {
            // x in [0.25, 0.75): y stays below 3
            let x: Vec<u8> = (0..n)
                .flat_map(|_| (0.25 + (rng.next() >> 8) as f64 / (1u64 << 25) as f64).to_le_bytes())
                .collect();
            (
                "benches/kernels/poly_df.pisa",
                vec![raw(x), out(8)],
                vec![Arg::Buf(0), Arg::Buf(1)],
            )
        }
        "fma_df" => {
            // x in [0.25, 0.75): y stays below 3
            let x: Vec<u8> = (0..n)
                .flat_map(|_| (0.25 + (rng.next() >> 8) as f64 / (1u64 << 25) as f64).to_le_bytes())
                .collect();
            (
                "benches/kernels/fma_df.pisa",
                vec![raw(x), out(8)],
                vec![Arg::Buf(0), Arg::Buf(1)],
            )
        }
        "sqrt" => {
            // x in [0.25, 0.75): y stays below 2
            let x: Vec<u8> = (0..n)
                .flat_map(|_| (0.25 + (rng.next() >> 8) as f64 / (1u64 << 25) as f64).to_le_bytes())
                .collect();
            (
                "benches/kernels/sqrt.pisa",
                vec![raw(x), out(16)],
                vec![Arg::Buf(0), Arg::Buf(1)],
            )
        }
        "sin_f32" => {
            let x: Vec<f32> = (0..n)
                .map(|_| (rng.next() >> 9) as f32 / (1u32 << 23) as f32 * 4.0)
                .collect();
            (
                "benches/kernels/sin_f32.pisa",
                vec![input(&x), out(4)],
                vec![Arg::Buf(0), Arg::Buf(1)],
            )
        }
        "int16" => {
            let v: Vec<u8> = (0..2 * n).map(|_| rng.next() as u8).collect();
            let w: Vec<u8> = (0..2 * n).map(|_| rng.next() as u8).collect();
            (
                "benches/kernels/int16.pisa",
                vec![raw(v), raw(w), out(2)],
                vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)],
            )
        }
        "half" => {
            // a in [0, 1), b in [0.25, 0.75): x stays below 3; f16 bit patterns
            let h = |lo: u16, span: u16, r: u32| (lo + (r % span as u32) as u16).to_le_bytes();
            let a: Vec<u8> = (0..n).flat_map(|_| h(0x0000, 0x3C00, rng.next())).collect();
            let b: Vec<u8> = (0..n).flat_map(|_| h(0x3400, 0x0600, rng.next())).collect();
            (
                "benches/kernels/half.pisa",
                vec![raw(a), raw(b), out(2)],
                vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)],
            )
        }
        "bf16" => {
            // a in [0, 1), b in [0.25, 0.75): x stays below 3; bfloat16 bit patterns
            let h = |lo: u16, span: u16, r: u32| (lo + (r % span as u32) as u16).to_le_bytes();
            let a: Vec<u8> = (0..n).flat_map(|_| h(0x0000, 0x3F80, rng.next())).collect();
            let b: Vec<u8> = (0..n).flat_map(|_| h(0x3E80, 0x00C0, rng.next())).collect();
            (
                "benches/kernels/bf16.pisa",
                vec![raw(a), raw(b), out(2)],
                vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)],
            )
        }
        _ => unreachable!("{name} is in OWN"),
    };
    let name = OWN.into_iter().find(|k| *k == name).expect("in OWN");
    Case {
        name,
        pisa,
        size,
        range: d1(n),
        bufs,
        args,
        expected: Vec::new(),
    }
}

fn assemble(case: &Case) -> Result<pisa_translator::Module> {
    let path = Path::new(ROOT).join(case.pisa);
    let src =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    pisa_translator::assemble(case.pisa, &src)
        .map_err(|d| anyhow!("{} is not valid PISA:\n{}", case.pisa, d.render()))
}

/// Runs `case` once on the cpu device and makes its outputs the expected ones.
fn expect_from_cpu(case: &mut Case, module: &pisa_translator::Module) -> Result<()> {
    let mut cpu = pisa_interp::CpuDevice::new();
    cpu.set_timeout(Duration::from_secs(600));
    let dev: &mut dyn Device = &mut cpu;
    let p = dev
        .load(module)
        .map_err(|e| anyhow!("{}: the cpu device: {e}", case.name))?;
    let side = Side::new(dev, p, case)?;
    side.run(dev, case, "cpu device")?;
    case.expected = side
        .outputs(dev, case)?
        .into_iter()
        .map(|(i, b)| exactly(i, b))
        .collect();
    Ok(())
}

/// Kernels whose f32 outputs may differ from the reference by up to this
/// many units in the last place: `sin_f32` under the no-f64 numerics runs
/// the math library's f32 kernels, within 1 ULP of the correctly rounded
/// `fsin` but not always correctly rounded (the spec allows 2 ULP;
/// docs/spec-notes.md, "Transcendentals without f64"), eight times in a
/// row.
const ULP_TOLERANCE: [(&str, u32); 1] = [("sin_f32", 8)];

/// Whether the f32 words of `a` and `b` are within `ulps` units in the last
/// place of each other (same sign; NaNs must be equal bits).
fn close_f32(a: &[u8], b: &[u8], ulps: u32) -> bool {
    a.len() == b.len()
        && a.chunks(4).zip(b.chunks(4)).all(|(x, y)| {
            let word = |c: &[u8]| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            };
            let (x, y) = (word(x), word(y));
            let nan = |v: u32| v & 0x7FFF_FFFF > 0x7F80_0000;
            if nan(x) || nan(y) || (x ^ y) >> 31 != 0 {
                return x == y;
            }
            x.abs_diff(y) <= ulps
        })
}

/// Fails unless every output equals one of its expected contents (or, for
/// the kernels of [`ULP_TOLERANCE`], lies within its bound of one).
fn check(case: &Case, what: &str, outputs: &[(usize, Vec<u8>)]) -> Result<()> {
    let tolerance = ULP_TOLERANCE
        .iter()
        .find(|(k, _)| *k == case.name)
        .map(|&(_, u)| u);
    for (i, wants) in &case.expected {
        let (_, got) = outputs
            .iter()
            .find(|(j, _)| j == i)
            .ok_or_else(|| anyhow!("buffer {i} is no output"))?;
        let close = |w: &Vec<u8>| tolerance.is_some_and(|u| close_f32(got, w, u));
        if !wants.iter().any(|(_, w)| w == got || close(w)) {
            same(case.name, *i, (what, "the reference"), got, &wants[0].1)?;
        }
    }
    Ok(())
}

/// One kernel's numbers: native times, and per emulation its times (empty:
/// the emulation changes nothing in this kernel's translation) or why the
/// translation was refused.
struct Measured {
    name: &'static str,
    size: String,
    native_ns: Vec<u64>,
    emulated: Vec<Variant>,
}

enum Variant {
    Timed(Vec<u64>),
    /// The translation is the native one, word for word.
    Same,
    Refused(String),
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ms(v: &[u64]) -> f64 {
    median(&v.iter().map(|&n| n as f64 / 1e6).collect::<Vec<_>>())
}

impl Measured {
    fn cell(&self, e: usize) -> String {
        match &self.emulated[e] {
            Variant::Same => "1 (same code)".into(),
            Variant::Refused(_) => "refused".into(),
            Variant::Timed(t) => {
                let r: Vec<f64> = t
                    .iter()
                    .zip(&self.native_ns)
                    .map(|(a, b)| *a as f64 / (*b).max(1) as f64)
                    .collect();
                format!("{:.2}", median(&r))
            }
        }
    }
}

fn bench_case(rt: &mut Runtime, case: &mut Case, rounds: usize) -> Result<Measured> {
    let module = assemble(case)?;
    if case.expected.is_empty() {
        expect_from_cpu(case, &module)?;
    }
    let native = pisa_vk_runtime::translate_options_with(rt.device_info(), None);
    let native_spv = pisa_translator::spirv::translate_with(&module, &native)
        .map_err(|e| anyhow!("{}: translating natively: {e}", case.name))?;
    let mut sides = Vec::new(); // (emulation index or None, side)
    let p = rt.load_translated(&native_spv)?;
    sides.push((None, Side::new(rt, p, case)?));
    let mut emulated = Vec::new();
    for (e, (name, _, change)) in EMULATIONS.iter().enumerate() {
        match pisa_translator::spirv::translate_with(&module, &change(native.clone())) {
            Err(err) => emulated.push(Variant::Refused(err.to_string())),
            Ok(spv) if spv.words == native_spv.words => emulated.push(Variant::Same),
            Ok(spv) => {
                let p = rt
                    .load_translated(&spv)
                    .map_err(|err| anyhow!("{}: loading under {name}: {err}", case.name))?;
                sides.push((Some(e), Side::new(rt, p, case)?));
                emulated.push(Variant::Timed(Vec::new()));
            }
        }
    }
    let label = |e: Option<usize>| e.map_or("native", |e| EMULATIONS[e].0);
    // warm-up: pipeline creation and the driver's compile
    for (e, s) in &sides {
        s.run(rt, case, label(*e))?;
        check(case, label(*e), &s.outputs(rt, case)?)?;
    }
    let mut native_ns = Vec::new();
    for r in 0..rounds {
        // rotate which side goes first
        let k = sides.len();
        for j in 0..k {
            let (e, s) = &sides[(j + r) % k];
            let t = s.run(rt, case, label(*e))?;
            check(case, label(*e), &s.outputs(rt, case)?)?;
            match e {
                None => native_ns.push(t),
                Some(e) => {
                    if let Variant::Timed(v) = &mut emulated[*e] {
                        v.push(t)
                    }
                }
            }
        }
    }
    for (_, s) in sides {
        s.free(rt);
    }
    Ok(Measured {
        name: case.name,
        size: case.size.clone(),
        native_ns,
        emulated,
    })
}

fn main() -> Result<()> {
    let start = Instant::now();
    let opts = parse_opts("emulation_cost", 5)?;
    let all: Vec<&str> = NAMES.iter().chain(OWN.iter()).copied().collect();
    let names: Vec<&str> = all
        .iter()
        .copied()
        .filter(|n| opts.filter.is_empty() || opts.filter.iter().any(|f| n.contains(f.as_str())))
        .collect();
    if names.is_empty() {
        bail!(
            "no kernel matches {:?}; the kernels are: {}",
            opts.filter,
            all.join(", ")
        );
    }
    let mut rt = Runtime::new(RuntimeOptions {
        timestamps: true,
        timeout: Duration::from_secs(300),
        ..Default::default()
    })
    .map_err(|e| anyhow!("no Vulkan device: {e}"))?;
    let info = rt.device_info().clone();
    let mode = if opts.quick { "quick" } else { "full" };
    println!(
        "emulation cost ({mode}: {} rounds after a warm-up, native and emulated interleaved) on {} ({})",
        opts.rounds, info.name, info.driver
    );
    let mut results = Vec::new();
    for name in &names {
        let t = Instant::now();
        let mut case = if OWN.contains(name) {
            own_case(name, opts.quick)
        } else {
            make_case(name, opts.quick)
        };
        let m = bench_case(&mut rt, &mut case, opts.rounds)?;
        let cells: Vec<String> = (0..EMULATIONS.len()).map(|e| m.cell(e)).collect();
        println!(
            "  {:<13} {:<40} native {:>8.2} ms; {} ({:.1} s)",
            m.name,
            m.size,
            ms(&m.native_ns),
            cells.join(" "),
            t.elapsed().as_secs_f64()
        );
        for (e, v) in m.emulated.iter().enumerate() {
            if let Variant::Refused(why) = v {
                println!("  {:<13} {} refused: {why}", "", EMULATIONS[e].0);
            }
        }
        results.push(m);
    }
    println!();
    println!(
        "device: {} ({}); {mode} mode, {} rounds; GPU timestamps; each cell: the median over the \
         rounds of (emulated time / native time, same round); outputs equal to the reference in \
         every round",
        info.name, info.driver, opts.rounds
    );
    println!();
    let mut head = String::from("| kernel | native ms |");
    let mut rule = String::from("|---|---:|");
    for (name, tokens, _) in &EMULATIONS {
        head.push_str(&format!(" {name} (`{tokens}`) |"));
        rule.push_str("---:|");
    }
    println!("{head}\n{rule}");
    for m in &results {
        let cells: Vec<String> = (0..EMULATIONS.len()).map(|e| m.cell(e)).collect();
        println!(
            "| {} | {:.2} | {} |",
            m.name,
            ms(&m.native_ns),
            cells.join(" | ")
        );
    }
    println!();
    println!("total {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
