//! Rounding modes Vulkan does not have (`.rz`, `.ru`, `.rd`, `.rna`) on
//! `fadd`, `fsub`, `fmul`, `fmad` (`.f`, `.hf`, `.bf`; sums on `.df`),
//! emulated by the translator (calls of the exact libraries: `ir::exactf64`,
//! and `ir::softf64` for `.df`), issue 9:
//! hand-derived values on both devices, then every form over edge values
//! (zeros, subnormals, the largest finite values, infinities, NaNs, ties,
//! cancellations) and random encodings, the Vulkan device bit for bit
//! against the reference device.

use pisa_interp::CpuDevice;
mod common;

use common::elementwise;
use pisa_vk_runtime::{Device, ProgramId, Runtime, RuntimeOptions};
use std::time::Duration;

const MODES: [&str; 4] = ["rz", "ru", "rd", "rna"];

/// Each mode plain and with `.ftz` and `.dsat` (which run the same code
/// alone; each pipeline costs llvmpipe a fifth of a second to compile):
/// (qualifiers, kernel name part).
const QUALS: [(&str, &str); 2] = [("", ""), (".ftz.dsat", "_ftz_dsat")];

/// [`QUALS`] for an instruction (`fdiv` and `fsqrt` have no `.dsat`).
fn quals(op: &str) -> [(&'static str, &'static str); 2] {
    if matches!(op, "fdiv" | "fsqrt") {
        [("", ""), (".ftz", "_ftz")]
    } else {
        QUALS
    }
}

/// (type, bits) of the floating-point formats.
const TYPES: [(&str, u32); 4] = [("f", 32), ("hf", 16), ("bf", 16), ("df", 64)];

/// (instruction, sources) for a type.
fn ops(ty: &str) -> Vec<(&'static str, usize)> {
    let mut v = vec![("fadd", 2), ("fsub", 2), ("fmul", 2), ("fmad", 3)];
    // the spec gives quotients and roots a rounding mode on .f and .df only
    if ty == "f" || ty == "df" {
        v.extend([("fdiv", 2), ("fsqrt", 1)]);
    }
    v
}

/// One kernel per (instruction, mode, type): work-item i reads its sources
/// at in[n·i..], writes out[i].
fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for (ty, bits) in TYPES {
        let bytes = bits / 8;
        for (op, n) in ops(ty) {
            for (m, (q, qn)) in MODES
                .iter()
                .flat_map(|m| quals(op).into_iter().map(move |q| (m, q)))
            {
                let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
                src.push_str(&format!(
                    ".kernel @{op}_{m}{qn}_{ty}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .{bits}b %d, {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %po, %po, %off;\n",
                    regs.join(", "),
                    bytes * n as u32
                ));
                for (i, r) in regs.iter().enumerate() {
                    src.push_str(&format!(
                        "\tld.global.{bits}b {r}, [%pi + {}];\n",
                        i as u32 * bytes
                    ));
                }
                src.push_str(&format!(
                    "\t{op}.{m}{q}.{ty} %d, {};\n\tst.global.{bits}b [%po], %d;\n\treturn;\n}}\n",
                    regs.join(", ")
                ));
            }
        }
    }
    src
}

fn load(dev: &mut dyn Device) -> ProgramId {
    let m = pisa_translator::assemble("rounding_modes.pisa", &program())
        .unwrap_or_else(|d| panic!("{d}"));
    dev.load(&m).unwrap()
}

