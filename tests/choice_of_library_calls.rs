//! Which instructions the numerics passes replace, and by what
//! (`translator/src/ir/exactf32/`, `exactf64/`, `softf64/`, `mathlib/`;
//! docs/numerics.md): every float form the assembler takes, from a grid of
//! opcodes, types, rounding modes and modifiers, with the library entry
//! point and flags argument each pass's choice gives it, as one table
//! (`tests/snapshots/choice_of_library_calls__replacements.snap`, reviewed with
//! `cargo insta review`).
//!
//! The tests that run the libraries (`tests/exact_f32.rs`,
//! `tests/exact_f16.rs`, `tests/soft_f64.rs`, `tests/mathlib.rs`) compare
//! their results with the cpu device's own, which computes every form
//! exactly whether a pass replaced it or not: a form a pass wrongly leaves
//! to the device, or wrongly replaces, gives the same bits there. This
//! table is what tells (the mutation run of docs/testing.md, "The numerics
//! passes", found such changes no test noticed).

use pisa_interp::CpuDevice;
use pisa_translator::ir;
use pisa_translator::ir::exactf64::Native;
use pisa_vk_runtime::{Device, Launch, NdRange};

const ROUND: [&str; 6] = ["", ".re", ".rz", ".ru", ".rd", ".rna"];
const FLOAT: [&str; 6] = ["f", "hf", "bf", "df", "hfx2", "bfx2"];
const INT: [&str; 8] = ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"];

/// A register of `ty`'s width (`p` a predicate, `m32` a 32-bit mask).
fn reg(ty: &str, k: usize) -> String {
    let class = match ty {
        "p" => "p",
        "hf" | "bf" | "s16" | "u16" => "h",
        "s8" | "u8" => "b",
        "f" | "s32" | "u32" | "m32" => "s",
        "hfx2" | "bfx2" => "v",
        _ => "d",
    };
    format!("%{class}{k}")
}

/// The candidate instructions: (mnemonic, destination type, source types).
fn candidates() -> Vec<(String, String, Vec<String>)> {
    let mut v = Vec::new();
    let arith: [(&str, usize); 17] = [
        ("fadd", 2),
        ("fsub", 2),
        ("fmul", 2),
        ("fdiv", 2),
        ("fmin", 2),
        ("fmax", 2),
        ("fmad", 3),
        ("frcp", 1),
        ("fsqrt", 1),
        ("frsqrt", 1),
        ("frc", 1),
        ("fabs", 1),
        ("fneg", 1),
        ("frnd", 1),
        ("fsin", 1),
        ("fexp2", 1),
        ("ftanh", 1),
    ];
    for (op, n) in arith {
        for ty in FLOAT {
            for m in ROUND {
                for ftz in ["", ".ftz"] {
                    for extra in ["", ".dsat", ".fast", ".nanp", ".full"] {
                        // `.full` comes first, the others after the mode
                        let mnemonic = if extra == ".full" {
                            format!("{op}.full{m}{ftz}.{ty}")
                        } else {
                            format!("{op}{m}{ftz}{extra}.{ty}")
                        };
                        let dst = if extra == ".full" {
                            match ty {
                                "hf" | "bf" => "f",
                                "f" => "df",
                                _ => continue,
                            }
                        } else {
                            ty
                        };
                        v.push((mnemonic, dst.to_string(), vec![ty.to_string(); n]));
                    }
                }
            }
        }
    }
    for ty in ["f", "hf", "df"] {
        for c in ["eq", "ne", "lt"] {
            for ftz in ["", ".ftz"] {
                for dst in ["p", "m32"] {
                    let srcs = vec![ty.to_string(); 2];
                    v.push((format!("fcmp.{c}{ftz}.{ty}"), dst.into(), srcs));
                }
            }
        }
    }
    let narrow = ["f", "hf", "bf"];
    for m in ROUND {
        for extra in ["", ".ftz", ".dsat", ".ftz.dsat"] {
            for to in ["f", "hf", "bf"] {
                for from in ["f", "df"] {
                    let mnemonic = format!("ftrunc.{to}.{from}{m}{extra}");
                    v.push((mnemonic, to.into(), vec![from.into()]));
                }
            }
            for to in ["hfx2", "bfx2"] {
                let mnemonic = format!("ftrunc2.{to}{m}{extra}");
                v.push((mnemonic, to.into(), vec!["f".into(); 2]));
            }
            for i in INT {
                for f in ["f", "hf", "bf", "df"] {
                    v.push((format!("i2f.{f}.{i}{m}{extra}"), f.into(), vec![i.into()]));
                    v.push((format!("f2i.{i}.{f}{m}{extra}"), i.into(), vec![f.into()]));
                }
            }
        }
    }
    for from in narrow {
        for to in ["f", "df"] {
            for ftz in ["", ".ftz"] {
                v.push((
                    format!("fext.{to}.{from}{ftz}"),
                    to.into(),
                    vec![from.into()],
                ));
            }
        }
    }
    v
}

