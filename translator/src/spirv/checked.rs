//! Checked mode (`Options::checked_memory`, `pisa run --check`): what
//! compute-sanitizer gives CUDA users. Every `ld`, `st` and atomic checks
//! its address before the access. Which accesses, and each one's site,
//! size and alignment, the IR's `checked` pass says ([`crate::ir::checked`]:
//! an [`ir::Inst::CheckAccess`] before the access); this file lowers each
//! check at its access ([`FunctionCx::checked_address`]):
//!
//! - a device address (`.global`, `.const`, generic ones without an arena
//!   tag) must lie with all its bytes inside one live allocation of the
//!   launch: the runtime writes their ranges, sorted, into the launch's
//!   *check block*, and a binary search of fixed depth (no loop, so no
//!   driver loop cap can cut it short) finds the candidate;
//! - a `.shared` or `.private` offset must lie inside its arena;
//! - the address must be aligned as spec 09 §5.1 asks.
//!
//! A bad access goes to a harmless *sink* instead (128 bytes in the check
//! block, or past the end of the arena, which checked mode makes 128 bytes
//! longer), so it neither corrupts nor crashes anything. The work-item
//! keeps its first bad access (the site, an index into
//! `Layout::check_sites`; the space, address and size) in private
//! variables, and when it ends, the first work-item to end with one writes
//! it and its ids into the check block. The runtime turns that into the
//! same error the reference device gives.
//!
//! Reporting at the end keeps the code at each access small and
//! branch-free: Mesa inlines every function and llvmpipe turns every load
//! and store into a loop over its SIMD lanes, so a report (an atomic and
//! ten stores) at every access made lavapipe compile a checked kernel 25 to
//! 45 times longer than an unchecked one. The search stays straight-line
//! (as a loop, smaller still, it made llvmpipe lose its last step after
//! some loops of the kernel: `break_outer_loop.pisa` in
//! `tests/run_cases.rs`'s checked mode, with 3 or more live buffers), but
//! only as deep as the buffers live at the launch need
//! ([`CHECK_DEPTH_SPEC_ID`]): with both, lavapipe compiles a checked kernel
//! 2 to 4 times longer than an unchecked one (14 times for a 570-line
//! random program with sub-group code: fuzz seed 6100153).
//!
//! Where that 14 goes (perf, 2026-12-02): 88% of the compile is in LLVM,
//! in control-flow work (`Instruction::getSuccessor`, dominator trees, the
//! coroutine frame: llvmpipe makes a kernel with barriers a coroutine, and
//! LLVM 15's analysis of what crosses a suspend point grows roughly with
//! the square of the blocks). Every load is one of llvmpipe's per-lane
//! loops, so a checked access adds depth + 1 loops to the one the access
//! has (one per search step, and the end of the entry found; its start is
//! at or below the address by construction). A uniform buffer would not:
//! llvmpipe gathers from one without a loop (`emit_load_ubo` in Mesa
//! 22.3's `lp_bld_nir_soa.c`), but the table would need a descriptor set,
//! which the runtime has none of (everything goes through push constants
//! and buffer device addresses) — the next step if checked mode's compile
//! time matters.
//!
//! The check block (docs/abi.md, "Checked mode"), at the `check` push
//! constant: see the `CHECK_*` constants.

use super::error::TranslateError;
use super::error::R;
use super::function::FunctionCx;
use super::memory::{Mem, GENERIC_PRIVATE_TAG, GENERIC_SHARED_TAG};
use super::types::ModuleCx;
use crate::abi::Push;
use crate::ir;
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{
    BuiltIn, FunctionControl, MemoryAccess, MemorySemantics, Scope, SelectionControl, StorageClass,
    Word,
};

