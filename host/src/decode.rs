//! Paged decode attention: configuration, validation, plan and run.
//!
//! # Layouts
//! - `q`, `o`: `[total_tokens, q_heads, head_dim]`, tokens of request `r` at rows
//!   `q_indptr[r]..q_indptr[r + 1]` (1..=16 new tokens per request). `o` has the config's 16-bit
//!   `dtype`; `q` too, or fp8 in all-FP8 mode (`q_fp8`, then `dtype` must be bf16).
//! - K and V page pools: `[num_pages, page_size, kv_heads, head_dim]` each ("NHD", the default)
//!   or `[num_pages, kv_heads, page_size, head_dim]` ("HND", `kv_layout`), any
//!   `page_size >= 1`, in `dtype` or, with `kv_fp8`, as e4m3/e5m2 codes (one byte each),
//!   dequantized inside the kernel.
//! - Scales (optional f32 tables, `scales` says their layout: one value, one per kv head, or one
//!   per (request, kv head) as `[requests, kv_heads]`): `q_scale` and `k_scale` multiply the
//!   scores (folded into the softmax scale), `v_scale` multiplies the output (folded into the
//!   final normalisation). A missing table means 1. The real value of an fp8 code `c` is
//!   `decode(c) * scale` (see `ferroflash::quant`).
//! - Page table in CSR form: `page_indptr[num_requests + 1]`, `page_indices[..]` (u32 page ids);
//!   token `t` of request `r` is in page `page_indices[page_indptr[r] + t / page_size]`, slot
//!   `t % page_size`. `kv_lens[r]` counts the request's keys, new tokens included; the new tokens
//!   are the last `q_len` keys (causal among them, bottom-right aligned). A request with
//!   `kv_len < q_len` is accepted: its first `q_len - kv_len` query rows see no key and get O = 0
//!   and LSE = -inf (or the sink's LSE), as in the CPU reference. At most
//!   `ferroflash_contract::params::MAX_KV_LEN` (2^30) keys per request.
//! - `lse` (optional): `[total_tokens, q_heads]` f32, natural log; `-inf` for a row that sees no
//!   key and no sink (its O is 0).
//! - `sinks` (optional): `[q_heads]` f32 logits, one virtual key per head with no value.
//!
//! # Plan / run
//! [`DecodePlan::new`] validates the configuration and the host copies of the batch tables
//! (every page id in range, every length within its pages), plans the splits and uploads the
//! tables, the work list and a workspace; [`DecodePlan::run`] validates the tensors (shape,
//! dtype, device, alignment) and launches the decode kernel and, when a request was split, the
//! combine kernel, on the device's stream. Nothing is launched when a check fails.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::{self, LaunchDims};
use crate::plan::MAX_SPLITS;
use crate::plan::{plan, Plan, PlanInput};
pub use crate::plan::{Balance, Splits, TailSplit};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use ferroflash_contract::decode::{
    combine_smem_bytes, geometry_paired, geometry_rows, geometry_wgmma, layout_supported,
    paired_supported, wgmma_supported, COMBINE_THREADS, KV_TILE_TOKENS, MAX_CLUSTER_SPLITS,
    M_TILE_ROWS,
};
use ferroflash_contract::names::decode as names;
pub use ferroflash_contract::names::Elem;
use ferroflash_contract::params::{
    DecodeParams, DecodeWork, MergeWork, TensorMap, MAX_KV_LEN, NONE_ADDR, NO_WINDOW,
    TIMELINE_TILE_WORDS, TIMELINE_WORDS,
};
use ferroflash_contract::softmax::LOG2_E;
use ferroflash_contract::{KvLayout, PagedKvLayout};

/// 16-bit element type of Q, K, V and O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype16 {
    Bf16,
    F16,
}

pub use ferroflash_contract::fp8::Fp8Format;

/// Tiles (64 keys of one kv head) per SM from which the automatic kv-head-pair rule pairs
/// fp8 d64 K/V whose pair has 9-16 packed rows (the 128-column `_d128p_m16`,
/// [`DecodeConfig::kernel_view`]): between the 16 per SM where pairing measured 8% slower and
/// the 496 where it measured 27% faster (session 60, H100; the boundary between them is not
/// measured).
pub const PAIR_FP8_MIN_TILES_PER_SM: u64 = 64;

/// As [`PAIR_FP8_MIN_TILES_PER_SM`] for fp8 80-112, whose 9-16-row pair runs the 256-column
/// `_d256p_m16` at one CTA per SM: measured (session 62, H100, 8 rows -> 16) 0.8-4.6% faster
/// paired on 124 tiles per SM (d80, d96) and 9.3-19.4% on 248 (d96, d112).
pub const PAIR_FP8_WIDE_MIN_TILES_PER_SM: u64 = 120;

/// The kernels' tile head dim for a row of `head_dim` columns: the smallest of 64, 128 and 256
/// not under it ([`DecodeConfig::tile_head_dim`]; also that of a kv-head pair's rows).
fn tile_head_dim_of(head_dim: u32) -> u32 {
    match head_dim {
        0..=64 => 64,
        65..=128 => 128,
        _ => 256,
    }
}

/// Whether `head_dim` is not one of the unpadded tile widths 64, 128, 256.
fn padded_head_dim(head_dim: u32) -> bool {
    ![64, 128, 256].contains(&head_dim)
}

/// Layout of the `q_scale` / `k_scale` / `v_scale` tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScaleLayout {
    /// One value for the whole tensor (`[1]`).
    PerTensor,
    /// One value per kv head (`[kv_heads]`).
    #[default]
    PerKvHead,
    /// One value per (request, kv head) (`[requests, kv_heads]`; in graph mode
    /// `[max_requests, kv_heads]`).
    PerRequestKvHead,
}

/// Shapes and options of a decode call. Lengths live in [`BatchTables`].
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeConfig {
    pub q_heads: u32,
    pub kv_heads: u32,
    /// 64, 128 or 256; over 16-bit Q also any other multiple of 16 up to 256 (16-bit K/V) or
    /// 80, 96, 112, 144 ..= 240 (an fp8 KV cache, sm_90a / sm_100a), run in the padded variants ([`Self::padded`], See Note
    /// [padded head dims] in docs/DESIGN.md).
    pub head_dim: u32,
    /// Tokens per page, any value >= 1.
    pub page_size: u32,
    /// Pages in each of the K and V pools, >= 1.
    pub num_pages: u32,
    /// Axis order inside a page: NHD `[num_pages, page_size, kv_heads, head_dim]` (default) or
    /// HND `[num_pages, kv_heads, page_size, head_dim]` (a kv head's rows of a page contiguous).
    pub kv_layout: KvLayout,
    /// Output type, and Q's type unless `q_fp8`; K/V's type unless `kv_fp8`.
    pub dtype: Dtype16,
    /// K/V pools hold fp8 codes of this format (dequantized in the kernel).
    pub kv_fp8: Option<Fp8Format>,
    /// All-FP8 mode: Q holds fp8 codes of the `kv_fp8` format too; the output is `dtype` (bf16).
    pub q_fp8: bool,
    /// Layout of the scale tables passed to `run`.
    pub scales: ScaleLayout,
    /// Softmax scale; `None` = `1 / sqrt(head_dim)`.
    pub sm_scale: Option<f32>,
    /// Logit softcap `c`: `s = c * tanh(s / c)`.
    pub softcap: Option<f32>,
    /// Sliding window: keys at most this far left of the query position are visible.
    pub window_left: Option<u32>,
    /// KV splits (automatic by default).
    pub splits: Splits,
    /// 16-row query tiles per CTA (packed rows = new tokens x group): `None` = automatic
    /// ([`crate::plan::m_tiles_for`]: two when a kv head has more than 16 packed rows, four
    /// past 32; at head_dim 256 only with the row-split consumers), `Some(1)`, `Some(2)` or
    /// `Some(4)` (4, and 2 at head_dim 256, only with the row-split consumers).
    pub m_tiles: Option<u32>,
    /// Row-split consumers (See Note [row-split consumers] in docs/DESIGN.md) for 32 and 64
    /// rows per CTA: each consumer warp owns 16 rows over 32 or 64 keys of every tile (the
    /// `_w32` / `_w64` kernels) instead of all rows over 16 keys (`_m32`). `None` (default) =
    /// automatic (on); `Some(false)`: the `_m32` kernels, and at most 32 rows per CTA.
    pub row_split: Option<bool>,
    /// The wgmma consumer (`_g64`, See Note [wgmma consumer] in docs/DESIGN.md) for 64-row
    /// CTAs under a 16-bit Q on the sm_90a module (head dim 128 over 16-bit or fp8 K/V, head
    /// dims 64 and 256 over 16-bit K/V), in place of `_w64`: `None`
    /// (default) = automatic (on where it applies), `Some(true)` the same, `Some(false)` off.
    pub wgmma: Option<bool>,
    /// K/V tiles by TMA tensor maps (See Note [TMA tiles] in docs/DESIGN.md) on the sm_90a
    /// module where the page size, the layout (NHD) and the variant allow it
    /// ([`ferroflash_contract::decode::DecodeGeometry::tma_box_tokens`]): `None` (default) =
    /// automatic (on where it applies), `Some(false)` every tile by `cp.async`.
    pub tma: Option<bool>,
    /// Next-wave prefetch (See Note [next-wave prefetch] in docs/DESIGN.md): on grids of more
    /// than one wave, each CTA's last load warp brings the page-table entries and the first K/V
    /// tile of the CTA one wave later into L2. `None` (default) = on, `Some(false)` off.
    pub next_wave_prefetch: Option<bool>,
    /// Experimental: cut the end of every split block into small chunks that the SMs finishing
    /// first take ([`crate::plan::TailSplit`]); `None` (default): off.
    pub tail: Option<TailSplit>,
    /// Balanced plans ([`crate::plan::Balance`]): `Auto` (default) lets the split model choose
    /// them where they beat uniform chunks and every (request, kv head) fits one CTA's rows;
    /// `Off` keeps uniform chunks, `On` forces them.
    pub balance: Balance,
    /// Merge split-KV partials inside thread-block clusters, without the workspace and the
    /// combine kernel, where the plan allows it: every block in the same number of splits, at
    /// most [`DecodeConfig::max_cluster_splits`] (see [`crate::plan::cluster_order`]), and all
    /// of the plan's clusters resident at once; sm_90+. Graph plans launch their grid in
    /// clusters of [`DecodeConfig::graph_cluster`] and merge in them the batches whose blocks
    /// all split into a divisor of it. Default `true`; `false` always uses the combine kernel.
    pub cluster_merge: bool,
    /// Largest cluster (splits per block) cluster-merge mode takes, 2..=[`MAX_CLUSTER_SPLITS`]
    /// (default: [`MAX_CLUSTER_SPLITS`], 8; larger values act as 8, below 2 as
    /// `cluster_merge = false`). Measured in docs/perf.md (change 50): clusters of
    /// 8 at four fp8 CTAs per SM are 3% faster than the combine kernel.
    pub max_cluster_splits: u32,
    /// Graph plans' cluster size (See Note [graph mode] in docs/DESIGN.md): `None` (default) =
    /// automatic, the split count of the capacity's own batch (every request at the capacity's
    /// mean length) where the direct planner would merge that batch in clusters, else none;
    /// `Some(0)` or `Some(1)`: no clusters (the combine merges every batch); `Some(n)`,
    /// `2 <= n <= max_cluster_splits`: clusters of `n` (larger values act as the largest), in
    /// which batches split into a divisor of `n` merge; `Error::InvalidArgument` from
    /// `for_graphs` where the device cannot hold one such cluster of the plan's kernel.
    pub graph_cluster: Option<u32>,
    /// Combine CTAs per split block (column parts, a power of two up to
    /// [`crate::plan::max_combine_parts`], `head_dim / 16` at 64, 128 and 256):
    /// `None` (default) = automatic ([`crate::plan::combine_parts`]).
    pub combine_parts: Option<u32>,
    /// The narrow variants (swapped-operand consumers, See Note [narrow rows] in
    /// docs/DESIGN.md) where no kv head has more than 8 packed rows (new tokens x group):
    /// `None` (default) = automatic, for fp8 K/V only (measured: 4-5% faster there, 0.5-1%
    /// slower over 16-bit K/V, docs/perf.md change 40); `Some(true)` wherever the rows allow;
    /// `Some(false)` never.
    pub narrow_rows: Option<bool>,
    /// Paired tiles (See Note [paired fp8 tiles] in docs/DESIGN.md) where a narrow variant runs
    /// over fp8 K/V at head dim 128 (`_m8p`, two CTAs per SM, against the four of `_m8`):
    /// `None` (default) = automatic, paired where the batch's blocks leave the four-CTA wave
    /// part-empty ([`crate::plan::prefer_paired`]); `Some(true)` wherever it exists;
    /// `Some(false)` never. Graph plans ([`DecodePlan::for_graphs`], sized once for a
    /// capacity) apply the automatic rule to the capacity's blocks.
    pub paired_tiles: Option<bool>,
    /// Early K/V tiles (See Note [early K/V tiles] in docs/DESIGN.md), sm_90+. `true`
    /// (default): the caller promises that the K/V rows before each request's new tokens
    /// (positions below `kv_len - new tokens`) are not written by the kernel this call follows
    /// on the stream, as in engines whose append kernel writes only the new tokens' rows right
    /// before attention; the load warps then copy the tiles made of those rows into the ring
    /// before `griddepcontrol.wait`, while that kernel ends (and the combine lets the next
    /// call start before its own wait). The new tokens' rows, Q, the tables' use and every
    /// write still wait for it. `false`: no K/V row is read before the previous kernel
    /// completes (for a previous kernel that writes older rows, e.g. a page copy).
    pub early_kv: bool,
    /// Kv-head pairs (See Note [kv-head pairs] in docs/DESIGN.md): over NHD pages, read two
    /// adjacent kv heads as one K/V row of twice the head dim (a block-diagonal Q: each q
    /// head's columns beside zeros), so that a CTA's copies are runs of `2 head_dim` elements
    /// instead of rows that share 128-byte lines with the next kv head's. `None` (default) =
    /// automatic: where a K/V row is not a multiple of 128 bytes (an fp8 cache at head dims 64
    /// and 80-112, 16-bit ones at 32, 48, 80, 96, 112) and the pair's packed rows fit one CTA
    /// (over fp8 K/V: eight rows, or sixteen on batches of [`PAIR_FP8_MIN_TILES_PER_SM`] tiles
    /// per SM at head dim 64 and [`PAIR_FP8_WIDE_MIN_TILES_PER_SM`] at 80-112, See
    /// [`DecodeConfig::kernel_view`]);
    /// `Some(true)` wherever a kernel exists for it ([`DecodeConfig::kv_pairs_possible`]);
    /// `Some(false)` never.
    pub kv_head_pairs: Option<bool>,
    /// In the kernel view of kv-head pairs ([`DecodeConfig::kernel_view`]) the user's head
    /// dim, else 0.
    pair_view_of: u32,
}

