//! `fatom.global.add.df` and `.sub.df` without f64 (issue "Numerics on
//! every device", item 3): a compare-and-swap loop on the 64-bit word
//! whose new value is the soft-double sum (`@__pisa_sd_add`), so that the
//! result is the cpu device's bit for bit:
//!
//! ```text
//!     mov.64b      %z, 0
//!     iatom.global.add.64b %old, [addr], %z        // an atomic read
//! loop:
//!     call %new, @__pisa_sd_add(%old, src, FLAGS)  // FLAGS 64 for .sub
//!     iatom.global{.memorder}{.memscope}{.cc}.cas.64b %got, [addr], %old, %new
//!     ucmp.eq.64b  %done, %got, %old               // compares bits
//!     mov.64b      %old, %got
//!     goto.cond    !%done, loop
//!     mov.64b      dst, %old                       // the value replaced
//! ```
//!
//! The 64-bit atomics are the back end's (`spirv::lower::atomics`): native
//! where the device has `shaderBufferInt64Atomics`, else under the lock
//! table of docs/abi.md ("Emulated atomics"), as for any `iatom.64b`.
//! The atomic's ordering (`.memorder`, `.memscope`) and cache hint go to
//! the compare-and-swap that stores the sum; the first read is relaxed
//! (a stale value only costs an iteration). The sum is `old + src`
//! (`old − src`), rounded to nearest even, NaNs by the float core's rule
//! with `old` first: the cpu device's `fatom`.

use super::super::bundled::Linker;
use super::super::*;
use qualifier::Op;

/// Whether `i` is a `.df` atomic this pass turns into a loop: `fatom`'s
/// `.add` or `.sub` on `.df` (the only operations the spec allows on
/// `.df`, on `.global` memory).
pub fn is_df_atomic(i: &PisaInst) -> bool {
    i.opcode == Opcode::Fatom
        && i.quals.ty == Some(Type::Df)
        && matches!(i.quals.op, Some(Op::Add | Op::Sub))
}

/// The template instructions of the loop, from the library's
/// `@__pisa_sd_atomic_forms`.
struct Forms {
    zero: PisaInst,
    read: PisaInst,
    cas: PisaInst,
    eq: PisaInst,
    mov: PisaInst,
}

fn forms(lib: &Program) -> Forms {
    let f = lib
        .functions
        .iter()
        .find(|f| lib.name(f.name) == "__pisa_sd_atomic_forms")
        .expect("the soft f64 library has @__pisa_sd_atomic_forms");
    let insts: Vec<PisaInst> = f.pisa_insts().cloned().collect();
    let [zero, read, cas, eq, mov, ..] = insts.as_slice() else {
        panic!("@__pisa_sd_atomic_forms has the loop's five instructions")
    };
    Forms {
        zero: zero.clone(),
        read: read.clone(),
        cas: cas.clone(),
        eq: eq.clone(),
        mov: mov.clone(),
    }
}

/// `template` with `operands` and the spans of `at`.
fn like(template: &PisaInst, operands: Vec<Operand>, at: &PisaInst) -> PisaInst {
    PisaInst::new(template.form, operands, at.mnemonic, at.span)
}

/// The form of `cas` with the `.memorder`, `.memscope` and `.cc` that
/// `atom` chose (matched by qualifier name and value text).
fn with_ordering(cas: FormRef, atom: FormRef) -> FormRef {
    let cat = catalog();
    let (cf, af) = (
        &cat.forms[cas.form as usize],
        &cat.forms[atom.form as usize],
    );
    let mut out = cas;
    for (k, slot) in cf.quals.iter().enumerate() {
        if !matches!(slot.name.as_str(), "memorder" | "memscope" | "cc") {
            continue;
        }
        let chosen = af
            .quals
            .iter()
            .zip(atom.quals)
            .find(|(s, _)| s.name == slot.name)
            .and_then(|(s, v)| s.values.get(v as usize))
            .and_then(|text| slot.values.iter().position(|v| v == text));
        out.quals[k] = chosen.map_or(FormRef::ABSENT, |v| v as u8);
    }
    out
}

/// Replaces each `.df` atomic of `p` by its loop (see the module docs),
/// splitting its block: the instructions before it and the first read,
/// the loop's block, then a block with the rest.
pub(super) fn rewrite(p: &mut Program, lib: &Program, linker: &mut Linker) {
    let mut t: Option<Forms> = None;
    for fi in 0..p.functions.len() {
        let mut bi = 0;
        while bi < p.functions[fi].blocks.len() {
            let at = p.functions[fi].blocks[bi]
                .insts
                .iter()
                .position(|x| matches!(x, Inst::Pisa(i) if is_df_atomic(i)));
            let Some(k) = at else {
                bi += 1;
                continue;
            };
            let Inst::Pisa(i) = p.functions[fi].blocks[bi].insts[k].clone() else {
                unreachable!("the position of an instruction")
            };
            let operand = |r: Role| i.roles.get(r).map(|k| i.operands[k].clone());
            let (Some(dst), Some(addr), Some(src)) =
                (operand(Role::Dst), operand(Role::Addr), operand(Role::Src0))
            else {
                bi += 1;
                continue;
            };
            let t = t.get_or_insert_with(|| forms(lib));
            p.library_uses.push((i.mnemonic_text(), i.span));
            let add = linker.import(p, "__pisa_sd_add");
            let flags = if i.quals.op == Some(Op::Sub) { 64 } else { 0 };
            let f = &mut p.functions[fi];
            let n = f.regs.len();
            let wide = || RegKind::Value(Ty::scalar(64));
            let reg = |r: RegId| {
                Operand::Reg(RegRef {
                    reg: r,
                    swizzle: None,
                    span: i.span,
                })
            };
            let z = reg(f.new_reg(format!("$sdz{n}"), wide()));
            let old = reg(f.new_reg(format!("$sdold{n}"), wide()));
            let new = reg(f.new_reg(format!("$sdnew{n}"), wide()));
            let got = reg(f.new_reg(format!("$sdgot{n}"), wide()));
            let done = f.new_reg(format!("$sddone{n}"), RegKind::Pred);
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
                .push(Inst::Pisa(like(&t.zero, vec![z.clone(), zero], &i)));
            block.insts.push(Inst::Pisa(like(
                &t.read,
                vec![old.clone(), addr.clone(), z],
                &i,
            )));
            let term = std::mem::replace(&mut block.term, Terminator::Goto(looped));
            let term_span = block.term_span;
            block.term_span = i.span;
            let call = linker.call(
                &i,
                new.clone(),
                add,
                vec![old.clone(), src, super::imm(flags, 8, i.span)],
            );
            let cas = PisaInst::new(
                with_ordering(t.cas.form, i.form),
                vec![got.clone(), addr, old.clone(), new],
                i.mnemonic,
                i.span,
            );
            let loop_block = Block {
                label: None,
                insts: vec![
                    Inst::Pisa(call),
                    Inst::Pisa(cas),
                    Inst::Pisa(like(&t.eq, vec![reg(done), got.clone(), old.clone()], &i)),
                    Inst::Pisa(like(&t.mov, vec![old.clone(), got], &i)),
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
            let mut insts = vec![Inst::Pisa(like(&t.mov, vec![dst, old], &i))];
            insts.extend(rest);
            let after_block = Block {
                label: None,
                insts,
                term,
                term_span,
            };
            f.blocks.push(loop_block);
            f.blocks.push(after_block);
            bi += 1;
        }
    }
}
