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
            let Operand::Symbol(callee, span) = &c.target else {
                return Err(fx.unsupported(c.target.span(), "indirect call through a register"));
            };
            let f: &FuncDecl = fx
                .tx
                .functions()
                .map(|(_, f)| f)
                .find(|f| f.name == *callee)
                .ok_or_else(|| TranslateError::Internal("unknown callee".into()))?;
            if f.body.is_none() {
                let name = fx.tx.m.name(*callee).to_string();
                return Err(fx.unsupported(
                    *span,
                    format!("call to imported function @{name} (link its module first)"),
                ));
            }
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
            let mut args = Vec::new();
            for (a, p) in c.args.iter().zip(&f.params) {
                if let ParamKind::Reg(ty) = p.kind {
                    args.push(value(fx, a, ty)?);
                }
            }
            let ret_ty = match f.ret {
                Some(t) => fx.tx.reg_ty(t),
                None => fx.tx.void(),
            };
            let id = fx.tx.func_ids[callee];
            let r = fx.tx.b.function_call(ret_ty, None, id, args)?;
            if let (Some(rv), Some(ty)) = (ins.op("retval"), f.ret) {
                if !matches!(rv, Operand::Void(_)) {
                    store_value(fx, rv, r, ty)?;
                }
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
