//! `#[repr(C)]` kernel parameter blocks, passed by value to the kernels.

/// Parameters of the primitive self-test kernels: device addresses of an input and an output.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct SelfTestParams {
    /// Input buffer (global address).
    pub input: u64,
    /// Output buffer (global address).
    pub output: u64,
    /// Elements in `input` (test specific).
    pub n: u32,
    /// Test-specific selector.
    pub mode: u32,
}

/// Parameters of the paged read probe (`ff_bench_read_paged`, a benchmark diagnostic): CTA `b`
/// reads the K and V rows `kv_start..kv_end` of one kv head through the page table, as a decode
/// CTA would, and does nothing else with them.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct PagedReadParams {
    /// K page pool (global address), `[pages, page_size, kv_heads, row_chunks * 16 bytes]`.
    pub k_pool: u64,
    /// V page pool, laid out as `k_pool`.
    pub v_pool: u64,
    /// Page ids (u32), the requests' entries back to back.
    pub page_ids: u64,
    /// One item of [`PagedReadParams::ITEM_WORDS`] u32 per CTA: first page-table entry of the
    /// request, kv head, first key, end key.
    pub items: u64,
    /// One u32 per thread of the grid, written only when the xor of the loads equals `mode`.
    pub output: u64,
    /// Tokens per page.
    pub page_size: u32,
    /// KV heads of the pools.
    pub kv_heads: u32,
    /// 16-byte chunks per (token, kv head) row.
    pub row_chunks: u32,
    /// A value the xor practically never takes (keeps the loads alive).
    pub mode: u32,
}

impl PagedReadParams {
    /// u32 words per CTA item.
    pub const ITEM_WORDS: usize = 4;
}

/// Sentinel for optional device addresses: the feature is off.
pub const NONE_ADDR: u64 = 0;
/// `DecodeWork::partial_slot` value meaning "the whole KV range: write the final output".
pub const FINAL_OUTPUT: u32 = u32::MAX;
/// `DecodeParams::window_left` value meaning "no sliding window".
pub const NO_WINDOW: i32 = -1;

/// One CTA's work in the decode kernel: one (request, kv head, block of packed query rows)
/// over one contiguous KV range. Produced by the host planner, read by `blockIdx.x`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct DecodeWork {
    /// Request index.
    pub request: u32,
    /// KV head.
    pub kv_head: u32,
    /// First packed query row of the block (row = token * group + head-in-group).
    pub row_start: u32,
    /// First key of the range (inclusive).
    pub kv_start: u32,
    /// End of the range (exclusive).
    pub kv_end: u32,
    /// Where the partial result goes ([`FINAL_OUTPUT`] when this CTA covers the whole range).
    pub partial_slot: u32,
    /// The request's KV length (keys, new tokens included).
    pub kv_len: u32,
    /// The request's new tokens.
    pub q_len: u32,
    /// The request's first row in `q` / `o` (`q_indptr[request]`).
    pub first_token: u32,
    /// The request's first page-table entry (`page_indptr[request]`).
    pub first_page_entry: u32,
}

impl DecodeWork {
    /// u32 words of one work item as uploaded (the struct is `#[repr(C)]` of u32 fields).
    pub const WORDS: usize = 10;
    /// KV tiles of the range (`KV_TILE_TOKENS` keys each, the last one partial).
    pub const fn tiles(&self) -> u32 {
        (self.kv_end - self.kv_start).div_ceil(crate::decode::KV_TILE_TOKENS)
    }
    /// The leading tiles of the range whose keys all precede the request's new tokens
    /// (positions `kv_len - q_len ..`), i.e. rows an engine wrote in earlier steps: the load
    /// warps may copy them before `griddepcontrol.wait` when [`DecodeParams::early_kv`] is set.
    /// Tile `t` qualifies when its last key, `min(kv_start + 64 (t + 1), kv_end) - 1`, is
    /// below `kv_len - q_len`.
    pub const fn tiles_before_new_keys(&self) -> u32 {
        let old_keys = self.kv_len.saturating_sub(self.q_len);
        if self.kv_end <= old_keys {
            self.tiles()
        } else if old_keys <= self.kv_start {
            0
        } else {
            (old_keys - self.kv_start) / crate::decode::KV_TILE_TOKENS
        }
    }
    /// The item as words, in field order.
    pub const fn words(&self) -> [u32; Self::WORDS] {
        [
            self.request,
            self.kv_head,
            self.row_start,
            self.kv_start,
            self.kv_end,
            self.partial_slot,
            self.kv_len,
            self.q_len,
            self.first_token,
            self.first_page_entry,
        ]
    }
}

