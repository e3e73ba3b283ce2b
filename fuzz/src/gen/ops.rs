//! Single instructions: integer, packed, bit, comparison, floating-point,
//! conversion and data-movement forms, with edge-value immediates.

use super::{fbits, Gen};
use crate::program::*;

fn inst(op: String, ops: Vec<Operand>, defs: Vec<Reg>) -> Stmt {
    Stmt::Inst(Inst { op, ops, defs })
}

fn r(x: Reg) -> Operand {
    Operand::Reg(x)
}

const COPS: [&str; 6] = ["eq", "ne", "gt", "ge", "lt", "le"];
const RND: [&str; 5] = ["re", "rd", "ru", "rz", "rna"];

impl Gen<'_> {
    fn width(&mut self) -> u32 {
        let w = self.int_widths();
        *self.rng.pick(&w)
    }
    fn dsat(&mut self) -> &'static str {
        if self.cfg.saturate && self.rng.chance(0.2) {
            ".dsat"
        } else {
            ""
        }
    }
    fn ftz(&mut self) -> &'static str {
        if self.cfg.ftz && self.rng.chance(0.2) {
            ".ftz"
        } else {
            ""
        }
    }
    /// A rounding-mode qualifier (sometimes) where `allowed`.
    fn rnd_if(&mut self, allowed: bool) -> String {
        if allowed && self.rng.chance(0.3) {
            format!(".{}", self.rng.pick(&RND))
        } else {
            String::new()
        }
    }
    fn float_ty(&mut self) -> Option<&'static str> {
        let mut t = Vec::new();
        if self.cfg.f32 {
            t.extend(["f", "f"]);
        }
        if self.cfg.f16 {
            t.extend(["hf", "bf"]);
        }
        if self.cfg.f64 {
            t.push("df");
        }
        (!t.is_empty()).then(|| *self.rng.pick(&t))
    }

    /// One random instruction.
    pub(crate) fn alu(&mut self) -> Stmt {
        loop {
            let s = match self.rng.below(12) {
                0..=3 => Some(self.int_op()),
                4 => self.bit_op(),
                5 => self.packed_op(),
                6 => Some(self.compare()),
                7 | 8 => self.float_op(),
                9 => self.convert(),
                10 if self.rng.chance(0.4) => self.subgroup_op(),
                _ => self.movement(),
            };
            if let Some(s) = s {
                return s;
            }
        }
    }

    fn int_op(&mut self) -> Stmt {
        let w = self.width();
        let c = Class::int(w);
        let d = self.pool(c);
        match self.rng.below(10) {
            0..=2 => {
                let op = *self.rng.pick(&[
                    "iadd", "isub", "smul", "umul", "smin", "smax", "umin", "umax", "and", "or",
                    "xor", "shl", "shr", "asr",
                ]);
                let sat = if op == "iadd" || op == "isub" {
                    self.dsat()
                } else {
                    ""
                };
                let a = self.src(c);
                let b = if matches!(op, "shl" | "shr" | "asr") {
                    self.src(Class::B32)
                } else {
                    self.src(c)
                };
                inst(format!("{op}{sat}.{w}b"), vec![r(d), a, b], vec![d])
            }
            3 => {
                let op = *self.rng.pick(&["ineg", "iabs", "not"]);
                let a = self.src(c);
                inst(format!("{op}.{w}b"), vec![r(d), a], vec![d])
            }
            4 => {
                let op = *self.rng.pick(&["smad", "umad"]);
                let (a, b, e) = (self.src(c), self.src(c), self.src(c));
                inst(format!("{op}.{w}b"), vec![r(d), a, b, e], vec![d])
            }
            5 if w < 64 && self.cfg.int64 || w == 16 => {
                // widening multiply (-add)
                let wide = Class::int(w * 2);
                let d = self.pool(wide);
                let s = if self.rng.chance(0.5) { "s" } else { "u" };
                let (a, b) = (self.src(c), self.src(c));
                if self.rng.chance(0.5) {
                    inst(format!("{s}mul.full.{w}b"), vec![r(d), a, b], vec![d])
                } else {
                    let e = self.src(wide);
                    inst(format!("{s}mad.full.{w}b"), vec![r(d), a, b, e], vec![d])
                }
            }
            6 | 7 if self.cfg.division => self.division(w),
            8 => {
                // shifts by amounts at and past the width
                let op = *self.rng.pick(&["shl", "shr", "asr"]);
                let a = self.src(c);
                let amt = Operand::Imm(
                    [w as u64 - 1, w as u64, w as u64 + 1, 2 * w as u64 + 3, 63]
                        [self.rng.below(5) as usize],
                );
                inst(format!("{op}.{w}b"), vec![r(d), a, amt], vec![d])
            }
            _ => {
                // sel with a predicate or a value
                let (a, b) = (self.src(c), self.src(c));
                if self.rng.chance(0.6) {
                    let p = self.pool(Class::Pred);
                    let neg = if self.rng.chance(0.3) { "!" } else { "" };
                    inst(
                        format!("sel.{w}b"),
                        vec![r(d), a, b, Operand::Named(format!("{neg}%p{}", p.idx))],
                        vec![d],
                    )
                } else {
                    let e = Operand::Reg(self.pool(c));
                    inst(format!("sel.{w}b"), vec![r(d), a, b, e], vec![d])
                }
            }
        }
    }

    /// `sdiv`/`udiv` with the divisor forced away from 0 and -1.
    fn division(&mut self, w: u32) -> Stmt {
        let c = Class::int(w);
        let d = self.pool(c);
        let a = self.src(c);
        let b = self.pool(c);
        let s = if self.rng.chance(0.5) { "s" } else { "u" };
        let out = if self.rng.chance(0.5) { ".rem" } else { ".quo" };
        let out = if self.rng.chance(0.2) { "" } else { out };
        let t = match w {
            16 => "%th",
            32 => "%ta",
            _ => "%tA",
        };
        let lines = vec![
            format!("or.{w}b {t}, {}, 1;", crate::print::reg(b)),
            format!("scmp.eq.{w}b %tp, {t}, -1;"),
            format!("sel.{w}b {t}, 3, {t}, %tp;"),
            format!(
                "{s}div{out}.{w}b {}, {}, {t};",
                crate::print::reg(d),
                crate::print::operand(&a)
            ),
        ];
        Stmt::Raw {
            lines,
            def: Some(d),
            keep: false,
            barrier: false,
        }
    }

    fn bit_op(&mut self) -> Option<Stmt> {
        if !self.cfg.bit_ops {
            return None;
        }
        let c = Class::B32;
        let d = self.pool(c);
        Some(match self.rng.below(9) {
            0 => {
                let w = if self.cfg.int16 && self.rng.chance(0.4) {
                    16
                } else {
                    32
                };
                let op = *self.rng.pick(&["cbit", "fbh", "fbl"]);
                let dd = self.pool(Class::int(w));
                let a = self.src(Class::int(w));
                inst(format!("{op}.{w}b"), vec![r(dd), a], vec![dd])
            }
            1 => {
                let a = self.src(c);
                inst("bfrev.32b".into(), vec![r(d), a], vec![d])
            }
            2 => {
                let ops = vec![r(d), self.src(c), self.src(c), self.src(c), self.src(c)];
                inst("bfi.32b".into(), ops, vec![d])
            }
            3 => {
                let f = self.rng.range(1, 0xfe);
                let ops = vec![r(d), self.src(c), self.src(c), self.src(c)];
                inst(format!("bfn.{f:#04x}.32b"), ops, vec![d])
            }
            4 => {
                let op = *self.rng.pick(&["sbfe", "ubfe"]);
                let ops = vec![r(d), self.src(c), self.src(c), self.src(c)];
                inst(format!("{op}.32b"), ops, vec![d])
            }
            5 => {
                let dir = *self.rng.pick(&["l", "r"]);
                let ops = vec![r(d), self.src(c), self.src(c), self.src(c)];
                inst(format!("shf.{dir}.32b"), ops, vec![d])
            }
            6 | 7 => {
                let sg = *self.rng.pick(&["ss", "us", "su", "uu"]);
                let sat = if sg == "uu" { "" } else { self.dsat() };
                let ops = vec![r(d), self.src(c), self.src(c), self.src(c)];
                inst(format!("dp4a.{sg}{sat}.32b"), ops, vec![d])
            }
            _ => {
                let p = self.pool(Class::Pred);
                let q = self.pool(Class::Pred);
                let (a, b) = (self.src(c), self.src(c));
                match self.rng.below(3) {
                    0 => inst("uaddc.co.32b".into(), vec![r(d), r(q), a, b], vec![d, q]),
                    1 => inst("uaddc.ci.32b".into(), vec![r(d), a, b, r(p)], vec![d]),
                    _ => inst(
                        "uaddc.ci.co.32b".into(),
                        vec![r(d), r(q), a, b, r(p)],
                        vec![d, q],
                    ),
                }
            }
        })
    }

    /// `.hfx2`/`.bfx2` arithmetic, min/max, abs/neg and compares on packed
    /// registers.
    fn packed_float_op(&mut self) -> Option<Stmt> {
        let ty = *self.rng.pick(&["hfx2", "bfx2"]);
        let c = Class::V2x16;
        let d = self.pool(c);
        let (a, b) = (self.pool(c), self.pool(c));
        let ftz = self.ftz();
        Some(match self.rng.below(9) {
            7 | 8 => {
                // one-operand functions, lane by lane
                let op = *self.rng.pick(&[
                    "fsin", "fcos", "fexp2", "flog2", "ftanh", "frsqrt", "fsqrt", "frcp",
                ]);
                let allowed = match op {
                    "fsqrt" => self.cfg.fast_math,
                    "frcp" => self.cfg.frcp,
                    _ => self.cfg.transcendental,
                };
                if !allowed {
                    return None;
                }
                let fast = if matches!(op, "frsqrt" | "fsqrt") {
                    ".fast"
                } else {
                    ""
                };
                inst(format!("{op}{ftz}{fast}.{ty}"), vec![r(d), r(a)], vec![d])
            }
            0 | 1 => {
                let op = *self.rng.pick(&["fadd", "fsub", "fmul", "fmad"]);
                let rnd = self.rnd_if(self.cfg.rounding);
                let sat = self.dsat();
                let mut ops = vec![r(d), r(a), r(b)];
                if op == "fmad" {
                    ops.push(r(self.pool(c)));
                }
                inst(format!("{op}{rnd}{ftz}{sat}.{ty}"), ops, vec![d])
            }
            2 => {
                let op = *self.rng.pick(&["fmin", "fmax"]);
                let sat = self.dsat();
                let nanp = if self.cfg.saturate && self.rng.chance(0.2) {
                    ".nanp"
                } else {
                    ""
                };
                inst(
                    format!("{op}{ftz}{sat}{nanp}.{ty}"),
                    vec![r(d), r(a), r(b)],
                    vec![d],
                )
            }
            3 => {
                let op = *self.rng.pick(&["fabs", "fneg"]);
                inst(format!("{op}{ftz}.{ty}"), vec![r(d), r(a)], vec![d])
            }
            4 => {
                let cop = *self.rng.pick(&COPS);
                inst(
                    format!("fcmp.{cop}{ftz}.{ty}"),
                    vec![r(d), r(a), r(b)],
                    vec![d],
                )
            }
            5 => {
                // two f32 registers rounded into one packed register
                if !self.cfg.f32 {
                    return None;
                }
                let rnd = self.rnd_if(self.cfg.rounding);
                let sat = self.dsat();
                let (x, y) = (self.pool(Class::int(32)), self.pool(Class::int(32)));
                inst(
                    format!("ftrunc2.{ty}{rnd}{ftz}{sat}"),
                    vec![r(d), r(x), r(y)],
                    vec![d],
                )
            }
            _ => {
                // packed floats to packed 16-bit integers (f2i's rules per lane)
                let to = *self.rng.pick(&["u16x2", "s16x2"]);
                let rnd = if self.rng.chance(0.5) {
                    format!(".{}", self.rng.pick(&RND))
                } else {
                    String::new()
                };
                inst(format!("pf2i.{to}.{ty}{rnd}"), vec![r(d), r(a)], vec![d])
            }
        })
    }

    fn packed_op(&mut self) -> Option<Stmt> {
        if !(self.cfg.packed && self.cfg.vectors) {
            return None;
        }
        let (ty, c) = if self.rng.chance(0.6) {
            ("16bx2", Class::V2x16)
        } else {
            ("8bx4", Class::V4x8)
        };
        let d = self.pool(c);
        let (a, b) = (self.pool(c), self.pool(c));
        if self.cfg.f16 && self.rng.chance(0.4) {
            return self.packed_float_op();
        }
        let ops16: &[&str] = &[
            "iadd", "isub", "smul", "smad", "smin", "smax", "umin", "umax", "shl", "shr", "asr",
            "ucmp",
        ];
        let ops8 = ["iadd", "smin", "smax"];
        let op = if c == Class::V2x16 {
            *self.rng.pick(ops16)
        } else {
            *self.rng.pick(&ops8)
        };
        Some(match op {
            "iadd" | "isub" => {
                let s = self.dsat();
                inst(format!("{op}{s}.{ty}"), vec![r(d), r(a), r(b)], vec![d])
            }
            "smad" => {
                let e = self.pool(c);
                inst(format!("{op}.{ty}"), vec![r(d), r(a), r(b), r(e)], vec![d])
            }
            "shl" | "shr" | "asr" => {
                let amt = self.src(Class::B32);
                inst(format!("{op}.{ty}"), vec![r(d), r(a), amt], vec![d])
            }
            "ucmp" => {
                let cop = *self.rng.pick(&COPS);
                inst(format!("ucmp.{cop}.{ty}"), vec![r(d), r(a), r(b)], vec![d])
            }
            _ => inst(format!("{op}.{ty}"), vec![r(d), r(a), r(b)], vec![d]),
        })
    }

    /// A participation mask of a sub-group instruction: mostly all lanes,
    /// sometimes a pattern or a per-lane register value (the spec wants it
    /// sub-group-uniform; both devices follow its pseudo-code per lane).
    fn lane_mask(&mut self) -> Operand {
        match self.rng.below(8) {
            0..=3 => Operand::Imm(0xffff_ffff),
            4 => {
                Operand::Imm(
                    *self
                        .rng
                        .pick(&[0x0000_ffff, 0xffff_0000, 0xaaaa_aaaa, 0x5555_5555]),
                )
            }
            5 => Operand::Imm(self.rng.next_u64() & 0xffff_ffff),
            _ => Operand::Reg(self.pool(Class::B32)),
        }
    }

    /// Counts `n` folds over the sub-group's lanes with participation mask
    /// `mask` in the trip estimate (`FnCx::iters`), which only large
    /// programs read. A fold whose active lanes pass one mask takes no loop
    /// (two levels of straight-line code,
    /// `spirv::lower::exchange::Lanes::share_partials`): an immediate mask
    /// costs nothing. Where the lanes' masks differ each lane folds in a
    /// loop of `LANE_LOOP_TRIPS` (32) trips, which llvmpipe counts against
    /// its cap with one more pass: a register mask may differ.
    fn charge_lane_loops(&mut self, n: u32, mask: &Operand) {
        if !matches!(mask, Operand::Reg(_)) {
            return;
        }
        let trips = n.saturating_mul(pisa_translator::spirv::LANE_LOOP_TRIPS + 1);
        self.f.iters = self
            .f
            .iters
            .saturating_add(self.f.mult.max(1).saturating_mul(trips));
    }

    /// `%activemask`, `shfl`, `ired`, `fred` or `redfirstidx`.
    fn subgroup_op(&mut self) -> Option<Stmt> {
        if !self.cfg.subgroups {
            return None;
        }
        Some(match self.rng.below(6) {
            0 => {
                let d = self.pool(Class::B32);
                inst(
                    "mov.32b".into(),
                    vec![r(d), Operand::Named("%activemask".into())],
                    vec![d],
                )
            }
            1 | 2 => {
                let op = *self.rng.pick(&["up", "dn", "xor", "idx"]);
                let sg = self.rng.chance(0.4);
                let (d, a) = (self.pool(Class::B32), self.pool(Class::B32));
                let lane = if self.rng.chance(0.25) {
                    Operand::Reg(self.pool(Class::B32))
                } else if sg {
                    // segment mask and clamp value from the spec's table
                    let seg = *self.rng.pick(&[0u64, 0x10, 0x18, 0x1c, 0x1e]);
                    let cval = self.rng.below(32);
                    Operand::Imm(seg << 16 | cval << 8 | self.rng.below(32))
                } else {
                    Operand::Imm(self.rng.below(34))
                };
                let mask = self.lane_mask();
                let sg = if sg { ".sg" } else { "" };
                inst(
                    format!("shfl.{op}{sg}.32b"),
                    vec![r(d), r(a), lane, mask],
                    vec![d],
                )
            }
            3 => {
                let w = if self.cfg.int16 && self.rng.chance(0.3) {
                    16
                } else {
                    32
                };
                let c = Class::int(w);
                let (d, a) = (self.pool(c), self.pool(c));
                let op = *self.rng.pick(&[
                    "sum", "smin", "smax", "umin", "umax", "and", "or", "xor", "absmax",
                ]);
                let mask = self.lane_mask();
                self.charge_lane_loops(1, &mask);
                inst(format!("ired.{op}.{w}b"), vec![r(d), r(a), mask], vec![d])
            }
            4 => {
                let mut tys = Vec::new();
                if self.cfg.f32 {
                    tys.push("f");
                }
                if self.cfg.f16 {
                    tys.extend(["hf", "bf"]);
                    if self.cfg.vectors {
                        tys.extend(["hfx2", "bfx2"]);
                    }
                }
                if tys.is_empty() {
                    return None;
                }
                let ty = *self.rng.pick(&tys);
                let c = match ty {
                    "f" => Class::B32,
                    "hf" | "bf" => Class::B16,
                    _ => Class::V2x16,
                };
                let (d, a) = (self.pool(c), self.pool(c));
                let op = *self.rng.pick(&["min", "max", "absmax"]);
                let nanp = if self.cfg.saturate && self.rng.chance(0.3) {
                    ".nanp"
                } else {
                    ""
                };
                let mask = self.lane_mask();
                // a packed pair folds each half on its own
                self.charge_lane_loops(if c == Class::V2x16 { 2 } else { 1 }, &mask);
                self.canonical_nan(inst(
                    format!("fred.{op}{nanp}.{ty}"),
                    vec![r(d), r(a), mask],
                    vec![d],
                ))
            }
            _ => {
                // every lane's own bit is in the mask: a mask without an
                // active lane never ends the spec's loop (undefined)
                let d = self.pool(Class::B32);
                inst(
                    "redfirstidx.32b".into(),
                    vec![r(d), Operand::Imm(0xffff_ffff)],
                    vec![d],
                )
            }
        })
    }

    fn compare(&mut self) -> Stmt {
        let w = self.width();
        let c = Class::int(w);
        let s = if self.rng.chance(0.5) { "s" } else { "u" };
        let cop = *self.rng.pick(&COPS);
        let (a, b) = (self.src(c), self.src(c));
        let d = if self.rng.chance(0.6) {
            self.pool(Class::Pred)
        } else {
            self.pool(Class::B32)
        };
        inst(format!("{s}cmp.{cop}.{w}b"), vec![r(d), a, b], vec![d])
    }

    /// A floating-point instruction, its NaN result made canonical when
    /// the configuration asks (`GenConfig::canonical_nan`).
    fn float_op(&mut self) -> Option<Stmt> {
        let s = self.float_op_raw()?;
        Some(self.canonical_nan(s))
    }

    /// Appends to a statement whose last instruction writes a float result
    /// the two instructions that replace a NaN by the canonical one.
    fn canonical_nan(&self, s: Stmt) -> Stmt {
        if !self.cfg.canonical_nan {
            return s;
        }
        let (mut lines, d) = match s {
            Stmt::Inst(i) => match i.defs.first() {
                Some(&d) => (vec![crate::print::inst(&i)], d),
                None => return Stmt::Inst(i),
            },
            Stmt::Raw {
                lines,
                def: Some(d),
                keep,
                barrier,
            } if !keep && !barrier => (lines, d),
            other => return other,
        };
        let last = lines.last().cloned().unwrap_or_default();
        let mnemonic = last.split_whitespace().next().unwrap_or("");
        let parts: Vec<&str> = mnemonic.split('.').collect();
        // the result type: `.to` of conversions, `.f` for `fmul.full`
        let ty = match parts[0] {
            "fcmp" | "f2i" | "pf2i" | "ftrunc2" => None,
            "fext" | "ftrunc" | "i2f" => parts.get(1).copied(),
            "fmul" if parts.get(1) == Some(&"full") => Some("f"),
            op if op.starts_with('f') => parts.last().copied(),
            _ => None,
        };
        let Some((w, nan, ty)) = (match ty {
            Some("hf") => Some((16, 0x7e00u64, "hf")),
            Some("bf") => Some((16, 0x7fc0, "bf")),
            Some("f") => Some((32, 0x7fc0_0000, "f")),
            Some("df") => Some((64, 0x7ff8_0000_0000_0000, "df")),
            _ => None,
        }) else {
            return Stmt::Raw {
                lines,
                def: Some(d),
                keep: false,
                barrier: false,
            };
        };
        let dr = crate::print::reg(d);
        lines.push(format!("fcmp.ne.{ty} %tp, {dr}, {dr};"));
        lines.push(format!("sel.{w}b {dr}, {nan:#x}, {dr}, %tp;"));
        Stmt::Raw {
            lines,
            def: Some(d),
            keep: false,
            barrier: false,
        }
    }

    fn float_op_raw(&mut self) -> Option<Stmt> {
        let ty = self.float_ty()?;
        let c = Class::int(fbits(ty));
        let d = self.pool(c);
        let ftz = self.ftz();
        Some(match self.rng.below(12) {
            0..=3 => {
                let mut op = *self.rng.pick(&["fadd", "fsub", "fmul", "fmad"]);
                if op == "fmad" && ty == "df" && !self.cfg.fmad_df {
                    op = "fmul";
                }
                let (rnd, sat) = (self.rnd_if(self.cfg.rounding), self.dsat());
                let mut ops = vec![r(d), self.fsrc(ty), self.fsrc(ty)];
                if op == "fmad" {
                    ops.push(self.fsrc(ty));
                }
                inst(format!("{op}{rnd}{ftz}{sat}.{ty}"), ops, vec![d])
            }
            4 => {
                let op = *self.rng.pick(&["fmin", "fmax"]);
                let sat = self.dsat();
                let nanp = if self.cfg.saturate && self.rng.chance(0.2) {
                    ".nanp"
                } else {
                    ""
                };
                let (a, b) = (self.fsrc(ty), self.fsrc(ty));
                if !self.cfg.signed_zero_minmax {
                    // keep +0/-0 pairs apart: make the second operand non-zero
                    let t = if fbits(ty) == 64 {
                        "%tA"
                    } else if fbits(ty) == 32 {
                        "%ta"
                    } else {
                        "%th"
                    };
                    let w = fbits(ty);
                    let one = match ty {
                        "bf" => 0x3f80u64,
                        "hf" => 0x3c00,
                        "f" => 0x3f80_0000,
                        _ => 0x3ff0_0000_0000_0000,
                    };
                    let lines = vec![
                        format!("or.{w}b {t}, {}, {one:#x};", crate::print::operand(&b)),
                        format!(
                            "{op}{ftz}{sat}{nanp}.{ty} {}, {}, {t};",
                            crate::print::reg(d),
                            crate::print::operand(&a)
                        ),
                    ];
                    return Some(Stmt::Raw {
                        lines,
                        def: Some(d),
                        keep: false,
                        barrier: false,
                    });
                }
                inst(
                    format!("{op}{ftz}{sat}{nanp}.{ty}"),
                    vec![r(d), a, b],
                    vec![d],
                )
            }
            5 => {
                let op = *self.rng.pick(&["fabs", "fneg"]);
                let a = self.fsrc(ty);
                inst(format!("{op}{ftz}.{ty}"), vec![r(d), a], vec![d])
            }
            6 if ty == "f" || ty == "df" => {
                // every mode is emulated on .f
                let rnd = self.rnd_if(self.cfg.rounding);
                let (a, b) = (self.fsrc(ty), self.fsrc(ty));
                inst(format!("fdiv{rnd}{ftz}.{ty}"), vec![r(d), a, b], vec![d])
            }
            7 if ty == "f" || ty == "df" => {
                let rnd = self.rnd_if(self.cfg.rounding);
                let a = self.fsrc(ty);
                inst(format!("fsqrt{rnd}{ftz}.{ty}"), vec![r(d), a], vec![d])
            }
            8 if self.cfg.fast_math => {
                let a = self.fsrc(ty);
                if self.rng.chance(0.5) {
                    let b = self.fsrc(ty);
                    inst(format!("fdiv{ftz}.fast.{ty}"), vec![r(d), a, b], vec![d])
                } else {
                    inst(format!("fsqrt{ftz}.fast.{ty}"), vec![r(d), a], vec![d])
                }
            }
            // `frc.f` and `frcp` (every type but `.df`) share the arm
            9 if ty == "f" && !(self.cfg.frcp && self.rng.chance(0.5)) => {
                let a = self.fsrc(ty);
                inst(format!("frc{ftz}.f"), vec![r(d), a], vec![d])
            }
            9 if self.cfg.frcp && ty != "df" => {
                let a = self.fsrc(ty);
                inst(format!("frcp{ftz}.{ty}"), vec![r(d), a], vec![d])
            }
            10 if self.cfg.transcendental && ty == "df" => {
                // the one transcendental of `.df`
                let a = self.fsrc(ty);
                inst(format!("frsqrt{ftz}.fast.df"), vec![r(d), a], vec![d])
            }
            10 if self.cfg.transcendental => {
                let op = *self
                    .rng
                    .pick(&["fsin", "fcos", "fexp2", "flog2", "ftanh", "frsqrt"]);
                let a = self.fsrc(ty);
                let fast = if op == "frsqrt" { ".fast" } else { "" };
                inst(format!("{op}{ftz}{fast}.{ty}"), vec![r(d), a], vec![d])
            }
            11 if ty == "hf" || ty == "bf" => {
                let wide = self.pool(Class::B32);
                let rnd = self.rnd_if(self.cfg.rounding);
                let sat = self.dsat();
                let (a, b) = (self.fsrc(ty), self.fsrc(ty));
                inst(
                    format!("fmul.full{rnd}{ftz}{sat}.{ty}"),
                    vec![r(wide), a, b],
                    vec![wide],
                )
            }
            _ => {
                let cop = *self.rng.pick(&COPS);
                let (a, b) = (self.fsrc(ty), self.fsrc(ty));
                let d = if self.rng.chance(0.6) {
                    self.pool(Class::Pred)
                } else {
                    self.pool(Class::B32)
                };
                inst(format!("fcmp.{cop}{ftz}.{ty}"), vec![r(d), a, b], vec![d])
            }
        })
    }

    fn convert(&mut self) -> Option<Stmt> {
        let s = self.convert_raw()?;
        Some(self.canonical_nan(s))
    }

    fn convert_raw(&mut self) -> Option<Stmt> {
        let ints: Vec<u32> = [8, 16, 32, 64]
            .into_iter()
            .filter(|&w| match w {
                8 => self.cfg.int8,
                16 => self.cfg.int16,
                64 => self.cfg.int64,
                _ => true,
            })
            .collect();
        match self.rng.below(7) {
            0 | 1 => {
                // sext/zext/trunc
                let a = *self.rng.pick(&ints);
                let b = *self.rng.pick(&ints);
                if a == b {
                    return None;
                }
                let (to, from) = (a.max(b), a.min(b));
                let trunc = self.rng.chance(0.4);
                let (to, from) = if trunc { (from, to) } else { (to, from) };
                if (trunc && (to > 32 || from < 16)) || (!trunc && (to < 16 || from > 32)) {
                    return None;
                }
                let op = if trunc {
                    "trunc"
                } else if self.rng.chance(0.5) {
                    "sext"
                } else {
                    "zext"
                };
                let d = self.pool(Class::int(to));
                let s = self.src(Class::int(from));
                Some(inst(format!("{op}.{to}b.{from}b"), vec![r(d), s], vec![d]))
            }
            2 => {
                let fty = self.float_ty()?;
                let w = *self.rng.pick(&ints);
                let s = if self.rng.chance(0.5) { "s" } else { "u" };
                let rnd = if self.rng.chance(0.5) {
                    format!(".{}", self.rng.pick(&RND))
                } else {
                    String::new()
                };
                let d = self.pool(Class::int(w));
                let a = self.fsrc(fty);
                Some(inst(
                    format!("f2i.{s}{w}.{fty}{rnd}"),
                    vec![r(d), a],
                    vec![d],
                ))
            }
            3 => {
                let fty = self.float_ty()?;
                let w = *self.rng.pick(&ints);
                let s = if self.rng.chance(0.5) { "s" } else { "u" };
                // every mode and .dsat are emulated
                let rnd = self.rnd_if(self.cfg.rounding);
                let sat = self.dsat();
                let d = self.pool(Class::int(fbits(fty)));
                let a = self.src(Class::int(w));
                Some(inst(
                    format!("i2f.{fty}.{s}{w}{rnd}{sat}"),
                    vec![r(d), a],
                    vec![d],
                ))
            }
            4 => {
                let from = self.float_ty()?;
                let to = self.float_ty()?;
                if from == "df" || to == "hf" || to == "bf" || fbits(to) <= fbits(from) {
                    return None;
                }
                let d = self.pool(Class::int(fbits(to)));
                let a = self.fsrc(from);
                Some(inst(format!("fext.{to}.{from}"), vec![r(d), a], vec![d]))
            }
            5 => {
                let from = self.float_ty()?;
                let to = self.float_ty()?;
                if !(from == "f" || from == "df") || to == "df" || fbits(to) >= fbits(from) {
                    return None;
                }
                let rnd = self.rnd_if(self.cfg.rounding);
                let (ftz, sat) = (self.ftz(), self.dsat());
                let d = self.pool(Class::int(fbits(to)));
                let a = self.fsrc(from);
                Some(inst(
                    format!("ftrunc.{to}.{from}{rnd}{ftz}{sat}"),
                    vec![r(d), a],
                    vec![d],
                ))
            }
            _ => {
                let ty = self.float_ty()?;
                let rnd = self.rng.pick(&RND);
                let ftz = self.ftz();
                let d = self.pool(Class::int(fbits(ty)));
                let a = self.fsrc(ty);
                Some(inst(
                    format!("frnd.{rnd}{ftz}.{ty}"),
                    vec![r(d), a],
                    vec![d],
                ))
            }
        }
    }

    fn movement(&mut self) -> Option<Stmt> {
        match self.rng.below(8) {
            0 | 1 => {
                let w = *self.rng.pick(&[8, 16, 32, 32, 64]);
                if (w == 8 && !self.cfg.int8)
                    || (w == 16 && !self.cfg.int16)
                    || (w == 64 && !self.cfg.int64)
                {
                    return None;
                }
                let c = Class::int(w);
                let d = self.pool(c);
                let s = if w == 32 && self.rng.chance(0.3) {
                    let sp = *self.rng.pick(&[
                        "%localid.x",
                        "%localid.y",
                        "%localid.z",
                        "%groupid.x",
                        "%groupid.y",
                        "%groupid.z",
                        "%localsize.x",
                        "%localsize.y",
                        "%enqueuedlocalsize.z",
                        "%groupcount.x",
                        "%groupcount.y",
                        "%groupcount.z",
                        "%workdim",
                    ]);
                    Operand::Named(sp.into())
                } else {
                    self.src(c)
                };
                let s = if w == 64 && self.rng.chance(0.3) {
                    let sp = *self.rng.pick(&[
                        "%globalsize.x",
                        "%globalsize.y",
                        "%globalsize.z",
                        "%globaloffset.x",
                        "%globaloffset.y",
                        "%globaloffset.z",
                    ]);
                    Operand::Named(sp.into())
                } else {
                    s
                };
                Some(inst(format!("mov.{w}b"), vec![r(d), s], vec![d]))
            }
            2 if self.cfg.vectors => {
                // element moves through swizzles
                let (vc, ec) = *self.rng.pick(&[
                    (Class::V4x32, Class::B32),
                    (Class::V2x32, Class::B32),
                    (Class::V2x16, Class::B16),
                    (Class::V4x8, Class::B8),
                ]);
                if (ec == Class::B16 && !self.cfg.int16) || (ec == Class::B8 && !self.cfg.int8) {
                    return None;
                }
                let n = if matches!(vc, Class::V4x32 | Class::V4x8) {
                    4
                } else {
                    2
                };
                let v = self.pool(vc);
                let e = self.rng.below(n) as u8;
                let w = ec.bits();
                if self.rng.chance(0.5) {
                    let s = self.src(ec);
                    Some(inst(
                        format!("mov.{w}b"),
                        vec![Operand::Elem(v, e), s],
                        vec![],
                    ))
                } else {
                    let d = self.pool(ec);
                    Some(inst(
                        format!("mov.{w}b"),
                        vec![r(d), Operand::Elem(v, e)],
                        vec![d],
                    ))
                }
            }
            3 if self.cfg.vectors => {
                let v = self.pool(Class::V4x32);
                let idx = self.rng.below(4);
                if self.rng.chance(0.5) {
                    let d = self.pool(Class::B32);
                    Some(inst(
                        format!("extract.{idx}.32b"),
                        vec![r(d), r(v)],
                        vec![d],
                    ))
                } else if self.rng.chance(0.6) {
                    let s = Operand::Reg(self.pool(Class::B32));
                    Some(inst(format!("insert.{idx}.32b"), vec![r(v), s], vec![]))
                } else {
                    let w = self.pool(Class::V2x32);
                    let idx = idx & 2;
                    if self.rng.chance(0.5) {
                        Some(inst(
                            format!("extract.{idx}.v2.32b"),
                            vec![r(w), r(v)],
                            vec![],
                        ))
                    } else {
                        Some(inst(
                            format!("insert.{idx}.v2.32b"),
                            vec![r(v), r(w)],
                            vec![],
                        ))
                    }
                }
            }
            4 if self.cfg.vectors => {
                // dynamic element access with the index masked into range
                let v = self.pool(Class::V4x32);
                let i = self.pool(Class::B32);
                let mut lines = vec![format!("and.32b %tb, {}, 3;", crate::print::reg(i))];
                let def = if self.rng.chance(0.5) {
                    let d = self.pool(Class::B32);
                    lines.push(format!(
                        "extract.dynamic.v4.32b {}, {}, %tb;",
                        crate::print::reg(d),
                        crate::print::reg(v)
                    ));
                    Some(d)
                } else {
                    let s = Operand::Reg(self.pool(Class::B32));
                    lines.push(format!(
                        "insert.dynamic.v4.32b {}, {}, %tb;",
                        crate::print::reg(v),
                        crate::print::operand(&s)
                    ));
                    None
                };
                Some(Stmt::Raw {
                    lines,
                    def,
                    keep: false,
                    barrier: false,
                })
            }
            5 if self.cfg.vectors => {
                // multi-element swizzles: vector halves to and from scalars
                let v = self.pool(Class::V4x32);
                let half = Operand::Named(format!(
                    "{}.{}",
                    crate::print::reg(v),
                    self.rng.pick(&["xy", "zw"])
                ));
                Some(match self.rng.below(4) {
                    0 => {
                        let d = self.pool(Class::B64);
                        inst("mov.64b".into(), vec![r(d), half], vec![d])
                    }
                    1 => {
                        let s = self.pool(Class::B64);
                        inst("mov.64b".into(), vec![half, r(s)], vec![])
                    }
                    2 => {
                        let w = self.pool(Class::V2x32);
                        let d = self.pool(Class::B64);
                        inst(
                            "mov.64b".into(),
                            vec![r(d), Operand::Named(format!("{}.xy", crate::print::reg(w)))],
                            vec![d],
                        )
                    }
                    _ => {
                        let x = self.pool(Class::V2x16);
                        let d = self.pool(Class::B32);
                        inst(
                            "mov.32b".into(),
                            vec![r(d), Operand::Named(format!("{}.xy", crate::print::reg(x)))],
                            vec![d],
                        )
                    }
                })
            }
            6 if self.cfg.int128 => {
                let q = self.pool(Class::B128);
                Some(match self.rng.below(3) {
                    0 => {
                        let v = self.pool(Class::V4x32);
                        inst(
                            "mov.128b".into(),
                            vec![
                                r(q),
                                Operand::Named(format!("{}.xyzw", crate::print::reg(v))),
                            ],
                            vec![q],
                        )
                    }
                    1 => {
                        let v = self.pool(Class::V4x32);
                        inst(
                            "mov.128b".into(),
                            vec![
                                Operand::Named(format!("{}.xyzw", crate::print::reg(v))),
                                r(q),
                            ],
                            vec![],
                        )
                    }
                    _ => {
                        let q2 = self.pool(Class::B128);
                        inst("mov.128b".into(), vec![r(q), r(q2)], vec![q])
                    }
                })
            }
            _ => None,
        }
    }
}