fn vulkan() -> Runtime {
    Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timeout: Duration::from_secs(60),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// Values derived by hand (spec 03 §2's modes; IEEE 754 §4.3, §6.3).
#[test]
fn hand_derived_values_on_both_devices() {
    // (kernel, bits, sources, result)
    let cases: &[(&str, u32, &[u64], u64)] = &[
        // 1 + 2^-30: below half an ulp of 1
        ("fadd_ru_f", 32, &[0x3F80_0000, 0x3080_0000], 0x3F80_0001),
        ("fadd_rz_f", 32, &[0x3F80_0000, 0x3080_0000], 0x3F80_0000),
        ("fadd_rd_f", 32, &[0xBF80_0000, 0xB080_0000], 0xBF80_0001),
        ("fadd_rz_f", 32, &[0xBF80_0000, 0xB080_0000], 0xBF80_0000),
        // 1 + 2^-24: a tie, away from zero
        ("fadd_rna_f", 32, &[0x3F80_0000, 0x3380_0000], 0x3F80_0001),
        // exact cancellation: −0 only rounding down
        ("fsub_rd_f", 32, &[0x3F80_0000, 0x3F80_0000], 0x8000_0000),
        ("fsub_rz_f", 32, &[0x3F80_0000, 0x3F80_0000], 0),
        // overflow: the largest finite value unless rounding away
        ("fmul_rz_f", 32, &[0x7F7F_FFFF, 0x4000_0000], 0x7F7F_FFFF),
        ("fmul_rd_f", 32, &[0x7F7F_FFFF, 0x4000_0000], 0x7F7F_FFFF),
        ("fmul_ru_f", 32, &[0x7F7F_FFFF, 0x4000_0000], 0x7F80_0000),
        ("fmul_ru_f", 32, &[0xFF7F_FFFF, 0x4000_0000], 0xFF7F_FFFF),
        // half the smallest subnormal: a tie between 0 and it
        ("fmul_ru_f", 32, &[0x0000_0001, 0x3F00_0000], 0x0000_0001),
        ("fmul_rd_f", 32, &[0x0000_0001, 0x3F00_0000], 0),
        ("fmul_rna_f", 32, &[0x0000_0001, 0x3F00_0000], 0x0000_0001),
        ("fmul_rd_f", 32, &[0x8000_0001, 0x3F00_0000], 0x8000_0001),
        // (1 + 2^-23)(1 − 2^-24) − 1 = 2^-24 − 2^-47, exact in f32
        (
            "fmad_rz_f",
            32,
            &[0x3F80_0001, 0x3F7F_FFFF, 0xBF80_0000],
            0x337F_FFFE,
        ),
        // 1/3 = 0x3EAAAAAA.AA...: down and toward zero keep ...AA, up ...AB
        ("fdiv_rz_f", 32, &[0x3F80_0000, 0x4040_0000], 0x3EAA_AAAA),
        ("fdiv_ru_f", 32, &[0x3F80_0000, 0x4040_0000], 0x3EAA_AAAB),
        ("fdiv_rd_f", 32, &[0xBF80_0000, 0x4040_0000], 0xBEAA_AAAB),
        // sqrt 2 = 1.41421356.. lies between 0x3FB504F3 and 0x3FB504F4
        ("fsqrt_rd_f", 32, &[0x4000_0000], 0x3FB5_04F3),
        ("fsqrt_ru_f", 32, &[0x4000_0000], 0x3FB5_04F4),
        // 1 + 2^-12 in half: a quarter ulp
        ("fadd_ru_hf", 16, &[0x3C00, 0x0C00], 0x3C01),
        ("fadd_rz_hf", 16, &[0x3C00, 0x0C00], 0x3C00),
        // bfloat16: 1 + 2^-8 is a tie (ulp 2^-7)
        ("fadd_rna_bf", 16, &[0x3F80, 0x3B80], 0x3F81),
        ("fadd_rz_bf", 16, &[0x3F80, 0x3B80], 0x3F80),
        // f64: 1 + 2^-60, a tie at 1 + 2^-53, an overflow
        (
            "fadd_ru_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x3C30_0000_0000_0000],
            0x3FF0_0000_0000_0001,
        ),
        (
            "fadd_rz_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x3C30_0000_0000_0000],
            0x3FF0_0000_0000_0000,
        ),
        (
            "fadd_rna_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x3CA0_0000_0000_0000],
            0x3FF0_0000_0000_0001,
        ),
        (
            "fadd_rz_df",
            64,
            &[0x7FEF_FFFF_FFFF_FFFF, 0x7FEF_FFFF_FFFF_FFFF],
            0x7FEF_FFFF_FFFF_FFFF,
        ),
        (
            "fadd_ru_df",
            64,
            &[0x7FEF_FFFF_FFFF_FFFF, 0x7FEF_FFFF_FFFF_FFFF],
            0x7FF0_0000_0000_0000,
        ),
        (
            "fsub_rd_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x3FF0_0000_0000_0000],
            1 << 63,
        ),
        // f64 products, quotients, roots: overflow, half the smallest
        // subnormal, 1/3, sqrt 2 (0x3FF6A09E667F3BCD is above it)
        (
            "fmul_rz_df",
            64,
            &[0x7FEF_FFFF_FFFF_FFFF, 0x4000_0000_0000_0000],
            0x7FEF_FFFF_FFFF_FFFF,
        ),
        (
            "fmul_ru_df",
            64,
            &[0x7FEF_FFFF_FFFF_FFFF, 0x4000_0000_0000_0000],
            0x7FF0_0000_0000_0000,
        ),
        ("fmul_ru_df", 64, &[1, 0x3FE0_0000_0000_0000], 1),
        ("fmul_rd_df", 64, &[1, 0x3FE0_0000_0000_0000], 0),
        ("fmul_rna_df", 64, &[1, 0x3FE0_0000_0000_0000], 1),
        (
            "fdiv_rz_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x4008_0000_0000_0000],
            0x3FD5_5555_5555_5555,
        ),
        (
            "fdiv_ru_df",
            64,
            &[0x3FF0_0000_0000_0000, 0x4008_0000_0000_0000],
            0x3FD5_5555_5555_5556,
        ),
        (
            "fsqrt_rd_df",
            64,
            &[0x4000_0000_0000_0000],
            0x3FF6_A09E_667F_3BCC,
        ),
        (
            "fsqrt_ru_df",
            64,
            &[0x4000_0000_0000_0000],
            0x3FF6_A09E_667F_3BCD,
        ),
        // NaNs: the first NaN source, quieted
        ("fadd_rz_f", 32, &[0x3F80_0000, 0x7F80_0001], 0x7FC0_0001),
        ("fmad_ru_f", 32, &[0x7F80_0000, 0, 0x3F80_0000], 0x7FC0_0000),
    ];
    let mut vk = vulkan();
    let mut cpu = CpuDevice::new();
    let vp = load(&mut vk);
    let cp = load(&mut cpu);
    for (kernel, bits, srcs, want) in cases {
        for (dev, prog) in [
            (&mut vk as &mut dyn Device, vp),
            (&mut cpu as &mut dyn Device, cp),
        ] {
            let got = elementwise::run(dev, prog, kernel, (*bits, srcs.len()), (*bits, 1), srcs)[0];
            assert_eq!(
                got,
                *want,
                "{kernel}{srcs:x?} on {}: {got:#x}, want {want:#x}",
                dev.device_info().name
            );
        }
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Edge values of a format.
fn edges(bits: u32) -> Vec<u64> {
    match bits {
        32 => vec![
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x7F7F_FFFF,
            0xFF7F_FFFF,
            0x7F80_0000,
            0xFF80_0000,
            0x3F80_0000,
            0xBF80_0000,
            0x0080_0000,
            0x807F_FFFF,
            0x3380_0000,
            0x3F80_0001,
            0x4B80_0000,
            0x7FC0_0000,
            0x7F80_0001,
        ],
        64 => vec![
            0,
            1 << 63,
            1,
            0x7FEF_FFFF_FFFF_FFFF,
            0xFFEF_FFFF_FFFF_FFFF,
            0x7FF0_0000_0000_0000,
            0x3FF0_0000_0000_0000,
            0xBFF0_0000_0000_0000,
            0x3CA0_0000_0000_0000,
            0x3FF0_0000_0000_0001,
            0x0010_0000_0000_0000,
            0x7FF8_0000_0000_0000,
        ],
        _ => vec![
            0, 0x8000, 1, 0x8001, 0x7BFF, 0xFBFF, 0x7C00, 0x3C00, 0xBC00, 0x0400, 0x3C01, 0x7F7F,
            0xFF7F, 0x7F80, 0x3F80, 0x0080, 0x7E00, 0x1400, 0x1000,
        ],
    }
}

/// `count` rows of `n` sources: edge values, near-copies of the row's first
/// source (cancellations, ties) and random encodings with moderate
/// exponents, from a fixed seed.
fn inputs(bits: u32, n: usize, count: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let e = edges(bits);
    let mut out = Vec::with_capacity(count * n);
    for _ in 0..count {
        let first = out.len();
        for j in 0..n {
            let r = next() % 10;
            let v = if r < 3 {
                e[(next() % e.len() as u64) as usize]
            } else if r < 6 && j > 0 {
                let flips = [0, 1, 2, 1 << (bits - 1)];
                out[first] ^ flips[(next() % 4) as usize]
            } else {
                let v = next() & mask;
                match bits {
                    32 if r < 8 => (v & 0x807F_FFFF) | ((100 + next() % 50) << 23),
                    64 if r < 8 => (v & 0x800F_FFFF_FFFF_FFFF) | ((1000 + next() % 50) << 52),
                    _ => v,
                }
            };
            out.push(v & mask);
        }
    }
    out
}

#[test]
fn every_form_matches_the_reference_device_bit_for_bit() {
    let mut vk = vulkan();
    let mut cpu = CpuDevice::new();
    let vp = load(&mut vk);
    let cp = load(&mut cpu);
    let mut compared = 0;
    for (ty, bits) in TYPES {
        for (op, n) in ops(ty) {
            for (k, (m, (_, qn))) in MODES
                .iter()
                .flat_map(|m| quals(op).into_iter().map(move |q| (m, q)))
                .enumerate()
            {
                let kernel = format!("{op}_{m}{qn}_{ty}");
                // the plain forms get more inputs than the .ftz/.dsat ones
                let count = if qn.is_empty() { 1024 } else { 256 };
                let ins = inputs(bits, n, count, 0x9E37_79B9 + k as u64 * 7 + bits as u64);
                let want = elementwise::run(&mut cpu, cp, &kernel, (bits, n), (bits, 1), &ins);
                let got = elementwise::run(&mut vk, vp, &kernel, (bits, n), (bits, 1), &ins);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g,
                        w,
                        "{kernel}{:x?}: {} gives {g:#x}, the reference device {w:#x}",
                        &ins[i * n..i * n + n],
                        vk.device_info().name
                    );
                }
                compared += got.len();
            }
        }
    }
    // 6 instructions × 4 modes on .f and .df, 4 × 4 on .hf and .bf, each
    // plain and with .ftz(.dsat)
    assert_eq!(compared, 80 * (1024 + 256));
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Every translated form passes spirv-val, with and without llvmpipe's
/// workarounds.
#[test]
fn the_forms_pass_spirv_val() {
    let m = pisa_translator::assemble("rounding_modes.pisa", &program()).unwrap();
    for options in [
        pisa_translator::spirv::Options::default().with_f64(true),
        pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true),
    ] {
        let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
        if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
            r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
        }
    }
}

