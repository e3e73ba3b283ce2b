//! The device-neutral API: what `pisa run`, the fuzzer and libraries need
//! from a device. The Vulkan [`Runtime`] implements it, and so does the
//! reference interpreter (`pisa-interp`'s `CpuDevice`), so a program runs
//! the same way on either, with the same data layout (docs/abi.md).

use crate::{
    BufferId, DeviceInfo, GlobalInfo, KernelInfo, Launch, LaunchTiming, ProgramId, Result, Runtime,
};

pub trait Device {
    fn device_info(&self) -> &DeviceInfo;
    /// Assembles nothing: loads a validated module (translating it as this
    /// device needs).
    fn load(&mut self, module: &pisa_translator::Module) -> Result<ProgramId>;
    /// Assembles PISA source files, links them into one program when there
    /// are several (`.export`/`.import`, spec 06 §2.5.2 and 08 §4.3.1), and
    /// loads it.
    fn load_sources(&mut self, sources: &[pisa_translator::link::Input]) -> Result<ProgramId> {
        let module =
            pisa_translator::link::link_program(sources).map_err(crate::RuntimeError::Assemble)?;
        self.load(&module)
    }
    /// Releases a loaded program (its code, pipelines and globals); every
    /// later use of its id is an error. A process that loads program after
    /// program on one device (the fuzzer) keeps its memory bounded this way.
    fn unload(&mut self, id: ProgramId);
    fn kernels(&self, id: ProgramId) -> Result<Vec<KernelInfo>>;
    fn globals(&self, id: ProgramId) -> Result<Vec<GlobalInfo>>;
    fn read_global(&self, id: ProgramId, name: &str) -> Result<Vec<u8>>;
    fn write_global(&mut self, id: ProgramId, name: &str, bytes: &[u8]) -> Result<()>;
    fn alloc_buffer(&mut self, size: u64) -> Result<BufferId>;
    fn upload(&mut self, id: BufferId, offset: u64, data: &[u8]) -> Result<()>;
    fn download(&self, id: BufferId) -> Result<Vec<u8>>;
    /// The buffer's device address (what a pointer argument holds).
    fn buffer_address(&self, id: BufferId) -> Result<u64>;
    fn free_buffer(&mut self, id: BufferId);
    /// Does ahead what a launch needs before it runs (on Vulkan, the
    /// driver's compilation of its pipelines), so that it can be timed and
    /// reported apart from the run.
    fn prepare(&mut self, l: &Launch) -> Result<()> {
        let _ = l;
        Ok(())
    }
    /// Runs one launch to completion.
    fn launch(&mut self, l: &Launch) -> Result<LaunchTiming>;
    /// The size of the printf buffer each launch of a kernel that prints
    /// gets (docs/abi.md, "The printf buffer").
    fn set_printf_buffer_size(&mut self, bytes: u32);
}

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
    fn set_printf_buffer_size(&mut self, bytes: u32) {
        Runtime::set_printf_buffer_size(self, bytes)
    }
}
