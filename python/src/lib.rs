//! The `pisa` Python module: PISA programs on Vulkan devices or the
//! reference interpreter, with NumPy arrays as arguments and globals.
//!
//! ```python
//! import numpy as np, pisa
//! prog = pisa.load("shaders/saxpy.pisa")
//! x = np.arange(1, 11, dtype=np.float32); y = np.zeros(10, dtype=np.float32)
//! prog.run("saxpy", global_size=10, local_size=4, args=[np.float32(2), x, y, np.uint32(10)])
//! ```

mod args;
mod arrays;
mod buffer;
mod device;
mod error;
mod load;
mod ndrange;
mod program;
mod session;

use pyo3::prelude::*;

/// The devices' names, the default first (`pisa devices`).
#[pyfunction]
fn devices(py: Python<'_>) -> Vec<String> {
    py.detach(device::names)
}

#[pymodule]
fn pisa(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PisaError", py.get_type::<error::PisaError>())?;
    m.add("PisaWarning", py.get_type::<error::PisaWarning>())?;
    m.add("UnsupportedError", py.get_type::<error::UnsupportedError>())?;
    m.add_class::<program::Program>()?;
    m.add_class::<buffer::Buffer>()?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(load::load, m)?)?;
    Ok(())
}
