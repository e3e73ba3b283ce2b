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

/// What changes PISA's behaviour when a description restricts a given real device
/// ([`DeviceDescription::restrict`], `pisa run --profile`): the features the runtime checks
/// and enables, whether programs can run at all (`bufferDeviceAddress`), the limits the
/// runtime checks, and the translation options that follow the restriction. Two descriptions
/// with the same key run every program the same way on that device. What the restriction takes
/// from the real device (its sub-group size, its loop cap) cannot differ, and is left out; so
/// are `shaderSharedInt64Atomics` (64-bit atomics on shared memory are emulated everywhere),
/// push constants (not restricted) and f32 denormal preservation (requested only where the real
/// driver's probe finds denormals flushed, which lavapipe's does not: docs/devices.md, "Probed
/// behaviour").
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunKey {
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
    /// `maxComputeSharedMemorySize` of the restriction in KiB, rounded down to one of 16, 32,
    /// 48 or 64 (64 for 64 KiB and more).
    pub shared_kib: u32,
    /// `maxComputeWorkGroupInvocations` of the restriction.
    pub max_invocations: u32,
    /// `maxComputeWorkGroupSize` of the restriction.
    pub max_workgroup_size: [u32; 3],
    /// `shaderSignedZeroInfNanPreserveFloat16/32/64` of the restriction: the translator asks
    /// for the execution mode where both offer it.
    pub signed_zero_inf_nan_preserve: [bool; 3],
}

/// The [`RunKey`] of `d` restricting `real`, a device whose `maxComputeWorkGroupSize` is
/// `real_workgroup_size`.
pub fn run_key(
    d: &DeviceDescription,
    real: &crate::DeviceInfo,
    real_workgroup_size: [u32; 3],
) -> RunKey {
    let r = d.restrict(real, real_workgroup_size);
    let (i, f) = (&r.info, r.info.features);
    RunKey {
        f64: f.float64,
        f16: f.float16,
        i64: f.int64,
        i16: f.int16,
        i8: f.int8,
        storage16: f.storage16,
        storage8: f.storage8,
        bda: i.buffer_device_address,
        atomic64_buffer: f.int64_atomics,
        shared_kib: bucket(i.max_shared_bytes / 1024, &[16, 32, 48, 64]),
        max_invocations: i.max_workgroup_invocations,
        max_workgroup_size: r.max_workgroup_size,
        signed_zero_inf_nan_preserve: i.signed_zero_inf_nan_preserve,
    }
}

impl std::fmt::Display for RunKey {
    /// The offered flags by short name (`f64 f16 i64 i16 i8 st16 st8 bda a64b`, a missing one
    /// left out), then `shm<K>K`, `wg<invocations>` (with `(X,Y,Z)` when a dimension is
    /// smaller), and `sz16 sz32 sz64` when offered.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<String> = [
            (self.f64, "f64"),
            (self.f16, "f16"),
            (self.i64, "i64"),
            (self.i16, "i16"),
            (self.i8, "i8"),
            (self.storage16, "st16"),
            (self.storage8, "st8"),
            (self.bda, "bda"),
            (self.atomic64_buffer, "a64b"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| n.to_string())
        .collect();
        parts.push(format!("shm{}K", self.shared_kib));
        let [x, y, z] = self.max_workgroup_size;
        let n = self.max_invocations;
        if [x, y, z].iter().all(|&d| d >= n) {
            parts.push(format!("wg{n}"));
        } else {
            parts.push(format!("wg{n}({x},{y},{z})"));
        }
        for (on, name) in self
            .signed_zero_inf_nan_preserve
            .iter()
            .zip(["sz16", "sz32", "sz64"])
        {
            if *on {
                parts.push(name.to_string());
            }
        }
        f.write_str(&parts.join(" "))
    }
}

/// Descriptions that run every program alike on one real device, and the one that stands for
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunGroup {
    pub key: RunKey,
    /// The first of `members`.
    pub representative: String,
    /// The names of the descriptions with this key, sorted.
    pub members: Vec<String>,
}

