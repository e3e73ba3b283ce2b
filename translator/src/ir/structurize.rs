//! Structured control flow for a reducible graph ("Beyond Relooper",
//! Ramsey 2022): the dominator tree is turned into nested constructs.
//!
//! - A loop header becomes a [`Node::Loop`]; a branch back to it is
//!   `Br(Label::Loop(h))` (continue).
//! - A *merge* block — one with two or more forward predecessors — is placed
//!   after a [`Node::Block`] wrapped around the code that reaches it; a
//!   branch to it is `Br(Label::Merge(m))` (exit the block).
//! - A block with one forward predecessor is inlined at its branch.
//! - Blocks that leave a loop are always placed after the loop (as merge
//!   targets), never inside it: every work-item then runs a loop's exit code
//!   once, outside the loop, so a barrier there is one dynamic instance for
//!   the whole work-group, whichever iteration each work-item left in.
//!
//! Finally a `Br` to a block's end that is in tail position (nothing would
//! run between it and the block's end) is removed, so most blocks need no
//! construct at all in the back end: [`Node::Block::breaks`] tells which do.

use super::analysis::{Cfg, Dominators, Loops};
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// The end of the [`Node::Block`] placed before merge block `m`.
    Merge(BlockId),
    /// The start of the [`Node::Loop`] headed by `h`.
    Loop(BlockId),
    /// The end of the [`Node::Loop`] headed by `h` (a `break`): what a
    /// `Br(Merge(m))` becomes where leaving the loop reaches `m` directly.
    Exit(BlockId),
}

