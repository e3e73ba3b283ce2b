//! 8- and 16-bit integers held in 32-bit ones, for devices without
//! `shaderInt8` or `shaderInt16` (`Options::narrow_integers`, per width): a
//! rewrite of the finished SPIR-V module ([`widen`]), its one job.
//!
//! Every integer type of a width the device lacks (8 or 16 bits) becomes the 32-bit integer type of the
//! same signedness, and a value of such a type is held *canonically*: its
//! low 8 or 16 bits are the value, the bits above them zero. Each
//! instruction on such values keeps that form and computes what the
//! narrow instruction computes:
//!
//! - moved unchanged (the low bits of a canonical result depend only on the
//!   low bits of canonical operands, and the high bits stay zero): loads
//!   and stores of `Function`, `Private` and `Workgroup` variables,
//!   composites, `OpSelect`, `OpPhi`, calls, AND/OR/XOR, unsigned division
//!   and remainder, equality and unsigned comparisons, logical right
//!   shifts, `OpBitCount`, `OpBitFieldUExtract`, `OpBitFieldInsert`,
//!   `OpConvertUToF`, `UMin`/`UMax`/`UClamp`;
//! - computed in 32 bits, then the result masked to the narrow width
//!   (wrapping as the narrow operation does): add, subtract, multiply,
//!   negate, NOT, left shifts, `OpBitFieldSExtract`, float-to-integer
//!   conversions (defined only for values in the narrow range, where the
//!   32-bit conversion gives the same low bits), `FindILsb`, `FindUMsb`;
//! - signed: the operands sign-extended to 32 bits first (`OpSDiv`,
//!   `OpSRem`, `OpSMod`, the base of `OpShiftRightArithmetic`, signed
//!   comparisons, `OpConvertSToF`, `SAbs`, `SMin`, `SMax`, `SClamp`,
//!   `FindSMsb`), then the result masked;
//! - `OpUConvert`/`OpSConvert` between widths: the value sign-extended where
//!   a signed conversion widens it, converted between the 32- and 64-bit
//!   types that now hold the values, and masked where the result is narrow;
//! - `OpBitReverse`: reversed in 32 bits and shifted down;
//! - `OpBitcast` between a vector of narrow integers and a 32- or 64-bit
//!   value: the elements packed into (or taken out of) 32-bit words.
//!
//! Global memory never holds a widened type: for such a width (and for one
//! without 8- or 16-bit storage, `Options::narrow_storage`) the back end
//! reads a sub-word of global memory from its containing 32-bit word and
//! writes it by an atomic AND and OR on that word
//! (`memory::store_device`), so a neighbouring byte another work-item
//! writes at the same time is never lost; the `.shared` and `.private`
//! arenas are arrays of 32-bit words already. Any other instruction that
//! sees a narrow value (atomics, sub-group operations, a narrow value in a
//! global-memory pointer, a bitcast with a 16-bit float, which only a
//! device with `shaderFloat16` but without `shaderInt16` meets:
//! `Options::float16` keeps the type out otherwise, ...) is refused
//! as unsupported on this device, naming the features that would allow it:
//! never computed with the wrong width.

use super::error::TranslateError;
use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, StorageClass, Word};
use rustc_hash::{FxHashMap, FxHashSet};

/// GLSL.std.450 instruction numbers the rewrite knows.
mod glsl {
    pub const S_ABS: u32 = 5;
    pub const U_MIN: u32 = 38;
    pub const S_MIN: u32 = 39;
    pub const U_MAX: u32 = 41;
    pub const S_MAX: u32 = 42;
    pub const U_CLAMP: u32 = 44;
    pub const S_CLAMP: u32 = 45;
    pub const FIND_I_LSB: u32 = 73;
    pub const FIND_S_MSB: u32 = 74;
    pub const FIND_U_MSB: u32 = 75;
}

/// A narrow integer type: the logical width of its elements and how many
/// (1 for a scalar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Narrow {
    bits: u32,
    count: u32,
}

