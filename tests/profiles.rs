//! `--profile` (issue 31, items 1, 4, 5 and part of 6): programs run on lavapipe, with the
//! validation layer on, restricted to device profiles of `shared/device-profiles/` (an NVIDIA
//! RTX report, Apple M1 under MoltenVK 0.2.2015 without f64, an old MoltenVK report without
//! bufferDeviceAddress, the Roadmap 2022 requirement profile): results bit-identical with the
//! cpu device, or refused with exit status 3 and the exact message; a bad profile is exit 2
//! naming the JSON path; `pisa devices --profile` over all 58 reports is a snapshot.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROFILES: &str = "../shared/device-profiles";

fn profile(name: &str) -> String {
    format!("{PROFILES}/{name}")
}

const RTX: &str = "nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json";
const M1: &str = "apple_m1_0_2_2015_osx_14_3.json";
const OLD_MOLTENVK: &str = "apple_m1_0_2_1911_osx_11_2.json";
const ROADMAP: &str = "requirements/VP_KHR_roadmap_2022.json";

/// A folder of its own for each test's files.
fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("profiles-{test}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, name: &str, text: &str) {
    std::fs::write(d.join(name), text).unwrap();
}

/// `pisa ARGS` in `d`, with the validation layer on.
fn pisa(d: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pisa"))
        .current_dir(d)
        .args(args)
        .env("PISA_VALIDATION", "1")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .output()
        .unwrap()
}

fn abs(p: &str) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// Whether lavapipe is here (the Vulkan cases need it).
fn have_vulkan() -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["devices", "--json"])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains("llvmpipe")
}

const SAXPY: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %q;\n\t.reg .32b %a, %i;\n\tld.param.64b %p, [%o];\n\tmov.32b %i, %localid.x;\n\tumul.full.32b %q, %i, 4;\n\tiadd.64b %p, %p, %q;\n\tld.global.32b %a, [%p];\n\tfmul.f %a, %a, 2.5;\n\tfadd.f %a, %a, 1.0;\n\tst.global.32b [%p], %a;\n\treturn;\n}\n";

const SIN: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p;\n\t.reg .32b %a;\n\tld.param.64b %p, [%o];\n\tld.global.32b %a, [%p];\n\tfsin.f %a, %a;\n\tst.global.32b [%p], %a;\n\treturn;\n}\n";

/// `frsqrt.fast.df`, which the soft-double library does not cover (its
/// arithmetic, `fmul.df` in [`DF_MUL`], runs without f64).
const DF: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %d;\n\tld.param.64b %p, [%o];\n\tld.global.64b %d, [%p];\n\tfrsqrt.fast.df %d, %d;\n\tst.global.64b [%p], %d;\n\treturn;\n}\n";

const DF_MUL: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %d;\n\tld.param.64b %p, [%o];\n\tld.global.64b %d, [%p];\n\tfmul.df %d, %d, %d;\n\tst.global.64b [%p], %d;\n\treturn;\n}\n";

/// 20 KiB of `.shared`.
const SHARED_20K: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.shared .align 4 @t[20480];\n\t.reg .64b %p;\n\t.reg .32b %a;\n\tld.param.64b %p, [%o];\n\tmov.32b %a, 7;\n\tst.shared.32b [@t + 20476], %a;\n\tld.shared.32b %a, [@t + 20476];\n\tst.global.32b [%p], %a;\n\treturn;\n}\n";

/// One work-item (the kernel works on element 0 in place).
const SIN_ARGS: [&str; 7] = [
    "--kernel",
    "k",
    "--global",
    "1",
    "--arg",
    "buf:f32:0.5,-1.25,3.0,1e-3",
    "--json",
];

/// The buffers of `pisa run --json` (the timings left out).
fn results(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    v["args"].clone()
}

fn assert_no_validation_messages(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
}

fn run_args<'a>(file: &'a str, args: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["run", file];
    v.extend_from_slice(args);
    v.extend_from_slice(extra);
    v
}

const F64_KINDS: &str = "36 of the 58 device reports have it: NVIDIA and AMD (Windows and Linux), Intel HD/UHD 5xx-6xx and Arc B580 on Windows/Linux, llvmpipe; not Apple, not Intel Arc A-series, not any device under MoltenVK";