/// Groups named descriptions by their [`RunKey`] on `real` (see [`run_key`]): one group per
/// distinct key, sorted by key, each with its members' names sorted and the first of them as
/// its representative. The same descriptions and device give the same groups whatever their
/// order.
pub fn run_groups<'a>(
    descriptions: impl IntoIterator<Item = (&'a str, &'a DeviceDescription)>,
    real: &crate::DeviceInfo,
    real_workgroup_size: [u32; 3],
) -> Vec<RunGroup> {
    let mut groups: std::collections::BTreeMap<RunKey, Vec<String>> = Default::default();
    for (name, d) in descriptions {
        groups
            .entry(run_key(d, real, real_workgroup_size))
            .or_default()
            .push(name.to_string());
    }
    groups
        .into_iter()
        .map(|(key, mut members)| {
            members.sort();
            RunGroup {
                key,
                representative: members[0].clone(),
                members,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{DeviceInfo, DeviceKind, Features};

    /// lavapipe (Mesa 22.3.6) as the runtime finds it: every contract feature, 32 KiB of
    /// shared memory, 1024 invocations, signed zeros preserved at every width.
    fn lavapipe() -> DeviceInfo {
        DeviceInfo {
            index: 0,
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            kind: DeviceKind::Cpu,
            driver: "llvmpipe".into(),
            api_version: (1, 3, 230),
            subgroup_size: 8,
            max_workgroup_invocations: 1024,
            max_workgroup_count: [65535; 3],
            max_shared_bytes: 32768,
            buffer_device_address: true,
            features: Features::ALL,
            caps_loops: true,
            signed_zero_inf_nan_preserve: [true; 3],
            denorm_preserve: [false; 3],
            probed: None,
        }
    }

    /// The 58 reports and the 4 requirement profiles (each file's first profile), by path
    /// relative to shared/device-profiles.
    fn all() -> Vec<(String, DeviceDescription)> {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/device-profiles");
        let mut out = Vec::new();
        for sub in ["", "requirements/"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(".json") {
                    let rel = format!("{sub}{name}");
                    out.push((
                        rel.clone(),
                        DeviceDescription::from_profile_file(dir.join(rel)).unwrap(),
                    ));
                }
            }
        }
        out
    }

    /// The 62 profiles make 26 groups on lavapipe; the groups do not depend on the order of
    /// the profiles; the representative is the first member; AMD's RX 5700 with 32 KiB of
    /// shared memory is in the group of RADV's RX 5700 XT with 64 KiB (lavapipe's 32 KiB bounds
    /// both); the RTX 4070's maxComputeWorkGroupSize (1024, 1024, 64) shows.
    #[test]
    fn groups_of_the_profiles_on_lavapipe() {
        let mut descs = all();
        assert_eq!(descs.len(), 62);
        let real = lavapipe();
        let groups = run_groups(descs.iter().map(|(n, d)| (n.as_str(), d)), &real, [1024; 3]);
        assert_eq!(groups.len(), 26);
        assert_eq!(groups.iter().map(|g| g.members.len()).sum::<usize>(), 62);
        for g in &groups {
            assert_eq!(g.representative, g.members[0]);
            assert!(g.members.windows(2).all(|w| w[0] < w[1]));
        }
        descs.reverse();
        let again = run_groups(descs.iter().map(|(n, d)| (n.as_str(), d)), &real, [1024; 3]);
        assert_eq!(again, groups);
        let of = |f: &str| {
            groups
                .iter()
                .position(|g| g.members.iter().any(|m| m == f))
                .unwrap()
        };
        assert_eq!(
            of("amd_radeon_rx_5700_2_0_353_windows_10.json"),
            of("amd_radeon_rx_5700_xt__radv_navi10__26_0_99_arch_unknown.json")
        );
        let rtx = &groups[of("nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json")];
        assert_eq!(
            rtx.key.to_string(),
            "f64 f16 i64 i16 i8 st16 st8 bda a64b shm32K wg1024(1024,1024,64) sz16 sz32 sz64"
        );
        let roadmap = &groups[of("requirements/VP_KHR_roadmap_2022.json")];
        assert_eq!(
            roadmap.key.to_string(),
            "bda shm16K wg256(256,256,64) sz16 sz32"
        );
    }

    /// The restriction decides the key: what lavapipe lacks, no profile gives back.
    #[test]
    fn the_key_is_the_restriction() {
        let descs = all();
        let rtx = &descs
            .iter()
            .find(|(n, _)| n == "nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json")
            .unwrap()
            .1;
        let mut real = lavapipe();
        real.features.float64 = false;
        real.max_shared_bytes = 16384;
        real.signed_zero_inf_nan_preserve = [false; 3];
        let k = run_key(rtx, &real, [1024; 3]);
        assert_eq!(
            k.to_string(),
            "f16 i64 i16 i8 st16 st8 bda a64b shm16K wg1024(1024,1024,64)"
        );
    }
}
