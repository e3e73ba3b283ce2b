//! `goto`, `return` and `call` (spec chapter 17). Branches store the target
//! block's number in the dispatch loop's state variable (docs/control-flow.md).

use super::{Flow, Ins, R};
use crate::spirv::function::{Fx, Reg};
use crate::spirv::TranslateError;
use crate::syntax::ast::*;
use rspirv::spirv::{SelectionControl, Word};

fn label_block(ins: &Ins) -> R<usize> {
    match ins.opr("label")? {
        Operand::Label(n, _) => ins
            .labels
            .get(n)
            .copied()
            .ok_or_else(|| TranslateError::Internal("unknown label".into())),
        _ => Err(TranslateError::Internal("label expected".into())),
    }
}

/// The value of a whole register (scalar or vector) or of one element.
fn value(fx: &mut Fx, op: &Operand, ty: Ty) -> R<Word> {
    if let Operand::Reg(r) = op {
        if let (Some(Reg::Val { ptr, ty: rty }), None) = (fx.reg(r.name), r.swizzle) {
            if rty.is_vector() || rty.bits == 128 {
                let t = fx.tx.reg_ty(rty);
                return Ok(fx.tx.b.load(t, None, ptr, None, [])?);
            }
        }
    }
    fx.read(op, ty.bits)
}

fn store_value(fx: &mut Fx, op: &Operand, v: Word, ty: Ty) -> R<()> {
    if let Operand::Reg(r) = op {
        if let (Some(Reg::Val { ptr, ty: rty }), None) = (fx.reg(r.name), r.swizzle) {
            if rty.is_vector() || rty.bits == 128 {
                fx.tx.b.store(ptr, v, None, [])?;
                return Ok(());
            }
        }
    }
    fx.write(op, v, ty.bits)
}

pub fn lower(fx: &mut Fx, ins: &Ins) -> R<Flow> {
    let cond = ins
        .form
        .quals
        .first()
        .is_some_and(|q| q.literal && q.name == "cond");
    match ins.name {
        "goto" => {
            let d = fx
                .dispatch
                .ok_or_else(|| TranslateError::Internal("goto outside the dispatch loop".into()))?;
            let target = fx.tx.const_u32(label_block(ins)? as u32);
            let next = if cond {
                let p = fx.read_pred(ins.opr("pred")?)?;
                let u32t = fx.tx.uint(32);
                let fall = fx.tx.const_u32(ins.block as u32 + 1);
                fx.tx.b.select(u32t, None, p, target, fall)?
            } else {
                target
            };
            fx.tx.b.store(d.state, next, None, [])?;
            fx.tx.b.branch(d.switch_merge)?;
            Ok(Flow::Terminated)
        }
        "return" if cond && fx.dispatch.is_some() => {
            // in the dispatch loop a conditional return is a branch to the
            // exit case (an OpReturn inside a selection inside the loop trips
            // Mesa 22's llvmpipe: later stores of the work-group were lost)
            let d = fx
                .dispatch
                .ok_or_else(|| TranslateError::Internal("no dispatch loop".into()))?;
            let p = fx.read_pred(ins.opr("pred")?)?;
            if let (Some(rv), Some(v), Some(ty)) = (d.retval, ins.op("retval"), fx.func.ret) {
                let set = fx.tx.b.id();
                let after = fx.tx.b.id();
                fx.tx.b.selection_merge(after, SelectionControl::NONE)?;
                fx.tx.b.branch_conditional(p, set, after, [])?;
                fx.tx.b.begin_block(Some(set))?;
                let v = value(fx, v, ty)?;
                fx.tx.b.store(rv, v, None, [])?;
                fx.tx.b.branch(after)?;
                fx.tx.b.begin_block(Some(after))?;
            }
            let u32t = fx.tx.uint(32);
            let exit = fx.tx.const_u32(d.exit);
            let fall = fx.tx.const_u32(ins.block as u32 + 1);
            let next = fx.tx.b.select(u32t, None, p, exit, fall)?;
            fx.tx.b.store(d.state, next, None, [])?;
            fx.tx.b.branch(d.switch_merge)?;
            Ok(Flow::Terminated)
        }
        "return" => {
            let after = if cond {
                let p = fx.read_pred(ins.opr("pred")?)?;
                let ret = fx.tx.b.id();
                let after = fx.tx.b.id();
                fx.tx.b.selection_merge(after, SelectionControl::NONE)?;
                fx.tx.b.branch_conditional(p, ret, after, [])?;
                fx.tx.b.begin_block(Some(ret))?;
                Some(after)
            } else {
                None
            };
            match (ins.op("retval"), fx.func.ret) {
                (Some(v), Some(ty)) if fx.func.kind == FuncKind::Function => {
                    let v = value(fx, v, ty)?;
                    fx.tx.b.ret_value(v)?;
                }
                _ => fx.tx.b.ret()?,
            }
            match after {
                Some(a) => {
                    fx.tx.b.begin_block(Some(a))?;
                    Ok(Flow::Next)
                }
                None => Ok(Flow::Terminated),
            }
        }
        "call" => {
            let Operand::Call(c) = ins.opr("target")? else {
                return Err(TranslateError::Internal("call target expected".into()));
            };
            let after = if cond {
                let p = fx.read_pred(ins.opr("pred")?)?;
                let call = fx.tx.b.id();
                let after = fx.tx.b.id();
                fx.tx.b.selection_merge(after, SelectionControl::NONE)?;
                fx.tx.b.branch_conditional(p, call, after, [])?;
                fx.tx.b.begin_block(Some(call))?;
                Some(after)
            } else {
                None
            };
            match &c.target {
                Operand::Symbol(callee, span) => {
                    let f = callee_decl(fx, *callee)?;
                    if f.body.is_none() {
                        let name = fx.tx.m.name(*callee).to_string();
                        return Err(fx.unsupported(
                            *span,
                            format!("call to imported function @{name} (link its module first)"),
                        ));
                    }
                    direct_call(fx, ins, f, &c.args)?;
                }
                target => indirect_call(fx, ins, target, &c.args)?,
            }
            if let Some(a) = after {
                fx.tx.b.branch(a)?;
                fx.tx.b.begin_block(Some(a))?;
            }
            Ok(Flow::Next)
        }
        _ => Err(fx.unsupported(ins.i.mnemonic, ins.name)),
    }
}

