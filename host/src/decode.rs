//! Paged decode attention: configuration, validation, plan and run.
//!
//! # Layouts
//! - `q`, `o`: `[total_tokens, q_heads, head_dim]`, 16-bit (bf16 or f16), tokens of request
//!   `r` at rows `q_indptr[r]..q_indptr[r + 1]` (1..=16 new tokens per request).
//! - K and V page pools: `[num_pages, page_size, kv_heads, head_dim]` each, same dtype as `q`
//!   (any `page_size >= 1`).
//! - Page table in CSR form: `page_indptr[num_requests + 1]`, `page_indices[..]` (u32 page ids);
//!   token `t` of request `r` is in page `page_indices[page_indptr[r] + t / page_size]`, slot
//!   `t % page_size`. `kv_lens[r]` counts the request's keys, new tokens included; the new tokens
//!   are the last `q_len` keys (causal among them, bottom-right aligned).
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
pub use crate::plan::Splits;
use crate::plan::{plan, Plan, PlanInput};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use ferroflash_contract::decode::{combine_smem_bytes, geometry, COMBINE_THREADS, THREADS};
use ferroflash_contract::names::decode as names;
use ferroflash_contract::params::{DecodeParams, NONE_ADDR, NO_WINDOW};
use ferroflash_contract::softmax::LOG2_E;
use ferroflash_contract::PagedKvLayout;

/// 16-bit element type of Q, K, V and O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype16 {
    Bf16,
    F16,
}

/// Shapes and options of a decode call. Lengths live in [`BatchTables`].
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeConfig {
    pub q_heads: u32,
    pub kv_heads: u32,
    /// 64, 128 or 256.
    pub head_dim: u32,
    /// Tokens per page, any value >= 1.
    pub page_size: u32,
    /// Pages in each of the K and V pools.
    pub num_pages: u32,
    pub dtype: Dtype16,
    /// Softmax scale; `None` = `1 / sqrt(head_dim)`.
    pub sm_scale: Option<f32>,
    /// Logit softcap `c`: `s = c * tanh(s / c)`.
    pub softcap: Option<f32>,
    /// Sliding window: keys at most this far left of the query position are visible.
    pub window_left: Option<u32>,
    /// KV splits (automatic by default).
    pub splits: Splits,
}

impl DecodeConfig {
    /// A config with default options.
    pub fn new(q_heads: u32, kv_heads: u32, head_dim: u32, page_size: u32, num_pages: u32, dtype: Dtype16) -> Self {
        DecodeConfig { q_heads, kv_heads, head_dim, page_size, num_pages, dtype, sm_scale: None, softcap: None, window_left: None, splits: Splits::Auto }
    }
    fn layout(&self) -> PagedKvLayout {
        PagedKvLayout { page_size_tokens: self.page_size, kv_heads: self.kv_heads, head_dim: self.head_dim }
    }
    /// Elements in one K (or V) pool.
    pub fn pool_elems(&self) -> usize {
        self.num_pages as usize * self.layout().page_stride_elems() as usize
    }
    /// Check the configuration (head dim, head ratio, page size, scale, softcap, splits).
    pub fn validate(&self) -> Result<()> {
        if ![64, 128, 256].contains(&self.head_dim) {
            return Err(Error::UnsupportedHeadDim(self.head_dim));
        }
        if self.kv_heads == 0 || self.q_heads == 0 || self.q_heads % self.kv_heads != 0 {
            return Err(Error::HeadRatio { q_heads: self.q_heads, kv_heads: self.kv_heads });
        }
        if self.page_size == 0 {
            return Err(Error::InvalidArgument { name: "page_size", why: "must be >= 1".into() });
        }
        if let Some(s) = self.sm_scale {
            if !s.is_finite() || s <= 0.0 {
                return Err(Error::InvalidArgument { name: "sm_scale", why: format!("{s} is not a positive finite number") });
            }
        }
        if let Some(c) = self.softcap {
            if !c.is_finite() || c <= 0.0 {
                return Err(Error::InvalidArgument { name: "softcap", why: format!("{c} is not a positive finite number") });
            }
        }
        if let Splits::Fixed(0) = self.splits {
            return Err(Error::InvalidArgument { name: "splits", why: "Fixed(0)".into() });
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

fn check_indptr(name: &'static str, v: &[u32], n: usize) -> Result<()> {
    if v.len() != n + 1 {
        return Err(Error::BadIndptr { name, why: format!("{} entries for {n} requests (need {})", v.len(), n + 1) });
    }
    if v[0] != 0 {
        return Err(Error::BadIndptr { name, why: format!("starts at {}", v[0]) });
    }
    if let Some(i) = v.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::BadIndptr { name, why: format!("decreases at {i}") });
    }
    Ok(())
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
            return Err(Error::BadIndptr { name: "page_indptr", why: format!("ends at {} but page_indices has {}", self.page_indptr[n], self.page_indices.len()) });
        }
        let q_lens: Vec<u32> = self.q_indptr.windows(2).map(|w| w[1] - w[0]).collect();
        let layout = cfg.layout();
        for r in 0..n {
            if !(1..=16).contains(&q_lens[r]) {
                return Err(Error::NewTokens { request: r, q_len: q_lens[r] });
            }
            let need = layout.pages_for(self.kv_lens[r]);
            let given = self.page_indptr[r + 1] - self.page_indptr[r];
            if need > given {
                return Err(Error::KvLenExceedsPages { request: r, kv_len: self.kv_lens[r], page_size: cfg.page_size, need, given });
            }
            let first = self.page_indptr[r] as usize;
            for (k, &page) in self.page_indices[first..first + need as usize].iter().enumerate() {
                if page >= cfg.num_pages {
                    return Err(Error::PageIdOutOfRange { request: r, entry: first + k, page, num_pages: cfg.num_pages });
                }
            }
        }
        Ok(q_lens)
    }
}

