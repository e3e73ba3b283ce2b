//! SIMT mode's instructions ([`crate::ir::simt`], the IR pass that puts
//! them where every invocation of the work-group runs them together):
//! cross-lane instructions (spec 18), `%activemask` (spec 04) and the
//! work-group-wide vote of loops with sync points, through the
//! work-group's *exchange*: a `Workgroup` array where every invocation
//! stores its value at its linear id, and sets its bit in its sub-group's
//! active mask if it is active, between two work-group barriers; each
//! active lane then reads the slots and the mask of its sub-group (32
//! consecutive linear ids). The `simt` pass guarantees that every
//! invocation of the work-group reaches these barriers together.
//!
//! Layout of the array (u32 words): values at `[0, MAX_ITEMS)`, then two
//! sets of one active mask per sub-group (used alternately, like the two
//! counters of [`any_active`], so that the set being cleared for the next
//! exchange is never the one being read), then those two counters, then
//! two sets (used with the masks) of two words per sub-group: the OR of the
//! active lanes' participation masks (`src1` of a reduction) and the OR of
//! their complements; the masks are all equal when the two have no common
//! bit.
//!
//! Reductions (`ired`, `fred`) fold the participating lanes' values in two
//! levels of straight-line code, without a loop: each invocation folds its
//! group of 8 consecutive lanes, publishes the group's partial result in
//! its value slot (between two more barriers), and folds the sub-group's 4
//! partial results in lane order ([`Lanes::share_partials`]). Where the
//! active lanes' participation masks differ, each active lane folds the 32
//! lanes itself in a loop ([`lane_loop`]); a reduction whose mask is an
//! immediate has no such loop.

use super::exchange_state::LaneLoopVars;
use crate::ir::qualifier::Op;
use crate::ir::Opcode;
use crate::ir::Operand;
use crate::ir::Qualifier;
use crate::ir::{FloatKind, Role, Type};
use crate::spirv::error::TranslateError;
use crate::spirv::error::R;
use crate::spirv::function::{guarded, FunctionCx};
use crate::spirv::lower::common::Ins;
use rspirv::spirv::{GlslStd450Op as G, LoopControl, MemorySemantics, Scope, StorageClass, Word};

/// The largest work-group the exchange serves (the ABI's
/// [`SUBGROUP_EXCHANGE_ITEMS`](crate::abi::SUBGROUP_EXCHANGE_ITEMS)).
pub const MAX_ITEMS: u32 = crate::abi::SUBGROUP_EXCHANGE_ITEMS;
/// The first of the two sets of per-sub-group active masks.
const MASKS: u32 = MAX_ITEMS;
/// Sub-groups of 32 in the largest work-group: words per set of masks.
const SUBGROUPS: u32 = MAX_ITEMS / 32;
const COUNTERS: u32 = MASKS + 2 * SUBGROUPS;
/// The first of the two sets of per-sub-group ORs of participation masks
/// and of their complements.
const ORS: u32 = COUNTERS + 2;

fn exchange_var(fx: &mut FunctionCx) -> Word {
    if let Some(v) = fx.tx.exchange.exchange {
        return v;
    }
    let u32t = fx.tx.uint(32);
    let n = fx.tx.const_u32(ORS + 4 * SUBGROUPS);
    let arr = fx.tx.b.type_array(u32t, n);
    let pt = fx.tx.ptr(StorageClass::Workgroup, arr);
    let v = fx.tx.global_var(pt, StorageClass::Workgroup);
    fx.tx.b.name(v, "pisa_subgroup_exchange");
    fx.tx.interface.push(v);
    fx.tx.exchange.exchange = Some(v);
    v
}

fn slot(fx: &mut FunctionCx, index: Word) -> R<Word> {
    let var = exchange_var(fx);
    let u32t = fx.tx.uint(32);
    let pt = fx.tx.ptr(StorageClass::Workgroup, u32t);
    Ok(fx.tx.b.access_chain(pt, None, var, [index])?)
}

