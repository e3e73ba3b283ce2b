//! Atomics (spec chapter 19): `iatom`, `fatom`, and the atomic (ordered)
//! forms of `ld`/`st`, on `.global`, `.shared` and generic addresses, at
//! every width the spec allows (docs/abi.md, "Emulated atomics").
//!
//! - Operations SPIR-V has are used directly on 32- and 64-bit words of
//!   global memory and 32-bit words of the shared arena.
//! - `incwrap`/`decwrap`, every floating-point operation, and 16-bit values
//!   (which live inside a 32-bit word) are compare-and-swap loops on the
//!   containing word, so they need no optional float-atomic feature.
//! - What no Vulkan atomic covers — 128-bit accesses anywhere, 64-bit ones
//!   on the shared arena (an array of 32-bit words: without
//!   `VK_KHR_workgroup_memory_explicit_layout` it cannot be read as 64-bit
//!   words), and 64-bit ones on global memory where the device lacks
//!   `shaderBufferInt64Atomics` (`Options::int64_buffer_atomics` off) —
//!   runs under a spin lock from a lock table keyed by the address: in the
//!   data block for global memory, in a `Workgroup` array for shared
//!   memory.
//! - Generic addresses switch on the address's tag to the global, shared or
//!   private form; the private one (which the spec rules out, 19 §8.1 notes)
//!   is a plain read-modify-write, private memory being the work-item's own.

use super::common::{Ins, R};
use super::float16::{f32_to_half, half_to_f32};
use crate::abi::Push;
use crate::ir::qualifier::{Addrspace, Memorder, Memscope, Op};
use crate::ir::Qualifier;
use crate::ir::*;
use crate::spirv::builder::Builder;
use crate::spirv::error::TranslateError;
use crate::spirv::function::FunctionCx;
use crate::spirv::memory::{Mem, GENERIC_PRIVATE_TAG, GENERIC_SHARED_TAG};
use crate::spirv::types::ModuleCx;
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{
    Capability, LoopControl, MemoryAccess, MemorySemantics, Scope, SelectionControl, StorageClass,
    Word,
};

/// Locks in the global lock table (a power of two): 4 KiB of the data block.
pub const GLOBAL_LOCKS: u32 = 1024;
/// Locks in the shared lock array (a power of two): 128 bytes of shared memory.
pub const SHARED_LOCKS: u32 = 32;

/// Scope and semantics of an atomic access.
struct Order {
    scope: Word,
    /// Semantics for the access (and a CAS that succeeds).
    sem: Word,
    /// Semantics for a CAS that fails: no release ordering.
    fail: Word,
}

fn storage_sem(mem: Mem) -> MemorySemantics {
    if mem == Mem::Shared {
        MemorySemantics::WORKGROUP_MEMORY
    } else {
        MemorySemantics::UNIFORM_MEMORY
    }
}

fn order(fx: &mut FunctionCx, ins: &Ins, mem: Mem, load: bool, store: bool) -> Order {
    let storage = storage_sem(mem);
    // Vulkan treats sequential consistency as acquire/release
    let mut o = match ins.i.quals.memorder {
        Some(Memorder::Acquire) => MemorySemantics::ACQUIRE,
        Some(Memorder::Release) => MemorySemantics::RELEASE,
        Some(Memorder::AcqRel | Memorder::SeqCst) => MemorySemantics::ACQUIRE_RELEASE,
        Some(Memorder::Relaxed | Memorder::Weak) | None => MemorySemantics::empty(),
    };
    if fx.tx.options.relaxed_memory_orders {
        // Mesa 22's llvmpipe miscompiles acquire/release semantics in some
        // loop shapes (`spirv::lower::synchronization`); there every
        // atomic is a locked x86 instruction and a work-group runs on one
        // thread, so relaxed atomics order memory as the program asks
        o = MemorySemantics::empty();
    }
    if load && o.contains(MemorySemantics::ACQUIRE_RELEASE) {
        o = MemorySemantics::ACQUIRE;
    }
    if store && o.contains(MemorySemantics::ACQUIRE_RELEASE) {
        o = MemorySemantics::RELEASE;
    }
    let sem = if o.is_empty() { o } else { o | storage };
    let fail = if sem.intersects(MemorySemantics::ACQUIRE | MemorySemantics::ACQUIRE_RELEASE) {
        MemorySemantics::ACQUIRE | storage
    } else {
        MemorySemantics::empty()
    };
    Order {
        scope: scope_of(fx, ins, mem),
        sem: fx.tx.const_u32(sem.bits()),
        fail: fx.tx.const_u32(fail.bits()),
    }
}

fn scope_of(fx: &mut FunctionCx, ins: &Ins, mem: Mem) -> Word {
    let scope = match (ins.i.quals.memscope, mem) {
        (Some(Memscope::Workgroup), _) | (None, Mem::Shared) => Scope::Workgroup,
        (Some(Memscope::Subgroup | Memscope::Gpu | Memscope::System), _) | (None, _) => {
            Scope::Device
        }
    };
    fx.tx.const_u32(scope as u32)
}

/// What an atomic does to the memory it reaches, whatever space that is.
#[derive(Clone, Copy)]
enum Access {
    /// Atomic `ld`.
    Load,
    /// Atomic `st` of this value.
    Store(Word),
    /// `iatom`: the operation and its sources.
    Int(Op, Option<Word>, Option<Word>),
    /// `fatom`: the operation, whether the type is bfloat16 (for 16-bit
    /// values), and its sources.
    Float(Op, FloatKind, Word, Option<Word>),
}

impl Access {
    fn loads(self) -> bool {
        matches!(self, Access::Load)
    }
    fn stores(self) -> bool {
        matches!(self, Access::Store(_))
    }
}

