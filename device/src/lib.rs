//! What a target Vulkan device offers to PISA: one plain description ([`DeviceDescription`]) that
//! every choice of the translator and the runtime can read, and a reader of Vulkan Profiles JSON
//! files (schema `profiles-0.8`: device reports as the Vulkan Hardware Database exports them, and
//! requirement profiles such as Khronos's Roadmap 2022) into it.
//!
//! A description is a lower bound: a feature is `true` only when the device (or every device that
//! meets the requirement profile) offers it, and a limit is a value the device reaches at least.
//! [`DeviceDescription::intersect`] gives what two descriptions both offer ("profile ∩ real
//! device"). docs/devices.md describes every field, where it comes from and the defaults.

pub mod apply;
pub mod contract;
mod error;
mod parse;
pub mod profiles;

use serde::{Deserialize, Serialize};

// the contract at the crate's root (its `Features` stays in `contract`: the
// name is the description's here)
pub use contract::{
    resolve_launch, BufferId, Device, DeviceInfo, DeviceKind, GlobalInfo, KernelInfo, Launch,
    LaunchTiming, NdRange, ProgramId, RuntimeError,
};
pub use error::ProfileError;
pub use parse::MAX_SUBGROUP_SIZE;

/// Where a description comes from, which decides how the values of a file are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DescriptionKind {
    /// A real device's capability report (profile name `VP_GPUINFO_…` or `VP_VULKANINFO_…`): its
    /// values are the device's own.
    DeviceReport,
    /// A requirement profile (Roadmap 2022, Android baseline, …): its values are what every
    /// device that meets it offers at least.
    RequirementProfile,
}

/// A Vulkan version, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ApiVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl ApiVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        ApiVersion {
            major,
            minor,
            patch,
        }
    }

    /// Decodes a packed `VK_MAKE_API_VERSION` value (the variant, bits 29–31, is dropped).
    pub const fn from_packed(v: u32) -> Self {
        ApiVersion {
            major: (v >> 22) & 0x7f,
            minor: (v >> 12) & 0x3ff,
            patch: v & 0xfff,
        }
    }

    /// Whether this version is at least `major.minor`.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl std::fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Which device it is, where the file says so. Every field is informative: no choice of PISA
/// depends on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The profile's name, the key under `profiles` (`VP_GPUINFO_Apple_M1_0_2_2015_osx_14_3`).
    pub profile_name: String,
    /// `profiles.<name>.label` (`Apple M1 driver 0.2.2015 on Osx 14.3`).
    pub label: Option<String>,
    /// `VkPhysicalDeviceProperties.deviceName`; when absent (the Vulkan Hardware Database's
    /// exports leave it out), the part of a device report's label before ` driver `.
    pub device_name: Option<String>,
    /// `VkPhysicalDeviceProperties.driverVersion` in decimal; when absent, the part of a device
    /// report's label between ` driver ` and ` on ` (the version as the database decodes it).
    pub driver_version: Option<String>,
    /// `VkPhysicalDeviceProperties.vendorID` (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel, 0x106b
    /// Apple, 0x10005 Mesa).
    pub vendor_id: Option<u32>,
    /// `VkPhysicalDeviceProperties.deviceID`.
    pub device_id: Option<u32>,
    /// `VkPhysicalDeviceProperties.deviceType` (`VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU`, …).
    pub device_type: Option<String>,
    /// `VkPhysicalDeviceDriverProperties.driverID` (or `VkPhysicalDeviceVulkan12Properties`).
    pub driver_id: Option<String>,
    /// `VkPhysicalDeviceDriverProperties.driverName` (`MoltenVK`, `llvmpipe`, …).
    pub driver_name: Option<String>,
    /// `VkPhysicalDeviceDriverProperties.driverInfo`.
    pub driver_info: Option<String>,
}