/// One output block the combine kernel merges: `num_splits` consecutive partial slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct MergeWork {
    /// Request index.
    pub request: u32,
    /// KV head.
    pub kv_head: u32,
    /// First packed query row of the block.
    pub row_start: u32,
    /// First partial slot.
    pub first_slot: u32,
    /// Number of consecutive slots (>= 2).
    pub num_splits: u32,
    /// Padding to 8 bytes.
    pub _pad: u32,
}

impl MergeWork {
    /// u32 words of one merge item as uploaded.
    pub const WORDS: usize = 6;
    /// The item as words, in field order.
    pub const fn words(&self) -> [u32; Self::WORDS] {
        [
            self.request,
            self.kv_head,
            self.row_start,
            self.first_slot,
            self.num_splits,
            self._pad,
        ]
    }
}

const _: () = assert!(core::mem::size_of::<DecodeWork>() == 4 * DecodeWork::WORDS);
const _: () = assert!(core::mem::size_of::<MergeWork>() == 4 * MergeWork::WORDS);

/// u64 words per CTA of a timeline record.
pub const TIMELINE_WORDS: u32 = 12;

/// Tiles per decode CTA with per-tile stamps. They are stored after the grid's records,
/// [`TIMELINE_TILE_WORDS`] per CTA from word `grid * TIMELINE_WORDS + cta * TIMELINE_TILE_WORDS`:
/// first when thread 0 finished tile `t` (word `t`), then when it found tile `t`'s stage full
/// (word `TIMELINE_TILES + t`), then when the producer (lane 0 of load warp 0) finished issuing
/// tile `t`'s copies (word `2 * TIMELINE_TILES + t`), for `t < TIMELINE_TILES`; the last eight
/// words hold the in-CTA merge's steps instead (`stamp_epi` in the kernels; no stamped workload
/// has more than 56 tiles per CTA). Only diagnostic builds write them (`FF_TILE_STAMPS=1`, see
/// `ptxbuild::tile_stamps`); the host always sizes the decode timeline for them.
pub const TIMELINE_TILES: u32 = 64;
/// Words of per-tile stamps per decode CTA: an end, a begin and an issue per tile.
pub const TIMELINE_TILE_WORDS: u32 = 3 * TIMELINE_TILES;

/// Word index of each event in a CTA's timeline record (`%globaltimer` nanoseconds, except
/// the SM id and the tile count). Words an event does not apply to stay as the host filled them.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineEvent {
    /// Thread 0 entered the kernel.
    Entry = 0,
    /// Thread 0 returned from `griddepcontrol.wait` (the previous grid's writes are visible).
    DependencyMet = 1,
    /// Decode: the first tile's `full` barrier completed for thread 0.
    FirstData = 2,
    /// Decode: thread 0 finished its last tile.
    LoopEnd = 3,
    /// Thread 0 finished its stores.
    Exit = 4,
    /// `%smid` of the CTA.
    SmId = 5,
    /// Decode: KV tiles of the CTA's work item. Combine: splits merged.
    Tiles = 6,
    /// Decode: the load warp's lane 0 issued its last tile's copies.
    LastIssue = 7,
    /// Decode: thread 0 finished the in-CTA merge of the consumer warps (pass 2).
    MergeDone = 8,
    /// Decode, cluster mode: thread 0 passed the first cluster barrier.
    ClusterMet = 9,
    /// Decode, cluster mode: thread 0 finished its reads of the cluster's partials.
    RemoteDone = 10,
}

