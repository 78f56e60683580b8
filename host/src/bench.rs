//! Helpers for benchmarks: the streaming-read bandwidth probe (the "read ceiling" every decode
//! number is reported against; kernel in `kernels-gpu/src/kernels/bench.rs`).

pub use crate::launch::read_probe;
