//! The float run cases under every numerics choice (issue "Numerics on every device", item
//! 5; docs/numerics.md, "Choosing the numerics"): every case of tests/run/ (docs/run-cases.md)
//! and of `../shared/corpus/llvm-run/` whose program has a float instruction (an opcode on
//! `.f`, `.hf`, `.bf`, `.df`, `.hfx2` or `.bfx2`) runs through `pisa run --json --numerics
//! soft` and `--numerics f32` on the default Vulkan device (lavapipe in CI) with the validation
//! layer on, and through `pisa run --json --device cpu`; every buffer argument and global must
//! come out the same bit for bit. The one exception is an output an `EXPECT` bounds in ULP (a
//! transcendental: the f32 kernels are within their bound, not always correctly rounded, where
//! the cpu device's f64 kernels are): it must be within that bound of the cpu device's value.
//! NaNs may differ in sign and payload where the device's own operations make them (Vulkan
//! promises nothing about NaN bits; docs/spec-notes.md, "NaN payloads and signs"): such cases are
//! counted apart. A refusal (exit 3) is a failure (since 2026-12-05 the soft-double library
//! computes `frsqrt.fast.df` and `atom.add.df`, the last forms `soft` refused).
//!
//! `cargo test --test numerics_matrix` runs a CI-sized part (every fourth case, about a
//! minute); `PISA_NUMERICS_MATRIX=full` runs every case (`PISA_NUMERICS_MATRIX=full cargo
//! test --release --test numerics_matrix -- --nocapture` shows the table).

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/run_case.rs"]
mod run_case;

use pisa_vk_runtime::values::Ty;
use run_case::{cases, check_json, command, root, Case};
use std::process::Command;
use std::time::Instant;

const CORPUS: &str = "../shared/corpus/llvm-run";

/// Whether a program has a float instruction: a mnemonic one of whose
/// modifiers is a float type.
fn has_float_instruction(text: &str) -> bool {
    const FLOAT: &[&str] = &["f", "hf", "bf", "df", "hfx2", "bfx2"];
    text.lines().any(|l| {
        let l = l.trim_start();
        if l.starts_with("//") || l.starts_with('.') {
            return false;
        }
        let l = l.split_once(':').map_or(l, |(label, rest)| {
            if label.starts_with('@') || label.chars().all(|c| c.is_alphanumeric() || c == '_') {
                rest.trim_start()
            } else {
                l
            }
        });
        let mnemonic = l.split_whitespace().next().unwrap_or_default();
        let mut parts = mnemonic.split('.');
        parts.next();
        parts.any(|m| FLOAT.contains(&m))
    })
}

/// An output: its name (`arg 1`, `global g`), the size of its elements as `pisa run` printed
/// them (1 for a global's bytes), and its bytes.
type Output = (String, usize, Vec<u8>);

/// The `pisa run --json` output's buffer arguments and globals, each as its bytes.
fn outputs(json: &serde_json::Value) -> Vec<Output> {
    let mut out = Vec::new();
    for a in json["args"].as_array().into_iter().flatten() {
        let ty = Ty::parse(a["type"].as_str().unwrap()).unwrap();
        let bytes = a["data"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|v| {
                ty.encode(v.as_str().map_or(v.to_string(), str::to_string).as_str())
                    .unwrap()
            })
            .collect();
        out.push((format!("arg {}", a["index"]), ty.size(), bytes));
    }
    for (name, g) in json["globals"].as_object().into_iter().flatten() {
        let bytes = g
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8);
        out.push((format!("global {name}"), 1, bytes.collect()));
    }
    out
}

/// Whether `w` little-endian bytes are a NaN of that width (f16, f32, f64).
fn is_nan(b: &[u8]) -> bool {
    let mut x = [0u8; 8];
    x[..b.len()].copy_from_slice(b);
    let v = u64::from_le_bytes(x);
    match b.len() {
        2 => v & 0x7C00 == 0x7C00 && v & 0x3FF != 0,
        4 => f32::from_bits(v as u32).is_nan(),
        _ => f64::from_bits(v).is_nan(),
    }
}

