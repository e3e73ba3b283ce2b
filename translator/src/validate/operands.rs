//! Resolves operands to what they name (registers, variables, functions,
//! labels) and reports names that are undeclared, swizzles that select
//! missing elements and misuse of special registers (spec 04, 07).

use super::body::{FnCtx, Local};
use super::{Ctx, Global, Signature};
use crate::diag::Span;
use crate::syntax::ast::*;

/// A resolved operand.
#[derive(Debug, Clone)]
pub enum Val {
    /// A register or a part of one. `ty` is as declared; `swz` selects elements.
    Reg {
        ty: Ty,
        swz: Option<Swizzle>,
        special: bool,
    },
    Pred {
        negated: bool,
    },
    Int(IntLit),
    Float,
    Addr(Addr),
    MemVar(Space),
    Func(Signature),
    Label,
    Void,
    Call {
        target: Box<Val>,
        args: Vec<(Val, Span)>,
    },
    /// A kernel parameter used as a plain operand (only `ld.param` may read it).
    Param,
    /// Unresolved; the problem is already reported.
    Error,
}

#[derive(Debug, Clone)]
pub struct Addr {
    pub base: Base,
    pub offset: Option<Offset>,
}

#[derive(Debug, Clone)]
pub enum Base {
    Reg {
        bits: u16,
        span: Span,
    },
    Var(Space, Span),
    /// A kernel parameter of this many bytes.
    Param(u64),
    Imm,
    Error,
}

#[derive(Debug, Clone)]
pub enum Offset {
    Reg { bits: u16, span: Span },
    Imm(i64),
    Error,
}

impl Val {
    /// (element bits, element count) as the operand presents them.
    pub fn shape(&self) -> Option<(u16, u8)> {
        match self {
            Val::Reg { ty, swz, .. } => Some(match swz {
                Some(s) => (ty.bits, s.count),
                None => (ty.bits, ty.count),
            }),
            _ => None,
        }
    }
    pub fn is_scalar_reg(&self) -> bool {
        matches!(self.shape(), Some((_, 1)))
    }
}

/// Special registers: name → type (spec 04).
pub fn special(name: &str) -> Option<Ty> {
    Some(match name {
        "activemask" | "laneid" | "subgroupsize" | "workdim" => Ty::scalar(32),
        "printfbuffer" => Ty::scalar(64),
        "enqueuedlocalsize" | "groupcount" | "groupid" | "localid" | "localsize" => {
            Ty { bits: 32, count: 3 }
        }
        "globaloffset" | "globalsize" => Ty { bits: 64, count: 3 },
        _ => return None,
    })
}

pub fn resolve(cx: &mut Ctx, fx: &FnCtx, op: &Operand) -> Val {
    match op {
        Operand::Reg(r) => reg(cx, fx, r, false),
        Operand::NotPred(r) => match reg(cx, fx, r, true) {
            Val::Pred { .. } => Val::Pred { negated: true },
            Val::Error => Val::Error,
            _ => {
                let msg = "`!` negates predicates only".to_string();
                cx.rep.error(r.span, "operand-kind", msg);
                Val::Error
            }
        },
        Operand::Int(l, _) => Val::Int(*l),
        Operand::Float(..) => Val::Float,
        Operand::Symbol(name, span) => symbol(cx, fx, *name, *span),
        Operand::Label(name, span) => {
            if fx.labels.contains(name) {
                Val::Label
            } else if let Some((msg, note)) =
                crate::syntax::parser::float_word_message(cx.name(*name))
            {
                // `.5`, `nan`, `inf`: a number was meant
                cx.rep.error_with_note(*span, "syntax", msg, note);
                Val::Error
            } else {
                let msg = format!("no label `{}` in this function", cx.name(*name));
                cx.rep.error(*span, "undefined-label", msg);
                Val::Error
            }
        }
        Operand::Void(_) => Val::Void,
        Operand::Addr(a) => {
            let AddrOperand { base, offset, .. } = a.as_ref();
            let base = match base {
                AddrBase::Reg(r) => match fx.scopes.reg(r.name).filter(|_| r.swizzle.is_none()) {
                    Some(Local::Param(size)) => Base::Param(size),
                    _ => match reg(cx, fx, r, false) {
                        Val::Reg { .. } | Val::Pred { .. } => {
                            let v = reg(cx, fx, r, true);
                            scalar_bits(cx, &v, r.span)
                                .map_or(Base::Error, |bits| Base::Reg { bits, span: r.span })
                        }
                        _ => Base::Error,
                    },
                },
                AddrBase::Var(name, span) => match fx.scopes.reg(*name) {
                    // `[@arg]`: the spec's `ld.param` notes name parameters this way
                    Some(Local::Param(size))
                        if fx.scopes.var(*name).is_none() && !cx.globals.contains_key(name) =>
                    {
                        Base::Param(size)
                    }
                    _ => match symbol(cx, fx, *name, *span) {
                        Val::MemVar(space) => Base::Var(space, *span),
                        Val::Error => Base::Error,
                        _ => {
                            let msg = format!(
                                "`@{}` is a function, not a memory variable",
                                cx.name(*name)
                            );
                            cx.rep.error(*span, "operand-kind", msg);
                            Base::Error
                        }
                    },
                },
                AddrBase::Imm(..) => Base::Imm,
            };
            let offset = offset.as_ref().map(|o| match o {
                AddrOffset::Imm(n, _) => Offset::Imm(*n),
                AddrOffset::Reg(r) => {
                    let v = reg(cx, fx, r, false);
                    match v {
                        Val::Error => Offset::Error,
                        v => scalar_bits(cx, &v, r.span)
                            .map_or(Offset::Error, |bits| Offset::Reg { bits, span: r.span }),
                    }
                }
            });
            Val::Addr(Addr { base, offset })
        }
        Operand::Call(c) => {
            let target = Box::new(resolve(cx, fx, &c.target));
            let args = c
                .args
                .iter()
                .map(|a| (resolve(cx, fx, a), a.span()))
                .collect();
            Val::Call { target, args }
        }
    }
}

