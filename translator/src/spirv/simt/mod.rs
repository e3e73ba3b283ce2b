//! Sub-groups of 32 (spec 01, 04, 18) on any Vulkan device, emulated.
//!
//! PISA fixes the sub-group at 32 work-items with SIMT semantics: lanes
//! that diverge at a branch run their paths separately, `%activemask` says
//! which lanes run an instruction together, and cross-lane instructions
//! read the other active lanes' values. Vulkan sub-groups are 4 to 128 wide
//! (lavapipe's are 8) and promise nothing about reconvergence, so functions
//! that need sub-groups are emitted in **SIMT mode** ([`emit`]): every
//! invocation of the work-group walks the same, uniform control flow, and
//! a per-invocation *state* says whether its lane is active (0) or why it
//! waits — diverged to the other arm of an `if`, left a loop or block by
//! a `break`/`continue` that has not reached its target yet, returned.
//! A lane waits until its path reaches the point where its state is
//! cleared: the end of the `if`, the target of the jump, the end of the
//! function. These are the ends of the constructs of the IR's structured
//! tree, where the definition reconverges lanes (docs/spec-notes.md,
//! "Sub-groups": structured reconvergence); the reference device walks the
//! same tree (`pisa_interp::walk`), so the two agree on every shape.
//!
//! Code without sync points runs natively under `if (state == 0)`. A sync
//! point — a cross-lane instruction, a read of `%activemask`, a work-group
//! barrier, a call of a SIMT function — is executed by every invocation,
//! and the cross-lane ones exchange values through shared memory between
//! two work-group barriers ([`exchange`]). A loop with a sync point iterates
//! while any invocation of the work-group still runs it. SIMT functions
//! take the caller's active flag as an extra parameter.
//!
//! The cost is a few work-group barriers per sync point and per iteration
//! of a loop that contains one; functions without sync points are emitted
//! as before.

/// Which functions run in SIMT mode and which instructions are sync points:
/// an analysis of the IR (the pipeline's `unroll` pass needs it too).
pub use crate::ir::analysis::subgroups as analysis;
mod emit;
pub mod exchange;
pub mod state;

pub use emit::{emit_body, SimtVars};
// the state of a SIMT function ([`SimtCx`], [`LaneLoopVars`]) and
// [`guarded`] are in `function`, the hub every lowering imports
