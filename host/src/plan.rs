//! The decode planner: pure Rust, no CUDA types. From per-request lengths, head counts and the
//! device's parallelism it chooses the kernel variant, how many KV splits each request gets,
//! and emits the work list (one entry per CTA), the merge list (one entry per output block that
//! was split) and the size of the split-KV workspace.
//!
//! # Heuristic (See Note [split heuristic] in docs/DESIGN.md)
//!
//! Decode is bound by HBM bandwidth, so the goal is to keep every SM streaming K/V. A CTA
//! covers one (request, kv head, block of packed query rows); without splitting there are
//! `base = Σ_r kv_heads * row_blocks_r` of them. Every request's KV range is cut into chunks of
//! `c` tiles (64 keys each), the same `c` for all requests so that CTAs take about equal time.
//! The candidates are `c = ceil(max_tiles / s)` for every split count `s` of the longest request
//! (a chunk is never under [`MIN_TILES_PER_SPLIT`] tiles, so a split always streams enough to
//! amortise its prologue, epilogue and merge, except down to [`SMALL_MIN_TILES_PER_SPLIT`] where
//! 4-tile chunks leave more than half of the SMs idle and the grid stays within one CTA per SM:
//! there a CTA's start and end, not the SMs' bandwidth, set the time; at most
//! [`max_auto_ctas`] CTAs, and [`PlanInput::max_ctas`] where given). The split model
//! ([`crate::split_model`]) estimates each candidate's time from its CTAs' sizes, the wave
//! (`sm_count * ctas_per_sm` resident CTAs) and its merge (cluster or combine, from
//! [`PlanInput::cluster_capacity`]). The fastest plan that fits one wave is taken unless a plan
//! of more waves is estimated faster by [`MULTI_WAVE_MARGIN`]; within each group, estimates
//! within [`SPLIT_TIE_SLACK`] tie and the fullest last wave wins.
//!
//! Before session 21 the rule was "the smallest chunk whose CTAs fit one wave" (and, from a wave
//! of blocks on, at most four chunks for wave efficiency). That left a third of the slots idle
//! whenever two chunks per block overflowed the wave (96 or 192 blocks on 264 slots: 10-14%
//! slower than FlashInfer, docs/perf.md session 21); the model cuts those into several waves.
//! `Splits::Fixed(n)` overrides the automatic choice (each request in `n` near-equal chunks).
//!
//! # Balanced plans ([`Balance`]; session 22)
//!
//! Uniform chunks run one CTA per chunk, so once the blocks outnumber the slots
//! (`sm_count * ctas_per_sm`) the grid runs in waves of equal CTAs and the last wave leaves
//! slots idle (272 blocks on 264 slots: four waves of quarter blocks, 12% slower than 264
//! blocks). A balanced plan gives every slot the same cost instead: the blocks, longest first,
//! are laid on a line of cost (tiles plus [`CTA_OVERHEAD_TILES`] per piece) and cut where each
//! slot's share ends (no piece under [`MIN_TILES_PER_SPLIT`] tiles unless its block is), so a
//! slot runs a few pieces one after another; the work list is ordered by each piece's start
//! within its slot, and since the hardware hands the next CTA to the first slot that frees,
//! each slot's pieces follow one another as planned (the property tests simulate that
//! dispatch). Split blocks merge in the combine kernel (pieces of a block run at different
//! times, so never in clusters). The planner takes a balanced plan only past one wave of
//! uniform CTAs, at exactly two CTAs per SM (one-CTA-per-SM variants lost 12-70% with them,
//! session 50), not over an unsplit uniform plan whose last wave
//! is [`BALANCED_MAX_LAST_WAVE_FILL`] full, and within [`BALANCED_MAX_ESTIMATE_RATIO`] of the
//! uniform estimate (the model overprices pieces that start mid-stream), and not where a
//! (request, kv head) has more packed rows than one CTA holds (`Balance::Auto`; session 55).
//! Such a request's row blocks each read the same K/V: uniform chunks give them the same ranges,
//! one split count apart in the work list, so the second read hits L2, while the balanced line
//! cuts each row block at other keys and the second read of a range comes tens of
//! microseconds after the first, from HBM (80 rows, 24 x 6000 keys, `_g64`, on an H100: 115 us
//! against 80 for `fi_decode_tc`, which holds the 80 rows in one CTA; its uniform plan 76 us,
//! session 56). Measured in docs/perf.md, session 22 (balanced plans) and sessions 55-56 (the
//! row blocks).
//!
//! # Last-wave split (one CTA per SM; session 32)
//!
//! A variant that holds one CTA per SM (head dim 256 over many rows, `_d256_g64`) pays each
//! CTA's start and end alone (docs/perf.md, session 30: ~12 us of a 33 us CTA), which the
//! split model's [`CTA_OVERHEAD_TILES`] does not see, and the balanced fill cuts every block
//! at a slot boundary (four CTAs per slot on 400 blocks of 12 tiles: no faster). Where an
//! unsplit uniform plan leaves a last wave of at most a quarter of the SMs (400 blocks on 132
//! SMs: 4 CTAs run a fourth wave alone), only those last blocks are cut, each into at most
//! [`MAX_WAVE_SPLITS`] pieces of at least [`MIN_TILES_PER_SPLIT`] tiles and at most one piece
//! per idle SM, merged by the combine; taken when the tail it removes exceeds the combine's
//! price and a piece's start (`split_last_wave`).
//!
//! # Tail split (experimental, [`TailSplit`]; off by default)
//!
//! SMs do not stream at the same rate (session 5's timeline: up to 30% apart for the same two
//! CTAs), so equal chunks end at different times and the last ones stream alone. With a tail
//! split, the last `percent` of every split block's tiles is cut into small chunks of
//! `chunk_tiles` tiles, each its own work item and partial slot; the longest-first order of the
//! work list puts them after the first wave, so the hardware hands them to the SMs that finish
//! first. Which CTA computes a chunk does not change its partial, and the combine merges a
//! block's slots in a fixed order: the output stays bitwise the same for a fixed plan.

use ferroflash_contract::decode::{combine_rounds, KV_TILE_TOKENS, M_TILE_ROWS};
use ferroflash_contract::params::{DecodeWork, MergeWork, FINAL_OUTPUT};

use crate::split_model::{
    estimate_tiles, merge_tiles, GridShape, Merge, Slots, CTA_OVERHEAD_TILES,
};

/// The smallest split, in 64-key tiles (see the module doc).
pub const MIN_TILES_PER_SPLIT: u32 = 4;
/// The smallest split, in 64-key tiles, where [`MIN_TILES_PER_SPLIT`] leaves more than half of
/// the SMs idle and the grid stays within one CTA per SM (module doc; session 26: such short
/// batches ran 4-18% faster in 2-tile splits, while 96 -> 128 CTAs ran 3-9% slower).
pub const SMALL_MIN_TILES_PER_SPLIT: u32 = 2;
/// Automatic splitting makes at most `MAX_WAVE_SPLITS` CTAs per block or `MAX_AUTO_WAVES` waves,
/// whichever is more ([`max_auto_ctas`]).
pub const MAX_WAVE_SPLITS: u32 = 4;
/// See [`MAX_WAVE_SPLITS`].
pub const MAX_AUTO_WAVES: u32 = 3;
/// Estimates within this fraction of the best count as ties; among them the fullest last wave
/// wins (the model does not see a wave's idle slots, session 21: W1 at 256 CTAs, not 232).
pub const SPLIT_TIE_SLACK: f64 = 0.02;
/// A plan of more than one wave is taken only when its estimate beats the best plan of one
/// wave by more than this fraction: the model favours a second wave's overlap more than the
/// H200 does (session 21, same process: 131K keys in 504 CTAs 132.4 us against 264 CTAs'
/// 127.3, estimated 2.4% faster; 48 blocks of 12K keys in 528 CTAs 76.5 against 240's 75.7).
pub const MULTI_WAVE_MARGIN: f64 = 0.05;
pub use ferroflash_contract::decode::MAX_SPLITS;
/// Automatic splitting keeps an unsplit uniform plan whose last wave is at least this full
/// (session 22: 768 CTAs in 2.9 waves ran 1.7% faster than balanced, 480 ragged ones in 1.8
/// waves 1.4%; at 1.45-2.1 waves balanced was 0.6-11% faster).
pub const BALANCED_MAX_LAST_WAVE_FILL: f64 = 0.8;
/// Automatic splitting takes a balanced plan only when its estimate is at most this multiple of
/// the uniform plan's: the split model prices a balanced plan's pieces like whole CTAs, and
/// measured balanced plans ran faster than uniform ones estimated up to 15% faster (session
/// 22, 20 shapes).
pub const BALANCED_MAX_ESTIMATE_RATIO: f64 = 1.16;
/// Automatic splitting balances only variants of at most this many CTAs per SM: the fp8
/// variants (four per SM) gained 4% on one shape, tied on one and lost 5.4% on one (session 22).
pub const BALANCED_MAX_CTAS_PER_SM: u32 = 2;
/// ... and of at least this many: a variant of one CTA per SM (head dim 256 over 64 rows,
/// `_d256_g64`) pays every piece's start and end alone, which the model's
/// [`CTA_OVERHEAD_TILES`] does not see; its balanced plans ran 12-70% slower than the uniform
/// ones the model had within [`BALANCED_MAX_ESTIMATE_RATIO`] (session 50 on an H100: D00 146 ->
/// 93 us, D07 193 -> 173, D09 276 -> 208, R26 134 -> 79; an fp8 one even).
pub const BALANCED_MIN_CTAS_PER_SM: u32 = 2;
/// A balanced plan is built only when every slot gets at least this many tiles.
pub const BALANCED_MIN_SLOT_TILES: u32 = 2 * MIN_TILES_PER_SPLIT;
/// Passes of the balanced fill after the first (each takes its average from the last).
const BALANCED_PASSES: usize = 3;
/// Most tail chunks of one block (bounds a CUDA-graph plan's grid).
pub const MAX_TAIL_CHUNKS: u32 = 16;

/// Cut the last `percent` of each split block's tiles into chunks of `chunk_tiles` tiles
/// (module doc, "Tail split"). At most [`MAX_TAIL_CHUNKS`] per block (larger chunks then), and
/// the head keeps at least one tile per split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailSplit {
    /// Share of a split block's tiles given to tail chunks, 1..=90.
    pub percent: u32,
    /// Tiles per tail chunk, >= 1.
    pub chunk_tiles: u32,
}

/// The tiles `0..head` of a split block of `tiles` tiles in `splits` chunks, and the tail chunk
/// size and count: `(head, tail_chunk, tail_chunks)`, `tail_chunks = 0` when there is no tail.
pub fn tail_shape(tiles: u32, splits: u32, t: Option<TailSplit>) -> (u32, u32, u32) {
    let Some(t) = t else {
        return (tiles, 0, 0);
    };
    let want = (tiles as u64 * t.percent.clamp(1, 90) as u64 / 100) as u32;
    // The head keeps at least one tile per split.
    let tail = want.min(tiles.saturating_sub(splits));
    if tail == 0 {
        return (tiles, 0, 0);
    }
    let chunk = t.chunk_tiles.max(1).max(tail.div_ceil(MAX_TAIL_CHUNKS));
    (tiles - tail, chunk, tail.div_ceil(chunk))
}

