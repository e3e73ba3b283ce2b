//! Helpers shared by the integer lowering files (`arithmetic`, `logical`):
//! packed operands (`.16bx2`, `.8bx4`) element by element, and signed
//! saturation (`.dsat`).

use super::common::R;
use crate::ir::Operand;
use crate::spirv::function::{FunctionCx, Reg};
use rspirv::spirv::Word;

impl FunctionCx<'_, '_> {
    /// Lowers a packed `.hfx2`/`.bfx2`/`.16bx2` instruction as its scalar
    /// form once per 16-bit lane: `each` runs with [`FunctionCx::lane`] set,
    /// so the operands' 16-bit reads and writes take that lane. `false`
    /// (not lowered) as soon as a lane is not.
    pub fn per_lane(&mut self, mut each: impl FnMut(&mut Self) -> R<bool>) -> R<bool> {
        for lane in 0..2 {
            self.lane = Some(lane);
            let done = each(self);
            self.lane = None;
            if !done? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The packed register `op` declared `.v{n}.{bits}b`, if it is one.
    fn packed_reg(&self, op: &Operand, n: u8, bits: u16) -> Option<(Word, crate::ir::Ty)> {
        match op {
            Operand::Reg(r) if r.swizzle.is_none() => match self.reg(r.reg) {
                Some(Reg::Val { ptr, ty }) if ty.count == n && ty.bits == bits => Some((ptr, ty)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The `n` elements (`bits` wide each, element 0 first) of a packed
    /// operand. Anything other than a `.v{n}.{bits}b` register is read as one
    /// `n * bits`-wide value whose element 0 is the low bits.
    pub fn read_packed(&mut self, op: &Operand, n: u8, bits: u16) -> R<Vec<Word>> {
        let t = self.tx.uint(bits);
        if let Some((ptr, ty)) = self.packed_reg(op, n, bits) {
            let mut out = Vec::with_capacity(n as usize);
            for i in 0..n {
                let p = self.elem_ptr(ptr, ty, i);
                out.push(self.tx.b.load(t, None, p, None, [])?);
            }
            return Ok(out);
        }
        let total = n as u16 * bits;
        let tt = self.tx.uint(total);
        let v = self.read(op, total)?;
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n as u16 {
            let e = if i == 0 {
                v
            } else {
                let sh = self.tx.const_uint(total, (i * bits) as u64);
                self.tx.b.shift_right_logical(tt, None, v, sh)?
            };
            out.push(self.resize(e, total, bits, false)?);
        }
        Ok(out)
    }

    /// Writes the elements of a packed result into its `.v{n}.{bits}b`
    /// destination register (the validator admits no other destination of a
    /// packed form: `packed-operand`, `swizzle`).
    pub fn write_packed(&mut self, op: &Operand, elems: &[Word], bits: u16) -> R<()> {
        let n = elems.len() as u8;
        let Some((ptr, ty)) = self.packed_reg(op, n, bits) else {
            return Err(crate::spirv::error::TranslateError::Internal(format!(
                "the destination of a packed result is not a .v{n}.{bits}b register"
            )));
        };
        for (i, &e) in elems.iter().enumerate() {
            let p = self.elem_ptr(ptr, ty, i as u8);
            self.tx.b.store(p, e, None, [])?;
        }
        Ok(())
    }

    /// `a + b` (or `a - b`) on `bits`-wide two's-complement values, clamped
    /// to the signed range of `bits` instead of wrapping.
    pub fn sat_add(&mut self, a: Word, b: Word, bits: u16, sub: bool) -> R<Word> {
        let t = self.tx.uint(bits);
        let bt = self.tx.bool_ty();
        let zero = self.tx.const_uint(bits, 0);
        let (r, ovf_bits) = if sub {
            // overflow iff the operands' signs differ and the result's sign
            // differs from a's
            let r = self.tx.b.i_sub(t, None, a, b)?;
            let x = self.tx.b.bitwise_xor(t, None, a, b)?;
            let y = self.tx.b.bitwise_xor(t, None, a, r)?;
            (r, self.tx.b.bitwise_and(t, None, x, y)?)
        } else {
            // overflow iff the result's sign differs from both operands'
            let r = self.tx.b.i_add(t, None, a, b)?;
            let x = self.tx.b.bitwise_xor(t, None, a, r)?;
            let y = self.tx.b.bitwise_xor(t, None, b, r)?;
            (r, self.tx.b.bitwise_and(t, None, x, y)?)
        };
        let ovf = self.tx.b.s_less_than(bt, None, ovf_bits, zero)?;
        // on overflow the exact result has a's sign: MIN if a < 0, else MAX
        let top = self.tx.const_uint(bits, bits as u64 - 1);
        let sign = self.tx.b.shift_right_arithmetic(t, None, a, top)?;
        let max = self.tx.const_uint(bits, (1u64 << (bits - 1)) - 1);
        let sat = self.tx.b.bitwise_xor(t, None, sign, max)?;
        Ok(self.tx.b.select(t, None, ovf, sat, r)?)
    }
}
