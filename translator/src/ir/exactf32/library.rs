//! The library's PISA text: the exact f32 operations in 32- and 64-bit
//! integer arithmetic (see the module docs of [`super`] for the method and
//! the proof sketch). Written here from small templates so that every
//! operation classifies, flushes, applies the NaN rules and finishes its
//! result the same way.
//!
//! Functions (all return the result's f32 bits):
//!
//! - `@__pisa_xf_round(sign, exp, sig, mode)`: `(-1)^sign · sig · 2^exp`
//!   (`sig` a nonzero u64, `sign` 0 or 0x80000000) rounded once into f32 in
//!   `mode`, subnormals and overflow included;
//! - `@__pisa_xf_addcore(sa, ea, a, sb, eb, b, mode)`: the rounded sum of
//!   two terms whose significands have their top bit at bit 62;
//! - `@__pisa_xf_add(a, b, flags)`, `@__pisa_xf_mul(a, b, flags)`,
//!   `@__pisa_xf_fma(a, b, c, flags)`, `@__pisa_xf_div(a, b, flags)`,
//!   `@__pisa_xf_sqrt(a, flags)`: the instructions, with `flags` as
//!   [`super::flags`] encodes them;
//! - `@__pisa_xf_frc(a, flags)`: `frc`, by `frnd.rd` and `@__pisa_xf_add`
//!   in `.rd`.

use std::fmt::Write;

/// The library's text.
pub fn source() -> String {
    source_with(
        "// The exact f32 operations without f64 (ir::exactf32).\n",
        &Integer,
    )
}

/// How each operation forms its exact result, or its truncation rounded
/// to odd, from the unpacked operands (step 2 of the method): in integers
/// ([`Integer`], this library), or in f64 (`ir::exactf64`). The rest of
/// every operation (flushing, classification, zeros, infinities, NaN
/// rules, `.dsat`, the 16-bit and conversion entry points) is shared.
///
/// Each core sets `%r` to the rounded result (f32 encoding, the format of
/// flags bits 8-9 widened) for finite nonzero operands; the operation then
/// overrides it for the special ones. Registers: see each operation below.
pub(crate) trait Cores {
    /// Functions the cores call, and registers every operation declares.
    fn functions(&self) -> String;
    fn regs(&self) -> Vec<String>;
    /// `fadd`: `%a` and `%bn` (the subtrahend negated), unpacked as `a`, `b`.
    fn add(&self, f: &mut F);
    /// `fmul`: `%a`, `%b` unpacked, `%ps` the product's sign.
    fn mul(&self, f: &mut F);
    /// `fmad`: `%a`, `%b`, `%c` unpacked, `%ps` the product's sign.
    fn fma(&self, f: &mut F);
    /// `fdiv`: `%a`, `%b` unpacked, `%qs` the quotient's sign.
    fn div(&self, f: &mut F);
    /// `fsqrt`: `%a` unpacked (a negative `%a` is chosen later).
    fn sqrt(&self, f: &mut F);
}

/// The library's text with the cores `cores`, under the comment `title`.
pub(crate) fn source_with(title: &str, cores: &dyn Cores) -> String {
    let mut s = String::from(title);
    s.push_str(
        "// Names starting with `__pisa_` are reserved for the bundled libraries.\n\
         .version 0.1;\n.target 100;\n\n",
    );
    s.push_str(ROUND);
    s.push_str(&cores.functions());
    s.push_str(&add(cores));
    s.push_str(&mul(cores));
    s.push_str(&fma(cores));
    s.push_str(&div(cores));
    s.push_str(&sqrt(cores));
    s.push_str(WIDEN);
    s.push_str(&cvt());
    s.push_str(I2F);
    s.push_str(FRC);
    s.push_str(&half_entries());
    s
}

/// Rounds `(-1)^sign · sig · 2^exp` once. `sig` is normalized to bit 63; the
/// bits below the kept significand (24 bits for normal results, fewer for
/// subnormal ones, none beyond 2^-150) decide the rounding: `rem` against
/// `half`. A significand that rounds up to 2^24 carries into the exponent
/// field by the addition; one that reaches the infinity's encoding, or an
/// exponent beyond 127, overflows: ±inf, or ±max finite when rounding
/// toward zero from that side.
const ROUND: &str = "\
.function .32b @__pisa_xf_roundf(.reg .32b %sign, .reg .32b %exp, .reg .64b %sig, .reg .32b %mode0)
{
	.reg .64b %t, %m, %rem, %half, %mant64;
	.reg .32b %hi, %lo, %lzh, %lzl, %lz, %e, %extra, %sh, %sh1, %mant, %g, %q, %z, %t1;
	.reg .32b %rn, %rna, %neg1, %pos1, %ru, %rd, %up, %eb, %bits, %ov, %tw, %tw2, %r;
	.reg .32b %mode, %fmt, %emin, %emax, %drop, %fb, %infb, %ssh, %sb;
	.pred %hz, %far, %full, %gt, %eq, %nz, %p, %ovf, %inf, %ish, %isb, %is16;
	// the format (bits 8-9): 0 f32, 1 f16, 2 bfloat16; its precision
	// (64 - drop bits), exponent range, fraction bits and infinity
	and.32b %mode, %mode0, 7;
	shr.32b %fmt, %mode0, 8;
	and.32b %fmt, %fmt, 3;
	ucmp.eq.32b %ish, %fmt, 1;
	ucmp.eq.32b %isb, %fmt, 2;
	ucmp.ne.32b %is16, %fmt, 0;
	sel.32b %emin, -14, -126, %ish;
	sel.32b %emax, 15, 127, %ish;
	sel.32b %drop, 53, 40, %ish;
	sel.32b %drop, 56, %drop, %isb;
	sel.32b %fb, 10, 23, %ish;
	sel.32b %fb, 7, %fb, %isb;
	sel.32b %infb, 0x7C00, 0x7F800000, %ish;
	sel.32b %infb, 0x7F80, %infb, %isb;
	sel.32b %ssh, 16, 0, %is16;
	shr.64b %t, %sig, 32;
	trunc.32b.64b %hi, %t;
	trunc.32b.64b %lo, %sig;
	fbh.32b %lzh, %hi;
	fbh.32b %lzl, %lo;
	iadd.32b %lzl, %lzl, 32;
	ucmp.eq.32b %hz, %hi, 0;
	sel.32b %lz, %lzl, %lzh, %hz;
	and.32b %lz, %lz, 63;
	shl.64b %m, %sig, %lz;
	// the value is m * 2^(e - 63), m in [2^63, 2^64)
	isub.32b %e, %exp, %lz;
	iadd.32b %e, %e, 63;
	// bits dropped: 64 - precision, more below 2^emin
	isub.32b %extra, %emin, %e;
	smax.32b %extra, %extra, 0;
	iadd.32b %sh, %extra, %drop;
	// below half the smallest subnormal: only a sticky bit is left
	scmp.gt.32b %far, %sh, 64;
	sel.64b %m, 1, %m, %far;
	smin.32b %sh, %sh, 64;
	ucmp.eq.32b %full, %sh, 64;
	shr.64b %mant64, %m, %sh;
	sel.64b %mant64, 0, %mant64, %full;
	shl.64b %t, %mant64, %sh;
	isub.64b %rem, %m, %t;
	isub.32b %sh1, %sh, 1;
	shl.64b %half, 1, %sh1;
	trunc.32b.64b %mant, %mant64;
	// the increment of each mode: 0 rn, 1 rz, 2 ru, 3 rd, 4 rna
	ucmp.gt.64b %gt, %rem, %half;
	ucmp.eq.64b %eq, %rem, %half;
	ucmp.ne.64b %nz, %rem, 0;
	sel.32b %g, 1, 0, %gt;
	sel.32b %q, 1, 0, %eq;
	sel.32b %z, 1, 0, %nz;
	and.32b %t1, %mant, 1;
	and.32b %t1, %t1, %q;
	or.32b %rn, %g, %t1;
	or.32b %rna, %g, %q;
	shr.32b %neg1, %sign, 31;
	xor.32b %pos1, %neg1, 1;
	and.32b %ru, %z, %pos1;
	and.32b %rd, %z, %neg1;
	mov.32b %up, %rn;
	ucmp.eq.32b %p, %mode, 1;
	sel.32b %up, 0, %up, %p;
	ucmp.eq.32b %p, %mode, 2;
	sel.32b %up, %ru, %up, %p;
	ucmp.eq.32b %p, %mode, 3;
	sel.32b %up, %rd, %up, %p;
	ucmp.eq.32b %p, %mode, 4;
	sel.32b %up, %rna, %up, %p;
	iadd.32b %mant, %mant, %up;
	// the encoding: the exponent field of max(e, emin) plus the significand
	// with its hidden bit (a carry moves the exponent up)
	smax.32b %eb, %e, %emin;
	isub.32b %eb, %eb, %emin;
	smin.32b %eb, %eb, 255;
	shl.32b %bits, %eb, %fb;
	iadd.32b %bits, %bits, %mant;
	scmp.gt.32b %ovf, %e, %emax;
	ucmp.ge.32b %inf, %bits, %infb;
	sel.32b %ov, 1, 0, %ovf;
	sel.32b %t1, 1, 0, %inf;
	or.32b %ov, %ov, %t1;
	// overflow toward zero (.rz, .ru of negatives, .rd of positives): max finite
	ucmp.eq.32b %p, %mode, 1;
	sel.32b %tw, 1, 0, %p;
	ucmp.eq.32b %p, %mode, 2;
	sel.32b %tw2, %neg1, 0, %p;
	or.32b %tw, %tw, %tw2;
	ucmp.eq.32b %p, %mode, 3;
	sel.32b %tw2, %pos1, 0, %p;
	or.32b %tw, %tw, %tw2;
	ucmp.ne.32b %p, %tw, 0;
	isub.32b %r, %infb, 1;
	sel.32b %r, %r, %infb, %p;
	ucmp.ne.32b %p, %ov, 0;
	sel.32b %bits, %r, %bits, %p;
	and.32b %t1, %sign, 0x80000000;
	shr.32b %t1, %t1, %ssh;
	or.32b %bits, %bits, %t1;
	return %bits;
}

