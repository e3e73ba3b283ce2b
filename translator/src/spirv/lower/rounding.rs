//! The rounding modes Vulkan does not give (`.rz`, `.ru`, `.rd`, `.rna`;
//! spec 03 §2) for what is still computed during emission: `.df`
//! arithmetic (`fadd`/`fsub` corrected by TwoSum's error, products,
//! quotients and roots by scaled exact remainders, `fmad.df` with one
//! rounding), `ftrunc` from `.df` into `.f`, `.hf`, `.bf` and `i2f` into
//! `.df`. The `.f`, `.hf` and `.bf` operations are calls of the exact
//! library before the back end (the IR passes `exactf64` on devices with
//! f64, `exactf32` without; the proof sketch for them is in
//! `ir::exactf64`).
//!
//! - **Round to odd** (Boldo and Melquiond): with `s = RN(x)` and the exact
//!   error `e = x − s` (TwoSum), stepping `s` one unit toward `e` when `e ≠ 0`
//!   and `s` is even gives RO(x); rounding RO(x) to a format of `p` bits in
//!   any mode equals rounding `x`, as long as 53 ≥ p + 2.
//! - **Directed narrowing** (`ftrunc` from `.df`): the nearest value `r`
//!   (the driver's `OpFConvert`, or integer arithmetic where drivers round
//!   twice), widened back exactly, tells on which side of `x` it lies; one
//!   step of its encoding to the neighbour on the other side gives the
//!   directed result; for `.rna` a tie (the exact midpoint, representable
//!   in f64) moves away from zero.
//! - f64 results (`.df`) use TwoSum's error directly: the correction is the
//!   same step, on the f64 encoding.

use super::common::R;
use super::float16::{f32_bits_to_bf16, f64_to_f16_bits, half_to_f32};
use crate::ir::qualifier::Rndmode;
use crate::ir::FloatKind;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

/// A format narrower than f64 that results are rounded into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrow {
    F32,
    Hf,
    Bf,
}

impl Narrow {
    /// The format narrower than f64, `None` for f64 itself.
    pub fn of(kind: FloatKind) -> Option<Narrow> {
        match kind {
            FloatKind::Single => Some(Narrow::F32),
            FloatKind::Half => Some(Narrow::Hf),
            FloatKind::BFloat => Some(Narrow::Bf),
            FloatKind::Double => None,
        }
    }
    /// The float format.
    pub fn kind(self) -> FloatKind {
        match self {
            Narrow::F32 => FloatKind::Single,
            Narrow::Hf => FloatKind::Half,
            Narrow::Bf => FloatKind::BFloat,
        }
    }
    pub fn bits(self) -> u16 {
        if self == Narrow::F32 {
            32
        } else {
            16
        }
    }
}

impl FunctionCx<'_, '_> {
    /// An f64 constant.
    pub fn f64c(&mut self, v: f64) -> R<Word> {
        let dt = self.tx.float(64);
        let c = self.tx.const_uint(64, v.to_bits());
        Ok(self.tx.b.bitcast(dt, None, c)?)
    }

    /// The exact f64 value of `bits` in format `from` (`bits` a u32 for
    /// f32, a u16 for the 16-bit formats).
    pub fn widen_to_f64(&mut self, bits: Word, from: Narrow) -> R<Word> {
        let dt = self.tx.float(64);
        let f = match from {
            Narrow::F32 => {
                let ft = self.tx.float(32);
                self.tx.b.bitcast(ft, None, bits)?
            }
            Narrow::Hf => half_to_f32(self, bits, FloatKind::Half)?,
            Narrow::Bf => half_to_f32(self, bits, FloatKind::BFloat)?,
        };
        Ok(self.tx.b.f_convert(dt, None, f)?)
    }

    /// TwoSum (Knuth) in f64: `(s, e)` with `s = RN(a + b)` and
    /// `e = a + b − s` exactly (finite operands, no overflow).
    pub fn two_sum64(&mut self, a: Word, b: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let s = self.tx.b.f_add(dt, None, a, b)?;
        let bv = self.tx.b.f_sub(dt, None, s, a)?;
        let av = self.tx.b.f_sub(dt, None, s, bv)?;
        let db = self.tx.b.f_sub(dt, None, b, bv)?;
        let da = self.tx.b.f_sub(dt, None, a, av)?;
        let e = self.tx.b.f_add(dt, None, da, db)?;
        Ok((s, e))
    }

    /// RO(s + e) from `s = RN(x)` and its exact error `e`: `s` stepped one
    /// unit toward `e` when `e ≠ 0` and `s` is even.
    pub fn round_to_odd64(&mut self, s: Word, e: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let ut = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let zero_f = self.f64c(0.0)?;
        let inexact = self.tx.b.f_ord_not_equal(bt, None, e, zero_f)?;
        let sb = self.tx.b.bitcast(ut, None, s)?;
        let one = self.tx.const_uint(64, 1);
        let zero = self.tx.const_uint(64, 0);
        let low = self.tx.b.bitwise_and(ut, None, sb, one)?;
        let even = self.tx.b.i_equal(bt, None, low, zero)?;
        let adjust = self.tx.b.logical_and(bt, None, inexact, even)?;
        // toward e: one step up in magnitude when e has s's sign, else down
        let eb = self.tx.b.bitcast(ut, None, e)?;
        let signs = self.tx.b.bitwise_xor(ut, None, sb, eb)?;
        let top = self.tx.const_uint(64, 0x7FFF_FFFF_FFFF_FFFF);
        let differ = self.tx.b.u_greater_than(bt, None, signs, top)?;
        let minus = self.tx.const_uint(64, u64::MAX);
        let step = self.tx.b.select(ut, None, differ, minus, one)?;
        let moved = self.tx.b.i_add(ut, None, sb, step)?;
        let rb = self.tx.b.select(ut, None, adjust, moved, sb)?;
        Ok(self.tx.b.bitcast(dt, None, rb)?)
    }

