//! Kernel benchmark: PISA kernels against the same kernels written in GLSL,
//! both launched by the same runtime on the default device.
//!
//! For each kernel, the `.pisa` file is assembled and translated by this
//! project, and its GLSL twin (`benches/kernels/NAME.comp`, written against
//! docs/abi.md) is compiled by `glslangValidator`. Both run on identical
//! inputs, interleaved (PISA, GLSL, GLSL, PISA, ...) after a warm-up round
//! that keeps pipeline creation and the driver's compile out of the numbers;
//! times are GPU timestamps. After every round the outputs of the two sides
//! must be byte-identical, and after the warm-up they must also equal a CPU
//! reference. The table gives the median of the per-round ratios PISA/GLSL.
//!
//! ```text
//! cargo bench --bench kernels                     # full sizes, 7 rounds
//! cargo bench --bench kernels -- --quick          # small sizes, 3 rounds
//! cargo bench --bench kernels -- mandel matmul    # only kernels whose name contains a word
//! cargo bench --bench kernels -- --rounds 9
//! ```
//! The same through the environment: `PISA_BENCH_QUICK=1`,
//! `PISA_BENCH_FILTER=mandel,matmul`, `PISA_BENCH_ROUNDS=9`.
//!
//! Writes `target/kernel-bench/results.json` and `target/kernel-bench/ratios.png`.
//! See benches/kernels/README.md.

