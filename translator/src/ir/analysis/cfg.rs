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

/// Every node's successors in one vector (a large function has a block
/// every few instructions: no allocation per block).
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
    pub fn of_graph(n: usize, entry: BlockId, succ: impl Fn(BlockId) -> Vec<BlockId>) -> Cfg {
        Cfg::of_lists(Successors::new(n, succ), entry)
    }

    fn of_lists(succs: Successors, entry: BlockId) -> Cfg {
        let n = succs.len();
        let mut order = vec![None; n];
        let mut post = Vec::with_capacity(n);
        if n > 0 {
            // iterative DFS: (block, next successor index)
            let mut seen = vec![false; n];
            let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
            seen[entry.index()] = true;
            while let Some(&mut (b, ref mut next)) = stack.last_mut() {
                let s = succs.of(b).get(*next).copied();
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
            for &s in succs.of(b) {
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
