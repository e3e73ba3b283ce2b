//! `ir::build`: the validated syntax tree to the IR.
//!
//! One walk per function body: lexical scopes are resolved to [`RegId`]s
//! (a `.reg` declaration is visible throughout the `{ }` block that holds it,
//! spec 06 §2.2), labels become blocks, and `goto`/`return` and their
//! conditional forms end blocks as terminators. A `return.cond` becomes a
//! branch to a block that returns. Code after an unconditional `goto` or
//! `return` starts a new block with no predecessors (dead code is kept; the
//! structurizer never reaches it).

use super::*;
use crate::syntax::ast::{FuncDecl, NameMap, ParamKind, Stmt};
use crate::Module;

/// Builds the IR of a validated module and runs the IR passes every back
/// end relies on: [`pipeline::Pipeline::base`] (reducible control flow,
/// nested at most [`shallow::MAX_NESTING`] deep). The interpreter and
/// tools read this; a back end's program goes through the whole
/// [`pipeline::Pipeline::for_target`] instead.
pub fn build(m: &Module) -> Program {
    let mut p = lower(m);
    pipeline::run_base(&mut p);
    p
}

/// [`lower`] for a module the caller no longer needs (`pisa spirv`): each
/// instruction's operands are lowered out of the syntax tree and freed at
/// once, so a large function's syntax tree and IR are never both whole in
/// memory (the IR reuses the memory each statement leaves), and the symbol
/// table and source map move over instead of being copied.
pub fn lower_owned(mut m: Module) -> Program {
    let mut variables: Vec<Variable> = m.globals().map(|v| variable(&m, v, None)).collect();
    let mut collected = Collected::default();
    let mut bodies: Vec<Option<ast::Block>> = m
        .ast
        .items
        .iter_mut()
        .filter_map(|i| match i {
            ast::Item::Func(f) => Some(f.body.take()),
            ast::Item::Var(_) => None,
        })
        .collect();
    let functions: Vec<Function> = m
        .functions()
        .zip(bodies.iter_mut())
        .enumerate()
        .map(|(i, (f, body))| {
            let mut b = FunctionBuilder::new(&m, f, i as u32, &mut collected);
            b.params(f);
            match body.take() {
                Some(body) => {
                    let close = body.close;
                    b.new_block(None);
                    b.walk_owned(body, false);
                    b.end_body(close)
                }
                None => b.done(),
            }
        })
        .collect();
    variables.append(&mut collected.variables);
    let address_taken =
        analysis::calls::address_taken_of(&variables, &functions, collected.addrof_symbols);
    let p = Program {
        functions,
        variables,
        address_taken,
        symbols: std::mem::take(&mut m.ast.interner),
        source: std::mem::take(&mut m.map),
        library_uses: Vec::new(),
        check_sites: Vec::new(),
    };
    verify::debug_verify(&p, "build");
    p
}

/// The IR of a validated module as written, before any pass.
pub fn lower(m: &Module) -> Program {
    let mut collected = Collected::default();
    let functions: Vec<Function> = m
        .functions()
        .enumerate()
        .map(|(i, f)| FunctionBuilder::new(m, f, i as u32, &mut collected).finish(f))
        .collect();
    let variables = variables(m);
    let address_taken = analysis::calls::address_taken(&variables, &functions);
    let p = Program {
        functions,
        variables,
        address_taken,
        symbols: m.ast.interner.clone(),
        source: m.map.clone(),
        library_uses: Vec::new(),
        check_sites: Vec::new(),
    };
    verify::debug_verify(&p, "build");
    p
}

/// What lowering collects across the functions of a module.
#[derive(Default)]
struct Collected {
    views: ViewCache,
    /// The variables of the function bodies [`FunctionBuilder::walk_owned`]
    /// lowered, in the order of [`variables`].
    variables: Vec<Variable>,
    /// The symbols `addrof` instructions name, in program order (for
    /// [`analysis::calls::address_taken_of`]).
    addrof_symbols: Vec<Name>,
    /// The current function's registers and labels by name, shared by the
    /// functions (each leaves them empty, [`FunctionBuilder::done`]).
    names: NameMap<RegId>,
    labels: NameMap<BlockId>,
}

