//! `pisa.PisaError` (every error of this module: assembler diagnostics,
//! launch errors, bad arguments) and `pisa.PisaWarning` (assembler warnings,
//! falling back to the cpu device).

use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use std::ffi::CString;

pyo3::create_exception!(
    pisa,
    PisaError,
    PyException,
    "An error of pisa: the message is the full text, e.g. the assembler's rustc-style diagnostics with file:line:col."
);
pyo3::create_exception!(
    pisa,
    UnsupportedError,
    PisaError,
    "A program the device cannot run (`pisa run` exits with 3 for these): a feature or limit it lacks, under its own capabilities or a device profile's (`profile=`). The message names the construct, the feature or limit, and which kinds of device have it."
);
pyo3::create_exception!(
    pisa,
    PisaWarning,
    PyUserWarning,
    "A warning of pisa: assembler warnings, or running on the cpu device for want of Vulkan."
);

/// A `PisaError` with this message.
pub fn err(msg: impl std::fmt::Display) -> PyErr {
    PisaError::new_err(msg.to_string())
}

/// Turns any error into a `PisaError` with its full text.
pub trait OrPisa<T> {
    fn or_pisa(self) -> PyResult<T>;
    /// The same, the message preceded by `what: `.
    fn context(self, what: &str) -> PyResult<T>;
}

impl<T, E: std::fmt::Display> OrPisa<T> for Result<T, E> {
    fn or_pisa(self) -> PyResult<T> {
        self.map_err(err)
    }
    fn context(self, what: &str) -> PyResult<T> {
        self.map_err(|e| err(format!("{what}: {e}")))
    }
}

/// Emits a `PisaWarning`.
pub fn warn(py: Python<'_>, msg: &str) -> PyResult<()> {
    // (a NUL inside the text would end it early: none is expected)
    let text = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<PisaWarning>(), &text, 2)
}
