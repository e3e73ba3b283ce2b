//! The pipeline cache, kept on disk per device so a second run skips the
//! driver's shader compilation.

use crate::error::VkContext;
use ash::vk;
use std::path::{Path, PathBuf};

/// `$XDG_CACHE_HOME/pisa` or `~/.cache/pisa`, one file per device and driver.
pub fn path(props: &vk::PhysicalDeviceProperties) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    let uuid: String = props
        .pipeline_cache_uuid
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(base.join("pisa").join(format!(
        "pipelines-{:04x}-{:04x}-{uuid}.bin",
        props.vendor_id, props.device_id
    )))
}

pub fn create(device: &ash::Device, path: Option<&Path>) -> crate::Result<vk::PipelineCache> {
    let data = path.and_then(|p| std::fs::read(p).ok()).unwrap_or_default();
    let info = vk::PipelineCacheCreateInfo::default().initial_data(&data);
    match unsafe { device.create_pipeline_cache(&info, None) } {
        Ok(c) => Ok(c),
        // a stale or corrupt file: start empty
        Err(_) => {
            unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                .vk("vkCreatePipelineCache")
        }
    }
}

pub fn save(device: &ash::Device, cache: vk::PipelineCache, path: Option<&Path>) {
    let Some(path) = path else { return };
    if let Ok(data) = unsafe { device.get_pipeline_cache_data(cache) } {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // write then rename, so concurrent runs never read half a file
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}
