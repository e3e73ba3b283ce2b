//! The compatibility rules of linking (spec 10 §6.1–6.2): modules with
//! different `.version` majors do not link, and the linked program's
//! `.target` is one that can execute every module's target (the layer
//! model's matrix: `100ca` runs `100ca`, `100c`, `100`; `100c` runs `100c`,
//! `100`; `100` runs `100`).

/// A `.target` value: generation, optional product line letter, and the
/// optional `a` of target-specific features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Target {
    generation: u32,
    line: Option<char>,
    specific: bool,
}

fn parse_target(t: &str) -> Option<Target> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let generation = t[..digits].parse().ok()?;
    let mut rest = t[digits..].chars();
    let line = rest.next();
    let specific = match rest.next() {
        None => false,
        Some('a') => true,
        Some(_) => return None,
    };
    if rest.next().is_some() || line.is_some_and(|c| !c.is_ascii_lowercase()) {
        return None;
    }
    Some(Target {
        generation,
        line,
        specific,
    })
}

/// Whether a device of target `runner` can execute code written for `code`
/// (spec 10 §6.2): generations are backward compatible, a product line
/// runs its own and line-less code, and target-specific code (`a`) runs on
/// its exact target only.
pub fn can_execute(runner: &str, code: &str) -> bool {
    let (Some(r), Some(c)) = (parse_target(runner), parse_target(code)) else {
        return runner == code;
    };
    if c.specific {
        return r == c;
    }
    r.generation >= c.generation && (c.line.is_none() || c.line == r.line)
}

/// The linked program's target: the index of a module whose target can
/// execute every module's target, or the first module whose target
/// conflicts with the ones before it, and the module it conflicts with.
pub fn program_target(targets: &[&str]) -> Result<usize, (usize, usize)> {
    let mut chosen = 0;
    for (j, t) in targets.iter().enumerate().skip(1) {
        if can_execute(targets[chosen], t) {
            continue;
        }
        if targets[..j].iter().all(|earlier| can_execute(t, earlier)) {
            chosen = j;
        } else {
            return Err((j, chosen));
        }
    }
    Ok(chosen)
}

/// The major version of a `.version` value (`1.0`, what Intel's LLVM
/// backend prints, is read as 0.1 like the assembler does).
pub fn major(version: &str) -> Option<u32> {
    if version == "1.0" {
        return Some(0);
    }
    version.split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_matrix() {
        // 10 §6.2, "PISA Compatibility Matrix"
        for (runner, runs) in [
            ("100", &["100"][..]),
            ("100c", &["100c", "100"][..]),
            ("100ca", &["100ca", "100c", "100"][..]),
        ] {
            for code in ["100", "100c", "100ca"] {
                assert_eq!(
                    can_execute(runner, code),
                    runs.contains(&code),
                    "{runner} runs {code}"
                );
            }
        }
    }

    #[test]
    fn the_program_target_runs_every_module() {
        assert_eq!(program_target(&["100"]), Ok(0));
        assert_eq!(program_target(&["100", "100c"]), Ok(1));
        assert_eq!(program_target(&["100ca", "100", "100c"]), Ok(0));
        assert_eq!(program_target(&["100", "100c", "100ca"]), Ok(2));
        // product lines and target-specific features that exclude each other
        // (targets the assembler does not know yet, so the rule is tested here)
        assert_eq!(program_target(&["100c", "100g"]), Err((1, 0)));
        assert_eq!(program_target(&["100ca", "200ca"]), Err((1, 0)));
        assert_eq!(program_target(&["100", "100ca", "100ga"]), Err((2, 1)));
        assert_eq!(program_target(&["200", "100c"]), Err((1, 0)));
    }

    #[test]
    fn majors() {
        assert_eq!(major("0.1"), Some(0));
        assert_eq!(major("1.0"), Some(0));
        assert_eq!(major("2.3"), Some(2));
    }
}
