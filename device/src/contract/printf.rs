//! `printf` from kernels: the buffer behind `%printfbuffer` (spec 04,
//! special registers) and its decoding after a launch, the same on every
//! device (docs/abi.md, "The printf buffer").
//!
//! The layout is the one Intel's compilers write and Intel's runtime reads
//! (IGC's OpenCL printf resolution in its zebin form, where the format is a
//! string's address; the NEO runtime's print formatter), so kernels printed by
//! Intel's LLVM PISA backend print as they do on Intel GPUs:
//!
//! - bytes 0..4: the write offset, a `u32` each `printf` advances with one
//!   atomic add by the size of its record; the runtime sets it to 4;
//! - then the records, in the order their space was taken: the format
//!   string's device address (8 bytes, little-endian, 4-byte aligned), then
//!   for each argument a `u32` type tag ([`ArgType`]), for vectors a `u32`
//!   element count, and the value: 4 bytes for bytes, shorts, ints and floats
//!   (a scalar byte or short in the low bytes), 8 for longs, doubles,
//!   pointers and strings (an address), vectors as their elements packed,
//!   padded to 4 bytes per element when elements are smaller;
//! - a record that does not fit is not written; when 4 more bytes fit,
//!   `0xFFFFFFFF` marks its place. The write offset keeps growing, so an
//!   offset beyond the buffer's size says how much was lost.
//!
//! Conversions are C's (`%d %i %o %u %x %X %c %s %p %e %E %f %F %g %G %a
//! %A`, flags, width, precision, `hh h l ll` and OpenCL's vector `vN` with
//! `hl`), formatted by the C library as Intel's runtime does.

/// Bytes before the first record: the write offset.
pub const PRINTF_HEADER_BYTES: u32 = 4;
/// The buffer's size when nothing else is asked (`pisa run --printf-buffer`):
/// Intel's runtimes' size.
pub const DEFAULT_PRINTF_BUFFER_BYTES: u32 = 4 << 20;
/// The size Intel's compilers assume when they check that a record fits
/// (IGC compares against the driver's 4 MiB). A smaller buffer still gets
/// this much memory, so such kernels never write outside it; only the
/// records within the asked size are shown, the rest reported as lost.
pub const ASSUMED_PRINTF_BUFFER_BYTES: u32 = 4 << 20;

/// The bytes to allocate for a printf buffer of `size` bytes.
pub fn allocation_bytes(size: u32) -> u32 {
    size.max(ASSUMED_PRINTF_BUFFER_BYTES)
}
/// The widest field or precision accepted (C allows more, but a kernel's
/// output does not need it).
const MAX_FIELD: usize = 4096;

/// The type tag before each argument (IGC's `SHADER_PRINTF_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    Byte = 1,
    Short = 2,
    Int = 3,
    Float = 4,
    String = 5,
    Long = 6,
    Pointer = 7,
    Double = 8,
    VectorByte = 9,
    VectorShort = 10,
    VectorInt = 11,
    VectorLong = 12,
    VectorFloat = 13,
    VectorDouble = 14,
}

impl ArgType {
    fn from_tag(t: u32) -> Option<ArgType> {
        use ArgType::*;
        Some(match t {
            1 => Byte,
            2 => Short,
            3 => Int,
            4 => Float,
            5 => String,
            6 => Long,
            7 => Pointer,
            8 => Double,
            9 => VectorByte,
            10 => VectorShort,
            11 => VectorInt,
            12 => VectorLong,
            13 => VectorFloat,
            14 => VectorDouble,
            _ => return None,
        })
    }
    /// (bytes of one element, whether a vector, whether floating-point).
    fn shape(self) -> (usize, bool, bool) {
        use ArgType::*;
        match self {
            Byte => (1, false, false),
            Short => (2, false, false),
            Int => (4, false, false),
            Float => (4, false, true),
            String | Long | Pointer => (8, false, false),
            Double => (8, false, true),
            VectorByte => (1, true, false),
            VectorShort => (2, true, false),
            VectorInt => (4, true, false),
            VectorLong => (8, true, false),
            VectorFloat => (4, true, true),
            VectorDouble => (8, true, true),
        }
    }
}

/// What a launch printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrintfOutput {
    /// The text, record after record.
    pub text: String,
    /// How many records were decoded.
    pub records: usize,
    /// The buffer's size and the bytes the kernel asked for, when that is
    /// more: records were lost.
    pub overflow: Option<(u64, u64)>,
    /// A record that could not be decoded; the buffer's rest is not shown.
    pub error: Option<String>,
}

