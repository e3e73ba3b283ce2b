//! `ir::bundled`: linking a PISA library bundled with the translator into
//! a program, for the passes that replace instructions by calls of library
//! functions ([`super::mathlib`], [`super::exactf32`]), the way ZLUDA and
//! clspv link their libraries.
//!
//! A [`Linker`] adds the library's text to the program's [`SourceMap`] as a
//! file of its own, placed at a span base beyond every module's text, so a
//! diagnostic about library code (a device without a feature it needs)
//! points into it; [`Linker::import`] copies a library function, and what it
//! calls, into the program on first use, its names interned in the
//! program's interner and its spans moved to the base.

use super::*;
use crate::source_map::{Piece, SourceFile};
use rustc_hash::FxHashMap as HashMap;

/// Where each bundled library's spans start in a program's text, beyond
/// every module's: one map, so the ranges cannot overlap by accident.
/// The math library takes `[2^31, 3·2^30)` (`mathlib::in_library` holds
/// for every library above it too); the exact library, with integer cores
/// (`exactf32`) or f64 cores (`exactf64`), which never run together,
/// `[3·2^30, 3·2^30 + 2^29)`; the soft-double library the rest.
pub mod span_base {
    /// `ir::mathlib`.
    pub const MATH: u32 = 1 << 31;
    /// `ir::exactf32` and `ir::exactf64`.
    pub const EXACT: u32 = 3 << 30;
    /// `ir::softf64`: the end of the exact library's range.
    pub const SOFT_F64: u32 = (3 << 30) + (1 << 29);
}

/// PISA text that widens an integer source `%v0` of `bits` bits (8, 16, 32
/// or 64; sign-extended when `signed`) into the 64-bit register `%v`,
/// using the 32-bit register `%w` for 8- and 16-bit unsigned sources: the
/// first step of every `i2f` entry point of the libraries
/// (`ir::exactf32`, `ir::softf64`), which convert from 64 bits.
pub fn widen_integer_source(bits: u32, signed: bool) -> String {
    if bits == 64 {
        "mov.64b %v, %v0".to_string()
    } else if signed {
        format!("sext.64b.{bits}b %v, %v0")
    } else if bits == 32 {
        "zext.64b.32b %v, %v0".to_string()
    } else {
        format!("zext.32b.{bits}b %w, %v0;\n\tzext.64b.32b %v, %w")
    }
}

/// A bundled library's PISA text assembled as a program. The library is
/// part of the translator (its own tests assemble it), so failing to
/// assemble is a bug of the translator, not of the input.
pub fn assemble_library(file: &str, source: &str) -> Program {
    match crate::assemble(file, source) {
        Ok(m) => build(&m),
        Err(e) => panic!("the bundled library {file} does not assemble: {e:?}"),
    }
}

/// Links the functions of one library into one program.
pub struct Linker<'l> {
    lib: &'l Program,
    base: u32,
    linked: HashMap<Name, Name>,
    /// The call form, as the library's own calls are written.
    call_form: FormRef,
}

impl<'l> Linker<'l> {
    /// Adds `lib` (assembled from `source`, named `file`) to `p`'s source
    /// map at span `base`. The library must call a function of its own
    /// somewhere (its calls give the form of the calls the pass writes).
    pub fn new(
        p: &mut Program,
        lib: &'l Program,
        file: &str,
        source: &str,
        base: u32,
    ) -> Linker<'l> {
        let map = &mut p.source;
        let index = map.files.len() as u16;
        map.files.push(SourceFile {
            name: file.to_string(),
            line_starts: crate::diag::line_starts(source),
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
            at: base,
            file: index,
            from: 0,
            verbatim: true,
        });
        let call_form = lib
            .functions
            .iter()
            .flat_map(|f| f.pisa_insts())
            .find(|i| i.opcode == Opcode::Call)
            .map(|i| i.form)
            .unwrap_or_else(|| panic!("the bundled library {file} calls none of its functions"));
        Linker {
            lib,
            base,
            linked: HashMap::default(),
            call_form,
        }
    }

    /// The program's name of library function `name`, copying it (and what
    /// it calls) into `p` on first use.
    pub fn import(&mut self, p: &mut Program, name: &str) -> Name {
        import(p, self.lib, name, self.base, &mut self.linked)
    }

    /// `call dst, @target(args)` in place of instruction `i` (its spans).
    pub fn call(&self, i: &PisaInst, dst: Operand, target: Name, args: Vec<Operand>) -> PisaInst {
        PisaInst::new(
            self.call_form,
            vec![
                dst,
                Operand::Call(Box::new(CallOperand {
                    target: Operand::Symbol(target, i.mnemonic()),
                    args,
                    span: i.span,
                })),
            ],
            i.mnemonic(),
            i.span,
        )
    }
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
        .unwrap_or_else(|| panic!("the bundled library has no `@{name}`"));
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