/// A work-group barrier that orders the exchange's accesses.
pub fn barrier(fx: &mut FunctionCx) -> R<()> {
    let wg = fx.tx.const_u32(Scope::Workgroup as u32);
    let sem = fx
        .tx
        .const_u32((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
    fx.tx.b.control_barrier(wg, wg, sem)?;
    Ok(())
}

/// The sub-group of the calling lane, after every invocation published.
struct Lanes {
    /// Linear id of lane 0 of the sub-group.
    base: Word,
    laneid: Word,
    /// The sub-group's active mask (bit j: lane j exists and is active).
    mask: Word,
    /// Whether the active lanes published equal participation masks (`None`
    /// when none was published: the mask is an immediate, one for all).
    uniform: Option<Word>,
}

/// Every invocation stores `value` and, if `active`, sets its bit in its
/// sub-group's mask and ORs `check` (a participation mask) and its
/// complement into the sub-group's two words; returns once all have.
fn publish(fx: &mut FunctionCx, value: Word, active: Word, check: Option<Word>) -> R<Lanes> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let id = fx.tx.local_linear_id()?;
    let m31 = fx.tx.const_u32(31);
    let laneid = fx.tx.b.bitwise_and(u32t, None, id, m31)?;
    let base = fx.tx.b.i_sub(u32t, None, id, laneid)?;
    let s5 = fx.tx.const_u32(5);
    let subgroup = fx.tx.b.shift_right_logical(u32t, None, id, s5)?;
    // this exchange's set of masks, and the other one
    let parity = parity_var(fx, Parity::Masks);
    let par = fx.tx.b.load(u32t, None, parity, None, [])?;
    let one = fx.tx.const_u32(1);
    let other = fx.tx.b.bitwise_xor(u32t, None, par, one)?;
    fx.tx.b.store(parity, other, None, [])?;
    let mask_index = |fx: &mut FunctionCx, set: Word| -> R<Word> {
        let words = fx.tx.const_u32(SUBGROUPS);
        let at = fx.tx.b.i_mul(u32t, None, set, words)?;
        let masks = fx.tx.const_u32(MASKS);
        let at = fx.tx.b.i_add(u32t, None, at, masks)?;
        Ok(fx.tx.b.i_add(u32t, None, at, subgroup)?)
    };
    let this_i = mask_index(fx, par)?;
    let other_i = mask_index(fx, other)?;
    let ors_index = |fx: &mut FunctionCx, set: Word, complement: bool| -> R<Word> {
        let words = fx.tx.const_u32(2 * SUBGROUPS);
        let at = fx.tx.b.i_mul(u32t, None, set, words)?;
        let start = fx
            .tx
            .const_u32(ORS + if complement { SUBGROUPS } else { 0 });
        let at = fx.tx.b.i_add(u32t, None, at, start)?;
        Ok(fx.tx.b.i_add(u32t, None, at, subgroup)?)
    };
    let ors = [ors_index(fx, par, false)?, ors_index(fx, par, true)?];
    let other_ors = [ors_index(fx, other, false)?, ors_index(fx, other, true)?];
    // the previous exchange's readers are done
    barrier(fx)?;
    let p = slot(fx, id)?;
    fx.tx.b.store(p, value, None, [])?;
    let wg = fx.tx.const_u32(Scope::Workgroup as u32);
    let relaxed = fx.tx.const_u32(0);
    let bit = fx.tx.b.shift_left_logical(u32t, None, one, laneid)?;
    let mask_p = slot(fx, this_i)?;
    let or_ps = match check {
        Some(c) => {
            let not_c = fx.tx.b.not(u32t, None, c)?;
            Some([(slot(fx, ors[0])?, c), (slot(fx, ors[1])?, not_c)])
        }
        None => None,
    };
    guarded(fx, active, |fx| {
        fx.tx.b.atomic_or(u32t, None, mask_p, wg, relaxed, bit)?;
        for (p, v) in or_ps.into_iter().flatten() {
            fx.tx.b.atomic_or(u32t, None, p, wg, relaxed, v)?;
        }
        Ok(())
    })?;
    barrier(fx)?;
    let mask_p = slot(fx, this_i)?;
    let mask = fx.tx.b.atomic_load(u32t, None, mask_p, wg, relaxed)?;
    let uniform = if check.is_some() {
        Some({
            let p0 = slot(fx, ors[0])?;
            let p1 = slot(fx, ors[1])?;
            let a = fx.tx.b.atomic_load(u32t, None, p0, wg, relaxed)?;
            let b = fx.tx.b.atomic_load(u32t, None, p1, wg, relaxed)?;
            let common = fx.tx.b.bitwise_and(u32t, None, a, b)?;
            let zero = fx.tx.const_u32(0);
            fx.tx.b.i_equal(bt, None, common, zero)?
        })
    } else {
        None
    };
    // lane 0 clears the sub-group's other mask for the next exchange (every
    // invocation read it before this exchange's first barrier)
    let zero = fx.tx.const_u32(0);
    let first = fx.tx.b.i_equal(bt, None, laneid, zero)?;
    let other_p = slot(fx, other_i)?;
    let other_or_ps = [slot(fx, other_ors[0])?, slot(fx, other_ors[1])?];
    guarded(fx, first, |fx| {
        fx.tx.b.atomic_store(other_p, wg, relaxed, zero)?;
        for p in other_or_ps {
            fx.tx.b.atomic_store(p, wg, relaxed, zero)?;
        }
        Ok(())
    })?;
    Ok(Lanes {
        base,
        laneid,
        mask,
        uniform,
    })
}

impl Lanes {
    /// The value lane `j` published, for `j` in 0..32: no clamp needed (a
    /// sub-group's 32 slots are all in the exchange; one past the work-group
    /// holds a stale value that the participation mask leaves out).
    fn lane_value(&self, fx: &mut FunctionCx, j: Word) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let i = fx.tx.b.i_add(u32t, None, self.base, j)?;
        load_slot(fx, i)
    }

    /// The value of lane `j` for any `j` (`shfl`'s computed source): a lane
    /// outside the sub-group reads a slot in bounds (and is ignored).
    fn value(&self, fx: &mut FunctionCx, j: Word) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let i = fx.tx.b.i_add(u32t, None, self.base, j)?;
        let last = fx.tx.const_u32(MAX_ITEMS - 1);
        let i = fx.tx.glsl_op(u32t, G::UMin, &[i, last])?;
        load_slot(fx, i)
    }

    /// Bit `j` of `mask`, for `j` in 0..32.
    fn lane_bit(&self, fx: &mut FunctionCx, mask: Word, j: Word) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let s = fx.tx.b.shift_right_logical(u32t, None, mask, j)?;
        let one = fx.tx.const_u32(1);
        let b = fx.tx.b.bitwise_and(u32t, None, s, one)?;
        Ok(fx.tx.b.i_equal(bt, None, b, one)?)
    }

    /// Bit `lane mod 32` of `mask`, for any `lane`.
    fn bit(&self, fx: &mut FunctionCx, mask: Word, lane: Word) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let m31 = fx.tx.const_u32(31);
        let l = fx.tx.b.bitwise_and(u32t, None, lane, m31)?;
        self.lane_bit(fx, mask, l)
    }
}

fn load_slot(fx: &mut FunctionCx, i: Word) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let p = slot(fx, i)?;
    Ok(fx.tx.b.load(u32t, None, p, None, [])?)
}

/// Lanes per group of a fold's first level ([`Lanes::share_partials`]).
const GROUP: u32 = 8;
/// Groups per sub-group: partial results of a fold's second level.
const GROUPS: u32 = 32 / GROUP;

impl Lanes {
    /// The lanes of this invocation's group of [`GROUP`] consecutive lanes,
    /// in order: the first level of a fold covers them.
    fn group_lanes(&self, fx: &mut FunctionCx) -> R<Vec<Word>> {
        let u32t = fx.tx.uint(32);
        let high = fx.tx.const_u32(!(GROUP - 1) & 31);
        let first = fx.tx.b.bitwise_and(u32t, None, self.laneid, high)?;
        (0..GROUP)
            .map(|i| {
                if i == 0 {
                    return Ok(first);
                }
                let ic = fx.tx.const_u32(i);
                Ok(fx.tx.b.i_add(u32t, None, first, ic)?)
            })
            .collect()
    }

