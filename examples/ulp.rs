//! The exhaustive side of the ULP harness (issue 9): one unary f32
//! instruction over a range of f32 encodings (all 2^32 by default) on a
//! Vulkan device, each result measured in ULP against the reference
//! device's float core (`pisa_interp::float`, correctly rounded from f64).
//! CI runs the sampled harness (tests/float_bounds.rs); this takes minutes
//! to hours, so it is run by hand:
//!
//! ```sh
//! cargo run --release --example ulp -- fsin              # every f32 input
//! cargo run --release --example ulp -- flog2 0x3f000000 0x01000000
//! ```
//!
//! Arguments: the instruction (`fsin`, `fcos`, `fexp2`, `flog2`, `ftanh`,
//! `frsqrt`, `fsqrt`, `frcp`), then optionally the first encoding and the
//! count (hex or decimal).

use pisa_interp::float::{unary, FloatMode, FloatTy, UnOp};
use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
use std::time::{Duration, Instant};

/// Inputs per launch.
const CHUNK: u64 = 1 << 22;

fn parse(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).expect("a hex number"),
        None => s.parse().expect("a number"),
    }
}

/// ULPs between two f32 encodings (0 for two NaNs, u64::MAX for a NaN and
/// a number).
fn ulps(a: u32, b: u32) -> u64 {
    let nan = |x: u32| x & 0x7FFF_FFFF > 0x7F80_0000;
    match (nan(a), nan(b)) {
        (true, true) => return 0,
        (false, false) => {}
        _ => return u64::MAX,
    }
    let ordered = |x: u32| -> i64 {
        let m = (x & 0x7FFF_FFFF) as i64;
        if x >> 31 == 1 {
            -m
        } else {
            m
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or("fsin");
    let (op, instr) = match name {
        "fsin" => (UnOp::Sin, "fsin.f"),
        "fcos" => (UnOp::Cos, "fcos.f"),
        "fexp2" => (UnOp::Exp2, "fexp2.f"),
        "flog2" => (UnOp::Log2, "flog2.f"),
        "ftanh" => (UnOp::Tanh, "ftanh.f"),
        "frsqrt" => (UnOp::Rsqrt, "frsqrt.fast.f"),
        "fsqrt" => (UnOp::Sqrt, "fsqrt.f"),
        "frcp" => (UnOp::Rcp, "frcp.f"),
        other => panic!("unknown instruction `{other}`"),
    };
    let first = args.get(1).map_or(0, |s| parse(s));
    let count = args.get(2).map_or(1u64 << 32, |s| parse(s));
    let src = format!(
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .32b %x, %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, 4;\n\tiadd.64b %pi, %pi, %off;\n\tiadd.64b %po, %po, %off;\n\tld.global.32b %x, [%pi];\n\t{instr} %x, %x;\n\tst.global.32b [%po], %x;\n\treturn;\n}}\n"
    );
    let m = pisa_translator::assemble("ulp.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut rt = Runtime::new(RuntimeOptions {
        timeout: Duration::from_secs(600),
        ..Default::default()
    })
    .expect("a Vulkan device");
    let prog = rt.load(&m).expect("the kernel loads");
    let input = rt.alloc_buffer(4 * CHUNK).unwrap();
    let output = rt.alloc_buffer(4 * CHUNK).unwrap();
    let args = vec![
        rt.buffer_address(input).unwrap().to_le_bytes().to_vec(),
        rt.buffer_address(output).unwrap().to_le_bytes().to_vec(),
    ];
    let t0 = Instant::now();
    let (mut worst, mut worst_at, mut off_by_some) = (0u64, 0u32, 0u64);
    let mut done = 0u64;
    while done < count {
        let n = (count - done).min(CHUNK);
        let base = first + done;
        let xs: Vec<u32> = (0..n).map(|i| (base + i) as u32).collect();
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        rt.upload(input, 0, &bytes).unwrap();
        rt.launch(&Launch {
            program: prog,
            kernel: "k".into(),
            range: NdRange::d1(n as u32).local([64, 1, 1]),
            args: args.clone(),
        })
        .expect("launch");
        let out = rt.download(output).unwrap();
        // the reference, on every core
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per = xs.len().div_ceil(threads);
        let results: Vec<(u64, u32, u64)> = std::thread::scope(|s| {
            let handles: Vec<_> = xs
                .chunks(per)
                .zip(out.chunks(per * 4))
                .map(|(xc, oc)| {
                    s.spawn(move || {
                        let mut w = (0u64, 0u32, 0u64);
                        for (x, o) in xc.iter().zip(oc.chunks_exact(4)) {
                            let got = u32::from_le_bytes([o[0], o[1], o[2], o[3]]);
                            let want =
                                unary(op, FloatTy::Single, *x as u64, FloatMode::default()) as u32;
                            let d = ulps(got, want);
                            if d > 0 {
                                w.2 += 1;
                            }
                            if d > w.0 {
                                w = (d, *x, w.2);
                            }
                        }
                        w
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (d, x, k) in results {
            off_by_some += k;
            if d > worst {
                worst = d;
                worst_at = x;
            }
        }
        done += n;
        if done.is_multiple_of(1 << 28) || done == count {
            eprintln!(
                "{instr}: {done} of {count} inputs, max {worst} ULP (at {worst_at:#010x}), {off_by_some} not correctly rounded, {:.0} s",
                t0.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "{instr} on {}: max {worst} ULP over {count} inputs from {first:#x} (at {worst_at:#010x}); {off_by_some} results not correctly rounded",
        rt.device_info().name
    );
}
