//! Decoding: the IR ([`ir::Program`]) turned once, at load, into a flat form
//! the interpreter executes quickly. Each function becomes one array of
//! [`Op`]s (its blocks one after the other, each block's terminator an op
//! too, with block targets resolved to op indices); registers become byte
//! ranges of the frame; qualifiers become small typed values; variables
//! become addresses (the data block's base is known when a module is loaded).

use crate::float::{FloatTy, Round};
use pisa_translator::abi::{function_address, Layout, MODULE_SCOPE};
use pisa_translator::ir::qualifier::{
    Addrspace, Cc, Cop, Dir, Memorder, Memscope, Op as AtomOp, Output, Precision, Rndmode,
    Signedness,
};
use pisa_translator::ir::{
    self, AddrBase, AddrOffset, Block, FloatKind, FuncKind, Function, Inst, Opcode, Operand,
    PisaInst, Program, RegKind, Role, Terminator, Type,
};

/// A type qualifier value (`.32b`, `.s16`, `.hf`, `.16bx2`, `.v4` widths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TyQ {
    /// Bits of one element (the whole value for scalars).
    pub bits: u16,
    /// Elements of a packed type (1 for scalars).
    pub lanes: u8,
    pub float: Option<FloatTy>,
    /// `.sN` (Some(true)) / `.uN` (Some(false)) of conversions.
    pub signed: Option<bool>,
}

impl TyQ {
    fn of(t: Type) -> TyQ {
        TyQ {
            bits: t.element_bits(),
            lanes: t.lanes(),
            float: t.float().map(float_ty),
            signed: t.signed(),
        }
    }
    /// Total bits (all lanes).
    pub fn total(self) -> u32 {
        self.bits as u32 * self.lanes as u32
    }
}

/// Flags of an instruction's literal qualifiers.
pub mod flag {
    pub const FTZ: u16 = 1;
    pub const DSAT: u16 = 2;
    pub const NANP: u16 = 4;
    pub const FULL: u16 = 8;
    pub const CI: u16 = 16;
    pub const CO: u16 = 32;
    pub const COND: u16 = 64;
    pub const FAST: u16 = 128;
    pub const REM: u16 = 256;
    pub const DYNAMIC: u16 = 512;
    /// An `ld`/`st` with a memory order other than `.weak`: atomic.
    pub const ATOMIC: u16 = 1024;
    pub const PARAM: u16 = 2048;
    /// `shf.r`
    pub const RIGHT: u16 = 4096;
    /// `shfl.sg`
    pub const SG: u16 = 8192;
}

/// An instruction's qualifiers, decoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quals {
    pub ty: Option<TyQ>,
    pub to: Option<TyQ>,
    pub from: Option<TyQ>,
    pub rnd: Option<Round>,
    pub flags: u16,
    pub cop: Option<Cop>,
    pub space: Option<Addrspace>,
    /// `addrcast.to.from` spaces (`generic` included).
    pub to_space: Option<Addrspace>,
    pub from_space: Option<Addrspace>,
    pub atom: Option<AtomOp>,
    /// `.vec` element count (1 without).
    pub vec: u8,
    /// `.index` of extract/insert, `.operation` of bfn, signedness of dp4a
    /// (bit 0: src1 signed, bit 1: src2 signed).
    pub imm: u32,
}

impl Quals {
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

/// A special register (spec 04) and the element read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    LocalId(u8),
    GroupId(u8),
    LocalSize(u8),
    EnqueuedLocalSize(u8),
    GroupCount(u8),
    GlobalSize(u8),
    GlobalOffset(u8),
    PrintfBuffer,
    WorkDim,
    LaneId,
    SubgroupSize,
    ActiveMask,
}

