//! Control-flow stress: random goto graphs (reducible and irreducible, loops
//! with several exits, conditional returns inside loops, unreachable blocks)
//! must translate to structured SPIR-V that `spirv-val` accepts.

mod common;

/// xorshift64*: deterministic, so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Debug, Clone, Copy)]
enum Term {
    Fall,
    Goto(usize),
    CondGoto(usize),
    CondGotoNot(usize),
    CondReturn,
    Return,
}

/// A function of `n` labelled blocks whose terminators are drawn at random.
/// Each block adds its number to `%x` and sets `%p = %x < 100`. Nested `{ }`
/// scopes are sprinkled in so labels also sit inside them.
fn random_blocks(seed: u64) -> (Vec<Term>, Vec<(bool, bool)>) {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = 2 + r.below(11) as usize;
    let mut terms = Vec::new();
    let mut scopes = Vec::new();
    let mut depth = 0;
    for b in 0..n {
        let open = r.below(5) == 0;
        if open {
            depth += 1;
        }
        let t = r.below(n as u64) as usize;
        terms.push(match r.below(7) {
            0 => Term::Goto(t),
            1 | 2 => Term::CondGoto(t),
            3 => Term::CondGotoNot(t),
            4 => Term::CondReturn,
            5 if b > 0 => Term::Return,
            _ => Term::Fall,
        });
        let close = depth > 0 && r.below(3) == 0;
        if close {
            depth -= 1;
        }
        scopes.push((open, close));
    }
    (terms, scopes)
}

pub fn random_program(seed: u64) -> String {
    let (terms, scopes) = random_blocks(seed);
    let mut body = String::new();
    let mut depth = 0;
    for (b, (term, (open, close))) in terms.iter().zip(&scopes).enumerate() {
        if *open {
            body.push_str("\t{\n");
            depth += 1;
        }
        body.push_str(&format!(
            "B{b}:\n\tiadd.32b %x, %x, {b};\n\tucmp.lt.32b %p, %x, 100;\n"
        ));
        match term {
            Term::Goto(t) => body.push_str(&format!("\tgoto B{t};\n")),
            Term::CondGoto(t) => body.push_str(&format!("\tgoto.cond %p, B{t};\n")),
            Term::CondGotoNot(t) => body.push_str(&format!("\tgoto.cond !%p, B{t};\n")),
            Term::CondReturn => body.push_str("\treturn.cond %p, %x;\n"),
            Term::Return => body.push_str("\treturn %x;\n"),
            Term::Fall => {}
        }
        if *close {
            body.push_str("\t}\n");
            depth -= 1;
        }
    }
    for _ in 0..depth {
        body.push_str("\t}\n");
    }
    format!(
        ".version 0.1;\n.target 100;\n\n.function .32b @f(.reg .32b %x)\n{{\n\t.pred %p;\n{body}\treturn %x;\n}}\n\n\
         .kernel @k(.param[8] %out)\n{{\n\t.reg .64b %o, %off;\n\t.reg .32b %v, %id;\n\tld.param.64b %o, [%out];\n\t\
         mov.32b %id, %localid.x;\n\tumul.32b %v, %id, 13;\n\tcall %v, @f(%v);\n\tumul.full.32b %off, %id, 4;\n\t\
         iadd.64b %o, %o, %off;\n\tst.global.32b [%o], %v;\n\treturn;\n}}\n"
    )
}

/// What `@f(x)` returns, or `None` if it runs for more than `cap` blocks.
fn interpret(terms: &[Term], mut x: u32, cap: usize) -> Option<u32> {
    let mut b = 0;
    for _ in 0..cap {
        if b == terms.len() {
            return Some(x);
        }
        x = x.wrapping_add(b as u32);
        let p = x < 100;
        b = match terms[b] {
            Term::Fall => b + 1,
            Term::Goto(t) => t,
            Term::CondGoto(t) => {
                if p {
                    t
                } else {
                    b + 1
                }
            }
            Term::CondGotoNot(t) => {
                if !p {
                    t
                } else {
                    b + 1
                }
            }
            Term::CondReturn if p => return Some(x),
            Term::CondReturn => b + 1,
            Term::Return => return Some(x),
        };
    }
    None
}

