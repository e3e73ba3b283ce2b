//! `ir::frnd`: rounding to an integral value (issue "Numerics on every
//! device": SPIR-V emission rounds nothing itself). `frnd` (15 §4.7, every
//! mode, `.ftz`, `.f`/`.hf`/`.bf`/`.df`) and the rounding step of `f2i`
//! and `pf2i` in a mode other than `.rz` become integer instructions on the
//! encoding, inlined where the instruction was; the conversion that
//! follows is the mode-less `f2i`/`pf2i`, which truncates an integral
//! value exactly (`spirv::lower::data_movement`).
//!
//! On the encoding of width `W` with `M` significand bits and bias `B`
//! (biased exponent `e`):
//!
//! - `e ≥ B + M`: integral already (infinities and NaNs too), unchanged;
//! - `e < B` (`|a| < 1`): the signed zero, or ±1.0 where the mode rounds
//!   away from zero (`.rd` a negative nonzero value, `.ru` a positive one,
//!   `.rna` from 0.5 on, `.re` above 0.5);
//! - else the `s = B + M − e` fraction bits are cleared (`t`), and the
//!   unit `2^s` added to `t` where the mode rounds away from zero (`.rd`
//!   negative and inexact, `.ru` positive and inexact, `.rna` a fraction
//!   of half the unit or more, `.re` more than half, or half and `t` odd):
//!   a carry into the exponent gives the next power of two;
//! - a NaN is quieted (the float core's rule: its only source); `.ftz`
//!   flushes the source first (results are never subnormal). Zero results
//!   keep the source's sign.
//!
//! Everything is integer arithmetic, never GLSL's `Trunc`/`RoundEven` or
//! float subtraction: lavapipe's f64 `Trunc` returned values of 2^24 and
//! more unchanged and lost the sign of `trunc(-0.5)`, and its f64
//! `RoundEven` gave 1.0 for 1.5 (Mesa 22.3.6, LLVM 15, on an AVX2 machine;
//! tests/run/frnd_even_df.pisa).
//!
//! The pass runs after the library passes (`exactf32`'s `frc` calls
//! `frnd.rd.f`), before `structurize`; on the `.df` forms the soft-double
//! library replaced (`softf64`: `frnd.df`, `f2i` from `.df`) it finds
//! nothing left to do. The reference device (`interp`) does not run it;
//! it is the oracle (`tests/frnd_rewrite.rs`, `tests/run/frnd_*.pisa`).

use super::qualifier::Rndmode;
use super::template::{inline, reg};
use super::*;
use std::fmt::Write as _;

/// The template's file name (never in a diagnostic: the instructions take
/// the replaced instruction's spans).
const FILE: &str = "<pisa frnd template>";

/// The encoding of a float format: width, significand bits, bias.
#[derive(Clone, Copy)]
struct Format {
    w: u32,
    m: u32,
    bias: u64,
}

fn format(kind: FloatKind) -> Format {
    match kind {
        FloatKind::Half => Format {
            w: 16,
            m: 10,
            bias: 15,
        },
        FloatKind::BFloat => Format {
            w: 16,
            m: 7,
            bias: 127,
        },
        FloatKind::Single => Format {
            w: 32,
            m: 23,
            bias: 127,
        },
        FloatKind::Double => Format {
            w: 64,
            m: 52,
            bias: 1023,
        },
    }
}

/// What the pass does to `i`: `frnd` of a format, or the rounding before
/// a mode-less `f2i`/`pf2i`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rewrite {
    Frnd(FloatKind, Rndmode, bool),
    F2i(FloatKind, Rndmode),
    Pf2i(FloatKind, Rndmode),
}

fn rewrite_of(i: &PisaInst) -> Option<Rewrite> {
    let q = &i.quals;
    match i.opcode {
        Opcode::Frnd => Some(Rewrite::Frnd(
            q.ty?.float()?,
            q.rndmode.unwrap_or(Rndmode::Re),
            q.ftz,
        )),
        Opcode::F2i => match q.rndmode? {
            Rndmode::Rz => None,
            mode => Some(Rewrite::F2i(q.from?.float()?, mode)),
        },
        Opcode::Pf2i => match q.rndmode? {
            Rndmode::Rz => None,
            mode => Some(Rewrite::Pf2i(q.from?.float()?, mode)),
        },
        _ => None,
    }
}

