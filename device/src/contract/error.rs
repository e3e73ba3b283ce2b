//! The errors of every device: one type, so that callers handle the Vulkan
//! runtime and the reference device alike. Nothing here needs Vulkan itself:
//! a failed Vulkan call is named by its `VkResult` as text.

use std::time::Duration;

pub type Result<T> = std::result::Result<T, RuntimeError>;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no Vulkan loader found ({0}): install the Vulkan loader and a driver, e.g. `apt-get install libvulkan1 mesa-vulkan-drivers` (mesa-vulkan-drivers brings lavapipe, a software driver that needs no GPU)")]
    NoLoader(String),
    #[error("no Vulkan device found: install a Vulkan driver, e.g. `apt-get install mesa-vulkan-drivers` for the lavapipe software driver")]
    NoDevice,
    #[error("no Vulkan device matches `{0}` (see `pisa devices`)")]
    DeviceNotFound(String),
    /// A program needs a feature the device (or the profile it runs under)
    /// lacks: the message names the feature, the construct and which kinds
    /// of device have it ([`crate::apply::who_has`]).
    #[error(
        "the device lacks `{feature}`, which {construct} needs{}",
        kinds(feature)
    )]
    MissingFeature {
        feature: &'static str,
        construct: String,
    },
    /// A Vulkan call failed: `result` is its `VkResult` by name
    /// (`ERROR_INITIALIZATION_FAILED`).
    #[error("Vulkan error {result} in {call}")]
    Vulkan { result: String, call: &'static str },
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
    /// A module whose memory the ABI's layout cannot hold.
    #[error(transparent)]
    Layout(#[from] pisa_translator::abi::LayoutError),
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

/// `; N of the 58 device reports have it: ...` for a feature
/// [`crate::apply::who_has`] knows.
fn kinds(feature: &str) -> String {
    crate::apply::who_has(feature).map_or(String::new(), |k| format!("; {k}"))
}

impl RuntimeError {
    /// Whether this is a program the device cannot run (a missing feature,
    /// a limit, a size the device or the ABI cannot hold) rather than a
    /// fault of the program, the input or the system: `pisa run` exits
    /// with 3 for these.
    pub fn is_refusal(&self) -> bool {
        use pisa_translator::spirv::TranslateError;
        matches!(
            self,
            RuntimeError::MissingFeature { .. }
                | RuntimeError::Unsupported(_)
                | RuntimeError::Translate(TranslateError::UnsupportedOnDevice { .. })
        )
    }
}
