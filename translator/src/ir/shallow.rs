//! Keeps the structured form of every function within [`MAX_NESTING`]
//! levels of constructs.
//!
//! Mesa 22's gallivm (lavapipe) ignores control flow nested deeper than 80
//! levels (`LP_MAX_TGSI_NESTING`) without a word: 81 nested loops run the
//! innermost one once (`../shared/repros/nested-loops-81.pisa`), and large
//! irreducible graphs, which the structurizer nests about as deep as they
//! have blocks, went wrong the same way
//! (`../shared/repros/irreducible-300-blocks.pisa`, 97 levels).
//!
//! Where the structured tree ([`super::structurize`]) nests deeper than
//! [`MAX_NESTING`], the construct (a selection, a loop, or the guard after
//! a jump to a block's end) that starts at depth [`CUT_DEPTH`] on the
//! way down is lowered to a *state machine*: its blocks `R` (in tree order)
//! become the states of one dispatch loop. A round of the loop is a flat
//! chain of `if ($nest == i) { block i }`, one per state; every edge of
//! block `i` sets `$nest` to its target's number in a setter block of its
//! own and goes on to test `i + 1`, so a jump forward runs in the same
//! round and only a jump back starts another. An edge out of `R` sets
//! `$nest` to `n` (one past the states) and `$nestexit` to the exit's
//! number: after the chain the loop is left when `$nest == n`, and tests
//! after the loop pick the exit. Edges into `R` set `$nest` and go to the
//! first test. The arms of the chain end in no jump: Mesa's NIR moves the
//! code after an `if` that ends in `continue` or `break` into its `else`
//! (`opt_if_loop_last_continue`, loop unrolling), which would nest the
//! chain as deep as it is long. The rest of the function keeps its
//! structure. Repeats until the tree is shallow enough (each round lowers
//! one over-deep construct).
//!
//! Drivers inline every call (Vulkan has no call stack), so a call nests its
//! callee's constructs inside the constructs around the call: a function
//! nested 30 deep that calls one nested 60 deep at its deepest point is
//! nested 90 deep once inlined, and lavapipe ran such programs wrong (the
//! fuzzer's large-graph tier, seed 20000006: right after replacing the two
//! calls). So the depth counted here is the *inlined* depth: a block that
//! calls a function counts that function's own inlined depth below it
//! ([`limit_program`] handles callees before their callers). Where the
//! inlined depth is too great, the region is cut higher up (down to the
//! function's top level), so that the call sits under as few constructs as
//! the callee's depth leaves room for.
//!
//! The cost is one iteration of the dispatch loop per backward jump taken
//! in `R` (about one per iteration of a loop of `R`, as before). llvmpipe
//! also charges its loop cap a trip for every loop construct a round
//! passes, taken or not (the inlined loops of calls, compare-and-swap
//! loops of atomics): so blocks whose code may hold one (*heavy* blocks)
//! run after the rounds of the others, once per trip of an outer loop
//! around the dispatch loop, which costs them once per visit instead of
//! once per round (`tests/run/loop_cap_calls_in_dispatch_loop.pisa`; the
//! lanes of a SIMD vector share rounds, so their divergent paths cost the
//! most trips of one lane, not the sum). Every back end
//! sees the lowered function (`ir::build` runs this pass), so the cpu device
//! walks the same tree for sub-group reconvergence as the Vulkan code runs.

use super::analysis::Summary;
use super::structurize::{self, Node};
use super::*;

/// The deepest nesting of constructs (selections, loops, and the guards
/// after jumps to a block's end: [`structurize::nesting_depth`]) the
/// structured form of a function is given: 80 is the most
/// lavapipe handles, and the back end may add a level (`ir::unroll`).
pub const MAX_NESTING: usize = 64;

/// The deepest nesting a function is given with its calls inlined (as
/// drivers inline them): below lavapipe's 80 with room for `ir::unroll`'s
/// level and the dispatch loop's own.
pub const MAX_INLINED: usize = 76;

/// Where an over-deep tree is cut: the construct starting at this depth is
/// lowered to a state machine. Leaves room below [`MAX_NESTING`] for the
/// dispatch loop and for the blocks after it that its exits break to.
pub const CUT_DEPTH: usize = 32;

