//! Conversions (spec 15): `fext`, `ftrunc`, `ftrunc2`, `f2i`, `pf2i`, `i2f`,
//! `frnd`, and the widening `fmul.full` (13 §2.10).

use super::round::{
    from_f64, nan_convert, round_bits, round_up, shift_round, to_f64, unpack, Fmt, Val,
};
use super::{binary, BinOp, FloatMode, FloatTy, Round};

/// `.dsat` of the conversions (15 §4.8, §4.10): the result is clamped to the
/// finite range of the destination (±infinity become ±max); NaN stays NaN.
#[inline]
fn clamp_finite(f: Fmt, r: u64) -> u64 {
    if f.is_inf(r) {
        f.max_finite() | (r & f.sign())
    } else {
        r
    }
}

/// `fext` / `ftrunc` (15 §4.6, §4.8): `a` of format `from` as format `to`.
///
/// - Widening is exact; a NaN keeps its sign and payload and is quieted.
/// - Narrowing rounds once by `m.round`; overflow follows the rounding
///   direction (IEEE 754), `.dsat` clamps to ±max finite of `to`.
/// - Narrowing flushes a subnormal *source* to the zero of its sign in every
///   mode (the 15 §4.8 table: "±denorm → ±0"); `.ftz` also flushes a
///   subnormal result.
pub fn convert(from: FloatTy, to: FloatTy, a: u64, m: FloatMode) -> u64 {
    let (ff, tf) = (Fmt::of(from), Fmt::of(to));
    let mut a = a & ff.mask();
    if m.ftz || (tf.bits < ff.bits && ff.is_subnormal(a)) {
        a = ff.flush(a);
    }
    let r = match unpack(ff, a) {
        Val::Nan => nan_convert(ff, tf, a),
        Val::Inf(neg) => tf.infinity(neg),
        Val::Zero(neg) => tf.zero(neg),
        // finite values are exact in f64
        Val::Fin { .. } if m.round == Round::NearestEven => from_f64(tf, to_f64(from, a), m.round),
        Val::Fin { neg, mant, exp } => round_bits(tf, neg, mant as u128, exp, false, m.round),
    };
    let r = if m.dsat { clamp_finite(tf, r) } else { r };
    if m.ftz {
        tf.flush(r)
    } else {
        r
    }
}

/// `ftrunc2.hfx2` / `.bfx2` (15 §4.9): two f32 values (`a` low, `b` high)
/// narrowed into a packed pair (`a` in bits 15:0, `b` in bits 31:16).
pub fn ftrunc2(to: FloatTy, a: u64, b: u64, m: FloatMode) -> u64 {
    let lo = convert(FloatTy::Single, to, a, m) & 0xFFFF;
    let hi = convert(FloatTy::Single, to, b, m) & 0xFFFF;
    lo | hi << 16
}

/// A finite value `(-1)^neg × mant × 2^exp` rounded to an integer
/// magnitude, or `None` when it is at least 2^66 (out of every range).
#[inline]
fn round_int(neg: bool, mant: u64, exp: i64, mode: Round) -> Option<u128> {
    if exp >= 0 {
        if exp + 64 - mant.leading_zeros() as i64 > 66 {
            return None;
        }
        return Some((mant as u128) << exp);
    }
    let (q, rest) = shift_round(mant as u128, (-exp).min(200) as u32, false);
    Some(q + round_up(mode, neg, q & 1 == 1, rest) as u128)
}

