//! Vectors of every shape the spec allows besides the register pools'
//! (02 §2.2.3; 09 §5.2): memory round trips of `.v3.32b`, `.v8.32b`,
//! `.v2/.v4.64b`, `.v2/.v4.16b` and `.v2/.v4.8b` at every offset the
//! alignment rule allows (09 §5.1: the element's size from 32 bits up, so a
//! `.v4.32b` at any multiple of 4), and `.v16.32b` registers taken apart and
//! put together with `insert`/`extract` of scalars and sub-vectors
//! (`.v2` … `.v8`, static and dynamic indices).
//!
//! Each statement works in *vector temporaries* (`%tz_…`, declared by the
//! printer in functions that use them): it writes every element of a
//! temporary before it reads one, so the reducer may delete any statement,
//! and its result goes to a pool register (or to memory the work-item owns:
//! its private array, its `@gscr` slot).

use super::mem::raw;
use super::Gen;
use crate::print::{reg, GSCR_BYTES};
use crate::program::*;

/// The vector temporaries: name and declaration type.
pub const VECTOR_TEMPS: &[(&str, &str)] = &[
    ("%tz_v2x8", ".v2.8b"),
    ("%tz_v4x8", ".v4.8b"),
    ("%tz_v2x16", ".v2.16b"),
    ("%tz_v4x16", ".v4.16b"),
    ("%tz_v2x32", ".v2.32b"),
    ("%tz_v3x32", ".v3.32b"),
    ("%tz_v4x32", ".v4.32b"),
    ("%tz_v5x32", ".v5.32b"),
    ("%tz_v6x32", ".v6.32b"),
    ("%tz_v7x32", ".v7.32b"),
    ("%tz_v8x32", ".v8.32b"),
    ("%tz_v16x32", ".v16.32b"),
    ("%tz_v32x32", ".v32.32b"),
    ("%tz_v64x32", ".v64.32b"),
    ("%tz_v2x64", ".v2.64b"),
    ("%tz_v4x64", ".v4.64b"),
];

/// The temporary of `n` elements of `bits`.
fn temp(n: u32, bits: u32) -> String {
    format!("%tz_v{n}x{bits}")
}

const SWIZZLE: [&str; 4] = ["x", "y", "z", "w"];

