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
//! How: `loop h { B }` becomes `loop h { block c1 { B₁ }  …  block cₖ₋₁ { Bₖ₋₁ }  B }`
//! where in each copy `Bᵢ` a `continue h` is a jump to the end of its block
//! (the next copy) and falling off the end leaves the loop, as it did.

use super::structurize::{strip_tail_branches, Label, Node};
use super::{BlockId, Function, Inst, Opcode};

/// Copies of a loop body per back edge.
pub const FACTOR: u32 = 16;
/// Bodies with more instructions than this stay as they are.
pub const MAX_BODY: usize = 48;

pub fn unroll_loops(f: &Function, nodes: &mut [Node]) {
    unroll_loops_except(f, nodes, &|_| false);
}

/// Like [`unroll_loops`], but leaves alone loops with a block for which
/// `keep` holds (the SPIR-V back end keeps loops with sub-group sync points:
/// each copy would cost their barriers whether lanes run it or not).
pub fn unroll_loops_except(f: &Function, nodes: &mut [Node], keep: &dyn Fn(BlockId) -> bool) {
    let mut next_label = f.blocks.len() as u32;
    unroll_in(f, nodes, &mut next_label, keep);
}

fn unroll_in(
    f: &Function,
    nodes: &mut [Node],
    next_label: &mut u32,
    keep: &dyn Fn(BlockId) -> bool,
) {
    super::stack_safe(|| {
        for n in nodes.iter_mut() {
            match n {
                Node::Loop { label, body } => {
                    if contains_loop(body) {
                        unroll_in(f, body, next_label, keep);
                    } else if size(f, body) <= MAX_BODY
                        && !calls_or_barriers(f, body)
                        && !kept(body, keep)
                    {
                        *body = unrolled(*label, body, next_label);
                    }
                }
                Node::Block { body, .. } => unroll_in(f, body, next_label, keep),
                Node::If {
                    then, otherwise, ..
                } => {
                    unroll_in(f, then, next_label, keep);
                    unroll_in(f, otherwise, next_label, keep);
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
