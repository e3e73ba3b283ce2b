//! Functions, the kernel and control flow: ifs, counted loops with
//! multi-level breaks and continues, irreducible cycles, early and conditional
//! returns, direct, conditional and indirect calls, barriers in uniform flow.

use super::{Gen, LoopCx, Sig, DUMP_SLOTS};
use crate::print::{reg, GSCR_BYTES};
use crate::program::*;

fn keep(lines: Vec<String>) -> Stmt {
    Stmt::Raw {
        lines,
        def: None,
        keep: true,
        barrier: false,
    }
}

impl Gen<'_> {
    fn uses(&self, c: Class) -> bool {
        let cfg = self.cfg;
        match c {
            Class::B8 => cfg.int8,
            Class::B16 => cfg.int16 || cfg.f16,
            Class::B64 => true,
            Class::B128 => cfg.int128 && cfg.vectors,
            Class::V2x32 | Class::V4x32 => cfg.vectors,
            Class::V2x16 => cfg.vectors && (cfg.packed || cfg.int16),
            Class::V4x8 => cfg.vectors && (cfg.packed || cfg.int8),
            Class::B32 | Class::Pred => true,
        }
    }

    /// Work-item ids, uniform values, and (kernel) argument pointers.
    fn ids(&mut self) -> Vec<String> {
        let mut l: Vec<String> = [
            "mov.32b %ta, %groupid.x;",
            "mov.32b %tb, %enqueuedlocalsize.x;",
            "mov.32b %tc, %localid.x;",
            "umad.32b %gid, %ta, %tb, %tc;",
            "mov.32b %ta, %groupid.y;",
            "mov.32b %tb, %enqueuedlocalsize.y;",
            "mov.32b %tc, %localid.y;",
            "umad.32b %tc, %ta, %tb, %tc;",
            "mov.32b %ta, %groupid.z;",
            "mov.32b %tb, %enqueuedlocalsize.z;",
            "mov.32b %lid, %localid.z;",
            "umad.32b %lid, %ta, %tb, %lid;",
            "mov.64b %tA, %globalsize.y;",
            "trunc.32b.64b %ta, %tA;",
            "umad.32b %tc, %lid, %ta, %tc;",
            "mov.64b %tA, %globalsize.x;",
            "trunc.32b.64b %ta, %tA;",
            "umad.32b %gid, %tc, %ta, %gid;",
            "mov.32b %ta, %localid.z;",
            "mov.32b %tb, %localsize.y;",
            "mov.32b %tc, %localid.y;",
            "umad.32b %tc, %ta, %tb, %tc;",
            "mov.32b %tb, %localsize.x;",
            "mov.32b %ta, %localid.x;",
            "umad.32b %lid, %tc, %tb, %ta;",
            "mov.32b %ta, %localsize.y;",
            "mov.32b %tb, %localsize.z;",
            "umul.32b %lsz, %ta, %tb;",
            "mov.32b %ta, %localsize.x;",
            "umul.32b %lsz, %lsz, %ta;",
            "mov.32b %u1, %groupid.x;",
            "mov.32b %u2, %enqueuedlocalsize.x;",
            "mov.32b %u3, %groupid.y;",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if self.f.kernel {
            l.extend(
                [
                    "ld.param.32b %u0, [%n];",
                    "ld.param.64b %tB, [%out];",
                    "umul.full.32b %tA, %gid, 256;",
                    "iadd.64b %obase, %tB, %tA;",
                    "ld.param.64b %tin, [%in];",
                    "ld.param.64b %tatom, [%atom];",
                ]
                .iter()
                .map(|s| s.to_string()),
            );
        } else {
            l.push("mov.32b %u0, %workdim;".into());
        }
        l
    }

    /// Initializes every pool register (kernel: from the input buffer;
    /// function: from the parameters and constants).
    fn init_pools(&mut self) -> Vec<String> {
        let mut l = Vec::new();
        let v = |c: Class, i: u8| reg(Reg { class: c, idx: i });
        if self.f.kernel {
            l.push("and.32b %ta, %gid, 63;".into());
            l.push("shl.32b %ta, %ta, 4;".into());
            l.push("zext.64b.32b %tA, %ta;".into());
            l.push("iadd.64b %tA, %tin, %tA;".into());
            for i in 0..Class::B32.pool() {
                l.push(format!(
                    "ld.global.32b {}, [%tA + {}];",
                    v(Class::B32, i),
                    4 * i
                ));
            }
            l.push("xor.32b %r0, %r0, %gid;".into());
            l.push("iadd.32b %r1, %r1, %gid;".into());
            for i in 0..Class::B64.pool() {
                l.push(format!(
                    "ld.global.64b {}, [%tA + {}];",
                    v(Class::B64, i),
                    32 + 8 * i as u32
                ));
            }
            if self.uses(Class::B16) {
                for i in 0..Class::B16.pool() {
                    l.push(format!(
                        "ld.global.16b {}, [%tA + {}];",
                        v(Class::B16, i),
                        64 + 2 * i as u32
                    ));
                }
            }
            if self.uses(Class::B8) {
                for i in 0..Class::B8.pool() {
                    l.push(format!(
                        "ld.global.8b {}, [%tA + {}];",
                        v(Class::B8, i),
                        72 + i as u32
                    ));
                }
            }
            if self.uses(Class::V4x32) {
                for i in 0..Class::V4x32.pool() {
                    l.push(format!(
                        "ld.global.v4.32b {}, [%tA + {}];",
                        v(Class::V4x32, i),
                        80 + 16 * i as u32
                    ));
                }
                l.push("ld.param.v2.32b %w0, [%pair];".into());
            }
            if self.uses(Class::V2x16) {
                for i in 0..Class::V2x16.pool() {
                    l.push(format!(
                        "ld.global.v2.16b {}, [%tA + {}];",
                        v(Class::V2x16, i),
                        120 + 4 * i as u32
                    ));
                }
            }
            if self.uses(Class::V4x8) {
                l.push("ld.global.v4.8b %y0, [%tA + 128];".into());
            }
        } else {
            let params = self.f.params.clone();
            let from = |c: Class| params.iter().position(|p| p.class() == c);
            for i in 0..Class::B32.pool() {
                match from(Class::B32) {
                    Some(j) if i % 2 == 0 => l.push(format!(
                        "xor.32b %r{i}, %a{j}, {:#x};",
                        self.rng.below(1 << 20) * i as u64
                    )),
                    _ => l.push(format!("mov.32b %r{i}, {:#x};", self.rng.next_u64() as u32)),
                }
            }
            l.push("xor.32b %r1, %r1, %gid;".into());
            for i in 0..Class::B64.pool() {
                match from(Class::B64) {
                    Some(j) if i == 0 => l.push(format!("mov.64b %d0, %a{j};")),
                    _ => {
                        l.push(format!("zext.64b.32b %d{i}, %r{};", i + 1));
                        l.push(format!("shl.64b %d{i}, %d{i}, {};", 3 + 13 * i as u32));
                        l.push(format!("xor.64b %d{i}, %d{i}, {:#x};", self.rng.next_u64()));
                    }
                }
            }
            if self.uses(Class::B16) {
                for i in 0..Class::B16.pool() {
                    match from(Class::B16) {
                        Some(j) if i == 0 => l.push(format!("mov.16b %h0, %a{j};")),
                        _ => l.push(format!("trunc.16b.32b %h{i}, %r{};", i + 2)),
                    }
                }
            }
            if self.uses(Class::B8) {
                for i in 0..Class::B8.pool() {
                    l.push(format!("trunc.8b.32b %c{i}, %r{};", i + 3));
                }
            }
            if self.uses(Class::V4x32) {
                for i in 0..Class::V4x32.pool() {
                    for (e, s) in ["x", "y", "z", "w"].iter().enumerate() {
                        l.push(format!("mov.32b %v{i}.{s}, %r{};", (e + i as usize) % 6));
                    }
                }
                match from(Class::V2x32) {
                    Some(j) => l.push(format!("mov.64b %w0.xy, %a{j}.xy;")),
                    None => {
                        l.push("mov.32b %w0.x, %r4;".into());
                        l.push("mov.32b %w0.y, %r5;".into());
                    }
                }
            }
            if self.uses(Class::V2x16) {
                for i in 0..Class::V2x16.pool() {
                    l.push(format!("mov.16b %x{i}.x, %h{};", i % 3));
                    l.push(format!("mov.16b %x{i}.y, %h{};", (i + 1) % 3));
                }
            }
            if self.uses(Class::V4x8) {
                for (e, s) in ["x", "y", "z", "w"].iter().enumerate() {
                    l.push(format!("trunc.8b.32b %th, %r{e};").replace("%th", &format!("%y0.{s}")));
                }
            }
        }
        if self.uses(Class::B128) {
            l.push("mov.128b %q0, %v1.xyzw;".into());
        }
        for i in 0..Class::Pred.pool() {
            l.push(format!("and.32b %ta, %r{}, {};", i + 2, 1 << i));
            l.push(format!("ucmp.ne.32b %p{i}, %ta, 0;"));
        }
        l
    }

    /// Memory every work-item owns, initialized before anything reads it.
    fn init_memory(&mut self, private_bytes: u32) -> Vec<String> {
        let n = self.f.name.clone();
        let mut l = Vec::new();
        if private_bytes > 0 {
            for k in 0..private_bytes / 8 {
                l.push(format!(
                    "st.private.64b [@pa_{n} + {}], %d{};",
                    8 * k,
                    k % 3
                ));
            }
        }
        if self.f.kernel {
            if self.cfg.globals {
                l.push(format!("umul.full.32b %tA, %gid, {GSCR_BYTES};"));
                l.push("st.global.64b [@gscr + %tA], %d0;".into());
                l.push("iadd.64b %tA, %tA, 8;".into());
                l.push("st.global.64b [@gscr + %tA], %d1;".into());
            }
            if self.cfg.shared {
                l.push("shl.32b %ta, %lid, 3;".into());
                l.push(format!("st.shared.64b [@so_{n} + %ta], %d2;"));
                if self.cfg.barriers && self.cfg.atomics {
                    l.push("ucmp.eq.32b %tp, %lid, 0;".into());
                    l.push("goto.cond !%tp, K_init;".into());
                    l.push("mov.32b %ta, 0;".into());
                    l.push(format!("st.shared.32b [@sc_{n}], %ta;"));
                    l.push(format!("st.shared.32b [@sc_{n} + 4], %ta;"));
                    l.push("K_init:".into());
                    l.push("barrier.workgroup;".into());
                }
            }
        }
        l
    }

    /// Statements until the budget or `n` runs out.
    pub(crate) fn block(&mut self, n: u32) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            if self.f.budget <= 0 {
                break;
            }
            out.push(self.stmt());
        }
        out
    }

    fn stmt(&mut self) -> Stmt {
        self.f.budget -= 1;
        loop {
            let deep = self.f.depth < self.cfg.max_depth;
            let s = match self.rng.below(100) {
                0..=44 => Some(self.alu()),
                45..=61 => self.memory(),
                62..=69 if deep => Some(self.if_stmt()),
                70..=75 if deep && self.cfg.loops => self.loop_stmt(),
                76..=79 if self.f.uniform && self.f.may_barrier => {
                    let s = self.barrier_stmt();
                    if s.is_some() {
                        self.f.has_barrier = true;
                    }
                    s
                }
                80..=85 if self.cfg.calls => self.call(),
                86..=90 if !self.f.no_exits => self.jump(),
                91..=93 if self.cfg.early_returns && !self.f.no_exits => self.ret(),
                94..=96 if deep && self.cfg.irreducible => self.irreducible(),
                _ => None,
            };
            if let Some(s) = s {
                return s;
            }
        }
    }

    pub(crate) fn nested<T>(&mut self, uniform: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let (u, d) = (self.f.uniform, self.f.depth);
        self.f.uniform = uniform;
        self.f.depth += 1;
        let r = f(self);
        self.f.uniform = u;
        self.f.depth = d;
        r
    }

    fn if_stmt(&mut self) -> Stmt {
        let id = self.id();
        let (cond, uni) = if self.f.uniform && self.rng.chance(0.5) {
            (self.uniform_cond(), true)
        } else {
            (self.any_cond(), false)
        };
        let uniform = self.f.uniform && uni;
        let n = self.rng.range(1, 5);
        let then_ = self.nested(uniform, |g| g.block(n));
        let else_ = if self.rng.chance(0.4) {
            let n = self.rng.range(1, 4);
            self.nested(uniform, |g| g.block(n))
        } else {
            Vec::new()
        };
        Stmt::If {
            id,
            cond,
            then_,
            else_,
        }
    }

    fn loop_stmt(&mut self) -> Option<Stmt> {
        let room = 64 / self.f.mult.max(1);
        if room < 1 {
            return None;
        }
        let count = self.rng.range(0, room.min(6));
        let id = self.id();
        let body_uniform = self.f.uniform && self.rng.chance(0.6);
        self.f.loops.push(LoopCx { id, body_uniform });
        let m = self.f.mult;
        self.f.mult = m * count.max(1);
        self.f.iters += self.f.mult;
        let n = self.rng.range(1, 6);
        let body = self.nested(body_uniform, |g| g.block(n));
        self.f.mult = m;
        self.f.loops.pop();
        Some(Stmt::Loop {
            id,
            count,
            bottom_test: self.rng.chance(0.4),
            body,
        })
    }

    fn irreducible(&mut self) -> Option<Stmt> {
        let room = 64 / self.f.mult.max(1);
        if room < 1 {
            return None;
        }
        let count = self.rng.range(1, room.min(5));
        let id = self.id();
        let enter_b = self.any_cond();
        let (m, floor) = (self.f.mult, self.f.loop_floor);
        self.f.mult = m * count;
        self.f.iters += self.f.mult;
        self.f.loop_floor = self.f.loops.len();
        let (na, nb) = (self.rng.range(1, 4), self.rng.range(1, 4));
        let a = self.nested(false, |g| g.block(na));
        let b = self.nested(false, |g| g.block(nb));
        self.f.mult = m;
        self.f.loop_floor = floor;
        Some(Stmt::Irreducible {
            id,
            count,
            enter_b,
            a,
            b,
        })
    }

    /// A break or continue to an enclosing loop allowed here.
    fn jump(&mut self) -> Option<Stmt> {
        let targets: Vec<u32> = self.f.loops[self.f.loop_floor..]
            .iter()
            .filter(|l| self.f.uniform || !l.body_uniform)
            .map(|l| l.id)
            .collect();
        if targets.is_empty() {
            return None;
        }
        let target = *self.rng.pick(&targets);
        let cond = if self.rng.chance(0.85) {
            Some(self.cond())
        } else {
            None
        };
        Some(if self.rng.chance(0.6) {
            Stmt::Break { target, cond }
        } else {
            Stmt::Continue { target, cond }
        })
    }

    fn ret(&mut self) -> Option<Stmt> {
        let divergent_ok = !self.f.may_barrier;
        let cond = if self.f.uniform {
            Some(self.uniform_cond())
        } else if divergent_ok {
            Some(self.any_cond())
        } else {
            return None;
        };
        let cond = if divergent_ok && self.rng.chance(0.1) {
            None
        } else {
            cond
        };
        let value = self.f.ret.map(|t| Operand::Reg(self.pool(t.class())));
        Some(Stmt::Return { cond, value })
    }

    fn call(&mut self) -> Option<Stmt> {
        let mult = self.f.mult.max(1);
        let cands: Vec<Sig> = self
            .sigs
            .iter()
            // a function with a barrier only where barriers may be: not in
            // the kernel's tail, after work-items may have returned early
            // (the reference device caught such a program: seed 1213)
            .filter(|s| {
                (!s.barrier || (self.f.uniform && self.f.may_barrier)) && mult * s.cost <= 512
            })
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let s = self.rng.pick(&cands).clone();
        let target = match self.table.iter().position(|t| *t == s.name) {
            // indirect calls only from the kernel: such a call counts as a call
            // of every address-taken function, so from a function it could
            // close a cycle
            Some(i) if self.f.kernel && self.cfg.indirect_calls && self.rng.chance(0.5) => {
                Target::Table(i)
            }
            _ if self.f.kernel && self.cfg.indirect_calls && !s.barrier && self.rng.chance(0.3) => {
                Target::Addrof(s.name.clone())
            }
            _ => Target::Direct(s.name.clone()),
        };
        let args = s
            .params
            .iter()
            .map(|p| match p {
                ValTy::V2x32 => Operand::Reg(self.pool(Class::V2x32)),
                p => Operand::Reg(self.pool(p.class())),
            })
            .collect();
        let dst = s.ret.map(|t| self.pool(t.class()));
        let cond = if self.rng.chance(0.25) {
            Some(if s.barrier {
                self.uniform_cond()
            } else {
                self.cond()
            })
        } else {
            None
        };
        self.f.iters += mult * s.cost;
        self.f.has_barrier |= s.barrier;
        Some(Stmt::Call {
            dst,
            target,
            args,
            cond,
        })
    }

    fn begin(
        &mut self,
        name: String,
        kernel: bool,
        params: Vec<ValTy>,
        ret: Option<ValTy>,
        may_barrier: bool,
        budget: u32,
    ) {
        self.f = super::FnCx {
            name,
            kernel,
            uniform: true,
            may_barrier,
            mult: 1,
            budget: budget as i32,
            ret,
            params,
            ..Default::default()
        };
    }

    fn prologue(&mut self, private_bytes: u32) -> Vec<Stmt> {
        let mut l = self.ids();
        l.extend(self.init_pools());
        l.extend(self.init_memory(private_bytes));
        vec![keep(l)]
    }
}

