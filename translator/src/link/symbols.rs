//! The linker's symbol pass: every module's exports, kernels, imports and
//! internal symbols; the link-time errors (spec 06 §2.5.2, 08 §4.3.1,
//! 10 §6.1) as located diagnostics in the file that has the problem; and the
//! [`Plan`] the splicer follows: which `.import` declarations disappear and
//! which internal symbols get a new name.
//!
//! Exported symbols and kernels share one program-wide namespace (the host
//! launches kernels by name). Internal symbols stay private to their module:
//! one whose name another module also uses is renamed `@name.N` (N the
//! module's position, 1-based), the way LLVM's linker renames internal
//! symbols, so the linked text is again one valid module.

use super::compat;
use super::Input;
use crate::diag::{Diagnostics, Reporter, Span};
use crate::syntax::ast::{Block, FuncDecl, FuncKind, Item, Linkage, ParamKind, Stmt, Ty, VarDecl};
use crate::validate::var_size;
use crate::Module;
use std::collections::{HashMap, HashSet};

/// What the splicer does to each module (indexes as the inputs).
#[derive(Debug, Default)]
pub struct Plan {
    pub version: String,
    pub target: String,
    /// Per module: internal symbols that get a new name (old → new).
    pub renames: Vec<HashMap<String, String>>,
    /// Per module: the start of each `.import` declaration, which the
    /// linked text leaves out (its definition comes from another module).
    pub dropped_imports: Vec<Vec<Span>>,
}

/// A module-scope definition visible to other modules.
struct Global<'m> {
    module: usize,
    name_span: Span,
    decl: Decl<'m>,
}

#[derive(Clone, Copy)]
enum Decl<'m> {
    Var(&'m VarDecl),
    Func(&'m FuncDecl),
}

impl Decl<'_> {
    fn is_kernel(&self) -> bool {
        matches!(self, Decl::Func(f) if f.kind == FuncKind::Kernel)
    }
}

