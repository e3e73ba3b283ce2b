//! Half (`.hf`) and bfloat16 (`.bf`) values: exact widening to f32 and
//! narrowing from it. `.hf` arithmetic to nearest is done in f32 and
//! rounded once by `OpFConvert` (correctly rounded): with 24 significant
//! bits against 11, that double rounding is innocuous for +, −, ×, ÷ and √
//! (p' ≥ 2p + 2). It is not for `fmad`, a call of the exact library in
//! every mode (`ir::exactf32`, `exactf64`), as is every rounding into
//! `.bf` (Vulkan has none): into `.bf` this file narrows only values
//! bfloat16 holds exactly.
//!
//! Without `shaderFloat16` the `.hf` operations that round are calls of
//! the exact library too (`ir::exactf32::replacement_for`); this file
//! narrows exact values into `.hf` there in integers
//! ([`float_to_f16_bits`]). Rounding still done here (issue 32,
//! docs/numerics.md "Left to do"): the 16-bit float atomics' sums
//! (`atomics.rs`: [`f32_bits_to_bf16`], and [`float_to_f16_bits`] without
//! `shaderFloat16`), whose read-modify-write loop is the back end's.

use super::common::R;
use crate::ir::FloatKind;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

/// A 16-bit float source (`hf` or `bf` bits) extended exactly to f32.
pub fn half_to_f32(fx: &mut FunctionCx, h: Word, from: FloatKind) -> R<Word> {
    // hidden from llvmpipe's fast-math folds (`FunctionCx::opaque`)
    let h = fx.opaque(h, 16)?;
    let f32t = fx.tx.float(32);
    let h32 = fx.resize(h, 16, 32, false)?;
    if from == FloatKind::BFloat {
        // bfloat16 is the top half of an f32
        let u32t = fx.tx.uint(32);
        let sixteen = fx.tx.const_u32(16);
        let v = fx.tx.b.shift_left_logical(u32t, None, h32, sixteen)?;
        return Ok(fx.tx.b.bitcast(f32t, None, v)?);
    }
    let v2 = fx.tx.vec(f32t, 2);
    let pair = fx.tx.glsl_op(v2, G::UnpackHalf2x16, &[h32])?;
    Ok(fx.tx.b.composite_extract(f32t, None, pair, [0])?)
}

/// f32 bits → bfloat16 bits (in a u32), round to nearest even; NaNs stay
/// (quiet) NaNs. Only the 16-bit atomics use it (`atom.add.bf`, whose
/// read-modify-write loop is the back end's: left to move into IR).
pub fn f32_bits_to_bf16(fx: &mut FunctionCx, a: Word) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let sixteen = fx.tx.const_u32(16);
    let one = fx.tx.const_u32(1);
    let hi = fx.tx.b.shift_right_logical(u32t, None, a, sixteen)?;
    let lsb = fx.tx.b.bitwise_and(u32t, None, hi, one)?;
    let bias = fx.tx.const_u32(0x7FFF);
    let r = fx.tx.b.i_add(u32t, None, a, bias)?;
    let r = fx.tx.b.i_add(u32t, None, r, lsb)?;
    let rounded = fx.tx.b.shift_right_logical(u32t, None, r, sixteen)?;
    let f32t = fx.tx.float(32);
    let af = fx.tx.b.bitcast(f32t, None, a)?;
    let bt = fx.tx.bool_ty();
    let nan = fx.tx.b.is_nan(bt, None, af)?;
    let q = fx.tx.const_u32(0x40);
    let quiet = fx.tx.b.bitwise_or(u32t, None, hi, q)?;
    Ok(fx.tx.b.select(u32t, None, nan, quiet, rounded)?)
}

/// An f32 value rounded to the 16-bit format `kind` (`hf` or `bf`), as bits
/// in a u16. Into `bf` only values bfloat16 holds exactly reach here
/// (`fmin`/`fmax`, `frnd`, `.dsat`'s clamp of a bfloat16 value: every
/// rounding into bfloat16 is a call of the exact library, `ir::exactf32`,
/// `exactf64`): their top half. NaNs among them are replaced by the
/// callers' NaN rules.
pub fn f32_to_half(fx: &mut FunctionCx, f: Word, kind: FloatKind) -> R<Word> {
    if kind == FloatKind::BFloat {
        let u32t = fx.tx.uint(32);
        let bits = fx.tx.b.bitcast(u32t, None, f)?;
        let sixteen = fx.tx.const_u32(16);
        let v = fx.tx.b.shift_right_logical(u32t, None, bits, sixteen)?;
        return fx.resize(v, 32, 16, false);
    }
    if !fx.tx.options.float16 {
        // no 16-bit float type: the f32 bits narrowed in integer arithmetic
        // (exact values but for the atomics' sums: every other rounding
        // into `.hf` is then a call of the exact library)
        let u32t = fx.tx.uint(32);
        let bits = fx.tx.b.bitcast(u32t, None, f)?;
        let h = float_to_f16_bits(fx, bits, 32)?;
        return fx.resize(h, 32, 16, false);
    }
    // OpFConvert is correctly rounded (round to nearest even)
    let f16t = fx.tx.float(16);
    let h = fx.tx.b.f_convert(f16t, None, f)?;
    let u16t = fx.tx.uint(16);
    Ok(fx.tx.b.bitcast(u16t, None, h)?)
}

