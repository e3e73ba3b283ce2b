//! End-to-end behaviour of `pisa run` and the runtimes beyond the run cases
//! of tests/run_cases.rs: timeouts, loop caps, malformed arguments and
//! options, raw SPIR-V, submissions of several launches, device listing and
//! selection, big launches, and undefined behaviour on the cpu device.

use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeError, RuntimeOptions};
use std::path::Path;
use std::process::Command;

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// Assembles a program of the repository and loads it.
fn load(rt: &mut dyn Device, path: &str) -> pisa_vk_runtime::ProgramId {
    let src = std::fs::read_to_string(root(path)).unwrap();
    let m = pisa_translator::assemble(path, &src).unwrap_or_else(|d| panic!("{d}"));
    rt.load(&m).unwrap()
}

fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// The JSON a successful `pisa run --json` printed, with no validation message.
fn run_json(out: std::process::Output) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The final contents of buffer argument `i` in `pisa run --json` output.
fn arg_data(json: &serde_json::Value, i: usize) -> &serde_json::Value {
    let arg = json["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["index"] == i)
        .unwrap();
    &arg["data"]
}

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.env("PISA_VALIDATION", "1");
    c
}

/// Assembling, translating and the driver's compilation are bounded by
/// `--compile-timeout` (the launch's `--timeout` cannot cover a driver's
/// compiler), with a clear error naming the step (issue 11: a huge module
/// compiled silently for minutes).
#[test]
fn compilation_past_the_compile_timeout_is_an_error() {
    let path = std::env::temp_dir().join(format!("pisa-long-{}.pisa", std::process::id()));
    let mut src =
        String::from(".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .32b %v;\n");
    for _ in 0..100_000 {
        src.push_str("\tiadd.32b %v, %v, 1;\n");
    }
    src.push_str("\treturn;\n}\n");
    std::fs::write(&path, src).unwrap();
    let t = std::time::Instant::now();
    let out = pisa()
        .arg("run")
        .arg(&path)
        .args(["--kernel", "k", "--global", "1", "--device", "cpu"])
        .args(["--arg", "buf:u32:zeros:1", "--compile-timeout", "0.01"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("took longer than 0.01 s (--compile-timeout)")
            && (stderr.contains("assembling") || stderr.contains("translating")),
        "{stderr}"
    );
    // stopped there, not after finishing (the whole run takes seconds in a
    // debug build; this bounds a hang, it is not a timing test)
    assert!(t.elapsed() < std::time::Duration::from_secs(60));
    let _ = std::fs::remove_file(path);
}

/// A kernel that takes the driver longer to compile than `--timeout` gives
/// the launch still runs: the launch timeout bounds running, and
/// `--compile-timeout` compiling, also where the driver compiles at the
/// first dispatch (llvmpipe: this kernel, 2,000 exactly rounded `fmad.f`
/// and `fmul.f`, compiles for seconds; before, that counted against the
/// launch's 0.5 s and the run failed as "did not finish").
#[test]
fn a_long_compilation_is_not_a_launch_timeout() {
    // not beside a run-case table: seconds of llvmpipe compiling on the
    // other core pushed atomic_128_count's spin locks past llvmpipe's loop
    // cap once. The tables are in tests/run_cases.rs, another test binary,
    // and cargo runs test binaries one after another.
    let mut src = String::from(".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p;\n\t.reg .32b %v, %w, %u;\n\tld.param.64b %p, [%o];\n\tld.global.32b %v, [%p];\n\tld.global.32b %w, [%p + 4];\n\tld.global.32b %u, [%p + 8];\n");
    for _ in 0..1000 {
        src.push_str("\tfmad.f %v, %v, %w, %u;\n\tfmul.f %w, %w, %v;\n");
    }
    src.push_str("\tst.global.32b [%p], %v;\n\tst.global.32b [%p + 4], %w;\n\treturn;\n}\n");
    let path = std::env::temp_dir().join(format!("pisa-slow-compile-{}.pisa", std::process::id()));
    std::fs::write(&path, src).unwrap();
    let run = |device: &[&str]| {
        pisa()
            .arg("run")
            .arg(&path)
            .args([
                "--kernel",
                "k",
                "--global",
                "1",
                "--json",
                "--timeout",
                "0.5",
            ])
            .args(["--arg", "buf:f32:1.0001,0.9999,0.5"])
            .args(device)
            // a compilation from Mesa's shader cache would take no time
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .output()
            .unwrap()
    };
    let gpu = run(&[]);
    let stderr = String::from_utf8_lossy(&gpu.stderr);
    assert_eq!(gpu.status.code(), Some(0), "{stderr}");
    let cpu = run(&["--device", "cpu"]);
    let args = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["args"].clone()
    };
    assert_eq!(args(&gpu), args(&cpu));
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_kernel_that_never_ends_hits_the_timeout() {
    let t = std::time::Instant::now();
    // millions of work-items: llvmpipe caps each one's loop, so the launch
    // must still outlast the timeout
    let out = pisa()
        .args([
            "run",
            &root("tests/run/forever.pisa"),
            "--kernel",
            "forever",
            "--global",
            "16777216",
            "--local",
            "64",
        ])
        .args(["--arg", "buf:u32:zeros:1", "--timeout", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("did not finish within 1s"), "{stderr}");
    assert!(
        t.elapsed().as_secs() < 30,
        "the process must not hang after a timeout"
    );
}

fn count_to(
    rt: &mut Runtime,
    prog: pisa_vk_runtime::ProgramId,
    n: u32,
) -> Result<u32, RuntimeError> {
    let out = rt.alloc_buffer(4).unwrap();
    let args = vec![
        rt.buffer_address(out).unwrap().to_le_bytes().to_vec(),
        n.to_le_bytes().to_vec(),
    ];
    rt.launch(&Launch {
        program: prog,
        kernel: "count".into(),
        range: NdRange::d1(1),
        args,
    })?;
    Ok(rt.read::<u32>(out).unwrap()[0])
}

/// A loop of a million iterations runs on every driver, llvmpipe included
/// (its cap of 65,535 back edges is lifted by unrolling, ir::unroll).
#[test]
fn a_million_iteration_loop_runs() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/count.pisa");
    assert_eq!(count_to(&mut rt, prog, 1_000_000).unwrap(), 1_000_000);
}

/// Translated with the default options (loop-cap checks, no unrolling), as
/// `pisa spirv` writes a module for `pisa run --spirv`: on llvmpipe a loop
/// past the cap is reported, never a wrong count. (A version of the checks
/// that the driver's optimizer could see through returned 65,536 here.)
#[test]
fn default_translation_reports_the_loop_cap() {
    let mut rt = runtime();
    let src = std::fs::read_to_string(root("tests/run/count.pisa")).unwrap();
    let m = pisa_translator::assemble("count.pisa", &src).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    let prog = rt.load_translated(&spv).unwrap();
    let n = 100_000;
    let r = count_to(&mut rt, prog, n);
    if rt.device_info().caps_loops {
        assert!(matches!(r, Err(RuntimeError::LoopLimit)), "{r:?}");
    } else {
        assert_eq!(r.unwrap(), n);
    }
}

/// Beyond the cap × the unroll factor, llvmpipe's cut is reported, never a
/// wrong count.
#[test]
fn long_loops_give_the_right_count_or_an_error() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/count.pisa");
    let n = 20_000_000;
    let r = count_to(&mut rt, prog, n);
    if rt.device_info().name.contains("llvmpipe") {
        assert!(matches!(r, Err(RuntimeError::LoopLimit)), "{r:?}");
    } else {
        assert_eq!(r.unwrap(), n);
    }
}

