//! Validation: enforces every declaration, program and instruction rule of the
//! spec and turns a syntax tree into a [`Module`]. Each concern has its file:
//! module-scope declarations ([`decls`]), function bodies and scopes ([`body`]),
//! operand resolution ([`operands`]), catalog-driven instruction checks
//! ([`instr`]) and the maximums on sizes and alignments ([`limits`]).

mod body;
mod decls;
mod instr;
pub mod limits;
mod operands;

pub use decls::var_size;

use crate::catalog::{catalog, Catalog};
use crate::diag::{Diagnostics, Reporter, Span};
use crate::syntax::ast::*;
use crate::Module;
use rustc_hash::FxHashMap as HashMap;

pub const KNOWN_VERSIONS: &[&str] = &["0.1"];
pub const KNOWN_TARGETS: &[&str] = &["100", "100c", "100ca"];

/// What a module-scope `@name` refers to.
#[derive(Debug, Clone)]
pub enum Global {
    Var { space: Space, size: Option<u64> },
    Func(Signature),
}

#[derive(Debug, Clone)]
pub struct Signature {
    pub kind: FuncKind,
    pub ret: Option<Ty>,
    pub params: Vec<ParamKind>,
}

/// Catalog forms a mnemonic matches, each with the value index chosen per
/// qualifier slot.
pub(crate) type Candidates = std::rc::Rc<[(usize, [u8; 8])]>;

pub(crate) struct Ctx<'a> {
    pub src: &'a str,
    pub rep: Reporter<'a>,
    pub cat: &'static Catalog,
    pub interner: Interner,
    pub globals: HashMap<Name, Global>,
    /// The forms each mnemonic text seen so far matches by its qualifiers,
    /// with the value chosen for each slot (`instr::check`): a module
    /// repeats few mnemonics many times.
    pub forms_by_mnemonic: HashMap<Box<str>, Candidates>,
    /// The operand values of the instruction being checked (kept to reuse
    /// its allocation).
    pub vals: Vec<operands::Val>,
    /// The form each clean instruction matched, by everything its check
    /// reads ([`instr::check`]): a module repeats few instruction shapes
    /// many times, and a repeat then costs one lookup.
    pub clean: HashMap<Box<[u8]>, FormRef>,
    /// The key of the instruction being checked (kept to reuse its
    /// allocation).
    pub key: Vec<u8>,
}

impl Ctx<'_> {
    pub fn text(&self, s: Span) -> &str {
        self.src
            .get(s.start as usize..s.end as usize)
            .unwrap_or_default()
    }
    pub fn name(&self, n: Name) -> &str {
        self.interner.resolve(n)
    }
}

pub fn assemble(file: &str, source: &str) -> Result<Module, Diagnostics> {
    let (version, target, ast, warnings) = check(file, source)?;
    Ok(Module {
        map: crate::source_map::SourceMap::single(file, source),
        source: source.to_string(),
        version,
        target,
        ast,
        warnings,
    })
}

/// [`assemble`] for a text the caller gives up: it becomes the module's
/// source without a copy (a large module's text is a tenth of checking it).
pub fn assemble_owned(file: &str, source: String) -> Result<Module, Diagnostics> {
    let (version, target, ast, warnings) = check(file, &source)?;
    Ok(Module {
        map: crate::timing::phase("source map", || {
            crate::source_map::SourceMap::single(file, &source)
        }),
        source,
        version,
        target,
        ast,
        warnings,
    })
}

/// Parses and validates `source`: its header's version and target, the
/// syntax tree and the warnings, or every error.
fn check(
    file: &str,
    source: &str,
) -> Result<(String, String, SourceAst, Diagnostics), Diagnostics> {
    let mut rep = Reporter::new(file, source);
    let mut ast = crate::timing::phase("parse", || crate::syntax::parse(source, &mut rep));
    let validating = crate::timing::start("validate");
    let (version, target) = header(&ast.header_order, &mut rep);
    let mut cx = Ctx {
        src: source,
        rep,
        cat: catalog(),
        interner: std::mem::take(&mut ast.interner),
        globals: HashMap::default(),
        forms_by_mnemonic: HashMap::default(),
        vals: Vec::new(),
        clean: HashMap::default(),
        key: Vec::new(),
    };
    decls::collect_globals(&mut cx, &ast.items);
    for item in &mut ast.items {
        match item {
            Item::Var(v) => decls::check_global_var(&mut cx, v),
            Item::Func(f) => {
                decls::check_signature(&mut cx, f);
                body::check_function(&mut cx, f);
            }
        }
    }
    decls::check_layout(&mut cx, &ast.items);
    decls::check_host_names(&mut cx, &ast.items);
    ast.interner = cx.interner;
    drop(validating);
    let diags = cx.rep.finish();
    if diags.has_errors() {
        return Err(diags);
    }
    Ok((version, target, ast, diags))
}

/// `.version` first, `.target` second, both known (spec 10 §6.1).
fn header(order: &[HeaderStmt], rep: &mut Reporter) -> (String, String) {
    let mut version = String::new();
    let mut target = String::new();
    for (i, stmt) in order.iter().enumerate() {
        match (i, stmt) {
            (0, HeaderStmt::Version(v, s)) => {
                if v == "1.0" {
                    rep.warning(
                        *s,
                        "version-alias",
                        "`.version 1.0` (what Intel's LLVM backend prints) is read as PISA 0.1",
                    );
                } else if !KNOWN_VERSIONS.contains(&v.as_str()) {
                    rep.error(
                        *s,
                        "unknown-version",
                        format!(
                            "unknown PISA version `{v}` (known: {})",
                            KNOWN_VERSIONS.join(", ")
                        ),
                    );
                }
                version = v.clone();
            }
            (1, HeaderStmt::Target(t, s)) => {
                if !KNOWN_TARGETS.contains(&t.as_str()) {
                    rep.error(
                        *s,
                        "unknown-target",
                        format!(
                            "unknown PISA target `{t}` (known: {})",
                            KNOWN_TARGETS.join(", ")
                        ),
                    );
                }
                target = t.clone();
            }
            (0, HeaderStmt::Target(_, s) | HeaderStmt::Other(s)) => rep.error(
                *s,
                "version-first",
                "`.version` must be the first statement of a module",
            ),
            (1, HeaderStmt::Version(_, s) | HeaderStmt::Other(s)) if !version.is_empty() => rep
                .error(
                    *s,
                    "target-second",
                    "`.target` must be the second statement of a module",
                ),
            (_, HeaderStmt::Version(_, s)) if i > 0 => rep.error(
                *s,
                "version-first",
                "`.version` must be the first statement of a module (and appear once)",
            ),
            (_, HeaderStmt::Target(_, s)) if i != 1 => rep.error(
                *s,
                "target-second",
                "`.target` must be the second statement of a module (and appear once)",
            ),
            _ => {}
        }
    }
    if order.is_empty() {
        rep.error(
            Span::default(),
            "version-first",
            "empty module: a module starts with `.version` and `.target`",
        );
    }
    (version, target)
}
