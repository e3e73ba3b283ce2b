//! Fuzzing: no input, however malformed, makes the assembler panic, and no
//! input that assembles makes the IR passes or the translator panic (with
//! and without loop unrolling).
//! Random bytes, random token soup, and byte/line mutations of valid programs.

use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/spec");
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "pisa"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        v.sort();
        v
    })
}

fn run(text: &str) {
    // either outcome is fine; a panic fails the test
    if let Ok(m) = pisa_translator::assemble("fuzz.pisa", text) {
        for unroll_loops in [false, true] {
            let options = pisa_translator::spirv::Options {
                unroll_loops,
                ..Default::default()
            };
            let _ = pisa_translator::spirv::translate_with(&m, &options);
        }
    }
}

const TOKENS: &[&str] = &[
    ".version 0.1;",
    ".target 100;",
    ".kernel",
    ".function",
    ".global",
    ".const",
    ".shared",
    ".private",
    ".reg",
    ".pred",
    ".32b",
    ".v4",
    ".64b",
    ".param[8]",
    ".align",
    "4",
    "0x",
    "-",
    "+",
    "@k",
    "@g",
    "%r",
    "%r.x",
    "%p",
    "!",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ":",
    "<",
    "~",
    ">",
    "=",
    "void",
    "iadd.32b",
    "ld.global.v4.32b",
    "call",
    "goto",
    "l1",
    "return",
    "mov.128b",
    ".xyzw",
    "1.5",
    "0xFFFFFFFFFFFFFFFFF",
    "\"s\"",
    ".zero",
    ".64b @g+4",
    "extract.63.32b",
    "%h<0~5>",
    "%h<5~0>",
    "\n",
    " ",
    "\t",
    "é",
    "\0",
    "@\"q",
    "//",
    ".LBB0_1:",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        run(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..120)) {
        run(&toks.join(" "));
    }

    #[test]
    fn mutated_programs(
        seed in 0usize..1000,
        edits in proptest::collection::vec((any::<u16>(), any::<u8>(), 0u8..4), 1..8),
    ) {
        let seeds = seeds();
        let mut bytes = seeds[seed % seeds.len()].clone().into_bytes();
        for (pos, b, op) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = pos as usize % bytes.len();
            match op {
                0 => bytes[i] = b,
                1 => {
                    bytes.remove(i);
                }
                2 => bytes.insert(i, b),
                _ => {
                    // duplicate or drop a whole line
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    let mut lines: Vec<&str> = text.lines().collect();
                    let l = i % lines.len().max(1);
                    if b % 2 == 0 {
                        lines.insert(l, lines.get(l).copied().unwrap_or(""));
                    } else if !lines.is_empty() {
                        lines.remove(l);
                    }
                    bytes = lines.join("\n").into_bytes();
                }
            }
        }
        run(&String::from_utf8_lossy(&bytes));
    }
}
