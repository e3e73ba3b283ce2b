//! Memory layout of a module (docs/abi.md): the data block that holds the
//! `.global`/`.const` variables with their initial bytes and relocations, the
//! per-invocation `.private` and per-work-group `.shared` arenas, and each
//! kernel's argument block. The SPIR-V back end, the Vulkan runtime and the
//! reference device all use this layout.

use crate::ir::{FuncKind, InitElem, Linkage, Name, Program, RegKind, Space};
use std::collections::HashMap;

/// A variable in the data block (device memory reached by 64-bit addresses).
#[derive(Debug, Clone)]
pub struct DataVar {
    pub name: String,
    pub space: Space,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    /// `.host_access("NAME")`, or the variable's own name when exported.
    pub host_name: Option<String>,
    pub linkage: Linkage,
}

/// A symbol initializer: the 64-bit address of `target` plus `addend`,
/// written at byte `offset` of the data block once the base is known.
#[derive(Debug, Clone, PartialEq)]
pub struct Relocation {
    pub offset: u64,
    pub target: RelocTarget,
    pub addend: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RelocTarget {
    /// Data-block offset of a variable.
    Data(u64),
    /// A function: the value that stands for its address (docs/abi.md).
    Function(u64),
}

#[derive(Debug, Clone)]
pub struct ParamSlot {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

#[derive(Debug, Clone)]
pub struct KernelLayout {
    pub name: String,
    pub params: Vec<ParamSlot>,
    /// Size of the argument block in bytes.
    pub param_bytes: u32,
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// The most work-items a work-group may have: kernels whose sub-groups
    /// the SPIR-V back end emulates exchange values through a fixed-size
    /// `Workgroup` array of [`SUBGROUP_EXCHANGE_ITEMS`] slots.
    pub max_work_group_items: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub data: Vec<DataVar>,
    pub data_bytes: u64,
    /// Initial contents of the data block (relocation slots hold zero), up
    /// to its last initialized byte: the bytes past its end are zeros (so a
    /// large uninitialized variable costs no memory here).
    pub data_init: Vec<u8>,
    pub relocations: Vec<Relocation>,
    /// Byte offsets of `.private` / `.shared` variables, by (function, name).
    pub private: HashMap<(u32, Name), u32>,
    pub private_bytes: u32,
    pub shared: HashMap<(u32, Name), u32>,
    pub shared_bytes: u32,
    /// Data-block offsets of variables, by (function or `u32::MAX` for module scope, name).
    pub data_offsets: HashMap<(u32, Name), u64>,
    pub kernels: Vec<KernelLayout>,
    /// Some loop sets the status word when the driver cuts it short
    /// (docs/abi.md, "Drivers that cap loops").
    pub sets_status: bool,
    /// Some instruction reads `%printfbuffer`: launches get a printf buffer
    /// (docs/abi.md, "The printf buffer").
    pub uses_printf: bool,
    /// Checked mode: the instruction of each checked access, by the site
    /// number the check block reports (`Program::check_sites`, set by the
    /// IR's `checked` pass).
    pub check_sites: Vec<crate::diag::Span>,
    /// What a driver that inlines every call builds from the kernels
    /// (`ir::analysis::calls::inlined_instructions`): the runtime refuses
    /// programs whose compilation would exhaust the machine.
    pub inlined_instructions: u64,
}

impl Layout {
    /// The data block's initial bytes with every relocation applied, for a
    /// block at device address `data_base` (docs/abi.md, "The data block").
    pub fn data_block(&self, data_base: u64) -> Vec<u8> {
        let mut bytes = vec![0; self.data_bytes as usize];
        self.write_data_block(data_base, &mut bytes);
        bytes
    }

