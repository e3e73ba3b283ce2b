//! A test case: a program's text, its kernel and launch, and its arguments.

use crate::gen::GenConfig;
use crate::print::{print, ATOM_BYTES, BLOB_BYTES, INPUT_BYTES};
use crate::program::Program;
use crate::rng::Rng;

/// A kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A buffer with these initial bytes; the parameter receives its address.
    Buffer(Vec<u8>),
    /// Parameter bytes verbatim.
    Scalar(Vec<u8>),
}

/// The NDRange of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchShape {
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub dims: u32,
    pub offset: [u32; 3],
}

impl LaunchShape {
    pub fn items(&self) -> u32 {
        self.global.iter().product()
    }
}

/// A program with its launch: what a [`crate::Runner`] runs.
#[derive(Debug, Clone)]
pub struct Case {
    pub source: String,
    pub kernel: String,
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub dims: u32,
    pub offset: [u32; 3],
    pub args: Vec<Arg>,
    /// The structured program `source` was printed from (the reducer edits it).
    pub program: Program,
    /// Seed of the input data.
    pub data_seed: u64,
}

/// Names of the host-accessible globals every generated module has (their
/// final bytes are outputs too).
pub const HOST_GLOBALS: &[&str] = &["gscr", "gatom"];

impl Case {
    /// Prints the program and builds the arguments for the launch:
    /// `out` (each work-item's output slots, zeroed), `in` (random input words
    /// with edge values), `atom` (atomic counters), `n` (u32), `pair` (2 × u32),
    /// `blob` (`BLOB_BYTES` random bytes).
    pub fn new(mut program: Program, l: LaunchShape, data_seed: u64) -> Case {
        program.items = l.items();
        let mut rng = Rng::new(data_seed);
        let mut input = Vec::with_capacity(INPUT_BYTES as usize);
        while input.len() < INPUT_BYTES as usize {
            let w: u32 = match rng.below(8) {
                0 => 0,
                1 => u32::MAX,
                2 => 0x8000_0000,
                3 => 0x7FFF_FFFF,
                4 => rng.below(16) as u32,
                5 => *rng.pick(&[
                    0x7F80_0000,
                    0xFF80_0000,
                    0x7FC0_0000,
                    0x0000_0001,
                    0x8000_0000,
                    0x3F80_0000,
                ]),
                _ => rng.next_u64() as u32,
            };
            input.extend_from_slice(&w.to_le_bytes());
        }
        let n = (rng.below(8) as u32).to_le_bytes().to_vec();
        let pair = rng.next_u64().to_le_bytes().to_vec();
        let blob: Vec<u8> = (0..BLOB_BYTES).map(|_| rng.next_u64() as u8).collect();
        let args = vec![
            Arg::Buffer(vec![0; (l.items() * program.slot_bytes) as usize]),
            Arg::Buffer(input),
            Arg::Buffer(vec![0; ATOM_BYTES as usize]),
            Arg::Scalar(n),
            Arg::Scalar(pair),
            Arg::Scalar(blob),
        ];
        Case {
            source: print(&program),
            kernel: program.kernel().name.clone(),
            global: l.global,
            local: l.local,
            dims: l.dims,
            offset: l.offset,
            args,
            program,
            data_seed,
        }
    }

    pub fn shape(&self) -> LaunchShape {
        LaunchShape {
            global: self.global,
            local: self.local,
            dims: self.dims,
            offset: self.offset,
        }
    }

    /// The same case with an edited program and/or launch (arguments rebuilt).
    pub fn with(&self, program: Program, l: LaunchShape) -> Case {
        Case::new(program, l, self.data_seed)
    }

    /// The `pisa run` command line that runs this case, with the program in
    /// `file` (buffers written inline).
    pub fn command_line(&self, file: &str) -> String {
        let d = self.dims as usize;
        let list = |v: &[u32; 3]| {
            v[..d]
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut s = format!(
            "PISA_VALIDATION=1 pisa run {file} --kernel {} --global {} --local {}",
            self.kernel,
            list(&self.global),
            list(&self.local)
        );
        if self.offset[..d].iter().any(|&o| o != 0) {
            s += &format!(" --offset {}", list(&self.offset));
        }
        for a in &self.args {
            match a {
                Arg::Buffer(b) if b.iter().all(|&x| x == 0) && b.len() % 4 == 0 => {
                    s += &format!(" --arg buf:u32:zeros:{}", b.len() / 4)
                }
                Arg::Buffer(b) => {
                    let words: Vec<String> = b
                        .chunks(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]).to_string())
                        .collect();
                    s += &format!(" --arg buf:u32:{}", words.join(","));
                }
                Arg::Scalar(b) => {
                    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                    s += &format!(" --arg raw:{hex}");
                }
            }
        }
        s += " --json";
        s
    }
}

/// A random NDRange within the configuration's limits.
pub fn random_launch(mut rng: Rng, cfg: &GenConfig) -> LaunchShape {
    let dims = rng.range(1, cfg.max_dims.clamp(1, 3));
    let sizes = [
        1u32, 1, 2, 3, 4, 5, 7, 8, 8, 16, 16, 24, 32, 32, 33, 64, 64, 100, 128, 255, 256,
    ];
    let mut total = *rng.pick(&sizes);
    while total > cfg.max_local.max(1) {
        total = *rng.pick(&sizes);
    }
    // split the work-group size over the dimensions
    let mut local = [1u32; 3];
    let mut rest = total;
    for (i, l) in local.iter_mut().enumerate().take(dims as usize) {
        if i + 1 == dims as usize {
            *l = rest;
        } else {
            let divs: Vec<u32> = (1..=rest).filter(|x| rest.is_multiple_of(*x)).collect();
            *l = *rng.pick(&divs);
            rest /= *l;
        }
    }
    let max_items = cfg.max_items.max(total);
    let mut global = local;
    let room = max_items / global_product(&local).max(1);
    for i in 0..dims as usize {
        let groups = rng.range(1, room.clamp(1, 4));
        let mut g = local[i] * groups;
        if cfg.partial_groups && groups > 1 && rng.chance(0.3) {
            g -= rng.range(1, local[i]).min(local[i] - 1);
        }
        global[i] = g.max(1);
    }
    while global.iter().product::<u32>() > max_items {
        let i = (0..3).max_by_key(|&i| global[i]).unwrap_or(0);
        global[i] = (global[i] / 2).max(1);
    }
    let mut offset = [0u32; 3];
    if cfg.offsets && rng.chance(0.3) {
        for o in offset.iter_mut().take(dims as usize) {
            *o = rng.range(0, 5);
        }
    }
    LaunchShape {
        global,
        local,
        dims,
        offset,
    }
}

fn global_product(l: &[u32; 3]) -> u32 {
    l.iter().product()
}
