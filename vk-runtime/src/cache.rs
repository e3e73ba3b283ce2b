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
    // SAFETY: `data` outlives the call, and is empty or a whole file that
    // `save` wrote (write, then rename) from vkGetPipelineCacheData of a device
    // with this vendor, device and pipeline-cache UUID (the path names them),
    // so its size is the one vkGetPipelineCacheData returned; the driver
    // checks the header and ignores incompatible data. (A file altered by
    // anything other than `save` is outside this argument.)
    match unsafe { device.create_pipeline_cache(&info, None) } {
        Ok(c) => Ok(c),
        // a stale or corrupt file: start empty
        Err(_) => {
            let empty = vk::PipelineCacheCreateInfo::default();
            // SAFETY: an empty pipeline cache on a live device.
            unsafe { device.create_pipeline_cache(&empty, None) }.vk("vkCreatePipelineCache")
        }
    }
}

pub fn save(device: &ash::Device, cache: vk::PipelineCache, path: Option<&Path>) {
    let Some(path) = path else { return };
    // SAFETY: `cache` was created on `device` and is not yet destroyed (the
    // runtime destroys it after its last save); pipeline caches are
    // internally synchronized, so concurrent pipeline creation is fine.
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
