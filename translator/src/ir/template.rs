//! `ir::template`: instructions a pass writes, taken from PISA text the
//! pass carries (assembled once per use, never linked into a program), so
//! that their catalog forms are the validator's own: the 16-bit float
//! atomics' loops ([`super::fatom16`], built by [`super::casloop`]) and
//! `frnd`'s integer sequences ([`super::frnd`]).
//!
//! [`forms`] gives the instructions of a template function in order;
//! [`like`] makes one of them with other operands at another
//! instruction's place; [`with_quals`] copies qualifier values by name
//! from another form (an atomic's address space and ordering);
//! [`inline`] copies the body of a straight-line template function into
//! a caller, with fresh registers and its parameters replaced by operands.

use super::*;

/// The template text assembled as a program (a bug of the translator when
/// it does not assemble: the pass's tests assemble it).
pub fn assemble(file: &str, text: &str) -> Program {
    super::bundled::assemble_library(file, text)
}

/// The instructions of the template function `name`, in order.
pub fn forms(p: &Program, name: &str) -> Vec<PisaInst> {
    function(p, name).pisa_insts().cloned().collect()
}

fn function<'p>(p: &'p Program, name: &str) -> &'p Function {
    p.functions
        .iter()
        .find(|f| p.name(f.name) == name)
        .unwrap_or_else(|| panic!("the template has @{name}"))
}

/// `template`'s form with `operands`, at the place (spans) of `at`.
pub fn like(template: &PisaInst, operands: Vec<Operand>, at: &PisaInst) -> PisaInst {
    PisaInst::new(template.form, operands, at.mnemonic(), at.span)
}

/// The form `to` with the values `from` chose for the qualifier groups
/// `names` (matched by group name and value text; a group `from` leaves
/// out is left out).
pub fn with_quals(to: FormRef, from: FormRef, names: &[&str]) -> FormRef {
    let cat = catalog();
    let (tf, ff) = (&cat.forms[to.form as usize], &cat.forms[from.form as usize]);
    let mut out = to;
    for (k, slot) in tf.quals.iter().enumerate() {
        if !names.contains(&slot.name.as_str()) {
            continue;
        }
        let chosen = ff
            .quals
            .iter()
            .zip(from.quals)
            .find(|(s, _)| s.name == slot.name)
            .and_then(|(s, v)| s.values.get(v as usize))
            .and_then(|text| slot.values.iter().position(|v| v == text));
        out.quals[k] = chosen.map_or(FormRef::ABSENT, |v| v as u8);
    }
    out
}

/// A register operand at `span`.
pub fn reg(r: RegId, span: Span) -> Operand {
    Operand::Reg(RegRef {
        reg: r,
        swizzle: None,
        span,
    })
}

/// `op` with every span in it moved to `span` (template operands point
/// into the template's text, which the program does not have).
fn respan(op: &Operand, span: Span) -> Operand {
    let mut op = op.clone();
    match &mut op {
        Operand::Reg(r) | Operand::NotPred(r) => r.span = span,
        Operand::Int(_, s) | Operand::Float(_, s) | Operand::Symbol(_, s) | Operand::Void(s) => {
            *s = span
        }
        Operand::Special(_) | Operand::Addr(_) | Operand::Call(_) => {}
    }
    op
}

/// The body of the straight-line template function `name` (one block, no
/// calls, no value returned) as instructions of `f`, at the place of `at`:
/// the template's registers become fresh registers of `f` (named
/// `$PREFIX…`) and its parameters the operands `args`, in order (inputs
/// and outputs alike: a template writes its results to parameters). A
/// parameter the template reads with a swizzle (`%a0.x`) keeps it where
/// its argument is a register without one. Each template reads an input
/// parameter once, first (`mov.W %a, %a0`: an argument may be an
/// immediate, or the register an output writes).
pub fn inline(
    f: &mut Function,
    tpl: &Program,
    name: &str,
    args: &[Operand],
    at: &PisaInst,
    prefix: &str,
) -> Vec<Inst> {
    let t = function(tpl, name);
    let [block] = t.blocks.as_slice() else {
        panic!("template @{name} is one block")
    };
    let n = f.regs.len();
    let map: Vec<Option<RegId>> = t
        .regs
        .iter()
        .enumerate()
        .map(|(k, info)| {
            let r = RegId(k as u32);
            (!t.params.contains(&r))
                .then(|| f.new_reg(format!("${prefix}{n}_{}", info.name), info.kind))
        })
        .collect();
    let subst = |op: &Operand| -> Operand {
        match op {
            Operand::Reg(r) | Operand::NotPred(r) => {
                if let Some(k) = t.params.iter().position(|p| *p == r.reg) {
                    let mut arg = args[k].clone();
                    if let Operand::Reg(a) = &mut arg {
                        if a.swizzle.is_none() {
                            a.swizzle = r.swizzle;
                        }
                    }
                    return arg;
                }
                let mut out = respan(op, at.span);
                if let Operand::Reg(x) | Operand::NotPred(x) = &mut out {
                    x.reg = map[r.reg.index()].expect("a template register");
                }
                out
            }
            other => respan(other, at.span),
        }
    };
    block
        .insts
        .iter()
        .map(|inst| {
            let Inst::Pisa(i) = inst else {
                panic!("template @{name} holds PISA instructions only")
            };
            let operands = i.operands.iter().map(subst).collect();
            Inst::Pisa(like(i, operands, at))
        })
        .collect()
}
