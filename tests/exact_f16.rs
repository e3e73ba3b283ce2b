//! The exact 16-bit operations and rounded conversions without f64
//! (`translator/src/ir/exactf32/`, docs/numerics.md): on `.hf`/`.bf` and
//! packed `.hfx2`/`.bfx2`, `fadd`/`fsub`/`fmul`/`fmad` in the directed modes
//! and `.rna`, `fdiv.fast`, `frcp`, `fsqrt.fast`, `fmul.full`; `ftrunc`
//! from `.f` into `.hf`/`.bf` and `ftrunc2` in every mode; `i2f` into `.f`,
//! `.hf`, `.bf` in the directed modes, with `.dsat`, and into `.bf`; `.ftz`
//! and `.dsat` included. Computed in integers by the bundled library, bit
//! for bit against the reference device's own float core: every pair (or
//! triple, or single) of a set of special and boundary values, then random
//! items.
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

/// A register kind: its declaration, its load/store suffix and its bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    B8,
    B16,
    B32,
    B64,
    /// a packed pair, `.v2.16b`
    V2,
}

impl Kind {
    fn decl(self) -> &'static str {
        match self {
            Kind::B8 => ".8b",
            Kind::B16 => ".16b",
            Kind::B32 => ".32b",
            Kind::B64 => ".64b",
            Kind::V2 => ".v2.16b",
        }
    }
    fn mov(self) -> &'static str {
        &self.decl()[1..]
    }
    fn bits(self) -> u32 {
        match self {
            Kind::B8 => 8,
            Kind::B16 => 16,
            Kind::B32 | Kind::V2 => 32,
            Kind::B64 => 64,
        }
    }
    fn bytes(self) -> u32 {
        self.bits() / 8
    }
}

/// How a form's sources are drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    /// 16-bit encodings of `.hf` (false) or `.bf` (true)
    Half(bool),
    /// packed pairs of them
    Pair(bool),
    /// f32 encodings near the 16-bit format's ties (`.bf`: true)
    F32(bool),
    /// integers of this many bits
    Int(u32),
}

struct Form {
    text: String,
    n: usize,
    src: Src,
    sk: Kind,
    dk: Kind,
}

fn form(text: String, n: usize, src: Src, sk: Kind, dk: Kind) -> Form {
    Form {
        text,
        n,
        src,
        sk,
        dk,
    }
}

fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for (ty, bf) in [("hf", false), ("bf", true)] {
        let h = |t: String, n| form(t, n, Src::Half(bf), Kind::B16, Kind::B16);
        for m in [".rz", ".ru", ".rd", ".rna"] {
            for op in ["fadd", "fsub", "fmul"] {
                v.push(h(format!("{op}{m}.{ty}"), 2));
            }
            v.push(h(format!("fmad{m}.{ty}"), 3));
        }
        v.push(h(format!("fdiv.fast.{ty}"), 2));
        v.push(h(format!("fdiv.ftz.fast.{ty}"), 2));
        v.push(h(format!("fsqrt.fast.{ty}"), 1));
        v.push(h(format!("frcp.{ty}"), 1));
        v.push(h(format!("frcp.ftz.{ty}"), 1));
        v.push(h(format!("fadd.rz.ftz.dsat.{ty}"), 2));
        v.push(h(format!("fsub.rna.dsat.{ty}"), 2));
        v.push(h(format!("fmul.ru.ftz.{ty}"), 2));
        v.push(h(format!("fmad.rd.ftz.dsat.{ty}"), 3));
        // to nearest: Vulkan has no rounding into bfloat16, nor into half
        // without `shaderFloat16` (what the library is linked for here)
        v.push(h(format!("fadd.{ty}"), 2));
        v.push(h(format!("fsub.{ty}"), 2));
        v.push(h(format!("fmul.{ty}"), 2));
        if bf {
            v.push(h("fsub.ftz.bf".into(), 2));
            v.push(h("fmul.dsat.bf".into(), 2));
            v.push(h("fmul.re.ftz.dsat.bf".into(), 2));
        }
        for m in ["", ".rz", ".ru", ".rd", ".rna", ".rz.ftz", ".ru.dsat"] {
            v.push(form(
                format!("fmul.full{m}.{ty}"),
                2,
                Src::Half(bf),
                Kind::B16,
                Kind::B32,
            ));
        }
        let p = |t: String, n| form(t, n, Src::Pair(bf), Kind::V2, Kind::V2);
        v.push(p(format!("fadd.rz.{ty}x2"), 2));
        v.push(p(format!("fsub.ru.ftz.{ty}x2"), 2));
        v.push(p(format!("fmul.rd.dsat.{ty}x2"), 2));
        v.push(p(format!("fmad.rna.{ty}x2"), 3));
        v.push(p(format!("fsqrt.fast.{ty}x2"), 1));
        v.push(p(format!("fsub.{ty}x2"), 2));
        v.push(p(format!("fmul.{ty}x2"), 2));
        if bf {
            v.push(p("fadd.bfx2".into(), 2));
            v.push(p("fmul.ftz.bfx2".into(), 2));
        }
        for m in [
            "",
            ".re",
            ".rz",
            ".ru",
            ".rd",
            ".rna",
            ".rz.ftz.dsat",
            ".ru.dsat",
        ] {
            v.push(form(
                format!("ftrunc.{ty}.f{m}"),
                1,
                Src::F32(bf),
                Kind::B32,
                Kind::B16,
            ));
        }
        for m in ["", ".rd", ".rna.ftz"] {
            v.push(form(
                format!("ftrunc2.{ty}x2{m}"),
                2,
                Src::F32(bf),
                Kind::B32,
                Kind::V2,
            ));
        }
    }
    let ints = [
        ("f", "s32", ".rz"),
        ("f", "u32", ".ru"),
        ("f", "s64", ".rd"),
        ("f", "u64", ".rna"),
        ("f", "s16", ".rz.dsat"),
        ("hf", "s16", ".rz"),
        ("hf", "u16", ".ru"),
        ("hf", "s32", ".rd"),
        ("hf", "u64", ".rna"),
        ("hf", "s8", ".ru"),
        ("hf", "u32", ".dsat"),
        ("hf", "s64", ".ru.dsat"),
        ("bf", "s32", ""),
        ("bf", "u8", ""),
        ("bf", "s64", ".rz"),
        ("bf", "u32", ".rna"),
        ("bf", "u16", ".rd"),
        ("bf", "s16", ".dsat"),
        ("bf", "u64", ""),
    ];
    for (to, from, m) in ints {
        let bits: u32 = from[1..].parse().unwrap();
        let sk = match bits {
            8 => Kind::B8,
            16 => Kind::B16,
            32 => Kind::B32,
            _ => Kind::B64,
        };
        let dk = if to == "f" { Kind::B32 } else { Kind::B16 };
        v.push(form(
            format!("i2f.{to}.{from}{m}"),
            1,
            Src::Int(bits),
            sk,
            dk,
        ));
    }
    v
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for f in forms() {
        let regs: Vec<String> = (0..f.n).map(|i| format!("%s{i}")).collect();
        src.push_str(&format!(
            ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg {} %d;\n\t.reg {} {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %po, %po, %off;\n",
            kernel_name(&f.text),
            f.dk.decl(),
            f.sk.decl(),
            regs.join(", "),
            f.sk.bytes() as usize * f.n,
            f.dk.bytes(),
        ));
        for (i, r) in regs.iter().enumerate() {
            src.push_str(&format!(
                "\tld.global.{} {r}, [%pi + {}];\n",
                f.sk.mov(),
                f.sk.bytes() as usize * i
            ));
        }
        src.push_str(&format!(
            "\t{} %d, {};\n\tst.global.{} [%po], %d;\n\treturn;\n}}\n",
            f.text,
            regs.join(", "),
            f.dk.mov()
        ));
    }
    src
}