    /// Writes the data block's initial bytes with every relocation applied
    /// into `bytes`, a zeroed block at device address `data_base` (bytes
    /// beyond it are left out).
    pub fn write_data_block(&self, data_base: u64, bytes: &mut [u8]) {
        let n = self.data_init.len().min(bytes.len());
        bytes[..n].copy_from_slice(&self.data_init[..n]);
        for r in &self.relocations {
            let v = match r.target {
                RelocTarget::Data(off) => data_base.wrapping_add(off),
                RelocTarget::Function(v) => v,
            }
            .wrapping_add(r.addend as u64);
            let at = usize::try_from(r.offset).unwrap_or(usize::MAX);
            if let Some(slot) = bytes.get_mut(at..at.saturating_add(8)) {
                slot.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// The value a function's address stands for: its index in the module + 1
/// (0 stays the null pointer).
pub fn function_address(index: usize) -> u64 {
    index as u64 + 1
}

/// A module whose memory this layout cannot hold. The validator rejects
/// such modules (docs/spec-notes.md, "Sizes and alignments"); a program
/// built another way gets this error instead of a wrong layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A space's total size overflows or exceeds its maximum.
    #[error("{what} take more than {max} bytes (at `{name}`)")]
    TooLarge {
        what: &'static str,
        name: String,
        max: u64,
    },
    /// The data block's initial contents could not be allocated.
    #[error("cannot allocate the {0}-byte data block")]
    OutOfMemory(u64),
}

/// Places a variable of `size` bytes aligned to `align` after `*used`
/// bytes, at most `max` in all: its offset.
fn place(
    used: &mut u64,
    size: u64,
    align: u64,
    max: u64,
    what: &'static str,
    name: &str,
) -> Result<u64, LayoutError> {
    match crate::validate::limits::place(*used, size, align) {
        Some((offset, end)) if end <= max => {
            *used = end;
            Ok(offset)
        }
        _ => Err(LayoutError::TooLarge {
            what,
            name: name.to_string(),
            max,
        }),
    }
}

pub const MODULE_SCOPE: u32 = u32::MAX;

/// The most bytes of `.private` variables a work-item may have, on every
/// device (docs/abi.md, "Arenas"). Vulkan drivers keep a work-item's
/// private arena in registers or scratch memory, and compile it as one
/// array: lavapipe took 11 s and 7 GB on one of 1 GiB, then crashed. CUDA
/// allows 512 KiB of local memory per thread; 64 KiB is far below what
/// drivers handle, and above what kernels need.
pub const MAX_PRIVATE_BYTES: u64 = 64 * 1024;

/// The most bytes of `.shared` variables the translator lays out: shared
/// addresses are 32 bits (no device has nearly as much shared memory; the
/// runtime checks the device's `maxComputeSharedMemorySize`).
pub const MAX_SHARED_ARENA_BYTES: u64 = 1 << 31;

/// An arena past its limit: the `.private` variables of a program past
/// [`MAX_PRIVATE_BYTES`], or the `.shared` ones past
/// [`MAX_SHARED_ARENA_BYTES`]. The variable whose end first passes the limit
/// with the arena's size in bytes (in 64 bits) and the limit, else `None`.
pub fn arena_limit(p: &Program, space: Space) -> Option<(&crate::ir::Variable, u64, u64)> {
    let limit = match space {
        Space::Private => MAX_PRIVATE_BYTES,
        Space::Shared => MAX_SHARED_ARENA_BYTES,
        _ => return None,
    };
    let mut total = 0u64;
    let mut first = None;
    for v in p.variables.iter().filter(|v| v.space == space) {
        total =
            crate::validate::limits::place(total, v.size, v.align).map_or(u64::MAX, |(_, end)| end);
        if total > limit && first.is_none() {
            first = Some(v);
        }
    }
    first.map(|v| (v, total, limit))
}

/// The message of an arena past its limit ([`arena_limit`]).
pub fn arena_limit_message(space: Space, bytes: u64, limit: u64) -> String {
    match space {
        Space::Private => format!(
            "the program's `.private` variables need {bytes} bytes per work-item; the limit is {limit} bytes (docs/abi.md, \"Arenas\"): a larger private array is better kept in `.global` memory"
        ),
        _ => format!(
            "the program's `.shared` variables need {bytes} bytes; the translator lays out at most {limit} (shared addresses are 32 bits, and devices have far less)"
        ),
    }
}

/// The largest work-group whose sub-groups the SPIR-V back end emulates:
/// the slots of its exchange array (Vulkan devices allow at most 1024
/// invocations per work-group in practice; the runtime checks).
pub const SUBGROUP_EXCHANGE_ITEMS: u32 = 1024;

/// Generic addresses of the arenas carry a tag in their top 16 bits (device
/// addresses never have these bits set); the low 32 bits are the offset.
pub const GENERIC_SHARED_TAG: u64 = 0xFFFE;
pub const GENERIC_PRIVATE_TAG: u64 = 0xFFFD;

/// The layout of a program's memory. Every size is checked: a space that
/// exceeds its maximum, or a data block that cannot be allocated, is an
/// error.
pub fn layout(p: &Program) -> Result<Layout, LayoutError> {
    layout_with(p, &crate::ir::analysis::subgroups::simt_functions(p))
}

/// [`layout`] of a program whose SIMT functions (by index,
/// [`crate::ir::analysis::subgroups::simt_functions`]) are `simt`.
pub fn layout_with(p: &Program, simt: &[bool]) -> Result<Layout, LayoutError> {
    use crate::validate::limits::{MAX_ARENA_BYTES, MAX_DATA_BYTES, MAX_PARAM_BYTES};
    let mut l = Layout {
        uses_printf: p.reads_special("printfbuffer"),
        check_sites: p.check_sites.clone(),
        ..Layout::default()
    };
    let mut pending: Vec<(u64, &[InitElem])> = Vec::new();
    // the data block: module-scope .global/.const, then function-scope .const
    // (Program::variables is in that order); .private and .shared get arena
    // offsets per function
    for v in &p.variables {
        let scope = v.function.unwrap_or(MODULE_SCOPE);
        match v.space {
            Space::Global | Space::Const => {
                let offset = place(
                    &mut l.data_bytes,
                    v.size,
                    v.align,
                    MAX_DATA_BYTES,
                    "the `.global` and `.const` variables",
                    p.name(v.name),
                )?;
                l.data.push(DataVar {
                    name: p.name(v.name).to_string(),
                    space: v.space,
                    offset,
                    size: v.size,
                    align: v.align,
                    host_name: v.host_name.clone(),
                    linkage: v.linkage,
                });
                l.data_offsets.insert((scope, v.name), offset);
                if let Some(init) = &v.init {
                    pending.push((offset, init));
                }
            }
            Space::Private | Space::Shared => {
                let (map, total, what) = if v.space == Space::Private {
                    (
                        &mut l.private,
                        &mut l.private_bytes,
                        "the `.private` variables",
                    )
                } else {
                    (
                        &mut l.shared,
                        &mut l.shared_bytes,
                        "the `.shared` variables",
                    )
                };
                let mut used = u64::from(*total);
                let off = place(
                    &mut used,
                    v.size,
                    v.align,
                    MAX_ARENA_BYTES.min(u32::MAX.into()),
                    what,
                    p.name(v.name),
                )?;
                // both fit u32: MAX_ARENA_BYTES is at most u32::MAX
                *total = u32::try_from(used).unwrap_or(u32::MAX);
                map.insert((scope, v.name), u32::try_from(off).unwrap_or(u32::MAX));
            }
        }
    }
    for f in p.functions.iter().filter(|f| f.kind == FuncKind::Kernel) {
        let mut params = Vec::new();
        let mut used = 0u64;
        let slots = f.params.iter().filter_map(|&r| match f.reg(r).kind {
            RegKind::Param { size, .. } => Some((r, size)),
            _ => None,
        });
        for ((r, size), &align) in slots.zip(&f.param_align) {
            let name = &f.reg(r).name;
            let max = MAX_PARAM_BYTES.min(u32::MAX.into());
            let what = "the kernel's parameters";
            let offset = place(&mut used, size, align.into(), max, what, name)?;
            // both fit u32: MAX_PARAM_BYTES is at most u32::MAX
            params.push(ParamSlot {
                name: name.clone(),
                offset: u32::try_from(offset).unwrap_or(u32::MAX),
                size: u32::try_from(size).unwrap_or(u32::MAX),
                align,
            });
        }
        l.kernels.push(KernelLayout {
            name: p.name(f.name).to_string(),
            params,
            param_bytes: u32::try_from(used).unwrap_or(u32::MAX),
            reqd_work_group_size: f.reqd_work_group_size,
            max_work_group_items: simt
                .get(f.index as usize)
                .copied()
                .unwrap_or(false)
                .then_some(SUBGROUP_EXCHANGE_ITEMS),
        });
    }
    // the initial image ends at its last initialized byte (the rest of the
    // block is zeros), grown as initializers are written
    let data_bytes = l.data_bytes;
    let too_large = move || LayoutError::OutOfMemory(data_bytes);
    l.data_init = Vec::new();
    for (base, init) in pending {
        let mut at = base;
        for e in init {
            match e {
                InitElem::Int { bits, lit, .. } => {
                    let n = (*bits as usize / 8).min(8);
                    let bytes = lit.value.to_le_bytes();
                    // the validator made the initializer fit its variable,
                    // and the block fit 2^32 bytes
                    let a = usize::try_from(at).map_err(|_| too_large())?;
                    let end = a.checked_add(n).ok_or_else(too_large)?;
                    if l.data_init.len() < end {
                        l.data_init
                            .try_reserve_exact(end - l.data_init.len())
                            .map_err(|_| too_large())?;
                        l.data_init.resize(end, 0);
                    }
                    l.data_init[a..end].copy_from_slice(&bytes[..n]);
                    at = at.saturating_add(n as u64);
                }
                InitElem::Zero { bytes, .. } => at = at.saturating_add(*bytes),
                InitElem::Symbol {
                    bits, name, offset, ..
                } => {
                    let target = match l.data_offsets.get(&(MODULE_SCOPE, *name)) {
                        Some(off) => RelocTarget::Data(*off),
                        None => RelocTarget::Function(function_address(
                            p.functions
                                .iter()
                                .position(|f| f.name == *name)
                                .unwrap_or(0),
                        )),
                    };
                    l.relocations.push(Relocation {
                        offset: at,
                        target,
                        addend: *offset,
                    });
                    at = at.saturating_add(*bits as u64 / 8);
                }
            }
        }
    }
    Ok(l)
}