/// The name prefix of the registers this pass adds (the structurizer
/// recognises its tests and setters by it, [`flatten_rule`]).
pub const STATE_PREFIX: &str = "$nest";

/// Lowers the over-deep parts of every function of `p` (see the module
/// docs), callees before their callers, counting for each call the inlined
/// depth of what it may call (for a call through a register, every function
/// whose address is taken). Every function must be reducible.
pub fn limit_program(p: &mut Program) {
    let summary = Summary::of(p);
    limit_program_with(p, &summary, true);
}

/// [`limit_program`], where `summary` (of `p` as it is) says which
/// functions have calls and instructions that loop: the others'
/// instructions are not walked. `check_shape`: the trees kept for the
/// `structurize` pass are checked against the blocks before use
/// ([`structurize::Cached`]); without it (the pipeline knows that no pass
/// before `structurize` changes a block) they are taken as they are.
pub(crate) fn limit_program_with(p: &mut Program, summary: &Summary, check_shape: bool) {
    let graph = super::analysis::calls::CallGraph::compute_with(p, Some(summary));
    let n = p.functions.len();
    // callees first: a depth-first post-order over the call graph (a cycle,
    // which the back end refuses, is cut where it closes)
    let mut order = Vec::with_capacity(n);
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        state[root] = 1;
        while let Some((i, k)) = stack.pop() {
            if let Some(&j) = graph.callees[i].get(k) {
                stack.push((i, k + 1));
                if state[j] == 0 {
                    state[j] = 1;
                    stack.push((j, 0));
                }
            } else {
                state[i] = 2;
                order.push(i);
            }
        }
    }
    let index = super::analysis::calls::function_index(p);
    let indirect: Vec<usize> = p
        .address_taken
        .iter()
        .filter_map(|n| index.get(n).copied())
        .collect();
    let mut inlined = vec![0usize; n];
    // whether a function's code, inlined, may hold a loop construct (only
    // its callers read it)
    let mut loops = vec![false; n];
    let mut called = vec![false; n];
    for &j in graph.callees.iter().flatten().chain(&indirect) {
        called[j] = true;
    }
    for i in order {
        // (no walk of the instructions of a function without calls or
        // looping instructions)
        let has_calls = summary.has(i, Opcode::Call);
        let loop_insts = summary.has_any(i, &LOOP_OPCODES);
        let calls = |f: &Function, b: BlockId| -> usize {
            if !has_calls {
                return 0;
            }
            let mut deepest = 0;
            for c in calls_of(f, b) {
                let d = match c.target {
                    Operand::Symbol(name, _) => index.get(&name).map_or(0, |&j| inlined[j]),
                    _ => indirect.iter().map(|&j| inlined[j]).max().unwrap_or(0),
                };
                deepest = deepest.max(d);
            }
            deepest
        };
        let callee_loops = |c: &CallOperand| match c.target {
            Operand::Symbol(name, _) => index.get(&name).is_some_and(|&j| loops[j]),
            _ => indirect.iter().any(|&j| loops[j]),
        };
        let heavy = |f: &Function, b: BlockId| {
            (loop_insts && loop_instruction(f, b))
                || (has_calls && calls_of(f, b).any(callee_loops))
        };
        let f = &mut p.functions[i];
        inlined[i] = limit_nesting_with(f, &calls, &heavy, check_shape, called[i]);
        if called[i] {
            let f = &p.functions[i];
            loops[i] = has_cycle(f) || (0..f.blocks.len()).any(|b| heavy(f, BlockId(b as u32)));
        }
    }
}

/// The call operands of block `b`'s instructions.
fn calls_of(f: &Function, b: BlockId) -> impl Iterator<Item = &CallOperand> + '_ {
    f.block(b).insts.iter().flat_map(|ins| {
        let ops: &[Operand] = match ins {
            Inst::Pisa(ins) => &ins.operands,
            _ => &[],
        };
        ops.iter().filter_map(|op| match op {
            Operand::Call(c) => Some(c.as_ref()),
            _ => None,
        })
    })
}