    /// `x` (f64) rounded to nearest even into `to`, as bits.
    fn nearest(&mut self, x: Word, to: Narrow) -> R<Word> {
        let ut = self.tx.uint(to.bits());
        match to {
            Narrow::F32 => {
                let ft = self.tx.float(32);
                let f = self.tx.b.f_convert(ft, None, x)?;
                Ok(self.tx.b.bitcast(ut, None, f)?)
            }
            Narrow::Hf => {
                let u64t = self.tx.uint(64);
                let xb = self.tx.b.bitcast(u64t, None, x)?;
                let h = f64_to_f16_bits(self, xb)?;
                self.resize(h, 64, 16, false)
            }
            Narrow::Bf => {
                // f32 rounded to odd, then to bfloat16 (24 ≥ 8 + 2)
                let ft = self.tx.float(32);
                let dt = self.tx.float(64);
                let u32t = self.tx.uint(32);
                let bt = self.tx.bool_ty();
                let f = self.tx.b.f_convert(ft, None, x)?;
                let back = self.tx.b.f_convert(dt, None, f)?;
                let inexact = self.tx.b.f_ord_not_equal(bt, None, back, x)?;
                let fb = self.tx.b.bitcast(u32t, None, f)?;
                let one = self.tx.const_u32(1);
                let zero = self.tx.const_u32(0);
                let low = self.tx.b.bitwise_and(u32t, None, fb, one)?;
                let even = self.tx.b.i_equal(bt, None, low, zero)?;
                let adjust = self.tx.b.logical_and(bt, None, inexact, even)?;
                let ax = self.tx.glsl_op(dt, G::FAbs, &[x])?;
                let aback = self.tx.glsl_op(dt, G::FAbs, &[back])?;
                let bigger = self.tx.b.f_ord_greater_than(bt, None, aback, ax)?;
                let minus = self.tx.const_u32(u32::MAX);
                let step = self.tx.b.select(u32t, None, bigger, minus, one)?;
                let moved = self.tx.b.i_add(u32t, None, fb, step)?;
                let ro = self.tx.b.select(u32t, None, adjust, moved, fb)?;
                let b = f32_bits_to_bf16(self, ro)?;
                self.resize(b, 32, 16, false)
            }
        }
    }

    /// `x` (f64: exact, or rounded to odd) rounded into `to` in `mode`, as
    /// bits (a u32 for f32, a u16 for the 16-bit formats).
    pub fn narrow(&mut self, x: Word, to: Narrow, mode: Rndmode) -> R<Word> {
        let r = self.nearest(x, to)?;
        if mode == Rndmode::Re {
            return Ok(r);
        }
        let n = to.bits();
        let t = self.tx.uint(n);
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let w = self.widen_to_f64(r, to)?;
        let one = self.tx.const_uint(n, 1);
        let zero = self.tx.const_uint(n, 0);
        let sign_bit = self.tx.const_uint(n, 1 << (n - 1));
        // one step of the encoding in magnitude
        let away = self.tx.b.i_add(t, None, r, one)?;
        let toward_zero = self.tx.b.i_sub(t, None, r, one)?;
        Ok(match mode {
            Rndmode::Rz => {
                let ax = self.tx.glsl_op(dt, G::FAbs, &[x])?;
                let aw = self.tx.glsl_op(dt, G::FAbs, &[w])?;
                let above = self.tx.b.f_ord_greater_than(bt, None, aw, ax)?;
                self.tx.b.select(t, None, above, toward_zero, r)?
            }
            Rndmode::Ru | Rndmode::Rd => {
                let up = mode == Rndmode::Ru;
                let wrong = if up {
                    self.tx.b.f_ord_less_than(bt, None, w, x)?
                } else {
                    self.tx.b.f_ord_greater_than(bt, None, w, x)?
                };
                // up: +1 on positives, −1 on negatives; ±0 goes to the
                // smallest subnormal of the direction's sign
                let s = self.tx.b.bitwise_and(t, None, r, sign_bit)?;
                let negative = self.tx.b.i_not_equal(bt, None, s, zero)?;
                let grows = if up {
                    self.tx.b.logical_not(bt, None, negative)?
                } else {
                    negative
                };
                let stepped = self.tx.b.select(t, None, grows, away, toward_zero)?;
                let abs_mask = self.tx.const_uint(n, (1 << (n - 1)) - 1);
                let mag = self.tx.b.bitwise_and(t, None, r, abs_mask)?;
                let is_zero = self.tx.b.i_equal(bt, None, mag, zero)?;
                let tiny = self
                    .tx
                    .const_uint(n, if up { 1 } else { (1 << (n - 1)) | 1 });
                let stepped = self.tx.b.select(t, None, is_zero, tiny, stepped)?;
                self.tx.b.select(t, None, wrong, stepped, r)?
            }
            Rndmode::Rna => {
                // a tie: x is the midpoint of r and its neighbour away from
                // zero (both differences are exact: Sterbenz)
                let n_away = self.widen_to_f64(away, to)?;
                let below = self.tx.b.f_sub(dt, None, x, w)?;
                let above = self.tx.b.f_sub(dt, None, n_away, x)?;
                let tie = self.tx.b.f_ord_equal(bt, None, below, above)?;
                let ax = self.tx.glsl_op(dt, G::FAbs, &[x])?;
                let aw = self.tx.glsl_op(dt, G::FAbs, &[w])?;
                let short = self.tx.b.f_ord_less_than(bt, None, aw, ax)?;
                let go = self.tx.b.logical_and(bt, None, tie, short)?;
                self.tx.b.select(t, None, go, away, r)?
            }
            Rndmode::Re => r,
        })
    }

    /// The zero of an exact sum under `.rd` (IEEE 754 §6.3): −0, unless both
    /// addends are +0; other modes keep RN's zero. `x` is the f64 sum,
    /// `a` and `b` the f64 addends.
    pub fn exact_zero_sum(&mut self, x: Word, a: Word, b: Word, mode: Rndmode) -> R<Word> {
        if mode != Rndmode::Rd {
            return Ok(x);
        }
        let dt = self.tx.float(64);
        let ut = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let zero_f = self.f64c(0.0)?;
        let is_zero = self.tx.b.f_ord_equal(bt, None, x, zero_f)?;
        let ab = self.tx.b.bitcast(ut, None, a)?;
        let bb = self.tx.b.bitcast(ut, None, b)?;
        let both = self.tx.b.bitwise_or(ut, None, ab, bb)?;
        let zero = self.tx.const_uint(64, 0);
        let both_plus_zero = self.tx.b.i_equal(bt, None, both, zero)?;
        let not_plus = self.tx.b.logical_not(bt, None, both_plus_zero)?;
        let negative = self.tx.b.logical_and(bt, None, is_zero, not_plus)?;
        let minus_zero = self.f64c(-0.0)?;
        Ok(self.tx.b.select(dt, None, negative, minus_zero, x)?)
    }

