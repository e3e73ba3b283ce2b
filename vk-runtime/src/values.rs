//! Typed host data, as tools write it:  `TYPE:VALUE` scalars,
//! `buf:TYPE:...` buffers, `raw:HEX`, `.npy`/`.bin` files, JSON numbers that
//! round-trip exactly.

use crate::RuntimeError;

type Result<T> = std::result::Result<T, RuntimeError>;

macro_rules! bail {
    ($($t:tt)*) => { return Err(RuntimeError::BadArgument(format!($($t)*))) };
}

fn anyhow(msg: String) -> RuntimeError {
    RuntimeError::BadArgument(msg)
}

macro_rules! anyhow {
    ($($t:tt)*) => { anyhow(format!($($t)*)) };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Ty {
    pub fn parse(s: &str) -> Result<Ty> {
        Ok(match s {
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "i8" => Ty::I8,
            "i16" => Ty::I16,
            "i32" => Ty::I32,
            "i64" => Ty::I64,
            "f16" => Ty::F16,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => bail!("unknown type `{s}` (one of u8 u16 u32 u64 i8 i16 i32 i64 f16 f32 f64)"),
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
    pub fn size(self) -> usize {
        match self {
            Ty::U8 | Ty::I8 => 1,
            Ty::U16 | Ty::I16 | Ty::F16 => 2,
            Ty::U32 | Ty::I32 | Ty::F32 => 4,
            Ty::U64 | Ty::I64 | Ty::F64 => 8,
        }
    }
    /// numpy's `descr`.
    pub fn npy(self) -> &'static str {
        match self {
            Ty::U8 => "|u1",
            Ty::U16 => "<u2",
            Ty::U32 => "<u4",
            Ty::U64 => "<u8",
            Ty::I8 => "|i1",
            Ty::I16 => "<i2",
            Ty::I32 => "<i4",
            Ty::I64 => "<i8",
            Ty::F16 => "<f2",
            Ty::F32 => "<f4",
            Ty::F64 => "<f8",
        }
    }
    pub fn from_npy(d: &str) -> Option<Ty> {
        let d = d.trim_start_matches(['<', '|', '=']);
        Some(match d {
            "u1" => Ty::U8,
            "u2" => Ty::U16,
            "u4" => Ty::U32,
            "u8" => Ty::U64,
            "i1" => Ty::I8,
            "i2" => Ty::I16,
            "i4" => Ty::I32,
            "i8" => Ty::I64,
            "f2" => Ty::F16,
            "f4" => Ty::F32,
            "f8" => Ty::F64,
            _ => return None,
        })
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }

    /// One value as little-endian bytes.
    pub fn encode(self, s: &str) -> Result<Vec<u8>> {
        let s = s.trim();
        let n = self.size();
        if self.is_float() {
            let v: f64 = match s {
                "nan" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => s
                    .parse()
                    .map_err(|_| anyhow!("`{s}` is not a {} value", self.name()))?,
            };
            let (bytes, finite) = match self {
                Ty::F16 => {
                    let h = half::f16::from_f64(v);
                    (h.to_bits().to_le_bytes().to_vec(), h.is_finite())
                }
                Ty::F32 => {
                    let f = v as f32;
                    (f.to_bits().to_le_bytes().to_vec(), f.is_finite())
                }
                _ => (v.to_bits().to_le_bytes().to_vec(), v.is_finite()),
            };
            // a finite number too large for the type is a mistake, not inf
            if v.is_finite() && !finite {
                bail!("{s} is out of the range of {}", self.name());
            }
            return Ok(bytes);
        }
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s),
        };
        let mag: u128 = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(h) => u128::from_str_radix(h, 16),
            None => digits.parse(),
        }
        .map_err(|_| anyhow!("`{s}` is not a {} value", self.name()))?;
        let bits = n * 8;
        let signed = matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64);
        let v: i128 = if neg { -(mag as i128) } else { mag as i128 };
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            bail!("{s} does not fit in {}", self.name());
        }
        Ok((v as u128).to_le_bytes()[..n].to_vec())
    }

    /// One value from bytes, as JSON (floats round-trip; NaN/inf as strings).
    pub fn json(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        let f = |x: f64, s: String| {
            if x.is_nan() {
                "\"nan\"".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_string()
            } else {
                s
            }
        };
        match self {
            Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 => u.to_string(),
            Ty::I8 => (u as i8).to_string(),
            Ty::I16 => (u as i16).to_string(),
            Ty::I32 => (u as i32).to_string(),
            Ty::I64 => (u as i64).to_string(),
            Ty::F16 => {
                let x = half::f16::from_bits(u as u16);
                f(x.to_f64(), float_text(x.to_f32()))
            }
            Ty::F32 => {
                let x = f32::from_bits(u as u32);
                f(x as f64, float_text(x))
            }
            Ty::F64 => {
                let x = f64::from_bits(u);
                f(x, float_text(x))
            }
        }
    }

    pub fn json_array(self, bytes: &[u8]) -> String {
        let items: Vec<String> = bytes
            .chunks_exact(self.size())
            .map(|c| self.json(c))
            .collect();
        format!("[{}]", items.join(","))
    }
}

