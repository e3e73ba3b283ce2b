//! `fdiv.df` and `fsqrt.df` to nearest even on devices with f64: the
//! device's f64 division (square root) of the operands' significands,
//! made correctly rounded by exact remainders, every operand range
//! included, without a branch (docs/numerics.md, "`.df` on devices with
//! f64"). Linked by `ir::exactf64::link_df` only (never where `softf64`
//! replaces every `.df` operation: the functions use `.df` arithmetic).
//!
//! - `@__pisa_sd_div_rn(a, b, flags)`, `@__pisa_sd_sqrt_rn(a, flags)`: the
//!   flags the soft-double library's (`softf64::flags`), to nearest even,
//!   `.ftz` (16) or not, without `.dsat`; bit for bit `@__pisa_sd_div`
//!   and `@__pisa_sd_sqrt` in that mode (and the cpu device).
//!
//! No branch: llvmpipe runs both sides of a branch whose lanes disagree,
//! or cannot tell they agree, so a fallback call to the integer functions
//! cost every lane its full price (measured: `fdiv.df` 1.1× the integer
//! function with such a fallback, 0.5× without). The operands' special
//! values are chosen by selects at the end; the core's operands are always
//! in [1, 2) (or [1, 4)), whatever the sources, so it computes nothing
//! exceptional for them.
//!
//! Proof sketch. Each operand is unpacked into its significand in [1, 2)
//! (subnormals normalized by their leading zeros) and its exponent; the
//! division's `A/B` lies in (1/2, 2), the square root's `A` in [1, 4) (the
//! exponent made even) and `√A` in [1, 2). Every value below then lies
//! within [2^-110, 4]: Veltkamp's splitting and Dekker's product (`x·y =
//! ph + pl` exactly) are exact, and no operation overflows or underflows.
//!
//! 1. `q0 = A/B` by the device's `OpFDiv` (`√A` by `Sqrt`): Vulkan bounds
//!    their error by a few units (2.5 ULP); anything within 2^40 units
//!    does (`tests/soft_f64.rs` moves them by up to 4 units).
//! 2. One Newton correction: `r0 = (A − ph) − pl` with `ph + pl = q0·B`
//!    (`A − ph` is exact by Sterbenz's lemma, `ph` within a factor 2 of
//!    `A`), so `r0` is the exact remainder with one rounding, and
//!    `q1 = RN(q0 + r0/B)` (the root: `s1 = RN(s0 + (r0/s0)/2)`, `r0 = A −
//!    s0²`). The correction's error is a tiny fraction (about 2^-50) of
//!    `q0`'s, and the root's Newton step's error is quadratic, so `q1`
//!    (`s1`) is within half a unit and a tiny fraction of the exact value:
//!    faithful.
//! 3. The correct rounding at 53 bits. Division: `q1` faithful makes the
//!    remainder `r1 = A − q1·B` a 53-bit value (a multiple of
//!    `ulp(q1)·ulp(B)` below `ulp(q1)·B`), so `(A − ph) − pl` computes it
//!    exactly. The exact quotient lies above the midpoint `q1 + u/2`
//!    (`u = q1⁺ − q1`, exact) iff `r1 > (u/2)·B`, below `q1 − d/2`
//!    (`d = q1 − q1⁻`) iff `r1 < −(d/2)·B`, both products exact (powers of
//!    two times `B`); a quotient of two 53-bit values is never a midpoint
//!    (it would need 54 bits), so the strict comparisons decide. Square
//!    root (Tuckerman's test): with `s⁺` the next value above `s1`,
//!    `(s1 + u/2)² = s1·s⁺ + u²/4`, and `A`, `s1·s⁺` are multiples of
//!    2^-104 while `u²/4` is 2^-106, so `√A` lies above the midpoint iff
//!    `A > s1·s⁺`; likewise below `s1 − d/2` iff `A ≤ s1·s⁻` (2^-105 and
//!    2^-108 when `s1` is 1). Each product is `ph + pl` exactly and `A − ph`
//!    is exact, so `A − ph > pl` (`≤`) decides exactly.
//! 4. The result: the rounded significand's encoding plus the exponent
//!    (an integer addition to the exponent field: exact); above the range,
//!    ±inf. Quotients below 2^-1022 are rounded again in integers, once,
//!    from the exact quotient's truncation `qt` at 53 bits (`q1`, or `q1⁻`
//!    when `r1 < 0`) and its sticky bit (`r1 ≠ 0`): `qt`'s significand
//!    shifted right into the subnormal position, rounded up when the bits
//!    shifted out exceed one half, or equal it with the sticky bit or an
//!    odd result (to even); the carry into the exponent field gives the
//!    smallest normal number. Square roots of normal and subnormal values
//!    are normal (2^-537 at least).
//! 5. The sign (division: the XOR of the sources'); `.ftz`: subnormal
//!    sources and results are the zeros of their signs; the special
//!    values by IEEE 754 and the float core's NaN rules (the first NaN
//!    source quieted; 0/0, ∞/∞ and roots of negative values the default
//!    NaN; √−0 = −0).
//!
//! `tests/soft_f64.rs` (`f64core_*`): operands at every boundary of the
//! ranges (quotients overflowing, subnormal and underflowing, subnormal
//! ties, subnormal operands), quotients and roots within 2^-50 units of a
//! midpoint, and the device's first result moved by up to 4 units.

