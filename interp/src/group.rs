//! Work-groups: every work-item of a group is a cooperative thread of the
//! interpreter. Each runs until it reaches `barrier.workgroup` or ends; when
//! every work-item still running waits at the same barrier, all go on. So
//! barriers order shared-memory accesses exactly as on a GPU, and the
//! outcome does not depend on the order work-items are run in (for programs
//! without data races). In a module with sub-group instructions or
//! `%activemask` the cooperative threads are sub-groups of 32 work-items
//! running in lockstep (`crate::exec::SubGroup`) instead.
//!
//! A barrier that some work-items reach while others have ended, or that
//! work-items reach at different places, is undefined in PISA and Vulkan
//! (a GPU may hang): here it is an error.
//!
//! The launch's deadline is a [`Clock`] that every work-item's run is
//! charged to: it is checked after about [`SLICE`] instructions in all,
//! whether they are one work-item's loop, work-items looping through
//! barriers, or many short work-items and work-groups.

use crate::decode::Decoded;
use crate::exec::{Exec, Item, LaneTrap, NdInfo, Stop, SubGroup, Trap};
use crate::memory::{try_zeroed, DeviceMemory};
use std::time::Instant;

/// How many instructions run between two checks of the deadline.
pub const SLICE: u64 = 1 << 20;

#[derive(Debug)]
pub enum GroupError {
    Trap {
        trap: Trap,
        local: [u32; 3],
    },
    Barrier(String),
    Timeout,
    /// The launch's cancel callback asked to give up.
    Cancelled,
    /// The host could not allocate a work-group's memory (what, in words).
    OutOfMemory(String),
}

/// A launch's deadline, its cancel callback, and the instructions left
/// before they are checked again. Every run of a work-item or sub-group is
/// charged to it, at least one instruction each (so is setting up each
/// work-group), so the deadline holds for every kernel shape.
pub struct Clock<'c> {
    deadline: Instant,
    left: u64,
    /// Asked at each check whether to give up (`Device::launch_with_cancel`).
    cancel: Option<&'c mut dyn FnMut() -> bool>,
}

impl<'c> Clock<'c> {
    pub fn new(deadline: Instant) -> Clock<'c> {
        Clock {
            deadline,
            left: SLICE,
            cancel: None,
        }
    }

    /// A clock that also asks `cancel` at each check whether to give up.
    pub fn with_cancel(deadline: Instant, cancel: &'c mut dyn FnMut() -> bool) -> Clock<'c> {
        Clock {
            deadline,
            left: SLICE,
            cancel: Some(cancel),
        }
    }

    /// The most instructions a run may execute before it is charged.
    pub fn budget(&self) -> u64 {
        self.left.max(1)
    }

    /// Counts `steps` instructions (at least one); when [`SLICE`] have been
    /// counted since the last check, checks the deadline and asks the
    /// cancel callback.
    pub fn charge(&mut self, steps: u64) -> Result<(), GroupError> {
        self.left = self.left.saturating_sub(steps.max(1));
        if self.left == 0 {
            self.left = SLICE;
            if Instant::now() > self.deadline {
                return Err(GroupError::Timeout);
            }
            if let Some(cancel) = self.cancel.as_mut() {
                if cancel() {
                    return Err(GroupError::Cancelled);
                }
            }
        }
        Ok(())
    }
}

pub struct GroupRun<'a, 'c> {
    pub prog: &'a Decoded,
    pub kernel: u32,
    pub mem: &'a mut DeviceMemory,
    pub args: &'a [u8],
    pub nd: &'a NdInfo,
    pub shared_bytes: u32,
    pub private_bytes: u32,
    pub clock: &'a mut Clock<'c>,
}

impl GroupRun<'_, '_> {
    /// Runs one work-group; returns the instructions executed.
    pub fn run(&mut self, group_id: [u32; 3], size: [u32; 3]) -> Result<u64, GroupError> {
        let frame = self.prog.functions[self.kernel as usize].frame_bytes;
        let n = size.iter().map(|&s| s as u64).product::<u64>();
        let oom = || {
            GroupError::OutOfMemory(format!(
                "{} bytes of .private memory and {frame} bytes of registers for each of the {n} work-items of work-group {group_id:?}",
                self.private_bytes
            ))
        };
        let mut items: Vec<Item> = Vec::new();
        items.try_reserve_exact(n as usize).map_err(|_| oom())?;
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    let item = Item::new([x, y, z], self.kernel, frame, self.private_bytes)
                        .ok_or_else(oom)?;
                    items.push(item);
                }
            }
        }
        // setting the group up costs about an instruction per work-item
        self.clock.charge(n)?;
        // uninitialized in PISA (02 §2.1.3); zeros here, for repeatability
        let shared_bytes = (self.shared_bytes as u64).div_ceil(4) * 4;
        let mut shared = try_zeroed(shared_bytes).ok_or_else(|| {
            GroupError::OutOfMemory(format!(
                "{shared_bytes} bytes of .shared memory for work-group {group_id:?}"
            ))
        })?;
        let mut exec = Exec {
            prog: self.prog,
            mem: self.mem,
            args: self.args,
            nd: self.nd,
            group_id,
            group_size: size,
            shared: &mut shared,
            active: 0,
        };
        if self.prog.subgroups {
            run_subgroups(&mut exec, &mut items, group_id, self.clock)?;
        } else {
            run_items(&mut exec, &mut items, group_id, self.clock)?;
        }
        Ok(items.iter().map(|i| i.steps).sum())
    }
}

