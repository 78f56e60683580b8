//! The contract between the ferroflash host crate and its PTX kernels.
//!
//! Everything the host computes and the device reads is defined here, once, and compiled for
//! both `x86_64` (host) and `nvptx64` (kernels): `#[repr(C)]` kernel parameters, paged-KV
//! address math, the softmax-state merge, the shared-memory plan, fp8 conversions and the
//! kernel entry names. The crate is `no_std`, has no dependencies and no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]

pub mod decode;
pub mod fp8;
pub mod names;
pub mod paged;
pub mod params;
pub mod smem;
pub mod softmax;

pub use fp8::Fp8Format;
pub use paged::{KvLayout, PagedKvLayout};
pub use softmax::SoftmaxState;
