//! The docs for the next engineer cite real code: every path and every name in backticks in
//! `docs/architecture.md` and `docs/adding-an-instruction.md` exists (issue "One typed
//! instruction, one device contract", item 6). A renamed file, function or test fails here
//! until the doc follows.
//!
//! A backticked token with a `/` is a path from the repository root (or `../shared/...`); a
//! single word of identifier characters (or a `::` path of them) must occur as a word in the
//! Rust sources; anything else in backticks (commands, qualifiers such as `.type`, directives
//! such as `// RUN:`) is not checked.

use std::path::{Path, PathBuf};

const DOCS: [&str; 2] = ["docs/architecture.md", "docs/adding-an-instruction.md"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_sources(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The backticked spans of `text` (inline code; fenced blocks are skipped).
fn cited(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
            out.push(code.to_string());
        }
    }
    out
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.split("::").all(|seg| {
            !seg.is_empty()
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !seg.starts_with(|c: char| c.is_ascii_digit())
        })
}

fn occurs_as_word(haystack: &str, word: &str) -> bool {
    let bytes = haystack.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    haystack.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[test]
fn docs_cite_paths_and_names_that_exist() {
    let mut files = Vec::new();
    for dir in [
        "src",
        "translator",
        "vk-runtime",
        "interp",
        "fuzz",
        "device",
        "python/src",
        "tests",
        "benches",
    ] {
        rust_sources(&root().join(dir), &mut files);
    }
    let sources: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let Ok(text) = std::fs::read_to_string(root().join(doc)) else {
            missing.push(format!("{doc}: the document itself"));
            continue;
        };
        for code in cited(&text) {
            if code.contains(' ') {
                continue;
            }
            if code.contains('/') && !code.starts_with("//") {
                let path = code.trim_end_matches('/');
                checked += 1;
                if !root().join(path).exists() {
                    missing.push(format!("{doc}: path `{code}`"));
                }
            } else if is_identifier(&code) {
                checked += 1;
                let last = code.rsplit("::").next().unwrap_or(&code);
                if !occurs_as_word(&sources, last) {
                    missing.push(format!("{doc}: name `{code}`"));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} citations found: is the parsing right?"
    );
    assert!(
        missing.is_empty(),
        "cited but not found:\n{}",
        missing.join("\n")
    );
}

/// The check itself can fail: a made-up path and name are reported.
#[test]
fn a_made_up_citation_is_found_missing() {
    let text = "see `translator/src/no_such_file.rs` and `no_such_function_xyz` and `cargo test`";
    let codes = cited(text);
    assert_eq!(codes.len(), 3);
    assert!(!root().join("translator/src/no_such_file.rs").exists());
    assert!(is_identifier("no_such_function_xyz"));
    assert!(!occurs_as_word(
        "fn no_such_function_xy() {}",
        "no_such_function_xyz"
    ));
    assert!(occurs_as_word("fn lower(fx)", "lower"));
    assert!(!occurs_as_word("fn lowered(fx)", "lower"));
}
