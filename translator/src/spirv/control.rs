//! Structured control flow: the IR's structured tree
//! ([`crate::ir::Function::structured`]) as SPIR-V selection and loop constructs
//! (docs/control-flow.md).
//!
//! - `If` is a selection with its own merge block.
//! - `Loop` is a loop construct: header (`OpLoopMerge`), body, a continue
//!   block that branches back, and a merge block after the loop.
//! - A `Block` is no construct. A jump to its end stores the block's code
//!   ([`code`]) in the function's `pending` variable, and in every sequence
//!   the nodes after one that may jump to the end of a block around it
//!   ([`Breaking`]) run under a *guard*, `if (pending == 0)`; after the
//!   block, `pending` is cleared if it holds the block's code. (A loop
//!   construct that runs once, as blocks were emitted before, costs a trip of
//!   llvmpipe's loop cap at every pass: docs/control-flow.md, "Blocks
//!   without loop constructs".)
//! - A branch that must leave several loops at once (SPIR-V only breaks out
//!   of the innermost loop) stores its target in `pending` and breaks out;
//!   after each merge it passes, a test of `pending` continues the jump.
//!
//! Loop caps. Mesa 22's llvmpipe ends all loops of an invocation after
//! 65,535 iterations in total, silently (docs/abi.md). Each loop keeps a flag
//! that every real exit sets; a work-item that reaches the loop's merge with
//! the flag clear was cut short by the driver, and stores 1 to the launch's
//! status word, which the runtime reports as an error.

use super::error::TranslateError;
use super::error::R;
use super::function::{variable, FunctionCx, Reg};
use super::lower;
use super::types::ModuleCx;
use crate::abi::Push;
use crate::ir::structurize::Breaking;
use crate::ir::FuncKind;
use crate::ir::{BlockId, Cond, Inst, Operand};
use crate::ir::{Label, Node};
use rspirv::spirv::{self, LoopControl, SelectionControl, StorageClass, Word};

/// Function variables the control flow needs, declared in the entry block.
pub struct ControlVars {
    /// The target of a jump out of several constructs (0: none).
    pending: Option<Word>,
    /// Per loop, by its label's block index (0: none): set when the loop
    /// is left by one of its own exits. (A vector, not a map: one lookup
    /// per loop of a large function was a hash probe into a cold table.)
    exited: Vec<Word>,
    /// Loaded once in the entry block when the function has loops: the
    /// never-true condition and the pointer to the launch's status word.
    never: Option<Word>,
    status: Option<Word>,
    /// The nodes that may jump to the end of a block around them.
    breaking: Breaking,
}

/// What one walk of a function's tree finds: the loops (in the order of
/// a pre-order walk), whether it has a construct (a loop or a block with
/// breaks), whether some block has breaks, and the nesting depth of its
/// selections and loops. (One walk instead of three on a large function:
/// without blocks with breaks, [`Breaking::of`] finds nothing and
/// [`crate::ir::structurize::nesting_depth_with`] is this depth.)
pub struct Survey {
    loops: Vec<BlockId>,
    constructs: bool,
    /// Some `Block` has `breaks`: the caller computes [`Breaking::of`].
    pub breaking_blocks: bool,
    /// The nesting depth if no block has breaks (else unused).
    pub plain_depth: usize,
}

impl Survey {
    pub fn of(tree: &[Node]) -> Survey {
        let mut s = Survey {
            loops: Vec::new(),
            constructs: false,
            breaking_blocks: false,
            plain_depth: 0,
        };
        s.plain_depth = s.walk(tree);
        s
    }

    /// Notes the nodes of `nodes` (and inside them), returns their depth.
    fn walk(&mut self, nodes: &[Node]) -> usize {
        crate::ir::stack_safe(|| {
            let mut depth = 0;
            for n in nodes {
                let d = match n {
                    Node::Loop { label, body } => {
                        self.loops.push(*label);
                        self.constructs = true;
                        1 + self.walk(body)
                    }
                    Node::Block { body, breaks, .. } => {
                        if *breaks {
                            self.constructs = true;
                            self.breaking_blocks = true;
                        }
                        self.walk(body)
                    }
                    Node::If {
                        then, otherwise, ..
                    } => {
                        let t = self.walk(then);
                        1 + t.max(self.walk(otherwise))
                    }
                    Node::Code(_) | Node::Br(_) | Node::Return { .. } | Node::Unreachable => 0,
                };
                depth = depth.max(d);
            }
            depth
        })
    }
}

