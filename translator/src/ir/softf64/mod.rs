//! `ir::softf64`: binary64 (`.df`) arithmetic without f64, for devices
//! without `shaderFloat64` (Apple GPUs under MoltenVK, Intel Arc and Xe):
//! the `.df` instructions become calls of a bundled PISA library that
//! computes with 32- and 64-bit integer operations only (every device PISA
//! runs on has `shaderInt64`), linked into the program on use the way
//! [`super::exactf32`] links its own. A `.df` register holds the value's
//! bits; loads, stores, moves and `sel` of them are plain 64-bit ones.
//!
//! The pass replaces, on `.df`:
//!
//! - `fadd`, `fsub`, `fmul`, `fmad`, `fdiv` (`.fast` included: the exact
//!   result is within its bound, and the same as the other devices'),
//!   `fsqrt` (likewise), in every rounding mode, with `.ftz` and `.dsat`;
//! - `fmin`, `fmax` (`.nanp`, `.ftz`, `.dsat`), `fabs`, `fneg`;
//! - `frsqrt.fast` (`.ftz`), correctly rounded as the cpu device computes
//!   it (`@__pisa_sd_rsqrt`: `2^164 / M` by long division, its integer
//!   square root unrolled, both remainders as the sticky bit);
//! - `fcmp` (a call giving the 32-bit mask; for a predicate destination, a
//!   `ucmp.ne.32b` of it);
//! - the conversions `f2i` from `.df` (every integer type and mode),
//!   `i2f` into `.df`, `fext` into `.df`, `ftrunc` from `.df` (every mode,
//!   `.ftz`, `.dsat`) and `frnd.df`, with the cpu device's NaN payload,
//!   saturation and signed-zero rules;
//!
//! by calls `@__pisa_sd_OP(srcs…, FLAGS)` ([`replacement`]); and
//! `fatom.global.add.df`/`.sub.df` by a 64-bit compare-and-swap loop whose
//! new value is `@__pisa_sd_add`'s ([`atomics`]; the back end's 64-bit
//! atomics, under the lock table where the device has none). Nothing
//! else reads or writes `.df` as a float (the spec has no `.df`
//! transcendentals), so a program this pass has run on needs no f64.
//!
//! The library ([`library`]) works like the exact f32 library:
//!
//! - the operands are unpacked into an integer significand `m` (53 bits,
//!   subnormals normalized) and an exponent;
//! - the exact result, or a truncation of it with at least 55 significant
//!   bits whose last bit is ORed with "bits were lost" (rounded to odd), is
//!   formed in 64-bit integers, or in pairs of them: `fmul` the exact
//!   106-bit product from four `umul.full.32b` of 32-bit pieces, its top
//!   64 bits kept; `fadd` the sum of the significands at bit 62, the
//!   smaller shifted right and rounded to odd (the larger has 10 zero low
//!   bits, so the shifted one loses bits only when the exponents differ by
//!   more than 10, when no cancellation can take more than one bit);
//!   `fmad` the same sum in 128 bits of the exact product and the addend
//!   (20 zero low bits or more), normalized into 64 bits with a sticky
//!   bit; `fdiv` the quotient `(ma · 2^55) / mb` (55 bits or more) by long
//!   division in digits of 11 bits (`udiv.64b` of remainders below 2^64),
//!   the last remainder as the sticky bit; `fsqrt` the integer square root
//!   (56 bits) of the significand scaled by 2^58 or 2^59, digit by digit
//!   in 56 steps, its remainder as the sticky bit; `frsqrt` the integer
//!   square root (56 bits) of `⌊2^164 / M⌋` (`M` the even-exponent
//!   significand), the two remainders' "nonzero" as the sticky bit;
//! - one rounding (`@__pisa_sd_round`) into f64 in the asked mode.
//!
//! Proof sketch: rounding to odd at a bit at least two below the rounding
//! position of the result preserves the rounding in every mode (Boldo and
//! Melquiond, "Emulation of FMA and correctly rounded sums: proved
//! algorithms using rounding to odd", 2008): the truncation with its
//! sticky bit lies strictly between the same two representable neighbours
//! as the exact value, is not a midpoint unless the exact value is, and is
//! on the same side of every midpoint. For sums, `x` even and `y`'s
//! rounding to odd give `x ± RO(y) = RO(x ± y)`. Each truncation keeps at
//! least 55 bits above its sticky bit, so 53-bit results (and fewer for
//! subnormals) round correctly. Zeros, infinities and NaNs are chosen by
//! IEEE 754 and the float core's NaN rules (docs/spec-notes.md) before
//! the arithmetic matters.
//!
//! On devices with f64 the passes `exactf64` and `exactf32` call this
//! library for the `.df` forms whose Vulkan instruction is not exact
//! ([`link_with`], `ir::exactf64::df_replacement`), without the atomics;
//! `fdiv` and `fsqrt` to nearest there are the functions of [`f64core`]
//! (the device's f64 division and root corrected by exact remainders), in
//! this library's text but linked on such devices only.
//!
//! The reference device (`interp`) does not run this pass; it is the oracle
//! the library is tested against (`tests/soft_f64.rs`).

