//! Tests of the floating-point core. Expected values are computed by hand
//! (each with its derivation) or by an independent exact implementation in
//! Python (`fractions.Fraction`, `math.isqrt`): `vectors.txt`.

use super::*;

fn m(round: Round, ftz: bool, dsat: bool) -> FloatMode {
    FloatMode {
        round,
        ftz,
        dsat,
        nanp: false,
    }
}

fn ty(s: &str) -> FloatTy {
    FloatTy::from_qualifier(s).expect("type")
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s, 16).expect("hex")
}

/// Runs the vectors of `text`; returns the failures.
fn run_vectors(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (got, want) = match w[0] {
            "cvt" => {
                let fl: u32 = w[4].parse().unwrap();
                let md = m(
                    Round::from_qualifier(w[3]).unwrap(),
                    fl & 1 != 0,
                    fl & 2 != 0,
                );
                (convert(ty(w[1]), ty(w[2]), hex(w[5]), md), hex(w[6]))
            }
            "f2i" => {
                let md = FloatMode::with_round(Round::from_qualifier(w[4]).unwrap());
                (
                    to_int(ty(w[1]), hex(w[5]), w[2] == "s", w[3].parse().unwrap(), md),
                    hex(w[6]),
                )
            }
            "i2f" => {
                let mut md = FloatMode::with_round(Round::from_qualifier(w[4]).unwrap());
                md.dsat = w[5] == "1";
                (
                    from_int(ty(w[1]), hex(w[6]), w[2] == "s", w[3].parse().unwrap(), md),
                    hex(w[7]),
                )
            }
            op => {
                let t = ty(w[1]);
                let fl: u32 = w[3].parse().unwrap();
                let md = m(
                    Round::from_qualifier(w[2]).unwrap(),
                    fl & 1 != 0,
                    fl & 2 != 0,
                );
                let (a, b, c) = (hex(w[4]), hex(w[5]), hex(w[6]));
                let want = hex(w[7]);
                let got = match op {
                    "add" => binary(BinOp::Add, t, a, b, md),
                    "sub" => binary(BinOp::Sub, t, a, b, md),
                    "mul" => binary(BinOp::Mul, t, a, b, md),
                    "div" => binary(BinOp::Div, t, a, b, md),
                    "fma" => fma(t, a, b, c, md),
                    "sqrt" => unary(UnOp::Sqrt, t, a, md),
                    "rsqrt" => unary(UnOp::Rsqrt, t, a, md),
                    "rcp" => unary(UnOp::Rcp, t, a, md),
                    "frnd" => round_to_integral(t, a, md),
                    _ => panic!("unknown op in {line}"),
                };
                // the slow paths agree too
                let slow = match op {
                    "add" => Some(binary_slow(BinOp::Add, t, a, b, md)),
                    "sub" => Some(binary_slow(BinOp::Sub, t, a, b, md)),
                    "mul" => Some(binary_slow(BinOp::Mul, t, a, b, md)),
                    "div" => Some(binary_slow(BinOp::Div, t, a, b, md)),
                    "fma" => Some(fma_slow(t, a, b, c, md)),
                    "sqrt" => Some(unary_slow(UnOp::Sqrt, t, a, md)),
                    _ => None,
                };
                if let Some(s) = slow {
                    if s != want {
                        bad.push(format!("{line}: slow path gives {s:x}"));
                    }
                }
                (got, want)
            }
        };
        if got != want {
            bad.push(format!("{line}: got {got:x}"));
        }
    }
    bad
}

#[test]
fn float_vectors() {
    let bad = run_vectors(include_str!("vectors.txt"));
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
#[ignore]
fn float_vectors_external() {
    // H3_VECTORS=path cargo test ... -- --ignored
    let Ok(p) = std::env::var("H3_VECTORS") else {
        return;
    };
    let text = std::fs::read_to_string(p).unwrap();
    let bad = run_vectors(&text);
    let n = bad.len();
    let shown: Vec<_> = bad.into_iter().take(60).collect();
    assert!(n == 0, "{} failures:\n{}", n, shown.join("\n"));
}
