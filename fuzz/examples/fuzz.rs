//! Differential fuzzing from the command line:
//! `cargo run --release -p pisa-fuzz --example fuzz -- --seed S --count N
//!  [--device vulkan] [--against NAME] [--set flag=value]... [--reduce] [--out DIR] [--show-skips]
//!  [--progress N] [--tier large] [--profile FILE]`
//! With one device every program runs twice on it (errors, validation
//! messages and nondeterminism are findings); `--against NAME` names a second
//! device (see `device_by_name`). Findings are reduced (with `--reduce`) and
//! written under `--out` (default /tmp/fuzz-finds/). `--progress N` prints a
//! line to stderr every N programs (count, time, rate, findings), so that a
//! long campaign can be followed and, if stopped, recorded
//! (docs/fuzzing.md). The `-linked` devices run each program split into two
//! modules and linked (`fuzz/src/split.rs`); their findings also get the two
//! modules and a `pisa run main.pisa lib.pisa` command line. `--tier large`
//! generates only large programs (`GenConfig::large`, the large-graph tier).
//! `--profile FILE` restricts the `vulkan` device to a device report (Vulkan
//! Profiles JSON, as `pisa run --profile`): under a report without
//! `shaderFloat64` the numerics go through the exactf32, softf64 and f32
//! math-library passes; a program that device cannot run is a skip.

use pisa_fuzz::{
    check, check_alone, generate, reduce, write_reproducer, write_split, ApiDevice, Build,
    GenConfig, Runner, VulkanDevice,
};
use std::path::PathBuf;

/// The devices this binary knows by name; a new device is one more arm.
/// `profile` restricts the `vulkan` device (`--profile`).
fn device_by_name(
    name: &str,
    profile: Option<&pisa_device::DeviceDescription>,
) -> Result<Box<dyn Runner>, String> {
    if let Some(p) = profile {
        return match name {
            "vulkan" => Ok(Box::new(VulkanDevice::with_profile(p.clone())?)),
            "cpu" => device_by_name(name, None),
            _ => Err(format!(
                "--profile applies to `vulkan` and `cpu` only, not `{name}`"
            )),
        };
    }
    match name {
        "vulkan" => Ok(Box::new(VulkanDevice::new()?)),
        "vulkan-checked" => Ok(Box::new(VulkanDevice::checked()?)),
        "vulkan-linked" => Ok(Box::new(VulkanDevice::linked()?)),
        "cpu" => Ok(Box::new(ApiDevice::new(
            "cpu",
            pisa_fuzz::device::cpu_device(),
        ))),
        "cpu-linked" => Ok(Box::new(ApiDevice::with_build(
            "cpu",
            pisa_fuzz::device::cpu_device(),
            Build::Linked,
        ))),
        _ => Err(format!(
            "unknown device `{name}` (known: vulkan, vulkan-checked, vulkan-linked, cpu, cpu-linked)"
        )),
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    std::env::set_var(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or("/tmp".into()),
    );
    let mut seed = 0u64;
    let mut count = 100u64;
    let mut dev_a = "vulkan".to_string();
    let mut dev_b: Option<String> = None;
    let mut cfg = GenConfig::default();
    let mut do_reduce = false;
    // write every case before running it (a driver crash kills this process)
    let mut dump = false;
    let mut show_skips = false;
    let mut progress = 0u64;
    let mut out = PathBuf::from("/tmp/fuzz-finds");
    let mut profile = None;
    let mut profile_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--seed" => seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--count" => count = val()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--device" => dev_a = val()?,
            "--against" => dev_b = Some(val()?),
            "--set" => cfg.set(&val()?)?,
            // the large-graph tier: every program large (docs/fuzzing.md)
            "--tier" => match val()?.as_str() {
                "large" => cfg.large = 1000,
                "default" => cfg.large = GenConfig::default().large,
                t => return Err(format!("unknown tier `{t}` (known: default, large)")),
            },
            "--reduce" => do_reduce = true,
            "--dump" => dump = true,
            "--show-skips" => show_skips = true,
            "--progress" => progress = val()?.parse().map_err(|e| format!("--progress: {e}"))?,
            "--out" => out = PathBuf::from(val()?),
            "--profile" => {
                let file = val()?;
                let d = pisa_device::DeviceDescription::from_profile_file(&file)
                    .map_err(|e| format!("--profile {file}: {e}"))?;
                profile = Some(d);
                profile_file = Some(file);
            }
            _ => return Err(format!("unknown argument `{a}`")),
        }
    }
    let linked =
        dev_a.ends_with("-linked") || dev_b.as_deref().is_some_and(|b| b.ends_with("-linked"));
    let mut a = device_by_name(&dev_a, profile.as_ref())?;
    let mut b = dev_b
        .as_deref()
        .map(|n| device_by_name(n, profile.as_ref()))
        .transpose()?;
    eprintln!(
        "fuzzing seeds {seed}..{} on {}{}",
        seed + count,
        a.name(),
        b.as_ref()
            .map(|b| format!(" against {}", b.name()))
            .unwrap_or_default()
    );
    let start = std::time::Instant::now();
    let mut findings = 0;
    let mut skipped = 0;
    for s in seed..seed + count {
        let done = s - seed;
        if progress > 0 && done > 0 && done.is_multiple_of(progress) {
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "{done} programs (seeds {seed}..{s}) in {secs:.0} s: {:.2} programs/s, {findings} findings, {skipped} skipped",
                done as f64 / secs
            );
        }
        let case = generate(s, &cfg);
        if dump {
            let dir = out.join("current");
            write_reproducer(&case, &dir, &format!("seed {s}")).map_err(|e| e.to_string())?;
        }
        let verdict = match b.as_mut() {
            Some(b) => check(&case, a.as_mut(), b.as_mut()),
            None => check_alone(&case, a.as_mut()),
        };
        if let pisa_fuzz::Verdict::Skipped { .. } = verdict {
            skipped += 1;
            if show_skips {
                println!("seed {s}: {verdict}");
            }
        }
        if !verdict.is_finding() {
            continue;
        }
        findings += 1;
        println!("seed {s}: {verdict}");
        let kind = std::mem::discriminant(&verdict);
        let small = if do_reduce {
            let mut still = |c: &pisa_fuzz::Case| {
                let v = match b.as_mut() {
                    Some(b) => check(c, a.as_mut(), b.as_mut()),
                    None => check_alone(c, a.as_mut()),
                };
                std::mem::discriminant(&v) == kind
            };
            reduce(&case, &mut still, 2000)
        } else {
            case
        };
        let dir = out.join(format!("seed-{s}"));
        let mut cmd = write_reproducer(&small, &dir, &format!("seed {s}: {verdict}"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Some(file) = &profile_file {
            // the device the finding needs (`pisa run --profile`)
            cmd += &format!(" --profile {file}");
            std::fs::write(dir.join("command.txt"), format!("{cmd}\n"))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        println!("  reproducer: {}\n  {cmd}", dir.display());
        if linked {
            let cmd = write_split(&small, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            println!("  linked: {cmd}");
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{count} programs in {secs:.1} s: {:.2} programs/s, {findings} findings, {skipped} skipped (declined by a device)",
        count as f64 / secs
    );
    Ok(())
}
