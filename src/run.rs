//! `pisa run` and `pisa devices`: a thin layer over `pisa-vk-runtime`.

use anyhow::{anyhow, bail, Context, Result};
use pisa_vk_runtime::values::{self, ArgSpec as Arg, Ty};
use pisa_vk_runtime::{BufferId, Device, Launch, NdRange, ProgramId};
use std::time::{Duration, Instant};

// Options whose values may start with `-` (a negative number, a name) take
// them as values (`allow_hyphen_values`), and their own checks report what
// is wrong; clap would refuse them with advice that does not work.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// PISA source files (several are linked into one program), or a
    /// SPIR-V module (also with --spirv).
    pub files: Vec<std::path::PathBuf>,
    /// Launch a raw SPIR-V module that follows docs/abi.md.
    #[arg(long, value_name = "FILE.spv")]
    pub spirv: Option<std::path::PathBuf>,
    /// Kernel name, with or without `@`.
    #[arg(long)]
    pub kernel: String,
    /// Global size X[,Y[,Z]].
    #[arg(long, allow_hyphen_values = true)]
    pub global: String,
    /// Local size X[,Y[,Z]] (default: the kernel's .reqd_work_group_size, else 64 or less).
    #[arg(long, allow_hyphen_values = true)]
    pub local: Option<String>,
    /// Global offset X[,Y[,Z]].
    #[arg(long, allow_hyphen_values = true)]
    pub offset: Option<String>,
    /// Kernel argument: TYPE:VALUE, buf:TYPE:V1,V2,..., buf:TYPE:zeros:COUNT, buf:TYPE:@PATH, raw:HEX.
    #[arg(long = "arg", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Write a host-accessible global before the launch: NAME=TYPE:V1,V2,...
    #[arg(long = "set-global", allow_hyphen_values = true)]
    pub set_globals: Vec<String>,
    /// Write buffer argument N to a .npy or .bin file: N=PATH.
    #[arg(long = "out", allow_hyphen_values = true)]
    pub outs: Vec<String>,
    /// Print the results as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Report the kernel time (from GPU timestamps where the device has them).
    #[arg(long)]
    pub time: bool,
    /// Checked mode: every load, store and atomic is checked against the live
    /// allocations and arenas; the first bad access fails the run, naming
    /// the instruction, the work-item and the address (the cpu device always
    /// checks).
    #[arg(long)]
    pub check: bool,
    /// Device index or name substring, or `cpu` for the reference interpreter
    /// (default: PISA_DEVICE, else the best Vulkan device, else cpu).
    #[arg(long, allow_hyphen_values = true)]
    pub device: Option<String>,
    /// Behave exactly as the device a Vulkan Profiles JSON file describes
    /// (FILE or FILE#PROFILE: a device report or a requirement profile;
    /// default: PISA_DEVICE_PROFILE): the Vulkan device restricted to it,
    /// with only the features both offer enabled and the smaller limits.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<String>,
    /// How the exact basic operations (directed rounding, fmad, quotients,
    /// roots, rounded conversions) and the transcendentals are computed on
    /// a Vulkan device: `f32` in integers and f32 (any device), `f64` in f64
    /// (refused, exit 3, where the device lacks shaderFloat64 or
    /// shaderInt64), `soft` with no f64 at all (`.df` arithmetic in
    /// integers too; any device); default: f64 where the device has both,
    /// else soft (docs/numerics.md). The cpu device computes exactly any way.
    #[arg(long, value_name = "f32|f64|soft", value_parser = ["f32", "f64", "soft"])]
    pub numerics: Option<String>,
    /// Seconds a launch may run before it is reported as hung.
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub timeout: f64,
    /// Seconds assembling, translating and the driver's compilation may take
    /// (progress is shown after 5 s).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 120.0,
        allow_hyphen_values = true
    )]
    pub compile_timeout: f64,
    /// Bytes of the buffer that kernels' printf writes into (`%printfbuffer`);
    /// output past it is lost, and reported.
    #[arg(long, value_name = "BYTES", default_value_t = pisa_vk_runtime::printf::DEFAULT_PRINTF_BUFFER_BYTES, allow_hyphen_values = true)]
    pub printf_buffer: u32,
}

