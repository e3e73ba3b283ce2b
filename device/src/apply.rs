//! A description applied to a device (`pisa run --profile FILE`): the contract's
//! [`DeviceInfo`] of a device that offers exactly a description, and a real device's restricted
//! to a description ("profile ∩ real device"), which the runtime then enables and checks
//! against. Also what PISA does with each feature group on a device (`pisa devices`), and which
//! kinds of device have a feature (refusal messages), counted over the 58 device reports of
//! `shared/device-profiles/`.

use crate::contract::{DeviceInfo, DeviceKind, Features as ContractFeatures};
use crate::{DescriptionKind, DeviceDescription};

/// Reads a profile as `--profile`, `PISA_DEVICE_PROFILE` and Python's `profile=` name it:
/// `FILE` (its first profile) or `FILE#NAME` (the profile `NAME` in it; a path that exists as
/// it is is read whole, `#` and all).
pub fn read_profile(arg: &str) -> Result<DeviceDescription, crate::ProfileError> {
    match arg.rsplit_once('#') {
        Some((file, name)) if !std::path::Path::new(arg).exists() => {
            DeviceDescription::from_profile_file_named(file, Some(name))
        }
        _ => DeviceDescription::from_profile_file(arg),
    }
}

/// A real device restricted to a description.
#[derive(Debug, Clone)]
pub struct Restricted {
    /// What the runtime enables and checks against.
    pub info: DeviceInfo,
    /// `maxComputeWorkGroupSize` of the restriction: the smaller of the two in each dimension
    /// (the contract's [`DeviceInfo`] does not carry it).
    pub max_workgroup_size: [u32; 3],
    /// What the real device could not take on, so that it comes from the real device.
    pub notes: Vec<String>,
}

impl DeviceDescription {
    /// The PISA-relevant features of the description, as the contract names them.
    pub fn contract_features(&self) -> ContractFeatures {
        let f = &self.features;
        ContractFeatures {
            int8: f.shader_int8,
            int16: f.shader_int16,
            int64: f.shader_int64,
            float16: f.shader_float16,
            float64: f.shader_float64,
            storage8: f.storage_buffer_8bit_access,
            storage16: f.storage_buffer_16bit_access,
            int64_atomics: f.shader_buffer_int64_atomics,
        }
    }

    /// A short name: the device's name, else the profile's label, else its key.
    pub fn display_name(&self) -> String {
        self.identity
            .device_name
            .clone()
            .or_else(|| self.identity.label.clone())
            .unwrap_or_else(|| self.identity.profile_name.clone())
    }

