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
//! Library code keeps its own source positions: a piece of the program's
//! [`SourceMap`] names the file `<pisa math library>`, so a diagnostic
//! about library code (a device without 64-bit floats) points into it.

pub mod entry;

use super::*;
use crate::source_map::{Piece, SourceFile};
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// The library's file name in diagnostics.
pub const LIBRARY_FILE: &str = "<pisa math library>";

/// Where library spans start in the program's text (beyond any module's).
const LIBRARY_BASE: u32 = 1 << 31;

/// The library's PISA text: the f64 kernels, then every entry point.
pub fn library_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let mut s = include_str!("library.pisa").to_string();
        s.push('\n');
        s.push_str(&entry::all_entries());
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
fn library() -> Program {
    // the library is part of the translator: its own tests assemble it
    match crate::assemble(LIBRARY_FILE, library_source()) {
        Ok(m) => build(&m),
        Err(e) => panic!("the bundled math library does not assemble: {e:?}"),
    }
}

/// Replaces every instruction the library implements by a call of its
/// entry point and links the library functions those calls need into `p`.
/// Does nothing to a program that uses none.
pub fn link(p: &mut Program) {
    let used = p.functions.iter().any(|f| f.pisa_insts().any(implements));
    if !used {
        return;
    }
    let lib = library();
    let base = extend_source_map(&mut p.source);
    let mut linked: HashMap<Name, Name> = HashMap::default();
    // the call form, as the library's own calls are written
    let call_form = lib
        .functions
        .iter()
        .flat_map(|f| f.pisa_insts())
        .find(|i| i.opcode == Opcode::Call)
        .map(|i| i.form)
        .expect("the library calls its kernels");
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
                let target = import(p, &lib, &entry, base, &mut linked);
                let (dst, src) = (i.operands[0].clone(), i.operands[1].clone());
                let src = literal_as_bits(src, ty);
                let call = PisaInst::new(
                    call_form,
                    vec![
                        dst,
                        Operand::Call(Box::new(CallOperand {
                            target: Operand::Symbol(target, i.mnemonic),
                            args: vec![src],
                            span: i.span,
                        })),
                    ],
                    i.mnemonic,
                    i.span,
                );
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

/// Adds the library as a file of `map`, its text placed at
/// [`LIBRARY_BASE`]; returns that base.
fn extend_source_map(map: &mut SourceMap) -> u32 {
    let file = map.files.len() as u16;
    map.files.push(SourceFile {
        name: LIBRARY_FILE.to_string(),
        line_starts: crate::diag::line_starts(library_source()),
    });
    if map.pieces.is_empty() {
        map.pieces.push(Piece {
            at: 0,
            file: 0,
            from: 0,
            verbatim: true,
        });
    }
    map.pieces.push(Piece {
        at: LIBRARY_BASE,
        file,
        from: 0,
        verbatim: true,
    });
    LIBRARY_BASE
}

/// The program's name of library function `name`, copying it (and what it
/// calls) into `p` on first use.
fn import(
    p: &mut Program,
    lib: &Program,
    name: &str,
    base: u32,
    linked: &mut HashMap<Name, Name>,
) -> Name {
    let lib_name = lib
        .symbols
        .get(name)
        .unwrap_or_else(|| panic!("the math library has no `@{name}`"));
    if let Some(&n) = linked.get(&lib_name) {
        return n;
    }
    let new_name = p.symbols.intern(name);
    linked.insert(lib_name, new_name);
    let mut f = lib
        .function(lib_name)
        .expect("library symbols name functions")
        .clone();
    // what it calls first, so that every name below is known
    let callees: Vec<Name> = f
        .pisa_insts()
        .filter_map(|i| match i.operands.get(1) {
            Some(Operand::Call(c)) => match c.target {
                Operand::Symbol(n, _) => Some(n),
                _ => None,
            },
            _ => None,
        })
        .collect();
    for c in callees {
        import(p, lib, lib.name(c), base, linked);
    }
    let mut rename = |n: Name| -> Name {
        match linked.get(&n) {
            Some(&m) => m,
            None => p.symbols.intern(lib.name(n)),
        }
    };
    let shift = |s: Span| Span {
        start: s.start + base,
        end: s.end + base,
    };
    remap_function(&mut f, &mut rename, &shift);
    f.index = p.functions.len() as u32;
    f.linkage = Linkage::Internal;
    p.functions.push(f);
    new_name
}

/// Renames every symbol, label and special-register name of `f` into
/// another program's interner and moves its spans.
fn remap_function(
    f: &mut Function,
    name: &mut impl FnMut(Name) -> Name,
    span: &impl Fn(Span) -> Span,
) {
    f.name = name(f.name);
    f.span = span(f.span);
    for b in &mut f.blocks {
        b.label = b.label.map(&mut *name);
        b.term_span = span(b.term_span);
        for i in &mut b.insts {
            if let Inst::Pisa(p) = i {
                p.mnemonic = span(p.mnemonic);
                p.span = span(p.span);
                for o in &mut p.operands {
                    remap_operand(o, name, span);
                }
            }
        }
        if let Terminator::Return { value, span: s } = &mut b.term {
            *s = span(*s);
            if let Some(v) = value {
                remap_operand(v, name, span);
            }
        }
    }
}

fn remap_operand(
    o: &mut Operand,
    name: &mut impl FnMut(Name) -> Name,
    span: &impl Fn(Span) -> Span,
) {
    match o {
        Operand::Reg(r) | Operand::NotPred(r) => r.span = span(r.span),
        Operand::Special(r) => {
            r.name = name(r.name);
            r.span = span(r.span);
        }
        Operand::Int(_, s) | Operand::Float(_, s) | Operand::Void(s) => *s = span(*s),
        Operand::Symbol(n, s) => {
            *n = name(*n);
            *s = span(*s);
        }
        Operand::Addr(a) => {
            a.span = span(a.span);
            match &mut a.base {
                AddrBase::Reg(r) => r.span = span(r.span),
                AddrBase::Var(n, s) => {
                    *n = name(*n);
                    *s = span(*s);
                }
                AddrBase::Imm(_, s) => *s = span(*s),
                AddrBase::Special(r) => {
                    r.name = name(r.name);
                    r.span = span(r.span);
                }
            }
            match &mut a.offset {
                Some(AddrOffset::Reg(r)) => r.span = span(r.span),
                Some(AddrOffset::Imm(_, s)) => *s = span(*s),
                Some(AddrOffset::Special(r)) => {
                    r.name = name(r.name);
                    r.span = span(r.span);
                }
                None => {}
            }
        }
        Operand::Call(c) => {
            c.span = span(c.span);
            remap_operand(&mut c.target, name, span);
            for a in &mut c.args {
                remap_operand(a, name, span);
            }
        }
    }
}

#[cfg(test)]
mod tests;
