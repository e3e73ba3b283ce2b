fn main() {
    let cfg = pisa_fuzz::GenConfig::default();
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut errs = std::collections::BTreeMap::<String, (usize, u64)>::new();
    for seed in 0..n {
        let c = pisa_fuzz::generate(seed, &cfg);
        match pisa_translator::assemble("t.pisa", &c.source) {
            Err(d) => {
                for e in d.errors() {
                    let k = format!("{}", e.message);
                    let line = e.source_line.trim().to_string();
                    let ent = errs.entry(format!("{k} || {line}")).or_insert((0, seed));
                    ent.0 += 1;
                }
            }
            Ok(m) => {
                if let Err(e) = pisa_translator::spirv::translate(&m) {
                    let ent = errs.entry(format!("translate: {e}")).or_insert((0, seed));
                    ent.0 += 1;
                }
            }
        }
    }
    let mut v: Vec<_> = errs.into_iter().collect();
    v.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (k, (n, s)) in &v {
        println!("{n:4} seed {s}: {k}");
    }
}
