//! Bandwidth probe for the benchmark's read ceiling: streams a buffer once with 16-byte
//! non-coherent loads, grid-stride.

use crate::arch::*;
use ferroflash_contract::params::SelfTestParams;

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