#[derive(Debug, Clone)]
pub enum Node {
    /// The instructions of a basic block (its terminator is translated into
    /// the nodes that follow).
    Code(BlockId),
    /// Code whose `Br(Label::Merge(label))` jump to its end. `breaks`: some
    /// such branch is not in tail position (the back end needs a construct).
    Block {
        label: BlockId,
        body: Vec<Node>,
        breaks: bool,
    },
    /// A loop: `Br(Label::Loop(label))` starts the next iteration; falling
    /// off the end of the body leaves the loop.
    Loop {
        label: BlockId,
        body: Vec<Node>,
    },
    If {
        cond: Cond,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
    Br(Label),
    Return {
        value: Option<Operand>,
        span: Span,
    },
    Unreachable,
}

impl Node {
    /// The node sequences directly inside this node (a body, or an `if`'s
    /// two arms), for walks that treat them alike.
    pub fn bodies(&self) -> impl Iterator<Item = &Vec<Node>> {
        let (a, b) = match self {
            Node::Block { body, .. } | Node::Loop { body, .. } => (Some(body), None),
            Node::If {
                then, otherwise, ..
            } => (Some(then), Some(otherwise)),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    pub fn bodies_mut(&mut self) -> impl Iterator<Item = &mut Vec<Node>> {
        let (a, b) = match self {
            Node::Block { body, .. } | Node::Loop { body, .. } => (Some(body), None),
            Node::If {
                then, otherwise, ..
            } => (Some(then), Some(otherwise)),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("control flow of function #{0} is irreducible after the reducibility pass")]
pub struct Irreducible(pub u32);

struct Structurizer<'f> {
    f: &'f Function,
    cfg: Cfg,
    loops: Loops,
    /// Blocks reached by `Br(Merge)`: two or more forward predecessors, or a
    /// loop exit placed after its loop.
    merge: Vec<bool>,
    /// Per block, the merge blocks it places after itself, in reverse
    /// postorder: block `b`'s are `placed[placed_start[b]..placed_start[b + 1]]`
    /// (one vector for all: no allocation per block).
    placed_start: Vec<u32>,
    placed: Vec<BlockId>,
}

/// Structures a reducible function (see [`super::reducible`]).
pub fn structurize(f: &Function) -> Result<Vec<Node>, Irreducible> {
    structurize_bounded(f).map(|(tree, _)| tree)
}

/// [`structurize`], and a bound on the tree's [`nesting_depth`] known
/// without a walk of the tree: `1 + 2h`, where `h` is the height of the
/// tree in bodies (a leaf's is 0, a node's with bodies one more than the
/// highest node in them). A node nests at most two levels per body below
/// it (its own construct and the guard of the sequence it is in), and the
/// top sequence one guard.
pub fn structurize_bounded(f: &Function) -> Result<(Vec<Node>, usize), Irreducible> {
    if f.blocks.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let cfg = Cfg::compute(f);
    let dom = Dominators::compute(&cfg);
    let loops = Loops::compute(f, &cfg, &dom);
    if loops.irreducible_edge.is_some() {
        return Err(Irreducible(f.index));
    }
    let n = f.blocks.len();
    let mut merge = vec![false; n];
    for &b in &cfg.rpo {
        let forward = cfg
            .preds(b)
            .iter()
            .filter(|&&p| !cfg.is_retreating(p, b))
            .count();
        merge[b.index()] = forward >= 2;
    }
    // (parent, merge block) in reverse postorder of the merge blocks, then
    // grouped by parent (a counting sort keeps that order in each group)
    let mut pairs: Vec<(BlockId, BlockId)> = Vec::new();
    for &b in cfg.rpo.iter().skip(1) {
        let Some(idom) = dom.idom(b) else { continue };
        // a loop exit goes after the outermost loop it leaves
        let left = loops.outermost_left(idom, b);
        let parent = match left {
            Some(h) => {
                merge[b.index()] = true;
                h
            }
            None => idom,
        };
        if merge[b.index()] {
            pairs.push((parent, b));
        }
    }
    drop(dom);
    let mut placed_start = vec![0u32; n + 1];
    for &(parent, _) in &pairs {
        placed_start[parent.index() + 1] += 1;
    }
    for i in 0..n {
        placed_start[i + 1] += placed_start[i];
    }
    let mut fill = placed_start[..n].to_vec();
    let mut placed = vec![BlockId(0); pairs.len()];
    for &(parent, b) in &pairs {
        placed[fill[parent.index()] as usize] = b;
        fill[parent.index()] += 1;
    }
    drop((pairs, fill));
    let s = Structurizer {
        f,
        cfg,
        loops,
        merge,
        placed_start,
        placed,
    };
    let mut stack = Stack::default();
    s.tree(BlockId::ENTRY, &mut stack, 0);
    drop(s);
    let height = stack.height.iter().copied().max().unwrap_or(0);
    let mut nodes = stack.nodes;
    // (every block's tail branches are stripped as it is made: what
    // `strip_tail_branches` would do, blocks inside before blocks around)
    nodes.shrink_to_fit();
    Ok((nodes, 1 + 2 * usize::from(height)))
}

/// The nodes of the sequences being built ([`Structurizer`]), with the
/// height of each in bodies (saturating: a bound that only grows).
#[derive(Default)]
struct Stack {
    nodes: Vec<Node>,
    height: Vec<u8>,
}

impl Stack {
    fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Pushes a node without bodies.
    fn push(&mut self, n: Node) {
        self.push_over(n, 0);
    }

    /// Pushes a node whose bodies are `below` high.
    fn push_over(&mut self, n: Node, below: u8) {
        self.nodes.push(n);
        self.height.push(below);
    }

    /// The nodes from `mark` on, as a vector of their own (of exactly
    /// their number: a body is allocated once, at its size), and the
    /// height of a node around them.
    fn take(&mut self, mark: usize) -> (Vec<Node>, u8) {
        let h = self.height.drain(mark..).max().unwrap_or(0);
        (self.nodes.drain(mark..).collect(), h.saturating_add(1))
    }

    /// Moves the last node before those from `mark` on.
    fn rotate_last_to(&mut self, mark: usize) {
        self.nodes[mark..].rotate_right(1);
        self.height[mark..].rotate_right(1);
    }
}

/// A tree [`structurize`] built, with what it read of the function: per
/// block its terminator and [`super::shallow::flatten_rule`] (the CFG, the
/// conditions and return values, and how the dispatch loops' branches are
/// flattened). For the same shape the structurizer builds the same tree, so
/// a later pass may take it instead of structuring the function again
/// ([`Cached::take`]).
#[derive(Debug, Clone)]
pub struct Cached {
    /// `None`: taken unchecked ([`Cached::unchecked`]).
    shape: Option<Vec<(Terminator, Option<bool>)>>,
    tree: Vec<Node>,
}

/// What [`structurize`] reads of `f`.
fn shape(f: &Function) -> Vec<(Terminator, Option<bool>)> {
    f.blocks
        .iter()
        .map(|b| (b.term.clone(), super::shallow::flatten_rule(f, b)))
        .collect()
}

impl Cached {
    /// `tree`, which [`structurize`] built for `f` as it is now.
    pub fn new(f: &Function, tree: Vec<Node>) -> Cached {
        Cached {
            shape: Some(shape(f)),
            tree,
        }
    }

    /// `tree`, for a caller that knows that the function keeps the shape
    /// it was built for until it is taken (the pipeline, where no pass
    /// between `shallow` and `structurize` has anything to rewrite): no
    /// copy of the terminators to compare.
    pub fn unchecked(tree: Vec<Node>) -> Cached {
        Cached { shape: None, tree }
    }

    /// The tree, where `f` still has the shape it was built for; else
    /// `None` (structure `f` again).
    pub fn take(self, f: &Function) -> Option<Vec<Node>> {
        let Some(shape) = self.shape else {
            return Some(self.tree);
        };
        let same = shape.len() == f.blocks.len()
            && shape.iter().zip(&f.blocks).all(|((term, rule), b)| {
                *term == b.term && *rule == super::shallow::flatten_rule(f, b)
            });
        same.then_some(self.tree)
    }
}

/// The tree is built on one stack of nodes, `s`: every sequence is
/// appended to it, and where a sequence ends (a loop's body, a block's, an
/// arm of a selection), its nodes move off the top of the stack into a
/// vector of their own, allocated at their number ([`Stack::take`]). Each node
/// is so moved once, into the body it ends up in, and no body is
/// allocated larger than it is (the bodies grown by pushes had room for
/// four nodes where most have one or two).
impl Structurizer<'_> {
    /// The merge blocks block `x` places after itself.
    fn placed(&self, x: BlockId) -> &[BlockId] {
        &self.placed
            [self.placed_start[x.index()] as usize..self.placed_start[x.index() + 1] as usize]
    }

    /// Appends the code of `x` and of everything it dominates to `s`.
    /// (Sequences are built by appending: the rest of a function after a
    /// merge block is as long as the function, and must not be copied once
    /// per merge block.) The rest of a sequence is a loop here, not a
    /// recursion: each [`Structurizer::step`] returns the block whose tree
    /// follows in `s` at the same depth, so that a chain of 60,000 loops
    /// in a row does not recurse 60,000 deep (tens of MB of stack to touch).
    fn tree(&self, x: BlockId, s: &mut Stack, depth: usize) {
        // deep dominator trees (merges nested in merges) must not overflow
        // the stack; grow it instead
        super::stack_safe(|| {
            let mut next = Some(x);
            while let Some(x) = next {
                next = self.step(x, s, depth);
            }
        })
    }

    /// [`Structurizer::tree`] of `rest`, where there is one.
    fn finish(&self, rest: Option<BlockId>, s: &mut Stack, depth: usize) {
        if let Some(y) = rest {
            self.tree(y, s, depth);
        }
    }

    /// The tree of `x` up to its rest: the block whose tree follows in
    /// `s` (the caller appends it).
    fn step(&self, x: BlockId, s: &mut Stack, depth: usize) -> Option<BlockId> {
        let ys = self.placed(x);
        let mark = s.len();
        if self.loops.is_header(x) {
            let inside = ys.iter().copied().filter(|&y| self.loops.contains(x, y));
            let outside = ys.iter().copied().filter(|&y| !self.loops.contains(x, y));
            let rest = self.code(x, s, depth + 1);
            self.finish(rest, s, depth + 1);
            let rest = self.wrap(mark, inside, s, depth + 1);
            self.finish(rest, s, depth + 1);
            let (body, h) = s.take(mark);
            s.push_over(Node::Loop { label: x, body }, h);
            return self.wrap(mark, outside, s, depth);
        }
        // nothing to wrap: straight on (no copy of a long rest)
        if ys.is_empty() {
            return self.code(x, s, depth);
        }
        let rest = self.code(x, s, depth);
        self.finish(rest, s, depth);
        self.wrap(mark, ys.iter().copied(), s, depth)
    }

    /// Wraps the nodes of `s` from `mark` on: each merge block of `ys`
    /// (earliest innermost) goes after a block around what comes before
    /// it; the last one's tree is the rest (returned).
    fn wrap(
        &self,
        mark: usize,
        ys: impl Iterator<Item = BlockId>,
        s: &mut Stack,
        depth: usize,
    ) -> Option<BlockId> {
        let mut ys = ys.peekable();
        while let Some(y) = ys.next() {
            // `placed` lists them in reverse postorder, earliest first
            debug_assert!(ys
                .peek()
                .is_none_or(|&z| self.cfg.rank(y) < self.cfg.rank(z)));
            let (mut body, h) = s.take(mark);
            // the block is whole: its tail branches go now, while its
            // nodes are in cache (not in a second walk of the whole tree)
            let breaks = strip_block(y, &mut body);
            s.push_over(
                Node::Block {
                    label: y,
                    body,
                    breaks,
                },
                h,
            );
            if ys.peek().is_none() {
                return Some(y);
            }
            self.tree(y, s, depth);
        }
        None
    }

    /// Appends the code of block `x` and what its terminator leads to; the
    /// block whose tree follows is the rest (returned).
    fn code(&self, x: BlockId, s: &mut Stack, depth: usize) -> Option<BlockId> {
        let b = self.f.block(x);
        // every block has its place in the tree, empty ones too: the walk
        // order sub-groups reconverge by (docs/spec-notes.md) gives every
        // block a position (`pisa_interp::walk`)
        s.push(Node::Code(x));
        match &b.term {
            Terminator::Goto(t) => self.branch(x, *t, s),
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => self.selection(x, *cond, (*then, *otherwise), s, depth),
            Terminator::Return { value, span } => {
                s.push(Node::Return {
                    value: value.clone(),
                    span: *span,
                });
                None
            }
            Terminator::Unreachable => {
                s.push(Node::Unreachable);
                None
            }
        }
    }

    /// Appends `if cond { then } else { otherwise }` to `s`, flattened
    /// where an arm always jumps away: `if cond { jump }` followed by the
    /// other arm. A chain of early exits (`return.cond`, `goto.cond EXIT` in
    /// a row) thus stays flat instead of nesting one selection per exit.
    /// Arms that end in a `return` or `continue` are always flattened (they
    /// need no construct); arms that end in a jump to a block's end only
    /// past [`FLATTEN_DEPTH`], since that jump then needs the block to be a
    /// construct. The arm that follows is built in place (a chain's rest is
    /// as long as the chain: copying it per exit would be quadratic).
    fn selection(
        &self,
        x: BlockId,
        cond: Cond,
        (then, otherwise): (BlockId, BlockId),
        s: &mut Stack,
        depth: usize,
    ) -> Option<BlockId> {
        // the dispatch loops of over-deep regions have their own rule
        // (`ir::shallow`)
        let deep =
            super::shallow::flatten_rule(self.f, self.f.block(x)).unwrap_or(depth >= FLATTEN_DEPTH);
        let t_at = s.len();
        let rest = self.branch(x, then, s);
        self.finish(rest, s, depth + 1);
        if ends_in_jump(&s.nodes[t_at..], deep) {
            let (t, h) = s.take(t_at);
            s.push_over(
                Node::If {
                    cond,
                    then: t,
                    otherwise: Vec::new(),
                },
                h,
            );
            return self.branch(x, otherwise, s);
        }
        let e_at = s.len();
        let rest = self.branch(x, otherwise, s);
        self.finish(rest, s, depth + 1);
        if ends_in_jump(&s.nodes[e_at..], deep) {
            let (e, h) = s.take(e_at);
            s.push_over(
                Node::If {
                    cond: Cond {
                        negate: !cond.negate,
                        ..cond
                    },
                    then: e,
                    otherwise: Vec::new(),
                },
                h,
            );
            // the `if` before the then-arm's nodes, which stay in place
            // (moved up by one, not copied out and back)
            s.rotate_last_to(t_at);
        } else {
            let (e, he) = s.take(e_at);
            let (t, ht) = s.take(t_at);
            s.push_over(
                Node::If {
                    cond,
                    then: t,
                    otherwise: e,
                },
                he.max(ht),
            );
        }
        None
    }

    /// A jump from `from` to `to`: a branch node, or `to` as the rest
    /// (returned) where `to` is not placed elsewhere.
    fn branch(&self, from: BlockId, to: BlockId, s: &mut Stack) -> Option<BlockId> {
        if self.cfg.is_retreating(from, to) {
            s.push(Node::Br(Label::Loop(to)));
        } else if self.merge[to.index()] {
            s.push(Node::Br(Label::Merge(to)));
        } else {
            return Some(to);
        }
        None
    }
}

/// Selections nested deeper than this are flattened where an arm jumps
/// away (SPIR-V allows 1,023 levels of nesting, and drivers recurse over it).
pub const FLATTEN_DEPTH: usize = 32;

/// Whether `nodes` always ends in a jump that leaves no construct behind
/// (`return`, `unreachable`, `continue`) or, with `any_jump`, any jump.
fn ends_in_jump(nodes: &[Node], any_jump: bool) -> bool {
    match nodes.last() {
        Some(Node::Return { .. } | Node::Unreachable | Node::Br(Label::Loop(_))) => true,
        Some(Node::Br(_)) => any_jump,
        Some(Node::If {
            then, otherwise, ..
        }) => ends_in_jump(then, any_jump) && ends_in_jump(otherwise, any_jump),
        _ => false,
    }
}

/// The nodes of a tree that may jump out of themselves to the end of an
/// enclosing [`Node::Block`] (a `Br(Label::Merge(m))` inside the node whose
/// block encloses the node), found by address in one walk of the whole tree.
///
/// The back end emits no construct for a block: a jump to its end sets the
/// function's `pending` variable, and the nodes that follow a *breaking*
/// node in the same sequence run under a test of it (a *guard*, one level
/// of selection; `spirv::control`). Loop constructs are what drivers count
/// against a loop cap, and llvmpipe counts one trip for every pass through
/// a loop construct, even one that runs once: a block inside a long loop
/// cost a trip per iteration (the large-graph tier's loop-cap errors,
/// docs/control-flow.md "Blocks without loop constructs").
pub struct Breaking(rustc_hash::FxHashSet<usize>);

impl Breaking {
    /// The breaking nodes of `tree` (a whole function's tree: a jump out of
    /// a part given alone would not count).
    pub fn of(tree: &[Node]) -> Breaking {
        fn walk(
            nodes: &[Node],
            blocks: &mut Vec<BlockId>,
            out: &mut rustc_hash::FxHashSet<usize>,
        ) -> usize {
            super::stack_safe(|| {
                let mut least = usize::MAX;
                for n in nodes {
                    // the outermost enclosing block `n` jumps to the end of
                    // (its place in `blocks`)
                    let target = match n {
                        Node::Br(Label::Merge(m)) => {
                            blocks.iter().rposition(|b| b == m).unwrap_or(usize::MAX)
                        }
                        Node::Block {
                            label,
                            body,
                            breaks: true,
                        } => {
                            blocks.push(*label);
                            let t = walk(body, blocks, out);
                            blocks.pop();
                            t
                        }
                        _ => n
                            .bodies()
                            .map(|b| walk(b, blocks, out))
                            .min()
                            .unwrap_or(usize::MAX),
                    };
                    if target < blocks.len() {
                        out.insert(n as *const Node as usize);
                    }
                    least = least.min(target);
                }
                least
            })
        }
        let mut out = rustc_hash::FxHashSet::default();
        walk(tree, &mut Vec::new(), &mut out);
        Breaking(out)
    }

    /// Whether `n` (a node of the tree this was computed for) may jump to
    /// the end of a block around it.
    pub fn contains(&self, n: &Node) -> bool {
        self.0.contains(&(n as *const Node as usize))
    }

    /// The nodes of a sequence with the levels of guard around each: 0 up
    /// to and including the first breaking node, 1 after it.
    pub fn levels<'n>(&'n self, nodes: &'n [Node]) -> impl Iterator<Item = (&'n Node, usize)> {
        let mut after = false;
        nodes.iter().map(move |n| {
            let level = usize::from(after);
            after |= self.contains(n);
            (n, level)
        })
    }
}

/// The deepest nesting of constructs in a function's tree as the back end
/// emits it: selections, loops, and the guards after breaking nodes
/// ([`Breaking`]); a [`Node::Block`] is no construct.
pub fn nesting_depth(tree: &[Node]) -> usize {
    nesting_depth_calls(tree, &|_| 0)
}

/// [`nesting_depth`] of a function's tree, a block's code counting
/// `code(b)` levels: the same as [`nesting_depth_with`] on
/// [`Breaking::of`], in one walk and without the set of breaking nodes
/// (whether a node breaks is known when its walk returns, before the
/// nodes after it, which its guard nests, are walked).
pub fn nesting_depth_calls(tree: &[Node], code: &dyn Fn(BlockId) -> usize) -> usize {
    /// (the outermost enclosing block the nodes jump to the end of, as in
    /// [`Breaking::of`]; their nesting depth)
    fn walk(
        nodes: &[Node],
        blocks: &mut Vec<BlockId>,
        code: &dyn Fn(BlockId) -> usize,
    ) -> (usize, usize) {
        super::stack_safe(|| {
            let mut least = usize::MAX;
            let mut depth = 0;
            let mut guard = 0;
            for n in nodes {
                let (target, d) = match n {
                    Node::Br(Label::Merge(m)) => {
                        (blocks.iter().rposition(|b| b == m).unwrap_or(usize::MAX), 0)
                    }
                    Node::Block {
                        label,
                        body,
                        breaks: true,
                    } => {
                        blocks.push(*label);
                        let r = walk(body, blocks, code);
                        blocks.pop();
                        r
                    }
                    Node::Block { body, .. } => walk(body, blocks, code),
                    Node::Loop { body, .. } => {
                        let (t, d) = walk(body, blocks, code);
                        (t, 1 + d)
                    }
                    Node::If {
                        then, otherwise, ..
                    } => {
                        let (t, a) = walk(then, blocks, code);
                        let (e, b) = walk(otherwise, blocks, code);
                        (t.min(e), 1 + a.max(b))
                    }
                    Node::Code(b) => (usize::MAX, code(*b)),
                    _ => (usize::MAX, 0),
                };
                depth = depth.max(guard + d);
                if target < blocks.len() {
                    guard = 1;
                }
                least = least.min(target);
            }
            (least, depth)
        })
    }
    walk(tree, &mut Vec::new(), code).1
}

/// [`nesting_depth`] of a part of a tree whose breaking nodes are
/// `breaking`, a block's code counting `code` levels (what its calls nest,
/// once a driver inlines them).
pub fn nesting_depth_with(
    breaking: &Breaking,
    nodes: &[Node],
    code: &dyn Fn(BlockId) -> usize,
) -> usize {
    super::stack_safe(|| {
        breaking
            .levels(nodes)
            .map(|(n, guard)| {
                guard
                    + match n {
                        Node::If {
                            then, otherwise, ..
                        } => {
                            1 + nesting_depth_with(breaking, then, code)
                                .max(nesting_depth_with(breaking, otherwise, code))
                        }
                        Node::Loop { body, .. } => 1 + nesting_depth_with(breaking, body, code),
                        Node::Block { body, .. } => nesting_depth_with(breaking, body, code),
                        Node::Code(b) => code(*b),
                        _ => 0,
                    }
            })
            .max()
            .unwrap_or(0)
    })
}

/// Removes the `Br(Merge(l))` that sit in tail position of block `l` and
/// records in `breaks` whether any other remain.
pub fn strip_tail_branches(nodes: &mut [Node]) {
    super::stack_safe(|| {
        for n in nodes.iter_mut() {
            match n {
                Node::Block {
                    label,
                    body,
                    breaks,
                    ..
                } => {
                    strip_tail_branches(body);
                    *breaks = strip_block(*label, body);
                }
                Node::Loop { body, .. } => strip_tail_branches(body),
                Node::If {
                    then, otherwise, ..
                } => {
                    strip_tail_branches(then);
                    strip_tail_branches(otherwise);
                }
                _ => {}
            }
        }
    })
}

/// Removes the `Br(Merge(label))` in tail position of the body of block
/// `label` (whose inner blocks were done) and turns those in a loop in
/// tail position into breaks; whether any other remain (the block
/// `breaks`).
fn strip_block(label: BlockId, body: &mut Vec<Node>) -> bool {
    let l = Label::Merge(label);
    strip_tail(body, l);
    exits_to_breaks(body, l, None, true);
    mentions(body, l)
}

/// Removes `Br(l)` where falling off the end of `nodes` goes to the same
/// place (ifs fall to their end, loops fall out).
fn strip_tail(nodes: &mut Vec<Node>, l: Label) {
    super::stack_safe(|| match nodes.last_mut() {
        Some(Node::Br(x)) if *x == l => {
            nodes.pop();
        }
        Some(Node::If {
            then, otherwise, ..
        }) => {
            strip_tail(then, l);
            strip_tail(otherwise, l);
        }
        Some(Node::Loop { body, .. }) => strip_tail(body, l),
        Some(Node::Block { body, .. }) => strip_tail(body, l),
        _ => {}
    })
}

/// Turns `Br(l)` inside a loop whose end reaches `l`'s end directly (the
/// loop is in tail position) into `Br(Exit(loop))`: a plain `break` instead
/// of a jump through the enclosing block. `lp` is the innermost such loop.
fn exits_to_breaks(nodes: &mut [Node], l: Label, lp: Option<BlockId>, tail: bool) {
    super::stack_safe(|| {
        let last = nodes.len().saturating_sub(1);
        for (i, n) in nodes.iter_mut().enumerate() {
            let t = tail && i == last;
            match n {
                Node::Br(x) if *x == l => {
                    if let Some(h) = lp {
                        *x = Label::Exit(h);
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    exits_to_breaks(then, l, lp, t);
                    exits_to_breaks(otherwise, l, lp, t);
                }
                Node::Block { body, .. } => exits_to_breaks(body, l, lp, t),
                Node::Loop { label, body } => {
                    let inner = if t { Some(*label) } else { lp };
                    exits_to_breaks(body, l, inner, t);
                }
                _ => {}
            }
        }
    })
}

fn mentions(nodes: &[Node], l: Label) -> bool {
    super::stack_safe(|| {
        nodes.iter().any(|n| match n {
            Node::Br(x) => *x == l,
            n => n.bodies().any(|b| mentions(b, l)),
        })
    })
}

/// The structured tree as text (blocks `bbN`, predicates `rN`), for golden
/// tests.
pub fn print(nodes: &[Node]) -> String {
    let mut out = String::new();
    print_nodes(&mut out, nodes, 0, None);
    out
}

/// Source names for [`print_named`]: per block a suffix (` (label)` or
/// nothing), per register its display name.
pub struct TreeNames {
    pub blocks: Vec<String>,
    pub regs: Vec<String>,
}

/// The structured tree with the source's labels and register names, for
/// `pisa ir --structured` (the tree sub-groups reconverge by).
pub fn print_named(nodes: &[Node], names: &TreeNames) -> String {
    let mut out = String::new();
    print_nodes(&mut out, nodes, 0, Some(names));
    out
}

fn print_nodes(out: &mut String, nodes: &[Node], depth: usize, names: Option<&TreeNames>) {
    super::stack_safe(|| {
        use std::fmt::Write;
        let pad = "  ".repeat(depth);
        for n in nodes {
            match n {
                Node::Code(b) => {
                    let label = names
                        .and_then(|n| n.blocks.get(b.index()))
                        .map_or("", |s| s.as_str());
                    let _ = writeln!(out, "{pad}bb{}{label}", b.0);
                }
                Node::Block {
                    label,
                    body,
                    breaks,
                } => {
                    let kind = if *breaks { "block" } else { "seq" };
                    let _ = writeln!(out, "{pad}{kind} B{} {{", label.0);
                    print_nodes(out, body, depth + 1, names);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Loop { label, body } => {
                    let _ = writeln!(out, "{pad}loop L{} {{", label.0);
                    print_nodes(out, body, depth + 1, names);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let not = if cond.negate { "!" } else { "" };
                    let pred = match names.and_then(|n| n.regs.get(cond.pred.index())) {
                        Some(name) => format!("%{name}"),
                        None => format!("r{}", cond.pred.0),
                    };
                    let _ = writeln!(out, "{pad}if {not}{pred} {{");
                    print_nodes(out, then, depth + 1, names);
                    if !otherwise.is_empty() {
                        let _ = writeln!(out, "{pad}}} else {{");
                        print_nodes(out, otherwise, depth + 1, names);
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Br(Label::Merge(b)) => {
                    let _ = writeln!(out, "{pad}break B{}", b.0);
                }
                Node::Br(Label::Loop(b)) => {
                    let _ = writeln!(out, "{pad}continue L{}", b.0);
                }
                Node::Br(Label::Exit(b)) => {
                    let _ = writeln!(out, "{pad}break L{}", b.0);
                }
                Node::Return { value, .. } => {
                    let v = if value.is_some() { " value" } else { "" };
                    let _ = writeln!(out, "{pad}return{v}");
                }
                Node::Unreachable => {
                    let _ = writeln!(out, "{pad}unreachable");
                }
            }
        }
    })
}

/// Blocks the tree contains.
pub fn blocks(nodes: &[Node], out: &mut Vec<BlockId>) {
    super::stack_safe(|| {
        for n in nodes {
            if let Node::Code(b) = n {
                out.push(*b);
            }
            n.bodies().for_each(|b| blocks(b, out));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %out)\n{\n\t.reg .32b %i;\n\t.reg .64b %o;\n\t.pred %p;\n\tld.param.64b %o, [%out];\n\tmov.32b %i, 0;\nL:\n\tiadd.32b %i, %i, 1;\n\tucmp.lt.32b %p, %i, 3;\n\tgoto.cond %p, L;\n\tucmp.eq.32b %p, %i, 7;\n\tgoto.cond %p, E;\n\tst.global.32b [%o], %i;\nE:\n\treturn;\n}\n";

    fn shallow_program() -> Program {
        let m = crate::assemble("c.pisa", SRC).unwrap_or_else(|d| panic!("{d}"));
        let mut p = crate::ir::lower(&m);
        for f in &mut p.functions {
            crate::ir::reducible::make_reducible(f);
        }
        crate::ir::shallow::limit_program(&mut p);
        p
    }

    /// The tree `shallow` keeps is the one the structurizer builds, and it
    /// is given back only while the blocks keep the shape it was built for.
    #[test]
    fn cached_tree_only_for_the_same_shape() {
        let mut p = shallow_program();
        let f = &mut p.functions[0];
        let cached = f.tree_cache.take().expect("shallow keeps its tree");
        let fresh = print(&structurize(f).unwrap());
        let tree = cached.clone().take(f).expect("nothing changed");
        assert_eq!(print(&tree), fresh);
        // a changed terminator: structure again
        let b = f
            .blocks
            .iter()
            .position(|b| matches!(b.term, Terminator::Branch { .. }))
            .expect("a branch");
        if let Terminator::Branch { cond, .. } = &mut f.blocks[b].term {
            cond.negate = !cond.negate;
        }
        assert!(cached.clone().take(f).is_none());
        // an added block: structure again
        let mut p = shallow_program();
        let f = &mut p.functions[0];
        let cached = f.tree_cache.take().expect("shallow keeps its tree");
        let extra = f.blocks[0].clone();
        f.blocks.push(extra);
        assert!(cached.take(f).is_none());
    }

    /// The bound [`structurize_bounded`] gives is never below the depth,
    /// on every function of the run tests (after `shallow`, as the pass
    /// reads it).
    #[test]
    fn depth_bound_holds() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/run");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "pisa") {
                continue;
            }
            let src = std::fs::read_to_string(&path).unwrap();
            let Ok(m) = crate::assemble("t.pisa", &src) else {
                continue;
            };
            for f in crate::ir::build(&m).functions {
                let (tree, bound) = structurize_bounded(&f).unwrap();
                let depth = nesting_depth(&tree);
                assert!(depth <= bound, "{}: {depth} > {bound}", path.display());
                // the one-walk depth is the two-walk one (the set of
                // breaking nodes, then the depth), a block's code counting
                // or not
                let breaking = Breaking::of(&tree);
                let codes: [&dyn Fn(BlockId) -> usize; 2] = [&|_| 0, &|b| b.index() % 3];
                for code in codes {
                    assert_eq!(
                        nesting_depth_calls(&tree, code),
                        nesting_depth_with(&breaking, &tree, code),
                        "{}",
                        path.display()
                    );
                }
                assert_eq!(print(&tree), print(&structurize(&f).unwrap()));
                n += 1;
            }
        }
        assert!(n > 50);
    }

    /// The pipeline's trees are the structurizer's own.
    #[test]
    fn pipeline_trees_are_fresh_trees() {
        let m = crate::assemble("c.pisa", SRC).unwrap_or_else(|d| panic!("{d}"));
        let mut p = crate::ir::lower(&m);
        crate::ir::pipeline::Pipeline::for_target(&Default::default())
            .run(&mut p)
            .unwrap();
        for f in p.functions.iter().filter(|f| !f.is_declaration()) {
            assert!(f.tree_cache.is_none());
            let fresh = structurize(f).unwrap();
            assert_eq!(print(f.structured.as_ref().unwrap()), print(&fresh));
        }
    }
}
