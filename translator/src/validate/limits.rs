//! The maximums this implementation sets on sizes and alignments
//! (docs/spec-notes.md, "Sizes and alignments"), and the placement
//! arithmetic that the validator and the layout ([`crate::spirv::layout`])
//! share, so that a module the validator accepts is one whose layout fits.
//! All of it is checked 64-bit arithmetic: a size that overflows is `None`.

/// The largest alignment (`.align N`, `.align(N)`, `.ptr_align(N)`) in bytes.
pub const MAX_ALIGN: u64 = 1 << 16;

/// The largest data block (every `.global` and `.const` variable with its
/// alignment padding) in bytes: the module's data image is built in memory.
pub const MAX_DATA_BYTES: u64 = u32::MAX as u64;

/// The largest `.shared` arena and the largest `.private` arena (every
/// variable of the space in the module, with padding) in bytes: arena
/// offsets are 32-bit addresses.
pub const MAX_ARENA_BYTES: u64 = u32::MAX as u64;

/// The largest kernel argument block (every `.param[N]` of a kernel with
/// its `.align(N)` padding) in bytes, and so the largest `.param[N]`.
pub const MAX_PARAM_BYTES: u64 = 1 << 16;

/// Where an object of `size` bytes aligned to `align` goes after `used`
/// bytes: its offset and the new end. `None` if the end overflows 64 bits.
pub fn place(used: u64, size: u64, align: u64) -> Option<(u64, u64)> {
    let a = align.max(1);
    let offset = used.checked_next_multiple_of(a)?;
    Some((offset, offset.checked_add(size)?))
}

/// Bytes of an initializer: `None` if the sum overflows 64 bits.
pub fn init_bytes(init: &[crate::syntax::ast::InitElem]) -> Option<u64> {
    use crate::syntax::ast::InitElem;
    init.iter().try_fold(0u64, |a, e| {
        a.checked_add(match e {
            InitElem::Int { bits, .. } | InitElem::Symbol { bits, .. } => *bits as u64 / 8,
            InitElem::Zero { bytes, .. } => *bytes,
        })
    })
}
