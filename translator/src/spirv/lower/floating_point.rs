//! Floating-point arithmetic (spec chapter 13) for `.f`, `.df`, `.hf` and
//! `.bf` with the default rounding (`.re`); 16-bit formats compute in f32 and
//! round once (see `float16.rs`). `fabs`/`fneg` are bit operations, so NaN
//! payloads pass through (`fabs` sets the quiet bit of a NaN, 13 §2.1).

use super::common::{flush, Ins, R};
use super::float16::{f32_to_half, half_to_f32};
use crate::ir::qualifier::Rndmode;
use crate::ir::Opcode;
use crate::ir::Operand;
use crate::ir::{FloatKind, Role};
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.i.quals.ty else {
        return Ok(false);
    };
    let Some(kind) = ty.float() else {
        return Ok(false);
    };
    // packed halves (13: `dst[15:0] = op(src0[15:0], ...)`, `dst[31:16]`
    // likewise): the scalar lowering once per lane, the operands' lanes
    // read and written through `FunctionCx::lane`
    if ty.lanes() > 1 {
        return fx.per_lane(|fx| lower_type(fx, ins, kind));
    }
    lower_type(fx, ins, kind)
}

/// [`lower`] for scalars of format `ty`.
fn lower_type(fx: &mut FunctionCx, ins: &Ins, ty: FloatKind) -> R<bool> {
    let fbits = ty.bits();
    if ins.i.quals.precision.is_some() {
        // `fmul.full` of 16-bit formats: a call of the exact library
        return Ok(false);
    }
    // `.fast` bounds the error (13 §2.4, §2.17: 0.5-2.5 ULP); the exact
    // result is within every bound
    let fast = ins.i.quals.fast;
    if fast && !matches!(ins.i.opcode, Opcode::Fdiv | Opcode::Fsqrt | Opcode::Frsqrt) {
        return Ok(false);
    }
    let ftz = ins.i.quals.ftz;
    if crate::ir::mathlib::implements(ins.i) {
        return Err(crate::spirv::error::TranslateError::Internal(format!(
            "`{}` reached the back end: ir::mathlib::link replaces it by a call",
            ins.name
        )));
    }
    if ins.i.opcode == Opcode::Frsqrt {
        return rsqrt64(fx, ins, ty, ftz);
    }
    // quotients and roots correctly rounded whatever the driver's precision
    // (lower::quotient); `.fast` is within its bound that way too
    if fx.tx.options.exact_division
        && matches!(ins.i.opcode, Opcode::Fdiv | Opcode::Fsqrt | Opcode::Frcp)
    {
        let mode = ins.i.quals.rndmode.unwrap_or(Rndmode::Re);
        return directed(fx, ins, ty, mode, ftz);
    }
    if let Some(mode) = ins.i.quals.rndmode.filter(|&r| r != Rndmode::Re) {
        return directed(fx, ins, ty, mode, ftz);
    }
    if fbits == 16 && !matches!(ins.i.opcode, Opcode::Fabs | Opcode::Fneg) {
        return half(fx, ins, ty, ftz);
    }
    // (16 bits only for `fabs`/`fneg`, integer operations: no 16-bit float
    // type is declared for them)
    let ft = fx.tx.float(fbits.max(32));
    let v = match ins.i.opcode {
        Opcode::Fabs | Opcode::Fneg => {
            let a = fx.read(ins.opr(Role::Src0)?, fbits)?;
            let a = if ftz { flush(fx, a, ty)? } else { a };
            let t = fx.tx.uint(fbits);
            let sign = fx.tx.const_uint(fbits, 1u64 << (fbits - 1));
            let v = if ins.i.opcode == Opcode::Fneg {
                fx.tx.b.bitwise_xor(t, None, a, sign)?
            } else {
                // 13 §2.1: a NaN source gives a quiet NaN with its sign
                // cleared (payload kept); anything else just loses its sign
                let mask = fx.tx.b.not(t, None, sign)?;
                let abs = fx.tx.b.bitwise_and(t, None, a, mask)?;
                let (inf, quiet) = (ty.exponent_mask(), ty.quiet_bit());
                let inf = fx.tx.const_uint(fbits, inf);
                let quiet = fx.tx.const_uint(fbits, quiet);
                let bt = fx.tx.bool_ty();
                let nan = fx.tx.b.u_greater_than(bt, None, abs, inf)?;
                let quieted = fx.tx.b.bitwise_or(t, None, abs, quiet)?;
                fx.tx.b.select(t, None, nan, quieted, abs)?
            };
            fx.write(ins.opr(Role::Dst)?, v, fbits)?;
            return Ok(true);
        }
        Opcode::Fadd | Opcode::Fsub | Opcode::Fmul | Opcode::Fdiv | Opcode::Fmin | Opcode::Fmax => {
            let a = src(fx, ins, Role::Src0, ty, ftz)?;
            let b = src(fx, ins, Role::Src1, ty, ftz)?;
            match ins.i.opcode {
                Opcode::Fadd => fx.tx.b.f_add(ft, None, a, b)?,
                Opcode::Fsub => fx.tx.b.f_sub(ft, None, a, b)?,
                Opcode::Fmul => fx.tx.b.f_mul(ft, None, a, b)?,
                Opcode::Fdiv => fx.tx.b.f_div(ft, None, a, b)?,
                // IEEE 754 minimumNumber/maximumNumber: a NaN operand yields the other
                _ => min_max(fx, ins, fbits, a, b)?,
            }
        }
        Opcode::Fmad => {
            let a = src(fx, ins, Role::Src0, ty, ftz)?;
            let b = src(fx, ins, Role::Src1, ty, ftz)?;
            let c = src(fx, ins, Role::Src2, ty, ftz)?;
            // (`fmad.f` through f64 is a call of the exact library:
            // ir::exactf64)
            if fbits == 64 {
                // Vulkan does not require `Fma` to be fused (lavapipe's is
                // not): emulated with one rounding (rounding.rs)
                fx.fma64(a, b, c, Rndmode::Re)?
            } else if fbits == 32 && !fx.tx.options.fma_f32_native_fused {
                return Err(fx.tx.unsupported_on_device(
                    ins.i.span,
                    format!(
                        "`{}` rounds once, but this device's fused multiply-add rounds twice, \
                         and the exact form needs shaderFloat64 and shaderInt64",
                        ins.i.mnemonic_text()
                    ),
                ));
            } else {
                fx.tx.glsl_op(ft, G::Fma, &[a, b, c])?
            }
        }
        Opcode::Fsqrt => {
            let a = src(fx, ins, Role::Src0, ty, ftz)?;
            fx.tx.glsl_op(ft, G::Sqrt, &[a])?
        }
        Opcode::Frc => frc(fx, ins, ty, ftz)?,
        // 1/src0 with the division's precision (see docs/spec-notes.md)
        Opcode::Frcp => {
            let a = src(fx, ins, Role::Src0, ty, ftz)?;
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic), fbits)?;
            fx.tx.b.f_div(ft, None, one, a)?
        }
        _ => return Ok(false),
    };
    let v = if ins.i.quals.dsat {
        saturate(fx, v, fbits)?
    } else {
        v
    };
    let t = fx.tx.uint(fbits);
    let bits = fx.tx.b.bitcast(t, None, v)?;
    let bits = if ftz { flush(fx, bits, ty)? } else { bits };
    fx.write(ins.opr(Role::Dst)?, bits, fbits)?;
    Ok(true)
}

