//! The cpu device against hostile input (issue "Hostile input, round two"):
//! allocations the host cannot make are the device's out-of-memory error
//! (item 11), the launch deadline holds for every kernel shape (item 16),
//! and printf format strings print whole however long (item 9, on both
//! devices). Each case runs `pisa run` as a child process, as a user would.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// Writes `src` to a file of this test binary's scratch folder.
fn program(name: &str, src: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile_cpu_{name}.pisa"));
    std::fs::write(&path, src).unwrap();
    path
}

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    c
}

/// `pisa ARGS` with its address space limited to `limit` bytes.
fn run_limited(limit: u64, args: &[&str]) -> Output {
    let mut c = pisa();
    c.args(args);
    // SAFETY: the closure runs in the child between fork and exec and only
    // calls setrlimit, an async-signal-safe system call, on a stack value;
    // it touches no lock and allocates nothing.
    unsafe {
        c.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit as libc::rlim_t,
                rlim_max: limit as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const EMPTY: &str = ".version 0.1;\n.target 100;\n.kernel @k() { return; }\n";

/// Item 11: every allocation whose size a user chooses (a buffer, the copy
/// of a buffer read back, a module's data block, a work-item's `.private`
/// memory, the printf buffer) fails with "out of device memory", exit 2,
/// under an address-space limit; before, the process aborted (SIGABRT).
/// The limits leave room for `pisa run` itself (about 150 MB) and the
/// 1 GB argument it builds before the device allocates.
#[test]
fn allocations_the_host_cannot_make_are_out_of_device_memory() {
    let vadd = root("tests/run/vadd.pisa");
    let printf = root("tests/run/printf.pisa");
    let big_global = program(
        "big_global",
        ".version 0.1;\n.target 100;\n.global .align 4 @g[3000000000];\n.kernel @k() { return; }\n",
    );
    let big_private = program(
        "big_private",
        ".version 0.1;\n.target 100;\n.kernel @k() {\n\t.private .align 4 @p[3000000000];\n\t.reg .32b %a;\n\taddrof.32b %a, @p;\n\treturn;\n}\n",
    );
    let empty = program("empty", EMPTY);
    let buffer_args = [
        "--kernel",
        "vadd",
        "--global",
        "1",
        "--device",
        "cpu",
        "--arg",
        "buf:u8:zeros:1000000000",
        "--arg",
        "buf:u32:1",
        "--arg",
        "buf:u32:0",
        "--arg",
        "u32:1",
    ];
    let one = ["--kernel", "k", "--global", "1", "--device", "cpu"];
    let cases: Vec<(u64, Vec<&str>, &str)> = vec![
        (
            1_600_000_000,
            [&["run", vadd.as_str()][..], &buffer_args].concat(),
            "out of device memory (a buffer of 1000000000 bytes)",
        ),
        (
            2_600_000_000,
            [&["run", vadd.as_str()][..], &buffer_args].concat(),
            "out of device memory (a copy of a buffer of 1000000000 bytes)",
        ),
        (
            1_600_000_000,
            [&["run", big_global.to_str().unwrap()][..], &one].concat(),
            "out of device memory (the module's data block of 3000000000 bytes)",
        ),
        (
            1_600_000_000,
            [&["run", big_private.to_str().unwrap()][..], &one].concat(),
            // refused at load by the ABI's per-work-item limit before any allocation
            "the program's `.private` variables need 3000000000 bytes per work-item; the limit is 65536 bytes",
        ),
        (
            1_600_000_000,
            [
                &["run", printf.as_str()][..],
                &["--kernel", "hello", "--global", "1", "--device", "cpu"],
                &["--arg", "buf:f32:1", "--arg", "u32:1"],
                &["--printf-buffer", "3000000000"],
            ]
            .concat(),
            "out of device memory (a printf buffer of 3000000000 bytes)",
        ),
        // the limit leaves `pisa run` room for a small program
        (
            1_600_000_000,
            [&["run", empty.to_str().unwrap()][..], &one].concat(),
            "",
        ),
    ];
    for (limit, args, want) in cases {
        let out = run_limited(limit, &args);
        let stderr = text(&out.stderr);
        if want.is_empty() {
            assert!(out.status.success(), "{args:?}: {out:?}");
            continue;
        }
        // a limit of the ABI is a refusal (3); an allocation that fails is
        // out of device memory (2)
        let want_code = if want.contains("the limit is") { 3 } else { 2 };
        assert_eq!(out.status.code(), Some(want_code), "{args:?}: {out:?}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

/// Runs `pisa run FILE --kernel k --device cpu --timeout 1 EXTRA` and
/// checks that it fails with the timeout error within a few seconds.
fn times_out(file: &Path, extra: &[&str]) {
    let t0 = Instant::now();
    let mut child = pisa()
        .args(["run", file.to_str().unwrap(), "--kernel", "k"])
        .args(["--device", "cpu", "--timeout", "1"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // a launch that ignores its deadline is stopped here, not waited for
    while child.try_wait().unwrap().is_none() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = t0.elapsed();
    if child.try_wait().unwrap().is_none() {
        child.kill().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{extra:?}: {out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the kernel did not finish within 1s"),
        "{extra:?}: {stderr}"
    );
    assert!(took < Duration::from_secs(8), "{extra:?}: took {took:?}");
}

/// Item 16: the deadline holds when work-items loop through
/// `barrier.workgroup` (one work-item, a work-group of them, sub-groups in
/// lockstep) and across many short work-items and work-groups (10^9 empty
/// work-items; 4096 x 8192 x 129 work-groups, past 2^32). Before, the
/// deadline was checked only when one work-item ran 2^20 instructions
/// without stopping, so these ran until killed or for minutes.
#[test]
fn the_timeout_holds_for_every_kernel_shape() {
    let barrier = program(
        "barrier_loop",
        ".version 0.1;\n.target 100;\n.kernel @k() {\nspin:\n\tbarrier.workgroup;\n\tgoto spin;\n}\n",
    );
    // %activemask makes the module run its sub-groups in lockstep
    let lockstep = program(
        "lockstep_barrier_loop",
        ".version 0.1;\n.target 100;\n.kernel @k() {\n\t.reg .32b %m;\nspin:\n\tmov.32b %m, %activemask;\n\tbarrier.workgroup;\n\tgoto spin;\n}\n",
    );
    let empty = program("empty", EMPTY);
    times_out(&barrier, &["--global", "1", "--local", "1"]);
    times_out(&barrier, &["--global", "64", "--local", "64"]);
    times_out(&lockstep, &["--global", "1", "--local", "1"]);
    times_out(&lockstep, &["--global", "64", "--local", "64"]);
    times_out(&empty, &["--global", "1000000000"]);
    times_out(&empty, &["--global", "1000000000", "--local", "1"]);
    times_out(&empty, &["--global", "4096,8192,129", "--local", "1,1,1"]);
}

/// A kernel printing one record: a format string of 20 KiB of text ending
/// in `%d|\n`, with its argument.
fn long_format_program() -> (PathBuf, String) {
    let text: String = (0..20 * 1024)
        .map(|i| b"0123456789abcdef"[i % 16] as char)
        .collect();
    let fmt: Vec<u8> = format!("{text}%d|\n\0").into_bytes();
    let init: Vec<String> = fmt.iter().map(|b| format!(".8b {b:#04x}")).collect();
    let src = format!(
        ".version 0.1;\n.target 100;\n\
         .const .align 1 @fmt[{}] = {{ {} }};\n\
         .kernel @k(.param[4] %v)\n{{\n\
         \t.reg .64b %pb, %w, %off64, %a, %h;\n\
         \t.reg .32b %x, %off, %bytes, %tag, %lo, %hi;\n\
         \tld.param.32b %x, [%v];\n\
         \tmov.64b %pb, %printfbuffer;\n\
         \tmov.32b %bytes, 16;\n\
         \tiatom.global.add.32b %off, [%pb], %bytes;\n\
         \tzext.64b.32b %off64, %off;\n\
         \tiadd.64b %w, %pb, %off64;\n\
         \taddrof.64b %a, @fmt;\n\
         \ttrunc.32b.64b %lo, %a;\n\
         \tshr.64b %h, %a, 32;\n\
         \ttrunc.32b.64b %hi, %h;\n\
         \tst.global.32b [%w], %lo;\n\
         \tst.global.32b [%w + 4], %hi;\n\
         \tmov.32b %tag, 3;\n\
         \tst.global.32b [%w + 8], %tag;\n\
         \tst.global.32b [%w + 12], %x;\n\
         \treturn;\n}}\n",
        fmt.len(),
        init.join(", ")
    );
    (program("long_format", &src), format!("{text}-42|\n"))
}

/// Item 9: a 20 KiB format string prints whole with its conversion, on the
/// cpu device and on the Vulkan device (lavapipe). Before, the string was
/// cut at 16 KiB: its `%d` was lost and its argument read as the next
/// record (an error after the cut text).
#[test]
fn a_20_kib_format_string_prints_whole_on_both_devices() {
    let (file, want) = long_format_program();
    for device in ["cpu", "0"] {
        let out = pisa()
            .args(["run", file.to_str().unwrap(), "--kernel", "k"])
            .args(["--global", "1", "--device", device, "--arg", "i32:-42"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{device}: {out:?}");
        let stdout = text(&out.stdout);
        let (printed, rest) = stdout.split_at(want.len().min(stdout.len()));
        // (20 KiB strings: the lengths and the end, not the whole text)
        let end = |s: &str| s.chars().rev().take(40).collect::<String>();
        assert!(
            printed == want,
            "{device}: {} bytes on stdout, {} expected, ending (reversed) {:?}",
            stdout.len(),
            want.len(),
            end(printed)
        );
        assert!(rest.starts_with("ran @k on "), "{device}: {rest}");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("printf"), "{device}: {stderr}");
    }
}
