//! Issue "Any Vulkan GPU", item 3: what the driver does that its feature bits do not state
//! (denormals, `Fma`, signed zeros/infinities/NaNs without and with the float controls) is
//! probed when the device is opened, cached beside the pipeline cache, shown by `pisa devices`,
//! and decides the translation: a behaviour PISA cannot get is refused (exit 3, naming the
//! instruction and the behaviour), one the device can be asked for is asked for
//! (docs/devices.md, "Probed behaviour").
//!
//! lavapipe (Mesa 22.3.6) keeps denormals at every width, keeps signed zeros, infinities and
//! NaNs only because PISA hides operands from its compiler (`opaque` of `PISA_SPIRV_OPTIONS`),
//! ignoring `SignedZeroInfNanPreserve` when they are not hidden, has an `Fma` that rounds
//! twice, and cannot be asked to keep denormals (no `shaderDenormPreserveFloatN`). The other
//! paths are reached with `PISA_PROBE_OVERRIDE`; the `DenormPreserve` request, which lavapipe
//! cannot take, is tested on the translation (vk-runtime's `probe::tests`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// A fresh directory for one test (its cache, its programs).
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pisa-probes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `pisa ARGS` with its caches in `dir`, the validation layer on, and no
/// inherited option that changes the translation.
fn pisa(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.args(args)
        .env("XDG_CACHE_HOME", dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("PISA_VALIDATION", "1")
        .env_remove("PISA_SPIRV_OPTIONS")
        .env_remove("PISA_PROBE_OVERRIDE")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether lavapipe is here (the tests are about its driver).
fn lavapipe(dir: &Path) -> bool {
    let out = pisa(dir, &["devices"], &[]);
    let here = text(&out.stdout).contains("llvmpipe");
    if !here {
        eprintln!("skipped: no lavapipe");
    }
    here
}

/// The `probed` object of the llvmpipe device in `pisa devices --json`.
fn probed_json(dir: &Path, env: &[(&str, &str)]) -> serde_json::Value {
    let out = pisa(dir, &["devices", "--json"], env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|d| d["name"].as_str().is_some_and(|n| n.contains("llvmpipe")))
        .expect("an llvmpipe device")["probed"]
        .clone()
}

const LAVAPIPE: &str = "denormals16=kept denormals32=kept denormals64=kept fma=unfused fma64=unfused signed-zeros16=kept signed-zeros32=kept signed-zeros64=kept signed-zero-preserve16=honoured signed-zero-preserve32=honoured signed-zero-preserve64=honoured";

/// The probed values of a `probed` object, `key=value` sorted by key.
fn values(p: &serde_json::Value) -> String {
    p["values"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `key=value` list sorted by key, as [`values`] gives it.
fn sorted(list: &str) -> String {
    let mut v: Vec<&str> = list.split(' ').collect();
    v.sort_by_key(|kv| kv.split('=').next().unwrap().to_string());
    v.join(" ")
}

/// The first open measures lavapipe's behaviour and writes the probe cache;
/// the second reads it.
#[test]
fn lavapipe_is_probed_once_then_read_from_the_cache() {
    let dir = scratch("cache");
    if !lavapipe(&dir) {
        return;
    }
    // `lavapipe` opened the device once already: start again
    std::fs::remove_dir_all(dir.join("pisa")).unwrap();
    let first = probed_json(&dir, &[]);
    assert!(
        first["source"]
            .as_str()
            .unwrap()
            .starts_with("measured in "),
        "{first}"
    );
    assert_eq!(values(&first), sorted(LAVAPIPE));
    let files: Vec<PathBuf> = std::fs::read_dir(dir.join("pisa"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("probe-")
        })
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        std::fs::read_to_string(&files[0]).unwrap(),
        format!("pisa probe 1\n{}\n", LAVAPIPE.replace(' ', "\n"))
    );
    let second = probed_json(&dir, &[]);
    assert!(
        second["source"]
            .as_str()
            .unwrap()
            .starts_with("cached, read in "),
        "{second}"
    );
    assert_eq!(values(&second), sorted(LAVAPIPE));
    // the text form shows the same
    let out = pisa(&dir, &["devices"], &[]);
    assert!(
        text(&out.stdout).contains(&format!("   probed: {LAVAPIPE} (cached, read in ")),
        "{}",
        text(&out.stdout)
    );
    // an override shows, and is not written to the cache
    let o = probed_json(&dir, &[("PISA_PROBE_OVERRIDE", "denormals32=flushed")]);
    assert_eq!(
        values(&o),
        sorted(&LAVAPIPE.replace("denormals32=kept", "denormals32=flushed"))
    );
    assert_eq!(o["override"], "denormals32=flushed");
    assert_eq!(values(&probed_json(&dir, &[])), sorted(LAVAPIPE));
    // a cache file that is not one (another header, a FIFO that would block a read, a link to
    // /dev/zero) is probed again and replaced, never trusted or waited on
    let path = &files[0];
    let bad: [&dyn Fn(); 3] = [
        &|| std::fs::write(path, "pisa probe 0\ndenormals32=flushed\n").unwrap(),
        &|| {
            std::fs::remove_file(path).unwrap();
            assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
        },
        &|| {
            std::fs::remove_file(path).unwrap();
            std::os::unix::fs::symlink("/dev/zero", path).unwrap();
        },
    ];
    for make in bad {
        make();
        let p = probed_json(&dir, &[]);
        assert!(
            p["source"].as_str().unwrap().starts_with("measured in "),
            "{p}"
        );
        assert_eq!(values(&p), sorted(LAVAPIPE));
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            format!("pisa probe 1\n{}\n", LAVAPIPE.replace(' ', "\n"))
        );
    }
}

/// With operands no longer hidden from its compiler, lavapipe folds `-0 + 0` to `-0` whatever
/// the module declares: the probe sees it, and a program whose results it would change is
/// refused (it ran, giving -0 and 0 where IEEE gives +0 and NaN).
#[test]
fn a_driver_that_ignores_signed_zero_inf_nan_preserve_is_refused() {
    let dir = scratch("ignored");
    if !lavapipe(&dir) {
        return;
    }
    let unhidden = [("PISA_SPIRV_OPTIONS", "unroll,loop-cap,relaxed,opaque-push")];
    let p = probed_json(&dir, &unhidden);
    assert_eq!(
        values(&p),
        sorted(
            &LAVAPIPE
                .replace("signed-zeros16=kept", "signed-zeros16=lost")
                .replace("signed-zeros32=kept", "signed-zeros32=lost")
                .replace("signed-zeros64=kept", "signed-zeros64=lost")
                .replace("=honoured", "=ignored")
        )
    );
    // (measured afresh: the options change what the probe measures)
    assert!(p["source"].as_str().unwrap().starts_with("measured in "));
    let prog = root("tests/run/float_constant_folds.pisa");
    let out = pisa(
        &dir,
        &[
            "run",
            &prog,
            "--kernel",
            "k",
            "--global",
            "1",
            "--arg",
            "buf:u32:2139095040,2147483648,7,7,7,7,7,7,7,7,3212836864",
        ],
        &unhidden,
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("float_constant_folds.pisa:31:2: unsupported on this device: `fmul.f` computes on 32-bit floats, but this driver ignores SignedZeroInfNanPreserve for 32-bit floats (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN)"),
        "{}",
        text(&out.stderr)
    );
}

/// f32 arithmetic sensitive to denormals and signed zeros: 2^-126 · 0.5, -0 + 0, 2^-149 +
/// 2^-149.
const F32: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] %io)
{
	.reg .64b %p;
	.reg .32b %a, %b, %r;
	ld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	ld.global.32b %b, [%p + 4];
	fmul.f %r, %a, %b;
	st.global.32b [%p + 16], %r;
	ld.global.32b %a, [%p + 8];
	fadd.f %r, %a, 0x00000000;
	st.global.32b [%p + 20], %r;
	ld.global.32b %a, [%p + 12];
	fadd.f %r, %a, %a;
	st.global.32b [%p + 24], %r;
	return;
}
";
const F32_ARG: &str = "buf:u32:8388608,1056964608,2147483648,1,0,0,0";
const F32_OUT: &str = "[8388608,1056964608,2147483648,1,4194304,0,2]";

