//! The paged decode CTA. See docs/DESIGN.md, "Decode tile flow", for the picture.
//!
//! One CTA = one [`DecodeWork`]: a block of packed query rows (pack-GQA: row = token * group +
//! head-in-group) of one (request, kv head) over one KV range. Warp roles:
//! - producers (warps 4 and up, `geo.producer_warps` of them, taking turns by tile): page-table
//!   reads and address generation in transposed order, then 16-byte `cp.async` gathers of K and
//!   V rows into a ring of `STAGES` shared-memory stages;
//! - consumers (warps 0-3): each takes 16 keys of every 64-key tile: S = Q·Kᵀ and O += P·V with
//!   `mma.sync m16n8k16`, online softmax in registers; at the end the four warps merge through
//!   shared memory and write the final output or a split-KV partial.
//! Stages are handed over with mbarriers (See Note [stage hand-over] in docs/DESIGN.md):
//! `full[s]` completes when the copies of the load warp that filled the stage have landed
//! (`cp.async.mbarrier.arrive.noinc`), `empty[s]` when the 128 consumer threads are done reading
//! it. The phase parity of a tile `t` in stage `t % STAGES` is `(t / STAGES) & 1`.

use super::kv::{q_block_order, KvFormat, QFormat};
use super::softmax::{exp_ref, masked_unit, sink_log2, RowMask, ScoreTransform};
use crate::arch::*;
use crate::tile::*;
use ferroflash_contract::decode::*;
use ferroflash_contract::params::{DecodeParams, DecodeWork, TimelineEvent, FINAL_OUTPUT, NONE_ADDR};
use ferroflash_contract::softmax::LN_2;

/// Per-CTA scalars read once from the work item and the request tables.
#[derive(Clone, Copy)]
struct Block {
    work: DecodeWork,
    kv_len: u32,
    q_len: u32,
    first_token: u32,
    first_page_entry: u32,
    num_tiles: u32,
    /// The work item one wave later ([`DecodeParams::next_wave_ctas`]), or [`NO_NEXT_WORK`].
    next_work: u32,
    geo: DecodeGeometry,
    plan: DecodeSmemPlan,
    /// The head dim of Q, K/V and O in memory: `D`, or `p.head_dim <= D` in the padded
    /// variants (See Note [padded head dims] in docs/DESIGN.md), whose tiles keep `D` columns
    /// with the columns from `dm` on zero.
    dm: u32,
    /// The head dim of Q, O and the split partials: `dm`, or `dm / 2` in the kv-head-pair view
    /// of the padded variants (See Note [kv-head pairs] in docs/DESIGN.md; [`row_col0`]).
    qdm: u32,
}

/// The full/empty mbarriers of the ring.
#[derive(Clone, Copy)]
struct Mbarriers {
    base: Smem<u8>,
    stages: u32,
}

impl Mbarriers {
    #[inline(always)]
    fn full(&self, s: u32) -> Smem<u64> {
        self.base.byte_add(8 * mbar_full(s))
    }
    #[inline(always)]
    fn empty(&self, s: u32) -> Smem<u64> {
        self.base.byte_add(8 * mbar_empty(s, self.stages))
    }
}

/// Phase parity of the `t`-th tile's use of its stage.
#[inline(always)]
const fn parity(t: u32, stages: u32) -> u32 {
    (t / stages) & 1
}

/// `Block::next_work` when no CTA of a later wave follows (or the prefetch is off).
const NO_NEXT_WORK: u32 = u32::MAX;

/// Row offset marker for "no row here": the copy becomes a 16-byte zero fill.
const NO_ROW: u64 = 1 << 63;

/// Operand types of one decode variant: `EQ` the S = Q·Kᵀ GEMM type, `EV` the P·V GEMM type
/// (P is rounded to it), `EO` the output type, `K` the K/V format, `Q` the Q format.
pub trait Operands {
    type EQ: Elem16;
    type EV: Elem16;
    type EO: Elem16;
    type K: KvFormat;
    type Q: QFormat;
}

/// Scale-table entry of the CTA's request and (real) kv head `kv_head`, or 1 without a table.
#[inline(always)]
fn scale_of(p: &DecodeParams, table: u64, w: &DecodeWork, kv_head: u32) -> f32 {
    if table == NONE_ADDR {
        return 1.0;
    }
    // SAFETY: the host validated the table's length against the strides it passes (over the
    // real kv heads: `kv_head` is one in the kv-head-pair view too).
    f32::from_bits(unsafe { table_u32(table, w.request * p.scale_request_stride + kv_head * p.scale_head_stride) })
}

/// The CTA's two scale-table entries: of its kv head twice, or in the kv-head-pair view of
/// the pair's first and second kv heads.
#[inline(always)]
fn scale_pair(p: &DecodeParams, b: &Block, table: u64) -> [f32; 2] {
    if paired_heads(b) {
        [scale_of(p, table, &b.work, 2 * b.work.kv_head), scale_of(p, table, &b.work, 2 * b.work.kv_head + 1)]
    } else {
        let s = scale_of(p, table, &b.work, b.work.kv_head);
        [s, s]
    }
}

/// The decode CTA body for operands `O`, head dim `D` (`NT = D / 8` output n-tiles,
/// `KS = D / 16` k-steps), `MT` m16 tiles of packed rows per consumer warp, `RG` row groups of
/// consumer warps (`NJ = 2 RG` key n8 tiles per warp, `KG = 4 / RG` key groups; See Note [row-split consumers] in
/// docs/DESIGN.md) and `STAGES` pipeline stages; `NARROW` (with `MT = RG = 1`): at most 8 real
/// rows per CTA, swapped-operand consumers ([`consumer_narrow`]); `PAIRED` (narrow, fp8 d128):
/// those consumers take the ring's tiles two at a time.
///
/// # Safety
/// Launched with the `threads()` of `geometry_rows(D, O::K::ELEM_BYTES, MT * RG, RG, NARROW)`
/// (`geometry_paired(D, O::K::ELEM_BYTES)` when `PAIRED`, `geometry_wgmma` when `WG`) and
/// its `.smem().total_bytes` of dynamic shared memory over a parameter block validated by the
/// host (every address, page id and length in range; see `ferroflash::decode`).
#[inline(always)]
pub unsafe fn decode_cta<
    O: Operands,
    const D: usize,
    const NT: usize,
    const KS: usize,
    const MT: usize,
    const RG: usize,
    const NJ: usize,
    const KG: usize,
    const STAGES: usize,
    const NARROW: bool,
    const WG: bool,
    const PAIRED: bool,
    const PAD: bool,
>(
    p: &DecodeParams,
    params_addr: impl Fn() -> u64,
) {
    const {
        assert!(NT == D / 8 && KS == D / 16 && NT % 4 == 0 && NJ == 2 * RG && KG * RG == CONSUMER_WARPS as usize);
        assert!(!NARROW || (MT == 1 && RG == 1));
        assert!(!PAIRED || (NARROW && paired_supported(D as u32, O::K::ELEM_BYTES)));
    };
    const { assert!(!WG || (MT == 1 && RG == 4 && !NARROW && wgmma_supported(D as u32, O::Q::ELEM_BYTES, O::K::ELEM_BYTES))) };
    // (Padded: 16-bit Q over 16-bit or fp8 K/V; the fp8 pad chunks hold 16 columns each, so a
    // multiple of 16 keeps them whole.)
    const { assert!(!PAD || (!WG && !PAIRED && O::Q::ELEM_BYTES == 2)) };
    let geo = if WG {
        geometry_wgmma(D as u32, O::K::ELEM_BYTES)
    } else if PAIRED {
        geometry_paired(D as u32, O::K::ELEM_BYTES)
    } else {
        geometry_rows(D as u32, O::K::ELEM_BYTES, (MT * RG) as u32, RG as u32, NARROW)
    };
    debug_assert!(geo.stages == STAGES as u32);
    let t_entry = global_timer_ns();
    let num_work = if p.num_work_dev != NONE_ADDR {
        // SAFETY: host-provided device counter.
        unsafe { table_u32(p.num_work_dev, 0) }
    } else {
        p.num_work
    };
    // Let the combine grid (a programmatic dependent on sm_90+) be scheduled as soon as every
    // decode CTA runs: it waits for our results with `griddepcontrol.wait`, so its launch
    // latency overlaps our work.
    #[cfg(target_feature = "sm_90")]
    griddepcontrol_launch_dependents();
    // Graph mode: CTAs past the batch's work list are idle and leave at once. (Placing them
    // first instead, beside the previous kernel's tail, cost W1's graph plan 0.8 us and
    // gained nothing elsewhere: session 50, Note [graph mode] in docs/DESIGN.md.)
    let wi = block_idx_x();
    if wi >= num_work {
        // An idle CTA of a cluster whose other CTAs merge meets them at the merge's two
        // cluster barriers (a whole idle cluster meets itself).
        if in_cluster(p) {
            #[cfg(target_feature = "sm_90")]
            // SAFETY: every thread of the CTA arrives at both, as every live CTA's threads do.
            unsafe {
                barrier_cluster_sync();
                barrier_cluster_sync_relaxed();
            }
        }
        return;
    }
    // SAFETY: `wi < num_work`, the length of the work list.
    let work = unsafe { *(p.work as *const DecodeWork).add(wi as usize) };
    // The planner copied the request's scalars into the work item: no dependent loads here.
    let b = Block {
        work,
        kv_len: work.kv_len,
        q_len: work.q_len,
        first_token: work.first_token,
        first_page_entry: work.first_page_entry,
        num_tiles: work.tiles(),
        next_work: match wi.checked_add(p.next_wave_ctas) {
            Some(n) if p.next_wave_ctas != 0 && n < num_work => n,
            _ => NO_NEXT_WORK,
        },
        geo,
        plan: geo.smem(),
        // (The host validated `head_dim <= D`, a multiple of 16, for the padded variants.)
        dm: if PAD { p.head_dim } else { D as u32 },
        qdm: if PAD { p.o_head_dim } else { D as u32 },
    };
    let warp = thread_idx_x() / 32;
    if thread_idx_x() == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe {
            timeline_stamp(p.timeline_decode, TimelineEvent::Entry, t_entry);
            timeline_stamp(p.timeline_decode, TimelineEvent::SmId, sm_id() as u64);
            timeline_stamp(p.timeline_decode, TimelineEvent::Tiles, b.num_tiles as u64);
        }
    }
    let mbar = Mbarriers { base: dynamic_smem_base().byte_add(b.plan.mbar_offset), stages: STAGES as u32 };
    // SAFETY: the mbarrier array is inside the plan; initialised by one thread and published to
    // the CTA by a barrier every thread reaches at this one instruction.
    unsafe {
        if thread_idx_x() == 0 {
            for s in 0..STAGES as u32 {
                mbarrier_init_shared_b64(mbar.full(s), full_arrivals(geo.producer_warps));
                mbarrier_init_shared_b64(mbar.empty(s), EMPTY_ARRIVALS);
            }
        }
        bar_sync_all();
    }
    // SAFETY: forwarded launch contract; the branch is warp-uniform.
    unsafe {
        if warp >= CONSUMER_WARPS {
            producer::<O::K, D, STAGES>(p, &b, mbar, warp - CONSUMER_WARPS, params_addr);
            // The ring becomes the consumers' merge scratch: meet them once more after the
            // last copy landed (See Note [ring reuse] in docs/DESIGN.md).
            barrier_sync_unaligned(BAR_RING_REUSE, b.geo.threads());
            // In cluster mode every thread of the cluster meets at the two cluster barriers
            // of `cluster_merge`.
            if in_cluster(p) {
                #[cfg(target_feature = "sm_90")]
                {
                    barrier_cluster_sync();
                    barrier_cluster_sync_relaxed();
                }
            }
        } else if WG {
            #[cfg(target_feature = "sm_90a")]
            consumer_wgmma::<O, D, NT, STAGES>(p, &b, warp, mbar);
        } else if NARROW {
            consumer_narrow::<O, D, KS, STAGES, PAIRED>(p, &b, warp, mbar);
        } else {
            consumer::<O, D, NT, KS, MT, RG, NJ, KG, STAGES>(p, &b, warp, mbar);
        }
    }
}

