//! The walk order of a function's structured form: where the diverged lanes
//! of a sub-group reconverge (`crate::exec::subgroup`).
//!
//! The definition (docs/spec-notes.md, "Sub-groups") is structured
//! reconvergence: each function's control flow is arranged into nested
//! constructs by the same structurizer the Vulkan back end uses
//! ([`pisa_translator::ir::structurize`], printed by `pisa ir --structured`),
//! and the lanes of a sub-group walk that tree in order. A lane runs an op
//! when the walk reaches the place it is at; lanes at the same place run it
//! together. A place is a *walk key*: for each enclosing loop (outermost
//! first) its position in the tree and the lane's iteration of it, then the
//! position of the op's block and the op's index. So lanes that leave a
//! construct early wait at its end for the others, lanes that `continue` a
//! loop wait for the lanes still in this iteration, and the lanes of an
//! `if`'s two arms run one arm after the other.
//!
//! This module computes, per op, the tree position of its block and the
//! loops around it; the keys themselves are built per lane at run time.

use pisa_translator::ir::structurize::{structurize, Node};
use pisa_translator::ir::Function;

/// A loop of the structured tree around a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopAt {
    /// The loop's position in the tree's walk order.
    pub order: u32,
    /// The op index where its header block starts.
    pub header: u32,
}

/// The walk positions of one function's ops.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Per op: the walk position of its block ([`UNPLACED`] for a block
    /// the tree does not hold: unreachable code).
    pub order: Vec<u32>,
    /// Per op: index into [`Walk::paths`], the loops around its block.
    pub path: Vec<u32>,
    /// Distinct loop nests, outermost loop first (`paths[0]` is empty).
    pub paths: Vec<Vec<LoopAt>>,
}

/// The position of code the structured tree does not hold.
pub const UNPLACED: u32 = u32::MAX;

impl Walk {
    /// The walk of `f`, whose ops are its blocks one after the other, each
    /// block's instructions and then its terminator (`crate::decode`).
    pub fn compute(f: &Function) -> Result<Walk, String> {
        let tree = structurize(f).map_err(|e| e.to_string())?;
        let mut starts = Vec::with_capacity(f.blocks.len());
        let mut n = 0u32;
        for b in &f.blocks {
            starts.push(n);
            n += b.insts.len() as u32 + 1;
        }
        let mut block_order = vec![UNPLACED; f.blocks.len()];
        let mut block_path = vec![0u32; f.blocks.len()];
        let mut cx = Numbering {
            starts: &starts,
            next: 0,
            block_order: &mut block_order,
            block_path: &mut block_path,
            paths: vec![Vec::new()],
        };
        cx.nodes(&tree, 0);
        let paths = cx.paths;
        let mut walk = Walk {
            order: Vec::with_capacity(n as usize),
            path: Vec::with_capacity(n as usize),
            paths,
        };
        for (b, block) in f.blocks.iter().enumerate() {
            for _ in 0..block.insts.len() + 1 {
                walk.order.push(block_order[b]);
                walk.path.push(block_path[b]);
            }
        }
        Ok(walk)
    }

    /// The loops around op `pc`, outermost first.
    pub fn loops(&self, pc: u32) -> &[LoopAt] {
        self.path
            .get(pc as usize)
            .and_then(|&p| self.paths.get(p as usize))
            .map_or(&[], |v| v.as_slice())
    }

    /// The walk position of op `pc`'s block.
    pub fn order(&self, pc: u32) -> u32 {
        self.order.get(pc as usize).copied().unwrap_or(UNPLACED)
    }
}

struct Numbering<'a> {
    starts: &'a [u32],
    next: u32,
    block_order: &'a mut [u32],
    block_path: &'a mut [u32],
    paths: Vec<Vec<LoopAt>>,
}

impl Numbering<'_> {
    /// Numbers `nodes` in pre-order; `path`: the loops around them.
    fn nodes(&mut self, nodes: &[Node], path: u32) {
        pisa_translator::ir::stack_safe(|| {
            for n in nodes {
                match n {
                    Node::Code(b) => {
                        let i = b.index();
                        // each block is in the tree once; keep the first
                        // place should that ever change
                        if self.block_order[i] == UNPLACED {
                            self.block_order[i] = self.next;
                            self.block_path[i] = path;
                        }
                        self.next += 1;
                    }
                    Node::Loop { label, body } => {
                        let at = LoopAt {
                            order: self.next,
                            header: self.starts[label.index()],
                        };
                        self.next += 1;
                        let mut inner = self.paths[path as usize].clone();
                        inner.push(at);
                        self.paths.push(inner);
                        let inner = self.paths.len() as u32 - 1;
                        self.nodes(body, inner);
                    }
                    n => {
                        self.next += 1;
                        for body in n.bodies() {
                            self.nodes(body, path);
                        }
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pisa_translator::ir;

    /// `entry; loop H { body; if p { A } ; latch } ; exit` numbered in tree
    /// order, with the loop around exactly the blocks inside it.
    #[test]
    fn blocks_are_numbered_in_tree_order_with_their_loops() {
        let src = ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\t.reg .32b %i;\n\t.pred %p;\n\tmov.32b %i, 0;\nH:\n\tiadd.32b %i, %i, 1;\n\tucmp.lt.32b %p, %i, 3;\n\tgoto.cond %p, A;\n\tgoto L;\nA:\n\tiadd.32b %i, %i, 2;\nL:\n\tucmp.lt.32b %p, %i, 10;\n\tgoto.cond %p, H;\n\treturn;\n}\n";
        let m = pisa_translator::assemble("t.pisa", src).expect("assembles");
        let p = ir::build(&m);
        let f = &p.functions[0];
        let w = Walk::compute(f).expect("structures");
        let starts: Vec<u32> = f
            .blocks
            .iter()
            .scan(0u32, |n, b| {
                let s = *n;
                *n += b.insts.len() as u32 + 1;
                Some(s)
            })
            .collect();
        let by_label = |name: &str| {
            let b = f
                .blocks
                .iter()
                .position(|b| b.label.is_some_and(|l| p.name(l) == name))
                .expect("the label's block");
            starts[b]
        };
        let (h, a, l) = (by_label("H"), by_label("A"), by_label("L"));
        // every op of a block has the block's position and loops
        for pc in 0..w.order.len() as u32 {
            assert_ne!(w.order(pc), UNPLACED, "op {pc} is placed");
        }
        assert!(w.order(0) < w.order(h) && w.order(h) < w.order(a) && w.order(a) < w.order(l));
        let lp = w.loops(h);
        assert_eq!(lp.len(), 1);
        assert_eq!(lp[0].header, h);
        assert!(lp[0].order < w.order(h));
        assert_eq!(w.loops(a), lp);
        assert_eq!(w.loops(l), lp);
        assert!(w.loops(0).is_empty());
        // the return after the loop: outside it, after every block in it
        let r = f
            .blocks
            .iter()
            .position(|b| matches!(b.term, ir::Terminator::Return { .. }))
            .expect("the return's block");
        let ret = starts[r];
        assert!(w.loops(ret).is_empty() && w.order(ret) > w.order(l));
    }
}
