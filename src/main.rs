//! `pisa`: assemble, check, translate and run PISA programs.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
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
    },
}

fn main() -> ExitCode {
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
        Command::Check { files, json, quiet } => check(&files, json, quiet),
    }
}

fn check(files: &[PathBuf], json: bool, quiet: bool) -> Result<ExitCode> {
    let mut failed = false;
    for path in files {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        // invalid UTF-8 is replaced so that the assembler can point at it
        let text = String::from_utf8_lossy(&bytes);
        let name = path.display().to_string();
        let diags = match pisa_translator::assemble(&name, &text) {
            Ok(m) => m.warnings,
            Err(d) => {
                failed = true;
                d
            }
        };
        for d in &diags.0 {
            if quiet && d.severity == pisa_translator::Severity::Warning {
                continue;
            }
            if json {
                println!("{}", d.to_json());
            } else {
                eprint!("{}", d.render());
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