fn parse_dims(s: &str, what: &str) -> Result<([u32; 3], u32)> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("--{what} takes 1 to 3 comma-separated sizes");
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .trim()
            .parse()
            .map_err(|_| anyhow!("--{what}: `{p}` is not a size"))?;
        if v[i] == 0 && what != "offset" {
            bail!("--{what}: sizes must be at least 1 (found 0 in `{s}`)");
        }
    }
    Ok((v, parts.len() as u32))
}

/// Explains a crash instead of dying silently: with a software driver such as
/// lavapipe, kernels run on the CPU inside this process, and a kernel that
/// dereferences a wild pointer faults here.
fn explain_crashes() {
    extern "C" fn on_fault(_: libc::c_int) {
        const RUNNING: &[u8] = b"error: the kernel crashed pisa (segmentation fault): it accessed memory outside its buffers, e.g. through a wild pointer, or the driver failed compiling it (some drivers, such as llvmpipe, compile at the first dispatch). Software Vulkan drivers such as lavapipe run kernels inside this process, so such faults end it.\n";
        const COMPILING: &[u8] = b"error: the Vulkan driver crashed pisa (segmentation fault) while it compiled the kernel, before the kernel ran: a driver bug. Software Vulkan drivers such as lavapipe compile inside this process, so such faults end it.\n";
        let msg = if KERNEL_RUNNING.load(std::sync::atomic::Ordering::SeqCst) {
            RUNNING
        } else {
            COMPILING
        };
        // several of the driver's threads may fault at once: the first one
        // explains and ends the process, the others wait for that
        if CRASH_EXPLAINED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            loop {
                // SAFETY: pause(2) is async-signal-safe; the thread sleeps
                // until the first faulting thread's _exit ends the process
                // (a signal handled meanwhile returns here, to sleep again).
                unsafe {
                    libc::pause();
                }
            }
        }
        // SAFETY: write(2) and _exit(2) are async-signal-safe, and so are
        // atomic loads and swaps; `msg` is a static buffer of `msg.len()`
        // bytes; the handler never returns (so the faulting instruction is
        // not retried) and touches no other Rust state.
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(139);
        }
    }
    let handler: extern "C" fn(libc::c_int) = on_fault;
    for sig in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: installs a handler that only calls async-signal-safe
        // functions (above) and has the `void (*)(int)` signature signal(2)
        // expects; signal(2) itself is thread-safe.
        unsafe {
            libc::signal(sig, handler as libc::sighandler_t);
        }
    }
}