/// The rewrite's state over one module.
struct Widen {
    /// Which widths are held in 32 bits: `[8-bit, 16-bit]`.
    widths: [bool; 2],
    /// The features the device lacks for them (named in refusals).
    needs: &'static str,
    bound: Word,
    /// Type-id renames from merging types that became equal.
    rename: FxHashMap<Word, Word>,
    /// Narrow scalar and vector types (after renaming).
    narrow: FxHashMap<Word, Narrow>,
    /// Types that hold a narrow integer anywhere (arrays, structs,
    /// pointers, functions included).
    holds_narrow: FxHashSet<Word>,
    /// Integer types by (width, signedness), floats by width, vectors by
    /// (element, count).
    ints: FxHashMap<(u32, u32), Word>,
    floats: FxHashMap<u32, Word>,
    vectors: FxHashMap<(Word, u32), Word>,
    /// Each value's type.
    ty_of: FxHashMap<Word, Word>,
    /// Added constants and types, appended to the module's globals.
    added: Vec<Instruction>,
    consts: FxHashMap<(Word, u32), Word>,
    glsl_set: Option<Word>,
    /// Debug strings by id, and the last `OpLine` seen (for refusals).
    strings: FxHashMap<Word, String>,
    line: Option<(Word, u32, u32)>,
}

/// Rewrites a module so that it uses no 8- or 16-bit integer type (module
/// doc). A module without any is returned as it is.
pub fn widen(words: Vec<u32>, widths: [bool; 2]) -> Result<Vec<u32>, TranslateError> {
    let widened = |bits: u32| (bits == 8 && widths[0]) || (bits == 16 && widths[1]);
    let mut m = rspirv::dr::load_words(&words)
        .map_err(|e| TranslateError::Internal(format!("re-reading the module: {e}")))?;
    let has_narrow = m.types_global_values.iter().any(|i| {
        i.class.opcode == Op::TypeInt
            && matches!(i.operands.first(), Some(Operand::LiteralBit32(b)) if widened(*b))
    });
    if !has_narrow {
        return Ok(words);
    }
    drop(words);
    let needs = match widths {
        [true, true] => "shaderInt8 and shaderInt16",
        [true, false] => "shaderInt8",
        _ => "shaderInt16",
    };
    let mut w = Widen {
        widths,
        needs,
        bound: m.header.as_ref().map_or(0, |h| h.bound),
        rename: FxHashMap::default(),
        narrow: FxHashMap::default(),
        holds_narrow: FxHashSet::default(),
        ints: FxHashMap::default(),
        floats: FxHashMap::default(),
        vectors: FxHashMap::default(),
        ty_of: FxHashMap::default(),
        added: Vec::new(),
        consts: FxHashMap::default(),
        glsl_set: None,
        strings: FxHashMap::default(),
        line: None,
    };
    for s in &m.debug_string_source {
        if let (Op::String, Some(id), Some(Operand::LiteralString(t))) =
            (s.class.opcode, s.result_id, s.operands.first())
        {
            w.strings.insert(id, t.clone());
        }
    }
    for i in &m.ext_inst_imports {
        if matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450") {
            w.glsl_set = i.result_id;
        }
    }
    w.globals(&mut m)?;
    for f in &mut m.functions {
        w.function(f)?;
    }
    m.types_global_values.append(&mut w.added);
    w.merge_types(&mut m);
    w.rename_all(&mut m);
    m.capabilities.retain(|c| match c.operands.first() {
        Some(Operand::Capability(Capability::Int8 | Capability::StorageBuffer8BitAccess)) => {
            !widths[0]
        }
        Some(Operand::Capability(Capability::Int16 | Capability::StorageBuffer16BitAccess)) => {
            !widths[1]
        }
        _ => true,
    });
    if let Some(h) = &mut m.header {
        h.bound = w.bound;
    }
    Ok(m.assemble())
}

impl Widen {
    fn id(&mut self) -> Word {
        let id = self.bound;
        self.bound += 1;
        id
    }

    fn refuse(&self, what: String) -> TranslateError {
        let (file, line, col) = match self.line {
            Some((f, l, c)) => (self.strings.get(&f).cloned().unwrap_or_default(), l, c),
            None => (String::new(), 0, 0),
        };
        TranslateError::UnsupportedOnDevice {
            what: format!("{what} on an 8- or 16-bit integer needs {}", self.needs),
            file,
            line,
            col,
        }
    }

