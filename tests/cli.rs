//! The `pisa check` command line: exit codes, rendering and JSON lines.

use std::process::Command;

fn pisa() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pisa"))
}

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pisa-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const BAD: &str = ".version 0.1;\n.target 100;\n.kernel @k() {\n\t.reg .32b %a;\n\tiadd.16b %a, %a, 1;\n\tfoo.32b %a;\n}\n";

#[test]
fn valid_sample_exits_zero() {
    let out = pisa()
        .args(["check", "shaders/saxpy.pisa"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn invalid_file_exits_one_with_rustc_style_diagnostics() {
    let p = write("bad.pisa", BAD);
    let out = pisa().arg("check").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let expected_first = format!(
        "error[restriction]: bitwidth of `dst`, `src0`, and `src1` must match the bitwidth of `.type` (found a 32-bit register)\n --> {}:5:11\n  |\n5 |  iadd.16b %a, %a, 1;\n  |           ^^\n",
        p.display()
    );
    assert!(err.starts_with(&expected_first), "{err}");
    assert!(err.contains("error[unknown-instruction]: unknown instruction `foo`"));
    assert!(err.contains(&format!("{}:6:2", p.display())));
}

#[test]
fn json_lines() {
    let p = write("bad2.pisa", BAD);
    let out = pisa().args(["check", "--json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[2].starts_with("{\"severity\":\"error\",\"code\":\"unknown-instruction\",\"message\":\"unknown instruction `foo`\""));
    assert!(
        lines[2].contains("\"line\":6,\"col\":2,\"len\":7,\"source\":\"\\tfoo.32b %a;\""),
        "{}",
        lines[2]
    );
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let out = pisa()
        .args(["check", "/nonexistent/x.pisa"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/x.pisa"));
}

/// A source line with terminal control sequences is shown with them escaped:
/// a diagnostic must not retitle the terminal or move its cursor (issue 11).
#[test]
fn diagnostics_escape_control_characters() {
    let p = write(
        "ctl.pisa",
        ".version 0.1;\n.target 100;\n.kernel @k() {\n\tfoo.32b %a; // \x1b]0;pwned\x07\n}\n",
    );
    let out = pisa().arg("check").arg(&p).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\x07'),
        "{stderr:?}"
    );
    assert!(stderr.contains("foo.32b"), "{stderr}");
}

/// Output into a pipe that closes early (`pisa spirv --dis ... | head -1`)
/// ends the process quietly; it used to panic (exit 101).
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::Read;
    let mut src = String::from(".version 0.1;\n.target 100;\n.kernel @k() {\n\t.reg .32b %a;\n");
    for i in 0..20_000 {
        src.push_str(&format!("\tiadd.32b %a, %a, {i};\n"));
    }
    src.push_str("\treturn;\n}\n");
    let p = write("big.pisa", &src);
    let mut child = pisa()
        .args(["spirv", "--dis"])
        .arg(&p)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // the read end is closed here, long before the disassembly is written
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

/// 20,000 nested `{ }` used to overflow the assembler's stack (abort): now one
/// located error, and the long line is shown as a window around it.
#[test]
fn deeply_nested_blocks_are_an_error_not_an_abort() {
    let n = 20_000;
    let src = format!(
        ".version 0.1;\n.target 100;\n.kernel @k()\n{}\n{}\n",
        "{".repeat(n),
        "}".repeat(n)
    );
    let p = write("nest.pisa", &src);
    let out = pisa().arg("check").arg(&p).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("blocks nest more than 256 levels deep"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error[").count(), 1, "{stderr}");
    assert!(stderr.len() < 2000, "{} bytes of diagnostics", stderr.len());
}

/// An unreadable file is reported and the other files are still checked
/// (exit 2); `pisa check` used to stop at it.
#[test]
fn check_goes_on_past_an_unreadable_file() {
    let bad = write("bad2.pisa", BAD);
    let out = pisa()
        .args(["check", "/no/such/file.pisa"])
        .arg(&bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot read /no/such/file.pisa"),
        "{stderr}"
    );
    assert!(stderr.contains("bad2.pisa:5:"), "{stderr}");
}

/// Text diagnostics stop after 200 per file (10^6 errors printed 129 MB);
/// `--json` keeps them all.
#[test]
fn text_diagnostics_are_capped() {
    let mut src = String::from(".version 0.1;\n.target 100;\n.kernel @k() {\n\t.reg .32b %a;\n");
    for _ in 0..1000 {
        src.push_str("\tfoo.32b %a;\n");
    }
    src.push_str("}\n");
    let p = write("many.pisa", &src);
    let out = pisa().arg("check").arg(&p).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.matches("error[").count(), 200, "{stderr}");
    assert!(stderr.contains("and 800 more diagnostics"), "{stderr}");
    let out = pisa().args(["check", "--json"]).arg(&p).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1000);
}

/// `pisa spirv k.pisa -o k.pisa` would have replaced the program with binary.
#[test]
fn spirv_does_not_overwrite_its_input() {
    let src = std::fs::read_to_string("shaders/saxpy.pisa").unwrap();
    let p = write("me.pisa", &src);
    let out = pisa()
        .arg("spirv")
        .arg(&p)
        .arg("-o")
        .arg(&p)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is the input file itself"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), src);
}

/// A `--out` path in a folder that does not exist is an error before the
/// kernel runs (the device is never even chosen), not after.
#[test]
fn bad_out_paths_are_found_before_running() {
    let out = pisa()
        .args([
            "run",
            "shaders/saxpy.pisa",
            "--kernel",
            "saxpy",
            "--global",
            "4",
            "--arg",
            "f32:2",
            "--arg",
            "buf:f32:zeros:4",
            "--arg",
            "buf:f32:zeros:4",
            "--arg",
            "u32:4",
            "--out",
            "1=/no/such/folder/y.npy",
        ])
        .env("PISA_DEVICE", "no-such-device")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
}

/// `pisa check --target vulkan` reports what `pisa spirv` would reject as
/// not supported yet, with its location (issue 11: `check` accepted it).
/// Every instruction form is lowered now (and sub-group code in any control
/// flow); what remains is a call of an imported function no linked module
/// defines.
#[test]
fn check_for_vulkan_reports_unsupported_instructions() {
    let p = "tests/llvm-style/import-decl-and-call.pisa";
    let plain = pisa().arg("check").arg(p).output().unwrap();
    assert_eq!(plain.status.code(), Some(0));
    let out = pisa()
        .args(["check", "--target", "vulkan"])
        .arg(p)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[unsupported]: not supported by the Vulkan back end yet: call to imported function @foo (link its module first)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("import-decl-and-call.pisa:23:12") && stderr.contains("^^^^"),
        "{stderr}"
    );
}

/// `-` reads the program from standard input; `-o -` writes SPIR-V to
/// standard output (issue 11).
#[test]
fn standard_input_and_output() {
    use std::io::Write;
    use std::process::Stdio;
    let src = std::fs::read("shaders/saxpy.pisa").unwrap();
    let run = |args: &[&str]| {
        let mut child = pisa()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&src).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(&["check", "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["spirv", "-", "-o", "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(&out.stdout[..4], &0x0723_0203u32.to_le_bytes());
    assert_eq!(out.stdout.len() % 4, 0);
}

/// `pisa check --kernels` lists a program's kernels with their parameters
/// (issue 11: there was no way to list them).
#[test]
fn check_lists_the_kernels() {
    let src = ".version 0.1;\n.target 100;\n.kernel .reqd_work_group_size(64, 1, 1) @a(.param[8] %p, .param[4] %n)\n{\n\treturn;\n}\n.function void @f()\n{\n\treturn;\n}\n.kernel @b()\n{\n\treturn;\n}\n";
    let path = write("kernels.pisa", src);
    let out = pisa()
        .args(["check", "--kernels"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ".reqd_work_group_size(64, 1, 1) @a(.param[8] %p, .param[4] %n)\n@b()\n"
    );
    let out = pisa()
        .args(["check", "--kernels", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["kernel"], "a");
    assert_eq!(first["params"][1]["name"], "n");
    assert_eq!(first["params"][1]["offset"], 8);
    assert_eq!(first["param_bytes"], 12);
    assert_eq!(first["reqd_work_group_size"][0], 64);
}

/// `pisa ir --structured` prints the tree sub-groups reconverge by
/// (docs/spec-notes.md, "Sub-groups") with the source's labels and register
/// names: the loop with a `break` and a `return` of
/// tests/run/subgroup_reconverge.pisa, whose `out` code runs after the loop.
#[test]
fn ir_structured_names_labels_and_registers() {
    let out = pisa()
        .args(["ir", "--structured", "tests/run/subgroup_reconverge.pisa"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let tree = &text[text
        .find("structured @break_and_return:")
        .expect("the kernel's tree")..];
    let want = "structured @break_and_return:
bb0
block B4 {
  seq B2 {
    loop L1 {
      bb1 (L)
      if %c {
      } else {
        bb3
        if !%c {
          bb5
          continue L1
        }
        break B4
      }
    }
  }
  bb2 (out)
}
bb4 (done)
return
";
    assert_eq!(tree, want);
}

/// `PISA_TIME_PASSES=1` prints each phase of a translation on standard
/// error (CPU time, page faults, resident memory), the passes of the
/// target's pipeline by their names; the output file is what it is without.
#[test]
fn time_passes_lists_the_phases() {
    let dir = std::env::temp_dir().join(format!("pisa-cli-time-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.spv"), dir.join("b.spv"));
    let timed = pisa()
        .args(["spirv", "shaders/saxpy.pisa", "-o"])
        .arg(&a)
        .env("PISA_TIME_PASSES", "1")
        .output()
        .unwrap();
    assert!(timed.status.success());
    let err = String::from_utf8(timed.stderr).unwrap();
    let phases: Vec<&str> = err
        .lines()
        .map(|l| {
            assert!(l.starts_with("time: "), "{l}");
            assert!(l.contains(" ms ") && l.contains(" faults ") && l.contains(" MB resident"));
            l.rsplit("resident").next().unwrap().trim()
        })
        .collect();
    for want in [
        "read",
        "parse",
        "validate",
        "build IR",
        "structurize",
        "emit",
        "write",
    ] {
        assert!(phases.contains(&want), "{want} missing: {err}");
    }
    assert_eq!(phases.last(), Some(&"total"));
    let plain = pisa()
        .args(["spirv", "shaders/saxpy.pisa", "-o"])
        .arg(&b)
        .output()
        .unwrap();
    assert!(plain.status.success() && plain.stderr.is_empty());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
