//! The mid-level IR between the validated syntax tree and the back ends.
//!
//! ```text
//! syntax → validate → ir::build → ir passes → back ends (spirv, later interp)
//! ```
//!
//! A [`Program`] holds one [`Function`] per PISA function or kernel. A function is
//! a list of basic blocks ([`Block`]), each a run of instructions ([`Inst`]) that
//! ends in exactly one [`Terminator`]: `goto`, `goto.cond`, `return` and
//! `return.cond` of the source become terminators (spec 17 §1–2), so control
//! flow is explicit and no pass needs to re-split blocks. Registers are resolved
//! from their lexical scopes to function-wide [`RegId`]s; labels to [`BlockId`]s.
//! Everything else of an instruction (its catalog form, qualifier choices and
//! operands) is kept as validated, so the back end lowers exactly what the
//! validator checked.
//!
//! The passes a back end's program goes through are one list,
//! [`pipeline::Pipeline::for_target`], run before any back end; in debug
//! builds the [`verify`] pass checks the invariants documented there after
//! each one. [`build`] runs the target-independent first ones (for the
//! interpreter and tools); [`lower`] none. Analyses ([`analysis`]) only
//! compute facts from the IR.

pub mod analysis;
pub mod build;
pub mod bundled;
pub mod casloop;
pub mod checked;
pub mod exactf32;
pub mod exactf64;
pub mod fatom16;
pub mod frnd;
pub mod literal;
pub mod mathlib;
mod opcode;
pub mod opcode_gen;
pub mod pipeline;
pub mod print;
pub mod qualifier;
pub mod reducible;
pub mod shallow;
pub mod simt;
pub mod softf64;
pub mod structurize;
pub mod template;
pub mod type_info;
pub mod unroll;
pub mod verify;
// generated (`opcode_gen.rs`); its layout is the generator's
#[rustfmt::skip]
pub mod view;

use crate::catalog::{catalog, Form};
use crate::diag::Span;
use crate::syntax::ast;
pub use crate::syntax::ast::{
    FormRef, FuncKind, InitElem, IntLit, Interner, Linkage, Name, Space, Swizzle, Ty,
};

pub use build::{build, lower, lower_owned};
pub use structurize::{nesting_depth, Label, Node};

/// Runs `f` with enough stack: passes over the structured tree recurse as
/// deep as the program nests (a chain of 100,000 early exits nests 100,000
/// selections), so they grow the stack on demand instead of overflowing it.
pub fn stack_safe<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}
pub use opcode::{Group, Opcode};
pub use type_info::FloatKind;
pub use view::{Quals, Role, Roles, Type};

/// A qualifier group with symbolic values (generated in [`qualifier`]).
pub trait Qualifier: Sized + Copy {
    /// The group's name in the catalog (`rndmode`, `memorder`, ...).
    const SLOT: &'static str;
    fn from_text(s: &str) -> Option<Self>;
    /// The value as written, without the dot.
    fn text(self) -> &'static str;
}

/// A register of one function (parameters included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// A basic block of one function; block 0 is the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    pub const ENTRY: BlockId = BlockId(0);
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl RegId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegKind {
    /// `.reg TYPE`: untyped bits (or a vector of them).
    Value(Ty),
    /// `.pred`
    Pred,
    /// The kernel's `index`-th `.param[size]` parameter (read with `ld.param`).
    Param { index: u32, size: u64 },
}

#[derive(Debug, Clone)]
pub struct RegInfo {
    /// The source name (without `%`); synthetic registers get `$...` names.
    pub name: String,
    pub kind: RegKind,
}

/// A special register as written (`%localid.x`, spec 04), by name.
pub type SpecialRef = ast::RegRef;

/// A register operand: the register and an optional swizzle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegRef {
    pub reg: RegId,
    pub swizzle: Option<Swizzle>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AddrBase {
    Reg(RegRef),
    Var(Name, Span),
    Imm(IntLit, Span),
    /// A special register as an address (spec 04).
    Special(SpecialRef),
}

