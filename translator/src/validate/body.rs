//! Function bodies: scopes, declarations, labels, and the placement rules for
//! `return` (spec 05 §1.2, 06 §2.2–2.4, 08 §4.5).

use super::{decls, instr, Ctx};
use crate::diag::Span;
use crate::syntax::ast::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// What a `%name` or function-scope `@name` refers to inside a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Local {
    Reg(Ty),
    Pred,
    /// A kernel parameter of this many bytes.
    Param(u64),
    /// A function-scope memory variable.
    Var(Space),
}

/// A name and whether it is an `@` name (`%` and `@` names are separate namespaces).
type Key = (Name, bool);

/// One open scope: the names it declared with what they shadowed, and the
/// same names as a set.
#[derive(Default)]
struct Scope {
    undo: Vec<(Key, Option<Local>)>,
    names: HashSet<Key>,
}

/// Lexically scoped names.
#[derive(Default)]
pub struct Scopes {
    /// What each `%` name and each `@` name means now, indexed by name: a
    /// lookup per register operand is an index, not a hash.
    regs: Vec<Option<Local>>,
    vars: Vec<Option<Local>>,
    /// Per open scope: the names it declared and what they shadowed, and
    /// the same names as a set (a declaration checks it in constant time:
    /// scanning the list made 160,000 registers take seconds).
    undo: Vec<Scope>,
}

impl Scopes {
    pub fn push(&mut self) {
        self.undo.push(Default::default());
    }
    pub fn pop(&mut self) {
        let scope = self.undo.pop().unwrap_or_default();
        for (k, old) in scope.undo.into_iter().rev() {
            *self.slot(k) = old;
        }
    }
    /// The meaning of `key`, growing the table to hold it.
    fn slot(&mut self, (name, sym): Key) -> &mut Option<Local> {
        let v = if sym { &mut self.vars } else { &mut self.regs };
        let i = name.0 as usize;
        if i >= v.len() {
            v.resize(i + 1, None);
        }
        &mut v[i]
    }
    /// Declares in the innermost scope; false if already declared there.
    pub fn declare(&mut self, name: Name, sym: bool, l: Local) -> bool {
        let key = (name, sym);
        let Some(scope) = self.undo.last_mut() else {
            return false;
        };
        if !scope.names.insert(key) {
            return false;
        }
        let old = self.slot(key).replace(l);
        if let Some(scope) = self.undo.last_mut() {
            scope.undo.push((key, old));
        }
        true
    }
    pub fn reg(&self, name: Name) -> Option<Local> {
        self.regs.get(name.0 as usize).copied().flatten()
    }
    pub fn var(&self, name: Name) -> Option<Local> {
        self.vars.get(name.0 as usize).copied().flatten()
    }
}

/// Per-function state the instruction checks need.
pub struct FnCtx {
    pub kind: FuncKind,
    pub ret: Option<Ty>,
    pub scopes: Scopes,
    pub labels: HashMap<Name, Span>,
    /// Memory variables declared anywhere in this function: unique per function
    /// (the translator lays them out by name).
    pub vars: HashSet<Name>,
}

pub fn check_function(cx: &mut Ctx, f: &mut FuncDecl) {
    if let Some(ret) = f.ret {
        check_ty(cx, ret, f.ret_span);
    }
    for p in &f.params {
        if let ParamKind::Reg(ty) = p.kind {
            check_ty(cx, ty, p.span);
        }
    }
    let Some(body) = f.body.as_mut() else {
        return;
    };
    let mut labels = HashMap::default();
    collect_labels(cx, body, &mut labels);
    let mut fx = FnCtx {
        kind: f.kind,
        ret: f.ret,
        scopes: Scopes::default(),
        labels,
        vars: Default::default(),
    };
    // parameters share the scope of the body's outermost block
    fx.scopes.push();
    for p in &f.params {
        if let Some((name, span)) = p.name {
            let l = match p.kind {
                ParamKind::Reg(ty) => Local::Reg(ty),
                ParamKind::Pred => Local::Pred,
                ParamKind::Param(n) => Local::Param(n),
            };
            if !fx.scopes.declare(name, false, l) {
                dup_reg(cx, name, span);
            }
        }
    }
    block(cx, &mut fx, body, false);
    fx.scopes.pop();
    if f.kind == FuncKind::Function && f.ret.is_some() && !ends_with_return(cx, body) {
        let msg = format!(
            "`@{}` returns a value, so its last instruction must be `return`",
            cx.name(f.name)
        );
        cx.rep.error(body.close, "return-last", msg);
    }
}

