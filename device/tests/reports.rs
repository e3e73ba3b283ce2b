//! The 58 device reports and the 4 requirement profiles of shared/device-profiles: every one is
//! read without error, every row of the README's table matches the description read from its
//! file, a few values per vendor are checked exactly, and the PISA-relevant combinations are
//! counted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pisa_device::profiles::{pisa_feature_key, PisaFeatureKey};
use pisa_device::{
    ApiVersion, DescriptionKind, DeviceDescription, FloatControlsIndependence, SubgroupOperations,
    VULKAN_1_0_REQUIRED_LIMITS, VULKAN_1_4_REQUIRED_LIMITS,
};

fn dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/device-profiles"
    ))
}

fn report(name: &str) -> DeviceDescription {
    DeviceDescription::from_profile_file(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn requirement(name: &str, profile: Option<&str>) -> DeviceDescription {
    DeviceDescription::from_profile_file_named(dir().join("requirements").join(name), profile)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every device report of the directory, by file name.
fn all_reports() -> BTreeMap<String, DeviceDescription> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let d = DeviceDescription::from_profile_file(&path).unwrap_or_else(|e| panic!("{e}"));
            out.insert(name, d);
        }
    }
    out
}

fn tick(b: bool) -> &'static str {
    if b {
        "✓"
    } else {
        "—"
    }
}

/// The README's cells for a description, in the table's column order after the file name.
fn readme_cells(d: &DeviceDescription) -> Vec<String> {
    let f = &d.features;
    let s = &d.subgroups;
    let mut sub = if s.min_subgroup_size == s.max_subgroup_size {
        s.min_subgroup_size.to_string()
    } else {
        format!("{}-{}", s.min_subgroup_size, s.max_subgroup_size)
    };
    if f.subgroup_size_control {
        sub.push_str(" ctl");
    }
    vec![
        d.identity.label.clone().unwrap(),
        d.api_version.to_string(),
        tick(d.portability).to_string(),
        tick(f.shader_float64).to_string(),
        tick(f.shader_float16).to_string(),
        tick(f.shader_int64).to_string(),
        format!("{}/{}", tick(f.shader_int16), tick(f.shader_int8)),
        format!(
            "{}/{}",
            tick(f.storage_buffer_16bit_access),
            tick(f.storage_buffer_8bit_access)
        ),
        tick(f.buffer_device_address).to_string(),
        format!(
            "{}/{}",
            tick(f.shader_buffer_int64_atomics),
            tick(f.shader_shared_int64_atomics)
        ),
        d.limits.max_compute_shared_memory_size.to_string(),
        d.limits.max_push_constants_size.to_string(),
        d.limits.max_compute_work_group_invocations.to_string(),
        sub,
        format!(
            "{}/{}",
            tick(d.float_controls.shader_denorm_preserve_float32),
            tick(d.float_controls.shader_signed_zero_inf_nan_preserve_float32)
        ),
    ]
}

#[test]
fn every_row_of_the_readme_table_matches_its_report() {
    let readme = std::fs::read_to_string(dir().join("README.md")).unwrap();
    let header = readme
        .lines()
        .find(|l| l.starts_with("| file |"))
        .expect("the table's header");
    let columns: Vec<&str> = header.trim_matches('|').split('|').map(str::trim).collect();
    assert_eq!(
        columns,
        [
            "file",
            "device, driver, OS",
            "api",
            "port.",
            "f64",
            "f16",
            "i64",
            "i16/i8",
            "st16/st8",
            "bda",
            "a64",
            "shm",
            "push",
            "wg",
            "sub-group",
            "dn/sz"
        ]
    );
    let reports = all_reports();
    let mut rows = 0;
    for line in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), columns.len(), "{line}");
        let file = cells[0].trim_matches('`');
        let d = reports
            .get(file)
            .unwrap_or_else(|| panic!("{file}: in the README, not in the directory"));
        let ours = readme_cells(d);
        for (i, (want, got)) in cells[1..].iter().zip(&ours).enumerate() {
            assert_eq!(want, got, "{file}: column `{}`", columns[i + 1]);
        }
        rows += 1;
    }
    assert_eq!(rows, 58);
    assert_eq!(reports.len(), 58);
}

