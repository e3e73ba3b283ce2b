//! How to translate ([`Options`]): read by the module context
//! (`types::ModuleCx::options`) and the lowerings; imports no module of
//! `spirv`.

/// How the exact basic operations and the transcendentals are computed
/// (docs/numerics.md, "Choosing the numerics").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numerics {
    /// In integers and f32 only: the exact f32 library (`ir::exactf32`)
    /// and the math library's f32 kernels. Any device.
    F32,
    /// In f64 and 64-bit integers: the back end's f64 forms and the math
    /// library's f64 kernels. Devices with `shaderFloat64` and
    /// `shaderInt64`.
    F64,
    /// No f64 at all: the f32 paths, and the `.df` arithmetic in the
    /// soft-double library (`ir::softf64`). Any device; what a device
    /// without f64 gets.
    Soft,
}

impl Numerics {
    /// `f32`, `f64` or `soft`.
    pub fn name(self) -> &'static str {
        match self {
            Numerics::F32 => "f32",
            Numerics::F64 => "f64",
            Numerics::Soft => "soft",
        }
    }

    /// The numerics a device gets by default: f64 where it has 64-bit
    /// floats and integers, else soft.
    pub fn for_device(float64_and_int64: bool) -> Numerics {
        if float64_and_int64 {
            Numerics::F64
        } else {
            Numerics::Soft
        }
    }
}

impl std::str::FromStr for Numerics {
    type Err = String;
    fn from_str(s: &str) -> Result<Numerics, String> {
        match s {
            "f32" => Ok(Numerics::F32),
            "f64" => Ok(Numerics::F64),
            "soft" => Ok(Numerics::Soft),
            _ => Err(format!("`{s}` is not a numerics choice (f32, f64, soft)")),
        }
    }
}

