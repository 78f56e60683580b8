//! Decode kernel geometry: tile sizes, pipeline depth and the shared-memory plan, derived once
//! from the head dimension and used by both the host (launch size, workspace) and the device
//! (offsets).
//!
//! See docs/DESIGN.md, "Decode tile flow".

use crate::smem::align_up;

/// Keys per KV tile (one pipeline stage holds one K tile and one V tile).
pub const KV_TILE_TOKENS: u32 = 64;
/// Consumer warps: each takes `KV_TILE_TOKENS / CONSUMER_WARPS` keys of every tile.
pub const CONSUMER_WARPS: u32 = 4;
/// Most producer (load) warps of a variant (see [`producer_warps`]).
pub const MAX_PRODUCER_WARPS: u32 = 4;
/// Tiles ahead of its use that the producer loads a page-table entry (See Note [page-table
/// prefetch] in docs/DESIGN.md).
pub const PAGE_ID_LEAD: usize = 4;

/// u32 per lane and tile in load warp `load_warp`'s page-id ring (See
/// [`DecodeSmemPlan::page_ids_offset`]): one per 32 rows the warp copies, and two in warp 0,
/// which reads the page ids of every row of a TMA tile (it issues a TMA tile alone).
pub const fn page_id_slots(load_warp: u32, producer_warps: u32) -> u32 {
    if load_warp == 0 {
        2
    } else {
        (KV_TILE_TOKENS / producer_warps).div_ceil(32)
    }
}

/// First 32-lane slot of load warp `load_warp`'s page-id ring (the rings follow each other
/// in warp order; `load_warp == producer_warps` gives the slots of all of them).
pub const fn page_id_ring_base(load_warp: u32, producer_warps: u32) -> u32 {
    if load_warp == 0 {
        0
    } else {
        PAGE_ID_LEAD as u32
            * (page_id_slots(0, producer_warps)
                + (load_warp - 1) * page_id_slots(1, producer_warps))
    }
}

/// Bytes of the page-id rings of `producer_warps` load warps.
pub const fn page_id_ring_bytes(producer_warps: u32) -> u32 {
    page_id_ring_base(producer_warps, producer_warps) * 32 * 4
}
/// Keys each consumer warp handles per tile (one m16n8k16 k-step of P·V).
pub const KEYS_PER_WARP: u32 = KV_TILE_TOKENS / CONSUMER_WARPS;
/// Packed query rows in one m16 MMA tile.
pub const M_TILE_ROWS: u32 = 16;
/// Bytes of one 16-byte cp.async chunk.
pub const CHUNK_BYTES: u32 = 16;
/// f32 of padding after each row of the warp-merge scratch (spreads fragment stores over banks).
pub const MERGE_ROW_PAD_F32: u32 = 8;

/// Index (in the mbarrier array) of "stage `s` is full": the lanes of the load warps arrive
/// through `cp.async.mbarrier.arrive.noinc` when their copies of the stage land; consumers wait.
pub const fn mbar_full(stage: u32) -> u32 {
    stage
}
/// Index of "stage `s` is empty": the 128 consumer threads arrive after reading it; the producer
/// waits before refilling it.
pub const fn mbar_empty(stage: u32, stages: u32) -> u32 {
    stages + stage
}
/// Arrivals that complete a "full" phase: every lane of the variant's load warps.
pub const fn full_arrivals(producer_warps: u32) -> u32 {
    32 * producer_warps
}
/// Most splits of one block merged inside a thread-block cluster; blocks with more splits go
/// through the combine kernel. Measured on the H200 (docs/perf.md, changes 33 and 50): clusters
/// of 2 and 3 are 4-8% faster than the combine, of 4 2% (with the load-balancing cluster
/// policy), of 8 at four fp8 CTAs per SM 3-4%. Portable cluster sizes stop at 8.
pub const MAX_CLUSTER_SPLITS: u32 = 8;
/// Arrivals that complete an "empty" phase (consumer threads).
pub const EMPTY_ARRIVALS: u32 = 32 * CONSUMER_WARPS;
/// Online-softmax rescale threshold (log2 units): the running max a row's probabilities are
/// taken against moves only when a tile's max exceeds it by more than this, so `P <= 2^8` and
/// most tiles skip rescaling the accumulators (See Note [lazy rescale] in docs/DESIGN.md).
pub const RESCALE_THRESHOLD_LOG2: f32 = 8.0;
/// Named barrier among the consumer warps only.
pub const BAR_CONSUMERS: u32 = 15;
/// Named barrier of all warps (producer and consumers) before the ring is reused for the merge.
/// A named barrier with a thread count, like the others, because the two roles reach it at
/// different instructions (`bar.sync 0` requires one instruction for the whole CTA).
pub const BAR_RING_REUSE: u32 = 14;

