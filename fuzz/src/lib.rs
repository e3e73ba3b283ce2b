//! Differential fuzzing of PISA devices: seeded random programs
//! ([`generate`]), devices that run them ([`Device`], [`VulkanDevice`]), a
//! bit-for-bit comparison ([`check`], [`fuzz`]) and a reducer that shrinks a
//! program while a predicate still holds ([`reduce`]).

pub mod case;
pub mod gen;
pub mod print;
pub mod program;
pub mod rng;

pub use case::{Arg, Case, LaunchShape};
pub use gen::{generate, GenConfig};
