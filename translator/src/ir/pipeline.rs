//! `ir::pipeline`: the IR passes a program goes through before a back end,
//! as one list chosen from the target ([`Pipeline::for_target`]).
//!
//! ```text
//! ir::lower → reducible → shallow → mathlib → fatom16 [→ exactf32 | exactf64] [→ softf64] → frnd → structurize [→ unroll] → simt [→ checked] → back end
//! ```
//!
//! [`Pipeline::run`] runs the passes in order and, in debug builds, checks
//! the IR ([`super::verify`]) after each; [`Pipeline::run_with`] also hands
//! the IR to a callback after each pass (`pisa ir --print-after PASS`). The
//! back end receives the finished [`Program`]: every function with a body
//! carries its structured tree ([`Function::structured`]), and the SPIR-V
//! back end runs no pass of its own. `pisa ir --passes` prints the list for
//! a target, with the one-line docs of [`PASSES`].
//!
//! The [`Target`] holds what the choice of passes depends on, as a plain
//! struct (it is derived from the device's description).
//!
//! A pass that rewrites a few kinds of instruction has a gate: the
//! program's [`Summary`] (one walk: the opcodes of each function and one
//! instruction of each form) says whether it has any, and a pass with
//! nothing to do is not run (ten passes walking a large module to find
//! nothing cost more than the rest of the pipeline). A gate may only skip
//! a pass that would change nothing; the summary is made again after a
//! pass that changes instructions.
//!
//! Checked mode (`pisa run --check`) is the `checked` pass
//! ([`super::checked`]): a typed [`super::Inst::CheckAccess`] before every
//! load, store and atomic says its site, size and alignment; the SPIR-V
//! back end lowers it at the access that follows, with the access's
//! address and space (`spirv::checked`: the search of the launch's live
//! allocations, the sink, the first bad access kept per work-item), and
//! decides nothing about which accesses are checked.
//!
//! Sub-group emulation is the `simt` pass ([`super::simt`]): the functions
//! that need sub-groups walk uniform control flow with a per-invocation
//! state register, their sync points made by every invocation; the back
//! end lowers its instructions ([`super::Inst::Simt`]: the exchange through
//! work-group memory between barriers, the work-group-wide vote) and
//! decides nothing about which code runs in SIMT mode.
//!
//! Still done during SPIR-V emission, not as passes (each should become
//! one): other numerics of `spirv::Options` (`opaque_operands`, relaxed
//! memory orders, in `spirv::lower`). The exact float operations are all
//! the passes' (`exactf32`, `exactf64`, `softf64`; `.df` on devices with
//! f64 too: [`super::exactf64::df_replacement`]), and so are the
//! roundings no library computes: the 16-bit float atomics' sums
//! (`fatom16`: loops around `fadd`/`fsub`, which those passes then
//! rewrite) and rounding to integral values (`frnd`: integer
//! instructions); the back end keeps only the forms Vulkan defines as
//! exact and refuses the others as internal errors.
//!
//! The loop-cap exit flags (`detect_loop_cap`, `spirv::control`: a loop
//! the driver cut short sets the launch's status word) stay in the back
//! end, as no pass: they belong to SPIR-V loop constructs, not to the
//! IR's loops. A driver cuts a loop at its back edge and leaves through
//! the construct's merge block, which the flag is tested in; the IR has no
//! place for code there, nor for the never-taken exit that keeps the merge
//! reachable in a loop whose exits all jump further out. And a loop the back end makes itself, which the
//! IR does not see, needs the same test (the retry loop of emulated
//! atomics, `spirv::lower::atomics`). What there is to decide (every loop,
//! when the target caps loops) is one option. The back end also computes
//! analyses, which only compute facts and change nothing: the call graph (to refuse
//! recursion), the instructions inlined per kernel, and the nesting depth
//! of each tree ([`super::nesting_depth`], to refuse a tree nested deeper
//! than drivers handle).

use super::analysis::{calls, subgroups, Summary};
use super::{reducible, shallow, structurize, unroll, verify, Inst, Opcode, Program};

