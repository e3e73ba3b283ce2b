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
mod fma_probe;
mod launch;
pub mod printf;
mod program;
pub mod spirv_val;
pub mod values;

pub use api::Device;
pub use device::{default_device, list_devices, DeviceInfo, DeviceKind, Runtime, RuntimeOptions};
pub use error::RuntimeError;
pub use features::Features;
pub use launch::{resolve_launch, Launch, LaunchTiming, NdRange, Pending};
pub use program::{GlobalInfo, KernelInfo, ProgramId};

/// A buffer allocated by a [`Runtime`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferId(pub(crate) usize);

impl BufferId {
    /// A handle from another device's numbering (`pisa-interp`).
    pub fn from_index(i: usize) -> BufferId {
        BufferId(i)
    }
    pub fn index(self) -> usize {
        self.0
    }
}

pub type Result<T> = std::result::Result<T, RuntimeError>;
