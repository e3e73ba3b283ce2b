//! Every error of reading a Vulkan Profiles file, with its exact message: the file, the JSON
//! path (or line and column) and what is wrong.

use pisa_device::{DeviceDescription, ProfileError, VULKAN_1_0_REQUIRED_LIMITS};
use serde_json::json;

/// A device report (`VP_GPUINFO_…`) of API version 1.3.0 whose one block is `device`.
fn report_with(device: serde_json::Value) -> String {
    json!({
        "$schema": "https://schema.khronos.org/vulkan/profiles-0.8-latest.json#",
        "profiles": {"VP_GPUINFO_test": {
            "version": 1, "api-version": "1.3.0", "label": "Test GPU driver 1.0 on Nowhere",
            "capabilities": ["device"]}},
        "capabilities": {"device": device}
    })
    .to_string()
}

fn err(text: &str) -> ProfileError {
    DeviceDescription::from_profile_json(text, "t.json").unwrap_err()
}

#[test]
fn not_json_names_line_and_column() {
    let e = err("{\n  \"profiles\": {\n    \"VP_X\": {},\n  }\n}");
    assert!(
        matches!(
            e,
            ProfileError::NotJson {
                line: 4,
                column: 3,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "t.json:4:3: not JSON: trailing comma");
    let e = err("");
    assert_eq!(
        e.to_string(),
        "t.json:1:0: not JSON: EOF while parsing a value"
    );
}

#[test]
fn wrong_layout_names_the_path() {
    let cases = [
        ("[1]".to_string(), "t.json: (top level): expected an object, found an array"),
        ("{}".to_string(), "t.json: profiles: missing (the file names its profiles here)"),
        (r#"{"profiles": 3}"#.to_string(), "t.json: profiles: expected an object, found 3"),
        (r#"{"profiles": {}}"#.to_string(), "t.json: profiles: no profile in the file"),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"api-version": "1.2.3", "capabilities": ["device"]}}}"#
                .to_string(),
            "t.json: capabilities: missing (the file's capability blocks are here)",
        ),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"capabilities": ["device"]}}, "capabilities": {}}"#
                .to_string(),
            "t.json: profiles.VP_GPUINFO_a.api-version: missing",
        ),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"api-version": "1.2", "capabilities": []}}, "capabilities": {}}"#
                .to_string(),
            "t.json: profiles.VP_GPUINFO_a.api-version: expected a version \"major.minor.patch\", found \"1.2\"",
        ),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"api-version": "1.2.3"}}, "capabilities": {}}"#
                .to_string(),
            "t.json: profiles.VP_GPUINFO_a.capabilities: missing (the profile's capability blocks are named here)",
        ),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"api-version": "1.2.3", "capabilities": ["dev"]}}, "capabilities": {"device": {}}}"#
                .to_string(),
            "t.json: profiles.VP_GPUINFO_a.capabilities[0]: no capability block `dev` under `capabilities`",
        ),
        (
            r#"{"profiles": {"VP_GPUINFO_a": {"api-version": "1.2.3", "capabilities": [7]}}, "capabilities": {}}"#
                .to_string(),
            "t.json: profiles.VP_GPUINFO_a.capabilities[0]: expected a capability block's name, found 7",
        ),
        (
            report_with(json!({"features": {"VkPhysicalDeviceFeatures": {"shaderFloat64": "yes"}}})),
            "t.json: capabilities.device.features.VkPhysicalDeviceFeatures.shaderFloat64: expected a boolean, found \"yes\"",
        ),
        (
            report_with(json!({"features": {"VkPhysicalDeviceFeatures": true}})),
            "t.json: capabilities.device.features.VkPhysicalDeviceFeatures: expected an object, found true",
        ),
        (
            report_with(json!({"features": []})),
            "t.json: capabilities.device.features: expected an object, found an array",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxComputeSharedMemorySize": -1}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxComputeSharedMemorySize: expected an unsigned 32-bit integer, found -1",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxPushConstantsSize": 4294967296u64}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxPushConstantsSize: expected an unsigned 32-bit integer, found 4294967296",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": 5}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits: expected an object, found 5",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxComputeWorkGroupCount": [1, 2]}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxComputeWorkGroupCount: expected an array of 3 integers, found an array",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxComputeWorkGroupSize": [1, "2", 3]}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxComputeWorkGroupSize[1]: expected an unsigned 32-bit integer, found \"2\"",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceSubgroupProperties": {"supportedOperations": "VK_SUBGROUP_FEATURE_BASIC_BIT"}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceSubgroupProperties.supportedOperations: expected an array of strings, found \"VK_SUBGROUP_FEATURE_BASIC_BIT\"",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceSubgroupProperties": {"supportedOperations": ["VK_SUBGROUP_FEATURE_BASIC_BIT", "BALLOT"]}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceSubgroupProperties.supportedOperations[1]: expected a VkSubgroupFeatureFlagBits name, found \"BALLOT\"",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceFloatControlsProperties": {"denormBehaviorIndependence": "ALL"}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceFloatControlsProperties.denormBehaviorIndependence: expected a VkShaderFloatControlsIndependence name, found \"ALL\"",
        ),
        (
            report_with(json!({"extensions": {"VK_KHR_portability_subset": "1"}})),
            "t.json: capabilities.device.extensions.VK_KHR_portability_subset: expected an extension's version number, found \"1\"",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"deviceName": 5}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.deviceName: expected a string, found 5",
        ),
    ];
    for (text, want) in cases {
        let e = err(&text);
        assert!(matches!(e, ProfileError::Schema { .. }), "{e:?}");
        assert_eq!(e.to_string(), want);
    }
}

