//! Linking: several PISA modules become one program (spec 06 §2.5.2 and
//! 08 §4.3.1 for `.export`/`.import`, 10 §6.1 for the version and target
//! rules).
//!
//! Each file is assembled on its own first, so its errors point into it.
//! Then [`symbols::plan`] resolves every `.import` against the `.export`s
//! of the other modules, checks signatures, sizes, host names and headers,
//! and decides which internal symbols need new names; [`splice::splice`]
//! writes the linked program as PISA text (what `pisa link` prints); that
//! text is assembled as one module whose [`SourceMap`] maps every position
//! back to the file it came from. The back ends never see a linked module
//! as anything but one module.
//!
//! Choices (docs/spec-notes.md, "Linking"): kernels share the namespace of
//! exports (two kernels of one name do not link); every `.import` must be
//! resolved, used or not; an imported variable's size and alignment must
//! not exceed its definition's.

mod compat;
mod splice;
mod symbols;

pub use compat::can_execute;
pub use splice::symbol_text;

use crate::diag::Diagnostics;
use crate::source_map::{SourceFile, SourceMap};
use crate::Module;

/// One input file: the name diagnostics print, and its text.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// Assembles and links the modules of a program that is to be translated
/// or run: as [`link`], and a single input must not import anything
/// either (`link-unresolved`: no other module is there to export it). A
/// program's `.import`s must all resolve before it runs (docs/spec-notes.md,
/// "Linking"); [`link`] keeps a lone module's imports as declarations, for
/// `pisa check` of one module of a program.
pub fn link_program(inputs: &[Input]) -> Result<Module, Diagnostics> {
    let m = link(inputs)?;
    let [input] = inputs else {
        // several modules: `link` resolved every import or failed
        return Ok(m);
    };
    refuse_imports(m, *input)
}

/// [`link_program`] of files (name, text) the caller gives up: a single
/// file's text becomes the module's source without a copy.
pub fn link_program_owned(files: Vec<(String, String)>) -> Result<Module, Diagnostics> {
    if files.len() != 1 {
        return link_program(&inputs_of(&files));
    }
    let m = link_owned(files)?;
    if !has_imports(&m) {
        return Ok(m);
    }
    // the text is copied only where an import is refused
    let (name, text) = (m.file().to_string(), m.source().to_string());
    let input = Input {
        name: &name,
        text: &text,
    };
    refuse_imports(m, input)
}

/// [`link`] of files (name, text) the caller gives up: a single file's
/// text becomes the module's source without a copy.
pub fn link_owned(mut files: Vec<(String, String)>) -> Result<Module, Diagnostics> {
    if files.len() != 1 {
        return link(&inputs_of(&files));
    }
    let (name, text) = files.pop().expect("one file");
    crate::validate::assemble_owned(&name, text)
}

fn inputs_of(files: &[(String, String)]) -> Vec<Input<'_>> {
    files
        .iter()
        .map(|(name, text)| Input { name, text })
        .collect()
}

/// Whether a module imports a variable or function.
fn has_imports(m: &Module) -> bool {
    m.ast.items.iter().any(|item| {
        let linkage = match item {
            crate::syntax::ast::Item::Var(v) => v.linkage,
            crate::syntax::ast::Item::Func(f) => f.linkage,
        };
        linkage == crate::syntax::ast::Linkage::Import
    })
}

/// A lone module `m` of `input` with its imports refused
/// (`link-unresolved`).
fn refuse_imports(m: Module, input: Input) -> Result<Module, Diagnostics> {
    let mut rep = crate::diag::Reporter::new(input.name, input.text);
    for item in &m.ast.items {
        let (linkage, name, name_span, what) = match item {
            crate::syntax::ast::Item::Var(v) => (v.linkage, v.name, v.name_span, "variable"),
            crate::syntax::ast::Item::Func(f) => (f.linkage, f.name, f.name_span, "function"),
        };
        if linkage != crate::syntax::ast::Linkage::Import {
            continue;
        }
        let name = m.name(name);
        rep.error_with_note(
            name_span,
            "link-unresolved",
            format!(
                "unresolved import `@{name}`: {} imports this {what} and no module of the program exports it",
                input.name
            ),
            format!(
                "give the module that exports `@{name}` too: every file of the program, as in `pisa run {} LIB.pisa ...`",
                input.name
            ),
        );
    }
    let d = rep.finish();
    if d.has_errors() {
        let mut d = d;
        d.0.extend(m.warnings().0.iter().cloned());
        return Err(d);
    }
    Ok(m)
}

/// Assembles each input and links them into one module. One input is
/// assembled as it is (its `.import`s stay declarations). On failure the
/// diagnostics of every file are returned, each in the file it concerns.
pub fn link(inputs: &[Input]) -> Result<Module, Diagnostics> {
    let mut modules = Vec::with_capacity(inputs.len());
    let mut failed = Diagnostics::default();
    for input in inputs {
        match crate::assemble(input.name, input.text) {
            Ok(m) => modules.push(m),
            Err(d) => failed.0.extend(d.0),
        }
    }
    if failed.has_errors() {
        // the warnings of the files that did assemble are worth seeing too
        for m in &modules {
            failed.0.extend(m.warnings().0.iter().cloned());
        }
        return Err(failed);
    }
    match modules.len() {
        0 => return Err(Diagnostics::default()),
        1 => return Ok(modules.remove(0)),
        _ => {}
    }
    let plan = symbols::plan(&modules, inputs)?;
    let (text, pieces) = splice::splice(&modules, inputs, &plan);
    let mut linked = crate::assemble(inputs[0].name, &text).map_err(|mut d| {
        // each file and the link checks passed, so this is the linker's bug
        for diag in &mut d.0 {
            diag.notes.push(
                "in the linked text (a bug of the linker: `pisa link` prints the text)".into(),
            );
        }
        d
    })?;
    linked.map = SourceMap {
        files: inputs
            .iter()
            .map(|i| SourceFile {
                name: i.name.to_string(),
                line_starts: crate::diag::line_starts(i.text),
            })
            .collect(),
        pieces,
    };
    // the linked text's own warnings repeat the files' at other places
    linked.warnings = Diagnostics(
        modules
            .iter()
            .flat_map(|m| m.warnings().0.iter().cloned())
            .collect(),
    );
    Ok(linked)
}

#[cfg(test)]
mod tests;
