//! `printf` from kernels (`%printfbuffer`, docs/abi.md "The printf buffer"):
//! tests/run/printf.pisa writes its records as Intel's compilers do; the
//! runtime gives it a buffer and decodes it after the launch, on the cpu
//! device and on the Vulkan device (validation layer on), through the
//! library and through `pisa run`.

use pisa_interp::CpuDevice;
use pisa_vk_runtime::printf::PrintfOutput;
use pisa_vk_runtime::values::{self, ArgSpec};
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const INPUT: &str = "buf:f32:0.5,1.25,-2,3.14159,100";

/// What the program prints for INPUT and n = 5, in the order the cpu device
/// runs the work-items (one after another: item 0 prints both its records
/// first).
const EXPECTED: [&str; 6] = [
    "item 0: x=0.500",
    "pisa has 5000000000 items, ok",
    "item 1: x=1.250",
    "item 2: x=-2.000",
    "item 3: x=3.142",
    "item 4: x=100.000",
];

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn run_on(dev: &mut dyn Device, file: &str, kernel: &str, args: &[&str]) -> Option<PrintfOutput> {
    let src = std::fs::read_to_string(root(file)).unwrap();
    let m = pisa_translator::assemble(file, &src).unwrap_or_else(|d| panic!("{d}"));
    let prog = dev.load(&m).unwrap();
    let mut bytes = Vec::new();
    for a in args {
        match values::parse_arg(a).unwrap() {
            ArgSpec::Scalar(b) => bytes.push(b),
            ArgSpec::Buffer(_, b) => {
                let id = dev.alloc_buffer(b.len() as u64).unwrap();
                dev.upload(id, 0, &b).unwrap();
                bytes.push(dev.buffer_address(id).unwrap().to_le_bytes().to_vec());
            }
        }
    }
    dev.launch(&Launch {
        program: prog,
        kernel: kernel.into(),
        range: NdRange::d1(8).local([4, 1, 1]),
        args: bytes,
    })
    .unwrap()
    .printf
}

fn vulkan() -> Runtime {
    Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timeout: Duration::from_secs(60),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

fn sorted(lines: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn the_cpu_device_prints_in_the_order_written() {
    let out = run_on(
        &mut CpuDevice::new(),
        "tests/run/printf.pisa",
        "hello",
        &[INPUT, "u32:5"],
    )
    .expect("a kernel that reads %printfbuffer prints");
    assert_eq!(out.lines(), EXPECTED);
    assert_eq!(out.records, 6);
    assert!(out.problems().is_empty(), "{:?}", out.problems());
}

#[test]
fn the_vulkan_device_prints_the_same_records() {
    let mut rt = vulkan();
    let out = run_on(&mut rt, "tests/run/printf.pisa", "hello", &[INPUT, "u32:5"])
        .expect("a kernel that reads %printfbuffer prints");
    // work-items run in another order on a GPU: the same lines, each whole
    assert_eq!(sorted(&out.lines()), sorted(&EXPECTED));
    assert!(out.problems().is_empty(), "{:?}", out.problems());
    // a second launch starts from an empty buffer again
    let again = run_on(&mut rt, "tests/run/printf.pisa", "hello", &[INPUT, "u32:2"]).unwrap();
    assert_eq!(
        sorted(&again.lines()),
        sorted(&[
            "item 0: x=0.500",
            "item 1: x=1.250",
            "pisa has 2000000000 items, ok"
        ])
    );
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn kernels_that_cannot_print_report_no_output() {
    for dev in [
        &mut CpuDevice::new() as &mut dyn Device,
        &mut vulkan() as &mut dyn Device,
    ] {
        let out = run_on(
            dev,
            "tests/run/vadd.pisa",
            "vadd",
            &["buf:u32:1,2", "buf:u32:3,4", "buf:u32:zeros:2", "u32:2"],
        );
        assert!(out.is_none(), "{}: {out:?}", dev.device_info().name);
    }
}

/// `pisa run` prints the kernel's output on stdout before its own report;
/// `--json` carries the lines; an overflowing buffer is a warning naming
/// the bytes needed, with the records that fit kept.
#[test]
fn pisa_run_prints_and_reports_overflow() {
    for device in ["cpu", "0"] {
        let run = |extra: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
                .args(["run", &root("tests/run/printf.pisa"), "--kernel", "hello"])
                .args(["--global", "8", "--local", "8", "--device", device])
                .args(["--arg", INPUT, "--arg", "u32:5"])
                .args(extra)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            (
                String::from_utf8(out.stdout).unwrap(),
                String::from_utf8(out.stderr).unwrap(),
            )
        };
        let (stdout, stderr) = run(&[]);
        let printed: Vec<&str> = stdout.lines().take(6).collect();
        assert_eq!(sorted(&printed), sorted(&EXPECTED), "{device}: {stdout}");
        assert!(stdout.lines().nth(6).unwrap().starts_with("ran @hello"));
        assert!(!stderr.contains("warning"), "{device}: {stderr}");

        // 4 + 24 + 24 bytes fit in 64 whatever the order (every record is at
        // least 24 bytes); the kernel's records need 4 + 5 x 24 + 48
        let (stdout, stderr) = run(&["--json", "--printf-buffer", "64"]);
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let lines: Vec<&str> = v["printf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert!(
            (1..=2).contains(&lines.len()) && lines.iter().all(|l| EXPECTED.contains(l)),
            "{device}: {lines:?}"
        );
        let problem = "needed 172 bytes, the buffer has 64";
        assert!(
            v["printf_problems"][0].as_str().unwrap().contains(problem),
            "{device}: {v}"
        );
        assert!(stderr.contains(problem), "{device}: {stderr}");
    }
}
