//! Binary64 without f64 (`translator/src/ir/softf64/`, docs/numerics.md
//! "Binary64 without f64"): `.df` `fadd`, `fsub`, `fmul`, `fmad`, `fdiv`,
//! `fsqrt` in every rounding mode, `frsqrt.fast`, `.fast`, `.ftz` and `.dsat` included,
//! `fmin`/`fmax` (`.nanp`), `fabs`, `fneg` and `fcmp` (register and
//! predicate destinations), and the conversions `f2i`, `i2f`, `fext`,
//! `ftrunc` and `frnd` of `.df` (every width and mode), computed in integers by the bundled library,
//! bit for bit against the reference device's own float core. Inputs:
//! every pair (or triple, or single) of a set of special and boundary
//! values, then random items: uniformly random encodings, values of nearby
//! exponents (cancellation, subnormal results), addends near `−a·b`
//! (fmad's cancellation) and small significands (exact results and ties).
//! 10,000 random items per form; `PISA_NUMERICS_FULL=1` runs 1,000,000.
//!
//! The library runs twice: linked into the program on the reference device
//! itself (no GPU needed), and on lavapipe translated with the options of
//! `PISA_SPIRV_OPTIONS=...,soft-f64` (what a device without
//! `shaderFloat64` gets), whose module must declare no `Float64`
//! capability.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_translator::ir;
use pisa_vk_runtime::{Device, ProgramId};

/// How a form's result is stored: the f64 bits, the 32-bit mask of a
/// register `fcmp` (zero-extended), 1/2 for a predicate `fcmp`, or a
/// conversion's (source bits, result bits): its source the low bits of the
/// loaded 64, its result zero-extended.
#[derive(Clone, Copy, PartialEq)]
enum Out {
    Value,
    Mask,
    Pred,
    Conv(u32, u32),
}

/// (mnemonic, sources, how the result is stored)
fn forms() -> Vec<(String, usize, Out)> {
    let mut v = Vec::new();
    for m in ["", ".re", ".rz", ".ru", ".rd", ".rna"] {
        for op in ["fadd", "fsub", "fmul", "fdiv"] {
            v.push((format!("{op}{m}.df"), 2, Out::Value));
        }
        v.push((format!("fmad{m}.df"), 3, Out::Value));
        v.push((format!("fsqrt{m}.df"), 1, Out::Value));
    }
    for f in [
        "fdiv.fast.df",
        "fadd.rz.ftz.dsat.df",
        "fsub.rna.dsat.df",
        "fmul.rd.ftz.df",
        "fmul.ru.dsat.df",
        "fdiv.rna.ftz.df",
        "fmin.df",
        "fmax.df",
        "fmin.nanp.df",
        "fmax.ftz.dsat.nanp.df",
        "fmin.ftz.dsat.df",
    ] {
        v.push((f.to_string(), 2, Out::Value));
    }
    for f in ["fmad.ftz.df", "fmad.ru.ftz.dsat.df", "fmad.rd.dsat.df"] {
        v.push((f.to_string(), 3, Out::Value));
    }
    for f in [
        "fsqrt.fast.df",
        "fsqrt.ru.ftz.df",
        "frsqrt.fast.df",
        "frsqrt.ftz.fast.df",
        "fabs.df",
        "fabs.ftz.df",
        "fneg.df",
        "fneg.ftz.df",
    ] {
        v.push((f.to_string(), 1, Out::Value));
    }
    for c in ["eq", "ne", "gt", "ge", "lt", "le"] {
        v.push((format!("fcmp.{c}.df"), 2, Out::Mask));
        v.push((format!("fcmp.{c}.ftz.df"), 2, Out::Pred));
    }
    v.extend(conversion_forms());
    v
}

/// The conversions: `f2i` from `.df` to every integer type, `i2f` into
/// `.df` from every one, in every mode; `fext` into `.df`; `ftrunc` from
/// `.df` in every mode, `.ftz`, `.dsat`; `frnd.df` in every mode.
fn conversion_forms() -> Vec<(String, usize, Out)> {
    let ints = [
        ("s8", 8),
        ("u8", 8),
        ("s16", 16),
        ("u16", 16),
        ("s32", 32),
        ("u32", 32),
        ("s64", 64),
        ("u64", 64),
    ];
    let narrow = [("f", 32), ("hf", 16), ("bf", 16)];
    let mut v = Vec::new();
    for m in ["", ".re", ".rz", ".ru", ".rd", ".rna"] {
        for (t, w) in ints {
            v.push((format!("f2i.{t}.df{m}"), 1, Out::Conv(64, w)));
            v.push((format!("i2f.df.{t}{m}"), 1, Out::Conv(w, 64)));
        }
        for (t, w) in narrow {
            v.push((format!("ftrunc.{t}.df{m}"), 1, Out::Conv(64, w)));
        }
        if !m.is_empty() {
            v.push((format!("frnd{m}.df"), 1, Out::Conv(64, 64)));
        }
    }
    for (t, w) in narrow {
        v.push((format!("fext.df.{t}"), 1, Out::Conv(w, 64)));
        v.push((format!("ftrunc.{t}.df.ftz"), 1, Out::Conv(64, w)));
        v.push((format!("ftrunc.{t}.df.rz.dsat"), 1, Out::Conv(64, w)));
        v.push((format!("ftrunc.{t}.df.ru.ftz.dsat"), 1, Out::Conv(64, w)));
    }
    v.push(("i2f.df.s64.rd.dsat".into(), 1, Out::Conv(64, 64)));
    v.push(("i2f.df.u32.dsat".into(), 1, Out::Conv(32, 64)));
    v.push(("frnd.rz.ftz.df".into(), 1, Out::Conv(64, 64)));
    v.push(("frnd.rna.ftz.df".into(), 1, Out::Conv(64, 64)));
    v
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

fn program() -> String {
    program_of(forms())
}

fn program_of(forms: Vec<(String, usize, Out)>) -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for (form, n, out) in forms {
        let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
        src.push_str(&format!(
            ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off, %d, {};\n\t.reg .32b %id, %w, %x32, %y32;\n\t.reg .16b %x16, %y16;\n\t.reg .8b %x8, %y8;\n\t.pred %p;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, 8;\n\tiadd.64b %po, %po, %off;\n",
            kernel_name(&form),
            regs.join(", "),
            8 * n
        ));
        for (i, r) in regs.iter().enumerate() {
            src.push_str(&format!("\tld.global.64b {r}, [%pi + {}];\n", 8 * i));
        }
        let srcs = regs.join(", ");
        match out {
            Out::Value => src.push_str(&format!("\t{form} %d, {srcs};\n")),
            Out::Mask => src.push_str(&format!("\t{form} %w, {srcs};\n\tzext.64b.32b %d, %w;\n")),
            Out::Pred => src.push_str(&format!("\t{form} %p, {srcs};\n\tsel.64b %d, 1, 2, %p;\n")),
            Out::Conv(a, b) => {
                let x = if a == 64 {
                    "%s0".to_string()
                } else {
                    src.push_str(&format!("\ttrunc.{a}b.64b %x{a}, %s0;\n"));
                    format!("%x{a}")
                };
                if b == 64 {
                    src.push_str(&format!("\t{form} %d, {x};\n"));
                } else {
                    src.push_str(&format!(
                        "\t{form} %y{b}, {x};\n\tzext.64b.{b}b %d, %y{b};\n"
                    ));
                }
            }
        }
        src.push_str("\tst.global.64b [%po], %d;\n\treturn;\n}\n");
    }
    src
}