struct FunctionBuilder<'m> {
    m: &'m Module,
    collected: &'m mut Collected,
    f: Function,
    scopes: Vec<Vec<(Name, Option<RegId>)>>,
    current: BlockId,
    /// The current block already ended (code after it is dead).
    closed: bool,
    /// The current block's instructions so far, moved into it at its
    /// exact length when it ends (a large function has a block every few
    /// instructions: no growing and shrinking of a vector per block).
    pending: Vec<Inst>,
}

impl<'m> FunctionBuilder<'m> {
    fn new(m: &'m Module, d: &FuncDecl, index: u32, collected: &'m mut Collected) -> Self {
        FunctionBuilder {
            m,
            collected,
            f: Function {
                name: d.name,
                kind: d.kind,
                linkage: d.linkage,
                index,
                ret: if d.kind == FuncKind::Function {
                    d.ret
                } else {
                    None
                },
                params: Vec::new(),
                regs: Vec::new(),
                blocks: Vec::new(),
                span: d.span,
                param_align: d
                    .params
                    .iter()
                    .filter(|p| matches!(p.kind, ParamKind::Param(_)))
                    .map(|p| int_attr(&p.attrs, "align").map_or(8, |v| v[0]))
                    .collect(),
                reqd_work_group_size: int_attr(&d.attrs, "reqd_work_group_size")
                    .filter(|v| v.len() == 3)
                    .map(|v| [v[0], v[1], v[2]]),
                structured: None,
                tree_cache: None,
            },
            scopes: vec![Vec::new()],
            current: BlockId::ENTRY,
            closed: false,
            pending: Vec::new(),
        }
    }

    fn finish(mut self, d: &FuncDecl) -> Function {
        self.params(d);
        let Some(body) = &d.body else {
            return self.done();
        };
        self.new_block(None);
        self.walk(body, false);
        self.end_body(body.close)
    }

    /// The function's parameters, as registers.
    fn params(&mut self, d: &FuncDecl) {
        let mut param_index = 0;
        for p in &d.params {
            let kind = match p.kind {
                ParamKind::Reg(ty) => RegKind::Value(ty),
                ParamKind::Param(size) => {
                    param_index += 1;
                    RegKind::Param {
                        index: param_index - 1,
                        size,
                    }
                }
                // rejected by the validator; kept as a predicate
                ParamKind::Pred => RegKind::Pred,
            };
            let name = p
                .name
                .map_or_else(|| "$unnamed".to_string(), |(n, _)| self.m.name(n).into());
            let r = self.f.new_reg(name, kind);
            self.f.params.push(r);
            if let Some((n, _)) = p.name {
                self.declare(n, r);
            }
        }
    }

    /// Ends the body (its closing brace at `close`): the function.
    fn end_body(mut self, close: Span) -> Function {
        if !self.closed {
            let term = if self.f.kind == FuncKind::Function && self.f.ret.is_some() {
                Terminator::Unreachable
            } else {
                Terminator::Return {
                    value: None,
                    span: close,
                }
            };
            self.end(term, close);
        }
        self.done()
    }

    /// The function, its names out of scope (the tables are the next
    /// function's).
    fn done(mut self) -> Function {
        while !self.scopes.is_empty() {
            self.leave(true);
        }
        for b in &self.f.blocks {
            if let Some(n) = b.label {
                self.collected.labels.set(n, None);
            }
        }
        self.f
    }

    fn new_block(&mut self, label: Option<Name>) -> BlockId {
        self.f.blocks.push(Block {
            label,
            insts: Vec::new(),
            term: Terminator::Unreachable,
            term_span: Span::default(),
        });
        BlockId(self.f.blocks.len() as u32 - 1)
    }

    fn end(&mut self, term: Terminator, span: Span) {
        let b = &mut self.f.blocks[self.current.index()];
        // the block is whole: no room left over per block (a large
        // function has a block every few instructions)
        b.insts = self.pending.drain(..).collect();
        b.term = term;
        b.term_span = span;
        self.closed = true;
    }

    fn switch_to(&mut self, b: BlockId) {
        self.current = b;
        self.closed = false;
    }

    /// The block a label names (created on first mention).
    fn label_block(&mut self, n: Name) -> BlockId {
        if let Some(b) = self.collected.labels.get(n) {
            return b;
        }
        let b = self.new_block(Some(n));
        self.collected.labels.set(n, Some(b));
        b
    }