    /// `s = RN(a + b)` with TwoSum's exact error `e`, corrected into `mode`
    /// on the f64 encoding (`.df` arithmetic). `overflow` (a bool): `s` is
    /// infinite from finite operands; it becomes the largest finite value
    /// where the mode does not round away from zero.
    pub fn directed64(&mut self, s: Word, e: Word, overflow: Word, mode: Rndmode) -> R<Word> {
        if mode == Rndmode::Re {
            return Ok(s);
        }
        let dt = self.tx.float(64);
        let ut = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let sb = self.tx.b.bitcast(ut, None, s)?;
        let one = self.tx.const_uint(64, 1);
        let zero = self.tx.const_uint(64, 0);
        let zero_f = self.f64c(0.0)?;
        let away = self.tx.b.i_add(ut, None, sb, one)?;
        let toward_zero = self.tx.b.i_sub(ut, None, sb, one)?;
        let sign_bit = self.tx.const_uint(64, 1 << 63);
        let sign = self.tx.b.bitwise_and(ut, None, sb, sign_bit)?;
        let negative = self.tx.b.i_not_equal(bt, None, sign, zero)?;
        let e_pos = self.tx.b.f_ord_greater_than(bt, None, e, zero_f)?;
        let e_neg = self.tx.b.f_ord_less_than(bt, None, e, zero_f)?;
        // e has the opposite sign of s: the exact value is nearer zero
        let inner = self.tx.b.select(bt, None, negative, e_pos, e_neg)?;
        let outer = self.tx.b.select(bt, None, negative, e_neg, e_pos)?;
        // an overflow stays infinite only when the mode rounds away from
        // zero on its side
        let keeps_inf = match mode {
            Rndmode::Rz => self.tx.b.constant_false(bt),
            Rndmode::Ru => self.tx.b.logical_not(bt, None, negative)?,
            Rndmode::Rd => negative,
            Rndmode::Re | Rndmode::Rna => self.tx.b.constant_true(bt),
        };
        let not_keeps = self.tx.b.logical_not(bt, None, keeps_inf)?;
        let to_max = self.tx.b.logical_and(bt, None, overflow, not_keeps)?;
        let rb = match mode {
            Rndmode::Rz => self.tx.b.select(ut, None, inner, toward_zero, sb)?,
            Rndmode::Ru | Rndmode::Rd => {
                let up = mode == Rndmode::Ru;
                let wrong = if up { e_pos } else { e_neg };
                let grows = if up {
                    self.tx.b.logical_not(bt, None, negative)?
                } else {
                    negative
                };
                let stepped = self.tx.b.select(ut, None, grows, away, toward_zero)?;
                // s = ±0 with e ≠ 0 cannot happen (a sum that rounds to
                // zero is exact)
                self.tx.b.select(ut, None, wrong, stepped, sb)?
            }
            Rndmode::Rna => {
                // a tie: |e| is half the gap to the neighbour away from zero
                let n = self.tx.b.bitcast(dt, None, away)?;
                let gap = self.tx.b.f_sub(dt, None, n, s)?;
                let half = self.f64c(0.5)?;
                let half_gap = self.tx.b.f_mul(dt, None, gap, half)?;
                let tie = self.tx.b.f_ord_equal(bt, None, e, half_gap)?;
                let go = self.tx.b.logical_and(bt, None, tie, outer)?;
                self.tx.b.select(ut, None, go, away, sb)?
            }
            Rndmode::Re => sb,
        };
        // infinity one step toward zero is the largest finite value
        let rb = self.tx.b.select(ut, None, to_max, toward_zero, rb)?;
        Ok(self.tx.b.bitcast(dt, None, rb)?)
    }

    /// The NaN `raw` (an encoding of `from`, `from_bits` wide) converted to
    /// `to`: its sign, the top of its payload, quieted (the float core's
    /// rule; drivers may return another NaN).
    fn nan_narrow(&mut self, raw: Word, from: FloatKind, from_bits: u16, to: Narrow) -> R<Word> {
        let frac_from = from.fraction_bits();
        let to_kind = to.kind();
        let (frac_to, inf, quiet) = (
            to_kind.fraction_bits(),
            to_kind.exponent_mask(),
            to_kind.quiet_bit(),
        );
        let t = self.tx.uint(from_bits);
        let n = to.bits();
        let sign_sh = self.tx.const_uint(from_bits, from_bits as u64 - 1);
        let sign = self.tx.b.shift_right_logical(t, None, raw, sign_sh)?;
        let mask = self.tx.const_uint(from_bits, (1u64 << frac_from) - 1);
        let frac = self.tx.b.bitwise_and(t, None, raw, mask)?;
        let sh = self.tx.const_uint(from_bits, (frac_from - frac_to) as u64);
        let frac = self.tx.b.shift_right_logical(t, None, frac, sh)?;
        let sign = self.resize(sign, from_bits, n, false)?;
        let frac = self.resize(frac, from_bits, n, false)?;
        let tn = self.tx.uint(n);
        let top = self.tx.const_uint(n, n as u64 - 1);
        let sign = self.tx.b.shift_left_logical(tn, None, sign, top)?;
        let special = self.tx.const_uint(n, inf | quiet);
        let v = self.tx.b.bitwise_or(tn, None, special, frac)?;
        Ok(self.tx.b.bitwise_or(tn, None, v, sign)?)
    }

    /// A narrowing conversion into `to` (15 §4.8, 15 §4.10 for integers)
    /// of the exact value `x` (f64, or rounded to odd) in `mode`: `.dsat`
    /// makes an infinity the largest finite value of its sign (NaN stays),
    /// `.ftz` flushes a subnormal result. `nan` is the result for a NaN
    /// source, when the source can be one.
    pub fn convert_rounded(
        &mut self,
        x: Word,
        nan: Option<Word>,
        to: Narrow,
        mode: Rndmode,
        ftz: bool,
        dsat: bool,
    ) -> R<Word> {
        let n = to.bits();
        let t = self.tx.uint(n);
        let bt = self.tx.bool_ty();
        let mut bits = self.narrow(x, to, mode)?;
        if let Some(nan) = nan {
            let is_nan = self.tx.b.is_nan(bt, None, x)?;
            bits = self.tx.b.select(t, None, is_nan, nan, bits)?;
        }
        if dsat {
            let inf = to.kind().exponent_mask();
            let abs_mask = self.tx.const_uint(n, (1 << (n - 1)) - 1);
            let mag = self.tx.b.bitwise_and(t, None, bits, abs_mask)?;
            let inf_c = self.tx.const_uint(n, inf);
            let is_inf = self.tx.b.i_equal(bt, None, mag, inf_c)?;
            let one = self.tx.const_uint(n, 1);
            // infinity one step toward zero: the largest finite value
            let max = self.tx.b.i_sub(t, None, bits, one)?;
            bits = self.tx.b.select(t, None, is_inf, max, bits)?;
        }
        if ftz {
            bits = super::common::flush(self, bits, to.kind())?;
        }
        Ok(bits)
    }