/// `u32`: 0 while no access was bad; then [`CHECK_OUT_OF_BOUNDS`] or
/// [`CHECK_MISALIGNED`] (the first work-item to report one wins).
pub const CHECK_KIND: u64 = 0;
pub const CHECK_OUT_OF_BOUNDS: u32 = 1;
pub const CHECK_MISALIGNED: u32 = 2;
/// `u32`: the site, an index into `Layout::check_sites`.
pub const CHECK_SITE: u64 = 4;
/// `u64`: the address (a device address, or an arena offset).
pub const CHECK_ADDRESS: u64 = 8;
/// `u32`: the access's size in bytes.
pub const CHECK_BYTES: u64 = 16;
/// `u32`: [`SPACE_DEVICE`], [`SPACE_SHARED`] or [`SPACE_PRIVATE`].
pub const CHECK_SPACE: u64 = 20;
pub const SPACE_DEVICE: u32 = 0;
pub const SPACE_SHARED: u32 = 1;
pub const SPACE_PRIVATE: u32 = 2;
/// 3 × `u32`: the work-item's `%localid`.
pub const CHECK_LOCAL_ID: u64 = 24;
/// 3 × `u32`: its `%groupid`.
pub const CHECK_GROUP_ID: u64 = 36;
/// Where bad device accesses go instead (128 bytes, 64-byte aligned).
pub const CHECK_SINK: u64 = 64;
/// Bytes of every sink: the largest access (a 128-bit atomic, a vector).
pub const SINK_BYTES: u64 = 128;
/// The table of live allocations: `CHECK_TABLE_ENTRIES` × (`u64` first
/// byte, `u64` one past the last), sorted by first byte; entry 0 is
/// `(0, 0)` and unused entries `(u64::MAX, u64::MAX)`.
pub const CHECK_TABLE: u64 = CHECK_SINK + SINK_BYTES;
/// Entries of the table (a power of two: the search halves it 10 times).
pub const CHECK_TABLE_ENTRIES: u64 = 1024;
/// Specialization constant (`u32`, default 10): the binary search's steps;
/// the runtime sets it so that entry 0 and the live entries lie in the
/// table's first `2^depth` entries ([`check_depth`]).
pub const CHECK_DEPTH_SPEC_ID: u32 = 4;

/// The search depth the runtime uses for a table of `entries` (entry 0
/// included): one of a few, so that a growing number of buffers makes few
/// pipeline variants; `None` past the table.
pub fn check_depth(entries: u64) -> Option<u32> {
    [4u32, 7, CHECK_TABLE_ENTRIES.trailing_zeros()]
        .into_iter()
        .find(|&d| entries <= 1 << d)
}

/// Bytes of the check block.
pub const CHECK_BLOCK_BYTES: u64 = CHECK_TABLE + 16 * CHECK_TABLE_ENTRIES;

/// Bytes of an arena in checked mode: its variables, then the sink.
pub fn arena_bytes_checked(bytes: u32) -> u32 {
    sink_offset(bytes) + SINK_BYTES as u32
}

/// Where an arena's sink starts: after its variables, 16-byte aligned.
pub fn sink_offset(bytes: u32) -> u32 {
    bytes.div_ceil(16) * 16
}

