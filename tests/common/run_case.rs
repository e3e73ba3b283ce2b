//! Run cases as data (docs/run-cases.md): the parser of the `RUN`, `EXPECT` and `FILE`
//! directives of tests/run/, the check of outputs against `EXPECT`s, and the `pisa run --json`
//! command of a case with the check of its output. tests/run_cases.rs runs every case five
//! ways with them; tests/profile_matrix.rs runs every case under device profiles.

#![allow(dead_code)]

use pisa_vk_runtime::values::{self, ArgSpec, Ty};
use std::path::Path;
use std::process::Command;

/// One launch of a program and the outputs it must give.
#[derive(Debug)]
pub struct Case {
    /// `FILE:LINE` of the `RUN` directive
    pub at: String,
    /// the program, relative to the repository root
    pub program: String,
    pub kernel: String,
    pub global: String,
    pub local: Option<String>,
    pub offset: Option<String>,
    /// `pisa run --arg` values, in order
    pub args: Vec<String>,
    /// `pisa run --set-global` values (`NAME=TYPE:V1,...`)
    pub set_globals: Vec<String>,
    pub expect: Vec<Expect>,
}

#[derive(Debug, PartialEq)]
pub enum Target {
    /// the final contents of a buffer argument, by index
    Arg(usize),
    /// the final contents of a host-accessible global, by host name
    Global(String),
}

/// One `EXPECT` directive.
#[derive(Debug)]
pub struct Expect {
    /// `FILE:LINE` of the directive
    pub at: String,
    pub target: Target,
    pub ty: Ty,
    /// the values as written, `V1,V2,...`
    pub values: String,
    /// the values encoded
    pub want: Vec<u8>,
    /// the largest distance, in representable values, a float element may
    /// be from its expected value (`ulp N`); `None`: exact bits
    pub ulp: Option<u64>,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Arg(i) => write!(f, "arg {i}"),
            Target::Global(n) => write!(f, "global {n}"),
        }
    }
}

pub fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// The directives of a file with their line numbers (of their first line),
/// continuation lines joined: `(line, keyword, text)`.
pub fn directives(
    file: &str,
    text: &str,
    side_file: bool,
) -> Result<Vec<(usize, String, String)>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let line = lines[n].trim();
        let at = n + 1;
        n += 1;
        let Some(comment) = line.strip_prefix("//") else {
            if side_file && !line.is_empty() {
                return Err(format!(
                    "{file}:{at}: a .case file holds only `//` comments and blank lines"
                ));
            }
            continue;
        };
        let comment = comment.trim();
        let Some(keyword) = ["RUN", "EXPECT", "FILE"]
            .into_iter()
            .find(|k| comment.starts_with(k))
        else {
            continue;
        };
        let Some(rest) = comment[keyword.len()..].strip_prefix(':') else {
            // `RUN --kernel ...`, `EXPECTS: ...`: a directive misspelled
            // would silently check nothing
            if comment[keyword.len()..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                continue;
            }
            return Err(format!("{file}:{at}: `{keyword}` must be followed by `:`"));
        };
        let mut body = rest.trim().to_string();
        while let Some(head) = body.strip_suffix('\\') {
            let Some(next) = lines.get(n) else {
                return Err(format!(
                    "{file}:{at}: the directive continues (`\\`) past the end of the file"
                ));
            };
            let Some(more) = next.trim().strip_prefix("//") else {
                return Err(format!(
                    "{file}:{}: the directive of line {at} continues (`\\`) onto a line that is not a `//` comment",
                    n + 1
                ));
            };
            body = format!("{} {}", head.trim_end(), more.trim());
            n += 1;
        }
        out.push((at, keyword.to_string(), body));
    }
    Ok(out)
}

/// A launch size or offset: one to three comma-separated numbers.
pub fn check_dims(s: &str) -> Result<(), String> {
    let v: Vec<&str> = s.split(',').collect();
    if v.len() > 3 || v.iter().any(|x| x.parse::<u32>().is_err()) {
        return Err(format!("`{s}` is not one to three comma-separated numbers"));
    }
    Ok(())
}

/// `TYPE:V1,V2,...` as the type and the encoded values.
pub fn typed_values(spec: &str) -> Result<(Ty, Vec<u8>), String> {
    let (t, v) = spec
        .split_once(':')
        .ok_or_else(|| format!("`{spec}`: expected TYPE:V1,V2,..."))?;
    let ty = Ty::parse(t).map_err(|e| format!("`{spec}`: {e}"))?;
    let bytes = values::encode_list(ty, v).map_err(|e| format!("`{spec}`: {e}"))?;
    Ok((ty, bytes))
}

