//! Helpers shared by the integration tests.

use std::process::Command;

#[allow(dead_code)]
pub mod elementwise;

/// The Vulkan device of the tests that compare with the reference device
/// (lavapipe in CI: mesa-vulkan-drivers), with the validation layer, no
/// pipeline cache and a 60 s limit on a launch.
#[allow(dead_code)]
pub fn lavapipe() -> pisa_vk_runtime::Runtime {
    pisa_vk_runtime::Runtime::new(pisa_vk_runtime::RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        timeout: std::time::Duration::from_secs(60),
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// Runs spirv-val; `None` when it is not installed (CI always installs it).
#[allow(dead_code)]
pub fn spirv_val(words: &[u32], env: &str) -> Option<Result<(), String>> {
    let dir = std::env::temp_dir().join(format!("pisa-val-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let path = dir.join(format!(
        "m{}.spv",
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = match Command::new("spirv-val")
        .args(["--target-env", env])
        .arg(&path)
        .output()
    {
        Ok(o) => o,
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "spirv-val must be installed in CI"
            );
            return None;
        }
    };
    let _ = std::fs::remove_file(&path);
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}