/// A decoded operand.
#[derive(Debug, Clone)]
pub enum Opnd {
    /// `bytes` bytes of the frame at `off`: a scalar register, one vector
    /// element (a swizzle), or a whole vector.
    Reg {
        off: u32,
        bytes: u16,
    },
    Pred {
        off: u32,
        neg: bool,
    },
    /// An immediate as the bits of the operand's type.
    Imm(u64),
    Special(Special),
    Addr(Box<Addr>),
    /// A function, by index (a call target or `addrof`).
    Func(u32),
    /// A memory variable's address (`addrof`, `addrcast`): 64-bit device
    /// address or 32-bit arena offset.
    VarAddr(u64),
    Void,
    Call(Box<CallOpnd>),
}

#[derive(Debug, Clone)]
pub enum AddrBaseD {
    Opnd(Opnd),
    /// A kernel `.param`: its offset in the argument block.
    Param(u32),
}

#[derive(Debug, Clone)]
pub struct Addr {
    pub base: AddrBaseD,
    /// The offset, and whether it is sign-extended from its register's width.
    pub offset: Option<(Opnd, bool)>,
    /// 32 or 64: the width of the address arithmetic.
    pub bits: u16,
}

#[derive(Debug, Clone)]
pub struct CallOpnd {
    pub target: Opnd,
    pub args: Vec<Opnd>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Pisa(Opcode),
    Jump(u32),
    Branch {
        pred: u32,
        neg: bool,
        then: u32,
        otherwise: u32,
    },
    Return(Option<Opnd>),
    Unreachable,
    SetConst {
        dst: u32,
        value: u32,
    },
    TestConst {
        dst: u32,
        src: u32,
        value: u32,
    },
}

#[derive(Debug, Clone)]
pub struct Op {
    pub kind: Kind,
    pub q: Quals,
    pub ops: Vec<Opnd>,
    /// Where the instruction is (index into [`Decoded::sites`]).
    pub site: u32,
}

/// A function ready to run.
#[derive(Debug, Clone)]
pub struct DFunc {
    pub name: String,
    pub kind: FuncKind,
    pub ops: Vec<Op>,
    /// Bytes of a frame (every register, 8-byte aligned, plus padding).
    pub frame_bytes: u32,
    /// Frame offsets and sizes of the parameters (`.reg` parameters).
    pub params: Vec<(u32, u16)>,
    /// Return value size in bytes.
    pub ret_bytes: Option<u16>,
    pub declaration: bool,
    /// The walk order of the function's structured form
    /// ([`crate::walk`]), where diverged lanes of a sub-group reconverge;
    /// empty unless the module runs in sub-group mode
    /// ([`Decoded::subgroups`]).
    pub walk: crate::walk::Walk,
}

/// Where an instruction is, for messages.
#[derive(Debug, Clone)]
pub struct Site {
    /// `file:line:col` of the instruction, in the file the user wrote.
    pub at: String,
    pub line: u32,
    pub col: u32,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Decoded {
    pub functions: Vec<DFunc>,
    pub sites: Vec<Site>,
    /// Whether sub-groups run in lockstep (`crate::exec::subgroup`): the
    /// module has a cross-lane instruction (`shfl`, `ired`, `fred`,
    /// `redfirstidx`) or reads `%activemask`, anywhere. Other modules keep
    /// the faster one-work-item-at-a-time execution, whose results are the
    /// same for them.
    pub subgroups: bool,
}

struct FuncDecoder<'a> {
    program: &'a Program,
    source: &'a str,
    layout: &'a Layout,
    data_base: u64,
    f: &'a Function,
    reg_off: Vec<u32>,
    reg_bytes: Vec<u16>,
    /// Bytes of all registers (8-byte aligned each).
    frame_bytes: u32,
    param_off: Vec<Option<u32>>,
    sites: &'a mut Vec<Site>,
    /// Set on a cross-lane instruction or `%activemask`.
    uses_subgroups: bool,
}

/// A decoding failure: a construct the cpu device does not run (yet).
#[derive(Debug, Clone)]
pub struct Unsupported {
    pub site: Site,
    pub what: String,
}

