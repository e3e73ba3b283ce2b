//! The `simt` pass: sub-groups of 32 (spec 01, 04, 18) as code that needs
//! no sub-group support from the device.
//!
//! PISA fixes the sub-group at 32 work-items with SIMT semantics: lanes
//! that diverge at a branch run their paths separately, `%activemask` says
//! which lanes run an instruction together, and cross-lane instructions
//! read the other active lanes' values. Vulkan sub-groups are 4 to 128 wide
//! (lavapipe's are 8) and promise nothing about reconvergence, so this pass
//! rewrites the structured tree of every function that needs sub-groups
//! ([`super::analysis::subgroups::simt_functions`]) into **SIMT mode**:
//! every invocation of the work-group walks the same, uniform control flow,
//! and a per-invocation *state* register (`$simt_state`) says whether its
//! lane is active (0) or why it waits — diverged to the other arm of an
//! `if`, left a loop or block by a `break`/`continue` that has not reached
//! its target yet ([`code`] of the label), returned ([`RETURNED`]), or not
//! active in the caller ([`INACTIVE`]). A lane waits until its path reaches
//! the point where its state is cleared: the end of the `if`, the target of
//! the jump, the end of the function. These are the ends of the constructs
//! of the IR's structured tree, where the definition reconverges lanes
//! (docs/spec-notes.md, "Sub-groups": structured reconvergence); the
//! reference device walks the same tree (`pisa_interp::walk`), so the two
//! agree on every shape.
//!
//! Nodes without sync points run as they are under `if (state == 0)`. A
//! sync point — a cross-lane instruction, a read of `%activemask`, a
//! work-group barrier, a call of a SIMT function — is executed by every
//! invocation: cross-lane instructions become [`SimtInst::CrossLane`], a
//! read of `%activemask` reads a register that [`SimtInst::ActiveMask`]
//! sets first, calls become [`SimtInst::Call`]; a back end lowers these by
//! exchanging values through work-group memory between two work-group
//! barriers. A loop with a sync point iterates while any invocation of the
//! work-group still runs it: it starts each iteration with a
//! work-group-wide vote ([`SimtInst::AnyActive`]) and leaves when no lane
//! is active. SIMT functions take the caller's active flag as an added last
//! parameter, a predicate ([`active_param`]).
//!
//! The pass runs after `structurize` and `unroll` (which keeps the loops
//! with sync points: each copy would cost their barriers), before
//! `checked` (which checks the accesses of the code as this pass leaves
//! it). It changes no block that a plain node names: a block with a sync
//! point is split into new blocks, its own instructions moved out.

use super::analysis::subgroups::{self, call_target, is_cross_lane};
use super::*;
use rustc_hash::FxHashMap as HashMap;

/// The state of a lane that returned.
pub const RETURNED: u32 = u32::MAX;
/// The state of a lane whose caller's lane was not active at the call.
pub const INACTIVE: u32 = u32::MAX - 1;
/// The first of the states `if`s use (above every label's [`code`]).
const IF_CODES: u32 = 1 << 30;

/// The state of a lane waiting for label `l`: distinct and nonzero per
/// label, below [`IF_CODES`] for any function a back end can hold.
pub fn code(l: Label) -> u32 {
    match l {
        Label::Merge(b) => 3 * b.0 + 1,
        Label::Loop(b) => 3 * b.0 + 2,
        Label::Exit(b) => 3 * b.0 + 3,
    }
}

/// The instructions of SIMT mode that PISA has no instruction for
/// ([`Inst::Simt`]). Those marked "every invocation" are executed by every
/// invocation of the work-group together (the pass puts them where control
/// flow is uniform); `active`: a predicate, this lane runs the instruction.
#[derive(Debug, Clone)]
pub enum SimtInst {
    /// Kernel entry, every invocation: the work-group's exchange state
    /// (counters, masks) starts clear.
    Start,
    /// `state = (state == from && when) ? to : state` (`state` a 32-bit
    /// register).
    Transition {
        state: RegId,
        from: u32,
        to: u32,
        when: Option<Cond>,
    },
    /// Every invocation: `dst` = whether `active` holds in any invocation
    /// of the work-group (a work-group-wide OR).
    AnyActive { dst: RegId, active: RegId },
    /// Every invocation: `dst` (32-bit) = the sub-group's `%activemask`,
    /// the lanes whose `active` holds.
    ActiveMask { dst: RegId, active: RegId },
    /// Every invocation: a cross-lane instruction (`shfl`, `ired`, `fred`,
    /// `redfirstidx`, spec 18) of the lanes whose `active` holds.
    CrossLane { inst: PisaInst, active: RegId },
    /// Every invocation: a `call` that may reach a SIMT function. A SIMT
    /// callee ([`active_param`]) is called by every invocation with
    /// `active` (and the call's predicate) as its last argument, any other
    /// callee by the active lanes only; only active lanes take the result.
    Call { inst: PisaInst, active: RegId },
    /// `dst = value`, read as `dst`'s type (a return value kept for the
    /// end of the function).
    SetResult { dst: RegId, value: Operand },
}

