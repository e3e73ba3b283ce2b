//! Atomics (spec chapter 19): `iatom`, `fatom`, and the atomic (ordered)
//! forms of `ld`/`st`, on `.global` and `.shared` memory.
//!
//! Operations SPIR-V has are used directly on 32- and 64-bit words. The rest
//! — `incwrap`/`decwrap`, every floating-point operation, and 16-bit values,
//! which live inside a 32-bit word of the shared arena or of global memory —
//! are compare-and-swap loops on the containing word, so they need no
//! optional device feature beyond 64-bit atomics for 64-bit values.

use super::float16::{f32_to_half, half_to_f32};
use super::{bits_of, Ins, R};
use crate::ir::qualifier::{Addrspace, Memorder, Memscope, Op};
use crate::ir::Qualifier;
use crate::ir::*;
use crate::spirv::function::FunctionCx;
use crate::spirv::memory::Mem;
use crate::spirv::TranslateError;
use rspirv::dr::Builder;
use rspirv::spirv::{Capability, GlslStd450Op as G, LoopControl, MemorySemantics, Scope, Word};

/// Scope and semantics of an atomic access.
struct Order {
    scope: Word,
    /// Semantics for the access (and a CAS that succeeds).
    sem: Word,
    /// Semantics for a CAS that fails: no release ordering.
    fail: Word,
}

fn order(fx: &mut FunctionCx, ins: &Ins, mem: Mem, load: bool, store: bool) -> Order {
    let storage = if mem == Mem::Shared {
        MemorySemantics::WORKGROUP_MEMORY
    } else {
        MemorySemantics::UNIFORM_MEMORY
    };
    // Vulkan treats sequential consistency as acquire/release
    let mut o = match ins.qual() {
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
    let scope = match (ins.qual(), mem) {
        (Some(Memscope::Workgroup), _) | (None, Mem::Shared) => Scope::Workgroup,
        _ => Scope::Device,
    };
    Order {
        scope: fx.tx.const_u32(scope as u32),
        sem: fx.tx.const_u32(sem.bits()),
        fail: fx.tx.const_u32(fail.bits()),
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
        (Mem::Shared | Mem::Private, 32) => Ok((fx.word_ptr(addr, mem, 0)?, 32, None)),
        (Mem::Shared | Mem::Private, 16) => {
            let p = fx.word_ptr(addr, mem, 0)?;
            Ok((p, 32, Some(fx.sub_shift(addr)?)))
        }
        _ => Err(TranslateError::Internal(
            "no atomic word for this access".into(),
        )),
    }
}

/// `old = *p; *p = f(old)` atomically, as a compare-and-swap loop on the
/// word. `f` sees and returns the value (`bits` wide); the old value is
/// returned.
fn cas_loop(
    fx: &mut FunctionCx,
    (p, wbits, shift): (Word, u16, Option<Word>),
    bits: u16,
    o: &Order,
    f: &mut dyn FnMut(&mut FunctionCx, Word) -> R<Word>,
) -> R<Word> {
    let wt = fx.tx.uint(wbits);
    let header = fx.tx.b.id();
    let body = fx.tx.b.id();
    let cont = fx.tx.b.id();
    let merge = fx.tx.b.id();
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(header))?;
    fx.tx.b.loop_merge(merge, cont, LoopControl::NONE, [])?;
    fx.tx.b.branch(body)?;
    fx.tx.b.begin_block(Some(body))?;
    let relaxed = fx.tx.const_u32(0);
    let w = fx.tx.b.atomic_load(wt, None, p, o.scope, relaxed)?;
    let old = match shift {
        Some(sh) => {
            let v = fx.tx.b.shift_right_logical(wt, None, w, sh)?;
            fx.resize(v, wbits, bits, false)?
        }
        None => w,
    };
    let new = f(fx, old)?;
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
    let prev = fx
        .tx
        .b
        .atomic_compare_exchange(wt, None, p, o.scope, o.sem, o.fail, nw, w)?;
    let bt = fx.tx.bool_ty();
    let done = fx.tx.b.i_equal(bt, None, prev, w)?;
    fx.tx.b.branch_conditional(done, merge, cont, [])?;
    fx.tx.b.begin_block(Some(cont))?;
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(merge))?;
    Ok(old)
}

fn addr_of<'a>(ins: &'a Ins) -> R<&'a AddrOperand> {
    match ins.opr("addr")? {
        Operand::Addr(a) => Ok(a),
        _ => Err(TranslateError::Internal("address operand expected".into())),
    }
}

fn space_of(ins: &Ins) -> Option<Addrspace> {
    match ins.qual() {
        Some(s @ (Addrspace::Global | Addrspace::Shared)) => Some(s),
        _ => None, // generic addressing is not lowered yet
    }
}

fn need_int64_atomics(fx: &mut FunctionCx, bits: u16, mem: Mem) -> bool {
    if bits == 64 {
        if mem != Mem::Device {
            return false;
        }
        fx.tx.cap(Capability::Int64Atomics);
    }
    true
}

/// Atomic `ld`/`st` (a memory order other than `.weak`).
pub fn ordered(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let bits = bits_of(ins.q("type").unwrap_or("32b"));
    let Some(space) = space_of(ins) else {
        return Ok(false);
    };
    if !matches!(bits, 32 | 64) {
        return Ok(false);
    }
    let (addr, mem) = fx.address(addr_of(ins)?, Some(space))?;
    if !need_int64_atomics(fx, bits, mem) {
        return Ok(false);
    }
    let (p, _, _) = word(fx, addr, mem, bits)?;
    let t = fx.tx.uint(bits);
    if ins.i.opcode == Opcode::Ld {
        let o = order(fx, ins, mem, true, false);
        let v = fx.tx.b.atomic_load(t, None, p, o.scope, o.sem)?;
        fx.write(ins.opr("dst")?, v, bits)?;
    } else {
        let o = order(fx, ins, mem, false, true);
        let v = fx.read(ins.opr("src0")?, bits)?;
        fx.tx.b.atomic_store(p, o.scope, o.sem, v)?;
    }
    Ok(true)
}

