//! `ir::exactf32`: the f32 operations whose Vulkan forms are not exact,
//! computed exactly without f64 (devices without `shaderFloat64`: Apple
//! GPUs, Intel Arc), as calls of a bundled PISA library linked into the
//! program on use (the way [`super::mathlib`] links its own).
//!
//! Vulkan rounds f32 `OpFAdd`, `OpFSub` and `OpFMul` correctly to nearest
//! even, and nothing else: it has no directed rounding (`.rz`, `.ru`, `.rd`,
//! `.rna`, spec 03 §2), allows 2.5 ULP for `OpFDiv` and `Sqrt`, and does not
//! require `Fma` to be fused (lavapipe's rounds twice). Where the device has
//! f64 the pass [`super::exactf64`] replaces the same instructions by calls
//! of this library with its cores in f64 (`library::Cores`); without it
//! this pass replaces, on `.f`:
//!
//! - `fadd`, `fsub`, `fmul` in a directed mode or `.rna`;
//! - `fmad` in every mode (one rounding);
//! - `fdiv`, `frcp`, `fsqrt` in every mode, `.fast` included (the exact
//!   result is within every bound, and the same as the other devices');
//! - `frc` (its subtraction rounds down: `@__pisa_xf_frc`);
//! - on `.bf`, `fadd`, `fsub`, `fmul` to nearest too (Vulkan has no
//!   rounding into bfloat16; `.hf` to nearest is f32 arithmetic and
//!   `OpFConvert`, correctly rounded), by short entry points
//!   (`@__pisa_xh_rn_add`, `_mul`: the device's f32 operation, the one
//!   float operation of the library, then its integer rounding; without
//!   `.ftz`/`.dsat` the shorter `@__pisa_xbf_rn_add`, `_mul` of
//!   [`round16`], and on `.hf` without `shaderFloat16` `@__pisa_xhf_…`);
//!
//! by a call `call %d, @__pisa_xf_OP(srcs…, FLAGS)` ([`flags`]: the
//! rounding mode, `.ftz`, `.dsat`, `fsub`). The library ([`library`])
//! computes only with integer operations, which Vulkan defines exactly
//! (no float operation at all, so a driver's flushing of f32 subnormals or
//! contraction of float operations cannot touch it):
//!
//! - the operands are unpacked into an integer significand `m` (24 bits,
//!   subnormals normalized) and an exponent;
//! - the exact result, or a truncation of it with at least 26 significant
//!   bits whose last bit is ORed with "bits were lost" (that is, rounded to
//!   odd), is formed in 64-bit integers: `fmul` the exact 48-bit product;
//!   `fadd` the sum of the significands at bit 62, the smaller shifted
//!   right and rounded to odd (the larger has 39 zero low bits, so the
//!   shifted one loses bits only when the exponents differ by more than 39,
//!   when no cancellation can take more than one bit); `fmad` the same sum
//!   of the exact product (15 zero low bits) and the addend; `fdiv` the
//!   integer quotient `(ma · 2^40) / mb` (40 bits or more) with its
//!   remainder as the sticky bit; `fsqrt` the integer square root (31 bits
//!   or more, digit by digit in 31 steps) of the significand scaled by
//!   2^36 or 2^37, with its remainder as the sticky bit;
//! - one rounding (`@__pisa_xf_round`) into f32 in the asked mode.
//!
//! Proof sketch: rounding to odd at a bit at least two below the rounding
//! position of the result preserves the rounding in every mode (Boldo and
//! Melquiond, "Emulation of FMA and correctly rounded sums: proved
//! algorithms using rounding to odd", 2008): the truncation `t` with its
//! sticky bit lies strictly between the same two representable neighbours
//! as the exact value, is not a midpoint unless the exact value is, and is
//! on the same side of every midpoint. For sums, `x` even and `y`'s
//! rounding to odd give `x ± RO(y) = RO(x ± y)`. Each truncation keeps at
//! least 26 bits above its sticky bit, so 24-bit results (and fewer for
//! subnormals) round correctly. Zeros, infinities and NaNs are chosen by
//! IEEE 754 and the float core's NaN rules (docs/spec-notes.md) before
//! the arithmetic matters.
//!
//! The reference device (`interp`) does not run this pass; it is the oracle
//! the library is tested against (`tests/exact_f32.rs`).

pub mod library;
pub mod round16;

use super::bundled::Linker;
use super::*;
use qualifier::Rndmode;
use std::sync::OnceLock;

/// The library's file name in diagnostics.
pub const LIBRARY_FILE: &str = "<pisa exact f32 library>";

/// Where library spans start in the program's text: beyond any module's and
/// beyond the math library's (so `mathlib::in_library` holds for them too).
const LIBRARY_BASE: u32 = super::bundled::span_base::EXACT;

/// The library's PISA text.
pub fn library_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(library::source)
}

