//! `call` (spec chapter 17). `goto` and `return` are the IR's terminators
//! and are emitted with the structured control flow (`spirv::control`).

use super::common::{read_value, Ins, R};
use crate::ir::*;
use crate::spirv::error::TranslateError;
use crate::spirv::function::{FunctionCx, Reg};
use rspirv::spirv::{SelectionControl, Word};

fn store_value(fx: &mut FunctionCx, op: &Operand, v: Word, ty: Ty) -> R<()> {
    if let Operand::Reg(r) = op {
        if let (Some(Reg::Val { ptr, ty: rty }), None) = (fx.reg(r.reg), r.swizzle) {
            if rty.is_vector() || rty.bits == 128 {
                fx.tx.b.store(ptr, v, None, [])?;
                return Ok(());
            }
        }
    }
    fx.write(op, v, ty.bits)
}

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    if ins.i.opcode != Opcode::Call {
        return Ok(false);
    }
    let cond = ins.i.quals.cond;
    let Operand::Call(c) = ins.opr(Role::Target)? else {
        return Err(TranslateError::Internal("call target expected".into()));
    };
    let after = if cond {
        let p = fx.read_pred(ins.opr(Role::Pred)?)?;
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
            if f.is_declaration() {
                let name = fx.tx.program.name(*callee).to_string();
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
    Ok(true)
}

fn callee_decl<'m>(fx: &FunctionCx<'_, 'm>, name: Name) -> R<&'m Function> {
    fx.tx
        .ids
        .function_index
        .get(&name)
        .map(|&i| &fx.tx.program.functions[i])
        .ok_or_else(|| TranslateError::Internal("unknown callee".into()))
}

/// The register types of a function's parameters (`None`: not a register),
/// without a SIMT function's active flag (which the caller adds).
fn param_types(f: &Function) -> Vec<Option<Ty>> {
    let own = f.params.len() - usize::from(crate::ir::simt::active_param(f).is_some());
    f.params[..own]
        .iter()
        .map(|&r| match f.reg(r).kind {
            RegKind::Value(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// A call of SIMT mode ([`crate::ir::simt::SimtInst::Call`]), made by
/// every invocation; `active`: this lane makes it.
pub fn sync_call(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    let Operand::Call(c) = ins.opr(Role::Target)? else {
        return Err(TranslateError::Internal("call target expected".into()));
    };
    let active = if ins.i.quals.cond {
        let p = fx.read_pred(ins.opr(Role::Pred)?)?;
        let bt = fx.tx.bool_ty();
        fx.tx.b.logical_and(bt, None, active, p)?
    } else {
        active
    };
    simt_call(fx, ins, &c.target, &c.args, active)
}

/// A call made by every invocation: a SIMT callee (one with an active
/// flag, [`crate::ir::simt::active_param`]) gets `active` as its last
/// argument, any other callee is called by the active lanes only; only
/// they take the result.
fn simt_call(
    fx: &mut FunctionCx,
    ins: &Ins,
    target: &Operand,
    actual: &[Operand],
    active: Word,
) -> R<()> {
    let call = |fx: &mut FunctionCx, f: &Function, active: Word| -> R<()> {
        if crate::ir::simt::active_param(f).is_some() {
            let r = call_value(fx, f, actual, Some(active))?;
            crate::spirv::function::guarded(fx, active, |fx| store_result(fx, ins, f, r))
        } else {
            crate::spirv::function::guarded(fx, active, |fx| direct_call(fx, ins, f, actual))
        }
    };
    match target {
        Operand::Symbol(callee, span) => {
            let f = callee_decl(fx, *callee)?;
            if f.is_declaration() {
                let name = fx.tx.program.name(*callee).to_string();
                return Err(fx.unsupported(
                    *span,
                    format!("call to imported function @{name} (link its module first)"),
                ));
            }
            call(fx, f, active)
        }
        // through a register: every candidate in turn, for the lanes whose
        // pointer holds its address
        target => {
            let ptr = fx.read(target, 64)?;
            let sel = fx.resize(ptr, 64, 32, false)?;
            let bt = fx.tx.bool_ty();
            for f in candidates(fx, ins, actual) {
                let addr = crate::abi::function_address(f.index as usize) as u32;
                let a = fx.tx.const_u32(addr);
                let hit = fx.tx.b.i_equal(bt, None, sel, a)?;
                let lane = fx.tx.b.logical_and(bt, None, active, hit)?;
                call(fx, f, lane)?;
            }
            Ok(())
        }
    }
}

/// Calls `f` with the actual arguments (and a SIMT callee's active flag).
fn call_value(
    fx: &mut FunctionCx,
    f: &Function,
    actual: &[Operand],
    active: Option<Word>,
) -> R<Word> {
    let mut args = Vec::new();
    for (a, p) in actual.iter().zip(param_types(f)) {
        if let Some(ty) = p {
            args.push(read_value(fx, a, ty)?);
        }
    }
    args.extend(active);
    let ret_ty = match f.ret {
        Some(t) => fx.tx.reg_ty(t),
        None => fx.tx.void(),
    };
    let id = fx.tx.ids.functions[&f.name];
    Ok(fx.tx.b.function_call(ret_ty, None, id, args)?)
}

fn store_result(fx: &mut FunctionCx, ins: &Ins, f: &Function, r: Word) -> R<()> {
    if let (Some(rv), Some(ty)) = (ins.op(Role::Retval), f.ret) {
        if !matches!(rv, Operand::Void(_)) {
            store_value(fx, rv, r, ty)?;
        }
    }
    Ok(())
}

fn direct_call(fx: &mut FunctionCx, ins: &Ins, f: &Function, actual: &[Operand]) -> R<()> {
    let r = call_value(fx, f, actual, None)?;
    store_result(fx, ins, f, r)
}

/// The shape (bits, count) of a register operand.
fn shape(fx: &FunctionCx, op: &Operand) -> Option<(u16, u8)> {
    match op {
        Operand::Reg(r) => match (fx.reg(r.reg)?, r.swizzle) {
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
fn indirect_call(fx: &mut FunctionCx, ins: &Ins, target: &Operand, actual: &[Operand]) -> R<()> {
    let candidates = candidates(fx, ins, actual);
    let ptr = fx.read(target, 64)?;
    let sel = fx.resize(ptr, 64, 32, false)?;
    let done = fx.tx.b.id();
    let labels: Vec<Word> = candidates.iter().map(|_| fx.tx.b.id()).collect();
    fx.tx.b.selection_merge(done, SelectionControl::NONE)?;
    fx.tx.b.switch(
        sel,
        done,
        candidates.iter().zip(&labels).map(|(f, &l)| {
            (
                rspirv::dr::Operand::LiteralBit32(
                    crate::abi::function_address(f.index as usize) as u32
                ),
                l,
            )
        }),
    )?;
    for (f, l) in candidates.into_iter().zip(labels) {
        fx.tx.b.begin_block(Some(l))?;
        direct_call(fx, ins, f, actual)?;
        fx.tx.b.branch(done)?;
    }
    fx.tx.b.begin_block(Some(done))?;
    Ok(())
}

/// The functions a call through a register may reach: those whose address
/// the module takes and whose signature fits the call.
fn candidates<'m>(fx: &FunctionCx<'_, 'm>, ins: &Ins, actual: &[Operand]) -> Vec<&'m Function> {
    let arg_shapes: Vec<Option<(u16, u8)>> = actual.iter().map(|a| shape(fx, a)).collect();
    let ret_shape = match ins.op(Role::Retval) {
        Some(Operand::Void(_)) | None => None,
        Some(op) => Some(shape(fx, op)),
    };
    let program = fx.tx.program;
    let mut candidates = Vec::new();
    for f in &program.functions {
        if !program.address_taken.contains(&f.name)
            || f.is_declaration()
            || f.kind == FuncKind::Kernel
        {
            continue;
        }
        let params: Vec<Option<(u16, u8)>> = param_types(f)
            .into_iter()
            .map(|t| t.map(|t| (t.bits, t.count)))
            .collect();
        let ret_fits = match ret_shape {
            None => true,
            Some(s) => f.ret.map(|t| (t.bits, t.count)) == s,
        };
        if params == arg_shapes && ret_fits {
            candidates.push(f);
        }
    }
    candidates
}
