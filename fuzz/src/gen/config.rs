//! What the generator may produce: sizes and one flag per feature, so that a
//! feature a device lacks (or a known difference) can be turned off.

/// Generator settings. `Default` is the set every device is expected to run
/// bit-exactly.
#[derive(Debug, Clone)]
pub struct GenConfig {
    /// Statements per function body (roughly).
    pub max_stmts: u32,
    /// Nesting depth of ifs/loops/blocks.
    pub max_depth: u32,
    /// Functions besides the kernel.
    pub max_funcs: u32,
    /// Largest work-group (product of the local sizes, 1..=256).
    pub max_local: u32,
    /// Largest number of work-items of a launch.
    pub max_items: u32,
    /// Largest NDRange dimension count (1..=3).
    pub max_dims: u32,

    pub int8: bool,
    pub int16: bool,
    pub int64: bool,
    /// `.128b` registers (moves).
    pub int128: bool,
    /// Vector registers, swizzles, extract/insert, vector loads/stores.
    pub vectors: bool,
    /// Vectors of every other shape (`gen/vectors.rs`): `.v3`/`.v8.32b`,
    /// `.64b`/`.16b`/`.8b` vectors in memory at every aligned offset,
    /// `.v16.32b` registers taken apart by `insert`/`extract`.
    pub wide_vectors: bool,
    /// Packed `.16bx2`/`.8bx4` integer arithmetic.
    pub packed: bool,
    /// `dp4a`, `uaddc`, `bfn`, `bfi`, `sbfe`/`ubfe`, `shf`, `bfrev`, `cbit`, `fbh`, `fbl`.
    pub bit_ops: bool,
    /// Integer division (divisors forced to be non-zero and not -1).
    pub division: bool,

    /// Single-precision floating point.
    pub f32: bool,
    /// `.hf` and `.bf` scalars.
    pub f16: bool,
    /// `.df`.
    pub f64: bool,
    /// Non-default `.rndmode` qualifiers on arithmetic and conversions
    /// (`frnd` and `f2i` take every mode regardless). The Vulkan back end
    /// computes every mode of every form exactly, `fmul.df` and `fmad.df`
    /// included since 2026-12-01 (they were left out until then).
    pub rounding: bool,
    /// `.ftz`.
    pub ftz: bool,
    /// `.dsat` (floating point and integer) and `.nanp`.
    pub saturate: bool,
    /// NaN bit patterns as inputs (NaN payloads may legitimately differ).
    pub nan: bool,
    /// After every floating-point result, replace a NaN by the type's
    /// canonical quiet NaN: devices agree on whether a result is NaN, but
    /// Vulkan drivers do not keep NaN payloads and signs as the spec asks
    /// (03 §3.4; docs/spec-notes.md), so payloads are not compared.
    pub canonical_nan: bool,
    /// `fmad.df` (the back end rounds it once on every driver, whatever
    /// Vulkan's `Fma` does).
    pub fmad_df: bool,
    /// `fmin`/`fmax` may see +0 and -0 together (−0 < +0; Vulkan's
    /// NMin/NMax leave their order to the driver, the back end orders them).
    pub signed_zero_minmax: bool,
    /// `frcp` (correctly rounded on both devices: the exact library, `ir::exactf32`/`ir::exactf64`).
    pub frcp: bool,
    /// `fsin`, `fcos`, `fexp2`, `flog2`, `ftanh`, `frsqrt.fast` (the math
    /// library on Vulkan devices, `ir/mathlib`, gives the reference
    /// device's correctly rounded results: tests/mathlib.rs).
    pub transcendental: bool,
    /// `fdiv.fast`/`fsqrt.fast` (computed exactly, like the plain forms).
    pub fast_math: bool,

