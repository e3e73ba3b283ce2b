//! Which functions run in SIMT mode, and which instructions of theirs are
//! *sync points*: executed by every invocation of the work-group together
//! (they exchange data through shared memory between work-group barriers).
//!
//! A function runs in SIMT mode when it has a cross-lane instruction
//! (`shfl`, `ired`, `fred`, `redfirstidx`) or reads `%activemask` (in an
//! instruction or a `return`), or calls
//! (directly, or through a register that may hold the address of) a
//! function that runs in SIMT mode. After the `simt` pass
//! ([`crate::ir::simt`]) rewrote them, the same functions are found by its
//! instructions ([`Inst::Simt`]).

pub use crate::ir::analysis::calls::function_index;
use crate::ir::{
    AddrBase, AddrOffset, Function, Inst, Name, Opcode, Operand, PisaInst, Program, Terminator,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Per function (by index): it runs in SIMT mode. One pass over the calls
/// and a walk back from the SIMT functions to their callers (linear in the
/// number of functions and calls).
pub fn simt_functions(p: &Program) -> Vec<bool> {
    let index = function_index(p);
    let n = p.functions.len();
    // a program that never names `%activemask` reads it nowhere: no
    // instruction's operands need to be looked at for it
    let mask = p.symbols.get("activemask");
    let simt: Vec<bool> = p
        .functions
        .iter()
        .map(|f| {
            insts(f).any(|i| is_cross_lane(i) || mask.is_some_and(|m| reads(i, m)))
                || mask.is_some_and(|m| returns_special(f, m))
                || f.blocks
                    .iter()
                    .any(|b| b.insts.iter().any(|i| matches!(i, Inst::Simt(_))))
        })
        .collect();
    // per function its direct callers, and the functions that call through
    // a register (they may reach every address-taken function)
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indirect_callers = Vec::new();
    for (i, f) in p.functions.iter().enumerate() {
        let mut through_register = false;
        for ins in insts(f) {
            match call_target(ins) {
                Some(Operand::Symbol(name, _)) => {
                    if let Some(&j) = index.get(name) {
                        callers[j].push(i);
                    }
                }
                Some(_) => through_register = true,
                None => {}
            }
        }
        if through_register {
            indirect_callers.push(i);
        }
    }
    spread(p, simt, callers, indirect_callers)
}

/// [`simt_functions`] from the program's facts
/// ([`crate::ir::analysis::calls::facts`], one scan of the instructions
/// for several analyses).
pub fn simt_functions_of(
    p: &Program,
    facts: &[crate::ir::analysis::calls::FunctionFacts],
) -> Vec<bool> {
    let index = function_index(p);
    let simt: Vec<bool> = facts.iter().map(|f| f.simt).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); facts.len()];
    let mut indirect_callers = Vec::new();
    for (i, f) in facts.iter().enumerate() {
        let mut through_register = false;
        for target in &f.calls {
            match target {
                Some(name) => {
                    if let Some(&j) = index.get(name) {
                        callers[j].push(i);
                    }
                }
                None => through_register = true,
            }
        }
        if through_register {
            indirect_callers.push(i);
        }
    }
    spread(p, simt, callers, indirect_callers)
}

/// The SIMT functions: those that are by themselves (`simt`) and their
/// callers, direct (`callers` of each) or through registers
/// (`indirect_callers`, which reach every address-taken function).
fn spread(
    p: &Program,
    mut simt: Vec<bool>,
    mut callers: Vec<Vec<usize>>,
    indirect_callers: Vec<usize>,
) -> Vec<bool> {
    let n = simt.len();
    let address_taken: HashSet<Name> = p.address_taken.iter().copied().collect();
    let mut work: Vec<usize> = (0..n).filter(|&i| simt[i]).collect();
    let mut indirect_done = false;
    while let Some(j) = work.pop() {
        let mut reach = std::mem::take(&mut callers[j]);
        if !indirect_done && address_taken.contains(&p.functions[j].name) {
            indirect_done = true;
            reach.extend(indirect_callers.iter().copied());
        }
        for i in reach {
            if !simt[i] {
                simt[i] = true;
                work.push(i);
            }
        }
    }
    simt
}

fn insts(f: &Function) -> impl Iterator<Item = &PisaInst> {
    f.pisa_insts()
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

/// Some `return` of `f` returns special register `special`.
pub(crate) fn returns_special(f: &Function, special: Name) -> bool {
    f.blocks.iter().any(|b| {
        matches!(&b.term, Terminator::Return { value: Some(Operand::Special(r)), .. } if r.name == special)
    })
}

/// The instruction reads `%activemask` (as an operand or in an address).
pub fn reads_activemask(p: &Program, i: &PisaInst) -> bool {
    p.symbols.get("activemask").is_some_and(|m| reads(i, m))
}

/// The instruction reads the special register named `special` (names are
/// interned once each: the same name is the same [`Name`]).
pub(crate) fn reads(i: &PisaInst, special: Name) -> bool {
    let is_mask = |r: &crate::ir::SpecialRef| r.name == special;
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
/// invocation of the work-group together (`simt`: [`simt_functions`];
/// `index`: [`function_index`]).
pub fn is_sync_point(
    p: &Program,
    index: &HashMap<Name, usize>,
    simt: &[bool],
    i: &PisaInst,
) -> bool {
    if is_cross_lane(i) || reads_activemask(p, i) || i.opcode == Opcode::BarrierWorkgroup {
        return true;
    }
    let is_simt = |n: &Name| index.get(n).is_some_and(|&j| simt.get(j) == Some(&true));
    match call_target(i) {
        Some(Operand::Symbol(n, _)) => is_simt(n),
        Some(_) => p.address_taken.iter().any(is_simt),
        None => false,
    }
}
