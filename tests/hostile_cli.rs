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
    let files: Vec<_> = std::fs::read_dir(cache.join("pisa"))
        .unwrap()
        .map(|e| e.unwrap().path())
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