pub fn plan(modules: &[Module], inputs: &[Input]) -> Result<Plan, Diagnostics> {
    let mut reps: Vec<Reporter> = inputs
        .iter()
        .map(|i| Reporter::new(i.name, i.text))
        .collect();
    let at = |m: usize, span: Span| modules[m].describe(span);
    let mut plan = Plan::default();

    // .version: one major (10 §6.1.1); .target: one that runs them all (§6.1.2)
    let headers: Vec<_> = modules.iter().map(header_spans).collect();
    let major0 = compat::major(modules[0].version());
    for (j, m) in modules.iter().enumerate().skip(1) {
        if compat::major(m.version()) != major0 {
            reps[j].error_with_note(
                headers[j].0,
                "link-version",
                format!(
                    "`.version {}` has another major version than `.version {}` of {}",
                    m.version(),
                    modules[0].version(),
                    modules[0].file()
                ),
                format!("{} declares it here", at(0, headers[0].0)),
            );
        }
    }
    let targets: Vec<&str> = modules.iter().map(|m| m.target()).collect();
    plan.version = modules[0].version().to_string();
    match compat::program_target(&targets) {
        Ok(i) => plan.target = targets[i].to_string(),
        Err((j, other)) => reps[j].error_with_note(
            headers[j].1,
            "link-target",
            format!(
                "`.target {}` is incompatible with `.target {}` of {}: no target runs both",
                targets[j],
                targets[other],
                modules[other].file()
            ),
            format!("{} declares it here", at(other, headers[other].1)),
        ),
    }

    // exports and kernels: one namespace for the whole program
    let mut globals: HashMap<&str, Global> = HashMap::new();
    for (i, m) in modules.iter().enumerate() {
        for item in &m.ast.items {
            let (decl, linkage, name, name_span) = match item {
                Item::Var(v) => (Decl::Var(v), v.linkage, v.name, v.name_span),
                Item::Func(f) => (Decl::Func(f), f.linkage, f.name, f.name_span),
            };
            if linkage != Linkage::Export && !decl.is_kernel() {
                continue;
            }
            let name = m.name(name);
            if let Some(first) = globals.get(name) {
                let what = if decl.is_kernel() && first.decl.is_kernel() {
                    "two kernels are named"
                } else {
                    "two modules define the exported name"
                };
                reps[i].error_with_note(
                    name_span,
                    "link-duplicate",
                    format!("{what} `@{name}`"),
                    format!("the other one is at {}", at(first.module, first.name_span)),
                );
                continue;
            }
            globals.insert(
                name,
                Global {
                    module: i,
                    name_span,
                    decl,
                },
            );
        }
    }

    // imports: each resolves to an export of the same kind and signature
    for (i, m) in modules.iter().enumerate() {
        let mut dropped = Vec::new();
        for item in &m.ast.items {
            let (decl, linkage, name, name_span, span) = match item {
                Item::Var(v) => (Decl::Var(v), v.linkage, v.name, v.name_span, v.span),
                Item::Func(f) => (Decl::Func(f), f.linkage, f.name, f.name_span, f.span),
            };
            if linkage != Linkage::Import {
                continue;
            }
            dropped.push(span);
            let name = m.name(name);
            let Some(def) = globals.get(name) else {
                reps[i].error_with_note(
                    name_span,
                    "link-unresolved",
                    format!(
                        "unresolved import `@{name}`: {} needs it and no module exports it",
                        m.file()
                    ),
                    format!(
                        "linked: {}",
                        modules
                            .iter()
                            .map(|m| m.file())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                continue;
            };
            let dm = &modules[def.module];
            let mismatch = match (decl, def.decl) {
                (Decl::Func(_), Decl::Func(e)) if e.kind == FuncKind::Kernel => {
                    Some("a kernel cannot be imported as a function".to_string())
                }
                (Decl::Func(f), Decl::Func(e)) => (f.ret != e.ret
                    || f.params.len() != e.params.len()
                    || f.params
                        .iter()
                        .zip(&e.params)
                        .any(|(a, b)| a.kind != b.kind))
                .then(|| {
                    format!(
                        "imported as `{}` but exported as `{}`",
                        func_signature(m, f),
                        func_signature(dm, e)
                    )
                }),
                (Decl::Var(v), Decl::Var(e)) => var_mismatch(m, v, dm, e),
                (Decl::Var(_), Decl::Func(_)) => {
                    Some("imported as a variable but defined as a function".to_string())
                }
                (Decl::Func(_), Decl::Var(_)) => {
                    Some("imported as a function but defined as a variable".to_string())
                }
            };
            if let Some(why) = mismatch {
                reps[i].error_with_note(
                    name_span,
                    "link-mismatch",
                    format!("`@{name}` does not match its definition: {why}"),
                    format!("the definition is at {}", at(def.module, def.name_span)),
                );
            }
        }
        plan.dropped_imports.push(dropped);
    }

    // host names (`.host_access`, export names) name one variable each
    let mut host_names: HashMap<String, (usize, Span)> = HashMap::new();
    for (i, m) in modules.iter().enumerate() {
        for v in host_named_vars(m) {
            let Some(host) = host_name(m, v) else {
                continue;
            };
            if let Some(&(first, span)) = host_names.get(&host) {
                if first != i {
                    reps[i].error_with_note(
                        v.name_span,
                        "link-host-name",
                        format!("two variables go by the host name \"{host}\""),
                        format!("the other one is at {}", at(first, span)),
                    );
                }
                continue;
            }
            host_names.insert(host, (i, v.name_span));
        }
    }

    // internal symbols: renamed where another module uses the name
    let mut all: HashMap<&str, usize> = HashMap::new();
    let per_module: Vec<Vec<&str>> = modules.iter().map(internal_names).collect();
    for names in &per_module {
        for n in names {
            *all.entry(n).or_default() += 1;
        }
    }
    let mut taken: HashSet<String> = globals.keys().map(|s| s.to_string()).collect();
    taken.extend(all.keys().map(|s| s.to_string()));
    for (i, names) in per_module.iter().enumerate() {
        let mut renames = HashMap::new();
        for &n in names {
            let clash = globals.contains_key(n) || all[n] > 1;
            // the first module that uses an internal name keeps it
            let first_user = per_module[..i].iter().all(|earlier| !earlier.contains(&n));
            if !clash || (first_user && !globals.contains_key(n)) {
                continue;
            }
            let mut fresh = format!("{n}.{}", i + 1);
            let mut k = 2;
            while taken.contains(&fresh) {
                fresh = format!("{n}.{}.{k}", i + 1);
                k += 1;
            }
            taken.insert(fresh.clone());
            renames.insert(n.to_string(), fresh);
        }
        plan.renames.push(renames);
    }

    let mut diags = Diagnostics::default();
    for r in reps {
        diags.0.extend(r.finish().0);
    }
    if diags.has_errors() {
        Err(diags)
    } else {
        Ok(plan)
    }
}

/// The spans of a module's `.version` and `.target` statements.
fn header_spans(m: &Module) -> (Span, Span) {
    use crate::syntax::ast::HeaderStmt;
    let mut out = (Span::default(), Span::default());
    for h in &m.ast.header_order {
        match h {
            HeaderStmt::Version(_, s) => out.0 = *s,
            HeaderStmt::Target(_, s) => out.1 = *s,
            HeaderStmt::Other(_) => {}
        }
    }
    out
}

/// Names private to a module: its internal module-scope symbols and every
/// function-scope variable (06 §2.5.2: one name per symbol in a module).
fn internal_names(m: &Module) -> Vec<&str> {
    fn block_vars<'a>(m: &'a Module, b: &Block, out: &mut Vec<&'a str>) {
        for s in &b.stmts {
            match s {
                Stmt::Var(v) => out.push(m.name(v.name)),
                Stmt::Block(inner) => block_vars(m, inner, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for item in &m.ast.items {
        match item {
            Item::Var(v) if v.linkage == Linkage::Internal => out.push(m.name(v.name)),
            Item::Func(f) => {
                if f.linkage == Linkage::Internal && f.kind == FuncKind::Function {
                    out.push(m.name(f.name));
                }
                if let Some(b) = &f.body {
                    block_vars(m, b, &mut out);
                }
            }
            Item::Var(_) => {}
        }
    }
    out
}

/// The variables of a module that may have a host name: its module-scope
/// definitions and every function-scope variable.
fn host_named_vars(m: &Module) -> Vec<&VarDecl> {
    fn block_vars<'a>(b: &'a Block, out: &mut Vec<&'a VarDecl>) {
        for s in &b.stmts {
            match s {
                Stmt::Var(v) => out.push(v),
                Stmt::Block(inner) => block_vars(inner, out),
                _ => {}
            }
        }
    }
    let mut out: Vec<&VarDecl> = m
        .globals()
        .filter(|v| v.linkage != Linkage::Import)
        .collect();
    for f in m.functions() {
        if let Some(b) = &f.body {
            block_vars(b, &mut out);
        }
    }
    out
}

/// `.host_access("NAME")`, or the export name (what the runtime offers the host).
fn host_name(m: &Module, v: &VarDecl) -> Option<String> {
    use crate::syntax::ast::AttrArg;
    v.attrs
        .iter()
        .find(|a| a.name == "host_access")
        .and_then(|a| match a.args.first() {
            Some(AttrArg::Str(s, _)) => Some(s.clone()),
            _ => None,
        })
        .or_else(|| (v.linkage == Linkage::Export).then(|| m.name(v.name).to_string()))
}

fn var_mismatch(m: &Module, v: &VarDecl, dm: &Module, e: &VarDecl) -> Option<String> {
    let describe = |m: &Module, v: &VarDecl| {
        let align = v
            .align
            .map_or(String::new(), |(a, _)| format!(" .align {a}"));
        let size = var_size(v).map_or(String::new(), |s| format!("[{s}]"));
        format!(".{}{align} @{}{size}", v.space.name(), m.name(v.name))
    };
    let wrong = v.space != e.space
        || var_size(v).is_some_and(|s| Some(s) != var_size(e))
        || v.align.map_or(1, |a| a.0) > e.align.map_or(1, |a| a.0);
    wrong.then(|| {
        format!(
            "imported as `{}` but defined as `{}`",
            describe(m, v),
            describe(dm, e)
        )
    })
}

fn func_signature(m: &Module, f: &FuncDecl) -> String {
    let ret = f.ret.map_or("void".to_string(), |t: Ty| t.to_string());
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Reg(t) => format!(".reg {t}"),
            ParamKind::Pred => ".pred".to_string(),
            ParamKind::Param(n) => format!(".param[{n}]"),
        })
        .collect();
    format!(".function {ret} @{}({})", m.name(f.name), params.join(", "))
}
