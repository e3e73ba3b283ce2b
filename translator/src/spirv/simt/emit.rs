//! The SIMT emitter: a function's structured tree as uniform control flow
//! with per-lane states (see the module docs of [`super`]).
//!
//! Lane states (`u32`): 0 runs; [`control::code`] of a label: jumped to that
//! label, waiting for it; an `if`'s own codes: waiting for the other arm or
//! the end of the `if`; [`RETURNED`]: returned; [`INACTIVE`]: the caller's
//! lane was not active at the call.

use super::exchange;
use crate::ir::analysis::subgroups::{is_cross_lane, reads_activemask};
use crate::ir::{BlockId, Cond, FuncKind, Inst, Opcode, PisaInst};
use crate::ir::{Label, Node};
use crate::spirv::control::{self, code, ControlVars, Emitter};
use crate::spirv::error::TranslateError;
use crate::spirv::error::R;
use crate::spirv::function::{guarded, variable, FunctionCx, LaneLoopVars, SimtCx};
use crate::spirv::lower::{self, Ins};
use crate::spirv::types::ModuleCx;
use rspirv::spirv::{LoopControl, SelectionControl, Word};

pub const RETURNED: u32 = u32::MAX;
pub const INACTIVE: u32 = u32::MAX - 1;
/// The first of the codes `if`s use (above every label code).
const IF_CODES: u32 = 1 << 30;

/// The variables of a SIMT function, declared with its registers.
#[derive(Debug, Clone, Copy)]
pub struct SimtVars {
    state: Word,
    lane_loop: LaneLoopVars,
    /// The return value (functions with one).
    ret: Option<Word>,
}

impl SimtVars {
    pub fn declare(tx: &mut ModuleCx, f: &crate::ir::Function) -> SimtVars {
        let u32t = tx.uint(32);
        let ret = match (f.kind, f.ret) {
            (FuncKind::Function, Some(t)) => {
                let t = tx.reg_ty(t);
                Some(variable(tx, t, "pisa_return_value"))
            }
            _ => None,
        };
        SimtVars {
            state: variable(tx, u32t, "pisa_lane_state"),
            lane_loop: LaneLoopVars::declare(tx),
            ret,
        }
    }
}

struct SimtEmitter {
    /// Emits the code between sync points (its constructs are its own).
    plain: Emitter,
    vars: SimtVars,
    next_code: u32,
}

/// Emits a SIMT function's body; `entry_active`: the extra parameter of a
/// (non-kernel) SIMT function, the caller's active flag.
pub fn emit_body(
    fx: &mut FunctionCx,
    tree: &[Node],
    control_vars: ControlVars,
    vars: SimtVars,
    entry_active: Option<Word>,
) -> R<()> {
    fx.simt = Some(SimtCx {
        lane_loop: Some(vars.lane_loop),
        ..SimtCx::default()
    });
    let u32t = fx.tx.uint(32);
    match entry_active {
        Some(a) => {
            let (run, wait) = (fx.tx.const_u32(0), fx.tx.const_u32(INACTIVE));
            let s = fx.tx.b.select(u32t, None, a, run, wait)?;
            fx.tx.b.store(vars.state, s, None, [])?;
        }
        // a kernel: every invocation starts active, and the counters of
        // loops over the whole work-group start at zero
        None => exchange::init(fx)?,
    }
    let mut em = SimtEmitter {
        plain: Emitter::new(control_vars),
        vars,
        next_code: IF_CODES,
    };
    em.nodes(fx, tree)?;
    match vars.ret {
        Some(r) => {
            let t = fx.tx.reg_ty(fx.func.ret.expect("a return type"));
            let v = fx.tx.b.load(t, None, r, None, [])?;
            fx.tx.b.ret_value(v)?;
        }
        None => fx.tx.b.ret()?,
    }
    fx.simt = None;
    Ok(())
}

/// Whether `i` must be executed by every invocation together.
fn is_sync(fx: &FunctionCx, i: &PisaInst) -> bool {
    crate::ir::analysis::subgroups::is_sync_point(
        fx.tx.program,
        &fx.tx.ids.function_index,
        &fx.tx.simt.functions,
        i,
    )
}

/// A node that runs natively under `if (state == 0)`: no sync point, no
/// return, and every jump lands inside it.
fn plain(fx: &FunctionCx, n: &Node, open: &mut Vec<Label>) -> bool {
    crate::ir::stack_safe(|| match n {
        Node::Code(b) => !fx.func.block(*b).insts.iter().any(|i| match i {
            Inst::Pisa(p) => is_sync(fx, p),
            _ => false,
        }),
        Node::Block { label, body, .. } => {
            open.push(Label::Merge(*label));
            let all = body.iter().all(|n| plain(fx, n, open));
            open.pop();
            all
        }
        Node::Loop { label, body } => {
            open.push(Label::Loop(*label));
            open.push(Label::Exit(*label));
            let all = body.iter().all(|n| plain(fx, n, open));
            open.truncate(open.len() - 2);
            all
        }
        Node::If {
            then, otherwise, ..
        } => then
            .iter()
            .chain(otherwise.iter())
            .all(|n| plain(fx, n, open)),
        Node::Br(l) => open.contains(l),
        Node::Return { .. } | Node::Unreachable => false,
    })
}

