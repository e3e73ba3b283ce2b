//! Integer arithmetic (spec 12), logic and shifts (14), integer comparison
//! and selection (16): each instruction's pseudo-code, on `u64` bit patterns
//! of the instruction's width, element by element for packed types.

use super::{mask, set, sext, Exec, Item, X};
use crate::decode::{flag, Op};
use pisa_translator::ir::qualifier::Cop;
use pisa_translator::ir::Opcode;

/// Clamps a mathematically exact result to the signed range of `bits`
/// (`.dsat` of integer instructions).
fn saturate_signed(v: i128, bits: u32) -> u64 {
    let max = (1i128 << (bits - 1)) - 1;
    let min = -(1i128 << (bits - 1));
    (v.clamp(min, max) as u64) & mask(bits)
}

/// Applies `f` to each lane of packed operands (a scalar is one lane).
fn lanes(a: u64, b: u64, c: u64, n: u32, bits: u32, f: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let mut out = 0u64;
    for i in 0..n {
        let sh = i * bits;
        let m = mask(bits);
        out |= (f((a >> sh) & m, (b >> sh) & m, (c >> sh) & m) & m) << sh;
    }
    out
}

pub fn compare(cop: Cop, a: u64, b: u64, bits: u32, signed: bool) -> bool {
    let ord = if signed {
        sext(a, bits).cmp(&sext(b, bits))
    } else {
        a.cmp(&b)
    };
    use std::cmp::Ordering::*;
    match cop {
        Cop::Eq => ord == Equal,
        Cop::Ne => ord != Equal,
        Cop::Gt => ord == Greater,
        Cop::Ge => ord != Less,
        Cop::Lt => ord == Less,
        Cop::Le => ord != Greater,
    }
}

/// `bfn`: the operation byte is the truth table of the function, indexed
/// by (src2, src1, src0) bits (0xF0, 0xCC, 0xAA are src2, src1, src0; 14 §3.4).
pub fn bfn(table: u32, a: u64, b: u64, c: u64) -> u64 {
    let mut out = 0u64;
    for minterm in 0..8u32 {
        if table >> minterm & 1 == 1 {
            let pick = |bit: u32, v: u64| if minterm >> bit & 1 == 1 { v } else { !v };
            out |= pick(0, a) & pick(1, b) & pick(2, c);
        }
    }
    out & 0xFFFF_FFFF
}

/// `ubfe`/`sbfe` (14 §3.11, §3.15).
pub fn bfe(src: u64, width: u64, offset: u64, signed: bool) -> u64 {
    let bits = 32u64;
    let offset = offset & 31;
    let width = (width & 63).min(bits);
    let lastpos = (offset + width).min(bits);
    let width = lastpos - offset;
    if width == 0 {
        return 0;
    }
    let shifted = (src << (bits - lastpos)) & 0xFFFF_FFFF;
    if signed {
        ((sext(shifted, 32) >> (bits - width)) as u64) & 0xFFFF_FFFF
    } else {
        shifted >> (bits - width)
    }
}

/// `bfi` (14 §3.3).
pub fn bfi(base: u64, insert: u64, width: u64, offset: u64) -> u64 {
    let bits = 32u64;
    let offset = offset & 31;
    let width = (width & 63).min(bits).min(bits - offset);
    let mask_w = if width < bits {
        (1u64 << width) - 1
    } else {
        0xFFFF_FFFF
    };
    let m = (mask_w << offset) & 0xFFFF_FFFF;
    (base & !m | (insert << offset) & m) & 0xFFFF_FFFF
}