/// The word that holds an access of `bits` at `addr`: (pointer, word bits,
/// bit shift of the value inside the word, or `None` for a whole word).
fn word(fx: &mut FunctionCx, addr: Word, mem: Mem, bits: u16) -> R<(Word, u16, Option<Word>)> {
    match (mem, bits) {
        (Mem::Device, 32 | 64) => Ok((fx.device_ptr(addr, bits)?, bits, None)),
        (Mem::Device, 16) => {
            let u64t = fx.tx.uint(64);
            let mask = fx.tx.const_uint(64, !3);
            let base = fx.tx.b.bitwise_and(u64t, None, addr, mask)?;
            let p = fx.device_ptr(base, 32)?;
            let low = fx.resize(addr, 64, 32, false)?;
            Ok((p, 32, Some(fx.sub_shift(low)?)))
        }
        (Mem::Shared, 32) => Ok((fx.word_ptr(addr, mem, 0)?, 32, None)),
        (Mem::Shared, 16) => {
            let p = fx.word_ptr(addr, mem, 0)?;
            Ok((p, 32, Some(fx.sub_shift(addr)?)))
        }
        _ => Err(TranslateError::Internal(
            "no atomic word for this access".into(),
        )),
    }
}

/// The label of the block being built (instructions may have added blocks
/// since the construct began).
fn current_label(fx: &FunctionCx) -> R<Word> {
    fx.tx
        .b
        .current_label()
        .ok_or_else(|| TranslateError::Internal("no block is being built".into()))
}

/// A loop that runs `attempt` until it reports success, returning the value
/// of the successful attempt. `attempt` returns (done, value).
///
/// Where the driver may cut loops short (`Options::detect_loop_cap`, Mesa
/// 22's llvmpipe: 65,535 iterations per invocation in all), the back edge
/// can also leave on a condition the compiler cannot fold, and a work-item
/// that leaves without success stores 1 to the launch's status word, so the
/// runtime reports the cut instead of returning a lost update
/// (`spirv::control` does the same for the program's own loops).
fn retry(
    fx: &mut FunctionCx,
    attempt: &mut dyn FnMut(&mut FunctionCx) -> R<(Word, Word)>,
) -> R<Word> {
    let detect = fx.tx.options.detect_loop_cap;
    let (header, body, cont, merge) = (fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id());
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(header))?;
    fx.tx.b.loop_merge(merge, cont, LoopControl::NONE, [])?;
    fx.tx.b.branch(body)?;
    fx.tx.b.begin_block(Some(body))?;
    let (done, value) = attempt(fx)?;
    fx.tx.b.branch_conditional(done, merge, cont, [])?;
    fx.tx.b.begin_block(Some(cont))?;
    if detect {
        let never = fx.tx.never()?;
        fx.tx.b.branch_conditional(never, merge, header, [])?;
    } else {
        fx.tx.b.branch(header)?;
    }
    fx.tx.b.begin_block(Some(merge))?;
    if detect {
        // false only where the driver cut the loop short
        let (cut, next) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(next, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(done, next, cut, [])?;
        fx.tx.b.begin_block(Some(cut))?;
        let u32t = fx.tx.uint(32);
        let addr = fx.tx.push_addr(Push::Status)?;
        let pt = fx.tx.ptr(StorageClass::PhysicalStorageBuffer, u32t);
        let status = fx.tx.b.convert_u_to_ptr(pt, None, addr)?;
        let one = fx.tx.const_u32(1);
        fx.tx.b.store(
            status,
            one,
            Some(MemoryAccess::ALIGNED),
            [SOp::LiteralBit32(4)],
        )?;
        fx.tx.layout.sets_status = true;
        fx.tx.b.branch(next)?;
        fx.tx.b.begin_block(Some(next))?;
    }
    Ok(value)
}

/// Compare-and-swap attempts per trip of a [`cas_loop`]: a SIMD vector of 8
/// lanes contending for one word (llvmpipe's) all succeed in one trip.
pub const CAS_ATTEMPTS: u32 = 8;

