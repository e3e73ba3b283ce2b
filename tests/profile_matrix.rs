//! The run cases under device profiles (issue "Any Vulkan GPU", item 6): every case of
//! tests/run/ (docs/run-cases.md) and of `../shared/corpus/llvm-run/` runs through `pisa run
//! --json --profile FILE` on lavapipe with the validation layer on (`PISA_VALIDATION=1`), once
//! for each group of `../shared/device-profiles/` that PISA treats alike on lavapipe
//! (`pisa_device::profiles::run_groups`), under the group's representative. Each run must exit 0
//! with exactly the expected outputs (the cpu device's, which tests/run_cases.rs and
//! tests/corpus_run.rs check), or exit 3 with a message naming a feature the restricted device
//! lacks or a limit; any other exit status, any validation message, a wrong output, or a refusal
//! for a feature the profile has fails the test, naming the case, the profile and the line.
//!
//! `cargo test --test profile_matrix` runs every group (26 on lavapipe of Mesa 22.3.6; 4 to 6
//! minutes on a 2-core machine, release or debug); `PISA_PROFILE_MATRIX=subset` runs four of
//! them (`SUBSET`, about a minute), and `PISA_PROFILE_MATRIX=FILE,FILE` the groups of the files
//! named (relative to `../shared/device-profiles/`). tools/profile-matrix.sh runs it in release
//! with the output shown: the groups, a table of each profile's passed and refused cases, and
//! the refusals by reason.

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/run_case.rs"]
mod run_case;

use pisa_device::profiles::{run_groups, RunGroup, RunKey};
use pisa_device::{DeviceDescription, DeviceInfo};
use run_case::{cases, check_json, command, root, Case};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const PROFILES: &str = "../shared/device-profiles";

/// A quick part of the matrix (`PISA_PROFILE_MATRIX=subset`), four groups, each by a file in
/// it, and what it stands for: everything lavapipe offers, no f64 and no 64-bit atomics (Apple
/// under MoltenVK), no f16 (NVIDIA Pascal), no i64 (Vulkan Roadmap 2022).
const SUBSET: &[(&str, &str)] = &[
    (
        "nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json",
        "everything",
    ),
    ("apple_m1_0_2_2015_osx_14_3.json", "no f64, no a64b"),
    (
        "nvidia_geforce_gtx_1060_537_13_0_0_windows_10.json",
        "no f16",
    ),
    ("requirements/VP_KHR_roadmap_2022.json", "no i64"),
];

/// How `pisa run` names llvmpipe's loop cap (`RuntimeError::LoopLimit`).
const LOOP_CAP: &str = "the driver stopped a loop of the kernel early";

/// The runs tried again after reaching llvmpipe's loop cap.
static RETRIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The limits whose names a refusal may give as its reason.
const LIMITS: &[&str] = &[
    "maxComputeSharedMemorySize",
    "maxComputeWorkGroupInvocations",
    "maxComputeWorkGroupSize",
    "maxPushConstantsSize",
];

