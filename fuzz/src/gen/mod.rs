//! The seeded random-program generator: `generate(seed, cfg)` builds a
//! [`Program`] (see `program.rs`) and its launch, and prints it.
//!
//! Rules that keep every program valid, terminating and deterministic:
//! - registers are initialized by a protected prologue; loops count with
//!   dedicated counters; the product of nested loop counts is bounded;
//! - every address is masked into its variable, every divisor is forced away
//!   from 0 and -1;
//! - each work-item writes only its own output slots, `@gscr` slot and
//!   `.shared` slot; `.shared` exchanges sit between barriers; atomics only
//!   combine order-independently and their returned old values are discarded;
//! - barriers (and calls of functions that contain them) only appear in
//!   work-group-uniform control flow: uniform conditions compare values that
//!   are the same in a work-group (`%u0..%u3`, counters of uniform loops).

mod config;
mod flow;
mod large;
mod mem;
mod ops;
mod vectors;

pub use config::GenConfig;
pub use vectors::VECTOR_TEMPS;

use crate::case::Case;
use crate::program::*;
use crate::rng::Rng;

/// A generated function as callers see it.
#[derive(Debug, Clone)]
pub(crate) struct Sig {
    pub name: String,
    pub params: Vec<ValTy>,
    pub ret: Option<ValTy>,
    pub barrier: bool,
    /// Upper bound of loop iterations one call runs.
    pub cost: u32,
}

/// An enclosing loop or block.
#[derive(Debug, Clone)]
pub(crate) struct LoopCx {
    pub id: u32,
    pub body_uniform: bool,
}

/// The function being generated.
#[derive(Debug, Clone, Default)]
pub(crate) struct FnCx {
    pub name: String,
    pub kernel: bool,
    pub next_id: u32,
    pub loops: Vec<LoopCx>,
    /// Breaks may not target loops below this index (inside irreducible cycles).
    pub loop_floor: usize,
    pub uniform: bool,
    pub may_barrier: bool,
    pub depth: u32,
    /// Product of the counts of the enclosing loops.
    pub mult: u32,
    /// Loop iterations so far (bound for callers).
    pub iters: u32,
    pub budget: i32,
    pub ret: Option<ValTy>,
    pub params: Vec<ValTy>,
    pub has_barrier: bool,
    pub slot: u32,
    /// No breaks, continues or returns (the filler before a construct of a
    /// large program's spine, `gen/large.rs`).
    pub no_exits: bool,
}

pub(crate) struct Gen<'c> {
    pub rng: Rng,
    pub cfg: &'c GenConfig,
    pub f: FnCx,
    pub sigs: Vec<Sig>,
    pub table: Vec<String>,
    /// The kernel gets a large part (`gen/large.rs`).
    pub large: bool,
}

/// Output slots (8 bytes each) every work-item has.
pub const SLOTS: u32 = 32;
/// Slots the final register dump uses; the rest are for stores in the body.
pub const DUMP_SLOTS: u32 = 28;

