//! Run cases as data: every case file in tests/run/ (a `.pisa` program with
//! `// RUN:` and `// EXPECT:` directives in its comments, or a `.case` side
//! file naming a program kept elsewhere with `// FILE:`) is found, parsed
//! and run five ways: through the library on the Vulkan device (lavapipe in
//! CI) with the validation layer, the same in checked mode, on the cpu
//! device, and through the `pisa run` command line on both devices. The
//! format is described in docs/run-cases.md; adding a case is adding a file
//! or a directive.

use pisa_vk_runtime::values::{self, ArgSpec, Ty};
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::process::Command;

/// The programs of tests/run/ that hold no `RUN` directive, with the test
/// file that runs each: every other `.pisa` file there must be a case file,
/// so that no program is added that runs nowhere.
const NOT_CASE_FILES: &[(&str, &str)] = &[
    ("bad_accesses.pisa", "tests/checked.rs"),
    ("count.pisa", "tests/run_behaviour.rs"),
    ("forever.pisa", "tests/run_behaviour.rs"),
    ("mark.pisa", "tests/run_behaviour.rs"),
    ("printf.pisa", "tests/printf.rs"),
    ("subgroup_activemask.pisa", "tests/subgroups.rs"),
    ("subgroup_barrier.pisa", "tests/subgroups.rs"),
    ("subgroup_reconverge.pisa", "tests/subgroups.rs"),
    ("subgroup_reduce.pisa", "tests/subgroups.rs"),
    ("subgroup_shfl.pisa", "tests/subgroups.rs"),
    ("wild_pointer.pisa", "tests/run_behaviour.rs"),
];

/// One launch of a program and the outputs it must give.
#[derive(Debug)]
struct Case {
    /// `FILE:LINE` of the `RUN` directive
    at: String,
    /// the program, relative to the repository root
    program: String,
    kernel: String,
    global: String,
    local: Option<String>,
    offset: Option<String>,
    /// `pisa run --arg` values, in order
    args: Vec<String>,
    /// `pisa run --set-global` values (`NAME=TYPE:V1,...`)
    set_globals: Vec<String>,
    expect: Vec<Expect>,
}

#[derive(Debug, PartialEq)]
enum Target {
    /// the final contents of a buffer argument, by index
    Arg(usize),
    /// the final contents of a host-accessible global, by host name
    Global(String),
}

