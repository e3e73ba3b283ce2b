//! The exact f32 operations without f64 (`translator/src/ir/exactf32/`,
//! docs/numerics.md): `fadd`/`fsub`/`fmul` in the directed modes and
//! `.rna`, `fmad`, `fdiv`, `frcp` and `fsqrt` in every mode, `.ftz` and
//! `.dsat` included, computed in integers by the bundled library, bit for
//! bit against the reference device's own float core. Inputs: every pair
//! (or triple, or single) of a set of special and boundary values, values
//! that cancel or round at a tie, and random encodings.
//!
//! The library runs twice: linked into the program on the reference device
//! itself (no GPU needed), and on lavapipe translated with
//! `Options::with_exact_f32` (what a device without `shaderFloat64` gets),
//! whose module must declare no `Float64` capability.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_translator::ir;
use pisa_vk_runtime::{Device, ProgramId};

/// (mnemonic, sources)
fn forms() -> Vec<(String, usize)> {
    let mut v = Vec::new();
    for m in [".rz", ".ru", ".rd", ".rna"] {
        for op in ["fadd", "fsub", "fmul"] {
            v.push((format!("{op}{m}.f"), 2));
        }
    }
    for m in ["", ".re", ".rz", ".ru", ".rd", ".rna"] {
        v.push((format!("fmad{m}.f"), 3));
        v.push((format!("fdiv{m}.f"), 2));
        v.push((format!("fsqrt{m}.f"), 1));
    }
    v.push(("fdiv.fast.f".into(), 2));
    v.push(("fsqrt.fast.f".into(), 1));
    v.push(("frcp.f".into(), 1));
    v.push(("frcp.ftz.f".into(), 1));
    v.push(("fadd.rz.ftz.dsat.f".into(), 2));
    v.push(("fsub.rna.dsat.f".into(), 2));
    v.push(("fmul.rd.ftz.f".into(), 2));
    v.push(("fmul.ru.dsat.f".into(), 2));
    v.push(("fmad.ftz.f".into(), 3));
    v.push(("fmad.ru.ftz.dsat.f".into(), 3));
    v.push(("fmad.rd.dsat.f".into(), 3));
    v.push(("fdiv.rna.ftz.f".into(), 2));
    v.push(("fsqrt.ru.ftz.f".into(), 1));
    // `frc` rounds its subtraction down (13 §2.12)
    v.push(("frc.f".into(), 1));
    v.push(("frc.ftz.f".into(), 1));
    v
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for (form, n) in forms() {
        let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
        src.push_str(&format!(
            ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .32b %d, {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, 4;\n\tiadd.64b %po, %po, %off;\n",
            kernel_name(&form),
            regs.join(", "),
            4 * n
        ));
        for (i, r) in regs.iter().enumerate() {
            src.push_str(&format!("\tld.global.32b {r}, [%pi + {}];\n", 4 * i));
        }
        src.push_str(&format!(
            "\t{form} %d, {};\n\tst.global.32b [%po], %d;\n\treturn;\n}}\n",
            regs.join(", ")
        ));
    }
    src
}

/// Special and boundary encodings: zeros, subnormals, the normal range's
/// ends, ones, infinities, quiet and signaling NaNs of both signs.
const EDGES: [u32; 20] = [
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x007F_FFFF,
    0x8040_0000,
    0x0080_0000,
    0x8080_0001,
    0x3F80_0000,
    0xBF80_0000,
    0x3F80_0001,
    0x4040_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_1234,
    0x7F80_0001,
    0x3400_0000,
];

/// The sources of `count` items of an `n`-source form: every combination of
/// [`EDGES`], then `random` items each of uniformly random encodings,
/// values of nearby exponents (cancellation, subnormal results), addends
/// near `−a·b` (fmad's cancellation) and small significands (exact results
/// and ties).
fn inputs(n: usize, random: usize, seed: u64) -> Vec<u32> {
    let mut next = elementwise::random(seed);
    let mut v = Vec::new();
    match n {
        1 => v.extend(EDGES),
        2 => {
            for a in EDGES {
                for b in EDGES {
                    v.extend([a, b]);
                }
            }
        }
        _ => {
            for a in EDGES {
                for b in EDGES {
                    for c in EDGES {
                        v.extend([a, b, c]);
                    }
                }
            }
        }
    }
    let near = |next: &mut dyn FnMut() -> u64, e: u32| -> u32 {
        let sign = (next() as u32 & 1) << 31;
        let exp = (e + (next() % 8) as u32).min(254);
        sign | exp << 23 | (next() as u32 & 0x7F_FFFF)
    };
    for k in 0..random {
        let kind = k % 4;
        let e = (next() % 250) as u32;
        for i in 0..n {
            let x = match kind {
                0 => next() as u32,
                1 => near(&mut next, e),
                2 if i == 2 => {
                    // −a·b rounded, moved by a few units
                    let p = f32::from_bits(v[v.len() - 2]) * f32::from_bits(v[v.len() - 1]);
                    let d = (next() % 5) as i32 - 2;
                    ((-p).to_bits() as i32).wrapping_add(d) as u32
                }
                2 => {
                    let e = 100 + (next() % 50) as u32;
                    near(&mut next, e)
                }
                _ => {
                    let sign = (next() as u32 & 1) << 31;
                    let m = (next() % 64) as u32;
                    let exp = 120 + (next() % 16) as u32;
                    sign | exp << 23 | m << 17
                }
            };
            v.push(x);
        }
    }
    v
}

/// The reference device with the program as written (its own float core),
/// and with the exact library linked in: the f32 one, or with `f64` the
/// one with f64 cores (`ir::exactf64`).
fn cpu_devices(src: &str, f64: bool) -> (CpuDevice, ProgramId, ProgramId) {
    let m = pisa_translator::assemble("exact_f32.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    if f64 {
        ir::exactf64::link(&mut linked, ir::exactf64::Native::default());
    } else {
        ir::exactf32::link(&mut linked);
    }
    let library = cpu.load_program(&linked, src).unwrap();
    (cpu, reference, library)
}

/// Random items per form: `ci`, or 1,000,000 in the full tier
/// (`PISA_NUMERICS_FULL=1`, docs/numerics.md), or a twentieth of `ci` in
/// the quick tier.
fn random_items(ci: usize) -> usize {
    if std::env::var("PISA_NUMERICS_FULL").is_ok_and(|v| v == "1") {
        1_000_000
    } else if quick_tier() {
        ci / 20
    } else {
        ci
    }
}

/// The quick tier (`PISA_NUMERICS_QUICK=1`): the mutation run's sample
/// (docs/testing.md, "The numerics passes"), a tenth or less of CI's.
fn quick_tier() -> bool {
    std::env::var("PISA_NUMERICS_QUICK").is_ok_and(|v| v == "1")
}

fn check(form: &str, n: usize, ins: &[u32], got: &[u64], want: &[u64], on: &str) {
    let mismatches = got.iter().zip(want).filter(|(g, w)| g != w).count();
    // the record of a run (`--nocapture`; docs/numerics.md)
    eprintln!("{on}: {form}: {} items, {mismatches} mismatches", got.len());
    let wrong: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(6)
        .map(|(i, (g, w))| {
            format!(
                "{:08x?} gives {g:#010x}, want {w:#010x}",
                &ins[i * n..i * n + n]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{form} on {on}: {}", wrong.join("; "));
}

fn as_u64(v: &[u32]) -> Vec<u64> {
    v.iter().map(|&x| u64::from(x)).collect()
}

/// The library on the reference device: 20,000 random items per form
/// (1,000,000 in the full tier).
#[test]
fn library_on_the_reference_device_is_exact() {
    reference_device(false);
}

/// The library with f64 cores (`ir::exactf64`) on the reference device.
#[test]
fn f64_library_on_the_reference_device_is_exact() {
    reference_device(true);
}

fn reference_device(f64: bool) {
    let src = program();
    let (mut cpu, reference, library) = cpu_devices(&src, f64);
    for (k, (form, n)) in forms().into_iter().enumerate() {
        let ins = inputs(n, random_items(20_000), 0xE7AC + k as u64);
        let ins64 = as_u64(&ins);
        let kernel = kernel_name(&form);
        let want = elementwise::run(&mut cpu, reference, &kernel, (32, n), (32, 1), &ins64);
        let got = elementwise::run(&mut cpu, library, &kernel, (32, n), (32, 1), &ins64);
        check(
            &form,
            n,
            &ins,
            &got,
            &want,
            "the reference device, library linked",
        );
    }
}

/// Whether a SPIR-V module declares `OpCapability Float64`.
fn declares_float64(words: &[u32]) -> bool {
    // OpCapability: opcode 17, 2 words; Float64 is capability 10
    words
        .windows(2)
        .any(|w| w[0] == (2 << 16 | 17) && w[1] == 10)
}

/// The same on lavapipe with the f32 path forced: no f64 in the module,
/// 10,000 random items per form (1,000,000 in the full tier).
#[test]
fn library_on_vulkan_without_f64_is_exact() {
    vulkan(false);
}

/// The same on lavapipe with the f64 path (`ir::exactf64`, what a device
/// with `shaderFloat64` gets).
#[test]
fn f64_library_on_vulkan_is_exact() {
    vulkan(true);
}

fn vulkan(f64: bool) {
    let src = program();
    let m = pisa_translator::assemble("exact_f32.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let options = pisa_translator::spirv::Options::for_loop_cap(true);
    let options = if f64 {
        options.with_f64(true)
    } else {
        options.with_exact_f32()
    };
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert_eq!(declares_float64(&spv.words), f64, "Float64 declared");
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut vk = common::lavapipe();
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (k, (form, n)) in forms().into_iter().enumerate() {
        let ins = inputs(n, random_items(10_000), 0x5EED + k as u64);
        let ins64 = as_u64(&ins);
        let kernel = kernel_name(&form);
        let want = elementwise::run(&mut cpu, cp, &kernel, (32, n), (32, 1), &ins64);
        let got = elementwise::run(&mut vk, vp, &kernel, (32, n), (32, 1), &ins64);
        check(&form, n, &ins, &got, &want, &vk.device_info().name);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Without the option the same module computes `fmad.f` in f64 on a device
/// that has it: the f64 path is still the default there.
#[test]
fn the_f64_path_stays_where_the_device_has_f64() {
    let src = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %p)\n{\n\t.reg .64b %a;\n\t.reg .32b %x;\n\tld.param.64b %a, [%p];\n\tld.global.32b %x, [%a];\n\tfmad.f %x, %x, %x, %x;\n\tst.global.32b [%a], %x;\n\treturn;\n}\n";
    let m = pisa_translator::assemble("k.pisa", src).unwrap();
    let with = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    let without = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(false);
    assert!(!with.exact_f32 && without.exact_f32);
    let spv = pisa_translator::spirv::translate_with(&m, &with).unwrap();
    assert!(declares_float64(&spv.words));
    let spv = pisa_translator::spirv::translate_with(&m, &without).unwrap();
    assert!(!declares_float64(&spv.words));
}