#[derive(Debug, Clone, PartialEq)]
pub enum AddrOffset {
    Reg(RegRef),
    Imm(i64, Span),
    Special(SpecialRef),
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

/// An instruction operand, as validated, with registers resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Reg(RegRef),
    /// `!%p`
    NotPred(RegRef),
    /// A special register (`%localid.x`, spec 04), by name.
    Special(SpecialRef),
    Int(IntLit, Span),
    Float(f64, Span),
    Addr(Box<AddrOperand>),
    /// `@name` outside an address: a function or a variable.
    Symbol(Name, Span),
    Void(Span),
    Call(Box<CallOperand>),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Reg(r) | Operand::NotPred(r) => r.span,
            Operand::Special(r) => r.span,
            Operand::Int(_, s)
            | Operand::Float(_, s)
            | Operand::Symbol(_, s)
            | Operand::Void(s) => *s,
            Operand::Addr(a) => a.span,
            Operand::Call(c) => c.span,
        }
    }
}

/// A PISA instruction: its catalog form and the qualifier values the
/// validator chose, with its operands in the form's order, and the typed
/// view of both ([`Quals`], [`Roles`]) that every back end reads.
#[derive(Debug, Clone)]
pub struct PisaInst {
    /// The instruction (one of the catalog's, as a generated enum).
    pub opcode: Opcode,
    pub form: FormRef,
    /// The operands (a boxed slice: 16 bytes per instruction, not a
    /// vector's 24; an instruction's operands never grow).
    pub operands: Box<[Operand]>,
    /// The qualifiers `form` selects, typed: shared by every instruction
    /// of the same form and choice ([`view_of`]), 8 bytes per instruction
    /// instead of 34.
    pub quals: &'static Quals,
    /// The length of the whole mnemonic, which starts the instruction's
    /// span ([`PisaInst::mnemonic`]): 4 bytes per instruction instead of a
    /// span's 8 (which would round the instruction up to the next 8).
    mnemonic_len: u32,
    pub span: Span,
}

impl PisaInst {
    /// An instruction of catalog form `form.form`, its view built from `form`.
    pub fn new(
        form: FormRef,
        operands: impl Into<Box<[Operand]>>,
        mnemonic: Span,
        span: Span,
    ) -> PisaInst {
        // every instruction starts with its mnemonic (the parser's, and
        // the passes' which take both spans from one instruction)
        PisaInst::with_view(view_of(form), form, operands.into(), mnemonic, span)
    }

    /// [`PisaInst::new`] with the view of `form` from `cache` (`ir::build`,
    /// once per instruction of the module).
    pub(crate) fn new_cached(
        cache: &mut ViewCache,
        form: FormRef,
        operands: Box<[Operand]>,
        mnemonic: Span,
        span: Span,
    ) -> PisaInst {
        PisaInst::with_view(cache.view(form), form, operands, mnemonic, span)
    }

    fn with_view(
        (opcode, quals): View,
        form: FormRef,
        operands: Box<[Operand]>,
        mnemonic: Span,
        span: Span,
    ) -> PisaInst {
        // every instruction starts with its mnemonic (the parser's, and
        // the passes' which take both spans from one instruction)
        debug_assert!(mnemonic.start == span.start && mnemonic.end >= mnemonic.start);
        PisaInst {
            opcode,
            quals,
            form,
            operands,
            mnemonic_len: mnemonic.end.saturating_sub(mnemonic.start),
            span,
        }
    }
    /// The whole mnemonic as written (for messages).
    pub fn mnemonic(&self) -> Span {
        Span {
            start: self.span.start,
            end: self.span.start + self.mnemonic_len,
        }
    }
    pub fn catalog_form(&self) -> &'static Form {
        &catalog().forms[self.form.form as usize]
    }
    /// Where each operand role is in `operands` (a function of the
    /// catalog form, looked up rather than stored: 8 bytes less per
    /// instruction).
    pub fn roles(&self) -> &'static Roles {
        roles_of(self.form)
    }
    /// The operand in role `role`, if the form has it and it is written.
    pub fn operand(&self, role: Role) -> Option<&Operand> {
        self.operands.get(self.roles().get(role)?)
    }
    /// The mnemonic as the catalog spells it, qualifiers in the form's
    /// order (`fsin.ftz.hfx2`, `fadd.ru.f`).
    pub fn mnemonic_text(&self) -> String {
        mnemonic_text(self.form)
    }
}