    /// `ftrunc` of the encoding `raw` of `from` (`f` or `df`) into `to`,
    /// with the mode, `.ftz` and `.dsat` (15 §4.8): a subnormal source is
    /// the zero of its sign.
    pub fn ftrunc_rounded(
        &mut self,
        raw: Word,
        from: FloatKind,
        to: Narrow,
        mode: Rndmode,
        ftz: bool,
        dsat: bool,
    ) -> R<Word> {
        let fb = match from {
            FloatKind::Double => 64,
            FloatKind::Single | FloatKind::Half | FloatKind::BFloat => 32,
        };
        let raw = self.opaque(raw, fb)?;
        let raw = super::common::flush(self, raw, from)?;
        let dt = self.tx.float(64);
        let x = if fb == 64 {
            self.tx.b.bitcast(dt, None, raw)?
        } else {
            let ft = self.tx.float(32);
            let f = self.tx.b.bitcast(ft, None, raw)?;
            self.tx.b.f_convert(dt, None, f)?
        };
        let nan = self.nan_narrow(raw, from, fb, to)?;
        self.convert_rounded(x, Some(nan), to, mode, ftz, dsat)
    }

    /// `Fma` for the operands the emulations leave to it (zeros,
    /// infinities, NaNs), except that an infinite `c` with finite `a`, `b`
    /// is `c` (the exact product is finite; a driver computing `a·b` first
    /// may overflow it to an infinity of the other sign: NaN on lavapipe).
    fn fma_special(&mut self, a: Word, b: Word, c: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let bt = self.tx.bool_ty();
        let f = self.tx.glsl_op(dt, G::Fma, &[a, b, c])?;
        let finite = |fx: &mut Self, x: Word| -> R<Word> {
            let inf = fx.tx.b.is_inf(bt, None, x)?;
            let nan = fx.tx.b.is_nan(bt, None, x)?;
            let bad = fx.tx.b.logical_or(bt, None, inf, nan)?;
            Ok(fx.tx.b.logical_not(bt, None, bad)?)
        };
        let fa = finite(self, a)?;
        let fb = finite(self, b)?;
        let ci = self.tx.b.is_inf(bt, None, c)?;
        let only_c = self.tx.b.logical_and(bt, None, fa, fb)?;
        let only_c = self.tx.b.logical_and(bt, None, only_c, ci)?;
        Ok(self.tx.b.select(dt, None, only_c, c, f)?)
    }

    /// Veltkamp's split of an f64 into a high part of 26 bits and the rest
    /// (exact while |x| < 2^995).
    fn split64(&mut self, x: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let k = self.f64c(134_217_729.0)?;
        let t = self.tx.b.f_mul(dt, None, x, k)?;
        let d = self.tx.b.f_sub(dt, None, t, x)?;
        let hi = self.tx.b.f_sub(dt, None, t, d)?;
        let lo = self.tx.b.f_sub(dt, None, x, hi)?;
        Ok((hi, lo))
    }

    /// Dekker's exact product of two f64 values whose split cannot
    /// overflow and whose product's error term is normal: `(p, e)` with
    /// `p = RN(x·y)` and `x·y = p + e`.
    pub(super) fn two_prod64(&mut self, x: Word, y: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let (xh, xl) = self.split64(x)?;
        let (yh, yl) = self.split64(y)?;
        let p = self.tx.b.f_mul(dt, None, x, y)?;
        let t = self.tx.b.f_mul(dt, None, xh, yh)?;
        let t = self.tx.b.f_sub(dt, None, t, p)?;
        let u = self.tx.b.f_mul(dt, None, xh, yl)?;
        let t = self.tx.b.f_add(dt, None, t, u)?;
        let u = self.tx.b.f_mul(dt, None, xl, yh)?;
        let t = self.tx.b.f_add(dt, None, t, u)?;
        let u = self.tx.b.f_mul(dt, None, xl, yl)?;
        let e = self.tx.b.f_add(dt, None, t, u)?;
        Ok((p, e))
    }

    /// Where the exact quotient `a / y` (`divisor` = `y`) or root `√a`
    /// (`x` = `y` = the root, no divisor) lies against a faithful result
    /// `x`, by the sign of the exact remainder `a − x·y` (Dekker): (above
    /// `x`, inexact), as bools.
    fn exact_side(&mut self, a: Word, x: Word, y: Word, divisor: Option<Word>) -> R<(Word, Word)> {
        let bt = self.tx.bool_ty();
        let r = self.remainder64(a, x, y)?;
        let zero = self.f64c(0.0)?;
        let inexact = self.tx.b.f_ord_not_equal(bt, None, r, zero)?;
        let rpos = self.tx.b.f_ord_greater_than(bt, None, r, zero)?;
        // a quotient is x + r/y: above x when r and y have one sign
        let above = match divisor {
            Some(d) => {
                let dpos = self.tx.b.f_ord_greater_than(bt, None, d, zero)?;
                self.tx.b.logical_equal(bt, None, rpos, dpos)?
            }
            None => rpos,
        };
        Ok((above, inexact))
    }

    /// A tiny number on the side of the exact value (0 when exact): the
    /// remainder's stand-in in a (hi, lo) pair, where only its sign matters.
    fn side_carrier(&mut self, above: Word, inexact: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let tiny = self.f64c(2f64.powi(-200))?;
        let ntiny = self.f64c(-(2f64.powi(-200)))?;
        let zero = self.f64c(0.0)?;
        let d = self.tx.b.select(dt, None, above, tiny, ntiny)?;
        Ok(self.tx.b.select(dt, None, inexact, d, zero)?)
    }

    /// A 64-bit integer (`signed` or not) as f64 in `mode`: the driver's
    /// nearest conversion `r`, the exact integer error `v − r` (small: at
    /// most 2^11 in magnitude; `r` = 2^63 or 2^64 wraps in the subtraction,
    /// which still gives it), and the directed correction on the encoding.
    pub fn i64_to_f64_rounded(&mut self, v: Word, signed: bool, mode: Rndmode) -> R<Word> {
        let dt = self.tx.float(64);
        let u64t = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let r = if signed {
            self.tx.b.convert_s_to_f(dt, None, v)?
        } else {
            self.tx.b.convert_u_to_f(dt, None, v)?
        };
        // r back as an integer, where it is one: 2^63 (signed) or 2^64
        // (unsigned) are out of range, and stand for their wrapped value
        let limit = self.f64c(if signed { 2f64.powi(63) } else { 2f64.powi(64) })?;
        let out = self.tx.b.f_ord_greater_than_equal(bt, None, r, limit)?;
        let zero = self.f64c(0.0)?;
        let safe = self.tx.b.select(dt, None, out, zero, r)?;
        let back = if signed {
            self.tx.b.convert_f_to_s(u64t, None, safe)?
        } else {
            self.tx.b.convert_f_to_u(u64t, None, safe)?
        };
        let wrapped = self.tx.const_uint(64, if signed { 1 << 63 } else { 0 });
        let back = self.tx.b.select(u64t, None, out, wrapped, back)?;
        let diff = self.tx.b.i_sub(u64t, None, v, back)?;
        let e = self.tx.b.convert_s_to_f(dt, None, diff)?;
        let no_overflow = self.tx.b.constant_false(bt);
        self.directed64(r, e, no_overflow, mode)
    }