/// Integer arithmetic only.
const INT: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] %io)
{
	.reg .64b %p;
	.reg .32b %a;
	ld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	iadd.32b %a, %a, 5;
	st.global.32b [%p + 4], %a;
	return;
}
";

/// `fsin.f` (the math library's f64 kernels) and `.hf` arithmetic.
const LIB_HF: &str = ".version 0.1;
.target 100;
.kernel @sin(.param[8] %io)
{
	.reg .64b %p;
	.reg .32b %a;
	ld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	fsin.f %a, %a;
	st.global.32b [%p + 4], %a;
	return;
}
.kernel @half(.param[8] %io)
{
	.reg .64b %p;
	.reg .32b %a;
	.reg .16b %h;
	ld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	trunc.16b.32b %h, %a;
	fadd.hf %h, %h, %h;
	zext.32b.16b %a, %h;
	st.global.32b [%p + 4], %a;
	return;
}
";

/// `pisa run --json` of `kernel` in `file` on one work-item with `arg`;
/// the first argument's values when it exits 0.
fn run(
    dir: &Path,
    file: &Path,
    kernel: &str,
    arg: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let f = file.display().to_string();
    let mut args = vec![
        "run", &f, "--kernel", kernel, "--global", "1", "--arg", arg, "--json",
    ];
    args.extend(extra);
    let out = pisa(dir, &args, env);
    let values = if out.status.code() == Some(0) {
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["args"][0]["data"].to_string()
    } else {
        String::new()
    };
    (out.status.code(), values, text(&out.stderr))
}

