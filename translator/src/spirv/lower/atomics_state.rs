//! What the module keeps for emulated atomics (`lower::atomics`): the lock
//! tables, each made once, when the first atomic needs it. A leaf apart
//! from `atomics.rs`, so that `types` (`ModuleCx::atomics`) can hold it
//! without importing a lowering.

use rspirv::spirv::Word;

/// The emulated-atomics state of the module (`tx.atomics`).
#[derive(Default)]
pub struct AtomicsState {
    /// Data-block offset of the lock table of emulated global atomics
    /// (`lower::atomics`), once one needs it.
    pub global_locks: Option<u64>,
    /// The `Workgroup` lock array of emulated shared atomics, which each
    /// entry point zeroes (`lower::atomics`), once one needs it.
    pub shared_locks: Option<Word>,
}
