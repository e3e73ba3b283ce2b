//! Prints a [`Program`] as PISA text: one module (`split.rs` prints the same
//! pieces as two modules that link, spec 06 §2.5.2, 08 §4.3.1).

use crate::program::*;
use std::fmt::Write;

/// Fixed registers every function declares besides its pools (scratch,
/// work-item ids, uniform values, loop counters).
pub const FIXED_32: &[&str] = &[
    "%ta", "%tb", "%tc", "%tj", "%gid", "%lid", "%lsz", "%u0", "%u1", "%u2", "%u3",
];
pub const FIXED_64: &[&str] = &["%tA", "%tB", "%tf", "%tJ", "%obase", "%tin", "%tatom"];

/// Bytes of the per-work-group shared arrays (8 bytes for each of up to 256 work-items).
pub const SHARED_BYTES: u32 = 2048;
/// Bytes of the input buffer.
pub const INPUT_BYTES: u32 = 1536;
/// Bytes of the atomics buffer (kernel argument) and of `@gatom`.
pub const ATOM_BYTES: u32 = 512;
/// Bytes of each work-item's `@gscr` slot.
pub const GSCR_BYTES: u32 = 16;
/// Entries of `@gptr`, the relocated pointers `@gscr + 4j` (a `.global`
/// without `.host_access`: addresses differ between devices).
pub const GPTR_ENTRIES: u64 = 4;
/// Bytes of the kernel argument `%blob` (random bytes, read by `ld.param`).
pub const BLOB_BYTES: u32 = 16;

pub fn reg(r: Reg) -> String {
    format!("%{}{}", r.class.prefix(), r.idx)
}

pub fn operand(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => reg(*r),
        Operand::Elem(r, i) => format!("{}.{}", reg(*r), ["x", "y", "z", "w"][*i as usize]),
        Operand::Named(n) => n.clone(),
        Operand::Imm(v) => format!("{v:#x}"),
        Operand::Neg(v) => format!("{v}"),
    }
}

pub fn inst(i: &Inst) -> String {
    let ops: Vec<String> = i.ops.iter().map(operand).collect();
    if ops.is_empty() {
        format!("{};", i.op)
    } else {
        format!("{} {};", i.op, ops.join(", "))
    }
}

/// The lines that compute a condition, and the predicate operand to branch on.
fn cond(c: &Cond, out: &mut Vec<String>) -> String {
    match c {
        Cond::Cmp { op, a, b, neg } => {
            out.push(format!("{op} %tp, {}, {};", operand(a), operand(b)));
            format!("{}%tp", if *neg { "!" } else { "" })
        }
        Cond::Pred { reg: r, neg } => format!("{}{}", if *neg { "!" } else { "" }, reg(*r)),
    }
}

