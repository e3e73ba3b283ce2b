//! The module graph of the SPIR-V back end (`translator/src/spirv`) has no
//! circle of more than two modules (issue "One typed instruction, one
//! device contract", item 4).
//!
//! Each `.rs` file is a module (`mod.rs` is its folder's module). A module
//! depends on another when it names it in a path: a `use` item or a path in
//! code that starts with `super::`, `self::`, `crate::`, or the name of a
//! child module it declares (`mod name;`). A path's target is the longest
//! leading part of it that is a module file; items named through an alias
//! (`pub use crate::abi as layout`) count for the module that declares the
//! alias. Comments, strings and character literals are skipped; the inline
//! modules of a file (`mod tests { .. }`) count for the file. The strongly
//! connected components of this graph (Tarjan) are printed, and none may
//! hold more than two modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Semi,
    Comma,
    Star,
    Other,
}

/// The tokens of Rust source that matter for paths, without comments,
/// strings and character literals.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r'
            && (c.get(i + 1) == Some(&'"') || c.get(i + 1) == Some(&'#'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // raw string r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(Tok::Ident("r".into()));
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if ch == '\'' {
            if c.get(i + 1) == Some(&'\\') {
                // escaped character literal
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // a lifetime
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            out.push(match ch {
                '{' => Tok::Open,
                '}' => Tok::Close,
                ';' => Tok::Semi,
                ',' => Tok::Comma,
                '*' => Tok::Star,
                _ => Tok::Other,
            });
            i += 1;
        }
    }
    out
}

/// The paths of a use tree (`a::{self, b::c, d::*}`), `self` and globs
/// ending at their prefix.
fn use_paths(toks: &[Tok]) -> Vec<Vec<String>> {
    fn tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while *i < toks.len() {
            match &toks[*i] {
                Tok::Ident(s) if s == "as" => {
                    // `as alias`: the alias names nothing new here
                    *i += 2;
                }
                Tok::Ident(s) if s == "self" && !prefix.is_empty() => {
                    // `a::{self, ..}`: the prefix itself
                    *i += 1;
                }
                Tok::Ident(s) => {
                    path.push(s.clone());
                    *i += 1;
                }
                Tok::PathSep | Tok::Star => *i += 1,
                Tok::Open => {
                    *i += 1;
                    loop {
                        tree(toks, i, &path, out);
                        match toks.get(*i) {
                            Some(Tok::Comma) => *i += 1,
                            Some(Tok::Close) => {
                                *i += 1;
                                break;
                            }
                            _ => break,
                        }
                    }
                    return;
                }
                _ => break,
            }
        }
        out.push(path);
    }
    let mut out = Vec::new();
    let mut i = 0;
    tree(toks, &mut i, &[], &mut out);
    out
}

/// Resolves `path`, named in module `here` (file module plus inline
/// modules), to the longest leading part that is a known module.
fn resolve(
    here: &[String],
    children: &BTreeSet<String>,
    path: &[String],
    known: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        Some(first) if children.contains(first) => {}
        _ => return None,
    }
    let full: Vec<String> = base.iter().chain(rest).cloned().collect();
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|p| known.contains(p))
}

