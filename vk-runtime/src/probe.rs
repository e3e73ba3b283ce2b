//! What the driver does that its feature bits do not state, measured when
//! the runtime opens a device ([`pisa_device::Probed`]; docs/devices.md,
//! "Probed behaviour"), and what translation makes of it ([`apply`]).
//!
//! Vulkan leaves three things of PISA's IEEE arithmetic to the driver
//! unless a module asks: whether denormals are kept (a module may request
//! `DenormPreserve` where the device has `shaderDenormPreserveFloatN`),
//! whether signed zeros, infinities and NaNs survive (`SignedZeroInfNanPreserve`),
//! and whether `GLSL.std.450 Fma` rounds once (nothing to request). The
//! probe runs one small kernel, translated from PISA as any program is but
//! with no float execution mode declared and `fmad.f` on the device's
//! `Fma`, on inputs read from a buffer (the compiler cannot see them):
//!
//! - denormals, per width: `2^-149 · 1` (`2^-24`, `2^-1074` for f16 and
//!   f64: a denormal operand) and `2^-126 · 0.5` (a denormal result) must
//!   come out unchanged;
//! - signed zeros, infinities and NaNs, per width: `-0 + 0` (the constant
//!   in the instruction) must be `+0`, `∞ · 0` and `∞ − ∞` NaNs, and for
//!   f32 `fcmp.ne` of that NaN with itself true;
//! - `fmad.f(1 + 2^-23, 1 − 2^-24, −1)` must be `2^-24 − 2^-47`
//!   (0x337FFFFE; 0 when the product is rounded first) and
//!   `fmad.f(FLT_MAX, 2, −FLT_MAX)` FLT_MAX (+∞ twice rounded); for f64
//!   (`fmad.df` on the driver's `Fma`), `fmad.df(1 + 2^-52, 1 − 2^-53, −1)`
//!   `2^-53 − 2^-105` (0x3C9FFFFFFFFFFFFE) and `fmad.df(DBL_MAX, 2,
//!   −DBL_MAX)` DBL_MAX.
//!
//! f16 is probed where the runtime enabled `shaderFloat16` and
//! `shaderInt16`, f64 where it enabled `shaderFloat64`. `.hf` is
//! computed in f32 and narrowed, so its probe measures what PISA's `.hf`
//! instructions get on this driver.
//!
//! The results are kept in a file beside the pipeline cache, one per
//! device and driver build (its name holds the vendor and device IDs, the
//! device and driver UUIDs and the driver version), so only the first open
//! of a device probes. `PISA_PROBE_OVERRIDE=denormals32=flushed,fma=unfused,...`
//! replaces probed values (tests reach the emulations and refusals with it
//! on a driver that needs none); it is never written to the cache.

use crate::{DeviceInfo, Launch, NdRange, Result, Runtime, RuntimeError};
use pisa_device::Probed;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The first line of a probe cache file; a file with another is probed
/// again (a later probe kernel measures more, or differently).
const CACHE_HEADER: &str = "pisa probe 1";

/// The largest probe cache file read (it holds a few lines).
const CACHE_MAX_BYTES: u64 = 4096;

/// The environment variable whose `key=value` list replaces probed values.
pub const OVERRIDE_VAR: &str = "PISA_PROBE_OVERRIDE";

/// How the runtime came by its probed values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeSource {
    /// Measured on the device when it was opened, in this time (the
    /// probe kernel's translation, the driver's compilation and the
    /// launch).
    Measured(Duration),
    /// Read from the probe cache file, in this time.
    Cached(Duration),
}

/// The probe kernel's buffer: f32 inputs from byte 0 and results from 64,
/// f16 (each in the low half of a 32-bit word, so that no 16-bit storage is
/// needed) from 128 and 160, f64 from 192 and 256, f64 `fmad` from 304 and
/// 352.
const IO_BYTES: usize = 368;

