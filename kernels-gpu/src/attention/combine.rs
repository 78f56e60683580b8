//! Split-KV combine: merges the partial (O, LSE) of a block's splits by their LSE, adds the
//! sink, and writes O (16-bit) and LSE. `combine_parts` CTAs per [`MergeWork`], each over its
//! share of the columns (See Note [combine parts] in docs/DESIGN.md), in two phases:
//! 1. one warp per row: its lanes load the row's partial LSEs (up to 8 splits each), merged max
//!    and sum by warp butterflies (the softmax-state merge of the contract, over all splits at
//!    once); each split's weight goes to shared memory, the row's LSE to `lse`;
//! 2. up to 8 lanes per (row, 4 columns), each summing a stride of the splits with up to eight
//!    loads in flight, then a butterfly reduction: Σ weight × partial O; empty splits (weight 0)
//!    are not read.

use super::softmax::{exp_ref, sink_log2};
use crate::arch::*;
use crate::tile::{table_u32, timeline_stamp, warp_max, warp_sum, Elem16};
use ferroflash_contract::decode::{combine_lanes_per_unit, COMBINE_LOADS_IN_FLIGHT, COMBINE_THREADS, MAX_SPLITS};
use ferroflash_contract::params::{split_packed_row, DecodeParams, MergeWork, TimelineEvent, NONE_ADDR};
use ferroflash_contract::softmax::LN_2;