/// Device features (`VkBool32` members of the Vulkan feature structures). Each is read from the
/// core structure and from every extension structure that carries it (docs/devices.md lists
/// them); `false` when the file has it nowhere.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Features {
    /// `shaderFloat64` (VkPhysicalDeviceFeatures).
    pub shader_float64: bool,
    /// `shaderInt64` (VkPhysicalDeviceFeatures).
    pub shader_int64: bool,
    /// `shaderInt16` (VkPhysicalDeviceFeatures).
    pub shader_int16: bool,
    /// `shaderFloat16` (VkPhysicalDeviceVulkan12Features, VkPhysicalDeviceShaderFloat16Int8Features).
    pub shader_float16: bool,
    /// `shaderInt8` (VkPhysicalDeviceVulkan12Features, VkPhysicalDeviceShaderFloat16Int8Features).
    pub shader_int8: bool,
    /// `storageBuffer16BitAccess` (VkPhysicalDeviceVulkan11Features, VkPhysicalDevice16BitStorageFeatures).
    pub storage_buffer_16bit_access: bool,
    /// `uniformAndStorageBuffer16BitAccess` (same structures).
    pub uniform_and_storage_buffer_16bit_access: bool,
    /// `storagePushConstant16` (same structures).
    pub storage_push_constant16: bool,
    /// `storageBuffer8BitAccess` (VkPhysicalDeviceVulkan12Features, VkPhysicalDevice8BitStorageFeatures).
    pub storage_buffer_8bit_access: bool,
    /// `uniformAndStorageBuffer8BitAccess` (same structures).
    pub uniform_and_storage_buffer_8bit_access: bool,
    /// `storagePushConstant8` (same structures).
    pub storage_push_constant8: bool,
    /// `bufferDeviceAddress` (VkPhysicalDeviceVulkan12Features,
    /// VkPhysicalDeviceBufferDeviceAddressFeatures; not the older, different
    /// VK_EXT_buffer_device_address structure).
    pub buffer_device_address: bool,
    /// `shaderBufferInt64Atomics` (VkPhysicalDeviceVulkan12Features, VkPhysicalDeviceShaderAtomicInt64Features).
    pub shader_buffer_int64_atomics: bool,
    /// `shaderSharedInt64Atomics` (same structures).
    pub shader_shared_int64_atomics: bool,
    /// `shaderBufferFloat32Atomics` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_buffer_float32_atomics: bool,
    /// `shaderBufferFloat32AtomicAdd` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_buffer_float32_atomic_add: bool,
    /// `shaderBufferFloat64Atomics` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_buffer_float64_atomics: bool,
    /// `shaderBufferFloat64AtomicAdd` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_buffer_float64_atomic_add: bool,
    /// `shaderSharedFloat32Atomics` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_shared_float32_atomics: bool,
    /// `shaderSharedFloat32AtomicAdd` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_shared_float32_atomic_add: bool,
    /// `shaderSharedFloat64Atomics` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_shared_float64_atomics: bool,
    /// `shaderSharedFloat64AtomicAdd` (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT).
    pub shader_shared_float64_atomic_add: bool,
    /// `shaderBufferFloat32AtomicMinMax` (VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT).
    pub shader_buffer_float32_atomic_min_max: bool,
    /// `shaderSharedFloat32AtomicMinMax` (VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT).
    pub shader_shared_float32_atomic_min_max: bool,
    /// `shaderBufferFloat64AtomicMinMax` (VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT).
    pub shader_buffer_float64_atomic_min_max: bool,
    /// `shaderSharedFloat64AtomicMinMax` (VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT).
    pub shader_shared_float64_atomic_min_max: bool,
    /// `vulkanMemoryModel` (VkPhysicalDeviceVulkan12Features, VkPhysicalDeviceVulkanMemoryModelFeatures).
    pub vulkan_memory_model: bool,
    /// `vulkanMemoryModelDeviceScope` (same structures).
    pub vulkan_memory_model_device_scope: bool,
    /// `subgroupSizeControl` (VkPhysicalDeviceVulkan13Features, VkPhysicalDeviceSubgroupSizeControlFeatures).
    pub subgroup_size_control: bool,
    /// `computeFullSubgroups` (same structures).
    pub compute_full_subgroups: bool,
    /// `shaderSubgroupExtendedTypes` (VkPhysicalDeviceVulkan12Features,
    /// VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures).
    pub shader_subgroup_extended_types: bool,
    /// `shaderMaximalReconvergence` (VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR).
    pub shader_maximal_reconvergence: bool,
    /// `shaderSubgroupUniformControlFlow` (VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR).
    pub shader_subgroup_uniform_control_flow: bool,
    /// `shaderFloatControls2` (VkPhysicalDeviceVulkan14Features, VkPhysicalDeviceShaderFloatControls2FeaturesKHR).
    pub shader_float_controls2: bool,
}

/// Limits (`VkPhysicalDeviceProperties.limits`). A limit the file does not give is the Vulkan
/// specification's required value for the description's API version ([`RequiredLimits`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Limits {
    /// `maxComputeSharedMemorySize`, bytes.
    pub max_compute_shared_memory_size: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_compute_work_group_invocations: u32,
    /// `maxComputeWorkGroupSize[3]`.
    pub max_compute_work_group_size: [u32; 3],
    /// `maxComputeWorkGroupCount[3]`.
    pub max_compute_work_group_count: [u32; 3],
    /// `maxPushConstantsSize`, bytes.
    pub max_push_constants_size: u32,
    /// `maxStorageBufferRange`, bytes.
    pub max_storage_buffer_range: u32,
    /// `maxPerStageDescriptorStorageBuffers`.
    pub max_per_stage_descriptor_storage_buffers: u32,
    /// `maxBoundDescriptorSets`.
    pub max_bound_descriptor_sets: u32,
}