.function .32b @__pisa_xf_round(.reg .32b %sign, .reg .32b %exp, .reg .64b %sig, .reg .32b %mode)
{
	.reg .32b %r, %fmt;
	call %r, @__pisa_xf_roundf(%sign, %exp, %sig, %mode);
	shr.32b %fmt, %mode, 8;
	and.32b %fmt, %fmt, 3;
	call %r, @__pisa_xf_widen(%r, %fmt);
	return %r;
}

";

/// The sum of `(-1)^sa · a · 2^ea` and `(-1)^sb · b · 2^eb`, `a` and `b`
/// nonzero with their top bit at 62 (so the larger exponent is the larger
/// magnitude), rounded once. The smaller term `y` is shifted right by the
/// exponent difference into `yt`, rounded to odd (the bits shifted out, if
/// any, ORed into bit 0). The larger `x` has at least 15 zero low bits
/// (its significand has at most 48 bits), so bits are lost only when the
/// difference exceeds 15: `x ± yt` then keeps its top bit at 61 or above,
/// at least 37 bits above bit 0, and with `x` even, `x ± RO(y) = RO(x ± y)`,
/// which rounds like `x ± y` into 24 bits (Boldo and Melquiond). An exact
/// zero is +0, or −0 when rounding down.
const ADDCORE: &str = "\
.function .32b @__pisa_xf_addcore(.reg .32b %sa, .reg .32b %ea, .reg .64b %a, .reg .32b %sb, .reg .32b %eb, .reg .64b %b, .reg .32b %mode)
{
	.reg .64b %x, %y, %yt, %back, %st, %sum, %dif, %r;
	.reg .32b %sx, %sy, %ex, %ey, %d, %w1, %w2, %w3, %sw, %z, %res, %rm;
	.pred %p1, %p2, %p3, %swap, %lost, %same, %zero;
	scmp.gt.32b %p1, %eb, %ea;
	scmp.eq.32b %p2, %eb, %ea;
	ucmp.gt.64b %p3, %b, %a;
	sel.32b %w1, 1, 0, %p1;
	sel.32b %w2, 1, 0, %p2;
	sel.32b %w3, 1, 0, %p3;
	and.32b %w2, %w2, %w3;
	or.32b %sw, %w1, %w2;
	ucmp.ne.32b %swap, %sw, 0;
	sel.64b %x, %b, %a, %swap;
	sel.64b %y, %a, %b, %swap;
	sel.32b %sx, %sb, %sa, %swap;
	sel.32b %sy, %sa, %sb, %swap;
	sel.32b %ex, %eb, %ea, %swap;
	sel.32b %ey, %ea, %eb, %swap;
	isub.32b %d, %ex, %ey;
	umin.32b %d, %d, 63;
	shr.64b %yt, %y, %d;
	shl.64b %back, %yt, %d;
	ucmp.ne.64b %lost, %back, %y;
	sel.64b %st, 1, 0, %lost;
	or.64b %yt, %yt, %st;
	ucmp.eq.32b %same, %sx, %sy;
	iadd.64b %sum, %x, %yt;
	isub.64b %dif, %x, %yt;
	sel.64b %r, %sum, %dif, %same;
	ucmp.eq.64b %zero, %r, 0;
	sel.64b %r, 1, %r, %zero;
	call %res, @__pisa_xf_round(%sx, %ex, %r, %mode);
	and.32b %rm, %mode, 7;
	ucmp.eq.32b %p1, %rm, 3;
	sel.32b %z, 0x80000000, 0, %p1;
	sel.32b %res, %z, %res, %zero;
	return %res;
}

";

/// A function's text under construction.
pub(crate) struct F(pub(crate) String);

