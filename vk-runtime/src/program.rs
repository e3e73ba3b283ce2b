//! Loaded modules: the shader module, one compute pipeline per kernel and
//! local size (created on first use, through the pipeline cache), and the data
//! block holding `.global`/`.const` variables with relocations applied.

use crate::error::VkContext;
use crate::features::FeaturesExt;
use crate::{BufferId, GlobalInfo, KernelInfo, ProgramId, Result, Runtime, RuntimeError};
use ash::vk;
use pisa_translator::abi::Layout;
use std::collections::HashMap;

pub(crate) struct Program {
    pub shader: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    /// By kernel, local size and checked mode's search depth (0 for
    /// programs that are not checked).
    pub pipelines: HashMap<(usize, [u32; 3], u32), vk::Pipeline>,
    /// Pipelines the driver has certainly compiled: dispatched once
    /// (`Runtime::prepare`; some drivers compile at the first dispatch).
    pub warm: std::collections::HashSet<vk::Pipeline>,
    pub kernels: Vec<KernelInfo>,
    pub globals: Vec<GlobalInfo>,
    pub data: Option<BufferId>,
    pub data_base: u64,
    /// Its kernels read `%printfbuffer`: launches get a printf buffer.
    pub uses_printf: bool,
    /// Checked mode: each checked access as `file:line:col: \`text\``, by
    /// the site number the check block reports (empty: not checked).
    pub check_sites: Vec<String>,
}

impl Program {
    /// The caller has waited for the device to be idle (`unload`, `Drop`).
    pub fn destroy(self, rt: &mut Runtime) {
        for p in self.pipelines.values() {
            // SAFETY: each pipeline was created on `rt.device` and is destroyed
            // once (`self` is consumed); the device is idle, so no pending
            // command buffer uses it (callers wait first).
            unsafe { rt.device.destroy_pipeline(*p, None) };
        }
        // SAFETY: as for the pipelines; the layout and the shader module are
        // no longer needed by any pipeline (destroyed above) or command.
        unsafe {
            rt.device.destroy_pipeline_layout(self.layout, None);
            rt.device.destroy_shader_module(self.shader, None);
        }
        if let Some(d) = self.data {
            // the device is idle: nothing uses the data block
            rt.release_buffer(d);
        }
    }
}

/// The most instructions a program may have once every call is inlined
/// (`PISA_MAX_INLINED` overrides it). Vulkan drivers inline every call, and
/// Mesa's does it function by function: a chain of 1,000 calls (1,503,504
/// inlined instructions by this count) took lavapipe 13 s and 3.2 GB to compile, one of
/// 10,000 was killed for memory. Such programs get this error instead.
pub const MAX_INLINED_INSTRUCTIONS: u64 = 2_000_000;

/// The bytes of `Private` variables a module may declare besides the
/// `.private` arena's [`MAX_PRIVATE_BYTES`]: the translator's own words per
/// invocation (the sub-group exchange's parity flags and lane-loop words, checked
/// mode's sink and table).
///
/// [`MAX_PRIVATE_BYTES`]: pisa_translator::abi::MAX_PRIVATE_BYTES
pub const PRIVATE_ALLOWANCE: u64 = 1024;

