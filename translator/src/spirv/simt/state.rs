//! What the module keeps for sub-group emulation ([`super`]): which
//! functions run in SIMT mode, and the module-scope variables the
//! cross-lane exchange ([`super::exchange`]) declares once, on first use.
//! A leaf: `types` (`ModuleCx::simt`) holds it, and it imports nothing of
//! the back end.

use rspirv::spirv::Word;

/// The sub-group emulation state of the module (`tx.simt`).
#[derive(Default)]
pub struct SimtState {
    /// Per function (by index): emitted in SIMT mode (`spirv::simt`).
    pub functions: Vec<bool>,
    /// The `Workgroup` array cross-lane instructions exchange values in.
    pub exchange: Option<Word>,
    /// The invocation's `Private` flag choosing which of the exchange's two
    /// counters a work-group-wide "any active" uses next.
    pub parity: Option<Word>,
    /// The same for the exchange's two sets of per-sub-group active masks.
    pub mask_parity: Option<Word>,
}
