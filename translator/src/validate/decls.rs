//! Module-scope rules: symbol uniqueness, variable declarations and their
//! initializers, attributes, and function/kernel signatures (spec 06, 08).

use super::{Ctx, Global, Signature};
use crate::syntax::ast::*;
use std::collections::hash_map::Entry;

pub fn collect_globals(cx: &mut Ctx, items: &[Item]) {
    for item in items {
        let (name, span, g) = match item {
            Item::Var(v) => (
                v.name,
                v.name_span,
                Global::Var {
                    space: v.space,
                    size: var_size(v),
                },
            ),
            Item::Func(f) => (
                f.name,
                f.name_span,
                Global::Func(Signature {
                    kind: f.kind,
                    ret: f.ret,
                    params: f.params.iter().map(|p| p.kind).collect(),
                }),
            ),
        };
        match cx.globals.entry(name) {
            Entry::Occupied(_) => {
                let msg = format!(
                    "`@{}` is declared more than once in this module",
                    cx.interner.resolve(name)
                );
                cx.rep.error(span, "duplicate-symbol", msg);
            }
            Entry::Vacant(e) => {
                e.insert(g);
            }
        }
    }
}

/// The declared size, or the initializer's size when `[N]` is omitted.
pub fn var_size(v: &VarDecl) -> Option<u64> {
    v.size
        .map(|(n, _)| n)
        .or_else(|| v.init.as_ref().map(|i| init_bytes(i)))
}

