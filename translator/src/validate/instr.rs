//! Instruction checks, driven by the catalog: pick the form whose qualifiers
//! and operand kinds fit, then enforce its operand sentences and every item of
//! its "Restrictions" list.

use super::body::{FnCtx, Local};
use super::operands::{resolve, Addr, Base, Offset, Val};
use super::Ctx;
use crate::catalog::{self, Cond, Form, Kinds, OperandSpec, Rule, Term};
use crate::diag::Span;
use crate::syntax::ast::*;

/// Restrictions that an example of the spec itself breaks. The example wins:
/// they are reported as warnings (docs/spec-notes.md).
const EXAMPLE_CONFLICTS: &[&str] =
    &["qualifier `.type` cannot be `.64b` unless qualifier `.addrspace` is `.global`"];

struct Problem {
    span: Span,
    code: &'static str,
    msg: String,
}

/// Checks instruction `ins`, whose operands are `ops`.
pub fn check(cx: &mut Ctx, fx: &FnCtx, ins: &mut Instr, ops: &[Operand]) {
    // an instruction is checked from its mnemonic, its function's kind and
    // return type and its operand values alone: one that reported nothing
    // before, in those, matches the same form and reports nothing again
    let mut key = std::mem::take(&mut cx.key);
    key_start(&mut key, cx.text(ins.mnemonic), fx);
    let header = key.len();
    // the common operands' values without `resolve` (nor a vector of them:
    // a value returned through memory and copied stalls on every operand)
    let quick = ops
        .iter()
        .all(|o| quick_val(fx, o).is_some_and(|v| push_val_key(&mut key, &v)));
    if quick {
        if let Some(&form) = cx.clean.get(key.as_slice()) {
            ins.form = form;
            cx.key = key;
            return;
        }
    }
    // (tests check that `resolve` makes the same values)
    let quick_key = (cfg!(debug_assertions) && quick).then(|| key.clone());
    // one vector for every instruction's operand values
    let mut vals = std::mem::take(&mut cx.vals);
    vals.clear();
    for o in ops {
        let v = resolve(cx, fx, o);
        vals.push(v);
    }
    key.truncate(header);
    if vals.iter().all(|v| push_val_key(&mut key, v)) {
        debug_assert!(quick_key.is_none_or(|q| q == key));
        let before = cx.rep.reported();
        check_resolved(cx, fx, ins, ops, &vals);
        if cx.rep.reported() == before && cx.clean.len() < MAX_CLEAN {
            cx.clean.insert(key.as_slice().into(), ins.form);
        }
    } else {
        debug_assert!(!quick, "an operand `quick_val` knows has a key");
        check_resolved(cx, fx, ins, ops, &vals);
    }
    cx.key = key;
    cx.vals = vals;
}

/// What [`resolve`] makes of `op` where that needs no report and no more
/// than a scope lookup: a declared register (its elements in range), a
/// predicate, an immediate, `void`, a label of the function. `None` for
/// the others (addresses, symbols, calls, anything wrong).
fn quick_val(fx: &FnCtx, op: &Operand) -> Option<Val> {
    Some(match op {
        Operand::Reg(r) => match (fx.scopes.reg(r.name)?, r.swizzle) {
            (Local::Reg(ty), None) => Val::Reg {
                ty,
                swz: None,
                special: false,
            },
            (Local::Reg(ty), Some(s))
                if ty.is_vector() && s.first as u32 + s.count as u32 <= ty.count as u32 =>
            {
                Val::Reg {
                    ty,
                    swz: Some(s),
                    special: false,
                }
            }
            (Local::Pred, None) => Val::Pred { negated: false },
            _ => return None,
        },
        Operand::NotPred(r) => match (fx.scopes.reg(r.name)?, r.swizzle) {
            (Local::Pred, None) => Val::Pred { negated: true },
            _ => return None,
        },
        Operand::Int(l, _) => Val::Int(*l),
        Operand::Float(..) => Val::Float,
        Operand::Void(_) => Val::Void,
        Operand::Label(name, _) if fx.labels.contains(name) => Val::Label,
        _ => return None,
    })
}

/// How many clean instruction shapes [`check`] remembers (a module of
/// distinct immediates would otherwise grow the table without reuse).
const MAX_CLEAN: usize = 1 << 16;

/// Starts `key` (below) with the mnemonic, the function's kind and its
/// return type (`return` reads them).
fn key_start(key: &mut Vec<u8>, mnemonic: &str, fx: &FnCtx) {
    key.clear();
    key.extend_from_slice(&(mnemonic.len() as u32).to_le_bytes());
    key.extend_from_slice(mnemonic.as_bytes());
    key.push(fx.kind as u8);
    match fx.ret {
        Some(ty) => key.extend_from_slice(&[1, ty.bits as u8, (ty.bits >> 8) as u8, ty.count]),
        None => key.push(0),
    }
}