pub fn decode(
    program: &Program,
    source: &str,
    layout: &Layout,
    data_base: u64,
) -> Result<Decoded, Unsupported> {
    let mut sites = Vec::new();
    let mut functions = Vec::new();
    let mut subgroups = false;
    for f in &program.functions {
        let mut d = FuncDecoder::new(program, source, layout, data_base, f, &mut sites);
        functions.push(d.function()?);
        subgroups |= d.uses_subgroups;
    }
    if subgroups {
        for (d, f) in functions.iter_mut().zip(&program.functions) {
            d.walk = crate::walk::Walk::compute(f).map_err(|what| Unsupported {
                site: Site {
                    at: program.source.describe(f.span),
                    line: program.source.line_col(f.span).0,
                    col: program.source.line_col(f.span).1,
                    text: String::new(),
                },
                what,
            })?;
        }
    }
    Ok(Decoded {
        functions,
        sites,
        subgroups,
    })
}

fn reg_size(kind: &RegKind) -> u16 {
    match kind {
        RegKind::Value(t) => (t.total_bits() / 8).max(1) as u16,
        RegKind::Pred => 1,
        RegKind::Param { .. } => 0,
    }
}

impl<'a> FuncDecoder<'a> {
    fn new(
        program: &'a Program,
        source: &'a str,
        layout: &'a Layout,
        data_base: u64,
        f: &'a Function,
        sites: &'a mut Vec<Site>,
    ) -> Self {
        let mut reg_off = Vec::new();
        let mut reg_bytes = Vec::new();
        let mut param_off = Vec::new();
        let mut at = 0u32;
        let kernel_params = layout
            .kernels
            .iter()
            .find(|k| k.name == program.name(f.name));
        let mut param_index = 0;
        for r in &f.regs {
            let size = reg_size(&r.kind);
            reg_off.push(at);
            reg_bytes.push(size);
            at += (size as u32).div_ceil(8) * 8;
            param_off.push(match r.kind {
                RegKind::Param { .. } => {
                    let off = kernel_params
                        .and_then(|k| k.params.get(param_index))
                        .map(|p| p.offset);
                    param_index += 1;
                    off
                }
                _ => None,
            });
        }
        FuncDecoder {
            frame_bytes: at,
            program,
            source,
            layout,
            data_base,
            f,
            reg_off,
            reg_bytes,
            param_off,
            sites,
            uses_subgroups: false,
        }
    }

    fn site(&mut self, span: pisa_translator::diag::Span) -> u32 {
        let at = self.program.source.describe(span);
        let (line, col) = self.program.source.line_col(span);
        let text = self
            .source
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
            .trim()
            .to_string();
        self.sites.push(Site {
            at,
            line,
            col,
            text,
        });
        self.sites.len() as u32 - 1
    }

    fn unsupported(&mut self, span: pisa_translator::diag::Span, what: String) -> Unsupported {
        let s = self.site(span);
        Unsupported {
            site: self.sites[s as usize].clone(),
            what,
        }
    }

    fn function(&mut self) -> Result<DFunc, Unsupported> {
        let f = self.f;
        // op index where each block starts: its instructions, then its terminator
        let mut starts = Vec::with_capacity(f.blocks.len());
        let mut n = 0u32;
        for b in &f.blocks {
            starts.push(n);
            n += b.insts.len() as u32 + 1;
        }
        let mut ops = Vec::with_capacity(n as usize);
        for b in &f.blocks {
            for i in &b.insts {
                ops.push(self.inst(i)?);
            }
            ops.push(self.terminator(b, &starts)?);
        }
        let params = f
            .params
            .iter()
            .filter(|r| !matches!(f.reg(**r).kind, RegKind::Param { .. }))
            .map(|r| (self.reg_off[r.index()], self.reg_bytes[r.index()]))
            .collect();
        Ok(DFunc {
            name: self.program.name(f.name).to_string(),
            kind: f.kind,
            ops,
            // padding: an 8-byte read at any register offset stays inside
            frame_bytes: self.frame_bytes + 16,
            params,
            ret_bytes: f.ret.map(|t| (t.total_bits() / 8).max(1) as u16),
            declaration: f.is_declaration(),
            walk: crate::walk::Walk::default(),
        })
    }

