//! The device contract: what every device offers to the tools above it (the
//! `pisa` CLI, the Python module, the fuzzer, the tests) and what every
//! device implements (the Vulkan runtime, `pisa-vk-runtime`; the reference
//! interpreter, `pisa-interp`). It holds the [`Device`] trait, the handles
//! and descriptions of programs, buffers and launches, the description of a
//! device ([`DeviceInfo`]), the one error type, and the decoding of the printf
//! buffer, whose layout every device shares (docs/abi.md). The memory layout
//! itself is the ABI module of the translator (`pisa_translator::abi`).
//!
//! Nothing here depends on Vulkan: the reference device links no Vulkan
//! code.

mod api;
mod error;
mod info;
mod launch;
pub mod printf;

pub use api::Device;
pub use error::{Result, RuntimeError};
pub use info::{DeviceInfo, DeviceKind, Features};
pub use launch::{
    resolve_launch, BufferId, GlobalInfo, KernelInfo, Launch, LaunchTiming, NdRange, ProgramId,
};