impl SimtEmitter {
    fn nodes(&mut self, fx: &mut FunctionCx, nodes: &[Node]) -> R<()> {
        crate::ir::stack_safe(|| self.nodes_deep(fx, nodes))
    }

    fn nodes_deep(&mut self, fx: &mut FunctionCx, nodes: &[Node]) -> R<()> {
        let mut start = 0;
        for (i, n) in nodes.iter().enumerate() {
            if plain(fx, n, &mut Vec::new()) {
                continue;
            }
            self.plain_run(fx, &nodes[start..i])?;
            self.node(fx, n)?;
            start = i + 1;
        }
        self.plain_run(fx, &nodes[start..])
    }

    /// Plain nodes, run by the active lanes.
    fn plain_run(&mut self, fx: &mut FunctionCx, nodes: &[Node]) -> R<()> {
        if nodes.is_empty() {
            return Ok(());
        }
        let active = self.active(fx)?;
        let (then, merge) = (fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.selection_merge(merge, SelectionControl::NONE)?;
        fx.tx.b.branch_conditional(active, then, merge, [])?;
        fx.tx.b.begin_block(Some(then))?;
        self.plain.open = true;
        self.plain.nodes(fx, nodes)?;
        if self.plain.open {
            fx.tx.b.branch(merge)?;
        }
        fx.tx.b.begin_block(Some(merge))?;
        Ok(())
    }

    fn node(&mut self, fx: &mut FunctionCx, n: &Node) -> R<()> {
        match n {
            Node::Code(b) => self.code(fx, *b),
            Node::Block { label, body, .. } => {
                self.nodes(fx, body)?;
                self.arrive(fx, code(Label::Merge(*label)))
            }
            Node::Loop { label, body } => self.uniform_loop(fx, *label, body),
            Node::If {
                cond,
                then,
                otherwise,
            } => self.selection(fx, *cond, then, otherwise),
            Node::Br(l) => self.wait_for(fx, code(*l)),
            Node::Return { value, .. } => {
                if let (Some(v), Some(ptr)) = (value, self.vars.ret) {
                    let ty = fx.func.ret.ok_or_else(|| {
                        TranslateError::Internal("a value returned from a void function".into())
                    })?;
                    let active = self.active(fx)?;
                    guarded(fx, active, |fx| {
                        let v = lower::read_value(fx, v, ty)?;
                        fx.tx.b.store(ptr, v, None, [])?;
                        Ok(())
                    })?;
                }
                self.wait_for(fx, RETURNED)
            }
            // undefined behaviour (the end of a function with a result)
            Node::Unreachable => self.wait_for(fx, RETURNED),
        }
    }

    /// A basic block with sync points: the code between them under
    /// `if (state == 0)`, the sync points for every invocation.
    fn code(&mut self, fx: &mut FunctionCx, b: BlockId) -> R<()> {
        let insts = &fx.func.block(b).insts;
        let mut start = 0;
        for (i, inst) in insts.iter().enumerate() {
            let Inst::Pisa(p) = inst else { continue };
            if !is_sync(fx, p) {
                continue;
            }
            self.guarded_insts(fx, &insts[start..i])?;
            self.sync(fx, p)?;
            start = i + 1;
        }
        self.guarded_insts(fx, &insts[start..])
    }

    fn guarded_insts(&mut self, fx: &mut FunctionCx, insts: &[Inst]) -> R<()> {
        if insts.is_empty() {
            return Ok(());
        }
        let active = self.active(fx)?;
        guarded(fx, active, |fx| {
            for i in insts {
                control::lower_inst(fx, i)?;
            }
            Ok(())
        })
    }

    /// One sync point, executed by every invocation.
    fn sync(&mut self, fx: &mut FunctionCx, i: &PisaInst) -> R<()> {
        fx.line(i.span);
        let active = self.active(fx)?;
        if reads_activemask(fx.tx.program, i) {
            let mask = exchange::activemask(fx, active)?;
            if let Some(s) = fx.simt.as_mut() {
                s.activemask = Some(mask);
            }
        }
        let ins = Ins {
            i,
            name: i.opcode.name(),
        };
        let r = if is_cross_lane(i) {
            lower::refuse_float(fx, i)?;
            exchange::lower(fx, &ins, active)
        } else if i.opcode == Opcode::BarrierWorkgroup {
            lower::lower(fx, i)
        } else if i.opcode == Opcode::Call {
            if let Some(s) = fx.simt.as_mut() {
                s.active = Some(active);
            }
            lower::lower(fx, i)
        } else {
            // an instruction that reads %activemask
            guarded(fx, active, |fx| lower::lower(fx, i))
        };
        if let Some(s) = fx.simt.as_mut() {
            s.active = None;
            s.activemask = None;
        }
        r
    }

    /// `state == 0`.
    fn active(&self, fx: &mut FunctionCx) -> R<Word> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let s = fx.tx.b.load(u32t, None, self.vars.state, None, [])?;
        let zero = fx.tx.const_u32(0);
        Ok(fx.tx.b.i_equal(bt, None, s, zero)?)
    }

