//! Run cases as data: every case file in tests/run/ (a `.pisa` program with
//! `// RUN:` and `// EXPECT:` directives in its comments, or a `.case` side
//! file naming a program kept elsewhere with `// FILE:`) is found, parsed
//! and run five ways: through the library on the Vulkan device (lavapipe in
//! CI) with the validation layer, the same in checked mode, on the cpu
//! device, and through the `pisa run` command line on both devices. The
//! format is described in docs/run-cases.md; adding a case is adding a file
//! or a directive.

#[path = "common/run_case.rs"]
mod run_case;

use pisa_vk_runtime::values::{self, ArgSpec, Ty};
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use run_case::*;
use std::path::Path;

/// The programs of tests/run/ that hold no `RUN` directive, with the test
/// file that runs each: every other `.pisa` file there must be a case file,
/// so that no program is added that runs nowhere.
const NOT_CASE_FILES: &[(&str, &str)] = &[
    ("bad_accesses.pisa", "tests/checked.rs"),
    ("count.pisa", "tests/run_behaviour.rs"),
    ("forever.pisa", "tests/run_behaviour.rs"),
    ("mark.pisa", "tests/run_behaviour.rs"),
    ("printf.pisa", "tests/printf.rs"),
    ("subgroup_activemask.pisa", "tests/subgroups.rs"),
    ("subgroup_barrier.pisa", "tests/subgroups.rs"),
    ("subgroup_reconverge.pisa", "tests/subgroups.rs"),
    ("subgroup_reduce.pisa", "tests/subgroups.rs"),
    ("subgroup_shfl.pisa", "tests/subgroups.rs"),
    ("wild_pointer.pisa", "tests/run_behaviour.rs"),
];

/// Assembles a program of the repository and loads it.
fn load(rt: &mut dyn Device, path: &str) -> Result<pisa_vk_runtime::ProgramId, String> {
    let src = std::fs::read_to_string(root(path)).map_err(|e| format!("{path}: {e}"))?;
    let m = pisa_translator::assemble(path, &src).map_err(|d| d.to_string())?;
    rt.load(&m).map_err(|e| e.to_string())
}