/// `old = *p; *p = new(old)` atomically, as a compare-and-swap loop on the
/// word; the old value is returned.
///
/// Each trip makes up to [`CAS_ATTEMPTS`] attempts. llvmpipe runs the lanes
/// of a SIMD vector in step and counts every trip of every loop against its
/// cap of 65,535 per invocation (docs/abi.md); where the vector's lanes
/// contend for one word only one of them succeeds per attempt, so with one
/// attempt a trip a contended atomic cost the vector a trip per lane
/// (large-tier seed 20000117: a 16-bit `iatom.add` on one address, from
/// long loops; `tests/run/loop_cap_subword_atomics.pisa`). The attempts
/// after the first run only where some lane failed (one selection), in
/// straight-line code without blocks of their own: llvmpipe's compilation
/// of kernels with barriers (LLVM's coroutine frames) grows faster than
/// linearly with their blocks, and one selection per attempt made a
/// large-tier kernel compile for over 10 minutes. A lane that has
/// succeeded goes on making attempts that cannot change memory: it
/// compares with the word it last saw and would store that same word.
/// A failed attempt's compare-and-swap returns the word as it is, which the
/// next attempt starts from.
fn cas_loop(
    fx: &mut FunctionCx,
    (p, wbits, shift): (Word, u16, Option<Word>),
    bits: u16,
    o: &Order,
    acc: Access,
) -> R<Word> {
    let wt = fx.tx.uint(wbits);
    let t = fx.tx.uint(bits);
    let bt = fx.tx.bool_ty();
    retry(fx, &mut |fx| {
        let relaxed = fx.tx.const_u32(0);
        let w = fx.tx.b.atomic_load(wt, None, p, o.scope, relaxed)?;
        let (prev, old) = cas_attempt(fx, (p, wbits, shift), bits, o, acc, w, None)?;
        let first = fx.tx.b.i_equal(bt, None, prev, w)?;
        let before = current_label(fx)?;
        let (more, join) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(join, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(first, join, more, [])?;
        fx.tx.b.begin_block(Some(more))?;
        let (mut done, mut value, mut seen) = (fx.tx.const_bool(false), old, prev);
        for _ in 1..CAS_ATTEMPTS {
            let (prev, old) = cas_attempt(fx, (p, wbits, shift), bits, o, acc, seen, Some(done))?;
            let ok = fx.tx.b.i_equal(bt, None, prev, seen)?;
            value = fx.tx.b.select(t, None, done, value, old)?;
            done = fx.tx.b.logical_or(bt, None, done, ok)?;
            seen = prev;
        }
        let after = current_label(fx)?;
        fx.tx.b.branch(join)?;
        fx.tx.b.begin_block(Some(join))?;
        let done = fx.tx.b.phi(bt, None, [(first, before), (done, after)])?;
        let value = fx.tx.b.phi(t, None, [(old, before), (value, after)])?;
        Ok((done, value))
    })
}

/// One compare-and-swap of [`cas_loop`] on the word `p`, expecting the word
/// `w`: returns what the compare-and-swap saw and the old value (`bits`
/// wide) taken from `w`. Where `idle` holds, it stores `w` itself: a
/// compare-and-swap that cannot change memory.
fn cas_attempt(
    fx: &mut FunctionCx,
    (p, wbits, shift): (Word, u16, Option<Word>),
    bits: u16,
    o: &Order,
    acc: Access,
    w: Word,
    idle: Option<Word>,
) -> R<(Word, Word)> {
    let wt = fx.tx.uint(wbits);
    let old = match shift {
        Some(sh) => {
            let v = fx.tx.b.shift_right_logical(wt, None, w, sh)?;
            fx.resize(v, wbits, bits, false)?
        }
        None => w,
    };
    let new = new_value(fx, acc, bits, old)?;
    let nw = match shift {
        Some(sh) => {
            let wide = fx.resize(new, bits, wbits, false)?;
            let placed = fx.tx.b.shift_left_logical(wt, None, wide, sh)?;
            let m = fx.tx.const_uint(wbits, (1u64 << bits) - 1);
            let mask = fx.tx.b.shift_left_logical(wt, None, m, sh)?;
            let keep = fx.tx.b.not(wt, None, mask)?;
            let kept = fx.tx.b.bitwise_and(wt, None, w, keep)?;
            fx.tx.b.bitwise_or(wt, None, kept, placed)?
        }
        None => new,
    };
    let nw = match idle {
        Some(idle) => fx.tx.b.select(wt, None, idle, w, nw)?,
        None => nw,
    };
    let prev = fx
        .tx
        .b
        .atomic_compare_exchange(wt, None, p, o.scope, o.sem, o.fail, nw, w)?;
    Ok((prev, old))
}

/// The value an access leaves in memory, given the old one (`bits` wide).
fn new_value(fx: &mut FunctionCx, acc: Access, bits: u16, old: Word) -> R<Word> {
    match acc {
        Access::Load => Ok(old),
        Access::Store(v) => Ok(v),
        Access::Int(op, s0, s1) if bits == 128 => {
            let need = |v: Option<Word>| {
                v.ok_or_else(|| TranslateError::Internal("missing atomic operand".into()))
            };
            match op {
                Op::Xchg => need(s0),
                Op::Cas => {
                    let (cmp, val) = (need(s0)?, need(s1)?);
                    let t = fx.tx.uint(128);
                    let bt = fx.tx.bool_ty();
                    let bv2 = fx.tx.vec(bt, 2);
                    let each = fx.tx.b.i_equal(bv2, None, old, cmp)?;
                    let eq = fx.tx.b.all(bt, None, each)?;
                    Ok(fx.tx.b.select(t, None, eq, val, old)?)
                }
                _ => Err(TranslateError::Internal(
                    "128-bit atomics are cas and xchg only".into(),
                )),
            }
        }
        Access::Int(op, s0, s1) => int_new(fx, op, bits, old, s0, s1),
        Access::Float(op, kind, s0, s1) => float_new(fx, op, kind, bits, old, s0, s1),
    }
}

/// The spec's `new` value of an integer atomic (the `iatom` semantics).
fn int_new(
    fx: &mut FunctionCx,
    op: Op,
    bits: u16,
    old: Word,
    src0: Option<Word>,
    src1: Option<Word>,
) -> R<Word> {
    let t = fx.tx.uint(bits);
    let bt = fx.tx.bool_ty();
    let one = fx.tx.const_uint(bits, 1);
    let zero = fx.tx.const_uint(bits, 0);
    let s = src0.unwrap_or(zero);
    let b = &mut fx.tx.b;
    Ok(match op {
        Op::Add => b.i_add(t, None, old, s)?,
        Op::Sub => b.i_sub(t, None, old, s)?,
        Op::Inc => b.i_add(t, None, old, one)?,
        Op::Dec => b.i_sub(t, None, old, one)?,
        Op::And => b.bitwise_and(t, None, old, s)?,
        Op::Or => b.bitwise_or(t, None, old, s)?,
        Op::Xor => b.bitwise_xor(t, None, old, s)?,
        Op::Xchg => s,
        Op::Smin | Op::Smax | Op::Umin | Op::Umax => {
            let c = match op {
                Op::Smin => b.s_less_than(bt, None, old, s)?,
                Op::Smax => b.s_greater_than(bt, None, old, s)?,
                Op::Umin => b.u_less_than(bt, None, old, s)?,
                _ => b.u_greater_than(bt, None, old, s)?,
            };
            b.select(t, None, c, old, s)?
        }
        Op::Cas => {
            let eq = b.i_equal(bt, None, old, s)?;
            b.select(t, None, eq, src1.unwrap_or(old), old)?
        }
        // new = (old >= src0) ? 0 : old + 1
        Op::Incwrap => {
            let wrap = b.u_greater_than_equal(bt, None, old, s)?;
            let inc = b.i_add(t, None, old, one)?;
            b.select(t, None, wrap, zero, inc)?
        }
        // new = (old == 0 || old > src0) ? src0 : old - 1
        Op::Decwrap => {
            let z = b.i_equal(bt, None, old, zero)?;
            let gt = b.u_greater_than(bt, None, old, s)?;
            let reset = b.logical_or(bt, None, z, gt)?;
            let dec = b.i_sub(t, None, old, one)?;
            b.select(t, None, reset, s, dec)?
        }
        // values of `.op` that belong to other instructions (`ired`, `shfl`)
        Op::Absmax | Op::Dn | Op::Idx | Op::Max | Op::Min | Op::Sum | Op::Up => {
            return Err(TranslateError::Internal(format!(
                "`.{}` in an integer atomic",
                op.text()
            )))
        }
    })
}

/// The spec's `new` value of a floating-point atomic (the `fatom` semantics).
fn float_new(
    fx: &mut FunctionCx,
    op: Op,
    kind: FloatKind,
    bits: u16,
    old: Word,
    src0: Word,
    src1: Option<Word>,
) -> R<Word> {
    if op == Op::Cas {
        // compares bit patterns
        let t = fx.tx.uint(bits);
        let bt = fx.tx.bool_ty();
        let eq = fx.tx.b.i_equal(bt, None, old, src0)?;
        return Ok(fx.tx.b.select(t, None, eq, src1.unwrap_or(old), old)?);
    }
    if bits == 16 && matches!(op, Op::Add | Op::Sub) {
        // they round: loops of `fadd`/`fsub` before here (`ir::fatom16`)
        return Err(TranslateError::Internal(format!(
            "`fatom.{}` on a 16-bit format reached the back end: the IR pass fatom16 makes it a loop",
            op.text()
        )));
    }
    // 16-bit formats compare in f32 (`min`/`max` pick an operand: exact)
    let fb = if bits == 16 { 32 } else { bits };
    let ft = fx.tx.float(fb);
    let (a, b) = if bits == 16 {
        (half_to_f32(fx, old, kind)?, half_to_f32(fx, src0, kind)?)
    } else {
        (
            fx.tx.b.bitcast(ft, None, old)?,
            fx.tx.b.bitcast(ft, None, src0)?,
        )
    };
    let r = match op {
        Op::Add => fx.tx.b.f_add(ft, None, a, b)?,
        Op::Sub => fx.tx.b.f_sub(ft, None, a, b)?,
        // the float core's `fmin`/`fmax`: −0 below +0, a NaN operand
        // yields the other, two NaNs the first, quieted (NMin/NMax leave
        // both to the driver: lavapipe kept a signaling NaN)
        Op::Min | Op::Max => super::floating_point::min_max_of(fx, op == Op::Min, false, fb, a, b)?,
        // `.cas` is handled above; the other values belong to other
        // instructions
        Op::Cas
        | Op::Absmax
        | Op::And
        | Op::Dec
        | Op::Decwrap
        | Op::Dn
        | Op::Idx
        | Op::Inc
        | Op::Incwrap
        | Op::Or
        | Op::Smax
        | Op::Smin
        | Op::Sum
        | Op::Umax
        | Op::Umin
        | Op::Up
        | Op::Xchg
        | Op::Xor => {
            return Err(TranslateError::Internal(format!(
                "`.{}` in a floating-point atomic",
                op.text()
            )))
        }
    };
    if bits == 16 {
        // (min/max: the NaN result from the 16-bit operands, whose
        // payloads widening and narrowing may lose)
        let h = f32_to_half(fx, r, kind)?;
        super::floating_point::min_max_nan16_of(fx, false, kind, old, src0, h)
    } else {
        let ut = fx.tx.uint(bits);
        let r = fx.tx.b.bitcast(ut, None, r)?;
        if matches!(op, Op::Add | Op::Sub) {
            // the float core's NaN: drivers return a signaling NaN source
            // unquieted (lavapipe: 1.0 + 0x7F800001 gave 0x7F800001)
            return super::floating_point::nan_rules(fx, kind, &[old, src0], r);
        }
        Ok(r)
    }
}

fn addr_of<'a>(ins: &'a Ins) -> R<&'a AddrOperand> {
    match ins.opr(Role::Addr)? {
        Operand::Addr(a) => Ok(a),
        _ => Err(TranslateError::Internal("address operand expected".into())),
    }
}