impl DecodeConfig {
    /// A config with default options.
    pub fn new(
        q_heads: u32,
        kv_heads: u32,
        head_dim: u32,
        page_size: u32,
        num_pages: u32,
        dtype: Dtype16,
    ) -> Self {
        DecodeConfig {
            q_heads,
            kv_heads,
            head_dim,
            page_size,
            num_pages,
            kv_layout: KvLayout::Nhd,
            dtype,
            kv_fp8: None,
            q_fp8: false,
            scales: ScaleLayout::PerKvHead,
            sm_scale: None,
            softcap: None,
            window_left: None,
            splits: Splits::Auto,
            m_tiles: None,
            row_split: None,
            wgmma: None,
            tma: None,
            next_wave_prefetch: None,
            tail: None,
            balance: Balance::Auto,
            cluster_merge: true,
            max_cluster_splits: MAX_CLUSTER_SPLITS,
            graph_cluster: None,
            combine_parts: None,
            narrow_rows: None,
            paired_tiles: None,
            early_kv: true,
            kv_head_pairs: None,
            pair_view_of: 0,
        }
    }
    /// Whether a kernel exists for the kv-head-pair view of this config on module `arch`: NHD
    /// pages, an even number of kv heads, a 16-bit Q, twice the head dim at most 256 and a
    /// padded variant for it (over fp8 K/V: head dims 64-112, on the sm_90a / sm_100a
    /// modules, whose `_d128p` / `_d256p` fp8 entries run it), the doubled head ratio within
    /// [`ferroflash_contract::params::MAX_GROUP`], and no `m_tiles` override the view's tile
    /// head dim refuses.
    pub fn kv_pairs_possible(&self, arch: crate::ModuleArch) -> bool {
        let fp8_ok = match self.kv_fp8 {
            None => true,
            Some(_) => {
                matches!(self.head_dim, 64 | 80 | 96 | 112) && arch != crate::ModuleArch::Sm80
            }
        };
        let tile = tile_head_dim_of(2 * self.head_dim);
        self.pair_view_of == 0
            && self.kv_layout == KvLayout::Nhd
            && self.kv_heads.is_multiple_of(2)
            && !self.q_fp8
            && 2 * self.head_dim <= 256
            && fp8_ok
            && 2 * (self.q_heads / self.kv_heads) < ferroflash_contract::params::MAX_GROUP
            && self
                .m_tiles
                .is_none_or(|m| layout_supported(tile, m, self.row_groups_for(m), false))
    }
    /// The config the kernels run for a batch whose largest (request, kv head) has
    /// `max_rows` packed rows and whose keys make `kv_tiles` 64-key tiles over all kv heads
    /// ([`crate::plan::batch_kv_tiles`]) on `sm_count` SMs: this one, or its kv-head-pair view
    /// (See Note [kv-head pairs] in docs/DESIGN.md) where [`DecodeConfig::kv_head_pairs`] asks
    /// for it and a kernel exists: half the kv heads at twice the head dim (so twice the head
    /// ratio), the softmax scale of the real head dim, the padded variants. Q, O, the pools
    /// and the scale tables keep the user's shapes ([`DecodePlan::config`] is the user's
    /// config).
    ///
    /// The automatic rule: rows not a multiple of 128 bytes, no `m_tiles` override, and the
    /// pair's rows within one CTA (64), over fp8 K/V within the narrow consumers' 8, or (fp8
    /// d64, whose pair runs 128-column tiles) 16 where the batch has
    /// [`PAIR_FP8_MIN_TILES_PER_SM`] tiles per SM. Measured (docs/perf.md, sessions 60-61,
    /// H100): fp8 d64 at 1 or 4 rows -7..30%, at 8 rows -27% on 496 tiles per SM and +8% on 16
    /// (the 16-row fp8 consumer costs more per tile than the narrow one, which only a long
    /// batch's line savings repay), at 32 rows +1.4%; fp8 d80 / d96 at 1 and 4 rows -5..33%;
    /// 16-bit d80 / d96 at 1-16 rows -7..17%. fp8 80-112 at 5-8 rows pair into the 16-row
    /// `_d256p_m16`, which runs one CTA per SM (224-232 registers): from
    /// [`PAIR_FP8_WIDE_MIN_TILES_PER_SM`] tiles per SM (session 62: -0.8..19.4% on 124-248).
    pub fn kernel_view(
        &self,
        arch: crate::ModuleArch,
        max_rows: u32,
        kv_tiles: u64,
        sm_count: u32,
    ) -> DecodeConfig {
        let misaligned = !(self.head_dim * self.operand_types().1.bytes()).is_multiple_of(128);
        let rows_ok = match self.kv_fp8 {
            None => 2 * max_rows <= 4 * M_TILE_ROWS,
            Some(_) => {
                let min_per_sm = if tile_head_dim_of(2 * self.head_dim) <= 128 {
                    PAIR_FP8_MIN_TILES_PER_SM
                } else {
                    PAIR_FP8_WIDE_MIN_TILES_PER_SM
                };
                2 * max_rows <= M_TILE_ROWS / 2
                    || (2 * max_rows <= M_TILE_ROWS && kv_tiles >= min_per_sm * sm_count as u64)
            }
        };
        let want = match self.kv_head_pairs {
            Some(w) => w,
            None => misaligned && rows_ok && self.m_tiles.is_none(),
        };
        if !(want && self.kv_pairs_possible(arch)) {
            return self.clone();
        }
        DecodeConfig {
            kv_heads: self.kv_heads / 2,
            head_dim: 2 * self.head_dim,
            sm_scale: Some(self.sm_scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt())),
            pair_view_of: self.head_dim,
            ..self.clone()
        }
    }
    /// Whether this is the kernel view of kv-head pairs ([`DecodeConfig::kernel_view`]).
    pub fn is_kv_pair_view(&self) -> bool {
        self.pair_view_of != 0
    }
    /// 16-row tiles per CTA when the largest (request, kv head) has `max_rows` packed rows and
    /// the batch `kv_tiles` 64-key tiles ([`crate::plan::batch_kv_tiles`]) on module `arch`:
    /// the override, else the planner's choice ([`crate::plan::row_split_fill`]).
    fn m_tiles_for_rows(
        &self,
        max_rows: u32,
        kv_tiles: u64,
        arch: crate::ModuleArch,
        sm_count: u32,
    ) -> u32 {
        self.m_tiles.unwrap_or_else(|| {
            let g64 = wgmma_variant(arch, self, 4, self.row_groups_for(4));
            let fill = crate::plan::row_split_fill(
                max_rows,
                self.tile_head_dim(),
                self.operand_types().1.bytes(),
                g64,
                kv_tiles,
                sm_count,
            );
            crate::plan::m_tiles_for(
                max_rows,
                self.tile_head_dim(),
                self.operand_types().1.bytes(),
                self.row_split != Some(false),
                fill,
            )
        })
    }
    /// Row groups of the consumer warps for `m_tiles` (1: key split; 2, 4: row split).
    fn row_groups_for(&self, m_tiles: u32) -> u32 {
        match m_tiles {
            2 | 4 if self.row_split != Some(false) => m_tiles,
            _ => 1,
        }
    }
    /// Whether the narrow variant runs for `m_tiles` when the largest (request, kv head) has
    /// `max_rows` packed rows.
    fn narrow_for(&self, m_tiles: u32, max_rows: u32) -> bool {
        let wanted = self.narrow_rows.unwrap_or(self.kv_fp8.is_some());
        wanted && m_tiles == 1 && max_rows <= M_TILE_ROWS / 2
    }
    /// Whether a plan whose variant is `narrow` has a paired one to choose (see
    /// [`DecodeConfig::paired_tiles`]).
    fn paired_exists(&self, narrow: bool) -> bool {
        // (No padded paired variants: not in the kv-head-pair view either.)
        narrow && !self.padded() && paired_supported(self.head_dim, self.operand_types().1.bytes())
    }
    /// Whether `head_dim` runs in the padded variants (`_d{64,128,256}p`, See Note [padded
    /// head dims] in docs/DESIGN.md): any validated head dim but 64, 128 and 256, and the
    /// kv-head-pair view ([`DecodeConfig::kernel_view`]).
    pub fn padded(&self) -> bool {
        self.pair_view_of != 0 || padded_head_dim(self.head_dim)
    }
    /// The kernels' tile head dim: the smallest of 64, 128 and 256 not under `head_dim` (the
    /// head dim itself unless [`Self::padded`]).
    pub fn tile_head_dim(&self) -> u32 {
        tile_head_dim_of(self.head_dim)
    }
    /// Operand element types (Q, K/V, O) of the kernel this config runs.
    pub fn operand_types(&self) -> (Elem, Elem, Elem) {
        let e16 = match self.dtype {
            Dtype16::Bf16 => Elem::Bf16,
            Dtype16::F16 => Elem::F16,
        };
        let kv = match self.kv_fp8 {
            Some(Fp8Format::E4m3) => Elem::E4m3,
            Some(Fp8Format::E5m2) => Elem::E5m2,
            None => e16,
        };
        (if self.q_fp8 { kv } else { e16 }, kv, e16)
    }
    fn layout(&self) -> PagedKvLayout {
        PagedKvLayout {
            page_size_tokens: self.page_size,
            kv_heads: self.kv_heads,
            head_dim: self.head_dim,
            layout: self.kv_layout,
        }
    }
    /// The kernels' score scale (log2 domain, or divided by the softcap) and softcap x log2(e)
    /// (0 without a softcap): each must be finite, which [`Self::validate`] checks.
    fn score_scales(&self) -> (f32, f32) {
        let sm_scale = self.sm_scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt());
        match self.softcap {
            Some(cap) => (sm_scale / cap, cap * LOG2_E),
            None => (sm_scale * LOG2_E, 0.0),
        }
    }
    /// Elements in one K (or V) pool.
    ///
    /// # Panics
    /// Where the product overflows the address space, which [`Self::validate`] (and every
    /// plan) refuses first with `Error::InvalidArgument { name: "pool" }`.
    pub fn pool_elems(&self) -> usize {
        elems(
            "pool",
            &[self.num_pages, self.page_size, self.kv_heads, self.head_dim],
        )
        .expect("validated config")
    }
    /// Check the configuration (head dim, head ratio, page size, scale, softcap, splits, m tiles).
    pub fn validate(&self) -> Result<()> {
        // 64, 128, 256; or, over 16-bit Q, a multiple of 16 up to 256 (16-bit K/V) or 80, 96,
        // 112, 144 ..= 240 (an fp8 KV cache): the padded variants.
        let padded_ok = match (self.q_fp8, self.kv_fp8) {
            (false, None) => (16..=256).contains(&self.head_dim),
            (false, Some(_)) => matches!(self.head_dim, 80..=112 | 144..=240),
            (true, _) => false,
        };
        if padded_head_dim(self.head_dim) && !(self.head_dim.is_multiple_of(16) && padded_ok) {
            return Err(Error::UnsupportedHeadDim(self.head_dim));
        }
        if self.kv_heads == 0
            || self.q_heads == 0
            || !self.q_heads.is_multiple_of(self.kv_heads)
            || self.q_heads / self.kv_heads >= ferroflash_contract::params::MAX_GROUP
        {
            return Err(Error::HeadRatio {
                q_heads: self.q_heads,
                kv_heads: self.kv_heads,
            });
        }
        if self.page_size == 0 {
            return Err(Error::InvalidArgument {
                name: "page_size",
                why: "must be >= 1".into(),
            });
        }
        if self.num_pages == 0 {
            return Err(Error::InvalidArgument {
                name: "num_pages",
                why: "a K/V pool of no pages (must be >= 1)".into(),
            });
        }
        if let Some(s) = self.sm_scale {
            if !s.is_finite() || s <= 0.0 {
                return Err(Error::InvalidArgument {
                    name: "sm_scale",
                    why: format!("{s} is not a positive finite number"),
                });
            }
        }
        if let Some(c) = self.softcap {
            if !c.is_finite() || c <= 0.0 {
                return Err(Error::InvalidArgument {
                    name: "softcap",
                    why: format!("{c} is not a positive finite number"),
                });
            }
        }
        let (score_scale, softcap_log2) = self.score_scales();
        for (name, v) in [("sm_scale", score_scale), ("softcap", softcap_log2)] {
            if !v.is_finite() {
                return Err(Error::InvalidArgument {
                    name,
                    why: format!(
                        "the kernel's derived scale overflows f32 (sm_scale {:?}, softcap {:?})",
                        self.sm_scale, self.softcap
                    ),
                });
            }
        }
        elems(
            "pool",
            &[self.num_pages, self.page_size, self.kv_heads, self.head_dim],
        )?;
        if let Some(t) = self.tail {
            if !(1..=90).contains(&t.percent) || t.chunk_tiles == 0 {
                return Err(Error::InvalidArgument {
                    name: "tail",
                    why: format!("{t:?}: percent 1..=90, chunk_tiles >= 1"),
                });
            }
        }
        if let Splits::Fixed(0) = self.splits {
            return Err(Error::InvalidArgument {
                name: "splits",
                why: "Fixed(0)".into(),
            });
        }
        match self.m_tiles {
            None => {}
            Some(m) if layout_supported(self.tile_head_dim(), m, self.row_groups_for(m), false) => {
            }
            Some(m) => {
                return Err(Error::InvalidArgument {
                    name: "m_tiles",
                    why: format!(
                        "{m} tiles of 16 rows at head_dim {} (tiles of {} columns, row_split \
                         {:?}): 1, or 2 (at 256 columns with the row-split consumers), or 4 with \
                         the row-split consumers",
                        self.head_dim,
                        self.tile_head_dim(),
                        self.row_split
                    ),
                })
            }
        }
        if self.q_fp8 && self.kv_fp8.is_none() {
            return Err(Error::InvalidArgument {
                name: "q_fp8",
                why: "all-FP8 mode needs kv_fp8 (Q uses the K/V fp8 format)".into(),
            });
        }
        if self.q_fp8 && self.dtype != Dtype16::Bf16 {
            return Err(Error::InvalidArgument {
                name: "dtype",
                why: "the all-FP8 kernels write a bf16 output".into(),
            });
        }
        Ok(())
    }
}

/// Host copies of the batch tables (the plan validates and uploads them).
#[derive(Clone, Copy, Debug)]
pub struct BatchTables<'a> {
    /// `[num_requests + 1]`, prefix sums of the new tokens per request.
    pub q_indptr: &'a [u32],
    /// `[num_requests]`.
    pub kv_lens: &'a [u32],
    /// `[num_requests + 1]`.
    pub page_indptr: &'a [u32],
    pub page_indices: &'a [u32],
}