/// The modules each module of the tree at `root` (named `root_name`)
/// depends on.
fn graph(root: &Path, root_name: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("reads the source folder") {
            let p = e.expect("reads an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let module_of = |p: &Path| -> Vec<String> {
        let rel = p.strip_prefix(root).expect("under the root");
        let mut m = vec![root_name.to_string()];
        for part in rel.iter() {
            let s = part.to_string_lossy();
            let s = s.strip_suffix(".rs").unwrap_or(&s);
            if s != "mod" {
                m.push(s.to_string());
            }
        }
        m
    };
    let known: BTreeSet<Vec<String>> = files.iter().map(|p| module_of(p)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &files {
        let me = module_of(p);
        let name = me.join("::");
        edges.entry(name.clone()).or_default();
        let src = std::fs::read_to_string(p).expect("reads a source file");
        let toks = tokens(&src);
        // child file modules this file declares
        let children: BTreeSet<String> = toks
            .windows(3)
            .filter_map(|w| match w {
                [Tok::Ident(m), Tok::Ident(n), Tok::Semi] if m == "mod" => Some(n.clone()),
                _ => None,
            })
            .collect();
        let mut here = me.clone();
        // inline modules open: (depth of their brace)
        let mut inline: Vec<usize> = Vec::new();
        let mut depth = 0usize;
        let mut found: Vec<Vec<String>> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                Tok::Open => {
                    depth += 1;
                    i += 1;
                }
                Tok::Close => {
                    if inline.last() == Some(&depth) {
                        inline.pop();
                        here.pop();
                    }
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                Tok::Ident(m)
                    if m == "mod"
                        && matches!(toks.get(i + 1), Some(Tok::Ident(_)))
                        && toks.get(i + 2) == Some(&Tok::Open) =>
                {
                    if let Some(Tok::Ident(n)) = toks.get(i + 1) {
                        here.push(n.clone());
                    }
                    depth += 1;
                    inline.push(depth);
                    i += 3;
                }
                Tok::Ident(u) if u == "use" => {
                    let end = toks[i..]
                        .iter()
                        .position(|t| *t == Tok::Semi)
                        .map_or(toks.len(), |n| i + n);
                    for path in use_paths(&toks[i + 1..end]) {
                        found.push(resolve_or_empty(&here, &children, &path, &known));
                    }
                    i = end;
                }
                Tok::Ident(_) if i == 0 || toks[i - 1] != Tok::PathSep => {
                    let mut path = Vec::new();
                    let mut j = i;
                    while let Some(Tok::Ident(s)) = toks.get(j) {
                        path.push(s.clone());
                        if toks.get(j + 1) == Some(&Tok::PathSep) {
                            j += 2;
                        } else {
                            break;
                        }
                    }
                    if path.len() > 1 {
                        found.push(resolve_or_empty(&here, &children, &path, &known));
                    }
                    i = j + 1;
                }
                _ => i += 1,
            }
        }
        for target in found {
            if !target.is_empty() && target != me {
                edges
                    .entry(name.clone())
                    .or_default()
                    .insert(target.join("::"));
            }
        }
    }
    edges
}

fn resolve_or_empty(
    here: &[String],
    children: &BTreeSet<String>,
    path: &[String],
    known: &BTreeSet<Vec<String>>,
) -> Vec<String> {
    resolve(here, children, path, known).unwrap_or_default()
}

/// Strongly connected components (Tarjan), each sorted, in a fixed order.
fn components(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut c = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    c.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                c.sort();
                self.out.push(c);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    t.out
}

fn graph_of(files: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
    let dir = std::env::temp_dir().join(format!("pisa-module-graph-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, src) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, src).unwrap();
    }
    let g = graph(&dir, "spirv");
    std::fs::remove_dir_all(&dir).unwrap();
    g
}

/// The parser finds `use` trees, paths in code and child paths, and skips
/// comments, strings, aliases that are not files and inline test modules.
#[test]
fn reads_paths_of_a_small_tree() {
    let g = graph_of(&[
        (
            "mod.rs",
            "mod a;\nmod b;\nuse crate::abi as layout;\n\
             fn f() { a::go(); let s = \"super::b::x\"; } // crate::spirv::b\n",
        ),
        (
            "a.rs",
            "use super::{b::{self, Y}, layout};\nfn g() -> char { '}' }\n\
             #[cfg(test)] mod tests { use super::*; }\n",
        ),
        ("b.rs", "fn h<'a>(x: &'a u8) { crate::spirv::c::run(); }\n"),
        ("c/mod.rs", "mod d;\nfn k() { self::d::z(); }\n"),
        ("c/d.rs", "use crate::ir::X;\n"),
    ]);
    let show: Vec<String> = g
        .iter()
        .map(|(k, v)| {
            format!(
                "{k} -> {}",
                v.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert_eq!(
        show,
        [
            "spirv -> spirv::a",
            "spirv::a -> spirv, spirv::b",
            "spirv::b -> spirv::c",
            "spirv::c -> spirv::c::d",
            "spirv::c::d -> ",
        ]
    );
    assert_eq!(
        components(&g),
        [
            vec!["spirv".to_string(), "spirv::a".to_string()],
            vec!["spirv::b".to_string()],
            vec!["spirv::c".to_string()],
            vec!["spirv::c::d".to_string()],
        ]
    );
}

/// No circle of more than two modules in the SPIR-V back end.
#[test]
fn spirv_back_end_has_no_circle_of_more_than_two_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("translator/src/spirv");
    let g = graph(&root, "spirv");
    assert!(g.len() > 20, "{} modules found", g.len());
    let comps = components(&g);
    for c in &comps {
        println!("{} module(s): {}", c.len(), c.join(", "));
    }
    for (k, v) in &g {
        println!(
            "{k} -> {}",
            v.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let big: Vec<&Vec<String>> = comps.iter().filter(|c| c.len() > 2).collect();
    assert!(big.is_empty(), "circles of more than two modules: {big:?}");
}
