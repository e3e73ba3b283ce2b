//! The reference device as a [`Device`]: the same API, data layout,
//! argument marshalling and launch checks as the Vulkan runtime
//! (docs/abi.md), so `pisa run --device cpu` and the fuzzer treat both alike.

use crate::decode::{decode, Decoded};
use crate::exec::NdInfo;
use crate::group::{Clock, GroupError, GroupRun};
use crate::memory::{try_copy, try_zeroed, DeviceMemory};
use pisa_device::contract::{
    printf, resolve_launch, BufferId, Device, DeviceInfo, DeviceKind, Features, GlobalInfo,
    KernelInfo, Launch, LaunchTiming, ProgramId, Result, RuntimeError,
};
use pisa_translator::abi::{self, Layout};
use pisa_translator::ir::{self, Space};
use std::time::{Duration, Instant};

/// The name `pisa devices` lists and `--device cpu` selects.
pub const CPU_DEVICE_NAME: &str = "cpu (pisa reference interpreter)";

/// The most work-items a work-group may have (as large GPUs allow).
pub const MAX_WORKGROUP_INVOCATIONS: u32 = 1024;
/// `.shared` bytes a work-group may use.
pub const MAX_SHARED_BYTES: u32 = 64 * 1024;

struct Loaded {
    decoded: Decoded,
    layout: Layout,
    data_base: u64,
    kernels: Vec<KernelInfo>,
    globals: Vec<GlobalInfo>,
    /// Function index of each kernel, by `kernels` order.
    kernel_funcs: Vec<u32>,
}

/// The reference device: runs PISA with the spec's semantics on the CPU.
pub struct CpuDevice {
    info: DeviceInfo,
    memory: DeviceMemory,
    programs: Vec<Option<Loaded>>,
    buffers: Vec<Option<(u64, u64)>>,
    timeout: Duration,
    /// Bytes of each launch's printf buffer (docs/abi.md).
    printf_bytes: u32,
    /// Dynamic instructions executed by the last launch.
    pub last_steps: u64,
}

impl Default for CpuDevice {
    fn default() -> Self {
        CpuDevice::new()
    }
}

/// The [`DeviceInfo`] of the cpu device.
pub fn cpu_device_info(index: usize) -> DeviceInfo {
    DeviceInfo {
        index,
        name: CPU_DEVICE_NAME.to_string(),
        kind: DeviceKind::Cpu,
        driver: format!("pisa-interp {}", env!("CARGO_PKG_VERSION")),
        api_version: (0, 1, 0),
        subgroup_size: 32,
        max_workgroup_invocations: MAX_WORKGROUP_INVOCATIONS,
        max_workgroup_count: [u32::MAX; 3],
        max_shared_bytes: MAX_SHARED_BYTES,
        buffer_device_address: true,
        features: Features::ALL,
        caps_loops: false,
        signed_zero_inf_nan_preserve: [true; 3],
        denorm_preserve: [true; 3],
        probed: None,
    }
}

impl CpuDevice {
    pub fn new() -> CpuDevice {
        CpuDevice {
            info: cpu_device_info(0),
            memory: DeviceMemory::default(),
            programs: Vec::new(),
            buffers: Vec::new(),
            timeout: Duration::from_secs(10),
            printf_bytes: printf::DEFAULT_PRINTF_BUFFER_BYTES,
            last_steps: 0,
        }
    }

