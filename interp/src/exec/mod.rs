//! Execution of one work-item: frames, operands, control flow and calls.
//! The instruction groups are in their own files, each following its spec
//! chapter (`integer.rs` 12/14/16, `float_ops.rs` 13/16, `data.rs` 15,
//! `memory_ops.rs` 19, synchronization here).
//!
//! A work-item runs until it reaches `barrier.workgroup` or ends
//! ([`Stop`]); the work-group scheduler (`crate::group`) decides who runs
//! next, so barriers and shared memory behave as on a GPU. Modules with
//! sub-group instructions or `%activemask` run each sub-group's 32 lanes in
//! lockstep instead (`subgroup.rs`), stepping every lane through the same
//! [`Exec::step`].

mod data;
mod float_ops;
mod integer;
mod memory_ops;
mod subgroup;

pub use subgroup::{LaneTrap, SubGroup};

use crate::decode::{flag, Decoded, Kind, Op, Opnd, Special};
use crate::memory::{try_zeroed, DeviceMemory, Fault};
use pisa_translator::abi::function_address;
use pisa_translator::ir::Opcode;

/// How deep calls may nest (PISA has no call stack limit; a runaway
/// recursion must end in an error, not a host stack overflow: frames are
/// heap-allocated, so this only bounds memory).
pub const MAX_CALL_DEPTH: usize = 4096;

/// The launch-wide values special registers read (spec 04).
#[derive(Debug, Clone, Copy)]
pub struct NdInfo {
    pub global: [u64; 3],
    pub offset: [u64; 3],
    pub enqueued: [u32; 3],
    pub groups: [u32; 3],
    pub dims: u32,
    /// `%printfbuffer`: this launch's printf buffer (0 when the program
    /// cannot print).
    pub printf_buffer: u64,
}

/// One call's registers.
#[derive(Debug)]
pub struct Frame {
    pub func: u32,
    pub pc: u32,
    pub regs: Vec<u8>,
    /// Where the caller wants the return value (`None`: void or discarded).
    pub ret: Option<Opnd>,
}

/// A work-item: its call stack and `.private` arena.
#[derive(Debug)]
pub struct Item {
    pub local: [u32; 3],
    pub frames: Vec<Frame>,
    pub private: Vec<u8>,
    /// Dynamic instructions executed.
    pub steps: u64,
}

/// Why a work-item stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// At a `barrier.workgroup` (the op index, for matching).
    Barrier {
        func: u32,
        pc: u32,
    },
    Done,
    /// The step budget of this slice ran out (the scheduler checks the
    /// deadline and resumes).
    Yield,
}

/// An error at one instruction.
#[derive(Debug, Clone)]
pub struct Trap {
    pub site: u32,
    pub what: String,
    /// The host could not allocate what the instruction needs (a call's
    /// frame): the device's out-of-memory error, not the kernel's.
    pub out_of_memory: bool,
}

pub type X<T> = Result<T, Trap>;

/// The largest register value in bytes (`.v64.32b`).
pub const MAX_VALUE_BYTES: usize = 256;

/// What executing one work-item can see.
pub struct Exec<'a> {
    pub prog: &'a Decoded,
    pub mem: &'a mut DeviceMemory,
    pub args: &'a [u8],
    pub nd: &'a NdInfo,
    pub group_id: [u32; 3],
    pub group_size: [u32; 3],
    pub shared: &'a mut [u8],
    /// `%activemask` of the instruction being executed (sub-group mode only:
    /// a module that reads it always runs its sub-groups in lockstep).
    pub active: u32,
}

#[inline]
fn load8(regs: &[u8], off: u32) -> u64 {
    let o = off as usize;
    u64::from_le_bytes(regs[o..o + 8].try_into().expect("8 bytes"))
}

#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` of `v` to 64 bits.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

impl Item {
    /// A work-item at the start of `kernel`, with a zeroed frame of
    /// `frame_bytes` and a zeroed `.private` arena of `private_bytes`
    /// (rounded up to 4); `None` when the host cannot allocate them.
    pub fn new(local: [u32; 3], kernel: u32, frame_bytes: u32, private_bytes: u32) -> Option<Item> {
        Some(Item {
            local,
            frames: vec![Frame {
                func: kernel,
                pc: 0,
                regs: try_zeroed(frame_bytes as u64)?,
                ret: None,
            }],
            private: try_zeroed((private_bytes as u64).div_ceil(4) * 4)?,
            steps: 0,
        })
    }
}

