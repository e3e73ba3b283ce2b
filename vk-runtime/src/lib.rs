//! Vulkan runtime for PISA modules (built on `ash` and `gpu-allocator`).
//!
//! [`Runtime`] picks a device and owns everything created on it; modules
//! ([`ProgramId`]) and buffers ([`BufferId`]) are handles into it, freed when
//! the runtime is dropped (or earlier, explicitly). The mapping of PISA onto
//! Vulkan that launches follow is `docs/abi.md`.

mod api;
mod buffer;
mod cache;
mod device;
mod error;
mod features;
mod launch;
mod portability;
pub mod probe;
mod program;
pub mod spirv_val;
pub mod values;

pub use device::{
    default_device, list_devices, select_device, translate_for, translate_for_numerics,
    translate_options, translate_options_with, with_numerics, Runtime, RuntimeOptions, Translation,
};
pub use launch::Pending;
pub use pisa_device::Probed;
pub use probe::ProbeSource;
pub use program::check_for_device;
// the device contract (`pisa-device`), which the runtime implements: under
// its old paths too
pub use pisa_device::contract::{
    printf, resolve_launch, BufferId, Device, DeviceInfo, DeviceKind, Features, GlobalInfo,
    KernelInfo, Launch, LaunchTiming, NdRange, ProgramId, Result, RuntimeError,
};