    fn ren(&self, id: Word) -> Word {
        self.rename.get(&id).copied().unwrap_or(id)
    }

    /// Types (narrowed ones made 32-bit), constants (masked to the
    /// canonical form) and global variables, read with their own ids: the
    /// types that became equal are merged last ([`Widen::merge_types`]).
    fn globals(&mut self, m: &mut Module) -> Result<(), TranslateError> {
        for inst in &mut m.types_global_values {
            let op = inst.class.opcode;
            let rid = inst.result_id.unwrap_or(0);
            let lit = |i: usize, inst: &Instruction| match inst.operands.get(i) {
                Some(Operand::LiteralBit32(v)) => *v,
                _ => 0,
            };
            let idref = |i: usize, inst: &Instruction| match inst.operands.get(i) {
                Some(Operand::IdRef(v)) => *v,
                _ => 0,
            };
            match op {
                Op::TypeInt => {
                    let (bits, signed) = (lit(0, inst), lit(1, inst));
                    if (bits == 8 && self.widths[0]) || (bits == 16 && self.widths[1]) {
                        inst.operands[0] = Operand::LiteralBit32(32);
                        self.narrow.insert(rid, Narrow { bits, count: 1 });
                        self.holds_narrow.insert(rid);
                    }
                    self.ints.entry((bits, signed)).or_insert(rid);
                }
                Op::TypeFloat => {
                    self.floats.entry(lit(0, inst)).or_insert(rid);
                }
                Op::TypeVector => {
                    let (e, count) = (idref(0, inst), lit(1, inst));
                    if let Some(n) = self.narrow.get(&e).copied() {
                        self.narrow.insert(
                            rid,
                            Narrow {
                                bits: n.bits,
                                count,
                            },
                        );
                        self.holds_narrow.insert(rid);
                    }
                    self.vectors.entry((e, count)).or_insert(rid);
                }
                Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct | Op::TypeFunction
                    if inst.operands.iter().any(
                        |o| matches!(o, Operand::IdRef(r) if self.holds_narrow.contains(r)),
                    ) =>
                {
                    self.holds_narrow.insert(rid);
                }
                Op::TypePointer => {
                    let sc = match inst.operands.first() {
                        Some(Operand::StorageClass(sc)) => *sc,
                        _ => StorageClass::Function,
                    };
                    if self.holds_narrow.contains(&idref(1, inst)) {
                        if !matches!(
                            sc,
                            StorageClass::Function
                                | StorageClass::Private
                                | StorageClass::Workgroup
                        ) {
                            return Err(self.refuse(format!("memory of storage class {sc:?}")));
                        }
                        self.holds_narrow.insert(rid);
                    }
                }
                Op::Constant => {
                    if let Some(n) = inst.result_type.and_then(|t| self.narrow.get(&t)) {
                        let mask = (1u32 << n.bits) - 1;
                        if let Some(Operand::LiteralBit32(v)) = inst.operands.first_mut() {
                            *v &= mask;
                        }
                    }
                }
                Op::SpecConstant | Op::SpecConstantOp | Op::SpecConstantComposite
                    if inst
                        .result_type
                        .is_some_and(|t| self.holds_narrow.contains(&t)) =>
                {
                    return Err(self.refuse("a specialization constant".into()));
                }
                _ => {}
            }
            if let (Some(t), Some(r)) = (inst.result_type, inst.result_id) {
                self.ty_of.insert(r, t);
            }
        }
        Ok(())
    }

    /// Merges the types that are now equal (SPIR-V forbids duplicates of
    /// non-aggregate types): the first declaration stays, later ones are
    /// renamed to it.
    fn merge_types(&mut self, m: &mut Module) {
        let old = std::mem::take(&mut m.types_global_values);
        let mut seen: FxHashMap<(Op, Vec<Word>), Word> = FxHashMap::default();
        for mut inst in old {
            if let Some(t) = inst.result_type {
                inst.result_type = Some(self.ren(t));
            }
            for o in &mut inst.operands {
                if let Operand::IdRef(r) = o {
                    *r = self.ren(*r);
                }
            }
            let op = inst.class.opcode;
            if matches!(
                op,
                Op::TypeInt
                    | Op::TypeFloat
                    | Op::TypeVector
                    | Op::TypeBool
                    | Op::TypeVoid
                    | Op::TypeFunction
            ) {
                let key: Vec<Word> = inst
                    .operands
                    .iter()
                    .map(|o| match o {
                        Operand::IdRef(r) => *r,
                        Operand::LiteralBit32(v) => *v,
                        _ => u32::MAX,
                    })
                    .collect();
                let rid = inst.result_id.unwrap_or(0);
                if let Some(&first) = seen.get(&(op, key.clone())) {
                    self.rename.insert(rid, first);
                    continue;
                }
                seen.insert((op, key), rid);
            }
            m.types_global_values.push(inst);
        }
    }