/// The options of a `RUN` directive: each `--option` takes the words up to
/// the next `--option`, joined without spaces (values hold no spaces, so a
/// long list may break anywhere).
pub fn parse_run(at: &str, program: &str, text: &str) -> Result<Case, String> {
    let err = |m: String| format!("{at}: RUN: {m}");
    let mut case = Case {
        at: at.to_string(),
        program: program.to_string(),
        kernel: String::new(),
        global: String::new(),
        local: None,
        offset: None,
        args: Vec::new(),
        set_globals: Vec::new(),
        expect: Vec::new(),
    };
    let mut opts: Vec<(&str, String)> = Vec::new();
    for word in text.split_whitespace() {
        if word.starts_with("--") {
            opts.push((word, String::new()));
        } else if let Some((_, value)) = opts.last_mut() {
            value.push_str(word);
        } else {
            return Err(err(format!("expected an option, found `{word}`")));
        }
    }
    let once = |slot: &mut Option<String>, opt: &str, value: String| {
        if slot.replace(value).is_some() {
            return Err(err(format!("`{opt}` is given twice")));
        }
        Ok(())
    };
    let (mut kernel, mut global) = (None, None);
    for (opt, value) in opts {
        if value.is_empty() {
            return Err(err(format!("`{opt}` needs a value")));
        }
        match opt {
            "--kernel" => once(&mut kernel, opt, value)?,
            "--global" | "--local" | "--offset" => {
                check_dims(&value).map_err(|e| err(format!("{opt}: {e}")))?;
                let slot = match opt {
                    "--global" => &mut global,
                    "--local" => &mut case.local,
                    _ => &mut case.offset,
                };
                once(slot, opt, value)?;
            }
            "--arg" => {
                values::parse_arg(&value).map_err(|e| err(format!("--arg {value}: {e}")))?;
                case.args.push(value);
            }
            "--set-global" => {
                let (_, spec) = value
                    .split_once('=')
                    .ok_or_else(|| err(format!("--set-global {value}: expected NAME=TYPE:V1,...")))?;
                typed_values(spec).map_err(|e| err(format!("--set-global: {e}")))?;
                case.set_globals.push(value);
            }
            _ => {
                return Err(err(format!(
                    "unknown option `{opt}` (known: --kernel --global --local --offset --arg --set-global)"
                )))
            }
        }
    }
    case.kernel = kernel.ok_or_else(|| err("`--kernel` is missing".into()))?;
    case.global = global.ok_or_else(|| err("`--global` is missing".into()))?;
    Ok(case)
}

/// An `EXPECT` directive: `arg N = TYPE:V1,... [ulp K]` or
/// `global NAME = TYPE:V1,... [ulp K]`, checked against its case's `RUN`.
pub fn parse_expect(at: &str, case: &Case, text: &str) -> Result<Expect, String> {
    let err = |m: String| format!("{at}: EXPECT: {m}");
    let (lhs, rhs) = text.split_once('=').ok_or_else(|| {
        err("expected `arg N = TYPE:V1,...` or `global NAME = TYPE:V1,...`".into())
    })?;
    let target = match lhs.split_whitespace().collect::<Vec<_>>()[..] {
        ["arg", i] => {
            let i: usize = i
                .parse()
                .map_err(|_| err(format!("`{i}` is not an argument index")))?;
            match case.args.get(i).map(|a| values::parse_arg(a)) {
                Some(Ok(ArgSpec::Buffer(..))) => Target::Arg(i),
                Some(_) => return Err(err(format!("argument {i} is not a buffer"))),
                None => {
                    return Err(err(format!(
                        "argument {i} does not exist (the RUN at {} passes {})",
                        case.at,
                        case.args.len()
                    )))
                }
            }
        }
        ["global", name] => Target::Global(name.to_string()),
        _ => {
            return Err(err(format!(
                "`{}`: expected `arg N` or `global NAME`",
                lhs.trim()
            )))
        }
    };
    let mut words: Vec<&str> = rhs.split_whitespace().collect();
    let mut ulp = None;
    if words.len() >= 2 && words[words.len() - 2] == "ulp" {
        let n = words[words.len() - 1];
        ulp = Some(
            n.parse::<u64>()
                .map_err(|_| err(format!("`ulp {n}`: expected a whole number")))?,
        );
        words.truncate(words.len() - 2);
    }
    let spec = words.concat();
    let (ty, want) = typed_values(&spec).map_err(err)?;
    if ulp.is_some() && float_layout(ty).is_none() {
        return Err(err(format!(
            "a ULP bound needs a float type, not {}",
            ty.name()
        )));
    }
    Ok(Expect {
        at: at.to_string(),
        target,
        ty,
        values: spec.split_once(':').unwrap().1.to_string(),
        want,
        ulp,
    })
}