/// A load warp. The `n` load warps share every tile by rows: warp `w` copies the K and V rows
/// `w R .. (w + 1) R` (`R = 64 / n`), so a tile's copies leave from `n` warps (on `n` SM
/// sub-partitions) at once, and each stage's `full` barrier hears from all `32 n` load lanes.
/// Lane `l` owns rows `w R + l + 32 h` (`h` = 0, 1, below `R`): it reads their page-table
/// entries (consecutive tokens across lanes: coalesced) and computes their 64-bit byte offsets
/// in the pools; the copy loop then broadcasts each row's offset with `shfl` to the lanes that
/// copy that row's 16-byte chunks, so every warp-wide `cp.async` moves whole rows.
///
/// Whole tiles of a split that starts on a box boundary go by TMA tensor maps instead when the
/// host encoded them (`p.tma_box_tokens > 0`, sm_90+; See Note [TMA tiles] in docs/DESIGN.md):
/// the lanes read the tile's page ids as above and issue one box each. `params_addr` gives the
/// generic address of the kernel's parameter block, where the maps are.
#[inline(always)]
unsafe fn producer<K: KvFormat, const D: usize, const STAGES: usize>(
    p: &DecodeParams,
    b: &Block,
    mbar: Mbarriers,
    load_warp: u32,
    params_addr: impl Fn() -> u64,
) {
    if b.num_tiles == 0 {
        // Nothing to load (an empty split): the consumers see no tile either.
        return;
    }
    let rows_per_warp = KV_TILE_TOKENS / b.geo.producer_warps;
    // Row slots per lane (1 or 2); slot h is a real row of the warp when l + 32 h < R.
    let slots = rows_per_warp.div_ceil(32);
    let lane = lane_id();
    let cpr = b.geo.chunks_per_row();
    let rows_per_copy = 32 / cpr;
    let ring = dynamic_smem_base().byte_add::<u8>(b.plan.ring_offset);
    // Page-table entries are copied PAGE_ID_LEAD tiles ahead into a shared-memory ring with
    // 4-byte `cp.async` (no register waits on the load) and read back at their tile, after a
    // `cp.async.wait_group` that finds them long landed: the round trip (one per tile when every
    // token has its own page) never stalls the copy loop. Entry indices are clamped to the
    // range's last token, so every copy reads a real entry. See Note [page-table prefetch] in
    // docs/DESIGN.md.
    // K/V rows are read once per call: evict them from L2 first, so the plan's small tables
    // (work items, page table) and the split partials stay there across calls.
    let kv_policy = createpolicy_l2_evict_first();
    let row_of = |h: u32| load_warp * rows_per_warp + lane + 32 * h;
    let token_of = |t: u32, h: u32| b.work.kv_start + t * KV_TILE_TOKENS + row_of(h);
    // TMA tiles are issued by load warp 0 alone, from the page ids of all 64 rows (two per lane).
    let tma_path = cfg!(target_feature = "sm_90") && b.geo.tma_capable() && p.tma_box_tokens != 0 && b.dm == D as u32;
    let id_slots = if tma_path && load_warp == 0 { 2 } else { slots };
    let (id_base, id_width) = (page_id_ring_base(load_warp, b.geo.producer_warps), page_id_slots(load_warp, b.geo.producer_warps));
    let id_slot = |t: u32, h: u32| -> Smem<u32> {
        let slot = id_base + (t % PAGE_ID_LEAD as u32) * id_width + h;
        dynamic_smem_base().byte_add(b.plan.page_ids_offset + 4 * (32 * slot + lane))
    };
    let fetch_ids = |t: u32| {
        for h in 0..id_slots {
            let token = token_of(t, h).min(b.work.kv_end - 1);
            // SAFETY: kv_start <= token < kv_end <= kv_len, so its page-table entry exists
            // (validated; num_tiles > 0 means kv_end > kv_start); the slot is this lane's.
            unsafe { cp_async_ca_4(id_slot(t, h), Gmem::from_addr(p.page_indices).add((b.first_page_entry + token / p.page_size) as u64)) };
        }
        // One group per tile's ids (it also closes the K/V copies issued before it: see Note
        // [page-table prefetch]).
        cp_async_commit_group();
    };
    let offsets = |t: u32, ids: [u32; 2]| -> [u64; 2] {
        let mut off = [NO_ROW; 2];
        for h in 0..slots {
            let token = token_of(t, h);
            if token < b.work.kv_end && lane + 32 * h < rows_per_warp {
                off[h as usize] = kv_row_bytes::<K>(p, b.dm, ids[h as usize], token, b.work.kv_head);
            }
        }
        off
    };
    for t in 0..PAGE_ID_LEAD as u32 {
        fetch_ids(t);
    }
    // The next-wave item (plan data, like our own: readable before the dependency), loaded
    // now by the last load warp and used after its last tile.
    let next = if load_warp + 1 == b.geo.producer_warps && b.next_work != NO_NEXT_WORK {
        // SAFETY: `next_work < num_work` (set so in `decode_cta`).
        Some(unsafe { *(p.work as *const DecodeWork).add(b.next_work as usize) })
    } else {
        None
    };
    // Launched as a programmatic dependent of the previous kernel on sm_90+: the work item and
    // page ids are the plan's own (uploaded before that kernel ran); K/V may be written by it,
    // except, with `early_kv`, the rows before the request's new tokens: the tiles made of them
    // go before the wait (at most the ring's stages: the next waits for the consumers, who
    // wait for the dependency). See Note [early K/V tiles] in docs/DESIGN.md.
    let wait_at = if p.early_kv != 0 { b.work.tiles_before_new_keys() } else { 0 };
    // (No programmatic dependency before sm_90.)
    #[cfg(not(target_feature = "sm_90"))]
    let _ = wait_at;
    // TMA tiles: every row real, the split starting on a box boundary (so does every tile).
    let box_tokens = if tma_path { p.tma_box_tokens } else { 0 };
    let tma_tiles = if box_tokens != 0 && b.work.kv_start % box_tokens == 0 { (b.work.kv_end - b.work.kv_start) / KV_TILE_TOKENS } else { 0 };
    // (`tma_tiles` is 0 at compile time in kernels without the path, so `new`, which divides
    // by the 128-byte blocks of a row, is not in them.)
    #[cfg(target_feature = "sm_90")]
    let tma = if tma_tiles > 0 && load_warp == 0 { TmaLane::new::<K, D>(b, box_tokens, params_addr()) } else { TmaLane::NONE };
    // (No TMA path before sm_90: the parameter block's address is not needed there.)
    #[cfg(not(target_feature = "sm_90"))]
    let _ = params_addr;
    // Token in page of each TMA tile's first row (see `TmaLane`): kept by steps of 64.
    let mut tile_slot = if tma_tiles > 0 { b.work.kv_start % p.page_size } else { 0 };
    let mut t = 0;
    while t < b.num_tiles {
        #[cfg(target_feature = "sm_90")]
        if t == wait_at {
            griddepcontrol_wait();
        }
        let s = t % STAGES as u32;
        if t >= STAGES as u32 {
            // SAFETY: hand-over protocol of the module doc: wait until the consumers released
            // this stage's previous tile (t - STAGES).
            unsafe { mbarrier_wait_parity_shared_b64(mbar.empty(s), parity(t - STAGES as u32, STAGES as u32)) };
        }
        // Groups committed so far: tiles 0 .. t + LEAD - 1; tile t's is complete once at most
        // LEAD - 1 are pending.
        cp_async_wait_group::<{ PAGE_ID_LEAD as u32 - 1 }>();
        // SAFETY: this lane's slots, landed (the wait above).
        let ids: [u32; 2] = core::array::from_fn(|h| if (h as u32) < id_slots { unsafe { ld_shared_u32(id_slot(t, h as u32)) } } else { 0 });
        // Tile t's slot is free again (its values are in registers).
        fetch_ids(t + PAGE_ID_LEAD as u32);
        let k_tile = SwizzledTile { base: ring.byte_add(s * b.plan.stage_bytes), chunks_per_row: cpr, column_block_bytes: b.geo.column_block_bytes() };
        let v_tile = SwizzledTile { base: k_tile.base.byte_add(b.plan.kv_tile_bytes), ..k_tile };
        if t < tma_tiles {
            // SAFETY: a whole tile of real rows on box boundaries (`tma_tiles`), the stage free
            // (the wait above), the maps encoded by the host for these pools.
            #[cfg(target_feature = "sm_90")]
            unsafe {
                if load_warp == 0 {
                    tma.copy_tile(b, ids, tile_slot, k_tile.base, mbar.full(s), kv_policy)
                } else {
                    // The other load warps' lanes complete the phase's arrivals.
                    mbarrier_arrive_shared_b64(mbar.full(s))
                }
            };
            tile_slot += KV_TILE_TOKENS;
            if tile_slot >= p.page_size {
                tile_slot = 0;
            }
            #[cfg(ff_tile_stamps)]
            // SAFETY: forwarded.
            unsafe {
                stamp_tile_issued(p, t, load_warp)
            };
            t += 1;
            continue;
        }
        let cur = offsets(t, ids);
        let (row_in_copy, chunk) = (lane / cpr, lane % cpr);
        // Chunks past the row's `dm` columns (padded variants) copy nothing: their zero fill
        // keeps the tile's pad columns zero.
        let real_chunk = in_row::<D>(b, 16 * chunk / K::ELEM_BYTES);
        let mut it = 0;
        while it < rows_per_warp / rows_per_copy {
            // Row within the warp's rows; its owner is lane r % 32, in slot r / 32 (uniform
            // across the warp for a given `it`).
            let r = it * rows_per_copy + row_in_copy;
            let owned = if it * rows_per_copy < 32 { cur[0] } else { cur[1] };
            // SAFETY: full warp, uniform flow.
            let off = unsafe {
                let lo = shfl_sync_idx_b32(owned as u32, r % 32);
                let hi = shfl_sync_idx_b32((owned >> 32) as u32, r % 32);
                ((hi as u64) << 32) | lo as u64
            };
            let (src_off, bytes) = if off & NO_ROW != 0 || !real_chunk { (0, 0) } else { (off + 16 * chunk as u64, 16) };
            let row = load_warp * rows_per_warp + r;
            // SAFETY: valid rows point inside the pools (validated page ids); others copy 0 bytes.
            unsafe {
                cp_async_cg_16_zfill_hint(k_tile.chunk(row, chunk), Gmem::from_addr(p.k_pool + src_off), bytes, kv_policy);
                cp_async_cg_16_zfill_hint(v_tile.chunk(row, chunk), Gmem::from_addr(p.v_pool + src_off), bytes, kv_policy);
            }
            it += 1;
        }
        // The stage is full once every load lane's copies (and every older one) have landed;
        // the producers themselves never wait for data, only for free stages.
        // SAFETY: hand-over protocol; every load lane arrives once per tile.
        unsafe { cp_async_mbarrier_arrive_noinc_shared_b64(mbar.full(s)) };
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile_issued(p, t, load_warp)
        };
        t += 1;
    }
    if let Some(w) = next {
        // SAFETY: a work item of the validated plan.
        unsafe { prefetch_item_start::<K>(p, b.dm, &w) };
    }
    if lane == 0 && load_warp == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::LastIssue, global_timer_ns()) };
    }
    // The consumers waited on every full phase, so every copy has landed before the ring is
    // reused; close and wait for this thread's copies as well, so the ring-reuse barrier does
    // not rest on that alone (copies not committed to a group are not covered by wait_group).
    cp_async_commit_group();
    cp_async_wait_group::<0>();
    #[cfg(ff_tile_stamps)]
    if load_warp == 0 {
        // SAFETY: forwarded.
        unsafe { stamp_epi(p, 4) };
    }
}

/// Byte offset in the K (or V) pool of the row of `token` (in page `page_id`) for `kv_head`, in
/// either page layout: `PagedKvLayout::row_index` with the strides from the params. The
/// producer's copies and the next-wave prefetch both address rows through it.
#[inline(always)]
fn kv_row_bytes<K: KvFormat>(p: &DecodeParams, dm: u32, page_id: u32, token: u32, kv_head: u32) -> u64 {
    let page_rows = p.page_size as u64 * p.kv_heads as u64;
    let slot_row = (token % p.page_size) as u64 * p.kv_slot_stride_rows as u64;
    let head_row = kv_head as u64 * p.kv_head_stride_rows as u64;
    (page_id as u64 * page_rows + slot_row + head_row) * (dm as u64 * K::ELEM_BYTES as u64)
}

/// The next-wave prefetch (See Note [next-wave prefetch] in docs/DESIGN.md), one load warp:
/// bring into L2 the page-table entries of the first [`PAGE_ID_LEAD`] tiles of work item `w`
/// (what its CTA's load warps fetch before anything else) and the K and V rows of its first
/// tile, so that the CTA which starts on `w` about when this one ends finds them there instead
/// of queueing twice behind the other SMs' streams. Hints only: nothing waits for them.
///
/// # Safety
/// A full warp; `w` an item of the validated plan (its page-table entries and pages in range).
#[inline(always)]
unsafe fn prefetch_item_start<K: KvFormat>(p: &DecodeParams, dm: u32, w: &DecodeWork) {
    if w.kv_end <= w.kv_start {
        return;
    }
    let lane = lane_id();
    let entry = |token: u32| w.first_page_entry + token / p.page_size;
    let last = (w.kv_start + PAGE_ID_LEAD as u32 * KV_TILE_TOKENS).min(w.kv_end) - 1;
    let (e0, e1) = (p.page_indices + 4 * entry(w.kv_start) as u64, p.page_indices + 4 * entry(last) as u64);
    let mut line = (e0 & !127) + 128 * lane as u64;
    while line <= e1 {
        // SAFETY: inside the entries e0 ..= e1 of the validated page table (the first line
        // from e0 itself).
        unsafe { prefetch_global_l2(Gmem::from_addr(line.max(e0))) };
        line += 32 * 128;
    }
    let row_bytes = dm as u64 * K::ELEM_BYTES as u64;
    for h in 0..2 {
        let token = w.kv_start + lane + 32 * h;
        if token < w.kv_end {
            // SAFETY: the entry of a token of the item (validated table).
            let id = unsafe { ld_global_nc_u32(Gmem::from_addr(p.page_indices).add(entry(token) as u64)) };
            let row = kv_row_bytes::<K>(p, dm, id, token, w.kv_head);
            let mut c = 0;
            while c < row_bytes {
                // SAFETY: inside the row of a validated page.
                unsafe {
                    prefetch_global_l2(Gmem::from_addr(p.k_pool + row + c));
                    prefetch_global_l2(Gmem::from_addr(p.v_pool + row + c));
                }
                c += 128;
            }
        }
    }
}