use anyhow::{anyhow, bail, Context, Result};
use pisa_vk_runtime::{Runtime, RuntimeOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

// ---------------------------------------------------------------- options

#[path = "kernels/opts.rs"]
mod opts;
use opts::parse_opts;

#[path = "kernels/cases.rs"]
mod cases;
use cases::*;

struct Measured {
    name: &'static str,
    size: String,
    pisa_ns: Vec<u64>,
    glsl_ns: Vec<u64>,
    /// Which CPU reference matched, where there are several.
    notes: Vec<String>,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

impl Measured {
    fn ratios(&self) -> Vec<f64> {
        self.pisa_ns
            .iter()
            .zip(&self.glsl_ns)
            .map(|(p, g)| *p as f64 / (*g).max(1) as f64)
            .collect()
    }
    fn ratio(&self) -> f64 {
        median(&self.ratios())
    }
    fn ms(v: &[u64]) -> f64 {
        median(&v.iter().map(|&n| n as f64 / 1e6).collect::<Vec<_>>())
    }
}

fn bench_case(
    rt: &mut Runtime,
    case: &Case,
    spv: &[u32],
    rounds: usize,
) -> Result<(Measured, Duration)> {
    let t0 = Instant::now();
    let path = Path::new(ROOT).join(case.pisa);
    let src =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let module = pisa_translator::assemble(case.pisa, &src)
        .map_err(|d| anyhow!("{} is not valid PISA:\n{}", case.pisa, d.render()))?;
    let pp = rt
        .load(&module)
        .map_err(|e| anyhow!("loading {}: {e}", case.pisa))?;
    let gp = rt
        .load_spirv(spv)
        .map_err(|e| anyhow!("loading the GLSL twin of {}: {e}", case.name))?;
    let pisa = Side::new(rt, pp, case)?;
    let glsl = Side::new(rt, gp, case)?;

    // warm-up: pipelines are created and JIT-compiled at the first launch
    pisa.run(rt, case, "PISA")?;
    glsl.run(rt, case, "GLSL")?;
    let po = pisa.outputs(rt, case)?;
    let go = glsl.outputs(rt, case)?;
    for ((i, p), (_, g)) in po.iter().zip(&go) {
        same(case.name, *i, ("PISA", "GLSL"), p, g)?;
    }
    let mut notes = Vec::new();
    for (i, wants) in &case.expected {
        let (_, p) = po
            .iter()
            .find(|(j, _)| j == i)
            .ok_or_else(|| anyhow!("buffer {i} is no output"))?;
        match wants.iter().find(|(_, w)| w == p) {
            Some((label, _)) if !label.is_empty() => notes.push(label.to_string()),
            Some(_) => {}
            // report the difference from the first alternative
            None => same(case.name, *i, ("PISA", "the CPU reference"), p, &wants[0].1)?,
        }
    }

    let mut m = Measured {
        name: case.name,
        size: case.size.clone(),
        pisa_ns: Vec::new(),
        glsl_ns: Vec::new(),
        notes,
    };
    for r in 0..rounds {
        // alternate which side goes first, so neither always runs on a
        // cache the other warmed (or a CPU the other heated)
        if r % 2 == 0 {
            m.pisa_ns.push(pisa.run(rt, case, "PISA")?);
            m.glsl_ns.push(glsl.run(rt, case, "GLSL")?);
        } else {
            m.glsl_ns.push(glsl.run(rt, case, "GLSL")?);
            m.pisa_ns.push(pisa.run(rt, case, "PISA")?);
        }
        let po = pisa.outputs(rt, case)?;
        let go = glsl.outputs(rt, case)?;
        for ((i, p), (_, g)) in po.iter().zip(&go) {
            same(case.name, *i, ("PISA", "GLSL"), p, g)?;
        }
    }
    pisa.free(rt);
    glsl.free(rt);
    Ok((m, t0.elapsed()))
}

// ---------------------------------------------------------------- GLSL

/// Compiles benches/kernels/NAME.comp with glslangValidator (entry point
/// named like the kernel) and returns the SPIR-V words.
fn compile_glsl(name: &str, out_dir: &Path) -> Result<Vec<u32>> {
    let src = Path::new(ROOT).join(format!("benches/kernels/{name}.comp"));
    let spv = out_dir.join(format!("{name}.spv"));
    let out = Command::new("glslangValidator")
        .args(["--target-env", "vulkan1.2", "-S", "comp", "-e", name])
        .args(["--source-entrypoint", "main", "-o"])
        .arg(&spv)
        .arg(&src)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "glslangValidator was not found on PATH: it compiles the GLSL twins of the \
             kernels. Install it (Debian: `apt-get install glslang-tools`, or \
             `PISA_SETUP_TESTS=1 ci/setup`)"
        ),
        Err(e) => bail!("running glslangValidator: {e}"),
    };
    if !out.status.success() {
        bail!(
            "glslangValidator failed on {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bytes = std::fs::read(&spv).with_context(|| format!("reading {}", spv.display()))?;
    if bytes.len() % 4 != 0 {
        bail!("{} is not SPIR-V", spv.display());
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

// ---------------------------------------------------------------- output

/// `target/kernel-bench`: next to the bench executable's `target/<profile>/deps`
/// (so CARGO_TARGET_DIR is honoured), else under the repository.
fn out_dir() -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|p| {
        let deps = p.parent()?;
        let profile = deps.parent()?;
        (deps.file_name()? == "deps").then(|| profile.parent().map(Path::to_path_buf))?
    });
    from_exe
        .unwrap_or_else(|| Path::new(ROOT).join("target"))
        .join("kernel-bench")
}

fn table(results: &[Measured]) -> String {
    let mut s = String::from(
        "| kernel | size | PISA/GLSL (median ratio) | PISA ms | GLSL ms |\n\
         |---|---|---:|---:|---:|\n",
    );
    for m in results {
        s.push_str(&format!(
            "| {} | {} | {:.2} | {:.2} | {:.2} |\n",
            m.name,
            m.size,
            m.ratio(),
            Measured::ms(&m.pisa_ns),
            Measured::ms(&m.glsl_ns)
        ));
    }
    s
}

fn git_commit() -> Option<String> {
    let out = Command::new("git")
        .args(["-C", ROOT, "rev-parse", "--short", "HEAD"])
        .output()
        .ok()?;
    let hash = String::from_utf8(out.stdout).ok()?.trim().to_string();
    if !out.status.success() || hash.is_empty() {
        return None;
    }
    let dirty = Command::new("git")
        .args([
            "-C",
            ROOT,
            "status",
            "--porcelain",
            "--",
            "translator",
            "vk-runtime",
        ])
        .output()
        .ok()
        .is_some_and(|o| !o.stdout.is_empty());
    Some(if dirty {
        format!("{hash} (translator/ or vk-runtime/ modified)")
    } else {
        hash
    })
}

fn write_json(path: &Path, header: &serde_json::Value, results: &[Measured]) -> Result<()> {
    let kernels: Vec<serde_json::Value> = results
        .iter()
        .map(|m| {
            serde_json::json!({
                "kernel": m.name,
                "size": m.size,
                "ratio_median": m.ratio(),
                "pisa_ms_median": Measured::ms(&m.pisa_ns),
                "glsl_ms_median": Measured::ms(&m.glsl_ns),
                "ratios": m.ratios(),
                "cpu_reference": m.notes,
                "pisa_ms": m.pisa_ns.iter().map(|&n| n as f64 / 1e6).collect::<Vec<_>>(),
                "glsl_ms": m.glsl_ns.iter().map(|&n| n as f64 / 1e6).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut doc = header.clone();
    doc["kernels"] = serde_json::Value::Array(kernels);
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

/// Registers a TrueType font for plotters' `ab_glyph` text (see Cargo.toml):
/// `PISA_BENCH_FONT`, else DejaVu Sans or Liberation Sans where Debian (and
/// other distributions) put them. `None`: no font, the chart has no text.
fn register_font() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PISA_BENCH_FONT") {
        // only this one (a path that does not exist: a chart without text)
        candidates.push(p.into());
    } else {
        for p in [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        ] {
            candidates.push(p.into());
        }
    }
    for path in candidates {
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        // plotters keeps fonts for the life of the program
        let data: &'static [u8] = Box::leak(data.into_boxed_slice());
        if plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, data)
            .is_ok()
        {
            return Some(path);
        }
    }
    None
}

/// A bar per kernel: its median PISA/GLSL ratio, with a line at 1.0 (parity).
fn draw_chart(path: &Path, results: &[Measured], title: &str, text: bool) -> Result<()> {
    use plotters::prelude::*;
    let n = results.len();
    let ratios: Vec<f64> = results.iter().map(Measured::ratio).collect();
    let top = ratios.iter().copied().fold(1.0, f64::max) * 1.15;
    let root = BitMapBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if text {
        builder
            .caption(title, ("sans-serif", 24))
            .x_label_area_size(60)
            .y_label_area_size(70);
    }
    // plotters' integer ranges are inclusive: 0..n-1 makes n segments
    let mut chart = builder.build_cartesian_2d((0..n - 1).into_segmented(), 0f64..top)?;
    let names: Vec<&str> = results.iter().map(|m| m.name).collect();
    let label = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) => names.get(*i).copied().unwrap_or("").to_string(),
        _ => String::new(),
    };
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh().light_line_style(WHITE.mix(0.0));
    if text {
        mesh.x_labels(n)
            .x_label_formatter(&label)
            .label_style(("sans-serif", 16))
            .y_desc("PISA time / GLSL time (median)")
            .x_desc("black line: 1.0, PISA as fast as GLSL. Green: <= 1.25, orange: <= 3, red: > 3")
            .axis_desc_style(("sans-serif", 18));
    }
    mesh.draw()?;
    chart.draw_series(ratios.iter().enumerate().map(|(i, &r)| {
        let color = if r <= 1.25 {
            RGBColor(60, 150, 80)
        } else if r <= 3.0 {
            RGBColor(230, 160, 40)
        } else {
            RGBColor(200, 60, 50)
        };
        let mut bar = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0.0),
                (SegmentValue::Exact(i + 1), r),
            ],
            color.filled(),
        );
        bar.set_margin(0, 0, 12, 12);
        bar
    }))?;
    chart.draw_series(LineSeries::new(
        [(SegmentValue::Exact(0), 1.0), (SegmentValue::Last, 1.0)],
        BLACK.stroke_width(2),
    ))?;
    if text {
        chart.draw_series(ratios.iter().enumerate().map(|(i, &r)| {
            EmptyElement::at((SegmentValue::CenterOf(i), r))
                + Text::new(format!("{r:.2}x"), (-18, -22), ("sans-serif", 17))
        }))?;
    }
    root.present()?;
    Ok(())
}

