//! Launches: NDRange sizes, argument marshalling by the kernels' `.param`
//! layout, recording several launches into one submission, waiting with a
//! timeout, and GPU timestamps.

use crate::error::VkContext;
use crate::{
    resolve_launch, BufferId, Launch, LaunchTiming, ProgramId, Result, Runtime, RuntimeError,
};
use ash::vk;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long the empty dispatch that makes a driver compile (`prepare`) is
/// waited for: far beyond any compilation seen (llvmpipe took 4 minutes for
/// a 1,000-line random program on a loaded machine), so that only a hang of
/// an earlier launch still in the queue ends it.
const COMPILE_WAIT: Duration = Duration::from_secs(600);

/// How often a wait with a cancel callback asks it whether to give up.
pub const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Numbers submissions across all runtimes, so a [`Pending`] names its
/// submission's objects in the runtime that made it and in no other.
static NEXT_SUBMISSION: AtomicU64 = AtomicU64::new(0);

/// Launches submitted but not yet waited for. The runtime keeps the
/// submission's objects until it is waited for (or the runtime is dropped).
#[must_use = "wait for the launches with Runtime::wait"]
pub struct Pending {
    /// The key of the submission in its runtime's `in_flight`.
    serial: u64,
    count: u32,
}

/// Objects one submission uses, kept for the next one.
pub(crate) struct Slot {
    pub cmd: vk::CommandBuffer,
    pub fence: vk::Fence,
    pub query: Option<(vk::QueryPool, u32)>,
    pub params: Option<(BufferId, u64)>,
    pub status: Option<(BufferId, u64)>,
    /// The printf buffers of the submission's launches, back to back.
    pub printf: Option<(BufferId, u64)>,
    /// Per launch of the submission: its program and the offset of its
    /// printf buffer, when it prints.
    pub printf_of: Vec<Option<(ProgramId, u64)>>,
    /// Checked mode: the check blocks of the submission's launches.
    pub check: Option<(BufferId, u64)>,
    /// Per launch: its program and the offset of its check block, when its
    /// program is checked.
    pub check_of: Vec<Option<(ProgramId, u64)>>,
    /// The search depth the submission's checked pipelines were made for
    /// (`Runtime::check_depth`).
    pub check_depth: u32,
}

/// One dispatch of an NDRange: work-groups of one size at one group offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    local: [u32; 3],
    groups: [u32; 3],
    group_offset: [u32; 3],
}