/// What the choice of passes depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// The driver ends loops after a fixed number of iterations (Mesa's
    /// llvmpipe, docs/abi.md): small innermost loops are unrolled
    /// (`unroll`).
    pub unroll_loops: bool,
    /// The device has no 64-bit floats: `mathlib` links the library's f32
    /// kernels ([`super::mathlib::Kernels::F32`]).
    pub mathlib_f32: bool,
    /// The device has no f64 (or the options ask for the f32 path): the
    /// f32 operations Vulkan does not compute exactly become calls of the
    /// exact f32 library (`exactf32`).
    pub exact_f32: bool,
    /// The device has f64 (and `exact_f32` is off): the same operations
    /// become calls of the exact library with f64 cores (`exactf64`),
    /// except those left to the device ([`super::exactf64::Native`]).
    pub exact_f64: bool,
    /// With `exact_f64`: the operations left to the device's own
    /// instructions.
    pub native: super::exactf64::Native,
    /// The device has no f64 (or the options ask for it): the `.df`
    /// arithmetic becomes calls of the soft-double integer library
    /// (`softf64`).
    pub soft_f64: bool,
    /// Checked mode (`pisa run --check`): every load, store and atomic
    /// checks its address first (`checked`).
    pub checked_memory: bool,
}

/// A pass failed: a bug in an earlier pass, never the input's fault.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(transparent)]
    Irreducible(#[from] structurize::Irreducible),
}

/// One IR pass.
pub struct Pass {
    /// Its name, as `pisa ir --passes` prints it and `--print-after` takes.
    pub name: &'static str,
    /// What it does, in one line.
    pub doc: &'static str,
    /// The passes that must have run before it.
    pub needs: &'static [&'static str],
    run: fn(&mut Program, &Target, &mut Facts) -> Result<(), PassError>,
    /// Whether the pass has anything to do, from the program's
    /// [`Summary`] (`None`: always run). Where it says no, the pass would
    /// change nothing (each pass's own check finds no instruction to
    /// rewrite), and the pipeline does not run it: one walk of the
    /// instructions answers for every such pass, not one walk each.
    gate: Option<fn(&Program, &Target, &Summary) -> bool>,
    /// The pass changes no PISA instruction (it adds blocks and control
    /// instructions at most): the summary stays true after it.
    keeps_insts: bool,
}

/// What the passes of one [`Pipeline::run_with`] share.
#[derive(Default)]
pub struct Facts {
    /// The summary of the program's instructions, while it is true.
    summary: Option<Summary>,
    /// `shallow` keeps its trees without a copy of the terminators to check
    /// them by: no pass between it and `structurize` has anything to do.
    unchecked_trees: bool,
}

impl Facts {
    fn summary(&mut self, p: &Program) -> &Summary {
        self.summary.get_or_insert_with(|| Summary::of(p))
    }
}

