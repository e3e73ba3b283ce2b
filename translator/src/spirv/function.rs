//! Functions: registers as Function variables, lexical scopes, basic blocks,
//! and the dispatch loop that gives any goto graph structured SPIR-V
//! (docs/control-flow.md).

use super::lower::{self, Flow};
use super::types::Tx;
use super::TranslateError;
use crate::diag::Span;
use crate::syntax::ast::*;
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{self, StorageClass, Word};
use std::collections::HashMap;

/// What a register name denotes in the function being emitted.
#[derive(Debug, Clone, Copy)]
pub enum Reg {
    Val {
        ptr: Word,
        ty: Ty,
    },
    Pred {
        ptr: Word,
    },
    /// A kernel parameter (read with `ld.param` only).
    Param,
}

pub struct Fx<'t, 'm> {
    pub tx: &'t mut Tx<'m>,
    pub func: &'m FuncDecl,
    pub index: u32,
    scopes: Vec<Vec<(Name, Option<Reg>)>>,
    pub(crate) regs: HashMap<Name, Reg>,
    /// The dispatch loop, when the function has more than one block.
    pub dispatch: Option<Dispatch>,
    /// Kernel argument offsets by parameter name.
    params: HashMap<Name, u32>,
    decl_vars: HashMap<DeclKey, Word>,
}

#[derive(Debug, Clone, Copy)]
pub struct Dispatch {
    pub state: Word,
    pub switch_merge: Word,
    /// The exit case's number (falling off the end, `return.cond`).
    pub exit: u32,
    /// Where `return.cond` leaves the value the exit case returns.
    pub retval: Option<Word>,
}

/// Block structure, computed identically by the analysis and emission walks.
#[derive(Default)]
struct Splitter {
    block: usize,
    empty: bool,
    pending: bool,
}

impl Splitter {
    fn new() -> Self {
        Splitter {
            block: 0,
            empty: true,
            pending: false,
        }
    }
    /// Returns true when the label starts a new block.
    fn label(&mut self) -> bool {
        let split = !self.empty || self.pending;
        if split {
            self.block += 1;
        }
        self.pending = false;
        self.empty = true;
        split
    }
    fn before_instr(&mut self) -> bool {
        let split = self.pending;
        if split {
            self.block += 1;
            self.pending = false;
        }
        self.empty = false;
        split
    }
    fn after_instr(&mut self, ends_block: bool) {
        self.pending |= ends_block;
    }
}

/// `goto`, `return` and their conditional forms end a basic block; the
/// instruction's catalog form says which it is.
fn ends_block(i: &Instr) -> bool {
    matches!(opcode(i), "goto" | "return")
}

fn opcode(i: &Instr) -> &'static str {
    crate::catalog::catalog().forms[i.form.form as usize]
        .opcode
        .as_str()
}

/// Numbers the basic blocks. With `split_convergent`, convergent
/// instructions (see [`Convergent`]) also end blocks.
fn analyze(
    b: &Block,
    sp: &mut Splitter,
    labels: &mut HashMap<Name, usize>,
    gotos: &mut bool,
    conv: &Convergent,
    split_convergent: bool,
) {
    for s in &b.stmts {
        match s {
            Stmt::Label(n, _) => {
                sp.label();
                labels.insert(*n, sp.block);
            }
            Stmt::Instr(i) => {
                sp.before_instr();
                sp.after_instr(ends_block(i) || (split_convergent && conv.is(i)));
                *gotos |= opcode(i) == "goto";
            }
            Stmt::Block(inner) => analyze(inner, sp, labels, gotos, conv, split_convergent),
            _ => {}
        }
    }
}

/// Functions that contain a work-group barrier, directly or through calls.
/// A work-group must execute a barrier together, so inside the dispatch
/// loop such instructions (barriers, and calls to such functions) run at the
/// loop's reconvergence point (docs/control-flow.md).
#[derive(Default)]
pub struct Convergent(std::collections::HashSet<Name>, Vec<Name>);