/// Product of tensor dimensions as an element count whose byte size (4-byte elements at most)
/// fits in `isize`, or a typed error: sizes are checked, never wrapped.
fn elems(name: &'static str, dims: &[u32]) -> Result<usize> {
    dims.iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        .filter(|&n| n.checked_mul(4).is_some_and(|b| b <= isize::MAX as u64))
        .map(|n| n as usize)
        .ok_or_else(|| Error::InvalidArgument {
            name,
            why: format!("{dims:?} elements overflow the address space"),
        })
}

/// The 16-bit format of a `half::bf16` or `half::f16` element type; `None` for any other
/// (`u16` and `u8` carry no format).
fn half_format<T: 'static>() -> Option<Elem> {
    use std::any::TypeId;
    let t = TypeId::of::<T>();
    if t == TypeId::of::<half::bf16>() {
        Some(Elem::Bf16)
    } else if t == TypeId::of::<half::f16>() {
        Some(Elem::F16)
    } else {
        None
    }
}

/// The first output `(name, address, bytes)` whose byte range overlaps an input's or a later
/// output's, with that tensor's name; address [`NONE_ADDR`] (absent) and 0 bytes overlap nothing.
fn first_overlap(
    outputs: &[(&'static str, u64, u64)],
    inputs: &[(&'static str, u64, u64)],
) -> Option<(&'static str, &'static str)> {
    let present = |&(_, a, n): &(&'static str, u64, u64)| a != NONE_ADDR && n > 0;
    let meet = |(_, a, n): (&str, u64, u64), (_, b, m): (&str, u64, u64)| {
        a < b.saturating_add(m) && b < a.saturating_add(n)
    };
    outputs.iter().enumerate().find_map(|(i, o)| {
        inputs
            .iter()
            .chain(&outputs[i + 1..])
            .filter(|x| present(o) && present(x))
            .find(|x| meet(*o, **x))
            .map(|x| (o.0, x.0))
    })
}

fn check_indptr(name: &'static str, v: &[u32], n: usize) -> Result<()> {
    if v.len() != n + 1 {
        return Err(Error::BadIndptr {
            name,
            why: format!("{} entries for {n} requests (need {})", v.len(), n + 1),
        });
    }
    if v[0] != 0 {
        return Err(Error::BadIndptr {
            name,
            why: format!("starts at {}", v[0]),
        });
    }
    if let Some(i) = v.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::BadIndptr {
            name,
            why: format!("decreases at {i}"),
        });
    }
    Ok(())
}

/// 1..=16 new tokens for request `request` (a batch's, or a graph capacity's as request 0).
fn check_new_tokens(request: usize, q_len: u32) -> Result<()> {
    if (1..=16).contains(&q_len) {
        Ok(())
    } else {
        Err(Error::NewTokens { request, q_len })
    }
}

impl BatchTables<'_> {
    /// Check the tables against `cfg`: CSR shapes, 1..=16 new tokens, every used page id in
    /// range, every KV length within its pages. Returns the new tokens per request.
    pub fn validate(&self, cfg: &DecodeConfig) -> Result<Vec<u32>> {
        let n = self.kv_lens.len();
        if n == 0 {
            return Err(Error::EmptyBatch);
        }
        check_indptr("q_indptr", self.q_indptr, n)?;
        check_indptr("page_indptr", self.page_indptr, n)?;
        if *self.page_indptr.last().unwrap() as usize > self.page_indices.len() {
            return Err(Error::BadIndptr {
                name: "page_indptr",
                why: format!(
                    "ends at {} but page_indices has {}",
                    self.page_indptr[n],
                    self.page_indices.len()
                ),
            });
        }
        let q_lens: Vec<u32> = self.q_indptr.windows(2).map(|w| w[1] - w[0]).collect();
        let layout = cfg.layout();
        #[allow(clippy::needless_range_loop)] // r indexes four parallel tables
        for r in 0..n {
            check_new_tokens(r, q_lens[r])?;
            if self.kv_lens[r] > MAX_KV_LEN {
                return Err(Error::KvLenTooLong {
                    request: r,
                    kv_len: self.kv_lens[r],
                    max: MAX_KV_LEN,
                });
            }
            let need = layout.pages_for(self.kv_lens[r]);
            let given = self.page_indptr[r + 1] - self.page_indptr[r];
            if need > given {
                return Err(Error::KvLenExceedsPages {
                    request: r,
                    kv_len: self.kv_lens[r],
                    page_size: cfg.page_size,
                    need,
                    given,
                });
            }
            // Every entry of the request's row, spare ones too: a page table the device holds
            // never names a page outside the pool.
            let first = self.page_indptr[r] as usize;
            for (k, &page) in self.page_indices[first..first + given as usize]
                .iter()
                .enumerate()
            {
                if page >= cfg.num_pages {
                    return Err(Error::PageIdOutOfRange {
                        request: r,
                        entry: first + k,
                        page,
                        num_pages: cfg.num_pages,
                    });
                }
            }
        }
        Ok(q_lens)
    }
}

/// How [`DecodePlan`] plans a batch: directly (clusters of each size the device holds, for the
/// cluster merge) or for a CUDA graph (within the captured grid; groups of each size that
/// divides the launch's cluster size, for the cluster merge).
enum PlanMode<'a> {
    Direct {
        cluster_capacity: &'a [u32],
    },
    Graph {
        max_ctas: u64,
        cluster_capacity: &'a [u32],
    },
}

/// A validated, planned batch with its tables, work list and workspace on the device.
///
/// One plan owns one workspace: do not run the same plan on two streams at once, and do not
/// `update` it while a launch of it may still be running on another stream (`update` orders
/// itself after the work queued on the device's stream only).
///
/// Two modes. [`DecodePlan::new`]: buffers sized for one batch, grid = its work list.
/// [`DecodePlan::for_graphs`]: buffers sized once for a [`GraphCapacity`], a fixed grid whose
/// CTAs read the live work count from device memory, and [`DecodePlan::update`] to re-plan a new
/// batch in place, so a CUDA graph captured over [`DecodePlan::run`] replays any batch within
/// the capacity (See Note [graph mode] in docs/DESIGN.md).
pub struct DecodePlan {
    /// The config the kernels run ([`DecodeConfig::kernel_view`]: the user's, or its
    /// kv-head-pair view).
    cfg: DecodeConfig,
    /// The user's config: the shapes of Q, O, the pools and the scale tables.
    user: DecodeConfig,
    plan: Plan,
    total_tokens: usize,
    /// Requests of the planned batch.
    plan_requests: usize,
    graph: Option<GraphCapacity>,
    /// Graph mode: CTAs of the grid kept for a tail split's chunks (0 without one).
    graph_tail_reserve: u64,
    m_tiles: u32,
    ctas_per_sm: u32,
    /// CTAs resident at once (`sm_count * ctas_per_sm`): the next-wave prefetch distance.
    wave_ctas: u32,
    decode_kernel: &'static str,
    combine_kernel: &'static str,
    dims: LaunchDims,
    /// Rows per TMA box of the decode variant's K/V tensor maps, 0 for `cp.async` only.
    tma_box_tokens: u32,
    /// Cluster size of the decode grid's launch (cluster-merge mode, or a graph plan's
    /// clusters), 0 otherwise.
    cluster: u32,
    /// Graph mode: the batch's merge groups (CTAs per block merged in a cluster, dividing
    /// `cluster`), 0 when the combine merges; direct plans: unused (0).
    graph_group: u32,
    /// Graph mode: groups of `n` CTAs the device holds at once in the launch's clusters,
    /// indexed by `n` (See [`DecodePlan::graph_group_capacity`]); empty without clusters.
    graph_group_capacity: Vec<u32>,
    /// Combine CTAs per merge item ([`crate::plan::combine_parts`]).
    combine_parts: u32,
    combine_dims: Option<LaunchDims>,
    bufs: PlanBuffers,
    /// Device addresses of a [`Timeline`] the launches stamp (0: none).
    timeline: (u64, u64),
    /// The device the plan was built on: `update` and the runs refuse any other
    /// ([`Error::WrongDevice`] "plan"), whose context does not hold the plan's buffers or whose
    /// module lacks its kernels (an sm_80 module has no cluster merge).
    device: crate::device::DeviceKey,
}

/// Per-CTA timestamps of a plan's launches, for finding where the time of a decode call goes
/// (`ferroflash bench --timeline`). Every launch after [`DecodePlan::set_timeline`] overwrites
/// the records of the CTAs it runs (graph mode: idle CTAs stamp nothing, so their records keep
/// zeros or an earlier launch's values); read them back with [`Timeline::read`]. Each record is
/// `TIMELINE_WORDS` u64 indexed by `ferroflash_contract::params::TimelineEvent`
/// (`%globaltimer` nanoseconds, the SM id, the tile or split count); records of CTAs that did
/// not run (past the graph-mode work count) stay zero.
///
/// The decode buffer also has room for the per-tile stamps of diagnostic kernel builds
/// (`FF_TILE_STAMPS=1`, `TIMELINE_TILE_WORDS` per CTA after the records;
/// [`Timeline::tile_stamps`]).
pub struct Timeline {
    decode: CudaSlice<u64>,
    combine: CudaSlice<u64>,
    /// CTAs of the decode grid.
    decode_grid: usize,
}

/// Whether this crate's kernels were built with per-tile timeline stamps (`FF_TILE_STAMPS=1`:
/// a diagnostic build, ~4% slower with fp8 K/V; see [`Timeline::tile_stamps`]).
pub const TILE_STAMPS_BUILD: bool = cfg!(ff_tile_stamps);

/// One CTA's timeline record.
pub type TimelineRecord = [u64; TIMELINE_WORDS as usize];

impl Timeline {
    /// The decode grid's and the combine grid's records (the combine's is empty without splits).
    pub fn read(&self, dev: &Device) -> Result<(Vec<TimelineRecord>, Vec<TimelineRecord>)> {
        let s = dev.stream();
        let get = |b: &CudaSlice<u64>, ctas: Option<usize>| -> Result<Vec<TimelineRecord>> {
            let v = s.clone_dtoh(b).map_err(Error::driver("read timeline"))?;
            let n = ctas.map_or(v.len(), |c| c * TIMELINE_WORDS as usize);
            Ok(v[..n]
                .chunks_exact(TIMELINE_WORDS as usize)
                .map(|c| c.try_into().unwrap())
                .collect())
        };
        Ok((
            get(&self.decode, Some(self.decode_grid))?,
            get(&self.combine, None)?,
        ))
    }

    /// Per decode CTA, `TIMELINE_TILE_WORDS` stamps: when thread 0 finished each of its first
    /// `TIMELINE_TILES` tiles, when it found each one's stage full, when the load warp issued
    /// it, and the merge's steps (layout: `TIMELINE_TILE_WORDS` in the contract; `%globaltimer` ns; 0
    /// where no launch since [`DecodePlan::new_timeline`] stamped the tile, so a launch with
    /// fewer tiles leaves an earlier one's stamps). Only kernels built
    /// with `FF_TILE_STAMPS=1` write them ([`TILE_STAMPS_BUILD`]): all zeros otherwise.
    pub fn tile_stamps(&self, dev: &Device) -> Result<Vec<Vec<u64>>> {
        let v = dev
            .stream()
            .clone_dtoh(&self.decode)
            .map_err(Error::driver("read timeline"))?;
        let tiles = &v[self.decode_grid * TIMELINE_WORDS as usize..];
        Ok(tiles
            .chunks_exact(TIMELINE_TILE_WORDS as usize)
            .map(|c| c.to_vec())
            .collect())
    }
}

/// Capacity of a graph-mode plan: every batch given to [`DecodePlan::update`] must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphCapacity {
    /// Most requests in a batch.
    pub max_requests: u32,
    /// Most new tokens of one request (1..=16); `q`/`o` hold `max_requests * max_new_tokens` rows.
    pub max_new_tokens: u32,
    /// Most page-table entries (`page_indices.len()`).
    pub max_page_entries: u32,
}

impl GraphCapacity {
    /// Rows of `q` and `o` a graph-mode plan is run with.
    pub fn max_tokens(&self) -> usize {
        self.max_requests as usize * self.max_new_tokens as usize
    }

    /// At least one request, 1..=16 new tokens, and at most `u32::MAX` rows of `q` / `o` (the
    /// kernels index rows in `u32`). [`DecodePlan::for_graphs`] checks this first.
    pub fn validate(&self) -> Result<()> {
        if self.max_requests == 0 {
            return Err(Error::EmptyBatch);
        }
        check_new_tokens(0, self.max_new_tokens)?;
        if self.max_tokens() > u32::MAX as usize {
            return Err(Error::InvalidArgument {
                name: "max_requests",
                why: format!(
                    "{} requests x {} new tokens is over u32::MAX rows",
                    self.max_requests, self.max_new_tokens
                ),
            });
        }
        Ok(())
    }
}

/// `InvalidArgument { name }` where `tokens` x `q_heads` `(token, q head)` rows pass `u32::MAX`:
/// the kernels index those rows in `u32`.
fn check_row_index(name: &'static str, tokens: usize, q_heads: u32) -> Result<()> {
    let rows = tokens as u64 * q_heads as u64;
    if rows > u32::MAX as u64 {
        return Err(Error::InvalidArgument {
            name,
            why: format!("{rows} (token, q head) rows are over u32::MAX"),
        });
    }
    Ok(())
}

/// Most CTAs in a grid's x dimension (`cuLaunchKernel`).
const MAX_GRID_X: u64 = (1 << 31) - 1;

/// A graph-mode plan's sizes for its capacity, checked before any planning or allocation: the
/// decode grid (at most `max_ctas` CTAs before rounding up to whole clusters) and the combine
/// grid (`blocks` x up to `head_dim / 16` parts) within a grid's x limit, and the split-KV
/// workspace (`max_ctas` slots of `rows_per_block` x `head_dim` f32 partials and their LSEs)
/// within the device's memory. An absurd capacity is an `InvalidArgument` here instead of the
/// host planner running over billions of requests, or a truncated grid size.
fn check_graph_sizes(
    blocks: u64,
    max_ctas: u64,
    rows_per_block: u32,
    head_dim: u32,
    total_mem_bytes: u64,
) -> Result<()> {
    // Rounded up to whole clusters of at most MAX_CLUSTER_SPLITS CTAs.
    let max_parts = crate::plan::max_combine_parts(head_dim) as u64;
    if max_ctas.saturating_add(MAX_CLUSTER_SPLITS as u64) > MAX_GRID_X
        || blocks.saturating_mul(max_parts) > MAX_GRID_X
    {
        return Err(Error::InvalidArgument {
            name: "max_requests",
            why: format!(
                "the capacity needs up to {max_ctas} decode CTAs and {blocks} x {max_parts} \
                 combine CTAs, over a grid's {MAX_GRID_X}"
            ),
        });
    }
    // Within the grid limit and at most 64 rows of 256 dims per slot: no overflow.
    let workspace_bytes = crate::plan::WorkspaceLayout::new(
        max_ctas as usize,
        rows_per_block as usize,
        head_dim as usize,
    )
    .total_bytes as u64;
    if workspace_bytes > total_mem_bytes {
        return Err(Error::InvalidArgument {
            name: "max_requests",
            why: format!(
                "the capacity's split-KV workspace ({} MiB) is over the device's memory ({} MiB)",
                workspace_bytes >> 20,
                total_mem_bytes >> 20
            ),
        });
    }
    Ok(())
}

