//! Differential fuzzing of PISA devices.