#[test]
fn malformed_arguments_are_errors_before_anything_runs() {
    for (arg, msg) in [
        ("buf:u33:1", "unknown type `u33`"),
        ("u8:300", "300 does not fit in u8"),
        ("raw:abc", "even number of hex digits"),
        ("f32", "expected TYPE:VALUE"),
        // issue 11: these were accepted and ran with other values
        (
            "buf:f32:zeros:4611686018427387905",
            "elements are too large a buffer",
        ),
        ("buf:f32:1,,2", "value 1 of the list is empty"),
        ("buf:f32:1e39", "1e39 is out of the range of f32"),
        ("f16:70000", "70000 is out of the range of f16"),
    ] {
        let out = pisa()
            .args([
                "run",
                &root("tests/run/vadd.pisa"),
                "--kernel",
                "vadd",
                "--global",
                "4",
                "--arg",
                arg,
            ])
            .env("PISA_DEVICE", "no-such-device")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        // the device selection would fail: the argument error must come first
        assert!(stderr.contains(msg), "{arg}: {stderr}");
    }
}

/// Sizes, offsets and timeouts that used to be accepted (or panic) are errors
/// before anything runs (issue 11).
#[test]
fn malformed_launch_options_are_errors() {
    let bin = std::env::temp_dir().join(format!("pisa-seven-{}.bin", std::process::id()));
    std::fs::write(&bin, [0u8; 7]).unwrap();
    let seven = format!("buf:f32:@{}", bin.display());
    for (opts, msg) in [
        (vec!["--global", "0"], "sizes must be at least 1"),
        (vec!["--global", "10,0"], "sizes must be at least 1"),
        (
            vec!["--global", "4", "--local", "0"],
            "sizes must be at least 1",
        ),
        (
            vec!["--global", "4", "--offset", "4294967295"],
            "overflows 32 bits",
        ),
        (
            vec!["--global", "4", "--timeout", "1e100"],
            "--timeout must be",
        ),
        (
            vec!["--global", "4", "--timeout", "inf"],
            "--timeout must be",
        ),
        (
            vec!["--global", "4", "--compile-timeout", "0"],
            "--compile-timeout must be",
        ),
        (
            vec!["--global", "4", "--arg", seven.as_str()],
            "not a whole number of f32 values",
        ),
    ] {
        let out = pisa()
            .args(["run", &root("tests/run/vadd.pisa"), "--kernel", "vadd"])
            .args(&opts)
            .env("PISA_DEVICE", "no-such-device")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{opts:?}: {stderr}");
        assert!(stderr.contains(msg), "{opts:?}: {stderr}");
    }
    let _ = std::fs::remove_file(bin);
}

