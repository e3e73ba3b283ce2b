//! The combination of capabilities that changes what PISA can run or how it translates a
//! program: two devices with the same [`PisaFeatureKey`] get the same choices from the
//! translator and the runtime (docs/devices.md lists the combinations of the 58 device reports).

use serde::{Deserialize, Serialize};

use crate::DeviceDescription;

/// The PISA-relevant combination of a [`DeviceDescription`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PisaFeatureKey {
    /// `shaderFloat64`.
    pub f64: bool,
    /// `shaderFloat16`.
    pub f16: bool,
    /// `shaderInt64`.
    pub i64: bool,
    /// `shaderInt16`.
    pub i16: bool,
    /// `shaderInt8`.
    pub i8: bool,
    /// `storageBuffer16BitAccess`.
    pub storage16: bool,
    /// `storageBuffer8BitAccess`.
    pub storage8: bool,
    /// `bufferDeviceAddress`.
    pub bda: bool,
    /// `shaderBufferInt64Atomics`.
    pub atomic64_buffer: bool,
    /// `shaderSharedInt64Atomics`.
    pub atomic64_shared: bool,
    /// `maxComputeSharedMemorySize` in KiB, rounded down to one of 16, 32, 48 or 64 (64 for
    /// 64 KiB and more).
    pub shared_kib: u32,
    /// `maxPushConstantsSize` rounded down to one of 128, 256 or 4096 bytes.
    pub push_bytes: u32,
    /// Sub-groups of 32 work-items are available to a compute pipeline
    /// ([`DeviceDescription::subgroup_size_available`]).
    pub subgroup32: bool,
    /// `shaderDenormPreserveFloat32`.
    pub f32_denorm_preserve: bool,
    /// `shaderSignedZeroInfNanPreserveFloat32`.
    pub f32_signed_zero_inf_nan_preserve: bool,
    /// `VK_KHR_portability_subset` (a portability device).
    pub portability: bool,
}

fn bucket(value: u32, floors: &[u32]) -> u32 {
    floors
        .iter()
        .rev()
        .copied()
        .find(|&f| value >= f)
        .unwrap_or(floors[0])
}

/// The PISA-relevant combination of `d`'s capabilities.
pub fn pisa_feature_key(d: &DeviceDescription) -> PisaFeatureKey {
    let f = &d.features;
    PisaFeatureKey {
        f64: f.shader_float64,
        f16: f.shader_float16,
        i64: f.shader_int64,
        i16: f.shader_int16,
        i8: f.shader_int8,
        storage16: f.storage_buffer_16bit_access,
        storage8: f.storage_buffer_8bit_access,
        bda: f.buffer_device_address,
        atomic64_buffer: f.shader_buffer_int64_atomics,
        atomic64_shared: f.shader_shared_int64_atomics,
        shared_kib: bucket(
            d.limits.max_compute_shared_memory_size / 1024,
            &[16, 32, 48, 64],
        ),
        push_bytes: bucket(d.limits.max_push_constants_size, &[128, 256, 4096]),
        subgroup32: d.subgroup_size_available(32),
        f32_denorm_preserve: d.float_controls.shader_denorm_preserve_float32,
        f32_signed_zero_inf_nan_preserve: d
            .float_controls
            .shader_signed_zero_inf_nan_preserve_float32,
        portability: d.portability,
    }
}

impl std::fmt::Display for PisaFeatureKey {
    /// The offered flags by short name, then the buckets: `f64 f16 i64 i16 i8 st16 st8 bda
    /// a64b a64s shm48K push256 sg32 dn32 sz32 port` (a missing flag is left out).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let flags = [
            (self.f64, "f64"),
            (self.f16, "f16"),
            (self.i64, "i64"),
            (self.i16, "i16"),
            (self.i8, "i8"),
            (self.storage16, "st16"),
            (self.storage8, "st8"),
            (self.bda, "bda"),
            (self.atomic64_buffer, "a64b"),
            (self.atomic64_shared, "a64s"),
        ];
        let mut parts: Vec<String> = flags
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n.to_string())
            .collect();
        parts.push(format!("shm{}K", self.shared_kib));
        parts.push(format!("push{}", self.push_bytes));
        for (on, n) in [
            (self.subgroup32, "sg32"),
            (self.f32_denorm_preserve, "dn32"),
            (self.f32_signed_zero_inf_nan_preserve, "sz32"),
            (self.portability, "port"),
        ] {
            if on {
                parts.push(n.to_string());
            }
        }
        f.write_str(&parts.join(" "))
    }
}