/// How to translate. The default suits any driver: loops report a driver's
/// loop cap (docs/abi.md) but are not unrolled.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Unroll small innermost loops (the IR pipeline's `unroll` pass), for
    /// drivers that end loops after a fixed number of iterations (Mesa's
    /// llvmpipe). Read by [`Options::target`], not by the back end.
    pub unroll_loops: bool,
    /// Give every loop the never-taken exit and the exit flag that tell a
    /// loop cut short by the driver from a finished one (`spirv::control`).
    /// Costs about 10% in loops with barriers on llvmpipe; not needed on
    /// drivers known not to cap loops.
    pub detect_loop_cap: bool,
    /// Emit atomics with relaxed semantics and `fence` as a relaxed atomic
    /// OR of 0 into the launch's status word: Mesa 22's llvmpipe
    /// miscompiles acquire/release semantics in some loops, and on it they
    /// are not needed (`spirv::lower::synchronization`).
    pub relaxed_memory_orders: bool,
    /// Hide where the operands of floating-point instructions and integer
    /// atomics come from (an OR with a zero the compiler cannot see): Mesa
    /// 22's llvmpipe applies fast-math folds whatever the module declares,
    /// and aborts on atomics of float-computed values
    /// (`lower::FunctionCx::opaque`).
    pub opaque_operands: bool,
    /// Read the push constants a kernel computes with, and the addresses of
    /// variables taken as values, as `hidden_zero | value`
    /// (`ModuleCx::hide_from_uniformity`): Mesa 22.3's llvmpipe asks of
    /// every load's address whether it is uniform by a walk that is
    /// exponential on graphs of constants and push constants with shared
    /// values, and never finished compiling some.
    pub opaque_push_constants: bool,
    /// Declare `SignedZeroInfNanPreserve` for 16-, 32- and 64-bit floats (the
    /// device's `shaderSignedZeroInfNanPreserveFloatN`): keeps IEEE signed
    /// zeros, infinities and NaNs, which Vulkan otherwise leaves to the
    /// driver (lavapipe folds `x + 0.0` to `x`; fuzz find).
    pub signed_zero_inf_nan_preserve: [bool; 3],
    /// Declare `DenormPreserve` for 16-, 32- and 64-bit floats (the device's
    /// `shaderDenormPreserveFloatN`): set by the runtime where its probe
    /// found that the driver flushes denormals by default
    /// (`pisa_vk_runtime`'s probe, docs/devices.md "Probed behaviour").
    pub denorm_preserve: [bool; 3],
    /// For 16-, 32- and 64-bit floats: why this device cannot compute them
    /// as PISA defines them (a probed driver behaviour with no way to ask
    /// for IEEE's). An instruction that computes on that width (`.hf`;
    /// `.f` and `.bf`, computed in f32; `.df`) is refused as unsupported on
    /// this device with this reason (`lower::refuse_float`).
    pub float_refusals: [Option<String>; 3],
    /// Compute `fmad.f` exactly through f64 (needs `shaderFloat64` and
    /// `shaderInt64`): Vulkan does not require `Fma` to be fused, and
    /// lavapipe's is not (the IR pass `exactf64` replaces it by a call of
    /// its library).
    pub fma_f32_via_f64: bool,
    /// Without `fma_f32_via_f64`: the device's `Fma` on f32 rounds once
    /// (the runtime runs a probe to find out, `Runtime::fused_fma`). When
    /// it does not, `fmad.f` is refused as unsupported on this device
    /// rather than computed with two roundings.
    pub fma_f32_native_fused: bool,
    /// The device's `Fma` on f64 rounds once (the runtime's probe,
    /// `fma64=fused`): `fmad.df` to nearest without `.ftz`, `.dsat` is
    /// then that `Fma` with the float core's NaN rules, not a call of the
    /// soft-double library (`ir::exactf64::df_replacement`). Off by
    /// default (Vulkan does not require `Fma` to be fused; lavapipe's is
    /// not), and for device descriptions, which say nothing of it.
    pub fma_f64_native_fused: bool,
    /// Compute `fdiv`, `fsqrt` and `frcp` correctly rounded on every
    /// driver (Vulkan promises 2.5 ULP): `.f`, `.hf` and `.bf` by the IR
    /// pass `exactf64`'s library with f64 cores, `.df` by the soft-double
    /// library (`ir::exactf64::df_replacement`); needs `shaderFloat64` and
    /// `shaderInt64`. Without it they use the driver's `OpFDiv` and `Sqrt`
    /// (docs/spec-notes.md).
    pub exact_division: bool,
    /// No f64 for the exact f32 operations: `fadd`/`fsub`/`fmul` in a
    /// directed mode or `.rna`, `fmad`, `fdiv`, `frcp` and `fsqrt` on `.f`
    /// become calls of the exact integer library before the back end (the
    /// IR pass `exactf32`, [`Options::target`]), and `fma_f32_via_f64` and
    /// `exact_division` are off. Set for devices without `shaderFloat64`
    /// ([`Options::with_f64`]), or by `PISA_SPIRV_OPTIONS=...,exact-f32`
    /// ([`Options::with_exact_f32`]).
    pub exact_f32: bool,
    /// Checked mode (`pisa run --check`, `spirv::checked`): every load,
    /// store and atomic checks its address against the launch's live
    /// allocations and the arenas, reports the first bad one and goes to a
    /// harmless place instead. Read by [`Options::target`] (the IR's
    /// `checked` pass puts the checks in) and for the arenas' sinks.
    pub checked_memory: bool,
    /// Use SPIR-V's 64-bit atomics (`Int64Atomics`, the device's
    /// `shaderBufferInt64Atomics`) for 64-bit atomics on global memory.
    /// Without it they run under a spin lock from the global lock table,
    /// as 128-bit ones do (`lower::atomics`, docs/abi.md "Emulated
    /// atomics"), and the module declares no `Int64Atomics`.
    pub int64_buffer_atomics: bool,
    /// Link the math library's f32 kernels (`ir::mathlib::Kernels::F32`:
    /// f32 and 32-bit integer arithmetic only) for the transcendentals, for
    /// devices without `shaderFloat64`; the default f64 kernels need 64-bit
    /// floats and integers. Read by [`Options::target`].
    pub mathlib_f32: bool,
    /// Use SPIR-V's 8- and 16-bit integer types (`[8-bit, 16-bit]`: the
    /// device's `shaderInt8`, `shaderInt16`). For a width without it, values
    /// of that width are held and computed in 32-bit integers
    /// (`spirv::narrow`) and its global-memory accesses go through their
    /// containing 32-bit word.
    pub narrow_integers: [bool; 2],
    /// Load and store 8- and 16-bit values of global memory as such
    /// (`[8-bit, 16-bit]`: `storageBuffer8BitAccess`,
    /// `storageBuffer16BitAccess`, with the width's `narrow_integers`).
    /// Without it, such an access reads the containing 32-bit word, and a
    /// store clears and sets its bits of the word by atomic AND and OR, so a
    /// neighbouring byte another work-item writes at the same time is never
    /// lost (`memory::store_device`).
    pub narrow_storage: [bool; 2],
    /// Use SPIR-V's 16-bit float type (the device's `shaderFloat16`) to
    /// round f32 results to `.hf` (`lower::float16::f32_to_half`). Without
    /// it the `.hf` operations that round are calls of the exact library
    /// (`ir::exactf32::replacement_for`); any other use of the type
    /// still declares `Float16`, which the runtime refuses on such a device.
    pub float16: bool,
    /// No f64 for `.df` arithmetic: `fadd`, `fsub`, `fmul`, `fmad`,
    /// `fdiv`, `fsqrt`, `frsqrt`, `fmin`, `fmax`, `fabs`, `fneg`, `fcmp`
    /// and the conversions on `.df` become calls of the soft-double
    /// integer library, `fatom.add`/`.sub` on `.df` compare-and-swap loops
    /// of its sum, before the back
    /// end (the IR pass `softf64`, [`Options::target`]). Set for devices
    /// without `shaderFloat64` ([`Options::with_f64`]), or by
    /// `PISA_SPIRV_OPTIONS=...,soft-f64` ([`Options::with_soft_f64`]).
    pub soft_f64: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            unroll_loops: false,
            detect_loop_cap: true,
            relaxed_memory_orders: false,
            opaque_operands: false,
            opaque_push_constants: false,
            signed_zero_inf_nan_preserve: [false; 3],
            denorm_preserve: [false; 3],
            float_refusals: [None, None, None],
            fma_f32_via_f64: false,
            fma_f32_native_fused: true,
            fma_f64_native_fused: false,
            exact_division: false,
            exact_f32: false,
            checked_memory: false,
            int64_buffer_atomics: true,
            mathlib_f32: false,
            narrow_integers: [true; 2],
            narrow_storage: [true; 2],
            float16: true,
            soft_f64: false,
        }
    }
}