/// The cases of one file. `path` names the file in messages; a `.case`
/// file names its program with `FILE`, a `.pisa` file is its own program.
pub fn parse_case_file(path: &str, text: &str) -> Result<Vec<Case>, String> {
    let side_file = path.ends_with(".case");
    let mut program = (!side_file).then(|| path.to_string());
    let mut cases: Vec<Case> = Vec::new();
    for (line, keyword, body) in directives(path, text, side_file)? {
        let at = format!("{path}:{line}");
        match keyword.as_str() {
            "FILE" if !side_file => {
                return Err(format!(
                    "{at}: FILE belongs in a .case file; a .pisa file is its own program"
                ))
            }
            "FILE" if program.is_some() => return Err(format!("{at}: a second FILE")),
            "FILE" if !cases.is_empty() => {
                return Err(format!("{at}: FILE must come before the first RUN"))
            }
            "FILE" => program = Some(body),
            "RUN" => {
                let program = program
                    .as_deref()
                    .ok_or_else(|| format!("{at}: RUN before the FILE that names the program"))?;
                if let Some(last) = cases.last() {
                    if last.expect.is_empty() {
                        return Err(format!("{}: a RUN without EXPECT checks nothing", last.at));
                    }
                }
                cases.push(parse_run(&at, program, &body)?);
            }
            _ => {
                let case = cases
                    .last_mut()
                    .ok_or_else(|| format!("{at}: EXPECT before any RUN"))?;
                let e = parse_expect(&at, case, &body)?;
                if let Some(dup) = case.expect.iter().find(|d| d.target == e.target) {
                    return Err(format!(
                        "{at}: {} is already expected at {}",
                        e.target, dup.at
                    ));
                }
                case.expect.push(e);
            }
        }
    }
    match cases.last() {
        Some(last) if last.expect.is_empty() => {
            Err(format!("{}: a RUN without EXPECT checks nothing", last.at))
        }
        None if side_file => Err(format!("{path}: a .case file without any RUN")),
        _ => Ok(cases),
    }
}

/// The case files of tests/run/, sorted: `(path from the repository root,
/// its cases)`; a `.pisa` file without `RUN` has none.
pub fn case_files() -> Vec<(String, Vec<Case>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pisa") || n.ends_with(".case"))
        .collect();
    names.sort();
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for name in names {
        let path = format!("tests/run/{name}");
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        match parse_case_file(&path, &text) {
            Ok(cases) => files.push((path, cases)),
            Err(e) => errors.push(e),
        }
    }
    assert!(
        errors.is_empty(),
        "malformed case files:\n{}",
        errors.join("\n")
    );
    files
}

/// Every case of tests/run/.
pub fn cases() -> Vec<Case> {
    let all: Vec<Case> = case_files().into_iter().flat_map(|(_, c)| c).collect();
    assert!(!all.is_empty(), "no run case found in tests/run/");
    all
}

/// (exponent bits, fraction bits) of a float type.
pub fn float_layout(ty: Ty) -> Option<(u32, u32)> {
    match ty {
        Ty::F16 => Some((5, 10)),
        Ty::F32 => Some((8, 23)),
        Ty::F64 => Some((11, 52)),
        _ => None,
    }
}

/// The elements of `bytes` as `ty`, in the style of the expected values
/// (hexadecimal bits where they were written so).
pub fn render(ty: Ty, bytes: &[u8], hex: bool) -> String {
    let n = ty.size();
    let items: Vec<String> = bytes
        .chunks(n)
        .map(|c| {
            if hex && float_layout(ty).is_none() {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                format!("{:#x}", u64::from_le_bytes(w))
            } else {
                ty.json(c).trim_matches('"').to_string()
            }
        })
        .collect();
    items.join(",")
}

