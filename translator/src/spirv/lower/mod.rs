//! Instruction lowering: one file per instruction group of the catalog,
//! and the dispatch of each instruction to its file ([`lower`]). The shared
//! operand helpers are in [`common`], which the files import; the files do
//! not import this module.

mod arithmetic;
pub(super) mod atomics;
pub mod atomics_state;
pub mod common;
mod comparison;
mod control_flow;
mod data_movement;
pub mod exchange;
pub mod exchange_state;
mod float16;
mod floating_point;
mod logical;
mod memory;
mod packed;
mod synchronization;

use super::error::TranslateError;
use super::function::{FunctionCx, Reg};
use crate::ir::Opcode;
use crate::ir::*;
pub use common::{read_value, Ins, R};

/// An instruction the IR pass `exactf32` or `exactf64` replaces by a call
/// (the f32, f16, bfloat16 and, on devices with f64, `.df` operations
/// Vulkan does not compute exactly: `ir::exactf64::df_replacement`), or
/// that `fatom16` makes a loop (the 16-bit float atomics that round), or
/// that `frnd` computes in integers (rounding to integral values):
/// reaching the back end it is a bug of the pipeline, never lowered to an
/// inexact form.
fn refuse_unrewritten(fx: &FunctionCx, i: &PisaInst) -> R<()> {
    if crate::ir::fatom16::is_fatom16(i) {
        return Err(TranslateError::Internal(format!(
            "`{}` reached the back end: the IR pass fatom16 makes it a loop",
            i.mnemonic_text()
        )));
    }
    if crate::ir::frnd::rewrites(i) {
        return Err(TranslateError::Internal(format!(
            "`{}` reached the back end: the IR pass frnd rounds it in integers",
            i.mnemonic_text()
        )));
    }
    let target = fx.tx.options.target();
    let (rewritten, pass) = if target.exact_f32 {
        let rep = crate::ir::exactf32::replacement_for(i, target.native.float16);
        (rep.is_some(), "exactf32")
    } else {
        let rep = crate::ir::exactf64::replacement(i, target.native);
        (rep.is_some(), "exactf64")
    };
    // (the soft-double library's f64-core functions divide and take
    // square roots with the device's instructions: `ir::softf64::f64core`)
    let df = !target.soft_f64
        && !crate::ir::softf64::in_library(i.span)
        && crate::ir::exactf64::df_replacement(i, target.native).is_some();
    if rewritten || df {
        return Err(TranslateError::Internal(format!(
            "`{}` reached the back end: the IR pass {pass} replaces it by a call",
            i.mnemonic_text()
        )));
    }
    Ok(())
}

/// What every instruction checks and sets before it is lowered.
fn prepare<'i>(fx: &mut FunctionCx, i: &'i PisaInst) -> R<Ins<'i>> {
    // Both refusals are about float types, and every pass they check for
    // rewrites only instructions with one (`ty`, `from` or `to`): an
    // integer instruction (most of a large kernel) skips their tests.
    let q = &i.quals;
    let floats = [q.ty, q.from, q.to]
        .into_iter()
        .flatten()
        .any(|t| t.float().is_some());
    fx.half_kind = None;
    if floats {
        refuse_float(fx, i)?;
        refuse_unrewritten(fx, i)?;
        // a 16-bit float literal of this instruction is in its format (the
        // type, or the source type of a conversion)
        fx.half_kind = [q.ty, q.from]
            .into_iter()
            .flatten()
            .find_map(|t| match t.float() {
                Some(FloatKind::Half) => Some(false),
                Some(FloatKind::BFloat) => Some(true),
                Some(FloatKind::Single | FloatKind::Double) | None => None,
            });
    }
    let ins = Ins {
        i,
        name: i.opcode.name(),
    };
    // what a capability it declares first is for (kernel_info.rs)
    let program = fx.tx.program;
    fx.tx.caps.current_instruction = Some(
        if !program.library_uses.is_empty() && crate::ir::mathlib::in_library(i.span) {
            // library code is there for the instructions it replaced
            super::capabilities::Site::Library
        } else {
            super::capabilities::Site::Inst {
                form: i.form,
                span: i.span,
            }
        },
    );
    Ok(ins)
}