/// `fadd`, `fsub`, `fmul`, `fmad`, `fdiv`, `fsqrt` on `.df` in a rounding
/// mode Vulkan does not have, and quotients and roots with
/// `exact_division` (`rounding.rs`, `quotient.rs`): sums corrected by
/// TwoSum's error, products, quotients and roots by scaled exact
/// remainders. `.f`, `.hf`, `.bf` are calls of the exact library
/// (`ir::exactf32`, `exactf64`), refused before here
/// (`lower::refuse_unrewritten`).
fn directed(fx: &mut FunctionCx, ins: &Ins, ty: FloatKind, mode: Rndmode, ftz: bool) -> R<bool> {
    let op = ins.i.opcode;
    if ty != FloatKind::Double
        || !matches!(
            op,
            Opcode::Fadd
                | Opcode::Fsub
                | Opcode::Fmul
                | Opcode::Fmad
                | Opcode::Fdiv
                | Opcode::Fsqrt
                | Opcode::Frcp
        )
    {
        return Ok(false);
    }

    let dt = fx.tx.float(64);
    // the sources as exact f64 values (flushed first with `.ftz`), and
    // their encodings (for the NaN rules)
    let mut srcs = Vec::new();
    let mut raw = Vec::new();
    for name in [Role::Src0, Role::Src1, Role::Src2] {
        if ins.op(name).is_none() {
            continue;
        }
        let (v, r) = f64_source(fx, ins, name, ty, ftz)?;
        srcs.push(v);
        raw.push(r);
    }
    if op == Opcode::Fsub {
        srcs[1] = fx.tx.b.f_negate(dt, None, srcs[1])?;
    }
    // frcp: the quotient 1 / a
    let op = if op == Opcode::Frcp {
        let one = fx.f64c(1.0)?;
        srcs.insert(0, one);
        Opcode::Fdiv
    } else {
        op
    };
    // .df products, quotients, roots: scaled exact remainders
    if matches!(
        op,
        Opcode::Fmul | Opcode::Fdiv | Opcode::Fsqrt | Opcode::Fmad
    ) {
        let r = if op == Opcode::Fmad {
            fx.fma64(srcs[0], srcs[1], srcs[2], mode)?
        } else {
            fx.directed_binary64(op, srcs[0], srcs.get(1).copied(), mode)?
        };
        let t = fx.tx.uint(64);
        let bits = fx.tx.b.bitcast(t, None, r)?;
        let bits = nan_rules(fx, ty, &raw, bits)?;
        let bits = if ins.i.quals.dsat {
            let r = fx.tx.b.bitcast(dt, None, bits)?;
            let r = saturate(fx, r, 64)?;
            fx.tx.b.bitcast(t, None, r)?
        } else {
            bits
        };
        let bits = if ftz { flush(fx, bits, ty)? } else { bits };
        fx.write(ins.opr(Role::Dst)?, bits, 64)?;
        return Ok(true);
    }
    // sums, corrected by TwoSum's error
    let (a, b) = (srcs[0], srcs[1]);
    let (s, e) = fx.two_sum64(a, b)?;
    let bt = fx.tx.bool_ty();
    let inf_s = fx.tx.b.is_inf(bt, None, s)?;
    let fa = finite(fx, a)?;
    let fb = finite(fx, b)?;
    let finite_in = fx.tx.b.logical_and(bt, None, fa, fb)?;
    let overflow = fx.tx.b.logical_and(bt, None, inf_s, finite_in)?;
    let r = fx.directed64(s, e, overflow, mode)?;
    let r = fx.exact_zero_sum(r, a, b, mode)?;
    let t = fx.tx.uint(64);
    let bits = fx.tx.b.bitcast(t, None, r)?;
    let bits = nan_rules(fx, ty, &raw, bits)?;
    let bits = if ins.i.quals.dsat {
        let r = fx.tx.b.bitcast(dt, None, bits)?;
        let r = saturate(fx, r, 64)?;
        fx.tx.b.bitcast(t, None, r)?
    } else {
        bits
    };
    let bits = if ftz { flush(fx, bits, ty)? } else { bits };
    fx.write(ins.opr(Role::Dst)?, bits, 64)?;
    Ok(true)
}

