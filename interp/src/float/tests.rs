//! Tests of the floating-point core. Expected values are computed by hand
//! (each with its derivation) or by an independent exact implementation in
//! Python (`fractions.Fraction`, `math.isqrt`): `vectors.txt`, written by
//! `gen_vectors.py` (`python3 gen_vectors.py 150 > vectors.txt`; larger counts
//! run through `H3_VECTORS=file cargo test -p pisa-interp float -- --ignored`).

use super::*;

fn m(round: Round, ftz: bool, dsat: bool) -> FloatMode {
    FloatMode {
        round,
        ftz,
        dsat,
        nanp: false,
    }
}

fn ty(s: &str) -> FloatTy {
    FloatTy::from_qualifier(s).expect("type")
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s, 16).expect("hex")
}

/// Runs the vectors of `text`; returns the failures.
fn run_vectors(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (got, want) = match w[0] {
            "cvt" => {
                let fl: u32 = w[4].parse().unwrap();
                let md = m(
                    Round::from_qualifier(w[3]).unwrap(),
                    fl & 1 != 0,
                    fl & 2 != 0,
                );
                (convert(ty(w[1]), ty(w[2]), hex(w[5]), md), hex(w[6]))
            }
            "f2i" => {
                let md = FloatMode::with_round(Round::from_qualifier(w[4]).unwrap());
                (
                    to_int(ty(w[1]), hex(w[5]), w[2] == "s", w[3].parse().unwrap(), md),
                    hex(w[6]),
                )
            }
            "i2f" => {
                let mut md = FloatMode::with_round(Round::from_qualifier(w[4]).unwrap());
                md.dsat = w[5] == "1";
                (
                    from_int(ty(w[1]), hex(w[6]), w[2] == "s", w[3].parse().unwrap(), md),
                    hex(w[7]),
                )
            }
            op => {
                let t = ty(w[1]);
                let fl: u32 = w[3].parse().unwrap();
                let md = m(
                    Round::from_qualifier(w[2]).unwrap(),
                    fl & 1 != 0,
                    fl & 2 != 0,
                );
                let (a, b, c) = (hex(w[4]), hex(w[5]), hex(w[6]));
                let want = hex(w[7]);
                let got = match op {
                    "add" => binary(BinOp::Add, t, a, b, md),
                    "sub" => binary(BinOp::Sub, t, a, b, md),
                    "mul" => binary(BinOp::Mul, t, a, b, md),
                    "div" => binary(BinOp::Div, t, a, b, md),
                    "fma" => fma(t, a, b, c, md),
                    "sqrt" => unary(UnOp::Sqrt, t, a, md),
                    "rsqrt" => unary(UnOp::Rsqrt, t, a, md),
                    "rcp" => unary(UnOp::Rcp, t, a, md),
                    "frnd" => round_to_integral(t, a, md),
                    _ => panic!("unknown op in {line}"),
                };
                // the slow paths agree too
                let slow = match op {
                    "add" => Some(binary_slow(BinOp::Add, t, a, b, md)),
                    "sub" => Some(binary_slow(BinOp::Sub, t, a, b, md)),
                    "mul" => Some(binary_slow(BinOp::Mul, t, a, b, md)),
                    "div" => Some(binary_slow(BinOp::Div, t, a, b, md)),
                    "fma" => Some(fma_slow(t, a, b, c, md)),
                    "sqrt" => Some(unary_slow(UnOp::Sqrt, t, a, md)),
                    _ => None,
                };
                if let Some(s) = slow {
                    if s != want {
                        bad.push(format!("{line}: slow path gives {s:x}"));
                    }
                }
                (got, want)
            }
        };
        if got != want {
            bad.push(format!("{line}: got {got:x}"));
        }
    }
    bad
}

