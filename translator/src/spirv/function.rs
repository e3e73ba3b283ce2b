//! Functions: declarations, registers as `Function` variables (the driver's
//! mem2reg turns them into SSA values), and bodies emitted from the
//! structured tree the IR pipeline left in each function
//! ([`ir::Function::structured`], [`super::control`]).

use super::error::{TranslateError, R};
use super::types::ModuleCx;
use crate::diag::Span;
use crate::ir::Ty;
use crate::ir::{self, FuncKind, RegId, RegKind};
use rspirv::spirv::{SelectionControl, StorageClass, Word};

/// What a register denotes in the function being emitted.
#[derive(Debug, Clone, Copy)]
pub enum Reg {
    Val {
        ptr: Word,
        ty: Ty,
    },
    Pred {
        ptr: Word,
    },
    /// A kernel parameter at this offset of the argument block (read with
    /// `ld.param` only).
    Param {
        offset: u32,
    },
}

/// The state of one function while its body is emitted.
pub struct FunctionCx<'t, 'm> {
    pub tx: &'t mut ModuleCx<'m>,
    pub func: &'m ir::Function,
    regs: Vec<Reg>,
    /// The line of the last instruction (instructions mostly come in source
    /// order: the next one's line is found by a short forward scan).
    line: usize,
    /// While a packed `.hfx2`/`.bfx2` instruction is lowered lane by lane
    /// (`lower::floating_point`): the lane, so that 16-bit reads and writes
    /// of its `.v2.16b` registers (and 32-bit immediates) take that half.
    pub lane: Option<u8>,
    /// The 16-bit float format of the instruction being lowered (`true`:
    /// bfloat16), for its float literals.
    pub half_kind: Option<bool>,
    /// Checked mode: the check of the access being lowered (the
    /// [`ir::Inst::CheckAccess`] before it), taken by
    /// `FunctionCx::checked_address`.
    pub check: Option<ir::AccessCheck>,
}

/// The SPIR-V signature of a function: registers by value (a SIMT
/// function's active flag, a predicate the `simt` pass added, as a bool);
/// kernels take nothing (their `.param`s are in the argument block).
pub fn fn_type(tx: &mut ModuleCx, f: &ir::Function) -> (Word, Word, Vec<Word>) {
    let ret = match f.ret {
        Some(t) => tx.reg_ty(t),
        None => tx.void(),
    };
    let params: Vec<Word> = f
        .params
        .iter()
        .filter_map(|&r| match f.reg(r).kind {
            RegKind::Value(t) if f.kind == FuncKind::Function => Some(tx.reg_ty(t)),
            RegKind::Pred if f.kind == FuncKind::Function => Some(tx.bool_ty()),
            _ => None,
        })
        .collect();
    let fty = tx.b.type_function(ret, params.clone());
    (ret, fty, params)
}

/// `if (cond) { body }` as a selection construct; `body` leaves its block
/// open.
pub fn guarded(
    fx: &mut FunctionCx,
    cond: Word,
    body: impl FnOnce(&mut FunctionCx) -> R<()>,
) -> R<()> {
    let (then, merge) = (fx.tx.b.id(), fx.tx.b.id());
    fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
    fx.tx.b.branch_conditional(cond, then, merge, [])?;
    fx.tx.b.begin_block(Some(then))?;
    body(fx)?;
    fx.tx.b.branch(merge)?;
    fx.tx.b.begin_block(Some(merge))?;
    Ok(())
}

/// A named `Function` variable of type `t`, in the current (entry) block,
/// initialized to zero: a register read before any write reads 0 on every
/// device, as on the reference device (docs/spec-notes.md), instead of
/// whatever the driver leaves there.
pub fn variable(tx: &mut ModuleCx, t: Word, name: &str) -> Word {
    let p = tx.ptr(StorageClass::Function, t);
    let zero = tx.const_null(t);
    let v = tx.b.variable(p, None, StorageClass::Function, Some(zero));
    tx.b.name(v, name);
    v
}

impl<'t, 'm> FunctionCx<'t, 'm> {
    /// The context of function `func`, whose registers are `regs`.
    pub fn new(tx: &'t mut ModuleCx<'m>, func: &'m ir::Function, regs: Vec<Reg>) -> Self {
        FunctionCx {
            tx,
            func,
            regs,
            line: 0,
            lane: None,
            half_kind: None,
            check: None,
        }
    }
}

impl FunctionCx<'_, '_> {
    pub fn reg(&self, r: RegId) -> Option<Reg> {
        self.regs.get(r.index()).copied()
    }

    pub fn param_offset(&self, r: RegId) -> Option<u32> {
        match self.reg(r)? {
            Reg::Param { offset } => Some(offset),
            _ => None,
        }
    }

    pub fn unsupported(&self, span: Span, what: impl Into<String>) -> TranslateError {
        self.tx.unsupported(span, what)
    }

    /// Debug line information for an instruction at `span`.
    pub fn line(&mut self, span: Span) {
        let map = &self.tx.program.source;
        if !map.pieces.is_empty() {
            // a linked module: each piece maps back to its own file
            let at = map.locate(span);
            if let Some(&file) = self.tx.ids.files.get(at.file as usize) {
                self.tx.b.line(file, at.line, at.col);
            }
            return;
        }
        let starts = &map.files[0].line_starts;
        let ahead = |i: usize| starts.get(i + 1).is_some_and(|&s| s <= span.start);
        let mut i = self.line;
        if starts.get(i).is_some_and(|&s| s <= span.start) {
            for _ in 0..8 {
                if !ahead(i) {
                    break;
                }
                i += 1;
            }
        }
        if starts.get(i).is_none_or(|&s| s > span.start) || ahead(i) {
            i = starts.partition_point(|&s| s <= span.start).max(1) - 1;
        }
        self.line = i;
        let col = span.start - starts.get(i).copied().unwrap_or(0) + 1;
        let file = self.tx.ids.files[0];
        self.tx.b.line(file, i as u32 + 1, col);
    }
}
