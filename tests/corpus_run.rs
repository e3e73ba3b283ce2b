//! External execution suite: every case of `../shared/corpus/llvm-run/` (a
//! function printed by Intel's LLVM PISA backend plus a harness kernel, with
//! outputs computed from the LLVM IR) runs on the Vulkan device with the
//! validation layer, and on the cpu device (the reference interpreter), and
//! must produce exactly the expected outputs on both.

use pisa_interp::CpuDevice;
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use serde_json::Value;
use std::path::Path;

#[path = "common/corpus.rs"]
mod corpus;
use corpus::{arg_bytes, elem_size};

/// Cases whose instructions are not lowered yet, with the reason. A case
/// listed here that starts passing fails the test, so the list stays true.
const NOT_YET: &[(&str, &str)] = &[];

fn run_case(rt: &mut dyn Device, dir: &Path, name: &str) -> Result<(), String> {
    let src =
        std::fs::read_to_string(dir.join(format!("{name}.pisa"))).map_err(|e| e.to_string())?;
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let m = pisa_translator::assemble(name, &src).map_err(|d| d.to_string())?;
    let prog = rt.load(&m).map_err(|e| e.to_string())?;
    let mut bufs = Vec::new();
    let mut args = Vec::new();
    for a in spec["args"].as_array().unwrap() {
        let bytes = arg_bytes(a);
        let b = rt
            .alloc_buffer(bytes.len() as u64)
            .map_err(|e| e.to_string())?;
        rt.upload(b, 0, &bytes).map_err(|e| e.to_string())?;
        args.push(rt.buffer_address(b).unwrap().to_le_bytes().to_vec());
        bufs.push(b);
    }
    let g: Vec<u32> = spec["global"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    let l: Vec<u32> = spec["local"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    let range = NdRange {
        global: [g[0], g[1], g[2]],
        local: Some([l[0], l[1], l[2]]),
        offset: [0; 3],
        dims: 1,
    };
    let kernel = spec["kernel"].as_str().unwrap().to_string();
    rt.launch(&Launch {
        program: prog,
        kernel,
        range,
        args,
    })
    .map_err(|e| e.to_string())?;
    for e in spec["expect"].as_array().unwrap() {
        let bytes = rt
            .download(bufs[e["arg"].as_u64().unwrap() as usize])
            .unwrap();
        let t = e["type"].as_str().unwrap();
        let n = elem_size(t);
        for (i, want) in e["data"].as_array().unwrap().iter().enumerate() {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&bytes[i * n..i * n + n]);
            let got = u64::from_le_bytes(w);
            let ok = match (t, want.as_str()) {
                ("f32", Some("nan")) => f32::from_bits(got as u32).is_nan(),
                ("f64", Some("nan")) => f64::from_bits(got).is_nan(),
                ("f32" | "f64", _) => {
                    let bits = e["bits"][i]
                        .as_str()
                        .map(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap());
                    bits == Some(got)
                }
                _ => want.as_u64() == Some(got),
            };
            if !ok {
                return Err(format!(
                    "element {i} of arg {}: expected {want}, got 0x{got:x}",
                    e["arg"]
                ));
            }
        }
    }
    for b in bufs {
        rt.free_buffer(b);
    }
    Ok(())
}

fn corpus_names() -> Option<(std::path::PathBuf, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/llvm-run");
    if !dir.is_dir() {
        eprintln!(
            "SKIPPED: {} is absent (the shared corpus lives beside the checkout)",
            dir.display()
        );
        return None;
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    Some((dir, names))
}

/// Runs every case on `dev`; cases in `not_yet` must fail (with a reason).
fn run_all(dev: &mut dyn Device, not_yet: &[(&str, &str)]) -> Vec<String> {
    let Some((dir, names)) = corpus_names() else {
        return Vec::new();
    };
    let mut report = Vec::new();
    let mut passed = 0;
    for name in &names {
        let r = run_case(dev, &dir, name);
        let expected_fail = not_yet.iter().find(|(n, _)| n == name);
        match (r, expected_fail) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => {
                report.push(format!("{name}: passes now; remove it from the list"))
            }
            (Err(e), None) => report.push(format!("{name}: {e}")),
            (Err(_), Some(_)) => {}
        }
    }
    assert!(
        report.is_empty(),
        "{} of {} cases failed on {}:\n{}",
        report.len(),
        names.len(),
        dev.device_info().name,
        report.join("\n")
    );
    eprintln!(
        "{passed} of {} corpus cases ran with exactly the expected outputs on {}",
        names.len(),
        dev.device_info().name
    );
    assert_eq!(passed + not_yet.len(), names.len());
    report
}

#[test]
fn llvm_run_corpus_produces_expected_outputs() {
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .unwrap();
    run_all(&mut rt, NOT_YET);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer messages: {msgs:#?}");
}

#[test]
fn llvm_run_corpus_produces_expected_outputs_on_the_cpu_device() {
    run_all(&mut CpuDevice::new(), &[]);
}
