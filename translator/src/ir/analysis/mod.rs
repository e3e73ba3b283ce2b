//! Analyses over the IR, each in its own file. They read the IR and never
//! change it; passes and back ends compute the ones they need.

pub mod calls;
pub mod cfg;
pub mod dominators;
pub mod loops;
pub mod subgroups;
pub mod summary;
pub mod uniformity;

pub use calls::CallGraph;
pub use cfg::Cfg;
pub use dominators::Dominators;
pub use loops::Loops;
pub use summary::Summary;
pub use uniformity::Uniformity;
