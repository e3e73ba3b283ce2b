//! Devices a case runs on: the [`Device`] trait the differential driver
//! compares, [`ApiDevice`] for anything implementing the runtime's
//! device-neutral API (`pisa_vk_runtime::Device`: the Vulkan runtime, the
//! reference interpreter), and [`VulkanDevice`] (validation layer on; any
//! message fails the case).

use crate::case::{Arg, Case, HOST_GLOBALS};
use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
use std::time::Duration;

/// What a launch left behind: the bytes of every buffer argument (by
/// argument index) and of the host-accessible globals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outputs {
    pub buffers: Vec<(usize, Vec<u8>)>,
    pub globals: Vec<(String, Vec<u8>)>,
}

/// A device the fuzzer runs cases on.
pub trait Device {
    fn name(&self) -> String;
    /// Assembles, loads and launches the case; errors (invalid program,
    /// translation failure, device error, validation message) are `Err`.
    fn run(&mut self, case: &Case) -> Result<Outputs, String>;
}

/// Runs cases on any implementation of the runtime's device API.
pub struct ApiDevice<D: pisa_vk_runtime::Device> {
    pub name: String,
    pub dev: D,
}

impl<D: pisa_vk_runtime::Device> ApiDevice<D> {
    pub fn new(name: &str, dev: D) -> Self {
        ApiDevice {
            name: name.to_string(),
            dev,
        }
    }
}

/// Runs `case` on a runtime device, buffers allocated and freed around the
/// launch; also returns the loaded program (for devices that can unload it).
pub fn run_on(
    dev: &mut dyn pisa_vk_runtime::Device,
    case: &Case,
) -> (Result<Outputs, String>, Option<pisa_vk_runtime::ProgramId>) {
    let module = match pisa_translator::assemble("case.pisa", &case.source) {
        Ok(m) => m,
        Err(d) => return (Err(format!("assembly failed:\n{}", d.render())), None),
    };
    let prog = match dev.load(&module) {
        Ok(p) => p,
        Err(e) => return (Err(format!("load: {e}")), None),
    };
    let mut bufs = Vec::new();
    let result = (|| {
        let mut args = Vec::new();
        for (i, a) in case.args.iter().enumerate() {
            match a {
                Arg::Scalar(b) => args.push(b.clone()),
                Arg::Buffer(b) => {
                    let id = dev
                        .alloc_buffer(b.len().max(1) as u64)
                        .map_err(|e| e.to_string())?;
                    bufs.push((i, id));
                    dev.upload(id, 0, b).map_err(|e| e.to_string())?;
                    args.push(
                        dev.buffer_address(id)
                            .map_err(|e| e.to_string())?
                            .to_le_bytes()
                            .to_vec(),
                    );
                }
            }
        }
        let launch = Launch {
            program: prog,
            kernel: case.kernel.clone(),
            range: NdRange {
                global: case.global,
                local: Some(case.local),
                offset: case.offset,
                dims: case.dims,
            },
            args,
        };
        // (the runtime has the driver compile first, without the launch
        // timeout, which bounds the run alone: llvmpipe compiles at the first
        // dispatch, for minutes for the biggest programs on a loaded machine,
        // which made timeouts that were no hangs; docs/fuzzing.md)
        dev.launch(&launch).map_err(|e| format!("launch: {e}"))?;
        let mut out = Outputs::default();
        for &(i, id) in &bufs {
            out.buffers
                .push((i, dev.download(id).map_err(|e| e.to_string())?));
        }
        for g in HOST_GLOBALS {
            let bytes = dev
                .read_global(prog, g)
                .map_err(|e| format!("global {g}: {e}"))?;
            out.globals.push((g.to_string(), bytes));
        }
        Ok(out)
    })();
    for (_, id) in bufs {
        dev.free_buffer(id);
    }
    (result, Some(prog))
}

impl<D: pisa_vk_runtime::Device> Device for ApiDevice<D> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn run(&mut self, case: &Case) -> Result<Outputs, String> {
        run_on(&mut self.dev, case).0
    }
}

/// The Vulkan runtime on the default device (lavapipe here), with the
/// Khronos validation layer on; optionally in checked mode.
pub struct VulkanDevice {
    rt: Runtime,
    seen: usize,
    checked: bool,
}

impl VulkanDevice {
    pub fn new() -> Result<VulkanDevice, String> {
        Self::with_checks(false)
    }

    /// In checked mode (`pisa run --check`): every access of a generated
    /// program is good, so a report is a finding, and the outputs must be
    /// the reference device's as without checks.
    pub fn checked() -> Result<VulkanDevice, String> {
        Self::with_checks(true)
    }

    fn with_checks(checked: bool) -> Result<VulkanDevice, String> {
        Ok(VulkanDevice {
            rt: Self::runtime(checked)?,
            seen: 0,
            checked,
        })
    }

    fn runtime(checked: bool) -> Result<Runtime, String> {
        Runtime::new(RuntimeOptions {
            validation: true,
            pipeline_cache: false,
            checked_memory: checked,
            // the run alone (compilation is `prepare`'s, unbounded):
            // generous for a software driver shared with other work
            // (`PISA_FUZZ_TIMEOUT` seconds: shorter to reduce a hang)
            timeout: Duration::from_secs(
                std::env::var("PISA_FUZZ_TIMEOUT")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(120),
            ),
            ..Default::default()
        })
        .map_err(|e| format!("no Vulkan device: {e}"))
    }
}

impl Device for VulkanDevice {
    fn name(&self) -> String {
        let checks = if self.checked { ", checked" } else { "" };
        format!("vulkan ({}{checks})", self.rt.device_info().name)
    }
    fn run(&mut self, case: &Case) -> Result<Outputs, String> {
        let (r, prog) = run_on(&mut self.rt, case);
        if let Some(p) = prog {
            self.rt.unload(p);
        }
        // a runtime is unusable after a timeout or a lost device: the next
        // case gets a fresh one (this case still reports the failure)
        if matches!(&r, Err(e) if e.contains("did not finish") || e.contains("device was lost") || e.contains("unusable"))
        {
            if let Ok(rt) = Self::runtime(self.checked) {
                self.rt = rt;
                self.seen = 0;
                return r;
            }
        }
        let msgs = self.rt.validation_messages();
        let new: Vec<String> = msgs[self.seen.min(msgs.len())..].to_vec();
        self.seen = msgs.len();
        let r = r?;
        if !new.is_empty() {
            return Err(format!("validation layer: {}", new.join("\n")));
        }
        Ok(r)
    }
}