/// Geometry of one decode kernel variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeGeometry {
    /// Elements per head row.
    pub head_dim: u32,
    /// Bytes per KV element (2 for bf16/f16, 1 for fp8).
    pub kv_elem_bytes: u32,
    /// m16 tiles per CTA (packed rows per CTA = 16 * m_tiles).
    pub m_tiles: u32,
    /// Row groups of the consumer warps (1, 2 or 4; See Note [row-split consumers] in
    /// docs/DESIGN.md): the four consumer warps form `row_groups` groups that own distinct
    /// rows (`16 m_tiles / row_groups` each) times [`key_groups`](Self::key_groups) slices of
    /// every tile's keys (`64 / key_groups` each). 1: every warp holds all rows for 16 keys
    /// (the `_m8`, `_m16`, `_m32` variants); 2 and 4: the `_w32` and `_w64` variants, one m16
    /// tile per warp over 32 or 64 keys.
    pub row_groups: u32,
    /// Pipeline stages.
    pub stages: u32,
    /// Load warps: warp `w` of `n` copies rows `w 64 / n .. (w + 1) 64 / n` of every tile (see
    /// [`producer_warps`]).
    pub producer_warps: u32,
    /// A narrow variant (at most 8 real rows, swapped-operand consumers): same shared-memory
    /// layout as its 16-row variant, with its own ring depth ([`stages_for`]).
    pub narrow: bool,
    /// A wgmma variant (`_g64`, sm_90a; See Note [wgmma consumer] in docs/DESIGN.md): 64 rows
    /// per CTA, one consumer warpgroup, Q and the ring in the 128-byte-swizzle layout
    /// ([`column_block_bytes`](Self::column_block_bytes)), each tile 1024-byte aligned.
    pub wgmma: bool,
    /// A paired variant (`_m8p`; See Note [paired fp8 tiles] in docs/DESIGN.md): narrow, fp8
    /// K/V at head dim 128, the consumers taking the ring's tiles two at a time from a
    /// six-stage ring, two CTAs per SM ([`geometry_paired`]).
    pub paired: bool,
}

/// Shared-memory byte offsets of the decode kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeSmemPlan {
    /// Bytes of one K (or V) tile.
    pub kv_tile_bytes: u32,
    /// Bytes of one stage (K tile then V tile).
    pub stage_bytes: u32,
    /// Offset of the Q tile (16-bit elements, `rows x head_dim`, swizzled like K).
    pub q_offset: u32,
    /// Offset of the per-row score factors (`rows` f32: the power of two a Q row was scaled by
    /// to fit f16, undone on the scores).
    pub row_scale_offset: u32,
    /// Offset of the ring of stages.
    pub ring_offset: u32,
    /// Offset of the `2 * stages` u64 mbarriers (full then empty).
    pub mbar_offset: u32,
    /// Offset of the producers' page-id rings: per load warp, `PAGE_ID_LEAD` tiles of
    /// [`page_id_slots`] u32 per lane (`[warp][tile slot][half][lane]`).
    pub page_ids_offset: u32,
    /// Total dynamic shared memory.
    pub total_bytes: u32,
    /// Bytes needed after the main loop to merge the consumer warps (reuses the ring).
    pub merge_bytes: u32,
    /// Offset of the CTA's merged partial in split-KV cluster mode (reuses the ring after the
    /// merge scratch): O `rows x head_dim` f32, then the rows' LSE (base 2) f32 (See Note
    /// [cluster merge] in docs/DESIGN.md).
    pub cluster_offset: u32,
    /// Offset of the 16-bit K and V tiles an fp8 wgmma variant converts each stage into
    /// (`2 KV_TILE_TOKENS head_dim` bf16/f16 in the wgmma layout, after the ring; reused by the
    /// merge scratch after the loop); 0 in every other variant.
    pub convert_offset: u32,
}

