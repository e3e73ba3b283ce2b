//! Launches and the handles they name: programs ([`ProgramId`]) and buffers
//! ([`BufferId`]) of a device, the kernels and globals of a loaded program,
//! the NDRange, and [`resolve_launch`], which every device uses to check a
//! launch and build its argument block (docs/abi.md).

use super::{Result, RuntimeError};
use pisa_translator::abi::{Layout, ParamSlot};

/// A buffer allocated on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferId(usize);

impl BufferId {
    /// The handle of a device's buffer number `i`.
    pub fn from_index(i: usize) -> BufferId {
        BufferId(i)
    }
    pub fn index(self) -> usize {
        self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProgramId(usize);

impl ProgramId {
    /// The handle of a device's program number `i`.
    pub fn from_index(i: usize) -> ProgramId {
        ProgramId(i)
    }
    pub fn index(self) -> usize {
        self.0
    }
}

#[derive(Debug, Clone)]
pub struct KernelInfo {
    pub name: String,
    /// `None` for raw SPIR-V, whose parameters are packed from the arguments.
    pub params: Option<Vec<ParamSlot>>,
    pub param_bytes: u32,
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// The most work-items a work-group of this kernel may have, besides
    /// the device's limit (kernels with emulated sub-groups).
    pub max_work_group_items: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct GlobalInfo {
    pub name: String,
    /// The name the host uses: `.host_access("NAME")`, or the variable's own
    /// name when exported.
    pub host_name: Option<String>,
    pub offset: u64,
    pub size: u64,
}

impl GlobalInfo {
    /// The data-block variables of a module's layout (docs/abi.md).
    pub fn of_layout(l: &Layout) -> Vec<GlobalInfo> {
        l.data
            .iter()
            .map(|v| GlobalInfo {
                name: v.name.clone(),
                host_name: v.host_name.clone(),
                offset: v.offset,
                size: v.size,
            })
            .collect()
    }
}

/// A 1–3 dimensional NDRange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NdRange {
    pub global: [u32; 3],
    /// `None`: the kernel's `.reqd_work_group_size`, else a default.
    pub local: Option<[u32; 3]>,
    pub offset: [u32; 3],
    pub dims: u32,
}

impl NdRange {
    pub fn d1(global: u32) -> NdRange {
        NdRange {
            global: [global, 1, 1],
            local: None,
            offset: [0; 3],
            dims: 1,
        }
    }
    pub fn local(mut self, local: [u32; 3]) -> NdRange {
        self.local = Some(local);
        self
    }
}

/// One kernel launch: arguments are the bytes of each parameter, in order.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: ProgramId,
    pub kernel: String,
    pub range: NdRange,
    pub args: Vec<Vec<u8>>,
}

/// What a finished launch reports besides its memory.
#[derive(Debug, Clone, Default)]
pub struct LaunchTiming {
    /// GPU time of each launch's dispatch, from timestamps (when the queue
    /// supports them).
    pub kernel_ns: Option<u64>,
    /// What the kernel printed, when it can print (reads `%printfbuffer`).
    pub printf: Option<super::printf::PrintfOutput>,
}

/// Checks a launch against its module's kernels and the device's work-group
/// limit, and builds the argument block: (kernel index, local size, block).
/// Every device resolves launches this way (docs/abi.md).
pub fn resolve_launch(
    kernels: &[KernelInfo],
    l: &Launch,
    max_workgroup_invocations: u32,
) -> Result<(usize, [u32; 3], Vec<u8>)> {
    let name = l.kernel.trim_start_matches('@');
    let ki =
        kernels
            .iter()
            .position(|k| k.name == name)
            .ok_or_else(|| RuntimeError::UnknownKernel {
                name: name.to_string(),
                kernels: kernels.iter().map(|k| format!("@{}", k.name)).collect(),
            })?;
    let k = &kernels[ki];
    let local = match (l.range.local, k.reqd_work_group_size) {
        (Some(a), Some(b)) if a != b => {
            return Err(RuntimeError::BadLaunch(format!(
                "local size {a:?} disagrees with the kernel's .reqd_work_group_size{b:?}"
            )))
        }
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => [l.range.global[0].clamp(1, 64), 1, 1],
    };
    if let Some(r) = k.reqd_work_group_size {
        // as in OpenCL: a kernel that requires its work-group size gets
        // no smaller, partial work-groups
        if (0..3).any(|d| !l.range.global[d].is_multiple_of(r[d])) {
            return Err(RuntimeError::BadLaunch(format!(
                "the global size {:?} is not a multiple of the kernel's .reqd_work_group_size{r:?}",
                l.range.global
            )));
        }
    }
    if local.contains(&0) {
        return Err(RuntimeError::BadLaunch(
            "local sizes must be at least 1".into(),
        ));
    }
    let total = local.iter().map(|&v| v as u64).product::<u64>();
    if total > max_workgroup_invocations as u64 {
        return Err(RuntimeError::BadLaunch(format!(
            "local size {local:?} has {total} work-items; the device allows {}",
            max_workgroup_invocations
        )));
    }
    if let Some(max) = k.max_work_group_items.filter(|&m| total > m as u64) {
        return Err(RuntimeError::BadLaunch(format!(
            "local size {local:?} has {total} work-items; kernel `{name}` uses sub-groups, whose emulation serves work-groups of up to {max}"
        )));
    }
    // the argument block
    let block = match &k.params {
        Some(params) => {
            if params.len() != l.args.len() {
                return Err(RuntimeError::BadArgument(format!(
                    "kernel `{name}` takes {} arguments, {} given",
                    params.len(),
                    l.args.len()
                )));
            }
            let mut block = vec![0u8; k.param_bytes as usize];
            for (i, (slot, a)) in params.iter().zip(&l.args).enumerate() {
                if a.len() != slot.size as usize {
                    return Err(RuntimeError::BadArgument(format!(
                        "argument {i} (`%{}`) is .param[{}] but {} bytes were given",
                        slot.name,
                        slot.size,
                        a.len()
                    )));
                }
                block[slot.offset as usize..(slot.offset + slot.size) as usize].copy_from_slice(a);
            }
            block
        }
        None => {
            let mut block = Vec::new();
            for a in &l.args {
                let off = align_up(block.len() as u32, 8) as usize;
                block.resize(off, 0);
                block.extend_from_slice(a);
            }
            block
        }
    };
    Ok((ki, local, block))
}

fn align_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a.max(1)) * a.max(1)
}
