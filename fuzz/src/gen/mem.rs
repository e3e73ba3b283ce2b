//! Compound memory statements: every address is masked into its variable,
//! every work-item touches only its own slots (outputs, `@gscr`, `.shared`
//! own-slot array), `.shared` exchanges sit between barriers, and atomics
//! combine order-independently (one operation and width per counter, old
//! values discarded).

use super::{Gen, DUMP_SLOTS, SLOTS};
use crate::print::{reg, ATOM_BYTES, BLOB_BYTES, GPTR_ENTRIES, GSCR_BYTES};
use crate::program::*;

/// A compound statement that the reducer deletes whole.
pub(super) fn raw(lines: Vec<String>, def: Option<Reg>) -> Stmt {
    Stmt::Raw {
        lines,
        def,
        keep: false,
        barrier: false,
    }
}

/// Width and register class of a plain memory access.
fn access_class(g: &mut Gen) -> (String, Class, u32) {
    let mut opts = vec![("32b".to_string(), Class::B32, 4)];
    if g.cfg.int8 {
        opts.push(("8b".into(), Class::B8, 1));
    }
    if g.cfg.int16 {
        opts.push(("16b".into(), Class::B16, 2));
    }
    if g.cfg.int64 {
        opts.push(("64b".into(), Class::B64, 8));
    }
    if g.cfg.vectors {
        opts.push(("v2.32b".into(), Class::V2x32, 8));
        opts.push(("v4.32b".into(), Class::V4x32, 16));
    }
    g.rng.pick(&opts).clone()
}