impl DecodeGeometry {
    /// Packed query rows per CTA.
    pub const fn rows_per_block(&self) -> u32 {
        M_TILE_ROWS * self.m_tiles
    }
    /// Consumer warps that share one row group, each over its own slice of a tile's keys
    /// (`CONSUMER_WARPS / row_groups`); the warp merge runs over this many states per row.
    pub const fn key_groups(&self) -> u32 {
        CONSUMER_WARPS / self.row_groups
    }
    /// Bytes of one 128-byte column block of a Q or K/V tile in the wgmma layout (64 rows x
    /// 128 bytes): the 128-byte swizzle of wgmma operands and TMA tensor-map copies (chunk
    /// `c % 8 ^ row % 8` of block `c / 8`); 0 for the `ldmatrix` row layout, which for 128-byte
    /// rows (fp8 d128) is the same bytes as one column block (See Note [TMA tiles]).
    pub const fn column_block_bytes(&self) -> u32 {
        if self.wgmma {
            KV_TILE_TOKENS * 128
        } else {
            0
        }
    }
    /// Keys of every tile one consumer warp takes.
    pub const fn keys_per_warp(&self) -> u32 {
        KV_TILE_TOKENS / self.key_groups()
    }
    /// Tokens per TMA box when K/V tiles can be copied by tensor maps for pages of `page_size`
    /// tokens in the NHD layout (`nhd`), 0 when they cannot: a variant with the TMA path
    /// ([`tma_capable`](Self::tma_capable)), a box of `min(page_size, 64)` tokens that divides
    /// both 64 and the page and has at least 8 rows (a 1 KiB swizzle atom), and at most 16 boxes
    /// per K (or V) tile, so that one lane issues each box of a stage. Tiles with rows past the
    /// split's end keep the `cp.async` path (its zero fill); so does every tile of a split whose
    /// start is not on a box boundary.
    pub const fn tma_box_tokens(&self, page_size: u32, nhd: bool) -> u32 {
        let rows = if page_size < KV_TILE_TOKENS {
            page_size
        } else {
            KV_TILE_TOKENS
        };
        let blocks = self.head_dim * self.kv_elem_bytes / 128;
        if !nhd
            || !self.tma_capable()
            || rows < 8
            || !KV_TILE_TOKENS.is_multiple_of(rows)
            || !page_size.is_multiple_of(rows)
            || (KV_TILE_TOKENS / rows) * blocks > 16
        {
            0
        } else {
            rows
        }
    }
    /// Whether the variant's kernel has the TMA tile path at all (See Note [TMA tiles] in
    /// docs/DESIGN.md): the wgmma variants (`_g64`) and the fp8 row-split ones (`_w32`, `_w64`
    /// at fp8 d128, 128-byte rows), whose consumers are issue- or latency-bound, so that the
    /// load warp's ~700 `cp.async`-path instructions per tile cost them: with TMA tiles X3 took
    /// 14% less time, X10-X12 6-7%, X9 4.5%. Not the key-split variants of the bandwidth-bound
    /// decode shapes (W1-W6 0.2-0.7 us slower with TMA tiles), nor the 16-bit row-split ones
    /// (16-40 bytes of spills at their 168-register cap, X8 unchanged). docs/perf.md, change 80.
    /// Load warp 0 issues a TMA tile alone; the other load warps (head dim 256 `_g64`) only
    /// arrive on its `full` barrier.
    pub const fn tma_capable(&self) -> bool {
        self.wgmma
            || (self.producer_warps == 1
                && self.kv_elem_bytes == 1
                && self.row_groups > 1
                && self.chunks_per_row() == 8)
    }
    /// 16-byte chunks in one K/V row.
    pub const fn chunks_per_row(&self) -> u32 {
        self.head_dim * self.kv_elem_bytes / CHUNK_BYTES
    }
    /// 16-byte chunks in one row of the Q tile (Q is staged as 16-bit elements, fp8 Q too).
    pub const fn q_chunks_per_row(&self) -> u32 {
        self.head_dim * 2 / CHUNK_BYTES
    }
    /// f32 between rows of the merge scratch.
    pub const fn merge_row_stride_f32(&self) -> u32 {
        self.head_dim + MERGE_ROW_PAD_F32
    }
    /// Threads per CTA: the consumer warps, then the load warps.
    pub const fn threads(&self) -> u32 {
        32 * (CONSUMER_WARPS + self.producer_warps)
    }
    /// The shared-memory plan.
    pub const fn smem(&self) -> DecodeSmemPlan {
        let kv_tile_bytes = KV_TILE_TOKENS * self.head_dim * self.kv_elem_bytes;
        let stage_bytes = 2 * kv_tile_bytes;
        let q_bytes = self.rows_per_block() * self.head_dim * 2;
        let q_offset = 0;
        let row_scale_offset = q_offset + q_bytes;
        // wgmma and TMA tiles start on a swizzle atom (1024 bytes; the dynamic window is
        // 1024-aligned): their 128-byte-swizzle layout repeats every 1024 bytes.
        let ring_align = if self.wgmma || self.tma_capable() {
            1024
        } else {
            128
        };
        let ring_offset = align_up(row_scale_offset + 4 * self.rows_per_block(), ring_align);
        // Per key group: O (rows x padded head_dim f32) + max and sum per row (2 x rows f32).
        let merge_bytes =
            self.key_groups() * self.rows_per_block() * (self.merge_row_stride_f32() + 2) * 4;
        let ring_bytes = self.stages * stage_bytes;
        let cluster_offset = ring_offset + align_up(merge_bytes, 16);
        let cluster_bytes = self.rows_per_block() * (self.head_dim + 1) * 4;
        let reused = align_up(merge_bytes, 16) + cluster_bytes;
        // fp8 wgmma: one 16-bit K tile and two 16-bit V tiles (tile t's V is widened while
        // tile t - 1's P·V still reads the other; See Note [wgmma consumer] in docs/DESIGN.md).
        let convert_bytes = if self.wgmma && self.kv_elem_bytes == 1 {
            3 * KV_TILE_TOKENS * self.head_dim * 2
        } else {
            0
        };
        let convert_offset = if convert_bytes > 0 {
            ring_offset + ring_bytes
        } else {
            0
        };
        let after = if ring_bytes + convert_bytes > reused {
            ring_bytes + convert_bytes
        } else {
            reused
        };
        let mbar_offset = ring_offset + after;
        let page_ids_offset = align_up(mbar_offset + 2 * self.stages * 8, 16);
        let total_bytes = page_ids_offset + page_id_ring_bytes(self.producer_warps);
        DecodeSmemPlan {
            kv_tile_bytes,
            stage_bytes,
            q_offset,
            row_scale_offset,
            ring_offset,
            mbar_offset,
            page_ids_offset,
            total_bytes,
            merge_bytes,
            cluster_offset,
            convert_offset,
        }
    }
}

/// Stages for a head dim, element size and m16 tiles per CTA: about 96 KiB of ring for 16-bit
/// K/V (two CTAs per SM on Hopper and Ampere-class 164+ KiB SMs; 64 KiB where the Q tile passes
/// 8 KiB, i.e. 64 rows at head dim 128, so that two CTAs still fit 227 KiB), about 64 KiB for
/// fp8 (three CTAs per SM: fp8 tiles carry half the bytes for the same consumer work, so more
/// consumer warps per SM pay more than deeper rings) and 48 KiB for narrow fp8 variants (four
/// CTAs per SM, with [`max_registers`]: docs/perf.md change 41), at least 2 and at most 6 (fp8
/// d128: 4 stages of 16 KiB, narrow 3).
pub const fn stages_for(head_dim: u32, kv_elem_bytes: u32, m_tiles: u32, narrow: bool) -> u32 {
    let stage = 2 * KV_TILE_TOKENS * head_dim * kv_elem_bytes;
    let q_bytes = M_TILE_ROWS * m_tiles * head_dim * 2;
    let ring = if kv_elem_bytes == 1 && narrow {
        48 * 1024
    } else if kv_elem_bytes == 1 || q_bytes > 8 * 1024 {
        64 * 1024
    } else {
        96 * 1024
    };
    let s = ring / stage;
    if s < 2 {
        2
    } else if s > 6 {
        6
    } else {
        s
    }
}

/// Register cap of the 16-bit one-m-tile variants at head dim 64 and 128, which run two
/// 160-thread CTAs per SM (their rings are 100-102 KiB). Registers are allocated per SM
/// sub-partition (16384 each, a warp's share rounded up to 8 per thread): two CTAs are ten
/// warps, three per sub-partition, so at most `16384 / (3 * 32)` = 170, i.e. 168. The cap is
/// a guard (main needs 164; measured neutral, docs/perf.md change 44): the persistent draft
/// of change 43 needed 176, and the CUDA occupancy silently fell to one CTA per SM.
pub const SIXTEEN_BIT_M16_MAX_REGISTERS: u32 = 168;

