//! Transcendental instructions (spec 13): `fexp2` (2 ULP), `flog2` (1 ULP;
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
//! `fsin` and `fcos` need an argument reduction that stays exact for f32
//! arguments up to 2^128 (Payne-Hanek) and are not lowered yet.

use super::floating_point::{flush, nan_rules, src};
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
    let (x, raw) = if ty == "f" {
        let f = src(fx, ins, "src0", "f", ftz)?;
        let ut = fx.tx.uint(32);
        (
            fx.tx.b.f_convert(dt, None, f)?,
            fx.tx.b.bitcast(ut, None, f)?,
        )
    } else {
        let h = fx.read(ins.opr("src0")?, 16)?;
        let h = if ftz { flush(fx, h, ty)? } else { h };
        (fx.widen_to_f64(h, to)?, h)
    };
    let r = match ins.i.opcode {
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
