//! The syntax tree of one PISA source file. Names are interned ([`Name`]);
//! every node keeps its [`Span`] so later stages can point at it.

use crate::diag::Span;

/// An interned identifier (register, symbol or label name, without its sigil).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(pub u32);

/// A map from [`Name`]s, which the interner numbers densely from 0: an
/// index instead of a hash per lookup (the validator's scopes and the IR
/// builder's registers and labels look up a name per operand, and a large
/// function has a label every few instructions).
#[derive(Debug, Clone)]
pub struct NameMap<T>(Vec<Option<T>>);

impl<T> Default for NameMap<T> {
    fn default() -> Self {
        NameMap(Vec::new())
    }
}

impl<T: Copy> NameMap<T> {
    pub fn get(&self, n: Name) -> Option<T> {
        self.0.get(n.0 as usize).copied().flatten()
    }
    /// Sets (`Some`) or removes (`None`) the entry of `n`: its old value.
    pub fn set(&mut self, n: Name, v: Option<T>) -> Option<T> {
        let k = n.0 as usize;
        if k >= self.0.len() {
            // (removing a name past the end: nothing to do)
            v?;
            self.0.resize(k + 1, None);
        }
        std::mem::replace(&mut self.0[k], v)
    }
}

/// The names of a module, each stored once in one text (`text[ends[i - 1]..ends[i]]`
/// is name `i`), found by an open-addressing table of name indices: a large
/// module interns a name per operand and declares a label every few lines.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    text: String,
    ends: Vec<u32>,
    /// Name index + 1 per slot (0: empty); a power of two long, at most
    /// half full.
    table: Vec<u32>,
}