/// Register cap (`.maxnreg`) of a decode variant, where one keeps more CTAs per SM: fp8 K/V at
/// head dim 128 with one m tile (64 KiB ring) fits three CTAs per SM in shared memory, and at
/// 128 registers (3 x 160 threads x 128 = 61440 of 65536) in the register file too; uncapped it
/// needs 129-131 and gets two. Consumers of fp8 tiles are issue-bound, so the third CTA pays.
/// The narrow fp8 d128 variants (102-106 registers uncapped, no spills at 96) fit four CTAs at
/// 96 (4 x 160 x 96 = 61440) with their 48 KiB ring; their paired variants (`paired`, two
/// CTAs per SM, 118-123 registers) at [`SIXTEEN_BIT_M16_MAX_REGISTERS`]. The 16-bit m16
/// variants at head dims 64 and 128 are capped at [`SIXTEEN_BIT_M16_MAX_REGISTERS`] to keep two CTAs per SM, and so
/// are the row-split variants (`row_groups > 1`, one m16 tile per warp) of every element size
/// at those head dims. At head dim 256 (one CTA per SM: a 64 KiB 16-bit stage) nothing is
/// capped: a row-split warp holds 16 rows x 256 f32 of O, 128 registers. The narrow fp8
/// variants at head dim 256 (`_d256_m8`, `_d256p_m8`: a 64 KiB ring, three CTAs per SM in
/// shared memory) are capped at [`SIXTEEN_BIT_M16_MAX_REGISTERS`] for two CTAs per SM: the
/// padded one needs 170 uncapped, and the CUDA occupancy then fell to one CTA per SM
/// (docs/perf.md, change 141).
pub const fn max_registers(
    kv_elem_bytes: u32,
    head_dim: u32,
    m_tiles: u32,
    row_groups: u32,
    narrow: bool,
    paired: bool,
) -> Option<u32> {
    if paired || (row_groups > 1 && head_dim <= 128) {
        Some(SIXTEEN_BIT_M16_MAX_REGISTERS)
    } else if kv_elem_bytes == 1 && head_dim == 128 && m_tiles == 1 {
        Some(if narrow { 96 } else { 128 })
    } else if (kv_elem_bytes == 2 && head_dim <= 128 && m_tiles == 1 && !narrow)
        || (kv_elem_bytes == 1 && head_dim == 256 && m_tiles == 1 && narrow)
    {
        Some(SIXTEEN_BIT_M16_MAX_REGISTERS)
    } else {
        None
    }
}

/// Load warps of the 16-bit head-dim-256 variants (`_d256_m16`, `_d256_g64`, and the row-split
/// `_d256_w32`, `_w64`), which run one CTA per SM. The wgmma consumers take
/// 1.6-1.9 us per 64 KiB tile when the tiles come by TMA, and 2.4-2.6 us when one load warp
/// issues the 4096 16-byte `cp.async` of a tile, 128 warp-wide instructions (pages of under 16
/// tokens, or of sizes no TMA box fits); with two load warps 1.5-1.6 us (docs/perf.md session
/// 30, changes 100-101). Four warps' page-id rings do not fit beside the `_g64`'s three 64 KiB
/// stages; two do. The key-split `_d256_m16` (session 42, docs/perf.md change 123): -1..4% on
/// 7 of 8 shapes of 1-16 rows, +2% on one ragged batch; a third 64 KiB stage on top lost
/// again what it gained (as in change 45).
pub const D256_PRODUCER_WARPS: u32 = 2;

/// Load warps of a variant. 16-bit K/V at head dim 128 with two m tiles (245 registers, one
/// CTA per SM) takes four, one per SM sub-partition: a CTA alone on its SM must stream the SM's
/// whole bandwidth share, and one warp's copies go through one sub-partition's load/store
/// queue (docs/perf.md, change 27: X3 -6.6%, X8 -3.5%). Every other variant takes one: at two
/// or three CTAs per SM more load warps cost registers (two CTAs of six warps need a
/// 128-register cap) and measured 5-7% slower; the fp8 m32 consumers are issue-bound and lost
/// 2.6% (X9); the row-split variants run two CTAs per SM. The 16-bit head-dim-256 variants
/// (one CTA per SM) take [`D256_PRODUCER_WARPS`].
pub const fn producer_warps(
    kv_elem_bytes: u32,
    head_dim: u32,
    m_tiles: u32,
    row_groups: u32,
) -> u32 {
    if kv_elem_bytes == 2 && head_dim == 128 && m_tiles == 2 && row_groups == 1 {
        MAX_PRODUCER_WARPS
    } else if kv_elem_bytes == 2 && head_dim == 256 {
        D256_PRODUCER_WARPS
    } else {
        1
    }
}

/// The geometry of the key-split variant for (head_dim, kv element bytes, m tiles, narrow):
/// [`geometry_rows`] with one row group.
pub const fn geometry(
    head_dim: u32,
    kv_elem_bytes: u32,
    m_tiles: u32,
    narrow: bool,
) -> DecodeGeometry {
    geometry_rows(head_dim, kv_elem_bytes, m_tiles, 1, narrow)
}

/// The geometry of the variant for (head_dim, kv element bytes, m tiles, row groups, narrow).
pub const fn geometry_rows(
    head_dim: u32,
    kv_elem_bytes: u32,
    m_tiles: u32,
    row_groups: u32,
    narrow: bool,
) -> DecodeGeometry {
    DecodeGeometry {
        head_dim,
        kv_elem_bytes,
        m_tiles,
        row_groups,
        stages: stages_for(head_dim, kv_elem_bytes, m_tiles, narrow),
        producer_warps: producer_warps(kv_elem_bytes, head_dim, m_tiles, row_groups),
        narrow,
        wgmma: false,
        paired: false,
    }
}