impl F {
    pub(crate) fn new(head: &str, regs: &[&str]) -> F {
        let mut s = format!("{head}\n{{\n");
        let _ = writeln!(
            s,
            "\t.reg .32b %mode, %rmode, %fl, %fe, %fz, %nanr, %anyn, %q, %r, %t;"
        );
        let _ = writeln!(s, "\t.pred %ftz, %dsat, %fp, %pn, %p;");
        for r in regs {
            let _ = writeln!(s, "\t{r};");
        }
        let mut f = F(s);
        f.l("and.32b %mode, %flags, 7");
        f.l("and.32b %rmode, %flags, 0x307");
        f.l("and.32b %fl, %flags, 16");
        f.l("ucmp.ne.32b %ftz, %fl, 0");
        f.l("and.32b %fl, %flags, 32");
        f.l("ucmp.ne.32b %dsat, %fl, 0");
        f
    }
    pub(crate) fn l(&mut self, line: &str) {
        let _ = writeln!(self.0, "\t{line};");
    }
    pub(crate) fn c(&mut self, comment: &str) {
        let _ = writeln!(self.0, "\t// {comment}");
    }
    /// `.ftz`: register `x` becomes the zero of its sign if it is
    /// subnormal, when the flags ask for it.
    /// The operands `%N0` of the function, for each name `N`: copied to
    /// `%N`, flushed under `.ftz`, classified and unpacked.
    pub(crate) fn operands(&mut self, names: &[&str]) {
        for n in names {
            self.l(&format!("mov.32b %{n}, %{n}0"));
        }
        for n in names {
            self.flush(&format!("%{n}"));
        }
        for n in names {
            self.classify(&format!("%{n}"), n);
        }
        for n in names {
            self.unpack(&format!("%{n}"), n);
        }
    }

    pub(crate) fn flush(&mut self, x: &str) {
        self.l(&format!("and.32b %fe, {x}, 0x7F800000"));
        self.l("ucmp.eq.32b %fp, %fe, 0");
        self.l(&format!("and.32b %fz, {x}, 0x80000000"));
        self.l(&format!("sel.32b %fz, %fz, {x}, %fp"));
        self.l(&format!("sel.32b {x}, %fz, {x}, %ftz"));
    }
    /// Registers `%{p}abs`, `%{p}s` (the sign bit) and predicates
    /// `%{p}nan`, `%{p}inf`, `%{p}zero` of `x`.
    pub(crate) fn classify(&mut self, x: &str, p: &str) {
        self.l(&format!("and.32b %{p}abs, {x}, 0x7FFFFFFF"));
        self.l(&format!("and.32b %{p}s, {x}, 0x80000000"));
        self.l(&format!("ucmp.gt.32b %{p}nan, %{p}abs, 0x7F800000"));
        self.l(&format!("ucmp.eq.32b %{p}inf, %{p}abs, 0x7F800000"));
        self.l(&format!("ucmp.eq.32b %{p}zero, %{p}abs, 0"));
    }
    /// The declarations [`F::classify`] and [`F::unpack`] need for `p`.
    pub(crate) fn decls(p: &str) -> [String; 2] {
        [
            format!(".reg .32b %{p}abs, %{p}s, %{p}f, %{p}ef, %{p}m, %{p}e, %{p}lz"),
            format!(".pred %{p}nan, %{p}inf, %{p}zero, %{p}sub"),
        ]
    }
    /// A finite nonzero `x` as `%{p}m · 2^%{p}e`, `%{p}m` with its top
    /// bit at 23 (subnormals normalized). Zero gives garbage, never undefined
    /// behaviour (shift counts are masked).
    pub(crate) fn unpack(&mut self, x: &str, p: &str) {
        self.l(&format!("and.32b %{p}f, {x}, 0x7FFFFF"));
        self.l(&format!("shr.32b %{p}ef, {x}, 23"));
        self.l(&format!("and.32b %{p}ef, %{p}ef, 0xFF"));
        self.l(&format!("ucmp.eq.32b %{p}sub, %{p}ef, 0"));
        self.l(&format!("or.32b %{p}m, %{p}f, 0x800000"));
        self.l(&format!("sel.32b %{p}m, %{p}f, %{p}m, %{p}sub"));
        self.l(&format!("sel.32b %{p}ef, 1, %{p}ef, %{p}sub"));
        self.l(&format!("isub.32b %{p}e, %{p}ef, 150"));
        self.l(&format!("fbh.32b %{p}lz, %{p}m"));
        self.l(&format!("isub.32b %{p}lz, %{p}lz, 8"));
        self.l(&format!("and.32b %{p}lz, %{p}lz, 31"));
        self.l(&format!("shl.32b %{p}m, %{p}m, %{p}lz"));
        self.l(&format!("isub.32b %{p}e, %{p}e, %{p}lz"));
    }
    /// The NaN rules on `%r`: the first NaN source quieted, else `%r`.
    pub(crate) fn nan_rules(&mut self, srcs: &[&str]) {
        self.l("mov.32b %nanr, 0x7FC00000");
        self.l("mov.32b %anyn, 0");
        for x in srcs.iter().rev() {
            self.l(&format!("and.32b %t, {x}, 0x7FFFFFFF"));
            self.l("ucmp.gt.32b %pn, %t, 0x7F800000");
            self.l(&format!("or.32b %q, {x}, 0x400000"));
            self.l("sel.32b %nanr, %q, %nanr, %pn");
            self.l("sel.32b %anyn, 1, %anyn, %pn");
        }
        self.l("ucmp.ne.32b %pn, %anyn, 0");
        self.l("sel.32b %r, %nanr, %r, %pn");
    }
    /// `.dsat` ([0, 1], NaN → +0, −0 kept), then `.ftz` of the result, and
    /// the return.
    pub(crate) fn finish(mut self) -> String {
        self.c(".dsat: [0, 1], NaN and negatives +0, -0 kept");
        self.l("ucmp.gt.32b %p, %r, 0x3F800000");
        self.l("sel.32b %t, 0x3F800000, %r, %p");
        self.l("ucmp.gt.32b %p, %r, 0x7F800000");
        self.l("sel.32b %t, 0, %t, %p");
        self.l("ucmp.eq.32b %p, %r, 0x80000000");
        self.l("sel.32b %t, %r, %t, %p");
        self.l("sel.32b %r, %t, %r, %dsat");
        self.flush("%r");
        self.l("return %r");
        self.0.push_str("}\n\n");
        self.0
    }
}

/// The integer cores (this library's).
pub(crate) struct Integer;