/// The values the Vulkan specification requires of every device ("Required Limits" table,
/// chapter "Limits"); a limit a file leaves out is given this value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequiredLimits {
    pub max_compute_shared_memory_size: u32,
    pub max_compute_work_group_invocations: u32,
    pub max_compute_work_group_size: [u32; 3],
    pub max_compute_work_group_count: [u32; 3],
    pub max_push_constants_size: u32,
    pub max_storage_buffer_range: u32,
    pub max_per_stage_descriptor_storage_buffers: u32,
    pub max_bound_descriptor_sets: u32,
}

/// The required limits of Vulkan 1.0 to 1.3 (unchanged over those versions): shared memory
/// 16384 bytes, 128 invocations in a work-group of at most (128, 128, 64), 65535 work-groups in
/// each dimension, 128 bytes of push constants, storage buffers of 2^27 bytes, 4 storage
/// buffers per stage, 4 bound descriptor sets.
pub const VULKAN_1_0_REQUIRED_LIMITS: RequiredLimits = RequiredLimits {
    max_compute_shared_memory_size: 16384,
    max_compute_work_group_invocations: 128,
    max_compute_work_group_size: [128, 128, 64],
    max_compute_work_group_count: [65535, 65535, 65535],
    max_push_constants_size: 128,
    max_storage_buffer_range: 1 << 27,
    max_per_stage_descriptor_storage_buffers: 4,
    max_bound_descriptor_sets: 4,
};

/// The required limits of Vulkan 1.4, which raised four of them: 256 invocations in a
/// work-group of at most (256, 256, 64), 256 bytes of push constants, 7 bound descriptor sets
/// (as LunarG's `VP_LUNARG_minimum_requirements_1_4` profile also lists them).
pub const VULKAN_1_4_REQUIRED_LIMITS: RequiredLimits = RequiredLimits {
    max_compute_work_group_invocations: 256,
    max_compute_work_group_size: [256, 256, 64],
    max_push_constants_size: 256,
    max_bound_descriptor_sets: 7,
    ..VULKAN_1_0_REQUIRED_LIMITS
};

impl RequiredLimits {
    /// The required limits of a Vulkan version.
    pub fn for_api(api: ApiVersion) -> RequiredLimits {
        if api.at_least(1, 4) {
            VULKAN_1_4_REQUIRED_LIMITS
        } else {
            VULKAN_1_0_REQUIRED_LIMITS
        }
    }
}

/// A set of `VkSubgroupFeatureFlagBits`, with the bits' Vulkan values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubgroupOperations(pub u32);

impl SubgroupOperations {
    pub const BASIC: Self = Self(0x1);
    pub const VOTE: Self = Self(0x2);
    pub const ARITHMETIC: Self = Self(0x4);
    pub const BALLOT: Self = Self(0x8);
    pub const SHUFFLE: Self = Self(0x10);
    pub const SHUFFLE_RELATIVE: Self = Self(0x20);
    pub const CLUSTERED: Self = Self(0x40);
    pub const QUAD: Self = Self(0x80);
    /// `VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV`.
    pub const PARTITIONED: Self = Self(0x100);
    pub const ROTATE: Self = Self(0x200);
    pub const ROTATE_CLUSTERED: Self = Self(0x400);

    /// The flags by their Vulkan names without the `VK_SUBGROUP_FEATURE_` prefix, the `_BIT`
    /// and any vendor suffix.
    pub const NAMES: [(&'static str, SubgroupOperations); 11] = [
        ("BASIC", Self::BASIC),
        ("VOTE", Self::VOTE),
        ("ARITHMETIC", Self::ARITHMETIC),
        ("BALLOT", Self::BALLOT),
        ("SHUFFLE", Self::SHUFFLE),
        ("SHUFFLE_RELATIVE", Self::SHUFFLE_RELATIVE),
        ("CLUSTERED", Self::CLUSTERED),
        ("QUAD", Self::QUAD),
        ("PARTITIONED", Self::PARTITIONED),
        ("ROTATE", Self::ROTATE),
        ("ROTATE_CLUSTERED", Self::ROTATE_CLUSTERED),
    ];

    pub const fn empty() -> Self {
        Self(0)
    }
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
    pub const fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }
}

/// Sub-group properties.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Subgroups {
    /// `subgroupSize` (VkPhysicalDeviceSubgroupProperties, VkPhysicalDeviceVulkan11Properties):
    /// the size a compute pipeline gets without sub-group size control. In a requirement
    /// profile it is a lower bound (see `subgroup_size_exact`); 1 when the file has none.
    pub subgroup_size: u32,
    /// Whether `subgroup_size` is the device's size rather than a lower bound: `true` for a
    /// device report that gives `subgroupSize` or a range of one size; `false` for a report
    /// with neither (its `subgroup_size` is `minSubgroupSize`) and for a requirement profile.
    pub subgroup_size_exact: bool,
    /// `minSubgroupSize` (VkPhysicalDeviceSubgroupSizeControlProperties,
    /// VkPhysicalDeviceVulkan13Properties). With `max_subgroup_size`: every power of two `s`
    /// with `min_subgroup_size <= s <= max_subgroup_size` is within the device's range. When
    /// `min_subgroup_size > max_subgroup_size` no size is known to be (a requirement profile
    /// that bounds the range only loosely: its `minSubgroupSize` is an upper bound of the
    /// device's and its `maxSubgroupSize` a lower bound).
    pub min_subgroup_size: u32,
    /// `maxSubgroupSize` (same structures).
    pub max_subgroup_size: u32,
    /// `requiredSubgroupSizeStages` contains `VK_SHADER_STAGE_COMPUTE_BIT`: a compute pipeline
    /// may require a size.
    pub required_size_stages_compute: bool,
    /// `supportedStages` (`subgroupSupportedStages`) contains `VK_SHADER_STAGE_COMPUTE_BIT`.
    pub supported_stages_compute: bool,
    /// `supportedOperations` (`subgroupSupportedOperations`).
    pub supported_operations: SubgroupOperations,
}

