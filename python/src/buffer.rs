//! `pisa.Buffer`: device memory that stays on the device across launches
//! (`Program.buffer`), passed in `args` as a pointer.

use crate::arrays::{array_bytes, scalar_bytes, to_array};
use crate::error::err;
use crate::session::Shared;
use numpy::PyUntypedArray;
use pisa_vk_runtime::BufferId;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

#[pyclass(module = "pisa", frozen)]
pub struct Buffer {
    pub shared: Shared,
    pub id: BufferId,
    size: u64,
    address: u64,
}

impl Buffer {
    pub fn new(
        py: Python<'_>,
        shared: &Shared,
        size: u64,
        data: Option<Vec<u8>>,
    ) -> PyResult<Buffer> {
        let (id, address) = shared.with(py, move |dev, _| {
            let id = dev.alloc_buffer(size).map_err(|e| e.to_string())?;
            let r = data
                .map_or(Ok(()), |d| dev.upload(id, 0, &d))
                .and_then(|()| dev.buffer_address(id));
            match r {
                Ok(a) => Ok((id, a)),
                Err(e) => {
                    dev.free_buffer(id);
                    Err(e.to_string())
                }
            }
        })?;
        Ok(Buffer {
            shared: shared.clone(),
            id,
            size,
            address,
        })
    }
}

/// The bytes of a value to store: an array, a NumPy scalar or bytes.
pub fn value_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        array_bytes(a, what)
    } else if let Some((b, _)) = scalar_bytes(obj, what)? {
        Ok(b)
    } else if let Ok(b) = obj.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else {
        Err(err(format!(
            "{what}: expected a numpy array, a numpy scalar or bytes, not a {}",
            obj.get_type().name()?
        )))
    }
}

#[pymethods]
impl Buffer {
    /// Size in bytes.
    #[getter]
    fn size(&self) -> u64 {
        self.size
    }

    /// The device address (what a pointer argument holds).
    #[getter]
    fn address(&self) -> u64 {
        self.address
    }

    /// The contents as a new 1-D array of `dtype` (default uint8).
    #[pyo3(signature = (dtype=None))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = self.id;
        let bytes = self.shared.with(py, move |dev, _| {
            dev.download(id).map_err(|e| e.to_string())
        })?;
        to_array(py, bytes, dtype, "the buffer")
    }

    /// Writes an array's (or a numpy scalar's, or bytes') bytes at `offset`.
    #[pyo3(signature = (data, offset=0))]
    fn write(&self, py: Python<'_>, data: &Bound<'_, PyAny>, offset: u64) -> PyResult<()> {
        let bytes = value_bytes(data, "Buffer.write")?;
        let id = self.id;
        self.shared.with(py, move |dev, _| {
            dev.upload(id, offset, &bytes).map_err(|e| e.to_string())
        })
    }

    fn __len__(&self) -> usize {
        self.size as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "<pisa.Buffer of {} bytes at 0x{:x}>",
            self.size, self.address
        )
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.shared.free_buffer(self.id);
    }
}
