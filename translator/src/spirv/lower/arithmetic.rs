//! Integer arithmetic (spec chapter 12) on scalar types. Packed forms and
//! `.dsat` are not lowered yet.

use super::{bits_of, Ins, R};
use crate::spirv::function::Fx;
use rspirv::spirv::GlslStd450Op as G;

pub fn lower(fx: &mut Fx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.q("type") else {
        return Ok(false);
    };
    if crate::catalog::packed_shape(ty).is_some() || ins.has("dsat") {
        return Ok(false);
    }
    let bits = bits_of(ty);
    let t = fx.tx.uint(bits);
    let full = ins.q("precision") == Some("full");
    let signed = ins.name.starts_with('s') || ins.name == "iabs";
    match ins.name {
        "iadd" | "isub" | "smin" | "smax" | "umin" | "umax" | "sdiv" | "udiv" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            let b = fx.read(ins.opr("src1")?, bits)?;
            let b_ = &mut fx.tx.b;
            let rem = ins.q("output") == Some("rem");
            let v = match ins.name {
                "iadd" => b_.i_add(t, None, a, b)?,
                "isub" => b_.i_sub(t, None, a, b)?,
                "sdiv" if rem => b_.s_rem(t, None, a, b)?,
                "sdiv" => b_.s_div(t, None, a, b)?,
                "udiv" if rem => b_.u_mod(t, None, a, b)?,
                "udiv" => b_.u_div(t, None, a, b)?,
                op => {
                    let g = match op {
                        "smin" => G::SMin,
                        "smax" => G::SMax,
                        "umin" => G::UMin,
                        _ => G::UMax,
                    };
                    fx.tx.glsl_op(t, g, &[a, b])?
                }
            };
            fx.write(ins.opr("dst")?, v, bits)?;
        }
        "ineg" | "iabs" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            let v = if ins.name == "ineg" {
                fx.tx.b.s_negate(t, None, a)?
            } else {
                fx.tx.glsl_op(t, G::SAbs, &[a])?
            };
            fx.write(ins.opr("dst")?, v, bits)?;
        }
        "smul" | "umul" | "smad" | "umad" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            let b = fx.read(ins.opr("src1")?, bits)?;
            let (a, b, w) = if full {
                let w = bits * 2;
                (
                    fx.resize(a, bits, w, signed)?,
                    fx.resize(b, bits, w, signed)?,
                    w,
                )
            } else {
                (a, b, bits)
            };
            let wt = fx.tx.uint(w);
            let mut v = fx.tx.b.i_mul(wt, None, a, b)?;
            if ins.name.ends_with("mad") {
                let c = fx.read(ins.opr("src2")?, w)?;
                v = fx.tx.b.i_add(wt, None, v, c)?;
            }
            fx.write(ins.opr("dst")?, v, w)?;
        }
        "uaddc" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            let b = fx.read(ins.opr("src1")?, bits)?;
            let st = fx.tx.b.type_struct([t, t]);
            let r = fx.tx.b.i_add_carry(st, None, a, b)?;
            let mut sum = fx.tx.b.composite_extract(t, None, r, [0])?;
            let mut carry = fx.tx.b.composite_extract(t, None, r, [1])?;
            if let Some(ci) = ins.op("carry-in") {
                let p = fx.read_pred(ci)?;
                let one = fx.tx.const_uint(bits, 1);
                let zero = fx.tx.const_uint(bits, 0);
                let c = fx.tx.b.select(t, None, p, one, zero)?;
                let r2 = fx.tx.b.i_add_carry(st, None, sum, c)?;
                sum = fx.tx.b.composite_extract(t, None, r2, [0])?;
                let c2 = fx.tx.b.composite_extract(t, None, r2, [1])?;
                carry = fx.tx.b.bitwise_or(t, None, carry, c2)?;
            }
            fx.write(ins.opr("dst")?, sum, bits)?;
            if let Some(co) = ins.op("carry-out") {
                let bt = fx.tx.bool_ty();
                let zero = fx.tx.const_uint(bits, 0);
                let p = fx.tx.b.i_not_equal(bt, None, carry, zero)?;
                fx.write_pred(co, p)?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}
