use super::*;

#[test]
fn the_library_assembles_with_an_entry_point_per_form() {
    let m = crate::assemble(LIBRARY_FILE, library_source())
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
