//! Choosing and opening a device as `pisa run --device` does: `cpu` is the
//! reference interpreter; anything else is a Vulkan device by index or name
//! substring; nothing: `PISA_DEVICE`, else the best Vulkan device, else the
//! cpu device when there is no Vulkan at all.

use pisa_interp::CpuDevice;
use pisa_vk_runtime::{Device, Features, ProgramId, Runtime, RuntimeError, RuntimeOptions};
use std::time::Duration;

/// A device of either kind. Kept as an enum rather than a `Box<dyn Device>`
/// for what only the Vulkan runtime has (its validation messages).
pub enum Dev {
    Vulkan(Box<Runtime>),
    Cpu(Box<CpuDevice>),
}

// Both are moved between threads: a `Program` may be used from any Python
// thread, and launches run with the GIL released (`Python::detach`). Vulkan
// objects need external synchronization (the session's mutex), not one
// thread. Checked here so that a change to either type fails to build.
const _: () = {
    const fn send<T: Send>() {}
    send::<Runtime>();
    send::<CpuDevice>();
};

impl Dev {
    pub fn get(&mut self) -> &mut dyn Device {
        match self {
            Dev::Vulkan(rt) => rt.as_mut(),
            Dev::Cpu(d) => d.as_mut(),
        }
    }

    pub fn name(&self) -> String {
        match self {
            Dev::Vulkan(rt) => rt.device_info().name.clone(),
            Dev::Cpu(d) => d.device_info().name.clone(),
        }
    }

    pub fn validation_messages(&self) -> Vec<String> {
        match self {
            Dev::Vulkan(rt) => rt.validation_messages(),
            Dev::Cpu(_) => Vec::new(),
        }
    }
}

pub struct OpenOptions {
    /// `None`: `PISA_DEVICE`, else the default.
    pub device: Option<String>,
    /// `None`: `PISA_VALIDATION`.
    pub validation: Option<bool>,
    pub timeout: Duration,
}

/// What `open` did besides opening: a note for a warning.
pub struct Opened {
    pub dev: Dev,
    pub prog: ProgramId,
    pub note: Option<String>,
}

/// Whether a device choice names the cpu device: `cpu`, or the index
/// `pisa devices` gives it, after the `vulkan_count` Vulkan devices
/// (`None`: not known yet, enumerated here when the choice is an index).
fn is_cpu(choice: Option<&str>, vulkan_count: Option<usize>) -> bool {
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

/// Opens the chosen device and loads `module` on it.
pub fn open(module: &pisa_translator::Module, o: &OpenOptions) -> Result<Opened, String> {
    let choice = o
        .device
        .clone()
        .or_else(|| std::env::var("PISA_DEVICE").ok().filter(|v| !v.is_empty()));
    let cpu = |note: Option<String>| -> Result<Opened, String> {
        let mut d = CpuDevice::new();
        d.set_timeout(o.timeout);
        let prog = d.load(module).map_err(|e| e.to_string())?;
        Ok(Opened {
            dev: Dev::Cpu(Box::new(d)),
            prog,
            note,
        })
    };
    if is_cpu(choice.as_deref(), None) {
        return cpu(None);
    }
    // translated first: the device then enables only what the program needs
    let words = pisa_translator::spirv::translate(module)
        .map_err(|e| e.to_string())?
        .words;
    let mut opts = RuntimeOptions {
        device: choice.clone(),
        timeout: o.timeout,
        only_for: Some(vec![words]),
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
        // no Vulkan at all, and no device named: the reference device runs it
        Err(e @ (RuntimeError::NoLoader(_) | RuntimeError::NoDevice)) if choice.is_none() => {
            return cpu(Some(format!(
                "{e}; running on the cpu device (the reference interpreter) instead"
            )));
        }
        Err(e) => return Err(format!("cannot start the Vulkan runtime: {e}")),
    };
    // translated again for the device, with the workarounds its driver needs
    let prog = rt.load(module).map_err(|e| e.to_string())?;
    Ok(Opened {
        dev: Dev::Vulkan(Box::new(rt)),
        prog,
        note: None,
    })
}

/// The devices' names, the default first: the Vulkan devices, then the cpu
/// device (the default when `PISA_DEVICE` is `cpu` or there is no Vulkan).
pub fn names() -> Vec<String> {
    let mut devs = pisa_vk_runtime::list_devices().unwrap_or_default();
    let env = std::env::var("PISA_DEVICE").ok().filter(|v| !v.is_empty());
    let default = if is_cpu(env.as_deref(), Some(devs.len())) || devs.is_empty() {
        Some(devs.len())
    } else {
        // PISA_DEVICE naming no device: no default (as `pisa devices`)
        pisa_vk_runtime::default_device(&devs).ok()
    };
    devs.push(pisa_interp::cpu_device_info(devs.len()));
    let mut names: Vec<String> = devs.into_iter().map(|d| d.name).collect();
    if let Some(i) = default {
        let d = names.remove(i);
        names.insert(0, d);
    }
    names
}
