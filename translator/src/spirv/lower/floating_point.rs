//! Floating-point arithmetic (spec chapter 13) for `.f`, `.df`, `.hf` and
//! `.bf` with the default rounding (`.re`); 16-bit formats compute in f32 and
//! round once (see `float16.rs`). `fabs`/`fneg` are bit operations, so NaN
//! payloads pass through unchanged.

use super::float16::{f32_to_half, half_to_f32};
use super::{Ins, R};
use crate::spirv::function::Fx;
use crate::syntax::ast::Operand;
use rspirv::spirv::GlslStd450Op as G;

pub fn lower(fx: &mut Fx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.q("type") else {
        return Ok(false);
    };
    let fbits = match ty {
        "f" => 32,
        "df" => 64,
        "hf" | "bf" => 16,
        _ => return Ok(false),
    };
    // only the default rounding and no flush/saturation/NaN-propagation variants yet
    if ins.q("rndmode").is_some_and(|r| r != "re")
        || ins.has("ftz")
        || ins.has("dsat")
        || ins.has("nanp")
        || ins.has("precision")
        || ins.form.quals.iter().any(|q| q.literal && q.name == "fast")
    {
        return Ok(false);
    }
    if fbits == 16 && !matches!(ins.name, "fabs" | "fneg") {
        return half(fx, ins, ty);
    }
    let ft = fx.tx.float(fbits);
    let v = match ins.name {
        "fabs" | "fneg" => {
            let a = fx.read(ins.opr("src0")?, fbits)?;
            let t = fx.tx.uint(fbits);
            let sign = fx.tx.const_uint(fbits, 1u64 << (fbits - 1));
            let v = if ins.name == "fneg" {
                fx.tx.b.bitwise_xor(t, None, a, sign)?
            } else {
                let mask = fx.tx.b.not(t, None, sign)?;
                fx.tx.b.bitwise_and(t, None, a, mask)?
            };
            fx.write(ins.opr("dst")?, v, fbits)?;
            return Ok(true);
        }
        "fadd" | "fsub" | "fmul" | "fdiv" | "fmin" | "fmax" => {
            let a = fx.read_f(ins.opr("src0")?, fbits)?;
            let b = fx.read_f(ins.opr("src1")?, fbits)?;
            match ins.name {
                "fadd" => fx.tx.b.f_add(ft, None, a, b)?,
                "fsub" => fx.tx.b.f_sub(ft, None, a, b)?,
                "fmul" => fx.tx.b.f_mul(ft, None, a, b)?,
                "fdiv" => fx.tx.b.f_div(ft, None, a, b)?,
                // IEEE 754 minimumNumber/maximumNumber: a NaN operand yields the other
                "fmin" => fx.tx.glsl_op(ft, G::NMin, &[a, b])?,
                _ => fx.tx.glsl_op(ft, G::NMax, &[a, b])?,
            }
        }
        "fmad" => {
            let a = fx.read_f(ins.opr("src0")?, fbits)?;
            let b = fx.read_f(ins.opr("src1")?, fbits)?;
            let c = fx.read_f(ins.opr("src2")?, fbits)?;
            fx.tx.glsl_op(ft, G::Fma, &[a, b, c])?
        }
        "fsqrt" => {
            let a = fx.read_f(ins.opr("src0")?, fbits)?;
            fx.tx.glsl_op(ft, G::Sqrt, &[a])?
        }
        // src0 - round(src0, .rd): exact
        "frc" => {
            let a = fx.read_f(ins.opr("src0")?, fbits)?;
            let fl = fx.tx.glsl_op(ft, G::Floor, &[a])?;
            fx.tx.b.f_sub(ft, None, a, fl)?
        }
        // 1/src0 with the division's precision (see docs/spec-notes.md)
        "frcp" => {
            let a = fx.read_f(ins.opr("src0")?, fbits)?;
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic), fbits)?;
            fx.tx.b.f_div(ft, None, one, a)?
        }
        _ => return Ok(false),
    };
    fx.write_f(ins.opr("dst")?, v, fbits)?;
    Ok(true)
}

/// `.hf`/`.bf` arithmetic: widen exactly, compute in f32, round once.
fn half(fx: &mut Fx, ins: &Ins, ty: &str) -> R<bool> {
    let mut srcs = Vec::new();
    for name in ["src0", "src1", "src2"] {
        if let Some(op) = ins.op(name) {
            let h = fx.read(op, 16)?;
            srcs.push(half_to_f32(fx, h, ty)?);
        }
    }
    let ft = fx.tx.float(32);
    let v = match (ins.name, srcs.as_slice()) {
        ("fadd", [a, b]) => fx.tx.b.f_add(ft, None, *a, *b)?,
        ("fsub", [a, b]) => fx.tx.b.f_sub(ft, None, *a, *b)?,
        ("fmul", [a, b]) => fx.tx.b.f_mul(ft, None, *a, *b)?,
        ("fdiv", [a, b]) => fx.tx.b.f_div(ft, None, *a, *b)?,
        ("fmin", [a, b]) => fx.tx.glsl_op(ft, G::NMin, &[*a, *b])?,
        ("fmax", [a, b]) => fx.tx.glsl_op(ft, G::NMax, &[*a, *b])?,
        ("fsqrt", [a]) => fx.tx.glsl_op(ft, G::Sqrt, &[*a])?,
        ("frcp", [a]) => {
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic), 32)?;
            fx.tx.b.f_div(ft, None, one, *a)?
        }
        // the product of two 16-bit values is exact in f32
        ("fmad", [a, b, c]) => fx.tx.glsl_op(ft, G::Fma, &[*a, *b, *c])?,
        _ => return Ok(false),
    };
    let h = f32_to_half(fx, v, ty)?;
    fx.write(ins.opr("dst")?, h, 16)?;
    Ok(true)
}
