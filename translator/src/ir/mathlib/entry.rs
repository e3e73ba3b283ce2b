//! The library's entry points: one PISA function per instruction form the
//! library implements (`fsin.ftz.hfx2` → `@__pisa_fsin_ftz_hfx2`), written
//! here from one template so that every form treats its source and result
//! the same way:
//!
//! 1. `.ftz`: a denormal source becomes a zero of its sign (spec 03 §3);
//! 2. the source widened exactly to f64 (`fext`), the f64 kernel of
//!    `library.pisa` called;
//! 3. one rounding to nearest even into the instruction's format
//!    (`ftrunc.<ty>.df`), so the result is within half an ULP of the f64
//!    kernel's;
//! 4. the special values: a NaN source gives that NaN quieted, a NaN
//!    result of a non-NaN source the default NaN (the float core's NaN
//!    rules, docs/spec-notes.md); `fsin`/`fcos` of ±∞ is that default NaN;
//!    `flog2` of ±0 is −∞, of +∞ +∞, of anything negative the default NaN;
//!    `frsqrt` of anything negative the default NaN;
//! 5. `.ftz`: a denormal result becomes a zero of its sign.
//!
//! Packed forms (`.hfx2`, `.bfx2`) call their scalar entry point once per
//! lane: lane `.x` is bits 15:0 (spec 13: `dst[15:0] = op(src0[15:0])`).
//!
//! With the f32 kernels ([`Kernels::F32`], `library_f32.pisa`) the template
//! is the same with f32 in place of f64: the source widened exactly to f32
//! (`fext.f.hf`, `fext.f.bf`), the f32 kernel called, its result rounded
//! to nearest even into `.hf` by `ftrunc.hf.f` and into `.bf` in integer
//! arithmetic (`ftrunc.bf.f` would flush the subnormal f32 results that are
//! bfloat16 subnormals), and the special values recognized from the
//! source's encoding, without f64 comparisons; `frsqrt` of ±0 gives ±∞ and
//! of +∞ +0 there explicitly.

use super::Kernels;
use std::fmt::Write;

/// The instructions the library implements, as their catalog opcodes
/// (on every type below: `frsqrt.fast.df` is the back end's, refined in
/// double-double, since f64 has no wider format to compute in).
pub const OPERATIONS: &[&str] = &["fsin", "fcos", "fexp2", "flog2", "ftanh", "frsqrt"];

/// The types of those instructions: scalar, then packed.
pub const SCALAR_TYPES: &[&str] = &["f", "hf", "bf"];
pub const PACKED_TYPES: &[&str] = &["hfx2", "bfx2"];

/// The entry point's symbol for an instruction's mnemonic (`fsin.ftz.hf`).
pub fn entry_name(mnemonic: &str) -> String {
    format!("__pisa_{}", mnemonic.replace('.', "_"))
}

/// The encoding constants of a scalar float format.
struct Format {
    bits: u16,
    /// every bit but the sign
    abs: u64,
    /// +∞ (also the exponent mask)
    inf: u64,
    /// the quiet bit of a NaN
    quiet: u64,
    sign: u64,
    /// −∞
    neg_inf: u64,
}

fn format(ty: &str) -> Format {
    match ty {
        "hf" => Format {
            bits: 16,
            abs: 0x7FFF,
            inf: 0x7C00,
            quiet: 0x0200,
            sign: 0x8000,
            neg_inf: 0xFC00,
        },
        "bf" => Format {
            bits: 16,
            abs: 0x7FFF,
            inf: 0x7F80,
            quiet: 0x0040,
            sign: 0x8000,
            neg_inf: 0xFF80,
        },
        _ => Format {
            bits: 32,
            abs: 0x7FFF_FFFF,
            inf: 0x7F80_0000,
            quiet: 0x0040_0000,
            sign: 0x8000_0000,
            neg_inf: 0xFF80_0000,
        },
    }
}

/// The mnemonic of `op` on `ty`, with or without `.ftz` (`frsqrt` has
/// only its `.fast` form, 13 §2.14).
pub fn mnemonic(op: &str, ty: &str, ftz: bool) -> String {
    let fast = if op == "frsqrt" { ".fast" } else { "" };
    let ftz = if ftz { ".ftz" } else { "" };
    format!("{op}{ftz}{fast}.{ty}")
}