/// The flags argument of the library's functions: the rounding mode in
/// bits 0–2 (0 `.re`, 1 `.rz`, 2 `.ru`, 3 `.rd`, 4 `.rna`), then `.ftz`
/// (16), `.dsat` (32) and "subtract" (64, `fsub`).
pub fn flags(mode: Rndmode, ftz: bool, dsat: bool, subtract: bool) -> u64 {
    let m = match mode {
        Rndmode::Re => 0,
        Rndmode::Rz => 1,
        Rndmode::Ru => 2,
        Rndmode::Rd => 3,
        Rndmode::Rna => 4,
    };
    m | u64::from(ftz) << 4 | u64::from(dsat) << 5 | u64::from(subtract) << 6
}

/// The format code of the library's flags (bits 8-9): 0 f32, 1 f16,
/// 2 bfloat16.
fn format_code(kind: FloatKind) -> u64 {
    match kind {
        FloatKind::Half => 1,
        FloatKind::BFloat => 2,
        FloatKind::Single | FloatKind::Double => 0,
    }
}

/// What replaces an instruction: the library function and its flags
/// argument (the last one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub entry: String,
    pub flags: u64,
}

/// The library function that computes `i` exactly, and its flags, if this
/// pass replaces it (see the module docs), on a device that rounds into
/// `.hf` by `OpFConvert` (`shaderFloat16`).
pub fn replacement(i: &PisaInst) -> Option<Replacement> {
    replacement_for(i, true)
}

/// [`replacement`] on a device with (`float16`) or without `shaderFloat16`:
/// without it `fadd`, `fsub`, `fmul` on `.hf` to nearest and `i2f` into
/// `.hf` are calls too (the back end would round into `.hf` in integer
/// code of its own).
pub fn replacement_for(i: &PisaInst, float16: bool) -> Option<Replacement> {
    let q = &i.quals;
    let mode = q.rndmode.unwrap_or(Rndmode::Re);
    let directed = mode != Rndmode::Re;
    match i.opcode {
        Opcode::Ftrunc | Opcode::Ftrunc2 => {
            let to = q.to?;
            let fmt = format_code(to.float()?);
            let entry = match (i.opcode, to) {
                (Opcode::Ftrunc, Type::Hf | Type::Bf) if q.from == Some(Type::F) => "__pisa_xh_cvt",
                (Opcode::Ftrunc2, Type::Hfx2 | Type::Bfx2) => "__pisa_xh2_cvt",
                _ => return None,
            };
            return Some(Replacement {
                entry: entry.into(),
                flags: flags(mode, q.ftz, q.dsat, false) | fmt << 8,
            });
        }
        Opcode::I2f => {
            let to = q.to?;
            let from = q.from?;
            let pre = match to {
                Type::F => "xf",
                Type::Hf | Type::Bf => "xh",
                _ => return None,
            };
            // the forms the back end computes in f64 (`lower::data_movement::i2f`)
            if !(directed || q.dsat || to == Type::Bf || (to == Type::Hf && !float16)) {
                return None;
            }
            let signed = from.signed()?;
            let bits = from.bits();
            let s = if signed { 's' } else { 'u' };
            return Some(Replacement {
                entry: format!("__pisa_{pre}_i2f_{s}{bits}"),
                flags: flags(mode, false, q.dsat, false)
                    | u64::from(signed) << 7
                    | format_code(to.float()?) << 8,
            });
        }
        _ => {}
    }
    let ty = q.ty?;
    let kind = ty.float()?;
    if kind == FloatKind::Double {
        return None;
    }
    let fmt = format_code(kind);
    let rounds16 = kind == FloatKind::BFloat || (kind == FloatKind::Half && !float16);
    let f = flags(mode, q.ftz, q.dsat, i.opcode == Opcode::Fsub) | fmt << 8;
    let prefix = match (kind, ty.lanes() > 1) {
        (FloatKind::Single, _) => "__pisa_xf_",
        (_, false) => "__pisa_xh_",
        (_, true) => "__pisa_xh2_",
    };
    if q.precision.is_some() {
        // fmul.full of the 16-bit formats: an f32 product
        return (i.opcode == Opcode::Fmul && matches!(ty, Type::Hf | Type::Bf)).then(|| {
            Replacement {
                entry: "__pisa_xh_mulfull".into(),
                flags: f,
            }
        });
    }
    let op = match i.opcode {
        // `frc` rounds its subtraction down (13 §2.12)
        Opcode::Frc if kind == FloatKind::Single => "frc",
        // bfloat16 (half without `float16`) to nearest too: the library
        // rounds into the format (the back end's f32 arithmetic would need
        // a rounding of its own)
        Opcode::Fadd | Opcode::Fsub if directed => "add",
        Opcode::Fmul if directed => "mul",
        // to nearest: the device's f32 operation and the library's
        // rounding into the format, in a few integer operations without
        // `.ftz`/`.dsat` (`round16`), else `library::rn_entry`
        Opcode::Fadd | Opcode::Fsub | Opcode::Fmul if rounds16 && !q.ftz && !q.dsat => {
            let name = if kind == FloatKind::BFloat {
                "bf"
            } else {
                "hf"
            };
            let lanes = if ty.lanes() > 1 { "2" } else { "" };
            let op = if i.opcode == Opcode::Fmul {
                "mul"
            } else {
                "add"
            };
            return Some(Replacement {
                entry: format!("__pisa_x{name}{lanes}_rn_{op}"),
                flags: f,
            });
        }
        Opcode::Fadd | Opcode::Fsub if rounds16 => "rn_add",
        Opcode::Fmul if rounds16 => "rn_mul",
        Opcode::Fmad => "fma",
        Opcode::Fdiv => "div",
        // f32's `frcp` passes 1.0 to `div`; the 16-bit entry points have `rcp`
        Opcode::Frcp if kind == FloatKind::Single => "div",
        Opcode::Frcp => "rcp",
        Opcode::Fsqrt => "sqrt",
        _ => return None,
    };
    Some(Replacement {
        entry: format!("{prefix}{op}"),
        flags: f,
    })
}

