//! The hostile-input suite for the `pisa` command line: inputs and
//! surroundings made to break it (`.npy` files whose header lies, a full
//! standard output, a FIFO as the pipeline cache, negative values, a kernel
//! that crashes the driver). Each must end in a clear error or the right
//! result, never a hang, a panic or a silently wrong run.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.env("XDG_RUNTIME_DIR", "/tmp");
    c
}

/// A folder of this test process's own.
fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pisa-hostile-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Runs the command, killing it after `limit` (a hang fails the test
/// instead of blocking the suite).
fn output_within(mut c: Command, limit: Duration) -> Output {
    let mut child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A `.npy` file (version 1.0) with this header dictionary and data, the
/// header padded as numpy pads it.
fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `saxpy` on the cpu device with x from a file.
fn saxpy_with_x(x: &std::path::Path) -> Output {
    let mut c = pisa();
    c.args([
        "run",
        "shaders/saxpy.pisa",
        "--device",
        "cpu",
        "--kernel",
        "saxpy",
        "--global",
        "4",
        "--arg",
        "f32:2",
        "--arg",
    ])
    .arg(format!("buf:f32:@{}", x.display()))
    .args(["--arg", "buf:f32:zeros:4", "--arg", "u32:0"]);
    output_within(c, Duration::from_secs(60))
}

/// Item 8: a `.npy` file whose data is not what its header says (cut short,
/// header only, more data than the shape) is refused, naming the file, the
/// header's shape and the bytes there are, instead of loading as a shorter
/// (or longer) buffer with exit status 0.
#[test]
fn npy_data_must_match_the_header() {
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
    let good = npy(dict, &f32_bytes(&[1.0, 2.0, 3.0, 4.0]));
    let ok = write("good.npy", &good);
    let out = saxpy_with_x(&ok);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let cases: [(&str, Vec<u8>, u64); 4] = [
        ("cut.npy", good[..good.len() - 3].to_vec(), 13),
        ("header-only.npy", good[..good.len() - 16].to_vec(), 0),
        ("long.npy", [&good[..], &[0u8; 8]].concat(), 24),
        (
            "big-shape.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                &f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            16,
        ),
    ];
    for (name, bytes, have) in cases {
        let p = write(name, &bytes);
        let out = saxpy_with_x(&p);
        let (shape, want) = if name == "big-shape.npy" {
            ("2, 3", 24)
        } else {
            ("4,", 16)
        };
        assert_eq!(
            stderr(&out),
            format!(
                "error: --arg 1 `buf:f32:@{p}`: {p}: the .npy header says shape ({shape}) of f32, {want} bytes of data, but the file holds {have} bytes after its header\n",
                p = p.display()
            ),
            "{name}"
        );
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
    }
    // a header whose length field runs past the end of the file
    let mut short = good[..40].to_vec();
    short[8] = 0xff;
    let p = write("short-header.npy", &short);
    let out = saxpy_with_x(&p);
    assert_eq!(
        stderr(&out),
        format!(
            "error: --arg 1 `buf:f32:@{p}`: {p}: the .npy header says it is 255 bytes long, but the file ends 30 bytes after its start\n",
            p = p.display()
        )
    );
    assert_eq!(out.status.code(), Some(2));
}

/// Item 13: every command that prints to standard output reports a write
/// error (here a full device) with exit status 2 instead of panicking
/// ("failed printing to stdout").
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let ok = write(
        "full.npy",
        &npy(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
            &f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
        ),
    );
    let x = format!("buf:f32:@{}", ok.display());
    let run = [
        "run",
        "shaders/saxpy.pisa",
        "--device",
        "cpu",
        "--kernel",
        "saxpy",
        "--global",
        "4",
        "--arg",
        "f32:2",
        "--arg",
        &x,
        "--arg",
        "buf:f32:zeros:4",
        "--arg",
        "u32:4",
    ];
    let run_json: Vec<&str> = run.iter().copied().chain(["--json"]).collect();
    let commands: [&[&str]; 9] = [
        &run,
        &run_json,
        &["devices"],
        &["devices", "--json"],
        &["check", "--kernels", "shaders/saxpy.pisa"],
        &["link", "shaders/saxpy.pisa"],
        &["spirv", "--dis", "shaders/saxpy.pisa"],
        &["spirv", "-o", "-", "shaders/saxpy.pisa"],
        &["ir", "--structured", "shaders/saxpy.pisa"],
    ];
    for args in commands {
        let mut c = pisa();
        c.args(args);
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = c
            .stdout(full)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(
            err.ends_with(
                "error: cannot write to standard output: No space left on device (os error 28)\n"
            ),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    }
}

/// `saxpy` on the default (Vulkan) device, with the pipeline cache in `cache`.
fn saxpy_vulkan(cache: &std::path::Path) -> Output {
    let mut c = pisa();
    c.env("XDG_CACHE_HOME", cache)
        .env_remove("PISA_DEVICE")
        .args([
            "run",
            "shaders/saxpy.pisa",
            "--kernel",
            "saxpy",
            "--global",
            "4",
            "--arg",
            "f32:2",
            "--arg",
            "buf:f32:1,2,3,4",
            "--arg",
            "buf:f32:zeros:4",
            "--arg",
            "u32:4",
            // a hang fails the test within `output_within`'s limit
            "--compile-timeout",
            "60",
        ]);
    output_within(c, Duration::from_secs(100))
}

const SAXPY_OUT: &str = "arg 2 (f32 x4): [2.0, 4.0, 6.0, 8.0]\n";

/// Item 19: a FIFO, a link to /dev/zero or a file over the size limit at the
/// pipeline cache's path is ignored with a warning, instead of blocking
/// `pisa run` forever (a FIFO without a writer) or reading without end.
#[test]
fn a_bad_pipeline_cache_is_ignored_with_a_warning() {
    let cache = dir().join("cache");
    // a first run writes the cache and so shows its name
    let out = saxpy_vulkan(&cache);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if String::from_utf8_lossy(&out.stdout).contains("on cpu") {
        eprintln!("skipped: no Vulkan device");
        return;
    }
    // (the probe cache beside it is tests/probes.rs's)
    let files: Vec<_> = std::fs::read_dir(cache.join("pisa"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("pipelines-")
        })
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let path = &files[0];
    let bad: [(&str, &dyn Fn()); 3] = [
        ("it is not a regular file", &|| {
            let ok = Command::new("mkfifo").arg(path).status().unwrap();
            assert!(ok.success());
        }),
        ("it is not a regular file", &|| {
            std::os::unix::fs::symlink("/dev/zero", path).unwrap();
        }),
        (
            "it holds 268435457 bytes, more than the 268435456 a pipeline cache may have",
            &|| {
                // sparse: nothing is written
                let f = std::fs::File::create(path).unwrap();
                f.set_len((256 << 20) + 1).unwrap();
            },
        ),
    ];
    for (why, make) in bad {
        std::fs::remove_file(path).unwrap();
        make();
        let out = saxpy_vulkan(&cache);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!(
                "warning: ignoring the pipeline cache {}: {why}\n",
                path.display()
            )),
            "{err}"
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).ends_with(SAXPY_OUT),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// `saxpy` on the cpu device with extra options.
fn saxpy_cpu_with(extra: &[&str]) -> Output {
    let mut c = pisa();
    c.env_remove("PISA_DEVICE").args([
        "run",
        "shaders/saxpy.pisa",
        "--kernel",
        "saxpy",
        "--arg",
        "f32:2",
        "--arg",
        "buf:f32:1,2,3,4",
        "--arg",
        "buf:f32:zeros:4",
        "--arg",
        "u32:4",
    ]);
    c.args(extra);
    output_within(c, Duration::from_secs(60))
}

/// The cpu device's index, as `pisa devices` prints it (the last line
/// that starts with an index).
fn cpu_index() -> String {
    let out = output_within(
        {
            let mut c = pisa();
            c.env_remove("PISA_DEVICE").arg("devices");
            c
        },
        Duration::from_secs(60),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains(": cpu (pisa reference interpreter)"))
        .unwrap_or_else(|| panic!("{text}"));
    line.split(':').next().unwrap().to_string()
}

/// The index `pisa devices` prints for the cpu device selects it, as
/// `--device` and as `PISA_DEVICE` (it was refused: "no Vulkan device
/// matches `1`").
#[test]
fn the_cpu_device_s_index_selects_it() {
    let i = cpu_index();
    let out = saxpy_cpu_with(&["--global", "4", "--device", &i]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ran @saxpy on cpu (pisa reference interpreter) ([4, 1, 1] work-items)\narg 1 (f32 x4): [1.0, 2.0, 3.0, 4.0]\n{SAXPY_OUT}")
    );
    let mut c = pisa();
    c.env("PISA_DEVICE", &i).arg("devices");
    let out = output_within(c, Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{i}: cpu (pisa reference interpreter) [default]:")),
        "{text}"
    );
}

/// Negative values reach the options they are given to (clap used to
/// refuse them with the advice `-- -1`, which makes them a file name), and
/// each option's own check reports them.
#[test]
fn negative_values_reach_their_options() {
    let cases: [(&[&str], &str); 9] = [
        (&["--global", "-1"], "error: --global: `-1` is not a size\n"),
        (
            &["--global", "4", "--local", "-1"],
            "error: --local: `-1` is not a size\n",
        ),
        (
            &["--global", "4", "--offset", "-1"],
            "error: --offset: `-1` is not a size\n",
        ),
        (
            &["--global", "4", "--timeout", "-1"],
            "error: --timeout must be a positive number of seconds (found -1)\n",
        ),
        (
            &["--global", "4", "--compile-timeout", "-1"],
            "error: --compile-timeout must be a positive number of seconds (found -1)\n",
        ),
        (
            &["--global", "4", "--device", "-1"],
            "error: cannot start the Vulkan runtime: no Vulkan device matches `-1` (see `pisa devices`)\n",
        ),
        (
            &["--global", "4", "--out", "-1=x.npy"],
            "error: --out `-1=x.npy`: `-1` is not an argument index\n",
        ),
        (
            &["--global", "4", "--set-global", "-x=i32:1"],
            "error: --set-global -x: no host-accessible global `-x` in this module\n",
        ),
        (
            &["--global", "4", "--printf-buffer", "-1"],
            "error: invalid value '-1' for '--printf-buffer <BYTES>': -1 is not in 0..=4294967295\n\nFor more information, try '--help'.\n",
        ),
    ];
    for (args, want) in cases {
        let mut args = args.to_vec();
        if !args.contains(&"--device") {
            args.extend(["--device", "cpu"]);
        }
        let out = saxpy_cpu_with(&args);
        assert_eq!(stderr(&out), want, "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// Where a value starting with `-` still cannot be an option's value (a
/// kernel name), clap's advice `-- -k` (which makes it a file name) is
/// replaced by advice that works.
#[test]
fn no_advice_that_does_not_work() {
    let run = |kernel: &[&str]| {
        let mut c = pisa();
        c.args([
            "run",
            "shaders/saxpy.pisa",
            "--device",
            "cpu",
            "--global",
            "4",
        ])
        .args(kernel)
        .args(["--arg", "f32:2"]);
        output_within(c, Duration::from_secs(60))
    };
    let out = run(&["--kernel", "-k"]);
    let err = stderr(&out);
    assert!(
        err.starts_with("error: unexpected argument '-k' found\n\n  tip: an option's value that starts with '-' is written with '=', as in '--kernel=-k'; a file name after '--'\n"),
        "{err}"
    );
    assert!(!err.contains("'-- -k'"), "{err}");
    assert_eq!(out.status.code(), Some(2));
    // the advice works
    let out = run(&["--kernel=-k"]);
    assert_eq!(
        stderr(&out),
        "error: launch failed: no kernel `-k` in this module; its kernels: @saxpy\n"
    );
    assert_eq!(out.status.code(), Some(2));
}

/// `--set-global` errors in the value name the option and what was given.
#[test]
fn set_global_errors_name_the_option() {
    for (g, why) in [
        (
            "x=i33:1",
            "unknown type `i33` (one of u8 u16 u32 u64 i8 i16 i32 i64 f16 f32 f64)",
        ),
        ("x=i32:abc", "`abc` is not a i32 value"),
        ("x=u8:256", "256 does not fit in u8"),
        ("x=u8:1,", "value 1 of the list is empty"),
    ] {
        let out = saxpy_cpu_with(&["--global", "4", "--device", "cpu", "--set-global", g]);
        assert_eq!(stderr(&out), format!("error: --set-global `{g}`: {why}\n"));
        assert_eq!(out.status.code(), Some(2));
    }
}

/// A kernel that stores through a wild address crashes a software driver
/// (lavapipe) inside `pisa run`: the explanation is printed once, even when
/// several of the driver's threads fault together (it was printed twice).
#[test]
fn a_crash_is_explained_once() {
    let p = write(
        "wild.pisa",
        b".version 0.1;\n.target 100;\n.kernel @wild()\n{\n\t.reg .64b %p;\n\t.reg .32b %v;\n\tmov.64b %p, 8;\n\tmov.32b %v, 1;\n\tst.global.32b [%p], %v;\n\treturn;\n}\n",
    );
    let probe = {
        let mut c = pisa();
        c.env_remove("PISA_DEVICE").arg("devices");
        output_within(c, Duration::from_secs(60))
    };
    if !String::from_utf8_lossy(&probe.stdout).contains("llvmpipe") {
        eprintln!("skipped: no software Vulkan driver (lavapipe)");
        return;
    }
    for _ in 0..40 {
        let mut c = pisa();
        c.env_remove("PISA_DEVICE")
            // many driver threads fault at once
            .env("LP_NUM_THREADS", "16")
            .arg("run")
            .arg(&p)
            .args(["--kernel", "wild", "--global", "65536", "--local", "64"]);
        let out = output_within(c, Duration::from_secs(60));
        assert_eq!(
            stderr(&out),
            "error: the kernel crashed pisa (segmentation fault): it accessed memory outside its buffers, e.g. through a wild pointer, or the driver failed compiling it (some drivers, such as llvmpipe, compile at the first dispatch). Software Vulkan drivers such as lavapipe run kernels inside this process, so such faults end it.\n"
        );
        assert_eq!(out.status.code(), Some(139));
    }
}
