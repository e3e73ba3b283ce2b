//! Address spaces (docs/abi.md): `.global`/`.const` through 64-bit physical
//! storage buffer addresses; `.private` and `.shared` as byte-addressed arenas
//! of 32-bit words with 32-bit addresses, so pointers into them can be
//! computed, stored and passed around, and sub-word accesses read back what
//! was written.

use super::error::TranslateError;
use super::error::R;
use super::function::{FunctionCx, Reg};
use crate::abi::Push;
use crate::abi::MODULE_SCOPE;
use crate::ir::qualifier::Addrspace;
use crate::ir::*;
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{self, MemoryAccess, StorageClass, Word};

/// Where an address operand points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mem {
    /// 64-bit device address (`.global`, `.const`).
    Device,
    Private,
    Shared,
    /// A 64-bit generic address (docs/abi.md): the space is found at run time.
    Generic,
}

pub use crate::abi::{GENERIC_PRIVATE_TAG, GENERIC_SHARED_TAG};

impl FunctionCx<'_, '_> {
    fn arena(&mut self, mem: Mem) -> Word {
        let (slot, bytes, sc, name) = match mem {
            Mem::Private => (
                self.tx.interface.private_arena,
                self.tx.layout.private_bytes,
                StorageClass::Private,
                "pisa_private",
            ),
            _ => (
                self.tx.interface.shared_arena,
                self.tx.layout.shared_bytes,
                StorageClass::Workgroup,
                "pisa_shared",
            ),
        };
        if let Some(a) = slot {
            return a;
        }
        // checked mode sends bad accesses past the variables (its sink)
        let bytes = if self.tx.options.checked_memory {
            super::checked::arena_bytes_checked(bytes)
        } else {
            bytes
        };
        let u32t = self.tx.uint(32);
        let n = self.tx.const_u32(bytes.div_ceil(4).max(1));
        let arr = self.tx.b.type_array(u32t, n);
        let pt = self.tx.ptr(sc, arr);
        let v = self.tx.global_var(pt, sc);
        self.tx.b.name(v, name);
        self.tx.interface.push(v);
        if mem == Mem::Private {
            self.tx.interface.private_arena = Some(v);
        } else {
            self.tx.interface.shared_arena = Some(v);
        }
        v
    }

    /// The address of a memory variable: 64-bit for the data block, 32-bit
    /// offsets into the private/shared arenas.
    pub fn var_address(&mut self, name: Name, span: crate::diag::Span) -> R<(Word, Mem)> {
        let l = &self.tx.layout;
        let key = (self.func.index, name);
        if let Some(&off) = l.private.get(&key) {
            return Ok((self.tx.const_u32(off), Mem::Private));
        }
        if let Some(&off) = l.shared.get(&key) {
            return Ok((self.tx.const_u32(off), Mem::Shared));
        }
        let off = l
            .data_offsets
            .get(&key)
            .or_else(|| l.data_offsets.get(&(MODULE_SCOPE, name)))
            .copied();
        match off {
            Some(off) => {
                let base = self.tx.push_addr(Push::DataBase)?;
                let u64t = self.tx.uint(64);
                let c = self.tx.const_uint(64, off);
                Ok((self.tx.b.i_add(u64t, None, base, c)?, Mem::Device))
            }
            None => Err(self.unsupported(
                span,
                format!("address of `@{}`", self.tx.program.name(name)),
            )),
        }
    }

    /// The address of a memory variable taken as a value (`addrof`,
    /// `addrcast`), hidden from llvmpipe's uniformity walk where it is the
    /// data block's (`ModuleCx::hide_from_uniformity`): a kernel may compute
    /// with it.
    pub fn var_address_value(&mut self, name: Name, span: crate::diag::Span) -> R<Word> {
        match self.var_address(name, span)? {
            (v, Mem::Device) => self.tx.hide_from_uniformity(v, 64),
            (v, _) => Ok(v),
        }
    }

