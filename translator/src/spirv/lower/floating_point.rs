//! Floating-point arithmetic (spec chapter 13) for `.f`, `.df`, `.hf` and
//! `.bf` with the default rounding (`.re`), in the forms Vulkan computes
//! exactly (`fadd`, `fsub`, `fmul` correctly rounded; `fdiv`, `fsqrt`,
//! `frcp` and `fmad.f` only where the device's own form is asked for);
//! every other form is a call of an exact library before here
//! (`ir::exactf32`, `exactf64`, `softf64`; `lower::refuse_unrewritten`),
//! `frc` and the `.bf` arithmetic that rounds included. `.hf` computes in
//! f32 and rounds once (see `float16.rs`).
//! `fabs`/`fneg` are bit operations, so NaN payloads pass through (`fabs`
//! sets the quiet bit of a NaN, 13 §2.1).

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
    // calls of the exact libraries before here (`lower::refuse_unrewritten`):
    // every rounding mode but `.re`, `fmad` of every format but `.f`
    // (whose `Fma` the device may be asked to use), `frsqrt.df`, `frc`
    // (whose subtraction rounds down), and
    // `fdiv`/`fsqrt`/`frcp` unless the device's own form is asked for
    let directed = ins.i.quals.rndmode.is_some_and(|r| r != Rndmode::Re);
    // (`fmad.df` reaches here only to nearest without `.ftz`, `.dsat` on a
    // driver whose f64 `Fma` was probed fused: `Options::fma_f64_native_fused`)
    let fmad = ins.i.opcode == Opcode::Fmad
        && !(ty == FloatKind::Single
            || ty == FloatKind::Double && fx.tx.options.fma_f64_native_fused);
    if directed || fmad || ins.i.opcode == Opcode::Frsqrt {
        return Ok(false);
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
            // (only `fmad.f` where the device's `Fma` is asked for: the
            // exact form is a call of the exact library, ir::exactf64;
            // `fmad.df` where it was probed fused, with the float core's
            // NaN rules: the soft-double library's, the cpu device's)
            if ty == FloatKind::Double {
                let v = fx.tx.glsl_op(ft, G::Fma, &[a, b, c])?;
                let t = fx.tx.uint(64);
                let mut raw = Vec::new();
                for x in [a, b, c, v] {
                    raw.push(fx.tx.b.bitcast(t, None, x)?);
                }
                let bits = nan_rules(fx, ty, &raw[..3], raw[3])?;
                fx.write(ins.opr(Role::Dst)?, bits, fbits)?;
                return Ok(true);
            } else if !fx.tx.options.fma_f32_native_fused {
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
        // 1/src0 with the division's precision (see docs/spec-notes.md)
        Opcode::Frcp => {
            let a = src(fx, ins, Role::Src0, ty, ftz)?;
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic()), fbits)?;
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
            let one = fx.read_f(&Operand::Float(1.0, ins.i.mnemonic()), 32)?;
            fx.tx.b.f_div(ft, None, one, *a)?
        }
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

/// `fmin`/`fmax` on `fbits`-bit floats: IEEE minimumNumber/maximumNumber (a
/// NaN operand yields the other; two NaNs the first, quieted); with
/// `.nanp`, a NaN operand makes the result the first NaN, quieted
/// (docs/spec-notes.md). `NMin`/`NMax` leave which NaN, and whether a
/// signaling one is quieted, to the driver (lavapipe returned the
/// signaling NaN), so NaN results are made here.
fn min_max(fx: &mut FunctionCx, ins: &Ins, fbits: u16, a: Word, b: Word) -> R<Word> {
    let min = ins.i.opcode == Opcode::Fmin;
    min_max_of(fx, min, ins.i.quals.nanp, fbits, a, b)
}

/// [`min_max`] of the minimum (`min`) or the maximum, with `.nanp` or
/// not: also `fatom.min`/`.max` (`lower::atomics`).
pub(super) fn min_max_of(
    fx: &mut FunctionCx,
    min: bool,
    nanp: bool,
    fbits: u16,
    a: Word,
    b: Word,
) -> R<Word> {
    let ft = fx.tx.float(fbits);
    let op = if min { G::NMin } else { G::NMax };
    let v = fx.tx.glsl_op(ft, op, &[a, b])?;
    let bt = fx.tx.bool_ty();
    // −0 < +0 (docs/spec-notes.md), which NMin/NMax leave to the driver:
    // for equal operands the minimum has either's sign bit, the maximum
    // both (the same bits unless they are zeros of both signs)
    let ut = fx.tx.uint(fbits);
    let ab = fx.tx.b.bitcast(ut, None, a)?;
    let bb = fx.tx.b.bitcast(ut, None, b)?;
    let same = if min {
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
    let nan_result = if nanp {
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
    min_max_nan16_of(fx, ins.i.quals.nanp, ty, a, b, v)
}

/// [`min_max_nan16`] with `.nanp` or not: also `fatom.min`/`.max` on
/// 16-bit formats (`lower::atomics`).
pub(super) fn min_max_nan16_of(
    fx: &mut FunctionCx,
    nanp: bool,
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
    let nan_result = if nanp {
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
