//! Front end: text → tokens → AST. No semantic checks happen here beyond what
//! the grammar itself demands; [`crate::validate`] enforces the spec's rules.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::parse;