    /// The second level of a fold: every invocation publishes `word`, the
    /// partial result of its group (the lanes of [`Lanes::group_lanes`]),
    /// and gets, for each group `k` of its sub-group in lane order, whether
    /// any of its lanes is in `participants` and the word of its lowest
    /// participating lane (all lanes of a group publish the same partial
    /// when the active lanes' masks are equal; the callers fold in a loop
    /// where they differ).
    /// A group without participants reads a slot in the sub-group whose
    /// value is to be ignored: its lanes may not exist.
    ///
    /// Between a fold's two levels, not in a loop over the lanes: llvmpipe
    /// ends all loops of an invocation after 65,535 trips in all
    /// (docs/abi.md), and a reduction in a long loop then stopped early;
    /// 32 straight-line copies of a fold's step made llvmpipe take many
    /// seconds to compile a kernel with many reductions. Two levels take
    /// [`GROUP`] + [`GROUPS`] copies, no loop.
    fn share_partials(
        &self,
        fx: &mut FunctionCx,
        participants: Word,
        word: Word,
    ) -> R<Vec<(Word, Word)>> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        // every invocation has read the published values
        barrier(fx)?;
        let id = fx.tx.local_linear_id()?;
        let p = slot(fx, id)?;
        fx.tx.b.store(p, word, None, [])?;
        barrier(fx)?;
        let group_mask = fx.tx.const_u32((1 << GROUP) - 1);
        let lane_in_group = fx.tx.const_u32(GROUP - 1);
        let zero = fx.tx.const_u32(0);
        (0..GROUPS)
            .map(|k| {
                let start = fx.tx.const_u32(k * GROUP);
                let bits = fx
                    .tx
                    .b
                    .shift_right_logical(u32t, None, participants, start)?;
                let bits = fx.tx.b.bitwise_and(u32t, None, bits, group_mask)?;
                let any = fx.tx.b.i_not_equal(bt, None, bits, zero)?;
                // FindILsb(0) is -1: lane 7 of the group, in the sub-group
                let low = fx.tx.glsl_op(u32t, G::FindILsb, &[bits])?;
                let low = fx.tx.b.bitwise_and(u32t, None, low, lane_in_group)?;
                let j = fx.tx.b.i_add(u32t, None, start, low)?;
                Ok((any, self.lane_value(fx, j)?))
            })
            .collect()
    }
}

/// Runs `body` for lanes `j = 0..32` as a SPIR-V loop of
/// [`LANE_LOOP_TRIPS`] trips, each running `body` for
/// 32 / [`LANE_LOOP_TRIPS`] lanes in a row, carrying `values` (type,
/// initial value) from one lane to the next; returns the variables (type,
/// pointer) that hold their final values.
///
/// Only a reduction whose active lanes' participation masks differ folds
/// in this loop (each lane over its own participants): llvmpipe counts
/// every trip of every loop of an invocation against its cap of 65,535
/// (docs/abi.md), so the folds with one mask take no loop
/// ([`Lanes::share_partials`]).
/// The trips of a lane loop ([`lane_loop`]): 32, of one lane each.
pub const LANE_LOOP_TRIPS: u32 = 32;

fn lane_loop(
    fx: &mut FunctionCx,
    values: &[(Word, Word)],
    mut body: impl FnMut(&mut FunctionCx, Word, &[Word]) -> R<Vec<Word>>,
) -> R<Vec<(Word, Word)>> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let pool = lane_loop_vars(fx);
    let (mut words, mut flags) = (pool.words.iter(), pool.flags.iter());
    let mut vars = Vec::with_capacity(values.len());
    for &(t, init) in values {
        let v = if t == bt { flags.next() } else { words.next() };
        let v = *v.ok_or_else(|| TranslateError::Internal("too many lane loop values".into()))?;
        fx.tx.b.store(v, init, None, [])?;
        vars.push((t, v));
    }
    let j = pool.lane;
    let zero = fx.tx.const_u32(0);
    fx.tx.b.store(j, zero, None, [])?;
    let (header, check, inner, cont, merge) = (
        fx.tx.b.id(),
        fx.tx.b.id(),
        fx.tx.b.id(),
        fx.tx.b.id(),
        fx.tx.b.id(),
    );
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(header))?;
    fx.tx.b.loop_merge(merge, cont, LoopControl::NONE, [])?;
    fx.tx.b.branch(check)?;
    fx.tx.b.begin_block(Some(check))?;
    let jv = fx.tx.b.load(u32t, None, j, None, [])?;
    let n = fx.tx.const_u32(32);
    let more = fx.tx.b.u_less_than(bt, None, jv, n)?;
    fx.tx.b.branch_conditional(more, inner, merge, [])?;
    fx.tx.b.begin_block(Some(inner))?;
    let mut cur: Vec<Word> = vars
        .iter()
        .map(|&(t, v)| Ok(fx.tx.b.load(t, None, v, None, [])?))
        .collect::<R<_>>()?;
    let per_trip = 32 / LANE_LOOP_TRIPS;
    for k in 0..per_trip {
        let jk = if k == 0 {
            jv
        } else {
            let kc = fx.tx.const_u32(k);
            fx.tx.b.i_add(u32t, None, jv, kc)?
        };
        cur = body(fx, jk, &cur)?;
    }
    for (&(_, v), &x) in vars.iter().zip(&cur) {
        fx.tx.b.store(v, x, None, [])?;
    }
    fx.tx.b.branch(cont)?;
    fx.tx.b.begin_block(Some(cont))?;
    let step = fx.tx.const_u32(per_trip);
    let j1 = fx.tx.b.i_add(u32t, None, jv, step)?;
    fx.tx.b.store(j, j1, None, [])?;
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(merge))?;
    Ok(vars)
}

/// `%activemask` for the instruction about to run (every invocation
/// calls this; `active`: this lane runs the instruction).
pub fn activemask(fx: &mut FunctionCx, active: Word) -> R<Word> {
    let zero = fx.tx.const_u32(0);
    Ok(publish(fx, zero, active, None)?.mask)
}

/// What a parity flag alternates between.
#[derive(Clone, Copy)]
enum Parity {
    /// The two counters of [`any_active`].
    Counters,
    /// The two sets of active masks of [`publish`].
    Masks,
}

