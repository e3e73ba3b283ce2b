//! Logic, shift and bit-field instructions (spec chapter 14) on scalar types.

use super::{bits_of, Ins, R};
use crate::spirv::function::Fx;
use rspirv::spirv::GlslStd450Op as G;

pub fn lower(fx: &mut Fx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.q("type") else {
        return Ok(false);
    };
    if crate::catalog::packed_shape(ty).is_some() {
        return Ok(false);
    }
    let bits = bits_of(ty);
    let t = fx.tx.uint(bits);
    let v = match ins.name {
        "and" | "or" | "xor" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            let b = fx.read(ins.opr("src1")?, bits)?;
            match ins.name {
                "and" => fx.tx.b.bitwise_and(t, None, a, b)?,
                "or" => fx.tx.b.bitwise_or(t, None, a, b)?,
                _ => fx.tx.b.bitwise_xor(t, None, a, b)?,
            }
        }
        "not" => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            fx.tx.b.not(t, None, a)?
        }
        "shl" | "shr" | "asr" => {
            // the amount is src1[5:0]; amounts of at least the width give 0
            // (or the sign for asr) instead of SPIR-V's undefined result
            let a = fx.read(ins.opr("src0")?, bits)?;
            let n = fx.read(ins.opr("src1")?, 32)?;
            let u32t = fx.tx.uint(32);
            let m63 = fx.tx.const_u32(63);
            let n = fx.tx.b.bitwise_and(u32t, None, n, m63)?;
            let maxs = fx.tx.const_u32(bits as u32 - 1);
            let clamped = fx.tx.glsl_op(u32t, G::UMin, &[n, maxs])?;
            let sh = fx.resize(clamped, 32, bits, false)?;
            let shifted = match ins.name {
                "shl" => fx.tx.b.shift_left_logical(t, None, a, sh)?,
                "shr" => fx.tx.b.shift_right_logical(t, None, a, sh)?,
                _ => fx.tx.b.shift_right_arithmetic(t, None, a, sh)?,
            };
            if ins.name == "asr" {
                shifted
            } else {
                let bt = fx.tx.bool_ty();
                let big = fx.tx.b.u_greater_than(bt, None, n, maxs)?;
                let zero = fx.tx.const_uint(bits, 0);
                fx.tx.b.select(t, None, big, zero, shifted)?
            }
        }
        "bfrev" if bits == 32 => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            fx.tx.b.bit_reverse(t, None, a)?
        }
        "cbit" if bits == 32 => {
            let a = fx.read(ins.opr("src0")?, bits)?;
            fx.tx.b.bit_count(t, None, a)?
        }
        _ => return Ok(false),
    };
    fx.write(ins.opr("dst")?, v, bits)?;
    Ok(true)
}
