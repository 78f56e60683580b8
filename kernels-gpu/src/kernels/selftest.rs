//! Primitive self-test kernels: each runs one `arch` primitive on small-integer inputs whose
//! exact results the host knows (`tests/src/primitives.rs`). Entry names: `names::selftest`.

use crate::arch::*;
use ferroflash_contract::params::SelfTestParams;
use ferroflash_contract::smem::PRIMITIVE_TEST_SMEM_BYTES;

/// Global words of the test input / output.
#[inline(always)]
fn g_in(p: &SelfTestParams) -> Gmem<u32> {
    Gmem::from_addr(p.input)
}
#[inline(always)]
fn g_out(p: &SelfTestParams) -> Gmem<u32> {
    Gmem::from_addr(p.output)
}
#[inline(always)]
unsafe fn load(g: Gmem<u32>, i: u32) -> u32 {
    // SAFETY: the caller's index is inside the host-sized buffer.
    unsafe { *g.add(i as u64).ptr() }
}
#[inline(always)]
unsafe fn store(g: Gmem<u32>, i: u32, v: u32) {
    // SAFETY: as `load`.
    unsafe { *g.add(i as u64).ptr() = v }
}

/// Block 64 threads, grid 2: out[4*gid ..] = (tid.x, ctaid.x, ntid.x, laneid).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_sreg(p: SelfTestParams) {
    let gid = block_idx_x() * block_dim_x() + thread_idx_x();
    let o = g_out(&p);
    // SAFETY: the host sizes `output` for 4 words per thread.
    unsafe {
        store(o, 4 * gid, thread_idx_x());
        store(o, 4 * gid + 1, block_idx_x());
        store(o, 4 * gid + 2, block_dim_x());
        store(o, 4 * gid + 3, lane_id());
    }
}

/// Block 32 threads: thread i copies 16-byte chunk i with `i % 17` source bytes (the rest zero
/// filled) into shared memory, then writes shared memory back out.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_cp_async(p: SelfTestParams) {
    let t = thread_idx_x();
    let s_chunks: Smem<[u32; 4]> = dynamic_smem_base().byte_add(0);
    let g_src: Gmem<[u32; 4]> = Gmem::from_addr(p.input);
    let g_dst: Gmem<[u32; 4]> = Gmem::from_addr(p.output);
    // SAFETY: 32 chunks of 16 B fit the 4 KiB window; input and output hold 32 chunks.
    unsafe {
        cp_async_cg_16_zfill(s_chunks.add(t), g_src.add(t as u64), t % 17);
        cp_async_commit_group();
        cp_async_wait_group::<0>();
        bar_sync_all();
        // Read a neighbour's chunk: proves the barrier made other threads' copies visible.
        let r = (t + 1) % 32;
        st_global_v4_u32(g_dst.add(r as u64), ld_shared_v4_u32(s_chunks.add(r)));
    }
}

/// out[i] = in[i] for 16-byte chunk i: even chunks through `ld.global.nc.v4`, odd chunks through
/// `ld.global.v4`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_ld_nc_v4(p: SelfTestParams) {
    let t = block_idx_x() * block_dim_x() + thread_idx_x();
    let g_src: Gmem<[u32; 4]> = Gmem::from_addr(p.input);
    let g_dst: Gmem<[u32; 4]> = Gmem::from_addr(p.output);
    // SAFETY: the host launches one thread per chunk.
    unsafe {
        let v = if t % 2 == 0 { ld_global_nc_v4_u32(g_src.add(t as u64)) } else { ld_global_v4_u32(g_src.add(t as u64)) };
        st_global_v4_u32(g_dst.add(t as u64), v)
    };
}

/// One warp: out[32k + lane] = bfly(in[lane], 1 << k) for k in 0..5, then
/// out[160 + lane] = idx(in[lane], (7 lane + 3) % 32).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_shfl(p: SelfTestParams) {
    let lane = lane_id();
    // SAFETY: one full warp in uniform flow; buffers sized 32 in, 192 out.
    unsafe {
        let v = load(g_in(&p), lane);
        let mut k = 0;
        while k < 5 {
            store(g_out(&p), 32 * k + lane, shfl_sync_bfly_b32(v, 1 << k));
            k += 1;
        }
        store(g_out(&p), 160 + lane, shfl_sync_idx_b32(v, (7 * lane + 3) % 32));
    }
}

