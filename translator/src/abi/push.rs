//! The push-constant block every kernel launch gets (docs/abi.md, "Push
//! constants"): the data block's and the argument block's addresses, the
//! NDRange's offsets and sizes, and the addresses of the status word, the
//! printf buffer and checked mode's check block. The SPIR-V back end declares
//! the block from this table, and the Vulkan runtime fills it from it.

/// Push-constant members, in order (docs/abi.md).
#[derive(Clone, Copy)]
pub enum Push {
    DataBase = 0,
    Params = 1,
    GlobalOffsetX = 2,
    WorkDim = 5,
    GlobalSizeX = 6,
    GroupOffsetX = 9,
    EnqueuedX = 12,
    Status = 15,
    PrintfBuffer = 16,
    Check = 17,
}

impl Push {
    /// The member's byte offset in the block.
    pub fn offset(self) -> u32 {
        PUSH_MEMBERS[self as usize].1
    }
}

/// Push-constant members: name and byte offset (docs/abi.md). `data_base`,
/// `params`, `status` and `printf_buffer` are `uvec2` (64-bit addresses),
/// the rest `u32`. The runtime fills the block from this table too.
pub const PUSH_MEMBERS: [(&str, u32); 18] = [
    ("data_base", 0),
    ("params", 8),
    ("global_offset_x", 16),
    ("global_offset_y", 20),
    ("global_offset_z", 24),
    ("work_dim", 28),
    ("global_size_x", 32),
    ("global_size_y", 36),
    ("global_size_z", 40),
    ("group_offset_x", 44),
    ("group_offset_y", 48),
    ("group_offset_z", 52),
    ("enqueued_local_size_x", 56),
    ("enqueued_local_size_y", 60),
    ("enqueued_local_size_z", 64),
    // address of a u32 the kernel sets when the driver cut a loop short
    // (docs/abi.md)
    ("status", 72),
    // `%printfbuffer`: address of this launch's printf buffer (docs/abi.md)
    ("printf_buffer", 80),
    // checked mode: address of the launch's check block (spirv::checked)
    ("check", 88),
];
/// Size of the push-constant block in bytes.
pub const PUSH_BYTES: u32 = 96;

/// Whether push-constant member `i` is a 64-bit address (a `uvec2`).
pub fn is_address_member(i: usize) -> bool {
    i < 2
        || i == Push::Status as usize
        || i == Push::PrintfBuffer as usize
        || i == Push::Check as usize
}