pub mod atomics;
pub mod f64core;
pub mod library;

pub use atomics::is_df_atomic;

use super::bundled::Linker;
use super::literal::imm;
use super::*;
use qualifier::{Cop, Rndmode};
use std::sync::OnceLock;

/// The library's file name in diagnostics.
pub const LIBRARY_FILE: &str = "<pisa soft f64 library>";

/// Where library spans start in the program's text: beyond any module's,
/// the math library's and the exact f32 library's.
const LIBRARY_BASE: u32 = super::bundled::span_base::SOFT_F64;

/// Whether `span` lies in this library's text (code a link copied in):
/// the back end lowers the `.df` division and square root of
/// [`f64core`]'s functions (linked on devices with f64 only) by the
/// device's instructions.
pub fn in_library(span: Span) -> bool {
    span.start >= LIBRARY_BASE
}

/// The library's PISA text.
pub fn library_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(library::source)
}

/// The flags argument of the library's functions: the rounding mode in
/// bits 0–2 (0 `.re`, 1 `.rz`, 2 `.ru`, 3 `.rd`, 4 `.rna`; for `fcmp` the
/// comparison: 0 eq, 1 ne, 2 gt, 3 ge, 4 lt, 5 le), then `.ftz` (16),
/// `.dsat` (32), "subtract" (64, `fsub`), `.nanp` (128) and "maximum"
/// (256, `fmax`).
pub fn flags(i: &PisaInst) -> u64 {
    let q = &i.quals;
    let low = if i.opcode == Opcode::Fcmp {
        match q.cop {
            Some(Cop::Eq) | None => 0,
            Some(Cop::Ne) => 1,
            Some(Cop::Gt) => 2,
            Some(Cop::Ge) => 3,
            Some(Cop::Lt) => 4,
            Some(Cop::Le) => 5,
        }
    } else {
        match q.rndmode {
            Some(Rndmode::Re) | None => 0,
            Some(Rndmode::Rz) => 1,
            Some(Rndmode::Ru) => 2,
            Some(Rndmode::Rd) => 3,
            Some(Rndmode::Rna) => 4,
        }
    };
    low | u64::from(q.ftz) << 4
        | u64::from(q.dsat) << 5
        | u64::from(i.opcode == Opcode::Fsub) << 6
        | u64::from(q.nanp) << 7
        | u64::from(i.opcode == Opcode::Fmax) << 8
}

