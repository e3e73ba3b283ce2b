//! `ir::fatom16`: `fatom.add` and `fatom.sub` on `.hf` and `.bf` (issue
//! "Numerics on every device": SPIR-V emission rounds nothing itself)
//! become compare-and-swap loops on the 16-bit value whose new value is an
//! `fadd`/`fsub` of the format, rounded to nearest even as every other
//! `fadd.hf`/`.bf` is: natively (f32 narrowed by Vulkan's correctly
//! rounded `OpFConvert`, `shaderFloat16`) or by the exact library
//! (`ir::exactf32`, `exactf64`: always for `.bf`, for `.hf` without
//! `shaderFloat16`), which run after this pass:
//!
//! ```text
//!     mov.16b      %z, 0
//!     iatom.SPACE.or.16b %old, [addr], %z          // an atomic read
//! loop:
//!     fadd.hf      %new, %old, src                 // fsub for .sub, .bf
//!     iatom.SPACE{.memorder}{.memscope}{.cc}.cas.16b %got, [addr], %old, %new
//!     ucmp.eq.16b  %done, %got, %old               // compares bits
//!     mov.16b      %old, %got
//!     goto.cond    !%done, loop
//!     mov.16b      dst, %old                       // the value replaced
//! ```
//!
//! The new value is the cpu device's `fatom` (`interp`): `old ± src`
//! rounded to nearest even, NaNs by the float core's rule with `old`
//! first, no `.ftz`. The 16-bit integer atomics are the back end's
//! (`spirv::lower::atomics`: on the 32-bit word that holds the value, the
//! `or` one atomic, the compare-and-swap a loop on the word that retries
//! when only the neighbouring half changed), in every address space
//! `fatom` allows (`.global`, `.shared`, generic). The atomic's ordering
//! and cache hint go to the compare-and-swap that stores the new value;
//! the first read is relaxed (a stale value only costs an iteration), as
//! in the `.df` loops without f64 (`ir::softf64::atomics`).
//!
//! `fatom.min`/`.max` (exact: the result is one of the operands) and
//! `.cas` (bits) on 16-bit formats, and every `.f` form (Vulkan's f32
//! addition is correctly rounded), stay the back end's.

use super::template::{forms, like, reg, with_quals};
use super::*;
use qualifier::Op;

/// The template's file name (never in a diagnostic: the instructions take
/// the atomic's spans).
const FILE: &str = "<pisa fatom16 template>";

/// The instructions of the loop, in the order [`rewrite`] reads them.
const TEMPLATE: &str = ".version 0.1;
.target 100;
.function .16b @__pisa_fatom16_forms(.reg .64b %a, .reg .16b %s)
{
	.reg .16b %o, %g, %n, %z;
	.pred %p;
	mov.16b %z, 0;
	iatom.global.or.16b %o, [%a], %z;
	iatom.global.cas.16b %g, [%a], %o, %n;
	ucmp.eq.16b %p, %g, %o;
	mov.16b %o, %g;
	fadd.hf %n, %o, %s;
	fsub.hf %n, %o, %s;
	fadd.bf %n, %o, %s;
	fsub.bf %n, %o, %s;
	return %o;
}
";

/// Whether `i` is an atomic this pass turns into a loop.
pub fn is_fatom16(i: &PisaInst) -> bool {
    i.opcode == Opcode::Fatom
        && matches!(i.quals.ty, Some(Type::Hf | Type::Bf))
        && matches!(i.quals.op, Some(Op::Add | Op::Sub))
}

/// Replaces every `fatom.add`/`.sub` on `.hf`/`.bf` of `p` by its loop
/// (see the module docs), splitting its block: the instructions before it
/// and the first read, the loop's block, then a block with the rest. Does
/// nothing to a program without one.
pub fn rewrite(p: &mut Program) {
    let used = p.functions.iter().any(|f| f.pisa_insts().any(is_fatom16));
    if !used {
        return;
    }
    let tpl = super::template::assemble(FILE, TEMPLATE);
    let t = forms(&tpl, "__pisa_fatom16_forms");
    let [zero, read, cas, eq, mov, add_hf, sub_hf, add_bf, sub_bf] = t.as_slice() else {
        panic!("the fatom16 template has the loop's nine instructions")
    };
    for f in &mut p.functions {
        let mut bi = 0;
        while bi < f.blocks.len() {
            let at = f.blocks[bi]
                .insts
                .iter()
                .position(|x| matches!(x, Inst::Pisa(i) if is_fatom16(i)));
            let Some(k) = at else {
                bi += 1;
                continue;
            };
            let Inst::Pisa(i) = f.blocks[bi].insts[k].clone() else {
                unreachable!("the position of an instruction")
            };
            let operand = |r: Role| i.roles.get(r).map(|k| i.operands[k].clone());
            let (Some(dst), Some(addr), Some(src)) =
                (operand(Role::Dst), operand(Role::Addr), operand(Role::Src0))
            else {
                bi += 1;
                continue;
            };
            let arith = match (i.quals.ty, i.quals.op) {
                (Some(Type::Hf), Some(Op::Add)) => add_hf,
                (Some(Type::Hf), _) => sub_hf,
                (_, Some(Op::Add)) => add_bf,
                _ => sub_bf,
            };
            let n = f.regs.len();
            let half = || RegKind::Value(Ty::scalar(16));
            let z = reg(f.new_reg(format!("$h16z{n}"), half()), i.span);
            let old = reg(f.new_reg(format!("$h16old{n}"), half()), i.span);
            let new = reg(f.new_reg(format!("$h16new{n}"), half()), i.span);
            let got = reg(f.new_reg(format!("$h16got{n}"), half()), i.span);
            let done = f.new_reg(format!("$h16done{n}"), RegKind::Pred);
            let zero_imm = Operand::Int(
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
                .push(Inst::Pisa(like(zero, vec![z.clone(), zero_imm], &i)));
            let read = PisaInst::new(
                with_quals(read.form, i.form, &["addrspace"]),
                vec![old.clone(), addr.clone(), z],
                i.mnemonic,
                i.span,
            );
            block.insts.push(Inst::Pisa(read));
            let term = std::mem::replace(&mut block.term, Terminator::Goto(looped));
            let term_span = block.term_span;
            block.term_span = i.span;
            let cas = PisaInst::new(
                with_quals(
                    cas.form,
                    i.form,
                    &["addrspace", "memorder", "memscope", "cc"],
                ),
                vec![got.clone(), addr, old.clone(), new.clone()],
                i.mnemonic,
                i.span,
            );
            let loop_block = Block {
                label: None,
                insts: vec![
                    Inst::Pisa(like(arith, vec![new, old.clone(), src], &i)),
                    Inst::Pisa(cas),
                    Inst::Pisa(like(
                        eq,
                        vec![reg(done, i.span), got.clone(), old.clone()],
                        &i,
                    )),
                    Inst::Pisa(like(mov, vec![old.clone(), got], &i)),
                ],
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
            let mut insts = vec![Inst::Pisa(like(mov, vec![dst, old], &i))];
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

#[cfg(test)]
mod tests {
    /// The template assembles, with the loop's nine instructions.
    #[test]
    fn the_template_assembles() {
        let p = super::super::template::assemble(super::FILE, super::TEMPLATE);
        assert_eq!(
            super::forms(&p, "__pisa_fatom16_forms").len(),
            9,
            "the loop's instructions"
        );
    }
}
