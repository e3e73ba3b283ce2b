//! Module-scope rules: symbol uniqueness, variable declarations and their
//! initializers, attributes, and function/kernel signatures (spec 06, 08).

use super::limits::{self, MAX_ALIGN, MAX_ARENA_BYTES, MAX_DATA_BYTES, MAX_PARAM_BYTES};
use super::{Ctx, Global, Signature};
use crate::diag::Span;
use crate::syntax::ast::*;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

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

/// The declared size, or the initializer's size when `[N]` is omitted (an
/// initializer whose size overflows 64 bits counts as `u64::MAX` bytes,
/// which the validator rejects).
pub fn var_size(v: &VarDecl) -> Option<u64> {
    v.size.map(|(n, _)| n).or_else(|| {
        v.init
            .as_ref()
            .map(|i| limits::init_bytes(i).unwrap_or(u64::MAX))
    })
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
        check_align(cx, a, span, "`.align`");
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
    let Some(bytes) = limits::init_bytes(init) else {
        let msg = format!(
            "the initializer of `@{}` holds more than 2^64 bytes",
            cx.name(v.name)
        );
        cx.rep.error(v.init_span, "size-limit", msg);
        return;
    };
    if let Some((size, size_span)) = v.size {
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

/// An alignment: a power of two (spec 06 §2.4.1, 08 §4.2.1) of at most
/// [`MAX_ALIGN`] bytes (docs/spec-notes.md).
pub fn check_align(cx: &mut Ctx, a: u64, span: Span, what: &str) {
    if !a.is_power_of_two() {
        let msg = format!("{what} must be a power of two, not {a}");
        cx.rep.error(span, "align-power-of-two", msg);
    } else if a > MAX_ALIGN {
        let msg = format!("{what} is {a} bytes; alignments are at most {MAX_ALIGN} bytes");
        cx.rep.error(span, "align-limit", msg);
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
    if f.kind == FuncKind::Kernel {
        check_argument_block(cx, f);
    }
}

/// A kernel's `.param`s, laid out as docs/abi.md says (each at the next
/// multiple of its `.align(N)`, default 8), fit [`MAX_PARAM_BYTES`].
fn check_argument_block(cx: &mut Ctx, f: &FuncDecl) {
    let mut used = 0u64;
    for p in &f.params {
        let ParamKind::Param(size) = p.kind else {
            continue;
        };
        let align = p
            .attrs
            .iter()
            .find(|a| a.name == "align")
            .and_then(|a| match a.args.first() {
                Some(AttrArg::Int(n, _)) => Some(*n),
                _ => None,
            })
            .unwrap_or(8)
            .min(MAX_ALIGN);
        let end = limits::place(used, size, align).map(|(_, end)| end);
        match end {
            Some(end) if end <= MAX_PARAM_BYTES => used = end,
            _ => {
                let msg = if size > MAX_PARAM_BYTES {
                    format!(
                        "`.param[{size}]` is larger than the maximum kernel argument block of {MAX_PARAM_BYTES} bytes"
                    )
                } else {
                    format!(
                        "the argument block of `@{}` grows past {MAX_PARAM_BYTES} bytes (the most a kernel's parameters may take) with this parameter",
                        cx.name(f.name)
                    )
                };
                cx.rep.error(p.span, "size-limit", msg);
                return;
            }
        }
    }
}

/// The module's memory fits the maximums of docs/spec-notes.md: the data
/// block (`.global` and `.const`), the `.shared` arena and the `.private`
/// arena, each laid out as [`crate::spirv::layout`] does (module-scope
/// variables first, then each function's in source order, nested blocks
/// included, each at the next multiple of its alignment). The variable
/// that first crosses a maximum is reported, once per space.
pub fn check_layout(cx: &mut Ctx, items: &[Item]) {
    fn collect<'a>(b: &'a Block, out: &mut Vec<&'a VarDecl>) {
        for s in &b.stmts {
            match s {
                Stmt::Var(v) => out.push(v),
                Stmt::Block(inner) => collect(inner, out),
                _ => {}
            }
        }
    }
    let mut vars: Vec<&VarDecl> = items
        .iter()
        .filter_map(|i| match i {
            Item::Var(v) => Some(v),
            Item::Func(_) => None,
        })
        .collect();
    for i in items {
        if let Item::Func(f) = i {
            if let Some(b) = &f.body {
                collect(b, &mut vars);
            }
        }
    }
    // used bytes of the data block, `.shared` and `.private`; `None` once reported
    let mut used = [Some(0u64); 3];
    for v in vars {
        let (slot, max, what) = match v.space {
            Space::Global | Space::Const => (
                0,
                MAX_DATA_BYTES,
                "the data block (the module's `.global` and `.const` variables)",
            ),
            Space::Shared => (1, MAX_ARENA_BYTES, "the `.shared` variables of the module"),
            Space::Private => (2, MAX_ARENA_BYTES, "the `.private` variables of the module"),
        };
        let Some(before) = used[slot] else { continue };
        let size = var_size(v).unwrap_or(0);
        // an alignment past its own maximum is reported already
        let align = v.align.map_or(1, |a| a.0).min(MAX_ALIGN);
        match limits::place(before, size, align) {
            Some((_, end)) if end <= max => used[slot] = Some(end),
            end => {
                let need = match end {
                    Some((_, end)) => format!("{end} bytes"),
                    None => "over 2^64 bytes".to_string(),
                };
                let msg = format!(
                    "`@{}` ({size} bytes) makes {what} {need}, more than the maximum of {max} bytes",
                    cx.name(v.name)
                );
                let span = v.size.map_or(v.name_span, |(_, s)| v.name_span.to(s));
                cx.rep.error(span, "size-limit", msg);
                used[slot] = None;
            }
        }
    }
}

/// A host name (`.host_access("NAME")`, or an exported variable's own name)
/// names one variable of the module (spec 06 §2.5.3): the runtime finds
/// variables by it.
pub fn check_host_names(cx: &mut Ctx, items: &[Item]) {
    fn collect<'a>(b: &'a Block, out: &mut Vec<&'a VarDecl>) {
        for s in &b.stmts {
            match s {
                Stmt::Var(v) => out.push(v),
                Stmt::Block(inner) => collect(inner, out),
                _ => {}
            }
        }
    }
    let mut vars = Vec::new();
    for i in items {
        match i {
            Item::Var(v) if v.linkage != Linkage::Import => vars.push(v),
            Item::Var(_) => {}
            Item::Func(f) => {
                if let Some(b) = &f.body {
                    collect(b, &mut vars);
                }
            }
        }
    }
    let mut seen: HashMap<String, Span> = HashMap::new();
    for v in vars {
        let Some((host, span)) = host_name(cx, v) else {
            continue;
        };
        match seen.entry(host) {
            Entry::Occupied(e) => {
                let (line, col) = cx.rep.line_col(*e.get());
                let msg = format!("two variables go by the host name \"{}\"", e.key());
                cx.rep.error_with_note(
                    span,
                    "duplicate-host-name",
                    msg,
                    format!("the other one is at line {line}, column {col}"),
                );
            }
            Entry::Vacant(e) => {
                e.insert(span);
            }
        }
    }
}

/// `.host_access("NAME")` and where it is written, or the name of an
/// exported variable.
fn host_name(cx: &Ctx, v: &VarDecl) -> Option<(String, Span)> {
    v.attrs
        .iter()
        .find(|a| a.name == "host_access")
        .and_then(|a| match a.args.first() {
            Some(AttrArg::Str(s, _)) => Some((s.clone(), a.span)),
            _ => None,
        })
        .or_else(|| {
            (v.linkage == Linkage::Export).then(|| (cx.name(v.name).to_string(), v.name_span))
        })
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
            matches!(int_args(a).as_deref(), Some(s @ [_, _, _]) if s.iter().all(|n| (1..=u32::MAX as u64).contains(n)))
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
                "expected `.reqd_work_group_size(X, Y, Z)` with sizes from 1 to 4294967295"
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
            check_align(cx, *n, *s, &what);
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