#[test]
fn unknown_profile_lists_the_profiles_in_file_order() {
    let text = r#"{"profiles": {"VP_B": {"api-version": "1.0.0", "capabilities": []},
                                 "VP_A": {"api-version": "1.0.0", "capabilities": []}},
                   "capabilities": {}}"#;
    let e = DeviceDescription::from_profile_json_named(text, "two.json", Some("VP_C")).unwrap_err();
    assert!(matches!(e, ProfileError::UnknownProfile { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "two.json: profiles: no profile named `VP_C`; the file has `VP_B`, `VP_A`"
    );
    // without a name: the first in the file, not the first by name
    let d = DeviceDescription::from_profile_json(text, "two.json").unwrap();
    assert_eq!(d.identity.profile_name, "VP_B");
    let d = DeviceDescription::from_profile_json_named(text, "two.json", Some("VP_A")).unwrap();
    assert_eq!(d.identity.profile_name, "VP_A");
}

#[test]
fn contradictory_values_of_a_device_report() {
    let sizes = |min: u32, size: u32, max: u32| {
        report_with(json!({"properties": {
            "VkPhysicalDeviceVulkan11Properties": {"subgroupSize": size},
            "VkPhysicalDeviceSubgroupSizeControlProperties": {"minSubgroupSize": min, "maxSubgroupSize": max}}}))
    };
    let cases = [
        (
            sizes(64, 64, 32),
            "t.json: capabilities.device.properties.VkPhysicalDeviceSubgroupSizeControlProperties.minSubgroupSize: minSubgroupSize 64 is greater than maxSubgroupSize 32 (capabilities.device.properties.VkPhysicalDeviceSubgroupSizeControlProperties.maxSubgroupSize)",
        ),
        (
            sizes(8, 64, 32),
            "t.json: capabilities.device.properties.VkPhysicalDeviceVulkan11Properties.subgroupSize: subgroupSize 64 is outside minSubgroupSize..maxSubgroupSize = 8..32",
        ),
        (
            sizes(8, 24, 32),
            "t.json: capabilities.device.properties.VkPhysicalDeviceVulkan11Properties.subgroupSize: subgroupSize must be a power of two, found 24",
        ),
        (
            sizes(0, 32, 32),
            "t.json: capabilities.device.properties.VkPhysicalDeviceSubgroupSizeControlProperties.minSubgroupSize: minSubgroupSize must be a power of two, found 0",
        ),
        (
            report_with(json!({"properties": {
                "VkPhysicalDeviceVulkan11Properties": {"subgroupSize": 32},
                "VkPhysicalDeviceSubgroupProperties": {"subgroupSize": 64}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceVulkan11Properties.subgroupSize: 32 disagrees with 64 at capabilities.device.properties.VkPhysicalDeviceSubgroupProperties.subgroupSize",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxComputeSharedMemorySize": 0}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxComputeSharedMemorySize: maxComputeSharedMemorySize must be positive, found 0",
        ),
        (
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"limits": {"maxComputeWorkGroupCount": [65535, 0, 65535]}}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.limits.maxComputeWorkGroupCount[1]: maxComputeWorkGroupCount must be positive, found 0",
        ),
        (
            // 1.2.275 packed, in a profile of API version 1.3.0
            report_with(json!({"properties": {"VkPhysicalDeviceProperties": {"apiVersion": 4202771}}})),
            "t.json: capabilities.device.properties.VkPhysicalDeviceProperties.apiVersion: apiVersion 4202771 is 1.2.275 but profiles.VP_GPUINFO_test.api-version is 1.3.0",
        ),
    ];
    for (text, want) in cases {
        let e = err(&text);
        assert!(matches!(e, ProfileError::Contradiction { .. }), "{e:?}");
        assert_eq!(e.to_string(), want);
    }
}

/// A requirement profile bounds the device's range loosely (`minSubgroupSize` from above,
/// `maxSubgroupSize` from below), so a "min" above the "max" is no contradiction there, and
/// blocks that give different values combine into the tightest requirement.
#[test]
fn requirement_profiles_are_bounds_not_values() {
    let text = json!({
        "profiles": {"VP_TEST_req": {"api-version": "1.3.0", "capabilities": ["a", "b"]}},
        "capabilities": {
            "a": {"properties": {
                "VkPhysicalDeviceSubgroupSizeControlProperties": {"minSubgroupSize": 64, "maxSubgroupSize": 4},
                "VkPhysicalDeviceProperties": {"limits": {"maxComputeSharedMemorySize": 32768, "maxComputeWorkGroupSize": [512, 64, 64]}}},
                "features": {"VkPhysicalDeviceFeatures": {"shaderInt64": false}}},
            "b": {"properties": {
                "VkPhysicalDeviceVulkan13Properties": {"minSubgroupSize": 32, "maxSubgroupSize": 16},
                "VkPhysicalDeviceProperties": {"limits": {"maxComputeSharedMemorySize": 49152, "maxComputeWorkGroupSize": [256, 256, 32]}}},
                "features": {"VkPhysicalDeviceFeatures": {"shaderInt64": true}}}
        }
    })
    .to_string();
    let d = DeviceDescription::from_profile_json(&text, "req.json").unwrap();
    assert_eq!(
        (d.subgroups.min_subgroup_size, d.subgroups.max_subgroup_size),
        (32, 16)
    );
    assert!(d.subgroups.size_range_is_empty());
    assert_eq!(d.limits.max_compute_shared_memory_size, 49152);
    assert_eq!(d.limits.max_compute_work_group_size, [512, 256, 64]);
    assert!(d.features.shader_int64);
}

/// Values a device report leaves out: features not offered, limits the required ones,
/// sub-groups of 1.
#[test]
fn missing_values_of_a_device_report() {
    let d = DeviceDescription::from_profile_json(&report_with(json!({})), "t.json").unwrap();
    assert_eq!(d.features, Default::default());
    let r = VULKAN_1_0_REQUIRED_LIMITS;
    assert_eq!(
        d.limits.max_compute_shared_memory_size,
        r.max_compute_shared_memory_size
    );
    assert_eq!(
        d.limits.max_compute_work_group_size,
        r.max_compute_work_group_size
    );
    assert_eq!(d.limits.max_storage_buffer_range, 1 << 27);
    assert_eq!(
        (
            d.subgroups.min_subgroup_size,
            d.subgroups.subgroup_size,
            d.subgroups.max_subgroup_size
        ),
        (1, 1, 1)
    );
    assert_eq!(d.identity.device_name.as_deref(), Some("Test GPU"));
    assert_eq!(d.identity.driver_version.as_deref(), Some("1.0"));
    assert!(!d.float_controls.shader_denorm_preserve_float32);
}

#[test]
fn alternative_capability_blocks_are_refused() {
    let text = r#"{"profiles": {"VP_X": {"api-version": "1.3.0", "capabilities": ["a", ["b", "c"]]}},
                   "capabilities": {"a": {}, "b": {}, "c": {}}}"#;
    let e = err(text);
    assert!(matches!(e, ProfileError::Unsupported { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "t.json: profiles.VP_X.capabilities[1]: alternative capability blocks (a list of names) are not read; choose one and name it alone"
    );
}

#[test]
fn unreadable_file() {
    let e = DeviceDescription::from_profile_file("/nonexistent/profile.json").unwrap_err();
    assert!(matches!(e, ProfileError::Io { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "/nonexistent/profile.json: cannot read the file: No such file or directory (os error 2)"
    );
}