    fn declare(&mut self, n: Name, r: RegId) {
        let old = self.collected.names.set(n, Some(r));
        if let Some(s) = self.scopes.last_mut() {
            s.push((n, old));
        }
    }

    fn walk(&mut self, b: &ast::Block, scoped: bool) {
        self.enter(b, scoped);
        for s in &b.stmts {
            match s {
                Stmt::Label(n, span) => self.label(*n, *span),
                Stmt::Instr(i) => self.instr(i),
                Stmt::Block(inner) => self.walk(inner, true),
                Stmt::Reg { .. } | Stmt::Var(_) => {}
            }
        }
        self.leave(scoped);
    }

    /// [`Self::walk`], freeing each statement once it is lowered.
    fn walk_owned(&mut self, b: ast::Block, scoped: bool) {
        self.enter(&b, scoped);
        for s in b.stmts {
            match s {
                Stmt::Label(n, span) => self.label(n, span),
                Stmt::Instr(i) => self.instr_owned(i),
                Stmt::Block(inner) => self.walk_owned(*inner, true),
                Stmt::Var(v) => {
                    let v = variable(self.m, &v, Some(self.f.index));
                    self.collected.variables.push(v);
                }
                Stmt::Reg { .. } => {}
            }
        }
        self.leave(scoped);
    }

    /// Opens block `b`: its declarations are visible throughout it.
    fn enter(&mut self, b: &ast::Block, scoped: bool) {
        if scoped {
            self.scopes.push(Vec::new());
        }
        for s in &b.stmts {
            if let Stmt::Reg { ty, names, .. } = s {
                for &(n, _) in names {
                    let kind = ty.map_or(RegKind::Pred, RegKind::Value);
                    let r = self.f.new_reg(self.m.name(n).to_string(), kind);
                    self.declare(n, r);
                }
            }
        }
    }

    /// Closes a block [`Self::enter`] opened: its names go out of scope.
    fn leave(&mut self, scoped: bool) {
        if scoped {
            for (n, old) in self.scopes.pop().unwrap_or_default().into_iter().rev() {
                self.collected.names.set(n, old);
            }
        }
    }

    fn label(&mut self, n: Name, span: Span) {
        let cur = &self.f.blocks[self.current.index()];
        if !self.closed
            && self.pending.is_empty()
            && cur.label.is_none()
            && self.collected.labels.get(n).is_none()
        {
            // an empty block takes the label
            self.f.blocks[self.current.index()].label = Some(n);
            self.collected.labels.set(n, Some(self.current));
            return;
        }
        let b = self.label_block(n);
        if !self.closed {
            self.end(Terminator::Goto(b), span);
        }
        self.switch_to(b);
    }

    fn instr(&mut self, i: &ast::Instr) {
        let inst = self.lower_instr(i);
        let label = goto_label(&inst, &i.operands);
        self.place(inst, label);
    }

    /// The IR of instruction `i` (not placed yet).
    fn lower_instr(&mut self, i: &ast::Instr) -> PisaInst {
        let operands: Box<[Operand]> = i.operands.iter().map(|o| self.operand(o)).collect();
        let inst = PisaInst::new_cached(
            &mut self.collected.views,
            i.form,
            operands,
            i.mnemonic,
            i.span(),
        );
        if inst.opcode == Opcode::Addrof {
            let symbols = inst.operands.iter().filter_map(|o| match o {
                Operand::Symbol(n, _) => Some(*n),
                _ => None,
            });
            self.collected.addrof_symbols.extend(symbols);
        }
        inst
    }

    /// [`Self::instr`] of an instruction taken out of the syntax tree.
    fn instr_owned(&mut self, i: ast::Instr) {
        let inst = self.lower_instr(&i);
        let label = goto_label(&inst, &i.operands);
        // the syntax tree's operands are freed before the next instruction
        drop(i.operands);
        self.place(inst, label);
    }