    fn terminator(&mut self, b: &Block, starts: &[u32]) -> Result<Op, Unsupported> {
        let site = self.site(b.term_span);
        let kind = match &b.term {
            Terminator::Goto(t) => Kind::Jump(starts[t.index()]),
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => Kind::Branch {
                pred: self.reg_off[cond.pred.index()],
                neg: cond.negate,
                then: starts[then.index()],
                otherwise: starts[otherwise.index()],
            },
            Terminator::Return { value, .. } => Kind::Return(match value {
                Some(v) => Some(self.operand(v, None)?),
                None => None,
            }),
            Terminator::Unreachable => Kind::Unreachable,
        };
        Ok(Op {
            kind,
            q: Quals::default(),
            ops: Vec::new(),
            site,
        })
    }

    fn inst(&mut self, i: &Inst) -> Result<Op, Unsupported> {
        match i {
            Inst::Pisa(p) => self.pisa(p),
            Inst::SetConst { dst, value } => Ok(Op {
                kind: Kind::SetConst {
                    dst: self.reg_off[dst.index()],
                    value: *value,
                },
                q: Quals::default(),
                ops: Vec::new(),
                site: 0,
            }),
            Inst::TestConst { dst, src, value } => Ok(Op {
                kind: Kind::TestConst {
                    dst: self.reg_off[dst.index()],
                    src: self.reg_off[src.index()],
                    value: *value,
                },
                q: Quals::default(),
                ops: Vec::new(),
                site: 0,
            }),
            // the IR pass of the SPIR-V back end's checked mode: the cpu
            // device checks every access on its own and never runs it
            Inst::CheckAccess(c) => {
                let span = self.program.check_sites.get(c.site as usize).copied();
                Err(self.unsupported(
                    span.unwrap_or_default(),
                    "checked mode's access checks (`pisa ir --print-after checked`) are the SPIR-V back end's; the cpu device checks every access itself".into(),
                ))
            }
            // the IR pass of the SPIR-V back end's sub-group emulation: the
            // cpu device runs sub-groups itself and never runs it
            Inst::Simt(_) => Err(self.unsupported(
                pisa_translator::diag::Span::default(),
                "SIMT mode's instructions (`pisa ir --print-after simt`) are the SPIR-V back end's; the cpu device runs sub-groups itself".into(),
            )),
        }
    }

    fn pisa(&mut self, p: &PisaInst) -> Result<Op, Unsupported> {
        let q = quals(p.quals);
        // the float type literals of this instruction's sources are read in
        let src_float = float_sources(p.opcode, &q);
        let mut ops = Vec::with_capacity(p.operands.len());
        for (k, o) in p.operands.iter().enumerate() {
            let source = [Role::Src0, Role::Src1, Role::Src2, Role::Src3]
                .into_iter()
                .any(|r| p.roles().get(r) == Some(k));
            let fl = if source { src_float } else { None };
            ops.push(self.operand(o, fl)?);
        }
        // address arithmetic is 32-bit in the arenas, 64-bit elsewhere (07 §3.3)
        let bits = match q.space {
            Some(Addrspace::Shared | Addrspace::Private) => 32,
            _ => 64,
        };
        for o in &mut ops {
            if let Opnd::Addr(a) = o {
                a.bits = bits;
            }
        }
        if matches!(
            p.opcode,
            Opcode::Fred | Opcode::Ired | Opcode::Redfirstidx | Opcode::Shfl
        ) {
            self.uses_subgroups = true;
        }
        let site = self.site(p.span);
        Ok(Op {
            kind: Kind::Pisa(p.opcode),
            q,
            ops,
            site,
        })
    }

    fn reg_opnd(&self, r: &ir::RegRef) -> Opnd {
        let idx = r.reg.index();
        let off = self.reg_off[idx];
        match &self.f.regs[idx].kind {
            RegKind::Pred => Opnd::Pred { off, neg: false },
            RegKind::Value(t) => match r.swizzle {
                Some(s) => {
                    let eb = (t.bits / 8).max(1) as u32;
                    Opnd::Reg {
                        off: off + s.first as u32 * eb,
                        bytes: (s.count as u32 * eb) as u16,
                    }
                }
                None => Opnd::Reg {
                    off,
                    bytes: self.reg_bytes[idx],
                },
            },
            RegKind::Param { .. } => Opnd::Imm(self.param_off[idx].unwrap_or(0) as u64),
        }
    }

