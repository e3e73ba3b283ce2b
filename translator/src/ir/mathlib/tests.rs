use super::*;

#[test]
fn the_library_assembles_with_an_entry_point_per_form() {
    for kernels in [Kernels::F64, Kernels::F32] {
        the_library_has_every_entry_point(kernels);
    }
}

fn the_library_has_every_entry_point(kernels: Kernels) {
    let m = crate::assemble(LIBRARY_FILE, library_source(kernels))
        .unwrap_or_else(|e| panic!("{}", e.render()));
    for op in entry::OPERATIONS {
        for ty in entry::SCALAR_TYPES.iter().chain(entry::PACKED_TYPES) {
            for ftz in [false, true] {
                let name = entry::entry_name(&entry::mnemonic(op, ty, ftz));
                assert!(m.ast.interner.get(&name).is_some(), "no entry point {name}");
            }
        }
    }
}

const PROGRAM: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] .addrspace(global) %p)
{
	.reg .32b %x, %y;
	.reg .16b %h;
	.reg .64b %q;
	ld.param.64b %q, [%p];
	ld.global.32b %x, [%q];
	fsin.f %y, %x;
	fexp2.ftz.hf %h, 1.5;
	st.global.32b [%q], %y;
}
";

#[test]
fn instructions_become_calls_of_linked_entry_points() {
    let m = crate::assemble("t.pisa", PROGRAM).unwrap();
    let mut p = build(&m);
    link(&mut p);
    let text = print::print(&p);
    assert!(text.contains("call %y, @__pisa_fsin_f(%x)"), "{text}");
    // the literal 1.5 as its half-precision bits
    assert!(
        text.contains("call %h, @__pisa_fexp2_ftz_hf(0x3e00)"),
        "{text}"
    );
    for f in [
        "__pisa_sin_cos_f32",
        "__pisa_reduce_half_pi",
        "__pisa_exp2_df",
    ] {
        assert!(
            p.symbols.get(f).and_then(|n| p.function(n)).is_some(),
            "{f} not linked"
        );
    }
    // only what is used
    assert!(p
        .symbols
        .get("__pisa_log2_df")
        .and_then(|n| p.function(n))
        .is_none());
    // library code is located in the library's text
    let f = p
        .function(p.symbols.get("__pisa_exp2_df").unwrap())
        .unwrap();
    assert!(
        p.source.describe(f.span).starts_with(LIBRARY_FILE),
        "{}",
        p.source.describe(f.span)
    );
    let k = &p.functions[0];
    assert_eq!(p.source.describe(k.span), "t.pisa:3:1");
}

#[test]
fn a_program_without_such_instructions_is_left_alone() {
    let m = crate::assemble(
        "t.pisa",
        ".version 0.1;\n.target 100;\n.kernel @k()\n{\n\treturn;\n}\n",
    )
    .unwrap();
    let mut p = build(&m);
    link(&mut p);
    assert_eq!(p.functions.len(), 1);
    assert_eq!(p.source.files.len(), 1);
}

/// The f32 kernels are for devices without 64-bit floats: no f64 type, no
/// 64-bit register, no `.full` product (a 64-bit result), no `fmad` (a
/// driver's `Fma` need not be fused).
#[test]
fn the_f32_kernels_use_no_64_bit_types() {
    let src = library_source(Kernels::F32);
    let m = crate::assemble(LIBRARY_FILE, src).unwrap_or_else(|e| panic!("{}", e.render()));
    let p = build(&m);
    for f in &p.functions {
        for i in f.pisa_insts() {
            let text = i.mnemonic_text();
            assert!(
                !text.contains(".df")
                    && !text.contains("64")
                    && !text.contains(".full")
                    && !text.starts_with("fmad")
                    && !text.starts_with("fdiv")
                    && !text.starts_with("fsqrt"),
                "`{text}` in @{}",
                p.name(f.name)
            );
        }
    }
    let code: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    assert!(!code.contains(".64b") && !code.contains(".v2.64b"));
}

#[test]
fn the_f32_kernels_are_linked_on_request() {
    let m = crate::assemble("t.pisa", PROGRAM).unwrap();
    let mut p = build(&m);
    link_with(&mut p, Kernels::F32);
    let text = print::print(&p);
    assert!(text.contains("call %y, @__pisa_fsin_f(%x)"), "{text}");
    for f in [
        "__pisa_f32_sin_cos",
        "__pisa_f32_reduce_half_pi",
        "__pisa_f32_exp2",
    ] {
        assert!(
            p.symbols.get(f).and_then(|n| p.function(n)).is_some(),
            "{f} not linked"
        );
    }
    for f in ["__pisa_sin_cos_f32", "__pisa_exp2_df"] {
        assert!(p.symbols.get(f).and_then(|n| p.function(n)).is_none());
    }
}
