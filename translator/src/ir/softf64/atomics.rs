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
//! with `old` first: the cpu device's `fatom`. The loop is
//! `ir::casloop`'s, as the 16-bit float atomics' (`ir::fatom16`).

use super::super::bundled::Linker;
use super::super::template::forms;
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

/// Replaces each `.df` atomic of `p` by its loop (see the module docs;
/// [`casloop::rewrite`] splits the block).
pub(super) fn rewrite(p: &mut Program, lib: &Program, linker: &mut Linker) {
    if !p.functions.iter().any(|f| f.pisa_insts().any(is_df_atomic)) {
        return;
    }
    let t = forms(lib, "__pisa_sd_atomic_forms");
    let shape = casloop::Shape {
        forms: casloop::Forms::first(&t),
        width: 64,
        prefix: "sd",
        space: &[],
    };
    casloop::rewrite(p, is_df_atomic, &shape, |p, s| {
        let i = s.at;
        p.library_uses.push((i.mnemonic_text(), i.span));
        let add = linker.import(p, "__pisa_sd_add");
        let flags = if i.quals.op == Some(Op::Sub) { 64 } else { 0 };
        let args = vec![s.old.clone(), s.src, super::imm(flags, 8, i.span)];
        vec![linker.call(i, s.new.clone(), add, args)]
    });
}
