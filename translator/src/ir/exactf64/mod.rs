//! `ir::exactf64`: the f32, f16 and bfloat16 operations whose Vulkan forms
//! are not exact, computed exactly on devices with f64 (`shaderFloat64`
//! and `shaderInt64`), as calls of a bundled PISA library whose cores
//! compute in `.df` arithmetic (the way [`super::exactf32`] computes them
//! in integers on devices without f64).
//!
//! Vulkan rounds `OpFAdd`, `OpFSub` and `OpFMul` correctly to nearest
//! even, and converts between float formats correctly rounded to nearest;
//! it has no directed rounding (`.rz`, `.ru`, `.rd`, `.rna`, spec 03 §2),
//! allows 2.5 ULP for `OpFDiv` and `Sqrt`, and does not require `Fma` to
//! be fused (lavapipe's rounds twice). This pass replaces the instructions
//! [`super::exactf32::replacement`] names (directed `fadd`/`fsub`/`fmul`,
//! `.bf` ones to nearest too, `frc`,
//! `fmad`, `fdiv`, `frcp`, `fsqrt` on `.f`, `.hf`, `.bf` and the packed
//! forms, `fmul.full` of 16-bit formats, `ftrunc` into 16-bit formats,
//! `i2f` in a directed mode, with `.dsat` or into `.bf`) by the same calls,
//! `call %d, @__pisa_xf_OP(srcs…, FLAGS)`, of this library ([`library`]),
//! except where the device's own form is asked for ([`Native`]: the
//! `PISA_SPIRV_OPTIONS` without `exact-division` or `fma-f64`).
//!
//! The library is the exact f32 library with its cores in f64: each
//! operand widens to f64 exactly, and
//!
//! - `fmul`: the product of two 24-bit significands is exact in f64;
//! - `fadd`/`fsub`, `fmad`: the (exact) product and the addend summed by
//!   TwoSum, `s = RN(x)` and the exact error `e = x − s`; stepping `s` one
//!   unit toward `e` when `e ≠ 0` and `s` is even gives RO(x), `x` rounded
//!   to odd at 53 bits (Boldo and Melquiond);
//! - `fdiv`, `frcp`, `fsqrt`: a Newton reciprocal (or reciprocal square
//!   root) from a seed of the operand's bits, with `.df` multiplications
//!   and subtractions only (the driver's division and square root are not
//!   used at all); the first quotient (root) corrected once by its exact
//!   remainder `a − q·b` (`a − s²`, by Dekker's product) to a faithful
//!   result; the sign of the exact remainder of that result tells on which
//!   side the exact value lies, and a step toward it when it is inexact
//!   and the result even gives the value rounded to odd;
//!
//! then one rounding into the format (`@__pisa_xd_narrow`; `fmad.f` to
//! nearest without `.ftz`/`.dsat`, the common form, has a short function
//! of its own, `@__pisa_xd_fmarn`): to nearest even
//! into f32 by `ftrunc.f.df` (Vulkan's correctly rounded conversion),
//! every other mode and format by the f32 library's integer rounding
//! (`@__pisa_xf_round`) of the f64's significand. Zeros, infinities, NaNs,
//! `.ftz`, `.dsat` and the 16-bit and conversion entry points are the f32
//! library's (docs/numerics.md).
//!
//! Proof sketch (from the former `spirv::lower::rounding`): rounding to odd
//! at a bit at least two below the rounding position of the result
//! preserves the rounding in every mode: RO(x) lies strictly between the
//! same two neighbours of the result's precision as x, is not a midpoint
//! unless x is, and is on the same side of every midpoint. f64 keeps 53
//! bits, at least f32's 24 + 2 (half's 11, bfloat16's 8, and fewer for
//! subnormal results), so each result is rounded once. The operands'
//! values, products of two and quotients and roots of them stay far inside
//! f64's normal range (f32's exponents reach 2^±149, their products and
//! quotients 2^±277), so TwoSum and Dekker's product are exact and the
//! remainders are: `a − RN(q·b)` is exact by Sterbenz's lemma (q is within
//! a few units of `a/b`), and the last subtraction keeps the exact
//! remainder's sign and its being zero, which is all the step uses. The
//! Newton steps bring the seed's relative error (below 1/8 and 3.5%) under
//! 2^-48; the correction `q + r·y` is then within half a unit and a tiny
//! fraction of the exact quotient: faithful.
//!
//! The `.df` forms whose Vulkan instruction is not exact (directed
//! rounding, `fmad`, `fdiv`/`fsqrt` with exact division, `frsqrt`, the
//! rounded conversions from and into `.df`: [`df_replacement`]) become
//! calls of the soft-double library ([`super::softf64`]) after this
//! library's calls ([`link_df`]; the pass `exactf32` does the same under
//! numerics f32 on a device with f64), so that SPIR-V emission computes
//! no rounding of its own: the back end refuses them
//! (`spirv::lower::refuse_unrewritten`).
//!
//! The reference device (`interp`) does not run this pass; it is the
//! oracle the library is tested against (`tests/exact_f32.rs`,
//! `tests/exact_f16.rs`, `tests/soft_f64.rs`).

