//! Logic, shift and bit-field instructions (spec chapter 14). Operations
//! SPIR-V leaves undefined for some inputs (shifts by the width or more,
//! bit-field ranges past the MSB) get their arguments clamped to the spec's
//! meaning first.

use super::common::{Ins, R};
use crate::ir::qualifier::Dir;
use crate::ir::Opcode;
use crate::ir::Operand;
use crate::ir::Role;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{GlslStd450Op as G, Word};

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let Some(ty) = ins.i.quals.ty else {
        return Ok(false);
    };
    if ty.lanes() > 1 {
        return packed(fx, ins, ty.lanes(), ty.element_bits());
    }
    let bits = ty.bits();
    let t = fx.tx.uint(bits);
    let u32t = fx.tx.uint(32);
    let v = match ins.i.opcode {
        Opcode::And | Opcode::Or | Opcode::Xor => {
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            match ins.i.opcode {
                Opcode::And => fx.tx.b.bitwise_and(t, None, a, b)?,
                Opcode::Or => fx.tx.b.bitwise_or(t, None, a, b)?,
                _ => fx.tx.b.bitwise_xor(t, None, a, b)?,
            }
        }
        Opcode::Not => {
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            fx.tx.b.not(t, None, a)?
        }
        Opcode::Shl | Opcode::Shr | Opcode::Asr => {
            // shift = src1[5:0]
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            match ins.opr(Role::Src1)? {
                // an immediate amount (the common case): its value is known
                Operand::Int(l, _) => shift_by(fx, ins.i.opcode, a, (l.value & 63) as u16, bits)?,
                src1 => {
                    let n = fx.read(src1, 32)?;
                    let m63 = fx.tx.const_u32(63);
                    let n = fx.tx.b.bitwise_and(u32t, None, n, m63)?;
                    shift(fx, ins.i.opcode, a, n, bits)?
                }
            }
        }
        Opcode::Shf => {
            // (src0:src1 as a 64-bit value, src0 high) shifted by src2[4:0];
            // .l keeps the high word, .r the low one. Each half's shift is
            // split in two so that no shift amount reaches 32.
            let hi = fx.read(ins.opr(Role::Src0)?, 32)?;
            let lo = fx.read(ins.opr(Role::Src1)?, 32)?;
            let s = fx.read(ins.opr(Role::Src2)?, 32)?;
            let m31 = fx.tx.const_u32(31);
            let one = fx.tx.const_u32(1);
            let s = fx.tx.b.bitwise_and(u32t, None, s, m31)?;
            let rs = fx.tx.b.i_sub(u32t, None, m31, s)?; // 31 - s
            let b_ = &mut fx.tx.b;
            if ins.i.quals.dir == Some(Dir::L) {
                // (hi << s) | (lo >> (32 - s)), and just hi when s == 0
                let x = b_.shift_left_logical(u32t, None, hi, s)?;
                let y = b_.shift_right_logical(u32t, None, lo, one)?;
                let y = b_.shift_right_logical(u32t, None, y, rs)?;
                b_.bitwise_or(u32t, None, x, y)?
            } else {
                // (lo >> s) | (hi << (32 - s)), and just lo when s == 0
                let x = b_.shift_right_logical(u32t, None, lo, s)?;
                let y = b_.shift_left_logical(u32t, None, hi, one)?;
                let y = b_.shift_left_logical(u32t, None, y, rs)?;
                b_.bitwise_or(u32t, None, x, y)?
            }
        }
        Opcode::Ubfe | Opcode::Sbfe => {
            // offset = src2[4:0]; count = min(src1[5:0], 32 - offset):
            // OpBitField*Extract is then defined and matches the spec
            // (count 0 gives 0)
            let a = fx.read(ins.opr(Role::Src0)?, 32)?;
            let w = fx.read(ins.opr(Role::Src1)?, 32)?;
            let o = fx.read(ins.opr(Role::Src2)?, 32)?;
            let (off, count) = bit_range(fx, w, o)?;
            if ins.i.opcode == Opcode::Ubfe {
                fx.tx.b.bit_field_u_extract(u32t, None, a, off, count)?
            } else {
                fx.tx.b.bit_field_s_extract(u32t, None, a, off, count)?
            }
        }
        Opcode::Bfi => {
            // offset = src3[4:0]; count = min(src2[5:0], 32 - offset)
            let base = fx.read(ins.opr(Role::Src0)?, 32)?;
            let insert = fx.read(ins.opr(Role::Src1)?, 32)?;
            let w = fx.read(ins.opr(Role::Src2)?, 32)?;
            let o = fx.read(ins.opr(Role::Src3)?, 32)?;
            let (off, count) = bit_range(fx, w, o)?;
            fx.tx
                .b
                .bit_field_insert(u32t, None, base, insert, off, count)?
        }
        Opcode::Bfn => {
            let table = ins.i.quals.operation.unwrap_or(0xaa);
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let b = fx.read(ins.opr(Role::Src1)?, bits)?;
            let c = fx.read(ins.opr(Role::Src2)?, bits)?;
            bfn(fx, table, [a, b, c], bits)?
        }
        Opcode::Bfrev => {
            // OpBitReverse takes 32-bit values only (Vulkan)
            let a = fx.read(ins.opr(Role::Src0)?, 32)?;
            let r = fx.tx.b.bit_reverse(u32t, None, a)?;
            if bits == 32 {
                r
            } else {
                let sh = fx.tx.const_u32(32 - bits as u32);
                let r = fx.tx.b.shift_right_logical(u32t, None, r, sh)?;
                fx.resize(r, 32, bits, false)?
            }
        }
        Opcode::Cbit | Opcode::Fbh | Opcode::Fbl => {
            // 16-bit values are zero-extended: OpBitCount and the GLSL bit
            // searches take 32-bit values only (Vulkan)
            let a = fx.read(ins.opr(Role::Src0)?, bits)?;
            let a = fx.resize(a, bits, 32, false)?;
            let r = match ins.i.opcode {
                Opcode::Cbit => fx.tx.b.bit_count(u32t, None, a)?,
                // FindILsb(0) is -1: ~0, which is the spec's result for 0
                Opcode::Fbl => fx.tx.glsl_op(u32t, G::FindILsb, &[a])?,
                _ => {
                    // bits - 1 - (index of the MSB); ~0 for 0
                    let msb = fx.tx.glsl_op(u32t, G::FindUMsb, &[a])?;
                    let top = fx.tx.const_u32(bits as u32 - 1);
                    let d = fx.tx.b.i_sub(u32t, None, top, msb)?;
                    let bt = fx.tx.bool_ty();
                    let zero = fx.tx.const_u32(0);
                    let ones = fx.tx.const_u32(u32::MAX);
                    let z = fx.tx.b.i_equal(bt, None, a, zero)?;
                    fx.tx.b.select(u32t, None, z, ones, d)?
                }
            };
            fx.resize(r, 32, bits, false)?
        }
        _ => return Ok(false),
    };
    fx.write(ins.opr(Role::Dst)?, v, bits)?;
    Ok(true)
}

