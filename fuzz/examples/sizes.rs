//! The size distribution of generated programs:
//! `cargo run --release -p pisa-fuzz --example sizes -- --seed S --count N
//!  [--set flag=value]... [--tier large]`
//! prints, per program that is large or has at least 100 blocks, the seed,
//! the labels of its kernel's source (blocks the generator wrote), the
//! kernel's IR blocks after `ir::build` (the nesting cap's dispatch loops
//! included), the nesting depth the generator wrote, and whether
//! `ir::shallow` lowered part of the kernel to a dispatch loop; then
//! quantiles over all programs.

use pisa_fuzz::{generate, program::nesting_depth, GenConfig};

fn main() {
    let mut seed = 0u64;
    let mut count = 100u64;
    let mut cfg = GenConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_default();
        match a.as_str() {
            "--seed" => seed = v.parse().expect("--seed"),
            "--count" => count = v.parse().expect("--count"),
            "--set" => cfg.set(&v).expect("--set"),
            "--tier" => cfg.large = if v == "large" { 1000 } else { cfg.large },
            _ => panic!("unknown argument `{a}`"),
        }
    }
    let mut rows = Vec::new();
    for s in seed..seed + count {
        let case = generate(s, &cfg);
        let m = pisa_translator::assemble("case.pisa", &case.source).expect("assembles");
        let p = pisa_translator::ir::build(&m);
        let k = p.functions.last().expect("a kernel");
        let ir_blocks = k.blocks.len();
        let lowered = k.regs.iter().any(|r| r.name.starts_with("$nest"));
        let text = case.source.rsplit(".kernel").next().unwrap_or_default();
        let labels = text.lines().filter(|l| l.ends_with(':')).count();
        let depth = nesting_depth(&case.program.kernel().body);
        if labels >= 100 || depth >= 20 {
            println!(
                "seed {s}: {labels} labels, {ir_blocks} IR blocks, depth {depth}{}, {} lines",
                if lowered { ", dispatch loop" } else { "" },
                case.source.lines().count()
            );
        }
        rows.push((labels, ir_blocks, depth));
    }
    let q = |mut v: Vec<usize>| {
        v.sort();
        let at = |f: f64| v[((v.len() - 1) as f64 * f) as usize];
        format!(
            "min {} median {} p95 {} max {}",
            at(0.0),
            at(0.5),
            at(0.95),
            at(1.0)
        )
    };
    println!("labels:    {}", q(rows.iter().map(|r| r.0).collect()));
    println!("IR blocks: {}", q(rows.iter().map(|r| r.1).collect()));
    println!(
        "depth:     {}",
        q(rows.iter().map(|r| r.2 as usize).collect())
    );
}