    /// The [`DeviceInfo`] of a device that offers exactly this description (a profile taken
    /// as it is, with no real device: `pisa devices --profile`, `pisa spirv --profile`). A
    /// requirement profile's sub-group size is its lower bound.
    pub fn device_info(&self, index: usize) -> DeviceInfo {
        let id = &self.identity;
        let driver = [id.driver_name.as_deref(), id.driver_info.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let fc = &self.float_controls;
        DeviceInfo {
            index,
            name: self.display_name(),
            kind: match id.device_type.as_deref() {
                Some("VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU") => DeviceKind::Discrete,
                Some("VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU") => DeviceKind::Integrated,
                Some("VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU") => DeviceKind::Virtual,
                Some("VK_PHYSICAL_DEVICE_TYPE_CPU") => DeviceKind::Cpu,
                _ => DeviceKind::Other,
            },
            driver,
            api_version: (
                self.api_version.major,
                self.api_version.minor,
                self.api_version.patch,
            ),
            subgroup_size: self.subgroups.subgroup_size,
            max_workgroup_invocations: self.limits.max_compute_work_group_invocations,
            max_workgroup_count: self.limits.max_compute_work_group_count,
            max_shared_bytes: self.limits.max_compute_shared_memory_size,
            buffer_device_address: self.features.buffer_device_address,
            features: self.contract_features(),
            caps_loops: id.driver_id.as_deref() == Some("VK_DRIVER_ID_MESA_LLVMPIPE"),
            signed_zero_inf_nan_preserve: [
                fc.shader_signed_zero_inf_nan_preserve_float16,
                fc.shader_signed_zero_inf_nan_preserve_float32,
                fc.shader_signed_zero_inf_nan_preserve_float64,
            ],
            denorm_preserve: [
                fc.shader_denorm_preserve_float16,
                fc.shader_denorm_preserve_float32,
                fc.shader_denorm_preserve_float64,
            ],
            probed: self.probed.clone(),
        }
    }

    /// `real` (a device the runtime found, with its `maxComputeWorkGroupSize`) restricted to
    /// this description: a feature only where both offer it, each limit the smaller. What a
    /// device cannot take on comes from `real`, with a note when the description differs: its
    /// sub-group size, whether its driver caps loops, its name, kind and driver, and its probed
    /// behaviour (`DeviceInfo::probed`).
    pub fn restrict(&self, real: &DeviceInfo, real_workgroup_size: [u32; 3]) -> Restricted {
        let p = self.device_info(real.index);
        let mut notes = Vec::new();
        let mut info = real.clone();
        info.features = real.features.intersection(p.features);
        info.buffer_device_address = real.buffer_device_address && p.buffer_device_address;
        info.max_workgroup_invocations = real
            .max_workgroup_invocations
            .min(p.max_workgroup_invocations);
        for d in 0..3 {
            info.max_workgroup_count[d] = real.max_workgroup_count[d].min(p.max_workgroup_count[d]);
        }
        info.max_shared_bytes = real.max_shared_bytes.min(p.max_shared_bytes);
        for i in 0..3 {
            info.signed_zero_inf_nan_preserve[i] =
                real.signed_zero_inf_nan_preserve[i] && p.signed_zero_inf_nan_preserve[i];
            info.denorm_preserve[i] = real.denorm_preserve[i] && p.denorm_preserve[i];
        }
        let lim = &self.limits.max_compute_work_group_size;
        let max_workgroup_size = [
            real_workgroup_size[0].min(lim[0]),
            real_workgroup_size[1].min(lim[1]),
            real_workgroup_size[2].min(lim[2]),
        ];
        let sg = self.subgroups.subgroup_size;
        let differs = match self.kind {
            DescriptionKind::DeviceReport if self.subgroups.subgroup_size_exact => {
                sg != real.subgroup_size
            }
            _ => real.subgroup_size < sg,
        };
        if differs {
            let said = if self.subgroups.subgroup_size_exact {
                format!("the profile's device runs sub-groups of {sg}")
            } else {
                format!("the profile requires sub-groups of at least {sg}")
            };
            notes.push(format!(
                "sub-group size {}: from the real device ({said}; a device cannot take on another size)",
                real.subgroup_size
            ));
        }
        if p.caps_loops != real.caps_loops {
            notes.push(format!(
                "loop iteration cap: from the real device ({})",
                if real.caps_loops {
                    "its driver caps loops; the profile's does not"
                } else {
                    "its driver does not cap loops; the profile's does"
                }
            ));
        }
        Restricted {
            info,
            max_workgroup_size,
            notes,
        }
    }
}

/// Which kinds of device have a feature, counted over the 58 device reports of
/// `shared/device-profiles/` (for refusal messages; `None` for a name this table does not
/// know).
pub fn who_has(feature: &str) -> Option<&'static str> {
    Some(match feature {
        "shaderFloat64" => "36 of the 58 device reports have it: NVIDIA and AMD (Windows and Linux), Intel HD/UHD 5xx-6xx and Arc B580 on Windows/Linux, llvmpipe; not Apple, not Intel Arc A-series, not any device under MoltenVK",
        "shaderFloat16" => "48 of the 58 device reports have it: Apple, Intel, AMD RDNA (RX 5700 and later), NVIDIA Turing and later (GTX 16xx, RTX), llvmpipe; not NVIDIA Pascal and older (GTX 10xx, 6xx), not AMD GCN (RX 580, R7, Bonaire)",
        "shaderInt64" => "53 of the 58 device reports have it: all but old MoltenVK (0.2.1911 and older: Apple M1, Iris 6000, GTX 680MX, Quadro K4200) and Intel Arc A380 driver 0.405.161",
        "shaderInt16" => "56 of the 58 device reports have it: all but AMD R7 200/370 under AMD's Windows driver 2.0.179",
        "shaderInt8" | "storageBuffer8BitAccess" | "storageBuffer16BitAccess" => {
            "all 58 device reports have it"
        }
        "bufferDeviceAddress" => "53 of the 58 device reports have it: all but old MoltenVK (0.2.2010 and older on Radeon Pro 560, Apple M1 0.2.1911, Iris 6000, GTX 680MX, Quadro K4200)",
        "shaderBufferInt64Atomics" => "38 of the 58 device reports have it: NVIDIA Pascal and later, AMD under AMD's drivers and RADV, Intel under Mesa (Linux) and newer Windows drivers (0.406), llvmpipe; not Apple, not MoltenVK, not NVIDIA Kepler (GTX 650 Ti, 660), not older Intel Windows drivers",
        "maxComputeSharedMemorySize" => "of the 58 device reports, 21 offer 32 KiB (AMD under AMD's Windows drivers, Apple, llvmpipe, older Intel Windows drivers), 21 offer 48 KiB (NVIDIA, newer Intel), 16 offer 64 KiB (AMD under RADV and MoltenVK, Intel under older Mesa); Vulkan requires 16 KiB",
        _ => return None,
    })
}