/// A program runs under profiles that have what it needs, with the cpu
/// device's results bit for bit and no validation message; under those that
/// lack a feature it is refused with exit 3 and one message naming the
/// construct, the feature and the kinds of device that have it.
#[test]
fn runs_match_the_cpu_device_or_are_refused_with_exit_3() {
    if !have_vulkan() {
        eprintln!("skipped: no lavapipe");
        return;
    }
    let d = dir("runs");
    write(&d, "saxpy.pisa", SAXPY);
    write(&d, "sin.pisa", SIN);
    let saxpy_args = [
        "--kernel",
        "k",
        "--global",
        "4",
        "--arg",
        "buf:f32:0.5,-1.25,3.0,1e-3",
        "--json",
    ];
    let cpu = results(&pisa(
        &d,
        &run_args("saxpy.pisa", &saxpy_args, &["--device", "cpu"]),
    ));
    let cpu_sin = results(&pisa(
        &d,
        &run_args("sin.pisa", &SIN_ARGS, &["--device", "cpu"]),
    ));
    for p in [RTX, M1] {
        let pr = abs(&profile(p));
        let out = pisa(
            &d,
            &run_args("saxpy.pisa", &saxpy_args, &["--profile", &pr]),
        );
        assert_no_validation_messages(&out);
        assert_eq!(results(&out), cpu, "{p}");
    }
    // fsin.f computes in f64 where the device has it (the RTX), in the math
    // library's f32 kernels where not (Apple's M1, docs/numerics.md): sin(0.5)
    // is correctly rounded by both
    for p in [RTX, M1] {
        let out = pisa(
            &d,
            &run_args("sin.pisa", &SIN_ARGS, &["--profile", &abs(&profile(p))]),
        );
        assert_no_validation_messages(&out);
        assert_eq!(results(&out), cpu_sin, "{p}");
    }
    // Roadmap 2022 does not require shaderInt64, which 64-bit addresses need
    // (every module declares it for its addresses: no one instruction is
    // named)
    let out = pisa(
        &d,
        &run_args(
            "saxpy.pisa",
            &saxpy_args,
            &["--profile", &abs(&profile(ROADMAP))],
        ),
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: saxpy.pisa cannot run on this device: the device lacks `shaderInt64`, which a 64-bit register or operation (.64b, addresses) needs; 53 of the 58 device reports have it: all but old MoltenVK (0.2.1911 and older: Apple M1, Iris 6000, GTX 680MX, Quadro K4200) and Intel Arc A380 driver 0.405.161\n"
    );
}

