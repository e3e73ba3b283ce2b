//! One-operand operations (spec 13): `fabs`, `fneg`, `fsqrt`, `frcp`,
//! `frsqrt`, `frc`, and the transcendental `fsin`, `fcos`, `fexp2`, `flog2`,
//! `ftanh`.
//!
//! `fsqrt`, `frcp` and `frsqrt` are correctly rounded in every format and
//! mode (exact integer arithmetic). The transcendental functions evaluate the
//! `f64` function of the platform's libm on the exactly widened operand and
//! round that once into `.f`/`.hf`/`.bf`: with glibc's `sin`, `cos`, `exp2`,
//! `log2`, `tanh` (errors below 1 ulp of f64, i.e. 2^-52 relative) the result
//! is the correctly rounded one unless the exact value lies within about
//! 2^-52 (relative) of a midpoint between two values of the destination —
//! well inside the spec's 1–2 ULP bounds. For `.df` (which the spec does not
//! define for these) the libm result is returned as is (≤ 1 ulp with glibc).

use super::arith;
use super::convert::round_to_integral;
use super::round::{from_f64, round_up, to_f64, unpack, Fmt, Rest, Val};
use super::{finish, FloatMode, FloatTy, Round, UnOp};
use std::cmp::Ordering;

/// [`super::unary`] without its native shortcuts.
pub(crate) fn unary_slow(op: UnOp, ty: FloatTy, a: u64, m: FloatMode) -> u64 {
    let f = Fmt::of(ty);
    let mut a = a & f.mask();
    if m.ftz {
        a = f.flush(a);
    }
    let r = match op {
        // 13 §2.1: "If the source is NaN, then a quiet NaN is returned with
        // its sign bit cleared."
        UnOp::Abs if f.is_nan(a) => f.quiet(a) & !f.sign(),
        UnOp::Abs => a & !f.sign(),
        // a sign flip, NaNs included (IEEE `negate`)
        UnOp::Neg => a ^ f.sign(),
        UnOp::Sqrt => arith::sqrt(f, a, m.round),
        UnOp::Rcp => arith::div(f, f.one(), a, m.round),
        UnOp::Rsqrt => rsqrt(f, ty, a, m.round),
        UnOp::Frc => frc(f, ty, a),
        UnOp::Sin | UnOp::Cos | UnOp::Exp2 | UnOp::Log2 | UnOp::Tanh => libm(op, f, ty, a),
    };
    finish(f, r, m)
}

/// The transcendental functions through `f64` (see the module docs).
/// Special values are libm's, which are IEEE 754's: sin/cos(±inf) = NaN,
/// sin(±0) = ±0, cos(±0) = 1, exp2(−inf) = +0, exp2(+inf) = +inf,
/// log2(±0) = −inf, log2(x < 0) = NaN, log2(+inf) = +inf, tanh(±inf) = ±1,
/// tanh(±0) = ±0. An invalid operation gives the default NaN.
fn libm(op: UnOp, f: Fmt, ty: FloatTy, a: u64) -> u64 {
    if f.is_nan(a) {
        return f.quiet(a);
    }
    let x = to_f64(ty, a);
    let y = match op {
        UnOp::Sin => x.sin(),
        UnOp::Cos => x.cos(),
        UnOp::Exp2 => x.exp2(),
        UnOp::Log2 => x.log2(),
        _ => x.tanh(),
    };
    if y.is_nan() {
        return f.default_nan();
    }
    from_f64(f, y, Round::NearestEven)
}

/// `frc` (13 §2.12): `a − round(a, .rd)`, the subtraction also rounded down
/// (".rd rounding mode is always applied"), so the result lies in [0, 1).
/// Integral values (and ±0) give +0; ±inf give the default NaN.
fn frc(f: Fmt, ty: FloatTy, a: u64) -> u64 {
    match unpack(f, a) {
        Val::Nan => f.quiet(a),
        Val::Inf(_) => f.default_nan(),
        Val::Zero(_) => 0,
        Val::Fin { exp, .. } if exp >= 0 => 0,
        Val::Fin { .. } => {
            let down = FloatMode {
                round: Round::Down,
                ..FloatMode::default()
            };
            let fl = round_to_integral(ty, a, down);
            if fl == a {
                // integral
                return 0;
            }
            if fl & !f.sign() == 0 {
                // 0 < a < 1
                return a;
            }
            arith::add(f, a, fl, true, Round::Down)
        }
    }
}