/// What PISA does with one feature group on a device today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// The device computes it.
    Native,
    /// PISA computes it with other instructions (how).
    Emulated(String),
    /// Programs that use it are refused (why).
    Refused(String),
    /// Neither checked nor emulated: what PISA relies on.
    Unchecked(String),
    /// A value (limits).
    Value(String),
}

impl Support {
    /// `native`, `emulated`, `refused`, `unchecked` or `value`.
    pub fn status(&self) -> &'static str {
        match self {
            Support::Native => "native",
            Support::Emulated(_) => "emulated",
            Support::Refused(_) => "refused",
            Support::Unchecked(_) => "unchecked",
            Support::Value(_) => "value",
        }
    }

    /// How or why (empty for native).
    pub fn detail(&self) -> &str {
        match self {
            Support::Native => "",
            Support::Emulated(s)
            | Support::Refused(s)
            | Support::Unchecked(s)
            | Support::Value(s) => s,
        }
    }
}

impl std::fmt::Display for Support {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Support::Native => f.write_str("native"),
            Support::Value(s) => f.write_str(s),
            s => write!(f, "{} ({})", s.status(), s.detail()),
        }
    }
}

/// The feature groups of [`support`], in order.
pub const GROUPS: [&str; 12] = [
    "programs",
    "i64",
    "f16",
    "f64",
    "numerics",
    "8/16-bit",
    "64-bit atomics (global)",
    "64-bit atomics (shared)",
    "sub-groups of 32",
    "denormals",
    "signed zeros",
    "limits",
];