#[test]
fn known_values_per_vendor() {
    // Apple M1 under MoltenVK 0.2.2015: no f64, 32 KiB shared memory, sub-groups 4..32 with 32
    // as the default; its float-controls structures disagree (the extension's says every mode
    // is honoured, VkPhysicalDeviceVulkan12Properties says denormals are not preserved): the
    // description keeps what both say.
    let m1 = report("apple_m1_0_2_2015_osx_14_3.json");
    assert_eq!(m1.kind, DescriptionKind::DeviceReport);
    assert_eq!(m1.api_version, ApiVersion::new(1, 2, 275));
    assert!(!m1.features.shader_float64);
    assert!(m1.features.shader_float16 && m1.features.shader_int8);
    assert!(m1.features.buffer_device_address);
    assert!(!m1.features.shader_buffer_int64_atomics);
    assert!(m1.features.shader_buffer_float32_atomic_add);
    assert!(!m1.features.vulkan_memory_model);
    assert_eq!(m1.limits.max_compute_shared_memory_size, 32768);
    assert_eq!(m1.limits.max_push_constants_size, 4096);
    assert_eq!(m1.limits.max_compute_work_group_size, [1024, 1024, 1024]);
    assert_eq!(m1.limits.max_compute_work_group_count, [1073741824; 3]);
    assert_eq!(m1.limits.max_storage_buffer_range, 4294967295);
    assert_eq!(m1.limits.max_per_stage_descriptor_storage_buffers, 31);
    assert_eq!(m1.limits.max_bound_descriptor_sets, 8);
    assert_eq!(
        (
            m1.subgroups.min_subgroup_size,
            m1.subgroups.subgroup_size,
            m1.subgroups.max_subgroup_size
        ),
        (4, 32, 32)
    );
    assert!(m1.subgroups.subgroup_size_exact);
    assert!(!m1.subgroups.required_size_stages_compute);
    assert!(m1.subgroups.supported_stages_compute);
    assert_eq!(m1.subgroups.supported_operations, SubgroupOperations(0xbf));
    assert!(!m1.float_controls.shader_denorm_preserve_float32);
    assert!(
        m1.float_controls
            .shader_signed_zero_inf_nan_preserve_float32
    );
    assert!(!m1.float_controls.shader_rounding_mode_rte_float32);
    assert_eq!(
        m1.float_controls.denorm_behavior_independence,
        FloatControlsIndependence::None
    );
    assert!(m1.portability && m1.extensions.portability_subset);
    assert_eq!(m1.identity.vendor_id, Some(4203));
    assert_eq!(m1.identity.device_name.as_deref(), Some("Apple M1"));
    assert_eq!(m1.identity.driver_version.as_deref(), Some("0.2.2015"));
    assert_eq!(m1.identity.driver_name.as_deref(), Some("MoltenVK"));
    assert_eq!(
        m1.identity.driver_id.as_deref(),
        Some("VK_DRIVER_ID_MOLTENVK")
    );
    assert!(m1.subgroup_size_available(32));
    assert!(!m1.subgroup_size_available(16));

    // NVIDIA RTX 4070: f64, sub-groups of 32 only, 48 KiB of shared memory.
    let rtx = report("nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json");
    assert!(rtx.features.shader_float64 && rtx.features.shader_int64);
    assert!(rtx.features.shader_shared_int64_atomics);
    assert!(rtx.features.vulkan_memory_model_device_scope);
    assert_eq!(rtx.limits.max_compute_shared_memory_size, 49152);
    assert_eq!(
        rtx.limits.max_compute_work_group_count,
        [2147483647, 65535, 65535]
    );
    assert_eq!(
        (
            rtx.subgroups.min_subgroup_size,
            rtx.subgroups.subgroup_size,
            rtx.subgroups.max_subgroup_size
        ),
        (32, 32, 32)
    );
    assert!(rtx.subgroups.required_size_stages_compute);
    assert_eq!(rtx.identity.vendor_id, Some(0x10de));
    assert_eq!(rtx.identity.driver_name.as_deref(), Some("NVIDIA"));
    assert!(!rtx.portability);
    assert!(rtx.subgroup_size_available(32));

    // AMD RX 5700 (Windows driver): sub-groups 32..64, default 64; size control in compute.
    let amd = report("amd_radeon_rx_5700_2_0_353_windows_10.json");
    assert_eq!(
        (
            amd.subgroups.min_subgroup_size,
            amd.subgroups.subgroup_size,
            amd.subgroups.max_subgroup_size
        ),
        (32, 64, 64)
    );
    assert!(amd.subgroup_size_available(32) && amd.subgroup_size_available(64));
    assert!(!amd.subgroup_size_available(16));
    // Polaris: sub-groups of 64 only.
    let polaris = report("amd_radeon_rx_580_series__radv_polaris10__23_1_7_arch_unknown.json");
    assert_eq!(polaris.subgroups.subgroup_size, 64);
    assert!(!polaris.subgroup_size_available(32));

    // Intel Arc A770 (Mesa): no f64, sub-groups 8..32, 64-bit atomics on buffers only.
    let arc = report("intel_r__arc_tm__a770_graphics__dg2__26_1_2_arch_unknown.json");
    assert!(!arc.features.shader_float64);
    assert!(arc.features.shader_buffer_int64_atomics && !arc.features.shader_shared_int64_atomics);
    assert_eq!(
        (
            arc.subgroups.min_subgroup_size,
            arc.subgroups.max_subgroup_size
        ),
        (8, 32)
    );
    assert_eq!(arc.limits.max_compute_shared_memory_size, 49152);
    assert!(arc.subgroup_size_available(32));

    // An old report without maxComputeWorkGroupSize: the required (128, 128, 64).
    let skl = report("intel_r__hd_graphics_520__skl_gt2__21_1_1_arch_unknown.json");
    assert_eq!(skl.limits.max_compute_work_group_size, [128, 128, 64]);
    assert_eq!(skl.limits.max_compute_work_group_invocations, 1792);

    // llvmpipe (lavapipe's CPU back end): sub-groups of 8 on 256-bit vectors, 4 on 128-bit.
    let lp = report("llvmpipe__llvm_22_1_6__256_bits__26_1_99_cachyos_unknown.json");
    assert_eq!(lp.subgroups.subgroup_size, 8);
    assert!(!lp.subgroup_size_available(32));
    assert_eq!(lp.identity.vendor_id, Some(0x10005));
    assert!(lp.features.shader_float64 && lp.features.shader_shared_int64_atomics);
    let lp128 = report("llvmpipe__llvm_22_1_7__128_bits__26_1_99_macos_26_5.json");
    assert_eq!(lp128.subgroups.subgroup_size, 4);

    // GTX 680MX under MoltenVK: no size-control structures at all; sub-group size 1 from
    // VkPhysicalDeviceVulkan11Properties, basic operations only.
    let mx = report("nvidia_geforce_gtx_680mx_0_0_159_24_osx_10_15.json");
    assert_eq!(
        (
            mx.subgroups.min_subgroup_size,
            mx.subgroups.subgroup_size,
            mx.subgroups.max_subgroup_size
        ),
        (1, 1, 1)
    );
    assert_eq!(mx.subgroups.supported_operations, SubgroupOperations::BASIC);
    // its driver is named only in VkPhysicalDeviceVulkan12Properties
    assert_eq!(mx.identity.driver_name.as_deref(), Some("MoltenVK"));
    assert_eq!(mx.identity.driver_info.as_deref(), Some("1.2.0"));
    // Quadro K4200: no subgroupSize anywhere; min = max = 32 gives it.
    let k4200 = report("nvidia_quadro_k4200_0_0_157_53_osx_10_15.json");
    assert_eq!(k4200.subgroups.subgroup_size, 32);
    assert!(k4200.subgroups.subgroup_size_exact);
    // Apple M1 under MoltenVK 0.2.1911: no subgroupSize and a range of 4..32, so the default
    // size is not known (4 is a lower bound), and no size may be required in compute.
    let m1_old = report("apple_m1_0_2_1911_osx_11_2.json");
    assert_eq!(
        (
            m1_old.subgroups.min_subgroup_size,
            m1_old.subgroups.subgroup_size,
            m1_old.subgroups.max_subgroup_size
        ),
        (4, 4, 32)
    );
    assert!(!m1_old.subgroups.subgroup_size_exact);
    assert!(!m1_old.subgroup_size_available(4) && !m1_old.subgroup_size_available(32));
    // Intel HD 515 on Windows: no subgroupSize, 8..32, but sizes may be required in compute.
    let hd515 = report("intel_r__hd_graphics_515_0_402_1124_windows_10.json");
    assert!(!hd515.subgroups.subgroup_size_exact);
    assert!(hd515.subgroup_size_available(8) && hd515.subgroup_size_available(32));
    // Apple M5 under KosmicKrisp: a conformant driver on Metal, not a portability device.
    let m5 = report("apple_m5_26_0_99_macos_26_4_1.json");
    assert!(!m5.portability);
    assert_eq!(m5.identity.driver_name.as_deref(), Some("KosmicKrisp"));
    // its VkPhysicalDeviceVulkan12Properties.driverID is null; the driver structure's is taken
    assert_eq!(m5.identity.driver_id.as_deref(), Some("_KHR"));
}

