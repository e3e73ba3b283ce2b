//! Comparison and selection (spec chapter 16).

use super::common::flush;
use super::common::{Ins, R};
use super::float16::half_to_f32;
use crate::ir::qualifier::Cop;
use crate::ir::Opcode;
use crate::ir::{FloatKind, Role, Type};
use crate::spirv::builder::Builder;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::Word;

type Cmp = fn(&mut Builder, Word, Option<Word>, Word, Word) -> Result<Word, rspirv::dr::Error>;

fn int_cmp(cop: Cop, signed: bool) -> Cmp {
    match (cop, signed) {
        (Cop::Eq, _) => Builder::i_equal,
        (Cop::Ne, _) => Builder::i_not_equal,
        (Cop::Gt, true) => Builder::s_greater_than,
        (Cop::Ge, true) => Builder::s_greater_than_equal,
        (Cop::Lt, true) => Builder::s_less_than,
        (Cop::Le, true) => Builder::s_less_than_equal,
        (Cop::Gt, false) => Builder::u_greater_than,
        (Cop::Ge, false) => Builder::u_greater_than_equal,
        (Cop::Lt, false) => Builder::u_less_than,
        (Cop::Le, false) => Builder::u_less_than_equal,
    }
}

/// C semantics: `ne` is true for NaN operands, every other comparison false.
fn float_cmp(cop: Cop) -> Cmp {
    match cop {
        Cop::Eq => Builder::f_ord_equal,
        Cop::Ne => Builder::f_unord_not_equal,
        Cop::Gt => Builder::f_ord_greater_than,
        Cop::Ge => Builder::f_ord_greater_than_equal,
        Cop::Lt => Builder::f_ord_less_than,
        Cop::Le => Builder::f_ord_less_than_equal,
    }
}

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.i.quals.ty else {
        return Ok(false);
    };
    match (ty.lanes(), ty.element_bits()) {
        (1, _) => lower_type(fx, ins, ty),
        // packed compares (`fcmp.hfx2`/`.bfx2`, `ucmp.16bx2`; 16:
        // `dst[15:0] = (src0[15:0] .cop src1[15:0]) ? ~0 : 0`, bits 31:16
        // likewise): the scalar compare once per lane (`FunctionCx::lane`),
        // each lane's ~0 truncated to 16 bits
        (2, 16) => fx.per_lane(|fx| lower_type(fx, ins, ty.element())),
        _ => Ok(false),
    }
}

/// [`lower`] for scalar operands of `ty`.
fn lower_type(fx: &mut FunctionCx, ins: &Ins, ty: Type) -> R<bool> {
    let ftz = ins.i.quals.ftz;
    let bits = ty.bits();
    let bt = fx.tx.bool_ty();
    match ins.i.opcode {
        Opcode::Scmp | Opcode::Ucmp | Opcode::Fcmp => {
            // the validator requires `.cop` on compares
            let Some(cop) = ins.i.quals.cop else {
                return Ok(false);
            };
            let p = if ins.i.opcode == Opcode::Fcmp {
                // the validator requires a float type on `fcmp`
                let Some(kind) = ty.float() else {
                    return Ok(false);
                };
                let val = |fx: &mut FunctionCx, name: Role| -> R<Word> {
                    let op = ins.opr(name)?;
                    match kind {
                        FloatKind::Half | FloatKind::BFloat => {
                            // exact in f32
                            let h = fx.read(op, 16)?;
                            let h = if ftz { flush(fx, h, kind)? } else { h };
                            half_to_f32(fx, h, kind)
                        }
                        FloatKind::Single | FloatKind::Double if ftz => {
                            let f = fx.read_f(op, bits)?;
                            let t = fx.tx.uint(bits);
                            let raw = fx.tx.b.bitcast(t, None, f)?;
                            let raw = flush(fx, raw, kind)?;
                            let ft = fx.tx.float(bits);
                            Ok(fx.tx.b.bitcast(ft, None, raw)?)
                        }
                        FloatKind::Single | FloatKind::Double => fx.read_f(op, bits),
                    }
                };
                let a = val(fx, Role::Src0)?;
                let b = val(fx, Role::Src1)?;
                float_cmp(cop)(&mut fx.tx.b, bt, None, a, b)?
            } else {
                let a = fx.read(ins.opr(Role::Src0)?, bits)?;
                let b = fx.read(ins.opr(Role::Src1)?, bits)?;
                int_cmp(cop, ins.i.opcode == Opcode::Scmp)(&mut fx.tx.b, bt, None, a, b)?
            };
            if let Some(pred) = ins.op(Role::Pred) {
                fx.write_pred(pred, p)?;
            } else {
                let u32t = fx.tx.uint(32);
                let ones = fx.tx.const_u32(u32::MAX);
                let zero = fx.tx.const_u32(0);
                let v = fx.tx.b.select(u32t, None, p, ones, zero)?;
                fx.write(ins.opr(Role::Dst)?, v, 32)?;
            }
        }
        Opcode::Sel => {
            let t = fx.tx.uint(bits);
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let c = match ins.op(Role::Pred) {
                Some(p) => fx.read_pred(p)?,
                None => {
                    let s = fx.read(ins.opr(Role::Src2)?, bits)?;
                    let zero = fx.tx.const_uint(bits, 0);
                    fx.tx.b.i_not_equal(bt, None, s, zero)?
                }
            };
            let v = fx.tx.b.select(t, None, c, a, b)?;
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}
