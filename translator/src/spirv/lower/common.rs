//! Shared operand helpers of the lowerings (reading registers, immediates
//! and special registers as SPIR-V values, writing destinations, `.ftz`):
//! the hub of `lower/`. Every file of `lower/` imports it; it imports none
//! of them.

pub use crate::ir::literal::f64_to_16;
use crate::ir::*;
use crate::spirv::error::TranslateError;
pub use crate::spirv::error::R;
use crate::spirv::function::{FunctionCx, Reg};
use rspirv::spirv::{StorageClass, Word};

/// What one instruction sees while it is lowered.
pub struct Ins<'a> {
    pub i: &'a PisaInst,
    pub name: &'static str,
}

impl Ins<'_> {
    /// The operand in role `role`, if the form has it and it is written.
    pub fn op(&self, role: Role) -> Option<&Operand> {
        self.i.operand(role)
    }
    /// A required operand (the validator guarantees it).
    pub fn opr(&self, role: Role) -> R<&Operand> {
        self.op(role).ok_or_else(|| {
            TranslateError::Internal(format!(
                "missing operand `{}` of `{}`",
                role.name(),
                self.name
            ))
        })
    }
}

/// The value of a whole register (scalar or vector) or of one element, as
/// a value of `ty` (arguments and return values).
pub fn read_value(fx: &mut FunctionCx, op: &Operand, ty: Ty) -> R<Word> {
    if let Operand::Reg(r) = op {
        if let (Some(Reg::Val { ptr, ty: rty }), None) = (fx.reg(r.reg), r.swizzle) {
            if rty.is_vector() || rty.bits == 128 {
                let t = fx.tx.reg_ty(rty);
                return Ok(fx.tx.b.load(t, None, ptr, None, [])?);
            }
        }
    }
    fx.read(op, ty.bits)
}

/// `.ftz`: a denormal (exponent field zero) becomes a zero of its sign.
pub fn flush(fx: &mut FunctionCx, bits: Word, ty: FloatKind) -> R<Word> {
    let (n, exp, sign) = (ty.bits(), ty.exponent_mask(), ty.sign_bit());
    let t = fx.tx.uint(n);
    let bt = fx.tx.bool_ty();
    let e = fx.tx.const_uint(n, exp);
    let zero = fx.tx.const_uint(n, 0);
    let s = fx.tx.const_uint(n, sign);
    let ex = fx.tx.b.bitwise_and(t, None, bits, e)?;
    let denormal = fx.tx.b.i_equal(bt, None, ex, zero)?;
    let signed_zero = fx.tx.b.bitwise_and(t, None, bits, s)?;
    Ok(fx.tx.b.select(t, None, denormal, signed_zero, bits)?)
}

impl FunctionCx<'_, '_> {
    fn reg_of(&self, r: &RegRef) -> R<Reg> {
        self.reg(r.reg)
            .ok_or_else(|| TranslateError::Internal(format!("unknown register r{}", r.reg.0)))
    }

    /// Pointer to a register, or to one element of a vector register.
    pub fn elem_ptr(&mut self, ptr: Word, ty: Ty, index: u8) -> Word {
        let et = self.tx.uint(ty.bits);
        let p = self.tx.ptr(StorageClass::Function, et);
        let idx = self.tx.const_u32(index as u32);
        self.tx.b.access_chain(p, None, ptr, [idx]).unwrap_or(ptr)
    }

