use crate::RuntimeError;
use ash::vk;

pub(crate) trait VkContext<T> {
    fn vk(self, call: &'static str) -> crate::Result<T>;
}

impl<T> VkContext<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> crate::Result<T> {
        self.map_err(|result| match result {
            vk::Result::ERROR_DEVICE_LOST => RuntimeError::DeviceLost,
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                RuntimeError::OutOfMemory(call.to_string())
            }
            result => RuntimeError::Vulkan {
                result: format!("{result:?}"),
                call,
            },
        })
    }
}

/// The error of a failed allocation of device memory.
pub(crate) fn allocation_error(e: gpu_allocator::AllocationError) -> RuntimeError {
    match e {
        gpu_allocator::AllocationError::OutOfMemory => {
            RuntimeError::OutOfMemory("allocation".into())
        }
        e => RuntimeError::OutOfMemory(e.to_string()),
    }
}
