//! Function bodies: scopes, declarations, labels, and the placement rules for
//! `return` (spec 05 §1.2, 06 §2.2–2.4, 08 §4.5).

use super::{decls, instr, Ctx};
use crate::diag::Span;
use crate::syntax::ast::*;
use rustc_hash::FxHashSet as HashSet;

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
    regs: NameMap<Local>,
    vars: NameMap<Local>,
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
            self.table(k.1).set(k.0, old);
        }
    }
    /// The `@` names' table (`sym`) or the `%` names'.
    fn table(&mut self, sym: bool) -> &mut NameMap<Local> {
        if sym {
            &mut self.vars
        } else {
            &mut self.regs
        }
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
        let old = self.table(sym).set(name, Some(l));
        if let Some(scope) = self.undo.last_mut() {
            scope.undo.push((key, old));
        }
        true
    }
    pub fn reg(&self, name: Name) -> Option<Local> {
        self.regs.get(name)
    }
    pub fn var(&self, name: Name) -> Option<Local> {
        self.vars.get(name)
    }
}

/// Per-function state the instruction checks need.
pub struct FnCtx {
    pub kind: FuncKind,
    pub ret: Option<Ty>,
    pub scopes: Scopes,
    pub labels: LabelSet,
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
    let mut found = Vec::new();
    collect_labels(body, &mut found);
    let mut labels = LabelSet::for_names(found.iter().map(|l| l.0));
    for (name, span) in found {
        if !labels.insert(name) {
            let msg = format!("label `{}` is defined more than once", cx.name(name));
            cx.rep.error(span, "duplicate-label", msg);
        }
    }
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

/// The labels defined in `b` and its inner blocks, in order.
fn collect_labels(b: &Block, out: &mut Vec<(Name, Span)>) {
    for s in &b.stmts {
        match s {
            Stmt::Label(name, span) => out.push((*name, *span)),
            Stmt::Block(inner) => collect_labels(inner, out),
            _ => {}
        }
    }
}

/// The labels of a function. Names are numbered as first seen, so a
/// function's labels are mostly close together: then a bit per name from
/// the least to the greatest, which a `goto` tests without the cache miss
/// of a hash lookup (a large function's labels outgrow the caches); a hash
/// set where they are spread far apart.
pub struct LabelSet {
    base: u32,
    bits: Vec<u64>,
    spread: Option<HashSet<Name>>,
}

impl LabelSet {
    /// An empty set for these names.
    fn for_names(names: impl Iterator<Item = Name> + Clone) -> LabelSet {
        let count = names.clone().count();
        let lo = names.clone().map(|n| n.0).min().unwrap_or(0);
        let hi = names.map(|n| n.0).max().unwrap_or(0);
        let range = (hi - lo) as usize + 1;
        if range <= 8 * count + 4096 {
            LabelSet {
                base: lo,
                bits: vec![0; range.div_ceil(64)],
                spread: None,
            }
        } else {
            LabelSet {
                base: 0,
                bits: Vec::new(),
                spread: Some(HashSet::default()),
            }
        }
    }
    /// Adds `n`; false if it was there.
    fn insert(&mut self, n: Name) -> bool {
        if let Some(set) = &mut self.spread {
            return set.insert(n);
        }
        let i = (n.0 - self.base) as usize;
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let new = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        new
    }
    pub fn contains(&self, n: &Name) -> bool {
        if let Some(set) = &self.spread {
            return set.contains(n);
        }
        let Some(i) = n.0.checked_sub(self.base) else {
            return false;
        };
        let i = i as usize;
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
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

#[cfg(test)]
mod tests {
    use super::LabelSet;
    use crate::syntax::ast::Name;

    #[test]
    fn label_sets_hold_exactly_their_names() {
        for (names, spread) in [
            (vec![Name(5), Name(7), Name(9), Name(200)], false),
            (vec![Name(3), Name(1_000_000)], true),
        ] {
            let mut s = LabelSet::for_names(names.iter().copied());
            assert_eq!(s.spread.is_some(), spread);
            for n in &names {
                assert!(!s.contains(n));
                assert!(s.insert(*n));
                assert!(!s.insert(*n));
                assert!(s.contains(n));
            }
            for n in [0, 4, 6, 8, 10, 199, 201, 999_999, 2_000_000] {
                assert!(!s.contains(&Name(n)));
            }
        }
    }
}