/// `frsqrt.fast.df` (1 ULP): refined in double-double (rounding.rs); f64
/// has no wider format to compute in. The narrower types are the math
/// library's (`ir::mathlib`). Special values as the square root gives them
/// (±0 → ±∞, +∞ → +0, negative → NaN), NaNs by the float core's rule.
fn rsqrt64(fx: &mut FunctionCx, ins: &Ins, ty: FloatKind, ftz: bool) -> R<bool> {
    let (x, raw) = f64_source(fx, ins, Role::Src0, ty, ftz)?;
    let ut = fx.tx.uint(64);
    let y = fx.rsqrt64(x)?;
    let bits = fx.tx.b.bitcast(ut, None, y)?;
    let bits = nan_rules(fx, ty, &[raw], bits)?;
    let bits = if ftz { flush(fx, bits, ty)? } else { bits };
    fx.write(ins.opr(Role::Dst)?, bits, 64)?;
    Ok(true)
}

/// The NaN rules of the float core (docs/spec-notes.md): a NaN result is
/// the first NaN source, quieted, or the positive default NaN when no
/// source is a NaN (`∞ − ∞`, `0 × ∞`). `raw` are the sources' encodings and
/// `bits` the computed result's, in format `ty`. Drivers differ in which NaN
/// an operation returns; this makes the result the same everywhere.
pub(super) fn nan_rules(fx: &mut FunctionCx, ty: FloatKind, raw: &[Word], bits: Word) -> R<Word> {
    let (n, inf, quiet) = (ty.bits(), ty.exponent_mask(), ty.quiet_bit());
    let t = fx.tx.uint(n);
    let bt = fx.tx.bool_ty();
    // every bit but the sign
    let abs_mask = fx.tx.const_uint(
        n,
        if n == 64 {
            u64::MAX >> 1
        } else {
            (1 << (n - 1)) - 1
        },
    );
    let inf_c = fx.tx.const_uint(n, inf);
    let q = fx.tx.const_uint(n, quiet);
    let is_nan = |fx: &mut FunctionCx, x: Word| -> R<Word> {
        let m = fx.tx.b.bitwise_and(t, None, x, abs_mask)?;
        Ok(fx.tx.b.u_greater_than(bt, None, m, inf_c)?)
    };
    // the default NaN, then each source from the last: the first NaN wins
    let mut nan = fx.tx.const_uint(n, inf | quiet);
    let mut any = fx.tx.b.constant_false(bt);
    for &r in raw.iter().rev() {
        let this = is_nan(fx, r)?;
        let quieted = fx.tx.b.bitwise_or(t, None, r, q)?;
        nan = fx.tx.b.select(t, None, this, quieted, nan)?;
        any = fx.tx.b.logical_or(bt, None, any, this)?;
    }
    let result_nan = is_nan(fx, bits)?;
    let use_nan = fx.tx.b.logical_or(bt, None, any, result_nan)?;
    Ok(fx.tx.b.select(t, None, use_nan, nan, bits)?)
}