/// `a` (`bits` wide) shifted by `n` (a 32-bit amount below 64): amounts of
/// at least the width give 0 (or the sign for `asr`) instead of SPIR-V's
/// undefined result.
fn shift(fx: &mut FunctionCx, op: Opcode, a: Word, n: Word, bits: u16) -> R<Word> {
    let t = fx.tx.uint(bits);
    let u32t = fx.tx.uint(32);
    let maxs = fx.tx.const_u32(bits as u32 - 1);
    let clamped = fx.tx.glsl_op(u32t, G::UMin, &[n, maxs])?;
    let sh = fx.resize(clamped, 32, bits, false)?;
    let shifted = match op {
        Opcode::Shl => fx.tx.b.shift_left_logical(t, None, a, sh)?,
        Opcode::Shr => fx.tx.b.shift_right_logical(t, None, a, sh)?,
        _ => fx.tx.b.shift_right_arithmetic(t, None, a, sh)?,
    };
    Ok(if op == Opcode::Asr {
        shifted
    } else {
        let bt = fx.tx.bool_ty();
        let big = fx.tx.b.u_greater_than(bt, None, n, maxs)?;
        let zero = fx.tx.const_uint(bits, 0);
        fx.tx.b.select(t, None, big, zero, shifted)?
    })
}

/// [`shift`] by an amount known at translation time (`n`, already
/// `src1[5:0]`): one shift, or nothing for 0; for `shl` and `shr` by the
/// width or more the constant 0, for `asr` a shift by `bits - 1` (the sign).
/// (The general form's mask, clamp, compare and select would all fold to
/// this: five instructions fewer per shift by an immediate.)
fn shift_by(fx: &mut FunctionCx, op: Opcode, a: Word, n: u16, bits: u16) -> R<Word> {
    if op != Opcode::Asr && n >= bits {
        return Ok(fx.tx.const_uint(bits, 0));
    }
    let n = n.min(bits - 1);
    if n == 0 {
        return Ok(a);
    }
    let t = fx.tx.uint(bits);
    let sh = fx.tx.const_uint(bits, n.into());
    Ok(match op {
        Opcode::Shl => fx.tx.b.shift_left_logical(t, None, a, sh)?,
        Opcode::Shr => fx.tx.b.shift_right_logical(t, None, a, sh)?,
        _ => fx.tx.b.shift_right_arithmetic(t, None, a, sh)?,
    })
}