/// # Safety
/// Launched with [`COMBINE_THREADS`] threads and `combine_smem_bytes(rows_per_block,
/// max num_splits)` of dynamic shared memory over a validated parameter block whose merge list
/// and workspace were filled by the planner and the decode launch before it.
#[inline(always)]
pub unsafe fn combine_cta<E: Elem16>(p: &DecodeParams) {
    let t_entry = global_timer_ns();
    // The merge item and the request table are the plan's own, uploaded before the decode grid
    // ran: read them before waiting for the decode grid, so their two dependent round trips
    // overlap its tail instead of following it.
    let num_merge = if p.num_merge_dev != NONE_ADDR {
        // SAFETY: host-provided device counter (graph mode).
        unsafe { table_u32(p.num_merge_dev, 0) }
    } else {
        p.num_merge
    };
    // Merge item and column part of this CTA (See Note [combine parts] in docs/DESIGN.md);
    // in graph mode the live CTAs are the grid's last.
    let parts = p.combine_parts.max(1);
    let idle = grid_dim_x().saturating_sub(num_merge * parts);
    let live = block_idx_x() >= idle;
    // Idle CTAs leave at once, all but the grid's last: the grid must not complete before the
    // decode grid has (the next kernel's `griddepcontrol.wait` waits for this grid only), so
    // that one waits for it below even when the batch has no split (See Note [graph mode]).
    if !live && block_idx_x() + 1 < grid_dim_x() {
        return;
    }
    let b = block_idx_x().wrapping_sub(idle);
    let (bi, part) = (b / parts, b % parts);
    // SAFETY: indices inside host-validated tables.
    let ld = |addr: u64, i: u32| unsafe { table_u32(addr, i) };
    let (mw, first_token, q_len) = if live {
        // SAFETY: bi < num_merge.
        let mw = unsafe { *(p.merge as *const MergeWork).add(bi as usize) };
        let first_token = ld(p.q_indptr, mw.request);
        (mw, first_token, ld(p.q_indptr, mw.request + 1) - first_token)
    } else {
        (MergeWork::default(), 0, 0)
    };
    // Launched as a programmatic dependent of the decode grid on sm_90+: wait for its partials.
    // The next decode call may start its prologue (work item, page ids; with `early_kv` also
    // the K/V tiles before its new tokens) once every combine CTA is here or has exited: with `early_kv` at
    // once, so its CTAs take the SMs the decode grid's tail frees, otherwise after the wait. It
    // waits for this grid before it reads Q or writes anything (See Note [PDL chain] and Note
    // [early K/V tiles] in DESIGN.md).
    #[cfg(target_feature = "sm_90")]
    {
        if p.early_kv != 0 {
            griddepcontrol_launch_dependents();
        }
        griddepcontrol_wait();
        if p.early_kv == 0 {
            griddepcontrol_launch_dependents();
        }
    }
    if thread_idx_x() == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe {
            timeline_stamp(p.timeline_combine, TimelineEvent::Entry, t_entry);
            timeline_stamp(p.timeline_combine, TimelineEvent::DependencyMet, global_timer_ns());
            timeline_stamp(p.timeline_combine, TimelineEvent::SmId, sm_id() as u64);
        }
    }
    if !live {
        return;
    }
    // Rows of this block that are real query rows.
    let rows = (q_len * p.group).saturating_sub(mw.row_start).min(p.rows_per_block);
    let splits = mw.num_splits;
    let tid = thread_idx_x();
    let s_w: Smem<f32> = dynamic_smem_base().byte_add(0);
    // Local row -> (token, q head) of the output.
    let row_of = |lr: u32| {
        let (i, h) = split_packed_row(mw.row_start + lr, p.group, p.group_magic);
        (first_token + i, mw.kv_head * p.group + h)
    };

    // Phase 1, one warp per row (warp-uniform loop: shuffles need the whole warp).
    const PER_LANE: usize = (MAX_SPLITS / 32) as usize;
    let (warp, lane) = (tid / 32, tid % 32);
    let mut lr = warp;
    while lr < rows {
        let mut lse = [f32::NEG_INFINITY; PER_LANE];
        for (u, x) in lse.iter_mut().enumerate() {
            let s = lane + 32 * u as u32;
            if s < splits {
                // The partials come from the decode grid (done once griddepcontrol.wait
                // returned): coherent loads, not the read-only path.
                // SAFETY: a slot of the plan's workspace.
                *x = f32::from_bits(unsafe { ld_global_u32(Gmem::from_addr(p.partial_lse).add(((mw.first_slot + s) * p.rows_per_block + lr) as u64)) });
            }
        }
        let sink = sink_log2(p, row_of(lr).1);
        // SAFETY: full warp.
        let m = unsafe { warp_max(lse.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b))) }.max(sink);
        let r = exp_ref(m);
        // SAFETY: full warp.
        let l = unsafe { warp_sum(lse.iter().map(|&x| ex2_approx_ftz_f32(x - r)).sum()) } + ex2_approx_ftz_f32(sink - r);
        let inv = if l != 0.0 { rcp_approx_ftz_f32(l) } else { 0.0 };
        for (u, &x) in lse.iter().enumerate() {
            let s = lane + 32 * u as u32;
            if s < splits {
                // SAFETY: inside the plan's combine shared memory (rows x splits f32).
                unsafe { st_shared_u32(s_w.add(lr * splits + s).byte_add(0), (ex2_approx_ftz_f32(x - r) * inv).to_bits()) };
            }
        }
        if lane == 0 && part == 0 && p.lse != NONE_ADDR {
            let lse = if l != 0.0 { (m + lg2_approx_ftz_f32(l)) * LN_2 } else { f32::NEG_INFINITY };
            let (i, h) = row_of(lr);
            // SAFETY: a real row of the validated LSE tensor.
            unsafe { *Gmem::<f32>::from_addr(p.lse).add((i * p.q_heads + h) as u64).ptr() = lse };
        }
        lr += COMBINE_THREADS / 32;
    }
    // SAFETY: all threads of the CTA reach it.
    unsafe { bar_sync_all() };

    // Phase 2. A unit is (row, 4 columns); `tpu` consecutive lanes share a unit, each summing
    // every tpu-th split, then reduce with butterfly shuffles. All lanes run the same number of
    // iterations (shuffles need the whole warp).
    let cols = p.o_head_dim / parts;
    let chunks = cols / 4;
    let units = rows * chunks;
    let tpu = combine_lanes_per_unit(units, splits);
    let per_pass = COMBINE_THREADS / tpu;
    let k = tid % tpu;
    let mut pass = 0;
    while pass * per_pass < units {
        let unit = pass * per_pass + tid / tpu;
        let valid = unit < units;
        let (lr, d) = if valid { (unit / chunks, part * cols + 4 * (unit % chunks)) } else { (0, 0) };
        let row_w = s_w.add(lr * splits);
        let slot_o = |s: u32| Gmem::<f32>::from_addr(p.partial_o).add(((mw.first_slot + s) * p.rows_per_block + lr) as u64 * p.o_head_dim as u64 + d as u64);
        let mut o = [0f32; 4];
        let mut s = k;
        while valid && s < splits {
            // Up to eight of this lane's splits' loads in flight before their sum.
            const N: usize = COMBINE_LOADS_IN_FLIGHT as usize;
            let mut w = [0f32; N];
            let mut x = [[0u32; 4]; N];
            for u in 0..N as u32 {
                let su = s + u * tpu;
                if su < splits {
                    // SAFETY: this row's weights.
                    w[u as usize] = f32::from_bits(unsafe { ld_shared_u32(row_w.add(su).byte_add(0)) });
                    if w[u as usize] > 0.0 {
                        // SAFETY: a slot the decode kernel wrote (its weight is non-zero).
                        x[u as usize] = unsafe { ld_global_v4_u32(slot_o(su).byte_add(0)) };
                    }
                }
            }
            for u in 0..N {
                for c in 0..4 {
                    o[c] += w[u] * f32::from_bits(x[u][c]);
                }
            }
            s += COMBINE_LOADS_IN_FLIGHT * tpu;
        }
        let mut m = 1;
        while m < tpu {
            for c in 0..4 {
                // SAFETY: every lane of the warp runs the same passes and butterflies.
                o[c] += f32::from_bits(unsafe { shfl_sync_bfly_b32(o[c].to_bits(), m) });
            }
            m *= 2;
        }
        if valid && k == 0 {
            let (i, h) = row_of(lr);
            let at = (i * p.q_heads + h) as u64 * p.o_head_dim as u64 + d as u64;
            let out = Gmem::<u16>::from_addr(p.o).add(at);
            // SAFETY: a real row of the validated output, 8-byte aligned (d % 4 == 0).
            unsafe {
                *out.byte_add::<u32>(0).ptr() = E::pack(o[0], o[1]);
                *out.byte_add::<u32>(4).ptr() = E::pack(o[2], o[3]);
            }
        }
        pass += 1;
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe {
            timeline_stamp(p.timeline_combine, TimelineEvent::Tiles, splits as u64);
            timeline_stamp(p.timeline_combine, TimelineEvent::Exit, global_timer_ns());
        }
    }
}
