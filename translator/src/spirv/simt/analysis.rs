//! Which functions run in SIMT mode, and which instructions of theirs are
//! *sync points*: executed by every invocation of the work-group together
//! (they exchange data through shared memory between work-group barriers).
//!
//! A function runs in SIMT mode when it has a cross-lane instruction
//! (`shfl`, `ired`, `fred`, `redfirstidx`) or reads `%activemask`, or calls
//! (directly, or through a register that may hold the address of) a
//! function that runs in SIMT mode.

use crate::ir::{AddrBase, AddrOffset, Function, Inst, Opcode, Operand, PisaInst, Program};

/// Per function (by index): it runs in SIMT mode.
pub fn simt_functions(p: &Program) -> Vec<bool> {
    let mut simt: Vec<bool> = p
        .functions
        .iter()
        .map(|f| insts(f).any(|i| is_cross_lane(i) || reads_activemask(p, i)))
        .collect();
    // callers of SIMT functions, to a fixed point
    loop {
        let indirect_simt = p
            .functions
            .iter()
            .any(|f| simt[f.index as usize] && p.address_taken.contains(&f.name));
        let mut changed = false;
        for f in &p.functions {
            if simt[f.index as usize] {
                continue;
            }
            let calls_simt = insts(f).any(|i| match call_target(i) {
                Some(Operand::Symbol(n, _)) => p
                    .function(*n)
                    .is_some_and(|callee| simt[callee.index as usize]),
                Some(_) => indirect_simt,
                None => false,
            });
            if calls_simt {
                simt[f.index as usize] = true;
                changed = true;
            }
        }
        if !changed {
            return simt;
        }
    }
}

fn insts(f: &Function) -> impl Iterator<Item = &PisaInst> {
    f.blocks.iter().flat_map(|b| {
        b.insts.iter().filter_map(|i| match i {
            Inst::Pisa(p) => Some(p),
            _ => None,
        })
    })
}

pub fn is_cross_lane(i: &PisaInst) -> bool {
    matches!(
        i.opcode,
        Opcode::Shfl | Opcode::Ired | Opcode::Fred | Opcode::Redfirstidx
    )
}

/// The target of a `call` (a function symbol or a register).
pub fn call_target(i: &PisaInst) -> Option<&Operand> {
    if i.opcode != Opcode::Call {
        return None;
    }
    i.operands.iter().find_map(|o| match o {
        Operand::Call(c) => Some(&c.target),
        _ => None,
    })
}

/// The instruction reads `%activemask` (as an operand or in an address).
pub fn reads_activemask(p: &Program, i: &PisaInst) -> bool {
    let is_mask = |r: &crate::ir::SpecialRef| p.name(r.name) == "activemask";
    i.operands.iter().any(|o| match o {
        Operand::Special(r) => is_mask(r),
        Operand::Addr(a) => {
            matches!(&a.base, AddrBase::Special(r) if is_mask(r))
                || matches!(&a.offset, Some(AddrOffset::Special(r)) if is_mask(r))
        }
        Operand::Call(c) => c
            .args
            .iter()
            .any(|a| matches!(a, Operand::Special(r) if is_mask(r))),
        _ => false,
    })
}

/// Whether `i` is a sync point of a SIMT function: executed by every
/// invocation of the work-group together (`simt`: [`simt_functions`]).
pub fn is_sync_point(p: &Program, simt: &[bool], i: &PisaInst) -> bool {
    if is_cross_lane(i) || reads_activemask(p, i) || i.opcode == Opcode::BarrierWorkgroup {
        return true;
    }
    let is_simt = |f: &Function| simt.get(f.index as usize) == Some(&true);
    match call_target(i) {
        Some(Operand::Symbol(n, _)) => p.function(*n).is_some_and(is_simt),
        Some(_) => p
            .functions
            .iter()
            .any(|f| is_simt(f) && p.address_taken.contains(&f.name)),
        None => false,
    }
}