/// Whether this pass rewrites `i` (the back end refuses it unrewritten:
/// `spirv::lower::refuse_unrewritten`).
pub fn rewrites(i: &PisaInst) -> bool {
    rewrite_of(i).is_some()
}

/// PISA text (declarations, then instructions) that rounds the `W`-bit
/// register `input` to an integral value into the register `out` in
/// `mode` (see the module docs); its own registers end in `x`.
fn round_text(
    kind: FloatKind,
    mode: Rndmode,
    ftz: bool,
    (input, out): (&str, &str),
    x: &str,
) -> (String, String) {
    let Format { w, m, bias } = format(kind);
    let sign: u64 = 1 << (w - 1);
    let inf: u64 = ((1u64 << (w - 1 - m)) - 1) << m;
    let quiet: u64 = 1 << (m - 1);
    let one = bias << m;
    let halfv = (bias - 1) << m;
    let abs = sign - 1;
    let mut d = String::new();
    let _ = writeln!(
        d,
        "\t.reg .{w}b %a{x}, %s{x}, %mag{x}, %e{x}, %unit{x}, %fm{x}, %frac{x}, %t{x}, %u{x}, %us{x}, %hu{x}, %odd{x}, %rs{x}, %q{x};"
    );
    let _ = writeln!(d, "\t.reg .32b %e32{x}, %sh{x};");
    let _ = writeln!(
        d,
        "\t.pred %pz{x}, %pbig{x}, %psmall{x}, %pf{x}, %pn{x}, %pm{x}, %pe{x}, %pnan{x};"
    );
    let mut b = String::new();
    let mut l = |s: String| {
        b.push('\t');
        b.push_str(&s);
        b.push_str(";\n");
    };
    l(format!("mov.{w}b %a{x}, {input}"));
    if ftz {
        l(format!("and.{w}b %e{x}, %a{x}, {inf:#X}"));
        l(format!("ucmp.eq.{w}b %pz{x}, %e{x}, 0"));
        l(format!("and.{w}b %s{x}, %a{x}, {sign:#X}"));
        l(format!("sel.{w}b %a{x}, %s{x}, %a{x}, %pz{x}"));
    }
    l(format!("and.{w}b %s{x}, %a{x}, {sign:#X}"));
    l(format!("and.{w}b %mag{x}, %a{x}, {abs:#X}"));
    l(format!("shr.{w}b %e{x}, %mag{x}, {m}"));
    l(match w {
        16 => format!("zext.32b.16b %e32{x}, %e{x}"),
        32 => format!("mov.32b %e32{x}, %e{x}"),
        _ => format!("trunc.32b.64b %e32{x}, %e{x}"),
    });
    l(format!(
        "ucmp.ge.32b %pbig{x}, %e32{x}, {}",
        bias + u64::from(m)
    ));
    l(format!("ucmp.lt.32b %psmall{x}, %e32{x}, {bias}"));
    l(format!("isub.32b %sh{x}, {}, %e32{x}", bias + u64::from(m)));
    // a shift in range where it is not used
    l(format!("sel.32b %sh{x}, 1, %sh{x}, %pbig{x}"));
    l(format!("sel.32b %sh{x}, 1, %sh{x}, %psmall{x}"));
    l(format!("shl.{w}b %unit{x}, 1, %sh{x}"));
    l(format!("isub.{w}b %fm{x}, %unit{x}, 1"));
    l(format!("and.{w}b %frac{x}, %a{x}, %fm{x}"));
    l(format!("not.{w}b %t{x}, %fm{x}"));
    l(format!("and.{w}b %t{x}, %a{x}, %t{x}"));
    // the step away from zero: %u in the fraction's case, %us below 1
    match mode {
        Rndmode::Rz => {
            l(format!("mov.{w}b %u{x}, 0"));
            l(format!("mov.{w}b %us{x}, 0"));
        }
        Rndmode::Rd | Rndmode::Ru => {
            l(format!("ucmp.ne.{w}b %pf{x}, %frac{x}, 0"));
            l(format!("sel.{w}b %u{x}, %unit{x}, 0, %pf{x}"));
            l(format!("ucmp.ne.{w}b %pm{x}, %mag{x}, 0"));
            l(format!("sel.{w}b %us{x}, {one:#X}, 0, %pm{x}"));
            l(format!("ucmp.ne.{w}b %pn{x}, %s{x}, 0"));
            if mode == Rndmode::Rd {
                l(format!("sel.{w}b %u{x}, %u{x}, 0, %pn{x}"));
                l(format!("sel.{w}b %us{x}, %us{x}, 0, %pn{x}"));
            } else {
                l(format!("sel.{w}b %u{x}, 0, %u{x}, %pn{x}"));
                l(format!("sel.{w}b %us{x}, 0, %us{x}, %pn{x}"));
            }
        }
        Rndmode::Rna => {
            l(format!("shr.{w}b %hu{x}, %unit{x}, 1"));
            l(format!("ucmp.ge.{w}b %pf{x}, %frac{x}, %hu{x}"));
            l(format!("sel.{w}b %u{x}, %unit{x}, 0, %pf{x}"));
            l(format!("ucmp.ge.{w}b %pm{x}, %mag{x}, {halfv:#X}"));
            l(format!("sel.{w}b %us{x}, {one:#X}, 0, %pm{x}"));
        }
        Rndmode::Re => {
            l(format!("shr.{w}b %hu{x}, %unit{x}, 1"));
            l(format!("ucmp.gt.{w}b %pf{x}, %frac{x}, %hu{x}"));
            l(format!("sel.{w}b %u{x}, %unit{x}, 0, %pf{x}"));
            // a tie: up from an odd `t` (its bit at the unit is set)
            l(format!("ucmp.eq.{w}b %pe{x}, %frac{x}, %hu{x}"));
            l(format!("and.{w}b %odd{x}, %t{x}, %unit{x}"));
            l(format!("sel.{w}b %odd{x}, %odd{x}, 0, %pe{x}"));
            l(format!("or.{w}b %u{x}, %u{x}, %odd{x}"));
            l(format!("ucmp.gt.{w}b %pm{x}, %mag{x}, {halfv:#X}"));
            l(format!("sel.{w}b %us{x}, {one:#X}, 0, %pm{x}"));
        }
    }
    // the result written once, last (`out` may be the source's register)
    l(format!("iadd.{w}b %t{x}, %t{x}, %u{x}"));
    l(format!("or.{w}b %rs{x}, %s{x}, %us{x}"));
    l(format!("sel.{w}b %t{x}, %rs{x}, %t{x}, %psmall{x}"));
    l(format!("sel.{w}b %t{x}, %a{x}, %t{x}, %pbig{x}"));
    l(format!("ucmp.gt.{w}b %pnan{x}, %mag{x}, {inf:#X}"));
    l(format!("or.{w}b %q{x}, %a{x}, {quiet:#X}"));
    l(format!("sel.{w}b {out}, %q{x}, %t{x}, %pnan{x}"));
    (d, b)
}