/// The address space of an atomic: `.global`, `.shared`, or generic (an
/// explicit `.generic`, or none on `ld`/`st`).
fn space_of(ins: &Ins) -> Option<Addrspace> {
    match ins.i.quals.addrspace {
        Some(s @ (Addrspace::Global | Addrspace::Shared)) => Some(s),
        Some(Addrspace::Generic | Addrspace::Private | Addrspace::Const) | None => None,
    }
}

/// Performs `acc` at `addr` in `mem`, returning the old value (for stores,
/// a value to ignore).
fn access(fx: &mut FunctionCx, ins: &Ins, acc: Access, addr: Word, mem: Mem, bits: u16) -> R<Word> {
    match (mem, bits) {
        (Mem::Generic, _) => generic(fx, ins, acc, addr, bits),
        (Mem::Private, _) => {
            // private memory is the work-item's own: nothing else can
            // access it in between
            let old = fx.load(addr, mem, bits)?;
            if !acc.loads() {
                let new = new_value(fx, acc, bits, old)?;
                fx.store(addr, mem, new, bits)?;
            }
            Ok(old)
        }
        (Mem::Device, 128) | (Mem::Shared, 64 | 128) => locked(fx, acc, addr, mem, bits),
        // no `shaderBufferInt64Atomics`: the lock table, as for 128 bits
        (Mem::Device, 64) if !fx.tx.options.int64_buffer_atomics => {
            locked(fx, acc, addr, mem, bits)
        }
        _ => native(fx, ins, acc, addr, mem, bits),
    }
}