/// A source of `ty` (`f`, `df`, `hf`, `bf`), flushed first with `.ftz`: its
/// exact f64 value, and its encoding (for the NaN rules).
pub(super) fn f64_source(
    fx: &mut FunctionCx,
    ins: &Ins,
    name: Role,
    ty: FloatKind,
    ftz: bool,
) -> R<(Word, Word)> {
    let dt = fx.tx.float(64);
    Ok(match ty {
        FloatKind::Half | FloatKind::BFloat => {
            let h = fx.read(ins.opr(name)?, 16)?;
            let h = if ftz { flush(fx, h, ty)? } else { h };
            let f = half_to_f32(fx, h, ty)?;
            (fx.tx.b.f_convert(dt, None, f)?, h)
        }
        FloatKind::Single => {
            let f = src(fx, ins, name, ty, ftz)?;
            let ut = fx.tx.uint(32);
            let r = fx.tx.b.bitcast(ut, None, f)?;
            (fx.tx.b.f_convert(dt, None, f)?, r)
        }
        FloatKind::Double => {
            let f = src(fx, ins, name, ty, ftz)?;
            let ut = fx.tx.uint(64);
            (f, fx.tx.b.bitcast(ut, None, f)?)
        }
    })
}

/// A floating-point source as a float value, flushed first with `.ftz`.
pub(super) fn src(fx: &mut FunctionCx, ins: &Ins, name: Role, ty: FloatKind, ftz: bool) -> R<Word> {
    // (the 16-bit formats are read as halves by their callers)
    let fbits = match ty {
        FloatKind::Double => 64,
        FloatKind::Single | FloatKind::Half | FloatKind::BFloat => 32,
    };
    let op = ins.opr(name)?;
    if !ftz {
        return fx.read_f(op, fbits);
    }
    let bits = match op {
        Operand::Int(l, _) if !l.hex => {
            // a decimal literal: its float value, then its bits
            let f = fx.read_f(op, fbits)?;
            let t = fx.tx.uint(fbits);
            fx.tx.b.bitcast(t, None, f)?
        }
        _ => {
            let v = fx.read(op, fbits)?;
            fx.opaque(v, fbits)?
        }
    };
    let bits = flush(fx, bits, ty)?;
    let ft = fx.tx.float(fbits);
    Ok(fx.tx.b.bitcast(ft, None, bits)?)
}