fn check_inlined_size(inlined: u64) -> Result<()> {
    let limit = std::env::var("PISA_MAX_INLINED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(MAX_INLINED_INSTRUCTIONS);
    if inlined > limit {
        return Err(RuntimeError::Unsupported(format!(
            "the program has {inlined} instructions once every call is inlined, as Vulkan drivers compile it (the limit is {limit}; PISA_MAX_INLINED raises it): compiling it could exhaust the machine's memory. Long or repeated call chains cause this; fewer call levels, or loops instead of repeated calls, keep it small"
        )));
    }
    Ok(())
}

/// Refuses a module that a device offering `info` cannot run, as loading
/// it there would (`pisa spirv --profile`): a capability whose feature the
/// device lacks, more work-group memory than its
/// `maxComputeSharedMemorySize`, more private memory than the ABI's limit.
pub fn check_for_device(
    info: &crate::DeviceInfo,
    words: &[u32],
    layout: Option<&Layout>,
) -> Result<()> {
    info.features.check(words)?;
    if !info.buffer_device_address {
        return Err(RuntimeError::MissingFeature {
            feature: "bufferDeviceAddress",
            construct: "`.global`/`.const` memory and pointer arguments".into(),
        });
    }
    check_memory(words, layout, info.max_shared_bytes)
}

/// Refuses a module whose work-group memory is past `max_shared_bytes`
/// (`maxComputeSharedMemorySize`), or whose private memory is past the
/// ABI's limit. The module's own variables are counted, so the memory the
/// translator adds (the sub-group exchange, the lock words of emulated
/// atomics, checked mode's sinks) counts too.
fn check_memory(words: &[u32], layout: Option<&Layout>, max_shared_bytes: u32) -> Result<()> {
    use pisa_translator::abi::MAX_PRIVATE_BYTES;
    let (workgroup, private) = declared_memory(words);
    let limit = max_shared_bytes as u64;
    if workgroup > limit {
        let what = match layout {
            Some(l) if workgroup > l.shared_bytes as u64 => format!(
                "{workgroup} bytes of work-group memory: {} bytes of `.shared` variables and {} bytes the translator adds (the sub-group emulation's exchange, the lock words of emulated atomics, checked mode's sink)",
                l.shared_bytes,
                workgroup.saturating_sub(l.shared_bytes as u64)
            ),
            Some(_) => format!("{workgroup} bytes of `.shared` variables"),
            None => format!("{workgroup} bytes of `Workgroup` variables"),
        };
        return Err(RuntimeError::Unsupported(format!(
            "the program needs {what}; the device's maxComputeSharedMemorySize is {limit} bytes ({})",
            pisa_device::apply::who_has("maxComputeSharedMemorySize").unwrap_or_default()
        )));
    }
    // the translator refuses `.private` arenas past the limit; the
    // module may add a few words per invocation of its own (sub-group
    // parity flags, checked mode's sink)
    let private_limit = MAX_PRIVATE_BYTES + PRIVATE_ALLOWANCE;
    let arena = layout.map_or(0, |l| l.private_bytes as u64);
    if private > private_limit || arena > MAX_PRIVATE_BYTES {
        return Err(RuntimeError::Unsupported(format!(
            "the module's `Private` variables need {} bytes per work-item; the limit is {MAX_PRIVATE_BYTES} bytes (docs/abi.md, \"Arenas\")",
            private.max(arena)
        )));
    }
    Ok(())
}

/// The `OpModuleProcessed` (330) strings of a module: what the translator
/// says about its kernels and capabilities
/// (`pisa_translator::spirv::kernel_info`).
pub(crate) fn module_processed(words: &[u32]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if len == 0 || i + len > words.len() {
            break;
        }
        if op == 330 && len > 1 {
            let bytes: Vec<u8> = words[i + 1..i + len]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            out.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
        }
        i += len;
    }
    out
}

/// The kernel descriptions a module written by `pisa spirv` carries.
fn kernel_descriptions(words: &[u32]) -> Vec<pisa_translator::abi::KernelLayout> {
    module_processed(words)
        .iter()
        .filter_map(|s| pisa_translator::spirv::kernel_info::parse(s))
        .collect()
}

/// One pass over a module's instructions: `(opcode, operands)` for each
/// (the words after the first); stops at a malformed length (checked by
/// [`entry_points`]).
fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut i = 5;
    std::iter::from_fn(move || {
        let first = *words.get(i)?;
        let (len, op) = ((first >> 16) as usize, first & 0xFFFF);
        if len == 0 || i + len > words.len() {
            return None;
        }
        let ops = &words[i + 1..i + len];
        i += len;
        Some((op, ops))
    })
}

const OP_CONSTANT: u32 = 43;
const OP_VARIABLE: u32 = 59;
const STORAGE_WORKGROUP: u32 = 4;
const STORAGE_PRIVATE: u32 = 6;
const STORAGE_PUSH_CONSTANT: u32 = 9;