/// The plan's device buffers and their addresses, taken once (the buffers live as long as the
/// plan), so launching needs no cudarc event bookkeeping and can be captured into a graph.
struct PlanBuffers {
    q_indptr: CudaSlice<u32>,
    kv_lens: CudaSlice<u32>,
    page_indptr: CudaSlice<u32>,
    page_indices: CudaSlice<u32>,
    work: CudaSlice<u32>,
    merge: CudaSlice<u32>,
    /// `[num_work, num_merge, cluster_group]`, read by the kernels in graph mode.
    counts: CudaSlice<u32>,
    /// The split-KV workspace: one allocation, regions by [`crate::plan::WorkspaceLayout`].
    workspace: CudaSlice<u8>,
    addr: PlanAddrs,
}

#[derive(Clone, Copy, Default)]
struct PlanAddrs {
    q_indptr: u64,
    kv_lens: u64,
    page_indptr: u64,
    page_indices: u64,
    work: u64,
    merge: u64,
    counts: u64,
    partial_o: u64,
    partial_lse: u64,
}

/// Element counts of the plan buffers.
#[derive(Clone, Copy)]
struct BufferSizes {
    requests: usize,
    page_entries: usize,
    work: usize,
    merge: usize,
    slots: usize,
    rows_per_block: usize,
    head_dim: usize,
}

impl PlanBuffers {
    fn alloc(dev: &Device, n: BufferSizes) -> Result<PlanBuffers> {
        let s = dev.stream();
        let u32s = |len: usize| {
            s.alloc_zeros::<u32>(len.max(1))
                .map_err(Error::driver("alloc plan tables"))
        };
        let layout = crate::plan::WorkspaceLayout::new(n.slots, n.rows_per_block, n.head_dim);
        let mut b = PlanBuffers {
            q_indptr: u32s(n.requests + 1)?,
            kv_lens: u32s(n.requests)?,
            page_indptr: u32s(n.requests + 1)?,
            page_indices: u32s(n.page_entries)?,
            work: u32s(n.work * DecodeWork::WORDS)?,
            merge: u32s(n.merge * MergeWork::WORDS)?,
            counts: u32s(3)?,
            workspace: s
                .alloc_zeros::<u8>(layout.total_bytes)
                .map_err(Error::driver("alloc workspace"))?,
            addr: PlanAddrs::default(),
        };
        // The allocations are complete once the stream is; their addresses never change.
        s.synchronize()
            .map_err(Error::driver("alloc plan buffers"))?;
        let a = |x: &CudaSlice<u32>| x.device_ptr(s).0;
        let ws = b.workspace.device_ptr(s).0;
        b.addr = PlanAddrs {
            q_indptr: a(&b.q_indptr),
            kv_lens: a(&b.kv_lens),
            page_indptr: a(&b.page_indptr),
            page_indices: a(&b.page_indices),
            work: a(&b.work),
            merge: a(&b.merge),
            counts: a(&b.counts),
            partial_o: ws + layout.partial_o_offset_bytes as u64,
            partial_lse: ws + layout.partial_lse_offset_bytes as u64,
        };
        Ok(b)
    }

    /// Copy a batch's tables and plan into the buffers (stream-ordered).
    /// `group`: the cluster merge's group (graph mode; 0: the combine merges `plan.merge`).
    fn fill(&mut self, dev: &Device, t: &BatchTables, plan: &Plan, group: u32) -> Result<()> {
        let s = dev.stream();
        let map = Error::driver("upload plan");
        let put = |src: &[u32], dst: &mut CudaSlice<u32>| -> Result<()> {
            if src.is_empty() {
                return Ok(());
            }
            if src.len() > dst.len() {
                return Err(Error::BufferTooSmall {
                    name: "plan buffer",
                    got: dst.len(),
                    need: src.len(),
                });
            }
            s.memcpy_htod(src, &mut dst.slice_mut(..src.len()))
                .map_err(Error::driver("upload plan"))
        };
        // Counts go to zero first and to their values last: a launch that sees a half-written
        // plan (after a failed upload) runs no CTA.
        put(&[0, 0, 0], &mut self.counts)?;
        put(t.q_indptr, &mut self.q_indptr)?;
        put(t.kv_lens, &mut self.kv_lens)?;
        put(t.page_indptr, &mut self.page_indptr)?;
        put(
            &t.page_indices[..t.page_indptr[t.kv_lens.len()] as usize],
            &mut self.page_indices,
        )?;
        put(
            &plan.work.iter().flat_map(|w| w.words()).collect::<Vec<_>>(),
            &mut self.work,
        )?;
        put(
            &plan
                .merge
                .iter()
                .flat_map(|m| m.words())
                .collect::<Vec<_>>(),
            &mut self.merge,
        )?;
        // Blocks merged in clusters leave the combine nothing to do.
        let combine_merges = if group > 1 {
            0
        } else {
            plan.merge.len() as u32
        };
        put(
            &[plan.work.len() as u32, combine_merges, group],
            &mut self.counts,
        )?;
        // Host slices are pageable: make sure the copies consumed them before returning.
        s.synchronize().map_err(map)
    }
}

/// Device addresses of one decode call's tensors, for callers outside cudarc
/// ([`DecodePlan::run_raw`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct RawTensors {
    pub q: u64,
    pub k_pool: u64,
    pub v_pool: u64,
    pub o: u64,
    /// 0 = not requested.
    pub lse: u64,
    /// 0 = none.
    pub sinks: u64,
    /// f32 scale tables in the config's [`ScaleLayout`]; 0 = 1.
    pub q_scale: u64,
    pub k_scale: u64,
    pub v_scale: u64,
}

/// Elements of each tensor of a decode call ([`DecodePlan::tensor_elems`]).
struct TensorElems {
    /// Q and O: `[tokens, q_heads, head_dim]`.
    q_o: usize,
    /// Each of the K and V pools.
    pool: usize,
    /// LSE: `[tokens, q_heads]`.
    lse: usize,
    /// Sinks: `[q_heads]`.
    sinks: usize,
    /// Each scale table ([`DecodePlan::scale_len`]).
    scale: usize,
}

/// The tensors of one decode call as cudarc buffers: 2-byte elements (`u16`, `half::bf16`,
/// `half::f16`) for 16-bit tensors, 1-byte (`u8`) for fp8 codes. Element sizes are checked
/// against the config, and `half::bf16` / `half::f16` tensors against its 16-bit format.
pub struct DecodeTensors<'a, Q, KV = Q, O = Q> {
    pub q: &'a CudaSlice<Q>,
    pub k_pool: &'a CudaSlice<KV>,
    pub v_pool: &'a CudaSlice<KV>,
    pub o: &'a mut CudaSlice<O>,
    pub lse: Option<&'a mut CudaSlice<f32>>,
    pub sinks: Option<&'a CudaSlice<f32>>,
    pub q_scale: Option<&'a CudaSlice<f32>>,
    pub k_scale: Option<&'a CudaSlice<f32>>,
    pub v_scale: Option<&'a CudaSlice<f32>>,
}

impl<'a, Q, KV, O> DecodeTensors<'a, Q, KV, O> {
    /// Q, the K/V pools and O, with no LSE, sinks or scales (set those fields after).
    pub fn new(
        q: &'a CudaSlice<Q>,
        k_pool: &'a CudaSlice<KV>,
        v_pool: &'a CudaSlice<KV>,
        o: &'a mut CudaSlice<O>,
    ) -> Self {
        DecodeTensors {
            q,
            k_pool,
            v_pool,
            o,
            lse: None,
            sinks: None,
            q_scale: None,
            k_scale: None,
            v_scale: None,
        }
    }
}

/// Whether 64-row CTAs of `cfg` run the wgmma consumer (`_g64`, See Note [wgmma consumer] in
/// docs/DESIGN.md) on module `arch`: sm_90a, 64 rows in four row groups, and a mode the
/// consumer exists for ([`wgmma_supported`], never a padded head dim), unless
/// `DecodeConfig::wgmma` is off.
fn wgmma_variant(
    arch: crate::ModuleArch,
    cfg: &DecodeConfig,
    m_tiles: u32,
    row_groups: u32,
) -> bool {
    let (q, kv, _) = cfg.operand_types();
    // (No padded wgmma variants: not in the kv-head-pair view either.)
    cfg.wgmma != Some(false)
        && !cfg.padded()
        && arch == crate::ModuleArch::Sm90a
        && (m_tiles, row_groups) == (4, 4)
        && wgmma_supported(cfg.head_dim, q.bytes(), kv.bytes())
}

fn kernel_name(
    cfg: &DecodeConfig,
    m_tiles: u32,
    row_groups: u32,
    narrow: bool,
    wgmma: bool,
    paired: bool,
) -> &'static str {
    let (q, kv, out) = cfg.operand_types();
    names::VARIANTS
        .iter()
        .find(|v| {
            (
                v.q,
                v.kv,
                v.out,
                v.head_dim,
                v.m_tiles,
                v.row_groups,
                v.narrow,
                v.wgmma,
                v.paired,
                v.padded,
            ) == (
                q,
                kv,
                out,
                cfg.tile_head_dim(),
                m_tiles,
                row_groups,
                narrow,
                wgmma,
                paired,
                cfg.padded(),
            )
        })
        .map(|v| v.name)
        .expect("every validated (dtypes, head_dim, m_tiles) the planner picks has a variant")
}

impl DecodePlan {
    /// Validate `cfg` and `tables`, plan the splits for `dev`, and upload tables and work list.
    pub fn new(dev: &Device, cfg: &DecodeConfig, tables: &BatchTables) -> Result<DecodePlan> {
        cfg.validate()?;
        let q_lens = tables.validate(cfg)?;
        let user = cfg;
        let max_rows = q_lens.iter().max().unwrap_or(&0) * (cfg.q_heads / cfg.kv_heads);
        let tiles = crate::plan::batch_kv_tiles(tables.kv_lens, cfg.kv_heads);
        let cfg = &cfg.kernel_view(dev.arch(), max_rows, tiles, dev.caps().sm_count);
        let group = cfg.q_heads / cfg.kv_heads;
        let max_rows = q_lens.iter().map(|q| q * group).max().unwrap_or(0);
        let kv_tiles = crate::plan::batch_kv_tiles(tables.kv_lens, cfg.kv_heads);
        let m_tiles = cfg.m_tiles_for_rows(max_rows, kv_tiles, dev.arch(), dev.caps().sm_count);
        let narrow = cfg.narrow_for(m_tiles, max_rows);
        let variant = |paired| Self::variant(dev, cfg, m_tiles, narrow, paired);
        let (decode_kernel, dims, ctas_per_sm, tma_box_tokens) = match cfg.paired_tiles {
            _ if !cfg.paired_exists(narrow) => variant(false)?,
            Some(paired) => variant(paired)?,
            // Automatic: by the unpaired variant's wave and both occupancies
            // (`plan::prefer_paired`).
            None => {
                let (unpaired, paired) = (variant(false)?, variant(true)?);
                let blocks = q_lens.len() as u64 * cfg.kv_heads as u64;
                let sm_count = dev.caps().sm_count;
                if crate::plan::prefer_paired(blocks, sm_count, (unpaired.2, paired.2)) {
                    paired
                } else {
                    unpaired
                }
            }
        };
        let capacity = Self::cluster_capacities(dev, cfg, decode_kernel, dims)?;
        let mut plan = Self::plan_batch(
            dev,
            cfg,
            tables,
            &q_lens,
            (m_tiles, ctas_per_sm),
            PlanMode::Direct {
                cluster_capacity: &capacity,
            },
        );
        let cluster = Self::cluster_merge(&mut plan, &capacity);
        let rows_per_block = plan.rows_per_block() as usize;
        // (The combine and the partials work on the rows of O: the user's head dim.)
        let parts = crate::plan::combine_parts(
            plan.merge.len() as u32,
            dev.caps().sm_count,
            user.head_dim,
            cfg.combine_parts,
        );
        let sizes = BufferSizes {
            requests: q_lens.len(),
            page_entries: tables.page_indptr[q_lens.len()] as usize,
            work: plan.work.len(),
            merge: plan.merge.len(),
            slots: plan.num_slots as usize,
            rows_per_block,
            head_dim: user.head_dim as usize,
        };
        let mut bufs = PlanBuffers::alloc(dev, sizes)?;
        bufs.fill(dev, tables, &plan, 0)?;
        let max_splits = plan.merge.iter().map(|m| m.num_splits).max().unwrap_or(0);
        if !plan.merge.is_empty() && cluster == 0 {
            // Loaded now, not at the first run (`Device::preload`).
            dev.function(Self::combine_kernel(cfg))?;
        }
        Ok(DecodePlan {
            device: dev.key(),
            cfg: cfg.clone(),
            user: user.clone(),
            total_tokens: *tables.q_indptr.last().unwrap() as usize,
            plan_requests: q_lens.len(),
            graph: None,
            graph_tail_reserve: 0,
            m_tiles,
            ctas_per_sm,
            wave_ctas: dev.caps().sm_count * ctas_per_sm,
            decode_kernel,
            tma_box_tokens,
            combine_kernel: Self::combine_kernel(cfg),
            dims: LaunchDims {
                grid: (plan.work.len() as u32, 1, 1),
                ..dims
            },
            cluster,
            graph_group: 0,
            graph_group_capacity: Vec::new(),
            combine_parts: parts,
            combine_dims: (!plan.merge.is_empty() && cluster == 0).then(|| LaunchDims {
                grid: (plan.merge.len() as u32 * parts, 1, 1),
                block_threads: COMBINE_THREADS,
                smem_bytes: combine_smem_bytes(rows_per_block as u32, max_splits),
            }),
            plan,
            bufs,
            timeline: (NONE_ADDR, NONE_ADDR),
        })
    }