/// The width of a register used as an address part; reports non-scalars.
fn scalar_bits(cx: &mut Ctx, v: &Val, span: Span) -> Option<u16> {
    match v {
        Val::Reg { .. } if v.is_scalar_reg() => v.shape().map(|s| s.0),
        Val::Error => None,
        _ => {
            cx.rep.error(
                span,
                "operand-kind",
                "address parts are scalar registers (or one vector element)",
            );
            None
        }
    }
}

fn symbol(cx: &mut Ctx, fx: &FnCtx, name: Name, span: Span) -> Val {
    if let Some(Local::Var(space)) = fx.scopes.var(name) {
        return Val::MemVar(space);
    }
    match cx.globals.get(&name) {
        Some(Global::Var { space, .. }) => Val::MemVar(*space),
        Some(Global::Func(sig)) => Val::Func(sig.clone()),
        None => {
            let msg = format!("`@{}` is not declared", cx.name(name));
            cx.rep.error(span, "undefined-symbol", msg);
            Val::Error
        }
    }
}

/// Resolves `%name[.swizzle]`. A kernel parameter is reported unless
/// `quiet_param` (the caller handles it).
fn reg(cx: &mut Ctx, fx: &FnCtx, r: &RegRef, quiet_param: bool) -> Val {
    let mut swz = r.swizzle;
    let mut found = fx.scopes.reg(r.name);
    if found.is_none() && swz.is_some() {
        // a register whose own name ends in `.x` etc.
        let full = cx
            .text(r.span)
            .trim_start_matches('!')
            .trim_start_matches('%')
            .to_string();
        if let Some(n) = cx.interner.get(&full) {
            if let Some(l) = fx.scopes.reg(n) {
                found = Some(l);
                swz = None;
            }
        }
    }
    let (ty, is_special) = match found {
        Some(Local::Reg(ty)) => (ty, false),
        Some(Local::Pred) => {
            if swz.is_some() {
                cx.rep
                    .error(r.span, "swizzle", "predicates have no elements to swizzle");
                return Val::Error;
            }
            return Val::Pred { negated: false };
        }
        Some(Local::Param(_)) => {
            if !quiet_param {
                cx.rep.error(
                    r.span,
                    "param-access",
                    "kernel parameters can only be read with `ld.param` (e.g. `ld.param.64b %r, [%param];`)",
                );
            }
            return Val::Param;
        }
        Some(Local::Var(_)) => unreachable!("registers and variables are separate namespaces"),
        None => match special(cx.name(r.name)) {
            Some(ty) => (ty, true),
            None => {
                let msg = format!("`%{}` is not declared", cx.name(r.name));
                cx.rep.error(r.span, "undefined-register", msg);
                return Val::Error;
            }
        },
    };
    match swz {
        Some(s) if !ty.is_vector() => {
            let msg = format!(
                "`.{}` selects vector elements, but this register is a scalar `{ty}`",
                swz_name(s)
            );
            cx.rep.error(r.span, "swizzle", msg);
            return Val::Error;
        }
        Some(s) if s.first as u32 + s.count as u32 > ty.count as u32 => {
            let msg = format!(
                "`.{}` selects elements beyond this `{ty}` register",
                swz_name(s)
            );
            cx.rep.error(r.span, "swizzle", msg);
            return Val::Error;
        }
        Some(s) if is_special && s.count > 1 => {
            cx.rep.error(
                r.span,
                "swizzle",
                "special registers are read one element at a time (`.x`, `.y` or `.z`)",
            );
            return Val::Error;
        }
        None if is_special && ty.is_vector() => {
            cx.rep.error(
                r.span,
                "swizzle",
                "vector special registers are read one element at a time: add `.x`, `.y` or `.z`",
            );
            return Val::Error;
        }
        _ => {}
    }
    Val::Reg {
        ty,
        swz,
        special: is_special,
    }
}

pub fn swz_name(s: Swizzle) -> &'static str {
    match (s.first, s.count) {
        (0, 1) => "x",
        (1, 1) => "y",
        (2, 1) => "z",
        (3, 1) => "w",
        (0, 2) => "xy",
        (2, 2) => "zw",
        _ => "xyzw",
    }
}