pub mod library;

use super::exactf32::{Library, Replacement};
use super::*;
use qualifier::Rndmode;
use std::sync::OnceLock;

/// The library's file name in diagnostics.
pub const LIBRARY_FILE: &str = "<pisa exact f64 library>";

/// Where library spans start: the exact f32 library's place (the two
/// never run together), beyond any module's and the math library's.
const LIBRARY_BASE: u32 = super::bundled::span_base::EXACT;

/// Where the soft-double library's spans start (`ir::softf64`): the end
/// of this library's.
const LIBRARY_END: u32 = super::bundled::span_base::SOFT_F64;

/// Whether `span` lies in this library's text (code [`link`] copied in;
/// the exact f32 library, which has no `.df` code, shares the range).
///
/// The back end narrows this library's `ftrunc.f.df` to nearest (without
/// `.ftz` or `.dsat`) by the driver's conversion alone, without the
/// general lowering's source flushing and NaN narrowing: its sources are
/// never f64 subnormals (f32 values, exact products of two, TwoSum sums
/// and Newton quotients of them stay above 2^-600), and never NaNs whose
/// result is used (the cores replace NaN and infinite operands by 1;
/// `@__pisa_xd_fmarn` replaces a NaN result by the float core's).
///
/// Where the back end hides float operands from the compiler (llvmpipe's
/// folds of `x·0` and `x + 0` on values it knows: `opaque_operands`), it
/// hides this library's f32 operands (the `fext.df.f` that bring every
/// value in) and not its f64 ones: each f64 value comes from those, from
/// bits of them or from literal constants, never all literals, so none is
/// a value the compiler knows, and the few literal operands (0.5, 1.5,
/// 2.0, Veltkamp's constant, the 0.0 of compares) fold to nothing inexact.
pub fn in_library(span: Span) -> bool {
    (LIBRARY_BASE..LIBRARY_END).contains(&span.start)
}

/// The library's PISA text.
pub fn library_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(library::source)
}

/// The operations left to the device's own instructions, to nearest even
/// (driver workarounds, `PISA_SPIRV_OPTIONS`, docs/abi.md): `fdiv`,
/// `frcp`, `fsqrt` by `OpFDiv`/`Sqrt` (without `exact-division`), `fmad.f`
/// by `Fma` (without `fma-f64`; refused where the probe found it rounds
/// twice), `fmad.df` to nearest without `.ftz`, `.dsat` by `Fma` where
/// the probe found it fused (`fma_f64`, `Options::fma_f64_native_fused`;
/// with the float core's NaN rules); and `float16`: the device rounds f32 into `.hf` by
/// `OpFConvert` (correctly rounded; `shaderFloat16`), so `.hf` `fadd`,
/// `fsub`, `fmul` to nearest stay f32 arithmetic narrowed by it (without
/// it they are library calls, as the `.bf` ones always are; both passes
/// read it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Native {
    pub division: bool,
    pub fma_f32: bool,
    pub fma_f64: bool,
    pub float16: bool,
}

/// The library function that computes `i` exactly, and its flags, if this
/// pass replaces it (see the module docs).
pub fn replacement(i: &PisaInst, native: Native) -> Option<Replacement> {
    let rep = super::exactf32::replacement_for(i, native.float16)?;
    let nearest = i.quals.rndmode.unwrap_or(Rndmode::Re) == Rndmode::Re;
    let division = matches!(i.opcode, Opcode::Fdiv | Opcode::Frcp | Opcode::Fsqrt);
    // (not where the device's f32 result would need a rounding into the
    // 16-bit format of the back end's own: bfloat16, half without
    // `float16`)
    let rounds16 = match i.quals.ty.and_then(Type::float) {
        Some(FloatKind::BFloat) => true,
        Some(FloatKind::Half) => !native.float16,
        _ => false,
    };
    if nearest && native.division && division && !rounds16 {
        return None;
    }
    let fma_f32 = i.opcode == Opcode::Fmad && i.quals.ty == Some(Type::F);
    if nearest && native.fma_f32 && fma_f32 {
        return None;
    }
    if nearest && fma_f32 && !i.quals.ftz && !i.quals.dsat {
        return Some(Replacement {
            entry: "__pisa_xd_fmarn".into(),
            flags: 0,
        });
    }
    Some(rep)
}

