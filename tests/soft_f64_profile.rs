//! Issue "Numerics on every device", item 3: under the profile of an Apple M1 (MoltenVK
//! 0.2.2015, no `shaderFloat64`) the run cases with `.df` arithmetic, comparisons, `fmin`/
//! `fmax`, `fabs`, `fneg` and the conversions (`f2i`, `i2f`, `fext`, `ftrunc`, `frnd`), `frsqrt.fast.df` and the `.df` atomics run with the soft-double library (`ir::softf64`) and give the
//! reference device's outputs, where they were refused for lacking f64 (exit 3).

#[path = "common/run_case.rs"]
mod run_case;

use run_case::{check_json, command, failures_under_profile, parse_case_file, root};

const M1: &str = "../shared/device-profiles/apple_m1_0_2_2015_osx_14_3.json";

#[test]
fn df_run_cases_pass_without_f64() {
    let mut failures = Vec::new();
    for file in [
        "tests/run/atomic_of_float_bits.pisa",
        "tests/run/dsat_nan.pisa",
        "tests/run/fabs_nan.pisa",
        "tests/run/fminmax_nan.pisa",
        "tests/run/fminmax_zeros.pisa",
        // the `.df` conversions
        "tests/run/fconvert_rounding.pisa",
        "tests/run/frnd_even_df.pisa",
        "tests/run/ftrunc_subnormal.pisa",
        "tests/run/float_constant_folds.pisa",
        // `frsqrt.fast.df` and the `.df` atomics (a compare-and-swap loop under the lock
        // table: the M1 has no shaderBufferInt64Atomics)
        "tests/run/frsqrt_df.pisa",
        "tests/run/fatom_df_contended.pisa",
    ] {
        let text = std::fs::read_to_string(root(file)).unwrap();
        for c in parse_case_file(file, &text).unwrap() {
            failures.extend(failures_under_profile(&c, M1));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `pisa run --numerics soft` on lavapipe (which has f64 and 64-bit atomics): `frsqrt.fast.df`
/// and the contended `.df` atomics give the cpu device's outputs (the cases' `EXPECT`s) through
/// the soft-double library, and `pisa spirv --numerics soft` of them declares no `Float64`.
#[test]
fn df_gaps_under_numerics_soft() {
    for file in [
        "tests/run/frsqrt_df.pisa",
        "tests/run/fatom_df_contended.pisa",
    ] {
        let text = std::fs::read_to_string(root(file)).unwrap();
        for c in parse_case_file(file, &text).unwrap() {
            let mut cmd = command(&c);
            cmd.env_remove("PISA_SPIRV_OPTIONS")
                .env_remove("PISA_DEVICE_PROFILE")
                .env("XDG_RUNTIME_DIR", std::env::temp_dir())
                .args(["--numerics", "soft"]);
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                c.at,
                String::from_utf8_lossy(&out.stderr)
            );
            let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let f = check_json(&c, &json, "--numerics soft");
            assert!(f.is_empty(), "{f:#?}");
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisa"))
            .args(["spirv", "--dis", "--numerics", "soft", &root(file)])
            .env_remove("PISA_DEVICE_PROFILE")
            .env_remove("PISA_SPIRV_OPTIONS")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dis = String::from_utf8_lossy(&out.stdout);
        assert!(
            !dis.contains("OpCapability Float64"),
            "{file}: declares Float64"
        );
    }
}
