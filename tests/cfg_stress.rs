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

/// A function of `n` labelled blocks whose terminators are drawn at random.
/// Nested `{ }` scopes are sprinkled in so labels also sit inside them.
pub fn random_program(seed: u64) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = 2 + r.below(11) as usize;
    let mut body = String::new();
    let mut depth = 0;
    for b in 0..n {
        if r.below(5) == 0 {
            body.push_str("\t{\n");
            depth += 1;
        }
        body.push_str(&format!(
            "B{b}:\n\tiadd.32b %x, %x, {b};\n\tucmp.lt.32b %p, %x, 100;\n"
        ));
        let t = r.below(n as u64);
        match r.below(7) {
            0 => body.push_str(&format!("\tgoto B{t};\n")),
            1 | 2 => body.push_str(&format!("\tgoto.cond %p, B{t};\n")),
            3 => body.push_str(&format!("\tgoto.cond !%p, B{t};\n")),
            4 => body.push_str("\treturn.cond %p, %x;\n"),
            5 if b > 0 => body.push_str("\treturn %x;\n"),
            _ => {}
        }
        if depth > 0 && r.below(3) == 0 {
            body.push_str("\t}\n");
            depth -= 1;
        }
    }
    for _ in 0..depth {
        body.push_str("\t}\n");
    }
    format!(
        ".version 0.1;\n.target 100;\n\n.function .32b @f(.reg .32b %x)\n{{\n\t.pred %p;\n{body}\treturn %x;\n}}\n\n\
         .kernel @k(.param[8] %out)\n{{\n\t.reg .64b %o;\n\t.reg .32b %v;\n\tld.param.64b %o, [%out];\n\t\
         mov.32b %v, %localid.x;\n\tcall %v, @f(%v);\n\tst.global.32b [%o], %v;\n\treturn;\n}}\n"
    )
}

#[test]
fn random_goto_graphs_translate_to_valid_spirv() {
    let mut validated = 0;
    for seed in 0..300u64 {
        let src = random_program(seed);
        let m = pisa_translator::assemble("cfg.pisa", &src)
            .unwrap_or_else(|d| panic!("seed {seed} does not assemble:\n{d}\n{src}"));
        let spv = pisa_translator::spirv::translate(&m)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
            validated += 1;
            if let Err(e) = r {
                panic!("seed {seed}: spirv-val:\n{e}\n{src}");
            }
        }
    }
    eprintln!("{validated} random control-flow graphs validated");
}
