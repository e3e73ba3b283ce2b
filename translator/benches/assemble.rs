//! Assemble + validate (and assemble + translate to SPIR-V) a generated module
//! of one million instructions; report instructions per second and peak heap
//! bytes per instruction.
//!
//! `cargo bench -p pisa-translator --bench assemble [-- N]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

struct Counting;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CUR.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CUR.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, n) };
        if !q.is_null() {
            if n > l.size() {
                let now = CUR.fetch_add(n - l.size(), Relaxed) + n - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                CUR.fetch_sub(l.size() - n, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

/// A realistic mix: arithmetic, memory, compares, branches and calls, in
/// functions of 10,000 instructions each.
fn generate(n: usize) -> String {
    let mut s = String::with_capacity(n * 40);
    s.push_str(".version 0.1;\n.target 100;\n.global .align 4 @G[4096];\n");
    s.push_str(".function .32b @f(.reg .32b %a) {\n\treturn %a;\n}\n");
    let per_fn = 10_000;
    let mut emitted = 0;
    let mut k = 0;
    while emitted < n {
        s.push_str(&format!(".kernel @k{k}(.param[8] %p) {{\n"));
        s.push_str(
            "\t.reg .32b %w<0~16>;\n\t.reg .64b %d<0~8>;\n\t.reg .v4.32b %v0;\n\t.pred %q;\n",
        );
        s.push_str("\tld.param.64b %d0, [%p];\n");
        emitted += 1;
        let mut i = 1;
        while i < per_fn && emitted < n {
            let a = i % 16;
            let b = (i * 7) % 16;
            let line = match i % 10 {
                0 => format!("\tiadd.32b \t%w{a}, %w{b}, {i};\n"),
                1 => format!("\tld.global.32b\t %w{a}, [%d0 + {}];\n", (i % 1000) * 4),
                2 => format!("\tumad.32b \t%w{a}, %w{b}, %w{a}, %w{b};\n"),
                3 => format!("\tscmp.lt.32b \t%q, %w{a}, %w{b};\n"),
                4 => format!("\tsel.32b \t%w{a}, %w{b}, 0x10, %q;\n"),
                5 => format!("\tst.global.32b\t [%d0 + %d1], %w{a};\n"),
                6 => format!("\tfmul.f \t%w{a}, %w{b}, 0x3F800000;\n"),
                7 => format!("\tmov.32b \t%v0.y, %w{a};\n"),
                8 => format!("\tcall %w{a}, @f(%w{b});\n"),
                _ => format!("L{i}:\n\tgoto.cond !%q, L{i};\n"),
            };
            s.push_str(&line);
            i += 1;
            emitted += 1;
        }
        s.push_str("\treturn;\n}\n");
        emitted += 1;
        k += 1;
    }
    s
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let src = generate(n);
    // warm the catalog so its one-time parse is not counted
    let _ = pisa_translator::assemble("warm.pisa", ".version 0.1;\n.target 100;\n");
    let mut best = f64::MAX;
    let mut peak_per_instr = 0.0;
    for _ in 0..3 {
        let base = CUR.load(Relaxed);
        PEAK.store(base, Relaxed);
        let t = Instant::now();
        let m = pisa_translator::assemble("bench.pisa", &src).expect("generated module is valid");
        let dt = t.elapsed().as_secs_f64();
        let peak = PEAK.load(Relaxed) - base;
        drop(m);
        best = best.min(dt);
        peak_per_instr = peak as f64 / n as f64;
    }
    println!(
        "assemble+validate: {n} instructions, {:.1} MB source: best {:.3} s = {:.2} M instr/s; peak heap {:.0} bytes/instr (source excluded)",
        src.len() as f64 / 1e6,
        best,
        n as f64 / best / 1e6,
        peak_per_instr
    );

    // end to end: assemble + translate to SPIR-V, with the default options
    // (loops report a driver's loop cap), as for a driver that does not cap
    // loops, and as for llvmpipe (small loops unrolled x16)
    use pisa_translator::spirv::Options;
    for (what, options) in [
        ("default options", Options::default()),
        ("for a GPU driver", Options::for_loop_cap(false)),
        ("for llvmpipe", Options::for_loop_cap(true)),
    ] {
        let mut best = f64::MAX;
        let mut peak_per_instr = 0.0;
        let mut words = 0;
        for _ in 0..3 {
            let base = CUR.load(Relaxed);
            PEAK.store(base, Relaxed);
            let t = Instant::now();
            let m =
                pisa_translator::assemble("bench.pisa", &src).expect("generated module is valid");
            let spv = pisa_translator::spirv::translate_with(&m, &options)
                .expect("generated module translates");
            let dt = t.elapsed().as_secs_f64();
            let peak = PEAK.load(Relaxed) - base;
            words = spv.words.len();
            drop((m, spv));
            best = best.min(dt);
            peak_per_instr = peak as f64 / n as f64;
        }
        println!(
            "assemble+translate ({what}): {n} instructions -> {:.1} MB SPIR-V: best {:.3} s = {:.2} M instr/s; peak heap {:.0} bytes/instr",
            words as f64 * 4.0 / 1e6,
            best,
            n as f64 / best / 1e6,
            peak_per_instr
        );
    }
}
