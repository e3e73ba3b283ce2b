//! Differential fuzzing of PISA devices: seeded random programs
//! ([`generate`]), devices that run them ([`Runner`], [`VulkanDevice`]), a
//! bit-for-bit comparison ([`check`], [`fuzz`]) and a reducer that shrinks a
//! program while a predicate still holds ([`reduce`]); the same program
//! split into two modules that link ([`print_split`], run by devices built
//! with [`Build::Linked`]).

#![forbid(unsafe_code)]

pub mod case;
pub mod device;
pub mod diff;
pub mod gen;
pub mod print;
pub mod program;
pub mod reduce;
pub mod rng;
pub mod split;

pub use case::{Arg, Case, LaunchShape};
pub use device::{ApiDevice, Build, Outputs, Runner, VulkanDevice};
pub use diff::{check, check_alone, compare, declined, fuzz, FuzzStats, Verdict};
pub use gen::{generate, GenConfig, VECTOR_TEMPS};
pub use reduce::{reduce, write_reproducer};
pub use split::{print_split, write_split};
