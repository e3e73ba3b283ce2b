//! Immediate dominators (Cooper, Harvey and Kennedy, "A Simple, Fast
//! Dominance Algorithm", iterating over reverse postorder).

use super::Cfg;
use crate::ir::BlockId;

pub struct Dominators {
    /// Immediate dominator of each reachable block; the entry's is itself.
    pub idom: Vec<Option<BlockId>>,
}

impl Dominators {
    pub fn compute(cfg: &Cfg) -> Dominators {
        let n = cfg.len();
        let mut idom: Vec<Option<BlockId>> = vec![None; n];
        let Some(&entry) = cfg.rpo.first() else {
            return Dominators { idom };
        };
        // the iteration runs on positions in reverse postorder (`dom[r]`:
        // the rank of the immediate dominator of the block of rank `r`,
        // `UNSET` before it has one): one array walked in order, no
        // lookups of ranks by block in the intersections
        const UNSET: u32 = u32::MAX;
        let mut dom = vec![UNSET; cfg.rpo.len()];
        dom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for (r, &b) in cfg.rpo.iter().enumerate().skip(1) {
                let mut new = UNSET;
                // latest predecessors first: the running intersection then
                // only moves up, so a block with many predecessors along one
                // chain (every early exit of a function to one label) costs
                // linear time, not quadratic
                for &p in cfg.preds(b).iter().rev() {
                    let p = cfg.rank(p);
                    if dom[p as usize] == UNSET {
                        continue;
                    }
                    new = if new == UNSET {
                        p
                    } else {
                        intersect(&dom, p, new)
                    };
                }
                if new != UNSET && dom[r] != new {
                    dom[r] = new;
                    changed = true;
                }
            }
        }
        idom[entry.index()] = Some(entry);
        for (r, &b) in cfg.rpo.iter().enumerate().skip(1) {
            if dom[r] != UNSET {
                idom[b.index()] = Some(cfg.rpo[dom[r] as usize]);
            }
        }
        Dominators { idom }
    }

    /// `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x.index()] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom[b.index()].filter(|&p| p != b)
    }
}

/// The nearest common dominator of the blocks of ranks `a` and `b`.
fn intersect(dom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = dom[a as usize];
        }
        while b > a {
            b = dom[b as usize];
        }
    }
    a
}
