//! What the module keeps for checked mode (`spirv::checked`): the device's
//! check function and the work-item's record of its first bad access, each
//! made once, when the first checked access needs it. A leaf apart from
//! `checked.rs` (which imports `memory` and is imported by it), so that
//! `types` (`ModuleCx::checked`) can hold it without joining that pair.

use rspirv::spirv::Word;

/// The checked-mode state of the module (`tx.checked`).
#[derive(Default)]
pub struct CheckedState {
    /// The `pisa_check_device` function, once an access needs it.
    pub function: Option<Word>,
    /// The work-item's first bad access, two `Private` variables, once an
    /// access is checked.
    pub state: Option<[Word; 2]>,
}