    /// A plan for CUDA graphs: buffers and grid sized for `cap`, no batch yet (a run before the
    /// first [`update`](Self::update) writes nothing). Capture [`run`](Self::run) (or
    /// [`run_raw`](Self::run_raw)) once; after each `update` the captured graph replays the new
    /// batch. During capture, cudarc's event tracking must be off for the tensors passed to
    /// `run` (`CudaContext::disable_event_tracking`), or use `run_raw`.
    ///
    /// A captured graph holds the addresses of this plan's buffers (and of a [`Timeline`] set
    /// on it): the plan must outlive every graph captured over it. Replaying one after the
    /// plan is dropped reads and writes freed device memory, which no check here can catch.
    pub fn for_graphs(dev: &Device, cfg: &DecodeConfig, cap: GraphCapacity) -> Result<DecodePlan> {
        cfg.validate()?;
        cap.validate()?;
        // A capacity past the kernels' row index could never run.
        check_row_index("max_requests", cap.max_tokens(), cfg.q_heads)?;
        let user = cfg;
        // The most keys the page table can hold, per kv head, in 64-key tiles.
        let max_key_tiles =
            (cap.max_page_entries as u64 * cfg.page_size as u64).div_ceil(KV_TILE_TOKENS as u64);
        let cfg = &cfg.kernel_view(
            dev.arch(),
            cap.max_new_tokens * (cfg.q_heads / cfg.kv_heads),
            max_key_tiles * cfg.kv_heads as u64,
            dev.caps().sm_count,
        );
        let group = cfg.q_heads / cfg.kv_heads;
        let max_rows = cap.max_new_tokens * group;
        let kv_tiles = max_key_tiles * cfg.kv_heads as u64;
        let m_tiles = cfg.m_tiles_for_rows(max_rows, kv_tiles, dev.arch(), dev.caps().sm_count);
        let narrow = cfg.narrow_for(m_tiles, max_rows);
        // Paired fp8 tiles by the rule of direct plans applied to the capacity's blocks: a
        // capacity that leaves the four-CTA wave part-empty leaves it so for every batch.
        let variant = |paired| Self::variant(dev, cfg, m_tiles, narrow, paired);
        let (decode_kernel, dims, ctas_per_sm, tma_box_tokens) = match cfg.paired_tiles {
            _ if !cfg.paired_exists(narrow) => variant(false)?,
            Some(paired) => variant(paired)?,
            None => {
                let (unpaired, paired) = (variant(false)?, variant(true)?);
                let blocks = cap.max_requests as u64 * cfg.kv_heads as u64;
                if crate::plan::prefer_paired(blocks, dev.caps().sm_count, (unpaired.2, paired.2)) {
                    paired
                } else {
                    unpaired
                }
            }
        };
        let rows_per_block = M_TILE_ROWS * m_tiles;
        // Work items: without a split, one per (request, kv head, row block); with automatic
        // splits `plan::graph_max_ctas` (batches are planned within it); with Fixed(n) at most
        // n (<= MAX_SPLITS) per block.
        let blocks = cap.max_requests as usize
            * cfg.kv_heads as usize
            * (cap.max_new_tokens * group).div_ceil(rows_per_block) as usize;
        let wave = (dev.caps().sm_count * ctas_per_sm) as usize;
        let tail_reserve = cfg
            .tail
            .map_or(0, |_| blocks * crate::plan::MAX_TAIL_CHUNKS as usize);
        let max_work = match cfg.splits {
            Splits::Auto => crate::plan::graph_max_ctas(blocks as u64, wave as u64) as usize,
            Splits::Fixed(n) => blocks * n.min(MAX_SPLITS) as usize,
        } + tail_reserve;
        // Clusters of `cluster` (a whole number of them in the grid), in which the batches
        // split into a divisor of it merge.
        // A clustered grid keeps one wave past the capacity's blocks (a merge in clusters
        // needs every cluster resident anyway): its idle CTAs cost far more than a plain
        // grid's (session 51: W2's graph plan at 792 CTAs, 536 idle, 3.3 us slower in clusters
        // than without).
        let clustered_ctas = match cfg.splits {
            Splits::Auto => (blocks + wave) as u64,
            Splits::Fixed(_) => (max_work - tail_reserve) as u64,
        };
        // Before the cluster size's planning of the capacity's own batch and any allocation.
        check_graph_sizes(
            blocks as u64,
            (max_work as u64).max(clustered_ctas + tail_reserve as u64),
            rows_per_block,
            cfg.head_dim,
            dev.caps().total_mem_bytes,
        )?;
        let cluster = Self::graph_cluster_size(
            dev,
            cfg,
            cap,
            (m_tiles, ctas_per_sm),
            (decode_kernel, dims),
            clustered_ctas,
        )?;
        let max_work = if cluster > 1 {
            (clustered_ctas as usize + tail_reserve).next_multiple_of(cluster as usize)
        } else {
            max_work
        };
        let graph_group_capacity = if cluster > 1 {
            let clusters = launch::max_active_clusters(dev, decode_kernel, dims, cluster)?;
            (0..=cluster)
                .map(|k| match k {
                    2.. if cluster % k == 0 => clusters * (cluster / k),
                    _ => 0,
                })
                .collect()
        } else {
            Vec::new()
        };
        let sizes = BufferSizes {
            requests: cap.max_requests as usize,
            page_entries: cap.max_page_entries as usize,
            work: max_work,
            merge: blocks,
            slots: max_work,
            rows_per_block: rows_per_block as usize,
            head_dim: user.head_dim as usize,
        };
        let bufs = PlanBuffers::alloc(dev, sizes)?;
        // Loaded now: capture may forbid module loads (`Device::preload`).
        dev.function(Self::combine_kernel(cfg))?;
        // Sized for the capacity's blocks (the grid is fixed at capture).
        let parts = crate::plan::combine_parts(
            blocks as u32,
            dev.caps().sm_count,
            user.head_dim,
            cfg.combine_parts,
        );
        Ok(DecodePlan {
            device: dev.key(),
            cfg: cfg.clone(),
            user: user.clone(),
            plan: Plan {
                m_tiles,
                work: Vec::new(),
                merge: Vec::new(),
                num_slots: 0,
                balanced: false,
                max_block_rows: 0,
            },
            total_tokens: 0,
            plan_requests: 0,
            graph: Some(cap),
            graph_tail_reserve: tail_reserve as u64,
            m_tiles,
            ctas_per_sm,
            wave_ctas: dev.caps().sm_count * ctas_per_sm,
            decode_kernel,
            tma_box_tokens,
            combine_kernel: Self::combine_kernel(cfg),
            dims: LaunchDims {
                grid: (max_work as u32, 1, 1),
                ..dims
            },
            // Graph mode re-plans within a fixed grid: splits vary per update; the combine kernel
            // (fixed grid too) merges them unless they are a divisor of the cluster size.
            cluster,
            graph_group: 0,
            graph_group_capacity,
            combine_parts: parts,
            combine_dims: Some(LaunchDims {
                grid: (blocks as u32 * parts, 1, 1),
                block_threads: COMBINE_THREADS,
                smem_bytes: combine_smem_bytes(rows_per_block, MAX_SPLITS),
            }),
            bufs,
            timeline: (NONE_ADDR, NONE_ADDR),
        })
    }

    /// Graph mode: validate a new batch against the config and the capacity, re-plan it and
    /// write it into the plan's device buffers. Launch geometry and addresses do not change, so
    /// captured graphs stay valid.
    ///
    /// The copies are queued on the device's stream ([`Device::stream`]) and synchronised
    /// before this returns, so they come after every replay queued on that stream. A replay
    /// of a graph launched on another stream must have completed before `update` is called
    /// (synchronise that stream, or make the device's stream wait on it): the decode CTAs read
    /// their work item once, at entry, and an item half old and half new batch can address
    /// rows outside either batch.
    ///
    /// On an error from validation nothing is written: the previous batch stays planned. On a
    /// driver error during the copies, the device's counts may be zero (a replay writes no
    /// output) while the host side still describes the previous batch: do not replay before an
    /// `update` has succeeded.
    pub fn update(&mut self, dev: &Device, tables: &BatchTables) -> Result<()> {
        self.check_device(dev)?;
        let cap = self.graph.ok_or(Error::InvalidArgument {
            name: "update",
            why: "only graph-mode plans (DecodePlan::for_graphs) can be updated".into(),
        })?;
        let q_lens = tables.validate(&self.user)?;
        if q_lens.len() > cap.max_requests as usize {
            return Err(Error::InvalidArgument {
                name: "batch",
                why: format!("{} requests, capacity {}", q_lens.len(), cap.max_requests),
            });
        }
        if let Some((r, &q)) = q_lens
            .iter()
            .enumerate()
            .find(|(_, &q)| q > cap.max_new_tokens)
        {
            return Err(Error::NewTokens {
                request: r,
                q_len: q,
            });
        }
        let entries = tables.page_indptr[q_lens.len()];
        if entries > cap.max_page_entries {
            return Err(Error::InvalidArgument {
                name: "page_indices",
                why: format!("{entries} entries, capacity {}", cap.max_page_entries),
            });
        }
        let mut plan = Self::plan_batch(
            dev,
            &self.cfg,
            tables,
            &q_lens,
            (self.m_tiles, self.ctas_per_sm),
            // Within the captured grid, less the tail split's reserve.
            PlanMode::Graph {
                max_ctas: self.dims.grid.0 as u64 - self.graph_tail_reserve,
                cluster_capacity: &self.graph_group_capacity,
            },
        );
        // Groups dividing the launch's cluster size (the capacity has zeros elsewhere).
        let group = Self::cluster_merge(&mut plan, &self.graph_group_capacity);
        // The work list fills the decode grid; the merge list holds the capacity's blocks (the
        // combine grid is `combine_parts` CTAs per block).
        let (work_cap, merge_cap) = (
            self.dims.grid.0 as usize,
            self.combine_dims
                .map_or(0, |d| (d.grid.0 / self.combine_parts.max(1)) as usize),
        );
        if plan.work.len() > work_cap || plan.merge.len() > merge_cap {
            return Err(Error::InvalidArgument {
                name: "batch",
                why: format!(
                    "planned {} CTAs / {} merges, the graph was sized for {work_cap} / {merge_cap}",
                    plan.work.len(),
                    plan.merge.len()
                ),
            });
        }
        self.bufs.fill(dev, tables, &plan, group)?;
        self.graph_group = group;
        self.total_tokens = *tables.q_indptr.last().unwrap() as usize;
        self.plan_requests = q_lens.len();
        self.plan = plan;
        Ok(())
    }

    /// Kernel variant for `m_tiles` (narrow or not, paired or not; row groups from the
    /// config): name, launch shape (grid still 0), resident CTAs per SM, rows per TMA box (0:
    /// no TMA tiles). A narrow variant has the geometry of its 16-row one, a paired one its own
    /// ring.
    fn variant(
        dev: &Device,
        cfg: &DecodeConfig,
        m_tiles: u32,
        narrow: bool,
        paired: bool,
    ) -> Result<(&'static str, LaunchDims, u32, u32)> {
        let row_groups = cfg.row_groups_for(m_tiles);
        let wgmma = wgmma_variant(dev.arch(), cfg, m_tiles, row_groups);
        let name = kernel_name(cfg, m_tiles, row_groups, narrow, wgmma, paired);
        let geo = if wgmma {
            geometry_wgmma(cfg.head_dim, cfg.operand_types().1.bytes())
        } else if paired {
            geometry_paired(cfg.head_dim, cfg.operand_types().1.bytes())
        } else {
            geometry_rows(
                cfg.tile_head_dim(),
                cfg.operand_types().1.bytes(),
                m_tiles,
                row_groups,
                narrow,
            )
        };
        let dims = LaunchDims {
            grid: (0, 1, 1),
            block_threads: geo.threads(),
            smem_bytes: geo.smem().total_bytes,
        };
        let ctas_per_sm = launch::prepare(dev, name, dims.block_threads, dims.smem_bytes)?;
        // (The padded variants copy part of each tile row: no TMA boxes there.)
        let tma_box_tokens =
            if cfg.tma != Some(false) && !cfg.padded() && dev.arch() == crate::ModuleArch::Sm90a {
                geo.tma_box_tokens(cfg.page_size, cfg.kv_layout == KvLayout::Nhd)
            } else {
                0
            };
        Ok((name, dims, ctas_per_sm, tma_box_tokens))
    }

    /// For the split model: clusters of `n` CTAs of the decode variant the device holds at once,
    /// indexed by `n` up to the configured largest cluster; empty where the config or the arch
    /// rules cluster merge out (See Note [cluster merge] in docs/DESIGN.md).
    fn cluster_capacities(
        dev: &Device,
        cfg: &DecodeConfig,
        kernel: &'static str,
        dims: LaunchDims,
    ) -> Result<Vec<u32>> {
        if !cfg.cluster_merge || dev.arch() == crate::ModuleArch::Sm80 {
            return Ok(Vec::new());
        }
        let max = cfg.max_cluster_splits.min(MAX_CLUSTER_SPLITS);
        (0..=max)
            .map(|n| {
                if n < 2 {
                    Ok(0)
                } else {
                    launch::max_active_clusters(dev, kernel, dims, n)
                }
            })
            .collect()
    }

    /// Cluster-merge mode for `plan` where the config, the arch and the plan allow it and the
    /// device can hold such a cluster (`capacity`, from [`Self::cluster_capacities`]: empty
    /// where the config or the arch rules it out): reorders the work list into clusters and
    /// returns the cluster size; 0 otherwise (See Note [cluster merge] in docs/DESIGN.md).
    fn cluster_merge(plan: &mut Plan, capacity: &[u32]) -> u32 {
        let Some(max) = capacity.len().checked_sub(1) else {
            return 0;
        };
        let Some((n, work)) = crate::plan::cluster_order(plan, max as u32) else {
            return 0;
        };
        // The kernel merges at most MAX_CLUSTER_SPLITS partials per cluster.
        assert!((2..=MAX_CLUSTER_SPLITS).contains(&n));
        // Only when every cluster is resident at once: clusters live inside one GPC, so the
        // slots of a GPC that do not make a whole cluster stay empty, and a grid that filled one
        // wave unclustered can need two (session 6: W2's 64 clusters of 4 ran in two waves,
        // 96 us instead of 68).
        if (capacity[n as usize] as usize) < plan.merge.len() {
            return 0;
        }
        plan.work = work;
        n
    }

    /// Clusters of `n` CTAs of this plan's decode variant that the device holds at once
    /// (diagnostics: cluster-merge mode needs all of a plan's clusters resident).
    pub fn cluster_capacity(&self, dev: &Device, n: u32) -> Result<u32> {
        launch::max_active_clusters(dev, self.decode_kernel, self.dims, n)
    }