    fn special(&mut self, r: &ir::SpecialRef) -> Result<Special, Unsupported> {
        let d = r.swizzle.map_or(0, |s| s.first);
        Ok(match self.program.name(r.name) {
            "localid" => Special::LocalId(d),
            "groupid" => Special::GroupId(d),
            "localsize" => Special::LocalSize(d),
            "enqueuedlocalsize" => Special::EnqueuedLocalSize(d),
            "groupcount" => Special::GroupCount(d),
            "globalsize" => Special::GlobalSize(d),
            "globaloffset" => Special::GlobalOffset(d),
            "workdim" => Special::WorkDim,
            "laneid" => Special::LaneId,
            "subgroupsize" => Special::SubgroupSize,
            "activemask" => {
                self.uses_subgroups = true;
                Special::ActiveMask
            }
            "printfbuffer" => Special::PrintfBuffer,
            other => {
                let other = other.to_string();
                return Err(self.unsupported(r.span, format!("special register %{other}")));
            }
        })
    }

    /// The address of a variable: a data-block address or an arena offset.
    fn var_address(
        &mut self,
        n: ir::Name,
        span: pisa_translator::diag::Span,
    ) -> Result<u64, Unsupported> {
        let key = (self.f.index, n);
        let l = self.layout;
        if let Some(&o) = l.private.get(&key).or_else(|| l.shared.get(&key)) {
            return Ok(o as u64);
        }
        if let Some(&o) = l
            .data_offsets
            .get(&key)
            .or_else(|| l.data_offsets.get(&(MODULE_SCOPE, n)))
        {
            return Ok(self.data_base + o);
        }
        if let Some(i) = self.program.functions.iter().position(|f| f.name == n) {
            return Ok(function_address(i));
        }
        let name = self.program.name(n).to_string();
        Err(self.unsupported(span, format!("address of `@{name}`")))
    }

    fn operand(&mut self, o: &Operand, float: Option<FloatTy>) -> Result<Opnd, Unsupported> {
        Ok(match o {
            Operand::Reg(r) => self.reg_opnd(r),
            Operand::NotPred(r) => Opnd::Pred {
                off: self.reg_off[r.reg.index()],
                neg: true,
            },
            Operand::Special(r) => Opnd::Special(self.special(r)?),
            Operand::Int(l, _) => Opnd::Imm(match float {
                Some(ft) if !l.hex => float_literal(l.math() as f64, ft),
                _ => l.value,
            }),
            Operand::Float(v, span) => match float {
                Some(ft) => Opnd::Imm(float_literal(*v, ft)),
                None => {
                    return Err(self.unsupported(*span, "a floating-point literal here".to_string()))
                }
            },
            Operand::Addr(a) => {
                let bits = 64; // set from the instruction's address space
                let base = match &a.base {
                    AddrBase::Reg(r) => match self.f.regs[r.reg.index()].kind {
                        RegKind::Param { .. } => {
                            AddrBaseD::Param(self.param_off[r.reg.index()].unwrap_or(0))
                        }
                        _ => AddrBaseD::Opnd(self.reg_opnd(r)),
                    },
                    AddrBase::Var(n, span) => {
                        AddrBaseD::Opnd(Opnd::VarAddr(self.var_address(*n, *span)?))
                    }
                    AddrBase::Imm(l, _) => AddrBaseD::Opnd(Opnd::Imm(l.value)),
                    AddrBase::Special(r) => AddrBaseD::Opnd(Opnd::Special(self.special(r)?)),
                };
                let offset = match &a.offset {
                    None => None,
                    // register offsets are signed (sign-extended from their width)
                    Some(AddrOffset::Reg(r)) => Some((self.reg_opnd(r), true)),
                    Some(AddrOffset::Imm(v, _)) => Some((Opnd::Imm(*v as u64), false)),
                    Some(AddrOffset::Special(r)) => Some((Opnd::Special(self.special(r)?), false)),
                };
                Opnd::Addr(Box::new(Addr { base, offset, bits }))
            }
            Operand::Symbol(n, span) => {
                match self.program.functions.iter().position(|f| f.name == *n) {
                    Some(i) => Opnd::Func(i as u32),
                    None => Opnd::VarAddr(self.var_address(*n, *span)?),
                }
            }
            Operand::Void(_) => Opnd::Void,
            Operand::Call(c) => {
                let target = self.operand(&c.target, None)?;
                let mut args = Vec::new();
                for a in &c.args {
                    args.push(self.operand(a, None)?);
                }
                Opnd::Call(Box::new(CallOpnd { target, args }))
            }
        })
    }
}