/// `f2i` (15 §4.5): `a` rounded to an integer by `m.round`, then clamped to
/// the `bits`-bit signed or unsigned range; NaN → 0; ±inf → the limits;
/// negative values → 0 for unsigned results. The result is the integer's
/// two's-complement bits in the low `bits` bits. `bits` is clamped to 1..=64.
///
/// Note: PISA's `f2i` *without* a rounding qualifier truncates
/// (docs/spec-notes.md, "f2i without a rounding qualifier"); the caller passes
/// `Round::Zero` then.
pub fn to_int(from: FloatTy, a: u64, signed: bool, bits: u32, m: FloatMode) -> u64 {
    let f = Fmt::of(from);
    let bits = bits.clamp(1, 64);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut a = a & f.mask();
    if m.ftz {
        a = f.flush(a);
    }
    // limits as magnitudes
    let (imax, imin_mag): (u128, u128) = if signed {
        ((1u128 << (bits - 1)) - 1, 1u128 << (bits - 1))
    } else {
        (mask as u128, 0)
    };
    let (neg, mag) = match unpack(f, a) {
        Val::Nan | Val::Zero(_) => return 0,
        Val::Inf(neg) => (neg, None),
        Val::Fin { neg, mant, exp } => (neg, round_int(neg, mant, exp, m.round)),
    };
    let mag = if neg {
        mag.map_or(imin_mag, |v| v.min(imin_mag))
    } else {
        mag.map_or(imax, |v| v.min(imax))
    };
    let v = if neg {
        (mag as u64).wrapping_neg()
    } else {
        mag as u64
    };
    v & mask
}

/// `pf2i` (15 §4.15): each 16-bit element of `a` (`from` is `Half` or
/// `BFloat`) converted by [`to_int`] to a 16-bit integer.
pub fn pf2i(from: FloatTy, a: u64, signed: bool, m: FloatMode) -> u64 {
    let lo = to_int(from, a & 0xFFFF, signed, 16, m);
    let hi = to_int(from, (a >> 16) & 0xFFFF, signed, 16, m);
    lo | hi << 16
}

/// `i2f` (15 §4.10): the low `bits` bits of `a` as a signed or unsigned
/// integer, rounded once into `to` by `m.round`. Overflow follows the rounding
/// direction (IEEE 754); `.dsat` clamps to ±max finite. `bits` is clamped to
/// 1..=64.
pub fn from_int(to: FloatTy, a: u64, signed: bool, bits: u32, m: FloatMode) -> u64 {
    let f = Fmt::of(to);
    let bits = bits.clamp(1, 64);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let v = a & mask;
    let neg = signed && v >> (bits - 1) & 1 == 1;
    let mag = if neg {
        (1u128 << bits) - v as u128
    } else {
        v as u128
    };
    let r = round_bits(f, neg, mag, 0, false, m.round);
    let r = if m.dsat { clamp_finite(f, r) } else { r };
    if m.ftz {
        f.flush(r)
    } else {
        r
    }
}

/// `frnd` (15 §4.7): `a` rounded to an integral value of the same format by
/// `m.round`. Zero results keep the sign of `a` (IEEE `roundToIntegral`);
/// ±inf and ±0 are returned as they are, NaN quieted.
pub fn round_to_integral(ty: FloatTy, a: u64, m: FloatMode) -> u64 {
    let f = Fmt::of(ty);
    let mut a = a & f.mask();
    if m.ftz {
        a = f.flush(a);
    }
    let r = match unpack(f, a) {
        Val::Nan => f.quiet(a),
        Val::Inf(_) | Val::Zero(_) => a,
        Val::Fin { exp, .. } if exp >= 0 => a,
        Val::Fin { neg, mant, exp } => {
            let q = round_int(neg, mant, exp, m.round).unwrap_or(0);
            round_bits(f, neg, q, 0, false, Round::NearestEven)
        }
    };
    super::finish(f, r, m)
}

/// `fmul.full` (13 §2.10): `a × b` of a 16-bit type (`Half`, `BFloat`)
/// computed in f32 (for `Single`, f64; for `Double`, a plain `fmul`): the
/// sources are extended exactly, so the product is exact for `.hf`, and
/// rounded by `m.round` (it can underflow or overflow f32) for `.bf`. `.ftz`
/// flushes the sources in their own format and the f32 result.
pub fn mul_full(ty: FloatTy, a: u64, b: u64, m: FloatMode) -> u64 {
    let wide = match ty {
        FloatTy::Half | FloatTy::BFloat => FloatTy::Single,
        FloatTy::Single | FloatTy::Double => FloatTy::Double,
    };
    let f = Fmt::of(ty);
    let ext = |x: u64| {
        let x = x & f.mask();
        let x = if m.ftz { f.flush(x) } else { x };
        convert(ty, wide, x, FloatMode::default())
    };
    binary(BinOp::Mul, wide, ext(a), ext(b), m)
}
