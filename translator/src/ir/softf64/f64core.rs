//! `fdiv.df` and `fsqrt.df` to nearest even on devices with f64: the
//! device's f64 division (square root) at a normalized scale, made
//! correctly rounded by exact remainders, with the soft-double library's
//! integer functions for the operands this cannot take (docs/numerics.md,
//! "`.df` on devices with f64"). Linked by `ir::exactf64::link_df` only
//! (never where `softf64` replaces every `.df` operation: the functions
//! use `.df` arithmetic).
//!
//! - `@__pisa_sd_div_rn(a, b, flags)`: both operands normal (exponent
//!   fields 1–2046) and `k = ea − eb` in [−1021, 1023]; anything else
//!   (zeros, subnormals, infinities, NaNs, quotients that could overflow
//!   or be subnormal) is `@__pisa_sd_div(a, b, flags)`.
//! - `@__pisa_sd_sqrt_rn(a, flags)`: `a` positive and normal; anything else
//!   (zeros, subnormals, negative values, +inf, NaNs) is
//!   `@__pisa_sd_sqrt(a, flags)`.
//!
//! The flags are the soft-double library's (`softf64::flags`): to nearest
//! even without `.dsat` (`.ftz` changes nothing on the fast path, whose
//! sources and results are normal).
//!
//! Proof sketch. The significands `A`, `B` of `a`, `b` in [1, 2) (bits: the
//! fraction under the exponent field of 1.0; the square root's `A` in
//! [1, 4), the exponent made even) give `A/B` in (1/2, 2) (`√A` in
//! [1, 2)); the result is the correctly rounded one of these times 2^k,
//! an exact multiplication by the f64 2^k as long as the product is
//! normal, which the fast path's conditions ensure (`A/B` < 2 and, with
//! `A/B` ≥ 1/2, `k − 1` ≥ −1022; the root's `k` lies in [−511, 511]).
//! Every value below then lies within [2^-110, 4]: Veltkamp's splitting and
//! Dekker's product (`x·y = ph + pl` exactly) are exact, and no operation
//! overflows or underflows.
//!
//! 1. `q0 = A/B` by the device's `OpFDiv` (`√A` by `Sqrt`): Vulkan bounds
//!    their error by a few units (2.5 ULP); anything within 2^40 units
//!    does.
//! 2. One Newton correction: `r0 = (A − ph) − pl` with `ph + pl = q0·B`
//!    (`A − ph` is exact by Sterbenz's lemma, `ph` within a factor 2 of
//!    `A`), so `r0` is the exact remainder with one rounding, and
//!    `q1 = RN(q0 + r0/B)` (the root: `s1 = RN(s0 + (r0/s0)/2)`, `r0 = A −
//!    s0²`). The correction's error is a tiny fraction (about 2^-50) of
//!    `q0`'s, and the root's Newton step's error is quadratic, so `q1`
//!    (`s1`) is within half a unit and a tiny fraction of the exact value:
//!    faithful.
//! 3. The correct rounding. Division: `q1` faithful makes the remainder
//!    `r1 = A − q1·B` a 53-bit value (a multiple of `ulp(q1)·ulp(B)` below
//!    `ulp(q1)·B`), so `(A − ph) − pl` computes it exactly. The exact
//!    quotient lies above the midpoint `q1 + u/2` (`u = q1⁺ − q1`, exact)
//!    iff `r1 > (u/2)·B`, below `q1 − d/2` (`d = q1 − q1⁻`) iff
//!    `r1 < −(d/2)·B`, both products exact (powers of two times `B`); a
//!    quotient of two 53-bit values is never a midpoint (it would need 54
//!    bits), so the strict comparisons decide. Square root (Tuckerman's
//!    test): with `s⁺` the next value above `s1`, `(s1 + u/2)² = s1·s⁺ +
//!    u²/4`, and `A`, `s1·s⁺` are multiples of 2^-104 while `u²/4` is
//!    2^-106, so `√A` lies above the midpoint iff `A > s1·s⁺`; likewise
//!    below `s1 − d/2` iff `A ≤ s1·s⁻`. Each product is `ph + pl` exactly
//!    and `A − ph` is exact, so `A − ph > pl` (`≤`) decides exactly.
//! 4. The sign (division: the XOR of the sources' signs) is put on, and the
//!    scale applied.
//!
//! The fallbacks are the integer library's exact functions, so every
//! operand gives the cpu device's result; the tests (`tests/soft_f64.rs`,
//! `df_fast_paths_*`) take operands on both sides of each boundary.

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