#[test]
fn requirement_profiles() {
    let roadmap = requirement("VP_KHR_roadmap_2022.json", None);
    assert_eq!(roadmap.kind, DescriptionKind::RequirementProfile);
    assert_eq!(roadmap.identity.profile_name, "VP_KHR_roadmap_2022");
    assert_eq!(roadmap.api_version, ApiVersion::new(1, 3, 204));
    assert!(roadmap.features.buffer_device_address);
    assert!(
        roadmap.features.vulkan_memory_model && roadmap.features.vulkan_memory_model_device_scope
    );
    assert!(roadmap.features.subgroup_size_control && roadmap.features.compute_full_subgroups);
    assert!(roadmap.features.shader_subgroup_extended_types);
    assert!(!roadmap.features.shader_float64 && !roadmap.features.shader_int8);
    assert_eq!(roadmap.limits.max_compute_work_group_invocations, 256);
    assert_eq!(roadmap.limits.max_compute_work_group_size, [256, 256, 64]);
    assert_eq!(roadmap.limits.max_per_stage_descriptor_storage_buffers, 30);
    // not in the profile: the required values
    assert_eq!(roadmap.limits.max_compute_shared_memory_size, 16384);
    assert_eq!(roadmap.limits.max_push_constants_size, 128);
    assert_eq!(roadmap.limits.max_storage_buffer_range, 1 << 27);
    assert_eq!(roadmap.subgroups.subgroup_size, 4);
    assert!(!roadmap.subgroups.subgroup_size_exact);
    assert!(roadmap.subgroups.size_range_is_empty());
    assert!(!roadmap.subgroup_size_available(4) && !roadmap.subgroup_size_available(32));
    assert_eq!(
        roadmap.subgroups.supported_operations,
        SubgroupOperations(0xbf)
    );
    assert!(
        roadmap
            .float_controls
            .shader_signed_zero_inf_nan_preserve_float32
    );
    assert!(!roadmap.float_controls.shader_denorm_preserve_float32);
    assert!(!roadmap.portability);

    let android = requirement("VP_ANDROID_baseline_2022.json", None);
    assert_eq!(android.api_version, ApiVersion::new(1, 1, 106));
    assert!(android.features.shader_int16 && !android.features.shader_float16);
    assert_eq!(android.limits.max_compute_shared_memory_size, 16384);
    assert_eq!(android.limits.max_storage_buffer_range, 134217728);
    assert_eq!(android.subgroups.subgroup_size, 1);
    assert_eq!(
        android.subgroups.supported_operations,
        SubgroupOperations::BASIC
    );
    assert!(android.subgroups.supported_stages_compute);

    // The first of four profiles, and one by name.
    let d2022 = requirement("VP_LUNARG_desktop_baseline.json", None);
    assert_eq!(
        d2022.identity.profile_name,
        "VP_LUNARG_desktop_baseline_2022"
    );
    assert!(d2022.features.storage_buffer_8bit_access && d2022.features.shader_int8);
    assert!(!d2022.features.buffer_device_address);
    assert_eq!(d2022.limits.max_storage_buffer_range, 1073741820);
    assert_eq!(
        (
            d2022.subgroups.min_subgroup_size,
            d2022.subgroups.max_subgroup_size
        ),
        (64, 1)
    );
    let d2024 = requirement(
        "VP_LUNARG_desktop_baseline.json",
        Some("VP_LUNARG_desktop_baseline_2024"),
    );
    assert_eq!(d2024.api_version, ApiVersion::new(1, 2, 197));
    assert!(d2024.features.buffer_device_address && d2024.features.shader_shared_float32_atomics);
    assert_eq!(d2024.limits.max_compute_shared_memory_size, 32768);
    assert_eq!(d2024.limits.max_compute_work_group_count, [65535; 3]);
    assert_eq!(d2024.subgroups.subgroup_size, 32);
    assert_eq!(
        (
            d2024.subgroups.min_subgroup_size,
            d2024.subgroups.max_subgroup_size
        ),
        (64, 32)
    );
    let d2026 = requirement(
        "VP_LUNARG_desktop_baseline.json",
        Some("VP_LUNARG_desktop_baseline_2026"),
    );
    assert!(d2026.features.shader_int64 && d2026.features.vulkan_memory_model);
    assert_eq!(d2026.limits.max_push_constants_size, 256);
    assert_eq!(d2026.limits.max_compute_work_group_invocations, 1024);

    // The minimum requirements: every limit is the required one.
    let min10 = requirement("VP_LUNARG_minimum_requirements.json", None);
    assert_eq!(
        min10.identity.profile_name,
        "VP_LUNARG_minimum_requirements_1_0"
    );
    assert_eq!(min10.api_version, ApiVersion::new(1, 0, 68));
    assert_eq!(min10.features, Default::default());
    let l = &min10.limits;
    let r = VULKAN_1_0_REQUIRED_LIMITS;
    assert_eq!(
        (
            l.max_compute_shared_memory_size,
            l.max_compute_work_group_invocations,
            l.max_compute_work_group_size,
            l.max_compute_work_group_count,
            l.max_push_constants_size,
            l.max_storage_buffer_range,
            l.max_per_stage_descriptor_storage_buffers,
            l.max_bound_descriptor_sets
        ),
        (
            r.max_compute_shared_memory_size,
            r.max_compute_work_group_invocations,
            r.max_compute_work_group_size,
            r.max_compute_work_group_count,
            r.max_push_constants_size,
            r.max_storage_buffer_range,
            r.max_per_stage_descriptor_storage_buffers,
            r.max_bound_descriptor_sets
        )
    );
    assert_eq!(
        min10.subgroups.supported_operations,
        SubgroupOperations::empty()
    );
    let min14 = requirement(
        "VP_LUNARG_minimum_requirements.json",
        Some("VP_LUNARG_minimum_requirements_1_4"),
    );
    let r = VULKAN_1_4_REQUIRED_LIMITS;
    assert_eq!(
        min14.limits.max_push_constants_size,
        r.max_push_constants_size
    );
    assert_eq!(
        min14.limits.max_bound_descriptor_sets,
        r.max_bound_descriptor_sets
    );
    assert_eq!(
        min14.limits.max_compute_work_group_size,
        r.max_compute_work_group_size
    );
    assert!(min14.features.shader_int16 && min14.features.shader_int8);
    assert!(min14.features.buffer_device_address && min14.features.shader_float_controls2);
    assert!(
        min14
            .float_controls
            .shader_signed_zero_inf_nan_preserve_float16
    );
    assert!(min14
        .subgroups
        .supported_operations
        .contains(SubgroupOperations::ROTATE_CLUSTERED));
}

