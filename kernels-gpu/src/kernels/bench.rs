//! Bandwidth probes: the benchmark's read ceiling (streams a buffer once with 16-byte
//! non-coherent loads, grid-stride), and the same loads through a page table, cut into CTAs as
//! a decode plan cuts the KV axis (what a decode kernel that did nothing but read would take).

use crate::arch::*;
use ferroflash_contract::params::{PagedReadParams, SelfTestParams};

/// Reads `n` 16-byte chunks of `input`; writes one word per thread to `output` only if the xor
/// of everything it read equals `mode` (the host passes a value that practically never occurs,
/// so the loads cannot be optimised away and almost nothing is written).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_bench_read(p: SelfTestParams) {
    let gtid = block_idx_x() * block_dim_x() + thread_idx_x();
    let stride = grid_dim_x() * block_dim_x();
    let src: Gmem<[u32; 4]> = Gmem::from_addr(p.input);
    let mut acc = [0u32; 4];
    let mut i = gtid;
    // Four independent 16-byte loads in flight per thread per step.
    while i + 3 * stride < p.n {
        // SAFETY: i + 3 stride < n chunks of the host buffer.
        let v = unsafe { [0, 1, 2, 3].map(|u| ld_global_nc_v4_u32(src.add((i + u * stride) as u64))) };
        for u in 0..4 {
            for k in 0..4 {
                acc[k] ^= v[u][k];
            }
        }
        i += 4 * stride;
    }
    while i < p.n {
        // SAFETY: i < n chunks of the host buffer.
        let v = unsafe { ld_global_nc_v4_u32(src.add(i as u64)) };
        for k in 0..4 {
            acc[k] ^= v[k];
        }
        i += stride;
    }
    if acc[0] ^ acc[1] ^ acc[2] ^ acc[3] == p.mode {
        // SAFETY: output holds one word per thread of the grid.
        unsafe { *Gmem::<u32>::from_addr(p.output).add(gtid as u64).ptr() = 1 };
    }
}

/// CTA `b` reads K and V rows `kv_start..kv_end` of one kv head (item `b`) through the page
/// table: 16-byte non-coherent loads, a token's K row then its V row, eight chunks in flight per
/// thread; writes one word per thread only if the xor of its loads equals `mode`. Launched on
/// sm_90 as a programmatic dependent, like decode.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_bench_read_paged(p: PagedReadParams) {
    let item = Gmem::<u32>::from_addr(p.items).add(block_idx_x() as u64 * PagedReadParams::ITEM_WORDS as u64);
    // SAFETY: the host uploads one item per CTA.
    let [entry, head, start, end] = unsafe { [0, 1, 2, 3].map(|k| ld_global_nc_u32(item.add(k))) };
    let ids = Gmem::<u32>::from_addr(p.page_ids).add(entry as u64);
    // As a decode CTA: the work item and the first page ids before the dependency (the host
    // launches the probe as a programmatic dependent on sm_90), the K/V loads after it.
    #[cfg(target_feature = "sm_90")]
    griddepcontrol_launch_dependents();
    // SAFETY: the range's first page entry (an empty range reads the request's first entry,
    // which the host checked exists or is never used: `units` is 0 and the loop does not run).
    let first_id = if end > start { unsafe { ld_global_nc_u32(ids.add((start >> p.page_size.trailing_zeros()) as u64)) } } else { 0 };
    #[cfg(target_feature = "sm_90")]
    griddepcontrol_wait();
    // Powers of two (the host checks): shifts and masks keep the address math to a few
    // instructions per load, so the probe is bound by the loads.
    let (log_p, log_c) = (p.page_size.trailing_zeros(), p.row_chunks.trailing_zeros());
    let units = (end - start) << (log_c + 1);
    // Chunk `u` of the CTA's range: token `start + u / (2 row_chunks)`, K then V, chunk in the row.
    let chunk = |u: u32| -> Gmem<[u32; 4]> {
        let t = start + (u >> (log_c + 1));
        let pool = if (u >> log_c) & 1 == 0 { p.k_pool } else { p.v_pool };
        // SAFETY: the token's page entry is inside the request's part of the table (host).
        let page = unsafe { ld_global_nc_u32(ids.add((t >> log_p) as u64)) };
        let row = (((page as u64) << log_p) + (t & (p.page_size - 1)) as u64) * p.kv_heads as u64 + head as u64;
        Gmem::from_addr(pool).add((row << log_c) + (u & (p.row_chunks - 1)) as u64)
    };
    let step = block_dim_x();
    let mut acc = [0u32; 4];
    let mut u = thread_idx_x();
    // Eight chunks in flight per thread (the page-id loads, L1 hits after the first, come first).
    while u + 7 * step < units {
        let at = [0, 1, 2, 3, 4, 5, 6, 7].map(|k| chunk(u + k * step));
        // SAFETY: rows of the pools (the host checked the page ids against the pools).
        let v = unsafe { at.map(|a| ld_global_nc_v4_u32(a)) };
        for x in v {
            for k in 0..4 {
                acc[k] ^= x[k];
            }
        }
        u += 8 * step;
    }
    while u < units {
        // SAFETY: as above.
        let x = unsafe { ld_global_nc_v4_u32(chunk(u)) };
        for k in 0..4 {
            acc[k] ^= x[k];
        }
        u += step;
    }
    // `first_id` is a checked page id, never u32::MAX: the test only keeps its load alive.
    if acc[0] ^ acc[1] ^ acc[2] ^ acc[3] == p.mode || first_id == u32::MAX {
        let g = block_idx_x() * block_dim_x() + thread_idx_x();
        // SAFETY: output holds one word per thread of the grid.
        unsafe { *Gmem::<u32>::from_addr(p.output).add(g as u64).ptr() = 1 };
    }
}