/// `VkShaderFloatControlsIndependence`, ordered from the least to the most the device allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FloatControlsIndependence {
    /// `VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE`: one mode for all widths.
    None,
    /// `VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY`: 32-bit independent of the others.
    ThirtyTwoBitOnly,
    /// `VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL`: every width independent.
    All,
}

/// Float controls (VkPhysicalDeviceFloatControlsProperties, VkPhysicalDeviceVulkan12Properties):
/// which SPIR-V float execution modes the device honours. `false` and `None` when the file
/// has none.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FloatControls {
    /// `denormBehaviorIndependence`.
    pub denorm_behavior_independence: FloatControlsIndependence,
    /// `roundingModeIndependence`.
    pub rounding_mode_independence: FloatControlsIndependence,
    /// `shaderSignedZeroInfNanPreserveFloat16`.
    pub shader_signed_zero_inf_nan_preserve_float16: bool,
    /// `shaderSignedZeroInfNanPreserveFloat32`.
    pub shader_signed_zero_inf_nan_preserve_float32: bool,
    /// `shaderSignedZeroInfNanPreserveFloat64`.
    pub shader_signed_zero_inf_nan_preserve_float64: bool,
    /// `shaderDenormPreserveFloat16`.
    pub shader_denorm_preserve_float16: bool,
    /// `shaderDenormPreserveFloat32`.
    pub shader_denorm_preserve_float32: bool,
    /// `shaderDenormPreserveFloat64`.
    pub shader_denorm_preserve_float64: bool,
    /// `shaderDenormFlushToZeroFloat16`.
    pub shader_denorm_flush_to_zero_float16: bool,
    /// `shaderDenormFlushToZeroFloat32`.
    pub shader_denorm_flush_to_zero_float32: bool,
    /// `shaderDenormFlushToZeroFloat64`.
    pub shader_denorm_flush_to_zero_float64: bool,
    /// `shaderRoundingModeRTEFloat16`.
    pub shader_rounding_mode_rte_float16: bool,
    /// `shaderRoundingModeRTEFloat32`.
    pub shader_rounding_mode_rte_float32: bool,
    /// `shaderRoundingModeRTEFloat64`.
    pub shader_rounding_mode_rte_float64: bool,
    /// `shaderRoundingModeRTZFloat16`.
    pub shader_rounding_mode_rtz_float16: bool,
    /// `shaderRoundingModeRTZFloat32`.
    pub shader_rounding_mode_rtz_float32: bool,
    /// `shaderRoundingModeRTZFloat64`.
    pub shader_rounding_mode_rtz_float64: bool,
}

/// Device extensions of interest to PISA: whether the file lists each (an extension promoted
/// to core may be offered without being listed; the features say what is offered).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Extensions {
    /// `VK_KHR_portability_subset`: a non-conformant layered implementation (MoltenVK).
    pub portability_subset: bool,
    /// `VK_EXT_subgroup_size_control`.
    pub subgroup_size_control: bool,
    /// `VK_KHR_shader_float_controls`.
    pub shader_float_controls: bool,
    /// `VK_KHR_shader_float_controls2`.
    pub shader_float_controls2: bool,
    /// `VK_KHR_shader_maximal_reconvergence`.
    pub shader_maximal_reconvergence: bool,
    /// `VK_KHR_shader_subgroup_uniform_control_flow`.
    pub shader_subgroup_uniform_control_flow: bool,
    /// `VK_KHR_shader_subgroup_extended_types`.
    pub shader_subgroup_extended_types: bool,
    /// `VK_KHR_buffer_device_address`.
    pub buffer_device_address: bool,
    /// `VK_KHR_shader_atomic_int64`.
    pub shader_atomic_int64: bool,
    /// `VK_EXT_shader_atomic_float`.
    pub shader_atomic_float: bool,
    /// `VK_EXT_shader_atomic_float2`.
    pub shader_atomic_float2: bool,
    /// `VK_KHR_vulkan_memory_model`.
    pub vulkan_memory_model: bool,
    /// `VK_KHR_shader_float16_int8`.
    pub shader_float16_int8: bool,
    /// `VK_KHR_8bit_storage`.
    pub storage_8bit: bool,
    /// `VK_KHR_16bit_storage`.
    pub storage_16bit: bool,
    /// `VK_KHR_shader_non_semantic_info`.
    pub shader_non_semantic_info: bool,
    /// `VK_KHR_spirv_1_4`.
    pub spirv_1_4: bool,
}

