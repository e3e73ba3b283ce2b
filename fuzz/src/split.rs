//! Prints a [`Program`] as two modules that link into it (spec 06 §2.5.2
//! for variables, 08 §4.3.1 for functions, 10 §6.1 for the headers), for
//! the metamorphic check "linked = unsplit" (`Build::Linked` in device.rs):
//! - `main.pisa`: the module-scope variables (`.export`ed where lib uses
//!   them), `@ftab` (the indirect-call table, whose entries are then
//!   relocations against imported functions), the kernel, and an `.import`
//!   of every function the kernel or `@ftab` names;
//! - `lib.pisa`: every other function, `.export`ed, and an `.import` of each
//!   variable they use.
//!
//! Each internal module-scope variable of main (not exported) gets a
//! zero-filled internal namesake in lib, and both modules define an internal
//! helper `@link_helper` of their own: the linker must keep them apart
//! (renaming one), or the kernel reads the wrong one and the outputs differ.
//! A program with no function besides the kernel is printed as one module.
//! Nothing in the interface is forbidden by the spec: `.shared` and
//! `.private` variables are function-scope and move with their function,
//! imports carry no initializer and no `.host_access`, the kernel is never
//! imported.

use crate::print::{
    function, function_import, function_table, mentions, module_vars, print, ModuleVar, HEADER,
};
use crate::program::Program;
use crate::Case;
use std::path::Path;

/// The file names of the two modules.
pub const MAIN: &str = "main.pisa";
pub const LIB: &str = "lib.pisa";

/// The program as `[(MAIN, text), (LIB, text)]`, or as `[(MAIN, text)]`
/// (the unsplit text) when it has no function besides the kernel.
pub fn print_split(p: &Program) -> Vec<(String, String)> {
    let (funcs, kernels): (Vec<_>, Vec<_>) = p.funcs.iter().partition(|f| !f.kernel);
    if funcs.is_empty() || kernels.is_empty() {
        return vec![(MAIN.into(), print(p))];
    }
    let lib_funcs: String = funcs.iter().map(|f| function(p, f, ".export ")).collect();
    let kernel_text: String = kernels.iter().map(|f| function(p, f, "")).collect();
    let table = function_table(p);
    let table_text = table.as_ref().map(|t| t.definition("")).unwrap_or_default();
    let uses = |text: &str, name: &str| mentions(text, &format!("@{name}"));

    let mut main = HEADER.to_string();
    let mut lib = HEADER.to_string();
    let mut main_internal: Vec<ModuleVar> = Vec::new();
    for v in module_vars(p) {
        if uses(&lib_funcs, v.name) {
            push_line(&mut main, &v.definition(".export "));
            push_line(&mut lib, &v.import());
        } else {
            push_line(&mut main, &v.definition(""));
            main_internal.push(v);
        }
    }
    main.push('\n');
    for f in &funcs {
        if uses(&kernel_text, &f.name) || uses(&table_text, &f.name) {
            push_line(&mut main, &function_import(f));
        }
    }
    main_internal.extend(table);
    if !table_text.is_empty() {
        main.push('\n');
        push_line(&mut main, &table_text);
    }
    main.push('\n');
    main.push_str(&helper("main"));
    main.push_str(&kernel_text);

    // lib's internal namesakes of main's internal variables
    lib.push('\n');
    for v in &main_internal {
        push_line(&mut lib, &decoy(v).definition(""));
    }
    lib.push('\n');
    lib.push_str(&helper("lib"));
    lib.push_str(&lib_funcs);
    vec![(MAIN.into(), main), (LIB.into(), lib)]
}

/// Writes the split modules of `case` into `dir` (beside `case.pisa` of
/// `write_reproducer`); returns the `pisa run` command line that links and
/// runs them.
pub fn write_split(case: &Case, dir: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    for (name, text) in print_split(&case.program) {
        let file = dir.join(&name);
        std::fs::write(&file, text)?;
        files.push(file.display().to_string());
    }
    let cmd = case.command_line(&files.join(" "));
    std::fs::write(dir.join("command-linked.txt"), format!("{cmd}\n"))?;
    Ok(cmd)
}

fn push_line(out: &mut String, line: &str) {
    out.push_str(line);
    out.push('\n');
}

/// An internal variable of lib with the name of one of main's: zero-filled,
/// no host name.
fn decoy(v: &ModuleVar) -> ModuleVar {
    ModuleVar {
        host: false,
        init: Some(vec![format!(".zero {}", v.bytes)]),
        ..v.clone()
    }
}

/// An internal function both modules define, each its own (unused: the
/// linked module only assembles if the linker keeps the two apart).
fn helper(module: &str) -> String {
    let tag = module
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31) ^ b as u32);
    format!(
        "// internal to {module}.pisa: another module has one of this name\n\
         .function .32b @link_helper()\n{{\n\t.reg .32b %r0;\n\tmov.32b %r0, {tag:#x};\n\treturn %r0;\n}}\n\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{generate, GenConfig};

    fn inputs(parts: &[(String, String)]) -> Vec<pisa_translator::link::Input<'_>> {
        parts
            .iter()
            .map(|(name, text)| pisa_translator::link::Input { name, text })
            .collect()
    }

    /// A seed whose program has functions the kernel calls.
    fn split_seed() -> (Program, Vec<(String, String)>) {
        (0..100)
            .map(|s| generate(s, &GenConfig::default()).program)
            .map(|p| {
                let parts = print_split(&p);
                (p, parts)
            })
            .find(|(_, parts)| parts.len() == 2 && parts[0].1.contains(".import .function"))
            .expect("a program with calls in 100 seeds")
    }

    #[test]
    fn the_split_links() {
        let (_, parts) = split_seed();
        pisa_translator::link::link(&inputs(&parts)).expect("links");
    }

    /// Without one of main's function imports the link fails: the split's
    /// imports are what makes it link (and the linker checks them).
    #[test]
    fn a_dropped_import_does_not_link() {
        let (_, mut parts) = split_seed();
        let main = &parts[0].1;
        let start = main.find(".import .function").expect("an import");
        let end = start + main[start..].find('\n').expect("a line");
        parts[0].1 = format!("{}{}", &main[..start], &main[end + 1..]);
        assert!(pisa_translator::link::link(&inputs(&parts)).is_err());
    }

    /// Two definitions of `@link_helper` (without the linker's renaming) are
    /// one too many: concatenating the modules does not assemble.
    #[test]
    fn the_helpers_collide_without_the_linker() {
        let (_, parts) = split_seed();
        assert!(parts[0].1.contains("@link_helper()") && parts[1].1.contains("@link_helper()"));
        let lib_body = parts[1].1.strip_prefix(HEADER).expect("a header");
        let lib_body: String = lib_body
            .lines()
            .filter(|l| !l.starts_with(".import"))
            .map(|l| format!("{l}\n"))
            .collect();
        let main_body: String = parts[0]
            .1
            .lines()
            .filter(|l| !l.starts_with(".import"))
            .map(|l| format!("{l}\n"))
            .collect();
        let glued = format!("{main_body}{}", lib_body.replace(".export ", ""));
        assert!(pisa_translator::assemble("glued.pisa", &glued).is_err());
    }

    #[test]
    fn no_functions_one_module() {
        let cfg = GenConfig {
            calls: false,
            ..GenConfig::default()
        };
        let p = generate(3, &cfg).program;
        assert_eq!(print_split(&p), vec![(MAIN.to_string(), print(&p))]);
    }
}