    /// 2^k for an integer k (as a u32 holding a signed value) in f64's
    /// normal range.
    fn pow2_64(&mut self, k: Word) -> R<Word> {
        let u32t = self.tx.uint(32);
        let u64t = self.tx.uint(64);
        let dt = self.tx.float(64);
        let bias = self.tx.const_u32(1023);
        let biased = self.tx.b.i_add(u32t, None, k, bias)?;
        let wide = self.tx.b.u_convert(u64t, None, biased)?;
        let c52 = self.tx.const_uint(64, 52);
        let bits = self.tx.b.shift_left_logical(u64t, None, wide, c52)?;
        Ok(self.tx.b.bitcast(dt, None, bits)?)
    }

    /// `frsqrt.df` (at most 1 ULP): x scaled by an even power of two into
    /// [1, 4), y = 1/sqrt(x) in f64, one Newton step y + y·(1 − x·y²)/2 with
    /// the residual from exact products (Dekker), then scaled back — within
    /// half an ULP and a tiny fraction. ±0 give ±∞, +∞ gives +0, negative
    /// arguments NaN.
    pub fn rsqrt64(&mut self, x: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let u32t = self.tx.uint(32);
        let u64t = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        // subnormals first up by 2^108 (the result then by 2^54)
        let tiny = self.f64c(2f64.powi(-1000))?;
        let ax = self.tx.glsl_op(dt, G::FAbs, &[x])?;
        let is_tiny = self.tx.b.f_ord_less_than(bt, None, ax, tiny)?;
        let up = self.f64c(2f64.powi(108))?;
        let xu = self.tx.b.f_mul(dt, None, x, up)?;
        let m = self.tx.b.select(dt, None, is_tiny, xu, x)?;
        let c54 = self.tx.const_u32(54);
        let zero = self.tx.const_u32(0);
        let adj = self.tx.b.select(u32t, None, is_tiny, c54, zero)?;
        // e = exponent of m; k = floor(e / 2); x' = m · 2^-2k in [1, 4)
        let mb = self.tx.b.bitcast(u64t, None, m)?;
        let c52 = self.tx.const_uint(64, 52);
        let ef = self.tx.b.shift_right_logical(u64t, None, mb, c52)?;
        let c7ff = self.tx.const_uint(64, 0x7FF);
        let ef = self.tx.b.bitwise_and(u64t, None, ef, c7ff)?;
        let ef = self.resize(ef, 64, 32, false)?;
        let bias = self.tx.const_u32(1023);
        let e = self.tx.b.i_sub(u32t, None, ef, bias)?;
        let one = self.tx.const_u32(1);
        let k = self.tx.b.shift_right_arithmetic(u32t, None, e, one)?;
        let two_k = self.tx.b.shift_left_logical(u32t, None, k, one)?;
        let neg_2k = self.tx.b.s_negate(u32t, None, two_k)?;
        let s = self.pow2_64(neg_2k)?;
        let xs = self.tx.b.f_mul(dt, None, m, s)?;
        let r0 = self.tx.glsl_op(dt, G::Sqrt, &[xs])?;
        let onef = self.f64c(1.0)?;
        let y = self.tx.b.f_div(dt, None, onef, r0)?;
        // residual 1 − x'·y², exactly enough: y² = p + pe, x'·p = q + qe
        let (p, pe) = self.two_prod64(y, y)?;
        let (q, qe) = self.two_prod64(xs, p)?;
        let r = self.tx.b.f_sub(dt, None, onef, q)?;
        let r = self.tx.b.f_sub(dt, None, r, qe)?;
        let xpe = self.tx.b.f_mul(dt, None, xs, pe)?;
        let r = self.tx.b.f_sub(dt, None, r, xpe)?;
        let half = self.f64c(0.5)?;
        let c = self.tx.b.f_mul(dt, None, y, r)?;
        let c = self.tx.b.f_mul(dt, None, c, half)?;
        let y = self.tx.b.f_add(dt, None, y, c)?;
        // back: y · 2^(adj − k)
        let back = self.tx.b.i_sub(u32t, None, adj, k)?;
        let sb = self.pow2_64(back)?;
        let y = self.tx.b.f_mul(dt, None, y, sb)?;
        // special values
        let zerof = self.f64c(0.0)?;
        let is_zero = self.tx.b.f_ord_equal(bt, None, x, zerof)?;
        let inf = self.f64c(f64::INFINITY)?;
        // ±0: ±∞ (1/x keeps the sign)
        let signed_inf = self.tx.b.f_div(dt, None, onef, x)?;
        let y = self.tx.b.select(dt, None, is_zero, signed_inf, y)?;
        let is_inf = self.tx.b.f_ord_equal(bt, None, x, inf)?;
        let y = self.tx.b.select(dt, None, is_inf, zerof, y)?;
        let negative = self.tx.b.f_ord_less_than(bt, None, x, zerof)?;
        let nan = self.f64c(f64::NAN)?;
        Ok(self.tx.b.select(dt, None, negative, nan, y)?)
    }

    /// `(x_bits, e)`: an f64 scaled into [1, 2) by its exponent (a
    /// subnormal first by 2^54), and that exponent as an i32 (in a u32).
    /// `x` must be finite and nonzero.
    fn normalize64(&mut self, x: Word) -> R<(Word, Word)> {
        let dt = self.tx.float(64);
        let u64t = self.tx.uint(64);
        let u32t = self.tx.uint(32);
        let bt = self.tx.bool_ty();
        let ax = self.tx.glsl_op(dt, G::FAbs, &[x])?;
        let min_normal = self.f64c(f64::MIN_POSITIVE)?;
        let sub = self.tx.b.f_ord_less_than(bt, None, ax, min_normal)?;
        let up = self.f64c(2f64.powi(54))?;
        let xu = self.tx.b.f_mul(dt, None, x, up)?;
        let x = self.tx.b.select(dt, None, sub, xu, x)?;
        let xb = self.tx.b.bitcast(u64t, None, x)?;
        let c52 = self.tx.const_uint(64, 52);
        let ef = self.tx.b.shift_right_logical(u64t, None, xb, c52)?;
        let c7ff = self.tx.const_uint(64, 0x7FF);
        let ef = self.tx.b.bitwise_and(u64t, None, ef, c7ff)?;
        let ef = self.resize(ef, 64, 32, false)?;
        let bias = self.tx.const_u32(1023);
        let e = self.tx.b.i_sub(u32t, None, ef, bias)?;
        let c54 = self.tx.const_u32(54);
        let e54 = self.tx.b.i_sub(u32t, None, e, c54)?;
        let e = self.tx.b.select(u32t, None, sub, e54, e)?;
        let keep = self.tx.const_uint(64, 0x800F_FFFF_FFFF_FFFF);
        let one_exp = self.tx.const_uint(64, 1023 << 52);
        let m = self.tx.b.bitwise_and(u64t, None, xb, keep)?;
        let m = self.tx.b.bitwise_or(u64t, None, m, one_exp)?;
        Ok((self.tx.b.bitcast(dt, None, m)?, e))
    }

