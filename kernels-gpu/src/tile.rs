//! Typed tiles above `arch`: swizzled shared-memory row tiles, MMA fragments, and the 16-bit
//! element types the decode kernels are generic over.
//!
//! Swizzle (See Note [smem swizzle] in docs/DESIGN.md): a tile is `rows x chunks_per_row` 16-byte
//! chunks; chunk `c` of row `r` is stored at chunk `c ^ (r % 8)` of that row (rows of 8+ chunks),
//! or `c ^ ((r / 2) % 4)` for 4-chunk rows (fp8 head dim 64: two rows per 128 bytes). `ldmatrix`
//! reads 8 rows of one chunk column at a time; with 256-byte rows those 8 rows would hit the
//! same four banks, the XOR spreads them over all 32.

use crate::arch::*;
use ferroflash_contract::params::{TimelineEvent, NONE_ADDR, TIMELINE_WORDS};

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

/// Write `value` as event `ev` of CTA `block_idx_x()`'s record in a timeline buffer, if there is
/// one (`ferroflash bench --timeline`; the address is [`NONE_ADDR`] otherwise).
///
/// # Safety
/// A non-null `timeline` holds [`TIMELINE_WORDS`] u64 per CTA of the grid.
#[inline(always)]
pub unsafe fn timeline_stamp(timeline: u64, ev: TimelineEvent, value: u64) {
    if timeline != NONE_ADDR {
        let at = (block_idx_x() * TIMELINE_WORDS + ev as u32) as u64;
        // SAFETY: forwarded to the caller.
        unsafe { *Gmem::<u64>::from_addr(timeline).add(at).ptr() = value };
    }
}

/// A shared-memory tile of rows of 16-byte chunks, XOR-swizzled.
#[derive(Clone, Copy)]
pub struct SwizzledTile {
    pub base: Smem<u8>,
    /// 16-byte chunks per row: 4 or a multiple of 8 (the XOR stays inside the row).
    pub chunks_per_row: u32,
    /// 0: rows stored whole (`ldmatrix` layout). Otherwise the wgmma 128-byte-swizzle layout:
    /// each 128-byte (8-chunk) column of the rows is a block of this many bytes (rows x 128),
    /// chunk `c % 8` of row `r` at `(c % 8) ^ (r % 8)` in its row of the block.
    pub column_block_bytes: u32,
}

