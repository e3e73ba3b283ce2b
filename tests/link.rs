//! Linking (`.export`/`.import`, spec 06 §2.5.2, 08 §4.3.1, 10 §6.1): a
//! program split into two modules (`tests/link/`) runs on the Vulkan and
//! the cpu device through the library and the command line, `pisa link`
//! prints a module that checks and runs the same, and link errors are
//! located diagnostics with exit status 1. The rules themselves, one by
//! one, are unit tests of `translator/src/link/`.

mod common;

use pisa_translator::link::Input;
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::process::Command;

const FILES: [&str; 2] = ["tests/link/main.pisa", "tests/link/lib.pisa"];
/// out[i] = (table[i % 4] * 3 + 100) * 1000 + table[i % 4] + 7
const EXPECTED: [u32; 8] = [
    130017, 160027, 190037, 220047, 130017, 160027, 190037, 220047,
];

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn sources() -> Vec<(String, String)> {
    FILES
        .iter()
        .map(|f| (f.to_string(), std::fs::read_to_string(root(f)).unwrap()))
        .collect()
}

fn inputs(sources: &[(String, String)]) -> Vec<Input<'_>> {
    sources
        .iter()
        .map(|(name, text)| Input { name, text })
        .collect()
}

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.env("PISA_VALIDATION", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs the split program's kernel on a device and returns its output.
fn run_on(device: &mut dyn Device) -> (Vec<u32>, Vec<u8>) {
    let src = sources();
    let prog = device.load_sources(&inputs(&src)).unwrap();
    let out = device.alloc_buffer(32).unwrap();
    device.upload(out, 0, &[0; 32]).unwrap();
    let address = device.buffer_address(out).unwrap();
    device
        .launch(&Launch {
            program: prog,
            kernel: "k".into(),
            range: NdRange {
                global: [8, 1, 1],
                local: Some([8, 1, 1]),
                offset: [0; 3],
                dims: 1,
            },
            args: vec![address.to_le_bytes().to_vec()],
        })
        .unwrap();
    let bytes = device.download(out).unwrap();
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // the library's exported table, by the host name it gives it
    (words, device.read_global(prog, "lookup_table").unwrap())
}

fn table_bytes() -> Vec<u8> {
    [10u32, 20, 30, 40]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

#[test]
fn a_program_of_two_modules_runs_on_vulkan() {
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    let (out, table) = run_on(&mut rt);
    assert_eq!(out, EXPECTED);
    assert_eq!(table, table_bytes());
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn a_program_of_two_modules_runs_on_the_cpu_device() {
    let (out, table) = run_on(&mut pisa_interp::CpuDevice::new());
    assert_eq!(out, EXPECTED);
    assert_eq!(table, table_bytes());
}

#[test]
fn the_linked_program_passes_spirv_val() {
    let src = sources();
    let m = pisa_translator::link::link(&inputs(&src)).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val:\n{e}"));
    }
}

/// The cpu device names the file and line a fault happened at, in the
/// module the user wrote (not in the linked text).
#[test]
fn run_time_errors_point_into_the_module_they_happen_in() {
    let mut src = sources();
    // lookup(j) reads table[j * 4]: out of bounds for j > 0
    src[1].1 = src[1].1.replace("shl.32b %j, %j, 2;", "shl.32b %j, %j, 4;");
    let mut cpu = pisa_interp::CpuDevice::new();
    let prog = cpu.load_sources(&inputs(&src)).unwrap();
    let out = cpu.alloc_buffer(32).unwrap();
    let address = cpu.buffer_address(out).unwrap();
    let e = cpu
        .launch(&Launch {
            program: prog,
            kernel: "k".into(),
            range: NdRange {
                global: [8, 1, 1],
                local: Some([8, 1, 1]),
                offset: [0; 3],
                dims: 1,
            },
            args: vec![address.to_le_bytes().to_vec()],
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("tests/link/lib.pisa:19:3: `ld.global.32b %v, [@table + %j];`"),
        "{e}"
    );
}

#[test]
fn the_library_api_reports_link_errors() {
    let mut src = sources();
    src[1].1 = src[1].1.replace(".export .function", ".function");
    let e = pisa_interp::CpuDevice::new()
        .load_sources(&inputs(&src))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("error[link-unresolved]: unresolved import `@lookup`"),
        "{e}"
    );
    assert!(e.contains("--> tests/link/main.pisa:7:24"), "{e}");
}

fn run_json(out: std::process::Output) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cli_output(json: &serde_json::Value) -> Vec<u64> {
    json["args"][0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn pisa_run_links_its_files() {
    for device in [None, Some("cpu")] {
        let mut cmd = pisa();
        cmd.arg("run")
            .args(FILES)
            .args(["--kernel", "k", "--global", "8", "--local", "8"])
            .args(["--arg", "buf:u32:zeros:8", "--json"]);
        if let Some(d) = device {
            cmd.args(["--device", d]);
        }
        let json = run_json(cmd.output().unwrap());
        let want: Vec<u64> = EXPECTED.iter().map(|&v| v as u64).collect();
        assert_eq!(cli_output(&json), want, "{device:?}");
    }
}

#[test]
fn pisa_link_prints_a_module_that_runs_the_same() {
    let dir = std::env::temp_dir().join(format!("pisa-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let linked = dir.join("linked.pisa");
    let out = pisa()
        .arg("link")
        .args(FILES)
        .arg("-o")
        .arg(&linked)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&linked).unwrap();
    assert!(!text.contains(".import"), "{text}");
    // lib.pisa's internal @scale and @bias are renamed, main.pisa's are not
    for name in ["@scale.2", "@bias.2", "@scale]", "@bias("] {
        assert!(text.contains(name), "{name}:\n{text}");
    }
    // the same text on standard output
    let out = pisa().arg("link").args(FILES).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
    let check = pisa().arg("check").arg(&linked).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let json = run_json(
        pisa()
            .arg("run")
            .arg(&linked)
            .args(["--kernel", "k", "--global", "8", "--local", "8"])
            .args(["--arg", "buf:u32:zeros:8", "--json", "--device", "cpu"])
            .output()
            .unwrap(),
    );
    let want: Vec<u64> = EXPECTED.iter().map(|&v| v as u64).collect();
    assert_eq!(cli_output(&json), want);
    // the output may not replace an input
    let out = pisa()
        .arg("link")
        .args(FILES)
        .args(["-o", FILES[1]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pisa_check_links_its_files_unless_told_each() {
    // main.pisa alone is a valid module; with its library it is a program
    let out = pisa().arg("check").args(FILES).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = pisa()
        .args(["check", "--target", "vulkan"])
        .args(FILES)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // two copies of main.pisa: two kernels named @k
    let out = pisa().args(["check", FILES[0], FILES[0]]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[link-duplicate]: two kernels are named `@k`"),
        "{stderr}"
    );
    let out = pisa()
        .args(["check", "--each", FILES[0], FILES[0]])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // main.pisa without its library: the import is unresolved (JSON too)
    let lone = std::env::temp_dir().join(format!("pisa-link-empty-{}.pisa", std::process::id()));
    std::fs::write(&lone, ".version 0.1;\n.target 100;\n").unwrap();
    let out = pisa()
        .args(["check", "--json", FILES[0]])
        .arg(&lone)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["code"], "link-unresolved");
    assert_eq!(first["file"], FILES[0]);
    assert_eq!(
        (first["line"].as_u64(), first["col"].as_u64()),
        (Some(7), Some(24))
    );
    // pisa run and pisa spirv stop the same way, with exit status 1
    for args in [
        &["spirv", "--dis"][..],
        &[
            "run",
            "--kernel",
            "k",
            "--global",
            "1",
            "--arg",
            "buf:u32:zeros:1",
        ][..],
    ] {
        let out = pisa().args(args).arg(FILES[0]).arg(&lone).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("unresolved import `@lookup`"),
            "{args:?}: {stderr}"
        );
    }
    let _ = std::fs::remove_file(&lone);
}
