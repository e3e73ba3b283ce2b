//! The encodings of floating-point literals (spec 07 §3.2: a decimal literal
//! is a double-precision value, converted into the operand's type; the
//! translator rounds to nearest even, docs/spec-notes.md).

/// An f64 value (a literal) rounded to nearest even into half (`bf`
/// false) or bfloat16 encoding.
pub fn f64_to_16(v: f64, bf: bool) -> u64 {
    let (m, ebits) = if bf { (7, 8) } else { (10, 5) };
    let bias = (1i32 << (ebits - 1)) - 1;
    let emax = bias;
    let emin = 1 - bias;
    let sign = (v.to_bits() >> 63) << 15;
    let inf = ((1u64 << ebits) - 1) << m;
    if v.is_nan() {
        return sign | inf | 1 << (m - 1);
    }
    let a = v.abs();
    if a.is_infinite() {
        return sign | inf;
    }
    if a == 0.0 {
        return sign;
    }
    let e = ((a.to_bits() >> 52) as i32 - 1023).max(emin);
    // the significand at the format's precision, rounded to an integer:
    // scaling by a power of two is exact
    let q = 2f64.powi(e - m);
    let mut r = (a / q).round_ties_even();
    let mut e = e;
    if r >= 2f64.powi(m + 1) {
        r /= 2.0;
        e += 1;
    }
    if e > emax {
        return sign | inf;
    }
    let r = r as u64;
    if r < 1 << m {
        // subnormal (or rounded up to the smallest normal, which the same
        // formula encodes)
        return sign | r;
    }
    sign | (((e + bias) as u64) << m) | (r - (1 << m))
}

#[cfg(test)]
mod tests {
    use super::f64_to_16;

    #[test]
    fn literals_round_to_nearest_even_into_16_bits() {
        assert_eq!(f64_to_16(1.5, false), 0x3E00);
        assert_eq!(f64_to_16(-2.0, true), 0xC000);
        assert_eq!(f64_to_16(65504.0, false), 0x7BFF);
        // 65520 is the midpoint to the next power: even is infinity
        assert_eq!(f64_to_16(65520.0, false), 0x7C00);
        assert_eq!(f64_to_16(1.0 + 2f64.powi(-11), false), 0x3C00);
        assert_eq!(f64_to_16(1.0 + 3.0 * 2f64.powi(-11), false), 0x3C02);
        assert_eq!(f64_to_16(2f64.powi(-24), false), 0x0001);
        assert_eq!(f64_to_16(2f64.powi(-25), false), 0x0000);
        assert_eq!(f64_to_16(1.0 + 2f64.powi(-8), true), 0x3F80);
        assert_eq!(f64_to_16(3.0e38, true), 0x7F62);
        assert_eq!(f64_to_16(-0.0, false), 0x8000);
    }
}
