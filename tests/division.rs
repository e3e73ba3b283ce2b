//! `fdiv`, `fsqrt` and `frcp` are IEEE operations in PISA (13 §2.4, §2.13,
//! §2.16), but Vulkan lets a driver's `OpFDiv` and `Sqrt` be 2.5 ULP off.
//! On a device with f64 the translator does not use them: `.f`, `.hf`,
//! `.bf` are calls of the exact library with f64 cores (`ir::exactf64`),
//! `.df` of the soft-double library (`ir::exactf64::df_replacement`). The
//! results must equal the reference device's bit for bit, in every mode
//! and type, `.fast` and `.ftz` included. The inputs include exact
//! quotients and perfect squares, whose directed roundings a guess
//! corrected only to faithful gets wrong.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_vk_runtime::Device;

/// (type, bits)
const TYPES: [(&str, u32); 4] = [("f", 32), ("df", 64), ("hf", 16), ("bf", 16)];

/// The forms of one type: (mnemonic, sources). Rounding modes exist on
/// `.f` and `.df`, `frcp` on the narrower types, `.fast` on all.
fn forms(ty: &str) -> Vec<(String, usize)> {
    let mut v = Vec::new();
    if ty == "f" || ty == "df" {
        for m in ["", ".re", ".rz", ".ru", ".rd", ".rna"] {
            v.push((format!("fdiv{m}.{ty}"), 2));
            v.push((format!("fsqrt{m}.{ty}"), 1));
        }
        v.push((format!("fdiv.ftz.{ty}"), 2));
    }
    if ty != "df" {
        v.push((format!("frcp.{ty}"), 1));
        v.push((format!("frcp.ftz.{ty}"), 1));
    }
    v.push((format!("fdiv.fast.{ty}"), 2));
    v.push((format!("fdiv.ftz.fast.{ty}"), 2));
    v.push((format!("fsqrt.fast.{ty}"), 1));
    v
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for (ty, bits) in TYPES {
        let bytes = bits / 8;
        for (form, n) in forms(ty) {
            let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
            src.push_str(&format!(
                ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .{bits}b %d, {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %po, %po, %off;\n",
                kernel_name(&form),
                regs.join(", "),
                bytes * n as u32
            ));
            for (i, r) in regs.iter().enumerate() {
                src.push_str(&format!(
                    "\tld.global.{bits}b {r}, [%pi + {}];\n",
                    bytes * i as u32
                ));
            }
            src.push_str(&format!(
                "\t{form} %d, {};\n\tst.global.{bits}b [%po], %d;\n\treturn;\n}}\n",
                regs.join(", ")
            ));
        }
    }
    src
}

/// The encoding of an f64 value in format `ty` (exact for the values used).
fn encode(v: f64, ty: &str) -> u64 {
    match ty {
        "df" => v.to_bits(),
        "f" => (v as f32).to_bits() as u64,
        "hf" => pisa_translator::ir::literal::f64_to_16(v, false),
        _ => pisa_translator::ir::literal::f64_to_16(v, true),
    }
}

/// Sources for `n`-source forms of `ty`: exact quotients (q·b / b) and
/// perfect squares, edge values, and random encodings.
fn inputs(ty: &str, bits: u32, n: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    let mut v = Vec::new();
    // exact: small significands, so that products and squares are exact in
    // every format (bfloat16 has 8 bits)
    for i in 0..512u64 {
        let q = ((next() % 15) + 1) as f64 * 2f64.powi((next() % 9) as i32 - 4);
        let b = ((next() % 15) + 1) as f64 * 2f64.powi((next() % 9) as i32 - 4);
        let sign = if i % 3 == 0 { -1.0 } else { 1.0 };
        if n == 2 {
            v.extend([encode(sign * q * b, ty), encode(b, ty)]);
        } else {
            v.push(encode(q * q, ty));
        }
    }
    let edges: Vec<u64> = match ty {
        "df" => vec![
            0,
            1 << 63,
            1,
            0x000F_FFFF_FFFF_FFFF,
            0x0010_0000_0000_0000,
            0x7FEF_FFFF_FFFF_FFFF,
            0x7FF0_0000_0000_0000,
            0xFFF0_0000_0000_0000,
            0x7FF8_0000_0000_0000,
            0x3FF0_0000_0000_0000,
            0xBFF0_0000_0000_0000,
            0x4008_0000_0000_0000,
        ],
        "f" => vec![
            0,
            0x8000_0000,
            1,
            0x007F_FFFF,
            0x0080_0000,
            0x7F7F_FFFF,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0x3F80_0000,
            0xBF80_0000,
            0x4040_0000,
        ],
        "hf" => vec![
            0, 0x8000, 1, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00, 0x4200,
        ],
        _ => vec![
            0, 0x8000, 1, 0x007F, 0x0080, 0x7F7F, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0xBF80, 0x4040,
        ],
    };
    for a in &edges {
        for b in &edges {
            if n == 2 {
                v.extend([*a, *b]);
            } else {
                v.push(*a);
                break;
            }
        }
    }
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let random = if bits == 16 { 512 } else { 1024 };
    v.extend((0..random * n).map(|_| next() & mask));
    v
}

fn run_all() {
    let src = program();
    let m = pisa_translator::assemble("division.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let options = pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true);
    let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut vk = common::lavapipe();
    let mut cpu = CpuDevice::new();
    let vp = vk.load_translated(&spv).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (t, (ty, bits)) in TYPES.into_iter().enumerate() {
        for (k, (form, n)) in forms(ty).into_iter().enumerate() {
            let kernel = kernel_name(&form);
            let ins = inputs(ty, bits, n, 0xD1F + (t * 64 + k) as u64);
            let want = elementwise::run(&mut cpu, cp, &kernel, (bits, n), (bits, 1), &ins);
            let got = elementwise::run(&mut vk, vp, &kernel, (bits, n), (bits, 1), &ins);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{form}{:x?}: {} gives {g:#x}, the reference device {w:#x}",
                    &ins[i * n..i * n + n],
                    vk.device_info().name
                );
            }
        }
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn quotients_and_roots_are_correctly_rounded() {
    run_all();
}
