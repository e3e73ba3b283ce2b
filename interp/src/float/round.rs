//! Formats, decoding, and the one rounding routine every exact operation ends
//! in ([`round_bits`]): an exact value `mant × 2^exp` (plus an optional sticky
//! fraction below `mant`'s last bit) rounded once into a format, with
//! subnormals, overflow and every PISA rounding mode (03 §3.2).

use super::{FloatTy, Round};

/// The parameters of a binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fmt {
    /// Width in bits.
    pub bits: u32,
    /// Precision: significand bits including the hidden one.
    pub p: u32,
    /// Exponent of the smallest normal number.
    pub emin: i32,
    /// Exponent of the largest finite number.
    pub emax: i32,
}

impl Fmt {
    #[inline]
    pub const fn of(ty: FloatTy) -> Fmt {
        match ty {
            FloatTy::Half => Fmt {
                bits: 16,
                p: 11,
                emin: -14,
                emax: 15,
            },
            FloatTy::BFloat => Fmt {
                bits: 16,
                p: 8,
                emin: -126,
                emax: 127,
            },
            FloatTy::Single => Fmt {
                bits: 32,
                p: 24,
                emin: -126,
                emax: 127,
            },
            FloatTy::Double => Fmt {
                bits: 64,
                p: 53,
                emin: -1022,
                emax: 1023,
            },
        }
    }
    /// All bits of the format.
    #[inline]
    pub const fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }
    #[inline]
    pub const fn sign(self) -> u64 {
        1u64 << (self.bits - 1)
    }
    /// The fraction field.
    #[inline]
    pub const fn frac_mask(self) -> u64 {
        (1u64 << (self.p - 1)) - 1
    }
    /// The exponent field; also the bits of +infinity.
    #[inline]
    pub const fn inf(self) -> u64 {
        self.mask() & !self.sign() & !self.frac_mask()
    }
    /// The most significant fraction bit: set in a quiet NaN (03 §3.4).
    #[inline]
    pub const fn quiet_bit(self) -> u64 {
        1u64 << (self.p - 2)
    }
    /// The positive canonical quiet NaN, the result of invalid operations.
    #[inline]
    pub const fn default_nan(self) -> u64 {
        self.inf() | self.quiet_bit()
    }
    /// The largest finite value (positive).
    #[inline]
    pub const fn max_finite(self) -> u64 {
        self.inf() - 1
    }
    /// The bits of +1.0.
    #[inline]
    pub const fn one(self) -> u64 {
        (self.emax as u64) << (self.p - 1)
    }
    #[inline]
    pub const fn is_nan(self, a: u64) -> bool {
        a & !self.sign() > self.inf()
    }
    #[inline]
    pub const fn is_inf(self, a: u64) -> bool {
        a & !self.sign() == self.inf()
    }
    #[inline]
    pub const fn is_neg(self, a: u64) -> bool {
        a & self.sign() != 0
    }
    /// Nonzero with a zero exponent field.
    #[inline]
    pub const fn is_subnormal(self, a: u64) -> bool {
        a & self.inf() == 0 && a & self.frac_mask() != 0
    }
    #[inline]
    pub const fn quiet(self, a: u64) -> u64 {
        a | self.quiet_bit()
    }
    /// `.ftz` (03 §3.3): a subnormal becomes the zero of its sign.
    #[inline]
    pub const fn flush(self, a: u64) -> u64 {
        if a & self.inf() == 0 {
            a & self.sign()
        } else {
            a
        }
    }
    #[inline]
    pub const fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign()
        } else {
            0
        }
    }
    #[inline]
    pub const fn infinity(self, neg: bool) -> u64 {
        self.inf() | self.zero(neg)
    }
}

/// A decoded value. Finite nonzero values are `mant × 2^exp` exactly, `mant`
/// holding the hidden bit of normal numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin { neg: bool, mant: u64, exp: i64 },
}

