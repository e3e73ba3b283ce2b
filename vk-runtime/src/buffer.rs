//! Device buffers: host-visible memory with a device address, which is what
//! pointer arguments and the data block carry.

use crate::error::VkContext;
use crate::{BufferId, Result, Runtime, RuntimeError};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;

pub(crate) struct Buffer {
    pub buffer: vk::Buffer,
    pub alloc: Option<Allocation>,
    pub size: u64,
    pub address: u64,
}

impl Buffer {
    pub fn new(rt: &mut Runtime, size: u64, name: &str) -> Result<Buffer> {
        // Vulkan buffers cannot be empty; keep a small one for zero-sized data
        let size = size.max(16);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info (size >= 16, exclusive sharing) on a
        // live device; SHADER_DEVICE_ADDRESS usage is allowed because the
        // device was created with bufferDeviceAddress (`Runtime::new`).
        let buffer = unsafe { rt.device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        // SAFETY: `buffer` was just created on this device.
        let requirements = unsafe { rt.device.get_buffer_memory_requirements(buffer) };
        let allocator = rt.allocator.as_mut().ok_or(RuntimeError::Unusable)?;
        let alloc = match allocator.allocate(&AllocationCreateDesc {
            name,
            requirements,
            // host-visible, so uploads and read-back are plain copies; on
            // discrete GPUs this is BAR or system memory (docs/abi.md)
            location: MemoryLocation::CpuToGpu,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        }) {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: `buffer` was created above on this device, is bound
                // to no memory and was never used by the device.
                unsafe { rt.device.destroy_buffer(buffer, None) };
                return Err(crate::error::allocation_error(e));
            }
        };
        // SAFETY: `buffer` is not yet bound; the allocator was created for
        // this device and allocated `alloc` from `requirements` (a memory type
        // in its memoryTypeBits, an offset with its alignment, at least its
        // size), with the DEVICE_ADDRESS flag (`buffer_device_address: true`).
        unsafe {
            rt.device
                .bind_buffer_memory(buffer, alloc.memory(), alloc.offset())
        }
        .vk("vkBindBufferMemory")?;
        let info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
        // SAFETY: the bufferDeviceAddress feature is enabled; `buffer` has
        // SHADER_DEVICE_ADDRESS usage and is bound wholly to one memory object
        // allocated with the DEVICE_ADDRESS flag (just above).
        let address = unsafe { rt.device.get_buffer_device_address(&info) };
        Ok(Buffer {
            buffer,
            alloc: Some(alloc),
            size,
            address,
        })
    }

    pub fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        self.alloc
            .as_mut()
            .and_then(|a| a.mapped_slice_mut())
            .ok_or_else(|| RuntimeError::BadLaunch("buffer memory is not host-visible".into()))
    }

    pub fn bytes(&self) -> Result<&[u8]> {
        self.alloc
            .as_ref()
            .and_then(|a| a.mapped_slice())
            .ok_or_else(|| RuntimeError::BadLaunch("buffer memory is not host-visible".into()))
    }

    /// The caller makes sure no submitted work still uses the buffer (nor,
    /// through its device address, its memory).
    pub fn destroy(mut self, device: &ash::Device, allocator: Option<&mut Allocator>) {
        if let (Some(a), Some(allocator)) = (self.alloc.take(), allocator) {
            let _ = allocator.free(a);
        }
        // SAFETY: `device` is the one that created the buffer (the runtime's
        // only device), the buffer is destroyed once (`self` is consumed), and
        // the callers (`Runtime::release_buffer`, `Runtime::drop`) ensure no
        // pending command uses it. Its memory was freed just before, which
        // Vulkan allows for a buffer that is no longer used.
        unsafe { device.destroy_buffer(self.buffer, None) };
    }
}

impl Runtime {
    /// Allocates a zero-filled buffer of `size` bytes.
    pub fn alloc_buffer(&mut self, size: u64) -> Result<BufferId> {
        self.usable()?;
        let mut b = Buffer::new(self, size, "pisa buffer")?;
        b.bytes_mut()?.fill(0);
        b.size = size;
        self.buffers.push(Some(b));
        Ok(BufferId::from_index(self.buffers.len() - 1))
    }

    /// A buffer holding `data`.
    pub fn buffer_from<T: bytemuck::Pod>(&mut self, data: &[T]) -> Result<BufferId> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let id = self.alloc_buffer(bytes.len() as u64)?;
        self.upload(id, 0, bytes)?;
        Ok(id)
    }

    fn buf(&self, id: BufferId) -> Result<&Buffer> {
        self.buffers
            .get(id.index())
            .and_then(|b| b.as_ref())
            .ok_or_else(|| RuntimeError::BadArgument(format!("buffer {} was freed", id.index())))
    }

    pub fn upload(&mut self, id: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        self.usable()?;
        let b = self
            .buffers
            .get_mut(id.index())
            .and_then(|b| b.as_mut())
            .ok_or_else(|| RuntimeError::BadArgument(format!("buffer {} was freed", id.index())))?;
        let size = b.size;
        let end = offset
            .checked_add(data.len() as u64)
            .filter(|&e| e <= size)
            .ok_or_else(|| {
                RuntimeError::BadArgument(format!(
                    "upload of {} bytes at {offset} exceeds the buffer's {size} bytes",
                    data.len()
                ))
            })?;
        b.bytes_mut()?[offset as usize..end as usize].copy_from_slice(data);
        Ok(())
    }

    pub fn download(&self, id: BufferId) -> Result<Vec<u8>> {
        self.usable()?;
        let b = self.buf(id)?;
        Ok(b.bytes()?[..b.size as usize].to_vec())
    }

    /// Typed read-back.
    pub fn read<T: bytemuck::Pod>(&self, id: BufferId) -> Result<Vec<T>> {
        let bytes = self.download(id)?;
        Ok(bytemuck::pod_collect_to_vec(
            &bytes[..bytes.len() / size_of::<T>() * size_of::<T>()],
        ))
    }

    /// The device address a pointer argument carries.
    pub fn buffer_address(&self, id: BufferId) -> Result<u64> {
        Ok(self.buf(id)?.address)
    }

    pub fn buffer_size(&self, id: BufferId) -> Result<u64> {
        Ok(self.buf(id)?.size)
    }

    pub fn free_buffer(&mut self, id: BufferId) {
        if self.poisoned {
            return;
        }
        if !self.in_flight.is_empty() {
            // a submission not yet waited for may use the buffer (through its
            // device address): let the device finish first
            // SAFETY: `&mut self` gives the external synchronization of the
            // runtime's one queue that vkDeviceWaitIdle needs.
            if unsafe { self.device.device_wait_idle() }.is_err() {
                self.poisoned = true;
                return;
            }
        }
        self.release_buffer(id);
    }

    /// Frees a buffer that no submission still uses (the caller knows).
    pub(crate) fn release_buffer(&mut self, id: BufferId) {
        if self.poisoned {
            return;
        }
        if let Some(b) = self.buffers.get_mut(id.index()).and_then(|b| b.take()) {
            b.destroy(&self.device, self.allocator.as_mut());
        }
    }
}
