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
//! [`MAX_NESTING`], the construct that starts at depth [`CUT_DEPTH`] on the
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
//! The cost is one iteration of the dispatch loop per backward jump taken
//! in `R` (about one per iteration of a loop of `R`, as before). Every back end
//! sees the lowered function (`ir::build` runs this pass), so the cpu device
//! walks the same tree for sub-group reconvergence as the Vulkan code runs.

use super::structurize::{self, Node};
use super::*;

/// The deepest nesting of constructs (selections, loops, blocks that need a
/// construct) the structured form of a function is given: 80 is the most
/// lavapipe handles, and the back end may add a level (`ir::unroll`).
pub const MAX_NESTING: usize = 64;

/// Where an over-deep tree is cut: the construct starting at this depth is
/// lowered to a state machine. Leaves room below [`MAX_NESTING`] for the
/// dispatch loop and for the blocks after it that its exits break to.
pub const CUT_DEPTH: usize = 32;

/// The name prefix of the registers this pass adds (the structurizer
/// recognises its tests and setters by it, [`flatten_rule`]).
pub const STATE_PREFIX: &str = "$nest";

/// Lowers the over-deep parts of `f`'s structured form to state machines
/// (see the module docs). `f` must be reducible.
pub fn limit_nesting(f: &mut Function) {
    // every level of nesting has its own block (a loop header, a branch, or
    // a merge block; a block can be all three)
    if f.blocks.len().saturating_mul(3) <= MAX_NESTING {
        return;
    }
    // each round lowers one construct and adds no deeper one; the bound
    // only guards against a bug turning into a hang (the back end then
    // refuses the function as nested too deep)
    for _ in 0..f.blocks.len() + 16 {
        let Ok(tree) = structurize::structurize(f) else {
            return;
        };
        if structurize::nesting_depth(&tree) <= MAX_NESTING {
            return;
        }
        let Some(region) = deep_region(&tree, 0) else {
            return;
        };
        dispatch(f, &region);
    }
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

/// The blocks of the first construct that starts at [`CUT_DEPTH`] and
/// nests deeper than [`MAX_NESTING`] in all (`depth`: the constructs
/// around `nodes`).
fn deep_region(nodes: &[Node], depth: usize) -> Option<Vec<BlockId>> {
    stack_safe(|| {
        for n in nodes {
            let construct = match n {
                Node::If { .. } | Node::Loop { .. } => true,
                Node::Block { breaks, .. } => *breaks,
                _ => continue,
            };
            if !construct {
                if let Some(r) = n.bodies().find_map(|b| deep_region(b, depth)) {
                    return Some(r);
                }
                continue;
            }
            if depth < CUT_DEPTH {
                if let Some(r) = n.bodies().find_map(|b| deep_region(b, depth + 1)) {
                    return Some(r);
                }
                continue;
            }
            if depth + structurize::nesting_depth(std::slice::from_ref(n)) > MAX_NESTING {
                let mut blocks = Vec::new();
                n.bodies().for_each(|b| structurize::blocks(b, &mut blocks));
                return Some(blocks);
            }
        }
        None
    })
}

/// Turns the blocks of `region` into the states of one dispatch loop.
fn dispatch(f: &mut Function, region: &[BlockId]) {
    let n = region.len();
    let mut state: Vec<Option<u32>> = vec![None; f.blocks.len()];
    for (i, &b) in region.iter().enumerate() {
        state[b.index()] = Some(i as u32);
    }
    let mut exit: Vec<Option<u32>> = vec![None; f.blocks.len()];
    let mut exits = Vec::new();
    for &b in region {
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
    let is = f.new_reg(format!("$is{}", f.regs.len()), RegKind::Pred);
    let span = f.blocks[region[0].index()].term_span;
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
    // the round: test i runs state i when `$nest == i` and goes on to test
    // i + 1, where the state's setters also go; after the last test, the
    // region is left when `$nest == n`, else the next round starts
    let first = BlockId(f.blocks.len() as u32);
    let test_at = |i: usize| BlockId(first.0 + i as u32);
    let leave = test_at(n + 1);
    for (i, &b) in region.iter().enumerate() {
        f.blocks.push(test(reg, i as u32, b, test_at(i + 1)));
    }
    if exits.is_empty() {
        f.blocks.push(Block {
            label: None,
            insts: Vec::new(),
            term: Terminator::Goto(first),
            term_span: span,
        });
    } else {
        f.blocks.push(test(reg, n as u32, leave, first));
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
    // block, one level of nesting each): from outside to the first test,
    // from state i to test i + 1
    for p in (0..first.0).map(BlockId) {
        let from = state[p.index()];
        let mut term = f.blocks[p.index()].term.clone();
        let redirect = |t: &mut BlockId, f: &mut Function| {
            let insts = match (from, state[t.index()], exit[t.index()]) {
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
            let next = match from {
                Some(i) => test_at(i as usize + 1),
                None => first,
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
