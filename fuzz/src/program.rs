//! The structured representation of a generated program: functions of
//! statements (instructions, ifs, counted loops, labelled blocks, irreducible
//! cycles, calls, returns, compound memory operations), printed to PISA text by
//! `print.rs`. The reducer edits this representation, never the text, so every
//! reduced program is still valid and terminating:
//! - every register is initialized by the function's protected prologue, so
//!   deleting any other statement leaves no register undefined;
//! - loops count with a dedicated counter register no other statement writes;
//! - barriers only appear in compound statements placed in work-group-uniform
//!   control flow, and the reducer only deletes or unwraps, which keeps that.

/// A register class: the pools every function declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    B8,
    B16,
    B32,
    B64,
    B128,
    /// `.v2.32b`
    V2x32,
    /// `.v4.32b`
    V4x32,
    /// `.v2.16b` (packed `.16bx2` operands)
    V2x16,
    /// `.v4.8b` (packed `.8bx4` operands)
    V4x8,
    Pred,
}

impl Class {
    pub const ALL: [Class; 10] = [
        Class::B8,
        Class::B16,
        Class::B32,
        Class::B64,
        Class::B128,
        Class::V2x32,
        Class::V4x32,
        Class::V2x16,
        Class::V4x8,
        Class::Pred,
    ];
    /// How many registers of the class each function has.
    pub fn pool(self) -> u8 {
        match self {
            Class::B8 => 2,
            Class::B16 => 3,
            Class::B32 => 6,
            Class::B64 => 3,
            Class::B128 => 1,
            Class::V2x32 => 1,
            Class::V4x32 => 2,
            Class::V2x16 => 2,
            Class::V4x8 => 1,
            Class::Pred => 2,
        }
    }
    /// The register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::B8 => "c",
            Class::B16 => "h",
            Class::B32 => "r",
            Class::B64 => "d",
            Class::B128 => "q",
            Class::V2x32 => "w",
            Class::V4x32 => "v",
            Class::V2x16 => "x",
            Class::V4x8 => "y",
            Class::Pred => "p",
        }
    }
    /// The declaration type (`.32b`, `.v4.32b`, `.pred`).
    pub fn decl(self) -> &'static str {
        match self {
            Class::B8 => ".8b",
            Class::B16 => ".16b",
            Class::B32 => ".32b",
            Class::B64 => ".64b",
            Class::B128 => ".128b",
            Class::V2x32 => ".v2.32b",
            Class::V4x32 => ".v4.32b",
            Class::V2x16 => ".v2.16b",
            Class::V4x8 => ".v4.8b",
            Class::Pred => ".pred",
        }
    }
    /// Bits of the whole register (elements times element width).
    pub fn bits(self) -> u32 {
        match self {
            Class::B8 => 8,
            Class::B16 => 16,
            Class::B32 | Class::V2x16 | Class::V4x8 => 32,
            Class::B64 | Class::V2x32 => 64,
            Class::B128 | Class::V4x32 => 128,
            Class::Pred => 1,
        }
    }
    /// Scalar integer class of a width.
    pub fn int(bits: u32) -> Class {
        match bits {
            8 => Class::B8,
            16 => Class::B16,
            32 => Class::B32,
            64 => Class::B64,
            _ => Class::B128,
        }
    }
}

/// A pool register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: Class,
    pub idx: u8,
}

/// An instruction operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    Reg(Reg),
    /// One element of a vector register through a swizzle (`.x`..`.w`).
    Elem(Reg, u8),
    /// Fixed registers of the function (`%gid`, `%u0`, parameters, ...) or
    /// special registers (`%localid.x`): never written by random statements.
    Named(String),
    /// An immediate, printed as hexadecimal bits (or decimal when negative
    /// small, for variety).
    Imm(u64),
    /// A negative decimal immediate (`-1`).
    Neg(i64),
}

/// One instruction: `op ops...;`. `defs` are the registers it writes (the
/// reducer may replace the instruction by `mov def, 0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inst {
    pub op: String,
    pub ops: Vec<Operand>,
    pub defs: Vec<Reg>,
}

/// A comparison that decides a branch, computed into the scratch predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// `<op> %tp, a, b` (e.g. `ucmp.lt.32b`), negated when `neg`.
    Cmp {
        op: String,
        a: Operand,
        b: Operand,
        neg: bool,
    },
    /// A pool predicate.
    Pred { reg: Reg, neg: bool },
}

