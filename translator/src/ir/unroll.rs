//! Unrolls small innermost loops of the structured tree, so that one back
//! edge runs several iterations.
//!
//! Why: Mesa's llvmpipe (lavapipe, the CI driver) ends all loops of an
//! invocation after 65,535 back edges in total (docs/abi.md). With the body
//! repeated [`FACTOR`] times a loop of a million iterations stays under that
//! cap; loops longer than the cap × the factor are still detected and
//! reported by the back end, never cut short silently. Drivers of real GPUs
//! unroll by themselves, and a bounded copy costs them little. Loops with
//! barriers or calls are left alone (see [`calls_or_barriers`]).
//!
//! Loops whose trips [`trips::trip_bound`] shows to be at most
//! [`MAX_FULL_TRIPS`] are unrolled completely instead: no loop construct is
//! left, so they cost no trip of the cap at all (a loop construct costs
//! llvmpipe at least one trip every time its code is reached, even under a
//! mask no lane is in: docs/control-flow.md, "Loop caps"). An outer loop
//! whose inner loops all went that way is then innermost itself.
//!
//! How: `loop h { B }` becomes `loop h { block c1 { B₁ }  …  block cₖ₋₁ { Bₖ₋₁ }  B }`
//! where in each copy `Bᵢ` a `continue h` is a jump to the end of its block
//! (the next copy) and falling off the end leaves the loop, as it did.

mod trips;

use super::structurize::{strip_tail_branches, Label, Node};
use super::{BlockId, Function, Inst, Opcode};

/// Copies of a loop body per back edge.
pub const FACTOR: u32 = 16;
/// Bodies with more instructions than this stay as they are.
pub const MAX_BODY: usize = 48;
/// Loops of at most this many trips (a proven bound) are unrolled
/// completely, if their body is at most [`MAX_BODY`] instructions.
pub const MAX_FULL_TRIPS: u32 = 8;

pub fn unroll_loops(f: &Function, nodes: &mut [Node]) {
    unroll_loops_except(f, nodes, &|_| false);
}

/// Like [`unroll_loops`], but leaves alone loops with a block for which
/// `keep` holds (the SPIR-V back end keeps loops with sub-group sync points:
/// each copy would cost their barriers whether lanes run it or not).
pub fn unroll_loops_except(f: &Function, nodes: &mut [Node], keep: &dyn Fn(BlockId) -> bool) {
    let mut next_label = f.blocks.len() as u32;
    unroll_in(f, nodes, None, &mut next_label, keep);
}

/// `entry`: the block whose end control leaves to enter `nodes`, where
/// that is one block.
fn unroll_in(
    f: &Function,
    nodes: &mut [Node],
    entry: Option<BlockId>,
    next_label: &mut u32,
    keep: &dyn Fn(BlockId) -> bool,
) {
    super::stack_safe(|| {
        for i in 0..nodes.len() {
            // the code control falls from into node i
            let from = match i.checked_sub(1).map(|j| &nodes[j]) {
                None => entry,
                Some(Node::Code(b)) => Some(*b),
                Some(_) => None,
            };
            let n = &mut nodes[i];
            match n {
                Node::Loop { label, body } => {
                    if contains_loop(body) {
                        unroll_in(f, body, None, next_label, keep);
                    }
                    if contains_loop(body)
                        || size(f, body) > MAX_BODY
                        || calls_or_barriers(f, body)
                        || kept(body, keep)
                    {
                        continue;
                    }
                    let h = *label;
                    match trips::trip_bound(f, h, from, body, MAX_FULL_TRIPS) {
                        Some(trips) => *n = unrolled_fully(h, body, trips, next_label),
                        None => *body = unrolled(h, body, next_label),
                    }
                }
                Node::Block { body, .. } => unroll_in(f, body, from, next_label, keep),
                Node::If {
                    then, otherwise, ..
                } => {
                    unroll_in(f, then, from, next_label, keep);
                    unroll_in(f, otherwise, from, next_label, keep);
                }
                _ => {}
            }
        }
    })
}

