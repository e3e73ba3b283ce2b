//! The pipeline cache, kept on disk per device so a second run skips the
//! driver's shader compilation.

use crate::error::VkContext;
use ash::vk;
use std::path::{Path, PathBuf};

/// `$XDG_CACHE_HOME/pisa` or `~/.cache/pisa`: the pipeline caches and the
/// probe caches (`probe.rs`).
pub fn dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("pisa"))
}

/// The pipeline cache file in [`dir`], one per device and driver.
pub fn path(props: &vk::PhysicalDeviceProperties) -> Option<PathBuf> {
    let uuid: String = props
        .pipeline_cache_uuid
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(dir()?.join(format!(
        "pipelines-{:04x}-{:04x}-{uuid}.bin",
        props.vendor_id, props.device_id
    )))
}

/// The largest pipeline cache file read; a larger one is ignored. A cache
/// holds the driver's code for the pipelines compiled so far, a few hundred
/// KiB for hundreds of kernels on lavapipe: this is far beyond that, and far
/// below what would exhaust memory.
pub const MAX_BYTES: u64 = 256 << 20;

/// The bytes of the cache file at `path`; nothing when there is none yet. A
/// file that is not a regular one (a FIFO would block the read forever, a
/// link to /dev/zero never end it), is larger than [`MAX_BYTES`] or cannot
/// be read is ignored with a warning on stderr: the runtime then starts with
/// an empty cache, and `save` replaces the file.
fn read(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let warn = |why: &str| {
        eprintln!(
            "warning: ignoring the pipeline cache {}: {why}",
            path.display()
        );
        Vec::new()
    };
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    // opening a FIFO for reading waits for a writer, unless non-blocking
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NONBLOCK);
    let file = match open.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => return warn(&e.to_string()),
    };
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return warn(&e.to_string()),
    };
    if !meta.is_file() {
        return warn("it is not a regular file");
    }
    if meta.len() > MAX_BYTES {
        return warn(&format!(
            "it holds {} bytes, more than the {MAX_BYTES} a pipeline cache may have",
            meta.len()
        ));
    }
    // (bounded again, should the file grow meanwhile)
    let mut data = Vec::new();
    match file.take(MAX_BYTES + 1).read_to_end(&mut data) {
        Ok(n) if n as u64 > MAX_BYTES => warn(&format!(
            "it holds more than the {MAX_BYTES} bytes a pipeline cache may have"
        )),
        Ok(_) => data,
        Err(e) => warn(&e.to_string()),
    }
}

pub fn create(device: &ash::Device, path: Option<&Path>) -> crate::Result<vk::PipelineCache> {
    let data = path.map(read).unwrap_or_default();
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