#[test]
fn intersect_profile_and_device() {
    let roadmap = requirement("VP_KHR_roadmap_2022.json", None);
    let rtx = report("nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json");
    let both = roadmap.intersect(&rtx);
    let mut other_way = rtx.intersect(&roadmap);
    other_way.notes = both.notes.clone();
    assert_eq!(both, other_way, "the same both ways but for the notes");
    assert_eq!(both.kind, DescriptionKind::DeviceReport);
    assert_eq!(both.identity, rtx.identity);
    assert_eq!(both.api_version, ApiVersion::new(1, 3, 204));
    assert!(
        !both.features.shader_float64,
        "the roadmap does not promise f64"
    );
    assert!(both.features.buffer_device_address);
    assert_eq!(both.limits.max_compute_shared_memory_size, 16384);
    assert_eq!(both.limits.max_compute_work_group_invocations, 256);
    assert_eq!(both.limits.max_compute_work_group_size, [256, 256, 64]);
    // the roadmap's range is empty: the device's is kept, with a note
    assert_eq!(
        (
            both.subgroups.min_subgroup_size,
            both.subgroups.subgroup_size,
            both.subgroups.max_subgroup_size
        ),
        (32, 32, 32)
    );
    assert!(both.subgroups.subgroup_size_exact);
    assert_eq!(
        both.notes,
        [
            "intersection of `VP_KHR_roadmap_2022` and `VP_GPUINFO_NVIDIA_GeForce_RTX_4070_551_61_0_0_windows_11`",
            "sub-group size ranges 32..32 (`VP_GPUINFO_NVIDIA_GeForce_RTX_4070_551_61_0_0_windows_11`) and 128..1 (`VP_KHR_roadmap_2022`) do not intersect; kept 32..32 of `VP_GPUINFO_NVIDIA_GeForce_RTX_4070_551_61_0_0_windows_11`"
        ]
    );

    // Two devices: what both offer.
    let m1 = report("apple_m1_0_2_2015_osx_14_3.json");
    let amd = report("amd_radeon_rx_5700_2_0_353_windows_10.json");
    let x = amd.intersect(&m1);
    assert!(!x.features.shader_float64 && !x.features.shader_buffer_int64_atomics);
    assert!(x.features.shader_float16);
    assert!(x.portability);
    assert_eq!(x.limits.max_push_constants_size, 256);
    assert_eq!(x.limits.max_compute_shared_memory_size, 32768);
    assert_eq!(
        (x.subgroups.min_subgroup_size, x.subgroups.max_subgroup_size),
        (32, 32)
    );
    assert_eq!(x.subgroups.subgroup_size, 64);
    assert!(!x.subgroups.required_size_stages_compute);
    assert_eq!(
        x.notes[1],
        "default sub-group sizes differ: 64 (`VP_GPUINFO_AMD_Radeon_RX_5700_2_0_353_windows_10`) and 32 (`VP_GPUINFO_Apple_M1_0_2_2015_osx_14_3`); kept 64"
    );
}

