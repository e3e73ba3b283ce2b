//! What the module keeps for the exchange of SIMT mode's instructions
//! (`lower::exchange`): the module-scope variables it declares once, on
//! first use. A leaf apart from `exchange.rs`, so that `types`
//! (`ModuleCx::exchange`) can hold it without importing a lowering.

use rspirv::spirv::Word;

/// The exchange state of the module (`tx.exchange`).
#[derive(Default)]
pub struct ExchangeState {
    /// The `Workgroup` array cross-lane instructions exchange values in.
    pub exchange: Option<Word>,
    /// The invocation's `Private` flag choosing which of the exchange's two
    /// counters a work-group-wide "any active" uses next.
    pub parity: Option<Word>,
    /// The same for the exchange's two sets of per-sub-group active masks.
    pub mask_parity: Option<Word>,
    /// The `Private` variables of the loops over a sub-group's lanes.
    pub lane_loop: Option<LaneLoopVars>,
}

/// `Private` variables for the loops over a sub-group's lanes: the lane
/// index and the values carried from lane to lane.
#[derive(Debug, Clone, Copy)]
pub struct LaneLoopVars {
    pub lane: Word,
    pub words: [Word; 2],
    pub flags: [Word; 2],
}