/// Whether two outputs differ only in the bits of NaNs: each differing byte lies in an
/// aligned 4- or 8-byte element (2-byte too in an output of 16-bit elements, where a 16-bit
/// NaN is not taken for the half of a number) that is a NaN on both sides. Vulkan promises
/// nothing about NaN bits, and lavapipe's own f32 and f64 operations give negative default
/// NaNs (docs/spec-notes.md, "NaN payloads and signs"): not a difference of the numerics
/// paths.
fn differ_in_nans_only(a: &[Output], b: &[Output]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((na, size, x), (nb, _, y))| {
            let widths: &[usize] = if *size == 2 { &[2] } else { &[4, 8] };
            na == nb
                && x.len() == y.len()
                && (0..x.len()).filter(|&i| x[i] != y[i]).all(|i| {
                    widths.iter().any(|&w| {
                        let s = i - i % w;
                        s + w <= x.len() && is_nan(&x[s..s + w]) && is_nan(&y[s..s + w])
                    })
                })
        })
}

/// What one run gave: its JSON, or exit 3 with its message.
enum Ran {
    Json(serde_json::Value),
    Refused(String),
}

/// Where two outputs first differ, for the failure message.
fn first_difference(got: &[Output], want: &[Output]) -> String {
    for ((name, _, x), (_, _, y)) in got.iter().zip(want) {
        if let Some(i) = (0..x.len().min(y.len())).find(|&i| x[i] != y[i]) {
            let s = i - i % 4;
            let end = (s + 4).min(x.len()).min(y.len());
            return format!(
                "{name}, bytes {s}..{end}: {:02x?}, the cpu device's {:02x?}",
                &x[s..end],
                &y[s..end]
            );
        }
        if x.len() != y.len() {
            return format!("{name}: {} bytes, the cpu device's {}", x.len(), y.len());
        }
    }
    format!("{} outputs, the cpu device's {}", got.len(), want.len())
}

fn run(mut cmd: Command) -> Result<Ran, String> {
    cmd.env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .env_remove("PISA_SPIRV_OPTIONS");
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("vulkan validation") {
        return Err(format!("a validation message\n  {shown}\n{stderr}"));
    }
    match out.status.code() {
        Some(0) => serde_json::from_slice(&out.stdout)
            .map(Ran::Json)
            .map_err(|e| format!("the output is not JSON: {e}\n  {shown}")),
        Some(3) => Ok(Ran::Refused(stderr.into_owned())),
        _ => Err(format!("{}\n  {shown}\n{stderr}", out.status)),
    }
}

/// The check of a run's JSON against a case's `EXPECT`s: one message per output that differs.
type BoundsCheck = Box<dyn Fn(&serde_json::Value) -> Vec<String>>;

/// One case's command (a run case or a corpus case), its program's text,
/// and the check of a Vulkan run's output against the `EXPECT`s where
/// they bound an output in ULP (`None`: every output exact).
struct Item {
    at: String,
    cmd: Box<dyn Fn() -> Command>,
    text: String,
    within_bounds: Option<BoundsCheck>,
}

fn run_case_item(c: Case) -> Item {
    let text = std::fs::read_to_string(root(&c.program)).unwrap();
    let bounded = c.expect.iter().any(|e| e.ulp.is_some());
    let c = std::rc::Rc::new(c);
    let c2 = c.clone();
    Item {
        at: c.at.clone(),
        cmd: Box::new(move || command(&c)),
        text,
        within_bounds: bounded
            .then(|| Box::new(move |j: &serde_json::Value| check_json(&c2, j, "vulkan")) as _),
    }
}

fn corpus_items() -> Vec<Item> {
    let dir = root(CORPUS);
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
        .into_iter()
        .map(|name| {
            let spec: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap(),
            )
            .unwrap();
            let program = format!("{dir}/{name}.pisa");
            let text = std::fs::read_to_string(&program).unwrap();
            let size = |v: &serde_json::Value| -> String {
                let d: Vec<String> = v
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap().to_string())
                    .collect();
                d.join(",")
            };
            let mut args = vec![
                "run".to_string(),
                program,
                "--kernel".into(),
                spec["kernel"].as_str().unwrap().into(),
                "--global".into(),
                size(&spec["global"]),
                "--local".into(),
                size(&spec["local"]),
                "--json".into(),
            ];
            for a in spec["args"].as_array().unwrap() {
                let list: Vec<String> =
                    corpus::arg_bytes(a).iter().map(|b| b.to_string()).collect();
                args.push(format!("--arg=buf:u8:{}", list.join(",")));
            }
            Item {
                at: format!("{CORPUS}/{name}.json"),
                cmd: Box::new(move || {
                    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
                    c.env("PISA_VALIDATION", "1").args(&args);
                    c
                }),
                text,
                within_bounds: None,
            }
        })
        .collect()
}