    /// Adds a lowered instruction to the current block, or ends the block
    /// with it (`goto` to the block of `label`, `return`).
    fn place(&mut self, inst: PisaInst, label: Option<Name>) {
        if self.closed {
            // dead code after goto/return: a block nothing branches to
            let b = self.new_block(None);
            self.switch_to(b);
        }
        let span = inst.span;
        let cond = inst.quals.cond;
        match inst.opcode {
            Opcode::Goto => {
                // `goto` always names a label (the validator checks it)
                let target = match label {
                    Some(n) => self.label_block(n),
                    None => BlockId::ENTRY,
                };
                if cond {
                    let c = self.cond(&inst);
                    let next = self.new_block(None);
                    self.end(
                        Terminator::Branch {
                            cond: c,
                            then: target,
                            otherwise: next,
                        },
                        span,
                    );
                    self.switch_to(next);
                } else {
                    self.end(Terminator::Goto(target), span);
                }
            }
            Opcode::Return => {
                let value = inst
                    .operand(Role::Retval)
                    .cloned()
                    .filter(|_| self.f.ret.is_some());
                let ret = Terminator::Return { value, span };
                if cond {
                    let c = self.cond(&inst);
                    let then = self.new_block(None);
                    let next = self.new_block(None);
                    self.end(
                        Terminator::Branch {
                            cond: c,
                            then,
                            otherwise: next,
                        },
                        span,
                    );
                    self.switch_to(then);
                    self.end(ret, span);
                    self.switch_to(next);
                } else {
                    self.end(ret, span);
                }
            }
            _ => self.pending.push(Inst::Pisa(inst)),
        }
    }

    /// The predicate of a conditional `goto`/`return` (`pred` operand).
    fn cond(&self, inst: &PisaInst) -> Cond {
        let op = inst.operand(Role::Pred);
        match op {
            Some(Operand::Reg(r)) => Cond {
                pred: r.reg,
                negate: false,
            },
            Some(Operand::NotPred(r)) => Cond {
                pred: r.reg,
                negate: true,
            },
            // the validator requires a predicate register
            _ => Cond {
                pred: RegId(0),
                negate: false,
            },
        }
    }

    fn reg_ref(&self, r: &ast::RegRef) -> Option<RegRef> {
        self.collected.names.get(r.name).map(|reg| RegRef {
            reg,
            swizzle: r.swizzle,
            span: r.span,
        })
    }

    fn operand(&self, o: &ast::Operand) -> Operand {
        match o {
            ast::Operand::Reg(r) => match self.reg_ref(r) {
                Some(r) => Operand::Reg(r),
                None => Operand::Special(*r),
            },
            ast::Operand::NotPred(r) => match self.reg_ref(r) {
                Some(r) => Operand::NotPred(r),
                None => Operand::Special(*r),
            },
            ast::Operand::Int(l, s) => Operand::Int(*l, *s),
            ast::Operand::Float(f, s) => Operand::Float(*f, *s),
            ast::Operand::Addr(a) => Operand::Addr(Box::new(AddrOperand {
                base: match &a.base {
                    ast::AddrBase::Reg(r) => match self.reg_ref(r) {
                        Some(r) => AddrBase::Reg(r),
                        None => AddrBase::Special(*r),
                    },
                    ast::AddrBase::Var(n, s) => AddrBase::Var(*n, *s),
                    ast::AddrBase::Imm(l, s) => AddrBase::Imm(*l, *s),
                },
                offset: a.offset.as_ref().map(|off| match off {
                    ast::AddrOffset::Reg(r) => match self.reg_ref(r) {
                        Some(r) => AddrOffset::Reg(r),
                        None => AddrOffset::Special(*r),
                    },
                    ast::AddrOffset::Imm(v, s) => AddrOffset::Imm(*v, *s),
                }),
                span: a.span,
            })),
            ast::Operand::Symbol(n, s) => Operand::Symbol(*n, *s),
            // labels only appear in `goto`, which becomes a terminator
            ast::Operand::Label(_, s) | ast::Operand::Void(s) => Operand::Void(*s),
            ast::Operand::Call(c) => Operand::Call(Box::new(CallOperand {
                target: self.operand(&c.target),
                args: c.args.iter().map(|a| self.operand(a)).collect(),
                span: c.span,
            })),
        }
    }
}

/// The label a `goto` names (its operands as written): `None` for other
/// instructions.
fn goto_label(inst: &PisaInst, written: &[ast::Operand]) -> Option<Name> {
    if inst.opcode != Opcode::Goto {
        return None;
    }
    match inst.roles().get(Role::Label).and_then(|k| written.get(k)) {
        Some(ast::Operand::Label(n, _)) => Some(*n),
        _ => None,
    }
}

