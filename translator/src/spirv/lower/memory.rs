//! Loads and stores (spec chapter 19): `ld`/`st` on `.global`, `.const`,
//! `.shared`, `.private` and generic addresses, scalar and vector;
//! `ld.param`. Atomics are in `atomics.rs`.

use super::common::{Ins, R};
use crate::ir::qualifier::Memorder;
use crate::ir::*;
use crate::spirv::error::TranslateError;
use crate::spirv::function::{FunctionCx, Reg};
use crate::spirv::memory::Mem;
use rspirv::spirv::Word;

fn addr_operand<'a>(ins: &'a Ins, name: Role) -> R<&'a AddrOperand> {
    match ins.opr(name)? {
        Operand::Addr(a) => Ok(a),
        _ => Err(TranslateError::Internal("address operand expected".into())),
    }
}

/// The register behind a vector operand: (variable, element type).
fn vector_reg(fx: &FunctionCx, op: &Operand) -> R<(Word, Ty)> {
    match op {
        Operand::Reg(r) => match fx.reg(r.reg) {
            Some(Reg::Val { ptr, ty }) => Ok((ptr, ty)),
            _ => Err(TranslateError::Internal("vector register expected".into())),
        },
        _ => Err(TranslateError::Internal("vector register expected".into())),
    }
}

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let is_param = ins.i.quals.param;
    match ins.i.opcode {
        Opcode::Iatom => return super::atomics::iatom(fx, ins),
        Opcode::Fatom => return super::atomics::fatom(fx, ins),
        Opcode::Ld | Opcode::St | Opcode::LdParam => {}
        _ => return Ok(false),
    }
    // atomic forms carry a memory order other than `.weak`
    if ins.i.quals.memorder.is_some_and(|m| m != Memorder::Weak) {
        return super::atomics::ordered(fx, ins);
    }
    let bits = ins.i.quals.ty.map_or(32, Type::bits);
    let count = ins.i.quals.vec.unwrap_or(1);
    let (addr, mem) = if is_param {
        (
            fx.param_address(addr_operand(ins, Role::Vaddr)?)?,
            Mem::Device,
        )
    } else {
        // without a space qualifier the address is generic
        fx.address(addr_operand(ins, Role::Addr)?, ins.i.quals.addrspace)?
    };
    let step = bits as u64 / 8;
    // checked mode: the `ir::checked` pass put a check before the access
    // (never before `ld.param`, which reads the argument block)
    let addr = if is_param {
        addr
    } else {
        fx.checked_address(addr, mem)?
    };
    if ins.i.opcode == Opcode::St {
        let src = ins.opr(Role::Src0)?;
        if count == 1 {
            let v = fx.read(src, bits)?;
            fx.store(addr, mem, v, bits)?;
        } else {
            let (ptr, ty) = vector_reg(fx, src)?;
            let t = fx.tx.uint(bits);
            for i in 0..count {
                let p = fx.elem_ptr(ptr, ty, i);
                let v = fx.tx.b.load(t, None, p, None, [])?;
                let a = fx.offset_addr(addr, mem, step * i as u64)?;
                fx.store(a, mem, v, bits)?;
            }
        }
    } else {
        let dst = ins.opr(Role::Dst)?;
        if count == 1 {
            let v = fx.load(addr, mem, bits)?;
            fx.write(dst, v, bits)?;
        } else {
            let (ptr, ty) = vector_reg(fx, dst)?;
            for i in 0..count {
                let a = fx.offset_addr(addr, mem, step * i as u64)?;
                let v = fx.load(a, mem, bits)?;
                let p = fx.elem_ptr(ptr, ty, i);
                fx.tx.b.store(p, v, None, [])?;
            }
        }
    }
    Ok(true)
}
