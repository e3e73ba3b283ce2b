//! Instruction lowering: one file per instruction group of the catalog.
//! Shared operand helpers (reading registers, immediates and special
//! registers as SPIR-V values, writing destinations) live here.

mod arithmetic;
pub(super) mod atomics;
mod comparison;
mod control_flow;
mod data_movement;
mod float16;
mod floating_point;
mod logical;
mod memory;
mod packed;
mod quotient;
mod rounding;
mod synchronization;

use super::function::{FunctionCx, Reg};
use super::TranslateError;
pub use crate::ir::literal::f64_to_16;
use crate::ir::Opcode;
use crate::ir::*;
use rspirv::spirv::{StorageClass, Word};

pub type R<T> = Result<T, TranslateError>;

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

/// Lowers one instruction (control flow other than `call` is the IR's
/// terminators, emitted by `spirv::control`).
pub fn lower(fx: &mut FunctionCx, i: &PisaInst) -> R<()> {
    let ins = Ins {
        i,
        name: i.opcode.name(),
    };
    // a 16-bit float literal of this instruction is in its format (the
    // type, or the source type of a conversion)
    fx.half_kind = [i.quals.ty, i.quals.from]
        .into_iter()
        .flatten()
        .find_map(|t| match t.float() {
            Some(FloatKind::Half) => Some(false),
            Some(FloatKind::BFloat) => Some(true),
            Some(FloatKind::Single | FloatKind::Double) | None => None,
        });
    // what a capability it declares first is for (kernel_info.rs)
    let program = fx.tx.program;
    fx.tx.current_instruction = Some(
        if !program.library_uses.is_empty() && crate::ir::mathlib::in_library(i.span) {
            // library code is there for the instructions it replaced
            super::types::Site::Library
        } else {
            super::types::Site::Inst {
                form: i.form,
                span: i.span,
            }
        },
    );
    // every instruction of the catalog (the generated `Opcode`), without a
    // wildcard: a new instruction does not compile until it is placed here
    let handled = match i.opcode {
        Opcode::Dp4a
        | Opcode::Iabs
        | Opcode::Iadd
        | Opcode::Ineg
        | Opcode::Isub
        | Opcode::Sdiv
        | Opcode::Smad
        | Opcode::Smax
        | Opcode::Smin
        | Opcode::Smul
        | Opcode::Uaddc
        | Opcode::Udiv
        | Opcode::Umad
        | Opcode::Umax
        | Opcode::Umin
        | Opcode::Umul => arithmetic::lower(fx, &ins)?,
        Opcode::Fabs
        | Opcode::Fadd
        | Opcode::Fdiv
        | Opcode::Fmad
        | Opcode::Fmax
        | Opcode::Fmin
        | Opcode::Fmul
        | Opcode::Fneg
        | Opcode::Frc
        | Opcode::Frcp
        | Opcode::Frsqrt
        | Opcode::Fsqrt
        | Opcode::Fexp2
        | Opcode::Flog2
        | Opcode::Ftanh
        | Opcode::Fsin
        | Opcode::Fcos
        | Opcode::Fsub => floating_point::lower(fx, &ins)?,
        Opcode::And
        | Opcode::Asr
        | Opcode::Bfi
        | Opcode::Bfn
        | Opcode::Bfrev
        | Opcode::Cbit
        | Opcode::Fbh
        | Opcode::Fbl
        | Opcode::Not
        | Opcode::Or
        | Opcode::Sbfe
        | Opcode::Shr
        | Opcode::Shl
        | Opcode::Shf
        | Opcode::Ubfe
        | Opcode::Xor => logical::lower(fx, &ins)?,
        Opcode::Addrcast
        | Opcode::Addrof
        | Opcode::ExtractDynamic
        | Opcode::Extract
        | Opcode::F2i
        | Opcode::Fext
        | Opcode::Frnd
        | Opcode::Ftrunc
        | Opcode::Ftrunc2
        | Opcode::Pf2i
        | Opcode::I2f
        | Opcode::InsertDynamic
        | Opcode::Insert
        | Opcode::Isaddr
        | Opcode::Mov
        | Opcode::Sext
        | Opcode::Trunc
        | Opcode::Zext => data_movement::lower(fx, &ins)?,
        Opcode::Scmp | Opcode::Ucmp | Opcode::Fcmp | Opcode::Sel => comparison::lower(fx, &ins)?,
        Opcode::Call => control_flow::lower(fx, &ins)?,
        // the IR's terminators, emitted with the control flow
        Opcode::Goto | Opcode::Return => {
            return Err(TranslateError::Internal(format!(
                "`{}` as an instruction",
                ins.name
            )))
        }
        Opcode::Fatom | Opcode::Iatom | Opcode::Ld | Opcode::LdParam | Opcode::St => {
            memory::lower(fx, &ins)?
        }
        Opcode::BarrierWorkgroup | Opcode::Fence => synchronization::lower(fx, &ins)?,
        // lifetime.start: no effect
        Opcode::LifetimeStart => true,
        // the sub-group instructions are lowered by the SIMT emitter
        Opcode::Fred | Opcode::Ired | Opcode::Redfirstidx | Opcode::Shfl => false,
    };
    if handled {
        Ok(())
    } else {
        Err(fx.unsupported(i.mnemonic, unsupported_what(&ins)))
    }
}

