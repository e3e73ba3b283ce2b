//! `pisa`: assemble, check, translate and run PISA programs.

/// `print!` that returns a write error (`crate::write_stdout`).
macro_rules! out {
    ($($t:tt)*) => {
        $crate::write_stdout(format_args!($($t)*))
    };
}

/// `println!` that returns a write error (`crate::write_stdout`).
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($t)*)))
    };
}

mod run;
mod watchdog;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pisa",
    version,
    about = "Run PISA (Intel's Portable ISA) programs on any Vulkan GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble and validate PISA files, and link them into one program when
    /// there are several; exit 1 if any has an error.
    Check {
        /// PISA source files (modules of one program).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Check each file as a program of its own (no linking).
        #[arg(long)]
        each: bool,
        /// Print diagnostics as JSON lines (one object per diagnostic).
        #[arg(long)]
        json: bool,
        /// Do not print warnings.
        #[arg(long)]
        quiet: bool,
        /// Also check that the back end can translate the program (`vulkan`):
        /// the first construct it does not support yet is an `unsupported`
        /// error at its location.
        #[arg(long, value_parser = ["vulkan"])]
        target: Option<String>,
        /// List the program's kernels with their parameters (stdout; JSON
        /// lines with --json).
        #[arg(long)]
        kernels: bool,
    },
    /// Translate a PISA program to SPIR-V (Vulkan 1.2, SPIR-V 1.5).
    Spirv {
        /// PISA source files (several are linked into one program).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the SPIR-V binary here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print readable disassembly to stdout.
        #[arg(long)]
        dis: bool,
        /// Unroll small innermost loops, for drivers that cap loop
        /// iterations (Mesa's llvmpipe; `pisa run` does this by itself).
        #[arg(long)]
        unroll_loops: bool,
        /// Translate for the device a Vulkan Profiles JSON file describes
        /// (FILE or FILE#PROFILE; default: PISA_DEVICE_PROFILE), as it is,
        /// and refuse (exit 3) a program that device cannot run.
        #[arg(long, value_name = "FILE")]
        profile: Option<String>,
        /// The numerics to translate for (as `pisa run --numerics`): `f32`
        /// in integers and f32, `f64` in f64, `soft` with no f64 at all
        /// (`.df` in integers too); default: the --profile device's choice,
        /// else neither forced.
        #[arg(long, value_name = "f32|f64|soft", value_parser = ["f32", "f64", "soft"])]
        numerics: Option<String>,
    },
    /// Print the intermediate representation of a PISA file: its functions
    /// as basic blocks, and with --structured the structured control flow
    /// the SPIR-V back end emits. --passes lists the IR passes a program
    /// goes through before the back end; --print-after PASS prints the IR
    /// after one of them.
    Ir {
        /// PISA source files (several are linked into one program).
        #[arg(required_unless_present = "passes")]
        files: Vec<PathBuf>,
        /// Also print each function's structured control-flow tree.
        #[arg(long, conflicts_with_all = ["passes", "print_after"])]
        structured: bool,
        /// List the IR passes run before the back end for the target the
        /// other options give (name and what it does), in order; FILEs are
        /// not read.
        #[arg(long, conflicts_with = "print_after")]
        passes: bool,
        /// Print the IR after pass PASS (as `--passes` names it), with each
        /// function's structured tree once `structurize` has run.
        #[arg(long, value_name = "PASS")]
        print_after: Option<String>,
        /// With --passes or --print-after: the target's driver caps loop
        /// iterations (as `pisa spirv --unroll-loops`).
        #[arg(long)]
        unroll_loops: bool,
        /// With --passes or --print-after: checked mode, every load, store
        /// and atomic checks its address (as `pisa run --check`).
        #[arg(long)]
        check: bool,
        /// With --passes or --print-after: the numerics (as `pisa run
        /// --numerics`): `f32` adds `exactf32`, `soft` also `softf64`;
        /// default: the --profile device's choice, else f64.
        #[arg(long, value_name = "f32|f64|soft", value_parser = ["f32", "f64", "soft"])]
        numerics: Option<String>,
        /// With --passes or --print-after: the passes for the device a
        /// Vulkan Profiles JSON file describes (FILE or FILE#PROFILE;
        /// default: PISA_DEVICE_PROFILE), as `pisa spirv --profile`.
        #[arg(long, value_name = "FILE")]
        profile: Option<String>,
    },
    /// Link PISA modules into one (`.import`s resolved against `.export`s,
    /// internal symbols kept apart) and print it as PISA text.
    Link {
        /// PISA source files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the linked module here (`-` or none: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Run a kernel on a Vulkan device and print its results.
    Run(Box<run::RunArgs>),
    /// List the Vulkan devices (the default one marked), and what PISA
    /// does with each feature group on them; with --profile, on the
    /// devices the Vulkan Profiles JSON files describe.
    Devices {
        /// One JSON object per device, for tools.
        #[arg(long)]
        json: bool,
        /// Vulkan Profiles JSON files (FILE or FILE#PROFILE), each taken as
        /// it is (default: PISA_DEVICE_PROFILE).
        #[arg(long, value_name = "FILE", num_args = 1..)]
        profile: Vec<String>,
    },
}