    /// `state = (state == from) ? to : state`.
    fn transition(&self, fx: &mut FunctionCx, from: u32, to: u32) -> R<()> {
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        let s = fx.tx.b.load(u32t, None, self.vars.state, None, [])?;
        let f = fx.tx.const_u32(from);
        let t = fx.tx.const_u32(to);
        let hit = fx.tx.b.i_equal(bt, None, s, f)?;
        let s = fx.tx.b.select(u32t, None, hit, t, s)?;
        fx.tx.b.store(self.vars.state, s, None, [])?;
        Ok(())
    }

    /// Active lanes start waiting for `code`.
    fn wait_for(&self, fx: &mut FunctionCx, code: u32) -> R<()> {
        self.transition(fx, 0, code)
    }

    /// Lanes waiting for `code` are active again.
    fn arrive(&self, fx: &mut FunctionCx, code: u32) -> R<()> {
        self.transition(fx, code, 0)
    }

    fn selection(
        &mut self,
        fx: &mut FunctionCx,
        cond: Cond,
        then: &[Node],
        otherwise: &[Node],
    ) -> R<()> {
        let (to_else, to_end) = (self.next_code, self.next_code + 1);
        self.next_code += 2;
        let u32t = fx.tx.uint(32);
        let bt = fx.tx.bool_ty();
        // active lanes whose condition is false wait for the other arm
        let c = control::read_cond(fx, cond)?;
        let active = self.active(fx)?;
        let not_c = fx.tx.b.logical_not(bt, None, c)?;
        let goes_else = fx.tx.b.logical_and(bt, None, active, not_c)?;
        let s = fx.tx.b.load(u32t, None, self.vars.state, None, [])?;
        let e = fx.tx.const_u32(to_else);
        let s = fx.tx.b.select(u32t, None, goes_else, e, s)?;
        fx.tx.b.store(self.vars.state, s, None, [])?;
        self.nodes(fx, then)?;
        if otherwise.is_empty() {
            return self.arrive(fx, to_else);
        }
        self.wait_for(fx, to_end)?;
        self.arrive(fx, to_else)?;
        self.nodes(fx, otherwise)?;
        self.arrive(fx, to_end)
    }

    /// A loop every invocation iterates while any lane of the work-group
    /// still runs it, so its barriers are uniform.
    fn uniform_loop(&mut self, fx: &mut FunctionCx, label: BlockId, body: &[Node]) -> R<()> {
        let bt = fx.tx.bool_ty();
        let flag = self.plain.vars.exited.get(&label).copied();
        let (header, top, cont, merge) = (fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id());
        fx.tx.b.branch(header)?;
        fx.tx.b.begin_block(Some(header))?;
        fx.tx.b.loop_merge(merge, cont, LoopControl::NONE, [])?;
        fx.tx.b.branch(top)?;
        fx.tx.b.begin_block(Some(top))?;
        let active = self.active(fx)?;
        let any = exchange::any_active(fx, active)?;
        if let Some(f) = flag {
            // the loop's only real exit: set unless the driver cuts it short
            let done = fx.tx.b.logical_not(bt, None, any)?;
            fx.tx.b.store(f, done, None, [])?;
        }
        let body_start = fx.tx.b.id();
        fx.tx.b.branch_conditional(any, body_start, merge, [])?;
        fx.tx.b.begin_block(Some(body_start))?;
        self.nodes(fx, body)?;
        // falling off the end of the body leaves the loop; a `continue`
        // runs the next iteration
        let exit = code(Label::Exit(label));
        self.wait_for(fx, exit)?;
        self.arrive(fx, code(Label::Loop(label)))?;
        fx.tx.b.branch(cont)?;
        fx.tx.b.begin_block(Some(cont))?;
        match (flag, self.plain.vars.never) {
            (Some(_), Some(never)) => fx.tx.b.branch_conditional(never, merge, header, [])?,
            _ => fx.tx.b.branch(header)?,
        }
        fx.tx.b.begin_block(Some(merge))?;
        if let Some(f) = flag {
            self.plain.check_exit(fx, f)?;
        }
        self.arrive(fx, exit)
    }
}