/// One `EXPECT` directive.
#[derive(Debug)]
struct Expect {
    /// `FILE:LINE` of the directive
    at: String,
    target: Target,
    ty: Ty,
    /// the values as written, `V1,V2,...`
    values: String,
    /// the values encoded
    want: Vec<u8>,
    /// the largest distance, in representable values, a float element may
    /// be from its expected value (`ulp N`); `None`: exact bits
    ulp: Option<u64>,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Arg(i) => write!(f, "arg {i}"),
            Target::Global(n) => write!(f, "global {n}"),
        }
    }
}

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// The directives of a file with their line numbers (of their first line),
/// continuation lines joined: `(line, keyword, text)`.
fn directives(
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
fn check_dims(s: &str) -> Result<(), String> {
    let v: Vec<&str> = s.split(',').collect();
    if v.len() > 3 || v.iter().any(|x| x.parse::<u32>().is_err()) {
        return Err(format!("`{s}` is not one to three comma-separated numbers"));
    }
    Ok(())
}

/// `TYPE:V1,V2,...` as the type and the encoded values.
fn typed_values(spec: &str) -> Result<(Ty, Vec<u8>), String> {
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
fn parse_run(at: &str, program: &str, text: &str) -> Result<Case, String> {
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
fn parse_expect(at: &str, case: &Case, text: &str) -> Result<Expect, String> {
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
fn parse_case_file(path: &str, text: &str) -> Result<Vec<Case>, String> {
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
fn case_files() -> Vec<(String, Vec<Case>)> {
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
fn cases() -> Vec<Case> {
    let all: Vec<Case> = case_files().into_iter().flat_map(|(_, c)| c).collect();
    assert!(!all.is_empty(), "no run case found in tests/run/");
    all
}

/// (exponent bits, fraction bits) of a float type.
fn float_layout(ty: Ty) -> Option<(u32, u32)> {
    match ty {
        Ty::F16 => Some((5, 10)),
        Ty::F32 => Some((8, 23)),
        Ty::F64 => Some((11, 52)),
        _ => None,
    }
}

/// The elements of `bytes` as `ty`, in the style of the expected values
/// (hexadecimal bits where they were written so).
fn render(ty: Ty, bytes: &[u8], hex: bool) -> String {
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
fn check(e: &Expect, got: &[u8], device: &str) -> Result<(), String> {
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

fn dims(s: &str) -> ([u32; 3], u32) {
    let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap()).collect();
    let mut d = [1; 3];
    d[..v.len()].copy_from_slice(&v);
    (d, v.len() as u32)
}

/// Assembles a program of the repository and loads it.
fn load(rt: &mut dyn Device, path: &str) -> Result<pisa_vk_runtime::ProgramId, String> {
    let src = std::fs::read_to_string(root(path)).map_err(|e| format!("{path}: {e}"))?;
    let m = pisa_translator::assemble(path, &src).map_err(|d| d.to_string())?;
    rt.load(&m).map_err(|e| e.to_string())
}

/// Runs one case through the library and checks its outputs.
fn run_case_on(rt: &mut dyn Device, c: &Case) -> Result<(), String> {
    let device = rt.device_info().name.clone();
    let prog = load(rt, &c.program).map_err(|e| format!("{}: {e}", c.at))?;
    for g in &c.set_globals {
        let (name, spec) = g.split_once('=').unwrap();
        rt.write_global(prog, name, &typed_values(spec).unwrap().1)
            .map_err(|e| format!("{}: --set-global {g}: {e}", c.at))?;
    }
    let mut bufs = Vec::new();
    let mut args = Vec::new();
    for a in &c.args {
        match values::parse_arg(a).unwrap() {
            ArgSpec::Scalar(b) => {
                bufs.push(None);
                args.push(b);
            }
            ArgSpec::Buffer(_, b) => {
                let id = rt.alloc_buffer(b.len() as u64).unwrap();
                rt.upload(id, 0, &b).unwrap();
                args.push(rt.buffer_address(id).unwrap().to_le_bytes().to_vec());
                bufs.push(Some(id));
            }
        }
    }
    let (global, d) = dims(&c.global);
    let range = NdRange {
        global,
        local: c.local.as_deref().map(|l| dims(l).0),
        // dimensions the offset leaves out are 0 (dims() fills sizes with 1)
        offset: c.offset.as_deref().map_or([0; 3], |o| {
            let mut off = [0; 3];
            for (d, v) in o.split(',').enumerate() {
                off[d] = v.parse().unwrap();
            }
            off
        }),
        dims: d,
    };
    rt.launch(&Launch {
        program: prog,
        kernel: c.kernel.clone(),
        range,
        args,
    })
    .map_err(|e| format!("{}: on {device}: {e}", c.at))?;
    let mut failures = Vec::new();
    for e in &c.expect {
        let got = match &e.target {
            Target::Arg(i) => rt.download(bufs[*i].unwrap()),
            Target::Global(name) => rt.read_global(prog, name),
        }
        .map_err(|err| format!("{}: on {device}: {}: {err}", e.at, e.target))?;
        if let Err(m) = check(e, &got, &device) {
            failures.push(m);
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Runs every case on a device; fails with every case that failed.
fn run_cases_on(rt: &mut dyn Device) {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| run_case_on(rt, c).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The run-case tables on lavapipe one at a time: atomic_128_count.pisa's
/// spin locks count against llvmpipe's loop cap, and two tables contending
/// for the machine's cores at once made it reach the cap (the launch then
/// fails with the loop-cap error, never with a wrong count).
static ONE_TABLE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn cases_through_the_library() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Checked mode (`pisa run --check`) finds no bad access in these correct
/// programs, and changes none of their results.
#[test]
fn cases_in_checked_mode() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        checked_memory: true,
        // each access searches the allocation table: the spin-lock
        // contention of atomic_128_count.pisa takes seconds longer (this
        // bounds a hang; no timing test)
        timeout: std::time::Duration::from_secs(120),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// The same cases on the reference device: both devices agree with the
/// expected outputs, so they agree with each other.
#[test]
fn cases_on_the_cpu_device() {
    run_cases_on(&mut pisa_interp::CpuDevice::new());
}

#[test]
fn cases_through_the_command_line() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cases_through_the_command_line_on(None);
}

#[test]
fn cases_through_the_command_line_on_the_cpu_device() {
    cases_through_the_command_line_on(Some("cpu"));
}

/// Runs one case with `pisa run --json` and checks its outputs.
fn run_case_through_the_command_line(c: &Case, device: Option<&str>) -> Result<(), String> {
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
    if let Some(d) = device {
        cmd.args(["--device", d]);
    }
    let device = format!("pisa run --device {}", device.unwrap_or("(default)"));
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("vulkan validation") {
        return Err(format!("{}: {device}: {}\n{stderr}", c.at, out.status));
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut failures = Vec::new();
    for e in &c.expect {
        let got: Vec<u8> = match &e.target {
            Target::Arg(i) => {
                let arg = json["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|a| a["index"] == *i)
                    .unwrap();
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
            Target::Global(name) => json["globals"][name]
                .as_array()
                .unwrap_or_else(|| panic!("{}: no global `{name}` in the output", e.at))
                .iter()
                .map(|v| v.as_u64().unwrap() as u8)
                .collect(),
        };
        if let Err(m) = check(e, &got, &device) {
            failures.push(m);
        }
    }
    assert!(json["kernel_ms"].as_f64().unwrap() >= 0.0);
    assert!(json["compile_ms"].as_f64().unwrap() > 0.0);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn cases_through_the_command_line_on(device: Option<&str>) {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| run_case_through_the_command_line(c, device).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every program in tests/run/ runs somewhere: it is a case file, or it is
/// listed in `NOT_CASE_FILES` with a test file that names it. A listed file
/// that gained a `RUN`, or is gone, is a stale entry.
#[test]
fn every_program_in_tests_run_is_a_case_or_used_by_a_test() {
    let mut problems = Vec::new();
    let files = case_files();
    for (path, cases) in &files {
        let name = path.strip_prefix("tests/run/").unwrap();
        let listed = NOT_CASE_FILES.iter().find(|(n, _)| *n == name);
        match (cases.is_empty(), listed) {
            (true, None) => problems.push(format!(
                "{path} has no RUN directive and is not in NOT_CASE_FILES: give it a RUN (docs/run-cases.md) or name the test that runs it"
            )),
            (false, Some(_)) => problems.push(format!("{path} has RUN directives: remove it from NOT_CASE_FILES")),
            (true, Some((_, test))) => {
                let text = std::fs::read_to_string(root(test)).unwrap_or_default();
                let stem = name.strip_suffix(".pisa").unwrap();
                // tests/subgroups.rs names its programs without the directory
                if !text.contains(name) && !text.contains(&format!("\"{stem}")) {
                    problems.push(format!("{path}: {test} does not name it"));
                }
            }
            (false, None) => {}
        }
    }
    for (name, _) in NOT_CASE_FILES {
        if !files
            .iter()
            .any(|(p, _)| p.strip_prefix("tests/run/") == Some(name))
        {
            problems.push(format!(
                "NOT_CASE_FILES names {name}, which is not in tests/run/"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every case file parses, and each `FILE` names a program that exists.
#[test]
fn every_case_file_parses() {
    for c in cases() {
        assert!(
            Path::new(&root(&c.program)).is_file(),
            "{}: the program {} does not exist",
            c.at,
            c.program
        );
    }
}

/// Malformed directives are errors naming the file and the line.
#[test]
fn malformed_directives_name_the_file_and_line() {
    let run = "// RUN: --kernel k --global 1 --arg buf:u32:zeros:2 --arg u32:3\n";
    for (path, text, msg) in [
        ("a.pisa", format!("//\n{run}"), "a.pisa:2: a RUN without EXPECT checks nothing"),
        ("a.pisa", "// EXPECT: arg 0 = u32:0,0\n".into(), "a.pisa:1: EXPECT before any RUN"),
        ("a.pisa", format!("{run}// EXPECT: arg 1 = u32:3\n"), "a.pisa:2: EXPECT: argument 1 is not a buffer"),
        ("a.pisa", format!("{run}// EXPECT: arg 2 = u32:3\n"), "a.pisa:2: EXPECT: argument 2 does not exist"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u33:3\n"), "a.pisa:2: EXPECT: `u33:3`: unknown type `u33`"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u32:1,2 ulp 1\n"), "a.pisa:2: EXPECT: a ULP bound needs a float type, not u32"),
        ("a.pisa", format!("{run}// EXPECT: arg 0 = u32:1,2\n// EXPECT: arg 0 = u32:1,2\n"), "a.pisa:3: arg 0 is already expected at a.pisa:2"),
        ("a.pisa", format!("{run}// EXPECT arg 0 = u32:1,2\n"), "a.pisa:2: `EXPECT` must be followed by `:`"),
        ("a.pisa", "// RUN: --kernel k \\\n.version 0.1;\n".into(), "a.pisa:2: the directive of line 1 continues (`\\`) onto a line that is not a `//` comment"),
        ("a.pisa", "// RUN: --kernel k --global 1 --lokal 4\n".into(), "a.pisa:1: RUN: unknown option `--lokal`"),
        ("a.pisa", "// RUN: --global 1\n".into(), "a.pisa:1: RUN: `--kernel` is missing"),
        ("a.pisa", "// RUN: --kernel k --global 1,x\n".into(), "a.pisa:1: RUN: --global: `1,x` is not"),
        ("a.pisa", "// RUN: --kernel k --global 1 --arg buf:u32:1,,2\n".into(), "a.pisa:1: RUN: --arg buf:u32:1,,2: value 1 of the list is empty"),
        ("a.pisa", "// FILE: b.pisa\n".into(), "a.pisa:1: FILE belongs in a .case file"),
        ("a.case", run.to_string(), "a.case:1: RUN before the FILE"),
        ("a.case", "// FILE: b.pisa\n".into(), "a.case: a .case file without any RUN"),
        ("a.case", "// FILE: b.pisa\n.version 0.1;\n".into(), "a.case:2: a .case file holds only `//` comments"),
    ] {
        let e = parse_case_file(path, &text).unwrap_err();
        assert!(e.starts_with(msg), "{text:?}: {e}");
    }
}

/// Continuation lines, several cases in one file, and the ULP bound.
#[test]
fn directives_continue_and_bound_floats() {
    let text = "\
// a comment, then a case over three lines
// RUN: --kernel k --global 4,2 --local 2 \\
//   --arg buf:f32:1,2, \\
//     3 --set-global g=u32:7
// EXPECT: arg 0 = f32:1.5, \\
//   2,3 ulp 2
// EXPECT: global g = u32:0x8
//
// RUN: --kernel j --global 1 --offset 3 --arg buf:u16:zeros:1
// EXPECT: arg 0 = u16:0
.version 0.1;
";
    let cases = parse_case_file("t.pisa", text).unwrap();
    assert_eq!(cases.len(), 2);
    let c = &cases[0];
    assert_eq!(c.at, "t.pisa:2");
    assert_eq!((c.kernel.as_str(), c.global.as_str()), ("k", "4,2"));
    assert_eq!(c.local.as_deref(), Some("2"));
    assert_eq!(c.args, ["buf:f32:1,2,3"]);
    assert_eq!(c.set_globals, ["g=u32:7"]);
    assert_eq!(c.expect[0].at, "t.pisa:5");
    assert_eq!(c.expect[0].values, "1.5,2,3");
    assert_eq!(c.expect[0].ulp, Some(2));
    assert_eq!(c.expect[1].target, Target::Global("g".into()));
    assert_eq!(cases[1].at, "t.pisa:9");
    assert_eq!(cases[1].offset.as_deref(), Some("3"));
    let e = &c.expect[0];
    let f32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (a, b, c3) = (1.5f32.to_bits(), 2f32.to_bits(), 3f32.to_bits());
    assert!(check(e, &f32s(&[a, b, c3]), "t").is_ok());
    assert!(check(e, &f32s(&[a + 2, b - 2, c3 + 1]), "t").is_ok());
    let err = check(e, &f32s(&[a, b - 3, c3]), "t").unwrap_err();
    assert!(
        err.starts_with("t.pisa:5: on t: arg 0: element 1 is not within 2 ULP"),
        "{err}"
    );
    assert!(check(e, &f32s(&[a, b, 0x7fc0_0000]), "t").is_err());
    // across zero: the distance counts the values between, both zeros as one
    let z = Expect {
        at: String::new(),
        target: Target::Arg(0),
        ty: Ty::F32,
        values: "0".into(),
        want: 0f32.to_le_bytes().to_vec(),
        ulp: Some(2),
    };
    assert!(check(&z, &f32s(&[0x8000_0002]), "t").is_ok());
    assert!(check(&z, &f32s(&[0x8000_0003]), "t").is_err());
    // exact: the message shows the values as written (hexadecimal here)
    let err = check(
        &cases_of_one("// EXPECT: global g = u32:0x8\n"),
        &[9, 0, 0, 0],
        "t",
    )
    .unwrap_err();
    assert!(
        err.contains("expected u32:0x8\n  got      u32:0x9"),
        "{err}"
    );
}

/// The one `EXPECT` of a minimal case.
fn cases_of_one(expect: &str) -> Expect {
    let text = format!("// RUN: --kernel k --global 1\n{expect}");
    let mut cases = parse_case_file("one.pisa", &text).unwrap();
    cases.remove(0).expect.remove(0)
}