/// Special and boundary encodings: zeros, subnormals, the normal range's
/// ends, ones and their neighbours, infinities, quiet and signaling NaNs of
/// both signs with payloads, and values near rounding boundaries.
const EDGES: [u64; 24] = [
    0,
    0x8000_0000_0000_0000,
    1,
    0x8000_0000_0000_0001,
    0x000F_FFFF_FFFF_FFFF,
    0x8008_0000_0000_0000,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0001,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x3FF0_0000_0000_0001,
    0x3FEF_FFFF_FFFF_FFFF,
    0x4008_0000_0000_0000,
    0x3FF8_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    0x7FE0_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0xFFF8_0000_0000_1234,
    0x7FF0_0000_0000_0001,
    0xFFF4_0000_0000_0567,
    0x3CA0_0000_0000_0000,
];

/// Conversion edges: integers at and around every integer type's limits
/// and their halves, ties at 0.5, 1.5, 2.5, values at and around the
/// narrow formats' overflow, smallest normal and subnormal and their
/// ties, and encodings of the narrow formats (their NaNs, infinities,
/// subnormals) and integers in the low bits.
fn conversion_edges() -> Vec<u64> {
    let mut v: Vec<u64> = EDGES.to_vec();
    for k in [7, 8, 15, 16, 31, 32, 53, 63, 64] {
        let p = 2f64.powi(k);
        for x in [
            p,
            p - 1.0,
            p + 1.0,
            p - 0.5,
            p + 0.5,
            p * (1.0 - f64::EPSILON / 2.0),
        ] {
            v.extend([x.to_bits(), (-x).to_bits()]);
        }
    }
    for x in [
        0.5,
        1.5,
        2.5,
        0.25,
        0.75,
        0.49999999999999994,
        -0.5,
        -1.5,
        -2.5,
    ] {
        v.push(f64::to_bits(x));
    }
    // f32: max, its overflow tie, smallest normal and subnormal, their
    // halves; f16: 65504, 65520, 2^-14, 2^-24, 2^-25; bf16 overflow tie
    for x in [
        f32::MAX as f64,
        f32::MAX as f64 + 2f64.powi(103),
        f32::MAX as f64 + 2f64.powi(104),
        2f64.powi(-126),
        2f64.powi(-149),
        2f64.powi(-150),
        2f64.powi(-150) * 1.5,
        2f64.powi(-151),
        65504.0,
        65520.0,
        65519.99,
        2f64.powi(-14),
        2f64.powi(-24),
        2f64.powi(-25),
        2f64.powi(-25) * 1.5,
        1.0 + 2f64.powi(-24),
        1.0 + 3.0 * 2f64.powi(-24),
        1.0 + 2f64.powi(-11),
        1.0 + 2f64.powi(-8),
        3.3961776e38,
    ] {
        v.extend([x.to_bits(), (-x).to_bits()]);
    }
    v.extend([
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFA0_1234,
        0x0000_0001,
        0x807F_FFFF,
        0x0080_0000,
        0x7F7F_FFFF,
        0x7C00,
        0xFC00,
        0x7E00,
        0x7C01,
        0xFD23,
        0x0001,
        0x83FF,
        0x7F80,
        0xFF81,
        0x7FC1,
        0x807F,
        0x7F,
        0x80,
        0xFF,
        0x7FFF,
        0x8000,
        0xFFFF,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0x7FFF_FFFF_FFFF_FFFF,
        0xFFFF_FFFF_FFFF_FFFF,
        0x0020_0000_0000_0001,
        0x0020_0000_0000_0003,
    ]);
    v
}

