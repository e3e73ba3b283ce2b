//! Portability devices (MoltenVK on Apple GPUs, issue "Any Vulkan GPU",
//! item 2): a device that implements only a subset of Vulkan says so with
//! `VK_KHR_portability_subset`, and since Vulkan loader 1.3.216 the loader
//! lists such devices only to an instance created with
//! `VK_KHR_portability_enumeration` and `ENUMERATE_PORTABILITY_KHR`. So the
//! instance asks for both whenever the loader offers the extension, and a
//! device that lists `VK_KHR_portability_subset` gets it enabled, as the
//! Vulkan specification requires ("If the VK_KHR_portability_subset
//! extension is included in pProperties of vkEnumerateDeviceExtensionProperties,
//! ppEnabledExtensionNames must include it").
//!
//! What the subset takes away (`VkPhysicalDevicePortabilitySubsetFeaturesKHR`:
//! events, image view swizzles and formats, sampler LOD bias, triangle fans,
//! separate stencil masks, tessellation and shader-interpolation features)
//! is all graphics or events, none of which PISA uses; its one limit,
//! `minVertexInputBindingStrideAlignment`, is about vertex input. So nothing
//! more needs respecting; `pisa devices` names portability devices
//! (`DeviceDescription::portability`).

use ash::vk;
use std::ffi::CStr;

/// The instance extensions and flags to add where the loader offers the
/// extensions named by `available` (its `vkEnumerateInstanceExtensionProperties`).
pub fn instance_additions<'a>(
    available: impl IntoIterator<Item = &'a CStr>,
) -> (Vec<&'static CStr>, vk::InstanceCreateFlags) {
    let name = ash::khr::portability_enumeration::NAME;
    if available.into_iter().any(|n| n == name) {
        (
            vec![name],
            vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR,
        )
    } else {
        (Vec::new(), vk::InstanceCreateFlags::empty())
    }
}

/// The device extensions to enable on a device that lists `available`
/// (its `vkEnumerateDeviceExtensionProperties`).
pub fn device_extensions<'a>(available: impl IntoIterator<Item = &'a CStr>) -> Vec<&'static CStr> {
    let name = ash::khr::portability_subset::NAME;
    if available.into_iter().any(|n| n == name) {
        vec![name]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instance_enumerates_portability_devices_where_the_loader_can() {
        let (exts, flags) =
            instance_additions([c"VK_KHR_surface", c"VK_KHR_portability_enumeration"]);
        assert_eq!(exts, [c"VK_KHR_portability_enumeration"]);
        assert_eq!(flags, vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR);
        // an older loader: neither the extension nor the flag (the flag
        // without the extension is an error at vkCreateInstance)
        let (exts, flags) = instance_additions([c"VK_KHR_surface"]);
        assert!(exts.is_empty());
        assert!(flags.is_empty());
    }

    #[test]
    fn a_portability_device_gets_its_subset_enabled() {
        assert_eq!(
            device_extensions([c"VK_KHR_portability_subset", c"VK_KHR_swapchain"]),
            [c"VK_KHR_portability_subset"]
        );
        assert!(device_extensions([c"VK_KHR_swapchain"]).is_empty());
    }
}
