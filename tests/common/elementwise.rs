//! Element-wise kernels over arrays of encodings: the launcher the float
//! tests share (tests/rounding_modes.rs, tests/float_bounds.rs).

use pisa_vk_runtime::{Device, Launch, NdRange, ProgramId};

/// The most work-items one launch of [`run`] takes: a debug build of the
/// cpu device runs a library kernel (`fsin` through Payne–Hanek) at a few
/// thousand items a second on a loaded machine, and a launch must end
/// within the runtime's 10 s timeout.
const ITEMS_PER_LAUNCH: usize = 1024;

/// Runs `kernel` (work-item i reads `n` sources of `in_bits` each at
/// in[n·i..] and writes `outs` results of `out_bits` each at out[outs·i..])
/// over `inputs`, in launches of at most [`ITEMS_PER_LAUNCH`] work-items:
/// the results, as u64s. 8-bit sources take a byte each.
pub fn run(
    dev: &mut dyn Device,
    prog: ProgramId,
    kernel: &str,
    (in_bits, n): (u32, usize),
    (out_bits, outs): (u32, usize),
    inputs: &[u64],
) -> Vec<u64> {
    inputs
        .chunks(ITEMS_PER_LAUNCH * n)
        .flat_map(|part| run_once(dev, prog, kernel, (in_bits, n), (out_bits, outs), part))
        .collect()
}

/// [`run`] in one launch.
fn run_once(
    dev: &mut dyn Device,
    prog: ProgramId,
    kernel: &str,
    (in_bits, n): (u32, usize),
    (out_bits, outs): (u32, usize),
    inputs: &[u64],
) -> Vec<u64> {
    let (ib, ob) = ((in_bits.max(8) / 8) as usize, (out_bits / 8) as usize);
    let items = inputs.len() / n;
    let data: Vec<u8> = inputs
        .iter()
        .flat_map(|v| v.to_le_bytes()[..ib].to_vec())
        .collect();
    let a = dev.alloc_buffer(data.len() as u64).unwrap();
    dev.upload(a, 0, &data).unwrap();
    let o = dev.alloc_buffer((items * ob * outs) as u64).unwrap();
    let args = vec![
        dev.buffer_address(a).unwrap().to_le_bytes().to_vec(),
        dev.buffer_address(o).unwrap().to_le_bytes().to_vec(),
    ];
    dev.launch(&Launch {
        program: prog,
        kernel: kernel.into(),
        range: NdRange::d1(items as u32).local([64, 1, 1]),
        args,
    })
    .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let out = dev.download(o).unwrap();
    dev.free_buffer(a);
    dev.free_buffer(o);
    out.chunks(ob)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..ob].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// A xorshift64* stream from `seed`.
pub fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