impl std::fmt::Debug for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every pass, in the order pipelines run them.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "reducible",
        doc: "irreducible regions get one entry (a dispatcher): the graph is reducible",
        needs: &[],
        run: run_reducible,
        gate: None,
        keeps_insts: true,
    },
    Pass {
        name: "shallow",
        doc: "parts nested deeper than 64 become flat dispatch loops",
        needs: &["reducible"],
        run: run_shallow,
        gate: None,
        keeps_insts: true,
    },
    Pass {
        name: "mathlib",
        doc: "transcendental instructions become calls of the bundled math library",
        needs: &[],
        run: run_mathlib,
        gate: Some(|_, _, s| s.any_form(super::mathlib::implements)),
        keeps_insts: false,
    },
    Pass {
        name: "fatom16",
        doc: "fatom.add/.sub on .hf/.bf become compare-and-swap loops of 16-bit integer atomics around a sum rounded once into the format",
        needs: &[],
        run: run_fatom16,
        gate: Some(|_, _, s| s.any_form(super::fatom16::is_fatom16)),
        keeps_insts: false,
    },
    Pass {
        name: "exactf32",
        doc: "f32 directed rounding, fmad, fdiv, frcp, fsqrt, frc, bf16 rounding become calls of the exact integer library (no f64); inexact .df forms of the soft-double one",
        // after `fatom16`, whose loops add the .bf/.hf rounding it rewrites
        needs: &["fatom16"],
        run: run_exactf32,
        gate: Some(gate_exactf32),
        keeps_insts: false,
    },
    Pass {
        name: "exactf64",
        doc: "f32/f16/bf16 directed rounding, bf16 rounding, fmad, fdiv, frcp, fsqrt, frc, rounded conversions become calls of the exact library with f64 cores; inexact .df forms of the soft-double one",
        // after `fatom16`, whose loops add the .bf/.hf rounding it rewrites
        needs: &["fatom16"],
        run: run_exactf64,
        gate: Some(gate_exactf64),
        keeps_insts: false,
    },
    Pass {
        name: "softf64",
        doc: ".df arithmetic, frsqrt, fcmp and conversions become calls of the soft-double integer library, .df atomics loops of its add (no f64)",
        needs: &[],
        run: run_softf64,
        gate: Some(gate_softf64),
        keeps_insts: false,
    },
    Pass {
        name: "frnd",
        doc: "frnd, and f2i/pf2i in a mode other than .rz, round to integral values in integer instructions on the encoding",
        // after the passes whose library code it rewrites too
        needs: &["mathlib"],
        run: run_frnd,
        gate: Some(|_, _, s| s.any_form(super::frnd::rewrites)),
        keeps_insts: false,
    },
    Pass {
        name: "structurize",
        doc: "each body becomes a tree of nested loop / block / if constructs",
        // after every pass that changes blocks or adds functions
        needs: &["reducible", "shallow", "mathlib", "fatom16"],
        run: run_structurize,
        gate: None,
        keeps_insts: true,
    },
    Pass {
        name: "unroll",
        doc: "small innermost loops run 16 iterations per back edge, and those of at most 8 proven trips no loop at all (drivers that cap loops)",
        needs: &["structurize"],
        run: run_unroll,
        gate: None,
        keeps_insts: false,
    },
    Pass {
        name: "simt",
        doc: "functions that need sub-groups run in SIMT mode: uniform control flow, a lane state register, sync points made by every invocation",
        // after `unroll`, which keeps the loops with sync points
        needs: &["structurize"],
        run: run_simt,
        gate: Some(gate_simt),
        keeps_insts: false,
    },
    Pass {
        name: "checked",
        doc: "every ld, st and atomic checks its address first (checked mode, --check)",
        // last: after every pass that links library code, whose accesses
        // it checks; it numbers the sites in the order of the trees
        needs: &["mathlib", "structurize"],
        run: run_checked,
        gate: None,
        keeps_insts: false,
    },
];

/// The pass named `name`.
pub fn find(name: &str) -> Result<&'static Pass, UnknownPass> {
    PASSES
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| UnknownPass(name.to_string()))
}

/// A pass name that names no pass.
#[derive(Debug, thiserror::Error)]
#[error("unknown pass `{0}` (passes: {names})", names = pass_names())]
pub struct UnknownPass(pub String);

