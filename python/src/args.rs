//! Kernel arguments from Python values, checked against the kernel's
//! parameters (`KernelInfo::params`: each `.param[N]` is N untyped bytes):
//! - a NumPy array: a device buffer for this launch (its address is the
//!   8-byte argument), uploaded before and copied back after;
//! - a `pisa.Buffer`: its address;
//! - a NumPy scalar (np.float32(2), np.uint32(10), ...): its bytes;
//! - a Python int: the parameter's 1, 2, 4 or 8 bytes, little-endian (the
//!   same bytes whether the kernel reads them as signed or unsigned; a value
//!   that fits neither is refused);
//! - bytes: as they are (e.g. a struct parameter).
//!
//! A Python float is refused: the parameter has no type, so whether 2.0
//! means an f16, f32 or f64 (or an integer's bits) is for the caller to say.

use crate::arrays::{array_in, scalar_bytes};
use crate::buffer::Buffer;
use crate::error::err;
use crate::session::Shared;
use numpy::{PyArray1, PyUntypedArray};
use pisa_translator::abi::ParamSlot;
use pisa_vk_runtime::{BufferId, KernelInfo};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt};

/// One argument, ready for the device.
pub enum Packed {
    Bytes(Vec<u8>),
    /// The address of a `pisa.Buffer`.
    Buffer(BufferId),
    /// The address of the launch's buffer for array `temps[i]`.
    Temp(usize),
}

pub struct Marshalled<'py> {
    pub args: Vec<Packed>,
    /// The bytes of each array argument (an array passed twice is one
    /// buffer).
    pub temps: Vec<Vec<u8>>,
    /// Where each array's results go back (`None`: read-only, not copied).
    pub backs: Vec<Option<Bound<'py, PyArray1<u8>>>>,
}

fn describe(i: usize, slot: Option<&ParamSlot>) -> String {
    match slot {
        Some(s) => format!("argument {i} (`%{}`, .param[{}])", s.name, s.size),
        None => format!("argument {i}"),
    }
}

fn float_suggestion(size: Option<u32>) -> &'static str {
    match size {
        Some(2) => "np.float16(x)",
        Some(8) => "np.float64(x)",
        _ => "np.float32(x)",
    }
}

pub fn marshal<'py>(
    shared: &Shared,
    kernel: &KernelInfo,
    args: &Bound<'py, PyAny>,
) -> PyResult<Marshalled<'py>> {
    let items: Vec<Bound<'py, PyAny>> = args
        .try_iter()
        .map_err(|_| err("args must be a list or tuple of kernel arguments"))?
        .collect::<PyResult<_>>()?;
    let params = kernel.params.as_deref();
    if let Some(p) = params {
        if p.len() != items.len() {
            return Err(err(format!(
                "kernel `{}` takes {} arguments, {} given",
                kernel.name,
                p.len(),
                items.len()
            )));
        }
    }
    let mut m = Marshalled {
        args: Vec::new(),
        temps: Vec::new(),
        backs: Vec::new(),
    };
    // arrays already seen: the same object is one buffer
    let mut seen: Vec<(Bound<'py, PyAny>, usize)> = Vec::new();
    for (i, obj) in items.iter().enumerate() {
        let slot = params.map(|p| &p[i]);
        let what = describe(i, slot);
        let size = slot.map(|s| s.size);
        let pointer = || -> PyResult<()> {
            match size {
                Some(8) | None => Ok(()),
                Some(n) => Err(err(format!(
                    "{what} takes {n} bytes, not a pointer (8 bytes), so it cannot be an array or a buffer"
                ))),
            }
        };
        if let Ok(b) = obj.cast::<Buffer>() {
            pointer()?;
            let b = b.borrow();
            if !b.shared.same(shared) {
                return Err(err(format!(
                    "{what}: the buffer belongs to another program (each program has its own device)"
                )));
            }
            m.args.push(Packed::Buffer(b.id));
        } else if let Ok(a) = obj.cast::<PyUntypedArray>() {
            pointer()?;
            if let Some((_, t)) = seen.iter().find(|(o, _)| o.is(obj)) {
                m.args.push(Packed::Temp(*t));
                continue;
            }
            let a = array_in(a, &what)?;
            seen.push((obj.clone(), m.temps.len()));
            m.args.push(Packed::Temp(m.temps.len()));
            m.temps.push(a.bytes);
            m.backs.push(a.back);
        } else if let Some((bytes, dtype)) = scalar_bytes(obj, &what)? {
            if let Some(n) = size.filter(|&n| n as usize != bytes.len()) {
                return Err(err(format!(
                    "{what} takes {n} bytes, but a numpy {dtype} has {}",
                    bytes.len()
                )));
            }
            m.args.push(Packed::Bytes(bytes));
        } else if obj.is_instance_of::<PyBool>() {
            return Err(err(format!(
                "{what}: a Python bool has no size: pass a numpy scalar, e.g. np.uint32(1)"
            )));
        } else if obj.is_instance_of::<PyInt>() {
            m.args.push(Packed::Bytes(int_bytes(obj, size, &what)?));
        } else if obj.is_instance_of::<PyFloat>() {
            return Err(err(format!(
                "{what}: a Python float is refused, as PISA parameters are untyped bytes: say which type, e.g. {}",
                float_suggestion(size)
            )));
        } else if let Ok(b) = obj.cast::<PyBytes>() {
            let bytes = b.as_bytes().to_vec();
            if let Some(n) = size.filter(|&n| n as usize != bytes.len()) {
                return Err(err(format!(
                    "{what} takes {n} bytes, {} given",
                    bytes.len()
                )));
            }
            m.args.push(Packed::Bytes(bytes));
        } else {
            let ty = obj.get_type().name()?;
            return Err(err(format!(
                "{what}: a {ty} cannot be a kernel argument: pass a numpy array, a pisa.Buffer, a numpy scalar (e.g. np.uint32(10)), an int or bytes"
            )));
        }
    }
    Ok(m)
}

/// A Python int as the parameter's bytes.
fn int_bytes(obj: &Bound<'_, PyAny>, size: Option<u32>, what: &str) -> PyResult<Vec<u8>> {
    let n = match size {
        Some(n @ (1 | 2 | 4 | 8)) => n as usize,
        Some(n) => {
            return Err(err(format!(
                "{what}: a Python int cannot fill {n} bytes: pass bytes or a numpy scalar"
            )))
        }
        None => {
            return Err(err(format!(
                "{what}: the kernel's parameter sizes are unknown: pass a numpy scalar, e.g. np.uint32(10)"
            )))
        }
    };
    let v: Option<i128> = obj.extract().ok();
    let bits = 8 * n as u32;
    let (min, max) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
    match v.filter(|v| (min..=max).contains(v)) {
        Some(v) => Ok(v.to_le_bytes()[..n].to_vec()),
        None => Err(err(format!(
            "{what}: {} fits {n} bytes neither as a signed nor as an unsigned integer",
            obj.repr()?
        ))),
    }
}
