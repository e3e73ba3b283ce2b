//! Choosing and opening a device as `pisa run --device` does
//! (`pisa_select`: `cpu` is the reference interpreter; anything else is a
//! Vulkan device by index or name substring; nothing: `PISA_DEVICE`, else
//! the best Vulkan device, else the cpu device when there is no Vulkan at
//! all).

use pisa_interp::CpuDevice;
use pisa_vk_runtime::{ProgramId, Runtime};
use std::time::Duration;

/// A device of either kind (for what only the Vulkan runtime has: its
/// validation messages).
pub type Dev = pisa_select::AnyDevice;

// Both are moved between threads: a `Program` may be used from any Python
// thread, and launches run with the GIL released (`Python::detach`). Vulkan
// objects need external synchronization (the session's mutex), not one
// thread. Checked here so that a change to either type fails to build.
const _: () = {
    const fn send<T: Send>() {}
    send::<Runtime>();
    send::<CpuDevice>();
};

pub struct OpenOptions {
    /// `None`: `PISA_DEVICE`, else the default.
    pub device: Option<String>,
    /// `None`: `PISA_VALIDATION`.
    pub validation: Option<bool>,
    pub timeout: Duration,
    /// `profile=` (else `PISA_DEVICE_PROFILE`), read.
    pub profile: Option<pisa_device::DeviceDescription>,
    /// `numerics=` (`pisa run --numerics`); `None`: the device's.
    pub numerics: Option<pisa_translator::spirv::Numerics>,
}

/// Why `open` failed: a refusal (a program the device cannot run:
/// `pisa.UnsupportedError`) or any other error (`pisa.PisaError`).
pub struct OpenFailure {
    pub message: String,
    pub refusal: bool,
}

/// What `open` did besides opening: a note for a warning.
pub struct Opened {
    pub dev: Dev,
    pub prog: ProgramId,
    pub note: Option<String>,
}

/// Opens the chosen device and loads `module` on it.
pub fn open(module: &pisa_translator::Module, o: &OpenOptions) -> Result<Opened, OpenFailure> {
    use pisa_select::OpenError;
    let opened = pisa_select::open_device(
        pisa_select::Program::Pisa(module),
        &pisa_select::OpenOptions {
            device: o.device.clone(),
            validation: o.validation,
            timeout: o.timeout,
            profile: o.profile.clone(),
            numerics: o.numerics,
            ..Default::default()
        },
    )
    .map_err(|e| match e {
        OpenError::Start(e) | OpenError::Load(e) | OpenError::Translate(e) if e.is_refusal() => {
            OpenFailure {
                message: format!("the program cannot run on this device: {e}"),
                refusal: true,
            }
        }
        OpenError::Start(e) => OpenFailure {
            message: format!("cannot start the Vulkan runtime: {e}"),
            refusal: false,
        },
        e => OpenFailure {
            message: e.to_string(),
            refusal: false,
        },
    })?;
    Ok(Opened {
        dev: opened.dev,
        prog: opened.prog,
        note: opened
            .fell_back
            .map(|e| format!("{e}; running on the cpu device (the reference interpreter) instead")),
    })
}

/// The devices' names, the default first: the Vulkan devices, then the cpu
/// device (the default when `PISA_DEVICE` is `cpu` or there is no Vulkan).
pub fn names() -> Vec<String> {
    let (devs, default) = pisa_select::devices();
    let mut names: Vec<String> = devs.into_iter().map(|d| d.name).collect();
    if let Some(i) = default {
        let d = names.remove(i);
        names.insert(0, d);
    }
    names
}