/// How many KV splits to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Splits {
    /// Planner's choice (module doc).
    #[default]
    Auto,
    /// At most `n` splits per request (requests shorter than `n` tiles get fewer).
    Fixed(u32),
}

/// Whether automatic splitting may take a balanced plan (module doc, "Balanced plans").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Balance {
    /// The split model chooses between the uniform chunk and the balanced plan, where every
    /// (request, kv head) fits one CTA's rows (module doc, "Balanced plans").
    #[default]
    Auto,
    /// The balanced plan wherever one can be built (a diagnostic).
    On,
    /// Uniform chunks only (the plans of session 21).
    Off,
}

/// What the planner needs to know. No CUDA types.
#[derive(Clone, Debug)]
pub struct PlanInput<'a> {
    /// `[num_requests + 1]` first row of each request in `q` / `o`.
    pub q_indptr: &'a [u32],
    /// `[num_requests + 1]` first page-table entry of each request.
    pub page_indptr: &'a [u32],
    /// New tokens per request (1..=16).
    pub q_lens: &'a [u32],
    /// KV length per request (new tokens included).
    pub kv_lens: &'a [u32],
    pub q_heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    /// Bytes per K/V element (2 for bf16/f16, 1 for fp8): [`m_tiles_for`] reads it.
    pub kv_elem_bytes: u32,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Resident decode CTAs per SM (from the occupancy calculator).
    pub ctas_per_sm: u32,
    pub splits: Splits,
    /// Use this variant (CUDA-graph plans fix it at capture); `None`: [`m_tiles_for`].
    pub m_tiles: Option<u32>,
    /// Tail split of the split blocks (module doc); `None`: off.
    pub tail: Option<TailSplit>,
    /// Balanced plans (module doc, "Balanced plans"): offered to the split model, forced or off.
    pub balance: Balance,
    /// Clusters of `n` CTAs of the decode variant the device holds at once, indexed by `n`
    /// (entries 0 and 1 unused); empty where split blocks always go to the combine kernel
    /// (cluster merge off, sm_80, CUDA-graph plans). Only the split model reads it.
    pub cluster_capacity: &'a [u32],
    /// Most CTAs an automatic plan may have (CUDA-graph plans: the captured grid,
    /// [`graph_max_ctas`] of the capacity, less the tail split's reserve: tail chunks are not
    /// counted); `None`: [`max_auto_ctas`] of the batch alone. The unsplit plan is always
    /// admitted (one CTA per block, within any grid sized for the batch's blocks).
    pub max_ctas: Option<u64>,
}

/// The plan: which variant, and what every CTA does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// m16 tiles per CTA of the chosen variant (packed rows per CTA = 16 * m_tiles).
    pub m_tiles: u32,
    /// One entry per decode CTA: longest first, or for a balanced plan in dispatch order.
    pub work: Vec<DecodeWork>,
    /// One entry per split output block.
    pub merge: Vec<MergeWork>,
    /// Partial slots in the workspace.
    pub num_slots: u32,
    /// A balanced plan (module doc): the work list is in dispatch order, never clustered.
    pub balanced: bool,
    /// Real packed rows of the fullest block (at most `16 * m_tiles`): what the combine's
    /// CTAs each sum (the split model's price of the combine).
    pub max_block_rows: u32,
}

/// Alignment of each workspace region, bytes.
pub const WORKSPACE_ALIGN_BYTES: usize = 256;

/// The split-KV workspace: one allocation holding partial O (`[slots, rows_per_block,
/// head_dim]` f32, normalised) and partial LSE (`[slots, rows_per_block]` f32, base 2), each
/// region starting on a [`WORKSPACE_ALIGN_BYTES`] boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkspaceLayout {
    pub partial_o_offset_bytes: usize,
    pub partial_o_bytes: usize,
    pub partial_lse_offset_bytes: usize,
    pub partial_lse_bytes: usize,
    /// Size of the allocation (at least one alignment unit, so it is never empty).
    pub total_bytes: usize,
}

impl WorkspaceLayout {
    /// The layout for `slots` partial slots of `rows_per_block` rows of `head_dim` values.
    pub fn new(slots: usize, rows_per_block: usize, head_dim: usize) -> WorkspaceLayout {
        let up = |b: usize| b.div_ceil(WORKSPACE_ALIGN_BYTES) * WORKSPACE_ALIGN_BYTES;
        let partial_o_bytes = slots * rows_per_block * head_dim * 4;
        let partial_lse_bytes = slots * rows_per_block * 4;
        let partial_lse_offset_bytes = up(partial_o_bytes);
        WorkspaceLayout {
            partial_o_offset_bytes: 0,
            partial_o_bytes,
            partial_lse_offset_bytes,
            partial_lse_bytes,
            total_bytes: up(partial_lse_offset_bytes + partial_lse_bytes)
                .max(WORKSPACE_ALIGN_BYTES),
        }
    }
}

impl Plan {
    /// Packed query rows per CTA.
    pub fn rows_per_block(&self) -> u32 {
        M_TILE_ROWS * self.m_tiles
    }
    /// The workspace this plan writes (see [`WorkspaceLayout`]).
    pub fn workspace(&self, head_dim: u32) -> WorkspaceLayout {
        WorkspaceLayout::new(
            self.num_slots as usize,
            self.rows_per_block() as usize,
            head_dim as usize,
        )
    }
    /// f32 elements of partial O in the workspace.
    pub fn partial_o_elems(&self, head_dim: u32) -> usize {
        self.num_slots as usize * self.rows_per_block() as usize * head_dim as usize
    }
    /// f32 elements of partial LSE in the workspace.
    pub fn partial_lse_elems(&self) -> usize {
        self.num_slots as usize * self.rows_per_block() as usize
    }
}

/// The most combine CTAs per split block at `head_dim` ([`combine_parts`]'s bound): at most one
/// per 16 columns, and a power of two dividing `head_dim / 4` (each part's columns whole 4-column
/// units; the padded head dims, e.g. 144 -> 4 parts of 36 columns).
pub fn max_combine_parts(head_dim: u32) -> u32 {
    let mut p = 1;
    while 2 * p <= head_dim / 16 && (head_dim / 4).is_multiple_of(2 * p) {
        p *= 2;
    }
    p
}

/// Combine CTAs per merge block (column parts): the largest power of two `p` with
/// `num_merge * p <= sm_count / 2`, at least 1 and at most [`max_combine_parts`] (`head_dim /
/// 16` at 64, 128 and 256: each CTA keeps at least 16 columns of every row), or `requested`
/// rounded down to a power of two in `1..=max_combine_parts(head_dim)`. Each part's CTA merges
/// all rows and splits of its block over `head_dim / p` columns, so a few long blocks (W1: 8
/// blocks of 32 splits) are merged by many SMs instead of one SM reading a whole block's
/// partials. A combine CTA (512 threads x 80 registers) takes most of an SM's register file,
/// and grids of more than one per SM measured slower, hence half the SMs (See Note [combine
/// parts] in docs/DESIGN.md).
pub fn combine_parts(num_merge: u32, sm_count: u32, head_dim: u32, requested: Option<u32>) -> u32 {
    let max = max_combine_parts(head_dim);
    match requested {
        Some(r) => 1 << r.clamp(1, max).ilog2(),
        None => {
            let mut p = 1;
            while p < max && (num_merge as u64) * (2 * p as u64) <= (sm_count / 2) as u64 {
                p *= 2;
            }
            p
        }
    }
}

/// m16 tiles per CTA (packed rows per CTA = 16 m_tiles) for a batch whose largest (request, kv
/// head) has `max_rows` packed rows (new tokens x group) over K/V of `kv_elem_bytes` bytes per
/// element: one up to 16 rows; else two up to 32 rows, and four (the row-split `_w64` variants,
/// `_g64` on sm_90a at head dim 128, and at 64 and 256 over 16-bit K/V) past 32 when `row_split` allows
/// them (See Note [row-split consumers] in docs/DESIGN.md). More rows per CTA read each (request,
/// kv head)'s K/V fewer times, which pays when the keys fill the SMs (`keys_fill`,
/// [`keys_fill_sms`]). On a batch too short for that, the grid is latency-bound: a 64-row CTA runs
/// a few tiles, each a dependent S -> softmax -> P·V chain of one warpgroup (1.15 us per tile over
/// bf16, 1.7 over fp8 with the widening, docs/perf.md session 27), while 16-row CTAs are four times
/// as many and their repeated K/V reads hit L2. So past 16 rows on a short batch: 16-bit K/V take
/// one m tile, fp8 K/V two (each 16-row CTA would widen the same fp8 tiles again, and the fp8
/// consumers are issue-bound). Measured in session 28 past 32 rows (docs/perf.md, change 96), and
/// in session 54 for 17-32 rows (change 132: the `_w32` CTAs of 18-24-row shapes of 144-316 tiles
/// 2-15% slower than two 16-row CTAs; from 752 tiles even or faster with one tile, but 12% slower
/// at 8192). Without `row_split` (the `_m32` kernels asked for) past 16 rows it is two. At head
/// dim 256 only the row-split layouts hold more than 16 rows, at one CTA per SM, so they are taken
/// only when `keys_fill`; otherwise it stays one.
pub fn m_tiles_for(
    max_rows: u32,
    head_dim: u32,
    kv_elem_bytes: u32,
    row_split: bool,
    keys_fill: bool,
) -> u32 {
    if max_rows <= M_TILE_ROWS || (head_dim > 128 && !(row_split && keys_fill)) {
        1
    } else if !row_split || (keys_fill && max_rows <= 2 * M_TILE_ROWS) {
        2
    } else if keys_fill {
        4
    } else if kv_elem_bytes == 1 {
        2
    } else {
        1
    }
}

/// Whether a batch of `kv_tiles` 64-key tiles (over all requests and kv heads) has the keys to
/// give each of `sm_count` SMs a split of [`MIN_TILES_PER_SPLIT`] tiles. At head dim 256 the
/// row-split layouts (one CTA per SM, K/V read once per 64 rows) pay only then: on a short
/// batch, 16-row CTAs are more CTAs, and their repeated K/V reads hit L2. Measured (docs/perf.md
/// session 25, change 92): 13 requests x 2817 keys, 32 rows per kv head, 153 -> 90 us with the
/// row split; 2 x 1000 keys with one kv head and 96 rows 11.6 -> 19.4, 8 x 97 keys 7.5 -> 10.1.
pub fn keys_fill_sms(kv_tiles: u64, sm_count: u32) -> bool {
    kv_tiles >= MIN_TILES_PER_SPLIT as u64 * sm_count as u64
}

/// Tiles per SM from which head dim 256 takes its 64-row wgmma CTAs (`_d256_g64`, sm_90a, 16-bit
/// K/V) over 16-row ones for more than 32 rows per kv head ([`row_split_fill`]).
pub const D256_G64_FILL_TILES_PER_SM: u32 = 2;