/// Parameters of the paged decode kernel and its combine kernel (one block, passed by value).
///
/// Layouts: `q`/`o` `[tokens, q_heads, o_head_dim]`; K/V pools
/// `[num_pages, page_size, kv_heads, head_dim]` or `[num_pages, kv_heads, page_size, head_dim]`
/// (see [`crate::paged`]; the kernels read only the row strides); `lse` `[tokens, q_heads]`
/// f32 natural log; page table CSR (`page_indptr[num_requests + 1]`, `page_indices`, u32);
/// `kv_lens[num_requests]`, `q_indptr[num_requests + 1]` u32; partial O
/// `[slots, ROWS_PER_BLOCK, o_head_dim]` f32 normalised, partial LSE `[slots, ROWS_PER_BLOCK]` f32
/// (base 2).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct DecodeParams {
    pub q: u64,
    pub k_pool: u64,
    pub v_pool: u64,
    pub o: u64,
    /// Optional ([`NONE_ADDR`]).
    pub lse: u64,
    pub page_indptr: u64,
    pub page_indices: u64,
    pub kv_lens: u64,
    pub q_indptr: u64,
    /// `[num_work]` [`DecodeWork`].
    pub work: u64,
    /// `[num_merge]` [`MergeWork`].
    pub merge: u64,
    pub partial_o: u64,
    pub partial_lse: u64,
    /// Optional per-q-head sink logits, f32 ([`NONE_ADDR`]).
    pub sinks: u64,
    /// Optional Q descale table, f32 ([`NONE_ADDR`]: 1); indexed like `k_scale`.
    pub q_scale: u64,
    /// Optional K (de)scale table, f32 ([`NONE_ADDR`]: 1): entry
    /// `request * scale_request_stride + kv_head * scale_head_stride` (strides 0/0 per tensor,
    /// 0/1 per kv head, kv_heads/1 per (request, kv head)). Folded into the score scale.
    pub k_scale: u64,
    /// Optional V (de)scale table, f32 ([`NONE_ADDR`]: 1), indexed like `k_scale`. Folded into
    /// the final normalisation.
    pub v_scale: u64,
    /// Device counter of valid work items (CUDA-graph mode), or [`NONE_ADDR`]: use `num_work`.
    /// Its third word (`num_work_dev + 8`) is the batch's cluster merge group when the grid is
    /// launched in clusters (`cluster_splits > 1`): 0, the combine kernel merges; `k >= 2`
    /// dividing `cluster_splits`, CTAs `g k .. (g + 1) k` of each cluster are one block's `k`
    /// splits in key order and merge in the cluster (See Note [graph mode] in docs/DESIGN.md).
    pub num_work_dev: u64,
    /// Device counter of valid merge items (CUDA-graph mode), or [`NONE_ADDR`]: use `num_merge`.
    pub num_merge_dev: u64,
    /// Optional per-CTA timestamps of the decode grid ([`NONE_ADDR`]: none), for
    /// `ferroflash bench --timeline`: [`TIMELINE_WORDS`] u64 per CTA (see [`TimelineEvent`]).
    pub timeline_decode: u64,
    /// Optional per-CTA timestamps of the combine grid, as `timeline_decode`.
    pub timeline_combine: u64,
    pub num_work: u32,
    pub num_merge: u32,
    pub q_heads: u32,
    pub kv_heads: u32,
    /// q_heads / kv_heads.
    pub group: u32,
    pub page_size: u32,
    pub head_dim: u32,
    /// Packed query rows per CTA of the decode variant (partial-slot row stride).
    pub rows_per_block: u32,
    /// `sm_scale * log2(e)` (the `q_scale` and `k_scale` entries multiply it in the kernel); with
    /// a softcap this is `sm_scale / softcap` and `softcap_log2 = softcap * log2(e)`.
    pub score_scale: f32,
    /// `softcap * log2(e)`, or 0 for no softcap.
    pub softcap_log2: f32,
    /// Keys visible to the left of the query position, or [`NO_WINDOW`].
    pub window_left: i32,
    /// Scale-table stride per request (see `k_scale`).
    pub scale_request_stride: u32,
    /// Scale-table stride per kv head (see `k_scale`).
    pub scale_head_stride: u32,
    /// Split-KV cluster mode: 0 (off), or the cluster size `n` (2..=`MAX_CLUSTER_SPLITS`) the
    /// decode grid was launched with; the `n` CTAs of a cluster are the `n` splits of one block
    /// in key order, and merge their partials through distributed shared memory instead of the
    /// workspace and the combine kernel (See Note [cluster merge] in docs/DESIGN.md). In
    /// graph mode the groups of a cluster come from `num_work_dev`'s third word.
    pub cluster_splits: u32,
    /// Combine CTAs per merge item (>= 1, a power of two dividing `o_head_dim / 4`): combine
    /// CTA `b` merges item `b / combine_parts` over columns `part * o_head_dim / combine_parts ..`
    /// with `part = b % combine_parts` (See Note [combine parts] in docs/DESIGN.md).
    pub combine_parts: u32,
    /// K/V rows between consecutive tokens of one kv head in a page
    /// ([`crate::PagedKvLayout::slot_stride_rows`]: `kv_heads` for NHD pages, 1 for HND).
    pub kv_slot_stride_rows: u32,
    /// K/V rows between consecutive kv heads of one token in a page
    /// ([`crate::PagedKvLayout::head_stride_rows`]: 1 for NHD pages, `page_size` for HND).
    pub kv_head_stride_rows: u32,
    /// [`group_magic`]`(group)`: the combine kernel splits packed rows into (token, head) by a
    /// multiply-high instead of a division (the decode kernels keep the division: with the
    /// multiply-high their cluster workloads measured 0.2-0.5 us slower, docs/perf.md change 71).
    pub group_magic: u32,
    /// Tokens per TMA box of the K/V tensor maps ([`crate::decode::DecodeGeometry::tma_box_tokens`]),
    /// or 0: every tile by `cp.async` (See Note [TMA tiles] in docs/DESIGN.md).
    pub tma_box_tokens: u32,
    /// CTAs of the grid resident at once (`sm_count * ctas_per_sm`), or 0: off. A CTA's last
    /// load warp prefetches into L2 the page-table entries and the first K/V tile of work item
    /// `blockIdx.x + next_wave_ctas`, which a CTA of a later wave starts on about when this one
    /// ends (See Note [next-wave prefetch] in docs/DESIGN.md).
    pub next_wave_ctas: u32,
    /// 1: the K/V rows before each request's new tokens were written before the kernel this
    /// call follows on the stream started, so the load warps copy the tiles made of them
    /// ([`DecodeWork::tiles_before_new_keys`]) before `griddepcontrol.wait`, while that kernel
    /// ends; 0: no K/V row is read before the wait (See Note [early K/V tiles] in
    /// docs/DESIGN.md).
    pub early_kv: u32,
    /// Head dim of Q, O and the split partials (`[slots, rows_per_block, o_head_dim]`):
    /// `head_dim`, or half of it in the kv-head-pair view (See Note [kv-head pairs] in
    /// docs/DESIGN.md), where `kv_heads`, `group` and `head_dim` describe two adjacent kv heads
    /// of an NHD pool as one of twice the head dim and packed row `r` of a block reads the
    /// pair's columns `o_head_dim * (r % group >= group / 2) ..` of each K/V row (padded
    /// variants only). (Its place also puts `k_map` on a 64-byte offset, asserted below: rustc
    /// passes kernel parameters with at most 16-byte alignment, so the PTX build raises the
    /// decode entries' parameter to `.align 64` (`ferroflash_ptxbuild::apply_param_alignment`)
    /// and the maps must sit on 64-byte offsets inside it.)
    pub o_head_dim: u32,
    /// Tensor map of the K pool (when `tma_box_tokens > 0`): dims (head dim, kv head, token in
    /// page, page), box (128 bytes, 1, `tma_box_tokens`, 1), 128-byte swizzle. Read by the TMA
    /// unit from this parameter block (`.param` space).
    pub k_map: TensorMap,
    /// Tensor map of the V pool, as `k_map`.
    pub v_map: TensorMap,
}

