//! `global_size`, `local_size` and `offset`: an int or a tuple (or list) of
//! 1 to 3 ints, as `pisa run --global X[,Y[,Z]]`.

use crate::error::err;
use pisa_vk_runtime::NdRange;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyTuple};

/// The sizes and how many were given.
fn sizes(obj: &Bound<'_, PyAny>, what: &str, fill: u32) -> PyResult<([u32; 3], usize)> {
    let items: Vec<Bound<'_, PyAny>> =
        if obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>() {
            obj.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![obj.clone()]
        };
    if items.is_empty() || items.len() > 3 {
        return Err(err(format!(
            "{what} takes an int or 1 to 3 ints, not {}",
            obj.repr()?
        )));
    }
    let mut v = [fill; 3];
    for (i, item) in items.iter().enumerate() {
        // (numpy integers too, through __index__; not bools or floats)
        let n = if item.is_instance_of::<PyBool>() {
            None
        } else if item.is_instance_of::<PyInt>() {
            item.extract::<u32>().ok()
        } else {
            item.call_method0("__index__")
                .ok()
                .and_then(|n| n.extract::<u32>().ok())
        };
        v[i] = n.ok_or_else(|| {
            err(format!(
                "{what}: {} is not a size (an int from 0 to 2**32-1)",
                item.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
    }
    Ok((v, items.len()))
}

pub fn range(
    global: &Bound<'_, PyAny>,
    local: Option<&Bound<'_, PyAny>>,
    offset: Option<&Bound<'_, PyAny>>,
) -> PyResult<NdRange> {
    let (global, dims) = sizes(global, "global_size", 1)?;
    let local = local.map(|l| sizes(l, "local_size", 1)).transpose()?;
    let offset = offset.map(|o| sizes(o, "offset", 0)).transpose()?;
    for (name, s) in [("global_size", Some((global, dims))), ("local_size", local)] {
        if let Some((v, _)) = s {
            if v.contains(&0) {
                return Err(err(format!(
                    "{name}: sizes must be at least 1 (found {v:?})"
                )));
            }
        }
    }
    for (name, s) in [("local_size", local), ("offset", offset)] {
        if let Some((_, n)) = s {
            if n > dims {
                return Err(err(format!(
                    "{name} has {n} dimensions, global_size {dims}"
                )));
            }
        }
    }
    let offset = offset.map_or([0; 3], |o| o.0);
    for d in 0..3 {
        // global ids, offset + id, must fit in 32 bits
        if offset[d].checked_add(global[d]).is_none() {
            return Err(err(format!(
                "offset {offset:?} + global_size {global:?} overflows 32 bits in dimension {d}"
            )));
        }
    }
    Ok(NdRange {
        global,
        local: local.map(|l| l.0),
        offset,
        dims: dims as u32,
    })
}