/// What a call calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Direct(String),
    /// Through `addrof.64b` into a register.
    Addrof(String),
    /// Through the `.const` function table: entry `idx`.
    Table(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    Inst(Inst),
    /// A compound of instructions (memory accesses with masked addresses,
    /// exchanges through shared memory with their barriers, atomics, output
    /// stores): deleted whole. `def`: a register it writes; `keep`: part of a
    /// prologue that makes the program well defined (never deleted).
    Raw {
        lines: Vec<String>,
        def: Option<Reg>,
        keep: bool,
        /// Contains `barrier.workgroup` (only in uniform control flow).
        barrier: bool,
    },
    If {
        id: u32,
        cond: Cond,
        then_: Vec<Stmt>,
        else_: Vec<Stmt>,
    },
    /// A counted loop: counter `%k<id>` from 0 to `count`.
    Loop {
        id: u32,
        count: u32,
        bottom_test: bool,
        body: Vec<Stmt>,
    },
    /// A labelled block run once (a loop the reducer unwrapped): `Break` and
    /// `Continue` to it go to its end.
    Block {
        id: u32,
        body: Vec<Stmt>,
    },
    /// Leave loop/block `target` (possibly several levels out).
    Break {
        target: u32,
        cond: Option<Cond>,
    },
    /// Next iteration of loop `target`.
    Continue {
        target: u32,
        cond: Option<Cond>,
    },
    /// A cycle `a -> b -> a` entered at `a`, or in its middle at `b` when
    /// `enter_b` holds; runs `count` rounds (counter `%k<id>`).
    Irreducible {
        id: u32,
        count: u32,
        enter_b: Cond,
        a: Vec<Stmt>,
        b: Vec<Stmt>,
    },
    /// A random goto graph (labels `G<id>_<i>`), entered at node 0: node
    /// `i` counts a step on `%k<id>` and leaves the graph once `fuel` steps
    /// are done, runs its body, then goes to node `to` when `cond` holds and
    /// to node `next` otherwise (`nodes.len()`: the graph's end). Edges go
    /// backward and into the middle of cycles, so the graph is irreducible in
    /// general; the fuel bounds every path.
    Graph {
        id: u32,
        fuel: u32,
        nodes: Vec<GraphNode>,
    },
    Return {
        cond: Option<Cond>,
        value: Option<Operand>,
    },
    Call {
        dst: Option<Reg>,
        target: Target,
        args: Vec<Operand>,
        cond: Option<Cond>,
    },
}

/// A node of a [`Stmt::Graph`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    pub body: Vec<Stmt>,
    pub cond: Cond,
    /// Where the node goes when `cond` holds (a node index, or the number
    /// of nodes for the graph's end).
    pub to: usize,
    /// Where it goes otherwise.
    pub next: usize,
}

/// A parameter or return type of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValTy {
    B16,
    B32,
    B64,
    V2x32,
}

impl ValTy {
    pub fn decl(self) -> &'static str {
        match self {
            ValTy::B16 => ".16b",
            ValTy::B32 => ".32b",
            ValTy::B64 => ".64b",
            ValTy::V2x32 => ".v2.32b",
        }
    }
    pub fn class(self) -> Class {
        match self {
            ValTy::B16 => Class::B16,
            ValTy::B32 => Class::B32,
            ValTy::B64 => Class::B64,
            ValTy::V2x32 => Class::V2x32,
        }
    }
}

/// A function (or the kernel, the last of `Program::funcs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    pub kernel: bool,
    pub params: Vec<ValTy>,
    pub ret: Option<ValTy>,
    /// Number of loop/irreducible counters `%k0..` to declare.
    pub counters: u32,
    /// Bytes of the function's `.private` array `@pa_<name>` (0: none).
    pub private_bytes: u32,
    pub body: Vec<Stmt>,
}

/// A whole module plus what the printer needs to size its variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Callees first; the kernel is last.
    pub funcs: Vec<Func>,
    /// Functions in the `.const` table `@ftab` (all of signature
    /// `.32b (.32b, .32b)`).
    pub table: Vec<String>,
    /// Contents of the `.const` table `@ctab` (32-bit words).
    pub ctab: Vec<u32>,
    /// Work-items the launch has (sizes `@gscr`, the per-item global scratch).
    pub items: u32,
    /// Bytes of each work-item's output region.
    pub slot_bytes: u32,
}

impl Program {
    pub fn kernel(&self) -> &Func {
        self.funcs.last().expect("a kernel")
    }
}

/// Visits every statement list of a body, depth first (parents before
/// children).
pub fn walk_lists<'a>(body: &'a [Stmt], f: &mut dyn FnMut(&'a [Stmt])) {
    f(body);
    for s in body {
        match s {
            Stmt::If { then_, else_, .. } => {
                walk_lists(then_, f);
                walk_lists(else_, f);
            }
            Stmt::Loop { body, .. } | Stmt::Block { body, .. } => walk_lists(body, f),
            Stmt::Irreducible { a, b, .. } => {
                walk_lists(a, f);
                walk_lists(b, f);
            }
            Stmt::Graph { nodes, .. } => {
                for n in nodes {
                    walk_lists(&n.body, f);
                }
            }
            _ => {}
        }
    }
}

/// The deepest nesting of compound statements (ifs, loops, blocks,
/// irreducible cycles, goto graphs) in a body: the structured depth the
/// generator wrote, before the translator restructures anything.
pub fn nesting_depth(body: &[Stmt]) -> u32 {
    body.iter()
        .map(|s| match s {
            Stmt::If { then_, else_, .. } => 1 + nesting_depth(then_).max(nesting_depth(else_)),
            Stmt::Loop { body, .. } | Stmt::Block { body, .. } => 1 + nesting_depth(body),
            Stmt::Irreducible { a, b, .. } => 1 + nesting_depth(a).max(nesting_depth(b)),
            Stmt::Graph { nodes, .. } => {
                1 + nodes
                    .iter()
                    .map(|n| nesting_depth(&n.body))
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}