/// The library text of this file's functions.
pub(super) fn functions() -> String {
    format!("{}{}", div(), sqrt())
}

/// Dekker's exact product `x·y = ph + pl` (f64 registers `%{x}h`, `%{x}l`
/// hold Veltkamp's split of `x`; `%ph`, `%pl` the result), then
/// `%r = (A − ph) − pl`: the lines, with `x`, `y` register name stems.
fn dekker(x: &str, y: &str) -> String {
    format!(
        "\tfmul.df %ph, %{x}, %{y};\n\
         \tfmul.df %t, %{x}h, %{y}h;\n\
         \tfsub.df %pl, %t, %ph;\n\
         \tfmul.df %t, %{x}h, %{y}l;\n\
         \tfadd.df %pl, %pl, %t;\n\
         \tfmul.df %t, %{x}l, %{y}h;\n\
         \tfadd.df %pl, %pl, %t;\n\
         \tfmul.df %t, %{x}l, %{y}l;\n\
         \tfadd.df %pl, %pl, %t;\n"
    )
}

/// Veltkamp's split of `%{x}` into `%{x}h` (26 bits) and `%{x}l`.
fn split(x: &str) -> String {
    format!(
        "\tfmul.df %t, %{x}, 134217729.0;\n\
         \tfsub.df %{x}h, %t, %{x};\n\
         \tfsub.df %{x}h, %t, %{x}h;\n\
         \tfsub.df %{x}l, %{x}, %{x}h;\n"
    )
}

/// The lines that flush `%{x}` under `.ftz` (`%ftz`) and unpack it:
/// `%{x}abs`, the significand's fraction under 1.0 in `%{X}` (in [1, 2):
/// subnormals normalized) and the biased exponent in `%{x}ex` (below 1 for
/// subnormals; garbage for zeros, infinities and NaNs, which are chosen
/// apart).
fn unpack(x: &str, big: &str) -> String {
    format!(
        "\tand.64b %t, %{x}, 0x7FF0000000000000;\n\
         \tucmp.eq.64b %sub, %t, 0;\n\
         \tand.64b %t, %{x}, 0x8000000000000000;\n\
         \tsel.64b %t, %t, %{x}, %sub;\n\
         \tsel.64b %{x}, %t, %{x}, %ftz;\n\
         \tand.64b %{x}abs, %{x}, 0x7FFFFFFFFFFFFFFF;\n\
         \tand.64b %f, %{x}, 0x000FFFFFFFFFFFFF;\n\
         \tshr.64b %{x}ex, %{x}abs, 52;\n\
         \tucmp.eq.64b %sub, %{x}ex, 0;\n\
         \tor.64b %m, %f, 0x0010000000000000;\n\
         \tsel.64b %m, %f, %m, %sub;\n\
         \tsel.64b %{x}ex, 1, %{x}ex, %sub;\n\
         \tshr.64b %t, %m, 32;\n\
         \ttrunc.32b.64b %hi, %t;\n\
         \ttrunc.32b.64b %lo, %m;\n\
         \tfbh.32b %zh, %hi;\n\
         \tfbh.32b %zl, %lo;\n\
         \tiadd.32b %zl, %zl, 32;\n\
         \tucmp.eq.32b %hz, %hi, 0;\n\
         \tsel.32b %lz, %zl, %zh, %hz;\n\
         \tisub.32b %lz, %lz, 11;\n\
         \tand.32b %lz, %lz, 63;\n\
         \tshl.64b %m, %m, %lz;\n\
         \tzext.64b.32b %t, %lz;\n\
         \tisub.64b %{x}ex, %{x}ex, %t;\n\
         \tand.64b %{big}, %m, 0x000FFFFFFFFFFFFF;\n\
         \tor.64b %{big}, %{big}, 0x3FF0000000000000;\n"
    )
}