/// Whether block `b` holds an instruction the back end may emit as a loop
/// of its own: atomics (compare-and-swap and lock loops, docs/abi.md
/// "Emulated atomics") and sub-group reductions (the per-lane loop for
/// differing masks, `spirv::simt::exchange`). Over-approximate (a native
/// 32-bit atomic, a reduction with an immediate mask have none): such a
/// block only costs each of its visits an outer trip of the dispatch loop.
fn loop_instruction(f: &Function, b: BlockId) -> bool {
    f.block(b)
        .insts
        .iter()
        .any(|ins| matches!(ins, Inst::Pisa(i) if LOOP_OPCODES.contains(&i.opcode)))
}

/// The opcodes of [`loop_instruction`].
const LOOP_OPCODES: [Opcode; 4] = [Opcode::Fatom, Opcode::Iatom, Opcode::Fred, Opcode::Ired];

/// Whether `f`'s control-flow graph has a cycle (a loop construct once
/// structured; `f` is reducible, so a retreating edge closes a loop).
fn has_cycle(f: &Function) -> bool {
    let cfg = super::analysis::cfg::Cfg::compute(f);
    (0..f.blocks.len())
        .map(|b| BlockId(b as u32))
        .any(|b| cfg.reachable(b) && f.successors(b).any(|s| cfg.is_retreating(b, s)))
}

/// Lowers the over-deep parts of `f`'s structured form to state machines
/// (see the module docs), counting no calls. `f` must be reducible.
pub fn limit_nesting(f: &mut Function) {
    limit_nesting_with(
        f,
        &|_, _| 0,
        &|f, b| loop_instruction(f, b) || calls_of(f, b).next().is_some(),
        true,
        false,
    );
}

/// [`limit_nesting`] where a block `b` that calls functions adds
/// `calls(f, b)` levels (the inlined depth of its deepest callee), and
/// `heavy(f, b)` says whether `b`'s code may hold a loop construct once
/// inlined and lowered ([`dispatch`]); returns the inlined depth of the
/// result (with `depth_needed` false, a bound on it where the function is
/// shallow enough).
///
/// First the function's own structure is cut to [`MAX_NESTING`] at
/// [`CUT_DEPTH`]; then, while the inlined depth passes [`MAX_INLINED`], the
/// top-level construct that holds the too-deep call becomes a dispatch loop,
/// which leaves its calls under two or three constructs.
fn limit_nesting_with(
    f: &mut Function,
    calls: &dyn Fn(&Function, BlockId) -> usize,
    heavy: &dyn Fn(&Function, BlockId) -> bool,
    check_shape: bool,
    depth_needed: bool,
) -> usize {
    let deepest_call = (0..f.blocks.len())
        .map(|b| calls(f, BlockId(b as u32)))
        .max()
        .unwrap_or(0);
    // every level of nesting is a loop, a selection or a guard
    // (`structurize::Breaking`); each loop and selection has its own block
    // (a loop header or a branch), and each guard follows a jump to a merge
    // block's block out of a loop, a selection or a block around it, so
    // there are at most two levels per block and merge block
    let bound = f.blocks.len().saturating_mul(6);
    f.tree_cache = None;
    if bound <= MAX_NESTING && deepest_call == 0 {
        let Ok(tree) = structurize::structurize(f) else {
            return bound;
        };
        let depth = structurize::nesting_depth(&tree);
        keep(f, tree, check_shape);
        return bound.min(depth);
    }
    // each round lowers one construct and adds no deeper one; the bounds
    // only guard against a bug turning into a hang or a blow-up (a round
    // that lowers an earlier dispatch loop inside a bigger one multiplies
    // its blocks, see `deep_region_in`): the back end then refuses the
    // function as nested too deep
    let mut last_inlined = usize::MAX;
    let most_blocks = f.blocks.len().saturating_mul(16).saturating_add(4096);
    for _ in 0..f.blocks.len() + 16 {
        if f.blocks.len() > most_blocks {
            break;
        }
        let Ok((tree, bound)) = structurize::structurize_bounded(f) else {
            return 0;
        };
        // shallow enough by the bound, which no caller reads where nothing
        // calls the function: no walk of the tree for its depth
        if deepest_call == 0 && !depth_needed && bound <= MAX_NESTING {
            keep(f, tree, check_shape);
            return bound;
        }
        // without calls the inlined depth is the function's own
        let own = structurize::nesting_depth(&tree);
        let inlined = if deepest_call == 0 {
            own
        } else {
            inlined_depth(f, &tree, calls)
        };
        let region = if own > MAX_NESTING {
            deep_region(f, &tree, CUT_DEPTH, MAX_NESTING, &|_, _| 0)
        } else if inlined > MAX_INLINED && inlined < last_inlined {
            last_inlined = inlined;
            deep_region(f, &tree, 0, MAX_INLINED, calls)
        } else {
            keep(f, tree, check_shape);
            return inlined;
        };
        let Some(region) = region else {
            keep(f, tree, check_shape);
            return inlined;
        };
        dispatch(f, &region, heavy);
    }
    structurize::structurize(f).map_or(0, |t| inlined_depth(f, &t, calls))
}

