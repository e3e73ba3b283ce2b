//! Errors of reading a Vulkan Profiles JSON file. Every message names the file and, where the
//! fault is in the JSON, the path to the faulty value (`capabilities.device.features.
//! VkPhysicalDeviceFeatures.shaderFloat64`), or the line and column for text that is not JSON.

use thiserror::Error;

/// Why a Vulkan Profiles JSON file could not be read into a
/// [`DeviceDescription`](crate::DeviceDescription).
#[derive(Debug, Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("{file}: cannot read the file: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("{file}:{line}:{column}: not JSON: {message}")]
    NotJson {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON does not have the layout of a Vulkan Profiles file (schema `profiles-0.8`):
    /// a required member is missing or a value has the wrong type.
    #[error("{file}: {path}: {message}")]
    Schema {
        file: String,
        path: String,
        message: String,
    },
    /// The profile asked for is not in the file.
    #[error("{file}: profiles: no profile named `{name}`; the file has {}", list_names(.available))]
    UnknownProfile {
        file: String,
        name: String,
        available: Vec<String>,
    },
    /// Values that cannot all be true of one device (a device report only).
    #[error("{file}: {path}: {message}")]
    Contradiction {
        file: String,
        path: String,
        message: String,
    },
    /// A valid construct of the format that this reader does not interpret (rather than
    /// reading it wrongly).
    #[error("{file}: {path}: {message}")]
    Unsupported {
        file: String,
        path: String,
        message: String,
    },
}

fn list_names(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
