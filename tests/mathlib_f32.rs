//! The math library's f32 kernels (`translator/src/ir/mathlib/library_f32.pisa`, linked for
//! devices without 64-bit floats, or with the `mathlib-f32` token of `PISA_SPIRV_OPTIONS`)
//! against the reference device's correctly rounded float core, the oracle: every 16-bit input
//! of every form (`fsin`, `fcos`, `fexp2`, `flog2`, `ftanh`, `frsqrt.fast` on `.hf`/`.bf`, with
//! and without `.ftz`), hard and random f32 inputs (huge arguments, neighbours of multiples of
//! pi/2, subnormals, ±0, ±∞, NaNs, the ends of each function's range), and the packed forms.
//! Each result must be within the spec's bound (13: `fsin`, `fcos`, `fexp2`, `ftanh` 2 ULP;
//! `flog2`, `frsqrt` 1 ULP), measured in units in the last place of the format from the
//! correctly rounded result; special sources (NaN, ±∞, ±0) and NaN results must be bit for
//! bit. The largest distances seen are printed (`--nocapture`) for docs/numerics.md.
//!
//! The kernels run twice: on the reference device (the linked program interpreted, which
//! needs no GPU) and on lavapipe (translated with `Options::mathlib_f32`), where every result
//! must also equal the interpreted one bit for bit: the kernels use only operations Vulkan
//! rounds correctly, so a driver computes them exactly as written.
//!
//! Last, the run cases of tests/run/ that use these instructions run through `pisa run --profile`
//! of an Apple M1 (no `shaderFloat64`), which picks the f32 kernels, with exactly their expected
//! outputs: they used to be refused for the f64 kernels' `shaderFloat64`.

mod common;
#[path = "common/run_case.rs"]
mod run_case;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_translator::ir;
use pisa_vk_runtime::{Device, ProgramId, Runtime, RuntimeOptions};
use std::collections::BTreeMap;
use std::time::Duration;

/// The instructions, with the spec's bound in ULP.
const OPS: &[(&str, u64)] = &[
    ("fsin", 2),
    ("fcos", 2),
    ("fexp2", 2),
    ("flog2", 1),
    ("ftanh", 2),
    ("frsqrt", 1),
];

/// The mnemonic of `op` on `ty` (`frsqrt` has only its `.fast` form).
fn form(op: &str, ftz: &str, ty: &str) -> String {
    let fast = if op == "frsqrt" { ".fast" } else { "" };
    format!("{op}{ftz}{fast}.{ty}")
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

/// One kernel per form: `out[i] = form(in[i])` (16-bit forms on 16-bit elements, packed ones
/// on 32-bit words).
fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for (op, _) in OPS {
        for ftz in ["", ".ftz"] {
            for (ty, bits, reg) in [
                ("f", 32, ".32b"),
                ("hf", 16, ".16b"),
                ("bf", 16, ".16b"),
                ("hfx2", 32, ".v2.16b"),
                ("bfx2", 32, ".v2.16b"),
            ] {
                let form = form(op, ftz, ty);
                let bytes = bits / 8;
                let mov = if reg == ".v2.16b" {
                    "v2.16b"
                } else {
                    &reg[1..]
                };
                src.push_str(&format!(
                    ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg {reg} %s, %d;\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %pi, %pi, %off;\n\tiadd.64b %po, %po, %off;\n\tld.global.{mov} %s, [%pi];\n\t{form} %d, %s;\n\tst.global.{mov} [%po], %d;\n\treturn;\n}}\n",
                    kernel_name(&form)
                ));
            }
        }
    }
    src
}

/// A scalar format's encoding constants: (bits, +∞).
fn format(ty: &str) -> (u32, u64) {
    match ty {
        "hf" => (16, 0x7C00),
        "bf" => (16, 0x7F80),
        _ => (32, 0x7F80_0000),
    }
}