/// The `keys_fill` that [`m_tiles_for`] takes for a batch of `kv_tiles` 64-key tiles whose
/// largest (request, kv head) has `max_rows` packed rows: [`keys_fill_sms`], except at head dim
/// 256 past 32 rows over 16-bit K/V where 64-row CTAs run the wgmma consumer (`g64`): there
/// [`D256_G64_FILL_TILES_PER_SM`] tiles per SM are enough. A 64-row CTA reads each kv head's
/// K/V once where 16-row CTAs read it three or four times, and the `_d256_g64` tile costs less
/// than the `_w64` one the larger threshold was measured with. Measured (docs/perf.md session
/// 41, call d; 48-64 rows, 16-row CTAs -> `_d256_g64`): 516 tiles 32.8 -> 26.6 us, 460 (one
/// 29K-key request among six short ones) 33.9 -> 27.9, 282 24.0 -> 21.0, 256 (48 rows) 18.0 ->
/// 17.2, 250 20.4 -> 20.5, 133 15.6 -> 17.4, 66 12.3 -> 15.9; over e4m3 K/V (`_d256_w64`) 250
/// tiles 17.5 -> 25.3, and at 32 rows (`_d256_w32`) 252 / 313 tiles 15.2 / 17.7 -> 15.0 / 18.5:
/// those keep [`keys_fill_sms`].
pub fn row_split_fill(
    max_rows: u32,
    head_dim: u32,
    kv_elem_bytes: u32,
    g64: bool,
    kv_tiles: u64,
    sm_count: u32,
) -> bool {
    if g64 && head_dim > 128 && max_rows > 2 * M_TILE_ROWS && kv_elem_bytes == 2 {
        kv_tiles >= D256_G64_FILL_TILES_PER_SM as u64 * sm_count as u64
    } else {
        keys_fill_sms(kv_tiles, sm_count)
    }
}

/// 64-key tiles of a batch over all its requests and `kv_heads` kv heads (the count
/// [`keys_fill_sms`] takes).
pub fn batch_kv_tiles(kv_lens: &[u32], kv_heads: u32) -> u64 {
    kv_lens
        .iter()
        .map(|&l| l.div_ceil(KV_TILE_TOKENS) as u64)
        .sum::<u64>()
        * kv_heads as u64
}

/// The most CTAs automatic splitting may plan for `blocks` output blocks (one per request, kv
/// head and row block) on a wave of `wave` CTAs (CUDA-graph plans: also within their grid,
/// [`graph_max_ctas`]).
pub fn max_auto_ctas(blocks: u64, wave: u64) -> u64 {
    (blocks * MAX_WAVE_SPLITS as u64).max(wave * MAX_AUTO_WAVES as u64)
}

/// The decode grid of a CUDA-graph plan for `blocks` output blocks of its capacity: a wave
/// more than the blocks, at least [`MAX_AUTO_WAVES`] waves. Its CTAs past a batch's work list
/// are idle (they leave at once, after the live ones are dispatched), and idle CTAs cost the replay time
/// (session 50: `max_auto_ctas` grids, four CTAs per block, made 512 live blocks 6 us slower);
/// batches in such a graph are planned within it ([`PlanInput::max_ctas`]): balanced plans and
/// last-wave splits add at most a wave of pieces, and a batch of fewer blocks keeps the
/// capacity's headroom for its splits.
pub fn graph_max_ctas(blocks: u64, wave: u64) -> u64 {
    (blocks + wave).max(wave * MAX_AUTO_WAVES as u64)
}

/// The CTA bound of automatic plans of `inp` with `blocks` output blocks on `wave` slots.
fn auto_bound(inp: &PlanInput, blocks: u64, wave: u64) -> u64 {
    max_auto_ctas(blocks, wave).min(inp.max_ctas.unwrap_or(u64::MAX))
}

/// The automatic chunk, in tiles, shared by all requests (module doc): every split count `s`
/// of the longest request gives a chunk `ceil(max_tiles / s)` (at least
/// [`MIN_TILES_PER_SPLIT`] tiles once split, or [`SMALL_MIN_TILES_PER_SPLIT`] on grids that
/// would leave more than half of the SMs idle; at most [`max_auto_ctas`] CTAs and
/// [`PlanInput::max_ctas`]); the split model
/// estimates each. The fastest plan of one wave is taken unless one of more waves is faster
/// by [`MULTI_WAVE_MARGIN`]; within each group, ties ([`SPLIT_TIE_SLACK`]) go to the fullest
/// last wave.
fn auto_chunk(
    inp: &PlanInput,
    max_tiles: u32,
    block_rows: u32,
    blocks_of: &dyn Fn(usize) -> u64,
) -> AutoChunk {
    let shape = CombineShape {
        rows: block_rows,
        head_dim: inp.head_dim,
        sm_count: inp.sm_count,
    };
    let slots = Slots {
        sm_count: inp.sm_count,
        ctas_per_sm: inp.ctas_per_sm,
    };
    let wave = (inp.sm_count * inp.ctas_per_sm).max(1) as u64;
    let n = inp.kv_lens.len();
    let all_blocks: u64 = (0..n).map(blocks_of).sum();
    let bound = auto_bound(inp, all_blocks, wave);
    // (estimate, wave fill, chunk, CTAs, some block split)
    type Candidate = (f64, f64, u32, u64, bool);
    let mut cands: Vec<Candidate> = Vec::new();
    let mut last_chunk = 0;
    // CTAs of the last candidate of at least MIN_TILES_PER_SPLIT tiles.
    let mut regular_ctas = 0u64;
    for s in 1..=MAX_SPLITS.min(max_tiles) {
        let chunk = max_tiles.div_ceil(s);
        if chunk == last_chunk {
            continue;
        }
        if s > 1 && chunk < SMALL_MIN_TILES_PER_SPLIT {
            break;
        }
        last_chunk = chunk;
        let chunk_tokens = chunk.saturating_mul(KV_TILE_TOKENS);
        let mut grid = GridShape::default();
        let (mut ctas, mut split_blocks, mut max_splits) = (0u64, 0u64, 0u32);
        // The split count shared by every block, if any (cluster merge needs one).
        let mut common: Option<u32> = None;
        let mut uniform = true;
        for r in 0..n {
            let blocks = blocks_of(r);
            let kv_len = inp.kv_lens[r];
            let splits = kv_len.div_ceil(chunk_tokens).max(1);
            let last = (kv_len - (splits - 1) * chunk_tokens) as f64;
            grid.add(chunk as f64, (splits as u64 - 1) * blocks);
            grid.add(last / KV_TILE_TOKENS as f64, blocks);
            ctas += splits as u64 * blocks;
            if splits > 1 && blocks > 0 {
                split_blocks += blocks;
                max_splits = max_splits.max(splits);
            }
            if blocks > 0 {
                uniform &= *common.get_or_insert(splits) == splits;
            }
        }
        if chunk >= MIN_TILES_PER_SPLIT {
            regular_ctas = ctas;
        }
        let small_ok = regular_ctas > 0
            && ctas <= inp.sm_count as u64
            && 2 * regular_ctas <= inp.sm_count as u64;
        if s > 1 && (ctas > bound || (chunk < MIN_TILES_PER_SPLIT && !small_ok)) {
            break;
        }
        let clustered = common.is_some_and(|k| {
            uniform
                && inp
                    .cluster_capacity
                    .get(k as usize)
                    .is_some_and(|&c| c as u64 >= split_blocks)
        });
        let merge = merge_of(split_blocks, max_splits, clustered, shape);
        let fill = ctas as f64 / (ctas.div_ceil(wave) * wave) as f64;
        let estimate = estimate_tiles(grid, slots, merge);
        cands.push((estimate, fill, chunk, ctas, split_blocks > 0));
    }
    // The fastest of a group; estimates within SPLIT_TIE_SLACK tie, and the fullest last wave
    // wins among them (then the larger chunk, which comes first).
    let pick = |one_wave: bool| -> Option<Candidate> {
        let group = || cands.iter().filter(|c| (c.3 <= wave) == one_wave);
        let best = group().map(|c| c.0).fold(f64::INFINITY, f64::min);
        group()
            .filter(|c| c.0 <= best * (1.0 + SPLIT_TIE_SLACK))
            .fold(None::<&Candidate>, |acc, c| match acc {
                Some(a) if a.1 >= c.1 => Some(a),
                _ => Some(c),
            })
            .copied()
    };
    let c = match (pick(true), pick(false)) {
        (Some(one), Some(more)) if more.0 * (1.0 + MULTI_WAVE_MARGIN) < one.0 => more,
        (Some(c), _) | (None, Some(c)) => c,
        // The unsplit chunk (s = 1) passes every bound above.
        (None, None) => unreachable!("the unsplit chunk is always a candidate"),
    };
    AutoChunk {
        chunk: c.2,
        estimate_tiles: c.0,
        ctas: c.3,
        split: c.4,
    }
}

/// The automatic chunk ([`auto_chunk`]) and the uniform plan it makes, as the split model
/// priced it.
#[derive(Clone, Copy)]
struct AutoChunk {
    /// Tiles per split, the same for every request.
    chunk: u32,
    /// The split model's estimate of the uniform plan (tile-times).
    estimate_tiles: f64,
    /// CTAs of the uniform plan.
    ctas: u64,
    /// Whether some output block of the uniform plan is split.
    split: bool,
}

/// The split model's estimate of `plan` in tile-times (See Note [split heuristic]), merged in
/// clusters when `clustered`, else by the combine kernel. The planner prices candidate chunks
/// the same way before it builds the work list; this prices the work list as built (benchmarks
/// print it next to the measured time).
pub fn estimate_plan_tiles(
    plan: &Plan,
    head_dim: u32,
    sm_count: u32,
    ctas_per_sm: u32,
    clustered: bool,
) -> f64 {
    // A balanced plan is never clustered (its pieces run at different times).
    let max_splits = plan.merge.iter().map(|m| m.num_splits).max().unwrap_or(0);
    let shape = CombineShape {
        rows: plan.max_block_rows,
        head_dim,
        sm_count,
    };
    let merge = merge_of(
        plan.merge.len() as u64,
        max_splits,
        clustered && !plan.balanced,
        shape,
    );
    if plan.balanced {
        let wave = (sm_count * ctas_per_sm).max(1) as usize;
        return dispatch_end_tiles(&plan.work, wave) + merge_tiles(merge, wave as f64);
    }
    let mut grid = GridShape::default();
    for w in &plan.work {
        grid.add((w.kv_end - w.kv_start) as f64 / KV_TILE_TOKENS as f64, 1);
    }
    let slots = Slots {
        sm_count,
        ctas_per_sm,
    };
    estimate_tiles(grid, slots, merge)
}