/// One warp: four 8x8 b16 matrices (input, 256 words) into shared memory, then
/// out[8 lane + i] = ldmatrix word i, out[8 lane + 4 + i] = ldmatrix.trans word i.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_ldmatrix(p: SelfTestParams) {
    let lane = lane_id();
    let s_words: Smem<u32> = dynamic_smem_base().byte_add(0);
    // SAFETY: one warp; 256 words fit the window; each row address is 16-byte aligned.
    unsafe {
        let mut w = lane;
        while w < 128 {
            st_shared_u32(s_words.add(w), load(g_in(&p), w));
            w += 32;
        }
        bar_sync_all();
        // Lane l points at row l % 8 of matrix l / 8 (16 bytes = 4 words per row).
        let row: Smem<[u32; 4]> = s_words.add(lane * 4).byte_add(0);
        let a = ldmatrix_x4_b16(row);
        let b = ldmatrix_x4_trans_b16(row);
        let mut i = 0;
        while i < 4 {
            store(g_out(&p), 8 * lane + i, a[i as usize]);
            store(g_out(&p), 8 * lane + 4 + i, b[i as usize]);
            i += 1;
        }
    }
}

/// A 16xK row-major (K-contiguous) and B stored as [8][K] (K-contiguous), `K*elem = 32` bytes:
/// 8 words per row. Loads the mma fragments by the layouts documented in `arch`.
#[inline(always)]
unsafe fn load_mma_fragments(p: &SelfTestParams) -> ([u32; 4], [u32; 2]) {
    let lane = lane_id();
    let (g, t) = (lane / 4, lane % 4);
    let a_w = g_in(p);
    let b_w = g_in(p).add(16 * 8);
    // SAFETY: indices stay inside the 16x8 + 8x8 words of input.
    unsafe {
        (
            [load(a_w, g * 8 + t), load(a_w, (g + 8) * 8 + t), load(a_w, g * 8 + t + 4), load(a_w, (g + 8) * 8 + t + 4)],
            [load(b_w, g * 8 + t), load(b_w, g * 8 + t + 4)],
        )
    }
}

/// Stores a 16x8 f32 C fragment row-major.
#[inline(always)]
unsafe fn store_c_fragment(p: &SelfTestParams, d: [f32; 4]) {
    let lane = lane_id();
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY: 128 output words.
    unsafe {
        store(g_out(p), g * 8 + 2 * t, d[0].to_bits());
        store(g_out(p), g * 8 + 2 * t + 1, d[1].to_bits());
        store(g_out(p), (g + 8) * 8 + 2 * t, d[2].to_bits());
        store(g_out(p), (g + 8) * 8 + 2 * t + 1, d[3].to_bits());
    }
}

/// One warp: D = A·B + 1 with bf16 A (16x16) and B (16x8).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_mma_bf16(p: SelfTestParams) {
    // SAFETY: one full warp, uniform flow.
    unsafe {
        let (a, b) = load_mma_fragments(&p);
        store_c_fragment(&p, mma_m16n8k16_bf16_f32(a, b, [1.0; 4]));
    }
}

/// One warp: D = A·B + 1 with f16 A (16x16) and B (16x8).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_mma_f16(p: SelfTestParams) {
    // SAFETY: one full warp, uniform flow.
    unsafe {
        let (a, b) = load_mma_fragments(&p);
        store_c_fragment(&p, mma_m16n8k16_f16_f32(a, b, [1.0; 4]));
    }
}

/// One warp: D = A·B + 1 with e4m3 A (16x32) and B (32x8).
#[cfg(target_feature = "sm_89")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_mma_e4m3(p: SelfTestParams) {
    // SAFETY: one full warp, uniform flow.
    unsafe {
        let (a, b) = load_mma_fragments(&p);
        store_c_fragment(&p, mma_m16n8k32_e4m3_f32(a, b, [1.0; 4]));
    }
}

/// 128 threads: thread i converts the code pair (2i, 2i+1): out[i] = e4m3 -> f16x2,
/// out[128 + i] = e5m2 -> f16x2. Covers all 256 codes of both formats.
#[cfg(target_feature = "sm_89")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_cvt_fp8(p: SelfTestParams) {
    let i = thread_idx_x();
    let codes = ((2 * i) | ((2 * i + 1) << 8)) as u16;
    // SAFETY: 256 output words.
    unsafe {
        store(g_out(&p), i, cvt_rn_f16x2_e4m3x2(codes));
        store(g_out(&p), 128 + i, cvt_rn_f16x2_e5m2x2(codes));
    }
}

