//! `ir::mathlib`: the bundled math library, linked into a program on use.
//!
//! PISA's transcendental instructions (`fsin`, `fcos`, `fexp2`, `flog2`,
//! `ftanh`, `frsqrt`, spec 13, on `.f`, `.hf`, `.bf` and packed `.hfx2`/`.bfx2`) have
//! error bounds (1–2 ULP) that Vulkan's `GLSL.std.450` built-ins do not
//! promise (`Exp2` 3 + 2·|x| ULP, `Log2` an absolute 2^-21 near 1, `Sin`
//! absolute 2^-11). So they are not lowered to built-ins: this pass
//! replaces each one by a call of a PISA function of the library
//! ([`library.pisa`](library.pisa) for the f64 kernels, [`entry`] for one
//! entry point per instruction form), and copies the functions the
//! program calls into it, the way ZLUDA and clspv link their bundled
//! libraries. The back end then lowers ordinary PISA (f64 arithmetic,
//! integer operations, `sel`) that it computes exactly on every driver,
//! so the results are the same everywhere.
//!
//! The reference device (`interp`) does not run this pass: it computes
//! every instruction correctly rounded on its own, and is the oracle the
//! library is tested against (`tests/mathlib.rs`, `examples/ulp.rs`).
//!
//! Devices without 64-bit floats (`shaderFloat64`: Apple GPUs under
//! MoltenVK, Intel Arc and Xe) get the same instructions from the f32
//! kernels of [`library_f32.pisa`](library_f32.pisa) instead
//! ([`Kernels::F32`], chosen by the pipeline's
//! [`Target`](super::pipeline::Target) from `spirv::Options`): f32 add,
//! subtract and multiply (correctly rounded in Vulkan) and 32-bit integer
//! operations only, with values carried as pairs of f32s where one is not
//! precise enough; within the spec's bounds, not correctly rounded
//! (docs/numerics.md has the measured errors).
//!
//! Library code keeps its own source positions: a piece of the program's
//! [`SourceMap`] names the file `<pisa math library>`, so a diagnostic
//! about library code (a device without 64-bit floats) points into it.

pub mod entry;

use super::bundled::Linker;
use super::*;
use std::sync::OnceLock;

/// The library's file name in diagnostics.
pub const LIBRARY_FILE: &str = "<pisa math library>";

/// Where library spans start in the program's text (beyond any module's).
const LIBRARY_BASE: u32 = super::bundled::span_base::MATH;

/// Which kernels the library computes with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Kernels {
    /// `library.pisa`: f64, correctly rounded results (but for f64's own
    /// error near a midpoint).
    #[default]
    F64,
    /// `library_f32.pisa`: f32 and 32-bit integers only, for devices
    /// without 64-bit floats.
    F32,
}

/// The library's PISA text for `kernels`: the kernels, then every entry
/// point.
pub fn library_source(kernels: Kernels) -> &'static str {
    static F64: OnceLock<String> = OnceLock::new();
    static F32: OnceLock<String> = OnceLock::new();
    let (cell, text) = match kernels {
        Kernels::F64 => (&F64, include_str!("library.pisa")),
        Kernels::F32 => (&F32, include_str!("library_f32.pisa")),
    };
    cell.get_or_init(|| {
        let mut s = text.to_string();
        s.push('\n');
        s.push_str(&entry::all_entries(kernels));
        s
    })
}

/// Whether `span` lies in the library's text (code [`link`] copied in).
pub fn in_library(span: Span) -> bool {
    span.start >= LIBRARY_BASE
}

/// Whether instruction `i` is implemented by the library.
pub fn implements(i: &PisaInst) -> bool {
    entry::OPERATIONS.contains(&i.catalog_form().opcode.as_str()) && i.quals.ty != Some(Type::Df)
}

/// The library as a program (assembled from [`library_source`]).
fn library(kernels: Kernels) -> Program {
    super::bundled::assemble_library(LIBRARY_FILE, library_source(kernels))
}

/// Replaces every instruction the library implements by a call of its
/// entry point and links the library functions those calls need into `p`
/// (the f64 kernels). Does nothing to a program that uses none.
pub fn link(p: &mut Program) {
    link_with(p, Kernels::F64);
}

/// [`link`] with the library's `kernels`.
pub fn link_with(p: &mut Program, kernels: Kernels) {
    let used = p.functions.iter().any(|f| f.pisa_insts().any(implements));
    if !used {
        return;
    }
    let lib = library(kernels);
    let mut linker = Linker::new(p, &lib, LIBRARY_FILE, library_source(kernels), LIBRARY_BASE);
    for fi in 0..p.functions.len() {
        for bi in 0..p.functions[fi].blocks.len() {
            for ii in 0..p.functions[fi].blocks[bi].insts.len() {
                let Inst::Pisa(i) = &p.functions[fi].blocks[bi].insts[ii] else {
                    continue;
                };
                if !implements(i) {
                    continue;
                }
                let i = i.clone();
                p.library_uses.push((i.mnemonic_text(), i.span));
                let ty = i.quals.ty.unwrap_or(Type::F);
                let entry = entry::entry_name(&i.mnemonic_text());
                let target = linker.import(p, &entry);
                let (dst, src) = (i.operands[0].clone(), i.operands[1].clone());
                let call = linker.call(&i, dst, target, vec![literal_as_bits(src, ty)]);
                p.functions[fi].blocks[bi].insts[ii] = Inst::Pisa(call);
            }
        }
    }
    verify::debug_verify(p, "mathlib");
}

/// An immediate source as the bits of its value in format `ty` (a call's
/// arguments are read as raw bits of the parameter's width).
fn literal_as_bits(src: Operand, ty: Type) -> Operand {
    let bits = match &src {
        Operand::Float(v, _) => float_bits(*v, ty),
        Operand::Int(l, _) if !l.hex => float_bits(l.math() as f64, ty),
        _ => return src,
    };
    let span = src.span();
    Operand::Int(
        IntLit {
            value: bits,
            hex: true,
            digits: if ty == Type::F { 8 } else { 4 },
            negative: false,
        },
        span,
    )
}

/// A literal's value rounded to nearest even into `ty` (a packed type:
/// into each lane; PISA has no vector immediates, so only scalars occur).
fn float_bits(v: f64, ty: Type) -> u64 {
    match ty.float() {
        Some(FloatKind::Half) => super::literal::f64_to_16(v, false),
        Some(FloatKind::BFloat) => super::literal::f64_to_16(v, true),
        Some(FloatKind::Single | FloatKind::Double) | None => (v as f32).to_bits() as u64,
    }
}

#[cfg(test)]
mod tests;