/// Every float case: `PISA_NUMERICS_MATRIX=full`, else every fourth.
fn selected(items: Vec<Item>) -> Vec<Item> {
    let full = std::env::var("PISA_NUMERICS_MATRIX").is_ok_and(|v| v == "full");
    items
        .into_iter()
        .filter(|i| has_float_instruction(&i.text))
        .enumerate()
        .filter(|(k, _)| full || k % 4 == 0)
        .map(|(_, i)| i)
        .collect()
}

#[test]
fn float_cases_give_the_cpu_devices_bits_under_soft_and_f32() {
    let vulkan = pisa_vk_runtime::Runtime::new(Default::default())
        .ok()
        .map(|rt| rt.device_info().name.clone());
    let Some(vulkan) = vulkan else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the numerics matrix on lavapipe"
        );
        eprintln!("skipped: no Vulkan device");
        return;
    };
    let items: Vec<Item> = cases()
        .into_iter()
        .map(run_case_item)
        .chain(corpus_items())
        .collect();
    let items = selected(items);
    assert!(items.len() >= 10, "{} float cases", items.len());
    let started = Instant::now();
    let mut failures = Vec::new();
    // numerics → (identical, NaN bits only, within an EXPECT's bound only), and the cases of
    // the second column
    let mut rows = [("soft", 0, 0, 0), ("f32", 0, 0, 0)];
    let mut nan_cases = Vec::new();
    for item in &items {
        let mut cpu = (item.cmd)();
        cpu.args(["--device", "cpu"]);
        let want = match run(cpu) {
            Ok(Ran::Json(j)) => outputs(&j),
            Ok(Ran::Refused(e)) => {
                failures.push(format!("{}: the cpu device refused it: {e}", item.at));
                continue;
            }
            Err(e) => {
                failures.push(format!("{}: on the cpu device: {e}", item.at));
                continue;
            }
        };
        for row in rows.iter_mut() {
            let n = row.0;
            let mut cmd = (item.cmd)();
            cmd.args(["--numerics", n]);
            let fail = |why: String| format!("{}: --numerics {n} on {vulkan}: {why}", item.at);
            match run(cmd) {
                Ok(Ran::Json(j)) if outputs(&j) == want => row.1 += 1,
                Ok(Ran::Json(j)) if differ_in_nans_only(&outputs(&j), &want) => {
                    row.2 += 1;
                    nan_cases.push(format!("{} ({n})", item.at));
                }
                Ok(Ran::Json(j)) => match &item.within_bounds {
                    Some(check) => {
                        let out = check(&j);
                        if out.is_empty() {
                            row.3 += 1;
                        } else {
                            failures.push(fail(format!(
                                "differs from the cpu device, beyond the EXPECT bounds: {}",
                                out.join("; ")
                            )));
                        }
                    }
                    None => failures.push(fail(format!(
                        "differs from the cpu device: {}",
                        first_difference(&outputs(&j), &want)
                    ))),
                },
                Ok(Ran::Refused(e)) => failures.push(fail(format!("refused: {e}"))),
                Err(e) => failures.push(fail(e)),
            }
        }
    }
    eprintln!(
        "{} float cases on {vulkan} and the cpu device in {:.0?}:",
        items.len(),
        started.elapsed()
    );
    eprintln!("| numerics | identical | NaN bits only | within an EXPECT's ULP bound |");
    eprintln!("|---|---|---|---|");
    for (n, same, nans, bounded) in rows {
        eprintln!("| {n} | {same} | {nans} | {bounded} |");
    }
    eprintln!("NaN bits only: {}", nan_cases.join(", "));
    assert!(
        failures.is_empty(),
        "{} run(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn nan_bits_alone_are_told_apart() {
    let out = |size: usize, b: &[u8]| vec![("arg 0".to_string(), size, b.to_vec())];
    // f32 default NaNs of either sign; f64 NaNs; f16 NaNs in 16-bit outputs
    assert!(differ_in_nans_only(
        &out(4, &[0, 0, 0xC0, 0x7F]),
        &out(4, &[0, 0, 0xC0, 0xFF])
    ));
    assert!(differ_in_nans_only(
        &out(1, &[0, 0, 0, 0, 0, 0, 0xF8, 0x7F]),
        &out(1, &[0, 0, 0, 0, 0, 0, 0xF8, 0xFF])
    ));
    assert!(differ_in_nans_only(
        &out(2, &[1, 0, 0, 0x7E]),
        &out(2, &[1, 0, 0, 0xFE])
    ));
    // a number is not a NaN, nor a NaN a number (nor the top half of a NaN a 16-bit NaN)
    assert!(!differ_in_nans_only(
        &out(4, &[0, 0, 0x80, 0x3F]),
        &out(4, &[0, 0, 0x80, 0xBF])
    ));
    assert!(!differ_in_nans_only(
        &out(4, &[0, 0, 0xC0, 0x7F]),
        &out(4, &[0, 0, 0x80, 0x7F])
    ));
    assert!(!differ_in_nans_only(
        &out(4, &[1, 0, 0, 0x7E]),
        &out(4, &[1, 0, 0, 0xFE])
    ));
}

