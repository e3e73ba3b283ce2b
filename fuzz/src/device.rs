//! Devices a case runs on. Every one is a device of the contract
//! (`pisa_device::Device`: the Vulkan runtime, the reference interpreter);
//! a [`Runner`] is such a device with what the differential driver adds:
//! its name, and how the case's module is built. [`ApiDevice`] runs cases on
//! any device of the contract, [`VulkanDevice`] on the Vulkan runtime with
//! the validation layer on (any message fails the case). Either runs the
//! case's text assembled as one module or, built with [`Build::Linked`], the
//! same program split into two modules (`split.rs`) linked by
//! `pisa_translator::link` (spec 06 §2.5.2).

use crate::case::{Arg, Case, HOST_GLOBALS};
use pisa_device::{Device, Launch, NdRange};
use pisa_translator::link::{link, Input};
use pisa_vk_runtime::{Runtime, RuntimeOptions};
use std::time::Duration;

/// What a launch left behind: the bytes of every buffer argument (by
/// argument index) and of the host-accessible globals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outputs {
    pub buffers: Vec<(usize, Vec<u8>)>,
    pub globals: Vec<(String, Vec<u8>)>,
}

/// A device of the contract as the fuzzer runs cases on it: a name for
/// reports, and the case run through [`Device`] (module built, loaded,
/// launched, outputs read, everything freed).
pub trait Runner {
    fn name(&self) -> String;
    /// Assembles, loads and launches the case; errors (invalid program,
    /// translation failure, device error, validation message) are `Err`.
    fn run(&mut self, case: &Case) -> Result<Outputs, String>;
}

/// How a device turns a case's program into the module it loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Build {
    /// `case.source` assembled as one module.
    #[default]
    Assemble,
    /// The program printed as two modules ([`crate::print_split`]) and
    /// linked: the outputs must be the unsplit program's.
    Linked,
}

impl Build {
    /// The module to load, or the diagnostics as an error.
    pub fn module(self, case: &Case) -> Result<pisa_translator::Module, String> {
        match self {
            Build::Assemble => pisa_translator::assemble("case.pisa", &case.source)
                .map_err(|d| format!("assembly failed:\n{}", d.render())),
            Build::Linked => {
                let parts = crate::split::print_split(&case.program);
                let inputs: Vec<Input> = parts
                    .iter()
                    .map(|(name, text)| Input { name, text })
                    .collect();
                link(&inputs).map_err(|d| format!("linking failed:\n{}", d.render()))
            }
        }
    }

    /// What a device's name says about it (`""` or `", linked"`).
    fn suffix(self) -> &'static str {
        match self {
            Build::Assemble => "",
            Build::Linked => ", linked",
        }
    }
}

/// Runs cases on any device of the contract.
pub struct ApiDevice<D: Device> {
    pub name: String,
    pub dev: D,
    pub build: Build,
}

impl<D: Device> ApiDevice<D> {
    pub fn new(name: &str, dev: D) -> Self {
        Self::with_build(name, dev, Build::Assemble)
    }

    pub fn with_build(name: &str, dev: D, build: Build) -> Self {
        ApiDevice {
            name: name.to_string(),
            dev,
            build,
        }
    }
}

/// Runs `case` on a runtime device with the module built as `build` says:
/// the program loaded, and buffers allocated, before the launch, all freed
/// after it (a campaign's memory stays flat).
fn run_built(dev: &mut dyn Device, case: &Case, build: Build) -> Result<Outputs, String> {
    let module = build.module(case)?;
    let prog = dev.load(&module).map_err(|e| format!("load: {e}"))?;
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
    dev.unload(prog);
    result
}

impl<D: Device> Runner for ApiDevice<D> {
    fn name(&self) -> String {
        format!("{}{}", self.name, self.build.suffix())
    }
    fn run(&mut self, case: &Case) -> Result<Outputs, String> {
        run_built(&mut self.dev, case, self.build)
    }
}

/// The Vulkan runtime on the default device (lavapipe here), with the
/// Khronos validation layer on; optionally in checked mode.
pub struct VulkanDevice {
    rt: Runtime,
    seen: usize,
    checked: bool,
    build: Build,
    /// The device profile the runtime is restricted to, kept for the fresh
    /// runtime that replaces one left unusable by a timeout.
    profile: Option<pisa_device::DeviceDescription>,
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

    /// Runs each case's program split into two modules and linked
    /// ([`Build::Linked`]).
    pub fn linked() -> Result<VulkanDevice, String> {
        Ok(VulkanDevice {
            build: Build::Linked,
            ..Self::with_checks(false)?
        })
    }

    /// The Vulkan device restricted to `profile` (as `pisa run --profile`:
    /// only the features both have are enabled, and the translation is the
    /// one that device would get); a program the profile's device cannot run
    /// is declined ([`crate::declined`]), not a finding.
    pub fn with_profile(profile: pisa_device::DeviceDescription) -> Result<VulkanDevice, String> {
        Ok(VulkanDevice {
            rt: Self::runtime_with(false, Some(profile.clone()))?,
            seen: 0,
            checked: false,
            build: Build::Assemble,
            profile: Some(profile),
        })
    }

    fn with_checks(checked: bool) -> Result<VulkanDevice, String> {
        Ok(VulkanDevice {
            rt: Self::runtime(checked)?,
            seen: 0,
            checked,
            build: Build::Assemble,
            profile: None,
        })
    }

    fn runtime(checked: bool) -> Result<Runtime, String> {
        Self::runtime_with(checked, None)
    }

    fn runtime_with(
        checked: bool,
        profile: Option<pisa_device::DeviceDescription>,
    ) -> Result<Runtime, String> {
        Runtime::new(RuntimeOptions {
            validation: true,
            pipeline_cache: false,
            checked_memory: checked,
            // the run alone (compilation is `prepare`'s, unbounded)
            timeout: run_timeout(),
            profile,
            ..Default::default()
        })
        .map_err(|e| format!("no Vulkan device: {e}"))
    }
}

impl Runner for VulkanDevice {
    fn name(&self) -> String {
        let checks = if self.checked { ", checked" } else { "" };
        let profile = match &self.profile {
            Some(p) => format!(" as {}", p.identity.profile_name),
            None => String::new(),
        };
        format!(
            "vulkan ({}{profile}{checks}{})",
            self.rt.device_info().name,
            self.build.suffix()
        )
    }
    fn run(&mut self, case: &Case) -> Result<Outputs, String> {
        let r = run_built(&mut self.rt, case, self.build);
        // a runtime is unusable after a timeout or a lost device: the next
        // case gets a fresh one (this case still reports the failure)
        if matches!(&r, Err(e) if e.contains("did not finish") || e.contains("device was lost") || e.contains("unusable"))
        {
            if let Ok(rt) = Self::runtime_with(self.checked, self.profile.clone()) {
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

/// How long one launch may run on either device: generous for a software
/// driver or the reference device shared with other work (`PISA_FUZZ_TIMEOUT`
/// seconds, default 120: shorter to reduce a hang). The reference device's
/// own default of 10 s stopped large-tier programs on a loaded machine
/// (seeds 20000004 and 20000025 ran in 5 s alone).
pub fn run_timeout() -> Duration {
    Duration::from_secs(
        std::env::var("PISA_FUZZ_TIMEOUT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(120),
    )
}

/// The reference device with the fuzzer's [`run_timeout`].
pub fn cpu_device() -> pisa_interp::CpuDevice {
    let mut d = pisa_interp::CpuDevice::new();
    d.set_timeout(run_timeout());
    d
}