/// An atomic through a generic address: a selection on the address's tag
/// (docs/abi.md), with the old value merged by a phi.
fn generic(fx: &mut FunctionCx, ins: &Ins, acc: Access, addr: Word, bits: u16) -> R<Word> {
    let u64t = fx.tx.uint(64);
    let sh = fx.tx.const_uint(64, 48);
    let tag = fx.tx.b.shift_right_logical(u64t, None, addr, sh)?;
    let tag = fx.resize(tag, 64, 32, false)?;
    let low = fx.resize(addr, 64, 32, false)?;
    let (dev, shared, private, merge) = (fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id());
    fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
    fx.tx.b.switch(
        tag,
        dev,
        [
            (SOp::LiteralBit32(GENERIC_SHARED_TAG as u32), shared),
            (SOp::LiteralBit32(GENERIC_PRIVATE_TAG as u32), private),
        ],
    )?;
    let mut incoming = Vec::new();
    for (label, mem, a) in [
        (dev, Mem::Device, addr),
        (shared, Mem::Shared, low),
        (private, Mem::Private, low),
    ] {
        fx.tx.b.begin_block(Some(label))?;
        let v = access(fx, ins, acc, a, mem, bits)?;
        incoming.push((v, current_label(fx)?));
        fx.tx.b.branch(merge)?;
    }
    fx.tx.b.begin_block(Some(merge))?;
    let t = fx.tx.uint(bits);
    Ok(fx.tx.b.phi(t, None, incoming)?)
}

/// Atomics Vulkan has: on whole 32-bit (shared, global) and 64-bit (global,
/// with `Options::int64_buffer_atomics`) words, or compare-and-swap loops on
/// them.
fn native(fx: &mut FunctionCx, ins: &Ins, acc: Access, addr: Word, mem: Mem, bits: u16) -> R<Word> {
    if bits == 64 {
        fx.tx.cap(Capability::Int64Atomics);
    }
    let o = order(fx, ins, mem, acc.loads(), acc.stores());
    let t = fx.tx.uint(bits);
    let w = word(fx, addr, mem, bits)?;
    let need = |v: Option<Word>| {
        v.ok_or_else(|| TranslateError::Internal("missing atomic operand".into()))
    };
    Ok(match (acc, w.2) {
        (Access::Load, None) => fx.tx.b.atomic_load(t, None, w.0, o.scope, o.sem)?,
        (Access::Load, Some(sh)) => {
            let u32t = fx.tx.uint(32);
            let v = fx.tx.b.atomic_load(u32t, None, w.0, o.scope, o.sem)?;
            let v = fx.tx.b.shift_right_logical(u32t, None, v, sh)?;
            fx.resize(v, 32, bits, false)?
        }
        (Access::Store(v), None) => {
            fx.tx.b.atomic_store(w.0, o.scope, o.sem, v)?;
            v
        }
        // whole words: SPIR-V's own atomics
        (Access::Int(Op::Cas, s0, s1), None) => {
            let (cmp, val) = (need(s0)?, need(s1)?);
            fx.tx
                .b
                .atomic_compare_exchange(t, None, w.0, o.scope, o.sem, o.fail, val, cmp)?
        }
        (Access::Int(Op::Inc, ..), None) => {
            fx.tx.b.atomic_i_increment(t, None, w.0, o.scope, o.sem)?
        }
        (Access::Int(Op::Dec, ..), None) => {
            fx.tx.b.atomic_i_decrement(t, None, w.0, o.scope, o.sem)?
        }
        (
            Access::Int(
                op @ (Op::Add
                | Op::Sub
                | Op::Smin
                | Op::Smax
                | Op::Umin
                | Op::Umax
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Xchg),
                s0,
                _,
            ),
            None,
        ) => {
            let v = need(s0)?;
            let b = &mut fx.tx.b;
            let atomic = match op {
                Op::Add => Builder::atomic_i_add,
                Op::Sub => Builder::atomic_i_sub,
                Op::Smin => Builder::atomic_s_min,
                Op::Smax => Builder::atomic_s_max,
                Op::Umin => Builder::atomic_u_min,
                Op::Umax => Builder::atomic_u_max,
                Op::And => Builder::atomic_and,
                Op::Or => Builder::atomic_or,
                Op::Xor => Builder::atomic_xor,
                _ => Builder::atomic_exchange,
            };
            atomic(b, t, None, w.0, o.scope, o.sem, v)?
        }
        // sub-word `and`/`or`/`xor`: the same operation on the word, with
        // the neighbouring bits left as they are (ones for `and`)
        (Access::Int(op @ (Op::And | Op::Or | Op::Xor), s0, _), Some(sh)) => {
            let v = need(s0)?;
            sub_word_bitwise(fx, op, (w.0, sh), bits, &o, v)?
        }
        // sub-word `add`/`sub`/`inc`/`dec`: in the upper half of the word a
        // 32-bit add (subtract) of the value shifted up, whose carry
        // (borrow) out of bit 31 is dropped as the 16-bit operation drops
        // it; in the lower half the carry would reach the neighbour, so a
        // compare-and-swap loop
        (Access::Int(op @ (Op::Add | Op::Sub | Op::Inc | Op::Dec), s0, _), Some(_))
            if bits == 16 =>
        {
            upper_half_arith(fx, op, w, &o, acc, s0)?
        }
        // the rest (sub-word stores, `incwrap`/`decwrap`, floating point):
        // a compare-and-swap loop computing the spec's `new`
        _ => cas_loop(fx, w, bits, &o, acc)?,
    })
}

