//! SPIR-V back end: lowers a validated [`Module`] to one SPIR-V 1.5 module for
//! Vulkan 1.2, with one GLCompute entry point per kernel. The mapping of PISA
//! onto Vulkan is `docs/abi.md`; control flow is `docs/control-flow.md`.
//!
//! Files by concern: [`layout`] (memory layout shared with the runtime),
//! `types` (`ModuleCx`: types, constants, and a field per concern, whose
//! types sit in `capabilities`, `interface`, `lower::exchange_state`,
//! `lower::atomics_state`, `checked_state`), `entry` (kernel entry points,
//! push constants, built-ins), `function` (the function context, registers),
//! `driver` (function declarations and bodies), `control` (structured
//! control flow from the IR), `memory` (address spaces), `lower/` (one file
//! per instruction group), `options` and `error`. The modules import each
//! other from the top down only (docs/architecture.md; `tests/module_graph.rs`
//! checks it). It reads the
//! module only through the IR ([`crate::ir`]) as the IR pipeline
//! ([`crate::ir::pipeline`]) finished it, and runs no IR pass itself; the
//! lowerings still done during emission are listed there. Once a module validates, translation never panics; it fails only
//! with [`TranslateError`].

mod builder;
mod capabilities;
pub mod checked;
mod checked_state;
mod control;
mod driver;
mod entry;
mod error;
mod function;
mod interface;
pub mod kernel_info;
// the memory layout is the ABI's, below every back end
use crate::abi as layout;
mod lower;
mod memory;
mod narrow;
mod options;
mod types;

use crate::ir::Program;
use crate::Module;
use rspirv::binary::Disassemble;

pub use entry::{is_address_member, Push, PUSH_BYTES, PUSH_MEMBERS, RANGE_CHECK_SPEC_ID};
pub use error::TranslateError;
pub use layout::Layout;
pub use lower::exchange::LANE_LOOP_TRIPS;
pub use options::{Numerics, Options};

/// A translated module: the SPIR-V words and the memory layout the runtime
/// needs to launch its kernels.
pub struct Spirv {
    pub words: Vec<u32>,
    pub layout: Layout,
}

impl Spirv {
    /// Readable disassembly (the format of `spirv-dis`, as rspirv prints it),
    /// with ids that have an `OpName` shown by it (`%fa` for `%8`), as
    /// `spirv-dis` does; names are made unique with the id (`%i_12`).
    /// The words are read back for it (the module is not kept: it would
    /// double the memory of a large translation).
    pub fn disassemble(&self) -> String {
        match rspirv::dr::load_words(&self.words) {
            Ok(module) => friendly_names(&module.disassemble()),
            // the words are this crate's own output: a bug, said as one
            Err(e) => format!("; internal error: the module does not read back: {e}\n"),
        }
    }

    /// The module as little-endian bytes, as `pisa spirv -o` writes it.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.words.len() * 4);
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Writes [`Spirv::bytes`] to `w` a piece at a time, without a copy of
    /// the whole module.
    pub fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        // little-endian words are their bytes in memory
        if cfg!(target_endian = "little") {
            w.write_all(bytemuck::cast_slice(&self.words))?;
            return w.flush();
        }
        let mut piece = Vec::with_capacity(1 << 16);
        for chunk in self.words.chunks(1 << 14) {
            piece.clear();
            for word in chunk {
                piece.extend_from_slice(&word.to_le_bytes());
            }
            w.write_all(&piece)?;
        }
        w.flush()
    }
}

/// Translates a validated module with the default [`Options`]. The output is
/// deterministic: the same input gives byte-identical SPIR-V. Same as
/// [`crate::compile`], which runs the IR pipeline first.
pub fn translate(m: &Module) -> Result<Spirv, TranslateError> {
    crate::compile(m, &Options::default())
}

/// [`crate::compile`]: the IR pipeline for [`Options::target`], then
/// [`translate_program`].
pub fn translate_with(m: &Module, options: &Options) -> Result<Spirv, TranslateError> {
    crate::compile(m, options)
}

/// [`translate_with`] for a module the caller no longer needs: its syntax
/// tree is freed while the IR is built ([`crate::ir::lower_owned`]) and its
/// source text once it is, so the IR and the SPIR-V being built reuse their
/// memory (`pisa spirv`).
pub fn translate_module(m: Module, options: &Options) -> Result<Spirv, TranslateError> {
    let mut program = crate::ir::lower_owned(m);
    crate::ir::pipeline::Pipeline::for_target(&options.target()).run(&mut program)?;
    translate_program(&program, options)
}