/// The address, space and ordering of a read-modify-write atomic; `None`
/// when this back end cannot lower it (generic, 128-bit, 64-bit shared).
fn rmw_target(fx: &mut FunctionCx, ins: &Ins, bits: u16) -> R<Option<(Word, Mem, Order)>> {
    let Some(space) = space_of(ins) else {
        return Ok(None);
    };
    if bits == 128 {
        return Ok(None);
    }
    let (addr, mem) = fx.address(addr_of(ins)?, Some(space))?;
    if !need_int64_atomics(fx, bits, mem) {
        return Ok(None);
    }
    let o = order(fx, ins, mem, false, false);
    Ok(Some((addr, mem, o)))
}

pub fn iatom(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let bits = bits_of(ins.q("type").unwrap_or("32b"));
    let Some((addr, mem, o)) = rmw_target(fx, ins, bits)? else {
        return Ok(false);
    };
    let Some(op) = ins.qual::<Op>() else {
        return Ok(false);
    };
    let src0 = match ins.op("src0") {
        Some(s) => {
            // llvmpipe aborted on atomics of float-computed values
            // (`tests/run/atomic_of_float_bits.pisa`)
            let v = fx.read(s, bits)?;
            Some(fx.opaque(v, bits)?)
        }
        None => None,
    };
    let src1 = match ins.op("src1") {
        Some(s) => {
            // llvmpipe aborted on atomics of float-computed values
            // (`tests/run/atomic_of_float_bits.pisa`)
            let v = fx.read(s, bits)?;
            Some(fx.opaque(v, bits)?)
        }
        None => None,
    };
    let t = fx.tx.uint(bits);
    let w = word(fx, addr, mem, bits)?;
    let need = |v: Option<Word>| {
        v.ok_or_else(|| TranslateError::Internal("missing atomic operand".into()))
    };
    let old = match (w.2, op) {
        // whole words: SPIR-V's own atomics
        (None, Op::Cas) => {
            let (cmp, val) = (need(src0)?, need(src1)?);
            fx.tx
                .b
                .atomic_compare_exchange(t, None, w.0, o.scope, o.sem, o.fail, val, cmp)?
        }
        (None, Op::Inc) => fx.tx.b.atomic_i_increment(t, None, w.0, o.scope, o.sem)?,
        (None, Op::Dec) => fx.tx.b.atomic_i_decrement(t, None, w.0, o.scope, o.sem)?,
        (
            None,
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
        ) => {
            let v = need(src0)?;
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
        // the rest: a compare-and-swap loop computing the spec's `new`
        _ => {
            let mut f = |fx: &mut FunctionCx, old: Word| -> R<Word> {
                int_new(fx, op, bits, old, src0, src1)
            };
            cas_loop(fx, w, bits, &o, &mut f)?
        }
    };
    fx.write(ins.opr("dst")?, old, bits)?;
    Ok(true)
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

pub fn fatom(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let ty = ins.q("type").unwrap_or("f");
    let bits = bits_of(ty);
    let Some((addr, mem, o)) = rmw_target(fx, ins, bits)? else {
        return Ok(false);
    };
    let Some(op) = ins.qual::<Op>() else {
        return Ok(false);
    };
    let src0 = fx.read(ins.opr("src0")?, bits)?;
    let src1 = match ins.op("src1") {
        Some(s) => Some(fx.read(s, bits)?),
        None => None,
    };
    let w = word(fx, addr, mem, bits)?;
    let mut f = |fx: &mut FunctionCx, old: Word| -> R<Word> {
        if op == Op::Cas {
            // compares bit patterns
            let t = fx.tx.uint(bits);
            let bt = fx.tx.bool_ty();
            let eq = fx.tx.b.i_equal(bt, None, old, src0)?;
            return Ok(fx.tx.b.select(t, None, eq, src1.unwrap_or(old), old)?);
        }
        // 16-bit formats compute in f32 and round once
        let fb = if bits == 16 { 32 } else { bits };
        let ft = fx.tx.float(fb);
        let (a, b) = if bits == 16 {
            (half_to_f32(fx, old, ty)?, half_to_f32(fx, src0, ty)?)
        } else {
            (
                fx.tx.b.bitcast(ft, None, old)?,
                fx.tx.b.bitcast(ft, None, src0)?,
            )
        };
        let r = match op {
            Op::Add => fx.tx.b.f_add(ft, None, a, b)?,
            Op::Sub => fx.tx.b.f_sub(ft, None, a, b)?,
            Op::Min => fx.tx.glsl_op(ft, G::NMin, &[a, b])?,
            _ => fx.tx.glsl_op(ft, G::NMax, &[a, b])?,
        };
        if bits == 16 {
            f32_to_half(fx, r, ty)
        } else {
            let ut = fx.tx.uint(bits);
            Ok(fx.tx.b.bitcast(ut, None, r)?)
        }
    };
    let old = cas_loop(fx, w, bits, &o, &mut f)?;
    fx.write(ins.opr("dst")?, old, bits)?;
    Ok(true)
}