fn name_hash(s: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Name {
        if let Some(n) = self.get(s) {
            return n;
        }
        if (self.ends.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let n = self.ends.len() as u32;
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
        let slot = self.slot_of(s);
        self.table[slot] = n + 1;
        Name(n)
    }
    pub fn get(&self, s: &str) -> Option<Name> {
        if self.table.is_empty() {
            return None;
        }
        match self.table[self.slot_of(s)] {
            0 => None,
            i => Some(Name(i - 1)),
        }
    }
    pub fn resolve(&self, n: Name) -> &str {
        let i = n.0 as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// The slot that holds `s`, or the empty one where it would go.
    fn slot_of(&self, s: &str) -> usize {
        let mask = self.table.len() - 1;
        let mut slot = name_hash(s) as usize & mask;
        loop {
            match self.table[slot] {
                0 => return slot,
                i if self.resolve(Name(i - 1)) == s => return slot,
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let len = (self.table.len() * 2).max(64);
        self.table = vec![0; len];
        let mask = len - 1;
        for i in 0..self.ends.len() as u32 {
            let mut slot = name_hash(self.resolve(Name(i))) as usize & mask;
            while self.table[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            self.table[slot] = i + 1;
        }
    }
}

/// A data type: a scalar of `bits` (8..128) or a vector of `count` such elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ty {
    pub bits: u16,
    pub count: u8,
}

impl Ty {
    pub const fn scalar(bits: u16) -> Ty {
        Ty { bits, count: 1 }
    }
    pub fn is_vector(self) -> bool {
        self.count > 1
    }
    pub fn total_bits(self) -> u32 {
        self.bits as u32 * self.count as u32
    }
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count > 1 {
            write!(f, ".v{}.{}b", self.count, self.bits)
        } else {
            write!(f, ".{}b", self.bits)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Const,
    Shared,
    Private,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Const => "const",
            Space::Shared => "shared",
            Space::Private => "private",
        }
    }
    /// Address size in bits (spec 02 §2.1).
    pub fn address_bits(self) -> u16 {
        match self {
            Space::Global | Space::Const => 64,
            Space::Shared | Space::Private => 32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Linkage {
    #[default]
    Internal,
    Export,
    Import,
}

#[derive(Debug, Clone)]
pub struct Header {
    pub version: Option<(String, Span)>,
    pub target: Option<(String, Span)>,
}

#[derive(Debug)]
pub struct SourceAst {
    pub interner: Interner,
    pub items: Vec<Item>,
    /// Statements at module scope in order, for the header-position rules.
    pub header_order: Vec<HeaderStmt>,
}

#[derive(Debug, Clone)]
pub enum HeaderStmt {
    Version(String, Span),
    Target(String, Span),
    Other(Span),
}

#[derive(Debug)]
pub enum Item {
    Var(VarDecl),
    Func(FuncDecl),
}

/// `.attr`, `.attr(v, ...)` or `.attr N` as written.
#[derive(Debug, Clone)]
pub struct Attr {
    pub name: String,
    pub args: Vec<AttrArg>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum AttrArg {
    Int(u64, Span),
    Ident(String, Span),
    Str(String, Span),
}

#[derive(Debug)]
pub struct VarDecl {
    pub space: Space,
    pub space_span: Span,
    pub linkage: Linkage,
    pub align: Option<(u64, Span)>,
    /// Other attributes (`.section`, `.host_access`, ...).
    pub attrs: Vec<Attr>,
    /// An element type written before the name (`.shared .16b @S[100]`).
    pub elem_ty: Option<Ty>,
    pub name: Name,
    pub name_span: Span,
    pub size: Option<(u64, Span)>,
    pub init: Option<Vec<InitElem>>,
    pub init_span: Span,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum InitElem {
    /// `.Nb value`; `value` is the literal after the spec's extension rules.
    Int { bits: u16, lit: IntLit, span: Span },
    /// `.zero N`
    Zero { bytes: u64, span: Span },
    /// `.Nb @sym` or `.Nb @sym+off`
    Symbol {
        bits: u16,
        name: Name,
        offset: i64,
        span: Span,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    Kernel,
    Function,
}

#[derive(Debug)]
pub struct FuncDecl {
    pub kind: FuncKind,
    pub linkage: Linkage,
    pub attrs: Vec<Attr>,
    /// `None` is `void` (and always for kernels).
    pub ret: Option<Ty>,
    pub ret_span: Span,
    pub name: Name,
    pub name_span: Span,
    pub params: Vec<Param>,
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `.reg TYPE`
    Reg(Ty),
    /// `.pred` (invalid as an argument; kept to report it)
    Pred,
    /// `.param[N]`
    Param(u64),
}

#[derive(Debug)]
pub struct Param {
    pub kind: ParamKind,
    pub attrs: Vec<Attr>,
    pub name: Option<(Name, Span)>,
    pub span: Span,
}

#[derive(Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub open: Span,
    pub close: Span,
}

#[derive(Debug)]
pub enum Stmt {
    /// `.reg TYPE names;` or `.pred names;` (`ty` is `None` for predicates).
    Reg {
        ty: Option<Ty>,
        names: Vec<(Name, Span)>,
        span: Span,
    },
    Var(Box<VarDecl>),
    Label(Name, Span),
    Instr(Instr),
    /// Boxed: a statement is as small as an instruction (memory per
    /// instruction).
    Block(Box<Block>),
}

#[derive(Debug)]
pub struct Instr {
    /// The whole mnemonic, e.g. `ld.global.v4.32b`.
    pub mnemonic: Span,
    /// A slice of the list's exact length, not a vector (8 bytes less per
    /// instruction). One allocation per instruction is kept on purpose:
    /// `ir::build::lower_owned` frees each as it lowers it and the IR's
    /// own operand lists take their places in order; operands of a block
    /// in shared vectors left the IR scattered, and its passes took twice
    /// as long.
    pub operands: Box<[Operand]>,
    /// Where the instruction ends (after its `;`): it starts at its
    /// mnemonic ([`Instr::span`]; a whole span would make every statement
    /// 8 bytes larger).
    pub end: u32,
    /// Filled in by the validator: the catalog form this instruction matched
    /// and, per qualifier slot of that form, the chosen value's index.
    pub form: FormRef,
}

impl Instr {
    /// The whole instruction, mnemonic to `;`.
    pub fn span(&self) -> Span {
        Span {
            start: self.mnemonic.start,
            end: self.end,
        }
    }
}

/// A matched catalog form: index into `Catalog::forms` and the value index
/// chosen for each qualifier slot ([`FormRef::ABSENT`] for an omitted one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormRef {
    pub form: u16,
    pub quals: [u8; 8],
}

impl FormRef {
    pub const ABSENT: u8 = u8::MAX;
    pub const UNRESOLVED: FormRef = FormRef {
        form: u16::MAX,
        quals: [u8::MAX; 8],
    };
}

/// A swizzle: elements selected from a vector, first element and count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Swizzle {
    pub first: u8,
    pub count: u8,
}

impl Swizzle {
    pub fn parse(s: &str) -> Option<Swizzle> {
        Some(match s {
            "x" => Swizzle { first: 0, count: 1 },
            "y" => Swizzle { first: 1, count: 1 },
            "z" => Swizzle { first: 2, count: 1 },
            "w" => Swizzle { first: 3, count: 1 },
            "xy" => Swizzle { first: 0, count: 2 },
            "zw" => Swizzle { first: 2, count: 2 },
            "xyzw" => Swizzle { first: 0, count: 4 },
            _ => return None,
        })
    }
}

/// An integer literal: its 64-bit value after the spec's extension rule
/// (decimal sign-extends, hex zero-extends) and how it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub hex: bool,
    /// Number of hex digits written (for hex float size checks).
    pub digits: u8,
    /// The mathematical value is negative (a decimal with a minus sign).
    pub negative: bool,
}

impl IntLit {
    /// The mathematical value.
    pub fn math(self) -> i128 {
        if self.negative {
            self.value as i64 as i128
        } else {
            self.value as i128
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegRef {
    pub name: Name,
    pub swizzle: Option<Swizzle>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AddrBase {
    Reg(RegRef),
    Var(Name, Span),
    Imm(IntLit, Span),
}

#[derive(Debug, Clone, PartialEq)]
pub enum AddrOffset {
    Reg(RegRef),
    Imm(i64, Span),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Reg(RegRef),
    /// `!%p`
    NotPred(RegRef),
    Int(IntLit, Span),
    Float(f64, Span),
    /// Boxed, like `Call`, to keep every operand small (memory per instruction).
    Addr(Box<AddrOperand>),
    /// `@name` outside an address
    Symbol(Name, Span),
    /// A bare identifier: a label.
    Label(Name, Span),
    Void(Span),
    /// `target(args...)` in `call`.
    Call(Box<CallOperand>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AddrOperand {
    pub base: AddrBase,
    pub offset: Option<AddrOffset>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallOperand {
    pub target: Operand,
    pub args: Vec<Operand>,
    pub span: Span,
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Reg(r) | Operand::NotPred(r) => r.span,
            Operand::Int(_, s)
            | Operand::Float(_, s)
            | Operand::Symbol(_, s)
            | Operand::Label(_, s)
            | Operand::Void(s) => *s,
            Operand::Addr(a) => a.span,
            Operand::Call(c) => c.span,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Interner, Name, Stmt};

    #[test]
    fn a_statement_is_small() {
        // a large module holds one per instruction
        assert!(std::mem::size_of::<Stmt>() <= 48);
    }

    #[test]
    fn interner_gives_each_name_one_number() {
        let mut i = Interner::default();
        assert_eq!(i.get("a"), None);
        let names: Vec<String> = (0..5000).map(|k| format!("r{k}")).collect();
        for (k, n) in names.iter().enumerate() {
            assert_eq!(i.intern(n), Name(k as u32));
        }
        assert_eq!(i.intern(""), Name(5000));
        for (k, n) in names.iter().enumerate() {
            assert_eq!(i.intern(n), Name(k as u32));
            assert_eq!(i.get(n), Some(Name(k as u32)));
            assert_eq!(i.resolve(Name(k as u32)), n);
        }
        assert_eq!(i.resolve(Name(5000)), "");
        assert_eq!(i.get("r5000"), None);
        assert_eq!(i.get("é"), None);
        let e = i.intern("é");
        assert_eq!(i.resolve(e), "é");
    }
}