fn main() -> ExitCode {
    // SAFETY: libc::signal with SIG_DFL installs no handler (nothing of ours
    // runs in signal context), at the start of main, before any other thread
    // exists. Writing to a closed pipe
    // (`pisa spirv --dis ... | head -1`) then ends the process quietly, as
    // command-line tools do, instead of panicking in print!.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    match pisa_translator::timing::phase("total", || run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            // a program the device cannot run: 3 (README, "pisa run")
            if e.chain().any(is_refusal) {
                ExitCode::from(3)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

/// Whether an error is a device's refusal of a program (a missing feature
/// or limit, what the device cannot compute): exit status 3.
fn is_refusal(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(e) = e.downcast_ref::<pisa_vk_runtime::RuntimeError>() {
        return e.is_refusal();
    }
    matches!(
        e.downcast_ref::<pisa_translator::spirv::TranslateError>(),
        Some(pisa_translator::spirv::TranslateError::UnsupportedOnDevice { .. })
    )
}

/// The numerics `--numerics` names (clap has checked the value).
pub(crate) fn parse_numerics(
    arg: Option<&str>,
) -> Result<Option<pisa_translator::spirv::Numerics>> {
    arg.map(|a| a.parse().map_err(|e: String| anyhow::anyhow!(e)))
        .transpose()
}

/// The profile `--profile` names, else `PISA_DEVICE_PROFILE` (FILE or
/// FILE#PROFILE), read.
pub(crate) fn read_profile(arg: Option<&str>) -> Result<Option<pisa_device::DeviceDescription>> {
    let env = std::env::var("PISA_DEVICE_PROFILE")
        .ok()
        .filter(|v| !v.is_empty());
    match arg.map(str::to_string).or(env) {
        Some(a) => Ok(Some(
            pisa_device::apply::read_profile(&a).context("cannot read the device profile")?,
        )),
        None => Ok(None),
    }
}

/// Reports a command-line error as clap does, except for its advice on an
/// unexpected argument that starts with `-` ("to pass '-1' as a value, use
/// '-- -1'"): after `--` it is a file name, so the advice does not work for
/// an option's value. It is replaced by advice that does.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = match (e.kind(), e.get(ContextKind::InvalidArg)) {
        (ErrorKind::UnknownArgument, Some(ContextValue::String(a))) if a.starts_with('-') => {
            a.clone()
        }
        _ => e.exit(),
    };
    let text = e.render().to_string();
    let clap_tip = format!("  tip: to pass '{arg}' as a value, use '-- {arg}'");
    if !text.contains(&clap_tip) {
        e.exit();
    }
    // the option it was meant for, when it follows one
    let args: Vec<String> = std::env::args().collect();
    let option = args
        .iter()
        .position(|a| *a == arg)
        .and_then(|i| i.checked_sub(1))
        .map(|i| args[i].as_str())
        .filter(|o| o.starts_with("--") && o.len() > 2 && !o.contains('='))
        .unwrap_or("--OPTION");
    let tip = format!(
        "  tip: an option's value that starts with '-' is written with '=', as in '{option}={arg}'; a file name after '--'"
    );
    eprint!("{}", text.replace(&clap_tip, &tip));
    std::process::exit(2);
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check {
            files,
            each,
            json,
            quiet,
            target,
            kernels,
        } => check(&files, each, json, quiet, target.is_some(), kernels),
        Command::Spirv {
            files,
            output,
            dis,
            unroll_loops,
            profile,
            numerics,
        } => spirv(
            &files,
            output.as_deref(),
            dis,
            unroll_loops,
            profile.as_deref(),
            parse_numerics(numerics.as_deref())?,
        ),
        Command::Ir {
            files,
            structured,
            passes,
            print_after,
            unroll_loops,
            check,
            numerics,
            profile,
        } => {
            if passes || print_after.is_some() {
                let target = ir_target(
                    unroll_loops,
                    check,
                    profile.as_deref(),
                    parse_numerics(numerics.as_deref())?,
                )?;
                match print_after {
                    None => ir_passes(&target),
                    Some(pass) => ir_print_after(&files, &pass, &target),
                }
            } else if unroll_loops || check || numerics.is_some() || profile.is_some() {
                let flag = if check {
                    "--check"
                } else if unroll_loops {
                    "--unroll-loops"
                } else if numerics.is_some() {
                    "--numerics"
                } else {
                    "--profile"
                };
                anyhow::bail!("{flag} chooses the passes of --passes and --print-after: give one")
            } else {
                ir(&files, structured)
            }
        }
        Command::Link { files, output } => link(&files, output.as_deref()),
        Command::Run(a) => run::run(*a),
        Command::Devices { json, profile } => run::devices(json, &profile),
    }
}

