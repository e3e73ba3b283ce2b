//! Quotients and square roots in f64 that do not depend on the driver's
//! precision. Vulkan does not require `OpFDiv` or `GLSL.std.450 Sqrt` to
//! be correctly rounded (2.5 ULP, "inherited from 1/inversesqrt"), while
//! PISA's `fdiv`, `fsqrt` and `frcp` are IEEE operations (13 §2.4, §2.16,
//! §2.13). The driver's result is only a first guess here:
//!
//! - **faithful** (`faithful_div64`, `faithful_sqrt64`): one correction by
//!   the exact remainder (`a − q·b`, `a − s²` by Dekker's product),
//!   `q + (a − q·b)/b`, leaves the result within one unit in the last place
//!   of the exact value when the driver's division is within a few.
//! - **nearest** ([`FunctionCx::nearest_div64`], `nearest_sqrt64`): the
//!   faithful result moves to its neighbour when the exact value lies
//!   beyond the midpoint between them, which the exact remainder tells:
//!   `|a − q·b| > |b|·|d|/2` for a quotient, `a − s² − s·d ⋛ d²/4` for a
//!   root (d the signed spacing toward the exact value). Neither can be a
//!   tie: a midpoint has 54 significant bits, a quotient of 53-bit numbers
//!   that is not exact in f64 or a square root never does. Only `.df`
//!   uses these (`exact_division`); the narrower formats are calls of the
//!   exact library (`ir::exactf64`), which does not use the driver's
//!   division at all.
//!
//! The operands must keep the products and remainders normal (the callers
//! pass narrower formats' values, or operands scaled into [1, 4)); zeros,
//! infinities and NaNs keep the driver's result, which is exact for them.
//!
//! `Options::perturb_quotients` (tests only) moves the driver's first
//! guess by one or two units in the last place and makes the correction a quarter
//! too large, standing in for a driver whose division and square root are
//! not correctly rounded (lavapipe's are): the faithful result then often
//! is not the nearest, which the `.df` step has to find.

use super::common::R;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

impl FunctionCx<'_, '_> {
    /// The exact remainder `a − x·y` (representable when `x·y` is within a
    /// unit of `a`'s last place or two of `a`).
    pub(super) fn remainder64(&mut self, a: Word, x: Word, y: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let (p, e) = self.two_prod64(x, y)?;
        let r = self.tx.b.f_sub(dt, None, a, p)?;
        Ok(self.tx.b.f_sub(dt, None, r, e)?)
    }

    /// The driver's first guess, moved by one or two units (relatively
    /// 2^-52) in tests that stand in for an imprecise driver.
    fn first_guess(&mut self, v: Word, up: bool) -> R<Word> {
        if !self.tx.options.perturb_quotients {
            return Ok(v);
        }
        let dt = self.tx.float(64);
        let k = self.f64c(if up {
            1.0 + 2f64.powi(-52)
        } else {
            1.0 - 2f64.powi(-52)
        })?;
        Ok(self.tx.b.f_mul(dt, None, v, k)?)
    }

    /// The correction term, a quarter too large in tests that stand in for
    /// an imprecise driver (the result stays faithful, not nearest).
    fn correction(&mut self, c: Word) -> R<Word> {
        if !self.tx.options.perturb_quotients {
            return Ok(c);
        }
        let dt = self.tx.float(64);
        let k = self.f64c(1.25)?;
        Ok(self.tx.b.f_mul(dt, None, c, k)?)
    }

    /// `v` where `ok`, else `fallback` (the driver's result for zeros,
    /// infinities and NaNs).
    fn where_ok(&mut self, ok: Word, v: Word, fallback: Word) -> R<Word> {
        let dt = self.tx.float(64);
        Ok(self.tx.b.select(dt, None, ok, v, fallback)?)
    }

    /// Whether `x` is finite and not zero.
    fn finite_nonzero(&mut self, x: Word) -> R<Word> {
        let bt = self.tx.bool_ty();
        let zero = self.f64c(0.0)?;
        let inf = self.tx.b.is_inf(bt, None, x)?;
        let nan = self.tx.b.is_nan(bt, None, x)?;
        let is_zero = self.tx.b.f_ord_equal(bt, None, x, zero)?;
        let bad = self.tx.b.logical_or(bt, None, inf, nan)?;
        let bad = self.tx.b.logical_or(bt, None, bad, is_zero)?;
        Ok(self.tx.b.logical_not(bt, None, bad)?)
    }

    /// `a / b` within one unit in the last place, on every driver.
    fn faithful_div64(&mut self, a: Word, b: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let q0 = self.tx.b.f_div(dt, None, a, b)?;
        let guess = self.first_guess(q0, true)?;
        let r = self.remainder64(a, guess, b)?;
        let c = self.tx.b.f_div(dt, None, r, b)?;
        let c = self.correction(c)?;
        let q1 = self.tx.b.f_add(dt, None, guess, c)?;
        let ok = self.finite_nonzero(q0)?;
        self.where_ok(ok, q1, q0)
    }