    /// Applies the type renames everywhere outside the globals.
    fn rename_all(&self, m: &mut Module) {
        if self.rename.is_empty() {
            return;
        }
        let fix = |inst: &mut Instruction| {
            if let Some(t) = inst.result_type {
                inst.result_type = Some(self.ren(t));
            }
            for o in &mut inst.operands {
                if let Operand::IdRef(r) = o {
                    *r = self.ren(*r);
                }
            }
        };
        for i in m
            .entry_points
            .iter_mut()
            .chain(m.execution_modes.iter_mut())
            .chain(m.debug_names.iter_mut())
            .chain(m.annotations.iter_mut())
        {
            fix(i);
        }
        for f in &mut m.functions {
            if let Some(d) = &mut f.def {
                fix(d);
            }
            for p in &mut f.parameters {
                fix(p);
            }
            for b in &mut f.blocks {
                for i in &mut b.instructions {
                    fix(i);
                }
            }
        }
    }

    // ----------------------------------------------------- helpers

    fn u32_ty(&mut self) -> Word {
        self.int_ty(32, 0)
    }

    fn int_ty(&mut self, bits: u32, signed: u32) -> Word {
        if let Some(&t) = self.ints.get(&(bits, signed)) {
            return t;
        }
        let id = self.id();
        let t = Instruction::new(
            Op::TypeInt,
            None,
            Some(id),
            vec![Operand::LiteralBit32(bits), Operand::LiteralBit32(signed)],
        );
        self.added.push(t);
        self.ints.insert((bits, signed), id);
        id
    }

    fn vec_ty(&mut self, elem: Word, n: u32) -> Word {
        if n == 1 {
            return elem;
        }
        if let Some(&t) = self.vectors.get(&(elem, n)) {
            return t;
        }
        let id = self.id();
        self.added.push(Instruction::new(
            Op::TypeVector,
            None,
            Some(id),
            vec![Operand::IdRef(elem), Operand::LiteralBit32(n)],
        ));
        self.vectors.insert((elem, n), id);
        id
    }

    /// A 32-bit unsigned constant, splat to `n` components.
    fn constant(&mut self, v: u32, n: u32) -> Word {
        let u = self.u32_ty();
        let scalar = match self.consts.get(&(u, v)) {
            Some(&c) => c,
            None => {
                let id = self.id();
                self.added.push(Instruction::new(
                    Op::Constant,
                    Some(u),
                    Some(id),
                    vec![Operand::LiteralBit32(v)],
                ));
                self.consts.insert((u, v), id);
                id
            }
        };
        if n == 1 {
            return scalar;
        }
        let t = self.vec_ty(u, n);
        if let Some(&c) = self.consts.get(&(t, v)) {
            return c;
        }
        let id = self.id();
        self.added.push(Instruction::new(
            Op::ConstantComposite,
            Some(t),
            Some(id),
            (0..n).map(|_| Operand::IdRef(scalar)).collect(),
        ));
        self.consts.insert((t, v), id);
        id
    }

    fn type_of(&self, v: Word) -> Option<Word> {
        self.ty_of.get(&v).copied()
    }

    fn narrow_of(&self, v: Word) -> Option<Narrow> {
        self.type_of(v).and_then(|t| self.narrow.get(&t).copied())
    }

    fn emit(out: &mut Vec<Instruction>, op: Op, ty: Word, id: Word, ops: Vec<Operand>) {
        out.push(Instruction::new(op, Some(ty), Some(id), ops));
    }

