//! Compound memory statements: every address is masked into its variable,
//! every work-item touches only its own slots (outputs, `@gscr`, `.shared`
//! own-slot array), `.shared` exchanges sit between barriers, and atomics
//! combine order-independently (one operation and width per counter, old
//! values discarded).

use super::{Gen, DUMP_SLOTS, SLOTS};
use crate::print::{reg, BLOB_BYTES, GPTR_ENTRIES, GSCR_BYTES};
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
                ]);
                Some(raw(vec![format!("{f};")], None))
            }
            10 if k && self.cfg.shared && self.cfg.atomics => {
                let s = self.pool(Class::B32);
                Some(raw(
                    vec![format!(
                        "iatom.shared.add.32b %tj, [@sc_{}], {};",
                        self.f.name,
                        reg(s)
                    )],
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
                let lines = vec![
                    "barrier.workgroup;".to_string(),
                    format!("ld.shared.32b {}, [@sc_{n}];", reg(d)),
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
        let def = if self.rng.chance(0.5) {
            lines.push(format!("ld.{space}.{ty} {}, [{addr}];", reg(r)));
            Some(r)
        } else {
            lines.push(format!("st.{space}.{ty} [{addr}], {};", reg(r)));
            None
        };
        raw(lines, def)
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
        let lines = vec![
            format!("and.32b %ta, {}, {};", reg(idx), 64 / size - 1),
            format!("shl.32b %ta, %ta, {};", size.trailing_zeros()),
            "zext.64b.32b %tA, %ta;".to_string(),
            format!("ld.const.{ty} {}, [@ctab + %tA];", reg(d)),
        ];
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
        let def = if self.rng.chance(0.5) {
            lines.push(format!("ld.shared.{ty} {}, [@so_{n} + %ta];", reg(r)));
            Some(r)
        } else {
            lines.push(format!("st.shared.{ty} [@so_{n} + %ta], {};", reg(r)));
            None
        };
        raw(lines, def)
    }

    fn atomic(&mut self) -> Stmt {
        // the counters: kernel argument `atom` in the kernel, `@gatom` anywhere
        let base = if self.f.kernel && self.rng.chance(0.5) {
            "%tatom"
        } else {
            "@gatom"
        };
        let slot = self.rng.below(32);
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
        let line = match slot {
            0..=7 => {
                let op = ["add", "sub", "and", "or", "xor", "smin", "umax", "add"][slot as usize];
                let s = self.pool(Class::B32);
                format!(
                    "iatom.global{order}{scope}.{op}.32b %tj, [{base} + {}], {};",
                    slot * 8,
                    reg(s)
                )
            }
            8..=15 if self.cfg.int64 => {
                let op =
                    ["add", "sub", "and", "or", "xor", "smax", "umin", "add"][slot as usize - 8];
                let s = self.pool(Class::B64);
                format!(
                    "iatom.global{order}{scope}.{op}.64b %tJ, [{base} + {}], {};",
                    slot * 8,
                    reg(s)
                )
            }
            16..=23 if self.cfg.int16 => {
                let s = self.pool(Class::B16);
                let half = self.rng.below(2) * 2;
                format!(
                    "iatom.global{order}{scope}.add.16b %th, [{base} + {}], {};",
                    slot * 8 + half,
                    reg(s)
                )
            }
            24..=27 if self.cfg.float_atomics && self.cfg.f32 => {
                // the same addend everywhere: the sum does not depend on the order
                let v = [0x3f80_0000u32, 0x3f00_0000, 0x4040_0000, 0x3e80_0000][slot as usize - 24];
                return raw(
                    vec![
                        format!("mov.32b %ta, {v:#x};"),
                        format!(
                            "fatom.global{order}{scope}.add.f %tj, [{base} + {}], %ta;",
                            slot * 8
                        ),
                    ],
                    None,
                );
            }
            28 | 29 if self.cfg.float_atomics && self.cfg.f32 => {
                let op = if slot == 28 { "max" } else { "min" };
                let s = self.pool(Class::B32);
                return raw(
                    vec![
                        format!("and.32b %ta, {}, 0xffff;", reg(s)),
                        "i2f.f.u32 %ta, %ta;".to_string(),
                        format!(
                            "fatom.global{order}{scope}.{op}.f %tj, [{base} + {}], %ta;",
                            slot * 8
                        ),
                    ],
                    None,
                );
            }
            30 if self.cfg.float_atomics && self.cfg.f16 => {
                return raw(
                    vec![
                        "mov.16b %th, 0x3c00;".to_string(),
                        format!(
                            "fatom.global{order}{scope}.add.hf %th, [{base} + {}], %th;",
                            slot * 8
                        ),
                    ],
                    None,
                );
            }
            _ => {
                // compare-and-swap to one value: the winner does not matter
                return raw(
                    vec![
                        "mov.32b %ta, 0;".to_string(),
                        "mov.32b %tb, 7;".to_string(),
                        format!(
                            "iatom.global{order}{scope}.cas.32b %tj, [{base} + {}], %ta, %tb;",
                            31 * 8
                        ),
                    ],
                    None,
                );
            }
        };
        raw(vec![line], None)
    }

    fn atomic_ld_st(&mut self) -> Stmt {
        let (w, c) = if self.cfg.int64 && self.rng.chance(0.4) {
            (64, Class::B64)
        } else {
            (32, Class::B32)
        };
        let r = self.pool(c);
        let scope = *self.rng.pick(&["", ".workgroup", ".gpu", ".system"]);
        let mut lines = vec![format!("umul.full.32b %tA, %gid, {GSCR_BYTES};")];
        let def = if self.rng.chance(0.5) {
            let o = if scope.is_empty() {
                *self.rng.pick(&["relaxed", "acquire", "seq_cst"])
            } else {
                *self.rng.pick(&["acquire", "seq_cst"])
            };
            lines.push(format!(
                "ld.global.{o}{scope}.{w}b {}, [@gscr + %tA];",
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
                "st.global.{o}{scope}.{w}b [@gscr + %tA], {};",
                reg(r)
            ));
            None
        };
        raw(lines, def)
    }
}