/// Replaces every instruction [`replacement`] names by a call of its
/// library function and links the library functions those calls need into
/// `p`. Does nothing to a program that uses none.
pub fn link(p: &mut Program, native: Native) {
    let library = Library {
        file: LIBRARY_FILE,
        source: library_source,
        base: LIBRARY_BASE,
        pass: "exactf64",
    };
    super::exactf32::link_with(p, &library, &|i| replacement(i, native));
}

/// The soft-double library's function (`ir::softf64`) that computes the
/// `.df` operation `i` exactly, and its flags, where the device's f64
/// form is not exact as Vulkan defines it (the rest stay the device's):
///
/// - `fadd`, `fsub`, `fmul` in a directed mode or `.rna` (Vulkan rounds
///   `OpFAdd`, `OpFSub`, `OpFMul` correctly to nearest even, in no other
///   mode);
/// - `fmad` in every mode (Vulkan does not require `Fma` to be fused;
///   lavapipe's rounds twice), except to nearest without `.ftz`, `.dsat`
///   where the device's `Fma` was probed fused ([`Native::fma_f64`]);
/// - `fdiv`, `fsqrt` (2.5 ULP in Vulkan), except to nearest where the
///   device's own form is asked for ([`Native::division`]);
/// - `frsqrt` (`InverseSqrt`: 2 ULP; the library's is correctly rounded,
///   as the cpu device's);
/// - `ftrunc` from `.df` in a directed mode or `.rna`, and into `.hf` and
///   `.bf` in every mode (to nearest into `.f` `OpFConvert` is correctly
///   rounded; drivers narrow into 16 bits through f32, rounding twice:
///   lavapipe does);
/// - `i2f` from a 64-bit integer into `.df` in a directed mode or `.rna`
///   (Vulkan's conversion rounds to nearest; narrower integers are exact).
///
/// The library computes them in integers, exactly and as the cpu device
/// does; `fdiv`/`fsqrt` to nearest without `.dsat` by the device's f64
/// division (square root) at a normalized scale corrected by exact
/// remainders (`@__pisa_sd_div_rn`, `@__pisa_sd_sqrt_rn`:
/// [`super::softf64::f64core`], every operand range, no branch). `fmad`
/// where the device's `Fma` is not known to be fused is the integer
/// function `@__pisa_sd_fma`.
pub fn df_replacement(i: &PisaInst, native: Native) -> Option<(String, u64)> {
    let rep = super::softf64::replacement(i)?;
    let q = &i.quals;
    let nearest = q.rndmode.unwrap_or(Rndmode::Re) == Rndmode::Re;
    let inexact = match i.opcode {
        Opcode::Fadd | Opcode::Fsub | Opcode::Fmul => !nearest,
        Opcode::Fmad => !(nearest && native.fma_f64 && !q.ftz && !q.dsat && !q.fast),
        Opcode::Frsqrt => true,
        Opcode::Fdiv | Opcode::Fsqrt => !(nearest && native.division),
        Opcode::Ftrunc => !(nearest && q.to == Some(Type::F)),
        Opcode::I2f => !nearest && q.from.map(Type::bits) == Some(64),
        _ => false,
    };
    if !inexact {
        return None;
    }
    // to nearest without `.dsat`: the device's division (square root)
    // corrected by exact remainders (`softf64::f64core`)
    if nearest && !q.dsat && matches!(i.opcode, Opcode::Fdiv | Opcode::Fsqrt) {
        return Some((format!("{}_rn", rep.0), rep.1));
    }
    Some(rep)
}

/// Replaces every `.df` instruction [`df_replacement`] names by a call of
/// the soft-double library (on devices with f64: the passes `exactf64`
/// and `exactf32` run this, unless `softf64` replaces every `.df`
/// operation after them). `pass` names the pass.
pub fn link_df(p: &mut Program, native: Native, pass: &str) {
    super::softf64::link_with(p, &|i| df_replacement(i, native), false, pass);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library assembles, and has every entry point of the f32 one.
    #[test]
    fn library_assembles() {
        let lib = super::super::bundled::assemble_library(LIBRARY_FILE, library_source());
        for name in [
            "__pisa_xd_narrow",
            "__pisa_xd_fmarn",
            "__pisa_xf_add",
            "__pisa_xf_mul",
            "__pisa_xf_fma",
            "__pisa_xf_div",
            "__pisa_xf_sqrt",
            "__pisa_xf_cvt",
            "__pisa_xh2_fma",
            "__pisa_xh_mulfull",
            "__pisa_xf_i2f_s64",
        ] {
            let n = lib.symbols.get(name).expect(name);
            assert!(lib.function(n).is_some(), "{name}");
        }
        // no division, root or fused multiply-add of the driver's
        for op in ["fdiv", "fsqrt", "fmad", "frcp", "udiv"] {
            assert!(
                !library_source().contains(&format!("\t{op}.")),
                "the f64 library uses {op}"
            );
        }
    }
}
