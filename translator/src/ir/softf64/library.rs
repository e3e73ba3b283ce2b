//! The library's PISA text: the binary64 operations in 32- and 64-bit
//! integer arithmetic (see the module docs of [`super`] for the method and
//! the proof sketch). Written here from small templates so that every
//! operation classifies, flushes, applies the NaN rules and finishes its
//! result the same way.
//!
//! Register names follow one rule, so that each function's declarations
//! are derived from its text ([`F::finish`]): a name starting with `p` is a
//! predicate, one starting with `i` a 32-bit register, any other a 64-bit
//! register.
//!
//! Functions (the arithmetic ones return the result's f64 bits):
//!
//! - `@__pisa_sd_round(sign, exp, sig, mode)`: `(-1)^sign · sig · 2^exp`
//!   (`sig` a nonzero u64, `sign` 0 or 2^63) rounded once into f64 in
//!   `mode`, subnormals and overflow included;
//! - `@__pisa_sd_addcore(sa, ea, a, sb, eb, b, mode)`: the rounded sum of
//!   two terms whose significands have their top bit at bit 62;
//! - `@__pisa_sd_add(a, b, flags)`, `@__pisa_sd_mul`, `@__pisa_sd_div`,
//!   `@__pisa_sd_fma(a, b, c, flags)`, `@__pisa_sd_sqrt(a, flags)`,
//!   `@__pisa_sd_rsqrt(a, flags)` (`frsqrt.fast`),
//!   `@__pisa_sd_minmax(a, b, flags)`, `@__pisa_sd_abs(a, flags)`,
//!   `@__pisa_sd_neg(a, flags)`: the instructions, with `flags` as
//!   [`super::flags`] encodes them;
//! - `@__pisa_sd_cmp(a, b, flags)`: `fcmp` as a 32-bit mask (all ones or
//!   zero), the comparison in bits 0–2 of `flags`.

use std::collections::BTreeSet;
use std::fmt::Write;

const ABS: &str = "0x7FFFFFFFFFFFFFFF";
const SIGN: &str = "0x8000000000000000";
const INF: &str = "0x7FF0000000000000";
const MAXF: &str = "0x7FEFFFFFFFFFFFFF";
const QUIET: &str = "0x0008000000000000";
const DNAN: &str = "0x7FF8000000000000";
const ONE: &str = "0x3FF0000000000000";
const FRAC: &str = "0x000FFFFFFFFFFFFF";
const HID: &str = "0x0010000000000000";

/// The library's text.
pub fn source() -> String {
    let mut s = String::from(
        "// The binary64 operations without f64 (ir::softf64).\n\
         // Names starting with `__pisa_` are reserved for the bundled libraries.\n\
         .version 0.1;\n.target 100;\n\n",
    );
    s.push_str(&round());
    s.push_str(&addcore());
    s.push_str(&add());
    s.push_str(&mul());
    s.push_str(&fma());
    s.push_str(&div());
    s.push_str(&sqrt());
    s.push_str(&rsqrt());
    s.push_str(&cmp());
    s.push_str(&minmax());
    s.push_str(&abs_neg(false));
    s.push_str(&abs_neg(true));
    s.push_str(&conversions());
    s.push_str(&super::f64core::functions());
    s.push_str(ATOMIC_FORMS);
    s
}

/// The instructions of a `.df` atomic's compare-and-swap loop
/// ([`super::atomics`] takes their forms from here, in this order, and
/// gives them the atomic's operands and ordering); never linked.
const ATOMIC_FORMS: &str = "// the forms of the .df atomics' loop (never linked)
.function .64b @__pisa_sd_atomic_forms(.reg .64b %a, .reg .64b %s)
{
	.reg .64b %o, %g, %z;
	.pred %p;
	mov.64b %z, 0;
	iatom.global.add.64b %o, [%a], %z;
	iatom.global.cas.64b %g, [%a], %o, %s;
	ucmp.eq.64b %p, %g, %o;
	mov.64b %o, %g;
	return %o;
}
";

/// A function's text under construction.
struct F {
    name: String,
    ret: &'static str,
    params: Vec<String>,
    body: String,
}