/// Under the Apple profile (no shaderFloat64) every `.df` instruction runs in
/// the soft-double library: `frsqrt.fast.df`, the last one refused there (exit 3
/// naming file:line and shaderFloat64, before issue "Numerics on every device",
/// item 3), translates without `Float64` from `pisa spirv --profile` and gives the
/// cpu device's result from `pisa run --profile` and under PISA_DEVICE_PROFILE;
/// `--numerics f64` is what is refused there, naming shaderFloat64. The `.df`
/// arithmetic runs too.
#[test]
fn double_precision_under_apple_runs_in_the_soft_library() {
    let d = dir("df");
    write(&d, "df.pisa", DF);
    let pr = abs(&profile(M1));
    let out = pisa(&d, &["spirv", "df.pisa", "--profile", &pr, "--dis"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("OpCapability Float64"));
    let out = pisa(
        &d,
        &[
            "spirv",
            "df.pisa",
            "--profile",
            &pr,
            "--numerics",
            "f64",
            "-o",
            "df.spv",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`shaderFloat64`, which `--numerics f64`")
            && err.ends_with(&format!("{F64_KINDS}\n")),
        "{err}"
    );
    // the RTX's module is written
    let out = pisa(
        &d,
        &[
            "spirv",
            "df.pisa",
            "--profile",
            &abs(&profile(RTX)),
            "-o",
            "df.spv",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if !have_vulkan() {
        return;
    }
    let args = [
        "--kernel",
        "k",
        "--global",
        "1",
        "--arg",
        "buf:f64:1.5",
        "--json",
    ];
    let cpu = pisa(&d, &run_args("df.pisa", &args, &["--device", "cpu"]));
    let want = results(&cpu);
    let out = pisa(&d, &run_args("df.pisa", &args, &["--profile", &pr]));
    assert_no_validation_messages(&out);
    assert_eq!(results(&out), want);
    // PISA_DEVICE_PROFILE does the same
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .current_dir(&d)
        .args(run_args("df.pisa", &args, &[]))
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env("PISA_DEVICE_PROFILE", &pr)
        .output()
        .unwrap();
    assert_eq!(results(&out), want);
    // the .df arithmetic runs there, in the soft-double library: 1.5 * 1.5
    write(&d, "mul.pisa", DF_MUL);
    let out = pisa(&d, &run_args("mul.pisa", &args, &["--profile", &pr]));
    assert_no_validation_messages(&out);
    assert_eq!(results(&out)[0]["data"], serde_json::json!([2.25]));
}

/// A 64-bit atomic on global memory under Apple's M1 (no
/// shaderBufferInt64Atomics) runs under a lock from the global lock table
/// (docs/abi.md, "Emulated atomics") with the cpu device's result; it was
/// refused with exit 3 naming the instruction and the feature before the
/// emulation (issue "Any Vulkan GPU", item 2).
#[test]
fn global_64_bit_atomics_under_apple_are_emulated() {
    if !have_vulkan() {
        return;
    }
    let d = dir("a64");
    let src = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %d, %e;\n\tld.param.64b %p, [%o];\n\tmov.64b %e, 5;\n\tiatom.global.add.64b %d, [%p], %e;\n\treturn;\n}\n";
    write(&d, "a64.pisa", src);
    let args = [
        "--kernel",
        "k",
        "--global",
        "1",
        "--arg",
        "buf:u64:1",
        "--json",
    ];
    let cpu = results(&pisa(
        &d,
        &run_args("a64.pisa", &args, &["--device", "cpu"]),
    ));
    assert_eq!(
        cpu,
        serde_json::json!([{"index": 0, "type": "u64", "data": [6]}])
    );
    for p in [RTX, M1] {
        let out = pisa(
            &d,
            &run_args("a64.pisa", &args, &["--profile", &abs(&profile(p))]),
        );
        assert_no_validation_messages(&out);
        assert_eq!(results(&out), cpu, "{p}");
    }
}

/// A report without bufferDeviceAddress (MoltenVK 0.2.1911) refuses every
/// program, before anything is translated for it.
#[test]
fn no_buffer_device_address_refuses_every_program() {
    if !have_vulkan() {
        return;
    }
    let d = dir("nobda");
    write(&d, "saxpy.pisa", SAXPY);
    write(&d, "sin.pisa", SIN);
    let pr = abs(&profile(OLD_MOLTENVK));
    for file in ["saxpy.pisa", "sin.pisa"] {
        let out = pisa(&d, &run_args(file, &SIN_ARGS, &["--profile", &pr]));
        assert_eq!(out.status.code(), Some(3));
        let stderr = String::from_utf8_lossy(&out.stderr);
        // the program's first missing feature, or bufferDeviceAddress
        assert!(
            stderr.starts_with(&format!(
                "error: {file} cannot run on this device: the device lacks `"
            )),
            "{stderr}"
        );
    }
    // a program that needs nothing else: the address is what is missing
    let empty = ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\treturn;\n}\n";
    write(&d, "empty.pisa", empty);
    let out = pisa(
        &d,
        &[
            "run",
            "empty.pisa",
            "--kernel",
            "k",
            "--global",
            "1",
            "--profile",
            &pr,
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: empty.pisa cannot run on this device: the device lacks `bufferDeviceAddress`, which `.global`/`.const` memory and pointer arguments needs; 53 of the 58 device reports have it: all but old MoltenVK (0.2.2010 and older on Radeon Pro 560, Apple M1 0.2.1911, Iris 6000, GTX 680MX, Quadro K4200)\n"
    );
}

/// Limits come from the restriction: under a profile of 16 KiB of shared
/// memory (the RTX report with its limit lowered), 20 KiB of `.shared` is
/// refused with exit 3; under the RTX's own 48 KiB it runs.
#[test]
fn shared_memory_limit_is_the_profiles() {
    if !have_vulkan() {
        return;
    }
    let d = dir("shared");
    write(&d, "shared.pisa", SHARED_20K);
    let text = std::fs::read_to_string(profile(RTX)).unwrap();
    let small = text.replace(
        "\"maxComputeSharedMemorySize\": 49152",
        "\"maxComputeSharedMemorySize\": 16384",
    );
    assert_ne!(small, text);
    write(&d, "small.json", &small);
    let args = ["--kernel", "k", "--global", "1", "--arg", "buf:u32:0"];
    let out = pisa(
        &d,
        &run_args("shared.pisa", &args, &["--profile", "small.json"]),
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: shared.pisa cannot run on this device: unsupported on this device: the program needs 20480 bytes of `.shared` variables; the device's maxComputeSharedMemorySize is 16384 bytes (of the 58 device reports, "),
        "{stderr}"
    );
    let out = pisa(
        &d,
        &run_args("shared.pisa", &args, &["--profile", &abs(&profile(RTX))]),
    );
    assert_no_validation_messages(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ran @k on llvmpipe (LLVM 15.0.6, 256 bits) ([1, 1, 1] work-items)\narg 0 (u32 x1): [7]\n"
            .replace("llvmpipe (LLVM 15.0.6, 256 bits)", &lavapipe_name())
    );
}

fn lavapipe_name() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["devices", "--json"])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    v["name"].as_str().unwrap().to_string()
}

/// A bad profile is exit 2, naming the file and the JSON path (or line and
/// column); so is an unknown profile name.
#[test]
fn a_bad_profile_is_exit_2_naming_the_json_path() {
    let d = dir("bad");
    write(&d, "k.pisa", SIN);
    let text = std::fs::read_to_string(profile(RTX)).unwrap();
    let bad = text.replacen("\"shaderFloat64\": true", "\"shaderFloat64\": \"yes\"", 1);
    assert_ne!(bad, text);
    write(&d, "bad.json", &bad);
    write(&d, "notjson.json", "{\n  \"profiles\": \n");
    let cases = [
        ("bad.json", "error: cannot read the device profile: bad.json: capabilities.device.features.VkPhysicalDeviceFeatures.shaderFloat64: expected a boolean, found \"yes\"\n".to_string()),
        ("notjson.json", "error: cannot read the device profile: notjson.json:3:0: not JSON: EOF while parsing a value\n".to_string()),
    ];
    for (file, msg) in &cases {
        for cmd in [
            vec![
                "run",
                "k.pisa",
                "--kernel",
                "k",
                "--global",
                "1",
                "--profile",
                file,
            ],
            vec!["spirv", "k.pisa", "--dis", "--profile", file],
            vec!["devices", "--profile", file],
        ] {
            let out = pisa(&d, &cmd);
            assert_eq!(out.status.code(), Some(2), "{cmd:?}");
            assert_eq!(&String::from_utf8_lossy(&out.stderr), msg, "{cmd:?}");
        }
    }
    let rtx = abs(&profile(RTX));
    let out = pisa(&d, &["devices", "--profile", &format!("{rtx}#VP_NONE")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: cannot read the device profile: {rtx}: profiles: no profile named `VP_NONE`; the file has `VP_GPUINFO_NVIDIA_GeForce_RTX_4070_551_61_0_0_windows_11`\n")
    );
}

/// `pisa devices --profile` over the 58 device reports: one block per
/// report, each taken as it is.
#[test]
fn devices_table_of_the_58_reports() {
    let mut files: Vec<String> = std::fs::read_dir(PROFILES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    assert_eq!(files.len(), 58);
    let mut args = vec!["devices", "--profile"];
    args.extend(files.iter().map(String::as_str));
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(&args)
        .env_remove("PISA_DEVICE_PROFILE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
    // JSON: one object per report
    args.push("--json");
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(&args)
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 58);
    // the 22 reports without shaderFloat64 run .df in the soft-double library
    let emulated_f64 = lines
        .iter()
        .filter(|l| l["pisa"]["f64"]["status"] == "emulated")
        .count();
    assert_eq!(emulated_f64, 22);
}