    /// `v` (of narrow type `ty`) sign-extended to 32 bits, as `ty`.
    fn sext(&mut self, out: &mut Vec<Instruction>, v: Word, ty: Word, n: Narrow) -> Word {
        let (zero, count) = (self.constant(0, 1), self.constant(n.bits, 1));
        let id = self.id();
        Self::emit(
            out,
            Op::BitFieldSExtract,
            ty,
            id,
            vec![
                Operand::IdRef(v),
                Operand::IdRef(zero),
                Operand::IdRef(count),
            ],
        );
        id
    }

    /// `result = v & mask(n)`, of type `ty`.
    fn mask_into(
        &mut self,
        out: &mut Vec<Instruction>,
        result: Word,
        v: Word,
        ty: Word,
        n: Narrow,
    ) {
        let m = self.constant((1u32 << n.bits) - 1, n.count);
        Self::emit(
            out,
            Op::BitwiseAnd,
            ty,
            result,
            vec![Operand::IdRef(v), Operand::IdRef(m)],
        );
    }

    /// Whether an instruction's result type or any of its operands holds a
    /// narrow integer.
    fn touches_narrow(&self, inst: &Instruction) -> bool {
        inst.result_type
            .is_some_and(|t| self.holds_narrow.contains(&t))
            || inst.operands.iter().any(|o| match o {
                Operand::IdRef(r) => {
                    self.holds_narrow.contains(r)
                        || self
                            .type_of(*r)
                            .is_some_and(|t| self.holds_narrow.contains(&t))
                }
                _ => false,
            })
    }

    // ----------------------------------------------------- bodies

    fn function(&mut self, f: &mut rspirv::dr::Function) -> Result<(), TranslateError> {
        for p in &f.parameters {
            if let (Some(t), Some(r)) = (p.result_type, p.result_id) {
                self.ty_of.insert(r, t);
            }
        }
        // every value's type first: a phi may use a value defined later
        for b in &f.blocks {
            for i in &b.instructions {
                if let (Some(t), Some(r)) = (i.result_type, i.result_id) {
                    self.ty_of.insert(r, t);
                }
            }
        }
        for b in &mut f.blocks {
            let old = std::mem::take(&mut b.instructions);
            let mut out = Vec::with_capacity(old.len());
            for inst in old {
                self.instruction(inst, &mut out)?;
            }
            b.instructions = out;
        }
        Ok(())
    }