/// A validated, planned batch with its tables, work list and workspace on the device.
pub struct DecodePlan {
    cfg: DecodeConfig,
    plan: Plan,
    total_tokens: usize,
    decode_kernel: &'static str,
    combine_kernel: &'static str,
    dims: LaunchDims,
    g_q_indptr: CudaSlice<u32>,
    g_kv_lens: CudaSlice<u32>,
    g_page_indptr: CudaSlice<u32>,
    g_page_indices: CudaSlice<u32>,
    g_work: CudaSlice<u32>,
    g_merge: CudaSlice<u32>,
    g_partial_o: CudaSlice<f32>,
    g_partial_lse: CudaSlice<f32>,
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
    /// Per-kv-head f32 scales; 0 = 1.
    pub k_scale: u64,
    pub v_scale: u64,
}

/// The tensors of one decode call, as cudarc buffers of 2-byte elements (`u16`, `half::bf16`,
/// `half::f16`).
pub struct DecodeTensors<'a, T> {
    pub q: &'a CudaSlice<T>,
    pub k_pool: &'a CudaSlice<T>,
    pub v_pool: &'a CudaSlice<T>,
    pub o: &'a mut CudaSlice<T>,
    pub lse: Option<&'a mut CudaSlice<f32>>,
    pub sinks: Option<&'a CudaSlice<f32>>,
    pub k_scale: Option<&'a CudaSlice<f32>>,
    pub v_scale: Option<&'a CudaSlice<f32>>,
}

fn kernel_name(dtype: Dtype16, head_dim: u32, m_tiles: u32) -> &'static str {
    let f16 = dtype == Dtype16::F16;
    names::VARIANTS.iter().find(|v| v.1 == f16 && v.2 == head_dim && v.3 == m_tiles).map(|v| v.0).expect("every (dtype, head_dim, m_tiles) the planner picks has a variant")
}

