//! The reference PISA device (`--device cpu`): an interpreter over the IR
//! (`pisa_translator::ir`) with the spec's exact semantics, used to run
//! PISA without a GPU and as the oracle the differential fuzzer compares
//! GPUs against.
//!
//! ```text
//! ir::Program → decode (flat ops, frame offsets, typed qualifiers)
//!             → device::CpuDevice::launch → group (cooperative work-items)
//!             → exec (one work-item; instruction groups by spec chapter)
//! ```
//!
//! Memory has the Vulkan runtime's layout (docs/abi.md) and every access is
//! checked ([`memory`]); undefined behaviour the interpreter can see
//! (out-of-bounds or misaligned accesses, division by zero, stores to
//! `.const`, barriers in divergent control flow, bad function pointers) is an
//! error naming the instruction and the work-item, never a guess.

// `memory::try_zeroed` allocates zeroed memory fallibly, which stable Rust
// offers only through `std::alloc`; nothing else is unsafe
#![deny(unsafe_code)]

pub mod decode;
pub mod device;
pub mod exec;
pub mod float;
pub mod group;
pub mod memory;
pub mod walk;

pub use device::{cpu_device_info, CpuDevice, CPU_DEVICE_NAME};