/// The library function that computes `i`, and its flags argument (the
/// last one), if this pass replaces it (see the module docs). The
/// conversions' flags: `f2i` the mode (`.rz` without one), 128 for a
/// signed result and the width in bits 8–14; `i2f` the mode and 128 for a
/// signed source; `ftrunc`, `fext` the mode, `.ftz` and `.dsat`.
pub fn replacement(i: &PisaInst) -> Option<(String, u64)> {
    let q = &i.quals;
    if q.precision.is_some() {
        return None;
    }
    let narrow = |t: Type| match t {
        Type::F => Some("f"),
        Type::Hf => Some("hf"),
        Type::Bf => Some("bf"),
        _ => None,
    };
    let f = flags(i);
    match i.opcode {
        Opcode::F2i if q.from == Some(Type::Df) => {
            let to = q.to?;
            let bits = to.bits();
            let mode = if q.rndmode.is_none() { 1 } else { f & 7 };
            let flags = (f & !7) | mode | u64::from(to.signed()?) << 7 | u64::from(bits) << 8;
            let entry = if bits == 64 {
                "__pisa_sd_f2i".to_string()
            } else {
                format!("__pisa_sd_f2i{bits}")
            };
            Some((entry, flags))
        }
        Opcode::I2f if q.to == Some(Type::Df) => {
            let from = q.from?;
            let signed = from.signed()?;
            let s = if signed { 's' } else { 'u' };
            Some((
                format!("__pisa_sd_i2f_{s}{}", from.bits()),
                f | u64::from(signed) << 7,
            ))
        }
        Opcode::Fext if q.to == Some(Type::Df) => {
            let from = q.from?;
            let n = narrow(from)?;
            let wide = if from == Type::F { "" } else { "16" };
            Some((format!("__pisa_sd_fext{wide}_{n}"), f))
        }
        Opcode::Ftrunc if q.from == Some(Type::Df) => {
            let to = q.to?;
            let n = narrow(to)?;
            let wide = if to == Type::F { "" } else { "16" };
            Some((format!("__pisa_sd_ftrunc{wide}_{n}"), f))
        }
        _ if q.ty != Some(Type::Df) => None,
        Opcode::Frnd => Some(("__pisa_sd_frnd".into(), f)),
        op => {
            let entry = match op {
                Opcode::Fadd | Opcode::Fsub => "__pisa_sd_add",
                Opcode::Fmul => "__pisa_sd_mul",
                Opcode::Fmad => "__pisa_sd_fma",
                Opcode::Fdiv => "__pisa_sd_div",
                Opcode::Fsqrt => "__pisa_sd_sqrt",
                Opcode::Frsqrt => "__pisa_sd_rsqrt",
                Opcode::Fmin | Opcode::Fmax => "__pisa_sd_minmax",
                Opcode::Fabs => "__pisa_sd_abs",
                Opcode::Fneg => "__pisa_sd_neg",
                Opcode::Fcmp => "__pisa_sd_cmp",
                _ => return None,
            };
            Some((entry.into(), f))
        }
    }
}

/// The library function that computes `i`, if this pass replaces it (see
/// the module docs).
pub fn replaces(i: &PisaInst) -> Option<String> {
    replacement(i).map(|r| r.0)
}

/// The format of `i`'s sources: `.from` of the conversions, else the type.
fn source_type(i: &PisaInst) -> Option<Type> {
    match i.opcode {
        Opcode::F2i | Opcode::I2f | Opcode::Fext | Opcode::Ftrunc => i.quals.from,
        _ => i.quals.ty,
    }
}

/// The library as a program (assembled from [`library_source`]).
fn library() -> Program {
    super::bundled::assemble_library(LIBRARY_FILE, library_source())
}

/// An immediate source as the bits of its value in the float format `ty`
/// (a call's arguments are raw bits of the parameter's width); integer
/// sources (`i2f`) stay as they are.
fn literal_as_bits(src: Operand, ty: Option<Type>) -> Operand {
    let Some(kind) = ty.and_then(Type::float) else {
        return src;
    };
    super::literal::as_bits(src, kind)
}

/// The form of `ucmp.ne.32b PRED, REG, 0` (the library's own, in
/// `@__pisa_sd_cmp`).
fn ucmp_form(lib: &Program) -> FormRef {
    lib.functions
        .iter()
        .flat_map(|f| f.pisa_insts())
        .find(|i| i.opcode == Opcode::Ucmp && i.mnemonic_text() == "ucmp.ne.32b")
        .map(|i| i.form)
        .expect("the soft f64 library compares with ucmp.ne.32b")
}

/// Replaces every instruction [`replaces`] names by a call of its library
/// function, and every `.df` atomic ([`is_df_atomic`]) by a loop
/// ([`atomics`]), and links the library functions those need into `p`.
/// Does nothing to a program that uses none.
pub fn link(p: &mut Program) {
    link_with(p, &replacement, true, "softf64");
}