const DIV_HEAD: &str = "\
.function .64b @__pisa_sd_div_rn(.reg .64b %a0, .reg .64b %b0, .reg .32b %flags)
{
	.reg .64b %a, %b, %aabs, %babs, %aex, %bex, %f, %m, %k, %t, %u, %A, %B, %Bh, %Bl, %q, %qh, %ql, %ph, %pl, %r, %c, %v, %sg, %qt, %e, %sh, %d, %half, %n;
	.reg .32b %fl, %hi, %lo, %zh, %zl, %lz, %s32;
	.pred %p, %up, %dn, %ftz, %sub, %hz, %below, %sticky, %tie, %big, %an, %bn, %ai, %bi, %az, %bz;
	mov.64b %a, %a0;
	mov.64b %b, %b0;
	// .ftz (16): subnormal sources are the zeros of their signs
	and.32b %fl, %flags, 16;
	ucmp.ne.32b %ftz, %fl, 0;
";

const DIV_TAIL: &str = "\
	// the exact quotient's truncation qt at 53 bits and whether it is
	// inexact: the sign of q1's exact remainder r
	fcmp.lt.df %below, %r, 0.0;
	fcmp.ne.df %sticky, %r, 0.0;
	sel.64b %qt, %v, %q, %below;
	// normal results: q's exponent field moved by k (the encoding's sum)
	shl.64b %t, %k, 52;
	iadd.64b %n, %c, %t;
	// overflow (the exponent of q·2^k above 1023): inf
	shr.64b %e, %c, 52;
	iadd.64b %e, %e, %k;
	scmp.gt.64b %big, %e, 2046;
	sel.64b %n, 0x7FF0000000000000, %n, %big;
	// subnormal results (qt·2^k below 2^-1022): qt's 53-bit significand
	// shifted right by s = 1 - (qt's exponent field + k), rounded to nearest
	// even with the bits shifted out and the sticky bit
	shr.64b %e, %qt, 52;
	iadd.64b %e, %e, %k;
	scmp.lt.64b %p, %e, 1;
	mov.64b %sh, 1;
	isub.64b %sh, %sh, %e;
	umin.64b %sh, %sh, 63;
	trunc.32b.64b %s32, %sh;
	and.64b %m, %qt, 0x000FFFFFFFFFFFFF;
	or.64b %m, %m, 0x0010000000000000;
	shr.64b %u, %m, %s32;
	shl.64b %t, %u, %s32;
	isub.64b %d, %m, %t;
	mov.64b %half, 1;
	shl.64b %half, %half, %s32;
	shr.64b %half, %half, 1;
	// (up past the half; at the half when inexact or u is odd)
	ucmp.gt.64b %up, %d, %half;
	ucmp.eq.64b %tie, %d, %half;
	and.64b %t, %u, 1;
	sel.64b %t, 1, %t, %sticky;
	sel.64b %t, %t, 0, %tie;
	sel.64b %t, 1, %t, %up;
	iadd.64b %u, %u, %t;
	sel.64b %n, %u, %n, %p;
	// the sign; .ftz: a subnormal result is the zero of its sign
	xor.64b %sg, %a, %b;
	and.64b %sg, %sg, 0x8000000000000000;
	and.64b %t, %n, 0x7FF0000000000000;
	ucmp.eq.64b %p, %t, 0;
	sel.64b %t, 0, %n, %ftz;
	sel.64b %n, %t, %n, %p;
	or.64b %n, %n, %sg;
	// zeros, infinities, NaNs: x/0 and inf/x inf, 0/x and x/inf 0, 0/0 and
	// inf/inf the default NaN, a NaN source itself quieted (a first)
	ucmp.eq.64b %az, %aabs, 0;
	ucmp.eq.64b %bz, %babs, 0;
	ucmp.eq.64b %ai, %aabs, 0x7FF0000000000000;
	ucmp.eq.64b %bi, %babs, 0x7FF0000000000000;
	or.64b %t, %sg, 0x7FF0000000000000;
	sel.64b %n, %t, %n, %ai;
	sel.64b %n, %t, %n, %bz;
	sel.64b %n, %sg, %n, %az;
	sel.64b %n, %sg, %n, %bi;
	or.64b %t, %aabs, %babs;
	ucmp.eq.64b %p, %t, 0;
	sel.64b %n, 0x7FF8000000000000, %n, %p;
	// (both infinite, or NaNs, which come next)
	and.64b %t, %aabs, %babs;
	ucmp.eq.64b %p, %t, 0x7FF0000000000000;
	sel.64b %n, 0x7FF8000000000000, %n, %p;
	ucmp.gt.64b %bn, %babs, 0x7FF0000000000000;
	or.64b %t, %b, 0x0008000000000000;
	sel.64b %n, %t, %n, %bn;
	ucmp.gt.64b %an, %aabs, 0x7FF0000000000000;
	or.64b %t, %a, 0x0008000000000000;
	sel.64b %n, %t, %n, %an;
	return %n;
}

