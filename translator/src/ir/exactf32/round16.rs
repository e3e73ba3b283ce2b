//! Short entry points of the exact library for `fadd`, `fsub`, `fmul` to
//! nearest even on `.bf` (every device: Vulkan has no bfloat16) and on
//! `.hf` without `shaderFloat16` (no `OpFConvert` into half), without
//! `.ftz` or `.dsat` (those keep `@__pisa_xh_rn_OP`): the sources widened
//! to f32 by bit moves, the device's f32 operation (correctly rounded to
//! nearest in Vulkan, `NoContraction`), one rounding of the f32 bits into
//! the 16-bit format in a few integer operations, the float core's NaN
//! rules on the 16-bit sources (docs/numerics.md, "Rounding into 16 bits
//! to nearest").
//!
//! - `@__pisa_xbf_rn_add(a, b, flags)`, `@__pisa_xbf_rn_mul(a, b, flags)`
//!   (`.16b` sources and result; flag 64: `fsub`) and the packed
//!   `@__pisa_xbf2_rn_add`, `_mul` (`.v2.16b`, each lane);
//! - `@__pisa_xhf_rn_add`, `_mul` and `@__pisa_xhf2_rn_add`, `_mul` the same
//!   on `.hf`;
//! - `@__pisa_xf_rn_bf(x)`, `@__pisa_xf_rn_hf(x)`: the f32 bits `x` rounded
//!   to nearest even into bfloat16 (half), subnormal results kept, overflow
//!   to ±inf, a NaN its sign and the top of its payload, quieted (what the
//!   cpu device's `ftrunc` gives of a NaN); `.16b` result. These are the
//!   roundings alone, for other callers (the 16-bit atomics' f32 sums).
//!
//! Why one f32 operation then one rounding is the correctly rounded 16-bit
//! result (`p` = 8 for bfloat16, 11 for half; f32 keeps 24 bits; every
//! 16-bit value is an f32 value):
//!
//! - `fmul`: the product of two `p`-bit significands has at most `2p` ≤ 22
//!   bits, so it is exact in f32 unless it falls below f32's normal range
//!   (bfloat16 only: half's products stay above 2^-48). There, if the
//!   product `x` is at least 2^-134 its last bit is at 2^-149 or above
//!   (16 bits below its top) and it is still exact; below 2^-134, both
//!   `RN16(x)` and `RN16(RN32(x))` are +0 or −0: RN32 is monotone and
//!   2^-134, half bfloat16's smallest subnormal, is an f32 value, so
//!   `RN32(x)` ≤ 2^-134, which rounds (to even) to zero.
//! - `fadd`/`fsub` of `a` and `b`, |a| ≥ |b|, 2^e ≤ |a| < 2^(e+1), `d`
//!   the exponent difference: if `d` ≤ 23 − p the exact sum is a multiple
//!   of `b`'s unit 2^(e−d−p+1) below 2^(e+2), at most `d + p + 1` ≤ 24
//!   bits, and no finer than the 16-bit format's smallest subnormal: exact
//!   in f32. Otherwise |b| ≤ 2^(e−d+1)(1 − 2^−p) ≤ 2^(e−p−1) − 2^(e−2p−1)
//!   (2p ≤ 22), so the sum `x` is closer to `a`, a 16-bit value, than the
//!   nearest 16-bit midpoints (2^(e−p−1) away below a power of two,
//!   2^(e−p) otherwise) by 2^(e−2p−1) ≥ 2^(e−23), more than half an f32
//!   unit there: `RN16(x)` = `a`, and `RN32(x)` stays strictly between the
//!   same midpoints, so `RN16(RN32(x))` = `a` too. (Figueroa's innocuous
//!   double rounding for `+ − ×`, 24 ≥ 2p + 2.)
//! - Overflow: the 16-bit rounding of a finite f32 rounds up to ±inf
//!   exactly when the value is at least the format's overflow threshold;
//!   an f32 overflow is far beyond it (half: f32 never overflows here).
//!
//! The rounding to nearest even of an f32 encoding `x` into bfloat16 is
//! `(x + 0x7FFF + ((x >> 16) & 1)) >> 16` on the bits (the sign bit never
//! carries: the magnitude stays below 0x7F80_8000); into half, the normal
//! results the same on the exponent rebased by 112 (`(x − 0x3800_0000)`,
//! 13 bits, clamped at 0x7C00: ±inf), and results below 2^-14 a rounding
//! of the 24-bit significand shifted right by `126 − e` (at most 25: all
//! zero), whose carry into the exponent field is the right one.
//!
//! NaN rules (docs/spec-notes.md): a NaN source gives itself quieted
//! (`src0` first; bfloat16's quiet bit 0x40, half's 0x200); a NaN result
//! of non-NaN sources (∞ − ∞, 0 · ∞) the default NaN (0x7FC0, 0x7E00).