impl DecodePlan {
    /// Validate `cfg` and `tables`, plan the splits for `dev`, and upload tables and work list.
    pub fn new(dev: &Device, cfg: &DecodeConfig, tables: &BatchTables) -> Result<DecodePlan> {
        cfg.validate()?;
        let q_lens = tables.validate(cfg)?;
        let group = cfg.q_heads / cfg.kv_heads;
        let max_rows = q_lens.iter().map(|q| q * group).max().unwrap_or(0);
        let m_tiles = crate::plan::m_tiles_for(max_rows, cfg.head_dim);
        let decode_kernel = kernel_name(cfg.dtype, cfg.head_dim, m_tiles);
        let smem_bytes = geometry(cfg.head_dim, 2, m_tiles).smem().total_bytes;
        let ctas_per_sm = launch::prepare(dev, decode_kernel, THREADS, smem_bytes)?;
        let plan = plan(&PlanInput {
            q_indptr: tables.q_indptr,
            page_indptr: tables.page_indptr,
            q_lens: &q_lens,
            kv_lens: tables.kv_lens,
            q_heads: cfg.q_heads,
            kv_heads: cfg.kv_heads,
            head_dim: cfg.head_dim,
            sm_count: dev.caps().sm_count,
            ctas_per_sm,
            splits: cfg.splits,
        });
        debug_assert_eq!(plan.m_tiles, m_tiles);
        let s = dev.stream();
        let up = |v: &[u32]| s.clone_htod(if v.is_empty() { &[0u32][..] } else { v }).map_err(Error::driver("upload plan tables"));
        let words = |v: &[u32]| v.to_vec();
        let work_words: Vec<u32> = plan.work.iter().flat_map(|w| w.words()).collect();
        let merge_words: Vec<u32> = plan.merge.iter().flat_map(|m| m.words()).collect();
        let alloc = |n: usize| s.alloc_zeros::<f32>(n.max(1)).map_err(Error::driver("alloc workspace"));
        Ok(DecodePlan {
            cfg: cfg.clone(),
            total_tokens: *tables.q_indptr.last().unwrap() as usize,
            decode_kernel,
            combine_kernel: if cfg.dtype == Dtype16::F16 { names::COMBINE_F16 } else { names::COMBINE_BF16 },
            dims: LaunchDims { grid: (plan.work.len() as u32, 1, 1), block_threads: THREADS, smem_bytes },
            g_q_indptr: up(tables.q_indptr)?,
            g_kv_lens: up(tables.kv_lens)?,
            g_page_indptr: up(tables.page_indptr)?,
            g_page_indices: up(&words(tables.page_indices))?,
            g_work: up(&work_words)?,
            g_merge: up(&merge_words)?,
            g_partial_o: alloc(plan.partial_o_elems(cfg.head_dim))?,
            g_partial_lse: alloc(plan.partial_lse_elems())?,
            plan,
        })
    }