";

/// `@__pisa_sd_div_rn`.
fn div() -> String {
    let mut o = String::from(DIV_HEAD);
    o.push_str(&unpack("a", "A"));
    o.push_str(&unpack("b", "B"));
    o.push_str("\tisub.64b %k, %aex, %bex;\n");
    o.push_str("\t// q0 by the device's division\n\tfdiv.df %q, %A, %B;\n");
    o.push_str(&split("B"));
    o.push_str("\t// one correction: q1 = q0 + r0 / B\n");
    o.push_str(&split("q"));
    o.push_str(&dekker("q", "B"));
    o.push_str(
        "\tfsub.df %r, %A, %ph;\n\tfsub.df %r, %r, %pl;\n\tfdiv.df %c, %r, %B;\n\tfadd.df %q, %q, %c;\n",
    );
    o.push_str("\t// the exact remainder r of q1\n");
    o.push_str(&split("q"));
    o.push_str(&dekker("q", "B"));
    o.push_str("\tfsub.df %r, %A, %ph;\n\tfsub.df %r, %r, %pl;\n");
    o.push_str(
        "\t// c: q1 rounded to nearest; above q1 + u/2: r > (u/2)·B; below\n\
         \t// q1 - d/2: r < -(d/2)·B (v: q1's neighbour below)\n\
         \tiadd.64b %v, %q, 1;\n\
         \tfsub.df %u, %v, %q;\n\
         \tfmul.df %u, %u, %B;\n\
         \tfmul.df %u, %u, 0.5;\n\
         \tfcmp.gt.df %up, %r, %u;\n\
         \tsel.64b %c, %v, %q, %up;\n\
         \tisub.64b %v, %q, 1;\n\
         \tfsub.df %u, %q, %v;\n\
         \tfmul.df %u, %u, %B;\n\
         \tfmul.df %u, %u, -0.5;\n\
         \tfcmp.lt.df %dn, %r, %u;\n\
         \tsel.64b %c, %v, %c, %dn;\n",
    );
    o.push_str(DIV_TAIL);
    o
}