impl FunctionCx<'_, '_> {
    /// `addr` when the access being lowered has a check (an
    /// [`ir::Inst::CheckAccess`] before it, put there by the `checked`
    /// pass) and is good, else the sink of its space (and the first bad
    /// access is reported); without a check, `addr` as it is.
    pub fn checked_address(&mut self, addr: Word, mem: Mem) -> R<Word> {
        let Some(ir::AccessCheck { site, bytes, align }) = self.check.take() else {
            return Ok(addr);
        };
        let bt = self.tx.bool_ty();
        let u32t = self.tx.uint(32);
        let u64t = self.tx.uint(64);
        let (in_bounds, aligned, space, sink, shown) = match mem {
            Mem::Device => {
                let inb = self.device_in_bounds(addr, bytes)?;
                let al = self.is_aligned(addr, 64, align)?;
                let space = self.tx.const_u32(SPACE_DEVICE);
                (inb, al, space, self.device_sink()?, addr)
            }
            Mem::Shared | Mem::Private => {
                let inb = self.arena_in_bounds(addr, mem, bytes)?;
                let al = self.is_aligned(addr, 32, align)?;
                let space = self.tx.const_u32(if mem == Mem::Shared {
                    SPACE_SHARED
                } else {
                    SPACE_PRIVATE
                });
                let sink = self.tx.const_u32(sink_offset(self.arena_size(mem)));
                let shown = self.resize(addr, 32, 64, false)?;
                (inb, al, space, sink, shown)
            }
            Mem::Generic => {
                let sh = self.tx.const_uint(64, 48);
                let tag = self.tx.b.shift_right_logical(u64t, None, addr, sh)?;
                let ts = self.tx.const_uint(64, GENERIC_SHARED_TAG);
                let tp = self.tx.const_uint(64, GENERIC_PRIVATE_TAG);
                let is_s = self.tx.b.i_equal(bt, None, tag, ts)?;
                let is_p = self.tx.b.i_equal(bt, None, tag, tp)?;
                let low = self.resize(addr, 64, 32, false)?;
                let inb_d = self.device_in_bounds(addr, bytes)?;
                let inb_s = self.arena_in_bounds(low, Mem::Shared, bytes)?;
                let inb_p = self.arena_in_bounds(low, Mem::Private, bytes)?;
                let inb = self.tx.b.select(bt, None, is_p, inb_p, inb_d)?;
                let inb = self.tx.b.select(bt, None, is_s, inb_s, inb)?;
                let al = self.is_aligned(addr, 64, align)?;
                let (d, s, p) = (
                    self.tx.const_u32(SPACE_DEVICE),
                    self.tx.const_u32(SPACE_SHARED),
                    self.tx.const_u32(SPACE_PRIVATE),
                );
                let space = self.tx.b.select(u32t, None, is_p, p, d)?;
                let space = self.tx.b.select(u32t, None, is_s, s, space)?;
                let arena = self.tx.b.logical_or(bt, None, is_s, is_p)?;
                let low64 = self.resize(low, 32, 64, false)?;
                let shown = self.tx.b.select(u64t, None, arena, low64, addr)?;
                // the device sink: a generic address without a tag
                (inb, al, space, self.device_sink()?, shown)
            }
        };
        let ok = self.tx.b.logical_and(bt, None, in_bounds, aligned)?;
        let oob = self.tx.const_u32(CHECK_OUT_OF_BOUNDS);
        let mis = self.tx.const_u32(CHECK_MISALIGNED);
        // an access both misaligned and out of bounds is misaligned, as the
        // reference device reports it (it checks alignment first)
        let kind = self.tx.b.select(u32t, None, aligned, oob, mis)?;
        self.note_unless(ok, kind, site, shown, bytes, space)?;
        let t = if matches!(mem, Mem::Shared | Mem::Private) {
            u32t
        } else {
            u64t
        };
        Ok(self.tx.b.select(t, None, ok, addr, sink)?)
    }

    fn arena_size(&self, mem: Mem) -> u32 {
        if mem == Mem::Private {
            self.tx.layout.private_bytes
        } else {
            self.tx.layout.shared_bytes
        }
    }

    /// `addr + bytes <= size` of the arena, without overflow.
    fn arena_in_bounds(&mut self, addr: Word, mem: Mem, bytes: u32) -> R<Word> {
        let bt = self.tx.bool_ty();
        Ok(match self.arena_size(mem).checked_sub(bytes) {
            Some(limit) => {
                let l = self.tx.const_u32(limit);
                self.tx.b.u_less_than_equal(bt, None, addr, l)?
            }
            None => self.tx.b.constant_false(bt),
        })
    }

    fn is_aligned(&mut self, addr: Word, bits: u16, align: u32) -> R<Word> {
        let bt = self.tx.bool_ty();
        let t = self.tx.uint(bits);
        let m = self.tx.const_uint(bits, align.max(1) as u64 - 1);
        let low = self.tx.b.bitwise_and(t, None, addr, m)?;
        let zero = self.tx.const_uint(bits, 0);
        Ok(self.tx.b.i_equal(bt, None, low, zero)?)
    }