    /// The host-side plan (work list, merge list).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
    /// The configuration.
    pub fn config(&self) -> &DecodeConfig {
        &self.cfg
    }
    /// Tokens in the batch (rows of `q` and `o`).
    pub fn total_tokens(&self) -> usize {
        self.total_tokens
    }
    /// Name of the decode kernel variant the plan launches.
    pub fn kernel(&self) -> &'static str {
        self.decode_kernel
    }

    /// Run on cudarc buffers (on `dev`'s stream). Validates every tensor first.
    pub fn run<T>(&self, dev: &Device, t: DecodeTensors<'_, T>) -> Result<()> {
        let s = dev.stream();
        let ctx = dev.context();
        let check = |name: &'static str, same: bool, len: usize, elem: usize, expected: usize, elem_need: usize| -> Result<()> {
            if !same {
                return Err(Error::WrongDevice { name });
            }
            if elem != elem_need {
                return Err(Error::DtypeMismatch { name, got_bytes: elem, need_bytes: elem_need });
            }
            if len != expected {
                return Err(Error::ShapeMismatch { name, got: len, expected });
            }
            Ok(())
        };
        let e = std::mem::size_of::<T>();
        let (tok, qh, d) = (self.total_tokens, self.cfg.q_heads as usize, self.cfg.head_dim as usize);
        let same = |c: &std::sync::Arc<cudarc::driver::CudaContext>| c.cu_ctx() == ctx.cu_ctx();
        check("q", same(t.q.context()), t.q.len(), e, tok * qh * d, 2)?;
        check("k_pool", same(t.k_pool.context()), t.k_pool.len(), e, self.cfg.pool_elems(), 2)?;
        check("v_pool", same(t.v_pool.context()), t.v_pool.len(), e, self.cfg.pool_elems(), 2)?;
        check("o", same(t.o.context()), t.o.len(), e, tok * qh * d, 2)?;
        if let Some(l) = &t.lse {
            check("lse", same(l.context()), l.len(), 4, tok * qh, 4)?;
        }
        if let Some(x) = &t.sinks {
            check("sinks", same(x.context()), x.len(), 4, qh, 4)?;
        }
        for (name, x) in [("k_scale", &t.k_scale), ("v_scale", &t.v_scale)] {
            if let Some(x) = x {
                check(name, same(x.context()), x.len(), 4, self.cfg.kv_heads as usize, 4)?;
            }
        }
        let (q, _g1) = t.q.device_ptr(s);
        let (k, _g2) = t.k_pool.device_ptr(s);
        let (v, _g3) = t.v_pool.device_ptr(s);
        let (o, _g4) = t.o.device_ptr_mut(s);
        let lse_g = t.lse.map(|l| l.device_ptr_mut(s));
        let sinks_g = t.sinks.map(|x| x.device_ptr(s));
        let ks_g = t.k_scale.map(|x| x.device_ptr(s));
        let vs_g = t.v_scale.map(|x| x.device_ptr(s));
        let raw = RawTensors {
            q,
            k_pool: k,
            v_pool: v,
            o,
            lse: lse_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            sinks: sinks_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            k_scale: ks_g.as_ref().map_or(NONE_ADDR, |g| g.0),
            v_scale: vs_g.as_ref().map_or(NONE_ADDR, |g| g.0),
        };
        self.launch(dev, raw, s.cu_stream())
    }

    /// Run on raw device addresses, for callers of other CUDA crates.
    ///
    /// # Safety
    /// Every non-zero address in `raw` must point to live device memory of `dev`'s context with
    /// the shape the plan's config gives (see the module doc), and `stream` must be a stream
    /// of that context. Alignment is checked here; sizes and liveness cannot be.
    pub unsafe fn run_raw(&self, dev: &Device, raw: RawTensors, stream: cudarc::driver::sys::CUstream) -> Result<()> {
        for (name, a) in [("q", raw.q), ("k_pool", raw.k_pool), ("v_pool", raw.v_pool), ("o", raw.o)] {
            if a == 0 {
                return Err(Error::InvalidArgument { name, why: "null device address".into() });
            }
        }
        self.launch(dev, raw, stream)
    }

    fn params(&self, raw: RawTensors) -> Result<DecodeParams> {
        for (name, a, align) in [("q", raw.q, 16), ("k_pool", raw.k_pool, 16), ("v_pool", raw.v_pool, 16), ("o", raw.o, 16), ("lse", raw.lse, 4), ("sinks", raw.sinks, 4), ("k_scale", raw.k_scale, 4), ("v_scale", raw.v_scale, 4)] {
            if a % align != 0 {
                return Err(Error::Misaligned { name, addr: a, align });
            }
        }
        let c = &self.cfg;
        let sm_scale = c.sm_scale.unwrap_or(1.0 / (c.head_dim as f32).sqrt());
        let (score_scale, softcap_log2) = match c.softcap {
            Some(cap) => (sm_scale / cap, cap * LOG2_E),
            None => (sm_scale * LOG2_E, 0.0),
        };
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
            k_scale: raw.k_scale,
            v_scale: raw.v_scale,
            num_work_dev: NONE_ADDR,
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
            window_left: c.window_left.map_or(NO_WINDOW, |w| w.min(i32::MAX as u32) as i32),
        })
    }

    fn launch(&self, dev: &Device, raw: RawTensors, stream: cudarc::driver::sys::CUstream) -> Result<()> {
        let mut p = self.params(raw)?;
        let s = dev.stream();
        let (a, _ga) = self.g_page_indptr.device_ptr(s);
        let (b, _gb) = self.g_page_indices.device_ptr(s);
        let (kl, _gc) = self.g_kv_lens.device_ptr(s);
        let (qi, _gd) = self.g_q_indptr.device_ptr(s);
        let (w, _ge) = self.g_work.device_ptr(s);
        let (m, _gf) = self.g_merge.device_ptr(s);
        let (po, _gg) = self.g_partial_o.device_ptr(s);
        let (pl, _gh) = self.g_partial_lse.device_ptr(s);
        (p.page_indptr, p.page_indices, p.kv_lens, p.q_indptr, p.work, p.merge, p.partial_o, p.partial_lse) = (a, b, kl, qi, w, m, po, pl);
        let max_splits = self.plan.merge.iter().map(|m| m.num_splits).max().unwrap_or(0);
        let combine = (!self.plan.merge.is_empty()).then(|| LaunchDims {
            grid: (self.plan.merge.len() as u32, 1, 1),
            block_threads: COMBINE_THREADS,
            smem_bytes: combine_smem_bytes(self.plan.rows_per_block(), max_splits),
        });
        // The plan's tables were validated against `cfg` in `new`; `params` checked alignment;
        // the tensors' sizes were checked by `run` (or are the `run_raw` caller's contract).
        launch::decode(dev, self.decode_kernel, self.dims, self.combine_kernel, combine, stream, &p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> DecodeConfig {
        DecodeConfig::new(32, 8, 128, 16, 10, Dtype16::Bf16)
    }
    fn tables<'a>(q: &'a [u32], kv: &'a [u32], pi: &'a [u32], idx: &'a [u32]) -> BatchTables<'a> {
        BatchTables { q_indptr: q, kv_lens: kv, page_indptr: pi, page_indices: idx }
    }

    #[test]
    fn config_errors() {
        let mut c = cfg();
        c.head_dim = 96;
        assert_eq!(c.validate(), Err(Error::UnsupportedHeadDim(96)));
        let mut c = cfg();
        c.q_heads = 12;
        c.kv_heads = 5;
        assert_eq!(c.validate(), Err(Error::HeadRatio { q_heads: 12, kv_heads: 5 }));
        let mut c = cfg();
        c.kv_heads = 0;
        assert!(matches!(c.validate(), Err(Error::HeadRatio { .. })));
        let mut c = cfg();
        c.page_size = 0;
        assert!(matches!(c.validate(), Err(Error::InvalidArgument { name: "page_size", .. })));
        let mut c = cfg();
        c.softcap = Some(-1.0);
        assert!(matches!(c.validate(), Err(Error::InvalidArgument { name: "softcap", .. })));
        let mut c = cfg();
        c.sm_scale = Some(f32::NAN);
        assert!(matches!(c.validate(), Err(Error::InvalidArgument { name: "sm_scale", .. })));
        let mut c = cfg();
        c.splits = Splits::Fixed(0);
        assert!(matches!(c.validate(), Err(Error::InvalidArgument { name: "splits", .. })));
        assert_eq!(cfg().validate(), Ok(()));
    }

    #[test]
    fn table_errors() {
        let c = cfg();
        assert_eq!(tables(&[0], &[], &[0], &[]).validate(&c), Err(Error::EmptyBatch));
        // 17 new tokens.
        assert_eq!(tables(&[0, 17], &[20], &[0, 2], &[1, 2]).validate(&c), Err(Error::NewTokens { request: 0, q_len: 17 }));
        // 0 new tokens.
        assert_eq!(tables(&[0, 0], &[20], &[0, 2], &[1, 2]).validate(&c), Err(Error::NewTokens { request: 0, q_len: 0 }));
        // Page id 10 in a 10-page pool.
        assert_eq!(
            tables(&[0, 1], &[20], &[0, 2], &[3, 10]).validate(&c),
            Err(Error::PageIdOutOfRange { request: 0, entry: 1, page: 10, num_pages: 10 })
        );
        // 33 keys need 3 pages of 16.
        assert_eq!(
            tables(&[0, 1], &[33], &[0, 2], &[3, 4]).validate(&c),
            Err(Error::KvLenExceedsPages { request: 0, kv_len: 33, page_size: 16, need: 3, given: 2 })
        );
        // Malformed CSR arrays.
        assert!(matches!(tables(&[0, 1, 2], &[5], &[0, 1], &[0]).validate(&c), Err(Error::BadIndptr { name: "q_indptr", .. })));
        assert!(matches!(tables(&[0, 1], &[5], &[1, 1], &[0]).validate(&c), Err(Error::BadIndptr { name: "page_indptr", .. })));
        assert!(matches!(tables(&[0, 1], &[5], &[0, 4], &[0]).validate(&c), Err(Error::BadIndptr { name: "page_indptr", .. })));
        assert!(matches!(tables(&[0, 2, 1], &[5, 5], &[0, 1, 2], &[0, 1]).validate(&c), Err(Error::BadIndptr { name: "q_indptr", .. })));
        // Unused spare entries may hold anything; kv_len 0 needs no page.
        assert_eq!(tables(&[0, 1, 5], &[0, 16], &[0, 0, 2], &[7, 999]).validate(&c), Ok(vec![1, 4]));
    }
}

/// Plan and run in one call (for a batch decoded once; keep a [`DecodePlan`] to reuse it).
pub fn decode<T>(dev: &Device, cfg: &DecodeConfig, tables: &BatchTables, tensors: DecodeTensors<'_, T>) -> Result<DecodePlan> {
    let plan = DecodePlan::new(dev, cfg, tables)?;
    plan.run(dev, tensors)?;
    Ok(plan)
}