/// A load lane's part of every TMA tile (See Note [TMA tiles] in docs/DESIGN.md), fixed for
/// the split: lane `j` copies box `j` of a tile's `2 n` boxes (`n` = pages x 128-byte column
/// blocks of a K or V tile, at most 16), i.e. operand `j / n` (K, V), page `(j % n) / blocks`,
/// column block `j % blocks`; lanes past `2 n` copy nothing. Each lane arrives on the stage's
/// `full` barrier expecting its box's bytes (none without a box), so a phase completes when all
/// 32 arrived and every box landed, as with the `cp.async` tiles' `arrive.noinc`.
#[cfg(target_feature = "sm_90")]
#[derive(Clone, Copy)]
struct TmaLane {
    /// First row of the box in the tile (a multiple of the box rows).
    row: u32,
    /// Byte offset of the box in the stage (V boxes after the K tile).
    stage_offset: u32,
    /// Generic address of the tensor map (K or V) in the parameter block.
    map: u64,
    /// Head-dim coordinate of the box's column block.
    dim: i32,
    /// Bytes the box brings (0: no box).
    bytes: u32,
}

#[cfg(target_feature = "sm_90")]
impl TmaLane {
    /// No box (a split without TMA tiles).
    const NONE: TmaLane = TmaLane { row: 0, stage_offset: 0, map: 0, dim: 0, bytes: 0 };

    /// This lane's box for boxes of `box_tokens` rows (> 0) in a variant with the TMA path
    /// (`DecodeGeometry::tma_capable`: at least one 128-byte block per row); `params_addr` is
    /// the generic address of the kernel's parameter block.
    #[inline(always)]
    fn new<K: KvFormat, const D: usize>(b: &Block, box_tokens: u32, params_addr: u64) -> TmaLane {
        let lane = lane_id();
        let blocks = D as u32 * K::ELEM_BYTES / 128;
        let n = (KV_TILE_TOKENS / box_tokens) * blocks;
        let (v, j) = (lane / n, lane % n);
        let (page, block) = (j / blocks, j % blocks);
        let row = page * box_tokens;
        let map = if v == 0 { core::mem::offset_of!(DecodeParams, k_map) } else { core::mem::offset_of!(DecodeParams, v_map) };
        TmaLane {
            row,
            stage_offset: v * b.plan.kv_tile_bytes + block * b.geo.column_block_bytes() + row * 128,
            map: params_addr + map as u64,
            dim: (block * 128 / K::ELEM_BYTES) as i32,
            bytes: if lane < 2 * n { box_tokens * 128 } else { 0 },
        }
    }

    /// Issue this lane's box of a tile whose first row is token `slot` of its page (boxes past
    /// the first page start at slot 0: a tile holds whole pages, or lies in one), into the stage
    /// at `stage`. `ids` are this lane's page ids for rows `lane` and `lane + 32` of the tile.
    /// The box goes under the L2 `policy` of the producer's row copies (See Note [L2 policy]
    /// in docs/DESIGN.md).
    ///
    /// # Safety
    /// The load warp, uniform flow; the tile is whole and starts on a box boundary; its stage
    /// (`stage`, `full`) is free; the parameter block's maps describe the pools with boxes of
    /// this lane's rows.
    #[inline(always)]
    unsafe fn copy_tile(&self, b: &Block, ids: [u32; 2], slot: u32, stage: Smem<u8>, full: Smem<u64>, policy: u64) {
        // SAFETY: full warp, uniform flow (forwarded).
        let (id0, id1) = unsafe { (shfl_sync_idx_b32(ids[0], self.row % 32), shfl_sync_idx_b32(ids[1], self.row % 32)) };
        let id = if self.row < 32 { id0 } else { id1 };
        // SAFETY: forwarded; the stage's phase expects one arrival per load lane.
        unsafe { mbarrier_arrive_expect_tx_shared_b64(full, self.bytes) };
        if self.bytes != 0 {
            let coords = [self.dim, b.work.kv_head as i32, if self.row == 0 { slot as i32 } else { 0 }, id as i32];
            // SAFETY: forwarded; the destination is 1 KiB aligned (stage and K/V tiles on 1 KiB,
            // column blocks of 8 KiB, rows in multiples of 8 x 128 bytes).
            unsafe { cp_async_bulk_tensor_4d_shared_global_hint(stage.byte_add(self.stage_offset), self.map, coords, full, policy) };
        }
    }
}

/// Split-KV cluster mode (See Note [cluster merge] in docs/DESIGN.md): never on the sm_80
/// module, whose launches carry no clusters.
#[inline(always)]
fn in_cluster(p: &DecodeParams) -> bool {
    cfg!(target_feature = "sm_90") && cluster_group(p) > 1
}

/// CTAs per block in a cluster's merge groups: the launch's cluster size, or in graph mode the
/// batch's group from the plan (a divisor of the cluster size; 0: the combine merges); the
/// same for every CTA of the grid. Read where it is used, not kept in [`Block`] (a register
/// held through the tile loop cost the 16-bit `_w32` variants 16 spill bytes).
#[inline(always)]
fn cluster_group(p: &DecodeParams) -> u32 {
    if !cfg!(target_feature = "sm_90") || p.cluster_splits <= 1 {
        0
    } else if p.num_work_dev != NONE_ADDR {
        // SAFETY: host-provided device counters (graph mode), three words.
        unsafe { table_u32(p.num_work_dev, 2) }
    } else {
        p.cluster_splits
    }
}

/// Whether column `d` (< `D`) of a tile row is a column of the row in memory (not the padded
/// variants' pad); constant true where `b.dm == D`.
#[inline(always)]
fn in_row<const D: usize>(b: &Block, d: u32) -> bool {
    b.dm == D as u32 || d < b.dm
}

/// Whether the CTA runs the kv-head-pair view (See Note [kv-head pairs] in docs/DESIGN.md):
/// its block is two adjacent kv heads of an NHD pool read as one row of `dm = 2 qdm` columns,
/// the first `group / 2` packed rows of each token the first kv head's q heads (tile columns
/// `0 .. qdm`), the others the second's (`qdm .. dm`). Constant false but in the padded
/// variants.
#[inline(always)]
fn paired_heads(b: &Block) -> bool {
    b.qdm != b.dm
}

/// Whether local packed row `lr` is a row of the second kv head of the CTA's pair (false
/// outside the kv-head-pair view).
#[inline(always)]
fn second_of_pair(p: &DecodeParams, b: &Block, lr: u32) -> bool {
    paired_heads(b) && (b.work.row_start + lr) % p.group >= p.group / 2
}

/// First tile column of local packed row `lr`'s Q / O columns: 0, or `qdm` for the rows of
/// the second kv head of a pair.
#[inline(always)]
fn row_col0(p: &DecodeParams, b: &Block, lr: u32) -> u32 {
    if second_of_pair(p, b, lr) {
        b.qdm
    } else {
        0
    }
}

/// Whether tile column `d` of local packed row `lr` is one of the row's Q / O columns
/// (`row_col0 .. row_col0 + qdm`): [`in_row`] outside the kv-head-pair view.
#[inline(always)]
fn in_q_row<const D: usize>(p: &DecodeParams, b: &Block, lr: u32, d: u32) -> bool {
    if paired_heads(b) {
        let c0 = row_col0(p, b, lr);
        d >= c0 && d < c0 + b.qdm
    } else {
        in_row::<D>(b, d)
    }
}

/// Whether the last 32 tile columns are all pad (`b.dm <= D - 32`, padded variants only): the
/// mma.sync consumers then skip the GEMM steps of that block (one K load of S = Q·Kᵀ, one V
/// load of O += P·V), whose Q, K and V columns are zero: a quarter of them at head dims 80 and
/// 96. Tested once per consumer, and only at the last block (the others of a `_d{64,128}p`
/// tile always hold real columns). Not at `D = 256` (an eighth at most, and its row-split
/// variants, at the register cap, spilled 16-40 more bytes); constant false where
/// `b.dm == D`. (See Note [padded head dims] in docs/DESIGN.md.)
#[inline(always)]
fn trim_last_block<const D: usize>(b: &Block) -> bool {
    D <= 128 && b.dm + 32 <= D as u32
}

/// Token index (within the request) of local packed row `lr`, and whether it is a real row.
#[inline(always)]
fn row_token(p: &DecodeParams, b: &Block, lr: u32) -> (u32, bool) {
    let i = (b.work.row_start + lr) / p.group;
    (i, i < b.q_len)
}

/// q head of local packed row `lr`.
#[inline(always)]
fn row_head(p: &DecodeParams, b: &Block, lr: u32) -> u32 {
    b.work.kv_head * p.group + (b.work.row_start + lr) % p.group
}

/// Row of the [tokens, q_heads] Q / O / LSE tensors for token `i` of the CTA's request and local
/// packed row `lr`.
#[inline(always)]
fn q_row(p: &DecodeParams, b: &Block, i: u32, lr: u32) -> u32 {
    (b.first_token + i) * p.q_heads + row_head(p, b, lr)
}

/// Wait for the previous kernel, then stage the CTA's Q rows in shared memory as `EQ` (one
/// 16-dim block, two chunks, per step, in the k order of K's fragments; rows past the request's
/// tokens are zero) and, for row-scaled formats, each row's score factor. Ends with a consumer
/// barrier; returns the Q tile.
///
/// # Safety
/// All 128 consumer threads, uniform flow; launch contract of `decode_cta`.
#[inline(always)]
unsafe fn stage_q<O: Operands, const D: usize>(p: &DecodeParams, b: &Block) -> SwizzledTile {
    let tid = thread_idx_x();
    let smem = dynamic_smem_base();
    let s_q = SwizzledTile { base: smem.byte_add(b.plan.q_offset), chunks_per_row: b.geo.q_chunks_per_row(), column_block_bytes: b.geo.column_block_bytes() };
    let rows = b.geo.rows_per_block();
    // Q (and everything this CTA writes) may belong to the previous kernel: wait for it (a
    // no-op when the launch was not a programmatic dependent).
    #[cfg(target_feature = "sm_90")]
    griddepcontrol_wait();
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::DependencyMet, global_timer_ns()) };
    }
    // Q tile -> shared memory as `EQ`, one 16-dim block (two chunks) per step, in the k order
    // of K's fragments; rows past the request's tokens are zero.
    let blocks = D as u32 / 16;
    let mut idx = tid;
    while idx < rows * blocks {
        let (lr, blk) = (idx / blocks, idx % blocks);
        let (i, real) = row_token(p, b, lr);
        // (Blocks past `dm`, the padded variants' pad columns, are zero; in the kv-head-pair
        // view so are those of the other kv head's columns.)
        let mut w = if real && in_q_row::<D>(p, b, lr, 16 * blk) {
            let row = q_row(p, b, i, lr) as u64 * b.qdm as u64 * O::Q::ELEM_BYTES as u64;
            // SAFETY: a real row of the validated Q tensor (`blk - row_col0 / 16 < qdm / 16`).
            unsafe { O::Q::load_block(p.q + row, blk - row_col0(p, b, lr) / 16) }
        } else {
            [[0; 4]; 2]
        };
        if O::Q::ROW_SCALED {
            // A row's blocks sit in `blocks` (4, 8 or 16) consecutive, aligned lanes of one warp:
            // reduce its max over them, scale by 2^k with max * 2^k in [2^14, 2^15).
            const { assert!(D % 32 == 0) };
            let mut a = O::Q::amax(&w);
            let mut o = 1;
            while o < blocks {
                // SAFETY: full warp: rows * blocks = MT * D items, a multiple of 32 (D % 32 == 0),
                // so each pass of the loop covers whole warps (D = 64, MT = 1: warps 0-1 only).
                a = a.max(f32::from_bits(unsafe { shfl_sync_bfly_b32(a.to_bits(), o) }));
                o *= 2;
            }
            let k = if a > 0.0 { (141 - ((a.to_bits() >> 23) & 0xff) as i32).clamp(-126, 126) } else { 0 };
            w = O::Q::scaled(w, f32::from_bits(((127 + k) as u32) << 23));
            if blk == 0 {
                // SAFETY: inside the row-scale region of the plan.
                unsafe { st_shared_u32(smem.byte_add(b.plan.row_scale_offset + 4 * lr), ((127 - k) as u32) << 23) };
            }
        }
        // The wgmma consumers read K (fp8 converted) in natural order.
        let w = if b.geo.wgmma { w } else { q_block_order::<O::K>(w) };
        // SAFETY: inside the Q region of the plan.
        unsafe {
            st_shared_v4_u32(s_q.chunk(lr, 2 * blk), w[0]);
            st_shared_v4_u32(s_q.chunk(lr, 2 * blk + 1), w[1]);
        }
        idx += CONSUMER_WARPS * 32;
    }
    // The wgmma consumer reads Q through the async proxy.
    if b.geo.wgmma {
        fence_proxy_async_shared_cta();
    }
    // SAFETY: the 128 consumer threads.
    unsafe { bar_sync_named(BAR_CONSUMERS, CONSUMER_WARPS * 32) };
    s_q
}

/// Per-CTA row facts shared by both consumers: the score scale before any row factor, the
/// softcap, and the query positions of the block's first row and of the request's last key.
#[derive(Clone, Copy)]
struct RowSetup {
    /// The score scale of the CTA's rows, or in the kv-head-pair view of the first kv head's
    /// rows and the second's (their q and k scale entries differ).
    scale: [f32; 2],
    softcap_log2: f32,
    min_pos: i32,
    max_pos: i32,
}