/// One work-item at a time, each until a barrier or its end.
fn run_items(
    exec: &mut Exec,
    items: &mut [Item],
    group_id: [u32; 3],
    clock: &mut Clock<'_>,
) -> Result<(), GroupError> {
    let mut state: Vec<Stop> = vec![Stop::Yield; items.len()];
    loop {
        for (item, st) in items.iter_mut().zip(state.iter_mut()) {
            if *st == Stop::Done {
                continue;
            }
            loop {
                let before = item.steps;
                let stop = exec.run(item, clock.budget());
                clock.charge(item.steps - before)?;
                match stop {
                    Ok(Stop::Yield) => {}
                    Ok(s) => {
                        *st = s;
                        break;
                    }
                    Err(trap) => {
                        return Err(GroupError::Trap {
                            trap,
                            local: item.local,
                        })
                    }
                }
            }
        }
        let waits: Vec<(Stop, usize)> = state
            .iter()
            .filter(|s| matches!(s, Stop::Barrier { .. }))
            .map(|s| (*s, 1))
            .collect();
        if !barrier(&waits, items.len(), group_id)? {
            return Ok(());
        }
        for s in state.iter_mut() {
            *s = Stop::Yield;
        }
    }
}

/// Sub-groups of 32 work-items (by local linear id; the last one may
/// be smaller) in lockstep, one at a time, each until a barrier, which
/// all its lanes that have not returned must reach together, or its end.
fn run_subgroups(
    exec: &mut Exec,
    items: &mut [Item],
    group_id: [u32; 3],
    clock: &mut Clock<'_>,
) -> Result<(), GroupError> {
    let mut groups: Vec<SubGroup> = items.chunks(32).map(|c| SubGroup::new(c.len())).collect();
    let mut state: Vec<Stop> = vec![Stop::Yield; groups.len()];
    let steps = |lanes: &[Item]| lanes.iter().map(|i| i.steps).sum::<u64>();
    loop {
        for ((lanes, sg), st) in items.chunks_mut(32).zip(&mut groups).zip(&mut state) {
            if *st == Stop::Done {
                continue;
            }
            loop {
                let before = steps(lanes);
                let stop = exec.run_subgroup(lanes, sg, clock.budget());
                clock.charge(steps(lanes) - before)?;
                match stop {
                    Ok(Stop::Yield) => {}
                    Ok(s) => {
                        *st = s;
                        break;
                    }
                    Err(LaneTrap { trap, lane }) => {
                        return Err(GroupError::Trap {
                            trap,
                            local: lanes[lane].local,
                        })
                    }
                }
            }
        }
        let waits: Vec<(Stop, usize)> = state
            .iter()
            .zip(&groups)
            .filter(|(s, _)| matches!(s, Stop::Barrier { .. }))
            .map(|(s, sg)| (*s, sg.live().count_ones() as usize))
            .collect();
        if !barrier(&waits, items.len(), group_id)? {
            return Ok(());
        }
        for s in state.iter_mut() {
            if *s != Stop::Done {
                *s = Stop::Yield;
            }
        }
    }
}

/// After every work-item ran until it stopped: `waits` are the barriers
/// reached and by how many work-items. `Ok(true)` when all `total` wait at
/// the same one (they go on), `Ok(false)` when none waits (all ended).
fn barrier(waits: &[(Stop, usize)], total: usize, group_id: [u32; 3]) -> Result<bool, GroupError> {
    if waits.is_empty() {
        return Ok(false);
    }
    let waiting: usize = waits.iter().map(|(_, n)| n).sum();
    if waiting != total {
        let ended = total - waiting;
        return Err(GroupError::Barrier(format!(
            "{waiting} of the {total} work-items of group {group_id:?} wait at barrier.workgroup while {ended} have returned (a barrier in divergent control flow)"
        )));
    }
    if waits.iter().any(|(s, _)| *s != waits[0].0) {
        return Err(GroupError::Barrier(format!(
            "the work-items of group {group_id:?} wait at different barrier.workgroup instructions (a barrier in divergent control flow)"
        )));
    }
    Ok(true)
}
