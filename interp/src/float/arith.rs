//! Exact arithmetic (spec 13: `fadd`, `fsub`, `fmul`, `fdiv`, `fmad`,
//! `fsqrt`, `fmin`, `fmax`) in integers: each operation computes its exact
//! result (or a truncation of it with enough bits and a sticky bit) and
//! rounds it once with [`round_bits`], in any format and rounding mode.
//! `mod.rs` takes native shortcuts where those are provably the same.

use super::round::{round_bits, unpack, Fmt, Val};
use super::Round;
use std::cmp::Ordering;

/// A finite nonzero term: sign, significand, exponent.
pub(crate) type Term = (bool, u128, i64);

/// Leading bit of the operands of [`add_fin`] after normalization.
const TOP: u32 = 125;

/// `(-1)^na × ma × 2^ea + (-1)^nb × mb × 2^eb`, rounded once. `ma`, `mb`
/// nonzero with at most 126 bits. An exact zero sum is +0, or −0 when rounding
/// down (IEEE 754 §6.3).
pub(crate) fn add_fin(f: Fmt, mode: Round, (na, ma, ea): Term, (nb, mb, eb): Term) -> u64 {
    let norm = |m: u128, e: i64| {
        let s = m.leading_zeros() - (127 - TOP);
        (m << s, e - s as i64)
    };
    let (a, ea) = norm(ma, ea);
    let (b, eb) = norm(mb, eb);
    // x: the operand of larger magnitude
    let ((nx, x, ex), (ny, y, ey)) = if (ea, a) >= (eb, b) {
        ((na, a, ea), (nb, b, eb))
    } else {
        ((nb, b, eb), (na, a, ea))
    };
    let d = ex - ey;
    let (y, lost) = if d >= 128 {
        (0, true)
    } else {
        let d = d as u32;
        (y >> d, d > 0 && y & ((1u128 << d) - 1) != 0)
    };
    if nx == ny {
        // < 2^127: no overflow
        return round_bits(f, nx, x + y, ex, lost, mode);
    }
    // x - (y + δ), 0 < δ < 1 when bits were lost: (x - y - 1) + (1 - δ)
    let s = x - y;
    if s == 0 {
        // d == 0 and equal magnitudes: nothing was lost
        return f.zero(mode == Round::Down);
    }
    if lost {
        // lost bits imply d > 20, so s > 2^124: p + 2 bits remain
        round_bits(f, nx, s - 1, ex, true, mode)
    } else {
        round_bits(f, nx, s, ex, false, mode)
    }
}

/// `(-1)^neg × ma × mb × 2^(ea+eb)`, rounded once (exact product).
#[inline]
pub(crate) fn mul_fin(f: Fmt, mode: Round, neg: bool, ma: u64, ea: i64, mb: u64, eb: i64) -> u64 {
    round_bits(f, neg, ma as u128 * mb as u128, ea + eb, false, mode)
}

/// Normalizes a nonzero 64-bit significand to its bit 63.
#[inline]
fn norm64(m: u64, e: i64) -> (u64, i64) {
    let s = m.leading_zeros();
    (m << s, e - s as i64)
}

/// `(ma × 2^ea) / (mb × 2^eb)`, rounded once.
pub(crate) fn div_fin(f: Fmt, mode: Round, neg: bool, ma: u64, ea: i64, mb: u64, eb: i64) -> u64 {
    let (a, ea) = norm64(ma, ea);
    let (b, eb) = norm64(mb, eb);
    let n = (a as u128) << 64;
    let (q, r) = (n / b as u128, n % b as u128);
    // q in (2^63, 2^65): at least 64 bits
    round_bits(f, neg, q, ea - eb - 64, r != 0, mode)
}