fn unrolled(h: BlockId, body: &[Node], next_label: &mut u32) -> Vec<Node> {
    let mut out = Vec::new();
    for _ in 1..FACTOR {
        // labels past the function's blocks name no block: only jumps use them
        let c = BlockId(*next_label);
        *next_label += 1;
        let mut copy = body.to_vec();
        retarget(&mut copy, Label::Loop(h), Label::Merge(c));
        // falling off the end of a copy leaves the loop (it would go to the
        // next copy): say so at each place that falls off
        append_at_fall_off(&mut copy, Node::Br(Label::Exit(h)));
        out.push(Node::Block {
            label: c,
            body: copy,
            breaks: true,
        });
    }
    out.extend(body.iter().cloned());
    strip_tail_branches(&mut out);
    out
}

/// `loop h { B }` that makes at most `trips` trips as
/// `block e { block c1 { B₁ } … block cₜ₋₁ { Bₜ₋₁ } Bₜ }` with no loop:
/// in copy `Bᵢ` a `continue h` goes to the next copy, a `break` of `h` and
/// falling off the end to the end of `e`; the last copy's `continue`s are
/// unreachable (the bound says no path takes them).
fn unrolled_fully(h: BlockId, body: &[Node], trips: u32, next_label: &mut u32) -> Node {
    let mut fresh = || {
        *next_label += 1;
        BlockId(*next_label - 1)
    };
    let e = fresh();
    let mut out = Vec::new();
    for t in 1..=trips {
        let mut copy = body.to_vec();
        retarget(&mut copy, Label::Exit(h), Label::Merge(e));
        if t < trips {
            let c = fresh();
            retarget(&mut copy, Label::Loop(h), Label::Merge(c));
            append_at_fall_off(&mut copy, Node::Br(Label::Merge(e)));
            out.push(Node::Block {
                label: c,
                body: copy,
                breaks: true,
            });
        } else {
            replace_br(&mut copy, Label::Loop(h), &Node::Unreachable);
            out.extend(copy);
        }
    }
    let mut whole = vec![Node::Block {
        label: e,
        body: out,
        breaks: true,
    }];
    strip_tail_branches(&mut whole);
    whole.pop().expect("one node")
}

fn retarget(nodes: &mut [Node], from: Label, to: Label) {
    super::stack_safe(|| {
        for n in nodes {
            match n {
                Node::Br(l) if *l == from => *l = to,
                n => n.bodies_mut().for_each(|b| retarget(b, from, to)),
            }
        }
    })
}

fn replace_br(nodes: &mut [Node], from: Label, to: &Node) {
    super::stack_safe(|| {
        for n in nodes {
            match n {
                Node::Br(l) if *l == from => *n = to.clone(),
                n => n.bodies_mut().for_each(|b| replace_br(b, from, to)),
            }
        }
    })
}

/// Appends `br` where control reaches the end of `nodes`: into both arms of
/// a final `if`, so that a copy whose arms are `continue`/`leave` needs no
/// construct (a loop construct costs one tick of llvmpipe's loop cap; a
/// copy itself is a block, which costs none: docs/control-flow.md).
fn append_at_fall_off(nodes: &mut Vec<Node>, br: Node) {
    super::stack_safe(|| match nodes.last_mut() {
        Some(Node::Br(_) | Node::Return { .. } | Node::Unreachable) => {}
        Some(Node::If {
            then, otherwise, ..
        }) => {
            append_at_fall_off(then, br.clone());
            append_at_fall_off(otherwise, br);
        }
        _ => nodes.push(br),
    })
}

/// Loops with a barrier (or a call, which may reach one) usually run a
/// few times (a tree reduction's steps), and on llvmpipe every barrier
/// site is a coroutine suspension point: copying them costs more than the
/// back edges it saves.
fn calls_or_barriers(f: &Function, nodes: &[Node]) -> bool {
    let mut code = Vec::new();
    super::structurize::blocks(nodes, &mut code);
    code.iter().any(|&b| {
        f.block(b).insts.iter().any(|i| match i {
            Inst::Pisa(p) => matches!(p.opcode, Opcode::BarrierWorkgroup | Opcode::Call),
            _ => false,
        })
    })
}

fn kept(nodes: &[Node], keep: &dyn Fn(BlockId) -> bool) -> bool {
    let mut code = Vec::new();
    super::structurize::blocks(nodes, &mut code);
    code.into_iter().any(keep)
}

fn contains_loop(nodes: &[Node]) -> bool {
    super::stack_safe(|| {
        nodes
            .iter()
            .any(|n| matches!(n, Node::Loop { .. }) || n.bodies().any(|b| contains_loop(b)))
    })
}

