//! Typed errors. Every check that can fail before a launch has its own variant naming the
//! offending value, so callers can match on it and users see what to fix.

use thiserror::Error;

/// Errors returned by ferroflash.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// No CUDA driver library could be loaded on this machine.
    #[error("no CUDA driver found (libcuda.so not loadable): GPU work is unavailable on this machine")]
    NoDriver,
    /// The driver is present but reports no device with this ordinal.
    #[error("CUDA device {ordinal} not available ({count} devices)")]
    NoDevice { ordinal: usize, count: usize },
    /// The GPU's compute capability has no ferroflash module.
    #[error("unsupported GPU architecture sm_{major}{minor}: ferroflash ships PTX for sm_80+, sm_90a and sm_100a")]
    UnsupportedArch { major: i32, minor: i32 },
    /// A kernel needs an instruction the loaded module's arch lacks.
    #[error("kernel `{kernel}` is not in the {arch} module (needs {needs})")]
    KernelNotInArch { kernel: &'static str, arch: &'static str, needs: &'static str },
    /// A buffer is smaller than the operation needs.
    #[error("buffer `{name}` too small: {got} elements, need {need}")]
    BufferTooSmall { name: &'static str, got: usize, need: usize },
    /// A shape or option is invalid.
    #[error("invalid argument `{name}`: {why}")]
    InvalidArgument { name: &'static str, why: String },
    /// A CUDA driver call failed.
    #[error("CUDA driver error in {op}: {msg}")]
    Driver { op: &'static str, msg: String },
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wrap a cudarc driver error with the operation that failed.
    pub(crate) fn driver(op: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        move |e| Error::Driver { op, msg: format!("{e:?}") }
    }
}