impl Options {
    /// What of these options the IR pipeline depends on: the passes
    /// [`crate::ir::pipeline::Pipeline::for_target`] runs before the back
    /// end.
    pub fn target(&self) -> crate::ir::pipeline::Target {
        crate::ir::pipeline::Target {
            unroll_loops: self.unroll_loops,
            mathlib_f32: self.mathlib_f32,
            exact_f32: self.exact_f32,
            exact_f64: !self.exact_f32,
            native: crate::ir::exactf64::Native {
                division: !self.exact_division,
                fma_f32: !self.fma_f32_via_f64,
                fma_f64: self.fma_f64_native_fused,
                float16: self.float16,
            },
            soft_f64: self.soft_f64,
            checked_memory: self.checked_memory,
        }
    }

    /// The options for a device that does (`true`) or does not cap loops:
    /// Mesa's llvmpipe, whose other quirks these options also work around.
    pub fn for_loop_cap(caps_loops: bool) -> Options {
        Options {
            unroll_loops: caps_loops,
            detect_loop_cap: caps_loops,
            relaxed_memory_orders: caps_loops,
            opaque_operands: caps_loops,
            opaque_push_constants: caps_loops,
            ..Options::default()
        }
    }

    /// Compute `fmad.f`, quotients and roots exactly through f64 where the
    /// device has 64-bit floats and integers; without them, with the exact
    /// f32 library (`exact_f32`), the math library's f32 kernels
    /// (`mathlib_f32`) and the soft-double library (`soft_f64`).
    pub fn with_f64(mut self, float64_and_int64: bool) -> Options {
        self.fma_f32_via_f64 = float64_and_int64;
        self.exact_division = float64_and_int64;
        self.exact_f32 = !float64_and_int64;
        self.mathlib_f32 = !float64_and_int64;
        self.soft_f64 = !float64_and_int64;
        self
    }

    /// The `.df` arithmetic in the soft-double library (`soft_f64`), on
    /// any device.
    pub fn with_soft_f64(mut self) -> Options {
        self.soft_f64 = true;
        self
    }

    /// The numerics `n` whatever the device (`pisa run --numerics`,
    /// `pisa spirv --numerics`; docs/numerics.md, "Choosing the
    /// numerics"): [`Numerics::F32`] the exact f32 library and the math
    /// library's f32 kernels, [`Numerics::F64`] the f64 paths (the device
    /// must have `shaderFloat64` and `shaderInt64`; the runtime checks).
    pub fn with_numerics(self, n: Numerics) -> Options {
        match n {
            Numerics::F32 => {
                let mut o = self.with_exact_f32();
                o.mathlib_f32 = true;
                o
            }
            Numerics::F64 => self.with_f64(true),
            Numerics::Soft => self.with_numerics(Numerics::F32).with_soft_f64(),
        }
    }

    /// The numerics these options choose: soft with the soft-double
    /// library, f32 when any other no-f64 path is on.
    pub fn numerics(&self) -> Numerics {
        if self.soft_f64 {
            Numerics::Soft
        } else if self.exact_f32 || self.mathlib_f32 {
            Numerics::F32
        } else {
            Numerics::F64
        }
    }

    /// The exact f32 operations without f64 (`exact_f32`), on any device.
    pub fn with_exact_f32(mut self) -> Options {
        self.fma_f32_via_f64 = false;
        self.exact_division = false;
        self.exact_f32 = true;
        self
    }

    /// Also keep IEEE signed zeros, infinities and NaNs for the float widths
    /// the device can (`shaderSignedZeroInfNanPreserveFloat16/32/64`).
    pub fn with_signed_zeros(mut self, supported: [bool; 3]) -> Options {
        self.signed_zero_inf_nan_preserve = supported;
        self
    }
}