/// Offset `o[4:0]` and count `min(w[5:0], 32 - offset)` of a 32-bit
/// bit-field operation: the spec's clamping, which is also what keeps
/// `offset + count <= 32` as SPIR-V requires.
fn bit_range(fx: &mut FunctionCx, w: Word, o: Word) -> R<(Word, Word)> {
    let u32t = fx.tx.uint(32);
    let m31 = fx.tx.const_u32(31);
    let m63 = fx.tx.const_u32(63);
    let c32 = fx.tx.const_u32(32);
    let off = fx.tx.b.bitwise_and(u32t, None, o, m31)?;
    let w = fx.tx.b.bitwise_and(u32t, None, w, m63)?;
    let room = fx.tx.b.i_sub(u32t, None, c32, off)?;
    let count = fx.tx.glsl_op(u32t, G::UMin, &[w, room])?;
    Ok((off, count))
}

/// `bfn`: bit `i` of `table` is the result for the input bits
/// `src0 | src1 << 1 | src2 << 2 == i` (so src0 alone is 0xaa, src1 0xcc,
/// src2 0xf0). Built as the OR of the table's minterms, or the complement of
/// the OR of the missing ones when that is shorter.
fn bfn(fx: &mut FunctionCx, table: u8, src: [Word; 3], bits: u16) -> R<Word> {
    let t = fx.tx.uint(bits);
    let invert = table.count_ones() > 4;
    let want = if invert { !table } else { table };
    let mut not: [Option<Word>; 3] = [None; 3];
    let mut acc: Option<Word> = None;
    for i in 0..8u8 {
        if want & (1 << i) == 0 {
            continue;
        }
        let mut term: Option<Word> = None;
        for (k, &s) in src.iter().enumerate() {
            let lit = if i & (1 << k) != 0 {
                s
            } else {
                match not[k] {
                    Some(n) => n,
                    None => {
                        let n = fx.tx.b.not(t, None, s)?;
                        not[k] = Some(n);
                        n
                    }
                }
            };
            term = Some(match term {
                None => lit,
                Some(x) => fx.tx.b.bitwise_and(t, None, x, lit)?,
            });
        }
        let term = term.unwrap_or(src[0]);
        acc = Some(match acc {
            None => term,
            Some(x) => fx.tx.b.bitwise_or(t, None, x, term)?,
        });
    }
    // want is never 0 (the operations 0x00 and 0xff are invalid); should it
    // be, the result is the constant it denotes
    let v = match acc {
        Some(v) => v,
        None => return Ok(fx.tx.const_uint(bits, if invert { u64::MAX } else { 0 })),
    };
    Ok(if invert { fx.tx.b.not(t, None, v)? } else { v })
}

/// Packed shifts (`.16bx2`): element `i` is shifted by
/// `src1[16*i + 5 : 16*i]` (shiftl = src1[5:0], shifth = src1[21:16]).
fn packed(fx: &mut FunctionCx, ins: &Ins, n: u8, bits: u16) -> R<bool> {
    if !matches!(ins.i.opcode, Opcode::Shl | Opcode::Shr | Opcode::Asr) {
        return Ok(false);
    }
    let u32t = fx.tx.uint(32);
    let a = fx.read_packed(ins.opr(Role::Src0)?, n, bits)?;
    let amounts = fx.read(ins.opr(Role::Src1)?, 32)?;
    let m63 = fx.tx.const_u32(63);
    let mut out = Vec::with_capacity(n as usize);
    for (i, &e) in a.iter().enumerate() {
        let s = if i == 0 {
            amounts
        } else {
            let sh = fx.tx.const_u32(i as u32 * bits as u32);
            fx.tx.b.shift_right_logical(u32t, None, amounts, sh)?
        };
        let s = fx.tx.b.bitwise_and(u32t, None, s, m63)?;
        out.push(shift(fx, ins.i.opcode, e, s, bits)?);
    }
    fx.write_packed(ins.opr(Role::Dst)?, &out, bits)?;
    Ok(true)
}