/// A bitwise `op` with `v` on the `bits`-wide sub-word at `shift` of the
/// 32-bit word `p`, as one 32-bit atomic: no loop, and the other bits of
/// the word are never written. Returns the sub-word's old value.
fn sub_word_bitwise(
    fx: &mut FunctionCx,
    op: Op,
    (p, shift): (Word, Word),
    bits: u16,
    o: &Order,
    v: Word,
) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let wide = fx.resize(v, bits, 32, false)?;
    let placed = fx.tx.b.shift_left_logical(u32t, None, wide, shift)?;
    let prev = match op {
        Op::And => {
            let m = fx.tx.const_u32(((1u64 << bits) - 1) as u32);
            let mask = fx.tx.b.shift_left_logical(u32t, None, m, shift)?;
            let keep = fx.tx.b.not(u32t, None, mask)?;
            let operand = fx.tx.b.bitwise_or(u32t, None, placed, keep)?;
            fx.tx.b.atomic_and(u32t, None, p, o.scope, o.sem, operand)?
        }
        Op::Or => fx.tx.b.atomic_or(u32t, None, p, o.scope, o.sem, placed)?,
        _ => fx.tx.b.atomic_xor(u32t, None, p, o.scope, o.sem, placed)?,
    };
    let old = fx.tx.b.shift_right_logical(u32t, None, prev, shift)?;
    fx.resize(old, 32, bits, false)
}

/// A 16-bit `add`/`sub`/`inc`/`dec` on the half of the 32-bit word `p` at
/// `shift`: a 32-bit atomic of the operand shifted up where it is the upper
/// half (the carry or borrow out of bit 31 is lost, as the 16-bit
/// operation's is), a compare-and-swap loop where it is the lower half.
fn upper_half_arith(
    fx: &mut FunctionCx,
    op: Op,
    (p, wbits, shift): (Word, u16, Option<Word>),
    o: &Order,
    acc: Access,
    s0: Option<Word>,
) -> R<Word> {
    let sh = shift.ok_or_else(|| TranslateError::Internal("no sub-word shift".into()))?;
    let u32t = fx.tx.uint(32);
    let t = fx.tx.uint(16);
    let bt = fx.tx.bool_ty();
    let sixteen = fx.tx.const_u32(16);
    let upper = fx.tx.b.i_equal(bt, None, sh, sixteen)?;
    let (hi, lo, merge) = (fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id());
    fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
    fx.tx.b.branch_conditional(upper, hi, lo, [])?;
    fx.tx.b.begin_block(Some(hi))?;
    let v = match (op, s0) {
        (Op::Inc | Op::Dec, _) => fx.tx.const_u32(1),
        (_, Some(v)) => fx.resize(v, 16, 32, false)?,
        (_, None) => return Err(TranslateError::Internal("missing atomic operand".into())),
    };
    let placed = fx.tx.b.shift_left_logical(u32t, None, v, sixteen)?;
    let prev = match op {
        Op::Add | Op::Inc => fx
            .tx
            .b
            .atomic_i_add(u32t, None, p, o.scope, o.sem, placed)?,
        _ => fx
            .tx
            .b
            .atomic_i_sub(u32t, None, p, o.scope, o.sem, placed)?,
    };
    let old_hi = fx.tx.b.shift_right_logical(u32t, None, prev, sixteen)?;
    let old_hi = fx.resize(old_hi, 32, 16, false)?;
    let hi_end = current_label(fx)?;
    fx.tx.b.branch(merge)?;
    fx.tx.b.begin_block(Some(lo))?;
    let old_lo = cas_loop(fx, (p, wbits, shift), 16, o, acc)?;
    let lo_end = current_label(fx)?;
    fx.tx.b.branch(merge)?;
    fx.tx.b.begin_block(Some(merge))?;
    Ok(fx.tx.b.phi(t, None, [(old_hi, hi_end), (old_lo, lo_end)])?)
}

/// A pointer to the lock that guards `addr` in `mem`'s lock table, and the
/// scope the lock works at.
fn lock_ptr(fx: &mut FunctionCx, addr: Word, mem: Mem) -> R<(Word, Scope)> {
    let u32t = fx.tx.uint(32);
    if mem == Mem::Shared {
        let locks = shared_locks(fx.tx);
        // one lock per 8 bytes, modulo the table
        let three = fx.tx.const_u32(3);
        let i = fx.tx.b.shift_right_logical(u32t, None, addr, three)?;
        let m = fx.tx.const_u32(SHARED_LOCKS - 1);
        let i = fx.tx.b.bitwise_and(u32t, None, i, m)?;
        let pt = fx.tx.ptr(StorageClass::Workgroup, u32t);
        return Ok((
            fx.tx.b.access_chain(pt, None, locks, [i])?,
            Scope::Workgroup,
        ));
    }
    let table = global_locks(fx.tx);
    // one lock per 16 bytes, with higher address bits folded in so that
    // arrays far apart do not share locks in step
    let u64t = fx.tx.uint(64);
    let (four, fourteen) = (fx.tx.const_uint(64, 4), fx.tx.const_uint(64, 14));
    let a = fx.tx.b.shift_right_logical(u64t, None, addr, four)?;
    let b = fx.tx.b.shift_right_logical(u64t, None, addr, fourteen)?;
    let h = fx.tx.b.bitwise_xor(u64t, None, a, b)?;
    let m = fx.tx.const_uint(64, GLOBAL_LOCKS as u64 - 1);
    let i = fx.tx.b.bitwise_and(u64t, None, h, m)?;
    let two = fx.tx.const_uint(64, 2);
    let off = fx.tx.b.shift_left_logical(u64t, None, i, two)?;
    let base = fx.tx.push_addr(Push::DataBase)?;
    let t = fx.tx.const_uint(64, table);
    let at = fx.tx.b.i_add(u64t, None, base, t)?;
    let at = fx.tx.b.i_add(u64t, None, at, off)?;
    Ok((fx.device_ptr(at, 32)?, Scope::Device))
}