fn kernel_source(f16: bool, f64: bool) -> String {
    let mut s = String::from(
        ".version 0.1;\n.target 100;\n.kernel @probe(.param[8] %io)\n{\n\t.reg .64b %p, %w, %x, %y, %z;\n\t.reg .32b %a, %b, %c, %d;\n",
    );
    if f16 {
        s.push_str("\t.reg .16b %h, %i, %j;\n");
    }
    s.push_str(
        "\tld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	ld.global.32b %b, [%p + 4];
	fmul.f %d, %a, %b;
	st.global.32b [%p + 64], %d;
	ld.global.32b %a, [%p + 8];
	ld.global.32b %b, [%p + 12];
	fmul.f %d, %a, %b;
	st.global.32b [%p + 68], %d;
	ld.global.32b %a, [%p + 16];
	fadd.f %d, %a, 0x00000000;
	st.global.32b [%p + 72], %d;
	ld.global.32b %a, [%p + 20];
	fmul.f %d, %a, 0x00000000;
	st.global.32b [%p + 76], %d;
	fsub.f %d, %a, %a;
	st.global.32b [%p + 80], %d;
	fcmp.ne.f %c, %d, %d;
	st.global.32b [%p + 84], %c;
	ld.global.32b %a, [%p + 24];
	ld.global.32b %b, [%p + 28];
	ld.global.32b %c, [%p + 32];
	fmad.f %d, %a, %b, %c;
	st.global.32b [%p + 88], %d;
	ld.global.32b %a, [%p + 36];
	ld.global.32b %b, [%p + 40];
	ld.global.32b %c, [%p + 44];
	fmad.f %d, %a, %b, %c;
	st.global.32b [%p + 92], %d;
",
    );
    if f16 {
        s.push_str(
            "\tld.global.32b %a, [%p + 128];
	trunc.16b.32b %h, %a;
	ld.global.32b %a, [%p + 132];
	trunc.16b.32b %i, %a;
	fmul.hf %j, %h, %i;
	zext.32b.16b %d, %j;
	st.global.32b [%p + 160], %d;
	ld.global.32b %a, [%p + 136];
	trunc.16b.32b %h, %a;
	ld.global.32b %a, [%p + 140];
	trunc.16b.32b %i, %a;
	fmul.hf %j, %h, %i;
	zext.32b.16b %d, %j;
	st.global.32b [%p + 164], %d;
	ld.global.32b %a, [%p + 144];
	trunc.16b.32b %h, %a;
	fadd.hf %j, %h, 0x0000;
	zext.32b.16b %d, %j;
	st.global.32b [%p + 168], %d;
	ld.global.32b %a, [%p + 148];
	trunc.16b.32b %h, %a;
	fmul.hf %j, %h, 0x0000;
	zext.32b.16b %d, %j;
	st.global.32b [%p + 172], %d;
	fsub.hf %j, %h, %h;
	zext.32b.16b %d, %j;
	st.global.32b [%p + 176], %d;
",
        );
    }
    if f64 {
        s.push_str(
            "\tld.global.64b %x, [%p + 192];
	ld.global.64b %y, [%p + 200];
	fmul.df %z, %x, %y;
	st.global.64b [%p + 256], %z;
	ld.global.64b %x, [%p + 208];
	ld.global.64b %y, [%p + 216];
	fmul.df %z, %x, %y;
	st.global.64b [%p + 264], %z;
	ld.global.64b %x, [%p + 224];
	fadd.df %z, %x, 0x0000000000000000;
	st.global.64b [%p + 272], %z;
	ld.global.64b %x, [%p + 232];
	fmul.df %z, %x, 0x0000000000000000;
	st.global.64b [%p + 280], %z;
	fsub.df %z, %x, %x;
	st.global.64b [%p + 288], %z;
	ld.global.64b %x, [%p + 304];
	ld.global.64b %y, [%p + 312];
	ld.global.64b %w, [%p + 320];
	fmad.df %z, %x, %y, %w;
	st.global.64b [%p + 352], %z;
	ld.global.64b %x, [%p + 328];
	ld.global.64b %y, [%p + 336];
	ld.global.64b %w, [%p + 344];
	fmad.df %z, %x, %y, %w;
	st.global.64b [%p + 360], %z;
",
        );
    }
    s.push_str("\treturn;\n}\n");
    s
}