/// The conversions with a rounding mode (15 §4.8-4.10): one kernel per
/// (instruction, qualifiers) writing its source in all five modes, so that
/// llvmpipe compiles few pipelines. (name, instruction, destination bits,
/// source bits, sources).
const CONVERSIONS: &[(&str, &str, u32, u32, usize)] = &[
    ("ftrunc_f_df", "ftrunc.f.df", 32, 64, 1),
    ("ftrunc_hf_f", "ftrunc.hf.f", 16, 32, 1),
    ("ftrunc_bf_f", "ftrunc.bf.f", 16, 32, 1),
    ("ftrunc_hf_df", "ftrunc.hf.df", 16, 64, 1),
    ("ftrunc_bf_df", "ftrunc.bf.df", 16, 64, 1),
    ("ftrunc2_hfx2", "ftrunc2.hfx2", 32, 32, 2),
    ("ftrunc2_bfx2", "ftrunc2.bfx2", 32, 32, 2),
    ("i2f_f_s32", "i2f.f.s32", 32, 32, 1),
    ("i2f_f_u32", "i2f.f.u32", 32, 32, 1),
    ("i2f_f_s64", "i2f.f.s64", 32, 64, 1),
    ("i2f_f_u64", "i2f.f.u64", 32, 64, 1),
    ("i2f_hf_s16", "i2f.hf.s16", 16, 16, 1),
    ("i2f_hf_u32", "i2f.hf.u32", 16, 32, 1),
    ("i2f_hf_s64", "i2f.hf.s64", 16, 64, 1),
    ("i2f_bf_s32", "i2f.bf.s32", 16, 32, 1),
    ("i2f_bf_u64", "i2f.bf.u64", 16, 64, 1),
    ("i2f_bf_u8", "i2f.bf.u8", 16, 8, 1),
    ("i2f_df_s64", "i2f.df.s64", 64, 64, 1),
    ("i2f_df_u64", "i2f.df.u64", 64, 64, 1),
    // `{}`: where the mode and qualifiers go
    ("fmul_full_hf", "fmul.full{}.hf", 32, 16, 2),
    ("fmul_full_bf", "fmul.full{}.bf", 32, 16, 2),
    // round to an integral value: the mode is required
    ("frnd_hf", "frnd{}.hf", 16, 16, 1),
    ("frnd_bf", "frnd{}.bf", 16, 16, 1),
    ("frnd_f", "frnd{}.f", 32, 32, 1),
    ("frnd_df", "frnd{}.df", 64, 64, 1),
    // rounded to an integral value (the IR pass `frnd`), then converted
    ("f2i_s32_f", "f2i.s32.f", 32, 32, 1),
    ("f2i_u64_f", "f2i.u64.f", 64, 32, 1),
    ("f2i_s16_hf", "f2i.s16.hf", 16, 16, 1),
    ("f2i_u8_bf", "f2i.u8.bf", 8, 16, 1),
    ("f2i_s64_df", "f2i.s64.df", 64, 64, 1),
    ("f2i_u32_df", "f2i.u32.df", 32, 64, 1),
];