impl Convergent {
    pub fn compute(tx: &Tx) -> Convergent {
        let mut set = std::collections::HashSet::new();
        let taken = tx.address_taken.clone();
        loop {
            let before = set.len();
            for (_, f) in tx.functions() {
                if set.contains(&f.name) {
                    continue;
                }
                if let Some(b) = &f.body {
                    if any_instr(b, &mut |i| convergent_instr(&set, &taken, i)) {
                        set.insert(f.name);
                    }
                }
            }
            if set.len() == before {
                return Convergent(set, taken);
            }
        }
    }

    pub fn is(&self, i: &Instr) -> bool {
        convergent_instr(&self.0, &self.1, i)
    }
}

fn convergent_instr(set: &std::collections::HashSet<Name>, taken: &[Name], i: &Instr) -> bool {
    match opcode(i) {
        "barrier" => true,
        "call" => i.operands.iter().any(|op| match op {
            Operand::Call(c) => match c.target {
                Operand::Symbol(n, _) => set.contains(&n),
                _ => taken.iter().any(|n| set.contains(n)),
            },
            _ => false,
        }),
        _ => false,
    }
}

fn any_instr(b: &Block, f: &mut dyn FnMut(&Instr) -> bool) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Instr(i) => f(i),
        Stmt::Block(inner) => any_instr(inner, f),
        _ => false,
    })
}