#[test]
fn intersect_with_a_profile_that_bounds_the_sub_group_range() {
    let profile = r#"{
        "profiles": {"VP_TEST_sizes": {"version": 1, "api-version": "1.3.0",
            "label": "sizes", "capabilities": ["sizes"]}},
        "capabilities": {"sizes": {
            "features": {"VkPhysicalDeviceSubgroupSizeControlFeatures": {
                "subgroupSizeControl": true, "computeFullSubgroups": true}},
            "properties": {"VkPhysicalDeviceSubgroupSizeControlProperties": {
                "minSubgroupSize": 8, "maxSubgroupSize": 32,
                "requiredSubgroupSizeStages": ["VK_SHADER_STAGE_COMPUTE_BIT"]}}}}
    }"#;
    let p = DeviceDescription::from_profile_json(profile, "sizes.json").unwrap();
    assert_eq!(
        (p.subgroups.min_subgroup_size, p.subgroups.max_subgroup_size),
        (8, 32)
    );
    let amd = report("amd_radeon_rx_5700_2_0_353_windows_10.json");
    let x = p.intersect(&amd);
    assert_eq!(
        (x.subgroups.min_subgroup_size, x.subgroups.max_subgroup_size),
        (32, 32)
    );
    assert_eq!(x.notes.len(), 1);
    assert!(x.subgroup_size_available(32) && !x.subgroup_size_available(16));
    // 64 stays available: it is the size the device runs with when no size is required
    assert_eq!(x.subgroups.subgroup_size, 64);
    assert!(x.subgroup_size_available(64));
    assert!(p.subgroup_size_available(8) && p.subgroup_size_available(16));
    assert!(!p.subgroup_size_available(12) && !p.subgroup_size_available(64));
}