    fn device_sink(&mut self) -> R<Word> {
        let block = self.tx.push_addr(Push::Check)?;
        self.offset64(block, CHECK_SINK)
    }

    /// Whether `bytes` at device address `addr` lie in one live allocation
    /// (`pisa_check_device`, emitted once per module).
    fn device_in_bounds(&mut self, addr: Word, bytes: u32) -> R<Word> {
        let bt = self.tx.bool_ty();
        let f = *self
            .tx
            .checked
            .function
            .get_or_insert_with(|| self.tx.b.id());
        let end = self.offset64(addr, bytes as u64)?;
        Ok(self.tx.b.function_call(bt, None, f, [addr, end])?)
    }

    /// Unless `ok`, keeps the access as the work-item's first bad one
    /// (when it has none yet), without a branch: two selects on the
    /// work-item's [`state_vars`]. The report is written once, when the
    /// work-item ends ([`emit_report`]): a branch with an atomic and ten
    /// stores at every access made lavapipe compile a checked kernel several
    /// times longer (Mesa inlines every function; llvmpipe turns each store
    /// into a loop over the SIMD lanes).
    fn note_unless(
        &mut self,
        ok: Word,
        kind: Word,
        site: u32,
        addr: Word,
        bytes: u32,
        space: Word,
    ) -> R<()> {
        let [what_var, addr_var] = state_vars(self.tx);
        let bt = self.tx.bool_ty();
        let u64t = self.tx.uint(64);
        let what = self.tx.b.load(u64t, None, what_var, None, [])?;
        let zero = self.tx.const_uint(64, 0);
        let none_yet = self.tx.b.i_equal(bt, None, what, zero)?;
        let bad = self.tx.b.logical_not(bt, None, ok)?;
        let take = self.tx.b.logical_and(bt, None, none_yet, bad)?;
        let fixed = self.tx.const_uint(64, pack_what(site, bytes, 0, 0));
        let space = self.tx.b.u_convert(u64t, None, space)?;
        let four = self.tx.const_uint(64, 4);
        let space = self.tx.b.shift_left_logical(u64t, None, space, four)?;
        let kind = self.tx.b.u_convert(u64t, None, kind)?;
        let packed = self.tx.b.bitwise_or(u64t, None, fixed, space)?;
        let packed = self.tx.b.bitwise_or(u64t, None, packed, kind)?;
        let what = self.tx.b.select(u64t, None, take, packed, what)?;
        self.tx.b.store(what_var, what, None, [])?;
        let old = self.tx.b.load(u64t, None, addr_var, None, [])?;
        let addr = self.tx.b.select(u64t, None, take, addr, old)?;
        self.tx.b.store(addr_var, addr, None, [])?;
        Ok(())
    }
}

/// A work-item's first bad access in one `u64` (0: none): the site in bits
/// 32..64, the size in bytes in 8..32, the space in 4..8, the kind in 0..4.
fn pack_what(site: u32, bytes: u32, space: u32, kind: u32) -> u64 {
    debug_assert!(bytes < 1 << 24 && space < 16 && kind < 16);
    (site as u64) << 32 | (bytes as u64) << 8 | (space as u64) << 4 | kind as u64
}

/// The work-item's checked-mode state, `Private` (one per invocation,
/// starting at 0): its first bad access packed as [`pack_what`] does, and
/// that access's address.
fn state_vars(tx: &mut ModuleCx) -> [Word; 2] {
    if let Some(v) = tx.checked.state {
        return v;
    }
    let u64t = tx.uint(64);
    let pt = tx.ptr(StorageClass::Private, u64t);
    let zero = tx.const_uint(64, 0);
    let vars = ["pisa_check_what", "pisa_check_address"].map(|name| {
        let v = tx.b.id();
        tx.b.module_mut()
            .types_global_values
            .push(rspirv::dr::Instruction::new(
                rspirv::spirv::Op::Variable,
                Some(pt),
                Some(v),
                vec![SOp::StorageClass(StorageClass::Private), SOp::IdRef(zero)],
            ));
        tx.b.name(v, name);
        tx.interface.push(v);
        v
    });
    tx.checked.state = Some(vars);
    vars
}