    fn instruction(
        &mut self,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), TranslateError> {
        let op = inst.class.opcode;
        if op == Op::Line {
            if let [Operand::IdRef(f), Operand::LiteralBit32(l), Operand::LiteralBit32(c)] =
                inst.operands[..]
            {
                self.line = Some((f, l, c));
            }
        }
        if !self.touches_narrow(&inst) {
            out.push(inst);
            return Ok(());
        }
        let ty = inst.result_type.unwrap_or(0);
        let rid = inst.result_id.unwrap_or(0);
        let rn = self.narrow.get(&ty).copied();
        let id_at = |i: usize| match inst.operands.get(i) {
            Some(Operand::IdRef(r)) => *r,
            _ => 0,
        };
        match op {
            // unchanged (module doc)
            Op::Load
            | Op::Store
            | Op::Variable
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::CompositeConstruct
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::VectorShuffle
            | Op::CopyObject
            | Op::Select
            | Op::Phi
            | Op::FunctionCall
            | Op::ReturnValue
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::UDiv
            | Op::UMod
            | Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::ShiftRightLogical
            | Op::BitCount
            | Op::BitFieldUExtract
            | Op::BitFieldInsert
            | Op::ConvertUToF
            | Op::Undef
            | Op::Name
            | Op::Line
            | Op::NoLine => out.push(inst),
            // a narrow shift amount or bit-field offset or count of a wide
            // value: the same number
            Op::ShiftLeftLogical | Op::ShiftRightArithmetic | Op::BitFieldSExtract
                if rn.is_none() =>
            {
                out.push(inst)
            }
            // computed in 32 bits, the result wrapped
            Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::SNegate
            | Op::Not
            | Op::ShiftLeftLogical
            | Op::BitFieldSExtract
            | Op::ConvertFToU
            | Op::ConvertFToS => {
                let n = rn.ok_or_else(|| self.refuse(format!("`Op{op:?}`")))?;
                let t = self.id();
                let mut i = inst;
                i.result_id = Some(t);
                out.push(i);
                self.mask_into(out, rid, t, ty, n);
            }
            // signed: operands sign-extended, the result wrapped
            Op::SDiv | Op::SRem | Op::SMod | Op::ShiftRightArithmetic => {
                let n = rn.ok_or_else(|| self.refuse(format!("`Op{op:?}`")))?;
                let (a, b) = (id_at(0), id_at(1));
                let at = self.type_of(a).unwrap_or(ty);
                let a = self.sext(out, a, at, n);
                let b = if op == Op::ShiftRightArithmetic {
                    b
                } else {
                    let bt = self.type_of(b).unwrap_or(ty);
                    self.sext(out, b, bt, n)
                };
                let t = self.id();
                Self::emit(out, op, ty, t, vec![Operand::IdRef(a), Operand::IdRef(b)]);
                self.mask_into(out, rid, t, ty, n);
            }
            Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::ConvertSToF => {
                let mut ops = Vec::new();
                for k in 0..inst.operands.len() {
                    let v = id_at(k);
                    let (Some(t), Some(n)) = (self.type_of(v), self.narrow_of(v)) else {
                        return Err(self.refuse(format!("`Op{op:?}`")));
                    };
                    ops.push(Operand::IdRef(self.sext(out, v, t, n)));
                }
                Self::emit(out, op, ty, rid, ops);
            }
            Op::UConvert | Op::SConvert => self.convert(inst, out)?,
            Op::BitReverse => {
                let n = rn.ok_or_else(|| self.refuse(format!("`Op{op:?}`")))?;
                let t = self.id();
                Self::emit(out, op, ty, t, vec![Operand::IdRef(id_at(0))]);
                let by = self.constant(32 - n.bits, n.count);
                Self::emit(
                    out,
                    Op::ShiftRightLogical,
                    ty,
                    rid,
                    vec![Operand::IdRef(t), Operand::IdRef(by)],
                );
            }
            Op::Bitcast => self.bitcast(inst, out)?,
            Op::ExtInst => self.ext_inst(inst, out)?,
            _ => return Err(self.refuse(format!("`Op{op:?}`"))),
        }
        Ok(())
    }

    /// `OpUConvert`/`OpSConvert` with a narrow operand or result.
    fn convert(
        &mut self,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), TranslateError> {
        let op = inst.class.opcode;
        let (ty, rid) = (inst.result_type.unwrap_or(0), inst.result_id.unwrap_or(0));
        let Some(Operand::IdRef(v)) = inst.operands.first().cloned() else {
            return Err(self.refuse(format!("`Op{op:?}`")));
        };
        let Some(from_ty) = self.type_of(v) else {
            return Err(self.refuse(format!("`Op{op:?}`")));
        };
        let width = |w: &Self, t: Word| -> Option<(u32, u32)> {
            // (logical, physical) width of an integer scalar type
            if let Some(n) = w.narrow.get(&t) {
                return (n.count == 1).then_some((n.bits, 32));
            }
            w.ints
                .iter()
                .find(|(_, &id)| id == t)
                .map(|((bits, _), _)| (*bits, *bits))
        };
        let (Some((fl, fp)), Some((tl, tp))) = (width(self, from_ty), width(self, ty)) else {
            return Err(self.refuse(format!("`Op{op:?}` of a vector")));
        };
        let mut v = v;
        let mut vt = from_ty;
        if op == Op::SConvert && tl > fl && self.narrow.contains_key(&from_ty) {
            let n = Narrow { bits: fl, count: 1 };
            v = self.sext(out, v, vt, n);
        }
        let to_narrow = self.narrow.get(&ty).copied();
        let masked = to_narrow.filter(|_| !(op == Op::UConvert && tl >= fl));
        // the value in the physical result type
        let phys = if fp != tp {
            let t = match masked {
                Some(_) => self.id(),
                None => rid,
            };
            Self::emit(out, op, ty, t, vec![Operand::IdRef(v)]);
            vt = ty;
            t
        } else {
            v
        };
        match masked {
            Some(n) => self.mask_into(out, rid, phys, ty, n),
            None if fp == tp => {
                let o = if vt == ty {
                    Op::CopyObject
                } else {
                    Op::Bitcast
                };
                Self::emit(out, o, ty, rid, vec![Operand::IdRef(phys)]);
            }
            None => {}
        }
        Ok(())
    }