#[test]
fn float_instructions_are_recognized() {
    assert!(has_float_instruction("\tfadd.rz.f %r, %a, %b;\n"));
    assert!(has_float_instruction("L1: fsin.hf %r, %a;\n"));
    assert!(has_float_instruction("\tfmad.df %r, %a, %b, %c;\n"));
    assert!(has_float_instruction("\tftrunc2.hfx2.f %r, %a, %b;\n"));
    assert!(!has_float_instruction("\tiadd.32b %r, %a, %b;\n"));
    assert!(!has_float_instruction("// fadd.f %r, %a, %b;\n"));
    assert!(!has_float_instruction("\tld.global.32b %r, [%a];\n"));
}

/// `--numerics soft` computes nothing in f64 on a device that has f64 too. Until 2026-12-05
/// lavapipe ran `frsqrt.fast.df`, which the soft-double library did not compute then, in its
/// own f64 under `soft`; then it was refused (exit 3), and now the library computes it: under
/// every numerics it gives the same bits, and the module `soft` translates declares no
/// `Float64` (a translation that still did would be refused, `soft_uses_no_f64`).
#[test]
fn soft_computes_nothing_in_f64_on_a_device_with_f64() {
    if pisa_vk_runtime::Runtime::new(Default::default()).is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI has lavapipe");
        eprintln!("skipped: no Vulkan device");
        return;
    }
    let dir = std::env::temp_dir().join(format!("pisa-numerics-soft-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rsqrt_df.pisa");
    std::fs::write(
        &file,
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %d;\n\
         \tld.param.64b %p, [%o];\n\tld.global.64b %d, [%p];\n\tfrsqrt.fast.df %d, %d;\n\
         \tst.global.64b [%p], %d;\n\treturn;\n}\n",
    )
    .unwrap();
    let run = |numerics: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pisa"));
        cmd.env("PISA_VALIDATION", "1").args([
            "run",
            file.to_str().unwrap(),
            "--kernel",
            "k",
            "--global",
            "1",
            "--arg",
            "buf:f64:4.0",
            "--json",
        ]);
        if let Some(n) = numerics {
            cmd.args(["--numerics", n]);
        }
        run(cmd)
    };
    for numerics in [None, Some("f64"), Some("soft")] {
        match run(numerics) {
            Ok(Ran::Json(j)) => assert_eq!(j["args"][0]["data"][0], 0.5, "{numerics:?}: {j}"),
            Ok(Ran::Refused(e)) | Err(e) => panic!("{numerics:?}: {e}"),
        }
    }
    let spv = dir.join("rsqrt_df.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["spirv", file.to_str().unwrap(), "--numerics", "soft", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // OpCapability (word count 2, opcode 17) Float64 (10)
    assert!(
        !words.windows(2).any(|w| w == [(2 << 16) | 17, 10]),
        "--numerics soft declares Float64"
    );
    assert!(
        words.windows(2).any(|w| w == [(2 << 16) | 17, 11]),
        "the check reads capabilities (Int64 expected)"
    );
    std::fs::remove_dir_all(&dir).ok();
}
