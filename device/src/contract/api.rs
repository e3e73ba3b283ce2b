//! The device trait: what `pisa run`, the Python module, the fuzzer and
//! libraries need from a device. The Vulkan runtime (`pisa-vk-runtime`)
//! implements it, and so does the reference interpreter (`pisa-interp`'s
//! `CpuDevice`), so a program runs the same way on either, with the same
//! data layout (docs/abi.md).

use super::{
    BufferId, DeviceInfo, GlobalInfo, KernelInfo, Launch, LaunchTiming, ProgramId, Result,
    RuntimeError,
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
            pisa_translator::link::link_program(sources).map_err(RuntimeError::Assemble)?;
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
    /// Runs one launch as [`Device::launch`] does, asking `cancel` now and
    /// then whether to give up (e.g. the user pressed Ctrl-C). Giving up is
    /// [`RuntimeError::Interrupted`]. The default asks once, before the
    /// launch starts; devices that can stop waiting for a running launch
    /// (both of this project's) ask while it runs.
    fn launch_with_cancel(
        &mut self,
        l: &Launch,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<LaunchTiming> {
        if cancel() {
            return Err(RuntimeError::Interrupted);
        }
        self.launch(l)
    }
    /// The size of the printf buffer each launch of a kernel that prints
    /// gets (docs/abi.md, "The printf buffer").
    fn set_printf_buffer_size(&mut self, bytes: u32);
}
