//! The Vulkan [`Runtime`] as a [`Device`] (the device contract of
//! `pisa-device`).

use crate::{
    BufferId, Device, DeviceInfo, GlobalInfo, KernelInfo, Launch, LaunchTiming, ProgramId, Result,
    Runtime,
};

impl Device for Runtime {
    fn device_info(&self) -> &DeviceInfo {
        Runtime::device_info(self)
    }
    fn load(&mut self, module: &pisa_translator::Module) -> Result<ProgramId> {
        Runtime::load(self, module)
    }
    fn unload(&mut self, id: ProgramId) {
        Runtime::unload(self, id)
    }
    fn kernels(&self, id: ProgramId) -> Result<Vec<KernelInfo>> {
        Runtime::kernels(self, id)
    }
    fn globals(&self, id: ProgramId) -> Result<Vec<GlobalInfo>> {
        Runtime::globals(self, id)
    }
    fn read_global(&self, id: ProgramId, name: &str) -> Result<Vec<u8>> {
        Runtime::read_global(self, id, name)
    }
    fn write_global(&mut self, id: ProgramId, name: &str, bytes: &[u8]) -> Result<()> {
        Runtime::write_global(self, id, name, bytes)
    }
    fn alloc_buffer(&mut self, size: u64) -> Result<BufferId> {
        Runtime::alloc_buffer(self, size)
    }
    fn upload(&mut self, id: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        Runtime::upload(self, id, offset, data)
    }
    fn download(&self, id: BufferId) -> Result<Vec<u8>> {
        Runtime::download(self, id)
    }
    fn buffer_address(&self, id: BufferId) -> Result<u64> {
        Runtime::buffer_address(self, id)
    }
    fn free_buffer(&mut self, id: BufferId) {
        Runtime::free_buffer(self, id)
    }
    fn prepare(&mut self, l: &Launch) -> Result<()> {
        Runtime::prepare(self, l)
    }
    fn launch(&mut self, l: &Launch) -> Result<LaunchTiming> {
        Runtime::launch(self, l)
    }
    fn launch_with_cancel(
        &mut self,
        l: &Launch,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<LaunchTiming> {
        Runtime::launch_with_cancel(self, l, cancel)
    }
    fn set_printf_buffer_size(&mut self, bytes: u32) {
        Runtime::set_printf_buffer_size(self, bytes)
    }
}
