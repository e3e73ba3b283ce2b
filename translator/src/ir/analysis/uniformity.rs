//! Uniformity: which registers may hold different values in different
//! work-items of a work-group (*divergent*), and which branches may go
//! different ways. Sub-group emulation and barrier placement need it.
//!
//! Conservative forward dataflow to a fixed point:
//! - divergent sources: `%localid`, `%laneid`, `%activemask`; atomics; loads
//!   from `.private` memory or through a divergent address; call results;
//!   parameters of (non-kernel) functions, whose callers are unknown;
//! - uniform sources: immediates, the other special registers, kernel
//!   `.param`s, loads through uniform addresses from shared spaces;
//! - an instruction with a divergent source defines divergent registers;
//! - a branch on a divergent predicate is divergent, and every register
//!   defined in its *region* (the blocks reached from it before its
//!   immediate post-dominator, where the work-items meet again) is divergent
//!   too: which definition a work-item saw depends on its path.

use super::{Cfg, Dominators};
use crate::ir::*;

pub struct Uniformity {
    /// Per register.
    pub divergent: Vec<bool>,
    /// Per block: its terminator branches on a divergent condition.
    pub divergent_branch: Vec<bool>,
}

impl Uniformity {
    pub fn compute(p: &Program, f: &Function) -> Uniformity {
        let cfg = Cfg::compute(f);
        let pdom = post_dominators(f, &cfg);
        let mut divergent = vec![false; f.regs.len()];
        if f.kind == FuncKind::Function {
            for &r in &f.params {
                divergent[r.index()] = true;
            }
        }
        let mut divergent_branch = vec![false; f.blocks.len()];
        let mut in_region = vec![false; f.blocks.len()];
        loop {
            let mut changed = false;
            for &b in &cfg.rpo {
                let block = f.block(b);
                for inst in &block.insts {
                    let (dsts, src_divergent) = match inst {
                        Inst::Pisa(i) => (destinations(i), reads_divergent(p, i, &divergent)),
                        Inst::SetConst { dst, .. } => (vec![*dst], false),
                        Inst::TestConst { dst, src, .. } => (vec![*dst], divergent[src.index()]),
                        Inst::CheckAccess(_) => (Vec::new(), false),
                        // what a lane gets from the others: divergent
                        Inst::Simt(s) => (s.defs(), true),
                    };
                    if src_divergent || in_region[b.index()] {
                        for d in dsts {
                            changed |= !std::mem::replace(&mut divergent[d.index()], true);
                        }
                    }
                }
                if let Terminator::Branch { cond, .. } = block.term {
                    if divergent[cond.pred.index()] && !divergent_branch[b.index()] {
                        divergent_branch[b.index()] = true;
                        changed = true;
                        mark_region(f, &pdom, b, &mut in_region);
                    }
                }
            }
            if !changed {
                return Uniformity {
                    divergent,
                    divergent_branch,
                };
            }
        }
    }

    pub fn is_uniform(&self, r: RegId) -> bool {
        !self.divergent[r.index()]
    }
}

/// Blocks reached from branch block `b` before its immediate post-dominator
/// (all reachable blocks when it has none: a path that never returns).
fn mark_region(f: &Function, pdom: &[Option<BlockId>], b: BlockId, in_region: &mut [bool]) {
    let stop = pdom[b.index()];
    let mut seen = vec![false; f.blocks.len()];
    let mut work: Vec<BlockId> = f.successors(b).collect();
    while let Some(x) = work.pop() {
        if Some(x) == stop || std::mem::replace(&mut seen[x.index()], true) {
            continue;
        }
        in_region[x.index()] = true;
        work.extend(f.successors(x));
    }
}

/// Immediate post-dominators: dominators of the reversed graph, whose entry
/// is a virtual exit (node `n`) reached from every returning block. `None`
/// for blocks that reach no return, and where the post-dominator is the
/// virtual exit.
fn post_dominators(f: &Function, cfg: &Cfg) -> Vec<Option<BlockId>> {
    let n = f.blocks.len();
    let exit = BlockId(n as u32);
    let returns: Vec<BlockId> = cfg
        .rpo
        .iter()
        .copied()
        .filter(|&b| matches!(f.block(b).term, Terminator::Return { .. }))
        .collect();
    let reversed = Cfg::of_graph(n + 1, exit, |b| {
        if b == exit {
            returns.clone()
        } else {
            cfg.preds(b).to_vec()
        }
    });
    let rdom = Dominators::compute(&reversed);
    (0..n)
        .map(|i| rdom.idom(BlockId(i as u32)).filter(|&d| d != exit))
        .collect()
}

/// Whether the operand named `name` is written by instruction `i`: `dst`
/// and `carry-out` always, the result of a `call`, the predicate of a
/// compare (elsewhere `pred` is read).
fn is_destination(i: &PisaInst, role: Role) -> bool {
    match role {
        Role::Dst | Role::CarryOut => true,
        Role::Retval => i.opcode == Opcode::Call,
        Role::Pred => matches!(i.opcode, Opcode::Scmp | Opcode::Ucmp | Opcode::Fcmp),
        Role::Src0
        | Role::Src1
        | Role::Src2
        | Role::Src3
        | Role::CarryIn
        | Role::Addr
        | Role::Vaddr
        | Role::Index
        | Role::Label
        | Role::Target => false,
    }
}