/// Lowers one of SIMT mode's instructions ([`crate::ir::simt`]): the
/// pass put those that exchange values where every invocation runs them.
pub fn lower_simt(fx: &mut FunctionCx, s: &crate::ir::simt::SimtInst) -> R<()> {
    use crate::ir::simt::SimtInst as S;
    match s {
        S::Start => exchange::init(fx),
        S::Transition {
            state,
            from,
            to,
            when,
        } => {
            let u32t = fx.tx.uint(32);
            let bt = fx.tx.bool_ty();
            let ptr = value_ptr(fx, *state)?;
            let v = fx.tx.b.load(u32t, None, ptr, None, [])?;
            let f = fx.tx.const_u32(*from);
            let hit = fx.tx.b.i_equal(bt, None, v, f)?;
            let hit = match when {
                Some(c) => {
                    let c = read_cond(fx, *c)?;
                    fx.tx.b.logical_and(bt, None, hit, c)?
                }
                None => hit,
            };
            let t = fx.tx.const_u32(*to);
            let v = fx.tx.b.select(u32t, None, hit, t, v)?;
            fx.tx.b.store(ptr, v, None, [])?;
            Ok(())
        }
        S::AnyActive { dst, active } => {
            let a = read_pred(fx, *active)?;
            let any = exchange::any_active(fx, a)?;
            let ptr = pred_ptr(fx, *dst)?;
            fx.tx.b.store(ptr, any, None, [])?;
            Ok(())
        }
        S::ActiveMask { dst, active } => {
            let a = read_pred(fx, *active)?;
            let mask = exchange::activemask(fx, a)?;
            let ptr = value_ptr(fx, *dst)?;
            fx.tx.b.store(ptr, mask, None, [])?;
            Ok(())
        }
        S::CrossLane { inst, active } => {
            fx.line(inst.span);
            let ins = prepare(fx, inst)?;
            let a = read_pred(fx, *active)?;
            exchange::lower(fx, &ins, a)
        }
        S::Call { inst, active } => {
            fx.line(inst.span);
            let ins = prepare(fx, inst)?;
            let a = read_pred(fx, *active)?;
            control_flow::sync_call(fx, &ins, a)
        }
        S::SetResult { dst, value } => {
            let Some(Reg::Val { ptr, ty }) = fx.reg(*dst) else {
                return Err(TranslateError::Internal(
                    "simt.result: not a register".into(),
                ));
            };
            let v = read_value(fx, value, ty)?;
            fx.tx.b.store(ptr, v, None, [])?;
            Ok(())
        }
    }
}

fn value_ptr(fx: &FunctionCx, r: RegId) -> R<rspirv::spirv::Word> {
    match fx.reg(r) {
        Some(Reg::Val { ptr, .. }) => Ok(ptr),
        _ => Err(TranslateError::Internal(
            "a SIMT value register expected".into(),
        )),
    }
}

fn pred_ptr(fx: &FunctionCx, r: RegId) -> R<rspirv::spirv::Word> {
    match fx.reg(r) {
        Some(Reg::Pred { ptr }) => Ok(ptr),
        _ => Err(TranslateError::Internal("a SIMT predicate expected".into())),
    }
}

/// The value of predicate register `pred` (a SIMT instruction's active flag).
fn read_pred(fx: &mut FunctionCx, pred: RegId) -> R<rspirv::spirv::Word> {
    read_cond(
        fx,
        Cond {
            pred,
            negate: false,
        },
    )
}

/// The value of condition `c`.
pub fn read_cond(fx: &mut FunctionCx, c: Cond) -> R<rspirv::spirv::Word> {
    let ptr = pred_ptr(fx, c.pred)?;
    let bt = fx.tx.bool_ty();
    let v = fx.tx.b.load(bt, None, ptr, None, [])?;
    Ok(if c.negate {
        fx.tx.b.logical_not(bt, None, v)?
    } else {
        v
    })
}