/// `.hf`/`.bf` arithmetic: widen exactly, compute in f32, round once.
fn half(fx: &mut FunctionCx, ins: &Ins, ty: FloatKind, ftz: bool) -> R<bool> {
    let mut srcs = Vec::new();
    let mut bits = Vec::new();
    for name in [Role::Src0, Role::Src1, Role::Src2] {
        if let Some(op) = ins.op(name) {
            let h = fx.read(op, 16)?;
            let h = if ftz { flush(fx, h, ty)? } else { h };
            bits.push(h);
            srcs.push(half_to_f32(fx, h, ty)?);
        }
    }
    let ft = fx.tx.float(32);
    let v = match (ins.i.opcode, srcs.as_slice()) {
        (Opcode::Fadd, [a, b]) => fx.tx.b.f_add(ft, None, *a, *b)?,
        (Opcode::Fsub, [a, b]) => fx.tx.b.f_sub(ft, None, *a, *b)?,
        (Opcode::Fmul, [a, b]) => fx.tx.b.f_mul(ft, None, *a, *b)?,
        (Opcode::Fdiv, [a, b]) => fx.tx.b.f_div(ft, None, *a, *b)?,
        (Opcode::Fmin | Opcode::Fmax, [a, b]) => min_max(fx, ins, 32, *a, *b)?,
        (Opcode::Fsqrt, [a]) => fx.tx.glsl_op(ft, G::Sqrt, &[*a])?,
        (Opcode::Frcp, [a]) => {
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic), 32)?;
            fx.tx.b.f_div(ft, None, one, *a)?
        }
        (Opcode::Fmad, [a, b, c]) => fmad16(fx, ty, *a, *b, *c)?,
        _ => return Ok(false),
    };
    let h = f32_to_half(fx, v, ty)?;
    // fmin/fmax NaN results from the 16-bit operands: widening a
    // signaling NaN to f32 and back loses its payload on some drivers
    // (lavapipe)
    // the other NaN results by the float core's rule too: drivers differ in
    // the NaN an f32 operation and its narrowing give
    let h = match (ins.i.opcode, bits.as_slice()) {
        (Opcode::Fmin | Opcode::Fmax, [a, b]) => min_max_nan16(fx, ins, ty, *a, *b, h)?,
        _ => nan_rules(fx, ty, &bits, h)?,
    };
    // `.dsat` clamps the final, 16-bit result: a negative f32 result that
    // rounds to −0 stays −0 (clamping the f32 value first gave +0; fuzz
    // seed 20608). The rounded value widens exactly, and 0 and 1 narrow
    // exactly.
    let h = if ins.i.quals.dsat {
        let w = half_to_f32(fx, h, ty)?;
        let s = saturate(fx, w, 32)?;
        f32_to_half(fx, s, ty)?
    } else {
        h
    };
    let h = if ftz { flush(fx, h, ty)? } else { h };
    fx.write(ins.opr(Role::Dst)?, h, 16)?;
    Ok(true)
}

/// An f32 constant from its bits.
fn f32c(fx: &mut FunctionCx, bits: u32) -> R<Word> {
    let ft = fx.tx.float(32);
    let u = fx.tx.const_u32(bits);
    Ok(fx.tx.b.bitcast(ft, None, u)?)
}

/// TwoSum (Knuth): `(s, e)` with `s = RN(a + b)` and `e = a + b − s`
/// exactly, for any finite `a`, `b` whose sum does not overflow (subnormals
/// included). Every operation is `NoContraction` (types.rs).
fn two_sum(fx: &mut FunctionCx, ft: Word, a: Word, b: Word) -> R<(Word, Word)> {
    let s = fx.tx.b.f_add(ft, None, a, b)?;
    let bv = fx.tx.b.f_sub(ft, None, s, a)?;
    let av = fx.tx.b.f_sub(ft, None, s, bv)?;
    let db = fx.tx.b.f_sub(ft, None, b, bv)?;
    let da = fx.tx.b.f_sub(ft, None, a, av)?;
    let e = fx.tx.b.f_add(ft, None, da, db)?;
    Ok((s, e))
}

