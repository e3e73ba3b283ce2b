//! Golden tests of the IR passes: for each control-flow shape in `tests/ir/`,
//! the IR after `ir::build` (and the reducibility pass) and the structured
//! tree the SPIR-V back end emits, as text (`pisa ir FILE --structured`).
//! A change in a pass shows up as a reviewable diff (`cargo insta review`,
//! or `INSTA_UPDATE=always`). Every module must also pass spirv-val
//! (`vulkan1.2`; `spv1.5` for libraries, which need `Linkage`).

mod common;

use pisa_translator::ir;

fn golden(name: &str) -> String {
    let path = format!("{}/tests/ir/{name}.pisa", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    let m = pisa_translator::assemble(&path, &src).unwrap_or_else(|d| panic!("{d}"));
    let program = ir::build(&m);
    ir::verify::verify(&program).unwrap();
    let mut out = ir::print::print(&program);
    for f in program.functions.iter().filter(|f| !f.is_declaration()) {
        let tree = ir::structurize::structurize(f).unwrap();
        out.push_str(&format!("\nstructured @{}:\n", m.name(f.name)));
        out.push_str(&ir::structurize::print(&tree));
        let mut unrolled = tree.clone();
        ir::unroll::unroll_loops(f, &mut unrolled);
        if format!("{unrolled:?}") != format!("{tree:?}") {
            out.push_str(&format!(
                "(innermost loops unrolled x{})\n",
                ir::unroll::FACTOR
            ));
        }
    }
    // modules without kernels are libraries (Linkage): SPIR-V 1.5 rules
    let kernels = program
        .functions
        .iter()
        .any(|f| f.kind == pisa_translator::syntax::ast::FuncKind::Kernel);
    let env = if kernels { "vulkan1.2" } else { "spv1.5" };
    for unroll_loops in [false, true] {
        let options = pisa_translator::spirv::Options {
            unroll_loops,
            ..Default::default()
        };
        let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
        if let Some(r) = common::spirv_val(&spv.words, env) {
            r.unwrap_or_else(|e| panic!("{name} (unroll {unroll_loops}): spirv-val: {e}"));
        }
    }
    out
}

macro_rules! golden {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), golden(stringify!($name)));
        }
    )*};
}

golden!(
    diamond,
    while_loop,
    two_exits,
    nested_continue,
    irreducible,
    barrier_exit
);