/// The shortest decimal that reads back as the same value (Rust prints
/// those), with an exponent for very large and very small magnitudes
/// (`3.4028235e38`, not 39 digits), and a `.0` on whole numbers so the value
/// reads back as a float.
fn float_text<T>(x: T) -> String
where
    T: std::fmt::Display + std::fmt::LowerExp + Into<f64> + Copy,
{
    let m = x.into().abs();
    let s = if m != 0.0 && !(1e-5..1e16).contains(&m) {
        format!("{x:e}")
    } else {
        x.to_string()
    };
    if s.contains(['.', 'e', 'E']) || !m.is_finite() {
        s
    } else {
        format!("{s}.0")
    }
}

/// `count` zeroed elements of `ty`: an error, not an abort, when the size
/// overflows or the memory cannot be had.
fn zeroed(count: usize, ty: Ty) -> Result<Vec<u8>> {
    let bytes = count
        .checked_mul(ty.size())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| anyhow!("{count} {} elements are too large a buffer", ty.name()))?;
    let mut v = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|_| anyhow!("cannot allocate {bytes} bytes for the buffer"))?;
    v.resize(bytes, 0);
    Ok(v)
}

/// Comma-separated values as bytes (an empty element is an error).
pub fn encode_list(ty: Ty, list: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (i, v) in list.split(',').enumerate() {
        if v.trim().is_empty() {
            bail!("value {i} of the list is empty");
        }
        out.extend(ty.encode(v)?);
    }
    Ok(out)
}

/// Reads a `.npy` (checking its type) or raw little-endian `.bin` file.
pub fn read_file(ty: Ty, path: &str) -> Result<Vec<u8>> {
    let data = std::fs::read(path).map_err(|e| anyhow!("cannot read {path}: {e}"))?;
    if !path.ends_with(".npy") {
        if data.len() % ty.size() != 0 {
            bail!(
                "{path} holds {} bytes, not a whole number of {} values ({} bytes each)",
                data.len(),
                ty.name(),
                ty.size()
            );
        }
        return Ok(data);
    }
    if data.len() < 10 || &data[..6] != b"\x93NUMPY" {
        bail!("{path} is not a .npy file");
    }
    // versions 1.0 (a 2-byte header length) and 2.0 and 3.0 (4 bytes)
    let (hlen, start) = match data[6] {
        1 => (u16::from_le_bytes([data[8], data[9]]) as usize, 10usize),
        2 | 3 if data.len() >= 12 => (
            u32::from_le_bytes([data[8], data[9], data[10], data[11]]) as usize,
            12,
        ),
        2 | 3 => bail!("{path}: the .npy file ends inside its header"),
        v => bail!("{path}: unsupported .npy version {v}"),
    };
    let end = start
        .checked_add(hlen)
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            anyhow!(
                "{path}: the .npy header says it is {hlen} bytes long, but the file ends {} bytes after its start",
                data.len() - start
            )
        })?;
    let header = std::str::from_utf8(&data[start..end])
        .map_err(|_| anyhow!("{path}: the .npy header is not text"))?;
    let descr = header
        .split("'descr':")
        .nth(1)
        .and_then(|r| r.split('\'').nth(1))
        .ok_or_else(|| anyhow!("{path}: no dtype in the .npy header"))?;
    let file_ty =
        Ty::from_npy(descr).ok_or_else(|| anyhow!("{path}: unsupported dtype {descr}"))?;
    if file_ty != ty {
        bail!(
            "{path} holds {} values, but the argument says {}",
            file_ty.name(),
            ty.name()
        );
    }
    if header.contains("'fortran_order': True") {
        bail!("{path}: Fortran-ordered arrays are not supported");
    }
    let shape = npy_shape(header).ok_or_else(|| anyhow!("{path}: no shape in the .npy header"))?;
    // the data must be exactly what the header describes: a file cut short
    // or with bytes past its array is not what was saved
    let count = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| anyhow!("{path}: the .npy shape {shape:?} is too large"))?;
    let have = (data.len() - end) as u64;
    let want = count.checked_mul(ty.size() as u64);
    if want != Some(have) {
        // as numpy writes it: `(4,)`, `(2, 3)`, `()`
        let mut shape_text = shape
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if shape.len() == 1 {
            shape_text.push(',');
        }
        let want = want.map_or_else(|| "more than 2^64".to_string(), |w| w.to_string());
        bail!(
            "{path}: the .npy header says shape ({shape_text}) of {}, {want} bytes of data, but the file holds {have} bytes after its header",
            ty.name()
        );
    }
    Ok(data[end..].to_vec())
}