/// How the SPIR-V back end treats one qualifier slot of an instruction.
#[allow(dead_code)] // (read by the test; it is here so that the build fails first)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// The slot is not written (or the form has none).
    Absent,
    /// The value changes the lowering, in the file named.
    Lowered(&'static str),
    /// Written, with no effect on the SPIR-V, for the reason given.
    NoEffect(&'static str),
}

/// Every qualifier slot of the typed view ([`Quals`]), each named (no
/// `..`), with how the SPIR-V back end handles its value; every qualifier
/// enum matched without `_`, so a slot or value added to the catalog does
/// not compile until it is placed here (after `ir/view.rs` is
/// regenerated), and the test `every_catalog_qualifier_value_is_handled`
/// fails for a value of the catalog that comes out [`Handling::Absent`].
/// The lowerings read the same fields.
#[allow(dead_code)] // (read by the test; it is here so that the build fails first)
pub fn qualifier_handling(q: &Quals) -> [(&'static str, Handling); 31] {
    use crate::ir::qualifier::*;
    use Handling::{Absent, Lowered, NoEffect};
    let Quals {
        signedness,
        ty,
        output,
        precision,
        rndmode,
        operation,
        dir,
        to,
        to_space,
        from,
        from_space,
        vec,
        index,
        addrspace,
        cop,
        op,
        memorder,
        memscope,
        cc,
        dsat,
        ci,
        co,
        ftz,
        fast,
        nanp,
        dynamic,
        cond,
        sg,
        param,
        workgroup,
        start,
    } = *q;
    let flag = |set: bool, h: Handling| if set { h } else { Absent };
    // a type: its width, lanes and float format (`ir::type_info`)
    let typed = |t: Option<Type>| match t.map(|t| (t.float(), t.lanes())) {
        None => Absent,
        Some((Some(_), 1)) => Lowered("floating_point.rs, data_movement.rs, comparison.rs"),
        Some((Some(_), _)) => Lowered("floating_point.rs (per lane)"),
        Some((None, 1)) => Lowered("arithmetic.rs, logical.rs, data_movement.rs, memory.rs"),
        Some((None, _)) => Lowered("arithmetic.rs, logical.rs (packed)"),
    };
    let space = |a: Option<Addrspace>| match a {
        None => Absent,
        Some(Addrspace::Global | Addrspace::Const) => Lowered("memory.rs: device memory"),
        Some(Addrspace::Shared) => Lowered("memory.rs: workgroup memory"),
        Some(Addrspace::Private) => Lowered("memory.rs: private memory"),
        Some(Addrspace::Generic) => Lowered("memory.rs: generic addresses"),
    };
    [
        (
            "signedness",
            match signedness {
                None => Absent,
                Some(Signedness::Ss | Signedness::Su | Signedness::Us | Signedness::Uu) => {
                    Lowered("arithmetic.rs: dp4a")
                }
            },
        ),
        ("type", typed(ty)),
        (
            "output",
            match output {
                None => Absent,
                Some(Output::Quo | Output::Rem) => Lowered("arithmetic.rs: division"),
            },
        ),
        (
            "precision",
            match precision {
                None => Absent,
                Some(Precision::Full) => Lowered("arithmetic.rs, floating_point.rs: mul_full"),
            },
        ),
        (
            "rndmode",
            match rndmode {
                None => Absent,
                Some(Rndmode::Re) => Lowered("the driver's rounding, or rounding.rs"),
                Some(Rndmode::Rz | Rndmode::Ru | Rndmode::Rd | Rndmode::Rna) => {
                    Lowered("rounding.rs")
                }
            },
        ),
        (
            "operation",
            operation.map_or(Absent, |_| Lowered("logical.rs: bfn's truth table")),
        ),
        (
            "dir",
            match dir {
                None => Absent,
                Some(Dir::L | Dir::R) => Lowered("logical.rs: shf"),
            },
        ),
        ("to", typed(to)),
        ("to_space", space(to_space)),
        ("from", typed(from)),
        ("from_space", space(from_space)),
        (
            "vec",
            vec.map_or(Absent, |_| Lowered("memory.rs, data_movement.rs")),
        ),
        (
            "index",
            index.map_or(Absent, |_| Lowered("data_movement.rs")),
        ),
        ("addrspace", space(addrspace)),
        (
            "cop",
            match cop {
                None => Absent,
                Some(Cop::Eq | Cop::Ne | Cop::Gt | Cop::Ge | Cop::Lt | Cop::Le) => {
                    Lowered("comparison.rs")
                }
            },
        ),
        (
            "op",
            match op {
                None => Absent,
                Some(
                    Op::Add
                    | Op::Sub
                    | Op::Smin
                    | Op::Smax
                    | Op::Umin
                    | Op::Umax
                    | Op::And
                    | Op::Or
                    | Op::Xor
                    | Op::Xchg
                    | Op::Cas
                    | Op::Inc
                    | Op::Dec
                    | Op::Incwrap
                    | Op::Decwrap
                    | Op::Min
                    | Op::Max,
                ) => Lowered("atomics.rs, simt/exchange.rs"),
                Some(Op::Sum | Op::Absmax | Op::Up | Op::Dn | Op::Idx) => {
                    Lowered("simt/exchange.rs")
                }
            },
        ),
        (
            "memorder",
            match memorder {
                None => Absent,
                Some(Memorder::Weak) => Lowered("memory.rs: a plain access"),
                Some(
                    Memorder::Relaxed
                    | Memorder::Acquire
                    | Memorder::Release
                    | Memorder::AcqRel
                    | Memorder::SeqCst,
                ) => Lowered("atomics.rs, synchronization.rs"),
            },
        ),
        (
            "memscope",
            match memscope {
                None => Absent,
                Some(
                    Memscope::Subgroup | Memscope::Workgroup | Memscope::Gpu | Memscope::System,
                ) => Lowered("atomics.rs, synchronization.rs"),
            },
        ),
        (
            "cc",
            match cc {
                None => Absent,
                Some(
                    Cc::L1cL2cL3c
                    | Cc::L1cL2cL3uc
                    | Cc::L1cL2ucL3c
                    | Cc::L1cL2ucL3uc
                    | Cc::L1sL2cL3c
                    | Cc::L1sL2cL3uc
                    | Cc::L1sL2ucL3c
                    | Cc::L1sL2ucL3uc
                    | Cc::L1sL2ucL3wb
                    | Cc::L1sL2wbL3uc
                    | Cc::L1ucL2cL3c
                    | Cc::L1ucL2cL3uc
                    | Cc::L1ucL2ucL3c
                    | Cc::L1ucL2ucL3uc
                    | Cc::L1ucL2ucL3wb
                    | Cc::L1ucL2wbL3uc
                    | Cc::L1ucL2wbL3wb
                    | Cc::L1wbL2ucL3uc
                    | Cc::L1wbL2ucL3wb
                    | Cc::L1wbL2wbL3uc
                    | Cc::L1wtL2ucL3uc
                    | Cc::L1wtL2ucL3wb
                    | Cc::L1wtL2wbL3uc
                    | Cc::L1wtL2wbL3wb
                    | Cc::L2wb
                    | Cc::L3wb
                    | Cc::Ri
                    | Cc::Uc,
                ) => NoEffect(
                    "a cache hint: Vulkan has none; every access is coherent as the spec requires",
                ),
            },
        ),
        (
            "dsat",
            flag(
                dsat,
                Lowered("arithmetic.rs, floating_point.rs, rounding.rs"),
            ),
        ),
        (
            "ci",
            flag(ci, Lowered("arithmetic.rs: the carry-in operand")),
        ),
        (
            "co",
            flag(co, Lowered("arithmetic.rs: the carry-out operand")),
        ),
        ("ftz", flag(ftz, Lowered("floating_point.rs: flush"))),
        (
            "fast",
            flag(
                fast,
                Lowered("floating_point.rs: correctly rounded, within every bound"),
            ),
        ),
        (
            "nanp",
            flag(nanp, Lowered("floating_point.rs, simt/exchange.rs")),
        ),
        (
            "dynamic",
            flag(
                dynamic,
                Lowered("data_movement.rs: extract.dynamic, insert.dynamic"),
            ),
        ),
        (
            "cond",
            flag(cond, Lowered("control_flow.rs, spirv::control")),
        ),
        ("sg", flag(sg, Lowered("simt/exchange.rs: shfl segments"))),
        ("param", flag(param, Lowered("memory.rs: ld.param"))),
        (
            "workgroup",
            flag(workgroup, Lowered("synchronization.rs: barrier.workgroup")),
        ),
        (
            "start",
            flag(
                start,
                NoEffect("lifetime.start marks a variable; SPIR-V needs nothing"),
            ),
        ),
    ]
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

/// The mnemonic as the catalog spells it (`fadd.ru.f`), for error messages.
fn unsupported_what(ins: &Ins) -> String {
    ins.i.mnemonic_text()
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

#[cfg(test)]
mod tests {
    use super::{qualifier_handling, Handling};
    use crate::catalog::catalog;
    use crate::ir::{FormRef, Quals};

    /// Walks every value of every qualifier slot of every catalog form: the
    /// typed view keeps it, and [`qualifier_handling`] places it (the slot
    /// of that name is not [`Handling::Absent`]); with nothing written,
    /// every slot is absent.
    #[test]
    fn every_catalog_qualifier_value_is_handled() {
        assert!(qualifier_handling(&Quals::default())
            .iter()
            .all(|(_, h)| *h == Handling::Absent));
        let mut checked = 0;
        for form in &catalog().forms {
            for (s, slot) in form.quals.iter().enumerate() {
                for (v, value) in slot.values.iter().enumerate() {
                    let mut choice = vec![FormRef::ABSENT; form.quals.len()];
                    choice[s] = v as u8;
                    let view = Quals::of(form, &choice);
                    let handled: Vec<_> = qualifier_handling(&view)
                        .into_iter()
                        .filter(|(_, h)| *h != Handling::Absent)
                        .collect();
                    assert_eq!(
                        handled.len(),
                        1,
                        "the SPIR-V back end handles `.{value}` of `{}` as {handled:?}",
                        form.syntax
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