    /// Rows per TMA box when the decode kernel copies whole K/V tiles by tensor maps
    /// ([`DecodeConfig::tma`]), 0 when every tile goes by `cp.async`.
    pub fn tma_box_tokens(&self) -> u32 {
        self.tma_box_tokens
    }

    /// Splits per block merged in a cluster when split-KV partials are merged in clusters
    /// ([`DecodeConfig::cluster_merge`]; graph mode: the batch's groups), 0 when the combine
    /// kernel merges them.
    pub fn cluster_splits(&self) -> u32 {
        self.merge_groups()
    }

    /// Cluster size of the decode grid's launch, 0 without clusters (direct plans: as
    /// [`cluster_splits`](Self::cluster_splits); graph plans: fixed for the capacity,
    /// [`DecodeConfig::graph_cluster`]).
    pub fn launch_cluster(&self) -> u32 {
        self.cluster
    }

    fn merge_groups(&self) -> u32 {
        if self.graph.is_some() {
            self.graph_group
        } else {
            self.cluster
        }
    }

    /// Graph plans' cluster size ([`DecodeConfig::graph_cluster`]) for `cap`: automatic, the
    /// split count of the capacity's own batch (`max_requests` requests of
    /// `max_page_entries / max_requests` pages and `max_new_tokens` new tokens each) where the
    /// direct planner merges it in clusters, within the graph's grid (`max_ctas`), and the
    /// device holds a whole wave in such clusters; 0 where that batch goes to the combine, a
    /// wave in those clusters loses slots, or the config or the arch rule clusters out.
    fn graph_cluster_size(
        dev: &Device,
        cfg: &DecodeConfig,
        cap: GraphCapacity,
        (m_tiles, ctas_per_sm): (u32, u32),
        (kernel, dims): (&'static str, LaunchDims),
        max_ctas: u64,
    ) -> Result<u32> {
        let capacity = Self::cluster_capacities(dev, cfg, kernel, dims)?;
        let Some(max) = capacity.len().checked_sub(1) else {
            return Ok(0);
        };
        if let Some(n) = cfg.graph_cluster {
            let n = n.min(max as u32);
            // `Some(0)`, `Some(1)` or `max_cluster_splits` below 2: no clusters (as in direct
            // plans).
            if n < 2 {
                return Ok(0);
            }
            // A size the device cannot hold even once would fail at launch (a driver error
            // from inside a captured graph): refuse it here, before any allocation.
            if capacity[n as usize] == 0 {
                return Err(Error::InvalidArgument {
                    name: "graph_cluster",
                    why: format!("the device cannot run clusters of {n} CTAs of {kernel}"),
                });
            }
            return Ok(n);
        }
        let requests = cap.max_requests as usize;
        let pages = cap.max_page_entries / cap.max_requests;
        let kv_len = (pages as u64 * cfg.page_size as u64).min(MAX_KV_LEN as u64) as u32;
        let q_len = cap.max_new_tokens.min(kv_len);
        if q_len == 0 {
            return Ok(0);
        }
        let q_lens = vec![q_len; requests];
        let kv_lens = vec![kv_len; requests];
        let q_indptr: Vec<u32> = (0..=requests as u32).map(|r| r * q_len).collect();
        let page_indptr: Vec<u32> = (0..=requests as u32).map(|r| r * pages).collect();
        let tables = BatchTables {
            q_indptr: &q_indptr,
            kv_lens: &kv_lens,
            page_indptr: &page_indptr,
            page_indices: &[],
        };
        // Planned as a graph batch (within `max_ctas`) offered the direct plans' clusters.
        let plan = Self::plan_batch(
            dev,
            cfg,
            &tables,
            &q_lens,
            (m_tiles, ctas_per_sm),
            PlanMode::Graph {
                max_ctas,
                cluster_capacity: &capacity,
            },
        );
        // Only sizes that lose no slot of a wave to the GPCs' leftovers: the batches that go to
        // the combine run in the same clusters (session 51: W1 in a grid of clusters of 7,
        // which hold fewer CTAs at once than one wave, 48.7 -> 58.3 us).
        let wave = dev.caps().sm_count as u64 * ctas_per_sm as u64;
        Ok(match crate::plan::cluster_order(&plan, max as u32) {
            Some((n, _))
                if capacity[n as usize] as usize >= plan.merge.len()
                    && capacity[n as usize] as u64 * n as u64 >= wave =>
            {
                n
            }
            _ => 0,
        })
    }

    /// Combine CTAs per split block ([`crate::plan::combine_parts`]); meaningful when the
    /// combine kernel runs.
    pub fn combine_parts(&self) -> u32 {
        self.combine_parts
    }

    fn combine_kernel(cfg: &DecodeConfig) -> &'static str {
        if cfg.dtype == Dtype16::F16 {
            names::COMBINE_F16
        } else {
            names::COMBINE_BF16
        }
    }

    fn plan_batch(
        dev: &Device,
        cfg: &DecodeConfig,
        t: &BatchTables,
        q_lens: &[u32],
        (m_tiles, ctas_per_sm): (u32, u32),
        mode: PlanMode,
    ) -> Plan {
        let (cluster_capacity, max_ctas) = match mode {
            PlanMode::Direct { cluster_capacity } => (cluster_capacity, None),
            PlanMode::Graph {
                max_ctas,
                cluster_capacity,
            } => (cluster_capacity, Some(max_ctas)),
        };
        let p = plan(&PlanInput {
            q_indptr: t.q_indptr,
            page_indptr: t.page_indptr,
            q_lens,
            kv_lens: t.kv_lens,
            q_heads: cfg.q_heads,
            kv_heads: cfg.kv_heads,
            head_dim: cfg.head_dim,
            kv_elem_bytes: cfg.operand_types().1.bytes(),
            sm_count: dev.caps().sm_count,
            ctas_per_sm,
            splits: cfg.splits,
            m_tiles: Some(m_tiles),
            tail: cfg.tail,
            balance: cfg.balance,
            cluster_capacity,
            max_ctas,
        });
        debug_assert_eq!(p.m_tiles, m_tiles);
        p
    }

    /// A zeroed [`Timeline`] sized for this plan's grids (diagnostics).
    pub fn new_timeline(&self, dev: &Device) -> Result<Timeline> {
        let s = dev.stream();
        let words = |grid: u32| (grid * TIMELINE_WORDS).max(1) as usize;
        let combine_grid = self.combine_dims.map_or(0, |d| d.grid.0);
        let decode_grid = self.dims.grid.0;
        Ok(Timeline {
            decode_grid: decode_grid as usize,
            decode: s
                .alloc_zeros(words(decode_grid) + (decode_grid * TIMELINE_TILE_WORDS) as usize)
                .map_err(Error::driver("alloc timeline"))?,
            combine: s
                .alloc_zeros(words(combine_grid))
                .map_err(Error::driver("alloc timeline"))?,
        })
    }

    /// Stamp every following launch into `t` (`None`: stop). The timeline must come from
    /// [`new_timeline`](Self::new_timeline) of this plan and outlive the launches.
    pub fn set_timeline(&mut self, dev: &Device, t: Option<&Timeline>) {
        let s = dev.stream();
        self.timeline = t.map_or((NONE_ADDR, NONE_ADDR), |t| {
            (t.decode.device_ptr(s).0, t.combine.device_ptr(s).0)
        });
    }

