//! NumPy arrays and scalars as bytes, and bytes as NumPy arrays. Device data
//! is little-endian (docs/abi.md): arrays go byte for byte, so arrays of a
//! non-native byte order and of Python objects are refused.

use crate::error::{err, OrPisa};
use numpy::{
    PyArray1, PyArrayDescr, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn check_dtype(dt: &Bound<'_, PyArrayDescr>, what: &str) -> PyResult<()> {
    if dt.has_object() {
        return Err(err(format!(
            "{what}: dtype {dt} holds Python objects, which cannot go to a device"
        )));
    }
    if dt.is_native_byteorder() == Some(false) {
        return Err(err(format!(
            "{what}: dtype {dt} is not in the machine's byte order: convert it first, e.g. a.astype(a.dtype.newbyteorder('='))"
        )));
    }
    Ok(())
}

/// An array argument's bytes, and the array they go back into after a
/// launch: `None` for a read-only array (copied in only).
pub struct ArrayIn<'py> {
    pub bytes: Vec<u8>,
    pub back: Option<Bound<'py, PyArray1<u8>>>,
}

/// The bytes of an array (in C order). A writeable array must be
/// C-contiguous, as the results are copied back into its memory; a read-only
/// array may have any layout.
pub fn array_in<'py>(a: &Bound<'py, PyUntypedArray>, what: &str) -> PyResult<ArrayIn<'py>> {
    check_dtype(&a.dtype(), what)?;
    let writeable: bool = a.getattr("flags")?.getattr("writeable")?.extract()?;
    if !writeable {
        let b = a.call_method0("tobytes")?;
        let bytes = b.cast::<PyBytes>()?.as_bytes().to_vec();
        return Ok(ArrayIn { bytes, back: None });
    }
    if !a.is_c_contiguous() {
        return Err(err(format!(
            "{what}: the array is not C-contiguous, so the results cannot be copied back into it: pass a contiguous copy, e.g. c = np.ascontiguousarray(a), and read c"
        )));
    }
    let view = byte_view(a)?;
    let bytes = view
        .try_readonly()
        .or_pisa()?
        .as_slice()
        .or_pisa()?
        .to_vec();
    Ok(ArrayIn {
        bytes,
        back: Some(view),
    })
}

/// The bytes of any array (copied, in C order).
pub fn array_bytes(a: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<Vec<u8>> {
    check_dtype(&a.dtype(), what)?;
    let b = a.call_method0("tobytes")?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// A C-contiguous array's memory as a flat array of bytes (a view: writes
/// go to the array).
fn byte_view<'py>(a: &Bound<'py, PyUntypedArray>) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let u8_dtype = numpy::dtype::<u8>(a.py());
    // (reshape of a C-contiguous array is a view; viewing a 1-D contiguous
    // array as bytes is a view too)
    let v = a
        .call_method1("reshape", (-1,))?
        .call_method1("view", (u8_dtype,))?;
    Ok(v.cast_into::<PyArray1<u8>>()?)
}

/// Copies a launch's results back into the array `back` came from.
pub fn copy_back(back: &Bound<'_, PyArray1<u8>>, bytes: &[u8]) -> PyResult<()> {
    let mut w = back.try_readwrite().or_pisa()?;
    let s = w.as_slice_mut().or_pisa()?;
    if s.len() != bytes.len() {
        return Err(err(format!(
            "the device returned {} bytes for an array of {} bytes",
            bytes.len(),
            s.len()
        )));
    }
    s.copy_from_slice(bytes);
    Ok(())
}

/// A NumPy scalar's bytes and dtype name; `None` for other objects.
pub fn scalar_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<(Vec<u8>, String)>> {
    let generic = obj.py().import("numpy")?.getattr("generic")?;
    if !obj.is_instance(&generic)? {
        return Ok(None);
    }
    let dt = obj.getattr("dtype")?.cast_into::<PyArrayDescr>()?;
    check_dtype(&dt, what)?;
    let b = obj.call_method0("tobytes")?;
    let bytes = b.cast::<PyBytes>()?.as_bytes().to_vec();
    Ok(Some((bytes, dt.to_string())))
}

/// Bytes as a 1-D array of `dtype` (default: uint8).
pub fn to_array<'py>(
    py: Python<'py>,
    bytes: Vec<u8>,
    dtype: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let dt = match dtype {
        Some(d) => PyArrayDescr::new(py, d).context(what)?,
        None => numpy::dtype::<u8>(py),
    };
    check_dtype(&dt, what)?;
    let size = dt.itemsize();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(err(format!(
            "{what} has {} bytes, not a whole number of {dt} ({size} bytes each)",
            bytes.len()
        )));
    }
    let arr = PyArray1::from_vec(py, bytes);
    arr.call_method1("view", (dt,))
}