fn write(dir: &Path, name: &str, src: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, src).unwrap();
    p
}

/// Each overridden behaviour leads to its refusal (exit 3, naming the instruction and the
/// behaviour) or, where the device can be asked, to exactly the cpu device's outputs.
#[test]
fn each_override_leads_to_the_emulation_or_a_refusal() {
    let dir = scratch("overrides");
    if !lavapipe(&dir) {
        return;
    }
    let f32p = write(&dir, "f32.pisa", F32);
    let intp = write(&dir, "int.pisa", INT);
    let lib = write(&dir, "lib.pisa", LIB_HF);

    // the reference: the cpu device, and lavapipe as probed
    let cpu = run(&dir, &f32p, "k", F32_ARG, &["--device", "cpu"], &[]);
    assert_eq!((cpu.0, cpu.1.as_str()), (Some(0), F32_OUT), "{}", cpu.2);
    let plain = run(&dir, &f32p, "k", F32_ARG, &[], &[]);
    assert_eq!(
        (plain.0, plain.1.as_str()),
        (Some(0), F32_OUT),
        "{}",
        plain.2
    );

    let over = |list: &'static str| [("PISA_PROBE_OVERRIDE", list)];

    // f32 denormals flushed, and lavapipe cannot be asked to keep them
    let r = run(&dir, &f32p, "k", F32_ARG, &[], &over("denormals32=flushed"));
    assert_eq!(r.0, Some(3), "{}", r.2);
    assert!(
        r.2.contains("f32.pisa:10:2: unsupported on this device: `fmul.f` computes on 32-bit floats, but this driver flushes 32-bit denormals to zero by default and the device lacks shaderDenormPreserveFloat32"),
        "{}",
        r.2
    );
    // ... which leaves integer arithmetic alone
    let r = run(
        &dir,
        &intp,
        "k",
        "buf:u32:37,0",
        &[],
        &over("denormals32=flushed"),
    );
    assert_eq!((r.0, r.1.as_str()), (Some(0), "[37,42]"), "{}", r.2);

    // signed zeros lost by default: lavapipe is asked (SignedZeroInfNanPreserve) and honours
    // it, so the outputs are the cpu device's
    let r = run(&dir, &f32p, "k", F32_ARG, &[], &over("signed-zeros32=lost"));
    assert_eq!((r.0, r.1.as_str()), (Some(0), F32_OUT), "{}", r.2);
    // ... unless it ignores the request
    let r = run(
        &dir,
        &f32p,
        "k",
        F32_ARG,
        &[],
        &over("signed-zero-preserve32=ignored"),
    );
    assert_eq!(r.0, Some(3), "{}", r.2);
    assert!(
        r.2.contains("`fmul.f` computes on 32-bit floats, but this driver ignores SignedZeroInfNanPreserve for 32-bit floats"),
        "{}",
        r.2
    );
    // ... or, under a profile without shaderSignedZeroInfNanPreserveFloat32 (the probed values
    // stay the real device's), cannot be asked
    let m5 = root("../shared/device-profiles/apple_m5_26_0_99_macos_26_4_1.json");
    let r = run(&dir, &f32p, "k", F32_ARG, &["--profile", &m5], &[]);
    assert_eq!((r.0, r.1.as_str()), (Some(0), F32_OUT), "{}", r.2);
    let r = run(
        &dir,
        &f32p,
        "k",
        F32_ARG,
        &["--profile", &m5],
        &over("signed-zeros32=lost"),
    );
    assert_eq!(r.0, Some(3), "{}", r.2);
    assert!(
        r.2.contains("`fmul.f` computes on 32-bit floats, but this driver does not keep 32-bit signed zeros, infinities and NaNs by default (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN) and the device lacks shaderSignedZeroInfNanPreserveFloat32"),
        "{}",
        r.2
    );

    // f64 denormals flushed: the math library's f64 steps are refused, named by the
    // instruction they compute
    let r = run(
        &dir,
        &lib,
        "sin",
        "buf:u32:1056964608,0",
        &[],
        &over("denormals64=flushed"),
    );
    assert_eq!(r.0, Some(3), "{}", r.2);
    assert!(
        r.2.contains("lib.pisa:9:2: unsupported on this device: `fsin.f` (the library's `") && r.2.contains("computes on 64-bit floats, but this driver flushes 64-bit denormals to zero by default and the device lacks shaderDenormPreserveFloat64"),
        "{}",
        r.2
    );
    // f16 denormals flushed: .hf refused, f32 untouched
    let r = run(
        &dir,
        &lib,
        "half",
        "buf:u32:1,0",
        &[],
        &over("denormals16=flushed"),
    );
    assert_eq!(r.0, Some(3), "{}", r.2);
    assert!(
        r.2.contains("lib.pisa:21:2: unsupported on this device: `fadd.hf` computes on 16-bit floats, but this driver flushes 16-bit denormals"),
        "{}",
        r.2
    );
    let r = run(&dir, &f32p, "k", F32_ARG, &[], &over("denormals16=flushed"));
    assert_eq!((r.0, r.1.as_str()), (Some(0), F32_OUT), "{}", r.2);
    // the f16 kernel as probed: 2^-24 + 2^-24 = 2^-23, as on the cpu device
    let r = run(&dir, &lib, "half", "buf:u32:1,0", &[], &[]);
    let c = run(&dir, &lib, "half", "buf:u32:1,0", &["--device", "cpu"], &[]);
    assert_eq!((r.0, r.1.as_str()), (Some(0), "[1,2]"), "{}", r.2);
    assert_eq!(r.1, c.1);

    // an unfused Fma refuses fmad.f where it is not computed through f64
    let fma = root("tests/run/fmad_exact.pisa");
    let no_f64 = [
        (
            "PISA_SPIRV_OPTIONS",
            "unroll,loop-cap,relaxed,opaque,opaque-push",
        ),
        ("PISA_PROBE_OVERRIDE", "fma=unfused"),
    ];
    let out = pisa(
        &dir,
        &[
            "run",
            &fma,
            "--kernel",
            "k",
            "--global",
            "1",
            "--arg",
            "buf:u32:zeros:16",
        ],
        &no_f64,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("rounds once, but this device's fused multiply-add rounds twice"),
        "{}",
        text(&out.stderr)
    );

    // a bad override is an error naming it
    let r = run(&dir, &f32p, "k", F32_ARG, &[], &over("denormals32=gone"));
    assert_eq!(r.0, Some(2), "{}", r.2);
    assert!(
        r.2.contains("PISA_PROBE_OVERRIDE: `denormals32=gone`: unknown value `gone`"),
        "{}",
        r.2
    );
}