    /// `v · 2^k` for an integer k (u32 holding an i32) with |k| ≤ 2046,
    /// exact while the result is normal: two steps of at most 2^1023.
    fn scale64(&mut self, v: Word, k: Word) -> R<Word> {
        let dt = self.tx.float(64);
        let u32t = self.tx.uint(32);
        let one = self.tx.const_u32(1);
        let k1 = self.tx.b.shift_right_arithmetic(u32t, None, k, one)?;
        let k2 = self.tx.b.i_sub(u32t, None, k, k1)?;
        let p1 = self.pow2_64(k1)?;
        let p2 = self.pow2_64(k2)?;
        let v = self.tx.b.f_mul(dt, None, v, p1)?;
        Ok(self.tx.b.f_mul(dt, None, v, p2)?)
    }

    /// The exact value `(hi + lo) · 2^k` rounded to f64 in `mode`: `hi`
    /// nonzero with |hi| in [0.25, 4), `lo` its exact
    /// remainder or only a number of the remainder's sign, smaller than half
    /// an ULP of `hi`. Normal results take [`Self::directed64`] and an exact
    /// scaling; overflows the mode's infinity or largest finite value;
    /// subnormal ones (and those of the lowest normal binade) an integer
    /// rounding of the value in units of 2^-1074, which then is the
    /// encoding.
    fn round_scaled64(&mut self, hi: Word, lo: Word, k: Word, mode: Rndmode) -> R<Word> {
        let dt = self.tx.float(64);
        let u64t = self.tx.uint(64);
        let u32t = self.tx.uint(32);
        let bt = self.tx.bool_ty();
        let zero_f = self.f64c(0.0)?;
        let negative = self.tx.b.f_ord_less_than(bt, None, hi, zero_f)?;
        // the binade of the result before rounding: k + exponent(hi)
        let hb = self.tx.b.bitcast(u64t, None, hi)?;
        let c52 = self.tx.const_uint(64, 52);
        let ef = self.tx.b.shift_right_logical(u64t, None, hb, c52)?;
        let c7ff = self.tx.const_uint(64, 0x7FF);
        let ef = self.tx.b.bitwise_and(u64t, None, ef, c7ff)?;
        let ef = self.resize(ef, 64, 32, false)?;
        let bias = self.tx.const_u32(1023);
        let eh = self.tx.b.i_sub(u32t, None, ef, bias)?;
        let e = self.tx.b.i_add(u32t, None, k, eh)?;
        // the lowest normal binade too: a directed step down from 2^-1022
        // leaves it, and its grid is the subnormals' (2^-1074); there the
        // count of 2^-1074 units is the encoding as well (exponent field 1)
        let lo_limit = self.tx.const_u32((-1021i32) as u32);
        let hi_limit = self.tx.const_u32(1023);
        let subnormal = self.tx.b.s_less_than(bt, None, e, lo_limit)?;
        let too_big = self.tx.b.s_greater_than(bt, None, e, hi_limit)?;
        // normal: the directed pair, scaled (an overflow at the top of the
        // range shows as infinity)
        let no = self.tx.b.constant_false(bt);
        let r = self.directed64(hi, lo, no, mode)?;
        let normal = self.scale64(r, k)?;
        let inf_scaled = self.tx.b.is_inf(bt, None, normal)?;
        let overflow = self.tx.b.logical_or(bt, None, too_big, inf_scaled)?;
        // overflow: ±∞ when the mode rounds away from zero on this side,
        // else ±max
        let keeps_inf = match mode {
            Rndmode::Rz => self.tx.b.constant_false(bt),
            Rndmode::Ru => self.tx.b.logical_not(bt, None, negative)?,
            Rndmode::Rd => negative,
            Rndmode::Re | Rndmode::Rna => self.tx.b.constant_true(bt),
        };
        let inf = self.f64c(f64::INFINITY)?;
        let max = self.f64c(f64::MAX)?;
        let big = self.tx.b.select(dt, None, keeps_inf, inf, max)?;
        let nbig = self.tx.b.f_negate(dt, None, big)?;
        let big = self.tx.b.select(dt, None, negative, nbig, big)?;
        // subnormal: n units of 2^-1074 from the magnitude (ah + al)·2^s,
        // s = k + 1074
        let ah = self.tx.glsl_op(dt, G::FAbs, &[hi])?;
        let nlo = self.tx.b.f_negate(dt, None, lo)?;
        let al = self.tx.b.select(dt, None, negative, nlo, lo)?;
        let c1074 = self.tx.const_u32(1074);
        let s = self.tx.b.i_add(u32t, None, k, c1074)?;
        // below 2^-60 units (the value's binade below 2^-1134): only the
        // direction matters (deep)
        let deep_limit = self.tx.const_u32((-1134i32) as u32);
        let deep = self.tx.b.s_less_than(bt, None, e, deep_limit)?;
        let zero_u = self.tx.const_u32(0);
        let s = self.tx.b.select(u32t, None, deep, zero_u, s)?;
        let tp = self.scale64(ah, s)?;
        let te = self.scale64(al, s)?;
        let (s1, e1) = self.two_sum64(tp, te)?;
        let m = self.tx.glsl_op(dt, G::Floor, &[s1])?;
        let frac = self.tx.b.f_sub(dt, None, s1, m)?;
        let onef = self.f64c(1.0)?;
        let frac0 = self.tx.b.f_ord_equal(bt, None, frac, zero_f)?;
        let e_neg = self.tx.b.f_ord_less_than(bt, None, e1, zero_f)?;
        let e_pos = self.tx.b.f_ord_greater_than(bt, None, e1, zero_f)?;
        let dec = self.tx.b.logical_and(bt, None, frac0, e_neg)?;
        let m1 = self.tx.b.f_sub(dt, None, m, onef)?;
        let down = self.tx.b.select(dt, None, dec, m1, m)?;
        let p1 = self.tx.b.f_add(dt, None, m, onef)?;
        let up0 = self.tx.b.select(dt, None, e_pos, p1, m)?;
        let up = self.tx.b.select(dt, None, frac0, up0, p1)?;
        let halff = self.f64c(0.5)?;
        let fm = self.tx.b.f_sub(dt, None, frac, halff)?;
        let fm = self.tx.b.f_add(dt, None, fm, e1)?;
        let away = self.tx.b.f_ord_greater_than_equal(bt, None, fm, zero_f)?;
        let nearest = self.tx.b.select(dt, None, away, p1, m)?;
        // to nearest even: a tie goes up only from an odd m
        let above = self.tx.b.f_ord_greater_than(bt, None, fm, zero_f)?;
        let tie = self.tx.b.f_ord_equal(bt, None, fm, zero_f)?;
        let twof = self.f64c(2.0)?;
        let half_m = self.tx.b.f_mul(dt, None, m, halff)?;
        let fl = self.tx.glsl_op(dt, G::Floor, &[half_m])?;
        let even_part = self.tx.b.f_mul(dt, None, fl, twof)?;
        let odd = self.tx.b.f_ord_not_equal(bt, None, even_part, m)?;
        let tie_up = self.tx.b.logical_and(bt, None, tie, odd)?;
        let up_even = self.tx.b.logical_or(bt, None, above, tie_up)?;
        let nearest_even = self.tx.b.select(dt, None, up_even, p1, m)?;
        // which of them the mode takes for this sign
        let grows = match mode {
            Rndmode::Rz => self.tx.b.constant_false(bt),
            Rndmode::Ru => self.tx.b.logical_not(bt, None, negative)?,
            Rndmode::Rd => negative,
            Rndmode::Re | Rndmode::Rna => self.tx.b.constant_false(bt),
        };
        let n = match mode {
            Rndmode::Rna => nearest,
            Rndmode::Re => nearest_even,
            Rndmode::Rz | Rndmode::Ru | Rndmode::Rd => {
                self.tx.b.select(dt, None, grows, up, down)?
            }
        };
        // deep: 0 or one unit
        let unit = self.tx.b.select(dt, None, grows, onef, zero_f)?;
        let n = self.tx.b.select(dt, None, deep, unit, n)?;
        let nb = self.tx.b.convert_f_to_u(u64t, None, n)?;
        let sign = self.tx.const_uint(64, 1 << 63);
        let zero64 = self.tx.const_uint(64, 0);
        let sb = self.tx.b.select(u64t, None, negative, sign, zero64)?;
        let sub_bits = self.tx.b.bitwise_or(u64t, None, nb, sb)?;
        let sub_v = self.tx.b.bitcast(dt, None, sub_bits)?;
        let v = self.tx.b.select(dt, None, overflow, big, normal)?;
        Ok(self.tx.b.select(dt, None, subnormal, sub_v, v)?)
    }

