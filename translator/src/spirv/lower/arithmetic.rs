//! Integer arithmetic (spec chapter 12): scalar, packed (`.16bx2`, `.8bx4`,
//! element by element) and saturating (`.dsat`) forms.

use super::common::{Ins, R};
use crate::ir::qualifier::{Output, Precision, Signedness};
use crate::ir::Opcode;
use crate::ir::Role;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::Word;

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.i.quals.ty else {
        return Ok(false);
    };
    if ty.lanes() > 1 {
        return packed(fx, ins, ty.lanes(), ty.element_bits());
    }
    let bits = ty.bits();
    let t = fx.tx.uint(bits);
    match ins.i.opcode {
        Opcode::Iadd
        | Opcode::Isub
        | Opcode::Smin
        | Opcode::Smax
        | Opcode::Umin
        | Opcode::Umax
        | Opcode::Sdiv
        | Opcode::Udiv => {
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let v = elementwise(fx, ins, bits, a, b, None)?;
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        Opcode::Ineg | Opcode::Iabs => {
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let neg = fx.tx.b.s_negate(t, None, a)?;
            // |MIN| wraps to MIN, like -MIN (SPIR-V integer arithmetic wraps)
            let v = if ins.i.opcode == Opcode::Ineg {
                neg
            } else {
                let bt = fx.tx.bool_ty();
                let zero = fx.tx.const_uint(bits, 0);
                let lt = fx.tx.b.s_less_than(bt, None, a, zero)?;
                fx.tx.b.select(t, None, lt, neg, a)?
            };
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        Opcode::Smul | Opcode::Umul | Opcode::Smad | Opcode::Umad
            if ins.i.quals.precision == Some(Precision::Full) =>
        {
            // src0 and src1 extended to twice the width; src2 and dst are
            // already that wide
            let signed = matches!(ins.i.opcode, Opcode::Smul | Opcode::Smad);
            let w = bits * 2;
            let wt = fx.tx.uint(w);
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let a = fx.resize(a, bits, w, signed)?;
            let b = fx.resize(b, bits, w, signed)?;
            let mut v = fx.tx.b.i_mul(wt, None, a, b)?;
            if let Some(c) = ins.op(Role::Src2) {
                let c = fx.read(c, w)?;
                v = fx.tx.b.i_add(wt, None, v, c)?;
            }
            fx.write(ins.opr(Role::Dst)?, v, w)?;
        }
        Opcode::Smul | Opcode::Umul | Opcode::Smad | Opcode::Umad => {
            // the low half of the product does not depend on signedness
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let c = match ins.op(Role::Src2) {
                Some(c) => Some(fx.read(c, bits)?),
                None => None,
            };
            let v = elementwise(fx, ins, bits, a, b, c)?;
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        Opcode::Uaddc => {
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let st = fx.tx.b.type_struct([t, t]);
            let r = fx.tx.b.i_add_carry(st, None, a, b)?;
            let mut sum = fx.tx.b.composite_extract(t, None, r, [0])?;
            let mut carry = fx.tx.b.composite_extract(t, None, r, [1])?;
            if let Some(ci) = ins.op(Role::CarryIn) {
                let p = fx.read_pred(ci)?;
                let one = fx.tx.const_uint(bits, 1);
                let zero = fx.tx.const_uint(bits, 0);
                let c = fx.tx.b.select(t, None, p, one, zero)?;
                let r2 = fx.tx.b.i_add_carry(st, None, sum, c)?;
                sum = fx.tx.b.composite_extract(t, None, r2, [0])?;
                // at most one of the two additions carries
                let c2 = fx.tx.b.composite_extract(t, None, r2, [1])?;
                carry = fx.tx.b.bitwise_or(t, None, carry, c2)?;
            }
            fx.write(ins.opr(Role::Dst)?, sum, bits)?;
            if let Some(co) = ins.op(Role::CarryOut) {
                let bt = fx.tx.bool_ty();
                let zero = fx.tx.const_uint(bits, 0);
                let p = fx.tx.b.i_not_equal(bt, None, carry, zero)?;
                fx.write_pred(co, p)?;
            }
        }
        Opcode::Dp4a => dp4a(fx, ins)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// One element (or the whole scalar) of the two- and three-source
/// operations that have the same meaning at every width.
fn elementwise(
    fx: &mut FunctionCx,
    ins: &Ins,
    bits: u16,
    a: Word,
    b: Word,
    c: Option<Word>,
) -> R<Word> {
    let t = fx.tx.uint(bits);
    let bt = fx.tx.bool_ty();
    let dsat = ins.i.quals.dsat;
    Ok(match ins.i.opcode {
        Opcode::Iadd | Opcode::Isub if dsat => {
            fx.sat_add(a, b, bits, ins.i.opcode == Opcode::Isub)?
        }
        Opcode::Iadd => fx.tx.b.i_add(t, None, a, b)?,
        Opcode::Isub => fx.tx.b.i_sub(t, None, a, b)?,
        Opcode::Smin | Opcode::Smax | Opcode::Umin | Opcode::Umax => {
            let lt = if matches!(ins.i.opcode, Opcode::Smin | Opcode::Smax) {
                fx.tx.b.s_less_than(bt, None, a, b)?
            } else {
                fx.tx.b.u_less_than(bt, None, a, b)?
            };
            // min: a < b ? a : b; max: a < b ? b : a (equal values are equal)
            if matches!(ins.i.opcode, Opcode::Smin | Opcode::Umin) {
                fx.tx.b.select(t, None, lt, a, b)?
            } else {
                fx.tx.b.select(t, None, lt, b, a)?
            }
        }
        Opcode::Smul | Opcode::Umul | Opcode::Smad | Opcode::Umad => {
            let p = fx.tx.b.i_mul(t, None, a, b)?;
            match c {
                Some(c) => fx.tx.b.i_add(t, None, p, c)?,
                None => p,
            }
        }
        Opcode::Udiv if ins.i.quals.output == Some(Output::Rem) => fx.tx.b.u_mod(t, None, a, b)?,
        Opcode::Udiv => fx.tx.b.u_div(t, None, a, b)?,
        Opcode::Sdiv => {
            // SPIR-V leaves MIN / -1 undefined: divide by 1 instead and
            // negate (MIN / -1 wraps to MIN; any x % -1 is 0)
            let m1 = fx.tx.const_uint(bits, u64::MAX);
            let one = fx.tx.const_uint(bits, 1);
            let is_m1 = fx.tx.b.i_equal(bt, None, b, m1)?;
            let d = fx.tx.b.select(t, None, is_m1, one, b)?;
            if ins.i.quals.output == Some(Output::Rem) {
                fx.tx.b.s_rem(t, None, a, d)?
            } else {
                let q = fx.tx.b.s_div(t, None, a, d)?;
                let neg = fx.tx.b.s_negate(t, None, a)?;
                fx.tx.b.select(t, None, is_m1, neg, q)?
            }
        }
        other => {
            return Err(crate::spirv::error::TranslateError::Internal(format!(
                "`{}` is not an element-wise operation",
                other.name()
            )))
        }
    })
}

/// Packed forms: each element computed like the scalar operation at the
/// element width (`.dsat` saturates each element to its own signed range).
fn packed(fx: &mut FunctionCx, ins: &Ins, n: u8, bits: u16) -> R<bool> {
    if !matches!(
        ins.i.opcode,
        Opcode::Iadd
            | Opcode::Isub
            | Opcode::Smin
            | Opcode::Smax
            | Opcode::Umin
            | Opcode::Umax
            | Opcode::Smul
            | Opcode::Smad
    ) {
        return Ok(false);
    }
    let a = fx.read_packed(ins.opr(Role::Src0)?, n, bits)?;
    let b = fx.read_packed(ins.opr(Role::Src1)?, n, bits)?;
    let c = match ins.op(Role::Src2) {
        Some(c) => Some(fx.read_packed(c, n, bits)?),
        None => None,
    };
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let ci = c.as_ref().map(|c| c[i]);
        out.push(elementwise(fx, ins, bits, a[i], b[i], ci)?);
    }
    fx.write_packed(ins.opr(Role::Dst)?, &out, bits)?;
    Ok(true)
}

/// `dp4a`: src0 plus the dot product of the four bytes of src1 and src2
/// (the first signedness letter is src1's, the second src2's). The products'
/// sum always fits in 32 bits; only adding src0 can overflow, which `.dsat`
/// clamps to the signed 32-bit range.
fn dp4a(fx: &mut FunctionCx, ins: &Ins) -> R<()> {
    let (s1, s2) = match ins.i.quals.signedness.unwrap_or(Signedness::Uu) {
        Signedness::Ss => (true, true),
        Signedness::Su => (true, false),
        Signedness::Us => (false, true),
        Signedness::Uu => (false, false),
    };
    let t = fx.tx.uint(32);
    let acc = fx.read(ins.opr(Role::Src0)?, 32)?;
    let x = fx.read(ins.opr(Role::Src1)?, 32)?;
    let y = fx.read(ins.opr(Role::Src2)?, 32)?;
    let eight = fx.tx.const_u32(8);
    let byte = |fx: &mut FunctionCx, v: Word, i: u32, signed: bool| -> R<Word> {
        let off = fx.tx.const_u32(8 * i);
        Ok(if signed {
            fx.tx.b.bit_field_s_extract(t, None, v, off, eight)?
        } else {
            fx.tx.b.bit_field_u_extract(t, None, v, off, eight)?
        })
    };
    let mut dot = fx.tx.const_u32(0);
    for i in 0..4 {
        let xi = byte(fx, x, i, s1)?;
        let yi = byte(fx, y, i, s2)?;
        let p = fx.tx.b.i_mul(t, None, xi, yi)?;
        dot = if i == 0 {
            p
        } else {
            fx.tx.b.i_add(t, None, dot, p)?
        };
    }
    let v = if ins.i.quals.dsat {
        fx.sat_add(acc, dot, 32, false)?
    } else {
        fx.tx.b.i_add(t, None, acc, dot)?
    };
    fx.write(ins.opr(Role::Dst)?, v, 32)
}
