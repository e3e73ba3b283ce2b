//! The IR as text (`pisa ir FILE`): one function after the other, each block
//! with its instructions in PISA syntax and its terminator. Registers print
//! by their source name, with `#N` appended where scopes made two registers
//! of one name. Golden tests compare this text.

use super::*;
use std::collections::HashMap;
use std::fmt::Write;

pub fn print(p: &Program) -> String {
    let mut out = String::new();
    for f in &p.functions {
        print_function(&mut out, f, p);
    }
    out
}

fn print_function(out: &mut String, f: &Function, m: &Program) {
    let names = reg_names(f);
    let kind = match f.kind {
        FuncKind::Kernel => "kernel",
        FuncKind::Function => "function",
    };
    let ret = f.ret.map(|t| format!(" -> {t}")).unwrap_or_default();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|&r| format!("{} %{}", kind_text(f.reg(r).kind), names[r.index()]))
        .collect();
    let _ = writeln!(
        out,
        "{kind} @{}({}){ret}{}",
        m.name(f.name),
        params.join(", "),
        if f.is_declaration() { ";" } else { " {" }
    );
    if f.is_declaration() {
        return;
    }
    let params: std::collections::HashSet<RegId> = f.params.iter().copied().collect();
    let locals: Vec<String> = (0..f.regs.len())
        .filter(|&i| !params.contains(&RegId(i as u32)))
        .map(|i| format!("%{}{}", names[i], kind_text(f.regs[i].kind)))
        .collect();
    if !locals.is_empty() {
        let _ = writeln!(out, "  regs {}", locals.join(" "));
    }
    for (i, b) in f.blocks.iter().enumerate() {
        let label = b
            .label
            .map(|l| format!(" ({})", m.name(l)))
            .unwrap_or_default();
        let _ = writeln!(out, "bb{i}{label}:");
        for inst in &b.insts {
            let _ = writeln!(out, "    {}", inst_text(inst, &names, m));
        }
        let _ = writeln!(out, "    {}", term_text(&b.term, &names, m));
    }
    let _ = writeln!(out, "}}");
}

fn kind_text(k: RegKind) -> String {
    match k {
        RegKind::Value(t) => t.to_string(),
        RegKind::Pred => ".pred".into(),
        RegKind::Param { size, .. } => format!(".param[{size}]"),
    }
}

/// Display names: the source name, made unique with `#N`.
pub(crate) fn reg_names(f: &Function) -> Vec<String> {
    let mut count: HashMap<&str, u32> = HashMap::new();
    for r in &f.regs {
        *count.entry(r.name.as_str()).or_default() += 1;
    }
    let mut seen: HashMap<&str, u32> = HashMap::new();
    f.regs
        .iter()
        .map(|r| {
            if count[r.name.as_str()] == 1 {
                r.name.clone()
            } else {
                let n = seen.entry(r.name.as_str()).or_default();
                *n += 1;
                format!("{}#{}", r.name, n)
            }
        })
        .collect()
}

pub fn mnemonic(i: &PisaInst) -> String {
    i.mnemonic_text()
}

fn inst_text(inst: &Inst, names: &[String], m: &Program) -> String {
    match inst {
        Inst::Pisa(i) => {
            let ops: Vec<String> = i
                .operands
                .iter()
                .map(|o| operand_text(o, names, m))
                .collect();
            if ops.is_empty() {
                mnemonic(i)
            } else {
                format!("{} {}", mnemonic(i), ops.join(", "))
            }
        }
        Inst::SetConst { dst, value } => format!("set %{} = {value}", names[dst.index()]),
        Inst::TestConst { dst, src, value } => format!(
            "test %{} = %{} == {value}",
            names[dst.index()],
            names[src.index()]
        ),
        Inst::CheckAccess(c) => format!(
            "check.access site {}, {} bytes, align {}",
            c.site, c.bytes, c.align
        ),
        Inst::Simt(s) => simt_text(s, names, m),
    }
}