fn dup_reg(cx: &mut Ctx, name: Name, span: Span) {
    let msg = format!("`%{}` is already declared in this scope", cx.name(name));
    cx.rep.error(span, "duplicate-register", msg);
}

pub fn check_ty(cx: &mut Ctx, ty: Ty, span: Span) {
    if !ty.is_vector() {
        return;
    }
    let ok = match ty.bits {
        8 | 16 | 64 => matches!(ty.count, 2..=4),
        32 => matches!(ty.count, 2..=8 | 16 | 32 | 64),
        _ => false,
    };
    if !ok {
        let msg = format!(
            "`{ty}` is not a PISA vector type (`.8b`/`.16b`/`.64b` vectors have 2–4 elements; `.32b` vectors 2–8, 16, 32 or 64)"
        );
        cx.rep.error(span, "vector-type", msg);
    }
}

fn collect_labels(cx: &mut Ctx, b: &Block, labels: &mut HashMap<Name, Span>) {
    for s in &b.stmts {
        match s {
            Stmt::Label(name, span) if labels.insert(*name, *span).is_some() => {
                let msg = format!("label `{}` is defined more than once", cx.name(*name));
                cx.rep.error(*span, "duplicate-label", msg);
            }
            Stmt::Block(inner) => collect_labels(cx, inner, labels),
            _ => {}
        }
    }
}

/// Checks one block. Declarations are visible throughout their scope
/// (spec 05 §1.2), so they are entered before the statements are checked.
fn block(cx: &mut Ctx, fx: &mut FnCtx, b: &mut Block, new_scope: bool) {
    if new_scope {
        fx.scopes.push();
    }
    for s in &b.stmts {
        match s {
            Stmt::Reg { ty, names, span } => {
                let l = match ty {
                    Some(ty) => {
                        check_ty(cx, *ty, *span);
                        Local::Reg(*ty)
                    }
                    None => Local::Pred,
                };
                for &(name, nspan) in names {
                    if !fx.scopes.declare(name, false, l) {
                        dup_reg(cx, name, nspan);
                    }
                }
            }
            Stmt::Var(v) => {
                if v.space == Space::Global {
                    cx.rep.error(
                        v.space_span,
                        "space-scope",
                        "`.global` variables must be declared at module scope",
                    );
                }
                if v.linkage != Linkage::Internal {
                    cx.rep.error(
                        v.span,
                        "syntax",
                        "linkage (`.export`/`.import`) is only allowed at module scope",
                    );
                }
                decls::check_var(cx, v);
                if cx.globals.contains_key(&v.name)
                    || !fx.vars.insert(v.name)
                    || !fx.scopes.declare(v.name, true, Local::Var(v.space))
                {
                    let msg = format!(
                        "`@{}` is declared more than once in this module",
                        cx.name(v.name)
                    );
                    cx.rep.error(v.name_span, "duplicate-symbol", msg);
                }
            }
            _ => {}
        }
    }
    for s in &mut b.stmts {
        match s {
            Stmt::Instr(i) => {
                // lent out: the check writes the form into `i`
                let ops = std::mem::take(&mut i.operands);
                instr::check(cx, fx, i, &ops);
                i.operands = ops;
            }
            Stmt::Block(inner) => block(cx, fx, inner, true),
            _ => {}
        }
    }
    if new_scope {
        fx.scopes.pop();
    }
}

fn last_instr(b: &Block) -> Option<&Instr> {
    b.stmts.iter().rev().find_map(|s| match s {
        Stmt::Instr(i) => Some(i),
        Stmt::Block(inner) => last_instr(inner),
        _ => None,
    })
}

fn ends_with_return(cx: &Ctx, b: &Block) -> bool {
    last_instr(b).is_some_and(|i| cx.text(i.mnemonic) == "return")
}