/// A conversion's sources: [`conversion_edges`], then `random` random
/// items: uniformly random encodings, values of exponents from -160 to
/// 130, integers plus quarters, integers of every width, and exact ties of
/// f32 and f16 significands.
fn conversion_inputs(random: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    let mut v = conversion_edges();
    for k in 0..random {
        let sign = (next() & 1) << 63;
        let x = match k % 5 {
            0 => next(),
            1 => sign | (863 + next() % 290) << 52 | (next() & 0x000F_FFFF_FFFF_FFFF),
            2 => {
                let w = next() % 65;
                let i = if w == 64 {
                    next()
                } else {
                    next() & ((1u64 << w) - 1)
                };
                let x = i as f64 + (next() % 4) as f64 * 0.25;
                sign | x.to_bits()
            }
            3 => next() >> (next() % 64),
            _ => {
                let e = 1023 - 30 + next() % 60;
                let m = if next() & 1 == 0 {
                    (next() & 0x7F_FFFF) << 29 | 1 << 28
                } else {
                    (next() & 0x3FF) << 42 | 1 << 41
                };
                sign | e << 52 | m
            }
        };
        v.push(x);
    }
    v
}

/// The sources of an `n`-source form: every combination of [`EDGES`],
/// then `random` random items (see the module docs).
fn inputs(n: usize, random: usize, seed: u64) -> Vec<u64> {
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
    let near = |next: &mut dyn FnMut() -> u64, e: u64| -> u64 {
        let sign = (next() & 1) << 63;
        let exp = (e + next() % 8).min(2046);
        sign | exp << 52 | (next() & 0x000F_FFFF_FFFF_FFFF)
    };
    for k in 0..random {
        let kind = k % 4;
        let e = next() % 2040;
        for i in 0..n {
            let x = match kind {
                0 => next(),
                1 => near(&mut next, e),
                2 if i == 2 => {
                    // −a·b rounded, moved by a few units
                    let p = f64::from_bits(v[v.len() - 2]) * f64::from_bits(v[v.len() - 1]);
                    let d = (next() % 5) as i64 - 2;
                    ((-p).to_bits() as i64).wrapping_add(d) as u64
                }
                2 => {
                    let e = 900 + next() % 250;
                    near(&mut next, e)
                }
                _ => {
                    let sign = (next() & 1) << 63;
                    let m = next() % 64;
                    let exp = 1016 + next() % 16;
                    sign | exp << 52 | m << 46
                }
            };
            v.push(x);
        }
    }
    v
}

/// Random items per form: 10,000, or 1,000,000 with
/// `PISA_NUMERICS_FULL=1`, or 500 in the quick tier.
fn random_items() -> usize {
    if std::env::var("PISA_NUMERICS_FULL").is_ok_and(|v| v == "1") {
        1_000_000
    } else if quick_tier() {
        500
    } else {
        10_000
    }
}

/// The quick tier (`PISA_NUMERICS_QUICK=1`): the mutation run's sample
/// (docs/testing.md, "The numerics passes"), a tenth or less of CI's.
fn quick_tier() -> bool {
    std::env::var("PISA_NUMERICS_QUICK").is_ok_and(|v| v == "1")
}

/// A form's sources: conversions a fifth of the random items.
fn form_inputs(out: Out, n: usize, seed: u64) -> Vec<u64> {
    match out {
        Out::Conv(..) => conversion_inputs(random_items() / 5, seed),
        _ => inputs(n, random_items(), seed),
    }
}