/// Instructions in `nodes` (what copying them costs).
fn size(f: &Function, nodes: &[Node]) -> usize {
    super::stack_safe(|| {
        nodes
            .iter()
            .map(|n| match n {
                Node::Code(b) => f
                    .block(*b)
                    .insts
                    .iter()
                    .filter(|i| matches!(i, Inst::Pisa(_) | Inst::SetConst { .. }))
                    .count(),
                Node::Block { body, .. } | Node::Loop { body, .. } => size(f, body),
                Node::If {
                    then, otherwise, ..
                } => 1 + size(f, then) + size(f, otherwise),
                _ => 1,
            })
            .sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = ".version 0.1;\n.target 100;\n";

    /// The kernel `body` (registers `%k`, `%a`, `%n`, predicate `%p`) as a
    /// function with its structured tree.
    fn tree(body: &str) -> (Function, Vec<Node>) {
        let src = format!(
            "{HEAD}.kernel @k(.param[4] %x)\n{{\n\t.reg .32b %k, %a, %n;\n\t.pred %p;\n\
             \tld.param.32b %n, [%x];\n\tmov.32b %a, 0;\n{body}\treturn;\n}}\n"
        );
        let m = crate::assemble("u.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
        let mut p = crate::ir::build(&m);
        let f = p.functions.swap_remove(0);
        let t = super::super::structurize::structurize(&f).expect("reducible");
        (f, t)
    }

    /// The trip bound of the first loop of the tree.
    fn bound(body: &str) -> Option<u32> {
        fn first(f: &Function, nodes: &[Node], entry: Option<BlockId>) -> Option<Option<u32>> {
            nodes.iter().enumerate().find_map(|(i, n)| {
                let from = match i.checked_sub(1).map(|j| &nodes[j]) {
                    None => entry,
                    Some(Node::Code(b)) => Some(*b),
                    Some(_) => None,
                };
                match n {
                    Node::Loop { label, body } => {
                        Some(trips::trip_bound(f, *label, from, body, MAX_FULL_TRIPS))
                    }
                    Node::Block { body, .. } => first(f, body, from),
                    _ => None,
                }
            })
        }
        let (f, t) = tree(body);
        first(&f, &t, None).expect("a loop")
    }

    fn loops_left(body: &str) -> bool {
        let (f, mut t) = tree(body);
        unroll_loops(&f, &mut t);
        contains_loop(&t)
    }

    const TOP_TEST: &str =
        "\tmov.32b %k, 0;\nhead:\n\tucmp.ge.32b %p, %k, 3;\n\tgoto.cond %p, end;\n\
         \tiadd.32b %a, %a, %n;\n\tiadd.32b %k, %k, 1;\n\tgoto head;\nend:\n";

    #[test]
    fn counted_loops_have_their_trip_counts() {
        // top test: 3 passes through the body and a 4th that leaves
        assert_eq!(bound(TOP_TEST), Some(4));
        // bottom test with a conditional continue before the count
        let bottom = "\tmov.32b %k, 5;\nhead:\n\tucmp.eq.32b %p, %a, %n;\n\tgoto.cond %p, cont;\n\
                      \tiadd.32b %a, %a, 1;\ncont:\n\tiadd.32b %k, %k, -1;\n\
                      \tscmp.gt.32b %p, %k, 3;\n\tgoto.cond %p, head;\n";
        assert_eq!(bound(bottom), Some(2));
        assert!(!loops_left(TOP_TEST));
        assert!(!loops_left(bottom));
    }

    #[test]
    fn loops_without_a_small_proven_bound_stay_loops() {
        let cases = [
            // 9 passes: over the limit
            TOP_TEST.replace(", 3;", ", 8;"),
            // the bound is a register
            TOP_TEST.replace("%k, 3;", "%k, %n;"),
            // the counter starts from a register
            TOP_TEST.replace("mov.32b %k, 0;", "mov.32b %k, %n;"),
            // the counter moves by a register too
            TOP_TEST.replace("\tgoto head;", "\tiadd.32b %k, %k, %n;\n\tgoto head;"),
            // another instruction writes it
            TOP_TEST.replace("\tgoto head;", "\tand.32b %k, %k, %n;\n\tgoto head;"),
            // the counter never reaches the bound (wraps round 2^32 only)
            TOP_TEST.replace("%k, %k, 1;", "%k, %k, 0;"),
        ];
        for c in &cases {
            assert_eq!(bound(c), None, "{c}");
            assert!(loops_left(c), "{c}");
        }
    }
}