/// The invocation's flag that picks which of two alternating resources the
/// next use takes: one `Private` variable per resource for all functions,
/// so that calls keep it in step (every invocation flips it at every use).
fn parity_var(fx: &mut FunctionCx, which: Parity) -> Word {
    let (cached, name) = match which {
        Parity::Counters => (fx.tx.exchange.parity, "pisa_any_parity"),
        Parity::Masks => (fx.tx.exchange.mask_parity, "pisa_mask_parity"),
    };
    if let Some(v) = cached {
        return v;
    }
    let u32t = fx.tx.uint(32);
    let v = private_var(fx, u32t, name);
    match which {
        Parity::Counters => fx.tx.exchange.parity = Some(v),
        Parity::Masks => fx.tx.exchange.mask_parity = Some(v),
    }
    v
}

/// An invocation's `Private` variable of type `t`, zero at the start.
fn private_var(fx: &mut FunctionCx, t: Word, name: &str) -> Word {
    let pt = fx.tx.ptr(StorageClass::Private, t);
    let zero = fx.tx.const_null(t);
    let v = fx.tx.b.id();
    fx.tx
        .b
        .module_mut()
        .types_global_values
        .push(rspirv::dr::Instruction::new(
            rspirv::spirv::Op::Variable,
            Some(pt),
            Some(v),
            vec![
                rspirv::dr::Operand::StorageClass(StorageClass::Private),
                rspirv::dr::Operand::IdRef(zero),
            ],
        ));
    fx.tx.b.name(v, name);
    fx.tx.interface.push(v);
    v
}

/// The variables of [`lane_loop`], declared on first use (one set for the
/// module: a lane loop calls nothing).
fn lane_loop_vars(fx: &mut FunctionCx) -> LaneLoopVars {
    if let Some(v) = fx.tx.exchange.lane_loop {
        return v;
    }
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let vars = LaneLoopVars {
        lane: private_var(fx, u32t, "pisa_lane"),
        words: [
            private_var(fx, u32t, "pisa_lane_fold"),
            private_var(fx, u32t, "pisa_lane_fold"),
        ],
        flags: [
            private_var(fx, bt, "pisa_lane_flag"),
            private_var(fx, bt, "pisa_lane_flag"),
        ],
    };
    fx.tx.exchange.lane_loop = Some(vars);
    vars
}

/// Whether any invocation of the work-group is active: two counters used
/// alternately (every invocation flips its parity flag in step), so that
/// the one being reset is never the one being read.
pub fn any_active(fx: &mut FunctionCx, active: Word) -> R<Word> {
    let parity = parity_var(fx, Parity::Counters);
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let par = fx.tx.b.load(u32t, None, parity, None, [])?;
    let one = fx.tx.const_u32(1);
    let other = fx.tx.b.bitwise_xor(u32t, None, par, one)?;
    fx.tx.b.store(parity, other, None, [])?;
    let base = fx.tx.const_u32(COUNTERS);
    let this_i = fx.tx.b.i_add(u32t, None, base, par)?;
    let other_i = fx.tx.b.i_add(u32t, None, base, other)?;
    barrier(fx)?;
    let counter = slot(fx, this_i)?;
    let wg = fx.tx.const_u32(Scope::Workgroup as u32);
    let relaxed = fx.tx.const_u32(0);
    guarded(fx, active, |fx| {
        fx.tx.b.atomic_or(u32t, None, counter, wg, relaxed, one)?;
        Ok(())
    })?;
    barrier(fx)?;
    let counter = slot(fx, this_i)?;
    let n = fx.tx.b.atomic_load(u32t, None, counter, wg, relaxed)?;
    let zero = fx.tx.const_u32(0);
    let any = fx.tx.b.i_not_equal(bt, None, n, zero)?;
    // linear id 0 clears the other counter for the next call (every
    // invocation read it before this call's first barrier)
    let id = fx.tx.local_linear_id()?;
    let first = fx.tx.b.i_equal(bt, None, id, zero)?;
    let other_p = slot(fx, other_i)?;
    guarded(fx, first, |fx| {
        fx.tx.b.atomic_store(other_p, wg, relaxed, zero)?;
        Ok(())
    })?;
    Ok(any)
}

/// Zeroes both counters of [`any_active`] and both sets of active masks
/// (kernel entry; every invocation). No barrier follows: [`publish`] and
/// [`any_active`], the only users of these words, begin with one.
pub fn init(fx: &mut FunctionCx) -> R<()> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let zero = fx.tx.const_u32(0);
    let id = fx.tx.local_linear_id()?;
    let wg = fx.tx.const_u32(Scope::Workgroup as u32);
    let relaxed = fx.tx.const_u32(0);
    // lane 0 of every sub-group clears its masks, linear id 0 the counters
    let m31 = fx.tx.const_u32(31);
    let laneid = fx.tx.b.bitwise_and(u32t, None, id, m31)?;
    let lane0 = fx.tx.b.i_equal(bt, None, laneid, zero)?;
    let s5 = fx.tx.const_u32(5);
    let subgroup = fx.tx.b.shift_right_logical(u32t, None, id, s5)?;
    let masks = fx.tx.const_u32(MASKS);
    let set0 = fx.tx.b.i_add(u32t, None, subgroup, masks)?;
    let words = fx.tx.const_u32(SUBGROUPS);
    let set1 = fx.tx.b.i_add(u32t, None, set0, words)?;
    let mut ps = vec![slot(fx, set0)?, slot(fx, set1)?];
    for k in 0..4 {
        let start = fx.tx.const_u32(ORS + k * SUBGROUPS);
        let i = fx.tx.b.i_add(u32t, None, subgroup, start)?;
        ps.push(slot(fx, i)?);
    }
    guarded(fx, lane0, |fx| {
        for p in ps {
            fx.tx.b.atomic_store(p, wg, relaxed, zero)?;
        }
        Ok(())
    })?;
    let first = fx.tx.b.i_equal(bt, None, id, zero)?;
    let (c0, c1) = (fx.tx.const_u32(COUNTERS), fx.tx.const_u32(COUNTERS + 1));
    let (p0, p1) = (slot(fx, c0)?, slot(fx, c1)?);
    guarded(fx, first, |fx| {
        fx.tx.b.atomic_store(p0, wg, relaxed, zero)?;
        fx.tx.b.atomic_store(p1, wg, relaxed, zero)?;
        Ok(())
    })
}