/// Whether a module's code reads push-constant members `data_base` and
/// `printf_buffer` (docs/abi.md, "Push constants"): through an access
/// chain into a `PushConstant` variable whose first index is that member,
/// or by loading or copying the whole block.
fn reads_data_and_printf(words: &[u32]) -> (bool, bool) {
    use pisa_translator::abi::Push;
    let mut blocks = std::collections::HashSet::new();
    let mut constants = HashMap::new();
    for (op, ops) in instructions(words) {
        match op {
            OP_CONSTANT if ops.len() >= 3 => {
                constants.insert(ops[1], ops[2]);
            }
            OP_VARIABLE if ops.len() >= 3 && ops[2] == STORAGE_PUSH_CONSTANT => {
                blocks.insert(ops[1]);
            }
            _ => {}
        }
    }
    let (mut data, mut printf) = (false, false);
    for (op, ops) in instructions(words) {
        match op {
            // OpAccessChain, OpInBoundsAccessChain: type, result, base, index...
            65 | 66 if ops.len() >= 4 && blocks.contains(&ops[2]) => match constants.get(&ops[3]) {
                Some(&m) if m == Push::DataBase as u32 => data = true,
                Some(&m) if m == Push::PrintfBuffer as u32 => printf = true,
                Some(_) => {}
                None => (data, printf) = (true, true),
            },
            // OpLoad (type, result, pointer), OpCopyMemory (target, source)
            61 if ops.len() >= 3 && blocks.contains(&ops[2]) => (data, printf) = (true, true),
            63 if ops.len() >= 2 && blocks.contains(&ops[1]) => (data, printf) = (true, true),
            _ => {}
        }
    }
    (data, printf)
}

