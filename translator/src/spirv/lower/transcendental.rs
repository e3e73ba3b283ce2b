//! Transcendental instructions (spec 13): `fsin`, `fcos` (2 ULP), `fexp2` (2 ULP), `flog2` (1 ULP;
//! relative 2^-23 on [0.5, 1.5)) and `ftanh` (2 ULP) on `.f`, `.hf`, `.bf`
//! (and, lane by lane, their packed forms). Vulkan's `GLSL.std.450`
//! built-ins promise less (`Exp2` 3 + 2·|x| ULP, `Log2` an absolute 2^-21
//! near 1, `Tanh` inherited from `Exp`), so these are computed here, the
//! same way on every driver: in f64 with polynomials accurate to about
//! 2^-52, then rounded once to the format, which keeps them within half an
//! ULP and f64's own error — far inside the bounds. Only f64 additions,
//! multiplications, divisions and `Floor`, which every driver computes
//! correctly rounded, are used (no f64 `RoundEven`: lavapipe's rounds ties
//! the wrong way).
//!
//! `fsin` and `fcos` (2 ULP) reduce their argument modulo π/2 by
//! Payne–Hanek: the f32 argument is an integer M times 2^E, and only 96 bits
//! of 2/π starting where M·2^E·(2/π) has weight 4 matter for the quadrant
//! and the fraction, which come out of a 24 × 96-bit integer product to 64
//! fractional bits — exact for every f32 argument up to 2^128, where a
//! floating-point reduction loses every bit. The reduced argument, within
//! π/4, goes through sin and cos series in f64.

use super::floating_point::{f64_source, flush, nan_rules};
use super::rounding::Narrow;
use super::{Ins, R};
use crate::ir::qualifier::Rndmode;
use crate::ir::Opcode;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

/// ln 2 and 1/ln 2 as f64.
const LN2: f64 = std::f64::consts::LN_2;
const LOG2_E: f64 = std::f64::consts::LOG2_E;

impl FunctionCx<'_, '_> {
    /// A polynomial in `t` with coefficients from the highest degree down
    /// (Horner's scheme; every step `NoContraction`).
    fn horner(&mut self, t: Word, coeffs: &[f64]) -> R<Word> {
        let dt = self.tx.float(64);
        let mut acc = self.f64c(coeffs[0])?;
        for &c in &coeffs[1..] {
            let m = self.tx.b.f_mul(dt, None, acc, t)?;
            let k = self.f64c(c)?;
            acc = self.tx.b.f_add(dt, None, m, k)?;
        }
        Ok(acc)
    }

    /// 2^x for an f64 `x` whose result matters only within f32's range
    /// (|x| is clamped to 200): 2^n · e^(f·ln 2) with n = ⌊x + ½⌋ and
    /// |f| ≤ ½, e^t by its Taylor series to degree 14 (|t| ≤ 0.35: the
    /// first term left out is below 2^-60).
    fn exp2_f64(&mut self, x: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let lo = self.f64c(-200.0)?;
        let hi = self.f64c(200.0)?;
        let x = self.tx.glsl_op(dt, G::FClamp, &[x, lo, hi])?;
        let half = self.f64c(0.5)?;
        let xh = self.tx.b.f_add(dt, None, x, half)?;
        let n = self.tx.glsl_op(dt, G::Floor, &[xh])?;
        // exact: x has at most 24 significant bits and |x| ≤ 200
        let f = self.tx.b.f_sub(dt, None, x, n)?;
        let ln2 = self.f64c(LN2)?;
        let t = self.tx.b.f_mul(dt, None, f, ln2)?;
        let coeffs: Vec<f64> = (0..=14).rev().map(|k| 1.0 / factorial(k)).collect();
        let e = self.horner(t, &coeffs)?;
        // 2^n as an f64 built from its exponent field (|n| ≤ 200)
        let u32t = self.tx.uint(32);
        let nu = self.tx.b.convert_f_to_s(u32t, None, n)?;
        let u64t = self.tx.uint(64);
        let bias = self.tx.const_uint(32, 1023);
        let biased = self.tx.b.i_add(u32t, None, nu, bias)?;
        let wide = self.tx.b.u_convert(u64t, None, biased)?;
        let c52 = self.tx.const_uint(64, 52);
        let bits = self.tx.b.shift_left_logical(u64t, None, wide, c52)?;
        let scale = self.tx.b.bitcast(dt, None, bits)?;
        Ok(self.tx.b.f_mul(dt, None, e, scale)?)
    }

