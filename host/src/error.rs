//! Typed errors. Every check that can fail before a launch has its own variant naming the
//! offending value, so callers can match on it and users see what to fix.

use thiserror::Error;

/// Errors returned by ferroflash.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// No CUDA driver library could be loaded on this machine.
    #[error(
        "no CUDA driver found (libcuda.so not loadable): GPU work is unavailable on this machine"
    )]
    NoDriver,
    /// The driver is present but reports no device with this ordinal.
    #[error("CUDA device {ordinal} not available ({count} devices)")]
    NoDevice { ordinal: usize, count: usize },
    /// The GPU's compute capability has no ferroflash module.
    #[error("unsupported GPU architecture sm_{major}{minor}: ferroflash ships PTX for sm_80+, sm_90a and sm_100a")]
    UnsupportedArch { major: i32, minor: i32 },
    /// A kernel needs an instruction the loaded module's arch lacks.
    #[error("kernel `{kernel}` is not in the {arch} module (needs {needs})")]
    KernelNotInArch {
        kernel: &'static str,
        arch: &'static str,
        needs: &'static str,
    },
    /// A buffer is smaller than the operation needs.
    #[error("buffer `{name}` too small: {got} elements, need {need}")]
    BufferTooSmall {
        name: &'static str,
        got: usize,
        need: usize,
    },
    /// A shape or option is invalid.
    #[error("invalid argument `{name}`: {why}")]
    InvalidArgument { name: &'static str, why: String },
    /// The batch has no request.
    #[error("empty batch: at least one request is needed")]
    EmptyBatch,
    /// Head dimension without a kernel.
    #[error(
        "unsupported head_dim {0}: supported are 64, 128, 256, and over bf16/fp16 Q any \
         multiple of 16 up to 256 (bf16/fp16 K/V) or 80, 96, 112 (an fp8 KV cache)"
    )]
    UnsupportedHeadDim(u32),
    /// q_heads is not a positive multiple of kv_heads, or their ratio is 8192 or more.
    #[error(
        "q_heads {q_heads} is not a positive multiple of kv_heads {kv_heads} (ratio below 8192)"
    )]
    HeadRatio { q_heads: u32, kv_heads: u32 },
    /// A request has 0 or more than 16 new tokens, or (graph plans' `update`) more than the
    /// capacity's `max_new_tokens`.
    #[error("request {request} has {q_len} new tokens; 1..=16 are supported (in graph mode, up to the capacity's max_new_tokens)")]
    NewTokens { request: usize, q_len: u32 },
    /// A page id is not below the pool's page count.
    #[error("request {request}: page id {page} at page-table entry {entry} is out of range (pool has {num_pages} pages)")]
    PageIdOutOfRange {
        request: usize,
        entry: usize,
        page: u32,
        num_pages: u32,
    },
    /// A request's KV length is over the kernels' limit (`ferroflash_contract::params::MAX_KV_LEN`).
    #[error("request {request}: kv_len {kv_len} is over the limit of {max} keys")]
    KvLenTooLong {
        request: usize,
        kv_len: u32,
        max: u32,
    },
    /// A request's KV length needs more pages than its page-table row gives.
    #[error("request {request}: kv_len {kv_len} needs {need} pages of {page_size}, page table gives {given}")]
    KvLenExceedsPages {
        request: usize,
        kv_len: u32,
        page_size: u32,
        need: u32,
        given: u32,
    },
    /// A CSR offset array is malformed.
    #[error("`{name}` malformed: {why}")]
    BadIndptr { name: &'static str, why: String },
    /// A tensor's element count does not match the shape.
    #[error("tensor `{name}` has {got} elements, expected {expected}")]
    ShapeMismatch {
        name: &'static str,
        got: usize,
        expected: usize,
    },
    /// A tensor's element type does not match the configured dtype.
    #[error(
        "tensor `{name}` has {got_bytes}-byte elements, the config's dtype needs {need_bytes}"
    )]
    DtypeMismatch {
        name: &'static str,
        got_bytes: usize,
        need_bytes: usize,
    },
    /// A tensor of `half::bf16` where the config needs f16, or of `half::f16` where it needs
    /// bf16 (`u16` and `u8` tensors carry no format and pass on their size alone).
    #[error("tensor `{name}` holds {got} elements, the config's dtype needs {need}")]
    ElemMismatch {
        name: &'static str,
        got: &'static str,
        need: &'static str,
    },
    /// A device address is not aligned as the kernels need.
    #[error("tensor `{name}` at {addr:#x} is not {align}-byte aligned")]
    Misaligned {
        name: &'static str,
        addr: u64,
        align: u64,
    },
    /// A tensor lives in another CUDA context (another device) than the plan's, or the plan
    /// (`name` "plan") is used with another context or module than it was built on.
    #[error("`{name}` belongs to another device, context or module than the one it is used with")]
    WrongDevice { name: &'static str },
    /// The workspace is smaller than the plan needs.
    #[error("workspace too small: {got} bytes, plan needs {need}")]
    WorkspaceTooSmall { got: usize, need: usize },
    /// A CUDA driver call failed.
    #[error("CUDA driver error in {op}: {msg}")]
    Driver { op: &'static str, msg: String },
}

/// Result with [`enum@Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wrap a cudarc driver error with the operation that failed.
    pub(crate) fn driver(op: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        move |e| Error::Driver {
            op,
            msg: format!("{e:?}"),
        }
    }
}
