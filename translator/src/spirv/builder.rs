//! The SPIR-V builder of the back end: function bodies go straight to
//! words, the module's other sections through rspirv's builder.
//!
//! rspirv's `dr::Builder` makes an `Instruction` for every instruction, with
//! a heap-allocated operand list, and keeps it until the module is
//! assembled: on a large kernel most of the translation's time and memory.
//! [`Builder`] has the same methods for the instructions of function bodies
//! (names, arguments and errors as rspirv's, so lowering code reads the same)
//! but writes each one's words at once to the end of one vector of words
//! (SPIR-V 1.5 §2.3: a function is its `OpFunction`, parameters, blocks in
//! order and `OpFunctionEnd`; blocks are only ever appended, and an
//! instruction only ever goes to the end of the block being built).
//!
//! Everything outside functions (capabilities, debug names, decorations,
//! types, constants, module-scope variables) is few instructions and goes to
//! the rspirv builder this one dereferences to. That builder never has a
//! function or block selected: a body instruction this type did not
//! implement fails there with `DetachedInstruction` instead of landing in a
//! wrong place.
//!
//! The words are those rspirv assembles for the same calls
//! (`rspirv::binary::Assemble`; the tests below compare the two builders).

use rspirv::binary::Assemble;
use rspirv::dr::{self, Error};
use rspirv::spirv::{self, Word};

type BuildResult<T> = Result<T, Error>;

/// Function bodies as words, the rest through rspirv (module doc).
pub struct Builder {
    inner: dr::Builder,
    /// Every function begun so far, assembled, in order.
    words: Vec<u32>,
    /// A function is being built.
    in_function: bool,
    /// The block being built: its label and index in its function.
    block: Option<(Word, usize)>,
    /// Blocks begun in the function being built.
    blocks: usize,
    /// Results of the instructions that get `NoContraction`, in order
    /// ([`contracts`]).
    no_contraction: Vec<Word>,
}

/// Whether the result of `op` is decorated `NoContraction` (every PISA
/// floating-point instruction rounds its own result, spec 03).
fn contracts(op: spirv::Op) -> bool {
    use rspirv::spirv::Op;
    matches!(
        op,
        Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate
    )
}

/// One instruction being written: its operands are appended, then
/// [`Inst::end`] writes its word count.
struct Inst<'a> {
    words: &'a mut Vec<u32>,
    start: usize,
}

impl Inst<'_> {
    /// Inlined so that an operand made at the call site (`IdRef(x)`) is
    /// one word pushed, with no `Operand` built, matched or dropped.
    #[inline(always)]
    fn push(&mut self, operand: dr::Operand) {
        match operand {
            // most operands: one word, written without rspirv's general
            // assembly (and without dropping a general operand)
            dr::Operand::IdRef(w) | dr::Operand::LiteralBit32(w) => self.words.push(w),
            o => self.push_general(o),
        }
    }

    #[inline(never)]
    fn push_general(&mut self, operand: dr::Operand) {
        operand.assemble_into(self.words)
    }

    fn extend(&mut self, operands: impl IntoIterator<Item = dr::Operand>) {
        for o in operands {
            self.push(o);
        }
    }

    #[inline(always)]
    fn end(self) {
        let count = (self.words.len() - self.start) as u32;
        self.words[self.start] |= count << 16;
    }
}

impl std::ops::Deref for Builder {
    type Target = dr::Builder;
    fn deref(&self) -> &dr::Builder {
        &self.inner
    }
}

