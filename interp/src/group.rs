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

use crate::decode::Decoded;
use crate::exec::{Exec, Item, LaneTrap, NdInfo, Stop, SubGroup, Trap};
use crate::memory::DeviceMemory;
use std::time::Instant;

/// How many instructions a work-item runs before the deadline is checked.
const SLICE: u64 = 1 << 20;

#[derive(Debug)]
pub enum GroupError {
    Trap { trap: Trap, local: [u32; 3] },
    Barrier(String),
    Timeout,
}

pub struct GroupRun<'a> {
    pub prog: &'a Decoded,
    pub kernel: u32,
    pub mem: &'a mut DeviceMemory,
    pub args: &'a [u8],
    pub nd: &'a NdInfo,
    pub shared_bytes: usize,
    pub private_bytes: usize,
    pub deadline: Instant,
}

impl GroupRun<'_> {
    /// Runs one work-group; returns the instructions executed.
    pub fn run(&mut self, group_id: [u32; 3], size: [u32; 3]) -> Result<u64, GroupError> {
        let frame = self.prog.functions[self.kernel as usize].frame_bytes;
        let mut items: Vec<Item> = Vec::with_capacity((size[0] * size[1] * size[2]) as usize);
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    items.push(Item::new([x, y, z], self.kernel, frame, self.private_bytes));
                }
            }
        }
        // uninitialized in PISA (02 §2.1.3); zeros here, for repeatability
        let mut shared = vec![0u8; self.shared_bytes.div_ceil(4) * 4];
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
        let deadline = self.deadline;
        if self.prog.subgroups {
            run_subgroups(&mut exec, &mut items, group_id, deadline)?;
        } else {
            run_items(&mut exec, &mut items, group_id, deadline)?;
        }
        Ok(items.iter().map(|i| i.steps).sum())
    }
}

/// One work-item at a time, each until a barrier or its end.
fn run_items(
    exec: &mut Exec,
    items: &mut [Item],
    group_id: [u32; 3],
    deadline: Instant,
) -> Result<(), GroupError> {
    let mut state: Vec<Stop> = vec![Stop::Yield; items.len()];
    loop {
        for (item, st) in items.iter_mut().zip(state.iter_mut()) {
            if *st == Stop::Done {
                continue;
            }
            loop {
                match exec.run(item, SLICE) {
                    Ok(Stop::Yield) => {
                        if Instant::now() > deadline {
                            return Err(GroupError::Timeout);
                        }
                    }
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
    deadline: Instant,
) -> Result<(), GroupError> {
    let mut groups: Vec<SubGroup> = items.chunks(32).map(|c| SubGroup::new(c.len())).collect();
    let mut state: Vec<Stop> = vec![Stop::Yield; groups.len()];
    loop {
        for ((lanes, sg), st) in items.chunks_mut(32).zip(&mut groups).zip(&mut state) {
            if *st == Stop::Done {
                continue;
            }
            loop {
                match exec.run_subgroup(lanes, sg, SLICE) {
                    Ok(Stop::Yield) => {
                        if Instant::now() > deadline {
                            return Err(GroupError::Timeout);
                        }
                    }
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
