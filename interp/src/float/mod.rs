//! The floating-point semantics of PISA (spec chapter 3 and the instructions
//! of chapters 13, 15 and 16) as pure functions on bit patterns.
//!
//! Operands and results are the bits of a value in the low bits of a `u64`
//! (upper bits of operands are ignored, those of results are zero). Packed
//! `.hfx2`/`.bfx2` instructions apply the scalar function to each 16-bit
//! element; [`ftrunc2`] and [`pf2i`] take packed operands themselves.
//!
//! # Exactness
//! Every operation with a rounding mode (`fadd`, `fsub`, `fmul`, `fmad`,
//! `fdiv`, `fsqrt`, `frcp`, `frsqrt`, `frnd`, `ftrunc`, `i2f`, `f2i`, and the
//! `.fast` forms) is correctly rounded in every format and every mode of
//! 03 §3.2, including `.rna`: the exact result is computed in integers
//! (`arith.rs`) and rounded once (`round.rs`). Shortcuts taken for speed,
//! all equal to the exact result:
//! - `.re` on `.f`/`.df` without `.ftz`/`.dsat`: native `f32`/`f64`
//!   operations (IEEE 754 correctly rounded; x86-64 SSE keeps subnormals),
//!   `mul_add` for `fmad` (a single rounding; std documents it fused);
//! - `.re` `fadd`/`fsub`/`fmul`/`fdiv` on `.hf`/`.bf`: the `f64` operation on
//!   the exactly widened operands, rounded once into the 16-bit format
//!   (`+ − ×` of 16-bit values are exact in f64 or, for `.bf` sums, the double
//!   rounding is innocuous since 53 ≥ 2·8 + 2; `÷` likewise, 53 ≥ 2·11 + 2);
//! - `.re` `fmad` on `.hf`/`.bf`: the exact f64 product plus the addend with
//!   its TwoSum error; the f64 sum is rounded once when it is exact or when
//!   its bits below the destination's last bit are neither 0 nor one half
//!   (so the error cannot change the rounding), else the exact path runs.
//!   (Rounding an f32 `fma` to 16 bits is *not* the same: 1.5 × 0x3956 +
//!   2^-24 in `.hf` is 0x3C01, through f32 0x3C00.)
//!
//! Transcendental functions: see `transcendental.rs` (f64 libm, rounded once).
//! The `.fast` forms (`fdiv.fast`, `fsqrt.fast`, `frsqrt.fast`) return the
//! correctly rounded result, which is within each of their error bounds.
//!
//! # Choices where the spec is silent (docs/spec-notes.md)
//! - NaN operands (03 §3.4): the result is the first NaN operand in operand
//!   order (`src0`, `src1`, `src2`), with its quiet bit set (a qNaN comes back
//!   unchanged, an sNaN quieted, payload and sign kept). Invalid operations
//!   without a NaN operand (∞−∞, 0×∞, 0/0, ∞/∞, √x<0, log2 x<0, sin ∞, …)
//!   give the positive default NaN: `0x7E00` (.hf), `0x7FC0` (.bf),
//!   `0x7FC0_0000` (.f), `0x7FF8_0000_0000_0000` (.df).
//! - `fneg` flips the sign bit, NaNs included, without quieting; `fabs` of a
//!   NaN is the quieted NaN with its sign cleared (13 §2.1).
//! - `fmin`/`fmax` order −0 below +0; without `.nanp` one NaN operand gives
//!   the other operand (as is), two give the first quieted; with `.nanp` any
//!   NaN gives the first NaN operand, quieted.
//! - `.ftz` flushes the sources before the operation and the result after
//!   rounding and after `.dsat` (a negative subnormal result is +0 with
//!   `.dsat`). `.dsat` on arithmetic clamps to [0, 1], NaN → +0, −0 stays −0;
//!   on conversions it clamps to ±max finite (NaN stays NaN).
//! - Exact zero sums: +0, or −0 when rounding down (IEEE 754 §6.3).
//! - Overflow follows the rounding direction (IEEE 754 §7.4): `.rz` and the
//!   direction away from infinity give ±max finite. `ftrunc`/`i2f` say
//!   "source > maximum value → +infinity"; that is read as the rounded value.
//! - `ftrunc` flushes subnormal sources to ±0 in every mode, as its table
//!   says (15 §4.8); `fext` keeps them (exact).
//! - `frc` rounds its subtraction down too (result in [0, 1)); integral
//!   operands give +0; ±inf give NaN.
//! - `fcmp`: `.eq .gt .ge .lt .le` are false with a NaN operand, `.ne` true;
//!   +0 == −0.
//! - `.bf` is binary16's layout with 8 bits of precision and f32's exponent
//!   range, with subnormals, IEEE rounding and NaN rules like the others.

