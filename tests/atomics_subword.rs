//! 16-bit atomics under contention (issue "Hostile input, round two", item 2): every work-item
//! of 4 work-groups of 64 runs every 16-bit `iatom` operation on both halves of one 32-bit
//! word each (the halves of a word are neighbours: an operation on one must never disturb the
//! other, even for a moment), on global memory and on a `.shared` array, and lavapipe (the
//! validation layer on) must give the cpu device's results. A sub-word atomic is a
//! compare-and-swap loop on its word that makes several attempts per trip, or one 32-bit
//! atomic: `and`/`or`/`xor` of a half, and `add`/`sub`/`inc`/`dec` of an upper half
//! (`spirv::lower::atomics`). Returned values are compared where they do not depend on the
//! order the work-items ran in (sorted, or with the final value for exchanges); final memory
//! bit for bit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Work-items per launch (4 work-groups of 64).
const N: usize = 256;
const GROUP: usize = 64;

/// The operations, one per word (both halves): (name, operand register, form).
const OPS: [(&str, &str); 13] = [
    ("add", "%a"),
    ("sub", "%b"),
    ("inc", ""),
    ("dec", ""),
    ("and", "%nbit"),
    ("or", "%bit"),
    ("xor", "%h"),
    ("xchg", "%id1"),
    ("umin", "%h"),
    ("umax", "%h"),
    ("smin", "%h"),
    ("smax", "%h"),
    ("cas", ""),
];
const WORDS: usize = OPS.len();

/// Initial halves (lower, upper) of each word: busy bits, so that a lost neighbour shows.
fn init() -> Vec<u16> {
    (0..WORDS)
        .flat_map(|w| match OPS[w].0 {
            "and" => [0xFFFF, 0xFFFF],
            "or" => [0, 0],
            "umin" | "smin" => [0x7FFF, 0xFFFF],
            "umax" | "smax" => [0x8000, 0],
            _ => [
                (0xA5C3u16).wrapping_add(w as u16 * 0x1111),
                (0x5A3Cu16) ^ (w as u16 * 0x0101),
            ],
        })
        .collect()
}

/// The program: kernel `g` on global memory (`%fin`), kernel `s` on a `.shared` copy of it
/// per work-group, whose final words go to `%outs` (group g at 2 * WORDS * g halves).
fn program() -> String {
    let mut body = String::new();
    for (w, (op, src)) in OPS.iter().enumerate() {
        for half in 0..2 {
            let off = 4 * w + 2 * half;
            if *op == "cas" {
                // a cas loop adding 1; the old value of the cas that took
                body += &format!(
                    "\tld.SPACE.relaxed.16b %old, [BASE + {off}];\nretry{half}:\n\tiadd.16b %n, %old, %one;\n\
                     \tiatom.SPACE.cas.16b %seen, [BASE + {off}], %old, %n;\n\tucmp.eq.16b %same, %seen, %old;\n\
                     \tmov.16b %m, %old;\n\tmov.16b %old, %seen;\n\tgoto.cond !%same, retry{half};\n\
                     \tst.global.16b [%o], %m;\n\tiadd.64b %o, %o, %stride;\n"
                );
                continue;
            }
            let src = if src.is_empty() {
                String::new()
            } else {
                format!(", {src}")
            };
            body += &format!(
                "\tiatom.SPACE.{op}.16b %old, [BASE + {off}]{src};\n\tst.global.16b [%o], %old;\n\
                 \tiadd.64b %o, %o, %stride;\n"
            );
        }
    }
    let prologue = r#"	.reg .64b %fin, %olds, %o, %stride, %gid, %t;
	.reg .32b %g, %l, %ls, %gid32, %x, %y;
	.reg .16b %a, %b, %bit, %nbit, %h, %id1, %old, %n, %seen, %m, %one;
	.pred %same, %copy;
	ld.param.64b %fin, [%finp];
	ld.param.64b %olds, [%oldsp];
	mov.32b %l, %localid.x;
	mov.32b %g, %groupid.x;
	mov.32b %ls, %localsize.x;
	umul.full.32b %gid, %g, %ls;
	zext.64b.32b %t, %l;
	iadd.64b %gid, %gid, %t;
	trunc.32b.64b %gid32, %gid;
	mov.16b %a, 0x1235;
	mov.16b %b, 0x0777;
	mov.16b %one, 1;
	and.32b %x, %gid32, 15;
	mov.32b %y, 1;
	shl.32b %y, %y, %x;
	trunc.16b.32b %bit, %y;
	not.16b %nbit, %bit;
	umul.32b %x, %gid32, 0x9E3779B9;
	shr.32b %x, %x, 16;
	trunc.16b.32b %h, %x;
	iadd.32b %x, %gid32, 1;
	trunc.16b.32b %id1, %x;
	// this work-item's returned values: %olds + 2 * gid, stride 2 * N
	shl.64b %o, %gid, 1;
	iadd.64b %o, %olds, %o;
	mov.64b %stride, %globalsize.x;
	shl.64b %stride, %stride, 1;
"#;
    let global = body.replace("SPACE", "global").replace("BASE", "%fin");
    let shared = body.replace("SPACE", "shared").replace("BASE", "@sw");
    format!(
        r#".version 0.1;
.target 100;

.kernel @g(.param[8] %finp, .param[8] %oldsp)
{{
{prologue}{global}	return;
}}

.kernel @s(.param[8] %finp, .param[8] %oldsp, .param[8] %outsp)
{{
	.shared .align 4 @sw[{bytes}];
	.reg .64b %outs, %p;
	.reg .32b %v;
{prologue}	ld.param.64b %outs, [%outsp];
	// the first {WORDS} work-items copy the initial words in
	ucmp.lt.32b %copy, %l, {WORDS};
	shl.32b %v, %l, 2;
	zext.64b.32b %p, %v;
	goto.cond !%copy, start;
	iadd.64b %t, %fin, %p;
	ld.global.32b %v, [%t];
	st.shared.32b [@sw + %p], %v;
start:
	barrier.workgroup;
{shared}	barrier.workgroup;
	goto.cond !%copy, end;
	ld.shared.32b %v, [@sw + %p];
	umul.full.32b %t, %g, {bytes};
	iadd.64b %t, %t, %p;
	iadd.64b %t, %outs, %t;
	st.global.32b [%t], %v;
end:
	return;
}}
"#,
        bytes = 4 * WORDS
    )
}

