//! End-to-end runs on the Vulkan device (lavapipe in CI), every case through
//! both the library and the `pisa run` command line, with the validation
//! layer on. Cases are data: a program, its launch, and exact expected outputs.

use pisa_vk_runtime::values::{self, ArgSpec, Ty};
use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeError, RuntimeOptions};
use std::path::Path;
use std::process::Command;

struct Case {
    file: &'static str,
    kernel: &'static str,
    global: &'static str,
    local: Option<&'static str>,
    args: &'static [&'static str],
    set_globals: &'static [&'static str],
    /// (buffer argument index, "TYPE:V1,V2,...")
    expect: &'static [(usize, &'static str)],
    /// (host name, "TYPE:V1,...")
    expect_globals: &'static [(&'static str, &'static str)],
    /// the global offset, "X[,Y[,Z]]" (`pisa run --offset`), when not zero
    offset: Option<&'static str>,
}

macro_rules! case {
    ($file:expr, $kernel:expr, $global:expr, $local:expr, [$($arg:expr),*], [$($set:expr),*], [$($e:expr),*], [$($g:expr),*]) => {
        case!($file, $kernel, $global, $local, [$($arg),*], [$($set),*], [$($e),*], [$($g),*], None)
    };
    ($file:expr, $kernel:expr, $global:expr, $local:expr, [$($arg:expr),*], [$($set:expr),*], [$($e:expr),*], [$($g:expr),*], $offset:expr) => {
        Case { file: $file, kernel: $kernel, global: $global, local: $local, args: &[$($arg),*],
               set_globals: &[$($set),*], expect: &[$($e),*], expect_globals: &[$($g),*],
               offset: $offset }
    };
}

// The operand pairs of int_compare.pisa and int_minmax.pisa: MIN, MAX, -1, 0, 1 and values
// that differ only in the sign bit, at 16, 32 and 64 bits.
const PAIRS_16: &str = concat!(
    "buf:i16:",
    "-32768,32767,32767,-32768,-1,0,0,-1,-1,1,1,-32767,-32767,1,",
    "-32768,-32768,-1,-1,0,-32768,-2,-1,32767,-1,7,7",
);
const PAIRS_32: &str = concat!(
    "buf:i32:",
    "-2147483648,2147483647,2147483647,-2147483648,-1,0,0,-1,-1,1,",
    "1,-2147483647,-2147483647,1,-2147483648,-2147483648,-1,-1,",
    "0,-2147483648,-2,-1,2147483647,-1,7,7",
);
const PAIRS_64: &str = concat!(
    "buf:i64:",
    "-9223372036854775808,9223372036854775807,",
    "9223372036854775807,-9223372036854775808,-1,0,0,-1,-1,1,",
    "1,-9223372036854775807,-9223372036854775807,1,",
    "-9223372036854775808,-9223372036854775808,-1,-1,",
    "0,-9223372036854775808,-2,-1,9223372036854775807,-1,7,7",
);