/// Keeps `tree`, the structured form of `f` as this pass leaves it, for
/// the `structurize` pass ([`structurize::Cached`]).
fn keep(f: &mut Function, tree: Vec<Node>, check_shape: bool) {
    let cached = if check_shape {
        structurize::Cached::new(f, tree)
    } else {
        structurize::Cached::unchecked(tree)
    };
    f.tree_cache = Some(Box::new(cached));
}

/// The nesting depth of a function's tree once calls are inlined: a block's
/// code counts the inlined depth of its deepest callee.
fn inlined_depth(
    f: &Function,
    tree: &[Node],
    calls: &dyn Fn(&Function, BlockId) -> usize,
) -> usize {
    structurize::nesting_depth_calls(tree, &|b| calls(f, b))
}

/// How the structurizer flattens the branch at the end of block `b` where
/// this pass made it (`None`: as usual). The tests and states of a
/// dispatch loop are never flattened (their arms fall through to the next
/// test, with no jump a driver could turn into nesting); the tests that
/// pick the target of an exit always are (each arm breaks to a block after
/// the loop).
pub fn flatten_rule(f: &Function, b: &Block) -> Option<bool> {
    let ours = |r: &RegId, suffix: &str| {
        f.reg(*r)
            .name
            .strip_prefix(STATE_PREFIX)
            .is_some_and(|rest| rest.starts_with(suffix))
    };
    match b.insts.as_slice() {
        [Inst::TestConst { src, .. }] if ours(src, "exit") => return Some(true),
        [Inst::TestConst { src, .. }] if ours(src, "") => return Some(false),
        _ => {}
    }
    let setter = |t: BlockId| matches!(f.block(t).insts.first(), Some(Inst::SetConst { dst, .. }) if ours(dst, ""));
    match b.term {
        Terminator::Branch {
            then, otherwise, ..
        } if setter(then) && setter(otherwise) => Some(false),
        _ => None,
    }
}

/// The blocks of the first construct (a selection, a loop, or the guard
/// around the rest of a sequence after a breaking node) that starts
/// at depth `cut` and nests deeper than `max` in all, calls counted by
/// `calls`, in a function's `tree`.
fn deep_region(
    f: &Function,
    tree: &[Node],
    cut: usize,
    max: usize,
    calls: &dyn Fn(&Function, BlockId) -> usize,
) -> Option<Vec<BlockId>> {
    let breaking = structurize::Breaking::of(tree);
    deep_region_in(f, &breaking, tree, 0, cut, max, calls)
}

