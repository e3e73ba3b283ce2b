//! Floating-point arithmetic (spec chapter 13) for `.f` and `.df` with the
//! default rounding (`.re`). `fabs`/`fneg` are bit operations, so NaN
//! payloads pass through unchanged.

use super::{Ins, R};
use crate::spirv::function::Fx;
use rspirv::spirv::GlslStd450Op as G;

pub fn lower(fx: &mut Fx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.q("type") else {
        return Ok(false);
    };
    let fbits = match ty {
        "f" => 32,
        "df" => 64,
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
        _ => return Ok(false),
    };
    fx.write_f(ins.opr("dst")?, v, fbits)?;
    Ok(true)
}