/// Reports recursion (direct or mutual) with the cycle it forms.
pub fn check_recursion(tx: &Tx) -> Result<(), TranslateError> {
    let funcs: Vec<&FuncDecl> = tx.functions().map(|(_, f)| f).collect();
    let index: HashMap<Name, usize> = funcs.iter().enumerate().map(|(i, f)| (f.name, i)).collect();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); funcs.len()];
    for (i, f) in funcs.iter().enumerate() {
        if let Some(b) = &f.body {
            calls(b, &tx.address_taken, &mut |n| {
                if let Some(&j) = index.get(&n) {
                    if !edges[i].contains(&j) {
                        edges[i].push(j);
                    }
                }
            });
        }
    }
    // iterative DFS with colors
    let mut color = vec![0u8; funcs.len()];
    for start in 0..funcs.len() {
        if color[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        color[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = edges[v].get(*next) {
                *next += 1;
                if color[w] == 1 {
                    let pos = stack.iter().position(|&(x, _)| x == w).unwrap_or(0);
                    let mut names: Vec<String> = stack[pos..]
                        .iter()
                        .map(|&(x, _)| format!("@{}", tx.m.name(funcs[x].name)))
                        .collect();
                    names.push(format!("@{}", tx.m.name(funcs[w].name)));
                    return Err(TranslateError::Recursion {
                        cycle: names.join(" -> "),
                    });
                }
                if color[w] == 0 {
                    color[w] = 1;
                    stack.push((w, 0));
                }
            } else {
                color[v] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The functions a body may call: direct callees, and for calls through a
/// register every function whose address the module takes.
fn calls(b: &Block, taken: &[Name], f: &mut impl FnMut(Name)) {
    for s in &b.stmts {
        match s {
            Stmt::Instr(i) => {
                for op in &i.operands {
                    if let Operand::Call(c) = op {
                        match c.target {
                            Operand::Symbol(n, _) => f(n),
                            _ => taken.iter().for_each(|&n| f(n)),
                        }
                    }
                }
            }
            Stmt::Block(inner) => calls(inner, taken, f),
            _ => {}
        }
    }
}

/// Functions whose address the module takes (`addrof`, symbol
/// initializers): the possible targets of calls through registers.
pub fn address_taken(m: &crate::Module) -> Vec<Name> {
    let funcs: std::collections::HashSet<Name> = m.functions().map(|f| f.name).collect();
    let mut out = Vec::new();
    let mut add = |n: Name| {
        if funcs.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    };
    for v in m.globals() {
        for e in v.init.iter().flatten() {
            if let InitElem::Symbol { name, .. } = e {
                add(*name);
            }
        }
    }
    for f in m.functions() {
        if let Some(b) = &f.body {
            any_instr(b, &mut |i| {
                if opcode(i) == "addrof" {
                    for op in &i.operands {
                        if let Operand::Symbol(n, _) = op {
                            add(*n);
                        }
                    }
                }
                false
            });
        }
    }
    out
}

/// Declares every function (so calls can refer forward), then emits bodies.
///
/// A module without kernels is a library: its exported functions carry
/// `Export` linkage and its imports become `Import` declarations, so that
/// SPIR-V linkers (and `spirv-val`) accept it. Vulkan itself can only load
/// modules with entry points (docs/abi.md).
pub fn emit_all(tx: &mut Tx<'_>) -> Result<(), TranslateError> {
    let funcs: Vec<(usize, &FuncDecl)> = tx.functions().collect();
    let conv = Convergent::compute(tx);
    let library = !funcs.iter().any(|(_, f)| f.kind == FuncKind::Kernel);
    if library {
        tx.cap(spirv::Capability::Linkage);
    }
    for (_, f) in &funcs {
        if f.body.is_none() && !library {
            continue;
        }
        let id = tx.b.id();
        tx.func_ids.insert(f.name, id);
        let name = tx.m.name(f.name).to_string();
        tx.b.name(id, name.clone());
        let kind = match f.linkage {
            Linkage::Export if library => Some(spirv::LinkageType::Export),
            Linkage::Import => Some(spirv::LinkageType::Import),
            _ => None,
        };
        if let Some(kind) = kind {
            tx.b.decorate(
                id,
                spirv::Decoration::LinkageAttributes,
                [SOp::LiteralString(name), SOp::LinkageType(kind)],
            );
        }
    }
    for (i, f) in funcs {
        if f.body.is_some() {
            emit_function(tx, i as u32, f, &conv)?;
        } else if library {
            let (ret, fty, params) = fn_type(tx, f);
            let id = tx.func_ids[&f.name];
            tx.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fty)?;
            for p in params {
                tx.b.function_parameter(p)?;
            }
            tx.b.end_function()?;
        }
    }
    Ok(())
}

pub fn fn_type(tx: &mut Tx, f: &FuncDecl) -> (Word, Word, Vec<Word>) {
    let ret = match f.ret {
        Some(t) if f.kind == FuncKind::Function => tx.reg_ty(t),
        _ => tx.void(),
    };
    let params: Vec<Word> = f
        .params
        .iter()
        .filter_map(|p| match p.kind {
            ParamKind::Reg(t) if f.kind == FuncKind::Function => Some(tx.reg_ty(t)),
            _ => None,
        })
        .collect();
    let fty = tx.b.type_function(ret, params.clone());
    (ret, fty, params)
}

fn emit_function<'m>(
    tx: &mut Tx<'m>,
    index: u32,
    f: &'m FuncDecl,
    conv: &Convergent,
) -> Result<(), TranslateError> {
    let Some(body) = &f.body else { return Ok(()) };
    let (ret, fty, param_tys) = fn_type(tx, f);
    let id = tx.func_ids[&f.name];
    tx.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fty)?;
    let param_ids: Vec<Word> = param_tys
        .iter()
        .map(|&t| tx.b.function_parameter(t))
        .collect::<Result<_, _>>()?;
    tx.b.begin_block(None)?;

    let mut labels = HashMap::new();
    let mut sp = Splitter::new();
    let mut gotos = false;
    analyze(body, &mut sp, &mut labels, &mut gotos, conv, false);
    // only `goto` needs the state machine; `return.cond` is a selection
    let dispatch = gotos;
    // in the dispatch loop, barriers wait for the whole work-group at the
    // loop's reconvergence point
    let converge = dispatch && any_instr(body, &mut |i| conv.is(i));
    if converge {
        labels.clear();
        sp = Splitter::new();
        analyze(body, &mut sp, &mut labels, &mut gotos, conv, true);
    }
    let blocks = sp.block + 1;

    let mut fx = Fx {
        tx,
        func: f,
        index,
        scopes: vec![Vec::new()],
        regs: HashMap::new(),
        dispatch: None,
        params: HashMap::new(),
        decl_vars: HashMap::new(),
    };
    // every variable first (SPIR-V wants Function variables at the top of
    // the entry block): parameters, then all registers of the body
    let mut pi = 0;
    let kernel_params = fx
        .tx
        .layout
        .kernels
        .iter()
        .find(|k| k.name == fx.tx.m.name(f.name))
        .map(|k| k.params.clone())
        .unwrap_or_default();
    let mut kp = kernel_params.iter();
    let mut param_stores = Vec::new();
    for p in &f.params {
        match (p.kind, p.name) {
            (ParamKind::Reg(ty), Some((n, _))) => {
                let ptr = fx.new_reg(n, ty)?;
                param_stores.push((ptr, param_ids[pi]));
                pi += 1;
            }
            (ParamKind::Reg(_), None) => pi += 1,
            (ParamKind::Param(_), Some((n, _))) => {
                let off = kp.next().map_or(0, |s| s.offset);
                fx.params.insert(n, off);
                fx.declare(n, Reg::Param);
            }
            (ParamKind::Param(_), None) => {
                kp.next();
            }
            _ => {}
        }
    }
    fx.declare_all(body)?;
    let u32t = fx.tx.uint(32);
    let pu32 = fx.tx.ptr(StorageClass::Function, u32t);
    let state = dispatch.then(|| fx.tx.b.variable(pu32, None, StorageClass::Function, None));
    let retval = match f.ret {
        Some(ty) if dispatch && f.kind == FuncKind::Function => {
            let t = fx.tx.reg_ty(ty);
            let pt = fx.tx.ptr(StorageClass::Function, t);
            Some(fx.tx.b.variable(pt, None, StorageClass::Function, None))
        }
        _ => None,
    };
    let site = converge.then(|| fx.tx.b.variable(pu32, None, StorageClass::Function, None));
    for (ptr, v) in param_stores {
        fx.tx.b.store(ptr, v, None, [])?;
    }

    if let Some(state) = state {
        emit_dispatch(
            &mut fx,
            body,
            &labels,
            blocks,
            (state, retval),
            site,
            conv,
            ret,
        )?;
    } else {
        let mut em = Emitter {
            sp: Splitter::new(),
            cases: &[],
            labels: &labels,
            terminated: false,
            conv,
            sites: None,
        };
        em.walk(&mut fx, body, false)?;
        em.close(&mut fx, None)?;
    }
    fx.tx.b.end_function()?;
    Ok(())
}

/// Convergent instructions met in the dispatch loop, run later at its
/// reconvergence point: the instruction and the register bindings in scope.
struct Sites<'a> {
    var: Word,
    exit: Word,
    list: Vec<(&'a Instr, HashMap<Name, Reg>, usize)>,
}

/// The dispatch loop (docs/control-flow.md). With convergent instructions
/// (`site` is set) it sits inside an outer loop: a case that reaches a
/// barrier records its site and breaks out; every work-item that has not
/// returned then meets at the inner loop's merge, runs the site's
/// instruction together, and re-enters the dispatch loop.
#[allow(clippy::too_many_arguments)]
fn emit_dispatch<'m>(
    fx: &mut Fx<'_, 'm>,
    body: &'m Block,
    labels: &HashMap<Name, usize>,
    blocks: usize,
    (state, retval): (Word, Option<Word>),
    site: Option<Word>,
    conv: &Convergent,
    ret: Word,
) -> Result<(), TranslateError> {
    let u32t = fx.tx.uint(32);
    let zero = fx.tx.const_u32(0);
    fx.tx.b.store(state, zero, None, [])?;
    let header = fx.tx.b.id();
    let body_l = fx.tx.b.id();
    let cont = fx.tx.b.id();
    let merge = fx.tx.b.id();
    let sw_merge = fx.tx.b.id();
    // one case per basic block, plus an exit case for falling off the end
    let cases: Vec<Word> = (0..=blocks).map(|_| fx.tx.b.id()).collect();
    let outer = site.map(|_| (fx.tx.b.id(), fx.tx.b.id(), fx.tx.b.id()));
    if let Some((o_header, o_merge, o_cont)) = outer {
        fx.tx.b.branch(o_header)?;
        fx.tx.b.begin_block(Some(o_header))?;
        fx.tx
            .b
            .loop_merge(o_merge, o_cont, spirv::LoopControl::NONE, [])?;
    }
    fx.tx.b.branch(header)?;
    fx.tx.b.begin_block(Some(header))?;
    fx.tx
        .b
        .loop_merge(merge, cont, spirv::LoopControl::NONE, [])?;
    fx.tx.b.branch(body_l)?;
    fx.tx.b.begin_block(Some(body_l))?;
    let s = fx.tx.b.load(u32t, None, state, None, [])?;
    fx.tx
        .b
        .selection_merge(sw_merge, spirv::SelectionControl::NONE)?;
    fx.tx.b.switch(
        s,
        sw_merge,
        cases
            .iter()
            .enumerate()
            .map(|(i, &l)| (SOp::LiteralBit32(i as u32), l)),
    )?;
    fx.dispatch = Some(Dispatch {
        state,
        switch_merge: sw_merge,
        exit: blocks as u32,
        retval,
    });
    let mut em = Emitter {
        sp: Splitter::new(),
        cases: &cases,
        labels,
        terminated: false,
        conv,
        sites: site.map(|var| Sites {
            var,
            exit: merge,
            list: Vec::new(),
        }),
    };
    fx.tx.b.begin_block(Some(cases[0]))?;
    em.walk(fx, body, false)?;
    em.close(fx, Some(blocks))?;
    fx.tx.b.begin_block(Some(cases[blocks]))?;
    em.close(fx, None)?;
    fx.tx.b.begin_block(Some(sw_merge))?;
    fx.tx.b.branch(cont)?;
    // The dispatch loop is left only by returning (or at a barrier), but
    // some drivers cap loop iterations to survive runaway shaders (Mesa 22's
    // llvmpipe breaks out of loops after 65,535 iterations in all). The back
    // edge tests a condition the compiler cannot see is always false
    // (work_dim is 1..3), so the loop's exit stays in the program; reaching
    // it sets the launch's status word and the runtime reports an error
    // instead of a wrong result.
    fx.tx.b.begin_block(Some(cont))?;
    let stop = never(fx)?;
    fx.tx.b.branch_conditional(stop, merge, header, [])?;
    fx.tx.b.begin_block(Some(merge))?;
    let exit = match (outer, em.sites) {
        (Some((o_header, o_merge, o_cont)), Some(sites)) => {
            // the reconvergence point: run the recorded site's instruction
            let stop = never(fx)?;
            let run = fx.tx.b.id();
            fx.tx.b.branch_conditional(stop, o_merge, run, [])?;
            fx.tx.b.begin_block(Some(run))?;
            let k = fx.tx.b.load(u32t, None, sites.var, None, [])?;
            let done = fx.tx.b.id();
            let labels_k: Vec<Word> = sites.list.iter().map(|_| fx.tx.b.id()).collect();
            fx.tx
                .b
                .selection_merge(done, spirv::SelectionControl::NONE)?;
            fx.tx.b.switch(
                k,
                done,
                labels_k
                    .iter()
                    .enumerate()
                    .map(|(i, &l)| (SOp::LiteralBit32(i as u32), l)),
            )?;
            for ((ins, regs, block), l) in sites.list.into_iter().zip(labels_k) {
                fx.tx.b.begin_block(Some(l))?;
                let saved = std::mem::replace(&mut fx.regs, regs);
                let (line, col) = fx.tx.m.line_col(ins.span);
                let file = fx.tx.file_id;
                fx.tx.b.line(file, line, col);
                lower::lower(fx, ins, block, labels)?;
                fx.regs = saved;
                fx.tx.b.branch(done)?;
            }
            fx.tx.b.begin_block(Some(done))?;
            fx.tx.b.branch(o_cont)?;
            fx.tx.b.begin_block(Some(o_cont))?;
            fx.tx.b.branch(o_header)?;
            fx.tx.b.begin_block(Some(o_merge))?;
            o_merge
        }
        _ => merge,
    };
    let _ = exit;
    let addr = fx.tx.push_addr(super::entry::Push::Status)?;
    let pt = fx.tx.ptr(StorageClass::PhysicalStorageBuffer, u32t);
    let p = fx.tx.b.convert_u_to_ptr(pt, None, addr)?;
    let one = fx.tx.const_u32(1);
    fx.tx.b.store(
        p,
        one,
        Some(spirv::MemoryAccess::ALIGNED),
        [SOp::LiteralBit32(4)],
    )?;
    if ret == fx.tx.void() {
        fx.tx.b.ret()?;
    } else {
        let u = fx.tx.b.undef(ret, None);
        fx.tx.b.ret_value(u)?;
    }
    fx.tx.uses_dispatch = true;
    Ok(())
}