/// An opaque CUDA tensor map (`CUtensorMap`: 128 bytes, used from a 64-byte aligned
/// address), encoded by the host driver (`cuTensorMapEncodeTiled`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TensorMap(pub [u64; 16]);

/// Alignment the decode entries' parameter block is declared with in the PTX, so that the TMA
/// unit finds the tensor maps on 64-byte boundaries.
pub const PARAMS_ALIGN: usize = 64;
const _: () = assert!(core::mem::offset_of!(DecodeParams, k_map) % PARAMS_ALIGN == 0);
const _: () = assert!(core::mem::offset_of!(DecodeParams, v_map) % PARAMS_ALIGN == 0);

/// Longest KV length of a request (validated by the host): the kernels' masks take key
/// positions as `i32` and the planner's token counts are `u32` (chunk x 64 keys), so lengths stay
/// far below both limits (2^30 keys, ~1.07e9).
pub const MAX_KV_LEN: u32 = 1 << 30;

/// Head ratios (`q_heads / kv_heads`) must stay below this (validated by the host), so that
/// [`div_by_group`] is exact for every packed row of a CTA.
pub const MAX_GROUP: u32 = 1 << 13;

/// Multiplier for [`div_by_group`]: `floor(2^31 / group) + 1` (`group >= 1`).
pub const fn group_magic(group: u32) -> u32 {
    (1u32 << 31) / group + 1
}