impl RowSetup {
    #[inline(always)]
    fn new(p: &DecodeParams, b: &Block) -> RowSetup {
        let (q, k) = (scale_pair(p, b, p.q_scale), scale_pair(p, b, p.k_scale));
        let (first_i, _) = row_token(p, b, 0);
        RowSetup {
            scale: [p.score_scale * (q[0] * k[0]), p.score_scale * (q[1] * k[1])],
            softcap_log2: p.softcap_log2,
            min_pos: b.kv_len as i32 - b.q_len as i32 + first_i as i32,
            max_pos: b.kv_len as i32 - 1,
        }
    }
    /// Score transform of local row `lr` (with its power-of-two factor for row-scaled Q).
    ///
    /// # Safety
    /// After `stage_q` (which wrote the row factors).
    #[inline(always)]
    unsafe fn transform<O: Operands>(&self, p: &DecodeParams, b: &Block, lr: u32) -> ScoreTransform {
        let row = if O::Q::ROW_SCALED {
            // SAFETY: inside the row-scale region, written before `stage_q`'s barrier.
            f32::from_bits(unsafe { ld_shared_u32(dynamic_smem_base().byte_add(b.plan.row_scale_offset + 4 * lr)) })
        } else {
            1.0
        };
        // Clamped positive: the consumers take the max of scores before scaling them.
        let scale = self.scale[second_of_pair(p, b, lr) as usize];
        ScoreTransform { scale: (scale * row).max(f32::MIN_POSITIVE), softcap_log2: self.softcap_log2 }
    }
    /// Mask of local row `lr` (rows past the request's tokens take its last token's).
    #[inline(always)]
    fn mask(&self, p: &DecodeParams, b: &Block, lr: u32) -> RowMask {
        let (i, real) = row_token(p, b, lr);
        let i = if real { i } else { b.q_len.max(1) - 1 };
        RowMask { pos: b.kv_len as i32 - b.q_len as i32 + i as i32, kv_end: b.work.kv_end as i32, window_left: p.window_left }
    }
    /// Tile `t`'s first key, and whether any of its keys may be hidden from some row (the
    /// range's end, the causal diagonal or the window's left edge).
    #[inline(always)]
    fn tile_mask_test(&self, p: &DecodeParams, b: &Block, t: u32) -> (i32, bool) {
        let tile_key0 = (b.work.kv_start + t * KV_TILE_TOKENS) as i32;
        let tile_end = tile_key0 + KV_TILE_TOKENS as i32;
        let needs = tile_end > b.work.kv_end as i32 || tile_end - 1 > self.min_pos || (p.window_left >= 0 && tile_key0 < self.max_pos - p.window_left);
        (tile_key0, needs)
    }
}

/// Timeline, diagnostic builds only (`FF_TILE_STAMPS=1 cargo xtask bundle`, which compiles the
/// kernels with `--cfg ff_tile_stamps`): thread 0 stamps when it has finished each of the first
/// `TIMELINE_TILES` tiles (`done` tiles so far). The per-tile check cost the issue-bound fp8
/// consumers ~4% (W5 37.7 -> 39.1 us, session 14), so default builds leave it out.
///
/// # Safety
/// Consumer thread; the host sized the timeline for the grid (or passed none).
#[cfg(ff_tile_stamps)]
#[inline(always)]
unsafe fn stamp_tile(p: &DecodeParams, done: u32) {
    use ferroflash_contract::params::TIMELINE_TILES;
    if thread_idx_x() == 0 && done >= 1 && done <= TIMELINE_TILES {
        // SAFETY: forwarded.
        unsafe { stamp_tile_word(p, done - 1) };
    }
}

/// Timeline, diagnostic builds only (see [`stamp_tile`]): thread 0 stamps when it found tile
/// `t`'s stage full, so a tile's consumer pass (begin to end) and its wait for data (the
/// previous end to this begin) can be told apart.
///
/// # Safety
/// As [`stamp_tile`].
#[cfg(ff_tile_stamps)]
#[inline(always)]
unsafe fn stamp_tile_begin(p: &DecodeParams, t: u32) {
    use ferroflash_contract::params::TIMELINE_TILES;
    if thread_idx_x() == 0 && t < TIMELINE_TILES {
        // SAFETY: forwarded.
        unsafe { stamp_tile_word(p, TIMELINE_TILES + t) };
    }
}

/// Timeline, diagnostic builds only (see [`stamp_tile`]): lane 0 of load warp 0 stamps when it
/// finished issuing tile `t`'s copies.
///
/// # Safety
/// As [`stamp_tile`].
#[cfg(ff_tile_stamps)]
#[inline(always)]
unsafe fn stamp_tile_issued(p: &DecodeParams, t: u32, load_warp: u32) {
    use ferroflash_contract::params::TIMELINE_TILES;
    if load_warp == 0 && lane_id() == 0 && t < TIMELINE_TILES {
        // SAFETY: forwarded.
        unsafe { stamp_tile_word(p, 2 * TIMELINE_TILES + t) };
    }
}

/// Timeline, diagnostic builds only: epilogue stamp `k` (< 8) of this CTA, stored by the
/// calling threads in the issue group's words of tiles 56-63 (no decode CTA of the stamped
/// workloads has that many tiles): 0 ring-reuse barrier passed, 1 scratch written, 2 first
/// consumers' barrier passed, 3 pass 1 and its barrier done (all by consumer warp 0), 4 the
/// producer's `wait_group 0` done (load warp 0). Whole warps store (the same
/// address): a stamp by one lane next to a barrier hung the kernel (session 15).
///
/// # Safety
/// As [`stamp_tile`].
#[cfg(ff_tile_stamps)]
#[inline(always)]
unsafe fn stamp_epi(p: &DecodeParams, k: u32) {
    use ferroflash_contract::params::TIMELINE_TILES;
    // SAFETY: forwarded; k < 8.
    unsafe { stamp_tile_word(p, 3 * TIMELINE_TILES - 8 + k) };
}

/// Word `w` of this CTA's per-tile stamps, stored by the calling thread (the callers pick it).
///
/// # Safety
/// As [`stamp_tile`], and `w < TIMELINE_TILE_WORDS`.
#[cfg(ff_tile_stamps)]
#[inline(always)]
unsafe fn stamp_tile_word(p: &DecodeParams, w: u32) {
    use ferroflash_contract::params::{TIMELINE_TILE_WORDS, TIMELINE_WORDS};
    if p.timeline_decode != NONE_ADDR {
        let at = (grid_dim_x() * TIMELINE_WORDS + block_idx_x() * TIMELINE_TILE_WORDS + w) as u64;
        // SAFETY: inside this CTA's tile stamps (the host sized the timeline for them).
        unsafe { *Gmem::<u64>::from_addr(p.timeline_decode).add(at).ptr() = global_timer_ns() };
    }
}

/// Timeline: thread 0 stamps when the first tile has landed.
///
/// # Safety
/// Consumer thread; the host sized the timeline for the grid (or passed none).
#[inline(always)]
unsafe fn stamp_first_data(p: &DecodeParams, b: &Block, mbar: Mbarriers) {
    if p.timeline_decode != NONE_ADDR && thread_idx_x() == 0 && b.num_tiles > 0 {
        // SAFETY: waiting on the first tile's phase is what the loop does first anyway.
        unsafe {
            mbarrier_wait_parity_shared_b64(mbar.full(0), 0);
            timeline_stamp(p.timeline_decode, TimelineEvent::FirstData, global_timer_ns());
        }
    }
}

/// Wait until tile `t`'s stage is full; its K and V tiles.
///
/// # Safety
/// Consumer thread, hand-over protocol (module doc); `t < num_tiles`.
#[inline(always)]
unsafe fn wait_tile<const STAGES: usize>(b: &Block, mbar: Mbarriers, t: u32) -> (SwizzledTile, SwizzledTile) {
    let s = t % STAGES as u32;
    // SAFETY: forwarded.
    unsafe { mbarrier_wait_parity_shared_b64(mbar.full(s), parity(t, STAGES as u32)) };
    let cpr = b.geo.chunks_per_row();
    let k = SwizzledTile {
        base: dynamic_smem_base().byte_add(b.plan.ring_offset + s * b.plan.stage_bytes),
        chunks_per_row: cpr,
        column_block_bytes: b.geo.column_block_bytes(),
    };
    (k, SwizzledTile { base: k.base.byte_add(b.plan.kv_tile_bytes), ..k })
}

/// Hand tile `t`'s stage back to the producer, unless no later tile will use it.
///
/// # Safety
/// Consumer thread whose reads of the stage are done; hand-over protocol.
#[inline(always)]
unsafe fn release_tile<const STAGES: usize>(b: &Block, mbar: Mbarriers, t: u32) {
    if t + (STAGES as u32) < b.num_tiles {
        // SAFETY: forwarded.
        unsafe { mbarrier_arrive_shared_b64(mbar.empty(t % STAGES as u32)) };
    }
}

/// The 16-bit-MMA consumer warp. Warp `warp` is row group `warp / KG` and key group
/// `warp % KG` (`KG = 4 / RG`): it owns the rows `16 MT rg .. 16 MT (rg + 1)` and takes the
/// keys `16 RG kg .. 16 RG (kg + 1)` of every tile (See Note [row-split consumers] in
/// docs/DESIGN.md). With `RG = 1` every warp holds all rows for 16 keys; with `RG = 4` every
/// warp holds 16 rows for all 64 keys.
#[inline(always)]
unsafe fn consumer<
    O: Operands,
    const D: usize,
    const NT: usize,
    const KS: usize,
    const MT: usize,
    const RG: usize,
    const NJ: usize,
    const KG: usize,
    const STAGES: usize,
>(
    p: &DecodeParams,
    b: &Block,
    warp: u32,
    mbar: Mbarriers,
) {
    let tid = thread_idx_x();
    let lane = lane_id();
    let quad = Quad::of_lane(lane);
    // SAFETY: forwarded; all 128 consumer threads.
    let s_q = unsafe { stage_q::<O, D>(p, b) };

    // (Consumer warps are 0-3: with one row group every warp is its own key group.)
    let (rg, kg) = if RG == 1 { (0, warp) } else { (warp / KG as u32, warp % KG as u32) };
    // This warp's first row and first key of every tile.
    let row_base = M_TILE_ROWS * MT as u32 * rg;
    let key_base = KEYS_PER_WARP * RG as u32 * kg;

    // Q stays in shared memory; its A fragments are re-read with ldmatrix per k-step (matrix
    // mi = lane / 8 of each x4 is rows +8 if mi is odd, k +8 if mi >= 2). Holding them in
    // registers would cost D / 4 registers per m tile and push the larger variants into spills.
    // (`mi` is computed in the tile loop, from a laundered lane id in `_w64`.)
    // Score transform and mask of this thread's rows (g and g + 8 of every m tile).
    let rs = RowSetup::new(p, b);
    let row_of = |mt: usize, h: usize| row_base + 16 * mt as u32 + quad.g + 8 * h as u32;
    // SAFETY: after `stage_q`.
    let xf: [[ScoreTransform; 2]; MT] = core::array::from_fn(|mt| core::array::from_fn(|h| unsafe { rs.transform::<O>(p, b, row_of(mt, h)) }));
    let mask: [[RowMask; 2]; MT] = core::array::from_fn(|mt| core::array::from_fn(|h| rs.mask(p, b, row_of(mt, h))));

    let mut acc = [[[0f32; 4]; NT]; MT];
    let trim = trim_last_block::<D>(b);
    let mut m_run = [[f32::NEG_INFINITY; 2]; MT];
    let mut l_run = [[0f32; 2]; MT];

    // SAFETY: forwarded.
    unsafe { stamp_first_data(p, b, mbar) };
    let mut t = 0;
    while t < b.num_tiles {
        // SAFETY: hand-over protocol (module doc).
        let (k_tile, v_tile) = unsafe { wait_tile::<STAGES>(b, mbar, t) };
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile_begin(p, t)
        };

        // `_w64` (four m16 row tiles): the fragment addresses below are recomputed every tile
        // from a laundered lane id; held across the loop they spilled at the 168-register cap
        // (16 local loads per tile). The other variants keep them in registers (laundering
        // cost `_w32` fp8 3%: session 17).
        let lane = if MT * RG == 4 { launder_u32(lane) } else { lane };
        let mi = lane / 8;
        // S = Q·Kᵀ over this warp's 16 RG keys: NJ n8 tiles per m tile, 32 dims per K load;
        // each Q fragment is read once per k step and used for all RG key blocks.
        let mut sc = [[[0f32; 4]; NJ]; MT];
        for kb in 0..KS / 2 {
            if kb + 1 == KS / 2 && trim {
                continue;
            }
            // SAFETY: full warp; inside the stage.
            let kf: [_; RG] = core::array::from_fn(|r| unsafe { O::K::k_frags::<O::EQ>(k_tile, key_base + KEYS_PER_WARP * r as u32, kb as u32, lane) });
            for ks in 0..2 {
                let kk = 2 * kb as u32 + ks as u32;
                for mt in 0..MT {
                    let q_row = row_base + 16 * mt as u32 + 8 * (mi % 2) + lane % 8;
                    // SAFETY: full warp; inside the Q tile.
                    let qf = unsafe { ldmatrix_x4_b16(s_q.chunk(q_row, 2 * kk + mi / 2)) };
                    for r in 0..RG {
                        // SAFETY: full warp.
                        unsafe {
                            sc[mt][2 * r] = O::EQ::mma(qf, kf[r][ks][0], sc[mt][2 * r]);
                            sc[mt][2 * r + 1] = O::EQ::mma(qf, kf[r][ks][1], sc[mt][2 * r + 1]);
                        }
                    }
                }
            }
        }

        let (tile_key0, needs_mask) = rs.tile_mask_test(p, b, t);
        let mut pf = [[[0u32; 4]; RG]; MT];
        for mt in 0..MT {
            let acc_mt = &mut acc[mt];
            // SAFETY: full warp.
            pf[mt] = unsafe {
                online_softmax::<O::EV, NJ, RG>(
                    &mut sc[mt],
                    tile_key0 + key_base as i32,
                    needs_mask,
                    quad.t,
                    &xf[mt],
                    &mask[mt],
                    &mut m_run[mt],
                    &mut l_run[mt],
                    |h, alpha| {
                        for a in acc_mt.iter_mut() {
                            a[2 * h] *= alpha;
                            a[2 * h + 1] *= alpha;
                        }
                    },
                )
            };
        }

        // O += P·V: four output n-tiles (32 dims) per V load, one k16 step per 16 keys.
        for db in 0..NT / 4 {
            if db + 1 == NT / 4 && trim {
                continue;
            }
            for r in 0..RG {
                // SAFETY: full warp; inside the stage.
                let vf = unsafe { O::K::v_frags(v_tile, key_base + KEYS_PER_WARP * r as u32, db as u32, lane) };
                for (q, vf) in vf.iter().enumerate() {
                    for mt in 0..MT {
                        // SAFETY: full warp.
                        unsafe { acc[mt][4 * db + q] = O::EV::mma(pf[mt][r], *vf, acc[mt][4 * db + q]) };
                    }
                }
            }
        }
        // SAFETY: this thread's reads of the stage are done.
        unsafe { release_tile::<STAGES>(b, mbar, t) };
        t += 1;
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile(p, t)
        };
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::LoopEnd, global_timer_ns()) };
    }

    // SAFETY: forwarded.
    unsafe { merge_and_store::<O, D, NT, MT, KG, false>(p, b, kg, row_base, &acc, &m_run, &l_run) };
}

