//! The library's PISA text: the exact f32 library of [`crate::ir::exactf32`]
//! with its cores (step 2 of the method: the exact result, or its
//! truncation rounded to odd) computed in f64 arithmetic instead of
//! integers (see the module docs of [`super`] for the method and the
//! proof sketch). Everything else (flushing, classification, zeros,
//! infinities, NaN rules, `.dsat`, the rounding into f32 or a 16-bit
//! format in a directed mode, the 16-bit, conversion and `i2f` entry
//! points) is that library's text.
//!
//! The cores use only `.df` addition, subtraction and multiplication
//! (Vulkan rounds them correctly to nearest even, and the back end marks
//! them `NoContraction`), `fext.df.f` and `ftrunc.f.df` to nearest (exact
//! as Vulkan defines conversions), bit moves and integer operations: no
//! `.df` division, square root or `fmad`, whose Vulkan forms are not exact.
//!
//! Functions added to the f32 library's:
//!
//! - `@__pisa_xd_fmarn(a, b, c, flags)`: `fmad.f` to nearest even without
//!   `.ftz` or `.dsat` (the common form) in one short function;
//! - `@__pisa_xd_narrow(sign, x, mode)`: the positive f64 `x` (exact, or
//!   rounded to odd) with the sign `sign` (0 or 0x80000000) rounded once
//!   into the format of `mode` bits 8-9 in `mode`'s rounding mode: to
//!   nearest even into f32 by `ftrunc.f.df`, every other case by the f32
//!   library's integer rounding (`@__pisa_xf_round`) of its significand.

use crate::ir::exactf32::library::{Cores, F};

/// The library's text.
pub fn source() -> String {
    crate::ir::exactf32::library::source_with(
        "// The exact f32 operations in f64 arithmetic (ir::exactf64).\n",
        &F64,
    )
}

/// Veltkamp's splitting constant for f64: 2^27 + 1.
const SPLIT: &str = "134217729.0";
/// A seed of 1/x for a positive f64 `x` as `RECIP_MAGIC − bits(x)`
/// (relative error below 1/8; four Newton steps bring it below 2^-48).
const RECIP_MAGIC: &str = "0x7FDE623822FC16E6";
/// A seed of 1/√x as `RSQRT_MAGIC − bits(x)/2` (relative error below
/// 3.5%; four Newton steps bring it below 2^-52 plus rounding).
const RSQRT_MAGIC: &str = "0x5FE6EB50C7B537A9";

const NARROW: &str = "\
.function .32b @__pisa_xd_narrow(.reg .32b %sign, .reg .64b %x, .reg .32b %mode)
{
	.reg .64b %t, %sig;
	.reg .32b %e, %r;
	.pred %p;
	// to nearest even into f32: Vulkan's conversion, correctly rounded
	ucmp.ne.32b %p, %mode, 0;
	goto.cond %p, xd_narrow_directed;
	ftrunc.f.df %r, %x;
	or.32b %r, %r, %sign;
	return %r;
xd_narrow_directed:
	// x = sig * 2^(e - 1075), sig with its hidden bit (x is normal)
	shr.64b %t, %x, 52;
	trunc.32b.64b %e, %t;
	isub.32b %e, %e, 1075;
	and.64b %sig, %x, 0xFFFFFFFFFFFFF;
	or.64b %sig, %sig, 0x10000000000000;
	call %r, @__pisa_xf_round(%sign, %e, %sig, %mode);
	return %r;
}

";