/// `n / group` from `magic = group_magic(group)`, exact whenever `n * group < 2^31`: with
/// `m = floor(2^31 / d) + 1`, `m d = 2^31 + e` for some `0 < e <= d`, so
/// `n m / 2^31 = n / d + n e / (d 2^31)`, and the floor is `n / d`'s while the added term stays
/// under `1 / d` (the smallest gap to the next integer), i.e. `n e < 2^31`. The kernels' packed
/// rows are below `16 group + 64` (16 new tokens, 64 rows per CTA), so `group < MAX_GROUP`
/// keeps `n group` under `2^31`. No branch: `group == 1` is `m = 2^31 + 1`.
#[inline(always)]
pub fn div_by_group(n: u32, magic: u32) -> u32 {
    ((n as u64 * magic as u64) >> 31) as u32
}

/// Packed row `n` (`token * group + head`) as `(token, head)`, through [`div_by_group`].
#[inline(always)]
pub fn split_packed_row(n: u32, group: u32, magic: u32) -> (u32, u32) {
    let token = div_by_group(n, magic);
    (token, n - token * group)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tiles_before_new_keys` against a key-by-key count: a tile is early only when every
    /// real key of it is older than the request's new tokens.
    #[test]
    fn tiles_before_new_keys_counts_only_old_tiles() {
        let t = crate::decode::KV_TILE_TOKENS;
        for kv_len in [0, 1, 63, 64, 65, 128, 200, 1000] {
            for q_len in [1, 4, 16] {
                for (kv_start, kv_end) in [
                    (0, kv_len),
                    (0, kv_len / 2),
                    (kv_len / 3, kv_len),
                    (64, kv_len),
                ] {
                    if kv_start >= kv_end {
                        continue;
                    }
                    let w = DecodeWork {
                        kv_start,
                        kv_end,
                        kv_len,
                        q_len,
                        ..Default::default()
                    };
                    let old = kv_len.saturating_sub(q_len);
                    let mut expect = 0;
                    while expect < w.tiles() && (kv_start + (expect + 1) * t).min(kv_end) <= old {
                        expect += 1;
                    }
                    assert_eq!(w.tiles_before_new_keys(), expect, "{w:?}");
                }
            }
        }
    }

    /// Every group below `MAX_GROUP`, every packed row a CTA can hold (`< 16 group + 64`)
    /// around each multiple of the group (where a multiply-high division would first go
    /// wrong), and the largest rows.
    #[test]
    fn div_by_group_is_exact_for_every_packed_row() {
        for group in 1..MAX_GROUP {
            let magic = group_magic(group);
            let limit = 16 * group + 64;
            let check = |n: u32| {
                if n < limit {
                    assert_eq!(
                        split_packed_row(n, group, magic),
                        (n / group, n % group),
                        "n {n} group {group}"
                    );
                }
            };
            for k in 0..=limit / group {
                let m = k * group;
                check(m);
                check(m.wrapping_sub(1));
                check(m + 1);
            }
            for n in limit.saturating_sub(70)..limit {
                check(n);
            }
        }
        // The bound itself: the largest n * group a CTA reaches stays below 2^31.
        let g = MAX_GROUP - 1;
        assert!(((16 * g + 64) as u64 * g as u64) < 1 << 31);
    }
}