const CASES: &[Case] = &[
    // fmin/fmax order −0 below +0, scalar and packed (fuzz seed 400234; values derived in the
    // .pisa header)
    case!(
        "tests/run/fminmax_zeros.pisa",
        "k",
        "1",
        None,
        ["buf:u32:0,0x80000000,0,0x80000000,0x80000000", "buf:u32:zeros:8"],
        [],
        [(
            1,
            "u32:0x80000000,0,0x80000000,0,0,0x80000000,0x80008000,0"
        )],
        []
    ),
    // fmin/fmax NaN rules with signaling NaNs, .f/.df/.hf, ±.nanp (issue 9: lavapipe returned the
    // signaling NaN; values derived in the .pisa header)
    case!(
        "tests/run/fminmax_nan.pisa",
        "k",
        "1",
        None,
        [
            "buf:u32:0x7f800001,0x7fc00000,0x3f800000,0x7fc00002,1,0x7ff00000,0,0x7ff80000,0x7e007c01",
            "buf:u32:zeros:12"
        ],
        [],
        [(
            1,
            "u32:0x7fc00001,0x7fc00001,0x7fc00000,0x3f800000,0x3f800000,0x7fc00001,0x7fc00001,0,1,0x7ff80000,0x7e01,0x7e00"
        )],
        []
    ),
    // fmad.bf with a product beyond f32's range (fuzz seed 21389)
    case!(
        "tests/run/fmad_bf_huge.pisa",
        "k",
        "1",
        None,
        ["buf:u32:2130738944,2139160448,65280", "buf:u32:zeros:4"],
        [],
        [(1, "u32:65408,32640,32640,32640")],
        []
    ),
    // .dsat of 16-bit results clamps the rounded value (fuzz seed 20608)
    case!(
        "tests/run/dsat_rounded.pisa",
        "k",
        "1",
        None,
        ["buf:u32:825559,478190720,1006681088", "buf:u32:zeros:3"],
        [],
        [(1, "u32:32768,32768,0")],
        []
    ),
    // fmad.f rounds once where Fma is not fused (lavapipe; fuzz find)
    case!(
        "tests/run/fmad_exact.pisa",
        "k",
        "1",
        None,
        ["buf:u32:1065353217,1065353215,3212836864,1602224128,1602224128,4286578687,1077936128,1065353217,880803840,0,0,0"],
        [],
        [(0, "u32:1065353217,1065353215,3212836864,1602224128,1602224128,4286578687,1077936128,1065353217,880803840,864026622,1937768448,1077936130")],
        []
    ),
    // frnd keeps the sign of zero results (.rna lost it; fuzz find)
    case!(
        "tests/run/frnd_sign.pisa",
        "k",
        "1",
        None,
        ["buf:u32:3197737370,2147483648,1050253722,3207803699,1075838976,3223322624", "buf:u32:zeros:8"],
        [],
        [(1, "u32:2147483648,2147483648,0,3212836864,1077936128,3225419776,2147483648,2147483648")],
        []
    ),
    // frnd.re.df / f2i.df.re: ties to even without the driver's f64 RoundEven
    // (issue 9: lavapipe gave 1.0 for 1.5 and left large values unrounded)
    case!(
        "tests/run/frnd_even_df.pisa",
        "k",
        "1",
        None,
        ["buf:u64:4609434218613702656,13832806255468478464,4612811918334230528,4602678819172646912,13826050856027422720,4720765037749078872,4841369599423283199,9223372036854775808", "buf:u64:zeros:11"],
        [],
        [(1, "u64:4611686018427387904,13835058055282163712,4611686018427387904,0,9223372036854775808,4720765037763887104,4841369599423283200,9223372036854775808,2,18446744073709551614,2")],
        []
    ),
    // cbit, fbh, fbl at both widths (mutation sampling: cbit's arm could be
    // deleted unnoticed)
    case!(
        "tests/run/bit_counts.pisa",
        "k",
        "6",
        Some("6"),
        ["buf:u32:0,1,2147483648,4294967295,15790080,305430528", "buf:u32:zeros:36"],
        [],
        [(1, "u32:0,4294967295,4294967295,0,65535,65535,1,31,0,1,15,0,1,0,31,0,65535,65535,32,0,0,16,0,0,8,8,12,4,0,12,6,3,15,1,0,15")],
        []
    ),
    // signed compares of sign-extended values with constants (fuzz seed
    // 5201582: lavapipe compared OpSConvert results as zero-extended)
    case!(
        "tests/run/sext64_compare.pisa",
        "k",
        "4",
        Some("4"),
        ["buf:u32:2147483656,3,4294967289,32896", "buf:u32:zeros:32"],
        [],
        [(1, "u32:1,1,1,0,2147483656,4294967295,0,0,0,0,1,1,3,0,0,0,1,1,1,0,4294967289,4294967295,1,1,0,0,0,1,32896,0,1,1")],
        []
    ),
    // break out of an outer loop from inside an inner one (mutation sampling:
    // a mutant of control.rs's direct-break guard survived every test)
    case!(
        "tests/run/break_outer_loop.pisa",
        "k",
        "4",
        Some("4"),
        ["buf:u32:106,3,4,210", "buf:u32:zeros:4"],
        [],
        [(1, "u32:1106,1003,1004,1210")],
        []
    ),
    // long computations on constants and push constants ending in a load's address:
    // llvmpipe's uniformity walk never finished compiling them (fuzz seed 7000096)
    case!(
        "tests/run/uniform_walk.pisa",
        "k",
        "1",
        None,
        ["buf:u64:zeros:2"],
        [],
        [(0, "u64:1060192639,107")],
        []
    ),
    case!(
        "tests/run/uniform_walk.pisa",
        "squares",
        "1",
        None,
        ["buf:u64:zeros:2"],
        [],
        [(0, "u64:833855397,105")],
        []
    ),
    case!(
        "tests/run/uniform_walk.pisa",
        "addresses",
        "1",
        None,
        ["buf:u64:zeros:2"],
        [],
        [(0, "u64:833855397,105")],
        []
    ),
    // IEEE results with constant operands (llvmpipe's fast-math folds; fuzz find)
    case!(
        "tests/run/float_constant_folds.pisa",
        "k",
        "1",
        None,
        ["buf:u32:2139095040,2147483648,7,7,7,7,7,7,7,7,3212836864"],
        [],
        [(
            0,
            "u32:2139095040,2147483648,4294967295,4294967295,0,0,0,4294967295,4294967295,0,2147483648"
        )],
        []
    ),
    // integer atomics of float-computed values (llvmpipe aborted compiling them; fuzz find)
    case!(
        "tests/run/atomic_of_float_bits.pisa",
        "k",
        "1",
        None,
        ["buf:u32:0,1073217536,0,1074003968,1069547520,1075838976"],
        [],
        [],
        [
            ("g", "u64:4618722892845154304,4618722892845154304,5698758935835512591,4618722892845154305"),
            ("h", "u32:1086849024,1086849024,1338445583,1086849025")
        ]
    ),
    // dp4a signedness letters and .dsat, values by hand in the program's comment
    case!(
        "tests/run/dp4a.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:6"],
        [],
        [(0, "u32:18564,17284,4294952068,4294950788,2147483647,2147483648")],
        []
    ),
    // a fence in a loop of an irreducible region in a called function (fuzz seed 7): llvmpipe
    // lost the first sub-group's stores after the call unless memory orders are relaxed
    case!(
        "tests/run/fence_in_loop.pisa",
        "k",
        "16",
        Some("16"),
        [
            "buf:u32:zeros:64",
            "buf:u32:0,11,4,6,8,10,12,14,16,18,20,22,24,26,28,30,100,0,0,0,101,0,0,0,102,0,0,0,103,0,0,0,104,0,0,0,105,0,0,0,106,0,0,0,107,0,0,0,108,0,0,0,109,0,0,0,110,0,0,0,111,0,0,0,112,0,0,0,113,0,0,0,114,0,0,0,115,0,0,0"
        ],
        [],
        [(0, "u32:100,0,0,0,101,0,0,0,102,0,0,0,103,0,0,0,104,0,0,0,105,0,0,0,106,0,0,0,107,0,0,0,108,0,0,0,109,0,0,0,110,0,0,0,111,0,0,0,112,0,0,0,113,0,0,0,114,0,0,0,115,0,0,0")],
        []
    ),
    // vector add with a partial last work-group (10 = 4 + 4 + 2)
    case!(
        "tests/run/vadd.pisa",
        "vadd",
        "10",
        Some("4"),
        [
            "buf:u32:0,1,2,3,4,5,6,7,8,9",
            "buf:u32:100,101,102,103,104,105,106,107,108,109",
            "buf:u32:zeros:10",
            "u32:10"
        ],
        [],
        [(2, "u32:100,102,104,106,108,110,112,114,116,118")],
        []
    ),
    case!(
        "shaders/saxpy.pisa",
        "saxpy",
        "10",
        Some("4"),
        [
            "f32:2",
            "buf:f32:1,2,3,4,5,6,7,8,9,10",
            "buf:f32:0.5,0,0,0,0,0,0,0,0,-20",
            "u32:10"
        ],
        [],
        [(2, "f32:2.5,4,6,8,10,12,14,16,18,0")],
        []
    ),
    // work-group reduction through .shared and barrier.workgroup; the last group has 5 work-items
    case!(
        "shaders/reduce.pisa",
        "reduce",
        "21",
        Some("8"),
        [
            "buf:u32:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21",
            "buf:u32:zeros:3",
            "u32:21"
        ],
        [],
        [(1, "u32:36,100,95")],
        []
    ),
    case!(
        "shaders/prefix_sum.pisa",
        "prefix_sum",
        "10",
        Some("16"),
        [
            "buf:i32:1,2,3,4,5,6,7,8,9,-10",
            "buf:i32:zeros:10",
            "u32:10"
        ],
        [],
        [(1, "i32:1,3,6,10,15,21,28,36,45,35")],
        []
    ),
    // initialized globals, @sym and @sym+off dereferenced, host-written and host-read globals
    case!(
        "tests/run/globals.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:4"],
        ["count=u32:5"],
        [(0, "u32:30,20,1,6")],
        [("count", "u32:6"), ("table", "u32:10,20,30,40")]
    ),
    // a struct parameter read at its members' offsets
    case!(
        "tests/run/struct_param.pisa",
        "unpack",
        "1",
        None,
        ["raw:110033224400000088776655", "buf:u32:zeros:4"],
        [],
        [(1, "u32:17,8755,68,1432778632")],
        []
    ),
    // .private array addressed through registers, with a byte store inside a word
    case!(
        "tests/run/private_array.pisa",
        "squares",
        "1",
        None,
        ["buf:u32:zeros:3"],
        [],
        [(0, "u32:45016,43785,171")],
        []
    ),
    // gotos forming an irreducible graph
    case!(
        "tests/run/irreducible.pisa",
        "irreducible",
        "4",
        Some("4"),
        ["buf:u32:zeros:4"],
        [],
        [(0, "u32:32,33,32,33")],
        []
    ),
    // atomics from a whole work-group: integer, 64-bit, float and half (compare-and-swap
    // loops, the half inside a word whose other bits survive), shared, ordered ld/st
    case!(
        "tests/run/atomics.pisa",
        "atomics",
        "50",
        Some("50"),
        ["buf:u32:0,0,0,0,2882338816,0,0,0,0,0,0"],
        [],
        [(0, "u32:50,49,2,1103626240,2882359872,50,50,0,7,1,42")],
        []
    ),
    // atomics through generic addresses (global and shared, one function for both), 16-bit
    // and float ones, atomic ld/st of 32 and 16 bits
    case!(
        "tests/run/atomic_generic.pisa",
        "k",
        "50",
        Some("50"),
        ["buf:u32:0,0,0,0,2882338816,0,0,0,0,0"],
        [],
        [(0, "u32:50,50,49,1103626240,2882338866,0,1103626240,305418816,43,2004318071")],
        []
    ),
    // 128-bit cas/xchg/ld/st on global, shared and generic addresses, 64-bit cas/ld on
    // shared memory (emulated under locks on Vulkan): exact old values, failing cas
    case!(
        "tests/run/atomic_128.pisa",
        "k",
        "1",
        None,
        ["buf:u64:1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"],
        [],
        [(
            0,
            "u64:15,16,17,18,1,2,3,4,3,4,3,4,9,10,11,12,11,12,7,8,13,14,100,200,200,200,400"
        )],
        []
    ),
    // no update lost: 256 work-items in 4 groups add to 128-bit counters (global, generic to
    // global and shared) and a 64-bit shared one with cas loops, K = 4 times each
    case!(
        "tests/run/atomic_128_count.pisa",
        "count",
        "256",
        Some("64"),
        ["buf:u64:zeros:7"],
        [],
        [(0, "u64:1024,131584,1024,131584,1024,1024,33280")],
        []
    ),
    // loops of different lengths before a barrier, and a barrier inside a called function
    case!(
        "tests/run/barrier_divergent.pisa",
        "divergent",
        "16",
        Some("16"),
        ["buf:u32:zeros:16"],
        [],
        [(0, "u32:4,6,8,10,12,14,16,18,20,22,24,26,28,30,0,2")],
        []
    ),
    // a barrier in a loop's exit block (placed after the loop), barriers in a uniform loop
    // after a divergent if/else; expected values computed from the program's comment
    case!(
        "tests/run/barrier_loops.pisa",
        "rounds",
        "16",
        Some("16"),
        ["buf:u32:zeros:16"],
        [],
        [(0, "u32:25,50,29,58,33,66,37,74,41,82,45,90,17,34,21,42")],
        []
    ),
    // fmul then fadd rounds twice (NoContraction): 0, not the fused 0x337ffffe
    case!(
        "tests/run/contraction.pisa",
        "k",
        "1",
        None,
        [
            "buf:u32:1065353217,1065353215,3212836864",
            "buf:u32:zeros:1"
        ],
        [],
        [(1, "u32:0")],
        []
    ),
    // ../shared/repros/fence-in-dispatch-loop.pisa: lavapipe took the wrong `return.cond`
    // in the dispatch-loop shape the translator used to emit (out[0] was 5)
    case!(
        "../shared/repros/fence-in-dispatch-loop.pisa",
        "k",
        "9",
        Some("9"),
        ["buf:u32:2147483648,1,1,1,1,1,1,1,1", "buf:u32:zeros:9"],
        [],
        [(1, "u32:2,7,7,7,7,7,7,7,7")],
        []
    ),
    // frc, frcp, half and bfloat16 arithmetic, exact bits
    case!(
        "tests/run/float_misc.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:6"],
        [],
        [(0, "u32:1061158912,1048576000,14336,16128,15360,16656")],
        []
    ),
    // generic addresses: casts both ways, loads and stores through them, isaddr
    case!(
        "tests/run/generic.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:8"],
        [],
        [(0, "u32:10,20,30,10,4294967295,0,4294967295,20")],
        []
    ),
    // calls through function pointers from addrof and from a symbol initializer
    case!(
        "tests/run/indirect_call.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:3"],
        [],
        [(0, "u32:10,25,14")],
        []
    ),
    // .ftz flushes denormal sources and results to zeros of their sign
    case!(
        "tests/run/ftz.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:6"],
        [],
        [(0, "u32:0,2,2147483648,0,4294967295,0")],
        []
    ),
    // .dsat clamps to [0, 1]; .nanp propagates NaN through fmin/fmax
    case!(
        "tests/run/dsat_nanp.pisa",
        "k",
        "1",
        None,
        ["buf:u32:zeros:6"],
        [],
        [(0, "u32:1065353216,0,0,1073741824,2139095040,14848")],
        []
    ),
    // a call chain with scalar and vector arguments and results
    case!(
        "tests/run/calls.pisa",
        "chain",
        "3",
        Some("3"),
        ["buf:u32:zeros:9"],
        [],
        [(0, "u32:5,2,1,13,3,2,25,4,3")],
        []
    ),
    // scmp/ucmp, every .cop, 16/32/64 bits, register and predicate results, on pairs of
    // MIN, MAX, -1, 0, 1 and values that differ only in the sign bit (masks computed by hand
    // from the spec: bit k = scmp.<eq ne lt le gt ge>[k], bit 8+k = ucmp)
    case!(
        "tests/run/int_compare.pisa",
        "cmp",
        "13",
        Some("4"),
        [
            PAIRS_16,
            PAIRS_32,
            PAIRS_64,
            "buf:u32:zeros:52"
        ],
        [],
        [(3, concat!(
            "u32:",
            "0x320e,0x320e,0x320e,0x320e,0xe32,0xe32,0xe32,0xe32,",
            "0x320e,0x320e,0x320e,0x320e,0xe32,0xe32,0xe32,0xe32,",
            "0x320e,0x320e,0x320e,0x320e,0xe32,0xe32,0xe32,0xe32,",
            "0x320e,0x320e,0x320e,0x320e,0x2929,0x2929,0x2929,0x2929,",
            "0x2929,0x2929,0x2929,0x2929,0xe32,0xe32,0xe32,0xe32,",
            "0xe0e,0xe0e,0xe0e,0xe0e,0xe32,0xe32,0xe32,0xe32,",
            "0x2929,0x2929,0x2929,0x2929",
        ))],
        []
    ),
    // smin/smax/umin/umax at 16/32/64 bits and packed, on the same pairs
    case!(
        "tests/run/int_minmax.pisa",
        "minmax",
        "13",
        Some("4"),
        [
            PAIRS_16,
            PAIRS_32,
            PAIRS_64,
            "buf:u16:zeros:52",
            "buf:u32:zeros:52",
            "buf:u64:zeros:52",
            "buf:u32:zeros:78"
        ],
        [],
        [
            (3, concat!(
                "u16:",
                "0x8000,0x7fff,0x7fff,0x8000,0x8000,0x7fff,0x7fff,0x8000,",
                "0xffff,0x0,0x0,0xffff,0xffff,0x0,0x0,0xffff,0xffff,0x1,0x1,0xffff,",
                "0x8001,0x1,0x1,0x8001,0x8001,0x1,0x1,0x8001,",
                "0x8000,0x8000,0x8000,0x8000,0xffff,0xffff,0xffff,0xffff,",
                "0x8000,0x0,0x0,0x8000,0xfffe,0xffff,0xfffe,0xffff,",
                "0xffff,0x7fff,0x7fff,0xffff,0x7,0x7,0x7,0x7",
            )),
            (4, concat!(
                "u32:",
                "0x80000000,0x7fffffff,0x7fffffff,0x80000000,",
                "0x80000000,0x7fffffff,0x7fffffff,0x80000000,",
                "0xffffffff,0x0,0x0,0xffffffff,0xffffffff,0x0,0x0,0xffffffff,",
                "0xffffffff,0x1,0x1,0xffffffff,0x80000001,0x1,0x1,0x80000001,",
                "0x80000001,0x1,0x1,0x80000001,",
                "0x80000000,0x80000000,0x80000000,0x80000000,",
                "0xffffffff,0xffffffff,0xffffffff,0xffffffff,",
                "0x80000000,0x0,0x0,0x80000000,",
                "0xfffffffe,0xffffffff,0xfffffffe,0xffffffff,",
                "0xffffffff,0x7fffffff,0x7fffffff,0xffffffff,0x7,0x7,0x7,0x7",
            )),
            (5, concat!(
                "u64:",
                "0x8000000000000000,0x7fffffffffffffff,0x7fffffffffffffff,0x8000000000000000,",
                "0x8000000000000000,0x7fffffffffffffff,0x7fffffffffffffff,0x8000000000000000,",
                "0xffffffffffffffff,0x0,0x0,0xffffffffffffffff,",
                "0xffffffffffffffff,0x0,0x0,0xffffffffffffffff,",
                "0xffffffffffffffff,0x1,0x1,0xffffffffffffffff,",
                "0x8000000000000001,0x1,0x1,0x8000000000000001,",
                "0x8000000000000001,0x1,0x1,0x8000000000000001,",
                "0x8000000000000000,0x8000000000000000,0x8000000000000000,0x8000000000000000,",
                "0xffffffffffffffff,0xffffffffffffffff,0xffffffffffffffff,0xffffffffffffffff,",
                "0x8000000000000000,0x0,0x0,0x8000000000000000,",
                "0xfffffffffffffffe,0xffffffffffffffff,0xfffffffffffffffe,0xffffffffffffffff,",
                "0xffffffffffffffff,0x7fffffffffffffff,0x7fffffffffffffff,0xffffffffffffffff,",
                "0x7,0x7,0x7,0x7",
            )),
            (6, concat!(
                "u32:",
                "0x8000ffff,0x7fff0000,0x7fff0000,0x8000ffff,0x80ffffff,0x7f000000,",
                "0x8000ffff,0x7fff0000,0x7fff0000,0x8000ffff,0x80ffffff,0x7f000000,",
                "0xffffffff,0x0,0x0,0xffffffff,0xffffffff,0x0,",
                "0xffffffff,0x0,0x0,0xffffffff,0xffffffff,0x0,",
                "0xffffffff,0x1,0x1,0xffffffff,0xffffffff,0x1,",
                "0x80000001,0x1,0x1,0x80000001,0x80000001,0x1,",
                "0x80000001,0x1,0x1,0x80000001,0x80000001,0x1,",
                "0x80000000,0x80000000,0x80000000,0x80000000,0x80000000,0x80000000,",
                "0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,",
                "0x80000000,0x0,0x0,0x80000000,0x80000000,0x0,",
                "0xfffffffe,0xffffffff,0xfffffffe,0xffffffff,0xfffffffe,0xffffffff,",
                "0xffffffff,0x7fffffff,0x7fffffff,0xffffffff,0xffffffff,0x7fffffff,",
                "0x7,0x7,0x7,0x7,0x7,0x7",
            ))
        ],
        []
    ),
    // 8- and 16-bit .shared stores at every byte position of words 0-3, neighbours written
    // by other work-items of the group, over words of ones; read back by word and sub-word
    case!(
        "tests/run/shared_subword.pisa",
        "k",
        "32",
        Some("16"),
        ["buf:u32:zeros:64"],
        [],
        [(0, concat!(
            "u32:",
            "0x30201000,0x70605040,0xb0a09080,0xf0e0d0c0,0x10010000,0x3003ffff,0xffff4004,0x70076006,",
            "0x70,0x60,0x50,0x40,0x30,0x20,0x10,0x0,",
            "0xf0,0xe0,0xd0,0xc0,0xb0,0xa0,0x90,0x80,",
            "0x3003,0xffff,0x1001,0x0,0x7007,0x6006,0xffff,0x4004,",
            "0x31211101,0x71615141,0xb1a19181,0xf1e1d1c1,0x10110010,0x3013ffff,0xffff4014,0x70176016,",
            "0x71,0x61,0x51,0x41,0x31,0x21,0x11,0x1,",
            "0xf1,0xe1,0xd1,0xc1,0xb1,0xa1,0x91,0x81,",
            "0x3013,0xffff,0x1011,0x10,0x7017,0x6016,0xffff,0x4014",
        ))],
        []
    ),
    // shl/shr/asr by amounts of the width or more (src1[5:0]), 16/32/64 bits and packed
    case!(
        "tests/run/shifts.pisa",
        "shifts",
        "13",
        Some("8"),
        [
            concat!(
                "buf:u32:",
                "0x0,0x1,0xf,0x10,0x11,0x1f,0x20,0x21,0x3f,0x40,0x41,0xffffffe1,",
                "0x80000010",
            ),
            concat!(
                "buf:u32:",
                "0x0,0x100001,0xf0010,0xffc0ffc0,0x11003f,0x200020,0x400041,0x1000f,",
                "0x3f0011,0xff0eff0f,0x300000,0x30,0x80008",
            ),
            "buf:u16:zeros:52",
            "buf:u32:zeros:52",
            "buf:u64:zeros:52",
            "buf:u32:zeros:39",
            "buf:u32:zeros:8"
        ],
        [],
        [
            (2, concat!(
                "u16:",
                "0x8001,0x8001,0x8001,0x4001,0x2,0x4000,0xc000,0x2000,",
                "0x8000,0x1,0xffff,0x0,0x0,0x0,0xffff,0x0,0x0,0x0,0xffff,0x0,",
                "0x0,0x0,0xffff,0x0,0x0,0x0,0xffff,0x0,0x0,0x0,0xffff,0x0,",
                "0x0,0x0,0xffff,0x0,0x8001,0x8001,0x8001,0x4001,",
                "0x2,0x4000,0xc000,0x2000,0x0,0x0,0xffff,0x0,0x0,0x0,0xffff,0x0",
            )),
            (3, concat!(
                "u32:",
                "0x80000001,0x80000001,0x80000001,0x40000001,",
                "0x2,0x40000000,0xc0000000,0x20000000,0x8000,0x10000,0xffff0000,0x8000,",
                "0x10000,0x8000,0xffff8000,0x4000,0x20000,0x4000,0xffffc000,0x2000,",
                "0x80000000,0x1,0xffffffff,0x0,0x0,0x0,0xffffffff,0x0,",
                "0x0,0x0,0xffffffff,0x0,0x0,0x0,0xffffffff,0x0,",
                "0x80000001,0x80000001,0x80000001,0x40000001,",
                "0x2,0x40000000,0xc0000000,0x20000000,0x0,0x0,0xffffffff,0x0,",
                "0x10000,0x8000,0xffff8000,0x4000",
            )),
            (4, concat!(
                "u64:",
                "0x8000000000000001,0x8000000000000001,0x8000000000000001,0x4000000000000001,",
                "0x2,0x4000000000000000,0xc000000000000000,0x2000000000000000,",
                "0x8000,0x1000000000000,0xffff000000000000,0x800000000000,",
                "0x10000,0x800000000000,0xffff800000000000,0x400000000000,",
                "0x20000,0x400000000000,0xffffc00000000000,0x200000000000,",
                "0x80000000,0x100000000,0xffffffff00000000,0x80000000,",
                "0x100000000,0x80000000,0xffffffff80000000,0x40000000,",
                "0x200000000,0x40000000,0xffffffffc0000000,0x20000000,",
                "0x8000000000000000,0x1,0xffffffffffffffff,0x0,",
                "0x8000000000000001,0x8000000000000001,0x8000000000000001,0x4000000000000001,",
                "0x2,0x4000000000000000,0xc000000000000000,0x2000000000000000,",
                "0x200000000,0x40000000,0xffffffffc0000000,0x20000000,",
                "0x10000,0x800000000000,0xffff800000000000,0x400000000000",
            )),
            (5, concat!(
                "u32:",
                "0x80017ffe,0x80017ffe,0x80017ffe,0xfffc,0x3fff,0xffff3fff,",
                "0x80000000,0x10000,0xffff0000,0x80017ffe,0x80017ffe,0x80017ffe,",
                "0x0,0x0,0xffff0000,0x0,0x0,0xffff0000,",
                "0x8001fffc,0x80013fff,0x80013fff,0x20000,0x40000000,0xc0000000,",
                "0x0,0x0,0xffff0000,0x40000000,0x20000,0xfffe0000,",
                "0x7ffe,0x7ffe,0xffff7ffe,0x80010000,0x80010000,0x80010000,",
                "0x100fe00,0x80007f,0xff80007f",
            )),
            (6, "u32:0,0,0xffffffff,0,1,0x80000000,1,0")
        ],
        []
    ),
    // ubfe/sbfe/bfi with widths and offsets at and past the edges
    case!(
        "tests/run/bitfield.pisa",
        "fields",
        "17",
        Some("8"),
        [concat!(
            "buf:u32:",
            "0x1,0x0,0x1,0x1f,0x8,0x4,0x8,0x1c,0x20,0x0,0x0,0x5,0x1f,0x1,0x28,0x0,",
            "0x40,0x3,0x41,0x3,0x7,0x21,0x4,0x1d,0x10,0x10,0x3,0xffffffe2,",
            "0xffffff05,0x8,0x5,0x1b,0xc,0x14",
        ), "buf:u32:zeros:51"],
        [],
        [(1, concat!(
            "u32:",
            "0x1,0xffffffff,0xb3c5a59e,0x1,0xffffffff,0x33c5a59f,",
            "0x59,0x59,0xb3c5a78f,0xb,0xfffffffb,0x83c5a59f,",
            "0xb3c5a59f,0xb3c5a59f,0x12345678,0x0,0x0,0xb3c5a59f,",
            "0x59e2d2cf,0xd9e2d2cf,0x2468acf1,0xb3c5a59f,0xb3c5a59f,0x12345678,",
            "0x0,0x0,0xb3c5a59f,0x1,0xffffffff,0xb3c5a597,",
            "0x4f,0xffffffcf,0xb3c5a5f1,0x5,0xfffffffd,0x13c5a59f,",
            "0xb3c5,0xffffb3c5,0x5678a59f,0x7,0xffffffff,0xb3c5a583,",
            "0x5,0x5,0xb3c5b89f,0x16,0xfffffff6,0xc3c5a59f,",
            "0xb3c,0xfffffb3c,0x6785a59f",
        ))],
        []
    ),
    // vector registers: ld/st of 8/16/32/64-bit elements in every space, swizzles, extract/insert
    case!(
        "tests/run/vectors.pisa",
        "vectors",
        "1",
        None,
        [concat!(
            "buf:u8:",
            "0x40,0x41,0x42,0x43,0x44,0x45,0x46,0x47,",
            "0x48,0x49,0x4a,0x4b,0x4c,0x4d,0x4e,0x4f,",
            "0x50,0x51,0x52,0x53,0x54,0x55,0x56,0x57,",
            "0x58,0x59,0x5a,0x5b,0x5c,0x5d,0x5e,0x5f,",
            "0x60,0x61,0x62,0x63,0x64,0x65,0x66,0x67,",
            "0x68,0x69,0x6a,0x6b,0x6c,0x6d,0x6e,0x6f,",
            "0x70,0x71,0x72,0x73,0x74,0x75,0x76,0x77,",
            "0x78,0x79,0x7a,0x7b,0x7c,0x7d,0x7e,0x7f",
        ), "buf:u32:zeros:34"],
        [],
        [(
            1,
            concat!(
                "u32:",
                "0x47464544,0x46,0x4b4a4948,0x4f4e4d4c,0x4f4e,0x4b4a,0x53525150,",
                "0x57565554,0x5b5a5958,0x5f5e5d5c,0x63626160,0x67666564,0x6b6a6968,",
                "0x57565554,0x53525150,0x57565554,0x5b5a5958,0x5f5e5d5c,0x43424140,",
                "0x47464544,0x4b4a4948,0x47464544,0x53525150,0x49484d4c,0x5b5a5958,",
                "0x5f5e5d5c,0x4b4a4948,0x47464544,0x49484d4c,0x5f5e5d5c,0x53525150,",
                "0xabcdef01,0x11111111,0x22222222",
            )
        )],
        []
    ),
    // ftrunc/fext ties and double-rounding traps (round to nearest even, exact rationals)
    case!(
        "tests/run/fconvert_rounding.pisa",
        "conv",
        "21",
        Some("8"),
        [
            concat!(
                "buf:u64:",
                "0x3ff0020000000000,0x3ff0060000000000,0x3ff0020000001000,",
                "0x3ff001fffffff000,0xbff0060000000000,0x3e60000000000000,",
                "0x3e78000000000000,0x3e60000000000080,0x40effe0000000000,",
                "0x40effdffffffff80,0x3f0ffc0000000000,0x3f10020000000000,",
                "0x3ddb7cdfd9d7bdbb,0xbddb7cdfd9d7bdbb,0x40a0020000000000,",
                "0x40a0060000000000,0x3fb999999999999a,0x8000000000000000,",
                "0x7ff0000000000000,0xfff0000000000000,0x1",
            ),
            "buf:u16:zeros:21",
            concat!(
                "buf:u64:",
                "0x3ff0000010000000,0x3ff0000030000000,0x3ff0000010000004,",
                "0x47effffff0000000,0x47efffffefffffe0,0x3690000000000000,",
                "0x36a8000000000000,0x3690000000001000,0xbff0000030000000,",
                "0x358dee7a4ad4b81f",
            ),
            "buf:u32:zeros:10",
            concat!(
                "buf:u32:",
                "0x3f801000,0x3f803000,0x3f801008,0x477ff000,0x477fefff,0x33c00000,",
                "0x33000000,0x1,0xbf801000",
            ),
            "buf:u16:zeros:9",
            "buf:u64:zeros:9",
            concat!(
                "buf:u32:",
                "0x3f808000,0x3f818000,0x3f808008,0x7f7f8000,0x7f7f7fff,0x808000,",
                "0x818000,0x80ff8000,0xc0490fdb",
            ),
            "buf:u16:zeros:9",
            "buf:u16:0x1,0x3ff,0xfbff,0x8000,0x7c00,0x3c01,0x3555",
            "buf:u32:zeros:7",
            "buf:u64:zeros:7",
            "buf:u16:0x1,0x8080,0x7f7f,0x3f81,0xff80",
            "buf:u32:zeros:5"
        ],
        [],
        [
            (1, concat!(
                "u16:",
                "0x3c00,0x3c02,0x3c01,0x3c00,0xbc02,0x0,0x2,0x1,0x7c00,0x7bff,0x400,",
                "0x400,0x0,0x8000,0x6800,0x6802,0x2e66,0x8000,0x7c00,0xfc00,0x0",
            )),
            (3, concat!(
                "u32:",
                "0x3f800000,0x3f800002,0x3f800001,0x7f800000,0x7f7fffff,0x0,0x2,0x1,",
                "0xbf800002,0x0",
            )),
            (5, "u16:0x3c00,0x3c02,0x3c01,0x7c00,0x7bff,0x2,0x0,0x0,0xbc00"),
            (6, concat!(
                "u64:",
                "0x3ff0020000000000,0x3ff0060000000000,0x3ff0020100000000,",
                "0x40effe0000000000,0x40effdffe0000000,0x3e78000000000000,",
                "0x3e60000000000000,0x36a0000000000000,0xbff0020000000000",
            )),
            (8, "u16:0x3f80,0x3f82,0x3f81,0x7f80,0x7f7f,0x80,0x82,0x8100,0xc049"),
            (10, concat!(
                "u32:",
                "0x33800000,0x387fc000,0xc77fe000,0x80000000,0x7f800000,0x3f802000,",
                "0x3eaaa000",
            )),
            (11, concat!(
                "u64:",
                "0x3e70000000000000,0x3f0ff80000000000,0xc0effc0000000000,",
                "0x8000000000000000,0x7ff0000000000000,0x3ff0040000000000,",
                "0x3fd5540000000000",
            )),
            (13, "u32:0x10000,0x80800000,0x7f7f0000,0x3f810000,0xff800000")
        ],
        []
    ),
    // .dsat flushes NaN results to +0 (.f, .df, .hf, .bf; quiet, negative, signalling NaNs)
    case!(
        "tests/run/dsat_nan.pisa",
        "sat",
        "10",
        Some("4"),
        [
            concat!(
                "buf:u32:",
                "0x7fc00000,0xffc00000,0x7f800001,0x7f800000,0xff800000,0xc0000000,",
                "0x3f000000,0x40000000,0x1,0x80000001",
            ),
            concat!(
                "buf:u64:",
                "0x7ff8000000000000,0xfff8000000000000,0x7ff0000000000000,",
                "0xfff0000000000000,0xc000000000000000,0x3fe0000000000000,",
                "0x4000000000000000",
            ),
            "buf:u16:0x7e00,0xfe00,0x7c00,0xfc00,0xc000,0x3800,0x4000",
            "buf:u16:0x7fc0,0xffc0,0x7f80,0xff80,0xc000,0x3f00,0x4000",
            "buf:u32:zeros:50",
            "buf:u64:zeros:14",
            "buf:u16:zeros:14",
            "buf:u16:zeros:14"
        ],
        [],
        [
            (4, concat!(
                "u32:",
                "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,",
                "0x3f800000,0x3f800000,0x3f800000,0x3f400000,0x3f800000,",
                "0,0x3f800000,0x3f800000,0,0,0,0x3f800000,0x3f800000,0,0,",
                "0x3f000000,0x3e800000,0,0x3f000000,0x3f000000,",
                "0x3f800000,0x3f800000,0x3f800000,0x3f400000,0x3f800000,1,0,0,1,1,",
                "0,0,0,0,0",
            )),
            (5, concat!(
                "u64:",
                "0,0,0,0,0x3ff0000000000000,0x3ff0000000000000,0,0x3ff0000000000000,",
                "0,0x3ff0000000000000,0x3fe0000000000000,0x3fd0000000000000,",
                "0x3ff0000000000000,0x3ff0000000000000",
            )),
            (6, concat!(
                "u16:",
                "0,0,0,0,0x3c00,0x3c00,0,0x3c00,0,0x3c00,0x3800,0x3400,0x3c00,0x3c00",
            )),
            (7, concat!(
                "u16:",
                "0,0,0,0,0x3f80,0x3f80,0,0x3f80,0,0x3f80,0x3f00,0x3e80,0x3f80,0x3f80",
            ))
        ],
        []
    ),
    // a launch with a global offset: ids count from it, the special registers report it
    case!(
        "tests/run/global_offset.pisa",
        "ids",
        "6,3",
        Some("4,2"),
        ["buf:u32:zeros:18", "buf:u32:zeros:10"],
        [],
        [
            (0, concat!(
                "u32:",
                "0x70064,0x70065,0x70066,0x70067,0x70068,0x70069,",
                "0x80064,0x80065,0x80066,0x80067,0x80068,0x80069,",
                "0x90064,0x90065,0x90066,0x90067,0x90068,0x90069",
            )),
            (1, "u32:100,7,0,2,6,3,1,2,2,1")
        ],
        [],
        Some("100,7")
    ),
    // fmad.hf / fmad.bf round a*b + c once, not through f32 (values derived in the .pisa header)
    case!(
        "tests/run/fmad16_rounding.pisa",
        "hf",
        "8",
        Some("4"),
        [
            "buf:u16:0x3e00,0x4460,0xa1ca,0xc63e,0x8001,0x3c00,0x7bff,0x0001",
            "buf:u16:0x3956,0xead0,0x5d00,0x3d00,0x0001,0x3c00,0x4000,0x3800",
            "buf:u16:0x0001,0x096c,0x8001,0x0001,0x0000,0xbc00,0x0000,0x0001",
            "buf:u16:zeros:8"
        ],
        [],
        [(3, "u16:0x3c01,0xf373,0xc33d,0xc7cd,0x8000,0x0000,0x7c00,0x0002")],
        []
    ),
    case!(
        "tests/run/fmad16_rounding.pisa",
        "bf",
        "10",
        Some("4"),
        [
            "buf:u16:0x6356,0xc61c,0x2997,0x5f80,0x7f00,0x7f00,0x8001,0x0001,0x0d80,0x5f81",
            "buf:u16:0x31c0,0x3ed0,0x4040,0x5f80,0x4000,0x4000,0x0d80,0x3f00,0x0d80,0x5f80",
            "buf:u16:0x48aa,0x3779,0x1c7a,0xff7f,0xff40,0x0000,0x0000,0x0001,0x0001,0xff7f",
            "buf:u16:zeros:10"
        ],
        [],
        [(3, "u16:0x55a1,0xc57d,0x2a63,0x7b80,0x7e80,0x7f80,0x8000,0x0002,0x0001,0x7c40")],
        []
    ),
    // fabs quiets NaNs and clears their sign (.f, .df, .hf, .bf); fneg only flips the sign
    case!(
        "tests/run/fabs_nan.pisa",
        "abs",
        "6",
        Some("4"),
        [
            "buf:u32:0xff800001,0x7f800001,0xffc00005,0xff800000,0x80000001,0xbfc00000",
            concat!(
                "buf:u64:",
                "0xfff0000000000001,0x7ff0000000000001,0xfff8000000000005,",
                "0xfff0000000000000,0x8000000000000001,0xbff8000000000000",
            ),
            "buf:u16:0xfc01,0x7c01,0xfe05,0xfc00,0x8001,0xbe00",
            "buf:u16:0xff81,0x7f81,0xffc5,0xff80,0x8001,0xbfc0",
            "buf:u32:zeros:18",
            "buf:u64:zeros:6",
            "buf:u16:zeros:6",
            "buf:u16:zeros:6"
        ],
        [],
        [
            (4, concat!(
                "u32:",
                "0x7fc00001,0x7f800001,0x7fc00001,0x7fc00001,0xff800001,0x7fc00001,",
                "0x7fc00005,0x7fc00005,0x7fc00005,0x7f800000,0x7f800000,0x7f800000,",
                "0x00000001,0x00000001,0,0x3fc00000,0x3fc00000,0x3fc00000",
            )),
            (5, concat!(
                "u64:",
                "0x7ff8000000000001,0x7ff8000000000001,0x7ff8000000000005,",
                "0x7ff0000000000000,0x1,0x3ff8000000000000",
            )),
            (6, "u16:0x7e01,0x7e01,0x7e05,0x7c00,0x0001,0x3e00"),
            (7, "u16:0x7fc1,0x7fc1,0x7fc5,0x7f80,0x0001,0x3fc0")
        ],
        []
    ),
    // frc rounds its subtraction down too: the result stays in [0, 1)
    case!(
        "tests/run/frc_round_down.pisa",
        "frc",
        "11",
        Some("4"),
        [
            concat!(
                "buf:u32:",
                "0xb0800000,0xbe800001,0x80000001,0xbf7fffff,0x40300000,0xc0300000,",
                "0xbfc00000,0xc0400000,0x80000000,0x3eaaaaab,0x7f800000",
            ),
            "buf:u32:zeros:11"
        ],
        [],
        [(1, concat!(
            "u32:",
            "0x3f7fffff,0x3f3fffff,0x3f7fffff,0x33800000,0x3f400000,0x3e800000,",
            "0x3f000000,0,0,0x3eaaaaab,0x7fc00000",
        ))],
        []
    ),
    // ftrunc of a subnormal source is a zero of its sign (bf.f, hf.f, f.df, hf.df)
    case!(
        "tests/run/ftrunc_subnormal.pisa",
        "conv",
        "6",
        Some("4"),
        [
            "buf:u32:0x00400000,0x807fffff,0x00000001,0x80000001,0x00800000,0x80800000",
            concat!(
                "buf:u64:",
                "0x1,0x8000000000000001,0x000fffffffffffff,0x800fffffffffffff,",
                "0x0010000000000000,0x8010000000000000",
            ),
            "buf:u16:zeros:6",
            "buf:u16:zeros:6",
            "buf:u32:zeros:6",
            "buf:u16:zeros:6"
        ],
        [],
        [
            (2, "u16:0,0x8000,0,0x8000,0x0080,0x8080"),
            (3, "u16:0,0x8000,0,0x8000,0,0x8000"),
            (4, "u32:0,0x80000000,0,0x80000000,0,0x80000000"),
            (5, "u16:0,0x8000,0,0x8000,0,0x8000")
        ],
        []
    ),
];

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn dims(s: &str) -> ([u32; 3], u32) {
    let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap()).collect();
    let mut d = [1; 3];
    d[..v.len()].copy_from_slice(&v);
    (d, v.len() as u32)
}

