//! Reduces a seed whose program makes `pisa run` print a given text (a
//! driver crash kills the process, so each try runs the CLI):
//! `cargo run --release -p pisa-fuzz --example reduce_crash -- SEED PISA_BINARY TEXT OUT_DIR [TRIES]`
//! (`REDUCE_TIER=large`: a seed of the large-graph tier). Every smaller
//! program that still shows the text is written to `OUT_DIR/best` at once,
//! so a long reduction can be stopped and its best program used.

use pisa_fuzz::{generate, reduce, write_reproducer, GenConfig};
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: reduce_crash SEED PISA_BINARY TEXT OUT_DIR [TRIES]");
        std::process::exit(2);
    }
    let seed: u64 = a[1].parse().unwrap_or(0);
    let (pisa, text, out) = (a[2].clone(), a[3].clone(), PathBuf::from(&a[4]));
    let tries: usize = a.get(5).and_then(|s| s.parse().ok()).unwrap_or(300);
    let tmp = std::env::temp_dir().join(format!("reduce-crash-{}", std::process::id()));
    let best = out.join("best");
    let mut still = |c: &pisa_fuzz::Case| {
        let Ok(cmd) = write_reproducer(c, &tmp, "") else {
            return false;
        };
        let cmd = cmd.replacen("pisa run", &format!("{pisa} run"), 1);
        let shows = Command::new("bash")
            .args(["-c", &cmd])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stderr).contains(&text))
            .unwrap_or(false);
        if shows {
            let _ = write_reproducer(c, &best, &format!("seed {seed}: so far"));
            eprintln!("{} lines", c.source.lines().count());
        }
        shows
    };
    let mut cfg = GenConfig::default();
    if std::env::var("REDUCE_TIER").as_deref() == Ok("large") {
        cfg.large = 1000;
    }
    let case = generate(seed, &cfg);
    if !still(&case) {
        eprintln!("seed {seed} does not show `{text}`");
        std::process::exit(1);
    }
    let small = reduce(&case, &mut still, tries);
    let cmd = write_reproducer(
        &small,
        &out,
        &format!("seed {seed}: `pisa run` prints {text}"),
    )
    .unwrap_or_default();
    println!("{cmd}");
    let _ = std::fs::remove_dir_all(&tmp);
}