/// What [`PisaInst::new`] reads of a matched form.
type View = (Opcode, &'static Quals);

/// The roles of catalog form `form.form`: every form's, made once.
fn roles_of(form: FormRef) -> &'static Roles {
    static ROLES: std::sync::OnceLock<Box<[Roles]>> = std::sync::OnceLock::new();
    &ROLES.get_or_init(|| catalog().forms.iter().map(Roles::of).collect())[form.form as usize]
}

/// The opcode and qualifiers of a matched form, made once per form
/// and choice of qualifiers for the whole process (a program repeats a few
/// forms many times, and reading a form's qualifiers compares their names
/// and values as text). Each view is leaked once into a table that is
/// bounded by the catalog (its forms times their qualifier choices), so
/// instructions hold 8-byte references to it; each thread keeps its own
/// copy of the references it used, so the shared table's lock is taken
/// once per thread and view, not per instruction.
fn view_of(form: FormRef) -> View {
    type Views = rustc_hash::FxHashMap<(u16, [u8; 8]), View>;
    static SHARED: std::sync::OnceLock<std::sync::Mutex<Views>> = std::sync::OnceLock::new();
    thread_local! {
        static VIEWS: std::cell::RefCell<Views> = Default::default();
    }
    let key = (form.form, form.quals);
    VIEWS.with(|views| {
        *views.borrow_mut().entry(key).or_insert_with(|| {
            let mut shared = SHARED
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            *shared.entry(key).or_insert_with(|| {
                let f = &catalog().forms[form.form as usize];
                let quals: &'static Quals = Box::leak(Box::new(Quals::of(f, &form.quals)));
                (Opcode::ALL[f.instruction], quals)
            })
        })
    })
}

/// The views of the forms one builder met, by form, with the qualifier
/// choice of each form's last instruction: a program repeats a few forms,
/// and an index and a comparison cost less than [`view_of`]'s thread-local
/// hash table (about 15 ms a million instructions).
#[derive(Default)]
pub(crate) struct ViewCache(Vec<Option<([u8; 8], View)>>);

impl ViewCache {
    pub(crate) fn view(&mut self, form: FormRef) -> View {
        let k = form.form as usize;
        if let Some(Some((quals, view))) = self.0.get(k) {
            if *quals == form.quals {
                return *view;
            }
        }
        let view = view_of(form);
        if k >= self.0.len() {
            self.0.resize(k + 1, None);
        }
        self.0[k] = Some((form.quals, view));
        view
    }
}

/// The mnemonic of catalog form `form` as the catalog spells it,
/// qualifiers in the form's order (`fsin.ftz.hfx2`, `fadd.ru.f`).
pub fn mnemonic_text(form: FormRef) -> String {
    let f = &catalog().forms[form.form as usize];
    let mut s = f.opcode.clone();
    for (slot, q) in f.quals.iter().enumerate() {
        let v = form.quals[slot];
        if v != FormRef::ABSENT {
            s.push('.');
            s.push_str(&q.values[v as usize]);
        }
    }
    s
}

/// One instruction of a basic block.
#[derive(Debug, Clone)]
pub enum Inst {
    Pisa(PisaInst),
    /// `dst = value` on a synthetic 32-bit register (control-flow passes).
    SetConst {
        dst: RegId,
        value: u32,
    },
    /// `dst = (src == value)` into a synthetic predicate.
    TestConst {
        dst: RegId,
        src: RegId,
        value: u32,
    },
    /// Checked mode ([`checked`]): the access that follows, the next
    /// instruction of the block, checks its address first.
    CheckAccess(AccessCheck),
    /// SIMT mode ([`simt`]): what sub-group emulation needs that PISA has
    /// no instruction for (boxed: rare, and larger than a PISA
    /// instruction, which would make every instruction larger).
    Simt(Box<simt::SimtInst>),
}

