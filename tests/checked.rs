//! Checked mode on a Vulkan device (`pisa run --check`,
//! `RuntimeOptions::checked_memory`, the translator's `ir::checked` pass
//! and `spirv::checked`):
//! every bad access of tests/run/bad_accesses.pisa is reported with the
//! instruction, the work-item, the space, the size and the kind the
//! reference device reports, nothing outside the kernel's buffers is
//! written, and correct accesses are untouched (tests/run_cases.rs also
//! runs every run case in checked mode).

use pisa_interp::CpuDevice;
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const FILE: &str = "tests/run/bad_accesses.pisa";

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn checked_runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        checked_memory: true,
        timeout: Duration::from_secs(60),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// Launches `kernel` over `global` work-items in groups of 4 with a buffer
/// of 4 words (then a neighbour buffer of 4 words): the launch's error, if
/// any, and both buffers afterwards.
fn launch(dev: &mut dyn Device, kernel: &str, global: u32) -> (Option<String>, Vec<u32>, Vec<u32>) {
    let src = std::fs::read_to_string(root(FILE)).unwrap();
    let m = pisa_translator::assemble(FILE, &src).unwrap_or_else(|d| panic!("{d}"));
    let prog = dev.load(&m).unwrap();
    let a = dev.alloc_buffer(16).unwrap();
    dev.upload(a, 0, &[0; 16]).unwrap();
    let b = dev.alloc_buffer(16).unwrap();
    dev.upload(b, 0, &[0xAB; 16]).unwrap();
    let err = dev
        .launch(&Launch {
            program: prog,
            kernel: kernel.into(),
            range: NdRange::d1(global).local([4, 1, 1]),
            args: vec![dev.buffer_address(a).unwrap().to_le_bytes().to_vec()],
        })
        .err()
        .map(|e| e.to_string());
    let words = |id| {
        dev.download(id)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<u32>>()
    };
    (err, words(a), words(b))
}

/// The message without the device address, which differs between devices
/// (arena offsets stay: they are the same everywhere).
fn without_device_address(msg: &str) -> String {
    match msg.find("device address 0x") {
        Some(i) => {
            let rest = &msg[i + "device address 0x".len()..];
            let end = rest
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(rest.len());
            format!("{}device address X{}", &msg[..i], &rest[end..])
        }
        None => msg.to_string(),
    }
}

#[test]
fn bad_accesses_are_reported_as_the_reference_device_reports_them() {
    let mut rt = checked_runtime();
    // (kernel, work-items, what both devices must say)
    let cases = [
        // only work-item 4 (of group 1) is past the 4-word buffer
        (
            "global_past_end",
            5,
            "bad_accesses.pisa:19:2: `st.global.32b [%p], %id;`: out-of-bounds access of 4 bytes at device address X (work-item [0, 0, 0] of work-group [1, 0, 0]",
        ),
        (
            "shared_past_end",
            1,
            "bad_accesses.pisa:30:2: `ld.shared.32b %v, [@s + 16];`: out-of-bounds access of 4 bytes at shared address 0x10 (work-item [0, 0, 0] of work-group [0, 0, 0]",
        ),
        (
            "private_misaligned",
            1,
            "bad_accesses.pisa:42:2: `ld.private.32b %v, [@q + 2];`: misaligned access of 4 bytes at private address 0x2 (work-item [0, 0, 0] of work-group [0, 0, 0]",
        ),
        (
            "generic_null",
            1,
            "bad_accesses.pisa:54:2: `ld.generic.32b %v, [%n];`: out-of-bounds access of 4 bytes at device address X (work-item [0, 0, 0] of work-group [0, 0, 0]",
        ),
        // the first of two: the work-item goes on after it in checked mode
        (
            "two_bad",
            1,
            "bad_accesses.pisa:94:2: `ld.private.32b %v, [@r2 + 6];`: misaligned access of 4 bytes at private address 0x12 (work-item [0, 0, 0] of work-group [0, 0, 0]",
        ),
        (
            "atomic_past_end",
            1,
            "bad_accesses.pisa:67:2: `iatom.global.add.32b %v, [%p + 16], %v;`: out-of-bounds access of 4 bytes at device address X (work-item [0, 0, 0] of work-group [0, 0, 0]",
        ),
    ];
    for (kernel, global, want) in cases {
        let (cpu, ..) = launch(&mut CpuDevice::new(), kernel, global);
        let cpu = without_device_address(&cpu.unwrap_or_else(|| panic!("{kernel}: cpu ran")));
        assert!(cpu.contains(want), "{kernel}: cpu device: {cpu}");
        let (vk, a, b) = launch(&mut rt, kernel, global);
        let vk = without_device_address(&vk.unwrap_or_else(|| panic!("{kernel}: vulkan ran")));
        assert!(
            vk.contains(want) && vk.ends_with("; found by checked mode)"),
            "{kernel}: checked mode: {vk}"
        );
        // the bad store went to the sink: the neighbouring buffer is whole,
        // and the good stores of the launch were made
        assert_eq!(b, [0xABAB_ABAB; 4], "{kernel}");
        if kernel == "global_past_end" {
            assert_eq!(a, [0, 1, 2, 3]);
        }
    }
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn good_accesses_run_as_without_checks() {
    let (err, a, _) = launch(&mut checked_runtime(), "all_good", 8);
    assert_eq!(err, None);
    // the global's two words, then 8 atomic adds of 5
    assert_eq!(a, [1, 2, 0, 40]);
    let (err, cpu, _) = launch(&mut CpuDevice::new(), "all_good", 8);
    assert_eq!((err, cpu), (None, a));
}

/// The device check's binary search finds every live buffer whatever their
/// number and position in the table, at every search depth the runtime
/// picks (4 steps while at most 14 buffers are live, 7 up to 126, then
/// 10): `all_good` on each of 1..=20, 40 and 130 live buffers reports
/// nothing and writes each.
#[test]
fn every_live_buffer_is_found_by_the_search() {
    let mut rt = checked_runtime();
    let src = std::fs::read_to_string(root(FILE)).unwrap();
    let m = pisa_translator::assemble(FILE, &src).unwrap_or_else(|d| panic!("{d}"));
    let prog = rt.load(&m).unwrap();
    let mut live = Vec::new();
    for n in (1..=20).chain([40, 130]) {
        while live.len() < n {
            let id = rt.alloc_buffer(16).unwrap();
            rt.upload(id, 0, &[0; 16]).unwrap();
            live.push(id);
        }
        for &id in &live {
            rt.upload(id, 0, &[0; 16]).unwrap();
            let launch = Launch {
                program: prog,
                kernel: "all_good".into(),
                range: NdRange::d1(1),
                args: vec![rt.buffer_address(id).unwrap().to_le_bytes().to_vec()],
            };
            if let Err(e) = rt.launch(&launch) {
                panic!("{n} live buffers: {e}");
            }
            let words: Vec<u32> = rt
                .download(id)
                .unwrap()
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(words, [1, 2, 0, 5], "{n} live buffers");
        }
    }
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

#[test]
fn pisa_run_check_fails_the_run_and_spirv_cannot_be_checked() {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["run", &root(FILE), "--kernel", "global_past_end"])
        .args(["--global", "5", "--local", "4", "--check"])
        .args(["--arg", "buf:u32:zeros:4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`st.global.32b [%p], %id;`: out-of-bounds access of 4 bytes")
            && stderr.contains("found by checked mode"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["run", "--spirv", "x.spv", "--kernel", "k", "--global", "1"])
        .arg("--check")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot check a SPIR-V module"), "{stderr}");
}
