//! What the emulated floating-point forms cost (issue 9): each form against
//! the plain form it emulates, both as PISA kernels launched by the same
//! runtime on the default device.
//!
//! Each kernel loads one value per work-item, applies the instruction 32
//! times in a dependent chain and stores the result; 2^20 work-items (2^16
//! with `--quick`). Kernels run interleaved (form, baseline, baseline,
//! form, ...) after a warm-up launch that keeps pipeline creation and the
//! driver's compile out of the numbers; times are GPU timestamps. The
//! table gives the median of the per-round ratios form/baseline.
//!
//! ```text
//! cargo bench --bench float_forms                 # 7 rounds
//! cargo bench --bench float_forms -- --quick      # 3 rounds, 2^16 work-items
//! cargo bench --bench float_forms -- .bf .df      # only forms containing a NAME
//! ```
//!
//! The baselines are what a driver computes natively: `fadd.f`, `fmul.f`
//! (one SPIR-V instruction each), `fadd.hf`, `fadd.df`, `fmul.df`. The
//! transcendentals (the math library, `translator/src/ir/mathlib/`) are
//! measured against `fmul.f` to show their absolute weight.

use anyhow::{Context, Result};
use pisa_vk_runtime::{Launch, NdRange, ProgramId, Runtime, RuntimeOptions};