/// The bytes of a module's `Workgroup` and of its `Private` variables (sums
/// over the module: an upper bound of what each entry point uses), from
/// their types: scalars, vectors, matrices, arrays of constant length and
/// structs (members packed at their natural alignment), pointers as 8
/// bytes. Types it cannot size (a runtime array, a length that is not a
/// constant) count as 0.
fn declared_memory(words: &[u32]) -> (u64, u64) {
    let mut sizes: HashMap<u32, (u64, u64)> = HashMap::new(); // id -> (size, align)
    let mut constants: HashMap<u32, u64> = HashMap::new();
    let mut pointee: HashMap<u32, u32> = HashMap::new();
    let (mut workgroup, mut private) = (0u64, 0u64);
    for (op, ops) in instructions(words) {
        let get = |sizes: &HashMap<u32, (u64, u64)>, id: &u32| sizes.get(id).copied();
        match op {
            // OpTypeBool
            20 if !ops.is_empty() => {
                sizes.insert(ops[0], (4, 4));
            }
            // OpTypeInt, OpTypeFloat: result, width
            21 | 22 if ops.len() >= 2 => {
                let b = (ops[1] as u64 / 8).max(1);
                sizes.insert(ops[0], (b, b));
            }
            // OpTypeVector, OpTypeMatrix: result, component, count
            23 | 24 if ops.len() >= 3 => {
                if let Some((s, a)) = get(&sizes, &ops[1]) {
                    sizes.insert(ops[0], (s.saturating_mul(ops[2] as u64), a));
                }
            }
            // OpTypeArray: result, element, length id
            28 if ops.len() >= 3 => {
                if let (Some((s, a)), Some(&n)) = (get(&sizes, &ops[1]), constants.get(&ops[2])) {
                    sizes.insert(ops[0], (s.saturating_mul(n), a));
                }
            }
            // OpTypeStruct: result, members
            30 if !ops.is_empty() => {
                let (mut total, mut align) = (0u64, 1u64);
                for m in &ops[1..] {
                    let (s, a) = get(&sizes, m).unwrap_or((0, 1));
                    let a = a.max(1);
                    total = total.div_ceil(a).saturating_mul(a).saturating_add(s);
                    align = align.max(a);
                }
                sizes.insert(ops[0], (total, align));
            }
            // OpTypePointer: result, storage class, type
            32 if ops.len() >= 3 => {
                sizes.insert(ops[0], (8, 8));
                pointee.insert(ops[0], ops[2]);
            }
            // OpConstant, OpSpecConstant (its default): type, result, value
            OP_CONSTANT | 50 if ops.len() >= 3 => {
                let hi = ops.get(3).copied().unwrap_or(0) as u64;
                constants.insert(ops[1], hi << 32 | ops[2] as u64);
            }
            OP_VARIABLE if ops.len() >= 3 => {
                let bytes = pointee
                    .get(&ops[0])
                    .and_then(|t| get(&sizes, t))
                    .map_or(0, |(s, _)| s);
                match ops[2] {
                    STORAGE_WORKGROUP => workgroup = workgroup.saturating_add(bytes),
                    STORAGE_PRIVATE => private = private.saturating_add(bytes),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    (workgroup, private)
}

/// Entry-point names of a SPIR-V module.
fn entry_points(words: &[u32]) -> Result<Vec<String>> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(RuntimeError::BadSpirv(
            "not a SPIR-V module (bad magic number)".into(),
        ));
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if len == 0 || i + len > words.len() {
            return Err(RuntimeError::BadSpirv("truncated instruction".into()));
        }
        if op == 15 && len > 3 {
            let bytes: Vec<u8> = words[i + 3..i + len]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            out.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
        }
        i += len;
    }
    Ok(out)
}

impl Runtime {
    /// How this runtime translates modules for its device: the device's
    /// options ([`crate::translate_options`], with what the probe found of
    /// its driver at open: `probe.rs`) and checked mode.
    fn load_options(&mut self) -> Result<pisa_translator::spirv::Options> {
        let mut options = crate::device::with_numerics(
            crate::translate_options(self.device_info()),
            self.device_info(),
            self.numerics,
        )?;
        options.checked_memory = self.checked_memory;
        Ok(options)
    }

    /// Translates and loads a validated PISA module.
    pub fn load(&mut self, module: &pisa_translator::Module) -> Result<ProgramId> {
        let options = self.load_options()?;
        let spv = pisa_translator::spirv::translate_with(module, &options)?;
        self.load_module_translated(module, spv)
    }

    /// Loads `module`, given its translation `t` made before this runtime
    /// existed ([`crate::translate_for`], to learn which features the
    /// runtime enables): `t` is used as it is when it was made with this
    /// runtime's options, and the module is translated again only when not
    /// (a device whose probed behaviour changes the translation, `probe.rs`,
    /// and that `t` was made without). So a module is
    /// translated once per launch of `pisa run` or `pisa.load`.
    pub fn load_pretranslated(
        &mut self,
        module: &pisa_translator::Module,
        t: crate::Translation,
    ) -> Result<ProgramId> {
        let options = self.load_options()?;
        let spv = if t.options == options {
            t.spirv
        } else {
            pisa_translator::spirv::translate_with(module, &options)?
        };
        self.load_module_translated(module, spv)
    }

    fn load_module_translated(
        &mut self,
        module: &pisa_translator::Module,
        spv: pisa_translator::spirv::Spirv,
    ) -> Result<ProgramId> {
        crate::device::soft_uses_no_f64(self.numerics, &spv.words)?;
        check_inlined_size(spv.layout.inlined_instructions)?;
        let layout = spv.layout.clone();
        // the instructions checked mode reports, as the reference device
        // names them
        let sites = layout
            .check_sites
            .iter()
            .map(|&s| {
                let text = module
                    .source()
                    .get(s.start as usize..s.end as usize)
                    .unwrap_or("")
                    .trim();
                format!("{}: `{text}`", module.describe(s))
            })
            .collect();
        let id = self.load_spirv_with_layout(&spv.words, Some(layout))?;
        if let Some(Some(p)) = self.programs.get_mut(id.index()) {
            p.check_sites = sites;
        }
        Ok(id)
    }

    /// Loads the output of `pisa_translator::spirv::translate` (valid by
    /// construction: the translator's tests validate what it emits).
    pub fn load_translated(&mut self, spv: &pisa_translator::spirv::Spirv) -> Result<ProgramId> {
        self.load_spirv_with_layout(&spv.words, Some(spv.layout.clone()))
    }

    /// Loads SPIR-V written against `docs/abi.md` (e.g. from GLSL, or from
    /// `pisa spirv` and `spirv-opt`), after `spirv-val` has found it valid
    /// ([`crate::spirv_val`]). Its kernels take arguments packed in order,
    /// each aligned to 8 bytes.
    ///
    /// A module written by `pisa spirv` carries its program (data block,
    /// relocations, variables, printf use: docs/abi.md, "Program
    /// descriptions") and runs as the PISA program does. A module whose
    /// kernels read the data block or the printf buffer but that carries no
    /// such description (stripped by a tool, or written by hand) is refused:
    /// its kernels would read through a null address.
    pub fn load_spirv(&mut self, words: &[u32]) -> Result<ProgramId> {
        entry_points(words)?;
        crate::spirv_val::validate(words)?;
        let carried = pisa_translator::spirv::kernel_info::parse_program(&module_processed(words))
            .map_err(|e| RuntimeError::Undescribed(e.to_string()))?;
        match &carried {
            Some(l) => check_inlined_size(l.inlined_instructions)?,
            None => {
                let (data, printf) = reads_data_and_printf(words);
                let what = match (data, printf) {
                    (true, true) => {
                        Some("the data block (`data_base`) and the printf buffer (`printf_buffer`)")
                    }
                    (true, false) => Some("the data block (`data_base`)"),
                    (false, true) => Some("the printf buffer (`printf_buffer`)"),
                    (false, false) => None,
                };
                if let Some(what) = what {
                    return Err(RuntimeError::Undescribed(format!(
                        "the module's kernels read {what}, but the module carries no program description (the `pisa-program` `OpModuleProcessed` strings that `pisa spirv` writes: docs/abi.md, \"Program descriptions\"), so there is nothing to put there; was it stripped (`spirv-opt --strip-debug` removes them)? Run the PISA program, or its module as `pisa spirv` wrote it"
                    )));
                }
            }
        }
        self.load_spirv_with_layout(words, carried)
    }

    /// Refuses a module whose work-group memory is past the device's
    /// `maxComputeSharedMemorySize`, or whose private memory is past the
    /// ABI's limit, before the driver sees it ([`check_memory`]).
    fn check_memory(&self, words: &[u32], layout: Option<&Layout>) -> Result<()> {
        check_memory(words, layout, self.info.max_shared_bytes)
    }

    fn load_spirv_with_layout(
        &mut self,
        words: &[u32],
        layout: Option<Layout>,
    ) -> Result<ProgramId> {
        self.usable()?;
        let names = entry_points(words)?;
        self.info.features.check(words)?;
        self.check_memory(words, layout.as_ref())?;
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: `code` is a whole number of 32-bit words starting with the
        // SPIR-V magic number, with consistent instruction lengths
        // (`entry_points`), and the capabilities it declares are enabled on
        // the device (`features.check` above). Vulkan also requires valid
        // SPIR-V: the translator's output is (spirv-val in its tests), and
        // `load_spirv` validates the caller's with spirv-val first.
        let shader =
            unsafe { self.device.create_shader_module(&info, None) }.vk("vkCreateShaderModule")?;
        let range = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(pisa_translator::abi::PUSH_BYTES)];
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&range);
        // SAFETY: one push-constant range, COMPUTE, 0..PUSH_BYTES (a multiple
        // of 4 within the 128 bytes every device supports), on a live device.
        let pl = unsafe { self.device.create_pipeline_layout(&info, None) }
            .vk("vkCreatePipelineLayout")?;
        // raw SPIR-V from `pisa spirv` describes its kernels' parameters
        let described = if layout.is_none() {
            kernel_descriptions(words)
        } else {
            Vec::new()
        };
        let kernels = names
            .iter()
            .map(|n| {
                let k = layout
                    .as_ref()
                    .map_or(&described[..], |l| &l.kernels[..])
                    .iter()
                    .find(|k| &k.name == n);
                KernelInfo {
                    name: n.clone(),
                    params: k.map(|k| k.params.clone()),
                    param_bytes: k.map_or(0, |k| k.param_bytes),
                    reqd_work_group_size: k.and_then(|k| k.reqd_work_group_size),
                    max_work_group_items: k.and_then(|k| k.max_work_group_items),
                }
            })
            .collect();
        let mut globals = Vec::new();
        let mut data = None;
        let mut data_base = 0;
        if let Some(l) = &layout {
            if l.data_bytes > 0 {
                let id = self.alloc_buffer(l.data_bytes)?;
                data_base = self.buffer_address(id)?;
                let bytes = l.data_block(data_base);
                self.upload(id, 0, &bytes)?;
                data = Some(id);
            }
            globals = GlobalInfo::of_layout(l);
        }
        self.programs.push(Some(Program {
            shader,
            layout: pl,
            pipelines: HashMap::new(),
            warm: Default::default(),
            kernels,
            globals,
            data,
            data_base,
            uses_printf: layout.as_ref().is_some_and(|l| l.uses_printf),
            // (`load` names them by file, line and instruction)
            check_sites: layout.as_ref().map_or(Vec::new(), |l| {
                l.check_sites
                    .iter()
                    .map(|s| format!("the access at byte {} of the module's text", s.start))
                    .collect()
            }),
        }));
        Ok(ProgramId::from_index(self.programs.len() - 1))
    }

    pub(crate) fn program(&self, id: ProgramId) -> Result<&Program> {
        self.programs
            .get(id.index())
            .and_then(|p| p.as_ref())
            .ok_or_else(|| RuntimeError::BadArgument("the module was unloaded".into()))
    }

    /// Frees a module's pipelines, shader and data block.
    pub fn unload(&mut self, id: ProgramId) {
        if self.poisoned {
            return;
        }
        // SAFETY: `&mut self` gives the external synchronization of the
        // runtime's one queue that vkDeviceWaitIdle needs.
        if unsafe { self.device.device_wait_idle() }.is_err() {
            // lost: destroying what may still be in use is not safe
            self.poisoned = true;
            return;
        }
        if let Some(p) = self.programs.get_mut(id.index()).and_then(|p| p.take()) {
            p.destroy(self);
        }
    }

    pub fn kernels(&self, id: ProgramId) -> Result<Vec<KernelInfo>> {
        Ok(self.program(id)?.kernels.clone())
    }

    pub fn globals(&self, id: ProgramId) -> Result<Vec<GlobalInfo>> {
        Ok(self.program(id)?.globals.clone())
    }

    /// The compute pipeline of a kernel for a local size (cached), and for
    /// a checked program, for the search depth `check_depth` (docs/abi.md,
    /// "Checked mode").
    pub(crate) fn pipeline(
        &mut self,
        id: ProgramId,
        kernel: usize,
        local: [u32; 3],
        check_depth: u32,
    ) -> Result<vk::Pipeline> {
        let p = self.program(id)?;
        let check_depth = if p.check_sites.is_empty() {
            0
        } else {
            check_depth
        };
        if let Some(&pl) = p.pipelines.get(&(kernel, local, check_depth)) {
            return Ok(pl);
        }
        let name = std::ffi::CString::new(p.kernels[kernel].name.clone())
            .map_err(|_| RuntimeError::BadSpirv("entry point name with a NUL byte".into()))?;
        // constants 0..2: the work-group size; 3: the entry points' global-size
        // check, off because every dispatched work-item is in range (launch.rs
        // dispatches a partial last work-group on its own); 4: checked mode's
        // search depth. IDs a module does not declare (a hand-written GLSL
        // kernel, an unchecked program) are ignored by Vulkan.
        let entries: Vec<vk::SpecializationMapEntry> = (0..5)
            .map(|i| {
                vk::SpecializationMapEntry::default()
                    .constant_id(i)
                    .offset(i * 4)
                    .size(4)
            })
            .collect();
        debug_assert_eq!(pisa_translator::spirv::RANGE_CHECK_SPEC_ID, 3);
        debug_assert_eq!(pisa_translator::spirv::checked::CHECK_DEPTH_SPEC_ID, 4);
        let check_global_size = vk::FALSE;
        let data: Vec<u8> = local
            .iter()
            .chain([&check_global_size, &check_depth])
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let spec = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(p.shader)
            .name(&name)
            .specialization_info(&spec);
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(p.layout)];
        // SAFETY: `p.shader` and `p.layout` are this program's live objects on
        // this device; `name` is a NUL-terminated entry point of the module
        // (`entry_points`); the specialization entries (ids 0..4, 4 bytes at
        // 4*i) lie within `data` (20 bytes); the pipeline cache is this
        // device's and internally synchronized; the local size is within
        // maxComputeWorkGroupSize and maxComputeWorkGroupInvocations
        // (`Runtime::resolve`, `resolve_launch`).
        let pl = unsafe {
            self.device
                .create_compute_pipelines(self.pipeline_cache, &info, None)
        }
        .map_err(|(_, e)| e)
        .vk("vkCreateComputePipelines")?[0];
        if let Some(Some(p)) = self.programs.get_mut(id.index()) {
            p.pipelines.insert((kernel, local, check_depth), pl);
        }
        Ok(pl)
    }

    fn global(&self, id: ProgramId, name: &str) -> Result<(BufferId, GlobalInfo)> {
        let p = self.program(id)?;
        let name = name.trim_start_matches('@');
        let g = p
            .globals
            .iter()
            .find(|g| g.host_name.as_deref() == Some(name))
            .or_else(|| {
                p.globals
                    .iter()
                    .find(|g| g.name == name && g.host_name.is_some())
            })
            .ok_or_else(|| RuntimeError::UnknownGlobal(name.to_string()))?;
        let data = p
            .data
            .ok_or_else(|| RuntimeError::UnknownGlobal(name.to_string()))?;
        Ok((data, g.clone()))
    }

    /// Reads a global by its `.host_access` name (or its name when exported),
    /// like CUDA's module globals.
    pub fn read_global(&self, id: ProgramId, name: &str) -> Result<Vec<u8>> {
        let (data, g) = self.global(id, name)?;
        let bytes = self.download(data)?;
        Ok(bytes[g.offset as usize..(g.offset + g.size) as usize].to_vec())
    }

    pub fn read_global_as<T: bytemuck::Pod>(&self, id: ProgramId, name: &str) -> Result<Vec<T>> {
        let b = self.read_global(id, name)?;
        Ok(bytemuck::pod_collect_to_vec(
            &b[..b.len() / size_of::<T>() * size_of::<T>()],
        ))
    }

    /// Writes a global's bytes (all of them, or a prefix).
    pub fn write_global(&mut self, id: ProgramId, name: &str, bytes: &[u8]) -> Result<()> {
        let (data, g) = self.global(id, name)?;
        if bytes.len() as u64 > g.size {
            return Err(RuntimeError::BadArgument(format!(
                "{} bytes do not fit global `{name}` of {} bytes",
                bytes.len(),
                g.size
            )));
        }
        self.upload(data, g.offset, bytes)
    }

    pub fn write_global_as<T: bytemuck::Pod>(
        &mut self,
        id: ProgramId,
        name: &str,
        v: &[T],
    ) -> Result<()> {
        self.write_global(id, name, bytemuck::cast_slice(v))
    }

    /// Device address of a module variable (for tests and tools).
    pub fn global_address(&self, id: ProgramId, name: &str) -> Result<u64> {
        let p = self.program(id)?;
        let g = p
            .globals
            .iter()
            .find(|g| g.name == name.trim_start_matches('@'))
            .ok_or_else(|| RuntimeError::UnknownGlobal(name.to_string()))?;
        Ok(p.data_base + g.offset)
    }
}
