//! `pisa.load(*files, device=None, validation=None, timeout=10.0,
//! printf_buffer=None, profile=None, numerics=None)`: assembles
//! PISA files (several are linked into one program) and loads the program
//! on a device.

use crate::device::{self, OpenOptions};
use crate::error::{err, warn};
use crate::program::Program;
use crate::session::{Session, Shared};
use pisa_translator::link::Input;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::time::Duration;

/// The files: paths (str or os.PathLike), or one list or tuple of them.
fn paths(files: &Bound<'_, PyTuple>) -> PyResult<Vec<PathBuf>> {
    let items: Vec<Bound<'_, PyAny>> = match files.len() {
        1 if files.get_item(0)?.is_instance_of::<PyList>()
            || files.get_item(0)?.is_instance_of::<PyTuple>() =>
        {
            files.get_item(0)?.try_iter()?.collect::<PyResult<_>>()?
        }
        _ => files.iter().collect(),
    };
    if items.is_empty() {
        return Err(err("pisa.load: give one or more PISA files"));
    }
    items
        .iter()
        .map(|f| {
            f.extract::<PathBuf>()
                .map_err(|_| err(format!("pisa.load: {f} is not a path")))
        })
        .collect()
}

/// `device`: a name substring, an index, or "cpu".
fn device_choice(device: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match device {
        None => Ok(None),
        Some(d) if d.is_instance_of::<PyString>() => Ok(Some(d.extract()?)),
        Some(d) if d.is_instance_of::<PyInt>() => match d.extract::<u64>() {
            Ok(i) => Ok(Some(i.to_string())),
            // negative, or beyond any index: a PisaError, not OverflowError
            Err(_) => Err(err(format!(
                "device {d}: no device has this index (indices count from 0, as pisa.devices() and `pisa devices` list them)"
            ))),
        },
        Some(d) => Err(err(format!(
            "device must be a name (substring), an index or \"cpu\", not {}",
            d.repr()?
        ))),
    }
}

/// `numerics`: "f32", "f64" or "soft" (`pisa run --numerics`), or None.
fn numerics_choice(
    numerics: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<pisa_translator::spirv::Numerics>> {
    let Some(n) = numerics.filter(|n| !n.is_none()) else {
        return Ok(None);
    };
    let name: String = n.extract().map_err(|_| {
        err(format!(
            "numerics must be \"f32\", \"f64\" or \"soft\", not {}",
            n.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    name.parse()
        .map(Some)
        .map_err(|e: String| err(format!("numerics: {e}")))
}

/// Assembles the files (linking several) and loads the program on a device:
/// `device` is "cpu" (the reference interpreter), a Vulkan device's index or
/// a substring of its name; by default PISA_DEVICE, else the best Vulkan
/// device, else the cpu device when there is no Vulkan. `validation`
/// enables the Vulkan validation layer (default: PISA_VALIDATION);
/// `timeout` is how many seconds a launch may run; `printf_buffer` the bytes
/// of the buffer kernels' printf writes into (as `pisa run --printf-buffer`);
/// `profile` a Vulkan Profiles JSON file (`FILE` or `FILE#PROFILE`; default:
/// PISA_DEVICE_PROFILE) whose device the Vulkan device then behaves as (as
/// `pisa run --profile`). A program the device cannot run raises
/// `pisa.UnsupportedError` (a `PisaError`). `numerics` chooses how a Vulkan
/// device computes the exact operations, the transcendentals and `.df` (as
/// `pisa run --numerics`, docs/numerics.md): "f32" (in integers and f32),
/// "soft" (no f64 at all: `.df` in the soft-double library) or "f64" (a
/// device without `shaderFloat64` and `shaderInt64` refuses it with
/// `pisa.UnsupportedError`); default: the device's. The cpu device computes
/// every result exactly whichever is asked.
// each argument is one of `pisa.load`'s keyword arguments (the Python API)
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (*files, device=None, validation=None, timeout=10.0, printf_buffer=None, profile=None, numerics=None))]
pub fn load(
    py: Python<'_>,
    files: &Bound<'_, PyTuple>,
    device: Option<&Bound<'_, PyAny>>,
    validation: Option<bool>,
    timeout: f64,
    printf_buffer: Option<u32>,
    profile: Option<PathBuf>,
    numerics: Option<&Bound<'_, PyAny>>,
) -> PyResult<Program> {
    let paths = paths(files)?;
    let numerics = numerics_choice(numerics)?;
    let profile = profile
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(|| {
            std::env::var("PISA_DEVICE_PROFILE")
                .ok()
                .filter(|v| !v.is_empty())
        })
        .map(|p| pisa_device::apply::read_profile(&p))
        .transpose()
        .map_err(|e| err(format!("cannot read the device profile: {e}")))?;
    let choice = device_choice(device)?;
    let timeout = Duration::try_from_secs_f64(timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            err(format!(
                "timeout must be a positive number of seconds (found {timeout})"
            ))
        })?;
    let mut texts = Vec::with_capacity(paths.len());
    for p in &paths {
        let bytes =
            std::fs::read(p).map_err(|e| err(format!("cannot read {}: {e}", p.display())))?;
        texts.push((
            p.display().to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let inputs: Vec<Input> = texts
        .iter()
        .map(|(name, text)| Input { name, text })
        .collect();
    let module = pisa_translator::link::link_program(&inputs).map_err(|d| err(d.render()))?;
    let warnings = module.warnings().render();
    if !warnings.is_empty() {
        warn(py, &warnings)?;
    }
    let opts = OpenOptions {
        device: choice,
        validation,
        timeout,
        profile,
        numerics,
    };
    let opened = py.detach(|| device::open(&module, &opts)).map_err(|f| {
        if f.refusal {
            crate::error::UnsupportedError::new_err(f.message)
        } else {
            err(f.message)
        }
    })?;
    if let Some(note) = &opened.note {
        warn(py, note)?;
    }
    let files = texts
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    let mut opened = opened;
    let dev = opened.dev.get();
    if let Some(b) = printf_buffer {
        dev.set_printf_buffer_size(b);
    }
    let kernels = dev.kernels(opened.prog).map_err(err)?;
    let globals = dev.globals(opened.prog).map_err(err)?;
    let device = opened.dev.info().name.clone();
    Ok(Program {
        shared: Shared::new(Session {
            dev: opened.dev,
            prog: opened.prog,
        }),
        kernels,
        globals,
        device,
        files,
    })
}
