//! The IR pipeline (`ir::pipeline`): the list of passes chosen from the
//! target, `pisa ir --passes` and `pisa ir --print-after PASS` (golden
//! output of each pass on a small program with a loop), and that the SPIR-V
//! back end runs no pass: it refuses IR the pipeline has not finished.

use pisa_translator::ir::{self, pipeline};
use std::process::Command;

fn pisa() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pisa"))
}

/// The standard output of `pisa ARGS FILE`, which must exit 0.
fn pisa_stdout(args: &[&str], file: &std::path::Path) -> String {
    let out = pisa().args(args).arg(file).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A cycle entered at two blocks (`reducible` gives it one entry, a
/// dispatcher loop), small enough to unroll.
const LOOP: &str = "// a cycle entered at two blocks
.version 0.1;
.target 100;
.function .32b @twice_entered(.reg .32b %x)
{
\t.pred %p, %q;
\tucmp.lt.32b %p, %x, 5;
\tgoto.cond %p, b;
a:
\tiadd.32b %x, %x, 3;
b:
\tiadd.32b %x, %x, 1;
\tucmp.lt.32b %q, %x, 50;
\tgoto.cond %q, a;
\treturn %x;
}
";

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pisa-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    // tests run in parallel and write the same files: whole, by a rename
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let tmp = dir.join(format!(
        "{name}.{}",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &p).unwrap();
    p
}

fn names(target: &pipeline::Target) -> Vec<&'static str> {
    pipeline::Pipeline::for_target(target)
        .passes()
        .iter()
        .map(|p| p.name)
        .collect()
}

#[test]
fn passes_for_default_and_unrolling_targets() {
    assert_eq!(
        names(&pipeline::Target::default()),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "frnd",
            "structurize",
            "simt"
        ]
    );
    assert_eq!(
        names(&pipeline::Target {
            unroll_loops: true,
            ..Default::default()
        }),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "frnd",
            "structurize",
            "unroll",
            "simt"
        ]
    );
    // the target the SPIR-V options give
    let options = pisa_translator::spirv::Options::for_loop_cap(true);
    assert_eq!(
        names(&options.target()),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "exactf64",
            "frnd",
            "structurize",
            "unroll",
            "simt"
        ]
    );
    // without f64: the integer libraries
    let options = options.with_numerics(pisa_translator::spirv::Numerics::Soft);
    assert_eq!(
        names(&options.target()),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "exactf32",
            "softf64",
            "frnd",
            "structurize",
            "unroll",
            "simt"
        ]
    );
}