    /// Computes an address operand. `space` is the instruction's address
    /// space qualifier (`None` for generic).
    pub fn address(&mut self, a: &AddrOperand, space: Option<Addrspace>) -> R<(Word, Mem)> {
        let mem = match space {
            Some(Addrspace::Private) => Mem::Private,
            Some(Addrspace::Shared) => Mem::Shared,
            Some(Addrspace::Global | Addrspace::Const) => Mem::Device,
            _ => Mem::Generic,
        };
        let bits = if matches!(mem, Mem::Device | Mem::Generic) {
            64
        } else {
            32
        };
        let base = match &a.base {
            AddrBase::Var(n, s) => self.var_address(*n, *s)?.0,
            AddrBase::Reg(r) => self.read(&Operand::Reg(*r), bits)?,
            AddrBase::Special(r) => self.read(&Operand::Special(*r), bits)?,
            AddrBase::Imm(l, _) => self.tx.const_uint(bits, l.value),
        };
        let t = self.tx.uint(bits);
        let addr = match &a.offset {
            None => base,
            Some(AddrOffset::Imm(v, _)) => {
                let c = self.tx.const_uint(bits, *v as u64);
                self.tx.b.i_add(t, None, base, c)?
            }
            Some(AddrOffset::Reg(r)) => {
                let have = match self.reg(r.reg) {
                    Some(Reg::Val { ty, .. }) => ty.bits,
                    _ => 32,
                };
                let v = self.read(&Operand::Reg(*r), have)?;
                // offsets are signed
                let v = self.resize(v, have, bits, true)?;
                self.tx.b.i_add(t, None, base, v)?
            }
            Some(AddrOffset::Special(r)) => {
                let v = self.read(&Operand::Special(*r), bits)?;
                self.tx.b.i_add(t, None, base, v)?
            }
        };
        Ok((addr, mem))
    }

    /// Loads `bits` (8..128) from an address.
    pub fn load(&mut self, addr: Word, mem: Mem, bits: u16) -> R<Word> {
        match mem {
            Mem::Device => self.load_device(addr, bits),
            Mem::Generic => self.generic(addr, bits, None),
            _ => self.load_arena(addr, mem, bits),
        }
    }

    pub fn store(&mut self, addr: Word, mem: Mem, v: Word, bits: u16) -> R<()> {
        match mem {
            Mem::Device => self.store_device(addr, v, bits),
            Mem::Generic => self.generic(addr, bits, Some(v)).map(|_| ()),
            _ => self.store_arena(addr, mem, v, bits),
        }
    }

    /// A load (`store` is `None`) or store through a generic address: a
    /// selection on the address's tag, with the loaded value merged by a phi.
    fn generic(&mut self, addr: Word, bits: u16, store: Option<Word>) -> R<Word> {
        let u64t = self.tx.uint(64);
        let sh = self.tx.const_uint(64, 48);
        let tag = self.tx.b.shift_right_logical(u64t, None, addr, sh)?;
        let tag = self.resize(tag, 64, 32, false)?;
        let low = self.resize(addr, 64, 32, false)?;
        let (dev, shared, private, merge) = (
            self.tx.b.id(),
            self.tx.b.id(),
            self.tx.b.id(),
            self.tx.b.id(),
        );
        self.tx
            .b
            .selection_merge(merge, rspirv::spirv::SelectionControl::NONE)?;
        self.tx.b.switch(
            tag,
            dev,
            [
                (SOp::LiteralBit32(GENERIC_SHARED_TAG as u32), shared),
                (SOp::LiteralBit32(GENERIC_PRIVATE_TAG as u32), private),
            ],
        )?;
        let mut incoming = Vec::new();
        for (label, mem, a) in [
            (dev, Mem::Device, addr),
            (shared, Mem::Shared, low),
            (private, Mem::Private, low),
        ] {
            self.tx.b.begin_block(Some(label))?;
            match store {
                Some(v) => self.store(a, mem, v, bits)?,
                None => {
                    let v = self.load(a, mem, bits)?;
                    // the block the value comes from (loads may add blocks)
                    let from = self.tx.b.current_label().unwrap_or(label);
                    incoming.push((v, from));
                }
            }
            self.tx.b.branch(merge)?;
        }
        self.tx.b.begin_block(Some(merge))?;
        match store {
            Some(v) => Ok(v),
            None => {
                let t = self.tx.uint(bits);
                Ok(self.tx.b.phi(t, None, incoming)?)
            }
        }
    }

    /// A specific-space address as a generic one, and back (`addrcast`):
    /// arena null (0xFFFFFFFF) and generic null (0) correspond.
    pub fn generic_address(&mut self, v: Word, mem: Mem) -> R<Word> {
        let tag = match mem {
            Mem::Shared => GENERIC_SHARED_TAG,
            Mem::Private => GENERIC_PRIVATE_TAG,
            _ => return Ok(v),
        };
        let u64t = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let null = self.tx.const_u32(u32::MAX);
        let is_null = self.tx.b.i_equal(bt, None, v, null)?;
        let wide = self.resize(v, 32, 64, false)?;
        let t = self.tx.const_uint(64, tag << 48);
        let g = self.tx.b.bitwise_or(u64t, None, wide, t)?;
        let zero = self.tx.const_uint(64, 0);
        Ok(self.tx.b.select(u64t, None, is_null, zero, g)?)
    }