/// out[i] = ex2.approx(in[i]) (f32 bits), one thread per element.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_ex2(p: SelfTestParams) {
    let i = thread_idx_x();
    // SAFETY: the host launches one thread per element.
    unsafe { store(g_out(&p), i, ex2_approx_ftz_f32(f32::from_bits(load(g_in(&p), i))).to_bits()) };
}

/// Byte offset of (row, byte-in-row) of a K-major operand in the no-swizzle core-matrix layout
/// with `row_bytes` bytes of K per row: core matrices of 8 rows x 16 B, adjacent in K at
/// `LBO = 128`, adjacent in rows at `SBO = 8 * row_bytes`.
#[inline(always)]
pub const fn kmajor_core_offset(row: u32, byte: u32, row_bytes: u32) -> u32 {
    (row / 8) * (8 * row_bytes) + (byte / 16) * 128 + (row % 8) * 16 + byte % 16
}

/// Copy a row-major `rows x row_bytes` operand from global words into the core-matrix layout.
#[cfg(any(target_feature = "sm_90a", target_feature = "sm_100a"))]
#[inline(always)]
unsafe fn stage_kmajor(src: Gmem<u32>, dst: Smem<u8>, rows: u32, row_bytes: u32, tid: u32, threads: u32) {
    let words = rows * row_bytes / 4;
    let mut w = tid;
    while w < words {
        let (row, byte) = (w / (row_bytes / 4), (w % (row_bytes / 4)) * 4);
        // SAFETY: the caller sized both buffers for `rows x row_bytes`.
        unsafe { st_shared_u32(dst.byte_add(kmajor_core_offset(row, byte, row_bytes)), load(src, w)) };
        w += threads;
    }
}

/// One warpgroup: D (64x64 f32) = A (64 x 32 bytes) · B (64 x 32 bytes)^T through one wgmma,
/// A and B K-major in shared memory. `f` issues the wgmma of one dtype.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn wgmma_test(p: &SelfTestParams, f: unsafe fn(&mut WgmmaAccM64N64, u64, u64, bool)) {
    const ROW_BYTES: u32 = 32;
    let tid = thread_idx_x();
    let s_a = dynamic_smem_base();
    let s_b: Smem<u8> = s_a.byte_add(64 * ROW_BYTES);
    let mut acc: WgmmaAccM64N64 = [0.0; 32];
    // SAFETY: 128 threads = one warpgroup in uniform flow; 4 KiB of operands fit the window.
    unsafe {
        stage_kmajor(g_in(p), s_a, 64, ROW_BYTES, tid, 128);
        stage_kmajor(g_in(p).add(64 * ROW_BYTES as u64 / 4), s_b, 64, ROW_BYTES, tid, 128);
        fence_proxy_async_shared_cta();
        bar_sync_all();
        wgmma_fence();
        f(&mut acc, wgmma_desc_no_swizzle(s_a, 128, 8 * ROW_BYTES), wgmma_desc_no_swizzle(s_b, 128, 8 * ROW_BYTES), false);
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        let (warp, lane) = (tid / 32, lane_id());
        let row = 16 * warp + lane / 4;
        let mut j = 0u32;
        while j < 8 {
            let col = 8 * j + 2 * (lane % 4);
            store(g_out(p), row * 64 + col, acc[4 * j as usize].to_bits());
            store(g_out(p), row * 64 + col + 1, acc[4 * j as usize + 1].to_bits());
            store(g_out(p), (row + 8) * 64 + col, acc[4 * j as usize + 2].to_bits());
            store(g_out(p), (row + 8) * 64 + col + 1, acc[4 * j as usize + 3].to_bits());
            j += 1;
        }
    }
}

/// wgmma m64n64k16 bf16 (see `wgmma_test`).
#[cfg(target_feature = "sm_90a")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_wgmma_bf16(p: SelfTestParams) {
    // SAFETY: forwarded launch contract (128 threads, 4 KiB smem).
    unsafe { wgmma_test(&p, wgmma_m64n64k16_f32_bf16_ss) }
}

/// wgmma m64n64k32 e4m3 (see `wgmma_test`).
#[cfg(target_feature = "sm_90a")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_wgmma_e4m3(p: SelfTestParams) {
    // SAFETY: forwarded launch contract (128 threads, 4 KiB smem).
    unsafe { wgmma_test(&p, wgmma_m64n64k32_f32_e4m3_ss) }
}

