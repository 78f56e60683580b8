//! Typed tiles above `arch`: swizzled shared-memory row tiles, MMA fragments, and the 16-bit
//! element types the decode kernels are generic over.
//!
//! Swizzle (See Note [smem swizzle] in docs/DESIGN.md): a tile is `rows x chunks_per_row` 16-byte
//! chunks; chunk `c` of row `r` is stored at chunk `c ^ (r % 8)` of that row. `ldmatrix` reads
//! 8 rows of one chunk column at a time; with 256-byte rows those 8 rows would hit the same four
//! banks, the XOR spreads them over all 32.

use crate::arch::*;

/// Entry `i` of a u32 table the host validated and does not change during the launch (request
/// tables, page table, per-head scales), through the read-only path.
///
/// # Safety
/// `addr` is the table's device address and `i` is inside it.
#[inline(always)]
pub unsafe fn table_u32(addr: u64, i: u32) -> u32 {
    // SAFETY: forwarded to the caller.
    unsafe { ld_global_nc_u32(Gmem::from_addr(addr).add(i as u64)) }
}

/// A shared-memory tile of rows of 16-byte chunks, XOR-swizzled.
#[derive(Clone, Copy)]
pub struct SwizzledTile {
    pub base: Smem<u8>,
    /// 16-byte chunks per row (>= 8 so the XOR stays inside the row).
    pub chunks_per_row: u32,
}

impl SwizzledTile {
    /// Address of chunk `chunk` of row `row`.
    #[inline(always)]
    pub fn chunk(&self, row: u32, chunk: u32) -> Smem<[u32; 4]> {
        self.base.byte_add(16 * (row * self.chunks_per_row + (chunk ^ (row % 8))))
    }
}

/// A 16-bit floating element type with its tensor-core MMA and its f32 packing.
pub trait Elem16: Copy {
    /// `mma.sync m16n8k16` with f32 accumulators for this type.
    ///
    /// # Safety
    /// As [`mma_m16n8k16_bf16_f32`].
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4];
    /// Round two f32 into a packed pair (`lo` in the low half).
    fn pack(lo: f32, hi: f32) -> u32;
}

/// bfloat16.
#[derive(Clone, Copy)]
pub struct Bf16;
/// IEEE half.
#[derive(Clone, Copy)]
pub struct F16;

impl Elem16 for Bf16 {
    #[inline(always)]
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        // SAFETY: forwarded.
        unsafe { mma_m16n8k16_bf16_f32(a, b, c) }
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        cvt_rn_bf16x2_f32(lo, hi)
    }
}

impl Elem16 for F16 {
    #[inline(always)]
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        // SAFETY: forwarded.
        unsafe { mma_m16n8k16_f16_f32(a, b, c) }
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        cvt_rn_f16x2_f32(lo, hi)
    }
}

/// Lane decomposition used by every m16n8 fragment: `g = lane / 4` (row group), `t = lane % 4`.
#[derive(Clone, Copy)]
pub struct Quad {
    pub g: u32,
    pub t: u32,
}

impl Quad {
    #[inline(always)]
    pub fn of_lane(lane: u32) -> Quad {
        Quad { g: lane / 4, t: lane % 4 }
    }
}

/// Max over the four lanes of a quad (lanes sharing `g`).
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn quad_max(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        let v = v.max(f32::from_bits(shfl_sync_bfly_b32(v.to_bits(), 1)));
        v.max(f32::from_bits(shfl_sync_bfly_b32(v.to_bits(), 2)))
    }
}

/// Sum over the four lanes of a quad.
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn quad_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        let v = v + f32::from_bits(shfl_sync_bfly_b32(v.to_bits(), 1));
        v + f32::from_bits(shfl_sync_bfly_b32(v.to_bits(), 2))
    }
}