/// Replaces every instruction `replace` names (a subset of
/// [`replacement`]'s, with its entry points and flags) by a call of the
/// library function, and with `with_atomics` every `.df` atomic by a loop, and
/// links the library functions those need into `p`: [`link`], and the
/// `.df` operations the pass `exactf64` computes with this library on
/// devices with f64 (`ir::exactf64::df_replacement`). `pass` names the
/// pass for the IR check after it.
pub fn link_with(
    p: &mut Program,
    replace: &dyn Fn(&PisaInst) -> Option<(String, u64)>,
    with_atomics: bool,
    pass: &str,
) {
    let used = p.functions.iter().any(|f| {
        f.pisa_insts()
            .any(|i| replace(i).is_some() || (with_atomics && is_df_atomic(i)))
    });
    if !used {
        return;
    }
    let lib = library();
    let ucmp = ucmp_form(&lib);
    let mut linker = Linker::new(p, &lib, LIBRARY_FILE, library_source(), LIBRARY_BASE);
    if with_atomics {
        atomics::rewrite(p, &lib, &mut linker);
    }
    for fi in 0..p.functions.len() {
        for bi in 0..p.functions[fi].blocks.len() {
            let old = std::mem::take(&mut p.functions[fi].blocks[bi].insts);
            let mut insts = Vec::with_capacity(old.len());
            for inst in old {
                let Inst::Pisa(i) = &inst else {
                    insts.push(inst);
                    continue;
                };
                let Some((entry, flags)) = replace(i) else {
                    insts.push(inst);
                    continue;
                };
                let i = i.clone();
                let operand = |r: Role| i.roles().get(r).map(|k| i.operands[k].clone());
                let Some(dst) = operand(Role::Dst).or_else(|| operand(Role::Pred)) else {
                    insts.push(inst);
                    continue;
                };
                p.library_uses.push((i.mnemonic_text(), i.span));
                let target = linker.import(p, &entry);
                let src_ty = source_type(&i);
                let mut args: Vec<Operand> = [Role::Src0, Role::Src1, Role::Src2]
                    .into_iter()
                    .filter_map(operand)
                    .map(|o| literal_as_bits(o, src_ty))
                    .collect();
                args.push(imm(flags, 8, i.span));
                let f = &mut p.functions[fi];
                let pred_dst = match &dst {
                    Operand::Reg(r) => matches!(f.reg(r.reg).kind, RegKind::Pred),
                    _ => false,
                };
                if pred_dst {
                    // the mask into a 32-bit register, then the predicate
                    let t = f.new_reg(
                        format!("$sd{}", f.regs.len()),
                        RegKind::Value(Ty::scalar(32)),
                    );
                    let tmp = Operand::Reg(RegRef {
                        reg: t,
                        swizzle: None,
                        span: i.span,
                    });
                    insts.push(Inst::Pisa(linker.call(&i, tmp.clone(), target, args)));
                    insts.push(Inst::Pisa(PisaInst::new(
                        ucmp,
                        vec![dst, tmp, imm(0, 1, i.span)],
                        i.mnemonic(),
                        i.span,
                    )));
                } else {
                    insts.push(Inst::Pisa(linker.call(&i, dst, target, args)));
                }
            }
            p.functions[fi].blocks[bi].insts = insts;
        }
    }
    verify::debug_verify(p, pass);
}

#[cfg(test)]
mod tests {
    /// The library assembles (and so its register declarations are right).
    #[test]
    fn the_library_assembles() {
        let src = super::library_source();
        if let Err(d) = crate::assemble(super::LIBRARY_FILE, src) {
            panic!("{d:?}");
        }
    }

    /// No library function loops (`fsqrt`'s and `frsqrt`'s steps are
    /// unrolled): a driver that caps loop trips per invocation (llvmpipe,
    /// 65,535 in all, docs/abi.md) counts none in a library call, however
    /// many calls a kernel makes. The `.df` atomics' loop is the caller's.
    #[test]
    fn the_library_has_no_loops() {
        assert!(!super::library_source().contains("goto"));
    }
}