/// Special and boundary encodings of `.hf`: zeros, subnormals, the normal
/// range's ends, ones, infinities, quiet and signaling NaNs of both signs.
const EDGES_HF: [u64; 20] = [
    0, 0x8000, 1, 0x8001, 0x03FF, 0x8200, 0x0400, 0x8401, 0x3C00, 0xBC00, 0x3C01, 0x4200, 0x7BFF,
    0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE12, 0x7C01, 0x1400,
];

/// The same of `.bf`.
const EDGES_BF: [u64; 20] = [
    0, 0x8000, 1, 0x8001, 0x007F, 0x8040, 0x0080, 0x8081, 0x3F80, 0xBF80, 0x3F81, 0x4040, 0x7F7F,
    0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x3400,
];

/// f32 encodings for `ftrunc`: zeros, subnormals, ends, infinities, NaNs
/// with payloads, and values at and next to ties of both 16-bit formats.
const EDGES_F32: [u64; 24] = [
    0,
    0x8000_0000,
    1,
    0x8040_0000,
    0x0080_0000,
    0x3F80_0000,
    0xBF80_1000,
    0x3F80_1001,
    0x3F80_8000,
    0x3F81_8000,
    0x477F_F000,
    0x477F_EFFF,
    0x3380_0000,
    0x3300_0001,
    0x7F7F_8000,
    0xFF7F_7FFF,
    0x7F7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFE2_B98A,
    0x7F80_0001,
    0x0080_8000,
    0x387F_C000,
];

fn edges(src: Src) -> Vec<u64> {
    match src {
        Src::Half(bf) | Src::Pair(bf) => {
            if bf {
                EDGES_BF.to_vec()
            } else {
                EDGES_HF.to_vec()
            }
        }
        Src::F32(_) => EDGES_F32.to_vec(),
        Src::Int(bits) => {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let top = 1u64 << (bits - 1);
            [
                0,
                1,
                2,
                3,
                u64::MAX,
                top,
                top - 1,
                top + 1,
                2049,
                2051,
                4097,
                0x7FF,
                0xFFF0,
                0x0100_0001,
                0x0100_0003,
                0x8000_0080,
                0xFFFF_FF80,
                0xFFF0_0000_0000_0800,
                0x0020_0000_0000_0001,
                65520,
            ]
            .iter()
            .map(|v| v & mask)
            .collect()
        }
    }
}

/// One random source of `src`: uniform encodings, nearby exponents
/// (cancellation, subnormal results), short significands (exact results
/// and ties), and for f32 values at or next to a 16-bit tie.
fn random_source(src: Src, next: &mut dyn FnMut() -> u64, kind: u64, e: u64) -> u64 {
    let half = |bf: bool, next: &mut dyn FnMut() -> u64| -> u64 {
        let (fb, eb) = if bf { (7, 8) } else { (10, 5) };
        let sign = (next() & 1) << 15;
        match kind {
            0 => next() & 0xFFFF,
            1 | 2 => {
                let emax = (1 << eb) - 2;
                let exp = (e % emax + next() % 4).min(emax);
                sign | exp << fb | (next() & ((1 << fb) - 1))
            }
            _ => {
                let mid = (1 << (eb - 1)) - 1;
                let exp = mid - 2 + next() % 5;
                let m = next() % 8;
                sign | exp << fb | m << (fb - 3)
            }
        }
    };
    match src {
        Src::Half(bf) => half(bf, next),
        Src::Pair(bf) => half(bf, next) | half(bf, next) << 16,
        Src::F32(bf) => {
            let low = if bf { 16 } else { 13 };
            let sign = (next() & 1) << 31;
            // exponents around the 16-bit format's range
            let exp = if bf {
                next() % 256
            } else {
                127 - 30 + next() % 48
            };
            let frac = next() & 0x7F_FFFF;
            let frac = match kind {
                0 => frac,
                1 => (frac & !((1 << low) - 1)) | 1 << (low - 1),
                2 => (frac & !((1 << low) - 1)) | ((1 << (low - 1)) + (next() % 3) - 1),
                _ => frac & !((1 << low) - 1),
            };
            sign | exp.min(255) << 23 | frac
        }
        Src::Int(bits) => {
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let v = match kind {
                0 => next(),
                1 => next() >> (next() % 64),
                // a 16-bit or bfloat16 tie
                2 => ((next() % 4096) | 1) << (next() % 50) << 1 | 1 << (next() % 40),
                _ => (next() >> (next() % 64)).wrapping_neg(),
            };
            v & mask
        }
    }
}