#[test]
fn cli_lists_passes() {
    let out = pisa().args(["ir", "--passes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\
reducible    irreducible regions get one entry (a dispatcher): the graph is reducible
shallow      parts nested deeper than 64 become flat dispatch loops
mathlib      transcendental instructions become calls of the bundled math library
fatom16      fatom.add/.sub on .hf/.bf become compare-and-swap loops of 16-bit integer atomics around a sum rounded once into the format
exactf64     f32/f16/bf16 directed rounding, bf16 rounding, fmad, fdiv, frcp, fsqrt, frc, rounded conversions become calls of the exact library with f64 cores; inexact .df forms of the soft-double one
frnd         frnd, and f2i/pf2i in a mode other than .rz, round to integral values in integer instructions on the encoding
structurize  each body becomes a tree of nested loop / block / if constructs
simt         functions that need sub-groups run in SIMT mode: uniform control flow, a lane state register, sync points made by every invocation
"
    );
    let out = pisa()
        .args(["ir", "--passes", "--numerics", "f32"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\nexactf32 ") && !text.contains("exactf64"),
        "{text}"
    );
    let out = pisa()
        .args(["ir", "--passes", "--unroll-loops"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().nth(7).unwrap();
    assert_eq!(text.lines().count(), 9);
    assert_eq!(
        last,
        "unroll       small innermost loops run 16 iterations per back edge, and those of at most 8 proven trips no loop at all (drivers that cap loops)"
    );
}

/// `checked` runs only in checked mode (`--check`), last.
#[test]
fn cli_lists_checked_only_with_check() {
    let list = |args: &[&str]| {
        let out = pisa().args(["ir", "--passes"]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(!list(&[]).contains("checked"));
    assert!(!list(&["--unroll-loops"]).contains("checked"));
    let checked = list(&["--check"]);
    let listed: Vec<&str> = checked
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "exactf64",
            "frnd",
            "structurize",
            "simt",
            "checked"
        ]
    );
    assert!(checked.contains(
        "\nchecked      every ld, st and atomic checks its address first (checked mode, --check)\n"
    ));
    assert_eq!(
        names(&pipeline::Target {
            checked_memory: true,
            unroll_loops: true,
            ..Default::default()
        }),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "frnd",
            "structurize",
            "unroll",
            "simt",
            "checked"
        ]
    );
    // the target the SPIR-V options give
    let options = pisa_translator::spirv::Options {
        checked_memory: true,
        ..Default::default()
    };
    assert!(names(&options.target()).contains(&"checked"));
}

/// A load, a store, a vector load and an atomic, and `ld.param`, which
/// reads the argument block and is not checked.
const ACCESSES: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] %a)
{
	.shared .align 4 @s[16];
	.reg .64b %p;
	.reg .32b %x;
	.reg .v4.32b %v;
	ld.param.64b %p, [%a];
	ld.global.32b %x, [%p + 4];
	st.shared.32b [@s + 12], %x;
	ld.global.v4.32b %v, [%p];
	iatom.global.add.32b %x, [%p], %x;
	return;
}
";

/// `--print-after checked` shows a check before each access, with its
/// site (the instruction the check block reports), size and alignment;
/// without `--check` the pass does not run.
#[test]
fn print_after_checked_shows_the_checks() {
    let file = write("accesses.pisa", ACCESSES);
    let out = pisa()
        .args(["ir", "--check", "--print-after", "checked"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\
kernel @k(.param[8] %a) {
  regs %p.64b %x.32b %v.v4.32b
bb0:
    ld.param.64b %p, [%a]
    check.access site 0, 4 bytes, align 4
    ld.global.32b %x, [%p + 4]
    check.access site 1, 4 bytes, align 4
    st.shared.32b [@s + 12], %x
    check.access site 2, 16 bytes, align 4
    ld.global.v4.32b %v, [%p]
    check.access site 3, 4 bytes, align 4
    iatom.global.add.32b %x, [%p], %x
    return
}

structured @k:
bb0
return
"
    );
    let out = pisa()
        .args(["ir", "--print-after", "checked"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: pass `checked` does not run for this target (it runs with --check)\n"
    );
    let out = pisa().args(["ir", "--check"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The checks reach the back end as the IR says: the sites of the
/// layout are the pass's, one per access, and a program translated from
/// the finished IR is the one `translate_with` gives.
#[test]
fn checked_back_end_takes_the_checks_of_the_ir() {
    let m = pisa_translator::assemble("accesses.pisa", ACCESSES).unwrap();
    let options = pisa_translator::spirv::Options {
        checked_memory: true,
        ..Default::default()
    };
    let mut program = ir::lower(&m);
    pipeline::Pipeline::for_target(&options.target())
        .run(&mut program)
        .unwrap();
    assert_eq!(program.check_sites.len(), 4);
    let spv = pisa_translator::spirv::translate_program(&program, &options).unwrap();
    assert_eq!(spv.layout.check_sites, program.check_sites);
    let direct = pisa_translator::spirv::translate_with(&m, &options).unwrap();
    assert_eq!(spv.words, direct.words);
    // without the pass, nothing is checked
    let unchecked = pisa_translator::spirv::Options::default();
    let plain = pisa_translator::spirv::translate_with(&m, &unchecked).unwrap();
    assert!(plain.layout.check_sites.is_empty());
}

/// A check before an instruction that checks no address (here
/// `ld.param`) is a bug of a pass: the back end says so, as an internal
/// error, instead of checking something else.
#[test]
fn back_end_refuses_a_check_without_its_access() {
    let m = pisa_translator::assemble("accesses.pisa", ACCESSES).unwrap();
    let options = pisa_translator::spirv::Options {
        checked_memory: true,
        ..Default::default()
    };
    let mut program = ir::lower(&m);
    pipeline::Pipeline::for_target(&options.target())
        .run(&mut program)
        .unwrap();
    let insts = &mut program.functions[0].blocks[0].insts;
    assert!(matches!(insts[1], ir::Inst::CheckAccess(_)));
    let check = insts.remove(1);
    insts.insert(0, check);
    match pisa_translator::spirv::translate_program(&program, &options) {
        Err(pisa_translator::spirv::TranslateError::Internal(e)) => {
            assert_eq!(e, "a check before `ld.param.64b`, which checks no address")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("translated a check without its access"),
    }
}

fn print_after(pass: &str) -> String {
    let file = write("loop.pisa", LOOP);
    let out = pisa()
        .args(["ir", "--unroll-loops", "--print-after", pass])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The IR after each pass, as `pisa ir --print-after PASS` prints it.
#[test]
fn print_after_each_pass() {
    for pass in [
        "reducible",
        "shallow",
        "mathlib",
        "structurize",
        "unroll",
        "simt",
    ] {
        insta::assert_snapshot!(format!("print_after_{pass}"), print_after(pass));
    }
}

/// `--print-after` shows the same IR the library's callback gets.
#[test]
fn print_after_is_the_callbacks_ir() {
    let m = pisa_translator::assemble("loop.pisa", LOOP).unwrap();
    let mut program = ir::lower(&m);
    let mut seen = Vec::new();
    pipeline::Pipeline::for_target(&pipeline::Target {
        unroll_loops: true,
        ..Default::default()
    })
    .run_with(&mut program, &mut |pass, p| {
        seen.push((pass.name, pipeline::print(p)))
    })
    .unwrap();
    assert_eq!(seen.len(), 8);
    for (name, text) in seen {
        assert_eq!(print_after(name), text, "{name}");
    }
}

/// `mathlib` replaces a transcendental instruction by a call of the library
/// and links the library's functions.
#[test]
fn print_after_mathlib_links_the_library() {
    let src = ".version 0.1;\n.target 100;\n.function .32b @s(.reg .32b %x)\n{\n\tfsin.f %x, %x;\n\treturn %x;\n}\n";
    let file = write("sin.pisa", src);
    let run = |pass: &str| {
        let out = pisa()
            .args(["ir", "--print-after", pass])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run("shallow"),
        "function @s(.32b %x) -> .32b {\nbb0:\n    fsin.f %x, %x\n    return %x\n}\n"
    );
    let linked = run("mathlib");
    assert!(
        linked.starts_with(
            "function @s(.32b %x) -> .32b {\nbb0:\n    call %x, @__pisa_fsin_f(%x)\n    return %x\n}\n"
        ),
        "{linked}"
    );
    assert!(linked.contains("\nfunction @__pisa_fsin_f(.32b %src) -> .32b {\n"));
}

#[test]
fn print_after_refuses_unknown_and_absent_passes() {
    let file = write("loop.pisa", LOOP);
    let out = pisa()
        .args(["ir", "--print-after", "inline"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: unknown pass `inline` (passes: reducible, shallow, mathlib, fatom16, exactf32, exactf64, softf64, frnd, structurize, unroll, simt, checked)\n"
    );
    let out = pisa()
        .args(["ir", "--print-after", "unroll"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: pass `unroll` does not run for this target (it runs with --unroll-loops)\n"
    );
    let out = pisa()
        .args(["ir", "--unroll-loops"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The back end runs no pass: IR without its structured trees is refused
/// (an internal error, not a panic), and the finished IR translates to the
/// same SPIR-V as `spirv::translate_with`.
#[test]
fn back_end_takes_the_finished_ir() {
    let m = pisa_translator::assemble("loop.pisa", LOOP).unwrap();
    let options = pisa_translator::spirv::Options::default();
    let unfinished = ir::build(&m);
    match pisa_translator::spirv::translate_program(&unfinished, &options) {
        Err(pisa_translator::spirv::TranslateError::Internal(e)) => assert_eq!(
            e,
            "function @twice_entered has no structured tree (run ir::pipeline first)"
        ),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("translated IR the pipeline did not finish"),
    }
    for unroll_loops in [false, true] {
        let options = pisa_translator::spirv::Options {
            unroll_loops,
            ..Default::default()
        };
        let mut program = ir::lower(&m);
        pipeline::Pipeline::for_target(&options.target())
            .run(&mut program)
            .unwrap();
        let spv = pisa_translator::spirv::translate_program(&program, &options).unwrap();
        let direct = pisa_translator::spirv::translate_with(&m, &options).unwrap();
        assert_eq!(spv.words, direct.words);
    }
}

/// `program` (a pipeline run without some pass) is refused by the back end
/// as an internal error saying `want`.
fn refused_as_internal(
    program: &ir::Program,
    options: &pisa_translator::spirv::Options,
    want: &str,
) {
    match pisa_translator::spirv::translate_program(program, options) {
        Err(pisa_translator::spirv::TranslateError::Internal(e)) => assert_eq!(e, want),
        Err(e) => panic!("{want}: another error: {e}"),
        Ok(_) => panic!("translated: {want}"),
    }
}

/// `m`'s instruction `mnemonic`, translated with `options` but without the
/// numerics pass that replaces it (`exactf32` or `exactf64`), is an
/// internal error of the back end naming the pass; with it, `m` translates.
fn refused_without_the_pass(
    m: &pisa_translator::module::Module,
    options: &pisa_translator::spirv::Options,
    mnemonic: &str,
) {
    let pass = if options.exact_f32 {
        "exactf32"
    } else {
        "exactf64"
    };
    let mut target = options.target();
    target.exact_f32 = false;
    target.exact_f64 = false;
    let mut program = ir::lower(m);
    pipeline::Pipeline::for_target(&target)
        .run(&mut program)
        .unwrap();
    refused_as_internal(
        &program,
        options,
        &format!("`{mnemonic}` reached the back end: the IR pass {pass} replaces it by a call"),
    );
    let mut program = ir::lower(m);
    pipeline::Pipeline::for_target(&options.target())
        .run(&mut program)
        .unwrap();
    pisa_translator::spirv::translate_program(&program, options).unwrap();
}

/// An instruction the IR pass `exactf64` (or `exactf32`) replaces by a
/// call, reaching the back end unreplaced, is an internal error: the back
/// end has no inexact or f64 form of it. With the pass it translates.
#[test]
fn back_end_refuses_unreplaced_exact_operations() {
    let src = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %p)\n{\n\t.reg .64b %a;\n\t.reg .32b %x;\n\tld.param.64b %a, [%p];\n\tld.global.32b %x, [%a];\n\tfadd.rz.f %x, %x, %x;\n\tst.global.32b [%a], %x;\n\treturn;\n}\n";
    let m = pisa_translator::assemble("k.pisa", src).unwrap();
    for numerics in [
        pisa_translator::spirv::Numerics::F64,
        pisa_translator::spirv::Numerics::F32,
    ] {
        let options = pisa_translator::spirv::Options::default().with_numerics(numerics);
        refused_without_the_pass(&m, &options, "fadd.rz.f");
    }
}

/// The `.df` forms whose Vulkan form is not exact (directed rounding,
/// `fmad`, quotients and roots with exact division, `frsqrt`, `ftrunc`
/// from `.df` but to nearest into `.f`, `i2f` from 64 bits in a directed
/// mode) are calls of the soft-double library on devices with f64 too
/// (`ir::exactf64::df_replacement`): reaching the back end unreplaced
/// they are an internal error, as the `.f` forms are, `frc` (whose
/// subtraction rounds down) and the `.bf` arithmetic to nearest (rounded
/// into bfloat16 by the exact library). With the pass they translate.
#[test]
fn back_end_refuses_unreplaced_df_operations() {
    use pisa_translator::spirv::Numerics;
    let forms = [
        ("fadd.rz.df %d, %d, %d", Numerics::F64),
        ("fmul.rna.df %d, %d, %d", Numerics::F32),
        ("fmad.df %d, %d, %d, %d", Numerics::F64),
        ("fmad.rd.df %d, %d, %d, %d", Numerics::F32),
        ("fdiv.df %d, %d, %d", Numerics::F64),
        ("fsqrt.ru.df %d, %d", Numerics::F32),
        ("frsqrt.fast.df %d, %d", Numerics::F64),
        ("ftrunc.f.df.rz %x, %d", Numerics::F64),
        ("ftrunc.hf.df %h, %d", Numerics::F64),
        ("i2f.df.s64.rd %d, %d", Numerics::F32),
        ("frc.f %x, %x", Numerics::F64),
        ("frc.ftz.f %x, %x", Numerics::F32),
        ("fadd.bf %h, %h, %h", Numerics::F64),
        ("fmul.bf %h, %h, %h", Numerics::F32),
        ("fdiv.fast.bf %h, %h, %h", Numerics::F64),
        ("frcp.bf %h, %h", Numerics::F64),
    ];
    for (form, numerics) in forms {
        let src = format!(".version 0.1;\n.target 100;\n.kernel @k(.param[8] %p)\n{{\n\t.reg .64b %a, %d;\n\t.reg .32b %x;\n\t.reg .16b %h;\n\tld.param.64b %a, [%p];\n\tld.global.64b %d, [%a];\n\t{form};\n\tst.global.64b [%a], %d;\n\tst.global.32b [%a], %x;\n\tst.global.16b [%a], %h;\n\treturn;\n}}\n");
        let m = pisa_translator::assemble("k.pisa", &src).unwrap();
        let options = pisa_translator::spirv::Options::default().with_numerics(numerics);
        refused_without_the_pass(&m, &options, form.split(' ').next().unwrap());
    }
}

/// docs/control-flow.md shows the pipeline as `pisa ir --passes
/// --unroll-loops` prints it.
#[test]
fn docs_show_the_pipeline() {
    let out = pisa()
        .args(["ir", "--passes", "--unroll-loops"])
        .output()
        .unwrap();
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/control-flow.md"))
        .unwrap();
    let listed = format!("```\n{}```\n", String::from_utf8_lossy(&out.stdout));
    assert!(
        doc.contains(&listed),
        "docs/control-flow.md lacks:\n{listed}"
    );
}

/// `--numerics` and `--profile` choose the numerics passes of `--passes` and `--print-after`
/// as they choose the translation (`pisa spirv`): `f32` adds `exactf32`, `soft` also
/// `softf64`, a profile without f64 both; `--numerics f64` under such a profile is refused
/// (exit 3); without `--passes` or `--print-after` either is a usage error.
#[test]
fn numerics_choose_the_passes() {
    let list = |args: &[&str]| {
        let out = pisa()
            .args(["ir", "--passes"])
            .args(args)
            .env_remove("PISA_DEVICE_PROFILE")
            .env_remove("PISA_SPIRV_OPTIONS")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let base = [
        "reducible",
        "shallow",
        "mathlib",
        "fatom16",
        "exactf64",
        "frnd",
        "structurize",
        "simt",
    ];
    assert_eq!(list(&[]), base);
    assert_eq!(list(&["--numerics", "f64"]), base);
    assert_eq!(
        list(&["--numerics", "f32"]),
        [
            "reducible",
            "shallow",
            "mathlib",
            "fatom16",
            "exactf32",
            "frnd",
            "structurize",
            "simt"
        ]
    );
    let soft = [
        "reducible",
        "shallow",
        "mathlib",
        "fatom16",
        "exactf32",
        "softf64",
        "frnd",
        "structurize",
        "simt",
    ];
    assert_eq!(list(&["--numerics", "soft"]), soft);
    let m1 = format!(
        "{}/../shared/device-profiles/apple_m1_0_2_2015_osx_14_3.json",
        env!("CARGO_MANIFEST_DIR")
    );
    // the M1 has no f64 and caps no loops
    assert_eq!(list(&["--profile", &m1]), soft);
    let out = pisa()
        .args(["ir", "--passes", "--numerics", "f64", "--profile", &m1])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shaderFloat64"));
    let file = write("loop.pisa", LOOP);
    for args in [["--numerics", "soft"], ["--profile", m1.as_str()]] {
        let out = pisa().arg("ir").args(args).arg(&file).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr)
            .contains("chooses the passes of --passes and --print-after"));
    }
}

/// `--print-after softf64 --numerics soft` shows `.df` work as calls of the soft-double
/// library and a `.df` atomic as its compare-and-swap loop; without `--numerics soft` the pass
/// does not run, and the error says how to run it.
#[test]
fn print_after_softf64_shows_the_library_calls() {
    let file = write(
        "df.pisa",
        ".version 0.1;
.target 100;
.kernel @k(.param[8] %a)
{
	.reg .64b %p, %x, %y;
	ld.param.64b %p, [%a];
	ld.global.64b %x, [%p];
	frsqrt.fast.df %y, %x;
	fatom.global.add.df %x, [%p + 8], %y;
	return;
}
",
    );
    let text = pisa_stdout(
        &["ir", "--numerics", "soft", "--print-after", "softf64"],
        &file,
    );
    assert!(
        text.contains("call %y, @__pisa_sd_rsqrt(%x, 0x0)"),
        "{text}"
    );
    assert!(
        text.contains("iatom.global.cas.64b") && text.contains("@__pisa_sd_add("),
        "{text}"
    );
    assert!(
        !text.contains("fatom") && !text.contains("frsqrt"),
        "{text}"
    );
    let out = pisa()
        .args(["ir", "--print-after", "softf64"])
        .arg(&file)
        .env_remove("PISA_DEVICE_PROFILE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: pass `softf64` does not run for this target (it runs with --numerics soft)\n"
    );
}

/// A kernel with the 16-bit float atomics that round (`fatom16`) and the
/// roundings to integral values (`frnd`).
const ROUNDS: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] %a)
{
	.shared .align 4 @s[4];
	.reg .64b %p;
	.reg .32b %x;
	.reg .16b %h, %b;
	ld.param.64b %p, [%a];
	ld.global.16b %h, [%p];
	fatom.global.acq_rel.gpu.add.bf %b, [%p + 2], %h;
	fatom.shared.sub.hf %b, [@s + 2], %h;
	frnd.rna.ftz.bf %h, %b;
	f2i.s32.hf.rd %x, %h;
	st.global.16b [%p], %h;
	st.global.32b [%p + 8], %x;
	return;
}
";

/// `--print-after fatom16` shows each `fatom.add`/`.sub` on `.bf`/`.hf` as
/// a compare-and-swap loop of 16-bit integer atomics around `fadd.bf`
/// (`.hf`: `fsub.f` of the widened values, `ftrunc.hf.f`), which
/// `exactf64` then makes calls of the exact library, the atomic's
/// ordering on the compare-and-swap; `--print-after
/// frnd` shows `frnd` and `f2i.rd` as integer instructions and a
/// mode-less `f2i`. Emission rounds neither: without the pass, the back
/// end refuses each as an internal error naming it.
#[test]
fn fatom16_and_frnd_leave_the_back_end_no_rounding() {
    let file = write("rounds.pisa", ROUNDS);
    let text = pisa_stdout(&["ir", "--print-after", "fatom16"], &file);
    for want in [
        "iatom.global.or.16b",
        "iatom.global.acq_rel.gpu.cas.16b",
        "fadd.bf",
        "iatom.shared.or.16b",
        "iatom.shared.cas.16b",
        "fext.f.hf",
        "fsub.f",
        "ftrunc.hf.f",
        "ucmp.eq.16b",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert!(!text.contains("fatom"), "{text}");
    let text = pisa_stdout(&["ir", "--print-after", "exactf64"], &file);
    assert!(
        text.contains("@__pisa_xh_") && !text.contains("fadd.bf"),
        "{text}"
    );
    let text = pisa_stdout(&["ir", "--print-after", "frnd"], &file);
    assert!(!text.contains("frnd") && !text.contains(".rd"), "{text}");
    assert!(text.contains("f2i.s32.hf %"), "{text}");
    let m = pisa_translator::assemble("rounds.pisa", ROUNDS).unwrap();
    for numerics in [
        pisa_translator::spirv::Numerics::F64,
        pisa_translator::spirv::Numerics::F32,
    ] {
        let options = pisa_translator::spirv::Options::default().with_numerics(numerics);
        for (pass, refused) in [
            ("fatom16", "`fatom.global.acq_rel.gpu.add.bf` reached the back end: the IR pass fatom16 makes it a loop"),
            ("frnd", "`frnd.rna.ftz.bf` reached the back end: the IR pass frnd rounds it in integers"),
        ] {
            let mut program = ir::lower(&m);
            pipeline::Pipeline::for_target(&options.target())
                .without(pass)
                .run(&mut program)
                .unwrap();
            refused_as_internal(&program, &options, refused);
        }
        let mut program = ir::lower(&m);
        pipeline::Pipeline::for_target(&options.target())
            .run(&mut program)
            .unwrap();
        pisa_translator::spirv::translate_program(&program, &options).unwrap();
    }
}

/// A kernel that needs sub-groups: a divergent `if`, a loop with a
/// cross-lane instruction left by a `break`, a read of `%activemask` and a
/// call of a function that needs sub-groups.
const SIMT: &str = "// sub-groups: the simt pass
.version 0.1;
.target 100;
.function .32b @total(.reg .32b %x)
{
\t.reg .32b %s;
\tired.sum.32b %s, %x, 0xffffffff;
\treturn %s;
}
.kernel @k(.param[8] %out)
{
\t.reg .32b %lane, %v, %i, %t;
\t.reg .64b %o, %p;
\t.pred %q;
\tmov.32b %lane, %laneid;
\tmov.32b %i, 0;
\tand.32b %t, %lane, 1;
\tucmp.eq.32b %q, %t, 0;
\tgoto.cond %q, even;
\tiadd.32b %lane, %lane, 7;
even:
\tshfl.idx.32b %v, %lane, 0, 0xffffffff;
\tiadd.32b %i, %i, 1;
\tucmp.lt.32b %q, %i, %lane;
\tgoto.cond %q, even;
\tmov.32b %t, %activemask;
\tcall %v, @total(%v);
\tiadd.32b %v, %v, %t;
\tld.param.64b %o, [%out];
\tumul.full.32b %p, %lane, 4;
\tiadd.64b %p, %o, %p;
\tst.global.32b [%p], %v;
}
";

/// `simt` rewrites the functions that need sub-groups: the lane state,
/// guards, the work-group-wide vote of a loop with a sync point, the
/// exchanges, the caller's active flag; the SPIR-V back end lowers the
/// result (and spirv-val accepts it).
#[test]
fn print_after_simt_shows_simt_mode() {
    let file = write("simt.pisa", SIMT);
    let text = pisa_stdout(&["ir", "--print-after", "simt"], &file);
    for want in [
        "simt.start",
        "simt.transition %$simt_state",
        "simt.any %$simt_any = any %$simt_active",
        "simt.crosslane [%$simt_active] shfl.idx.32b",
        "simt.crosslane [%$simt_active] ired.sum.32b",
        "simt.activemask %$simt_activemask = mask %$simt_active",
        "mov.32b %t, %$simt_activemask",
        "simt.call [%$simt_active] call",
        "simt.result %$simt_result = %s",
        "-> returned",
    ] {
        assert!(text.contains(want), "lacks `{want}`:\n{text}");
    }
    insta::assert_snapshot!("print_after_simt_mode", text);
    // the back end lowers it; the cpu device runs the source itself
    let m = pisa_translator::assemble("simt.pisa", SIMT).unwrap();
    let spirv = pisa_translator::spirv::translate(&m).unwrap();
    assert!(!spirv.words.is_empty());
}