/// The narrow consumer's Sᵀ fragment (element `e`: row `e % 2`, key `key0 + 8 (e / 2)`) masked
/// in place, in the units of [`online_softmax_case`] (raw `q·k`, or `tanh(q·k · scale)` with a
/// softcap; the base-2 logit is the unit times `k > 0`); `MASK` and `CAP` are the tile's mask
/// test and the call's softcap, tested once per tile so that the per-score code is
/// straight-line.
#[inline(always)]
fn mask_scores_narrow<const MASK: bool, const CAP: bool>(sc: &mut [f32; 4], key0: i32, xf: &[ScoreTransform; 2], mask: &[RowMask; 2]) {
    for (e, x) in sc.iter_mut().enumerate() {
        *x = masked_unit::<MASK, CAP>(&xf[e % 2], &mask[e % 2], *x, key0 + 8 * (e as i32 / 2));
    }
}

/// Online softmax of one m16 tile's scores over `NJ` key n-tiles, shared by the 16-bit-MMA and
/// wgmma consumers. Fragment element `e` of n-tile `j` is row `g + 8 (e / 2)`, key
/// `key0 + 8 j + 2 t + e % 2`: the scores are masked in place (and capped, with a softcap),
/// the rows' running max and sum updated with the lazy rescale (See Note [lazy rescale] in
/// docs/DESIGN.md: the reference moves only when a tile exceeds it by more than the threshold,
/// always on the first visible key since -inf + 8 is -inf; then P <= 2^8), the accumulator
/// rescaled through `rescale(h, alpha)` for row half `h`, and P returned packed as the A
/// fragments of the `RK = NJ / 2` k16 steps (C layout of two key n-tiles -> A layout of one k16
/// step).
///
/// # Safety
/// Full warp, uniform flow (quad shuffles).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn online_softmax<EV: Elem16, const NJ: usize, const RK: usize>(
    sc: &mut [[f32; 4]; NJ],
    key0: i32,
    needs_mask: bool,
    t: u32,
    xf: &[ScoreTransform; 2],
    mask: &[RowMask; 2],
    m_run: &mut [f32; 2],
    l_run: &mut [f32; 2],
    rescale: impl FnMut(usize, f32),
) -> [[u32; 4]; RK] {
    // One straight-line copy per (mask, softcap) case: tested per score, they cost the
    // 32-score consumers a branch and three predicated instructions each (session 23).
    // SAFETY (all arms): forwarded.
    unsafe {
        match (needs_mask, xf[0].softcap_log2 != 0.0) {
            (false, false) => online_softmax_case::<EV, NJ, RK, false, false>(sc, key0, t, xf, mask, m_run, l_run, rescale),
            (false, true) => online_softmax_case::<EV, NJ, RK, false, true>(sc, key0, t, xf, mask, m_run, l_run, rescale),
            (true, false) => online_softmax_case::<EV, NJ, RK, true, false>(sc, key0, t, xf, mask, m_run, l_run, rescale),
            (true, true) => online_softmax_case::<EV, NJ, RK, true, true>(sc, key0, t, xf, mask, m_run, l_run, rescale),
        }
    }
}

/// [`online_softmax`] for one case: `MASK`, the tile's mask test; `CAP`, the call's softcap.
/// The scores stay in units whose base-2 logit is `score * k`: raw `q·k` with `k` the row's
/// scale, or `tanh(q·k · scale)` with `k = softcap · log2(e)`. `k > 0` (the host's scales are
/// positive; the kernel clamps the descale product to the smallest normal), so the units' max
/// is the logits' max, -inf stays -inf, and each `exp2` argument is one `fma`.
///
/// # Safety
/// As [`online_softmax`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn online_softmax_case<EV: Elem16, const NJ: usize, const RK: usize, const MASK: bool, const CAP: bool>(
    sc: &mut [[f32; 4]; NJ],
    key0: i32,
    t: u32,
    xf: &[ScoreTransform; 2],
    mask: &[RowMask; 2],
    m_run: &mut [f32; 2],
    l_run: &mut [f32; 2],
    mut rescale: impl FnMut(usize, f32),
) -> [[u32; 4]; RK] {
    const { assert!(NJ == 2 * RK) };
    for (j, x) in sc.iter_mut().enumerate() {
        for (e, v) in x.iter_mut().enumerate() {
            *v = masked_unit::<MASK, CAP>(&xf[e / 2], &mask[e / 2], *v, key0 + (8 * j as u32 + 2 * t) as i32 + (e % 2) as i32);
        }
    }
    let mut p_row = [[0f32; 4]; NJ];
    for h in 0..2 {
        let k = if CAP { xf[h].softcap_log2 } else { xf[h].scale };
        let mut local = sc[0][2 * h].max(sc[0][2 * h + 1]);
        for x in sc.iter().skip(1) {
            local = local.max(x[2 * h]).max(x[2 * h + 1]);
        }
        // SAFETY: full warp.
        let m_tile = unsafe { quad_max(local) } * k;
        if m_tile > m_run[h] + RESCALE_THRESHOLD_LOG2 {
            let alpha = ex2_approx_ftz_f32(m_run[h] - m_tile);
            m_run[h] = m_tile;
            l_run[h] *= alpha;
            rescale(h, alpha);
        }
        let r = exp_ref(m_run[h]);
        let mut sum = 0.0;
        for (pr, x) in p_row.iter_mut().zip(sc.iter()) {
            for e in 0..2 {
                let pv = ex2_approx_ftz_f32(fma_rn_f32(x[2 * h + e], k, -r));
                pr[2 * h + e] = pv;
                sum += pv;
            }
        }
        l_run[h] += sum;
    }
    core::array::from_fn(|r| {
        [
            EV::pack(p_row[2 * r][0], p_row[2 * r][1]),
            EV::pack(p_row[2 * r][2], p_row[2 * r][3]),
            EV::pack(p_row[2 * r + 1][0], p_row[2 * r + 1][1]),
            EV::pack(p_row[2 * r + 1][2], p_row[2 * r + 1][3]),
        ]
    })
}

/// The wgmma consumer (`_g64`, sm_90a; See Note [wgmma consumer] in docs/DESIGN.md): the four
/// consumer warps are one warpgroup over 64 rows (warp `w` holds rows `16 w ..` of every
/// fragment) and all 64 keys of every tile. Per tile: S = Q·Kᵀ by `D / 16` `wgmma m64n64k16`
/// with Q and K K-major from shared memory, the online softmax of the row-split consumer on the
/// accumulator (its n-chunk `j` is the row-split consumer's key n-tile `j`), then O += P·V by
/// four `wgmma m64n128k16` per 128 head dims (O as one or two n128 accumulators, 64 or 128
/// registers; at head dim 64 four `wgmma m64n64k16` into one m64n64 accumulator, 32
/// registers) with P from registers and V N-major. Head dims 64 and 256 are 16-bit K/V only
/// (at 256 one CTA per SM: a 64 KiB stage, 32 KiB of Q). Over 16-bit K/V both wait for
/// completion before the stage is released. Over fp8 K/V the stage is released once widened,
/// and tile t's P·V stays in flight while the consumers widen tile t + 1 (into the other V
/// tile) and issue its S; one `wait_group 0` completes both.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn consumer_wgmma<O: Operands, const D: usize, const NT: usize, const STAGES: usize>(p: &DecodeParams, b: &Block, warp: u32, mbar: Mbarriers) {
    let tid = thread_idx_x();
    let quad = Quad::of_lane(lane_id());
    // SAFETY: forwarded; all 128 consumer threads.
    let s_q = unsafe { stage_q::<O, D>(p, b) };
    let row_base = M_TILE_ROWS * warp;
    let rs = RowSetup::new(p, b);
    let row_of = |h: usize| row_base + quad.g + 8 * h as u32;
    // SAFETY: after `stage_q`.
    let xf: [ScoreTransform; 2] = core::array::from_fn(|h| unsafe { rs.transform::<O>(p, b, row_of(h)) });
    let mask: [RowMask; 2] = core::array::from_fn(|h| rs.mask(p, b, row_of(h)));
    let block = b.geo.column_block_bytes();
    // O in n128 halves: half `h` holds head dims `128 h ..` (one at head dim 128, two at 256);
    // at head dim 64, one m64n64 accumulator `o64` instead. (`o1` is dead at head dim 128, `o0`
    // and `o1` at 64, `o64` at 128 and 256: every use is under its `D` test, so a dead one takes
    // no registers.)
    let mut o0: WgmmaAccM64N128 = [0.0; 64];
    let mut o1: WgmmaAccM64N128 = [0.0; 64];
    let mut o64: WgmmaAccM64N64 = [0.0; 32];
    let mut m_run = [f32::NEG_INFINITY; 2];
    let mut l_run = [0f32; 2];

    // SAFETY: forwarded.
    unsafe { stamp_first_data(p, b, mbar) };
    let mut t = 0;
    while t < b.num_tiles {
        // SAFETY: hand-over protocol (module doc).
        let (k_ring, v_ring) = unsafe { wait_tile::<STAGES>(b, mbar, t) };
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile_begin(p, t)
        };
        let (k_tile, v_tile) = if O::K::ELEM_BYTES == 1 {
            // SAFETY: the 128 consumer threads; the stage is full, and the K tile and V tile
            // t % 2 are free (its first barrier follows every warp's wait for S(t - 1) and
            // P·V(t - 2)).
            unsafe { widen_stage::<O, D, STAGES>(b, mbar, t, k_ring, v_ring) }
        } else {
            // The stage was written by cp.async (generic proxy); wgmma reads it through the
            // async proxy.
            fence_proxy_async_shared_cta();
            (k_ring, v_ring)
        };
        let mut s: WgmmaAccM64N64 = [0.0; 32];
        // SAFETY: the consumer warpgroup in uniform flow; Q and the stage are initialised and
        // fenced; both descriptors describe 1024-aligned 64 x 256-byte tiles of the plan.
        unsafe {
            wgmma_fence();
            for kk in 0..D as u32 / 16 {
                let at = (kk / 4) * block + (kk % 4) * 32;
                O::EQ::wgmma_ss(&mut s, wgmma_desc_sw128(s_q.base.byte_add(at), 16, 1024), wgmma_desc_sw128(k_tile.base.byte_add(at), 16, 1024), kk > 0);
            }
            wgmma_commit_group();
            // Completes S(t) and, over fp8 K/V, P·V(t - 1).
            wgmma_wait_group::<0>();
        }
        pin_f32_registers(&mut s);
        if D == 64 {
            pin_f32_registers(&mut o64);
        } else {
            pin_f32_registers(&mut o0);
        }
        if D == 256 {
            pin_f32_registers(&mut o1);
        }
        // Online softmax, as the row-split consumer with eight key n-tiles (the accumulator's
        // n-chunks).
        let (tile_key0, needs_mask) = rs.tile_mask_test(p, b, t);
        let mut sc: [[f32; 4]; 8] = core::array::from_fn(|j| core::array::from_fn(|e| s[4 * j + e]));
        // SAFETY: full warp.
        let pf = unsafe {
            online_softmax::<O::EV, 8, 4>(&mut sc, tile_key0, needs_mask, quad.t, &xf, &mask, &mut m_run, &mut l_run, |h, alpha| {
                if D == 64 {
                    for n in 0..8 {
                        o64[4 * n + 2 * h] *= alpha;
                        o64[4 * n + 2 * h + 1] *= alpha;
                    }
                    return;
                }
                for n in 0..16 {
                    o0[4 * n + 2 * h] *= alpha;
                    o0[4 * n + 2 * h + 1] *= alpha;
                    if D == 256 {
                        o1[4 * n + 2 * h] *= alpha;
                        o1[4 * n + 2 * h + 1] *= alpha;
                    }
                }
            })
        };
        // SAFETY: as above; P and O were written by this thread before the fence.
        unsafe {
            wgmma_fence();
            for (r, a) in pf.iter().enumerate() {
                // 16 keys (two 8-key core-matrix groups, 1 KiB apart) of V's column blocks.
                let v_desc = wgmma_desc_sw128(v_tile.base.byte_add(2048 * r as u32), block, 1024);
                if D == 64 {
                    O::EV::wgmma_rs_tb_n64(&mut o64, *a, v_desc);
                } else {
                    O::EV::wgmma_rs_tb(&mut o0, *a, v_desc);
                }
            }
            if D == 256 {
                // Head dims 128 .. 256: V's column blocks 2 and 3.
                for (r, a) in pf.iter().enumerate() {
                    O::EV::wgmma_rs_tb(&mut o1, *a, wgmma_desc_sw128(v_tile.base.byte_add(2 * block + 2048 * r as u32), block, 1024));
                }
            }
            wgmma_commit_group();
            if O::K::ELEM_BYTES == 2 {
                wgmma_wait_group::<0>();
            }
        }
        if O::K::ELEM_BYTES == 2 {
            if D == 64 {
                pin_f32_registers(&mut o64);
            } else {
                pin_f32_registers(&mut o0);
            }
            if D == 256 {
                pin_f32_registers(&mut o1);
            }
            // SAFETY: this thread's reads of the stage are done (the wgmma group completed).
            unsafe { release_tile::<STAGES>(b, mbar, t) };
        }
        t += 1;
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile(p, t)
        };
    }
    if O::K::ELEM_BYTES == 1 {
        // SAFETY: the consumer warpgroup in uniform flow: the last tile's P·V (the merge
        // scratch reuses the 16-bit tiles).
        unsafe { wgmma_wait_group::<0>() };
        // (No fp8 variant at head dim 64 (`wgmma_supported`); were one added, its widening
        // would need the single column block too.)
        if D == 64 {
            pin_f32_registers(&mut o64);
        } else {
            pin_f32_registers(&mut o0);
        }
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::LoopEnd, global_timer_ns()) };
    }
    let acc: [[[f32; 4]; NT]; 1] = [core::array::from_fn(|n| {
        if D == 64 {
            return [o64[4 * n], o64[4 * n + 1], o64[4 * n + 2], o64[4 * n + 3]];
        }
        let (oh, j) = if n < 16 { (&o0, n) } else { (&o1, n - 16) };
        [oh[4 * j], oh[4 * j + 1], oh[4 * j + 2], oh[4 * j + 3]]
    })];
    // SAFETY: forwarded.
    unsafe { merge_and_store::<O, D, NT, 1, 1, true>(p, b, 0, row_base, &acc, &[m_run], &[l_run]) };
}