impl ControlVars {
    /// The variables of a function whose tree's survey is `survey` and
    /// breaking nodes `breaking` (`Breaking::of` the tree).
    pub fn declare(tx: &mut ModuleCx, survey: Survey, breaking: Breaking) -> R<ControlVars> {
        let detect = tx.options.detect_loop_cap;
        let Survey {
            loops, constructs, ..
        } = survey;
        let loops = if detect { loops } else { Vec::new() };
        let bt = tx.bool_ty();
        let u32t = tx.uint(32);
        let pending = constructs.then(|| variable(tx, u32t, "pending"));
        let mut exited = Vec::new();
        for l in loops {
            let p = tx.ptr(StorageClass::Function, bt);
            let i = l.0 as usize;
            if exited.len() <= i {
                exited.resize(i + 1, 0);
            }
            exited[i] = tx.b.variable(p, None, StorageClass::Function, None);
        }
        Ok(ControlVars {
            pending,
            exited,
            never: None,
            status: None,
            breaking,
        })
    }

    /// Initial values (after every variable of the entry block).
    pub fn init(&mut self, tx: &mut ModuleCx) -> R<()> {
        if let Some(p) = self.pending {
            let zero = tx.const_u32(0);
            tx.b.store(p, zero, None, [])?;
        }
        if self.exited.iter().any(|&v| v != 0) {
            self.never = Some(tx.never()?);
            let u32t = tx.uint(32);
            let addr = tx.push_addr(Push::Status)?;
            let pt = tx.ptr(StorageClass::PhysicalStorageBuffer, u32t);
            self.status = Some(tx.b.convert_u_to_ptr(pt, None, addr)?);
        }
        Ok(())
    }
}

/// An enclosing construct that a `break` can leave.
struct Frame {
    label: Label,
    merge: Word,
    cont: Word,
    /// The loop's `exited` flag (real loops only).
    exited: Option<Word>,
    /// Targets of jumps that leave this construct on their way further out.
    crossing: Vec<Label>,
    /// Some branch leaves the construct (its merge is reachable).
    left: bool,
    /// Some branch leaves it for the code right after it (not only jumps
    /// passing through).
    direct: bool,
    /// A block: no SPIR-V construct; a jump to its end sets `pending` and
    /// the code after it in each sequence runs under a guard.
    soft: bool,
}

struct Emitter {
    pub(super) vars: ControlVars,
    frames: Vec<Frame>,
    /// The current SPIR-V block is open (not yet terminated).
    open: bool,
}

pub fn emit_body(fx: &mut FunctionCx, tree: &[Node], vars: ControlVars) -> R<()> {
    let mut em = Emitter {
        vars,
        frames: Vec::new(),
        open: true,
    };
    em.nodes(fx, tree)?;
    if em.open {
        return Err(TranslateError::Internal(
            "structured code falls off the end of a function".into(),
        ));
    }
    Ok(())
}

/// A distinct nonzero number per label, for the `pending` variable.
fn code(l: Label) -> u32 {
    match l {
        Label::Merge(b) => 3 * b.0 + 1,
        Label::Loop(b) => 3 * b.0 + 2,
        Label::Exit(b) => 3 * b.0 + 3,
    }
}

impl Emitter {
    fn nodes(&mut self, fx: &mut FunctionCx, nodes: &[Node]) -> R<()> {
        crate::ir::stack_safe(|| self.nodes_deep(fx, nodes))
    }

    fn nodes_deep(&mut self, fx: &mut FunctionCx, nodes: &[Node]) -> R<()> {
        // the merge of the guard the nodes after a breaking one run under
        let mut guard = None;
        let mut after_break = false;
        for n in nodes {
            if !self.open {
                // code after a jump: a block nothing branches to
                fx.tx.b.begin_block(None)?;
                self.open = true;
            }
            if after_break && guard.is_none() {
                guard = Some(self.open_guard(fx)?);
            }
            self.node(fx, n)?;
            if self.vars.breaking.contains(n) {
                if let Some(merge) = guard.take() {
                    self.close_guard(fx, merge)?;
                }
                after_break = true;
            }
        }
        if let Some(merge) = guard {
            self.close_guard(fx, merge)?;
        }
        Ok(())
    }