impl Gen<'_> {
    /// A random memory statement allowed here, if any.
    pub(crate) fn memory(&mut self) -> Option<Stmt> {
        let k = self.f.kernel;
        match self.rng.below(13) {
            0 if self.cfg.private => Some(self.private_access()),
            1 if self.cfg.globals => Some(self.gscr_access()),
            2 if k => Some(self.input_load()),
            3 if self.cfg.consts && self.cfg.uniform_chains && self.rng.chance(0.15) => {
                Some(self.uniform_chain())
            }
            3 if self.cfg.consts => Some(self.const_load()),
            4 if k => Some(self.emit()),
            5 if self.cfg.generic => self.generic_access(),
            6 if k && self.cfg.shared => Some(self.shared_own()),
            7 if self.cfg.atomics => Some(self.atomic()),
            8 if self.cfg.atomic_ld_st && self.cfg.globals => Some(self.atomic_ld_st()),
            9 if self.cfg.fences => {
                let f = *self.rng.pick(&[
                    "fence.global.acq_rel.gpu",
                    "fence.global.release.workgroup",
                    "fence.global.seq_cst.system",
                    "fence.shared.acquire.workgroup",
                    "fence.generic.acq_rel.gpu",
                    "fence.gpu",
                    "fence.workgroup",
                    "fence.subgroup",
                ]);
                Some(raw(vec![format!("{f};")], None))
            }
            10 if k && self.cfg.shared && self.cfg.atomics => {
                // the work-group counters: an integer sum at `@sc_`, a
                // float sum of one addend at `@sc_ + 4`
                let n = self.f.name.clone();
                if self.cfg.float_atomics && self.cfg.f32 && self.rng.chance(0.3) {
                    return Some(raw(
                        vec![
                            "mov.32b %ta, 0x3fc00000;".to_string(),
                            format!("fatom.shared.add.f %tj, [@sc_{n} + 4], %ta;"),
                        ],
                        None,
                    ));
                }
                let s = self.pool(Class::B32);
                Some(raw(
                    vec![format!("iatom.shared.add.32b %tj, [@sc_{n}], {};", reg(s))],
                    None,
                ))
            }
            11 if k => Some(self.param_load()),
            12 if self.cfg.wide_vectors && self.cfg.vectors => Some(self.wide_vector()),
            _ => None,
        }
    }

    /// A load of the kernel argument `%blob` (random bytes) at a naturally
    /// aligned offset: the argument block's packing, byte for byte.
    fn param_load(&mut self) -> Stmt {
        let (ty, c, size) = access_class(self);
        let off = self.rng.below((BLOB_BYTES / size) as u64) * size as u64;
        let d = self.pool(c);
        raw(
            vec![format!("ld.param.{ty} {}, [%blob + {off}];", reg(d))],
            Some(d),
        )
    }

    /// A statement with barriers (only in uniform control flow).
    pub(crate) fn barrier_stmt(&mut self) -> Option<Stmt> {
        if !self.cfg.barriers {
            return None;
        }
        let n = self.f.name.clone();
        let lines = match self.rng.below(4) {
            0 => vec!["barrier.workgroup;".to_string()],
            1 if self.f.kernel && self.cfg.shared && self.cfg.atomics => {
                // read the work-group counter between barriers
                let d = self.pool(Class::B32);
                let off = if self.rng.chance(0.3) { 4 } else { 0 };
                let lines = vec![
                    "barrier.workgroup;".to_string(),
                    format!("ld.shared.32b {}, [@sc_{n} + {off}];", reg(d)),
                    "barrier.workgroup;".to_string(),
                ];
                return Some(Stmt::Raw {
                    lines,
                    def: Some(d),
                    keep: false,
                    barrier: true,
                });
            }
            _ if self.cfg.shared => {
                // exchange with the work-item `k` places further
                let (w, c) = if self.cfg.int64 && self.rng.chance(0.5) {
                    (64, Class::B64)
                } else {
                    (32, Class::B32)
                };
                let s = self.pool(c);
                let d = self.pool(c);
                let k = self.rng.range(1, 300);
                let lines = vec![
                    "shl.32b %ta, %lid, 3;".to_string(),
                    format!("st.shared.{w}b [@sh_{n} + %ta], {};", reg(s)),
                    "barrier.workgroup;".to_string(),
                    format!("iadd.32b %tb, %lid, {k};"),
                    "udiv.rem.32b %tb, %tb, %lsz;".to_string(),
                    "shl.32b %tb, %tb, 3;".to_string(),
                    format!("ld.shared.{w}b {}, [@sh_{n} + %tb];", reg(d)),
                    "barrier.workgroup;".to_string(),
                ];
                return Some(Stmt::Raw {
                    lines,
                    def: Some(d),
                    keep: false,
                    barrier: true,
                });
            }
            _ => vec!["barrier.workgroup;".to_string()],
        };
        Some(Stmt::Raw {
            lines,
            def: None,
            keep: false,
            barrier: true,
        })
    }

    fn private_access(&mut self) -> Stmt {
        let (ty, c, size) = access_class(self);
        let bytes = 64;
        let idx = self.pool(Class::B32);
        let n = self.f.name.clone();
        let mut lines = vec![
            format!("and.32b %ta, {}, {};", reg(idx), bytes / size - 1),
            format!("shl.32b %ta, %ta, {};", size.trailing_zeros()),
        ];
        let r = self.pool(c);
        let def = if self.rng.chance(0.5) {
            lines.push(format!("ld.private.{ty} {}, [@pa_{n} + %ta];", reg(r)));
            Some(r)
        } else {
            lines.push(format!("st.private.{ty} [@pa_{n} + %ta], {};", reg(r)));
            None
        };
        raw(lines, def)
    }

    /// A load or store of the work-item's `@gscr` slot, addressed by the
    /// symbol or by a relocated pointer read from `@gptr` (`@gscr + 4j`,
    /// print.rs), used as a global or as a generic address.
    fn gscr_access(&mut self) -> Stmt {
        let (ty, c, size) = access_class(self);
        let off = self.rng.below((GSCR_BYTES / size) as u64) * size as u64;
        let mut lines = vec![format!("umul.full.32b %tA, %gid, {GSCR_BYTES};")];
        let (space, addr) = match self.rng.below(4) {
            0 | 1 => {
                if off != 0 {
                    lines.push(format!("iadd.64b %tA, %tA, {off};"));
                }
                ("global", "@gscr + %tA")
            }
            via => {
                let j = self.rng.below((off / 4).min(GPTR_ENTRIES - 1) + 1);
                let rest = off - 4 * j;
                if rest != 0 {
                    lines.push(format!("iadd.64b %tA, %tA, {rest};"));
                }
                lines.push(format!("ld.global.64b %tB, [@gptr + {}];", 8 * j));
                if via == 2 {
                    ("global", "%tB + %tA")
                } else {
                    lines.push("addrcast.generic.global %tB, %tB;".into());
                    ("generic", "%tB + %tA")
                }
            }
        };
        let r = self.pool(c);
        let weak = if self.rng.chance(0.15) { ".weak" } else { "" };
        let def = if self.rng.chance(0.5) {
            let cc = self.cache_control("ld");
            lines.push(format!("ld.{space}{weak}{cc}.{ty} {}, [{addr}];", reg(r)));
            Some(r)
        } else {
            let cc = self.cache_control("st");
            lines.push(format!("st.{space}{weak}{cc}.{ty} [{addr}], {};", reg(r)));
            None
        };
        raw(lines, def)
    }

    /// A cache-control qualifier of the plain (non-atomic) `ld` or `st`
    /// (09 §8.3, §8.4), sometimes: no effect on results. The values are
    /// the catalog's, so a value added there is generated here too.
    fn cache_control(&mut self, opcode: &str) -> String {
        if !self.rng.chance(0.3) {
            return String::new();
        }
        let values = plain_cache_controls(opcode);
        format!(".{}", self.rng.pick(&values))
    }

    fn input_load(&mut self) -> Stmt {
        let idx = self.pool(Class::B32);
        let (ty, c, size) = access_class(self);
        let d = self.pool(c);
        let lines = vec![
            format!("and.32b %ta, {}, {};", reg(idx), 1024 / size - 1),
            format!("shl.32b %ta, %ta, {};", size.trailing_zeros()),
            "zext.64b.32b %tA, %ta;".to_string(),
            "iadd.64b %tA, %tin, %tA;".to_string(),
            format!("ld.global.{ty} {}, [%tA];", reg(d)),
        ];
        raw(lines, Some(d))
    }

    fn const_load(&mut self) -> Stmt {
        let idx = self.pool(Class::B32);
        let (ty, c, size) = access_class(self);
        let d = self.pool(c);
        let mut lines = vec![
            format!("and.32b %ta, {}, {};", reg(idx), 64 / size - 1),
            format!("shl.32b %ta, %ta, {};", size.trailing_zeros()),
            "zext.64b.32b %tA, %ta;".to_string(),
        ];
        if self.cfg.generic && self.rng.chance(0.25) {
            // through a generic address and back (15 §4.1: a generic
            // address of `.const` is cast back with `addrcast.global.generic`)
            lines.extend([
                "addrcast.generic.const %tB, @ctab;".to_string(),
                "iadd.64b %tB, %tB, %tA;".to_string(),
                "addrcast.global.generic %tA, %tB;".to_string(),
                format!("ld.const.{ty} {}, [%tA];", reg(d)),
            ]);
        } else {
            lines.push(format!("ld.const.{ty} {}, [@ctab + %tA];", reg(d)));
        }
        raw(lines, Some(d))
    }

    /// A `.const` load whose address is a long computation on a value the
    /// same for every work-item (a push constant, a variable's address, a
    /// uniform register), every step using its value twice: llvmpipe's
    /// uniformity walk over load addresses took exponential time on such
    /// graphs (docs/fuzzing.md, seed 7000096).
    fn uniform_chain(&mut self) -> Stmt {
        let (ty, c, size) = access_class(self);
        let d = self.pool(c);
        let mut lines: Vec<String> = match self.rng.below(4) {
            0 => vec![
                "mov.64b %tA, %globalsize.x;".into(),
                "trunc.32b.64b %ta, %tA;".into(),
            ],
            1 => vec!["mov.32b %ta, %workdim;".into()],
            // the address's low bits, 0 (`@ctab` is 8-aligned) on every
            // device, plus a constant
            2 => vec![
                "addrof.64b %tA, @ctab;".into(),
                "trunc.32b.64b %ta, %tA;".into(),
                "and.32b %ta, %ta, 7;".into(),
                format!("iadd.32b %ta, %ta, {};", self.rng.below(1 << 16)),
            ],
            _ => vec!["mov.32b %ta, %u2;".into()],
        };
        for _ in 0..8 + self.rng.below(33) {
            let k = 1 + self.rng.below(31);
            match self.rng.below(3) {
                0 => {
                    lines.push("umul.32b %ta, %ta, %ta;".into());
                    lines.push(format!("iadd.32b %ta, %ta, {};", k | 1));
                }
                1 => {
                    lines.push(format!("shl.32b %tb, %ta, {k};"));
                    lines.push("xor.32b %ta, %ta, %tb;".into());
                }
                _ => {
                    lines.push(format!("shr.32b %tb, %ta, {k};"));
                    lines.push("iadd.32b %ta, %ta, %tb;".into());
                }
            }
        }
        lines.extend([
            format!("and.32b %ta, %ta, {};", 64 / size - 1),
            format!("shl.32b %ta, %ta, {};", size.trailing_zeros()),
            "zext.64b.32b %tA, %ta;".to_string(),
            format!("ld.const.{ty} {}, [@ctab + %tA];", reg(d)),
        ]);
        raw(lines, Some(d))
    }

    /// Stores a register into one of the work-item's output slots.
    pub(crate) fn emit(&mut self) -> Stmt {
        let (ty, c, _) = access_class(self);
        let slot = DUMP_SLOTS + self.f.slot % (SLOTS - DUMP_SLOTS - 1);
        self.f.slot += 1;
        let r = self.pool(c);
        let slot = if c == Class::V4x32 { slot & !1 } else { slot };
        raw(
            vec![format!(
                "st.global.{ty} [%obase + {}], {};",
                slot * 8,
                reg(r)
            )],
            None,
        )
    }

    fn generic_access(&mut self) -> Option<Stmt> {
        let n = self.f.name.clone();
        let mut lines = Vec::new();
        let space = *self.rng.pick(&["private", "global", "shared"]);
        match space {
            "private" if self.cfg.private => {
                let idx = self.pool(Class::B32);
                lines.push(format!("addrcast.generic.private %tB, @pa_{n};"));
                lines.push(format!("and.32b %ta, {}, 15;", reg(idx)));
                lines.push("shl.32b %ta, %ta, 2;".into());
                lines.push("zext.64b.32b %tA, %ta;".into());
                lines.push("iadd.64b %tB, %tB, %tA;".into());
            }
            "global" if self.cfg.globals => {
                lines.push("addrcast.generic.global %tB, @gscr;".into());
                lines.push(format!("umul.full.32b %tA, %gid, {GSCR_BYTES};"));
                lines.push("iadd.64b %tB, %tB, %tA;".into());
            }
            "shared" if self.f.kernel && self.cfg.shared => {
                lines.push(format!("addrcast.generic.shared %tB, @so_{n};"));
                lines.push("shl.32b %ta, %lid, 3;".into());
                lines.push("zext.64b.32b %tA, %ta;".into());
                lines.push("iadd.64b %tB, %tB, %tA;".into());
            }
            _ => return None,
        }
        let d = self.pool(Class::B32);
        let def = match self.rng.below(4) {
            0 => {
                lines.push(format!("ld.generic.32b {}, [%tB];", reg(d)));
                Some(d)
            }
            1 => {
                let s = self.pool(Class::B32);
                lines.push(format!("st.32b [%tB], {};", reg(s)));
                None
            }
            2 => {
                let sp = *self.rng.pick(&["private", "shared", "global"]);
                lines.push(format!("isaddr.{sp} {}, %tB;", reg(d)));
                Some(d)
            }
            _ if space != "global" => {
                // back to the specific space
                lines.push(format!("addrcast.{space}.generic %ta, %tB;"));
                lines.push(format!("ld.{space}.32b {}, [%ta];", reg(d)));
                Some(d)
            }
            _ => {
                lines.push("addrcast.global.generic %tA, %tB;".into());
                lines.push(format!("ld.global.32b {}, [%tA];", reg(d)));
                Some(d)
            }
        };
        Some(raw(lines, def))
    }

    fn shared_own(&mut self) -> Stmt {
        let n = self.f.name.clone();
        let (ty, c, size) = access_class(self);
        let (ty, c) = if size > 8 {
            ("64b".to_string(), Class::B64)
        } else {
            (ty, c)
        };
        let r = self.pool(c);
        let mut lines = vec!["shl.32b %ta, %lid, 3;".to_string()];
        // any naturally aligned place in the 8-byte slot: sub-word stores
        // into the upper bytes of a word and into the slot's second word
        let off = self.rng.below(8 / size.min(8) as u64) * size.min(8) as u64;
        if off != 0 {
            lines.push(format!("iadd.32b %ta, %ta, {off};"));
        }
        // the array by its symbol, or by its 32-bit address (`addrof`)
        let base = if self.rng.chance(0.25) {
            lines.push(format!("addrof.32b %tb, @so_{n};"));
            lines.push("iadd.32b %ta, %ta, %tb;".to_string());
            "%ta".to_string()
        } else {
            format!("@so_{n} + %ta")
        };
        let def = if self.rng.chance(0.5) {
            lines.push(format!("ld.shared.{ty} {}, [{base}];", reg(r)));
            Some(r)
        } else {
            lines.push(format!("st.shared.{ty} [{base}], {};", reg(r)));
            None
        };
        raw(lines, def)
    }

    /// An atomic on one of the counters (8-byte slots of the kernel
    /// argument `atom` or of `@gatom`): each slot has one operation, width
    /// and operand value (or operands the same for every work-item), so the
    /// final value does not depend on the order; old values go to scratch.
    fn atomic(&mut self) -> Stmt {
        // the counters: kernel argument `atom` in the kernel, `@gatom` anywhere
        let base = if self.f.kernel && self.rng.chance(0.5) {
            "%tatom"
        } else {
            "@gatom"
        };
        let slot = self.rng.below(ATOM_BYTES as u64 / 8);
        let order = if self.rng.chance(0.3) {
            format!(
                ".{}",
                self.rng.pick(&["relaxed", "acquire", "release", "acq_rel"])
            )
        } else {
            String::new()
        };
        let scope = if !order.is_empty() && order != ".relaxed" && self.rng.chance(0.5) {
            format!(".{}", self.rng.pick(&["workgroup", "gpu", "system"]))
        } else {
            String::new()
        };
        // through a generic address (09 §8: global and shared only, no
        // 64-bit forms but `cas`, no `.df`)
        let mut lines = Vec::new();
        let generic = self.cfg.generic && self.rng.chance(0.25);
        let (space, at) = if generic {
            lines.push(format!("addrcast.generic.global %tB, {base};"));
            ("generic", "%tB")
        } else {
            ("global", base)
        };
        let cc = if self.rng.chance(0.15) {
            format!(".{}", self.rng.pick(&["uc", "L2wb", "L3wb"]))
        } else {
            String::new()
        };
        let q = format!("{space}{order}{scope}{cc}");
        let addr = format!("[{at} + {}]", slot * 8);
        match slot {
            0..=7 => {
                let op = ["add", "sub", "and", "or", "xor", "smin", "umax", "add"][slot as usize];
                let s = self.pool(Class::B32);
                lines.push(format!("iatom.{q}.{op}.32b %tj, {addr}, {};", reg(s)));
            }
            8..=15 if self.cfg.int64 && !generic => {
                let op =
                    ["add", "sub", "and", "or", "xor", "smax", "umin", "add"][slot as usize - 8];
                let s = self.pool(Class::B64);
                lines.push(format!("iatom.{q}.{op}.64b %tJ, {addr}, {};", reg(s)));
            }
            16..=23 if self.cfg.int16 => {
                let s = self.pool(Class::B16);
                let half = self.rng.below(2) * 2;
                lines.push(format!(
                    "iatom.{q}.add.16b %th, [{at} + {}], {};",
                    slot * 8 + half,
                    reg(s)
                ));
            }
            24..=27 if self.cfg.float_atomics && self.cfg.f32 => {
                // the same addend everywhere: the sum does not depend on the order
                let v = [0x3f80_0000u32, 0x3f00_0000, 0x4040_0000, 0x3e80_0000][slot as usize - 24];
                lines.push(format!("mov.32b %ta, {v:#x};"));
                lines.push(format!("fatom.{q}.add.f %tj, {addr}, %ta;"));
            }
            28 | 29 if self.cfg.float_atomics && self.cfg.f32 => {
                let op = if slot == 28 { "max" } else { "min" };
                let s = self.pool(Class::B32);
                lines.push(format!("and.32b %ta, {}, 0xffff;", reg(s)));
                lines.push("i2f.f.u32 %ta, %ta;".to_string());
                lines.push(format!("fatom.{q}.{op}.f %tj, {addr}, %ta;"));
            }
            30 if self.cfg.float_atomics && self.cfg.f16 => {
                lines.push("mov.16b %th, 0x3c00;".to_string());
                lines.push(format!("fatom.{q}.add.hf %th, {addr}, %th;"));
            }
            // counting without an operand, and wrapping at a bound the same
            // for every work-item
            32..=35 => {
                let op = ["inc", "dec", "incwrap", "decwrap"][slot as usize - 32];
                if slot < 34 {
                    lines.push(format!("iatom.{q}.{op}.32b %tj, {addr};"));
                } else {
                    lines.push(format!("mov.32b %ta, {};", [5, 9][slot as usize - 34]));
                    lines.push(format!("iatom.{q}.{op}.32b %tj, {addr}, %ta;"));
                }
            }
            // every work-item writes the same value
            36 => {
                lines.push("mov.32b %ta, 0x5a;".to_string());
                lines.push(format!("iatom.{q}.xchg.32b %tj, {addr}, %ta;"));
            }
            37 | 38 if self.cfg.int64 && !generic => {
                let op = if slot == 37 { "incwrap" } else { "dec" };
                if op == "dec" {
                    lines.push(format!("iatom.{q}.dec.64b %tJ, {addr};"));
                } else {
                    lines.push("mov.64b %tA, 0x100000003;".to_string());
                    lines.push(format!("iatom.{q}.incwrap.64b %tJ, {addr}, %tA;"));
                }
            }
            39 if self.cfg.int16 => {
                let half = self.rng.below(2) * 2;
                lines.push(format!(
                    "iatom.{q}.inc.16b %th, [{at} + {}];",
                    slot * 8 + half
                ));
            }
            40 if self.cfg.float_atomics && self.cfg.f32 => {
                lines.push("mov.32b %ta, 0x3f000000;".to_string());
                lines.push(format!("fatom.{q}.sub.f %tj, {addr}, %ta;"));
            }
            41 if self.cfg.float_atomics && self.cfg.f16 => {
                // past 256 the bf16 sum stays at 256 (257 rounds to even)
                lines.push("mov.16b %th, 0x3f80;".to_string());
                lines.push(format!("fatom.{q}.add.bf %th, {addr}, %th;"));
            }
            42 | 43 if self.cfg.float_atomics && self.cfg.f16 => {
                // positive finite values: the extreme does not depend on the order
                let (op, ty) = if slot == 42 {
                    ("max", "hf")
                } else {
                    ("min", "bf")
                };
                let s = self.pool(Class::B16);
                lines.push(format!("and.16b %th, {}, 0x3fff;", reg(s)));
                lines.push(format!("fatom.{q}.{op}.{ty} %th, {addr}, %th;"));
            }
            44 | 45 if self.cfg.float_atomics && self.cfg.f64 && !generic => {
                let (op, v) = if slot == 44 {
                    ("add", 0x3ff0_0000_0000_0000u64)
                } else {
                    ("sub", 0x3fd0_0000_0000_0000)
                };
                lines.push(format!("mov.64b %tA, {v:#x};"));
                lines.push(format!("fatom.{q}.{op}.df %tJ, {addr}, %tA;"));
            }
            46 if self.cfg.float_atomics && self.cfg.f32 => {
                // compare-and-swap to one value: the winner does not matter
                lines.push("mov.32b %ta, 0;".to_string());
                lines.push("mov.32b %tb, 0x40e00000;".to_string());
                lines.push(format!("fatom.{q}.cas.f %tj, {addr}, %ta, %tb;"));
            }
            // 128-bit exchange (slot 48) and compare-and-swap (slot 50) of
            // one value, 16-byte aligned
            48 | 50 if self.cfg.int128 && self.cfg.vectors => {
                let op = if slot == 48 { "xchg" } else { "cas" };
                for (e, v) in ["x", "y", "z", "w"].iter().zip([7, 0, 0x8000_0000u32, 1]) {
                    lines.push(format!("mov.32b %tz_v4x32.{e}, {v:#x};"));
                }
                lines.push("mov.128b %tR, %tz_v4x32.xyzw;".to_string());
                if op == "cas" {
                    for e in ["x", "y", "z", "w"] {
                        lines.push(format!("mov.32b %tz_v4x32.{e}, 0;"));
                    }
                    lines.push("mov.128b %tQ, %tz_v4x32.xyzw;".to_string());
                    lines.push(format!("iatom.{q}.cas.128b %tQ, {addr}, %tQ, %tR;"));
                } else {
                    lines.push(format!("iatom.{q}.xchg.128b %tQ, {addr}, %tR;"));
                }
            }
            _ => {
                // compare-and-swap to one value: the winner does not matter
                lines.push("mov.32b %ta, 0;".to_string());
                lines.push("mov.32b %tb, 7;".to_string());
                lines.push(format!(
                    "iatom.{q}.cas.32b %tj, [{at} + {}], %ta, %tb;",
                    31 * 8
                ));
            }
        }
        raw(lines, None)
    }

    fn atomic_ld_st(&mut self) -> Stmt {
        let (w, c) = if self.cfg.int128 && self.cfg.vectors && self.rng.chance(0.15) {
            // the whole 16-byte slot
            (128, Class::B128)
        } else if self.cfg.int64 && self.rng.chance(0.4) {
            (64, Class::B64)
        } else {
            (32, Class::B32)
        };
        let r = self.pool(c);
        let scope = *self.rng.pick(&["", ".workgroup", ".gpu", ".system"]);
        let cc = if self.rng.chance(0.2) {
            format!(".{}", self.rng.pick(&["uc", "L2wb", "L3wb"]))
        } else {
            String::new()
        };
        let mut lines = vec![format!("umul.full.32b %tA, %gid, {GSCR_BYTES};")];
        let def = if self.rng.chance(0.5) {
            let o = if scope.is_empty() {
                *self.rng.pick(&["relaxed", "acquire", "seq_cst"])
            } else {
                *self.rng.pick(&["acquire", "seq_cst"])
            };
            lines.push(format!(
                "ld.global.{o}{scope}{cc}.{w}b {}, [@gscr + %tA];",
                reg(r)
            ));
            Some(r)
        } else {
            let o = if scope.is_empty() {
                *self.rng.pick(&["relaxed", "release", "seq_cst"])
            } else {
                *self.rng.pick(&["release", "seq_cst"])
            };
            lines.push(format!(
                "st.global.{o}{scope}{cc}.{w}b [@gscr + %tA], {};",
                reg(r)
            ));
            None
        };
        raw(lines, def)
    }
}

/// The `.cc` values of the plain (non-atomic: `.weak` is its order) form
/// of `ld` or `st` in the instruction catalog.
fn plain_cache_controls(opcode: &str) -> Vec<&'static str> {
    let cat = pisa_translator::catalog::catalog();
    cat.forms
        .iter()
        .filter(|f| f.opcode == opcode)
        .filter(|f| {
            f.quals
                .iter()
                .any(|q| q.name == "memorder" && q.values.iter().any(|v| v == "weak"))
        })
        .flat_map(|f| f.quals.iter().filter(|q| q.name == "cc"))
        .flat_map(|q| q.values.iter().map(String::as_str))
        .collect()
}