/// How `split_blocks` split output blocks merge: none, in clusters when `clustered`, else by
/// the combine kernel (its most-split block in `max_splits`, over blocks of `rows` rows at
/// `head_dim` on `sm_count` SMs: the combine's rounds of loads).
fn merge_of(split_blocks: u64, max_splits: u32, clustered: bool, shape: CombineShape) -> Merge {
    match split_blocks {
        0 => Merge::None,
        _ if clustered => Merge::Cluster,
        blocks => {
            let parts = combine_parts(blocks as u32, shape.sm_count, shape.head_dim, None);
            let units = shape.rows * (shape.head_dim / parts) / 4;
            Merge::Combine {
                blocks,
                rounds: combine_rounds(units, max_splits),
            }
        }
    }
}

/// What the combine's cost depends on besides the split counts (see [`merge_of`]).
#[derive(Clone, Copy)]
struct CombineShape {
    rows: u32,
    head_dim: u32,
    sm_count: u32,
}

/// The paired fp8 variants (`_m8p`, two CTAs per SM; See Note [paired fp8 tiles] in
/// docs/DESIGN.md) run where a batch's output blocks fill at most this share of the unpaired
/// variant's wave (`_m8`, four CTAs per SM). Measured on the H200 (docs/perf.md, change 108),
/// paired against unpaired: 0.94-1.00x on 12 shapes of 0.02-0.73 of that wave (one long
/// request, ragged and small batches, b48 x 4K at 0.73: 0.97x), 1.01x at 0.97 (b64 x 4K),
/// 1.05x at 1.94 and 1.15x at 1.52 (unsplit blocks that fill four CTAs per SM lose at two).
/// The split model's estimates did not separate them (b40 x 6000, 0.61: estimated 3% slower
/// paired, measured 3% faster).
pub const PAIRED_MAX_WAVE_FILL: f64 = 0.8;

/// Whether a batch of `blocks` output blocks (request x kv head x row block) runs the paired
/// fp8 variant, on `sm_count` SMs that hold `ctas_per_sm.0` CTAs of the unpaired variant and
/// `ctas_per_sm.1` of the paired one: where the blocks fill at most [`PAIRED_MAX_WAVE_FILL`] of
/// the unpaired wave, and only if the pairing keeps at least half the unpaired occupancy (its
/// design point, 2 of 4 on the H200; a GPU with less shared memory per SM could hold one paired
/// CTA against three unpaired ones, a trade nobody measured).
pub fn prefer_paired(blocks: u64, sm_count: u32, ctas_per_sm: (u32, u32)) -> bool {
    let (unpaired, paired) = ctas_per_sm;
    let wave = sm_count as u64 * unpaired as u64;
    2 * paired >= unpaired && blocks as f64 <= PAIRED_MAX_WAVE_FILL * wave as f64
}

/// When the last of `work`'s CTAs ends, in tile-times, if each costs its tiles plus
/// [`CTA_OVERHEAD_TILES`] and the hardware hands them out in order, each to the first of
/// `wave` slots that frees (how a balanced plan is priced once built).
///
/// The slots' free times are a binary min-heap in an array (O(work log wave); which of several
/// equally free slots takes a CTA does not change any time): each CTA replaces the root's time
/// by its own end and sifts it down, so a batch of thousands of CTAs is priced in
/// microseconds: the planner runs on the host before every decode call.
pub fn dispatch_end_tiles(work: &[DecodeWork], wave: usize) -> f64 {
    // All zeros: already a heap. Times are finite and non-negative, so `<` orders them.
    let mut free = vec![0f64; wave.max(1)];
    let n = free.len();
    let mut end = 0f64;
    for w in work {
        let done = free[0] + w.tiles() as f64 + CTA_OVERHEAD_TILES;
        end = end.max(done);
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let c = if left + 1 < n && free[left + 1] < free[left] {
                left + 1
            } else {
                left
            };
            if free[c] >= done {
                break;
            }
            free[i] = free[c];
            i = c;
        }
        free[i] = done;
    }
    end
}

/// `items` reordered by `key`, largest first, ties kept in their order: the stable sort
/// `sort_by_key(|x| Reverse(key(x)))`, done as an unstable sort of packed `(!key, index)`
/// words (unique, so the order is the stable one) and one gather. The planner's work lists
/// hold thousands of 40-byte items: moving 8-byte keys instead took the sorts from a third of
/// its host time to a few percent (docs/perf.md, change 145).
fn longest_first<T: Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> u32) {
    debug_assert!(items.len() <= u32::MAX as usize, "the index takes 32 bits");
    let mut keys: Vec<u64> = items
        .iter()
        .enumerate()
        .map(|(i, x)| ((!key(x) as u64) << 32) | i as u64)
        .collect();
    keys.sort_unstable();
    let sorted: Vec<T> = keys.iter().map(|&k| items[k as u32 as usize]).collect();
    *items = sorted;
}

/// Plan a batch. Inputs are assumed validated (equal lengths, heads divisible).
pub fn plan(inp: &PlanInput) -> Plan {
    let group = inp.q_heads / inp.kv_heads;
    let max_rows = inp.q_lens.iter().map(|&q| q * group).max().unwrap_or(0);
    let m_tiles = inp.m_tiles.unwrap_or_else(|| {
        // (No arch here: the `_d256_g64` threshold of `row_split_fill` is the host's, which
        // passes its choice in `m_tiles`.)
        let fill = keys_fill_sms(batch_kv_tiles(inp.kv_lens, inp.kv_heads), inp.sm_count);
        m_tiles_for(max_rows, inp.head_dim, inp.kv_elem_bytes, true, fill)
    });
    let rows_per_block = M_TILE_ROWS * m_tiles;
    let max_block_rows = max_rows.min(rows_per_block);
    let row_blocks = |r: usize| (inp.q_lens[r] * group).div_ceil(rows_per_block);
    let tiles = |r: usize| inp.kv_lens[r].div_ceil(KV_TILE_TOKENS);
    let n = inp.kv_lens.len();
    let max_tiles = (0..n).map(tiles).max().unwrap_or(0).max(1);
    // The automatic chunk (tiles per split), the same for every request, computed once.
    let auto = (inp.splits == Splits::Auto).then(|| {
        auto_chunk(inp, max_tiles, max_block_rows, &|r| {
            inp.kv_heads as u64 * row_blocks(r) as u64
        })
    });
    // Chunk size in tiles for request r.
    let chunk_of = |r: usize| -> u32 {
        match (inp.splits, auto) {
            (Splits::Fixed(k), _) => tiles(r).div_ceil(k.clamp(1, MAX_SPLITS)).max(1),
            (Splits::Auto, Some(a)) => a.chunk,
            (Splits::Auto, None) => unreachable!("auto_chunk runs for Splits::Auto"),
        }
    };
    if let (Some(a), None) = (auto, inp.tail) {
        if inp.balance == Balance::On
            || (inp.balance == Balance::Auto && max_rows <= rows_per_block)
        {
            // Built only where it may win (building and pricing it is most of the planner's
            // host time), from the uniform plan's CTAs and whether it splits as the auto chunk
            // counted them; taken where its estimate is within BALANCED_MAX_ESTIMATE_RATIO of
            // the uniform plan's.
            let wave = (inp.sm_count * inp.ctas_per_sm) as usize;
            let on = inp.balance == Balance::On;
            if on || balanced_may_win(a.ctas as usize, a.split, wave, inp.ctas_per_sm) {
                if let Some((p, estimate)) = balanced(inp, m_tiles) {
                    if on || estimate <= a.estimate_tiles * BALANCED_MAX_ESTIMATE_RATIO {
                        return p;
                    }
                }
            }
        }
    }
    let mut work = Vec::new();
    let mut merge = Vec::new();
    let mut slot = 0u32;
    for r in 0..n {
        let chunk_tokens = chunk_of(r).saturating_mul(KV_TILE_TOKENS);
        let kv_len = inp.kv_lens[r];
        let splits = if kv_len == 0 {
            1
        } else {
            kv_len.div_ceil(chunk_tokens)
        };
        let item = |kv_head, row_start, kv_start, kv_end, partial_slot| {
            work_item(inp, r, kv_head, row_start, (kv_start, kv_end), partial_slot)
        };
        for kvh in 0..inp.kv_heads {
            for rb in 0..row_blocks(r) {
                let row_start = rb * rows_per_block;
                if splits == 1 {
                    work.push(item(kvh, row_start, 0, kv_len, FINAL_OUTPUT));
                } else {
                    // The head (all tiles without a tail split) in `splits` chunks, then the
                    // tail chunks; slots in key order.
                    let tiles = kv_len.div_ceil(KV_TILE_TOKENS);
                    let (head, tail_chunk, tail_chunks) = match tail_shape(tiles, splits, inp.tail)
                    {
                        // The combine merges at most MAX_SPLITS slots per block.
                        (_, _, n) if splits + n > MAX_SPLITS => (tiles, 0, 0),
                        shape => shape,
                    };
                    let (head_splits, head_chunk_tokens) = if tail_chunks == 0 {
                        (splits, chunk_tokens)
                    } else {
                        let c = head.div_ceil(splits);
                        (head.div_ceil(c), c * KV_TILE_TOKENS)
                    };
                    let head_end = (head * KV_TILE_TOKENS).min(kv_len);
                    merge.push(MergeWork {
                        request: r as u32,
                        kv_head: kvh,
                        row_start,
                        first_slot: slot,
                        num_splits: head_splits + tail_chunks,
                        _pad: 0,
                    });
                    for s in 0..head_splits {
                        let kv_start = s * head_chunk_tokens;
                        let kv_end = (kv_start + head_chunk_tokens).min(head_end);
                        work.push(item(kvh, row_start, kv_start, kv_end, slot));
                        slot += 1;
                    }
                    for c in 0..tail_chunks {
                        let kv_start = head_end + c * tail_chunk * KV_TILE_TOKENS;
                        let kv_end = (kv_start + tail_chunk * KV_TILE_TOKENS).min(kv_len);
                        work.push(item(kvh, row_start, kv_start, kv_end, slot));
                        slot += 1;
                    }
                }
            }
        }
    }
    // Longest ranges first, so the last wave holds the short ones (stable: deterministic).
    longest_first(&mut work, |w| w.kv_end - w.kv_start);
    let uniform = Plan {
        m_tiles,
        work,
        merge,
        num_slots: slot,
        balanced: false,
        max_block_rows,
    };
    if inp.splits == Splits::Auto && inp.tail.is_none() && inp.ctas_per_sm == 1 {
        if let Some(p) = split_last_wave(&uniform, inp)
            .filter(|p| p.work.len() as u64 <= inp.max_ctas.unwrap_or(u64::MAX))
        {
            return p;
        }
    }
    uniform
}

/// A last wave of at most this share of the SMs is cut (module doc, "Last-wave split").
pub const LAST_WAVE_SPLIT_MAX_FILL: f64 = 0.25;