    /// `OpBitcast` with a narrow operand or result: between narrow scalars
    /// of either signedness, or between a narrow vector and a 32- or 64-bit
    /// scalar or a vector of 32-bit integers (elements packed in words,
    /// the first in the low bits).
    fn bitcast(
        &mut self,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), TranslateError> {
        let (ty, rid) = (inst.result_type.unwrap_or(0), inst.result_id.unwrap_or(0));
        let Some(Operand::IdRef(v)) = inst.operands.first().cloned() else {
            return Err(self.refuse("`OpBitcast`".into()));
        };
        let from_ty = self.type_of(v).unwrap_or(0);
        let (fnw, tnw) = (
            self.narrow.get(&from_ty).copied(),
            self.narrow.get(&ty).copied(),
        );
        let refuse =
            |w: &Self| w.refuse("`OpBitcast` (with a 16-bit float or another shape)".into());
        match (fnw, tnw) {
            (Some(a), Some(b)) if a == b => {
                let o = if from_ty == ty {
                    Op::CopyObject
                } else {
                    Op::Bitcast
                };
                Self::emit(out, o, ty, rid, vec![Operand::IdRef(v)]);
            }
            (Some(a), None) if a.count > 1 => {
                // pack the elements into words
                let words = self.wide_words(ty).ok_or_else(|| refuse(self))?;
                if a.bits * a.count != 32 * words {
                    return Err(refuse(self));
                }
                let u = self.u32_ty();
                let per = 32 / a.bits;
                let elem = self.elem_ty(from_ty);
                let mut ws = Vec::new();
                for wi in 0..words {
                    let mut acc = None;
                    for k in 0..per {
                        let e = self.id();
                        Self::emit(
                            out,
                            Op::CompositeExtract,
                            elem,
                            e,
                            vec![Operand::IdRef(v), Operand::LiteralBit32(wi * per + k)],
                        );
                        let eu = self.id();
                        Self::emit(out, Op::Bitcast, u, eu, vec![Operand::IdRef(e)]);
                        let part = if k == 0 {
                            eu
                        } else {
                            let sh = self.constant(k * a.bits, 1);
                            let s = self.id();
                            Self::emit(
                                out,
                                Op::ShiftLeftLogical,
                                u,
                                s,
                                vec![Operand::IdRef(eu), Operand::IdRef(sh)],
                            );
                            s
                        };
                        acc = Some(match acc {
                            None => part,
                            Some(x) => {
                                let o = self.id();
                                Self::emit(
                                    out,
                                    Op::BitwiseOr,
                                    u,
                                    o,
                                    vec![Operand::IdRef(x), Operand::IdRef(part)],
                                );
                                o
                            }
                        });
                    }
                    ws.push(acc.unwrap_or(v));
                }
                let packed = if words == 1 {
                    ws[0]
                } else {
                    let vt = self.vec_ty(u, words);
                    let c = self.id();
                    Self::emit(
                        out,
                        Op::CompositeConstruct,
                        vt,
                        c,
                        ws.into_iter().map(Operand::IdRef).collect(),
                    );
                    c
                };
                Self::emit(out, Op::Bitcast, ty, rid, vec![Operand::IdRef(packed)]);
            }
            (None, Some(b)) if b.count > 1 => {
                let words = self.wide_words(from_ty).ok_or_else(|| refuse(self))?;
                if b.bits * b.count != 32 * words {
                    return Err(refuse(self));
                }
                let u = self.u32_ty();
                let vt = self.vec_ty(u, words);
                let all = self.id();
                Self::emit(out, Op::Bitcast, vt, all, vec![Operand::IdRef(v)]);
                let per = 32 / b.bits;
                let elem = self.elem_ty(ty);
                let mask = self.constant((1u32 << b.bits) - 1, 1);
                let mut elems = Vec::new();
                for wi in 0..words {
                    let w = if words == 1 {
                        all
                    } else {
                        let x = self.id();
                        Self::emit(
                            out,
                            Op::CompositeExtract,
                            u,
                            x,
                            vec![Operand::IdRef(all), Operand::LiteralBit32(wi)],
                        );
                        x
                    };
                    for k in 0..per {
                        let sh = self.constant(k * b.bits, 1);
                        let s = self.id();
                        Self::emit(
                            out,
                            Op::ShiftRightLogical,
                            u,
                            s,
                            vec![Operand::IdRef(w), Operand::IdRef(sh)],
                        );
                        let m = self.id();
                        Self::emit(
                            out,
                            Op::BitwiseAnd,
                            u,
                            m,
                            vec![Operand::IdRef(s), Operand::IdRef(mask)],
                        );
                        let e = self.id();
                        Self::emit(out, Op::Bitcast, elem, e, vec![Operand::IdRef(m)]);
                        elems.push(Operand::IdRef(e));
                    }
                }
                Self::emit(out, Op::CompositeConstruct, ty, rid, elems);
            }
            _ => return Err(refuse(self)),
        }
        Ok(())
    }