impl SimtInst {
    /// The registers it writes.
    pub fn defs(&self) -> Vec<RegId> {
        match self {
            SimtInst::Start => Vec::new(),
            SimtInst::Transition { state, .. } => vec![*state],
            SimtInst::AnyActive { dst, .. }
            | SimtInst::ActiveMask { dst, .. }
            | SimtInst::SetResult { dst, .. } => vec![*dst],
            // the instruction's own destinations
            SimtInst::CrossLane { .. } | SimtInst::Call { .. } => Vec::new(),
        }
    }

    /// The PISA instruction it carries, if any.
    pub fn pisa(&self) -> Option<&PisaInst> {
        match self {
            SimtInst::CrossLane { inst, .. } | SimtInst::Call { inst, .. } => Some(inst),
            _ => None,
        }
    }
}

/// The parameter a SIMT function takes its caller's active flag in: its
/// last, a predicate (the validator gives no source function a predicate
/// parameter).
pub fn active_param(f: &Function) -> Option<RegId> {
    let &last = f.params.last()?;
    (f.kind == FuncKind::Function && f.reg(last).kind == RegKind::Pred).then_some(last)
}

/// Rewrites every SIMT function of `p` (its structured tree) into SIMT
/// mode.
pub fn run(p: &mut Program) {
    let simt = subgroups::simt_functions(p);
    if !simt.iter().any(|&s| s) {
        return;
    }
    let index = subgroups::function_index(p);
    // per SIMT function, block and instruction: a sync point
    let sync: Vec<Vec<Vec<bool>>> = p
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if !simt[i] {
                return Vec::new();
            }
            f.blocks
                .iter()
                .map(|b| {
                    b.insts
                        .iter()
                        .map(|i| match i {
                            Inst::Pisa(i) => subgroups::is_sync_point(p, &index, &simt, i),
                            _ => false,
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let mask = p.symbols.get("activemask");
    for (f, sync) in p.functions.iter_mut().zip(&sync) {
        if sync.is_empty() {
            continue;
        }
        let Some(tree) = f.structured.take() else {
            continue;
        };
        let tree = stack_safe(|| Rewriter::new(f, sync, mask).function(tree));
        f.structured = Some(tree);
    }
}

struct Rewriter<'a> {
    f: &'a mut Function,
    sync: &'a [Vec<bool>],
    /// `%activemask`'s name, if the program mentions it.
    mask: Option<Name>,
    state: RegId,
    active: RegId,
    any: RegId,
    /// The register `%activemask` reads are replaced by (made on first use).
    activemask: Option<RegId>,
    /// The return value, for functions with one.
    ret: Option<RegId>,
    next_code: u32,
    /// The nodes a split block became (a tree may place a block twice).
    split: HashMap<BlockId, Vec<Node>>,
    /// New blocks that later instructions may join (placed once).
    open: Vec<bool>,
    /// Blocks made now are placed more than once (a split block's).
    sealed: bool,
}

impl<'a> Rewriter<'a> {
    fn new(f: &'a mut Function, sync: &'a [Vec<bool>], mask: Option<Name>) -> Self {
        let state = f.new_reg("$simt_state".into(), RegKind::Value(Ty::scalar(32)));
        let active = f.new_reg("$simt_active".into(), RegKind::Pred);
        let any = f.new_reg("$simt_any".into(), RegKind::Pred);
        let ret = match (f.kind, f.ret) {
            (FuncKind::Function, Some(t)) => {
                Some(f.new_reg("$simt_result".into(), RegKind::Value(t)))
            }
            _ => None,
        };
        Rewriter {
            f,
            sync,
            mask,
            state,
            active,
            any,
            activemask: None,
            ret,
            next_code: IF_CODES,
            split: HashMap::default(),
            open: Vec::new(),
            sealed: false,
        }
    }

    /// The whole body: the entry state, the rewritten tree, one return.
    fn function(mut self, tree: Vec<Node>) -> Vec<Node> {
        let mut out = Vec::new();
        let state = self.state;
        let entry = match self.f.kind {
            // every invocation starts active
            FuncKind::Kernel => vec![
                Inst::simt(SimtInst::Start),
                Inst::SetConst {
                    dst: state,
                    value: 0,
                },
            ],
            FuncKind::Function => {
                let p = self.f.new_reg("$simt_caller_active".into(), RegKind::Pred);
                self.f.params.push(p);
                vec![
                    Inst::SetConst {
                        dst: state,
                        value: INACTIVE,
                    },
                    self.transition(
                        INACTIVE,
                        0,
                        Some(Cond {
                            pred: p,
                            negate: false,
                        }),
                    ),
                ]
            }
        };
        self.emit(&mut out, entry);
        self.nodes(tree, &mut out);
        let span = self.f.span;
        let value = self.ret.map(|r| {
            Operand::Reg(RegRef {
                reg: r,
                swizzle: None,
                span,
            })
        });
        out.push(Node::Return { value, span });
        out
    }

    /// A new block of `insts` (placed by the tree only: no branch reaches
    /// it).
    fn block(&mut self, insts: Vec<Inst>) -> Node {
        let span = self.f.span;
        self.f.blocks.push(Block {
            label: None,
            insts,
            term: Terminator::Unreachable,
            term_span: span,
        });
        let b = self.f.blocks.len() - 1;
        self.open.resize(b + 1, false);
        self.open[b] = !self.sealed;
        Node::Code(BlockId(b as u32))
    }

    /// Appends `insts` to `out`: to its last node if that is a new block
    /// placed once, else as a new block.
    fn emit(&mut self, out: &mut Vec<Node>, insts: Vec<Inst>) {
        if let Some(Node::Code(b)) = out.last() {
            if self.open.get(b.index()) == Some(&true) {
                self.f.blocks[b.index()].insts.extend(insts);
                return;
            }
        }
        let n = self.block(insts);
        out.push(n);
    }

    fn transition(&self, from: u32, to: u32, when: Option<Cond>) -> Inst {
        Inst::simt(SimtInst::Transition {
            state: self.state,
            from,
            to,
            when,
        })
    }

    /// `active = (state == 0)`.
    fn test_active(&self) -> Inst {
        Inst::TestConst {
            dst: self.active,
            src: self.state,
            value: 0,
        }
    }

    fn active_cond(&self) -> Cond {
        Cond {
            pred: self.active,
            negate: false,
        }
    }

    fn nodes(&mut self, nodes: Vec<Node>, out: &mut Vec<Node>) {
        stack_safe(|| {
            let mut run = Vec::new();
            for n in nodes {
                if self.plain(&n, &mut Vec::new()) {
                    run.push(n);
                    continue;
                }
                self.guarded(std::mem::take(&mut run), out);
                self.node(n, out);
            }
            self.guarded(run, out);
        })
    }

    /// `nodes` (plain ones) run by the active lanes.
    fn guarded(&mut self, nodes: Vec<Node>, out: &mut Vec<Node>) {
        if nodes.is_empty() {
            return;
        }
        let test = self.test_active();
        self.emit(out, vec![test]);
        out.push(Node::If {
            cond: self.active_cond(),
            then: nodes,
            otherwise: Vec::new(),
        });
    }

    /// A node that runs as it is under `if (state == 0)`: no sync point, no
    /// return, and every jump lands inside it.
    fn plain(&self, n: &Node, open: &mut Vec<Label>) -> bool {
        stack_safe(|| match n {
            Node::Code(b) => {
                !self.split.contains_key(b)
                    && !self.sync.get(b.index()).is_some_and(|s| s.contains(&true))
            }
            Node::Block { label, body, .. } => {
                open.push(Label::Merge(*label));
                let all = body.iter().all(|n| self.plain(n, open));
                open.pop();
                all
            }
            Node::Loop { label, body } => {
                open.push(Label::Loop(*label));
                open.push(Label::Exit(*label));
                let all = body.iter().all(|n| self.plain(n, open));
                open.truncate(open.len() - 2);
                all
            }
            Node::If {
                then, otherwise, ..
            } => then
                .iter()
                .chain(otherwise.iter())
                .all(|n| self.plain(n, open)),
            Node::Br(l) => open.contains(l),
            Node::Return { .. } | Node::Unreachable => false,
        })
    }

    fn node(&mut self, n: Node, out: &mut Vec<Node>) {
        match n {
            Node::Code(b) => self.code(b, out),
            Node::Block { label, body, .. } => {
                self.nodes(body, out);
                let t = self.transition(code(Label::Merge(label)), 0, None);
                self.emit(out, vec![t]);
            }
            Node::Loop { label, body } => self.uniform_loop(label, body, out),
            Node::If {
                cond,
                then,
                otherwise,
            } => self.selection(cond, then, otherwise, out),
            Node::Br(l) => {
                let t = self.transition(0, code(l), None);
                self.emit(out, vec![t]);
            }
            Node::Return { value, .. } => {
                if let (Some(mut value), Some(dst)) = (value, self.ret) {
                    if let (Operand::Special(r), Some(m)) = (&value, self.mask) {
                        if r.name == m {
                            // `return %activemask`: a sync point
                            let reg = self.activemask_reg();
                            let read = vec![
                                self.test_active(),
                                Inst::simt(SimtInst::ActiveMask {
                                    dst: reg,
                                    active: self.active,
                                }),
                            ];
                            self.emit(out, read);
                            value = Operand::Reg(RegRef {
                                reg,
                                swizzle: None,
                                span: r.span,
                            });
                        }
                    }
                    let set = Inst::simt(SimtInst::SetResult { dst, value });
                    let set = self.block(vec![set]);
                    self.guarded(vec![set], out);
                }
                let t = self.transition(0, RETURNED, None);
                self.emit(out, vec![t]);
            }
            // undefined behaviour (the end of a function with a result)
            Node::Unreachable => {
                let t = self.transition(0, RETURNED, None);
                self.emit(out, vec![t]);
            }
        }
    }

    /// Active lanes whose condition fails wait for the other arm; the arms
    /// run one after the other.
    fn selection(
        &mut self,
        cond: Cond,
        then: Vec<Node>,
        otherwise: Vec<Node>,
        out: &mut Vec<Node>,
    ) {
        let (to_else, to_end) = (self.next_code, self.next_code + 1);
        self.next_code += 2;
        let not = Cond {
            pred: cond.pred,
            negate: !cond.negate,
        };
        let t = self.transition(0, to_else, Some(not));
        self.emit(out, vec![t]);
        self.nodes(then, out);
        if otherwise.is_empty() {
            let t = self.transition(to_else, 0, None);
            self.emit(out, vec![t]);
            return;
        }
        let ts = vec![
            self.transition(0, to_end, None),
            self.transition(to_else, 0, None),
        ];
        self.emit(out, ts);
        self.nodes(otherwise, out);
        let t = self.transition(to_end, 0, None);
        self.emit(out, vec![t]);
    }

    /// A loop every invocation iterates while any lane of the work-group
    /// still runs it, so its sync points are uniform: a `continue` waits
    /// for the end of the body, falling off its end (or a `break`) for the
    /// end of the loop.
    fn uniform_loop(&mut self, label: BlockId, body: Vec<Node>, out: &mut Vec<Node>) {
        let exit = code(Label::Exit(label));
        let vote = vec![
            self.test_active(),
            Inst::simt(SimtInst::AnyActive {
                dst: self.any,
                active: self.active,
            }),
        ];
        let mut lp = vec![
            self.block(vote),
            Node::If {
                cond: Cond {
                    pred: self.any,
                    negate: true,
                },
                then: vec![Node::Br(Label::Exit(label))],
                otherwise: Vec::new(),
            },
        ];
        self.nodes(body, &mut lp);
        let ts = vec![
            self.transition(0, exit, None),
            self.transition(code(Label::Loop(label)), 0, None),
        ];
        self.emit(&mut lp, ts);
        lp.push(Node::Br(Label::Loop(label)));
        out.push(Node::Loop { label, body: lp });
        let t = self.transition(exit, 0, None);
        self.emit(out, vec![t]);
    }

    /// A basic block with sync points: the code between them run by the
    /// active lanes, the sync points by every invocation.
    fn code(&mut self, b: BlockId, out: &mut Vec<Node>) {
        if let Some(nodes) = self.split.get(&b) {
            out.extend(nodes.iter().cloned());
            return;
        }
        let sync = self.sync.get(b.index()).cloned().unwrap_or_default();
        let insts = std::mem::take(&mut self.f.blocks[b.index()].insts);
        let mut nodes = Vec::new();
        // the nodes are placed wherever the tree places `b`
        let sealed = std::mem::replace(&mut self.sealed, true);
        let mut segment = Vec::new();
        for (inst, is_sync) in insts
            .into_iter()
            .zip(sync.iter().copied().chain(std::iter::repeat(false)))
        {
            match inst {
                Inst::Pisa(i) if is_sync => {
                    let seg = std::mem::take(&mut segment);
                    self.guarded_insts(seg, &mut nodes);
                    self.sync_point(i, &mut nodes);
                }
                other => segment.push(other),
            }
        }
        self.guarded_insts(segment, &mut nodes);
        self.sealed = sealed;
        out.extend(nodes.iter().cloned());
        self.split.insert(b, nodes);
    }

    fn guarded_insts(&mut self, insts: Vec<Inst>, out: &mut Vec<Node>) {
        if insts.is_empty() {
            return;
        }
        let code = self.block(insts);
        self.guarded(vec![code], out);
    }

    /// The register `%activemask` reads become.
    fn activemask_reg(&mut self) -> RegId {
        match self.activemask {
            Some(r) => r,
            None => {
                let r = self
                    .f
                    .new_reg("$simt_activemask".into(), RegKind::Value(Ty::scalar(32)));
                self.activemask = Some(r);
                r
            }
        }
    }

    /// One sync point, executed by every invocation.
    fn sync_point(&mut self, mut i: PisaInst, out: &mut Vec<Node>) {
        if i.opcode == Opcode::BarrierWorkgroup {
            self.emit(out, vec![Inst::Pisa(i)]);
            return;
        }
        let active = self.active;
        let mut insts = vec![self.test_active()];
        if let Some(m) = self.mask {
            let reg = self.activemask_reg();
            if replace_special(&mut i, m, reg) {
                insts.push(Inst::simt(SimtInst::ActiveMask { dst: reg, active }));
            }
        }
        if is_cross_lane(&i) {
            insts.push(Inst::simt(SimtInst::CrossLane { inst: i, active }));
            self.emit(out, insts);
        } else if call_target(&i).is_some() {
            insts.push(Inst::simt(SimtInst::Call { inst: i, active }));
            self.emit(out, insts);
        } else {
            // an instruction that read `%activemask`
            self.emit(out, insts);
            let run = self.block(vec![Inst::Pisa(i)]);
            out.push(Node::If {
                cond: self.active_cond(),
                then: vec![run],
                otherwise: Vec::new(),
            });
        }
    }
}

/// Replaces every read of special register `special` in `i` by register
/// `reg`; whether there was one.
fn replace_special(i: &mut PisaInst, special: Name, reg: RegId) -> bool {
    let mut hit = false;
    let to_reg = |r: &SpecialRef| RegRef {
        reg,
        swizzle: None,
        span: r.span,
    };
    let operand = |o: &mut Operand, hit: &mut bool| match o {
        Operand::Special(r) if r.name == special => {
            *o = Operand::Reg(to_reg(r));
            *hit = true;
        }
        Operand::Addr(a) => {
            if let AddrBase::Special(r) = &a.base {
                if r.name == special {
                    a.base = AddrBase::Reg(to_reg(r));
                    *hit = true;
                }
            }
            if let Some(AddrOffset::Special(r)) = &a.offset {
                if r.name == special {
                    a.offset = Some(AddrOffset::Reg(to_reg(r)));
                    *hit = true;
                }
            }
        }
        _ => {}
    };
    for o in &mut i.operands {
        if let Operand::Call(c) = o {
            for a in &mut c.args {
                operand(a, &mut hit);
            }
        } else {
            operand(o, &mut hit);
        }
    }
    hit
}