use std::fmt::Write;

/// The 16-bit formats' parameters.
struct Format {
    /// the entry points' name part: `bf`, `hf`
    name: &'static str,
    /// the magnitude of +inf, the quiet bit, the default NaN
    inf: u32,
    quiet: u32,
    default_nan: u32,
}

const BF: Format = Format {
    name: "bf",
    inf: 0x7F80,
    quiet: 0x40,
    default_nan: 0x7FC0,
};

const HF: Format = Format {
    name: "hf",
    inf: 0x7C00,
    quiet: 0x200,
    default_nan: 0x7E00,
};

/// The library text of this file's functions.
pub(super) fn functions() -> String {
    let mut o = String::new();
    o.push_str(ROUND_BF);
    o.push_str(ROUND_HF);
    o.push_str(WIDEN_HF);
    for f in [&BF, &HF] {
        for op in ["add", "mul"] {
            entry(&mut o, f, op);
        }
    }
    o
}

/// `@__pisa_xf_rn_bf(x)`: f32 bits to bfloat16 bits, to nearest even.
const ROUND_BF: &str = "\
.function .16b @__pisa_xf_rn_bf(.reg .32b %x)
{
	.reg .32b %t, %m, %q;
	.reg .16b %y;
	.pred %nan;
	shr.32b %t, %x, 16;
	and.32b %t, %t, 1;
	iadd.32b %t, %t, 0x7FFF;
	iadd.32b %t, %x, %t;
	shr.32b %t, %t, 16;
	// a NaN: truncated, quieted
	and.32b %m, %x, 0x7FFFFFFF;
	ucmp.gt.32b %nan, %m, 0x7F800000;
	shr.32b %q, %x, 16;
	or.32b %q, %q, 0x40;
	sel.32b %t, %q, %t, %nan;
	trunc.16b.32b %y, %t;
	return %y;
}

";

/// `@__pisa_xf_rn_hf(x)`: f32 bits to half bits, to nearest even.
const ROUND_HF: &str = "\
.function .16b @__pisa_xf_rn_hf(.reg .32b %x)
{
	.reg .32b %m, %s, %n, %t, %e, %sh, %f, %h;
	.reg .16b %y;
	.pred %small, %nan;
	and.32b %m, %x, 0x7FFFFFFF;
	shr.32b %s, %x, 16;
	and.32b %s, %s, 0x8000;
	// normal results: the exponent rebased, 13 bits rounded off
	isub.32b %n, %m, 0x38000000;
	shr.32b %t, %n, 13;
	and.32b %t, %t, 1;
	iadd.32b %t, %t, 0xFFF;
	iadd.32b %n, %n, %t;
	shr.32b %n, %n, 13;
	umin.32b %n, %n, 0x7C00;
	// below 2^-14: the significand shifted right by 126 - e (at most 25)
	shr.32b %e, %m, 23;
	mov.32b %sh, 126;
	isub.32b %sh, %sh, %e;
	umin.32b %sh, %sh, 25;
	and.32b %f, %m, 0x7FFFFF;
	or.32b %f, %f, 0x800000;
	shr.32b %t, %f, %sh;
	and.32b %t, %t, 1;
	mov.32b %h, 1;
	shl.32b %h, %h, %sh;
	shr.32b %h, %h, 1;
	isub.32b %h, %h, 1;
	iadd.32b %f, %f, %h;
	iadd.32b %f, %f, %t;
	shr.32b %f, %f, %sh;
	ucmp.lt.32b %small, %m, 0x38800000;
	sel.32b %n, %f, %n, %small;
	// a NaN: the top of its payload, quieted
	ucmp.gt.32b %nan, %m, 0x7F800000;
	and.32b %t, %m, 0x7FFFFF;
	shr.32b %t, %t, 13;
	or.32b %t, %t, 0x7E00;
	sel.32b %n, %t, %n, %nan;
	or.32b %n, %n, %s;
	trunc.16b.32b %y, %n;
	return %y;
}

";