/// `fmad.f` to nearest even without `.ftz` or `.dsat`, the common form,
/// in one short function (the inline form `fmad.f` had before this pass,
/// plus the NaN rule): the product exact in f64, the sum rounded to odd
/// by TwoSum's error, `ftrunc.f.df` to nearest (the driver's conversion
/// alone: [`super::in_library`]). Zeros and infinities come out of the
/// f64 arithmetic as IEEE 754 gives them; a NaN result is replaced by the
/// float core's (the first NaN source quieted, else the default NaN).
/// Only the product and the sum are float operations (their operands are
/// not hidden from the compiler: [`super::in_library`]); the rest works on
/// the bits. `%flags` is unused (0).
const FMA_RN: &str = "\
.function .32b @__pisa_xd_fmarn(.reg .32b %a, .reg .32b %b, .reg .32b %c, .reg .32b %flags)
{
	.reg .64b %xa, %xb, %xc, %p, %s, %e, %t, %u;
	.reg .32b %r, %q, %w;
	.pred %even, %inexact, %down, %nan;
	fext.df.f %xa, %a;
	fext.df.f %xb, %b;
	fext.df.f %xc, %c;
	fmul.df %p, %xa, %xb;
	fadd.df %s, %p, %xc;
	fsub.df %t, %s, %p;
	fsub.df %u, %s, %t;
	fsub.df %u, %p, %u;
	fsub.df %t, %xc, %t;
	fadd.df %e, %u, %t;
	// rounded to odd: one step toward a nonzero error from an even s, +1
	// on the encoding when e has s's sign, else -1; 0 < |e| < inf on the
	// bits, so that the NaN error of an infinite s leaves it
	and.64b %t, %s, 1;
	ucmp.eq.64b %even, %t, 0;
	and.64b %t, %e, 0x7FFFFFFFFFFFFFFF;
	isub.64b %t, %t, 1;
	ucmp.lt.64b %inexact, %t, 0x7FEFFFFFFFFFFFFF;
	xor.64b %t, %s, %e;
	scmp.lt.64b %down, %t, 0;
	sel.64b %u, 0xFFFFFFFFFFFFFFFF, 1, %down;
	iadd.64b %t, %s, %u;
	sel.64b %t, %t, %s, %even;
	sel.64b %s, %t, %s, %inexact;
	ftrunc.f.df %r, %s;
	// NaN rules: the first NaN source quieted, else the default NaN (on
	// the bits: no float compare a compiler may assume NaN-free)
	and.32b %w, %c, 0x7FFFFFFF;
	ucmp.gt.32b %nan, %w, 0x7F800000;
	sel.32b %q, %c, 0x7FC00000, %nan;
	and.32b %w, %b, 0x7FFFFFFF;
	ucmp.gt.32b %nan, %w, 0x7F800000;
	sel.32b %q, %b, %q, %nan;
	and.32b %w, %a, 0x7FFFFFFF;
	ucmp.gt.32b %nan, %w, 0x7F800000;
	sel.32b %q, %a, %q, %nan;
	or.32b %q, %q, 0x400000;
	and.32b %w, %r, 0x7FFFFFFF;
	ucmp.gt.32b %nan, %w, 0x7F800000;
	sel.32b %r, %q, %r, %nan;
	return %r;
}

";

/// The f64 cores.
pub(crate) struct F64;

/// `%{d}` (f64) the value of the f32 bits `x`, exactly; infinities and
/// NaNs (chosen by the operation apart from the arithmetic) as 1.
fn widen(f: &mut F, d: &str, x: &str, p: &str) {
    f.l(&format!("sel.32b %t, 0x3F800000, {x}, %{p}inf"));
    f.l(&format!("sel.32b %t, 0x3F800000, %t, %{p}nan"));
    f.l(&format!("fext.df.f {d}, %t"));
}

/// TwoSum (Knuth): `s = RN(a + b)`, `e = a + b − s` exactly (no
/// overflow).
fn two_sum(f: &mut F, a: &str, b: &str, s: &str, e: &str) {
    f.l(&format!("fadd.df {s}, {a}, {b}"));
    f.l(&format!("fsub.df %xt, {s}, {a}"));
    f.l(&format!("fsub.df %xu, {s}, %xt"));
    f.l(&format!("fsub.df %xu, {a}, %xu"));
    f.l(&format!("fsub.df %xt, {b}, %xt"));
    f.l(&format!("fadd.df {e}, %xu, %xt"));
}

/// Dekker's exact product with Veltkamp's splitting: `p = RN(x·y)`,
/// `e = x·y − p` exactly (no overflow, `e` normal).
fn two_prod(f: &mut F, x: &str, y: &str, p: &str, e: &str) {
    f.l(&format!("fmul.df {p}, {x}, {y}"));
    f.l(&format!("fmul.df %xt, {x}, {SPLIT}"));
    f.l(&format!("fsub.df %xu, %xt, {x}"));
    f.l("fsub.df %xh, %xt, %xu");
    f.l(&format!("fsub.df %xl, {x}, %xh"));
    f.l(&format!("fmul.df %xt, {y}, {SPLIT}"));
    f.l(&format!("fsub.df %xu, %xt, {y}"));
    f.l("fsub.df %xv, %xt, %xu");
    f.l(&format!("fsub.df %xw, {y}, %xv"));
    f.l("fmul.df %xt, %xh, %xv");
    f.l(&format!("fsub.df %xt, %xt, {p}"));
    f.l("fmul.df %xu, %xh, %xw");
    f.l("fadd.df %xt, %xt, %xu");
    f.l("fmul.df %xu, %xl, %xv");
    f.l("fadd.df %xt, %xt, %xu");
    f.l("fmul.df %xu, %xl, %xw");
    f.l(&format!("fadd.df {e}, %xt, %xu"));
}

