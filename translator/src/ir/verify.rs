//! The IR verifier. Invariants every pass keeps and every back end relies on:
//!
//! 1. A function with a body has at least one block; block 0 is the entry.
//! 2. Every branch target names an existing block.
//! 3. Every register an instruction, condition or terminator mentions exists
//!    in its function, with the right kind: conditions and `TestConst`
//!    destinations are predicates; `SetConst`/`TestConst` registers are
//!    32-bit values; kernel `.param` registers appear only in kernels.
//! 4. Only functions with a return type return a value.
//! 5. A structured tree ([`Function::structured`]) places only existing
//!    blocks, and its conditions are predicates.
//!
//! [`debug_verify`] runs it after each pass in debug builds (and tests), and
//! panics on a violation: that is a bug in a pass, never in the input.

use super::*;

#[derive(Debug, thiserror::Error)]
#[error("IR verifier: function #{function}: {what}")]
pub struct VerifyError {
    pub function: u32,
    pub what: String,
}

pub fn verify(p: &Program) -> Result<(), VerifyError> {
    for f in &p.functions {
        verify_function(f).map_err(|what| VerifyError {
            function: f.index,
            what,
        })?;
    }
    Ok(())
}

/// Runs the verifier in debug builds; `pass` names the pass just run.
pub fn debug_verify(p: &Program, pass: &str) {
    if cfg!(debug_assertions) {
        if let Err(e) = verify(p) {
            panic!("after pass `{pass}`: {e}");
        }
    }
}

fn verify_function(f: &Function) -> Result<(), String> {
    for (i, &r) in f.params.iter().enumerate() {
        if r.index() >= f.regs.len() {
            return Err(format!("parameter {i} names no register"));
        }
    }
    let reg = |r: RegId, what: &str| -> Result<&RegInfo, String> {
        f.regs
            .get(r.index())
            .ok_or_else(|| format!("{what}: register r{} does not exist", r.0))
    };
    let value32 = |r: RegId, what: &str| -> Result<(), String> {
        match reg(r, what)?.kind {
            RegKind::Value(t) if t == Ty::scalar(32) => Ok(()),
            _ => Err(format!("{what}: r{} is not a 32-bit register", r.0)),
        }
    };
    let pred = |r: RegId, what: &str| -> Result<(), String> {
        match reg(r, what)?.kind {
            RegKind::Pred => Ok(()),
            _ => Err(format!("{what}: r{} is not a predicate", r.0)),
        }
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        let at = |s: &str| format!("block {bi}: {s}");
        for inst in &b.insts {
            match inst {
                Inst::Pisa(i) => {
                    for op in &i.operands {
                        check_operand(f, op).map_err(|e| at(&e))?;
                    }
                }
                Inst::SetConst { dst, .. } => value32(*dst, &at("set"))?,
                Inst::TestConst { dst, src, .. } => {
                    pred(*dst, &at("test"))?;
                    value32(*src, &at("test"))?;
                }
                Inst::CheckAccess(_) => {}
                Inst::Simt(s) => {
                    use super::simt::SimtInst as S;
                    let at = at("simt");
                    match &**s {
                        S::Start => {}
                        S::Transition { state, when, .. } => {
                            value32(*state, &at)?;
                            if let Some(c) = when {
                                pred(c.pred, &at)?;
                            }
                        }
                        S::AnyActive { dst, active } => {
                            pred(*dst, &at)?;
                            pred(*active, &at)?;
                        }
                        S::ActiveMask { dst, active } => {
                            value32(*dst, &at)?;
                            pred(*active, &at)?;
                        }
                        S::CrossLane { inst, active } | S::Call { inst, active } => {
                            pred(*active, &at)?;
                            for op in &inst.operands {
                                check_operand(f, op).map_err(|e| format!("{at}: {e}"))?;
                            }
                        }
                        S::SetResult { dst, value } => {
                            reg(*dst, &at)?;
                            check_operand(f, value).map_err(|e| format!("{at}: {e}"))?;
                        }
                    }
                }
            }
        }
        super::checked::checks_fit(&b.insts).map_err(|e| at(&e))?;
        for s in b.term.successors() {
            if s.index() >= f.blocks.len() {
                return Err(at(&format!("branch to missing block {}", s.0)));
            }
        }
        match &b.term {
            Terminator::Branch { cond, .. } => pred(cond.pred, &at("branch"))?,
            Terminator::Return { value: Some(v), .. } => {
                if f.ret.is_none() {
                    return Err(at("a void function returns a value"));
                }
                check_operand(f, v).map_err(|e| at(&e))?;
            }
            _ => {}
        }
    }
    if let Some(tree) = &f.structured {
        check_tree(f, tree, &pred)?;
    }
    Ok(())
}

fn check_tree(
    f: &Function,
    nodes: &[Node],
    pred: &dyn Fn(RegId, &str) -> Result<(), String>,
) -> Result<(), String> {
    stack_safe(|| {
        for n in nodes {
            match n {
                Node::Code(b) if b.index() >= f.blocks.len() => {
                    return Err(format!("the structured tree places missing block {}", b.0));
                }
                Node::If { cond, .. } => pred(cond.pred, "structured tree")?,
                _ => {}
            }
            for body in n.bodies() {
                check_tree(f, body, pred)?;
            }
        }
        Ok(())
    })
}

fn check_operand(f: &Function, op: &Operand) -> Result<(), String> {
    let check = |r: &RegRef| -> Result<(), String> {
        match f.regs.get(r.reg.index()) {
            None => Err(format!("register r{} does not exist", r.reg.0)),
            Some(RegInfo {
                kind: RegKind::Param { .. },
                ..
            }) if f.kind != FuncKind::Kernel => {
                Err(format!("`.param` register r{} outside a kernel", r.reg.0))
            }
            Some(_) => Ok(()),
        }
    };
    match op {
        Operand::Reg(r) | Operand::NotPred(r) => check(r),
        Operand::Addr(a) => {
            if let AddrBase::Reg(r) = &a.base {
                check(r)?;
            }
            if let Some(AddrOffset::Reg(r)) = &a.offset {
                check(r)?;
            }
            Ok(())
        }
        Operand::Call(c) => {
            check_operand(f, &c.target)?;
            c.args.iter().try_for_each(|a| check_operand(f, a))
        }
        _ => Ok(()),
    }
}
