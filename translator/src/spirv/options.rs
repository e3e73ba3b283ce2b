//! How to translate ([`Options`]): read by the module context
//! (`types::ModuleCx::options`) and the lowerings; imports no module of
//! `spirv`.

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
    /// Compute `fmad.f` exactly through f64 (needs `shaderFloat64` and
    /// `shaderInt64`): Vulkan does not require `Fma` to be fused, and
    /// lavapipe's is not (`lower::floating_point::fmad32`).
    pub fma_f32_via_f64: bool,
    /// Without `fma_f32_via_f64`: the device's `Fma` on f32 rounds once
    /// (the runtime runs a probe to find out, `Runtime::fused_fma`). When
    /// it does not, `fmad.f` is refused as unsupported on this device
    /// rather than computed with two roundings.
    pub fma_f32_native_fused: bool,
    /// Compute `fdiv`, `fsqrt` and `frcp` correctly rounded on every
    /// driver (Vulkan promises 2.5 ULP): in f64 with the driver's result
    /// corrected by exact remainders (`lower::quotient`); needs
    /// `shaderFloat64` and `shaderInt64`. Without it `.f`, `.hf` and `.bf`
    /// use the driver's `OpFDiv` and `Sqrt` (docs/spec-notes.md).
    pub exact_division: bool,
    /// Tests only: move the driver's f64 quotients and roots by two units
    /// in the last place before the corrections of `exact_division`, to
    /// stand in for a driver whose division is not correctly rounded.
    pub perturb_quotients: bool,
    /// Checked mode (`pisa run --check`, `spirv::checked`): every load,
    /// store and atomic checks its address against the launch's live
    /// allocations and the arenas, reports the first bad one and goes to a
    /// harmless place instead.
    pub checked_memory: bool,
    /// Use SPIR-V's 64-bit atomics (`Int64Atomics`, the device's
    /// `shaderBufferInt64Atomics`) for 64-bit atomics on global memory.
    /// Without it they run under a spin lock from the global lock table,
    /// as 128-bit ones do (`lower::atomics`, docs/abi.md "Emulated
    /// atomics"), and the module declares no `Int64Atomics`.
    pub int64_buffer_atomics: bool,
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
            fma_f32_via_f64: false,
            fma_f32_native_fused: true,
            exact_division: false,
            perturb_quotients: false,
            checked_memory: false,
            int64_buffer_atomics: true,
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
            signed_zero_inf_nan_preserve: [false; 3],
            fma_f32_via_f64: false,
            fma_f32_native_fused: true,
            exact_division: false,
            perturb_quotients: false,
            checked_memory: false,
            int64_buffer_atomics: true,
        }
    }

    /// Compute `fmad.f` exactly through f64 where the device has 64-bit
    /// floats and integers.
    pub fn with_f64(mut self, float64_and_int64: bool) -> Options {
        self.fma_f32_via_f64 = float64_and_int64;
        self.exact_division = float64_and_int64;
        self
    }

    /// Also keep IEEE signed zeros, infinities and NaNs for the float widths
    /// the device can (`shaderSignedZeroInfNanPreserveFloat16/32/64`).
    pub fn with_signed_zeros(mut self, supported: [bool; 3]) -> Options {
        self.signed_zero_inf_nan_preserve = supported;
        self
    }
}