/// `%xr = a − x·y` exactly: `x·y` within a few units of `a`'s last place
/// of `a`, so `a − RN(x·y)` is exact (Sterbenz) and the last subtraction
/// keeps at least the sign and the zero of the exact remainder.
fn remainder(f: &mut F, a: &str, x: &str, y: &str) {
    two_prod(f, x, y, "%xp", "%xe");
    f.l(&format!("fsub.df %xr, {a}, %xp"));
    f.l("fsub.df %xr, %xr, %xe");
}

/// `s` (a positive faithful result) rounded to odd, given the remainder
/// `%xr` whose sign says on which side the exact value lies: stepped one
/// unit toward it when it is inexact and `s` is even.
fn odd_toward(f: &mut F, s: &str) {
    f.l(&format!("and.64b %xt, {s}, 1"));
    f.l("ucmp.eq.64b %xeven, %xt, 0");
    f.l("fcmp.ne.df %xinexact, %xr, 0.0");
    f.l("fcmp.gt.df %xabove, %xr, 0.0");
    f.l("sel.64b %xt, 1, 0xFFFFFFFFFFFFFFFF, %xabove");
    f.l(&format!("iadd.64b %xt, {s}, %xt"));
    f.l(&format!("sel.64b %xt, %xt, {s}, %xeven"));
    f.l(&format!("sel.64b {s}, %xt, {s}, %xinexact"));
}

/// The signed f64 `x` (exact, or rounded to odd) rounded into `%r`; an
/// exact zero is +0, or −0 rounding down.
fn narrow_signed(f: &mut F, x: &str) {
    f.l(&format!("and.64b %xm, {x}, 0x7FFFFFFFFFFFFFFF"));
    f.l(&format!("shr.64b %xt, {x}, 32"));
    f.l("trunc.32b.64b %xsign, %xt");
    f.l("and.32b %xsign, %xsign, 0x80000000");
    f.l("call %r, @__pisa_xd_narrow(%xsign, %xm, %rmode)");
    f.l("ucmp.eq.64b %xzero, %xm, 0");
    f.l("ucmp.eq.32b %p, %mode, 3");
    f.l("sel.32b %t, 0x80000000, 0, %p");
    f.l("sel.32b %r, %t, %r, %xzero");
}

