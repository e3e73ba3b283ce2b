//! Large programs (the long tail of the size distribution, and the
//! large-graph tier): the kernel gets a *spine* of 60–150 nested
//! constructs (counted loops, ifs, labelled blocks, irreducible cycles),
//! random goto graphs ([`Stmt::Graph`]) and long loops hung off it, about
//! 100–400 blocks in all. Mesa's gallivm ignored control flow nested deeper
//! than 80 levels (docs/control-flow.md, "Nesting cap"); the generator had
//! never nested deeper than its `max_depth`.
//!
//! What keeps a large program terminating and inside lavapipe's loop cap
//! (65,535 loop trips per invocation, docs/abi.md): spine loops run once or
//! twice (their product at most [`MULT_CAP`]), goto graphs stop after their
//! fuel, and the estimated trips of the kernel (`FnCx::iters`, which counts
//! every loop iteration and graph step times the trips of what encloses it)
//! stay below [`TRIP_BUDGET`]. What keeps the deep code running: the
//! statements before each level's inner construct never break, continue or
//! return, the ifs of the spine mostly test conditions that hold for all
//! but one work-item or work-group, and irreducible cycles carry the spine in
//! the part every round runs.

use super::{Gen, LoopCx};
use crate::program::*;

/// The most loop trips the estimate of a large kernel may reach, for one
/// work-item. lavapipe counts trips per SIMD vector of 8 work-items, which
/// run the union of their paths: where divergent work-items take their
/// trips in different iterations of an enclosing loop (goto graphs,
/// breaks and continues of outer loops), the vector's trips approach the
/// sum of its work-items'. Its cap of 65,535 also counts every run-once
/// construct the back end emits as a loop. A budget of 20,000 ran into the cap (seed 1 of
/// the tier's first version).
pub const TRIP_BUDGET: u32 = 6_000;

/// The largest product of the counts of the spine's enclosing loops.
pub const MULT_CAP: u32 = 4;

/// The spine levels that may carry long loops.
const LONG_LOOP_LEVELS: u64 = 24;

/// Salt of the stream that decides whether a seed's program is large (a
/// stream of its own, so that the programs of other seeds stay as they
/// were before large programs existed).
const LARGE_SALT: u64 = 0x4c41_5247_4547_5246;

/// Whether the program of `seed` is large under `permille`.
pub(crate) fn is_large(seed: u64, permille: u32) -> bool {
    crate::rng::Rng::new(seed ^ LARGE_SALT).below(1000) < permille as u64
}

/// Where along the spine the long loops and goto graphs go.
struct Plan {
    long_loops: Vec<u32>,
    graphs: Vec<u32>,
}