/// The probe kernel's inputs (the rest of the buffer is zero).
fn inputs() -> Vec<u8> {
    let mut io = vec![0u8; IO_BYTES];
    let f32_in: [u32; 12] = [
        0x0000_0001, // 2^-149
        0x3F80_0000, // 1
        0x0080_0000, // 2^-126
        0x3F00_0000, // 0.5
        0x8000_0000, // -0
        0x7F80_0000, // +inf
        // fmad.f: once rounded 0x337FFFFE, 0 twice
        0x3F80_0001,
        0x3F7F_FFFF,
        0xBF80_0000,
        // FLT_MAX · 2 − FLT_MAX: FLT_MAX once rounded, +inf twice
        0x7F7F_FFFF,
        0x4000_0000,
        0xFF7F_FFFF,
    ];
    for (i, w) in f32_in.iter().enumerate() {
        io[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    // 2^-24, 1, 2^-14, 0.5, -0, +inf
    let f16_in: [u16; 6] = [0x0001, 0x3C00, 0x0400, 0x3800, 0x8000, 0x7C00];
    for (i, h) in f16_in.iter().enumerate() {
        io[128 + 4 * i..130 + 4 * i].copy_from_slice(&h.to_le_bytes());
    }
    // 2^-1074, 1, 2^-1022, 0.5, -0, +inf
    let f64_in: [u64; 6] = [
        0x1,
        0x3FF0_0000_0000_0000,
        0x0010_0000_0000_0000,
        0x3FE0_0000_0000_0000,
        0x8000_0000_0000_0000,
        0x7FF0_0000_0000_0000,
    ];
    for (i, d) in f64_in.iter().enumerate() {
        io[192 + 8 * i..200 + 8 * i].copy_from_slice(&d.to_le_bytes());
    }
    let fma64_in: [u64; 6] = [
        // fmad.df: once rounded 0x3C9FFFFFFFFFFFFE, 0 twice
        0x3FF0_0000_0000_0001,
        0x3FEF_FFFF_FFFF_FFFF,
        0xBFF0_0000_0000_0000,
        // DBL_MAX · 2 − DBL_MAX: DBL_MAX once rounded, +inf twice
        0x7FEF_FFFF_FFFF_FFFF,
        0x4000_0000_0000_0000,
        0xFFEF_FFFF_FFFF_FFFF,
    ];
    for (i, d) in fma64_in.iter().enumerate() {
        io[304 + 8 * i..312 + 8 * i].copy_from_slice(&d.to_le_bytes());
    }
    io
}

/// The probed values from the kernel's buffer after the launch.
fn read_results(io: &[u8], f16: bool, f64: bool) -> Probed {
    let w32 = |at: usize| u32::from_le_bytes([io[at], io[at + 1], io[at + 2], io[at + 3]]);
    let w64 = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&io[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let nan32 = |v: u32| v & 0x7FFF_FFFF > 0x7F80_0000;
    // (a 16-bit result, zero-extended)
    let nan16 = |v: u32| v <= 0xFFFF && v & 0x7FFF > 0x7C00;
    let nan64 = |v: u64| v & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000;
    let mut p = Probed::default();
    p.denormals_kept[1] = Some(w32(64) == 0x0000_0001 && w32(68) == 0x0040_0000);
    p.signed_zero_inf_nan_kept[1] =
        Some(w32(72) == 0 && nan32(w32(76)) && nan32(w32(80)) && w32(84) != 0);
    p.fma_f32_fused = Some(w32(88) == 0x337F_FFFE && w32(92) == 0x7F7F_FFFF);
    if f16 {
        p.denormals_kept[0] = Some(w32(160) == 0x0001 && w32(164) == 0x0200);
        p.signed_zero_inf_nan_kept[0] = Some(w32(168) == 0 && nan16(w32(172)) && nan16(w32(176)));
    }
    if f64 {
        p.denormals_kept[2] = Some(w64(256) == 0x1 && w64(264) == 0x0008_0000_0000_0000);
        p.signed_zero_inf_nan_kept[2] = Some(w64(272) == 0 && nan64(w64(280)) && nan64(w64(288)));
        p.fma_f64_fused =
            Some(w64(352) == 0x3C9F_FFFF_FFFF_FFFE && w64(360) == 0x7FEF_FFFF_FFFF_FFFF);
    }
    p
}

/// Which widths the runtime can probe with the features it enabled:
/// (f16, f64).
fn widths(info: &DeviceInfo) -> (bool, bool) {
    let f = info.features;
    (f.float16 && f.int16, f.float64)
}

/// Whether `p` holds a value for every width the runtime can probe, and
/// for every request the device takes at those widths.
fn covers(p: &Probed, info: &DeviceInfo) -> bool {
    let (f16, f64) = widths(info);
    let probed = [f16, true, f64];
    p.fma_f32_fused.is_some()
        && (!f64 || p.fma_f64_fused.is_some())
        && (0..3).all(|i| {
            !probed[i]
                || (p.denormals_kept[i].is_some()
                    && p.signed_zero_inf_nan_kept[i].is_some()
                    && (!info.denorm_preserve[i] || p.denorm_preserve_honoured[i].is_some())
                    && (!info.signed_zero_inf_nan_preserve[i]
                        || p.signed_zero_inf_nan_preserve_honoured[i].is_some()))
        })
}

/// The probe cache file of a device: `probe-VENDOR-DEVICE-DEVICEUUID-DRIVERUUID-DRIVERVERSION.txt`
/// in the pipeline cache's directory. None while `PISA_SPIRV_OPTIONS` is
/// set: it changes the lowering the probe kernel measures through (the
/// operands hidden from the compiler or not), so such runs probe afresh
/// and keep nothing.
pub(crate) fn cache_path(
    props: &ash::vk::PhysicalDeviceProperties,
    ids: &ash::vk::PhysicalDeviceIDProperties,
) -> Option<PathBuf> {
    if std::env::var_os("PISA_SPIRV_OPTIONS").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    Some(crate::cache::dir()?.join(format!(
        "probe-{:04x}-{:04x}-{}-{}-{:08x}.txt",
        props.vendor_id,
        props.device_id,
        hex(&ids.device_uuid),
        hex(&ids.driver_uuid),
        props.driver_version
    )))
}

/// The probed values the cache file at `path` holds; `None` when there is
/// none, or it is not one this runtime wrote (another header, a bad line,
/// too large, not a regular file: then probed again and rewritten).
pub(crate) fn read_cache(path: &Path) -> Option<Probed> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > CACHE_MAX_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix(CACHE_HEADER)?.strip_prefix('\n')?;
    let mut p = Probed::default();
    p.apply_list(rest).ok()?;
    Some(p)
}

/// Writes the probe cache (write, then rename: a concurrent run never
/// reads half a file). A failure only costs the next run a probe.
fn write_cache(path: &Path, p: &Probed) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text = format!("{CACHE_HEADER}\n{}\n", p.to_list().join("\n"));
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// `p` with `PISA_PROBE_OVERRIDE`'s values (`Ok(None)`: the variable is not
/// set or empty).
pub(crate) fn with_override(mut p: Probed) -> Result<(Probed, Option<String>)> {
    match std::env::var(OVERRIDE_VAR) {
        Ok(v) if !v.trim().is_empty() => {
            p.apply_list(&v)
                .map_err(|e| RuntimeError::BadArgument(format!("{OVERRIDE_VAR}: {e}")))?;
            Ok((p, Some(v)))
        }
        _ => Ok((p, None)),
    }
}

impl Runtime {
    /// Probes the device (or reads the probe cache) and records the result
    /// in the device's information; called once, by [`Runtime::new`].
    pub(crate) fn probe_at_open(&mut self, cache: Option<PathBuf>) -> Result<()> {
        let start = Instant::now();
        let cached = cache
            .as_deref()
            .and_then(read_cache)
            .filter(|p| covers(p, &self.info));
        let (probed, source) = match cached {
            Some(p) => (p, ProbeSource::Cached(start.elapsed())),
            None => {
                let p = self.run_probe()?;
                let took = start.elapsed();
                if let Some(path) = &cache {
                    write_cache(path, &p);
                }
                (p, ProbeSource::Measured(took))
            }
        };
        let (probed, overridden) = with_override(probed)?;
        self.info.probed = Some(probed);
        self.probe_source = Some(source);
        self.probe_override = overridden;
        Ok(())
    }

    /// Runs the probe kernel with the driver's defaults, then, where the
    /// device can be asked for IEEE behaviour (`shaderDenormPreserveFloatN`,
    /// `shaderSignedZeroInfNanPreserveFloatN`), with every such request
    /// declared, to see that the driver honours it.
    fn run_probe(&mut self) -> Result<Probed> {
        let (f16, f64) = widths(&self.info);
        let src = kernel_source(f16, f64);
        let m = pisa_translator::assemble("<probe>", &src)
            .map_err(|d| RuntimeError::BadArgument(format!("probe kernel: {d}")))?;
        // the driver's defaults: no float execution mode, fmad.f on its Fma
        let mut options = crate::translate_options(&self.info);
        options.signed_zero_inf_nan_preserve = [false; 3];
        options.denorm_preserve = [false; 3];
        options.float_refusals = [None, None, None];
        options.fma_f32_via_f64 = false;
        options.fma_f32_native_fused = true;
        options.fma_f64_native_fused = true;
        options.exact_f32 = false;
        options.soft_f64 = false;
        options.exact_division = false;
        options.checked_memory = false;
        let out = self.run_kernel(&m, &options)?;
        let mut p = read_results(&out, f16, f64);
        // the requests the device takes, for the widths probed
        let probed = [f16, true, f64];
        let ask = |can: [bool; 3]| [0, 1, 2].map(|i| can[i] && probed[i]);
        options.denorm_preserve = ask(self.info.denorm_preserve);
        options.signed_zero_inf_nan_preserve = ask(self.info.signed_zero_inf_nan_preserve);
        if options.denorm_preserve.contains(&true)
            || options.signed_zero_inf_nan_preserve.contains(&true)
        {
            let out = self.run_kernel(&m, &options)?;
            let asked = read_results(&out, f16, f64);
            for i in 0..3 {
                if options.denorm_preserve[i] {
                    p.denorm_preserve_honoured[i] = asked.denormals_kept[i];
                }
                if options.signed_zero_inf_nan_preserve[i] {
                    p.signed_zero_inf_nan_preserve_honoured[i] = asked.signed_zero_inf_nan_kept[i];
                }
            }
        }
        Ok(p)
    }

    /// Translates the probe kernel with `options`, runs it once on its
    /// inputs and returns its buffer.
    fn run_kernel(
        &mut self,
        m: &pisa_translator::Module,
        options: &pisa_translator::spirv::Options,
    ) -> Result<Vec<u8>> {
        let spv = pisa_translator::spirv::translate_with(m, options)?;
        let program = self.load_translated(&spv)?;
        let buf = match self.buffer_from(&inputs()) {
            Ok(b) => b,
            Err(e) => {
                self.unload(program);
                return Err(e);
            }
        };
        let run = self.buffer_address(buf).and_then(|addr| {
            self.launch(&Launch {
                program,
                kernel: "probe".into(),
                range: NdRange::d1(1).local([1, 1, 1]),
                args: vec![addr.to_le_bytes().to_vec()],
            })
        });
        let out = run.and_then(|_| self.download(buf));
        self.free_buffer(buf);
        self.unload(program);
        let out = out?;
        if out.len() < IO_BYTES {
            return Err(RuntimeError::BadLaunch(format!(
                "probe kernel: {} bytes came back, {IO_BYTES} expected",
                out.len()
            )));
        }
        Ok(out)
    }

    /// The driver's behaviour as probed when the device was opened (also
    /// in [`Runtime::device_info`]).
    pub fn probed(&self) -> Option<&Probed> {
        self.info.probed.as_ref()
    }

    /// Whether the probed values were measured or read from the cache, and
    /// in what time.
    pub fn probe_source(&self) -> Option<&ProbeSource> {
        self.probe_source.as_ref()
    }

    /// The `PISA_PROBE_OVERRIDE` list applied over the probed values.
    pub fn probe_override(&self) -> Option<&str> {
        self.probe_override.as_deref()
    }
}

/// Translation for a device whose probed behaviour differs from what PISA
/// needs: `fmad.f` on the device's `Fma` only where it rounds once (where
/// it is not computed through f64 or the exact f32 library), `fmad.df` to
/// nearest on it only where its f64 form rounds once (else the
/// soft-double library); denormals
/// kept by requesting `DenormPreserve` where the driver flushes them and
/// the device can be asked and was seen to honour it (then for every width
/// it can, as devices with no independence of denormal modes need), else
/// the width's arithmetic refused; signed zeros, infinities and NaNs: the
/// width's arithmetic refused where the driver loses them and the device
/// cannot be asked, or ignores `SignedZeroInfNanPreserve` when it is
/// declared. Never different bits in silence.
pub fn apply(options: &mut pisa_translator::spirv::Options, info: &DeviceInfo) {
    let Some(p) = &info.probed else { return };
    if !options.fma_f32_via_f64 && !options.exact_f32 {
        if let Some(fused) = p.fma_f32_fused {
            options.fma_f32_native_fused = fused;
        }
    }
    // (`fmad.df` to nearest on the device's `Fma` only where it was seen
    // to round once; without a probe, the soft-double library)
    options.fma_f64_native_fused = p.fma_f64_fused == Some(true) && !options.soft_f64;
    let flushed = |i: usize| p.denormals_kept[i] == Some(false);
    let can_preserve =
        |i: usize| info.denorm_preserve[i] && p.denorm_preserve_honoured[i] != Some(false);
    if (0..3).any(|i| flushed(i) && can_preserve(i)) {
        options.denorm_preserve = [0, 1, 2].map(can_preserve);
    }
    for (i, w) in pisa_device::PROBED_WIDTHS.into_iter().enumerate() {
        let mut why = Vec::new();
        if flushed(i) && !info.denorm_preserve[i] {
            why.push(format!(
                "this driver flushes {w}-bit denormals to zero by default and the device lacks shaderDenormPreserveFloat{w}"
            ));
        } else if flushed(i) && !can_preserve(i) {
            why.push(format!(
                "this driver flushes {w}-bit denormals to zero and ignores DenormPreserve"
            ));
        }
        if options.signed_zero_inf_nan_preserve[i] {
            if p.signed_zero_inf_nan_preserve_honoured[i] == Some(false) {
                why.push(format!(
                    "this driver ignores SignedZeroInfNanPreserve for {w}-bit floats (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN)"
                ));
            }
        } else if p.signed_zero_inf_nan_kept[i] == Some(false) {
            why.push(format!(
                "this driver does not keep {w}-bit signed zeros, infinities and NaNs by default (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN) and the device lacks shaderSignedZeroInfNanPreserveFloat{w}"
            ));
        }
        if !why.is_empty() {
            options.float_refusals[i] = Some(why.join("; and "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DeviceKind, Features};

    /// A device with every feature and every float control, probed as `p`.
    fn device(denorm_preserve: bool, szinp: bool, p: Probed) -> DeviceInfo {
        DeviceInfo {
            index: 0,
            name: "test".into(),
            kind: DeviceKind::Discrete,
            driver: "test".into(),
            api_version: (1, 3, 0),
            subgroup_size: 32,
            max_workgroup_invocations: 1024,
            max_workgroup_count: [65535; 3],
            max_shared_bytes: 49152,
            buffer_device_address: true,
            features: Features::ALL,
            caps_loops: false,
            signed_zero_inf_nan_preserve: [szinp; 3],
            denorm_preserve: [denorm_preserve; 3],
            probed: Some(p),
        }
    }

    fn probed(list: &str) -> Probed {
        let mut p = Probed::default();
        p.apply_list(list).unwrap();
        p
    }

    const F32_ONLY: &str = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p;\n\t.reg .32b %a;\n\tld.param.64b %p, [%o];\n\tld.global.32b %a, [%p];\n\tfadd.f %a, %a, %a;\n\tst.global.32b [%p], %a;\n\treturn;\n}\n";

    /// Flushed f32 denormals on a device that can be asked: every width it
    /// can is asked for DenormPreserve, and the module declares it for f32
    /// (lavapipe cannot be asked, so this path runs here only).
    #[test]
    fn flushed_denormals_request_denorm_preserve_where_the_device_can() {
        let info = device(true, true, probed("denormals32=flushed,fma=fused"));
        let o = crate::translate_options_with(&info, None);
        assert_eq!(o.denorm_preserve, [true; 3]);
        assert_eq!(o.float_refusals, [None, None, None]);
        let m = pisa_translator::assemble("k.pisa", F32_ONLY).unwrap();
        let spv = pisa_translator::spirv::translate_with(&m, &o).unwrap();
        // OpExecutionMode %k DenormPreserve 32, and the capability
        let w = &spv.words;
        let mode = (0..w.len().saturating_sub(3))
            .any(|i| w[i] == (4 << 16 | 16) && w[i + 2] == 4459 && w[i + 3] == 32);
        assert!(mode, "no DenormPreserve 32 execution mode");
        assert!(crate::features::capabilities(w).contains(&4464));
        crate::spirv_val::validate(w).unwrap();
        // a driver known to keep them is not asked
        let kept = device(true, true, probed("denormals32=kept"));
        assert_eq!(
            crate::translate_options_with(&kept, None).denorm_preserve,
            [false; 3]
        );
    }

    /// Each behaviour PISA cannot get refuses its width, naming it; the
    /// others stay as they are.
    #[test]
    fn behaviours_that_cannot_be_had_refuse_their_width() {
        let cases = [
            (
                device(false, true, probed("denormals32=flushed")),
                1,
                "this driver flushes 32-bit denormals to zero by default and the device lacks shaderDenormPreserveFloat32",
            ),
            (
                device(true, true, probed("denormals64=flushed,denorm-preserve64=ignored")),
                2,
                "this driver flushes 64-bit denormals to zero and ignores DenormPreserve",
            ),
            (
                device(true, false, probed("signed-zeros16=lost")),
                0,
                "this driver does not keep 16-bit signed zeros, infinities and NaNs by default (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN) and the device lacks shaderSignedZeroInfNanPreserveFloat16",
            ),
            (
                device(true, true, probed("signed-zero-preserve32=ignored")),
                1,
                "this driver ignores SignedZeroInfNanPreserve for 32-bit floats (-0 + 0 is not +0, or inf * 0 or inf - inf not NaN)",
            ),
        ];
        for (info, width, why) in cases {
            let o = crate::translate_options_with(&info, None);
            for i in 0..3 {
                assert_eq!(o.float_refusals[i].as_deref(), (i == width).then_some(why));
            }
        }
        // lost by default but declared and honoured: nothing refused
        let info = device(
            true,
            true,
            probed("signed-zeros32=lost,signed-zero-preserve32=honoured"),
        );
        let o = crate::translate_options_with(&info, None);
        assert_eq!(o.float_refusals, [None, None, None]);
        assert_eq!(o.signed_zero_inf_nan_preserve, [true; 3]);
    }

    /// The device's Fma decides `fmad.f` only where it is not computed
    /// through f64 or the exact f32 library.
    #[test]
    fn fma_fusion_matters_only_without_f64() {
        let mut info = device(true, true, probed("fma=unfused"));
        assert!(crate::translate_options_with(&info, None).fma_f32_native_fused);
        assert!(!crate::translate_options_with(&info, Some("unroll")).fma_f32_native_fused);
        info.probed = Some(probed("fma=fused"));
        assert!(crate::translate_options_with(&info, Some("unroll")).fma_f32_native_fused);
    }

    /// `fmad.df` to nearest takes the device's `Fma` only where its f64
    /// form was probed fused, and never under soft-double numerics.
    #[test]
    fn fma64_takes_the_drivers_fma_only_where_probed_fused() {
        let mut info = device(true, true, probed("fma=fused"));
        assert!(!crate::translate_options_with(&info, None).fma_f64_native_fused);
        info.probed = Some(probed("fma64=unfused"));
        assert!(!crate::translate_options_with(&info, None).fma_f64_native_fused);
        info.probed = Some(probed("fma64=fused"));
        assert!(crate::translate_options_with(&info, None).fma_f64_native_fused);
        assert!(!crate::translate_options_with(&info, Some("soft-f64")).fma_f64_native_fused);
        info.probed = None;
        assert!(!crate::translate_options_with(&info, None).fma_f64_native_fused);
    }

    /// The text form round-trips, and a bad item is an error naming it.
    #[test]
    fn the_list_form_round_trips_and_names_bad_items() {
        let p = probed("denormals16=kept,denormals32=flushed,fma=unfused,fma64=fused,signed-zeros64=lost,denorm-preserve32=honoured,signed-zero-preserve16=ignored");
        let text = p.to_list().join("\n");
        assert_eq!(text, "denormals16=kept\ndenormals32=flushed\nfma=unfused\nfma64=fused\nsigned-zeros64=lost\ndenorm-preserve32=honoured\nsigned-zero-preserve16=ignored");
        assert_eq!(probed(&text), p);
        let mut q = p.clone();
        assert_eq!(
            q.apply_list("denormals32=kept,denormals8=kept").unwrap_err(),
            "`denormals8=kept`: unknown key `denormals8` (denormalsN, fma, fma64, signed-zerosN, denorm-preserveN, signed-zero-preserveN; N is 16, 32 or 64)"
        );
        assert_eq!(q, p, "nothing changed by a bad list");
        assert_eq!(
            q.apply_list("fma=twice").unwrap_err(),
            "`fma=twice`: unknown value `twice`"
        );
    }

    /// The probe kernel assembles and translates with f16 and f64, and its
    /// results decode as IEEE's when the buffer holds them.
    #[test]
    fn the_probe_kernel_translates_and_decodes() {
        let m = pisa_translator::assemble("<probe>", &kernel_source(true, true)).unwrap();
        pisa_translator::spirv::translate(&m).unwrap();
        let mut io = inputs();
        let put = |io: &mut Vec<u8>, at: usize, b: &[u8]| io[at..at + b.len()].copy_from_slice(b);
        for (at, v) in [
            (64, 1u32),
            (68, 0x0040_0000),
            (72, 0),
            (76, 0x7FC0_0000),
            (80, 0x7FC0_0000),
            (84, u32::MAX),
            (88, 0x337F_FFFE),
            (92, 0x7F7F_FFFF),
            (160, 1),
            (164, 0x200),
            (168, 0),
            (172, 0x7E00),
            (176, 0x7E00),
        ] {
            put(&mut io, at, &v.to_le_bytes());
        }
        for (at, v) in [
            (256, 1u64),
            (264, 0x0008_0000_0000_0000),
            (272, 0),
            (280, 0x7FF8_0000_0000_0000),
            (288, 0x7FF8_0000_0000_0000),
            (352, 0x3C9F_FFFF_FFFF_FFFE),
            (360, 0x7FEF_FFFF_FFFF_FFFF),
        ] {
            put(&mut io, at, &v.to_le_bytes());
        }
        let p = read_results(&io, true, true);
        assert_eq!(p.to_list().join(","), "denormals16=kept,denormals32=kept,denormals64=kept,fma=fused,fma64=fused,signed-zeros16=kept,signed-zeros32=kept,signed-zeros64=kept");
        // the f64 Fma rounding the product first (0), or overflowing it
        for (at, v) in [(352, 0), (360, 0x7FF0_0000_0000_0000)] {
            let mut twice = io.clone();
            put(&mut twice, at, &u64::to_le_bytes(v));
            assert_eq!(read_results(&twice, true, true).fma_f64_fused, Some(false));
        }
        assert_eq!(read_results(&io, true, false).fma_f64_fused, None);
        // flushed f32 results, -0 + 0 folded to -0, Fma twice rounded
        put(&mut io, 68, &0u32.to_le_bytes());
        put(&mut io, 72, &0x8000_0000u32.to_le_bytes());
        put(&mut io, 88, &0u32.to_le_bytes());
        let p = read_results(&io, false, false);
        assert_eq!(
            p.to_list().join(","),
            "denormals32=flushed,fma=unfused,signed-zeros32=lost"
        );
    }
}