/// Lowers a cross-lane instruction (every invocation calls this; `active`:
/// this lane runs it).
pub fn lower(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    match ins.i.opcode {
        Opcode::Shfl => shfl(fx, ins, active),
        Opcode::Ired => ired(fx, ins, active),
        Opcode::Fred => fred(fx, ins, active),
        Opcode::Redfirstidx => redfirstidx(fx, ins, active),
        _ => Err(TranslateError::Internal(format!(
            "`{}` is not a cross-lane instruction",
            ins.name
        ))),
    }
}

/// `shfl` (18 §7.4), the spec's pseudo-code.
fn shfl(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let src0 = fx.read(ins.opr(Role::Src0)?, 32)?;
    let src1 = fx.read(ins.opr(Role::Src1)?, 32)?;
    let src2 = fx.read(ins.opr(Role::Src2)?, 32)?;
    let op = ins
        .i
        .quals
        .op
        .ok_or_else(|| TranslateError::Internal("shfl without its operation".into()))?;
    let lanes = publish(fx, src0, active, None)?;
    let mask = lanes.mask;
    let part = fx.tx.b.bitwise_and(u32t, None, src2, mask)?;
    let c = |fx: &mut FunctionCx, v: u32| fx.tx.const_u32(v);
    let m5 = c(fx, 31);
    let offset = fx.tx.b.bitwise_and(u32t, None, src1, m5)?;
    let (cval, segmask) = if ins.i.quals.sg {
        let (s8, s16) = (c(fx, 8), c(fx, 16));
        let cv = fx.tx.b.shift_right_logical(u32t, None, src1, s8)?;
        let cv = fx.tx.b.bitwise_and(u32t, None, cv, m5)?;
        let sm = fx.tx.b.shift_right_logical(u32t, None, src1, s16)?;
        let sm = fx.tx.b.bitwise_and(u32t, None, sm, m5)?;
        (cv, sm)
    } else {
        let cv = if op == Op::Up { 0 } else { 31 };
        (c(fx, cv), c(fx, 0))
    };
    let lane = lanes.laneid;
    let not_seg = fx.tx.b.not(u32t, None, segmask)?;
    let low = fx.tx.b.bitwise_and(u32t, None, lane, segmask)?;
    let high = fx.tx.b.bitwise_and(u32t, None, cval, not_seg)?;
    let clamp = fx.tx.b.bitwise_or(u32t, None, low, high)?;
    let src_lane = match op {
        Op::Up => fx.tx.b.i_sub(u32t, None, lane, offset)?,
        Op::Dn => fx.tx.b.i_add(u32t, None, lane, offset)?,
        Op::Xor => fx.tx.b.bitwise_xor(u32t, None, lane, offset)?,
        Op::Idx => {
            let o = fx.tx.b.bitwise_and(u32t, None, offset, not_seg)?;
            fx.tx.b.bitwise_or(u32t, None, low, o)?
        }
        // values of `.op` that belong to other instructions
        other @ (Op::Absmax
        | Op::Add
        | Op::And
        | Op::Cas
        | Op::Dec
        | Op::Decwrap
        | Op::Inc
        | Op::Incwrap
        | Op::Max
        | Op::Min
        | Op::Or
        | Op::Smax
        | Op::Smin
        | Op::Sub
        | Op::Sum
        | Op::Umax
        | Op::Umin
        | Op::Xchg) => return Err(TranslateError::Internal(format!("shfl.{}", other.text()))),
    };
    // `up` goes below lane 0 as a negative number: compare signed
    let in_bounds = if op == Op::Up {
        fx.tx.b.s_greater_than_equal(bt, None, src_lane, clamp)?
    } else {
        fx.tx.b.s_less_than_equal(bt, None, src_lane, clamp)?
    };
    let src_part = lanes.bit(fx, part, src_lane)?;
    let take = fx.tx.b.logical_and(bt, None, in_bounds, src_part)?;
    let theirs = lanes.value(fx, src_lane)?;
    let v = fx.tx.b.select(u32t, None, take, theirs, src0)?;
    let me = lanes.bit(fx, part, lane)?;
    let write = fx.tx.b.logical_and(bt, None, active, me)?;
    let dst = ins.opr(Role::Dst)?;
    guarded(fx, write, |fx| fx.write(dst, v, 32))
}

/// Folds `f(acc, lane j's value)` over the participating lanes (`src1 &
/// %activemask`), starting from `init`, in two levels: this invocation's
/// group of lanes, then the groups' partial results
/// ([`Lanes::share_partials`]); `f` must be associative and commutative
/// with `init` its identity. Returns the result.
fn fold(
    fx: &mut FunctionCx,
    lanes: &Lanes,
    participants: Word,
    active: Word,
    init: Word,
    mut f: impl FnMut(&mut FunctionCx, Word, Word) -> R<Word>,
) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let mut acc = init;
    for j in lanes.group_lanes(fx)? {
        let p = lanes.lane_bit(fx, participants, j)?;
        let v = lanes.lane_value(fx, j)?;
        let next = f(fx, acc, v)?;
        acc = fx.tx.b.select(u32t, None, p, next, acc)?;
    }
    // lanes with different masks: each active lane folds its own, before
    // the partial results overwrite the values
    let slow = match lanes.uniform {
        Some(uniform) => {
            let bt = fx.tx.bool_ty();
            let differ = fx.tx.b.logical_not(bt, None, uniform)?;
            let slow = fx.tx.b.logical_and(bt, None, differ, active)?;
            let mut vars = Vec::new();
            guarded(fx, slow, |fx| {
                vars = lane_loop(fx, &[(u32t, init)], |fx, j, cur| {
                    let p = lanes.lane_bit(fx, participants, j)?;
                    let v = lanes.lane_value(fx, j)?;
                    let next = f(fx, cur[0], v)?;
                    Ok(vec![fx.tx.b.select(u32t, None, p, next, cur[0])?])
                })?;
                Ok(())
            })?;
            let (t, var) = *vars
                .first()
                .ok_or_else(|| TranslateError::Internal("a lane loop without its value".into()))?;
            Some((slow, fx.tx.b.load(t, None, var, None, [])?))
        }
        None => None,
    };
    let mut acc2 = init;
    for (p, v) in lanes.share_partials(fx, participants, acc)? {
        let next = f(fx, acc2, v)?;
        acc2 = fx.tx.b.select(u32t, None, p, next, acc2)?;
    }
    Ok(match slow {
        Some((slow, acc3)) => fx.tx.b.select(u32t, None, slow, acc3, acc2)?,
        None => acc2,
    })
}

