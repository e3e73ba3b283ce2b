//! The translation context: the SPIR-V builder, cached types and constants,
//! and the capabilities a module actually uses (declared only when used).

use super::builder::Builder;
use super::error::TranslateError;
use crate::abi::Layout;
use crate::diag::Span;
use crate::ir::{Function, Program};
use crate::ir::{Name, Ty};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, StorageClass, Word};
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, HashMap};

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

/// The state of the whole module while it is translated (`tx` in code).
pub struct ModuleCx<'m> {
    /// The module in IR form: all the back end reads.
    pub program: &'m Program,
    pub b: Builder,
    pub layout: Layout,
    caps: BTreeSet<u32>,
    consts: FxHashMap<(Word, u64), Word>,
    /// `OpConstantNull` by type.
    nulls: FxHashMap<Word, Word>,
    /// rspirv de-duplicates types by a linear scan: cache them by key.
    types: FxHashMap<TypeKey, Word>,
    glsl: Option<Word>,
    /// Module-scope variables listed in every entry point's interface.
    pub interface: Vec<Word>,
    pub builtins: HashMap<u32, Word>,
    pub push: Option<Word>,
    pub wg_size: Option<Word>,
    pub range_check: Option<Word>,
    pub options: super::options::Options,
    pub private_arena: Option<Word>,
    pub shared_arena: Option<Word>,
    /// SPIR-V function id of each PISA function, by name.
    pub func_ids: HashMap<Name, Word>,
    /// Index of each function in `program.functions`, by name (callee
    /// lookups without a search per call).
    pub function_index: FxHashMap<Name, usize>,
    /// `OpString` of each input file, for debug lines.
    pub file_ids: Vec<Word>,
    /// Some loop sets the launch's status word (docs/abi.md, loop caps).
    pub uses_status: bool,
    /// Per function (by index): emitted in SIMT mode (`spirv::simt`).
    pub simt_functions: Vec<bool>,
    /// The `Workgroup` array cross-lane instructions exchange values in.
    pub sg_exchange: Option<Word>,
    /// The invocation's `Private` flag choosing which of the exchange's two
    /// counters a work-group-wide "any active" uses next.
    pub sg_parity: Option<Word>,
    /// The same for the exchange's two sets of per-sub-group active masks.
    pub sg_mask_parity: Option<Word>,
    /// Data-block offset of the lock table of emulated global atomics
    /// (`lower::atomics`), once one needs it.
    pub global_locks: Option<u64>,
    /// The `Workgroup` lock array of emulated shared atomics, which each
    /// entry point zeroes (`lower::atomics`), once one needs it.
    pub shared_locks: Option<Word>,
    /// Checked mode: the `pisa_check_device` function, once an access
    /// needs it (`spirv::checked`).
    pub check_fn: Option<Word>,
    /// Checked mode: the work-item's first bad access, two `Private`
    /// variables (`spirv::checked`), once an access is checked.
    pub check_state: Option<[Word; 2]>,
    /// The instruction being lowered, and the first instruction that made
    /// the module declare each capability (`` `fsin.f` at k.pisa:5:2 ``,
    /// named in the runtime's "the device lacks" error). The site's text is
    /// made only when a capability is first declared.
    pub current_instruction: Option<Site>,
    pub capability_sites: Vec<(u32, String)>,
}

/// Where the instruction being lowered comes from: its form and span, or
/// the math library (then the first instruction it replaced is named).
#[derive(Debug, Clone, Copy)]
pub enum Site {
    Inst {
        form: crate::syntax::ast::FormRef,
        span: Span,
    },
    Library,
}

impl Site {
    /// `` `fsin.f` at k.pisa:5:2 ``.
    pub fn describe(self, program: &Program) -> String {
        match (self, program.library_uses.first()) {
            (Site::Library, Some((what, at))) => {
                format!("`{what}` at {}", program.source.describe(*at))
            }
            (Site::Inst { form, span }, _) => format!(
                "`{}` at {}",
                crate::ir::mnemonic_text(form),
                program.source.describe(span)
            ),
            // not made: `Library` is chosen only when the list has an entry
            (Site::Library, None) => String::new(),
        }
    }
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
            b,
            layout,
            caps: BTreeSet::new(),
            consts: FxHashMap::default(),
            nulls: FxHashMap::default(),
            types: FxHashMap::default(),
            glsl: None,
            interface: Vec::new(),
            builtins: HashMap::new(),
            push: None,
            wg_size: None,
            range_check: None,
            options: super::options::Options::default(),
            private_arena: None,
            shared_arena: None,
            func_ids: HashMap::new(),
            function_index: crate::ir::analysis::calls::function_index(program),
            file_ids,
            uses_status: false,
            simt_functions: Vec::new(),
            sg_exchange: None,
            sg_parity: None,
            sg_mask_parity: None,
            global_locks: None,
            shared_locks: None,
            check_fn: None,
            check_state: None,
            current_instruction: None,
            capability_sites: Vec::new(),
        };
        tx.cap(Capability::Shader);
        tx.cap(Capability::PhysicalStorageBufferAddresses);
        tx
    }

    /// The module's words and its layout.
    pub fn finish(mut self) -> (Vec<u32>, Layout) {
        for c in &self.caps {
            // SAFETY-free: Capability is a repr(u32) enum; from_u32 maps back.
            if let Some(cap) = Capability::from_u32(*c) {
                self.b.capability(cap);
            }
        }
        (self.b.assemble(), self.layout)
    }

    pub fn cap(&mut self, c: Capability) {
        if self.caps.insert(c as u32) {
            if let Some(site) = self.current_instruction {
                let text = site.describe(self.program);
                self.capability_sites.push((c as u32, text));
            }
        }
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
        self.cached(TypeKey::Int(bits), |b| b.type_int(bits as u32, 0))
    }

    fn cached(&mut self, key: TypeKey, make: impl FnOnce(&mut Builder) -> Word) -> Word {
        if let Some(&t) = self.types.get(&key) {
            return t;
        }
        let t = make(&mut self.b);
        self.types.insert(key, t);
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
        self.types.contains_key(&TypeKey::Float(bits))
    }

    pub fn bool_ty(&mut self) -> Word {
        self.cached(TypeKey::Bool, |b| b.type_bool())
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
        let ty = self.uint(bits);
        let v = if bits >= 64 {
            value
        } else {
            value & ((1u64 << bits) - 1)
        };
        if let Some(&id) = self.consts.get(&(ty, v)) {
            return id;
        }
        let id = if bits == 64 {
            self.b.constant_bit64(ty, v)
        } else {
            self.b.constant_bit32(ty, v as u32)
        };
        self.consts.insert((ty, v), id);
        id
    }

    pub fn const_u32(&mut self, v: u32) -> Word {
        self.const_uint(32, v as u64)
    }

    /// The zero value of any type (`OpConstantNull`).
    pub fn const_null(&mut self, t: Word) -> Word {
        if let Some(&id) = self.nulls.get(&t) {
            return id;
        }
        let id = self.b.constant_null(t);
        self.nulls.insert(t, id);
        id
    }

    pub fn const_bool(&mut self, v: bool) -> Word {
        let t = self.bool_ty();
        if let Some(&id) = self.consts.get(&(t, v as u64)) {
            return id;
        }
        let id = if v {
            self.b.constant_true(t)
        } else {
            self.b.constant_false(t)
        };
        self.consts.insert((t, v as u64), id);
        id
    }

    pub fn glsl(&mut self) -> Word {
        if let Some(g) = self.glsl {
            return g;
        }
        let g = self.b.ext_inst_import("GLSL.std.450");
        self.glsl = Some(g);
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
