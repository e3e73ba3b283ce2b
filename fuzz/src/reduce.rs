//! The reducer: shrinks a case while a predicate ("still shows the
//! mismatch") holds, by edits of the structured program that keep it valid
//! and terminating (see `program.rs`): delete statements, unwrap ifs, loops,
//! blocks and irreducible cycles, lower loop counts, replace computed values
//! by constants, turn indirect and conditional calls into direct ones, drop
//! unused functions, and shrink the launch.

use crate::case::{Case, LaunchShape};
use crate::program::*;
use std::path::{Path, PathBuf};

/// Edits tried on each statement.
const EDITS: usize = 9;

fn mov_zero(d: Reg) -> Option<Stmt> {
    let w = match d.class {
        Class::B8 | Class::B16 | Class::B32 | Class::B64 => d.class.bits(),
        _ => return None,
    };
    Some(Stmt::Inst(Inst {
        op: format!("mov.{w}b"),
        ops: vec![Operand::Reg(d), Operand::Imm(0)],
        defs: vec![d],
    }))
}

/// Removes breaks and continues to `id` (before a block is spliced away).
fn drop_jumps(body: &mut Vec<Stmt>, id: u32) {
    body.retain(|s| !matches!(s, Stmt::Break { target, .. } | Stmt::Continue { target, .. } if *target == id));
    for s in body.iter_mut() {
        match s {
            Stmt::If { then_, else_, .. } => {
                drop_jumps(then_, id);
                drop_jumps(else_, id);
            }
            Stmt::Loop { body, .. } | Stmt::Block { body, .. } => drop_jumps(body, id),
            Stmt::Irreducible { a, b, .. } => {
                drop_jumps(a, id);
                drop_jumps(b, id);
            }
            Stmt::Graph { nodes, .. } => {
                for n in nodes {
                    drop_jumps(&mut n.body, id);
                }
            }
            _ => {}
        }
    }
}