const SQRT_HEAD: &str = "\
.function .64b @__pisa_sd_sqrt_rn(.reg .64b %a0, .reg .32b %flags)
{
	.reg .64b %a, %abs, %sg, %f, %m, %ex, %k, %t, %A, %s, %sh, %sl, %v, %vh, %vl, %ph, %pl, %r, %c, %w, %zh64;
	.reg .32b %fl, %hi, %lo, %zh, %zl, %lz;
	.pred %p, %up, %dn, %odd, %ftz, %sub, %hz, %zero, %nan, %inf, %neg;
	mov.64b %a, %a0;
	// .ftz (16): a subnormal source is the zero of its sign
	and.32b %fl, %flags, 16;
	ucmp.ne.32b %ftz, %fl, 0;
	and.64b %t, %a, 0x7FF0000000000000;
	ucmp.eq.64b %sub, %t, 0;
	and.64b %sg, %a, 0x8000000000000000;
	sel.64b %t, %sg, %a, %sub;
	sel.64b %a, %t, %a, %ftz;
	and.64b %abs, %a, 0x7FFFFFFFFFFFFFFF;
	// the significand m with its top bit at 52 (subnormals normalized),
	// ex the biased exponent (below 1 for subnormals)
	and.64b %f, %a, 0x000FFFFFFFFFFFFF;
	shr.64b %ex, %abs, 52;
	ucmp.eq.64b %sub, %ex, 0;
	or.64b %m, %f, 0x0010000000000000;
	sel.64b %m, %f, %m, %sub;
	sel.64b %ex, 1, %ex, %sub;
	shr.64b %zh64, %m, 32;
	trunc.32b.64b %hi, %zh64;
	trunc.32b.64b %lo, %m;
	fbh.32b %zh, %hi;
	fbh.32b %zl, %lo;
	iadd.32b %zl, %zl, 32;
	ucmp.eq.32b %hz, %hi, 0;
	sel.32b %lz, %zl, %zh, %hz;
	isub.32b %lz, %lz, 11;
	and.32b %lz, %lz, 63;
	shl.64b %m, %m, %lz;
	zext.64b.32b %t, %lz;
	isub.64b %ex, %ex, %t;
	// A in [1, 4) with an even exponent e - 1023 - (0 or 1) = 2k
	isub.64b %t, %ex, 1023;
	and.64b %t, %t, 1;
	ucmp.ne.64b %odd, %t, 0;
	and.64b %A, %m, 0x000FFFFFFFFFFFFF;
	sel.64b %t, 0x4000000000000000, 0x3FF0000000000000, %odd;
	or.64b %A, %A, %t;
	// k = floor((ex - 1023) / 2) (ex + 1023 > 0)
	iadd.64b %t, %ex, 1023;
	shr.64b %t, %t, 1;
	isub.64b %k, %t, 1023;
";

const SQRT_TAIL: &str = "\
	// the scale 2^k (k in [-537, 511])
	iadd.64b %t, %k, 1023;
	shl.64b %t, %t, 52;
	fmul.df %s, %s, %t;
	// +inf, negative values (-inf too): the default NaN, zeros: themselves,
	// NaNs: quieted
	ucmp.eq.64b %inf, %a, 0x7FF0000000000000;
	sel.64b %s, 0x7FF0000000000000, %s, %inf;
	ucmp.ne.64b %neg, %sg, 0;
	sel.64b %s, 0x7FF8000000000000, %s, %neg;
	ucmp.eq.64b %zero, %abs, 0;
	sel.64b %s, %a, %s, %zero;
	ucmp.gt.64b %nan, %abs, 0x7FF0000000000000;
	or.64b %t, %a, 0x0008000000000000;
	sel.64b %s, %t, %s, %nan;
	return %s;
}

";

/// `@__pisa_sd_sqrt_rn`.
fn sqrt() -> String {
    let mut o = String::from(SQRT_HEAD);
    o.push_str("\t// s0 by the device's square root\n\tfsqrt.df %s, %A;\n");
    o.push_str("\t// one Newton step: s1 = s0 + (r0 / s0) / 2\n");
    o.push_str(&split("s"));
    o.push_str(&dekker("s", "s"));
    o.push_str(
        "\tfsub.df %r, %A, %ph;\n\tfsub.df %r, %r, %pl;\n\tfdiv.df %c, %r, %s;\n\tfmul.df %c, %c, 0.5;\n\tfadd.df %s, %s, %c;\n",
    );
    o.push_str(&split("s"));
    o.push_str("\t// above s1 + u/2: A > s1·s⁺ (Tuckerman)\n\tiadd.64b %v, %s, 1;\n");
    o.push_str(&split("v"));
    o.push_str(&dekker("s", "v"));
    o.push_str("\tfsub.df %r, %A, %ph;\n\tfcmp.gt.df %up, %r, %pl;\n\tsel.64b %w, %v, %s, %up;\n");
    o.push_str("\t// below s1 - d/2: A <= s1·s⁻\n\tisub.64b %v, %s, 1;\n");
    o.push_str(&split("v"));
    o.push_str(&dekker("s", "v"));
    o.push_str("\tfsub.df %r, %A, %ph;\n\tfcmp.le.df %dn, %r, %pl;\n\tsel.64b %s, %v, %w, %dn;\n");
    o.push_str(SQRT_TAIL);
    o
}