/// Every entry point for `kernels`, as PISA text.
pub fn all_entries(kernels: Kernels) -> String {
    let mut out = String::new();
    for op in OPERATIONS {
        for ftz in [false, true] {
            for ty in SCALAR_TYPES {
                out.push_str(&match kernels {
                    Kernels::F64 => scalar_entry(op, ty, ftz),
                    Kernels::F32 => scalar_entry_f32(op, ty, ftz),
                });
            }
            for ty in PACKED_TYPES {
                out.push_str(&packed_entry(op, ty, ftz));
            }
        }
    }
    out
}

/// `.ftz` of register `%r` in format `f`, through scratch `%e`/`%z`/`%d`.
fn flush(out: &mut String, f: &Format, r: &str) {
    let b = f.bits;
    let _ = writeln!(out, "\tand.{b}b %e, {r}, {:#X};", f.inf);
    let _ = writeln!(out, "\tucmp.eq.{b}b %denormal, %e, 0;");
    let _ = writeln!(out, "\tand.{b}b %z, {r}, {:#X};", f.sign);
    let _ = writeln!(out, "\tsel.{b}b {r}, %z, {r}, %denormal;");
}

fn scalar_entry(op: &str, ty: &str, ftz: bool) -> String {
    let f = format(ty);
    let b = f.bits;
    let name = entry_name(&mnemonic(op, ty, ftz));
    let mut o = String::new();
    let _ = writeln!(o, "// {}", mnemonic(op, ty, ftz));
    let _ = writeln!(o, ".function .{b}b @{name}(.reg .{b}b %src)\n{{");
    let _ = writeln!(o, "\t.reg .{b}b %x, %y, %a, %e, %z, %qx;");
    let _ = writeln!(o, "\t.reg .32b %xf, %which;");
    let _ = writeln!(o, "\t.reg .64b %d, %arg, %r;");
    let _ = writeln!(
        o,
        "\t.pred %denormal, %nan, %inf, %positive, %zero, %negative;"
    );
    let _ = writeln!(o, "\tmov.{b}b %x, %src;");
    if ftz {
        flush(&mut o, &f, "%x");
    }
    let _ = writeln!(o, "\tfext.df.{ty} %d, %x;");
    match op {
        "fsin" | "fcos" => {
            if ty == "f" {
                let _ = writeln!(o, "\tmov.32b %xf, %x;");
            } else {
                let _ = writeln!(o, "\tfext.f.{ty} %xf, %x;");
            }
            let which = u32::from(op == "fcos");
            let _ = writeln!(o, "\tmov.32b %which, {which};");
            let _ = writeln!(o, "\tcall %r, @__pisa_sin_cos_f32(%xf, %which);");
        }
        "fexp2" => {
            let _ = writeln!(o, "\tcall %r, @__pisa_exp2_df(%d);");
        }
        "ftanh" => {
            let _ = writeln!(o, "\tcall %r, @__pisa_tanh_df(%d);");
        }
        "frsqrt" => {
            let _ = writeln!(o, "\tcall %r, @__pisa_rsqrt_df(%d);");
        }
        _ => {
            // the kernel sees positive finite arguments only; 1.0 elsewhere
            let _ = writeln!(o, "\tand.{b}b %a, %x, {:#X};", f.abs);
            let _ = writeln!(o, "\tucmp.eq.{b}b %inf, %a, {:#X};", f.inf);
            let _ = writeln!(o, "\tfcmp.gt.df %positive, %d, 0.0;");
            let _ = writeln!(o, "\tsel.64b %arg, 0x3FF0000000000000, %d, %inf;");
            let _ = writeln!(o, "\tsel.64b %arg, %arg, 0x3FF0000000000000, %positive;");
            let _ = writeln!(o, "\tcall %r, @__pisa_log2_df(%arg);");
        }
    }
    let _ = writeln!(o, "\tftrunc.{ty}.df %y, %r;");
    let _ = writeln!(o, "\tand.{b}b %a, %x, {:#X};", f.abs);
    match op {
        "fsin" | "fcos" => {
            let _ = writeln!(o, "\tucmp.eq.{b}b %inf, %a, {:#X};", f.inf);
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %inf;", f.inf | f.quiet);
        }
        "frsqrt" => {
            // a negative argument gives the default NaN (±0 give ±∞, +∞ +0)
            let _ = writeln!(o, "\tfcmp.lt.df %negative, %d, 0.0;");
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %negative;", f.inf | f.quiet);
        }
        "flog2" => {
            // +∞ stays; ±0 gives −∞; a negative argument the default NaN
            let _ = writeln!(o, "\tsel.{b}b %y, %x, %y, %inf;");
            let _ = writeln!(o, "\tfcmp.eq.df %zero, %d, 0.0;");
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %zero;", f.neg_inf);
            let _ = writeln!(o, "\tfcmp.lt.df %negative, %d, 0.0;");
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %negative;", f.inf | f.quiet);
        }
        _ => {}
    }
    // a NaN source: itself, quieted
    let _ = writeln!(o, "\tucmp.gt.{b}b %nan, %a, {:#X};", f.inf);
    let _ = writeln!(o, "\tor.{b}b %qx, %x, {:#X};", f.quiet);
    let _ = writeln!(o, "\tsel.{b}b %y, %qx, %y, %nan;");
    if ftz {
        flush(&mut o, &f, "%y");
    }
    let _ = writeln!(o, "\treturn %y;\n}}\n");
    o
}