    /// `a · b`, `a / b` or `sqrt(a)` (`op`) of f64 values in a directed
    /// mode: the operands scaled into [1, 2) (a root's by an even power),
    /// the exact result as the nearest value and its exact remainder
    /// (Dekker), then [`Self::round_scaled64`]. Zeros, infinities and NaNs
    /// are IEEE's, with the zero and infinity signs of the operation.
    pub fn directed_binary64(
        &mut self,
        op: crate::ir::Opcode,
        a: Word,
        b: Option<Word>,
        mode: Rndmode,
    ) -> R<Word> {
        use crate::ir::Opcode;
        let dt = self.tx.float(64);
        let u32t = self.tx.uint(32);
        let bt = self.tx.bool_ty();
        let onef = self.f64c(1.0)?;
        let zero_f = self.f64c(0.0)?;
        // operands that take the general path: finite and nonzero
        let ok = |fx: &mut Self, x: Word| -> R<Word> {
            let inf = fx.tx.b.is_inf(bt, None, x)?;
            let nan = fx.tx.b.is_nan(bt, None, x)?;
            let zero = fx.tx.b.f_ord_equal(bt, None, x, zero_f)?;
            let bad = fx.tx.b.logical_or(bt, None, inf, nan)?;
            let bad = fx.tx.b.logical_or(bt, None, bad, zero)?;
            Ok(fx.tx.b.logical_not(bt, None, bad)?)
        };
        let ok_a = ok(self, a)?;
        let sa = self.tx.b.select(dt, None, ok_a, a, onef)?;
        let (ma, ea) = self.normalize64(sa)?;
        let (general, special, ok_all) = match (op, b) {
            (Opcode::Fmul, Some(b)) => {
                let ok_b = ok(self, b)?;
                let sb = self.tx.b.select(dt, None, ok_b, b, onef)?;
                let (mb, eb) = self.normalize64(sb)?;
                let (p, e) = self.two_prod64(ma, mb)?;
                let k = self.tx.b.i_add(u32t, None, ea, eb)?;
                let g = self.round_scaled64(p, e, k, mode)?;
                let sp = self.tx.b.f_mul(dt, None, a, b)?;
                (g, sp, self.tx.b.logical_and(bt, None, ok_a, ok_b)?)
            }
            (Opcode::Fdiv, Some(b)) => {
                let ok_b = ok(self, b)?;
                let sb = self.tx.b.select(dt, None, ok_b, b, onef)?;
                let (mb, eb) = self.normalize64(sb)?;
                let q = self.nearest_div64(ma, mb)?;
                let (above, inexact) = self.exact_side(ma, q, mb, Some(mb))?;
                let d = self.side_carrier(above, inexact)?;
                let k = self.tx.b.i_sub(u32t, None, ea, eb)?;
                let g = self.round_scaled64(q, d, k, mode)?;
                let sp = self.tx.b.f_div(dt, None, a, b)?;
                (g, sp, self.tx.b.logical_and(bt, None, ok_a, ok_b)?)
            }
            _ => {
                // sqrt: an odd exponent moves one factor 2 into the operand
                let one = self.tx.const_u32(1);
                let odd = self.tx.b.bitwise_and(u32t, None, ea, one)?;
                let zero = self.tx.const_u32(0);
                let is_odd = self.tx.b.i_not_equal(bt, None, odd, zero)?;
                let two = self.f64c(2.0)?;
                let m2 = self.tx.b.f_mul(dt, None, ma, two)?;
                let m = self.tx.b.select(dt, None, is_odd, m2, ma)?;
                let e_even = self.tx.b.i_sub(u32t, None, ea, odd)?;
                let k = self.tx.b.shift_right_arithmetic(u32t, None, e_even, one)?;
                let s = self.nearest_sqrt64(m)?;
                let (above, inexact) = self.exact_side(m, s, s, None)?;
                let d = self.side_carrier(above, inexact)?;
                let g = self.round_scaled64(s, d, k, mode)?;
                let sp = self.tx.glsl_op(dt, G::Sqrt, &[a])?;
                // a negative operand: NaN
                let positive = self.tx.b.f_ord_greater_than(bt, None, a, zero_f)?;
                (g, sp, self.tx.b.logical_and(bt, None, ok_a, positive)?)
            }
        };
        Ok(self.tx.b.select(dt, None, ok_all, general, special)?)
    }

