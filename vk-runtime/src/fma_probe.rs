//! Whether the device's f32 fused multiply-add rounds once.
//!
//! PISA's `fmad.f` rounds once (spec 13 §2.7), but Vulkan does not require
//! `GLSL.std.450 Fma` to be fused (lavapipe's is not). Where the device has
//! 64-bit floats and integers the translator computes `fmad.f` exactly
//! through f64 and the device's `Fma` does not matter. Elsewhere it has to
//! be used, so the runtime first runs it on inputs whose single rounding
//! differs from two: `fmad.f(1 + 2^-23, 1 − 2^-24, −1)` is `2^-24 − 2^-47`
//! (0x337FFFFE) once rounded and 0 when the product is rounded first;
//! `fmad.f(FLT_MAX, 2, −FLT_MAX)` is FLT_MAX once rounded and +∞ twice. A device that gives 0 gets modules whose `fmad.f` is
//! refused as unsupported on this device, never computed twice rounded.

use crate::{Launch, NdRange, Result, Runtime};

const PROBE: &str = ".version 0.1;
.target 100;
.kernel @probe(.param[8] %io)
{
	.reg .64b %p;
	.reg .32b %a, %b, %c, %d;
	ld.param.64b %p, [%io];
	ld.global.32b %a, [%p];
	ld.global.32b %b, [%p + 4];
	ld.global.32b %c, [%p + 8];
	fmad.f %d, %a, %b, %c;
	st.global.32b [%p + 12], %d;
	return;
}
";

/// (a, b, c, the once-rounded a·b + c) as f32 encodings.
const CASES: [[u32; 4]; 2] = [
    [0x3F80_0001, 0x3F7F_FFFF, 0xBF80_0000, 0x337F_FFFE],
    // FLT_MAX · 2 − FLT_MAX: FLT_MAX once rounded, +inf twice
    [0x7F7F_FFFF, 0x4000_0000, 0xFF7F_FFFF, 0x7F7F_FFFF],
];

impl Runtime {
    /// Whether the device's f32 `Fma` rounds once (probed on first use).
    pub fn fused_fma(&mut self) -> Result<bool> {
        if let Some(f) = self.fma_fused {
            return Ok(f);
        }
        let m = pisa_translator::assemble("<fma probe>", PROBE)
            .map_err(|d| crate::RuntimeError::BadArgument(format!("fma probe: {d}")))?;
        let mut options = crate::translate_options(self.device_info());
        options.fma_f32_via_f64 = false;
        options.fma_f32_native_fused = true;
        let spv = pisa_translator::spirv::translate_with(&m, &options)?;
        let program = self.load_translated(&spv)?;
        let mut fused = true;
        for case in CASES {
            // a, b, c, and the result's word
            let io4 = self.buffer_from(&[case[0], case[1], case[2], 0])?;
            let launch = Launch {
                program,
                kernel: "probe".into(),
                range: NdRange::d1(1).local([1, 1, 1]),
                args: vec![self.buffer_address(io4)?.to_le_bytes().to_vec()],
            };
            let run = self.launch(&launch);
            let out = run.and_then(|_| self.download(io4));
            self.free_buffer(io4);
            let out = out?;
            let got = u32::from_le_bytes([out[12], out[13], out[14], out[15]]);
            fused &= got == case[3];
        }
        self.unload(program);
        self.fma_fused = Some(fused);
        Ok(fused)
    }
}
