//! The reference PISA device (`--device cpu`).