/// `work_dim == 0xFFFFFFFF`: always false, but not to the compiler.
fn never(fx: &mut Fx) -> Result<Word, TranslateError> {
    let dims = fx.tx.push_load(super::entry::Push::WorkDim as u32)?;
    let all = fx.tx.const_u32(u32::MAX);
    let bt = fx.tx.bool_ty();
    Ok(fx.tx.b.i_equal(bt, None, dims, all)?)
}

/// The emission walk: mirrors [`analyze`] and closes each case when a new
/// basic block starts.
struct Emitter<'a, 'm> {
    sp: Splitter,
    cases: &'a [Word],
    pub labels: &'a HashMap<Name, usize>,
    terminated: bool,
    conv: &'a Convergent,
    sites: Option<Sites<'m>>,
}

impl<'m> Emitter<'_, 'm> {
    fn walk(
        &mut self,
        fx: &mut Fx<'_, 'm>,
        b: &'m Block,
        scoped: bool,
    ) -> Result<(), TranslateError> {
        if scoped {
            fx.push_scope(b);
        }
        let linear = self.cases.is_empty();
        for s in &b.stmts {
            match s {
                // straight-line code: labels mark nothing, and code after a
                // `return` goes to a fresh (unreachable) block
                Stmt::Label(..) if linear => {}
                Stmt::Instr(i) if linear => {
                    if std::mem::take(&mut self.terminated) {
                        fx.tx.b.begin_block(None)?;
                    }
                    let (line, col) = fx.tx.m.line_col(i.span);
                    let file = fx.tx.file_id;
                    fx.tx.b.line(file, line, col);
                    let flow = lower::lower(fx, i, 0, self.labels)?;
                    self.terminated = flow == Flow::Terminated;
                }
                Stmt::Label(..) => {
                    let prev = self.sp.block;
                    if self.sp.label() {
                        self.close(fx, Some(prev + 1))?;
                        fx.tx.b.begin_block(Some(self.cases[self.sp.block]))?;
                    }
                }
                Stmt::Instr(i) => {
                    let prev = self.sp.block;
                    if self.sp.before_instr() {
                        self.close(fx, Some(prev + 1))?;
                        fx.tx.b.begin_block(Some(self.cases[self.sp.block]))?;
                    }
                    let (line, col) = fx.tx.m.line_col(i.span);
                    let file = fx.tx.file_id;
                    fx.tx.b.line(file, line, col);
                    if let (Some(sites), true) = (self.sites.as_mut(), self.conv.is(i)) {
                        // leave the dispatch loop; the instruction runs at
                        // its reconvergence point, then the next block
                        let next = fx.tx.const_u32(self.sp.block as u32 + 1);
                        let k = fx.tx.const_u32(sites.list.len() as u32);
                        fx.tx.b.store(sites.var, k, None, [])?;
                        let d = fx
                            .dispatch
                            .ok_or_else(|| TranslateError::Internal("no dispatch loop".into()))?;
                        fx.tx.b.store(d.state, next, None, [])?;
                        fx.tx.b.branch(sites.exit)?;
                        sites.list.push((i, fx.regs.clone(), self.sp.block));
                        self.terminated = true;
                        self.sp.after_instr(true);
                        continue;
                    }
                    let flow = lower::lower(fx, i, self.sp.block, self.labels)?;
                    self.terminated = flow == Flow::Terminated;
                    self.sp
                        .after_instr(ends_block(i) || (self.sites.is_some() && self.conv.is(i)));
                }
                Stmt::Block(inner) => self.walk(fx, inner, true)?,
                _ => {}
            }
        }
        if scoped {
            fx.pop_scope();
        }
        Ok(())
    }

    /// Ends the current block: falls through to `next`, or returns at the
    /// end of the function.
    fn close(&mut self, fx: &mut Fx<'_, 'm>, next: Option<usize>) -> Result<(), TranslateError> {
        if std::mem::take(&mut self.terminated) {
            return Ok(());
        }
        match (next, fx.dispatch) {
            (Some(n), Some(d)) if n < self.cases.len() => {
                // falls through to block `n` (the last case is the exit)
                let v = fx.tx.const_u32(n as u32);
                fx.tx.b.store(d.state, v, None, [])?;
                fx.tx.b.branch(d.switch_merge)?;
            }
            _ => match (fx.dispatch.and_then(|d| d.retval), fx.func.ret) {
                // the exit case of a non-void function: `return.cond` left
                // the value
                (Some(rv), Some(ty)) => {
                    let t = fx.tx.reg_ty(ty);
                    let v = fx.tx.b.load(t, None, rv, None, [])?;
                    fx.tx.b.ret_value(v)?;
                }
                // falling off a non-void function cannot happen: it ends
                // with `return`
                (None, Some(_)) if fx.func.kind == FuncKind::Function => fx.tx.b.unreachable()?,
                _ => fx.tx.b.ret()?,
            },
        }
        Ok(())
    }
}