impl PrintfOutput {
    /// The text as lines (a last line without its `\n` included).
    pub fn lines(&self) -> Vec<&str> {
        let t = self.text.strip_suffix('\n').unwrap_or(&self.text);
        if t.is_empty() && self.text.is_empty() {
            return Vec::new();
        }
        t.split('\n').collect()
    }

    /// What went wrong, as one message for the user (overflow, a bad record).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((size, asked)) = self.overflow {
            out.push(format!(
                "the printf buffer overflowed: the kernel's printf calls needed {asked} bytes, the buffer has {size}; later output was lost (a larger buffer: --printf-buffer BYTES)"
            ));
        }
        if let Some(e) = &self.error {
            out.push(format!("printf output cut short: {e}"));
        }
        out
    }
}

/// The bytes a printf buffer starts with: its write offset, then zeros to
/// make up `bytes`.
pub fn initial_buffer(bytes: u32) -> Vec<u8> {
    let mut b = vec![0u8; (bytes as usize).max(4)];
    b[..4].copy_from_slice(&PRINTF_HEADER_BYTES.to_le_bytes());
    b
}

/// The NUL-terminated string at device address `addr` in `memory`, a block
/// at device address `base`, without the NUL: the whole string, however
/// long (format strings are whole or their conversions would be lost and
/// their arguments misread), or the rest of the block when it holds no NUL.
pub fn c_string_at(memory: &[u8], base: u64, addr: u64) -> Option<Vec<u8>> {
    let start = usize::try_from(addr.checked_sub(base)?).ok()?;
    let rest = memory.get(start..)?;
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    Some(rest[..end].to_vec())
}

/// Reads `n` bytes at `at`, if the buffer has them.
fn take<'a>(buf: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let s = buf.get(*at..at.checked_add(n)?)?;
    *at += n;
    Some(s)
}

