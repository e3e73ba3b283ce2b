//! Data movement and conversion (spec 15): `mov` with swizzles, vector
//! element access, integer resizing, float conversions (through
//! [`crate::float`]) and addresses (`addrof`, `addrcast`, `isaddr`).

use super::float_ops::mode;
use super::{mask, set, set_bytes, sext, Exec, Item, MAX_VALUE_BYTES, X};
use crate::decode::{Op, Opnd};
use crate::float::{self, FloatTy, Round};
use crate::memory::{resolve_generic, to_generic, Space};
use pisa_translator::ir::qualifier::Addrspace;
use pisa_translator::ir::{Opcode, Qualifier};

fn space_of(s: Option<Addrspace>) -> Option<Space> {
    match s? {
        Addrspace::Shared => Some(Space::Shared),
        Addrspace::Private => Some(Space::Private),
        Addrspace::Global | Addrspace::Const => Some(Space::Device),
        Addrspace::Generic => None,
    }
}

impl Exec<'_> {
    pub(super) fn data(&mut self, item: &mut Item, opcode: Opcode, op: &Op) -> X<()> {
        use Opcode::*;
        let o = &op.ops;
        let q = &op.q;
        let ty = q.ty.unwrap_or_default();
        match opcode {
            Mov => {
                let n = match (&o[0], &o[1]) {
                    (Opnd::Reg { bytes, .. }, _) => (*bytes as usize).min(ty.bits as usize / 8),
                    _ => ty.bits as usize / 8,
                };
                let n = n.max(1);
                // zero beyond `n`: the destination is zero-extended
                let mut buf = [0u8; MAX_VALUE_BYTES];
                self.read_bytes(item, &o[1], &mut buf[..n]);
                let dst = match &o[0] {
                    Opnd::Reg { bytes, .. } => *bytes as usize,
                    _ => n,
                };
                set_bytes(item, &o[0], &buf[..dst]);
            }
            Sext | Zext | Trunc => {
                let from = q.from.map_or(32, |t| t.bits as u32);
                let to = q.to.map_or(32, |t| t.bits as u32);
                let v = self.get(item, &o[1], from);
                let r = match opcode {
                    Sext => sext(v, from) as u64 & mask(to),
                    _ => v & mask(to),
                };
                set(item, &o[0], r);
            }
            Extract | Insert | ExtractDynamic | InsertDynamic => {
                let eb = (ty.bits as usize / 8).max(1);
                let count = q.vec as usize;
                let (vec_op, elem_op) = if matches!(opcode, Extract | ExtractDynamic) {
                    (&o[1], &o[0])
                } else {
                    (&o[0], &o[1])
                };
                let vec_bytes = match vec_op {
                    Opnd::Reg { bytes, .. } => *bytes as usize,
                    _ => 0,
                };
                let index = if matches!(opcode, ExtractDynamic | InsertDynamic) {
                    self.get(item, &o[2], 32) as usize
                } else {
                    q.imm as usize
                };
                // the static forms move `.vec` elements (1 without)
                let moved = if matches!(opcode, Extract | Insert) {
                    count
                } else {
                    1
                };
                if (index + moved) * eb > vec_bytes {
                    return Err(self.trap(
                        op,
                        format!(
                            "element index {index} is out of bounds for a vector of {} elements",
                            vec_bytes / eb
                        ),
                    ));
                }
                let Opnd::Reg { off, .. } = vec_op else {
                    return Err(self.trap(op, "vector register expected"));
                };
                let at = Opnd::Reg {
                    off: off + (index * eb) as u32,
                    bytes: (moved * eb) as u16,
                };
                let (src, dst) = if matches!(opcode, Extract | ExtractDynamic) {
                    (&at, elem_op)
                } else {
                    (elem_op, &at)
                };
                let mut buf = [0u8; MAX_VALUE_BYTES];
                let v = &mut buf[..moved * eb];
                self.read_bytes(item, src, v);
                set_bytes(item, dst, v);
            }
            F2i | Pf2i => {
                let from = q.from.unwrap_or_default();
                let to = q.to.unwrap_or_default();
                let ft = from.float.unwrap_or(FloatTy::Single);
                let mut m = mode(q);
                // `f2i` without `.rndmode` truncates (docs/spec-notes.md)
                m.round = q.rnd.unwrap_or(Round::Zero);
                let signed = to.signed.unwrap_or(false);
                let v = self.get(item, &o[1], from.total());
                let mut out = 0u64;
                for i in 0..from.lanes as u32 {
                    let x = (v >> (i * from.bits as u32)) & mask(from.bits as u32);
                    let r = float::to_int(ft, x, signed, to.bits as u32, m);
                    out |= (r & mask(to.bits as u32)) << (i * to.bits as u32);
                }
                set(item, &o[0], out);
            }
            I2f => {
                let from = q.from.unwrap_or_default();
                let to = q.to.and_then(|t| t.float).unwrap_or(FloatTy::Single);
                let v = self.get(item, &o[1], from.bits as u32);
                let r = float::from_int(
                    to,
                    v,
                    from.signed.unwrap_or(false),
                    from.bits as u32,
                    mode(q),
                );
                set(item, &o[0], r);
            }
            Fext | Ftrunc => {
                let from = q.from.and_then(|t| t.float).unwrap_or(FloatTy::Single);
                let to = q.to.and_then(|t| t.float).unwrap_or(FloatTy::Single);
                let v = self.get(item, &o[1], from.bits());
                set(item, &o[0], float::convert(from, to, v, mode(q)));
            }
            Ftrunc2 => {
                let to = q.to.and_then(|t| t.float).unwrap_or(FloatTy::Half);
                let a = self.get(item, &o[1], 32);
                let b = self.get(item, &o[2], 32);
                let m = mode(q);
                let lo = float::convert(FloatTy::Single, to, a, m) & 0xFFFF;
                let hi = float::convert(FloatTy::Single, to, b, m) & 0xFFFF;
                set(item, &o[0], lo | hi << 16);
            }
            Frnd => {
                let ft = ty.float.unwrap_or(FloatTy::Single);
                let v = self.get(item, &o[1], ft.bits());
                set(item, &o[0], float::round_to_integral(ft, v, mode(q)));
            }
            Addrof => {
                let v = self.get(item, &o[1], 64);
                set(item, &o[0], v & mask(ty.bits as u32));
            }
            Addrcast => {
                let to = space_of(q.to_space);
                let from = space_of(q.from_space);
                let r = match (to, from) {
                    // to generic: tag arena offsets
                    (None, Some(space)) => {
                        let bits = if space == Space::Device { 64 } else { 32 };
                        to_generic(space, self.get(item, &o[1], bits))
                    }
                    // from generic: the address in its space; UB when the
                    // space does not match (15 §4.1), an error here
                    (Some(space), None) => {
                        let g = self.get(item, &o[1], 64);
                        if g == 0 {
                            if space == Space::Device {
                                0
                            } else {
                                0xFFFF_FFFF
                            }
                        } else {
                            let (actual, a) = resolve_generic(g);
                            if actual != space {
                                return Err(self.trap(
                                    op,
                                    format!(
                                        "generic address {g:#x} is not in the {} space",
                                        q.to_space.map_or("?", |s| s.text())
                                    ),
                                ));
                            }
                            a
                        }
                    }
                    _ => return Err(self.trap(op, "unsupported addrcast")),
                };
                set(item, &o[0], r);
            }
            Isaddr => {
                let g = self.get(item, &o[1], 64);
                let want = match q.space {
                    Some(pisa_translator::ir::qualifier::Addrspace::Shared) => Space::Shared,
                    Some(pisa_translator::ir::qualifier::Addrspace::Private) => Space::Private,
                    _ => Space::Device,
                };
                let is = g != 0 && resolve_generic(g).0 == want;
                set(item, &o[0], if is { 0xFFFF_FFFF } else { 0 });
            }
            _ => unreachable!("not a data-movement instruction"),
        }
        Ok(())
    }
}