    /// log2(x) for a finite positive f64 `x` (of a narrower format, so
    /// normal in f64): x = m·2^e with m in [√½, √2), log2 m = 2·atanh(s)/ln 2
    /// with s = (m − 1)/(m + 1), |s| ≤ 0.172, by its series to s^25 (the
    /// first term left out is below 2^-66 relative). m − 1 is exact, so the
    /// result is accurate relative to itself near 1 too.
    fn log2_f64(&mut self, x: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let u64t = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let xb = self.tx.b.bitcast(u64t, None, x)?;
        let c52 = self.tx.const_uint(64, 52);
        let ef = self.tx.b.shift_right_logical(u64t, None, xb, c52)?;
        let mmask = self.tx.const_uint(64, (1u64 << 52) - 1);
        let frac = self.tx.b.bitwise_and(u64t, None, xb, mmask)?;
        let one_exp = self.tx.const_uint(64, 1023u64 << 52);
        let mb = self.tx.b.bitwise_or(u64t, None, frac, one_exp)?;
        let m = self.tx.b.bitcast(dt, None, mb)?;
        // e = field − 1023, as f64 (exact)
        let e = self.tx.b.convert_u_to_f(dt, None, ef)?;
        let bias = self.f64c(1023.0)?;
        let e = self.tx.b.f_sub(dt, None, e, bias)?;
        let sqrt2 = self.f64c(std::f64::consts::SQRT_2)?;
        let big = self.tx.b.f_ord_greater_than(bt, None, m, sqrt2)?;
        let half = self.f64c(0.5)?;
        let one = self.f64c(1.0)?;
        let m_half = self.tx.b.f_mul(dt, None, m, half)?;
        let m = self.tx.b.select(dt, None, big, m_half, m)?;
        let e1 = self.tx.b.f_add(dt, None, e, one)?;
        let e = self.tx.b.select(dt, None, big, e1, e)?;
        let num = self.tx.b.f_sub(dt, None, m, one)?;
        let den = self.tx.b.f_add(dt, None, m, one)?;
        let s = self.tx.b.f_div(dt, None, num, den)?;
        let s2 = self.tx.b.f_mul(dt, None, s, s)?;
        // atanh(s)/s = Σ s^(2k) / (2k + 1), k = 0..12
        let coeffs: Vec<f64> = (0..=12).rev().map(|k| 1.0 / (2 * k + 1) as f64).collect();
        let p = self.horner(s2, &coeffs)?;
        let two_over_ln2 = self.f64c(2.0 * LOG2_E)?;
        let ps = self.tx.b.f_mul(dt, None, p, s)?;
        let l = self.tx.b.f_mul(dt, None, ps, two_over_ln2)?;
        Ok(self.tx.b.f_add(dt, None, e, l)?)
    }

    /// e^t − 1 for an f64 `t` with |t| ≤ 40, without cancellation near 0:
    /// the Taylor series to degree 18 for |t| < ½ (the first term left out is
    /// below 2^-70 relative), 2^(t·log2 e) − 1 beyond.
    fn expm1_f64(&mut self, t: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        // t · (1 + t/2 + t²/6 + ...)
        let coeffs: Vec<f64> = (1..=18).rev().map(|k| 1.0 / factorial(k)).collect();
        let p = self.horner(t, &coeffs)?;
        let small = self.tx.b.f_mul(dt, None, p, t)?;
        let log2e = self.f64c(LOG2_E)?;
        let y = self.tx.b.f_mul(dt, None, t, log2e)?;
        let ex = self.exp2_f64(y)?;
        let one = self.f64c(1.0)?;
        let large = self.tx.b.f_sub(dt, None, ex, one)?;
        let at = self.tx.glsl_op(dt, G::FAbs, &[t])?;
        let half = self.f64c(0.5)?;
        let is_small = self.tx.b.f_ord_less_than(bt, None, at, half)?;
        Ok(self.tx.b.select(dt, None, is_small, small, large)?)
    }

    /// tanh x = expm1(2x) / (expm1(2x) + 2), |x| clamped to 20 (where tanh
    /// is 1 within 2^-57).
    fn tanh_f64(&mut self, x: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let lo = self.f64c(-20.0)?;
        let hi = self.f64c(20.0)?;
        let x = self.tx.glsl_op(dt, G::FClamp, &[x, lo, hi])?;
        let two = self.f64c(2.0)?;
        let t = self.tx.b.f_mul(dt, None, x, two)?;
        let m = self.expm1_f64(t)?;
        let d = self.tx.b.f_add(dt, None, m, two)?;
        Ok(self.tx.b.f_div(dt, None, m, d)?)
    }
}

