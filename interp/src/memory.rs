//! Memory of the reference device, with the Vulkan runtime's data layout
//! (docs/abi.md): device memory holds buffers and each module's data block at
//! 64-bit addresses; `.shared` and `.private` are byte arenas reached by
//! 32-bit offsets; generic addresses tag arena offsets in their top 16 bits.
//!
//! Every access is checked: it must lie inside one live allocation (or the
//! arena) and be aligned to its size (spec 09 §5.1). A failed check is a
//! [`Fault`] that the interpreter turns into an error naming the instruction,
//! the work-item and the address.

use std::collections::BTreeMap;

/// The end of device addresses: generic addresses use the top 16 bits as
/// arena tags (docs/abi.md), so every device allocation lies below.
const ADDRESS_END: u64 = 1 << 48;

pub use pisa_translator::abi::{GENERIC_PRIVATE_TAG, GENERIC_SHARED_TAG};

/// Where device allocations start: far from small integers, so an arena
/// offset or a counter used as a pointer does not hit a buffer by chance.
const FIRST_ADDRESS: u64 = 0x1_0000_0000;
/// Unmapped bytes between allocations: an access that runs off the end of
/// one buffer faults instead of reading the next one.
const GUARD: u64 = 0x1_0000;

/// Which memory an address points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Device,
    Shared,
    Private,
}

/// A failed memory check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub space: Space,
    pub addr: u64,
    pub bytes: u32,
    pub why: FaultKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// No allocation holds these bytes.
    OutOfBounds,
    Misaligned,
    /// A store into a `.const` variable (spec 02 §2.1.5: undefined).
    ReadOnly,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let space = match self.space {
            Space::Device => "device",
            Space::Shared => "shared",
            Space::Private => "private",
        };
        let what = match self.why {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::ReadOnly => "read-only (.const)",
        };
        write!(
            f,
            "{what} access of {} bytes at {space} address {:#x}",
            self.bytes, self.addr
        )
    }
}

#[derive(Debug)]
struct Alloc {
    bytes: Vec<u8>,
    /// `.const` ranges (offsets within the allocation) stores may not touch.
    read_only: Vec<(u64, u64)>,
}

/// Device memory: every live allocation by base address.
#[derive(Debug)]
pub struct DeviceMemory {
    allocs: BTreeMap<u64, Alloc>,
    next: u64,
}

impl Default for DeviceMemory {
    fn default() -> Self {
        DeviceMemory {
            allocs: BTreeMap::new(),
            next: FIRST_ADDRESS,
        }
    }
}

impl DeviceMemory {
    /// A new zeroed allocation; returns its base address (256-byte
    /// aligned), or `None` when the host cannot allocate `size` bytes or the
    /// device's address space has no room for them.
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        let base = self.next;
        let next = base
            .checked_add(size.max(1))
            .and_then(|e| e.checked_add(GUARD))
            .map(|e| e.div_ceil(256) * 256)
            .filter(|&e| e <= ADDRESS_END)?;
        let bytes = try_zeroed(size)?;
        self.next = next;
        self.allocs.insert(
            base,
            Alloc {
                bytes,
                read_only: Vec::new(),
            },
        );
        Some(base)
    }

    /// How many allocations are live.
    pub fn live_allocations(&self) -> usize {
        self.allocs.len()
    }

    pub fn free(&mut self, base: u64) -> bool {
        self.allocs.remove(&base).is_some()
    }

    pub fn set_read_only(&mut self, base: u64, ranges: Vec<(u64, u64)>) {
        if let Some(a) = self.allocs.get_mut(&base) {
            a.read_only = ranges;
        }
    }

    /// The whole allocation at `base`.
    pub fn allocation(&self, base: u64) -> Option<&[u8]> {
        self.allocs.get(&base).map(|a| a.bytes.as_slice())
    }

    pub fn allocation_mut(&mut self, base: u64) -> Option<&mut [u8]> {
        self.allocs.get_mut(&base).map(|a| a.bytes.as_mut_slice())
    }

    fn find(&self, addr: u64, n: u64) -> Option<(u64, &Alloc)> {
        let (&base, a) = self.allocs.range(..=addr).next_back()?;
        let end = base.checked_add(a.bytes.len() as u64)?;
        (addr.checked_add(n)? <= end).then_some((base, a))
    }

    fn fault(addr: u64, n: usize, why: FaultKind) -> Fault {
        Fault {
            space: Space::Device,
            addr,
            bytes: n as u32,
            why,
        }
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let n = out.len();
        let (base, a) = self
            .find(addr, n as u64)
            .ok_or_else(|| Self::fault(addr, n, FaultKind::OutOfBounds))?;
        let at = (addr - base) as usize;
        out.copy_from_slice(&a.bytes[at..at + n]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let n = data.len();
        let (base, a) = self
            .find(addr, n as u64)
            .ok_or_else(|| Self::fault(addr, n, FaultKind::OutOfBounds))?;
        let at = addr - base;
        if a.read_only
            .iter()
            .any(|&(s, e)| at < e && at + n as u64 > s)
        {
            return Err(Self::fault(addr, n, FaultKind::ReadOnly));
        }
        let a = self.allocs.get_mut(&base).expect("found above");
        a.bytes[at as usize..at as usize + n].copy_from_slice(data);
        Ok(())
    }
}

