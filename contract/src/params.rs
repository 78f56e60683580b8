//! `#[repr(C)]` kernel parameter blocks, passed by value to the kernels.

/// Parameters of the primitive self-test kernels: device addresses of an input and an output.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct SelfTestParams {
    /// Input buffer (global address).
    pub input: u64,
    /// Output buffer (global address).
    pub output: u64,
    /// Elements in `input` (test specific).
    pub n: u32,
    /// Test-specific selector.
    pub mode: u32,
}