#[test]
fn descriptions_round_trip_through_json() {
    let d = report("intel_r__arc_tm__b580_graphics_0_406_632_windows_10.json");
    let text = serde_json::to_string(&d).unwrap();
    let back: DeviceDescription = serde_json::from_str(&text).unwrap();
    assert_eq!(back, d);
}

/// The distinct PISA-relevant combinations among the 58 reports (docs/devices.md has the
/// table this prints).
#[test]
fn distinct_pisa_feature_combinations() {
    let mut keys: BTreeMap<PisaFeatureKey, Vec<String>> = BTreeMap::new();
    for (file, d) in all_reports() {
        keys.entry(pisa_feature_key(&d)).or_default().push(file);
    }
    for (k, files) in &keys {
        println!("{} | {} | {}", k, files.len(), files.join(", "));
    }
    assert_eq!(keys.len(), EXPECTED_COMBINATIONS);
    // Without the shared-memory and push-constant buckets (which a program that fits every
    // device does not see), and then also without f32 denormal preservation.
    let coarser = |clear_denorm: bool| {
        keys.keys()
            .map(|k| {
                let mut k = k.clone();
                k.shared_kib = 0;
                k.push_bytes = 0;
                k.f32_denorm_preserve &= !clear_denorm;
                k
            })
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    assert_eq!((coarser(false), coarser(true)), (20, 18));
    let rtx = report("nvidia_geforce_rtx_4070_551_61_0_0_windows_11.json");
    assert_eq!(
        pisa_feature_key(&rtx).to_string(),
        "f64 f16 i64 i16 i8 st16 st8 bda a64b a64s shm48K push256 sg32 sz32"
    );
    let m1 = report("apple_m1_0_2_1911_osx_11_2.json");
    assert_eq!(
        pisa_feature_key(&m1).to_string(),
        "f16 i16 i8 st16 st8 shm32K push4096 port"
    );
}

/// With the full key of `pisa_feature_key`.
const EXPECTED_COMBINATIONS: usize = 28;