/// Checks a buffer's or global's final bytes against an expectation: exact
/// bits, or for `ulp N` each float element within N representable values of
/// the expected one (a NaN expected needs a NaN, any NaN; a NaN is never
/// within a bound of a number). The error names the `EXPECT` line.
pub fn check(e: &Expect, got: &[u8], device: &str) -> Result<(), String> {
    let fail = |why: String| {
        Err(format!(
            "{}: on {device}: {}: {why}\n  expected {}:{}{}\n  got      {}:{}",
            e.at,
            e.target,
            e.ty.name(),
            e.values,
            e.ulp.map_or(String::new(), |n| format!(" ulp {n}")),
            e.ty.name(),
            render(e.ty, got, e.values.contains("0x")),
        ))
    };
    if got.len() != e.want.len() {
        return fail(format!("{} bytes, {} expected", got.len(), e.want.len()));
    }
    let Some(bound) = e.ulp else {
        return match got
            .chunks(e.ty.size())
            .zip(e.want.chunks(e.ty.size()))
            .position(|(g, w)| g != w)
        {
            None => Ok(()),
            Some(i) => fail(format!("element {i} differs")),
        };
    };
    let (exp, frac) = float_layout(e.ty).expect("checked when parsed");
    let bits = 1 + exp + frac;
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    let magnitude = |b: u64| b & ((1u64 << (bits - 1)) - 1);
    let is_nan = |b: u64| magnitude(b) > (((1u64 << exp) - 1) << frac);
    // a monotonic integer of the value: consecutive floats differ by 1, and
    // both zeros are 0
    let ordinal = |b: u64| {
        let m = magnitude(b) as i128;
        if b >> (bits - 1) & 1 == 1 {
            -m
        } else {
            m
        }
    };
    for (i, (g, w)) in got
        .chunks(e.ty.size())
        .zip(e.want.chunks(e.ty.size()))
        .enumerate()
    {
        let (g, w) = (word(g), word(w));
        let ok = if is_nan(w) || is_nan(g) {
            is_nan(w) && is_nan(g)
        } else {
            (ordinal(g) - ordinal(w)).unsigned_abs() <= bound as u128
        };
        if !ok {
            return fail(format!("element {i} is not within {bound} ULP"));
        }
    }
    Ok(())
}

pub fn dims(s: &str) -> ([u32; 3], u32) {
    let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap()).collect();
    let mut d = [1; 3];
    d[..v.len()].copy_from_slice(&v);
    (d, v.len() as u32)
}

/// `pisa run PROGRAM --kernel ... --json` for a case, with the validation layer on
/// (`PISA_VALIDATION=1`); the caller adds the device options.
pub fn command(c: &Case) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pisa"));
    cmd.env("PISA_VALIDATION", "1");
    cmd.args([
        "run",
        &root(&c.program),
        "--kernel",
        &c.kernel,
        "--global",
        &c.global,
        "--json",
    ]);
    if let Some(l) = &c.local {
        cmd.args(["--local", l]);
    }
    if let Some(o) = &c.offset {
        cmd.args(["--offset", o]);
    }
    for a in &c.args {
        cmd.arg(format!("--arg={a}"));
    }
    for g in &c.set_globals {
        cmd.args(["--set-global", g]);
    }
    cmd
}

/// Checks the output of `pisa run --json` against a case's `EXPECT`s: one message per output
/// that differs (or is missing), each naming the `EXPECT` line and `device`.
pub fn check_json(c: &Case, json: &serde_json::Value, device: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for e in &c.expect {
        let got: Vec<u8> = match &e.target {
            Target::Arg(i) => {
                let Some(arg) = json["args"]
                    .as_array()
                    .and_then(|a| a.iter().find(|a| a["index"] == *i))
                else {
                    failures.push(format!("{}: {device}: no {} in the output", e.at, e.target));
                    continue;
                };
                if arg["type"] != e.ty.name() {
                    failures.push(format!(
                        "{}: {device}: {}: printed as {}, expected as {}",
                        e.at,
                        e.target,
                        arg["type"],
                        e.ty.name()
                    ));
                    continue;
                }
                arg["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|v| {
                        e.ty.encode(v.as_str().map_or(v.to_string(), str::to_string).as_str())
                            .unwrap()
                    })
                    .collect()
            }
            Target::Global(name) => {
                let Some(g) = json["globals"][name].as_array() else {
                    failures.push(format!(
                        "{}: {device}: no global `{name}` in the output",
                        e.at
                    ));
                    continue;
                };
                g.iter().map(|v| v.as_u64().unwrap() as u8).collect()
            }
        };
        if let Err(m) = check(e, &got, device) {
            failures.push(m);
        }
    }
    failures
}

/// Runs case `c` through `pisa run --json --profile PROFILE` (a path relative to the
/// repository root; `PISA_SPIRV_OPTIONS` and `PISA_DEVICE_PROFILE` cleared) and checks its
/// outputs: the failures, each naming the case (an exit other than 0 is one).
pub fn failures_under_profile(c: &Case, profile: &str) -> Vec<String> {
    let mut cmd = command(c);
    cmd.env_remove("PISA_SPIRV_OPTIONS")
        .env_remove("PISA_DEVICE_PROFILE")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .args(["--profile", &root(profile)]);
    let out = cmd.output().unwrap();
    if !out.status.success() {
        return vec![format!(
            "{}: exit {:?}: {}",
            c.at,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )];
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    check_json(c, &json, &format!("--profile {profile}"))
}