    pub fn specific_address(&mut self, g: Word, mem: Mem) -> R<Word> {
        if !matches!(mem, Mem::Shared | Mem::Private) {
            return Ok(g);
        }
        let u32t = self.tx.uint(32);
        let bt = self.tx.bool_ty();
        let zero = self.tx.const_uint(64, 0);
        let is_null = self.tx.b.i_equal(bt, None, g, zero)?;
        let low = self.resize(g, 64, 32, false)?;
        let null = self.tx.const_u32(u32::MAX);
        Ok(self.tx.b.select(u32t, None, is_null, null, low)?)
    }

    /// `isaddr`: whether a generic address is in `mem`'s space.
    pub fn generic_is(&mut self, g: Word, mem: Mem) -> R<Word> {
        let u64t = self.tx.uint(64);
        let bt = self.tx.bool_ty();
        let sh = self.tx.const_uint(64, 48);
        let tag = self.tx.b.shift_right_logical(u64t, None, g, sh)?;
        let eq = |fx: &mut Self, t: u64| -> R<Word> {
            let c = fx.tx.const_uint(64, t);
            Ok(fx.tx.b.i_equal(bt, None, tag, c)?)
        };
        Ok(match mem {
            Mem::Shared => eq(self, GENERIC_SHARED_TAG)?,
            Mem::Private => eq(self, GENERIC_PRIVATE_TAG)?,
            _ => {
                let s = eq(self, GENERIC_SHARED_TAG)?;
                let p = eq(self, GENERIC_PRIVATE_TAG)?;
                let either = self.tx.b.logical_or(bt, None, s, p)?;
                self.tx.b.logical_not(bt, None, either)?
            }
        })
    }

    pub fn device_ptr(&mut self, addr: Word, bits: u16) -> R<Word> {
        match bits {
            8 => self.tx.cap(spirv::Capability::StorageBuffer8BitAccess),
            16 => self.tx.cap(spirv::Capability::StorageBuffer16BitAccess),
            _ => {}
        }
        let t = self.tx.uint(bits);
        let pt = self.tx.ptr(StorageClass::PhysicalStorageBuffer, t);
        Ok(self.tx.b.convert_u_to_ptr(pt, None, addr)?)
    }

    fn load_device(&mut self, addr: Word, bits: u16) -> R<Word> {
        if bits == 128 {
            let lo = self.load_device(addr, 64)?;
            let hi_a = self.offset64(addr, 8)?;
            let hi = self.load_device(hi_a, 64)?;
            let t = self.tx.uint(128);
            return Ok(self.tx.b.composite_construct(t, None, [lo, hi])?);
        }
        if bits < 32 && !self.narrow_storage(bits) {
            // the containing word, shifted down (`spirv::narrow`)
            let (p, sh) = self.device_word(addr)?;
            let u32t = self.tx.uint(32);
            let w = self.tx.b.load(
                u32t,
                None,
                p,
                Some(MemoryAccess::ALIGNED),
                [SOp::LiteralBit32(4)],
            )?;
            let v = self.tx.b.shift_right_logical(u32t, None, w, sh)?;
            return self.resize(v, 32, bits, false);
        }
        let p = self.device_ptr(addr, bits)?;
        let t = self.tx.uint(bits);
        Ok(self.tx.b.load(
            t,
            None,
            p,
            Some(MemoryAccess::ALIGNED),
            [SOp::LiteralBit32(bits as u32 / 8)],
        )?)
    }