/// Whether the paired narrow variant (`_m8p`) exists for head dim `head_dim` over
/// `kv_elem_bytes`-byte K/V: fp8 at head dim 128, whose 16 KiB stages carry half the bytes of
/// a 16-bit stage for the same per-tile consumer chain (docs/perf.md changes 107-108).
pub const fn paired_supported(head_dim: u32, kv_elem_bytes: u32) -> bool {
    kv_elem_bytes == 1 && head_dim == 128
}

/// Ring of the paired variant: six 16 KiB fp8 stages, so that two are in flight while the
/// consumers hold a pair; two CTAs per SM.
pub const PAIRED_RING_BYTES: u32 = 96 * 1024;

/// The geometry of the paired narrow variant (`_m8p`, [`paired_supported`] shapes only): the
/// narrow layout with a [`PAIRED_RING_BYTES`] ring, capped at
/// [`SIXTEEN_BIT_M16_MAX_REGISTERS`] for two CTAs per SM ([`max_registers`]).
pub const fn geometry_paired(head_dim: u32, kv_elem_bytes: u32) -> DecodeGeometry {
    let g = geometry_rows(head_dim, kv_elem_bytes, 1, 1, true);
    DecodeGeometry {
        paired: true,
        stages: PAIRED_RING_BYTES / g.smem().stage_bytes,
        ..g
    }
}

/// The geometry of the wgmma variant (`_g64`) at `head_dim` (128, or 64 and 256 over 16-bit K/V):
/// the `_w64` plan with the tiles in the wgmma layout (at head dim 256: 3 stages of 64 KiB and
/// 32 KiB of Q, one CTA per SM; docs/perf.md change 98). fp8 K/V (`kv_elem_bytes` 1) keep a 2-stage fp8 ring (32 KiB)
/// and the 16-bit tiles the stages are widened into: one K tile and two V tiles (48 KiB), so
/// two CTAs fit an SM.
pub const fn geometry_wgmma(head_dim: u32, kv_elem_bytes: u32) -> DecodeGeometry {
    let g = geometry_rows(head_dim, kv_elem_bytes, 4, 4, false);
    DecodeGeometry {
        wgmma: true,
        stages: if kv_elem_bytes == 1 {
            2
        } else if head_dim == 256 {
            3
        } else {
            g.stages
        },
        ..g
    }
}

/// Whether the wgmma consumer (`_g64`, 64 rows per CTA, sm_90a) exists for head dim
/// `head_dim` with `q_elem_bytes`-byte Q and `kv_elem_bytes`-byte K/V elements: a 16-bit Q, and
/// head dim 128 (16-bit or fp8 K/V), 64 or 256 (16-bit K/V; at 256 an fp8 stage widened to 16
/// bits would need three more 32 KiB tiles; at 64 the fp8 path's widening is not built). The
/// host's choice and the kernels' const check both ask it.
pub const fn wgmma_supported(head_dim: u32, q_elem_bytes: u32, kv_elem_bytes: u32) -> bool {
    q_elem_bytes == 2
        && (head_dim == 128 || ((head_dim == 64 || head_dim == 256) && kv_elem_bytes == 2))
}

/// Whether (m tiles, row groups, narrow) names a decode layout the kernels implement: the
/// key-split layouts (one row group: 16 rows, 32 rows at head dim <= 128, narrow 8 rows) and
/// the row-split ones (one m16 tile per warp: 32 or 64 rows; at head dim 256 one CTA per SM).
pub const fn layout_supported(head_dim: u32, m_tiles: u32, row_groups: u32, narrow: bool) -> bool {
    match (m_tiles, row_groups) {
        (1, 1) => true,
        (2, 1) => !narrow && head_dim <= 128,
        (2, 2) | (4, 4) => !narrow,
        _ => false,
    }
}

const _: () = assert!(KV_TILE_TOKENS.is_multiple_of(CONSUMER_WARPS * 16));
const _: () = assert!(geometry(128, 2, 1, false).smem().total_bytes <= 110 * 1024);
const _: () = assert!(geometry(256, 2, 1, false).smem().total_bytes <= 227 * 1024);
const _: () = assert!(geometry(128, 1, 2, false).smem().total_bytes <= 110 * 1024);
// The head-dim-256 wgmma variant: three 64 KiB stages and 32 KiB of Q, one CTA per SM.
const _: () = assert!(geometry_wgmma(256, 2).smem().total_bytes <= 227 * 1024);
// Row-split variants: two CTAs per SM (228 KiB, 1 KiB reserved per CTA) at every element size.
const _: () = {
    let dims = [64, 128];
    let mut i = 0;
    while i < 2 {
        let mut eb = 1;
        while eb <= 2 {
            let mut rg = 2;
            while rg <= 4 {
                let g = geometry_rows(dims[i], eb, rg, rg, false);
                assert!(2 * (g.smem().total_bytes + 1024) <= 228 * 1024);
                rg += 2;
            }
            eb += 1;
        }
        i += 1;
    }
};
// SwizzledTile's XOR stays inside a row for 4-chunk rows and multiples of 8 chunks only.
const _: () = {
    let dims = [64, 128, 256];
    let mut i = 0;
    while i < 3 {
        let mut eb = 1;
        while eb <= 2 {
            let c = geometry(dims[i], eb, 1, false).chunks_per_row();
            assert!(c == 4 || c.is_multiple_of(8));
            eb += 1;
        }
        i += 1;
    }
};

