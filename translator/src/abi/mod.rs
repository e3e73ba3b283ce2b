//! The ABI: how a PISA program's memory and launches look to every device
//! (docs/abi.md). It sits below the back ends and the devices: the SPIR-V
//! back end, the Vulkan runtime and the reference device (`pisa-interp`)
//! all take their layout from here, and this module imports nothing from
//! any back end.
//!
//! - [`layout`]: the data block (`.global`/`.const` variables, their initial
//!   bytes and relocations), the `.private` and `.shared` arenas, each
//!   kernel's argument block, function addresses and the tags of generic
//!   addresses;
//! - [`push`]: the push-constant block of a launch.

pub mod layout;
pub mod push;

pub use layout::*;
pub use push::{is_address_member, Push, PUSH_BYTES, PUSH_MEMBERS};