    /// The host-side plan (work list, merge list).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
    /// The configuration (the user's: the shapes of the tensors `run` takes).
    pub fn config(&self) -> &DecodeConfig {
        &self.user
    }
    /// The configuration the kernels run: [`Self::config`], or its kv-head-pair view
    /// ([`DecodeConfig::kernel_view`]).
    pub fn kernel_config(&self) -> &DecodeConfig {
        &self.cfg
    }
    /// Tokens in the batch.
    pub fn total_tokens(&self) -> usize {
        self.total_tokens
    }
    /// Rows `q` and `o` must have: the batch's tokens, or the capacity's in graph mode.
    pub fn token_rows(&self) -> usize {
        self.graph.map_or(self.total_tokens, |c| c.max_tokens())
    }
    /// Name of the decode kernel variant the plan launches.
    pub fn kernel(&self) -> &'static str {
        self.decode_kernel
    }
    /// Resident CTAs per SM of that kernel (occupancy the planner used).
    pub fn ctas_per_sm(&self) -> u32 {
        self.ctas_per_sm
    }
    /// The split model's estimate of this plan, in tile-times: one tile-time is what a CTA
    /// takes to stream one 64-key tile of K and V while `sm_count * ctas_per_sm` CTAs stream at
    /// the read ceiling (See Note [split heuristic] in docs/DESIGN.md).
    pub fn model_estimate_tiles(&self, dev: &Device) -> f64 {
        crate::plan::estimate_plan_tiles(
            &self.plan,
            self.cfg.head_dim,
            dev.caps().sm_count,
            self.ctas_per_sm,
            self.merge_groups() > 0,
        )
    }
    /// Bytes of K and V in one 64-key tile of one kv head.
    pub fn kv_tile_bytes(&self) -> u64 {
        let elem = if self.cfg.kv_fp8.is_some() { 1 } else { 2 };
        2 * KV_TILE_TOKENS as u64 * self.cfg.head_dim as u64 * elem
    }

    /// Run on cudarc buffers (on `dev`'s stream). Validates every tensor first.
    pub fn run<Q: 'static, KV: 'static, O: 'static>(
        &self,
        dev: &Device,
        t: DecodeTensors<'_, Q, KV, O>,
    ) -> Result<()> {
        self.check_device(dev)?;
        let s = dev.stream();
        let ctx = dev.context();
        let check = |name: &'static str,
                     same: bool,
                     len: usize,
                     elem: usize,
                     expected: usize,
                     elem_need: usize|
         -> Result<()> {
            if !same {
                return Err(Error::WrongDevice { name });
            }
            if elem != elem_need {
                return Err(Error::DtypeMismatch {
                    name,
                    got_bytes: elem,
                    need_bytes: elem_need,
                });
            }
            if len != expected {
                return Err(Error::ShapeMismatch {
                    name,
                    got: len,
                    expected,
                });
            }
            Ok(())
        };
        let (eq, ekv, eo) = (
            std::mem::size_of::<Q>(),
            std::mem::size_of::<KV>(),
            std::mem::size_of::<O>(),
        );
        let (q_elem, kv_elem, o_elem) = self.cfg.operand_types();
        for (name, got, need) in [
            ("q", half_format::<Q>(), q_elem),
            ("k_pool", half_format::<KV>(), kv_elem),
            ("v_pool", half_format::<KV>(), kv_elem),
            ("o", half_format::<O>(), o_elem),
        ] {
            match got {
                Some(g) if g != need && g.bytes() == need.bytes() => {
                    return Err(Error::ElemMismatch {
                        name,
                        got: g.name(),
                        need: need.name(),
                    })
                }
                _ => {}
            }
        }
        // The kernels' u32 row index (also what keeps `tensor_elems` from overflowing).
        check_row_index("q", self.token_rows(), self.cfg.q_heads)?;
        let n = self.tensor_elems();
        let same = |c: &std::sync::Arc<cudarc::driver::CudaContext>| c.cu_ctx() == ctx.cu_ctx();
        check(
            "q",
            same(t.q.context()),
            t.q.len(),
            eq,
            n.q_o,
            q_elem.bytes() as usize,
        )?;
        check(
            "k_pool",
            same(t.k_pool.context()),
            t.k_pool.len(),
            ekv,
            n.pool,
            kv_elem.bytes() as usize,
        )?;
        check(
            "v_pool",
            same(t.v_pool.context()),
            t.v_pool.len(),
            ekv,
            n.pool,
            kv_elem.bytes() as usize,
        )?;
        check(
            "o",
            same(t.o.context()),
            t.o.len(),
            eo,
            n.q_o,
            o_elem.bytes() as usize,
        )?;
        if let Some(l) = &t.lse {
            check("lse", same(l.context()), l.len(), 4, n.lse, 4)?;
        }
        if let Some(x) = &t.sinks {
            check("sinks", same(x.context()), x.len(), 4, n.sinks, 4)?;
        }
        for (name, x) in [
            ("q_scale", &t.q_scale),
            ("k_scale", &t.k_scale),
            ("v_scale", &t.v_scale),
        ] {
            if let Some(x) = x {
                check(name, same(x.context()), x.len(), 4, n.scale, 4)?;
            }
        }
        let (q, _g1) = t.q.device_ptr(s);
        let (k, _g2) = t.k_pool.device_ptr(s);
        let (v, _g3) = t.v_pool.device_ptr(s);
        let (o, _g4) = t.o.device_ptr_mut(s);
        let lse_g = t.lse.map(|l| l.device_ptr_mut(s));
        let sinks_g = t.sinks.map(|x| x.device_ptr(s));
        let qs_g = t.q_scale.map(|x| x.device_ptr(s));
        let ks_g = t.k_scale.map(|x| x.device_ptr(s));
        let vs_g = t.v_scale.map(|x| x.device_ptr(s));
        let raw = RawTensors {
            q,
            k_pool: k,
            v_pool: v,
            o,
            lse: lse_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            sinks: sinks_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            q_scale: qs_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            k_scale: ks_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            v_scale: vs_g.as_ref().map_or(NONE_ADDR, |g| g.0),
        };
        self.launch(dev, raw, s.cu_stream())
    }

    /// Entries of each scale table: 1, `kv_heads`, or `requests * kv_heads` (the capacity's
    /// `max_requests` in graph mode), by the config's [`ScaleLayout`].
    pub fn scale_len(&self) -> usize {
        let kvh = self.user.kv_heads as usize;
        match self.user.scales {
            ScaleLayout::PerTensor => 1,
            ScaleLayout::PerKvHead => kvh,
            ScaleLayout::PerRequestKvHead => {
                kvh * self
                    .graph
                    .map_or(self.plan_requests, |c| c.max_requests as usize)
            }
        }
    }

    /// Run on raw device addresses, for callers of other CUDA crates.
    ///
    /// # Safety
    /// Every non-zero address in `raw` must point to live device memory of `dev`'s context with
    /// the shape the plan's config gives (see the module doc), and `stream` must be a stream
    /// of that context. Alignment is checked here, and that O and LSE (as large as the plan
    /// says) overlap no input and each other (no in-place output); sizes and liveness cannot
    /// be. With the
    /// config's `early_kv` (the default), the kernel before the call on `stream` must not
    /// write K/V rows older than each request's new tokens (See [`DecodeConfig::early_kv`]).
    pub unsafe fn run_raw(
        &self,
        dev: &Device,
        raw: RawTensors,
        stream: cudarc::driver::sys::CUstream,
    ) -> Result<()> {
        self.check_device(dev)?;
        for (name, a) in [
            ("q", raw.q),
            ("k_pool", raw.k_pool),
            ("v_pool", raw.v_pool),
            ("o", raw.o),
        ] {
            if a == 0 {
                return Err(Error::InvalidArgument {
                    name,
                    why: "null device address".into(),
                });
            }
        }
        self.launch(dev, raw, stream)
    }

    /// Elements of each tensor of a call as the plan's config gives them: what [`Self::run`]
    /// checks the buffers' lengths against and the overlap check takes the bytes of.
    fn tensor_elems(&self) -> TensorElems {
        let rows = self.token_rows() * self.user.q_heads as usize;
        TensorElems {
            q_o: rows * self.user.head_dim as usize,
            pool: self.user.pool_elems(),
            lse: rows,
            sinks: self.user.q_heads as usize,
            scale: self.scale_len(),
        }
    }

    /// O and LSE must not overlap an input or each other (`InvalidArgument` naming the
    /// output): other CTAs read Q, the pools, sinks and scales while O and LSE are written (an
    /// fp8 Q under its 2-byte O rows would lose other rows' queries). The safe [`Self::run`]
    /// cannot alias (its borrows); [`Self::run_raw`] is checked here, from the sizes the plan
    /// gives each tensor ([`Self::tensor_elems`]).
    fn check_outputs_disjoint(&self, raw: &RawTensors) -> Result<()> {
        let (q_elem, kv_elem, o_elem) = self.cfg.operand_types();
        let n = self.tensor_elems();
        let bytes = |elems: usize, elem_bytes: u32| elems as u64 * elem_bytes as u64;
        let pool = bytes(n.pool, kv_elem.bytes());
        let scale = bytes(n.scale, 4);
        let inputs = [
            ("q", raw.q, bytes(n.q_o, q_elem.bytes())),
            ("k_pool", raw.k_pool, pool),
            ("v_pool", raw.v_pool, pool),
            ("sinks", raw.sinks, bytes(n.sinks, 4)),
            ("q_scale", raw.q_scale, scale),
            ("k_scale", raw.k_scale, scale),
            ("v_scale", raw.v_scale, scale),
        ];
        let outputs = [
            ("o", raw.o, bytes(n.q_o, o_elem.bytes())),
            ("lse", raw.lse, bytes(n.lse, 4)),
        ];
        match first_overlap(&outputs, &inputs) {
            Some((name, other)) => Err(Error::InvalidArgument {
                name,
                why: format!("overlaps {other}"),
            }),
            None => Ok(()),
        }
    }

    /// [`Error::WrongDevice`] "plan" unless `dev` is the device the plan was built on.
    fn check_device(&self, dev: &Device) -> Result<()> {
        if dev.key() == self.device {
            Ok(())
        } else {
            Err(Error::WrongDevice { name: "plan" })
        }
    }

    fn params(&self, raw: RawTensors) -> Result<DecodeParams> {
        for (name, a, align) in [
            ("q", raw.q, 16),
            ("k_pool", raw.k_pool, 16),
            ("v_pool", raw.v_pool, 16),
            ("o", raw.o, 16),
            ("lse", raw.lse, 4),
            ("sinks", raw.sinks, 4),
            ("q_scale", raw.q_scale, 4),
            ("k_scale", raw.k_scale, 4),
            ("v_scale", raw.v_scale, 4),
        ] {
            if a % align != 0 {
                return Err(Error::Misaligned {
                    name,
                    addr: a,
                    align,
                });
            }
        }
        check_row_index("q", self.token_rows(), self.cfg.q_heads)?;
        self.check_outputs_disjoint(&raw)?;
        let c = &self.cfg;
        let layout = c.layout();
        let (score_scale, softcap_log2) = c.score_scales();
        Ok(DecodeParams {
            q: raw.q,
            k_pool: raw.k_pool,
            v_pool: raw.v_pool,
            o: raw.o,
            lse: raw.lse,
            page_indptr: 0,
            page_indices: 0,
            kv_lens: 0,
            q_indptr: 0,
            work: 0,
            merge: 0,
            partial_o: 0,
            partial_lse: 0,
            sinks: raw.sinks,
            q_scale: raw.q_scale,
            k_scale: raw.k_scale,
            v_scale: raw.v_scale,
            num_work_dev: if self.graph.is_some() {
                self.bufs.addr.counts
            } else {
                NONE_ADDR
            },
            num_merge_dev: if self.graph.is_some() {
                self.bufs.addr.counts + 4
            } else {
                NONE_ADDR
            },
            timeline_decode: self.timeline.0,
            timeline_combine: self.timeline.1,
            num_work: self.plan.work.len() as u32,
            num_merge: self.plan.merge.len() as u32,
            q_heads: c.q_heads,
            kv_heads: c.kv_heads,
            group: c.q_heads / c.kv_heads,
            page_size: c.page_size,
            head_dim: c.head_dim,
            rows_per_block: self.plan.rows_per_block(),
            score_scale,
            softcap_log2,
            window_left: c
                .window_left
                .map_or(NO_WINDOW, |w| w.min(i32::MAX as u32) as i32),
            // (The scale tables are the user's: indexed by real kv heads in the pair view too.)
            scale_request_stride: if c.scales == ScaleLayout::PerRequestKvHead {
                self.user.kv_heads
            } else {
                0
            },
            scale_head_stride: if c.scales == ScaleLayout::PerTensor {
                0
            } else {
                1
            },
            cluster_splits: self.cluster,
            combine_parts: self.combine_parts,
            kv_slot_stride_rows: layout.slot_stride_rows(),
            kv_head_stride_rows: layout.head_stride_rows(),
            group_magic: ferroflash_contract::params::group_magic(c.q_heads / c.kv_heads),
            tma_box_tokens: self.tma_box_tokens,
            next_wave_ctas: if c.next_wave_prefetch == Some(false) {
                0
            } else {
                self.wave_ctas
            },
            early_kv: c.early_kv as u32,
            o_head_dim: self.user.head_dim,
            k_map: self.kv_map(raw.k_pool)?,
            v_map: self.kv_map(raw.v_pool)?,
        })
    }

    /// The tensor map of a K or V pool at `pool` for the TMA tiles (See Note [TMA tiles] in
    /// docs/DESIGN.md), or zeros when the plan has none: dims (head dim, kv head, token in
    /// page, page) of the NHD pool, innermost first; box (128 bytes of head dim, 1,
    /// `tma_box_tokens`, 1); 128-byte swizzle, the ring's column-block layout.
    fn kv_map(&self, pool: u64) -> Result<TensorMap> {
        use cudarc::driver::sys;
        let rows = self.tma_box_tokens;
        if rows == 0 {
            return Ok(TensorMap::default());
        }
        let c = &self.cfg;
        let eb = c.operand_types().1.bytes() as u64;
        let dims: [u64; 4] = [
            c.head_dim as u64,
            c.kv_heads as u64,
            c.page_size as u64,
            c.num_pages as u64,
        ];
        let row = c.head_dim as u64 * eb;
        let strides: [u64; 3] = [
            row,
            row * c.kv_heads as u64,
            row * c.kv_heads as u64 * c.page_size as u64,
        ];
        let boxes: [u32; 4] = [(128 / eb) as u32, 1, rows, 1];
        let elem_strides = [1u32; 4];
        let dtype = if eb == 2 {
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16
        } else {
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8
        };
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: every array has the rank's length; the driver only encodes (no device access).
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                dtype,
                4,
                pool as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                elem_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if r != sys::cudaError_enum::CUDA_SUCCESS {
            return Err(Error::Driver {
                op: "cuTensorMapEncodeTiled",
                msg: format!("{r:?}"),
            });
        }
        Ok(TensorMap(map.opaque))
    }

    fn launch(
        &self,
        dev: &Device,
        raw: RawTensors,
        stream: cudarc::driver::sys::CUstream,
    ) -> Result<()> {
        let mut p = self.params(raw)?;
        let a = self.bufs.addr;
        (
            p.page_indptr,
            p.page_indices,
            p.kv_lens,
            p.q_indptr,
            p.work,
            p.merge,
            p.partial_o,
            p.partial_lse,
        ) = (
            a.page_indptr,
            a.page_indices,
            a.kv_lens,
            a.q_indptr,
            a.work,
            a.merge,
            a.partial_o,
            a.partial_lse,
        );
        // The plan's tables were validated against `cfg` (and the capacity) when they were
        // planned; `params` checked alignment; the tensors' sizes were checked by `run` (or are
        // the `run_raw` caller's contract).
        launch::decode(
            dev,
            (self.decode_kernel, self.dims, self.cluster),
            self.combine_dims.map(|d| (self.combine_kernel, d)),
            stream,
            &p,
        )
    }
}