/// Applies edit `e` to statement `i` of `body`; false when it does not apply.
fn edit(body: &mut Vec<Stmt>, i: usize, e: usize) -> bool {
    let s = body[i].clone();
    let replace = |body: &mut Vec<Stmt>, with: Vec<Stmt>| {
        body.splice(i..=i, with);
    };
    match (e, s) {
        (0, Stmt::Raw { keep: true, .. }) => false,
        (0, _) => {
            body.remove(i);
            true
        }
        (1, Stmt::If { then_, .. }) => {
            replace(body, then_);
            true
        }
        (2, Stmt::If { else_, .. }) => {
            replace(body, else_);
            true
        }
        (1, Stmt::Loop { id, body: b, .. }) => {
            body[i] = Stmt::Block { id, body: b };
            true
        }
        (1, Stmt::Block { id, body: mut b }) => {
            drop_jumps(&mut b, id);
            replace(body, b);
            true
        }
        (1, Stmt::Irreducible { a, b, .. }) => {
            replace(body, a.into_iter().chain(b).collect());
            true
        }
        (1, Stmt::Graph { nodes, .. }) => {
            replace(body, nodes.into_iter().flat_map(|n| n.body).collect());
            true
        }
        (
            2,
            Stmt::Graph {
                id,
                fuel,
                mut nodes,
            },
        ) if nodes.len() > 1 => {
            // the second half of the nodes goes; edges into it end the graph
            let keep = nodes.len() / 2;
            nodes.truncate(keep);
            for n in &mut nodes {
                n.to = n.to.min(keep);
                n.next = n.next.min(keep);
            }
            body[i] = Stmt::Graph { id, fuel, nodes };
            true
        }
        (3, Stmt::Graph { id, fuel, nodes }) if fuel > 1 => {
            body[i] = Stmt::Graph {
                id,
                fuel: fuel / 2,
                nodes,
            };
            true
        }
        (
            3,
            Stmt::Loop {
                id,
                count,
                bottom_test,
                body: b,
            },
        ) if count > 1 => {
            body[i] = Stmt::Loop {
                id,
                count: count / 2,
                bottom_test,
                body: b,
            };
            true
        }
        (
            3,
            Stmt::Irreducible {
                id,
                count,
                enter_b,
                a,
                b,
            },
        ) if count > 1 => {
            body[i] = Stmt::Irreducible {
                id,
                count: count / 2,
                enter_b,
                a,
                b,
            };
            true
        }
        (4, Stmt::Inst(Inst { defs, op, ops })) => {
            let already = op.starts_with("mov.") && ops.get(1) == Some(&Operand::Imm(0));
            match defs.first().and_then(|d| mov_zero(*d)) {
                Some(m) if !already => {
                    body[i] = m;
                    true
                }
                _ => false,
            }
        }
        (
            4,
            Stmt::Raw {
                def: Some(d),
                keep: false,
                ..
            },
        ) => match mov_zero(d) {
            Some(m) => {
                body[i] = m;
                true
            }
            None => false,
        },
        (
            5,
            Stmt::Call {
                dst,
                target,
                args,
                cond,
            },
        ) => match target {
            Target::Direct(_) => false,
            Target::Addrof(n) => {
                body[i] = Stmt::Call {
                    dst,
                    target: Target::Direct(n),
                    args,
                    cond,
                };
                true
            }
            Target::Table(_) => false,
        },
        (
            6,
            Stmt::Call {
                dst,
                target,
                args,
                cond: Some(_),
            },
        ) => {
            body[i] = Stmt::Call {
                dst,
                target,
                args,
                cond: None,
            };
            true
        }
        (
            6,
            Stmt::Break {
                target,
                cond: Some(_),
            },
        ) => {
            body[i] = Stmt::Break { target, cond: None };
            true
        }
        (
            6,
            Stmt::Return {
                cond: Some(_),
                value,
            },
        ) => {
            body[i] = Stmt::Return { cond: None, value };
            true
        }
        (
            7,
            Stmt::Raw {
                lines,
                def,
                keep: false,
                barrier,
            },
        ) if lines.len() > 1 && def.is_none() => {
            // a compound without a result: keep only its last line's effect
            // when that line stands alone (fences, barriers)
            let last = lines.last().cloned().unwrap_or_default();
            if last.starts_with("barrier") || last.starts_with("fence") {
                body[i] = Stmt::Raw {
                    lines: vec![last],
                    def,
                    keep: false,
                    barrier,
                };
                true
            } else {
                false
            }
        }
        (8, Stmt::Inst(Inst { op, ops, defs })) => {
            // an operand replaced by an immediate 0 where the instruction
            // allows it: only for plain integer arithmetic
            let plain = ["iadd.", "isub.", "and.", "or.", "xor.", "umin.", "smax."]
                .iter()
                .any(|p| op.starts_with(p));
            if !plain || ops.len() < 3 || ops[2] == Operand::Imm(0) {
                return false;
            }
            let mut ops = ops;
            ops[2] = Operand::Imm(0);
            body[i] = Stmt::Inst(Inst { op, ops, defs });
            true
        }
        _ => false,
    }
}

/// Applies candidate `k` (statements in pre-order, `EDITS` edits each):
/// `Some(applied)`, or `None` past the last candidate.
fn visit(body: &mut Vec<Stmt>, k: &mut usize) -> Option<bool> {
    for i in 0..body.len() {
        if *k < EDITS {
            return Some(edit(body, i, *k));
        }
        *k -= EDITS;
        let r = match &mut body[i] {
            Stmt::If { then_, else_, .. } => visit(then_, k).or_else(|| visit(else_, k)),
            Stmt::Loop { body, .. } | Stmt::Block { body, .. } => visit(body, k),
            Stmt::Irreducible { a, b, .. } => visit(a, k).or_else(|| visit(b, k)),
            Stmt::Graph { nodes, .. } => nodes.iter_mut().find_map(|n| visit(&mut n.body, k)),
            _ => None,
        };
        if r.is_some() {
            return r;
        }
    }
    None
}

/// Names of the functions something still refers to.
fn referenced(p: &Program) -> Vec<String> {
    let mut names: Vec<String> = p.table.clone();
    for f in &p.funcs {
        walk_lists(&f.body, &mut |l| {
            for s in l {
                if let Stmt::Call {
                    target: Target::Direct(n) | Target::Addrof(n),
                    ..
                } = s
                {
                    names.push(n.clone());
                }
            }
        });
    }
    names
}

fn uses_table(p: &Program) -> bool {
    let mut used = false;
    for f in &p.funcs {
        walk_lists(&f.body, &mut |l| {
            used |= l.iter().any(|s| {
                matches!(
                    s,
                    Stmt::Call {
                        target: Target::Table(_),
                        ..
                    }
                )
            });
        });
    }
    used
}