impl Cores for F64 {
    fn functions(&self) -> String {
        format!("{NARROW}{FMA_RN}")
    }
    fn regs(&self) -> Vec<String> {
        vec![
            ".reg .64b %xa, %xb, %xc, %xs, %xe, %xp, %xr, %xq, %xy, %xk, %xm".into(),
            ".reg .64b %xt, %xu, %xh, %xl, %xv, %xw".into(),
            ".reg .32b %xsign".into(),
            ".pred %xeven, %xinexact, %xabove, %xzero".into(),
        ]
    }
    /// The sum of two f32 values by TwoSum, rounded to odd (53 bits).
    fn add(&self, f: &mut F) {
        widen(f, "%xa", "%a", "a");
        widen(f, "%xb", "%bn", "b");
        two_sum(f, "%xa", "%xb", "%xs", "%xe");
        f.l("mov.64b %xr, %xe");
        round_odd_signed(f, "%xs");
        narrow_signed(f, "%xs");
    }
    /// The product of two f32 values, exact in f64.
    fn mul(&self, f: &mut F) {
        widen(f, "%xa", "%aabs", "a");
        widen(f, "%xb", "%babs", "b");
        f.l("fmul.df %xp, %xa, %xb");
        f.l("call %r, @__pisa_xd_narrow(%ps, %xp, %rmode)");
    }
    /// The exact product plus the addend by TwoSum, rounded to odd.
    fn fma(&self, f: &mut F) {
        widen(f, "%xa", "%a", "a");
        widen(f, "%xb", "%b", "b");
        widen(f, "%xc", "%c", "c");
        f.l("fmul.df %xp, %xa, %xb");
        two_sum(f, "%xp", "%xc", "%xs", "%xe");
        f.l("mov.64b %xr, %xe");
        round_odd_signed(f, "%xs");
        narrow_signed(f, "%xs");
    }
    /// `|a| / |b|`: a Newton reciprocal `y` from a bit seed (no division),
    /// `q = a·y` corrected once by the exact remainder to a faithful
    /// quotient, then rounded to odd by the sign of its exact remainder.
    fn div(&self, f: &mut F) {
        widen(f, "%xa", "%aabs", "a");
        f.l("sel.32b %t, 0x3F800000, %babs, %bzero");
        f.l("sel.32b %t, 0x3F800000, %t, %binf");
        f.l("sel.32b %t, 0x3F800000, %t, %bnan");
        f.l("fext.df.f %xb, %t");
        f.l(&format!("mov.64b %xy, {RECIP_MAGIC}"));
        f.l("isub.64b %xy, %xy, %xb");
        for _ in 0..4 {
            f.l("fmul.df %xt, %xb, %xy");
            f.l("fsub.df %xt, 2.0, %xt");
            f.l("fmul.df %xy, %xy, %xt");
        }
        f.l("fmul.df %xq, %xa, %xy");
        remainder(f, "%xa", "%xq", "%xb");
        f.l("fmul.df %xr, %xr, %xy");
        f.l("fadd.df %xq, %xq, %xr");
        remainder(f, "%xa", "%xq", "%xb");
        odd_toward(f, "%xq");
        f.l("call %r, @__pisa_xd_narrow(%qs, %xq, %rmode)");
    }
    /// `√|a|`: a Newton reciprocal root `y` from a bit seed, `s = a·y`
    /// corrected once by the exact remainder `a − s²` to a faithful root,
    /// then rounded to odd by the sign of its exact remainder.
    fn sqrt(&self, f: &mut F) {
        f.l("sel.32b %t, 0x3F800000, %aabs, %azero");
        f.l("sel.32b %t, 0x3F800000, %t, %ainf");
        f.l("sel.32b %t, 0x3F800000, %t, %anan");
        f.l("fext.df.f %xa, %t");
        f.l("shr.64b %xt, %xa, 1");
        f.l(&format!("mov.64b %xy, {RSQRT_MAGIC}"));
        f.l("isub.64b %xy, %xy, %xt");
        f.l("fmul.df %xk, %xa, 0.5");
        for _ in 0..4 {
            f.l("fmul.df %xt, %xy, %xy");
            f.l("fmul.df %xt, %xt, %xk");
            f.l("fsub.df %xt, 1.5, %xt");
            f.l("fmul.df %xy, %xy, %xt");
        }
        f.l("fmul.df %xq, %xa, %xy");
        remainder(f, "%xa", "%xq", "%xq");
        f.l("fmul.df %xr, %xr, %xy");
        f.l("fmul.df %xr, %xr, 0.5");
        f.l("fadd.df %xq, %xq, %xr");
        remainder(f, "%xa", "%xq", "%xq");
        odd_toward(f, "%xq");
        f.l("mov.32b %t, 0");
        f.l("call %r, @__pisa_xd_narrow(%t, %xq, %rmode)");
    }
}

/// `s = RN(x)` (signed) rounded to odd given TwoSum's exact error `%xr`:
/// stepped one unit toward it on the encoding when it is nonzero and `s`
/// is even (`s` is then not zero: a sum that rounds to zero is exact).
fn round_odd_signed(f: &mut F, s: &str) {
    f.l(&format!("and.64b %xt, {s}, 1"));
    f.l("ucmp.eq.64b %xeven, %xt, 0");
    f.l("fcmp.ne.df %xinexact, %xr, 0.0");
    f.c("toward the error: +1 on the encoding when it has s's sign");
    f.l(&format!("xor.64b %xt, {s}, %xr"));
    f.l("shr.64b %xt, %xt, 63");
    f.l("shl.64b %xt, %xt, 1");
    f.l("mov.64b %xu, 1");
    f.l("isub.64b %xu, %xu, %xt");
    f.l(&format!("iadd.64b %xt, {s}, %xu"));
    f.l(&format!("sel.64b %xt, %xt, {s}, %xeven"));
    f.l(&format!("sel.64b {s}, %xt, {s}, %xinexact"));
}