fn expected(spec: &str) -> (Ty, Vec<u8>) {
    let (t, v) = spec.split_once(':').unwrap();
    let ty = Ty::parse(t).unwrap();
    (ty, values::encode_list(ty, v).unwrap())
}

/// Assembles a program of the repository and loads it.
fn load(rt: &mut dyn Device, path: &str) -> pisa_vk_runtime::ProgramId {
    let src = std::fs::read_to_string(root(path)).unwrap();
    let m = pisa_translator::assemble(path, &src).unwrap_or_else(|d| panic!("{d}"));
    rt.load(&m).unwrap()
}

fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// Runs every case on a device and checks its outputs exactly.
fn run_cases_on(rt: &mut dyn Device) {
    for c in CASES {
        let prog = load(rt, c.file);
        for g in c.set_globals {
            let (name, spec) = g.split_once('=').unwrap();
            rt.write_global(prog, name, &expected(spec).1).unwrap();
        }
        let mut bufs = Vec::new();
        let mut args = Vec::new();
        for a in c.args {
            match values::parse_arg(a).unwrap() {
                ArgSpec::Scalar(b) => {
                    bufs.push(None);
                    args.push(b);
                }
                ArgSpec::Buffer(_, b) => {
                    let id = rt.alloc_buffer(b.len() as u64).unwrap();
                    rt.upload(id, 0, &b).unwrap();
                    args.push(rt.buffer_address(id).unwrap().to_le_bytes().to_vec());
                    bufs.push(Some(id));
                }
            }
        }
        let (global, d) = dims(c.global);
        let range = NdRange {
            global,
            local: c.local.map(|l| dims(l).0),
            // dimensions the offset leaves out are 0 (dims() fills sizes with 1)
            offset: c.offset.map_or([0; 3], |o| {
                let mut off = [0; 3];
                for (d, v) in o.split(',').enumerate() {
                    off[d] = v.parse().unwrap();
                }
                off
            }),
            dims: d,
        };
        rt.launch(&Launch {
            program: prog,
            kernel: c.kernel.into(),
            range,
            args,
        })
        .unwrap_or_else(|e| panic!("{}: {e}", c.file));
        for (i, spec) in c.expect {
            let (_, want) = expected(spec);
            let got = rt.download(bufs[*i].unwrap()).unwrap();
            assert_eq!(
                got,
                want,
                "{} on {}: argument {i}: expected {spec}",
                c.file,
                rt.device_info().name
            );
        }
        for (name, spec) in c.expect_globals {
            assert_eq!(
                rt.read_global(prog, name).unwrap(),
                expected(spec).1,
                "{}: global {name}",
                c.file
            );
        }
    }
}