/// The reference device with the program as written (its own float core),
/// and with the soft-double library linked in.
fn cpu_devices(src: &str) -> (CpuDevice, ProgramId, ProgramId) {
    let m = pisa_translator::assemble("soft_f64.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    ir::softf64::link(&mut linked);
    assert!(
        linked
            .functions
            .iter()
            .all(|f| f.pisa_insts().all(|i| ir::softf64::replaces(i).is_none())),
        "an instruction the pass replaces is left"
    );
    let library = cpu.load_program(&linked, src).unwrap();
    (cpu, reference, library)
}

fn check(form: &str, n: usize, ins: &[u64], got: &[u64], want: &[u64], on: &str) {
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
                "{:016x?} gives {g:#018x}, want {w:#018x}",
                &ins[i * n..i * n + n]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{form} on {on}: {}", wrong.join("; "));
}

/// The library on the reference device.
#[test]
fn library_on_the_reference_device_is_exact() {
    let src = program();
    let (mut cpu, reference, library) = cpu_devices(&src);
    for (k, (form, n, out)) in forms().into_iter().enumerate() {
        let ins = form_inputs(out, n, 0x5D64 + k as u64);
        let kernel = kernel_name(&form);
        let want = elementwise::run(&mut cpu, reference, &kernel, (64, n), (64, 1), &ins);
        let got = elementwise::run(&mut cpu, library, &kernel, (64, n), (64, 1), &ins);
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

/// `fatom.global.add.df` and `.sub.df` (with an ordering) through the
/// soft-double library's compare-and-swap loop (`ir::softf64::atomics`)
/// on the reference device, against its own `fatom`: work-item i adds
/// (subtracts) `b` to (from) its own word holding `a`, for every pair of
/// [`EDGES`] and random pairs, and keeps the value it replaced; all add
/// 1.0 to one `.df` word and 1.0 to one `.f` word (whose `fatom` the pass
/// leaves alone). The loops take every `.df` atomic, and the compare-and-swap
/// carries the atomic's `.memorder` and `.memscope`.
#[test]
fn df_atomics_through_the_library_give_the_reference_devices_bits() {
    use pisa_vk_runtime::{Launch, NdRange};
    let src = ".version 0.1;
.target 100;
.kernel @k(.param[8] %words, .param[8] %ins, .param[8] %olds, .param[8] %sums)
{
	.reg .64b %w, %i, %o, %s, %off, %b, %old, %t, %one;
	.reg .32b %id, %f, %fo;
	ld.param.64b %w, [%words];
	ld.param.64b %i, [%ins];
	ld.param.64b %o, [%olds];
	ld.param.64b %s, [%sums];
	umad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;
	umul.full.32b %off, %id, 16;
	iadd.64b %w, %w, %off;
	iadd.64b %o, %o, %off;
	umul.full.32b %off, %id, 8;
	iadd.64b %i, %i, %off;
	ld.global.64b %b, [%i];
	mov.64b %one, 0x3FF0000000000000;
	mov.32b %f, 0x3F800000;
	fatom.global.add.df %old, [%w], %b;
	fatom.global.acq_rel.gpu.sub.df %t, [%w + 8], %b;
	fatom.global.add.df %one, [%s], %one;
	fatom.global.add.f %fo, [%s + 8], %f;
	st.global.64b [%o], %old;
	st.global.64b [%o + 8], %t;
	return;
}
";
    let m = pisa_translator::assemble("atomics.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut linked = ir::build(&m);
    ir::softf64::link(&mut linked);
    let text = ir::print::print(&linked);
    assert!(
        !text.contains("fatom.global.add.df") && !text.contains("sub.df"),
        "a .df atomic is left: {text}"
    );
    assert!(text.contains("fatom.global.add.f "), "{text}");
    assert!(
        text.contains("iatom.global.cas.64b") && text.contains("iatom.global.acq_rel.gpu.cas.64b"),
        "{text}"
    );
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let library = cpu.load_program(&linked, src).unwrap();
    let pairs = inputs(2, 200, 0xA70);
    let items = pairs.len() / 2;
    let bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let words: Vec<u64> = pairs.chunks(2).flat_map(|p| [p[0], p[0]]).collect();
    let ins: Vec<u64> = pairs.chunks(2).map(|p| p[1]).collect();
    let mut run = |prog: ProgramId| -> Vec<Vec<u8>> {
        let bufs: Vec<_> = [bytes(&words), bytes(&ins), vec![0; items * 16], vec![0; 16]]
            .iter()
            .map(|data| {
                let b = cpu.alloc_buffer(data.len() as u64).unwrap();
                cpu.upload(b, 0, data).unwrap();
                b
            })
            .collect();
        let args = bufs
            .iter()
            .map(|&b| cpu.buffer_address(b).unwrap().to_le_bytes().to_vec())
            .collect();
        cpu.launch(&Launch {
            program: prog,
            kernel: "k".into(),
            range: NdRange::d1(items as u32).local([64, 1, 1]),
            args,
        })
        .unwrap();
        let out = bufs.iter().map(|&b| cpu.download(b).unwrap()).collect();
        for b in bufs {
            cpu.free_buffer(b);
        }
        out
    };
    let want = run(reference);
    let got = run(library);
    let n = items as f64;
    assert_eq!(want[3][..8], n.to_bits().to_le_bytes(), "the .df sum");
    assert_eq!(
        want[3][8..12],
        (n as f32).to_bits().to_le_bytes(),
        "the .f sum"
    );
    for (k, what) in [
        (0, "the words"),
        (2, "the values replaced"),
        (3, "the sums"),
    ] {
        let (g, w) = (&got[k], &want[k]);
        let wrong: Vec<String> = g
            .chunks(8)
            .zip(w.chunks(8))
            .enumerate()
            .filter(|(_, (g, w))| g != w)
            .take(6)
            .map(|(j, (g, w))| format!("word {j}: {g:02x?}, want {w:02x?}"))
            .collect();
        assert!(wrong.is_empty(), "{what}: {}", wrong.join("; "));
    }
}

/// Whether a SPIR-V module declares `OpCapability Float64`.
fn declares_float64(words: &[u32]) -> bool {
    // OpCapability: opcode 17, 2 words; Float64 is capability 10
    words
        .windows(2)
        .any(|w| w[0] == (2 << 16 | 17) && w[1] == 10)
}

/// The same on lavapipe with `PISA_SPIRV_OPTIONS=...,soft-f64`: no f64 in
/// the module.
#[test]
fn library_on_vulkan_without_f64_is_exact() {
    let src = program();
    let m = pisa_translator::assemble("soft_f64.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut vk = common::lavapipe();
    let options = pisa_vk_runtime::translate_options_with(
        vk.device_info(),
        Some("unroll,loop-cap,relaxed,opaque,opaque-push,soft-f64"),
    );
    assert!(options.soft_f64);
    let without = pisa_vk_runtime::translate_options_with(
        vk.device_info(),
        Some("unroll,loop-cap,relaxed,opaque,opaque-push"),
    );
    assert!(
        !without.soft_f64,
        "lavapipe has f64: soft-f64 only when asked"
    );
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert!(!declares_float64(&spv.words), "the module declares Float64");
    let native = pisa_translator::spirv::translate_with(&m, &without).unwrap();
    assert!(declares_float64(&native.words));
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (k, (form, n, out)) in forms().into_iter().enumerate() {
        let ins = form_inputs(out, n, 0xD0B1 + k as u64);
        let kernel = kernel_name(&form);
        let want = elementwise::run(&mut cpu, cp, &kernel, (64, n), (64, 1), &ins);
        let got = elementwise::run(&mut vk, vp, &kernel, (64, n), (64, 1), &ins);
        check(&form, n, &ins, &got, &want, &vk.device_info().name);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Every form on lavapipe with f64 (the default options): the forms whose
/// Vulkan instruction is not exact are calls of this library there too
/// (`ir::exactf64::df_replacement`: directed rounding, `fmad`, `fdiv`
/// and `fsqrt` with exact division, `frsqrt`, the rounded conversions),
/// the rest the device's f64 instructions; all bit for bit the reference
/// device's (the device's NaNs only as NaNs). 1,000 random items a form.
#[test]
fn every_form_on_vulkan_with_f64_is_exact() {
    let src = program();
    let m = pisa_translator::assemble("soft_f64.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut vk = common::lavapipe();
    let options = pisa_vk_runtime::translate_options_with(
        vk.device_info(),
        Some("unroll,loop-cap,relaxed,opaque,opaque-push,exact-division"),
    );
    assert!(!options.soft_f64 && options.exact_division);
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert!(declares_float64(&spv.words));
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    let program = ir::build(&m);
    for (k, (form, n, out)) in forms().into_iter().enumerate() {
        let ins = match out {
            Out::Conv(..) => conversion_inputs(200, 0xF64D + k as u64),
            _ => inputs(n, 1_000, 0xF64D + k as u64),
        };
        let kernel = kernel_name(&form);
        let want = elementwise::run(&mut cpu, cp, &kernel, (64, n), (64, 1), &ins);
        let mut got = elementwise::run(&mut vk, vp, &kernel, (64, n), (64, 1), &ins);
        // the device's own instructions choose their NaNs' bits (lavapipe's
        // default NaN is negative: docs/spec-notes.md); the library's are
        // the reference device's
        let f = program
            .functions
            .iter()
            .find(|f| program.name(f.name) == kernel)
            .unwrap();
        let library = f
            .pisa_insts()
            .any(|i| ir::exactf64::df_replacement(i, ir::exactf64::Native::default()).is_some());
        if !library && matches!(out, Out::Value | Out::Conv(_, 64)) {
            let nan = |x: u64| x & !(1 << 63) > 0x7FF0_0000_0000_0000;
            for (g, w) in got.iter_mut().zip(&want) {
                if nan(*g) && nan(*w) {
                    *g = *w;
                }
            }
        }
        check(&form, n, &ins, &got, &want, &vk.device_info().name);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// `frsqrt.fast.df` on a device with f64 is correctly rounded, as the
/// reference device's: the inputs just below an even power of two whose
/// former f64 path (a Newton step in double-double during SPIR-V
/// emission) gave the value one unit below (`1 − 2^-52` gave 1.0, not
/// `1 + 2^-52`; the largest subnormal 0x5FE0000000000000), within the
/// spec's 1 ULP but not the cpu device's.
#[test]
fn frsqrt_df_with_f64_is_correctly_rounded() {
    // (input, correctly rounded 1/√x)
    let cases: [(u64, u64); 5] = [
        (0x3FEF_FFFF_FFFF_FFFE, 0x3FF0_0000_0000_0001),
        (0x400F_FFFF_FFFF_FFFE, 0x3FE0_0000_0000_0001),
        (0x7FEF_FFFF_FFFF_FFFE, 0x1FF0_0000_0000_0001),
        (0x000F_FFFF_FFFF_FFFF, 0x5FE0_0000_0000_0001),
        (0x002F_FFFF_FFFF_FFFE, 0x5FD0_0000_0000_0001),
    ];
    let src = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %in, .param[8] %out)\n{\n\t.reg .64b %pi, %po, %off, %x;\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, 8;\n\tiadd.64b %pi, %pi, %off;\n\tiadd.64b %po, %po, %off;\n\tld.global.64b %x, [%pi];\n\tfrsqrt.fast.df %x, %x;\n\tst.global.64b [%po], %x;\n\treturn;\n}\n";
    let m = pisa_translator::assemble("rsqrt.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut vk = common::lavapipe();
    let options = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    let ins: Vec<u64> = cases.iter().map(|c| c.0).collect();
    let want = elementwise::run(&mut cpu, cp, "k", (64, 1), (64, 1), &ins);
    let got = elementwise::run(&mut vk, vp, "k", (64, 1), (64, 1), &ins);
    for (i, (x, r)) in cases.into_iter().enumerate() {
        assert_eq!(want[i], r, "the reference device: 1/sqrt({x:#x})");
        assert_eq!(got[i], r, "with f64: 1/sqrt({x:#x}) gives {:#x}", got[i]);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// A device without f64 gets the soft-double library; one with it keeps
/// the native `.df` instructions.
#[test]
fn the_options_choose_the_library_without_f64() {
    let with = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    let without = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(false);
    assert!(!with.soft_f64 && without.soft_f64);
    assert!(without.target().soft_f64);
    let names: Vec<&str> = ir::pipeline::Pipeline::for_target(&without.target())
        .passes()
        .iter()
        .map(|p| p.name)
        .collect();
    assert!(names.contains(&"softf64"), "{names:?}");
}

/// The forms the f64-core paths compute on a device with f64
/// (`ir::softf64::f64core`: `fdiv`/`fsqrt` to nearest without `.dsat`).
const F64CORE_FORMS: [(&str, usize); 5] = [
    ("fdiv.df", 2),
    ("fdiv.ftz.df", 2),
    ("fdiv.fast.df", 2),
    ("fsqrt.df", 1),
    ("fsqrt.ftz.df", 1),
];

/// An f64 encoding: `sign`, the exponent field `e` (clamped to 0–2047),
/// the significand's fraction bits from `m`.
fn enc(sign: u64, e: i64, m: u64) -> u64 {
    (sign & 1) << 63 | (e.clamp(0, 2047) as u64) << 52 | (m & 0x000F_FFFF_FFFF_FFFF)
}

/// `x` (nonzero) rounded to its top 53 bits (half up), as a 53-bit
/// integer with its top bit at 52, and the shift taken off.
fn top53(x: u128) -> (u64, u32) {
    let len = 128 - x.leading_zeros();
    let sh = len - 53;
    let r = (x + (1u128 << (sh - 1))) >> sh;
    if r >> 53 != 0 {
        ((r >> 1) as u64, sh + 1)
    } else {
        (r as u64, sh)
    }
}

/// The inverse of an odd `b` modulo 2^64.
fn inverse(b: u64) -> u64 {
    let mut x = b;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(b.wrapping_mul(x)));
    }
    x
}

/// Significands `A`, `B` (53 bits) whose quotient is within `e·2^-53`
/// units of a midpoint: `A·2^j = M·B + e` for a 54-bit odd `M` and a
/// small odd `e` (`M = −e·B⁻¹` modulo 2^j).
fn hard_quotient(next: &mut dyn FnMut() -> u64) -> (u64, u64) {
    loop {
        let b = (1u64 << 52) | (next() & 0x000F_FFFF_FFFF_FFFF) | 1;
        let e = (next() % 9) as i64 * 2 - 7 - 1;
        let e = e | 1;
        for j in [53u32, 54] {
            let mask = (1u64 << j) - 1;
            let m = (e.wrapping_neg() as u64).wrapping_mul(inverse(b)) & mask;
            let m = if j == 53 { m | 1 << 53 } else { m };
            if m >> 53 != 1 {
                continue;
            }
            let p = m as i128 * b as i128 + e as i128;
            let a = (p >> j) as u64;
            if a >> 52 == 1 && p & mask as i128 == 0 {
                return (a, b);
            }
        }
    }
}

/// A significand `A` (53 bits) and `j` with `A·2^j = M² − c` for a 54-bit
/// odd `M` and a small `c` ≡ 1 (mod 8): `√(A·2^j)` is within about
/// `c·2^-55` units of the midpoint `M` (a square root of `c` modulo
/// 2^56 by Hensel's lifting).
fn hard_root(next: &mut dyn FnMut() -> u64) -> (u64, u32) {
    loop {
        let c = 1 + 8 * (next() % 8);
        let mut x: u64 = 1;
        for i in 3..56 {
            if (x.wrapping_mul(x).wrapping_sub(c) >> i) & 1 == 1 {
                x += 1 << (i - 1);
            }
        }
        let x = x & ((1 << 56) - 1);
        let roots = [
            x,
            (1u64 << 56) - x,
            x ^ 1 << 55,
            ((1u64 << 56) - x) ^ 1 << 55,
        ];
        let Some(&m) = roots.iter().find(|&&m| m >> 53 == 1 && next() & 1 == 0) else {
            continue;
        };
        let p = m as u128 * m as u128 - c as u128;
        for j in [54u32, 55] {
            let a = (p >> j) as u64;
            if a >> 52 == 1 && p & ((1u128 << j) - 1) == 0 {
                return (a, j);
            }
        }
    }
}

/// `x` (nonzero, at most 53 bits) shifted up to 53 bits, and the shift.
fn norm53(x: u64) -> (u64, u32) {
    let t = x.leading_zeros() - 11;
    (x << t, t)
}

/// Sources for the f64-core forms, aimed at their fallback boundaries:
/// random normal operands; quotient exponents at the ends of the fast
/// path's range (`ea − eb` from −1025 to −1019 and 1020 to 1026: subnormal
/// and overflowing quotients and the last ones it takes); operands just
/// below the normal range's ends and subnormal ones; quotients and roots
/// within a few units of a midpoint (`a` the 53-bit rounding of a 54-bit
/// odd `Q` times `b`, or of `S²`, moved by up to 2 units); exact quotients
/// and squares.
fn f64core_inputs(n: usize, random: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    let mut v: Vec<u64> = Vec::new();
    for k in 0..random {
        let s = next() & 3;
        let (ma, mb) = (next(), next());
        let nudge = (next() % 5) as i64 - 2;
        let x: Vec<u64> = match (n, k % 6) {
            (2, 0) => vec![
                enc(s, 1 + (next() % 2046) as i64, ma),
                enc(s >> 1, 1 + (next() % 2046) as i64, mb),
            ],
            (2, 1) => {
                let d = [
                    -1100, -1077, -1076, -1075, -1074, -1060, -1040, -1025, -1024, -1023, -1022,
                    -1021, -1020, -1019, 1020, 1021, 1022, 1023, 1024, 1025, 1026,
                ][next() as usize % 21];
                // exact quotients (short significands over powers of two)
                // half the time: ties of the subnormal rounding
                let (ma, mb) = if next() & 1 == 0 {
                    (ma & 0x000F_0000_0000_0000, 0)
                } else {
                    (ma, mb)
                };
                let eb = if d > 0 {
                    1 + (next() % (2046 - d) as u64) as i64
                } else {
                    1 - d + (next() % (2046 + d) as u64) as i64
                };
                vec![enc(s, eb + d, ma), enc(s >> 1, eb, mb)]
            }
            (2, 2) => {
                // one operand subnormal or at the normal range's ends
                let odd = [0, 1, 2046, 2045][next() as usize % 4];
                let other = 1 + (next() % 2046) as i64;
                if next() & 1 == 0 {
                    vec![enc(s, odd, ma), enc(s >> 1, other, mb)]
                } else {
                    vec![enc(s, other, ma), enc(s >> 1, odd, mb)]
                }
            }
            (2, 3) => {
                let (a, b) = hard_quotient(&mut next);
                let ea = 1 + (next() % 2046) as i64;
                let eb = (ea + (next() % 60) as i64 - 30).clamp(1, 2046);
                vec![enc(s, ea, a), enc(s >> 1, eb, b)]
            }
            (2, 4) => {
                let q = (1u128 << 53) | (next() as u128 & ((1 << 53) - 1)) | 1;
                let b = (1u64 << 52) | (mb & 0x000F_FFFF_FFFF_FFFF);
                let (a, _) = top53(q * b as u128);
                let a = (a as i64 + nudge) as u64;
                let eb = 1 + (next() % 2046) as i64;
                let ea = (eb + (next() % 60) as i64 - 30).clamp(1, 2046);
                vec![enc(s, ea, a), enc(s >> 1, eb, b)]
            }
            (2, _) => {
                // exact quotients: short significands
                let q = (ma & 0xFFFF).max(1);
                let b = (mb & 0x3FF) | 0x400;
                let (a, _) = norm53(q * b);
                vec![
                    enc(s, 1000 + (next() % 40) as i64, a),
                    enc(s >> 1, 1000 + (next() % 40) as i64, b << 42),
                ]
            }
            (_, 0) => vec![enc(0, 1 + (next() % 2046) as i64, ma)],
            (_, 1) => {
                let (a, j) = hard_root(&mut next);
                let e = 2 * (1 + (next() % 1022) as i64) + ((j as i64 + 1) & 1);
                vec![enc(0, e, a)]
            }
            (_, 2) => {
                let r = (1u128 << 53) | (next() as u128 & ((1 << 53) - 1)) | 1;
                let (a, sh) = top53(r * r);
                let a = (a as i64 + nudge) as u64;
                // the exponent's parity makes sqrt(a) near r's midpoint
                let e = 2 * (1 + (next() % 1022) as i64) + ((sh as i64 + 1) & 1);
                vec![enc(0, e, a)]
            }
            (_, 3) => {
                // subnormals, the normal range's ends, negative values
                let e = [0, 0, 1, 2, 2045, 2046][next() as usize % 6];
                vec![enc(next().is_multiple_of(5) as u64, e, ma)]
            }
            (_, _) => {
                // exact squares: sqrt(r² · 2^even)
                let r = (ma & 0x1FF_FFFF) | 1 << 25;
                let (a, t) = norm53(r * r);
                let e = 2 * (1 + (next() % 1022) as i64) + ((t as i64 + 1) & 1);
                vec![enc(0, e, a)]
            }
        };
        v.extend(x);
    }
    v
}

fn f64core_forms() -> Vec<(String, usize, Out)> {
    F64CORE_FORMS
        .iter()
        .map(|(f, n)| (f.to_string(), *n, Out::Value))
        .collect()
}

/// The f64-core paths on the reference device: the program with
/// `ir::exactf64::link_df` (the device's own `fdiv.df`/`fsqrt.df`, exact
/// there, inside the library functions) against the program as written.
#[test]
fn f64core_paths_on_the_reference_device_are_exact() {
    let src = program_of(f64core_forms());
    let m = pisa_translator::assemble("f64core.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    ir::exactf64::link_df(&mut linked, ir::exactf64::Native::default(), "exactf64");
    let names: Vec<String> = linked
        .functions
        .iter()
        .map(|f| linked.name(f.name).to_string())
        .collect();
    assert!(
        names.iter().any(|n| n == "__pisa_sd_div_rn")
            && names.iter().any(|n| n == "__pisa_sd_sqrt_rn"),
        "{names:?}"
    );
    let library = cpu.load_program(&linked, &src).unwrap();
    for (k, (form, n)) in F64CORE_FORMS.iter().enumerate() {
        let ins = f64core_inputs(*n, random_items() * 2, 0xC0DE + k as u64);
        let kernel = kernel_name(form);
        let want = elementwise::run(&mut cpu, reference, &kernel, (64, *n), (64, 1), &ins);
        let got = elementwise::run(&mut cpu, library, &kernel, (64, *n), (64, 1), &ins);
        check(
            form,
            *n,
            &ins,
            &got,
            &want,
            "the reference device, f64-core paths",
        );
    }
}

/// The same on lavapipe with f64 (the default options, exact division).
#[test]
fn f64core_paths_on_vulkan_are_exact() {
    let src = program_of(f64core_forms());
    let m = pisa_translator::assemble("f64core.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut vk = common::lavapipe();
    let options = pisa_vk_runtime::translate_options_with(
        vk.device_info(),
        Some("unroll,loop-cap,relaxed,opaque,opaque-push,exact-division"),
    );
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (k, (form, n)) in F64CORE_FORMS.iter().enumerate() {
        let ins = f64core_inputs(*n, random_items() * 2, 0xD0DE + k as u64);
        let kernel = kernel_name(form);
        let want = elementwise::run(&mut cpu, cp, &kernel, (64, *n), (64, 1), &ins);
        let got = elementwise::run(&mut vk, vp, &kernel, (64, *n), (64, 1), &ins);
        check(form, *n, &ins, &got, &want, &vk.device_info().name);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// The f64-core paths stay exact when the device's division and square
/// root are not: the library's functions with their first result moved by
/// −3 to +4 units (from the low bits of the significand), as a driver
/// within Vulkan's 2.5 ULP (and beyond) may give it, on the reference
/// device against its own `fdiv.df`/`fsqrt.df`, over the same inputs
/// (the near-midpoint quotients and roots are where the correction's last
/// step decides).
#[test]
fn f64core_paths_correct_an_imprecise_driver() {
    let moved = "\tand.64b %t, %A, 7;\n\tisub.64b %t, %t, 3;\n";
    let lib = ir::softf64::library_source();
    let div = "\tfdiv.df %q, %A, %B;\n";
    let sqrt = "\tfsqrt.df %s, %A;\n";
    assert!(lib.contains(div) && lib.contains(sqrt));
    let mut src = lib
        .replace(div, &format!("{div}{moved}\tiadd.64b %q, %q, %t;\n"))
        .replace(sqrt, &format!("{sqrt}{moved}\tiadd.64b %s, %s, %t;\n"));
    for (name, n, op) in [
        ("ref_div", 2, "fdiv.df %d, %s0, %s1"),
        ("lib_div", 2, "call %d, @__pisa_sd_div_rn(%s0, %s1, %f)"),
        ("ref_sqrt", 1, "fsqrt.df %d, %s0"),
        ("lib_sqrt", 1, "call %d, @__pisa_sd_sqrt_rn(%s0, %f)"),
    ] {
        src.push_str(&format!(
            ".kernel @{name}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off, %d, %s0, %s1;\n\t.reg .32b %id, %f;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, 8;\n\tiadd.64b %po, %po, %off;\n\tld.global.64b %s0, [%pi];\n",
            8 * n
        ));
        if n == 2 {
            src.push_str("\tld.global.64b %s1, [%pi + 8];\n");
        }
        src.push_str(&format!(
            "\tmov.32b %f, 0;\n\t{op};\n\tst.global.64b [%po], %d;\n\treturn;\n}}\n"
        ));
    }
    let m = pisa_translator::assemble("moved.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let p = cpu.load(&m).unwrap();
    for (k, (op, n)) in [("div", 2), ("sqrt", 1)].into_iter().enumerate() {
        let ins = f64core_inputs(n, random_items() * 2, 0xBAD + k as u64);
        let want = elementwise::run(&mut cpu, p, &format!("ref_{op}"), (64, n), (64, 1), &ins);
        let got = elementwise::run(&mut cpu, p, &format!("lib_{op}"), (64, n), (64, 1), &ins);
        check(
            op,
            n,
            &ins,
            &got,
            &want,
            "the reference device, results moved",
        );
    }
}

/// Whether `words` compute a `GLSL.std.450 Fma` on f64 (an `OpExtInst`
/// 50 whose result type is `OpTypeFloat 64`).
fn fma_on_f64(words: &[u32]) -> bool {
    let mut f64_types = Vec::new();
    let mut found = false;
    let mut at = 5;
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xFFFF);
        let inst = &words[at..(at + len.max(1)).min(words.len())];
        if op == 22 && inst.len() == 3 && inst[2] == 64 {
            f64_types.push(inst[1]);
        }
        if op == 12 && inst.len() >= 5 && inst[4] == 50 && f64_types.contains(&inst[1]) {
            found = true;
        }
        at += len.max(1);
    }
    found
}

/// Where the probe found the driver's f64 `Fma` fused
/// (`Options::fma_f64_native_fused`, `fma64=fused`), `fmad.df` to nearest
/// without `.ftz`/`.dsat` is that `Fma` with the float core's NaN rules;
/// every other `fmad.df` stays the library's. Lavapipe's f64 `Fma` rounds
/// twice, so it runs here on triples whose products are exact (the fused
/// and the unfused sums are one value): signed zeros, infinities,
/// subnormals and NaNs of every position, bit for bit against the
/// reference device (lavapipe's own NaNs differ: its default NaN is
/// negative, a signaling source comes back unquieted).
#[test]
fn fmad_df_on_a_fused_fma_is_the_drivers_with_the_nan_rules() {
    let forms = vec![("fmad.df".to_string(), 3, Out::Value)];
    let src = program_of(forms);
    let m = pisa_translator::assemble("fma64.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    // the forms that take the device's Fma
    let native = ir::exactf64::Native {
        fma_f64: true,
        ..Default::default()
    };
    let fma = pisa_translator::assemble(
        "forms.pisa",
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %a;\n\tfmad.df %a, %a, %a, %a;\n\tfmad.re.df %a, %a, %a, %a;\n\tfmad.rz.df %a, %a, %a, %a;\n\tfmad.ftz.df %a, %a, %a, %a;\n\tfmad.dsat.df %a, %a, %a, %a;\n\treturn;\n}\n",
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let p = ir::build(&fma);
    let library: Vec<bool> = p.functions[0]
        .pisa_insts()
        .filter(|i| i.opcode == ir::Opcode::Fmad)
        .map(|i| ir::exactf64::df_replacement(i, native).is_some())
        .collect();
    assert_eq!(library, [false, false, true, true, true]);
    let mut vk = common::lavapipe();
    let mut options = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    assert!(!options.fma_f64_native_fused, "not fused unless probed");
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert!(!fma_on_f64(&spv.words), "the library's fmad.df used Fma");
    options.fma_f64_native_fused = true;
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert!(fma_on_f64(&spv.words), "no Fma on f64");
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    // products exact: small significands, one subnormal factor at most
    let values: [u64; 16] = [
        0x0000_0000_0000_0000,
        0x8000_0000_0000_0000,
        0x3FF0_0000_0000_0000, // 1
        0xBFF0_0000_0000_0000, // -1
        0x4000_0000_0000_0000, // 2
        0x4008_0000_0000_0000, // 3
        0xBFE0_0000_0000_0000, // -0.5
        0x3FF8_0000_0000_0000, // 1.5
        0x0010_0000_0000_0000, // 2^-1022
        0x0000_0000_0000_0004, // a subnormal
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        0x7FF8_0000_0000_1234, // quiet NaNs with payloads
        0xFFF8_0000_0000_0042,
        0x7FF0_0000_0000_0001, // signaling NaNs
        0xFFF4_0000_0000_0007,
    ];
    let mut ins = Vec::new();
    for a in values {
        for b in values {
            for c in values {
                // (a subnormal times 2^-1022 or a subnormal underflows
                // inexactly)
                let tiny = |x: u64| x == 0x4 || x == 0x0010_0000_0000_0000;
                if !(tiny(a) && tiny(b)) {
                    ins.extend([a, b, c]);
                }
            }
        }
    }
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    let want = elementwise::run(&mut cpu, cp, "fmad_df", (64, 3), (64, 1), &ins);
    let got = elementwise::run(&mut vk, vp, "fmad_df", (64, 3), (64, 1), &ins);
    check(
        "fmad.df (Fma)",
        3,
        &ins,
        &got,
        &want,
        &vk.device_info().name,
    );
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}
