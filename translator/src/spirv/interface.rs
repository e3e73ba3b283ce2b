//! The module-scope variables and constants of the entry points (`entry`,
//! docs/abi.md): the list every entry point's `OpEntryPoint` names, the
//! built-ins, the push-constant block, the work-group size and range-check
//! specialization constants, and the arenas of `memory`. Each is made once,
//! on first use. A leaf: `types` (`ModuleCx::interface`) holds it, and it
//! imports nothing of the back end.

use rspirv::spirv::Word;
use std::collections::HashMap;

/// The entry points' interface (`tx.interface`).
#[derive(Default)]
pub struct Interface {
    /// Module-scope variables listed in every entry point's interface.
    pub vars: Vec<Word>,
    /// Built-in `Input` variables, by `BuiltIn`.
    pub builtins: HashMap<u32, Word>,
    /// The push-constant block (`PisaLaunch`).
    pub push_constants: Option<Word>,
    /// The `WorkgroupSize` specialization-constant composite.
    pub wg_size: Option<Word>,
    /// The range-check specialization constant.
    pub range_check: Option<Word>,
    /// `memory`'s `Private` arena.
    pub private_arena: Option<Word>,
    /// `memory`'s `Workgroup` arena.
    pub shared_arena: Option<Word>,
}

impl Interface {
    /// Lists a module-scope variable in every entry point's interface.
    pub fn push(&mut self, var: Word) {
        self.vars.push(var);
    }
}