impl Inst {
    /// A SIMT-mode instruction (boxed, see [`Inst::Simt`]).
    pub fn simt(s: simt::SimtInst) -> Inst {
        Inst::Simt(Box::new(s))
    }
}

/// What checked mode checks of one access ([`checked`]): the back end
/// computes the access's address and space as it does for the access,
/// checks the address against them, and sends a bad access to its space's
/// sink, keeping it as the work-item's first bad one (docs/abi.md,
/// "Checked mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessCheck {
    /// The site the check block reports: an index into
    /// [`Program::check_sites`].
    pub site: u32,
    /// The bytes the access reads or writes.
    pub bytes: u32,
    /// The alignment spec 09 §5.1 asks of its address.
    pub align: u32,
}

/// A branch condition: a predicate register, possibly negated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cond {
    pub pred: RegId,
    pub negate: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    Goto(BlockId),
    /// `goto.cond`: `then` when the condition holds, else `otherwise`.
    Branch {
        cond: Cond,
        then: BlockId,
        otherwise: BlockId,
    },
    /// `return [value]`; falling off the end of a kernel or void function.
    Return {
        value: Option<Operand>,
        span: Span,
    },
    /// Falling off the end of a function with a return type: the validator
    /// makes this unreachable.
    Unreachable,
}