/// The run-case tables on lavapipe one at a time: atomic_128_count.pisa's
/// spin locks count against llvmpipe's loop cap, and two tables contending
/// for the machine's cores at once made it reach the cap (the launch then
/// fails with the loop-cap error, never with a wrong count).
static ONE_TABLE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn cases_through_the_library() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = runtime();
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// Checked mode (`pisa run --check`) finds no bad access in these correct
/// programs, and changes none of their results.
#[test]
fn cases_in_checked_mode() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        checked_memory: true,
        // each access searches the allocation table: the spin-lock
        // contention of atomic_128_count.pisa takes seconds longer (this
        // bounds a hang; no timing test)
        timeout: std::time::Duration::from_secs(120),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    run_cases_on(&mut rt);
    let msgs = rt.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}

/// The same cases on the reference device: both devices agree with the
/// expected outputs, so they agree with each other.
#[test]
fn cases_on_the_cpu_device() {
    run_cases_on(&mut pisa_interp::CpuDevice::new());
}

/// The JSON a successful `pisa run --json` printed, with no validation message.
fn run_json(out: std::process::Output) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The final contents of buffer argument `i` in `pisa run --json` output.
fn arg_data(json: &serde_json::Value, i: usize) -> &serde_json::Value {
    let arg = json["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["index"] == i)
        .unwrap();
    &arg["data"]
}

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.env("PISA_VALIDATION", "1");
    c
}