impl F {
    /// A function `@__pisa_sd_{name}` returning `ret` bits, with
    /// parameters named by the register rule.
    fn new(name: &str, ret: &'static str, params: &[&str]) -> F {
        F {
            name: name.to_string(),
            ret,
            params: params.iter().map(|p| p.to_string()).collect(),
            body: String::new(),
        }
    }
    /// A function of the arithmetic kind: `flags` decoded into `%imode`
    /// and the predicates `%pftz`, `%pdsat`.
    fn arith(name: &str, params: &[&str]) -> F {
        let mut all: Vec<&str> = params.to_vec();
        all.push("iflags");
        let mut f = F::new(name, "64b", &all);
        f.l("and.32b %imode, %iflags, 7");
        f.l("and.32b %ifl, %iflags, 16");
        f.l("ucmp.ne.32b %pftz, %ifl, 0");
        f.l("and.32b %ifl, %iflags, 32");
        f.l("ucmp.ne.32b %pdsat, %ifl, 0");
        f
    }
    fn l(&mut self, line: &str) {
        let _ = writeln!(self.body, "\t{line};");
    }
    fn c(&mut self, comment: &str) {
        let _ = writeln!(self.body, "\t// {comment}");
    }
    /// The text: the header, the declarations of every register the body
    /// names (by the register rule), the body.
    fn text(self) -> String {
        let kind = |n: &str| -> &'static str {
            if n.starts_with('p') {
                ".pred"
            } else if n.starts_with('i') {
                ".reg .32b"
            } else {
                ".reg .64b"
            }
        };
        let mut names = BTreeSet::new();
        let b = self.body.as_bytes();
        let mut k = 0;
        while k < b.len() {
            if b[k] == b'%' {
                let s = k + 1;
                let mut e = s;
                while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
                    e += 1;
                }
                names.insert(self.body[s..e].to_string());
                k = e;
            } else {
                k += 1;
            }
        }
        for p in &self.params {
            names.remove(p);
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                let k = kind(p);
                let k = if k == ".pred" { ".reg .32b" } else { k };
                format!("{k} %{p}")
            })
            .collect();
        let mut s = format!(
            ".function .{} @__pisa_sd_{}({})\n{{\n",
            self.ret,
            self.name,
            params.join(", ")
        );
        for kind_name in [".pred", ".reg .32b", ".reg .64b"] {
            let these: Vec<String> = names
                .iter()
                .filter(|n| kind(n) == kind_name)
                .map(|n| format!("%{n}"))
                .collect();
            if !these.is_empty() {
                let _ = writeln!(s, "\t{kind_name} {};", these.join(", "));
            }
        }
        s.push_str(&self.body);
        s.push_str("}\n\n");
        s
    }

    /// `.ftz`: register `x` becomes the zero of its sign if it is
    /// subnormal, when the flags ask for it.
    fn flush(&mut self, x: &str) {
        self.l(&format!("and.64b %fe, {x}, {INF}"));
        self.l("ucmp.eq.64b %pfe, %fe, 0");
        self.l(&format!("and.64b %fz, {x}, {SIGN}"));
        self.l(&format!("sel.64b %fz, %fz, {x}, %pfe"));
        self.l(&format!("sel.64b {x}, %fz, {x}, %pftz"));
    }
    /// `%{p}abs`, `%{p}s` (the sign bit) and predicates `%p{p}nan`,
    /// `%p{p}inf`, `%p{p}zero` of `x`.
    fn classify(&mut self, x: &str, p: &str) {
        self.l(&format!("and.64b %{p}abs, {x}, {ABS}"));
        self.l(&format!("and.64b %{p}s, {x}, {SIGN}"));
        self.l(&format!("ucmp.gt.64b %p{p}nan, %{p}abs, {INF}"));
        self.l(&format!("ucmp.eq.64b %p{p}inf, %{p}abs, {INF}"));
        self.l(&format!("ucmp.eq.64b %p{p}zero, %{p}abs, 0"));
    }
    /// `%i{dst}`: the leading zeros of 64-bit `src` (garbage below 64 for 0).
    fn lz64(&mut self, dst: &str, src: &str, t: &str) {
        self.l(&format!("shr.64b %z{t}h, {src}, 32"));
        self.l(&format!("trunc.32b.64b %i{t}hi, %z{t}h"));
        self.l(&format!("trunc.32b.64b %i{t}lo, {src}"));
        self.l(&format!("fbh.32b %i{t}zh, %i{t}hi"));
        self.l(&format!("fbh.32b %i{t}zl, %i{t}lo"));
        self.l(&format!("iadd.32b %i{t}zl, %i{t}zl, 32"));
        self.l(&format!("ucmp.eq.32b %p{t}hz, %i{t}hi, 0"));
        self.l(&format!("sel.32b {dst}, %i{t}zl, %i{t}zh, %p{t}hz"));
        self.l(&format!("and.32b {dst}, {dst}, 63"));
    }
    /// A finite nonzero `x` as `%{p}m · 2^%i{p}e`, `%{p}m` with its top
    /// bit at 52 (subnormals normalized). Zero gives `%{p}m` = 0.
    fn unpack(&mut self, x: &str, p: &str) {
        self.l(&format!("and.64b %{p}f, {x}, {FRAC}"));
        self.l(&format!("shr.64b %{p}x, {x}, 52"));
        self.l(&format!("and.64b %{p}x, %{p}x, 0x7FF"));
        self.l(&format!("trunc.32b.64b %i{p}ef, %{p}x"));
        self.l(&format!("ucmp.eq.32b %p{p}sub, %i{p}ef, 0"));
        self.l(&format!("or.64b %{p}m, %{p}f, {HID}"));
        self.l(&format!("sel.64b %{p}m, %{p}f, %{p}m, %p{p}sub"));
        self.l(&format!("sel.32b %i{p}ef, 1, %i{p}ef, %p{p}sub"));
        self.l(&format!("isub.32b %i{p}e, %i{p}ef, 1075"));
        self.lz64(&format!("%i{p}lz"), &format!("%{p}m"), &format!("u{p}"));
        self.l(&format!("isub.32b %i{p}lz, %i{p}lz, 11"));
        self.l(&format!("and.32b %i{p}lz, %i{p}lz, 63"));
        self.l(&format!("shl.64b %{p}m, %{p}m, %i{p}lz"));
        self.l(&format!("isub.32b %i{p}e, %i{p}e, %i{p}lz"));
    }
    /// The operands `%{N}0` of the function, for each name `N`: copied to
    /// `%N`, flushed under `.ftz`, classified and unpacked.
    fn operands(&mut self, names: &[&str]) {
        for n in names {
            self.l(&format!("mov.64b %{n}, %{n}0"));
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
    /// The NaN rules on `%r`: the first NaN source quieted, else `%r`.
    fn nan_rules(&mut self, srcs: &[&str]) {
        self.l(&format!("mov.64b %nanr, {DNAN}"));
        self.l("mov.32b %ianyn, 0");
        for x in srcs.iter().rev() {
            self.l(&format!("and.64b %t, {x}, {ABS}"));
            self.l(&format!("ucmp.gt.64b %pn, %t, {INF}"));
            self.l(&format!("or.64b %q, {x}, {QUIET}"));
            self.l("sel.64b %nanr, %q, %nanr, %pn");
            self.l("sel.32b %ianyn, 1, %ianyn, %pn");
        }
        self.l("ucmp.ne.32b %pn, %ianyn, 0");
        self.l("sel.64b %r, %nanr, %r, %pn");
    }
    /// `.dsat` ([0, 1], NaN → +0, −0 kept), then `.ftz` of the result, and
    /// the return of `%r`.
    fn finish(mut self) -> String {
        self.c(".dsat: [0, 1], NaN and negatives +0, -0 kept");
        self.l(&format!("ucmp.gt.64b %pd, %r, {ONE}"));
        self.l(&format!("sel.64b %t, {ONE}, %r, %pd"));
        self.l(&format!("ucmp.gt.64b %pd, %r, {INF}"));
        self.l("sel.64b %t, 0, %t, %pd");
        self.l(&format!("ucmp.eq.64b %pd, %r, {SIGN}"));
        self.l("sel.64b %t, %r, %t, %pd");
        self.l("sel.64b %r, %t, %r, %pdsat");
        self.flush("%r");
        self.l("return %r");
        self.text()
    }
    /// `%i{dst}` = 1 when `%imode` is `m`, as a predicate `%pm{m}`.
    fn mode_is(&mut self, m: u32) -> String {
        self.l(&format!("ucmp.eq.32b %pm{m}, %imode, {m}"));
        format!("%pm{m}")
    }
    /// The exact 128-bit product `hi:lo` of two 64-bit registers below
    /// 2^64 whose product fits (here, significands below 2^54), from
    /// 32-bit pieces.
    fn mul128(&mut self, a: &str, b: &str, hi: &str, lo: &str, t: &str) {
        self.l(&format!("trunc.32b.64b %i{t}al, {a}"));
        self.l(&format!("shr.64b %{t}x, {a}, 32"));
        self.l(&format!("trunc.32b.64b %i{t}ah, %{t}x"));
        self.l(&format!("trunc.32b.64b %i{t}bl, {b}"));
        self.l(&format!("shr.64b %{t}x, {b}, 32"));
        self.l(&format!("trunc.32b.64b %i{t}bh, %{t}x"));
        self.l(&format!("umul.full.32b %{t}ll, %i{t}al, %i{t}bl"));
        self.l(&format!("umul.full.32b %{t}lh, %i{t}al, %i{t}bh"));
        self.l(&format!("umul.full.32b %{t}hl, %i{t}ah, %i{t}bl"));
        self.l(&format!("umul.full.32b %{t}hh, %i{t}ah, %i{t}bh"));
        self.c("the middle terms are below 2^54 each: their sum does not wrap");
        self.l(&format!("iadd.64b %{t}md, %{t}lh, %{t}hl"));
        self.l(&format!("shl.64b %{t}ms, %{t}md, 32"));
        self.l(&format!("iadd.64b {lo}, %{t}ll, %{t}ms"));
        self.l(&format!("ucmp.lt.64b %p{t}c, {lo}, %{t}ll"));
        self.l(&format!("sel.64b %{t}cy, 1, 0, %p{t}c"));
        self.l(&format!("shr.64b %{t}mh, %{t}md, 32"));
        self.l(&format!("iadd.64b {hi}, %{t}hh, %{t}mh"));
        self.l(&format!("iadd.64b {hi}, {hi}, %{t}cy"));
    }
}

/// Rounds `(-1)^sign · sig · 2^exp` once. `sig` is normalized to bit 63;
/// the bits below the kept significand (53 bits for normal results, fewer
/// for subnormal ones, none beyond 2^-1075) decide the rounding: `rem`
/// against `half`. A significand that rounds up to 2^53 carries into the
/// exponent field by the addition; one that reaches the infinity's
/// encoding, or an exponent beyond 1023, overflows: ±inf, or ±max finite
/// when rounding toward zero from that side.
fn round() -> String {
    let mut f = F::new("round", "64b", &["sign", "iexp", "sig", "imode"]);
    f.lz64("%ilz", "%sig", "s");
    f.l("shl.64b %m, %sig, %ilz");
    f.c("the value is m * 2^(e - 63), m in [2^63, 2^64)");
    f.l("isub.32b %ie, %iexp, %ilz");
    f.l("iadd.32b %ie, %ie, 63");
    f.c("bits dropped: 11, more below 2^-1022");
    f.l("mov.32b %iextra, -1022");
    f.l("isub.32b %iextra, %iextra, %ie");
    f.l("smax.32b %iextra, %iextra, 0");
    f.l("iadd.32b %ish, %iextra, 11");
    f.c("below half the smallest subnormal: only a sticky bit is left");
    f.l("scmp.gt.32b %pfar, %ish, 64");
    f.l("sel.64b %m, 1, %m, %pfar");
    f.l("smin.32b %ish, %ish, 64");
    f.l("ucmp.eq.32b %pfull, %ish, 64");
    f.l("shr.64b %mant, %m, %ish");
    f.l("sel.64b %mant, 0, %mant, %pfull");
    f.l("shl.64b %t, %mant, %ish");
    f.l("isub.64b %rem, %m, %t");
    f.l("isub.32b %ish1, %ish, 1");
    f.l("shl.64b %half, 1, %ish1");
    f.c("the increment of each mode: 0 rn, 1 rz, 2 ru, 3 rd, 4 rna");
    f.l("ucmp.gt.64b %pgt, %rem, %half");
    f.l("ucmp.eq.64b %peq, %rem, %half");
    f.l("ucmp.ne.64b %pnz, %rem, 0");
    f.l("sel.64b %g, 1, 0, %pgt");
    f.l("sel.64b %q, 1, 0, %peq");
    f.l("sel.64b %z, 1, 0, %pnz");
    f.l("and.64b %t1, %mant, 1");
    f.l("and.64b %t1, %t1, %q");
    f.l("or.64b %rn, %g, %t1");
    f.l("or.64b %rna, %g, %q");
    f.l("shr.64b %sneg, %sign, 63");
    f.l("xor.64b %spos, %sneg, 1");
    f.l("and.64b %ru, %z, %spos");
    f.l("and.64b %rd, %z, %sneg");
    f.l("mov.64b %up, %rn");
    let m1 = f.mode_is(1);
    let m2 = f.mode_is(2);
    let m3 = f.mode_is(3);
    let m4 = f.mode_is(4);
    f.l(&format!("sel.64b %up, 0, %up, {m1}"));
    f.l(&format!("sel.64b %up, %ru, %up, {m2}"));
    f.l(&format!("sel.64b %up, %rd, %up, {m3}"));
    f.l(&format!("sel.64b %up, %rna, %up, {m4}"));
    f.l("iadd.64b %mant, %mant, %up");
    f.c("the encoding: the exponent field of max(e, -1022) plus the significand");
    f.c("with its hidden bit (a carry moves the exponent up)");
    f.l("smax.32b %ieb, %ie, -1022");
    f.l("iadd.32b %ieb, %ieb, 1022");
    f.l("smin.32b %ieb, %ieb, 2047");
    f.l("zext.64b.32b %eb, %ieb");
    f.l("shl.64b %bits, %eb, 52");
    f.l("iadd.64b %bits, %bits, %mant");
    f.l("scmp.gt.32b %povf, %ie, 1023");
    f.l(&format!("ucmp.ge.64b %pinf, %bits, {INF}"));
    f.l("sel.32b %iov, 1, 0, %povf");
    f.l("sel.32b %iov, 1, %iov, %pinf");
    f.c("overflow toward zero (.rz, .ru of negatives, .rd of positives): max finite");
    f.l(&format!("sel.64b %tw, 1, 0, {m1}"));
    f.l(&format!("sel.64b %tw, %sneg, %tw, {m2}"));
    f.l(&format!("sel.64b %tw, %spos, %tw, {m3}"));
    f.l("ucmp.ne.64b %ptw, %tw, 0");
    f.l(&format!("sel.64b %r, {MAXF}, {INF}, %ptw"));
    f.l("ucmp.ne.32b %pov, %iov, 0");
    f.l("sel.64b %bits, %r, %bits, %pov");
    f.l("or.64b %bits, %bits, %sign");
    f.l("return %bits");
    f.text()
}

/// The sum of `(-1)^sa · a · 2^ea` and `(-1)^sb · b · 2^eb`, `a` and `b`
/// with their top bit at 62 (so the larger exponent is the larger
/// magnitude; a zero significand adds nothing), rounded once. The smaller
/// term `y` is shifted right by the exponent difference into `yt`, rounded
/// to odd. The larger `x` has 10 zero low bits (53-bit significands), so
/// bits are lost only when the difference exceeds 10: `x ± yt` then keeps
/// its top bit at 61 or above, and with `x` even, `x ± RO(y) = RO(x ± y)`,
/// which rounds like `x ± y` into 53 bits. An exact zero is +0, or −0 when
/// rounding down.
fn addcore() -> String {
    let mut f = F::new(
        "addcore",
        "64b",
        &["sa", "iea", "a", "sb", "ieb", "b", "imode"],
    );
    f.l("scmp.gt.32b %p1, %ieb, %iea");
    f.l("scmp.eq.32b %p2, %ieb, %iea");
    f.l("ucmp.gt.64b %p3, %b, %a");
    f.l("sel.32b %iw1, 1, 0, %p1");
    f.l("sel.32b %iw2, 1, 0, %p2");
    f.l("sel.32b %iw3, 1, 0, %p3");
    f.l("and.32b %iw2, %iw2, %iw3");
    f.l("or.32b %isw, %iw1, %iw2");
    f.l("ucmp.ne.32b %pswap, %isw, 0");
    f.l("sel.64b %x, %b, %a, %pswap");
    f.l("sel.64b %y, %a, %b, %pswap");
    f.l("sel.64b %sx, %sb, %sa, %pswap");
    f.l("sel.64b %sy, %sa, %sb, %pswap");
    f.l("sel.32b %iex, %ieb, %iea, %pswap");
    f.l("sel.32b %iey, %iea, %ieb, %pswap");
    f.l("isub.32b %id, %iex, %iey");
    f.l("umin.32b %id, %id, 63");
    f.l("shr.64b %yt, %y, %id");
    f.l("shl.64b %back, %yt, %id");
    f.l("ucmp.ne.64b %plost, %back, %y");
    f.l("sel.64b %st, 1, 0, %plost");
    f.l("or.64b %yt, %yt, %st");
    f.l("ucmp.eq.64b %psame, %sx, %sy");
    f.l("iadd.64b %sum, %x, %yt");
    f.l("isub.64b %dif, %x, %yt");
    f.l("sel.64b %r, %sum, %dif, %psame");
    f.l("ucmp.eq.64b %pzero, %r, 0");
    f.l("sel.64b %r, 1, %r, %pzero");
    f.l("call %res, @__pisa_sd_round(%sx, %iex, %r, %imode)");
    f.l("ucmp.eq.32b %pdown, %imode, 3");
    f.l(&format!("sel.64b %zs, {SIGN}, 0, %pdown"));
    f.l("sel.64b %res, %zs, %res, %pzero");
    f.l("return %res");
    f.text()
}

/// `fadd`/`fsub` (flag 64: subtract). Zeros and infinities by IEEE 754; a
/// sum of two finite nonzero values through `addcore` with both
/// significands at bit 62.
fn add() -> String {
    let mut f = F::arith("add", &["a0", "b0"]);
    f.l("mov.64b %a, %a0");
    f.l("mov.64b %b, %b0");
    f.flush("%a");
    f.flush("%b");
    f.c("fsub: the negated subtrahend (the NaN rules read the source)");
    f.l("and.32b %it, %iflags, 64");
    f.l("zext.64b.32b %t, %it");
    f.l("shl.64b %t, %t, 57");
    f.l("xor.64b %bn, %b, %t");
    f.classify("%a", "a");
    f.classify("%bn", "b");
    f.unpack("%a", "a");
    f.unpack("%bn", "b");
    f.l("shl.64b %wa, %am, 10");
    f.l("isub.32b %iea, %iae, 10");
    f.l("shl.64b %wb, %bm, 10");
    f.l("isub.32b %ieb, %ibe, 10");
    f.l("call %r, @__pisa_sd_addcore(%as, %iea, %wa, %bs, %ieb, %wb, %imode)");
    f.c("one zero: the other operand; two: their sign if they agree, else +0 (-0 rounding down)");
    f.l("sel.64b %r, %a, %r, %pbzero");
    f.l("sel.64b %r, %bn, %r, %pazero");
    let m3 = f.mode_is(3);
    f.l(&format!("sel.64b %zs, {SIGN}, 0, {m3}"));
    f.l("ucmp.eq.64b %pss, %as, %bs");
    f.l("sel.64b %zs, %a, %zs, %pss");
    f.l("sel.64b %t, %zs, %r, %pbzero");
    f.l("sel.64b %r, %t, %r, %pazero");
    f.c("infinities: inf - inf is the default NaN");
    f.l("sel.64b %r, %bn, %r, %pbinf");
    f.l("sel.64b %r, %a, %r, %painf");
    f.l("ucmp.ne.64b %pds, %as, %bs");
    f.l(&format!("sel.64b %t, {DNAN}, %r, %pds"));
    f.l("sel.64b %t, %t, %r, %pbinf");
    f.l("sel.64b %r, %t, %r, %painf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// `fmul`: the exact 106-bit product of the significands (from 32-bit
/// pieces), its top 64 bits rounded to odd, rounded once.
fn mul() -> String {
    let mut f = F::arith("mul", &["a0", "b0"]);
    f.operands(&["a", "b"]);
    f.l("xor.64b %sgn, %as, %bs");
    f.mul128("%am", "%bm", "%hi", "%lo", "y");
    f.c("the product in [2^104, 2^106): its top 64 bits, the rest as the sticky bit");
    f.l("shl.64b %sig, %hi, 22");
    f.l("shr.64b %t, %lo, 42");
    f.l("or.64b %sig, %sig, %t");
    f.l("shl.64b %t, %lo, 22");
    f.l("ucmp.ne.64b %pst, %t, 0");
    f.l("sel.64b %t, 1, 0, %pst");
    f.l("or.64b %sig, %sig, %t");
    f.l("iadd.32b %ie, %iae, %ibe");
    f.l("iadd.32b %ie, %ie, 42");
    f.l("call %r, @__pisa_sd_round(%sgn, %ie, %sig, %imode)");
    f.c("a zero or infinite factor: a signed zero or infinity; 0 * inf the default NaN");
    f.l(&format!("or.64b %zi, %sgn, {INF}"));
    f.l("sel.64b %r, %sgn, %r, %pazero");
    f.l("sel.64b %r, %sgn, %r, %pbzero");
    f.l(&format!("sel.64b %t, {DNAN}, %zi, %pbzero"));
    f.l("sel.64b %r, %t, %r, %painf");
    f.l(&format!("sel.64b %t, {DNAN}, %zi, %pazero"));
    f.l("sel.64b %r, %t, %r, %pbinf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// `fmad`: the exact product (106 bits, placed with its top bit at 125 of
/// a 128-bit pair) and the addend (its top bit at 125) summed in 128 bits:
/// the smaller shifted right by the exponent difference, rounded to odd
/// (both have 20 zero low bits or more, so bits are lost only when the
/// difference exceeds 20, and then the sum keeps its top bit at 124 or
/// above); the sum normalized into 64 bits, rounded to odd, rounded once.
fn fma() -> String {
    let mut f = F::arith("fma", &["a0", "b0", "c0"]);
    f.operands(&["a", "b", "c"]);
    f.l("xor.64b %sgn, %as, %bs");
    f.mul128("%am", "%bm", "%xh0", "%xl0", "y");
    f.c("the product's top bit (104 or 105) to 125");
    f.l("shr.64b %t, %xh0, 41");
    f.l("trunc.32b.64b %itp, %t");
    f.l("mov.32b %ish, 21");
    f.l("isub.32b %ish, %ish, %itp");
    f.l("mov.32b %iinv, 64");
    f.l("isub.32b %iinv, %iinv, %ish");
    f.l("shl.64b %gh, %xh0, %ish");
    f.l("shr.64b %t, %xl0, %iinv");
    f.l("or.64b %gh, %gh, %t");
    f.l("shl.64b %gl, %xl0, %ish");
    f.l("iadd.32b %iep, %iae, %ibe");
    f.l("isub.32b %iep, %iep, %ish");
    f.c("the addend's top bit (52) to 125; a zero addend is zero bits");
    f.l("shl.64b %ch, %cm, 9");
    f.l("mov.64b %cl, 0");
    f.l("isub.32b %iec, %ice, 73");
    f.l("sel.32b %iec, -100000, %iec, %pczero");
    f.c("x the larger magnitude, y the other");
    f.l("scmp.gt.32b %p1, %iec, %iep");
    f.l("scmp.eq.32b %p2, %iec, %iep");
    f.l("ucmp.gt.64b %p3, %ch, %gh");
    f.l("ucmp.eq.64b %p4, %ch, %gh");
    f.l("ucmp.gt.64b %p5, %cl, %gl");
    f.l("sel.32b %iw, 1, 0, %p5");
    f.l("sel.32b %iw, %iw, 0, %p4");
    f.l("sel.32b %iw, 1, %iw, %p3");
    f.l("sel.32b %iw, %iw, 0, %p2");
    f.l("sel.32b %iw, 1, %iw, %p1");
    f.l("ucmp.ne.32b %pswap, %iw, 0");
    f.l("sel.64b %xh, %ch, %gh, %pswap");
    f.l("sel.64b %xl, %cl, %gl, %pswap");
    f.l("sel.64b %yh, %gh, %ch, %pswap");
    f.l("sel.64b %yl, %gl, %cl, %pswap");
    f.l("sel.64b %sx, %cs, %sgn, %pswap");
    f.l("sel.64b %sy, %sgn, %cs, %pswap");
    f.l("sel.32b %iex, %iec, %iep, %pswap");
    f.l("sel.32b %iey, %iep, %iec, %pswap");
    f.l("isub.32b %id, %iex, %iey");
    f.l("umin.32b %id, %id, 127");
    f.c("y >> d in 128 bits, the bits shifted out ORed into bit 0");
    f.l("and.32b %id1, %id, 63");
    f.l("mov.32b %iv, 64");
    f.l("isub.32b %iv, %iv, %id1");
    f.l("and.32b %iv, %iv, 63");
    f.l("ucmp.eq.32b %pd0, %id1, 0");
    f.l("ucmp.ge.32b %pbig, %id, 64");
    f.l("shr.64b %sl, %yl, %id1");
    f.l("shl.64b %hx, %yh, %iv");
    f.l("sel.64b %hx, 0, %hx, %pd0");
    f.l("or.64b %sl, %sl, %hx");
    f.l("shr.64b %sh, %yh, %id1");
    f.l("shl.64b %lx, %yl, %iv");
    f.l("sel.64b %lx, 0, %lx, %pd0");
    f.l("shr.64b %bl, %yh, %id1");
    f.l("or.64b %bx, %hx, %yl");
    f.l("sel.64b %th, 0, %sh, %pbig");
    f.l("sel.64b %tl, %bl, %sl, %pbig");
    f.l("sel.64b %lost, %bx, %lx, %pbig");
    f.l("ucmp.ne.64b %plost, %lost, 0");
    f.l("sel.64b %st, 1, 0, %plost");
    f.l("or.64b %tl, %tl, %st");
    f.c("x + y or x - y in 128 bits");
    f.l("ucmp.eq.64b %psame, %sx, %sy");
    f.l("iadd.64b %al, %xl, %tl");
    f.l("ucmp.lt.64b %pc, %al, %xl");
    f.l("sel.64b %cy, 1, 0, %pc");
    f.l("iadd.64b %ah, %xh, %th");
    f.l("iadd.64b %ah, %ah, %cy");
    f.l("isub.64b %dl, %xl, %tl");
    f.l("ucmp.lt.64b %pc, %xl, %tl");
    f.l("sel.64b %cy, 1, 0, %pc");
    f.l("isub.64b %dh, %xh, %th");
    f.l("isub.64b %dh, %dh, %cy");
    f.l("sel.64b %rh, %ah, %dh, %psame");
    f.l("sel.64b %rl, %al, %dl, %psame");
    f.l("or.64b %t, %rh, %rl");
    f.l("ucmp.eq.64b %pzs, %t, 0");
    f.c("the top 64 bits of the sum, the rest as the sticky bit");
    f.lz64("%is", "%rh", "n");
    f.l("shl.64b %nh, %rh, %is");
    f.l("mov.32b %iw, 64");
    f.l("isub.32b %iw, %iw, %is");
    f.l("and.32b %iw, %iw, 63");
    f.l("shr.64b %nl, %rl, %iw");
    f.l("ucmp.eq.32b %ps0, %is, 0");
    f.l("sel.64b %nl, 0, %nl, %ps0");
    f.l("or.64b %nh, %nh, %nl");
    f.l("shl.64b %rest, %rl, %is");
    f.l("ucmp.ne.64b %prest, %rest, 0");
    f.l("sel.64b %st, 1, 0, %prest");
    f.l("or.64b %nh, %nh, %st");
    f.l("iadd.32b %ie, %iex, 64");
    f.l("isub.32b %ie, %ie, %is");
    f.l("ucmp.eq.64b %phz, %rh, 0");
    f.l("sel.64b %sig, %rl, %nh, %phz");
    f.l("sel.32b %ie, %iex, %ie, %phz");
    f.l("sel.64b %sig, 1, %sig, %pzs");
    f.l("call %r, @__pisa_sd_round(%sx, %ie, %sig, %imode)");
    let m3 = f.mode_is(3);
    f.l(&format!("sel.64b %zs, {SIGN}, 0, {m3}"));
    f.l("sel.64b %r, %zs, %r, %pzs");
    f.c("a zero product: the addend, or a zero sum of zeros");
    f.l("sel.32b %it, 1, 0, %pazero");
    f.l("sel.32b %it, 1, %it, %pbzero");
    f.l("ucmp.ne.32b %ppz, %it, 0");
    f.l("ucmp.eq.64b %pss, %sgn, %cs");
    f.l("sel.64b %zs, %c, %zs, %pss");
    f.l("sel.64b %t, %zs, %c, %pczero");
    f.l("sel.64b %r, %t, %r, %ppz");
    f.c("infinities: 0 * inf, and inf - inf, the default NaN");
    f.l("sel.32b %it, 1, 0, %painf");
    f.l("sel.32b %it, 1, %it, %pbinf");
    f.l("ucmp.ne.32b %ppinf, %it, 0");
    f.l("sel.64b %r, %c, %r, %pcinf");
    f.l(&format!("or.64b %xinf, %sgn, {INF}"));
    f.l("ucmp.ne.64b %pds, %sgn, %cs");
    f.l(&format!("sel.64b %t, {DNAN}, %xinf, %pds"));
    f.l("sel.64b %t, %t, %xinf, %pcinf");
    f.l(&format!("sel.64b %t, {DNAN}, %t, %ppz"));
    f.l("sel.64b %r, %t, %r, %ppinf");
    f.nan_rules(&["%a", "%b", "%c"]);
    f.finish()
}

/// `fdiv`: the significands' quotient `(ma · 2^55) / mb`, in [2^54, 2^56),
/// by long division in 64-bit integers (an integer digit, then five digits
/// of 11 bits, each a `udiv` of the remainder times 2^11, below 2^64), the
/// last remainder as the sticky bit (rounded to odd: 55 bits or more).
fn div() -> String {
    let mut f = F::arith("div", &["a0", "b0"]);
    f.operands(&["a", "b"]);
    f.l("xor.64b %sgn, %as, %bs");
    f.c("a zero divisor (its result is chosen below) divides by 2^52");
    f.l(&format!("sel.64b %dv, {HID}, %bm, %pbzero"));
    f.l("ucmp.ge.64b %pge, %am, %dv");
    f.l("sel.64b %qt, 1, 0, %pge");
    f.l("sel.64b %t, %dv, 0, %pge");
    f.l("isub.64b %rm, %am, %t");
    for _ in 0..5 {
        f.l("shl.64b %n, %rm, 11");
        f.l("udiv.quo.64b %qd, %n, %dv");
        f.l("umul.64b %t, %qd, %dv");
        f.l("isub.64b %rm, %n, %t");
        f.l("shl.64b %qt, %qt, 11");
        f.l("or.64b %qt, %qt, %qd");
    }
    f.l("ucmp.ne.64b %pst, %rm, 0");
    f.l("sel.64b %t, 1, 0, %pst");
    f.l("or.64b %qt, %qt, %t");
    f.l("sel.64b %qt, 1, %qt, %pazero");
    f.l("isub.32b %ie, %iae, %ibe");
    f.l("isub.32b %ie, %ie, 55");
    f.l("call %r, @__pisa_sd_round(%sgn, %ie, %qt, %imode)");
    f.c("zeros and infinities: 0/0 and inf/inf the default NaN");
    f.l(&format!("or.64b %zi, %sgn, {INF}"));
    f.l("sel.64b %r, %zi, %r, %pbzero");
    f.l("sel.64b %r, %sgn, %r, %pbinf");
    f.l(&format!("sel.64b %t, {DNAN}, %sgn, %pbzero"));
    f.l("sel.64b %r, %t, %r, %pazero");
    f.l(&format!("sel.64b %t, {DNAN}, %zi, %pbinf"));
    f.l("sel.64b %r, %t, %r, %painf");
    f.nan_rules(&["%a", "%b"]);
    f.finish()
}

/// One step of the digit-by-digit square root, after two more radicand
/// bits entered the remainder `%rr`: the trial `4q + 1` subtracted where it
/// fits, the root `%rq` gaining the bit that says whether it did.
fn root_step(f: &mut F) {
    f.l("shl.64b %tt, %rq, 2");
    f.l("or.64b %tt, %tt, 1");
    f.l("ucmp.ge.64b %pge, %rr, %tt");
    f.l("isub.64b %rs, %rr, %tt");
    f.l("sel.64b %rr, %rs, %rr, %pge");
    f.l("shl.64b %rq, %rq, 1");
    f.l("sel.64b %bit, 1, 0, %pge");
    f.l("or.64b %rq, %rq, %bit");
}

/// `fsqrt`: the significand (made below 2^54 with an even exponent) times
/// 2^58, its integer square root (56 bits) by the digit-by-digit method,
/// two radicand bits a step in 56 steps, unrolled (the remainder stays
/// below 2^58), the last remainder as the sticky bit.
fn sqrt() -> String {
    let mut f = F::arith("sqrt", &["a0"]);
    f.operands(&["a"]);
    f.c("an even exponent");
    f.l("and.32b %iodd, %iae, 1");
    f.l("shl.64b %am, %am, %iodd");
    f.l("isub.32b %iae, %iae, %iodd");
    f.l("mov.64b %rq, 0");
    f.l("mov.64b %rr, 0");
    f.c("56 steps, unrolled (no loop: drivers that cap loop trips count none here)");
    for k in 0..56 {
        // the next two radicand bits: bits 53-2k and 52-2k of m, then zeros
        let sh = 52 - 2 * k;
        f.l("shl.64b %rr, %rr, 2");
        if sh >= 0 {
            f.l(&format!("shr.64b %two, %am, {sh}"));
            f.l("and.64b %two, %two, 3");
            f.l("or.64b %rr, %rr, %two");
        }
        root_step(&mut f);
    }
    f.l("ucmp.ne.64b %pst, %rr, 0");
    f.l("sel.64b %t, 1, 0, %pst");
    f.l("or.64b %rq, %rq, %t");
    f.l("sel.64b %rq, 1, %rq, %pazero");
    f.l("isub.32b %ie, %iae, 58");
    f.l("asr.32b %ie, %ie, 1");
    f.l("mov.64b %zero, 0");
    f.l("call %r, @__pisa_sd_round(%zero, %ie, %rq, %imode)");
    f.c("+-0 stay, +inf stays, anything else negative is the default NaN");
    f.l("sel.64b %r, %a, %r, %painf");
    f.l("ucmp.ne.64b %pneg, %as, 0");
    f.l(&format!("sel.64b %r, {DNAN}, %r, %pneg"));
    f.l("sel.64b %r, %a, %r, %pazero");
    f.nan_rules(&["%a"]);
    f.finish()
}

/// `frsqrt.fast` (`@__pisa_sd_rsqrt(a, flags)`), correctly rounded, as
/// the cpu device computes it: the significand `M` (made even-exponent,
/// in [2^52, 2^54)) gives `r = 2^164 / M` by long division (the integer
/// part `q` in (2^110, 2^112], an integer digit of `2^54 / M` then eleven
/// digits of 10 bits, each a `udiv` of the remainder times 2^10, below
/// 2^64), then `t = ⌊√q⌋` digit by digit (57 steps of two bits, unrolled:
/// no loop), in (2^55, 2^56]. As `⌊√⌊r⌋⌋ = ⌊√r⌋` and `√r = t` exactly only
/// when both remainders are zero, `t` with the two remainders' "nonzero"
/// ORed into bit 0 is `2^82/√M` rounded to odd with 56 bits, which rounds
/// once like the exact value. ±0 give ±inf, +inf gives +0, other negative
/// values the default NaN, NaNs by the float core's rule.
fn rsqrt() -> String {
    let mut f = F::arith("rsqrt", &["a0"]);
    f.operands(&["a"]);
    f.c("an even exponent; a zero divides by 2^52 (its result is chosen below)");
    f.l("and.32b %iodd, %iae, 1");
    f.l("shl.64b %am, %am, %iodd");
    f.l("isub.32b %iae, %iae, %iodd");
    f.l(&format!("sel.64b %am, {HID}, %am, %pazero"));
    f.c("q = floor(2^164 / M) in qh:ql, the remainder in rm");
    f.l("mov.64b %n, 0x40000000000000");
    f.l("udiv.quo.64b %ql, %n, %am");
    f.l("umul.64b %t, %ql, %am");
    f.l("isub.64b %rm, %n, %t");
    f.l("mov.64b %qh, 0");
    for _ in 0..11 {
        f.l("shl.64b %n, %rm, 10");
        f.l("udiv.quo.64b %qd, %n, %am");
        f.l("umul.64b %t, %qd, %am");
        f.l("isub.64b %rm, %n, %t");
        f.l("shl.64b %qh, %qh, 10");
        f.l("shr.64b %t, %ql, 54");
        f.l("or.64b %qh, %qh, %t");
        f.l("shl.64b %ql, %ql, 10");
        f.l("or.64b %ql, %ql, %qd");
    }
    f.c("t = floor(sqrt(q)): two bits of q a step, from bits 113-112 down");
    f.l("mov.64b %rq, 0");
    f.l("mov.64b %rr, 0");
    for k in 0..57 {
        let b = 112 - 2 * k;
        let (w, s) = if b >= 64 { ("%qh", b - 64) } else { ("%ql", b) };
        f.l(&format!("shr.64b %two, {w}, {s}"));
        f.l("and.64b %two, %two, 3");
        f.l("shl.64b %rr, %rr, 2");
        f.l("or.64b %rr, %rr, %two");
        root_step(&mut f);
    }
    f.l("or.64b %st, %rr, %rm");
    f.l("ucmp.ne.64b %pst, %st, 0");
    f.l("sel.64b %t, 1, 0, %pst");
    f.l("or.64b %rq, %rq, %t");
    f.c("the value: t * 2^(-82 - e/2)");
    f.l("asr.32b %ie, %iae, 1");
    f.l("mov.32b %ix, -82");
    f.l("isub.32b %ie, %ix, %ie");
    f.l("mov.64b %zero, 0");
    f.l("call %r, @__pisa_sd_round(%zero, %ie, %rq, %imode)");
    f.c("+-0 give +-inf, +inf gives +0, anything else negative the default NaN");
    f.l("sel.64b %r, 0, %r, %painf");
    f.l("ucmp.ne.64b %pneg, %as, 0");
    f.l(&format!("sel.64b %r, {DNAN}, %r, %pneg"));
    f.l(&format!("or.64b %zi, %as, {INF}"));
    f.l("sel.64b %r, %zi, %r, %pazero");
    f.nan_rules(&["%a"]);
    f.finish()
}

/// `fcmp`: all ones or zero. Comparisons of the values as signed keys
/// (the magnitude, negated for negative values: ±0 are equal); a NaN makes
/// every comparison false but `.ne`. Flags: the comparison in bits 0–2 (0
/// eq, 1 ne, 2 gt, 3 ge, 4 lt, 5 le), `.ftz` 16.
fn cmp() -> String {
    let mut f = F::new("cmp", "32b", &["a0", "b0", "iflags"]);
    f.l("and.32b %icop, %iflags, 7");
    f.l("and.32b %ifl, %iflags, 16");
    f.l("ucmp.ne.32b %pftz, %ifl, 0");
    f.l("mov.64b %a, %a0");
    f.l("mov.64b %b, %b0");
    f.flush("%a");
    f.flush("%b");
    f.classify("%a", "a");
    f.classify("%b", "b");
    f.l("ineg.64b %na, %aabs");
    f.l("ucmp.ne.64b %pna, %as, 0");
    f.l("sel.64b %ka, %na, %aabs, %pna");
    f.l("ineg.64b %nb, %babs");
    f.l("ucmp.ne.64b %pnb, %bs, 0");
    f.l("sel.64b %kb, %nb, %babs, %pnb");
    f.l("scmp.lt.64b %plt, %ka, %kb");
    f.l("scmp.eq.64b %peq, %ka, %kb");
    f.l("scmp.gt.64b %pgt, %ka, %kb");
    f.l("sel.32b %ilt, 1, 0, %plt");
    f.l("sel.32b %ieq, 1, 0, %peq");
    f.l("sel.32b %igt, 1, 0, %pgt");
    f.l("mov.32b %ir, %ieq");
    f.l("ucmp.eq.32b %pc, %icop, 1");
    f.l("xor.32b %it, %ieq, 1");
    f.l("sel.32b %ir, %it, %ir, %pc");
    f.l("ucmp.eq.32b %pc, %icop, 2");
    f.l("sel.32b %ir, %igt, %ir, %pc");
    f.l("ucmp.eq.32b %pc, %icop, 3");
    f.l("xor.32b %it, %ilt, 1");
    f.l("sel.32b %ir, %it, %ir, %pc");
    f.l("ucmp.eq.32b %pc, %icop, 4");
    f.l("sel.32b %ir, %ilt, %ir, %pc");
    f.l("ucmp.eq.32b %pc, %icop, 5");
    f.l("xor.32b %it, %igt, 1");
    f.l("sel.32b %ir, %it, %ir, %pc");
    f.c("a NaN: only .ne holds");
    f.l("ucmp.eq.32b %pc, %icop, 1");
    f.l("sel.32b %it, 1, 0, %pc");
    f.l("sel.32b %ir, %it, %ir, %panan");
    f.l("sel.32b %ir, %it, %ir, %pbnan");
    f.l("ucmp.ne.32b %pc, %ir, 0");
    f.l("sel.32b %ir, 0xFFFFFFFF, 0, %pc");
    f.l("return %ir");
    f.text()
}

/// `fmin`/`fmax` (flag 256: max; 128: `.nanp`): −0 below +0; without
/// `.nanp` one NaN operand gives the other operand as it is, two the first
/// quieted; with `.nanp` any NaN gives the first NaN operand, quieted.
fn minmax() -> String {
    let mut f = F::arith("minmax", &["a0", "b0"]);
    f.l("mov.64b %a, %a0");
    f.l("mov.64b %b, %b0");
    f.flush("%a");
    f.flush("%b");
    f.classify("%a", "a");
    f.classify("%b", "b");
    f.l("and.32b %it, %iflags, 256");
    f.l("ucmp.ne.32b %pmax, %it, 0");
    f.l("and.32b %it, %iflags, 128");
    f.l("ucmp.ne.32b %pnanp, %it, 0");
    f.c("keys: the magnitude, its complement for negative values");
    f.l("not.64b %na, %aabs");
    f.l("ucmp.ne.64b %pna, %as, 0");
    f.l("sel.64b %ka, %na, %aabs, %pna");
    f.l("not.64b %nb, %babs");
    f.l("ucmp.ne.64b %pnb, %bs, 0");
    f.l("sel.64b %kb, %nb, %babs, %pnb");
    f.l("scmp.lt.64b %plt, %ka, %kb");
    f.l("sel.32b %ilt, 1, 0, %plt");
    f.l("sel.32b %imx, 1, 0, %pmax");
    f.l("ucmp.eq.32b %pb, %ilt, %imx");
    f.l("sel.64b %r, %b, %a, %pb");
    f.c("NaNs");
    f.l(&format!("or.64b %qa, %a, {QUIET}"));
    f.l(&format!("or.64b %qb, %b, {QUIET}"));
    f.l("sel.64b %r, %a, %r, %pbnan");
    f.l("sel.64b %t, %qb, %a, %pnanp");
    f.l("sel.64b %r, %t, %r, %pbnan");
    f.l("sel.64b %t, %qa, %b, %pnanp");
    f.l("sel.64b %t, %qa, %t, %pbnan");
    f.l("sel.64b %r, %t, %r, %panan");
    f.finish()
}

/// `fabs` (a NaN quieted, its sign cleared) or `fneg` (the sign flipped,
/// NaNs included, not quieted).
fn abs_neg(neg: bool) -> String {
    let mut f = F::arith(if neg { "neg" } else { "abs" }, &["a0"]);
    f.l("mov.64b %a, %a0");
    f.flush("%a");
    if neg {
        f.l(&format!("xor.64b %r, %a, {SIGN}"));
    } else {
        f.l(&format!("and.64b %r, %a, {ABS}"));
        f.l(&format!("ucmp.gt.64b %pn, %r, {INF}"));
        f.l(&format!("or.64b %t, %r, {QUIET}"));
        f.l("sel.64b %r, %t, %r, %pn");
    }
    f.finish()
}

/// A narrower float format a `.df` value converts to or from.
#[derive(Clone, Copy)]
pub struct Narrow {
    /// The type's name in function names: `f`, `hf`, `bf`.
    pub name: &'static str,
    /// Significand bits, the hidden one included.
    p: u32,
    /// The largest exponent (the bias).
    emax: i32,
    /// The encoding's width.
    bits: u32,
}

/// `.f`, `.hf`, `.bf`.
pub const NARROW: [Narrow; 3] = [
    Narrow {
        name: "f",
        p: 24,
        emax: 127,
        bits: 32,
    },
    Narrow {
        name: "hf",
        p: 11,
        emax: 15,
        bits: 16,
    },
    Narrow {
        name: "bf",
        p: 8,
        emax: 127,
        bits: 16,
    },
];

impl Narrow {
    fn emin(self) -> i32 {
        1 - self.emax
    }
    fn inf(self) -> String {
        let field = (1u64 << (self.bits - self.p)) - 1;
        format!("{:#X}", field << (self.p - 1))
    }
    fn maxf(self) -> String {
        let field = (1u64 << (self.bits - self.p)) - 1;
        format!("{:#X}", (field << (self.p - 1)) - 1)
    }
    fn sign(self) -> String {
        format!("{:#X}", 1u64 << (self.bits - 1))
    }
    fn abs(self) -> String {
        format!("{:#X}", (1u64 << (self.bits - 1)) - 1)
    }
    fn quiet(self) -> String {
        format!("{:#X}", 1u64 << (self.p - 2))
    }
    fn frac(self) -> String {
        format!("{:#X}", (1u64 << (self.p - 1)) - 1)
    }
}

/// `@__pisa_sd_round_{fmt}(sign, exp, sig, mode)`: `@__pisa_sd_round`'s
/// method for a narrower format `n`: `(-1)^sign · sig · 2^exp` (`sig` a
/// nonzero u64, `sign` 0 or 2^63) rounded once into `n` in `mode`,
/// subnormals and overflow included; the encoding in the low bits.
fn round_narrow(n: Narrow) -> String {
    let name = format!("round_{}", n.name);
    let mut f = F::new(&name, "64b", &["sign", "iexp", "sig", "imode"]);
    let (emin, emax, p) = (n.emin(), n.emax, n.p);
    f.lz64("%ilz", "%sig", "s");
    f.l("shl.64b %m, %sig, %ilz");
    f.c("the value is m * 2^(e - 63), m in [2^63, 2^64)");
    f.l("isub.32b %ie, %iexp, %ilz");
    f.l("iadd.32b %ie, %ie, 63");
    f.c("bits dropped: 64 - p, more below the smallest normal");
    f.l(&format!("mov.32b %iextra, {emin}"));
    f.l("isub.32b %iextra, %iextra, %ie");
    f.l("smax.32b %iextra, %iextra, 0");
    f.l(&format!("iadd.32b %ish, %iextra, {}", 64 - p));
    f.c("below half the smallest subnormal: only a sticky bit is left");
    f.l("scmp.gt.32b %pfar, %ish, 64");
    f.l("sel.64b %m, 1, %m, %pfar");
    f.l("smin.32b %ish, %ish, 64");
    f.l("ucmp.eq.32b %pfull, %ish, 64");
    f.l("and.32b %ishm, %ish, 63");
    f.l("shr.64b %mant, %m, %ishm");
    f.l("sel.64b %mant, 0, %mant, %pfull");
    f.l("shl.64b %t, %mant, %ishm");
    f.l("isub.64b %rem, %m, %t");
    f.l("isub.32b %ish1, %ish, 1");
    f.l("shl.64b %half, 1, %ish1");
    f.l("ucmp.gt.64b %pgt, %rem, %half");
    f.l("ucmp.eq.64b %peq, %rem, %half");
    f.l("ucmp.ne.64b %pnz, %rem, 0");
    f.l("shr.64b %sneg, %sign, 63");
    f.l("xor.64b %spos, %sneg, 1");
    f.up();
    f.l("iadd.64b %mant, %mant, %up");
    f.c("the encoding: the exponent field of max(e, emin) plus the significand");
    f.c("with its hidden bit (a carry moves the exponent up)");
    f.l(&format!("smax.32b %ieb, %ie, {emin}"));
    f.l(&format!("isub.32b %ieb, %ieb, {emin}"));
    f.l(&format!(
        "smin.32b %ieb, %ieb, {}",
        (1u32 << (n.bits - p)) - 1
    ));
    f.l("zext.64b.32b %eb, %ieb");
    f.l(&format!("shl.64b %bits, %eb, {}", p - 1));
    f.l("iadd.64b %bits, %bits, %mant");
    f.l(&format!("scmp.gt.32b %povf, %ie, {emax}"));
    f.l(&format!("ucmp.ge.64b %pinf, %bits, {}", n.inf()));
    f.l("sel.32b %iov, 1, 0, %povf");
    f.l("sel.32b %iov, 1, %iov, %pinf");
    f.c("overflow toward zero (.rz, .ru of negatives, .rd of positives): max finite");
    f.l("sel.64b %tw, 1, 0, %pm1");
    f.l("sel.64b %tw, %sneg, %tw, %pm2");
    f.l("sel.64b %tw, %spos, %tw, %pm3");
    f.l("ucmp.ne.64b %ptw, %tw, 0");
    f.l(&format!("sel.64b %r, {}, {}, %ptw", n.maxf(), n.inf()));
    f.l("ucmp.ne.32b %pov, %iov, 0");
    f.l("sel.64b %bits, %r, %bits, %pov");
    f.l(&format!("shl.64b %sb, %sneg, {}", n.bits - 1));
    f.l("or.64b %bits, %bits, %sb");
    f.l("return %bits");
    f.text()
}

impl F {
    /// `%up`: 1 when the mode `%imode` rounds the magnitude up, from the
    /// predicates `%pgt` (the rest above half), `%peq` (at half), `%pnz`
    /// (nonzero), the low bit of `%mant` and `%sneg`/`%spos` (0 or 1);
    /// leaves `%pm1`-`%pm4` set.
    fn up(&mut self) {
        self.l("sel.64b %g, 1, 0, %pgt");
        self.l("sel.64b %q, 1, 0, %peq");
        self.l("sel.64b %z, 1, 0, %pnz");
        self.l("and.64b %t1, %mant, 1");
        self.l("and.64b %t1, %t1, %q");
        self.l("or.64b %rn, %g, %t1");
        self.l("or.64b %rna, %g, %q");
        self.l("and.64b %ru, %z, %spos");
        self.l("and.64b %rd, %z, %sneg");
        self.l("mov.64b %up, %rn");
        let m1 = self.mode_is(1);
        let m2 = self.mode_is(2);
        let m3 = self.mode_is(3);
        let m4 = self.mode_is(4);
        self.l(&format!("sel.64b %up, 0, %up, {m1}"));
        self.l(&format!("sel.64b %up, %ru, %up, {m2}"));
        self.l(&format!("sel.64b %up, %rd, %up, {m3}"));
        self.l(&format!("sel.64b %up, %rna, %up, {m4}"));
    }
    /// `%mant`: the unpacked `%am · 2^%iae` (`%as` its sign) rounded to an
    /// integer magnitude in `%imode` when `%iae` is negative (at most
    /// 2^53); `%pint` when `%iae` is not negative (the value is integral).
    fn round_to_integer(&mut self) {
        self.l("scmp.ge.32b %pint, %iae, 0");
        self.l("ineg.32b %irs, %iae");
        self.c("beyond 54 the result is the same as at 54: 0 and a rest below half");
        self.l("smin.32b %irs, %irs, 54");
        self.l("smax.32b %irs, %irs, 1");
        self.l("shr.64b %mant, %am, %irs");
        self.l("shl.64b %t, %mant, %irs");
        self.l("isub.64b %rem, %am, %t");
        self.l("isub.32b %irs1, %irs, 1");
        self.l("shl.64b %half, 1, %irs1");
        self.l("ucmp.gt.64b %pgt, %rem, %half");
        self.l("ucmp.eq.64b %peq, %rem, %half");
        self.l("ucmp.ne.64b %pnz, %rem, 0");
        self.l("shr.64b %sneg, %as, 63");
        self.l("xor.64b %spos, %sneg, 1");
        self.up();
        self.l("iadd.64b %mant, %mant, %up");
    }
}

/// `ftrunc` from `.df` to `n` (`@__pisa_sd_ftrunc_{n}(a, flags)`, the
/// encoding in the low bits of 32): a subnormal source is flushed in every
/// mode, a NaN keeps its sign and the top of its payload and is quieted,
/// `.dsat` makes infinities ±max finite, `.ftz` flushes a subnormal
/// result.
fn ftrunc(n: Narrow) -> String {
    let mut f = F::new(&format!("ftrunc_{}", n.name), "32b", &["a0", "iflags"]);
    f.l("and.32b %imode, %iflags, 7");
    f.l("and.32b %ifl, %iflags, 16");
    f.l("ucmp.ne.32b %pftz, %ifl, 0");
    f.l("and.32b %ifl, %iflags, 32");
    f.l("ucmp.ne.32b %pdsat, %ifl, 0");
    f.l("mov.64b %a, %a0");
    f.c("narrowing flushes a subnormal source");
    f.l(&format!("and.64b %fe, %a, {INF}"));
    f.l("ucmp.eq.64b %pfe, %fe, 0");
    f.l(&format!("and.64b %fz, %a, {SIGN}"));
    f.l("sel.64b %a, %fz, %a, %pfe");
    f.classify("%a", "a");
    f.unpack("%a", "a");
    f.l("sel.64b %am, 1, %am, %pazero");
    f.l(&format!(
        "call %r, @__pisa_sd_round_{}(%as, %iae, %am, %imode)",
        n.name
    ));
    f.l("shr.64b %sb, %as, 63");
    f.l(&format!("shl.64b %sb, %sb, {}", n.bits - 1));
    f.c("zeros, infinities, NaNs (the payload's top bits)");
    f.l("sel.64b %r, %sb, %r, %pazero");
    f.l(&format!("or.64b %t, %sb, {}", n.inf()));
    f.l("sel.64b %r, %t, %r, %painf");
    f.l(&format!("and.64b %nf, %a, {FRAC}"));
    f.l(&format!("shr.64b %nf, %nf, {}", 53 - n.p));
    f.l("or.64b %nf, %nf, %t");
    f.l(&format!("or.64b %nf, %nf, {}", n.quiet()));
    f.l("sel.64b %r, %nf, %r, %panan");
    f.c(".dsat: infinities become max finite");
    f.l(&format!("and.64b %rabs, %r, {}", n.abs()));
    f.l(&format!("ucmp.eq.64b %pri, %rabs, {}", n.inf()));
    f.l(&format!("or.64b %t, %sb, {}", n.maxf()));
    f.l("sel.64b %t, %t, %r, %pri");
    f.l("sel.64b %r, %t, %r, %pdsat");
    f.c(".ftz: a subnormal result is the zero of its sign");
    f.l(&format!("and.64b %re, %r, {}", n.inf()));
    f.l("ucmp.eq.64b %pre, %re, 0");
    f.l("sel.64b %t, %sb, %r, %pre");
    f.l("sel.64b %r, %t, %r, %pftz");
    f.l("trunc.32b.64b %ir, %r");
    f.l("return %ir");
    f.text()
}

/// `fext` from `n` to `.df` (`@__pisa_sd_fext_{n}(a, flags)`, the source
/// in the low bits of 32): exact; a NaN keeps its sign and payload and is
/// quieted; `.ftz` flushes a subnormal source, `.dsat` makes infinities
/// ±max finite.
fn fext(n: Narrow) -> String {
    let mut f = F::new(&format!("fext_{}", n.name), "64b", &["ia0", "iflags"]);
    f.l("and.32b %ifl, %iflags, 16");
    f.l("ucmp.ne.32b %pftz, %ifl, 0");
    f.l("and.32b %ifl, %iflags, 32");
    f.l("ucmp.ne.32b %pdsat, %ifl, 0");
    f.l("zext.64b.32b %a, %ia0");
    if n.bits < 32 {
        f.l(&format!("and.64b %a, %a, {:#X}", (1u64 << n.bits) - 1));
    }
    f.l(&format!("and.64b %fe, %a, {}", n.inf()));
    f.l("ucmp.eq.64b %pfe, %fe, 0");
    f.l(&format!("and.64b %fz, %a, {}", n.sign()));
    f.l("sel.64b %fz, %fz, %a, %pfe");
    f.l("sel.64b %a, %fz, %a, %pftz");
    f.l(&format!("and.64b %aabs, %a, {}", n.abs()));
    f.l(&format!("ucmp.gt.64b %panan, %aabs, {}", n.inf()));
    f.l(&format!("ucmp.eq.64b %painf, %aabs, {}", n.inf()));
    f.l("ucmp.eq.64b %pazero, %aabs, 0");
    f.l(&format!("shr.64b %sg, %a, {}", n.bits - 1));
    f.l("and.64b %sg, %sg, 1");
    f.l("shl.64b %sg, %sg, 63");
    f.c("the value m * 2^e: the hidden bit unless subnormal");
    f.l(&format!("and.64b %fr, %a, {}", n.frac()));
    f.l(&format!("shr.64b %x, %a, {}", n.p - 1));
    f.l(&format!(
        "and.64b %x, %x, {:#X}",
        (1u64 << (n.bits - n.p)) - 1
    ));
    f.l("trunc.32b.64b %ief, %x");
    f.l("ucmp.eq.32b %psub, %ief, 0");
    f.l(&format!("or.64b %m, %fr, {:#X}", 1u64 << (n.p - 1)));
    f.l("sel.64b %m, %fr, %m, %psub");
    f.l("sel.32b %ief, 1, %ief, %psub");
    f.l(&format!("isub.32b %ie, %ief, {}", n.emax + n.p as i32 - 1));
    f.l("sel.64b %m, 1, %m, %pazero");
    f.l("mov.32b %imode, 0");
    f.l("call %r, @__pisa_sd_round(%sg, %ie, %m, %imode)");
    f.l("sel.64b %r, %sg, %r, %pazero");
    f.l(&format!("or.64b %t, %sg, {INF}"));
    f.l("sel.64b %r, %t, %r, %painf");
    f.l(&format!("shl.64b %nf, %fr, {}", 53 - n.p));
    f.l("or.64b %nf, %nf, %t");
    f.l(&format!("or.64b %nf, %nf, {QUIET}"));
    f.l("sel.64b %r, %nf, %r, %panan");
    f.l(&format!("or.64b %t, %sg, {MAXF}"));
    f.l("sel.64b %t, %t, %r, %painf");
    f.l("sel.64b %r, %t, %r, %pdsat");
    f.l("return %r");
    f.text()
}

/// `f2i` from `.df` (`@__pisa_sd_f2i(a, flags)`; flags: the mode, 128
/// signed, the width in bits 8-14): rounded to an integer, then clamped to
/// the range (±inf the limits, negatives 0 for unsigned results); NaN and
/// ±0 give 0. The two's-complement bits in the low `width` bits.
fn f2i() -> String {
    let mut f = F::arith("f2i", &["a0"]);
    f.operands(&["a"]);
    f.l("shr.32b %iw, %iflags, 8");
    f.l("and.32b %iw, %iw, 127");
    f.l("and.32b %it, %iflags, 128");
    f.l("ucmp.ne.32b %psigned, %it, 0");
    f.c("the limits as magnitudes");
    f.l("isub.32b %iw1, %iw, 1");
    f.l("shl.64b %lo1, 1, %iw1");
    f.l("isub.64b %smax, %lo1, 1");
    f.l("shl.64b %umax, %smax, 1");
    f.l("or.64b %umax, %umax, 1");
    f.l("sel.64b %lmax, %smax, %umax, %psigned");
    f.l("sel.64b %lmin, %lo1, 0, %psigned");
    f.round_to_integer();
    f.c("integral: exact below 2^64 (exponent up to 11), beyond every limit above");
    f.l("and.32b %iae6, %iae, 63");
    f.l("shl.64b %big, %am, %iae6");
    f.l("sel.64b %mant, %big, %mant, %pint");
    f.l("scmp.gt.32b %povf, %iae, 11");
    f.l("sel.64b %mant, 0xFFFFFFFFFFFFFFFF, %mant, %povf");
    f.l("sel.64b %mant, 0xFFFFFFFFFFFFFFFF, %mant, %painf");
    f.l("ucmp.ne.64b %pneg, %as, 0");
    f.l("sel.64b %lim, %lmin, %lmax, %pneg");
    f.l("umin.64b %mant, %mant, %lim");
    f.l("ineg.64b %nv, %mant");
    f.l("sel.64b %r, %nv, %mant, %pneg");
    f.l("sel.64b %r, 0, %r, %pazero");
    f.l("sel.64b %r, 0, %r, %panan");
    f.l("return %r");
    f.text()
}

/// `i2f` into `.df` (`@__pisa_sd_i2f(v, flags)`: `v` extended to 64 bits
/// by the source's signedness, flag 128 signed): rounded once in the mode.
fn i2f() -> String {
    let mut f = F::new("i2f", "64b", &["v", "iflags"]);
    f.l("and.32b %imode, %iflags, 7");
    f.l("and.32b %it, %iflags, 128");
    f.l("ucmp.ne.32b %psigned, %it, 0");
    f.l("scmp.lt.64b %pn, %v, 0");
    f.l("sel.32b %it, 1, 0, %pn");
    f.l("sel.32b %it, %it, 0, %psigned");
    f.l("ucmp.ne.32b %pneg, %it, 0");
    f.l("ineg.64b %nv, %v");
    f.l("sel.64b %mag, %nv, %v, %pneg");
    f.l(&format!("sel.64b %sg, {SIGN}, 0, %pneg"));
    f.l("ucmp.eq.64b %pz, %v, 0");
    f.l("sel.64b %mag, 1, %mag, %pz");
    f.l("mov.32b %ie, 0");
    f.l("call %r, @__pisa_sd_round(%sg, %ie, %mag, %imode)");
    f.l("sel.64b %r, 0, %r, %pz");
    f.l("return %r");
    f.text()
}

/// `frnd.df`: rounded to an integral value in the mode; a zero result
/// keeps the source's sign; ±inf, ±0 and integral values as they are, NaN
/// quieted; then `.ftz` of the result.
fn frnd() -> String {
    let mut f = F::arith("frnd", &["a0"]);
    f.operands(&["a"]);
    f.round_to_integer();
    f.l("ucmp.eq.64b %pqz, %mant, 0");
    f.l("sel.64b %mant, 1, %mant, %pqz");
    f.l("mov.32b %ie, 0");
    f.l("call %r, @__pisa_sd_round(%as, %ie, %mant, %imode)");
    f.l("sel.64b %r, %as, %r, %pqz");
    f.l("sel.64b %r, %a, %r, %pint");
    f.l("sel.64b %r, %a, %r, %painf");
    f.l("sel.64b %r, %a, %r, %pazero");
    f.l(&format!("or.64b %t, %a, {QUIET}"));
    f.l("sel.64b %r, %t, %r, %panan");
    f.finish()
}

/// The conversions' functions and their entry points of every width: the
/// `.8b`/`.16b` ones (`@__pisa_sd_f2i{w}`, `@__pisa_sd_i2f_{s|u}{w}`,
/// `@__pisa_sd_ftrunc16_{n}`, `@__pisa_sd_fext16_{n}`) wrap the 32- and
/// 64-bit ones.
pub fn conversions() -> String {
    let mut o = String::new();
    for n in NARROW {
        o.push_str(&round_narrow(n));
        o.push_str(&ftrunc(n));
        o.push_str(&fext(n));
        if n.bits == 16 {
            let _ = writeln!(
                o,
                ".function .16b @__pisa_sd_ftrunc16_{0}(.reg .64b %a, .reg .32b %flags)\n{{\n\t.reg .32b %r;\n\t.reg .16b %y;\n\tcall %r, @__pisa_sd_ftrunc_{0}(%a, %flags);\n\ttrunc.16b.32b %y, %r;\n\treturn %y;\n}}\n",
                n.name
            );
            let _ = writeln!(
                o,
                ".function .64b @__pisa_sd_fext16_{0}(.reg .16b %a, .reg .32b %flags)\n{{\n\t.reg .32b %w;\n\t.reg .64b %r;\n\tzext.32b.16b %w, %a;\n\tcall %r, @__pisa_sd_fext_{0}(%w, %flags);\n\treturn %r;\n}}\n",
                n.name
            );
        }
    }
    o.push_str(&f2i());
    o.push_str(&i2f());
    o.push_str(&frnd());
    for bits in [8, 16, 32] {
        let _ = writeln!(
            o,
            ".function .{bits}b @__pisa_sd_f2i{bits}(.reg .64b %a, .reg .32b %flags)\n{{\n\t.reg .64b %r;\n\t.reg .{bits}b %y;\n\tcall %r, @__pisa_sd_f2i(%a, %flags);\n\ttrunc.{bits}b.64b %y, %r;\n\treturn %y;\n}}\n"
        );
    }
    for bits in [8, 16, 32, 64] {
        for signed in [true, false] {
            let s = if signed { 's' } else { 'u' };
            let ext = crate::ir::bundled::widen_integer_source(bits, signed);
            let _ = writeln!(
                o,
                ".function .64b @__pisa_sd_i2f_{s}{bits}(.reg .{bits}b %v0, .reg .32b %flags)\n{{\n\t.reg .64b %v, %r;\n\t.reg .32b %w;\n\t{ext};\n\tcall %r, @__pisa_sd_i2f(%v, %flags);\n\treturn %r;\n}}\n"
            );
        }
    }
    o
}