fn dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("atomics-subword-{test}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("sub.pisa"), program()).unwrap();
    d
}

fn pisa(d: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pisa"))
        .current_dir(d)
        .args(args)
        .env("PISA_VALIDATION", "1")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("PISA_DEVICE")
        .env_remove("PISA_DEVICE_PROFILE")
        .env_remove("PISA_SPIRV_OPTIONS")
        .output()
        .unwrap()
}

fn have_vulkan() -> bool {
    let out = pisa(Path::new("."), &["devices", "--json"]);
    String::from_utf8_lossy(&out.stdout).contains("llvmpipe")
}

/// The u16 buffers of a `pisa run --json` of kernel `k`.
fn run(d: &Path, k: &str, device: &[&str]) -> Vec<Vec<u64>> {
    let init: Vec<String> = init().iter().map(|v| v.to_string()).collect();
    let fin = format!("buf:u16:{}", init.join(","));
    let olds = format!("buf:u16:zeros:{}", 2 * WORDS * N);
    let outs = format!("buf:u16:zeros:{}", 2 * WORDS * (N / GROUP));
    let mut args = vec![
        "run", "sub.pisa", "--kernel", k, "--global", "256", "--local", "64", "--arg", &fin,
        "--arg", &olds, "--json",
    ];
    if k == "s" {
        args.extend(["--arg", &outs]);
    }
    args.extend_from_slice(device);
    let out = pisa(d, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("vulkan validation"), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    (0..if k == "s" { 3 } else { 2 })
        .map(|i| {
            v["args"][i]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        })
        .collect()
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// What does not depend on the order: per half, its final value (`fin`) and the returned
/// values of the work-items `items` (`olds`), by operation.
fn canonical(fin: &[u64], olds: &[u64], items: std::ops::Range<usize>) -> Vec<Vec<u64>> {
    let mut c = Vec::new();
    for (w, (op, _)) in OPS.iter().enumerate() {
        for half in 0..2 {
            let k = 2 * w + half;
            let f = fin[k];
            let old: Vec<u64> = items.clone().map(|i| olds[k * N + i]).collect();
            c.push(match *op {
                // one operand for all: the returned values are the sequence of states
                "add" | "sub" | "inc" | "dec" | "cas" => [vec![f], sorted(old)].concat(),
                // an exchange chain: the returned values and the final one, each once
                "xchg" => sorted([old, vec![f]].concat()),
                // distinct operands: the final value
                _ => vec![f],
            });
        }
    }
    c
}

/// Both kernels' canonical results on a device.
fn results(d: &Path, device: &[&str]) -> Vec<Vec<Vec<u64>>> {
    let g = run(d, "g", device);
    let s = run(d, "s", device);
    let mut r = vec![canonical(&g[0], &g[1], 0..N)];
    for grp in 0..N / GROUP {
        let fin = &s[2][2 * WORDS * grp..2 * WORDS * (grp + 1)];
        r.push(canonical(fin, &s[1], grp * GROUP..(grp + 1) * GROUP));
    }
    r
}

#[test]
fn every_16_bit_atomic_under_contention_matches_the_cpu_device() {
    let d = dir("both");
    let cpu = results(&d, &["--device", "cpu"]);
    // the cpu device's results are what the operations must give
    let init = init();
    let n = N as u64;
    let g = &cpu[0];
    let lo = |w: usize| init[2 * w] as u64;
    let hi = |w: usize| init[2 * w + 1] as u64;
    assert_eq!(g[0][0], (lo(0) + n * 0x1235) & 0xFFFF);
    assert_eq!(g[1][0], (hi(0) + n * 0x1235) & 0xFFFF);
    assert_eq!(
        g[1][1..],
        sorted((0..n).map(|k| (hi(0) + k * 0x1235) & 0xFFFF).collect())[..]
    );
    assert_eq!(g[3][0], hi(1).wrapping_sub(n * 0x0777) & 0xFFFF);
    assert_eq!(g[8][0], 0); // and: every bit cleared by 16 work-items
    assert_eq!(g[10][0], 0xFFFF); // or
    assert_eq!(g[24][0], (lo(12) + n) & 0xFFFF);
    assert_eq!(
        g[25][1..],
        sorted((0..n).map(|k| (hi(12) + k) & 0xFFFF).collect())[..]
    );
    if !have_vulkan() {
        eprintln!("skipped: no lavapipe");
        return;
    }
    assert_eq!(results(&d, &[]), cpu);
}