impl Terminator {
    pub fn successors(&self) -> impl Iterator<Item = BlockId> {
        let (a, b) = match *self {
            Terminator::Goto(t) => (Some(t), None),
            Terminator::Branch {
                then, otherwise, ..
            } => (Some(then), Some(otherwise)),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    /// The source label that starts the block, if any (for printing).
    pub label: Option<Name>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    /// Where the terminator comes from (or the block's end).
    pub term_span: Span,
}

/// A function or kernel.
#[derive(Debug, Clone)]
pub struct Function {
    /// The symbol name (the module-level symbol table's key).
    pub name: Name,
    pub kind: FuncKind,
    pub linkage: Linkage,
    /// Index among the module's functions, in declaration order (function
    /// addresses and the data layout use it).
    pub index: u32,
    /// `None`: void (always for kernels).
    pub ret: Option<Ty>,
    /// Parameters in order: a register (`.reg`), or a kernel `.param`.
    /// Unnamed parameters still get a register.
    pub params: Vec<RegId>,
    pub regs: Vec<RegInfo>,
    /// Empty for an imported function (a declaration).
    pub blocks: Vec<Block>,
    pub span: Span,
    /// Kernels: the alignment of each `.param` (`.align(N)`, default 8), in
    /// parameter order.
    pub param_align: Vec<u32>,
    /// Kernels: `.reqd_work_group_size(x, y, z)`.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// The structured control flow of the body (what back ends emit), set
    /// by the pipeline's `structurize` pass and rewritten by `unroll` and
    /// `simt`; `None` before it and for declarations. Passes after
    /// `structurize` must not change the blocks the tree names (`simt` adds
    /// blocks that only its tree places, and moves the instructions of a
    /// block it splits into them).
    pub structured: Option<Vec<Node>>,
    /// The tree the `shallow` pass built last, kept for the `structurize`
    /// pass, which uses it where the blocks still have the shape it was
    /// built for ([`structurize::Cached`]): the structurizer then runs once
    /// per function, not twice.
    pub(crate) tree_cache: Option<Box<structurize::Cached>>,
}

impl Function {
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }
    pub fn reg(&self, r: RegId) -> &RegInfo {
        &self.regs[r.index()]
    }
    pub fn new_reg(&mut self, name: String, kind: RegKind) -> RegId {
        self.regs.push(RegInfo { name, kind });
        RegId(self.regs.len() as u32 - 1)
    }
    pub fn successors(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.blocks[b.index()].term.successors()
    }
    /// Every PISA instruction of the function (those that SIMT mode's
    /// instructions carry included).
    pub fn pisa_insts(&self) -> impl Iterator<Item = &PisaInst> {
        self.blocks.iter().flat_map(|b| {
            b.insts.iter().filter_map(|i| match i {
                Inst::Pisa(p) => Some(p),
                Inst::Simt(s) => s.pisa(),
                _ => None,
            })
        })
    }
}

/// A memory variable (`.global`, `.const`, `.shared`, `.private`) at module
/// scope or in a function.
#[derive(Debug, Clone)]
pub struct Variable {
    pub name: Name,
    /// `None`: module scope; else the index of the function that declares it.
    pub function: Option<u32>,
    pub space: Space,
    pub linkage: Linkage,
    pub size: u64,
    pub align: u64,
    /// `.host_access("NAME")`, or the variable's own name when exported.
    pub host_name: Option<String>,
    pub init: Option<Vec<InitElem>>,
    pub span: Span,
}

pub use crate::source_map::SourceMap;

/// The whole module in IR form: what every back end reads. Function `i` is
/// the module's `i`-th function in declaration order.
#[derive(Debug)]
pub struct Program {
    pub functions: Vec<Function>,
    /// Module-scope variables in declaration order, then each function's.
    pub variables: Vec<Variable>,
    /// Functions whose address the module takes: the possible targets of
    /// calls through registers.
    pub address_taken: Vec<Name>,
    /// The symbol table: every [`Name`] the program mentions, by its text
    /// (the key two modules will be merged by).
    pub symbols: Interner,
    pub source: SourceMap,
    /// The instructions [`mathlib::link`] replaced by calls of the library
    /// (mnemonic and span, in program order): what a diagnostic about
    /// library code names.
    pub library_uses: Vec<(String, Span)>,
    /// Checked mode: the instruction of each checked access, by the site
    /// number of its [`AccessCheck`] (set by the [`checked`] pass).
    pub check_sites: Vec<Span>,
}

impl Program {
    pub fn function(&self, name: Name) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    /// The text of a symbol, register or label name.
    pub fn name(&self, n: Name) -> &str {
        self.symbols.resolve(n)
    }
    /// Whether some instruction reads special register `%special` (by its
    /// name without `%`).
    pub fn reads_special(&self, special: &str) -> bool {
        // names are interned once each: a name the program never mentions
        // is read nowhere, and the others compare as `Name`s
        let Some(special) = self.symbols.get(special) else {
            return false;
        };
        fn operand(o: &Operand, want: Name) -> bool {
            match o {
                Operand::Special(r) => r.name == want,
                Operand::Addr(a) => {
                    matches!(&a.base, AddrBase::Special(r) if r.name == want)
                        || matches!(&a.offset, Some(AddrOffset::Special(r)) if r.name == want)
                }
                Operand::Call(c) => {
                    operand(&c.target, want) || c.args.iter().any(|a| operand(a, want))
                }
                _ => false,
            }
        }
        self.functions.iter().any(|f| {
            f.pisa_insts()
                .any(|i| i.operands.iter().any(|o| operand(o, special)))
                || f.blocks.iter().any(|b| {
                    matches!(&b.term, Terminator::Return { value: Some(v), .. } if operand(v, special))
                })
        })
    }
}

#[cfg(test)]
mod size_tests {
    /// An instruction's bytes are paid per instruction of a large module by
    /// every pass (fresh memory costs more than the work on it): a field
    /// that makes them larger should be a deliberate choice.
    #[test]
    fn an_instruction_is_48_bytes() {
        assert_eq!(std::mem::size_of::<super::PisaInst>(), 48);
        assert_eq!(std::mem::size_of::<super::Inst>(), 48);
        assert_eq!(std::mem::size_of::<super::Operand>(), 24);
    }
}
