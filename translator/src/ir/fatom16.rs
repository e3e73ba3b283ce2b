//! `ir::fatom16`: `fatom.add` and `fatom.sub` on `.hf` and `.bf` (issue
//! "Numerics on every device": SPIR-V emission rounds nothing itself)
//! become compare-and-swap loops on the 16-bit value whose new value is
//! rounded to nearest even by instructions the later passes and the back
//! end compute exactly: on `.bf` the format's `fadd`/`fsub` (a call of
//! the exact library, `ir::exactf32`, `exactf64`, which run after this
//! pass); on `.hf` an exact widening to f32, the f32 `fadd`/`fsub`
//! (Vulkan's, correctly rounded) and one narrowing `ftrunc.hf.f` (the
//! library's rounding into half) — the same value as `fadd.hf`, the
//! double rounding being innocuous (24 ≥ 2·11 + 2 bits):
//!
//! ```text
//!     mov.16b      %z, 0
//!     iatom.SPACE.or.16b %old, [addr], %z          // an atomic read
//! loop:
//!     fadd.bf      %new, %old, src                 // fsub for .sub
//!  (.hf: fext.f.hf %wa, %old; fext.f.hf %wb, src; fadd.f %wa, %wa, %wb; ftrunc.hf.f %new, %wa)
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
	.reg .32b %wa, %wb;
	.pred %p;
	mov.16b %z, 0;
	iatom.global.or.16b %o, [%a], %z;
	iatom.global.cas.16b %g, [%a], %o, %n;
	ucmp.eq.16b %p, %g, %o;
	mov.16b %o, %g;
	fadd.bf %n, %o, %s;
	fsub.bf %n, %o, %s;
	fext.f.hf %wa, %o;
	fadd.f %wa, %wa, %wb;
	fsub.f %wa, %wa, %wb;
	ftrunc.hf.f %n, %wa;
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
    let [zero, read, cas, eq, mov, add_bf, sub_bf, widen, add_f, sub_f, narrow] = t.as_slice()
    else {
        panic!("the fatom16 template has the loop's eleven instructions")
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
            // the new value: `.bf` by the format's `fadd`/`fsub`; `.hf` by
            // an exact widening, the f32 operation and one narrowing (the
            // same value: 24 ≥ 2·11 + 2 bits make the double rounding
            // innocuous), which drivers compile fast inside the loop (a
            // 16-bit value computed from the loop's own 16-bit registers
            // made llvmpipe's compilation of a kernel of four such loops
            // take 8 s, of 32 more than its 120 s limit)
            let sub = i.quals.op == Some(Op::Sub);
            let mut insts = Vec::with_capacity(8);
            if i.quals.ty == Some(Type::Hf) {
                let word = || RegKind::Value(Ty::scalar(32));
                let wa = reg(f.new_reg(format!("$h16wa{n}"), word()), i.span);
                let wb = reg(f.new_reg(format!("$h16wb{n}"), word()), i.span);
                insts.push(like(widen, vec![wa.clone(), old.clone()], &i));
                insts.push(like(widen, vec![wb.clone(), src], &i));
                let op = if sub { sub_f } else { add_f };
                insts.push(like(op, vec![wa.clone(), wa.clone(), wb], &i));
                insts.push(like(narrow, vec![new.clone(), wa], &i));
            } else {
                let op = if sub { sub_bf } else { add_bf };
                insts.push(like(op, vec![new.clone(), old.clone(), src], &i));
            }
            insts.push(cas);
            insts.push(like(
                eq,
                vec![reg(done, i.span), got.clone(), old.clone()],
                &i,
            ));
            insts.push(like(mov, vec![old.clone(), got], &i));
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
    /// The template assembles, with the loop's eleven instructions.
    #[test]
    fn the_template_assembles() {
        let p = super::super::template::assemble(super::FILE, super::TEMPLATE);
        assert_eq!(
            super::forms(&p, "__pisa_fatom16_forms").len(),
            11,
            "the loop's instructions"
        );
    }
}