    /// How long a launch may run before it is reported as hung.
    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    /// Loads a module already in IR form (the source text names locations).
    pub fn load_program(&mut self, program: &ir::Program, source: &str) -> Result<ProgramId> {
        // a lone module's imported variable has no definition (as on Vulkan)
        if let Some(v) = program
            .variables
            .iter()
            .find(|v| v.linkage == pisa_translator::ir::Linkage::Import)
        {
            return Err(RuntimeError::Unsupported(format!(
                "{}: imported variable @{} that no module of the program exports (link its module first)",
                program.source.describe(v.span),
                program.name(v.name)
            )));
        }
        // the ABI's per-work-item limit, as on Vulkan (docs/abi.md, "Arenas")
        let private = pisa_translator::ir::Space::Private;
        if let Some((v, bytes, limit)) = abi::arena_limit(program, private) {
            return Err(RuntimeError::Unsupported(format!(
                "{}: {}",
                program.source.describe(v.span),
                abi::arena_limit_message(private, bytes, limit)
            )));
        }
        let layout = abi::layout(program)?;
        let data_base = self.alloc(layout.data_bytes, "the module's data block")?;
        if let Some(block) = self.memory.allocation_mut(data_base) {
            layout.write_data_block(data_base, block);
        }
        let read_only = layout
            .data
            .iter()
            .filter(|v| v.space == Space::Const)
            .map(|v| (v.offset, v.offset + v.size))
            .collect();
        self.memory.set_read_only(data_base, read_only);
        let decoded = decode(program, source, &layout, data_base).map_err(|u| {
            self.memory.free(data_base);
            RuntimeError::Unsupported(format!("{}: `{}`: {}", u.site.at, u.site.text, u.what))
        })?;
        let kernels = layout
            .kernels
            .iter()
            .map(|k| KernelInfo {
                name: k.name.clone(),
                params: Some(k.params.clone()),
                param_bytes: k.param_bytes,
                reqd_work_group_size: k.reqd_work_group_size,
                // sub-groups run natively here: no exchange array
                max_work_group_items: None,
            })
            .collect();
        let kernel_funcs = layout
            .kernels
            .iter()
            .map(|k| {
                decoded
                    .functions
                    .iter()
                    .position(|f| f.name == k.name && f.kind == ir::FuncKind::Kernel)
                    .unwrap_or(0) as u32
            })
            .collect();
        let globals = GlobalInfo::of_layout(&layout);
        self.programs.push(Some(Loaded {
            decoded,
            layout,
            data_base,
            kernels,
            globals,
            kernel_funcs,
        }));
        Ok(ProgramId::from_index(self.programs.len() - 1))
    }

    /// How many programs are loaded (not yet unloaded).
    pub fn loaded_programs(&self) -> usize {
        self.programs.iter().flatten().count()
    }

    fn program(&self, id: ProgramId) -> Result<&Loaded> {
        match self.programs.get(id.index()) {
            Some(Some(p)) => Ok(p),
            // the Vulkan runtime's words
            Some(None) => Err(RuntimeError::BadArgument("the module was unloaded".into())),
            None => Err(RuntimeError::BadArgument("unknown program".into())),
        }
    }

    fn buffer(&self, id: BufferId) -> Result<(u64, u64)> {
        self.buffers
            .get(id.index())
            .copied()
            .flatten()
            .ok_or_else(|| RuntimeError::BadArgument("unknown buffer".into()))
    }

    fn global(&self, id: ProgramId, name: &str) -> Result<(u64, GlobalInfo)> {
        let p = self.program(id)?;
        let g = p
            .globals
            .iter()
            .find(|g| g.host_name.as_deref() == Some(name))
            .ok_or_else(|| RuntimeError::UnknownGlobal(name.to_string()))?;
        Ok((p.data_base, g.clone()))
    }

    /// A zeroed allocation of `size` bytes of device memory, or the
    /// Vulkan runtime's out-of-memory error naming `what`.
    fn alloc(&mut self, size: u64, what: &str) -> Result<u64> {
        self.memory
            .alloc(size)
            .ok_or_else(|| RuntimeError::OutOfMemory(format!("{what} of {size} bytes")))
    }

