//! Memory instructions (spec 19): `ld`, `st`, `ld.param`, `iatom`, `fatom`,
//! with the address arithmetic of 07 §3.3 and the checks of
//! [`crate::memory`]. One work-item runs at a time, so every access is
//! atomic; the memory order and scope qualifiers need no further work.
//! Atomics through a generic address that reaches `.private` memory are
//! undefined (19 §8.1–§8.5 notes: it "must point to either `.global` or
//! `.shared`") and stop the launch (docs/spec-notes.md).

use super::{mask, set, set128, set_bytes, sext, Exec, Item, MAX_VALUE_BYTES, X};
use crate::decode::{flag, Addr, AddrBaseD, Op, Opnd};
use crate::float::{self, BinOp, FloatMode, FloatTy};
use crate::memory::{arena_range, check_align, resolve_generic, Fault, Space};
use pisa_translator::ir::qualifier::{Addrspace, Op as AtomOp};
use pisa_translator::ir::Opcode;

impl Exec<'_> {
    /// The address an address operand names, in the instruction's width.
    fn address(&self, item: &Item, a: &Addr) -> u64 {
        let base = match &a.base {
            AddrBaseD::Param(off) => *off as u64,
            AddrBaseD::Opnd(o) => self.get(item, o, a.bits as u32),
        };
        let off = match &a.offset {
            None => 0,
            Some((o @ Opnd::Reg { bytes, .. }, true)) => {
                let w = (*bytes as u32 * 8).min(64);
                sext(self.get(item, o, w), w) as u64
            }
            Some((o, _)) => self.get(item, o, 64),
        };
        base.wrapping_add(off) & mask(a.bits as u32)
    }

    /// The space an instruction's address is in, and the address within it.
    fn locate(&self, space: Option<Addrspace>, addr: u64) -> (Space, u64) {
        match space {
            Some(Addrspace::Shared) => (Space::Shared, addr),
            Some(Addrspace::Private) => (Space::Private, addr),
            Some(Addrspace::Global | Addrspace::Const) => (Space::Device, addr),
            Some(Addrspace::Generic) | None => resolve_generic(addr),
        }
    }

    /// [`Self::locate`] for an atomic access: a generic address must not
    /// reach `.private` memory (19 §8.1–§8.5 notes).
    fn locate_atomic(&self, op: &Op, addr: u64) -> X<(Space, u64)> {
        let (space, at) = self.locate(op.q.space, addr);
        if space == Space::Private && op.q.space != Some(Addrspace::Private) {
            return Err(self.trap(
                op,
                format!(
                    "atomic access through generic address {addr:#x}, which points to .private memory \
                     (a generic atomic must point to .global or .shared)"
                ),
            ));
        }
        Ok((space, at))
    }

    fn read_mem(&self, item: &Item, space: Space, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let n = out.len();
        match space {
            Space::Device => self.mem.read(addr, out),
            Space::Shared => {
                let at = arena_range(space, self.shared.len(), addr, n)?;
                out.copy_from_slice(&self.shared[at..at + n]);
                Ok(())
            }
            Space::Private => {
                let at = arena_range(space, item.private.len(), addr, n)?;
                out.copy_from_slice(&item.private[at..at + n]);
                Ok(())
            }
        }
    }

    fn write_mem(
        &mut self,
        item: &mut Item,
        space: Space,
        addr: u64,
        data: &[u8],
    ) -> Result<(), Fault> {
        let n = data.len();
        match space {
            Space::Device => self.mem.write(addr, data),
            Space::Shared => {
                let at = arena_range(space, self.shared.len(), addr, n)?;
                self.shared[at..at + n].copy_from_slice(data);
                Ok(())
            }
            Space::Private => {
                let at = arena_range(space, item.private.len(), addr, n)?;
                item.private[at..at + n].copy_from_slice(data);
                Ok(())
            }
        }
    }

    pub(super) fn memory(&mut self, item: &mut Item, opcode: Opcode, op: &Op) -> X<()> {
        let q = &op.q;
        let ty = q.ty.unwrap_or_default();
        let eb = (ty.bits as usize / 8).max(1);
        let count = q.vec.max(1) as usize;
        let n = eb * count;
        // 09 §5.1: aligned to the type's width; below 32 bits, to the whole access
        let align = if ty.bits < 32 { n } else { eb } as u64;
        let o = &op.ops;
        match opcode {
            Opcode::LdParam => {
                let Opnd::Addr(a) = &o[1] else {
                    return Err(self.trap(op, "address operand expected"));
                };
                let at = self.address(item, a) as usize;
                let Some(bytes) = at.checked_add(n).and_then(|end| self.args.get(at..end)) else {
                    return Err(self.trap(
                        op,
                        format!(
                            "ld.param reads {n} bytes at offset {at} of an argument block of {} bytes",
                            self.args.len()
                        ),
                    ));
                };
                let mut buf = [0u8; MAX_VALUE_BYTES];
                buf[..n].copy_from_slice(bytes);
                store_reg(item, &o[0], &buf);
                Ok(())
            }
            Opcode::Ld | Opcode::St => {
                let (addr_op, val) = if opcode == Opcode::Ld {
                    (&o[1], &o[0])
                } else {
                    (&o[0], &o[1])
                };
                let Opnd::Addr(a) = addr_op else {
                    return Err(self.trap(op, "address operand expected"));
                };
                let at = self.address(item, a);
                let (space, addr) = if q.has(flag::ATOMIC) {
                    self.locate_atomic(op, at)?
                } else {
                    self.locate(q.space, at)
                };
                check_align(space, addr, align, n).map_err(|f| self.fault(op, f))?;
                let mut buf = [0u8; MAX_VALUE_BYTES];
                if opcode == Opcode::Ld {
                    self.read_mem(item, space, addr, &mut buf[..n])
                        .map_err(|f| self.fault(op, f))?;
                    store_reg(item, val, &buf);
                } else {
                    self.read_bytes(item, val, &mut buf[..n]);
                    self.write_mem(item, space, addr, &buf[..n])
                        .map_err(|f| self.fault(op, f))?;
                }
                Ok(())
            }
            Opcode::Iatom | Opcode::Fatom => self.atomic(item, opcode, op, n, align),
            _ => unreachable!("not a memory instruction"),
        }
    }

    fn atomic(&mut self, item: &mut Item, opcode: Opcode, op: &Op, n: usize, align: u64) -> X<()> {
        let q = &op.q;
        let o = &op.ops;
        let Opnd::Addr(a) = &o[1] else {
            return Err(self.trap(op, "address operand expected"));
        };
        let (space, addr) = self.locate_atomic(op, self.address(item, a))?;
        check_align(space, addr, align, n).map_err(|f| self.fault(op, f))?;
        let mut bytes = [0u8; 16];
        let buf = &mut bytes[..n];
        self.read_mem(item, space, addr, buf)
            .map_err(|f| self.fault(op, f))?;
        let bits = (n * 8) as u32;
        let aop = q.atom.unwrap_or(AtomOp::Add);
        if bits == 128 {
            let old = u128::from_le_bytes(bytes);
            let s0 = o.get(2).map_or(0, |s| self.get128(item, s));
            let s1 = o.get(3).map_or(0, |s| self.get128(item, s));
            let new = match aop {
                AtomOp::Cas => {
                    if old == s0 {
                        s1
                    } else {
                        old
                    }
                }
                AtomOp::Xchg => s0,
                _ => return Err(self.trap(op, "128-bit atomics are cas and xchg only")),
            };
            self.write_mem(item, space, addr, &new.to_le_bytes())
                .map_err(|f| self.fault(op, f))?;
            set128(item, &o[0], old);
            return Ok(());
        }
        let mut b8 = [0u8; 8];
        b8[..n].copy_from_slice(buf);
        let old = u64::from_le_bytes(b8);
        let s0 = o.get(2).map_or(0, |s| self.get(item, s, bits));
        let s1 = o.get(3).map_or(0, |s| self.get(item, s, bits));
        let m = mask(bits);
        let new = if opcode == Opcode::Fatom {
            let ft = q.ty.and_then(|t| t.float).unwrap_or(FloatTy::Single);
            let fm = FloatMode::default();
            match aop {
                AtomOp::Add => float::binary(BinOp::Add, ft, old, s0, fm),
                AtomOp::Sub => float::binary(BinOp::Sub, ft, old, s0, fm),
                AtomOp::Min => float::binary(BinOp::Min, ft, old, s0, fm),
                AtomOp::Max => float::binary(BinOp::Max, ft, old, s0, fm),
                // compares bit patterns (docs/spec-notes.md)
                AtomOp::Cas => {
                    if old == s0 {
                        s1
                    } else {
                        old
                    }
                }
                _ => return Err(self.trap(op, "unknown fatom operation")),
            }
        } else {
            let (so, ss) = (sext(old, bits), sext(s0, bits));
            match aop {
                AtomOp::Add => old.wrapping_add(s0),
                AtomOp::Sub => old.wrapping_sub(s0),
                AtomOp::Inc => old.wrapping_add(1),
                AtomOp::Dec => old.wrapping_sub(1),
                AtomOp::Incwrap => {
                    if old >= s0 {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomOp::Decwrap => {
                    if old == 0 || old > s0 {
                        s0
                    } else {
                        old - 1
                    }
                }
                AtomOp::Smin => (so.min(ss)) as u64,
                AtomOp::Smax => (so.max(ss)) as u64,
                AtomOp::Umin => old.min(s0),
                AtomOp::Umax => old.max(s0),
                AtomOp::And => old & s0,
                AtomOp::Or => old | s0,
                AtomOp::Xor => old ^ s0,
                AtomOp::Xchg => s0,
                AtomOp::Cas => {
                    if old == s0 {
                        s1
                    } else {
                        old
                    }
                }
                _ => return Err(self.trap(op, "unknown iatom operation")),
            }
        } & m;
        self.write_mem(item, space, addr, &new.to_le_bytes()[..n])
            .map_err(|f| self.fault(op, f))?;
        set(item, &o[0], old);
        Ok(())
    }
}

/// Loaded bytes (zero-padded) into a destination register, zero-extended
/// to its size.
fn store_reg(item: &mut Item, dst: &Opnd, data: &[u8; MAX_VALUE_BYTES]) {
    match dst {
        Opnd::Reg { bytes, .. } => set_bytes(item, dst, &data[..*bytes as usize]),
        other => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&data[..8]);
            set(item, other, u64::from_le_bytes(b));
        }
    }
}
