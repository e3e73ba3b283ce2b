//! What instructions a program has, from one walk over them: per function
//! the opcodes it uses and whether it has SIMT mode's instructions, and one
//! instruction of every form (catalog form and qualifier choice) in the
//! program.
//!
//! Most passes rewrite a few kinds of instruction, which most programs do
//! not have: the pipeline asks this summary first
//! ([`super::super::pipeline`]), instead of each pass walking every
//! instruction to find none (a walk of a large module's instructions costs
//! about as much as reading their memory: ~8 ms per million). Whether a
//! pass rewrites an instruction depends only on its opcode and qualifiers
//! (both functions of its [`FormRef`], [`crate::ir::PisaInst::new`]), so
//! one instruction of each form answers for all of that form.

use crate::catalog::catalog;
use crate::ir::{FormRef, Inst, Opcode, PisaInst, Program};
use rustc_hash::FxHashSet as HashSet;

/// See the module docs.
pub struct Summary {
    /// Per function: bit `op as usize` set where a PISA instruction of
    /// opcode `op` occurs (those SIMT mode's instructions carry included).
    opcodes: Vec<u128>,
    /// Per function: it has an [`Inst::Simt`].
    simt: Vec<bool>,
    /// One instruction of each form the program has, in first-seen order.
    forms: Vec<PisaInst>,
}

// every opcode has its bit
const _: () = assert!(Opcode::ALL.len() <= 128);

impl Summary {
    pub fn of(p: &Program) -> Summary {
        let mut opcodes = Vec::with_capacity(p.functions.len());
        let mut simt = Vec::with_capacity(p.functions.len());
        let mut forms = Vec::new();
        // per catalog form, the qualifiers of the first instruction seen
        // of it (one comparison per instruction where a form is used with
        // one choice of qualifiers, as most are); the other choices in a
        // set
        let mut first: Vec<Option<[u8; 8]>> = vec![None; catalog().forms.len()];
        let mut others: HashSet<(u16, [u8; 8])> = HashSet::default();
        let mut note = |i: &PisaInst, forms: &mut Vec<PisaInst>| {
            let FormRef { form, quals } = i.form;
            let new = match first.get_mut(form as usize) {
                Some(slot @ None) => {
                    *slot = Some(quals);
                    true
                }
                Some(Some(q)) if *q == quals => false,
                _ => others.insert((form, quals)),
            };
            if new {
                forms.push(i.clone());
            }
        };
        for f in &p.functions {
            let mut ops = 0u128;
            let mut has_simt = false;
            for b in &f.blocks {
                for inst in &b.insts {
                    let i = match inst {
                        Inst::Pisa(i) => i,
                        Inst::Simt(s) => {
                            has_simt = true;
                            match s.pisa() {
                                Some(i) => i,
                                None => continue,
                            }
                        }
                        _ => continue,
                    };
                    ops |= 1u128 << (i.opcode as usize);
                    note(i, &mut forms);
                }
            }
            opcodes.push(ops);
            simt.push(has_simt);
        }
        Summary {
            opcodes,
            simt,
            forms,
        }
    }

    /// Function `f` (by index) has an instruction of opcode `op`.
    pub fn has(&self, f: usize, op: Opcode) -> bool {
        self.opcodes
            .get(f)
            .is_none_or(|o| o & (1u128 << op as usize) != 0)
    }

    /// Function `f` has an instruction of one of the opcodes `ops`.
    pub fn has_any(&self, f: usize, ops: &[Opcode]) -> bool {
        ops.iter().any(|&op| self.has(f, op))
    }

    /// Some function has an instruction of one of the opcodes `ops`.
    pub fn program_has_any(&self, ops: &[Opcode]) -> bool {
        (0..self.opcodes.len()).any(|f| self.has_any(f, ops))
    }

    /// Function `f` has an instruction of SIMT mode.
    pub fn has_simt(&self, f: usize) -> bool {
        self.simt.get(f).is_none_or(|&s| s)
    }

    /// Some instruction of the program satisfies `pred`, which must depend
    /// only on the instruction's form (opcode, qualifiers, roles), not on
    /// its operands.
    pub fn any_form(&self, pred: impl Fn(&PisaInst) -> bool) -> bool {
        self.forms.iter().any(pred)
    }

    /// Whether this summary is of a program with `n` functions (a function
    /// out of range answers "yes" to every question).
    pub fn covers(&self, n: usize) -> bool {
        self.opcodes.len() == n
    }
}