/// What PISA does today with each of [`GROUPS`] on a Vulkan device that offers `info`;
/// `f32_denormals` is the device's `shaderDenormPreserveFloat32` where known (a description's).
pub fn support(info: &DeviceInfo, f32_denormals: Option<bool>) -> Vec<(&'static str, Support)> {
    let f = info.features;
    let no = |list: &[(bool, &str)]| -> String {
        list.iter()
            .filter(|(have, _)| !have)
            .map(|(_, n)| format!("no {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let programs = if info.buffer_device_address {
        Support::Native
    } else {
        Support::Refused(
            "every program: no bufferDeviceAddress (pointers and `.global` memory are device addresses)"
                .into(),
        )
    };
    let i64 = if f.int64 {
        Support::Native
    } else {
        Support::Refused(
            "64-bit registers and operations, and the addresses nearly every program computes: no shaderInt64"
                .into(),
        )
    };
    let f16 = if f.float16 && f.storage16 {
        Support::Native
    } else {
        // the translator's `Options::float16` off: f32 arithmetic rounded in
        // integer arithmetic, 16-bit accesses on words
        Support::Emulated(format!(
            "computed in f32 and rounded to .hf in integer arithmetic (i2f.hf of 64-bit integers refused): {}",
            no(&[
                (f.float16, "shaderFloat16"),
                (f.storage16, "storageBuffer16BitAccess")
            ])
        ))
    };
    let f64 = if f.float64 {
        Support::Native
    } else {
        Support::Emulated(
            "every .df instruction in integers (ir::softf64): no shaderFloat64".into(),
        )
    };
    // the default of `pisa run --numerics` (docs/numerics.md, "Choosing the numerics")
    let numerics = if f.float64 && f.int64 {
        Support::Value(
            "f64 (exact operations and the math library in f64; --numerics f32 or soft for the integer paths)"
                .into(),
        )
    } else {
        Support::Value(
            "soft (exact operations and .df in integers, the math library's f32 kernels; --numerics f64 is refused)"
                .into(),
        )
    };
    let small = if f.int8 && f.int16 && f.storage8 && f.storage16 {
        Support::Native
    } else {
        // the translator's `spirv::narrow` and sub-word accesses on words
        Support::Emulated(format!(
            "held in 32-bit integers, global sub-word accesses on the containing word (.hf bits refused): {}",
            no(&[
                (f.int8, "shaderInt8"),
                (f.int16, "shaderInt16"),
                (f.storage8, "storageBuffer8BitAccess"),
                (f.storage16, "storageBuffer16BitAccess")
            ])
        ))
    };
    let atomics_global = if f.int64_atomics {
        Support::Native
    } else {
        Support::Emulated("lock table in the data block: no shaderBufferInt64Atomics".into())
    };
    let atomics_shared =
        Support::Emulated("a spin lock per address: the shared arena is 32-bit words".into());
    let subgroups = Support::Emulated(format!(
        "32 work-items exchange through shared memory, whatever the device's size ({}): Vulkan promises no reconvergence",
        info.subgroup_size
    ));
    let probed = info.probed.as_ref();
    // (a device not probed: a profile taken as it is, a device listed but not opened)
    let denormals = match probed.and_then(|p| p.denormals_kept[1]) {
        Some(true) => Support::Native,
        Some(false) if info.denorm_preserve[1] => Support::Emulated(
            "the driver flushes f32 denormals by default (probed); modules request DenormPreserve".into(),
        ),
        Some(false) => Support::Refused(
            "f32 arithmetic: the driver flushes f32 denormals by default (probed) and the device lacks shaderDenormPreserveFloat32".into(),
        ),
        None => Support::Unchecked(match f32_denormals {
            Some(true) => "the driver's default: DenormPreserve is not requested (the device could keep f32 denormals)".into(),
            Some(false) => "the driver's default: DenormPreserve is not requested (the device cannot promise to keep f32 denormals)".into(),
            None => "the driver's default: DenormPreserve is not requested".into(),
        }),
    };
    let zeros = if info.signed_zero_inf_nan_preserve[1] {
        Support::Native
    } else {
        match probed.and_then(|p| p.signed_zero_inf_nan_kept[1]) {
            Some(true) => Support::Native,
            Some(false) => Support::Refused(
                "f32 arithmetic: the driver does not keep signed zeros, infinities and NaNs (probed) and the device lacks shaderSignedZeroInfNanPreserveFloat32".into(),
            ),
            None => Support::Unchecked(
                "the driver may fold x + 0.0 to x in f32 (no shaderSignedZeroInfNanPreserveFloat32)"
                    .into(),
            ),
        }
    };
    let limits = Support::Value(format!(
        "shared {} KiB, work-group {} work-items",
        info.max_shared_bytes / 1024,
        info.max_workgroup_invocations
    ));
    GROUPS
        .into_iter()
        .zip([
            programs,
            i64,
            f16,
            f64,
            numerics,
            small,
            atomics_global,
            atomics_shared,
            subgroups,
            denormals,
            zeros,
            limits,
        ])
        .collect()
}
