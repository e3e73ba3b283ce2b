//! Predecessors and the reverse postorder of the blocks reachable from the
//! entry.
//!
//! Every list is one vector with offsets (compressed rows), not a vector
//! per block: a large function has a block every few instructions, and an
//! allocation per block (and its free) cost more than the walk itself.

use crate::ir::{BlockId, Function};

pub struct Cfg {
    /// Block `b`'s predecessors are `pred_list[pred_start[b]..pred_start[b + 1]]`
    /// (reachable blocks only list reachable predecessors).
    pred_start: Vec<u32>,
    pred_list: Vec<BlockId>,
    /// Reachable blocks in reverse postorder; the entry first.
    pub rpo: Vec<BlockId>,
    /// Position of each block in `rpo` (`u32::MAX`: unreachable).
    order: Vec<u32>,
}

/// Every node's successors in one vector.
struct Successors {
    /// Node `i`'s successors are `list[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    list: Vec<BlockId>,
}

impl Successors {
    fn new<I: IntoIterator<Item = BlockId>>(n: usize, succ: impl Fn(BlockId) -> I) -> Self {
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n * 2);
        start.push(0);
        for b in 0..n as u32 {
            list.extend(succ(BlockId(b)));
            start.push(list.len() as u32);
        }
        Successors { start, list }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn of(&self, b: BlockId) -> &[BlockId] {
        &self.list[self.start[b.index()] as usize..self.start[b.index() + 1] as usize]
    }
}

impl Cfg {
    pub fn compute(f: &Function) -> Cfg {
        Cfg::of_lists(
            Successors::new(f.blocks.len(), |b| f.successors(b)),
            BlockId::ENTRY,
        )
    }

    /// The same for any graph of `n` nodes given by its successor lists
    /// (post-dominators use the reversed CFG).
    pub fn of_graph<I: IntoIterator<Item = BlockId>>(
        n: usize,
        entry: BlockId,
        succ: impl Fn(BlockId) -> I,
    ) -> Cfg {
        Cfg::of_lists(Successors::new(n, succ), entry)
    }

    fn of_lists(succs: Successors, entry: BlockId) -> Cfg {
        let n = succs.len();
        let mut order = vec![u32::MAX; n];
        let mut post = Vec::with_capacity(n);
        if n > 0 {
            // iterative DFS: (block, next successor index); `order` marks
            // the blocks seen (any value but MAX) until the ranks are set
            let mut stack: Vec<(BlockId, u32)> = vec![(entry, 0)];
            order[entry.index()] = 0;
            while let Some(&mut (b, ref mut next)) = stack.last_mut() {
                let s = succs.of(b).get(*next as usize).copied();
                *next += 1;
                match s {
                    Some(s) if order[s.index()] == u32::MAX => {
                        order[s.index()] = 0;
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
            order[b.index()] = i as u32;
        }
        // predecessors in reverse postorder of the predecessor, each once
        // (`last[s] == b`: `b` already listed as a predecessor of `s`; a
        // block's successors may repeat one block): counted, then placed
        let mut last = vec![u32::MAX; n];
        let mut pred_start = vec![0u32; n + 1];
        for &b in &post {
            for &s in succs.of(b) {
                if last[s.index()] != b.0 {
                    last[s.index()] = b.0;
                    pred_start[s.index() + 1] += 1;
                }
            }
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill: Vec<u32> = pred_start[..n].to_vec();
        let mut pred_list = vec![BlockId(0); pred_start[n] as usize];
        last.fill(u32::MAX);
        for &b in &post {
            for &s in succs.of(b) {
                if last[s.index()] != b.0 {
                    last[s.index()] = b.0;
                    pred_list[fill[s.index()] as usize] = b;
                    fill[s.index()] += 1;
                }
            }
        }
        Cfg {
            pred_start,
            pred_list,
            rpo: post,
            order,
        }
    }

    /// The number of blocks (reachable or not).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The predecessors of `b`, in reverse postorder (none for an
    /// unreachable block).
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.pred_list
            [self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }

    pub fn reachable(&self, b: BlockId) -> bool {
        self.order[b.index()] != u32::MAX
    }

    /// Position in reverse postorder (unreachable blocks sort last).
    pub fn rank(&self, b: BlockId) -> u32 {
        self.order[b.index()]
    }

    /// An edge to a block no later in reverse postorder: a back edge in a
    /// reducible graph.
    pub fn is_retreating(&self, from: BlockId, to: BlockId) -> bool {
        self.rank(to) <= self.rank(from)
    }
}