/// (form, baseline, bits, operands, a value that stays finite under the chain)
const PAIRS: &[(&str, &str, u32, usize, u64)] = &[
    ("fadd.rz.f", "fadd.f", 32, 2, 0x3F80_0000),
    ("fmul.ru.f", "fmul.f", 32, 2, 0x3F80_0000),
    ("fmad.f", "fmul.f", 32, 3, 0x3F80_0000),
    ("fmad.rd.f", "fmad.f", 32, 3, 0x3F80_0000),
    ("fdiv.f", "fmul.f", 32, 2, 0x3F80_0000),
    ("fsqrt.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("fadd.rz.hf", "fadd.hf", 16, 2, 0x3C00),
    ("fadd.rz.df", "fadd.df", 64, 2, 0x3FF0_0000_0000_0000),
    ("fmad.df", "fmul.df", 64, 3, 0x3FF0_0000_0000_0000),
    ("fsin.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("fcos.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("fexp2.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("flog2.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("ftanh.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("frsqrt.fast.f", "fmul.f", 32, 1, 0x3F80_0000),
    ("fsin.hf", "fadd.hf", 16, 1, 0x3C00),
    // the short paths to nearest (ir::exactf32::round16, ir::softf64::f64core)
    // and, as their former cost, the general entry points the same
    // operations take with `.ftz` (bfloat16) or in `.rz` (`.df`)
    ("fadd.bf", "fadd.hf", 16, 2, 0x3F80),
    ("fadd.ftz.bf", "fadd.hf", 16, 2, 0x3F80),
    ("fmul.bf", "fadd.hf", 16, 2, 0x3F80),
    ("fmul.ftz.bf", "fadd.hf", 16, 2, 0x3F80),
    ("fdiv.df", "fmul.df", 64, 2, 0x3FF0_0000_0000_0000),
    ("fdiv.rz.df", "fmul.df", 64, 2, 0x3FF0_0000_0000_0000),
    ("fsqrt.df", "fmul.df", 64, 1, 0x3FF0_0000_0000_0000),
    ("fsqrt.rz.df", "fmul.df", 64, 1, 0x3FF0_0000_0000_0000),
    // the short paths against the general ones directly (new / former cost)
    ("fadd.bf", "fadd.ftz.bf", 16, 2, 0x3F80),
    ("fmul.bf", "fmul.ftz.bf", 16, 2, 0x3F80),
    ("fdiv.df", "fdiv.rz.df", 64, 2, 0x3FF0_0000_0000_0000),
    ("fsqrt.df", "fsqrt.rz.df", 64, 1, 0x3FF0_0000_0000_0000),
];

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

/// `out[i] = form^32(in[i])`, the other operands the loaded value's
/// neighbours in registers (`%b`, `%c`), so nothing folds.
fn kernel(form: &str, bits: u32, operands: usize) -> String {
    let bytes = bits / 8;
    let reg = format!(".{bits}b");
    let mut k = format!(
        ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg {reg} %x, %b, %c;\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %pi, %pi, %off;\n\tiadd.64b %po, %po, %off;\n\tld.global.{bits}b %x, [%pi];\n\tmov.{bits}b %b, %x;\n\tmov.{bits}b %c, %x;\n",
        kernel_name(form)
    );
    let ops = ["%x", "%b", "%c"];
    for _ in 0..32 {
        k.push_str(&format!("\t{form} %x, {};\n", ops[..operands].join(", ")));
    }
    k.push_str(&format!("\tst.global.{bits}b [%po], %x;\n\treturn;\n}}\n"));
    k
}

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    let mut done = std::collections::HashSet::new();
    for &(form, base, bits, n, _) in PAIRS {
        for (f, n) in [(form, n), (base, base_operands(base))] {
            if done.insert(f) {
                src.push_str(&kernel(f, bits, n));
            }
        }
    }
    src
}

fn base_operands(base: &str) -> usize {
    if base.starts_with("fmad") {
        3
    } else if base.starts_with("fsqrt") {
        1
    } else {
        2
    }
}

struct Side {
    launch: Launch,
}

fn side(
    rt: &mut Runtime,
    program: ProgramId,
    form: &str,
    bits: u32,
    value: u64,
    items: u32,
) -> Result<Side> {
    let bytes = (bits / 8) as usize;
    let data: Vec<u8> = (0..items as u64)
        // values near `value`: the low bits vary per work-item
        .flat_map(|i| (value + (i & 0xFF)).to_le_bytes()[..bytes].to_vec())
        .collect();
    let input = rt.buffer_from(&data)?;
    let output = rt.alloc_buffer(data.len() as u64)?;
    let args = vec![
        rt.buffer_address(input)?.to_le_bytes().to_vec(),
        rt.buffer_address(output)?.to_le_bytes().to_vec(),
    ];
    Ok(Side {
        launch: Launch {
            program,
            kernel: kernel_name(form),
            range: NdRange::d1(items).local([256, 1, 1]),
            args,
        },
    })
}

fn time(rt: &mut Runtime, s: &Side) -> Result<u64> {
    let t = std::time::Instant::now();
    let timing = rt
        .launch(&s.launch)
        .with_context(|| format!("kernel {}", s.launch.kernel))?;
    Ok(timing.kernel_ns.unwrap_or(t.elapsed().as_nanos() as u64))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("PISA_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let (rounds, items): (usize, u32) = if quick { (3, 1 << 16) } else { (7, 1 << 20) };
    // NAME arguments: only the forms whose name contains one of them
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let src = program();
    let m =
        pisa_translator::assemble("float_forms.pisa", &src).map_err(|d| anyhow::anyhow!("{d}"))?;
    let mut rt = Runtime::new(RuntimeOptions {
        timeout: std::time::Duration::from_secs(600),
        ..Default::default()
    })?;
    let program = rt.load(&m)?;
    let info = rt.device_info().clone();
    println!(
        "device: {} ({}); {rounds} rounds of 2^{} work-items x 32 dependent instructions; GPU timestamps",
        info.name,
        info.driver,
        items.trailing_zeros()
    );
    println!("| form | baseline | form / baseline (median) |");
    println!("|---|---|---|");
    for &(form, base, bits, _, value) in PAIRS {
        if !filter.is_empty() && !filter.iter().any(|n| form.contains(n.as_str())) {
            continue;
        }
        let f = side(&mut rt, program, form, bits, value, items)?;
        let b = side(&mut rt, program, base, bits, value, items)?;
        // warm-up: pipeline creation and the driver's compile
        time(&mut rt, &f)?;
        time(&mut rt, &b)?;
        let mut ratios = Vec::new();
        for r in 0..rounds {
            let (tf, tb) = if r % 2 == 0 {
                let tf = time(&mut rt, &f)?;
                (tf, time(&mut rt, &b)?)
            } else {
                let tb = time(&mut rt, &b)?;
                (time(&mut rt, &f)?, tb)
            };
            ratios.push(tf as f64 / tb.max(1) as f64);
        }
        println!("| `{form}` | `{base}` | {:.1}x |", median(ratios));
    }
    Ok(())
}
