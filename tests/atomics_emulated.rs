//! 64-bit atomics on global memory without `shaderBufferInt64Atomics` (issue "Any Vulkan GPU",
//! item 2): under the Apple M1 0.2.2015 profile (lavapipe restricted to it, validation layer on)
//! and with `PISA_SPIRV_OPTIONS=...,no-int64-atomics` they run under spin locks from the global
//! lock table (docs/abi.md, "Emulated atomics"), and give the cpu device's results under
//! contention: every work-item of 4 work-groups of 64 on one address per operation, and on
//! adjacent 8-byte words. Returned values are compared where they do not depend on the order
//! the work-items ran in (sorted, or with the final value for exchange chains); final memory
//! is compared bit for bit. Before the emulation the profile runs were refused with exit 3.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const M1: &str = "../shared/device-profiles/apple_m1_0_2_2015_osx_14_3.json";

/// The options the runtime picks for lavapipe, with 64-bit global atomics emulated.
const FORCED: &str =
    "unroll,loop-cap,relaxed,opaque,opaque-push,fma-f64,exact-division,no-int64-atomics";

/// Work-items per launch (4 work-groups of 64).
const N: usize = 256;

/// Every 64-bit `iatom` operation, atomic `ld`/`st`, and a `cas` loop through a generic
/// address, each with all work-items on one address. Slots of `%fin`: 0 add, 1 sub, 2 inc,
/// 3 dec, 4 smin, 5 smax, 6 umin, 7 umax, 8 and, 9 or, 10 xor, 11 xchg, 12 cas loop,
/// 13 incwrap, 14 decwrap, 15 generic cas loop, 16 atomic st then ld.
const ONE: &str = r#".version 0.1;
.target 100;

// every work-item on one address per operation; %fin: u64 slots (initial
// values from the host), %olds: u64 [17][N] returned values
.kernel @one(.param[8] %finp, .param[8] %oldsp)
{
	.reg .64b %fin, %olds, %gid, %id1, %v, %h, %old, %o, %n, %seen, %c, %m, %ones, %stride;
	.reg .32b %g, %l, %ls, %gid32, %sh, %id32;
	.pred %same;
	ld.param.64b %fin, [%finp];
	ld.param.64b %olds, [%oldsp];
	mov.32b %l, %localid.x;
	mov.32b %g, %groupid.x;
	mov.32b %ls, %localsize.x;
	umul.full.32b %gid, %g, %ls;
	zext.64b.32b %v, %l;
	iadd.64b %gid, %gid, %v;
	iadd.64b %id1, %gid, 1;
	trunc.32b.64b %gid32, %gid;
	trunc.32b.64b %id32, %id1;
	// a hash of the id with both halves busy
	umul.full.32b %h, %id32, 0x9E3779B9;
	shl.64b %v, %h, 29;
	xor.64b %h, %h, %v;
	// the olds array of this work-item: %olds + 8 * gid, stride 8 * N
	mov.64b %stride, %globalsize.x;
	shl.64b %stride, %stride, 3;
	shl.64b %o, %gid, 3;
	iadd.64b %o, %olds, %o;
	// 0 add (a carry across the halves)
	mov.64b %v, 0x1FFFFFFFF;
	iatom.global.add.64b %old, [%fin], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 1 sub
	mov.64b %v, 0x100000003;
	iatom.global.sub.64b %old, [%fin + 8], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 2 inc, 3 dec
	iatom.global.inc.64b %old, [%fin + 16];
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.dec.64b %old, [%fin + 24];
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 4 smin, 5 smax of (gid - 128) * 0x100000001 + hash
	isub.64b %v, %gid, 128;
	shl.64b %m, %v, 32;
	iadd.64b %v, %v, %m;
	iatom.global.smin.64b %old, [%fin + 32], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.smax.64b %old, [%fin + 40], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 6 umin, 7 umax of the hash
	iatom.global.umin.64b %old, [%fin + 48], %h;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.umax.64b %old, [%fin + 56], %h;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 8 and ~(1 << (gid & 63)), 9 or (1 << (gid & 63)), 10 xor hash
	and.32b %sh, %gid32, 63;
	mov.64b %m, 1;
	shl.64b %m, %m, %sh;
	not.64b %v, %m;
	iatom.global.and.64b %old, [%fin + 64], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.or.64b %old, [%fin + 72], %m;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.xor.64b %old, [%fin + 80], %h;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 11 xchg of id1 in both halves
	shl.64b %v, %id1, 32;
	or.64b %v, %v, %id1;
	iatom.global.xchg.64b %old, [%fin + 88], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 12 a cas loop adding id1 << 32 | 1; the old value of the cas that took
	shl.64b %c, %id1, 32;
	or.64b %c, %c, 1;
	ld.global.relaxed.64b %old, [%fin + 96];
retry:
	iadd.64b %n, %old, %c;
	iatom.global.cas.64b %seen, [%fin + 96], %old, %n;
	ucmp.eq.64b %same, %seen, %old;
	mov.64b %m, %old;
	mov.64b %old, %seen;
	goto.cond !%same, retry;
	st.global.64b [%o], %m;
	iadd.64b %o, %o, %stride;
	// 13 incwrap 100, 14 decwrap 100
	mov.64b %v, 100;
	iatom.global.incwrap.64b %old, [%fin + 104], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	iatom.global.decwrap.64b %old, [%fin + 112], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 15 a cas loop adding 3 through a generic address
	ld.global.relaxed.64b %old, [%fin + 120];
gretry:
	iadd.64b %n, %old, 3;
	iatom.generic.cas.64b %seen, [%fin + 120], %old, %n;
	ucmp.eq.64b %same, %seen, %old;
	mov.64b %m, %old;
	mov.64b %old, %seen;
	goto.cond !%same, gretry;
	st.global.64b [%o], %m;
	iadd.64b %o, %o, %stride;
	// 16 atomic st of id1 in both halves, then an atomic ld
	shl.64b %v, %id1, 32;
	or.64b %v, %v, %id1;
	st.global.release.64b [%fin + 128], %v;
	ld.global.acquire.64b %old, [%fin + 128];
	st.global.64b [%o], %old;
	return;
}
"#;

