//! `barrier.workgroup` and `fence` (spec chapter 20).

use super::{Ins, R};
use crate::ir::qualifier::{Addrspace, Memorder, Memscope};
use crate::ir::Opcode;
use crate::spirv::function::FunctionCx;
use rspirv::spirv::{MemorySemantics, Scope};

pub fn lower(fx: &mut FunctionCx, ins: &Ins) -> R<bool> {
    let mem_sem = |space: Option<Addrspace>| match space {
        Some(Addrspace::Shared) => MemorySemantics::WORKGROUP_MEMORY,
        Some(Addrspace::Global) => MemorySemantics::UNIFORM_MEMORY,
        _ => MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::UNIFORM_MEMORY,
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
            let scope = match ins.qual() {
                Some(Memscope::Subgroup) => Scope::Subgroup,
                Some(Memscope::Workgroup) => Scope::Workgroup,
                Some(Memscope::Gpu | Memscope::System) | None => Scope::Device,
            };
            let order = match ins.qual() {
                Some(Memorder::Acquire) => MemorySemantics::ACQUIRE,
                Some(Memorder::Release) => MemorySemantics::RELEASE,
                Some(Memorder::SeqCst) => MemorySemantics::SEQUENTIALLY_CONSISTENT,
                Some(Memorder::AcqRel | Memorder::Relaxed | Memorder::Weak) | None => {
                    MemorySemantics::ACQUIRE_RELEASE
                }
            };
            let s = fx.tx.const_u32(scope as u32);
            let sem = fx.tx.const_u32((order | mem_sem(ins.qual())).bits());
            fx.tx.b.memory_barrier(s, sem)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}