const ALL_MODES: [&str; 5] = ["re", "rz", "ru", "rd", "rna"];

/// Qualifiers after the mode: plain, and the saturating (and for `ftrunc`
/// flushing) form.
fn conversion_quals(instr: &str) -> Vec<(&'static str, &'static str)> {
    if instr.starts_with("i2f") {
        vec![("", ""), (".dsat", "_dsat")]
    } else if instr.starts_with("frnd") {
        vec![("", ""), (".ftz", "_ftz")]
    } else if instr.starts_with("f2i") {
        vec![("", "")]
    } else {
        vec![("", ""), (".ftz.dsat", "_ftz_dsat")]
    }
}

fn conversion_program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for &(name, instr, db, sb, n) in CONVERSIONS {
        let (dbytes, sbytes) = (db.max(8) / 8, sb.max(8) / 8);
        // a packed pair is a .v2.16b register
        let (dreg, dst_ty) = if instr.starts_with("ftrunc2") {
            ("v2.16b", "v2.16b")
        } else {
            ("", "")
        };
        for (q, qn) in conversion_quals(instr) {
            let srcs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
            let dreg = if dreg.is_empty() {
                format!("{db}b")
            } else {
                dreg.to_string()
            };
            let dst_ty = if dst_ty.is_empty() {
                format!("{db}b")
            } else {
                dst_ty.to_string()
            };
            src.push_str(&format!(
                ".kernel @{name}{qn}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .{dreg} %d;\n\t.reg .{sb}b {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %po, %po, %off;\n",
                srcs.join(", "),
                sbytes * n as u32,
                dbytes * 5
            ));
            for (i, s) in srcs.iter().enumerate() {
                src.push_str(&format!(
                    "\tld.global.{sb}b {s}, [%pi + {}];\n",
                    i as u32 * sbytes
                ));
            }
            for (k, m) in ALL_MODES.iter().enumerate() {
                // the default mode is written without a qualifier (frnd
                // requires one)
                let m = if *m == "re" && !instr.starts_with("frnd") {
                    String::new()
                } else {
                    format!(".{m}")
                };
                let instr = if instr.contains("{}") {
                    instr.replace("{}", &format!("{m}{q}"))
                } else {
                    format!("{instr}{m}{q}")
                };
                src.push_str(&format!(
                    "\t{instr} %d, {};\n\tst.global.{dst_ty} [%po + {}], %d;\n",
                    srcs.join(", "),
                    k as u32 * dbytes
                ));
            }
            src.push_str("\treturn;\n}\n");
        }
    }
    src
}