/// What a driver does that its feature bits do not state, measured by running small kernels on
/// the device when the Vulkan runtime opens it (`pisa_vk_runtime`'s probe; docs/devices.md,
/// "Probed behaviour"). Index 0, 1, 2 of the arrays is 16-, 32- and 64-bit floats; `None` is a
/// width not probed (the device has no such arithmetic enabled). The text form, one
/// `key=value` per item ([`Probed::to_list`], [`Probed::apply_list`]), is the probe cache's and
/// `PISA_PROBE_OVERRIDE`'s.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Probed {
    /// Denormal operands and results are kept when the module requests no denormal mode
    /// (`false`: the driver flushes them to zero; Vulkan allows either).
    pub denormals_kept: [Option<bool>; 3],
    /// `GLSL.std.450 Fma` on f32 rounds once (Vulkan does not require it to be fused).
    pub fma_f32_fused: Option<bool>,
    /// `GLSL.std.450 Fma` on f64 rounds once (`None`: f64 not probed, or a description without
    /// a probe: treated as not fused).
    #[serde(default)]
    pub fma_f64_fused: Option<bool>,
    /// Signed zeros, infinities and NaNs survive when the module does not declare
    /// `SignedZeroInfNanPreserve` (`false`: the driver folds `-0 + 0` to `-0`, `∞·0` or `∞ − ∞`
    /// to a number).
    pub signed_zero_inf_nan_kept: [Option<bool>; 3],
    /// Denormals are kept when the module declares `DenormPreserve` (`None`: the device cannot
    /// be asked, no `shaderDenormPreserveFloatN`; `false`: the driver ignores the request).
    pub denorm_preserve_honoured: [Option<bool>; 3],
    /// Signed zeros, infinities and NaNs survive when the module declares
    /// `SignedZeroInfNanPreserve` (`None`: the device cannot be asked, no
    /// `shaderSignedZeroInfNanPreserveFloatN`; `false`: the driver ignores it).
    pub signed_zero_inf_nan_preserve_honoured: [Option<bool>; 3],
}

/// The float widths of [`Probed`]'s arrays, in order.
pub const PROBED_WIDTHS: [u32; 3] = [16, 32, 64];

impl Probed {
    /// The probed values as `key=value` items (`denormals32=kept`, `fma=fused`,
    /// `signed-zeros32=lost`, ...), widths not probed left out.
    pub fn to_list(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, w) in PROBED_WIDTHS.into_iter().enumerate() {
            if let Some(k) = self.denormals_kept[i] {
                out.push(format!(
                    "denormals{w}={}",
                    if k { "kept" } else { "flushed" }
                ));
            }
        }
        if let Some(f) = self.fma_f32_fused {
            out.push(format!("fma={}", if f { "fused" } else { "unfused" }));
        }
        if let Some(f) = self.fma_f64_fused {
            out.push(format!("fma64={}", if f { "fused" } else { "unfused" }));
        }
        for (i, w) in PROBED_WIDTHS.into_iter().enumerate() {
            if let Some(k) = self.signed_zero_inf_nan_kept[i] {
                out.push(format!(
                    "signed-zeros{w}={}",
                    if k { "kept" } else { "lost" }
                ));
            }
        }
        let said = |h: bool| if h { "honoured" } else { "ignored" };
        for (i, w) in PROBED_WIDTHS.into_iter().enumerate() {
            if let Some(h) = self.denorm_preserve_honoured[i] {
                out.push(format!("denorm-preserve{w}={}", said(h)));
            }
        }
        for (i, w) in PROBED_WIDTHS.into_iter().enumerate() {
            if let Some(h) = self.signed_zero_inf_nan_preserve_honoured[i] {
                out.push(format!("signed-zero-preserve{w}={}", said(h)));
            }
        }
        out
    }

    /// Sets the values that `list` names: items `key=value` separated by commas or newlines
    /// (`denormals16|32|64=kept|flushed`, `fma=fused|unfused` (f32),
    /// `fma64=fused|unfused`,
    /// `signed-zeros16|32|64=kept|lost`, `denorm-preserve16|32|64=honoured|ignored`,
    /// `signed-zero-preserve16|32|64=honoured|ignored`); blank items are skipped. An unknown key or value is
    /// an error naming it, and nothing is changed.
    pub fn apply_list(&mut self, list: &str) -> Result<(), String> {
        let mut out = self.clone();
        for item in list.split([',', '\n']).map(str::trim) {
            if item.is_empty() {
                continue;
            }
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not `key=value`"))?;
            let (key, value) = (key.trim(), value.trim());
            let width = |prefix: &str| -> Option<usize> {
                let w: u32 = key.strip_prefix(prefix)?.parse().ok()?;
                PROBED_WIDTHS.iter().position(|&x| x == w)
            };
            let bad = || format!("`{item}`: unknown value `{value}`");
            let honoured = || match value {
                "honoured" => Ok(true),
                "ignored" => Ok(false),
                _ => Err(bad()),
            };
            if let Some(i) = width("denorm-preserve") {
                out.denorm_preserve_honoured[i] = Some(honoured()?);
            } else if let Some(i) = width("signed-zero-preserve") {
                out.signed_zero_inf_nan_preserve_honoured[i] = Some(honoured()?);
            } else if let Some(i) = width("denormals") {
                out.denormals_kept[i] = Some(match value {
                    "kept" => true,
                    "flushed" => false,
                    _ => return Err(bad()),
                });
            } else if let Some(i) = width("signed-zeros") {
                out.signed_zero_inf_nan_kept[i] = Some(match value {
                    "kept" => true,
                    "lost" => false,
                    _ => return Err(bad()),
                });
            } else if key == "fma" || key == "fma64" {
                let fused = Some(match value {
                    "fused" => true,
                    "unfused" => false,
                    _ => return Err(bad()),
                });
                if key == "fma" {
                    out.fma_f32_fused = fused;
                } else {
                    out.fma_f64_fused = fused;
                }
            } else {
                return Err(format!(
                    "`{item}`: unknown key `{key}` (denormalsN, fma, fma64, signed-zerosN, denorm-preserveN, signed-zero-preserveN; N is 16, 32 or 64)"
                ));
            }
        }
        *self = out;
        Ok(())
    }
}

