//! Predecessors and the reverse postorder of the blocks reachable from the
//! entry.

use crate::ir::{BlockId, Function};

pub struct Cfg {
    /// Predecessors of every block (reachable ones only list reachable preds).
    pub preds: Vec<Vec<BlockId>>,
    /// Reachable blocks in reverse postorder; the entry first.
    pub rpo: Vec<BlockId>,
    /// Position of each block in `rpo` (`None`: unreachable).
    pub order: Vec<Option<u32>>,
}

impl Cfg {
    pub fn compute(f: &Function) -> Cfg {
        Cfg::of_graph(f.blocks.len(), BlockId::ENTRY, |b| {
            f.successors(b).collect()
        })
    }

    /// The same for any graph of `n` nodes given by its successor lists
    /// (post-dominators use the reversed CFG).
    pub fn of_graph(n: usize, entry: BlockId, succ: impl Fn(BlockId) -> Vec<BlockId>) -> Cfg {
        let mut order = vec![None; n];
        let mut post = Vec::with_capacity(n);
        let succs: Vec<Vec<BlockId>> = (0..n as u32).map(|b| succ(BlockId(b))).collect();
        if n > 0 {
            // iterative DFS: (block, next successor index)
            let mut seen = vec![false; n];
            let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
            seen[entry.index()] = true;
            while let Some(&mut (b, ref mut next)) = stack.last_mut() {
                let s = succs[b.index()].get(*next).copied();
                *next += 1;
                match s {
                    Some(s) if !seen[s.index()] => {
                        seen[s.index()] = true;
                        stack.push((s, 0));
                    }
                    Some(_) => {}
                    None => {
                        post.push(b);
                        stack.pop();
                    }
                }
            }
        }
        post.reverse();
        for (i, b) in post.iter().enumerate() {
            order[b.index()] = Some(i as u32);
        }
        let mut preds = vec![Vec::new(); n];
        for &b in &post {
            for &s in &succs[b.index()] {
                // a block's two successors may be one block: its entries
                // are consecutive (a `contains` here would be quadratic)
                if preds[s.index()].last() != Some(&b) {
                    preds[s.index()].push(b);
                }
            }
        }
        Cfg {
            preds,
            rpo: post,
            order,
        }
    }

    pub fn reachable(&self, b: BlockId) -> bool {
        self.order[b.index()].is_some()
    }

    /// Position in reverse postorder (unreachable blocks sort last).
    pub fn rank(&self, b: BlockId) -> u32 {
        self.order[b.index()].unwrap_or(u32::MAX)
    }

    /// An edge to a block no later in reverse postorder: a back edge in a
    /// reducible graph.
    pub fn is_retreating(&self, from: BlockId, to: BlockId) -> bool {
        self.rank(to) <= self.rank(from)
    }
}
