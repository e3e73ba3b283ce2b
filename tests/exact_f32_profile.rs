//! Issue "Numerics on every device", item 1: under the profile of an Apple M1 (MoltenVK
//! 0.2.2209, no `shaderFloat64`) the run cases with exact f32 operations (`fmad.f`, directed
//! rounding, quotients and roots) run with the exact f32 library (`ir::exactf32`) and give the
//! reference device's outputs, where they were refused for lacking f64 (exit 3). Items 2 and 4:
//! the same for `.hf`/`.bf` and rounded conversions (`tests/run/directed_f16.pisa`), and
//! `--numerics f32|f64` forcing either path.

#[path = "common/run_case.rs"]
mod run_case;

use run_case::{check_json, command, failures_under_profile, parse_case_file, root};

const M1: &str = "../shared/device-profiles/apple_m1_0_2_2209_macos_26_5_1.json";

#[test]
fn exact_f32_run_cases_pass_without_f64() {
    let mut failures = Vec::new();
    for file in [
        "tests/run/fmad_exact.pisa",
        "tests/run/directed_f32.pisa",
        "tests/run/directed_f16.pisa",
    ] {
        let text = std::fs::read_to_string(root(file)).unwrap();
        for c in parse_case_file(file, &text).unwrap() {
            failures.extend(failures_under_profile(&c, M1));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `pisa run --numerics`: `f32` gives the same outputs on lavapipe (which has f64) as the
/// device's own choice, `f64` is refused (exit 3) under the M1 profile, naming shaderFloat64;
/// `pisa spirv --numerics f32` emits no `Float64` capability where `f64` does.
#[test]
fn numerics_option() {
    let file = "tests/run/directed_f16.pisa";
    let text = std::fs::read_to_string(root(file)).unwrap();
    let c = &parse_case_file(file, &text).unwrap()[0];
    let run = |extra: &[&str]| {
        let mut cmd = command(c);
        cmd.env_remove("PISA_SPIRV_OPTIONS")
            .env_remove("PISA_DEVICE_PROFILE")
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .args(extra);
        cmd.output().unwrap()
    };
    for numerics in ["f32", "f64"] {
        let out = run(&["--numerics", numerics]);
        assert!(
            out.status.success(),
            "--numerics {numerics}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = check_json(c, &json, numerics);
        assert!(f.is_empty(), "{f:#?}");
    }
    let out = run(&["--numerics", "f64", "--profile", &root(M1)]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("shaderFloat64") && err.contains("--numerics f64"),
        "{err}"
    );
    let out = run(&["--numerics", "f16"]);
    assert_eq!(out.status.code(), Some(2), "a bad value is a usage error");
    // the module `pisa spirv` writes
    let spirv = |numerics: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisa"))
            .args(["spirv", "--dis", "--numerics", numerics, &root(file)])
            .env_remove("PISA_DEVICE_PROFILE")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).contains("OpCapability Float64")
    };
    assert!(!spirv("f32"));
    assert!(spirv("f64"));
}
