//! Function bodies: declares every function, then emits each body with the
//! structured control flow of `control`. The top of the back end below
//! `mod.rs`: it imports `control`, which imports the contexts (`types`,
//! `function`) and the lowerings, and nothing imports it but `mod.rs`.

use super::control;
use super::error::TranslateError;
use super::function::{fn_type, variable, FunctionCx, Reg};
use super::types::ModuleCx;
use crate::ir::Linkage;
use crate::ir::{self, FuncKind, RegKind};
use rspirv::dr::Operand as SOp;
use rspirv::spirv;
use rspirv::spirv::Word;

/// The deepest nesting of structured control flow emitted: Mesa 22's
/// gallivm (lavapipe) ignores constructs nested deeper than 80 without a
/// word (`LP_MAX_TGSI_NESTING`); the pipeline's `shallow` pass keeps every
/// function within 64, so this only catches a function it could not lower. (SPIR-V
/// itself allows 1,023.)
const MAX_NESTING: usize = 80;

/// Reports recursion (direct or mutual) with the cycle it forms: Vulkan
/// SPIR-V has no call stack.
pub fn check_recursion(
    tx: &ModuleCx,
    facts: &[ir::analysis::calls::FunctionFacts],
) -> Result<(), TranslateError> {
    let graph = ir::analysis::CallGraph::of(tx.program, facts);
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
    tx.b.reserve_words(estimated_words(program));
    let library = !program.functions.iter().any(|f| f.kind == FuncKind::Kernel);
    if library {
        tx.cap(spirv::Capability::Linkage);
    }
    for f in &program.functions {
        if f.is_declaration() && !library {
            continue;
        }
        let id = tx.b.id();
        tx.ids.functions.insert(f.name, id);
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
            let id = tx.ids.functions[&f.name];
            tx.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fty)?;
            for p in params {
                tx.b.function_parameter(p)?;
            }
            tx.b.end_function()?;
        }
    }
    Ok(())
}

/// Words per IR instruction that [`estimated_words`] assumes: a PISA
/// instruction becomes its `OpLine` (4 words), loads of its operands (4
/// each), the operation (4-7) and a store (3); 21 on a module of `iadd`,
/// `xor`, `shl` by an immediate and `isub` (`benches/tool_speed.rs`), 26 when
/// such a shift took five more instructions. Only pages that are
/// written become resident, so an estimate a little high costs address
/// space, not memory.
const WORDS_PER_INST: usize = 28;

/// The words the function bodies of `program` will likely take, reserved
/// before they are emitted ([`super::builder::Builder::reserve_words`]).
fn estimated_words(program: &ir::Program) -> usize {
    let insts: usize = program
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .map(|b| b.insts.len() + 1)
        .sum();
    insts.saturating_mul(WORDS_PER_INST)
}

fn emit_function<'m>(tx: &mut ModuleCx<'m>, f: &'m ir::Function) -> Result<(), TranslateError> {
    let Some(tree) = f.structured.as_deref() else {
        return Err(TranslateError::Internal(format!(
            "function @{} has no structured tree (run ir::pipeline first)",
            tx.program.name(f.name)
        )));
    };
    // one walk of the tree for the depth, the loops and the guards, and
    // two more only where some block has breaks
    let survey = control::Survey::of(tree);
    let (breaking, depth) = if survey.breaking_blocks {
        let breaking = ir::structurize::Breaking::of(tree);
        let depth = ir::structurize::nesting_depth_with(&breaking, tree, &|_| 0);
        (breaking, depth)
    } else {
        (ir::structurize::Breaking::of(&[]), survey.plain_depth)
    };
    if depth > MAX_NESTING {
        return Err(tx.unsupported(
            f.span,
            format!(
                "control flow nested {depth} deep (drivers handle {MAX_NESTING} levels of selections and loops)"
            ),
        ));
    }
    let (ret, fty, param_tys) = fn_type(tx, f);
    let id = tx.ids.functions[&f.name];
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
    let mut control_vars = control::ControlVars::declare(tx, survey, breaking)?;
    control_vars.init(tx)?;
    let mut values = param_ids.into_iter();
    for &p in &f.params {
        if let (Reg::Val { ptr, .. } | Reg::Pred { ptr }, FuncKind::Function) =
            (regs[p.index()], f.kind)
        {
            if let Some(v) = values.next() {
                tx.b.store(ptr, v, None, [])?;
            }
        }
    }
    let mut fx = FunctionCx::new(tx, f, regs);
    control::emit_body(&mut fx, tree, control_vars)?;
    fx.tx.b.end_function()?;
    Ok(())
}