    fn node(&mut self, fx: &mut FunctionCx, n: &Node) -> R<()> {
        match n {
            Node::Code(b) => self.code(fx, *b)?,
            Node::Block {
                body,
                breaks: false,
                ..
            } => self.nodes(fx, body)?,
            Node::Block { label, body, .. } => self.block(fx, *label, body)?,
            Node::Loop { label, body } => {
                let flag = self
                    .vars
                    .exited
                    .get(label.0 as usize)
                    .copied()
                    .filter(|&v| v != 0);
                self.construct(fx, Label::Loop(*label), body, flag)?
            }
            Node::If {
                cond,
                then,
                otherwise,
            } => self.selection(fx, *cond, then, otherwise)?,
            Node::Br(l) => self.branch(fx, *l)?,
            Node::Return { value, .. } => self.ret(fx, value.as_ref())?,
            Node::Unreachable => {
                fx.tx.b.unreachable()?;
                self.open = false;
            }
        }
        Ok(())
    }

    /// `if (pending == 0) {`: the code after a node that may have jumped to
    /// the end of a block around it. Returns the merge for [`Self::close_guard`].
    fn open_guard(&mut self, fx: &mut FunctionCx) -> R<Word> {
        let pending = self.pending()?;
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let p = fx.tx.b.load(u32t, None, pending, None, [])?;
        let zero = fx.tx.const_u32(0);
        let go = fx.tx.b.i_equal(bt, None, p, zero)?;
        let (arm, merge) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(go, arm, merge, [])?;
        fx.tx.b.begin_block(Some(arm))?;
        self.open = true;
        Ok(merge)
    }

    fn close_guard(&mut self, fx: &mut FunctionCx, merge: Word) -> R<()> {
        if self.open {
            fx.tx.b.branch(merge)?;
        }
        fx.tx.b.begin_block(Some(merge))?;
        self.open = true;
        Ok(())
    }

    fn pending(&self) -> R<Word> {
        self.vars
            .pending
            .ok_or_else(|| TranslateError::Internal("no pending variable".into()))
    }

    /// A block with breaks, as flat code (no construct: llvmpipe counts
    /// every pass through a loop construct against its loop cap, and a
    /// block inside a long loop would cost a trip per iteration). A jump to
    /// its end sets `pending` to the label's code ([`Self::branch`]); the
    /// code after the jump runs under guards (`nodes`); at the end,
    /// `pending` is cleared if it held this block's code.
    fn block(&mut self, fx: &mut FunctionCx, label: BlockId, body: &[Node]) -> R<()> {
        self.frames.push(Frame {
            label: Label::Merge(label),
            merge: 0,
            cont: 0,
            exited: None,
            crossing: Vec::new(),
            left: false,
            direct: false,
            soft: true,
        });
        self.nodes(fx, body)?;
        let frame = self
            .frames
            .pop()
            .ok_or_else(|| TranslateError::Internal("construct stack".into()))?;
        if !frame.left {
            return Ok(());
        }
        if !self.open {
            // a jump here leaves the code after it open (guards), so the
            // end is reached
            return Err(TranslateError::Internal(format!(
                "the end of block {label:?} is not reached"
            )));
        }
        // pending = pending == code ? 0 : pending
        let pending = self.pending()?;
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let p = fx.tx.b.load(u32t, None, pending, None, [])?;
        let c = fx.tx.const_u32(code(Label::Merge(label)));
        let hit = fx.tx.b.i_equal(bt, None, p, c)?;
        let zero = fx.tx.const_u32(0);
        let q = fx.tx.b.select(u32t, None, hit, zero, p)?;
        fx.tx.b.store(pending, q, None, [])?;
        Ok(())
    }

    fn code(&mut self, fx: &mut FunctionCx, b: BlockId) -> R<()> {
        for inst in &fx.func.block(b).insts {
            lower_inst(fx, inst)?;
        }
        Ok(())
    }