/// Adds to `key` everything [`check_resolved`] reads of operand value `v`
/// but spans (which only its diagnostics use): its kind, shape and the
/// facts the rules test. False where a value is not encoded (functions,
/// calls, unresolved operands): those instructions are checked each time.
fn push_val_key(key: &mut Vec<u8>, v: &Val) -> bool {
    let reg_bits = |key: &mut Vec<u8>, bits: u16| key.extend_from_slice(&bits.to_le_bytes());
    match v {
        Val::Reg { ty, swz, special } => {
            key.push(1);
            reg_bits(key, ty.bits);
            key.push(ty.count);
            match swz {
                Some(s) => key.extend_from_slice(&[1, s.first, s.count]),
                None => key.push(0),
            }
            key.push(*special as u8);
        }
        Val::Pred { negated } => key.extend_from_slice(&[2, *negated as u8]),
        Val::Int(l) => {
            // [`Checker::width_is`] reads how it was written and whether
            // it fits in `bits` (-2^(bits-1) ..= 2^bits - 1), which holds
            // exactly for `bits` >= this least width
            let m = l.math();
            let least = if m >= 0 {
                128 - m.leading_zeros()
            } else {
                128 - (-m - 1).leading_zeros() + 1
            };
            key.extend_from_slice(&[3, l.hex as u8, l.digits, least as u8]);
        }
        Val::Float => key.push(4),
        Val::Label => key.push(5),
        Val::Void => key.push(6),
        Val::Param => key.push(7),
        Val::MemVar(space) => key.extend_from_slice(&[8, *space as u8]),
        Val::Addr(Addr { base, offset }) => {
            key.push(9);
            match base {
                Base::Reg { bits, .. } => {
                    key.push(1);
                    reg_bits(key, *bits);
                }
                Base::Var(space, _) => key.extend_from_slice(&[2, *space as u8]),
                Base::Param(size) => {
                    key.push(3);
                    key.extend_from_slice(&size.to_le_bytes());
                }
                Base::Imm => key.push(4),
                Base::Error => return false,
            }
            match offset {
                None => key.push(0),
                Some(Offset::Reg { bits, .. }) => {
                    key.push(1);
                    reg_bits(key, *bits);
                }
                Some(Offset::Imm(n)) => {
                    key.push(2);
                    key.extend_from_slice(&n.to_le_bytes());
                }
                Some(Offset::Error) => return false,
            }
        }
        Val::Func(_) | Val::Call { .. } | Val::Error => return false,
    }
    true
}

fn check_resolved(cx: &mut Ctx, fx: &FnCtx, ins: &mut Instr, ops: &[Operand], vals: &[Val]) {
    let candidates = match cx.forms_by_mnemonic.get(cx.text(ins.mnemonic)) {
        Some(c) => c.clone(),
        None => {
            let mnemonic = cx.text(ins.mnemonic);
            let mut parts = mnemonic.split('.');
            let opcode = parts.next().unwrap_or_default();
            let quals: Vec<&str> = parts.collect();
            let c: super::Candidates = cx
                .cat
                .forms_of(opcode)
                .iter()
                .filter_map(|&f| match_quals(&cx.cat.forms[f], &quals).map(|q| (f, q)))
                .collect();
            let key: Box<str> = mnemonic.into();
            cx.forms_by_mnemonic.insert(key, c.clone());
            c
        }
    };
    if candidates.is_empty() {
        let mnemonic = cx.text(ins.mnemonic).to_string();
        let opcode = mnemonic.split('.').next().unwrap_or_default();
        let forms = cx.cat.forms_of(opcode);
        if forms.is_empty() {
            let msg = format!("unknown instruction `{opcode}`");
            cx.rep.error(ins.mnemonic, "unknown-instruction", msg);
            return;
        }
        let syntaxes: Vec<String> = forms
            .iter()
            .map(|&f| format!("`{}`", cx.cat.forms[f].syntax))
            .collect();
        cx.rep.error_with_note(
            ins.mnemonic,
            "unknown-qualifier",
            format!("`{mnemonic}` matches no form of `{opcode}`"),
            format!("expected one of: {}", syntaxes.join(", ")),
        );
        return;
    }
    // the first form whose operand kinds fit; else the one that fits best
    let mut best: Option<(usize, [u8; 8], Vec<Problem>)> = None;
    for &(f, q) in candidates.iter() {
        let problems = shape_problems(cx, &cx.cat.forms[f], ins, ops, vals);
        if best.as_ref().is_none_or(|b| problems.len() < b.2.len()) {
            let done = problems.is_empty();
            best = Some((f, q, problems));
            if done {
                break;
            }
        }
    }
    let Some((f, q, problems)) = best else { return };
    if !problems.is_empty() {
        for p in problems {
            cx.rep.error(p.span, p.code, p.msg);
        }
        return;
    }
    let form = &cx.cat.forms[f];
    ins.form = FormRef {
        form: f as u16,
        quals: q,
    };
    let chk = Checker {
        form,
        quals: q,
        ins,
        ops,
        vals,
        fx,
    };
    chk.operands(cx);
    for (rule, text) in &form.rules {
        chk.rule(cx, rule, text);
    }
    chk.addresses(cx);
}

