//! The capabilities a module uses (declared only when used) and, for the
//! runtime's "the device lacks" error, the first instruction that needed
//! each. A leaf: `types` (`ModuleCx::caps`, `ModuleCx::cap`) holds it, and it
//! imports nothing of the back end.

use crate::diag::Span;
use crate::ir::Program;
use std::collections::BTreeSet;

/// The capabilities declared so far and where each came from (`tx.caps`).
#[derive(Default)]
pub struct Capabilities {
    /// Declared capabilities (`Capability as u32`), in order.
    pub declared: BTreeSet<u32>,
    /// The instruction being lowered, and the first instruction that made
    /// the module declare each capability (`` `fsin.f` at k.pisa:5:2 ``,
    /// named in the runtime's "the device lacks" error). The site's text is
    /// made only when a capability is first declared.
    pub current_instruction: Option<Site>,
    pub sites: Vec<(u32, String)>,
}

impl Capabilities {
    /// Declares capability `c` (as `u32`); true the first time.
    pub fn declare(&mut self, c: u32, program: &Program) -> bool {
        if !self.declared.insert(c) {
            return false;
        }
        if let Some(site) = self.current_instruction {
            let text = site.describe(program);
            self.sites.push((c, text));
        }
        true
    }
}

/// Where the instruction being lowered comes from: its form and span, or
/// the math library (then the first instruction it replaced is named).
#[derive(Debug, Clone, Copy)]
pub enum Site {
    Inst {
        form: crate::syntax::ast::FormRef,
        span: Span,
    },
    Library,
}

impl Site {
    /// `` `fsin.f` at k.pisa:5:2 ``.
    pub fn describe(self, program: &Program) -> String {
        match (self, program.library_uses.first()) {
            (Site::Library, Some((what, at))) => {
                format!("`{what}` at {}", program.source.describe(*at))
            }
            (Site::Inst { form, span }, _) => format!(
                "`{}` at {}",
                crate::ir::mnemonic_text(form),
                program.source.describe(span)
            ),
            // not made: `Library` is chosen only when the list has an entry
            (Site::Library, None) => String::new(),
        }
    }
}