/// Most KV splits of one output block: bounds the combine kernel's shared memory
/// (`combine_smem_bytes(32, 256)` = 32 KiB) and its per-lane LSE registers (8 per lane).
pub const MAX_SPLITS: u32 = 256;

/// Threads of a combine CTA.
pub const COMBINE_THREADS: u32 = 512;

/// Loads in flight per lane in the combine's sum over a block's splits (phase 2).
pub const COMBINE_LOADS_IN_FLIGHT: u32 = 8;

/// Lanes that share one (row, 4 columns) unit in the combine's phase 2, each summing every
/// `n`-th split: the largest power of two up to 8 that gives each lane two splits or more and
/// keeps every unit of a pass in one CTA's [`COMBINE_THREADS`]. `units` = rows x columns / 4 of
/// the CTA's part.
pub const fn combine_lanes_per_unit(units: u32, splits: u32) -> u32 {
    let mut tpu = 1;
    while tpu < 8 && 2 * tpu <= splits && units * 2 * tpu <= COMBINE_THREADS {
        tpu *= 2;
    }
    tpu
}

/// Dependent rounds of loads the combine's phase 2 takes over `splits` splits, for `units` units
/// per CTA (the split model prices each round past the first, host `split_model`).
pub const fn combine_rounds(units: u32, splits: u32) -> u32 {
    splits.div_ceil(combine_lanes_per_unit(units, splits) * COMBINE_LOADS_IN_FLIGHT)
}