fn init_bytes(init: &[InitElem]) -> u64 {
    init.iter()
        .map(|e| match e {
            InitElem::Int { bits, .. } | InitElem::Symbol { bits, .. } => *bits as u64 / 8,
            InitElem::Zero { bytes, .. } => *bytes,
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}

pub fn check_global_var(cx: &mut Ctx, v: &VarDecl) {
    if matches!(v.space, Space::Shared | Space::Private) {
        let msg = format!(
            "`.{}` variables must be declared inside a kernel or function",
            v.space.name()
        );
        cx.rep.error(v.space_span, "space-scope", msg);
    }
    check_var(cx, v);
}

/// Rules shared by module-scope and function-scope memory variables.
pub fn check_var(cx: &mut Ctx, v: &VarDecl) {
    if let Some((a, span)) = v.align {
        check_pow2(cx, a, span, "`.align`");
    }
    for a in &v.attrs {
        match (a.name.as_str(), a.args.as_slice()) {
            ("section" | "host_access", [AttrArg::Str(..)]) => {}
            ("section" | "host_access", _) => {
                let msg = format!("`.{}` takes one string: `.{}(\"NAME\")`", a.name, a.name);
                cx.rep.error(a.span, "attribute", msg);
            }
            _ => {
                let msg = format!(
                    "unknown variable attribute `.{}` (known: `.align`, `.section`, `.host_access`)",
                    a.name
                );
                cx.rep.error(a.span, "attribute", msg);
            }
        }
    }
    match (&v.init, v.linkage) {
        (Some(_), Linkage::Import) => cx.rep.error(
            v.init_span,
            "import-initializer",
            "an `.import` variable is defined in another module and has no initializer",
        ),
        (None, Linkage::Import) => {}
        (None, _) if v.space == Space::Const => cx.rep.error(
            v.name_span,
            "const-initializer",
            "a `.const` variable needs an initializer",
        ),
        _ => {}
    }
    if let Some(init) = &v.init {
        check_initializer(cx, v, init);
    } else if v.size.is_none() {
        cx.rep.error(
            v.name_span,
            "initializer-size",
            "a variable without an initializer needs its size in bytes: `@name[N]`",
        );
    }
}

fn check_initializer(cx: &mut Ctx, v: &VarDecl, init: &[InitElem]) {
    if let Some((size, size_span)) = v.size {
        let bytes = init_bytes(init);
        if bytes != size {
            let msg = format!(
                "the initializer holds {bytes} bytes but `@{}` is declared with {size}",
                cx.name(v.name)
            );
            cx.rep
                .error(v.init_span.to(size_span), "initializer-size", msg);
        }
    }
    for e in init {
        match e {
            InitElem::Int { bits, span, .. } if *bits > 64 => cx.rep.error(
                *span,
                "initializer-element",
                "initializer elements are `.8b`, `.16b`, `.32b` or `.64b`",
            ),
            InitElem::Symbol {
                bits, name, span, ..
            } => {
                if *bits != 64 {
                    cx.rep.error(
                        *span,
                        "initializer-element",
                        "a symbol initializer is a 64-bit address: write `.64b @sym`",
                    );
                }
                if !cx.globals.contains_key(name) {
                    let msg = format!(
                        "`@{}` is not a module-scope variable or function",
                        cx.name(*name)
                    );
                    cx.rep.error(*span, "undefined-symbol", msg);
                }
            }
            _ => {}
        }
    }
}

pub fn check_pow2(cx: &mut Ctx, a: u64, span: crate::diag::Span, what: &str) {
    if !a.is_power_of_two() {
        let msg = format!("{what} must be a power of two, not {a}");
        cx.rep.error(span, "align-power-of-two", msg);
    }
}

pub fn check_signature(cx: &mut Ctx, f: &FuncDecl) {
    match (f.linkage, &f.body) {
        (Linkage::Import, Some(b)) => cx.rep.error(
            b.open,
            "import-body",
            "an `.import` function is defined in another module: declare it without a body",
        ),
        (Linkage::Import, None) => {}
        (_, None) => cx.rep.error(
            f.name_span,
            "import-body",
            "a function without a body must be declared `.import`",
        ),
        _ => {}
    }
    for a in &f.attrs {
        check_func_attr(cx, f.kind, a);
    }
    for p in &f.params {
        match (f.kind, p.kind) {
            (_, ParamKind::Pred) => cx.rep.error(
                p.span,
                "pred-argument",
                "predicates cannot be function arguments",
            ),
            (FuncKind::Kernel, ParamKind::Reg(_)) => cx.rep.error(
                p.span,
                "syntax",
                "kernel parameters are declared `.param[N] %name`",
            ),
            (FuncKind::Function, ParamKind::Param(_)) => cx.rep.error(
                p.span,
                "syntax",
                "function parameters are declared `.reg TYPE %name`",
            ),
            _ => {}
        }
        if p.name.is_none() && f.body.is_some() {
            cx.rep.error(
                p.span,
                "syntax",
                "parameters of a defined function need names",
            );
        }
        for a in &p.attrs {
            check_param_attr(cx, a);
        }
    }
}

fn int_args(a: &Attr) -> Option<Vec<u64>> {
    a.args
        .iter()
        .map(|x| match x {
            AttrArg::Int(n, _) => Some(*n),
            _ => None,
        })
        .collect()
}

fn check_func_attr(cx: &mut Ctx, kind: FuncKind, a: &Attr) {
    let ok = match (kind, a.name.as_str()) {
        (FuncKind::Kernel, "reqd_work_group_size") => {
            matches!(int_args(a).as_deref(), Some([x, y, z]) if *x > 0 && *y > 0 && *z > 0)
        }
        (FuncKind::Kernel, "vec_type_hint") => {
            matches!(a.args.as_slice(), [AttrArg::Ident(..)])
        }
        _ => {
            let msg = format!(
                "unknown {} attribute `.{}`{}",
                if kind == FuncKind::Kernel {
                    "kernel"
                } else {
                    "function"
                },
                a.name,
                if kind == FuncKind::Kernel {
                    " (known: `.reqd_work_group_size(X, Y, Z)`, `.vec_type_hint(TYPE)`)"
                } else {
                    ""
                }
            );
            cx.rep.error(a.span, "attribute", msg);
            return;
        }
    };
    if !ok {
        let msg = match a.name.as_str() {
            "reqd_work_group_size" => {
                "expected `.reqd_work_group_size(X, Y, Z)` with sizes of at least 1"
            }
            _ => "expected `.vec_type_hint(TYPE)` with an OpenCL type name such as `int2`",
        };
        cx.rep.error(a.span, "attribute", msg);
    }
}

fn check_param_attr(cx: &mut Ctx, a: &Attr) {
    match (a.name.as_str(), a.args.as_slice()) {
        ("align" | "ptr_align", [AttrArg::Int(n, s)]) => {
            let what = format!("`.{}`", a.name);
            check_pow2(cx, *n, *s, &what);
        }
        ("addrspace", [AttrArg::Ident(s, _)])
            if matches!(s.as_str(), "global" | "shared" | "const") => {}
        // printed by Intel's LLVM backend, not in the spec (docs/spec-notes.md)
        ("access", [AttrArg::Ident(s, _)])
            if matches!(
                s.as_str(),
                "readonly" | "writeonly" | "readwrite" | "read_only" | "write_only" | "read_write"
            ) => {}
        _ => {
            let msg = format!(
                "unknown or malformed parameter attribute `.{}` (known: `.align(N)`, `.addrspace(global|shared|const)`, `.ptr_align(N)`, `.access(readonly|writeonly|readwrite)`)",
                a.name
            );
            cx.rep.error(a.span, "attribute", msg);
        }
    }
}
