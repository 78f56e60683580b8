//! Operand formats of the decode CTA: how a stage's K and V rows become `mma m16n8k16` B
//! fragments, and how a Q row is staged in shared memory.
//!
//! 16-bit K/V ([`Kv16`]) are read with `ldmatrix` (K) and `ldmatrix.trans` (V) as they are.
//! fp8 K/V ([`Kv8`]) stay fp8 in the ring (half the bytes per stage) and are decoded to 16-bit
//! in registers right after `ldmatrix`; the b16 matrix loads do not split bytes the way the
//! fragments need, so both GEMMs use a permutation of their reduction or output dimension
//! (See Note [fp8 fragments] in docs/DESIGN.md):
//! - S = Q·Kᵀ: a plain `ldmatrix` gives lane (g, t) the bytes of dims `4t..4t+3` of key `g`;
//!   they serve as the fragment's k positions `2t, 2t+1, 2t+8, 2t+9`. The Q tile is stored with
//!   the same permutation of each 16-dim block ([`KvFormat::Q_PERMUTED`]), so the dot products
//!   are unchanged.
//! - O += P·V: `ldmatrix.trans` gives lane (g, t) dims `2g, 2g+1` of keys `2t, 2t+1`; a byte
//!   permute splits them into an even-dim and an odd-dim n-tile, so accumulator n-tile columns
//!   map to head dims through [`KvFormat::out_dim`], applied when the warps merge.

use crate::arch::*;
use crate::tile::*;
use core::marker::PhantomData;

/// How K/V tiles in the ring are turned into B fragments.
pub trait KvFormat: Copy {
    /// Bytes per element in the pools and in the ring.
    const ELEM_BYTES: u32;
    /// Whether the Q tile's columns are stored in the k order of this format's K fragments.
    const Q_PERMUTED: bool;
    /// B fragments (as `EQ` pairs) of S = Q·Kᵀ for keys `key_base..key_base + 16` (two n8
    /// tiles) over head dims `32 kb..32 kb + 32` (two k16 steps): `[k step][n tile]`.
    ///
    /// # Safety
    /// Full warp, uniform flow; the keys are rows of `k`.
    unsafe fn k_frags<EQ: Elem16>(k: SwizzledTile, key_base: u32, kb: u32, lane: u32) -> [[[u32; 2]; 2]; 2];
    /// B fragments of O += P·V for keys `key_base..key_base + 16` and the four n8 accumulator
    /// tiles `4 db..4 db + 4` (head dims `32 db..32 db + 32` in the order of [`Self::out_dim`]).
    ///
    /// # Safety
    /// As `k_frags`.
    unsafe fn v_frags(v: SwizzledTile, key_base: u32, db: u32, lane: u32) -> [[u32; 2]; 4];
    /// Head dim of column `col` (0..8) of accumulator n-tile `nt`.
    fn out_dim(nt: u32, col: u32) -> u32;
    /// The 16 one-byte elements of a 16-byte ring chunk as f16 in natural order (two chunks):
    /// the fp8 wgmma consumer's conversion. Only 1-byte formats are widened.
    fn widen_chunk_f16(x: [u32; 4]) -> [[u32; 4]; 2];
}

/// K/V in the same 16-bit type as the GEMMs.
#[derive(Clone, Copy)]
pub struct Kv16;

impl KvFormat for Kv16 {
    const ELEM_BYTES: u32 = 2;
    const Q_PERMUTED: bool = false;

    #[inline(always)]
    unsafe fn k_frags<EQ: Elem16>(k: SwizzledTile, key_base: u32, kb: u32, lane: u32) -> [[[u32; 2]; 2]; 2] {
        let mi = lane / 8;
        let key = key_base + 8 * (mi / 2) + lane % 8;
        let mut f = [[[0; 2]; 2]; 2];
        for (ks, fk) in f.iter_mut().enumerate() {
            // SAFETY: forwarded; matrices (keys 0-7 | 8-15) x (dims +0 | +8) of k step 2 kb + ks.
            let r = unsafe { ldmatrix_x4_b16(k.chunk(key, 2 * (2 * kb + ks as u32) + mi % 2)) };
            *fk = [[r[0], r[1]], [r[2], r[3]]];
        }
        f
    }