/// Work-item i on word i & 3 of blocks of four adjacent 8-byte words (two 16-byte lock
/// slots each): 0 add, 1 xchg, 2 cas loop, 3 umax, 4 incwrap, 5 smin.
const NEAR: &str = r#".version 0.1;
.target 100;

// work-item i on word i & 3 of blocks of four adjacent 8-byte words;
// %fin: u64 [6][4], %olds: u64 [6][N]
.kernel @near(.param[8] %finp, .param[8] %oldsp)
{
	.reg .64b %fin, %olds, %gid, %id1, %v, %h, %old, %o, %n, %seen, %c, %m, %w, %stride;
	.reg .32b %g, %l, %ls, %id32;
	.pred %same;
	ld.param.64b %fin, [%finp];
	ld.param.64b %olds, [%oldsp];
	mov.32b %l, %localid.x;
	mov.32b %g, %groupid.x;
	mov.32b %ls, %localsize.x;
	umul.full.32b %gid, %g, %ls;
	zext.64b.32b %v, %l;
	iadd.64b %gid, %gid, %v;
	iadd.64b %id1, %gid, 1;
	trunc.32b.64b %id32, %id1;
	umul.full.32b %h, %id32, 0x9E3779B9;
	shl.64b %v, %h, 29;
	xor.64b %h, %h, %v;
	mov.64b %stride, %globalsize.x;
	shl.64b %stride, %stride, 3;
	shl.64b %o, %gid, 3;
	iadd.64b %o, %olds, %o;
	and.64b %w, %gid, 3;
	shl.64b %w, %w, 3;
	iadd.64b %w, %fin, %w;
	// 0 add with a carry across the halves
	mov.64b %v, 0x1FFFFFFFF;
	iatom.global.add.64b %old, [%w], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 1 xchg of id1 in both halves
	shl.64b %v, %id1, 32;
	or.64b %v, %v, %id1;
	iatom.global.xchg.64b %old, [%w + 32], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 2 a cas loop adding id1 << 32 | 1
	shl.64b %c, %id1, 32;
	or.64b %c, %c, 1;
	ld.global.relaxed.64b %old, [%w + 64];
retry:
	iadd.64b %n, %old, %c;
	iatom.global.cas.64b %seen, [%w + 64], %old, %n;
	ucmp.eq.64b %same, %seen, %old;
	mov.64b %m, %old;
	mov.64b %old, %seen;
	goto.cond !%same, retry;
	st.global.64b [%o], %m;
	iadd.64b %o, %o, %stride;
	// 3 umax of the hash
	iatom.global.umax.64b %old, [%w + 96], %h;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 4 incwrap 10
	mov.64b %v, 10;
	iatom.global.incwrap.64b %old, [%w + 128], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	// 5 smin of -(hash >> 1)
	shr.64b %v, %h, 1;
	isub.64b %v, 0, %v;
	iatom.global.smin.64b %old, [%w + 160], %v;
	st.global.64b [%o], %old;
	return;
}
"#;

