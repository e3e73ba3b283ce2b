//! Assembler tests driven by data files:
//! - `tests/spec/*.pisa`: every code example of the spec, completed into modules: must assemble.
//! - `tests/llvm-style/*.pisa`: constructs Intel's LLVM backend prints: must assemble.
//! - `../shared/corpus/llvm-*/*.pisa`: backend-printed modules: must assemble.
//! - `tests/reject/*.pisa`: each `//~ CODE[: text]` annotation is a diagnostic that must be
//!   reported on that line (with `text` in its message), and nothing else may be reported.

use pisa_translator::{assemble, Severity};
use std::path::{Path, PathBuf};

fn pisa_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pisa"))
        .collect();
    v.sort();
    v
}

fn assert_all_assemble(dir: &Path) -> usize {
    let files = pisa_files(dir);
    let mut failures = String::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if let Err(d) = assemble(&f.display().to_string(), &text) {
            failures.push_str(&d.render());
        }
    }
    assert!(
        failures.is_empty(),
        "files that must assemble failed:\n{failures}"
    );
    files.len()
}

fn here(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

#[test]
fn spec_examples_assemble() {
    let n = assert_all_assemble(&here("tests/spec"));
    assert!(n >= 100, "expected the spec's examples, found {n} files");
}

#[test]
fn llvm_style_constructs_assemble() {
    assert!(assert_all_assemble(&here("tests/llvm-style")) > 10);
}

fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = here("../shared/corpus").join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (the shared corpus lives beside the checkout)",
            dir.display()
        );
        None
    }
}

#[test]
fn llvm_printed_corpus_assembles() {
    if let Some(dir) = corpus("llvm-printed") {
        assert_eq!(assert_all_assemble(&dir), 59);
    }
}

#[test]
fn llvm_run_corpus_assembles() {
    if let Some(dir) = corpus("llvm-run") {
        assert_eq!(assert_all_assemble(&dir), 60);
    }
}

/// `(line, code, message substring)` from `//~ code[: text]` annotations.
fn expectations(text: &str) -> Vec<(u32, String, Option<String>)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for ann in line.split("//~").skip(1) {
            let ann = ann.trim();
            let (code, msg) = match ann.split_once(':') {
                Some((c, m)) => (c.trim(), Some(m.trim().to_string())),
                None => (ann, None),
            };
            out.push((
                i as u32 + 1,
                code.to_string(),
                msg.filter(|m| !m.is_empty()),
            ));
        }
    }
    out
}

#[test]
fn reject_files_report_exactly_their_annotations() {
    let files = pisa_files(&here("tests/reject"));
    assert!(files.len() > 20);
    let mut report = String::new();
    let mut cases = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let expected = expectations(&text);
        assert!(
            !expected.is_empty(),
            "{} has no //~ annotation",
            f.display()
        );
        cases += expected.len();
        let diags = match assemble(&f.display().to_string(), &text) {
            Ok(m) => m.warnings().0.clone(),
            Err(d) => d.0,
        };
        for (line, code, msg) in &expected {
            let hit = diags.iter().any(|d| {
                d.line == *line
                    && d.code == code
                    && msg.as_ref().is_none_or(|m| d.message.contains(m.as_str()))
            });
            if !hit {
                report.push_str(&format!(
                    "{}:{line}: expected {code}{} not reported\n",
                    f.display(),
                    msg.as_ref().map(|m| format!(": {m}")).unwrap_or_default()
                ));
            }
        }
        for d in &diags {
            let expected_here = expected.iter().any(|(l, c, _)| *l == d.line && c == d.code);
            if !expected_here {
                report.push_str(&format!(
                    "unexpected {}:\n{}",
                    if d.severity == Severity::Error {
                        "error"
                    } else {
                        "warning"
                    },
                    d.render()
                ));
            }
        }
    }
    assert!(report.is_empty(), "{report}");
    assert!(cases >= 344, "only {cases} reject cases");
}

/// Quoted symbol names are decoded (docs/llvm-printer.md, C1): `\XX`, `\"`
/// and plain quoting name the same symbol as the unquoted spelling (issue 11:
/// `@"tab\22le"` and `@"tab\"le"` were two different, undefined names).
#[test]
fn quoted_symbol_names_are_decoded() {
    let src = ".version 0.1;\n.target 100;\n.global .align 4 @\"tab\\22le\"[8];\n\
               .kernel @k()\n{\n\t.reg .64b %a, %b;\n\taddrof.64b %a, @\"tab\\\"le\";\n\
               \taddrof.64b %b, @\"k\";\n\treturn;\n}\n";
    let m = pisa_translator::assemble("q.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    assert_eq!(spv.layout.data[0].name, "tab\"le");
    assert_eq!(
        pisa_translator::syntax::parser::decode_quoted_name("\\01?f@@YAXXZ"),
        "\u{1}?f@@YAXXZ"
    );
}
