//! `ir::casloop`: a floating-point atomic as a compare-and-swap loop of
//! integer atomics on its bits, the shape the 16-bit float atomics
//! ([`super::fatom16`]) and the `.df` atomics without f64
//! ([`super::softf64::atomics`]) share; each pass gives the instructions
//! that compute the new value from the old one:
//!
//! ```text
//!     mov.W        %z, 0
//!     iatom.SPACE.OP.W %old, [addr], %z            // an atomic read
//! loop:
//!     ...          %new, from %old and src         // the pass's step
//!     iatom.SPACE{.memorder}{.memscope}{.cc}.cas.W %got, [addr], %old, %new
//!     ucmp.eq.W    %done, %got, %old               // compares bits
//!     mov.W        %old, %got
//!     goto.cond    !%done, loop
//!     mov.W        dst, %old                       // the value replaced
//! ```
//!
//! The atomic's ordering and cache hint go to the compare-and-swap that
//! stores the new value; the first read is relaxed (a stale value only
//! costs an iteration).

use super::template::{like, reg, with_quals};
use super::*;

/// The loop's integer instructions, of the value's width `W`, from a
/// template (their forms are used, their operands replaced).
pub struct Forms<'t> {
    /// `mov.W %z, 0`.
    pub zero: &'t PisaInst,
    /// The atomic read, `iatom.SPACE.OP.W %old, [addr], %z` (`OP` leaving
    /// the value as it is: `or`, `add`).
    pub read: &'t PisaInst,
    /// `iatom.SPACE.cas.W`.
    pub cas: &'t PisaInst,
    /// `ucmp.eq.W`.
    pub eq: &'t PisaInst,
    /// `mov.W`.
    pub mov: &'t PisaInst,
}

impl<'t> Forms<'t> {
    /// The first five instructions of a template, in the order of the
    /// fields (a bug of the translator when it has fewer).
    pub fn first(t: &'t [PisaInst]) -> Self {
        let [zero, read, cas, eq, mov, ..] = t else {
            panic!("a compare-and-swap loop template starts with its five instructions")
        };
        Forms {
            zero,
            read,
            cas,
            eq,
            mov,
        }
    }
}

/// What a pass's loops are made of.
pub struct Shape<'t> {
    /// The integer instructions.
    pub forms: Forms<'t>,
    /// The value's width in bits (`W`).
    pub width: u16,
    /// The loop's registers are named `$PREFIXz`, `$PREFIXold`, … with
    /// the function's register count after them.
    pub prefix: &'t str,
    /// The qualifier groups the read and the compare-and-swap take from
    /// the atomic besides the ordering (`addrspace` where the template's
    /// space is not the only one).
    pub space: &'t [&'t str],
}

/// What the step that computes the new value is given.
pub struct Step<'a> {
    /// The function (index into the program's) the loop is in.
    pub fi: usize,
    /// The atomic the loop replaces.
    pub at: &'a PisaInst,
    /// The register count the loop's register names carry.
    pub n: usize,
    /// The value read (a register of the loop's width).
    pub old: &'a Operand,
    /// The register the step writes the new value to.
    pub new: &'a Operand,
    /// The atomic's source operand.
    pub src: Operand,
}

/// Replaces every instruction `is` picks in `p` by its loop (see the
/// module docs), splitting its block: the instructions before it and the
/// first read, the loop's block, then a block with the rest. `step` gives
/// the instructions that write [`Step::new`] (it may add registers to the
/// function and library functions to the program).
pub fn rewrite(
    p: &mut Program,
    is: fn(&PisaInst) -> bool,
    shape: &Shape,
    mut step: impl FnMut(&mut Program, Step) -> Vec<PisaInst>,
) {
    let t = &shape.forms;
    for fi in 0..p.functions.len() {
        let mut bi = 0;
        while bi < p.functions[fi].blocks.len() {
            let at = p.functions[fi].blocks[bi]
                .insts
                .iter()
                .position(|x| matches!(x, Inst::Pisa(i) if is(i)));
            let Some(k) = at else {
                bi += 1;
                continue;
            };
            let Inst::Pisa(i) = p.functions[fi].blocks[bi].insts[k].clone() else {
                unreachable!("the position of an instruction")
            };
            let operand = |r: Role| i.roles().get(r).map(|k| i.operands[k].clone());
            let (Some(dst), Some(addr), Some(src)) =
                (operand(Role::Dst), operand(Role::Addr), operand(Role::Src0))
            else {
                bi += 1;
                continue;
            };
            let f = &mut p.functions[fi];
            let n = f.regs.len();
            let prefix = shape.prefix;
            let value = || RegKind::Value(Ty::scalar(shape.width));
            let z = reg(f.new_reg(format!("${prefix}z{n}"), value()), i.span);
            let old = reg(f.new_reg(format!("${prefix}old{n}"), value()), i.span);
            let new = reg(f.new_reg(format!("${prefix}new{n}"), value()), i.span);
            let got = reg(f.new_reg(format!("${prefix}got{n}"), value()), i.span);
            let done = f.new_reg(format!("${prefix}done{n}"), RegKind::Pred);
            let mut insts = step(
                p,
                Step {
                    fi,
                    at: &i,
                    n,
                    old: &old,
                    new: &new,
                    src,
                },
            );
            let f = &mut p.functions[fi];
            let zero = Operand::Int(
                IntLit {
                    value: 0,
                    hex: false,
                    digits: 1,
                    negative: false,
                },
                i.span,
            );
            let looped = BlockId(f.blocks.len() as u32);
            let after = BlockId(looped.0 + 1);
            let block = &mut f.blocks[bi];
            let rest = block.insts.split_off(k + 1);
            block.insts.pop();
            block
                .insts
                .push(Inst::Pisa(like(t.zero, vec![z.clone(), zero], &i)));
            let read = PisaInst::new(
                with_quals(t.read.form, i.form, shape.space),
                vec![old.clone(), addr.clone(), z],
                i.mnemonic(),
                i.span,
            );
            block.insts.push(Inst::Pisa(read));
            let term = std::mem::replace(&mut block.term, Terminator::Goto(looped));
            let term_span = block.term_span;
            block.term_span = i.span;
            let mut cas_quals = shape.space.to_vec();
            cas_quals.extend(["memorder", "memscope", "cc"]);
            insts.push(PisaInst::new(
                with_quals(t.cas.form, i.form, &cas_quals),
                vec![got.clone(), addr, old.clone(), new],
                i.mnemonic(),
                i.span,
            ));
            insts.push(like(
                t.eq,
                vec![reg(done, i.span), got.clone(), old.clone()],
                &i,
            ));
            insts.push(like(t.mov, vec![old.clone(), got], &i));
            let loop_block = Block {
                label: None,
                insts: insts.into_iter().map(Inst::Pisa).collect(),
                term: Terminator::Branch {
                    cond: Cond {
                        pred: done,
                        negate: false,
                    },
                    then: after,
                    otherwise: looped,
                },
                term_span: i.span,
            };
            let mut insts = vec![Inst::Pisa(like(t.mov, vec![dst, old], &i))];
            insts.extend(rest);
            f.blocks.push(loop_block);
            f.blocks.push(Block {
                label: None,
                insts,
                term,
                term_span,
            });
            bi += 1;
        }
    }
}