const DIV_HEAD: &str = "\
.function .64b @__pisa_sd_div_rn(.reg .64b %a, .reg .64b %b, .reg .32b %flags)
{
	.reg .64b %ea, %eb, %k, %t, %u, %A, %B, %Bh, %Bl, %q, %qh, %ql, %ph, %pl, %r, %c, %v, %vh, %vl, %h, %sg;
	.pred %p, %up, %dn;
	shr.64b %ea, %a, 52;
	and.64b %ea, %ea, 0x7FF;
	shr.64b %eb, %b, 52;
	and.64b %eb, %eb, 0x7FF;
	// the fast path: both normal, k = ea - eb in [-1021, 1023]
	isub.64b %t, %ea, 1;
	ucmp.ge.64b %p, %t, 2046;
	goto.cond %p, sd_div_rn_slow;
	isub.64b %t, %eb, 1;
	ucmp.ge.64b %p, %t, 2046;
	goto.cond %p, sd_div_rn_slow;
	isub.64b %k, %ea, %eb;
	iadd.64b %t, %k, 1021;
	ucmp.ge.64b %p, %t, 2045;
	goto.cond %p, sd_div_rn_slow;
	// A, B in [1, 2)
	and.64b %A, %a, 0x000FFFFFFFFFFFFF;
	or.64b %A, %A, 0x3FF0000000000000;
	and.64b %B, %b, 0x000FFFFFFFFFFFFF;
	or.64b %B, %B, 0x3FF0000000000000;
";

const DIV_TAIL: &str = "\
	// the sign and the scale 2^k (k + 1023 in [2, 2046]: normal)
	xor.64b %sg, %a, %b;
	and.64b %sg, %sg, 0x8000000000000000;
	iadd.64b %t, %k, 1023;
	shl.64b %t, %t, 52;
	fmul.df %q, %q, %t;
	or.64b %q, %q, %sg;
	return %q;
sd_div_rn_slow:
	call %q, @__pisa_sd_div(%a, %b, %flags);
	return %q;
}

";

/// `@__pisa_sd_div_rn`.
fn div() -> String {
    let mut o = String::from(DIV_HEAD);
    o.push_str("\t// q0 by the device's division\n\tfdiv.df %q, %A, %B;\n");
    o.push_str(&split("B"));
    o.push_str("\t// one correction: q1 = q0 + r0 / B\n");
    o.push_str(&split("q"));
    o.push_str(&dekker("q", "B"));
    o.push_str(
        "\tfsub.df %r, %A, %ph;\n\tfsub.df %r, %r, %pl;\n\tfdiv.df %c, %r, %B;\n\tfadd.df %q, %q, %c;\n",
    );
    o.push_str("\t// the exact remainder of q1\n");
    o.push_str(&split("q"));
    o.push_str(&dekker("q", "B"));
    o.push_str("\tfsub.df %r, %A, %ph;\n\tfsub.df %r, %r, %pl;\n");
    o.push_str(
        "\t// above q1 + u/2: r > (u/2)·B; below q1 - d/2: r < -(d/2)·B\n\
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
         \tsel.64b %q, %v, %c, %dn;\n",
    );
    o.push_str(DIV_TAIL);
    o
}

const SQRT_HEAD: &str = "\
.function .64b @__pisa_sd_sqrt_rn(.reg .64b %a, .reg .32b %flags)
{
	.reg .64b %ea, %k, %t, %A, %s, %sh, %sl, %v, %vh, %vl, %ph, %pl, %r, %c, %w;
	.pred %p, %up, %dn, %odd;
	// the fast path: a positive and normal (the sign bit clear)
	shr.64b %ea, %a, 52;
	isub.64b %t, %ea, 1;
	ucmp.ge.64b %p, %t, 2046;
	goto.cond %p, sd_sqrt_rn_slow;
	// A in [1, 4) with an even exponent e - 1023 - (0 or 1) = 2k
	isub.64b %t, %ea, 1023;
	and.64b %t, %t, 1;
	ucmp.ne.64b %odd, %t, 0;
	and.64b %A, %a, 0x000FFFFFFFFFFFFF;
	sel.64b %t, 0x4000000000000000, 0x3FF0000000000000, %odd;
	or.64b %A, %A, %t;
	// k = floor((e - 1023) / 2), in unsigned arithmetic
	iadd.64b %t, %ea, 1023;
	shr.64b %t, %t, 1;
	isub.64b %k, %t, 1023;
";

const SQRT_TAIL: &str = "\
	// the scale 2^k (k in [-511, 511])
	iadd.64b %t, %k, 1023;
	shl.64b %t, %t, 52;
	fmul.df %s, %s, %t;
	return %s;
sd_sqrt_rn_slow:
	call %s, @__pisa_sd_sqrt(%a, %flags);
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