impl Exec<'_> {
    pub(super) fn integer(&mut self, item: &mut Item, opcode: Opcode, op: &Op) -> X<()> {
        use Opcode::*;
        let ty = op.q.ty.unwrap_or_default();
        let (n, bits) = (ty.lanes as u32, ty.bits as u32);
        let total = n * bits;
        let o = &op.ops;
        let src = |k: usize| self.get(item, &o[k], total.max(1));
        let dsat = op.q.has(flag::DSAT);
        let v: u64 = match opcode {
            Iadd | Isub => {
                let sub = opcode == Isub;
                lanes(src(1), src(2), 0, n, bits, |a, b, _| {
                    if dsat {
                        let (a, b) = (sext(a, bits) as i128, sext(b, bits) as i128);
                        saturate_signed(if sub { a - b } else { a + b }, bits)
                    } else if sub {
                        a.wrapping_sub(b)
                    } else {
                        a.wrapping_add(b)
                    }
                })
            }
            Ineg => 0u64.wrapping_sub(src(1)),
            Iabs => sext(src(1), bits).unsigned_abs(),
            Smax | Smin | Umax | Umin => {
                let signed = matches!(opcode, Smax | Smin);
                let max = matches!(opcode, Smax | Umax);
                lanes(src(1), src(2), 0, n, bits, |a, b, _| {
                    let a_gt_b = compare(Cop::Gt, a, b, bits, signed);
                    let a_lt_b = compare(Cop::Lt, a, b, bits, signed);
                    if (max && a_gt_b) || (!max && a_lt_b) {
                        a
                    } else {
                        b
                    }
                })
            }
            Smul | Umul | Smad | Umad => {
                let signed = matches!(opcode, Smul | Smad);
                let mad = matches!(opcode, Smad | Umad);
                if op.q.has(flag::FULL) {
                    // widening: the product of the sign/zero-extended sources
                    let ext = |v: u64| {
                        if signed {
                            sext(v, bits) as i128
                        } else {
                            v as i128
                        }
                    };
                    let p = ext(src(1)) * ext(src(2));
                    let c = if mad {
                        self.get(item, &o[3], 2 * bits) as i128
                    } else {
                        0
                    };
                    (p.wrapping_add(c) as u64) & mask(2 * bits)
                } else {
                    let c = if mad { src(3) } else { 0 };
                    lanes(src(1), src(2), c, n, bits, |a, b, c| {
                        a.wrapping_mul(b).wrapping_add(c)
                    })
                }
            }
            Sdiv | Udiv => {
                let (a, b) = (src(1), src(2));
                if b == 0 {
                    return Err(self.trap(op, "integer division by zero (undefined, 12 §1.6)"));
                }
                let rem = op.q.has(flag::REM);
                if opcode == Sdiv {
                    let (a, b) = (sext(a, bits) as i128, sext(b, bits) as i128);
                    // i128: INT_MIN / -1 wraps like the hardware's division
                    (if rem { a % b } else { a / b }) as u64
                } else if rem {
                    a % b
                } else {
                    a / b
                }
            }
            Uaddc => return self.uaddc(item, op),
            Dp4a => {
                let s1 = op.q.imm & 1 != 0;
                let s2 = op.q.imm & 2 != 0;
                let (a, b, c) = (src(1), src(2), src(3));
                let byte = |v: u64, i: u32, s: bool| {
                    let x = (v >> (8 * i)) & 0xFF;
                    if s {
                        sext(x, 8) as i128
                    } else {
                        x as i128
                    }
                };
                let dot: i128 = (0..4).map(|i| byte(b, i, s1) * byte(c, i, s2)).sum();
                let acc = if dsat { sext(a, 32) as i128 } else { a as i128 };
                let sum = acc + dot;
                if dsat {
                    saturate_signed(sum, 32)
                } else {
                    sum as u64
                }
            }
            And => src(1) & src(2),
            Or => src(1) | src(2),
            Xor => src(1) ^ src(2),
            Not => !src(1),
            Shl | Shr | Asr => {
                let s = self.get(item, &o[2], 32);
                let a = src(1);
                if n == 2 {
                    // .16bx2: the low lane shifts by src1[5:0], the high by src1[21:16]
                    let lo = shift(opcode, a & 0xFFFF, s & 63, 16);
                    let hi = shift(opcode, (a >> 16) & 0xFFFF, (s >> 16) & 63, 16);
                    lo | hi << 16
                } else {
                    shift(opcode, a, s & 63, bits)
                }
            }
            Shf => {
                let num = (src(1) << 32) | src(2);
                let s = self.get(item, &o[3], 32) & 31;
                if op.q.has(flag::RIGHT) {
                    num >> s
                } else {
                    (num << s) >> 32
                }
            }
            Bfi => bfi(src(1), src(2), src(3), src(4)),
            Bfn => bfn(op.q.imm, src(1), src(2), src(3)),
            Bfrev => (src(1) as u32).reverse_bits() as u64,
            Cbit => src(1).count_ones() as u64,
            Fbh | Fbl => {
                let a = src(1);
                if a == 0 {
                    !0
                } else if opcode == Fbh {
                    (a.leading_zeros() - (64 - bits)) as u64
                } else {
                    a.trailing_zeros() as u64
                }
            }
            Ubfe | Sbfe => bfe(src(1), src(2), src(3), opcode == Sbfe),
            Scmp | Ucmp => {
                let cop = op.q.cop.unwrap_or(Cop::Eq);
                let signed = opcode == Scmp;
                let (a, b) = (src(1), src(2));
                if n == 2 {
                    lanes(a, b, 0, 2, 16, |x, y, _| {
                        if compare(cop, x, y, 16, signed) {
                            0xFFFF
                        } else {
                            0
                        }
                    })
                } else {
                    let r = compare(cop, a, b, bits, signed);
                    return self.set_cmp(item, &o[0], r);
                }
            }
            Sel => {
                let c = match &o[3] {
                    p @ crate::decode::Opnd::Pred { .. } => self.get_pred(item, p),
                    r => self.get(item, r, total) != 0,
                };
                if c {
                    src(1)
                } else {
                    src(2)
                }
            }
            _ => unreachable!("not an integer instruction"),
        };
        set(item, &o[0], v & mask(dst_bits(opcode, op, total)));
        Ok(())
    }

    /// A comparison result: a predicate, or `~0`/`0` in a 32-bit register.
    pub(super) fn set_cmp(&self, item: &mut Item, dst: &crate::decode::Opnd, r: bool) -> X<()> {
        match dst {
            crate::decode::Opnd::Pred { .. } => set(item, dst, r as u64),
            _ => set(item, dst, if r { 0xFFFF_FFFF } else { 0 }),
        }
        Ok(())
    }

    fn uaddc(&mut self, item: &mut Item, op: &Op) -> X<()> {
        let o = &op.ops;
        let co = op.q.has(flag::CO);
        let ci = op.q.has(flag::CI);
        // dst, [carry-out,] src0, src1 [, carry-in]
        let s = if co { 2 } else { 1 };
        let a = self.get(item, &o[s], 32);
        let b = self.get(item, &o[s + 1], 32);
        let c = if ci {
            self.get_pred(item, &o[s + 2]) as u64
        } else {
            0
        };
        let sum = a + b + c;
        set(item, &o[0], sum & 0xFFFF_FFFF);
        if co {
            set(item, &o[1], (sum >> 32) & 1);
        }
        Ok(())
    }
}

/// The width of an integer instruction's result.
fn dst_bits(opcode: Opcode, op: &Op, total: u32) -> u32 {
    match opcode {
        Opcode::Smul | Opcode::Umul | Opcode::Smad | Opcode::Umad if op.q.has(flag::FULL) => {
            2 * total
        }
        Opcode::Scmp | Opcode::Ucmp => 32,
        _ => total,
    }
}

/// Shifts of `bits`-wide values by 0..63 (14 §3.2, §3.12, §3.13): a shift by
/// the width or more gives 0 (or all sign bits for `asr`).
fn shift(opcode: Opcode, a: u64, s: u64, bits: u32) -> u64 {
    let m = mask(bits);
    match opcode {
        Opcode::Shl => {
            if s >= bits as u64 {
                0
            } else {
                (a << s) & m
            }
        }
        Opcode::Shr => {
            if s >= bits as u64 {
                0
            } else {
                (a & m) >> s
            }
        }
        _ => {
            let v = sext(a, bits);
            let s = s.min(63);
            ((v >> s) as u64) & m
        }
    }
}
