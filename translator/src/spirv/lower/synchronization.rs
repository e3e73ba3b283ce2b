//! `barrier.workgroup` and `fence` (spec chapter 20).

use super::common::{Ins, R};
use crate::ir::qualifier::{Addrspace, Memorder, Memscope};
use crate::ir::Opcode;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{MemorySemantics, Scope};

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let mem_sem = |space: Option<Addrspace>| match space {
        Some(Addrspace::Shared) => MemorySemantics::WORKGROUP_MEMORY,
        Some(Addrspace::Global) => MemorySemantics::UNIFORM_MEMORY,
        Some(Addrspace::Generic | Addrspace::Private | Addrspace::Const) | None => {
            MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::UNIFORM_MEMORY
        }
    };
    match ins.i.opcode {
        Opcode::BarrierWorkgroup => {
            // a work-group barrier also orders shared and global memory, as
            // OpenCL's barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE) does
            let wg = fx.tx.const_u32(Scope::Workgroup as u32);
            let sem = fx
                .tx
                .const_u32((MemorySemantics::ACQUIRE_RELEASE | mem_sem(None)).bits());
            fx.tx.b.control_barrier(wg, wg, sem)?;
        }
        Opcode::Fence => {
            // `.system` (host-visible) ordering maps to Device scope: Vulkan
            // shaders have no wider scope (docs/abi.md)
            let scope = match ins.i.quals.memscope {
                Some(Memscope::Subgroup) => Scope::Subgroup,
                Some(Memscope::Workgroup) => Scope::Workgroup,
                Some(Memscope::Gpu | Memscope::System) | None => Scope::Device,
            };
            let order = match ins.i.quals.memorder {
                Some(Memorder::Acquire) => MemorySemantics::ACQUIRE,
                Some(Memorder::Release) => MemorySemantics::RELEASE,
                Some(Memorder::SeqCst) => MemorySemantics::SEQUENTIALLY_CONSISTENT,
                Some(Memorder::AcqRel | Memorder::Relaxed | Memorder::Weak) | None => {
                    MemorySemantics::ACQUIRE_RELEASE
                }
            };
            let s = fx.tx.const_u32(scope as u32);
            if fx.tx.options.relaxed_memory_orders {
                // Mesa 22's llvmpipe miscompiles an OpMemoryBarrier, or an
                // atomic with acquire/release semantics, inside a loop of a
                // function whose callers keep values across the call when
                // loops carry the loop-cap exits or are unrolled: some
                // sub-groups lose their later stores (fuzz seed 7,
                // tests/run/fence_in_loop.pisa; also
                // `../shared/repros/fence-in-dispatch-loop.pisa`). There a
                // work-group runs on one thread, sub-groups one after the
                // other, switching only at barriers, so fences within a
                // work-group have nothing to order; across work-groups a
                // relaxed atomic OR of 0 into the launch's status word is a
                // locked x86 instruction, a full hardware fence, which the
                // compiler does not move memory accesses across.
                let u32t = fx.tx.uint(32);
                let addr = fx.tx.push_addr(crate::abi::Push::Status)?;
                let pt = fx
                    .tx
                    .ptr(rspirv::spirv::StorageClass::PhysicalStorageBuffer, u32t);
                let ptr = fx.tx.b.convert_u_to_ptr(pt, None, addr)?;
                let zero = fx.tx.const_u32(0);
                let relaxed = fx.tx.const_u32(0);
                fx.tx.b.atomic_or(u32t, None, ptr, s, relaxed, zero)?;
            } else {
                let sem = fx
                    .tx
                    .const_u32((order | mem_sem(ins.i.quals.addrspace)).bits());
                fx.tx.b.memory_barrier(s, sem)?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}