/// The sources of an `n`-source form: every combination of its edges (for
/// three sources, the first 12), then `random` random items.
fn inputs(src: Src, n: usize, random: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    let ed = edges(src);
    // packed pairs: edges in the low lane, a random value in the high one
    let pair = |x: u64, next: &mut dyn FnMut() -> u64| -> u64 {
        match src {
            Src::Pair(_) => x | random_source(src, next, 0, 0) << 16 & 0xFFFF_0000,
            _ => x,
        }
    };
    let mut v = Vec::new();
    match n {
        1 => {
            for a in &ed {
                v.push(pair(*a, &mut next));
            }
        }
        2 => {
            for a in &ed {
                for b in &ed {
                    v.push(pair(*a, &mut next));
                    v.push(pair(*b, &mut next));
                }
            }
        }
        _ => {
            for a in &ed[..12] {
                for b in &ed[..12] {
                    for c in &ed[..12] {
                        v.push(pair(*a, &mut next));
                        v.push(pair(*b, &mut next));
                        v.push(pair(*c, &mut next));
                    }
                }
            }
        }
    }
    for k in 0..random {
        let kind = k as u64 % 4;
        let e = next() % 256;
        for _ in 0..n {
            v.push(random_source(src, &mut next, kind, e));
        }
    }
    v
}