/// 64-bit float atomics (`fatom.add.df`, `fatom.sub.df`) on one address each.
const DF: &str = r#".version 0.1;
.target 100;

// every work-item adds 0.5 to one f64 and subtracts 0.25 from its neighbour
.kernel @df(.param[8] %finp, .param[8] %oldsp)
{
	.reg .64b %fin, %olds, %gid, %v, %old, %o, %stride;
	.reg .32b %g, %l, %ls;
	ld.param.64b %fin, [%finp];
	ld.param.64b %olds, [%oldsp];
	mov.32b %l, %localid.x;
	mov.32b %g, %groupid.x;
	mov.32b %ls, %localsize.x;
	umul.full.32b %gid, %g, %ls;
	zext.64b.32b %v, %l;
	iadd.64b %gid, %gid, %v;
	mov.64b %stride, %globalsize.x;
	shl.64b %stride, %stride, 3;
	shl.64b %o, %gid, 3;
	iadd.64b %o, %olds, %o;
	mov.64b %v, 0x3FE0000000000000;
	fatom.global.add.df %old, [%fin], %v;
	st.global.64b [%o], %old;
	iadd.64b %o, %o, %stride;
	mov.64b %v, 0x3FD0000000000000;
	fatom.global.sub.df %old, [%fin + 8], %v;
	st.global.64b [%o], %old;
	return;
}
"#;

const ONE_INIT: &str =
    "buf:u64:0,0,4294967280,4294967312,0,0,18446744073709551615,0,18446744073709551615,0,0,0,0,0,0,0,0";

/// A folder of its own for each test's files (tests run at the same time).
fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("atomics-emulated-{test}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("one.pisa"), ONE).unwrap();
    std::fs::write(d.join("near.pisa"), NEAR).unwrap();
    std::fs::write(d.join("df.pisa"), DF).unwrap();
    d
}

fn abs(p: &str) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// `pisa ARGS` with the validation layer on and `PISA_SPIRV_OPTIONS` as given.
fn pisa(d: &Path, args: &[&str], spirv_options: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.current_dir(d)
        .args(args)
        .env("PISA_VALIDATION", "1")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .env_remove("PISA_SPIRV_OPTIONS");
    if let Some(o) = spirv_options {
        c.env("PISA_SPIRV_OPTIONS", o);
    }
    c.output().unwrap()
}

fn have_vulkan() -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(["devices", "--json"])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).contains("llvmpipe")
}

/// The two u64 buffers of a `pisa run --json`: final memory and returned values.
fn buffers(out: &Output) -> (Vec<u64>, Vec<u64>) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let nums = |i: usize| -> Vec<u64> {
        v["args"][i]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    (nums(0), nums(1))
}

