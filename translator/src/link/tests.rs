//! Linking rules, each with the diagnostic it gives; the linked text and
//! where its positions map back to.

use super::{link, Input};

const MAIN: &str = "\
.version 0.1;
.target 100;

.import .function .32b @add(.reg .32b, .reg .32b);
.import .global .align 4 @table[8];

// a helper of the same name lives in the library
.function .32b @helper(.reg .32b %x) {
  return %x;
}

.kernel @k(.param[8] .align(8) %out) {
  .reg .32b %a, %b;
  .reg .64b %p;
  ld.param.64b %p, [%out];
  ld.global.32b %a, [@table + 4];
  call %b, @helper(%a);
  call %a, @add(%a, %b);
  st.global.32b [%p], %a;
  return;
}
";

const LIB: &str = "\
.version 0.1;
.target 100c;

.export .global .align 8 @table = { .32b 1, .32b 20 };

.function .32b @helper(.reg .32b %x) {
  .reg .32b %y;
  iadd.32b %y, %x, 1;
  return %y;
}

.export .function .32b @add(.reg .32b %x, .reg .32b %y) {
  .reg .32b %s;
  call %y, @helper(%y);
  iadd.32b %s, %x, %y;
  return %s;
}
";

fn inputs<'a>(files: &[(&'a str, &'a str)]) -> Vec<Input<'a>> {
    files
        .iter()
        .map(|&(name, text)| Input { name, text })
        .collect()
}

/// The rendered diagnostics of a link that must fail.
fn link_errors(files: &[(&str, &str)]) -> String {
    match link(&inputs(files)) {
        Ok(m) => panic!("linked, but should not have:\n{}", m.source()),
        Err(d) => {
            assert!(d.has_errors());
            d.render()
        }
    }
}

#[test]
fn two_modules_link_into_one() {
    let m = link(&inputs(&[("main.pisa", MAIN), ("lib.pisa", LIB)])).unwrap();
    let text = m.source();
    // the program runs on a target that executes both modules
    assert!(text.contains(".version 0.1;\n.target 100c;\n"), "{text}");
    assert_eq!(text.matches(".version").count(), 1, "{text}");
    // imports are gone; the library's internal @helper got a new name
    assert!(!text.contains(".import"), "{text}");
    assert!(
        text.contains(".function .32b @helper.2(.reg .32b %x)"),
        "{text}"
    );
    assert!(text.contains("call %y, @helper.2(%y);"), "{text}");
    assert!(text.contains("call %b, @helper(%a);"), "{text}");
    assert!(text.contains("// a helper of the same name"), "{text}");
    // the linked text is one valid module again
    crate::assemble("again.pisa", text).unwrap();
    // positions map back to the files the user wrote
    let at = |needle: &str| {
        let start = text.find(needle).unwrap();
        m.describe(crate::diag::Span::new(start, start + 1))
    };
    assert_eq!(at("iadd.32b %s"), "lib.pisa:15:3");
    assert_eq!(at("ld.global.32b %a"), "main.pisa:16:3");
    assert_eq!(at("@helper.2(%y)"), "lib.pisa:14:12");
    let p = crate::ir::build(&m);
    let names: Vec<&str> = p.functions.iter().map(|f| p.name(f.name)).collect();
    assert_eq!(names, ["helper", "k", "helper.2", "add"]);
    assert!(p.functions.iter().all(|f| !f.is_declaration()));
}

#[test]
fn one_module_is_assembled_as_it_is() {
    let m = link(&inputs(&[("main.pisa", MAIN)])).unwrap();
    assert_eq!(m.source(), MAIN);
    assert_eq!(m.describe(crate::diag::Span::new(0, 1)), "main.pisa:1:1");
}

#[test]
fn an_unresolved_import_names_the_symbol_and_the_module() {
    let lib = LIB.replace(".export .function .32b @add", ".function .32b @add");
    let e = link_errors(&[("main.pisa", MAIN), ("lib.pisa", &lib)]);
    assert!(
        e.contains("error[link-unresolved]: unresolved import `@add`: main.pisa needs it and no module exports it"),
        "{e}"
    );
    assert!(e.contains("--> main.pisa:4:24"), "{e}");
}

#[test]
fn two_exports_of_one_name() {
    let other = ".version 0.1;\n.target 100;\n.export .global @table[8];\n";
    let e = link_errors(&[("main.pisa", MAIN), ("lib.pisa", LIB), ("b.pisa", other)]);
    assert!(
        e.contains("error[link-duplicate]: two modules define the exported name `@table`"),
        "{e}"
    );
    assert!(e.contains("--> b.pisa:3:17"), "{e}");
    assert!(e.contains("note: the other one is at lib.pisa:4:26"), "{e}");
}

#[test]
fn two_kernels_of_one_name() {
    let other = ".version 0.1;\n.target 100;\n.kernel @k() {\n  return;\n}\n";
    let e = link_errors(&[("main.pisa", MAIN), ("lib.pisa", LIB), ("b.pisa", other)]);
    assert!(
        e.contains("error[link-duplicate]: two kernels are named `@k`"),
        "{e}"
    );
    assert!(e.contains("--> b.pisa:3:9"), "{e}");
}