/// The dimensions of a `.npy` header's `'shape': (D1, D2, ...)` (`()`: a
/// scalar, one value); `None` if it has none or it does not read.
fn npy_shape(header: &str) -> Option<Vec<u64>> {
    let rest = header.split("'shape':").nth(1)?.trim_start();
    let inner = rest.strip_prefix('(')?.split(')').next()?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect()
}

/// Writes `.npy` (1-D) or raw `.bin`.
pub fn write_file(ty: Ty, path: &str, bytes: &[u8]) -> Result<()> {
    let data = if path.ends_with(".npy") {
        let n = bytes.len() / ty.size();
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}",
            ty.npy()
        );
        // magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend_from_slice(bytes);
        out
    } else {
        bytes.to_vec()
    };
    std::fs::write(path, data).map_err(|e| anyhow!("cannot write {path}: {e}"))
}

pub fn parse_hex(s: &str) -> Result<Vec<u8>> {
    let s: String = s
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    let s = s.strip_prefix("0x").unwrap_or(&s);
    if !s.len().is_multiple_of(2) {
        bail!("`raw:` needs an even number of hex digits");
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .map_err(|_| anyhow!("`{}` is not hex", &s[i..i + 2]))
        })
        .collect()
}

/// A kernel argument as `pisa run --arg` writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgSpec {
    /// Parameter bytes (`TYPE:VALUE`, `raw:HEX`).
    Scalar(Vec<u8>),
    /// A buffer with these contents; the parameter receives its address.
    Buffer(Ty, Vec<u8>),
}

/// Parses `TYPE:VALUE`, `buf:TYPE:V1,V2,...`, `buf:TYPE:zeros:COUNT`,
/// `buf:TYPE:@PATH` (`.npy` or raw `.bin`), `raw:HEX`.
pub fn parse_arg(s: &str) -> Result<ArgSpec> {
    if let Some(hex) = s.strip_prefix("raw:") {
        return Ok(ArgSpec::Scalar(parse_hex(hex)?));
    }
    if let Some(rest) = s.strip_prefix("buf:") {
        let (t, v) = rest
            .split_once(':')
            .ok_or_else(|| anyhow!("expected buf:TYPE:VALUES"))?;
        let ty = Ty::parse(t)?;
        let bytes = if let Some(n) = v.strip_prefix("zeros:") {
            let n: usize = n.parse().map_err(|_| anyhow!("`{n}` is not a count"))?;
            zeroed(n, ty)?
        } else if let Some(path) = v.strip_prefix('@') {
            read_file(ty, path)?
        } else {
            encode_list(ty, v)?
        };
        return Ok(ArgSpec::Buffer(ty, bytes));
    }
    let (t, v) = s
        .split_once(':')
        .ok_or_else(|| anyhow!("expected TYPE:VALUE, buf:TYPE:..., or raw:HEX"))?;
    Ok(ArgSpec::Scalar(Ty::parse(t)?.encode(v)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Floats print short and read back exactly (issue 11: FLT_MAX printed
    /// as 340282350000000000000000000000000000000.0).
    #[test]
    fn floats_print_short_and_round_trip() {
        for (x, want) in [
            (f32::MAX, "3.4028235e38"),
            (1.0f32, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e-40, "1e-40"),
            (0.0, "0.0"),
            (123456789.0, "123456790.0"),
        ] {
            let text = Ty::F32.json(&x.to_le_bytes());
            assert_eq!(text, want);
            assert_eq!(text.parse::<f32>().unwrap().to_bits(), x.to_bits());
        }
        let text = Ty::F64.json(&f64::MIN_POSITIVE.to_le_bytes());
        assert_eq!(text.parse::<f64>().unwrap(), f64::MIN_POSITIVE);
        assert_eq!(
            Ty::F16.json(&half::f16::MAX.to_bits().to_le_bytes()),
            "65504.0"
        );
    }
}
