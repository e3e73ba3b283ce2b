//! Floating-point instructions (spec 13) and `fcmp` (16 §5.3): operands
//! are read as bit patterns and handed to the exact arithmetic of
//! [`crate::float`], lane by lane for `.hfx2`/`.bfx2`.

use super::{mask, set, Exec, Item, X};
use crate::decode::{flag, Op, Quals};
use crate::float::{self, BinOp, FloatMode, UnOp};
use pisa_translator::ir::qualifier::Cop;
use pisa_translator::ir::Opcode;

pub fn mode(q: &Quals) -> FloatMode {
    FloatMode {
        round: q.rnd.unwrap_or_default(),
        ftz: q.has(flag::FTZ),
        dsat: q.has(flag::DSAT),
        nanp: q.has(flag::NANP),
    }
}

pub fn cmp_op(c: Cop) -> float::CmpOp {
    match c {
        Cop::Eq => float::CmpOp::Eq,
        Cop::Ne => float::CmpOp::Ne,
        Cop::Gt => float::CmpOp::Gt,
        Cop::Ge => float::CmpOp::Ge,
        Cop::Lt => float::CmpOp::Lt,
        Cop::Le => float::CmpOp::Le,
    }
}

impl Exec<'_> {
    pub(super) fn float(&mut self, item: &mut Item, opcode: Opcode, op: &Op) -> X<()> {
        use Opcode::*;
        let ty = op.q.ty.unwrap_or_default();
        let Some(ft) = ty.float else {
            return Err(self.trap(op, "floating-point instruction without a float type"));
        };
        let (n, bits) = (ty.lanes as u32, ty.bits as u32);
        let total = n * bits;
        let o = &op.ops;
        let m = mode(&op.q);
        let src = |k: usize| self.get(item, &o[k], total);
        let lane = |v: u64, i: u32| (v >> (i * bits)) & mask(bits);
        if opcode == Fcmp {
            let cop = op.q.cop.unwrap_or(Cop::Eq);
            let (a, b) = (src(1), src(2));
            let test = |x: u64, y: u64| float::compare_ftz(cmp_op(cop), ft, x, y, m.ftz);
            if n == 2 {
                let mut r = 0u64;
                for i in 0..2 {
                    if test(lane(a, i), lane(b, i)) {
                        r |= 0xFFFF << (16 * i);
                    }
                }
                set(item, &o[0], r);
                return Ok(());
            }
            return self.set_cmp(item, &o[0], test(a, b));
        }
        if opcode == Fmul && op.q.has(flag::FULL) {
            // widening: the product in twice the width (13 §2.10)
            let r = float::mul_full(ft, src(1), src(2), m);
            set(item, &o[0], r);
            return Ok(());
        }
        let srcs: Vec<u64> = (1..o.len()).map(src).collect();
        let mut out = 0u64;
        for i in 0..n {
            let s = |k: usize| lane(srcs[k], i);
            let r = match opcode {
                Fadd => float::binary(BinOp::Add, ft, s(0), s(1), m),
                Fsub => float::binary(BinOp::Sub, ft, s(0), s(1), m),
                Fmul => float::binary(BinOp::Mul, ft, s(0), s(1), m),
                Fdiv => float::binary(BinOp::Div, ft, s(0), s(1), m),
                Fmin => float::binary(BinOp::Min, ft, s(0), s(1), m),
                Fmax => float::binary(BinOp::Max, ft, s(0), s(1), m),
                Fmad => float::fma(ft, s(0), s(1), s(2), m),
                _ => {
                    let u = match opcode {
                        Fabs => UnOp::Abs,
                        Fneg => UnOp::Neg,
                        Fsqrt => UnOp::Sqrt,
                        Frcp => UnOp::Rcp,
                        Frsqrt => UnOp::Rsqrt,
                        Frc => UnOp::Frc,
                        Fsin => UnOp::Sin,
                        Fcos => UnOp::Cos,
                        Fexp2 => UnOp::Exp2,
                        Flog2 => UnOp::Log2,
                        Ftanh => UnOp::Tanh,
                        _ => unreachable!("not a floating-point instruction"),
                    };
                    float::unary(u, ft, s(0), m)
                }
            };
            out |= (r & mask(bits)) << (i * bits);
        }
        set(item, &o[0], out);
        Ok(())
    }
}