/// The reference device with the program as written (its own float core),
/// and with the exact library linked in.
/// With `f64`, the library with f64 cores (`ir::exactf64`).
fn cpu_devices(src: &str, f64: bool) -> (CpuDevice, ProgramId, ProgramId) {
    let m = pisa_translator::assemble("exact_f16.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    // without `shaderFloat16`: `.hf` to nearest is a library call too
    if f64 {
        ir::exactf64::link(&mut linked, ir::exactf64::Native::default());
    } else {
        ir::exactf32::link_for(&mut linked, false);
    }
    let library = cpu.load_program(&linked, src).unwrap();
    (cpu, reference, library)
}

/// Random items per form: `ci`, or 1,000,000 in the full tier
/// (`PISA_NUMERICS_FULL=1`, docs/numerics.md), or a tenth of `ci` in the
/// quick tier.
fn random_items(ci: usize) -> usize {
    if std::env::var("PISA_NUMERICS_FULL").is_ok_and(|v| v == "1") {
        1_000_000
    } else if quick_tier() {
        ci / 10
    } else {
        ci
    }
}

/// The quick tier (`PISA_NUMERICS_QUICK=1`): the mutation run's sample
/// (docs/testing.md, "The numerics passes"), a tenth or less of CI's.
fn quick_tier() -> bool {
    std::env::var("PISA_NUMERICS_QUICK").is_ok_and(|v| v == "1")
}

fn check(f: &Form, ins: &[u64], got: &[u64], want: &[u64], on: &str) {
    let n = f.n;
    let mismatches = got.iter().zip(want).filter(|(g, w)| g != w).count();
    // the record of a run (`--nocapture`; docs/numerics.md)
    eprintln!(
        "{on}: {}: {} items, {mismatches} mismatches",
        f.text,
        got.len()
    );
    let wrong: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(6)
        .map(|(i, (g, w))| format!("{:#x?} gives {g:#x}, want {w:#x}", &ins[i * n..i * n + n]))
        .collect();
    let count = got.iter().zip(want).filter(|(g, w)| g != w).count();
    assert!(
        wrong.is_empty(),
        "{} on {on}: {count} wrong: {}",
        f.text,
        wrong.join("; ")
    );
}

/// Every form is replaced by a library call (none reaches the back end's
/// f64 lowering).
#[test]
fn every_form_is_replaced() {
    let src = program();
    let m = pisa_translator::assemble("exact_f16.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let p = ir::build(&m);
    for f in &p.functions {
        for i in f.pisa_insts() {
            let text = i.mnemonic_text();
            if forms().iter().any(|f| f.text == text) {
                assert!(
                    ir::exactf32::replacement_for(i, false).is_some(),
                    "{text} is not replaced"
                );
            }
        }
    }
}

/// The library on the reference device: the edge combinations and 3,000
/// random items per form (1,000,000 in the full tier).
#[test]
fn library_on_the_reference_device_is_exact() {
    reference_device(false);
}

/// The same with the f64 cores (`ir::exactf64`).
#[test]
fn f64_library_on_the_reference_device_is_exact() {
    reference_device(true);
}

fn reference_device(f64: bool) {
    let src = program();
    let (mut cpu, reference, library) = cpu_devices(&src, f64);
    for (k, f) in forms().iter().enumerate() {
        let ins = inputs(f.src, f.n, random_items(3_000), 0xF16E + k as u64);
        let kernel = kernel_name(&f.text);
        let io = ((f.sk.bits(), f.n), (f.dk.bits(), 1));
        let want = elementwise::run(&mut cpu, reference, &kernel, io.0, io.1, &ins);
        let got = elementwise::run(&mut cpu, library, &kernel, io.0, io.1, &ins);
        check(f, &ins, &got, &want, "the reference device, library linked");
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
/// the edge combinations and 2,000 random items per form (1,000,000 in the
/// full tier).
#[test]
fn library_on_vulkan_without_f64_is_exact() {
    let src = program();
    let m = pisa_translator::assemble("exact_f16.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let info_options = pisa_vk_runtime::translate_options_with(
        &pisa_interp::cpu_device_info(0),
        Some("exact-f32"),
    );
    assert!(info_options.exact_f32);
    let options = pisa_translator::spirv::Options::for_loop_cap(true).with_exact_f32();
    vulkan(&m, &options);
}

/// The same on lavapipe with the f64 path (`ir::exactf64`, what a device
/// with `shaderFloat64` gets): every form is a call of the library.
#[test]
fn f64_library_on_vulkan_is_exact() {
    let src = program();
    let m = pisa_translator::assemble("exact_f16.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let options = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    vulkan(&m, &options);
}

/// The f32 path on lavapipe as a device without `shaderFloat16` gets it:
/// `.hf` to nearest rounded by the library too.
#[test]
fn library_on_vulkan_without_float16_is_exact() {
    let src = program();
    let m = pisa_translator::assemble("exact_f16.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut options = pisa_translator::spirv::Options::for_loop_cap(true).with_exact_f32();
    options.float16 = false;
    vulkan(&m, &options);
}

fn vulkan(m: &pisa_translator::Module, options: &pisa_translator::spirv::Options) {
    let spv = pisa_translator::spirv::translate_with(m, options).unwrap();
    assert_eq!(
        declares_float64(&spv.words),
        !options.exact_f32,
        "Float64 declared"
    );
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut vk = common::lavapipe();
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(m).unwrap();
    for (k, f) in forms().iter().enumerate() {
        let ins = inputs(f.src, f.n, random_items(2_000), 0x5EED16 + k as u64);
        let kernel = kernel_name(&f.text);
        let io = ((f.sk.bits(), f.n), (f.dk.bits(), 1));
        let want = elementwise::run(&mut cpu, cp, &kernel, io.0, io.1, &ins);
        let got = elementwise::run(&mut vk, vp, &kernel, io.0, io.1, &ins);
        check(f, &ins, &got, &want, &vk.device_info().name);
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}