/// Runs one case through the library and checks its outputs.
fn run_case_on(rt: &mut dyn Device, c: &Case) -> Result<(), String> {
    let device = rt.device_info().name.clone();
    let prog = load(rt, &c.program).map_err(|e| format!("{}: {e}", c.at))?;
    for g in &c.set_globals {
        let (name, spec) = g.split_once('=').unwrap();
        rt.write_global(prog, name, &typed_values(spec).unwrap().1)
            .map_err(|e| format!("{}: --set-global {g}: {e}", c.at))?;
    }
    let mut bufs = Vec::new();
    let mut args = Vec::new();
    for a in &c.args {
        match values::parse_arg(a).unwrap() {
            ArgSpec::Scalar(b) => {
                bufs.push(None);
                args.push(b);
            }
            ArgSpec::Buffer(_, b) => {
                let id = rt.alloc_buffer(b.len() as u64).unwrap();
                rt.upload(id, 0, &b).unwrap();
                args.push(rt.buffer_address(id).unwrap().to_le_bytes().to_vec());
                bufs.push(Some(id));
            }
        }
    }
    let (global, d) = dims(&c.global);
    let range = NdRange {
        global,
        local: c.local.as_deref().map(|l| dims(l).0),
        // dimensions the offset leaves out are 0 (dims() fills sizes with 1)
        offset: c.offset.as_deref().map_or([0; 3], |o| {
            let mut off = [0; 3];
            for (d, v) in o.split(',').enumerate() {
                off[d] = v.parse().unwrap();
            }
            off
        }),
        dims: d,
    };
    rt.launch(&Launch {
        program: prog,
        kernel: c.kernel.clone(),
        range,
        args,
    })
    .map_err(|e| format!("{}: on {device}: {e}", c.at))?;
    let mut failures = Vec::new();
    for e in &c.expect {
        let got = match &e.target {
            Target::Arg(i) => rt.download(bufs[*i].unwrap()),
            Target::Global(name) => rt.read_global(prog, name),
        }
        .map_err(|err| format!("{}: on {device}: {}: {err}", e.at, e.target))?;
        if let Err(m) = check(e, &got, &device) {
            failures.push(m);
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Runs every case on a device; fails with every case that failed.
fn run_cases_on(rt: &mut dyn Device) {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| run_case_on(rt, c).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The run-case tables on lavapipe one at a time: atomic_128_count.pisa's
/// spin locks count against llvmpipe's loop cap, and two tables contending
/// for the machine's cores at once made it reach the cap (the launch then
/// fails with the loop-cap error, never with a wrong count).
static ONE_TABLE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn cases_through_the_library() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Checked mode (`pisa run --check`) finds no bad access in these correct
/// programs, and changes none of their results.
#[test]
fn cases_in_checked_mode() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        checked_memory: true,
        // each access searches the allocation table: the spin-lock
        // contention of atomic_128_count.pisa takes seconds longer (this
        // bounds a hang; no timing test)
        timeout: std::time::Duration::from_secs(120),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// The same cases on the reference device: both devices agree with the
/// expected outputs, so they agree with each other.
#[test]
fn cases_on_the_cpu_device() {
    run_cases_on(&mut pisa_interp::CpuDevice::new());
}

#[test]
fn cases_through_the_command_line() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cases_through_the_command_line_on(None);
}

#[test]
fn cases_through_the_command_line_on_the_cpu_device() {
    cases_through_the_command_line_on(Some("cpu"));
}

/// Runs one case with `pisa run --json` and checks its outputs.
fn run_case_through_the_command_line(c: &Case, device: Option<&str>) -> Result<(), String> {
    let mut cmd = command(c);
    if let Some(d) = device {
        cmd.args(["--device", d]);
    }
    let device = format!("pisa run --device {}", device.unwrap_or("(default)"));
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("vulkan validation") {
        return Err(format!("{}: {device}: {}\n{stderr}", c.at, out.status));
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failures = check_json(c, &json, &device);
    assert!(json["kernel_ms"].as_f64().unwrap() >= 0.0);
    assert!(json["compile_ms"].as_f64().unwrap() > 0.0);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn cases_through_the_command_line_on(device: Option<&str>) {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| run_case_through_the_command_line(c, device).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every program in tests/run/ runs somewhere: it is a case file, or it is
/// listed in `NOT_CASE_FILES` with a test file that names it. A listed file
/// that gained a `RUN`, or is gone, is a stale entry.
#[test]
fn every_program_in_tests_run_is_a_case_or_used_by_a_test() {
    let mut problems = Vec::new();
    let files = case_files();
    for (path, cases) in &files {
        let name = path.strip_prefix("tests/run/").unwrap();
        let listed = NOT_CASE_FILES.iter().find(|(n, _)| *n == name);
        match (cases.is_empty(), listed) {
            (true, None) => problems.push(format!(
                "{path} has no RUN directive and is not in NOT_CASE_FILES: give it a RUN (docs/run-cases.md) or name the test that runs it"
            )),
            (false, Some(_)) => problems.push(format!("{path} has RUN directives: remove it from NOT_CASE_FILES")),
            (true, Some((_, test))) => {
                let text = std::fs::read_to_string(root(test)).unwrap_or_default();
                let stem = name.strip_suffix(".pisa").unwrap();
                // tests/subgroups.rs names its programs without the directory
                if !text.contains(name) && !text.contains(&format!("\"{stem}")) {
                    problems.push(format!("{path}: {test} does not name it"));
                }
            }
            (false, None) => {}
        }
    }
    for (name, _) in NOT_CASE_FILES {
        if !files
            .iter()
            .any(|(p, _)| p.strip_prefix("tests/run/") == Some(name))
        {
            problems.push(format!(
                "NOT_CASE_FILES names {name}, which is not in tests/run/"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every case file parses, and each `FILE` names a program that exists.
#[test]
fn every_case_file_parses() {
    for c in cases() {
        assert!(
            Path::new(&root(&c.program)).is_file(),
            "{}: the program {} does not exist",
            c.at,
            c.program
        );
    }
}

/// Malformed directives are errors naming the file and the line.
#[test]
fn malformed_directives_name_the_file_and_line() {
    let run = "// RUN: --kernel k --global 1 --arg buf:u32:zeros:2 --arg u32:3\n";
    for (path, text, msg) in [
        ("a.pisa", format!("//\n{run}"), "a.pisa:2: a RUN without EXPECT checks nothing"),
        ("a.pisa", "// EXPECT: arg 0 = u32:0,0\n".into(), "a.pisa:1: EXPECT before any RUN"),
        ("a.pisa", format!("{run}// EXPECT: arg 1 = u32:3\n"), "a.pisa:2: EXPECT: argument 1 is not a buffer"),
        ("a.pisa", format!("{run}// EXPECT: arg 2 = u32:3\n"), "a.pisa:2: EXPECT: argument 2 does not exist"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u33:3\n"), "a.pisa:2: EXPECT: `u33:3`: unknown type `u33`"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u32:1,2 ulp 1\n"), "a.pisa:2: EXPECT: a ULP bound needs a float type, not u32"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u32:1,2\n// EXPECT: arg 0 = u32:1,2\n"), "a.pisa:3: arg 0 is already expected at a.pisa:2"),
        ("a.pisa", format!("{run}// EXPECT arg 0 = u32:1,2\n"), "a.pisa:2: `EXPECT` must be followed by `:`"),
        ("a.pisa", "// RUN: --kernel k \\\n.version 0.1;\n".into(), "a.pisa:2: the directive of line 1 continues (`\\`) onto a line that is not a `//` comment"),
        ("a.pisa", "// RUN: --kernel k --global 1 --lokal 4\n".into(), "a.pisa:1: RUN: unknown option `--lokal`"),
        ("a.pisa", "// RUN: --global 1\n".into(), "a.pisa:1: RUN: `--kernel` is missing"),
        ("a.pisa", "// RUN: --kernel k --global 1,x\n".into(), "a.pisa:1: RUN: --global: `1,x` is not"),
        ("a.pisa", "// RUN: --kernel k --global 1 --arg buf:u32:1,,2\n".into(), "a.pisa:1: RUN: --arg buf:u32:1,,2: value 1 of the list is empty"),
        ("a.pisa", "// FILE: b.pisa\n".into(), "a.pisa:1: FILE belongs in a .case file"),
        ("a.case", run.to_string(), "a.case:1: RUN before the FILE"),
        ("a.case", "// FILE: b.pisa\n".into(), "a.case: a .case file without any RUN"),
        ("a.case", "// FILE: b.pisa\n.version 0.1;\n".into(), "a.case:2: a .case file holds only `//` comments"),
    ] {
        let e = parse_case_file(path, &text).unwrap_err();
        assert!(e.starts_with(msg), "{text:?}: {e}");
    }
}

/// Continuation lines, several cases in one file, and the ULP bound.
#[test]
fn directives_continue_and_bound_floats() {
    let text = "\
// a comment, then a case over three lines
// RUN: --kernel k --global 4,2 --local 2 \\
//   --arg buf:f32:1,2, \\
//     3 --set-global g=u32:7
// EXPECT: arg 0 = f32:1.5, \\
//   2,3 ulp 2
// EXPECT: global g = u32:0x8
//
// RUN: --kernel j --global 1 --offset 3 --arg buf:u16:zeros:1
// EXPECT: arg 0 = u16:0
.version 0.1;
";
    let cases = parse_case_file("t.pisa", text).unwrap();
    assert_eq!(cases.len(), 2);
    let c = &cases[0];
    assert_eq!(c.at, "t.pisa:2");
    assert_eq!((c.kernel.as_str(), c.global.as_str()), ("k", "4,2"));
    assert_eq!(c.local.as_deref(), Some("2"));
    assert_eq!(c.args, ["buf:f32:1,2,3"]);
    assert_eq!(c.set_globals, ["g=u32:7"]);
    assert_eq!(c.expect[0].at, "t.pisa:5");
    assert_eq!(c.expect[0].values, "1.5,2,3");
    assert_eq!(c.expect[0].ulp, Some(2));
    assert_eq!(c.expect[1].target, Target::Global("g".into()));
    assert_eq!(cases[1].at, "t.pisa:9");
    assert_eq!(cases[1].offset.as_deref(), Some("3"));
    let e = &c.expect[0];
    let f32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (a, b, c3) = (1.5f32.to_bits(), 2f32.to_bits(), 3f32.to_bits());
    assert!(check(e, &f32s(&[a, b, c3]), "t").is_ok());
    assert!(check(e, &f32s(&[a + 2, b - 2, c3 + 1]), "t").is_ok());
    let err = check(e, &f32s(&[a, b - 3, c3]), "t").unwrap_err();
    assert!(
        err.starts_with("t.pisa:5: on t: arg 0: element 1 is not within 2 ULP"),
        "{err}"
    );
    assert!(check(e, &f32s(&[a, b, 0x7fc0_0000]), "t").is_err());
    // across zero: the distance counts the values between, both zeros as one
    let z = Expect {
        at: String::new(),
        target: Target::Arg(0),
        ty: Ty::F32,
        values: "0".into(),
        want: 0f32.to_le_bytes().to_vec(),
        ulp: Some(2),
    };
    assert!(check(&z, &f32s(&[0x8000_0002]), "t").is_ok());
    assert!(check(&z, &f32s(&[0x8000_0003]), "t").is_err());
    // exact: the message shows the values as written (hexadecimal here)
    let err = check(
        &cases_of_one("// EXPECT: global g = u32:0x8\n"),
        &[9, 0, 0, 0],
        "t",
    )
    .unwrap_err();
    assert!(
        err.contains("expected u32:0x8\n  got      u32:0x9"),
        "{err}"
    );
}

/// The one `EXPECT` of a minimal case.
fn cases_of_one(expect: &str) -> Expect {
    let text = format!("// RUN: --kernel k --global 1\n{expect}");
    let mut cases = parse_case_file("one.pisa", &text).unwrap();
    cases.remove(0).expect.remove(0)
}