/// Operand access within the current frame.
impl Exec<'_> {
    fn special(&self, item: &Item, s: Special) -> u64 {
        let d = |x: u8| (x as usize).min(2);
        match s {
            Special::LocalId(c) => item.local[d(c)] as u64,
            Special::GroupId(c) => self.group_id[d(c)] as u64,
            Special::LocalSize(c) => self.group_size[d(c)] as u64,
            Special::EnqueuedLocalSize(c) => self.nd.enqueued[d(c)] as u64,
            Special::GroupCount(c) => self.nd.groups[d(c)] as u64,
            Special::GlobalSize(c) => self.nd.global[d(c)],
            Special::GlobalOffset(c) => self.nd.offset[d(c)],
            Special::WorkDim => self.nd.dims as u64,
            Special::PrintfBuffer => self.nd.printf_buffer,
            Special::SubgroupSize => 32,
            Special::ActiveMask => self.active as u64,
            // sub-groups are the work-group's work-items in linear order,
            // 32 at a time
            Special::LaneId => {
                let [x, y, z] = item.local;
                let [sx, sy, _] = self.group_size;
                ((z * sy + y) * sx + x) as u64 % 32
            }
        }
    }

    /// An operand's value as `bits` (≤ 64) unsigned bits.
    #[inline]
    pub fn get(&self, item: &Item, o: &Opnd, bits: u32) -> u64 {
        let f = item.frames.last().expect("a frame");
        let v = match o {
            Opnd::Reg { off, bytes } => load8(&f.regs, *off) & mask((*bytes as u32 * 8).min(bits)),
            Opnd::Pred { off, neg } => ((f.regs[*off as usize] & 1) ^ *neg as u8) as u64,
            Opnd::Imm(v) => *v,
            Opnd::Special(s) => self.special(item, *s),
            Opnd::VarAddr(a) => *a,
            Opnd::Func(i) => function_address(*i as usize),
            Opnd::Void | Opnd::Addr(_) | Opnd::Call(_) => 0,
        };
        v & mask(bits)
    }

    /// A 128-bit operand (two 64-bit halves, low first).
    pub fn get128(&self, item: &Item, o: &Opnd) -> u128 {
        let f = item.frames.last().expect("a frame");
        match o {
            Opnd::Reg { off, bytes } if *bytes >= 16 => {
                load8(&f.regs, *off) as u128 | (load8(&f.regs, off + 8) as u128) << 64
            }
            other => self.get(item, other, 64) as u128,
        }
    }

    /// Bytes of an operand (whole vectors, swizzled parts, immediates
    /// zero-extended) into `out`, without allocating: the buffers are on
    /// the caller's stack ([`MAX_VALUE_BYTES`]).
    pub fn read_bytes(&self, item: &Item, o: &Opnd, out: &mut [u8]) {
        let f = item.frames.last().expect("a frame");
        let n = out.len();
        match o {
            Opnd::Reg { off, .. } => out.copy_from_slice(&f.regs[*off as usize..*off as usize + n]),
            other => {
                let v = self.get(item, other, 64).to_le_bytes();
                let k = n.min(8);
                out[..k].copy_from_slice(&v[..k]);
                out[k..].fill(0);
            }
        }
    }

    pub fn get_pred(&self, item: &Item, o: &Opnd) -> bool {
        self.get(item, o, 1) != 0
    }
}

/// Writes `v` into a destination operand (zero-extended to the register).
#[inline]
pub fn set(item: &mut Item, o: &Opnd, v: u64) {
    let f = item.frames.last_mut().expect("a frame");
    match o {
        Opnd::Reg { off, bytes } => {
            let o = *off as usize;
            let n = *bytes as usize;
            let b = v.to_le_bytes();
            if n <= 8 {
                f.regs[o..o + n].copy_from_slice(&b[..n]);
            } else {
                f.regs[o..o + 8].copy_from_slice(&b);
                f.regs[o + 8..o + n].fill(0);
            }
        }
        Opnd::Pred { off, .. } => f.regs[*off as usize] = (v & 1) as u8,
        _ => {}
    }
}