mod arith;
mod convert;
mod round;
#[cfg(test)]
mod tests;
mod transcendental;

pub use convert::{convert, from_int, ftrunc2, mul_full, pf2i, round_to_integral, to_int};

use round::{from_f64, to_f64, Fmt};

/// A floating-point type: `.hf`, `.bf`, `.f`, `.df` (03 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatTy {
    Half,
    BFloat,
    Single,
    Double,
}

impl FloatTy {
    /// Width in bits.
    #[inline]
    pub fn bits(self) -> u32 {
        Fmt::of(self).bits
    }
    /// `"hf"`, `"bf"`, `"f"`, `"df"` (a leading `.` is accepted).
    pub fn from_qualifier(s: &str) -> Option<FloatTy> {
        match s.strip_prefix('.').unwrap_or(s) {
            "hf" => Some(FloatTy::Half),
            "bf" => Some(FloatTy::BFloat),
            "f" => Some(FloatTy::Single),
            "df" => Some(FloatTy::Double),
            _ => None,
        }
    }
    /// The positive default NaN of the type.
    #[inline]
    pub fn default_nan(self) -> u64 {
        Fmt::of(self).default_nan()
    }
    #[inline]
    pub fn is_nan(self, a: u64) -> bool {
        let f = Fmt::of(self);
        f.is_nan(a & f.mask())
    }
}

/// A rounding mode (03 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Round {
    /// `.re`, the default.
    #[default]
    NearestEven,
    /// `.rd`, toward −∞.
    Down,
    /// `.ru`, toward +∞.
    Up,
    /// `.rz`, toward zero.
    Zero,
    /// `.rna`, to nearest, ties away from zero.
    NearestAway,
}

impl Round {
    /// `"re"`, `"rd"`, `"ru"`, `"rz"`, `"rna"` (a leading `.` is accepted).
    pub fn from_qualifier(s: &str) -> Option<Round> {
        match s.strip_prefix('.').unwrap_or(s) {
            "re" => Some(Round::NearestEven),
            "rd" => Some(Round::Down),
            "ru" => Some(Round::Up),
            "rz" => Some(Round::Zero),
            "rna" => Some(Round::NearestAway),
            _ => None,
        }
    }
}

/// The qualifiers that change a floating-point instruction's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatMode {
    pub round: Round,
    /// `.ftz` (03 §3.3).
    pub ftz: bool,
    /// `.dsat` (03 §3.5).
    pub dsat: bool,
    /// `.nanp` (`fmin`, `fmax`).
    pub nanp: bool,
}

impl FloatMode {
    /// The default mode with rounding `round`.
    #[inline]
    pub fn with_round(round: Round) -> FloatMode {
        FloatMode {
            round,
            ..FloatMode::default()
        }
    }
    /// Only the defaults: `.re`, no `.ftz`, no `.dsat`.
    #[inline]
    fn plain(self) -> bool {
        self.round == Round::NearestEven && !self.ftz && !self.dsat
    }
}

/// Two-operand arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `fadd`
    Add,
    /// `fsub`
    Sub,
    /// `fmul`
    Mul,
    /// `fdiv` (and `fdiv.fast`)
    Div,
    /// `fmin`
    Min,
    /// `fmax`
    Max,
}

