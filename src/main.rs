//! `pisa`: assemble, check, translate and run PISA programs.

mod run;

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
    /// Assemble and validate PISA files; exit 1 if any has an error.
    Check {
        /// PISA source files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
    },
    /// Translate a PISA file to SPIR-V (Vulkan 1.2, SPIR-V 1.5).
    Spirv {
        /// PISA source file.
        file: PathBuf,
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
    },
    /// Print the intermediate representation of a PISA file: its functions
    /// as basic blocks, and with --structured the structured control flow
    /// the SPIR-V back end emits.
    Ir {
        /// PISA source file.
        file: PathBuf,
        /// Also print each function's structured control-flow tree.
        #[arg(long)]
        structured: bool,
    },
    /// Run a kernel on a Vulkan device and print its results.
    Run(Box<run::RunArgs>),
    /// List the Vulkan devices (the default one marked).
    Devices {
        /// One JSON object per device, for tools.
        #[arg(long)]
        json: bool,
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
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check {
            files,
            json,
            quiet,
            target,
        } => check(&files, json, quiet, target.is_some()),
        Command::Spirv {
            file,
            output,
            dis,
            unroll_loops,
        } => spirv(&file, output.as_deref(), dis, unroll_loops),
        Command::Ir { file, structured } => ir(&file, structured),
        Command::Run(a) => run::run(*a),
        Command::Devices { json } => run::devices(json),
    }
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

fn assemble_file(path: &Path) -> Result<Option<pisa_translator::Module>> {
    let bytes = read_input(path).with_context(|| format!("cannot read {}", display_name(path)))?;
    let text = String::from_utf8_lossy(&bytes);
    match pisa_translator::assemble(&display_name(path), &text) {
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

fn spirv(path: &Path, output: Option<&Path>, dis: bool, unroll_loops: bool) -> Result<ExitCode> {
    let Some(module) = assemble_file(path)? else {
        return Ok(ExitCode::from(1));
    };
    let options = pisa_translator::spirv::Options {
        unroll_loops,
        ..Default::default()
    };
    if let Some(out) = output {
        // `pisa spirv k.pisa -o k.pisa` would replace the program with binary
        if !is_stdio(out)
            && std::fs::canonicalize(out).ok() == std::fs::canonicalize(path).ok()
            && out.exists()
        {
            anyhow::bail!("-o {} is the input file itself", out.display());
        }
    }
    let spv = pisa_translator::spirv::translate_with(&module, &options)
        .with_context(|| format!("cannot translate {}", path.display()))?;
    match output {
        Some(out) if is_stdio(out) => {
            if dis {
                anyhow::bail!("`-o -` and `--dis` both write to standard output: choose one");
            }
            std::io::Write::write_all(&mut std::io::stdout(), &spv.bytes())
                .context("cannot write to standard output")?;
        }
        Some(out) => std::fs::write(out, spv.bytes())
            .with_context(|| format!("cannot write {}", out.display()))?,
        None => {}
    }
    if dis {
        print!("{}", spv.disassemble());
    }
    if output.is_none() && !dis {
        anyhow::bail!("nothing to do: give `-o FILE.spv` and/or `--dis`");
    }
    Ok(ExitCode::SUCCESS)
}

fn ir(path: &Path, structured: bool) -> Result<ExitCode> {
    let Some(module) = assemble_file(path)? else {
        return Ok(ExitCode::from(1));
    };
    let program = pisa_translator::ir::build(&module);
    print!("{}", pisa_translator::ir::print::print(&program, &module));
    if structured {
        for f in program.functions.iter().filter(|f| !f.is_declaration()) {
            let mut tree = pisa_translator::ir::structurize::structurize(f)?;
            pisa_translator::ir::unroll::unroll_loops(f, &mut tree);
            println!("\nstructured @{}:", module.name(f.name));
            print!("{}", pisa_translator::ir::structurize::print(&tree));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Diagnostics shown in text per file at most (JSON lines carry them all).
const MAX_SHOWN: usize = 200;

/// What translating a valid module for Vulkan reports, as a diagnostic.
fn translation_diagnostic(
    m: &pisa_translator::Module,
    text: &str,
) -> Option<pisa_translator::Diagnostic> {
    use pisa_translator::spirv::TranslateError;
    let e = pisa_translator::spirv::translate(m).err()?;
    let (message, line, col) = match &e {
        TranslateError::Unsupported {
            what, line, col, ..
        } => (
            format!("not supported by the Vulkan back end yet: {what}"),
            *line,
            *col,
        ),
        other => (other.to_string(), 1, 1),
    };
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
        file: m.file().to_string(),
        line,
        col,
        len,
        source_line,
        notes: Vec::new(),
    })
}

fn check(files: &[PathBuf], json: bool, quiet: bool, vulkan: bool) -> Result<ExitCode> {
    let mut failed = false;
    let mut unreadable = false;
    for path in files {
        // an unreadable file is reported, and the others are still checked
        let bytes = match read_input(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", display_name(path));
                unreadable = true;
                continue;
            }
        };
        // invalid UTF-8 is replaced so that the assembler can point at it
        let text = String::from_utf8_lossy(&bytes);
        let name = display_name(path);
        let diags = match pisa_translator::assemble(&name, &text) {
            Ok(m) => {
                let mut d = m.warnings().clone();
                if vulkan {
                    if let Some(e) = translation_diagnostic(&m, &text) {
                        failed = true;
                        d.0.push(e);
                    }
                }
                d
            }
            Err(d) => {
                failed = true;
                d
            }
        };
        let shown: Vec<_> = diags
            .0
            .iter()
            .filter(|d| !quiet || d.severity != pisa_translator::Severity::Warning)
            .collect();
        for (i, d) in shown.iter().enumerate() {
            if json {
                println!("{}", d.to_json());
            } else if i < MAX_SHOWN {
                eprint!("{}", d.render());
            } else {
                eprintln!(
                    "... and {} more diagnostics in {} (`--json` lists them all)",
                    shown.len() - MAX_SHOWN,
                    path.display()
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
