//! Helpers for benchmarks: the streaming-read bandwidth probe (the "read ceiling" every decode
//! number is reported against).

use crate::device::Device;
use crate::error::Result;

/// Launch the read probe once over `buf` (see `kernels-gpu/src/kernels/bench.rs`).
pub fn read_probe(
    dev: &Device,
    buf: &cudarc::driver::CudaView<u8>,
    scratch: &mut cudarc::driver::CudaSlice<u32>,
    grid: u32,
    threads: u32,
) -> Result<()> {
    crate::launch::read_probe(dev, buf, scratch, grid, threads)
}