/// One-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `fabs`
    Abs,
    /// `fneg`
    Neg,
    /// `fsqrt` (and `fsqrt.fast`)
    Sqrt,
    /// `frcp`
    Rcp,
    /// `frsqrt.fast`
    Rsqrt,
    /// `frc`
    Frc,
    /// `fsin`
    Sin,
    /// `fcos`
    Cos,
    /// `fexp2`
    Exp2,
    /// `flog2`
    Log2,
    /// `ftanh`
    Tanh,
}

/// `fcmp`'s comparisons (16 §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl CmpOp {
    /// `"eq"`, `"ne"`, `"gt"`, `"ge"`, `"lt"`, `"le"` (a leading `.` is
    /// accepted).
    pub fn from_qualifier(s: &str) -> Option<CmpOp> {
        match s.strip_prefix('.').unwrap_or(s) {
            "eq" => Some(CmpOp::Eq),
            "ne" => Some(CmpOp::Ne),
            "gt" => Some(CmpOp::Gt),
            "ge" => Some(CmpOp::Ge),
            "lt" => Some(CmpOp::Lt),
            "le" => Some(CmpOp::Le),
            _ => None,
        }
    }
}

/// `.dsat` ([0, 1], NaN → +0) then `.ftz` on an arithmetic result.
#[inline]
pub(crate) fn finish(f: Fmt, r: u64, m: FloatMode) -> u64 {
    let r = if m.dsat {
        if f.is_nan(r) || (f.is_neg(r) && r != f.sign()) {
            0
        } else if !f.is_neg(r) && r > f.one() {
            f.one()
        } else {
            r
        }
    } else {
        r
    };
    if m.ftz {
        f.flush(r)
    } else {
        r
    }
}

/// `fadd`, `fsub`, `fmul`, `fdiv`, `fmin`, `fmax` (13 §2.2, 2.4, 2.8–2.10,
/// 2.17). `m.round` is ignored by `Min`/`Max`, `m.nanp` by the others.
#[inline]
pub fn binary(op: BinOp, ty: FloatTy, a: u64, b: u64, m: FloatMode) -> u64 {
    if m.plain() && !matches!(op, BinOp::Min | BinOp::Max) {
        match ty {
            FloatTy::Single => {
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    _ => x / y,
                };
                if !r.is_nan() {
                    return r.to_bits() as u64;
                }
            }
            FloatTy::Double => {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    _ => x / y,
                };
                if !r.is_nan() {
                    return r.to_bits();
                }
            }
            FloatTy::Half | FloatTy::BFloat => {
                let (x, y) = (to_f64(ty, a), to_f64(ty, b));
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    _ => x / y,
                };
                if !r.is_nan() {
                    return from_f64(Fmt::of(ty), r, Round::NearestEven);
                }
            }
        }
    }
    binary_slow(op, ty, a, b, m)
}

/// [`binary`] without its native shortcuts (exact integer arithmetic).
pub fn binary_slow(op: BinOp, ty: FloatTy, a: u64, b: u64, m: FloatMode) -> u64 {
    let f = Fmt::of(ty);
    let (mut a, mut b) = (a & f.mask(), b & f.mask());
    if m.ftz {
        a = f.flush(a);
        b = f.flush(b);
    }
    let r = match op {
        BinOp::Add => arith::add(f, a, b, false, m.round),
        BinOp::Sub => arith::add(f, a, b, true, m.round),
        BinOp::Mul => arith::mul(f, a, b, m.round),
        BinOp::Div => arith::div(f, a, b, m.round),
        BinOp::Min => arith::min_max(f, a, b, false, m.nanp),
        BinOp::Max => arith::min_max(f, a, b, true, m.nanp),
    };
    finish(f, r, m)
}