/// The last-wave split of `uniform` (module doc, "Last-wave split"): an unsplit plan of one
/// CTA per SM whose last wave holds at most [`LAST_WAVE_SPLIT_MAX_FILL`] of the SMs, with its
/// last-wave blocks (the shortest: the list is longest first) each cut into `min(sm_count /
/// r, MAX_WAVE_SPLITS, tiles / MIN_TILES_PER_SPLIT)` near-equal pieces (`r` blocks in the last
/// wave), appended in their place; `None` where nothing is cut or the tile-times it saves on
/// the longest last-wave block do not exceed the combine's price plus one CTA start.
fn split_last_wave(uniform: &Plan, inp: &PlanInput) -> Option<Plan> {
    let wave = inp.sm_count as usize;
    let n = uniform.work.len();
    if !uniform.merge.is_empty() || wave == 0 || n <= wave {
        return None;
    }
    let r = n - (n - 1) / wave * wave;
    if r as f64 > LAST_WAVE_SPLIT_MAX_FILL * wave as f64 {
        return None;
    }
    let cap = MAX_WAVE_SPLITS.min((wave / r) as u32);
    let (head, last) = uniform.work.split_at(n - r);
    // Pieces per last-wave block (1: kept whole) and the chunk, in tiles.
    let cuts: Vec<(u32, u32)> = last
        .iter()
        .map(|w| {
            let t = w.tiles();
            let s = cap.min(t / MIN_TILES_PER_SPLIT).max(1);
            let chunk = t.div_ceil(s).max(1);
            (t.div_ceil(chunk).max(1), chunk)
        })
        .collect();
    let split_blocks = cuts.iter().filter(|c| c.0 > 1).count() as u64;
    if split_blocks == 0 {
        return None;
    }
    let old_tail = last.iter().map(DecodeWork::tiles).max().unwrap_or(0) as f64;
    let new_tail = last
        .iter()
        .zip(&cuts)
        .map(|(w, c)| if c.0 > 1 { c.1 } else { w.tiles() })
        .max()
        .unwrap_or(0) as f64;
    let max_splits = cuts.iter().map(|c| c.0).max().unwrap_or(1);
    let merge_price = merge_tiles(
        merge_of(
            split_blocks,
            max_splits,
            false,
            CombineShape {
                rows: uniform.max_block_rows,
                head_dim: inp.head_dim,
                sm_count: inp.sm_count,
            },
        ),
        wave as f64,
    );
    if old_tail - new_tail <= merge_price + CTA_OVERHEAD_TILES {
        return None;
    }
    let mut work = head.to_vec();
    let mut pieces = Vec::new();
    let mut merge = Vec::new();
    let mut slot = 0u32;
    for (w, &(count, chunk)) in last.iter().zip(&cuts) {
        if count == 1 {
            pieces.push(*w);
            continue;
        }
        merge.push(MergeWork {
            request: w.request,
            kv_head: w.kv_head,
            row_start: w.row_start,
            first_slot: slot,
            num_splits: count,
            _pad: 0,
        });
        for k in 0..count {
            let kv_start = w.kv_start + k * chunk * KV_TILE_TOKENS;
            let kv_end = (kv_start + chunk * KV_TILE_TOKENS).min(w.kv_end);
            pieces.push(DecodeWork {
                kv_start,
                kv_end,
                partial_slot: slot,
                ..*w
            });
            slot += 1;
        }
    }
    // Longest first among the last wave's CTAs too (stable: deterministic).
    longest_first(&mut pieces, |w| w.kv_end - w.kv_start);
    work.extend(pieces);
    Some(Plan {
        m_tiles: uniform.m_tiles,
        work,
        merge,
        num_slots: slot,
        balanced: false,
        max_block_rows: uniform.max_block_rows,
    })
}

/// Whether automatic splitting may take the balanced plan over a uniform plan of `n` CTAs,
/// `split` or not (module doc, "Balanced plans"): only where the uniform plan runs more than
/// one wave of `wave` CTAs, [`BALANCED_MIN_CTAS_PER_SM`] to [`BALANCED_MAX_CTAS_PER_SM`] per
/// SM, and, when it is unsplit, its last wave is under [`BALANCED_MAX_LAST_WAVE_FILL`] full.
/// [`plan`] checks this before it builds either plan, and then takes the balanced one where
/// its estimate is within [`BALANCED_MAX_ESTIMATE_RATIO`] of the uniform one.
fn balanced_may_win(n: usize, split: bool, wave: usize, ctas_per_sm: u32) -> bool {
    if wave == 0
        || n <= wave
        || !(BALANCED_MIN_CTAS_PER_SM..=BALANCED_MAX_CTAS_PER_SM).contains(&ctas_per_sm)
    {
        return false;
    }
    if !split {
        let last = n - (n - 1) / wave * wave;
        if last as f64 >= BALANCED_MAX_LAST_WAVE_FILL * wave as f64 {
            return false;
        }
    }
    true
}

/// The work item of request `r`'s block (`kv_head`, `row_start`) over keys `kv.0..kv.1`.
fn work_item(
    inp: &PlanInput,
    r: usize,
    kv_head: u32,
    row_start: u32,
    kv: (u32, u32),
    partial_slot: u32,
) -> DecodeWork {
    DecodeWork {
        request: r as u32,
        kv_head,
        row_start,
        kv_start: kv.0,
        kv_end: kv.1,
        partial_slot,
        kv_len: inp.kv_lens[r],
        q_len: inp.q_lens[r],
        first_token: inp.q_indptr[r],
        first_page_entry: inp.page_indptr[r],
    }
}

/// One output block of a balanced plan: (request, kv head, first packed row, tiles).
type BlockTiles = (u32, u32, u32, u32);

/// The balanced plan of `inp` at `m_tiles` (module doc, "Balanced plans") and the split
/// model's estimate of it in tile-times; `None` where the batch is too small to balance
/// ([`BALANCED_MIN_SLOT_TILES`]), a block would need more than [`MAX_SPLITS`] pieces, or the
/// grid would exceed [`max_auto_ctas`] or [`PlanInput::max_ctas`].
fn balanced(inp: &PlanInput, m_tiles: u32) -> Option<(Plan, f64)> {
    let group = inp.q_heads / inp.kv_heads;
    let rows_per_block = M_TILE_ROWS * m_tiles;
    let max_rows = inp.q_lens.iter().map(|&q| q * group).max().unwrap_or(0);
    let max_block_rows = max_rows.min(rows_per_block);
    let slots = (inp.sm_count * inp.ctas_per_sm) as u64;
    let n = inp.kv_lens.len();
    let mut blocks: Vec<BlockTiles> = Vec::new();
    let mut empty: Vec<BlockTiles> = Vec::new();
    for r in 0..n {
        let tiles = inp.kv_lens[r].div_ceil(KV_TILE_TOKENS);
        for kvh in 0..inp.kv_heads {
            for rb in 0..(inp.q_lens[r] * group).div_ceil(rows_per_block) {
                let b = (r as u32, kvh, rb * rows_per_block, tiles);
                if tiles == 0 {
                    empty.push(b);
                } else {
                    blocks.push(b);
                }
            }
        }
    }
    // Longest first on the line (stable: deterministic).
    longest_first(&mut blocks, |b| b.3);
    let total: u64 = blocks.iter().map(|b| b.3 as u64).sum();
    if slots == 0 || total < slots * BALANCED_MIN_SLOT_TILES as u64 {
        return None;
    }
    // The slots are filled one after another on a line of cost (tiles plus
    // CTA_OVERHEAD_TILES per piece): slot k ends as near as the minimum piece allows to
    // (k + 1) T, so that rounding never piles up on the last slots. T is the average cost;
    // the cuts inside blocks add pieces, so each pass takes its T from the cost of the
    // previous one (the cheapest of a few passes is kept). A piece is never under
    // MIN_TILES_PER_SPLIT tiles unless its block is.
    let oh = CTA_OVERHEAD_TILES;
    let min = MIN_TILES_PER_SPLIT;
    // Pieces: (block, first tile, end tile, slot, start in the slot in tile-times).
    type Piece = (usize, u32, u32, usize, f64);
    let fill = |t: f64| -> (Vec<Piece>, f64, f64) {
        let mut pieces: Vec<Piece> = Vec::with_capacity(blocks.len() + slots as usize);
        let (mut seg, mut at, mut pos, mut slot_cost) = (0usize, 0f64, 0f64, 0f64);
        for (i, blk) in blocks.iter().enumerate() {
            let n = blk.3;
            let mut t0 = 0u32;
            while t0 < n {
                let r = n - t0;
                let last = seg as u64 + 1 >= slots;
                // Tiles this slot still takes after the piece's own start and end (an empty
                // slot behind the line takes a whole share).
                let mut space = (seg + 1) as f64 * t - pos - oh;
                if at == 0.0 {
                    space = space.max(t - oh).max(min as f64);
                }
                let take = if last || r as f64 <= space + 0.5 {
                    r
                } else if space < min as f64 {
                    // Too full for another piece: the slot closes.
                    0
                } else {
                    let fit = space.floor() as u32;
                    if r - fit >= min {
                        fit
                    } else if r as f64 - space <= min as f64 / 2.0 || r < 2 * min {
                        r
                    } else {
                        r - min
                    }
                };
                if take > 0 {
                    pieces.push((i, t0, t0 + take, seg, at));
                    at += take as f64 + oh;
                    pos += take as f64 + oh;
                    t0 += take;
                }
                if !last && (take < r || pos >= (seg + 1) as f64 * t - 0.5) {
                    slot_cost = slot_cost.max(at);
                    seg += 1;
                    at = 0.0;
                }
            }
        }
        (pieces, slot_cost.max(at), pos)
    };
    let mut best = fill((total as f64 + blocks.len() as f64 * oh) / slots as f64);
    let mut cost = best.2;
    for _ in 0..BALANCED_PASSES {
        let next = fill(cost / slots as f64);
        cost = next.2;
        if next.1 < best.1 {
            best = next;
        }
    }
    let (pieces, slot_cost, _) = best;
    // Slots per block, in key order (pieces of a block come in line order).
    let mut count = vec![0u32; blocks.len()];
    for p in &pieces {
        count[p.0] += 1;
    }
    if count.iter().any(|&c| c > MAX_SPLITS) {
        return None;
    }
    let all_blocks = (blocks.len() + empty.len()) as u64;
    if (pieces.len() + empty.len()) as u64 > auto_bound(inp, all_blocks, slots) {
        return None;
    }
    let mut first_slot = vec![FINAL_OUTPUT; blocks.len()];
    let mut merge = Vec::new();
    let mut num_slots = 0u32;
    for (k, (b, &c)) in blocks.iter().zip(&count).enumerate() {
        if c > 1 {
            first_slot[k] = num_slots;
            merge.push(MergeWork {
                request: b.0,
                kv_head: b.1,
                row_start: b.2,
                first_slot: num_slots,
                num_splits: c,
                _pad: 0,
            });
            num_slots += c;
        }
    }
    let item = |b: &BlockTiles, kv_start: u32, kv_end: u32, partial_slot: u32| {
        work_item(
            inp,
            b.0 as usize,
            b.1,
            b.2,
            (kv_start, kv_end),
            partial_slot,
        )
    };
    // Dispatch order: by start within the segment, then segment. The hardware hands the next
    // CTA to the first slot that frees, which is then the segment's slot when the slots
    // stream at one rate.
    // (A slot's starts are non-negative and strictly increase, so the keys are unique and
    // the bits of a start order as the start does.)
    let mut keys: Vec<u128> = pieces
        .iter()
        .enumerate()
        .map(|(k, p)| ((p.4.to_bits() as u128) << 64) | ((p.3 as u128) << 32) | k as u128)
        .collect();
    keys.sort_unstable();
    let order = keys.iter().map(|&k| k as u32 as usize);
    let mut next = vec![0u32; blocks.len()];
    let mut slot_of = vec![0u32; pieces.len()];
    for (k, p) in pieces.iter().enumerate() {
        slot_of[k] = if count[p.0] > 1 {
            first_slot[p.0] + next[p.0]
        } else {
            FINAL_OUTPUT
        };
        next[p.0] += 1;
    }
    let mut work: Vec<DecodeWork> = order
        .map(|k| {
            let (b, t0, t1, _, _) = pieces[k];
            let blk = &blocks[b];
            let kv_len = inp.kv_lens[blk.0 as usize];
            item(
                blk,
                t0 * KV_TILE_TOKENS,
                (t1 * KV_TILE_TOKENS).min(kv_len),
                slot_of[k],
            )
        })
        .collect();
    work.extend(empty.iter().map(|b| item(b, 0, 0, FINAL_OUTPUT)));
    // The dispatch as the hardware runs it (each CTA to the first slot that frees) can differ
    // from the line's slots: a plan whose last slot would end more than two minimum pieces and
    // two CTA starts past the average is not balanced (a property test checks this bound).
    let average = (total as f64 + work.len() as f64 * oh) / slots as f64;
    if dispatch_end_tiles(&work, slots as usize) > average + 2.0 * (min as f64 + oh) {
        return None;
    }
    let max_splits = count.iter().copied().max().unwrap_or(0);
    let estimate = slot_cost
        + merge_tiles(
            merge_of(
                merge.len() as u64,
                max_splits,
                false,
                CombineShape {
                    rows: max_block_rows,
                    head_dim: inp.head_dim,
                    sm_count: inp.sm_count,
                },
            ),
            slots as f64,
        );
    Some((
        Plan {
            m_tiles,
            work,
            merge,
            num_slots,
            balanced: true,
            max_block_rows,
        },
        estimate,
    ))
}