/// The kernel of one instruction, if the assembler takes it.
fn assemble(mnemonic: &str, dst: &str, srcs: &[String]) -> Option<pisa_translator::Module> {
    let ops: Vec<String> = std::iter::once(reg(dst, 0))
        .chain(srcs.iter().enumerate().map(|(k, t)| reg(t, k + 1)))
        .collect();
    let src = format!(
        ".version 0.1;\n.target 100;\n.kernel @k()\n{{\n\t.reg .8b %b0, %b1, %b2, %b3;\n\t.reg .16b %h0, %h1, %h2, %h3;\n\t.reg .32b %s0, %s1, %s2, %s3;\n\t.reg .64b %d0, %d1, %d2, %d3;\n\t.reg .v2.16b %v0, %v1, %v2, %v3;\n\t.pred %p0;\n\t{mnemonic} {};\n\treturn;\n}}\n",
        ops.join(", ")
    );
    pisa_translator::assemble("t.pisa", &src).ok()
}

fn show(r: Option<(String, u64)>) -> String {
    match r {
        Some((entry, flags)) => format!("{entry}({flags:#x})"),
        None => "-".into(),
    }
}

/// The table: per form, what each pass's choice gives it under each
/// device's options (`Native`: the device's own division, `Fma` and
/// rounding into `.hf`).
fn table() -> String {
    let all = Native {
        division: true,
        fma_f32: true,
        fma_f64: true,
        float16: true,
    };
    let f16 = Native {
        float16: true,
        ..Native::default()
    };
    let division = Native {
        float16: false,
        ..all
    };
    let mut out = String::from(
        "form: exactf32 (float16) | exactf32 (no float16) | exactf64 | exactf64 (float16) | exactf64 (all native) | exactf64 (native division, fma, no float16) | df | df (native division, fused f64 fma) | softf64 | mathlib\n",
    );
    let mut forms = 0;
    for (mnemonic, dst, srcs) in candidates() {
        let Some(m) = assemble(&mnemonic, &dst, &srcs) else {
            continue;
        };
        let p = ir::build(&m);
        let i = p.functions[0]
            .pisa_insts()
            .next()
            .expect("the kernel's instruction");
        let x32 = |r: Option<ir::exactf32::Replacement>| r.map(|r| (r.entry, r.flags));
        let row = [
            show(x32(ir::exactf32::replacement_for(i, true))),
            show(x32(ir::exactf32::replacement_for(i, false))),
            show(x32(ir::exactf64::replacement(i, Native::default()))),
            show(x32(ir::exactf64::replacement(i, f16))),
            show(x32(ir::exactf64::replacement(i, all))),
            show(x32(ir::exactf64::replacement(i, division))),
            show(ir::exactf64::df_replacement(i, Native::default())),
            show(ir::exactf64::df_replacement(i, all)),
            show(ir::softf64::replacement(i)),
            if ir::mathlib::implements(i) {
                "mathlib".into()
            } else {
                "-".into()
            },
        ];
        if row.iter().all(|c| c == "-") {
            continue;
        }
        forms += 1;
        out.push_str(&format!("{}: {}\n", i.mnemonic_text(), row.join(" | ")));
    }
    out.push_str(&format!("{forms} forms\n"));
    out
}