/// The template function (named `@t`) that writes `rw`'s rounded value
/// from its source (parameter `%a0`) to its result (`%r`): a `W`-bit value
/// for `frnd` and `f2i`, the two 16-bit lanes of a `.v2.16b` one for
/// `pf2i`.
fn template_text(rw: Rewrite) -> String {
    let (kind, mode, ftz) = match rw {
        Rewrite::Frnd(k, m, f) => (k, m, f),
        Rewrite::F2i(k, m) | Rewrite::Pf2i(k, m) => (k, m, false),
    };
    let w = format(kind).w;
    let mut s = String::from(".version 0.1;\n.target 100;\n");
    if let Rewrite::Pf2i(..) = rw {
        let (dl, bl) = round_text(kind, mode, ftz, ("%lo", "%rl"), "l");
        let (dh, bh) = round_text(kind, mode, ftz, ("%hi", "%rh"), "h");
        let _ = write!(
            s,
            ".function @t(.reg .v2.16b %a0, .reg .v2.16b %r)\n{{\n{dl}{dh}\t.reg .16b %lo, %hi, %rl, %rh;\n\tmov.16b %lo, %a0.x;\n\tmov.16b %hi, %a0.y;\n{bl}{bh}\tmov.16b %r.x, %rl;\n\tmov.16b %r.y, %rh;\n\treturn;\n}}\n"
        );
    } else {
        let (d, b) = round_text(kind, mode, ftz, ("%a0", "%r"), "");
        let _ = write!(
            s,
            ".function @t(.reg .{w}b %a0, .reg .{w}b %r)\n{{\n{d}{b}\treturn;\n}}\n"
        );
    }
    s
}