    /// A loop construct around `body`.
    fn construct(
        &mut self,
        fx: &mut FunctionCx,
        label: Label,
        body: &[Node],
        exited: Option<Word>,
    ) -> R<()> {
        let b = &mut fx.tx.b;
        let (header, start, cont, merge) = (b.id(), b.id(), b.id(), b.id());
        if let Some(flag) = exited {
            let f = fx.tx.const_bool(false);
            fx.tx.b.store(flag, f, None, [])?;
        }
        fx.tx.b.branch(header)?;
        fx.tx.b.begin_block(Some(header))?;
        fx.tx.b.loop_merge(merge, cont, LoopControl::NONE, [])?;
        fx.tx.b.branch(start)?;
        fx.tx.b.begin_block(Some(start))?;
        self.open = true;
        self.frames.push(Frame {
            label,
            merge,
            cont,
            exited,
            crossing: Vec::new(),
            left: false,
            direct: false,
            soft: false,
        });
        self.nodes(fx, body)?;
        if self.open {
            // falling off the end leaves the construct
            self.leave(fx, self.frames.len() - 1, true)?;
        }
        let frame = self
            .frames
            .pop()
            .ok_or_else(|| TranslateError::Internal("construct stack".into()))?;
        fx.tx.b.begin_block(Some(cont))?;
        if frame.exited.is_some() {
            // the back edge can also leave, on a condition the driver cannot
            // fold, so a loop cut short by the driver is told apart from a
            // real exit (the module docs)
            let stop = self
                .vars
                .never
                .ok_or_else(|| TranslateError::Internal("a loop without its cap check".into()))?;
            fx.tx.b.branch_conditional(stop, merge, header, [])?;
        } else {
            fx.tx.b.branch(header)?;
        }
        fx.tx.b.begin_block(Some(merge))?;
        self.open = true;
        // a jump to the end of a block around the loop goes on from the
        // merge under guards
        let direct = frame.direct || frame.crossing.iter().any(|&l| self.soft_target(l));
        if let (Some(flag), true) = (frame.exited, direct) {
            self.check_exit(fx, flag)?;
        }
        for target in frame.crossing {
            self.continue_jump(fx, target)?;
        }
        if !direct {
            if frame.exited.is_some() {
                // only the never-taken exit (a loop cut short) gets here
                self.set_status(fx)?;
                self.return_undef(fx)?;
            } else {
                // every way out was a jump further out
                fx.tx.b.unreachable()?;
                self.open = false;
            }
        }
        Ok(())
    }

    /// Branches to the merge of frame `i` (the innermost), marking the loop
    /// as left by a real exit.
    fn leave(&mut self, fx: &mut FunctionCx, i: usize, direct: bool) -> R<()> {
        if let Some(flag) = self.frames[i].exited {
            let t = fx.tx.const_bool(true);
            fx.tx.b.store(flag, t, None, [])?;
        }
        fx.tx.b.branch(self.frames[i].merge)?;
        self.frames[i].left = true;
        self.frames[i].direct |= direct;
        self.open = false;
        Ok(())
    }

    fn branch(&mut self, fx: &mut FunctionCx, l: Label) -> R<()> {
        let target = self.frames.iter().rposition(|f| match (f.label, l) {
            (Label::Loop(h), Label::Loop(t) | Label::Exit(t)) => h == t,
            (Label::Merge(h), Label::Merge(t)) => h == t,
            _ => false,
        });
        let Some(target) = target else {
            return Err(TranslateError::Internal(format!(
                "{l:?} outside its construct"
            )));
        };
        // the innermost construct (a loop): the only one a branch can leave
        let inner = self.frames.iter().rposition(|f| !f.soft);
        if self.frames[target].soft && inner.is_none_or(|i| i < target) {
            // to the end of a block with no loop in between: the code up to
            // its end runs under guards, which `pending` now stops
            let pending = self.pending()?;
            let c = fx.tx.const_u32(code(l));
            fx.tx.b.store(pending, c, None, [])?;
            self.frames[target].left = true;
            return Ok(());
        }
        let Some(inner) = inner else {
            return Err(TranslateError::Internal(format!(
                "{l:?} outside its construct"
            )));
        };
        if inner == target {
            return match l {
                Label::Loop(_) => {
                    fx.tx.b.branch(self.frames[inner].cont)?;
                    self.open = false;
                    Ok(())
                }
                _ => self.leave(fx, inner, true),
            };
        }
        // leave the innermost loop; its merge continues the jump
        let pending = self.pending()?;
        let c = fx.tx.const_u32(code(l));
        fx.tx.b.store(pending, c, None, [])?;
        if !self.frames[inner].crossing.contains(&l) {
            self.frames[inner].crossing.push(l);
        }
        self.leave(fx, inner, false)
    }