impl Gen<'_> {
    pub fn id(&mut self) -> u32 {
        self.f.next_id += 1;
        self.f.next_id - 1
    }

    /// The integer classes the configuration allows for arithmetic.
    pub fn int_widths(&self) -> Vec<u32> {
        let mut w = vec![32];
        if self.cfg.int16 {
            w.push(16);
        }
        if self.cfg.int64 {
            w.push(64);
        }
        w
    }

    pub fn pool(&mut self, c: Class) -> Reg {
        Reg {
            class: c,
            idx: self.rng.below(c.pool() as u64) as u8,
        }
    }

    /// Interesting integer bit patterns of a width.
    pub fn int_imm(&mut self, bits: u32) -> Operand {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let min = 1u64 << (bits - 1);
        let v = match self.rng.below(14) {
            0 => 0,
            1 => 1,
            2 => return Operand::Neg(-1),
            3 => min,
            4 => min - 1,
            5 => mask,
            6 => bits as u64 - 1,
            7 => bits as u64,
            8 => bits as u64 + 1 + self.rng.below(40),
            9 => self.rng.below(40),
            10 => return Operand::Neg(-(self.rng.below(100) as i64) - 2),
            11 => 0x5555_5555_5555_5555 & mask,
            _ => self.rng.next_u64() & mask,
        };
        Operand::Imm(v & mask)
    }

    /// Interesting bit patterns of a floating-point type (`bf`, `hf`, `f`, `df`).
    pub fn float_bits(&mut self, ty: &str) -> u64 {
        let (exp_bits, man_bits) = match ty {
            "bf" => (8, 7),
            "hf" => (5, 10),
            "f" => (8, 23),
            _ => (11, 52),
        };
        let bits = 1 + exp_bits + man_bits;
        let sign = 1u64 << (bits - 1);
        let exp_mask = ((1u64 << exp_bits) - 1) << man_bits;
        let man_mask = (1u64 << man_bits) - 1;
        let bias = (1u64 << (exp_bits - 1)) - 1;
        let one = bias << man_bits;
        loop {
            let v = match self.rng.below(16) {
                0 => 0,
                1 => sign,
                2 => one,
                3 => one | sign,
                4 => exp_mask,
                5 => exp_mask | sign,
                6 => exp_mask | (1 << (man_bits - 1)) | (self.rng.next_u64() & (man_mask >> 1)),
                7 => 1,
                8 => man_mask | (sign * self.rng.below(2)),
                9 => exp_mask - 1 - (self.rng.below(2) << man_bits),
                10 => {
                    (one + (self.rng.below(8) << man_bits)) | (self.rng.below(4) << (man_bits - 2))
                }
                11 => (bias + 1) << man_bits | (self.rng.next_u64() & man_mask),
                _ => self.rng.next_u64() & (u64::MAX >> (64 - bits)),
            };
            let nan = v & exp_mask == exp_mask && v & man_mask != 0;
            if self.cfg.nan || !nan {
                return v;
            }
        }
    }

    /// A source operand of a class: mostly pool registers, sometimes an
    /// immediate or (32-bit) a fixed register.
    pub fn src(&mut self, c: Class) -> Operand {
        let r = self.rng.below(100);
        match c {
            Class::B32 if r < 8 => {
                let mut named = vec!["%gid", "%lid", "%u0", "%u1", "%u2", "%u3", "%lsz"];
                let ks: Vec<String> = self.f.loops.iter().map(|l| format!("%k{}", l.id)).collect();
                named.extend(ks.iter().map(|s| s.as_str()));
                Operand::Named(self.rng.pick(&named).to_string())
            }
            Class::B32 if self.cfg.vectors && r < 14 => {
                let v = self.pool(Class::V4x32);
                Operand::Elem(v, self.rng.below(4) as u8)
            }
            Class::B8 | Class::B16 | Class::B32 | Class::B64 if r < 30 => self.int_imm(c.bits()),
            _ => Operand::Reg(self.pool(c)),
        }
    }

    /// A float source operand of a type: a register of its width or a bit pattern.
    pub fn fsrc(&mut self, ty: &str) -> Operand {
        if self.rng.chance(0.25) {
            let v = self.float_bits(ty);
            Operand::Named(format!("0x{v:0w$x}", w = fbits(ty) as usize / 4))
        } else {
            Operand::Reg(self.pool(Class::int(fbits(ty))))
        }
    }

    /// A condition on values that are the same across the work-group.
    pub fn uniform_cond(&mut self) -> Cond {
        let mut srcs = vec!["%u0".to_string(), "%u1".into(), "%u2".into(), "%u3".into()];
        for l in &self.f.loops {
            if l.body_uniform {
                srcs.push(format!("%k{}", l.id));
            }
        }
        let a = self.rng.pick(&srcs).clone();
        let cop = *self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        Cond::Cmp {
            op: format!("ucmp.{cop}.32b"),
            a: Operand::Named(a),
            b: Operand::Imm(self.rng.below(6)),
            neg: self.rng.chance(0.3),
        }
    }

    /// Any condition (divergent in general).
    pub fn any_cond(&mut self) -> Cond {
        if self.rng.chance(0.2) {
            return Cond::Pred {
                reg: self.pool(Class::Pred),
                neg: self.rng.chance(0.5),
            };
        }
        if self.rng.chance(0.2) {
            return self.uniform_cond();
        }
        let w = *self.rng.pick(&self.int_widths());
        let s = if self.rng.chance(0.5) { "s" } else { "u" };
        let cop = *self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        let a = if w == 32 && self.rng.chance(0.4) {
            Operand::Named(self.rng.pick(&["%gid", "%lid"]).to_string())
        } else {
            Operand::Reg(self.pool(Class::int(w)))
        };
        Cond::Cmp {
            op: format!("{s}cmp.{cop}.{w}b"),
            a,
            b: self.src(Class::int(w)),
            neg: self.rng.chance(0.3),
        }
    }

    /// A condition allowed in the current context.
    pub fn cond(&mut self) -> Cond {
        if self.f.uniform {
            self.uniform_cond()
        } else {
            self.any_cond()
        }
    }
}

/// Bits of a floating-point type.
pub fn fbits(ty: &str) -> u32 {
    match ty {
        "bf" | "hf" => 16,
        "f" => 32,
        _ => 64,
    }
}

/// Generates the program of a seed and its launch.
pub fn generate(seed: u64, cfg: &GenConfig) -> Case {
    let mut rng = Rng::new(seed);
    let launch_rng = rng.fork();
    let data_seed = rng.next_u64();
    let mut g = Gen {
        rng,
        cfg,
        f: FnCx::default(),
        sigs: Vec::new(),
        table: Vec::new(),
        large: large::is_large(seed, cfg.large),
    };
    let launch = crate::case::random_launch(launch_rng, cfg);
    let items = launch.items();
    let mut funcs = Vec::new();
    let nfuncs = if cfg.calls {
        g.rng.below(cfg.max_funcs as u64 + 1) as u32
    } else {
        0
    };
    for i in 0..nfuncs {
        funcs.push(flow::function(&mut g, i));
    }
    funcs.push(flow::kernel(&mut g));
    let mut ctab = Vec::new();
    if cfg.consts {
        for _ in 0..16 {
            let v = match g.rng.below(3) {
                0 => g.float_bits("f"),
                1 => match g.int_imm(32) {
                    Operand::Imm(v) => v,
                    Operand::Neg(v) => v as u64,
                    _ => 0,
                },
                _ => g.rng.next_u64(),
            };
            ctab.push(v as u32);
        }
    }
    let program = Program {
        funcs,
        table: g.table.clone(),
        ctab,
        items,
        slot_bytes: SLOTS * 8,
    };
    Case::new(program, launch, data_seed)
}