/// At the end of a kernel's work-item (its entry point, after the body):
/// if it made a bad access, records the first one in the check block
/// unless another work-item's came first (one atomic compare-exchange on
/// [`CHECK_KIND`]). Nothing when no access is checked.
pub fn emit_report(tx: &mut ModuleCx) -> R<()> {
    let Some([what_var, addr_var]) = tx.checked.state else {
        return Ok(());
    };
    let u32t = tx.uint(32);
    let u64t = tx.uint(64);
    let bt = tx.bool_ty();
    let what = tx.b.load(u64t, None, what_var, None, [])?;
    let zero64 = tx.const_uint(64, 0);
    let bad = tx.b.i_not_equal(bt, None, what, zero64)?;
    let (report, first, done) = (tx.b.id(), tx.b.id(), tx.b.id());
    tx.b.selection_merge(done, SelectionControl::NONE)?;
    tx.b.branch_conditional(bad, report, done, [])?;
    tx.b.begin_block(Some(report))?;
    let block = tx.push_addr(Push::Check)?;
    let field = |tx: &mut ModuleCx, shift: u64, mask: u64| -> R<Word> {
        let s = tx.const_uint(64, shift);
        let m = tx.const_uint(64, mask);
        let v = tx.b.shift_right_logical(u64t, None, what, s)?;
        let v = tx.b.bitwise_and(u64t, None, v, m)?;
        Ok(tx.b.u_convert(u32t, None, v)?)
    };
    let kind = field(tx, 0, 0xf)?;
    let pt32 = tx.ptr(StorageClass::PhysicalStorageBuffer, u32t);
    let flag = tx.b.convert_u_to_ptr(pt32, None, block)?;
    let scope = tx.const_u32(Scope::Device as u32);
    let relaxed = tx.const_u32(MemorySemantics::empty().bits());
    let zero = tx.const_u32(0);
    let old =
        tx.b.atomic_compare_exchange(u32t, None, flag, scope, relaxed, relaxed, kind, zero)?;
    let won = tx.b.i_equal(bt, None, old, zero)?;
    let written = tx.b.id();
    tx.b.selection_merge(written, SelectionControl::NONE)?;
    tx.b.branch_conditional(won, first, written, [])?;
    tx.b.begin_block(Some(first))?;
    let addr = tx.b.load(u64t, None, addr_var, None, [])?;
    let mut fields = vec![
        (CHECK_SITE, field(tx, 32, 0xffff_ffff)?, 32),
        (CHECK_ADDRESS, addr, 64),
        (CHECK_BYTES, field(tx, 8, 0xff_ffff)?, 32),
        (CHECK_SPACE, field(tx, 4, 0xf)?, 32),
    ];
    for d in 0..3 {
        let l = tx.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", d)?;
        let g = tx.group_id(d)?;
        fields.push((CHECK_LOCAL_ID + 4 * d as u64, l, 32));
        fields.push((CHECK_GROUP_ID + 4 * d as u64, g, 32));
    }
    for (off, v, bits) in fields {
        let o = tx.const_uint(64, off);
        let at = tx.b.i_add(u64t, None, block, o)?;
        let t = tx.uint(bits);
        let pt = tx.ptr(StorageClass::PhysicalStorageBuffer, t);
        let p = tx.b.convert_u_to_ptr(pt, None, at)?;
        tx.b.store(
            p,
            v,
            Some(MemoryAccess::ALIGNED),
            [SOp::LiteralBit32(bits as u32 / 8)],
        )?;
    }
    tx.b.branch(written)?;
    tx.b.begin_block(Some(written))?;
    tx.b.branch(done)?;
    tx.b.begin_block(Some(done))?;
    Ok(())
}