/// fp8 wgmma consumer: convert the stage of tile `t` (fp8 K and V rows in the 128-byte-swizzle
/// layout, one column block) into the 16-bit K tile and V tile `t % 2` at `convert_offset`
/// (f16, the 16-bit stage's layout: two column blocks), release the stage, and publish the
/// tiles to the async proxy. Returns the 16-bit tiles. One barrier before the writes (every
/// warp is past its wait for tile t - 1's S, which read the K tile, and for tile t - 2's P·V,
/// which read this V tile; tile t - 1's P·V may still be reading the other V tile), one after
/// (every write fenced).
///
/// # Safety
/// All 128 consumer threads in uniform flow, after `wait_tile(t)`; fp8 wgmma geometry.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn widen_stage<O: Operands, const D: usize, const STAGES: usize>(
    b: &Block,
    mbar: Mbarriers,
    t: u32,
    k_ring: SwizzledTile,
    v_ring: SwizzledTile,
) -> (SwizzledTile, SwizzledTile) {
    let tid = thread_idx_x();
    let block = b.geo.column_block_bytes();
    let k16 = SwizzledTile { base: dynamic_smem_base().byte_add(b.plan.convert_offset), chunks_per_row: D as u32 * 2 / 16, column_block_bytes: block };
    // V tile t % 2: tile t - 1's P·V may still read the other one.
    let v16 = SwizzledTile { base: k16.base.byte_add((1 + t % 2) * KV_TILE_TOKENS * D as u32 * 2), ..k16 };
    let ring_chunks = D as u32 / 16;
    // SAFETY: the 128 consumer threads.
    unsafe { bar_sync_named(BAR_CONSUMERS, CONSUMER_WARPS * 32) };
    let mut i = tid;
    while i < KV_TILE_TOKENS * ring_chunks {
        let (row, c) = (i / ring_chunks, i % ring_chunks);
        // SAFETY: inside the full stage and the conversion tiles of the plan; 16-byte chunks.
        unsafe {
            let k = O::K::widen_chunk_f16(ld_shared_v4_u32(k_ring.chunk(row, c)));
            let v = O::K::widen_chunk_f16(ld_shared_v4_u32(v_ring.chunk(row, c)));
            st_shared_v4_u32(k16.chunk(row, 2 * c), k[0]);
            st_shared_v4_u32(k16.chunk(row, 2 * c + 1), k[1]);
            st_shared_v4_u32(v16.chunk(row, 2 * c), v[0]);
            st_shared_v4_u32(v16.chunk(row, 2 * c + 1), v[1]);
        }
        i += CONSUMER_WARPS * 32;
    }
    // SAFETY: this thread's reads of the stage are done.
    unsafe { release_tile::<STAGES>(b, mbar, t) };
    fence_proxy_async_shared_cta();
    // SAFETY: the 128 consumer threads.
    unsafe { bar_sync_named(BAR_CONSUMERS, CONSUMER_WARPS * 32) };
    (k16, v16)
}

/// The consumer of a narrow variant: at most 8 real packed rows per CTA (See Note [narrow
/// rows] in docs/DESIGN.md). Both GEMMs run with swapped operands, keys (for S) and head dims
/// (for O) as the MMA's M and the rows as its N = 8: Sᵀ = K·Qᵀ takes one m16n8k16 per k step
/// over the warp's 16 keys (the m16 consumer two, for 16 rows of which at most 8 are real),
/// Oᵀ += Vᵀ·Pᵀ one per 16 head dims (the m16 consumer one per 8), and a lane holds 4 scores
/// instead of 8. Lane (g, t) holds keys g and g + 8 for rows 2t and 2t + 1; `movmatrix`
/// turns the packed Pᵀ into the B fragment of Oᵀ += Vᵀ·Pᵀ. The K and V fragments are the
/// m16 consumer's B fragments, regrouped as A fragments. `KS = D / 16` is also the count of
/// m16 output tiles.
#[inline(always)]
unsafe fn consumer_narrow<O: Operands, const D: usize, const KS: usize, const STAGES: usize, const PAIRED: bool>(
    p: &DecodeParams,
    b: &Block,
    warp: u32,
    mbar: Mbarriers,
) {
    let tid = thread_idx_x();
    let lane = lane_id();
    let quad = Quad::of_lane(lane);
    // SAFETY: forwarded; all 128 consumer threads.
    let s_q = unsafe { stage_q::<O, D>(p, b) };

    // Score transform and mask of this lane's rows 2t and 2t + 1.
    let rs = RowSetup::new(p, b);
    // SAFETY: after `stage_q`.
    let xf: [ScoreTransform; 2] = core::array::from_fn(|r| unsafe { rs.transform::<O>(p, b, 2 * quad.t + r as u32) });
    let mask: [RowMask; 2] = core::array::from_fn(|r| rs.mask(p, b, 2 * quad.t + r as u32));
    // Base-2 logit per score unit of `mask_scores_narrow` (> 0).
    let unit_log2: [f32; 2] = core::array::from_fn(|r| xf[r].unit_log2());

    // acc[md]: rows 2t (c0, c2) and 2t + 1 (c1, c3) of head dims out_dim(2 md, g) (c0, c1)
    // and out_dim(2 md + 1, g) (c2, c3).
    let mut acc = [[0f32; 4]; KS];
    let mut m_run = [f32::NEG_INFINITY; 2];
    let mut l_run = [0f32; 2];
    let key_base = 16 * warp;
    let trim = trim_last_block::<D>(b);

    // Tiles per step: 2 in the paired variants (`PAIRED`, fp8 d128: two 16 KiB stages hold the
    // bytes of one 16-bit stage), so each warp runs two independent 16-key chains per step and
    // one softmax over 32 keys; the last step of an odd count takes one tile.
    debug_assert!(b.geo.paired == PAIRED);
    // SAFETY: forwarded.
    unsafe { stamp_first_data(p, b, mbar) };
    let mut t = 0;
    while t < b.num_tiles {
        let two = PAIRED && t + 1 < b.num_tiles;
        // SAFETY: hand-over protocol (module doc).
        let (k0, v0) = unsafe { wait_tile::<STAGES>(b, mbar, t) };
        // SAFETY: as above; tile t + 1 exists when `two`.
        let (k1, v1) = if two { unsafe { wait_tile::<STAGES>(b, mbar, t + 1) } } else { (k0, v0) };
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile_begin(p, t)
        };

        // SAFETY (both): full warp; tile t (+ 1) waited for, after `stage_q`.
        let scores = |k_tile: SwizzledTile, tile: u32| unsafe { narrow_scores::<O, KS>(trim, p, b, &rs, &xf, &mask, s_q, k_tile, tile, key_base, lane) };
        // A missing second tile's scores are -inf: its P is 0 and its P·V skipped.
        let sc0 = scores(k0, t);
        let sc1 = if two { scores(k1, t + 1) } else { [f32::NEG_INFINITY; 4] };
        let mut p0 = [0f32; 4];
        let mut p1 = [0f32; 4];
        for r in 0..2 {
            let k = unit_log2[r];
            // SAFETY: full warp.
            // (The unpaired variants skip the second tile's terms: `ex2` is an asm form, which
            // no constant folds away.)
            let m_pair = if PAIRED { sc0[r].max(sc0[r + 2]).max(sc1[r]).max(sc1[r + 2]) } else { sc0[r].max(sc0[r + 2]) };
            let m_tile = unsafe { column_max(m_pair) } * k;
            // Lazy rescale, as in `consumer`.
            if m_tile > m_run[r] + RESCALE_THRESHOLD_LOG2 {
                let alpha = ex2_approx_ftz_f32(m_run[r] - m_tile);
                m_run[r] = m_tile;
                l_run[r] *= alpha;
                for a in acc.iter_mut() {
                    a[r] *= alpha;
                    a[r + 2] *= alpha;
                }
            }
            let rf = exp_ref(m_run[r]);
            p0[r] = ex2_approx_ftz_f32(fma_rn_f32(sc0[r], k, -rf));
            p0[r + 2] = ex2_approx_ftz_f32(fma_rn_f32(sc0[r + 2], k, -rf));
            if PAIRED {
                p1[r] = ex2_approx_ftz_f32(fma_rn_f32(sc1[r], k, -rf));
                p1[r + 2] = ex2_approx_ftz_f32(fma_rn_f32(sc1[r + 2], k, -rf));
                l_run[r] += (p0[r] + p0[r + 2]) + (p1[r] + p1[r + 2]);
            } else {
                l_run[r] += p0[r] + p0[r + 2];
            }
        }
        // SAFETY (both): full warp; inside the stages.
        unsafe { narrow_pv::<O, KS>(trim, &mut acc, v0, &p0, key_base, lane) };
        if two {
            unsafe { narrow_pv::<O, KS>(trim, &mut acc, v1, &p1, key_base, lane) };
        }
        // SAFETY: this thread's reads of the stages are done.
        unsafe {
            release_tile::<STAGES>(b, mbar, t);
            if two {
                release_tile::<STAGES>(b, mbar, t + 1);
            }
        }
        t += if two { 2 } else { 1 };
        #[cfg(ff_tile_stamps)]
        // SAFETY: forwarded.
        unsafe {
            stamp_tile(p, t)
        };
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::LoopEnd, global_timer_ns()) };
    }

    let s = MergeScratch::of(b, CONSUMER_WARPS, warp);
    // SAFETY: every consumer thread, after its last tile.
    let v_scale = unsafe { enter_merge(p, b) };
    // Only real rows' O reaches the scratch (the merge reads no other; at 4 real rows of 8 half
    // the stores are dead).
    let real = [row_token(p, b, 2 * quad.t).1, row_token(p, b, 2 * quad.t + 1).1];
    // (Element by element: pairing the fp8 (c, c + 2) elements into 8-byte stores measured
    // neutral on W5 and spilled two sm_80 e5m2 variants at the 96-register cap.)
    for (md, a) in acc.iter().enumerate() {
        for (e, &x) in a.iter().enumerate() {
            if real[e % 2] {
                // SAFETY: inside the merge scratch.
                unsafe { s.put_o(2 * quad.t + e as u32 % 2, O::K::out_dim(2 * md as u32 + e as u32 / 2, quad.g), x) };
            }
        }
    }
    for r in 0..2 {
        // SAFETY: full warp; then the lanes of g = 0 store rows 2t + r (and clear rows 8 up).
        let l = unsafe { column_sum(l_run[r]) };
        if quad.g == 0 {
            // SAFETY: inside the scratch.
            unsafe {
                s.put_ml(2 * quad.t + r as u32, m_run[r], l);
                s.put_ml(8 + 2 * quad.t + r as u32, f32::NEG_INFINITY, 0.0);
            }
        }
    }
    // SAFETY: every consumer thread wrote its state.
    unsafe { merge_scratch_and_store::<O, D, { CONSUMER_WARPS as usize }>(p, b, v_scale) };
}