#[inline]
pub(crate) fn unpack(f: Fmt, a: u64) -> Val {
    let neg = f.is_neg(a);
    let field = (a & f.inf()) >> (f.p - 1);
    let frac = a & f.frac_mask();
    let min_lsb = (f.emin - (f.p as i32 - 1)) as i64;
    if field == 0 {
        if frac == 0 {
            Val::Zero(neg)
        } else {
            Val::Fin {
                neg,
                mant: frac,
                exp: min_lsb,
            }
        }
    } else if a & f.inf() == f.inf() {
        if frac == 0 {
            Val::Inf(neg)
        } else {
            Val::Nan
        }
    } else {
        Val::Fin {
            neg,
            mant: frac | (1u64 << (f.p - 1)),
            exp: min_lsb + field as i64 - 1,
        }
    }
}

/// Where the exact value lies relative to a truncated result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rest {
    /// The truncation is exact.
    Exact,
    /// Strictly between the truncation and the midpoint to the next value.
    Below,
    /// Exactly at the midpoint.
    Tie,
    /// Strictly above the midpoint.
    Above,
}

/// Whether a truncated magnitude `q` (its last bit `odd`) is incremented.
#[inline]
pub(crate) fn round_up(mode: Round, neg: bool, odd: bool, rest: Rest) -> bool {
    match mode {
        Round::NearestEven => rest == Rest::Above || (rest == Rest::Tie && odd),
        Round::NearestAway => matches!(rest, Rest::Above | Rest::Tie),
        Round::Zero => false,
        Round::Up => !neg && rest != Rest::Exact,
        Round::Down => neg && rest != Rest::Exact,
    }
}

/// `mant >> s` and the class of the bits shifted out (plus `sticky`, a
/// nonzero fraction below `mant`'s last bit).
#[inline]
pub(crate) fn shift_round(mant: u128, s: u32, sticky: bool) -> (u128, Rest) {
    if s == 0 {
        return (mant, if sticky { Rest::Below } else { Rest::Exact });
    }
    if s > 128 {
        let rest = if mant != 0 || sticky {
            Rest::Below
        } else {
            Rest::Exact
        };
        return (0, rest);
    }
    let (q, rem, half) = if s == 128 {
        (0, mant, 1u128 << 127)
    } else {
        (mant >> s, mant & ((1u128 << s) - 1), 1u128 << (s - 1))
    };
    let rest = if rem == 0 && !sticky {
        Rest::Exact
    } else if rem < half {
        Rest::Below
    } else if rem == half && !sticky {
        Rest::Tie
    } else {
        Rest::Above
    };
    (q, rest)
}

/// The result of an overflow: infinity or the largest finite value, by the
/// rounding direction (IEEE 754 §7.4).
#[inline]
pub(crate) fn overflow(f: Fmt, neg: bool, mode: Round) -> u64 {
    let to_inf = match mode {
        Round::NearestEven | Round::NearestAway => true,
        Round::Zero => false,
        Round::Up => !neg,
        Round::Down => neg,
    };
    (if to_inf { f.inf() } else { f.max_finite() }) | f.zero(neg)
}