impl SwizzledTile {
    /// A tile in the `ldmatrix` layout.
    #[inline(always)]
    pub fn rows(base: Smem<u8>, chunks_per_row: u32) -> SwizzledTile {
        SwizzledTile { base, chunks_per_row, column_block_bytes: 0 }
    }
    /// Address of chunk `chunk` of row `row`.
    #[inline(always)]
    pub fn chunk(&self, row: u32, chunk: u32) -> Smem<[u32; 4]> {
        if self.column_block_bytes != 0 {
            return self.base.byte_add((chunk / 8) * self.column_block_bytes + row * 128 + 16 * ((chunk % 8) ^ (row % 8)));
        }
        let x = if self.chunks_per_row >= 8 { row % 8 } else { (row / 2) % 4 };
        self.base.byte_add(16 * (row * self.chunks_per_row + (chunk ^ x)))
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
    /// A packed f16 pair holding values this type represents exactly (fp8-decoded values), as
    /// a packed pair of this type.
    fn from_f16x2(h: u32) -> u32;
    /// `wgmma m64n64k16` of this type, both operands K-major in shared memory.
    ///
    /// # Safety
    /// As [`wgmma_m64n64k16_f32_bf16_ss`].
    #[cfg(target_feature = "sm_90a")]
    unsafe fn wgmma_ss(acc: &mut WgmmaAccM64N64, a_desc: u64, b_desc: u64, scale_d: bool);
    /// `wgmma m64n128k16` of this type, A from registers, B N-major in shared memory,
    /// accumulating.
    ///
    /// # Safety
    /// As [`wgmma_m64n128k16_f32_bf16_rs_tb`].
    #[cfg(target_feature = "sm_90a")]
    unsafe fn wgmma_rs_tb(acc: &mut WgmmaAccM64N128, a: [u32; 4], b_desc: u64);
    /// `wgmma m64n64k16` of this type, A from registers, B N-major in shared memory,
    /// accumulating (P·V at head dim 64).
    ///
    /// # Safety
    /// As [`wgmma_m64n64k16_f32_bf16_rs_tb`].
    #[cfg(target_feature = "sm_90a")]
    unsafe fn wgmma_rs_tb_n64(acc: &mut WgmmaAccM64N64, a: [u32; 4], b_desc: u64);
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
    #[inline(always)]
    fn from_f16x2(h: u32) -> u32 {
        cvt_rn_bf16x2_f32(cvt_f32_f16(h as u16), cvt_f32_f16((h >> 16) as u16))
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_ss(acc: &mut WgmmaAccM64N64, a_desc: u64, b_desc: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n64k16_f32_bf16_ss(acc, a_desc, b_desc, scale_d) }
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_rs_tb(acc: &mut WgmmaAccM64N128, a: [u32; 4], b_desc: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n128k16_f32_bf16_rs_tb(acc, a, b_desc, true) }
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_rs_tb_n64(acc: &mut WgmmaAccM64N64, a: [u32; 4], b_desc: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n64k16_f32_bf16_rs_tb(acc, a, b_desc, true) }
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
    #[inline(always)]
    fn from_f16x2(h: u32) -> u32 {
        h
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_ss(acc: &mut WgmmaAccM64N64, a_desc: u64, b_desc: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n64k16_f32_f16_ss(acc, a_desc, b_desc, scale_d) }
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_rs_tb(acc: &mut WgmmaAccM64N128, a: [u32; 4], b_desc: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n128k16_f32_f16_rs_tb(acc, a, b_desc, true) }
    }
    #[cfg(target_feature = "sm_90a")]
    #[inline(always)]
    unsafe fn wgmma_rs_tb_n64(acc: &mut WgmmaAccM64N64, a: [u32; 4], b_desc: u64) {
        // SAFETY: forwarded.
        unsafe { wgmma_m64n64k16_f32_f16_rs_tb(acc, a, b_desc, true) }
    }
}

/// An fp8 storage format: decoding two codes to two f16 (exact for both formats).
pub trait Fp8Kind: Copy {
    /// Codes `lo` (bits 0-7) and `hi` (bits 8-15) to a packed f16 pair (`lo` in the low half).
    fn to_f16x2(codes: u16) -> u32;
}

/// OCP fp8 E4M3 (FN: no infinities; S.1111.111 is NaN).
#[derive(Clone, Copy)]
pub struct E4m3;
/// OCP fp8 E5M2 (the top byte of an f16).
#[derive(Clone, Copy)]
pub struct E5m2;

/// `prmt` selector placing bytes 0 and 1 of `a` in the high bytes of two 16-bit halves.
const BYTES_TO_HALF_HIGH: u32 = 0x1404;

impl Fp8Kind for E4m3 {
    #[cfg(target_feature = "sm_89")]
    #[inline(always)]
    fn to_f16x2(codes: u16) -> u32 {
        cvt_rn_f16x2_e4m3x2(codes)
    }
    /// sm_80 has no fp8 conversion: move exponent and mantissa into f16 position and rebias by
    /// a multiply with 2^8 (exact, subnormals included); NaN codes become f16 NaN.
    #[cfg(not(target_feature = "sm_89"))]
    #[inline(always)]
    fn to_f16x2(codes: u16) -> u32 {
        let h = prmt_b32(codes as u32, 0, BYTES_TO_HALF_HIGH);
        let v = mul_rn_f16x2((h & 0x8000_8000) | ((h & 0x7f00_7f00) >> 1), 0x5c00_5c00);
        let lo = if codes & 0x7f == 0x7f { 0x7e00 } else { v & 0xffff };
        let hi = if (codes >> 8) & 0x7f == 0x7f { 0x7e00 } else { v >> 16 };
        lo | (hi << 16)
    }
}

impl Fp8Kind for E5m2 {
    #[inline(always)]
    fn to_f16x2(codes: u16) -> u32 {
        prmt_b32(codes as u32, 0, BYTES_TO_HALF_HIGH)
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

/// Butterfly reduction of `v` with `op` over the lanes that differ from this one only in the
/// lane-index bits `first..end` (masks `first, 2 first, ...` below `end`).
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
unsafe fn butterfly(mut v: f32, first: u32, end: u32, op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut m = first;
    while m < end {
        // SAFETY: forwarded.
        v = op(v, f32::from_bits(unsafe { shfl_sync_bfly_b32(v.to_bits(), m) }));
        m *= 2;
    }
    v
}

/// Max over the four lanes of a quad (lanes sharing `g`).
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn quad_max(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 1, 4, f32::max) }
}

/// Sum over the four lanes of a quad.
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn quad_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 1, 4, |a, b| a + b) }
}

/// Max over the eight lanes sharing `t` (lanes `t, t + 4, ..., t + 28`: one column of an
/// m16n8 C fragment's row groups).
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn column_max(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 4, 32, f32::max) }
}

/// Sum over the eight lanes sharing `t`.
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn column_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 4, 32, |a, b| a + b) }
}

/// Max over the 32 lanes of a warp.
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn warp_max(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 1, 32, f32::max) }
}

/// Sum over the 32 lanes of a warp.
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn warp_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe { butterfly(v, 1, 32, |a, b| a + b) }
}
