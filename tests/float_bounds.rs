//! The ULP harness's CI sample (issue 9): operations whose spec result is a
//! bound, not an exact value (`frsqrt` 1 ULP, `frcp` 1 ULP, `fdiv.fast`
//! 0.5-2.5 ULP, `fsqrt.fast` 1-2 ULP; spec 13), on the Vulkan device against
//! the reference device's correctly rounded results: every 16-bit input,
//! and random and special inputs of the wider formats. The maximum distance
//! seen per operation and type is printed (`--nocapture`) for the table in
//! the README.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_vk_runtime::Device;

/// (kernel name, instruction, type, bits, sources, bound in ULP ×10)
const OPS: &[(&str, &str, &str, u32, usize, u64)] = &[
    ("frsqrt_f", "frsqrt.fast.f", "f", 32, 1, 10),
    ("frsqrt_hf", "frsqrt.fast.hf", "hf", 16, 1, 10),
    ("frsqrt_bf", "frsqrt.fast.bf", "bf", 16, 1, 10),
    ("frsqrt_df", "frsqrt.fast.df", "df", 64, 1, 10),
    ("frcp_f", "frcp.f", "f", 32, 1, 10),
    ("frcp_hf", "frcp.hf", "hf", 16, 1, 10),
    ("fdiv_fast_f", "fdiv.fast.f", "f", 32, 2, 25),
    ("fdiv_fast_df", "fdiv.fast.df", "df", 64, 2, 20),
    ("fdiv_fast_hf", "fdiv.fast.hf", "hf", 16, 2, 5),
    ("fdiv_fast_bf", "fdiv.fast.bf", "bf", 16, 2, 5),
    ("fsqrt_fast_f", "fsqrt.fast.f", "f", 32, 1, 10),
    ("fsqrt_fast_df", "fsqrt.fast.df", "df", 64, 1, 20),
    ("fsqrt_fast_hf", "fsqrt.fast.hf", "hf", 16, 1, 10),
    ("fexp2_f", "fexp2.f", "f", 32, 1, 20),
    ("fexp2_hf", "fexp2.hf", "hf", 16, 1, 20),
    ("fexp2_bf", "fexp2.bf", "bf", 16, 1, 20),
    ("flog2_f", "flog2.f", "f", 32, 1, 10),
    ("flog2_hf", "flog2.hf", "hf", 16, 1, 10),
    ("flog2_bf", "flog2.bf", "bf", 16, 1, 10),
    ("ftanh_f", "ftanh.f", "f", 32, 1, 20),
    ("ftanh_hf", "ftanh.hf", "hf", 16, 1, 20),
    ("ftanh_bf", "ftanh.bf", "bf", 16, 1, 20),
    ("fsin_f", "fsin.f", "f", 32, 1, 20),
    ("fsin_hf", "fsin.hf", "hf", 16, 1, 20),
    ("fsin_bf", "fsin.bf", "bf", 16, 1, 20),
    ("fcos_f", "fcos.f", "f", 32, 1, 20),
    ("fcos_hf", "fcos.hf", "hf", 16, 1, 20),
    ("fcos_bf", "fcos.bf", "bf", 16, 1, 20),
];

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for &(name, instr, _, bits, n, _) in OPS {
        let bytes = bits / 8;
        let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
        src.push_str(&format!(
            ".kernel @{name}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .{bits}b %d, {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %po, %po, %off;\n",
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
            "\t{instr} %d, {};\n\tst.global.{bits}b [%po], %d;\n\treturn;\n}}\n",
            regs.join(", ")
        ));
    }
    src
}

/// Distance in units in the last place between two encodings of `bits`
/// (0 for two NaNs; `u64::MAX` for a NaN and a number).
fn ulps(a: u64, b: u64, ty: &str) -> u64 {
    let (bits, inf): (u32, u64) = match ty {
        "df" => (64, 0x7FF0_0000_0000_0000),
        "f" => (32, 0x7F80_0000),
        "hf" => (16, 0x7C00),
        _ => (16, 0x7F80),
    };
    let abs = if bits == 64 {
        u64::MAX >> 1
    } else {
        (1 << (bits - 1)) - 1
    };
    let nan = |x: u64| x & abs > inf;
    match (nan(a), nan(b)) {
        (true, true) => return 0,
        (false, false) => {}
        _ => return u64::MAX,
    }
    let ordered = |x: u64| -> i128 {
        let m = (x & abs) as i128;
        if x >> (bits - 1) & 1 == 1 {
            -m
        } else {
            m
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs() as u64
}

/// Inputs: every encoding of a 16-bit format (pairs: random ones and every
/// encoding against a few fixed divisors), random and special encodings of
/// the wider ones.
fn inputs(bits: u32, n: usize, seed: u64) -> Vec<u64> {
    let mut next = elementwise::random(seed);
    if bits == 16 {
        return if n == 1 {
            (0..=0xFFFF).collect()
        } else {
            (0..=0xFFFFu64).flat_map(|x| [x, next() & 0xFFFF]).collect()
        };
    }
    let specials: &[u64] = if bits == 32 {
        &[
            0,
            0x8000_0000,
            1,
            0x7F80_0000,
            0xFF80_0000,
            0x7F7F_FFFF,
            0x0080_0000,
            0x3F80_0000,
            0x7FC0_0000,
        ]
    } else {
        &[
            0,
            1 << 63,
            1,
            0x7FF0_0000_0000_0000,
            0x7FEF_FFFF_FFFF_FFFF,
            0x0010_0000_0000_0000,
            0x3FF0_0000_0000_0000,
        ]
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    (0..16384 * n)
        .map(|i| {
            if i % 16 == 0 {
                specials[(next() % specials.len() as u64) as usize]
            } else if i % 3 == 0 && bits == 32 {
                // moderate values, where exp2 and tanh are neither 0, 1
                // nor infinite: ±[2^-8, 2^8)
                (next() & 0x807F_FFFF) | ((119 + next() % 16) << 23)
            } else {
                next() & mask
            }
        })
        .collect()
}

#[test]
fn bounded_operations_stay_within_the_spec() {
    let m = pisa_translator::assemble("bounds.pisa", &program()).unwrap_or_else(|d| panic!("{d}"));
    let mut vk = common::lavapipe();
    let mut cpu = CpuDevice::new();
    let vp = vk.load(&m).unwrap();
    let cp = cpu.load(&m).unwrap();
    for (k, &(name, instr, ty, bits, n, bound10)) in OPS.iter().enumerate() {
        let ins = inputs(bits, n, 0xB0B0 + k as u64);
        let want = elementwise::run(&mut cpu, cp, name, (bits, n), (bits, 1), &ins);
        let got = elementwise::run(&mut vk, vp, name, (bits, n), (bits, 1), &ins);
        let mut worst = (0, 0);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let d = ulps(*g, *w, ty);
            if d > worst.0 {
                worst = (d, i);
            }
        }
        let (d, i) = worst;
        eprintln!(
            "{instr}: max {d} ULP over {} inputs on {} (bound {}.{})",
            got.len(),
            vk.device_info().name,
            bound10 / 10,
            bound10 % 10
        );
        // the distance between two encodings is a whole number of ULPs
        assert!(
            d * 10 <= bound10,
            "{instr}{:x?}: {:#x} is {d} ULP from the correctly rounded {:#x}",
            &ins[i * n..i * n + n],
            got[i],
            want[i]
        );
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}