/// The library function that computes `i` exactly, if this pass replaces
/// it (see the module docs).
pub fn replaces(i: &PisaInst) -> Option<String> {
    replacement(i).map(|r| r.entry)
}

/// The library as a program (assembled from [`library_source`]).
#[cfg(test)]
fn library() -> Program {
    super::bundled::assemble_library(LIBRARY_FILE, library_source())
}

/// A 32-bit hex immediate.
fn imm32(value: u64, span: Span) -> Operand {
    super::literal::imm(value, 8, span)
}

/// An immediate source as the bits of its value in the format of `ty`
/// (a call's arguments are raw bits of the parameter's width; `.df`
/// gives the f32 value's); integer sources (`i2f`) stay as they are.
fn literal_as_bits(src: Operand, ty: Option<Type>) -> Operand {
    let Some(kind) = ty.and_then(Type::float) else {
        return src;
    };
    let kind = match kind {
        FloatKind::Double => FloatKind::Single,
        k => k,
    };
    super::literal::as_bits(src, kind)
}

/// Replaces every instruction [`replaces`] names by a call of its library
/// function and links the library functions those calls need into `p`.
/// Does nothing to a program that uses none.
pub fn link(p: &mut Program) {
    link_with(p, &Library::EXACT_F32, &replacement);
}

/// [`link`] on a device with or without `shaderFloat16`
/// ([`replacement_for`]).
pub fn link_for(p: &mut Program, float16: bool) {
    link_with(p, &Library::EXACT_F32, &|i| replacement_for(i, float16));
}

/// A bundled library with the entry points of [`replacement`]: this one,
/// or `ir::exactf64`'s.
pub(crate) struct Library {
    pub file: &'static str,
    pub source: fn() -> &'static str,
    pub base: u32,
    pub pass: &'static str,
}

impl Library {
    const EXACT_F32: Library = Library {
        file: LIBRARY_FILE,
        source: library_source,
        base: LIBRARY_BASE,
        pass: "exactf32",
    };
}

/// Replaces every instruction `rewrite` gives a replacement for by a call
/// of its function of `library`, linking the functions those calls need
/// into `p`.
pub(crate) fn link_with(
    p: &mut Program,
    library: &Library,
    rewrite: &dyn Fn(&PisaInst) -> Option<Replacement>,
) {
    let used = p
        .functions
        .iter()
        .any(|f| f.pisa_insts().any(|i| rewrite(i).is_some()));
    if !used {
        return;
    }
    let source = (library.source)();
    let lib = super::bundled::assemble_library(library.file, source);
    let mut linker = Linker::new(p, &lib, library.file, source, library.base);
    for fi in 0..p.functions.len() {
        for bi in 0..p.functions[fi].blocks.len() {
            for ii in 0..p.functions[fi].blocks[bi].insts.len() {
                let Inst::Pisa(i) = &p.functions[fi].blocks[bi].insts[ii] else {
                    continue;
                };
                let Some(rep) = rewrite(i) else {
                    continue;
                };
                let i = i.clone();
                p.library_uses.push((i.mnemonic_text(), i.span));
                let target = linker.import(p, &rep.entry);
                let operand = |r: Role| i.roles().get(r).map(|k| i.operands[k].clone());
                let Some(dst) = operand(Role::Dst) else {
                    continue;
                };
                // the sources' format: the type, or `.from` of conversions
                let src_ty = match i.opcode {
                    Opcode::Ftrunc2 => Some(Type::F),
                    Opcode::Ftrunc | Opcode::I2f => i.quals.from,
                    _ => i.quals.ty,
                };
                let mut args: Vec<Operand> = [Role::Src0, Role::Src1, Role::Src2]
                    .into_iter()
                    .filter_map(operand)
                    .map(|o| literal_as_bits(o, src_ty))
                    .collect();
                if i.opcode == Opcode::Frcp && rep.entry == "__pisa_xf_div" {
                    args.insert(0, imm32(0x3F80_0000, i.span));
                }
                args.push(imm32(rep.flags, i.span));
                let call = linker.call(&i, dst, target, args);
                p.functions[fi].blocks[bi].insts[ii] = Inst::Pisa(call);
            }
        }
    }
    verify::debug_verify(p, library.pass);
}

#[cfg(test)]
mod tests;