    /// Zero- or sign-extends, or truncates, an integer value.
    pub fn resize(&mut self, v: Word, from: u16, to: u16, signed: bool) -> R<Word> {
        if from == to {
            return Ok(v);
        }
        let t = self.tx.uint(to);
        Ok(if signed && to == 64 {
            // Driver quirk (Mesa 22.3 lavapipe): a signed compare of an
            // `OpSConvert` to 64 bits with a constant (`sext(x) < 0`,
            // `<= -1`, `< 5`) came out as if `x` were zero-extended, while
            // the converted value itself was right (fuzz seed 5201582;
            // tests/run/sext64_compare.pisa). The high word is built from
            // the sign instead: `zext(x) | zext(x >> 31) << 32`.
            let lo = self.resize(v, from, 32, true)?;
            let u32t = self.tx.uint(32);
            let c31 = self.tx.const_uint(32, 31);
            let sign = self.tx.b.shift_right_arithmetic(u32t, None, lo, c31)?;
            let lo = self.tx.b.u_convert(t, None, lo)?;
            let hi = self.tx.b.u_convert(t, None, sign)?;
            let c32 = self.tx.const_uint(64, 32);
            let hi = self.tx.b.shift_left_logical(t, None, hi, c32)?;
            self.tx.b.bitwise_or(t, None, hi, lo)?
        } else if signed && to > from {
            let st = self.tx.b.type_int(to as u32, 1);
            let sf = self.tx.b.type_int(from as u32, 1);
            let a = self.tx.b.bitcast(sf, None, v)?;
            let b = self.tx.b.s_convert(st, None, a)?;
            self.tx.b.bitcast(t, None, b)?
        } else {
            self.tx.b.u_convert(t, None, v)?
        })
    }

    /// An integer operand as a `bits`-wide unsigned value (registers, vector
    /// elements, immediates, special registers).
    pub fn read(&mut self, op: &Operand, bits: u16) -> R<Word> {
        match op {
            // (packed operands are registers: the validator rejects packed
            // immediates, 02 §2.2.2, so no lane of one is read here)
            Operand::Int(l, _) => Ok(self.tx.const_uint(bits, l.value)),
            Operand::Float(f, span) => match (bits, self.half_kind) {
                (32, _) => Ok(self.tx.const_uint(32, (*f as f32).to_bits() as u64)),
                (64, _) => Ok(self.tx.const_uint(64, f.to_bits())),
                // rounded to nearest even into the instruction's format
                (16, Some(bf)) => Ok(self.tx.const_uint(16, f64_to_16(*f, bf))),
                _ => Err(self.unsupported(*span, format!("{bits}-bit floating-point literal"))),
            },
            Operand::Special(r) => {
                let (v, have) = self.special(r)?;
                self.resize(v, have, bits, false)
            }
            Operand::Reg(r) => {
                let (v, have) = match (self.reg(r.reg), r.swizzle) {
                    (Some(Reg::Val { ptr, ty }), None) if !ty.is_vector() => {
                        let t = self.tx.uint(ty.bits);
                        (self.tx.b.load(t, None, ptr, None, [])?, ty.bits)
                    }
                    (Some(Reg::Val { ptr, ty }), Some(s)) if s.count == 1 => {
                        let p = self.elem_ptr(ptr, ty, s.first);
                        let t = self.tx.uint(ty.bits);
                        (self.tx.b.load(t, None, p, None, [])?, ty.bits)
                    }
                    // the lane of a packed register
                    (Some(Reg::Val { ptr, ty }), None)
                        if ty.count == 2 && ty.bits == 16 && self.lane.is_some() =>
                    {
                        let p = self.elem_ptr(ptr, ty, self.lane.unwrap_or(0));
                        let t = self.tx.uint(16);
                        (self.tx.b.load(t, None, p, None, [])?, 16)
                    }
                    _ => {
                        return Err(
                            self.unsupported(r.span, "this register shape as a scalar operand")
                        )
                    }
                };
                self.resize(v, have, bits, false)
            }
            other => Err(self.unsupported(other.span(), "operand kind")),
        }
    }