fn read_u32(buf: &[u8], at: &mut usize) -> Option<u32> {
    take(buf, at, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u64(buf: &[u8], at: &mut usize) -> Option<u64> {
    take(buf, at, 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

/// Decodes a printf buffer after its launch. `string_at` reads the
/// NUL-terminated string at a device address (without the NUL, however
/// long), or `None` when the address is outside the program's memory.
pub fn decode(buf: &[u8], string_at: &dyn Fn(u64) -> Option<Vec<u8>>) -> PrintfOutput {
    let mut out = PrintfOutput::default();
    let mut at = 0usize;
    let Some(asked) = read_u32(buf, &mut at) else {
        return out;
    };
    let size = buf.len() as u64;
    if asked as u64 > size {
        out.overflow = Some((size, asked as u64));
    }
    let end = (asked as usize).min(buf.len());
    let buf = &buf[..end];
    while at + 8 <= end {
        let start = at;
        let Some(fmt_addr) = read_u64(buf, &mut at) else {
            break;
        };
        if fmt_addr as u32 == u32::MAX {
            // the place of a record that did not fit
            break;
        }
        match record(buf, &mut at, fmt_addr, string_at, &mut out.text) {
            Ok(()) => out.records += 1,
            // a record the kernel wrote past the size asked for (it assumed
            // a larger buffer): lost, as the overflow says
            Err(RecordError::Truncated) if out.overflow.is_some() => break,
            Err(e) => {
                let e = match e {
                    RecordError::Truncated => "an argument past the record's end".to_string(),
                    RecordError::Bad(e) => e,
                };
                out.error = Some(format!("record {} at offset {start}: {e}", out.records));
                break;
            }
        }
    }
    out
}

/// A conversion specification: `%[flags][width][.precision][vN][length]conv`.
#[derive(Debug)]
struct Spec {
    /// flags, width and precision as written
    head: String,
    vector: Option<u32>,
    /// bits the length modifier asks for (`hh` 8, `h` 16, none 32, `l`/`ll` 64)
    bits: Option<u32>,
    conv: u8,
}

/// Parses the specification after a `%` at `fmt[*i]`.
fn parse_spec(fmt: &[u8], i: &mut usize) -> Result<Spec, String> {
    let start = *i;
    let mut head = String::new();
    while let Some(&c) = fmt.get(*i).filter(|c| b"-+ #0".contains(c)) {
        head.push(c as char);
        *i += 1;
    }
    let number = |i: &mut usize, head: &mut String| -> Result<(), String> {
        let s = *i;
        while fmt.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        let digits = std::str::from_utf8(&fmt[s..*i]).unwrap_or("0");
        if digits
            .parse::<usize>()
            .map_or(!digits.is_empty(), |n| n > MAX_FIELD)
        {
            return Err(format!("a field wider than {MAX_FIELD}"));
        }
        head.push_str(digits);
        Ok(())
    };
    number(i, &mut head)?;
    if fmt.get(*i) == Some(&b'.') {
        head.push('.');
        *i += 1;
        number(i, &mut head)?;
    }
    let mut vector = None;
    if fmt.get(*i) == Some(&b'v') {
        *i += 1;
        let s = *i;
        while fmt.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        let n = std::str::from_utf8(&fmt[s..*i])
            .ok()
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|n| [2, 3, 4, 8, 16].contains(n))
            .ok_or("a vector specifier other than v2, v3, v4, v8 or v16")?;
        vector = Some(n);
    }
    let rest = &fmt[*i..];
    let (bits, len) = if rest.starts_with(b"hh") {
        (Some(8), 2)
    } else if rest.starts_with(b"hl") {
        // OpenCL: 32-bit elements of a vector
        (Some(32), 2)
    } else if rest.starts_with(b"h") {
        (Some(16), 1)
    } else if rest.starts_with(b"ll") {
        (Some(64), 2)
    } else if rest.starts_with(b"l") {
        (Some(64), 1)
    } else {
        (None, 0)
    };
    *i += len;
    let conv = *fmt.get(*i).ok_or("a conversion without its letter")?;
    if !b"diouxXcspeEfFgGaA".contains(&conv) {
        let text = String::from_utf8_lossy(&fmt[start - 1..(*i + 1).min(fmt.len())]);
        return Err(format!("unsupported conversion `{text}`"));
    }
    *i += 1;
    Ok(Spec {
        head,
        vector,
        bits,
        conv,
    })
}

/// Why a record could not be decoded.
enum RecordError {
    /// It runs past the end of the buffer's data.
    Truncated,
    Bad(String),
}

impl From<String> for RecordError {
    fn from(e: String) -> RecordError {
        RecordError::Bad(e)
    }
}

/// One record: its format string's text with each conversion filled in.
fn record(
    buf: &[u8],
    at: &mut usize,
    fmt_addr: u64,
    string_at: &dyn Fn(u64) -> Option<Vec<u8>>,
    text: &mut String,
) -> Result<(), RecordError> {
    let fmt = string_at(fmt_addr).ok_or_else(|| {
        format!("the format string's address {fmt_addr:#x} is not in the program's memory")
    })?;
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let spec = parse_spec(&fmt, &mut i).map_err(|e| {
            format!(
                "format string \"{}\": {e}",
                String::from_utf8_lossy(&fmt).escape_debug()
            )
        })?;
        let tag = read_u32(buf, at).ok_or(RecordError::Truncated)?;
        let ty = ArgType::from_tag(tag).ok_or_else(|| format!("unknown argument type {tag}"))?;
        let (elem, is_vector, _) = ty.shape();
        if spec.vector.is_some() != is_vector {
            return Err(RecordError::Bad(format!(
                "{} conversion for a {} argument",
                if is_vector { "a scalar" } else { "a vector" },
                if is_vector { "vector" } else { "scalar" }
            )));
        }
        if is_vector {
            let n = read_u32(buf, at).ok_or(RecordError::Truncated)? as usize;
            if !(1..=16).contains(&n) {
                return Err(format!("a vector of {n} elements").into());
            }
            let bytes = take(buf, at, n * elem.max(4)).ok_or(RecordError::Truncated)?;
            for k in 0..n {
                if k > 0 {
                    out.push(b',');
                }
                let v = &bytes[k * elem..(k + 1) * elem];
                out.extend(format_value(&spec, ty, v, string_at));
            }
        } else {
            let v = take(buf, at, elem.max(4)).ok_or(RecordError::Truncated)?;
            out.extend(format_value(&spec, ty, &v[..elem], string_at));
        }
    }
    text.push_str(&String::from_utf8_lossy(&out));
    Ok(())
}

/// The value's little-endian bytes as an integer, sign-extended from their
/// width.
fn as_i64(v: &[u8]) -> i64 {
    let mut b = [0u8; 8];
    b[..v.len()].copy_from_slice(v);
    let shift = 64 - 8 * v.len() as u32;
    (i64::from_le_bytes(b) << shift) >> shift
}

/// One value (a scalar, or one element of a vector) as its conversion asks.
fn format_value(
    spec: &Spec,
    ty: ArgType,
    v: &[u8],
    string_at: &dyn Fn(u64) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let (_, _, is_float) = ty.shape();
    let float = || -> f64 {
        match v.len() {
            4 => f32::from_le_bytes([v[0], v[1], v[2], v[3]]) as f64,
            8 => f64::from_le_bytes(v.try_into().unwrap_or([0; 8])),
            _ => as_i64(v) as f64,
        }
    };
    let int = || -> i64 {
        if is_float {
            float() as i64
        } else {
            as_i64(v)
        }
    };
    match spec.conv {
        b's' => {
            let s = if matches!(ty, ArgType::String | ArgType::Pointer) {
                string_at(as_i64(v) as u64)
            } else {
                None
            };
            let s = s.unwrap_or_else(|| format!("<no string at {:#x}>", as_i64(v)).into_bytes());
            c_format(&spec.head, "", 's', CArg::Str(s))
        }
        b'p' => c_format(&spec.head, "", 'p', CArg::Ptr(as_i64(v) as u64)),
        b'c' => c_format(&spec.head, "", 'c', CArg::Int(int() as u8 as i64)),
        b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
            let x = if is_float { float() } else { int() as f64 };
            c_format(&spec.head, "", spec.conv as char, CArg::Double(x))
        }
        conv => {
            // the length modifier (or the argument's own width) decides the
            // bits printed; d and i are signed, o u x X unsigned
            let bits = spec.bits.unwrap_or(if v.len() == 8 { 64 } else { 32 });
            let x = int();
            let x = if bits == 64 {
                x
            } else {
                let m = (1i64 << bits) - 1;
                let u = x & m;
                if matches!(conv, b'd' | b'i') && u >> (bits - 1) != 0 {
                    u - (1i64 << bits)
                } else {
                    u
                }
            };
            c_format(&spec.head, "ll", conv as char, CArg::Int(x))
        }
    }
}

enum CArg {
    Int(i64),
    Double(f64),
    Str(Vec<u8>),
    Ptr(u64),
}

/// Formats one value with the C library's `snprintf`, as Intel's runtime
/// does, from a specification this module built: `%`, flags, width and
/// precision (checked by [`parse_spec`]), a length, and the conversion
/// letter that matches the argument's C type.
fn c_format(head: &str, length: &str, conv: char, arg: CArg) -> Vec<u8> {
    let Ok(fmt) = std::ffi::CString::new(format!("%{head}{length}{conv}")) else {
        return Vec::new();
    };
    let text = match &arg {
        CArg::Str(s) => {
            // a NUL inside ends a C string anyway
            let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            std::ffi::CString::new(&s[..end]).ok()
        }
        _ => None,
    };
    let mut cap = 128usize;
    loop {
        let mut buf = vec![0u8; cap];
        let p = buf.as_mut_ptr().cast::<libc::c_char>();
        // SAFETY: `buf` is writable for `cap` bytes and snprintf writes at
        // most `cap` including the NUL. `fmt` is a NUL-terminated string
        // with exactly one conversion, built above from characters
        // `parse_spec` accepted (flags `-+ #0`, digits, `.`), the length
        // and a letter chosen here to match the one argument passed: `ll`
        // with d/i/o/u/x/X takes a long long (`i64`, also read as unsigned
        // long long), `c` an int, e/f/g/a a double, `s` a pointer to a
        // NUL-terminated string (`text`, alive across the call), `p` a
        // pointer (never dereferenced).
        let n = unsafe {
            match &arg {
                CArg::Int(x) if conv == 'c' => {
                    libc::snprintf(p, cap, fmt.as_ptr(), *x as libc::c_int)
                }
                CArg::Int(x) => libc::snprintf(p, cap, fmt.as_ptr(), *x as libc::c_longlong),
                CArg::Double(x) => libc::snprintf(p, cap, fmt.as_ptr(), *x as libc::c_double),
                CArg::Str(_) => match &text {
                    Some(t) => libc::snprintf(p, cap, fmt.as_ptr(), t.as_ptr()),
                    None => 0,
                },
                CArg::Ptr(a) => {
                    libc::snprintf(p, cap, fmt.as_ptr(), *a as usize as *const libc::c_void)
                }
            }
        };
        let Ok(n) = usize::try_from(n) else {
            return Vec::new();
        };
        if n < cap {
            buf.truncate(n);
            return buf;
        }
        cap = n + 1;
    }
}

#[cfg(test)]
mod tests;