impl<'t, 'm> Fx<'t, 'm> {
    fn declare(&mut self, n: Name, r: Reg) {
        let old = self.regs.insert(n, r);
        if let Some(s) = self.scopes.last_mut() {
            s.push((n, old));
        }
    }

    fn new_reg(&mut self, n: Name, ty: Ty) -> Result<Word, TranslateError> {
        let t = self.tx.reg_ty(ty);
        let p = self.tx.ptr(StorageClass::Function, t);
        let ptr = self.tx.b.variable(p, None, StorageClass::Function, None);
        let name = self.tx.m.name(n).to_string();
        self.tx.b.name(ptr, name);
        self.declare(n, Reg::Val { ptr, ty });
        Ok(ptr)
    }

    /// Creates the variables of every register in the body up front and
    /// binds the outermost block's names.
    fn declare_all(&mut self, body: &Block) -> Result<(), TranslateError> {
        let mut all = Vec::new();
        collect_decls(body, &mut all);
        for (key, ty) in all {
            let t = match ty {
                Some(ty) => self.tx.reg_ty(ty),
                None => self.tx.bool_ty(),
            };
            let p = self.tx.ptr(StorageClass::Function, t);
            let v = self.tx.b.variable(p, None, StorageClass::Function, None);
            let name = self.tx.m.name(key.1).to_string();
            self.tx.b.name(v, name);
            self.decl_vars.insert(key, v);
        }
        self.bind_decls(body);
        Ok(())
    }

