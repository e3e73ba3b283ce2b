//! The translation context ([`ModuleCx`]): the SPIR-V builder, cached types
//! and constants, and the capabilities a module actually uses (declared only
//! when used); the state of each concern is a field of its own, its type
//! declared beside the code that owns it (`interface`, `capabilities`,
//! `lower::exchange_state`, `lower::atomics_state`, `checked_state`).

use super::builder::Builder;
use super::capabilities::Capabilities;
use super::checked_state::CheckedState;
use super::error::TranslateError;
use super::interface::Interface;
use super::lower::atomics_state::AtomicsState;
use super::lower::exchange_state::ExchangeState;
use crate::abi::Layout;
use crate::diag::Span;
use crate::ir::{Function, Program};
use crate::ir::{Name, Ty};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, StorageClass, Word};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// What a cached type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TypeKey {
    Int(u16),
    Float(u16),
    Bool,
    Void,
    Pointer(u32, Word),
    Vector(Word, u32),
}

/// The state of the whole module while it is translated (`tx` in code),
/// split by concern: what it translates and how (`program`, `options`), what
/// it builds (`b`, `layout`), the caches of types and constants, the
/// capabilities, the program's ids, the entry points' interface, and the
/// state of each emulation (sub-groups, atomics, checked mode), each declared
/// beside the code that owns it.
pub struct ModuleCx<'m> {
    /// The module in IR form: all the back end reads.
    pub program: &'m Program,
    pub options: super::options::Options,
    pub b: Builder,
    /// The ABI layout; translation sets what it learns (`sets_status`: some
    /// loop sets the launch's status word, docs/abi.md, loop caps).
    pub layout: Layout,
    /// Cached types and constants (`OpType*`, `OpConstant*`).
    cache: TypeCache,
    /// Declared capabilities and where each was first needed.
    pub caps: Capabilities,
    /// The SPIR-V ids of the program's functions and files.
    pub ids: ProgramIds,
    /// Module-scope variables and constants of the entry points (`entry`).
    pub interface: Interface,
    /// The exchange of SIMT mode's instructions (`lower::exchange`).
    pub exchange: ExchangeState,
    /// Emulated atomics (`lower::atomics`).
    pub atomics: AtomicsState,
    /// Checked mode (`spirv::checked`).
    pub checked: CheckedState,
}

/// Types and constants made so far, so that each is declared once.
struct TypeCache {
    consts: FxHashMap<(Word, u64), Word>,
    /// `OpConstantNull` by type.
    nulls: FxHashMap<Word, Word>,
    /// rspirv de-duplicates types by a linear scan: cache them by key.
    types: FxHashMap<TypeKey, Word>,
    /// The `GLSL.std.450` import.
    glsl: Option<Word>,
    /// The unsigned integer types of 8, 16, 32 and 64 bits once made (0:
    /// not yet): [`ModuleCx::uint`] is called for most operands.
    ints: [Word; 4],
    /// The bool type once made (0: not yet), asked for by every compare
    /// and branch.
    bool_t: Word,
    /// The 32-bit constants 0..64 once made (0: not yet): shift masks,
    /// small immediates and control-flow codes, without a hash lookup.
    small_u32: [Word; SMALL_U32],
}

impl Default for TypeCache {
    fn default() -> Self {
        TypeCache {
            consts: FxHashMap::default(),
            nulls: FxHashMap::default(),
            types: FxHashMap::default(),
            glsl: None,
            ints: [0; 4],
            bool_t: 0,
            small_u32: [0; SMALL_U32],
        }
    }
}

/// How many of the smallest 32-bit constants [`TypeCache::small_u32`] holds.
const SMALL_U32: usize = 64;

/// What the program's named things are in the module.
pub struct ProgramIds {
    /// SPIR-V function id of each PISA function, by name.
    pub functions: HashMap<Name, Word>,
    /// Index of each function in `program.functions`, by name (callee
    /// lookups without a search per call).
    pub function_index: FxHashMap<Name, usize>,
    /// `OpString` of each input file, for debug lines.
    pub files: Vec<Word>,
}