/// Conversion sources of `bits`: edge values (ties of the narrower
/// formats, their overflow thresholds, extreme integers) and random ones.
fn conversion_inputs(bits: u32, float: bool, count: usize, seed: u64) -> Vec<u64> {
    let edges: Vec<u64> = match (bits, float) {
        (64, true) => vec![
            0,
            1 << 63,
            1,
            0x3FF0_0000_1000_0000,
            0xBFF0_0000_1000_0000,
            0x3FF0_0200_0000_0000,
            0x3FF0_1000_0000_0000,
            0x47EF_FFFF_F000_0000,
            0x40EF_FE00_0000_0000,
            0x7FF0_0000_0000_0000,
            0x7FF0_0000_0000_0001,
            0x36A0_0000_0000_0000,
            0x3E70_0000_0000_0000,
        ],
        (32, true) => vec![
            0,
            0x8000_0000,
            1,
            0x3F80_1000,
            0xBF80_1000,
            0x3F80_8000,
            0xBF80_0008,
            0x4974_2400,
            0x477F_F000,
            0x7F80_0000,
            0xFF80_0001,
            0x3380_0000,
            0x0080_0000,
            0x7F7F_FFFF,
        ],
        (64, false) => vec![
            0,
            1,
            u64::MAX,
            1 << 63,
            (1 << 63) - 1,
            (1 << 53) + 1,
            (1 << 24) + 1,
            ((1u64 << 53) + 1).wrapping_neg(),
            65520,
            0x0100_0001,
        ],
        (32, false) => vec![
            0,
            1,
            u32::MAX as u64,
            1 << 31,
            16_777_217,
            65_520,
            70_000,
            0x0100_0001,
        ],
        _ => vec![0, 1, (1 << bits) - 1, 1 << (bits - 1), 255],
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut next = elementwise::random(seed);
    (0..count)
        .map(|i| {
            let r = next();
            let v = if i % 3 == 0 {
                edges[(r % edges.len() as u64) as usize]
            } else if float && i % 3 == 1 {
                // moderate exponents: near the narrower formats' ranges
                if bits == 64 {
                    (r & 0x800F_FFFF_FFFF_FFFF) | ((990 + (r >> 40) % 60) << 52)
                } else {
                    (r & 0x807F_FFFF) | ((100 + (r >> 40) % 50) << 23)
                }
            } else {
                r
            };
            v & mask
        })
        .collect()
}

#[test]
fn conversions_with_hand_derived_values_on_both_devices() {
    // (kernel, sources, results in re, rz, ru, rd, rna)
    let cases: &[(&str, &[u64], [u64; 5])] = &[
        // 1 + 2^-11: a tie in half
        (
            "ftrunc_hf_f",
            &[0x3F80_1000],
            [0x3C00, 0x3C00, 0x3C01, 0x3C00, 0x3C01],
        ),
        // 1 + 2^-24 from f64: a tie in f32
        (
            "ftrunc_f_df",
            &[0x3FF0_0000_1000_0000],
            [
                0x3F80_0000,
                0x3F80_0000,
                0x3F80_0001,
                0x3F80_0000,
                0x3F80_0001,
            ],
        ),
        // 1e6 is beyond half's range: inf, or 65504 toward zero
        (
            "ftrunc_hf_f",
            &[0x4974_2400],
            [0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7C00],
        ),
        ("ftrunc_hf_f_ftz_dsat", &[0x4974_2400], [0x7BFF; 5]),
        // -(1 + 2^-20) into bfloat16
        (
            "ftrunc_bf_f",
            &[0xBF80_0008],
            [0xBF80, 0xBF80, 0xBF80, 0xBF81, 0xBF80],
        ),
        // 2^24 + 1: a tie in f32
        (
            "i2f_f_s32",
            &[16_777_217],
            [
                0x4B80_0000,
                0x4B80_0000,
                0x4B80_0001,
                0x4B80_0000,
                0x4B80_0001,
            ],
        ),
        // 70000 is beyond half's range
        (
            "i2f_hf_u32",
            &[70_000],
            [0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7C00],
        ),
        ("i2f_hf_u32_dsat", &[70_000], [0x7BFF; 5]),
        ("i2f_bf_s32", &[(-3i64) as u32 as u64], [0xC040; 5]),
        // −(2^53 + 1): f32's ulp there is 2^30
        (
            "i2f_f_s64",
            &[((1u64 << 53) + 1).wrapping_neg()],
            [
                0xDA00_0000,
                0xDA00_0000,
                0xDA00_0000,
                0xDA00_0001,
                0xDA00_0000,
            ],
        ),
        // 2^53 + 1 into f64: a tie; u64::MAX rounds up to 2^64 except
        // toward zero or down
        (
            "i2f_df_s64",
            &[(1 << 53) + 1],
            [
                0x4340_0000_0000_0000,
                0x4340_0000_0000_0000,
                0x4340_0000_0000_0001,
                0x4340_0000_0000_0000,
                0x4340_0000_0000_0001,
            ],
        ),
        (
            "i2f_df_u64",
            &[u64::MAX],
            [
                0x43F0_0000_0000_0000,
                0x43EF_FFFF_FFFF_FFFF,
                0x43F0_0000_0000_0000,
                0x43EF_FFFF_FFFF_FFFF,
                0x43F0_0000_0000_0000,
            ],
        ),
        // widening products: exact for half, beyond f32's range for bfloat16
        ("fmul_full_hf", &[0x3C01, 0x3C01], [0x3F80_4008; 5]),
        (
            "fmul_full_bf",
            &[0x7F7F, 0x4000],
            [
                0x7F80_0000,
                0x7F7F_FFFF,
                0x7F80_0000,
                0x7F7F_FFFF,
                0x7F80_0000,
            ],
        ),
        // (1 + 2^-11, −1 − 2^-11) into a packed pair
        (
            "ftrunc2_hfx2",
            &[0x3F80_1000, 0xBF80_1000],
            [
                0xBC00_3C00,
                0xBC00_3C00,
                0xBC00_3C01,
                0xBC01_3C00,
                0xBC01_3C01,
            ],
        ),
    ];
    let m = pisa_translator::assemble("conversions.pisa", &conversion_program())
        .unwrap_or_else(|d| panic!("{d}"));
    let mut vk = vulkan();
    let mut cpu = CpuDevice::new();
    let vp = vk.load(&m).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (kernel, srcs, want) in cases {
        let &(_, _, db, sb, n) = CONVERSIONS
            .iter()
            .find(|c| kernel.starts_with(c.0))
            .unwrap();
        for (dev, prog) in [
            (&mut vk as &mut dyn Device, vp),
            (&mut cpu as &mut dyn Device, cp),
        ] {
            let got = elementwise::run(dev, prog, kernel, (sb, n), (db, 5), srcs);
            assert_eq!(
                got,
                want,
                "{kernel}{srcs:x?} on {}: {got:x?}, want {want:x?}",
                dev.device_info().name
            );
        }
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn every_conversion_matches_the_reference_device_bit_for_bit() {
    let m = pisa_translator::assemble("conversions.pisa", &conversion_program())
        .unwrap_or_else(|d| panic!("{d}"));
    if let Some(r) = common::spirv_val(
        &pisa_translator::spirv::translate_with(
            &m,
            &pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true),
        )
        .unwrap()
        .words,
        "vulkan1.2",
    ) {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut vk = vulkan();
    let mut cpu = CpuDevice::new();
    let vp = vk.load(&m).unwrap();
    let cp = cpu.load(&m).unwrap();
    let mut compared = 0;
    for (k, &(name, instr, db, sb, n)) in CONVERSIONS.iter().enumerate() {
        for (_, qn) in conversion_quals(instr) {
            let kernel = format!("{name}{qn}");
            let ins = conversion_inputs(sb, !instr.starts_with("i2f"), 1024 * n, 77 + k as u64);
            let want = elementwise::run(&mut cpu, cp, &kernel, (sb, n), (db, 5), &ins);
            let got = elementwise::run(&mut vk, vp, &kernel, (sb, n), (db, 5), &ins);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let item = i / 5;
                assert_eq!(
                    g,
                    w,
                    "{kernel}{:x?} in {}: {} gives {g:#x}, the reference device {w:#x}",
                    &ins[item * n..item * n + n],
                    ALL_MODES[i % 5],
                    vk.device_info().name
                );
            }
            compared += got.len();
        }
    }
    let kernels: usize = CONVERSIONS
        .iter()
        .map(|c| conversion_quals(c.1).len())
        .sum();
    assert_eq!(compared, kernels * 1024 * 5);
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// `fmad.df` rounds once on drivers whose `Fma` rounds twice (lavapipe):
/// the issue's example, random products with nearby addends (cancellation,
/// ties of the sum), and any encodings, bit for bit against the reference
/// device.
#[test]
fn fmad_df_rounds_once() {
    let src = ".version 0.1;\n.target 100;\n.kernel @fmad(.param[8] %in, .param[8] %out)\n{\n\t.reg .64b %pi, %po, %off, %a, %b, %c, %d;\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, 24;\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, 8;\n\tiadd.64b %po, %po, %off;\n\tld.global.64b %a, [%pi];\n\tld.global.64b %b, [%pi + 8];\n\tld.global.64b %c, [%pi + 16];\n\tfmad.df %d, %a, %b, %c;\n\tst.global.64b [%po], %d;\n\treturn;\n}\n";
    let m = pisa_translator::assemble("fmad.pisa", src).unwrap();
    let mut vk = vulkan();
    let mut cpu = CpuDevice::new();
    let vp = vk.load(&m).unwrap();
    let cp = cpu.load(&m).unwrap();
    // (1 + 2^-52)(1 − 2^-53) − 1 = 2^-53 − 2^-105: two roundings give 0
    let issue = [
        0x3FF0_0000_0000_0001,
        0x3FEF_FFFF_FFFF_FFFF,
        0xBFF0_0000_0000_0000,
    ];
    let got = elementwise::run(&mut vk, vp, "fmad", (64, 3), (64, 1), &issue);
    assert_eq!(got, [0x3C9F_FFFF_FFFF_FFFE]);
    let mut next = elementwise::random(0xF3AD);
    let mut ins = Vec::new();
    for _ in 0..8192 {
        // moderate exponents (2^-200 .. 2^200), random signs and significands
        let f = |r: u64| {
            let e = 823 + (r >> 52) % 400;
            (r & 0x800F_FFFF_FFFF_FFFF) | (e << 52)
        };
        let (a, b) = (f(next()), f(next()));
        let p = f64::from_bits(a) * f64::from_bits(b);
        // c near −a·b (cancellation) half the time, near a·b's ulp otherwise
        let c = match next() % 4 {
            0 => (-p).to_bits() ^ (next() & 0xF),
            1 => (p * 2f64.powi(-53)).to_bits() ^ (next() & 0x3),
            2 => (-p * 2f64.powi(-54)).to_bits(),
            _ => f(next()),
        };
        ins.extend([a, b, c]);
    }
    // and any encodings: overflowing and underflowing products, subnormals,
    // infinities, NaNs
    for _ in 0..4096 {
        ins.extend([next(), next(), next()]);
    }
    let want = elementwise::run(&mut cpu, cp, "fmad", (64, 3), (64, 1), &ins);
    let got = elementwise::run(&mut vk, vp, "fmad", (64, 3), (64, 1), &ins);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "fmad.df{:x?}: {g:#x}, want {w:#x}",
            &ins[3 * i..3 * i + 3]
        );
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}