/// 2/π's binary fraction in 32-bit words, most significant first (enough
/// for every f32 exponent: the window starts at bit 103 at most and is 96
/// bits long).
const TWO_OVER_PI: [u32; 8] = [
    0xA2F9_836E,
    0x4E44_1529,
    0xFC27_57D1,
    0xF534_DDC0,
    0xDB62_9599,
    0x3C43_9041,
    0xFE51_63AB,
    0xDEBB_C561,
];

impl FunctionCx<'_, '_> {
    /// `|x|` (an f32, as bits without the sign) reduced modulo π/2: the
    /// quadrant (a u32, 0..3) and the remainder in radians (f64, within
    /// π/4).
    fn reduce_half_pi(&mut self, a: Word) -> R<(Word, Word)> {
        let u32t = self.tx.uint(32);
        let u64t = self.tx.uint(64);
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let c32 = |fx: &mut Self, v: u32| fx.tx.const_u32(v);
        let c64 = |fx: &mut Self, v: u64| fx.tx.const_uint(64, v);
        // x = M · 2^E, M < 2^24
        let c23 = c32(self, 23);
        let e8 = self.tx.b.shift_right_logical(u32t, None, a, c23)?;
        let fmask = c32(self, 0x7F_FFFF);
        let frac = self.tx.b.bitwise_and(u32t, None, a, fmask)?;
        let zero = c32(self, 0);
        let sub = self.tx.b.i_equal(bt, None, e8, zero)?;
        let hidden = c32(self, 0x80_0000);
        let with = self.tx.b.bitwise_or(u32t, None, frac, hidden)?;
        let m = self.tx.b.select(u32t, None, sub, frac, with)?;
        let one = c32(self, 1);
        let e8 = self.tx.b.select(u32t, None, sub, one, e8)?;
        // E + 150 = e8, kept at least 126 (E ≥ −24: smaller arguments take
        // the direct path, and the shifts below stay in range)
        let c126 = c32(self, 126);
        let low = self.tx.b.u_less_than(bt, None, e8, c126)?;
        let eb = self.tx.b.select(u32t, None, low, c126, e8)?;
        // s = max(1, E − 1) = max(1, eb − 151); fb = 95 − (E − s) fraction bits
        let c151 = c32(self, 151);
        let big = self.tx.b.u_greater_than(bt, None, eb, c151)?;
        let sm = self.tx.b.i_sub(u32t, None, eb, c151)?;
        let s = self.tx.b.select(u32t, None, big, sm, one)?;
        // fb = 95 − E + s = 95 + 150 − eb + s
        let c245 = c32(self, 245);
        let fb = self.tx.b.i_sub(u32t, None, c245, eb)?;
        let fb = self.tx.b.i_add(u32t, None, fb, s)?;
        // the window of 2/π bits s..s+95: words idx.. shifted left by off
        let s1 = self.tx.b.i_sub(u32t, None, s, one)?;
        let c5 = c32(self, 5);
        let idx = self.tx.b.shift_right_logical(u32t, None, s1, c5)?;
        let c31 = c32(self, 31);
        let off = self.tx.b.bitwise_and(u32t, None, s1, c31)?;
        let word = |fx: &mut Self, k: usize| -> R<Word> {
            // TWO_OVER_PI[idx + k], idx in 0..=3
            let mut v = fx.tx.const_u32(TWO_OVER_PI[k]);
            for i in 1..4 {
                let ci = fx.tx.const_u32(i as u32);
                let is = fx.tx.b.i_equal(bt, None, idx, ci)?;
                let w = fx.tx.const_u32(TWO_OVER_PI[(i + k).min(7)]);
                v = fx.tx.b.select(u32t, None, is, w, v)?;
            }
            Ok(v)
        };
        let ws: Vec<Word> = (0..4).map(|k| word(self, k)).collect::<R<_>>()?;
        let off64 = self.tx.b.u_convert(u64t, None, off)?;
        let c32_64 = c64(self, 32);
        let mut win = Vec::new();
        for k in 0..3 {
            let hi = self.tx.b.u_convert(u64t, None, ws[k])?;
            let lo = self.tx.b.u_convert(u64t, None, ws[k + 1])?;
            let hi = self.tx.b.shift_left_logical(u64t, None, hi, c32_64)?;
            let pair = self.tx.b.bitwise_or(u64t, None, hi, lo)?;
            let pair = self.tx.b.shift_left_logical(u64t, None, pair, off64)?;
            win.push(self.tx.b.shift_right_logical(u64t, None, pair, c32_64)?);
        }
        // P = M × (w2:w1:w0), in 32-bit limbs
        let mask32 = c64(self, 0xFFFF_FFFF);
        let m64 = self.tx.b.u_convert(u64t, None, m)?;
        let mut limbs = Vec::new();
        let mut carry = c64(self, 0);
        for k in [2usize, 1, 0] {
            let w = self.tx.b.bitwise_and(u64t, None, win[k], mask32)?;
            let t = self.tx.b.i_mul(u64t, None, m64, w)?;
            let t = self.tx.b.i_add(u64t, None, t, carry)?;
            limbs.push(self.tx.b.bitwise_and(u64t, None, t, mask32)?);
            carry = self.tx.b.shift_right_logical(u64t, None, t, c32_64)?;
        }
        // limbs: [P0, P1, P2], carry = P3
        let p1 = self.tx.b.shift_left_logical(u64t, None, limbs[1], c32_64)?;
        let lo64 = self.tx.b.bitwise_or(u64t, None, p1, limbs[0])?;
        let p3 = self.tx.b.shift_left_logical(u64t, None, carry, c32_64)?;
        let hi64 = self.tx.b.bitwise_or(u64t, None, p3, limbs[2])?;
        // sh = fb − 64 in 30..=56: quadrant = (hi64 >> sh) & 3, the 64
        // fraction bits = (lo64 >> sh) | (hi64 << (64 − sh))
        let c64v = c32(self, 64);
        let sh = self.tx.b.i_sub(u32t, None, fb, c64v)?;
        let sh64 = self.tx.b.u_convert(u64t, None, sh)?;
        let c64_64 = c64(self, 64);
        let rsh = self.tx.b.i_sub(u64t, None, c64_64, sh64)?;
        let q = self.tx.b.shift_right_logical(u64t, None, hi64, sh64)?;
        let a_ = self.tx.b.shift_right_logical(u64t, None, lo64, sh64)?;
        let b_ = self.tx.b.shift_left_logical(u64t, None, hi64, rsh)?;
        let f = self.tx.b.bitwise_or(u64t, None, a_, b_)?;
        // a fraction of ½ or more is the next quadrant minus the rest: the
        // fraction as a signed 64-bit number
        let c63 = c64(self, 63);
        let top = self.tx.b.shift_right_logical(u64t, None, f, c63)?;
        let q = self.tx.b.i_add(u64t, None, q, top)?;
        let three = c64(self, 3);
        let q = self.tx.b.bitwise_and(u64t, None, q, three)?;
        let q = self.resize(q, 64, 32, false)?;
        let g = self.tx.b.convert_s_to_f(dt, None, f)?;
        let scale = self.f64c(std::f64::consts::FRAC_PI_2 / 18_446_744_073_709_551_616.0)?;
        let r = self.tx.b.f_mul(dt, None, g, scale)?;
        Ok((q, r))
    }