impl std::ops::DerefMut for Builder {
    fn deref_mut(&mut self) -> &mut dr::Builder {
        &mut self.inner
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            inner: dr::Builder::new(),
            words: Vec::new(),
            in_function: false,
            block: None,
            blocks: 0,
            no_contraction: Vec::new(),
        }
    }

    /// Makes room for `additional` more words of function bodies at once:
    /// grown by doubling, the vector of a large module is copied several
    /// times (on a 1M-instruction module the copies and the page faults of
    /// their fresh memory were a fifth of the emit phase).
    pub fn reserve_words(&mut self, additional: usize) {
        self.words.reserve_exact(additional);
    }

    /// Starts an instruction in the block being built.
    #[inline(always)]
    fn begin_inst(
        &mut self,
        op: spirv::Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
    ) -> BuildResult<Inst<'_>> {
        if self.block.is_none() {
            return Err(Error::DetachedInstruction(None));
        }
        Ok(self.start_inst(op, result_type, result_id))
    }

    /// Starts an instruction at the end of the words, in a block or not.
    #[inline(always)]
    fn start_inst(
        &mut self,
        op: spirv::Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
    ) -> Inst<'_> {
        if contracts(op) {
            self.no_contraction.extend(result_id);
        }
        let start = self.words.len();
        self.words.push(op as u32);
        self.words.extend(result_type);
        self.words.extend(result_id);
        Inst {
            words: &mut self.words,
            start,
        }
    }

    /// Starts a block's terminator (rspirv's error outside a block).
    #[inline(always)]
    fn begin_terminator(
        &mut self,
        op: spirv::Op,
        result_type: Option<Word>,
        result_id: Option<Word>,
    ) -> BuildResult<Inst<'_>> {
        if self.block.is_none() {
            return Err(Error::MismatchedTerminator);
        }
        Ok(self.start_inst(op, result_type, result_id))
    }

    /// Ends the block being built (after its terminator).
    fn end_block(&mut self) -> BuildResult<()> {
        match self.block.take() {
            Some(_) => Ok(()),
            None => Err(Error::MismatchedTerminator),
        }
    }

    /// The index of the block being built in its function.
    pub fn selected_block(&self) -> Option<usize> {
        self.block.map(|(_, i)| i)
    }

    /// The label of the block being built.
    pub fn current_label(&self) -> Option<Word> {
        self.block.map(|(l, _)| l)
    }

    pub fn begin_function(
        &mut self,
        return_type: Word,
        function_id: Option<Word>,
        control: spirv::FunctionControl,
        function_type: Word,
    ) -> BuildResult<Word> {
        if self.in_function {
            return Err(Error::NestedFunction);
        }
        let id = function_id.unwrap_or_else(|| self.inner.id());
        let mut inst = self.start_inst(spirv::Op::Function, Some(return_type), Some(id));
        inst.push(dr::Operand::FunctionControl(control));
        inst.push(dr::Operand::IdRef(function_type));
        inst.end();
        self.in_function = true;
        self.blocks = 0;
        Ok(id)
    }

    pub fn end_function(&mut self) -> BuildResult<()> {
        if !self.in_function {
            return Err(Error::MismatchedFunctionEnd);
        }
        self.start_inst(spirv::Op::FunctionEnd, None, None).end();
        self.in_function = false;
        self.block = None;
        Ok(())
    }

    pub fn function_parameter(&mut self, result_type: Word) -> BuildResult<Word> {
        if !self.in_function {
            return Err(Error::DetachedFunctionParameter);
        }
        let id = self.inner.id();
        self.start_inst(spirv::Op::FunctionParameter, Some(result_type), Some(id))
            .end();
        Ok(id)
    }

    pub fn begin_block(&mut self, label_id: Option<Word>) -> BuildResult<Word> {
        if !self.in_function {
            return Err(Error::DetachedBlock);
        }
        if self.block.is_some() {
            return Err(Error::NestedBlock);
        }
        let id = label_id.unwrap_or_else(|| self.inner.id());
        self.start_inst(spirv::Op::Label, None, Some(id)).end();
        self.block = Some((id, self.blocks));
        self.blocks += 1;
        Ok(id)
    }

    /// `OpLine` in the block being built, or at module scope outside one
    /// (as rspirv's).
    pub fn line(&mut self, file: Word, line: u32, column: u32) {
        if self.block.is_none() {
            return self.inner.line(file, line, column);
        }
        // one per PISA instruction: its four words at once
        self.words
            .extend_from_slice(&[4 << 16 | spirv::Op::Line as u32, file, line, column]);
    }

    /// `OpVariable` in the block being built, or at module scope outside
    /// one (as rspirv's).
    pub fn variable(
        &mut self,
        result_type: Word,
        result_id: Option<Word>,
        storage_class: spirv::StorageClass,
        initializer: Option<Word>,
    ) -> Word {
        if self.block.is_none() {
            return self
                .inner
                .variable(result_type, result_id, storage_class, initializer);
        }
        let id = result_id.unwrap_or_else(|| self.inner.id());
        let mut inst = self.start_inst(spirv::Op::Variable, Some(result_type), Some(id));
        inst.push(dr::Operand::StorageClass(storage_class));
        inst.extend(initializer.map(dr::Operand::IdRef));
        inst.end();
        id
    }

    /// `OpUndef` in the block being built, or at module scope outside one
    /// (as rspirv's).
    pub fn undef(&mut self, result_type: Word, result_id: Option<Word>) -> Word {
        if self.block.is_none() {
            return self.inner.undef(result_type, result_id);
        }
        let id = result_id.unwrap_or_else(|| self.inner.id());
        self.start_inst(spirv::Op::Undef, Some(result_type), Some(id))
            .end();
        id
    }

    pub fn ext_inst(
        &mut self,
        result_type: Word,
        result_id: Option<Word>,
        extension_set: Word,
        instruction: Word,
        operands: impl IntoIterator<Item = dr::Operand>,
    ) -> BuildResult<Word> {
        let id = result_id.unwrap_or_else(|| self.inner.id());
        let mut inst = self.begin_inst(spirv::Op::ExtInst, Some(result_type), Some(id))?;
        inst.push(dr::Operand::IdRef(extension_set));
        inst.push(dr::Operand::LiteralExtInstInteger(instruction));
        inst.extend(operands);
        inst.end();
        Ok(id)
    }

    /// The whole module's words: rspirv's header and sections before the
    /// functions, then the functions. `NoContraction` decorations are
    /// added first (spec 03: no driver may fuse what the module keeps
    /// apart; `fmad` uses `Fma` explicitly).
    pub fn assemble(mut self) -> Vec<u32> {
        for id in std::mem::take(&mut self.no_contraction) {
            self.inner
                .decorate(id, spirv::Decoration::NoContraction, []);
        }
        let module = self.inner.module();
        let mut head = Vec::new();
        if let Some(h) = &module.header {
            h.assemble_into(&mut head);
        }
        for inst in module.global_inst_iter() {
            inst.assemble_into(&mut head);
        }
        drop(module);
        // the functions' words become the module's: no second copy of them
        let mut words = self.words;
        words.reserve_exact(head.len());
        words.splice(0..0, head);
        words
    }
    pub fn function_call(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        function: spirv::Word,
        argument_0_argument_1: impl IntoIterator<Item = spirv::Word>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FunctionCall, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(function));
        inst.extend(argument_0_argument_1.into_iter().map(dr::Operand::IdRef));
        inst.end();
        Ok(_id)
    }
    pub fn load(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory_access: Option<spirv::MemoryAccess>,
        additional_params: impl IntoIterator<Item = dr::Operand>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::Load, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        if let Some(v) = memory_access {
            inst.push(dr::Operand::MemoryAccess(v));
        }
        inst.extend(additional_params);
        inst.end();
        Ok(_id)
    }
    pub fn store(
        &mut self,
        pointer: spirv::Word,
        object: spirv::Word,
        memory_access: Option<spirv::MemoryAccess>,
        additional_params: impl IntoIterator<Item = dr::Operand>,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::Store, None, None)?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdRef(object));
        if let Some(v) = memory_access {
            inst.push(dr::Operand::MemoryAccess(v));
        }
        inst.extend(additional_params);
        inst.end();
        Ok(())
    }
    pub fn access_chain(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        indexes: impl IntoIterator<Item = spirv::Word>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AccessChain, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.extend(indexes.into_iter().map(dr::Operand::IdRef));
        inst.end();
        Ok(_id)
    }
    pub fn composite_construct(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        constituents: impl IntoIterator<Item = spirv::Word>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::CompositeConstruct, Some(result_type), Some(_id))?;
        inst.extend(constituents.into_iter().map(dr::Operand::IdRef));
        inst.end();
        Ok(_id)
    }
    pub fn composite_extract(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        composite: spirv::Word,
        indexes: impl IntoIterator<Item = u32>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::CompositeExtract, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(composite));
        inst.extend(indexes.into_iter().map(dr::Operand::LiteralBit32));
        inst.end();
        Ok(_id)
    }
    pub fn convert_f_to_u(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        float_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ConvertFToU, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(float_value));
        inst.end();
        Ok(_id)
    }
    pub fn convert_f_to_s(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        float_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ConvertFToS, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(float_value));
        inst.end();
        Ok(_id)
    }
    pub fn convert_s_to_f(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        signed_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ConvertSToF, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(signed_value));
        inst.end();
        Ok(_id)
    }
    pub fn convert_u_to_f(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        unsigned_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ConvertUToF, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(unsigned_value));
        inst.end();
        Ok(_id)
    }
    pub fn u_convert(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        unsigned_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::UConvert, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(unsigned_value));
        inst.end();
        Ok(_id)
    }
    pub fn s_convert(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        signed_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SConvert, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(signed_value));
        inst.end();
        Ok(_id)
    }
    pub fn f_convert(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        float_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FConvert, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(float_value));
        inst.end();
        Ok(_id)
    }
    pub fn convert_u_to_ptr(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        integer_value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ConvertUToPtr, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(integer_value));
        inst.end();
        Ok(_id)
    }
    pub fn bitcast(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::Bitcast, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand));
        inst.end();
        Ok(_id)
    }
    pub fn s_negate(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SNegate, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand));
        inst.end();
        Ok(_id)
    }
    pub fn f_negate(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FNegate, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand));
        inst.end();
        Ok(_id)
    }
    pub fn i_add(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IAdd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_add(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FAdd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn i_sub(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ISub, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_sub(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FSub, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn i_mul(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IMul, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_mul(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FMul, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_div(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::UDiv, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_div(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SDiv, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_div(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FDiv, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_mod(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::UMod, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_rem(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SRem, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn i_add_carry(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IAddCarry, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn all(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        vector: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::All, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(vector));
        inst.end();
        Ok(_id)
    }
    pub fn is_nan(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        x: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IsNan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(x));
        inst.end();
        Ok(_id)
    }
    pub fn is_inf(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        x: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IsInf, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(x));
        inst.end();
        Ok(_id)
    }
    pub fn logical_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::LogicalEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn logical_not_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::LogicalNotEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn logical_or(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::LogicalOr, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn logical_and(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::LogicalAnd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn logical_not(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::LogicalNot, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand));
        inst.end();
        Ok(_id)
    }
    pub fn select(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        condition: spirv::Word,
        object_1: spirv::Word,
        object_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::Select, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(condition));
        inst.push(dr::Operand::IdRef(object_1));
        inst.push(dr::Operand::IdRef(object_2));
        inst.end();
        Ok(_id)
    }
    pub fn i_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::IEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn i_not_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::INotEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_greater_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::UGreaterThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_greater_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SGreaterThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_greater_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::UGreaterThanEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_greater_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::SGreaterThanEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_less_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ULessThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_less_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SLessThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn u_less_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::ULessThanEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn s_less_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::SLessThanEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FOrdEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_not_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FOrdNotEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_unord_not_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FUnordNotEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_less_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FOrdLessThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_greater_than(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::FOrdGreaterThan, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_less_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::FOrdLessThanEqual, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn f_ord_greater_than_equal(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(
            spirv::Op::FOrdGreaterThanEqual,
            Some(result_type),
            Some(_id),
        )?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn shift_right_logical(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        shift: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::ShiftRightLogical, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(shift));
        inst.end();
        Ok(_id)
    }
    pub fn shift_right_arithmetic(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        shift: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(
            spirv::Op::ShiftRightArithmetic,
            Some(result_type),
            Some(_id),
        )?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(shift));
        inst.end();
        Ok(_id)
    }
    pub fn shift_left_logical(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        shift: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::ShiftLeftLogical, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(shift));
        inst.end();
        Ok(_id)
    }
    pub fn bitwise_or(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitwiseOr, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn bitwise_xor(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitwiseXor, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn bitwise_and(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand_1: spirv::Word,
        operand_2: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitwiseAnd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand_1));
        inst.push(dr::Operand::IdRef(operand_2));
        inst.end();
        Ok(_id)
    }
    pub fn not(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        operand: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::Not, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(operand));
        inst.end();
        Ok(_id)
    }
    pub fn bit_field_insert(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        insert: spirv::Word,
        offset: spirv::Word,
        count: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitFieldInsert, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(insert));
        inst.push(dr::Operand::IdRef(offset));
        inst.push(dr::Operand::IdRef(count));
        inst.end();
        Ok(_id)
    }

    pub fn bit_field_s_extract(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        offset: spirv::Word,
        count: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::BitFieldSExtract, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(offset));
        inst.push(dr::Operand::IdRef(count));
        inst.end();
        Ok(_id)
    }
    pub fn bit_field_u_extract(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
        offset: spirv::Word,
        count: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::BitFieldUExtract, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.push(dr::Operand::IdRef(offset));
        inst.push(dr::Operand::IdRef(count));
        inst.end();
        Ok(_id)
    }
    pub fn bit_reverse(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitReverse, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.end();
        Ok(_id)
    }
    pub fn bit_count(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        base: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::BitCount, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(base));
        inst.end();
        Ok(_id)
    }
    pub fn control_barrier(
        &mut self,
        execution: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::ControlBarrier, None, None)?;
        inst.push(dr::Operand::IdScope(execution));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.end();
        Ok(())
    }
    pub fn memory_barrier(
        &mut self,
        memory: spirv::Word,
        semantics: spirv::Word,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::MemoryBarrier, None, None)?;
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.end();
        Ok(())
    }
    pub fn atomic_load(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicLoad, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_store(
        &mut self,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::AtomicStore, None, None)?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(())
    }
    pub fn atomic_exchange(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicExchange, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    // rspirv's signature, kept so the lowering reads the same
    #[allow(clippy::too_many_arguments)]
    pub fn atomic_compare_exchange(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        equal: spirv::Word,
        unequal: spirv::Word,
        value: spirv::Word,
        comparator: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(
            spirv::Op::AtomicCompareExchange,
            Some(result_type),
            Some(_id),
        )?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(equal));
        inst.push(dr::Operand::IdMemorySemantics(unequal));
        inst.push(dr::Operand::IdRef(value));
        inst.push(dr::Operand::IdRef(comparator));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_i_increment(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::AtomicIIncrement, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_i_decrement(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst =
            self.begin_inst(spirv::Op::AtomicIDecrement, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_i_add(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicIAdd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_i_sub(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicISub, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_s_min(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicSMin, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_u_min(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicUMin, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_s_max(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicSMax, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_u_max(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicUMax, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_and(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicAnd, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_or(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicOr, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn atomic_xor(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        pointer: spirv::Word,
        memory: spirv::Word,
        semantics: spirv::Word,
        value: spirv::Word,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::AtomicXor, Some(result_type), Some(_id))?;
        inst.push(dr::Operand::IdRef(pointer));
        inst.push(dr::Operand::IdScope(memory));
        inst.push(dr::Operand::IdMemorySemantics(semantics));
        inst.push(dr::Operand::IdRef(value));
        inst.end();
        Ok(_id)
    }
    pub fn phi(
        &mut self,
        result_type: spirv::Word,
        result_id: Option<spirv::Word>,
        variable_parent: impl IntoIterator<Item = (spirv::Word, spirv::Word)>,
    ) -> BuildResult<spirv::Word> {
        let _id = result_id.unwrap_or_else(|| self.id());
        let mut inst = self.begin_inst(spirv::Op::Phi, Some(result_type), Some(_id))?;
        for v in variable_parent {
            inst.push(dr::Operand::IdRef(v.0));
            inst.push(dr::Operand::IdRef(v.1));
        }
        inst.end();
        Ok(_id)
    }
    pub fn loop_merge(
        &mut self,
        merge_block: spirv::Word,
        continue_target: spirv::Word,
        loop_control: spirv::LoopControl,
        additional_params: impl IntoIterator<Item = dr::Operand>,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::LoopMerge, None, None)?;
        inst.push(dr::Operand::IdRef(merge_block));
        inst.push(dr::Operand::IdRef(continue_target));
        inst.push(dr::Operand::LoopControl(loop_control));
        inst.extend(additional_params);
        inst.end();
        Ok(())
    }
    pub fn selection_merge(
        &mut self,
        merge_block: spirv::Word,
        selection_control: spirv::SelectionControl,
    ) -> BuildResult<()> {
        let mut inst = self.begin_inst(spirv::Op::SelectionMerge, None, None)?;
        inst.push(dr::Operand::IdRef(merge_block));
        inst.push(dr::Operand::SelectionControl(selection_control));
        inst.end();
        Ok(())
    }
    pub fn branch(&mut self, target_label: spirv::Word) -> BuildResult<()> {
        let mut inst = self.begin_terminator(spirv::Op::Branch, None, None)?;
        inst.push(dr::Operand::IdRef(target_label));
        {
            inst.end();
            self.end_block()
        }
    }
    pub fn branch_conditional(
        &mut self,
        condition: spirv::Word,
        true_label: spirv::Word,
        false_label: spirv::Word,
        branch_weights: impl IntoIterator<Item = u32>,
    ) -> BuildResult<()> {
        let mut inst = self.begin_terminator(spirv::Op::BranchConditional, None, None)?;
        inst.push(dr::Operand::IdRef(condition));
        inst.push(dr::Operand::IdRef(true_label));
        inst.push(dr::Operand::IdRef(false_label));
        inst.extend(branch_weights.into_iter().map(dr::Operand::LiteralBit32));
        {
            inst.end();
            self.end_block()
        }
    }
    pub fn switch(
        &mut self,
        selector: spirv::Word,
        default: spirv::Word,
        target: impl IntoIterator<Item = (dr::Operand, spirv::Word)>,
    ) -> BuildResult<()> {
        let mut inst = self.begin_terminator(spirv::Op::Switch, None, None)?;
        inst.push(dr::Operand::IdRef(selector));
        inst.push(dr::Operand::IdRef(default));
        for v in target {
            inst.push(v.0);
            inst.push(dr::Operand::IdRef(v.1));
        }
        {
            inst.end();
            self.end_block()
        }
    }
    pub fn ret(&mut self) -> BuildResult<()> {
        let inst = self.begin_terminator(spirv::Op::Return, None, None)?;
        {
            inst.end();
            self.end_block()
        }
    }
    pub fn ret_value(&mut self, value: spirv::Word) -> BuildResult<()> {
        let mut inst = self.begin_terminator(spirv::Op::ReturnValue, None, None)?;
        inst.push(dr::Operand::IdRef(value));
        {
            inst.end();
            self.end_block()
        }
    }
    pub fn unreachable(&mut self) -> BuildResult<()> {
        let inst = self.begin_terminator(spirv::Op::Unreachable, None, None)?;
        {
            inst.end();
            self.end_block()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Builder;
    use rspirv::binary::Assemble;
    use rspirv::dr::{self, Operand};
    use rspirv::spirv::{self, Word};

    /// The calls the lowering makes, on either builder (rspirv's and this
    /// one have the same methods; this one dereferences to rspirv's for
    /// the module's other sections).
    macro_rules! program {
        ($b:expr) => {{
            let b = $b;
            b.set_version(1, 5);
            b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
            let file = b.string("k.pisa");
            let u32t = b.type_int(32, 0);
            let f32t = b.type_float(32, None);
            let bt = b.type_bool();
            let void = b.type_void();
            let fty = b.type_function(u32t, [u32t]);
            let vty = b.type_function(void, []);
            let pt = b.type_pointer(None, spirv::StorageClass::Function, u32t);
            let one = b.constant_bit32(u32t, 1);
            let glsl = b.ext_inst_import("GLSL.std.450");
            // outside a block: at module scope, as rspirv's
            b.line(file, 1, 1);
            let f = b
                .begin_function(u32t, None, spirv::FunctionControl::NONE, fty)
                .unwrap();
            let x = b.function_parameter(u32t).unwrap();
            let entry = b.begin_block(None).unwrap();
            let v = b.variable(pt, None, spirv::StorageClass::Function, Some(one));
            b.line(file, 3, 7);
            let l = b.load(u32t, None, v, None, []).unwrap();
            let s = b.i_add(u32t, None, l, x).unwrap();
            let fl = b.bitcast(f32t, None, s).unwrap();
            let fs = b.f_add(f32t, None, fl, fl).unwrap();
            let fm = b.f_mul(f32t, None, fs, fl).unwrap();
            let fa = b
                .ext_inst(f32t, None, glsl, 4, [Operand::IdRef(fm)])
                .unwrap();
            let back = b.bitcast(u32t, None, fa).unwrap();
            b.store(
                v,
                back,
                Some(spirv::MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )
            .unwrap();
            let c = b.u_less_than(bt, None, back, one).unwrap();
            let (then, merge) = (b.id(), b.id());
            b.selection_merge(merge, spirv::SelectionControl::NONE)
                .unwrap();
            b.branch_conditional(c, then, merge, []).unwrap();
            b.begin_block(Some(then)).unwrap();
            let e = b.composite_extract(u32t, None, back, [0]).unwrap();
            b.branch(merge).unwrap();
            b.begin_block(Some(merge)).unwrap();
            let p = b.phi(u32t, None, [(e, then), (back, entry)]).unwrap();
            let (a, z) = (b.id(), b.id());
            b.switch(p, z, [(Operand::LiteralBit32(3), a)]).unwrap();
            b.begin_block(Some(a)).unwrap();
            b.ret_value(p).unwrap();
            b.begin_block(Some(z)).unwrap();
            b.unreachable().unwrap();
            b.end_function().unwrap();
            let k = b
                .begin_function(void, None, spirv::FunctionControl::NONE, vty)
                .unwrap();
            b.begin_block(None).unwrap();
            let n = b.f_negate(f32t, None, fl).unwrap();
            b.ret().unwrap();
            b.end_function().unwrap();
            b.entry_point(spirv::ExecutionModel::GLCompute, k, "k", []);
            b.name(f, "f");
            (fs, fm, n)
        }};
    }

    /// The words are rspirv's for the same calls, `NoContraction` on the
    /// float arithmetic included.
    #[test]
    fn words_are_rspirvs() {
        let mut ours = Builder::new();
        program!(&mut ours);
        let mut theirs = dr::Builder::new();
        let (fs, fm, n) = program!(&mut theirs);
        for id in [fs, fm, n] {
            theirs.decorate(id, spirv::Decoration::NoContraction, []);
        }
        let expected: Vec<Word> = theirs.module().assemble();
        assert_eq!(ours.assemble(), expected);
    }

    /// Body instructions outside a block or function fail as rspirv's do.
    #[test]
    fn misplaced_instructions_are_errors() {
        let mut b = Builder::new();
        let u32t = b.type_int(32, 0);
        assert!(matches!(
            b.i_add(u32t, None, 1, 2),
            Err(dr::Error::DetachedInstruction(_))
        ));
        assert!(matches!(b.begin_block(None), Err(dr::Error::DetachedBlock)));
        assert!(matches!(
            b.end_function(),
            Err(dr::Error::MismatchedFunctionEnd)
        ));
        assert!(matches!(b.branch(3), Err(dr::Error::MismatchedTerminator)));
        let fty = b.type_function(u32t, []);
        b.begin_function(u32t, None, spirv::FunctionControl::NONE, fty)
            .unwrap();
        b.begin_block(None).unwrap();
        assert!(matches!(b.begin_block(None), Err(dr::Error::NestedBlock)));
        b.ret().unwrap();
        assert!(b.current_label().is_none());
        assert!(matches!(b.ret(), Err(dr::Error::MismatchedTerminator)));
    }
}
