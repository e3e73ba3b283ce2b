//! The instruction catalog: every instruction form of spec chapters 12–20, as data.
//!
//! `data/*.isa` holds the spec's own syntax lines, qualifier groups, operand
//! sentences and "Restrictions" items (extracted by `tools/extract_catalog.py`).
//! [`load`] turns them into [`Form`]s; [`sentences`] gives the operand and
//! restriction sentences their meaning. The validator matches instructions
//! against these forms, and the translator and tests enumerate them, so adding
//! an instruction form is an edit of the data, not new control flow.

mod load;
pub mod sentences;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use sentences::{Cond, Kinds, OperandSpec, Rule, Term};

/// The data files, one per instruction group (spec chapter).
pub const GROUPS: &[(&str, &str)] = &[
    ("arithmetic", include_str!("data/arithmetic.isa")),
    ("floating_point", include_str!("data/floating_point.isa")),
    ("logical", include_str!("data/logical.isa")),
    ("data_movement", include_str!("data/data_movement.isa")),
    ("comparison", include_str!("data/comparison.isa")),
    ("control_flow", include_str!("data/control_flow.isa")),
    ("cross_lane", include_str!("data/cross_lane.isa")),
    ("memory", include_str!("data/memory.isa")),
    ("synchronization", include_str!("data/synchronization.isa")),
    ("llvm_extensions", include_str!("data/llvm_extensions.isa")),
];

#[derive(Debug)]
pub struct Instruction {
    /// As the spec titles it: `iadd`, `ld.param`, `barrier.workgroup`.
    pub name: String,
    pub summary: String,
    pub group: &'static str,
}

/// One qualifier position of a form's mnemonic.
#[derive(Debug, Clone)]
pub struct QualSlot {
    /// Group name without the dot (`type`), or the literal itself (`cond`).
    pub name: String,
    pub optional: bool,
    /// A literal qualifier (`.cond`, `.full` when written without a group) has
    /// one value equal to its name.
    pub literal: bool,
    /// Allowed values without the leading dot; a value may span several
    /// dot-separated tokens (`L1uc.L2uc.L3uc`).
    pub values: Vec<String>,
}

#[derive(Debug)]
pub struct Form {
    pub instruction: usize,
    /// The spec's heading for this form ("Syntax", "packed", ...).
    pub title: String,
    /// The spec's syntax line, verbatim.
    pub syntax: String,
    pub opcode: String,
    pub quals: Vec<QualSlot>,
    pub operands: Vec<OperandSpec>,
    pub rules: Vec<(Rule, String)>,
    pub version: String,
    pub target: String,
}

impl Form {
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.quals.iter().position(|q| q.name == name)
    }
    pub fn operand(&self, name: &str) -> Option<usize> {
        self.operands.iter().position(|o| o.name == name)
    }
}

#[derive(Debug)]
pub struct Catalog {
    pub instructions: Vec<Instruction>,
    pub forms: Vec<Form>,
    by_opcode: HashMap<String, Vec<usize>>,
}

impl Catalog {
    /// Forms whose mnemonic starts with `opcode`, in spec order.
    pub fn forms_of(&self, opcode: &str) -> &[usize] {
        self.by_opcode.get(opcode).map_or(&[], |v| v.as_slice())
    }
}

/// The catalog, parsed once. Panics only if the bundled data is malformed,
/// which the catalog's own tests rule out.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG
        .get_or_init(|| load::load(GROUPS).unwrap_or_else(|e| panic!("instruction catalog: {e}")))
}

/// Bit width of a qualifier value used as a type (`32b`, `u8`, `f`, `16bx2`),
/// or the address size of an address-space value.
pub fn value_bits(v: &str) -> Option<u16> {
    Some(match v {
        "8b" | "u8" | "s8" => 8,
        "16b" | "u16" | "s16" | "hf" | "bf" => 16,
        "32b" | "u32" | "s32" | "f" | "16bx2" | "8bx4" | "hfx2" | "bfx2" => 32,
        "64b" | "u64" | "s64" | "df" => 64,
        "128b" => 128,
        _ => return None,
    })
}

/// Packed types: element count and element bits.
pub fn packed_shape(v: &str) -> Option<(u8, u16)> {
    Some(match v {
        "16bx2" | "hfx2" | "bfx2" => (2, 16),
        "8bx4" => (4, 8),
        _ => return None,
    })
}

pub fn is_float_type(v: &str) -> bool {
    matches!(v, "f" | "df" | "hf" | "bf" | "hfx2" | "bfx2")
}

/// Address size in bits of an address-space qualifier value.
pub fn address_bits(v: &str) -> Option<u16> {
    Some(match v {
        "global" | "const" | "generic" => 64,
        "shared" | "private" => 32,
        _ => return None,
    })
}

/// Element count of a `.vec` value (`v4` → 4).
pub fn vec_count(v: &str) -> Option<u32> {
    v.strip_prefix('v')?.parse().ok()
}

#[cfg(test)]
mod tests;