/// Byte offset of 16-byte chunk `c` (0..16) of row `r` in a 128-byte-swizzled tile of 64 rows x
/// 256 bytes: two 8 KiB column blocks of 128-byte rows, chunk `c % 8` at `(c % 8) ^ (r % 8)`.
#[cfg(target_feature = "sm_90a")]
const fn sw128_offset(r: u32, c: u32) -> u32 {
    (c / 8) * 8192 + r * 128 + ((c % 8) ^ (r % 8)) * 16
}

/// One warpgroup, the attention step of a wgmma decode consumer at head dim 128 on 128-byte
/// swizzled tiles (the ring layout such a consumer would use): Q, K, V (each 64 rows x 128
/// bf16, row-major in `input`) staged swizzled; S = Q·Kᵀ (64x64 f32) by eight
/// `wgmma m64n64k16` with both operands K-major from shared memory (start advanced 32 bytes
/// per k step, the second column block at +8 KiB); P = S rounded to bf16 in registers (the
/// accumulator's n-chunk pairs are the A fragments); O = P·V (64x128 f32) by four
/// `wgmma m64n128k16` with A from registers and V N-major (`lbo` 8 KiB between the column
/// blocks, `sbo` 1 KiB between 8-key groups, start advanced 2 KiB per 16 keys). Writes S, then O.
#[cfg(target_feature = "sm_90a")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_wgmma_sw128_attn(p: SelfTestParams) {
    const TILE: u32 = 64 * 256;
    let tid = thread_idx_x();
    let base = dynamic_smem_base();
    let tiles: Smem<u8> = base.byte_add((1024 - base.addr() % 1024) % 1024);
    // SAFETY: 128 threads = one warpgroup in uniform flow; three 16 KiB tiles after at most
    // 1 KiB of alignment fit the 49 KiB window of this self-test's spec.
    unsafe {
        let mut i = tid;
        while i < 3 * 64 * 16 {
            let (t, r, c) = (i / 1024, (i / 16) % 64, i % 16);
            let w = [0, 1, 2, 3].map(|k| load(g_in(&p), (t * 64 + r) * 64 + 4 * c + k));
            st_shared_v4_u32(tiles.byte_add(t * TILE + sw128_offset(r, c)), w);
            i += 128;
        }
        fence_proxy_async_shared_cta();
        bar_sync_all();
        let (s_q, s_k, s_v): (Smem<u8>, Smem<u8>, Smem<u8>) = (tiles, tiles.byte_add(TILE), tiles.byte_add(2 * TILE));
        let mut s: WgmmaAccM64N64 = [0.0; 32];
        wgmma_fence();
        let mut kk = 0;
        while kk < 8 {
            let at = (kk / 4) * 8192 + (kk % 4) * 32;
            wgmma_m64n64k16_f32_bf16_ss(&mut s, wgmma_desc_sw128(s_q.byte_add(at), 16, 1024), wgmma_desc_sw128(s_k.byte_add(at), 16, 1024), kk > 0);
            kk += 1;
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        let pk = |a: f32, b: f32| cvt_rn_bf16x2_f32(a, b);
        let a: [[u32; 4]; 4] = core::array::from_fn(|r| {
            [pk(s[8 * r], s[8 * r + 1]), pk(s[8 * r + 2], s[8 * r + 3]), pk(s[8 * r + 4], s[8 * r + 5]), pk(s[8 * r + 6], s[8 * r + 7])]
        });
        let mut o: WgmmaAccM64N128 = [0.0; 64];
        wgmma_fence();
        for (r, a) in a.iter().enumerate() {
            wgmma_m64n128k16_f32_bf16_rs_tb(&mut o, *a, wgmma_desc_sw128(s_v.byte_add(2048 * r as u32), 8192, 1024), r > 0);
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        let (warp, lane) = (tid / 32, lane_id());
        let row = 16 * warp + lane / 4;
        for j in 0..16u32 {
            let col = 8 * j + 2 * (lane % 4);
            for e in 0..4u32 {
                let (rr, cc) = (row + 8 * (e / 2), col + e % 2);
                if j < 8 {
                    store(g_out(&p), rr * 64 + cc, s[(4 * j + e) as usize].to_bits());
                }
                store(g_out(&p), 64 * 64 + rr * 128 + cc, o[(4 * j + e) as usize].to_bits());
            }
        }
    }
}

/// 128 threads: D (128x64 f32, tensor memory) = A (128x16 bf16) · B (64x16 bf16)^T through one
/// tcgen05.mma, then each warp reads its 32 rows back. sm_100a: assembled, not run here.
#[cfg(target_feature = "sm_100a")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_test_tcgen05_mma(p: SelfTestParams) {
    const ROW_BYTES: u32 = 32;
    const N_COLS: u32 = 64;
    let tid = thread_idx_x();
    let warp = tid / 32;
    let s_a = dynamic_smem_base();
    let s_b: Smem<u8> = s_a.byte_add(128 * ROW_BYTES);
    let s_bar: Smem<u64> = s_b.byte_add(64 * ROW_BYTES);
    let s_taddr: Smem<u32> = s_bar.byte_add(8);
    // SAFETY: 128 threads, uniform flow; the regions above fit the 4 KiB window.
    unsafe {
        stage_kmajor(g_in(&p), s_a, 128, ROW_BYTES, tid, 128);
        stage_kmajor(g_in(&p).add(128 * ROW_BYTES as u64 / 4), s_b, 64, ROW_BYTES, tid, 128);
        if tid == 0 {
            mbarrier_init_shared_b64(s_bar, 1);
        }
        if warp == 0 {
            tcgen05_alloc_cg1(s_taddr, N_COLS);
            tcgen05_relinquish_alloc_permit_cg1();
        }
        fence_proxy_async_shared_cta();
        tcgen05_fence_before_thread_sync();
        bar_sync_all();
        tcgen05_fence_after_thread_sync();
        let taddr = ld_shared_u32(s_taddr);
        if tid == 0 {
            let a = tcgen05_desc_no_swizzle(s_a, 128, 8 * ROW_BYTES);
            let b = tcgen05_desc_no_swizzle(s_b, 128, 8 * ROW_BYTES);
            tcgen05_mma_cg1_kind_f16(taddr, a, b, tcgen05_idesc_bf16_f32(128, N_COLS), false);
            tcgen05_commit_cg1_mbarrier(s_bar);
        }
        while !mbarrier_try_wait_parity_shared_b64(s_bar, 0) {}
        tcgen05_fence_after_thread_sync();
        let row = tid;
        let mut c = 0;
        while c < N_COLS {
            let v = tcgen05_ld_32x32b_x8(taddr + ((warp * 32) << 16) + c);
            let mut k = 0;
            while k < 8 {
                store(g_out(&p), row * N_COLS + c + k, v[k as usize]);
                k += 1;
            }
            c += 8;
        }
        tcgen05_fence_before_thread_sync();
        bar_sync_all();
        if warp == 0 {
            tcgen05_dealloc_cg1(taddr, N_COLS);
        }
    }
}