/// ⌊√m⌋.
pub(crate) fn isqrt(m: u128) -> u128 {
    if m < 2 {
        return m;
    }
    // an f64 estimate (relative error ~2^-52), raised above the root, then
    // Newton's iteration from above, which decreases monotonically to ⌊√m⌋
    let est = (m as f64).sqrt() as u128;
    let mut x = est + (est >> 40) + 2;
    loop {
        let y = (x + m / x) >> 1;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// `√(m × 2^e)`, rounded once.
pub(crate) fn sqrt_fin(f: Fmt, mode: Round, m: u64, e: i64) -> u64 {
    let (m, e) = norm64(m, e);
    // M = m × 2^s with e - s even; M ≥ 2^126, so √M ≥ 2^63
    let s: u32 = if (e - 64).rem_euclid(2) == 0 { 64 } else { 63 };
    let big = (m as u128) << s;
    let r = isqrt(big);
    round_bits(f, false, r, (e - s as i64) / 2, r * r != big, mode)
}

/// IEEE 754 `minimumNumber`/`maximumNumber` (or, with `nanp`, `minimum`/
/// `maximum`) with −0 < +0 (13 §2.8, §2.9). A NaN result is the first NaN
/// operand, quieted.
pub(crate) fn min_max(f: Fmt, a: u64, b: u64, max: bool, nanp: bool) -> u64 {
    let (an, bn) = (f.is_nan(a), f.is_nan(b));
    if an || bn {
        return if an && (nanp || bn) {
            f.quiet(a)
        } else if nanp {
            f.quiet(b)
        } else if an {
            b
        } else {
            a
        };
    }
    let key = |x: u64| {
        let mag = (x & !f.sign()) as i64;
        if f.is_neg(x) {
            -mag - 1
        } else {
            mag
        }
    };
    if (key(a) < key(b)) == max {
        b
    } else {
        a
    }
}

/// `a + b` (`b` negated first with `sub`), every operand class, any mode.
pub(crate) fn add(f: Fmt, a: u64, b: u64, sub: bool, mode: Round) -> u64 {
    let (va, vb) = (unpack(f, a), unpack(f, b));
    let flip = |v: Val| match v {
        Val::Inf(n) => Val::Inf(n != sub),
        Val::Zero(n) => Val::Zero(n != sub),
        Val::Fin { neg, mant, exp } => Val::Fin {
            neg: neg != sub,
            mant,
            exp,
        },
        Val::Nan => Val::Nan,
    };
    match (va, flip(vb)) {
        (Val::Nan, _) => f.quiet(a),
        (_, Val::Nan) => f.quiet(b),
        (Val::Inf(x), Val::Inf(y)) if x != y => f.default_nan(),
        (Val::Inf(x), _) | (_, Val::Inf(x)) => f.infinity(x),
        (Val::Zero(x), Val::Zero(y)) => f.zero(if x == y { x } else { mode == Round::Down }),
        (Val::Zero(_), Val::Fin { neg, mant, exp })
        | (Val::Fin { neg, mant, exp }, Val::Zero(_)) => {
            round_bits(f, neg, mant as u128, exp, false, mode)
        }
        (
            Val::Fin {
                neg: na,
                mant: ma,
                exp: ea,
            },
            Val::Fin {
                neg: nb,
                mant: mb,
                exp: eb,
            },
        ) => add_fin(f, mode, (na, ma as u128, ea), (nb, mb as u128, eb)),
    }
}

pub(crate) fn mul(f: Fmt, a: u64, b: u64, mode: Round) -> u64 {
    let neg = f.is_neg(a) != f.is_neg(b);
    match (unpack(f, a), unpack(f, b)) {
        (Val::Nan, _) => f.quiet(a),
        (_, Val::Nan) => f.quiet(b),
        (Val::Inf(_), Val::Zero(_)) | (Val::Zero(_), Val::Inf(_)) => f.default_nan(),
        (Val::Inf(_), _) | (_, Val::Inf(_)) => f.infinity(neg),
        (Val::Zero(_), _) | (_, Val::Zero(_)) => f.zero(neg),
        (
            Val::Fin {
                mant: ma, exp: ea, ..
            },
            Val::Fin {
                mant: mb, exp: eb, ..
            },
        ) => mul_fin(f, mode, neg, ma, ea, mb, eb),
    }
}

pub(crate) fn div(f: Fmt, a: u64, b: u64, mode: Round) -> u64 {
    let neg = f.is_neg(a) != f.is_neg(b);
    match (unpack(f, a), unpack(f, b)) {
        (Val::Nan, _) => f.quiet(a),
        (_, Val::Nan) => f.quiet(b),
        (Val::Inf(_), Val::Inf(_)) | (Val::Zero(_), Val::Zero(_)) => f.default_nan(),
        (Val::Inf(_), _) | (_, Val::Zero(_)) => f.infinity(neg),
        (Val::Zero(_), _) | (_, Val::Inf(_)) => f.zero(neg),
        (
            Val::Fin {
                mant: ma, exp: ea, ..
            },
            Val::Fin {
                mant: mb, exp: eb, ..
            },
        ) => div_fin(f, mode, neg, ma, ea, mb, eb),
    }
}

/// `a × b + c` with one rounding (13 §2.7).
pub(crate) fn fma(f: Fmt, a: u64, b: u64, c: u64, mode: Round) -> u64 {
    let (va, vb, vc) = (unpack(f, a), unpack(f, b), unpack(f, c));
    let np = f.is_neg(a) != f.is_neg(b);
    match (va, vb, vc) {
        (Val::Nan, _, _) => return f.quiet(a),
        (_, Val::Nan, _) => return f.quiet(b),
        (_, _, Val::Nan) => return f.quiet(c),
        (Val::Inf(_), Val::Zero(_), _) | (Val::Zero(_), Val::Inf(_), _) => return f.default_nan(),
        (Val::Inf(_), _, Val::Inf(nc)) | (_, Val::Inf(_), Val::Inf(nc)) if nc != np => {
            return f.default_nan()
        }
        (Val::Inf(_), _, _) | (_, Val::Inf(_), _) => return f.infinity(np),
        (_, _, Val::Inf(nc)) => return f.infinity(nc),
        _ => {}
    }
    match (va, vb, vc) {
        (Val::Zero(_), _, Val::Zero(nc)) | (_, Val::Zero(_), Val::Zero(nc)) => {
            f.zero(if np == nc { np } else { mode == Round::Down })
        }
        (Val::Zero(_), _, _) | (_, Val::Zero(_), _) => c,
        (
            Val::Fin {
                mant: ma, exp: ea, ..
            },
            Val::Fin {
                mant: mb, exp: eb, ..
            },
            Val::Zero(_),
        ) => mul_fin(f, mode, np, ma, ea, mb, eb),
        (
            Val::Fin {
                mant: ma, exp: ea, ..
            },
            Val::Fin {
                mant: mb, exp: eb, ..
            },
            Val::Fin {
                neg: nc,
                mant: mc,
                exp: ec,
            },
        ) => add_fin(
            f,
            mode,
            (np, ma as u128 * mb as u128, ea + eb),
            (nc, mc as u128, ec),
        ),
        _ => f.default_nan(), // not reached: the specials returned above
    }
}

/// `√a`: √−0 = −0, negative operands give the default NaN.
pub(crate) fn sqrt(f: Fmt, a: u64, mode: Round) -> u64 {
    match unpack(f, a) {
        Val::Nan => f.quiet(a),
        Val::Zero(_) => a,
        Val::Inf(false) => a,
        Val::Inf(true) | Val::Fin { neg: true, .. } => f.default_nan(),
        Val::Fin { mant, exp, .. } => sqrt_fin(f, mode, mant, exp),
    }
}

/// The ordering of two non-NaN values (+0 == −0).
#[inline]
pub(crate) fn cmp_values(f: Fmt, a: u64, b: u64) -> Ordering {
    let key = |x: u64| {
        let mag = (x & !f.sign()) as i64;
        if f.is_neg(x) {
            -mag
        } else {
            mag
        }
    };
    key(a).cmp(&key(b))
}