/// Sᵀ = K·Qᵀ of a narrow consumer warp over its 16 keys (from `key_base`) of tile `tile`,
/// masked and capped in the units of [`mask_scores_narrow`]; element e: key g + 8 (e / 2), row
/// 2t + e % 2. `trim`: [`trim_last_block`].
///
/// # Safety
/// Full warp; tile `tile` waited for and in `k_tile`; after `stage_q` (`s_q`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn narrow_scores<O: Operands, const KS: usize>(
    trim: bool,
    p: &DecodeParams,
    b: &Block,
    rs: &RowSetup,
    xf: &[ScoreTransform; 2],
    mask: &[RowMask; 2],
    s_q: SwizzledTile,
    k_tile: SwizzledTile,
    tile: u32,
    key_base: u32,
    lane: u32,
) -> [f32; 4] {
    let quad = Quad::of_lane(lane);
    let mi = lane / 8;
    let mut x = [0f32; 4];
    for kb in 0..KS / 2 {
        if kb + 1 == KS / 2 && trim {
            continue;
        }
        // SAFETY: full warp; inside the stage and the Q tile (rows 0-7, the chunks of k steps
        // 2 kb and 2 kb + 1: B fragments [b0, b1] of each).
        unsafe {
            let kf = O::K::k_frags::<O::EQ>(k_tile, key_base, kb as u32, lane);
            let qf = ldmatrix_x4_b16(s_q.chunk(lane % 8, 4 * kb as u32 + mi));
            for (ks, kf) in kf.iter().enumerate() {
                x = O::EQ::mma([kf[0][0], kf[1][0], kf[0][1], kf[1][1]], [qf[2 * ks], qf[2 * ks + 1]], x);
            }
        }
    }
    let (tile_key0, needs_mask) = rs.tile_mask_test(p, b, tile);
    let key0 = tile_key0 + (key_base + quad.g) as i32;
    match (needs_mask, xf[0].softcap_log2 != 0.0) {
        (false, false) => mask_scores_narrow::<false, false>(&mut x, key0, xf, mask),
        (false, true) => mask_scores_narrow::<false, true>(&mut x, key0, xf, mask),
        (true, false) => mask_scores_narrow::<true, false>(&mut x, key0, xf, mask),
        (true, true) => mask_scores_narrow::<true, true>(&mut x, key0, xf, mask),
    }
    x
}

/// Oᵀ += Vᵀ·Pᵀ of a narrow consumer warp over its 16 keys of one tile: two m16 output tiles
/// (32 dims) per V load. `pr`: P of [`narrow_scores`]' elements; `trim`: [`trim_last_block`].
///
/// # Safety
/// Full warp; the tile waited for and in `v_tile`.
#[inline(always)]
unsafe fn narrow_pv<O: Operands, const KS: usize>(trim: bool, acc: &mut [[f32; 4]; KS], v_tile: SwizzledTile, pr: &[f32; 4], key_base: u32, lane: u32) {
    // Pᵀ (keys g | g + 8; rows 2t, 2t + 1) -> B fragment (keys 2t, 2t + 1 | + 8; row g).
    // SAFETY: full warp.
    let pb = unsafe { [movmatrix_trans_b16(O::EV::pack(pr[0], pr[1])), movmatrix_trans_b16(O::EV::pack(pr[2], pr[3]))] };
    for db in 0..KS / 2 {
        if db + 1 == KS / 2 && trim {
            continue;
        }
        // SAFETY: full warp; inside the stage.
        let vf = unsafe { O::K::v_frags(v_tile, key_base, db as u32, lane) };
        for h in 0..2 {
            let a = [vf[2 * h][0], vf[2 * h + 1][0], vf[2 * h][1], vf[2 * h + 1][1]];
            // SAFETY: full warp.
            unsafe { acc[2 * db + h] = O::EV::mma(a, pb, acc[2 * db + h]) };
        }
    }
}

/// Merge the consumer warps' states through shared memory (the ring is free now) and write the
/// final output (with sinks and LSE) or this split's partial. The calling warp is key group
/// `kg` and holds the `16 MT` rows from `row_base`.
#[inline(always)]
unsafe fn merge_and_store<O: Operands, const D: usize, const NT: usize, const MT: usize, const KG: usize, const NATURAL: bool>(
    p: &DecodeParams,
    b: &Block,
    kg: u32,
    row_base: u32,
    acc: &[[[f32; 4]; NT]; MT],
    m_run: &[[f32; 2]; MT],
    l_run: &[[f32; 2]; MT],
) {
    let quad = Quad::of_lane(lane_id());
    let s = MergeScratch::of(b, KG as u32, kg);
    // SAFETY: every consumer thread, after its last tile.
    let v_scale = unsafe { enter_merge(p, b) };
    for mt in 0..MT {
        for h in 0..2 {
            let lr = row_base + 16 * mt as u32 + quad.g + 8 * h as u32;
            // Only real rows' O reaches the scratch (the merge reads no other).
            if row_token(p, b, lr).1 {
                for n in 0..NT {
                    let dim = |col: u32| if NATURAL { 8 * n as u32 + col } else { O::K::out_dim(n as u32, col) };
                    let (d0, d1) = (dim(2 * quad.t), dim(2 * quad.t + 1));
                    // SAFETY: inside the merge scratch of the plan.
                    unsafe { s.put_o_pair(lr, (d0, acc[mt][n][2 * h]), (d1, acc[mt][n][2 * h + 1])) };
                }
            }
            // SAFETY: full warp; then one lane per quad stores.
            let l = unsafe { quad_sum(l_run[mt][h]) };
            if quad.t == 0 {
                // SAFETY: inside the scratch.
                unsafe { s.put_ml(lr, m_run[mt][h], l) };
            }
        }
    }
    // SAFETY: forwarded; every consumer thread wrote its state.
    unsafe { merge_scratch_and_store::<O, D, KG>(p, b, v_scale) };
}

/// The consumers' side of the ring-reuse barrier, before the ring becomes the merge scratch:
/// every consumer is done reading the ring and every producer copy has completed (wait_group 0)
/// before anyone overwrites it. Returns the split's V scale, loaded before the barrier so its
/// latency hides behind the barrier and the scratch writes (used in the merge's pass 1).
///
/// # Safety
/// Every consumer thread after its last tile (the load warps meet the barrier in `decode_cta`).
#[inline(always)]
unsafe fn enter_merge(p: &DecodeParams, b: &Block) -> [f32; 2] {
    let v_scale = scale_pair(p, b, p.v_scale);
    // SAFETY: forwarded; all 160 threads reach it.
    unsafe { barrier_sync_unaligned(BAR_RING_REUSE, b.geo.threads()) };
    #[cfg(ff_tile_stamps)]
    if thread_idx_x() < 32 {
        // SAFETY: forwarded.
        unsafe { stamp_epi(p, 0) };
    }
    v_scale
}

/// One key group's part of the merge scratch (in the ring): O rows of `rows` x padded head dim
/// f32, then every key group's row maxima, then every key group's row sums. The warps of a row
/// group fill disjoint rows of their key group's part.
#[derive(Clone, Copy)]
struct MergeScratch {
    o: Smem<f32>,
    m: Smem<f32>,
    l: Smem<f32>,
    stride: u32,
}

impl MergeScratch {
    #[inline(always)]
    /// Key group `kg` of `groups` (the geometry's `key_groups`, passed as a constant).
    fn of(b: &Block, groups: u32, kg: u32) -> MergeScratch {
        let rows = b.geo.rows_per_block();
        let stride = b.geo.merge_row_stride_f32();
        let s_o: Smem<f32> = dynamic_smem_base().byte_add(b.plan.ring_offset);
        let s_m: Smem<f32> = s_o.add(groups * rows * stride);
        let s_l: Smem<f32> = s_m.add(groups * rows);
        MergeScratch { o: s_o.add(kg * rows * stride), m: s_m.add(kg * rows), l: s_l.add(kg * rows), stride }
    }
    /// # Safety
    /// `lr < rows`, `d < head_dim`; after the ring-reuse barrier.
    #[inline(always)]
    unsafe fn put_o(&self, lr: u32, d: u32, v: f32) {
        // SAFETY: forwarded.
        unsafe { st_shared_u32(self.o.add(lr * self.stride + d).byte_add(0), v.to_bits()) };
    }
    /// Two elements of row `lr` at dims `d0` and `d1`: one 8-byte store where `d1 = d0 + 1`
    /// and `d0` is even (the padded row stride is even), two otherwise.
    ///
    /// # Safety
    /// As `put_o`, for both dims.
    #[inline(always)]
    unsafe fn put_o_pair(&self, lr: u32, (d0, v0): (u32, f32), (d1, v1): (u32, f32)) {
        if d1 == d0 + 1 && d0 % 2 == 0 {
            // SAFETY: forwarded; 8-byte aligned (even offset from a 16-byte aligned base).
            unsafe { st_shared_v2_u32(self.o.add(lr * self.stride + d0).byte_add(0), [v0.to_bits(), v1.to_bits()]) };
        } else {
            // SAFETY: forwarded.
            unsafe {
                self.put_o(lr, d0, v0);
                self.put_o(lr, d1, v1);
            }
        }
    }
    /// # Safety
    /// As `put_o`.
    #[inline(always)]
    unsafe fn put_ml(&self, lr: u32, m: f32, l: f32) {
        // SAFETY: forwarded.
        unsafe {
            st_shared_u32(self.m.add(lr).byte_add(0), m.to_bits());
            st_shared_u32(self.l.add(lr).byte_add(0), l.to_bits());
        }
    }
}