const _: () = assert!(PRIMITIVE_TEST_SMEM_BYTES >= 128 * 32 + 64 * 32 + 16);

/// The early-K/V test's late writer (`names::testing::LATE_WRITE`; See Note [early K/V tiles]
/// in docs/DESIGN.md), any grid: lets its programmatic dependent (the decode call under test)
/// start at once, waits `mode` ns, then copies 16-byte chunk `i < n`: global address
/// `input[2 i + 1]` (u64) to global address `input[2 i]`, the way an engine's K/V append
/// kernel writes the new tokens' rows while attention's prologue runs.
#[cfg(target_feature = "sm_90a")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_late_write(p: SelfTestParams) {
    griddepcontrol_launch_dependents();
    let t0 = global_timer_ns();
    while global_timer_ns() < t0 + p.mode as u64 {}
    let pairs: Gmem<u64> = Gmem::from_addr(p.input);
    let mut i = block_idx_x() * block_dim_x() + thread_idx_x();
    while i < p.n {
        // SAFETY: the host passes `n` pairs of live, 16-byte aligned global addresses.
        unsafe {
            let dst: Gmem<[u32; 4]> = Gmem::from_addr(*pairs.add(2 * i as u64).ptr());
            let src: Gmem<[u32; 4]> = Gmem::from_addr(*pairs.add(2 * i as u64 + 1).ptr());
            st_global_v4_u32(dst, ld_global_v4_u32(src));
        }
        i += grid_dim_x() * block_dim_x();
    }
}