struct Printer<'a> {
    out: String,
    /// Loop/block ids that are plain blocks (their `Continue` goes to the end).
    blocks: Vec<u32>,
    prog: &'a Program,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push('\t');
        }
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn label(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }
    fn jump(&mut self, d: usize, c: &Option<Cond>, label: &str) {
        match c {
            None => self.line(d, &format!("goto {label};")),
            Some(c) => {
                let mut pre = Vec::new();
                let p = cond(c, &mut pre);
                for l in pre {
                    self.line(d, &l);
                }
                self.line(d, &format!("goto.cond {p}, {label};"));
            }
        }
    }

    fn call_target(&mut self, d: usize, t: &Target) -> String {
        match t {
            Target::Direct(n) => format!("@{n}"),
            Target::Addrof(n) => {
                self.line(d, &format!("addrof.64b %tf, @{n};"));
                "%tf".into()
            }
            Target::Table(i) => {
                let i = *i % self.prog.table.len().max(1);
                self.line(d, &format!("ld.const.64b %tf, [@ftab + {}];", i * 8));
                "%tf".into()
            }
        }
    }

    fn stmts(&mut self, d: usize, body: &[Stmt]) {
        for s in body {
            self.stmt(d, s);
        }
    }

    fn stmt(&mut self, d: usize, s: &Stmt) {
        match s {
            Stmt::Inst(i) => self.line(d, &inst(i)),
            Stmt::Raw { lines, .. } => {
                for l in lines {
                    if l.ends_with(':') {
                        self.label(l.trim_end_matches(':'));
                    } else {
                        self.line(d, l);
                    }
                }
            }
            Stmt::If {
                id,
                cond: c,
                then_,
                else_,
            } => {
                let mut pre = Vec::new();
                let p = cond(c, &mut pre);
                for l in pre {
                    self.line(d, &l);
                }
                let neg = match p.strip_prefix('!') {
                    Some(q) => q.to_string(),
                    None => format!("!{p}"),
                };
                if else_.is_empty() {
                    self.line(d, &format!("goto.cond {neg}, F{id}_end;"));
                    self.stmts(d + 1, then_);
                } else {
                    self.line(d, &format!("goto.cond {neg}, F{id}_else;"));
                    self.stmts(d + 1, then_);
                    self.line(d + 1, &format!("goto F{id}_end;"));
                    self.label(&format!("F{id}_else"));
                    self.stmts(d + 1, else_);
                }
                self.label(&format!("F{id}_end"));
            }
            Stmt::Loop {
                id,
                count,
                bottom_test,
                body,
            } => {
                self.line(d, &format!("mov.32b %k{id}, 0;"));
                self.label(&format!("L{id}_head"));
                if !bottom_test {
                    self.line(d + 1, &format!("ucmp.ge.32b %tp, %k{id}, {count};"));
                    self.line(d + 1, &format!("goto.cond %tp, L{id}_end;"));
                }
                self.stmts(d + 1, body);
                self.label(&format!("L{id}_cont"));
                self.line(d + 1, &format!("iadd.32b %k{id}, %k{id}, 1;"));
                if *bottom_test {
                    self.line(d + 1, &format!("ucmp.lt.32b %tp, %k{id}, {count};"));
                    self.line(d + 1, &format!("goto.cond %tp, L{id}_head;"));
                } else {
                    self.line(d + 1, &format!("goto L{id}_head;"));
                }
                self.label(&format!("L{id}_end"));
            }
            Stmt::Block { id, body } => {
                self.blocks.push(*id);
                self.stmts(d + 1, body);
                self.blocks.pop();
                self.label(&format!("L{id}_end"));
            }
            Stmt::Break { target, cond } => self.jump(d, cond, &format!("L{target}_end")),
            Stmt::Continue { target, cond } => {
                let l = if self.blocks.contains(target) {
                    format!("L{target}_end")
                } else {
                    format!("L{target}_cont")
                };
                self.jump(d, cond, &l)
            }
            Stmt::Irreducible {
                id,
                count,
                enter_b,
                a,
                b,
            } => {
                self.line(d, &format!("mov.32b %k{id}, 0;"));
                self.jump(d, &Some(enter_b.clone()), &format!("I{id}_b"));
                self.label(&format!("I{id}_a"));
                self.stmts(d + 1, a);
                self.label(&format!("I{id}_b"));
                self.stmts(d + 1, b);
                self.line(d + 1, &format!("iadd.32b %k{id}, %k{id}, 1;"));
                self.line(d + 1, &format!("ucmp.lt.32b %tp, %k{id}, {count};"));
                self.line(d + 1, &format!("goto.cond %tp, I{id}_a;"));
            }
            Stmt::Graph { id, fuel, nodes } => {
                let n = nodes.len();
                let label = |i: usize| {
                    if i >= n {
                        format!("G{id}_end")
                    } else {
                        format!("G{id}_{i}")
                    }
                };
                self.line(d, &format!("mov.32b %k{id}, 0;"));
                for (i, node) in nodes.iter().enumerate() {
                    self.label(&label(i));
                    self.line(d + 1, &format!("iadd.32b %k{id}, %k{id}, 1;"));
                    self.line(d + 1, &format!("ucmp.gt.32b %tp, %k{id}, {fuel};"));
                    self.line(d + 1, &format!("goto.cond %tp, G{id}_end;"));
                    self.stmts(d + 1, &node.body);
                    self.jump(d + 1, &Some(node.cond.clone()), &label(node.to));
                    if node.next != i + 1 {
                        self.jump(d + 1, &None, &label(node.next));
                    }
                }
                self.label(&label(n));
            }
            Stmt::Return { cond: c, value } => {
                let v = value.as_ref().map(operand);
                match (c, v) {
                    (None, None) => self.line(d, "return;"),
                    (None, Some(v)) => self.line(d, &format!("return {v};")),
                    (Some(c), v) => {
                        let mut pre = Vec::new();
                        let p = cond(c, &mut pre);
                        for l in pre {
                            self.line(d, &l);
                        }
                        match v {
                            None => self.line(d, &format!("return.cond {p};")),
                            Some(v) => self.line(d, &format!("return.cond {p}, {v};")),
                        }
                    }
                }
            }
            Stmt::Call {
                dst,
                target,
                args,
                cond: c,
            } => {
                let t = self.call_target(d, target);
                let args: Vec<String> = args.iter().map(operand).collect();
                let r = dst.map_or_else(|| "void".to_string(), reg);
                match c {
                    None => self.line(d, &format!("call {r}, {t}({});", args.join(", "))),
                    Some(c) => {
                        let mut pre = Vec::new();
                        let p = cond(c, &mut pre);
                        for l in pre {
                            self.line(d, &l);
                        }
                        self.line(d, &format!("call.cond {p}, {r}, {t}({});", args.join(", ")));
                    }
                }
            }
        }
    }

    /// `linkage`: `""` or `".export "` (08 §4.3.1).
    fn func(&mut self, f: &Func, linkage: &str) {
        let params: Vec<String> = if f.kernel {
            ["%out", "%in", "%atom"]
                .iter()
                .map(|p| format!(".param[8] {p}"))
                .chain([
                    ".param[4] %n".to_string(),
                    ".param[8] %pair".to_string(),
                    format!(".param[{BLOB_BYTES}] %blob"),
                ])
                .collect()
        } else {
            f.params
                .iter()
                .enumerate()
                .map(|(i, t)| format!(".reg {} %a{i}", t.decl()))
                .collect()
        };
        if f.kernel {
            let _ = writeln!(self.out, ".kernel @{}({})\n{{", f.name, params.join(", "));
        } else {
            let ret = f.ret.map_or("void", |t| t.decl());
            let _ = writeln!(
                self.out,
                "{linkage}.function {ret} @{}({})\n{{",
                f.name,
                params.join(", ")
            );
        }
        // declarations
        let body_start = self.out.len();
        self.stmts(1, &f.body);
        let body = self.out.split_off(body_start);
        let mut decls = Vec::new();
        for c in Class::ALL {
            let names: Vec<String> = (0..c.pool())
                .map(|i| reg(Reg { class: c, idx: i }))
                .collect();
            if c == Class::Pred {
                decls.push(format!(".pred {};", names.join(", ")));
            } else {
                decls.push(format!(".reg {} {};", c.decl(), names.join(", ")));
            }
        }
        let mut r32: Vec<String> = FIXED_32.iter().map(|s| s.to_string()).collect();
        r32.extend((0..f.counters).map(|k| format!("%k{k}")));
        decls.push(format!(".reg .32b {};", r32.join(", ")));
        decls.push(format!(".reg .64b {};", FIXED_64.join(", ")));
        decls.push(".reg .16b %th;".into());
        for (name, ty) in crate::gen::VECTOR_TEMPS.iter().chain(&[
            // the 128-bit atomics' operands (`gen/mem.rs`)
            ("%tQ", ".128b"),
            ("%tR", ".128b"),
        ]) {
            if mentions(&body, name) {
                decls.push(format!(".reg {ty} {name};"));
            }
        }
        decls.push(".pred %tp;".into());
        let n = &f.name;
        if f.private_bytes > 0 {
            decls.push(format!(".private .align 16 @pa_{n}[{}];", f.private_bytes));
        }
        for (var, size) in [("sh", SHARED_BYTES), ("so", SHARED_BYTES), ("sc", 8)] {
            if body.contains(&format!("@{var}_{n}")) {
                decls.push(format!(".shared .align 8 @{var}_{n}[{size}];"));
            }
        }
        for dcl in decls {
            self.line(1, &dcl);
        }
        self.out.push_str(&body);
        match f.ret {
            None => self.line(1, "return;"),
            Some(t) => self.line(1, &format!("return %{}0;", t.class().prefix())),
        }
        self.out.push_str("}\n\n");
    }
}