/// The data-block offset of the global lock table, reserved (zeroed, after
/// every variable) the first time one is needed.
fn global_locks(tx: &mut ModuleCx) -> u64 {
    if let Some(off) = tx.atomics.global_locks {
        return off;
    }
    let l = &mut tx.layout;
    let off = l.data_bytes.div_ceil(64) * 64;
    l.data_bytes = off + GLOBAL_LOCKS as u64 * 4;
    tx.atomics.global_locks = Some(off);
    off
}

/// The `Workgroup` array of shared locks, declared the first time one is
/// needed; every entry point zeroes it before the kernel runs
/// ([`zero_shared_locks`]).
fn shared_locks(tx: &mut ModuleCx) -> Word {
    if let Some(v) = tx.atomics.shared_locks {
        return v;
    }
    let u32t = tx.uint(32);
    let n = tx.const_u32(SHARED_LOCKS);
    let arr = tx.b.type_array(u32t, n);
    let pt = tx.ptr(StorageClass::Workgroup, arr);
    let v = tx.global_var(pt, StorageClass::Workgroup);
    tx.b.name(v, "pisa_atomic_locks");
    tx.interface.push(v);
    tx.atomics.shared_locks = Some(v);
    v
}

/// At the start of an entry point, when the module has shared locks: the
/// first work-item of the group clears them, then the group waits at a
/// barrier. Vulkan does not zero `Workgroup` memory (and the feature that
/// would, `shaderZeroInitializeWorkgroupMemory`, is Vulkan 1.3), and every
/// work-item of the group reaches the entry point, so the barrier is
/// uniform.
pub fn zero_shared_locks(tx: &mut ModuleCx, first: Word) -> R<()> {
    let Some(locks) = tx.atomics.shared_locks else {
        return Ok(());
    };
    let (clear, next) = (tx.b.id(), tx.b.id());
    tx.b.selection_merge(next, SelectionControl::NONE)?;
    tx.b.branch_conditional(first, clear, next, [])?;
    tx.b.begin_block(Some(clear))?;
    let u32t = tx.uint(32);
    let pt = tx.ptr(StorageClass::Workgroup, u32t);
    let wg = tx.const_u32(Scope::Workgroup as u32);
    let relaxed = tx.const_u32(0);
    let zero = tx.const_u32(0);
    for i in 0..SHARED_LOCKS {
        let idx = tx.const_u32(i);
        let p = tx.b.access_chain(pt, None, locks, [idx])?;
        tx.b.atomic_store(p, wg, relaxed, zero)?;
    }
    tx.b.branch(next)?;
    tx.b.begin_block(Some(next))?;
    let sem =
        tx.const_u32((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
    tx.b.control_barrier(wg, wg, sem)?;
    Ok(())
}

/// The 32-bit words of a `bits`-wide value at `addr`, read (`value` None)
/// or written with relaxed atomics: inside a critical section the lock
/// orders them, and atomics keep every access coherent at `scope`.
fn words(
    fx: &mut FunctionCx,
    addr: Word,
    mem: Mem,
    bits: u16,
    scope: Word,
    value: Option<Word>,
) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let u64t = fx.tx.uint(64);
    let uv2 = fx.tx.vec(u32t, 2);
    let relaxed = fx.tx.const_u32(0);
    let n = bits as u32 / 32;
    let mut ptrs = Vec::new();
    for i in 0..n {
        ptrs.push(if mem == Mem::Shared {
            fx.word_ptr(addr, mem, i)?
        } else {
            let a = fx.offset64(addr, 4 * i as u64)?;
            fx.device_ptr(a, 32)?
        });
    }
    // the value as (low, high) word pairs of its 64-bit halves
    let halves = (n / 2) as usize;
    match value {
        Some(v) => {
            for h in 0..halves {
                let half = if bits == 128 {
                    fx.tx.b.composite_extract(u64t, None, v, [h as u32])?
                } else {
                    v
                };
                let pair = fx.tx.b.bitcast(uv2, None, half)?;
                for k in 0..2 {
                    let w = fx.tx.b.composite_extract(u32t, None, pair, [k])?;
                    fx.tx
                        .b
                        .atomic_store(ptrs[2 * h + k as usize], scope, relaxed, w)?;
                }
            }
            Ok(v)
        }
        None => {
            let mut parts = Vec::new();
            for h in 0..halves {
                let lo = fx
                    .tx
                    .b
                    .atomic_load(u32t, None, ptrs[2 * h], scope, relaxed)?;
                let hi = fx
                    .tx
                    .b
                    .atomic_load(u32t, None, ptrs[2 * h + 1], scope, relaxed)?;
                let pair = fx.tx.b.composite_construct(uv2, None, [lo, hi])?;
                parts.push(fx.tx.b.bitcast(u64t, None, pair)?);
            }
            if bits == 128 {
                let t = fx.tx.uint(128);
                Ok(fx.tx.b.composite_construct(t, None, parts)?)
            } else {
                Ok(parts[0])
            }
        }
    }
}

/// An access no Vulkan atomic covers, under the spin lock that guards its
/// address (0 free, 1 taken).
///
/// The shape matters: a work-item that fails to take the lock retries, and
/// the one that takes it runs the critical section and releases the lock
/// *inside* the same iteration. Spinning until the lock is taken and only
/// then running the critical section deadlocks where the lanes of a
/// sub-group run in lockstep: the lanes spinning on a lock that another
/// lane of their sub-group holds keep that lane from reaching its release.
///
/// A compare-and-swap lock rather than a (fair) ticket lock: a work-item
/// that the driver's loop cap cuts short (llvmpipe) holds no lock, where a
/// ticket it took but was never served would block its lock for good.
fn locked(fx: &mut FunctionCx, acc: Access, addr: Word, mem: Mem, bits: u16) -> R<Word> {
    let (lock, scope) = lock_ptr(fx, addr, mem)?;
    let scope = fx.tx.const_u32(scope as u32);
    // taking the lock acquires and releasing it releases: the critical
    // section's accesses stay inside it, whatever the instruction's order
    // asks (at least acquire/release, which Vulkan's seq_cst is too)
    let (acq, rel) = if fx.tx.options.relaxed_memory_orders {
        // llvmpipe (see `order`): relaxed atomics are locked instructions
        (MemorySemantics::empty(), MemorySemantics::empty())
    } else {
        (
            MemorySemantics::ACQUIRE | storage_sem(mem),
            MemorySemantics::RELEASE | storage_sem(mem),
        )
    };
    let (acq, rel) = (fx.tx.const_u32(acq.bits()), fx.tx.const_u32(rel.bits()));
    let t = fx.tx.uint(bits);
    retry(fx, &mut |fx| {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let (zero, one, relaxed) = (fx.tx.const_u32(0), fx.tx.const_u32(1), fx.tx.const_u32(0));
        let prev = fx
            .tx
            .b
            .atomic_compare_exchange(u32t, None, lock, scope, acq, relaxed, one, zero)?;
        let got = fx.tx.b.i_equal(bt, None, prev, zero)?;
        let tried = current_label(fx)?;
        let (critical, join) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(join, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(got, critical, join, [])?;
        fx.tx.b.begin_block(Some(critical))?;
        let old = words(fx, addr, mem, bits, scope, None)?;
        if !acc.loads() {
            let new = new_value(fx, acc, bits, old)?;
            words(fx, addr, mem, bits, scope, Some(new))?;
        }
        fx.tx.b.atomic_store(lock, scope, rel, zero)?;
        let done = current_label(fx)?;
        fx.tx.b.branch(join)?;
        fx.tx.b.begin_block(Some(join))?;
        let none = fx.tx.const_null(t);
        let v = fx.tx.b.phi(t, None, [(old, done), (none, tried)])?;
        Ok((got, v))
    })
}

/// Reads an `iatom`/`fatom` source operand.
fn source(fx: &mut FunctionCx, ins: &Ins, name: Role, bits: u16) -> R<Option<Word>> {
    match ins.op(name) {
        Some(s) => {
            // llvmpipe aborted on atomics of float-computed values
            // (`tests/run/atomic_of_float_bits.pisa`)
            let v = fx.read(s, bits)?;
            Ok(Some(fx.opaque(v, bits)?))
        }
        None => Ok(None),
    }
}

/// Atomic `ld`/`st` (a memory order other than `.weak`).
pub fn ordered(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let bits = ins.i.quals.ty.map_or(32, Type::bits);
    let (addr, mem) = fx.address(addr_of(ins)?, space_of(ins))?;
    let addr = fx.checked_address(addr, mem)?;
    if ins.i.opcode == Opcode::Ld {
        let v = access(fx, ins, Access::Load, addr, mem, bits)?;
        fx.write(ins.opr(Role::Dst)?, v, bits)?;
    } else {
        let v = fx.read(ins.opr(Role::Src0)?, bits)?;
        access(fx, ins, Access::Store(v), addr, mem, bits)?;
    }
    Ok(true)
}

pub fn iatom(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let bits = ins.i.quals.ty.map_or(32, Type::bits);
    let Some(op) = ins.i.quals.op else {
        return Ok(false);
    };
    let (addr, mem) = fx.address(addr_of(ins)?, space_of(ins))?;
    let addr = fx.checked_address(addr, mem)?;
    let src0 = source(fx, ins, Role::Src0, bits)?;
    let src1 = source(fx, ins, Role::Src1, bits)?;
    let old = access(fx, ins, Access::Int(op, src0, src1), addr, mem, bits)?;
    fx.write(ins.opr(Role::Dst)?, old, bits)?;
    Ok(true)
}

pub fn fatom(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let Some(kind) = ins.i.quals.ty.map_or(Some(FloatKind::Single), Type::float) else {
        return Ok(false);
    };
    let bits = kind.bits();
    let Some(op) = ins.i.quals.op else {
        return Ok(false);
    };
    let (addr, mem) = fx.address(addr_of(ins)?, space_of(ins))?;
    let addr = fx.checked_address(addr, mem)?;
    let src0 = fx.read(ins.opr(Role::Src0)?, bits)?;
    let src1 = match ins.op(Role::Src1) {
        Some(s) => Some(fx.read(s, bits)?),
        None => None,
    };
    let acc = Access::Float(op, kind, src0, src1);
    let old = access(fx, ins, acc, addr, mem, bits)?;
    fx.write(ins.opr(Role::Dst)?, old, bits)?;
    Ok(true)
}