/// What a Vulkan device offers to PISA. Plain data; see the crate documentation and
/// docs/devices.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceDescription {
    /// A device report or a requirement profile (for an intersection: a device report when
    /// either side is one).
    pub kind: DescriptionKind,
    /// `profiles.<name>.api-version` (checked against `VkPhysicalDeviceProperties.apiVersion`
    /// in a device report).
    pub api_version: ApiVersion,
    /// Which device it is.
    pub identity: Identity,
    /// `VK_KHR_portability_subset` is listed: the device is a portability device (MoltenVK on
    /// Metal), which the specification allows to differ from a conformant one.
    pub portability: bool,
    pub features: Features,
    pub limits: Limits,
    pub subgroups: Subgroups,
    pub float_controls: FloatControls,
    pub extensions: Extensions,
    /// What a reader should know that the fields cannot say (from [`Self::intersect`]).
    pub notes: Vec<String>,
    /// The driver's behaviour as probed on the device ([`Probed`]): `None` for a description
    /// read from a file (a profile runs no probe), the runtime's probe results for a real
    /// device.
    #[serde(default)]
    pub probed: Option<Probed>,
}

macro_rules! meet_fields {
    ($a:expr, $b:expr, $ty:ident { $($f:ident),* $(,)? }) => {
        $ty { $($f: $a.$f && $b.$f),* }
    };
}

impl Features {
    /// The features both offer.
    pub fn intersect(&self, o: &Features) -> Features {
        meet_fields!(
            self,
            o,
            Features {
                shader_float64,
                shader_int64,
                shader_int16,
                shader_float16,
                shader_int8,
                storage_buffer_16bit_access,
                uniform_and_storage_buffer_16bit_access,
                storage_push_constant16,
                storage_buffer_8bit_access,
                uniform_and_storage_buffer_8bit_access,
                storage_push_constant8,
                buffer_device_address,
                shader_buffer_int64_atomics,
                shader_shared_int64_atomics,
                shader_buffer_float32_atomics,
                shader_buffer_float32_atomic_add,
                shader_buffer_float64_atomics,
                shader_buffer_float64_atomic_add,
                shader_shared_float32_atomics,
                shader_shared_float32_atomic_add,
                shader_shared_float64_atomics,
                shader_shared_float64_atomic_add,
                shader_buffer_float32_atomic_min_max,
                shader_shared_float32_atomic_min_max,
                shader_buffer_float64_atomic_min_max,
                shader_shared_float64_atomic_min_max,
                vulkan_memory_model,
                vulkan_memory_model_device_scope,
                subgroup_size_control,
                compute_full_subgroups,
                shader_subgroup_extended_types,
                shader_maximal_reconvergence,
                shader_subgroup_uniform_control_flow,
                shader_float_controls2,
            }
        )
    }
}

impl Extensions {
    /// The extensions both list.
    pub fn intersect(&self, o: &Extensions) -> Extensions {
        meet_fields!(
            self,
            o,
            Extensions {
                portability_subset,
                subgroup_size_control,
                shader_float_controls,
                shader_float_controls2,
                shader_maximal_reconvergence,
                shader_subgroup_uniform_control_flow,
                shader_subgroup_extended_types,
                buffer_device_address,
                shader_atomic_int64,
                shader_atomic_float,
                shader_atomic_float2,
                vulkan_memory_model,
                shader_float16_int8,
                storage_8bit,
                storage_16bit,
                shader_non_semantic_info,
                spirv_1_4,
            }
        )
    }
}