/// The header every generated module starts with (10 §6.1).
pub(crate) const HEADER: &str = ".version 0.1;\n.target 100;\n\n";

/// A module-scope variable of a generated program (06 §2.5): its definition,
/// or its declaration in a module that imports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleVar {
    pub name: &'static str,
    /// `global` or `const`.
    pub space: &'static str,
    pub align: u32,
    pub bytes: u64,
    /// `.host_access("<name>")`: the host reads it by its name.
    pub host: bool,
    /// The initializer's elements (`.64b 0, ...`), if any.
    pub init: Option<Vec<String>>,
}

impl ModuleVar {
    /// The definition, after `linkage` (`""` or `".export "`).
    pub(crate) fn definition(&self, linkage: &str) -> String {
        let host = if self.host {
            format!(" .host_access(\"{}\")", self.name)
        } else {
            String::new()
        };
        let init = self
            .init
            .as_ref()
            .map_or(String::new(), |v| format!(" = {{ {} }}", v.join(", ")));
        format!(
            "{linkage}.{} .align {}{host} @{}[{}]{init};",
            self.space, self.align, self.name, self.bytes
        )
    }

    /// The declaration of another module's definition (no initializer, no
    /// host name: 06 §2.5.2).
    pub(crate) fn import(&self) -> String {
        format!(
            ".import .{} .align {} @{}[{}];",
            self.space, self.align, self.name, self.bytes
        )
    }
}

