//! Functions: declarations, registers as `Function` variables (the driver's
//! mem2reg turns them into SSA values), and bodies emitted from the
//! structured tree the IR pipeline left in each function
//! ([`ir::Function::structured`], [`super::control`]).

use super::control;
use super::types::ModuleCx;
use super::TranslateError;
use crate::diag::Span;
use crate::ir::{self, FuncKind, RegId, RegKind};
use crate::ir::{Linkage, Ty};
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{self, StorageClass, Word};

/// The deepest nesting of structured control flow emitted: Mesa 22's
/// gallivm (lavapipe) ignores constructs nested deeper than 80 without a
/// word (`LP_MAX_TGSI_NESTING`); the pipeline's `shallow` pass keeps every
/// function within 64, so this only catches a function it could not lower. (SPIR-V
/// itself allows 1,023.)
const MAX_NESTING: usize = 80;

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
    /// In a SIMT function (`spirv::simt`): its lane state and what the
    /// sync point being lowered needs.
    pub simt: Option<super::simt::SimtCx>,
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
}

/// Reports recursion (direct or mutual) with the cycle it forms: Vulkan
/// SPIR-V has no call stack.
pub fn check_recursion(tx: &ModuleCx) -> Result<(), TranslateError> {
    let graph = ir::analysis::CallGraph::compute(tx.program);
    match graph.cycle() {
        None => Ok(()),
        Some(cycle) => Err(TranslateError::Recursion {
            cycle: cycle
                .iter()
                .map(|&i| format!("@{}", tx.program.name(tx.program.functions[i].name)))
                .collect::<Vec<_>>()
                .join(" -> "),
        }),
    }
}

/// Declares every function (so calls can refer forward), then emits bodies.
///
/// A module without kernels is a library: its exported functions carry
/// `Export` linkage and its imports become `Import` declarations, so that
/// SPIR-V linkers (and `spirv-val`) accept it. Vulkan itself can only load
/// modules with entry points (docs/abi.md).
pub fn emit_all(tx: &mut ModuleCx<'_>) -> Result<(), TranslateError> {
    let program = tx.program;
    tx.simt_functions = super::simt::analysis::simt_functions(program);
    let library = !program.functions.iter().any(|f| f.kind == FuncKind::Kernel);
    if library {
        tx.cap(spirv::Capability::Linkage);
    }
    for f in &program.functions {
        if f.is_declaration() && !library {
            continue;
        }
        let id = tx.b.id();
        tx.func_ids.insert(f.name, id);
        let name = tx.program.name(f.name).to_string();
        tx.b.name(id, name.clone());
        let kind = match f.linkage {
            Linkage::Export if library => Some(spirv::LinkageType::Export),
            Linkage::Import => Some(spirv::LinkageType::Import),
            _ => None,
        };
        if let Some(kind) = kind {
            tx.b.decorate(
                id,
                spirv::Decoration::LinkageAttributes,
                [SOp::LiteralString(name), SOp::LinkageType(kind)],
            );
        }
    }
    for f in &program.functions {
        if !f.is_declaration() {
            emit_function(tx, f)?;
        } else if library {
            let (ret, fty, params) = fn_type(tx, f);
            let id = tx.func_ids[&f.name];
            tx.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fty)?;
            for p in params {
                tx.b.function_parameter(p)?;
            }
            tx.b.end_function()?;
        }
    }
    Ok(())
}

/// The SPIR-V signature of a function: registers by value; kernels take
/// nothing (their `.param`s are in the argument block); a SIMT function
/// (`spirv::simt`) takes its caller's active flag last.
pub fn fn_type(tx: &mut ModuleCx, f: &ir::Function) -> (Word, Word, Vec<Word>) {
    let ret = match f.ret {
        Some(t) => tx.reg_ty(t),
        None => tx.void(),
    };
    let mut params: Vec<Word> = f
        .params
        .iter()
        .filter_map(|&r| match f.reg(r).kind {
            RegKind::Value(t) if f.kind == FuncKind::Function => Some(tx.reg_ty(t)),
            _ => None,
        })
        .collect();
    if f.kind == FuncKind::Function && tx.simt_functions.get(f.index as usize) == Some(&true) {
        params.push(tx.bool_ty());
    }
    let fty = tx.b.type_function(ret, params.clone());
    (ret, fty, params)
}

fn emit_function<'m>(tx: &mut ModuleCx<'m>, f: &'m ir::Function) -> Result<(), TranslateError> {
    let Some(tree) = f.structured.as_deref() else {
        return Err(TranslateError::Internal(format!(
            "function @{} has no structured tree (run ir::pipeline first)",
            tx.program.name(f.name)
        )));
    };
    let depth = ir::nesting_depth(tree);
    if depth > MAX_NESTING {
        return Err(tx.unsupported(
            f.span,
            format!(
                "control flow nested {depth} deep (drivers handle {MAX_NESTING} levels of selections and loops)"
            ),
        ));
    }
    let (ret, fty, param_tys) = fn_type(tx, f);
    let id = tx.func_ids[&f.name];
    tx.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fty)?;
    let param_ids: Vec<Word> = param_tys
        .iter()
        .map(|&t| tx.b.function_parameter(t))
        .collect::<Result<_, _>>()?;
    tx.b.begin_block(None)?;
    // every variable first (SPIR-V wants Function variables at the top of
    // the entry block)
    let kernel_params = tx
        .layout
        .kernels
        .iter()
        .find(|k| k.name == tx.program.name(f.name))
        .map(|k| k.params.clone())
        .unwrap_or_default();
    let mut regs = Vec::with_capacity(f.regs.len());
    for r in &f.regs {
        regs.push(match r.kind {
            RegKind::Value(ty) => {
                let t = tx.reg_ty(ty);
                Reg::Val {
                    ptr: variable(tx, t, &r.name),
                    ty,
                }
            }
            RegKind::Pred => {
                let bt = tx.bool_ty();
                Reg::Pred {
                    ptr: variable(tx, bt, &r.name),
                }
            }
            RegKind::Param { index, .. } => Reg::Param {
                offset: kernel_params.get(index as usize).map_or(0, |s| s.offset),
            },
        });
    }
    let simt = tx.simt_functions.get(f.index as usize) == Some(&true);
    let simt_vars = simt.then(|| super::simt::SimtVars::declare(tx, f));
    let mut control_vars = control::ControlVars::declare(tx, tree)?;
    control_vars.init(tx)?;
    let entry_active = (simt && f.kind == FuncKind::Function)
        .then(|| param_ids.last().copied())
        .flatten();
    let mut values = param_ids.into_iter();
    for &p in &f.params {
        if let (Reg::Val { ptr, .. }, FuncKind::Function) = (regs[p.index()], f.kind) {
            if let Some(v) = values.next() {
                tx.b.store(ptr, v, None, [])?;
            }
        }
    }
    let mut fx = FunctionCx {
        tx,
        func: f,
        regs,
        simt: None,
        line: 0,
        lane: None,
        half_kind: None,
    };
    match simt_vars {
        Some(vars) => super::simt::emit_body(&mut fx, tree, control_vars, vars, entry_active)?,
        None => control::emit_body(&mut fx, tree, control_vars)?,
    }
    fx.tx.b.end_function()?;
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
            if let Some(&file) = self.tx.file_ids.get(at.file as usize) {
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
        let file = self.tx.file_ids[0];
        self.tx.b.line(file, i as u32 + 1, col);
    }
}