    /// `√a` within one unit in the last place, on every driver.
    fn faithful_sqrt64(&mut self, a: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let s0 = self.tx.glsl_op(dt, G::Sqrt, &[a])?;
        let guess = self.first_guess(s0, false)?;
        let r = self.remainder64(a, guess, guess)?;
        let two = self.f64c(2.0)?;
        let d = self.tx.b.f_mul(dt, None, guess, two)?;
        let c = self.tx.b.f_div(dt, None, r, d)?;
        let c = self.correction(c)?;
        let s1 = self.tx.b.f_add(dt, None, guess, c)?;
        let ok = self.finite_nonzero(s0)?;
        self.where_ok(ok, s1, s0)
    }

    /// `x`'s neighbour toward the exact value (`above`: a bool, the exact
    /// value is greater than `x`) and the signed spacing to it.
    fn neighbour64(&mut self, x: Word, above: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let ut = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let xb = self.tx.b.bitcast(ut, None, x)?;
        let sign = self.tx.const_uint(64, 1 << 63);
        let zero = self.tx.const_uint(64, 0);
        let s = self.tx.b.bitwise_and(ut, None, xb, sign)?;
        let negative = self.tx.b.i_not_equal(bt, None, s, zero)?;
        // +1 on the encoding grows the magnitude
        let grows = self.tx.b.logical_not_equal(bt, None, above, negative)?;
        let one = self.tx.const_uint(64, 1);
        let minus = self.tx.const_uint(64, u64::MAX);
        let step = self.tx.b.select(ut, None, grows, one, minus)?;
        let nb = self.tx.b.i_add(ut, None, xb, step)?;
        let n = self.tx.b.bitcast(dt, None, nb)?;
        let d = self.tx.b.f_sub(dt, None, n, x)?;
        Ok((n, d))
    }

    /// `a / b` rounded to nearest, on every driver (the quotient and the
    /// products normal: operands scaled into [1, 2), or values of a
    /// narrower format).
    pub fn nearest_div64(&mut self, a: Word, b: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let q = self.faithful_div64(a, b)?;
        let r = self.remainder64(a, q, b)?;
        // the exact quotient is q + r/b: above q when r and b share a sign
        let zero = self.f64c(0.0)?;
        let rpos = self.tx.b.f_ord_greater_than(bt, None, r, zero)?;
        let bpos = self.tx.b.f_ord_greater_than(bt, None, b, zero)?;
        let above = self.tx.b.logical_equal(bt, None, rpos, bpos)?;
        let (n, d) = self.neighbour64(q, above)?;
        let ar = self.tx.glsl_op(dt, G::FAbs, &[r])?;
        let ab = self.tx.glsl_op(dt, G::FAbs, &[b])?;
        let ad = self.tx.glsl_op(dt, G::FAbs, &[d])?;
        let half = self.f64c(0.5)?;
        let hd = self.tx.b.f_mul(dt, None, ad, half)?;
        let limit = self.tx.b.f_mul(dt, None, ab, hd)?;
        let beyond = self.tx.b.f_ord_greater_than(bt, None, ar, limit)?;
        let moved = self.tx.b.select(dt, None, beyond, n, q)?;
        let ok = self.finite_nonzero(q)?;
        self.where_ok(ok, moved, q)
    }

    /// `√a` rounded to nearest, on every driver (`a` scaled into [1, 4), or
    /// a value of a narrower format).
    pub fn nearest_sqrt64(&mut self, a: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let s = self.faithful_sqrt64(a)?;
        let r = self.remainder64(a, s, s)?;
        let zero = self.f64c(0.0)?;
        let above = self.tx.b.f_ord_greater_than(bt, None, r, zero)?;
        let (n, d) = self.neighbour64(s, above)?;
        // the midpoint m = s + d/2: beyond it when a − s² − s·d ⋛ d²/4
        let sd = self.tx.b.f_mul(dt, None, s, d)?;
        let t = self.tx.b.f_sub(dt, None, r, sd)?;
        let dd = self.tx.b.f_mul(dt, None, d, d)?;
        let quarter = self.f64c(0.25)?;
        let dd4 = self.tx.b.f_mul(dt, None, dd, quarter)?;
        let over = self.tx.b.f_ord_greater_than(bt, None, t, dd4)?;
        let under = self.tx.b.f_ord_less_than(bt, None, t, dd4)?;
        let beyond = self.tx.b.select(bt, None, above, over, under)?;
        let moved = self.tx.b.select(dt, None, beyond, n, s)?;
        let ok = self.finite_nonzero(s)?;
        self.where_ok(ok, moved, s)
    }
}
