//! Post-dominators of a function's op graph: where the diverged lanes of a
//! sub-group reconverge (`crate::exec::subgroup`).
//!
//! The graph has one node per decoded op and a virtual exit. Edges: `Jump`
//! to its target, `Branch` to both targets, `Return` and `Unreachable` to
//! the exit, every other op (calls included) to the next op. The immediate
//! post-dominator of a branch is the first op every path from it to the
//! exit passes through: the classic SIMT reconvergence point.

use crate::decode::{Kind, Op};

/// The virtual exit (the post-dominator of ops from which every path
/// leaves the function), and the answer for ops that cannot reach the exit
/// (an endless loop: lanes there never finish, so they never reconverge).
pub const EXIT: u32 = u32::MAX;

/// The successors of op `pc`, [`EXIT`] for the exit.
fn successors(op: &Op, pc: u32, n: u32) -> ([u32; 2], usize) {
    let next = |p: u32| if p < n { p } else { EXIT };
    match &op.kind {
        Kind::Jump(t) => ([next(*t), 0], 1),
        Kind::Branch {
            then, otherwise, ..
        } => ([next(*then), next(*otherwise)], 2),
        Kind::Return(_) | Kind::Unreachable => ([EXIT, 0], 1),
        // the last op of a function is a terminator; `next` only guards
        // against a malformed graph
        _ => ([next(pc + 1), 0], 1),
    }
}

/// The immediate post-dominator of every op of a function ([`EXIT`] when it
/// is the exit, or when the op cannot reach the exit). Cooper, Harvey and
/// Kennedy's iterative dominator algorithm on the reversed graph.
pub fn ipdoms(ops: &[Op]) -> Vec<u32> {
    let n = ops.len() as u32;
    // node `n` is the exit
    let exit = n as usize;
    let succ: Vec<([u32; 2], usize)> = ops
        .iter()
        .enumerate()
        .map(|(pc, op)| successors(op, pc as u32, n))
        .collect();
    let node = |s: u32| if s == EXIT { exit } else { s as usize };
    // predecessors: the successors of the reversed graph
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); exit + 1];
    for (pc, (s, k)) in succ.iter().enumerate() {
        for &t in &s[..*k] {
            let t = node(t);
            if !preds[t].contains(&pc) {
                preds[t].push(pc);
            }
        }
    }
    // postorder of a depth-first walk of the reversed graph from the exit
    const UNSEEN: usize = usize::MAX;
    let mut po = vec![UNSEEN; exit + 1];
    let mut order = Vec::with_capacity(exit + 1);
    let mut seen = vec![false; exit + 1];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&p) = preds[v].get(*i) {
            *i += 1;
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            po[v] = order.len();
            order.push(v);
            stack.pop();
        }
    }
    const NONE: usize = usize::MAX;
    let mut idom = vec![NONE; exit + 1];
    idom[exit] = exit;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while po[a] < po[b] {
                a = idom[a];
            }
            while po[b] < po[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        // reverse postorder, the exit (last in postorder) excluded
        for &v in order.iter().rev().skip(1) {
            let (s, k) = succ[v];
            let mut new = NONE;
            for &t in &s[..k] {
                let t = node(t);
                if idom[t] == NONE {
                    continue;
                }
                new = if new == NONE {
                    t
                } else {
                    intersect(&idom, t, new)
                };
            }
            if new != NONE && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    (0..exit)
        .map(|v| match idom[v] {
            d if d == NONE || d == exit => EXIT,
            d => d as u32,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Quals;

    fn op(kind: Kind) -> Op {
        Op {
            kind,
            q: Quals::default(),
            ops: Vec::new(),
            site: 0,
        }
    }
    /// A straight-line op.
    fn s() -> Op {
        op(Kind::SetConst { dst: 0, value: 0 })
    }
    fn jump(t: u32) -> Op {
        op(Kind::Jump(t))
    }
    fn br(then: u32, otherwise: u32) -> Op {
        op(Kind::Branch {
            pred: 0,
            neg: false,
            then,
            otherwise,
        })
    }
    fn ret() -> Op {
        op(Kind::Return(None))
    }

    #[test]
    fn if_else_reconverges_at_the_join() {
        //                0          1    2        3    4        5
        let f = [br(1, 3), s(), jump(5), s(), jump(5), ret()];
        assert_eq!(ipdoms(&f), vec![5, 2, 5, 4, 5, EXIT]);
    }

    #[test]
    fn if_without_else_reconverges_at_the_target() {
        let f = [br(1, 3), s(), jump(3), s(), ret()];
        assert_eq!(ipdoms(&f), vec![3, 2, 3, 4, EXIT]);
    }

    #[test]
    fn a_loop_exit_reconverges_after_the_loop() {
        // 0: head, 1: back or out, 2: after the loop
        let f = [s(), br(0, 2), s(), ret()];
        assert_eq!(ipdoms(&f), vec![1, 2, 3, EXIT]);
        // a break in the middle of the body
        let f = [s(), br(4, 2), s(), jump(0), ret()];
        assert_eq!(ipdoms(&f)[1], 4);
    }

    #[test]
    fn an_early_return_reconverges_at_the_exit() {
        let f = [br(1, 2), ret(), s(), ret()];
        assert_eq!(ipdoms(&f), vec![EXIT, EXIT, 3, EXIT]);
        let f = [s(), br(2, 3), op(Kind::Unreachable), ret()];
        assert_eq!(ipdoms(&f)[1], EXIT);
    }

    #[test]
    fn calls_and_other_ops_fall_through() {
        let mut call = s();
        call.kind = Kind::Pisa(pisa_translator::ir::Opcode::Call);
        let f = [br(1, 2), call, s(), ret()];
        assert_eq!(ipdoms(&f), vec![2, 2, 3, EXIT]);
    }

    #[test]
    fn an_endless_path_does_not_block_the_other() {
        // 1 loops forever: the branch reconverges where the other path goes
        let f = [br(1, 2), jump(1), s(), ret()];
        assert_eq!(ipdoms(&f), vec![2, EXIT, 3, EXIT]);
        // nothing reaches the exit
        let f = [br(1, 2), jump(0), jump(0)];
        assert_eq!(ipdoms(&f), vec![EXIT; 3]);
    }

    #[test]
    fn irreducible_regions_reconverge_after_them() {
        // 1 and 2 jump into each other; both leave to 3
        let f = [br(1, 2), br(2, 3), br(1, 3), ret()];
        assert_eq!(ipdoms(&f), vec![3, 3, 3, EXIT]);
    }

    #[test]
    fn nested_branches_reconverge_inside_out() {
        // if (a) { if (b) { 2 } 3 } 4
        let f = [br(1, 4), br(2, 3), s(), s(), ret()];
        assert_eq!(ipdoms(&f), vec![4, 3, 3, 4, EXIT]);
    }
}