    fn kernel_error(&self, p: &Loaded, e: GroupError, group: [u32; 3]) -> RuntimeError {
        match e {
            GroupError::Timeout => RuntimeError::Timeout(self.timeout),
            GroupError::Cancelled => RuntimeError::Interrupted,
            GroupError::Barrier(m) => RuntimeError::Kernel(m),
            GroupError::OutOfMemory(m) => RuntimeError::OutOfMemory(m),
            GroupError::Trap { trap, local } if trap.out_of_memory => {
                RuntimeError::OutOfMemory(format!(
                    "{} (work-item {local:?} of work-group {group:?})",
                    trap.what
                ))
            }
            GroupError::Trap { trap, local } => {
                let site = p.decoded.sites.get(trap.site as usize);
                let at = site.map_or(String::new(), |s| format!("{}: `{}`: ", s.at, s.text));
                RuntimeError::Kernel(format!(
                    "{at}{} (work-item {local:?} of work-group {group:?})",
                    trap.what
                ))
            }
        }
    }
}

impl Device for CpuDevice {
    fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    fn load(&mut self, module: &pisa_translator::Module) -> Result<ProgramId> {
        let program = ir::build(module);
        self.load_program(&program, module.source())
    }

    fn unload(&mut self, id: ProgramId) {
        if let Some(p) = self.programs.get_mut(id.index()).and_then(Option::take) {
            self.memory.free(p.data_base);
        }
    }

    fn kernels(&self, id: ProgramId) -> Result<Vec<KernelInfo>> {
        Ok(self.program(id)?.kernels.clone())
    }

    fn globals(&self, id: ProgramId) -> Result<Vec<GlobalInfo>> {
        Ok(self.program(id)?.globals.clone())
    }

    fn read_global(&self, id: ProgramId, name: &str) -> Result<Vec<u8>> {
        let (base, g) = self.global(id, name)?;
        let mut out = try_zeroed(g.size).ok_or_else(|| {
            RuntimeError::OutOfMemory(format!("a copy of global `{name}`, {} bytes", g.size))
        })?;
        self.memory
            .read(base + g.offset, &mut out)
            .map_err(|f| RuntimeError::BadArgument(f.to_string()))?;
        Ok(out)
    }