/// Function `f<i>` (callees are the functions before it).
pub(crate) fn function(g: &mut Gen, i: u32) -> Func {
    let may_barrier = g.cfg.barriers && g.rng.chance(0.3);
    let in_table = g.cfg.indirect_calls && !may_barrier && g.rng.chance(0.4);
    let tys: Vec<ValTy> = {
        let mut t = vec![ValTy::B32, ValTy::B32, ValTy::B64];
        if g.cfg.int16 {
            t.push(ValTy::B16);
        }
        if g.cfg.vectors {
            t.push(ValTy::V2x32);
        }
        t
    };
    let (params, ret) = if in_table {
        (vec![ValTy::B32, ValTy::B32], Some(ValTy::B32))
    } else {
        let n = g.rng.below(4);
        let params = (0..n).map(|_| *g.rng.pick(&tys)).collect();
        let ret = if g.rng.chance(0.75) {
            Some(*g.rng.pick(&tys))
        } else {
            None
        };
        (params, ret)
    };
    let name = format!("f{i}");
    let private_bytes = if g.cfg.private { 64 } else { 0 };
    g.begin(
        name.clone(),
        false,
        params.clone(),
        ret,
        may_barrier,
        g.cfg.max_stmts / 2,
    );
    let mut body = g.prologue(private_bytes);
    let n = g.cfg.max_stmts / 2;
    body.extend(g.block(n));
    body.push(Stmt::Return {
        cond: None,
        value: ret.map(|t| Operand::Reg(g.pool(t.class()))),
    });
    let f = Func {
        name: name.clone(),
        kernel: false,
        params: params.clone(),
        ret,
        counters: g.f.next_id,
        private_bytes,
        body,
    };
    g.sigs.push(Sig {
        name: name.clone(),
        params,
        ret,
        barrier: g.f.has_barrier,
        cost: g.f.iters + 1,
    });
    if in_table {
        g.table.push(name);
    }
    f
}