/// Whether `x` (of `ty`) is a NaN, ±∞ or ±0: sources whose results the spec fixes.
fn special(x: u64, ty: &str) -> bool {
    let (bits, inf) = format(ty);
    let abs = x & ((1u64 << (bits - 1)) - 1);
    abs == 0 || abs >= inf
}

/// The distance in ULP between two non-NaN encodings of `ty` (±0 count as one value).
fn ulps(a: u64, b: u64, ty: &str) -> u64 {
    let (bits, _) = format(ty);
    let ordered = |x: u64| -> i64 {
        let m = (x & ((1u64 << (bits - 1)) - 1)) as i64;
        if x >> (bits - 1) == 1 {
            -m
        } else {
            m
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// Checks `got` against the oracle's `want` for sources `ins` of scalar type `ty` (packed
/// words as two lanes of it): within `bound` ULP, bit for bit for special sources and NaN
/// results. Returns the largest distance, with the source that gave it, and how many results
/// (lanes) are not the correctly rounded ones.
fn check(
    form: &str,
    ty: &str,
    bound: u64,
    ins: &[u64],
    want: &[u64],
    got: &[u64],
) -> (u64, u64, usize) {
    let (lanes, lane_ty) = match ty {
        "hfx2" => (2, "hf"),
        "bfx2" => (2, "bf"),
        t => (1, t),
    };
    let (bits, inf) = format(lane_ty);
    let mask = (1u64 << bits) - 1;
    let mut worst = (0, 0);
    let mut off = 0;
    let mut wrong = Vec::new();
    for ((&x, &w), &g) in ins.iter().zip(want).zip(got) {
        for lane in 0..lanes {
            let (x, w, g) = (
                (x >> (bits * lane)) & mask,
                (w >> (bits * lane)) & mask,
                (g >> (bits * lane)) & mask,
            );
            let nan = w & (mask >> 1) > inf;
            let d = if special(x, lane_ty) || nan {
                if g == w {
                    0
                } else {
                    u64::MAX
                }
            } else if g & (mask >> 1) > inf {
                u64::MAX
            } else {
                ulps(g, w, lane_ty)
            };
            if d > bound && wrong.len() < 8 {
                wrong.push(format!("{x:#x} gives {g:#x}, want {w:#x}"));
            }
            if d > worst.0 {
                worst = (d, x);
            }
            off += usize::from(d > 0);
        }
    }
    assert!(
        wrong.is_empty(),
        "{form} through the f32 kernels, beyond {bound} ULP: {}",
        wrong.join("; ")
    );
    (worst.0, worst.1, off)
}

/// The full tier (`PISA_NUMERICS_FULL=1`, docs/numerics.md): every 16-bit
/// encoding, and about 1,040,000 f32 sources per form (10^6 random); otherwise (CI, a debug
/// build) a sample a fifth that size.
fn full_tier() -> bool {
    std::env::var_os("PISA_NUMERICS_FULL").is_some()
}

/// The quick tier (`PISA_NUMERICS_QUICK=1`): the mutation run's sample
/// (docs/testing.md, "The numerics passes"), a tenth or less of CI's.
fn quick_tier() -> bool {
    std::env::var("PISA_NUMERICS_QUICK").is_ok_and(|v| v == "1")
}

/// The f32 sources: hard cases, then `random` random encodings.
fn f32_inputs(random: usize) -> Vec<u64> {
    let mut ins: Vec<u64> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x0000_0400,
        0x007F_FFFF,
        0x807F_FFFF,
        0x0080_0000,
        0x0080_0001,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFA0_0000,
        0x7FFF_FFFF,
        0x3F80_0000,
        0xBF80_0000,
        0x3F00_0000,
        0x3F7F_FFFF,
        0x3F80_0001,
        0x3F7F_FFFE,
        0x3F80_0002,
        0x3F35_04F3,
        0x3FB5_04F3,
        0x3FB5_04F4,
        0x4000_0000,
        0x4080_0000,
        0x3E80_0000,
        0x42C8_0000,
        0xC2C8_0000,
        0x4300_0000,
        0x42FF_FFFF,
        0xC2FC_0000,
        0xC2FE_0000,
        0xC2FD_FFFF,
        0xC316_0000,
        0xC315_FFFF,
        0xC315_0000,
        0xC314_0000,
        0x4049_0FDB,
        0x3FC9_0FDB,
        0x3F49_0FDB,
        0x3F49_0FDA,
        0x3F0C_9F54,
        0x3F0C_9F53,
        0x4110_0000,
        0x4118_0000,
        0x4120_0000,
        0xC120_0000,
        0x5F80_0000,
        0x4B80_0000,
        0x4F00_0000,
        0x7E00_0000,
        0x5922_AA80,
        0x6A28_C52F,
        0x7EEA_F53E,
        0x4C80_0000,
        0x3980_0000,
        0x3280_0000,
        0xB280_0000,
    ];
    // neighbours of multiples of pi/2, small and large
    let mut next = elementwise::random(0xF32);
    let near = if full_tier() { 2000 } else { 300 };
    for k in (1..near as u64).chain((0..near).map(|_| next() % (1 << 40))) {
        let v = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        let b = v.to_bits() as u64;
        for d in [0u64, 1, 2] {
            ins.push(b + d);
            ins.push(b - d);
            ins.push((b + d) | 0x8000_0000);
        }
    }
    // every exponent, random significands
    for e in 0..256u64 {
        for _ in 0..if full_tier() { 16 } else { 2 } {
            ins.push((e << 23) | (next() & 0x7F_FFFF) | (next() & 1) << 31);
        }
    }
    ins.extend((0..random).map(|_| next() >> 32));
    ins
}

/// The sources of a form of type `ty`.
fn inputs(ty: &str) -> Vec<u64> {
    match ty {
        // every encoding in the full tier; in CI every 5th, and every
        // encoding of the top exponents (infinities, NaNs) and the bottom
        // ones (zeros, subnormals) of both signs
        "hf" | "bf" if full_tier() => (0..=0xFFFF).collect(),
        "hf" | "bf" => {
            let every = if quick_tier() { 25 } else { 5 };
            (0..=0xFFFFu64)
                .filter(|x| x % every == 0 || matches!(x & 0x7FFF, 0..=0x3FF | 0x7800..))
                .collect()
        }
        "f" => f32_inputs(if full_tier() {
            1_000_000
        } else if quick_tier() {
            1 << 9
        } else {
            1 << 11
        }),
        _ => {
            // packed: random pairs, and pairs of specials
            let mut next = elementwise::random(0xB0B);
            (0..if quick_tier() { 1024 } else { 8192 })
                .map(|i| match i % 4 {
                    0 => 0x7C01_3C00 | (i as u64 & 0xFF),
                    1 => 0x8000_FC00,
                    _ => next() >> 32,
                })
                .collect()
        }
    }
}

const TYPES: &[(&str, u32)] = &[
    ("f", 32),
    ("hf", 16),
    ("bf", 16),
    ("hfx2", 32),
    ("bfx2", 32),
];

/// The assembled program, the reference device with it as written (the oracle) and with the
/// f32 kernels linked in.
fn reference() -> (pisa_translator::Module, CpuDevice, ProgramId, ProgramId) {
    let src = program();
    let m = pisa_translator::assemble("mathlib_f32.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let oracle = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    ir::mathlib::link_with(&mut linked, ir::mathlib::Kernels::F32);
    let library = cpu.load_program(&linked, &src).unwrap();
    (m, cpu, oracle, library)
}

/// Every form within its bound, run by `run` (the library's results for a kernel and its
/// sources); prints the largest distances.
fn every_form_within_its_bound(
    device: &str,
    cpu: &mut CpuDevice,
    oracle: ProgramId,
    mut run: impl FnMut(&mut CpuDevice, &str, u32, &[u64]) -> Vec<u64>,
) {
    let mut table: BTreeMap<String, (u64, u64, usize, usize)> = BTreeMap::new();
    for (op, bound) in OPS {
        for ftz in ["", ".ftz"] {
            for (ty, bits) in TYPES {
                let form = form(op, ftz, ty);
                let kernel = kernel_name(&form);
                let ins = inputs(ty);
                let want = elementwise::run(cpu, oracle, &kernel, (*bits, 1), (*bits, 1), &ins);
                let got = run(cpu, &kernel, *bits, &ins);
                let (d, at, off) = check(&form, ty, *bound, &ins, &want, &got);
                let lanes = if ty.ends_with("x2") { 2 } else { 1 };
                table.insert(form, (d, at, off, ins.len() * lanes));
            }
        }
    }
    for (form, (d, at, off, n)) in table {
        eprintln!("{device}: {form}: max {d} ULP (at {at:#x}), {off} of {n} not correctly rounded");
    }
}

#[test]
fn reference_device_runs_the_f32_kernels_within_the_bounds() {
    let (_, mut cpu, oracle, library) = reference();
    every_form_within_its_bound("reference", &mut cpu, oracle, |cpu, kernel, bits, ins| {
        elementwise::run(cpu, library, kernel, (bits, 1), (bits, 1), ins)
    });
}

#[test]
fn lavapipe_runs_the_f32_kernels_as_the_reference_device_does() {
    let (m, mut cpu, oracle, library) = reference();
    let mut vk = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timeout: Duration::from_secs(120),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    let info = vk.device_info().clone();
    // the token forces the f32 kernels (the driver workarounds as without the variable)
    assert!(pisa_vk_runtime::translate_options_with(&info, Some("mathlib-f32")).mathlib_f32);
    assert!(!pisa_vk_runtime::translate_options_with(&info, Some("opaque")).mathlib_f32);
    let mut options = pisa_vk_runtime::translate_options_with(&info, None);
    assert_eq!(options.mathlib_f32, !info.features.float64);
    options.mathlib_f32 = true;
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    let vp = vk.load_translated(&spv).unwrap();
    every_form_within_its_bound("lavapipe", &mut cpu, oracle, |cpu, kernel, bits, ins| {
        let got = elementwise::run(&mut vk, vp, kernel, (bits, 1), (bits, 1), ins);
        let interpreted = elementwise::run(cpu, library, kernel, (bits, 1), (bits, 1), ins);
        let differ: Vec<String> = ins
            .iter()
            .zip(got.iter().zip(&interpreted))
            .filter(|(_, (g, w))| g != w)
            .take(8)
            .map(|(x, (g, w))| format!("{x:#x} gives {g:#x}, interpreted {w:#x}"))
            .collect();
        assert!(
            differ.is_empty(),
            "{kernel} on lavapipe: {}",
            differ.join("; ")
        );
        got
    });
    let messages = vk.validation_messages();
    assert!(messages.is_empty(), "{messages:?}");
}

#[test]
fn run_cases_of_the_transcendentals_run_on_a_device_without_f64() {
    let profile = "../shared/device-profiles/apple_m1_0_2_2015_osx_14_3.json";
    if !std::path::Path::new(&run_case::root(profile)).exists() {
        eprintln!("SKIPPED: {profile} is absent (the shared profiles live beside the checkout)");
        return;
    }
    let uses = |program: &str| {
        let text = std::fs::read_to_string(run_case::root(program)).unwrap();
        OPS.iter().any(|(op, _)| {
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.trim_start().starts_with(&format!("{op}.")))
        })
    };
    let mut ran = Vec::new();
    for c in run_case::cases().iter().filter(|c| uses(&c.program)) {
        let failures = run_case::failures_under_profile(c, profile);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        ran.push(c.at.clone());
    }
    // tests/run/fexp2_ulp.pisa and the fsin of tests/run/uniform_walk.pisa at least
    assert!(ran.len() >= 4, "{ran:?}");
}
