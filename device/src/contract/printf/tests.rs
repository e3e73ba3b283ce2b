//! The decoder against buffers built by hand in the layout Intel's compilers
//! write (printf.rs's module comment).

use super::*;

/// A program memory of strings at fixed addresses.
fn strings(addr: u64) -> Option<Vec<u8>> {
    let s: &[u8] = match addr {
        0x1000 => b"x=%d y=%u z=%5.2f\n",
        0x2000 => b"%s|%-6s|%c%%\n",
        0x3000 => b"hello",
        0x4000 => b"v=%v4hld w=%v2f\n",
        0x5000 => b"%lld %llx %#o %hhd %e %g %a\n",
        0x6000 => b"%p %08X\n",
        0x7000 => b"%*d\n",
        _ => return None,
    };
    Some(s.to_vec())
}

/// Builds a buffer of `size` bytes holding `records` (each the bytes after
/// the header), with the write offset the kernel would have left.
fn buffer(size: usize, records: &[Vec<u8>]) -> Vec<u8> {
    let mut b = initial_buffer(size as u32);
    let mut off = PRINTF_HEADER_BYTES as usize;
    for r in records {
        if off + r.len() <= size {
            b[off..off + r.len()].copy_from_slice(r);
        } else if off + 4 <= size {
            b[off..off + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        }
        off += r.len();
    }
    b[..4].copy_from_slice(&(off as u32).to_le_bytes());
    b
}

struct Rec(Vec<u8>);
impl Rec {
    fn new(fmt: u64) -> Rec {
        Rec(fmt.to_le_bytes().to_vec())
    }
    fn u32(mut self, v: u32) -> Rec {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Rec {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn arg32(self, t: ArgType, v: u32) -> Rec {
        self.u32(t as u32).u32(v)
    }
    fn arg64(self, t: ArgType, v: u64) -> Rec {
        self.u32(t as u32).u64(v)
    }
}

#[test]
fn scalars_strings_and_percent() {
    let b = buffer(
        256,
        &[
            Rec::new(0x1000)
                .arg32(ArgType::Int, (-7i32) as u32)
                .arg32(ArgType::Int, 0xFFFF_FFFF)
                .arg32(ArgType::Float, 2.75f32.to_bits())
                .0,
            Rec::new(0x2000)
                .arg64(ArgType::String, 0x3000)
                .arg64(ArgType::String, 0x3000)
                .arg32(ArgType::Int, b'Q' as u32)
                .0,
        ],
    );
    let out = decode(&b, &strings);
    assert_eq!(out.text, "x=-7 y=4294967295 z= 2.75\nhello|hello |Q%\n");
    assert_eq!(out.records, 2);
    assert_eq!(
        out.lines(),
        ["x=-7 y=4294967295 z= 2.75", "hello|hello |Q%"]
    );
    assert!(out.overflow.is_none() && out.error.is_none());
}

#[test]
fn vectors_longs_doubles_and_pointers() {
    let mut v4 = Rec::new(0x4000).u32(ArgType::VectorInt as u32).u32(4);
    for x in [1i32, -2, 3, -4] {
        v4 = v4.u32(x as u32);
    }
    let v4 = v4
        .u32(ArgType::VectorFloat as u32)
        .u32(2)
        .u32(0.5f32.to_bits())
        .u32(2.0f32.to_bits());
    let longs = Rec::new(0x5000)
        .arg64(ArgType::Long, (-5i64) as u64)
        .arg64(ArgType::Long, 0xDEAD_BEEF_0000)
        .arg32(ArgType::Int, 8)
        .arg32(ArgType::Int, 0x1FF)
        .arg64(ArgType::Double, 1e-300f64.to_bits())
        .arg64(ArgType::Double, 0.1f64.to_bits())
        .arg64(ArgType::Double, 1.0f64.to_bits());
    let ptrs = Rec::new(0x6000)
        .arg64(ArgType::Pointer, 0xABC0)
        .arg32(ArgType::Int, 0xBEEF);
    let b = buffer(1024, &[v4.0, longs.0, ptrs.0]);
    let out = decode(&b, &strings);
    assert_eq!(
        out.lines(),
        [
            "v=1,-2,3,-4 w=0.500000,2.000000",
            // %hhd of 0x1FF is the byte 0xFF: -1
            "-5 deadbeef0000 010 -1 1.000000e-300 0.1 0x1p+0",
            "0xabc0 0000BEEF",
        ]
    );
}

#[test]
fn byte_vectors_are_packed_then_padded() {
    // char4: 4 bytes of elements, then 12 bytes of padding (4 per element)
    let r = Rec::new(0x4000)
        .u32(ArgType::VectorByte as u32)
        .u32(4)
        .u32(u32::from_le_bytes([1, 0xFE, 3, 4]))
        .u64(0)
        .u32(0)
        .u32(ArgType::VectorFloat as u32)
        .u32(2)
        .u32(1.5f32.to_bits())
        .u32((-1.0f32).to_bits());
    let out = decode(&buffer(256, &[r.0]), &strings);
    assert_eq!(out.text, "v=1,-2,3,4 w=1.500000,-1.000000\n");
}

#[test]
fn overflow_is_reported_and_the_records_that_fit_are_kept() {
    let r = || {
        Rec::new(0x1000)
            .arg32(ArgType::Int, 1)
            .arg32(ArgType::Int, 2)
            .arg32(ArgType::Float, 0)
            .0
    };
    // 4 + 2 records of 32 bytes fit in 70; the third is marked, the fourth
    // lost
    let b = buffer(70, &[r(), r(), r(), r()]);
    let out = decode(&b, &strings);
    assert_eq!(out.records, 2);
    assert_eq!(out.overflow, Some((70, 4 + 4 * 32)));
    assert_eq!(out.lines().len(), 2);
    assert!(out.problems()[0].contains("needed 132 bytes, the buffer has 70"));
}

#[test]
fn malformed_records_stop_decoding_with_a_reason() {
    let bad_tag = Rec::new(0x1000).arg32(ArgType::Int, 1).u32(99).u32(0);
    let out = decode(&buffer(256, &[bad_tag.0]), &strings);
    assert_eq!(out.records, 0);
    assert!(out
        .error
        .as_deref()
        .unwrap()
        .contains("unknown argument type 99"));

    let bad_fmt = Rec::new(0x9999).arg32(ArgType::Int, 1);
    let out = decode(&buffer(256, &[bad_fmt.0]), &strings);
    assert!(out.error.as_deref().unwrap().contains("0x9999"));

    let star = Rec::new(0x7000)
        .arg32(ArgType::Int, 1)
        .arg32(ArgType::Int, 2);
    let out = decode(&buffer(256, &[star.0]), &strings);
    assert!(
        out.error
            .as_deref()
            .unwrap()
            .contains("unsupported conversion `%*`"),
        "{out:?}"
    );

    // a record cut off by the write offset
    let mut b = buffer(256, &[Rec::new(0x1000).arg32(ArgType::Int, 1).0]);
    b[..4].copy_from_slice(&20u32.to_le_bytes());
    let out = decode(&b, &strings);
    assert!(out
        .error
        .as_deref()
        .unwrap()
        .contains("past the record's end"));
}

#[test]
fn an_empty_buffer_prints_nothing() {
    let out = decode(&initial_buffer(64), &strings);
    assert_eq!(out, PrintfOutput::default());
    assert!(out.lines().is_empty());
}

/// Strings are read up to their NUL, however long (issue "Hostile input,
/// round two", item 9: they were cut at 16 KiB); a block without a NUL is
/// read to its end.
#[test]
fn long_strings_are_read_to_their_nul() {
    let base = 0x1_0000u64;
    let mut memory = vec![b'a'; 10_000];
    memory.push(0);
    memory.extend(vec![b'b'; 40_000]);
    memory.push(0);
    memory.extend(vec![b'c'; 7]);
    let s = c_string_at(&memory, base, base).unwrap();
    assert_eq!(s, vec![b'a'; 10_000]);
    let t = c_string_at(&memory, base, base + 10_001).unwrap();
    assert_eq!(t, vec![b'b'; 40_000]);
    let u = c_string_at(&memory, base, base + 50_002).unwrap();
    assert_eq!(u, b"ccccccc");
    // an address outside the block reads nothing
    assert_eq!(c_string_at(&memory, base, base - 1), None);
    assert_eq!(c_string_at(&memory, base, base + 50_010), None);
}

/// A 20 KiB format string with its conversion at the end prints whole, its
/// argument converted, and the next record is read where this one ends
/// (item 9: the string was cut at 16 KiB, its `%d` lost and its argument
/// read as a record of its own).
#[test]
fn a_20_kib_format_string_prints_whole() {
    let base = 0x8000u64;
    let text: Vec<u8> = (0..20 * 1024)
        .map(|i| b"0123456789abcdef"[i % 16])
        .collect();
    let mut memory = text.clone();
    memory.extend(b"%d|\n\0x=%u\n\0");
    let second = base + memory.len() as u64 - 6;
    let b = buffer(
        256,
        &[
            Rec::new(base).arg32(ArgType::Int, (-42i32) as u32).0,
            Rec::new(second).arg32(ArgType::Int, 7).0,
        ],
    );
    let out = decode(&b, &|a| c_string_at(&memory, base, a));
    let mut want = String::from_utf8(text).unwrap();
    want.push_str("-42|\nx=7\n");
    assert_eq!(out.text, want);
    assert_eq!(out.records, 2);
    assert!(out.problems().is_empty(), "{:?}", out.problems());
}