/// Rounds the exact value `(-1)^neg × (mant + δ) × 2^exp` into `f`, where
/// `δ` is 0 when `sticky` is false and strictly between 0 and 1 otherwise.
/// With `sticky`, `mant` must have at least `p + 2` significant bits (so the
/// unknown fraction lies below the rounding bit). A zero result keeps the
/// sign `neg`.
pub(crate) fn round_bits(
    f: Fmt,
    neg: bool,
    mant: u128,
    exp: i64,
    sticky: bool,
    mode: Round,
) -> u64 {
    let sign = f.zero(neg);
    if mant == 0 {
        return sign;
    }
    let p = f.p as i64;
    let min_lsb = f.emin as i64 - (p - 1);
    let n = 128 - mant.leading_zeros() as i64;
    // exponent of the leading bit
    let top = exp.saturating_add(n - 1);
    if top > f.emax as i64 {
        return overflow(f, neg, mode);
    }
    let lsb = (top - (p - 1)).max(min_lsb);
    let shift = lsb - exp;
    let (q, rest) = if shift <= 0 {
        // exact, or (violating the precondition) a fraction below the last bit
        let q = mant << (-shift) as u32;
        (q, if sticky { Rest::Below } else { Rest::Exact })
    } else {
        shift_round(mant, shift.min(200) as u32, sticky)
    };
    let q = q as u64 + round_up(mode, neg, q & 1 == 1, rest) as u64;
    // subnormals: lsb == min_lsb and q below the hidden bit, so the exponent
    // field is 0; a carry out of the significand moves into the exponent
    let bits = (((lsb - min_lsb) as u64) << (p - 1)) + q;
    if bits >= f.inf() {
        return overflow(f, neg, mode);
    }
    bits | sign
}

/// A NaN of format `from` as a quiet NaN of format `to`: the sign and the
/// leading fraction bits (the payload) carry over, the quiet bit is set.
#[inline]
pub(crate) fn nan_convert(from: Fmt, to: Fmt, a: u64) -> u64 {
    let frac = a & from.frac_mask();
    let frac = if to.p >= from.p {
        frac << (to.p - from.p)
    } else {
        frac >> (from.p - to.p)
    };
    to.quiet(to.inf() | frac | to.zero(from.is_neg(a)))
}

/// Exact widening of any supported format's bits to an `f64` (NaNs become
/// some NaN).
#[inline]
pub(crate) fn to_f64(ty: FloatTy, a: u64) -> f64 {
    match ty {
        FloatTy::Double => f64::from_bits(a),
        FloatTy::Single => f32::from_bits(a as u32) as f64,
        FloatTy::BFloat => f32::from_bits(((a as u32) & 0xFFFF) << 16) as f64,
        FloatTy::Half => {
            let a = a as u32 & 0xFFFF;
            let sign = ((a >> 15) as u64) << 63;
            let e = (a >> 10) & 0x1F;
            let m = (a & 0x3FF) as u64;
            let mag = if e == 0 {
                // exact: m < 2^10, times 2^-24
                m as f64 * f64::from_bits(((1023 - 24) as u64) << 52)
            } else if e == 31 {
                if m == 0 {
                    f64::INFINITY
                } else {
                    f64::NAN
                }
            } else {
                f64::from_bits((((e + 1023 - 15) as u64) << 52) | (m << 42))
            };
            f64::from_bits(mag.to_bits() | sign)
        }
    }
}

/// An `f64` rounded once into `f` (NaNs as by [`nan_convert`]).
#[inline]
pub(crate) fn from_f64(f: Fmt, x: f64, mode: Round) -> u64 {
    let d = Fmt::of(FloatTy::Double);
    let b = x.to_bits();
    if f == d {
        return b;
    }
    if mode == Round::NearestEven {
        // the usual case: a normal result. Round the f64 bits (exponent and
        // fraction together) at the destination's last fraction bit, ties to
        // even; a carry moves into the exponent, up to infinity's field.
        let mag = b & !(1u64 << 63);
        let e = (mag >> 52) as i64 - 1023;
        if e >= f.emin as i64 && e <= f.emax as i64 {
            let shift = 53 - f.p;
            let odd = (mag >> shift) & 1;
            let r = (mag + (1u64 << (shift - 1)) - 1 + odd) >> shift;
            let r = r - (((1023 - f.emax) as u64) << (f.p - 1));
            let r = if r >= f.inf() { f.inf() } else { r };
            return r | f.zero(b >> 63 != 0);
        }
    }
    match unpack(d, b) {
        Val::Nan => nan_convert(d, f, b),
        Val::Inf(neg) => f.infinity(neg),
        Val::Zero(neg) => f.zero(neg),
        Val::Fin { neg, mant, exp } => round_bits(f, neg, mant as u128, exp, false, mode),
    }
}