/// Matches qualifier tokens to the form's slots in order; optional slots may
/// be skipped, multi-token values (`.L1uc.L2uc.L3uc`) consume several tokens.
fn match_quals(form: &Form, toks: &[&str]) -> Option<[u8; 8]> {
    fn go(form: &Form, slot: usize, toks: &[&str], out: &mut [u8; 8]) -> bool {
        if slot == form.quals.len() {
            return toks.is_empty();
        }
        let s = &form.quals[slot];
        for (vi, v) in s.values.iter().enumerate() {
            let n = v.split('.').count();
            if toks.len() >= n && v.split('.').zip(toks).all(|(a, b)| a == *b) {
                out[slot] = vi as u8;
                if go(form, slot + 1, &toks[n..], out) {
                    return true;
                }
            }
        }
        if s.optional {
            out[slot] = FormRef::ABSENT;
            return go(form, slot + 1, toks, out);
        }
        false
    }
    let mut out = [FormRef::ABSENT; 8];
    go(form, 0, toks, &mut out).then_some(out)
}

/// Whether rules of the form speak about this operand's elements, which makes
/// a whole vector register acceptable where the sentence says "a register".
fn takes_vector(form: &Form, name: &str) -> bool {
    name == "retval"
        || form.rules.iter().any(|(r, _)| match r {
            Rule::Elements { op, .. }
            | Rule::TotalWidth { op, .. }
            | Rule::IndexBelow { op, .. }
            | Rule::IndexAligned { op, .. } => op == name,
            Rule::IndexSum { add, bound, .. } => add == name || bound == name,
            _ => false,
        })
}

fn kind_of(v: &Val) -> &'static str {
    match v {
        Val::Reg { .. } => "a register",
        Val::Pred { .. } => "a predicate",
        Val::Int(_) | Val::Float => "an immediate",
        Val::Addr(_) => "an address",
        Val::MemVar(_) => "a memory variable",
        Val::Func(_) => "a function",
        Val::Label => "a label",
        Val::Void => "`void`",
        Val::Call { .. } => "a call",
        Val::Param => "a kernel parameter",
        Val::Error => "an invalid operand",
    }
}

/// Operand count and kinds: what decides between forms.
fn shape_problems(
    cx: &Ctx,
    form: &Form,
    ins: &Instr,
    ops: &[Operand],
    vals: &[Val],
) -> Vec<Problem> {
    let mut out = Vec::new();
    let required = form.operands.iter().filter(|o| !o.optional).count();
    if vals.len() < required || vals.len() > form.operands.len() {
        let names: Vec<&str> = form.operands.iter().map(|o| o.name.as_str()).collect();
        out.push(Problem {
            span: ins.span(),
            code: "operand-count",
            msg: format!(
                "`{}` takes {} operand{} ({}), found {}",
                cx.text(ins.mnemonic),
                if required == form.operands.len() {
                    required.to_string()
                } else {
                    format!("{required} to {}", form.operands.len())
                },
                if form.operands.len() == 1 { "" } else { "s" },
                names.join(", "),
                vals.len()
            ),
        });
        return out;
    }
    for ((spec, v), op) in form.operands.iter().zip(vals).zip(ops) {
        if let Some((code, mut msg)) = kind_mismatch(form, spec, v) {
            if let (Val::Call { target, .. }, Operand::Call(c)) = (v, op) {
                if spec.name == "retval" {
                    msg.push_str(&call_hint(cx, target, c));
                }
            }
            out.push(Problem {
                span: op.span(),
                code,
                msg,
            });
        }
    }
    out
}

/// How a call without its `retval` operand is written (spec 17 §6.1).
fn call_hint(cx: &Ctx, target: &Val, c: &CallOperand) -> String {
    let callee = crate::diag::shorten(cx.text(c.target.span()), 40);
    match target {
        Val::Func(sig) => match sig.ret {
            Some(ty) => format!(
                ": `{callee}` returns `{ty}`, so write `call %dst, {callee}(...)` with a `{ty}` register `%dst`"
            ),
            None => format!(": write `call void, {callee}(...)` for a function without a return value"),
        },
        _ => format!(
            ": write `call void, {callee}(...)`, or `call %dst, {callee}(...)` for a function that returns a value"
        ),
    }
}

