//! # ferroflash
//!
//! FlashAttention-4-style attention kernels for LLM inference, written in Rust, compiled to PTX
//! by rustc's NVPTX backend (one module per arch: sm_80, sm_90a, sm_100a), launched through
//! [cudarc]. See `docs/DESIGN.md` for the layers and the tile flow.
//!
//! Layers: [`module`] (embedded PTX, chosen by compute capability) and [`device`] (capabilities,
//! stream) feed `launch` (the only `unsafe` in this crate).

pub mod bench;
pub mod decode;
pub mod device;
pub mod error;
mod launch;
pub mod module;
pub mod plan;
pub mod quant;
#[doc(hidden)]
pub mod selftest;
pub mod split_model;

pub use decode::{
    decode, Balance, BatchTables, DecodeConfig, DecodePlan, DecodeTensors, Dtype16, Elem,
    Fp8Format, GraphCapacity, RawTensors, ScaleLayout, Splits, TailSplit, Timeline, TimelineRecord,
    TILE_STAMPS_BUILD,
};
pub use device::{driver_present, Device, DeviceCaps};
pub use error::{Error, Result};
pub use ferroflash_contract::KvLayout;
pub use launch::LaunchDims;
pub use module::ModuleArch;
