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
//! the first read is relaxed (a stale value only costs an iteration): the
//! loop is `ir::casloop`'s, as the `.df` loops without f64
//! (`ir::softf64::atomics`).
//!
//! `fatom.min`/`.max` (exact: the result is one of the operands) and
//! `.cas` (bits) on 16-bit formats, and every `.f` form (Vulkan's f32
//! addition is correctly rounded), stay the back end's.

use super::template::{forms, like, reg};
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
/// (see the module docs; [`casloop::rewrite`] splits the block). Does
/// nothing to a program without one.
pub fn rewrite(p: &mut Program) {
    let used = p.functions.iter().any(|f| f.pisa_insts().any(is_fatom16));
    if !used {
        return;
    }
    let tpl = super::template::assemble(FILE, TEMPLATE);
    let t = forms(&tpl, "__pisa_fatom16_forms");
    let [_, _, _, _, _, add_bf, sub_bf, widen, add_f, sub_f, narrow] = t.as_slice() else {
        panic!("the fatom16 template has the loop's eleven instructions")
    };
    let shape = casloop::Shape {
        forms: casloop::Forms::first(&t),
        width: 16,
        prefix: "h16",
        space: &["addrspace"],
    };
    // the new value: `.bf` by the format's `fadd`/`fsub`; `.hf` by an
    // exact widening, the f32 operation and one narrowing (the same
    // value: 24 ≥ 2·11 + 2 bits make the double rounding innocuous),
    // which drivers compile fast inside the loop (a 16-bit value computed
    // from the loop's own 16-bit registers made llvmpipe's compilation of
    // a kernel of four such loops take 8 s, of 32 more than its 120 s
    // limit)
    casloop::rewrite(p, is_fatom16, &shape, |p, s| {
        let (i, n) = (s.at, s.n);
        let sub = i.quals.op == Some(Op::Sub);
        if i.quals.ty == Some(Type::Hf) {
            let f = &mut p.functions[s.fi];
            let word = || RegKind::Value(Ty::scalar(32));
            let wa = reg(f.new_reg(format!("$h16wa{n}"), word()), i.span);
            let wb = reg(f.new_reg(format!("$h16wb{n}"), word()), i.span);
            let op = if sub { sub_f } else { add_f };
            vec![
                like(widen, vec![wa.clone(), s.old.clone()], i),
                like(widen, vec![wb.clone(), s.src], i),
                like(op, vec![wa.clone(), wa.clone(), wb], i),
                like(narrow, vec![s.new.clone(), wa], i),
            ]
        } else {
            let op = if sub { sub_bf } else { add_bf };
            vec![like(op, vec![s.new.clone(), s.old.clone(), s.src], i)]
        }
    });
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
