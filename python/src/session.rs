//! A loaded program on its device, shared by the `Program` and its
//! `Buffer`s. Every use of the device goes through `Shared::with`, which
//! releases the GIL, then locks: other Python threads run meanwhile, and
//! no thread waits for the lock while holding the GIL.

use crate::device::Dev;
use crate::error::err;
use pisa_vk_runtime::{Device, ProgramId};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

pub struct Session {
    pub dev: Dev,
    pub prog: ProgramId,
}

#[derive(Clone)]
pub struct Shared(Arc<Mutex<Session>>);

impl Shared {
    pub fn new(s: Session) -> Shared {
        Shared(Arc::new(Mutex::new(s)))
    }

    /// Runs `f` on the device with the GIL released.
    pub fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn Device, ProgramId) -> Result<T, String> + Send,
    ) -> PyResult<T> {
        let r = py.detach(|| {
            let mut s = self.lock()?;
            let prog = s.prog;
            f(s.dev.get(), prog)
        });
        r.map_err(err)
    }

    /// Runs `f` on the device as `with` does, giving it the device of
    /// either kind (for what only one kind has).
    pub fn with_dev<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Dev, ProgramId) -> Result<T, String> + Send,
    ) -> PyResult<T> {
        let r = py.detach(|| {
            let mut s = self.lock()?;
            let prog = s.prog;
            f(&mut s.dev, prog)
        });
        r.map_err(err)
    }

    /// Reads the session with the GIL released.
    pub fn inspect<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Session) -> T + Send,
    ) -> PyResult<T> {
        let r = py.detach(|| self.lock().map(|s| f(&s)));
        r.map_err(err)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Session>, String> {
        // a panic while the device was in use (turned into a Python
        // exception by PyO3) may have left it half-updated
        self.0
            .lock()
            .map_err(|_| "the device is unusable after an earlier internal error".to_string())
    }

    /// Frees a buffer (from `Drop`, where there is no `Python` token). This
    /// may wait, with the GIL held, for a launch that another thread runs;
    /// that thread needs the GIL only after unlocking, so it cannot deadlock.
    pub fn free_buffer(&self, id: pisa_vk_runtime::BufferId) {
        if let Ok(mut s) = self.lock() {
            s.dev.get().free_buffer(id);
        }
    }

    pub fn same(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