/// `fmad` (13 §2.7): `a × b + c` rounded once.
#[inline]
pub fn fma(ty: FloatTy, a: u64, b: u64, c: u64, m: FloatMode) -> u64 {
    if m.plain() {
        match ty {
            FloatTy::Single => {
                let r = f32::from_bits(a as u32)
                    .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
                if !r.is_nan() {
                    return r.to_bits() as u64;
                }
            }
            FloatTy::Double => {
                let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
                if !r.is_nan() {
                    return r.to_bits();
                }
            }
            FloatTy::Half | FloatTy::BFloat => {
                // the product is exact in f64; TwoSum gives the sum's error e.
                // If e = 0 the f64 sum is exact; otherwise (|e| ≤ half an f64
                // ulp) it rounds like the exact sum unless its bits below the
                // destination's last bit are 0 or exactly one half.
                let f = Fmt::of(ty);
                let (x, y, z) = (to_f64(ty, a), to_f64(ty, b), to_f64(ty, c));
                let p = x * y;
                let s = p + z;
                if s.is_finite() {
                    let bb = s - p;
                    let e = (p - (s - bb)) + (z - bb);
                    let mag = s.to_bits() & !(1u64 << 63);
                    let exp = (mag >> 52) as i32 - 1023;
                    let shift = 53 - f.p;
                    let low = mag & ((1u64 << shift) - 1);
                    let clear = low != 0 && low != 1u64 << (shift - 1);
                    if e == 0.0 || (clear && exp >= f.emin && exp <= f.emax) {
                        return from_f64(f, s, Round::NearestEven);
                    }
                }
            }
        }
    }
    fma_slow(ty, a, b, c, m)
}

/// [`fma`] without its native shortcuts.
pub fn fma_slow(ty: FloatTy, a: u64, b: u64, c: u64, m: FloatMode) -> u64 {
    let f = Fmt::of(ty);
    let (mut a, mut b, mut c) = (a & f.mask(), b & f.mask(), c & f.mask());
    if m.ftz {
        a = f.flush(a);
        b = f.flush(b);
        c = f.flush(c);
    }
    finish(f, arith::fma(f, a, b, c, m.round), m)
}

/// `fabs`, `fneg`, `fsqrt`, `frcp`, `frsqrt`, `frc`, `fsin`, `fcos`,
/// `fexp2`, `flog2`, `ftanh` (13). `m.round` applies to `Sqrt`, `Rcp` and
/// `Rsqrt` (the instructions only have it on `fsqrt`); the transcendental
/// functions always round to nearest even.
#[inline]
pub fn unary(op: UnOp, ty: FloatTy, a: u64, m: FloatMode) -> u64 {
    if m.plain() {
        match (ty, op) {
            (FloatTy::Single, UnOp::Sqrt) => {
                let r = f32::from_bits(a as u32).sqrt();
                if !r.is_nan() {
                    return r.to_bits() as u64;
                }
            }
            (FloatTy::Double, UnOp::Sqrt) => {
                let r = f64::from_bits(a).sqrt();
                if !r.is_nan() {
                    return r.to_bits();
                }
            }
            (FloatTy::Single, UnOp::Rcp) => {
                let r = 1.0 / f32::from_bits(a as u32);
                if !r.is_nan() {
                    return r.to_bits() as u64;
                }
            }
            _ => {}
        }
    }
    transcendental::unary_slow(op, ty, a, m)
}

/// [`unary`] without its native shortcuts.
pub fn unary_slow(op: UnOp, ty: FloatTy, a: u64, m: FloatMode) -> u64 {
    transcendental::unary_slow(op, ty, a, m)
}

/// `fcmp` (16 §5.3) without `.ftz`: see [`compare_ftz`].
#[inline]
pub fn compare(op: CmpOp, ty: FloatTy, a: u64, b: u64) -> bool {
    compare_ftz(op, ty, a, b, false)
}

/// `fcmp`: ordered comparisons, except `.ne`, which is true when an operand
/// is NaN (the negation of `.eq`); +0 == −0. `ftz` flushes subnormal operands
/// to zero first.
#[inline]
pub fn compare_ftz(op: CmpOp, ty: FloatTy, a: u64, b: u64, ftz: bool) -> bool {
    use std::cmp::Ordering::*;
    let f = Fmt::of(ty);
    let (mut a, mut b) = (a & f.mask(), b & f.mask());
    if ftz {
        a = f.flush(a);
        b = f.flush(b);
    }
    if f.is_nan(a) || f.is_nan(b) {
        return op == CmpOp::Ne;
    }
    let o = arith::cmp_values(f, a, b);
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
    }
}