#[test]
fn float_vectors() {
    let bad = run_vectors(include_str!("vectors.txt"));
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
#[ignore]
fn float_vectors_external() {
    // H3_VECTORS=path cargo test ... -- --ignored
    let Ok(p) = std::env::var("H3_VECTORS") else {
        return;
    };
    let text = std::fs::read_to_string(p).unwrap();
    let bad = run_vectors(&text);
    let n = bad.len();
    let shown: Vec<_> = bad.into_iter().take(60).collect();
    assert!(n == 0, "{} failures:\n{}", n, shown.join("\n"));
}

const RE: Round = Round::NearestEven;
const RD: Round = Round::Down;
const RU: Round = Round::Up;
const RZ: Round = Round::Zero;
const RNA: Round = Round::NearestAway;
const ALL: [Round; 5] = [RE, RD, RU, RZ, RNA];

fn r(round: Round) -> FloatMode {
    FloatMode::with_round(round)
}

/// `f(mode)` for the modes re, rd, ru, rz, rna.
fn each(f: impl Fn(FloatMode) -> u64) -> [u64; 5] {
    ALL.map(|x| f(r(x)))
}

const F: FloatTy = FloatTy::Single;
const D: FloatTy = FloatTy::Double;
const H: FloatTy = FloatTy::Half;
const B: FloatTy = FloatTy::BFloat;

#[test]
fn float_qualifiers() {
    assert_eq!(FloatTy::from_qualifier("hf"), Some(H));
    assert_eq!(FloatTy::from_qualifier(".bf"), Some(B));
    assert_eq!(FloatTy::from_qualifier("f"), Some(F));
    assert_eq!(FloatTy::from_qualifier("df"), Some(D));
    assert_eq!(FloatTy::from_qualifier("u32"), None);
    assert_eq!([H, B, F, D].map(FloatTy::bits), [16, 16, 32, 64]);
    assert_eq!(Round::from_qualifier("rna"), Some(RNA));
    assert_eq!(Round::from_qualifier(".rd"), Some(RD));
    assert_eq!(Round::from_qualifier("rn"), None);
    assert_eq!(Round::default(), RE);
    assert_eq!(CmpOp::from_qualifier("ge"), Some(CmpOp::Ge));
}

#[test]
fn float_add_directed() {
    // 1 + 2^-30: between 1 and 1 + 2^-23, far below the midpoint
    let add = |a, b| each(|m| binary(BinOp::Add, F, a, b, m));
    assert_eq!(
        add(0x3F80_0000, 0x3080_0000),
        [
            0x3F80_0000,
            0x3F80_0000,
            0x3F80_0001,
            0x3F80_0000,
            0x3F80_0000
        ]
    );
    // -1 - 2^-30: the mirror image
    assert_eq!(
        add(0xBF80_0000, 0xB080_0000),
        [
            0xBF80_0000,
            0xBF80_0001,
            0xBF80_0000,
            0xBF80_0000,
            0xBF80_0000
        ]
    );
    // 1 - 2^-30: just below 1, whose lower neighbour is 1 - 2^-24
    let sub = |a, b| each(|m| binary(BinOp::Sub, F, a, b, m));
    assert_eq!(
        sub(0x3F80_0000, 0x3080_0000),
        [
            0x3F80_0000,
            0x3F7F_FFFF,
            0x3F80_0000,
            0x3F7F_FFFF,
            0x3F80_0000
        ]
    );
    // ties: 1 + 2^-24 (even down), (1 + 2^-23) + 2^-24 (even up); .rna away
    assert_eq!(
        add(0x3F80_0000, 0x3380_0000),
        [
            0x3F80_0000,
            0x3F80_0000,
            0x3F80_0001,
            0x3F80_0000,
            0x3F80_0001
        ]
    );
    assert_eq!(
        add(0x3F80_0001, 0x3380_0000),
        [
            0x3F80_0002,
            0x3F80_0001,
            0x3F80_0002,
            0x3F80_0001,
            0x3F80_0002
        ]
    );
    // f64: 1 ± 2^-60
    let addd = |a, b| each(|m| binary(BinOp::Add, D, a, b, m));
    let one = 1f64.to_bits();
    let tiny = 2f64.powi(-60).to_bits();
    assert_eq!(addd(one, tiny), [one, one, one + 1, one, one]);
    assert_eq!(
        addd(one, tiny | 1 << 63),
        [one, 0x3FEF_FFFF_FFFF_FFFF, one, 0x3FEF_FFFF_FFFF_FFFF, one]
    );
    // x - x is +0, except -0 when rounding down (IEEE 754 §6.3)
    assert_eq!(sub(0x4040_0000, 0x4040_0000), [0, 0x8000_0000, 0, 0, 0]);
    // (-0) + (-0) = -0 in every mode, (+0) + (-0) = +0 except .rd
    assert_eq!(add(0x8000_0000, 0x8000_0000), [0x8000_0000; 5]);
    assert_eq!(add(0, 0x8000_0000), [0, 0x8000_0000, 0, 0, 0]);
    // overflow: max + max → inf (re, ru, rna), max (rd, rz)
    assert_eq!(
        add(0x7F7F_FFFF, 0x7F7F_FFFF),
        [
            0x7F80_0000,
            0x7F7F_FFFF,
            0x7F80_0000,
            0x7F7F_FFFF,
            0x7F80_0000
        ]
    );
    assert_eq!(
        add(0xFF7F_FFFF, 0xFF7F_FFFF),
        [
            0xFF80_0000,
            0xFF80_0000,
            0xFF7F_FFFF,
            0xFF7F_FFFF,
            0xFF80_0000
        ]
    );
}

#[test]
fn float_mul_div_sqrt_directed() {
    let mul = |t, a, b| each(|m| binary(BinOp::Mul, t, a, b, m));
    // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46
    assert_eq!(
        mul(F, 0x3F80_0001, 0x3F80_0001),
        [
            0x3F80_0002,
            0x3F80_0002,
            0x3F80_0003,
            0x3F80_0002,
            0x3F80_0002
        ]
    );
    assert_eq!(
        mul(F, 0xBF80_0001, 0x3F80_0001),
        [
            0xBF80_0002,
            0xBF80_0003,
            0xBF80_0002,
            0xBF80_0002,
            0xBF80_0002
        ]
    );
    // (1 - 2^-24)^2 = 1 - 2^-23 + 2^-48: ulp 2^-24 below 1
    assert_eq!(
        mul(F, 0x3F7F_FFFF, 0x3F7F_FFFF),
        [
            0x3F7F_FFFE,
            0x3F7F_FFFE,
            0x3F7F_FFFF,
            0x3F7F_FFFE,
            0x3F7F_FFFE
        ]
    );
    // hf: 1.5 × (1 + 2^-10) = 1.5 + 1.5·2^-10: exactly the midpoint of
    // 1.5 + 2^-10 (0x3E01) and 1.5 + 2^-9 (0x3E02): even is 0x3E02
    assert_eq!(
        mul(H, 0x3E00, 0x3C01),
        [0x3E02, 0x3E01, 0x3E02, 0x3E01, 0x3E02]
    );
    // bf: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14
    assert_eq!(
        mul(B, 0x3F81, 0x3F81),
        [0x3F82, 0x3F82, 0x3F83, 0x3F82, 0x3F82]
    );
    // 1/3 = 0x3EAAAAAA.AAA… (binary 0.0101…)
    let div = |t, a, b| each(|m| binary(BinOp::Div, t, a, b, m));
    assert_eq!(
        div(F, 0x3F80_0000, 0x4040_0000),
        [
            0x3EAA_AAAB,
            0x3EAA_AAAA,
            0x3EAA_AAAB,
            0x3EAA_AAAA,
            0x3EAA_AAAB
        ]
    );
    assert_eq!(
        div(F, 0xBF80_0000, 0x4040_0000),
        [
            0xBEAA_AAAB,
            0xBEAA_AAAB,
            0xBEAA_AAAA,
            0xBEAA_AAAA,
            0xBEAA_AAAB
        ]
    );
    let (d1, d3) = (1f64.to_bits(), 3f64.to_bits());
    let third = 0x3FD5_5555_5555_5555;
    assert_eq!(div(D, d1, d3), [third, third, third + 1, third, third]);
    // hf: 1/3 → 0x3555 (0.333251953125, remainder 1/3 ulp: down)
    assert_eq!(
        div(H, 0x3C00, 0x4200),
        [0x3555, 0x3555, 0x3556, 0x3555, 0x3555]
    );
    // exact quotient: 1/4 in every mode
    assert_eq!(div(F, 0x3F80_0000, 0x4080_0000), [0x3E80_0000; 5]);
    // √2: f32 0x3FB504F3 lies below √2, f64 0x3FF6A09E667F3BCD above
    let sqrt = |t, a| each(|m| unary(UnOp::Sqrt, t, a, m));
    assert_eq!(
        sqrt(F, 0x4000_0000),
        [
            0x3FB5_04F3,
            0x3FB5_04F3,
            0x3FB5_04F4,
            0x3FB5_04F3,
            0x3FB5_04F3
        ]
    );
    let s2 = 0x3FF6_A09E_667F_3BCD;
    assert_eq!(sqrt(D, 2f64.to_bits()), [s2, s2 - 1, s2, s2 - 1, s2]);
    // exact roots; √−0 = −0; √−1 = NaN
    assert_eq!(sqrt(F, 0x4110_0000), [0x4040_0000; 5]);
    assert_eq!(sqrt(F, 0x8000_0000), [0x8000_0000; 5]);
    assert_eq!(sqrt(F, 0xBF80_0000), [0x7FC0_0000; 5]);
    // √(min subnormal f32) = 2^-74.5 = 2^-75 √2: exponent field 52, √2's fraction
    assert_eq!(
        sqrt(F, 1),
        [
            0x1A35_04F3,
            0x1A35_04F3,
            0x1A35_04F4,
            0x1A35_04F3,
            0x1A35_04F3
        ]
    );
}

#[test]
fn float_fma_single_rounding() {
    let fmaf = |t, a, b, c| each(|m| fma(t, a, b, c, m));
    // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46, a tie (the ulp at 2^-22 is 2^-45):
    // an unfused multiply-add gives 2^-22 in every mode
    assert_eq!(
        fmaf(F, 0x3F80_0001, 0x3F80_0001, 0xBF80_0000),
        [
            0x3480_0000,
            0x3480_0000,
            0x3480_0001,
            0x3480_0000,
            0x3480_0001
        ]
    );
    // (1 + 2^-23)(1 + 2^-22) - 1 = 2^-22 + 2^-23 + 2^-45: exactly 0x34C00001
    assert_eq!(
        fmaf(F, 0x3F80_0001, 0x3F80_0002, 0xBF80_0000),
        [0x34C0_0001; 5]
    );
    // 1 × 1 + 2^-30
    assert_eq!(
        fmaf(F, 0x3F80_0000, 0x3F80_0000, 0x3080_0000),
        [
            0x3F80_0000,
            0x3F80_0000,
            0x3F80_0001,
            0x3F80_0000,
            0x3F80_0000
        ]
    );
    // hf: 1.5 × 683/1024 = 1 + 2^-11 (a tie), + 2^-24 puts it above the
    // midpoint: 0x3C01. Through f32 (fma, then f32→f16) the 2^-24 is lost
    // (half an f32 ulp, tie to even) and the tie goes to 0x3C00.
    assert_eq!(
        fmaf(H, 0x3E00, 0x3956, 0x0001),
        [0x3C01, 0x3C00, 0x3C01, 0x3C00, 0x3C01]
    );
    // without the 2^-24: the tie itself
    assert_eq!(
        fmaf(H, 0x3E00, 0x3956, 0x0000),
        [0x3C00, 0x3C00, 0x3C01, 0x3C00, 0x3C01]
    );
    // exact cancellation: +0, −0 when rounding down
    assert_eq!(
        fmaf(F, 0x4000_0000, 0x4040_0000, 0xC0C0_0000),
        [0, 0x8000_0000, 0, 0, 0]
    );
    // (−0) × 1 + (−0) = −0; (+0) × 1 + (−0) = +0 except .rd
    assert_eq!(
        fmaf(F, 0x8000_0000, 0x3F80_0000, 0x8000_0000),
        [0x8000_0000; 5]
    );
    assert_eq!(
        fmaf(F, 0, 0x3F80_0000, 0x8000_0000),
        [0, 0x8000_0000, 0, 0, 0]
    );
    // f64: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104
    let (a, b) = (0x3FF0_0000_0000_0001, 0x3FEF_FFFF_FFFF_FFFE);
    let want = (-(2f64.powi(-104))).to_bits();
    assert_eq!(fmaf(D, a, b, 0xBFF0_0000_0000_0000), [want; 5]);
}

#[test]
fn float_conversion_ties() {
    let cvt = |from, to, a| each(|m| convert(from, to, a, m));
    // f64 1 + 2^-11: the midpoint of 1 and 1 + 2^-10 in binary16
    let tie = 0x3FF0_0200_0000_0000;
    assert_eq!(cvt(D, H, tie), [0x3C00, 0x3C00, 0x3C01, 0x3C00, 0x3C01]);
    assert_eq!(
        cvt(D, H, tie | 1 << 63),
        [0xBC00, 0xBC01, 0xBC00, 0xBC00, 0xBC01]
    );
    // 1 + 2^-11 + 2^-40: above the midpoint; rounding through f32 would
    // lose the 2^-40 and give 0x3C00 (double rounding)
    assert_eq!(
        cvt(D, H, 0x3FF0_0200_0000_1000),
        [0x3C01, 0x3C00, 0x3C01, 0x3C00, 0x3C01]
    );
    // f32 → bf16: 1 + 2^-8 is a tie (even down), 1 + 2^-7 + 2^-8 too (even up)
    assert_eq!(
        cvt(F, B, 0x3F80_8000),
        [0x3F80, 0x3F80, 0x3F81, 0x3F80, 0x3F81]
    );
    assert_eq!(
        cvt(F, B, 0x3F81_8000),
        [0x3F82, 0x3F81, 0x3F82, 0x3F81, 0x3F82]
    );
    // f64 → bf16 directly: 1 + 2^-8 + 2^-60
    assert_eq!(
        cvt(D, B, 0x3FF0_1000_0000_0100),
        [0x3F81, 0x3F80, 0x3F81, 0x3F80, 0x3F81]
    );
    // f32 → f16 overflow: 65520 is the midpoint of 65504 and 2^16: inf
    // (re, rna, ru), max (rd, rz); 65519.996 rounds to 65504
    assert_eq!(
        cvt(F, H, 0x477F_F000),
        [0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7C00]
    );
    assert_eq!(
        cvt(F, H, 0x477F_EFFF),
        [0x7BFF, 0x7BFF, 0x7C00, 0x7BFF, 0x7BFF]
    );
    // .dsat: clamped to ±max finite
    let sat = FloatMode {
        dsat: true,
        ..FloatMode::default()
    };
    assert_eq!(convert(F, H, 0x477F_F000, sat), 0x7BFF);
    assert_eq!(convert(F, H, 0xFF80_0000, sat), 0xFBFF);
    assert_eq!(convert(D, F, 1e300f64.to_bits(), sat), 0x7F7F_FFFF);
    assert_eq!(convert(D, F, (-1e300f64).to_bits(), r(RU)), 0xFF7F_FFFF);
    // underflow to binary16 subnormals: 2^-25 is the midpoint of 0 and 2^-24
    assert_eq!(cvt(F, H, 0x3300_0000), [0, 0, 1, 0, 1]);
    assert_eq!(
        cvt(F, H, 0xB300_0000),
        [0x8000, 0x8001, 0x8000, 0x8000, 0x8001]
    );
    assert_eq!(cvt(F, H, 0x3300_0001), [1, 0, 1, 0, 1]);
    // ... and with .ftz the subnormal result is flushed
    let ftz = FloatMode {
        ftz: true,
        ..FloatMode::default()
    };
    assert_eq!(convert(F, H, 0x3300_0001, ftz), 0);
    // ftrunc flushes subnormal sources in every mode (15 §4.8 table)
    assert_eq!(cvt(F, B, 0x0040_0000), [0; 5]);
    assert_eq!(cvt(F, H, 0x8000_0001), [0x8000; 5]);
    // fext keeps them exactly: 2^-24 (hf) = 0x33800000 (f32); bf 0x0001 = f32 0x00010000
    assert_eq!(cvt(H, F, 0x0001), [0x3380_0000; 5]);
    assert_eq!(cvt(B, F, 0x8001), [0x8001_0000; 5]);
    assert_eq!(cvt(H, D, 0x3C01), [0x3FF0_0400_0000_0000; 5]);
    // NaNs: quieted, payload kept (top bits), sign kept
    assert_eq!(cvt(B, F, 0x7F81), [0x7FC1_0000; 5]);
    assert_eq!(cvt(H, F, 0xFC01), [0xFFC0_2000; 5]);
    assert_eq!(cvt(D, H, 0x7FF0_0400_0000_0001), [0x7E01; 5]);
    assert_eq!(cvt(F, D, 0x7FC0_0001), [0x7FF8_0000_2000_0000; 5]);
    // ±inf and ±0
    assert_eq!(cvt(D, H, 0xFFF0_0000_0000_0000), [0xFC00; 5]);
    assert_eq!(cvt(F, B, 0x8000_0000), [0x8000; 5]);
    // ftrunc2: lo = src0, hi = src1
    assert_eq!(
        ftrunc2(H, 0x3F80_0000, 0xC000_0000, FloatMode::default()),
        0xC000_3C00
    );
    assert_eq!(ftrunc2(B, 0x3F80_8000, 0x3F81_8000, r(RNA)), 0x3F82_3F81);
}

#[test]
fn float_round_to_integral() {
    let rnd = |t, a| each(|m| round_to_integral(t, a, m));
    // 2.5: re 2, rd 2, ru 3, rz 2, rna 3
    assert_eq!(
        rnd(F, 0x4020_0000),
        [
            0x4000_0000,
            0x4000_0000,
            0x4040_0000,
            0x4000_0000,
            0x4040_0000
        ]
    );
    assert_eq!(
        rnd(F, 0xC020_0000),
        [
            0xC000_0000,
            0xC040_0000,
            0xC000_0000,
            0xC000_0000,
            0xC040_0000
        ]
    );
    // 0.5 and -0.5: zero results keep the sign
    assert_eq!(rnd(F, 0x3F00_0000), [0, 0, 0x3F80_0000, 0, 0x3F80_0000]);
    assert_eq!(
        rnd(F, 0xBF00_0000),
        [
            0x8000_0000,
            0xBF80_0000,
            0x8000_0000,
            0x8000_0000,
            0xBF80_0000
        ]
    );
    // 3.5 (re: 4); f64 2^51 + 0.5 (re: 2^51, even; the ulp there is 0.5)
    assert_eq!(
        rnd(F, 0x4060_0000),
        [
            0x4080_0000,
            0x4040_0000,
            0x4080_0000,
            0x4040_0000,
            0x4080_0000
        ]
    );
    let lo = 0x4320_0000_0000_0000;
    assert_eq!(rnd(D, lo + 1), [lo, lo, lo + 2, lo, lo + 2]);
    // hf 1.5 (0x3E00); a subnormal (rd/ru: −1/+1 or ∓0)
    assert_eq!(rnd(H, 0x3E00), [0x4000, 0x3C00, 0x4000, 0x3C00, 0x4000]);
    assert_eq!(rnd(H, 0x0001), [0, 0, 0x3C00, 0, 0]);
    assert_eq!(rnd(H, 0x8001), [0x8000, 0xBC00, 0x8000, 0x8000, 0x8000]);
    // .ftz flushes the subnormal first: .ru gives +0
    let m = FloatMode {
        round: RU,
        ftz: true,
        ..FloatMode::default()
    };
    assert_eq!(round_to_integral(H, 0x0001, m), 0);
    // specials
    assert_eq!(rnd(F, 0x7F80_0000), [0x7F80_0000; 5]);
    assert_eq!(rnd(F, 0x7F80_0001), [0x7FC0_0001; 5]);
    assert_eq!(rnd(B, 0x4B81), [0x4B81; 5]); // 2^24 + 2^17: integral
}

#[test]
fn float_denormals_ftz() {
    let plain = FloatMode::default();
    let ftz = FloatMode { ftz: true, ..plain };
    // min subnormal + min subnormal = 2 × 2^-149
    assert_eq!(binary(BinOp::Add, F, 1, 1, plain), 2);
    assert_eq!(binary(BinOp::Add, F, 1, 1, ftz), 0);
    // min normal × 0.5 = 2^-127, a subnormal; flushed with its sign
    assert_eq!(
        binary(BinOp::Mul, F, 0x0080_0000, 0x3F00_0000, plain),
        0x0040_0000
    );
    assert_eq!(binary(BinOp::Mul, F, 0x0080_0000, 0x3F00_0000, ftz), 0);
    assert_eq!(
        binary(BinOp::Mul, F, 0x8080_0000, 0x3F00_0000, ftz),
        0x8000_0000
    );
    // a subnormal source is zero: 2^-149 × 2^100 = 2^-49 without .ftz
    assert_eq!(binary(BinOp::Mul, F, 1, 0x7180_0000, plain), 0x2700_0000);
    assert_eq!(
        binary(BinOp::Mul, F, 0x8000_0001, 0x7180_0000, ftz),
        0x8000_0000
    );
    // 1 / subnormal: 1/2^-149 overflows; with .ftz 1/(−0) = −inf
    assert_eq!(
        binary(BinOp::Div, F, 0x3F80_0000, 0x8000_0001, ftz),
        0xFF80_0000
    );
    // half and double
    assert_eq!(binary(BinOp::Add, H, 0x0001, 0x03FF, plain), 0x0400);
    assert_eq!(binary(BinOp::Add, H, 0x0001, 0x03FF, ftz), 0);
    assert_eq!(binary(BinOp::Mul, D, 1, 0x4000_0000_0000_0000, plain), 2);
    assert_eq!(binary(BinOp::Mul, D, 1, 0x4000_0000_0000_0000, ftz), 0);
    // a result rounded up *to* a subnormal by .ru is still flushed
    let ru_ftz = FloatMode {
        round: RU,
        ftz: true,
        ..plain
    };
    assert_eq!(binary(BinOp::Mul, F, 0x0080_0000, 0x0080_0000, r(RU)), 1);
    assert_eq!(binary(BinOp::Mul, F, 0x0080_0000, 0x0080_0000, ru_ftz), 0);
    // fma: ftz on the addend
    assert_eq!(fma(F, 0x3F80_0000, 0x3F80_0000, 1, plain), 0x3F80_0000);
    assert_eq!(fma(F, 0, 0, 1, plain), 1);
    assert_eq!(fma(F, 0, 0, 1, ftz), 0);
    // fcmp.ftz: a subnormal equals zero
    assert!(!compare(CmpOp::Eq, F, 1, 0));
    assert!(compare_ftz(CmpOp::Eq, F, 1, 0, true));
    assert!(compare_ftz(CmpOp::Eq, F, 0x8000_0001, 0, true));
    // fabs/fneg with .ftz
    assert_eq!(unary(UnOp::Neg, F, 0x0000_0005, ftz), 0x8000_0000);
    assert_eq!(unary(UnOp::Abs, F, 0x8000_0005, ftz), 0);
}

#[test]
fn float_dsat() {
    let sat = FloatMode {
        dsat: true,
        ..FloatMode::default()
    };
    let add = |a, b| binary(BinOp::Add, F, a, b, sat);
    assert_eq!(add(0x7FC0_0000, 0x3F80_0000), 0); // NaN → +0
    assert_eq!(add(0x7F80_0000, 0xFF80_0000), 0); // inf - inf = NaN → +0
    assert_eq!(add(0x7F80_0000, 0), 0x3F80_0000); // +inf → 1
    assert_eq!(add(0xFF80_0000, 0), 0); // -inf → 0
    assert_eq!(add(0xC040_0000, 0), 0); // -3 → 0
    assert_eq!(add(0x3F00_0000, 0), 0x3F00_0000); // 0.5
    assert_eq!(add(0x3F00_0000, 0x3F80_0000), 0x3F80_0000); // 1.5 → 1
    assert_eq!(add(0x8000_0000, 0x8000_0000), 0x8000_0000); // -0 stays
    assert_eq!(add(0x8000_0001, 0), 0); // a negative subnormal → +0
                                        // rounding first: 1 + 2^-30 rounded up is 1 + 2^-23, clamped to 1
    let ru_sat = FloatMode { round: RU, ..sat };
    assert_eq!(
        binary(BinOp::Add, F, 0x3F80_0000, 0x3080_0000, ru_sat),
        0x3F80_0000
    );
    // other types and operations
    assert_eq!(binary(BinOp::Mul, H, 0x4000, 0x4000, sat), 0x3C00);
    assert_eq!(binary(BinOp::Sub, B, 0x3F00, 0x3F80, sat), 0);
    assert_eq!(binary(BinOp::Mul, D, 0x7FF8_0000_0000_0000, 0, sat), 0);
    assert_eq!(fma(F, 0x4000_0000, 0x4000_0000, 0xC080_0000, sat), 0); // 4 - 4 = +0
    assert_eq!(fma(F, 0x4000_0000, 0x4000_0000, 0x7FC0_0000, sat), 0);
    assert_eq!(
        binary(BinOp::Max, F, 0x7FC0_0000, 0x4000_0000, sat),
        0x3F80_0000
    );
    assert_eq!(binary(BinOp::Min, F, 0xFFC0_0000, 0xFFC0_0000, sat), 0);
    // i2f.dsat clamps to the finite range; i2f.rz of 65520 gives max anyway
    let i2f_sat = FloatMode {
        dsat: true,
        ..FloatMode::default()
    };
    assert_eq!(from_int(H, 65520, false, 32, i2f_sat), 0x7BFF);
    assert_eq!(from_int(H, 65520, false, 32, FloatMode::default()), 0x7C00);
    assert_eq!(from_int(H, (-65520i64) as u64, true, 32, i2f_sat), 0xFBFF);
}

#[test]
fn float_nan_rules() {
    let d = FloatMode::default();
    let (q1, q2, s1) = (0x7FC0_0001, 0xFFC0_0002, 0x7F80_0001);
    // the first NaN operand; a qNaN as is, an sNaN quieted
    assert_eq!(binary(BinOp::Add, F, q1, q2, d), q1);
    assert_eq!(binary(BinOp::Add, F, q2, q1, d), q2);
    assert_eq!(binary(BinOp::Mul, F, 0x3F80_0000, s1, d), 0x7FC0_0001);
    assert_eq!(binary(BinOp::Div, F, s1, q2, d), 0x7FC0_0001);
    // fsub does not negate a NaN src1
    assert_eq!(binary(BinOp::Sub, F, 0x3F80_0000, q2, d), q2);
    // invalid operations: the positive default NaN
    assert_eq!(
        binary(BinOp::Sub, F, 0x7F80_0000, 0x7F80_0000, d),
        0x7FC0_0000
    );
    assert_eq!(binary(BinOp::Mul, F, 0, 0xFF80_0000, d), 0x7FC0_0000);
    assert_eq!(binary(BinOp::Div, F, 0, 0x8000_0000, d), 0x7FC0_0000);
    assert_eq!(binary(BinOp::Div, H, 0x7C00, 0xFC00, d), 0x7E00);
    assert_eq!(binary(BinOp::Add, B, 0x7F80, 0xFF80, d), 0x7FC0);
    assert_eq!(
        binary(BinOp::Add, D, 0x7FF0 << 48, 0xFFF0 << 48, d),
        0x7FF8 << 48
    );
    // every rounding mode takes the same NaN
    for m in ALL {
        assert_eq!(binary(BinOp::Add, F, q2, q1, r(m)), q2);
        assert_eq!(binary(BinOp::Add, H, 0x7C01, 0x3C00, r(m)), 0x7E01);
    }
    // fma: a NaN operand wins over 0 × inf; else 0 × inf is invalid
    assert_eq!(fma(F, 0, 0x7F80_0000, q2, d), q2);
    assert_eq!(fma(F, 0, 0x7F80_0000, 0x3F80_0000, d), 0x7FC0_0000);
    assert_eq!(
        fma(F, 0x3F80_0000, 0x7F80_0000, 0xFF80_0000, d),
        0x7FC0_0000
    );
    assert_eq!(
        fma(F, 0x3F80_0000, 0x7F80_0000, 0x7F80_0000, d),
        0x7F80_0000
    );
    assert_eq!(fma(F, 0x3F80_0000, q1, q2, d), q1);
    assert_eq!(fma(H, 0x3C00, 0x3C00, 0xFD00, d), 0xFF00);
    // fmin/fmax: minimumNumber/maximumNumber; .nanp: the (first) NaN
    let nanp = FloatMode { nanp: true, ..d };
    assert_eq!(binary(BinOp::Min, F, q1, 0x3F80_0000, d), 0x3F80_0000);
    assert_eq!(binary(BinOp::Max, F, 0x3F80_0000, s1, d), 0x3F80_0000);
    assert_eq!(binary(BinOp::Max, F, s1, q2, d), 0x7FC0_0001);
    assert_eq!(binary(BinOp::Min, F, 0x3F80_0000, s1, nanp), 0x7FC0_0001);
    assert_eq!(binary(BinOp::Max, F, q2, q1, nanp), q2);
    // -0 < +0
    assert_eq!(binary(BinOp::Min, F, 0, 0x8000_0000, d), 0x8000_0000);
    assert_eq!(binary(BinOp::Max, F, 0x8000_0000, 0, d), 0);
    assert_eq!(binary(BinOp::Min, H, 0xBC00, 0x3C00, d), 0xBC00);
    assert_eq!(binary(BinOp::Max, D, 0xFFF0 << 48, 1, d), 1);
    // fabs: quiet, sign cleared; fneg: sign flipped only
    assert_eq!(unary(UnOp::Abs, F, 0xFF80_0001, d), 0x7FC0_0001);
    assert_eq!(unary(UnOp::Neg, F, 0x7FC0_0000, d), 0xFFC0_0000);
    assert_eq!(unary(UnOp::Neg, F, 0x7F80_0001, d), 0xFF80_0001);
    assert_eq!(unary(UnOp::Abs, H, 0xFC00, d), 0x7C00);
    // fcmp: ordered except .ne
    for op in [CmpOp::Eq, CmpOp::Gt, CmpOp::Ge, CmpOp::Lt, CmpOp::Le] {
        assert!(!compare(op, F, q1, 0x3F80_0000));
        assert!(!compare(op, H, 0x3C00, 0x7C01));
    }
    assert!(compare(CmpOp::Ne, F, q1, q1));
    assert!(compare(CmpOp::Eq, F, 0, 0x8000_0000));
    assert!(compare(CmpOp::Le, F, 0x8000_0000, 0));
    assert!(!compare(CmpOp::Lt, F, 0x8000_0000, 0));
    assert!(compare(CmpOp::Lt, B, 0xBF80, 0x3F80));
    assert!(compare(CmpOp::Gt, D, 0x7FF0 << 48, 0x7FEF_FFFF_FFFF_FFFF));
    assert!(compare(CmpOp::Ge, H, 0xFC00, 0xFC00));
}

#[test]
fn float_to_int() {
    let f2i = |t, a, s, bits, m| to_int(t, a, s, bits, r(m));
    // NaN → 0, ±inf → limits
    assert_eq!(f2i(F, 0x7FC0_0000, true, 32, RE), 0);
    assert_eq!(f2i(F, 0xFF80_0001, false, 32, RE), 0);
    assert_eq!(f2i(F, 0x7F80_0000, true, 32, RE), 0x7FFF_FFFF);
    assert_eq!(f2i(F, 0xFF80_0000, true, 32, RE), 0x8000_0000);
    assert_eq!(f2i(F, 0xFF80_0000, false, 32, RE), 0);
    assert_eq!(f2i(F, 0x7F80_0000, false, 64, RE), u64::MAX);
    // 3e9 (0x4F32D05E, exact): s32 saturates, u32 holds it
    assert_eq!(f2i(F, 0x4F32_D05E, true, 32, RE), 0x7FFF_FFFF);
    assert_eq!(f2i(F, 0x4F32_D05E, false, 32, RE), 3_000_000_000);
    // 2^63 and -2^63 in s64; 2^64 in u64
    assert_eq!(f2i(F, 0x5F00_0000, true, 64, RE), 0x7FFF_FFFF_FFFF_FFFF);
    assert_eq!(f2i(F, 0xDF00_0000, true, 64, RE), 0x8000_0000_0000_0000);
    assert_eq!(f2i(F, 0x5F00_0000, false, 64, RE), 0x8000_0000_0000_0000);
    assert_eq!(f2i(F, 0x5F80_0000, false, 64, RE), u64::MAX);
    assert_eq!(
        f2i(D, 1e300f64.to_bits(), true, 64, RE),
        0x7FFF_FFFF_FFFF_FFFF
    );
    // u8: 255.5 rounds (re: 256 → 255, rd: 255); -1.5 → 0; -0.4 → 0
    let x255_5 = 255.5f32.to_bits() as u64;
    assert_eq!(each(|m| to_int(F, x255_5, false, 8, m)), [255; 5]);
    assert_eq!(each(|m| to_int(F, 0xBFC0_0000, false, 8, m)), [0; 5]);
    // s8: -128.5 (re -128, rd -129 → -128, rna -129 → -128); 127.5 (re 128 → 127)
    let m128_5 = (-128.5f32).to_bits() as u64;
    assert_eq!(each(|m| to_int(F, m128_5, true, 8, m)), [0x80; 5]);
    let x127_5 = 127.5f32.to_bits() as u64;
    assert_eq!(
        each(|m| to_int(F, x127_5, true, 8, m)),
        [0x7F, 0x7F, 0x7F, 0x7F, 0x7F]
    );
    // rounding: 2.5 → re 2, rd 2, ru 3, rz 2, rna 3; -2.5 → -2, -3, -2, -2, -3
    assert_eq!(
        each(|m| to_int(F, 0x4020_0000, true, 32, m)),
        [2, 2, 3, 2, 3]
    );
    assert_eq!(
        each(|m| to_int(F, 0xC020_0000, true, 16, m)),
        [0xFFFE, 0xFFFD, 0xFFFE, 0xFFFE, 0xFFFD]
    );
    // -0.5 unsigned: rd gives -1 → clamped to 0
    assert_eq!(each(|m| to_int(F, 0xBF00_0000, false, 32, m)), [0; 5]);
    // hf max 65504 → u16 65504, s16 saturates
    assert_eq!(f2i(H, 0x7BFF, false, 16, RE), 65504);
    assert_eq!(f2i(H, 0x7BFF, true, 16, RE), 0x7FFF);
    assert_eq!(f2i(B, 0xC780, true, 16, RE), 0x8000); // bf -65536 → s16 min
                                                      // pf2i: lo = 1.0, hi = -2.0 (hf)
    assert_eq!(
        pf2i(H, 0xC000_3C00, true, FloatMode::default()),
        0xFFFE_0001
    );
    assert_eq!(
        pf2i(H, 0xC000_3C00, false, FloatMode::default()),
        0x0000_0001
    );
    assert_eq!(
        pf2i(B, 0x7FC0_4040, true, FloatMode::default()),
        0x0000_0003
    );
}

#[test]
fn float_from_int_large() {
    let i2f = |t, a, s, bits| each(|m| from_int(t, a, s, bits, m));
    // u64::MAX = 2^64 - 1 → f32: 2^64 (0x5F800000) or 2^64 - 2^40 (0x5F7FFFFF)
    assert_eq!(
        i2f(F, u64::MAX, false, 64),
        [
            0x5F80_0000,
            0x5F7F_FFFF,
            0x5F80_0000,
            0x5F7F_FFFF,
            0x5F80_0000
        ]
    );
    // i64::MIN is exact; i64::MAX = 2^63 - 1 → 2^63 or its predecessor
    assert_eq!(i2f(F, 1 << 63, true, 64), [0xDF00_0000; 5]);
    let p63 = 0x43E0_0000_0000_0000;
    assert_eq!(
        i2f(D, i64::MAX as u64, true, 64),
        [p63, p63 - 1, p63, p63 - 1, p63]
    );
    // 2^53 + 1: a tie between 2^53 (even) and 2^53 + 2
    let p53 = 0x4340_0000_0000_0000;
    assert_eq!(
        i2f(D, (1 << 53) + 1, false, 64),
        [p53, p53, p53 + 1, p53, p53 + 1]
    );
    // 2^53 + 3: a tie between 2^53 + 2 (odd) and 2^53 + 4 (even)
    assert_eq!(
        i2f(D, (1 << 53) + 3, true, 64),
        [p53 + 2, p53 + 1, p53 + 2, p53 + 1, p53 + 2]
    );
    // -(2^53 + 1)
    let n53 = p53 | 1 << 63;
    assert_eq!(
        i2f(D, (-(1i64 << 53) - 1) as u64, true, 64),
        [n53, n53 + 1, n53, n53, n53 + 1]
    );
    // 2^24 + 2^16 + 2^8 + 1 → bf16 (8 bits): above the midpoint
    assert_eq!(
        i2f(B, 0x0101_0101, false, 32),
        [0x4B81, 0x4B80, 0x4B81, 0x4B80, 0x4B81]
    );
    // 65520 → hf: midpoint of 65504 and 2^16 (overflow)
    assert_eq!(
        i2f(H, 65520, false, 32),
        [0x7C00, 0x7BFF, 0x7C00, 0x7BFF, 0x7C00]
    );
    // the source width: 0xFF is -1 as s8, 255 as u8
    assert_eq!(i2f(F, 0xFF, true, 8), [0xBF80_0000; 5]);
    assert_eq!(i2f(F, 0xFF, false, 8), [0x437F_0000; 5]);
    // upper bits beyond the width are ignored; 0 is +0
    assert_eq!(i2f(H, 0xFFFF_0000, true, 16), [0; 5]);
    // s32 min → hf: -2^31 overflows: -inf (re, rd, rna), -max (ru, rz)
    assert_eq!(
        i2f(H, 0x8000_0000, true, 32),
        [0xFC00, 0xFC00, 0xFBFF, 0xFBFF, 0xFC00]
    );
}

#[test]
fn float_unary_functions() {
    let d = FloatMode::default();
    let u = |op, t, a| unary(op, t, a, d);
    // rcp: 1/3 (f32, hf), ±0 → ±inf, ±inf → ±0
    assert_eq!(u(UnOp::Rcp, F, 0x4040_0000), 0x3EAA_AAAB);
    assert_eq!(u(UnOp::Rcp, H, 0x4200), 0x3555);
    assert_eq!(u(UnOp::Rcp, F, 0x8000_0000), 0xFF80_0000);
    assert_eq!(u(UnOp::Rcp, B, 0xFF80), 0x8000);
    // rsqrt: 1/√2 = 0.70710678…: f32 0x3F3504F3 (below), .ru 0x3F3504F4
    assert_eq!(u(UnOp::Rsqrt, F, 0x4000_0000), 0x3F35_04F3);
    assert_eq!(unary(UnOp::Rsqrt, F, 0x4000_0000, r(RU)), 0x3F35_04F4);
    assert_eq!(u(UnOp::Rsqrt, F, 0x4080_0000), 0x3F00_0000);
    assert_eq!(u(UnOp::Rsqrt, D, 16f64.to_bits()), 0.25f64.to_bits());
    assert_eq!(u(UnOp::Rsqrt, D, 2f64.to_bits()), 0x3FE6_A09E_667F_3BCD);
    assert_eq!(u(UnOp::Rsqrt, F, 0), 0x7F80_0000);
    assert_eq!(u(UnOp::Rsqrt, F, 0x8000_0000), 0xFF80_0000);
    assert_eq!(u(UnOp::Rsqrt, F, 0xBF80_0000), 0x7FC0_0000);
    assert_eq!(u(UnOp::Rsqrt, F, 0x7F80_0000), 0);
    // rsqrt of the smallest hf subnormal 2^-24 = 2^12
    assert_eq!(u(UnOp::Rsqrt, H, 0x0001), 0x6C00);
    // sin/cos/exp2/log2/tanh special values
    assert_eq!(u(UnOp::Sin, F, 0x8000_0000), 0x8000_0000);
    assert_eq!(u(UnOp::Sin, F, 0x7F80_0000), 0x7FC0_0000);
    assert_eq!(u(UnOp::Cos, H, 0x8000), 0x3C00);
    assert_eq!(u(UnOp::Cos, F, 0xFF80_0000), 0x7FC0_0000);
    assert_eq!(u(UnOp::Exp2, F, 0x4040_0000), 0x4100_0000); // 2^3 = 8
    assert_eq!(u(UnOp::Exp2, F, 0xFF80_0000), 0);
    assert_eq!(u(UnOp::Exp2, F, 0x7F80_0000), 0x7F80_0000);
    assert_eq!(u(UnOp::Exp2, F, 0xC315_0000), 1); // 2^-149
    assert_eq!(u(UnOp::Exp2, F, 0xC316_0000), 0); // 2^-150: tie with 0, even
    assert_eq!(u(UnOp::Exp2, F, 0x4300_0000), 0x7F80_0000); // 2^128 overflows
    assert_eq!(u(UnOp::Exp2, H, 0xCE00), 0x0001); // 2^-24
    assert_eq!(u(UnOp::Log2, F, 0x4100_0000), 0x4040_0000); // log2 8 = 3
    assert_eq!(u(UnOp::Log2, F, 0x3F80_0000), 0); // log2 1 = +0
    assert_eq!(u(UnOp::Log2, F, 0x8000_0000), 0xFF80_0000);
    assert_eq!(u(UnOp::Log2, F, 0xBF80_0000), 0x7FC0_0000);
    assert_eq!(u(UnOp::Log2, F, 0x7F80_0000), 0x7F80_0000);
    assert_eq!(u(UnOp::Log2, F, 1), 0xC315_0000); // log2 2^-149 = -149
    assert_eq!(u(UnOp::Tanh, F, 0xFF80_0000), 0xBF80_0000);
    assert_eq!(u(UnOp::Tanh, B, 0x8000), 0x8000);
    // sin 1 = 0.84147098…: ×2^11 = 1723.33 → hf 0x3800 + (1723 - 1024)
    assert_eq!(u(UnOp::Sin, H, 0x3C00), 0x3ABB);
    // f32 sin 1 = 0x3F576AA4 (0.841470957, error 0.19 ulp), cos 1 = 0x3F0A5140
    assert_eq!(u(UnOp::Sin, F, 0x3F80_0000), 0x3F57_6AA4);
    assert_eq!(u(UnOp::Cos, F, 0x3F80_0000), 0x3F0A_5140);
    // NaN operands come back quieted
    assert_eq!(u(UnOp::Sin, F, 0x7F80_0001), 0x7FC0_0001);
    assert_eq!(u(UnOp::Rsqrt, H, 0xFC01), 0xFE01);
    // frc: in [0, 1); the subtraction rounds down
    assert_eq!(u(UnOp::Frc, F, 0x4030_0000), 0x3F40_0000); // 2.75 → 0.75
    assert_eq!(u(UnOp::Frc, F, 0xC030_0000), 0x3E80_0000); // -2.75 → 0.25
    assert_eq!(u(UnOp::Frc, F, 0xB080_0000), 0x3F7F_FFFF); // -2^-30 → 1 - 2^-24
    assert_eq!(u(UnOp::Frc, F, 0x4040_0000), 0); // 3 → +0
    assert_eq!(u(UnOp::Frc, F, 0xC040_0000), 0); // -3 → +0
    assert_eq!(u(UnOp::Frc, F, 0x8000_0000), 0);
    assert_eq!(u(UnOp::Frc, F, 0x3EAA_AAAB), 0x3EAA_AAAB); // 0 < x < 1: itself
    assert_eq!(u(UnOp::Frc, F, 0x7F80_0000), 0x7FC0_0000);
    assert_eq!(u(UnOp::Frc, F, 0x8000_0001), 0x3F7F_FFFF);
    let ftz = FloatMode { ftz: true, ..d };
    assert_eq!(unary(UnOp::Frc, F, 0x8000_0001, ftz), 0);
}

#[test]
fn float_mul_full() {
    let d = FloatMode::default();
    // hf 65504^2 = 4290774016 exactly in f32
    assert_eq!(mul_full(H, 0x7BFF, 0x7BFF, d), 0x4F7F_C004);
    // hf (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20, exact in f32 (fraction bits 14 and 3)
    assert_eq!(mul_full(H, 0x3C01, 0x3C01, d), 0x3F80_4008);
    // bf 2^-133 × 2^-133 = 2^-266 underflows f32: 0, or 2^-149 rounding up
    assert_eq!(mul_full(B, 0x0001, 0x0001, d), 0);
    assert_eq!(mul_full(B, 0x0001, 0x0001, r(RU)), 1);
    // bf max^2 overflows f32
    assert_eq!(mul_full(B, 0x7F7F, 0x7F7F, d), 0x7F80_0000);
    assert_eq!(mul_full(B, 0x7F7F, 0x7F7F, r(RZ)), 0x7F7F_FFFF);
    // .ftz flushes the 16-bit sources
    let ftz = FloatMode { ftz: true, ..d };
    // 2^-24 × 65504 = 2047 × 2^-19 = 1.9990234375 × 2^-9
    assert_eq!(mul_full(H, 0x0001, 0x7BFF, d), 0x3B7F_E000);
    assert_eq!(mul_full(H, 0x0001, 0x7BFF, ftz), 0);
}

#[test]
fn float_no_upper_bits_and_masking() {
    let d = FloatMode::default();
    // operands' upper bits are ignored, results' are zero
    assert_eq!(binary(BinOp::Add, H, 0xFFFF_3C00, 0xABCD_3C00, d), 0x4000);
    assert_eq!(
        binary(BinOp::Add, F, 0xFFFF_FFFF_3F80_0000, 0x3F80_0000, d),
        0x4000_0000
    );
    assert_eq!(unary(UnOp::Neg, H, 0xFFFF_3C00, d), 0xBC00);
    assert_eq!(to_int(F, 0xFFFF_FFFF_BF80_0000, true, 32, d), 0xFFFF_FFFF);
    assert_eq!(from_int(F, 0xFFFF_FFFF_FFFF_FFFF, true, 32, d), 0xBF80_0000);
}

mod props {
    //! Properties against exact arithmetic in f64 (products of two f32 are
    //! exact in f64, sums are exact as an f64 pair by TwoSum) and against the
    //! native correctly rounded operations.
    use super::super::*;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    /// `s + e == a + b` exactly (no overflow for f32 operands).
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// `r` compared with the exact `s + e` (`|e| ≤ ulp(s)/2`).
    fn cmp_exact(r: f64, s: f64, e: f64) -> Ordering {
        if r.is_infinite() || r == s {
            return r
                .partial_cmp(&s)
                .unwrap()
                .then(0f64.partial_cmp(&e).unwrap());
        }
        let close =
            r.signum() == s.signum() && r.abs() / 2.0 <= s.abs() && s.abs() <= 2.0 * r.abs();
        if close {
            // Sterbenz: r - s is exact
            (r - s).partial_cmp(&e).unwrap()
        } else {
            r.partial_cmp(&s).unwrap()
        }
    }

    fn next_up(x: f32) -> f32 {
        let b = x.to_bits();
        if x == 0.0 {
            f32::from_bits(1)
        } else if x > 0.0 {
            f32::from_bits(b + 1)
        } else {
            f32::from_bits(b - 1)
        }
    }

    fn f32s() -> impl Strategy<Value = f32> {
        prop_oneof![
            any::<u32>(),
            // moderate exponents: sums that overlap, quotients near 1
            (any::<u32>(), 110u32..145).prop_map(|(m, e)| (m & 0x807F_FFFF) | e << 23),
            // few significant bits: exact results and ties
            (any::<u32>(), 110u32..145).prop_map(|(m, e)| (m & 0x807F_0000) | e << 23),
            // subnormals
            any::<u32>().prop_map(|m| m & 0x807F_FFFF),
        ]
        .prop_map(f32::from_bits)
        .prop_filter("finite", |x| x.is_finite())
    }

    fn bits(x: u64) -> f32 {
        f32::from_bits(x as u32)
    }

    /// The five roundings of one operation, checked against the exact value
    /// `s + e` and the native result.
    fn check(
        name: &str,
        f: impl Fn(FloatMode) -> u64,
        s: f64,
        e: f64,
        native: f32,
    ) -> Result<(), TestCaseError> {
        let [ne, dn, up, rz, na] = [
            Round::NearestEven,
            Round::Down,
            Round::Up,
            Round::Zero,
            Round::NearestAway,
        ]
        .map(|r| bits(f(FloatMode::with_round(r))));
        prop_assert_eq!(
            ne.to_bits(),
            native.to_bits(),
            "{}: re differs from native",
            name
        );
        prop_assert!(
            cmp_exact(dn as f64, s, e) != Ordering::Greater,
            "{}: rd {:e} above exact",
            name,
            dn
        );
        prop_assert!(
            cmp_exact(up as f64, s, e) != Ordering::Less,
            "{}: ru {:e} below exact",
            name,
            up
        );
        prop_assert!(
            dn == up
                || next_up(dn) == up
                || (dn == f32::MAX && up.is_infinite())
                || (up == f32::MIN && dn.is_infinite()),
            "{}: rd {:e} and ru {:e} not adjacent",
            name,
            dn,
            up
        );
        let toward0 = if s > 0.0 || (s == 0.0 && e > 0.0) {
            dn
        } else {
            up
        };
        prop_assert!(
            rz == toward0 || rz == 0.0 && toward0 == 0.0,
            "{}: rz {:e}",
            name,
            rz
        );
        prop_assert!(na == dn || na == up, "{}: rna {:e}", name, na);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn float_prop_add_sub(x in f32s(), y in f32s()) {
            let (a, b) = (x.to_bits() as u64, y.to_bits() as u64);
            let (s, e) = two_sum(x as f64, y as f64);
            check("add", |m| binary(BinOp::Add, FloatTy::Single, a, b, m), s, e, x + y)?;
            let (s, e) = two_sum(x as f64, -(y as f64));
            check("sub", |m| binary(BinOp::Sub, FloatTy::Single, a, b, m), s, e, x - y)?;
        }

        #[test]
        fn float_prop_mul_fma(x in f32s(), y in f32s(), z in f32s()) {
            let (a, b, c) = (x.to_bits() as u64, y.to_bits() as u64, z.to_bits() as u64);
            let p = x as f64 * y as f64;
            check("mul", |m| binary(BinOp::Mul, FloatTy::Single, a, b, m), p, 0.0, x * y)?;
            let (s, e) = two_sum(p, z as f64);
            check("fma", |m| fma(FloatTy::Single, a, b, c, m), s, e, x.mul_add(y, z))?;
            // the exact path agrees with the native one
            prop_assert_eq!(fma_slow(FloatTy::Single, a, b, c, FloatMode::default()), x.mul_add(y, z).to_bits() as u64);
        }

        #[test]
        fn float_prop_div_sqrt(x in f32s(), y in f32s()) {
            prop_assume!(y != 0.0);
            let (a, b) = (x.to_bits() as u64, y.to_bits() as u64);
            // q ≤ x/y ⟺ q·y ≤ x for y > 0 (q·y exact in f64)
            let q = |r: Round| bits(binary(BinOp::Div, FloatTy::Single, a, b, FloatMode::with_round(r)));
            prop_assert_eq!(q(Round::NearestEven).to_bits(), (x / y).to_bits());
            let (dn, up) = (q(Round::Down), q(Round::Up));
            let (xs, ys) = if y > 0.0 { (x as f64, y as f64) } else { (-(x as f64), -(y as f64)) };
            if dn.is_finite() { prop_assert!(dn as f64 * ys <= xs, "rd {:e}", dn); }
            if up.is_finite() { prop_assert!(up as f64 * ys >= xs, "ru {:e}", up); }
            prop_assert!(dn == up || next_up(dn) == up || (dn == f32::MAX && up.is_infinite())
                || (up == f32::MIN && dn.is_infinite()));
            let x = x.abs();
            let a = x.to_bits() as u64;
            let sq = |r: Round| bits(unary(UnOp::Sqrt, FloatTy::Single, a, FloatMode::with_round(r)));
            prop_assert_eq!(sq(Round::NearestEven).to_bits(), x.sqrt().to_bits());
            let (dn, up) = (sq(Round::Down), sq(Round::Up));
            prop_assert!((dn as f64) * (dn as f64) <= x as f64);
            prop_assert!((up as f64) * (up as f64) >= x as f64);
            prop_assert!(dn == up || next_up(dn) == up);
        }

        #[test]
        fn float_prop_f64_add_mul(x in any::<u64>(), y in any::<u64>()) {
            // native re equals the exact path on f64 too
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
                let fast = binary(op, FloatTy::Double, x, y, FloatMode::default());
                let slow = binary_slow(op, FloatTy::Double, x, y, FloatMode::default());
                prop_assert_eq!(fast, slow, "{:?} {:x} {:x}", op, x, y);
            }
            let x = x & !(1 << 63);
            prop_assert_eq!(unary(UnOp::Sqrt, FloatTy::Double, x, FloatMode::default()),
                unary_slow(UnOp::Sqrt, FloatTy::Double, x, FloatMode::default()));
        }

        #[test]
        fn float_prop_half_fast_path(x in any::<u16>(), y in any::<u16>(), bf in any::<bool>()) {
            // the f64 shortcut for .hf/.bf equals the exact path
            let t = if bf { FloatTy::BFloat } else { FloatTy::Half };
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
                let fast = binary(op, t, x as u64, y as u64, FloatMode::default());
                let slow = binary_slow(op, t, x as u64, y as u64, FloatMode::default());
                prop_assert_eq!(fast, slow, "{:?} {:?} {:x} {:x}", t, op, x, y);
            }
        }

        #[test]
        fn float_prop_no_panic(a in any::<u64>(), b in any::<u64>(), c in any::<u64>(),
                               t in 0usize..4, t2 in 0usize..4, r in 0usize..5, fl in 0u8..16,
                               bits in 0u32..70) {
            let tys = [FloatTy::Half, FloatTy::BFloat, FloatTy::Single, FloatTy::Double];
            let rs = [Round::NearestEven, Round::Down, Round::Up, Round::Zero, Round::NearestAway];
            let (t, t2) = (tys[t], tys[t2]);
            let m = FloatMode { round: rs[r], ftz: fl & 1 != 0, dsat: fl & 2 != 0, nanp: fl & 4 != 0 };
            let mask = if t.bits() == 64 { u64::MAX } else { (1 << t.bits()) - 1 };
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Min, BinOp::Max] {
                prop_assert_eq!(binary(op, t, a, b, m) & !mask, 0);
            }
            prop_assert_eq!(fma(t, a, b, c, m) & !mask, 0);
            for op in [UnOp::Abs, UnOp::Neg, UnOp::Sqrt, UnOp::Rcp, UnOp::Rsqrt, UnOp::Frc,
                       UnOp::Sin, UnOp::Cos, UnOp::Exp2, UnOp::Log2, UnOp::Tanh] {
                prop_assert_eq!(unary(op, t, a, m) & !mask, 0);
            }
            prop_assert_eq!(round_to_integral(t, a, m) & !mask, 0);
            let mask2 = if t2.bits() == 64 { u64::MAX } else { (1 << t2.bits()) - 1 };
            prop_assert_eq!(convert(t, t2, a, m) & !mask2, 0);
            let imask = match bits.clamp(1, 64) { 64 => u64::MAX, n => (1 << n) - 1 };
            prop_assert_eq!(to_int(t, a, fl & 8 != 0, bits, m) & !imask, 0);
            prop_assert_eq!(from_int(t, a, fl & 8 != 0, bits, m) & !mask, 0);
            prop_assert_eq!(mul_full(t, a, b, m) >> 32 >> (if t.bits() <= 16 { 0 } else { 32 }), 0);
            prop_assert_eq!(ftrunc2(t, a, b, m) >> 32, 0);
            prop_assert_eq!(pf2i(t, a, fl & 8 != 0, m) >> 32, 0);
            for op in [CmpOp::Eq, CmpOp::Ne, CmpOp::Gt, CmpOp::Ge, CmpOp::Lt, CmpOp::Le] {
                let _ = compare_ftz(op, t, a, b, fl & 1 != 0);
            }
        }
    }
}

mod props_half_fma {
    use super::super::*;
    use proptest::prelude::*;

    fn near_one() -> impl Strategy<Value = u16> {
        // operands around 1 whose products and sums interact, plus anything
        prop_oneof![
            any::<u16>(),
            (0u16..0x800, 12u16..18).prop_map(|(m, e)| (m & 0x83FF) | e << 10)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        #[test]
        fn float_prop_half_fma_fast_path(a in near_one(), b in near_one(), c in near_one(), bf in any::<bool>()) {
            let t = if bf { FloatTy::BFloat } else { FloatTy::Half };
            let m = FloatMode::default();
            let (a, b, c) = (a as u64, b as u64, c as u64);
            prop_assert_eq!(fma(t, a, b, c, m), fma_slow(t, a, b, c, m), "{:?} {:x} {:x} {:x}", t, a, b, c);
        }
    }
}