/// `form` without its rounding mode (`f2i`/`pf2i` truncating).
fn without_mode(form: FormRef) -> FormRef {
    let f = &catalog().forms[form.form as usize];
    let mut out = form;
    if let Some(k) = f.slot("rndmode") {
        out.quals[k] = FormRef::ABSENT;
    }
    out
}

/// Replaces every instruction [`rewrites`] names in `p` (see the module
/// docs). Does nothing to a program without one.
pub fn rewrite(p: &mut Program) {
    let mut templates: Vec<(Rewrite, Program)> = Vec::new();
    for f in &mut p.functions {
        for bi in 0..f.blocks.len() {
            if !f.blocks[bi]
                .insts
                .iter()
                .any(|x| matches!(x, Inst::Pisa(i) if rewrites(i)))
            {
                continue;
            }
            let old = std::mem::take(&mut f.blocks[bi].insts);
            let mut insts = Vec::with_capacity(old.len());
            for inst in old {
                let Inst::Pisa(i) = &inst else {
                    insts.push(inst);
                    continue;
                };
                let Some(rw) = rewrite_of(i) else {
                    insts.push(inst);
                    continue;
                };
                let (Some(dst), Some(src)) = (i.operand(Role::Dst), i.operand(Role::Src0)) else {
                    insts.push(inst);
                    continue;
                };
                let (dst, src) = (dst.clone(), src.clone());
                let k = match templates.iter().position(|(r, _)| *r == rw) {
                    Some(k) => k,
                    None => {
                        let text = template_text(rw);
                        templates.push((rw, super::template::assemble(FILE, &text)));
                        templates.len() - 1
                    }
                };
                let tpl = &templates[k].1;
                let src = match rw {
                    Rewrite::Frnd(kind, ..) | Rewrite::F2i(kind, _) => {
                        super::literal::as_bits(src, kind)
                    }
                    Rewrite::Pf2i(..) => src,
                };
                match rw {
                    Rewrite::Frnd(..) => {
                        insts.extend(inline(f, tpl, "t", &[src, dst], i, "rnd"));
                    }
                    Rewrite::F2i(kind, _) | Rewrite::Pf2i(kind, _) => {
                        let ty = match rw {
                            Rewrite::Pf2i(..) => Ty { bits: 16, count: 2 },
                            _ => Ty::scalar(format(kind).w as u16),
                        };
                        let n = f.regs.len();
                        let tmp = f.new_reg(format!("$rnd{n}"), RegKind::Value(ty));
                        let args = [src, reg(tmp, i.span)];
                        insts.extend(inline(f, tpl, "t", &args, i, "rnd"));
                        let mut operands = i.operands.clone();
                        if let Some(s) = i.roles().get(Role::Src0) {
                            operands[s] = reg(tmp, i.span);
                        }
                        insts.push(Inst::Pisa(PisaInst::new(
                            without_mode(i.form),
                            operands,
                            i.mnemonic(),
                            i.span,
                        )));
                    }
                }
            }
            f.blocks[bi].insts = insts;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every template assembles (formats, modes, `.ftz`, the three
    /// instructions).
    #[test]
    fn every_template_assembles() {
        let kinds = [
            FloatKind::Half,
            FloatKind::BFloat,
            FloatKind::Single,
            FloatKind::Double,
        ];
        let modes = [
            Rndmode::Re,
            Rndmode::Rz,
            Rndmode::Rd,
            Rndmode::Ru,
            Rndmode::Rna,
        ];
        for kind in kinds {
            for mode in modes {
                let mut rws = vec![
                    Rewrite::Frnd(kind, mode, false),
                    Rewrite::Frnd(kind, mode, true),
                    Rewrite::F2i(kind, mode),
                ];
                if format(kind).w == 16 {
                    rws.push(Rewrite::Pf2i(kind, mode));
                }
                for rw in rws {
                    let text = template_text(rw);
                    if let Err(e) = crate::assemble(FILE, &text) {
                        panic!("{text}\n{e:?}");
                    }
                }
            }
        }
    }
}