/// Every file of `../shared/device-profiles/` and its `requirements/` (each file's first
/// profile), by its path relative to that folder, sorted.
fn descriptions() -> Vec<(String, DeviceDescription)> {
    let dir = Path::new(&root(PROFILES)).to_path_buf();
    let mut out = Vec::new();
    for sub in ["", "requirements/"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") {
                let rel = format!("{sub}{name}");
                let d = DeviceDescription::from_profile_file(dir.join(&rel))
                    .unwrap_or_else(|e| panic!("{rel}: {e}"));
                out.push((rel, d));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The default Vulkan device, when it is lavapipe (the groups are computed for it).
fn lavapipe() -> Option<DeviceInfo> {
    let rt = pisa_vk_runtime::Runtime::new(Default::default()).ok()?;
    let info = rt.device_info().clone();
    info.name.starts_with("llvmpipe").then_some(info)
}

/// The groups of every profile on `real`. Its `maxComputeWorkGroupSize` is not in the
/// contract's `DeviceInfo`: each dimension is bounded by its `maxComputeWorkGroupInvocations`
/// instead (lavapipe's is 1024 in each dimension, as many as its invocations).
fn groups(real: &DeviceInfo) -> Vec<RunGroup> {
    let descs = descriptions();
    assert_eq!(descs.len(), 62, "58 reports and 4 requirement profiles");
    let n = real.max_workgroup_invocations;
    run_groups(descs.iter().map(|(n, d)| (n.as_str(), d)), real, [n; 3])
}

/// Whether the restricted device has a feature, by the name a refusal gives it; `None` for a
/// name the key does not hold.
fn key_has(k: &RunKey, feature: &str) -> Option<bool> {
    Some(match feature {
        "shaderFloat64" => k.f64,
        "shaderFloat16" => k.f16,
        "shaderInt64" => k.i64,
        "shaderInt16" => k.i16,
        "shaderInt8" => k.i8,
        "storageBuffer16BitAccess" => k.storage16,
        "storageBuffer8BitAccess" => k.storage8,
        "bufferDeviceAddress" => k.bda,
        "shaderBufferInt64Atomics" => k.atomic64_buffer,
        _ => return None,
    })
}

/// What became of one run.
enum Outcome {
    Passed,
    /// Exit 3, with the feature or limit the message names.
    Refused(String),
}

/// The features a refusal may name, as the key holds them ([`key_has`]).
const FEATURES: &[&str] = &[
    "shaderFloat64",
    "shaderFloat16",
    "shaderInt64",
    "shaderInt16",
    "shaderInt8",
    "storageBuffer16BitAccess",
    "storageBuffer8BitAccess",
    "bufferDeviceAddress",
    "shaderBufferInt64Atomics",
];

/// The reason of a refusal (exit 3): the feature the restricted device lacks (which the key
/// must lack too: `the device lacks `X``), else the features a form the device cannot compute
/// needs (`unsupported on this device: ... needs shaderFloat64 and shaderInt64`, of which the
/// key must lack one), else the limit the message names.
fn refusal_reason(stderr: &str, key: &RunKey) -> Result<String, String> {
    if let Some(rest) = stderr.split("the device lacks `").nth(1) {
        let feature = rest.split('`').next().unwrap_or_default();
        return match key_has(key, feature) {
            Some(false) => Ok(feature.to_string()),
            Some(true) => Err(format!("refused for `{feature}`, which the profile has")),
            None => Err(format!(
                "refused for `{feature}`, a feature the matrix does not know"
            )),
        };
    }
    if let Some(what) = stderr.split("unsupported on this device: ").nth(1) {
        let named: Vec<&str> = FEATURES
            .iter()
            .copied()
            .filter(|f| what.contains(f))
            .collect();
        let lacking: Vec<&str> = named
            .iter()
            .copied()
            .filter(|f| key_has(key, f) == Some(false))
            .collect();
        return match (named.is_empty(), lacking.is_empty()) {
            (true, _) => Err("exit 3 naming no feature".into()),
            (false, true) => Err(format!(
                "refused for {}, which the profile has",
                named.join(" and ")
            )),
            (false, false) => Ok(format!(
                "{} (unsupported on this device)",
                lacking.join("+")
            )),
        };
    }
    LIMITS
        .iter()
        .find(|l| stderr.contains(*l))
        .map(|l| l.to_string())
        .ok_or_else(|| "exit 3 without naming a missing feature or a limit".to_string())
}

/// Runs `cmd` (a `pisa run --json` with the validation layer on) under `profile` and judges
/// it; `check` compares the JSON output with the expected outputs. The error names `at` (the
/// case), the profile, and the command.
fn judge(
    mut cmd: Command,
    at: &str,
    profile: &str,
    key: &RunKey,
    check: impl FnOnce(&serde_json::Value) -> Vec<String>,
) -> Result<Outcome, String> {
    cmd.arg("--profile")
        .arg(root(&format!("{PROFILES}/{profile}")))
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE");
    let shown = format!("{cmd:?}");
    let mut out = cmd.output().unwrap();
    // llvmpipe's loop cap counts spin-lock iterations (atomic_128_count.pisa), which other
    // work on the machine's cores lengthens: the launch then fails (exit 2, naming the cap),
    // never with a wrong result. Such a run is tried again, twice at most.
    for _ in 0..2 {
        if out.status.code() != Some(2) || !String::from_utf8_lossy(&out.stderr).contains(LOOP_CAP)
        {
            break;
        }
        RETRIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        out = cmd.output().unwrap();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let fail = |why: String| Err(format!("{at}: under {profile}: {why}\n  {shown}\n{stderr}"));
    if stderr.contains("vulkan validation") {
        return fail("a validation message".into());
    }
    match out.status.code() {
        Some(0) => {
            let json: serde_json::Value = match serde_json::from_slice(&out.stdout) {
                Ok(j) => j,
                Err(e) => return fail(format!("the output is not JSON: {e}")),
            };
            let failures = check(&json);
            if failures.is_empty() {
                Ok(Outcome::Passed)
            } else {
                fail(failures.join("\n"))
            }
        }
        Some(3) => match refusal_reason(&stderr, key) {
            Ok(r) => Ok(Outcome::Refused(r)),
            Err(why) => fail(why),
        },
        _ => fail(format!("{}", out.status)),
    }
}

/// One run case under a profile.
fn run_case(c: &Case, profile: &str, key: &RunKey) -> Result<Outcome, String> {
    judge(command(c), &c.at, profile, key, |json| {
        check_json(c, json, &format!("--profile {profile}"))
    })
}

/// The case names of `../shared/corpus/llvm-run/` (`NAME.pisa` with `NAME.json`), sorted;
/// empty when the corpus is absent.
fn corpus_names() -> Vec<String> {
    let dir = root("../shared/corpus/llvm-run");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {dir} is absent (the shared corpus lives beside the checkout)");
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json").then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    names.sort();
    names
}

/// One corpus case under a profile: every buffer passed as its bytes (`buf:u8:...`), the
/// outputs compared as tests/corpus_run.rs compares them (bits; any NaN for `nan`).
fn run_corpus_case(name: &str, profile: &str, key: &RunKey) -> Result<Outcome, String> {
    let dir = root("../shared/corpus/llvm-run");
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap())
            .unwrap();
    let size = |v: &serde_json::Value| -> String {
        let d: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap().to_string())
            .collect();
        if d[1..].iter().all(|x| x == "1") {
            d[0].clone()
        } else {
            d.join(",")
        }
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pisa"));
    cmd.env("PISA_VALIDATION", "1").args([
        "run",
        &format!("{dir}/{name}.pisa"),
        "--kernel",
        spec["kernel"].as_str().unwrap(),
        "--global",
        &size(&spec["global"]),
        "--local",
        &size(&spec["local"]),
        "--json",
    ]);
    for a in spec["args"].as_array().unwrap() {
        let bytes = corpus::arg_bytes(a);
        let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        cmd.arg(format!("--arg=buf:u8:{}", list.join(",")));
    }
    let at = format!("../shared/corpus/llvm-run/{name}.json");
    judge(cmd, &at, profile, key, |json| {
        let mut failures = Vec::new();
        for e in spec["expect"].as_array().unwrap() {
            let i = e["arg"].as_u64().unwrap();
            let Some(bytes) = json["args"].as_array().and_then(|a| {
                a.iter()
                    .find(|a| a["index"] == i)
                    .and_then(|a| a["data"].as_array())
                    .map(|d| {
                        d.iter()
                            .map(|v| v.as_u64().unwrap() as u8)
                            .collect::<Vec<u8>>()
                    })
            }) else {
                failures.push(format!("no arg {i} in the output"));
                continue;
            };
            let t = e["type"].as_str().unwrap();
            let n = corpus::elem_size(t);
            for (k, want) in e["data"].as_array().unwrap().iter().enumerate() {
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(&bytes[k * n..k * n + n]);
                let got = u64::from_le_bytes(w);
                let ok = match (t, want.as_str()) {
                    ("f32", Some("nan")) => f32::from_bits(got as u32).is_nan(),
                    ("f64", Some("nan")) => f64::from_bits(got).is_nan(),
                    ("f32" | "f64", _) => {
                        e["bits"][k]
                            .as_str()
                            .map(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap())
                            == Some(got)
                    }
                    _ => {
                        want.as_u64()
                            .or_else(|| want.as_i64().map(|v| v as u64))
                            .map(|v| {
                                if n == 8 {
                                    v
                                } else {
                                    v & ((1u64 << (8 * n)) - 1)
                                }
                            })
                            == Some(got)
                    }
                };
                if !ok {
                    failures.push(format!(
                        "element {k} of arg {i}: expected {want}, got 0x{got:x}"
                    ));
                }
            }
        }
        failures
    })
}

/// The groups `PISA_PROFILE_MATRIX` selects: every group when it is unset, empty or `all`;
/// `SUBSET`'s with `subset`; else those of the comma-separated files.
fn selected(groups: &[RunGroup]) -> Vec<&RunGroup> {
    let want: Vec<String> = match std::env::var("PISA_PROFILE_MATRIX") {
        Ok(v) if v == "subset" => SUBSET.iter().map(|(f, _)| f.to_string()).collect(),
        Ok(v) if !v.is_empty() && v != "all" => {
            v.split(',').map(|s| s.trim().to_string()).collect()
        }
        _ => return groups.iter().collect(),
    };
    let mut out: Vec<&RunGroup> = Vec::new();
    for f in &want {
        let g = groups
            .iter()
            .find(|g| g.members.contains(f))
            .unwrap_or_else(|| panic!("PISA_PROFILE_MATRIX: {f} is not a file of {PROFILES}"));
        assert!(
            !out.contains(&g),
            "{f} is in the group of {}, already selected",
            g.representative
        );
        out.push(g);
    }
    out
}

/// The matrix: the selected groups' representatives × every run case and corpus case.
#[test]
fn run_cases_under_device_profiles() {
    let Some(real) = lavapipe() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the profile matrix on lavapipe"
        );
        eprintln!("skipped: the default Vulkan device is not lavapipe");
        return;
    };
    let all = groups(&real);
    eprintln!("{} groups of the 62 profiles on {}:", all.len(), real.name);
    for (i, g) in all.iter().enumerate() {
        eprintln!(
            "  {:2}. {} — {} ({} file(s))",
            i + 1,
            g.representative,
            g.key,
            g.members.len()
        );
    }
    let cases = cases();
    let corpus = corpus_names();
    let started = Instant::now();
    let mut failures = Vec::new();
    // profile → (passed, refused, time), and (profile, reason) → refused cases
    let mut rows: Vec<(String, usize, usize, Duration)> = Vec::new();
    let mut refusals: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for g in selected(&all) {
        let p = &g.representative;
        let t = Instant::now();
        let (mut passed, mut refused) = (0, 0);
        let runs = cases
            .iter()
            .map(|c| (c.at.clone(), run_case(c, p, &g.key)))
            .chain(
                corpus
                    .iter()
                    .map(|n| (n.clone(), run_corpus_case(n, p, &g.key))),
            );
        for (at, r) in runs {
            match r {
                Ok(Outcome::Passed) => passed += 1,
                Ok(Outcome::Refused(why)) => {
                    refused += 1;
                    refusals.entry((p.clone(), why)).or_default().push(at);
                }
                Err(e) => failures.push(e),
            }
        }
        rows.push((p.clone(), passed, refused, t.elapsed()));
    }
    eprintln!(
        "\n{} run cases and {} corpus cases under {} profile(s) in {:.0?}:",
        cases.len(),
        corpus.len(),
        rows.len(),
        started.elapsed()
    );
    eprintln!("| profile | passed | refused | time |\n|---|---|---|---|");
    for (p, passed, refused, t) in &rows {
        eprintln!("| {p} | {passed} | {refused} | {t:.1?} |");
    }
    eprintln!(
        "runs tried again after reaching llvmpipe's loop cap: {}",
        RETRIES.load(std::sync::atomic::Ordering::Relaxed)
    );
    eprintln!("\nrefusals:");
    for ((p, why), at) in &refusals {
        eprintln!("  {p}: {why}: {} case(s): {}", at.len(), at.join(" "));
    }
    assert!(
        failures.is_empty(),
        "{} run(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        rows.iter().any(|r| r.1 > 0),
        "no case ran under any profile"
    );
}