fn kind_mismatch(form: &Form, spec: &OperandSpec, v: &Val) -> Option<(&'static str, String)> {
    let k = spec.kinds;
    let ok = match v {
        Val::Error => true,
        Val::Reg { ty, swz, .. } => {
            let multi = swz.is_some_and(|s| s.count > 1);
            let whole_vec = swz.is_none() && ty.is_vector();
            if spec.swizzled {
                multi
            } else if multi {
                false
            } else if whole_vec {
                k.has(Kinds::VECTOR)
                    || k.has(Kinds::PACKED)
                    || (k.has(Kinds::REG) && takes_vector(form, &spec.name))
            } else {
                // a packed operand's shape is checked later (`packed-operand`)
                k.has(Kinds::REG) || k.has(Kinds::PACKED)
            }
        }
        Val::Pred { negated } => k.has(Kinds::PRED) && (!negated || spec.negatable),
        Val::Int(_) | Val::Float => k.has(Kinds::IMM),
        Val::Addr(_) => k.has(Kinds::ADDR),
        Val::MemVar(_) => k.has(Kinds::MEMVAR),
        Val::Func(_) => k.has(Kinds::FUNC) || spec.call,
        Val::Label => k.has(Kinds::LABEL),
        Val::Void => k.has(Kinds::VOID),
        Val::Call { .. } => spec.call,
        Val::Param => true,
    };
    if ok {
        return None;
    }
    let code = match v {
        Val::Reg { swz: Some(s), .. } if s.count > 1 && !spec.swizzled => "swizzle",
        Val::Pred { .. } if spec.name == "retval" => "pred-return",
        _ => "operand-kind",
    };
    let expected = if spec.swizzled {
        "a vector register with a multi-element swizzle (`.xy`, `.zw`, `.xyzw`)".to_string()
    } else if spec.call {
        "a call target with its argument list `@f(...)`".to_string()
    } else {
        k.describe()
    };
    let found = match v {
        Val::Reg { swz: Some(s), .. } if s.count > 1 => "a multi-element swizzle",
        Val::Reg { ty, swz: None, .. } if ty.is_vector() => "a whole vector register",
        Val::Pred { negated: true } => "a negated predicate",
        v => kind_of(v),
    };
    Some((
        code,
        format!("`{}` must be {expected}, found {found}", spec.name),
    ))
}

struct Checker<'a> {
    form: &'a Form,
    quals: [u8; 8],
    ins: &'a Instr,
    /// The instruction's operands as written.
    ops: &'a [Operand],
    vals: &'a [Val],
    fx: &'a FnCtx,
}