    pub loops: bool,
    pub irreducible: bool,
    pub early_returns: bool,
    pub calls: bool,
    pub indirect_calls: bool,
    /// `.shared` exchanges, counters and barriers.
    pub shared: bool,
    pub barriers: bool,
    pub fences: bool,
    pub private: bool,
    pub generic: bool,
    /// `.global` module variables (`@gscr`, `@gatom`; `@gscr` also through
    /// `@gptr`, a table of relocated pointers `@gscr + 4j`).
    pub globals: bool,
    /// `.const` tables.
    pub consts: bool,
    /// `.const` loads at the end of long computations on values the same for
    /// every work-item (`Gen::uniform_chain`; needs `consts`).
    pub uniform_chains: bool,
    pub atomics: bool,
    /// `fatom` (add of exactly representable values, min/max).
    pub float_atomics: bool,
    /// Atomic (ordered) `ld`/`st` forms.
    pub atomic_ld_st: bool,
    /// Partial work-groups (global sizes that are not multiples of the local size).
    pub partial_groups: bool,
    /// Non-zero global offsets.
    pub offsets: bool,
    /// Sub-group instructions (`shfl`, `ired`, `fred`, `redfirstidx`) and
    /// `%activemask`, anywhere, divergent control flow included.
    pub subgroups: bool,

    /// Programs in a thousand whose kernel is *large* (`gen/large.rs`):
    /// nested 60–150 deep, with goto graphs and long loops, about 100–400
    /// blocks. Whether a seed's program is large is drawn from a stream of
    /// its own, so the other seeds' programs are the same as without it.
    /// 1000 is the large-graph tier (`--tier large`).
    pub large: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_stmts: 40,
            max_depth: 3,
            max_funcs: 3,
            max_local: 256,
            max_items: 512,
            max_dims: 3,
            int8: true,
            int16: true,
            int64: true,
            int128: true,
            vectors: true,
            wide_vectors: true,
            packed: true,
            bit_ops: true,
            division: true,
            f32: true,
            f16: true,
            f64: true,
            rounding: true,
            ftz: true,
            saturate: true,
            nan: true,
            canonical_nan: true,
            fmad_df: true,
            signed_zero_minmax: true,
            frcp: true,
            transcendental: true,
            fast_math: true,
            loops: true,
            irreducible: true,
            early_returns: true,
            calls: true,
            indirect_calls: true,
            shared: true,
            barriers: true,
            fences: true,
            private: true,
            generic: true,
            globals: true,
            consts: true,
            uniform_chains: true,
            atomics: true,
            float_atomics: true,
            atomic_ld_st: true,
            partial_groups: true,
            offsets: true,
            subgroups: true,
            large: 5,
        }
    }
}

impl GenConfig {
    /// Sets a flag by name (`"f64=false"`, `"max_stmts=80"`), for command lines.
    pub fn set(&mut self, kv: &str) -> Result<(), String> {
        let (k, v) = kv.split_once('=').unwrap_or((kv, "true"));
        let b = || match v {
            "true" | "1" | "on" => Ok(true),
            "false" | "0" | "off" => Ok(false),
            _ => Err(format!("`{v}` is not a boolean")),
        };
        let n = || v.parse::<u32>().map_err(|e| format!("{k}: {e}"));
        macro_rules! flags {
            ($($f:ident)*) => {
                match k {
                    "max_stmts" => self.max_stmts = n()?,
                    "max_depth" => self.max_depth = n()?,
                    "max_funcs" => self.max_funcs = n()?,
                    "max_local" => self.max_local = n()?.clamp(1, 256),
                    "max_items" => self.max_items = n()?.max(1),
                    "max_dims" => self.max_dims = n()?.clamp(1, 3),
                    "large" => self.large = n()?.min(1000),
                    $(stringify!($f) => self.$f = b()?,)*
                    _ => return Err(format!("unknown generator setting `{k}`")),
                }
            };
        }
        flags!(int8 int16 int64 int128 vectors wide_vectors packed bit_ops division f32 f16 f64 rounding
            ftz saturate nan canonical_nan fmad_df signed_zero_minmax frcp transcendental fast_math loops irreducible
            early_returns calls indirect_calls shared barriers fences private generic globals
            consts uniform_chains atomics float_atomics atomic_ld_st partial_groups offsets subgroups);
        Ok(())
    }
}