/// Program-level edits: drop unreferenced functions, the unused table.
fn program_edit(p: &Program, k: usize) -> Option<Option<Program>> {
    let nf = p.funcs.len() - 1;
    if k < nf {
        let name = &p.funcs[k].name;
        if referenced(p).contains(name) {
            return Some(None);
        }
        let mut q = p.clone();
        q.funcs.remove(k);
        return Some(Some(q));
    }
    if k == nf {
        if p.table.is_empty() || uses_table(p) {
            return Some(None);
        }
        let mut q = p.clone();
        q.table.clear();
        return Some(Some(q));
    }
    None
}

/// Launch edits: one work-group, smaller work-groups, fewer dimensions, no offset.
fn launch_edits(l: LaunchShape) -> Vec<LaunchShape> {
    let mut out = Vec::new();
    let d = l.dims as usize;
    if l.offset != [0; 3] {
        out.push(LaunchShape {
            offset: [0; 3],
            ..l
        });
    }
    for i in 0..d {
        if l.global[i] > l.local[i] {
            let mut m = l;
            m.global[i] = l.local[i];
            out.push(m);
        }
        if l.global[i] > 1 {
            let mut m = l;
            m.global[i] = l.global[i] / 2;
            out.push(m);
        }
        if l.local[i] > 1 {
            let mut m = l;
            m.local[i] = l.local[i] / 2;
            m.global[i] = m.global[i].min(m.local[i].max(1) * (l.global[i] / l.local[i]).max(1));
            out.push(m);
        }
    }
    if d > 1 && l.global[d - 1] == 1 && l.local[d - 1] == 1 {
        out.push(LaunchShape {
            dims: l.dims - 1,
            ..l
        });
    }
    out
}

/// Shrinks `case` while `still(case)` holds; at most `max_tries` predicate
/// calls. The predicate must hold for `case` itself.
pub fn reduce(case: &Case, still: &mut dyn FnMut(&Case) -> bool, max_tries: usize) -> Case {
    let mut best = case.clone();
    let mut tries = 0usize;
    let mut attempt = |c: Case, tries: &mut usize, best: &mut Case| -> bool {
        if *tries >= max_tries || c.source == best.source && c.shape() == best.shape() {
            return false;
        }
        *tries += 1;
        if still(&c) {
            *best = c;
            true
        } else {
            false
        }
    };
    loop {
        let before = (best.source.len(), best.shape());
        // the launch first: smaller launches make every later try faster
        let mut progress = true;
        while progress {
            progress = false;
            for l in launch_edits(best.shape()) {
                if attempt(best.with(best.program.clone(), l), &mut tries, &mut best) {
                    progress = true;
                    break;
                }
            }
        }
        // statements of every function, kernel first
        for fi in (0..best.program.funcs.len()).rev() {
            let mut k = 0usize;
            loop {
                if fi >= best.program.funcs.len() || tries >= max_tries {
                    break;
                }
                let mut p = best.program.clone();
                let mut kk = k;
                match visit(&mut p.funcs[fi].body, &mut kk) {
                    None => break,
                    Some(false) => k += 1,
                    Some(true) => {
                        if !attempt(best.with(p, best.shape()), &mut tries, &mut best) {
                            k += 1;
                        }
                    }
                }
            }
        }
        let mut k = 0;
        while let Some(e) = program_edit(&best.program, k) {
            let accepted = match e {
                Some(p) => {
                    let c = best.with(p, best.shape());
                    attempt(c, &mut tries, &mut best)
                }
                None => false,
            };
            if !accepted {
                k += 1;
            }
        }
        if (best.source.len(), best.shape()) == before || tries >= max_tries {
            return best;
        }
    }
}

/// Writes `case.pisa` and `command.txt` (the exact `pisa run` command line)
/// into `dir`; returns the command line.
pub fn write_reproducer(case: &Case, dir: &Path, note: &str) -> std::io::Result<String> {
    std::fs::create_dir_all(dir)?;
    let file: PathBuf = dir.join("case.pisa");
    let header = note
        .lines()
        .map(|l| format!("// {l}\n"))
        .collect::<String>();
    std::fs::write(&file, format!("{header}{}", case.source))?;
    let cmd = case.command_line(&file.display().to_string());
    std::fs::write(dir.join("command.txt"), format!("{cmd}\n"))?;
    Ok(cmd)
}
