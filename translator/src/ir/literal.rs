//! The encodings of floating-point literals (spec 07 §3.2: a decimal literal
//! is a double-precision value, converted into the operand's type; the
//! translator rounds to nearest even, docs/spec-notes.md), and immediate
//! operands of those encodings for the passes that compute on a float's
//! bits (`ir::frnd`, `ir::softf64`).

use super::{FloatKind, IntLit, Operand, Span};

/// A hex immediate of `digits` digits.
pub fn imm(value: u64, digits: u8, span: Span) -> Operand {
    Operand::Int(
        IntLit {
            value,
            hex: true,
            digits,
            negative: false,
        },
        span,
    )
}

/// An immediate source as the bits of its value in `kind` (a hex
/// immediate of the format's width, for instructions that read bits);
/// registers and hex immediates (bits already) stay as they are.
pub fn as_bits(src: Operand, kind: FloatKind) -> Operand {
    let v = match &src {
        Operand::Float(v, _) => *v,
        Operand::Int(l, _) if !l.hex => l.math() as f64,
        _ => return src,
    };
    let span = src.span();
    match kind {
        FloatKind::Double => imm(v.to_bits(), 16, span),
        FloatKind::Single => imm(u64::from((v as f32).to_bits()), 8, span),
        FloatKind::Half | FloatKind::BFloat => {
            imm(f64_to_16(v, kind == FloatKind::BFloat), 4, span)
        }
    }
}

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
    use super::{as_bits, f64_to_16, imm, FloatKind, IntLit, Operand, Span};

    /// Decimal immediates become their bits in the format, hex ones stay.
    #[test]
    fn immediates_become_bits_of_the_format() {
        let at = Span { start: 3, end: 6 };
        let dec = |value| {
            let lit = IntLit {
                value,
                hex: false,
                digits: 1,
                negative: false,
            };
            Operand::Int(lit, at)
        };
        let bits = |src, kind| match as_bits(src, kind) {
            Operand::Int(l, s) if l.hex && s == at => (l.value, l.digits),
            other => panic!("{other:?}"),
        };
        assert_eq!(bits(Operand::Float(1.5, at), FloatKind::Half), (0x3E00, 4));
        assert_eq!(
            bits(Operand::Float(-2.0, at), FloatKind::BFloat),
            (0xC000, 4)
        );
        assert_eq!(bits(dec(1), FloatKind::Single), (0x3F80_0000, 8));
        assert_eq!(
            bits(Operand::Float(0.1, at), FloatKind::Double),
            (0.1f64.to_bits(), 16)
        );
        assert_eq!(bits(imm(0x7E00, 4, at), FloatKind::Double), (0x7E00, 4));
    }

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