impl Checker<'_> {
    fn qual(&self, name: &str) -> Option<&str> {
        let slot = self.form.slot(name)?;
        let vi = self.quals[slot];
        (vi != FormRef::ABSENT).then(|| self.form.quals[slot].values[vi as usize].as_str())
    }
    fn op(&self, name: &str) -> Option<(&Val, Span)> {
        let i = self.form.operand(name)?;
        Some((self.vals.get(i)?, self.ops.get(i)?.span()))
    }
    fn qual_span(&self, cx: &Ctx, name: &str) -> Span {
        // point at the qualifier in the mnemonic when it is written
        let m = cx.text(self.ins.mnemonic);
        if let Some(v) = self.qual(name) {
            if let Some(pos) = m.find(&format!(".{v}")) {
                let start = self.ins.mnemonic.start as usize + pos;
                return Span::new(start, start + v.len() + 1);
            }
        }
        self.ins.mnemonic
    }

    fn cond(&self, c: &Cond) -> bool {
        match c {
            Cond::Specified(q) => self.qual(q).is_some(),
            Cond::Is(q, vs) => self.qual(q).is_some_and(|v| vs.iter().any(|x| x == v)),
            Cond::IsNot(q, v) => match self.qual(q) {
                Some(x) => x != v,
                // an omitted qualifier takes its group's first (default) value
                None => self
                    .form
                    .slot(q)
                    .is_some_and(|s| self.form.quals[s].values.first() != Some(v)),
            },
            Cond::And(a, b) => self.cond(a) && self.cond(b),
            Cond::Or(a, b) => self.cond(a) || self.cond(b),
            Cond::Not(a) => !self.cond(a),
        }
    }

    /// Sentence-fixed widths and shapes, immediates, destinations.
    fn operands(&self, cx: &mut Ctx) {
        for (i, spec) in self.form.operands.iter().enumerate() {
            let (Some(v), Some(op)) = (self.vals.get(i), self.ops.get(i)) else {
                continue;
            };
            let span = op.span();
            if let Val::Reg { special: true, .. } = v {
                if i == 0 && matches!(spec.name.as_str(), "dst" | "carry-out") {
                    cx.rep
                        .error(span, "special-register", "special registers are read-only");
                    continue;
                }
            }
            if let (Some(count), Some(elem)) = (spec.vec_count, spec.elem_bits) {
                if let Some((b, c)) = v.shape() {
                    if (b, c) != (elem, count) {
                        let msg = format!(
                            "`{}` must be a {count}x{elem}-bit vector register (declared `.v{count}.{elem}b`), found {}",
                            spec.name,
                            shape_text(v)
                        );
                        cx.rep.error(span, "packed-operand", msg);
                    }
                }
            } else if let Some(elem) = spec.elem_bits {
                if let Some((b, _)) = v.shape() {
                    if b != elem {
                        let msg = format!(
                            "`{}` must have {elem}-bit elements, found {}",
                            spec.name,
                            shape_text(v)
                        );
                        cx.rep.error(span, "operand-width", msg);
                    }
                }
            }
            if let Some(bits) = spec.bits {
                self.width_is(cx, v, span, bits, false, None);
            }
        }
    }

    /// Checks that a register has `bits` (element) width or an immediate fits.
    /// `rule` carries the restriction sentence to report, else `operand-width`.
    fn width_is(
        &self,
        cx: &mut Ctx,
        v: &Val,
        span: Span,
        bits: u16,
        float: bool,
        rule: Option<&str>,
    ) {
        match v {
            Val::Reg { .. } => {
                let (b, _) = v.shape().unwrap_or((0, 0));
                if b != bits {
                    match rule {
                        Some(text) => {
                            let msg = format!("{text} (found {})", shape_text(v));
                            cx.rep.error(span, "restriction", msg)
                        }
                        None => {
                            let msg =
                                format!("expected a {bits}-bit register, found {}", shape_text(v));
                            cx.rep.error(span, "operand-width", msg)
                        }
                    }
                }
            }
            Val::Int(l) => {
                if float && l.hex && l.digits as u16 * 4 != bits {
                    let msg = format!(
                        "a hexadecimal floating-point immediate has exactly the operand's size: {} digits written, a {bits}-bit operand takes {}",
                        l.digits,
                        bits / 4
                    );
                    cx.rep.error(span, "float-immediate-size", msg);
                    return;
                }
                if bits < 64 {
                    let m = l.math();
                    let lo = -(1i128 << (bits - 1));
                    let hi = (1i128 << bits) - 1;
                    if m < lo || m > hi {
                        let msg =
                            format!("{m} does not fit in a {bits}-bit operand (range {lo}..={hi})");
                        cx.rep.error(span, "immediate-range", msg);
                    }
                }
            }
            Val::Float if !float => {
                cx.rep.error(
                    span,
                    "operand-kind",
                    "a floating-point literal cannot be an integer operand",
                );
            }
            _ => {}
        }
    }

    fn term_bits(&self, t: &Term) -> Option<u16> {
        match t {
            Term::Qual(q) => self.qual(q).and_then(catalog::value_bits),
            Term::Operand(o) => self.op(o).and_then(|(v, _)| v.shape()).map(|s| s.0),
        }
    }

    fn count(&self, name: &str) -> Option<u32> {
        self.op(name)
            .and_then(|(v, _)| v.shape())
            .map(|s| s.1 as u32)
    }

    fn violated(&self, cx: &mut Ctx, span: Span, text: &str, detail: String) {
        let msg = if detail.is_empty() {
            text.to_string()
        } else {
            format!("{text} ({detail})")
        };
        if text.starts_with("qualifier `.cc` must not be specified") {
            // cache controls are performance hints; the spec's own `ld`
            // example breaks this one, so it warns (docs/spec-notes.md)
            cx.rep.warning(span, "cache-control", msg);
        } else if EXAMPLE_CONFLICTS.contains(&text) {
            cx.rep.warning(span, "restriction", msg);
        } else {
            cx.rep.error(span, "restriction", msg);
        }
    }

    fn rule(&self, cx: &mut Ctx, rule: &Rule, text: &str) {
        match rule {
            Rule::Width { ops, qual, factor } => {
                let Some(qv) = self.qual(qual) else { return };
                let Some(bits) = catalog::value_bits(qv) else {
                    return;
                };
                let float = *factor == 1 && catalog::is_float_type(qv);
                for o in ops {
                    if let Some((v, span)) = self.op(o) {
                        self.width_is(cx, v, span, bits * factor, float, Some(text));
                    }
                }
            }
            Rule::AddrSize { op, qual } => {
                let (Some((v, span)), Some(bits)) =
                    (self.op(op), self.qual(qual).and_then(catalog::address_bits))
                else {
                    return;
                };
                self.width_is(cx, v, span, bits, false, Some(text));
            }
            Rule::TotalWidth { op, qual } => {
                let (Some((v, span)), Some(bits)) =
                    (self.op(op), self.qual(qual).and_then(catalog::value_bits))
                else {
                    return;
                };
                if let Some((b, c)) = v.shape() {
                    if b as u32 * c as u32 != bits as u32 {
                        self.violated(cx, span, text, format!("found {}", shape_text(v)));
                    }
                }
            }
            Rule::Elements { op, qual } => {
                let Some((v, span)) = self.op(op) else { return };
                let want = self.qual(qual).and_then(catalog::vec_count).unwrap_or(1);
                if let Some((_, c)) = v.shape() {
                    if c as u32 != want {
                        self.violated(cx, span, text, format!("found {}", shape_text(v)));
                    }
                }
            }
            Rule::Packed { ops, qual } => {
                let Some((n, b)) = self.qual(qual).and_then(catalog::packed_shape) else {
                    return;
                };
                for o in ops {
                    let Some((v, span)) = self.op(o) else {
                        continue;
                    };
                    match v {
                        Val::Reg { ty, swz: None, .. } if ty.bits == b && ty.count == n => {}
                        Val::Error => {}
                        _ => {
                            let msg = format!(
                                "{text}: `{o}` must be a register declared `.v{n}.{b}b`, found {}",
                                shape_text(v)
                            );
                            cx.rep.error(span, "packed-operand", msg);
                        }
                    }
                }
            }
            Rule::Compare { a, b, greater } => {
                if let (Some(x), Some(y)) = (self.term_bits(a), self.term_bits(b)) {
                    if (*greater && x <= y) || (!*greater && x >= y) {
                        self.violated(cx, self.ins.mnemonic, text, String::new());
                    }
                }
            }
            Rule::IndexBelow { qual, op } => {
                let idx: Option<u32> = self.qual(qual).and_then(|v| v.parse().ok());
                if let (Some(i), Some(n)) = (idx, self.count(op)) {
                    if i >= n {
                        self.violated(
                            cx,
                            self.qual_span(cx, qual),
                            text,
                            format!("index {i}, {n} elements"),
                        );
                    }
                }
            }
            Rule::IndexSum { qual, add, bound } => {
                let idx: Option<u32> = self.qual(qual).and_then(|v| v.parse().ok());
                if let (Some(i), Some(a), Some(n)) = (idx, self.count(add), self.count(bound)) {
                    if i + a > n {
                        self.violated(
                            cx,
                            self.qual_span(cx, qual),
                            text,
                            format!("{i} + {a} > {n}"),
                        );
                    }
                }
            }
            Rule::IndexAligned { qual, op } => {
                let idx: Option<u32> = self.qual(qual).and_then(|v| v.parse().ok());
                if let (Some(i), Some(n)) = (idx, self.count(op)) {
                    if n > 0 && i % n != 0 {
                        self.violated(
                            cx,
                            self.qual_span(cx, qual),
                            text,
                            format!("index {i}, {n} elements"),
                        );
                    }
                }
            }
            Rule::SpaceOf { op, qual } => {
                if let (Some((Val::MemVar(space), span)), Some(q)) = (self.op(op), self.qual(qual))
                {
                    if space.name() != q {
                        self.violated(
                            cx,
                            span,
                            text,
                            format!("the variable is `.{}`", space.name()),
                        );
                    }
                }
            }
            Rule::StorageSize { op, qual } => {
                if let (Some((Val::MemVar(space), span)), Some(bits)) =
                    (self.op(op), self.qual(qual).and_then(catalog::value_bits))
                {
                    if space.address_bits() != bits {
                        self.violated(
                            cx,
                            span,
                            text,
                            format!(
                                "`.{}` addresses are {} bits",
                                space.name(),
                                space.address_bits()
                            ),
                        );
                    }
                }
            }
            Rule::ReturnType => self.return_type(cx),
            Rule::CallReturnType => self.call(cx),
            Rule::OperandOnlyWhen { op, cond } => {
                let present = self.op(op).is_some();
                let allowed = self.cond(cond);
                if present != allowed {
                    let span = self.op(op).map_or(self.ins.span(), |(_, s)| s);
                    let detail = if present {
                        "remove it"
                    } else {
                        "it is missing"
                    };
                    self.violated(cx, span, text, detail.to_string());
                }
            }
            Rule::Holds(c) => {
                if !self.cond(c) {
                    self.violated(cx, self.ins.mnemonic, text, String::new());
                }
            }
        }
    }

    fn return_type(&self, cx: &mut Ctx) {
        let ret = if self.fx.kind == FuncKind::Kernel {
            None
        } else {
            self.fx.ret
        };
        let val = self.op("retval");
        match (ret, val) {
            (None, None) => {}
            (None, Some((_, span))) => cx.rep.error(
                span,
                "return-type",
                if self.fx.kind == FuncKind::Kernel {
                    "kernels return no value"
                } else {
                    "this function is `void`: `return` takes no value"
                },
            ),
            (Some(ty), None) => {
                let msg = format!("this function returns `{ty}`: `return` needs a value");
                cx.rep.error(self.ins.span(), "return-type", msg)
            }
            (Some(ty), Some((v, span))) => match v {
                Val::Reg { .. } => {
                    let (b, c) = v.shape().unwrap_or((0, 0));
                    if (b, c) != (ty.bits, ty.count) {
                        let msg = format!("the function returns `{ty}`, found {}", shape_text(v));
                        cx.rep.error(span, "return-type", msg);
                    }
                }
                Val::Int(_) | Val::Float if ty.is_vector() => {
                    let msg =
                        format!("the function returns `{ty}`; an immediate cannot be a vector");
                    cx.rep.error(span, "return-type", msg)
                }
                Val::Int(_) | Val::Float => self.width_is(cx, v, span, ty.bits, true, None),
                Val::Error => {}
                _ => cx.rep.error(
                    span,
                    "return-type",
                    "return values are registers or immediates",
                ),
            },
        }
    }

    fn call(&self, cx: &mut Ctx) {
        let Some((Val::Call { target, args }, cspan)) = self.op("target") else {
            return;
        };
        let sig = match target.as_ref() {
            Val::Func(sig) if sig.kind == FuncKind::Kernel => {
                cx.rep.error(
                    cspan,
                    "call-target",
                    "kernels are launched by the host and cannot be called",
                );
                return;
            }
            Val::Func(sig) => Some(sig),
            Val::Reg { .. }
                if target.is_scalar_reg() && target.shape().map(|s| s.0) == Some(64) =>
            {
                None
            }
            Val::Error => return,
            other => {
                let msg = format!(
                    "a call target is a function name or a 64-bit register holding its address, found {}",
                    shape_text(other)
                );
                cx.rep.error(cspan, "call-target", msg);
                return;
            }
        };
        for (a, span) in args {
            match a {
                Val::Reg { .. } | Val::Error => {}
                other => {
                    let msg = format!("call arguments are registers, found {}", kind_of(other));
                    cx.rep.error(*span, "call-arguments", msg);
                }
            }
        }
        let Some(sig) = sig else { return };
        if args.len() != sig.params.len() {
            let msg = format!(
                "the callee takes {} arguments, found {}",
                sig.params.len(),
                args.len()
            );
            cx.rep.error(cspan, "call-arguments", msg);
        } else {
            for ((a, span), p) in args.iter().zip(&sig.params) {
                if let (Some((b, c)), ParamKind::Reg(ty)) = (a.shape(), p) {
                    if (b, c) != (ty.bits, ty.count) {
                        let msg = format!("the parameter is `{ty}`, found {}", shape_text(a));
                        cx.rep.error(*span, "call-arguments", msg);
                    }
                }
            }
        }
        match (self.op("retval"), sig.ret) {
            (Some((Val::Void, _)), None) | (Some((Val::Error, _)), _) | (None, _) => {}
            (Some((Val::Void, span)), Some(ty)) => {
                let msg = format!("the callee returns `{ty}`: `retval` must be a `{ty}` register");
                cx.rep.error(span, "call-return", msg)
            }
            (Some((v, span)), None) => {
                let msg = format!(
                    "the callee is `void`: write `void` instead of {}",
                    kind_of(v)
                );
                cx.rep.error(span, "call-return", msg)
            }
            (Some((v, span)), Some(ty)) => {
                if v.shape() != Some((ty.bits, ty.count)) {
                    let msg = format!("the callee returns `{ty}`, found {}", shape_text(v));
                    cx.rep.error(span, "call-return", msg);
                }
            }
        }
    }

    /// `ld.param` at a known offset reads bytes of the parameter only
    /// (docs/abi.md, "The argument block"): `[%p + off]` with `off` and the
    /// bytes `.vec` × `.type` loads within the declared `.param[N]`.
    fn param_bounds(&self, cx: &mut Ctx, size: u64, offset: Option<&Offset>, span: Span) {
        let off = match offset {
            None => 0,
            Some(Offset::Imm(n)) => *n,
            // a register offset is known only when the kernel runs
            Some(_) => return,
        };
        let elem = self
            .qual("type")
            .and_then(|t| t.strip_suffix('b'))
            .and_then(|b| b.parse::<u64>().ok())
            .map_or(0, |bits| bits / 8);
        let count = self
            .qual("vec")
            .and_then(|v| v.strip_prefix('v'))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(1);
        let bytes = elem * count;
        let m = cx.text(self.ins.mnemonic);
        let msg = match u64::try_from(off) {
            Err(_) => format!("`{m}` at offset {off} reads before the start of the parameter"),
            Ok(o) if o.saturating_add(bytes) > size => format!(
                "`{m}` reads bytes {o} to {} of a {size}-byte parameter",
                o.saturating_add(bytes).saturating_sub(1)
            ),
            Ok(_) => return,
        };
        let note = if size == 0 {
            "a `.param[0]` holds no bytes".to_string()
        } else {
            format!("a `.param[{size}]` holds bytes 0 to {}", size - 1)
        };
        cx.rep.error_with_note(span, "param-bounds", msg, note);
    }

    /// Address operands: allowed forms, parameter access, address spaces and
    /// register widths (spec 07 §3.3, 08 §4.2, 19).
    fn addresses(&self, cx: &mut Ctx) {
        let is_ld_param = self.form.opcode == "ld"
            && self
                .form
                .quals
                .first()
                .is_some_and(|q| q.literal && q.name == "param");
        let space = self.qual("addrspace").unwrap_or("generic");
        for (i, spec) in self.form.operands.iter().enumerate() {
            let (Some(Val::Addr(Addr { base, offset })), Some(op)) =
                (self.vals.get(i), self.ops.get(i))
            else {
                continue;
            };
            let span = op.span();
            if is_ld_param {
                if let Base::Param(size) = base {
                    self.param_bounds(cx, *size, offset.as_ref(), span);
                }
                if !matches!(base, Base::Param(_) | Base::Error) {
                    cx.rep.error(span, "param-access", "`ld.param` reads kernel parameters only: `[%param]`, `[%param + imm]` or `[%param + %r32]`");
                }
                if let Some(Offset::Reg { bits, span }) = offset {
                    if *bits != 32 {
                        cx.rep.error(
                            *span,
                            "operand-width",
                            "a `ld.param` offset register is 32 bits",
                        );
                    }
                }
                continue;
            }
            let addr_bits = catalog::address_bits(space).unwrap_or(64);
            match base {
                Base::Param(_) => cx.rep.error(
                    span,
                    "param-access",
                    "kernel parameters can only be read with `ld.param`",
                ),
                Base::Var(s, vspan) if s.name() != space => {
                    let msg = format!("`.{}` variable used as a `.{space}` address", s.name());
                    cx.rep.error(*vspan, "address-space", msg);
                }
                Base::Reg { bits, span } if *bits != addr_bits => {
                    let msg = format!(
                        "a `.{space}` address is {addr_bits} bits, found a {bits}-bit register"
                    );
                    cx.rep.error(*span, "operand-width", msg);
                }
                Base::Imm if !spec.addr.i => cx.rep.error(
                    span,
                    "operand-kind",
                    "this instruction takes no immediate address `[imm]`",
                ),
                _ => {}
            }
            let form_ok = match offset {
                None => spec.addr.r || matches!(base, Base::Imm),
                Some(Offset::Reg { .. }) => spec.addr.rr,
                Some(Offset::Imm(_)) => spec.addr.ri,
                Some(Offset::Error) => true,
            };
            if !form_ok {
                cx.rep.error(
                    span,
                    "operand-kind",
                    "this address form is not accepted here",
                );
            }
        }
    }
}