/// Plan and run in one call (for a batch decoded once; keep a [`DecodePlan`] to reuse it).
pub fn decode<Q: 'static, KV: 'static, O: 'static>(
    dev: &Device,
    cfg: &DecodeConfig,
    tables: &BatchTables,
    tensors: DecodeTensors<'_, Q, KV, O>,
) -> Result<DecodePlan> {
    let plan = DecodePlan::new(dev, cfg, tables)?;
    plan.run(dev, tensors)?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> DecodeConfig {
        DecodeConfig::new(32, 8, 128, 16, 10, Dtype16::Bf16)
    }
    fn tables<'a>(q: &'a [u32], kv: &'a [u32], pi: &'a [u32], idx: &'a [u32]) -> BatchTables<'a> {
        BatchTables {
            q_indptr: q,
            kv_lens: kv,
            page_indptr: pi,
            page_indices: idx,
        }
    }

    /// Every layout a variant can have: (m16 tiles, row groups, narrow).
    const LAYOUTS: [(u32, u32, bool); 5] = [
        (1, 1, false),
        (1, 1, true),
        (2, 1, false),
        (2, 2, false),
        (4, 4, false),
    ];

    /// Every padded head dim (See Note [padded head dims]) has a `_d{64,128,256}p` variant for
    /// each layout its tile head dim supports (over fp8 K/V too at 80-112), never a wgmma or
    /// paired one.
    #[test]
    fn padded_head_dims_have_variants() {
        let mut checked = 0;
        for head_dim in (16..=256)
            .step_by(16)
            .filter(|d| ![64, 128, 256].contains(d))
        {
            for dtype in [Dtype16::Bf16, Dtype16::F16] {
                let mut c = cfg();
                (c.head_dim, c.dtype) = (head_dim, dtype);
                let tile = c.tile_head_dim();
                // 16-bit K/V, and an fp8 KV cache at 80-112 and 144-240 (tiles of 128, 256).
                let kvs: &[Option<Fp8Format>] = if tile > 64 {
                    &[None, Some(Fp8Format::E4m3), Some(Fp8Format::E5m2)]
                } else {
                    &[None]
                };
                for &kv_fp8 in kvs {
                    c.kv_fp8 = kv_fp8;
                    assert!(c.validate().is_ok() && c.padded());
                    assert!(!wgmma_variant(crate::ModuleArch::Sm90a, &c, 4, 4));
                    assert!(!c.paired_exists(true));
                    for (m, rg, narrow) in LAYOUTS {
                        if !layout_supported(tile, m, rg, narrow) {
                            continue;
                        }
                        let name = kernel_name(&c, m, rg, narrow, false, false);
                        let v = names::VARIANTS.iter().find(|v| v.name == name).unwrap();
                        assert!(
                            v.padded && v.head_dim == tile && !v.wgmma && !v.paired,
                            "{name}"
                        );
                        assert!(name.contains(&format!("_d{tile}p_")), "{name}");
                        assert_eq!(v.kv, c.operand_types().1, "{name}");
                        checked += 1;
                    }
                }
            }
        }
        // 2 dtypes x (16, 32, 48 in 5 layouts; 80, 96, 112 in 5 layouts over three K/V
        // formats; 144 ..= 240 in 4 over three).
        assert_eq!(checked, 2 * (3 * 5 + 3 * 3 * 5 + 7 * 4 * 3));
    }

    /// Kv-head pairs (See Note [kv-head pairs] in docs/DESIGN.md): for every head dim, K/V
    /// format, layout, kv-head count and arch, the view exists exactly where the rule says,
    /// has half the kv heads at twice the head dim, the user's softmax scale and the padded
    /// variants, every layout of which is in that arch's module; the automatic rule takes
    /// misaligned rows whose pair's rows fit one CTA, and `Some(false)` never pairs.
    #[test]
    fn kv_head_pair_views() {
        use crate::ModuleArch;
        let mut paired = 0;
        for arch in ModuleArch::ALL {
            for head_dim in (16..=256).step_by(16) {
                for kv_fp8 in [None, Some(Fp8Format::E4m3), Some(Fp8Format::E5m2)] {
                    for (kv_heads, layout) in [
                        (8, KvLayout::Nhd),
                        (3, KvLayout::Nhd),
                        (2, KvLayout::Hnd),
                        (2, KvLayout::Nhd),
                    ] {
                        let mut c = DecodeConfig::new(
                            4 * kv_heads,
                            kv_heads,
                            head_dim,
                            16,
                            10,
                            Dtype16::Bf16,
                        );
                        (c.kv_fp8, c.kv_layout) = (kv_fp8, layout);
                        if c.validate().is_err() {
                            continue;
                        }
                        let possible = c.kv_pairs_possible(arch);
                        let fp8_ok = kv_fp8.is_none()
                            || (matches!(head_dim, 64 | 80 | 96 | 112) && arch != ModuleArch::Sm80);
                        assert_eq!(
                            possible,
                            layout == KvLayout::Nhd
                                && kv_heads % 2 == 0
                                && head_dim <= 128
                                && fp8_ok,
                            "{c:?} {arch:?}"
                        );
                        let row_bytes = head_dim * c.operand_types().1.bytes();
                        // (rows, tiles per SM on 132 SMs, kv_head_pairs)
                        for (rows, per_sm, want) in [
                            (4, 1, None),
                            (8, 63, None),
                            (8, 64, None),
                            (8, 119, None),
                            (8, 120, None),
                            (32, 64, None),
                            (33, 64, None),
                            (40, 1, Some(true)),
                            (4, 1, Some(false)),
                        ] {
                            c.kv_head_pairs = want;
                            let v = c.kernel_view(arch, rows, per_sm * 132, 132);
                            let rows_ok = match kv_fp8 {
                                None => rows <= 32,
                                Some(_) => {
                                    let min = if head_dim == 64 {
                                        PAIR_FP8_MIN_TILES_PER_SM
                                    } else {
                                        PAIR_FP8_WIDE_MIN_TILES_PER_SM
                                    };
                                    rows <= 4 || (rows <= 8 && per_sm >= min)
                                }
                            };
                            let expect = possible
                                && want.unwrap_or(!row_bytes.is_multiple_of(128) && rows_ok);
                            assert_eq!(v.is_kv_pair_view(), expect, "{c:?} rows {rows}");
                            if !expect {
                                assert_eq!(v, c);
                                continue;
                            }
                            paired += 1;
                            assert_eq!(
                                (v.kv_heads, v.head_dim, v.q_heads),
                                (kv_heads / 2, 2 * head_dim, c.q_heads)
                            );
                            assert_eq!(v.score_scales(), c.score_scales());
                            assert_eq!(v.pool_elems(), c.pool_elems());
                            assert!(v.padded() && !v.kv_pairs_possible(arch));
                            for (m, rg, narrow) in LAYOUTS {
                                if !layout_supported(v.tile_head_dim(), m, rg, narrow) {
                                    continue;
                                }
                                // The variant choice of `DecodePlan::variant`: no wgmma or paired
                                // tiles at padded views.
                                let (wg, pt) =
                                    (wgmma_variant(arch, &v, m, rg), v.paired_exists(narrow));
                                let name = kernel_name(&v, m, rg, narrow, wg, pt);
                                let var = names::VARIANTS.iter().find(|x| x.name == name).unwrap();
                                let set = ferroflash_contract::names::all_entries()
                                    .find(|e| e.0 == name)
                                    .unwrap()
                                    .1;
                                assert!(var.padded && arch.carries(set), "{name} on {arch:?}");
                            }
                        }
                    }
                }
            }
        }
        // Per arch: 16-bit at 16..=128 (8 head dims) x two NHD even-kv-head shapes x the
        // cases that pair (misaligned: 7 of 9; aligned 64 and 128: 1 of 9), and fp8 at 64
        // (64-byte rows: 4, 8 at 64, 119 and 120 per SM, forced; 5 of 9) and 80, 96, 112 (4, 8
        // at 120 per SM into the one-CTA-per-SM `_d256p_m16`, forced: 3 of 9) on sm_90a /
        // sm_100a (2 formats x 2 shapes).
        assert_eq!(paired, 3 * 2 * (6 * 7 + 2) + 2 * 2 * 2 * (5 + 3 * 3));
    }

    /// Every mode and head dim at 64 rows per CTA: the wgmma rule picks `_g64` exactly where
    /// the sm_90a module has one, and `_w64` otherwise (`kernel_name` finds both).
    #[test]
    fn wgmma_rule_matches_the_variants() {
        use crate::ModuleArch::{Sm80, Sm90a};
        let mut checked = 0;
        for head_dim in [64, 128, 256] {
            for dtype in [Dtype16::Bf16, Dtype16::F16] {
                for kv_fp8 in [None, Some(Fp8Format::E4m3), Some(Fp8Format::E5m2)] {
                    for &q_fp8 in if kv_fp8.is_some() {
                        &[false, true][..]
                    } else {
                        &[false]
                    } {
                        let mut c = cfg();
                        (c.head_dim, c.dtype, c.kv_fp8, c.q_fp8) = (head_dim, dtype, kv_fp8, q_fp8);
                        if c.validate().is_err() {
                            continue; // all-FP8 with an f16 output has no kernels
                        }
                        let (q, kv, out) = c.operand_types();
                        let has_g64 = names::VARIANTS.iter().any(|v| {
                            v.wgmma && (v.q, v.kv, v.out, v.head_dim) == (q, kv, out, head_dim)
                        });
                        assert_eq!(wgmma_variant(Sm90a, &c, 4, 4), has_g64, "{c:?}");
                        assert!(!wgmma_variant(Sm80, &c, 4, 4) && !wgmma_variant(Sm90a, &c, 2, 2));
                        let name = kernel_name(&c, 4, 4, false, has_g64, false);
                        assert!(
                            name.ends_with(if has_g64 { "_g64" } else { "_w64" }),
                            "{name}"
                        );
                        c.wgmma = Some(false);
                        assert!(!wgmma_variant(Sm90a, &c, 4, 4));
                        checked += 1;
                    }
                }
            }
        }
        // Per head dim: bf16 and f16 over 16-bit, e4m3 and e5m2 K/V, and bf16-output all-FP8.
        assert_eq!(checked, 3 * 8);
        let g64_at = |d: u32| -> Vec<&str> {
            names::VARIANTS
                .iter()
                .filter(|v| v.wgmma && v.head_dim == d)
                .map(|v| v.name)
                .collect()
        };
        assert_eq!(
            g64_at(256),
            ["ff_decode_bf16_d256_g64", "ff_decode_f16_d256_g64"]
        );
        assert_eq!(
            g64_at(64),
            ["ff_decode_bf16_d64_g64", "ff_decode_f16_d64_g64"]
        );
    }

    /// Lengths over the kernels' limit (`i32` key positions, `u32` planner token counts) get a
    /// typed error, even where the pages would hold them (repeated page ids are legal).
    #[test]
    fn kv_len_over_the_limit() {
        let mut c = cfg();
        c.page_size = 1 << 20;
        let idx = vec![0u32; 4096];
        for kv_len in [MAX_KV_LEN + 1, 1 << 31, u32::MAX] {
            assert_eq!(
                tables(&[0, 1], &[kv_len], &[0, 4096], &idx).validate(&c),
                Err(Error::KvLenTooLong {
                    request: 0,
                    kv_len,
                    max: MAX_KV_LEN
                })
            );
        }
        // The limit itself passes (1024 pages of 2^20 keys).
        assert_eq!(
            tables(&[0, 1], &[MAX_KV_LEN], &[0, 1024], &idx[..1024]).validate(&c),
            Ok(vec![1])
        );
    }

    #[test]
    fn outputs_overlapping_inputs() {
        let ins = [("q", 4096, 1024), ("k_pool", 8192, 4096), ("sinks", 0, 64)];
        let outs = |o: u64, lse: u64| [("o", o, 2048), ("lse", lse, 128)];
        // Disjoint, adjacent ranges, and an absent sinks table at address 0.
        assert_eq!(first_overlap(&outs(16384, 5120), &ins), None);
        assert_eq!(first_overlap(&outs(2048, 5120), &ins), None);
        assert_eq!(first_overlap(&outs(16384, 0), &ins), None);
        assert_eq!(first_overlap(&[("o", 0, 2048)], &ins), None);
        // In place over Q, the last byte of a pool, and over each other.
        assert_eq!(first_overlap(&outs(4096, 0), &ins), Some(("o", "q")));
        assert_eq!(first_overlap(&outs(12287, 0), &ins), Some(("o", "k_pool")));
        assert_eq!(first_overlap(&outs(16384, 17000), &ins), Some(("o", "lse")));
        assert_eq!(first_overlap(&outs(16384, 5119), &ins), Some(("lse", "q")));
        // Near the top of the address space: no wrap-around.
        assert_eq!(
            first_overlap(&[("o", u64::MAX - 8, 64)], &[("q", 64, 64)]),
            None
        );
    }

    #[test]
    fn half_formats() {
        assert_eq!(half_format::<half::bf16>(), Some(Elem::Bf16));
        assert_eq!(half_format::<half::f16>(), Some(Elem::F16));
        assert_eq!(half_format::<u16>(), None);
        assert_eq!(half_format::<u8>(), None);
        assert_eq!(half_format::<f32>(), None);
    }

    #[test]
    fn graph_capacity_sizes() {
        const GIB: u64 = 1 << 30;
        // W3-like: 64 requests x 8 kv heads, 264 CTAs of 16 rows x 128 dims.
        assert!(check_graph_sizes(512, 776, 16, 128, 141 * GIB).is_ok());
        // A workspace over the device's memory (2^24 slots x 64 rows x 256 dims).
        let big = check_graph_sizes(1 << 24, 1 << 24, 64, 256, 141 * GIB);
        assert!(
            matches!(big, Err(Error::InvalidArgument { name: "max_requests", ref why }) if why.contains("workspace")),
            "{big:?}"
        );
        // Grids past 2^31 - 1 CTAs, decode or combine.
        for (blocks, ctas) in [(1 << 27, 1 << 31), (1 << 28, 1 << 28)] {
            let r = check_graph_sizes(blocks, ctas, 16, 128, u64::MAX);
            assert!(
                matches!(r, Err(Error::InvalidArgument { ref why, .. }) if why.contains("grid")),
                "{r:?}"
            );
        }
    }

    #[test]
    fn derived_scales_must_be_finite() {
        let mut c = cfg();
        c.softcap = Some(f32::MAX);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "softcap",
                ..
            })
        ));
        c.softcap = Some(1e-20);
        c.sm_scale = Some(1e20);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "sm_scale",
                ..
            })
        ));
        c.softcap = None;
        c.sm_scale = Some(3e38);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "sm_scale",
                ..
            })
        ));
        c.sm_scale = Some(1e30);
        c.softcap = Some(1e30);
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn graph_capacity_errors() {
        let cap = |max_requests, max_new_tokens| GraphCapacity {
            max_requests,
            max_new_tokens,
            max_page_entries: 1 << 28,
        };
        assert_eq!(cap(0, 1).validate(), Err(Error::EmptyBatch));
        assert_eq!(
            cap(4, 17).validate(),
            Err(Error::NewTokens {
                request: 0,
                q_len: 17
            })
        );
        assert!(matches!(
            cap(1 << 28, 16).validate(),
            Err(Error::InvalidArgument {
                name: "max_requests",
                ..
            })
        ));
        assert_eq!(cap((1 << 28) - 1, 16).validate(), Ok(()));
        assert_eq!(cap(1, 1).validate(), Ok(()));
    }

    #[test]
    fn config_errors() {
        // Head dims: 64, 128, 256, and over 16-bit Q and K/V the padded multiples of 16 up to
        // 256 (See Note [padded head dims]); nothing else.
        for d in [0, 8, 72, 100, 120, 257, 272, 320, 512] {
            let mut c = cfg();
            c.head_dim = d;
            assert_eq!(
                c.validate(),
                Err(Error::UnsupportedHeadDim(d)),
                "head_dim {d}"
            );
        }
        for d in (16..=256).step_by(16) {
            let mut c = cfg();
            c.head_dim = d;
            assert_eq!(c.validate(), Ok(()), "head_dim {d}");
            assert_eq!(c.padded(), ![64, 128, 256].contains(&d));
            let t = c.tile_head_dim();
            assert!([64, 128, 256].contains(&t) && t >= d && (t == 64 || t / 2 < d));
            for fp8 in [Fp8Format::E4m3, Fp8Format::E5m2] {
                c.kv_fp8 = Some(fp8);
                let want = if c.padded() && !matches!(d, 80..=112 | 144..=240) {
                    Err(Error::UnsupportedHeadDim(d))
                } else {
                    Ok(())
                };
                assert_eq!(c.validate(), want, "head_dim {d} over {fp8:?} K/V");
            }
        }
        let mut c = cfg();
        c.q_heads = 12;
        c.kv_heads = 5;
        assert_eq!(
            c.validate(),
            Err(Error::HeadRatio {
                q_heads: 12,
                kv_heads: 5
            })
        );
        let mut c = cfg();
        c.kv_heads = 0;
        assert!(matches!(c.validate(), Err(Error::HeadRatio { .. })));
        // The kernels split packed rows by a multiply-high that is exact below MAX_GROUP.
        let mut c = cfg();
        c.kv_heads = 1;
        c.q_heads = ferroflash_contract::params::MAX_GROUP;
        assert!(matches!(c.validate(), Err(Error::HeadRatio { .. })));
        c.q_heads -= 1;
        assert_eq!(c.validate(), Ok(()));
        let mut c = cfg();
        c.page_size = 0;
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "page_size",
                ..
            })
        ));
        let mut c = cfg();
        c.softcap = Some(-1.0);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "softcap",
                ..
            })
        ));
        let mut c = cfg();
        c.sm_scale = Some(f32::NAN);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument {
                name: "sm_scale",
                ..
            })
        ));
        let mut c = cfg();
        c.splits = Splits::Fixed(0);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument { name: "splits", .. })
        ));
        // 641 * 6700417 = 2^32 + 1: the pool size must not wrap.
        let mut c = DecodeConfig::new(1 << 26, 1 << 26, 64, 641, 6_700_417, Dtype16::Bf16);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidArgument { name: "pool", .. })
        ));
        c.num_pages = 1;
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(cfg().validate(), Ok(()));
    }

    #[test]
    fn table_errors() {
        let c = cfg();
        assert_eq!(
            tables(&[0], &[], &[0], &[]).validate(&c),
            Err(Error::EmptyBatch)
        );
        // 17 new tokens.
        assert_eq!(
            tables(&[0, 17], &[20], &[0, 2], &[1, 2]).validate(&c),
            Err(Error::NewTokens {
                request: 0,
                q_len: 17
            })
        );
        // 0 new tokens.
        assert_eq!(
            tables(&[0, 0], &[20], &[0, 2], &[1, 2]).validate(&c),
            Err(Error::NewTokens {
                request: 0,
                q_len: 0
            })
        );
        // Page id 10 in a 10-page pool.
        assert_eq!(
            tables(&[0, 1], &[20], &[0, 2], &[3, 10]).validate(&c),
            Err(Error::PageIdOutOfRange {
                request: 0,
                entry: 1,
                page: 10,
                num_pages: 10
            })
        );
        // 33 keys need 3 pages of 16.
        assert_eq!(
            tables(&[0, 1], &[33], &[0, 2], &[3, 4]).validate(&c),
            Err(Error::KvLenExceedsPages {
                request: 0,
                kv_len: 33,
                page_size: 16,
                need: 3,
                given: 2
            })
        );
        // Malformed CSR arrays.
        assert!(matches!(
            tables(&[0, 1, 2], &[5], &[0, 1], &[0]).validate(&c),
            Err(Error::BadIndptr {
                name: "q_indptr",
                ..
            })
        ));
        assert!(matches!(
            tables(&[0, 1], &[5], &[1, 1], &[0]).validate(&c),
            Err(Error::BadIndptr {
                name: "page_indptr",
                ..
            })
        ));
        assert!(matches!(
            tables(&[0, 1], &[5], &[0, 4], &[0]).validate(&c),
            Err(Error::BadIndptr {
                name: "page_indptr",
                ..
            })
        ));
        assert!(matches!(
            tables(&[0, 2, 1], &[5, 5], &[0, 1, 2], &[0, 1]).validate(&c),
            Err(Error::BadIndptr {
                name: "q_indptr",
                ..
            })
        ));
        // Spare entries are checked too; kv_len 0 needs no page.
        assert_eq!(
            tables(&[0, 1, 5], &[0, 16], &[0, 0, 2], &[7, 999]).validate(&c),
            Err(Error::PageIdOutOfRange {
                request: 1,
                entry: 1,
                page: 999,
                num_pages: 10
            })
        );
        assert_eq!(
            tables(&[0, 1, 5], &[0, 16], &[0, 0, 2], &[7, 9]).validate(&c),
            Ok(vec![1, 4])
        );
    }
}
