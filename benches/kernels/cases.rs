//! The benchmark kernels, shared by `benches/kernels.rs` (PISA against GLSL)
//! and `benches/emulation_cost.rs` (native against each emulation): each
//! kernel's source, problem size, inputs, arguments and CPU reference
//! (`make_case`), and `Side`, one loaded program with its own buffers and
//! launch, on any [`Device`] (a Vulkan runtime or the cpu device).

// each bench uses part of this module
#![allow(dead_code)]

use anyhow::{anyhow, bail, Result};
use pisa_vk_runtime::{BufferId, Device, Launch, NdRange, ProgramId};
use std::time::Instant;

// ---------------------------------------------------------------- cases

/// A buffer both sides get a copy of.
pub struct BufSpec {
    /// Initial contents, uploaded again before every launch (so a kernel
    /// that updates in place, like saxpy, always sees the same input, and an
    /// output that a kernel leaves partly unwritten starts from zeros).
    pub init: Vec<u8>,
    /// Compared between the two sides (and against `expected`).
    pub output: bool,
}

pub enum Arg {
    /// The device address of buffer i.
    Buf(usize),
    Bytes(Vec<u8>),
}

pub struct Case {
    pub name: &'static str,
    /// The PISA source, relative to the repository root.
    pub pisa: &'static str,
    /// Human-readable problem size for the table.
    pub size: String,
    pub range: NdRange,
    pub bufs: Vec<BufSpec>,
    pub args: Vec<Arg>,
    /// CPU reference of each output buffer: (buffer index, the acceptable
    /// contents, each with a label: more than one where the device may
    /// legitimately choose, see `mandelbrot`).
    pub expected: Vec<(usize, Alternatives)>,
}

/// Acceptable contents of a buffer, each with a label (empty: the only one).
pub type Alternatives = Vec<(&'static str, Vec<u8>)>;

/// The one acceptable content of an output buffer.
pub fn exactly(buf: usize, bytes: Vec<u8>) -> (usize, Alternatives) {
    (buf, vec![("", bytes)])
}

pub fn u32a(v: u32) -> Arg {
    Arg::Bytes(v.to_le_bytes().to_vec())
}
pub fn f32a(v: f32) -> Arg {
    Arg::Bytes(v.to_le_bytes().to_vec())
}
pub fn bytes<T: le::Pod>(v: &[T]) -> Vec<u8> {
    le::bytes(v)
}
pub fn input<T: le::Pod>(v: &[T]) -> BufSpec {
    BufSpec {
        init: bytes(v),
        output: false,
    }
}
pub fn output(len_bytes: usize) -> BufSpec {
    BufSpec {
        init: vec![0; len_bytes],
        output: true,
    }
}

/// Little-endian byte views of plain numbers, without a dependency.
pub mod le {
    pub trait Pod: Copy {
        fn le(self, out: &mut Vec<u8>);
    }
    macro_rules! pod {
        ($($t:ty),*) => {$(impl Pod for $t {
            fn le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        })*};
    }
    pod!(u32, i32, f32);
    pub fn bytes<T: Pod>(v: &[T]) -> Vec<u8> {
        let mut out = Vec::with_capacity(v.len() * 4);
        for &x in v {
            x.le(&mut out);
        }
        out
    }
}

/// SplitMix64: deterministic inputs.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    }
    /// An integer in lo..=hi.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi - lo + 1) as u32) as i32
    }
}

pub fn d2(x: u32, y: u32, local: [u32; 3]) -> NdRange {
    NdRange {
        global: [x, y, 1],
        local: Some(local),
        offset: [0; 3],
        dims: 2,
    }
}

pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub const NAMES: [&str; 9] = [
    "saxpy",
    "reduce",
    "prefix_sum",
    "mandelbrot",
    "tree_reduce",
    "branchy",
    "matmul",
    "matmul_tiled",
    "subgroup_sum",
];