/// The table of every replaced form is the reviewed one.
#[test]
fn replacements() {
    insta::assert_snapshot!(table());
}

/// Instructions with literal sources, each with its destination register
/// and width; `%a` is 1.5 in `.f`, `%hh` 1.5 in `.hf`, `%d` 1.5 in `.df`.
const LITERALS: &[(&str, &str, u32)] = &[
    ("fadd.rz.f %r, %a, 0x3F800001", "%r", 32),
    ("fadd.rz.f %r, %a, 0.1", "%r", 32),
    ("fadd.rz.f %r, %a, 3", "%r", 32),
    ("fmad.f %r, %a, 1.1, -2.5", "%r", 32),
    ("fdiv.f %r, 1.0, %a", "%r", 32),
    ("frcp.f %r, 3.0", "%r", 32),
    ("fadd.rz.hf %h, %hh, 1.5", "%h", 16),
    ("fadd.rz.bf %h, %hh, 1.5", "%h", 16),
    ("fadd.rz.hf %h, %hh, 0x3C01", "%h", 16),
    ("fmul.rz.bf %h, %hh, 0.3", "%h", 16),
    ("fmul.bf %h, %hh, 3", "%h", 16),
    ("fadd.hf %h, %hh, 0.1", "%h", 16),
    ("ftrunc.hf.f.rz %h, 1.1", "%h", 16),
    ("ftrunc.bf.f.rz %h, 0x3F8CCCCD", "%h", 16),
    ("i2f.hf.s32.rz %h, 7", "%h", 16),
    ("i2f.f.s32.rz %r, -123456789", "%r", 32),
    ("i2f.f.u32.rz %r, 0xFFFFFFFF", "%r", 32),
    ("fadd.rz.df %dr, %d, 0.1", "%dr", 64),
    ("fadd.rz.df %dr, %d, 3", "%dr", 64),
    ("fadd.rz.df %dr, %d, 0x3FF0000000000001", "%dr", 64),
    ("fmad.df %dr, %d, 1.1, 2.2", "%dr", 64),
    ("fadd.df %dr, %d, 7", "%dr", 64),
    ("fext.df.f %dr, 1.5", "%dr", 64),
    ("fext.df.hf %dr, 0.1", "%dr", 64),
    ("ftrunc.f.df.rz %r, 0.1", "%r", 32),
    ("ftrunc.hf.df %h, 0.3", "%h", 16),
    ("ftrunc.bf.df.ru %h, 0x3FB999999999999A", "%h", 16),
    ("f2i.s32.df.rz %r, 2.5", "%r", 32),
    ("i2f.df.s64.rd %dr, -3", "%dr", 64),
    ("i2f.df.u64.rz %dr, 0xFFFFFFFFFFFFFFFF", "%dr", 64),
    ("fcmp.lt.df %r, %d, 0.5", "%r", 32),
    ("fsin.f %r, 0x3F800000", "%r", 32),
    ("fexp2.hf %h, 1.5", "%h", 16),
    ("flog2.bf %h, 3", "%h", 16),
];

/// The program of [`LITERALS`]: each result stored at 8·k.
fn literals_program() -> String {
    let mut src = String::from(
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %out)\n{\n\t.reg .64b %o, %d, %dr;\n\t.reg .32b %a, %r;\n\t.reg .16b %hh, %h;\n\tld.param.64b %o, [%out];\n\tmov.32b %a, 0x3FC00000;\n\tmov.16b %hh, 0x3E00;\n\tmov.64b %d, 0x3FF8000000000000;\n",
    );
    for (k, (inst, dst, bits)) in LITERALS.iter().enumerate() {
        src.push_str(&format!(
            "\t{inst};\n\tst.global.{bits}b [%o + {}], {dst};\n",
            8 * k
        ));
    }
    src.push_str("\treturn;\n}\n");
    src
}