impl Cores for Integer {
    fn functions(&self) -> String {
        ADDCORE.to_string()
    }
    fn regs(&self) -> Vec<String> {
        vec![
            ".reg .32b %ea, %eb, %ep, %ec, %e, %sh, %odd".into(),
            ".reg .64b %wa, %wb, %pm, %wc, %top, %n, %d, %quo, %back, %st".into(),
            ".reg .64b %m, %res, %tr, %mt, %rb".into(),
            ".pred %inexact, %ge".into(),
        ]
    }
    /// A sum of two finite nonzero values through `addcore` with both
    /// significands at bit 62 (39 zero low bits).
    fn add(&self, f: &mut F) {
        f.l("zext.64b.32b %wa, %am");
        f.l("shl.64b %wa, %wa, 39");
        f.l("isub.32b %ea, %ae, 39");
        f.l("zext.64b.32b %wb, %bm");
        f.l("shl.64b %wb, %wb, 39");
        f.l("isub.32b %eb, %be, 39");
        f.l("call %r, @__pisa_xf_addcore(%as, %ea, %wa, %bs, %eb, %wb, %rmode)");
    }
    /// The exact 48-bit product of the significands, rounded once.
    fn mul(&self, f: &mut F) {
        f.l("umul.full.32b %pm, %am, %bm");
        f.l("iadd.32b %e, %ae, %be");
        f.l("call %r, @__pisa_xf_round(%ps, %e, %pm, %rmode)");
    }
    /// The exact product (48 bits, at bit 62 with 15 zero low bits or
    /// more) and the addend through `addcore`, one rounding. A zero addend
    /// gets an exponent far below, so that it adds nothing exactly.
    fn fma(&self, f: &mut F) {
        f.l("umul.full.32b %pm, %am, %bm");
        f.c("the product in [2^46, 2^48): its top bit to 62");
        f.l("shr.64b %top, %pm, 47");
        f.l("trunc.32b.64b %sh, %top");
        f.l("mov.32b %t, 16");
        f.l("isub.32b %sh, %t, %sh");
        f.l("shl.64b %pm, %pm, %sh");
        f.l("iadd.32b %ep, %ae, %be");
        f.l("isub.32b %ep, %ep, %sh");
        f.l("zext.64b.32b %wc, %cm");
        f.l("shl.64b %wc, %wc, 39");
        f.l("isub.32b %ec, %ce, 39");
        f.l("sel.32b %ec, -100000, %ec, %czero");
        f.l("call %r, @__pisa_xf_addcore(%ps, %ep, %pm, %cs, %ec, %wc, %rmode)");
    }
    /// The significands' quotient `(ma · 2^40) / mb` in 64-bit integers,
    /// in (2^39, 2^41), with its remainder as the sticky bit (rounded to
    /// odd: 40 bits or more).
    fn div(&self, f: &mut F) {
        f.l("zext.64b.32b %n, %am");
        f.l("shl.64b %n, %n, 40");
        f.l("zext.64b.32b %d, %bm");
        f.c("a zero divisor (its result is chosen below) divides by 1");
        f.l("sel.64b %d, 1, %d, %bzero");
        f.l("udiv.quo.64b %quo, %n, %d");
        f.l("umul.64b %back, %quo, %d");
        f.l("ucmp.ne.64b %inexact, %back, %n");
        f.l("sel.64b %st, 1, 0, %inexact");
        f.l("or.64b %quo, %quo, %st");
        f.l("sel.64b %quo, 1, %quo, %azero");
        f.l("isub.32b %e, %ae, %be");
        f.l("isub.32b %e, %e, 40");
        f.l("call %r, @__pisa_xf_round(%qs, %e, %quo, %rmode)");
    }
    /// The significand (with an even exponent) placed at bits 60/61, its
    /// integer square root (31 bits or more) by the digit-by-digit method
    /// in 31 fixed steps, unrolled, the remainder as the sticky bit.
    fn sqrt(&self, f: &mut F) {
        f.c("an even exponent: m in [2^23, 2^25), times 2^36");
        f.l("and.32b %odd, %ae, 1");
        f.l("shl.32b %am, %am, %odd");
        f.l("isub.32b %ae, %ae, %odd");
        f.l("zext.64b.32b %m, %am");
        f.l("shl.64b %m, %m, 36");
        f.l("isub.32b %e, %ae, 36");
        f.l("asr.32b %e, %e, 1");
        f.l("mov.64b %res, 0");
        f.c("31 steps, unrolled (no loop: drivers that cap loop trips count none here)");
        for k in 0..31 {
            let bit = 0x1000_0000_0000_0000u64 >> (2 * k);
            f.l(&format!("iadd.64b %tr, %res, {bit:#X}"));
            f.l("ucmp.ge.64b %ge, %m, %tr");
            f.l("isub.64b %mt, %m, %tr");
            f.l("sel.64b %m, %mt, %m, %ge");
            f.l("shr.64b %res, %res, 1");
            f.l(&format!("iadd.64b %rb, %res, {bit:#X}"));
            f.l("sel.64b %res, %rb, %res, %ge");
        }
        f.l("ucmp.ne.64b %p, %m, 0");
        f.l("sel.64b %st, 1, 0, %p");
        f.l("or.64b %res, %res, %st");
        f.l("sel.64b %res, 1, %res, %azero");
        f.l("mov.32b %t, 0");
        f.l("call %r, @__pisa_xf_round(%t, %e, %res, %rmode)");
    }
}

/// The declarations of an operation: its own, the cores' and `a`…'s.
fn op_regs(cores: &dyn Cores, names: &[&str], own: &[&str]) -> Vec<String> {
    let mut regs: Vec<String> = Vec::new();
    for n in names {
        regs.extend(F::decls(n));
    }
    regs.extend(own.iter().map(|s| s.to_string()));
    regs.extend(cores.regs());
    regs
}