fn simt_text(s: &super::simt::SimtInst, names: &[String], m: &Program) -> String {
    use super::simt::SimtInst as S;
    let r = |r: &RegId| format!("%{}", names[r.index()]);
    let state = |v: u32| match v {
        super::simt::RETURNED => "returned".to_string(),
        super::simt::INACTIVE => "inactive".to_string(),
        v => v.to_string(),
    };
    match s {
        S::Start => "simt.start".into(),
        S::Transition {
            state: st,
            from,
            to,
            when,
        } => {
            let when = match when {
                Some(c) => format!(" if {}{}", if c.negate { "!" } else { "" }, r(&c.pred)),
                None => String::new(),
            };
            format!(
                "simt.transition {}: {} -> {}{when}",
                r(st),
                state(*from),
                state(*to)
            )
        }
        S::AnyActive { dst, active } => format!("simt.any {} = any {}", r(dst), r(active)),
        S::ActiveMask { dst, active } => {
            format!("simt.activemask {} = mask {}", r(dst), r(active))
        }
        S::CrossLane { inst, active } => format!(
            "simt.crosslane [{}] {}",
            r(active),
            inst_text(&Inst::Pisa(inst.clone()), names, m)
        ),
        S::Call { inst, active } => format!(
            "simt.call [{}] {}",
            r(active),
            inst_text(&Inst::Pisa(inst.clone()), names, m)
        ),
        S::SetResult { dst, value } => {
            format!("simt.result {} = {}", r(dst), operand_text(value, names, m))
        }
    }
}

fn term_text(t: &Terminator, names: &[String], m: &Program) -> String {
    match t {
        Terminator::Goto(b) => format!("goto bb{}", b.0),
        Terminator::Branch {
            cond,
            then,
            otherwise,
        } => format!(
            "if {}%{} goto bb{} else bb{}",
            if cond.negate { "!" } else { "" },
            names[cond.pred.index()],
            then.0,
            otherwise.0
        ),
        Terminator::Return { value: Some(v), .. } => {
            format!("return {}", operand_text(v, names, m))
        }
        Terminator::Return { value: None, .. } => "return".into(),
        Terminator::Unreachable => "unreachable".into(),
    }
}

fn reg_text(r: &RegRef, names: &[String]) -> String {
    let mut s = format!("%{}", names[r.reg.index()]);
    if let Some(sw) = r.swizzle {
        s.push('.');
        s.push_str(&"xyzw"[sw.first as usize..(sw.first + sw.count) as usize]);
    }
    s
}

fn special_text(r: &SpecialRef, m: &Program) -> String {
    let mut s = format!("%{}", m.name(r.name));
    if let Some(sw) = r.swizzle {
        s.push('.');
        s.push_str(&"xyzw"[sw.first as usize..(sw.first + sw.count) as usize]);
    }
    s
}

fn operand_text(o: &Operand, names: &[String], m: &Program) -> String {
    match o {
        Operand::Reg(r) => reg_text(r, names),
        Operand::NotPred(r) => format!("!{}", reg_text(r, names)),
        Operand::Special(r) => special_text(r, m),
        Operand::Int(l, _) => {
            if l.hex {
                format!("0x{:x}", l.value)
            } else {
                l.math().to_string()
            }
        }
        Operand::Float(f, _) => format!("{f:?}"),
        Operand::Symbol(n, _) => format!("@{}", m.name(*n)),
        Operand::Void(_) => "void".into(),
        Operand::Addr(a) => {
            let base = match &a.base {
                AddrBase::Reg(r) => reg_text(r, names),
                AddrBase::Special(r) => special_text(r, m),
                AddrBase::Var(n, _) => format!("@{}", m.name(*n)),
                AddrBase::Imm(l, _) => format!("0x{:x}", l.value),
            };
            match &a.offset {
                None => format!("[{base}]"),
                Some(AddrOffset::Reg(r)) => format!("[{base} + {}]", reg_text(r, names)),
                Some(AddrOffset::Special(r)) => format!("[{base} + {}]", special_text(r, m)),
                Some(AddrOffset::Imm(v, _)) if *v < 0 => format!("[{base} - {}]", v.unsigned_abs()),
                Some(AddrOffset::Imm(v, _)) => format!("[{base} + {v}]"),
            }
        }
        Operand::Call(c) => {
            let args: Vec<String> = c.args.iter().map(|a| operand_text(a, names, m)).collect();
            format!("{}({})", operand_text(&c.target, names, m), args.join(", "))
        }
    }
}

/// The names [`super::structurize::print_named`] shows for `f`: block
/// labels as in [`print`], registers by their display names.
pub fn tree_names(m: &Program, f: &Function) -> super::structurize::TreeNames {
    super::structurize::TreeNames {
        blocks: f
            .blocks
            .iter()
            .map(|b| {
                b.label
                    .map(|l| format!(" ({})", m.name(l)))
                    .unwrap_or_default()
            })
            .collect(),
        regs: reg_names(f),
    }
}