/// Split-KV in clusters (See Note [cluster merge] in docs/DESIGN.md): when every output block
/// of `plan` is split into the same number `n` of chunks, `2 <= n <= max_cluster`, the work list
/// reordered so that CTAs `c n .. (c + 1) n` are the splits of merge block `c` in key (slot)
/// order, and `n`; the decode grid then runs in clusters of `n` CTAs that merge their partials
/// through distributed shared memory, and no combine runs. `None` when some block is unsplit,
/// the blocks' split counts differ, a count exceeds `max_cluster`, or the plan is balanced
/// (its pieces run at different times).
pub fn cluster_order(plan: &Plan, max_cluster: u32) -> Option<(u32, Vec<DecodeWork>)> {
    if plan.balanced {
        return None;
    }
    let n = plan.merge.first()?.num_splits;
    if n < 2 || n > max_cluster || plan.merge.iter().any(|m| m.num_splits != n) {
        return None;
    }
    if plan.work.len() != plan.merge.len() * n as usize {
        return None;
    }
    let mut by_slot: Vec<Option<DecodeWork>> = vec![None; plan.num_slots as usize];
    for w in &plan.work {
        let slot = by_slot.get_mut(w.partial_slot as usize)?;
        if slot.replace(*w).is_some() {
            return None;
        }
    }
    let mut work = Vec::with_capacity(plan.work.len());
    for m in &plan.merge {
        for s in m.first_slot..m.first_slot + n {
            work.push(by_slot.get(s as usize).copied().flatten()?);
        }
    }
    Some((n, work))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_first_is_the_stable_sort() {
        // Few distinct keys (many ties) and the extremes of u32.
        let mut seed = 145u64;
        for n in [0usize, 1, 2, 17, 1000] {
            let items: Vec<(u32, usize)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let k = [0, 1, 7, 64, u32::MAX][(seed >> 40) as usize % 5];
                    (k, i)
                })
                .collect();
            let mut ours = items.clone();
            longest_first(&mut ours, |x| x.0);
            let mut stable = items;
            stable.sort_by_key(|x| std::cmp::Reverse(x.0));
            assert_eq!(ours, stable, "n = {n}");
        }
    }

    #[test]
    fn cluster_order_groups_each_blocks_splits_in_key_order() {
        // W2: 64 blocks in 4 splits.
        let p = plan(&inp(&[1; 8], &[8192; 8], 32, 8));
        let (n, work) = cluster_order(&p, 8).expect("uniform splits");
        assert_eq!((n as usize) * p.merge.len(), work.len());
        assert_eq!(n, p.merge[0].num_splits);
        for (m, c) in p.merge.iter().zip(work.chunks(n as usize)) {
            for (k, w) in c.iter().enumerate() {
                assert_eq!(
                    (w.request, w.kv_head, w.row_start),
                    (m.request, m.kv_head, m.row_start)
                );
                assert_eq!(w.partial_slot, m.first_slot + k as u32);
            }
            assert_eq!(c[0].kv_start, 0);
            assert!(c.windows(2).all(|x| x[0].kv_end == x[1].kv_start));
        }
        let mut a = p.work.clone();
        let mut b = work.clone();
        a.sort_by_key(|w| w.partial_slot);
        b.sort_by_key(|w| w.partial_slot);
        assert_eq!(a, b, "a permutation of the work list");
        // Too many splits for a cluster (W1: 32), unsplit blocks (W3), mixed counts (ragged).
        assert!(cluster_order(&plan(&inp(&[1], &[32768], 32, 8)), 8).is_none());
        assert!(cluster_order(&plan(&inp(&[1; 64], &[4096; 64], 32, 8)), 8).is_none());
        assert!(
            cluster_order(&plan(&inp(&[1; 4], &[45000, 4800, 3100, 1200], 32, 8)), 8).is_none()
        );
        assert!(cluster_order(&p, n - 1).is_none());
    }

    /// Indptrs are only copied into the work items: any monotone array of the right length does.
    const PTR: [u32; 257] = {
        let mut a = [0u32; 257];
        let mut i = 0;
        while i < 257 {
            a[i] = i as u32;
            i += 1;
        }
        a
    };

    fn inp<'a>(q: &'a [u32], kv: &'a [u32], qh: u32, kvh: u32) -> PlanInput<'a> {
        let ptr = &PTR[..=q.len()];
        PlanInput {
            q_indptr: ptr,
            page_indptr: ptr,
            q_lens: q,
            kv_lens: kv,
            q_heads: qh,
            kv_heads: kvh,
            head_dim: 128,
            kv_elem_bytes: 2,
            sm_count: 132,
            ctas_per_sm: 2,
            splits: Splits::Auto,
            m_tiles: None,
            tail: None,
            balance: Balance::Auto,
            cluster_capacity: &[],
            max_ctas: None,
        }
    }

    /// A (request, kv head) of more packed rows than a CTA holds gets no automatic balanced
    /// plan: its row blocks take the same key ranges, a split count apart in the work list (one
    /// HBM read of each range, the others from L2). `Balance::On` still builds one.
    #[test]
    fn several_row_blocks_share_ranges() {
        // 24 x 6000 keys, 16 new tokens x group 5 = 80 rows: two 64-row blocks per kv head.
        let q = [16u32; 24];
        let kv = [6000u32; 24];
        let mut i = inp(&q, &kv, 10, 2);
        i.m_tiles = Some(4);
        let p = plan(&i);
        assert!(!p.balanced);
        for r in 0..24u32 {
            for h in 0..2 {
                let ranges = |row_start| {
                    let mut v: Vec<(usize, u32, u32)> = (p.work.iter().enumerate())
                        .filter(|(_, w)| (w.request, w.kv_head, w.row_start) == (r, h, row_start))
                        .map(|(k, w)| (k, w.kv_start, w.kv_end))
                        .collect();
                    v.sort_by_key(|x| x.1);
                    v
                };
                let (a, b) = (ranges(0), ranges(64));
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!((x.1, x.2), (y.1, y.2), "same keys");
                    assert!(x.0.abs_diff(y.0) <= 8, "near in the work list");
                }
            }
        }
        i.balance = Balance::On;
        assert!(plan(&i).balanced);
        // One row block per kv head (group 4: 64 rows) still balances automatically: the same
        // 96 blocks of 64 rows as above.
        let (q48, kv48) = ([16u32; 48], [6000u32; 48]);
        let mut j = inp(&q48, &kv48, 8, 2);
        j.m_tiles = Some(4);
        assert!(plan(&j).balanced);
    }

    /// Requests at the longest KV length the host admits (`MAX_KV_LEN`): every way of cutting
    /// them keeps the token arithmetic in range, each split non-empty and the splits of a
    /// block contiguous from 0 to its length.
    #[test]
    fn longest_kv_len_plans_without_overflow() {
        use ferroflash_contract::params::MAX_KV_LEN;
        let (q, kv) = ([1u32, 16, 1], [MAX_KV_LEN, MAX_KV_LEN - 1, 97]);
        for splits in [Splits::Auto, Splits::Fixed(3), Splits::Fixed(MAX_SPLITS)] {
            for tail in [
                None,
                Some(TailSplit {
                    percent: 50,
                    chunk_tiles: 4,
                }),
            ] {
                for balance in [Balance::Auto, Balance::On] {
                    let mut i = inp(&q, &kv, 8, 1);
                    (i.splits, i.tail, i.balance) = (splits, tail, balance);
                    let p = plan(&i);
                    let mut by_block: std::collections::BTreeMap<_, Vec<(u32, u32)>> =
                        Default::default();
                    for w in &p.work {
                        assert!(w.kv_start < w.kv_end, "{splits:?} {tail:?} {w:?}");
                        by_block
                            .entry((w.request, w.kv_head, w.row_start))
                            .or_default()
                            .push((w.kv_start, w.kv_end));
                    }
                    for ((r, _, _), mut cuts) in by_block {
                        cuts.sort();
                        assert_eq!(cuts[0].0, 0);
                        assert!(cuts.windows(2).all(|c| c[0].1 == c[1].0));
                        assert_eq!(cuts.last().unwrap().1, kv[r as usize]);
                    }
                }
            }
        }
    }

    /// 100 requests x 732 keys at 64 rows per kv head on four kv heads, one CTA per SM
    /// (session 28's R20): 400 unsplit blocks of 12 tiles leave four for a fourth wave; those
    /// four are cut in three pieces of four tiles (module doc, "Last-wave split").
    #[test]
    fn last_wave_of_one_cta_per_sm_is_split() {
        let (q, kv) = ([4u32; 100], [732u32; 100]);
        let mut i = inp(&q, &kv, 64, 4);
        (i.head_dim, i.ctas_per_sm) = (256, 1);
        let p = plan(&i);
        assert_eq!(p.work.len(), 396 + 12);
        assert_eq!(p.merge.len(), 4);
        assert!(p.merge.iter().all(|m| m.num_splits == 3));
        assert!(p.work[..396]
            .iter()
            .all(|w| w.partial_slot == FINAL_OUTPUT && w.kv_end == 732));
        assert!(p.work[396..]
            .iter()
            .all(|w| w.kv_end - w.kv_start <= 4 * KV_TILE_TOKENS));
        // Two CTAs per SM: the balanced plans' business, untouched here.
        i.ctas_per_sm = 2;
        assert!(plan(&i).merge.is_empty());
        // A last wave over a quarter full, or blocks too short to cut: unsplit.
        let (q, kv) = ([4u32; 120], [732u32; 120]);
        let mut i = inp(&q, &kv, 64, 4);
        (i.head_dim, i.ctas_per_sm) = (256, 1);
        assert!(plan(&i).merge.is_empty());
        let (q, kv) = ([4u32; 100], [400u32; 100]);
        let mut i = inp(&q, &kv, 64, 4);
        (i.head_dim, i.ctas_per_sm) = (256, 1);
        assert!(plan(&i).merge.is_empty());
    }

    #[test]
    fn graph_plans_stay_in_their_grid() {
        // W1 in a graph sized for 64 such requests (512 blocks): its 256 splits fit the grid.
        let mut i = inp(&[1], &[32768], 32, 8);
        i.max_ctas = Some(graph_max_ctas(512, 264));
        assert_eq!(plan(&i).work.len(), 256);
        // Batches at their own capacity stay within `graph_max_ctas`, whatever the plan.
        for (n, kv) in [(40usize, 4096u32), (128, 4096), (250, 2000), (3, 70_000)] {
            let (q, kv) = (vec![1u32; n], vec![kv; n]);
            for balance in [Balance::Auto, Balance::On, Balance::Off] {
                let mut i = inp(&q, &kv, 32, 8);
                let grid = graph_max_ctas(8 * n as u64, 264);
                (i.max_ctas, i.balance) = (Some(grid), balance);
                let p = plan(&i);
                assert!(
                    p.work.len() as u64 <= grid,
                    "{n} x {}: {} > {grid}",
                    kv[0],
                    p.work.len()
                );
                if (n, balance) == (40, Balance::Off) {
                    // The cap binds: uncapped, uniform chunks take four per block (1280 CTAs).
                    i.max_ctas = None;
                    assert!(plan(&i).work.len() as u64 > grid);
                }
            }
        }
    }

    #[test]
    fn w2_splits_to_fill_a_wave() {
        let p = plan(&inp(&[1; 8], &[8192; 8], 32, 8));
        assert_eq!(p.work.len(), 256);
        assert_eq!(p.merge.len(), 64);
        assert!(p.merge.iter().all(|m| m.num_splits == 4));
    }

    #[test]
    fn more_than_a_wave_splits_only_for_wave_efficiency() {
        // 512 blocks at 3 CTAs/SM (396 slots): unsplit 65%, two chunks 86%, three 97%.
        let mut i = inp(&[1; 64], &[4096; 64], 32, 8);
        i.ctas_per_sm = 3;
        let p = plan(&i);
        assert_eq!(p.work.len(), 3 * 512);
        assert!(p.merge.iter().all(|m| m.num_splits == 3));
        // 320 blocks at 2 CTAs/SM: four chunks fill 97% of four waves (uniform chunks).
        let mut i = inp(&[1; 40], &[4096; 40], 32, 8);
        i.balance = Balance::Off;
        assert_eq!(plan(&i).work.len(), 4 * 320);
        // The planner's choice: balanced, each slot's share cut at most once inside a block
        // (at most one piece per block and one per slot boundary).
        i.balance = Balance::Auto;
        let p = plan(&i);
        assert!(p.balanced && p.work.len() <= 320 + 264, "{}", p.work.len());
        // A variant of one CTA per SM is never balanced automatically (its pieces pay their
        // start and end alone: BALANCED_MIN_CTAS_PER_SM), only when forced.
        let mut one = i.clone();
        one.ctas_per_sm = 1;
        assert!(!plan(&one).balanced);
        one.balance = Balance::On;
        assert!(plan(&one).balanced);
        // Short requests are never cut below MIN_TILES_PER_SPLIT tiles.
        let p = plan(&inp(&[1; 40], &[300; 40], 32, 8));
        assert!(p.merge.is_empty());
    }

    #[test]
    fn w2_tail_split() {
        let mut i = inp(&[1; 8], &[8192; 8], 32, 8);
        i.tail = Some(TailSplit {
            percent: 25,
            chunk_tiles: 4,
        });
        let p = plan(&i);
        // 128 tiles per block: the last 32 in 8 chunks of 4, the first 96 in 4 chunks of 24.
        assert_eq!(p.merge.len(), 64);
        assert!(p.merge.iter().all(|m| m.num_splits == 12));
        assert_eq!(p.work.len(), 64 * 12);
        // The head chunks (the first wave) come before every tail chunk.
        assert!(p.work[..256]
            .iter()
            .all(|w| w.kv_end - w.kv_start == 24 * 64));
        assert!(p.work[256..]
            .iter()
            .all(|w| w.kv_end - w.kv_start == 4 * 64));
        // Off: the plan of before.
        i.tail = None;
        assert_eq!(plan(&i).work.len(), 256);
    }

    #[test]
    fn tail_shapes() {
        let t = |percent, chunk_tiles| {
            Some(TailSplit {
                percent,
                chunk_tiles,
            })
        };
        assert_eq!(tail_shape(128, 4, None), (128, 0, 0));
        assert_eq!(tail_shape(128, 4, t(25, 4)), (96, 4, 8));
        // Uneven: 10% of 37 = 3 tiles, chunks of 2 -> 2 chunks (2 + 1).
        assert_eq!(tail_shape(37, 4, t(10, 2)), (34, 2, 2));
        // The head keeps a tile per split.
        assert_eq!(tail_shape(5, 4, t(90, 1)), (4, 1, 1));
        assert_eq!(tail_shape(4, 4, t(50, 1)), (4, 0, 0));
        // At most MAX_TAIL_CHUNKS chunks: larger chunks instead.
        let (head, chunk, n) = tail_shape(1000, 8, t(50, 1));
        assert_eq!((head, n <= MAX_TAIL_CHUNKS), (500, true));
        assert!(chunk * n >= 500 && chunk * (n - 1) < 500);
    }

    #[test]
    fn combine_parts_fill_the_sms_within_the_head() {
        // W1 (8 blocks), W2 (64), W7 (24) on 132 SMs, head dim 128: at most 8 parts and
        // at most 66 combine CTAs.
        assert_eq!(combine_parts(8, 132, 128, None), 8);
        assert_eq!(combine_parts(64, 132, 128, None), 1);
        assert_eq!(combine_parts(24, 132, 128, None), 2);
        assert_eq!(combine_parts(33, 132, 128, None), 2);
        assert_eq!(combine_parts(34, 132, 128, None), 1);
        assert_eq!(combine_parts(200, 132, 128, None), 1);
        assert_eq!(combine_parts(1, 132, 64, None), 4);
        assert_eq!(combine_parts(1, 132, 256, None), 16);
        assert_eq!(combine_parts(0, 132, 128, None), 8);
        // Requests round down to a power of two within 1..=head_dim / 16.
        assert_eq!(combine_parts(8, 132, 128, Some(6)), 4);
        assert_eq!(combine_parts(8, 132, 128, Some(64)), 8);
        assert_eq!(combine_parts(8, 132, 128, Some(0)), 1);
        // Every head dim (the padded ones too: 144 -> 4 parts of 36 columns, 48 -> 2 of 24).
        assert_eq!(max_combine_parts(144), 4);
        assert_eq!(max_combine_parts(48), 2);
        assert_eq!(max_combine_parts(96), 4);
        assert_eq!(max_combine_parts(192), 8);
        for d in (16u32..=256).step_by(16) {
            for m in 0..300 {
                let p = combine_parts(m, 132, d, None);
                assert!(p.is_power_of_two() && p <= (d / 16).max(1) && (d / p).is_multiple_of(4));
                assert!(p == 1 || m * p <= 66);
            }
        }
    }

    /// Rows per CTA: 16 up to 16 packed rows (and always at head dim 256), 32 up to 32, 64
    /// past 32 with the row-split consumers, else 32.
    #[test]
    fn m_tiles_by_rows() {
        for (rows, d, split, want) in [
            (1, 128, true, 1),
            (16, 128, true, 1),
            (17, 128, true, 2),
            (32, 64, true, 2),
            (33, 128, true, 4),
            (128, 128, true, 4),
            (128, 128, false, 2),
            (128, 256, true, 4),
            (32, 256, true, 2),
            (16, 256, true, 1),
            (48, 256, false, 1),
        ] {
            assert_eq!(
                m_tiles_for(rows, d, 2, split, true),
                want,
                "rows {rows}, d {d}, split {split}"
            );
        }
        // Keys too few to fill the SMs: head dim 256 keeps 16-row CTAs; past 16 rows the
        // others take 16 (16-bit K/V) or 32 (fp8) rows.
        assert_eq!(m_tiles_for(96, 256, 2, true, false), 1);
        assert_eq!(m_tiles_for(96, 128, 2, true, false), 1);
        assert_eq!(m_tiles_for(48, 64, 2, true, false), 1);
        assert_eq!(m_tiles_for(64, 128, 1, true, false), 2);
        assert_eq!(m_tiles_for(32, 128, 2, true, false), 1);
        assert_eq!(m_tiles_for(18, 64, 2, true, false), 1);
        assert_eq!(m_tiles_for(24, 128, 1, true, false), 2);
        assert_eq!(m_tiles_for(24, 128, 2, false, false), 2);
        assert_eq!(m_tiles_for(64, 128, 2, false, false), 2);
        assert_eq!(m_tiles_for(64, 128, 1, true, true), 4);
        assert!(keys_fill_sms(4 * 132, 132) && !keys_fill_sms(4 * 132 - 1, 132));
        // Head dim 256 past 32 rows over 16-bit K/V with the wgmma consumer: two tiles per SM.
        assert!(
            row_split_fill(64, 256, 2, true, 2 * 132, 132)
                && !row_split_fill(64, 256, 2, true, 2 * 132 - 1, 132)
        );
        assert_eq!(
            m_tiles_for(64, 256, 2, true, row_split_fill(64, 256, 2, true, 460, 132)),
            4
        );
        // Otherwise the fill of `keys_fill_sms`: no wgmma, fp8 K/V, 32 rows, head dim 128.
        for (rows, d, bytes, g64) in [
            (64, 256, 2, false),
            (64, 256, 1, true),
            (32, 256, 2, true),
            (64, 128, 2, true),
        ] {
            for tiles in [2 * 132, 4 * 132 - 1, 4 * 132] {
                assert_eq!(
                    row_split_fill(rows, d, bytes, g64, tiles, 132),
                    keys_fill_sms(tiles, 132)
                );
            }
        }
    }

    #[test]
    fn w3_does_not_split() {
        let p = plan(&inp(&[1; 64], &[4096; 64], 32, 8));
        assert_eq!(p.work.len(), 512);
        assert!(p.merge.is_empty());
        assert_eq!(p.num_slots, 0);
    }

    #[test]
    fn w1_splits_long_single_request() {
        let p = plan(&inp(&[1], &[32768], 32, 8));
        assert!(
            p.work.len() <= 264 && p.work.len() >= 200,
            "{}",
            p.work.len()
        );
    }

    /// The paired fp8 choice on the shapes measured in session 35 (docs/perf.md, change 108;
    /// blocks of the four-CTA wave of 528, paired / unpaired time): paired where it measured
    /// faster or even, unpaired where slower.
    #[test]
    fn paired_choice_on_measured_shapes() {
        for (name, blocks, paired) in [
            ("b1 x 32K", 8, true),              // 0.97
            ("W5 b8 x 8K", 64, true),           // 0.99-1.00
            ("b4 x 16K, 4 kv heads", 16, true), // 0.94
            ("ragged 45K + 3", 32, true),       // 0.98
            ("b32 x 2K", 256, true),            // 0.97
            ("b33 x 8K", 264, true),            // 0.99
            ("b40 x 6000", 320, true),          // 0.97
            ("b48 x 4K", 384, true),            // 0.97
            ("b64 x 4K", 512, false),           // 1.01
            ("b100 x 1000", 800, false),        // 1.15
            ("b128 x 2K", 1024, false),         // 1.05
        ] {
            assert_eq!(prefer_paired(blocks, 132, (4, 2)), paired, "{name}");
        }
        // Fewer SMs or CTAs per SM shrink the wave the blocks are counted against.
        assert!(!prefer_paired(384, 66, (4, 2)));
        assert!(prefer_paired(0, 132, (4, 2)));
        // Never where pairing costs more than half the occupancy (164 KiB SMs: 3 against 1).
        assert!(!prefer_paired(8, 108, (3, 1)));
        assert!(prefer_paired(8, 108, (2, 1)));
    }

    /// The split model's choices on shapes measured on the H200 in session 21 (docs/perf.md):
    /// the W-workloads keep their plans; where a wave left slots idle, a second wave is taken
    /// when the model expects it to pay by MULTI_WAVE_MARGIN, and was faster when measured.
    #[test]
    fn split_model_choices_on_measured_shapes() {
        // Clusters the H200 holds (load-balancing policy), by size, at 2 and 4 CTAs per SM.
        let caps2 = [0u32, 0, 132, 79, 66, 47, 39, 0, 30];
        let caps4 = [0u32, 0, 264, 176, 132, 98, 83, 0, 66];
        let ctas = |kv: &[u32], qh: u32, kvh: u32, cps: u32| {
            let q = vec![1u32; kv.len()];
            let mut i = inp(&q, kv, qh, kvh);
            i.ctas_per_sm = cps;
            i.cluster_capacity = if cps == 2 { &caps2 } else { &caps4 };
            plan(&i).work.len()
        };
        let rag3: Vec<u32> = [vec![16000; 3], vec![500; 20]].concat();
        for (name, kv, qh, kvh, cps, want) in [
            // The W-workloads, as before the model.
            ("W1", vec![32768u32], 32, 8, 2, 256),
            ("W2", vec![8192; 8], 32, 8, 2, 256),
            ("W3", vec![4096; 64], 32, 8, 2, 512),
            ("W4", vec![2048; 128], 64, 8, 2, 1024),
            ("W5", vec![8192; 8], 32, 8, 4, 512),
            // Session 22 (same process, uniform against balanced): 96 blocks of 128 tiles, 480
            // CTAs 106.4 us, balanced 336 100.9 (session 21: 192 CTAs 114.0).
            ("b12 8K", vec![8192; 12], 32, 8, 2, 336),
            // 192 blocks of 94 tiles: 768 CTAs 150.2 us, balanced 432 145.8.
            ("b24 6000", vec![6000; 24], 32, 8, 2, 432),
            // 272 blocks of 64 tiles: 1088 CTAs 160.7 us, balanced 513 141.3.
            ("b34 4K", vec![4096; 34], 32, 8, 2, 513),
            // 384 blocks of 32 tiles: unsplit 105.1 us, balanced 575 104.5.
            ("b48 2K", vec![2048; 48], 32, 8, 2, 575),
            // 768 unsplit blocks in 2.9 waves: 100.7 us, balanced 102.4: uniform stays.
            ("b96 1K", vec![1024; 96], 32, 8, 2, 768),
            // One wave stays one wave: 264 CTAs 127.3 us, 504 132.4; 240 75.7, 528 76.5.
            ("b1 131K", vec![131072], 32, 8, 2, 264),
            ("b6 12K", vec![12000; 6], 32, 8, 2, 240),
            // MQA (32 packed rows): 256 CTAs 18.1 us, 128 in clusters of 8 19.5.
            ("mqa b16 4K", vec![4096; 16], 32, 1, 2, 256),
            // Three long requests among 20 short: 256 CTAs 82.7 us, 568 68.5; session 22: 568
            // 68.9, balanced 434 65.1.
            ("rag3", rag3, 32, 8, 2, 434),
            // fp8 K/V, 192 blocks of 94 tiles: 384 CTAs 86.0 us, 960 83.9; session 22: 960
            // 86.3, balanced 91.0 (four CTAs per SM are not balanced).
            ("fp8 b24 6000", vec![6000; 24], 32, 8, 4, 960),
        ] {
            assert_eq!(ctas(&kv, qh, kvh, cps), want, "{name}");
        }
    }

    /// Short batches on under-filled grids (session 26, docs/perf.md: forced split counts on
    /// the H200, us): 2-tile chunks where 4-tile ones leave over half of the SMs idle, and
    /// fewer splits where the combine would take more rounds of loads.
    #[test]
    fn short_batches_on_underfilled_grids() {
        let caps1 = [0u32, 0, 66, 44, 33, 26, 22, 0, 16];
        let caps2 = [0u32, 0, 132, 79, 66, 47, 39, 0, 30];
        let run = |q: &[u32], kv: &[u32], qh, kvh, d, m, cps| {
            let mut i = inp(q, kv, qh, kvh);
            i.head_dim = d;
            i.m_tiles = m;
            i.ctas_per_sm = cps;
            i.cluster_capacity = if cps == 1 { &caps1 } else { &caps2 };
            let p = plan(&i);
            let splits = p.merge.iter().map(|m| m.num_splits).max().unwrap_or(1);
            (p.work.len(), splits)
        };
        for (name, got, want) in [
            // 12 blocks of 64 rows over 16 tiles (e4m3 K/V): 4 splits 15.4, 8 splits 13.2.
            (
                "3 x 1000, 64 rows",
                run(&[8; 3], &[1000; 3], 24, 4, 128, Some(4), 2),
                (96, 8),
            ),
            // Head dim 256, 12 blocks of 16 rows: 4 splits 11.6, 8 splits 9.5.
            (
                "2 x 1000, d256",
                run(&[16; 2], &[1000; 2], 6, 1, 256, Some(1), 1),
                (96, 8),
            ),
            // 16 blocks of 32 rows over 11 tiles: 3 splits 11.2, 6 splits 9.2.
            (
                "2 x 700, 32 rows",
                run(&[8; 2], &[700; 2], 32, 8, 128, Some(2), 2),
                (96, 6),
            ),
            // 8 blocks of 32 rows over 47 tiles: 12 splits 12.4, 16 splits 11.8; but 96 CTAs
            // are past half the SMs, where 96 -> 128 ran 3-9% slower on two other shapes.
            (
                "1 x 3000, 32 rows",
                run(&[4], &[3000], 64, 8, 128, Some(2), 2),
                (96, 12),
            ),
            // 16 blocks of 24 tiles: 4-tile chunks (96 CTAs) 9.6, 3-tile chunks (128) 9.9.
            (
                "2 x 1500, 4 new tokens",
                run(&[4; 2], &[1500; 2], 32, 8, 128, Some(1), 2),
                (96, 6),
            ),
            // 32 blocks: 4 splits (128 CTAs) 8.6; 2-tile chunks (256 CTAs) 10.4.
            (
                "4 x 1000",
                run(&[1; 4], &[1000; 4], 32, 8, 128, Some(1), 2),
                (128, 4),
            ),
            // Two blocks of 516 tiles at head dim 64: 129 splits (three rounds of the combine)
            // 15.4, 104 splits (two) 13.4, 58 splits (one) 12.7.
            (
                "2 x 33000, d64",
                run(&[2; 2], &[33000; 2], 7, 1, 64, Some(1), 2),
                (208, 104),
            ),
            // One block of 512 tiles: 128 splits (two rounds) 12.6, 103 (two rounds) 12.3, 64
            // splits 13.9.
            (
                "1 x 32768, one kv head",
                run(&[1], &[32768], 8, 1, 128, Some(1), 2),
                (128, 128),
            ),
        ] {
            assert_eq!(got, want, "{name}");
        }
    }

    /// The built work list prices like the planner's candidate: W2 (4 splits in clusters of 4)
    /// and W3 (unsplit), in tile-times.
    #[test]
    fn estimate_of_built_plans() {
        let p = plan(&inp(&[1; 8], &[8192; 8], 32, 8));
        let w2 = estimate_plan_tiles(&p, 128, 132, 2, true);
        assert!(
            (w2 - (33.5 / (264.0f64 / 256.0).min(1.2) + 1.0)).abs() < 1e-9,
            "{w2}"
        );
        let p = plan(&inp(&[1; 64], &[4096; 64], 32, 8));
        let w3 = estimate_plan_tiles(&p, 128, 132, 2, false);
        // One full wave, then 248 CTAs sharing the bandwidth of 264, overlapped.
        let d = 65.5;
        let want = d + d / (264.0 / 248.0) - 0.5 * d * (1.0 - 248.0 / 264.0);
        assert!((w3 - want).abs() < 1e-9, "{w3} against {want}");
    }

    #[test]
    fn coverage_exactly_once() {
        let q = [1, 4, 16, 2, 1];
        let kv = [0, 97, 5000, 1, 45000];
        for splits in [
            Splits::Auto,
            Splits::Fixed(1),
            Splits::Fixed(3),
            Splits::Fixed(64),
        ] {
            let mut i = inp(&q, &kv, 12, 1);
            i.splits = splits;
            let p = plan(&i);
            let rpb = p.rows_per_block();
            for r in 0..q.len() {
                let rows = q[r] * 12;
                let mut blocks: Vec<_> = p.work.iter().filter(|w| w.request == r as u32).collect();
                blocks.sort_by_key(|w| (w.row_start, w.kv_start));
                for rb in 0..rows.div_ceil(rpb) {
                    let ranges: Vec<_> = blocks
                        .iter()
                        .filter(|w| w.row_start == rb * rpb)
                        .map(|w| (w.kv_start, w.kv_end))
                        .collect();
                    assert_eq!(ranges.first().unwrap().0, 0);
                    assert_eq!(ranges.last().unwrap().1, kv[r]);
                    for pair in ranges.windows(2) {
                        assert_eq!(pair[0].1, pair[1].0);
                        assert!(pair[0].0 < pair[0].1);
                    }
                }
            }
        }
    }
}
