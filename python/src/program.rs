//! `pisa.Program`: a program loaded on a device, its kernels and globals,
//! launches and buffers.

use crate::args::{marshal, Packed};
use crate::arrays::{copy_back, to_array};
use crate::buffer::{value_bytes, Buffer};
use crate::error::{err, warn};
use crate::ndrange;
use crate::session::Shared;
use numpy::PyUntypedArray;
use pisa_vk_runtime::printf::PrintfOutput;
use pisa_vk_runtime::{GlobalInfo, KernelInfo, Launch, RuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyTuple};

#[pyclass(module = "pisa", frozen)]
pub struct Program {
    pub shared: Shared,
    pub kernels: Vec<KernelInfo>,
    pub globals: Vec<GlobalInfo>,
    pub device: String,
    pub files: String,
}

impl Program {
    fn kernel(&self, name: &str) -> PyResult<&KernelInfo> {
        let name = name.trim_start_matches('@');
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            err(RuntimeError::UnknownKernel {
                name: name.to_string(),
                kernels: self
                    .kernels
                    .iter()
                    .map(|k| format!("@{}", k.name))
                    .collect(),
            })
        })
    }
}

#[pymethods]
impl Program {
    /// The name of the device the program runs on.
    #[getter]
    fn device(&self) -> &str {
        &self.device
    }

    /// The kernels: {name: [(parameter name, size in bytes), ...]}.
    fn kernels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for k in &self.kernels {
            let params: Vec<(String, u32)> = k
                .params
                .iter()
                .flatten()
                .map(|p| (p.name.clone(), p.size))
                .collect();
            d.set_item(&k.name, params)?;
        }
        Ok(d)
    }

    /// The globals the host may access by name (`.host_access("NAME")`, or
    /// exported): {name: size in bytes}.
    fn globals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for g in &self.globals {
            if let Some(n) = &g.host_name {
                d.set_item(n, g.size)?;
            }
        }
        Ok(d)
    }

    /// A global's bytes as a new 1-D array of `dtype` (default uint8).
    #[pyo3(signature = (name, dtype=None))]
    fn read_global<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        dtype: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = name.to_string();
        let bytes = self.shared.with(py, move |dev, prog| {
            dev.read_global(prog, &n).map_err(|e| e.to_string())
        })?;
        to_array(py, bytes, dtype, &format!("global `{name}`"))
    }

    /// Writes a global (all of it, or a prefix) from an array, a numpy
    /// scalar or bytes.
    fn write_global(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = value_bytes(value, &format!("global `{name}`"))?;
        let n = name.to_string();
        self.shared.with(py, move |dev, prog| {
            dev.write_global(prog, &n, &bytes)
                .map_err(|e| e.to_string())
        })
    }

    /// A buffer that stays on the device across launches: of `size` zero
    /// bytes, or holding an array's (or bytes') contents.
    fn buffer(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Buffer> {
        if data.is_instance_of::<PyInt>() && !data.is_instance_of::<PyBool>() {
            let size: u64 = data
                .extract()
                .map_err(|_| err(format!("buffer size {data} is not a size in bytes")))?;
            return Buffer::new(py, &self.shared, size, None);
        }
        if data.cast::<PyUntypedArray>().is_err() && data.cast::<PyBytes>().is_err() {
            return Err(err(format!(
                "Program.buffer takes a size in bytes, a numpy array or bytes, not a {}",
                data.get_type().name()?
            )));
        }
        let bytes = value_bytes(data, "Program.buffer")?;
        Buffer::new(py, &self.shared, bytes.len() as u64, Some(bytes))
    }

    /// Runs a kernel to completion, with the GIL released. Array arguments
    /// are copied to the device and their results back into them; what the
    /// kernel printed (printf) is written to sys.stdout.
    #[pyo3(signature = (kernel, global_size, local_size=None, offset=None, args=None))]
    fn run(
        &self,
        py: Python<'_>,
        kernel: &str,
        global_size: &Bound<'_, PyAny>,
        local_size: Option<&Bound<'_, PyAny>>,
        offset: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let k = self.kernel(kernel)?;
        let range = ndrange::range(global_size, local_size, offset)?;
        let empty = PyTuple::empty(py);
        let m = marshal(&self.shared, k, args.unwrap_or(empty.as_any()))?;
        let (packed, temps) = (m.args, m.temps);
        let want: Vec<bool> = m.backs.iter().map(Option::is_some).collect();
        let kernel = k.name.clone();
        // a signal (Ctrl-C) that arrives during the launch: its exception
        let mut interrupt: Option<PyErr> = None;
        let interrupted = &mut interrupt;
        let outs = self.shared.with_dev(py, move |device, program| {
            let mut ids = Vec::new();
            type Outs = (Vec<Option<Vec<u8>>>, Option<PrintfOutput>);
            let go = || -> Result<Outs, RuntimeError> {
                let dev = device.get();
                for t in &temps {
                    let id = dev.alloc_buffer(t.len() as u64)?;
                    ids.push(id);
                    dev.upload(id, 0, t)?;
                }
                let mut args = Vec::with_capacity(packed.len());
                for a in &packed {
                    args.push(match a {
                        Packed::Bytes(b) => b.clone(),
                        Packed::Buffer(id) => dev.buffer_address(*id)?.to_le_bytes().to_vec(),
                        Packed::Temp(i) => dev.buffer_address(ids[*i])?.to_le_bytes().to_vec(),
                    });
                }
                let launch = Launch {
                    program,
                    kernel,
                    range,
                    args,
                };
                // (the runtime has the driver compile the kernel first,
                // outside `timeout`, which bounds the run: Runtime::prepare)
                // Python's signal handlers (KeyboardInterrupt) run while the
                // launch runs: an exception gives it up. The Vulkan runtime is
                // unusable after, as after a timeout (the kernel cannot be
                // stopped); the cpu device stops the kernel and stays usable
                let timing = device.get().launch_with_cancel(
                    &launch,
                    &mut || match Python::attach(|py| py.check_signals()) {
                        Ok(()) => false,
                        Err(e) => {
                            *interrupted = Some(e);
                            true
                        }
                    },
                )?;
                let dev = device.get();
                let outs = ids
                    .iter()
                    .zip(&want)
                    .map(|(id, w)| w.then(|| dev.download(*id)).transpose())
                    .collect::<Result<_, _>>()?;
                Ok((outs, timing.printf))
            };
            let r = go();
            for id in ids {
                device.get().free_buffer(id);
            }
            r.map_err(|e| e.to_string())
        });
        if let Some(e) = interrupt {
            return Err(e);
        }
        let outs = outs?;
        let (outs, printf) = outs;
        for (back, out) in m.backs.iter().zip(outs) {
            if let (Some(back), Some(out)) = (back, out) {
                copy_back(back, &out)?;
            }
        }
        // what the kernel printed goes to sys.stdout, as a program's own
        // output; lost or undecodable output is a warning
        if let Some(p) = printf {
            if !p.text.is_empty() {
                let stdout = py.import("sys")?.getattr("stdout")?;
                stdout.call_method1("write", (&p.text,))?;
            }
            for problem in p.problems() {
                warn(py, &problem)?;
            }
        }
        Ok(())
    }

    /// Warnings and errors of the Vulkan validation layer so far (with
    /// `validation=True`; always empty on the cpu device).
    fn validation_messages(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.shared.inspect(py, |s| s.dev.validation_messages())
    }

    fn __repr__(&self) -> String {
        format!("<pisa.Program {} on {}>", self.files, self.device)
    }
}