    /// `fmad.df` in any mode: `a·b + c` rounded once, whatever the driver's
    /// `Fma` does (lavapipe's rounds twice). With a and b
    /// scaled into [1, 2) the product is exactly `p + pe` at 2^K; c joins
    /// at the same scale (exactly, or — more than 2^1000 away — as a
    /// stand-in of its sign, which is all that then matters); the tail
    /// beyond `th = RN(p + c')` is rounded to odd, which keeps every
    /// rounding boundary on its side, and [`Self::round_scaled64`] rounds
    /// `th` plus it. Zeros, infinities and NaNs go through `Fma`, whose
    /// results are then exact, with IEEE's sign of an exact zero sum.
    pub fn fma64(&mut self, a: Word, b: Word, c: Word, mode: Rndmode) -> R<Word> {
        let dt = self.tx.float(64);
        let u32t = self.tx.uint(32);
        let bt = self.tx.bool_ty();
        let onef = self.f64c(1.0)?;
        let zero_f = self.f64c(0.0)?;
        let finite_nonzero = |fx: &mut Self, x: Word| -> R<Word> {
            let inf = fx.tx.b.is_inf(bt, None, x)?;
            let nan = fx.tx.b.is_nan(bt, None, x)?;
            let zero = fx.tx.b.f_ord_equal(bt, None, x, zero_f)?;
            let bad = fx.tx.b.logical_or(bt, None, inf, nan)?;
            let bad = fx.tx.b.logical_or(bt, None, bad, zero)?;
            Ok(fx.tx.b.logical_not(bt, None, bad)?)
        };
        let ok_a = finite_nonzero(self, a)?;
        let ok_b = finite_nonzero(self, b)?;
        let c_inf = self.tx.b.is_inf(bt, None, c)?;
        let c_nan = self.tx.b.is_nan(bt, None, c)?;
        let c_bad = self.tx.b.logical_or(bt, None, c_inf, c_nan)?;
        let c_ok = self.tx.b.logical_not(bt, None, c_bad)?;
        let c_zero = self.tx.b.f_ord_equal(bt, None, c, zero_f)?;
        let general = self.tx.b.logical_and(bt, None, ok_a, ok_b)?;
        let general = self.tx.b.logical_and(bt, None, general, c_ok)?;
        let sa = self.tx.b.select(dt, None, ok_a, a, onef)?;
        let sb = self.tx.b.select(dt, None, ok_b, b, onef)?;
        let (ma, ea) = self.normalize64(sa)?;
        let (mb, eb) = self.normalize64(sb)?;
        let (p, pe) = self.two_prod64(ma, mb)?;
        let k = self.tx.b.i_add(u32t, None, ea, eb)?;
        // c at the product's scale: d = exponent(c) − K
        let sc = self.tx.b.select(dt, None, c_zero, onef, c)?;
        let sc = self.tx.b.select(dt, None, c_ok, sc, onef)?;
        let (mc, ec) = self.normalize64(sc)?;
        let d = self.tx.b.i_sub(u32t, None, ec, k)?;
        let lim = self.tx.const_u32(1000);
        let nlim = self.tx.const_u32((-1000i32) as u32);
        let c_far_below = self.tx.b.s_less_than(bt, None, d, nlim)?;
        let c_far_above = self.tx.b.s_greater_than(bt, None, d, lim)?;
        // (a zero c is never far: it only stands in for the exponent)
        let c_nonzero = self.tx.b.logical_not(bt, None, c_zero)?;
        let c_far_above = self.tx.b.logical_and(bt, None, c_far_above, c_nonzero)?;
        let d_clamped = self.tx.b.select(u32t, None, c_far_below, nlim, d)?;
        let d_clamped = self.tx.b.select(u32t, None, c_far_above, lim, d_clamped)?;
        let cs = self.scale64(mc, d_clamped)?;
        // far below: only c's sign matters, at a scale below pe's grain
        let tiny = self.f64c(2f64.powi(-1000))?;
        let c_neg = self.tx.b.f_ord_less_than(bt, None, c, zero_f)?;
        let ntiny = self.f64c(-(2f64.powi(-1000)))?;
        let stand_in = self.tx.b.select(dt, None, c_neg, ntiny, tiny)?;
        let cs = self.tx.b.select(dt, None, c_far_below, stand_in, cs)?;
        let cs = self.tx.b.select(dt, None, c_zero, zero_f, cs)?;
        let (th, tl) = self.two_sum64(p, cs)?;
        let (vs, ve) = self.two_sum64(tl, pe)?;
        let v = self.round_to_odd64(vs, ve)?;
        let (s, e) = self.two_sum64(th, v)?;
        let near = self.round_scaled64(s, e, k, mode)?;
        // an exact zero sum: −0 rounding down, else +0
        let s_zero = self.tx.b.f_ord_equal(bt, None, s, zero_f)?;
        let zero_result = self.f64c(if mode == Rndmode::Rd { -0.0 } else { 0.0 })?;
        let near = self.tx.b.select(dt, None, s_zero, zero_result, near)?;
        // far above: c, moved by the product's sign (from the operands':
        // the product itself may underflow to zero)
        let a_neg = self.tx.b.f_ord_less_than(bt, None, sa, zero_f)?;
        let b_neg = self.tx.b.f_ord_less_than(bt, None, sb, zero_f)?;
        let p_neg = self.tx.b.logical_not_equal(bt, None, a_neg, b_neg)?;
        let carrier = self.tx.b.select(dt, None, p_neg, ntiny, tiny)?;
        let no = self.tx.b.constant_false(bt);
        let far = self.directed64(c, carrier, no, mode)?;
        let v = self.tx.b.select(dt, None, c_far_above, far, near)?;
        // zeros, infinities, NaNs: Fma's exact result, zero signs by IEEE
        let special = self.fma_special(a, b, c)?;
        let prod = self.tx.b.f_mul(dt, None, a, b)?;
        let special = self.exact_zero_sum(special, prod, c, mode)?;
        Ok(self.tx.b.select(dt, None, general, v, special)?)
    }
}