    /// How many 32-bit words a 32- or 64-bit scalar, or a vector of 32-bit
    /// integers, is (`None` for other types, 16-bit floats among them).
    fn wide_words(&self, t: Word) -> Option<u32> {
        if let Some(((bits, _), _)) = self.ints.iter().find(|(_, &id)| id == t) {
            return matches!(bits, 32 | 64).then_some(bits / 32);
        }
        if let Some((bits, _)) = self.floats.iter().find(|(_, &id)| id == t) {
            return matches!(bits, 32 | 64).then_some(bits / 32);
        }
        let ((e, n), _) = self.vectors.iter().find(|(_, &id)| id == t)?;
        let ((bits, _), _) = self.ints.iter().find(|(_, &id)| id == *e)?;
        (*bits == 32 && !self.narrow.contains_key(e)).then_some(*n)
    }

    /// The element type of a (narrow) vector type.
    fn elem_ty(&mut self, t: Word) -> Word {
        self.vectors
            .iter()
            .find(|(_, &id)| id == t)
            .map(|((e, _), _)| *e)
            .unwrap_or_else(|| self.int_ty(32, 0))
    }

    /// GLSL.std.450 integer instructions on narrow values.
    fn ext_inst(
        &mut self,
        inst: Instruction,
        out: &mut Vec<Instruction>,
    ) -> Result<(), TranslateError> {
        let (ty, rid) = (inst.result_type.unwrap_or(0), inst.result_id.unwrap_or(0));
        let (set, num) = match inst.operands[..] {
            [Operand::IdRef(s), Operand::LiteralExtInstInteger(n), ..] => (s, n),
            _ => return Err(self.refuse("an extended instruction".into())),
        };
        if Some(set) != self.glsl_set {
            return Err(self.refuse("an extended instruction".into()));
        }
        let Some(n) = self.narrow.get(&ty).copied() else {
            return Err(self.refuse(format!("GLSL.std.450 instruction {num}")));
        };
        let args: Vec<Word> = inst.operands[2..]
            .iter()
            .filter_map(|o| match o {
                Operand::IdRef(r) => Some(*r),
                _ => None,
            })
            .collect();
        let (sign_extend, wrap) = match num {
            glsl::U_MIN | glsl::U_MAX | glsl::U_CLAMP => (false, false),
            glsl::FIND_I_LSB | glsl::FIND_U_MSB => (false, true),
            glsl::S_ABS | glsl::S_MIN | glsl::S_MAX | glsl::S_CLAMP | glsl::FIND_S_MSB => {
                (true, true)
            }
            _ => return Err(self.refuse(format!("GLSL.std.450 instruction {num}"))),
        };
        if !wrap {
            out.push(inst);
            return Ok(());
        }
        let mut ops = vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(num)];
        for a in args {
            let a = if sign_extend {
                let t = self.type_of(a).unwrap_or(ty);
                self.sext(out, a, t, n)
            } else {
                a
            };
            ops.push(Operand::IdRef(a));
        }
        let t = self.id();
        Self::emit(out, Op::ExtInst, ty, t, ops);
        self.mask_into(out, rid, t, ty, n);
        Ok(())
    }
}