    /// (sin r, cos r) for |r| ≤ π/4 by their series to r^21 and r^22 (the
    /// first terms left out are below 2^-80).
    fn sin_cos_small(&mut self, r: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let r2 = self.tx.b.f_mul(dt, None, r, r)?;
        let sc: Vec<f64> = (0..=10)
            .rev()
            .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / factorial(2 * k + 1))
            .collect();
        let cc: Vec<f64> = (0..=11)
            .rev()
            .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / factorial(2 * k))
            .collect();
        let sp = self.horner(r2, &sc)?;
        let s = self.tx.b.f_mul(dt, None, sp, r)?;
        let c = self.horner(r2, &cc)?;
        Ok((s, c))
    }

    /// sin x or cos x of an f32 `x` (as bits), in f64.
    fn sin_cos_f32(&mut self, x: Word, cos: bool) -> R<Word> {
        let u32t = self.tx.uint(32);
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let abs_mask = self.tx.const_u32(0x7FFF_FFFF);
        let a = self.tx.b.bitwise_and(u32t, None, x, abs_mask)?;
        let ft = self.tx.float(32);
        let af = self.tx.b.bitcast(ft, None, a)?;
        let ad = self.tx.b.f_convert(dt, None, af)?;
        let (q, r) = self.reduce_half_pi(a)?;
        // below π/4 the argument is its own remainder
        let quarter = self.f64c(std::f64::consts::FRAC_PI_4)?;
        let direct = self.tx.b.f_ord_less_than(bt, None, ad, quarter)?;
        let r = self.tx.b.select(dt, None, direct, ad, r)?;
        let zero = self.tx.const_u32(0);
        let q = self.tx.b.select(u32t, None, direct, zero, q)?;
        let (s, c) = self.sin_cos_small(r)?;
        // sin x = s, c, −s, −c by quadrant; cos x = c, −s, −c, s
        let q = if cos {
            let one = self.tx.const_u32(1);
            let three = self.tx.const_u32(3);
            let q1 = self.tx.b.i_add(u32t, None, q, one)?;
            self.tx.b.bitwise_and(u32t, None, q1, three)?
        } else {
            q
        };
        let one = self.tx.const_u32(1);
        let two = self.tx.const_u32(2);
        let odd = self.tx.b.bitwise_and(u32t, None, q, one)?;
        let odd = self.tx.b.i_not_equal(bt, None, odd, zero)?;
        let neg = self.tx.b.bitwise_and(u32t, None, q, two)?;
        let neg = self.tx.b.i_not_equal(bt, None, neg, zero)?;
        let v = self.tx.b.select(dt, None, odd, c, s)?;
        let nv = self.tx.b.f_negate(dt, None, v)?;
        let v = self.tx.b.select(dt, None, neg, nv, v)?;
        // sin is odd: the argument's sign (cos is even)
        if cos {
            return Ok(v);
        }
        let sign = self.tx.const_u32(0x8000_0000);
        let xs = self.tx.b.bitwise_and(u32t, None, x, sign)?;
        let negx = self.tx.b.i_not_equal(bt, None, xs, zero)?;
        let nv = self.tx.b.f_negate(dt, None, v)?;
        Ok(self.tx.b.select(dt, None, negx, nv, v)?)
    }
}