/// The participation mask `src1` (its value `v`) that a reduction checks
/// for being equal in all active lanes: none for an immediate.
fn mask_check(ins: &Ins, v: Word) -> R<Option<Word>> {
    Ok(match ins.opr(Role::Src1)? {
        Operand::Int(..) | Operand::Float(..) => None,
        _ => Some(v),
    })
}

/// `ired` (18 §7.2) on `.16b` or `.32b`.
fn ired(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let bits = ins.i.quals.ty.map_or(32, Type::bits);
    let op = ins
        .i
        .quals
        .op
        .ok_or_else(|| TranslateError::Internal("ired without its operation".into()))?;
    let v = fx.read(ins.opr(Role::Src0)?, bits)?;
    let v = fx.resize(v, bits, 32, false)?;
    let src1 = fx.read(ins.opr(Role::Src1)?, 32)?;
    let lanes = publish(fx, v, active, mask_check(ins, src1)?)?;
    let mask = lanes.mask;
    let part = fx.tx.b.bitwise_and(u32t, None, src1, mask)?;
    let all = if bits == 16 { 0xFFFF } else { u32::MAX };
    let sign = 1u32 << (bits - 1);
    // signed comparisons on `bits`-wide values: flip the sign bit and
    // compare unsigned
    let flip = fx.tx.const_u32(sign);
    let identity = match op {
        Op::Sum | Op::Or | Op::Xor | Op::Umax | Op::Absmax => 0,
        Op::And | Op::Umin => all,
        Op::Smin => sign - 1,
        Op::Smax => sign,
        // values of `.op` that belong to other instructions
        other @ (Op::Add
        | Op::Cas
        | Op::Dec
        | Op::Decwrap
        | Op::Dn
        | Op::Idx
        | Op::Inc
        | Op::Incwrap
        | Op::Max
        | Op::Min
        | Op::Sub
        | Op::Up
        | Op::Xchg) => return Err(TranslateError::Internal(format!("ired.{}", other.text()))),
    };
    let init = fx.tx.const_u32(identity);
    let r = fold(fx, &lanes, part, active, init, |fx, acc, x| {
        Ok(match op {
            Op::Sum => fx.tx.b.i_add(u32t, None, acc, x)?,
            Op::And => fx.tx.b.bitwise_and(u32t, None, acc, x)?,
            Op::Or => fx.tx.b.bitwise_or(u32t, None, acc, x)?,
            Op::Xor => fx.tx.b.bitwise_xor(u32t, None, acc, x)?,
            Op::Umin => fx.tx.glsl_op(u32t, G::UMin, &[acc, x])?,
            Op::Umax => fx.tx.glsl_op(u32t, G::UMax, &[acc, x])?,
            Op::Smin | Op::Smax => {
                let a = fx.tx.b.bitwise_xor(u32t, None, acc, flip)?;
                let b = fx.tx.b.bitwise_xor(u32t, None, x, flip)?;
                let less = fx.tx.b.u_less_than(bt, None, b, a)?;
                let take = if op == Op::Smin {
                    less
                } else {
                    fx.tx.b.u_greater_than(bt, None, b, a)?
                };
                fx.tx.b.select(u32t, None, take, x, acc)?
            }
            // umax(iabs(x)): the most negative value stays itself, the
            // largest as unsigned (18 §7.2); iabs of a partial result (an
            // iabs already) is itself
            Op::Absmax => {
                let neg = fx.tx.b.bitwise_and(u32t, None, x, flip)?;
                let zero = fx.tx.const_u32(0);
                let is_neg = fx.tx.b.i_not_equal(bt, None, neg, zero)?;
                let minus = fx.tx.b.s_negate(u32t, None, x)?;
                let allc = fx.tx.const_u32(all);
                let minus = fx.tx.b.bitwise_and(u32t, None, minus, allc)?;
                let abs = fx.tx.b.select(u32t, None, is_neg, minus, x)?;
                fx.tx.glsl_op(u32t, G::UMax, &[acc, abs])?
            }
            _ => acc,
        })
    })?;
    let r = fx.resize(r, 32, bits, false)?;
    let me = lanes.bit(fx, part, lanes.laneid)?;
    let write = fx.tx.b.logical_and(bt, None, active, me)?;
    let dst = ins.opr(Role::Dst)?;
    guarded(fx, write, |fx| fx.write(dst, r, bits))
}

/// `redfirstidx` (18 §7.3): the lowest participating lane. With none, the
/// spec's loop never ends; here the result is 32 (docs/spec-notes.md).
fn redfirstidx(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    let u32t = fx.tx.uint(32);
    let src0 = fx.read(ins.opr(Role::Src0)?, 32)?;
    let zero = fx.tx.const_u32(0);
    let lanes = publish(fx, zero, active, None)?;
    let mask = lanes.mask;
    let part = fx.tx.b.bitwise_and(u32t, None, src0, mask)?;
    let lsb = fx.tx.glsl_op(u32t, G::FindILsb, &[part])?;
    // FindILsb(0) is -1: 0xFFFFFFFF as unsigned, so the minimum gives 32
    let n32 = fx.tx.const_u32(32);
    let r = fx.tx.glsl_op(u32t, G::UMin, &[lsb, n32])?;
    let dst = ins.opr(Role::Dst)?;
    guarded(fx, active, |fx| fx.write(dst, r, 32))
}

/// The bit layout of a floating-point type of `fred`.
#[derive(Clone, Copy)]
struct FloatBits {
    /// Width of one element (16 or 32).
    bits: u16,
    sign: u32,
    inf: u32,
    /// The bit that makes a NaN quiet.
    quiet_bit: u32,
}

