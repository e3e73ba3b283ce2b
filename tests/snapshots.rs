//! Snapshots of the SPIR-V disassembly of small modules. A change in
//! lowering shows up as a reviewable diff (`cargo insta review`).

fn dis(src: &str) -> String {
    let m = pisa_translator::assemble("snap.pisa", src).expect("assembles");
    pisa_translator::spirv::translate(&m)
        .expect("translates")
        .disassemble()
}

#[test]
fn straight_line_kernel() {
    insta::assert_snapshot!(dis(".version 0.1;\n.target 100;\n\
         .kernel @add_one(.param[8] %buf)\n{\n\t.reg .64b %p, %o, %a;\n\t.reg .32b %i, %v;\n\
         \tld.param.64b %p, [%buf];\n\tmov.32b %i, %localid.x;\n\tumul.full.32b %o, %i, 4;\n\
         \tiadd.64b %a, %p, %o;\n\tld.global.32b %v, [%a];\n\tiadd.32b %v, %v, 1;\n\
         \tst.global.32b [%a], %v;\n\treturn;\n}\n"));
}

#[test]
fn loop_with_goto() {
    insta::assert_snapshot!(dis(".version 0.1;\n.target 100;\n\
         .function .32b @sum(.reg .32b %n)\n{\n\t.reg .32b %i, %s;\n\t.pred %p;\n\
         \tmov.32b %i, 0;\n\tmov.32b %s, 0;\nloop:\n\tiadd.32b %s, %s, %i;\n\tiadd.32b %i, %i, 1;\n\
         \tucmp.lt.32b %p, %i, %n;\n\tgoto.cond %p, loop;\n\treturn %s;\n}\n\
         .kernel @k()\n{\n\t.reg .32b %r;\n\tcall %r, @sum(%r);\n\treturn;\n}\n"));
}

#[test]
fn shared_memory_and_barrier() {
    insta::assert_snapshot!(dis(".version 0.1;\n.target 100;\n\
         .kernel @k()\n{\n\t.shared .align 4 @tile[64];\n\t.reg .32b %i, %a;\n\t.reg .8b %v;\n\
         \tmov.32b %i, %localid.x;\n\tshl.32b %a, %i, 2;\n\tst.shared.32b [@tile + %a], %i;\n\
         \tbarrier.workgroup;\n\tld.shared.8b %v, [@tile + 1];\n\treturn;\n}\n"));
}
