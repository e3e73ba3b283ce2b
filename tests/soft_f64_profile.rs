//! Issue "Numerics on every device", item 3: under the profile of an Apple M1 (MoltenVK
//! 0.2.2015, no `shaderFloat64`) the run cases with `.df` arithmetic, comparisons, `fmin`/
//! `fmax`, `fabs`, `fneg` and the conversions (`f2i`, `i2f`, `fext`, `ftrunc`, `frnd`) run with the soft-double library (`ir::softf64`) and give the
//! reference device's outputs, where they were refused for lacking f64 (exit 3).

#[path = "common/run_case.rs"]
mod run_case;

use run_case::{failures_under_profile, parse_case_file, root};

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
    ] {
        let text = std::fs::read_to_string(root(file)).unwrap();
        for c in parse_case_file(file, &text).unwrap() {
            failures.extend(failures_under_profile(&c, M1));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