/// `fmad.hf`/`fmad.bf` with one rounding: `a·b + c` in f32, rounded to odd,
/// then rounded to 16 bits. The product of two 16-bit values has at most 22
/// significant bits, so it is exact in f32 (for `.bf`, whose exponent range
/// is f32's, while it neither overflows nor underflows: see below); TwoSum
/// gives the exact error `e` of `s = RN32(p + c)`; when `e ≠ 0` and `s` is
/// even, `s` moves one ulp toward `e`, which is the round-to-odd value
/// RO32(p + c); and RN16(RO32(x)) = RN16(x) since 24 ≥ 11 + 2 (and f32's
/// subnormal grid is 16 bits finer than `.bf`'s). Rounding an f32 `Fma` to
/// 16 bits instead rounds twice: `fmad.hf` 0x3E00 × 0x3956 + 0x0001 is
/// 0x3C01, through f32 0x3C00.
///
/// `.bf` only: a product at or past f32's overflow is computed from `a/2`
/// and `c/2` (exact: a bfloat16 value has 16 spare bits below it in f32)
/// and the sum doubled back (exact, or an overflow that bfloat16 has too).
/// A nonzero product below 2^-134 (where f32 may round it) is less than
/// half of bfloat16's smallest spacing 2^-133: the exact result is then `c`,
/// or a zero of the product's sign when `c` is ±0.
fn fmad16(fx: &mut FunctionCx, ty: FloatKind, a: Word, b: Word, c: Word) -> R<Word> {
    let ft = fx.tx.float(32);
    let ut = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let one = f32c(fx, 0x3F80_0000)?;
    let (sa, sc, back) = if ty == FloatKind::BFloat {
        let p0 = fx.tx.b.f_mul(ft, None, a, b)?;
        let ap = fx.tx.glsl_op(ft, G::FAbs, &[p0])?;
        let inf = f32c(fx, 0x7F80_0000)?;
        let over = fx.tx.b.f_ord_equal(bt, None, ap, inf)?;
        let half = f32c(fx, 0x3F00_0000)?;
        let two = f32c(fx, 0x4000_0000)?;
        let h = fx.tx.b.select(ft, None, over, half, one)?;
        let sa = fx.tx.b.f_mul(ft, None, a, h)?;
        let sc = fx.tx.b.f_mul(ft, None, c, h)?;
        let back = fx.tx.b.select(ft, None, over, two, one)?;
        (sa, sc, Some(back))
    } else {
        (a, c, None)
    };
    let p = fx.tx.b.f_mul(ft, None, sa, b)?;
    let (s, e) = two_sum(fx, ft, p, sc)?;
    // round to odd; an infinite or NaN `s` makes `e` NaN and stays
    let zero = f32c(fx, 0)?;
    let inexact = fx.tx.b.f_ord_not_equal(bt, None, e, zero)?;
    let sb = fx.tx.b.bitcast(ut, None, s)?;
    let one_u = fx.tx.const_u32(1);
    let zero_u = fx.tx.const_u32(0);
    let low = fx.tx.b.bitwise_and(ut, None, sb, one_u)?;
    let even = fx.tx.b.i_equal(bt, None, low, zero_u)?;
    let adjust = fx.tx.b.logical_and(bt, None, inexact, even)?;
    // toward e: one step up in magnitude when e has s's sign, else down
    let eb = fx.tx.b.bitcast(ut, None, e)?;
    let signs = fx.tx.b.bitwise_xor(ut, None, sb, eb)?;
    let top = fx.tx.const_u32(0x7FFF_FFFF);
    let differ = fx.tx.b.u_greater_than(bt, None, signs, top)?;
    let minus = fx.tx.const_u32(u32::MAX);
    let step = fx.tx.b.select(ut, None, differ, minus, one_u)?;
    let moved = fx.tx.b.i_add(ut, None, sb, step)?;
    let rb = fx.tx.b.select(ut, None, adjust, moved, sb)?;
    let r = fx.tx.b.bitcast(ft, None, rb)?;
    let Some(back) = back else {
        return Ok(r);
    };
    let r = fx.tx.b.f_mul(ft, None, r, back)?;
    // .bf products below 2^-134: |a * 2^24 * b| < 2^-110, exact near 2^-110
    let c24 = f32c(fx, 0x4B80_0000)?;
    let a24 = fx.tx.b.f_mul(ft, None, a, c24)?;
    let q = fx.tx.b.f_mul(ft, None, a24, b)?;
    let aq = fx.tx.glsl_op(ft, G::FAbs, &[q])?;
    let lim = f32c(fx, 0x0880_0000)?;
    let small = fx.tx.b.f_ord_less_than(bt, None, aq, lim)?;
    let anz = fx.tx.b.f_ord_not_equal(bt, None, a, zero)?;
    let bnz = fx.tx.b.f_ord_not_equal(bt, None, b, zero)?;
    let cnan = fx.tx.b.is_nan(bt, None, c)?;
    let cnum = fx.tx.b.logical_not(bt, None, cnan)?;
    let tiny = fx.tx.b.logical_and(bt, None, small, anz)?;
    let tiny = fx.tx.b.logical_and(bt, None, tiny, bnz)?;
    let tiny = fx.tx.b.logical_and(bt, None, tiny, cnum)?;
    let ab = fx.tx.b.bitcast(ut, None, a)?;
    let bb = fx.tx.b.bitcast(ut, None, b)?;
    let xs = fx.tx.b.bitwise_xor(ut, None, ab, bb)?;
    let sign = fx.tx.const_u32(0x8000_0000);
    let zs = fx.tx.b.bitwise_and(ut, None, xs, sign)?;
    let zs = fx.tx.b.bitcast(ft, None, zs)?;
    let cnz = fx.tx.b.f_ord_not_equal(bt, None, c, zero)?;
    let t = fx.tx.b.select(ft, None, cnz, c, zs)?;
    let r = fx.tx.b.select(ft, None, tiny, t, r)?;
    // an infinite `c` with finite a, b is the exact result, also when the
    // product is too large even for the halved f32 sum (which then gave
    // inf − inf = NaN; fuzz seed 21389)
    let cinf = fx.tx.b.is_inf(bt, None, c)?;
    let a_fin = finite(fx, a)?;
    let b_fin = finite(fx, b)?;
    let fin = fx.tx.b.logical_and(bt, None, a_fin, b_fin)?;
    let keep_c = fx.tx.b.logical_and(bt, None, cinf, fin)?;
    Ok(fx.tx.b.select(ft, None, keep_c, c, r)?)
}