/// `@__pisa_xf_hf_bits(h)`: the half bits `h` (low 16 bits of a `.32b`)
/// as the f32 bits of the same value, exactly (NaNs are not kept: the
/// entry points take a NaN source's bits from the source). Normal values
/// rebase the exponent; subnormals `f · 2^-24` are the exact integer
/// conversion of `f` (below 2^10) with 24 taken from its exponent.
const WIDEN_HF: &str = "\
.function .32b @__pisa_xf_hf_bits(.reg .32b %h)
{
	.reg .32b %m, %n, %t, %s;
	.pred %p;
	and.32b %m, %h, 0x7FFF;
	shl.32b %n, %m, 13;
	iadd.32b %n, %n, 0x38000000;
	// infinities: the exponent field all ones
	ucmp.ge.32b %p, %m, 0x7C00;
	or.32b %t, %n, 0x7F800000;
	sel.32b %n, %t, %n, %p;
	// zeros and subnormals
	i2f.f.u32 %t, %m;
	isub.32b %t, %t, 0x0C000000;
	ucmp.eq.32b %p, %m, 0;
	sel.32b %t, 0, %t, %p;
	ucmp.lt.32b %p, %m, 0x400;
	sel.32b %n, %t, %n, %p;
	and.32b %s, %h, 0x8000;
	shl.32b %s, %s, 16;
	or.32b %n, %n, %s;
	return %n;
}

";

/// `@__pisa_x{bf,hf}_rn_OP` and the packed `@__pisa_x{bf,hf}2_rn_OP`.
fn entry(o: &mut String, f: &Format, op: &str) {
    let name = f.name;
    let _ = writeln!(
        o,
        ".function .16b @__pisa_x{name}_rn_{op}(.reg .16b %a0, .reg .16b %b0, .reg .32b %flags)\n{{"
    );
    let _ = writeln!(o, "\t.reg .32b %a, %b, %x, %z, %r, %t, %q;");
    let _ = writeln!(o, "\t.reg .16b %y;");
    let _ = writeln!(o, "\t.pred %nan;");
    let _ = writeln!(o, "\tzext.32b.16b %a, %a0;");
    let _ = writeln!(o, "\tzext.32b.16b %b, %b0;");
    if name == "bf" {
        let _ = writeln!(o, "\tshl.32b %x, %a, 16;");
        let _ = writeln!(o, "\tshl.32b %z, %b, 16;");
    } else {
        let _ = writeln!(o, "\tcall %x, @__pisa_xf_hf_bits(%a);");
        let _ = writeln!(o, "\tcall %z, @__pisa_xf_hf_bits(%b);");
    }
    if op == "add" {
        let _ = writeln!(o, "\t// fsub (flag 64): the subtrahend's sign flipped");
        let _ = writeln!(o, "\tand.32b %t, %flags, 64;");
        let _ = writeln!(o, "\tshl.32b %t, %t, 25;");
        let _ = writeln!(o, "\txor.32b %z, %z, %t;");
        let _ = writeln!(o, "\tfadd.f %r, %x, %z;");
    } else {
        let _ = writeln!(o, "\tfmul.f %r, %x, %z;");
    }
    let _ = writeln!(o, "\tcall %y, @__pisa_xf_rn_{name}(%r);");
    let _ = writeln!(o, "\tzext.32b.16b %r, %y;");
    let _ = writeln!(
        o,
        "\t// NaN rules: the first NaN source quieted, else the default NaN"
    );
    let _ = writeln!(o, "\tand.32b %t, %r, 0x7FFF;");
    let _ = writeln!(o, "\tucmp.gt.32b %nan, %t, {:#X};", f.inf);
    let _ = writeln!(o, "\tsel.32b %r, {:#X}, %r, %nan;", f.default_nan);
    for s in ["%b", "%a"] {
        let _ = writeln!(o, "\tand.32b %t, {s}, 0x7FFF;");
        let _ = writeln!(o, "\tucmp.gt.32b %nan, %t, {:#X};", f.inf);
        let _ = writeln!(o, "\tor.32b %q, {s}, {:#X};", f.quiet);
        let _ = writeln!(o, "\tsel.32b %r, %q, %r, %nan;");
    }
    let _ = writeln!(o, "\ttrunc.16b.32b %y, %r;");
    let _ = writeln!(o, "\treturn %y;\n}}\n");
    let _ = writeln!(
        o,
        ".function .v2.16b @__pisa_x{name}2_rn_{op}(.reg .v2.16b %a0, .reg .v2.16b %b0, .reg .32b %flags)\n{{\n\t.reg .16b %al, %ah, %bl, %bh, %yl, %yh;\n\t.reg .v2.16b %y;\n\tmov.16b %al, %a0.x;\n\tmov.16b %ah, %a0.y;\n\tmov.16b %bl, %b0.x;\n\tmov.16b %bh, %b0.y;\n\tcall %yl, @__pisa_x{name}_rn_{op}(%al, %bl, %flags);\n\tmov.16b %y.x, %yl;\n\tcall %yh, @__pisa_x{name}_rn_{op}(%ah, %bh, %flags);\n\tmov.16b %y.y, %yh;\n\treturn %y;\n}}\n"
    );
}
