//! Opening a device by selector, the one way the `pisa` CLI, the Python
//! module and the tests do it:
//!
//! - `cpu`, or the index `pisa devices` gives the cpu device (after the
//!   Vulkan devices), is the reference interpreter (`pisa-interp`);
//! - another index or a name substring is a Vulkan device;
//! - no selector: `PISA_DEVICE`, else the best Vulkan device, else the cpu
//!   device when there is no Vulkan at all.
//!
//! A PISA module is translated once for the device it is opened on: the
//! translation tells which features the runtime enables, and the runtime
//! then loads that same translation (`Runtime::load_pretranslated`).

use pisa_device::{Device, DeviceInfo, ProgramId, RuntimeError};
use pisa_interp::CpuDevice;
use pisa_vk_runtime::{Features, Runtime, RuntimeOptions};
use std::time::Duration;

/// A device of either kind. An enum rather than a `Box<dyn Device>` for
/// what only the Vulkan runtime has (its validation messages).
pub enum AnyDevice {
    Vulkan(Box<Runtime>),
    Cpu(Box<CpuDevice>),
}

impl AnyDevice {
    pub fn get(&mut self) -> &mut dyn Device {
        match self {
            AnyDevice::Vulkan(rt) => rt.as_mut(),
            AnyDevice::Cpu(d) => d.as_mut(),
        }
    }

    pub fn info(&self) -> &DeviceInfo {
        match self {
            AnyDevice::Vulkan(rt) => rt.device_info(),
            AnyDevice::Cpu(d) => d.device_info(),
        }
    }

    /// The Vulkan validation layer's messages so far (none on the cpu
    /// device).
    pub fn validation_messages(&self) -> Vec<String> {
        match self {
            AnyDevice::Vulkan(rt) => rt.validation_messages(),
            AnyDevice::Cpu(_) => Vec::new(),
        }
    }

    pub fn into_box(self) -> Box<dyn Device> {
        match self {
            AnyDevice::Vulkan(rt) => rt,
            AnyDevice::Cpu(d) => d,
        }
    }
}

/// What to run: a validated PISA module, or a SPIR-V module written
/// against docs/abi.md (Vulkan devices only).
#[derive(Clone, Copy)]
pub enum Program<'a> {
    Pisa(&'a pisa_translator::Module),
    Spirv(&'a [u32]),
}

/// How to open the device.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// The selector; `None`: `PISA_DEVICE`, else the default.
    pub device: Option<String>,
    /// `None`: `PISA_VALIDATION`.
    pub validation: Option<bool>,
    /// How long a launch may run.
    pub timeout: Duration,
    /// GPU timestamps of each launch (Vulkan).
    pub timestamps: bool,
    /// Checked mode (`pisa run --check`, Vulkan).
    pub checked_memory: bool,
    /// Behave as the device a Vulkan Profiles file describes (`--profile`,
    /// `PISA_DEVICE_PROFILE`): the Vulkan device restricted to it. The cpu
    /// device takes on no profile: with one, it is refused, and there is no
    /// falling back to it.
    pub profile: Option<pisa_device::DeviceDescription>,
    /// The numerics forced on a Vulkan device (`pisa run --numerics`;
    /// `None`: the device's). The cpu device computes every result exactly
    /// whichever is asked.
    pub numerics: Option<pisa_translator::spirv::Numerics>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            device: None,
            validation: None,
            timeout: Duration::from_secs(10),
            timestamps: false,
            checked_memory: false,
            profile: None,
            numerics: None,
        }
    }
}

/// A device opened with its program loaded.
pub struct Opened {
    pub dev: AnyDevice,
    pub prog: ProgramId,
    /// Set when no device was named and there is no Vulkan: why the cpu
    /// device runs the program instead.
    pub fell_back: Option<RuntimeError>,
}

/// Why a device could not be opened, by the step that failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("the cpu device runs PISA programs, not SPIR-V modules")]
    SpirvOnCpu,
    /// A profile was given for the cpu device, which runs every program
    /// with the spec's exact semantics and takes on no device's limits.
    #[error("a device profile applies to Vulkan devices; the cpu device (the reference interpreter) takes on no profile")]
    ProfileOnCpu,
    /// The module does not translate for the device.
    #[error(transparent)]
    Translate(RuntimeError),
    /// No Vulkan runtime on the device asked for.
    #[error(transparent)]
    Start(RuntimeError),
    /// The device refused the program.
    #[error(transparent)]
    Load(RuntimeError),
}

/// Whether a selector names the cpu device: `cpu`, or the index `pisa
/// devices` gives it, after the `vulkan_count` Vulkan devices (`None`:
/// enumerated here when the selector is an index).
pub fn is_cpu(choice: Option<&str>, vulkan_count: Option<usize>) -> bool {
    match choice {
        Some(c) if c.eq_ignore_ascii_case("cpu") => true,
        // (parsed as the Vulkan runtime parses indices)
        Some(c) => c.parse::<usize>().is_ok_and(|i| {
            i == vulkan_count
                .unwrap_or_else(|| pisa_vk_runtime::list_devices().map_or(0, |devs| devs.len()))
        }),
        None => false,
    }
}