/// Emits `pisa_check_device(addr, end) -> bool` when some access uses it:
/// whether `addr..end` lies inside one range of the check block's table.
/// A binary search of fixed depth over the sorted table: straight-line code.
pub fn emit_device_check(tx: &mut ModuleCx) -> Result<(), TranslateError> {
    let Some(id) = tx.checked.function else {
        return Ok(());
    };
    let bt = tx.bool_ty();
    let u64t = tx.uint(64);
    let fty = tx.b.type_function(bt, [u64t, u64t]);
    tx.b.begin_function(bt, Some(id), FunctionControl::NONE, fty)?;
    tx.b.name(id, "pisa_check_device");
    let addr = tx.b.function_parameter(u64t)?;
    let end = tx.b.function_parameter(u64t)?;
    tx.b.begin_block(None)?;
    let block = tx.push_addr(Push::Check)?;
    let table_off = tx.const_uint(64, CHECK_TABLE);
    let table = tx.b.i_add(u64t, None, block, table_off)?;
    let load_at = |tx: &mut ModuleCx, index: Word, field: u64| -> R<Word> {
        let sixteen = tx.const_uint(64, 16);
        let off = tx.b.i_mul(u64t, None, index, sixteen)?;
        let at = tx.b.i_add(u64t, None, table, off)?;
        let f = tx.const_uint(64, field);
        let at = tx.b.i_add(u64t, None, at, f)?;
        let pt = tx.ptr(rspirv::spirv::StorageClass::PhysicalStorageBuffer, u64t);
        let p = tx.b.convert_u_to_ptr(pt, None, at)?;
        Ok(tx.b.load(
            u64t,
            None,
            p,
            Some(MemoryAccess::ALIGNED),
            [SOp::LiteralBit32(8)],
        )?)
    };
    // the last entry whose first byte is at or below addr (entry 0 is
    // (0, 0): always a candidate)
    // Only the last `depth` steps search (entries 0 .. 2^depth): `depth` is
    // specialization constant CHECK_DEPTH_SPEC_ID, which the runtime sets
    // from how many buffers are live, so that the driver removes the other
    // steps and their loads (lavapipe compiles a checked kernel 2.5 times
    // faster at depth 4 than at 10); its default searches the whole table.
    let u32t = tx.uint(32);
    let depth =
        tx.b.spec_constant_bit32(u32t, CHECK_TABLE_ENTRIES.trailing_zeros());
    tx.b.decorate(
        depth,
        rspirv::spirv::Decoration::SpecId,
        [SOp::LiteralBit32(CHECK_DEPTH_SPEC_ID)],
    );
    tx.b.name(depth, "pisa_check_depth");
    let mut i = tx.const_uint(64, 0);
    let mut step = CHECK_TABLE_ENTRIES / 2;
    while step > 0 {
        let s = tx.const_uint(64, step);
        let j = tx.b.i_add(u64t, None, i, s)?;
        let first = load_at(tx, j, 0)?;
        let below = tx.b.u_less_than_equal(bt, None, first, addr)?;
        let k = tx.const_u32(step.trailing_zeros());
        let active = tx.b.u_less_than(bt, None, k, depth)?;
        let take = tx.b.logical_and(bt, None, active, below)?;
        i = tx.b.select(u64t, None, take, j, i)?;
        step /= 2;
    }
    // entry i starts at or below addr by construction (entry 0 at 0), so
    // only its end is loaded: every load is one of llvmpipe's per-lane loops
    let past = load_at(tx, i, 8)?;
    let inside = tx.b.u_less_than_equal(bt, None, end, past)?;
    // an access that wraps around the address space is never good
    let no_wrap = tx.b.u_less_than_equal(bt, None, addr, end)?;
    let ok = tx.b.logical_and(bt, None, inside, no_wrap)?;
    tx.b.ret_value(ok)?;
    tx.b.end_function()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_depth_covers_the_table_entries() {
        let depths: Vec<Option<u32>> = [1, 16, 17, 128, 129, 1024, 1025]
            .into_iter()
            .map(check_depth)
            .collect();
        assert_eq!(
            depths,
            [Some(4), Some(4), Some(7), Some(7), Some(10), Some(10), None]
        );
    }
}