fn callee_decl<'m>(fx: &Fx<'_, 'm>, name: Name) -> R<&'m FuncDecl> {
    fx.tx
        .functions()
        .map(|(_, f)| f)
        .find(|f| f.name == name)
        .ok_or_else(|| TranslateError::Internal("unknown callee".into()))
}

fn direct_call(fx: &mut Fx, ins: &Ins, f: &FuncDecl, actual: &[Operand]) -> R<()> {
    let mut args = Vec::new();
    for (a, p) in actual.iter().zip(&f.params) {
        if let ParamKind::Reg(ty) = p.kind {
            args.push(value(fx, a, ty)?);
        }
    }
    let ret_ty = match f.ret {
        Some(t) => fx.tx.reg_ty(t),
        None => fx.tx.void(),
    };
    let id = fx.tx.func_ids[&f.name];
    let r = fx.tx.b.function_call(ret_ty, None, id, args)?;
    if let (Some(rv), Some(ty)) = (ins.op("retval"), f.ret) {
        if !matches!(rv, Operand::Void(_)) {
            store_value(fx, rv, r, ty)?;
        }
    }
    Ok(())
}

/// The shape (bits, count) of a register operand.
fn shape(fx: &Fx, op: &Operand) -> Option<(u16, u8)> {
    match op {
        Operand::Reg(r) => match (fx.reg(r.name)?, r.swizzle) {
            (Reg::Val { ty, .. }, None) => Some((ty.bits, ty.count)),
            (Reg::Val { ty, .. }, Some(s)) => Some((ty.bits, s.count)),
            _ => None,
        },
        _ => None,
    }
}

/// A call through a register: a switch over the functions whose address
/// the module takes and whose signature fits the call (a function's address
/// is its index + 1, docs/abi.md). Any other value is undefined behaviour in
/// PISA; here it calls nothing.
fn indirect_call(fx: &mut Fx, ins: &Ins, target: &Operand, actual: &[Operand]) -> R<()> {
    let arg_shapes: Vec<Option<(u16, u8)>> = actual.iter().map(|a| shape(fx, a)).collect();
    let ret_shape = match ins.op("retval") {
        Some(Operand::Void(_)) | None => None,
        Some(op) => Some(shape(fx, op)),
    };
    let taken = fx.tx.address_taken.clone();
    let mut candidates = Vec::new();
    for (index, f) in fx.tx.functions() {
        if !taken.contains(&f.name) || f.body.is_none() || f.kind == FuncKind::Kernel {
            continue;
        }
        let params: Vec<Option<(u16, u8)>> = f
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Reg(t) => Some((t.bits, t.count)),
                _ => None,
            })
            .collect();
        let ret_fits = match ret_shape {
            None => true,
            Some(s) => f.ret.map(|t| (t.bits, t.count)) == s,
        };
        if params == arg_shapes && ret_fits {
            candidates.push((index, f));
        }
    }
    let ptr = fx.read(target, 64)?;
    let sel = fx.resize(ptr, 64, 32, false)?;
    let done = fx.tx.b.id();
    let labels: Vec<Word> = candidates.iter().map(|_| fx.tx.b.id()).collect();
    fx.tx.b.selection_merge(done, SelectionControl::NONE)?;
    fx.tx.b.switch(
        sel,
        done,
        candidates.iter().zip(&labels).map(|((index, _), &l)| {
            (
                rspirv::dr::Operand::LiteralBit32(
                    crate::spirv::layout::function_address(*index) as u32
                ),
                l,
            )
        }),
    )?;
    for ((_, f), l) in candidates.into_iter().zip(labels) {
        fx.tx.b.begin_block(Some(l))?;
        direct_call(fx, ins, f, actual)?;
        fx.tx.b.branch(done)?;
    }
    fx.tx.b.begin_block(Some(done))?;
    Ok(())
}