pub fn set128(item: &mut Item, o: &Opnd, v: u128) {
    let f = item.frames.last_mut().expect("a frame");
    if let Opnd::Reg { off, bytes } = o {
        let o = *off as usize;
        let n = (*bytes as usize).min(16);
        f.regs[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

pub fn set_bytes(item: &mut Item, o: &Opnd, data: &[u8]) {
    let f = item.frames.last_mut().expect("a frame");
    if let Opnd::Reg { off, .. } = o {
        let o = *off as usize;
        f.regs[o..o + data.len()].copy_from_slice(data);
    }
}

impl Exec<'_> {
    fn trap(&self, op: &Op, what: impl Into<String>) -> Trap {
        Trap {
            site: op.site,
            what: what.into(),
            out_of_memory: false,
        }
    }

    pub fn fault(&self, op: &Op, f: Fault) -> Trap {
        self.trap(op, f.to_string())
    }

    /// Runs `item` until it stops, for at most `budget` instructions.
    pub fn run(&mut self, item: &mut Item, budget: u64) -> X<Stop> {
        let mut left = budget;
        loop {
            if let Some(stop) = self.step(item)? {
                return Ok(stop);
            }
            left -= 1;
            if left == 0 {
                return Ok(Stop::Yield);
            }
        }
    }

    /// Executes one instruction of `item` (the sub-group executor steps
    /// each lane through this too, so both modes share every instruction's
    /// semantics). `Some` when the work-item stops: at a barrier (its pc
    /// already past it) or at the end of the kernel.
    #[inline(always)]
    pub fn step(&mut self, item: &mut Item) -> X<Option<Stop>> {
        let prog = self.prog;
        let Some(frame) = item.frames.last_mut() else {
            return Ok(Some(Stop::Done));
        };
        let func = frame.func;
        let pc = frame.pc;
        let op = &prog.functions[func as usize].ops[pc as usize];
        frame.pc = pc + 1;
        item.steps += 1;
        match &op.kind {
            Kind::Pisa(opcode) => return self.pisa(item, *opcode, op, func, pc),
            Kind::Jump(t) => frame.pc = *t,
            Kind::Branch {
                pred,
                neg,
                then,
                otherwise,
            } => {
                let p = (frame.regs[*pred as usize] & 1 != 0) ^ neg;
                frame.pc = if p { *then } else { *otherwise };
            }
            Kind::Return(v) => {
                let mut buf = [0u8; MAX_VALUE_BYTES];
                let returned = v.as_ref().map(|v| {
                    let n = value_bytes(v);
                    self.read_bytes(item, v, &mut buf[..n]);
                });
                let done = item.frames.pop().expect("the frame");
                if let (Some(dst), Some(())) = (done.ret, returned) {
                    // the rest of `buf` is zeros: values are zero-extended
                    write_value(item, &dst, &buf);
                }
                if item.frames.is_empty() {
                    return Ok(Some(Stop::Done));
                }
            }
            Kind::Unreachable => {
                return Err(self.trap(op, "the end of a function with a return type was reached"))
            }
            Kind::SetConst { dst, value } => {
                let o = *dst as usize;
                frame.regs[o..o + 4].copy_from_slice(&value.to_le_bytes());
            }
            Kind::TestConst { dst, src, value } => {
                let v = load8(&frame.regs, *src) as u32;
                frame.regs[*dst as usize] = (v == *value) as u8;
            }
        }
        Ok(None)
    }

    fn pisa(
        &mut self,
        item: &mut Item,
        opcode: Opcode,
        op: &Op,
        func: u32,
        pc: u32,
    ) -> X<Option<Stop>> {
        use Opcode::*;
        match opcode {
            Dp4a | Iabs | Iadd | Ineg | Isub | Sdiv | Smad | Smax | Smin | Smul | Uaddc | Udiv
            | Umad | Umax | Umin | Umul | And | Asr | Bfi | Bfn | Bfrev | Cbit | Fbh | Fbl
            | Not | Or | Sbfe | Shr | Shl | Shf | Ubfe | Xor | Scmp | Ucmp | Sel => {
                self.integer(item, opcode, op)?
            }
            Fabs | Fadd | Fcos | Fdiv | Fexp2 | Flog2 | Fmad | Fmax | Fmin | Fmul | Fneg | Frc
            | Frcp | Frsqrt | Fsin | Fsqrt | Fsub | Ftanh | Fcmp => self.float(item, opcode, op)?,
            Addrcast | Addrof | ExtractDynamic | Extract | F2i | Fext | Frnd | Ftrunc | Ftrunc2
            | I2f | InsertDynamic | Insert | Isaddr | Mov | Pf2i | Sext | Trunc | Zext => {
                self.data(item, opcode, op)?
            }
            Fatom | Iatom | Ld | LdParam | St => self.memory(item, opcode, op)?,
            Call => self.call(item, op)?,
            BarrierWorkgroup => return Ok(Some(Stop::Barrier { func, pc })),
            // one work-item runs at a time and memory is coherent: every
            // fence is satisfied
            Fence | LifetimeStart => {}
            Goto | Return => return Err(self.trap(op, "control flow as an instruction")),
            // the sub-group executor (`subgroup.rs`) runs these itself: a
            // module that has them always runs in lockstep
            Fred | Ired | Redfirstidx | Shfl => {
                return Err(self.trap(
                    op,
                    "sub-group instruction outside the sub-group executor (an interpreter bug)",
                ))
            }
        }
        Ok(None)
    }

    fn call(&mut self, item: &mut Item, op: &Op) -> X<()> {
        let cond = op.q.has(flag::COND);
        let (pred, rest) = if cond {
            (Some(&op.ops[0]), &op.ops[1..])
        } else {
            (None, &op.ops[..])
        };
        if let Some(p) = pred {
            if !self.get_pred(item, p) {
                return Ok(());
            }
        }
        let (ret, call) = match rest {
            [ret, Opnd::Call(c)] => (ret, c),
            _ => return Err(self.trap(op, "malformed call")),
        };
        let target = match &call.target {
            Opnd::Func(i) => *i as usize,
            other => {
                let v = self.get(item, other, 64);
                let n = self.prog.functions.len() as u64;
                if v == 0 || v > n {
                    return Err(self.trap(
                        op,
                        format!("call through {v:#x}, which is not the address of a function"),
                    ));
                }
                (v - 1) as usize
            }
        };
        let callee = &self.prog.functions[target];
        if callee.declaration {
            return Err(self.trap(
                op,
                format!(
                    "call to imported function @{} (link its module first)",
                    callee.name
                ),
            ));
        }
        if callee.params.len() != call.args.len() {
            return Err(self.trap(
                op,
                format!(
                    "@{} takes {} arguments, the call passes {}",
                    callee.name,
                    callee.params.len(),
                    call.args.len()
                ),
            ));
        }
        if item.frames.len() >= MAX_CALL_DEPTH {
            return Err(self.trap(op, format!("calls nest deeper than {MAX_CALL_DEPTH}")));
        }
        let Some(mut regs) = try_zeroed(callee.frame_bytes as u64) else {
            return Err(Trap {
                out_of_memory: true,
                ..self.trap(op, format!("a frame of {} bytes", callee.frame_bytes))
            });
        };
        for (&(off, size), a) in callee.params.iter().zip(&call.args) {
            let o = off as usize;
            self.read_bytes(item, a, &mut regs[o..o + size as usize]);
        }
        item.frames.push(Frame {
            func: target as u32,
            pc: 0,
            regs,
            ret: match ret {
                Opnd::Void => None,
                r => Some(r.clone()),
            },
        });
        Ok(())
    }
}

/// Bytes of a value operand (a whole register, vector or immediate).
fn value_bytes(o: &Opnd) -> usize {
    match o {
        Opnd::Reg { bytes, .. } => *bytes as usize,
        _ => 8,
    }
}

fn write_value(item: &mut Item, dst: &Opnd, value: &[u8; MAX_VALUE_BYTES]) {
    match dst {
        Opnd::Reg { bytes, .. } => set_bytes(item, dst, &value[..*bytes as usize]),
        Opnd::Pred { .. } => set(item, dst, value[0] as u64),
        _ => {}
    }
}
