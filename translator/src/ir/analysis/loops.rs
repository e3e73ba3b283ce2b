//! Natural loops of a reducible graph: for each back edge `u → h` (where `h`
//! dominates `u`), the blocks that reach `u` without passing through `h`.
//! Also tells whether the graph is reducible at all: it is when every
//! retreating edge (in reverse postorder) goes to a block that dominates its
//! source. Natural loops of a reducible graph nest; the nesting is kept so
//! that "the loops around this block" costs its depth, not the loop count.

use super::{Cfg, Dominators};
use crate::ir::{BlockId, Function};

pub struct Loops {
    /// Loop headers in reverse postorder (outer loops first).
    pub headers: Vec<BlockId>,
    /// A retreating edge whose target does not dominate its source.
    pub irreducible_edge: Option<(BlockId, BlockId)>,
    /// Per block: the loop it heads (index into `headers`; [`NONE`]: none).
    /// (`u32`s, not `Option<usize>`s: a quarter of the memory, for a
    /// vector per block.)
    headed: Vec<u32>,
    /// Per block: the innermost loop that contains it ([`NONE`]: none).
    innermost: Vec<u32>,
    /// Per loop: the loop around it.
    parent: Vec<Option<usize>>,
    /// Per loop: how many loops are around it and it (1 for an outermost).
    depth: Vec<u32>,
}

/// No loop (in [`Loops`]'s per-block vectors).
const NONE: u32 = u32::MAX;

/// `Some(l)` for a loop index, `None` for [`NONE`].
fn some(l: u32) -> Option<usize> {
    (l != NONE).then_some(l as usize)
}

impl Loops {
    pub fn compute(f: &Function, cfg: &Cfg, dom: &Dominators) -> Loops {
        let n = f.blocks.len();
        // the back edges, grouped by header (outer loops first: their
        // headers come first in reverse postorder)
        let mut back: Vec<(BlockId, BlockId)> = Vec::new();
        let mut irreducible_edge = None;
        for &u in &cfg.rpo {
            for h in f.successors(u) {
                if !cfg.is_retreating(u, h) {
                    continue;
                }
                if !dom.dominates(h, u) {
                    irreducible_edge.get_or_insert((u, h));
                    continue;
                }
                back.push((h, u));
            }
        }
        back.sort_by_key(|&(h, _)| cfg.rank(h));
        let mut headers: Vec<BlockId> = Vec::new();
        let mut headed = vec![NONE; n];
        let mut innermost = vec![NONE; n];
        let mut parent = Vec::new();
        let mut depth = Vec::new();
        // per block, the last loop whose body took it (a stamp: no set per
        // loop, a large function has a loop every few blocks)
        let mut seen: Vec<u32> = vec![u32::MAX; n];
        let mut work = Vec::new();
        let mut i = 0;
        while i < back.len() {
            let h = back[i].0;
            let l = headers.len();
            headers.push(h);
            headed[h.index()] = l as u32;
            // the loops around it were all computed before (outer first)
            let around = some(innermost[h.index()]);
            parent.push(around);
            depth.push(around.map_or(1, |p: usize| depth[p] + 1));
            seen[h.index()] = l as u32;
            innermost[h.index()] = l as u32;
            while i < back.len() && back[i].0 == h {
                work.push(back[i].1);
                i += 1;
            }
            // the blocks that reach a back edge's source without passing
            // through the header
            while let Some(x) = work.pop() {
                if seen[x.index()] != l as u32 {
                    seen[x.index()] = l as u32;
                    innermost[x.index()] = l as u32;
                    work.extend(cfg.preds(x).iter().copied());
                }
            }
        }
        Loops {
            headers,
            irreducible_edge,
            headed,
            innermost,
            parent,
            depth,
        }
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.headed[b.index()] != NONE
    }

    /// Whether `b` is in the loop headed by `header` (false where
    /// `header` heads none).
    pub fn contains(&self, header: BlockId, b: BlockId) -> bool {
        let Some(l) = some(self.headed[header.index()]) else {
            return false;
        };
        let mut x = some(self.innermost[b.index()]);
        while let Some(i) = x {
            // a loop's index is above those of the loops around it
            if i <= l {
                return i == l;
            }
            x = self.parent[i];
        }
        false
    }

    /// The outermost loop around `a` that does not contain `b`.
    pub fn outermost_left(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        // loops nest: those around `a` without `b` are the ones below the
        // innermost loop around both (where the two chains of loops meet)
        let depth = |l: Option<usize>| l.map_or(0, |i| self.depth[i]);
        let up = |l: Option<usize>| l.and_then(|i| self.parent[i]);
        let (mut x, mut y) = (
            some(self.innermost[a.index()]),
            some(self.innermost[b.index()]),
        );
        let mut below = None;
        while depth(x) > depth(y) {
            below = x;
            x = up(x);
        }
        while depth(y) > depth(x) {
            y = up(y);
        }
        while x != y {
            below = x;
            x = up(x);
            y = up(y);
        }
        below.map(|i| self.headers[i])
    }
}