/// [`deep_region`] in `nodes`, a part of the tree (`depth`: the levels
/// around it).
fn deep_region_in(
    f: &Function,
    breaking: &structurize::Breaking,
    nodes: &[Node],
    depth: usize,
    cut: usize,
    max: usize,
    calls: &dyn Fn(&Function, BlockId) -> usize,
) -> Option<Vec<BlockId>> {
    stack_safe(|| {
        let mut guarded = false;
        for (i, (n, guard)) in breaking.levels(nodes).enumerate() {
            // the guard after a breaking node (`if (!broke) { rest }` in the
            // back end) is a construct too: where it starts at the cut and
            // the rest nests too deep, the rest is the region. Descending
            // past it instead went on down a chain of guards (flattened
            // early exits nest one per exit, `structurize::FLATTEN_DEPTH`)
            // to some small construct far below the cut, whose dispatch loop
            // nested as deep again; the next round lowered that loop inside
            // a bigger one, tripling the blocks each round
            if guard == 1 && !guarded {
                guarded = true;
                if depth >= cut {
                    let rest = &nodes[i..];
                    let inner = rest
                        .iter()
                        .map(|n| {
                            structurize::nesting_depth_with(
                                breaking,
                                std::slice::from_ref(n),
                                &|b| calls(f, b),
                            )
                        })
                        .max()
                        .unwrap_or(0);
                    if depth + 1 + inner > max {
                        let mut blocks = Vec::new();
                        structurize::blocks(rest, &mut blocks);
                        if !blocks.is_empty() {
                            return Some(blocks);
                        }
                    }
                }
            }
            let depth = depth + guard;
            let construct = matches!(n, Node::If { .. } | Node::Loop { .. });
            if !construct {
                if let Some(r) = n
                    .bodies()
                    .find_map(|b| deep_region_in(f, breaking, b, depth, cut, max, calls))
                {
                    return Some(r);
                }
                continue;
            }
            if depth < cut {
                if let Some(r) = n
                    .bodies()
                    .find_map(|b| deep_region_in(f, breaking, b, depth + 1, cut, max, calls))
                {
                    return Some(r);
                }
                continue;
            }
            let inlined =
                structurize::nesting_depth_with(breaking, std::slice::from_ref(n), &|b| {
                    calls(f, b)
                });
            if depth + inlined > max {
                let mut blocks = Vec::new();
                n.bodies().for_each(|b| structurize::blocks(b, &mut blocks));
                // a selection that only jumps (a flattened `if` whose arm
                // breaks, its depth counted by the guards after it) has no
                // block to lower: look further
                if !blocks.is_empty() {
                    return Some(blocks);
                }
            }
        }
        None
    })
}