impl FloatControls {
    /// The float controls both honour.
    pub fn intersect(&self, o: &FloatControls) -> FloatControls {
        meet_fields!(
            self,
            o,
            FloatControlsBools {
                shader_signed_zero_inf_nan_preserve_float16,
                shader_signed_zero_inf_nan_preserve_float32,
                shader_signed_zero_inf_nan_preserve_float64,
                shader_denorm_preserve_float16,
                shader_denorm_preserve_float32,
                shader_denorm_preserve_float64,
                shader_denorm_flush_to_zero_float16,
                shader_denorm_flush_to_zero_float32,
                shader_denorm_flush_to_zero_float64,
                shader_rounding_mode_rte_float16,
                shader_rounding_mode_rte_float32,
                shader_rounding_mode_rte_float64,
                shader_rounding_mode_rtz_float16,
                shader_rounding_mode_rtz_float32,
                shader_rounding_mode_rtz_float64,
            }
        )
        .with_independence(
            self.denorm_behavior_independence
                .min(o.denorm_behavior_independence),
            self.rounding_mode_independence
                .min(o.rounding_mode_independence),
        )
    }
}

/// The boolean part of [`FloatControls`], so that `meet_fields!` can build it.
struct FloatControlsBools {
    shader_signed_zero_inf_nan_preserve_float16: bool,
    shader_signed_zero_inf_nan_preserve_float32: bool,
    shader_signed_zero_inf_nan_preserve_float64: bool,
    shader_denorm_preserve_float16: bool,
    shader_denorm_preserve_float32: bool,
    shader_denorm_preserve_float64: bool,
    shader_denorm_flush_to_zero_float16: bool,
    shader_denorm_flush_to_zero_float32: bool,
    shader_denorm_flush_to_zero_float64: bool,
    shader_rounding_mode_rte_float16: bool,
    shader_rounding_mode_rte_float32: bool,
    shader_rounding_mode_rte_float64: bool,
    shader_rounding_mode_rtz_float16: bool,
    shader_rounding_mode_rtz_float32: bool,
    shader_rounding_mode_rtz_float64: bool,
}

impl FloatControlsBools {
    fn with_independence(
        self,
        denorm: FloatControlsIndependence,
        rounding: FloatControlsIndependence,
    ) -> FloatControls {
        FloatControls {
            denorm_behavior_independence: denorm,
            rounding_mode_independence: rounding,
            shader_signed_zero_inf_nan_preserve_float16: self
                .shader_signed_zero_inf_nan_preserve_float16,
            shader_signed_zero_inf_nan_preserve_float32: self
                .shader_signed_zero_inf_nan_preserve_float32,
            shader_signed_zero_inf_nan_preserve_float64: self
                .shader_signed_zero_inf_nan_preserve_float64,
            shader_denorm_preserve_float16: self.shader_denorm_preserve_float16,
            shader_denorm_preserve_float32: self.shader_denorm_preserve_float32,
            shader_denorm_preserve_float64: self.shader_denorm_preserve_float64,
            shader_denorm_flush_to_zero_float16: self.shader_denorm_flush_to_zero_float16,
            shader_denorm_flush_to_zero_float32: self.shader_denorm_flush_to_zero_float32,
            shader_denorm_flush_to_zero_float64: self.shader_denorm_flush_to_zero_float64,
            shader_rounding_mode_rte_float16: self.shader_rounding_mode_rte_float16,
            shader_rounding_mode_rte_float32: self.shader_rounding_mode_rte_float32,
            shader_rounding_mode_rte_float64: self.shader_rounding_mode_rte_float64,
            shader_rounding_mode_rtz_float16: self.shader_rounding_mode_rtz_float16,
            shader_rounding_mode_rtz_float32: self.shader_rounding_mode_rtz_float32,
            shader_rounding_mode_rtz_float64: self.shader_rounding_mode_rtz_float64,
        }
    }
}

impl Limits {
    /// The smaller of each limit.
    pub fn intersect(&self, o: &Limits) -> Limits {
        let min3 = |a: [u32; 3], b: [u32; 3]| [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])];
        Limits {
            max_compute_shared_memory_size: self
                .max_compute_shared_memory_size
                .min(o.max_compute_shared_memory_size),
            max_compute_work_group_invocations: self
                .max_compute_work_group_invocations
                .min(o.max_compute_work_group_invocations),
            max_compute_work_group_size: min3(
                self.max_compute_work_group_size,
                o.max_compute_work_group_size,
            ),
            max_compute_work_group_count: min3(
                self.max_compute_work_group_count,
                o.max_compute_work_group_count,
            ),
            max_push_constants_size: self.max_push_constants_size.min(o.max_push_constants_size),
            max_storage_buffer_range: self
                .max_storage_buffer_range
                .min(o.max_storage_buffer_range),
            max_per_stage_descriptor_storage_buffers: self
                .max_per_stage_descriptor_storage_buffers
                .min(o.max_per_stage_descriptor_storage_buffers),
            max_bound_descriptor_sets: self
                .max_bound_descriptor_sets
                .min(o.max_bound_descriptor_sets),
        }
    }
}