/// Registers an instruction writes.
pub(crate) fn destinations(i: &PisaInst) -> Vec<RegId> {
    Role::ALL
        .into_iter()
        .filter(|&r| is_destination(i, r))
        .filter_map(|r| match i.operand(r) {
            Some(Operand::Reg(r)) => Some(r.reg),
            _ => None,
        })
        .collect()
}

/// Whether an instruction's result depends on anything divergent.
fn reads_divergent(p: &Program, i: &PisaInst, divergent: &[bool]) -> bool {
    match i.opcode {
        // results that differ per work-item whatever the inputs
        Opcode::Iatom | Opcode::Fatom | Opcode::Call => return true,
        Opcode::Ld if i.quals.addrspace == Some(qualifier::Addrspace::Private) => return true,
        _ => {}
    }
    Role::ALL
        .into_iter()
        .filter(|&r| !is_destination(i, r))
        .filter_map(|r| i.operand(r))
        .any(|op| operand_divergent(p, op, divergent))
}

fn operand_divergent(p: &Program, op: &Operand, divergent: &[bool]) -> bool {
    let reg = |r: &RegRef| divergent[r.reg.index()];
    let special = |s: &SpecialRef| matches!(p.name(s.name), "localid" | "laneid" | "activemask");
    match op {
        Operand::Reg(r) | Operand::NotPred(r) => reg(r),
        Operand::Special(s) => special(s),
        Operand::Addr(a) => {
            (match &a.base {
                AddrBase::Reg(r) => reg(r),
                AddrBase::Special(s) => special(s),
                _ => false,
            }) || (match &a.offset {
                Some(AddrOffset::Reg(r)) => reg(r),
                Some(AddrOffset::Special(s)) => special(s),
                _ => false,
            })
        }
        Operand::Call(c) => {
            operand_divergent(p, &c.target, divergent)
                || c.args.iter().any(|a| operand_divergent(p, a, divergent))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniformity of the named registers of the first function.
    fn uniform(src: &str, names: &[&str]) -> Vec<bool> {
        let m = crate::assemble("u.pisa", src).unwrap_or_else(|d| panic!("{d}"));
        let p = crate::ir::build(&m);
        let f = &p.functions[0];
        let u = Uniformity::compute(&p, f);
        names
            .iter()
            .map(|n| {
                let r = f.regs.iter().position(|r| r.name == *n).expect(n);
                u.is_uniform(RegId(r as u32))
            })
            .collect()
    }

    const HEAD: &str = ".version 0.1;\n.target 100;\n";

    #[test]
    fn sources() {
        let src = format!(
            "{HEAD}.kernel @k(.param[4] %n)\n{{\n\t.reg .32b %a, %g, %c, %d, %v;\n\
             \tmov.32b %a, %localid.x;\n\tmov.32b %g, %groupid.x;\n\tiadd.32b %c, %g, 1;\n\
             \tiadd.32b %d, %a, %g;\n\tld.param.32b %v, [%n];\n\treturn;\n}}\n"
        );
        assert_eq!(
            uniform(&src, &["a", "g", "c", "d", "v"]),
            [false, true, true, false, true]
        );
    }

    #[test]
    fn definitions_under_a_divergent_branch_are_divergent() {
        let src = format!(
            "{HEAD}.kernel @k()\n{{\n\t.reg .32b %a, %u, %w;\n\t.pred %p;\n\
             \tmov.32b %a, %localid.x;\n\tmov.32b %u, 0;\n\tucmp.lt.32b %p, %a, 4;\n\
             \tgoto.cond %p, join;\n\tmov.32b %u, 1;\njoin:\n\tmov.32b %w, 7;\n\treturn;\n}}\n"
        );
        // %u depends on the path; %w is set after the paths meet
        assert_eq!(uniform(&src, &["u", "w"]), [false, true]);
    }

    #[test]
    fn loop_counters() {
        let uniform_loop = format!(
            "{HEAD}.kernel @k()\n{{\n\t.reg .32b %i;\n\t.pred %p;\n\tmov.32b %i, 0;\n\
             top:\n\tiadd.32b %i, %i, 1;\n\tucmp.lt.32b %p, %i, 10;\n\tgoto.cond %p, top;\n\treturn;\n}}\n"
        );
        assert_eq!(uniform(&uniform_loop, &["i"]), [true]);
        let divergent_loop = format!(
            "{HEAD}.kernel @k()\n{{\n\t.reg .32b %i, %id;\n\t.pred %p;\n\tmov.32b %i, 0;\n\
             \tmov.32b %id, %localid.x;\n\
             top:\n\tiadd.32b %i, %i, 1;\n\tucmp.lt.32b %p, %i, %id;\n\tgoto.cond %p, top;\n\treturn;\n}}\n"
        );
        assert_eq!(uniform(&divergent_loop, &["i"]), [false]);
    }
}