    fn write_global(&mut self, id: ProgramId, name: &str, bytes: &[u8]) -> Result<()> {
        let (base, g) = self.global(id, name)?;
        if bytes.len() as u64 > g.size {
            return Err(RuntimeError::BadArgument(format!(
                "{} bytes do not fit global `{name}` of {} bytes",
                bytes.len(),
                g.size
            )));
        }
        let block = self
            .memory
            .allocation_mut(base)
            .ok_or_else(|| RuntimeError::BadArgument("unknown program".into()))?;
        let at = g.offset as usize;
        block[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    fn alloc_buffer(&mut self, size: u64) -> Result<BufferId> {
        if size > (1 << 34) {
            return Err(RuntimeError::OutOfMemory(format!(
                "a buffer of {size} bytes"
            )));
        }
        let base = self.alloc(size, "a buffer")?;
        self.buffers.push(Some((base, size)));
        Ok(BufferId::from_index(self.buffers.len() - 1))
    }

    fn upload(&mut self, id: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        let (base, size) = self.buffer(id)?;
        if offset
            .checked_add(data.len() as u64)
            .is_none_or(|end| end > size)
        {
            return Err(RuntimeError::BadArgument(format!(
                "{} bytes at offset {offset} do not fit a buffer of {size} bytes",
                data.len()
            )));
        }
        let b = self
            .memory
            .allocation_mut(base)
            .ok_or_else(|| RuntimeError::BadArgument("unknown buffer".into()))?;
        b[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn download(&self, id: BufferId) -> Result<Vec<u8>> {
        let (base, size) = self.buffer(id)?;
        let b = self
            .memory
            .allocation(base)
            .ok_or_else(|| RuntimeError::BadArgument("unknown buffer".into()))?;
        try_copy(b)
            .ok_or_else(|| RuntimeError::OutOfMemory(format!("a copy of a buffer of {size} bytes")))
    }

    fn buffer_address(&self, id: BufferId) -> Result<u64> {
        Ok(self.buffer(id)?.0)
    }

    fn free_buffer(&mut self, id: BufferId) {
        if let Ok((base, _)) = self.buffer(id) {
            self.memory.free(base);
            self.buffers[id.index()] = None;
        }
    }

    fn set_printf_buffer_size(&mut self, bytes: u32) {
        self.printf_bytes = bytes.max(12);
    }

    fn launch(&mut self, l: &Launch) -> Result<LaunchTiming> {
        self.run_launch(l, None)
    }

    /// Runs the launch, asking `cancel` whenever the interpreter checks
    /// its deadline (every [`SLICE`](crate::group::SLICE) instructions):
    /// giving up stops the kernel there, with
    /// [`RuntimeError::Interrupted`]. The device stays usable; what the
    /// kernel wrote until then stays written.
    fn launch_with_cancel(
        &mut self,
        l: &Launch,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<LaunchTiming> {
        if cancel() {
            return Err(RuntimeError::Interrupted);
        }
        self.run_launch(l, Some(cancel))
    }
}

impl CpuDevice {
    fn run_launch(
        &mut self,
        l: &Launch,
        cancel: Option<&mut dyn FnMut() -> bool>,
    ) -> Result<LaunchTiming> {
        let t0 = Instant::now();
        let p = self.program(l.program)?;
        let (ki, local, args) = resolve_launch(&p.kernels, l, MAX_WORKGROUP_INVOCATIONS)?;
        if p.layout.shared_bytes > MAX_SHARED_BYTES {
            return Err(RuntimeError::BadLaunch(format!(
                "the module uses {} bytes of .shared memory; the device has {MAX_SHARED_BYTES}",
                p.layout.shared_bytes
            )));
        }
        let global = l.range.global;
        let groups = [0, 1, 2].map(|d| global[d].div_ceil(local[d]));
        let kernel = p.kernel_funcs[ki];
        let shared_bytes = p.layout.shared_bytes;
        let private_bytes = p.layout.private_bytes;
        let uses_printf = p.layout.uses_printf;
        // a printf buffer for a program that prints, starting with its write
        // offset (docs/abi.md, "The printf buffer")
        let printf_buffer = if uses_printf {
            let bytes = printf::allocation_bytes(self.printf_bytes);
            let b = self.alloc(bytes as u64, "a printf buffer")?;
            if let Some(m) = self.memory.allocation_mut(b) {
                m[..4].copy_from_slice(&printf::PRINTF_HEADER_BYTES.to_le_bytes());
            }
            b
        } else {
            0
        };
        let nd = NdInfo {
            global: global.map(|g| g as u64),
            offset: l.range.offset.map(|o| o as u64),
            enqueued: local,
            groups,
            dims: l.range.dims.clamp(1, 3),
            printf_buffer,
        };
        // the program is borrowed from `self.programs` while memory is
        // mutated: take it out for the launch
        let loaded = self.programs[l.program.index()]
            .take()
            .ok_or_else(|| RuntimeError::BadArgument("unknown program".into()))?;
        let mut steps = 0;
        let mut result = Ok(());
        let mut clock = match cancel {
            Some(cancel) => Clock::with_cancel(t0 + self.timeout, cancel),
            None => Clock::new(t0 + self.timeout),
        };
        for linear in 0..group_count(groups) {
            let id = group_id(linear, groups);
            let size = group_size(id, local, global);
            let mut run = GroupRun {
                prog: &loaded.decoded,
                kernel,
                mem: &mut self.memory,
                args: &args,
                nd: &nd,
                shared_bytes,
                private_bytes,
                clock: &mut clock,
            };
            match run.run(id, size) {
                Ok(n) => steps += n,
                Err(e) => {
                    result = Err(self.kernel_error(&loaded, e, id));
                    break;
                }
            }
        }
        let kernel_ns = Some(t0.elapsed().as_nanos() as u64);
        let printf = (printf_buffer != 0).then(|| {
            let buf = self.memory.allocation(printf_buffer).unwrap_or(&[]);
            let buf = &buf[..buf.len().min(self.printf_bytes as usize)];
            let data = self.memory.allocation(loaded.data_base).unwrap_or(&[]);
            let string_at = |a: u64| printf::c_string_at(data, loaded.data_base, a);
            printf::decode(buf, &string_at)
        });
        if printf_buffer != 0 {
            self.memory.free(printf_buffer);
        }
        self.programs[l.program.index()] = Some(loaded);
        self.last_steps = steps;
        result?;
        Ok(LaunchTiming { kernel_ns, printf })
    }
}

/// How many work-groups a launch of `groups` work-groups per dimension
/// has: up to (2^32 - 1)^3, past 2^64, so counted in 128 bits.
pub fn group_count(groups: [u32; 3]) -> u128 {
    groups.iter().map(|&g| g as u128).product()
}

/// The id of the work-group with linear index `linear` (x fastest, then y,
/// then z), of `groups` work-groups per dimension.
pub fn group_id(linear: u128, groups: [u32; 3]) -> [u32; 3] {
    let [gx, gy, _] = groups.map(|g| g.max(1) as u128);
    let x = linear % gx;
    let y = linear / gx % gy;
    let z = linear / gx / gy;
    [x as u32, y as u32, z as u32]
}

/// The size of work-group `id`: `local`, except that the last work-group
/// of a dimension holds what is left of `global` (OpenCL 2.0).
pub fn group_size(id: [u32; 3], local: [u32; 3], global: [u32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|d| {
        let start = id[d] as u64 * local[d] as u64;
        (global[d] as u64)
            .saturating_sub(start)
            .min(local[d] as u64) as u32
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 0.1;\n.target 100;\n\
        .global .align 4 .host_access(\"g\") @g[8] = {.32b 7, .32b 9};\n\
        .kernel @k() { return; }\n";

    /// Work-groups are counted and numbered past 2^32 (issue "Hostile
    /// input, round two", item 1): `--global 4096,8192,129 --local 1,1,1`
    /// has 4,328,521,728 work-groups, the last [4095, 8191, 128].
    #[test]
    fn work_groups_are_counted_past_2_32() {
        let groups = [4096, 8192, 129];
        let n = group_count(groups);
        assert_eq!(n, 4_328_521_728);
        assert_eq!(group_id(0, groups), [0, 0, 0]);
        assert_eq!(group_id(4095, groups), [4095, 0, 0]);
        assert_eq!(group_id(4096, groups), [0, 1, 0]);
        assert_eq!(group_id(1 << 32, groups), [0, 0, 128]);
        assert_eq!(group_id((1 << 32) + 4097, groups), [1, 1, 128]);
        assert_eq!(group_id(n - 1, groups), [4095, 8191, 128]);
        // (2^32 - 1)^3 work-groups: past 2^64
        let max = [u32::MAX; 3];
        assert_eq!(group_count(max), (u32::MAX as u128).pow(3));
        assert_eq!(group_id(group_count(max) - 1, max), max.map(|m| m - 1));
        // partial last work-groups; sizes past 2^32 when multiplied
        assert_eq!(
            group_size([2, 0, 0], [1024, 1, 1], [u32::MAX, 1, 1]),
            [1024, 1, 1]
        );
        let last = u32::MAX / 1024;
        assert_eq!(
            group_size([last, 0, 0], [1024, 1, 1], [u32::MAX, 1, 1]),
            [1023, 1, 1]
        );
        assert_eq!(group_size([0, 0, 0], [64, 1, 1], [10, 1, 1]), [10, 1, 1]);
    }

    /// A launch given up by its cancel callback stops with `Interrupted`
    /// while it runs, and the device stays usable (issue "One typed
    /// instruction, one device contract", item 2: Ctrl-C in Python on the
    /// cpu device).
    #[test]
    fn a_cancelled_launch_stops_and_the_device_stays_usable() {
        let src = ".version 0.1;\n.target 100;\n\
            .kernel @forever(.param[8] %out)\n{\n\t.reg .32b %i;\n\t.reg .64b %o;\n\
            \tld.param.64b %o, [%out];\n\tmov.32b %i, 0;\nspin:\n\tiadd.32b %i, %i, 1;\n\
            \tst.global.32b [%o], %i;\n\tgoto spin;\n}\n\
            .kernel @once(.param[8] %out)\n{\n\t.reg .32b %i;\n\t.reg .64b %o;\n\
            \tld.param.64b %o, [%out];\n\tmov.32b %i, 7;\n\tst.global.32b [%o], %i;\n\
            \treturn;\n}\n";
        let m = pisa_translator::assemble("c.pisa", src).expect("assembles");
        let mut dev = CpuDevice::new();
        dev.set_timeout(Duration::from_secs(600));
        let p = dev.load(&m).expect("loads");
        let b = dev.alloc_buffer(4).expect("allocates");
        let addr = dev
            .buffer_address(b)
            .expect("address")
            .to_le_bytes()
            .to_vec();
        let launch = |kernel: &str| Launch {
            program: p,
            kernel: kernel.to_string(),
            range: pisa_device::NdRange::d1(1),
            args: vec![addr.clone()],
        };
        let mut asked = 0;
        let t0 = Instant::now();
        let e = dev
            .launch_with_cancel(&launch("forever"), &mut || {
                asked += 1;
                asked == 3
            })
            .expect_err("cancelled");
        assert!(matches!(e, RuntimeError::Interrupted), "{e}");
        // asked before the launch, then at two deadline checks
        assert_eq!(asked, 3);
        assert!(t0.elapsed() < Duration::from_secs(60));
        // the loop ran: two slices of instructions
        let n = u32::from_le_bytes(dev.download(b).unwrap()[..4].try_into().unwrap());
        assert!(n > 1000, "{n}");
        // asked before it starts: nothing runs
        let e = dev
            .launch_with_cancel(&launch("once"), &mut || true)
            .expect_err("cancelled");
        assert!(matches!(e, RuntimeError::Interrupted), "{e}");
        assert_eq!(
            dev.download(b).unwrap(),
            n.to_le_bytes(),
            "nothing ran after a cancel before the launch"
        );
        dev.launch_with_cancel(&launch("once"), &mut || false)
            .expect("runs");
        assert_eq!(dev.download(b).unwrap(), [7, 0, 0, 0]);
    }

    /// Unloading frees the program's data block, and its id is an error
    /// afterwards (the fuzzer loads program after program on one device).
    #[test]
    fn unload_frees_the_program_and_its_globals() {
        let m = pisa_translator::assemble("u.pisa", SRC).expect("assembles");
        let mut dev = CpuDevice::new();
        let before = dev.memory.live_allocations();
        let a = dev.load(&m).expect("loads");
        let b = dev.load(&m).expect("loads");
        assert_eq!(dev.loaded_programs(), 2);
        assert_eq!(dev.memory.live_allocations(), before + 2);
        dev.unload(a);
        dev.unload(a); // twice: nothing more happens
        assert_eq!(dev.loaded_programs(), 1);
        assert_eq!(dev.memory.live_allocations(), before + 1);
        let e = dev.read_global(a, "g").expect_err("unloaded");
        assert!(e.to_string().contains("unloaded"), "{e}");
        assert_eq!(
            dev.read_global(b, "g").expect("loaded"),
            [7, 0, 0, 0, 9, 0, 0, 0]
        );
        dev.unload(b);
        assert_eq!(dev.loaded_programs(), 0);
        assert_eq!(dev.memory.live_allocations(), before);
        let e = dev
            .kernels(ProgramId::from_index(5))
            .expect_err("never loaded");
        assert!(e.to_string().contains("unknown program"), "{e}");
    }
}