/// The output of the one work-item of `@k`.
fn run_literals(cpu: &mut CpuDevice, prog: pisa_vk_runtime::ProgramId) -> Vec<u8> {
    let out = cpu.alloc_buffer(8 * LITERALS.len() as u64).unwrap();
    cpu.upload(out, 0, &vec![0; 8 * LITERALS.len()]).unwrap();
    let args = vec![cpu.buffer_address(out).unwrap().to_le_bytes().to_vec()];
    cpu.launch(&Launch {
        program: prog,
        kernel: "k".into(),
        range: NdRange::d1(1).local([1, 1, 1]),
        args,
    })
    .unwrap();
    let bytes = cpu.download(out).unwrap();
    cpu.free_buffer(out);
    bytes
}

/// Literal sources keep their values through every pass: each numerics
/// choice's passes (the math library's, then the f32 one's, then the `.df`
/// ones) give the cpu device's own results.
#[test]
fn literal_sources_keep_their_values() {
    let src = literals_program();
    let m = pisa_translator::assemble("literals.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let want = run_literals(&mut cpu, reference);
    type Passes = fn(&mut ir::Program);
    let choices: [(&str, Passes); 4] = [
        ("exactf32 (float16), df", |p| {
            ir::exactf32::link_for(p, true);
            ir::exactf64::link_df(p, Native::default(), "exactf32");
        }),
        ("exactf32 (no float16), softf64", |p| {
            ir::exactf32::link_for(p, false);
            ir::softf64::link(p);
        }),
        ("exactf64, df", |p| {
            ir::exactf64::link(p, Native::default());
            ir::exactf64::link_df(p, Native::default(), "exactf64");
        }),
        ("exactf64 (float16), softf64", |p| {
            ir::exactf64::link(
                p,
                Native {
                    float16: true,
                    ..Native::default()
                },
            );
            ir::softf64::link(p);
        }),
    ];
    for (name, passes) in choices {
        let mut p = ir::build(&m);
        ir::mathlib::link(&mut p);
        passes(&mut p);
        let prog = cpu.load_program(&p, &src).unwrap();
        let got = run_literals(&mut cpu, prog);
        let wrong: Vec<String> = LITERALS
            .iter()
            .enumerate()
            .filter(|(k, _)| got[8 * k..8 * k + 8] != want[8 * k..8 * k + 8])
            .map(|(k, (inst, _, _))| {
                format!(
                    "{inst}: {:02x?}, want {:02x?}",
                    &got[8 * k..8 * k + 8],
                    &want[8 * k..8 * k + 8]
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{name}: {}", wrong.join("; "));
    }
}

/// The code a pass links in is told from the program's own by its spans
/// (`mathlib::in_library`, `exactf64::in_library`: the back end's messages
/// about library code, and its narrowing in the f64 library).
#[test]
fn library_code_is_told_from_the_programs() {
    let m = pisa_translator::assemble("literals.pisa", &literals_program()).unwrap();
    let mut p = ir::build(&m);
    ir::mathlib::link(&mut p);
    let mut q = ir::build(&m);
    ir::exactf64::link(&mut q, Native::default());
    for (p, in_library) in [
        (&p, ir::mathlib::in_library as fn(_) -> bool),
        (&q, ir::exactf64::in_library),
    ] {
        let (kernel, library): (Vec<_>, Vec<_>) =
            p.functions.iter().partition(|f| p.name(f.name) == "k");
        assert_eq!(kernel.len(), 1);
        assert!(!library.is_empty());
        assert!(!in_library(kernel[0].span));
        for f in library {
            assert!(in_library(f.span), "@{}", p.name(f.name));
        }
    }
}

/// A `.df` `fcmp` into a predicate becomes the library's 32-bit mask in a
/// register of its own, then `ucmp.ne.32b` into the predicate (a call's
/// result is never a predicate: the back end has no such call).
#[test]
fn a_df_compare_into_a_predicate_goes_through_a_mask() {
    let m = assemble("fcmp.lt.df", "p", &["df".into(), "df".into()]).unwrap();
    let mut p = ir::build(&m);
    ir::softf64::link(&mut p);
    let text = ir::print::print(&p);
    assert!(
        text.contains("@__pisa_sd_cmp(%d1, %d2, 0x4)") && text.contains("ucmp.ne.32b %p0, %$sd"),
        "{text}"
    );
}