#[test]
fn signatures_must_match() {
    let lib = LIB
        .replace(
            ".export .function .32b @add(.reg .32b %x, .reg .32b %y)",
            ".export .function .64b @add(.reg .32b %x, .reg .32b %y)",
        )
        .replace("%s;\n  call", "%s;\n  .reg .64b %w;\n  call")
        .replace("return %s;", "zext.64b.32b %w, %s;\n  return %w;");
    let e = link_errors(&[("main.pisa", MAIN), ("lib.pisa", &lib)]);
    assert!(
        e.contains("error[link-mismatch]: `@add` does not match its definition: imported as `.function .32b @add(.reg .32b, .reg .32b)` but exported as `.function .64b @add(.reg .32b, .reg .32b)`"),
        "{e}"
    );
    // a variable's size, alignment and space
    for (import, why) in [
        (
            ".import .global .align 4 @table[16];",
            "imported as `.global .align 4 @table[16]` but defined as `.global .align 8 @table[8]`",
        ),
        (
            ".import .global .align 16 @table[8];",
            "imported as `.global .align 16 @table[8]` but defined as `.global .align 8 @table[8]`",
        ),
        (
            ".import .const .align 4 @table[8];",
            "imported as `.const .align 4 @table[8]` but defined as `.global .align 8 @table[8]`",
        ),
    ] {
        let main = MAIN.replace(".import .global .align 4 @table[8];", import);
        let main = if import.contains(".const") {
            main.replace(
                "ld.global.32b %a, [@table + 4]",
                "ld.const.32b %a, [@table + 4]",
            )
        } else {
            main
        };
        let e = link_errors(&[("main.pisa", &main), ("lib.pisa", LIB)]);
        assert!(e.contains(why), "{import}: {e}");
    }
    // a function imported as a variable
    let lib = LIB.replace(
        ".export .global .align 8 @table = { .32b 1, .32b 20 };",
        ".export .function void @table() {\n  return;\n}",
    );
    let e = link_errors(&[("main.pisa", MAIN), ("lib.pisa", &lib)]);
    assert!(
        e.contains("imported as a variable but defined as a function"),
        "{e}"
    );
}

#[test]
fn host_names_name_one_variable() {
    let a = ".version 0.1;\n.target 100;\n.global .host_access(\"counter\") @a[4];\n";
    let b = ".version 0.1;\n.target 100;\n.global .host_access(\"counter\") @b[4];\n";
    let e = link_errors(&[("a.pisa", a), ("b.pisa", b)]);
    assert!(
        e.contains("error[link-host-name]: two variables go by the host name \"counter\""),
        "{e}"
    );
    assert!(e.contains("--> b.pisa:3:33"), "{e}");
}

#[test]
fn every_file_reports_its_own_errors() {
    let bad_a = MAIN
        .replace("iadd", "iaddd")
        .replace("return;\n}", "retrn;\n}");
    let bad_b = LIB.replace("iadd.32b %y, %x, 1", "iadd.32b %y, %x");
    let e = link_errors(&[("main.pisa", &bad_a), ("lib.pisa", &bad_b)]);
    assert!(e.contains("--> main.pisa:"), "{e}");
    assert!(e.contains("--> lib.pisa:"), "{e}");
}

#[test]
fn internal_names_stay_distinct() {
    // the same internal global, function-scope variable and quoted function
    // in three modules; the exported kernel names keep theirs
    let module = |k: &str, v: u32| {
        format!(
            ".version 0.1;\n.target 100;\n.global .align 4 @data = {{ .32b {v} }};\n\
             .function .32b @\"f\\22q\"() {{\n  .reg .32b %r;\n  ld.global.32b %r, [@data];\n  return %r;\n}}\n\
             .kernel @{k}(.param[8] .align(8) %o) {{\n  .private .align 4 @tmp[4];\n  .reg .32b %r;\n  .reg .64b %p;\n  \
             call %r, @\"f\\22q\"();\n  st.private.32b [@tmp], %r;\n  ld.private.32b %r, [@tmp];\n  \
             ld.param.64b %p, [%o];\n  st.global.32b [%p], %r;\n  return;\n}}\n"
        )
    };
    let (a, b, c) = (module("ka", 1), module("kb", 2), module("kc", 3));
    let m = link(&inputs(&[("a.pisa", &a), ("b.pisa", &b), ("c.pisa", &c)])).unwrap();
    let text = m.source();
    for name in [
        "@data",
        "@data.2",
        "@data.3",
        "@tmp.2",
        "@tmp.3",
        "@\"f\\\"q.2\"",
        "@\"f\\\"q.3\"",
    ] {
        assert!(text.contains(name), "{name} in\n{text}");
    }
    assert!(text.contains(".kernel @kc("), "{text}");
    crate::assemble("again.pisa", text).unwrap();
}