impl<'m> ModuleCx<'m> {
    pub fn new(program: &'m Program, layout: Layout) -> Self {
        let mut b = Builder::new();
        b.set_version(1, 5);
        b.memory_model(
            spirv::AddressingModel::PhysicalStorageBuffer64,
            spirv::MemoryModel::GLSL450,
        );
        let file_ids: Vec<Word> = program
            .source
            .files
            .iter()
            .map(|f| b.string(f.name.clone()))
            .collect();
        for &file in &file_ids {
            b.source(
                spirv::SourceLanguage::Unknown,
                0,
                Some(file),
                None::<String>,
            );
        }
        let mut tx = ModuleCx {
            program,
            options: super::options::Options::default(),
            b,
            layout,
            cache: TypeCache::default(),
            caps: Capabilities::default(),
            ids: ProgramIds {
                functions: HashMap::new(),
                function_index: crate::ir::analysis::calls::function_index(program),
                files: file_ids,
            },
            interface: Interface::default(),
            exchange: ExchangeState::default(),
            atomics: AtomicsState::default(),
            checked: CheckedState::default(),
        };
        tx.cap(Capability::Shader);
        tx.cap(Capability::PhysicalStorageBufferAddresses);
        tx
    }

    /// The module's words and its layout.
    pub fn finish(mut self) -> (Vec<u32>, Layout) {
        for c in &self.caps.declared {
            // SAFETY-free: Capability is a repr(u32) enum; from_u32 maps back.
            if let Some(cap) = Capability::from_u32(*c) {
                self.b.capability(cap);
            }
        }
        (self.b.assemble(), self.layout)
    }

    pub fn cap(&mut self, c: Capability) {
        self.caps.declare(c as u32, self.program);
    }

    /// The module's functions with their index (declaration order).
    pub fn functions(&self) -> impl Iterator<Item = (usize, &'m Function)> {
        self.program.functions.iter().enumerate()
    }

    pub fn unsupported(&self, span: Span, what: impl Into<String>) -> TranslateError {
        let at = self.program.source.locate(span);
        let (line, col) = (at.line, at.col);
        TranslateError::Unsupported {
            what: what.into(),
            file: self.program.source.file_name(at.file).to_string(),
            line,
            col,
        }
    }

    /// What this device cannot compute (not a gap of the back end).
    pub fn unsupported_on_device(&self, span: Span, what: impl Into<String>) -> TranslateError {
        let at = self.program.source.locate(span);
        TranslateError::UnsupportedOnDevice {
            what: what.into(),
            file: self.program.source.file_name(at.file).to_string(),
            line: at.line,
            col: at.col,
        }
    }

    // ------------------------------------------------------------- types

    pub fn uint(&mut self, bits: u16) -> Word {
        // made before: its capability is declared too
        let slot = match bits {
            8 => 0,
            16 => 1,
            32 => 2,
            64 => 3,
            _ => 4,
        };
        if let Some(&t) = self.cache.ints.get(slot) {
            if t != 0 {
                return t;
            }
        }
        match bits {
            8 => self.cap(Capability::Int8),
            16 => self.cap(Capability::Int16),
            64 => self.cap(Capability::Int64),
            128 => {
                let u64t = self.uint(64);
                return self.b.type_vector(u64t, 2);
            }
            _ => {}
        }
        let t = self.cached(TypeKey::Int(bits), |b| b.type_int(bits as u32, 0));
        if let Some(cached) = self.cache.ints.get_mut(slot) {
            *cached = t;
        }
        t
    }

    fn cached(&mut self, key: TypeKey, make: impl FnOnce(&mut Builder) -> Word) -> Word {
        if let Some(&t) = self.cache.types.get(&key) {
            return t;
        }
        let t = make(&mut self.b);
        self.cache.types.insert(key, t);
        t
    }

    pub fn float(&mut self, bits: u16) -> Word {
        match bits {
            16 => self.cap(Capability::Float16),
            64 => self.cap(Capability::Float64),
            _ => {}
        }
        self.cached(TypeKey::Float(bits), |b| b.type_float(bits as u32, None))
    }

    /// Whether the module uses the `bits`-wide float type.
    pub fn uses_float(&self, bits: u16) -> bool {
        self.cache.types.contains_key(&TypeKey::Float(bits))
    }

