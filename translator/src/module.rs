//! The validated module: the syntax tree after every rule of the spec has been
//! checked, with each instruction bound to its catalog form. Only
//! [`crate::assemble`] makes one, so holding a `Module` means holding a valid
//! program: its contents are private to this crate, and later stages read it
//! through [`crate::ir::build`] (the IR) without re-checking anything.

use crate::syntax::ast::{FuncDecl, Item, SourceAst, VarDecl};

#[derive(Debug)]
pub struct Module {
    pub(crate) version: String,
    pub(crate) target: String,
    pub(crate) ast: SourceAst,
    /// Warnings found while validating (errors make `assemble` fail instead).
    pub(crate) warnings: crate::Diagnostics,
    /// Where each span of `source` came from (one file, or several linked).
    pub(crate) map: crate::source_map::SourceMap,
    /// The source text (the reference interpreter quotes instructions from
    /// it); for a linked module, the linked text `pisa link` prints.
    pub(crate) source: String,
}

impl Module {
    /// The name the program goes by: its (first) file's name.
    pub fn file(&self) -> &str {
        self.map.program_name()
    }
    /// Where spans of [`Module::source`] came from.
    pub fn source_map(&self) -> &crate::source_map::SourceMap {
        &self.map
    }
    /// `file:line:col` of a span, in the file it came from.
    pub fn describe(&self, span: crate::diag::Span) -> String {
        self.map.describe(span)
    }
    /// `.version` as written.
    pub fn version(&self) -> &str {
        &self.version
    }
    /// `.target` as written.
    pub fn target(&self) -> &str {
        &self.target
    }
    /// The source text the module was assembled from.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// Warnings found while validating.
    pub fn warnings(&self) -> &crate::Diagnostics {
        &self.warnings
    }
    pub(crate) fn functions(&self) -> impl Iterator<Item = &FuncDecl> {
        self.ast.items.iter().filter_map(|i| match i {
            Item::Func(f) => Some(f),
            Item::Var(_) => None,
        })
    }
    pub(crate) fn globals(&self) -> impl Iterator<Item = &VarDecl> {
        self.ast.items.iter().filter_map(|i| match i {
            Item::Var(v) => Some(v),
            Item::Func(_) => None,
        })
    }
    /// 1-based line and byte column of a span in the file it came from.
    pub fn line_col(&self, span: crate::diag::Span) -> (u32, u32) {
        self.map.line_col(span)
    }
    /// The text of an interned name.
    pub fn name(&self, n: crate::syntax::ast::Name) -> &str {
        self.ast.interner.resolve(n)
    }
}
