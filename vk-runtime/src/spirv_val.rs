//! SPIR-V that callers bring (`Runtime::load_spirv`, `pisa run --spirv`) is
//! validated before it reaches the driver: invalid SPIR-V is undefined
//! behaviour for a Vulkan driver (a crash, a hang, or a kernel that computes
//! something else). The validator is SPIRV-Tools' `spirv-val`, for the
//! environment the ABI targets (docs/abi.md: Vulkan 1.2). The translator's
//! own output needs no second check: its tests run every module through
//! `spirv-val`.

use crate::{Result, RuntimeError};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `--target-env` of the ABI.
pub const TARGET_ENV: &str = "vulkan1.2";

/// Runs `spirv-val` on a module: `Ok` when it is valid SPIR-V for Vulkan
/// 1.2; an error with the validator's message, or saying that `spirv-val`
/// is not installed.
pub fn validate(words: &[u32]) -> Result<()> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "pisa-load-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| {
        RuntimeError::BadSpirv(format!(
            "cannot validate the module: cannot write {}: {e}",
            path.display()
        ))
    })?;
    let out = Command::new("spirv-val")
        .args(["--target-env", TARGET_ENV])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| {
        RuntimeError::BadSpirv(format!(
            "cannot validate the module: spirv-val (SPIRV-Tools; Debian and Ubuntu: apt install spirv-tools) could not be run ({e}); invalid SPIR-V is undefined behaviour for a Vulkan driver, so pisa loads no SPIR-V it has not validated"
        ))
    })?;
    if out.status.success() {
        return Ok(());
    }
    let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let msg = if msg.is_empty() {
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    } else {
        msg
    };
    Err(RuntimeError::BadSpirv(format!(
        "the module is not valid SPIR-V for Vulkan 1.2 (spirv-val --target-env {TARGET_ENV}): {msg}"
    )))
}
