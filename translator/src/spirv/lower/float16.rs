//! Half (`.hf`) and bfloat16 (`.bf`) values: exact widening to f32 and
//! correctly rounded narrowing from it. Arithmetic on them is done in f32
//! and rounded once: with 24 significant bits against 11 (half) or 8
//! (bfloat16), that double rounding is innocuous for +, −, ×, ÷ and √
//! (p' ≥ 2p + 2). It is not for `fmad`, which rounds the f32 sum to odd
//! first (`floating_point::fmad16`).

use super::R;
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
/// (quiet) NaNs.
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
/// in a u16.
pub fn f32_to_half(fx: &mut FunctionCx, f: Word, kind: FloatKind) -> R<Word> {
    if kind == FloatKind::BFloat {
        let u32t = fx.tx.uint(32);
        let bits = fx.tx.b.bitcast(u32t, None, f)?;
        let v = f32_bits_to_bf16(fx, bits)?;
        return fx.resize(v, 32, 16, false);
    }
    // OpFConvert is correctly rounded (round to nearest even)
    let f16t = fx.tx.float(16);
    let h = fx.tx.b.f_convert(f16t, None, f)?;
    let u16t = fx.tx.uint(16);
    Ok(fx.tx.b.bitcast(u16t, None, h)?)
}