    /// `v` with its origin hidden from the driver's compiler when
    /// [`crate::spirv::Options::opaque_operands`] is on: `hidden_zero | v`
    /// (`ModuleCx::hidden_zero`, first so that llvmpipe's uniformity walk
    /// stops there), always `v`, but no compiler can fold it. Mesa 22's
    /// llvmpipe (LLVM 15) applies fast-math folds to floating-point
    /// operations whatever the module declares (`0 × x → 0` for x = ∞,
    /// `x + 0 → x` for x = −0: `tests/run/float_constant_folds.pisa`) and
    /// aborts the process on integer atomics whose value was computed in
    /// floating point ("Cannot select: f64 = and"): both need to see a
    /// constant or a bitcast through, which this hides.
    pub fn opaque(&mut self, v: Word, bits: u16) -> R<Word> {
        if !self.tx.options.opaque_operands || bits > 64 {
            return Ok(v);
        }
        // the exact f64 library's f64 values: none is a value the compiler
        // knows (ir::exactf64::in_library)
        if bits == 64 && crate::ir::exactf64::in_library(self.func.span) {
            return Ok(v);
        }
        self.tx.or_hidden_zero(v, bits)
    }

    /// A floating-point operand (`fbits` 32 or 64) as a float value.
    pub fn read_f(&mut self, op: &Operand, fbits: u16) -> R<Word> {
        let ft = self.tx.float(fbits);
        let v = match op {
            Operand::Int(l, _) if !l.hex => {
                let x = l.math() as f64;
                let bits = if fbits == 32 {
                    (x as f32).to_bits() as u64
                } else {
                    x.to_bits()
                };
                self.tx.const_uint(fbits, bits)
            }
            _ => self.read(op, fbits)?,
        };
        let v = self.opaque(v, fbits)?;
        Ok(self.tx.b.bitcast(ft, None, v)?)
    }

    /// A predicate operand (with `!` applied) as a bool.
    pub fn read_pred(&mut self, op: &Operand) -> R<Word> {
        let (r, neg) = match op {
            Operand::Reg(r) => (r, false),
            Operand::NotPred(r) => (r, true),
            other => return Err(self.unsupported(other.span(), "predicate operand")),
        };
        let Reg::Pred { ptr } = self.reg_of(r)? else {
            return Err(TranslateError::Internal("predicate expected".into()));
        };
        let bt = self.tx.bool_ty();
        let v = self.tx.b.load(bt, None, ptr, None, [])?;
        Ok(if neg {
            self.tx.b.logical_not(bt, None, v)?
        } else {
            v
        })
    }

    pub fn write_pred(&mut self, op: &Operand, v: Word) -> R<()> {
        let Operand::Reg(r) = op else {
            return Err(TranslateError::Internal(
                "predicate destination expected".into(),
            ));
        };
        let Reg::Pred { ptr } = self.reg_of(r)? else {
            return Err(TranslateError::Internal("predicate expected".into()));
        };
        self.tx.b.store(ptr, v, None, [])?;
        Ok(())
    }

    /// Writes a `bits`-wide unsigned value to a scalar register or element.
    pub fn write(&mut self, op: &Operand, v: Word, bits: u16) -> R<()> {
        let Operand::Reg(r) = op else {
            return Err(TranslateError::Internal(
                "register destination expected".into(),
            ));
        };
        let (ptr, have) = match (self.reg_of(r)?, r.swizzle) {
            (Reg::Val { ptr, ty }, None) if !ty.is_vector() => (ptr, ty.bits),
            (Reg::Val { ptr, ty }, Some(s)) if s.count == 1 => {
                (self.elem_ptr(ptr, ty, s.first), ty.bits)
            }
            // the lane of a packed register
            (Reg::Val { ptr, ty }, None)
                if ty.count == 2 && ty.bits == 16 && self.lane.is_some() =>
            {
                (self.elem_ptr(ptr, ty, self.lane.unwrap_or(0)), 16)
            }
            _ => return Err(self.unsupported(r.span, "this register shape as a destination")),
        };
        let v = self.resize(v, bits, have, false)?;
        self.tx.b.store(ptr, v, None, [])?;
        Ok(())
    }

    /// Writes a float value as its bits.
    pub fn write_f(&mut self, op: &Operand, v: Word, fbits: u16) -> R<()> {
        let t = self.tx.uint(fbits);
        let bits = self.tx.b.bitcast(t, None, v)?;
        self.write(op, bits, fbits)
    }
}
