//! Shrinks a large-tier program that makes `pisa run` print TEXT: cuts its
//! nesting at the shallowest depth that still shows it, deletes goto graphs,
//! then runs the reducer (TRIES tries). Each smaller program that still
//! shows it is written to `OUT_DIR/best` at once.
//! `cargo run --release -p pisa-fuzz --example shrink_large -- SEED PISA_BINARY TEXT OUT_DIR GLOBAL LOCAL TRIES`
//! (GLOBAL and LOCAL as `x,y,z`: a launch that shows it, often smaller than the seed's).
use pisa_fuzz::program::Stmt;
use pisa_fuzz::{generate, reduce, write_reproducer, Case, GenConfig};
use std::path::PathBuf;
use std::process::Command;

fn cut(body: &mut Vec<Stmt>, depth: u32, at: u32) {
    if depth == at {
        body.retain(|s| {
            !matches!(
                s,
                Stmt::If { .. }
                    | Stmt::Loop { .. }
                    | Stmt::Block { .. }
                    | Stmt::Irreducible { .. }
                    | Stmt::Graph { .. }
            )
        });
        return;
    }
    for s in body.iter_mut() {
        match s {
            Stmt::If { then_, else_, .. } => {
                cut(then_, depth + 1, at);
                cut(else_, depth + 1, at);
            }
            Stmt::Loop { body, .. } | Stmt::Block { body, .. } => cut(body, depth + 1, at),
            Stmt::Irreducible { a, b, .. } => {
                cut(a, depth + 1, at);
                cut(b, depth + 1, at);
            }
            Stmt::Graph { nodes, .. } => {
                for n in nodes {
                    cut(&mut n.body, depth + 1, at);
                }
            }
            _ => {}
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 8 {
        return Err("usage: shrink_large SEED PISA_BINARY TEXT OUT_DIR GLOBAL LOCAL TRIES".into());
    }
    let seed: u64 = a[1].parse().map_err(|e| format!("SEED: {e}"))?;
    let (pisa, text, out) = (a[2].clone(), a[3].clone(), PathBuf::from(&a[4]));
    let dims = |s: &str| -> Result<[u32; 3], String> {
        let mut v = [1u32; 3];
        for (i, x) in s.split(',').enumerate().take(3) {
            v[i] = x.parse().map_err(|e| format!("`{s}`: {e}"))?;
        }
        Ok(v)
    };
    let (global, local) = (dims(&a[5])?, dims(&a[6])?);
    let tries: usize = a[7].parse().map_err(|e| format!("TRIES: {e}"))?;
    let tmp = std::env::temp_dir().join(format!("shrink-large-{}", std::process::id()));
    let best_dir = out.join("best");
    let mut still = |c: &Case| {
        let Ok(cmd) = write_reproducer(c, &tmp, "") else {
            return false;
        };
        let cmd = cmd.replacen("pisa run", &format!("{pisa} run"), 1);
        let shows = Command::new("bash")
            .args(["-c", &cmd])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stderr).contains(&text))
            .unwrap_or(false);
        eprintln!("{} lines: {shows}", c.source.lines().count());
        if shows {
            let _ = write_reproducer(c, &best_dir, &format!("seed {seed}: so far"));
        }
        shows
    };
    let cfg = GenConfig {
        large: 1000,
        ..GenConfig::default()
    };
    let case = generate(seed, &cfg);
    let mut shape = case.shape();
    shape.global = global;
    shape.local = local;
    shape.dims = if global[2] > 1 {
        3
    } else if global[1] > 1 {
        2
    } else {
        1
    };
    let mut best = case.with(case.program.clone(), shape);
    if !still(&best) {
        return Err(format!(
            "seed {seed} does not show `{text}` with that launch"
        ));
    }
    // the shallowest cut that still shows it
    let (mut lo, mut hi) = (1u32, 160u32);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let mut p = best.program.clone();
        let k = p.funcs.len() - 1;
        cut(&mut p.funcs[k].body, 0, mid);
        let c = best.with(p, best.shape());
        if still(&c) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let mut p = best.program.clone();
    let k = p.funcs.len() - 1;
    cut(&mut p.funcs[k].body, 0, lo);
    best = best.with(p, best.shape());
    eprintln!("cut at depth {lo}");
    let small = reduce(&best, &mut still, tries);
    let cmd = write_reproducer(
        &small,
        &out,
        &format!("seed {seed}: `pisa run` prints {text}"),
    )
    .unwrap_or_default();
    println!("{cmd}");
    Ok(())
}