/// `bytes` zeroed bytes, or `None` when the host cannot allocate them (its
/// memory or address space is exhausted, or the size does not fit `usize`).
/// Every allocation whose size a program or its caller chooses goes through
/// here (or [`try_copy`]), so running out of memory is an error, not an
/// abort of the process.
pub fn try_zeroed(bytes: u64) -> Option<Vec<u8>> {
    let n = usize::try_from(bytes).ok()?;
    if n == 0 {
        return Some(Vec::new());
    }
    // zeroed pages straight from the allocator (as `vec![0; n]` gets them):
    // the host commits the pages a kernel touches, not the whole size
    let layout = std::alloc::Layout::array::<u8>(n).ok()?;
    // SAFETY: `layout` has a non-zero size (`n > 0`), as `alloc_zeroed`
    // requires.
    #[allow(unsafe_code)]
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` is non-null and was allocated by the global allocator
    // with the layout of `n` bytes at alignment 1 (`u8`'s), which is the
    // layout of a `Vec<u8>` of capacity `n`; all `n` bytes are initialized
    // (zeroed); ownership passes to the `Vec`, which frees it with that
    // layout.
    #[allow(unsafe_code)]
    let v = unsafe { Vec::from_raw_parts(p, n, n) };
    Some(v)
}

/// A copy of `bytes`, or `None` when the host cannot allocate it.
pub fn try_copy(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes.len()).ok()?;
    v.extend_from_slice(bytes);
    Some(v)
}

/// Checks an arena access: in bounds of `size` bytes.
pub fn arena_range(space: Space, size: usize, addr: u64, n: usize) -> Result<usize, Fault> {
    match addr.checked_add(n as u64) {
        Some(end) if end <= size as u64 => Ok(addr as usize),
        _ => Err(Fault {
            space,
            addr,
            bytes: n as u32,
            why: FaultKind::OutOfBounds,
        }),
    }
}

/// Checks natural alignment (spec 09 §5.1): the access size, for sizes up to
/// 16 bytes (vectors of narrow elements align to their total size, wider
/// vectors to their element).
pub fn check_align(space: Space, addr: u64, align: u64, n: usize) -> Result<(), Fault> {
    if align > 1 && !addr.is_multiple_of(align) {
        return Err(Fault {
            space,
            addr,
            bytes: n as u32,
            why: FaultKind::Misaligned,
        });
    }
    Ok(())
}

/// Splits a generic address (docs/abi.md): the space and the address in it.
pub fn resolve_generic(addr: u64) -> (Space, u64) {
    match addr >> 48 {
        GENERIC_SHARED_TAG => (Space::Shared, addr & 0xFFFF_FFFF),
        GENERIC_PRIVATE_TAG => (Space::Private, addr & 0xFFFF_FFFF),
        _ => (Space::Device, addr),
    }
}

/// An arena offset as a generic address (the arena null stays null).
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Device => addr,
        _ if addr as u32 == u32::MAX => 0,
        Space::Shared => GENERIC_SHARED_TAG << 48 | (addr & 0xFFFF_FFFF),
        Space::Private => GENERIC_PRIVATE_TAG << 48 | (addr & 0xFFFF_FFFF),
    }
}
