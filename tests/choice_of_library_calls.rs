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

use pisa_translator::ir;
use pisa_translator::ir::exactf64::Native;

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
        float16: true,
    };
    let f16 = Native {
        float16: true,
        ..Native::default()
    };
    let mut out = String::from(
        "form: exactf32 (float16) | exactf32 (no float16) | exactf64 | exactf64 (float16) | exactf64 (all native) | df | df (native division) | softf64 | mathlib\n",
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
