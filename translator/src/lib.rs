//! PISA assembler, validator and (later) SPIR-V translator.
//!
//! The pipeline flows one way: text → [`syntax`] (tokens, AST) → [`validate`]
//! (catalog-driven checks) → [`Module`], a validated module that later stages
//! trust without re-checking → [`ir`] and its passes ([`ir::pipeline`]) →
//! [`spirv`] ([`compile`]).

#![forbid(unsafe_code)]

pub mod abi;
pub mod catalog;
pub mod diag;
pub mod ir;
pub mod link;
pub mod module;
pub mod source_map;
pub mod spirv;
pub mod syntax;
pub mod timing;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use module::Module;

/// Translates a validated module to SPIR-V: its IR ([`ir::lower`]) goes
/// through the IR pipeline for the options' target
/// ([`ir::pipeline::Pipeline::for_target`]), then the finished IR to the
/// SPIR-V back end ([`spirv::translate_program`]), which runs no pass.
pub fn compile(
    m: &Module,
    options: &spirv::Options,
) -> Result<spirv::Spirv, spirv::TranslateError> {
    let mut program = ir::lower(m);
    ir::pipeline::Pipeline::for_target(&options.target()).run(&mut program)?;
    spirv::translate_program(&program, options)
}

/// Assembles and validates one PISA source file.
///
/// `name` is what diagnostics print as the file name. On failure every independent
/// error of the file is returned, sorted by position; warnings do not fail.
pub fn assemble(name: &str, source: &str) -> Result<Module, Diagnostics> {
    validate::assemble(name, source)
}
