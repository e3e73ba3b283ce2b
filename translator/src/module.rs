//! The validated module.
pub struct Module;