/// Whether a crash has been explained: the explanation is written once,
/// by the first thread that faults.
static CRASH_EXPLAINED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the kernel was submitted (a crash is then the kernel's or the
/// driver's at its first dispatch), for the crash explanation.
static KERNEL_RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Opens the chosen device and loads the program on it (`pisa_select`: the
/// cpu device, or a Vulkan device; the cpu device when none can be found and
/// none was named).
fn open_device(
    a: &RunArgs,
    what: &str,
    module: Option<&pisa_translator::Module>,
    words: Option<Vec<u32>>,
    timeout: Duration,
    profile: Option<pisa_device::DeviceDescription>,
) -> Result<(Box<dyn Device>, ProgramId)> {
    let program = match (module, &words) {
        (Some(m), _) => pisa_select::Program::Pisa(m),
        (None, Some(w)) => pisa_select::Program::Spirv(w),
        _ => bail!("nothing to run"),
    };
    let choice = pisa_select::selector(a.device.as_deref());
    if !pisa_select::is_cpu(choice.as_deref(), None) {
        explain_crashes();
    }
    let opened = pisa_select::open_device(
        program,
        &pisa_select::OpenOptions {
            device: a.device.clone(),
            validation: None,
            timeout,
            timestamps: a.time || a.json,
            checked_memory: a.check,
            profile,
            numerics: crate::parse_numerics(a.numerics.as_deref())?,
        },
    );
    use pisa_select::OpenError;
    match opened {
        Ok(o) => {
            if let Some(e) = o.fell_back {
                eprintln!(
                    "note: {e}\nnote: running on the cpu device (the reference interpreter) instead"
                );
            }
            Ok((o.dev.into_box(), o.prog))
        }
        Err(e @ (OpenError::SpirvOnCpu | OpenError::ProfileOnCpu)) => Err(e.into()),
        // a refusal (exit 3) says so, whichever step found it
        Err(OpenError::Start(e) | OpenError::Load(e) | OpenError::Translate(e))
            if e.is_refusal() =>
        {
            Err(e).with_context(|| format!("{what} cannot run on this device"))
        }
        Err(OpenError::Translate(e)) => Err(e).with_context(|| format!("cannot translate {what}")),
        Err(OpenError::Start(e)) => Err(e).context("cannot start the Vulkan runtime"),
        Err(OpenError::Load(e)) => Err(e).with_context(|| format!("cannot load {what}")),
    }
}

pub fn run(a: RunArgs) -> Result<std::process::ExitCode> {
    // everything the user typed is checked before anything runs
    let spirv_path = match (&a.spirv, &a.files[..]) {
        (Some(p), []) => Some(p.clone()),
        (Some(_), _) => bail!("give PISA files or --spirv FILE.spv, not both"),
        (None, []) => bail!("give a PISA file or --spirv FILE.spv"),
        (None, [p]) if p.extension().is_some_and(|e| e == "spv") => Some(p.clone()),
        (None, files)
            if files
                .iter()
                .any(|p| p.extension().is_some_and(|e| e == "spv")) =>
        {
            bail!("a SPIR-V module runs by itself: it cannot be linked with other files")
        }
        (None, _) => None,
    };
    let is_spirv = spirv_path.is_some();
    if is_spirv && a.check {
        bail!("--check instruments PISA programs as they are translated: it cannot check a SPIR-V module");
    }
    let what = match &spirv_path {
        Some(p) => p.display().to_string(),
        None => crate::display_names(&a.files),
    };
    let (global, dims) = parse_dims(&a.global, "global")?;
    let local = a
        .local
        .as_deref()
        .map(|l| parse_dims(l, "local"))
        .transpose()?
        .map(|l| l.0);
    let offset = match a.offset.as_deref() {
        Some(o) => {
            let (mut v, n) = parse_dims(o, "offset")?;
            v[n as usize..].fill(0);
            v
        }
        None => [0; 3],
    };
    for d in 0..3 {
        // (a --local larger than --global is one partial work-group, as the
        // prefix_sum sample uses; global ids, offset + id, must fit in 32 bits)
        if offset[d].checked_add(global[d]).is_none() {
            bail!("--offset {offset:?} + --global {global:?} overflows 32 bits in dimension {d}");
        }
    }
    let args: Vec<Arg> = a
        .args
        .iter()
        .enumerate()
        .map(|(i, s)| values::parse_arg(s).with_context(|| format!("--arg {i} `{s}`")))
        .collect::<Result<_>>()?;
    let mut set_globals = Vec::new();
    for g in &a.set_globals {
        let (name, tv) = g
            .split_once('=')
            .ok_or_else(|| anyhow!("--set-global `{g}`: expected NAME=TYPE:V1,V2,..."))?;
        let (t, v) = tv
            .split_once(':')
            .ok_or_else(|| anyhow!("--set-global `{g}`: expected NAME=TYPE:V1,V2,..."))?;
        let bytes = Ty::parse(t)
            .and_then(|ty| values::encode_list(ty, v))
            .with_context(|| format!("--set-global `{g}`"))?;
        set_globals.push((name.trim_start_matches('@').to_string(), bytes));
    }
    let mut outs = Vec::new();
    for o in &a.outs {
        let (n, p) = o
            .split_once('=')
            .ok_or_else(|| anyhow!("--out `{o}`: expected N=PATH"))?;
        let n: usize = n
            .parse()
            .map_err(|_| anyhow!("--out `{o}`: `{n}` is not an argument index"))?;
        match args.get(n) {
            Some(Arg::Buffer(..)) => {}
            _ => bail!("--out {n}: argument {n} is not a buffer"),
        }
        if !(p.ends_with(".npy") || p.ends_with(".bin")) {
            bail!("--out {n}={p}: the file must end in .npy or .bin");
        }
        // found now rather than after the kernel ran (and the results lost)
        let dir = std::path::Path::new(p)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if !dir.is_dir() {
            bail!("--out {n}={p}: the folder {} does not exist", dir.display());
        }
        if std::path::Path::new(p).is_dir() {
            bail!("--out {n}={p}: that is a folder");
        }
        outs.push((n, p.to_string()));
    }
    let seconds = |v: f64, what: &str| {
        Duration::try_from_secs_f64(v)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| anyhow!("--{what} must be a positive number of seconds (found {v})"))
    };
    let timeout = seconds(a.timeout, "timeout")?;
    let compile_timeout = seconds(a.compile_timeout, "compile-timeout")?;
    let profile = crate::read_profile(a.profile.as_deref())?;
    let t_start = Instant::now();
    let watchdog = crate::watchdog::CompileWatchdog::start(compile_timeout);
    let module = if is_spirv {
        None
    } else {
        match crate::assemble_program(&a.files)? {
            Some(m) => Some(m),
            None => return Ok(std::process::ExitCode::from(1)),
        }
    };
    let words = if let Some(path) = &spirv_path {
        let bytes =
            crate::read_input(path).with_context(|| format!("cannot read {}", path.display()))?;
        if bytes.len() % 4 != 0 {
            bail!(
                "{} is not a SPIR-V module (size is not a multiple of 4)",
                path.display()
            );
        }
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<u32>>(),
        )
    } else {
        None
    };

    watchdog.phase("translating and loading the program");
    let (mut device, prog) = open_device(&a, &what, module.as_ref(), words, timeout, profile)?;
    let rt: &mut dyn Device = device.as_mut();
    rt.set_printf_buffer_size(a.printf_buffer);
    for (name, bytes) in &set_globals {
        rt.write_global(prog, name, bytes)
            .with_context(|| format!("--set-global {name}"))?;
    }
    let mut buffers: Vec<Option<(BufferId, Ty)>> = Vec::new();
    let mut arg_bytes = Vec::new();
    for arg in &args {
        match arg {
            Arg::Scalar(b) => {
                buffers.push(None);
                arg_bytes.push(b.clone());
            }
            Arg::Buffer(ty, b) => {
                let id = rt.alloc_buffer(b.len() as u64)?;
                rt.upload(id, 0, b)?;
                arg_bytes.push(rt.buffer_address(id)?.to_le_bytes().to_vec());
                buffers.push(Some((id, *ty)));
            }
        }
    }
    let described = rt
        .kernels(prog)?
        .iter()
        .any(|k| k.name == a.kernel.trim_start_matches('@') && k.params.is_some());
    if is_spirv && !described {
        // the module's kernels have no declared parameters to check against
        // (SPIR-V from `pisa spirv` describes them)
        let bytes: usize = arg_bytes.iter().map(Vec::len).sum();
        eprintln!(
            "note: a SPIR-V module declares no parameter list: its {} argument(s) ({bytes} bytes, each 8-byte aligned) are passed unchecked (docs/abi.md, \"Argument block\")",
            arg_bytes.len()
        );
    }
    let launch = Launch {
        program: prog,
        kernel: a.kernel.clone(),
        range: NdRange {
            global,
            local,
            offset,
            dims,
        },
        args: arg_bytes,
    };
    watchdog.phase("the driver's compilation of the kernel");
    rt.prepare(&launch).context("launch failed")?;
    drop(watchdog);
    let compile_ms = t_start.elapsed().as_secs_f64() * 1e3;
    KERNEL_RUNNING.store(true, std::sync::atomic::Ordering::SeqCst);
    let t0 = Instant::now();
    let timing = rt.launch(&launch).context("launch failed")?;
    let wall = t0.elapsed();
    let kernel_ms = timing
        .kernel_ns
        .map_or(wall.as_secs_f64() * 1e3, |ns| ns as f64 / 1e6);
    // what the kernel printed comes first, as a program's own output does;
    // lost or undecodable output is reported (stderr), never dropped silently
    let printf_problems = timing
        .printf
        .as_ref()
        .map(|p| p.problems())
        .unwrap_or_default();
    for p in &printf_problems {
        eprintln!("warning: {p}");
    }
    if let (Some(p), false) = (&timing.printf, a.json) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(p.text.as_bytes())
            .and_then(|()| out.flush())
            .context("cannot write to standard output")?;
    }
    for (n, p) in &outs {
        if let Some(Some((id, ty))) = buffers.get(*n) {
            values::write_file(*ty, p, &rt.download(*id)?)?;
        }
    }
    let globals = rt.globals(prog)?;
    if a.json {
        let mut args_json = Vec::new();
        for (i, b) in buffers.iter().enumerate() {
            if let Some((id, ty)) = b {
                let data = rt.download(*id)?;
                args_json.push(format!(
                    "{{\"index\":{i},\"type\":\"{}\",\"data\":{}}}",
                    ty.name(),
                    ty.json_array(&data)
                ));
            }
        }
        let mut globals_json = Vec::new();
        for g in globals.iter().filter(|g| g.host_name.is_some()) {
            let name = g.host_name.clone().unwrap_or_default();
            let bytes = rt.read_global(prog, &name)?;
            globals_json.push(format!(
                "{}:{}",
                pisa_translator::diag::json_str(&name),
                Ty::U8.json_array(&bytes)
            ));
        }
        use pisa_translator::diag::json_str;
        let mut printf_json = String::new();
        if let Some(p) = &timing.printf {
            let lines: Vec<String> = p.lines().into_iter().map(json_str).collect();
            let problems: Vec<String> = printf_problems.iter().map(|s| json_str(s)).collect();
            printf_json = format!(
                ",\"printf\":[{}],\"printf_problems\":[{}]",
                lines.join(","),
                problems.join(",")
            );
        }
        outln!(
            "{{\"args\":[{}],\"globals\":{{{}}},\"compile_ms\":{compile_ms},\"kernel_ms\":{kernel_ms}{printf_json}}}",
            args_json.join(","),
            globals_json.join(",")
        )?;
    } else {
        outln!(
            "ran @{} on {} ({global:?} work-items)",
            a.kernel.trim_start_matches('@'),
            rt.device_info().name
        )?;
        for (i, b) in buffers.iter().enumerate() {
            if let Some((id, ty)) = b {
                let data = rt.download(*id)?;
                let n = data.len() / ty.size();
                let shown: Vec<String> = data
                    .chunks_exact(ty.size())
                    .take(16)
                    .map(|c| ty.json(c))
                    .collect();
                outln!(
                    "arg {i} ({} x{n}): [{}{}]",
                    ty.name(),
                    shown.join(", "),
                    if n > 16 { ", ..." } else { "" }
                )?;
            }
        }
        for g in globals.iter().filter(|g| g.host_name.is_some()) {
            let name = g.host_name.clone().unwrap_or_default();
            let bytes = rt.read_global(prog, &name)?;
            outln!("global {name}: {}", Ty::U8.json_array(&bytes))?;
        }
    }
    if a.time {
        let src = if rt.device_info().name == pisa_interp::CPU_DEVICE_NAME {
            "the reference interpreter, host clock"
        } else if timing.kernel_ns.is_some() {
            "GPU timestamps"
        } else {
            "host clock"
        };
        eprintln!("compile time: {compile_ms:.3} ms (assembling, translating and the driver's compilation, host clock)");
        eprintln!("kernel time: {kernel_ms:.3} ms ({src})");
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// What PISA does with each feature group (`pisa devices`): as lines
/// under a device (`   group: status (how or why)`), or as a JSON object.
fn support_text(info: &pisa_vk_runtime::DeviceInfo, denormals: Option<bool>, json: bool) -> String {
    use pisa_translator::diag::json_str as q;
    let rows = pisa_device::apply::support(info, denormals);
    if json {
        let fields: Vec<String> = rows
            .iter()
            .map(|(g, s)| {
                format!(
                    "{}:{{\"status\":{},\"detail\":{}}}",
                    q(g),
                    q(s.status()),
                    q(s.detail())
                )
            })
            .collect();
        format!("{{{}}}", fields.join(","))
    } else {
        rows.iter().map(|(g, s)| format!("\n   {g}: {s}")).collect()
    }
}

/// `pisa devices --profile FILE...`: the devices the files describe, each
/// taken as it is; with one file, also the Vulkan devices here restricted
/// to it, as `pisa run --profile` runs them.
fn profile_devices(json: bool, files: &[String]) -> Result<std::process::ExitCode> {
    use pisa_translator::diag::json_str as q;
    let mut descs = Vec::new();
    for f in files {
        descs.push(pisa_device::apply::read_profile(f).context("cannot read the device profile")?);
    }
    if !json {
        outln!("Device profiles, each taken as it is (no real device to restrict it to, no driver probed): what PISA does with each feature group")?;
    }
    for (f, d) in files.iter().zip(&descs) {
        let info = d.device_info(0);
        let denormals = Some(d.float_controls.shader_denorm_preserve_float32);
        let kind = match d.kind {
            pisa_device::DescriptionKind::DeviceReport => "device report",
            pisa_device::DescriptionKind::RequirementProfile => "requirement profile",
        };
        let file = std::path::Path::new(f)
            .file_name()
            .map_or_else(|| f.clone(), |n| n.to_string_lossy().into_owned());
        if json {
            outln!(
                "{{\"profile\":{},\"profile_name\":{},\"name\":{},\"kind\":{},\"vulkan\":\"{}\",\"probed\":null,\"pisa\":{}}}",
                q(&file),
                q(&d.identity.profile_name),
                q(&info.name),
                q(kind),
                d.api_version,
                support_text(&info, denormals, true)
            )?;
        } else {
            outln!(
                "{file}: {} ({kind}, Vulkan {}){}",
                info.name,
                d.api_version,
                support_text(&info, denormals, false)
            )?;
        }
    }
    if let [d] = &descs[..] {
        let mut devs = pisa_vk_runtime::list_devices().unwrap_or_default();
        if !json && !devs.is_empty() {
            outln!("Under this profile (`pisa run --profile`), the Vulkan devices here:")?;
        }
        for real in &mut devs {
            // the driver's behaviour is the real device's (a profile runs no
            // probe), and so are the translation choices it leads to
            let probe = probe_device(real);
            let r = d.restrict(real, [u32::MAX; 3]);
            if json {
                let notes: Vec<String> = r.notes.iter().map(|n| q(n)).collect();
                outln!(
                    "{{\"device\":{},\"index\":{},\"under_profile\":{},\"notes\":[{}],\"probed\":{},\"pisa\":{}}}",
                    q(&real.name),
                    real.index,
                    q(&d.identity.profile_name),
                    notes.join(","),
                    probe.json(),
                    support_text(&r.info, None, true)
                )?;
            } else {
                let notes: String = r.notes.iter().map(|n| format!("\n   note: {n}")).collect();
                outln!(
                    "{}: {}{notes}\n   probed (the real device's): {}{}",
                    real.index,
                    real.name,
                    probe.text(),
                    support_text(&r.info, None, false)
                )?;
            }
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn devices(json: bool, profiles: &[String]) -> Result<std::process::ExitCode> {
    let env = std::env::var("PISA_DEVICE_PROFILE")
        .ok()
        .filter(|v| !v.is_empty());
    match (profiles, env) {
        ([], None) => {}
        ([], Some(e)) => return profile_devices(json, &[e]),
        (files, _) => return profile_devices(json, files),
    }
    // the Vulkan devices, then the reference device (always there)
    let mut devs = match pisa_vk_runtime::list_devices() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("note: no Vulkan devices: {e}");
            Vec::new()
        }
    };
    // PISA_DEVICE naming no device is not an error here: nothing is default
    let env = pisa_select::selector(None);
    let default = if pisa_select::is_cpu(env.as_deref(), Some(devs.len())) || devs.is_empty() {
        Some(devs.len())
    } else {
        pisa_vk_runtime::default_device(&devs).ok()
    };
    // what the probe finds of each driver (opening the device, or its probe
    // cache)
    let probes: Vec<ProbeLine> = devs.iter_mut().map(probe_device).collect();
    devs.push(pisa_interp::cpu_device_info(devs.len()));
    for (i, d) in devs.iter().enumerate() {
        let probe = probes.get(i);
        let f = d.features;
        let feats: Vec<&str> = [
            (d.buffer_device_address, "bufferDeviceAddress"),
            (f.int8, "int8"),
            (f.int16, "int16"),
            (f.int64, "int64"),
            (f.float16, "float16"),
            (f.float64, "float64"),
            (f.storage8, "storage8"),
            (f.storage16, "storage16"),
            (f.int64_atomics, "int64atomics"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        let is_default = default == Some(i);
        if json {
            use pisa_translator::diag::json_str as q;
            let features: Vec<String> = feats.iter().map(|f| q(f)).collect();
            let [cx, cy, cz] = d.max_workgroup_count;
            outln!(
                "{{\"index\":{},\"name\":{},\"kind\":{},\"driver\":{},\"vulkan\":\"{}.{}.{}\",\"default\":{is_default},\"subgroup_size\":{},\"pisa_subgroups\":{},\"max_workgroup_invocations\":{},\"max_workgroup_count\":[{cx},{cy},{cz}],\"max_shared_bytes\":{},\"caps_loops\":{},\"features\":[{}]{}{}}}",
                d.index,
                q(&d.name),
                q(&format!("{:?}", d.kind)),
                q(&d.driver),
                d.api_version.0,
                d.api_version.1,
                d.api_version.2,
                d.subgroup_size,
                q(subgroups_32(d)),
                d.max_workgroup_invocations,
                d.max_shared_bytes,
                d.caps_loops,
                features.join(","),
                probe.map_or_else(String::new, |p| format!(",\"probed\":{}", p.json())),
                if d.name == pisa_interp::CPU_DEVICE_NAME {
                    String::new()
                } else {
                    format!(",\"pisa\":{}", support_text(d, None, true))
                }
            )?;
            continue;
        }
        if d.name == pisa_interp::CPU_DEVICE_NAME {
            outln!(
                "{}: {}{}: runs PISA with the spec's exact semantics and checks every memory access; no GPU or Vulkan needed (--device cpu)\n   sub-group size {}, max work-group {}, shared {} KiB",
                d.index,
                d.name,
                if is_default { " [default]" } else { "" },
                d.subgroup_size,
                d.max_workgroup_invocations,
                d.max_shared_bytes / 1024
            )?;
            continue;
        }
        outln!(
            "{}: {}{} ({:?}), driver {}, Vulkan {}.{}.{}, subgroup size {} (PISA's sub-groups of 32: {}), max work-group {} (groups per dispatch {:?}), shared {} KiB\n   features: {}\n   probed: {}{}{}",
            d.index,
            d.name,
            if is_default { " [default]" } else { "" },
            d.kind,
            d.driver,
            d.api_version.0,
            d.api_version.1,
            d.api_version.2,
            d.subgroup_size,
            subgroups_32(d),
            d.max_workgroup_invocations,
            d.max_workgroup_count,
            d.max_shared_bytes / 1024,
            feats.join(" "),
            probe.map_or_else(String::new, ProbeLine::text),
            if d.caps_loops {
                "\n   loops: the driver caps iterations (65,535 in all); small loops are unrolled"
            } else {
                ""
            },
            support_text(d, None, false)
        )?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// What `pisa devices` shows of a device's probed behaviour
/// (docs/devices.md, "Probed behaviour").
struct ProbeLine {
    probed: Option<pisa_vk_runtime::Probed>,
    /// `measured in N ms`, `cached, read in N ms`, or why not probed.
    source: String,
    /// `PISA_PROBE_OVERRIDE`'s list, where set.
    overridden: Option<String>,
}

impl ProbeLine {
    fn text(&self) -> String {
        let over = self.overridden.as_ref().map_or_else(String::new, |o| {
            format!("; overridden by PISA_PROBE_OVERRIDE={o}")
        });
        match &self.probed {
            Some(p) => format!("{} ({}{over})", p.to_list().join(" "), self.source),
            None => self.source.clone(),
        }
    }

    fn json(&self) -> String {
        use pisa_translator::diag::json_str as q;
        let values: Vec<String> = self
            .probed
            .iter()
            .flat_map(|p| p.to_list())
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                Some(format!("{}:{}", q(k), q(v)))
            })
            .collect();
        format!(
            "{{\"values\":{},\"source\":{},\"override\":{}}}",
            if self.probed.is_some() {
                format!("{{{}}}", values.join(","))
            } else {
                "null".into()
            },
            q(&self.source),
            self.overridden.as_deref().map_or_else(|| "null".into(), q)
        )
    }
}

/// Opens the Vulkan device `d` to learn its driver's probed behaviour (from
/// the probe cache where an earlier open left it), and records it in `d`.
fn probe_device(d: &mut pisa_vk_runtime::DeviceInfo) -> ProbeLine {
    let opts = pisa_vk_runtime::RuntimeOptions {
        device: Some(d.index.to_string()),
        ..Default::default()
    };
    match pisa_vk_runtime::Runtime::new(opts) {
        Ok(rt) => {
            let source = match rt.probe_source() {
                Some(pisa_vk_runtime::ProbeSource::Measured(t)) => {
                    format!("measured in {:.1} ms", t.as_secs_f64() * 1e3)
                }
                Some(pisa_vk_runtime::ProbeSource::Cached(t)) => {
                    format!("cached, read in {:.2} ms", t.as_secs_f64() * 1e3)
                }
                None => "not probed".into(),
            };
            d.probed = rt.probed().cloned();
            ProbeLine {
                probed: d.probed.clone(),
                source,
                overridden: rt.probe_override().map(str::to_string),
            }
        }
        Err(e) => ProbeLine {
            probed: None,
            source: format!("not probed (the device could not be opened: {e})"),
            overridden: None,
        },
    }
}

/// How a device runs PISA's sub-groups of 32 (`pisa devices`).
fn subgroups_32(d: &pisa_vk_runtime::DeviceInfo) -> &'static str {
    if d.name == pisa_interp::CPU_DEVICE_NAME {
        // the reference interpreter runs sub-groups of 32 in lockstep
        "native"
    } else {
        // every Vulkan device runs them through the translator's SIMT
        // emulation (the IR pass translator/src/ir/simt.rs): Vulkan promises no
        // reconvergence, whatever the native width
        "emulated"
    }
}