/// Translates a program in IR form, as the IR pipeline
/// ([`crate::ir::pipeline::Pipeline::for_target`] of
/// [`Options::target`]) finished it: the back end reads nothing else and
/// runs no pass. Every function with a body must carry its structured
/// tree, and the instructions of the math library
/// ([`crate::ir::mathlib`]) must have been linked.
pub fn translate_program(program: &Program, options: &Options) -> Result<Spirv, TranslateError> {
    let analyses = crate::timing::start("layout and analyses");
    // one scan of every instruction for the layout's SIMT functions, the
    // call graph and the inlined size (three scans before)
    let facts = crate::ir::analysis::calls::facts(program);
    let simt = crate::ir::analysis::subgroups::simt_functions_of(program, &facts);
    let layout = layout::layout_with(program, &simt)?;
    let mut tx = types::ModuleCx::new(program, layout);
    tx.options = options.clone();
    // a lone module's imported variable has no definition: its reads
    // would see zeros (`link::link_program` reports this as a link error)
    if let Some(v) = program
        .variables
        .iter()
        .find(|v| v.linkage == crate::ir::Linkage::Import)
    {
        return Err(tx.unsupported(
            v.span,
            format!(
                "imported variable @{} that no module of the program exports (link its module first)",
                program.name(v.name)
            ),
        ));
    }
    // arenas past their limits are refused before anything is emitted
    for space in [crate::ir::Space::Private, crate::ir::Space::Shared] {
        if let Some((v, bytes, limit)) = layout::arena_limit(program, space) {
            return Err(
                tx.unsupported_on_device(v.span, layout::arena_limit_message(space, bytes, limit))
            );
        }
    }
    driver::check_recursion(&tx, &facts)?;
    let kernels: Vec<usize> = (0..program.functions.len())
        .filter(|&i| program.functions[i].kind == crate::ir::FuncKind::Kernel)
        .collect();
    tx.layout.inlined_instructions =
        crate::ir::analysis::calls::inlined_instructions_of(program, &kernels, &facts);
    drop(analyses);
    crate::timing::phase("emit", || driver::emit_all(&mut tx))?;
    entry::emit_entry_points(&mut tx)?;
    checked::emit_device_check(&mut tx)?;
    // each kernel's parameters, for runs of the module as raw SPIR-V
    let descriptions: Vec<String> = tx
        .layout
        .kernels
        .iter()
        .map(kernel_info::describe)
        .collect();
    for d in descriptions {
        tx.b.module_processed(d);
    }
    let sites: Vec<String> = tx
        .caps
        .sites
        .iter()
        .map(|(c, what)| kernel_info::describe_capability(*c, what))
        .collect();
    for s in sites {
        tx.b.module_processed(s);
    }
    // the data block, relocations, variables and printf use, for runs of
    // the module as raw SPIR-V (docs/abi.md, "Program descriptions")
    for s in kernel_info::describe_program(&tx.layout) {
        tx.b.module_processed(s);
    }
    let (words, layout) = crate::timing::phase("assemble words", || tx.finish());
    // 8- or 16-bit integer types the device lacks: held in 32-bit ones
    let words = if options.narrow_integers == [true; 2] {
        words
    } else {
        narrow::widen(words, options.narrow_integers.map(|native| !native))?
    };
    Ok(Spirv { words, layout })
}