#[test]
fn cases_through_the_command_line() {
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cases_through_the_command_line_on(None);
}

#[test]
fn cases_through_the_command_line_on_the_cpu_device() {
    cases_through_the_command_line_on(Some("cpu"));
}

fn cases_through_the_command_line_on(device: Option<&str>) {
    for c in CASES {
        let mut cmd = pisa();
        cmd.args([
            "run",
            &root(c.file),
            "--kernel",
            c.kernel,
            "--global",
            c.global,
            "--json",
        ]);
        if let Some(l) = c.local {
            cmd.args(["--local", l]);
        }
        if let Some(o) = c.offset {
            cmd.args(["--offset", o]);
        }
        for a in c.args {
            cmd.arg(format!("--arg={a}"));
        }
        for g in c.set_globals {
            cmd.args(["--set-global", g]);
        }
        if let Some(d) = device {
            cmd.args(["--device", d]);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", c.file);
        assert!(
            !stderr.contains("vulkan validation"),
            "{}: {stderr}",
            c.file
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (i, spec) in c.expect {
            let (ty, want) = expected(spec);
            let arg = json["args"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["index"] == *i)
                .unwrap();
            assert_eq!(arg["type"], ty.name());
            let got: Vec<u8> = arg["data"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|v| {
                    ty.encode(v.as_str().map_or(v.to_string(), str::to_string).as_str())
                        .unwrap()
                })
                .collect();
            assert_eq!(got, want, "{}: argument {i}", c.file);
        }
        for (name, spec) in c.expect_globals {
            let bytes: Vec<u8> = json["globals"][name]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u8)
                .collect();
            assert_eq!(bytes, expected(spec).1, "{}: global {name}", c.file);
        }
        assert!(json["kernel_ms"].as_f64().unwrap() >= 0.0);
        assert!(json["compile_ms"].as_f64().unwrap() > 0.0);
    }
}

/// Assembling, translating and the driver's compilation are bounded by
/// `--compile-timeout` (the launch's `--timeout` cannot cover a driver's
/// compiler), with a clear error naming the step (issue 11: a huge module
/// compiled silently for minutes).
#[test]
fn compilation_past_the_compile_timeout_is_an_error() {
    let path = std::env::temp_dir().join(format!("pisa-long-{}.pisa", std::process::id()));
    let mut src =
        String::from(".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .32b %v;\n");
    for _ in 0..100_000 {
        src.push_str("\tiadd.32b %v, %v, 1;\n");
    }
    src.push_str("\treturn;\n}\n");
    std::fs::write(&path, src).unwrap();
    let t = std::time::Instant::now();
    let out = pisa()
        .arg("run")
        .arg(&path)
        .args(["--kernel", "k", "--global", "1", "--device", "cpu"])
        .args(["--arg", "buf:u32:zeros:1", "--compile-timeout", "0.01"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("took longer than 0.01 s (--compile-timeout)")
            && (stderr.contains("assembling") || stderr.contains("translating")),
        "{stderr}"
    );
    // stopped there, not after finishing (the whole run takes seconds in a
    // debug build; this bounds a hang, it is not a timing test)
    assert!(t.elapsed() < std::time::Duration::from_secs(60));
    let _ = std::fs::remove_file(path);
}

/// A kernel that takes the driver longer to compile than `--timeout` gives
/// the launch still runs: the launch timeout bounds running, and
/// `--compile-timeout` compiling, also where the driver compiles at the
/// first dispatch (llvmpipe: this kernel, 2,000 exactly rounded `fmad.f`
/// and `fmul.f`, compiles for seconds; before, that counted against the
/// launch's 0.5 s and the run failed as "did not finish").
#[test]
fn a_long_compilation_is_not_a_launch_timeout() {
    // not beside a run-case table: seconds of llvmpipe compiling on the
    // other core pushed atomic_128_count's spin locks past llvmpipe's loop
    // cap once
    let _one = ONE_TABLE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut src = String::from(".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p;\n\t.reg .32b %v, %w, %u;\n\tld.param.64b %p, [%o];\n\tld.global.32b %v, [%p];\n\tld.global.32b %w, [%p + 4];\n\tld.global.32b %u, [%p + 8];\n");
    for _ in 0..1000 {
        src.push_str("\tfmad.f %v, %v, %w, %u;\n\tfmul.f %w, %w, %v;\n");
    }
    src.push_str("\tst.global.32b [%p], %v;\n\tst.global.32b [%p + 4], %w;\n\treturn;\n}\n");
    let path = std::env::temp_dir().join(format!("pisa-slow-compile-{}.pisa", std::process::id()));
    std::fs::write(&path, src).unwrap();
    let run = |device: &[&str]| {
        pisa()
            .arg("run")
            .arg(&path)
            .args([
                "--kernel",
                "k",
                "--global",
                "1",
                "--json",
                "--timeout",
                "0.5",
            ])
            .args(["--arg", "buf:f32:1.0001,0.9999,0.5"])
            .args(device)
            // a compilation from Mesa's shader cache would take no time
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .output()
            .unwrap()
    };
    let gpu = run(&[]);
    let stderr = String::from_utf8_lossy(&gpu.stderr);
    assert_eq!(gpu.status.code(), Some(0), "{stderr}");
    let cpu = run(&["--device", "cpu"]);
    let args = |o: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["args"].clone()
    };
    assert_eq!(args(&gpu), args(&cpu));
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_kernel_that_never_ends_hits_the_timeout() {
    let t = std::time::Instant::now();
    // millions of work-items: llvmpipe caps each one's loop, so the launch
    // must still outlast the timeout
    let out = pisa()
        .args([
            "run",
            &root("tests/run/forever.pisa"),
            "--kernel",
            "forever",
            "--global",
            "16777216",
            "--local",
            "64",
        ])
        .args(["--arg", "buf:u32:zeros:1", "--timeout", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("did not finish within 1s"), "{stderr}");
    assert!(
        t.elapsed().as_secs() < 30,
        "the process must not hang after a timeout"
    );
}

fn count_to(
    rt: &mut Runtime,
    prog: pisa_vk_runtime::ProgramId,
    n: u32,
) -> Result<u32, RuntimeError> {
    let out = rt.alloc_buffer(4).unwrap();
    let args = vec![
        rt.buffer_address(out).unwrap().to_le_bytes().to_vec(),
        n.to_le_bytes().to_vec(),
    ];
    rt.launch(&Launch {
        program: prog,
        kernel: "count".into(),
        range: NdRange::d1(1),
        args,
    })?;
    Ok(rt.read::<u32>(out).unwrap()[0])
}

/// A loop of a million iterations runs on every driver, llvmpipe included
/// (its cap of 65,535 back edges is lifted by unrolling, ir::unroll).
#[test]
fn a_million_iteration_loop_runs() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/count.pisa");
    assert_eq!(count_to(&mut rt, prog, 1_000_000).unwrap(), 1_000_000);
}

/// Translated with the default options (loop-cap checks, no unrolling), as
/// `pisa spirv` writes a module for `pisa run --spirv`: on llvmpipe a loop
/// past the cap is reported, never a wrong count. (A version of the checks
/// that the driver's optimizer could see through returned 65,536 here.)
#[test]
fn default_translation_reports_the_loop_cap() {
    let mut rt = runtime();
    let src = std::fs::read_to_string(root("tests/run/count.pisa")).unwrap();
    let m = pisa_translator::assemble("count.pisa", &src).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    let prog = rt.load_translated(&spv).unwrap();
    let n = 100_000;
    let r = count_to(&mut rt, prog, n);
    if rt.device_info().caps_loops {
        assert!(matches!(r, Err(RuntimeError::LoopLimit)), "{r:?}");
    } else {
        assert_eq!(r.unwrap(), n);
    }
}

/// Beyond the cap × the unroll factor, llvmpipe's cut is reported, never a
/// wrong count.
#[test]
fn long_loops_give_the_right_count_or_an_error() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/count.pisa");
    let n = 20_000_000;
    let r = count_to(&mut rt, prog, n);
    if rt.device_info().name.contains("llvmpipe") {
        assert!(matches!(r, Err(RuntimeError::LoopLimit)), "{r:?}");
    } else {
        assert_eq!(r.unwrap(), n);
    }
}

#[test]
fn malformed_arguments_are_errors_before_anything_runs() {
    for (arg, msg) in [
        ("buf:u33:1", "unknown type `u33`"),
        ("u8:300", "300 does not fit in u8"),
        ("raw:abc", "even number of hex digits"),
        ("f32", "expected TYPE:VALUE"),
        // issue 11: these were accepted and ran with other values
        (
            "buf:f32:zeros:4611686018427387905",
            "elements are too large a buffer",
        ),
        ("buf:f32:1,,2", "value 1 of the list is empty"),
        ("buf:f32:1e39", "1e39 is out of the range of f32"),
        ("f16:70000", "70000 is out of the range of f16"),
    ] {
        let out = pisa()
            .args([
                "run",
                &root("tests/run/vadd.pisa"),
                "--kernel",
                "vadd",
                "--global",
                "4",
                "--arg",
                arg,
            ])
            .env("PISA_DEVICE", "no-such-device")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        // the device selection would fail: the argument error must come first
        assert!(stderr.contains(msg), "{arg}: {stderr}");
    }
}

/// Sizes, offsets and timeouts that used to be accepted (or panic) are errors
/// before anything runs (issue 11).
#[test]
fn malformed_launch_options_are_errors() {
    let bin = std::env::temp_dir().join(format!("pisa-seven-{}.bin", std::process::id()));
    std::fs::write(&bin, [0u8; 7]).unwrap();
    let seven = format!("buf:f32:@{}", bin.display());
    for (opts, msg) in [
        (vec!["--global", "0"], "sizes must be at least 1"),
        (vec!["--global", "10,0"], "sizes must be at least 1"),
        (
            vec!["--global", "4", "--local", "0"],
            "sizes must be at least 1",
        ),
        (
            vec!["--global", "4", "--offset", "4294967295"],
            "overflows 32 bits",
        ),
        (
            vec!["--global", "4", "--timeout", "1e100"],
            "--timeout must be",
        ),
        (
            vec!["--global", "4", "--timeout", "inf"],
            "--timeout must be",
        ),
        (
            vec!["--global", "4", "--compile-timeout", "0"],
            "--compile-timeout must be",
        ),
        (
            vec!["--global", "4", "--arg", seven.as_str()],
            "not a whole number of f32 values",
        ),
    ] {
        let out = pisa()
            .args(["run", &root("tests/run/vadd.pisa"), "--kernel", "vadd"])
            .args(&opts)
            .env("PISA_DEVICE", "no-such-device")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{opts:?}: {stderr}");
        assert!(stderr.contains(msg), "{opts:?}: {stderr}");
    }
    let _ = std::fs::remove_file(bin);
}

/// Raw SPIR-V reaches the driver only after spirv-val found it valid (issue
/// 11: a module that fails spirv-val ran and exited 0); its arguments, which
/// nothing declares, are noted as unchecked.
#[test]
fn raw_spirv_is_validated_before_it_is_loaded() {
    let dir = std::env::temp_dir().join(format!("pisa-badspv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("saxpy.spv");
    let out = pisa()
        .args(["spirv", &root("shaders/saxpy.pisa"), "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let run = |path: &Path| {
        pisa()
            .args(["run", "--spirv"])
            .arg(path)
            .args(["--kernel", "saxpy", "--global", "4", "--arg", "f32:2"])
            .args(["--arg", "buf:f32:1,2,3,4", "--arg", "buf:f32:zeros:4"])
            .args(["--arg", "u32:4"])
            .output()
            .unwrap()
    };
    let good = run(&spv);
    let stderr = String::from_utf8_lossy(&good.stderr);
    assert!(good.status.success(), "{stderr}");
    // `pisa spirv` describes its kernels' parameters inside the module
    // (kernel_info.rs): arguments are checked as a PISA program's
    assert!(!stderr.contains("unchecked"), "{stderr}");
    let short = pisa()
        .args(["run", "--spirv"])
        .arg(&spv)
        .args(["--kernel", "saxpy", "--global", "4", "--arg", "f32:2"])
        .args(["--arg", "buf:f32:1,2,3,4", "--arg", "buf:f32:zeros:4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&short.stderr);
    assert_eq!(short.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("takes 4 arguments, 3 given"), "{stderr}");
    // an id bound below the ids the module uses: structurally readable,
    // invalid for spirv-val
    let mut bytes = std::fs::read(&spv).unwrap();
    bytes[12..16].copy_from_slice(&3u32.to_le_bytes());
    let bad = dir.join("bad.spv");
    std::fs::write(&bad, bytes).unwrap();
    let out = run(&bad);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not valid SPIR-V for Vulkan 1.2") && stderr.contains("ID bound"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn raw_spirv_from_pisa_spirv_and_spirv_opt_runs_like_the_module() {
    let dir = std::env::temp_dir().join(format!("pisa-raw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("saxpy.spv");
    let opt = dir.join("saxpy.opt.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["spirv", &root("shaders/saxpy.pisa"), "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words = match Command::new("spirv-opt")
        .arg("-O")
        .arg(&spv)
        .arg("-o")
        .arg(&opt)
        .output()
    {
        Ok(o) if o.status.success() => &opt,
        Ok(o) => panic!("spirv-opt: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "spirv-opt must be installed in CI"
            );
            &spv
        }
    };
    let npy = dir.join("y.npy");
    let out = pisa()
        .args(["run", "--spirv"])
        .arg(words)
        .args([
            "--kernel", "saxpy", "--global", "5", "--local", "2", "--arg", "f32:3",
        ])
        .args([
            "--arg",
            "buf:f32:1,2,3,4,5",
            "--arg",
            "buf:f32:1,1,1,1,1",
            "--arg",
            "u32:5",
            "--json",
        ])
        .arg(format!("--out=2={}", npy.display()))
        .output()
        .unwrap();
    let json = run_json(out);
    assert_eq!(
        arg_data(&json, 2),
        &serde_json::json!([4.0, 7.0, 10.0, 13.0, 16.0])
    );
    // the .npy file: header, then the five f32 values
    let bytes = std::fs::read(&npy).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    assert_eq!(
        (10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize) % 64,
        0
    );
    assert!(String::from_utf8_lossy(&bytes[10..])
        .contains("'descr': '<f4', 'fortran_order': False, 'shape': (5,)"));
    let data: Vec<f32> = bytes[bytes.len() - 20..]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(data, vec![4.0, 7.0, 10.0, 13.0, 16.0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wild_pointer_is_explained_not_a_silent_crash() {
    // run in a child process: software drivers fault inside the process
    let out = pisa()
        .args([
            "run",
            &root("tests/run/wild_pointer.pisa"),
            "--kernel",
            "wild",
            "--global",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("accessed memory outside its buffers")
            || stderr.contains("device was lost"),
        "{stderr}"
    );
}

#[test]
fn several_launches_in_one_submission_run_in_order() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/vadd.pisa");
    let a = rt.buffer_from(&[1u32, 2, 3, 4, 5]).unwrap();
    let b = rt.buffer_from(&[10u32, 20, 30, 40, 50]).unwrap();
    let c = rt.alloc_buffer(20).unwrap();
    let d = rt.alloc_buffer(20).unwrap();
    let addr = |rt: &Runtime, x| rt.buffer_address(x).unwrap().to_le_bytes().to_vec();
    let n = 5u32.to_le_bytes().to_vec();
    let launch = |x, y, z| Launch {
        program: prog,
        kernel: "@vadd".into(),
        range: NdRange::d1(5).local([2, 1, 1]),
        args: vec![x, y, z, n.clone()],
    };
    // d = (a + b) + b: the second launch reads what the first wrote
    let first = launch(addr(&rt, a), addr(&rt, b), addr(&rt, c));
    let second = launch(addr(&rt, c), addr(&rt, b), addr(&rt, d));
    let pending = rt.submit(&[first, second]).unwrap();
    let timings = rt.wait(pending).unwrap();
    assert_eq!(timings.len(), 2);
    assert_eq!(rt.read::<u32>(d).unwrap(), vec![21, 42, 63, 84, 105]);
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

/// Timestamps for every launch of a larger submission: the query pool
/// holds two queries per launch (a mutation that sized it for two launches
/// at most went unnoticed).
#[test]
fn every_launch_of_a_submission_is_timed() {
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timestamps: true,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    let prog = load(&mut rt, "tests/run/vadd.pisa");
    let a = rt.buffer_from(&[1u32, 2, 3, 4, 5]).unwrap();
    let c = rt.alloc_buffer(20).unwrap();
    let addr = |rt: &Runtime, x| rt.buffer_address(x).unwrap().to_le_bytes().to_vec();
    let n = 5u32.to_le_bytes().to_vec();
    let launch = Launch {
        program: prog,
        kernel: "@vadd".into(),
        range: NdRange::d1(5).local([2, 1, 1]),
        args: vec![addr(&rt, a), addr(&rt, a), addr(&rt, c), n],
    };
    let batch: Vec<Launch> = (0..5).map(|_| launch.clone()).collect();
    let pending = rt.submit(&batch).unwrap();
    let timings = rt.wait(pending).unwrap();
    assert_eq!(timings.len(), 5);
    assert!(timings.iter().all(|t| t.kernel_ns.is_some()), "{timings:?}");
    assert_eq!(rt.read::<u32>(c).unwrap(), vec![2, 4, 6, 8, 10]);
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

#[test]
fn devices_are_listed_and_selected_by_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .arg("devices")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("0: "), "{text}");
    assert!(
        text.contains("Vulkan 1.")
            && text.contains("subgroup size")
            && text.contains("bufferDeviceAddress"),
        "{text}"
    );
    let first_name = text.lines().next().unwrap()[3..]
        .split(" (")
        .next()
        .unwrap()
        .to_string();
    let run = |sel: &str| {
        pisa()
            .args([
                "run",
                &root("tests/run/vadd.pisa"),
                "--kernel",
                "vadd",
                "--global",
                "2",
                "--device",
                sel,
            ])
            .args([
                "--arg",
                "buf:u32:1,2",
                "--arg",
                "buf:u32:3,4",
                "--arg",
                "buf:u32:zeros:2",
                "--arg",
                "u32:2",
            ])
            .output()
            .unwrap()
    };
    let ok = run(&first_name[..4.min(first_name.len())]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("[4, 6]"));
    let bad = run("no-such-device");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("no Vulkan device matches `no-such-device`")
    );
}

/// The hand-written GLSL kernel in docs/abi.md, compiled with glslang, runs
/// through `pisa run --spirv` like a translated kernel: the ABI document is
/// complete enough to write kernels against.
#[test]
fn the_abi_documents_glsl_example_runs() {
    let doc = std::fs::read_to_string(root("docs/abi.md")).unwrap();
    let start = doc
        .find("```glsl\n")
        .expect("a GLSL example in docs/abi.md")
        + 8;
    let glsl = &doc[start..start + doc[start..].find("```").unwrap()];
    let dir = std::env::temp_dir().join(format!("pisa-glsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.comp"), glsl).unwrap();
    let spv = dir.join("k.spv");
    let compiled = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-S", "comp", "-o"])
        .arg(&spv)
        .arg(dir.join("k.comp"))
        .output();
    match compiled {
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout)),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "glslang-tools must be installed in CI"
            );
            eprintln!("SKIPPED: glslangValidator is not installed");
            return;
        }
    }
    let out = pisa()
        .args(["run", "--spirv"])
        .arg(&spv)
        .args([
            "--kernel", "main", "--global", "5", "--local", "2", "--json",
        ])
        .args([
            "--arg",
            "buf:f32:1,2,3,4,5",
            "--arg",
            "buf:f32:1,1,1,1,1",
            "--arg",
            "f32:3",
        ])
        .output()
        .unwrap();
    // GLSL describes no parameters: the arguments are noted as unchecked
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        stderr.contains("3 argument(s) (20 bytes, each 8-byte aligned) are passed unchecked"),
        "{stderr}"
    );
    let json = run_json(out);
    assert_eq!(
        arg_data(&json, 1),
        &serde_json::json!([4.0, 7.0, 10.0, 13.0, 16.0])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Launches with more work-groups than one dispatch may have (65,535 per
/// dimension on lavapipe), partial work-groups and global offsets: every
/// work-item runs exactly once. (Before the runtime split such launches,
/// `--global 70000 --local 1` ran only some work-items and reported success.)
#[test]
fn big_launches_run_every_work_item_once() {
    let mut rt = runtime();
    let prog = load(&mut rt, "tests/run/mark.pisa");
    for (global, local, offset, dims) in [
        ([70_000, 1, 1], [1, 1, 1], [0, 0, 0], 1),
        ([200_003, 1, 1], [3, 1, 1], [5, 0, 0], 1),
        ([3, 70_001, 1], [2, 1, 1], [0, 7, 0], 2),
        ([2, 3, 66_000], [1, 2, 1], [1, 2, 3], 3),
    ] {
        let n: u32 = global.iter().product();
        let out = rt.alloc_buffer(4 * n as u64).unwrap();
        let args = vec![
            rt.buffer_address(out).unwrap().to_le_bytes().to_vec(),
            global[0].to_le_bytes().to_vec(),
            global[1].to_le_bytes().to_vec(),
        ];
        rt.launch(&Launch {
            program: prog,
            kernel: "mark".into(),
            range: NdRange {
                global,
                local: Some(local),
                offset,
                dims,
            },
            args,
        })
        .unwrap();
        let got: Vec<u32> = rt.read(out).unwrap();
        let wrong = got.iter().filter(|&&v| v != 1).count();
        assert_eq!(
            wrong, 0,
            "{global:?} / {local:?}: {wrong} of {n} slots not 1"
        );
        rt.free_buffer(out);
    }
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}

/// A kernel name that is not in the module is an error that lists the
/// module's kernels (issue 11: it named none).
#[test]
fn an_unknown_kernel_lists_the_kernels() {
    let mut rt = runtime();
    let prog = load(&mut rt, "shaders/saxpy.pisa");
    let e = rt
        .launch(&Launch {
            program: prog,
            kernel: "sax".into(),
            range: NdRange::d1(4),
            args: vec![],
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no kernel `sax` in this module; its kernels: @saxpy"
    );
}

/// `pisa devices --json`: one object per device, exactly one default, with
/// the limits launches depend on (issue 11).
#[test]
fn devices_as_json() {
    let out = pisa().args(["devices", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let devs: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!devs.is_empty());
    assert_eq!(devs.iter().filter(|d| d["default"] == true).count(), 1);
    for d in &devs {
        assert!(d["name"].is_string() && d["subgroup_size"].is_u64(), "{d}");
        assert_eq!(
            d["max_workgroup_count"].as_array().map(|a| a.len()),
            Some(3),
            "{d}"
        );
    }
}

/// Undefined behaviour the cpu device can see stops the launch with an
/// error naming the instruction, the work-item and the address.
#[test]
fn the_cpu_device_reports_undefined_behaviour() {
    let cases: &[(&str, &str, &[&str])] = &[
        // a wild pointer
        (
            "mov.64b %p, 0x10;\n\tst.global.32b [%p], %v;",
            "out-of-bounds access of 4 bytes at device address 0x10",
            &["`st.global.32b [%p], %v;`", "work-item [0, 0, 0]"],
        ),
        // one past the end of the 16-byte buffer
        (
            "ld.param.64b %p, [%o];\n\tld.global.32b %v, [%p + 16];",
            "out-of-bounds access of 4 bytes",
            &["`ld.global.32b %v, [%p + 16];`"],
        ),
        (
            "ld.param.64b %p, [%o];\n\tld.global.32b %v, [%p + 2];",
            "misaligned access of 4 bytes",
            &["`ld.global.32b %v, [%p + 2];`"],
        ),
        (
            "mov.32b %v, 0;\n\tudiv.32b %v, 7, %v;",
            "integer division by zero",
            &["`udiv.32b %v, 7, %v;`"],
        ),
        (
            "addrof.64b %p, @c;\n\tst.global.32b [%p], %v;",
            "read-only (.const) access",
            &["`st.global.32b [%p], %v;`"],
        ),
    ];
    for (body, what, also) in cases {
        let src = format!(
            ".version 0.1;\n.target 100;\n.const .align 4 @c[4] = {{ .32b 1 }};\n.kernel @k(.param[8] %o)\n{{\n\t.reg .64b %p;\n\t.reg .32b %v;\n\tmov.32b %v, %localid.x;\n\t{body}\n\treturn;\n}}\n"
        );
        let m = pisa_translator::assemble("ub.pisa", &src).unwrap_or_else(|d| panic!("{d}\n{src}"));
        let mut dev = pisa_interp::CpuDevice::new();
        let prog = dev.load(&m).unwrap();
        let buf = dev.alloc_buffer(16).unwrap();
        let addr = dev.buffer_address(buf).unwrap();
        let e = dev
            .launch(&Launch {
                program: prog,
                kernel: "k".into(),
                range: NdRange::d1(4).local([4, 1, 1]),
                args: vec![addr.to_le_bytes().to_vec()],
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{body}: {e}");
        for a in *also {
            assert!(e.contains(a), "{body}: {e} (expected {a})");
        }
        assert!(e.contains("ub.pisa:"), "{e}");
    }
}

/// A chain of calls that the driver's inlining would blow up (issue 11: a
/// chain of 10,000 calls was killed for memory while lavapipe compiled it)
/// is refused before the driver sees it, with the reason; the cpu device,
/// which inlines nothing, runs it.
#[test]
fn call_chains_too_big_to_inline_are_refused_not_compiled() {
    let n = 2000;
    let mut src = String::from(".version 0.1;\n.target 100;\n.function .32b @f0(.reg .32b %x)\n{\n\t.reg .32b %r;\n\tiadd.32b %r, %x, 1;\n\treturn %r;\n}\n");
    for i in 1..n {
        src.push_str(&format!(".function .32b @f{i}(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\tcall %r, @f{}(%x);\n\tiadd.32b %r, %r, 1;\n\treturn %r;\n}}\n", i - 1));
    }
    src.push_str(&format!(".kernel @k(.param[8] %o)\n{{\n\t.reg .64b %p;\n\t.reg .32b %v;\n\tld.param.64b %p, [%o];\n\tmov.32b %v, 0;\n\tcall %v, @f{}(%v);\n\tst.global.32b [%p], %v;\n\treturn;\n}}\n", n - 1));
    let m = pisa_translator::assemble("chain.pisa", &src).unwrap();
    let e = runtime().load(&m).unwrap_err().to_string();
    assert!(
        e.starts_with("unsupported on this device: the program has")
            && e.contains("instructions once every call is inlined"),
        "{e}"
    );
    let mut cpu = pisa_interp::CpuDevice::new();
    let prog = cpu.load(&m).unwrap();
    let out = cpu.alloc_buffer(4).unwrap();
    cpu.launch(&Launch {
        program: prog,
        kernel: "k".into(),
        range: NdRange::d1(1),
        args: vec![cpu.buffer_address(out).unwrap().to_le_bytes().to_vec()],
    })
    .unwrap();
    assert_eq!(cpu.download(out).unwrap(), (n as u32).to_le_bytes());
}

/// On a device that can neither compute `fmad.f` through f64 nor has an
/// `Fma` that rounds once, `fmad.f` is refused, never computed with two
/// roundings (issue 9; the runtime's probe, `vk-runtime/src/fma_probe.rs`).
/// Forced on lavapipe, whose `Fma` rounds twice, by leaving `fma-f64` out
/// of `PISA_SPIRV_OPTIONS`; with it the same run gives the exact results.
#[test]
fn fmad_is_refused_where_the_device_would_round_twice() {
    let run = |options: &str| {
        pisa()
            .args([
                "run",
                "tests/run/fmad_exact.pisa",
                "--kernel",
                "k",
                "--global",
                "1",
                "--arg",
                "buf:u32:1065353217,1065353215,3212836864,1602224128,1602224128,4286578687,1077936128,1065353217,880803840,0,0,0",
            ])
            .env("PISA_SPIRV_OPTIONS", options)
            .output()
            .unwrap()
    };
    let out = run("unroll,loop-cap,relaxed,opaque");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unsupported on this device")
            && stderr.contains("`fmad.f` rounds once")
            && stderr.contains("fmad_exact.pisa:"),
        "{stderr}"
    );
    let out = run("unroll,loop-cap,relaxed,opaque,fma-f64");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("864026622"), "{stdout}");
}