impl Gen<'_> {
    /// The large part of the kernel (see the module docs).
    pub(crate) fn large_part(&mut self) -> Vec<Stmt> {
        // levels - 1 nested constructs
        let levels = self.rng.range(61, 150);
        let n_long = self.rng.range(1, 2);
        let n_graphs = self.rng.range(1, 2);
        // long loops high up, where the spine is not yet lowered to a
        // dispatch loop (`ir::shallow` cuts at depth 32): lowered, every
        // trip would run the dispatch chain's test of every block
        let plan = Plan {
            long_loops: (0..n_long)
                .map(|_| self.rng.below(LONG_LOOP_LEVELS) as u32)
                .collect(),
            graphs: (0..n_graphs)
                .map(|_| self.rng.below(levels as u64) as u32)
                .collect(),
        };
        let budget = self.f.budget;
        self.f.budget = i32::MAX / 2;
        let out = self.spine(0, levels, &plan);
        self.f.budget = budget;
        out
    }

    /// Filler statements that never leave the code after them unreached.
    fn straight(&mut self, n: u32) -> Vec<Stmt> {
        let exits = self.f.no_exits;
        self.f.no_exits = true;
        let out = self.block(n);
        self.f.no_exits = exits;
        out
    }

    /// Spine level `at` of `levels`: filler, the long loops and goto graphs
    /// planned here, the construct holding the next level, more filler.
    fn spine(&mut self, at: u32, levels: u32, plan: &Plan) -> Vec<Stmt> {
        let n = u32::from(self.rng.chance(0.5));
        let mut out = self.straight(n);
        for _ in plan.long_loops.iter().filter(|&&l| l == at) {
            if let Some(s) = self.long_loop() {
                out.push(s);
            }
        }
        for _ in plan.graphs.iter().filter(|&&l| l == at) {
            if let Some(s) = self.graph() {
                out.push(s);
            }
        }
        if at + 1 < levels {
            let inner = match self.rng.below(100) {
                0..=34 => self.spine_loop(at, levels, plan),
                35..=64 => self.spine_if(at, levels, plan),
                65..=84 => self.spine_block(at, levels, plan),
                _ if self.cfg.irreducible => self.spine_irreducible(at, levels, plan),
                _ => self.spine_block(at, levels, plan),
            };
            out.push(inner);
        }
        // anything goes after the inner construct
        if self.rng.chance(0.15) {
            out.extend(self.block(1));
        }
        out
    }

    fn spine_loop(&mut self, at: u32, levels: u32, plan: &Plan) -> Stmt {
        let m = self.f.mult.max(1);
        let count = if m * 2 <= MULT_CAP && self.rng.chance(0.3) {
            2
        } else {
            1
        };
        let id = self.id();
        let body_uniform = self.f.uniform && self.rng.chance(0.6);
        self.f.loops.push(LoopCx { id, body_uniform });
        self.f.mult = m * count;
        // each iteration and the exit
        self.f.iters += m * (count + 1);
        let body = self.nested(body_uniform, |g| g.spine(at + 1, levels, plan));
        self.f.mult = m;
        self.f.loops.pop();
        Stmt::Loop {
            id,
            count,
            bottom_test: self.rng.chance(0.4),
            body,
        }
    }

    /// A condition that holds for all but (at most) one work-item, or for
    /// all but one work-group (uniform), so that the spine below it runs.
    fn mostly_true(&mut self, uniform: bool) -> Cond {
        let a = if uniform {
            *self.rng.pick(&["%u1", "%u3"])
        } else {
            *self.rng.pick(&["%gid", "%lid", "%u1", "%u3"])
        };
        Cond::Cmp {
            op: "ucmp.ne.32b".into(),
            a: Operand::Named(a.into()),
            b: Operand::Imm(self.rng.below(64)),
            neg: false,
        }
    }

    fn spine_if(&mut self, at: u32, levels: u32, plan: &Plan) -> Stmt {
        let id = self.id();
        let uniform = self.f.uniform && self.rng.chance(0.5);
        let cond = if self.rng.chance(0.05) {
            if uniform {
                self.uniform_cond()
            } else {
                self.any_cond()
            }
        } else {
            self.mostly_true(uniform)
        };
        let then_ = self.nested(uniform, |g| g.spine(at + 1, levels, plan));
        let else_ = if self.rng.chance(0.3) {
            let n = self.rng.range(1, 2);
            self.nested(uniform, |g| g.block(n))
        } else {
            Vec::new()
        };
        Stmt::If {
            id,
            cond,
            then_,
            else_,
        }
    }

    fn spine_block(&mut self, at: u32, levels: u32, plan: &Plan) -> Stmt {
        let id = self.id();
        let body_uniform = self.f.uniform;
        self.f.loops.push(LoopCx { id, body_uniform });
        self.f.iters += self.f.mult.max(1);
        let body = self.nested(body_uniform, |g| g.spine(at + 1, levels, plan));
        self.f.loops.pop();
        Stmt::Block { id, body }
    }

    fn spine_irreducible(&mut self, at: u32, levels: u32, plan: &Plan) -> Stmt {
        let m = self.f.mult.max(1);
        let count = if m * 2 <= MULT_CAP && self.rng.chance(0.3) {
            2
        } else {
            1
        };
        let id = self.id();
        let enter_b = self.any_cond();
        let floor = self.f.loop_floor;
        self.f.mult = m * count;
        self.f.iters += m * (count + 1);
        self.f.loop_floor = self.f.loops.len();
        let na = self.rng.range(1, 2);
        let a = self.nested(false, |g| g.block(na));
        // every round runs `b`: the spine goes on there
        let b = self.nested(false, |g| g.spine(at + 1, levels, plan));
        self.f.mult = m;
        self.f.loop_floor = floor;
        Stmt::Irreducible {
            id,
            count,
            enter_b,
            a,
            b,
        }
    }

    /// A loop of hundreds to thousands of trips (what the trip budget
    /// leaves), with a short body of filler.
    fn long_loop(&mut self) -> Option<Stmt> {
        let m = self.f.mult.max(1);
        let room = TRIP_BUDGET.saturating_sub(self.f.iters) / m / 2;
        if room < 100 {
            return None;
        }
        let wanted = self.rng.range(100, 2000).min(room);
        let id = self.id();
        let body_uniform = self.f.uniform && self.rng.chance(0.5);
        self.f.loops.push(LoopCx { id, body_uniform });
        // the body first, charged for one trip, so that what its trips cost
        // beyond the loop's own (folds over the lanes, inner graphs) bounds
        // the count
        let before = self.f.iters;
        self.f.mult = m;
        let n = self.rng.range(2, 5);
        let body = self.nested(body_uniform, |g| g.block(n));
        let per_trip = 1 + self.f.iters.saturating_sub(before) / m;
        let count = wanted.min(room / per_trip).max(1);
        self.f.iters = before.saturating_add(m.saturating_mul(count.saturating_mul(per_trip) + 1));
        self.f.mult = m;
        self.f.loops.pop();
        Some(Stmt::Loop {
            id,
            count,
            bottom_test: self.rng.chance(0.4),
            body,
        })
    }

    /// A random goto graph of 8–16 nodes (see [`Stmt::Graph`]).
    fn graph(&mut self) -> Option<Stmt> {
        let m = self.f.mult.max(1);
        let nodes = self.rng.range(8, 16);
        // a step may also leave the run-once constructs the structurizer
        // builds around the graph's blocks: charge four trips a step
        let room = TRIP_BUDGET.saturating_sub(self.f.iters) / m / 4;
        let fuel = self.rng.range(nodes, 2 * nodes).min(room);
        if fuel < nodes {
            return None;
        }
        let id = self.id();
        let floor = self.f.loop_floor;
        self.f.loop_floor = self.f.loops.len();
        self.f.mult = m * fuel;
        self.f.iters += m * fuel * 4;
        let n = nodes as usize;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let k = self.rng.range(0, 1);
            let body = self.nested(false, |g| g.block(k));
            let cond = self.any_cond();
            let to = if self.rng.chance(0.5) {
                self.rng.below(i as u64 + 1) as usize
            } else {
                self.rng.below(n as u64 + 1) as usize
            };
            let next = if self.rng.chance(0.7) {
                i + 1
            } else {
                self.rng.below(n as u64 + 1) as usize
            };
            out.push(GraphNode {
                body,
                cond,
                to,
                next,
            });
        }
        self.f.mult = m;
        self.f.loop_floor = floor;
        Some(Stmt::Graph {
            id,
            fuel,
            nodes: out,
        })
    }
}