/// Raw SPIR-V reaches the driver only after spirv-val found it valid (issue
/// 11: a module that fails spirv-val ran and exited 0); its arguments, which
/// nothing declares, are noted as unchecked.
#[test]
fn raw_spirv_is_validated_before_it_is_loaded() {
    let dir = std::env::temp_dir().join(format!("pisa-badspv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("saxpy.spv");
    let out = pisa()
        .args(["spirv", &root("shaders/saxpy.pisa"), "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let run = |path: &Path| {
        pisa()
            .args(["run", "--spirv"])
            .arg(path)
            .args(["--kernel", "saxpy", "--global", "4", "--arg", "f32:2"])
            .args(["--arg", "buf:f32:1,2,3,4", "--arg", "buf:f32:zeros:4"])
            .args(["--arg", "u32:4"])
            .output()
            .unwrap()
    };
    let good = run(&spv);
    let stderr = String::from_utf8_lossy(&good.stderr);
    assert!(good.status.success(), "{stderr}");
    // `pisa spirv` describes its kernels' parameters inside the module
    // (kernel_info.rs): arguments are checked as a PISA program's
    assert!(!stderr.contains("unchecked"), "{stderr}");
    let short = pisa()
        .args(["run", "--spirv"])
        .arg(&spv)
        .args(["--kernel", "saxpy", "--global", "4", "--arg", "f32:2"])
        .args(["--arg", "buf:f32:1,2,3,4", "--arg", "buf:f32:zeros:4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&short.stderr);
    assert_eq!(short.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("takes 4 arguments, 3 given"), "{stderr}");
    // an id bound below the ids the module uses: structurally readable,
    // invalid for spirv-val
    let mut bytes = std::fs::read(&spv).unwrap();
    bytes[12..16].copy_from_slice(&3u32.to_le_bytes());
    let bad = dir.join("bad.spv");
    std::fs::write(&bad, bytes).unwrap();
    let out = run(&bad);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not valid SPIR-V for Vulkan 1.2") && stderr.contains("ID bound"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn raw_spirv_from_pisa_spirv_and_spirv_opt_runs_like_the_module() {
    let dir = std::env::temp_dir().join(format!("pisa-raw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("saxpy.spv");
    let opt = dir.join("saxpy.opt.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["spirv", &root("shaders/saxpy.pisa"), "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words = match Command::new("spirv-opt")
        .arg("-O")
        .arg(&spv)
        .arg("-o")
        .arg(&opt)
        .output()
    {
        Ok(o) if o.status.success() => &opt,
        Ok(o) => panic!("spirv-opt: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "spirv-opt must be installed in CI"
            );
            &spv
        }
    };
    let npy = dir.join("y.npy");
    let out = pisa()
        .args(["run", "--spirv"])
        .arg(words)
        .args([
            "--kernel", "saxpy", "--global", "5", "--local", "2", "--arg", "f32:3",
        ])
        .args([
            "--arg",
            "buf:f32:1,2,3,4,5",
            "--arg",
            "buf:f32:1,1,1,1,1",
            "--arg",
            "u32:5",
            "--json",
        ])
        .arg(format!("--out=2={}", npy.display()))
        .output()
        .unwrap();
    let json = run_json(out);
    assert_eq!(
        arg_data(&json, 2),
        &serde_json::json!([4.0, 7.0, 10.0, 13.0, 16.0])
    );
    // the .npy file: header, then the five f32 values
    let bytes = std::fs::read(&npy).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    assert_eq!(
        (10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize) % 64,
        0
    );
    assert!(String::from_utf8_lossy(&bytes[10..])
        .contains("'descr': '<f4', 'fortran_order': False, 'shape': (5,)"));
    let data: Vec<f32> = bytes[bytes.len() - 20..]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(data, vec![4.0, 7.0, 10.0, 13.0, 16.0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wild_pointer_is_explained_not_a_silent_crash() {
    // run in a child process: software drivers fault inside the process
    let out = pisa()
        .args([
            "run",
            &root("tests/run/wild_pointer.pisa"),
            "--kernel",
            "wild",
            "--global",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("accessed memory outside its buffers")
            || stderr.contains("device was lost"),
        "{stderr}"
    );
}

#[test]
fn several_launches_in_one_submission_run_in_order() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/vadd.pisa");
    let a = rt.buffer_from(&[1u32, 2, 3, 4, 5]).unwrap();
    let b = rt.buffer_from(&[10u32, 20, 30, 40, 50]).unwrap();
    let c = rt.alloc_buffer(20).unwrap();
    let d = rt.alloc_buffer(20).unwrap();
    let addr = |rt: &Runtime, x| rt.buffer_address(x).unwrap().to_le_bytes().to_vec();
    let n = 5u32.to_le_bytes().to_vec();
    let launch = |x, y, z| Launch {
        program: prog,
        kernel: "@vadd".into(),
        range: NdRange::d1(5).local([2, 1, 1]),
        args: vec![x, y, z, n.clone()],
    };
    // d = (a + b) + b: the second launch reads what the first wrote
    let first = launch(addr(&rt, a), addr(&rt, b), addr(&rt, c));
    let second = launch(addr(&rt, c), addr(&rt, b), addr(&rt, d));
    let pending = rt.submit(&[first, second]).unwrap();
    let timings = rt.wait(pending).unwrap();
    assert_eq!(timings.len(), 2);
    assert_eq!(rt.read::<u32>(d).unwrap(), vec![21, 42, 63, 84, 105]);
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

/// Timestamps for every launch of a larger submission: the query pool
/// holds two queries per launch (a mutation that sized it for two launches
/// at most went unnoticed).
#[test]
fn every_launch_of_a_submission_is_timed() {
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timestamps: true,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    let prog = load(&mut rt, "tests/run/vadd.pisa");
    let a = rt.buffer_from(&[1u32, 2, 3, 4, 5]).unwrap();
    let c = rt.alloc_buffer(20).unwrap();
    let addr = |rt: &Runtime, x| rt.buffer_address(x).unwrap().to_le_bytes().to_vec();
    let n = 5u32.to_le_bytes().to_vec();
    let launch = Launch {
        program: prog,
        kernel: "@vadd".into(),
        range: NdRange::d1(5).local([2, 1, 1]),
        args: vec![addr(&rt, a), addr(&rt, a), addr(&rt, c), n],
    };
    let batch: Vec<Launch> = (0..5).map(|_| launch.clone()).collect();
    let pending = rt.submit(&batch).unwrap();
    let timings = rt.wait(pending).unwrap();
    assert_eq!(timings.len(), 5);
    assert!(timings.iter().all(|t| t.kernel_ns.is_some()), "{timings:?}");
    assert_eq!(rt.read::<u32>(c).unwrap(), vec![2, 4, 6, 8, 10]);
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

#[test]
fn devices_are_listed_and_selected_by_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .arg("devices")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("0: "), "{text}");
    assert!(
        text.contains("Vulkan 1.")
            && text.contains("subgroup size")
            && text.contains("bufferDeviceAddress"),
        "{text}"
    );
    let first_name = text.lines().next().unwrap()[3..]
        .split(" (")
        .next()
        .unwrap()
        .to_string();
    let run = |sel: &str| {
        pisa()
            .args([
                "run",
                &root("tests/run/vadd.pisa"),
                "--kernel",
                "vadd",
                "--global",
                "2",
                "--device",
                sel,
            ])
            .args([
                "--arg",
                "buf:u32:1,2",
                "--arg",
                "buf:u32:3,4",
                "--arg",
                "buf:u32:zeros:2",
                "--arg",
                "u32:2",
            ])
            .output()
            .unwrap()
    };
    let ok = run(&first_name[..4.min(first_name.len())]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("[4, 6]"));
    let bad = run("no-such-device");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("no Vulkan device matches `no-such-device`")
    );
}

/// The hand-written GLSL kernel in docs/abi.md, compiled with glslang, runs
/// through `pisa run --spirv` like a translated kernel: the ABI document is
/// complete enough to write kernels against.
#[test]
fn the_abi_documents_glsl_example_runs() {
    let doc = std::fs::read_to_string(root("docs/abi.md")).unwrap();
    let start = doc
        .find("```glsl\n")
        .expect("a GLSL example in docs/abi.md")
        + 8;
    let glsl = &doc[start..start + doc[start..].find("```").unwrap()];
    let dir = std::env::temp_dir().join(format!("pisa-glsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.comp"), glsl).unwrap();
    let spv = dir.join("k.spv");
    let compiled = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-S", "comp", "-o"])
        .arg(&spv)
        .arg(dir.join("k.comp"))
        .output();
    match compiled {
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout)),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "glslang-tools must be installed in CI"
            );
            eprintln!("SKIPPED: glslangValidator is not installed");
            return;
        }
    }
    let out = pisa()
        .args(["run", "--spirv"])
        .arg(&spv)
        .args([
            "--kernel", "main", "--global", "5", "--local", "2", "--json",
        ])
        .args([
            "--arg",
            "buf:f32:1,2,3,4,5",
            "--arg",
            "buf:f32:1,1,1,1,1",
            "--arg",
            "f32:3",
        ])
        .output()
        .unwrap();
    // GLSL describes no parameters: the arguments are noted as unchecked
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        stderr.contains("3 argument(s) (20 bytes, each 8-byte aligned) are passed unchecked"),
        "{stderr}"
    );
    let json = run_json(out);
    assert_eq!(
        arg_data(&json, 1),
        &serde_json::json!([4.0, 7.0, 10.0, 13.0, 16.0])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Launches with more work-groups than one dispatch may have (65,535 per
/// dimension on lavapipe), partial work-groups and global offsets: every
/// work-item runs exactly once. (Before the runtime split such launches,
/// `--global 70000 --local 1` ran only some work-items and reported success.)
#[test]
fn big_launches_run_every_work_item_once() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/mark.pisa");
    for (global, local, offset, dims) in [
        ([70_000, 1, 1], [1, 1, 1], [0, 0, 0], 1),
        ([200_003, 1, 1], [3, 1, 1], [5, 0, 0], 1),
        ([3, 70_001, 1], [2, 1, 1], [0, 7, 0], 2),
        ([2, 3, 66_000], [1, 2, 1], [1, 2, 3], 3),
    ] {
        let n: u32 = global.iter().product();
        let out = rt.alloc_buffer(4 * n as u64).unwrap();
        let args = vec![
            rt.buffer_address(out).unwrap().to_le_bytes().to_vec(),
            global[0].to_le_bytes().to_vec(),
            global[1].to_le_bytes().to_vec(),
        ];
        rt.launch(&Launch {
            program: prog,
            kernel: "mark".into(),
            range: NdRange {
                global,
                local: Some(local),
                offset,
                dims,
            },
            args,
        })
        .unwrap();
        let got: Vec<u32> = rt.read(out).unwrap();
        let wrong = got.iter().filter(|&&v| v != 1).count();
        assert_eq!(
            wrong, 0,
            "{global:?} / {local:?}: {wrong} of {n} slots not 1"
        );
        rt.free_buffer(out);
    }
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

/// A kernel name that is not in the module is an error that lists the
/// module's kernels (issue 11: it named none).
#[test]
fn an_unknown_kernel_lists_the_kernels() {
    let mut rt = runtime();
    let prog = load(&mut rt, "shaders/saxpy.pisa");
    let e = rt
        .launch(&Launch {
            program: prog,
            kernel: "sax".into(),
            range: NdRange::d1(4),
            args: vec![],
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no kernel `sax` in this module; its kernels: @saxpy"
    );
}

/// `pisa devices --json`: one object per device, exactly one default, with
/// the limits launches depend on (issue 11).
#[test]
fn devices_as_json() {
    let out = pisa().args(["devices", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let devs: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!devs.is_empty());
    assert_eq!(devs.iter().filter(|d| d["default"] == true).count(), 1);
    for d in &devs {
        assert!(d["name"].is_string() && d["subgroup_size"].is_u64(), "{d}");
        assert_eq!(
            d["max_workgroup_count"].as_array().map(|a| a.len()),
            Some(3),
            "{d}"
        );
    }
}

/// Undefined behaviour the cpu device can see stops the launch with an
/// error naming the instruction, the work-item and the address.
#[test]
fn the_cpu_device_reports_undefined_behaviour() {
    let cases: &[(&str, &str, &[&str])] = &[
        // a wild pointer
        (
            "mov.64b %p, 0x10;\n\tst.global.32b [%p], %v;",
            "out-of-bounds access of 4 bytes at device address 0x10",
            &["`st.global.32b [%p], %v;`", "work-item [0, 0, 0]"],
        ),
        // one past the end of the 16-byte buffer
        (
            "ld.param.64b %p, [%o];\n\tld.global.32b %v, [%p + 16];",
            "out-of-bounds access of 4 bytes",
            &["`ld.global.32b %v, [%p + 16];`"],
        ),
        (
            "ld.param.64b %p, [%o];\n\tld.global.32b %v, [%p + 2];",
            "misaligned access of 4 bytes",
            &["`ld.global.32b %v, [%p + 2];`"],
        ),
        (
            "mov.32b %v, 0;\n\tudiv.32b %v, 7, %v;",
            "integer division by zero",
            &["`udiv.32b %v, 7, %v;`"],
        ),
        (
            "addrof.64b %p, @c;\n\tst.global.32b [%p], %v;",
            "read-only (.const) access",
            &["`st.global.32b [%p], %v;`"],
        ),
    ];
    for (body, what, also) in cases {
        let src = format!(
            ".version 0.1;\n.target 100;\n.const .align 4 @c[4] = {{ .32b 1 }};\n.kernel @k(.param[8] %o)\n{{\n\t.reg .64b %p;\n\t.reg .32b %v;\n\tmov.32b %v, %localid.x;\n\t{body}\n\treturn;\n}}\n"
        );
        let m = pisa_translator::assemble("ub.pisa", &src).unwrap_or_else(|d| panic!("{d}\n{src}"));
        let mut dev = pisa_interp::CpuDevice::new();
        let prog = dev.load(&m).unwrap();
        let buf = dev.alloc_buffer(16).unwrap();
        let addr = dev.buffer_address(buf).unwrap();
        let e = dev
            .launch(&Launch {
                program: prog,
                kernel: "k".into(),
                range: NdRange::d1(4).local([4, 1, 1]),
                args: vec![addr.to_le_bytes().to_vec()],
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{body}: {e}");
        for a in *also {
            assert!(e.contains(a), "{body}: {e} (expected {a})");
        }
        assert!(e.contains("ub.pisa:"), "{e}");
    }
}

/// A chain of calls that the driver's inlining would blow up (issue 11: a
/// chain of 10,000 calls was killed for memory while lavapipe compiled it)
/// is refused before the driver sees it, with the reason; the cpu device,
/// which inlines nothing, runs it.
#[test]
fn call_chains_too_big_to_inline_are_refused_not_compiled() {
    let n = 2000;
    let mut src = String::from(".version 0.1;\n.target 100;\n.function .32b @f0(.reg .32b %x)\n{\n\t.reg .32b %r;\n\tiadd.32b %r, %x, 1;\n\treturn %r;\n}\n");
    for i in 1..n {
        src.push_str(&format!(".function .32b @f{i}(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\tcall %r, @f{}(%x);\n\tiadd.32b %r, %r, 1;\n\treturn %r;\n}}\n", i - 1));
    }
    src.push_str(&format!(".kernel @k(.param[8] %o)\n{{\n\t.reg .64b %p;\n\t.reg .32b %v;\n\tld.param.64b %p, [%o];\n\tmov.32b %v, 0;\n\tcall %v, @f{}(%v);\n\tst.global.32b [%p], %v;\n\treturn;\n}}\n", n - 1));
    let m = pisa_translator::assemble("chain.pisa", &src).unwrap();
    let e = runtime().load(&m).unwrap_err().to_string();
    assert!(
        e.starts_with("unsupported on this device: the program has")
            && e.contains("instructions once every call is inlined"),
        "{e}"
    );
    let mut cpu = pisa_interp::CpuDevice::new();
    let prog = cpu.load(&m).unwrap();
    let out = cpu.alloc_buffer(4).unwrap();
    cpu.launch(&Launch {
        program: prog,
        kernel: "k".into(),
        range: NdRange::d1(1),
        args: vec![cpu.buffer_address(out).unwrap().to_le_bytes().to_vec()],
    })
    .unwrap();
    assert_eq!(cpu.download(out).unwrap(), (n as u32).to_le_bytes());
}

/// On a device that can neither compute `fmad.f` through f64 nor has an
/// `Fma` that rounds once, `fmad.f` is refused, never computed with two
/// roundings (issue 9; the runtime's probe, `vk-runtime/src/fma_probe.rs`).
/// Forced on lavapipe, whose `Fma` rounds twice, by leaving `fma-f64` out
/// of `PISA_SPIRV_OPTIONS`; with it the same run gives the exact results.
#[test]
fn fmad_is_refused_where_the_device_would_round_twice() {
    let run = |options: &str| {
        pisa()
            .args([
                "run",
                "tests/run/fmad_exact.pisa",
                "--kernel",
                "k",
                "--global",
                "1",
                "--arg",
                "buf:u32:1065353217,1065353215,3212836864,1602224128,1602224128,4286578687,1077936128,1065353217,880803840,0,0,0",
            ])
            .env("PISA_SPIRV_OPTIONS", options)
            .output()
            .unwrap()
    };
    let out = run("unroll,loop-cap,relaxed,opaque");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // a program the device cannot run: exit 3 (README, "pisa run")
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("unsupported on this device")
            && stderr.contains("`fmad.f` rounds once")
            && stderr.contains("fmad_exact.pisa:"),
        "{stderr}"
    );
    let out = run("unroll,loop-cap,relaxed,opaque,fma-f64");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("864026622"), "{stdout}");
}