/// The merge passes over the scratch every key group filled: merged max and sum per row, then
/// the weighted sum of the key groups' O rows, to the final output or this split's partial.
///
/// # Safety
/// All 128 consumer threads, after each wrote its warp's state to the scratch.
#[inline(always)]
/// `KG`: the geometry's key groups.
/// `v_scale`: the split's V scale ([`scale_pair`]: of the first and second kv head of a pair),
/// loaded by the caller before the ring-reuse barrier so its latency hides behind the barrier
/// and the scratch writes.
unsafe fn merge_scratch_and_store<O: Operands, const D: usize, const KG: usize>(p: &DecodeParams, b: &Block, v_scale: [f32; 2]) {
    let tid = thread_idx_x();
    let rows = b.geo.rows_per_block();
    let stride = b.geo.merge_row_stride_f32();
    let groups = KG as u32;
    let s_o: Smem<f32> = dynamic_smem_base().byte_add(b.plan.ring_offset);
    let s_m: Smem<f32> = s_o.add(groups * rows * stride);
    let s_l: Smem<f32> = s_m.add(groups * rows);
    #[cfg(ff_tile_stamps)]
    if tid < 32 {
        // SAFETY: forwarded.
        unsafe { stamp_epi(p, 1) };
    }
    // SAFETY: consumers only.
    unsafe { bar_sync_named(BAR_CONSUMERS, CONSUMER_WARPS * 32) };
    #[cfg(ff_tile_stamps)]
    if tid < 32 {
        // SAFETY: forwarded.
        unsafe { stamp_epi(p, 2) };
    }

    let final_out = b.work.partial_slot == FINAL_OUTPUT;
    // Cluster mode: this CTA's partial stays in its shared memory for `cluster_merge`.
    let group = cluster_group(p);
    let cluster = group > 1 && !final_out;
    let s_co: Smem<f32> = dynamic_smem_base().byte_add(b.plan.cluster_offset);
    // Pass 1, one thread per row: merged max and sum (plus the sink on the final output); each
    // warp's weight overwrites its max; the row's LSE is stored.
    // (rows <= 64 < 128 consumer threads.)
    if tid < rows {
        let lr = tid;
        let mut m = f32::NEG_INFINITY;
        for w in 0..groups {
            // SAFETY: inside the scratch.
            m = m.max(f32::from_bits(unsafe { ld_shared_u32(s_m.add(w * rows + lr).byte_add(0)) }));
        }
        let sink = if final_out { sink_log2(p, row_head(p, b, lr)) } else { f32::NEG_INFINITY };
        m = m.max(sink);
        let r = exp_ref(m);
        let mut l = ex2_approx_ftz_f32(sink - r);
        let mut wts = [0f32; CONSUMER_WARPS as usize];
        for w in 0..groups {
            // SAFETY: inside the scratch.
            let (mw, lw) = unsafe {
                (f32::from_bits(ld_shared_u32(s_m.add(w * rows + lr).byte_add(0))), f32::from_bits(ld_shared_u32(s_l.add(w * rows + lr).byte_add(0))))
            };
            wts[w as usize] = ex2_approx_ftz_f32(mw - r);
            l += lw * wts[w as usize];
        }
        // `l == 0`: no visible key and no sink (O = 0, LSE = -inf); a NaN `l` (NaN or inf in
        // the inputs) stays NaN in O and LSE, as in the reference (See Note [NaN and inf]).
        let inv = if l != 0.0 { v_scale[second_of_pair(p, b, lr) as usize] / l } else { 0.0 };
        for w in 0..groups {
            // SAFETY: inside the scratch.
            unsafe { st_shared_u32(s_m.add(w * rows + lr).byte_add(0), (wts[w as usize] * inv).to_bits()) };
        }
        let lse_log2 = if l != 0.0 { m + lg2_approx_ftz_f32(l) } else { f32::NEG_INFINITY };
        let (i, real) = row_token(p, b, lr);
        if real {
            if final_out {
                if p.lse != NONE_ADDR {
                    let at = q_row(p, b, i, lr);
                    // SAFETY: a real row of the validated LSE tensor.
                    unsafe { *Gmem::<f32>::from_addr(p.lse).add(at as u64).ptr() = lse_log2 * LN_2 };
                }
            } else if cluster {
                // SAFETY: inside the plan's cluster region (rows x D f32, then rows f32).
                unsafe { st_shared_u32(s_co.add(rows * D as u32 + lr).byte_add(0), lse_log2.to_bits()) };
            } else {
                let at = b.work.partial_slot * p.rows_per_block + lr;
                // SAFETY: slot inside the planner's workspace.
                unsafe { *Gmem::<f32>::from_addr(p.partial_lse).add(at as u64).ptr() = lse_log2 };
            }
        }
    }
    // SAFETY: consumers only.
    unsafe { bar_sync_named(BAR_CONSUMERS, CONSUMER_WARPS * 32) };
    #[cfg(ff_tile_stamps)]
    if tid < 32 {
        // SAFETY: forwarded.
        unsafe { stamp_epi(p, 3) };
    }

    // Pass 2: 8 output elements per thread per step.
    let mut idx = tid;
    while idx < rows * (D as u32 / 8) {
        let (lr, d) = (idx / (D as u32 / 8), 8 * (idx % (D as u32 / 8)));
        let (i, real) = row_token(p, b, lr);
        // (Columns from `dm` on are the padded variants' pad, and in the kv-head-pair view
        // those of the other kv head: not stored; `c` is the column in Q / O / the partial.)
        if real && in_q_row::<D>(p, b, lr, d) {
            let c = d - row_col0(p, b, lr);
            let mut o = [0f32; 8];
            for w in 0..groups {
                // SAFETY: inside the scratch.
                unsafe {
                    let wt = f32::from_bits(ld_shared_u32(s_m.add(w * rows + lr).byte_add(0)));
                    let base = s_o.add((w * rows + lr) * stride + d);
                    let x = ld_shared_v4_u32(base.byte_add(0));
                    let y = ld_shared_v4_u32(base.add(4).byte_add(0));
                    for k in 0..4 {
                        o[k] += wt * f32::from_bits(x[k]);
                        o[4 + k] += wt * f32::from_bits(y[k]);
                    }
                }
            }
            if final_out {
                // SAFETY: a real row.
                unsafe { store_out8::<O, D>(p, b, i, lr, c, &o) };
            } else if cluster {
                let at = s_co.add(lr * D as u32 + d);
                // SAFETY: inside the plan's cluster region; 16-byte aligned (d % 8 == 0).
                unsafe {
                    st_shared_v4_u32(at.byte_add(0), [o[0].to_bits(), o[1].to_bits(), o[2].to_bits(), o[3].to_bits()]);
                    st_shared_v4_u32(at.add(4).byte_add(0), [o[4].to_bits(), o[5].to_bits(), o[6].to_bits(), o[7].to_bits()]);
                }
            } else {
                let at = (b.work.partial_slot * p.rows_per_block + lr) as u64 * b.qdm as u64 + c as u64;
                let g = Gmem::<f32>::from_addr(p.partial_o).add(at);
                // SAFETY: slot inside the workspace; 16-byte aligned.
                unsafe {
                    st_global_v4_u32(g.byte_add(0), [o[0].to_bits(), o[1].to_bits(), o[2].to_bits(), o[3].to_bits()]);
                    st_global_v4_u32(g.add(4).byte_add(0), [o[4].to_bits(), o[5].to_bits(), o[6].to_bits(), o[7].to_bits()]);
                }
            }
        }
        idx += CONSUMER_WARPS * 32;
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::MergeDone, global_timer_ns()) };
    }
    if group > 1 {
        #[cfg(target_feature = "sm_90")]
        // SAFETY: forwarded; every consumer thread gets here, the load warps meet the same two
        // cluster barriers in `decode_cta`.
        unsafe {
            cluster_merge::<O, D>(p, b, s_co, group)
        };
    }
    if tid == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::Exit, global_timer_ns()) };
    }
}

/// Store dims `d..d + 8` (of O's head dim, not the tile's: [`row_col0`] already taken off) of
/// the final output row of token `i` (within the request) and local packed row `lr`, rounded
/// to the output type.
///
/// # Safety
/// `(i, lr)` is a real row of the validated output; `d % 8 == 0`, `d + 8 <= b.qdm`.
#[inline(always)]
unsafe fn store_out8<O: Operands, const D: usize>(p: &DecodeParams, b: &Block, i: u32, lr: u32, d: u32, o: &[f32; 8]) {
    let at = q_row(p, b, i, lr) as u64 * b.qdm as u64 + d as u64;
    let v = [O::EO::pack(o[0], o[1]), O::EO::pack(o[2], o[3]), O::EO::pack(o[4], o[5]), O::EO::pack(o[6], o[7])];
    // SAFETY: forwarded; 16-byte aligned (qdm % 8 == 0, d % 8 == 0).
    unsafe { st_global_v4_u32(Gmem::<u16>::from_addr(p.o).add(at).byte_add(0), v) };
}

/// Store dims `d..d + 4` of the final output row of token `i` and local packed row `lr` (as
/// [`store_out8`], for the cluster merge's 4-dim units).
///
/// # Safety
/// `(i, lr)` is a real row of the validated output; `d % 4 == 0`, `d + 4 <= b.qdm`.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
unsafe fn store_out4<O: Operands, const D: usize>(p: &DecodeParams, b: &Block, i: u32, lr: u32, d: u32, o: &[f32; 4]) {
    let at = q_row(p, b, i, lr) as u64 * b.qdm as u64 + d as u64;
    let v = [O::EO::pack(o[0], o[1]), O::EO::pack(o[2], o[3])];
    // SAFETY: forwarded; 8-byte aligned (d % 4 == 0).
    unsafe { st_global_v2_u32(Gmem::<u16>::from_addr(p.o).add(at).byte_add(0), v) };
}

/// Split-KV merge inside a thread-block cluster (See Note [cluster merge] in docs/DESIGN.md):
/// the `n` CTAs of the cluster (graph mode: of its group of `n` consecutive ranks,
/// [`cluster_group`]) are the `n` splits of one block in key order, each with its
/// normalised partial O and LSE in its shared memory (`s_co`). After a cluster barrier, CTA
/// `rank` takes every `n`-th run of 8 (row, 8 dims) units, starting at run `rank` (units of 4
/// dims where those of 8 would keep at most half of its threads busy): per unit
/// it issues all `n` LSE and partial-O loads through distributed shared memory (one round trip),
/// merges them by LSE with the sink (the combine kernel's
/// arithmetic, in key order: bitwise reproducible) and writes O and LSE. A second cluster
/// barrier keeps every CTA resident until the others are done reading it.
///
/// # Safety
/// Cluster-mode launch contract (`p.cluster_splits` is the cluster size; each group of
/// `n` = [`cluster_group`] consecutive ranks, a divisor of it, is one block's splits); reached by all
/// 128 consumer threads of every CTA of the cluster (idle CTAs meet both barriers at entry).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
unsafe fn cluster_merge<O: Operands, const D: usize>(p: &DecodeParams, b: &Block, s_co: Smem<f32>, n: u32) {
    const N: usize = MAX_CLUSTER_SPLITS as usize;
    // SAFETY: see the function doc.
    unsafe { barrier_cluster_sync() };
    if thread_idx_x() == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::ClusterMet, global_timer_ns()) };
    }
    // This block's `n` splits are ranks `base .. base + n` of the cluster (`n` divides the
    // cluster size; the whole cluster outside graph mode).
    let rank = cluster_cta_rank() % n;
    let base = cluster_cta_rank() - rank;
    let rows = b.geo.rows_per_block();
    let s_lse = s_co.add(rows * D as u32);
    // Units of 8 dims, or of 4 (`!wide`) where units of 8 would keep at most half of a
    // rank's threads busy (W6: 16 rows x 16 units over 4 ranks, 64 of 128 threads): twice the
    // threads, each with half the loads and arithmetic, in the same one step. One loop for
    // both (the second half's loads and sums predicated), not two copies of it.
    let wide = 2 * rows * (D as u32 / 8) > n * CONSUMER_WARPS * 32;
    let unit_log2 = if wide { 3 } else { 2 };
    let chunks_log2 = (D as u32).trailing_zeros() - unit_log2;
    // Runs of 8 units (8 threads x 16 or 32 contiguous bytes per row) interleaved over the
    // ranks, so the real rows (a prefix) are spread over the cluster without strided remote
    // reads.
    let tid = thread_idx_x();
    let mut idx = ((tid / 8) * n + rank) * 8 + tid % 8;
    while idx < rows << chunks_log2 {
        let (lr, d) = (idx >> chunks_log2, (idx & ((1 << chunks_log2) - 1)) << unit_log2);
        let (i, real) = row_token(p, b, lr);
        // (Units from `dm` on, the padded variants' pad, and in the kv-head-pair view those of
        // the other kv head, are neither read nor stored; the LSE goes with the row's first
        // unit, at column `c0`.)
        let c0 = row_col0(p, b, lr);
        if real && in_q_row::<D>(p, b, lr, d) {
            // Every split's loads are issued before any is used, so the n distributed-shared-
            // memory round trips overlap in one. (With each split's loads inside an `if c < n`
            // block that also used them, rank 0 spent 1.4 us here at 4 splits and 2.1 us at 8
            // in session 11's timelines, as if the round trips were serial. Loading ranks past
            // `n - 1` as well, clamped, cost W6 2.5 us.)
            let at = s_co.add(lr * D as u32 + d);
            let mut lse = [f32::NEG_INFINITY; N];
            let mut x = [[0u32; 4]; N];
            let mut y = [[0u32; 4]; N];
            for c in 0..N {
                if (c as u32) < n {
                    let src = base + c as u32;
                    // SAFETY: rank base + c (c < n) is a live CTA of this cluster (this block's
                    // split c); published by the barrier; 16-byte aligned (d % 4 == 0).
                    unsafe {
                        lse[c] = f32::from_bits(ld_shared_cluster_u32(mapa_shared_cluster(s_lse.add(lr).byte_add::<u32>(0), src)));
                        x[c] = ld_shared_cluster_v4_u32(mapa_shared_cluster(at.byte_add::<[u32; 4]>(0), src));
                        if wide {
                            y[c] = ld_shared_cluster_v4_u32(mapa_shared_cluster(at.add(4).byte_add::<[u32; 4]>(0), src));
                        }
                    }
                }
            }
            let sink = sink_log2(p, row_head(p, b, lr));
            let m = lse.iter().fold(f32::NEG_INFINITY, |a, &x| a.max(x)).max(sink);
            let r = exp_ref(m);
            let mut l = ex2_approx_ftz_f32(sink - r);
            let mut w = [0f32; N];
            for c in 0..N {
                if (c as u32) < n {
                    w[c] = ex2_approx_ftz_f32(lse[c] - r);
                    l += w[c];
                }
            }
            let inv = if l != 0.0 { 1.0 / l } else { 0.0 };
            let mut o = [0f32; 8];
            // Empty splits (weight 0) add nothing (their partials are not multiplied: 0 x NaN
            // would be NaN); a NaN weight does, and stays NaN in O.
            let add = |o: &mut [f32], wc: f32, v: [u32; 4]| {
                for k in 0..4 {
                    o[k] += if wc != 0.0 { wc * f32::from_bits(v[k]) } else { 0.0 };
                }
            };
            for c in 0..N {
                add(&mut o[..4], w[c] * inv, x[c]);
            }
            if wide {
                for c in 0..N {
                    add(&mut o[4..], w[c] * inv, y[c]);
                }
            }
            // SAFETY: a real row; `d - c0 + 8 <= qdm` when `wide`, `d - c0 + 4 <= qdm` otherwise
            // (`d - c0 < qdm`, both multiples of 8 or 4, `qdm` of 16).
            unsafe {
                if wide {
                    store_out8::<O, D>(p, b, i, lr, d - c0, &o)
                } else {
                    store_out4::<O, D>(p, b, i, lr, d - c0, &[o[0], o[1], o[2], o[3]])
                }
            };
            if d == c0 && p.lse != NONE_ADDR {
                let lse_ln = if l != 0.0 { (m + lg2_approx_ftz_f32(l)) * LN_2 } else { f32::NEG_INFINITY };
                let at = q_row(p, b, i, lr);
                // SAFETY: a real row of the validated LSE tensor.
                unsafe { *Gmem::<f32>::from_addr(p.lse).add(at as u64).ptr() = lse_ln };
            }
        }
        idx += n * CONSUMER_WARPS * 32;
    }
    if thread_idx_x() == 0 {
        // SAFETY: the host sized the timeline for the grid (or passed none).
        unsafe { timeline_stamp(p.timeline_decode, TimelineEvent::RemoteDone, global_timer_ns()) };
    }
    // Every remote read's value is in this thread's stores above: the arrive needs no release
    // (which would wait for those global stores to be performed).
    // SAFETY: see the function doc.
    unsafe { barrier_cluster_sync_relaxed() };
}