/// The cpu device's form of an instruction's qualifiers. Every field of
/// the typed view is named (no `..`) and every enum value matched (no `_`),
/// so a qualifier slot or value added to the catalog does not compile here
/// until the cpu device handles it.
pub fn quals(v: &ir::Quals) -> Quals {
    let ir::Quals {
        signedness,
        ty,
        output,
        precision,
        rndmode,
        operation,
        dir,
        to,
        to_space,
        from,
        from_space,
        vec,
        index,
        addrspace,
        cop,
        op,
        memorder,
        memscope,
        cc,
        dsat,
        ci,
        co,
        ftz,
        fast,
        nanp,
        dynamic,
        cond,
        sg,
        param,
        workgroup,
        start,
    } = *v;
    let mut flags = 0;
    for (set, f) in [
        (ftz, flag::FTZ),
        (dsat, flag::DSAT),
        (nanp, flag::NANP),
        (ci, flag::CI),
        (co, flag::CO),
        (cond, flag::COND),
        (fast, flag::FAST),
        (dynamic, flag::DYNAMIC),
        (param, flag::PARAM),
        (sg, flag::SG),
    ] {
        if set {
            flags |= f;
        }
    }
    match precision {
        Some(Precision::Full) => flags |= flag::FULL,
        None => {}
    }
    match output {
        Some(Output::Rem) => flags |= flag::REM,
        Some(Output::Quo) | None => {}
    }
    match dir {
        Some(Dir::R) => flags |= flag::RIGHT,
        Some(Dir::L) | None => {}
    }
    match memorder {
        Some(
            Memorder::Relaxed
            | Memorder::Acquire
            | Memorder::Release
            | Memorder::AcqRel
            | Memorder::SeqCst,
        ) => flags |= flag::ATOMIC,
        Some(Memorder::Weak) | None => {}
    }
    // the cpu device runs every access in program order, seen by all
    // work-items at once: memory scopes, cache controls and the literals
    // that only name the instruction (`barrier.workgroup`,
    // `lifetime.start`) change nothing it computes
    match memscope {
        Some(Memscope::Subgroup | Memscope::Workgroup | Memscope::Gpu | Memscope::System)
        | None => {}
    }
    let _: Option<Cc> = cc;
    let (_, _) = (workgroup, start);
    // dp4a (12 §1.1): the first letter is src1's signedness, the second
    // src2's (`.us`: src1 unsigned, src2 signed); bit 0: src1 signed, bit 1:
    // src2 signed
    let signs = signedness.map(|s| match s {
        Signedness::Ss => 3,
        Signedness::Su => 1,
        Signedness::Us => 2,
        Signedness::Uu => 0,
    });
    Quals {
        ty: ty.map(TyQ::of),
        to: to.map(TyQ::of),
        from: from.map(TyQ::of),
        rnd: rndmode.map(round),
        flags,
        cop,
        space: addrspace,
        to_space,
        from_space,
        atom: op,
        vec: vec.unwrap_or(1),
        imm: [index, operation]
            .into_iter()
            .flatten()
            .map(u32::from)
            .chain(signs)
            .next()
            .unwrap_or(0),
    }
}