/// Whether an f32 value is neither infinite nor NaN.
fn finite(fx: &mut FunctionCx, v: Word) -> R<Word> {
    let bt = fx.tx.bool_ty();
    let inf = fx.tx.b.is_inf(bt, None, v)?;
    let nan = fx.tx.b.is_nan(bt, None, v)?;
    let bad = fx.tx.b.logical_or(bt, None, inf, nan)?;
    Ok(fx.tx.b.logical_not(bt, None, bad)?)
}

/// `frc` (13 §2.12): `src0 − round(src0, .rd)` with the subtraction rounded
/// down too (".rd rounding mode is always applied"), so the result lies in
/// [0, 1): −2^-30 gives 1 − 2^-24, not 1.0. The subtraction is exact except
/// for −1 < src0 < 0; TwoSum gives its error, and a negative error (the
/// rounded difference is above the exact one) steps it one ulp down.
/// Integral values and ±0 give +0; ±inf give the default NaN 0x7FC00000.
fn frc(fx: &mut FunctionCx, ins: &Ins, ty: FloatKind, ftz: bool) -> R<Word> {
    let ft = fx.tx.float(32);
    let ut = fx.tx.uint(32);
    let bt = fx.tx.bool_ty();
    let a = src(fx, ins, Role::Src0, ty, ftz)?;
    let fl = fx.tx.glsl_op(ft, G::Floor, &[a])?;
    let nfl = fx.tx.b.f_negate(ft, None, fl)?;
    let (s, e) = two_sum(fx, ft, a, nfl)?;
    let zero = f32c(fx, 0)?;
    let above = fx.tx.b.f_ord_less_than(bt, None, e, zero)?;
    let sb = fx.tx.b.bitcast(ut, None, s)?;
    let one = fx.tx.const_u32(1);
    let down = fx.tx.b.i_sub(ut, None, sb, one)?;
    let rb = fx.tx.b.select(ut, None, above, down, sb)?;
    // ±inf: inf − inf, whose NaN is the driver's (x86's is negative); the
    // default NaN is positive (docs/spec-notes.md)
    let inf = fx.tx.b.is_inf(bt, None, a)?;
    let nan = fx.tx.const_u32(0x7FC0_0000);
    let rb = fx.tx.b.select(ut, None, inf, nan, rb)?;
    Ok(fx.tx.b.bitcast(ft, None, rb)?)
}