/// Lowers one instruction (control flow other than `call` is the IR's
/// terminators, emitted by `spirv::control`).
pub fn lower(fx: &mut FunctionCx, i: &PisaInst) -> R<()> {
    let ins = prepare(fx, i)?;
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
        // the sub-group instructions are SIMT mode's (`lower_simt`)
        Opcode::Fred | Opcode::Ired | Opcode::Redfirstidx | Opcode::Shfl => false,
    };
    if handled {
        Ok(())
    } else {
        Err(fx.unsupported(i.mnemonic(), unsupported_what(&ins)))
    }
}

/// Refuses an instruction that computes on a float width this device cannot
/// compute as PISA defines it (`Options::float_refusals`): `.hf` is 16-bit,
/// `.f` and `.bf` (computed in f32) 32-bit, `.df` 64-bit. Moves, loads,
/// stores, selects and `fabs`/`fneg` (bitwise) do not compute.
pub fn refuse_float(fx: &FunctionCx, i: &PisaInst) -> R<()> {
    if fx.tx.options.float_refusals.iter().all(Option::is_none)
        || matches!(
            i.opcode,
            Opcode::Mov
                | Opcode::Ld
                | Opcode::LdParam
                | Opcode::St
                | Opcode::Sel
                | Opcode::Fabs
                | Opcode::Fneg
                | Opcode::Extract
                | Opcode::ExtractDynamic
                | Opcode::Insert
                | Opcode::InsertDynamic
                | Opcode::Shfl
                | Opcode::Call
        )
    {
        return Ok(());
    }
    for t in [i.quals.ty, i.quals.from, i.quals.to].into_iter().flatten() {
        let w = match t.float() {
            Some(FloatKind::Half) => 0,
            Some(FloatKind::Single | FloatKind::BFloat) => 1,
            Some(FloatKind::Double) => 2,
            None => continue,
        };
        if let Some(why) = &fx.tx.options.float_refusals[w] {
            // library code is named by the instruction it replaced
            let program = fx.tx.program;
            let (span, what) = match program.library_uses.first() {
                Some((user, at)) if crate::ir::mathlib::in_library(i.span) => (
                    *at,
                    format!("`{user}` (the library's `{}`)", i.mnemonic_text()),
                ),
                _ => (i.span, format!("`{}`", i.mnemonic_text())),
            };
            return Err(fx.tx.unsupported_on_device(
                span,
                format!(
                    "{what} computes on {}-bit floats, but {why}",
                    [16, 32, 64][w]
                ),
            ));
        }
    }
    Ok(())
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
                Some(Precision::Full) => {
                    Lowered("arithmetic.rs; 16-bit floats: ir::exactf32/exactf64")
                }
            },
        ),
        (
            "rndmode",
            match rndmode {
                None => Absent,
                Some(Rndmode::Re) => {
                    Lowered("the driver's rounding, or ir::exactf32/exactf64 (softf64 for .df)")
                }
                Some(Rndmode::Rz | Rndmode::Ru | Rndmode::Rd | Rndmode::Rna) => Lowered(
                    "ir::exactf32/exactf64 (softf64 for .df); frnd, f2i, pf2i: ir::frnd",
                ),
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
                ) => Lowered("atomics.rs, exchange.rs"),
                Some(Op::Sum | Op::Absmax | Op::Up | Op::Dn | Op::Idx) => Lowered("exchange.rs"),
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
                Lowered("arithmetic.rs, floating_point.rs, data_movement.rs, ir::exactf32/exactf64/softf64"),
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
            flag(nanp, Lowered("floating_point.rs, exchange.rs")),
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
        ("sg", flag(sg, Lowered("exchange.rs: shfl segments"))),
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

/// The mnemonic as the catalog spells it (`fadd.ru.f`), for error messages.
fn unsupported_what(ins: &Ins) -> String {
    ins.i.mnemonic_text()
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
