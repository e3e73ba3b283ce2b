//! The back end's error ([`TranslateError`]) and result type ([`R`]):
//! the bottom of the module graph, imported by every other module of
//! `spirv` and importing none.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// A construct this back end cannot (yet) express.
    #[error("{file}:{line}:{col}: not yet supported: {what}")]
    Unsupported {
        what: String,
        file: String,
        line: u32,
        col: u32,
    },
    /// A form this device cannot compute as PISA defines it, with no
    /// emulation for what it lacks.
    #[error("{file}:{line}:{col}: unsupported on this device: {what}")]
    UnsupportedOnDevice {
        what: String,
        file: String,
        line: u32,
        col: u32,
    },
    /// Recursion, direct or mutual: Vulkan SPIR-V has no call stack.
    #[error("recursion is not supported on this backend: {cycle}")]
    Recursion { cycle: String },
    /// The program's memory does not fit (docs/spec-notes.md, "Sizes and
    /// alignments").
    #[error(transparent)]
    Layout(#[from] crate::abi::LayoutError),
    /// An internal invariant failed while building SPIR-V (a bug, reported
    /// instead of panicking).
    #[error("internal error while building SPIR-V: {0}")]
    Internal(String),
}

impl From<crate::ir::pipeline::PassError> for TranslateError {
    fn from(e: crate::ir::pipeline::PassError) -> Self {
        TranslateError::Internal(e.to_string())
    }
}

impl From<rspirv::dr::Error> for TranslateError {
    fn from(e: rspirv::dr::Error) -> Self {
        TranslateError::Internal(e.to_string())
    }
}

/// The result of a step of the translation.
pub type R<T> = Result<T, TranslateError>;