/// `fadd`/`fsub` (flag 64: subtract). Zeros and infinities by IEEE 754;
/// a sum of two finite nonzero values by the core.
fn add(cores: &dyn Cores) -> String {
    let regs = op_regs(cores, &["a", "b"], &[".reg .32b %a, %b, %bn, %zs"]);
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_add(.reg .32b %a0, .reg .32b %b0, .reg .32b %flags)",
        &regs,
    );
    f.l("mov.32b %a, %a0");
    f.l("mov.32b %b, %b0");
    f.flush("%a");
    f.flush("%b");
    f.c("fsub: the negated subtrahend (the NaN rules read the source)");
    f.l("and.32b %t, %flags, 64");
    f.l("shl.32b %t, %t, 25");
    f.l("xor.32b %bn, %b, %t");
    f.classify("%a", "a");
    f.classify("%bn", "b");
    f.unpack("%a", "a");
    f.unpack("%bn", "b");
    cores.add(&mut f);
    f.c("one zero: the other operand; two: their sign if they agree, else +0 (-0 rounding down)");
    f.l("sel.32b %r, %a, %r, %bzero");
    f.l("sel.32b %r, %bn, %r, %azero");
    f.l("ucmp.eq.32b %p, %mode, 3");
    f.l("sel.32b %zs, 0x80000000, 0, %p");
    f.l("ucmp.eq.32b %p, %as, %bs");
    f.l("sel.32b %zs, %a, %zs, %p");
    f.l("sel.32b %t, %zs, %r, %bzero");
    f.l("sel.32b %r, %t, %r, %azero");
    f.c("infinities: inf - inf is the default NaN");
    f.l("sel.32b %r, %bn, %r, %binf");
    f.l("sel.32b %r, %a, %r, %ainf");
    f.l("ucmp.ne.32b %p, %as, %bs");
    f.l("sel.32b %t, 0x7FC00000, %r, %p");
    f.l("sel.32b %t, %t, %r, %binf");
    f.l("sel.32b %r, %t, %r, %ainf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// `fmul`: the core's product.
fn mul(cores: &dyn Cores) -> String {
    let regs = op_regs(cores, &["a", "b"], &[".reg .32b %a, %b, %ps, %zi"]);
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_mul(.reg .32b %a0, .reg .32b %b0, .reg .32b %flags)",
        &regs,
    );
    f.operands(&["a", "b"]);
    f.l("xor.32b %ps, %as, %bs");
    cores.mul(&mut f);
    f.c("a zero or infinite factor: a signed zero or infinity; 0 * inf the default NaN");
    f.l("or.32b %zi, %ps, 0x7F800000");
    f.l("sel.32b %r, %ps, %r, %azero");
    f.l("sel.32b %r, %ps, %r, %bzero");
    f.l("sel.32b %t, 0x7FC00000, %zi, %bzero");
    f.l("sel.32b %r, %t, %r, %ainf");
    f.l("sel.32b %t, 0x7FC00000, %zi, %azero");
    f.l("sel.32b %r, %t, %r, %binf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// `fmad`: the core's `a·b + c`, one rounding.
fn fma(cores: &dyn Cores) -> String {
    let regs = op_regs(
        cores,
        &["a", "b", "c"],
        &[
            ".reg .32b %a, %b, %c, %ps, %zs, %pi",
            ".pred %pzero, %pinf, %bad",
        ],
    );
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_fma(.reg .32b %a0, .reg .32b %b0, .reg .32b %c0, .reg .32b %flags)",
        &regs,
    );
    f.operands(&["a", "b", "c"]);
    f.l("xor.32b %ps, %as, %bs");
    cores.fma(&mut f);
    f.c("a zero product: the addend, or a zero sum of zeros");
    f.l("sel.32b %t, 1, 0, %azero");
    f.l("sel.32b %t, 1, %t, %bzero");
    f.l("ucmp.ne.32b %pzero, %t, 0");
    f.l("ucmp.eq.32b %p, %mode, 3");
    f.l("sel.32b %zs, 0x80000000, 0, %p");
    f.l("ucmp.eq.32b %p, %ps, %cs");
    f.l("sel.32b %zs, %c, %zs, %p");
    f.l("sel.32b %t, %zs, %c, %czero");
    f.l("sel.32b %r, %t, %r, %pzero");
    f.c("infinities: 0 * inf, and inf - inf, the default NaN");
    f.l("sel.32b %t, 1, 0, %ainf");
    f.l("sel.32b %t, 1, %t, %binf");
    f.l("ucmp.ne.32b %pinf, %t, 0");
    f.l("sel.32b %r, %c, %r, %cinf");
    f.l("or.32b %pi, %ps, 0x7F800000");
    f.l("ucmp.ne.32b %p, %ps, %cs");
    f.l("sel.32b %t, 0x7FC00000, %pi, %p");
    f.l("sel.32b %t, %t, %pi, %cinf");
    f.l("sel.32b %t, 0x7FC00000, %t, %pzero");
    f.l("sel.32b %r, %t, %r, %pinf");
    f.nan_rules(&["%a", "%b", "%c"]);
    f.finish()
}

/// `fdiv` (and `frcp` as 1 / a): the core's quotient.
fn div(cores: &dyn Cores) -> String {
    let regs = op_regs(cores, &["a", "b"], &[".reg .32b %a, %b, %qs, %zi"]);
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_div(.reg .32b %a0, .reg .32b %b0, .reg .32b %flags)",
        &regs,
    );
    f.operands(&["a", "b"]);
    f.l("xor.32b %qs, %as, %bs");
    cores.div(&mut f);
    f.c("zeros and infinities: 0/0 and inf/inf the default NaN");
    f.l("or.32b %zi, %qs, 0x7F800000");
    f.l("sel.32b %r, %zi, %r, %bzero");
    f.l("sel.32b %r, %qs, %r, %binf");
    f.l("sel.32b %t, 0x7FC00000, %qs, %bzero");
    f.l("sel.32b %r, %t, %r, %azero");
    f.l("sel.32b %t, 0x7FC00000, %zi, %binf");
    f.l("sel.32b %r, %t, %r, %ainf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// `fsqrt`: the core's root.
fn sqrt(cores: &dyn Cores) -> String {
    let regs = op_regs(cores, &["a"], &[".reg .32b %a", ".pred %neg"]);
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_sqrt(.reg .32b %a0, .reg .32b %flags)",
        &regs,
    );
    f.operands(&["a"]);
    cores.sqrt(&mut f);
    f.c("+-0 stay, +inf stays, anything else negative is the default NaN");
    f.l("sel.32b %r, %a, %r, %ainf");
    f.l("ucmp.ne.32b %neg, %as, 0");
    f.l("sel.32b %r, 0x7FC00000, %r, %neg");
    f.l("sel.32b %r, %a, %r, %azero");
    f.nan_rules(&["%a"]);
    f.finish()
}

/// `@__pisa_xf_widen(x, fmt)`: the bits `x` of format `fmt` (0 f32, 1 f16,
/// 2 bfloat16) as the f32 encoding of the same value, exactly (a NaN keeps
/// its sign and payload, not quieted). Half subnormals are normal in f32:
/// the top bit `t` of the fraction gives the exponent field `t + 103`.
const WIDEN: &str = "\
.function .32b @__pisa_xf_widen(.reg .32b %x, .reg .32b %fmt)
{
	.reg .32b %s, %e, %f, %n, %sp, %lz, %t, %sh, %sub, %r, %b;
	.pred %ish, %isb, %zero, %den, %spec;
	ucmp.eq.32b %ish, %fmt, 1;
	ucmp.eq.32b %isb, %fmt, 2;
	and.32b %s, %x, 0x8000;
	shl.32b %s, %s, 16;
	shr.32b %e, %x, 10;
	and.32b %e, %e, 0x1F;
	and.32b %f, %x, 0x3FF;
	// normal: the exponent rebased by 127 - 15, the fraction moved up
	iadd.32b %n, %e, 112;
	shl.32b %n, %n, 23;
	shl.32b %t, %f, 13;
	or.32b %n, %n, %t;
	// infinity, NaN
	or.32b %sp, %t, 0x7F800000;
	ucmp.eq.32b %spec, %e, 31;
	sel.32b %n, %sp, %n, %spec;
	// subnormal: f * 2^-24 with its top bit t
	fbh.32b %lz, %f;
	mov.32b %t, 31;
	isub.32b %t, %t, %lz;
	and.32b %t, %t, 31;
	mov.32b %sh, 23;
	isub.32b %sh, %sh, %t;
	and.32b %sh, %sh, 31;
	shl.32b %sub, %f, %sh;
	and.32b %sub, %sub, 0x7FFFFF;
	iadd.32b %r, %t, 103;
	shl.32b %r, %r, 23;
	or.32b %sub, %sub, %r;
	ucmp.eq.32b %zero, %f, 0;
	sel.32b %sub, 0, %sub, %zero;
	ucmp.eq.32b %den, %e, 0;
	sel.32b %n, %sub, %n, %den;
	or.32b %n, %n, %s;
	shl.32b %b, %x, 16;
	sel.32b %r, %n, %x, %ish;
	sel.32b %r, %b, %r, %isb;
	return %r;
}

";

/// `@__pisa_xf_cvt(x, flags)`: `ftrunc` of the f32 bits `x` into the
/// format of flags bits 8-9, in the flags' rounding mode: a subnormal
/// source is the zero of its sign (15 §4.8; not with flag 128, which the
/// 16-bit entry points use to narrow their exact results), a NaN keeps its
/// sign and the top of its payload and is quieted, `.dsat` (32) makes an
/// infinity the largest finite value of its sign, `.ftz` (16) flushes a
/// subnormal result. Returns the bits of the format.
fn cvt() -> String {
    let mut regs: Vec<String> = Vec::new();
    regs.extend(F::decls("a"));
    regs.push(".reg .32b %a, %fmt, %ssh, %sg, %infb, %qb, %fsh, %nanb, %keep, %em".into());
    regs.push(".reg .64b %sig".into());
    regs.push(".pred %kp, %ish, %isb, %is16, %isinf".into());
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let mut f = F::new(
        ".function .32b @__pisa_xf_cvt(.reg .32b %a0, .reg .32b %flags)",
        &regs,
    );
    f.l("shr.32b %fmt, %flags, 8");
    f.l("and.32b %fmt, %fmt, 3");
    f.l("ucmp.eq.32b %ish, %fmt, 1");
    f.l("ucmp.eq.32b %isb, %fmt, 2");
    f.l("ucmp.ne.32b %is16, %fmt, 0");
    f.l("sel.32b %ssh, 16, 0, %is16");
    f.l("sel.32b %infb, 0x7C00, 0x7F800000, %ish");
    f.l("sel.32b %infb, 0x7F80, %infb, %isb");
    f.l("sel.32b %qb, 0x200, 0x400000, %ish");
    f.l("sel.32b %qb, 0x40, %qb, %isb");
    f.l("sel.32b %fsh, 13, 0, %ish");
    f.l("sel.32b %fsh, 16, %fsh, %isb");
    f.l("mov.32b %a, %a0");
    f.c("a subnormal source: the zero of its sign (unless flag 128)");
    f.l("and.32b %keep, %flags, 128");
    f.l("ucmp.eq.32b %kp, %keep, 0");
    f.l("and.32b %fe, %a, 0x7F800000");
    f.l("ucmp.eq.32b %fp, %fe, 0");
    f.l("and.32b %fz, %a, 0x80000000");
    f.l("sel.32b %fz, %fz, %a, %fp");
    f.l("sel.32b %a, %fz, %a, %kp");
    f.flush("%a");
    f.classify("%a", "a");
    f.unpack("%a", "a");
    f.l("zext.64b.32b %sig, %am");
    f.l("call %r, @__pisa_xf_roundf(%as, %ae, %sig, %rmode)");
    f.c("zeros, infinities, NaNs (sign, top of the payload, quiet bit)");
    f.l("shr.32b %sg, %as, %ssh");
    f.l("sel.32b %r, %sg, %r, %azero");
    f.l("or.32b %t, %sg, %infb");
    f.l("sel.32b %r, %t, %r, %ainf");
    f.l("and.32b %nanb, %aabs, 0x7FFFFF");
    f.l("shr.32b %nanb, %nanb, %fsh");
    f.l("or.32b %nanb, %nanb, %t");
    f.l("or.32b %nanb, %nanb, %qb");
    f.l("sel.32b %r, %nanb, %r, %anan");
    f.c(".dsat: an infinity is the largest finite value of its sign");
    f.l("xor.32b %t, %r, %sg");
    f.l("ucmp.eq.32b %isinf, %t, %infb");
    f.l("isub.32b %t, %r, 1");
    f.l("sel.32b %t, %t, %r, %isinf");
    f.l("sel.32b %r, %t, %r, %dsat");
    f.c(".ftz: a subnormal result is the zero of its sign");
    f.l("and.32b %em, %infb, %r");
    f.l("ucmp.eq.32b %p, %em, 0");
    f.l("sel.32b %t, %sg, %r, %p");
    f.l("sel.32b %r, %t, %r, %ftz");
    f.l("return %r");
    f.0.push_str("}\n\n");
    f.0
}

/// `@__pisa_xf_i2f(v, flags)`: the integer `v` (sign-extended when flag
/// 128 says it is signed) rounded once into the format of flags bits 8-9
/// in the flags' mode; `.dsat` (32) makes an infinity the largest finite
/// value of its sign. Returns the bits of the format.
const I2F: &str = "\
.function .32b @__pisa_xf_i2f(.reg .64b %v, .reg .32b %flags)
{
	.reg .64b %neg, %mag;
	.reg .32b %s, %sg, %r, %mode, %fmt, %infb, %t, %sgn, %zexp;
	.pred %signed, %isneg, %zero, %ish, %isb, %is16, %dsat, %p;
	and.32b %mode, %flags, 0x307;
	shr.32b %fmt, %flags, 8;
	and.32b %fmt, %fmt, 3;
	ucmp.eq.32b %ish, %fmt, 1;
	ucmp.eq.32b %isb, %fmt, 2;
	ucmp.ne.32b %is16, %fmt, 0;
	sel.32b %infb, 0x7C00, 0x7F800000, %ish;
	sel.32b %infb, 0x7F80, %infb, %isb;
	and.32b %t, %flags, 128;
	ucmp.ne.32b %signed, %t, 0;
	and.32b %t, %flags, 32;
	ucmp.ne.32b %dsat, %t, 0;
	shr.64b %neg, %v, 63;
	trunc.32b.64b %t, %neg;
	sel.32b %t, %t, 0, %signed;
	ucmp.ne.32b %isneg, %t, 0;
	mov.64b %neg, 0;
	isub.64b %neg, %neg, %v;
	sel.64b %mag, %neg, %v, %isneg;
	sel.32b %s, 0x80000000, 0, %isneg;
	ucmp.eq.64b %zero, %mag, 0;
	sel.64b %mag, 1, %mag, %zero;
	mov.32b %zexp, 0;
	call %r, @__pisa_xf_roundf(%s, %zexp, %mag, %mode);
	sel.32b %r, 0, %r, %zero;
	// .dsat: an infinity is the largest finite value of its sign
	sel.32b %sgn, 0x8000, 0x80000000, %is16;
	and.32b %sg, %r, %sgn;
	xor.32b %t, %r, %sg;
	ucmp.eq.32b %p, %t, %infb;
	isub.32b %t, %r, 1;
	sel.32b %t, %t, %r, %p;
	sel.32b %r, %t, %r, %dsat;
	return %r;
}

";

/// `@__pisa_xf_frc(a, flags)`: `frc` (13 §2.12), `a − round(a, .rd)` with
/// the subtraction rounded down too (".rd rounding mode is always
/// applied"), so the result lies in [0, 1): −2^-30 gives 1 − 2^-24, not
/// 1.0. The source is flushed first under `.ftz` (16; `frnd` of a negative
/// subnormal would be −1); `frnd.rd` is exact (Vulkan's `Floor`), the
/// subtraction `@__pisa_xf_add` in `.rd` (which flushes the result under
/// `.ftz` and applies the NaN rules: a NaN gives itself quieted, ±inf the
/// default NaN); integral values and ±0 give +0 (`x − x` is −0 in `.rd`).
const FRC: &str = "\
.function .32b @__pisa_xf_frc(.reg .32b %a0, .reg .32b %flags)
{
	.reg .32b %a, %t, %s, %r, %f;
	.pred %den, %ftz, %zero;
	and.32b %f, %flags, 16;
	ucmp.ne.32b %ftz, %f, 0;
	and.32b %t, %a0, 0x7F800000;
	ucmp.eq.32b %den, %t, 0;
	and.32b %s, %a0, 0x80000000;
	sel.32b %s, %s, %a0, %den;
	sel.32b %a, %s, %a0, %ftz;
	frnd.rd.f %t, %a;
	// .rd (3) and subtract (64), the caller's .ftz
	or.32b %f, %f, 67;
	call %r, @__pisa_xf_add(%a, %t, %f);
	and.32b %s, %r, 0x7FFFFFFF;
	ucmp.eq.32b %zero, %s, 0;
	sel.32b %r, 0, %r, %zero;
	return %r;
}

";

/// The operations with 16-bit entry points: the f32 function's name
/// suffix and its number of sources.
pub const HALF_OPS: &[(&str, usize)] = &[
    ("add", 2),
    ("mul", 2),
    ("fma", 3),
    ("div", 2),
    ("rcp", 1),
    ("sqrt", 1),
];

/// The source names of an entry point with `n` sources.
const SRC: [&str; 3] = ["a", "b", "c"];

/// The prologue of a 16-bit entry point: the format (flags bits 8-9), its
/// exponent mask for `.ftz`, and the `.ftz` predicate.
fn half_prologue(o: &mut String) {
    let _ = writeln!(o, "\t.reg .32b %fmt, %em, %sg, %fl, %cf, %t, %r;");
    let _ = writeln!(o, "\t.pred %ftz, %p;");
    let _ = writeln!(o, "\tshr.32b %fmt, %flags, 8;");
    let _ = writeln!(o, "\tand.32b %fmt, %fmt, 3;");
    let _ = writeln!(o, "\tucmp.eq.32b %p, %fmt, 1;");
    let _ = writeln!(o, "\tsel.32b %em, 0x7C00, 0x7F80, %p;");
    let _ = writeln!(o, "\tand.32b %fl, %flags, 16;");
    let _ = writeln!(o, "\tucmp.ne.32b %ftz, %fl, 0;");
}

/// `.ftz` of the 16-bit bits in register `x` (a .32b register).
fn flush16(o: &mut String, x: &str) {
    let _ = writeln!(o, "\tand.32b %t, {x}, %em;");
    let _ = writeln!(o, "\tucmp.eq.32b %p, %t, 0;");
    let _ = writeln!(o, "\tand.32b %sg, {x}, 0x8000;");
    let _ = writeln!(o, "\tsel.32b %sg, %sg, {x}, %p;");
    let _ = writeln!(o, "\tsel.32b {x}, %sg, {x}, %ftz;");
}

/// The 16-bit sources `%N0` as f32 bits in `%N`: flushed in their own
/// format under `.ftz`, then widened exactly.
fn half_sources(o: &mut String, n: usize) {
    for s in &SRC[..n] {
        let _ = writeln!(o, "\tzext.32b.16b %{s}, %{s}0;");
        flush16(o, &format!("%{s}"));
        let _ = writeln!(o, "\tcall %{s}, @__pisa_xf_widen(%{s}, %fmt);");
    }
}

/// `@__pisa_xh_rn_OP(a, b, flags)` (`OP` `add`, with flag 64 `fsub`, or
/// `mul`) to nearest on `.hf`/`.bf`, and its packed `@__pisa_xh2_rn_OP`:
/// the sources flushed under `.ftz` and widened exactly, the device's f32
/// `fadd`/`fmul` (correctly rounded to nearest in Vulkan; with 24 bits
/// against 11 or 8 the double rounding is innocuous for them, p' ≥ 2p + 2),
/// the float core's NaN rules on the f32 encodings (the widening keeps
/// payloads), one integer rounding into the format (`@__pisa_xf_cvt`, flag
/// 128: subnormals kept), `.dsat` on the 16-bit result (NaNs and negative
/// values but −0 give +0, values above 1 give 1), `.ftz`. Much shorter
/// than the exact cores of `@__pisa_xh_add`.
fn rn_entry(o: &mut String, op: &str) {
    let _ = writeln!(
        o,
        ".function .16b @__pisa_xh_rn_{op}(.reg .16b %a0, .reg .16b %b0, .reg .32b %flags)\n{{"
    );
    half_prologue(o);
    let _ = writeln!(o, "\t.reg .32b %a, %b, %q, %c, %one;");
    let _ = writeln!(o, "\t.pred %nan, %ish, %big;");
    let _ = writeln!(o, "\t.reg .16b %y;");
    half_sources(o, 2);
    if op == "add" {
        let _ = writeln!(o, "\tand.32b %t, %flags, 64;");
        let _ = writeln!(o, "\tucmp.ne.32b %p, %t, 0;");
        let _ = writeln!(o, "\txor.32b %q, %b, 0x80000000;");
        let _ = writeln!(o, "\tsel.32b %q, %q, %b, %p;");
        let _ = writeln!(o, "\tfadd.f %r, %a, %q;");
    } else {
        let _ = writeln!(o, "\tfmul.f %r, %a, %b;");
    }
    let _ = writeln!(
        o,
        "\t// NaN rules: the first NaN source quieted, else the default NaN"
    );
    let _ = writeln!(o, "\tand.32b %t, %r, 0x7FFFFFFF;");
    let _ = writeln!(o, "\tucmp.gt.32b %nan, %t, 0x7F800000;");
    let _ = writeln!(o, "\tsel.32b %r, 0x7FC00000, %r, %nan;");
    for s in ["%b", "%a"] {
        let _ = writeln!(o, "\tand.32b %t, {s}, 0x7FFFFFFF;");
        let _ = writeln!(o, "\tucmp.gt.32b %nan, %t, 0x7F800000;");
        let _ = writeln!(o, "\tor.32b %q, {s}, 0x400000;");
        let _ = writeln!(o, "\tsel.32b %r, %q, %r, %nan;");
    }
    let _ = writeln!(o, "\tand.32b %cf, %flags, 0x300;");
    let _ = writeln!(o, "\tor.32b %cf, %cf, 128;");
    let _ = writeln!(o, "\tcall %r, @__pisa_xf_cvt(%r, %cf);");
    let _ = writeln!(o, "\t// .dsat on the 16-bit result");
    let _ = writeln!(o, "\tucmp.eq.32b %ish, %fmt, 1;");
    let _ = writeln!(o, "\tsel.32b %one, 0x3C00, 0x3F80, %ish;");
    let _ = writeln!(o, "\tucmp.gt.32b %big, %r, 0x8000;");
    let _ = writeln!(o, "\tsel.32b %c, 0, %r, %big;");
    let _ = writeln!(o, "\t// (−0 is left: compare magnitudes)");
    let _ = writeln!(o, "\tand.32b %q, %c, 0x7FFF;");
    let _ = writeln!(o, "\tucmp.gt.32b %big, %q, %one;");
    let _ = writeln!(o, "\tsel.32b %c, %one, %c, %big;");
    let _ = writeln!(o, "\tucmp.gt.32b %big, %q, %em;");
    let _ = writeln!(o, "\tsel.32b %c, 0, %c, %big;");
    let _ = writeln!(o, "\tand.32b %t, %flags, 32;");
    let _ = writeln!(o, "\tucmp.ne.32b %p, %t, 0;");
    let _ = writeln!(o, "\tsel.32b %r, %c, %r, %p;");
    flush16(o, "%r");
    let _ = writeln!(o, "\ttrunc.16b.32b %y, %r;");
    let _ = writeln!(o, "\treturn %y;\n}}\n");
    let _ = writeln!(
        o,
        ".function .v2.16b @__pisa_xh2_rn_{op}(.reg .v2.16b %a0, .reg .v2.16b %b0, .reg .32b %flags)\n{{\n\t.reg .16b %al, %ah, %bl, %bh, %yl, %yh;\n\t.reg .v2.16b %y;\n\tmov.16b %al, %a0.x;\n\tmov.16b %ah, %a0.y;\n\tmov.16b %bl, %b0.x;\n\tmov.16b %bh, %b0.y;\n\tcall %yl, @__pisa_xh_rn_{op}(%al, %bl, %flags);\n\tmov.16b %y.x, %yl;\n\tcall %yh, @__pisa_xh_rn_{op}(%ah, %bh, %flags);\n\tmov.16b %y.y, %yh;\n\treturn %y;\n}}\n"
    );
}

/// `@__pisa_xh_OP(a, …, flags)` on `.hf`/`.bf` (flags bits 8-9 the format):
/// the sources flushed in their format under `.ftz` and widened exactly
/// to f32, the f32 function (which rounds into the format, flags bits 8-9,
/// and applies `.dsat` to the value) without its `.ftz`, the exact result
/// narrowed back and flushed in the format; and `@__pisa_xh2_OP` on packed
/// pairs, the scalar entry point once per lane.
fn half_entries() -> String {
    let mut o = String::new();
    for &(op, n) in HALF_OPS {
        let params: Vec<String> = SRC[..n]
            .iter()
            .map(|s| format!(".reg .16b %{s}0"))
            .collect();
        let _ = writeln!(
            o,
            ".function .16b @__pisa_xh_{op}({}, .reg .32b %flags)\n{{",
            params.join(", ")
        );
        half_prologue(&mut o);
        let _ = writeln!(
            o,
            "\t.reg .32b {};",
            SRC[..n]
                .iter()
                .map(|s| format!("%{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(o, "\t.reg .16b %y;");
        half_sources(&mut o, n);
        let _ = writeln!(o, "\tand.32b %cf, %flags, 0xFFFFFFEF;");
        let mut args: Vec<String> = SRC[..n].iter().map(|s| format!("%{s}")).collect();
        // frcp: 1 / a (1.0 widened is f32's 1.0 in every format)
        let core = if op == "rcp" {
            let _ = writeln!(o, "\tmov.32b %t, 0x3F800000;");
            args.insert(0, "%t".into());
            "div"
        } else {
            op
        };
        let _ = writeln!(o, "\tcall %r, @__pisa_xf_{core}({}, %cf);", args.join(", "));
        let _ = writeln!(
            o,
            "\t// the result is exact in the format: narrowed, subnormals kept"
        );
        let _ = writeln!(o, "\tand.32b %cf, %flags, 0x300;");
        let _ = writeln!(o, "\tor.32b %cf, %cf, 128;");
        let _ = writeln!(o, "\tcall %r, @__pisa_xf_cvt(%r, %cf);");
        flush16(&mut o, "%r");
        let _ = writeln!(o, "\ttrunc.16b.32b %y, %r;");
        let _ = writeln!(o, "\treturn %y;\n}}\n");
        // packed
        let params: Vec<String> = SRC[..n]
            .iter()
            .map(|s| format!(".reg .v2.16b %{s}0"))
            .collect();
        let _ = writeln!(
            o,
            ".function .v2.16b @__pisa_xh2_{op}({}, .reg .32b %flags)\n{{",
            params.join(", ")
        );
        let lanes: Vec<String> = SRC[..n]
            .iter()
            .flat_map(|s| [format!("%{s}l"), format!("%{s}h")])
            .collect();
        let _ = writeln!(o, "\t.reg .16b {}, %yl, %yh;", lanes.join(", "));
        let _ = writeln!(o, "\t.reg .v2.16b %y;");
        for s in &SRC[..n] {
            let _ = writeln!(o, "\tmov.16b %{s}l, %{s}0.x;");
            let _ = writeln!(o, "\tmov.16b %{s}h, %{s}0.y;");
        }
        for (half, lane) in [("l", "x"), ("h", "y")] {
            let args: Vec<String> = SRC[..n].iter().map(|s| format!("%{s}{half}")).collect();
            let _ = writeln!(
                o,
                "\tcall %y{half}, @__pisa_xh_{op}({}, %flags);",
                args.join(", ")
            );
            let _ = writeln!(o, "\tmov.16b %y.{lane}, %y{half};");
        }
        let _ = writeln!(o, "\treturn %y;\n}}\n");
    }
    for op in ["add", "mul"] {
        rn_entry(&mut o, op);
    }
    o.push_str(&super::round16::functions());
    // fmul.full: 16-bit sources, an f32 product
    let _ = writeln!(
        o,
        ".function .32b @__pisa_xh_mulfull(.reg .16b %a0, .reg .16b %b0, .reg .32b %flags)\n{{"
    );
    half_prologue(&mut o);
    let _ = writeln!(o, "\t.reg .32b %a, %b;");
    half_sources(&mut o, 2);
    let _ = writeln!(o, "\tand.32b %cf, %flags, 0xFFFFFCFF;");
    let _ = writeln!(o, "\tcall %r, @__pisa_xf_mul(%a, %b, %cf);");
    let _ = writeln!(o, "\treturn %r;\n}}\n");
    // ftrunc into a 16-bit format, ftrunc2
    let _ = writeln!(
        o,
        ".function .16b @__pisa_xh_cvt(.reg .32b %a, .reg .32b %flags)\n{{\n\t.reg .32b %r;\n\t.reg .16b %y;\n\tcall %r, @__pisa_xf_cvt(%a, %flags);\n\ttrunc.16b.32b %y, %r;\n\treturn %y;\n}}\n"
    );
    let _ = writeln!(
        o,
        ".function .v2.16b @__pisa_xh2_cvt(.reg .32b %a, .reg .32b %b, .reg .32b %flags)\n{{\n\t.reg .16b %yl, %yh;\n\t.reg .v2.16b %y;\n\tcall %yl, @__pisa_xh_cvt(%a, %flags);\n\tcall %yh, @__pisa_xh_cvt(%b, %flags);\n\tmov.16b %y.x, %yl;\n\tmov.16b %y.y, %yh;\n\treturn %y;\n}}\n"
    );
    // i2f from every integer width, into f32 (`xf`) or 16 bits (`xh`)
    for bits in [8, 16, 32, 64] {
        for signed in [true, false] {
            let s = if signed { 's' } else { 'u' };
            let ext = crate::ir::bundled::widen_integer_source(bits, signed);
            for (pre, ret) in [("xf", 32), ("xh", 16)] {
                let _ = writeln!(
                    o,
                    ".function .{ret}b @__pisa_{pre}_i2f_{s}{bits}(.reg .{bits}b %v0, .reg .32b %flags)\n{{\n\t.reg .64b %v;\n\t.reg .32b %w, %r;\n\t.reg .16b %y;\n\t{ext};\n\tcall %r, @__pisa_xf_i2f(%v, %flags);"
                );
                if ret == 16 {
                    let _ = writeln!(o, "\ttrunc.16b.32b %y, %r;\n\treturn %y;\n}}\n");
                } else {
                    let _ = writeln!(o, "\treturn %r;\n}}\n");
                }
            }
        }
    }
    o
}
