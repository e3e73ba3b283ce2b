//! Cross-lane instructions (spec 18) and `%activemask` (spec 04) through
//! the work-group's *exchange*: a `Workgroup` array where every invocation
//! stores its value at its linear id, and sets its bit in its sub-group's
//! active mask if it is active, between two work-group barriers; each
//! active lane then reads the slots and the mask of its sub-group (32
//! consecutive linear ids). The SIMT emitter guarantees that every
//! invocation of the work-group reaches these barriers together.
//!
//! Layout of the array (u32 words): values at `[0, MAX_ITEMS)`, then two
//! sets of one active mask per sub-group (used alternately, like the two
//! counters of [`any_active`], so that the set being cleared for the next
//! exchange is never the one being read), then those two counters.

use crate::ir::qualifier::Op;
use crate::ir::Opcode;
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

fn exchange_var(fx: &mut FunctionCx) -> Word {
    if let Some(v) = fx.tx.sg_exchange {
        return v;
    }
    let u32t = fx.tx.uint(32);
    let n = fx.tx.const_u32(COUNTERS + 2);
    let arr = fx.tx.b.type_array(u32t, n);
    let pt = fx.tx.ptr(StorageClass::Workgroup, arr);
    let v = fx.tx.global_var(pt, StorageClass::Workgroup);
    fx.tx.b.name(v, "pisa_subgroup_exchange");
    fx.tx.interface.push(v);
    fx.tx.sg_exchange = Some(v);
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
}

/// Every invocation stores `value` and, if `active`, sets its bit in its
/// sub-group's mask; returns once all have.
fn publish(fx: &mut FunctionCx, value: Word, active: Word) -> R<Lanes> {
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
    // the previous exchange's readers are done
    barrier(fx)?;
    let p = slot(fx, id)?;
    fx.tx.b.store(p, value, None, [])?;
    let wg = fx.tx.const_u32(Scope::Workgroup as u32);
    let relaxed = fx.tx.const_u32(0);
    let bit = fx.tx.b.shift_left_logical(u32t, None, one, laneid)?;
    let mask_p = slot(fx, this_i)?;
    guarded(fx, active, |fx| {
        fx.tx.b.atomic_or(u32t, None, mask_p, wg, relaxed, bit)?;
        Ok(())
    })?;
    barrier(fx)?;
    let mask_p = slot(fx, this_i)?;
    let mask = fx.tx.b.atomic_load(u32t, None, mask_p, wg, relaxed)?;
    // lane 0 clears the sub-group's other mask for the next exchange (every
    // invocation read it before this exchange's first barrier)
    let zero = fx.tx.const_u32(0);
    let first = fx.tx.b.i_equal(bt, None, laneid, zero)?;
    let other_p = slot(fx, other_i)?;
    guarded(fx, first, |fx| {
        fx.tx.b.atomic_store(other_p, wg, relaxed, zero)?;
        Ok(())
    })?;
    Ok(Lanes { base, laneid, mask })
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

/// Runs `body` for lanes `j = 0..32` as a SPIR-V loop (not unrolled: 32
/// copies of every reduction made shaders that llvmpipe took seconds to
/// compile), carrying `values` (type, initial value) from one lane to the
/// next; returns their final values.
fn lane_loop(
    fx: &mut FunctionCx,
    values: &[(Word, Word)],
    mut body: impl FnMut(&mut FunctionCx, Word, &[Word]) -> R<Vec<Word>>,
) -> R<Vec<Word>> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let pool = fx
        .simt
        .and_then(|s| s.lane_loop)
        .ok_or_else(|| TranslateError::Internal("a lane loop outside a SIMT function".into()))?;
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
    let cur: Vec<Word> = vars
        .iter()
        .map(|&(t, v)| Ok(fx.tx.b.load(t, None, v, None, [])?))
        .collect::<R<_>>()?;
    let next = body(fx, jv, &cur)?;
    for (&(_, v), x) in vars.iter().zip(next) {
        fx.tx.b.store(v, x, None, [])?;
    }
    fx.tx.b.branch(cont)?;
    fx.tx.b.begin_block(Some(cont))?;
    let one = fx.tx.const_u32(1);
    let j1 = fx.tx.b.i_add(u32t, None, jv, one)?;
    fx.tx.b.store(j, j1, None, [])?;
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(merge))?;
    vars.iter()
        .map(|&(t, v)| Ok(fx.tx.b.load(t, None, v, None, [])?))
        .collect()
}

