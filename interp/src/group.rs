//! Work-groups: every work-item of a group is a cooperative thread of the
//! interpreter. Each runs until it reaches `barrier.workgroup` or ends; when
//! every work-item still running waits at the same barrier, all go on. So
//! barriers order shared-memory accesses exactly as on a GPU, and the
//! outcome does not depend on the order work-items are run in (for programs
//! without data races).
//!
//! A barrier that some work-items reach while others have ended, or that
//! work-items reach at different places, is undefined in PISA and Vulkan
//! (a GPU may hang): here it is an error.

use crate::decode::Decoded;
use crate::exec::{Exec, Item, NdInfo, Stop, Trap};
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
        };
        let mut state: Vec<Stop> = vec![Stop::Yield; items.len()];
        loop {
            for (item, st) in items.iter_mut().zip(state.iter_mut()) {
                if *st == Stop::Done {
                    continue;
                }
                loop {
                    match exec.run(item, SLICE) {
                        Ok(Stop::Yield) => {
                            if Instant::now() > self.deadline {
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
            let waiting: Vec<(usize, Stop)> = state
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, Stop::Barrier { .. }))
                .map(|(i, s)| (i, *s))
                .collect();
            if waiting.is_empty() {
                break;
            }
            if waiting.len() != items.len() {
                let ended = items.len() - waiting.len();
                return Err(GroupError::Barrier(format!(
                    "{} of the {} work-items of group {group_id:?} wait at barrier.workgroup while {ended} have returned (a barrier in divergent control flow)",
                    waiting.len(),
                    items.len()
                )));
            }
            if waiting.iter().any(|(_, s)| *s != waiting[0].1) {
                return Err(GroupError::Barrier(format!(
                    "the work-items of group {group_id:?} wait at different barrier.workgroup instructions (a barrier in divergent control flow)"
                )));
            }
            for s in state.iter_mut() {
                *s = Stop::Yield;
            }
        }
        Ok(items.iter().map(|i| i.steps).sum())
    }
}
