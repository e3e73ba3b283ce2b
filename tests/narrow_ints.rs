//! 8- and 16-bit integers held in 32-bit ones, and `.hf` without the 16-bit float type (issue
//! "Any Vulkan GPU", item 2, first bullet; translator `spirv::narrow`, `lower::float16`): with
//! `PISA_SPIRV_OPTIONS=...,no-narrow-ints` and/or `no-float16` on lavapipe, with the validation
//! layer on, every run case gives exactly its `EXPECT` values (the cpu device's, which
//! tests/run_cases.rs checks), or, with `no-narrow-ints` alone (a 16-bit float type but no
//! 16-bit integer), is refused with exit 3 by the rewrite, for the listed cases only;
//! concurrent sub-word stores to neighbouring bytes and half-words of one 32-bit word of global
//! memory, from different work-groups, lose none of them; the narrow cases of the llvm-run
//! corpus give the cpu device's bytes; every rewritten module passes spirv-val and declares
//! none of the capabilities it was rewritten to avoid. Before, devices without `shaderInt16`
//! refused every program with a 16-bit register, and devices without `shaderFloat16` every
//! `.hf` instruction (tests/profile_matrix.rs, groups 15 to 21).

mod common;
#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/run_case.rs"]
mod run_case;

use run_case::{cases, check_json, command, root};
use std::process::Command;

/// What the error of a launch that llvmpipe's loop cap cut short says.
const LOOP_CAP: &str = "the driver stopped a loop of the kernel early";

/// The options the runtime picks for lavapipe.
const DEFAULTS: &str = "unroll,loop-cap,relaxed,opaque,opaque-push,fma-f64,exact-division";

/// The options the runtime picks for lavapipe, with 8- and 16-bit integers in 32-bit ones.
const FORCED: &str =
    "unroll,loop-cap,relaxed,opaque,opaque-push,fma-f64,exact-division,no-narrow-ints";

/// The run cases the rewrite refuses with `no-narrow-ints` alone: each moves the bits of a
/// 16-bit float through a 16-bit integer (`OpBitcast` with a 16-bit float), which a device with
/// `shaderFloat16` but without `shaderInt16` cannot; with `no-float16` too they run.
const REFUSED: &[&str] = &[
    "tests/run/dsat_nan.pisa",
    "tests/run/dsat_nanp.pisa",
    "tests/run/dsat_rounded.pisa",
    "tests/run/fatom_nan.pisa",
    "tests/run/float_constant_folds.pisa",
    "tests/run/float_misc.pisa",
    "tests/run/fminmax_nan.pisa",
    "tests/run/fminmax_zeros.pisa",
    "tests/run/ftz.pisa",
    "tests/run/half_rounding.pisa",
];