fn shape_text(v: &Val) -> String {
    match v {
        Val::Reg { ty, swz, .. } => match swz {
            Some(s) if s.count == 1 => format!("a {}-bit vector element", ty.bits),
            Some(s) => format!("{} elements of {} bits", s.count, ty.bits),
            None if ty.is_vector() => format!("a `{ty}` vector register"),
            None => format!("a {}-bit register", ty.bits),
        },
        v => kind_of(v).to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// The lines and codes of the errors of `src`.
    fn errors(src: &str) -> Vec<(u32, &'static str)> {
        match crate::validate::assemble("t.pisa", src) {
            Ok(_) => Vec::new(),
            Err(d) => d.errors().map(|e| (e.line, e.code)).collect(),
        }
    }

    /// A repeated instruction shape is checked once ([`super::check`]'s
    /// table of clean ones): what a repeat changes still gets its error.
    #[test]
    fn a_repeated_shape_still_reports_what_differs() {
        let src = ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\t.reg .32b %a;\n\
            \tiadd.32b %a, %a, 4294967295;\n\tiadd.32b %a, %a, 4294967295;\n\
            \tiadd.32b %a, %a, 4294967296;\n\tiadd.32b %a, %a, -2147483648;\n\
            \tiadd.32b %a, %a, -2147483649;\n\treturn;\n}\n\
            .function .32b @f()\n{\n\t.reg .32b %a;\n\tmov.32b %a, 0;\n\treturn %a;\n}\n\
            .function .64b @g()\n{\n\t.reg .32b %a;\n\tmov.32b %a, 0;\n\treturn %a;\n}\n";
        assert_eq!(
            errors(src),
            [
                (8, "immediate-range"),
                (10, "immediate-range"),
                (23, "return-type")
            ]
        );
    }
}
