use crate::diag::Diagnostics;
use crate::Module;
pub fn assemble(_name: &str, _source: &str) -> Result<Module, Diagnostics> {
    todo!()
}
