//! The validated module: the syntax tree after every rule of the spec has been
//! checked, with each instruction bound to its catalog form. Later stages rely
//! on these guarantees and do not re-check them.

use crate::syntax::ast::{FuncDecl, Item, SourceAst, VarDecl};

#[derive(Debug)]
pub struct Module {
    /// The file name diagnostics and debug info use.
    pub file: String,
    pub version: String,
    pub target: String,
    pub ast: SourceAst,
    /// Warnings found while validating (errors make `assemble` fail instead).
    pub warnings: crate::Diagnostics,
    /// Byte offset where each source line starts (for debug info and errors).
    pub line_starts: Vec<u32>,
}

impl Module {
    pub fn functions(&self) -> impl Iterator<Item = &FuncDecl> {
        self.ast.items.iter().filter_map(|i| match i {
            Item::Func(f) => Some(f),
            Item::Var(_) => None,
        })
    }
    pub fn globals(&self) -> impl Iterator<Item = &VarDecl> {
        self.ast.items.iter().filter_map(|i| match i {
            Item::Var(v) => Some(v),
            Item::Func(_) => None,
        })
    }
    /// 1-based line and byte column of a source offset.
    pub fn line_col(&self, span: crate::diag::Span) -> (u32, u32) {
        let line = self
            .line_starts
            .partition_point(|&s| s <= span.start)
            .max(1);
        (line as u32, span.start - self.line_starts[line - 1] + 1)
    }
    pub fn name(&self, n: crate::syntax::ast::Name) -> &str {
        self.ast.interner.resolve(n)
    }
}