    pub fn bool_ty(&mut self) -> Word {
        if self.cache.bool_t == 0 {
            self.cache.bool_t = self.cached(TypeKey::Bool, |b| b.type_bool());
        }
        self.cache.bool_t
    }

    pub fn void(&mut self) -> Word {
        self.cached(TypeKey::Void, |b| b.type_void())
    }

    pub fn vec(&mut self, elem: Word, n: u32) -> Word {
        self.cached(TypeKey::Vector(elem, n), |b| b.type_vector(elem, n))
    }

    /// A register's storage type: an integer of its width, or an array of them.
    pub fn reg_ty(&mut self, ty: Ty) -> Word {
        let e = self.uint(ty.bits);
        if ty.is_vector() {
            let n = self.const_u32(ty.count as u32);
            self.b.type_array(e, n)
        } else {
            e
        }
    }

    /// A module-scope variable (rspirv's `variable` would put it in the
    /// block being built).
    pub fn global_var(&mut self, ptr_ty: Word, sc: StorageClass) -> Word {
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(rspirv::dr::Instruction::new(
                spirv::Op::Variable,
                Some(ptr_ty),
                Some(id),
                vec![Operand::StorageClass(sc)],
            ));
        id
    }

    pub fn ptr(&mut self, sc: StorageClass, pointee: Word) -> Word {
        self.cached(TypeKey::Pointer(sc as u32, pointee), |b| {
            b.type_pointer(None, sc, pointee)
        })
    }

    // --------------------------------------------------------- constants

    pub fn const_uint(&mut self, bits: u16, value: u64) -> Word {
        if bits == 32 && value < SMALL_U32 as u64 {
            return self.small_u32(value as usize);
        }
        self.const_uint_hashed(bits, value)
    }

    fn const_uint_hashed(&mut self, bits: u16, value: u64) -> Word {
        let ty = self.uint(bits);
        let v = if bits >= 64 {
            value
        } else {
            value & ((1u64 << bits) - 1)
        };
        if let Some(&id) = self.cache.consts.get(&(ty, v)) {
            return id;
        }
        let id = if bits == 64 {
            self.b.constant_bit64(ty, v)
        } else {
            self.b.constant_bit32(ty, v as u32)
        };
        self.cache.consts.insert((ty, v), id);
        id
    }

    pub fn const_u32(&mut self, v: u32) -> Word {
        self.const_uint(32, v as u64)
    }

    /// [`Self::const_uint`] of a 32-bit value below [`SMALL_U32`] from
    /// [`TypeCache::small_u32`] (the same id: the slot is filled from the
    /// general cache the first time).
    fn small_u32(&mut self, v: usize) -> Word {
        if self.cache.small_u32[v] == 0 {
            self.cache.small_u32[v] = self.const_uint_hashed(32, v as u64);
        }
        self.cache.small_u32[v]
    }

    /// The zero value of any type (`OpConstantNull`).
    pub fn const_null(&mut self, t: Word) -> Word {
        if let Some(&id) = self.cache.nulls.get(&t) {
            return id;
        }
        let id = self.b.constant_null(t);
        self.cache.nulls.insert(t, id);
        id
    }

    pub fn const_bool(&mut self, v: bool) -> Word {
        let t = self.bool_ty();
        if let Some(&id) = self.cache.consts.get(&(t, v as u64)) {
            return id;
        }
        let id = if v {
            self.b.constant_true(t)
        } else {
            self.b.constant_false(t)
        };
        self.cache.consts.insert((t, v as u64), id);
        id
    }

    pub fn glsl(&mut self) -> Word {
        if let Some(g) = self.cache.glsl {
            return g;
        }
        let g = self.b.ext_inst_import("GLSL.std.450");
        self.cache.glsl = Some(g);
        g
    }

    /// `GLSL.std.450` instruction on ids.
    pub fn glsl_op(
        &mut self,
        ty: Word,
        op: spirv::GlslStd450Op,
        args: &[Word],
    ) -> Result<Word, TranslateError> {
        let g = self.glsl();
        Ok(self.b.ext_inst(
            ty,
            None,
            g,
            op as u32,
            args.iter().map(|&a| Operand::IdRef(a)),
        )?)
    }
}