/// The selector in effect: `device`, else a non-empty `PISA_DEVICE`.
pub fn selector(device: Option<&str>) -> Option<String> {
    device
        .map(str::to_string)
        .or_else(|| std::env::var("PISA_DEVICE").ok().filter(|v| !v.is_empty()))
}

/// Every device, as `pisa devices` lists them: the Vulkan devices, then the
/// cpu device; and the position of the default one (`None`: `PISA_DEVICE`
/// names no device).
pub fn devices() -> (Vec<DeviceInfo>, Option<usize>) {
    let mut devs = pisa_vk_runtime::list_devices().unwrap_or_default();
    let env = selector(None);
    let default = if is_cpu(env.as_deref(), Some(devs.len())) || devs.is_empty() {
        Some(devs.len())
    } else {
        pisa_vk_runtime::default_device(&devs).ok()
    };
    devs.push(pisa_interp::cpu_device_info(devs.len()));
    (devs, default)
}

/// Opens the selected device and loads `program` on it.
pub fn open_device(program: Program<'_>, o: &OpenOptions) -> Result<Opened, OpenError> {
    let choice = selector(o.device.as_deref());
    let cpu = |module: &pisa_translator::Module, fell_back| -> Result<Opened, OpenError> {
        let mut d = CpuDevice::new();
        d.set_timeout(o.timeout);
        let prog = d.load(module).map_err(OpenError::Load)?;
        Ok(Opened {
            dev: AnyDevice::Cpu(Box::new(d)),
            prog,
            fell_back,
        })
    };
    if is_cpu(choice.as_deref(), None) {
        if o.profile.is_some() {
            return Err(OpenError::ProfileOnCpu);
        }
        return match program {
            Program::Pisa(m) => cpu(m, None),
            Program::Spirv(_) => Err(OpenError::SpirvOnCpu),
        };
    }
    // no Vulkan at all, and no device named: the reference device runs it
    let no_vulkan = |e: &RuntimeError| {
        matches!(e, RuntimeError::NoLoader(_) | RuntimeError::NoDevice)
            && choice.is_none()
            && o.profile.is_none()
    };
    // the device the runtime will take, to translate the module for it
    // once: the translation tells which features the runtime enables, and
    // is what it loads
    let translation = match program {
        Program::Pisa(m) => {
            let info = pisa_vk_runtime::list_devices().and_then(|devs| {
                let i = pisa_vk_runtime::select_device(&devs, choice.as_deref())?;
                Ok(devs[i].clone())
            });
            // the device as the runtime will restrict it to the profile
            // (the work-group size, which translation does not read, aside)
            let info = info.map(|info| match &o.profile {
                Some(p) => p.restrict(&info, [u32::MAX; 3]).info,
                None => info,
            });
            let info = match info {
                Ok(info) => info,
                Err(e) if no_vulkan(&e) => return cpu(m, Some(e)),
                Err(e) => return Err(OpenError::Start(e)),
            };
            Some(
                pisa_vk_runtime::translate_for_numerics(m, &info, o.checked_memory, o.numerics)
                    .map_err(OpenError::Translate)?,
            )
        }
        Program::Spirv(_) => None,
    };
    let words = match (&translation, program) {
        (Some(t), _) => t.spirv.words.clone(),
        (None, Program::Spirv(w)) => w.to_vec(),
        (None, Program::Pisa(_)) => unreachable!("a PISA module is translated above"),
    };
    let mut opts = RuntimeOptions {
        device: choice.clone(),
        timeout: o.timeout,
        timestamps: o.timestamps,
        only_for: Some(vec![words]),
        checked_memory: o.checked_memory,
        profile: o.profile.clone(),
        numerics: o.numerics,
        // the exact `fmad.f` goes through f64 where the device has it
        optional: Features {
            float64: true,
            int64: true,
            ..Default::default()
        },
        ..Default::default()
    };
    if let Some(v) = o.validation {
        opts.validation = v;
    }
    let mut rt = match Runtime::new(opts) {
        Ok(rt) => rt,
        Err(e) if no_vulkan(&e) => match program {
            Program::Pisa(m) => return cpu(m, Some(e)),
            Program::Spirv(_) => return Err(OpenError::Start(e)),
        },
        Err(e) => return Err(OpenError::Start(e)),
    };
    let prog = match (program, translation) {
        (Program::Pisa(m), Some(t)) => rt.load_pretranslated(m, t),
        (Program::Spirv(w), _) => rt.load_spirv(w),
        (Program::Pisa(m), None) => rt.load(m),
    }
    .map_err(OpenError::Load)?;
    Ok(Opened {
        dev: AnyDevice::Vulkan(Box::new(rt)),
        prog,
        fell_back: None,
    })
}
