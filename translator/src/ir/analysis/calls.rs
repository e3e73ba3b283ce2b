//! The call graph: direct calls, and for calls through a register every
//! function whose address the module takes. Gives recursion (a cycle, which
//! Vulkan cannot run) and the convergent functions (those that reach a
//! work-group barrier, directly or through calls).

use crate::ir::{Function, InitElem, Opcode, Operand, Program, Variable};
use crate::syntax::ast::Name;
use std::collections::HashSet;

pub struct CallGraph {
    /// Callees of each function (by index into `Program::functions`).
    pub callees: Vec<Vec<usize>>,
    /// Functions that contain a `barrier`, directly or through calls.
    pub convergent: Vec<bool>,
}

impl CallGraph {
    pub fn compute(p: &Program) -> CallGraph {
        let index = |n: Name| p.functions.iter().position(|f| f.name == n);
        let mut callees = Vec::with_capacity(p.functions.len());
        let mut convergent = Vec::with_capacity(p.functions.len());
        for f in &p.functions {
            let mut out = Vec::new();
            for target in call_targets(f) {
                let names: Vec<Name> = match target {
                    Some(n) => vec![n],
                    None => p.address_taken.clone(),
                };
                for n in names {
                    if let Some(j) = index(n) {
                        if !out.contains(&j) {
                            out.push(j);
                        }
                    }
                }
            }
            callees.push(out);
            convergent.push(f.pisa_insts().any(|i| i.opcode == Opcode::BarrierWorkgroup));
        }
        // a caller of a convergent function is convergent
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..callees.len() {
                if !convergent[i] && callees[i].iter().any(|&j| convergent[j]) {
                    convergent[i] = true;
                    changed = true;
                }
            }
        }
        CallGraph {
            callees,
            convergent,
        }
    }

    /// A call cycle, as function indices from the first repeated one, if
    /// the graph has one.
    pub fn cycle(&self) -> Option<Vec<usize>> {
        let n = self.callees.len();
        let mut color = vec![0u8; n];
        for start in 0..n {
            if color[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            color[start] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if let Some(&w) = self.callees[v].get(*next) {
                    *next += 1;
                    if color[w] == 1 {
                        let pos = stack.iter().position(|&(x, _)| x == w).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[pos..].iter().map(|&(x, _)| x).collect();
                        cycle.push(w);
                        return Some(cycle);
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
        None
    }
}

/// The target of every call in `f`: `Some(name)` for a direct call, `None`
/// for a call through a register.
pub fn call_targets(f: &Function) -> impl Iterator<Item = Option<Name>> + '_ {
    f.pisa_insts().flat_map(|i| {
        i.operands.iter().filter_map(|op| match op {
            Operand::Call(c) => Some(match c.target {
                Operand::Symbol(n, _) => Some(n),
                _ => None,
            }),
            _ => None,
        })
    })
}

/// Functions whose address the module takes (`addrof`, symbol
/// initializers of variables): the possible targets of calls through
/// registers, in first-seen order.
pub fn address_taken(variables: &[Variable], functions: &[Function]) -> Vec<Name> {
    let funcs: HashSet<Name> = functions.iter().map(|f| f.name).collect();
    let mut out = Vec::new();
    let mut add = |n: Name| {
        if funcs.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    };
    for v in variables {
        for e in v.init.iter().flatten() {
            if let InitElem::Symbol { name, .. } = e {
                add(*name);
            }
        }
    }
    for f in functions {
        for i in f.pisa_insts().filter(|i| i.opcode == Opcode::Addrof) {
            for op in &i.operands {
                if let Operand::Symbol(n, _) = op {
                    add(*n);
                }
            }
        }
    }
    out
}