/// The layout of `kind`, `None` for `.df` (not a type of `fred`).
fn float_bits(kind: FloatKind) -> Option<FloatBits> {
    match kind {
        FloatKind::Single | FloatKind::Half | FloatKind::BFloat => Some(FloatBits {
            bits: kind.bits(),
            sign: kind.sign_bit() as u32,
            inf: kind.exponent_mask() as u32,
            quiet_bit: kind.quiet_bit() as u32,
        }),
        FloatKind::Double => None,
    }
}

/// The state of `fred`'s fold over lanes in order: `acc` the result so
/// far, `seen` some non-NaN value was folded, `nan` some NaN was, the first
/// one (lowest lane) being `first_nan`.
#[derive(Clone, Copy)]
struct FredState {
    acc: Word,
    seen: Word,
    nan: Word,
    first_nan: Word,
}

/// One element of `fred` (18 §7.1): min, max or absmax of the elements at
/// bit `shift` of the lanes' words.
#[derive(Clone, Copy)]
struct FredFold {
    op: Op,
    nanp: bool,
    fb: FloatBits,
    shift: u32,
}

impl FredFold {
    fn init(fx: &mut FunctionCx) -> FredState {
        let zero = fx.tx.const_u32(0);
        let no = fx.tx.const_bool(false);
        FredState {
            acc: zero,
            seen: no,
            nan: no,
            first_nan: zero,
        }
    }

    /// Folds the element of word `w` into `st` if `p`.
    fn step(&self, fx: &mut FunctionCx, st: FredState, p: Word, w: Word) -> R<FredState> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let fb = self.fb;
        let c = |fx: &mut FunctionCx, v: u32| fx.tx.const_u32(v);
        let elem_mask = c(fx, if fb.bits == 32 { u32::MAX } else { 0xFFFF });
        let sign = c(fx, fb.sign);
        let abs_mask = c(fx, fb.sign - 1);
        let inf = c(fx, fb.inf);
        let zero = c(fx, 0);
        let x = if self.shift == 0 {
            w
        } else {
            let sh = c(fx, self.shift);
            fx.tx.b.shift_right_logical(u32t, None, w, sh)?
        };
        let x = fx.tx.b.bitwise_and(u32t, None, x, elem_mask)?;
        let x = if self.op == Op::Absmax {
            fx.tx.b.bitwise_and(u32t, None, x, abs_mask)?
        } else {
            x
        };
        let mag = fx.tx.b.bitwise_and(u32t, None, x, abs_mask)?;
        let is_nan = fx.tx.b.u_greater_than(bt, None, mag, inf)?;
        // order: negative values reversed below positive ones, −0 < +0; a
        // bijection of the element's bits, so the best value is unique
        let key = |fx: &mut FunctionCx, v: Word| -> R<Word> {
            let s = fx.tx.b.bitwise_and(u32t, None, v, sign)?;
            let neg = fx.tx.b.i_not_equal(bt, None, s, zero)?;
            let inverted = fx.tx.b.not(u32t, None, v)?;
            let inverted = fx.tx.b.bitwise_and(u32t, None, inverted, elem_mask)?;
            let lifted = fx.tx.b.bitwise_or(u32t, None, v, sign)?;
            Ok(fx.tx.b.select(u32t, None, neg, inverted, lifted)?)
        };
        let kx = key(fx, x)?;
        let ka = key(fx, st.acc)?;
        let better = if self.op == Op::Min {
            fx.tx.b.u_less_than(bt, None, kx, ka)?
        } else {
            fx.tx.b.u_greater_than(bt, None, kx, ka)?
        };
        let not_seen = fx.tx.b.logical_not(bt, None, st.seen)?;
        let take = fx.tx.b.logical_or(bt, None, better, not_seen)?;
        let not_nan = fx.tx.b.logical_not(bt, None, is_nan)?;
        let take = fx.tx.b.logical_and(bt, None, take, not_nan)?;
        let take = fx.tx.b.logical_and(bt, None, take, p)?;
        let acc = fx.tx.b.select(u32t, None, take, x, st.acc)?;
        let counted = fx.tx.b.logical_and(bt, None, p, not_nan)?;
        let seen = fx.tx.b.logical_or(bt, None, st.seen, counted)?;
        let nan_here = fx.tx.b.logical_and(bt, None, p, is_nan)?;
        let no_nan_yet = fx.tx.b.logical_not(bt, None, st.nan)?;
        let first_here = fx.tx.b.logical_and(bt, None, nan_here, no_nan_yet)?;
        let first_nan = fx.tx.b.select(u32t, None, first_here, x, st.first_nan)?;
        let nan = fx.tx.b.logical_or(bt, None, st.nan, nan_here)?;
        Ok(FredState {
            acc,
            seen,
            nan,
            first_nan,
        })
    }

    /// The result of the lanes folded into `st`, its NaN not yet quieted:
    /// by default NaNs are ignored unless all are NaN; `.nanp` propagates.
    ///
    /// It is also a group's partial result: folded with [`FredFold::step`]
    /// in the groups' order, the partial results of nonempty groups give
    /// the state's result over all their lanes. A partial result is a NaN
    /// exactly when its group's `use_nan` holds, then the group's first
    /// NaN: with `.nanp`, `nan` and the first NaN (that of the lowest group
    /// with one) carry over, and without NaNs the best value of the groups'
    /// best ones is the best; without `.nanp`, `seen` and the best of the
    /// groups' non-NaN results carry over, and when no group saw a
    /// non-NaN value every lane's is a NaN and the lowest group's first
    /// NaN is the first.
    /// With `quiet`, the NaN is quieted: the instruction's result.
    fn result(&self, fx: &mut FunctionCx, st: FredState, quiet: bool) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let use_nan = if self.nanp {
            st.nan
        } else {
            fx.tx.b.logical_not(bt, None, st.seen)?
        };
        let nan = if quiet {
            let q = fx.tx.const_u32(self.fb.quiet_bit);
            fx.tx.b.bitwise_or(u32t, None, st.first_nan, q)?
        } else {
            st.first_nan
        };
        Ok(fx.tx.b.select(u32t, None, use_nan, nan, st.acc)?)
    }
}

