//! The command-line options the kernel benches share (`kernels`, `emulation_cost`).

use anyhow::{anyhow, bail, Context, Result};

pub struct Opts {
    pub quick: bool,
    pub rounds: usize,
    pub filter: Vec<String>,
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The options of bench `bench` (`--quick`, `--rounds N`, names; the same from the
/// environment), `rounds` rounds by default (3 with `--quick`).
pub fn parse_opts(bench: &str, rounds_default: usize) -> Result<Opts> {
    let mut quick = env_flag("PISA_BENCH_QUICK");
    let mut rounds = match std::env::var("PISA_BENCH_ROUNDS") {
        Ok(v) => Some(v.parse().context("PISA_BENCH_ROUNDS must be a number")?),
        Err(_) => None,
    };
    let mut filter: Vec<String> = std::env::var("PISA_BENCH_FILTER")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            // cargo bench passes --bench to harness = false targets
            "--bench" => {}
            "--quick" => quick = true,
            "--rounds" => {
                let v = args
                    .next()
                    .ok_or_else(|| anyhow!("--rounds needs a number"))?;
                rounds = Some(v.parse().context("--rounds needs a number")?);
            }
            "-h" | "--help" => {
                println!(
                    "cargo bench --bench {bench} [-- [--quick] [--rounds N] [NAME...]]\n\
                     NAME: run only kernels whose name contains it. Environment: \
                     PISA_BENCH_QUICK=1, PISA_BENCH_ROUNDS=N, PISA_BENCH_FILTER=a,b"
                );
                std::process::exit(0);
            }
            s if s.starts_with('-') => bail!("unknown option `{s}` (try --help)"),
            s => filter.push(s.to_string()),
        }
    }
    let rounds = rounds.unwrap_or(if quick { 3 } else { rounds_default });
    if rounds == 0 {
        bail!("at least one round is needed");
    }
    Ok(Opts {
        quick,
        rounds,
        filter,
    })
}