    #[inline(always)]
    unsafe fn v_frags(v: SwizzledTile, key_base: u32, db: u32, lane: u32) -> [[u32; 2]; 4] {
        let mi = lane / 8;
        let key = key_base + 8 * (mi % 2) + lane % 8;
        let mut f = [[0; 2]; 4];
        for h in 0..2 {
            // SAFETY: forwarded; one x4.trans gives the fragments of two output n-tiles.
            let r = unsafe { ldmatrix_x4_trans_b16(v.chunk(key, 2 * (2 * db + h as u32) + mi / 2)) };
            f[2 * h] = [r[0], r[1]];
            f[2 * h + 1] = [r[2], r[3]];
        }
        f
    }

    #[inline(always)]
    fn out_dim(nt: u32, col: u32) -> u32 {
        8 * nt + col
    }

    fn widen_chunk_f16(_x: [u32; 4]) -> [[u32; 4]; 2] {
        unreachable!("16-bit K/V are read by wgmma as they are")
    }
}

/// fp8 K/V of format `F`, decoded in registers (K to the QK GEMM type `EQ`, V to f16).
#[derive(Clone, Copy)]
pub struct Kv8<F: Fp8Kind>(PhantomData<F>);

/// `prmt` selector: bytes (0, 2) to the low half, (1, 3) to the high half.
const SPLIT_EVEN_ODD: u32 = 0x3120;

impl<F: Fp8Kind> KvFormat for Kv8<F> {
    const ELEM_BYTES: u32 = 1;
    const Q_PERMUTED: bool = true;

    #[inline(always)]
    unsafe fn k_frags<EQ: Elem16>(k: SwizzledTile, key_base: u32, kb: u32, lane: u32) -> [[[u32; 2]; 2]; 2] {
        let mi = lane / 8;
        // Matrices: (keys 0-7, chunk 2 kb), (0-7, 2 kb + 1), (8-15, 2 kb), (8-15, 2 kb + 1); a
        // 16-byte chunk is the 16 dims of one k16 step.
        // SAFETY: forwarded.
        let r = unsafe { ldmatrix_x4_b16(k.chunk(key_base + 8 * (mi / 2) + lane % 8, 2 * kb + mi % 2)) };
        let dec = |x: u32| [EQ::from_f16x2(F::to_f16x2(x as u16)), EQ::from_f16x2(F::to_f16x2((x >> 16) as u16))];
        [[dec(r[0]), dec(r[2])], [dec(r[1]), dec(r[3])]]
    }

    #[inline(always)]
    unsafe fn v_frags(v: SwizzledTile, key_base: u32, db: u32, lane: u32) -> [[u32; 2]; 4] {
        let mi = lane / 8;
        // Matrices: (keys 0-7, chunk 2 db), (8-15, 2 db), (0-7, 2 db + 1), (8-15, 2 db + 1).
        // SAFETY: forwarded.
        let r = unsafe { ldmatrix_x4_trans_b16(v.chunk(key_base + 8 * (mi % 2) + lane % 8, 2 * db + mi / 2)) };
        let mut f = [[0; 2]; 4];
        for c in 0..2 {
            let lo = prmt_b32(r[2 * c], 0, SPLIT_EVEN_ODD);
            let hi = prmt_b32(r[2 * c + 1], 0, SPLIT_EVEN_ODD);
            f[2 * c] = [F::to_f16x2(lo as u16), F::to_f16x2(hi as u16)];
            f[2 * c + 1] = [F::to_f16x2((lo >> 16) as u16), F::to_f16x2((hi >> 16) as u16)];
        }
        f
    }

    #[inline(always)]
    fn out_dim(nt: u32, col: u32) -> u32 {
        let q = nt % 4;
        32 * (nt / 4) + 16 * (q / 2) + 2 * col + q % 2
    }

    #[inline(always)]
    fn widen_chunk_f16(x: [u32; 4]) -> [[u32; 4]; 2] {
        let h = x.map(|w| [F::to_f16x2(w as u16), F::to_f16x2((w >> 16) as u16)]);
        [[h[0][0], h[0][1], h[1][0], h[1][1]], [h[2][0], h[2][1], h[3][0], h[3][1]]]
    }
}

/// How Q rows are read from global memory into the 16-bit Q tile.
pub trait QFormat: Copy {
    /// Bytes per element of `q`.
    const ELEM_BYTES: u32;
    /// Whether each row is scaled by a power of two on its way to f16 (bf16 Q for the f16
    /// GEMM of an fp8 cache); the factor is undone on the row's scores.
    const ROW_SCALED: bool = false;
    /// Largest magnitude of a block as loaded (only used when `ROW_SCALED`).
    fn amax(_w: &[[u32; 4]; 2]) -> f32 {
        0.0
    }
    /// A loaded block multiplied by `factor` (a power of two) in the GEMM type (only used when
    /// `ROW_SCALED`).
    fn scaled(w: [[u32; 4]; 2], _factor: f32) -> [[u32; 4]; 2] {
        w
    }
    /// The 16 head dims `16 blk..16 blk + 16` of the row at byte address `row`, as two chunks
    /// of eight 16-bit values in natural order.
    ///
    /// # Safety
    /// `row` is a row of the validated Q tensor.
    unsafe fn load_block(row: u64, blk: u32) -> [[u32; 4]; 2];
}