fn fred(fx: &mut FunctionCx, ins: &Ins, active: Word) -> R<()> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let ty = ins.i.quals.ty.unwrap_or(Type::F);
    let fb = ty
        .float()
        .and_then(float_bits)
        .ok_or_else(|| TranslateError::Internal(format!("fred on `{ty:?}`")))?;
    let op = ins
        .i
        .quals
        .op
        .ok_or_else(|| TranslateError::Internal("fred without its operation".into()))?;
    let packed = ty.lanes() > 1;
    let src0 = ins.opr(Role::Src0)?;
    let word = if packed {
        let e = fx.read_packed(src0, 2, 16)?;
        let lo = fx.resize(e[0], 16, 32, false)?;
        let hi = fx.resize(e[1], 16, 32, false)?;
        let s16 = fx.tx.const_u32(16);
        let hi = fx.tx.b.shift_left_logical(u32t, None, hi, s16)?;
        fx.tx.b.bitwise_or(u32t, None, lo, hi)?
    } else {
        let v = fx.read(src0, fb.bits)?;
        fx.resize(v, fb.bits, 32, false)?
    };
    let src1 = fx.read(ins.opr(Role::Src1)?, 32)?;
    let lanes = publish(fx, word, active, mask_check(ins, src1)?)?;
    let mask = lanes.mask;
    let part = fx.tx.b.bitwise_and(u32t, None, src1, mask)?;
    let nanp = ins.i.quals.nanp;
    // a packed pair folds each half on its own, both in one word
    let folds: Vec<FredFold> = (0..if packed { 2 } else { 1 })
        .map(|e| FredFold {
            op,
            nanp,
            fb,
            shift: 16 * e,
        })
        .collect();
    // the first level: this invocation's group of lanes
    let mut states: Vec<FredState> = folds.iter().map(|_| FredFold::init(fx)).collect();
    for j in lanes.group_lanes(fx)? {
        let p = lanes.lane_bit(fx, part, j)?;
        let w = lanes.lane_value(fx, j)?;
        for (st, f) in states.iter_mut().zip(&folds) {
            *st = f.step(fx, *st, p, w)?;
        }
    }
    let mut partial = None;
    for (st, f) in states.iter().zip(&folds) {
        let r = f.result(fx, *st, false)?;
        partial = Some(match partial {
            None => r,
            Some(lo) => {
                let sh = fx.tx.const_u32(f.shift);
                let hi = fx.tx.b.shift_left_logical(u32t, None, r, sh)?;
                fx.tx.b.bitwise_or(u32t, None, lo, hi)?
            }
        });
    }
    let partial =
        partial.ok_or_else(|| TranslateError::Internal("fred without elements".into()))?;
    // lanes with different masks: each active lane folds its own lanes,
    // one element after the other, before the partial results overwrite
    // the values
    let slow = match lanes.uniform {
        Some(uniform) => {
            let differ = fx.tx.b.logical_not(bt, None, uniform)?;
            Some(fx.tx.b.logical_and(bt, None, differ, active)?)
        }
        None => None,
    };
    let mut slow_states = Vec::with_capacity(folds.len());
    for f in folds.iter().filter(|_| slow.is_some()) {
        let slow = slow.ok_or_else(|| TranslateError::Internal("fred's slow path".into()))?;
        let mut vars = Vec::new();
        guarded(fx, slow, |fx| {
            let i = FredFold::init(fx);
            let init = [
                (u32t, i.acc),
                (bt, i.seen),
                (bt, i.nan),
                (u32t, i.first_nan),
            ];
            vars = lane_loop(fx, &init, |fx, j, cur| {
                let p = lanes.lane_bit(fx, part, j)?;
                let w = lanes.lane_value(fx, j)?;
                let cur = FredState {
                    acc: cur[0],
                    seen: cur[1],
                    nan: cur[2],
                    first_nan: cur[3],
                };
                let n = f.step(fx, cur, p, w)?;
                Ok(vec![n.acc, n.seen, n.nan, n.first_nan])
            })?;
            Ok(())
        })?;
        // the next element's loop reuses the variables
        let got = vars
            .iter()
            .map(|&(t, var)| Ok(fx.tx.b.load(t, None, var, None, [])?))
            .collect::<R<Vec<Word>>>()?;
        slow_states.push(got);
    }
    // the second level: the groups' partial results, in lane order
    let mut states: Vec<FredState> = folds.iter().map(|_| FredFold::init(fx)).collect();
    for (p, w) in lanes.share_partials(fx, part, partial)? {
        for (st, f) in states.iter_mut().zip(&folds) {
            *st = f.step(fx, *st, p, w)?;
        }
    }
    for (st, got) in states.iter_mut().zip(&slow_states) {
        let slow = slow.ok_or_else(|| TranslateError::Internal("fred's slow path".into()))?;
        let fast = [st.acc, st.seen, st.nan, st.first_nan];
        let tys = [u32t, bt, bt, u32t];
        let mut v = Vec::with_capacity(4);
        for ((&t, &fast), &slow_v) in tys.iter().zip(&fast).zip(got) {
            v.push(fx.tx.b.select(t, None, slow, slow_v, fast)?);
        }
        let [acc, seen, nan, first_nan] = v[..] else {
            return Err(TranslateError::Internal("fred's lane loop state".into()));
        };
        *st = FredState {
            acc,
            seen,
            nan,
            first_nan,
        };
    }
    // a NaN result is the lowest participating lane's NaN, quieted (as on
    // the reference device; docs/spec-notes.md, Sub-groups)
    let mut results = Vec::with_capacity(folds.len());
    for (st, f) in states.iter().zip(&folds) {
        let r = f.result(fx, *st, true)?;
        results.push(fx.resize(r, 32, fb.bits, false)?);
    }
    let me = lanes.bit(fx, part, lanes.laneid)?;
    let write = fx.tx.b.logical_and(bt, None, active, me)?;
    let dst = ins.opr(Role::Dst)?;
    if packed {
        guarded(fx, write, |fx| fx.write_packed(dst, &results, 16))
    } else {
        guarded(fx, write, |fx| fx.write(dst, results[0], fb.bits))
    }
}