impl Gen<'_> {
    /// A random wide-vector statement.
    pub(crate) fn wide_vector(&mut self) -> Stmt {
        if self.rng.chance(0.5) {
            self.vector_round_trip()
        } else {
            self.vector_shuffle()
        }
    }

    /// The vector shapes memory instructions take (09 §5.2) that the
    /// configuration allows: (elements, element bits).
    fn memory_vector_shapes(&self) -> Vec<(u32, u32)> {
        let mut v = vec![(2, 32), (3, 32), (4, 32), (8, 32)];
        if self.cfg.int64 {
            v.extend([(2, 64), (4, 64)]);
        }
        if self.cfg.int16 {
            v.extend([(2, 16), (4, 16)]);
        }
        if self.cfg.int8 {
            v.extend([(2, 8), (4, 8)]);
        }
        v
    }

    /// A load of a vector from memory the work-item owns (its private
    /// array, its `@gscr` slot, in a kernel its 8-byte `.shared` slot),
    /// by the space's own address or a generic one, one element of which
    /// goes to a pool register; or a store of a vector built from pool
    /// registers.
    fn vector_round_trip(&mut self) -> Stmt {
        let n_fn = self.f.name.clone();
        let mut spaces = Vec::new();
        if self.cfg.private {
            spaces.push(("private", 64));
        }
        if self.cfg.globals {
            spaces.push(("global", GSCR_BYTES));
        }
        if self.f.kernel && self.cfg.shared {
            spaces.push(("shared", 8));
        }
        if spaces.is_empty() {
            return self.vector_shuffle();
        }
        let (space, room) = *self.rng.pick(&spaces);
        let generic = self.cfg.generic && self.rng.chance(0.3);
        let shapes = self.memory_vector_shapes();
        let fits: Vec<(u32, u32)> = shapes
            .into_iter()
            .filter(|&(n, b)| n * b / 8 <= room)
            .collect();
        let (n, bits) = *self.rng.pick(&fits);
        let bytes = n * bits / 8;
        // 09 §5.1: the type's size from 32 bits up; below, the whole access
        let align = if bits >= 32 { bits / 8 } else { bytes };
        let off = self.rng.below(((room - bytes) / align + 1) as u64) as u32 * align;
        let t = temp(n, bits);
        let mut lines = Vec::new();
        let addr = match (space, generic) {
            ("private", false) if self.rng.chance(0.5) => format!("@pa_{n_fn} + {off}"),
            ("private", false) => {
                lines.push(format!("mov.32b %ta, {off};"));
                format!("@pa_{n_fn} + %ta")
            }
            ("shared", false) => {
                lines.push("shl.32b %ta, %lid, 3;".into());
                if off != 0 {
                    lines.push(format!("iadd.32b %ta, %ta, {off};"));
                }
                format!("@so_{n_fn} + %ta")
            }
            ("global", false) => {
                lines.push(format!("umul.full.32b %tA, %gid, {GSCR_BYTES};"));
                if off != 0 {
                    lines.push(format!("iadd.64b %tA, %tA, {off};"));
                }
                "@gscr + %tA".to_string()
            }
            (_, _) => {
                let (var, item) = match space {
                    "private" => (format!("@pa_{n_fn}"), None),
                    "shared" => (format!("@so_{n_fn}"), Some("shl.32b %ta, %lid, 3;".into())),
                    _ => (
                        "@gscr".to_string(),
                        Some(format!("umul.32b %ta, %gid, {GSCR_BYTES};")),
                    ),
                };
                lines.push(format!("addrcast.generic.{space} %tB, {var};"));
                if let Some(item) = item {
                    lines.push(item);
                    lines.push("zext.64b.32b %tA, %ta;".into());
                    lines.push("iadd.64b %tB, %tB, %tA;".into());
                }
                if off != 0 {
                    format!("%tB + {off}")
                } else {
                    "%tB".to_string()
                }
            }
        };
        let space = if generic { "generic" } else { space };
        let ty = format!("v{n}.{bits}b");
        if self.rng.chance(0.5) {
            lines.push(format!("ld.{space}.{ty} {t}, [{addr}];"));
            let k = self.rng.below(n as u64) as u32;
            let d = self.pool(Class::int(bits));
            let line = self.element_move(&t, n, bits, k, d, false);
            lines.push(line);
            raw(lines, Some(d))
        } else {
            for k in 0..n {
                let s = self.pool(Class::int(bits));
                let line = self.element_move(&t, n, bits, k, s, true);
                lines.push(line);
            }
            lines.push(format!("st.{space}.{ty} [{addr}], {t};"));
            raw(lines, None)
        }
    }

    /// Moves element `k` of the vector temporary `t` (`n` elements of
    /// `bits`) out to the scalar `r`, or in from it (`into`): `extract`/
    /// `insert` (32-bit elements; the only way past 4 elements) or `mov`
    /// with a swizzle.
    fn element_move(&mut self, t: &str, n: u32, bits: u32, k: u32, r: Reg, into: bool) -> String {
        let r = reg(r);
        if bits == 32 && (n > 4 || self.rng.chance(0.5)) {
            let op = if into { "insert" } else { "extract" };
            let (dst, src) = if into {
                (t, r.as_str())
            } else {
                (r.as_str(), t)
            };
            format!("{op}.{k}.32b {dst}, {src};")
        } else {
            let e = format!("{t}.{}", SWIZZLE[k as usize]);
            let (dst, src) = if into {
                (e.as_str(), r.as_str())
            } else {
                (r.as_str(), e.as_str())
            };
            format!("mov.{bits}b {dst}, {src};")
        }
    }

    /// A `.v16.32b` (sometimes `.v32.32b` or `.v64.32b`) put together from
    /// the pool's `.v4.32b` registers and scalars, then taken apart: a
    /// scalar (static or dynamic index), a sub-vector of 2 to 8, 16 or 32
    /// elements, or a `.v4.32b`/`.v2.32b` register.
    fn vector_shuffle(&mut self) -> Stmt {
        let len: u32 = match self.rng.below(10) {
            0 => 64,
            1 => 32,
            _ => 16,
        };
        let big = temp(len, 32);
        let mut lines = Vec::new();
        for k in (0..len).step_by(4) {
            let v = self.pool(Class::V4x32);
            lines.push(format!("insert.{k}.v4.32b {big}, {};", reg(v)));
        }
        for _ in 0..self.rng.below(3) {
            let s = self.pool(Class::B32);
            if self.rng.chance(0.5) {
                let k = self.rng.below(len as u64);
                lines.push(format!("insert.{k}.32b {big}, {};", reg(s)));
            } else {
                let i = self.pool(Class::B32);
                lines.push(format!("and.32b %ta, {}, {};", reg(i), len - 1));
                lines.push(format!("insert.dynamic.v{len}.32b {big}, {}, %ta;", reg(s)));
            }
        }
        // a sub-vector of n elements, maybe changed and put back
        if self.rng.chance(0.5) {
            let n = match self.rng.below(8) {
                0 if len > 16 => 16,
                1 if len > 32 => 32,
                _ => self.rng.range(2, 8),
            };
            let k = self.rng.below(((len - n) / n + 1) as u64) as u32 * n;
            let sub = temp(n, 32);
            lines.push(format!("extract.{k}.v{n}.32b {sub}, {big};"));
            let s = self.pool(Class::B32);
            let j = self.rng.below(n as u64);
            lines.push(format!("insert.{j}.32b {sub}, {};", reg(s)));
            let k2 = self.rng.below(((len - n) / n + 1) as u64) as u32 * n;
            lines.push(format!("insert.{k2}.v{n}.32b {big}, {sub};"));
        }
        let d = match self.rng.below(4) {
            0 => {
                let d = self.pool(Class::B32);
                let i = self.pool(Class::B32);
                lines.push(format!("and.32b %ta, {}, {};", reg(i), len - 1));
                lines.push(format!(
                    "extract.dynamic.v{len}.32b {}, {big}, %ta;",
                    reg(d)
                ));
                d
            }
            1 => {
                let d = self.pool(Class::V4x32);
                let k = self.rng.below(len as u64 / 4) * 4;
                lines.push(format!("extract.{k}.v4.32b {}, {big};", reg(d)));
                d
            }
            2 => {
                let d = self.pool(Class::V2x32);
                let k = self.rng.below(len as u64 / 2) * 2;
                lines.push(format!("extract.{k}.v2.32b {}, {big};", reg(d)));
                d
            }
            _ => {
                // through an odd-sized sub-vector and a dynamic index
                let n = *self.rng.pick(&[3u32, 5, 6, 7, 8]);
                let k = self.rng.below(((len - n) / n + 1) as u64) as u32 * n;
                let sub = temp(n, 32);
                lines.push(format!("extract.{k}.v{n}.32b {sub}, {big};"));
                let d = self.pool(Class::B32);
                let i = self.pool(Class::B32);
                lines.push(format!("and.32b %ta, {}, 7;", reg(i)));
                lines.push(format!("umin.32b %ta, %ta, {};", n - 1));
                lines.push(format!("extract.dynamic.v{n}.32b {}, {sub}, %ta;", reg(d)));
                d
            }
        };
        raw(lines, Some(d))
    }
}