fn pass_names() -> String {
    PASSES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// An ordered list of passes, for a target.
#[derive(Debug, Clone)]
pub struct Pipeline {
    passes: Vec<&'static Pass>,
    target: Target,
}

impl Pipeline {
    /// The passes a back end's program goes through for `target`.
    pub fn for_target(target: &Target) -> Pipeline {
        let mut names = vec!["reducible", "shallow", "mathlib", "fatom16"];
        if target.exact_f32 {
            names.push("exactf32");
        } else if target.exact_f64 {
            names.push("exactf64");
        }
        if target.soft_f64 {
            names.push("softf64");
        }
        names.push("frnd");
        names.push("structurize");
        if target.unroll_loops {
            names.push("unroll");
        }
        names.push("simt");
        if target.checked_memory {
            names.push("checked");
        }
        Pipeline::named(&names, target.clone())
    }

    /// The target-independent passes every reader of the IR relies on
    /// (reducible control flow, nested at most [`shallow::MAX_NESTING`]
    /// deep): what [`super::build`] runs.
    pub fn base() -> Pipeline {
        Pipeline::named(&["reducible", "shallow"], Target::default())
    }

    fn named(names: &[&str], target: Target) -> Pipeline {
        Pipeline {
            passes: names
                .iter()
                .filter_map(|n| PASSES.iter().find(|p| p.name == *n))
                .collect(),
            target,
        }
    }

    /// The same pipeline without the pass named `name` (for tests: what
    /// reaches a back end when a pass is missing).
    pub fn without(mut self, name: &str) -> Pipeline {
        self.passes.retain(|p| p.name != name);
        self
    }

    /// The passes, in the order they run.
    pub fn passes(&self) -> &[&'static Pass] {
        &self.passes
    }

    /// Whether the pipeline runs the pass named `name`.
    pub fn runs(&self, name: &str) -> bool {
        self.passes.iter().any(|p| p.name == name)
    }

    /// Runs the passes in order on `p` (as [`super::lower`] made it).
    pub fn run(&self, p: &mut Program) -> Result<(), PassError> {
        self.run_with(p, &mut |_, _| {})
    }

    /// Runs the passes in order, calling `after` with each pass and the IR
    /// it left.
    pub fn run_with(
        &self,
        p: &mut Program,
        after: &mut dyn FnMut(&Pass, &Program),
    ) -> Result<(), PassError> {
        let mut facts = Facts::default();
        for (k, pass) in self.passes.iter().enumerate() {
            crate::timing::phase(pass.name, || -> Result<(), PassError> {
                if let Some(gate) = pass.gate {
                    if !gate(p, &self.target, facts.summary(p)) {
                        return Ok(());
                    }
                }
                if pass.name == "shallow" {
                    facts.unchecked_trees = self.nothing_to_do_before_structurize(k, p, &mut facts);
                }
                (pass.run)(p, &self.target, &mut facts)?;
                if !pass.keeps_insts {
                    facts.summary = None;
                }
                Ok(())
            })?;
            verify::debug_verify(p, pass.name);
            after(pass, p);
        }
        if facts.unchecked_trees {
            // no tree kept unchecked outlives the run (`structurize` took
            // those of the functions with bodies)
            for f in &mut p.functions {
                f.tree_cache = None;
            }
        }
        Ok(())
    }

    /// Whether `structurize` follows pass `k` and every pass in between has
    /// nothing to do (by its gate, which stays true as none runs).
    fn nothing_to_do_before_structurize(&self, k: usize, p: &Program, facts: &mut Facts) -> bool {
        let rest = &self.passes[k + 1..];
        let Some(end) = rest.iter().position(|q| q.name == "structurize") else {
            return false;
        };
        let summary = facts.summary(p);
        rest[..end]
            .iter()
            .all(|q| q.gate.is_some_and(|gate| !gate(p, &self.target, summary)))
    }
}

/// Runs [`Pipeline::base`], whose passes cannot fail.
pub(super) fn run_base(p: &mut Program) {
    for f in &mut p.functions {
        reducible::make_reducible(f);
    }
    verify::debug_verify(p, "reducible");
    // (the trees are dropped below: no copy of the terminators to check
    // them by)
    let summary = Summary::of(p);
    shallow::limit_program_with(p, &summary, false);
    verify::debug_verify(p, "shallow");
    // no `structurize` pass follows: the trees would only take memory
    for f in &mut p.functions {
        f.tree_cache = None;
    }
}

fn run_reducible(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    for f in &mut p.functions {
        reducible::make_reducible(f);
    }
    Ok(())
}

fn run_shallow(p: &mut Program, _: &Target, facts: &mut Facts) -> Result<(), PassError> {
    let check_shape = !facts.unchecked_trees;
    shallow::limit_program_with(p, facts.summary(p), check_shape);
    Ok(())
}

fn run_mathlib(p: &mut Program, target: &Target, _: &mut Facts) -> Result<(), PassError> {
    let kernels = if target.mathlib_f32 {
        super::mathlib::Kernels::F32
    } else {
        super::mathlib::Kernels::F64
    };
    super::mathlib::link_with(p, kernels);
    Ok(())
}

fn run_fatom16(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::fatom16::rewrite(p);
    Ok(())
}

fn run_exactf32(p: &mut Program, target: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::exactf32::link_for(p, target.native.float16);
    if !target.soft_f64 {
        super::exactf64::link_df(p, target.native, "exactf32");
    }
    Ok(())
}

fn run_exactf64(p: &mut Program, target: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::exactf64::link(p, target.native);
    if !target.soft_f64 {
        super::exactf64::link_df(p, target.native, "exactf64");
    }
    Ok(())
}

fn run_softf64(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::softf64::link(p);
    Ok(())
}

fn run_frnd(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::frnd::rewrite(p);
    Ok(())
}

/// `exactf32` has an instruction to rewrite ([`run_exactf32`]).
fn gate_exactf32(_: &Program, target: &Target, s: &Summary) -> bool {
    s.any_form(|i| super::exactf32::replacement_for(i, target.native.float16).is_some())
        || (!target.soft_f64 && gate_df(target, s))
}

/// `exactf64` has an instruction to rewrite ([`run_exactf64`]).
fn gate_exactf64(_: &Program, target: &Target, s: &Summary) -> bool {
    s.any_form(|i| super::exactf64::replacement(i, target.native).is_some())
        || (!target.soft_f64 && gate_df(target, s))
}

/// The `.df` forms `exactf32` and `exactf64` rewrite on devices with f64.
fn gate_df(target: &Target, s: &Summary) -> bool {
    s.any_form(|i| super::exactf64::df_replacement(i, target.native).is_some())
}

fn gate_softf64(_: &Program, _: &Target, s: &Summary) -> bool {
    s.any_form(|i| {
        super::softf64::replacement(i).is_some() || super::softf64::atomics::is_df_atomic(i)
    })
}

/// Some function may run in SIMT mode
/// ([`subgroups::simt_functions`]: only callers of the functions with a
/// cross-lane instruction, a read of `%activemask` or SIMT mode's
/// instructions do).
fn gate_simt(p: &Program, _: &Target, s: &Summary) -> bool {
    p.symbols.get("activemask").is_some()
        || (0..p.functions.len()).any(|f| {
            s.has_simt(f)
                || s.has_any(
                    f,
                    &[
                        Opcode::Shfl,
                        Opcode::Ired,
                        Opcode::Fred,
                        Opcode::Redfirstidx,
                    ],
                )
        })
}

fn run_checked(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::checked::insert(p);
    Ok(())
}

fn run_simt(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    super::simt::run(p);
    Ok(())
}

fn run_structurize(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    for f in &mut p.functions {
        if !f.is_declaration() {
            // `shallow`'s tree, where no pass since changed the blocks
            let cached = f.tree_cache.take().and_then(|c| c.take(f));
            f.structured = Some(match cached {
                Some(tree) => tree,
                None => structurize::structurize(f)?,
            });
        }
    }
    Ok(())
}

/// Unrolls the small innermost loops of every tree, except loops with a
/// sub-group sync point (each copy would cost their barriers whether lanes
/// run it or not) and the dispatch loops of `shallow` (copies of their
/// rounds would nest).
fn run_unroll(p: &mut Program, _: &Target, _: &mut Facts) -> Result<(), PassError> {
    let simt_functions = subgroups::simt_functions(p);
    let index = calls::function_index(p);
    let keep: Vec<Vec<bool>> = p
        .functions
        .iter()
        .map(|f| {
            f.blocks
                .iter()
                .map(|b| {
                    b.insts.iter().any(|i| match i {
                        Inst::Pisa(i) => subgroups::is_sync_point(p, &index, &simt_functions, i),
                        _ => false,
                    }) || shallow::flatten_rule(f, b) == Some(false)
                })
                .collect()
        })
        .collect();
    for (f, keep) in p.functions.iter_mut().zip(keep) {
        if let Some(mut tree) = f.structured.take() {
            unroll::unroll_loops_except(f, &mut tree, &|b| keep.get(b.index()) == Some(&true));
            f.structured = Some(tree);
        }
    }
    Ok(())
}

/// The IR as text ([`super::print::print`]), then each structured tree
/// there is, with the source's names (`pisa ir --structured` and
/// `--print-after`).
pub fn print(p: &Program) -> String {
    let mut out = super::print::print(p);
    for f in &p.functions {
        if let Some(tree) = &f.structured {
            out.push_str(&format!("\nstructured @{}:\n", p.name(f.name)));
            let names = super::print::tree_names(p, f);
            out.push_str(&structurize::print_named(tree, &names));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pass its gate skips has nothing to do: run on the IR as the
    /// pipeline has it there, it leaves the IR (and the trees) as they
    /// are. And every gate opens for some program of the tests, where the
    /// pipeline then runs the pass.
    #[test]
    fn gates_skip_only_passes_with_nothing_to_do() {
        let dirs = ["../tests/run", "../tests/translate"];
        let mut opened = std::collections::BTreeSet::new();
        let targets = [
            Target {
                exact_f64: true,
                ..Target::default()
            },
            Target {
                exact_f32: true,
                soft_f64: true,
                mathlib_f32: true,
                unroll_loops: true,
                checked_memory: true,
                ..Target::default()
            },
        ];
        for dir in dirs {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "pisa"))
                .collect();
            files.sort();
            for file in files {
                let src = std::fs::read_to_string(&file).unwrap();
                let Ok(m) = crate::assemble("t.pisa", &src) else {
                    continue;
                };
                for target in &targets {
                    let mut p = crate::ir::lower(&m);
                    for pass in Pipeline::for_target(target).passes() {
                        let mut facts = Facts::default();
                        let skip = pass
                            .gate
                            .is_some_and(|gate| !gate(&p, target, &Summary::of(&p)));
                        let before = skip.then(|| print(&p));
                        (pass.run)(&mut p, target, &mut facts).unwrap();
                        match before {
                            Some(before) => assert!(
                                before == print(&p),
                                "{}: {} changed the IR its gate skips",
                                file.display(),
                                pass.name
                            ),
                            None => {
                                opened.insert(pass.name);
                            }
                        }
                    }
                }
            }
        }
        for name in [
            "mathlib", "fatom16", "exactf32", "exactf64", "softf64", "frnd", "simt",
        ] {
            assert!(opened.contains(name), "no test program opens {name}'s gate");
        }
    }

    /// Every pipeline runs a pass's needs before it, and the one-line docs
    /// give the numbers the passes use.
    #[test]
    fn order_and_docs() {
        for (unroll_loops, exact_f32, soft_f64, checked_memory) in [
            (false, false, false, false),
            (true, false, false, true),
            (false, true, false, false),
            (true, true, true, true),
        ] {
            let pipeline = Pipeline::for_target(&Target {
                unroll_loops,
                exact_f32,
                exact_f64: !exact_f32,
                soft_f64,
                checked_memory,
                ..Target::default()
            });
            assert_eq!(pipeline.runs("checked"), checked_memory);
            let passes = pipeline.passes();
            for (i, pass) in passes.iter().enumerate() {
                for need in pass.needs {
                    assert!(
                        passes[..i].iter().any(|p| p.name == *need),
                        "{} runs before {need}",
                        pass.name
                    );
                }
            }
        }
        let doc = |n| find(n).unwrap().doc;
        assert!(doc("shallow").contains(&shallow::MAX_NESTING.to_string()));
        assert!(doc("unroll").contains(&unroll::FACTOR.to_string()));
        assert_eq!(
            find("nope").unwrap_err().to_string(),
            "unknown pass `nope` (passes: reducible, shallow, mathlib, fatom16, exactf32, exactf64, softf64, frnd, structurize, unroll, simt, checked)"
        );
    }
}