/// 16-bit Q (the QK GEMM type itself).
#[derive(Clone, Copy)]
pub struct Q16;

impl QFormat for Q16 {
    const ELEM_BYTES: u32 = 2;
    #[inline(always)]
    unsafe fn load_block(row: u64, blk: u32) -> [[u32; 4]; 2] {
        let g = Gmem::<[u32; 4]>::from_addr(row + 32 * blk as u64);
        // SAFETY: forwarded; 16-byte aligned (validated base, head_dim % 8 == 0).
        unsafe { [ld_global_nc_v4_u32(g.byte_add(0)), ld_global_nc_v4_u32(g.byte_add(16))] }
    }
}

/// bf16 Q for the f16 GEMMs of an fp8 cache: each row is multiplied by `2^k` so its largest
/// magnitude lands in `[2^14, 2^15)`, where every bf16 value of the row down to `2^-28` of that
/// maximum is exact in f16 (smaller ones round at f16's subnormal step, `2^-38` of the maximum).
/// `k` is clamped to `[-126, 126]`, so rows whose max is below about `2^-112` (bf16 subnormals
/// included) keep less precision; their logits are that small anyway.
/// The row's scores are multiplied by `2^-k`. Saves decoding K to bf16 (three more
/// instructions per pair of keys' dims).
#[derive(Clone, Copy)]
pub struct QBf16AsF16;

#[inline(always)]
fn bf16_lo(x: u32) -> f32 {
    f32::from_bits(x << 16)
}
#[inline(always)]
fn bf16_hi(x: u32) -> f32 {
    f32::from_bits(x & 0xffff_0000)
}

impl QFormat for QBf16AsF16 {
    const ELEM_BYTES: u32 = 2;
    const ROW_SCALED: bool = true;
    #[inline(always)]
    unsafe fn load_block(row: u64, blk: u32) -> [[u32; 4]; 2] {
        // SAFETY: forwarded.
        unsafe { Q16::load_block(row, blk) }
    }
    #[inline(always)]
    fn amax(w: &[[u32; 4]; 2]) -> f32 {
        let mut a = 0f32;
        for c in w {
            for &x in c {
                a = a.max(bf16_lo(x).abs()).max(bf16_hi(x).abs());
            }
        }
        a
    }
    #[inline(always)]
    fn scaled(w: [[u32; 4]; 2], factor: f32) -> [[u32; 4]; 2] {
        w.map(|c| c.map(|x| cvt_rn_f16x2_f32(bf16_lo(x) * factor, bf16_hi(x) * factor)))
    }
}

/// fp8 Q of format `F`, decoded to f16.
#[derive(Clone, Copy)]
pub struct Q8<F: Fp8Kind>(PhantomData<F>);

impl<F: Fp8Kind> QFormat for Q8<F> {
    const ELEM_BYTES: u32 = 1;
    #[inline(always)]
    unsafe fn load_block(row: u64, blk: u32) -> [[u32; 4]; 2] {
        // SAFETY: forwarded; 16-byte aligned.
        let u = unsafe { ld_global_nc_v4_u32(Gmem::<[u32; 4]>::from_addr(row + 16 * blk as u64).byte_add(0)) };
        let h = u.map(|x| [F::to_f16x2(x as u16), F::to_f16x2((x >> 16) as u16)]);
        [[h[0][0], h[0][1], h[1][0], h[1][1]], [h[2][0], h[2][1], h[3][0], h[3][1]]]
    }
}

/// The two Q-tile chunks of one 16-dim block in the k order of `K`'s fragments.
#[inline(always)]
pub fn q_block_order<K: KvFormat>(w: [[u32; 4]; 2]) -> [[u32; 4]; 2] {
    if K::Q_PERMUTED {
        // Logical k pairs (2t, 2t+1) are physical pair 2t, (2t+8, 2t+9) physical pair 2t+1.
        [[w[0][0], w[0][2], w[1][0], w[1][2]], [w[0][1], w[0][3], w[1][1], w[1][3]]]
    } else {
        w
    }
}