/// Turns the blocks of `region` into the states of one dispatch loop.
///
/// Where some of its blocks are *heavy* (`heavy`: their code, once the back
/// end and the driver are done, may hold a loop construct: a call of a
/// function with loops, an atomic, a reduction) and others are not, the
/// loop is two: an inner one runs the rounds of the light states, and the
/// heavy ones run after it, once per trip of an outer loop. llvmpipe costs
/// a trip of its loop cap for every loop construct its code passes, taken
/// or not (docs/control-flow.md, "Loop caps"), so a round through a chain
/// with heavy states cost every one of their loops; now only the outer
/// trips do, and a lane reaches the outer loop's heavy states only when its
/// path leads there. The setters also set `$nestout` (1: the target is a
/// heavy state or an exit), which ends the inner loop once no lane of the
/// SIMD vector has a light state left.
fn dispatch(f: &mut Function, region: &[BlockId], heavy: &dyn Fn(&Function, BlockId) -> bool) {
    let n = region.len();
    let (light, weighty): (Vec<BlockId>, Vec<BlockId>) =
        region.iter().partition(|&&b| !heavy(f, b));
    let two_level = !light.is_empty() && !weighty.is_empty();
    let order: Vec<BlockId> = if two_level {
        light.iter().chain(&weighty).copied().collect()
    } else {
        region.to_vec()
    };
    let light_n = if two_level { light.len() } else { n };
    let mut state: Vec<Option<u32>> = vec![None; f.blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        state[b.index()] = Some(i as u32);
    }
    let mut exit: Vec<Option<u32>> = vec![None; f.blocks.len()];
    let mut exits = Vec::new();
    for &b in &order {
        for s in f.successors(b).collect::<Vec<_>>() {
            if state[s.index()].is_none() && exit[s.index()].is_none() {
                exit[s.index()] = Some(exits.len() as u32);
                exits.push(s);
            }
        }
    }
    let reg = f.new_reg(
        format!("{STATE_PREFIX}{}", f.regs.len()),
        RegKind::Value(Ty::scalar(32)),
    );
    let which = f.new_reg(
        format!("{STATE_PREFIX}exit{}", f.regs.len()),
        RegKind::Value(Ty::scalar(32)),
    );
    let out = two_level.then(|| {
        f.new_reg(
            format!("{STATE_PREFIX}out{}", f.regs.len()),
            RegKind::Value(Ty::scalar(32)),
        )
    });
    let is = f.new_reg(format!("$is{}", f.regs.len()), RegKind::Pred);
    let span = f.blocks[order[0].index()].term_span;
    let test = |src: RegId, value: u32, then: BlockId, otherwise: BlockId| Block {
        label: None,
        insts: vec![Inst::TestConst {
            dst: is,
            src,
            value,
        }],
        term: Terminator::Branch {
            cond: Cond {
                pred: is,
                negate: false,
            },
            then,
            otherwise,
        },
        term_span: span,
    };
    // the blocks: [the outer loop's head], the light states' tests, [the
    // inner loop's end, the heavy states' tests], the last test, the exits'
    // tests. Test i runs state i when `$nest == i` and goes on to the next
    // test, where the state's setters also go; after the last test, the
    // region is left when `$nest == n`, else the next round starts
    let base = f.blocks.len() as u32;
    let tests = base + u32::from(two_level);
    let test_at = |i: usize| BlockId(tests + i as u32 + u32::from(two_level && i >= light_n));
    let inner_end = BlockId(tests + light_n as u32);
    let after = |i: usize| {
        if two_level && i + 1 == light_n {
            inner_end
        } else {
            test_at(i + 1)
        }
    };
    let restart = if two_level { BlockId(base) } else { test_at(0) };
    let leave = BlockId(test_at(n).0 + 1);
    if two_level {
        f.blocks.push(Block {
            label: None,
            insts: Vec::new(),
            term: Terminator::Goto(test_at(0)),
            term_span: span,
        });
    }
    for (i, &b) in order.iter().enumerate() {
        if let (Some(out), true) = (out, i == light_n) {
            f.blocks.push(test(out, 1, test_at(light_n), test_at(0)));
        }
        f.blocks.push(test(reg, i as u32, b, after(i)));
    }
    if exits.is_empty() {
        f.blocks.push(Block {
            label: None,
            insts: Vec::new(),
            term: Terminator::Goto(restart),
            term_span: span,
        });
    } else {
        f.blocks.push(test(reg, n as u32, leave, restart));
        // after the loop: `$nestexit` picks the exit
        for (k, _) in exits.iter().enumerate().skip(1) {
            let next = if k + 1 < exits.len() {
                BlockId(leave.0 + k as u32)
            } else {
                exits[k]
            };
            f.blocks.push(test(which, k as u32 - 1, exits[k - 1], next));
        }
        if exits.len() == 1 {
            f.blocks.push(Block {
                label: None,
                insts: Vec::new(),
                term: Terminator::Goto(exits[0]),
                term_span: span,
            });
        }
    }
    // every edge into the region and out of it through a setter block of
    // its own (one predecessor each: a shared setter would be a merge
    // block, one level of nesting each): from outside to the first test
    // (the outer loop's head), from state i to the test after it
    let entry = restart;
    for p in (0..base).map(BlockId) {
        let from = state[p.index()];
        let mut term = f.blocks[p.index()].term.clone();
        let redirect = |t: &mut BlockId, f: &mut Function| {
            let mut insts = match (from, state[t.index()], exit[t.index()]) {
                (_, Some(j), _) => vec![Inst::SetConst { dst: reg, value: j }],
                (Some(_), None, Some(k)) => vec![
                    Inst::SetConst {
                        dst: reg,
                        value: n as u32,
                    },
                    Inst::SetConst {
                        dst: which,
                        value: k,
                    },
                ],
                _ => return,
            };
            if let Some(out) = out {
                let outside = state[t.index()].is_none_or(|j| j as usize >= light_n);
                insts.push(Inst::SetConst {
                    dst: out,
                    value: u32::from(outside),
                });
            }
            let next = match from {
                Some(i) => after(i as usize),
                None => entry,
            };
            f.blocks.push(Block {
                label: None,
                insts,
                term: Terminator::Goto(next),
                term_span: span,
            });
            *t = BlockId(f.blocks.len() as u32 - 1);
        };
        match &mut term {
            Terminator::Goto(t) => redirect(t, f),
            Terminator::Branch {
                then, otherwise, ..
            } => {
                redirect(then, f);
                redirect(otherwise, f);
            }
            _ => continue,
        }
        f.blocks[p.index()].term = term;
    }
}