/// `fmin`/`fmax` on `fbits`-bit floats: IEEE minimumNumber/maximumNumber (a
/// NaN operand yields the other; two NaNs the first, quieted); with
/// `.nanp`, a NaN operand makes the result the first NaN, quieted
/// (docs/spec-notes.md). `NMin`/`NMax` leave which NaN, and whether a
/// signaling one is quieted, to the driver (lavapipe returned the
/// signaling NaN), so NaN results are made here.
fn min_max(fx: &mut FunctionCx, ins: &Ins, fbits: u16, a: Word, b: Word) -> R<Word> {
    let ft = fx.tx.float(fbits);
    let op = if ins.i.opcode == Opcode::Fmin {
        G::NMin
    } else {
        G::NMax
    };
    let v = fx.tx.glsl_op(ft, op, &[a, b])?;
    let bt = fx.tx.bool_ty();
    // −0 < +0 (docs/spec-notes.md), which NMin/NMax leave to the driver:
    // for equal operands the minimum has either's sign bit, the maximum
    // both (the same bits unless they are zeros of both signs)
    let ut = fx.tx.uint(fbits);
    let ab = fx.tx.b.bitcast(ut, None, a)?;
    let bb = fx.tx.b.bitcast(ut, None, b)?;
    let same = if ins.i.opcode == Opcode::Fmin {
        fx.tx.b.bitwise_or(ut, None, ab, bb)?
    } else {
        fx.tx.b.bitwise_and(ut, None, ab, bb)?
    };
    let same = fx.tx.b.bitcast(ft, None, same)?;
    let equal = fx.tx.b.f_ord_equal(bt, None, a, b)?;
    let v = fx.tx.b.select(ft, None, equal, same, v)?;
    let na = fx.tx.b.is_nan(bt, None, a)?;
    let nb = fx.tx.b.is_nan(bt, None, b)?;
    // the NaN result: the first NaN operand, quieted
    let first = fx.tx.b.select(ft, None, na, a, b)?;
    let ut = fx.tx.uint(fbits);
    let bits = fx.tx.b.bitcast(ut, None, first)?;
    let quiet = fx
        .tx
        .const_uint(fbits, 1 << (if fbits == 64 { 51 } else { 22 }));
    let bits = fx.tx.b.bitwise_or(ut, None, bits, quiet)?;
    let nan = fx.tx.b.bitcast(ft, None, bits)?;
    let nan_result = if ins.i.quals.nanp {
        fx.tx.b.logical_or(bt, None, na, nb)?
    } else {
        fx.tx.b.logical_and(bt, None, na, nb)?
    };
    Ok(fx.tx.b.select(ft, None, nan_result, nan, v)?)
}

/// The NaN rules of [`min_max`] on 16-bit operands `a`, `b` (`hf` or `bf`
/// bits): `v` unless the result is a NaN, then the first NaN, quieted.
fn min_max_nan16(
    fx: &mut FunctionCx,
    ins: &Ins,
    ty: FloatKind,
    a: Word,
    b: Word,
    v: Word,
) -> R<Word> {
    let (inf, quiet) = (ty.exponent_mask(), ty.quiet_bit());
    let t = fx.tx.uint(16);
    let bt = fx.tx.bool_ty();
    let abs_mask = fx.tx.const_uint(16, 0x7FFF);
    let inf = fx.tx.const_uint(16, inf);
    let is_nan = |fx: &mut FunctionCx, x: Word| -> R<Word> {
        let m = fx.tx.b.bitwise_and(t, None, x, abs_mask)?;
        Ok(fx.tx.b.u_greater_than(bt, None, m, inf)?)
    };
    let na = is_nan(fx, a)?;
    let nb = is_nan(fx, b)?;
    let first = fx.tx.b.select(t, None, na, a, b)?;
    let q = fx.tx.const_uint(16, quiet);
    let nan = fx.tx.b.bitwise_or(t, None, first, q)?;
    let nan_result = if ins.i.quals.nanp {
        fx.tx.b.logical_or(bt, None, na, nb)?
    } else {
        fx.tx.b.logical_and(bt, None, na, nb)?
    };
    Ok(fx.tx.b.select(t, None, nan_result, nan, v)?)
}

/// `.dsat`: clamp to [0.0, 1.0]; NaN becomes +0.0.
fn saturate(fx: &mut FunctionCx, v: Word, fbits: u16) -> R<Word> {
    let ft = fx.tx.float(fbits);
    let bt = fx.tx.bool_ty();
    let c = |fx: &mut FunctionCx, x: f64| -> R<Word> {
        let bits = if fbits == 64 {
            x.to_bits()
        } else {
            (x as f32).to_bits() as u64
        };
        let u = fx.tx.const_uint(fbits, bits);
        Ok(fx.tx.b.bitcast(ft, None, u)?)
    };
    let (zero, one) = (c(fx, 0.0)?, c(fx, 1.0)?);
    let below = fx.tx.b.f_ord_less_than(bt, None, v, zero)?;
    let nan = fx.tx.b.is_nan(bt, None, v)?;
    let low = fx.tx.b.logical_or(bt, None, below, nan)?;
    let above = fx.tx.b.f_ord_greater_than(bt, None, v, one)?;
    let v = fx.tx.b.select(ft, None, above, one, v)?;
    Ok(fx.tx.b.select(ft, None, low, zero, v)?)
}