/// Writes to standard output and flushes it: an error (a full disk,
/// `> /dev/full`) is returned, for exit status 2, where `print!` panics or,
/// for what stays buffered until exit, is lost. A closed pipe ends the
/// process quietly before EPIPE is seen here (SIGPIPE, in `main`).
pub(crate) fn write_stdout(args: std::fmt::Arguments<'_>) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

/// Reads and assembles one file, printing its diagnostics; `None` if invalid.
/// `-` as a path: standard input (or output).
fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A file's bytes, or standard input's for `-`.
pub(crate) fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    if is_stdio(path) {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

/// The name diagnostics use for a path (`<stdin>` for `-`).
fn display_name(path: &Path) -> String {
    if is_stdio(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads the files, assembles them and links them into one program (one
/// file: assembled as it is), printing every diagnostic; `None` if invalid.
pub(crate) fn assemble_files(paths: &[PathBuf]) -> Result<Option<pisa_translator::Module>> {
    assemble_with(paths, pisa_translator::link::link_owned)
}

/// As [`assemble_files`], for a program that is translated or run: a
/// single file's `.import`s are unresolved too (`link-unresolved`).
pub(crate) fn assemble_program(paths: &[PathBuf]) -> Result<Option<pisa_translator::Module>> {
    assemble_with(paths, pisa_translator::link::link_program_owned)
}

/// A file's bytes as text, without a copy when they are UTF-8; invalid
/// UTF-8 is replaced so that the assembler can point at it.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Links files (name, text) it takes over: a single file's text becomes
/// the module's source without a copy.
type Linker = fn(
    Vec<(String, String)>,
) -> std::result::Result<pisa_translator::Module, pisa_translator::Diagnostics>;

fn assemble_with(paths: &[PathBuf], linker: Linker) -> Result<Option<pisa_translator::Module>> {
    let mut texts = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = pisa_translator::timing::phase("read", || read_input(path))
            .with_context(|| format!("cannot read {}", display_name(path)))?;
        texts.push((display_name(path), text_of(bytes)));
    }
    match linker(texts) {
        Ok(m) => {
            eprint!("{}", m.warnings().render());
            Ok(Some(m))
        }
        Err(d) => {
            eprint!("{}", d.render());
            Ok(None)
        }
    }
}

/// How a list of input files is named in messages.
pub(crate) fn display_names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| display_name(p))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Refuses an output path that is one of the inputs (`-o k.pisa` would
/// overwrite the program).
fn refuse_overwriting_inputs(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    if is_stdio(out) || !out.exists() {
        return Ok(());
    }
    let out_c = std::fs::canonicalize(out).ok();
    for path in inputs {
        if !is_stdio(path) && out_c.is_some() && std::fs::canonicalize(path).ok() == out_c {
            anyhow::bail!("-o {} is the input file itself", out.display());
        }
    }
    Ok(())
}

fn link(paths: &[PathBuf], output: Option<&Path>) -> Result<ExitCode> {
    if let Some(out) = output {
        refuse_overwriting_inputs(out, paths)?;
    }
    let Some(module) = assemble_files(paths)? else {
        return Ok(ExitCode::from(1));
    };
    match output {
        Some(out) if !is_stdio(out) => std::fs::write(out, module.source())
            .with_context(|| format!("cannot write {}", out.display()))?,
        _ => out!("{}", module.source())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn spirv(
    paths: &[PathBuf],
    output: Option<&Path>,
    dis: bool,
    unroll_loops: bool,
    profile: Option<&str>,
    numerics: Option<pisa_translator::spirv::Numerics>,
) -> Result<ExitCode> {
    if let Some(out) = output {
        refuse_overwriting_inputs(out, paths)?;
    }
    let profile = read_profile(profile)?;
    let Some(module) = assemble_program(paths)? else {
        return Ok(ExitCode::from(1));
    };
    let spv = match &profile {
        // the module that device would get, as `pisa run` translates it
        // there (the profile as it is: no real device to restrict it to)
        Some(p) => {
            let mut info = p.device_info(0);
            info.caps_loops |= unroll_loops;
            let t = pisa_vk_runtime::translate_for_numerics(&module, &info, false, numerics)
                .with_context(|| format!("cannot translate {}", display_names(paths)))?;
            pisa_vk_runtime::check_for_device(&info, &t.spirv.words, Some(&t.spirv.layout))
                .with_context(|| {
                    format!(
                        "{} cannot run on {}",
                        display_names(paths),
                        p.display_name()
                    )
                })?;
            t.spirv
        }
        None => {
            let options = pisa_translator::spirv::Options {
                unroll_loops,
                ..Default::default()
            };
            let options = match numerics {
                Some(n) => options.with_numerics(n),
                None => options,
            };
            // as `translate_module`, keeping the IR to the end (below)
            let translated = (|| -> Result<_, pisa_translator::spirv::TranslateError> {
                // the syntax tree is freed while the IR is built
                let mut program = pisa_translator::timing::phase("build IR", || {
                    pisa_translator::ir::lower_owned(module)
                });
                pisa_translator::ir::pipeline::Pipeline::for_target(&options.target())
                    .run(&mut program)?;
                let spv = pisa_translator::spirv::translate_program(&program, &options)?;
                Ok((spv, program))
            })();
            let (spv, program) =
                translated.with_context(|| format!("cannot translate {}", display_names(paths)))?;
            // the process ends once the words are written: the OS takes the
            // IR back at once, where freeing it piece by piece costs a few
            // percent of a large translation
            std::mem::forget(program);
            spv
        }
    };
    match output {
        Some(out) if is_stdio(out) => {
            if dis {
                anyhow::bail!("`-o -` and `--dis` both write to standard output: choose one");
            }
            spv.write_to(&mut std::io::stdout().lock())
                .context("cannot write to standard output")?;
        }
        Some(out) => pisa_translator::timing::phase("write", || {
            std::fs::File::create(out).and_then(|mut f| spv.write_to(&mut f))
        })
        .with_context(|| format!("cannot write {}", out.display()))?,
        None => {}
    }
    if dis {
        out!("{}", spv.disassemble())?;
    }
    if output.is_none() && !dis {
        anyhow::bail!("nothing to do: give `-o FILE.spv` and/or `--dis`");
    }
    Ok(ExitCode::SUCCESS)
}

fn ir(paths: &[PathBuf], structured: bool) -> Result<ExitCode> {
    let Some(module) = assemble_files(paths)? else {
        return Ok(ExitCode::from(1));
    };
    let mut program = pisa_translator::ir::build(&module);
    if structured {
        // the tree sub-groups reconverge by (docs/spec-notes.md); the
        // Vulkan back end may unroll loops without sync points in it
        for f in program.functions.iter_mut().filter(|f| !f.is_declaration()) {
            f.structured = Some(pisa_translator::ir::structurize::structurize(f)?);
        }
    }
    out!("{}", pisa_translator::ir::pipeline::print(&program))?;
    Ok(ExitCode::SUCCESS)
}

/// The target of `pisa ir --passes`/`--print-after`: that of the
/// translation options `pisa spirv` would use with the same
/// `--unroll-loops`, `--profile` and `--numerics` (`--numerics f64` is
/// refused, exit 3, under a profile without `shaderFloat64` and
/// `shaderInt64`), with checked mode as `check` says.
fn ir_target(
    unroll_loops: bool,
    check: bool,
    profile: Option<&str>,
    numerics: Option<pisa_translator::spirv::Numerics>,
) -> Result<pisa_translator::ir::pipeline::Target> {
    let options = match read_profile(profile)? {
        Some(p) => {
            let mut info = p.device_info(0);
            info.caps_loops |= unroll_loops;
            let options = pisa_vk_runtime::translate_options(&info);
            pisa_vk_runtime::with_numerics(options, &info, numerics).with_context(|| {
                format!("the pipeline cannot be chosen for {}", p.display_name())
            })?
        }
        None => {
            let options = pisa_translator::spirv::Options {
                unroll_loops,
                ..Default::default()
            };
            match numerics {
                Some(n) => options.with_numerics(n),
                None => options,
            }
        }
    };
    Ok(pisa_translator::ir::pipeline::Target {
        checked_memory: check,
        ..options.target()
    })
}

/// `pisa ir --passes`: the IR pipeline for `target`, one pass a line.
fn ir_passes(target: &pisa_translator::ir::pipeline::Target) -> Result<ExitCode> {
    let pipeline = pisa_translator::ir::pipeline::Pipeline::for_target(target);
    for pass in pipeline.passes() {
        outln!("{:<12} {}", pass.name, pass.doc)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `pisa ir --print-after PASS`: the IR the pipeline for `target` leaves
/// after `pass`.
fn ir_print_after(
    paths: &[PathBuf],
    pass: &str,
    target: &pisa_translator::ir::pipeline::Target,
) -> Result<ExitCode> {
    use pisa_translator::ir::pipeline;
    let pass = pipeline::find(pass)?.name;
    let pipeline = pipeline::Pipeline::for_target(target);
    if !pipeline.runs(pass) {
        let hint = match pass {
            "unroll" => " (it runs with --unroll-loops)",
            "checked" => " (it runs with --check)",
            "exactf32" => " (it runs with --numerics f32 or soft)",
            "softf64" => " (it runs with --numerics soft)",
            "exactf64" => " (it runs with --numerics f64)",
            _ => "",
        };
        anyhow::bail!("pass `{pass}` does not run for this target{hint}");
    }
    let Some(module) = assemble_files(paths)? else {
        return Ok(ExitCode::from(1));
    };
    let mut program = pisa_translator::ir::lower(&module);
    let mut shown = None;
    let result = pipeline.run_with(&mut program, &mut |p, program| {
        if p.name == pass {
            shown = Some(pisa_translator::ir::pipeline::print(program));
        }
    });
    if let Some(text) = shown {
        out!("{text}")?;
    }
    result?;
    Ok(ExitCode::SUCCESS)
}

/// Diagnostics shown in text per program at most (JSON lines carry them all).
const MAX_SHOWN: usize = 200;

/// What translating a valid module for Vulkan reports, as a diagnostic;
/// `texts` are the input files by name (for the quoted source line).
fn translation_diagnostic(
    m: &pisa_translator::Module,
    texts: &[(String, String)],
) -> Option<pisa_translator::Diagnostic> {
    use pisa_translator::spirv::TranslateError;
    let e = pisa_translator::spirv::translate(m).err()?;
    let (message, file, line, col) = match &e {
        TranslateError::Unsupported {
            what,
            file,
            line,
            col,
        } => (
            format!("not supported by the Vulkan back end yet: {what}"),
            file.clone(),
            *line,
            *col,
        ),
        other => (other.to_string(), m.file().to_string(), 1, 1),
    };
    let text = texts
        .iter()
        .find(|(name, _)| *name == file)
        .map_or("", |(_, t)| t.as_str());
    let source_line = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .to_string();
    // underline the word that starts at the column
    let len = source_line
        .get(col.saturating_sub(1) as usize..)
        .map_or(1, |rest| {
            rest.chars()
                .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ';')
                .count()
                .max(1)
        }) as u32;
    Some(pisa_translator::Diagnostic {
        severity: pisa_translator::Severity::Error,
        code: "unsupported",
        message,
        file,
        line,
        col,
        len,
        source_line,
        source_col: col,
        notes: Vec::new(),
    })
}

/// The diagnostics of one program (one file, or several linked), and
/// whether it failed.
fn check_program(
    texts: Vec<(String, String)>,
    vulkan: bool,
) -> (
    pisa_translator::Diagnostics,
    bool,
    Option<pisa_translator::Module>,
) {
    // the texts quoted by a translation error (`--target` only)
    let quoted = if vulkan { texts.clone() } else { Vec::new() };
    match pisa_translator::link::link_owned(texts) {
        Ok(m) => {
            let mut d = m.warnings().clone();
            let unsupported = vulkan
                .then(|| translation_diagnostic(&m, &quoted))
                .flatten();
            let failed = unsupported.is_some();
            d.0.extend(unsupported);
            (d, failed, Some(m))
        }
        Err(d) => (d, true, None),
    }
}

/// `pisa check --kernels`: each kernel with its parameters (name, size,
/// offset in the argument block) and required work-group size.
fn print_kernels(m: &pisa_translator::Module, json: bool) -> Result<()> {
    use pisa_translator::diag::json_str;
    let layout = pisa_translator::abi::layout(&pisa_translator::ir::build(m))?;
    for k in &layout.kernels {
        if json {
            let params: Vec<String> = k
                .params
                .iter()
                .map(|p| {
                    format!(
                        "{{\"name\":{},\"size\":{},\"offset\":{},\"align\":{}}}",
                        json_str(&p.name),
                        p.size,
                        p.offset,
                        p.align
                    )
                })
                .collect();
            let reqd = k
                .reqd_work_group_size
                .map_or("null".to_string(), |[x, y, z]| format!("[{x},{y},{z}]"));
            outln!(
                "{{\"kernel\":{},\"params\":[{}],\"param_bytes\":{},\"reqd_work_group_size\":{reqd}}}",
                json_str(&k.name),
                params.join(","),
                k.param_bytes
            )?;
        } else {
            let params: Vec<String> = k
                .params
                .iter()
                .map(|p| format!(".param[{}] %{}", p.size, p.name))
                .collect();
            // as a declaration writes it
            let reqd = k.reqd_work_group_size.map_or(String::new(), |[x, y, z]| {
                format!(".reqd_work_group_size({x}, {y}, {z}) ")
            });
            outln!("{reqd}@{}({})", k.name, params.join(", "))?;
        }
    }
    Ok(())
}

fn check(
    files: &[PathBuf],
    each: bool,
    json: bool,
    quiet: bool,
    vulkan: bool,
    kernels: bool,
) -> Result<ExitCode> {
    let mut failed = false;
    let mut texts = Vec::new();
    for path in files {
        // an unreadable file is reported, and the others are still checked
        match read_input(path) {
            // invalid UTF-8 is replaced so that the assembler can point at it
            Ok(b) => texts.push((display_name(path), text_of(b))),
            Err(e) => eprintln!("error: cannot read {}: {e}", display_name(path)),
        }
    }
    let unreadable = texts.len() < files.len();
    // one program of all files, or (--each, or a file missing) one per file
    let programs: Vec<Vec<(String, String)>> = if each || unreadable {
        texts.into_iter().map(|t| vec![t]).collect()
    } else {
        vec![texts]
    };
    let count = programs.len();
    for (i, program) in programs.into_iter().enumerate() {
        let last = i + 1 == count;
        let (diags, bad, module) = check_program(program, vulkan);
        failed |= bad;
        if let (true, Some(m)) = (kernels, &module) {
            print_kernels(m, json)?;
        }
        // after the last program the process ends: the OS takes its syntax
        // tree back at once, where freeing it piece by piece is a tenth of
        // checking a large module
        if last {
            std::mem::forget(module);
        }
        let shown: Vec<_> = diags
            .0
            .iter()
            .filter(|d| !quiet || d.severity != pisa_translator::Severity::Warning)
            .collect();
        for (i, d) in shown.iter().enumerate() {
            if json {
                outln!("{}", d.to_json())?;
            } else if i < MAX_SHOWN {
                eprint!("{}", d.render());
            } else {
                eprintln!(
                    "... and {} more diagnostics (`--json` lists them all)",
                    shown.len() - MAX_SHOWN
                );
                break;
            }
        }
    }
    Ok(if unreadable {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
