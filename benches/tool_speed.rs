//! Speed and peak memory of the tools themselves (issue "One typed instruction, one device
//! contract", item 7): `pisa check` and `pisa spirv` on a generated module of about 1,000,000
//! instructions with a `goto` loop every 16 instructions, each run as a child process of the
//! release binary. Reports instructions per second (end to end: reading, assembling, validating,
//! and for `spirv` building the IR, its passes and the SPIR-V) and peak resident memory per
//! instruction (the child's `ru_maxrss`).
//!
//! `cargo bench --bench tool_speed [-- INSTRUCTIONS [ROUNDS]]` (default 1,000,000 and 3; the
//! median round is reported). The targets of the issue: `check` ≥ 3M instructions/s, `spirv` ≥
//! 1.5M instructions/s and ≤ 400 bytes per instruction.
//!
//! Last measured (README, "Speed of the tools"; 2026-12-05, idle machine, median of 7
//! interleaved rounds of CPU time, `tools/tool-speed-ab.sh`): `check` 0.26 s of CPU (3.85M
//! instructions/s), 162 bytes per instruction; `spirv` 0.57 s of CPU (1.75M instructions/s),
//! 258 bytes per instruction. On the shared 2-core machine the wall time this bench prints
//! follows the load (about twice the CPU time at a load average of 8); compare builds by their
//! CPU time, measured in the same conditions (`tools/tool-speed-ab.sh OLD NEW`, the two
//! binaries interleaved).

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// A kernel of `n` instructions (rounded up to whole groups of 16): each group resets a counter,
/// then runs a loop of 12 arithmetic instructions, the counter's increment, a compare and the
/// `goto.cond` back, three trips a launch.
fn module(n: usize) -> String {
    let groups = n.div_ceil(16);
    let mut s = String::with_capacity(groups * 16 * 28 + 256);
    s.push_str(".version 0.1;\n.target 100;\n\n.kernel @k(.param[8] %out)\n{\n");
    s.push_str("\t.reg .32b %a, %b, %c, %i;\n\t.reg .64b %o;\n\t.pred %p;\n");
    s.push_str(
        "\tld.param.64b %o, [%out];\n\tmov.32b %a, 1;\n\tmov.32b %b, 2;\n\tmov.32b %c, 3;\n",
    );
    for g in 0..groups {
        s.push_str("\tmov.32b %i, 0;\n");
        s.push_str(&format!("L{g}:\n"));
        for k in 0..12 {
            s.push_str(match k % 4 {
                0 => "\tiadd.32b %a, %a, %b;\n",
                1 => "\txor.32b %b, %b, %c;\n",
                2 => "\tshl.32b %c, %a, 3;\n",
                _ => "\tisub.32b %b, %c, %a;\n",
            });
        }
        s.push_str("\tiadd.32b %i, %i, 1;\n");
        s.push_str("\tucmp.lt.32b %p, %i, 3;\n");
        s.push_str(&format!("\tgoto.cond %p, L{g};\n"));
    }
    s.push_str("\tst.global.32b [%o], %a;\n\treturn;\n}\n");
    s
}

/// Runs `pisa ARGS` to completion: its wall time and peak resident memory in bytes.
fn measure(args: &[&str]) -> (Duration, u64) {
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start pisa");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; `status` and `usage` are valid,
    // writable locals that outlive the call.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    let elapsed = start.elapsed();
    let code = std::process::ExitStatus::from_raw(status);
    assert!(code.success(), "`pisa {}` failed: {code}", args.join(" "));
    // reaped by wait4: dropping `child` neither waits nor kills
    drop(child);
    // Linux reports ru_maxrss in KiB
    (elapsed, usage.ru_maxrss as u64 * 1024)
}

fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    // `--write DIR [INSTRUCTIONS]`: only write the module to DIR/big.pisa (for
    // `tools/tool-speed-ab.sh`, which compares two binaries on it)
    let all: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = all.iter().position(|a| a == "--write") {
        let dir = std::path::PathBuf::from(all.get(i + 1).expect("--write DIR"));
        let n = all
            .get(i + 2)
            .and_then(|a| a.parse().ok())
            .unwrap_or(1_000_000);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("big.pisa"), module(n)).unwrap();
        return;
    }
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let dir = std::env::temp_dir().join(format!("pisa-tool-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("big.pisa");
    let text = module(n);
    let instructions = text
        .lines()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t."))
        .count();
    std::fs::write(&src, &text).unwrap();
    let spv = dir.join("big.spv");
    let src_s = src.to_str().unwrap();
    let spv_s = spv.to_str().unwrap();
    println!(
        "tool speed: {instructions} instructions ({} bytes of source), {rounds} rounds, median",
        text.len()
    );
    println!(
        "{:<8} {:>10} {:>16} {:>14} {:>12}",
        "command", "seconds", "instructions/s", "peak RSS MB", "bytes/instr"
    );
    for (name, cmd) in [
        ("check", vec!["check", src_s]),
        ("spirv", vec!["spirv", src_s, "-o", spv_s]),
    ] {
        let runs: Vec<(Duration, u64)> = (0..rounds).map(|_| measure(&cmd)).collect();
        let t = median(runs.iter().map(|r| r.0.as_secs_f64()).collect());
        let rss = median(runs.iter().map(|r| r.1).collect());
        println!(
            "{name:<8} {t:>10.3} {:>16.0} {:>14.1} {:>12.0}",
            instructions as f64 / t,
            rss as f64 / 1e6,
            rss as f64 / instructions as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
