//! Helpers shared by the integration tests.

use std::process::Command;

#[allow(dead_code)]
pub mod elementwise;

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