    fn push_scope(&mut self, b: &Block) {
        self.scopes.push(Vec::new());
        self.bind_decls(b);
    }

    fn pop_scope(&mut self) {
        for (n, old) in self.scopes.pop().unwrap_or_default().into_iter().rev() {
            match old {
                Some(r) => self.regs.insert(n, r),
                None => self.regs.remove(&n),
            };
        }
    }

    /// Binds the declarations directly in `b` (visible throughout it).
    fn bind_decls(&mut self, b: &Block) {
        for s in &b.stmts {
            if let Stmt::Reg { ty, names, span } = s {
                for &(n, _) in names {
                    let Some(&ptr) = self.decl_vars.get(&(span.start, n)) else {
                        continue;
                    };
                    let r = match ty {
                        Some(ty) => Reg::Val { ptr, ty: *ty },
                        None => Reg::Pred { ptr },
                    };
                    self.declare(n, r);
                }
            }
        }
    }

    pub fn reg(&self, n: Name) -> Option<Reg> {
        self.regs.get(&n).copied()
    }

    pub fn param_offset(&self, n: Name) -> Option<u32> {
        self.params.get(&n).copied()
    }

    pub fn unsupported(&self, span: Span, what: impl Into<String>) -> TranslateError {
        self.tx.unsupported(span, what)
    }
}

type DeclKey = (u32, Name);

fn collect_decls(b: &Block, out: &mut Vec<(DeclKey, Option<Ty>)>) {
    for s in &b.stmts {
        match s {
            Stmt::Reg { ty, names, span } => {
                out.extend(names.iter().map(|&(n, _)| ((span.start, n), *ty)))
            }
            Stmt::Block(inner) => collect_decls(inner, out),
            _ => {}
        }
    }
}
