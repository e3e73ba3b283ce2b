//! Data movement and conversions (spec chapter 15): `mov` (with swizzles),
//! `extract`/`insert`, `sext`/`zext`/`trunc`, `addrof`, and the numeric
//! conversions `i2f`, `f2i`, `fext`, `ftrunc`, `frnd`.

use super::common::{Ins, R};
use super::float16::half_to_f32;
use crate::ir::qualifier::{Addrspace, Rndmode};
use crate::ir::*;
use crate::spirv::error::TranslateError;
use crate::spirv::function::{FunctionCx, Reg};
use crate::spirv::memory::Mem;
use rspirv::spirv::{StorageClass, Word};

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    match ins.i.opcode {
        Opcode::Mov => mov(fx, ins)?,
        Opcode::Sext | Opcode::Zext | Opcode::Trunc => {
            let (to, from) = (
                ins.i.quals.to.map_or(32, Type::bits),
                ins.i.quals.from.map_or(32, Type::bits),
            );
            let v = fx.read(ins.opr(Role::Src0)?, from)?;
            let v = fx.resize(v, from, to, ins.i.opcode == Opcode::Sext)?;
            fx.write(ins.opr(Role::Dst)?, v, to)?;
        }
        Opcode::Addrof => {
            let bits = ins.i.quals.ty.map_or(64, Type::bits);
            let v = match ins.opr(Role::Src0)? {
                Operand::Symbol(n, span) => {
                    let funcs: Vec<(usize, Name)> =
                        fx.tx.functions().map(|(i, f)| (i, f.name)).collect();
                    match funcs.iter().find(|(_, f)| f == n) {
                        Some(&(i, _)) => fx.tx.const_uint(64, crate::abi::function_address(i)),
                        None => fx.var_address_value(*n, *span)?,
                    }
                }
                other => return Err(fx.unsupported(other.span(), "addrof operand")),
            };
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        Opcode::Extract | Opcode::Insert | Opcode::ExtractDynamic | Opcode::InsertDynamic => {
            elements(fx, ins)?
        }
        Opcode::Addrcast => {
            let mem = |s: Option<Addrspace>| match s {
                Some(Addrspace::Private) => Mem::Private,
                Some(Addrspace::Shared) => Mem::Shared,
                Some(Addrspace::Global | Addrspace::Const | Addrspace::Generic) | None => {
                    Mem::Device
                }
            };
            let to = ins.i.quals.to_space;
            let src = ins.opr(Role::Src0)?;
            let v = if to == Some(Addrspace::Generic) {
                let from = mem(ins.i.quals.from_space);
                let v = match src {
                    Operand::Symbol(n, span) => fx.var_address_value(*n, *span)?,
                    op => fx.read(op, if from == Mem::Device { 64 } else { 32 })?,
                };
                fx.generic_address(v, from)?
            } else {
                let g = fx.read(src, 64)?;
                fx.specific_address(g, mem(to))?
            };
            let bits = if to == Some(Addrspace::Generic) || mem(to) == Mem::Device {
                64
            } else {
                32
            };
            fx.write(ins.opr(Role::Dst)?, v, bits)?;
        }
        Opcode::Isaddr => {
            let g = fx.read(ins.opr(Role::Src0)?, 64)?;
            let space = match ins.i.quals.addrspace {
                Some(Addrspace::Private) => Mem::Private,
                Some(Addrspace::Shared) => Mem::Shared,
                Some(Addrspace::Global | Addrspace::Const | Addrspace::Generic) | None => {
                    Mem::Device
                }
            };
            let p = fx.generic_is(g, space)?;
            let u32t = fx.tx.uint(32);
            let ones = fx.tx.const_u32(u32::MAX);
            let zero = fx.tx.const_u32(0);
            let v = fx.tx.b.select(u32t, None, p, ones, zero)?;
            fx.write(ins.opr(Role::Dst)?, v, 32)?;
        }
        Opcode::I2f => return i2f(fx, ins),
        Opcode::F2i => return f2i(fx, ins),
        Opcode::Pf2i => return pf2i(fx, ins),
        Opcode::Fext | Opcode::Ftrunc => return fconvert(fx, ins),
        // every form is a call of the exact library (ir::exactf32, exactf64)
        Opcode::Ftrunc2 => return Ok(false),
        // integer instructions on the encoding before here (the IR pass
        // `frnd`; `lower::refuse_unrewritten`)
        Opcode::Frnd => return Ok(false),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Truncation toward zero on the encoding: the fraction bits of the
/// significand cleared (`|a| < 1` keeps only the sign; values of 2^mant
/// and more, infinities and NaNs are unchanged). Exact, for the mode-less
/// `f2i` (the other modes round first, in the IR pass `frnd`), and not
/// GLSL's `Trunc`: lavapipe's f64 `Trunc` returned values of 2^24 and
/// more unchanged and lost the sign of `trunc(-0.5)` (Mesa 22.3.6, LLVM
/// 15, on an AVX2 machine; tests/run/frnd_even_df.pisa).
fn trunc(fx: &mut FunctionCx, a: Word, fbits: u16) -> R<Word> {
    let (mant, bias, emask) = if fbits == 64 {
        (52u64, 1023u64, 0x7ff)
    } else {
        (23, 127, 0xff)
    };
    let ft = fx.tx.float(fbits);
    let ut = fx.tx.uint(fbits);
    let bt = fx.tx.bool_ty();
    let c = |fx: &mut FunctionCx, v: u64| fx.tx.const_uint(fbits, v);
    let bits = fx.tx.b.bitcast(ut, None, a)?;
    let m = c(fx, mant);
    let e = fx.tx.b.shift_right_logical(ut, None, bits, m)?;
    let em = c(fx, emask);
    let e = fx.tx.b.bitwise_and(ut, None, e, em)?;
    let biased_one = c(fx, bias);
    let integral_from = c(fx, bias + mant);
    let below_one = fx.tx.b.u_less_than(bt, None, e, biased_one)?;
    let integral = fx.tx.b.u_greater_than_equal(bt, None, e, integral_from)?;
    // fraction bits: bias + mant - e, in 1..=mant where they exist
    let frac_bits = fx.tx.b.i_sub(ut, None, integral_from, e)?;
    let zero = c(fx, 0);
    let frac_bits = fx.tx.b.select(ut, None, integral, zero, frac_bits)?;
    let frac_bits = fx.tx.b.select(ut, None, below_one, m, frac_bits)?;
    let one = c(fx, 1);
    let unit = fx.tx.b.shift_left_logical(ut, None, one, frac_bits)?;
    let fmask = fx.tx.b.i_sub(ut, None, unit, one)?;
    let keep = fx.tx.b.not(ut, None, fmask)?;
    let cleared = fx.tx.b.bitwise_and(ut, None, bits, keep)?;
    let sign = c(fx, 1 << (fbits - 1));
    let signed_zero = fx.tx.b.bitwise_and(ut, None, bits, sign)?;
    let r = fx.tx.b.select(ut, None, below_one, signed_zero, cleared)?;
    Ok(fx.tx.b.bitcast(ft, None, r)?)
}

fn fconst(fx: &mut FunctionCx, fbits: u16, v: f64) -> Word {
    let ft = fx.tx.float(fbits);
    let bits = if fbits == 32 {
        (v as f32).to_bits() as u64
    } else {
        v.to_bits()
    };
    let c = fx.tx.const_uint(fbits, bits);
    fx.tx.b.bitcast(ft, None, c).unwrap_or(c)
}

fn fconvert(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let (Some(to), Some(from)) = (
        ins.i.quals.to.and_then(Type::float),
        ins.i.quals.from.and_then(Type::float),
    ) else {
        return Ok(false);
    };
    let mode = ins.i.quals.rndmode.unwrap_or(Rndmode::Re);
    let (ftz, dsat) = (ins.i.quals.ftz, ins.i.quals.dsat);
    // narrowing from .df: into .f to nearest by Vulkan's correctly rounded
    // conversion; every other mode and format is a call of the soft-double
    // library (ir::exactf64::df_replacement), from .f one of the exact
    // library (ir::exactf32, exactf64)
    if (to, from, mode) == (FloatKind::Single, FloatKind::Double, Rndmode::Re) {
        let bits = narrow_df(fx, ins, ftz, dsat)?;
        fx.write(ins.opr(Role::Dst)?, bits, 32)?;
        return Ok(true);
    }
    if mode != Rndmode::Re || ftz || dsat {
        return Ok(false);
    }
    let (tb, fb) = (to.bits(), from.bits());
    let src = ins.opr(Role::Src0)?;
    let v = match (to, from) {
        (FloatKind::Single, FloatKind::Half | FloatKind::BFloat) => {
            let h = fx.read(src, 16)?;
            half_to_f32(fx, h, from)?
        }
        (FloatKind::Double, FloatKind::Half | FloatKind::BFloat) => {
            let h = fx.read(src, 16)?;
            let f = half_to_f32(fx, h, from)?;
            let dt = fx.tx.float(64);
            fx.tx.b.f_convert(dt, None, f)?
        }
        // widening .f to .df
        (FloatKind::Double, FloatKind::Single) => {
            let a = fx.read_f(src, fb)?;
            let t = fx.tx.float(tb);
            fx.tx.b.f_convert(t, None, a)?
        }
        // not widening (`ftrunc.f.df` above)
        (FloatKind::Half | FloatKind::BFloat, _)
        | (FloatKind::Single, FloatKind::Single | FloatKind::Double)
        | (FloatKind::Double, FloatKind::Double) => return Ok(false),
    };
    fx.write_f(ins.opr(Role::Dst)?, v, tb)?;
    Ok(true)
}

/// `ftrunc.f.df` to nearest even (15 §4.8): Vulkan's `OpFConvert`, which
/// is correctly rounded, of the source (a subnormal source is the zero of
/// its sign), and the float core's NaN conversion (the sign and the top of
/// the payload, quieted: drivers drop NaN payloads); `.dsat` makes an
/// infinity the largest finite value of its sign, `.ftz` flushes a
/// subnormal result. The exact f64 library's own `ftrunc.f.df` is the
/// conversion alone (no subnormal or NaN source whose result is used:
/// `ir::exactf64::in_library`).
fn narrow_df(fx: &mut FunctionCx, ins: &Ins, ftz: bool, dsat: bool) -> R<Word> {
    let u32t = fx.tx.uint(32);
    let ft = fx.tx.float(32);
    let dt = fx.tx.float(64);
    if !ftz && !dsat && crate::ir::exactf64::in_library(ins.i.span) {
        let x = fx.read_f(ins.opr(Role::Src0)?, 64)?;
        let v = fx.tx.b.f_convert(ft, None, x)?;
        return Ok(fx.tx.b.bitcast(u32t, None, v)?);
    }
    let raw = fx.read(ins.opr(Role::Src0)?, 64)?;
    let raw = fx.opaque(raw, 64)?;
    let raw = super::common::flush(fx, raw, FloatKind::Double)?;
    let x = fx.tx.b.bitcast(dt, None, raw)?;
    let v = fx.tx.b.f_convert(ft, None, x)?;
    let mut bits = fx.tx.b.bitcast(u32t, None, v)?;
    // a NaN: its sign and the top 22 bits of its payload, quieted
    let u64t = fx.tx.uint(64);
    let bt = fx.tx.bool_ty();
    let c29 = fx.tx.const_uint(64, 29);
    let frac = fx.tx.b.shift_right_logical(u64t, None, raw, c29)?;
    let frac = fx.resize(frac, 64, 32, false)?;
    let c32 = fx.tx.const_uint(64, 32);
    let high = fx.tx.b.shift_right_logical(u64t, None, raw, c32)?;
    let high = fx.resize(high, 64, 32, false)?;
    let sign = fx.tx.const_u32(0x8000_0000);
    let sign = fx.tx.b.bitwise_and(u32t, None, high, sign)?;
    let mask = fx.tx.const_u32(0x7F_FFFF);
    let frac = fx.tx.b.bitwise_and(u32t, None, frac, mask)?;
    let quiet = fx.tx.const_u32(0x7FC0_0000);
    let nan = fx.tx.b.bitwise_or(u32t, None, frac, quiet)?;
    let nan = fx.tx.b.bitwise_or(u32t, None, nan, sign)?;
    let is_nan = fx.tx.b.is_nan(bt, None, x)?;
    bits = fx.tx.b.select(u32t, None, is_nan, nan, bits)?;
    if dsat {
        // infinity one step toward zero: the largest finite value
        let abs = fx.tx.const_u32(0x7FFF_FFFF);
        let mag = fx.tx.b.bitwise_and(u32t, None, bits, abs)?;
        let inf = fx.tx.const_u32(0x7F80_0000);
        let is_inf = fx.tx.b.i_equal(bt, None, mag, inf)?;
        let one = fx.tx.const_u32(1);
        let max = fx.tx.b.i_sub(u32t, None, bits, one)?;
        bits = fx.tx.b.select(u32t, None, is_inf, max, bits)?;
    }
    if ftz {
        bits = super::common::flush(fx, bits, FloatKind::Single)?;
    }
    Ok(bits)
}

fn i2f(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let (Some(to), Some(from)) = (ins.i.quals.to.and_then(Type::float), ins.i.quals.from) else {
        return Ok(false);
    };
    let signed = from.signed() == Some(true);
    let mode = ins.i.quals.rndmode.unwrap_or(Rndmode::Re);
    let dsat = ins.i.quals.dsat;
    // into .f, .hf, .bf in a mode Vulkan lacks, with .dsat, or into .bf:
    // a call of the exact library (ir::exactf32, exactf64)
    // into .df, integers of up to 32 bits are exact: every mode gives the
    // same value, and nothing saturates
    let to_df = to == FloatKind::Double;
    let exact = to_df && from.bits() <= 32;
    // (64-bit integers into .df in a mode Vulkan lacks: a call of the
    // soft-double library, ir::exactf64::df_replacement)
    // `.dsat` into .df changes nothing: no integer reaches its infinity
    if !exact && (mode != Rndmode::Re || (dsat && !to_df)) {
        return Ok(false);
    }
    let tb = match to {
        FloatKind::Single | FloatKind::Double | FloatKind::Half => to.bits(),
        // (always rounded above)
        FloatKind::BFloat => return Ok(false),
    };
    let fb = from.bits();
    let v = fx.read(ins.opr(Role::Src0)?, fb)?;
    let w = fb.max(32);
    let v = fx.resize(v, fb, w, signed)?;
    if tb == 16 && !fx.tx.options.float16 {
        // no 16-bit float type: a call of the exact library
        // (`ir::exactf32::replacement_for`)
        return Ok(false);
    }
    let ft = fx.tx.float(tb);
    let f = if signed {
        fx.tx.b.convert_s_to_f(ft, None, v)?
    } else {
        fx.tx.b.convert_u_to_f(ft, None, v)?
    };
    fx.write_f(ins.opr(Role::Dst)?, f, tb)?;
    Ok(true)
}

/// Float to integer with the spec's clamping: NaN gives 0, values beyond the
/// integer range give its minimum or maximum. Without a rounding qualifier the
/// conversion truncates, as the LLVM backend's `fptosi` expects
/// (docs/spec-notes.md).
fn f2i(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let (Some(to), Some(from)) = (ins.i.quals.to, ins.i.quals.from.and_then(Type::float)) else {
        return Ok(false);
    };
    f2i_typed(fx, ins, to.bits(), to.signed() == Some(true), from)
}

/// `pf2i` (15 §4.15): `f2i` of each 16-bit lane into a 16-bit lane
/// (`FunctionCx::lane`).
fn pf2i(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let (Some(to), Some(from)) = (ins.i.quals.to, ins.i.quals.from) else {
        return Ok(false);
    };
    let (2, 2, Some(kind)) = (to.lanes(), from.lanes(), from.float()) else {
        return Ok(false);
    };
    let (n, signed) = (to.element_bits(), to.signed() == Some(true));
    fx.per_lane(|fx| f2i_typed(fx, ins, n, signed, kind))
}

/// `f2i` from `from` into the `n`-bit integer type, `signed` or not.
fn f2i_typed(fx: &mut FunctionCx, ins: &Ins, n: u16, signed: bool, from: FloatKind) -> R<bool> {
    let src = ins.opr(Role::Src0)?;
    let (a, fbits) = match from {
        FloatKind::Single | FloatKind::Double => {
            let fb = from.bits();
            (fx.read_f(src, fb)?, fb)
        }
        FloatKind::Half | FloatKind::BFloat => {
            let h = fx.read(src, 16)?;
            (half_to_f32(fx, h, from)?, 32)
        }
    };
    // the other modes round before here (the IR pass `frnd`)
    if !matches!(ins.i.quals.rndmode, None | Some(Rndmode::Rz)) {
        return Ok(false);
    }
    let r = trunc(fx, a, fbits)?;
    let w = n.max(32);
    let (lo, hi, imin, imax) = if signed {
        (
            -(2f64.powi(n as i32 - 1)),
            2f64.powi(n as i32 - 1),
            1u64 << (n - 1),
            (1u64 << (n - 1)) - 1,
        )
    } else {
        (
            0.0,
            2f64.powi(n as i32),
            0,
            if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
        )
    };
    let imin = if signed {
        (imin as i64).wrapping_neg() as u64
    } else {
        0
    };
    let ft = fx.tx.float(fbits);
    let bt = fx.tx.bool_ty();
    let lo_c = fconst(fx, fbits, lo);
    let hi_c = fconst(fx, fbits, hi);
    let zero_f = fconst(fx, fbits, 0.0);
    let nan = fx.tx.b.is_nan(bt, None, r)?;
    let too_big = fx.tx.b.f_ord_greater_than_equal(bt, None, r, hi_c)?;
    let too_small = fx.tx.b.f_ord_less_than(bt, None, r, lo_c)?;
    let out = fx.tx.b.logical_or(bt, None, too_big, too_small)?;
    let out = fx.tx.b.logical_or(bt, None, out, nan)?;
    // convert only in-range values (out-of-range conversion is undefined)
    let safe = fx.tx.b.select(ft, None, out, zero_f, r)?;
    let it = fx.tx.uint(w);
    let conv = if signed {
        fx.tx.b.convert_f_to_s(it, None, safe)?
    } else {
        fx.tx.b.convert_f_to_u(it, None, safe)?
    };
    let c_max = fx.tx.const_uint(w, imax);
    let c_min = fx.tx.const_uint(w, imin);
    let c_zero = fx.tx.const_uint(w, 0);
    let v = fx.tx.b.select(it, None, too_small, c_min, conv)?;
    let v = fx.tx.b.select(it, None, too_big, c_max, v)?;
    let v = fx.tx.b.select(it, None, nan, c_zero, v)?;
    fx.write(ins.opr(Role::Dst)?, v, w)?;
    Ok(true)
}

/// Element ranges of vector registers: `extract` / `insert`, static and dynamic.
fn elements(fx: &mut FunctionCx, ins: &Ins) -> R<()> {
    let reg_of = |fx: &FunctionCx, op: &Operand| -> R<(Word, Ty)> {
        match op {
            Operand::Reg(r) => match fx.reg(r.reg) {
                Some(Reg::Val { ptr, ty }) => Ok((ptr, ty)),
                _ => Err(TranslateError::Internal("vector register expected".into())),
            },
            _ => Err(TranslateError::Internal("vector register expected".into())),
        }
    };
    let dst = ins.opr(Role::Dst)?;
    let src = ins.opr(Role::Src0)?;
    if matches!(ins.i.opcode, Opcode::ExtractDynamic | Opcode::InsertDynamic) {
        let idx = fx.read(ins.opr(Role::Index)?, 32)?;
        let u32t = fx.tx.uint(32);
        let pt = fx.tx.ptr(StorageClass::Function, u32t);
        if ins.i.opcode == Opcode::ExtractDynamic {
            let (vp, _) = reg_of(fx, src)?;
            let p = fx.tx.b.access_chain(pt, None, vp, [idx])?;
            let v = fx.tx.b.load(u32t, None, p, None, [])?;
            fx.write(dst, v, 32)?;
        } else {
            let (vp, _) = reg_of(fx, dst)?;
            let v = fx.read(src, 32)?;
            let p = fx.tx.b.access_chain(pt, None, vp, [idx])?;
            fx.tx.b.store(p, v, None, [])?;
        }
        return Ok(());
    }
    let index: u8 = ins.i.quals.index.unwrap_or(0);
    let count = ins.i.quals.vec.unwrap_or(1);
    let u32t = fx.tx.uint(32);
    if count == 1 {
        if ins.i.opcode == Opcode::Extract {
            let (vp, ty) = reg_of(fx, src)?;
            let p = fx.elem_ptr(vp, ty, index);
            let v = fx.tx.b.load(u32t, None, p, None, [])?;
            fx.write(dst, v, 32)?;
        } else {
            let (vp, ty) = reg_of(fx, dst)?;
            let v = fx.read(src, 32)?;
            let p = fx.elem_ptr(vp, ty, index);
            fx.tx.b.store(p, v, None, [])?;
        }
        return Ok(());
    }
    let (dp, dty) = reg_of(fx, dst)?;
    let (sp, sty) = reg_of(fx, src)?;
    // read all first: source and destination may be the same register
    let mut vals = Vec::new();
    for i in 0..count {
        let si = if ins.i.opcode == Opcode::Extract {
            index + i
        } else {
            i
        };
        let p = fx.elem_ptr(sp, sty, si);
        vals.push(fx.tx.b.load(u32t, None, p, None, [])?);
    }
    for (i, v) in vals.into_iter().enumerate() {
        let di = if ins.i.opcode == Opcode::Extract {
            i as u8
        } else {
            index + i as u8
        };
        let p = fx.elem_ptr(dp, dty, di);
        fx.tx.b.store(p, v, None, [])?;
    }
    Ok(())
}

/// The bits of an operand as chunks: one per element of a multi-element
/// swizzle, or the whole scalar; 128-bit values as two 64-bit chunks.
fn read_chunks(fx: &mut FunctionCx, op: &Operand, bits: u16) -> R<(Vec<Word>, u16)> {
    if let Operand::Reg(r) = op {
        if let (Some(Reg::Val { ptr, ty }), Some(s)) = (fx.reg(r.reg), r.swizzle) {
            if s.count > 1 {
                let t = fx.tx.uint(ty.bits);
                let mut v = Vec::new();
                for i in 0..s.count {
                    let p = fx.elem_ptr(ptr, ty, s.first + i);
                    v.push(fx.tx.b.load(t, None, p, None, [])?);
                }
                return Ok((v, ty.bits));
            }
        }
    }
    if bits == 128 {
        if let Operand::Int(l, _) = op {
            let lo = fx.tx.const_uint(64, l.value);
            let hi = fx.tx.const_uint(64, if l.negative { u64::MAX } else { 0 });
            return Ok((vec![lo, hi], 64));
        }
        let v = fx.read(op, 128)?;
        let u64t = fx.tx.uint(64);
        let lo = fx.tx.b.composite_extract(u64t, None, v, [0])?;
        let hi = fx.tx.b.composite_extract(u64t, None, v, [1])?;
        return Ok((vec![lo, hi], 64));
    }
    Ok((vec![fx.read(op, bits)?], bits))
}

/// Regroups little-endian chunks of `from` bits into chunks of `to` bits.
fn regroup(fx: &mut FunctionCx, chunks: Vec<Word>, from: u16, to: u16) -> R<Vec<Word>> {
    if from == to {
        return Ok(chunks);
    }
    let mut out = Vec::new();
    if from < to {
        let t = fx.tx.uint(to);
        for group in chunks.chunks((to / from) as usize) {
            let mut acc = fx.tx.const_uint(to, 0);
            for (i, &c) in group.iter().enumerate() {
                let w = fx.resize(c, from, to, false)?;
                let sh = fx.tx.const_uint(to, (i as u16 * from) as u64);
                let s = fx.tx.b.shift_left_logical(t, None, w, sh)?;
                acc = fx.tx.b.bitwise_or(t, None, acc, s)?;
            }
            out.push(acc);
        }
    } else {
        let t = fx.tx.uint(from);
        for c in chunks {
            for i in 0..(from / to) {
                let sh = fx.tx.const_uint(from, (i * to) as u64);
                let s = fx.tx.b.shift_right_logical(t, None, c, sh)?;
                out.push(fx.resize(s, from, to, false)?);
            }
        }
    }
    Ok(out)
}

/// `mov` in its four forms: scalar copy, and copies between a scalar and a
/// run of vector elements (`.xy`, `.zw`, `.xyzw`) of possibly other widths.
fn mov(fx: &mut FunctionCx, ins: &Ins) -> R<()> {
    let bits = ins.i.quals.ty.map_or(32, Type::bits);
    let src = ins.opr(Role::Src0)?;
    let dst = ins.opr(Role::Dst)?;
    let (chunks, cbits) = read_chunks(fx, src, bits)?;
    // destination chunks
    if let Operand::Reg(r) = dst {
        if let (Some(Reg::Val { ptr, ty }), Some(s)) = (fx.reg(r.reg), r.swizzle) {
            if s.count > 1 {
                let parts = regroup(fx, chunks, cbits, ty.bits)?;
                for (i, v) in parts.into_iter().enumerate() {
                    let p = fx.elem_ptr(ptr, ty, s.first + i as u8);
                    fx.tx.b.store(p, v, None, [])?;
                }
                return Ok(());
            }
        }
    }
    if bits == 128 {
        let parts = regroup(fx, chunks, cbits, 64)?;
        let t = fx.tx.uint(128);
        let v = fx.tx.b.composite_construct(t, None, parts)?;
        return fx.write(dst, v, 128);
    }
    let parts = regroup(fx, chunks, cbits, bits)?;
    let v = parts
        .first()
        .copied()
        .ok_or_else(|| TranslateError::Internal("empty mov".into()))?;
    fx.write(dst, v, bits)
}
