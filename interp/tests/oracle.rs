//! Exact results of the cpu device for programs the mutation sample of
//! `interp/` (tools/mutants.sh, docs/testing.md) showed no other test
//! checks. Each test runs a small kernel through the [`Device`] API and
//! compares every output word with the value the spec gives.

use pisa_device::contract::{Device, Launch, RuntimeError};
use pisa_device::NdRange;
use pisa_interp::CpuDevice;

/// Runs kernel `@k` of `src` over `global` work-items with one buffer
/// argument holding `input`, and returns the buffer's 32-bit words
/// afterwards.
fn run_words(src: &str, global: u32, input: &[u32]) -> Vec<u32> {
    let m = pisa_translator::assemble("oracle.pisa", src).expect("assembles");
    let mut dev = CpuDevice::new();
    let p = dev.load(&m).expect("loads");
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let b = dev.alloc_buffer(bytes.len() as u64).expect("allocates");
    dev.upload(b, 0, &bytes).expect("uploads");
    let addr = dev.buffer_address(b).expect("address").to_le_bytes();
    dev.launch(&Launch {
        program: p,
        kernel: "k".to_string(),
        range: NdRange::d1(global),
        args: vec![addr.to_vec()],
    })
    .expect("runs");
    dev.download(b)
        .expect("downloads")
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs kernel `@k` of `src` on one work-item with a 4-byte buffer
/// argument, which must fail (`why` says how); returns the error.
fn launch_error(src: &str, why: &str) -> RuntimeError {
    let m = pisa_translator::assemble("oracle.pisa", src).expect("assembles");
    let mut dev = CpuDevice::new();
    let p = dev.load(&m).expect("loads");
    let b = dev.alloc_buffer(4).expect("allocates");
    let addr = dev.buffer_address(b).expect("address").to_le_bytes();
    dev.launch(&Launch {
        program: p,
        kernel: "k".to_string(),
        range: NdRange::d1(1),
        args: vec![addr.to_vec()],
    })
    .expect_err(why)
}

/// The harness itself: a kernel that stores a constant.
#[test]
fn a_stored_constant_reads_back() {
    let src = ".version 0.1;\n.target 100;\n\
        .kernel @k(.param[8] %out)\n{\n\t.reg .64b %o;\n\t.reg .32b %v;\n\
        \tld.param.64b %o, [%out];\n\tmov.32b %v, 0xdeadbeef;\n\
        \tst.global.32b [%o], %v;\n\treturn;\n}\n";
    assert_eq!(run_words(src, 1, &[0, 5]), vec![0xdeadbeef, 5]);
}

/// `uaddc` (12 §1.11) adds with carry-in and carry-out: a 64-bit sum
/// from two 32-bit halves, `0xfffffffe_ffffffff + 0x1_00000005 =
/// 0x1_00000000_00000004`, the carry out of the high half read back
/// through a third `uaddc` of zeros; and `1 + 1` with no carry out.
#[test]
fn uaddc_carries_between_halves() {
    let src = ".version 0.1;\n.target 100;\n\
        .kernel @k(.param[8] %buf)\n{\n\t.reg .64b %b;\n\
        \t.reg .32b %a0, %a1, %b0, %b1, %s0, %s1, %c, %z;\n\t.pred %p0, %p1, %p2;\n\
        \tld.param.64b %b, [%buf];\n\
        \tld.global.32b %a0, [%b + 0];\n\tld.global.32b %a1, [%b + 4];\n\
        \tld.global.32b %b0, [%b + 8];\n\tld.global.32b %b1, [%b + 12];\n\
        \tuaddc.co.32b %s0, %p0, %a0, %b0;\n\
        \tuaddc.ci.co.32b %s1, %p1, %a1, %b1, %p0;\n\
        \tmov.32b %z, 0;\n\tuaddc.ci.32b %c, %z, %z, %p1;\n\
        \tst.global.32b [%b + 16], %s0;\n\tst.global.32b [%b + 20], %s1;\n\
        \tst.global.32b [%b + 24], %c;\n\
        \tuaddc.co.32b %s0, %p2, %b1, %b1;\n\tuaddc.ci.32b %c, %z, %z, %p2;\n\
        \tst.global.32b [%b + 28], %s0;\n\tst.global.32b [%b + 32], %c;\n\treturn;\n}\n";
    assert_eq!(
        run_words(src, 1, &[0xffff_ffff, 0xffff_fffe, 5, 1, 9, 9, 9, 9, 9]),
        vec![0xffff_ffff, 0xffff_fffe, 5, 1, 4, 0, 1, 2, 0]
    );
}

/// `iatom.decwrap` and `.incwrap` (15 §2.4) at their edges, with
/// `src0` = 7: decwrap gives `src0` when the old value is 0 or above
/// it and `old - 1` otherwise (7 becomes 6); incwrap gives 0 when the
/// old value is `src0` or above and `old + 1` otherwise. Slots 0..3
/// decwrap from 7, 0, 8, 3; slots 4..6 incwrap from 7, 3, 9; slots
/// 7..13 hold the old values each returned.
#[test]
fn decwrap_and_incwrap_at_their_edges() {
    let mut src = String::from(
        ".version 0.1;\n.target 100;\n\
        .kernel @k(.param[8] %buf)\n{\n\t.reg .64b %b;\n\t.reg .32b %v, %old;\n\
        \tld.param.64b %b, [%buf];\n\tmov.32b %v, 7;\n",
    );
    for slot in 0..7 {
        let op = if slot < 4 { "decwrap" } else { "incwrap" };
        src += &format!(
            "\tiatom.global.{op}.32b %old, [%b + {}], %v;\n\
             \tst.global.32b [%b + {}], %old;\n",
            4 * slot,
            4 * (slot + 7)
        );
    }
    src += "\treturn;\n}\n";
    let mut input = vec![7, 0, 8, 3, 7, 3, 9];
    input.extend([0; 7]);
    assert_eq!(
        run_words(&src, 1, &input),
        vec![6, 7, 7, 2, 0, 4, 0, 7, 0, 8, 3, 7, 3, 9]
    );
}

/// A buffer past 16 GiB (2^34 bytes) is refused before any host memory
/// is asked for, whatever the host could give.
#[test]
fn a_buffer_past_16_gib_is_refused() {
    let mut dev = CpuDevice::new();
    let e = dev.alloc_buffer((1 << 34) + 1).expect_err("refused");
    assert!(
        matches!(&e, RuntimeError::OutOfMemory(m) if m == "a buffer of 17179869185 bytes"),
        "{e:?}"
    );
    // the device stays usable
    let b = dev.alloc_buffer(8).expect("allocates");
    assert_eq!(dev.download(b).expect("downloads"), vec![0; 8]);
}

/// `bfn` (14 §3.4): the operation byte is the truth table over the
/// (src2, src1, src0) bits. With src0 = 0xaa.., src1 = 0xcc.., src2 =
/// 0xf0.. each byte of the result is the table itself; every table the
/// assembler takes (0x01 to 0xfe) runs.
#[test]
fn bfn_gives_its_truth_table() {
    let mut src = String::from(
        ".version 0.1;\n.target 100;\n\
        .kernel @k(.param[8] %buf)\n{\n\t.reg .64b %b;\n\t.reg .32b %a, %c, %d, %r;\n\
        \tld.param.64b %b, [%buf];\n\tmov.32b %a, 0xaaaaaaaa;\n\
        \tmov.32b %c, 0xcccccccc;\n\tmov.32b %d, 0xf0f0f0f0;\n",
    );
    for t in 1..255 {
        src += &format!(
            "\tbfn.{t:#04x}.32b %r, %a, %c, %d;\n\tst.global.32b [%b + {}], %r;\n",
            4 * (t - 1)
        );
    }
    src += "\treturn;\n}\n";
    let want: Vec<u32> = (1..255).map(|t| t * 0x0101_0101).collect();
    assert_eq!(run_words(&src, 1, &[0; 254]), want);
}

/// A kernel whose module uses more `.shared` memory than the device has
/// (64 KiB) is refused at launch, naming both sizes; one of exactly 64
/// KiB runs.
#[test]
fn shared_memory_past_64_kib_is_refused_at_launch() {
    let src = |bytes: u32| {
        format!(
            ".version 0.1;\n.target 100;\n\
            .kernel @k(.param[8] %buf)\n{{\n\t.shared .align 4 @t[{bytes}];\n\t.reg .64b %b;\n\t.reg .32b %v;\n\
            \tld.param.64b %b, [%buf];\n\tmov.32b %v, 9;\n\
            \tst.shared.32b [@t + {}], %v;\n\tld.shared.32b %v, [@t + {}];\n\
            \tst.global.32b [%b], %v;\n\treturn;\n}}\n",
            bytes - 4,
            bytes - 4
        )
    };
    assert_eq!(run_words(&src(65536), 1, &[0]), vec![9]);
    let e = launch_error(&src(65540), "refused");
    assert!(
        matches!(&e, RuntimeError::BadLaunch(m)
            if m == "the module uses 65540 bytes of .shared memory; the device has 65536"),
        "{e:?}"
    );
}

/// `1/√a` in f64 where the f64 estimate `1 / sqrt(a)` is one unit below
/// the largest f64 not above the exact value (found with exact rational
/// arithmetic in Python, `fractions.Fraction`): the result is the exact
/// value rounded by each mode, so toward zero and down it is that f64,
/// not the estimate below it, and up it is the next one.
#[test]
fn rsqrt_in_f64_corrects_an_estimate_below_the_result() {
    use pisa_interp::float::{unary, FloatMode, FloatTy, Round, UnOp};
    // (a, the estimate, the exact value rounded toward zero = to nearest)
    let cases: [(u64, u64, u64); 3] = [
        (0x3ff157c1b0d3d198, 0x3feebc788558791e, 0x3feebc788558791f),
        (0x3ff3676b9a600106, 0x3fed0ed3bab2aff0, 0x3fed0ed3bab2aff1),
        (0x3ff7943cd64a9618, 0x3fea5c2e74b4664c, 0x3fea5c2e74b4664d),
    ];
    for (a, estimate, floor) in cases {
        assert_eq!(
            (1.0 / f64::from_bits(a).sqrt()).to_bits(),
            estimate,
            "{a:#x}"
        );
        let r = |round| {
            unary(
                UnOp::Rsqrt,
                FloatTy::Double,
                a,
                FloatMode::with_round(round),
            )
        };
        assert_eq!(r(Round::Zero), floor, "{a:#x} rz");
        assert_eq!(r(Round::Down), floor, "{a:#x} rd");
        assert_eq!(r(Round::NearestEven), floor, "{a:#x} re");
        assert_eq!(r(Round::Up), floor + 1, "{a:#x} ru");
    }
}

/// `frsqrt.fast.f` (13 §2.14) as an instruction: 1/√4 = 0.5 and 1/√2
/// correctly rounded (0x3f3504f3), +inf for +0, +0 for +inf.
#[test]
fn frsqrt_runs_as_an_instruction() {
    let src = ".version 0.1;\n.target 100;\n\
        .kernel @k(.param[8] %buf)\n{\n\t.reg .64b %b, %p;\n\t.reg .32b %i, %v;\n\
        \tld.param.64b %b, [%buf];\n\tmov.32b %i, %localid.x;\n\
        \tumul.full.32b %p, %i, 4;\n\tiadd.64b %p, %b, %p;\n\
        \tld.global.32b %v, [%p];\n\tfrsqrt.fast.f %v, %v;\n\
        \tst.global.32b [%p], %v;\n\treturn;\n}\n";
    assert_eq!(
        run_words(src, 4, &[0x4080_0000, 0x4000_0000, 0, 0x7f80_0000]),
        vec![0x3f00_0000, 0x3f35_04f3, 0x7f80_0000, 0]
    );
}

/// `fmad` in bf16 (13 §2.5) rounds once: 1.015625 × 1.25 = 1.26953125 is
/// exactly halfway between the bf16 values 0x3fa2 (even) and 0x3fa3, and
/// adding the smallest normal bf16 (2^-126, lost when the sum is rounded
/// to f64) puts the exact result above the tie, so it rounds up; minus
/// it, below, so it rounds down. A sum rounded to f64 first and then to
/// bf16 would round each tie to even.
#[test]
fn bf16_fma_rounds_a_sum_just_past_a_tie_once() {
    use pisa_interp::float::{fma, FloatMode, FloatTy};
    let m = FloatMode::default();
    assert_eq!(fma(FloatTy::BFloat, 0x3f82, 0x3fa0, 0x0080, m), 0x3fa3);
    assert_eq!(fma(FloatTy::BFloat, 0x3f82, 0x3fa0, 0x8080, m), 0x3fa2);
    // with a zero addend the tie goes to even
    assert_eq!(fma(FloatTy::BFloat, 0x3f82, 0x3fa0, 0, m), 0x3fa2);
    // (129/128 × 2^27) × (1.5 × 2^27) = 193.5/128 × 2^54, halfway between
    // 0x5ac1 (odd) and 0x5ac2; minus 1, which the f64 sum loses (its unit
    // there is 4), the exact result is below the tie: 0x5ac1, not the even
    // neighbour
    assert_eq!(fma(FloatTy::BFloat, 0x4d01, 0x4d40, 0xbf80, m), 0x5ac1);
    assert_eq!(fma(FloatTy::BFloat, 0x4d01, 0x4d40, 0x3f80, m), 0x5ac2);
}

/// A call through a pointer to the program's last function runs it (the
/// pointer is the function's index plus one, so the last one is the
/// largest valid pointer); one past it is an error naming the pointer.
#[test]
fn a_call_through_a_pointer_to_the_last_function_runs() {
    let src = |extra: u32| {
        format!(
            ".version 0.1;\n.target 100;\n\
            .function .32b @twice(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\
            \tshl.32b %r, %x, 1;\n\treturn %r;\n}}\n\
            .kernel @k(.param[8] %buf)\n{{\n\t.reg .64b %b, %f;\n\t.reg .32b %a, %r;\n\
            \tld.param.64b %b, [%buf];\n\tmov.32b %a, 21;\n\
            \taddrof.64b %f, @last;\n\tiadd.64b %f, %f, {extra};\n\
            \tcall %r, %f(%a);\n\tst.global.32b [%b], %r;\n\treturn;\n}}\n\
            .function .32b @last(.reg .32b %x)\n{{\n\t.reg .32b %r;\n\
            \tiadd.32b %r, %x, 100;\n\treturn %r;\n}}\n"
        )
    };
    assert_eq!(run_words(&src(0), 1, &[0]), vec![121]);
    let e = launch_error(&src(1), "a bad pointer");
    assert!(
        matches!(&e, RuntimeError::Kernel(m) if m.contains("which is not the address of a function")),
        "{e:?}"
    );
}

/// The default NaN of each type (the positive quiet NaN with no payload,
/// 03 §3.4), which invalid operations give.
#[test]
fn the_default_nan_of_each_type() {
    use pisa_interp::float::{binary, BinOp, FloatMode, FloatTy};
    let m = FloatMode::default();
    for (ty, nan, inf, ninf) in [
        (FloatTy::Half, 0x7e00, 0x7c00, 0xfc00),
        (FloatTy::BFloat, 0x7fc0, 0x7f80, 0xff80),
        (FloatTy::Single, 0x7fc0_0000, 0x7f80_0000, 0xff80_0000),
        (FloatTy::Double, 0x7ff8 << 48, 0x7ff0 << 48, 0xfff0 << 48),
    ] {
        assert_eq!(ty.default_nan(), nan, "{ty:?}");
        // inf + -inf is invalid
        assert_eq!(binary(BinOp::Add, ty, inf, ninf, m), nan, "{ty:?}");
    }
}