/// Every profile is in one group, and `SUBSET`'s files are in distinct groups.
#[test]
fn groups_on_lavapipe() {
    let Some(real) = lavapipe() else {
        eprintln!("skipped: the default Vulkan device is not lavapipe");
        return;
    };
    let all = groups(&real);
    let subset: Vec<&RunGroup> = SUBSET
        .iter()
        .map(|(f, _)| {
            all.iter()
                .find(|g| g.members.iter().any(|m| m == f))
                .unwrap()
        })
        .collect();
    for (i, g) in subset.iter().enumerate() {
        assert!(!subset[..i].contains(g), "{} twice", g.representative);
    }
    let total: usize = all.iter().map(|g| g.members.len()).sum();
    assert_eq!(total, 62);
    eprintln!("| # | representative | key | files |\n|---|---|---|---|");
    for (i, g) in all.iter().enumerate() {
        let files: Vec<&str> = g
            .members
            .iter()
            .map(|m| m.strip_suffix(".json").unwrap_or(m))
            .collect();
        eprintln!(
            "| {} | {} | `{}` | {} |",
            i + 1,
            files[0],
            g.key,
            files.join(", ")
        );
    }
}

/// The judge fails a wrong output, naming the `EXPECT` line and the profile; and a refusal for a
/// feature the profile has, or one that names nothing, is no refusal.
#[test]
fn a_wrong_output_or_a_wrong_refusal_fails() {
    let Some(real) = lavapipe() else {
        eprintln!("skipped: the default Vulkan device is not lavapipe");
        return;
    };
    let all = groups(&real);
    let everything = all.last().unwrap();
    let mut c = cases()
        .into_iter()
        .find(|c| c.at.starts_with("tests/run/shifts.pisa"))
        .unwrap();
    assert!(matches!(
        run_case(&c, &everything.representative, &everything.key),
        Ok(Outcome::Passed)
    ));
    c.expect[0].want[0] ^= 1;
    let e = match run_case(&c, &everything.representative, &everything.key) {
        Err(e) => e,
        Ok(_) => panic!("a wrong output passed"),
    };
    assert!(
        e.starts_with(&format!(
            "{}: under {}: {}: on --profile {}: arg 2: element 0 differs",
            c.at, everything.representative, c.expect[0].at, everything.representative
        )),
        "{e}"
    );
    let apple = all
        .iter()
        .find(|g| {
            g.members
                .iter()
                .any(|m| m == "apple_m1_0_2_2015_osx_14_3.json")
        })
        .unwrap();
    let lacks = |f: &str| {
        format!(
            "error: a.pisa cannot run on this device: the device lacks `{f}`, which `x` needs\n"
        )
    };
    assert_eq!(
        refusal_reason(&lacks("shaderFloat64"), &apple.key).unwrap(),
        "shaderFloat64"
    );
    assert!(refusal_reason(&lacks("shaderFloat16"), &apple.key)
        .unwrap_err()
        .contains("which the profile has"));
    let fmad = "error: a.pisa: unsupported on this device: `fmad.f` rounds once, but this device's fused multiply-add rounds twice, and the exact form needs shaderFloat64 and shaderInt64\n";
    assert_eq!(
        refusal_reason(fmad, &apple.key).unwrap(),
        "shaderFloat64 (unsupported on this device)"
    );
    assert!(refusal_reason(fmad, &everything.key).is_err());
    assert!(refusal_reason("error: something else\n", &apple.key).is_err());
}
