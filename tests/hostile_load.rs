//! Loading hostile or incomplete programs ("Hostile input, round two"):
//! modules written by `pisa spirv` carry their program and run through
//! `pisa run --spirv` as their source does, and one stripped of it is
//! refused (item 14); a lone module's `.import`s are link errors (item 7);
//! work-group memory past the device's limit, the translator's own
//! included, is refused at load (item 3); a `.private` arena past the
//! ABI's per-work-item limit is refused on every device (item 15).

use pisa_vk_runtime::{Device, Launch, NdRange, Runtime, RuntimeError, RuntimeOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn pisa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pisa"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pisa-hostile-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The module without the `OpModuleProcessed` strings `keep` rejects.
fn strip(words: &[u32], mut keep: impl FnMut(&str) -> bool) -> Vec<u32> {
    let mut out = words[..5].to_vec();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        let ins = &words[i..i + len];
        let drop = (words[i] & 0xFFFF) == 330 && {
            let b = bytes_of(&ins[1..]);
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            !keep(std::str::from_utf8(&b[..end]).unwrap())
        };
        if !drop {
            out.extend_from_slice(ins);
        }
        i += len;
    }
    out
}

/// Output lines that do not depend on where the data block landed: global
/// pointers hold device addresses, which differ from run to run.
fn without_addresses(stdout: &str, pointer_globals: &[&str]) -> String {
    stdout
        .lines()
        .filter(|l| {
            !pointer_globals
                .iter()
                .any(|g| l.starts_with(&format!("global {g}:")))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// (files, kernel and run arguments, globals that hold addresses)
type Case = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

const CASES: [Case; 3] = [
    // the README's two modules: an exported host-access table, internal
    // globals in each module, a call across modules
    (
        &["tests/link/main.pisa", "tests/link/lib.pisa"],
        &["--kernel", "k", "--global", "8", "--arg", "buf:u32:zeros:8"],
        &[],
    ),
    // initialized globals, relocated pointers (@sym, @sym+off, a variable's
    // own address), host-access globals written before the launch
    (
        &["tests/run/globals.pisa"],
        &[
            "--kernel",
            "k",
            "--global",
            "1",
            "--arg",
            "buf:u32:zeros:4",
            "--set-global",
            "count=u32:5",
        ],
        &["ptr", "self"],
    ),
    // printf: format strings in `.const` memory, `%s` of a global string
    (
        &["tests/run/printf.pisa"],
        &[
            "--kernel",
            "hello",
            "--global",
            "8",
            "--local",
            "8",
            "--arg",
            "buf:f32:0.5,1.25,-2,3.14159,100",
            "--arg",
            "u32:5",
        ],
        &[],
    ),
];

/// Item 14: `pisa spirv` then `pisa run --spirv` prints what `pisa run` of
/// the source prints (before, the module's kernels read the data block and
/// the printf buffer at address 0 and crashed pisa).
#[test]
fn spirv_modules_run_as_their_source() {
    for (i, (files, run_args, pointers)) in CASES.iter().enumerate() {
        let spv = temp(&format!("case{i}.spv"));
        let out = pisa()
            .arg("spirv")
            .args(*files)
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap();
        assert!(out.status.success(), "{files:?}: {out:?}");
        let source = pisa()
            .arg("run")
            .args(*files)
            .args(*run_args)
            .output()
            .unwrap();
        let module = pisa()
            .arg("run")
            .arg("--spirv")
            .arg(&spv)
            .args(*run_args)
            .output()
            .unwrap();
        assert!(source.status.success(), "{files:?}: {source:?}");
        assert!(module.status.success(), "{files:?}: {module:?}");
        let (s_out, _) = text(&source);
        let (m_out, m_err) = text(&module);
        assert_eq!(
            without_addresses(&m_out, pointers),
            without_addresses(&s_out, pointers),
            "{files:?}"
        );
        // the parameters are described too: nothing runs unchecked
        assert!(!m_err.contains("unchecked"), "{m_err}");
    }
}

/// Item 14: a module stripped of its program description is refused, not
/// run, when its kernels need it; one that needs none still runs.
#[test]
fn a_stripped_module_is_refused() {
    let spv = temp("printf.spv");
    let out = pisa()
        .args(["spirv", "tests/run/printf.pisa", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let words = words_of(&std::fs::read(&spv).unwrap());
    let run = |words: &[u32], name: &str| {
        let p = temp(name);
        std::fs::write(&p, bytes_of(words)).unwrap();
        let args = CASES[2].1;
        pisa()
            .arg("run")
            .arg("--spirv")
            .arg(&p)
            .args(args)
            .output()
            .unwrap()
    };
    // every description removed (as `spirv-opt --strip-debug` does)
    let out = run(&strip(&words, |_| false), "stripped.spv");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let (stdout, stderr) = text(&out);
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot load {}: the module's kernels read the data block (`data_base`) and the printf buffer (`printf_buffer`), but the module carries no program description (the `pisa-program` `OpModuleProcessed` strings that `pisa spirv` writes: docs/abi.md, \"Program descriptions\"), so there is nothing to put there; was it stripped (`spirv-opt --strip-debug` removes them)? Run the PISA program, or its module as `pisa spirv` wrote it\n",
            temp("stripped.spv").display()
        )
    );
    // one string of the data image removed: the header's count says so
    let mut dropped = false;
    let partial = strip(&words, |s| {
        let first = s.starts_with("pisa-data ") && !dropped;
        dropped |= first;
        !first
    });
    let out = run(&partial, "partial.spv");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("the module's program description (docs/abi.md, \"Program descriptions\") is damaged: the header announces 1 data strings, 0 relocations and 3 variables; the module has 0, 0 and 3"),
        "{stderr}"
    );
    // one byte of the data image changed: the header's hash says so
    let mut changed = words.clone();
    let mut i = 5;
    while i < changed.len() {
        let len = (changed[i] >> 16) as usize;
        let mut b = bytes_of(&changed[i + 1..i + len]);
        if changed[i] & 0xFFFF == 330 && b.starts_with(b"pisa-data ") {
            let end = b.iter().position(|&c| c == 0).unwrap();
            b[end - 1] = if b[end - 1] == b'0' { b'1' } else { b'0' };
            changed.splice(i + 1..i + len, words_of(&b));
        }
        i += len;
    }
    let out = run(&changed, "changed.spv");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let (_, stderr) = text(&out);
    assert!(
        stderr.ends_with(
            "is damaged: the data block's initial bytes do not match the header's hash\n"
        ),
        "{stderr}"
    );
    // vadd reads neither: it runs without a description, its arguments
    // unchecked as for any SPIR-V without one
    let spv = temp("vadd.spv");
    let out = pisa()
        .args(["spirv", "tests/run/vadd.pisa", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let bare = strip(&words_of(&std::fs::read(&spv).unwrap()), |_| false);
    let p = temp("vadd-bare.spv");
    std::fs::write(&p, bytes_of(&bare)).unwrap();
    let out = pisa()
        .arg("run")
        .arg("--spirv")
        .arg(&p)
        .args(["--kernel", "vadd", "--global", "2"])
        .args(["--arg", "buf:u32:1,2", "--arg", "buf:u32:3,4"])
        .args(["--arg", "buf:u32:zeros:2", "--arg", "u32:2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (stdout, stderr) = text(&out);
    assert!(stdout.contains("arg 2 (u32 x2): [4, 6]"), "{stdout}");
    assert!(stderr.contains("passed unchecked"), "{stderr}");
}

/// Item 14: the kernel descriptions carry the work-group limit of kernels
/// with emulated sub-groups, which the runtime checks at launch.
#[test]
fn emulated_sub_groups_keep_their_limit_through_spirv() {
    let src = std::fs::read_to_string(root("tests/run/subgroup_activemask.pisa")).unwrap();
    let m = pisa_translator::assemble("subgroup_activemask.pisa", &src).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    let mut rt = Runtime::new(RuntimeOptions::default()).expect("a Vulkan device");
    let prog = rt.load_spirv(&spv.words).unwrap();
    let k = rt.kernels(prog).unwrap();
    let mask = k.iter().find(|k| k.name == "mask").unwrap();
    assert_eq!(mask.max_work_group_items, Some(1024));
    assert!(mask.params.is_some());
}

const MAIN: &str = "tests/link/main.pisa";

/// Item 7: `pisa run`, `pisa run --device cpu` and `pisa spirv` of a module
/// whose imports nothing exports: exit 1, located diagnostics (before, a
/// called function was "not yet supported", exit 2).
#[test]
fn a_lone_module_with_imports_is_a_link_error() {
    let expected = "error[link-unresolved]: unresolved import `@lookup`: tests/link/main.pisa imports this function and no module of the program exports it\n --> tests/link/main.pisa:7:24\n  |\n7 | .import .function .32b @lookup(.reg .32b);\n  |                        ^^^^^^^\n  = note: give the module that exports `@lookup` too: every file of the program, as in `pisa run tests/link/main.pisa LIB.pisa ...`\nerror[link-unresolved]: unresolved import `@table`: tests/link/main.pisa imports this variable and no module of the program exports it\n --> tests/link/main.pisa:8:26\n  |\n8 | .import .global .align 4 @table[16];\n  |                          ^^^^^^\n  = note: give the module that exports `@table` too: every file of the program, as in `pisa run tests/link/main.pisa LIB.pisa ...`\n";
    let run = ["run", MAIN, "--kernel", "k", "--global", "4"];
    for args in [
        &run[..],
        &[&run[..], &["--device", "cpu"]].concat()[..],
        &["spirv", MAIN, "--dis"][..],
    ] {
        let out = pisa()
            .args(args)
            .args(
                ["--arg", "buf:u32:zeros:4"]
                    .iter()
                    .filter(|_| args[0] == "run"),
            )
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let (stdout, stderr) = text(&out);
        assert!(stdout.is_empty(), "{stdout}");
        assert_eq!(stderr, expected, "{args:?}");
    }
}

/// Item 7: an imported variable alone (before: it read zeros, exit 0).
#[test]
fn an_unresolved_variable_does_not_read_zeros() {
    let src = ".version 0.1;\n.target 100;\n.import .global .align 4 @table[16];\n.kernel @k(.param[8] %out) {\n\t.reg .64b %o;\n\t.reg .32b %v;\n\tld.param.64b %o, [%out];\n\tld.global.32b %v, [@table];\n\tst.global.32b [%o], %v;\n\treturn;\n}\n";
    let p = temp("uses_table.pisa");
    std::fs::write(&p, src).unwrap();
    for device in ["0", "cpu"] {
        let out = pisa()
            .arg("run")
            .arg(&p)
            .args(["--kernel", "k", "--global", "1", "--device", device])
            .args(["--arg", "buf:u32:zeros:1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let (stdout, stderr) = text(&out);
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.starts_with(&format!(
                "error[link-unresolved]: unresolved import `@table`: {} imports this variable and no module of the program exports it\n --> {}:3:26\n",
                p.display(),
                p.display()
            )),
            "{stderr}"
        );
    }
    // the library's loading of sources does the same
    let mut cpu = pisa_interp::CpuDevice::new();
    let name = p.display().to_string();
    let e = cpu
        .load_sources(&[pisa_translator::link::Input {
            name: &name,
            text: src,
        }])
        .unwrap_err();
    assert!(
        matches!(&e, RuntimeError::Assemble(d) if d.0[0].code == "link-unresolved"),
        "{e}"
    );
    // a module loaded as it is, past the linker: refused by both back ends
    let m = pisa_translator::assemble(&name, src).unwrap();
    let e = cpu.load(&m).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("unsupported on this device: {name}:3:1: imported variable @table that no module of the program exports (link its module first)")
    );
    let e = pisa_translator::spirv::translate(&m).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("{name}:3:1: not yet supported: imported variable @table that no module of the program exports (link its module first)")
    );
}

fn kernel_with(decl: &str, extra: &str) -> String {
    format!(
        ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %out)\n{{\n\t{decl}\n\t.reg .64b %o;\n\t.reg .32b %v, %i;\n\tld.param.64b %o, [%out];\n\tmov.32b %i, %localid.x;\n\tshl.32b %i, %i, 2;\n\tmov.32b %v, 42;\n\tst.ARENA.32b [@a + %i], %v;\n\tld.ARENA.32b %v, [@a + %i];\n\t{extra}\n\tst.global.32b [%o], %v;\n\treturn;\n}}\n"
    )
}

fn shared_kernel(bytes: u32, extra: &str) -> String {
    kernel_with(&format!(".shared .align 4 @a[{bytes}];"), extra).replace("ARENA", "shared")
}

fn private_kernel(bytes: u64) -> String {
    kernel_with(&format!(".private .align 4 @a[{bytes}];"), "").replace("ARENA", "private")
}

/// Loads `src` on `dev` and runs its kernel on 4 work-items; the word it
/// stores.
fn load_and_run(dev: &mut dyn Device, src: &str) -> Result<u32, RuntimeError> {
    let m = pisa_translator::assemble("k.pisa", src).unwrap();
    let prog = dev.load(&m)?;
    let out = dev.alloc_buffer(4)?;
    dev.upload(out, 0, &[0; 4])?;
    let address = dev.buffer_address(out)?;
    dev.launch(&Launch {
        program: prog,
        kernel: "k".into(),
        range: NdRange {
            global: [1, 1, 1],
            local: Some([1, 1, 1]),
            offset: [0; 3],
            dims: 1,
        },
        args: vec![address.to_le_bytes().to_vec()],
    })?;
    let b = dev.download(out)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Item 3: `.shared` past the device's `maxComputeSharedMemorySize`, and
/// `.shared` that fits but not with the sub-group emulation's exchange
/// (4,872 bytes), are refused at load naming the limit, the bytes needed
/// and the device's value (before, both ran).
#[test]
fn shared_memory_past_the_device_limit_is_refused() {
    let mut rt = Runtime::new(RuntimeOptions::default()).expect("a Vulkan device");
    let limit = rt.device_info().max_shared_bytes;
    let e = load_and_run(&mut rt, &shared_kernel(limit + 4, "")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "unsupported on this device: the program needs {} bytes of `.shared` variables; the device's maxComputeSharedMemorySize is {limit} bytes ({})",
            limit + 4,
            pisa_device::apply::who_has("maxComputeSharedMemorySize").unwrap()
        )
    );
    assert!(matches!(e, RuntimeError::Unsupported(_)));
    let fits = limit - 4000;
    assert_eq!(load_and_run(&mut rt, &shared_kernel(fits, "")).unwrap(), 42);
    let e = load_and_run(&mut rt, &shared_kernel(fits, "mov.32b %v, %activemask;")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "unsupported on this device: the program needs {} bytes of work-group memory: {fits} bytes of `.shared` variables and 4872 bytes the translator adds (the sub-group emulation's exchange, the lock words of emulated atomics, checked mode's sink); the device's maxComputeSharedMemorySize is {limit} bytes ({})",
            fits + 4872,
            pisa_device::apply::who_has("maxComputeSharedMemorySize").unwrap()
        )
    );
}

/// Item 15: a `.private` arena of 1 GiB (and one just short of 4 GiB) is refused before the driver sees it,
/// on the Vulkan device and on the cpu device alike; 64 KiB runs on both.
#[test]
fn private_memory_past_the_limit_is_refused_on_every_device() {
    let mut rt = Runtime::new(RuntimeOptions::default()).expect("a Vulkan device");
    let mut cpu = pisa_interp::CpuDevice::new();
    // (arenas past 32 bits are invalid programs: `pisa check` rejects them, tests/hostile.rs)
    for bytes in [1u64 << 30, (4 << 30) - 4, 65540] {
        let msg = format!(
            "k.pisa:5:2: the program's `.private` variables need {bytes} bytes per work-item; the limit is 65536 bytes (docs/abi.md, \"Arenas\"): a larger private array is better kept in `.global` memory"
        );
        let e = load_and_run(&mut rt, &private_kernel(bytes)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("k.pisa:5:2: unsupported on this device: {}", &msg[12..])
        );
        let e = load_and_run(&mut cpu, &private_kernel(bytes)).unwrap_err();
        assert_eq!(e.to_string(), format!("unsupported on this device: {msg}"));
        assert!(matches!(e, RuntimeError::Unsupported(_)));
    }
    assert_eq!(load_and_run(&mut rt, &private_kernel(65536)).unwrap(), 42);
    assert_eq!(load_and_run(&mut cpu, &private_kernel(65536)).unwrap(), 42);
}