    /// Whether `l` is the end of a block (no construct) that is open.
    fn soft_target(&self, l: Label) -> bool {
        self.frames.iter().any(|f| f.soft && f.label == l)
    }

    /// At a merge: `if (pending == target) { pending = 0; jump on }`.
    fn continue_jump(&mut self, fx: &mut FunctionCx, l: Label) -> R<()> {
        let Some(pending) = self.vars.pending else {
            return Err(TranslateError::Internal("no pending variable".into()));
        };
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let p = fx.tx.b.load(u32t, None, pending, None, [])?;
        let c = fx.tx.const_u32(code(l));
        let hit = fx.tx.b.i_equal(bt, None, p, c)?;
        let (arm, next) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(next, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(hit, arm, next, [])?;
        fx.tx.b.begin_block(Some(arm))?;
        let zero = fx.tx.const_u32(0);
        fx.tx.b.store(pending, zero, None, [])?;
        self.open = true;
        self.branch(fx, l)?;
        if self.open {
            // reached the block's end level: the guards after this merge
            // skip to it
            fx.tx.b.branch(next)?;
        }
        fx.tx.b.begin_block(Some(next))?;
        self.open = true;
        Ok(())
    }

    /// A work-item at a loop's merge without its exit flag was cut short by
    /// the driver: report it in the status word.
    fn check_exit(&mut self, fx: &mut FunctionCx, flag: Word) -> R<()> {
        let bt = fx.tx.bool_ty();
        let ok = fx.tx.b.load(bt, None, flag, None, [])?;
        let (cut, next) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(next, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(ok, next, cut, [])?;
        fx.tx.b.begin_block(Some(cut))?;
        self.set_status(fx)?;
        fx.tx.b.branch(next)?;
        fx.tx.b.begin_block(Some(next))?;
        Ok(())
    }

    /// Stores 1 to the launch's status word.
    fn set_status(&mut self, fx: &mut FunctionCx) -> R<()> {
        let ptr = self
            .vars
            .status
            .ok_or_else(|| TranslateError::Internal("no status pointer".into()))?;
        let one = fx.tx.const_u32(1);
        fx.tx.b.store(
            ptr,
            one,
            Some(spirv::MemoryAccess::ALIGNED),
            [rspirv::dr::Operand::LiteralBit32(4)],
        )?;
        fx.tx.layout.sets_status = true;
        Ok(())
    }

    fn selection(
        &mut self,
        fx: &mut FunctionCx,
        cond: Cond,
        then: &[Node],
        otherwise: &[Node],
    ) -> R<()> {
        let c = lower::read_cond(fx, cond)?;
        let merge = fx.tx.b.id();
        let arm = |fx: &mut FunctionCx, nodes: &[Node]| {
            if nodes.is_empty() {
                merge
            } else {
                fx.tx.b.id()
            }
        };
        let (t, f) = (arm(fx, then), arm(fx, otherwise));
        fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(c, t, f, [])?;
        let mut reached = then.is_empty() || otherwise.is_empty();
        for (l, nodes) in [(t, then), (f, otherwise)] {
            if nodes.is_empty() {
                continue;
            }
            fx.tx.b.begin_block(Some(l))?;
            self.open = true;
            self.nodes(fx, nodes)?;
            if self.open {
                fx.tx.b.branch(merge)?;
                reached = true;
            }
        }
        fx.tx.b.begin_block(Some(merge))?;
        self.open = true;
        if !reached {
            fx.tx.b.unreachable()?;
            self.open = false;
        }
        Ok(())
    }

    /// Returns from a function whose result does not matter any more.
    fn return_undef(&mut self, fx: &mut FunctionCx) -> R<()> {
        match fx.func.ret {
            Some(t) if fx.func.kind == FuncKind::Function => {
                let t = fx.tx.reg_ty(t);
                let u = fx.tx.b.undef(t, None);
                fx.tx.b.ret_value(u)?;
            }
            _ => fx.tx.b.ret()?,
        }
        self.open = false;
        Ok(())
    }

    fn ret(&mut self, fx: &mut FunctionCx, value: Option<&Operand>) -> R<()> {
        match (value, fx.func.ret) {
            (Some(v), Some(ty)) if fx.func.kind == FuncKind::Function => {
                let v = lower::read_value(fx, v, ty)?;
                fx.tx.b.ret_value(v)?;
            }
            _ => fx.tx.b.ret()?,
        }
        self.open = false;
        Ok(())
    }
}

/// One instruction of a basic block.
fn lower_inst(fx: &mut FunctionCx, inst: &Inst) -> R<()> {
    match inst {
        Inst::Pisa(i) => {
            fx.line(i.span);
            lower::lower(fx, i)?;
            if fx.check.take().is_some() {
                return Err(TranslateError::Internal(format!(
                    "a check before `{}`, which checks no address",
                    i.mnemonic_text()
                )));
            }
        }
        // the access that follows lowers it (`FunctionCx::checked_address`)
        Inst::CheckAccess(c) => {
            if fx.check.replace(*c).is_some() {
                return Err(TranslateError::Internal("two checks of one access".into()));
            }
        }
        Inst::SetConst { dst, value } => {
            let Some(Reg::Val { ptr, .. }) = fx.reg(*dst) else {
                return Err(TranslateError::Internal("set: not a register".into()));
            };
            let v = fx.tx.const_u32(*value);
            fx.tx.b.store(ptr, v, None, [])?;
        }
        Inst::Simt(s) => lower::lower_simt(fx, s)?,
        Inst::TestConst { dst, src, value } => {
            let (Some(Reg::Pred { ptr: p }), Some(Reg::Val { ptr: s, .. })) =
                (fx.reg(*dst), fx.reg(*src))
            else {
                return Err(TranslateError::Internal("test: bad registers".into()));
            };
            let u32t = fx.tx.uint(32);
            let bt = fx.tx.bool_ty();
            let x = fx.tx.b.load(u32t, None, s, None, [])?;
            let c = fx.tx.const_u32(*value);
            let eq = fx.tx.b.i_equal(bt, None, x, c)?;
            fx.tx.b.store(p, eq, None, [])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Survey;
    use crate::ir::structurize::Breaking;
    use crate::ir::{nesting_depth, BlockId, Cond, Label, Node, RegId};

    fn cond() -> Cond {
        Cond {
            pred: RegId(0),
            negate: false,
        }
    }

    /// Without blocks with breaks the survey's depth is `nesting_depth`'s
    /// and `Breaking::of` finds no node (so the back end skips both).
    #[test]
    fn survey_depth_is_the_nesting_depth() {
        let inner = || Node::Loop {
            label: BlockId(3),
            body: vec![
                Node::Code(BlockId(4)),
                Node::If {
                    cond: cond(),
                    then: vec![Node::Br(Label::Loop(BlockId(3)))],
                    otherwise: vec![],
                },
            ],
        };
        let trees = [
            vec![],
            vec![Node::Code(BlockId(0)), Node::Unreachable],
            vec![inner()],
            vec![
                Node::Block {
                    label: BlockId(1),
                    body: vec![Node::If {
                        cond: cond(),
                        then: vec![inner(), Node::Code(BlockId(2))],
                        otherwise: vec![Node::If {
                            cond: cond(),
                            then: vec![],
                            otherwise: vec![inner()],
                        }],
                    }],
                    breaks: false,
                },
                inner(),
            ],
        ];
        for tree in &trees {
            let survey = Survey::of(tree);
            assert!(!survey.breaking_blocks);
            assert_eq!(survey.plain_depth, nesting_depth(tree), "{tree:?}");
            assert!(tree.iter().all(|n| !Breaking::of(tree).contains(n)));
        }
        assert_eq!(Survey::of(&trees[3]).plain_depth, 4);
        assert_eq!(Survey::of(&trees[3]).loops.len(), 3);
    }
}