fn factorial(k: u32) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// `fexp2`, `flog2`, `ftanh` of `ty` (`f`, `hf`, `bf`), with `.ftz`.
pub fn lower(fx: &mut FunctionCx, ins: &Ins, ty: &str, ftz: bool) -> R<bool> {
    let Some(to) = Narrow::of(ty) else {
        return Ok(false);
    };
    let dt = fx.tx.float(64);
    let bt = fx.tx.bool_ty();
    let (x, raw) = f64_source(fx, ins, "src0", ty, ftz)?;
    let r = match ins.i.opcode {
        Opcode::Fsin | Opcode::Fcos => {
            // the argument as f32 bits (16-bit formats widen exactly)
            let ft = fx.tx.float(32);
            let u32t = fx.tx.uint(32);
            let xf = fx.tx.b.f_convert(ft, None, x)?;
            let xb = fx.tx.b.bitcast(u32t, None, xf)?;
            let v = fx.sin_cos_f32(xb, ins.i.opcode == Opcode::Fcos)?;
            // ±∞ give NaN (the default one, by nan_rules)
            let inf = fx.tx.b.is_inf(bt, None, x)?;
            let nan = fx.f64c(f64::NAN)?;
            fx.tx.b.select(dt, None, inf, nan, v)?
        }
        Opcode::Fexp2 => fx.exp2_f64(x)?,
        Opcode::Ftanh => fx.tanh_f64(x)?,
        Opcode::Flog2 => {
            // the special values: log2(±0) = −∞, log2(+∞) = +∞, a negative
            // argument gives NaN (the default NaN, by nan_rules)
            let zero = fx.f64c(0.0)?;
            let one = fx.f64c(1.0)?;
            let positive = fx.tx.b.f_ord_greater_than(bt, None, x, zero)?;
            let finite = fx.tx.b.is_inf(bt, None, x)?;
            let finite = fx.tx.b.logical_not(bt, None, finite)?;
            let normal = fx.tx.b.logical_and(bt, None, positive, finite)?;
            // a harmless argument where the value is chosen below
            let arg = fx.tx.b.select(dt, None, normal, x, one)?;
            let l = fx.log2_f64(arg)?;
            let is_zero = fx.tx.b.f_ord_equal(bt, None, x, zero)?;
            let negative = fx.tx.b.f_ord_less_than(bt, None, x, zero)?;
            let ninf = fx.f64c(f64::NEG_INFINITY)?;
            let nan = fx.f64c(f64::NAN)?;
            let l = fx.tx.b.select(dt, None, normal, l, x)?;
            let l = fx.tx.b.select(dt, None, is_zero, ninf, l)?;
            fx.tx.b.select(dt, None, negative, nan, l)?
        }
        _ => return Ok(false),
    };
    let bits = fx.narrow(r, to, Rndmode::Re)?;
    let bits = nan_rules(fx, ty, &[raw], bits)?;
    let bits = if ftz { flush(fx, bits, ty)? } else { bits };
    fx.write(ins.opr("dst")?, bits, to.bits())?;
    Ok(true)
}