/// The module-scope data variables, in the order they are printed:
/// `@gscr` (per-item scratch), `@gptr` (relocated pointers into it),
/// `@gatom` (atomics), `@ctab` (constants, when the program has any).
pub(crate) fn module_vars(p: &Program) -> Vec<ModuleVar> {
    let mut vars = vec![
        ModuleVar {
            name: "gscr",
            space: "global",
            align: 16,
            bytes: (p.items.max(1) * GSCR_BYTES) as u64,
            host: true,
            init: None,
        },
        ModuleVar {
            name: "gptr",
            space: "global",
            align: 8,
            bytes: GPTR_ENTRIES * 8,
            host: false,
            init: Some(
                (0..GPTR_ENTRIES)
                    .map(|j| format!(".64b @gscr+{}", 4 * j))
                    .collect(),
            ),
        },
        ModuleVar {
            name: "gatom",
            space: "global",
            // 16: the 128-bit atomics' slots
            align: 16,
            bytes: ATOM_BYTES as u64,
            host: true,
            init: Some((0..ATOM_BYTES / 8).map(|_| ".64b 0".into()).collect()),
        },
    ];
    if !p.ctab.is_empty() {
        vars.push(ModuleVar {
            name: "ctab",
            space: "const",
            align: 8,
            bytes: p.ctab.len() as u64 * 4,
            host: false,
            init: Some(p.ctab.iter().map(|v| format!(".32b {v:#x}")).collect()),
        });
    }
    vars
}

/// `@ftab`, the `.const` table of function addresses the kernel's indirect
/// calls load from (06 §2.5.1.2), when the program has one.
pub(crate) fn function_table(p: &Program) -> Option<ModuleVar> {
    (!p.table.is_empty()).then(|| ModuleVar {
        name: "ftab",
        space: "const",
        align: 8,
        bytes: p.table.len() as u64 * 8,
        host: false,
        init: Some(p.table.iter().map(|n| format!(".64b @{n}")).collect()),
    })
}

/// The text of one function (or the kernel) of `p`, its definition preceded
/// by `linkage` (`""` or `".export "`).
pub(crate) fn function(p: &Program, f: &Func, linkage: &str) -> String {
    let mut pr = Printer {
        out: String::new(),
        blocks: Vec::new(),
        prog: p,
    };
    pr.func(f, linkage);
    pr.out
}

/// The declaration that imports function `f` from another module
/// (08 §4.3.1: its signature without a body).
pub(crate) fn function_import(f: &Func) -> String {
    let ret = f.ret.map_or("void", |t| t.decl());
    let params: Vec<String> = f
        .params
        .iter()
        .map(|t| format!(".reg {}", t.decl()))
        .collect();
    format!(
        ".import .function {ret} @{}({});",
        f.name,
        params.join(", ")
    )
}

/// The PISA text of a program.
pub fn print(p: &Program) -> String {
    let mut out = HEADER.to_string();
    for v in module_vars(p) {
        out.push_str(&v.definition(""));
        out.push('\n');
    }
    out.push('\n');
    for f in &p.funcs {
        if f.kernel {
            if let Some(t) = function_table(p) {
                out.push_str(&t.definition(""));
                out.push_str("\n\n");
            }
        }
        out.push_str(&function(p, f, ""));
    }
    out
}

/// Whether `text` names `name` (a register or `@symbol`), not one whose
/// name it begins.
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        !text[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