impl Subgroups {
    /// Whether no size is known to be within the device's range.
    pub fn size_range_is_empty(&self) -> bool {
        self.min_subgroup_size > self.max_subgroup_size
    }
}

impl DeviceDescription {
    /// Whether a compute pipeline on this device runs with sub-groups of `size`: the size the
    /// device uses without size control (a device report), or a size it may require
    /// (`subgroupSizeControl`, `computeFullSubgroups`, compute in
    /// `requiredSubgroupSizeStages`, and `size` a power of two within the range).
    pub fn subgroup_size_available(&self, size: u32) -> bool {
        let s = &self.subgroups;
        if s.subgroup_size_exact && s.subgroup_size == size {
            return true;
        }
        self.features.subgroup_size_control
            && self.features.compute_full_subgroups
            && s.required_size_stages_compute
            && size.is_power_of_two()
            && s.min_subgroup_size <= size
            && size <= s.max_subgroup_size
    }

    /// What both descriptions offer, for "profile ∩ real device": features, float controls and
    /// extensions AND, limits and the API version the smaller, `portability` OR, sub-group
    /// stages and operations intersected.
    ///
    /// The sub-group size range is the intersection of the two ranges. When that is empty
    /// while either range is not, the result keeps the range of the real device (the side that
    /// is a device report, `self` when both or neither are) and says so in `notes`. The
    /// default `subgroup_size` is the real device's (the size it runs with); of two requirement
    /// profiles, the smaller lower bound; of two device reports that differ, `self`'s, with a
    /// note. Identity is the real device's.
    pub fn intersect(&self, other: &DeviceDescription) -> DeviceDescription {
        let (dev, oth) = if self.kind == DescriptionKind::DeviceReport
            || other.kind != DescriptionKind::DeviceReport
        {
            (self, other)
        } else {
            (other, self)
        };
        let mut notes: Vec<String> = self.notes.iter().chain(&other.notes).cloned().collect();
        notes.push(format!(
            "intersection of `{}` and `{}`",
            self.identity.profile_name, other.identity.profile_name
        ));

        let (a, b) = (&dev.subgroups, &oth.subgroups);
        let mut min = a.min_subgroup_size.max(b.min_subgroup_size);
        let mut max = a.max_subgroup_size.min(b.max_subgroup_size);
        if min > max && !(a.size_range_is_empty() && b.size_range_is_empty()) {
            notes.push(format!(
                "sub-group size ranges {}..{} (`{}`) and {}..{} (`{}`) do not intersect; kept {}..{} of `{}`",
                a.min_subgroup_size,
                a.max_subgroup_size,
                dev.identity.profile_name,
                b.min_subgroup_size,
                b.max_subgroup_size,
                oth.identity.profile_name,
                a.min_subgroup_size,
                a.max_subgroup_size,
                dev.identity.profile_name
            ));
            min = a.min_subgroup_size;
            max = a.max_subgroup_size;
        }
        let (subgroup_size, subgroup_size_exact) =
            match (a.subgroup_size_exact, b.subgroup_size_exact) {
                (true, true) => {
                    if a.subgroup_size != b.subgroup_size {
                        notes.push(format!(
                            "default sub-group sizes differ: {} (`{}`) and {} (`{}`); kept {}",
                            a.subgroup_size,
                            dev.identity.profile_name,
                            b.subgroup_size,
                            oth.identity.profile_name,
                            a.subgroup_size
                        ));
                    }
                    (a.subgroup_size, true)
                }
                (true, false) => (a.subgroup_size, true),
                (false, true) => (b.subgroup_size, true),
                (false, false) => (a.subgroup_size.min(b.subgroup_size), false),
            };

        DeviceDescription {
            kind: dev.kind,
            api_version: self.api_version.min(other.api_version),
            identity: dev.identity.clone(),
            portability: self.portability || other.portability,
            features: self.features.intersect(&other.features),
            limits: self.limits.intersect(&other.limits),
            subgroups: Subgroups {
                subgroup_size,
                subgroup_size_exact,
                min_subgroup_size: min,
                max_subgroup_size: max,
                required_size_stages_compute: a.required_size_stages_compute
                    && b.required_size_stages_compute,
                supported_stages_compute: a.supported_stages_compute && b.supported_stages_compute,
                supported_operations: a.supported_operations.intersection(b.supported_operations),
            },
            float_controls: self.float_controls.intersect(&other.float_controls),
            extensions: self.extensions.intersect(&other.extensions),
            notes,
            // behaviour is the real device's: a device cannot take on another's
            probed: dev.probed.clone(),
        }
    }
}