/// The kernel `@k`: a uniform main part (barriers allowed), a tail where
/// work-items may return early, and a dump of every register into the
/// work-item's output slots.
pub(crate) fn kernel(g: &mut Gen) -> Func {
    let private_bytes = if g.cfg.private { 64 } else { 0 };
    g.begin("k".into(), true, Vec::new(), None, true, g.cfg.max_stmts);
    let mut body = g.prologue(private_bytes);
    let main = g.cfg.max_stmts * 3 / 4;
    body.extend(g.block(main));
    if g.large {
        body.extend(g.large_part());
    }
    g.f.may_barrier = false;
    g.f.budget += (g.cfg.max_stmts / 4) as i32;
    let tail = g.cfg.max_stmts / 4;
    body.extend(g.block(tail));
    let mut slot = 0u32;
    let mut order: Vec<Class> = Class::ALL
        .into_iter()
        .filter(|&c| c != Class::B128)
        .collect();
    order.push(Class::B128);
    for c in order {
        if !g.uses(c) {
            continue;
        }
        for i in 0..c.pool() {
            let r = reg(Reg { class: c, idx: i });
            if c.bits() > 64 && slot % 2 == 1 {
                slot += 1;
            }
            let line = match c {
                Class::Pred => format!(
                    "sel.32b %ta, 1, 0, {r};\n\tst.global.32b [%obase + {}], %ta;",
                    slot * 8
                ),
                Class::B128 => format!(
                    "mov.128b %v0.xyzw, {r};\n\tst.global.v4.32b [%obase + {}], %v0;",
                    slot * 8
                ),
                _ => format!("st.global{} [%obase + {}], {r};", c.decl(), slot * 8),
            };
            slot += if c.bits() > 64 { 2 } else { 1 };
            body.push(Stmt::Raw {
                lines: line.split("\n\t").map(|s| s.to_string()).collect(),
                def: None,
                keep: false,
                barrier: false,
            });
        }
    }
    debug_assert!(slot <= DUMP_SLOTS);
    Func {
        name: "k".into(),
        kernel: true,
        params: Vec::new(),
        ret: None,
        counters: g.f.next_id,
        private_bytes,
        body,
    }
}