    fn store_device(&mut self, addr: Word, v: Word, bits: u16) -> R<()> {
        if bits == 128 {
            let u64t = self.tx.uint(64);
            let lo = self.tx.b.composite_extract(u64t, None, v, [0])?;
            let hi = self.tx.b.composite_extract(u64t, None, v, [1])?;
            self.store_device(addr, lo, 64)?;
            let hi_a = self.offset64(addr, 8)?;
            return self.store_device(hi_a, hi, 64);
        }
        if bits < 32 && !self.narrow_storage(bits) {
            // clear and set the value's bits of the containing word
            // atomically: another work-item may write the word's other
            // bytes at the same time (`spirv::narrow`)
            let (p, sh) = self.device_word(addr)?;
            let u32t = self.tx.uint(32);
            let wide = self.resize(v, bits, 32, false)?;
            let val = self.tx.b.shift_left_logical(u32t, None, wide, sh)?;
            let m = self.tx.const_u32(if bits == 8 { 0xFF } else { 0xFFFF });
            let mask = self.tx.b.shift_left_logical(u32t, None, m, sh)?;
            let keep = self.tx.b.not(u32t, None, mask)?;
            let scope = self.tx.const_u32(spirv::Scope::Device as u32);
            let sem = self.tx.const_u32(0);
            self.tx.b.atomic_and(u32t, None, p, scope, sem, keep)?;
            self.tx.b.atomic_or(u32t, None, p, scope, sem, val)?;
            return Ok(());
        }
        let p = self.device_ptr(addr, bits)?;
        self.tx.b.store(
            p,
            v,
            Some(MemoryAccess::ALIGNED),
            [SOp::LiteralBit32(bits as u32 / 8)],
        )?;
        Ok(())
    }

    /// Whether `bits` (8 or 16) are loaded and stored in global memory as
    /// such: the device has both the integer type and the storage access
    /// of that width (`Options::narrow_storage`).
    fn narrow_storage(&self, bits: u16) -> bool {
        let i = usize::from(bits == 16);
        let o = &self.tx.options;
        o.narrow_integers[i] && o.narrow_storage[i]
    }

    /// The 32-bit word of device memory that holds the byte at `addr`,
    /// and the bit offset of that byte in it.
    fn device_word(&mut self, addr: Word) -> R<(Word, Word)> {
        let u64t = self.tx.uint(64);
        let mask = self.tx.const_uint(64, !3);
        let base = self.tx.b.bitwise_and(u64t, None, addr, mask)?;
        let p = self.device_ptr(base, 32)?;
        let low = self.resize(addr, 64, 32, false)?;
        Ok((p, self.sub_shift(low)?))
    }

    pub fn offset64(&mut self, addr: Word, by: u64) -> R<Word> {
        let t = self.tx.uint(64);
        let c = self.tx.const_uint(64, by);
        Ok(self.tx.b.i_add(t, None, addr, c)?)
    }

    pub fn offset_addr(&mut self, addr: Word, mem: Mem, by: u64) -> R<Word> {
        if matches!(mem, Mem::Device | Mem::Generic) {
            return self.offset64(addr, by);
        }
        let t = self.tx.uint(32);
        let c = self.tx.const_u32(by as u32);
        Ok(self.tx.b.i_add(t, None, addr, c)?)
    }

    pub fn word_ptr(&mut self, addr: Word, mem: Mem, extra_words: u32) -> R<Word> {
        let arena = self.arena(mem);
        let u32t = self.tx.uint(32);
        let two = self.tx.const_u32(2);
        let mut idx = self.tx.b.shift_right_logical(u32t, None, addr, two)?;
        if extra_words > 0 {
            let c = self.tx.const_u32(extra_words);
            idx = self.tx.b.i_add(u32t, None, idx, c)?;
        }
        let sc = if mem == Mem::Private {
            StorageClass::Private
        } else {
            StorageClass::Workgroup
        };
        let pt = self.tx.ptr(sc, u32t);
        Ok(self.tx.b.access_chain(pt, None, arena, [idx])?)
    }

    /// Bit offset of a sub-word access inside its word.
    pub fn sub_shift(&mut self, addr: Word) -> R<Word> {
        let u32t = self.tx.uint(32);
        let three = self.tx.const_u32(3);
        let low = self.tx.b.bitwise_and(u32t, None, addr, three)?;
        Ok(self.tx.b.shift_left_logical(u32t, None, low, three)?)
    }