/// Replaces `%N` by `%name` where `OpName %N "name"` gives one (a name that
/// is not a plain identifier, or that several ids share, gets `_N`).
fn friendly_names(dis: &str) -> String {
    use std::collections::HashMap;
    let mut names: HashMap<&str, String> = HashMap::new();
    let mut count: HashMap<String, u32> = HashMap::new();
    let mut found = Vec::new();
    for line in dis.lines() {
        let Some(rest) = line.trim().strip_prefix("OpName ") else {
            continue;
        };
        let Some((id, name)) = rest.split_once(' ') else {
            continue;
        };
        let name: String = name
            .trim_matches('"')
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty() || !id.starts_with('%') {
            continue;
        }
        *count.entry(name.clone()).or_default() += 1;
        found.push((id, name));
    }
    for (id, name) in found {
        let unique = count[&name] == 1 && !name.starts_with(|c: char| c.is_ascii_digit());
        let shown = if unique {
            name
        } else {
            format!("{name}_{}", &id[1..])
        };
        names.insert(id, shown);
    }
    let mut out = String::with_capacity(dis.len());
    for line in dis.lines() {
        let mut first = true;
        for tok in line.split(' ') {
            if !first {
                out.push(' ');
            }
            first = false;
            match names.get(tok) {
                Some(n) => {
                    out.push('%');
                    out.push_str(n);
                }
                None => out.push_str(tok),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// Named ids print by name; shared or odd names keep their id.
    #[test]
    fn disassembly_uses_names() {
        let dis = "OpName %8 \"a\"\nOpName %9 \"x\"\nOpName %10 \"x\"\nOpName %11 \"k.entry\"\n\
                   %8 = OpVariable %7 Function\n%12 = OpIAdd %6 %9 %10\n%11 = OpFunction %3 None %4\n";
        let out = super::friendly_names(dis);
        assert!(out.contains("%a = OpVariable %7 Function"), "{out}");
        assert!(out.contains("%12 = OpIAdd %6 %x_9 %x_10"), "{out}");
        assert!(out.contains("%k_entry = OpFunction"), "{out}");
    }

    /// `write_to` writes what `bytes` returns, in pieces (a module of more
    /// than one piece of 16,384 words), and the words were sized once.
    #[test]
    fn write_to_writes_the_bytes() {
        let mut src = String::from(
            ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %out)\n{\n\t.reg .32b %a;\n\t.reg .64b %o;\n\tld.param.64b %o, [%out];\n",
        );
        for _ in 0..3000 {
            src.push_str("\tiadd.32b %a, %a, 1;\n");
        }
        src.push_str("\tst.global.32b [%o], %a;\n\treturn;\n}\n");
        let m = crate::assemble("k.pisa", &src).unwrap();
        let spv = super::translate(&m).unwrap();
        assert!(spv.words.len() > 1 << 14, "{}", spv.words.len());
        assert!(spv.words.capacity() >= spv.words.len());
        let mut out = Vec::new();
        spv.write_to(&mut out).unwrap();
        assert_eq!(out, spv.bytes());
        assert_eq!(out.len(), spv.words.len() * 4);
        assert_eq!(&out[..4], &0x0723_0203u32.to_le_bytes());
    }

    /// Blocks assembled while the function is built (`flush_blocks`) land
    /// where rspirv would put them: a kernel of 200 goto loops reads back
    /// with each loop's block once, in order, and its disassembly (read
    /// back from the words) is whole.
    #[test]
    fn blocks_assembled_early_keep_their_places() {
        let mut src = String::from(
            ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %out)\n{\n\t.reg .32b %a, %i;\n\t.reg .64b %o;\n\t.pred %p;\n\tld.param.64b %o, [%out];\n\tmov.32b %a, 0;\n",
        );
        for g in 0..200 {
            src.push_str(&format!(
                "\tmov.32b %i, 0;\nL{g}:\n\tiadd.32b %a, %a, {g};\n\tiadd.32b %i, %i, 1;\n\tucmp.lt.32b %p, %i, 3;\n\tgoto.cond %p, L{g};\n"
            ));
        }
        src.push_str("\tst.global.32b [%o], %a;\n\treturn;\n}\n");
        let m = crate::assemble("k.pisa", &src).unwrap();
        let spv = super::translate(&m).unwrap();
        let module = rspirv::dr::load_words(&spv.words).unwrap();
        let kernel = module
            .functions
            .iter()
            .max_by_key(|f| f.blocks.len())
            .unwrap();
        assert!(kernel.blocks.len() > 200, "{}", kernel.blocks.len());
        let labels: Vec<u32> = kernel
            .blocks
            .iter()
            .map(|b| b.label.as_ref().unwrap().result_id.unwrap())
            .collect();
        let mut sorted = labels.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), labels.len());
        let dis = spv.disassemble();
        assert!(dis.starts_with("; SPIR-V"), "{dis}");
        assert_eq!(dis.matches("OpLoopMerge").count(), 200, "{dis}");
        assert!(dis.trim_end().ends_with("OpFunctionEnd"), "{dis}");
    }
}