fn round(r: Rndmode) -> Round {
    match r {
        Rndmode::Re => Round::NearestEven,
        Rndmode::Rd => Round::Down,
        Rndmode::Ru => Round::Up,
        Rndmode::Rz => Round::Zero,
        Rndmode::Rna => Round::NearestAway,
    }
}

fn float_ty(k: FloatKind) -> FloatTy {
    match k {
        FloatKind::Half => FloatTy::Half,
        FloatKind::BFloat => FloatTy::BFloat,
        FloatKind::Single => FloatTy::Single,
        FloatKind::Double => FloatTy::Double,
    }
}

/// The float type an instruction's source literals are read as.
fn float_sources(opcode: Opcode, q: &Quals) -> Option<FloatTy> {
    use Opcode::*;
    match opcode.group() {
        ir::Group::FloatingPoint => q.ty.and_then(|t| t.float),
        _ => match opcode {
            Fcmp | Fatom => q.ty.and_then(|t| t.float),
            F2i | Pf2i | Fext | Ftrunc | Ftrunc2 => {
                q.from.and_then(|t| t.float).or(q.ty.and_then(|t| t.float))
            }
            Frnd => q.ty.and_then(|t| t.float),
            _ => None,
        },
    }
}

/// A decimal literal in a floating-point operand, rounded to nearest even
/// (07 §3.2 leaves the rounding to the implementation).
fn float_literal(v: f64, ft: FloatTy) -> u64 {
    match ft {
        FloatTy::Double => v.to_bits(),
        FloatTy::Single => (v as f32).to_bits() as u64,
        FloatTy::Half => half::f16::from_f64(v).to_bits() as u64,
        FloatTy::BFloat => half::bf16::from_f64(v).to_bits() as u64,
    }
}

#[cfg(test)]
mod tests {
    use pisa_translator::catalog::catalog;
    use pisa_translator::ir::{self, FormRef};

    /// The qualifier values the cpu device runs the same as an absent
    /// qualifier: memory scopes and cache controls (every access is in
    /// program order), the literals that only name the instruction, and
    /// values equal to the default (`.quo`, `shf.l`, `.weak`, `.uu`,
    /// `.index` 0).
    const SAME_AS_ABSENT: &[(&str, Option<&str>)] = &[
        ("memscope", None),
        ("cc", None),
        ("workgroup", None),
        ("start", None),
        ("output", Some("quo")),
        ("dir", Some("l")),
        ("memorder", Some("weak")),
        ("signedness", Some("uu")),
        ("index", Some("0")),
    ];

    /// Walks every qualifier slot of every catalog form and every value it
    /// takes, and checks that the cpu device's decoding sees it: the typed
    /// view holds it, and the decoded qualifiers differ from those of an
    /// instruction without it unless the value is listed above. A new slot
    /// or value in the catalog fails `opcode_table_is_fresh` until the view
    /// is regenerated, then fails to compile in [`super::quals`] (every
    /// field named, every enum matched without `_`) until the cpu device
    /// handles it, and a value it drops fails this test.
    #[test]
    fn every_catalog_qualifier_value_decodes() {
        let absent = super::quals(&ir::Quals::default());
        let mut checked = 0;
        for form in &catalog().forms {
            for (s, slot) in form.quals.iter().enumerate() {
                for (v, value) in slot.values.iter().enumerate() {
                    let mut choice = vec![FormRef::ABSENT; form.quals.len()];
                    choice[s] = v as u8;
                    let view = ir::Quals::of(form, &choice);
                    assert_ne!(
                        view,
                        ir::Quals::default(),
                        "the view drops `.{value}` of `{}`",
                        form.syntax
                    );
                    let same = SAME_AS_ABSENT
                        .iter()
                        .any(|(n, w)| *n == slot.name && w.is_none_or(|w| w == value.as_str()));
                    let decoded = super::quals(&view);
                    assert_eq!(
                        decoded == absent,
                        same,
                        "the cpu device decodes `.{value}` of `{}` as {decoded:?}",
                        form.syntax
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