/// A run of `file`'s kernel `kernel` over 256 work-items in groups of 64.
fn run(
    d: &Path,
    file: &str,
    init: &str,
    olds: usize,
    extra: &[&str],
    opts: Option<&str>,
) -> (Vec<u64>, Vec<u64>) {
    let zeros = format!("buf:u64:zeros:{}", olds * N);
    let kernel = file.trim_end_matches(".pisa");
    let mut args = vec![
        "run", file, "--kernel", kernel, "--global", "256", "--local", "64", "--arg", init,
        "--arg", &zeros, "--json",
    ];
    args.extend_from_slice(extra);
    // llvmpipe ends every loop of a work-item after 65,535 iterations in all; spin waits
    // count, and on a loaded machine a lock holder's thread can be descheduled long enough
    // for that. The launch then fails with the loop-cap error (docs/abi.md, "Emulated
    // atomics"), never with a wrong result: such a launch is run again.
    let mut tries = 0;
    loop {
        let out = pisa(d, &args, opts);
        let stderr = String::from_utf8_lossy(&out.stderr);
        tries += 1;
        if tries < 8 && stderr.contains("the driver stopped a loop of the kernel early") {
            continue;
        }
        return buffers(&out);
    }
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

fn both_halves_equal(x: u64) -> bool {
    x >> 32 == x & 0xFFFF_FFFF && (1..=N as u64).contains(&(x >> 32))
}

/// What of a run of `ONE` does not depend on the order the work-items ran in.
fn canonical_one((fin, olds): &(Vec<u64>, Vec<u64>)) -> Vec<Vec<u64>> {
    let old = |s: usize| olds[s * N..(s + 1) * N].to_vec();
    let mut c = Vec::new();
    for (s, &f) in fin.iter().enumerate().take(17) {
        c.push(match s {
            // the same operand everywhere: the returned values are the sequence of states
            0..=3 | 13..=15 => [vec![f], sorted(old(s))].concat(),
            // distinct operands: only the final value is fixed
            4..=10 => vec![f],
            // an exchange chain: the returned values and the final one are every value once
            11 => sorted([old(s), vec![f]].concat()),
            // the cas that took saw each count once
            12 => [
                vec![f],
                sorted(old(s).iter().map(|x| x & 0xFFFF_FFFF).collect()),
            ]
            .concat(),
            // atomic st/ld: never a torn value
            _ => vec![u64::from(
                both_halves_equal(f) && old(s).into_iter().all(both_halves_equal),
            )],
        });
    }
    c
}

/// What of a run of `NEAR` does not depend on the order, word by word.
fn canonical_near((fin, olds): &(Vec<u64>, Vec<u64>)) -> Vec<Vec<u64>> {
    let mut c = Vec::new();
    for s in 0..6 {
        for w in 0..4 {
            let old: Vec<u64> = (w..N).step_by(4).map(|i| olds[s * N + i]).collect();
            let f = fin[s * 4 + w];
            c.push(match s {
                0 | 4 => [vec![f], sorted(old)].concat(),
                1 => sorted([old, vec![f]].concat()),
                2 => [
                    vec![f],
                    sorted(old.iter().map(|x| x & 0xFFFF_FFFF).collect()),
                ]
                .concat(),
                _ => vec![f],
            });
        }
    }
    c
}

fn canonical_df((fin, olds): &(Vec<u64>, Vec<u64>)) -> Vec<Vec<u64>> {
    (0..2)
        .map(|s| [vec![fin[s]], sorted(olds[s * N..(s + 1) * N].to_vec())].concat())
        .collect()
}

/// The cpu device's results, checked against what the operations must give.
fn cpu_results(d: &Path) -> [Vec<Vec<u64>>; 3] {
    let cpu = ["--device", "cpu"];
    let one = canonical_one(&run(d, "one.pisa", ONE_INIT, 17, &cpu, None));
    let near = canonical_near(&run(d, "near.pisa", "buf:u64:zeros:24", 6, &cpu, None));
    let df = canonical_df(&run(d, "df.pisa", "buf:u64:zeros:2", 2, &cpu, None));
    let n = N as u64;
    let add = 0x1_FFFF_FFFFu64;
    assert_eq!(
        one[0],
        [
            vec![add.wrapping_mul(n)],
            (0..n).map(|k| add.wrapping_mul(k)).collect()
        ]
        .concat()
    );
    assert_eq!(one[2][0], 0xFFFF_FFF0 + n);
    let ids: u64 = (1..=n).sum();
    assert_eq!(
        one[11],
        [vec![0], (1..=n).map(|k| k * 0x1_0000_0001).collect()].concat()
    );
    assert_eq!(one[12], [vec![ids << 32 | n], (0..n).collect()].concat());
    assert_eq!(one[13][0], n % 101);
    assert_eq!(one[15][0], 3 * n);
    assert_eq!(one[16], vec![1]);
    assert_eq!(near[0][0], add.wrapping_mul(n / 4));
    assert_eq!(df[0][0], (0.5 * n as f64).to_bits());
    [one, near, df]
}

/// Every 64-bit atomic under the Apple M1 profile (no shaderBufferInt64Atomics) gives the cpu
/// device's results; before the emulation these runs exited with status 3.
#[test]
fn under_apple_m1_every_64_bit_atomic_matches_the_cpu_device() {
    if !have_vulkan() {
        eprintln!("skipped: no lavapipe");
        return;
    }
    let d = dir("m1");
    let [one, near, _] = cpu_results(&d);
    let m1 = abs(M1);
    let p = ["--profile", m1.as_str()];
    assert_eq!(
        canonical_one(&run(&d, "one.pisa", ONE_INIT, 17, &p, None)),
        one
    );
    assert_eq!(
        canonical_near(&run(&d, "near.pisa", "buf:u64:zeros:24", 6, &p, None)),
        near
    );
}

/// `no-int64-atomics` emulates them on lavapipe (which has the feature), f64 atomics too;
/// without it the native atomics give the same results.
#[test]
fn forced_emulation_and_native_atomics_match_the_cpu_device() {
    if !have_vulkan() {
        eprintln!("skipped: no lavapipe");
        return;
    }
    let d = dir("forced");
    let [one, near, df] = cpu_results(&d);
    for opts in [Some(FORCED), None] {
        assert_eq!(
            canonical_one(&run(&d, "one.pisa", ONE_INIT, 17, &[], opts)),
            one,
            "{opts:?}"
        );
        assert_eq!(
            canonical_near(&run(&d, "near.pisa", "buf:u64:zeros:24", 6, &[], opts)),
            near,
            "{opts:?}"
        );
        assert_eq!(
            canonical_df(&run(&d, "df.pisa", "buf:u64:zeros:2", 2, &[], opts)),
            df,
            "{opts:?}"
        );
    }
}

/// The capabilities of the translation for the M1: no `Int64Atomics`, where the default
/// translation declares it; 64-bit plain loads and stores take no lock.
#[test]
fn the_translation_for_the_m1_declares_no_int64_atomics() {
    let d = dir("spirv");
    let m1 = abs(M1);
    let dis = |file: &str, profile: bool| {
        let mut args = vec!["spirv", file, "--dis"];
        if profile {
            args.extend(["--profile", m1.as_str()]);
        }
        let out = pisa(&d, &args, None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let emulated = dis("one.pisa", true);
    assert!(!emulated.contains("Int64Atomics"), "{emulated}");
    assert!(!emulated.contains("pisa-capability 12"), "{emulated}");
    // every 64-bit read-modify-write is a critical section: no native atomic add is left
    assert!(!emulated.contains("OpAtomicIAdd"), "{emulated}");
    let native = dis("one.pisa", false);
    assert!(native.contains("OpCapability Int64Atomics"), "{native}");
    assert!(native.contains("OpAtomicIAdd"), "{native}");
    // plain 64-bit loads and stores: no atomic at all
    let plain = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p, %d;\n\tld.param.64b %p, [%o];\n\tld.global.64b %d, [%p];\n\tiadd.64b %d, %d, 1;\n\tst.global.64b [%p + 8], %d;\n\treturn;\n}\n";
    std::fs::write(d.join("plain.pisa"), plain).unwrap();
    let plain = dis("plain.pisa", true);
    assert!(!plain.contains("OpAtomic"), "{plain}");
}

/// The runtime emulates 64-bit global atomics exactly where the (profile-restricted) device
/// lacks `shaderBufferInt64Atomics`, or where `PISA_SPIRV_OPTIONS` has `no-int64-atomics`.
#[test]
fn the_option_follows_the_device_and_the_override() {
    let m1 = pisa_device::apply::read_profile(M1).unwrap().device_info(0);
    assert!(!m1.features.int64_atomics);
    assert!(!pisa_vk_runtime::translate_options_with(&m1, None).int64_buffer_atomics);
    // no override turns native atomics on where the device lacks them
    assert!(!pisa_vk_runtime::translate_options_with(&m1, Some("unroll")).int64_buffer_atomics);
    let mut has = m1.clone();
    has.features.int64_atomics = true;
    assert!(pisa_vk_runtime::translate_options_with(&has, None).int64_buffer_atomics);
    assert!(pisa_vk_runtime::translate_options_with(&has, Some("")).int64_buffer_atomics);
    assert!(!pisa_vk_runtime::translate_options_with(&has, Some(FORCED)).int64_buffer_atomics);
    assert!(
        !pisa_vk_runtime::translate_options_with(&has, Some(" no-int64-atomics "))
            .int64_buffer_atomics
    );
}
