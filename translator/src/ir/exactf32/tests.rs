use super::*;

/// The library assembles and validates, and every function `replaces`
/// names is in it.
#[test]
fn library_assembles() {
    let lib = library();
    for name in [
        "__pisa_xf_add",
        "__pisa_xf_mul",
        "__pisa_xf_fma",
        "__pisa_xf_div",
        "__pisa_xf_sqrt",
        "__pisa_xf_round",
        "__pisa_xf_addcore",
        "__pisa_xf_roundf",
        "__pisa_xf_widen",
        "__pisa_xf_cvt",
        "__pisa_xf_i2f",
        "__pisa_xh_add",
        "__pisa_xh_rcp",
        "__pisa_xh2_fma",
        "__pisa_xh_mulfull",
        "__pisa_xh_cvt",
        "__pisa_xh2_cvt",
        "__pisa_xf_i2f_s64",
        "__pisa_xh_i2f_u8",
    ] {
        let n = lib.symbols.get(name).expect(name);
        assert!(lib.function(n).is_some(), "{name}");
    }
}

#[test]
fn flag_encoding() {
    assert_eq!(flags(Rndmode::Re, false, false, false), 0);
    assert_eq!(flags(Rndmode::Rd, true, false, true), 3 | 16 | 64);
    assert_eq!(flags(Rndmode::Rna, false, true, false), 4 | 32);
}

/// No library function loops (`fsqrt`'s 31 steps are unrolled): a driver
/// that caps loop trips per invocation (llvmpipe, docs/abi.md) counts none
/// in a library call.
#[test]
fn library_has_no_loops() {
    assert!(!super::library_source().contains("goto"));
}
