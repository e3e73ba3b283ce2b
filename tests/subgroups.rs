//! Sub-groups of 32 on the reference device (`pisa-interp`) and on the
//! Vulkan device (emulated where the device has no 32-wide sub-groups, as
//! on lavapipe): `shfl`,
//! `ired`, `fred`, `redfirstidx` and `%activemask` with the spec's
//! pseudo-code (18), lanes in lockstep that reconverge at the immediate
//! post-dominator of a branch (docs/spec-notes.md, "Sub-groups"). Programs
//! are tests/run/subgroup_*.pisa; expected values are derived here, lane by
//! lane, from the pseudo-code, with the launch shapes that make sub-groups of
//! 32, of fewer lanes (work-groups of 40 and 1), and several per work-group.

use pisa_interp::CpuDevice;
use pisa_vk_runtime::values::{self, ArgSpec};
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeError, RuntimeOptions};
use std::path::Path;
use std::time::Duration;

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// Runs `kernel` of a tests/run program on `dev`; returns every buffer
/// argument as 32-bit words.
fn launch_on(
    dev: &mut dyn Device,
    file: &str,
    kernel: &str,
    global: [u32; 3],
    local: [u32; 3],
    args: &[String],
) -> Result<Vec<Vec<u32>>, RuntimeError> {
    let path = format!("tests/run/{file}");
    let src = std::fs::read_to_string(root(&path)).unwrap();
    let m = pisa_translator::assemble(&path, &src).unwrap_or_else(|d| panic!("{d}"));
    let prog = dev.load(&m)?;
    let mut bufs = Vec::new();
    let mut bytes = Vec::new();
    for a in args {
        match values::parse_arg(a).unwrap() {
            ArgSpec::Scalar(b) => bytes.push(b),
            ArgSpec::Buffer(_, b) => {
                let id = dev.alloc_buffer(b.len() as u64).unwrap();
                dev.upload(id, 0, &b).unwrap();
                bytes.push(dev.buffer_address(id).unwrap().to_le_bytes().to_vec());
                bufs.push(id);
            }
        }
    }
    dev.launch(&Launch {
        program: prog,
        kernel: kernel.into(),
        range: NdRange {
            global,
            local: Some(local),
            offset: [0; 3],
            dims: if global[1] > 1 { 2 } else { 1 },
        },
        args: bytes,
    })?;
    Ok(bufs
        .iter()
        .map(|&b| {
            dev.download(b)
                .unwrap()
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
        .collect())
}

/// On the cpu device (what it cannot run is an error there).
fn launch(
    file: &str,
    kernel: &str,
    global: [u32; 3],
    local: [u32; 3],
    args: &[String],
) -> Result<Vec<Vec<u32>>, RuntimeError> {
    let mut dev = CpuDevice::new();
    dev.set_timeout(Duration::from_secs(2));
    launch_on(&mut dev, file, kernel, global, local, args)
}

/// On the cpu device and on the Vulkan device (emulated sub-groups on
/// lavapipe, with the validation layer; every tests/run program passes
/// spirv-val in tests/translate.rs): both must give the same words, which
/// the callers then compare with the spec's.
fn launch_both(
    file: &str,
    kernel: &str,
    global: [u32; 3],
    local: [u32; 3],
    args: &[String],
) -> Vec<Vec<u32>> {
    let what = format!("{file} @{kernel} ({global:?}/{local:?})");
    let cpu = launch(file, kernel, global, local, args)
        .unwrap_or_else(|e| panic!("{what} on the cpu device: {e}"));
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        // llvmpipe compiles at the first dispatch, inside the timeout: the
        // reduction kernels, with dozens of work-group barriers, take
        // seconds on a loaded machine (this bounds a hang; no timing test)
        timeout: Duration::from_secs(120),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    let vk = launch_on(&mut rt, file, kernel, global, local, args)
        .unwrap_or_else(|e| panic!("{what} on {}: {e}", rt.device_info().name));
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "{what}: validation layer: {msgs:#?}");
    for (i, (c, v)) in cpu.iter().zip(&vk).enumerate() {
        if let Some(k) = (0..c.len()).find(|&k| c[k] != v[k]) {
            panic!(
                "{what}: argument {i}, word {k}: cpu {:#x}, {} {:#x}",
                c[k],
                rt.device_info().name,
                v[k]
            );
        }
    }
    cpu
}

/// The error of a one-work-group launch of `items` work-items on the cpu
/// device, with one zeroed buffer of `words` u32s.
fn cpu_error(file: &str, kernel: &str, items: u32, words: u32) -> String {
    launch(
        file,
        kernel,
        [items, 1, 1],
        [items, 1, 1],
        &[format!("buf:u32:zeros:{words}")],
    )
    .expect_err("the launch must fail")
    .to_string()
}

fn run(file: &str, kernel: &str, global: u32, local: u32, args: &[String]) -> Vec<Vec<u32>> {
    launch_both(file, kernel, [global, 1, 1], [local, 1, 1], args)
}

fn list(prefix: &str, v: &[u32]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("{prefix}{}", s.join(","))
}

/// Work-item `g` of 1D work-groups of `local`: its lane, the lanes of its
/// sub-group, and the global id of its lane 0.
fn lane_of(g: u32, local: u32) -> (u32, u32, u32) {
    let lin = g % local;
    let l = lin % 32;
    let n = (local - (lin - l)).min(32);
    (l, n, g - l)
}

fn lanes_mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// (global, local): sub-groups of 32, several per work-group, a partial
/// one (40 = 32 + 8), one lane, and two work-groups with partial sub-groups.
const SHAPES: &[(u32, u32)] = &[(32, 32), (64, 64), (96, 96), (40, 40), (1, 1), (80, 40)];

/// Compares `got` (slots per work-item) with `want(g)`, naming the first
/// differing work-item and slot.
fn check<const K: usize>(what: &str, got: &[u32], items: u32, want: impl Fn(u32) -> [u32; K]) {
    for g in 0..items {
        let w = want(g);
        let at = &got[(g as usize) * K..(g as usize + 1) * K];
        for (k, (a, b)) in at.iter().zip(&w).enumerate() {
            assert_eq!(
                a, b,
                "{what}: work-item {g}, slot {k}: got {a:#x}, expected {b:#x} (all: {at:x?})"
            );
        }
    }
}

/// The spec's prefix-sum example (18 §7.4) on values lane + 1 over `n`
/// lanes: an out-of-bounds `shfl.up` gives a lane its own value, so low
/// lanes count themselves more than once.
fn spec_prefix_sum(n: u32) -> Vec<u32> {
    let value: Vec<u32> = (1..=n).collect();
    let mut sum = value.clone();
    for k in [1, 2, 4, 8, 16] {
        let prev = sum.clone();
        for j in 0..n as usize {
            sum[j] = prev[j] + if j >= k { prev[j - k] } else { prev[j] };
        }
    }
    sum.iter().zip(&value).map(|(s, v)| s - v).collect()
}

#[test]
fn shfl_every_op_with_and_without_sg() {
    for &(global, local) in SHAPES {
        let out = run(
            "subgroup_shfl.pisa",
            "shfl",
            global,
            local,
            &[format!("buf:u32:zeros:{}", 18 * global)],
        );
        check(&format!("shfl {global}/{local}"), &out[0], global, |g| {
            let (l, n, base) = lane_of(g, local);
            let v = |k: u32| (base + k) * 3 + 7;
            let own = v(l);
            // a source lane inside the bounds: it participates when it exists
            let from = |src: u32| if src < n { v(src) } else { own };
            [
                if l >= 1 { from(l - 1) } else { own },
                if l + 3 <= 31 { from(l + 3) } else { own },
                from(l ^ 5),
                from(7),
                from(31 - l),
                // cval 0: the clamp lane is the segment's first, nothing is
                // in bounds for .dn
                own,
                // cval 0b11101: lanes 0-3 of each segment of 8 read lane + 2
                if l & 7 <= 3 { from(l + 2) } else { own },
                if l & 3 >= 1 { from(l - 1) } else { own },
                // clamp (l & 16) | 15: only the upper half's sources are <= it
                if l >= 16 { from(l ^ 17) } else { own },
                from((l & 0x18) | 3),
                if l < 16 { from(l ^ 1) } else { 0xdead },
                // the odd sources do not participate
                if l % 2 == 0 { own } else { 0xdead },
                if l < 31 { from(l + 1) } else { own },
                if l >= 1 { from(l - 1) } else { own },
                spec_prefix_sum(n)[l as usize],
                if l % 2 == 1 { from(l ^ 2) } else { 0xbeef },
                if l == 31 { from(0) } else { own },
                from((l + 1) % 32),
            ]
        });
    }
}

#[test]
fn the_spec_prefix_sum_is_exclusive_for_the_last_lane() {
    // the model above, by hand: lane 31 sums lanes 0-30; lane 0's value 1
    // doubles at each of the 5 steps (32), minus itself; lane 1 is 1 + 2
    // after the first step, then doubles 4 times (48), minus its 2
    let s = spec_prefix_sum(32);
    assert_eq!(s[31], (1..=31).sum::<u32>());
    assert_eq!(s[0], 31);
    assert_eq!(s[1], 46);
}

const IN32: [u32; 4] = [0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 5];

fn in32(l: u32) -> u32 {
    match IN32.get(l as usize) {
        Some(&v) => v,
        None => (l as i32 - 20) as u32,
    }
}

/// The 16-bit inputs: the same values, the extremes at 16 bits.
fn in16(l: u32) -> u32 {
    match l {
        0 => 0x8000,
        1 => 0x7fff,
        _ => in32(l) & 0xffff,
    }
}

/// sum smin smax umin umax and or xor absmax of `v` (as `bits`-bit values).
fn reduce(v: &[u32], bits: u32) -> [u32; 9] {
    let m = if bits == 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    let s = |x: u32| ((x << (32 - bits)) as i32) >> (32 - bits);
    [
        v.iter().fold(0u32, |a, x| a.wrapping_add(*x)) & m,
        v.iter().copied().min_by_key(|x| s(*x)).unwrap() & m,
        v.iter().copied().max_by_key(|x| s(*x)).unwrap() & m,
        v.iter().copied().min().unwrap(),
        v.iter().copied().max().unwrap(),
        v.iter().fold(m, |a, x| a & x),
        v.iter().fold(0, |a, x| a | x),
        v.iter().fold(0, |a, x| a ^ x),
        v.iter().map(|x| s(*x).unsigned_abs() & m).max().unwrap(),
    ]
}

#[test]
fn ired_every_op_on_32_and_16_bits() {
    // hand-computed for a full sub-group: the sum is -1 - 1 + 5 + (4 + ... +
    // 31) - 28 * 20 = -67; |0x80000000| is the largest absolute value
    let all32: Vec<u32> = (0..32).map(in32).collect();
    let r = reduce(&all32, 32);
    assert_eq!(
        [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[8]],
        [
            0xffff_ffbd,
            0x8000_0000,
            0x7fff_ffff,
            0,
            0xffff_ffff,
            0,
            0xffff_ffff,
            0x8000_0000
        ]
    );
    let all16: Vec<u32> = (0..32).map(in16).collect();
    let r = reduce(&all16, 16);
    assert_eq!(
        [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[8]],
        [0xffbd, 0x8000, 0x7fff, 0, 0xffff, 0, 0xffff, 0x8000]
    );
    let in32s: Vec<u32> = (0..32).map(in32).collect();
    let in16s: Vec<u32> = (0..32).map(in16).collect();
    for &(global, local) in SHAPES {
        let out = run(
            "subgroup_reduce.pisa",
            "ired",
            global,
            local,
            &[
                list("buf:u32:", &in32s),
                list("buf:u16:", &in16s),
                format!("buf:u32:zeros:{}", 24 * global),
            ],
        );
        check(&format!("ired {global}/{local}"), &out[2], global, |g| {
            let (l, n, _) = lane_of(g, local);
            let lanes = |f: &dyn Fn(u32) -> bool, bits: u32| -> Vec<u32> {
                (0..n)
                    .filter(|k| f(*k))
                    .map(|k| if bits == 16 { in16(k) } else { in32(k) })
                    .collect()
            };
            let r32 = reduce(&lanes(&|_| true, 32), 32);
            let r16 = reduce(&lanes(&|_| true, 16), 16);
            let mut w = [0u32; 24];
            w[..9].copy_from_slice(&r32);
            w[9..18].copy_from_slice(&r16);
            w[18] = if (8..16).contains(&l) {
                reduce(&lanes(&|k| (8..16).contains(&k), 32), 32)[0]
            } else {
                0xdead
            };
            w[19] = if l < 2 { 0x8000_0000 } else { 0xdead };
            w[20] = if l < 2 { 0x8000 } else { 0xdead };
            w[21] = if l % 2 == 1 {
                reduce(&lanes(&|k| k % 2 == 1, 32), 32)[0]
            } else {
                0xdead
            };
            w
        });
    }
}

/// fred's inputs (bit patterns) by lane.
fn f32_in(l: u32) -> u32 {
    match l {
        3 => 0x7fc0_0001,  // quiet NaN
        7 => 0xff80_0005,  // signalling NaN, negative
        12 => 0x8000_0000, // -0 (lane 10 is +0)
        31 => 0xc2c8_0000, // -100
        _ => ((l as f32 - 10.0) * 0.5).to_bits(),
    }
}

fn hf_in(l: u32) -> u32 {
    match l {
        2 => 0x7e01, // quiet NaN
        5 => 0xfd01, // signalling NaN, negative
        6 => 0x4900, // 10
        9 => 0xca00, // -12
        20 => 0x8000,
        21 => 0x0000,
        _ => 0x3c00, // 1
    }
}

fn bf_in(l: u32) -> u32 {
    match l {
        2 => 0x7fc1,
        5 => 0xff81,
        6 => 0x4120,
        9 => 0xc140,
        20 => 0x8000,
        21 => 0x0000,
        _ => 0x3f80,
    }
}

/// The upper halves of the packed inputs: -1 but for -inf at lane 0 and 5
/// at lane 31.
fn hf_hi(l: u32) -> u32 {
    match l {
        0 => 0xfc00,
        31 => 0x4500,
        _ => 0xbc00,
    }
}

fn bf_hi(l: u32) -> u32 {
    match l {
        0 => 0xff80,
        31 => 0x40a0,
        _ => 0xbf80,
    }
}

#[test]
fn fred_min_max_absmax_nan_rules_and_packed_types() {
    let ins = |f: &dyn Fn(u32) -> u32| -> Vec<u32> { (0..32).map(f).collect() };
    for (global, local) in [(32, 32), (64, 64)] {
        let out = run(
            "subgroup_reduce.pisa",
            "fred",
            global,
            local,
            &[
                list("buf:u32:", &ins(&f32_in)),
                list("buf:u16:", &ins(&hf_in)),
                list("buf:u16:", &ins(&bf_in)),
                list("buf:u32:", &ins(&|l| hf_hi(l) << 16 | hf_in(l))),
                list("buf:u32:", &ins(&|l| bf_hi(l) << 16 | bf_in(l))),
                format!("buf:u32:zeros:{}", 32 * global),
            ],
        );
        let only = |lanes: &[u32], l: u32, v: u32| if lanes.contains(&l) { v } else { 0xdead };
        check(&format!("fred {global}/{local}"), &out[5], global, |g| {
            let l = g % 32;
            [
                0x4120_0000, // max: 10 (NaNs ignored)
                0xc2c8_0000, // min: -100
                0x42c8_0000, // absmax: 100
                0x7fc0_0001, // max.nanp: lane 3's NaN
                // lanes 8-31 (no NaN); the others keep the previous result
                if l >= 8 { 0xc2c8_0000 } else { 0x7fc0_0001 },
                only(&[3, 7], l, 0x7fc0_0001), // all NaN: the first, quiet
                only(&[7], l, 0xffc0_0005),    // one sNaN: quieted
                only(&[7], l, 0x7fc0_0005),    // absmax.nanp: |sNaN|, quiet
                only(&[10, 12], l, 0),         // max(+0, -0) = +0
                only(&[10, 12], l, 0x8000_0000), // min(+0, -0) = -0
                0x7fc0_0001,                   // min.nanp
                0x4900,                        // .hf max: 10
                0xca00,                        // min: -12
                0x4a00,                        // absmax: 12
                0x7e01,                        // max.nanp
                only(&[20, 21], l, 0x8000),    // min(-0, +0)
                only(&[2, 5], l, 0x7e01),      // all NaN
                only(&[5], l, 0xff01),         // one sNaN, quieted
                0x4120,                        // .bf max: 10
                0xc140,                        // min: -12
                0x4140,                        // absmax: 12
                0x7fc1,                        // max.nanp
                only(&[5], l, 0xffc1),         // one sNaN, quieted
                0x4500_4900,                   // .hfx2 max
                0xfc00_ca00,                   // min
                0x7c00_4a00,                   // absmax
                0x4500_7e01,                   // max.nanp: the low half only
                0x40a0_4120,                   // .bfx2
                0xff80_c140,
                0x7f80_4140,
                0x40a0_7fc1,
                // the odd lanes only: 9.5 (lane 29)
                if l % 2 == 1 { 0x4118_0000 } else { 0xbeef },
            ]
        });
    }
}

#[test]
fn redfirstidx_finds_the_first_participating_lane() {
    for (global, local) in [(32, 32), (64, 64), (96, 96)] {
        let out = run(
            "subgroup_reduce.pisa",
            "first",
            global,
            local,
            &[format!("buf:u32:zeros:{}", 4 * global)],
        );
        check(
            &format!("redfirstidx {global}/{local}"),
            &out[0],
            global,
            |g| {
                let l = g % 32;
                [0, 20, if l % 2 == 1 { 1 } else { 0xbeef }, l]
            },
        );
    }
}

#[test]
fn redfirstidx_without_participants_is_undefined_behaviour() {
    // the second sub-group of a group of 40 has lanes 0-7: none of 20-31
    let e = cpu_error("subgroup_reduce.pisa", "first", 40, 160);
    assert!(
        e.contains("`redfirstidx.32b %r, 0xfff00000;`")
            && e.contains("no participating lane")
            && e.contains("undefined behaviour")
            && e.contains("work-item [32, 0, 0]"),
        "{e}"
    );
}

#[test]
fn activemask_follows_divergence_and_reconvergence() {
    let shapes: Vec<([u32; 3], [u32; 3])> = SHAPES
        .iter()
        .map(|&(g, l)| ([g, 1, 1], [l, 1, 1]))
        // sub-groups by linear id: y = 0 and 1, then y = 2 and 3
        .chain([([16, 4, 1], [16, 4, 1])])
        .collect();
    for (global, local) in shapes {
        let items = global[0] * global[1];
        let group = local[0] * local[1];
        let out = launch_both(
            "subgroup_activemask.pisa",
            "mask",
            global,
            local,
            &[format!("buf:u32:zeros:{}", 18 * items)],
        );
        check(
            &format!("%activemask {global:?}/{local:?}"),
            &out[0],
            items,
            |g| {
                let (l, n, _) = lane_of(g, group);
                let full = lanes_mask(n);
                let parity = full & if l % 2 == 1 { 0xaaaa_aaaa } else { 0x5555_5555 };
                let iteration = |i: u32| {
                    let m = [u32::MAX, 0xeeee_eeee, 0xcccc_cccc, 0x8888_8888][i as usize];
                    if i <= l % 4 {
                        full & m
                    } else {
                        0
                    }
                };
                [
                    full,
                    parity,
                    full,
                    iteration(0),
                    iteration(1),
                    iteration(2),
                    iteration(3),
                    full,
                    full,
                    if l < 16 { full & 0xffff } else { 0xbeef },
                    parity,
                    full,
                    if l < 8 { full & 0xff } else { 0xbeef },
                    parity,
                    full,
                    if l < 16 {
                        parity & 0xffff
                    } else {
                        full & 0xffff_0000
                    },
                    if l < 16 { full & 0xffff } else { 0xbeef },
                    if l >= 24 { 0xe } else { full & 0x00ff_ffff },
                ]
            },
        );
    }
}

#[test]
fn subgroups_meet_at_work_group_barriers() {
    for n in [64u32, 96] {
        let out = run(
            "subgroup_barrier.pisa",
            "exchange",
            n,
            n,
            &[format!("buf:u32:zeros:{}", 2 * n)],
        );
        check(&format!("exchange {n}"), &out[0], n, |i| {
            // the squares of the work-items 32 on (mod n) of this sub-group
            let base = i / 32 * 32;
            let s: u32 = (base..base + 32).map(|k| ((k + 32) % n).pow(2)).sum();
            [s, s + 32]
        });
    }
}

#[test]
fn a_barrier_in_divergent_control_flow_is_an_error() {
    let e = cpu_error("subgroup_barrier.pisa", "divergent", 32, 1);
    assert!(
        e.contains("`barrier.workgroup;`")
            && e.contains("lanes 0x0000ffff")
            && e.contains("divergent control flow"),
        "{e}"
    );
}

#[test]
fn a_diverged_endless_loop_times_out() {
    let t = std::time::Instant::now();
    let e = launch(
        "subgroup_barrier.pisa",
        "forever",
        [64, 1, 1],
        [64, 1, 1],
        &["buf:u32:zeros:1".to_string()],
    )
    .unwrap_err();
    assert!(matches!(e, RuntimeError::Timeout(_)), "{e}");
    assert!(t.elapsed() < Duration::from_secs(20));
}

/// Structured reconvergence (docs/spec-notes.md, "Sub-groups") where an
/// immediate-post-dominator rule would group the lanes otherwise: an early
/// `continue`, a jump into a loop, a loop with a `break` and a `return`.
/// The Vulkan emulation once declined these shapes (fuzz seeds 30 and 39
/// gave other `%activemask`s on lavapipe under the post-dominator rule);
/// both devices now run them, and give the values derived here by hand.
#[test]
fn lanes_reconverge_at_the_ends_of_structured_constructs() {
    let lanes = 0..32u32;
    // early_continue: pass k (word l + 32k) is run by the lanes with
    // l % 4 <= k + 1, the others wait at the next iteration
    let out = run_reconverge("early_continue", 96);
    let mut want = vec![0u32; 96];
    for l in lanes.clone() {
        for (k, mask) in [0x3333_3333u32, 0x7777_7777, u32::MAX]
            .into_iter()
            .enumerate()
        {
            if l % 4 <= k as u32 + 1 {
                want[l as usize + 32 * k] = mask;
            }
        }
    }
    assert_eq!(out, want, "early_continue");
    // into_loop: passes through the cycle's dispatcher: the odd lanes reach
    // B in pass 0 and 2, the even ones in pass 1 (each alone)
    let out = run_reconverge("into_loop", 64);
    let mut want = vec![0u32; 64];
    for l in lanes.clone() {
        if l % 2 == 0 {
            want[l as usize] = 0x5555_5555;
        } else {
            want[l as usize] = 0xaaaa_aaaa;
            want[l as usize + 32] = 0xaaaa_aaaa;
        }
    }
    assert_eq!(out, want, "into_loop");
    // break_and_return: lanes 9-11 and 13-15 return from inside the loop;
    // all the others break out of it (in passes 1 to 4) and meet after it
    let out = run_reconverge("break_and_return", 32);
    let returned = 0x0000_ee00u32;
    let want: Vec<u32> = lanes
        .map(|l| if returned >> l & 1 != 0 { 0 } else { !returned })
        .collect();
    assert_eq!(out, want, "break_and_return");
}

fn run_reconverge(kernel: &str, words: usize) -> Vec<u32> {
    launch_both(
        "subgroup_reconverge.pisa",
        kernel,
        [32, 1, 1],
        [32, 1, 1],
        &[format!("buf:u32:zeros:{words}")],
    )
    .remove(0)
}