/// The bits `a` of an f32 or f64 (`width` 32 or 64) → f16 bits (in an
/// integer of `width`), round to nearest even, in integer arithmetic; a NaN
/// keeps its sign and the top 10 bits of its significand, made quiet.
pub fn float_to_f16_bits(fx: &mut FunctionCx, a: Word, width: u16) -> R<Word> {
    // significand bits, exponent mask and bias of the source format
    let (mb, emask, bias): (u64, u64, u64) = if width == 64 {
        (52, 0x7FF, 1023)
    } else {
        (23, 0xFF, 127)
    };
    let t = fx.tx.uint(width);
    let bt = fx.tx.bool_ty();
    let c = |fx: &mut FunctionCx, v: u64| fx.tx.const_uint(width, v);
    let (cmb, ctop, c11) = (c(fx, mb), c(fx, width as u64 - 1), c(fx, emask));
    let sign = fx.tx.b.shift_right_logical(t, None, a, ctop)?;
    let c15 = c(fx, 15);
    let sign = fx.tx.b.shift_left_logical(t, None, sign, c15)?;
    let e_sh = fx.tx.b.shift_right_logical(t, None, a, cmb)?;
    let e = fx.tx.b.bitwise_and(t, None, e_sh, c11)?;
    let mmask = c(fx, (1u64 << mb) - 1);
    let m = fx.tx.b.bitwise_and(t, None, a, mmask)?;
    let zero = c(fx, 0);
    let one = c(fx, 1);
    // significand with the implicit bit, and the effective exponent
    let is_sub = fx.tx.b.i_equal(bt, None, e, zero)?;
    let implicit = c(fx, 1u64 << mb);
    let with_bit = fx.tx.b.bitwise_or(t, None, m, implicit)?;
    let big_m = fx.tx.b.select(t, None, is_sub, m, with_bit)?;
    let e_eff = fx.tx.b.select(t, None, is_sub, one, e)?;
    // E = e_eff - bias; rounding shift sh = (mb - 10) + max(0, -14 - E)
    // = (mb - 10) + max(0, (bias - 14) - e_eff)
    let cmin = c(fx, bias - 14);
    let below = fx.tx.b.u_less_than(bt, None, e_eff, cmin)?;
    let deficit = fx.tx.b.i_sub(t, None, cmin, e_eff)?;
    let extra = fx.tx.b.select(t, None, below, deficit, zero)?;
    let cshift = c(fx, mb - 10);
    let sh = fx.tx.b.i_add(t, None, cshift, extra)?;
    let too_far = fx.tx.b.u_greater_than(bt, None, sh, ctop)?;
    let sh = fx.tx.b.select(t, None, too_far, ctop, sh)?;
    let r = fx.tx.b.shift_right_logical(t, None, big_m, sh)?;
    let unit = fx.tx.b.shift_left_logical(t, None, one, sh)?;
    let rmask = fx.tx.b.i_sub(t, None, unit, one)?;
    let rem = fx.tx.b.bitwise_and(t, None, big_m, rmask)?;
    let sh1 = fx.tx.b.i_sub(t, None, sh, one)?;
    let half = fx.tx.b.shift_left_logical(t, None, one, sh1)?;
    let gt = fx.tx.b.u_greater_than(bt, None, rem, half)?;
    let eq = fx.tx.b.i_equal(bt, None, rem, half)?;
    let odd = fx.tx.b.bitwise_and(t, None, r, one)?;
    let is_odd = fx.tx.b.i_not_equal(bt, None, odd, zero)?;
    let tie_up = fx.tx.b.logical_and(bt, None, eq, is_odd)?;
    let up = fx.tx.b.logical_or(bt, None, gt, tie_up)?;
    let inc = fx.tx.b.select(t, None, up, one, zero)?;
    let r = fx.tx.b.i_add(t, None, r, inc)?;
    // bits = R + (max(E, -14) + 14) << 10, i.e. (max(e_eff, bias - 14) - (bias - 14)) << 10
    let emax = fx.tx.b.select(t, None, below, cmin, e_eff)?;
    let ebias = fx.tx.b.i_sub(t, None, emax, cmin)?;
    let c10 = c(fx, 10);
    let ebits = fx.tx.b.shift_left_logical(t, None, ebias, c10)?;
    let mut bits = fx.tx.b.i_add(t, None, r, ebits)?;
    // overflow to infinity (exponents far above the range too)
    let inf = c(fx, 0x7C00);
    let cmax = c(fx, bias + 15);
    let huge = fx.tx.b.u_greater_than(bt, None, e_eff, cmax)?;
    let over = fx.tx.b.u_greater_than_equal(bt, None, bits, inf)?;
    let over = fx.tx.b.logical_or(bt, None, over, huge)?;
    bits = fx.tx.b.select(t, None, over, inf, bits)?;
    // NaN and infinity inputs
    let is_special = fx.tx.b.i_equal(bt, None, e, c11)?;
    let m_top = fx.tx.b.shift_right_logical(t, None, m, cshift)?;
    let quiet = c(fx, 0x7E00);
    let nan = fx.tx.b.bitwise_or(t, None, quiet, m_top)?;
    let m_zero = fx.tx.b.i_equal(bt, None, m, zero)?;
    let special = fx.tx.b.select(t, None, m_zero, inf, nan)?;
    bits = fx.tx.b.select(t, None, is_special, special, bits)?;
    Ok(fx.tx.b.bitwise_or(t, None, bits, sign)?)
}
