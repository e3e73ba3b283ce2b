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
//! narrows exact values into `.hf` there in integers, rounding nothing.
//! The 16-bit float atomics' sums are `fadd`/`fsub` in loops the IR pass
//! `fatom16` builds, rounded as those are.

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
        // (exact values only: every rounding into `.hf` is then a call of
        // the exact library)
        let u32t = fx.tx.uint(32);
        let bits = fx.tx.b.bitcast(u32t, None, f)?;
        let h = f32_exact_to_f16_bits(fx, bits)?;
        return fx.resize(h, 32, 16, false);
    }
    // OpFConvert is correctly rounded (round to nearest even)
    let f16t = fx.tx.float(16);
    let h = fx.tx.b.f_convert(f16t, None, f)?;
    let u16t = fx.tx.uint(16);
    Ok(fx.tx.b.bitcast(u16t, None, h)?)
}

/// The bits `a` (a u32) of an f32 value that half holds exactly (or an
/// infinity or NaN) → its f16 bits (in a u32), in integer arithmetic:
/// nothing is rounded, the significand's low bits are zeros dropped. A
/// NaN keeps its sign and the top 10 bits of its significand, made quiet
/// (the callers' NaN rules replace it).
fn f32_exact_to_f16_bits(fx: &mut FunctionCx, a: Word) -> R<Word> {
    let t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let c = |fx: &mut FunctionCx, v: u32| fx.tx.const_u32(v);
    let (c23, c31, c13) = (c(fx, 23), c(fx, 31), c(fx, 13));
    let sign = fx.tx.b.shift_right_logical(t, None, a, c31)?;
    let c15 = c(fx, 15);
    let sign = fx.tx.b.shift_left_logical(t, None, sign, c15)?;
    let e_sh = fx.tx.b.shift_right_logical(t, None, a, c23)?;
    let cff = c(fx, 0xFF);
    let e = fx.tx.b.bitwise_and(t, None, e_sh, cff)?;
    let mmask = c(fx, 0x7F_FFFF);
    let m = fx.tx.b.bitwise_and(t, None, a, mmask)?;
    // (2^23 + m) · 2^(e − 150) in units of 2^-24 (half's subnormal step):
    // (2^23 + m) >> (126 − e) below half's normal range (e < 113; f32's
    // zeros and subnormals, far below it, shift to 0), else the exponent
    // rebiased and the significand's top 10 bits
    let implicit = c(fx, 1 << 23);
    let big_m = fx.tx.b.bitwise_or(t, None, m, implicit)?;
    let c126 = c(fx, 126);
    let sh = fx.tx.b.i_sub(t, None, c126, e)?;
    let sh = fx.tx.glsl_op(t, G::UMin, &[sh, c31])?;
    let sub = fx.tx.b.shift_right_logical(t, None, big_m, sh)?;
    let c112 = c(fx, 112);
    let eb = fx.tx.b.i_sub(t, None, e, c112)?;
    let c10 = c(fx, 10);
    let eb = fx.tx.b.shift_left_logical(t, None, eb, c10)?;
    let top = fx.tx.b.shift_right_logical(t, None, m, c13)?;
    let normal = fx.tx.b.bitwise_or(t, None, eb, top)?;
    let c113 = c(fx, 113);
    let is_sub = fx.tx.b.u_less_than(bt, None, e, c113)?;
    let mut bits = fx.tx.b.select(t, None, is_sub, sub, normal)?;
    // infinities and NaNs
    let is_special = fx.tx.b.i_equal(bt, None, e, cff)?;
    let zero = c(fx, 0);
    let m_zero = fx.tx.b.i_equal(bt, None, m, zero)?;
    let quiet = c(fx, 0x7E00);
    let nan = fx.tx.b.bitwise_or(t, None, quiet, top)?;
    let inf = c(fx, 0x7C00);
    let special = fx.tx.b.select(t, None, m_zero, inf, nan)?;
    bits = fx.tx.b.select(t, None, is_special, special, bits)?;
    Ok(fx.tx.b.bitwise_or(t, None, bits, sign)?)
}