/// Dynamic shared memory of the combine kernel: one f32 weight per (row, split).
pub const fn combine_smem_bytes(rows_per_block: u32, max_splits: u32) -> u32 {
    rows_per_block * max_splits * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_rounds_follow_the_lanes_per_unit() {
        // 14 rows at head dim 64 in 4 parts: 56 units, 8 lanes each, 64 splits per round.
        assert_eq!(combine_lanes_per_unit(56, 129), 8);
        assert_eq!(combine_rounds(56, 129), 3);
        assert_eq!(combine_rounds(56, 104), 2);
        // 16 rows x 64 columns: 256 units, 2 lanes each, 16 splits per round.
        assert_eq!(combine_rounds(256, 17), 2);
        // Few splits: no more lanes than half of them (rounded to a power of two).
        assert_eq!(combine_lanes_per_unit(4, 5), 4);
        assert_eq!(combine_rounds(4, 1), 1);
    }
    #[test]
    fn plans() {
        let g = geometry(128, 2, 1, false);
        assert_eq!(g.stages, 3);
        assert_eq!(g.smem().stage_bytes, 32 * 1024);
        assert_eq!(g.chunks_per_row(), 16);
        assert!(g.smem().ring_offset.is_multiple_of(128));
        assert!(g.smem().mbar_offset.is_multiple_of(8));
        let g = geometry(256, 2, 1, false);
        assert_eq!(g.stages, 2);
        let g = geometry(64, 2, 2, false);
        assert_eq!(g.rows_per_block(), 32);
        let g = geometry(128, 1, 1, false);
        assert_eq!(
            (g.stages, g.chunks_per_row(), g.q_chunks_per_row()),
            (4, 8, 16)
        );
        // Three CTAs fit in a Hopper SM's 228 KiB (1 KiB reserved per CTA).
        assert!(3 * (g.smem().total_bytes + 1024) <= 228 * 1024);
        assert_eq!(g.smem().stage_bytes, 16 * 1024);
        assert!(g.smem().merge_bytes <= 4 * 16 * 1024);
        let g = geometry(64, 1, 2, false);
        assert_eq!(g.chunks_per_row(), 4);
        // Narrow fp8 d128: four CTAs fit (shared memory here, registers by `max_registers`).
        let g = geometry(128, 1, 1, true);
        assert_eq!(g.stages, 3);
        assert!(4 * (g.smem().total_bytes + 1024) <= 228 * 1024);
        assert!(4 * g.threads() * max_registers(1, 128, 1, 1, true, false).unwrap() <= 65536);
        assert!(g.smem().merge_bytes <= g.stages * g.smem().stage_bytes);
        // Paired narrow fp8 d128: six stages, two CTAs fit (shared memory, and each
        // sub-partition's registers at the cap: ten warps, three per sub-partition).
        let g = geometry_paired(128, 1);
        assert!(g.paired && g.narrow && !geometry(128, 1, 1, true).paired);
        assert_eq!(g.stages, 6);
        assert!(2 * (g.smem().total_bytes + 1024) <= 228 * 1024);
        let cap = max_registers(1, 128, 1, 1, true, true).unwrap();
        assert!((2 * g.threads() / 32).div_ceil(4) * 32 * cap <= 16384);
        assert!(g.smem().merge_bytes <= g.stages * g.smem().stage_bytes);
        // Narrow fp8 d256: two CTAs per SM, in shared memory and at the cap in each
        // sub-partition's registers (ten warps: three per sub-partition).
        let g = geometry(256, 1, 1, true);
        assert!(2 * (g.smem().total_bytes + 1024) <= 228 * 1024);
        let cap = max_registers(1, 256, 1, 1, true, false).unwrap();
        assert!((2 * g.threads() / 32).div_ceil(4) * 32 * cap <= 16384);
        assert_eq!(max_registers(1, 256, 1, 1, false, false), None);
        // 16-bit m16 at head dims 64 and 128: two CTAs per SM, in shared memory and, at the
        // cap, in each sub-partition's 16384 registers (ten warps: three per sub-partition).
        for d in [64, 128] {
            let g = geometry(d, 2, 1, false);
            assert!(2 * (g.smem().total_bytes + 1024) <= 228 * 1024);
            let warps = 2 * g.threads() / 32;
            let cap = max_registers(2, d, 1, 1, false, false).unwrap();
            assert!(warps.div_ceil(4) * 32 * cap <= 16384);
        }
        // Narrow 16-bit variants keep the 16-row ring.
        assert_eq!(
            geometry(128, 2, 1, true),
            DecodeGeometry {
                narrow: true,
                ..geometry(128, 2, 1, false)
            }
        );
    }

    /// Load warps: every variant's rows split evenly over its load warps (whole rows per
    /// warp-wide copy, at most two rows per lane), the CTA's threads and the page-id ring follow
    /// the count, and the register budget of the variants that run two or three CTAs per SM is
    /// not touched (one load warp).
    #[test]
    fn load_warps() {
        for d in [64, 128, 256] {
            for eb in [1, 2] {
                for mt in [1, 2] {
                    let g = geometry(d, eb, mt, false);
                    let n = g.producer_warps;
                    assert!((1..=MAX_PRODUCER_WARPS).contains(&n));
                    let rows = KV_TILE_TOKENS / n;
                    assert_eq!(rows * n, KV_TILE_TOKENS);
                    assert!(rows <= 64);
                    // Rows per warp-wide copy divide the warp's rows and 32.
                    let per_copy = 32 / g.chunks_per_row().min(32);
                    assert!(rows.is_multiple_of(per_copy) && 32 % per_copy == 0);
                    assert_eq!(g.threads(), 32 * (CONSUMER_WARPS + n));
                    assert_eq!(full_arrivals(n), 32 * n);
                    let p = g.smem();
                    assert_eq!(p.total_bytes - p.page_ids_offset, page_id_ring_bytes(n));
                    if max_registers(eb, d, mt, 1, false, false).is_some() {
                        assert_eq!(n, 1, "capped variants keep one load warp");
                    }
                }
            }
        }
        assert_eq!(geometry(128, 2, 2, false).producer_warps, 4);
        assert_eq!(geometry(128, 2, 1, false).producer_warps, 1);
        assert_eq!(geometry(128, 1, 2, false).producer_warps, 1);
    }

    /// The page-id rings: each load warp's slots lie after the previous warp's and inside the
    /// plan; warp 0 has two per lane (a TMA tile's 64 rows), the others one per 32 rows they
    /// copy. The head-dim-256 wgmma variant has two load warps, the TMA path, and fits.
    #[test]
    fn page_id_rings() {
        for n in [1, 2, 4] {
            let mut end = 0;
            for w in 0..n {
                assert_eq!(page_id_ring_base(w, n), end);
                let rows = if w == 0 { 64 } else { KV_TILE_TOKENS / n };
                assert!(32 * page_id_slots(w, n) >= rows);
                end += PAGE_ID_LEAD as u32 * page_id_slots(w, n);
            }
            assert_eq!(page_id_ring_bytes(n), end * 32 * 4);
        }
        let g = geometry_wgmma(256, 2);
        assert_eq!(g.producer_warps, D256_PRODUCER_WARPS);
        assert!(g.tma_capable());
        assert_eq!(g.threads(), 32 * (CONSUMER_WARPS + D256_PRODUCER_WARPS));
        assert!(g.smem().total_bytes <= 227 * 1024);
        assert_eq!(geometry_wgmma(128, 2).producer_warps, 1);
        // The 16-bit row-split variants at head dim 256 (one CTA per SM) too; not fp8.
        for rg in [2, 4] {
            let g = geometry_rows(256, 2, rg, rg, false);
            assert_eq!(g.producer_warps, D256_PRODUCER_WARPS);
            assert!(g.smem().total_bytes <= 227 * 1024);
            assert_eq!(geometry_rows(256, 1, rg, rg, false).producer_warps, 1);
        }
    }

    /// Row-split variants: warps x key slices cover the tile, one load warp, two CTAs per SM
    /// in shared memory and (at the cap) in every sub-partition's registers, and the merge
    /// scratch the same size as the key-split variants' (key groups x rows is constant).
    #[test]
    fn row_split_layouts() {
        for d in [64, 128] {
            for eb in [1, 2] {
                for rg in [2, 4] {
                    assert!(layout_supported(d, rg, rg, false));
                    let g = geometry_rows(d, eb, rg, rg, false);
                    assert_eq!(g.rows_per_block(), 16 * rg);
                    assert_eq!(g.key_groups() * g.keys_per_warp(), KV_TILE_TOKENS);
                    assert_eq!(g.keys_per_warp(), 16 * rg);
                    assert_eq!(g.producer_warps, 1);
                    assert!(2 * (g.smem().total_bytes + 1024) <= 228 * 1024);
                    let cap = max_registers(eb, d, rg, rg, false, false).unwrap();
                    assert!((2 * g.threads() / 32).div_ceil(4) * 32 * cap <= 16384);
                    assert_eq!(
                        g.smem().merge_bytes,
                        geometry(d, eb, 1, false).smem().merge_bytes
                    );
                }
            }
        }
        // Head dim 256: one CTA per SM, no register cap, the 16-bit ring two 64 KiB stages.
        for eb in [1, 2] {
            for rg in [2, 4] {
                let g = geometry_rows(256, eb, rg, rg, false);
                assert!(g.smem().total_bytes <= 227 * 1024, "{g:?}");
                assert_eq!(g.keys_per_warp(), 16 * rg);
                assert_eq!(max_registers(eb, 256, rg, rg, false, false), None);
                assert!(!g.tma_capable());
            }
        }
        assert_eq!(geometry_rows(256, 2, 4, 4, false).stages, 2);
        // 64 rows at head dim 128 take a two-stage 16-bit ring (the 16 KiB Q tile).
        assert_eq!(geometry_rows(128, 2, 4, 4, false).stages, 2);
        assert_eq!(geometry_rows(128, 2, 2, 2, false).stages, 3);
        assert_eq!(geometry_rows(64, 2, 4, 4, false).stages, 6);
        assert!(layout_supported(256, 2, 2, false) && layout_supported(256, 4, 4, false));
        assert!(!layout_supported(256, 2, 1, false));
        assert!(!layout_supported(128, 4, 1, false));
        assert!(!layout_supported(128, 2, 2, true));
    }

    /// The wgmma geometry: the 16-bit `_w64` plan with 1024-byte-aligned tiles in 8 KiB column
    /// blocks, two CTAs per SM.
    #[test]
    fn wgmma_geometry() {
        let g = geometry_wgmma(128, 2);
        let p = g.smem();
        assert!(g.wgmma && g.rows_per_block() == 64 && g.stages == 2);
        assert_eq!(g.column_block_bytes(), 64 * 128);
        assert!(p.q_offset.is_multiple_of(1024) && p.ring_offset.is_multiple_of(1024));
        assert!(p.stage_bytes.is_multiple_of(1024) && p.kv_tile_bytes.is_multiple_of(1024));
        assert!(2 * (p.total_bytes + 1024) <= 228 * 1024);
        assert_eq!(geometry_rows(128, 2, 4, 4, false).column_block_bytes(), 0);
        assert_eq!(p.convert_offset, 0);
        // Head dim 64 (`_d64_g64`): Q and each K and V tile one 8 KiB column block; six
        // 16 KiB stages, two CTAs per SM; one TMA box per 8-64 tokens of a tile.
        let g = geometry_wgmma(64, 2);
        let p = g.smem();
        assert!(g.wgmma && g.rows_per_block() == 64 && g.stages == 6 && g.chunks_per_row() == 8);
        assert_eq!(
            (g.column_block_bytes(), p.kv_tile_bytes, p.stage_bytes),
            (8192, 8192, 16384)
        );
        assert!(p.q_offset.is_multiple_of(1024) && p.ring_offset.is_multiple_of(1024));
        assert!(2 * (p.total_bytes + 1024) <= 228 * 1024);
        assert_eq!(
            [1, 8, 16, 64, 128].map(|ps| g.tma_box_tokens(ps, true)),
            [0, 8, 16, 64, 64]
        );
        assert!(wgmma_supported(64, 2, 2) && !wgmma_supported(64, 2, 1));
    }

    /// The fp8 wgmma geometry: a 2-stage fp8 ring, then the 16-bit K tile and the two V tiles
    /// the stages are widened into (1024-aligned, before the mbarriers), two CTAs per SM.
    #[test]
    fn wgmma_fp8_geometry() {
        let g = geometry_wgmma(128, 1);
        let p = g.smem();
        assert!(g.wgmma && g.rows_per_block() == 64 && g.stages == 2 && g.kv_elem_bytes == 1);
        assert_eq!(p.stage_bytes, 16 * 1024);
        assert_eq!(p.convert_offset, p.ring_offset + 2 * p.stage_bytes);
        assert!(p.convert_offset.is_multiple_of(1024));
        assert!(p.convert_offset + 3 * 64 * 128 * 2 <= p.mbar_offset);
        assert!(p.cluster_offset + 64 * 129 * 4 <= p.mbar_offset);
        assert!(2 * (p.total_bytes + 1024) <= 228 * 1024);
    }

    /// TMA boxes: a page's rows of one kv head for pages that divide or are multiples of 64
    /// tokens (8 rows at least), NHD only, one load warp, whole 128-byte row blocks, at most 16
    /// boxes per tile; every ring stage on a 1 KiB swizzle atom.
    #[test]
    fn tma_box_tokens_by_page_size() {
        let g64 = geometry_wgmma(128, 2);
        assert_eq!(g64.column_block_bytes(), 64 * 128);
        let boxes: [u32; 10] =
            [1, 3, 4, 8, 16, 24, 32, 64, 128, 192].map(|p| g64.tma_box_tokens(p, true));
        assert_eq!(boxes, [0, 0, 0, 8, 16, 0, 32, 64, 64, 64]);
        assert_eq!(
            g64.tma_box_tokens(16, false),
            0,
            "HND pages stay on cp.async"
        );
        assert_eq!(geometry_wgmma(128, 1).tma_box_tokens(16, true), 16);
        // fp8 row-split d128: one block per row (the row layout), so 8-row pages fit 16 boxes.
        let w32 = geometry_rows(128, 1, 1, 2, false);
        assert_eq!(w32.column_block_bytes(), 0);
        assert_eq!(w32.tma_box_tokens(8, true), 8);
        assert_eq!(
            geometry_rows(128, 1, 1, 4, false).tma_box_tokens(64, true),
            64
        );
        // No TMA path: the key-split variants, the 16-bit row-split ones, fp8 at d64.
        for g in [
            geometry(128, 2, 1, false),
            geometry(128, 1, 1, true),
            geometry(128, 2, 2, false),
            geometry(256, 2, 1, false),
            geometry_rows(128, 2, 1, 2, false),
            geometry_rows(64, 1, 1, 2, false),
        ] {
            assert!(!g.tma_capable() && g.tma_box_tokens(16, true) == 0, "{g:?}");
        }
        for hd in [64, 128, 256] {
            for eb in [1, 2] {
                for (mt, rg, narrow) in [
                    (1, 1, false),
                    (1, 1, true),
                    (2, 1, false),
                    (1, 2, false),
                    (1, 4, false),
                ] {
                    if layout_supported(hd, mt, rg, narrow) {
                        let g = geometry_rows(hd, eb, mt, rg, narrow);
                        let p = g.smem();
                        if g.tma_capable() {
                            assert!(
                                p.ring_offset.is_multiple_of(1024)
                                    && p.stage_bytes.is_multiple_of(1024)
                            );
                            assert!(p.kv_tile_bytes.is_multiple_of(1024));
                        }
                    }
                }
            }
        }
    }
}
