//! The call graph: direct calls, and for calls through a register every
//! function whose address the module takes. Gives recursion (a cycle, which
//! Vulkan cannot run) and the convergent functions (those that reach a
//! work-group barrier, directly or through calls).

use super::Summary;
use crate::ir::{Function, InitElem, Inst, Opcode, Operand, PisaInst, Program, Variable};
use crate::syntax::ast::Name;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub struct CallGraph {
    /// Callees of each function (by index into `Program::functions`).
    pub callees: Vec<Vec<usize>>,
    /// Functions that contain a `barrier`, directly or through calls.
    pub convergent: Vec<bool>,
}

/// What the whole-program analyses read from one function's instructions,
/// gathered in one scan of them ([`facts`]): the back end needs the call
/// graph, the inlined size and the SIMT functions of a program at once, and
/// on a large kernel each scan of its instructions costs more than the
/// analysis.
pub struct FunctionFacts {
    /// The target of every call in order, as [`call_targets`] gives them.
    pub calls: Vec<Option<Name>>,
    /// It has a work-group barrier.
    pub barrier: bool,
    /// Its own size as [`inlined_instructions`] counts it.
    pub own: u64,
    /// It runs in SIMT mode by itself, not counting its calls
    /// ([`super::subgroups::simt_functions`]).
    pub simt: bool,
}

/// [`FunctionFacts`] of every function of `p`, in order.
pub fn facts(p: &Program) -> Vec<FunctionFacts> {
    let mask = p.symbols.get("activemask");
    p.functions
        .iter()
        .map(|f| {
            let mut facts = FunctionFacts {
                calls: Vec::new(),
                barrier: false,
                own: 0,
                simt: mask.is_some_and(|m| super::subgroups::returns_special(f, m)),
            };
            for b in &f.blocks {
                facts.own += b.insts.len() as u64 + 1;
                for inst in &b.insts {
                    let i = match inst {
                        Inst::Pisa(i) => i,
                        Inst::Simt(s) => {
                            facts.simt = true;
                            match s.pisa() {
                                Some(i) => i,
                                None => continue,
                            }
                        }
                        // checked mode's checks are part of the access they check
                        Inst::CheckAccess(_) => {
                            facts.own -= 1;
                            continue;
                        }
                        _ => continue,
                    };
                    match i.opcode {
                        Opcode::Call => facts.calls.extend(targets(i)),
                        Opcode::BarrierWorkgroup => facts.barrier = true,
                        _ => {}
                    }
                    facts.simt |= super::subgroups::is_cross_lane(i)
                        || mask.is_some_and(|m| super::subgroups::reads(i, m));
                }
            }
            facts
        })
        .collect()
}

impl CallGraph {
    pub fn compute(p: &Program) -> CallGraph {
        CallGraph::of(p, &facts(p))
    }

