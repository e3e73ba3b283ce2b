use ash::vk;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no Vulkan loader found ({0}): install the Vulkan loader and a driver, e.g. `apt-get install libvulkan1 mesa-vulkan-drivers` (mesa-vulkan-drivers brings lavapipe, a software driver that needs no GPU)")]
    NoLoader(String),
    #[error("no Vulkan device found: install a Vulkan driver, e.g. `apt-get install mesa-vulkan-drivers` for the lavapipe software driver")]
    NoDevice,
    #[error("no Vulkan device matches `{0}` (see `pisa devices`)")]
    DeviceNotFound(String),
    #[error("the device lacks `{feature}`, which {construct} needs")]
    MissingFeature {
        feature: &'static str,
        construct: String,
    },
    #[error("Vulkan error {result:?} in {call}")]
    Vulkan {
        result: vk::Result,
        call: &'static str,
    },
    #[error("the device was lost (a kernel crashed or was stopped by the driver)")]
    DeviceLost,
    #[error("out of device memory ({0})")]
    OutOfMemory(String),
    #[error("the kernel did not finish within {0:?} (a kernel that never ends?); the device may stay busy until the process exits")]
    Timeout(Duration),
    #[error("the driver stopped a loop of the kernel early (Mesa's llvmpipe ends every loop of a work-item after 65,535 iterations in all), so the results are invalid; run on another driver or split the work")]
    LoopLimit,
    #[error("the wait for the kernel was interrupted; the kernel may still be running, and the device stays busy until it ends or the process exits")]
    Interrupted,
    #[error("the runtime is unusable after an earlier timeout, interrupted wait or device loss")]
    Unusable,
    /// The sources did not assemble or link (every diagnostic, rendered).
    #[error("{0}")]
    Assemble(pisa_translator::Diagnostics),
    #[error(transparent)]
    Translate(#[from] pisa_translator::spirv::TranslateError),
    #[error("no kernel `{name}` in this module; its kernels: {}", if kernels.is_empty() { "none".to_string() } else { kernels.join(", ") })]
    UnknownKernel { name: String, kernels: Vec<String> },
    #[error("no host-accessible global `{0}` in this module")]
    UnknownGlobal(String),
    #[error("{0}")]
    BadArgument(String),
    #[error("{0}")]
    BadLaunch(String),
    /// A kernel stopped at an instruction (the reference device names the
    /// instruction, the work-item and what went wrong).
    #[error("{0}")]
    Kernel(String),
    /// What this device cannot run (yet).
    #[error("unsupported on this device: {0}")]
    Unsupported(String),
    #[error("invalid SPIR-V: {0}")]
    BadSpirv(String),
    /// A SPIR-V module whose kernels read what the runtime fills in from a
    /// program description (the data block, the printf buffer) that the
    /// module does not carry (docs/abi.md, "Program descriptions").
    #[error("{0}")]
    Undescribed(String),
}

pub(crate) trait VkContext<T> {
    fn vk(self, call: &'static str) -> crate::Result<T>;
}

impl<T> VkContext<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> crate::Result<T> {
        self.map_err(|result| match result {
            vk::Result::ERROR_DEVICE_LOST => RuntimeError::DeviceLost,
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                RuntimeError::OutOfMemory(call.to_string())
            }
            result => RuntimeError::Vulkan { result, call },
        })
    }
}

impl From<gpu_allocator::AllocationError> for RuntimeError {
    fn from(e: gpu_allocator::AllocationError) -> Self {
        match e {
            gpu_allocator::AllocationError::OutOfMemory => {
                RuntimeError::OutOfMemory("allocation".into())
            }
            e => RuntimeError::OutOfMemory(e.to_string()),
        }
    }
}