pub fn make_case(name: &str, quick: bool) -> Case {
    let mut rng = Rng(0x5EED ^ name.len() as u64);
    match name {
        "saxpy" => {
            let n: usize = if quick { 1 << 18 } else { 1 << 22 };
            let a = 2.0f32;
            let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
            let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
            let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();
            Case {
                name: "saxpy",
                pisa: "shaders/saxpy.pisa",
                size: format!("n = {} f32", thousands(n)),
                range: NdRange::d1(n as u32).local([256, 1, 1]),
                bufs: vec![
                    input(&x),
                    // y is updated in place: an output, re-uploaded before each launch
                    BufSpec {
                        init: bytes(&y),
                        output: true,
                    },
                ],
                args: vec![f32a(a), Arg::Buf(0), Arg::Buf(1), u32a(n as u32)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "reduce" => {
            let n: usize = if quick { 1 << 18 } else { 1 << 21 };
            let v: Vec<u32> = (0..n).map(|_| rng.next()).collect();
            let want: Vec<u32> = v
                .chunks(256)
                .map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x)))
                .collect();
            Case {
                name: "reduce",
                pisa: "shaders/reduce.pisa",
                size: format!("n = {} u32, groups of 256", thousands(n)),
                range: NdRange::d1(n as u32).local([256, 1, 1]),
                bufs: vec![input(&v), output(4 * want.len())],
                args: vec![Arg::Buf(0), Arg::Buf(1), u32a(n as u32)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "prefix_sum" => {
            let n: usize = if quick { 1 << 18 } else { 1 << 21 };
            let v: Vec<i32> = (0..n).map(|_| rng.int(-1000, 1000)).collect();
            let mut want = Vec::with_capacity(n);
            for c in v.chunks(256) {
                let mut s = 0i32;
                for x in c {
                    s = s.wrapping_add(*x);
                    want.push(s);
                }
            }
            Case {
                name: "prefix_sum",
                pisa: "shaders/prefix_sum.pisa",
                size: format!("n = {} i32, groups of 256", thousands(n)),
                range: NdRange::d1(n as u32).local([256, 1, 1]),
                bufs: vec![input(&v), output(4 * n)],
                args: vec![Arg::Buf(0), Arg::Buf(1), u32a(n as u32)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "mandelbrot" => {
            let side: u32 = if quick { 256 } else { 1024 };
            let max_iter = 512u32;
            // the view [-2, 0.5] x [-1.25, 1.25]: dx = 2.5 / side is exact
            let (x0, y0) = (-2.0f32, -1.25f32);
            let d = 2.5f32 / side as f32;
            // Vulkan lets a driver compute fma() (GLSL.std.450 Fma, which
            // both sides use) as a multiply and an add, each rounded: Mesa's
            // llvmpipe does. Both are accepted; the two sides must agree.
            let reference = |fused: bool| {
                let mut want = Vec::with_capacity((side * side) as usize);
                for py in 0..side {
                    for px in 0..side {
                        want.push(mandel_ref(px, py, max_iter, [x0, y0, d, d], fused));
                    }
                }
                want
            };
            let (fused, unfused) = (reference(true), reference(false));
            Case {
                name: "mandelbrot",
                pisa: "benches/kernels/mandelbrot.pisa",
                size: format!("{side}x{side} px, <= {max_iter} iterations"),
                range: d2(side, side, [16, 16, 1]),
                bufs: vec![output(4 * fused.len())],
                args: vec![
                    Arg::Buf(0),
                    u32a(side),
                    u32a(side),
                    u32a(max_iter),
                    f32a(x0),
                    f32a(y0),
                    f32a(d),
                    f32a(d),
                ],
                expected: vec![(
                    0,
                    vec![
                        ("fma() fused", bytes(&fused)),
                        ("fma() as a multiply and an add", bytes(&unfused)),
                    ],
                )],
            }
        }
        "tree_reduce" => {
            let n: usize = if quick { 1 << 18 } else { 1 << 20 };
            let groups = 64usize;
            let stride = 256 * groups;
            let v: Vec<u32> = (0..n).map(|_| rng.next()).collect();
            let mut want = vec![0u32; groups];
            for (i, x) in v.iter().enumerate() {
                let g = (i % stride) / 256;
                want[g] = want[g].wrapping_add(*x);
            }
            Case {
                name: "tree_reduce",
                pisa: "benches/kernels/tree_reduce.pisa",
                size: format!(
                    "n = {} u32, {groups} groups of 256 ({} each)",
                    thousands(n),
                    n / stride
                ),
                range: NdRange::d1(stride as u32).local([256, 1, 1]),
                bufs: vec![input(&v), output(4 * groups)],
                args: vec![Arg::Buf(0), Arg::Buf(1), u32a(n as u32)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "subgroup_sum" => {
            let n: usize = if quick { 1 << 18 } else { 1 << 21 };
            let v: Vec<u32> = (0..n).map(|_| rng.next()).collect();
            let want: Vec<u32> = v
                .chunks(32)
                .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(*x)))
                .collect();
            Case {
                name: "subgroup_sum",
                pisa: "benches/kernels/subgroup_sum.pisa",
                size: format!("n = {} u32, sums of 32, groups of 256", thousands(n)),
                range: NdRange::d1(n as u32).local([256, 1, 1]),
                bufs: vec![input(&v), output(4 * (n / 32))],
                args: vec![Arg::Buf(0), Arg::Buf(1)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "branchy" => {
            let n: usize = if quick { 1 << 20 } else { 1 << 24 };
            // one in 8 is 0; the rest spread over the four other paths
            let v: Vec<u32> = (0..n)
                .map(|_| {
                    let r = rng.next();
                    if r.is_multiple_of(8) {
                        0
                    } else {
                        rng.next()
                    }
                })
                .collect();
            let want: Vec<u32> = v.iter().map(|&v| branchy_ref(v)).collect();
            Case {
                name: "branchy",
                pisa: "benches/kernels/branchy.pisa",
                size: format!("n = {} u32", thousands(n)),
                range: NdRange::d1(n as u32).local([256, 1, 1]),
                bufs: vec![input(&v), output(4 * n)],
                args: vec![Arg::Buf(0), Arg::Buf(1), u32a(n as u32)],
                expected: vec![exactly(1, bytes(&want))],
            }
        }
        "matmul" | "matmul_tiled" => {
            let tiled = name == "matmul_tiled";
            let n: usize = match (quick, tiled) {
                (true, _) => 128,
                (false, false) => 512,
                (false, true) => 256,
            };
            // small integers: every product and partial sum is exact, and
            // both kernels sum in the same order with fma anyway
            let a: Vec<f32> = (0..n * n).map(|_| rng.int(-8, 8) as f32).collect();
            let b: Vec<f32> = (0..n * n).map(|_| rng.int(-8, 8) as f32).collect();
            let mut want = vec![0f32; n * n];
            for r in 0..n {
                for c in 0..n {
                    let mut acc = 0f32;
                    for k in 0..n {
                        acc = a[r * n + k].mul_add(b[k * n + c], acc);
                    }
                    want[r * n + c] = acc;
                }
            }
            Case {
                name: if tiled { "matmul_tiled" } else { "matmul" },
                pisa: if tiled {
                    "benches/kernels/matmul_tiled.pisa"
                } else {
                    "benches/kernels/matmul.pisa"
                },
                size: format!("{n}x{n} f32{}", if tiled { ", 16x16 tiles" } else { "" }),
                range: d2(n as u32, n as u32, [16, 16, 1]),
                bufs: vec![input(&a), input(&b), output(4 * n * n)],
                args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), u32a(n as u32)],
                expected: vec![exactly(2, bytes(&want))],
            }
        }
        _ => unreachable!("unknown kernel {name}"),
    }
}

/// The escape-time loop of mandelbrot.pisa, rounding step for rounding step;
/// `fused`: fmad rounds once, else twice (a multiply, then an add).
pub fn mandel_ref(px: u32, py: u32, max_iter: u32, view: [f32; 4], fused: bool) -> u32 {
    let [x0, y0, dx, dy] = view;
    let fma = |a: f32, b: f32, c: f32| if fused { a.mul_add(b, c) } else { a * b + c };
    let cx = fma(px as f32, dx, x0);
    let cy = fma(py as f32, dy, y0);
    let (mut zx, mut zy) = (0f32, 0f32);
    let mut i = 0;
    while i < max_iter {
        let mag = fma(zx, zx, zy * zy);
        if mag > 4.0 {
            break;
        }
        let t = fma(-zy, zy, fma(zx, zx, cx));
        zy = fma(zx + zx, zy, cy);
        zx = t;
        i += 1;
    }
    i
}

pub fn branchy_ref(v: u32) -> u32 {
    if v == 0 {
        0
    } else if v & 3 == 0 {
        v >> 2
    } else if v & 3 == 1 {
        v.wrapping_mul(3).wrapping_add(1)
    } else if v >> 16 < 0x4000 {
        v ^ 0xA5A5_A5A5
    } else {
        v.wrapping_add(v >> 16)
    }
}

// ---------------------------------------------------------------- running

/// One side of a comparison: a loaded program, its own buffers, its launch.
pub struct Side {
    pub program: ProgramId,
    pub bufs: Vec<BufferId>,
    pub launch: Launch,
}

impl Side {
    pub fn new(rt: &mut dyn Device, program: ProgramId, case: &Case) -> Result<Side> {
        let mut bufs = Vec::new();
        for b in &case.bufs {
            let id = rt.alloc_buffer(b.init.len().max(1) as u64)?;
            rt.upload(id, 0, &b.init)?;
            bufs.push(id);
        }
        let mut args = Vec::new();
        for a in &case.args {
            args.push(match a {
                Arg::Buf(i) => rt.buffer_address(bufs[*i])?.to_le_bytes().to_vec(),
                Arg::Bytes(b) => b.clone(),
            });
        }
        Ok(Side {
            program,
            bufs,
            launch: Launch {
                program,
                kernel: case.name.to_string(),
                range: case.range,
                args,
            },
        })
    }

    /// Resets the buffers, launches, and returns the kernel's time in ns.
    pub fn run(&self, rt: &mut dyn Device, case: &Case, what: &str) -> Result<u64> {
        for (b, spec) in self.bufs.iter().zip(&case.bufs) {
            rt.upload(*b, 0, &spec.init)?;
        }
        let t = Instant::now();
        let timing = rt.launch(&self.launch).map_err(|e| {
            anyhow!(
                "{}: the {what} kernel failed: {e}{}",
                case.name,
                if matches!(e, pisa_vk_runtime::RuntimeError::LoopLimit) {
                    " (lavapipe caps all loops of an invocation at 65,535 iterations: \
                     use a smaller size for this kernel)"
                } else {
                    ""
                }
            )
        })?;
        let wall = t.elapsed();
        Ok(timing.kernel_ns.unwrap_or(wall.as_nanos() as u64))
    }

    pub fn outputs(&self, rt: &dyn Device, case: &Case) -> Result<Vec<(usize, Vec<u8>)>> {
        let mut out = Vec::new();
        for (i, spec) in case.bufs.iter().enumerate() {
            if spec.output {
                let mut bytes = rt.download(self.bufs[i])?;
                bytes.truncate(spec.init.len());
                out.push((i, bytes));
            }
        }
        Ok(out)
    }

    pub fn free(self, rt: &mut dyn Device) {
        for b in self.bufs {
            rt.free_buffer(b);
        }
        rt.unload(self.program);
    }
}

/// Fails loudly, naming the first differing 32-bit word, unless `a == b`.
pub fn same(case: &str, buf: usize, what: (&str, &str), a: &[u8], b: &[u8]) -> Result<()> {
    if a == b {
        return Ok(());
    }
    if a.len() != b.len() {
        bail!(
            "{case}: output buffer {buf} has {} bytes from {} but {} from {}",
            a.len(),
            what.0,
            b.len(),
            what.1
        );
    }
    let words = |s: &[u8]| -> Vec<u32> {
        s.chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            })
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    let diff: Vec<usize> = (0..wa.len()).filter(|&i| wa[i] != wb[i]).collect();
    let i = diff[0];
    bail!(
        "{case}: OUTPUTS DIFFER in buffer {buf}: {} of {} words; first at word {i}: \
         {} 0x{:08x} ({}), {} 0x{:08x} ({}) (as u32 / f32)",
        diff.len(),
        wa.len(),
        what.0,
        wa[i],
        f32::from_bits(wa[i]),
        what.1,
        wb[i],
        f32::from_bits(wb[i]),
    )
}