/// Splits an NDRange whose global size is not a multiple of the local size
/// into up to 8 dispatches, so that the partial last work-group of each
/// dimension really is smaller (OpenCL 2.0): every dispatched work-item is in
/// range and work-group barriers stay uniform. Regions with more work-groups
/// than the device takes in one dispatch (`maxComputeWorkGroupCount`, 65,535
/// on many devices) are split further, each piece at its own group offset,
/// and so are regions of more than [`MAX_GROUPS_PER_DISPATCH`] work-groups in
/// all, counted in 64 bits.
fn regions_of(global: [u32; 3], local: [u32; 3], max_groups: [u32; 3]) -> Result<Vec<Region>> {
    let mut out = Vec::new();
    let whole = ndrange_regions(global, local);
    let pieces = |r: &Region| -> ([u32; 3], u64) {
        // the largest piece in each dimension: the device's limit, and in y
        // and z what keeps the piece's total within MAX_GROUPS_PER_DISPATCH
        let mut piece = [0u32; 3];
        let mut total = 1u64;
        let mut count = 1u64;
        for d in 0..3 {
            let room = (MAX_GROUPS_PER_DISPATCH / total).max(1);
            let p = u64::from(max_groups[d].max(1).min(r.groups[d].max(1))).min(room);
            piece[d] = p as u32;
            total *= p;
            count = count.saturating_mul(u64::from(r.groups[d]).div_ceil(p));
        }
        (piece, count)
    };
    let dispatches = whole
        .iter()
        .fold(0u64, |n, r| n.saturating_add(pieces(r).1));
    if dispatches > MAX_DISPATCHES {
        let groups: u128 = (0..3)
            .map(|d| u128::from(global[d].div_ceil(local[d].max(1))))
            .product();
        return Err(RuntimeError::BadLaunch(format!(
            "global size {global:?} with local size {local:?} is {groups} work-groups, \
             {dispatches} dispatches of at most {MAX_GROUPS_PER_DISPATCH} work-groups within \
             the device's maxComputeWorkGroupCount {max_groups:?}; at most {MAX_DISPATCHES} \
             dispatches are recorded for one launch"
        )));
    }
    for r in whole {
        let piece = pieces(&r).0;
        let chunks = |d: usize| {
            let max = piece[d];
            (0..r.groups[d].div_ceil(max)).map(move |k| (k * max, (r.groups[d] - k * max).min(max)))
        };
        for (sx, nx) in chunks(0) {
            for (sy, ny) in chunks(1) {
                for (sz, nz) in chunks(2) {
                    out.push(Region {
                        local: r.local,
                        groups: [nx, ny, nz],
                        group_offset: [
                            r.group_offset[0] + sx,
                            r.group_offset[1] + sy,
                            r.group_offset[2] + sz,
                        ],
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The most dispatches one launch records (an NDRange of at least 2^46
/// work-groups needs more: it would run for days, and its command buffer
/// alone would take gigabytes).
const MAX_DISPATCHES: u64 = 1 << 16;

/// The most work-groups one dispatch is given, all dimensions together.
/// Mesa's lavapipe counts a dispatch's work-groups in 32 bits: 4096 × 8192 ×
/// 129 groups (2^32 and more) ran only their count modulo 2^32, and exactly
/// 2^32 ran none, without an error. Below 2^31, so that no driver's signed
/// 32-bit count overflows either; a larger NDRange becomes several dispatches.
pub(crate) const MAX_GROUPS_PER_DISPATCH: u64 = 1 << 30;

/// The full and partial work-groups of an NDRange, as up to 8 regions.
fn ndrange_regions(global: [u32; 3], local: [u32; 3]) -> Vec<Region> {
    let mut out = Vec::new();
    for mask in 0..8u32 {
        let mut r = Region {
            local: [0; 3],
            groups: [0; 3],
            group_offset: [0; 3],
        };
        for d in 0..3 {
            let full = global[d] / local[d];
            let rem = global[d] % local[d];
            if mask & (1 << d) == 0 {
                r.local[d] = local[d];
                r.groups[d] = full;
            } else {
                r.local[d] = rem;
                r.groups[d] = u32::from(rem > 0);
                r.group_offset[d] = full;
            }
        }
        if r.groups.iter().all(|&g| g > 0) && r.local.iter().all(|&l| l > 0) {
            out.push(r);
        }
    }
    out
}

impl Runtime {
    fn resolve(&self, l: &Launch) -> Result<(usize, [u32; 3], Vec<u8>)> {
        let p = self.program(l.program)?;
        let r = resolve_launch(&p.kernels, l, self.info.max_workgroup_invocations)?;
        // a pipeline's work-group size must be within maxComputeWorkGroupSize
        // in each dimension too (the partial work-groups are smaller)
        let max = self.max_workgroup_size;
        if (0..3).any(|d| r.1[d] > max[d]) {
            return Err(RuntimeError::BadLaunch(format!(
                "local size {:?} exceeds the device's maximum work-group size {max:?}",
                r.1
            )));
        }
        Ok(r)
    }

    /// A reusable set of per-submission objects (command buffer, fence,
    /// timestamp queries, argument and status buffers), so a launch
    /// allocates nothing once the runtime is warm.
    fn take_slot(
        &mut self,
        count: u32,
        param_bytes: u64,
        printf_bytes: u64,
        check_bytes: u64,
    ) -> Result<Slot> {
        let mut slot = match self.slots.pop() {
            Some(s) => s,
            None => {
                let d = &self.device;
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: `self.cmd_pool` was created on this device and lives
                // as long as the runtime; `&mut self` gives it its external
                // synchronization. ash returns exactly one buffer, as asked.
                let cmd =
                    unsafe { d.allocate_command_buffers(&info) }.vk("vkAllocateCommandBuffers")?[0];
                // SAFETY: a plain fence on a live device (unsignalled, as
                // `queue_submit` needs it).
                let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
                    .vk("vkCreateFence")?;
                Slot {
                    cmd,
                    fence,
                    query: None,
                    params: None,
                    status: None,
                    printf: None,
                    printf_of: Vec::new(),
                    check: None,
                    check_of: Vec::new(),
                    check_depth: 0,
                }
            }
        };
        if self.timestamps && slot.query.is_none_or(|(_, n)| n < 2 * count) {
            if let Some((q, _)) = slot.query.take() {
                // SAFETY: `q` was created on this device, and no pending
                // command buffer uses it: the slot is not in flight (new, or
                // returned by `wait` after its fence signalled).
                unsafe { self.device.destroy_query_pool(q, None) };
            }
            let n = (2 * count).next_power_of_two();
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(n);
            // SAFETY: a timestamp query pool of n >= 1 queries on a live
            // device.
            let q =
                unsafe { self.device.create_query_pool(&info, None) }.vk("vkCreateQueryPool")?;
            slot.query = Some((q, n));
        }
        for (buf, need) in [
            (&mut slot.params, param_bytes.max(16)),
            (&mut slot.status, 4 * count.max(1) as u64),
            (&mut slot.printf, printf_bytes),
            (&mut slot.check, check_bytes),
        ] {
            if need > 0 && buf.is_none_or(|(_, cap)| cap < need) {
                if let Some((b, _)) = buf.take() {
                    // the slot is not in flight, so neither is its buffer
                    self.release_buffer(b);
                }
                let cap = need.next_power_of_two();
                *buf = Some((self.alloc_buffer(cap)?, cap));
            }
        }
        Ok(slot)
    }

    /// Records the launches into one command buffer, in order (each sees the
    /// memory effects of the previous ones), and submits it.
    pub fn submit(&mut self, launches: &[Launch]) -> Result<Pending> {
        self.usable()?;
        let mut prepared = Vec::new();
        let mut blocks = Vec::new();
        let depth = self.check_depth(launches);
        for l in launches {
            let (ki, local, block) = self.resolve(l)?;
            let mut regions = Vec::new();
            for r in regions_of(l.range.global, local, self.info.max_workgroup_count)? {
                regions.push((r, self.pipeline(l.program, ki, r.local, depth)?));
            }
            // the driver compiles what it has not yet, outside the launches'
            // timeout (see `prepare`)
            self.warm_up(l.program, regions.iter().map(|(_, pl)| *pl))?;
            // argument blocks back to back, 16-byte aligned
            let off = blocks.len().div_ceil(16) * 16;
            blocks.resize(off, 0);
            blocks.extend_from_slice(&block);
            prepared.push((l, local, regions, off as u64));
        }
        let count = prepared.len() as u32;
        // a printf buffer for each launch of a program that prints
        let mut printf_of = Vec::new();
        let mut printf_bytes = 0u64;
        for (l, ..) in &prepared {
            if self.program(l.program)?.uses_printf {
                printf_of.push(Some((l.program, printf_bytes)));
                printf_bytes += crate::printf::allocation_bytes(self.printf_bytes) as u64;
            } else {
                printf_of.push(None);
            }
        }
        // a check block for each launch of a checked program
        let mut check_of = Vec::new();
        let mut check_bytes = 0u64;
        for (l, ..) in &prepared {
            if self.program(l.program)?.check_sites.is_empty() {
                check_of.push(None);
            } else {
                check_of.push(Some((l.program, check_bytes)));
                check_bytes += pisa_translator::spirv::checked::CHECK_BLOCK_BYTES;
            }
        }
        let mut slot = self.take_slot(count, blocks.len() as u64, printf_bytes, check_bytes)?;
        slot.printf_of = printf_of;
        slot.check_of = check_of;
        slot.check_depth = depth;
        if let Err(e) = self.record(&slot, prepared, &blocks) {
            // nothing was submitted: the slot is reused as it is (its command
            // buffer is reset before it is recorded again)
            self.slots.push(slot);
            return Err(e);
        }
        self.submit_slot(slot, count)
    }

    /// Submits the slot's recorded command buffer (`count` launches) with its
    /// fence; on failure the slot is kept for reuse, or the runtime poisoned
    /// when the device is lost.
    fn submit_slot(&mut self, slot: Slot, count: u32) -> Result<Pending> {
        let cmds = [slot.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: `self.queue` is this device's queue, externally synchronized
        // by `&mut self`. `slot.cmd` was fully recorded by `record` or
        // `dispatch_empty` (executable state, ONE_TIME_SUBMIT, not pending:
        // see `record`), and everything it uses (pipelines, layouts, query
        // pool, buffers) belongs to this device and stays alive until the
        // fence has signalled: `wait`, `unload`, `free_buffer` and `Drop` wait
        // for it (or the device) first, and a poisoned runtime destroys
        // nothing. `slot.fence` is unsignalled (created so, or reset by
        // `wait`) and not in use by another submission, since each slot is in
        // at most one submission.
        let submitted = unsafe { self.device.queue_submit(self.queue, &submit, slot.fence) };
        if let Err(e) = submitted.vk("vkQueueSubmit") {
            if matches!(e, RuntimeError::DeviceLost) {
                self.poisoned = true;
            } else {
                // a failed vkQueueSubmit leaves the command buffer and the
                // fence as they were: not pending, unsignalled
                self.slots.push(slot);
            }
            return Err(e);
        }
        let serial = NEXT_SUBMISSION.fetch_add(1, Ordering::Relaxed);
        self.in_flight.push((serial, slot));
        Ok(Pending { serial, count })
    }

    /// Fills the slot's argument and status buffers and records the launches
    /// into its command buffer.
    #[allow(clippy::type_complexity)]
    fn record(
        &mut self,
        slot: &Slot,
        prepared: Vec<(&Launch, [u32; 3], Vec<(Region, vk::Pipeline)>, u64)>,
        blocks: &[u8],
    ) -> Result<()> {
        let count = prepared.len() as u32;
        let (Some((pbuf, _)), Some((sbuf, _))) = (slot.params, slot.status) else {
            return Err(RuntimeError::Unusable);
        };
        // the slot is not in use by the device (see below), so neither are
        // its buffers
        self.upload(pbuf, 0, blocks)?;
        self.upload(sbuf, 0, &vec![0; 4 * count as usize])?;
        let params_base = self.buffer_address(pbuf)?;
        let status_base = self.buffer_address(sbuf)?;
        // each printf buffer starts with its write offset; the kernel reads
        // nothing else of it
        let check_at = self.fill_check_blocks(slot)?;
        let mut printf_at = vec![0u64; count as usize];
        if let Some((fbuf, _)) = slot.printf {
            let fbase = self.buffer_address(fbuf)?;
            for (i, p) in slot.printf_of.iter().enumerate() {
                if let Some((_, off)) = p {
                    let header = crate::printf::PRINTF_HEADER_BYTES.to_le_bytes();
                    self.upload(fbuf, *off, &header)?;
                    printf_at[i] = fbase + off;
                }
            }
        }
        let cmd = slot.cmd;
        let query = slot.query.map(|q| q.0);
        let d = &self.device;
        // SAFETY: `cmd` was allocated on this device from `self.cmd_pool`,
        // which has RESET_COMMAND_BUFFER, and is not pending: the slot is new,
        // or `wait` returned it after its fence signalled, or its last
        // recording or submission failed (nothing pending). `&mut self`
        // gives the pool and `cmd` their external synchronization.
        unsafe { d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty()) }
            .vk("vkResetCommandBuffer")?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: `cmd` was just reset, so it is in the initial state.
        unsafe { d.begin_command_buffer(cmd, &begin) }.vk("vkBeginCommandBuffer")?;
        if let (Some(q), true) = (query, count > 0) {
            // SAFETY: `cmd` is recording; `q` is a timestamp query pool of this
            // device with at least `2 * count` queries (`take_slot`), so the
            // range 0..2*count is inside it.
            unsafe { d.cmd_reset_query_pool(cmd, q, 0, 2 * count) };
        }
        for (i, (l, local, regions, poff)) in prepared.into_iter().enumerate() {
            let p = self.program(l.program)?;
            let (layout, data_base) = (p.layout, p.data_base);
            let params = params_base + poff;
            let status = status_base + 4 * i as u64;
            let printf = printf_at[i];
            let check = check_at[i];
            if i > 0 {
                // in-order semantics between launches of one submission
                let mb = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)];
                // SAFETY: `cmd` is recording, outside any render pass, for a
                // queue family with COMPUTE; a global memory barrier between
                // compute-shader stages with shader access masks they support.
                unsafe {
                    d.cmd_pipeline_barrier(
                        cmd,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::DependencyFlags::empty(),
                        &mb,
                        &[],
                        &[],
                    )
                };
            }
            if let Some(q) = query {
                // SAFETY: `cmd` is recording; query 2i < 2*count is inside `q`
                // and was reset above; `q` exists only when the queue family
                // has timestamp_valid_bits > 0 (`Runtime::new`).
                unsafe {
                    d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 2 * i as u32)
                };
            }
            for (r, pipeline) in regions {
                // the block the translator declares (spirv::PUSH_MEMBERS)
                use pisa_translator::abi::Push;
                let mut pc = [0u8; pisa_translator::abi::PUSH_BYTES as usize];
                let mut put = |m: Push, bytes: &[u8]| {
                    let at = m.offset() as usize;
                    pc[at..at + bytes.len()].copy_from_slice(bytes)
                };
                put(Push::DataBase, &data_base.to_le_bytes());
                put(Push::Params, &params.to_le_bytes());
                let per_dim = [
                    (Push::GlobalOffsetX, l.range.offset),
                    (Push::GlobalSizeX, l.range.global),
                    (Push::GroupOffsetX, r.group_offset),
                    (Push::EnqueuedX, local),
                ];
                for (first, v) in per_dim {
                    // the y and z members follow x, 4 bytes apart
                    let words: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    put(first, &words);
                }
                put(Push::WorkDim, &l.range.dims.clamp(1, 3).to_le_bytes());
                put(Push::Status, &status.to_le_bytes());
                put(Push::PrintfBuffer, &printf.to_le_bytes());
                put(Push::Check, &check.to_le_bytes());
                // SAFETY: `cmd` is recording. `pipeline` is a compute pipeline
                // of this program, created with `layout` (`Runtime::pipeline`),
                // whose one push-constant range is COMPUTE bytes
                // 0..PUSH_BYTES, exactly `pc`; both live until the program is
                // unloaded, which waits for the device to be idle. The group
                // counts are 1..=maxComputeWorkGroupCount (`regions_of`).
                unsafe {
                    d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
                    d.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, &pc);
                    d.cmd_dispatch(cmd, r.groups[0], r.groups[1], r.groups[2]);
                }
            }
            if let Some(q) = query {
                // SAFETY: as for the TOP_OF_PIPE timestamp; 2i+1 < 2*count.
                unsafe {
                    d.cmd_write_timestamp(
                        cmd,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                        q,
                        2 * i as u32 + 1,
                    )
                };
            }
        }
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: `cmd` is recording, outside any render pass; a global
        // barrier from compute-shader writes to host reads, then the end of
        // the recording begun above.
        unsafe {
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            );
            d.end_command_buffer(cmd)
        }
        .vk("vkEndCommandBuffer")
    }

    /// Waits for submitted launches, up to the runtime's timeout.
    pub fn wait(&mut self, p: Pending) -> Result<Vec<LaunchTiming>> {
        self.wait_up_to(p, self.timeout, None)
    }

    /// Waits as [`Runtime::wait`] does, asking `cancel` every
    /// [`CANCEL_POLL`] whether to give up (e.g. the user pressed Ctrl-C).
    /// Giving up is [`RuntimeError::Interrupted`], and leaves the runtime
    /// unusable, as a timeout does: the kernel cannot be stopped, and may
    /// still be running and writing to its buffers.
    pub fn wait_with_cancel(
        &mut self,
        p: Pending,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<LaunchTiming>> {
        self.wait_up_to(p, self.timeout, Some(cancel))
    }

    /// Waits for submitted launches, up to `limit`, in slices of
    /// [`CANCEL_POLL`] between which `cancel` may give up.
    fn wait_up_to(
        &mut self,
        p: Pending,
        limit: Duration,
        mut cancel: Option<&mut dyn FnMut() -> bool>,
    ) -> Result<Vec<LaunchTiming>> {
        // a Pending of another runtime names none of this one's submissions
        // (serials are unique across runtimes)
        let at = self
            .in_flight
            .iter()
            .position(|(s, _)| *s == p.serial)
            .ok_or_else(|| {
                RuntimeError::BadArgument("the launches were submitted to another runtime".into())
            })?;
        let fence = self.in_flight[at].1.fence;
        let t0 = Instant::now();
        loop {
            let left = limit.saturating_sub(t0.elapsed());
            let slice = match cancel {
                Some(_) => left.min(CANCEL_POLL),
                None => left,
            };
            let ns = slice.as_nanos().min(u64::MAX as u128) as u64;
            // SAFETY: `fence` was created on this device and is not destroyed
            // while its submission is in `in_flight` (only `Drop` destroys it,
            // after waiting for the device).
            match unsafe { self.device.wait_for_fences(&[fence], true, ns) } {
                Ok(()) => break,
                Err(vk::Result::TIMEOUT) if t0.elapsed() >= limit => {
                    self.poisoned = true;
                    return Err(RuntimeError::Timeout(limit));
                }
                Err(vk::Result::TIMEOUT) => {
                    if cancel.as_mut().is_some_and(|c| c()) {
                        self.poisoned = true;
                        return Err(RuntimeError::Interrupted);
                    }
                }
                Err(e) => {
                    self.poisoned = true;
                    return Err(Err::<(), _>(e).vk("vkWaitForFences").unwrap_err());
                }
            }
        }
        // SAFETY: the fence is of this device and signalled, so the one
        // submission that used it has completed and it is in no queue
        // operation; `&mut self` synchronizes it externally.
        unsafe { self.device.reset_fences(&[fence]) }.vk("vkResetFences")?;
        let (_, slot) = self.in_flight.swap_remove(at);
        let status = match slot.status {
            Some((b, _)) => self.download(b)?,
            None => Vec::new(),
        };
        let mut timings = vec![LaunchTiming::default(); p.count as usize];
        if let (Some((q, _)), true) = (slot.query, p.count > 0) {
            let mut data = vec![0u64; 2 * p.count as usize];
            // SAFETY: `q` is a query pool of this device with at least
            // 2*count queries, all reset and written by the command buffer that
            // has completed (its fence signalled), so WAIT returns at once;
            // `data` holds 2*count 64-bit results, matching TYPE_64 and the
            // query count ash passes (`data.len()`).
            let results = unsafe {
                self.device.get_query_pool_results(
                    q,
                    0,
                    &mut data,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            };
            if results.is_ok() {
                for (i, t) in timings.iter_mut().enumerate() {
                    let ticks = data[2 * i + 1].saturating_sub(data[2 * i]);
                    t.kernel_ns = Some((ticks as f64 * self.timestamp_period as f64) as u64);
                }
            }
        }
        let printed = self.printf_outputs(&slot);
        let checked = self.check_reports(&slot);
        self.slots.push(slot);
        // a bad access makes every other result of the launch suspect
        checked?;
        for (t, out) in timings.iter_mut().zip(printed?) {
            t.printf = out;
        }
        if status.iter().take(4 * p.count as usize).any(|&b| b != 0) {
            // a loop of the kernel was cut short by the driver (the
            // translator's spirv/control.rs): the results cannot be trusted
            return Err(RuntimeError::LoopLimit);
        }
        Ok(timings)
    }

    /// The address ranges checked mode tracks: every buffer of the runtime
    /// but the launches' own argument, status and check blocks (of every
    /// slot, and of `taken`, a slot not back in the pool).
    fn tracked_ranges(&self, taken: Option<&Slot>) -> Vec<(u64, u64)> {
        let mut internal = Vec::new();
        for s in self
            .slots
            .iter()
            .chain(self.in_flight.iter().map(|(_, s)| s))
            .chain(taken)
        {
            internal.extend(
                [s.params, s.status, s.check]
                    .into_iter()
                    .flatten()
                    .map(|b| b.0),
            );
        }
        self.buffers
            .iter()
            .enumerate()
            .filter(|(i, _)| !internal.contains(&BufferId::from_index(*i)))
            .filter_map(|(_, b)| b.as_ref())
            .map(|b| (b.address, b.address + b.size))
            .collect()
    }

    /// The search depth of checked pipelines for the buffers live now
    /// (`spirv::checked::check_depth`), leaving room for the printf buffer
    /// the next submission's slot may add; 0 (and no work) when none of
    /// `launches` is of a checked program.
    fn check_depth(&self, launches: &[Launch]) -> u32 {
        use pisa_translator::spirv::checked::{check_depth, CHECK_TABLE_ENTRIES};
        let checked = launches.iter().any(|l| {
            self.program(l.program)
                .is_ok_and(|p| !p.check_sites.is_empty())
        });
        if !checked {
            return 0;
        }
        let entries = self.tracked_ranges(None).len() as u64 + 2;
        check_depth(entries).unwrap_or(CHECK_TABLE_ENTRIES.trailing_zeros())
    }

    /// Writes the check block of each checked launch of the slot (an empty
    /// report, the sinks, and the table of live allocations the kernel may
    /// reach); returns their addresses (0 for unchecked launches).
    fn fill_check_blocks(&mut self, slot: &Slot) -> Result<Vec<u64>> {
        use pisa_translator::spirv::checked::*;
        let mut at = vec![0u64; slot.check_of.len()];
        // (a reused slot keeps its check block when this submission checks
        // nothing: nothing to fill then)
        let Some((cbuf, _)) = slot
            .check
            .filter(|_| slot.check_of.iter().any(Option::is_some))
        else {
            return Ok(at);
        };
        let mut ranges = self.tracked_ranges(Some(slot));
        ranges.sort_unstable();
        if ranges.len() as u64 >= CHECK_TABLE_ENTRIES {
            return Err(RuntimeError::BadLaunch(format!(
                "checked mode tracks at most {} live buffers; this runtime has {}",
                CHECK_TABLE_ENTRIES - 1,
                ranges.len()
            )));
        }
        if ranges.len() as u64 + 1 > 1 << slot.check_depth {
            // (`check_depth` leaves room for the buffers a submission adds)
            return Err(RuntimeError::BadLaunch(format!(
                "internal error: checked mode's search covers {} entries, but {} buffers are live",
                1u64 << slot.check_depth,
                ranges.len()
            )));
        }
        let mut block = vec![0u8; CHECK_BLOCK_BYTES as usize];
        let entries = std::iter::once((0, 0))
            .chain(ranges)
            .chain(std::iter::repeat((u64::MAX, u64::MAX)));
        for (k, (first, past)) in entries.take(CHECK_TABLE_ENTRIES as usize).enumerate() {
            let o = (CHECK_TABLE + 16 * k as u64) as usize;
            block[o..o + 8].copy_from_slice(&first.to_le_bytes());
            block[o + 8..o + 16].copy_from_slice(&past.to_le_bytes());
        }
        let base = self.buffer_address(cbuf)?;
        for (i, c) in slot.check_of.iter().enumerate() {
            if let Some((_, off)) = c {
                self.upload(cbuf, *off, &block)?;
                at[i] = base + off;
            }
        }
        Ok(at)
    }

    /// The first bad access of each checked launch of a completed
    /// submission, as the reference device reports it.
    fn check_reports(&self, slot: &Slot) -> Result<()> {
        use pisa_translator::spirv::checked::*;
        let Some((cbuf, _)) = slot
            .check
            .filter(|_| slot.check_of.iter().any(Option::is_some))
        else {
            return Ok(());
        };
        let all = self.download(cbuf)?;
        for c in &slot.check_of {
            let Some((prog, off)) = *c else {
                continue;
            };
            let b = &all[off as usize..(off + CHECK_TABLE) as usize];
            let u32_at = |o: u64| {
                u32::from_le_bytes(b[o as usize..o as usize + 4].try_into().unwrap_or([0; 4]))
            };
            let kind = u32_at(CHECK_KIND);
            if kind == 0 {
                continue;
            }
            let addr = u64::from_le_bytes(
                b[CHECK_ADDRESS as usize..CHECK_ADDRESS as usize + 8]
                    .try_into()
                    .unwrap_or([0; 8]),
            );
            let site = self
                .program(prog)?
                .check_sites
                .get(u32_at(CHECK_SITE) as usize)
                .cloned()
                .unwrap_or_default();
            let what = if kind == CHECK_MISALIGNED {
                "misaligned"
            } else {
                "out-of-bounds"
            };
            let space = match u32_at(CHECK_SPACE) {
                SPACE_SHARED => "shared",
                SPACE_PRIVATE => "private",
                _ => "device",
            };
            let local = [0, 1, 2].map(|d| u32_at(CHECK_LOCAL_ID + 4 * d));
            let group = [0, 1, 2].map(|d| u32_at(CHECK_GROUP_ID + 4 * d));
            return Err(RuntimeError::Kernel(format!(
                "{site}: {what} access of {} bytes at {space} address {addr:#x} (work-item {local:?} of work-group {group:?}; found by checked mode)",
                u32_at(CHECK_BYTES)
            )));
        }
        Ok(())
    }

    /// Decodes the printf buffers of a completed submission: per launch,
    /// what it printed (`None` for launches of kernels that cannot print).
    fn printf_outputs(&self, slot: &Slot) -> Result<Vec<Option<crate::printf::PrintfOutput>>> {
        // (a reused slot keeps its printf buffer when this submission prints
        // nothing: nothing to read back then)
        let Some((fbuf, _)) = slot
            .printf
            .filter(|_| slot.printf_of.iter().any(Option::is_some))
        else {
            return Ok(vec![None; slot.printf_of.len()]);
        };
        let all = self.download(fbuf)?;
        let size = self.printf_bytes as usize;
        let mut out = Vec::new();
        for p in &slot.printf_of {
            let Some((prog, off)) = *p else {
                out.push(None);
                continue;
            };
            let buf = all.get(off as usize..off as usize + size).unwrap_or(&[]);
            // format strings live in the program's .global/.const variables
            let p = self.program(prog)?;
            let data = match p.data {
                Some(d) => self.download(d)?,
                None => Vec::new(),
            };
            let string_at = |a: u64| crate::printf::c_string_at(&data, p.data_base, a);
            out.push(Some(crate::printf::decode(buf, &string_at)));
        }
        Ok(out)
    }

    /// Creates the pipelines a launch needs (the driver compiles the kernel
    /// for its work-group sizes) and dispatches each new one once with no
    /// work-groups, so that the launch itself only records and runs: Mesa's
    /// llvmpipe (lavapipe) creates a pipeline at once and compiles the kernel
    /// at its first dispatch, whatever the group count (`llvmpipe_launch_grid`
    /// updates the shader variant before it looks at the grid), which put the
    /// whole compilation into the first launch's kernel time, under the
    /// launch timeout and outside `pisa run --compile-timeout`. `submit`
    /// (and so `launch`) does the same for what is still cold: the launch
    /// timeout bounds the run alone; the driver's compiler, which cannot be
    /// interrupted, gets `COMPILE_WAIT`.
    pub fn prepare(&mut self, l: &Launch) -> Result<()> {
        self.usable()?;
        let (ki, local, _) = self.resolve(l)?;
        let mut pipelines = Vec::new();
        let depth = self.check_depth(std::slice::from_ref(l));
        for r in regions_of(l.range.global, local, self.info.max_workgroup_count)? {
            pipelines.push(self.pipeline(l.program, ki, r.local, depth)?);
        }
        self.warm_up(l.program, pipelines)
    }

    /// Has the driver compile those of `pipelines` (of `program`) that have
    /// not been dispatched yet (`dispatch_empty`).
    fn warm_up(
        &mut self,
        program: ProgramId,
        pipelines: impl IntoIterator<Item = vk::Pipeline>,
    ) -> Result<()> {
        let p = self.program(program)?;
        let mut cold: Vec<vk::Pipeline> = Vec::new();
        for pl in pipelines {
            if !p.warm.contains(&pl) && !cold.contains(&pl) {
                cold.push(pl);
            }
        }
        if cold.is_empty() {
            return Ok(());
        }
        let layout = p.layout;
        self.dispatch_empty(layout, &cold)?;
        if let Some(Some(p)) = self.programs.get_mut(program.index()) {
            p.warm.extend(cold);
        }
        Ok(())
    }

    /// Dispatches each pipeline (of a program with `layout`) with zero
    /// work-groups, and waits: no invocation runs, the driver compiles.
    fn dispatch_empty(
        &mut self,
        layout: vk::PipelineLayout,
        pipelines: &[vk::Pipeline],
    ) -> Result<()> {
        let mut slot = self.take_slot(0, 0, 0, 0)?;
        // no printf buffer or check block to read back (a reused slot still
        // names its last launches')
        slot.printf_of = Vec::new();
        slot.check_of = Vec::new();
        let cmd = slot.cmd;
        let pc = [0u8; pisa_translator::abi::PUSH_BYTES as usize];
        let d = &self.device;
        // SAFETY: as in `record`: `cmd` is the slot's command buffer from
        // `self.cmd_pool` (RESET_COMMAND_BUFFER), not pending (the slot is new
        // or was returned by `wait` after its fence signalled), externally
        // synchronized by `&mut self`. The pipelines are this program's,
        // created with `layout`, whose one push-constant range is COMPUTE
        // bytes 0..PUSH_BYTES (`pc`). A dispatch of 0x0x0 groups is valid
        // (group counts at most maxComputeWorkGroupCount) and runs nothing.
        let recorded = unsafe {
            d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())
                .vk("vkResetCommandBuffer")
                .and_then(|()| {
                    let begin = vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
                    d.begin_command_buffer(cmd, &begin)
                        .vk("vkBeginCommandBuffer")
                })
                .and_then(|()| {
                    for &pl in pipelines {
                        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pl);
                        d.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, &pc);
                        d.cmd_dispatch(cmd, 0, 0, 0);
                    }
                    d.end_command_buffer(cmd).vk("vkEndCommandBuffer")
                })
        };
        if let Err(e) = recorded {
            self.slots.push(slot);
            return Err(e);
        }
        let p = self.submit_slot(slot, 0)?;
        // no invocation runs, so only the driver's compiler can take long,
        // or launches submitted earlier and still running: not bounded by
        // the launch timeout (`pisa run` bounds compilation with
        // --compile-timeout; a driver's compiler cannot be interrupted, as in
        // vkCreateComputePipelines), but not endless either, for an earlier
        // launch may never end
        self.wait_up_to(p, COMPILE_WAIT.max(self.timeout), None)
            .map(|_| ())
    }

    /// Launches one kernel and waits for it.
    pub fn launch(&mut self, l: &Launch) -> Result<LaunchTiming> {
        let p = self.submit(std::slice::from_ref(l))?;
        Ok(self.wait(p)?.into_iter().next().unwrap_or_default())
    }

    /// Launches one kernel and waits for it as [`Runtime::wait_with_cancel`]
    /// does.
    pub fn launch_with_cancel(
        &mut self,
        l: &Launch,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<LaunchTiming> {
        let p = self.submit(std::slice::from_ref(l))?;
        Ok(self
            .wait_with_cancel(p, cancel)?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every work-group of the NDRange is dispatched exactly once, whatever
    /// the device's per-dispatch limit.
    #[test]
    fn regions_cover_every_group_once() {
        for (global, local, max) in [
            ([70_000, 1, 1], [1, 1, 1], [65_535, 65_535, 65_535]),
            ([200_000, 3, 1], [3, 2, 1], [1000, 2, 65_535]),
            ([7, 5, 131_071], [2, 2, 1], [65_535, 65_535, 65_535]),
            ([10, 10, 10], [4, 3, 7], [1, 1, 1]),
        ] {
            let mut seen = std::collections::HashMap::new();
            let mut counted = 0u64;
            for r in regions_of(global, local, max).unwrap() {
                for (g, m) in r.groups.iter().zip(max) {
                    assert!(*g <= m && *g > 0, "{r:?}");
                }
                counted += r.groups.iter().map(|&g| u64::from(g)).product::<u64>();
                for x in 0..r.groups[0] {
                    for y in 0..r.groups[1] {
                        for z in 0..r.groups[2] {
                            let g = [
                                r.group_offset[0] + x,
                                r.group_offset[1] + y,
                                r.group_offset[2] + z,
                            ];
                            *seen.entry(g).or_insert(0) += 1;
                            // the region's local size: the full one, or the
                            // remainder in the last group of a dimension
                            for d in 0..3 {
                                let want = if (g[d] + 1) * local[d] <= global[d] {
                                    local[d]
                                } else {
                                    global[d] % local[d]
                                };
                                assert_eq!(r.local[d], want, "{g:?} {r:?}");
                            }
                        }
                    }
                }
            }
            let groups: u64 = (0..3)
                .map(|d| global[d].div_ceil(local[d]) as u64)
                .product();
            assert_eq!(seen.len() as u64, groups);
            assert_eq!(counted, groups);
            assert!(seen.values().all(|&n| n == 1));
        }
    }

    /// NDRanges of 2^32 work-groups and more (issue 33, item 1): lavapipe ran
    /// their count modulo 2^32. Every dispatch stays at or below
    /// MAX_GROUPS_PER_DISPATCH, and the dispatches tile the NDRange exactly:
    /// disjoint boxes whose volumes add up to the whole.
    #[test]
    fn dispatches_of_2_to_the_32_groups_and_more_are_split() {
        for (global, local, max) in [
            ([4096, 8192, 129], [1, 1, 1], [65_535, 65_535, 65_535]),
            (
                [65_536, 65_536, 1],
                [1, 1, 1],
                [u32::MAX, u32::MAX, u32::MAX],
            ),
            ([u32::MAX, 3, 1], [1, 1, 1], [u32::MAX, 65_535, 65_535]),
            ([1_000_003, 70_000, 71], [7, 3, 1], [65_535, 65_535, 65_535]),
        ] {
            let regions = regions_of(global, local, max).unwrap();
            let mut counted = 0u64;
            for r in &regions {
                let n: u64 = r.groups.iter().map(|&g| u64::from(g)).product();
                assert!(n <= MAX_GROUPS_PER_DISPATCH && n > 0, "{r:?}");
                for d in 0..3 {
                    assert!(r.groups[d] <= max[d], "{r:?}");
                    let end = u64::from(r.group_offset[d]) + u64::from(r.groups[d]);
                    assert!(end <= u64::from(global[d].div_ceil(local[d])), "{r:?}");
                }
                counted += n;
            }
            // disjoint: no two regions' boxes overlap
            for (i, a) in regions.iter().enumerate() {
                for b in &regions[i + 1..] {
                    let overlap = (0..3).all(|d| {
                        a.group_offset[d] < b.group_offset[d] + b.groups[d]
                            && b.group_offset[d] < a.group_offset[d] + a.groups[d]
                    });
                    assert!(!overlap, "{a:?} {b:?}");
                }
            }
            let groups: u64 = (0..3)
                .map(|d| u64::from(global[d].div_ceil(local[d])))
                .product();
            assert_eq!(counted, groups, "{global:?} {local:?}");
        }
        // an NDRange that would need more dispatches than one launch records
        // is refused, not recorded in part
        let e = regions_of([u32::MAX; 3], [1; 3], [65_535; 3]).unwrap_err();
        assert!(e.to_string().contains("dispatches"), "{e}");
    }
}