/// [`scalar_entry`] for the f32 kernels of `library_f32.pisa`.
fn scalar_entry_f32(op: &str, ty: &str, ftz: bool) -> String {
    let f = format(ty);
    let b = f.bits;
    let name = entry_name(&mnemonic(op, ty, ftz));
    let mut o = String::new();
    let _ = writeln!(o, "// {}", mnemonic(op, ty, ftz));
    let _ = writeln!(o, ".function .{b}b @{name}(.reg .{b}b %src)\n{{");
    let _ = writeln!(o, "\t.reg .{b}b %x, %y, %a, %e, %z, %qx;");
    let _ = writeln!(o, "\t.reg .32b %xf, %arg, %r, %rb, %which;");
    let _ = writeln!(
        o,
        "\t.pred %denormal, %nan, %inf, %zero, %negative, %positive, %finite;"
    );
    let _ = writeln!(o, "\tmov.{b}b %x, %src;");
    if ftz {
        flush(&mut o, &f, "%x");
    }
    if ty == "f" {
        let _ = writeln!(o, "\tmov.32b %xf, %x;");
    } else {
        let _ = writeln!(o, "\tfext.f.{ty} %xf, %x;");
    }
    match op {
        "fsin" | "fcos" => {
            let which = u32::from(op == "fcos");
            let _ = writeln!(o, "\tmov.32b %which, {which};");
            let _ = writeln!(o, "\tcall %r, @__pisa_f32_sin_cos(%xf, %which);");
        }
        "fexp2" => {
            let _ = writeln!(o, "\tmov.32b %arg, 0;");
            let _ = writeln!(o, "\tcall %r, @__pisa_f32_exp2(%xf, %arg);");
        }
        "ftanh" => {
            let _ = writeln!(o, "\tcall %r, @__pisa_f32_tanh(%xf);");
        }
        _ => {
            // the kernel sees positive finite arguments only; 1.0 elsewhere
            let kernel = if op == "flog2" { "log2" } else { "rsqrt" };
            let _ = writeln!(o, "\tscmp.gt.32b %positive, %xf, 0;");
            let _ = writeln!(o, "\tucmp.lt.32b %finite, %xf, 0x7F800000;");
            let _ = writeln!(o, "\tsel.32b %arg, %xf, 0x3F800000, %positive;");
            let _ = writeln!(o, "\tsel.32b %arg, %arg, 0x3F800000, %finite;");
            let _ = writeln!(o, "\tcall %r, @__pisa_f32_{kernel}(%arg);");
        }
    }
    match ty {
        "f" => {
            let _ = writeln!(o, "\tmov.32b %y, %r;");
        }
        "hf" => {
            let _ = writeln!(o, "\tftrunc.hf.f %y, %r;");
        }
        _ => {
            // to nearest even: add 0x7FFF plus the lowest kept bit, keep the
            // top half (a carry into the exponent is right, up to +inf)
            let _ = writeln!(o, "\tshr.32b %rb, %r, 16;");
            let _ = writeln!(o, "\tand.32b %rb, %rb, 1;");
            let _ = writeln!(o, "\tiadd.32b %rb, %rb, 0x7FFF;");
            let _ = writeln!(o, "\tiadd.32b %rb, %r, %rb;");
            let _ = writeln!(o, "\tshr.32b %rb, %rb, 16;");
            let _ = writeln!(o, "\ttrunc.16b.32b %y, %rb;");
        }
    }
    let _ = writeln!(o, "\tand.{b}b %a, %x, {:#X};", f.abs);
    match op {
        "fsin" | "fcos" => {
            let _ = writeln!(o, "\tucmp.eq.{b}b %inf, %a, {:#X};", f.inf);
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %inf;", f.inf | f.quiet);
        }
        "frsqrt" => {
            // +inf gives +0, ±0 give ±inf, a negative argument the default NaN
            let _ = writeln!(o, "\tucmp.eq.{b}b %inf, %x, {:#X};", f.inf);
            let _ = writeln!(o, "\tsel.{b}b %y, 0, %y, %inf;");
            let _ = writeln!(o, "\tucmp.eq.{b}b %zero, %a, 0;");
            let _ = writeln!(o, "\tor.{b}b %z, %x, {:#X};", f.inf);
            let _ = writeln!(o, "\tsel.{b}b %y, %z, %y, %zero;");
            let _ = writeln!(o, "\tucmp.gt.{b}b %negative, %x, {:#X};", f.sign);
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %negative;", f.inf | f.quiet);
        }
        "flog2" => {
            // +inf stays; ±0 gives -inf; a negative argument the default NaN
            let _ = writeln!(o, "\tucmp.eq.{b}b %inf, %x, {:#X};", f.inf);
            let _ = writeln!(o, "\tsel.{b}b %y, %x, %y, %inf;");
            let _ = writeln!(o, "\tucmp.eq.{b}b %zero, %a, 0;");
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %zero;", f.neg_inf);
            let _ = writeln!(o, "\tucmp.gt.{b}b %negative, %x, {:#X};", f.sign);
            let _ = writeln!(o, "\tsel.{b}b %y, {:#X}, %y, %negative;", f.inf | f.quiet);
        }
        _ => {}
    }
    // a NaN source: itself, quieted
    let _ = writeln!(o, "\tucmp.gt.{b}b %nan, %a, {:#X};", f.inf);
    let _ = writeln!(o, "\tor.{b}b %qx, %x, {:#X};", f.quiet);
    let _ = writeln!(o, "\tsel.{b}b %y, %qx, %y, %nan;");
    if ftz {
        flush(&mut o, &f, "%y");
    }
    let _ = writeln!(o, "\treturn %y;\n}}\n");
    o
}

fn packed_entry(op: &str, ty: &str, ftz: bool) -> String {
    let scalar = entry_name(&mnemonic(op, &ty[..2], ftz));
    let name = entry_name(&mnemonic(op, ty, ftz));
    let mut o = String::new();
    let _ = writeln!(o, "// {}", mnemonic(op, ty, ftz));
    let _ = writeln!(o, ".function .v2.16b @{name}(.reg .v2.16b %src)\n{{");
    let _ = writeln!(o, "\t.reg .16b %lo, %hi;");
    let _ = writeln!(o, "\t.reg .v2.16b %y;");
    let _ = writeln!(o, "\tmov.16b %lo, %src.x;");
    let _ = writeln!(o, "\tmov.16b %hi, %src.y;");
    let _ = writeln!(o, "\tcall %lo, @{scalar}(%lo);");
    let _ = writeln!(o, "\tcall %hi, @{scalar}(%hi);");
    let _ = writeln!(o, "\tmov.16b %y.x, %lo;");
    let _ = writeln!(o, "\tmov.16b %y.y, %hi;");
    let _ = writeln!(o, "\treturn %y;\n}}\n");
    o
}