/// `(lo, hi)` = `a × b` (256 bits).
#[inline]
fn mul_wide(a: u128, b: u64) -> (u128, u128) {
    let p0 = (a as u64) as u128 * b as u128;
    let p1 = (a >> 64) * b as u128;
    let lo = p0.wrapping_add(p1 << 64);
    let hi = (p1 >> 64) + (lo < p0) as u128;
    (lo, hi)
}

/// Compares `t² × x` with 1 for `t = tm × 2^te` (`tm` < 2^60) and
/// `x = xm × 2^xe`, exactly.
fn cmp_rsq(tm: u64, te: i64, xm: u64, xe: i64) -> Ordering {
    let (lo, hi) = mul_wide(tm as u128 * tm as u128, xm);
    let (len, pow2) = if hi != 0 {
        (
            256 - hi.leading_zeros() as i64,
            hi.is_power_of_two() && lo == 0,
        )
    } else {
        (128 - lo.leading_zeros() as i64, lo.is_power_of_two())
    };
    if len == 0 {
        return Ordering::Less;
    }
    // t² x = P × 2^(2te + xe) with 2^(len-1) ≤ P < 2^len
    match (len - 1 + 2 * te + xe).cmp(&0) {
        Ordering::Equal if pow2 => Ordering::Equal,
        Ordering::Equal => Ordering::Greater,
        o => o,
    }
}

/// `1/√a`, correctly rounded by `mode` in every format: an `f64` estimate,
/// moved to the largest value `g` of the format with `g ≤ 1/√a`, then rounded
/// by comparing `g` and the midpoint above it exactly (`t² a` against 1).
/// rsqrt(±0) = ±inf, rsqrt(+inf) = +0, negative operands give the default NaN.
pub(crate) fn rsqrt(f: Fmt, ty: FloatTy, a: u64, mode: Round) -> u64 {
    let (xm, xe) = match unpack(f, a) {
        Val::Nan => return f.quiet(a),
        Val::Zero(neg) => return f.infinity(neg),
        Val::Inf(false) => return 0,
        Val::Inf(true) | Val::Fin { neg: true, .. } => return f.default_nan(),
        Val::Fin { mant, exp, .. } => (mant, exp),
    };
    let y = 1.0 / to_f64(ty, a).sqrt();
    // positive, finite and nonzero in every format: no overflow or underflow
    let mut g = from_f64(f, y, Round::Zero);
    let fin = |bits: u64| match unpack(f, bits) {
        Val::Fin { mant, exp, .. } => Some((mant, exp)),
        _ => None,
    };
    for _ in 0..16 {
        let Some((gm, ge)) = fin(g) else { break };
        if cmp_rsq(gm, ge, xm, xe) == Ordering::Greater {
            g -= 1;
            continue;
        }
        match fin(g + 1) {
            Some((nm, ne)) if cmp_rsq(nm, ne, xm, xe) != Ordering::Greater => g += 1,
            _ => break,
        }
    }
    let Some((gm, ge)) = fin(g) else { return g };
    let rest = if cmp_rsq(gm, ge, xm, xe) == Ordering::Equal {
        Rest::Exact
    } else {
        // the midpoint above g: (2 gm + 1) × 2^(ge - 1)
        match cmp_rsq(2 * gm + 1, ge - 1, xm, xe) {
            Ordering::Greater => Rest::Below,
            Ordering::Equal => Rest::Tie,
            Ordering::Less => Rest::Above,
        }
    };
    if round_up(mode, false, gm & 1 == 1, rest) {
        g + 1
    } else {
        g
    }
}