#[test]
fn random_goto_graphs_translate_to_valid_spirv() {
    let mut validated = 0;
    for seed in 0..300u64 {
        let src = random_program(seed);
        let m = pisa_translator::assemble("cfg.pisa", &src)
            .unwrap_or_else(|d| panic!("seed {seed} does not assemble:\n{d}\n{src}"));
        // as translated for every driver, and with loops unrolled (llvmpipe)
        for unroll_loops in [false, true] {
            let options = pisa_translator::spirv::Options {
                unroll_loops,
                ..Default::default()
            };
            let spv = pisa_translator::spirv::translate_with(&m, &options)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
            if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
                validated += 1;
                if let Err(e) = r {
                    panic!("seed {seed} (unroll {unroll_loops}): spirv-val:\n{e}\n{src}");
                }
            }
        }
    }
    eprintln!("{validated} random control-flow graphs validated");
}

/// The same graphs, executed: every work-item's result must equal the
/// reference interpreter's (graphs that loop forever are left out).
#[test]
fn random_goto_graphs_compute_what_they_say() {
    use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe)");
    let mut ran = 0;
    for seed in 0..400u64 {
        let (terms, _) = random_blocks(seed);
        let want: Option<Vec<u32>> = (0..8).map(|i| interpret(&terms, i * 13, 2000)).collect();
        let Some(want) = want else { continue };
        let src = random_program(seed);
        let m = pisa_translator::assemble("cfg.pisa", &src).unwrap();
        // with and without loops unrolled, whatever the device
        for unroll_loops in [false, true] {
            let options = pisa_translator::spirv::Options {
                unroll_loops,
                ..Default::default()
            };
            let spv = pisa_translator::spirv::translate_with(&m, &options).unwrap();
            let prog = rt.load_translated(&spv).unwrap();
            let out = rt.alloc_buffer(32).unwrap();
            let args = vec![rt.buffer_address(out).unwrap().to_le_bytes().to_vec()];
            rt.launch(&Launch {
                program: prog,
                kernel: "k".into(),
                range: NdRange::d1(8).local([8, 1, 1]),
                args,
            })
            .unwrap_or_else(|e| panic!("seed {seed} (unroll {unroll_loops}): {e}\n{src}"));
            let got: Vec<u32> = rt.read(out).unwrap();
            assert_eq!(got, want, "seed {seed} (unroll {unroll_loops})\n{src}");
            rt.free_buffer(out);
            rt.unload(prog);
        }
        ran += 1;
        if ran == 120 {
            break;
        }
    }
    assert!(ran >= 100, "only {ran} terminating graphs");
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

/// `n` early exits in a row (`goto.cond %p, END`), as a compiler prints a
/// chain of checks that share one exit: out[0] = the count when it left.
fn exit_chain(n: usize, leave_at: u32) -> String {
    let mut s = String::from(
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .32b %x;\n\t.reg .64b %a;\n\t.pred %p;\n\tld.param.64b %a, [%o];\n\tmov.32b %x, 0;\n",
    );
    for _ in 0..n {
        s.push_str(&format!(
            "\tiadd.32b %x, %x, 1;\n\tucmp.gt.32b %p, %x, {leave_at};\n\tgoto.cond %p, END;\n"
        ));
    }
    s.push_str("END:\n\tst.global.32b [%a], %x;\n\treturn;\n}\n");
    s
}

/// A chain of exits must not nest one selection per exit: SPIR-V allows
/// 1,023 levels, drivers recurse over them (lavapipe crashed on 50,000), and
/// so did the translator. Found while rewriting the back end; the chain is
/// flattened past a fixed depth.
#[test]
fn long_chains_of_early_exits_stay_flat() {
    let src = exit_chain(50_000, 1_000_000);
    let m = pisa_translator::assemble("chain.pisa", &src).unwrap();
    let program = pisa_translator::ir::build(&m);
    let tree = pisa_translator::ir::structurize::structurize(&program.functions[0]).unwrap();
    let depth = pisa_translator::ir::structurize::nesting_depth(&tree);
    assert!(depth <= 40, "nested {depth} deep");
    pisa_translator::spirv::translate(&m).unwrap();
}

#[test]
fn a_chain_of_early_exits_runs() {
    use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
    let src = exit_chain(1000, 700);
    let m = pisa_translator::assemble("chain.pisa", &src).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap();
    }
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe)");
    let prog = rt.load(&m).unwrap();
    let out = rt.alloc_buffer(4).unwrap();
    let args = vec![rt.buffer_address(out).unwrap().to_le_bytes().to_vec()];
    rt.launch(&Launch {
        program: prog,
        kernel: "k".into(),
        range: NdRange::d1(1),
        args,
    })
    .unwrap();
    assert_eq!(rt.read::<u32>(out).unwrap(), vec![701]);
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}