// ---------------------------------------------------------------- main

fn main() -> Result<()> {
    let start = Instant::now();
    let opts = parse_opts("kernels", 7)?;
    let names: Vec<&str> = NAMES
        .iter()
        .copied()
        .filter(|n| opts.filter.is_empty() || opts.filter.iter().any(|f| n.contains(f.as_str())))
        .collect();
    if names.is_empty() {
        bail!(
            "no kernel matches {:?}; the kernels are: {}",
            opts.filter,
            NAMES.join(", ")
        );
    }
    let dir = out_dir();
    let spv_dir = dir.join("spv");
    std::fs::create_dir_all(&spv_dir).with_context(|| format!("creating {}", spv_dir.display()))?;
    let mut spvs = Vec::new();
    for n in &names {
        spvs.push(compile_glsl(n, &spv_dir)?);
    }

    let mut rt = Runtime::new(RuntimeOptions {
        timestamps: true,
        timeout: Duration::from_secs(300),
        ..Default::default()
    })
    .map_err(|e| anyhow!("no Vulkan device: {e}"))?;
    let info = rt.device_info().clone();
    let mode = if opts.quick { "quick" } else { "full" };
    println!(
        "kernel benchmark ({mode}: {} round{} after a warm-up, PISA and GLSL interleaved) on {} ({})",
        opts.rounds,
        if opts.rounds == 1 { "" } else { "s" },
        info.name,
        info.driver
    );
    let commit = git_commit();
    let mut results = Vec::new();
    for (name, spv) in names.iter().zip(&spvs) {
        let t = Instant::now();
        let case = make_case(name, opts.quick);
        let setup = t.elapsed();
        let (m, took) = bench_case(&mut rt, &case, spv, opts.rounds)?;
        println!(
            "  {:<13} {:<45} ratio {:>6.2}  (PISA {:.2} ms, GLSL {:.2} ms; inputs + CPU reference {:.1} s, runs {:.1} s)",
            m.name,
            m.size,
            m.ratio(),
            Measured::ms(&m.pisa_ns),
            Measured::ms(&m.glsl_ns),
            setup.as_secs_f64(),
            took.as_secs_f64()
        );
        for n in &m.notes {
            println!("  {:<13} the outputs equal the CPU reference with {n}", "");
        }
        results.push(m);
    }
    let timing = "GPU timestamps";
    println!();
    println!(
        "device: {} ({}); {mode} mode, {} rounds; times: {timing}, median per kernel{}",
        info.name,
        info.driver,
        opts.rounds,
        commit
            .as_deref()
            .map(|c| format!("; commit {c}"))
            .unwrap_or_default()
    );
    println!("outputs: PISA and GLSL byte-identical in every round, and equal to a CPU reference");
    println!();
    print!("{}", table(&results));
    println!();

    let header = serde_json::json!({
        "device": info.name,
        "driver": info.driver,
        "mode": mode,
        "rounds": opts.rounds,
        "timing": timing,
        "commit": commit,
    });
    let json = dir.join("results.json");
    write_json(&json, &header, &results)?;
    let png = dir.join("ratios.png");
    let font = register_font();
    let title = format!(
        "PISA vs GLSL, same kernels and runtime: time ratio ({}, {mode})",
        info.name
    );
    draw_chart(&png, &results, &title, font.is_some())
        .map_err(|e| anyhow!("drawing {}: {e}", png.display()))?;
    println!("wrote {} and {}", json.display(), png.display());
    if font.is_none() {
        println!(
            "(no TrueType font found, so the chart has no text: set PISA_BENCH_FONT to a .ttf file, \
             or install fonts-dejavu-core)"
        );
    }
    println!("total {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