    fn load_arena(&mut self, addr: Word, mem: Mem, bits: u16) -> R<Word> {
        let u32t = self.tx.uint(32);
        match bits {
            8 | 16 => {
                let p = self.word_ptr(addr, mem, 0)?;
                let w = self.tx.b.load(u32t, None, p, None, [])?;
                let sh = self.sub_shift(addr)?;
                let v = self.tx.b.shift_right_logical(u32t, None, w, sh)?;
                self.resize(v, 32, bits, false)
            }
            32 => {
                let p = self.word_ptr(addr, mem, 0)?;
                Ok(self.tx.b.load(u32t, None, p, None, [])?)
            }
            64 => {
                let p0 = self.word_ptr(addr, mem, 0)?;
                let p1 = self.word_ptr(addr, mem, 1)?;
                let lo = self.tx.b.load(u32t, None, p0, None, [])?;
                let hi = self.tx.b.load(u32t, None, p1, None, [])?;
                let uv2 = self.tx.vec(u32t, 2);
                let v = self.tx.b.composite_construct(uv2, None, [lo, hi])?;
                let u64t = self.tx.uint(64);
                Ok(self.tx.b.bitcast(u64t, None, v)?)
            }
            _ => {
                let lo = self.load_arena(addr, mem, 64)?;
                let a8 = self.offset_addr(addr, mem, 8)?;
                let hi = self.load_arena(a8, mem, 64)?;
                let t = self.tx.uint(128);
                Ok(self.tx.b.composite_construct(t, None, [lo, hi])?)
            }
        }
    }

    fn store_arena(&mut self, addr: Word, mem: Mem, v: Word, bits: u16) -> R<()> {
        let u32t = self.tx.uint(32);
        match bits {
            8 | 16 => {
                let p = self.word_ptr(addr, mem, 0)?;
                let sh = self.sub_shift(addr)?;
                let wide = self.resize(v, bits, 32, false)?;
                let val = self.tx.b.shift_left_logical(u32t, None, wide, sh)?;
                let m = self.tx.const_u32(if bits == 8 { 0xFF } else { 0xFFFF });
                let mask = self.tx.b.shift_left_logical(u32t, None, m, sh)?;
                let keep = self.tx.b.not(u32t, None, mask)?;
                if mem == Mem::Shared {
                    // other work-items may write the other bytes of this word:
                    // clear and set atomically
                    let scope = self.tx.const_u32(spirv::Scope::Workgroup as u32);
                    let sem = self.tx.const_u32(0);
                    self.tx.b.atomic_and(u32t, None, p, scope, sem, keep)?;
                    self.tx.b.atomic_or(u32t, None, p, scope, sem, val)?;
                } else {
                    let w = self.tx.b.load(u32t, None, p, None, [])?;
                    let kept = self.tx.b.bitwise_and(u32t, None, w, keep)?;
                    let nw = self.tx.b.bitwise_or(u32t, None, kept, val)?;
                    self.tx.b.store(p, nw, None, [])?;
                }
            }
            32 => {
                let p = self.word_ptr(addr, mem, 0)?;
                self.tx.b.store(p, v, None, [])?;
            }
            64 => {
                let uv2 = self.tx.vec(u32t, 2);
                let pair = self.tx.b.bitcast(uv2, None, v)?;
                for i in 0..2u32 {
                    let w = self.tx.b.composite_extract(u32t, None, pair, [i])?;
                    let p = self.word_ptr(addr, mem, i)?;
                    self.tx.b.store(p, w, None, [])?;
                }
            }
            _ => {
                let u64t = self.tx.uint(64);
                for i in 0..2u32 {
                    let h = self.tx.b.composite_extract(u64t, None, v, [i])?;
                    let a = self.offset_addr(addr, mem, 8 * i as u64)?;
                    self.store_arena(a, mem, h, 64)?;
                }
            }
        }
        Ok(())
    }

    /// Loads from a kernel parameter: `[%param + off]` in the argument block.
    pub fn param_address(&mut self, a: &AddrOperand) -> R<Word> {
        let AddrBase::Reg(r) = &a.base else {
            return Err(TranslateError::Internal(
                "ld.param of something other than a parameter".into(),
            ));
        };
        let off = self
            .param_offset(r.reg)
            .ok_or_else(|| TranslateError::Internal("ld.param of a non-parameter".into()))?;
        let base = self.tx.push_addr(Push::Params)?;
        let mut addr = self.offset64(base, off as u64)?;
        match &a.offset {
            None => {}
            Some(AddrOffset::Imm(v, _)) => addr = self.offset64(addr, *v as u64)?,
            Some(AddrOffset::Reg(r)) => {
                let v = self.read(&Operand::Reg(*r), 32)?;
                let v = self.resize(v, 32, 64, true)?;
                let t = self.tx.uint(64);
                addr = self.tx.b.i_add(t, None, addr, v)?;
            }
            Some(AddrOffset::Special(r)) => {
                let v = self.read(&Operand::Special(*r), 32)?;
                let v = self.resize(v, 32, 64, true)?;
                let t = self.tx.uint(64);
                addr = self.tx.b.i_add(t, None, addr, v)?;
            }
        }
        Ok(addr)
    }
}