/// `%activemask` for the instruction about to run (every invocation
/// calls this; `active`: this lane runs the instruction).
pub fn activemask(fx: &mut FunctionCx, active: Word) -> R<Word> {
    let zero = fx.tx.const_u32(0);
    Ok(publish(fx, zero, active)?.mask)
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
        Parity::Counters => (fx.tx.sg_parity, "pisa_any_parity"),
        Parity::Masks => (fx.tx.sg_mask_parity, "pisa_mask_parity"),
    };
    if let Some(v) = cached {
        return v;
    }
    let u32t = fx.tx.uint(32);
    let pt = fx.tx.ptr(StorageClass::Private, u32t);
    let zero = fx.tx.const_u32(0);
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
    match which {
        Parity::Counters => fx.tx.sg_parity = Some(v),
        Parity::Masks => fx.tx.sg_mask_parity = Some(v),
    }
    v
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
    let (p0, p1) = (slot(fx, set0)?, slot(fx, set1)?);
    guarded(fx, lane0, |fx| {
        fx.tx.b.atomic_store(p0, wg, relaxed, zero)?;
        fx.tx.b.atomic_store(p1, wg, relaxed, zero)?;
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
    let lanes = publish(fx, src0, active)?;
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
/// %activemask`), starting from `init`; returns the result and whether
/// this lane participates.
fn fold(
    fx: &mut FunctionCx,
    lanes: &Lanes,
    participants: Word,
    init: Word,
    mut f: impl FnMut(&mut FunctionCx, Word, Word) -> R<Word>,
) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let acc = lane_loop(fx, &[(u32t, init)], |fx, j, cur| {
        let p = lanes.lane_bit(fx, participants, j)?;
        let v = lanes.lane_value(fx, j)?;
        let next = f(fx, cur[0], v)?;
        Ok(vec![fx.tx.b.select(u32t, None, p, next, cur[0])?])
    })?;
    Ok(acc[0])
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
    let lanes = publish(fx, v, active)?;
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
    let r = fold(fx, &lanes, part, init, |fx, acc, x| {
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
            // largest as unsigned (18 §7.2)
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
    let lanes = publish(fx, zero, active)?;
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

/// `fred` (18 §7.1): min, max or absmax of one element per lane (the
/// element at bit `shift` of the exchanged word).
#[allow(clippy::too_many_arguments)]
fn fred_element(
    fx: &mut FunctionCx,
    lanes: &Lanes,
    part: Word,
    op: Op,
    nanp: bool,
    fb: FloatBits,
    shift: u32,
) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let c = |fx: &mut FunctionCx, v: u32| fx.tx.const_u32(v);
    let elem_mask = c(fx, if fb.bits == 32 { u32::MAX } else { 0xFFFF });
    let sign = c(fx, fb.sign);
    let abs_mask = c(fx, fb.sign - 1);
    let inf = c(fx, fb.inf);
    let sh = c(fx, shift);
    let zero = c(fx, 0);
    // acc: the result so far; seen: some non-NaN value was folded; nan:
    // some NaN was, the first one (lowest lane) is `first_nan`
    let (f0, bt0) = (fx.tx.const_bool(false), bt);
    let out = lane_loop(
        fx,
        &[(u32t, zero), (bt0, f0), (bt0, f0), (u32t, zero)],
        |fx, jc, cur| {
            let (acc, seen, nan, first_nan) = (cur[0], cur[1], cur[2], cur[3]);
            let p = lanes.lane_bit(fx, part, jc)?;
            let w = lanes.lane_value(fx, jc)?;
            let x = fx.tx.b.shift_right_logical(u32t, None, w, sh)?;
            let x = fx.tx.b.bitwise_and(u32t, None, x, elem_mask)?;
            let x = if op == Op::Absmax {
                fx.tx.b.bitwise_and(u32t, None, x, abs_mask)?
            } else {
                x
            };
            let mag = fx.tx.b.bitwise_and(u32t, None, x, abs_mask)?;
            let is_nan = fx.tx.b.u_greater_than(bt, None, mag, inf)?;
            // order: negative values reversed below positive ones, −0 < +0
            let key = |fx: &mut FunctionCx, v: Word| -> R<Word> {
                let s = fx.tx.b.bitwise_and(u32t, None, v, sign)?;
                let neg = fx.tx.b.i_not_equal(bt, None, s, zero)?;
                let inverted = fx.tx.b.not(u32t, None, v)?;
                let inverted = fx.tx.b.bitwise_and(u32t, None, inverted, elem_mask)?;
                let lifted = fx.tx.b.bitwise_or(u32t, None, v, sign)?;
                Ok(fx.tx.b.select(u32t, None, neg, inverted, lifted)?)
            };
            let kx = key(fx, x)?;
            let ka = key(fx, acc)?;
            let better = if op == Op::Min {
                fx.tx.b.u_less_than(bt, None, kx, ka)?
            } else {
                fx.tx.b.u_greater_than(bt, None, kx, ka)?
            };
            let not_seen = fx.tx.b.logical_not(bt, None, seen)?;
            let take = fx.tx.b.logical_or(bt, None, better, not_seen)?;
            let not_nan = fx.tx.b.logical_not(bt, None, is_nan)?;
            let take = fx.tx.b.logical_and(bt, None, take, not_nan)?;
            let take = fx.tx.b.logical_and(bt, None, take, p)?;
            let acc = fx.tx.b.select(u32t, None, take, x, acc)?;
            let counted = fx.tx.b.logical_and(bt, None, p, not_nan)?;
            let seen = fx.tx.b.logical_or(bt, None, seen, counted)?;
            let nan_here = fx.tx.b.logical_and(bt, None, p, is_nan)?;
            let no_nan_yet = fx.tx.b.logical_not(bt, None, nan)?;
            let first_here = fx.tx.b.logical_and(bt, None, nan_here, no_nan_yet)?;
            let first_nan = fx.tx.b.select(u32t, None, first_here, x, first_nan)?;
            let nan = fx.tx.b.logical_or(bt, None, nan, nan_here)?;
            Ok(vec![acc, seen, nan, first_nan])
        },
    )?;
    let (acc, seen, nan, first_nan) = (out[0], out[1], out[2], out[3]);
    // by default NaNs are ignored unless all are NaN; `.nanp` propagates
    let use_nan = if nanp {
        nan
    } else {
        fx.tx.b.logical_not(bt, None, seen)?
    };
    // a NaN result is the lowest participating lane's NaN, quieted (as on
    // the reference device; docs/spec-notes.md, Sub-groups)
    let quiet = c(fx, fb.quiet_bit);
    let qnan = fx.tx.b.bitwise_or(u32t, None, first_nan, quiet)?;
    Ok(fx.tx.b.select(u32t, None, use_nan, qnan, acc)?)
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
    let lanes = publish(fx, word, active)?;
    let mask = lanes.mask;
    let part = fx.tx.b.bitwise_and(u32t, None, src1, mask)?;
    let nanp = ins.i.quals.nanp;
    let me = lanes.bit(fx, part, lanes.laneid)?;
    let write = fx.tx.b.logical_and(bt, None, active, me)?;
    let dst = ins.opr(Role::Dst)?;
    if packed {
        let lo = fred_element(fx, &lanes, part, op, nanp, fb, 0)?;
        let hi = fred_element(fx, &lanes, part, op, nanp, fb, 16)?;
        let lo = fx.resize(lo, 32, 16, false)?;
        let hi = fx.resize(hi, 32, 16, false)?;
        guarded(fx, write, |fx| fx.write_packed(dst, &[lo, hi], 16))
    } else {
        let r = fred_element(fx, &lanes, part, op, nanp, fb, 0)?;
        let r = fx.resize(r, 32, fb.bits, false)?;
        guarded(fx, write, |fx| fx.write(dst, r, fb.bits))
    }
}
