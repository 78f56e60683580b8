//! Split-KV combine: merges the partial (O, LSE) of a block's splits by their LSE, with the
//! same softmax-state merge as the decode CTA, adds the sink, and writes O (16-bit) and LSE.
//! One warp per packed row; empty splits (LSE = -inf) get weight 0.

use super::softmax::exp_ref;
use crate::arch::*;
use crate::tile::Elem16;
use ferroflash_contract::params::{DecodeParams, MergeWork, NONE_ADDR};
use ferroflash_contract::softmax::{LN_2, LOG2_E};

/// Threads of a combine CTA.
pub const COMBINE_THREADS: u32 = 128;

/// # Safety
/// Launched with [`COMBINE_THREADS`] threads over a validated parameter block whose merge list
/// and workspace were filled by the planner and the decode launch before it.
#[inline(always)]
pub unsafe fn combine_cta<E: Elem16>(p: &DecodeParams) {
    let bi = block_idx_x();
    if bi >= p.num_merge {
        return;
    }
    // SAFETY: bi < num_merge.
    let mw = unsafe { *(p.merge as *const MergeWork).add(bi as usize) };
    let ld = |addr: u64, i: u32| -> u32 {
        // SAFETY: indices inside host-validated tables.
        unsafe { ld_global_nc_u32(Gmem::from_addr(addr).add(i as u64)) }
    };
    let first_token = ld(p.q_indptr, mw.request);
    let q_len = ld(p.q_indptr, mw.request + 1) - first_token;
    let (warp, lane) = (thread_idx_x() / 32, lane_id());
    let d_model = p.head_dim;
    let mut lr = warp;
    while lr < p.rows_per_block {
        let packed = mw.row_start + lr;
        let i = packed / p.group;
        if i < q_len {
            let head = mw.kv_head * p.group + packed % p.group;
            let lse_at = |s: u32| f32::from_bits(ld(p.partial_lse, (mw.first_slot + s) * p.rows_per_block + lr));
            let sink = if p.sinks != NONE_ADDR { f32::from_bits(ld(p.sinks, head)) * LOG2_E } else { f32::NEG_INFINITY };
            let mut m = sink;
            for s in 0..mw.num_splits {
                m = m.max(lse_at(s));
            }
            let r = exp_ref(m);
            let mut l = ex2_approx_ftz_f32(sink - r);
            for s in 0..mw.num_splits {
                l += ex2_approx_ftz_f32(lse_at(s) - r);
            }
            let inv = if l > 0.0 { 1.0 / l } else { 0.0 };
            let token = first_token + i;
            let mut d = 4 * lane;
            while d < d_model {
                let mut o = [0f32; 4];
                for s in 0..mw.num_splits {
                    let wt = ex2_approx_ftz_f32(lse_at(s) - r) * inv;
                    if wt > 0.0 {
                        let at = ((mw.first_slot + s) * p.rows_per_block + lr) as u64 * d_model as u64 + d as u64;
                        // SAFETY: a slot the decode kernel wrote (its LSE is finite).
                        let x = unsafe { ld_global_nc_v4_u32(Gmem::<f32>::from_addr(p.partial_o).add(at).byte_add(0)) };
                        for k in 0..4 {
                            o[k] += wt * f32::from_bits(x[k]);
                        }
                    }
                }
                let at = (token * p.q_heads + head) as u64 * d_model as u64 + d as u64;
                let out = Gmem::<u16>::from_addr(p.o).add(at);
                // SAFETY: a real row of the validated output, 8-byte aligned (d % 4 == 0).
                unsafe {
                    *out.byte_add::<u32>(0).ptr() = E::pack(o[0], o[1]);
                    *out.byte_add::<u32>(4).ptr() = E::pack(o[2], o[3]);
                }
                d += 128;
            }
            if lane == 0 && p.lse != NONE_ADDR {
                let lse = if l > 0.0 { (m + lg2_approx_ftz_f32(l)) * LN_2 } else { f32::NEG_INFINITY };
                // SAFETY: a real row of the validated LSE tensor.
                unsafe { *Gmem::<f32>::from_addr(p.lse).add((token * p.q_heads + head) as u64).ptr() = lse };
            }
        }
        lr += COMBINE_THREADS / 32;
    }
}