/// The integer arguments of attribute `name` (`.align(16)`,
/// `.reqd_work_group_size(8, 8, 1)`), if present.
fn int_attr(attrs: &[ast::Attr], name: &str) -> Option<Vec<u32>> {
    let a = attrs.iter().find(|a| a.name == name)?;
    Some(
        a.args
            .iter()
            .filter_map(|x| match x {
                ast::AttrArg::Int(n, _) => Some(*n as u32),
                _ => None,
            })
            .collect(),
    )
}

/// Every memory variable: module scope first, then each function's (in
/// declaration order, nested `{ }` blocks included).
fn variables(m: &Module) -> Vec<Variable> {
    let var = |v: &ast::VarDecl, function: Option<u32>| variable(m, v, function);
    let mut out: Vec<Variable> = m.globals().map(|v| var(v, None)).collect();
    fn collect<'a>(b: &'a ast::Block, out: &mut Vec<&'a ast::VarDecl>) {
        for s in &b.stmts {
            match s {
                Stmt::Var(v) => out.push(v),
                Stmt::Block(inner) => collect(inner, out),
                _ => {}
            }
        }
    }
    for (i, f) in m.functions().enumerate() {
        let mut vars = Vec::new();
        if let Some(b) = &f.body {
            collect(b, &mut vars);
        }
        out.extend(vars.into_iter().map(|v| var(v, Some(i as u32))));
    }
    out
}

/// Memory variable `v` (of function `function`, or module scope).
fn variable(m: &Module, v: &ast::VarDecl, function: Option<u32>) -> Variable {
    Variable {
        name: v.name,
        function,
        space: v.space,
        linkage: v.linkage,
        size: crate::validate::var_size(v).unwrap_or(0),
        align: v.align.map_or(1, |a| a.0).max(1),
        host_name: v
            .attrs
            .iter()
            .find(|a| a.name == "host_access")
            .and_then(|a| match a.args.first() {
                Some(ast::AttrArg::Str(s, _)) => Some(s.clone()),
                _ => None,
            })
            .or_else(|| (v.linkage == Linkage::Export).then(|| m.name(v.name).to_string())),
        init: v.init.clone(),
        span: v.span,
    }
}

#[cfg(test)]
mod tests {
    /// [`super::lower_owned`] builds the IR [`super::lower`] does: nested
    /// scopes that shadow a register, labels, conditional `goto` and
    /// `return`, dead code, calls, addresses and variables.
    #[test]
    fn owned_lowering_is_the_same() {
        let src = r#".version 0.1;
.target 100;
.global .32b @g[4];
.function .32b @f(.reg .32b %x)
{
	.reg .32b %y;
	.pred %p;
	iadd.32b %y, %x, 1;
	ucmp.lt.32b %p, %y, 3;
	return.cond %p, %y;
	return %x;
}
.kernel @k(.param[8] %out)
{
	.reg .32b %a, %i;
	.reg .64b %o, %fp;
	.pred %p;
	.private @before[8];
	ld.param.64b %o, [%out];
	mov.32b %a, 1;
	addrof.64b %fp, @f;
	{
		.reg .32b %a;
		.private @inner[4];
		mov.32b %a, 5;
		st.global.32b [@g+4], %a;
		st.private.32b [@inner], %a;
	}
	.private @after[4];
	st.private.32b [@before], %a;
	st.private.32b [@after], %a;
L0:
	iadd.32b %i, %i, 1;
	call %a, @f(%i);
	ucmp.lt.32b %p, %i, 3;
	goto.cond %p, L0;
	goto L1;
	mov.32b %a, 7;
L1:
	st.global.32b [%o], %a;
	return;
}
"#;
        let m = crate::assemble("k.pisa", src).unwrap();
        let borrowed = super::lower(&m);
        let owned = super::lower_owned(m);
        // the variables in the order of the source, module scope first,
        // and the functions whose address is taken, collected as lowered
        let vars: Vec<&str> = owned.variables.iter().map(|v| owned.name(v.name)).collect();
        assert_eq!(vars, ["g", "before", "inner", "after"]);
        assert_eq!(owned.address_taken.len(), 1);
        assert_eq!(format!("{owned:?}"), format!("{borrowed:?}"));
    }
}