    /// [`CallGraph::compute`], where `summary` (of `p` as it is) says
    /// which functions have calls and barriers: the others' instructions
    /// are not walked.
    pub fn compute_with(p: &Program, summary: Option<&Summary>) -> CallGraph {
        let Some(summary) = summary.filter(|s| s.covers(p.functions.len())) else {
            return CallGraph::compute(p);
        };
        let facts: Vec<FunctionFacts> = p
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| FunctionFacts {
                // (no walk of a function without calls)
                calls: if summary.has(i, Opcode::Call) {
                    call_targets(f).collect()
                } else {
                    Vec::new()
                },
                barrier: summary.has(i, Opcode::BarrierWorkgroup),
                // (the call graph reads neither)
                own: 0,
                simt: false,
            })
            .collect();
        CallGraph::of(p, &facts)
    }

    /// The call graph of `p` from its [`facts`].
    pub fn of(p: &Program, facts: &[FunctionFacts]) -> CallGraph {
        let index = function_index(p);
        let indirect: Vec<usize> = p
            .address_taken
            .iter()
            .filter_map(|n| index.get(n).copied())
            .collect();
        let mut callees = Vec::with_capacity(p.functions.len());
        let mut convergent = Vec::with_capacity(p.functions.len());
        // `seen[j] == i + 1`: function `i` already lists `j` (one pass, no
        // search of the list per call)
        let mut seen = vec![0usize; p.functions.len()];
        for (i, fact) in facts.iter().enumerate() {
            let mut out = Vec::new();
            let mut add = |j: usize| {
                if seen[j] != i + 1 {
                    seen[j] = i + 1;
                    out.push(j);
                }
            };
            // in call order (the cycle reported follows it); the first
            // call through a register adds every possible target
            let mut through_register = false;
            for &target in &fact.calls {
                match target {
                    Some(n) => {
                        if let Some(&j) = index.get(&n) {
                            add(j);
                        }
                    }
                    None if !through_register => {
                        through_register = true;
                        indirect.iter().for_each(|&j| add(j));
                    }
                    None => {}
                }
            }
            callees.push(out);
            convergent.push(fact.barrier);
        }
        // a caller of a convergent function is convergent: a walk back over
        // the call edges from the functions with a barrier
        let mut callers = vec![Vec::new(); callees.len()];
        for (i, cs) in callees.iter().enumerate() {
            for &j in cs {
                callers[j].push(i);
            }
        }
        let mut work: Vec<usize> = (0..callees.len()).filter(|&i| convergent[i]).collect();
        while let Some(j) = work.pop() {
            for &i in &callers[j] {
                if !convergent[i] {
                    convergent[i] = true;
                    work.push(i);
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
/// What a driver that inlines every call (Vulkan drivers do; Mesa's NIR
/// inlines callees into each function, bottom up) has to build: each
/// function's instruction count with every call replaced by its callee's
/// inlined body (a call through a register by all the functions it may
/// reach), summed over the functions `roots` reach. Saturates at
/// `u64::MAX`; the graph must be acyclic (`CallGraph::cycle`).
pub fn inlined_instructions(p: &Program, roots: &[usize]) -> u64 {
    inlined_instructions_of(p, roots, &facts(p))
}

/// [`inlined_instructions`] from the program's [`facts`].
pub fn inlined_instructions_of(p: &Program, roots: &[usize], facts: &[FunctionFacts]) -> u64 {
    let by_name = function_index(p);
    let index = |n: Name| by_name.get(&n).copied();
    // per function, its calls (with repetition) as callee lists
    let calls: Vec<Vec<Vec<usize>>> = facts
        .iter()
        .map(|f| {
            f.calls
                .iter()
                .map(|t| match *t {
                    Some(n) => index(n).into_iter().collect(),
                    None => p.address_taken.iter().filter_map(|&n| index(n)).collect(),
                })
                .collect()
        })
        .collect();
    let own: Vec<u64> = facts.iter().map(|f| f.own).collect();
    // post-order over the reachable functions, without recursion (call
    // chains may be thousands deep)
    let mut size: Vec<Option<u64>> = vec![None; p.functions.len()];
    let mut total = 0u64;
    for &root in roots {
        let mut stack = vec![(root, false)];
        while let Some((f, expanded)) = stack.pop() {
            if size[f].is_some() {
                continue;
            }
            let callees = calls[f].iter().flatten().copied();
            if !expanded {
                stack.push((f, true));
                stack.extend(callees.filter(|&g| size[g].is_none()).map(|g| (g, false)));
                continue;
            }
            let s = calls[f]
                .iter()
                .flatten()
                .fold(own[f], |acc, &g| acc.saturating_add(size[g].unwrap_or(0)));
            size[f] = Some(s);
            total = total.saturating_add(s);
        }
    }
    total
}

/// Each function's index in `Program::functions` by name (the first one
/// with that name, as [`Program::function`] finds it): callee lookups in
/// one hash probe, not a search of every function per call.
pub fn function_index(p: &Program) -> HashMap<Name, usize> {
    let mut index = HashMap::with_capacity_and_hasher(p.functions.len(), Default::default());
    for (i, f) in p.functions.iter().enumerate() {
        index.entry(f.name).or_insert(i);
    }
    index
}

pub fn call_targets(f: &Function) -> impl Iterator<Item = Option<Name>> + '_ {
    // only `call` has a call operand (the validator accepts one only where
    // the catalog's operand says `call`): the others' operands are not read
    f.pisa_insts()
        .filter(|i| i.opcode == Opcode::Call)
        .flat_map(targets)
}

/// The targets of the call operands of `i` (a `call`).
fn targets(i: &PisaInst) -> impl Iterator<Item = Option<Name>> + '_ {
    i.operands.iter().filter_map(|op| match op {
        Operand::Call(c) => Some(match c.target {
            Operand::Symbol(n, _) => Some(n),
            _ => None,
        }),
        _ => None,
    })
}

/// Functions whose address the module takes (`addrof`, symbol
/// initializers of variables): the possible targets of calls through
/// registers, in first-seen order.
pub fn address_taken(variables: &[Variable], functions: &[Function]) -> Vec<Name> {
    let addrof_symbols = functions.iter().flat_map(|f| {
        f.pisa_insts()
            .filter(|i| i.opcode == Opcode::Addrof)
            .flat_map(|i| i.operands.iter())
            .filter_map(|op| match op {
                Operand::Symbol(n, _) => Some(*n),
                _ => None,
            })
    });
    address_taken_of(variables, functions, addrof_symbols)
}

/// [`address_taken`] given the symbols the `addrof` instructions name, in
/// program order (`ir::build` collects them as it lowers, which saves a
/// walk over every instruction).
pub fn address_taken_of(
    variables: &[Variable],
    functions: &[Function],
    addrof_symbols: impl IntoIterator<Item = Name>,
) -> Vec<Name> {
    let funcs: HashSet<Name> = functions.iter().map(|f| f.name).collect();
    let mut out = Vec::new();
    let mut listed = HashSet::default();
    let mut add = |n: Name| {
        if funcs.contains(&n) && listed.insert(n) {
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
    addrof_symbols.into_iter().for_each(add);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        let src = format!(".version 0.1;\n.target 100;\n{src}");
        let m = crate::assemble("c.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
        crate::ir::build(&m)
    }

    fn kernels(p: &Program) -> Vec<usize> {
        (0..p.functions.len())
            .filter(|&i| p.functions[i].kind == crate::ir::FuncKind::Kernel)
            .collect()
    }

    /// Each function is one block of its instructions and its terminator;
    /// `@f` counts 2 (one `iadd`, the return).
    const LEAF: &str = ".function .32b @f(.reg .32b %x)\n{\n\t.reg .32b %r;\n\tiadd.32b %r, %x, 1;\n\treturn %r;\n}\n";

    #[test]
    fn calls_count_once_per_call_and_callers_include_callees() {
        // @g calls @f twice: 1 + 2 + 2 + 1 (its own call, call, return)
        let p = program(&format!(
            "{LEAF}.function .32b @g(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\tcall %r, @f(%x);\n\tcall %r, @f(%r);\n\treturn %r;\n}}\n.kernel @k()\n{{\n\t.reg .32b %v;\n\tcall %v, @g(%v);\n\treturn;\n}}\n"
        ));
        let sizes: Vec<usize> = p.functions.iter().map(|f| f.blocks.len()).collect();
        assert_eq!(sizes, [1, 1, 1]);
        // f = 2; g = 3 own + 2 × 2 = 7; k = 2 own + 7 = 9; total 18
        assert_eq!(inlined_instructions(&p, &kernels(&p)), 18);
        // functions no kernel reaches do not count
        assert_eq!(inlined_instructions(&p, &[]), 0);
    }

    #[test]
    fn repeated_doubling_grows_exponentially_and_saturates() {
        let mut src = LEAF.replace("@f(", "@f0(");
        for i in 1..80 {
            src.push_str(&format!(
                ".function .32b @f{i}(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\tcall %r, @f{}(%x);\n\tcall %r, @f{}(%r);\n\treturn %r;\n}}\n",
                i - 1,
                i - 1
            ));
        }
        src.push_str(".kernel @k()\n{\n\t.reg .32b %v;\n\tcall %v, @f79(%v);\n\treturn;\n}\n");
        let p = program(&src);
        assert_eq!(inlined_instructions(&p, &kernels(&p)), u64::MAX);
    }
}