/// Runs every run case with `PISA_SPIRV_OPTIONS=tokens` on lavapipe (validation layer on):
/// the number that gave exactly their `EXPECT` values, the cases refused with exit 3 by the
/// narrow-integer rewrite, and the failures.
fn run_all(tokens: &str) -> (usize, Vec<String>, Vec<String>) {
    let mut failures = Vec::new();
    let (mut passed, mut refused) = (0, Vec::new());
    for c in cases() {
        let mut cmd = command(&c);
        cmd.env("PISA_SPIRV_OPTIONS", tokens)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .env_remove("PISA_DEVICE")
            .env_remove("PISA_DEVICE_PROFILE");
        let mut out = cmd.output().unwrap();
        // llvmpipe's loop cap counts spin-lock iterations (atomic_128_count.pisa), which other
        // work on the machine lengthens: the launch then fails (exit 2, naming the cap), never
        // with a wrong result; tried again twice at most, as tests/profile_matrix.rs does
        for _ in 0..2 {
            if out.status.code() != Some(2)
                || !String::from_utf8_lossy(&out.stderr).contains(LOOP_CAP)
            {
                break;
            }
            out = cmd.output().unwrap();
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("vulkan validation") {
            failures.push(format!(
                "{}: {tokens}: a validation message\n{stderr}",
                c.at
            ));
            continue;
        }
        match out.status.code() {
            Some(0) => {
                let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                let f = check_json(&c, &json, tokens);
                if f.is_empty() {
                    passed += 1;
                } else {
                    failures.extend(f);
                }
            }
            Some(3) if stderr.contains("on an 8- or 16-bit integer needs shaderInt") => {
                refused.push(c.at.clone());
            }
            other => failures.push(format!("{}: {tokens}: exit {other:?}\n{stderr}", c.at)),
        }
    }
    eprintln!(
        "{tokens}: {passed} passed, {} refused: {refused:?}",
        refused.len()
    );
    (passed, refused, failures)
}

#[test]
fn run_cases_exact_with_narrow_integers_in_32_bits() {
    let (passed, refused, failures) = run_all(FORCED);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // exactly the listed cases are refused (a case that starts to run is taken off the list)
    for at in &refused {
        assert!(
            REFUSED.iter().any(|r| at.starts_with(r)),
            "{at} is refused, and is not listed"
        );
    }
    for r in REFUSED {
        assert!(
            refused.iter().any(|at| at.starts_with(r)),
            "{r} is no longer refused: take it off REFUSED"
        );
    }
    assert!(passed >= 40, "only {passed} cases ran");
}

/// Without `shaderFloat16` (item 2, second bullet: `no-float16`), alone and with 8- and 16-bit
/// integers in 32 bits (the AMD R7 370's case): every run case gives exactly its `EXPECT`
/// values, the `.hf` ones included (rounded to half in integer arithmetic), none refused.
#[test]
fn run_cases_exact_without_float16() {
    for tokens in [
        format!("{FORCED},no-float16"),
        format!("{DEFAULTS},no-float16"),
    ] {
        let (passed, refused, failures) = run_all(&tokens);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(refused.is_empty(), "{tokens}: refused {refused:?}");
        assert!(passed >= 55, "{tokens}: only {passed} cases ran");
    }
}

/// `pisa run --json` of a case of `../shared/corpus/llvm-run/` (every buffer as its bytes) on
/// the cpu device (`how` = "cpu") or on lavapipe with narrow integers in 32 bits ("narrow");
/// the exit status, each buffer's bytes and the standard error.
fn corpus_run(name: &str, how: &str) -> (Option<i32>, Vec<Vec<u64>>, String) {
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
        d.join(",")
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pisa"));
    cmd.env("PISA_VALIDATION", "1")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .env_remove("PISA_SPIRV_OPTIONS")
        .args([
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
    match how {
        "cpu" => {
            cmd.args(["--device", "cpu"]);
        }
        _ => {
            cmd.env("PISA_SPIRV_OPTIONS", FORCED);
        }
    }
    for a in spec["args"].as_array().unwrap() {
        let list: Vec<String> = corpus::arg_bytes(a).iter().map(|b| b.to_string()).collect();
        cmd.arg(format!("--arg=buf:u8:{}", list.join(",")));
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stderr.contains("vulkan validation"),
        "{name} {how}: {stderr}"
    );
    let bufs = match serde_json::from_slice::<serde_json::Value>(&out.stdout) {
        Ok(json) => json["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        x["data"]
                            .as_array()
                            .map(|d| d.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    (out.status.code(), bufs, stderr)
}

/// Every case of the llvm-run corpus whose program has an 8- or 16-bit register, with both
/// widths in 32 bits on lavapipe: every buffer's bytes are the cpu device's, or the case is
/// refused with exit 3 by the rewrite (16-bit float bits).
#[test]
fn narrow_corpus_cases_match_the_cpu_device() {
    let dir = root("../shared/corpus/llvm-run");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {dir} is absent (the shared corpus lives beside the checkout)");
        return;
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(p.with_extension("pisa")).ok()?;
            let narrow = text.contains("16b") || text.contains("8b");
            (p.extension()? == "json" && narrow)
                .then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    names.sort();
    let (mut same, mut refused, mut failures) = (0, 0, Vec::new());
    for name in &names {
        let (code, got, stderr) = corpus_run(name, "narrow");
        match code {
            Some(0) => {}
            Some(3) if stderr.contains("on an 8- or 16-bit integer needs shaderInt") => {
                refused += 1;
                continue;
            }
            other => {
                failures.push(format!("{name}: exit {other:?}\n{stderr}"));
                continue;
            }
        }
        let (_, cpu, _) = corpus_run(name, "cpu");
        if got == cpu {
            same += 1;
        } else {
            failures.push(format!(
                "{name}: differs from the cpu device\n  narrow {got:?}\n  cpu    {cpu:?}"
            ));
        }
    }
    eprintln!(
        "{} corpus cases: {same} exact, {refused} refused",
        names.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= 15, "only {same} corpus cases ran");
}

/// The `OpCapability` operands of a module.
fn capabilities(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if len == 0 || op == 14 {
            break;
        }
        if op == 17 {
            out.push(words[i + 1]);
        }
        i += len;
    }
    out
}

/// Every program of the run cases translated with 8-bit, 16-bit, and both widths held in 32
/// bits (`Options::narrow_integers`), and without the 16-bit float type (`Options::float16`):
/// each module is valid SPIR-V for Vulkan 1.2 (spirv-val) and declares no `Int8`/`Int16` (nor
/// their storage capabilities) for a width it holds in 32 bits and no `Float16` without the
/// float type, or the translation is refused as unsupported on the device, naming the feature.
#[test]
fn rewritten_modules_are_valid_and_declare_no_narrow_capability() {
    use pisa_translator::spirv::{translate_with, Options, TranslateError};
    let mut programs: Vec<String> = cases().into_iter().map(|c| c.program).collect();
    programs.sort();
    programs.dedup();
    let mut failures = Vec::new();
    let mut rewritten = 0;
    for p in &programs {
        let text = std::fs::read_to_string(root(p)).unwrap();
        let Ok(m) = pisa_translator::assemble(p, &text) else {
            continue;
        };
        for (native, float16) in [
            ([false, false], true),
            ([true, false], true),
            ([false, true], true),
            ([true, true], false),
            ([false, false], false),
        ] {
            let options = Options {
                narrow_integers: native,
                float16,
                ..Options::default()
            };
            match translate_with(&m, &options) {
                Ok(spv) => {
                    let caps = capabilities(&spv.words);
                    // Int8 39, StorageBuffer8BitAccess 4448, Int16 22, StorageBuffer16BitAccess 4433
                    let has = |c: u32| caps.contains(&c);
                    if (!native[0] && (has(39) || has(4448)))
                        || (!native[1] && (has(22) || has(4433)))
                    {
                        failures.push(format!("{p} {native:?}: declares {caps:?}"));
                    }
                    // Float16 9
                    if !float16 && has(9) {
                        failures.push(format!("{p} without float16: declares Float16"));
                    }
                    if let Some(Err(e)) = common::spirv_val(&spv.words, "vulkan1.2") {
                        failures.push(format!("{p} {native:?}: spirv-val: {e}"));
                    }
                    rewritten += 1;
                }
                Err(TranslateError::UnsupportedOnDevice { what, .. })
                    if what.contains("on an 8- or 16-bit integer needs shaderInt") => {}
                Err(e) => failures.push(format!("{p} {native:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(rewritten > 100, "only {rewritten} translations");
}

/// Work-groups of 64: work-item `l` of group `g` (0..4) owns byte `4 * l + g` of `%bytes` and
/// half-word `2 * (2 * l + g % 2) + ...` of `%halves` (groups 0 and 1 on one word's two
/// halves, groups 2 and 3 on the next buffer half); each writes its byte and half-word 20000
/// times, the last time its final value. A sub-word store that read, changed and wrote back
/// its word would sometimes put back a neighbour's older byte.
const CONTENTION: &str = r#".version 0.1;
.target 100;

.kernel @bytes(.param[8] %bp, .param[8] %hp)
{
	.reg .64b %b, %h, %a, %t;
	.reg .32b %l, %g, %i, %v, %off, %half;
	.reg .8b %v8;
	.reg .16b %v16;
	.pred %more;
	ld.param.64b %b, [%bp];
	ld.param.64b %h, [%hp];
	mov.32b %l, %localid.x;
	mov.32b %g, %groupid.x;
	// byte 4 * l + g
	shl.32b %off, %l, 2;
	iadd.32b %off, %off, %g;
	zext.64b.32b %t, %off;
	iadd.64b %a, %b, %t;
	// half-word (2 * l + g % 2) of buffer half g / 2 (256 bytes each)
	and.32b %half, %g, 1;
	shl.32b %v, %l, 1;
	iadd.32b %half, %half, %v;
	shl.32b %half, %half, 1;
	shr.32b %v, %g, 1;
	shl.32b %v, %v, 8;
	iadd.32b %half, %half, %v;
	zext.64b.32b %t, %half;
	iadd.64b %h, %h, %t;
	mov.32b %i, 0;
loop:
	// i * 7 + l, then at the end the final value
	umul.32b %v, %i, 7;
	iadd.32b %v, %v, %l;
	trunc.8b.32b %v8, %v;
	st.global.8b [%a], %v8;
	xor.32b %v, %v, 0x5a5a;
	trunc.16b.32b %v16, %v;
	st.global.16b [%h], %v16;
	iadd.32b %i, %i, 1;
	ucmp.lt.32b %more, %i, 20000;
	goto.cond %more, loop;
	// final: byte (l * 4 + g) ^ 0xA5, half-word 0x8000 | (g << 8) | l
	iadd.32b %v, %off, 0;
	xor.32b %v, %v, 0xa5;
	trunc.8b.32b %v8, %v;
	st.global.8b [%a], %v8;
	shl.32b %v, %g, 8;
	or.32b %v, %v, %l;
	or.32b %v, %v, 0x8000;
	trunc.16b.32b %v16, %v;
	st.global.16b [%h], %v16;
	return;
}
"#;

fn contention_run(device: Option<&str>) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("pisa-narrow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("contention.pisa");
    std::fs::write(&p, CONTENTION).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pisa"));
    cmd.current_dir(root("."))
        .env("PISA_VALIDATION", "1")
        .env("PISA_SPIRV_OPTIONS", FORCED)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .arg("run")
        .arg(&p)
        .args([
            "--kernel",
            "bytes",
            "--global",
            "256",
            "--local",
            "64",
            "--arg",
            "buf:u8:zeros:256",
            "--arg",
            "buf:u16:zeros:256",
            "--json",
            // 5 million stores: a debug build of the cpu device on a loaded
            // machine takes longer than the default 10 s
            "--timeout",
            "300",
        ]);
    if let Some(d) = device {
        cmd.args(["--device", d]);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd:?}\n{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn data(json: &serde_json::Value, index: u64) -> Vec<u64> {
    let arg = json["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["index"] == index)
        .unwrap();
    arg["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn concurrent_sub_word_stores_lose_no_neighbour() {
    let mut bytes = vec![0u64; 256];
    let mut halves = vec![0u64; 256];
    for g in 0..4u64 {
        for l in 0..64u64 {
            bytes[(4 * l + g) as usize] = ((l * 4 + g) ^ 0xA5) & 0xFF;
            let h = (2 * l + g % 2) + 128 * (g / 2);
            halves[h as usize] = 0x8000 | (g << 8) | l;
        }
    }
    let cpu = contention_run(Some("cpu"));
    assert_eq!(data(&cpu, 0), bytes, "cpu device, bytes");
    assert_eq!(data(&cpu, 1), halves, "cpu device, half-words");
    // several launches: a lost store shows only when two work-groups' stores meet
    for _ in 0..5 {
        let vk = contention_run(None);
        assert_eq!(data(&vk, 0), bytes, "lavapipe, bytes");
        assert_eq!(data(&vk, 1), halves, "lavapipe, half-words");
    }
}
