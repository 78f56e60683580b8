//! Paged decode against the float64 reference: sweeps of page size, head ratio, new tokens,
//! head dim and awkward lengths; NaN-poisoned outputs; shuffled page tables with spare pages;
//! every case run twice and required bitwise equal (a moving result is a race).

use crate::{Case, CaseResult, Outcome};
use cudarc::driver::CudaSlice;
use ferroflash::{
    BatchTables, DecodeConfig, DecodePlan, DecodeTensors, Device, Dtype16, Fp8Format, KvLayout,
    ScaleLayout, Splits,
};
use ferroflash_reference::check::{compare, tolerance_for};
use ferroflash_reference::gen::SplitMix64;
use ferroflash_reference::gen::{generate, GenOptions, ScaleMode};
use ferroflash_reference::{
    reference_f64, reference_matched, DType, Inputs, Problem, RequestScales, Storage,
};

/// One decode test configuration.
#[derive(Clone, Debug)]
pub struct DecodeCase {
    pub head_dim: usize,
    pub page_size: usize,
    pub kv_heads: usize,
    pub group: usize,
    pub q_len: u32,
    pub kv_lens: Vec<u32>,
    /// Q's dtype; the output is Q's type when 16-bit, else bf16.
    pub dtype: DType,
    /// K/V dtype.
    pub kv_dtype: DType,
    pub softcap: Option<f32>,
    pub window_left: Option<u32>,
    pub sinks: bool,
    /// Scale tables passed to the kernel (`None`: none, every scale is 1).
    pub scales: Option<ScaleLayout>,
    pub scale: f32,
    pub splits: Splits,
    pub seed: u64,
    /// One non-finite input element to plant (see [`Poison`]).
    pub poison: Option<Poison>,
    /// The config's 16-row tiles per CTA (`None`: the planner's choice).
    pub m_tiles: Option<u32>,
    /// Experimental tail split of the plan (`None`: off).
    pub tail: Option<ferroflash::TailSplit>,
    /// `DecodeConfig::balance` (default `Auto`).
    pub balance: ferroflash::Balance,
    /// `DecodeConfig::cluster_merge` (default `true`).
    pub cluster_merge: bool,
    /// `DecodeConfig::max_cluster_splits` (`None`: the default).
    pub max_cluster_splits: Option<u32>,
    /// `DecodeConfig::combine_parts` (default `None`: automatic).
    pub combine_parts: Option<u32>,
    /// Run the plan once on a zero Q before the checked runs: its partials must not leak
    /// into the next call (default `false`).
    pub decoy_first: bool,
    /// `DecodeConfig::narrow_rows` (default `None`: automatic).
    pub narrow_rows: Option<bool>,
    /// `DecodeConfig::paired_tiles` (default `None`: automatic).
    pub paired_tiles: Option<bool>,
    /// `DecodeConfig::kv_head_pairs` (default `None`: automatic).
    pub kv_head_pairs: Option<bool>,
    /// `DecodeConfig::row_split` (default `None`: automatic).
    pub row_split: Option<bool>,
    /// `DecodeConfig::wgmma` (default `None`: automatic).
    pub wgmma: Option<bool>,
    /// `DecodeConfig::tma` (default `None`: automatic).
    pub tma: Option<bool>,
    /// Axis order inside a K/V page (default NHD).
    pub kv_layout: KvLayout,
    /// `DecodeConfig::next_wave_prefetch` (default `None`: automatic, on).
    pub prefetch: Option<bool>,
    /// `DecodeConfig::early_kv` (default `true`, the library's; the sweeps leave every fourth
    /// case off).
    pub early_kv: bool,
    /// K/V rows that hold NaN codes until a late writer (`ff_late_write`, launched right before
    /// each decode call, [`LATE_WRITE_DELAY_NS`] late) copies their real values in (default
    /// `None`: every row real from the start).
    pub late_rows: Option<LateRows>,
    /// Spread the generated pages over K/V pools of more than 2^32 elements ([`FarPages`];
    /// default `false`).
    pub far_pages: bool,
}

/// Which K/V rows the late writer of a [`DecodeCase`] writes (See Note [early K/V tiles] in
/// docs/DESIGN.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LateRows {
    /// Every request's new tokens' rows (what an engine's append kernel writes): a decode call
    /// must read them after its dependency, with or without `early_kv`.
    New,
    /// The first up to 64 rows before each request's new tokens: an `early_kv` call may read
    /// them before the writer (a contract violation the control case makes on purpose).
    Old,
}

/// How long the late writer waits before it writes: long enough for a decode grid's CTAs to
/// become resident and issue their first tiles.
pub const LATE_WRITE_DELAY_NS: u32 = 30_000;

/// Where a non-finite value is planted: Q of request 0's first token, head 0, dim 3; or the K
/// or V row of request 0's key 0 (visible to every query of request 0), kv head 0, dim 3.
/// The value is stored as the dtype's code for it (fp8 e4m3 has no infinity: it saturates), and
/// the reference sees the decoded value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Poison {
    Q(f32),
    K(f32),
    V(f32),
}

fn set_code(s: &mut Storage, i: usize, dtype: DType, v: f32) -> f32 {
    let code = Storage::encode(dtype, &[v]);
    match (s, &code) {
        (Storage::U16(d), Storage::U16(c)) => d[i] = c[0],
        (Storage::U8(d), Storage::U8(c)) => d[i] = c[0],
        _ => unreachable!("storage width follows the dtype"),
    }
    code.decode(dtype)[0]
}

fn plant(x: &mut Inputs, p: &Problem, poison: Poison) {
    match poison {
        Poison::Q(v) => {
            x.q[3] = set_code(&mut x.q_bits, 3, p.q_dtype, v);
        }
        Poison::K(v) | Poison::V(v) => {
            let i = x.kv_row_offset(p, 0, 0, 0) + 3;
            if let Poison::K(_) = poison {
                x.k_pool[i] = set_code(&mut x.k_bits, i, p.kv_dtype, v);
            } else {
                x.v_pool[i] = set_code(&mut x.v_bits, i, p.kv_dtype, v);
            }
        }
    }
}

/// The long length of [`awkward_lens`]: 4096, or `FF_LONG_KV` (the sanitizer runs use a
/// shorter one, still several splits of several tiles, so racecheck finishes in minutes).
pub fn long_kv_len() -> u32 {
    std::env::var("FF_LONG_KV")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4096)
}

/// The awkward lengths of the house style for page size `page`.
pub fn awkward_lens(page: u32) -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        page.saturating_sub(1).max(1),
        page,
        page + 1,
        54,
        97,
        long_kv_len(),
    ];
    v.dedup();
    v
}

fn u16_bits(s: &Storage) -> &[u16] {
    match s {
        Storage::U16(v) => v,
        Storage::U8(_) => panic!("16-bit case with fp8 storage"),
    }
}

/// A device copy of 16-bit or fp8 codes.
enum Buf {
    B16(CudaSlice<u16>),
    B8(CudaSlice<u8>),
}

fn upload(dev: &Device, s: &Storage) -> Result<Buf, String> {
    let st = dev.stream();
    let e = |e| format!("upload: {e:?}");
    Ok(match s {
        Storage::U16(v) => Buf::B16(st.clone_htod(v).map_err(e)?),
        Storage::U8(v) => Buf::B8(st.clone_htod(v).map_err(e)?),
    })
}

impl Buf {
    fn addr(&self, dev: &Device) -> u64 {
        use cudarc::driver::DevicePtr;
        match self {
            Buf::B16(b) => b.device_ptr(dev.stream()).0,
            Buf::B8(b) => b.device_ptr(dev.stream()).0,
        }
    }
}

/// The pools of a [`DecodeCase::far_pages`] case: generated page `p` becomes page `p * stride`
/// of pools whose last used page starts past 2^32 elements (and bytes), the pages between them
/// zero. The reference keeps the generated ids; the plan and the kernels get these. A 32-bit
/// element or byte offset anywhere on the address path reads the wrong page.
struct FarPages {
    stride: usize,
    num_pages: usize,
    page_elems: usize,
    page_indices: Vec<u32>,
}

impl FarPages {
    fn new(p: &Problem, x: &Inputs) -> Self {
        let page_elems = p.page_size * p.kv_heads * p.head_dim;
        let gaps = x.num_pages.max(2) - 1;
        // The last third of the pages start past 2^32 elements.
        let stride = (3usize << 32) / (page_elems * 2 * gaps) + 1;
        FarPages {
            stride,
            num_pages: gaps * stride + 1,
            page_elems,
            page_indices: x.page_indices.iter().map(|&i| i * stride as u32).collect(),
        }
    }
    /// Whether some page the batch reads starts past 2^32 elements.
    fn reaches_far(&self) -> bool {
        let top = self.page_indices.iter().max().map_or(0, |&i| i as usize);
        top * self.page_elems >= 1 << 32
    }
    /// `pool` (`x.num_pages` pages of codes) at the far page ids.
    fn upload(&self, dev: &Device, pool: &Storage) -> Result<Buf, String> {
        fn spread<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
            f: &FarPages,
            dev: &Device,
            v: &[T],
        ) -> Result<CudaSlice<T>, String> {
            let st = dev.stream();
            let e = |e| format!("far pool: {e:?}");
            let mut big = st.alloc_zeros::<T>(f.num_pages * f.page_elems).map_err(e)?;
            for (page, src) in v.chunks(f.page_elems).enumerate() {
                let at = page * f.stride * f.page_elems;
                st.memcpy_htod(src, &mut big.slice_mut(at..at + f.page_elems))
                    .map_err(e)?;
            }
            Ok(big)
        }
        Ok(match pool {
            Storage::U16(v) => Buf::B16(spread(self, dev, v)?),
            Storage::U8(v) => Buf::B8(spread(self, dev, v)?),
        })
    }
}

/// A case's late rows ([`LateRows`]): the pools with NaN codes in them, and where their
/// 16-byte chunks are (byte offsets, the same in both pools).
struct LatePools {
    k_stale: Storage,
    v_stale: Storage,
    chunk_offsets: Vec<u64>,
}

impl LatePools {
    fn new(p: &Problem, x: &Inputs, which: LateRows) -> Self {
        let (mut k_stale, mut v_stale) = (x.k_bits.clone(), x.v_bits.clone());
        let elem_bytes = k_stale.elem_bytes();
        let row_bytes = p.head_dim * elem_bytes;
        let mut chunk_offsets = Vec::new();
        for (r, (&kv_len, &q_len)) in p.kv_lens.iter().zip(&p.q_lens).enumerate() {
            let old = kv_len.saturating_sub(q_len);
            let tokens = match which {
                LateRows::New => old..kv_len,
                LateRows::Old => 0..old.min(64),
            };
            for t in tokens {
                for kvh in 0..p.kv_heads {
                    let row = x.kv_row_offset(p, r, t, kvh);
                    for s in [&mut k_stale, &mut v_stale] {
                        match s {
                            // NaN in bf16 and in f16.
                            Storage::U16(v) => v[row..row + p.head_dim].fill(0x7fc0),
                            // NaN in e4m3 and in e5m2.
                            Storage::U8(v) => v[row..row + p.head_dim].fill(0x7f),
                        }
                    }
                    let base = (row * elem_bytes) as u64;
                    chunk_offsets.extend((0..row_bytes as u64 / 16).map(|c| base + 16 * c));
                }
            }
        }
        LatePools {
            k_stale,
            v_stale,
            chunk_offsets,
        }
    }

    /// Upload the stale pools and launch the late writer from `real` into them (it waits
    /// [`LATE_WRITE_DELAY_NS`], then writes, while the next decode launch may run).
    /// Returns the stale pools and the writer's chunk list, which must live until the decode
    /// call is enqueued (freeing it is a stream operation).
    fn stage(
        &self,
        dev: &Device,
        real: (&Buf, &Buf),
    ) -> Result<(Buf, Buf, Option<CudaSlice<u64>>), String> {
        let (k, v) = (upload(dev, &self.k_stale)?, upload(dev, &self.v_stale)?);
        let mut pairs = Vec::with_capacity(4 * self.chunk_offsets.len());
        for (dst, src) in [(&k, real.0), (&v, real.1)] {
            let (d, s) = (dst.addr(dev), src.addr(dev));
            for &off in &self.chunk_offsets {
                pairs.extend([d + off, s + off]);
            }
        }
        if pairs.is_empty() {
            return Ok((k, v, None));
        }
        let g_pairs = dev
            .stream()
            .clone_htod(&pairs)
            .map_err(|e| format!("upload: {e:?}"))?;
        // SAFETY: every pair is a chunk of the same row in two live pools of the same size
        // (offsets from the case's own page table), 16-byte aligned (rows are a multiple of 16
        // bytes); the pools and the list outlive the call (synchronised below, in the caller).
        unsafe { ferroflash::selftest::launch_late_write(dev, &g_pairs, LATE_WRITE_DELAY_NS) }
            .map_err(|e| format!("late writer: {e}"))?;
        Ok((k, v, Some(g_pairs)))
    }
}

/// The output dtype of a case: Q's when 16-bit, bf16 for all-fp8.
pub fn out_dtype(q: DType) -> DType {
    if q.is_fp8() {
        DType::Bf16
    } else {
        q
    }
}

/// The config fields for (q, kv) dtypes.
pub fn config_dtypes(cfg: &mut DecodeConfig, q: DType, kv: DType) {
    cfg.dtype = if out_dtype(q) == DType::F16 {
        Dtype16::F16
    } else {
        Dtype16::Bf16
    };
    cfg.kv_fp8 = match kv {
        DType::E4m3 => Some(Fp8Format::E4m3),
        DType::E5m2 => Some(Fp8Format::E5m2),
        _ => None,
    };
    cfg.q_fp8 = q.is_fp8();
}

/// The scale tables of `x` in `layout`: (q, k, v), each `scale_len` long; per (request, kv
/// head) the generated per-head scales times random request factors (stored in `x`).
fn scale_tables(x: &mut Inputs, p: &Problem, layout: ScaleLayout, seed: u64) -> [Vec<f32>; 3] {
    let hkv = p.kv_heads;
    match layout {
        ScaleLayout::PerTensor => [vec![x.q_scale], vec![x.k_scale[0]], vec![x.v_scale[0]]],
        ScaleLayout::PerKvHead => [vec![x.q_scale; hkv], x.k_scale.clone(), x.v_scale.clone()],
        ScaleLayout::PerRequestKvHead => {
            let n = p.num_requests() * hkv;
            let mut rng = SplitMix64(seed ^ 0x5ca1e);
            let mut draw = || {
                (0..n)
                    .map(|_| 0.5 + 1.5 * (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
                    .collect::<Vec<f32>>()
            };
            let rs = RequestScales {
                q: draw(),
                k: draw(),
                v: draw(),
            };
            let tabs = [
                (0..n).map(|i| x.q_scale * rs.q[i]).collect(),
                (0..n).map(|i| x.k_scale[i % hkv] * rs.k[i]).collect(),
                (0..n).map(|i| x.v_scale[i % hkv] * rs.v[i]).collect(),
            ];
            x.request_scales = Some(rs);
            tabs
        }
    }
}

/// Run one case: plan, run twice, compare with the reference. Returns a one-line summary.
pub fn run_case(dev: &Device, c: &DecodeCase) -> Result<String, String> {
    run_case_with(dev, c, true)
}

/// [`run_case`]; with `full == false` one run and no reference: only "every output element was
/// written and is finite" (the soak's cheap check).
pub fn run_case_with(dev: &Device, c: &DecodeCase, full: bool) -> Result<String, String> {
    let problem = Problem {
        q_heads: c.kv_heads * c.group,
        kv_heads: c.kv_heads,
        head_dim: c.head_dim,
        page_size: c.page_size,
        kv_layout: c.kv_layout,
        q_lens: vec![c.q_len; c.kv_lens.len()],
        kv_lens: c.kv_lens.clone(),
        sm_scale: 1.0 / (c.head_dim as f32).sqrt(),
        softcap: c.softcap,
        window_left: c.window_left,
        q_dtype: c.dtype,
        kv_dtype: c.kv_dtype,
    };
    let opts = GenOptions {
        seed: c.seed,
        spare_pages: 5,
        scale: c.scale,
        sinks: c.sinks,
        kv_scale_mode: if matches!(
            c.scales,
            Some(ScaleLayout::PerKvHead | ScaleLayout::PerRequestKvHead)
        ) {
            ScaleMode::PerHead
        } else {
            ScaleMode::PerTensor
        },
    };
    if c.kv_dtype.is_fp8() && c.scales.is_none() {
        return Err(
            "fp8 K/V without scale tables: the generator scales the codes to the \
                    format's range, so the kernel must get the tables (set `scales`)"
                .into(),
        );
    }
    let mut x: Inputs = generate(&problem, &opts);
    if let Some(poison) = c.poison {
        plant(&mut x, &problem, poison);
    }
    let tabs = c.scales.map(|l| scale_tables(&mut x, &problem, l, c.seed));
    let out = out_dtype(c.dtype);
    let mut cfg = DecodeConfig::new(
        problem.q_heads as u32,
        c.kv_heads as u32,
        c.head_dim as u32,
        c.page_size as u32,
        x.num_pages as u32,
        Dtype16::Bf16,
    );
    config_dtypes(&mut cfg, c.dtype, c.kv_dtype);
    cfg.scales = c.scales.unwrap_or_default();
    cfg.softcap = c.softcap;
    cfg.window_left = c.window_left;
    cfg.splits = c.splits;
    cfg.m_tiles = c.m_tiles;
    cfg.tail = c.tail;
    cfg.balance = c.balance;
    cfg.cluster_merge = c.cluster_merge;
    if let Some(n) = c.max_cluster_splits {
        cfg.max_cluster_splits = n;
    }
    cfg.combine_parts = c.combine_parts;
    cfg.narrow_rows = c.narrow_rows;
    cfg.paired_tiles = c.paired_tiles;
    cfg.kv_head_pairs = c.kv_head_pairs;
    cfg.row_split = c.row_split;
    cfg.wgmma = c.wgmma;
    cfg.tma = c.tma;
    cfg.kv_layout = c.kv_layout;
    cfg.next_wave_prefetch = c.prefetch;
    cfg.early_kv = c.early_kv;
    cfg.sm_scale = Some(problem.sm_scale);
    let far = c.far_pages.then(|| FarPages::new(&problem, &x));
    if far.is_some() && c.late_rows.is_some() {
        return Err(
            "far pages with late rows: the late writer addresses the generated pools".into(),
        );
    }
    if let Some(f) = &far {
        if !f.reaches_far() {
            return Err("far pages: no page the batch reads starts past 2^32 elements".into());
        }
        cfg.num_pages = f.num_pages as u32;
    }
    let q_indptr = problem.q_indptr();
    let plan = DecodePlan::new(
        dev,
        &cfg,
        &BatchTables {
            q_indptr: &q_indptr,
            kv_lens: &c.kv_lens,
            page_indptr: &x.page_indptr,
            page_indices: far.as_ref().map_or(&x.page_indices, |f| &f.page_indices),
        },
    )
    .map_err(|e| format!("plan: {e}"))?;
    let s = dev.stream();
    let up16 = |v: &[u16]| s.clone_htod(v).map_err(|e| format!("upload: {e:?}"));
    let upf = |v: &[f32]| s.clone_htod(v).map_err(|e| format!("upload: {e:?}"));
    let up_pool = |pool: &Storage| match &far {
        Some(f) => f.upload(dev, pool),
        None => upload(dev, pool),
    };
    let (g_q, g_k, g_v) = (
        upload(dev, &x.q_bits)?,
        up_pool(&x.k_bits)?,
        up_pool(&x.v_bits)?,
    );
    let g_sinks = match &x.sinks {
        Some(v) => Some(upf(v)?),
        None => None,
    };
    let g_tabs = match &tabs {
        Some([q, k, v]) => Some([upf(q)?, upf(k)?, upf(v)?]),
        None => None,
    };
    let n_o = problem.total_tokens() * problem.q_heads * c.head_dim;
    let n_lse = problem.total_tokens() * problem.q_heads;
    let g_q0 = if c.decoy_first {
        Some(upload(
            dev,
            &match &x.q_bits {
                Storage::U16(v) => Storage::U16(vec![0; v.len()]),
                Storage::U8(v) => Storage::U8(vec![0; v.len()]),
            },
        )?)
    } else {
        None
    };
    // Late rows: pools with NaN codes in those rows (uploaded again for every call), and the
    // late writer's chunk list from the real pools into them.
    let late = c.late_rows.map(|which| LatePools::new(&problem, &x, which));
    let mut outs = Vec::new();
    let decoys = g_q0.is_some() as usize;
    for it in 0..(if full { 2 } else { 1 }) + decoys {
        let g_q = if it < decoys {
            g_q0.as_ref().expect("decoy Q")
        } else {
            &g_q
        };
        // NaN-poisoned outputs (0x7fc0 is NaN in bf16 and f16): an element the kernel forgets to write fails the NaN parity check.
        let mut g_o = up16(&vec![0x7fc0u16; n_o])?;
        let mut g_lse = upf(&vec![f32::NAN; n_lse])?;
        // The late writer goes last, right before the decode launch: any stream operation
        // between them (a copy, a free, an event) would end the overlap the case is about.
        let stale = match &late {
            Some(l) => Some(l.stage(dev, (&g_k, &g_v))?),
            None => None,
        };
        let (g_k, g_v) = match &stale {
            Some((k, v, _pairs)) => (k, v),
            None => (&g_k, &g_v),
        };
        macro_rules! run_with {
            ($q:expr, $k:expr, $v:expr) => {
                plan.run(
                    dev,
                    DecodeTensors {
                        q: $q,
                        k_pool: $k,
                        v_pool: $v,
                        o: &mut g_o,
                        lse: Some(&mut g_lse),
                        sinks: g_sinks.as_ref(),
                        q_scale: g_tabs.as_ref().map(|t| &t[0]),
                        k_scale: g_tabs.as_ref().map(|t| &t[1]),
                        v_scale: g_tabs.as_ref().map(|t| &t[2]),
                    },
                )
            };
        }
        match (g_q, g_k, g_v) {
            (Buf::B16(q), Buf::B16(k), Buf::B16(v)) => run_with!(q, k, v),
            (Buf::B16(q), Buf::B8(k), Buf::B8(v)) => run_with!(q, k, v),
            (Buf::B8(q), Buf::B8(k), Buf::B8(v)) => run_with!(q, k, v),
            _ => return Err("unsupported dtype combination in the test".into()),
        }
        .map_err(|e| format!("run: {e}"))?;
        s.synchronize().map_err(|e| format!("kernel: {e:?}"))?;
        let o: Vec<u16> = s.clone_dtoh(&g_o).map_err(|e| format!("{e:?}"))?;
        let lse: Vec<f32> = s.clone_dtoh(&g_lse).map_err(|e| format!("{e:?}"))?;
        if it >= decoys {
            outs.push((o, lse));
        }
    }
    let (o_bits, lse) = &outs[0];
    let o: Vec<f32> = o_bits
        .iter()
        .map(|&b| {
            if out == DType::F16 {
                half::f16::from_bits(b).to_f32()
            } else {
                half::bf16::from_bits(b).to_f32()
            }
        })
        .collect();
    if !full {
        return match o.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(format!(
                "output element {i} is {} (unwritten or overflow) [seed {}]",
                o[i], c.seed
            )),
            None => Ok(String::new()),
        };
    }
    if outs[0].0 != outs[1].0
        || outs[0]
            .1
            .iter()
            .map(|x| x.to_bits())
            .ne(outs[1].1.iter().map(|x| x.to_bits()))
    {
        return Err("two runs of the same plan differ bitwise (race?)".into());
    }
    let reference = reference_f64(&problem, &x);
    let matched = reference_matched(&problem, &x, out);
    let report = compare(
        &o,
        lse,
        &reference,
        &matched,
        tolerance_for(out, c.kv_dtype),
    )
    .map_err(|e| format!("{e} [seed {}]", c.seed))?;
    // FNV-1a over the output bits (O then LSE): equal hashes, bitwise equal outputs.
    let hash = o_bits
        .iter()
        .map(|&b| b as u32)
        .chain(lse.iter().map(|x| x.to_bits()))
        .fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
            (h ^ w as u64).wrapping_mul(0x0100_0000_01b3)
        });
    Ok(format!(
        "{report}; {} CTAs (waves of {}), {} merges, balanced {}, {}, kv pairs {}, clusters of {}, tma boxes of {}, output {hash:016x}",
        plan.plan().work.len(),
        dev.caps().sm_count * plan.ctas_per_sm(),
        plan.plan().merge.len(),
        plan.plan().balanced,
        plan.kernel(),
        plan.kernel_config().is_kv_pair_view(),
        plan.cluster_splits(),
        plan.tma_box_tokens()
    ))
}

/// [`run_case`], and its report (the plan's summary) must satisfy `want`; `what` names the
/// expectation in the error.
fn run_case_expecting(
    dev: &Device,
    c: &DecodeCase,
    what: &str,
    want: impl Fn(&str) -> bool,
) -> Result<String, String> {
    let report = run_case(dev, c).map_err(|e| format!("{e}\n    case: {c:?}"))?;
    if want(&report) {
        Ok(report)
    } else {
        Err(format!("expected {what}, got: {report}\n    case: {c:?}"))
    }
}

fn case_result(dev: &Device, c: &DecodeCase) -> CaseResult {
    run_case(dev, c)
        .map(|_| Outcome::Pass)
        .map_err(|e| format!("{e}\n    case: {c:?}"))
}

/// The page layout both sweeps cycle: every fifth case HND (a period prime to the sweeps' 4
/// ratios and 3 or 6 modes, so HND meets every dim, page size and ratio).
fn cycled_kv_layout(i: u64) -> KvLayout {
    if i % 5 == 4 {
        KvLayout::Hnd
    } else {
        KvLayout::Nhd
    }
}

/// The option cycles both sweeps share (case `i`): softcap, sliding window, splits.
fn cycled_softcap(i: u64) -> Option<f32> {
    (i % 5 == 1).then_some(30.0)
}
fn cycled_window(i: u64) -> Option<u32> {
    (i % 7 == 3).then_some(40)
}
fn cycled_splits(i: u64) -> Splits {
    [
        Splits::Auto,
        Splits::Fixed(1),
        Splits::Fixed(3),
        Splits::Auto,
    ][(i % 4) as usize]
}

/// The sweep: every (head dim, page size, ratio) with new-token counts, dtypes, options and
/// input scales cycling, each over a ragged batch of the awkward lengths.
pub fn sweep() -> Vec<DecodeCase> {
    let mut v = Vec::new();
    let mut i = 0u64;
    for head_dim in [64, 128, 256] {
        for page in [1u32, 3, 16, 64] {
            for group in [1, 4, 8, 12] {
                let q_len = [1, 4, 16][(i % 3) as usize];
                v.push(DecodeCase {
                    head_dim,
                    page_size: page as usize,
                    kv_heads: 2,
                    group,
                    q_len,
                    kv_lens: awkward_lens(page),
                    dtype: if i.is_multiple_of(2) {
                        DType::Bf16
                    } else {
                        DType::F16
                    },
                    kv_dtype: if i.is_multiple_of(2) {
                        DType::Bf16
                    } else {
                        DType::F16
                    },
                    softcap: cycled_softcap(i),
                    window_left: cycled_window(i),
                    sinks: i % 4 == 2,
                    scales: (i % 6 == 5).then_some(ScaleLayout::PerKvHead),
                    scale: [0.5, 1.0, 3.0, 8.0][(i % 4) as usize],
                    splits: cycled_splits(i),
                    seed: 1000 + i,
                    poison: None,
                    m_tiles: None,
                    tail: None,
                    balance: ferroflash::Balance::Auto,
                    cluster_merge: true,
                    max_cluster_splits: None,
                    combine_parts: None,
                    decoy_first: false,
                    narrow_rows: None,
                    paired_tiles: None,
                    kv_head_pairs: None,
                    row_split: None,
                    wgmma: None,
                    tma: None,
                    kv_layout: cycled_kv_layout(i),
                    prefetch: None,
                    early_kv: i % 4 != 3,
                    late_rows: None,
                    far_pages: false,
                });
                i += 1;
            }
        }
    }
    v
}

/// Every fp8 (Q, K/V) dtype pair the kernels support, in the order the sweep cycles them.
pub const FP8_MODES: [(DType, DType); 6] = [
    (DType::Bf16, DType::E4m3),
    (DType::F16, DType::E5m2),
    (DType::E4m3, DType::E4m3),
    (DType::Bf16, DType::E5m2),
    (DType::F16, DType::E4m3),
    (DType::E5m2, DType::E5m2),
];

/// Every scale-table layout.
pub const SCALE_LAYOUTS: [ScaleLayout; 3] = [
    ScaleLayout::PerTensor,
    ScaleLayout::PerKvHead,
    ScaleLayout::PerRequestKvHead,
];

/// The fp8 sweep: every (head dim, page size) with two head ratios, cycling the fp8 modes
/// (bf16/f16 Q over an e4m3/e5m2 cache, all-e4m3, all-e5m2), the scale layouts, new tokens,
/// options, input scales and splits, each over a ragged batch of the awkward lengths.
pub fn sweep_fp8() -> Vec<DecodeCase> {
    let (modes, layouts) = (FP8_MODES, SCALE_LAYOUTS);
    let mut v = Vec::new();
    let mut i = 0u64;
    for head_dim in [64, 128, 256] {
        for page in [1u32, 3, 16, 64] {
            for group in [[1, 8], [4, 12], [7, 4]][(i % 3) as usize] {
                let (q, kv) = modes[(i % 6) as usize];
                v.push(DecodeCase {
                    head_dim,
                    page_size: page as usize,
                    kv_heads: 2,
                    group,
                    q_len: [1, 4, 16, 2][(i % 4) as usize],
                    kv_lens: awkward_lens(page),
                    dtype: q,
                    kv_dtype: kv,
                    softcap: cycled_softcap(i),
                    window_left: cycled_window(i),
                    sinks: i % 4 == 2,
                    scales: Some(layouts[(i % 3) as usize]),
                    scale: [1.0, 0.5, 3.0][(i % 3) as usize],
                    splits: cycled_splits(i),
                    seed: 5000 + i,
                    poison: None,
                    m_tiles: None,
                    tail: None,
                    balance: ferroflash::Balance::Auto,
                    cluster_merge: true,
                    max_cluster_splits: None,
                    combine_parts: None,
                    decoy_first: false,
                    narrow_rows: None,
                    paired_tiles: None,
                    kv_head_pairs: None,
                    row_split: None,
                    wgmma: None,
                    tma: None,
                    kv_layout: cycled_kv_layout(i),
                    prefetch: None,
                    early_kv: i % 4 != 3,
                    late_rows: None,
                    far_pages: false,
                });
                i += 1;
            }
        }
    }
    v
}

/// Every case of a list, stopping at the first failure.
fn all_pass(d: &Device, cases: Vec<DecodeCase>) -> CaseResult {
    for c in cases {
        case_result(d, &c)?;
    }
    Ok(Outcome::Pass)
}

/// Named cases for the suite.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "decode/sweep_dims_pages_ratios_tokens",
            run: |d| all_pass(d, sweep()),
        },
        Case {
            name: "decode/fp8_sweep_modes_pages_ratios_scales",
            run: |d| all_pass(d, sweep_fp8()),
        },
        Case {
            name: "decode/fp8_quick_one_per_mode",
            run: fp8_quick,
        },
        Case {
            name: "decode/sm80_module_on_this_gpu",
            run: sm80_module,
        },
        Case {
            name: "decode/nan_inf_inputs_propagate_like_the_reference",
            run: nan_inf_inputs,
        },
        Case {
            name: "soak/random_shapes_10000_launches",
            run: soak,
        },
        Case {
            name: "decode/splits1_equals_splitsn",
            run: splits_agree,
        },
        Case {
            name: "decode/balanced_plans_against_reference",
            run: balanced_plans,
        },
        Case {
            name: "decode/cluster_merge_against_reference",
            run: cluster_merge,
        },
        Case {
            name: "decode/cluster_merge_m32_and_non_finite",
            run: cluster_merge_more,
        },
        Case {
            name: "decode/combine_parts_and_fresh_partials",
            run: combine_parts,
        },
        Case {
            name: "decode/narrow_rows_against_sixteen_row_consumers",
            run: narrow_rows,
        },
        Case {
            name: "decode/paired_fp8_tiles_against_reference",
            run: paired_tiles,
        },
        Case {
            name: "decode/early_kv_tiles_wait_for_new_rows",
            run: early_kv_tiles,
        },
        Case {
            name: "decode/last_wave_split_against_reference",
            run: last_wave_split,
        },
        Case {
            name: "decode/next_wave_prefetch_multi_wave",
            run: next_wave_prefetch,
        },
        Case {
            name: "decode/m_tiles_override_one_or_two_tiles",
            run: m_tiles_override,
        },
        Case {
            name: "decode/row_split_consumers_against_reference",
            run: row_split,
        },
        Case {
            name: "decode/wgmma_consumer_against_reference",
            run: wgmma_consumer,
        },
        Case {
            name: "decode/padded_head_dims_against_reference",
            run: padded_head_dims,
        },
        Case {
            name: "decode/kv_head_pairs_against_reference",
            run: kv_head_pairs,
        },
        Case {
            name: "decode/tma_tiles_against_reference",
            run: tma_tiles,
        },
        Case {
            name: "decode/hnd_pages_against_reference",
            run: hnd_pages,
        },
        Case {
            name: "decode/far_pages_past_2p32_elements",
            run: far_pages,
        },
        Case {
            name: "decode/empty_requests_zero_and_neg_inf",
            run: empty_requests,
        },
        Case {
            name: "decode/bad_tensors_rejected_before_launch",
            run: bad_tensors,
        },
        Case {
            name: "decode/cuda_graph_replay_after_update",
            run: graph_replay,
        },
        Case {
            name: "decode/timeline_records_ordered_and_output_unchanged",
            run: timeline_records,
        },
        Case {
            name: "decode/back_to_back_calls_equal_calls_alone",
            run: back_to_back,
        },
    ]
}

fn base(head_dim: usize, page: usize, group: usize, q_len: u32, kv_lens: Vec<u32>) -> DecodeCase {
    DecodeCase {
        head_dim,
        page_size: page,
        kv_heads: 8,
        group,
        q_len,
        kv_lens,
        dtype: DType::Bf16,
        kv_dtype: DType::Bf16,
        softcap: None,
        window_left: None,
        sinks: false,
        scales: None,
        scale: 1.0,
        splits: Splits::Auto,
        seed: 7,
        poison: None,
        m_tiles: None,
        tail: None,
        balance: ferroflash::Balance::Auto,
        cluster_merge: true,
        max_cluster_splits: None,
        combine_parts: None,
        decoy_first: false,
        narrow_rows: None,
        paired_tiles: None,
        // Off in the targeted cases (their kernel expectations); the sweeps and
        // `kv_head_pairs` take the automatic rule or force it.
        kv_head_pairs: Some(false),
        row_split: None,
        wgmma: None,
        tma: None,
        kv_layout: KvLayout::Nhd,
        prefetch: None,
        early_kv: true,
        late_rows: None,
        far_pages: false,
    }
}

/// Pools of more than 2^32 elements, the pages a batch reads spread from the first page to
/// past element (and byte) 2^32 ([`FarPages`]), against the reference at the awkward lengths:
/// every head dim, 16-bit, fp8-KV and all-FP8 modes, NHD and HND pages of 1-64 tokens, 1-16 new
/// tokens at groups 1-8 (the planner picks among its 16-row, narrow, row-split, wgmma and
/// TMA-box variants; the case does not pin which), splits with the cluster merge and with the
/// combine. An engine's cache on an H200 is tens of GiB: every address past the first 4 GiB
/// must be computed in 64 bits. Skips on a GPU with less than 28 GiB free.
fn far_pages(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    // Two 16-bit pools of ~1.5 x 2^32 elements each, plus headroom.
    let free = cudarc::driver::result::mem_get_info()
        .map_err(|e| format!("{e:?}"))?
        .0;
    if free < 28 << 30 {
        return Ok(Outcome::Skip(format!(
            "needs 28 GiB of free device memory, {} MiB free",
            free >> 20
        )));
    }
    // (head dim, page, group, new tokens, Q type, K/V type, layout, splits)
    let cases = [
        (128, 16, 4, 1, Bf16, Bf16, KvLayout::Nhd, Splits::Auto),
        (64, 1, 8, 4, F16, F16, KvLayout::Hnd, Splits::Fixed(3)),
        (128, 3, 7, 1, Bf16, E4m3, KvLayout::Nhd, Splits::Auto),
        (128, 64, 8, 8, E4m3, E4m3, KvLayout::Nhd, Splits::Fixed(2)),
        (256, 16, 8, 8, Bf16, Bf16, KvLayout::Nhd, Splits::Auto),
        (128, 32, 8, 16, Bf16, Bf16, KvLayout::Nhd, Splits::Auto),
        (64, 24, 1, 1, F16, E5m2, KvLayout::Hnd, Splits::Fixed(4)),
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, dt, kv, layout, splits)) in cases.into_iter().enumerate()
    {
        let lens = awkward_lens(page as u32);
        let mut c = base(head_dim, page, group, q_len, lens);
        (c.dtype, c.kv_dtype, c.kv_layout, c.splits) = (dt, kv, layout, splits);
        c.kv_heads = [8, 2, 4][i % 3];
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.cluster_merge = i % 2 == 0;
        c.sinks = i % 3 == 1;
        c.seed = 5500 + i as u64;
        c.far_pages = true;
        if let Err(e) = run_case(d, &c) {
            failures.push(format!("case {i}: {e}"));
        }
    }
    all_passed(failures)
}

/// HND pages (`[num_pages, kv_heads, page_size, head_dim]`, See Note [kv layout] in
/// docs/DESIGN.md) against the reference: page sizes 1, 3, 5, 16, 24 and 64, one to eight kv
/// heads (the head stride is the page size), every head dim, ratios 1-12, 1-16 new tokens, the
/// 16-bit, fp8-KV and all-FP8 modes, the plan's consumers (16-row, narrow, row-split, wgmma),
/// splits with the cluster merge and with the combine, and lengths 0, 1, page +- 1 and longer.
fn hnd_pages(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    let mut failures = Vec::new();
    for (i, (head_dim, page, kv_heads, group, q_len, (q, kv), splits, cluster)) in [
        (128, 16, 8, 4, 1, (Bf16, Bf16), Splits::Auto, true),
        (128, 16, 8, 4, 1, (Bf16, E4m3), Splits::Auto, true),
        (128, 1, 3, 4, 4, (F16, F16), Splits::Fixed(3), true),
        (128, 3, 2, 12, 1, (Bf16, Bf16), Splits::Fixed(2), false),
        (64, 64, 2, 8, 16, (Bf16, Bf16), Splits::Auto, true),
        (256, 16, 2, 1, 16, (F16, E5m2), Splits::Fixed(2), true),
        (128, 5, 3, 7, 2, (E4m3, E4m3), Splits::Fixed(4), true),
        (64, 24, 4, 4, 1, (Bf16, E4m3), Splits::Fixed(5), false),
        (256, 1, 1, 8, 1, (Bf16, Bf16), Splits::Auto, true),
        (128, 64, 2, 4, 16, (Bf16, Bf16), Splits::Fixed(2), true),
        (128, 3, 4, 1, 8, (F16, E4m3), Splits::Auto, true),
        (64, 16, 2, 12, 4, (F16, F16), Splits::Fixed(3), false),
    ]
    .into_iter()
    .enumerate()
    {
        let p = page as u32;
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![
                0,
                1,
                p - 1 + (p == 1) as u32,
                p + 1,
                97,
                1500 + 61 * i as u32,
            ],
        );
        c.kv_heads = kv_heads;
        c.kv_layout = KvLayout::Hnd;
        (c.dtype, c.kv_dtype) = (q, kv);
        c.scales = kv
            .is_fp8()
            .then_some([ScaleLayout::PerKvHead, ScaleLayout::PerRequestKvHead][i % 2]);
        c.splits = splits;
        c.cluster_merge = cluster;
        c.sinks = i % 3 == 0;
        c.softcap = (i % 4 == 1).then_some(30.0);
        c.window_left = (i % 5 == 2).then_some(100);
        c.scale = [1.0, 4.0, 0.5][i % 3];
        c.seed = 900 + i as u64;
        if let Err(e) = run_case(d, &c) {
            failures.push(format!("{e}\n    case: {c:?}"));
        }
    }
    all_passed(failures)
}

/// Two runs of case `i` that must agree bitwise (`what` names them in the failure): both must
/// pass, and their reports' output hashes must be equal.
fn bitwise_pair(
    failures: &mut Vec<String>,
    i: usize,
    what: &str,
    a: Result<String, String>,
    b: Result<String, String>,
    c: &DecodeCase,
) {
    match (a, b) {
        (Ok(a), Ok(b)) => {
            let hash = |r: &str| r.rsplit(", output ").next().unwrap_or("").to_string();
            if hash(&a) != hash(&b) {
                failures.push(format!(
                    "case {i}: {what} differ: {a} / {b}\n    case: {c:?}"
                ));
            }
        }
        (a, b) => {
            for e in [a.err(), b.err()].into_iter().flatten() {
                failures.push(format!("case {i}: {e}"));
            }
        }
    }
}

/// A table test's result: pass, or every failure of its cases together.
fn all_passed(failures: Vec<String>) -> CaseResult {
    if failures.is_empty() {
        Ok(Outcome::Pass)
    } else {
        Err(failures.join("\n"))
    }
}

/// Case `i` of a consumer-layout table (narrow, row-split): two kv heads, the dtypes, and
/// softcap, window, sinks, splits, score scale and scale tables cycled by `i`.
fn cycle_layout_case(c: &mut DecodeCase, i: usize, (q, kv): (DType, DType), seed: u64) {
    c.kv_heads = 2;
    (c.dtype, c.kv_dtype) = (q, kv);
    c.softcap = (i % 3 == 1).then_some(30.0);
    c.window_left = (i % 4 == 2).then_some(70);
    c.sinks = i % 2 == 1;
    c.splits = [Splits::Auto, Splits::Fixed(1), Splits::Fixed(3)][i % 3];
    c.scale = [1.0, 4.0, 0.5][i % 3];
    c.seed = seed + i as u64;
    // The generator scales fp8 codes to the format's range: the kernel needs the tables.
    c.scales = kv
        .is_fp8()
        .then_some([ScaleLayout::PerTensor, ScaleLayout::PerKvHead][i % 2]);
}

/// The narrow variants (See Note [narrow rows] in docs/DESIGN.md): every case with at most 8
/// packed rows per kv head runs the `_m8` kernel with `narrow_rows = Some(true)` and the 16-row kernel with
/// `narrow_rows = Some(false)`, both against the reference. Head ratios 1, 4, 7 and 8 with 1-8 new
/// tokens (causal), every head dim, 16-bit and fp8 modes, softcap, window, sinks, splits, page
/// sizes 1-64, ragged lengths with an empty request; one case with 9 rows must not be narrow.
fn narrow_rows(d: &Device) -> CaseResult {
    let cases = [
        (128, 16, 4, 1, (DType::Bf16, DType::Bf16)),
        (128, 1, 8, 1, (DType::F16, DType::F16)),
        (64, 3, 1, 8, (DType::Bf16, DType::Bf16)),
        (256, 64, 4, 2, (DType::Bf16, DType::Bf16)),
        (128, 16, 4, 1, (DType::Bf16, DType::E4m3)),
        (128, 3, 7, 1, (DType::F16, DType::E5m2)),
        (64, 16, 2, 4, (DType::E4m3, DType::E4m3)),
        (256, 1, 1, 5, (DType::Bf16, DType::E4m3)),
        (128, 16, 1, 3, (DType::E5m2, DType::E5m2)),
    ];
    // Every case in both modes; all failures are reported together.
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, (q, kv))) in cases.into_iter().enumerate() {
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![0, 1, 97, 1000 + 517 * i as u32],
        );
        cycle_layout_case(&mut c, i, (q, kv), 9100);
        // The paired fp8 variant (`_m8p`) has its own test (`paired_tiles`).
        c.paired_tiles = Some(false);
        for narrow in [true, false] {
            c.narrow_rows = Some(narrow);
            let (what, tag) = if narrow {
                ("the narrow (_m8) kernel", "_m8,")
            } else {
                ("the 16-row kernel", "_m16,")
            };
            if let Err(e) = run_case_expecting(d, &c, what, |r| r.contains(tag)) {
                failures.push(format!("case {i}, narrow {narrow}: {e}"));
            }
        }
    }
    let mut c = base(128, 16, 3, 3, vec![5, 300]);
    c.kv_heads = 2;
    if let Err(e) = run_case_expecting(d, &c, "9 rows per kv head on the 16-row kernel", |r| {
        r.contains("_m16,")
    }) {
        failures.push(e);
    }
    all_passed(failures)
}

/// The paired fp8 variants (`_m8p`, See Note [paired fp8 tiles] in docs/DESIGN.md): narrow
/// fp8 head-dim-128 cases run with `paired_tiles = Some(true)` (`_m8p`) and `Some(false)`
/// (`_m8`), both against the reference. Every fp8 mode (e4m3 / e5m2 K/V under bf16 and f16 Q,
/// all-fp8), ratios 1-8 with 1-8 new tokens (causal), page sizes 1-64, softcap, window, sinks,
/// fixed and automatic splits; lengths with odd and even tile counts per split (the last step
/// of an odd count takes one tile), an empty request and one-key ones.
fn paired_tiles(d: &Device) -> CaseResult {
    // (page, group, q_len, dtypes, kv lengths)
    let cases = [
        (
            16,
            4,
            1,
            (DType::Bf16, DType::E4m3),
            vec![0, 1, 64, 4096 + 64 * 7 + 5],
        ),
        (3, 8, 1, (DType::F16, DType::E5m2), vec![97, 63, 129, 2000]),
        (
            1,
            1,
            8,
            (DType::Bf16, DType::E5m2),
            vec![1, 700, 3 * 64, 5 * 64 + 1],
        ),
        (64, 2, 4, (DType::F16, DType::E4m3), vec![6000, 0, 33]),
        (16, 7, 1, (DType::E4m3, DType::E4m3), vec![1, 1000, 2049]),
        (
            24,
            1,
            5,
            (DType::E5m2, DType::E5m2),
            vec![7 * 64, 4 * 64, 513],
        ),
    ];
    let mut failures = Vec::new();
    for (i, (page, group, q_len, (q, kv), lens)) in cases.into_iter().enumerate() {
        let mut c = base(128, page, group, q_len, lens);
        cycle_layout_case(&mut c, i, (q, kv), 9700);
        for paired in [true, false] {
            c.paired_tiles = Some(paired);
            let (what, tag) = if paired {
                ("the paired (_m8p) kernel", "_m8p,")
            } else {
                ("the unpaired (_m8) kernel", "_m8,")
            };
            if let Err(e) = run_case_expecting(d, &c, what, |r| r.contains(tag)) {
                failures.push(format!("case {i}, paired {paired}: {e}"));
            }
        }
    }
    all_passed(failures)
}

/// Early K/V tiles (`early_kv`, See Note [early K/V tiles] in docs/DESIGN.md). A late writer
/// launched right before each decode call (it lets the call start at once, waits 30 us, then
/// writes) fills the new tokens' K/V rows, which hold NaN codes until then, as an engine's
/// append kernel would: with `early_kv` every consumer kind (16-row cluster and combine splits,
/// narrow and paired fp8, row-split, wgmma with TMA tiles at head dims 128 and 256), page sizes
/// 1-64, 1-16 new tokens (every key new in one request), an empty request and lengths around a
/// tile must still match the reference, so no new row is read before the dependency. Without
/// `early_kv` even rows before the new tokens written late must be seen (the default reads no
/// K/V before the wait). The control (`early_kv` with rows before the new tokens written late,
/// the contract broken on purpose) only reports whether the early copies beat the writer.
fn early_kv_tiles(d: &Device) -> CaseResult {
    if d.arch() != ferroflash::ModuleArch::Sm90a {
        return Ok(Outcome::Skip(
            "early K/V tiles need griddepcontrol and the late writer (sm_90a module)".into(),
        ));
    }
    // cudarc's event tracking puts event records and waits on the stream around every buffer
    // use, between the late writer and the decode launch; one stream here, so it is not needed.
    // SAFETY: every buffer of these cases lives on the device's one stream.
    unsafe { d.context().disable_event_tracking() };
    let r = early_kv_cases(d);
    // SAFETY: as above; back to the suite's default.
    unsafe { d.context().enable_event_tracking() };
    r
}

fn early_kv_cases(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    // (head dim, page, group, new tokens, (Q, K/V), kv lengths, splits, cluster merge)
    let cases = [
        (
            128,
            16,
            4,
            1,
            (Bf16, Bf16),
            vec![3000, 97, 4101],
            Splits::Auto,
            true,
        ),
        (
            128,
            1,
            8,
            4,
            (F16, F16),
            vec![1000, 65, 0],
            Splits::Fixed(3),
            false,
        ),
        (
            64,
            3,
            1,
            16,
            (Bf16, Bf16),
            vec![16, 17, 700],
            Splits::Auto,
            true,
        ),
        (
            128,
            16,
            4,
            1,
            (Bf16, E4m3),
            vec![2000, 321],
            Splits::Auto,
            true,
        ),
        (
            128,
            64,
            8,
            2,
            (E5m2, E5m2),
            vec![1500, 128],
            Splits::Fixed(2),
            false,
        ),
        (
            256,
            64,
            8,
            8,
            (Bf16, Bf16),
            vec![1200, 300],
            Splits::Auto,
            true,
        ),
        (
            128,
            64,
            16,
            4,
            (Bf16, Bf16),
            vec![2500, 64],
            Splits::Fixed(4),
            true,
        ),
        (
            128,
            24,
            4,
            1,
            (F16, E4m3),
            vec![64, 63, 5000],
            Splits::Auto,
            true,
        ),
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, (q, kv), lens, splits, cluster)) in
        cases.into_iter().enumerate()
    {
        let mut c = base(head_dim, page, group, q_len, lens);
        (c.dtype, c.kv_dtype) = (q, kv);
        c.kv_heads = 2;
        c.splits = splits;
        c.cluster_merge = cluster;
        c.seed = 3600 + i as u64;
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.late_rows = Some(LateRows::New);
        for early in [true, false] {
            c.early_kv = early;
            if let Err(e) = run_case(d, &c) {
                failures.push(format!("case {i}, early_kv {early}, new rows late: {e}"));
            }
        }
        if i < 2 {
            c.late_rows = Some(LateRows::Old);
            c.early_kv = false;
            if let Err(e) = run_case(d, &c) {
                failures.push(format!("case {i}, early_kv off, old rows late: {e}"));
            }
            c.early_kv = true;
            let seen = run_case(d, &c).is_err();
            println!(
                "  control, case {i}: early copies {} the late writer (rows before the new \
                 tokens written late, early_kv on)",
                if seen { "beat" } else { "did not beat" }
            );
        }
    }
    all_passed(failures)
}

/// The row-split consumers (See Note [row-split consumers] in docs/DESIGN.md): cases with 17
/// to 128 packed rows per kv head (head ratios 4, 7, 8, 12, 16 with 2-16 new tokens, causal)
/// run the automatic `_w32` / `_w64` kernel and, where the rows allow, the key-split `_m32`
/// one (`_m16` at head dim 256; `row_split = Some(false)`), all against the reference: head
/// dims 64, 128 and 256, 16-bit and fp8 modes, softcap, window, sinks, splits, page sizes 1-64, ragged lengths with an
/// empty request and a one-key one.
fn row_split(d: &Device) -> CaseResult {
    // (head_dim, page, group, q_len, dtypes, expected kernel tag)
    let cases = [
        (128, 16, 8, 4, (DType::Bf16, DType::Bf16), "_w32,"),
        (128, 3, 8, 8, (DType::Bf16, DType::Bf16), "_w64,"),
        (64, 1, 4, 16, (DType::F16, DType::F16), "_w64,"),
        (128, 64, 12, 3, (DType::Bf16, DType::Bf16), "_w64,"),
        (128, 16, 8, 16, (DType::Bf16, DType::E4m3), "_w64,"),
        (64, 16, 7, 4, (DType::F16, DType::E5m2), "_w32,"),
        (128, 1, 16, 2, (DType::E4m3, DType::E4m3), "_w32,"),
        (128, 16, 7, 5, (DType::Bf16, DType::Bf16), "_w64,"),
        (64, 3, 12, 8, (DType::Bf16, DType::E4m3), "_w64,"),
        // Head dim 256: one CTA per SM, 96 rows in two 64-row blocks.
        (256, 16, 2, 16, (DType::Bf16, DType::Bf16), "_w32,"),
        (256, 3, 12, 8, (DType::F16, DType::F16), "_w64,"),
        (256, 8, 4, 12, (DType::Bf16, DType::E4m3), "_w64,"),
        (256, 1, 6, 4, (DType::E5m2, DType::E5m2), "_w32,"),
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, (q, kv), tag)) in cases.into_iter().enumerate() {
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![0, 1, 97, 700 + 733 * i as u32],
        );
        cycle_layout_case(&mut c, i, (q, kv), 9400);
        // The row-split kernels themselves (the wgmma test covers `_g64`).
        c.wgmma = Some(false);
        // Past 32 rows (and at head dim 256 past 16) the planner takes them only for batches
        // whose keys fill the SMs (`plan::keys_fill_sms`, `plan::m_tiles_for`), longer than the
        // reference should check here: pinned.
        c.m_tiles = Some(if tag == "_w32," { 2 } else { 4 });
        if let Err(e) = run_case_expecting(d, &c, "the row-split kernel", |r| r.contains(tag)) {
            failures.push(format!("case {i}, row split: {e}"));
        }
        if group as u32 * q_len <= 32 {
            c.row_split = Some(false);
            c.m_tiles = None;
            // Head dim 256 has no 32-row key-split layout: 16 rows per CTA.
            let tag = if head_dim > 128 { "_m16," } else { "_m32," };
            if let Err(e) = run_case_expecting(d, &c, "the key-split kernel", |r| r.contains(tag)) {
                failures.push(format!("case {i}, key split: {e}"));
            }
        }
    }
    // The m_tiles override picks the 64-row kernel for 32 rows too.
    let mut c = base(128, 16, 8, 4, vec![5, 300]);
    c.kv_heads = 2;
    c.m_tiles = Some(4);
    c.wgmma = Some(false);
    if let Err(e) = run_case_expecting(d, &c, "32 rows on the _w64 kernel", |r| r.contains("_w64,"))
    {
        failures.push(e);
    }
    all_passed(failures)
}

/// The wgmma consumer (`_g64`, sm_90a; See Note [wgmma consumer] in docs/DESIGN.md) at 64 rows
/// per CTA (`m_tiles = Some(4)`), head dims 64, 128 and 256: 33 to 128 packed rows per kv head,
/// bf16 and f16, softcap, window, sinks, splits, page sizes 1-64, ragged lengths with an empty
/// and a one-key request, against the reference. Skipped on other modules (the variant is sm_90a only).
fn wgmma_consumer(d: &Device) -> CaseResult {
    if d.arch() != ferroflash::ModuleArch::Sm90a {
        return Ok(Outcome::Skip(
            "the wgmma variants are in the sm_90a module only".into(),
        ));
    }
    // (head dim, page, group, new tokens, Q type, K/V type): 16-bit K/V at head dims 64, 128
    // and 256, and fp8 K/V under 16-bit Q at 128 (each stage widened to f16 in shared memory
    // before the wgmma).
    let cases = [
        (128, 16, 8, 8, DType::Bf16, DType::Bf16),
        (128, 3, 4, 16, DType::F16, DType::F16),
        (128, 64, 12, 3, DType::Bf16, DType::Bf16),
        (128, 1, 8, 16, DType::Bf16, DType::Bf16),
        (128, 16, 7, 5, DType::F16, DType::F16),
        (128, 24, 16, 4, DType::Bf16, DType::Bf16),
        (128, 16, 8, 8, DType::Bf16, DType::E4m3),
        (128, 3, 4, 16, DType::Bf16, DType::E5m2),
        (128, 1, 12, 3, DType::F16, DType::E4m3),
        (128, 64, 7, 5, DType::F16, DType::E5m2),
        (128, 16, 16, 4, DType::Bf16, DType::E4m3),
        (128, 24, 8, 16, DType::Bf16, DType::E4m3),
        (64, 16, 4, 16, DType::Bf16, DType::Bf16),
        (64, 3, 7, 8, DType::F16, DType::F16),
        (64, 64, 12, 3, DType::Bf16, DType::Bf16),
        (64, 1, 16, 4, DType::F16, DType::F16),
        (64, 24, 6, 16, DType::Bf16, DType::Bf16),
        (64, 8, 5, 8, DType::F16, DType::F16),
        (256, 16, 8, 8, DType::Bf16, DType::Bf16),
        (256, 3, 4, 16, DType::F16, DType::F16),
        (256, 64, 12, 3, DType::Bf16, DType::Bf16),
        (256, 1, 16, 4, DType::Bf16, DType::Bf16),
        (256, 24, 7, 5, DType::F16, DType::F16),
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, dt, kv)) in cases.into_iter().enumerate() {
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![0, 1, 97, 700 + 911 * i as u32],
        );
        cycle_layout_case(&mut c, i, (dt, kv), 9700);
        // 64-row CTAs: the planner takes them only for batches whose keys fill the SMs
        // (`plan::m_tiles_for`), longer than the reference should check here.
        c.m_tiles = Some(4);
        if let Err(e) = run_case_expecting(d, &c, "the wgmma _g64 kernel", |r| r.contains("_g64,"))
        {
            failures.push(format!("case {i}: {e}"));
        }
    }
    all_passed(failures)
}

/// Head dims other than 64, 128 and 256 (See Note [padded head dims] in docs/DESIGN.md): the
/// multiples of 16 from 16 to 240 run the `_d{64,128,256}p` variants, whose tiles keep the
/// pad columns zero. Every layout (16- and 8-row, two m tiles, the 32- and 64-row row split),
/// bf16 and f16, pages of 1-64 tokens, head ratios 1-16, 1-16 new tokens, softcap, window,
/// sinks, fixed and automatic splits (cluster merge and combine, whose parts must divide the
/// odd head dims), ragged lengths with an empty request, NaN-poisoned spare rows (the
/// generator's), a zero-Q decoy call first in every other case, and HND pages in every third;
/// over an fp8 KV cache (e4m3, e5m2 under bf16 and f16 Q) at 80-112 in each of its five
/// layouts and at 144-240 in each of its four (sm_90a and sm_100a modules).
/// (CUDA graphs at padded head dims: `graph_replay`.)
fn padded_head_dims(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    // (head dim, page, group, new tokens, dtype, m tiles); then the fp8 KV cases (80-112) with
    // (.., Q type, K/V type, m tiles, row split, the layout they must run).
    let fp8 = [
        (96, 16, 4, 1, Bf16, E4m3, None, None, "m8"),
        (96, 1, 8, 4, F16, E5m2, None, None, "w32"),
        (80, 3, 12, 16, Bf16, E5m2, Some(4), None, "w64"),
        (112, 24, 7, 5, Bf16, E4m3, Some(2), None, "w32"),
        (96, 64, 1, 3, F16, E4m3, Some(1), None, "m8"),
        (96, 16, 6, 8, Bf16, E4m3, Some(4), None, "w64"),
        (96, 16, 8, 4, F16, E4m3, Some(2), Some(false), "m32"),
        (112, 3, 4, 3, Bf16, E5m2, None, None, "m16"),
        // Tiles of 256 columns over fp8 K/V (change 141).
        (192, 16, 4, 1, Bf16, E4m3, None, None, "m8"),
        (144, 3, 8, 4, F16, E5m2, Some(2), None, "w32"),
        (240, 24, 12, 5, Bf16, E4m3, Some(4), None, "w64"),
        (176, 64, 1, 16, Bf16, E5m2, Some(1), None, "m16"),
    ];
    let cases = [
        (96, 16, 4, 1, Bf16, None),
        (96, 1, 8, 4, F16, None),
        (96, 3, 12, 16, Bf16, Some(4)),
        (80, 64, 1, 1, Bf16, None),
        (112, 24, 7, 5, F16, Some(2)),
        (48, 16, 4, 4, Bf16, None),
        (32, 8, 16, 2, F16, Some(4)),
        (16, 3, 2, 3, Bf16, None),
        (192, 16, 4, 1, Bf16, None),
        (192, 1, 6, 8, F16, Some(4)),
        (144, 64, 8, 2, Bf16, Some(2)),
        (160, 16, 1, 16, Bf16, Some(1)),
        (240, 24, 5, 3, F16, None),
        (208, 8, 4, 12, Bf16, Some(4)),
        (96, 16, 8, 2, Bf16, Some(2)),
        (176, 3, 3, 1, F16, None),
    ];
    let mut failures = Vec::new();
    let all = cases
        .into_iter()
        .map(|(d, p, g, q, dt, m)| (d, p, g, q, dt, dt, m, None, ""))
        .chain(fp8);
    for (i, (head_dim, page, group, q_len, dt, kv, m_tiles, row_split, layout)) in all.enumerate() {
        if kv != dt && d.arch() == ferroflash::ModuleArch::Sm80 {
            // The padded fp8 K/V entries are not in the sm_80 module (`KernelNotInArch`).
            continue;
        }
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![0, 1, 97, 600 + 1013 * i as u32],
        );
        cycle_layout_case(&mut c, i, (dt, kv), 13500);
        c.m_tiles = m_tiles;
        c.row_split = row_split;
        c.decoy_first = i % 2 == 0;
        if i % 3 == 2 {
            c.kv_layout = KvLayout::Hnd;
        }
        let tile = [64, 128, 256].into_iter().find(|&t| t >= head_dim).unwrap();
        let want = format!("_d{tile}p_{layout}");
        if let Err(e) =
            run_case_expecting(d, &c, &format!("a {want} kernel"), |r| r.contains(&want))
        {
            failures.push(format!("case {i}: {e}"));
        }
    }
    all_passed(failures)
}

/// Kv-head pairs (See Note [kv-head pairs] in docs/DESIGN.md): each case runs the pair view
/// (`kv_head_pairs = Some(true)`, checked in the plan's report) against the reference: fp8
/// K/V at head dims 64-112 (sm_90a / sm_100a modules only), 16-bit K/V at head dims 16-128 (rows
/// of 32-256 bytes, aligned ones too), 2-8 kv heads, ratios 1-12, 1-16 new tokens, every
/// scale layout (the pair's two kv heads take their own q, k and v entries), softcap,
/// window, sinks, fixed and automatic splits through the combine and the cluster merge, page
/// sizes 1-64, the awkward lengths, and a zero-Q decoy run first (no partial leaks).
fn kv_head_pairs(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    // (head dim, page, kv heads, group, new tokens, Q type, K/V type, splits)
    let cases = [
        (64, 16, 8, 4, 1, Bf16, E4m3, Splits::Auto),
        (64, 3, 4, 8, 2, F16, E5m2, Splits::Fixed(3)),
        (64, 1, 2, 1, 16, Bf16, E4m3, Splits::Auto),
        (64, 64, 6, 7, 3, Bf16, E5m2, Splits::Fixed(2)),
        (96, 16, 8, 4, 1, Bf16, Bf16, Splits::Auto),
        (96, 64, 4, 7, 3, F16, F16, Splits::Fixed(4)),
        (80, 3, 2, 12, 2, Bf16, Bf16, Splits::Auto),
        (112, 24, 6, 1, 8, Bf16, Bf16, Splits::Fixed(2)),
        (48, 16, 8, 4, 4, F16, F16, Splits::Auto),
        (32, 8, 4, 16, 2, Bf16, Bf16, Splits::Auto),
        (16, 1, 2, 2, 3, Bf16, Bf16, Splits::Fixed(5)),
        (64, 16, 4, 4, 4, Bf16, Bf16, Splits::Auto),
        (128, 16, 4, 2, 1, F16, F16, Splits::Auto),
        // fp8 K/V at 80-112: the view's tiles of 256 columns (change 141).
        (96, 16, 8, 4, 1, Bf16, E4m3, Splits::Auto),
        (80, 3, 4, 2, 4, F16, E5m2, Splits::Fixed(3)),
        (112, 1, 2, 8, 2, Bf16, E4m3, Splits::Auto),
    ];
    let layouts = [
        ScaleLayout::PerTensor,
        ScaleLayout::PerKvHead,
        ScaleLayout::PerRequestKvHead,
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, kv_heads, group, q_len, dt, kv, splits)) in
        cases.into_iter().enumerate()
    {
        if kv.is_fp8() && d.arch() == ferroflash::ModuleArch::Sm80 {
            // The padded fp8 K/V entries are not in the sm_80 module (`KernelNotInArch`).
            continue;
        }
        let lens = if i % 2 == 0 {
            awkward_lens(page as u32)
        } else {
            vec![0, 1, 97, 600 + 1013 * i as u32]
        };
        let mut c = base(head_dim, page, group, q_len, lens);
        c.kv_heads = kv_heads;
        (c.dtype, c.kv_dtype) = (dt, kv);
        c.kv_head_pairs = Some(true);
        c.softcap = (i % 3 == 1).then_some(30.0);
        c.window_left = (i % 4 == 2).then_some(70);
        c.sinks = i % 2 == 1;
        c.splits = splits;
        c.cluster_merge = i % 5 != 3;
        c.scale = [1.0, 4.0, 0.5][i % 3];
        c.seed = 14_100 + i as u64;
        // Every layout (the 16-bit cases too): the pair's kv heads read their own entries.
        c.scales = Some(layouts[i % 3]);
        c.decoy_first = i % 2 == 0;
        if let Err(e) = run_case_expecting(d, &c, "the kv-head-pair view", |r| {
            r.contains("kv pairs true")
        }) {
            failures.push(format!("case {i}: {e}"));
        }
    }
    all_passed(failures)
}

/// K/V tiles by TMA tensor maps (sm_90a; See Note [TMA tiles] in docs/DESIGN.md): page sizes
/// 8 to 128 (one to eight pages per tile), 16-bit, fp8-KV and all-FP8 modes, the variants with
/// the TMA path (`DecodeGeometry::tma_capable`: wgmma, fp8 row-split), fixed and automatic splits
/// (split starts on and off a page boundary), cluster merge and combine, softcap, window and
/// sinks, ragged lengths whose last tile is partial (its `cp.async` zero fill) and NaN-poisoned
/// spare rows: each case must run with TMA tiles and match the reference, and again with
/// `tma = Some(false)`, bitwise equal to the TMA run (the same bytes land in the same layout).
/// Skipped on other modules.
fn tma_tiles(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, E5m2, F16};
    if d.arch() != ferroflash::ModuleArch::Sm90a {
        return Ok(Outcome::Skip(
            "TMA tiles are used on the sm_90a module only".into(),
        ));
    }
    // (head dim, page, group, new tokens, Q type, K/V type, splits): the `_g64` variants
    // (33-128 rows over 16-bit K/V, or fp8 K/V under a 16-bit Q) and the fp8 row-split ones
    // (17-32 rows; 33-64 for all-FP8).
    let cases = [
        (128, 16, 8, 8, Bf16, Bf16, Splits::Auto),
        (128, 64, 4, 12, F16, F16, Splits::Fixed(3)),
        (128, 32, 8, 16, Bf16, Bf16, Splits::Auto),
        (128, 8, 7, 5, Bf16, Bf16, Splits::Fixed(5)),
        (128, 128, 12, 4, Bf16, Bf16, Splits::Auto),
        (128, 16, 8, 4, Bf16, E4m3, Splits::Auto),
        (128, 8, 8, 3, F16, E5m2, Splits::Fixed(3)),
        (128, 64, 8, 8, E4m3, E4m3, Splits::Auto),
        (128, 16, 16, 4, Bf16, E4m3, Splits::Auto),
        (128, 32, 4, 8, Bf16, E5m2, Splits::Fixed(2)),
        (128, 16, 12, 3, F16, E4m3, Splits::Auto),
        (128, 64, 16, 2, E5m2, E5m2, Splits::Fixed(4)),
        (256, 16, 8, 8, Bf16, Bf16, Splits::Auto),
        (256, 64, 4, 16, F16, F16, Splits::Fixed(3)),
        (256, 32, 16, 4, Bf16, Bf16, Splits::Fixed(2)),
    ];
    let mut failures = Vec::new();
    for (i, (head_dim, page, group, q_len, dt, kv, splits)) in cases.into_iter().enumerate() {
        let mut c = base(
            head_dim,
            page,
            group,
            q_len,
            vec![0, 1, 64, 97, 640, 1000 + 613 * i as u32],
        );
        (c.dtype, c.kv_dtype) = (dt, kv);
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.splits = splits;
        c.softcap = (i % 3 == 1).then_some(30.0);
        c.window_left = (i % 4 == 2).then_some(500);
        c.sinks = i % 2 == 1;
        c.cluster_merge = i % 5 != 3;
        c.seed = 9900 + i as u64;
        // The rows' layout as a batch whose keys fill the SMs gets it (the `_g64` past 32 rows).
        c.m_tiles = Some(ferroflash::plan::m_tiles_for(
            group as u32 * q_len,
            head_dim as u32,
            kv.bytes() as u32,
            true,
            true,
        ));
        let tag = format!("tma boxes of {},", page.min(64));
        let on = run_case_expecting(d, &c, "TMA tiles", |r| r.contains(&tag));
        c.tma = Some(false);
        let off = run_case_expecting(d, &c, "no TMA tiles", |r| r.contains("tma boxes of 0,"));
        // The same bytes reached the same consumers: bitwise equal outputs.
        bitwise_pair(&mut failures, i, "TMA and cp.async runs", on, off, &c);
    }
    all_passed(failures)
}

/// The next-wave prefetch (See Note [next-wave prefetch] in docs/DESIGN.md) on grids of several
/// waves: page sizes 1, 3, 16 and 64, head dims 64-256, ratios 1-12, 1-4 new tokens, bf16,
/// f16 and e4m3 K/V, NHD and HND pages, lengths 0 and 1 among long ones. Each case runs with
/// the prefetch on and off: both against the reference, the plan more than one wave of CTAs
/// (so some CTA prefetches), and bitwise equal outputs (prefetches are hints: the same bytes
/// reach the same consumers).
fn next_wave_prefetch(d: &Device) -> CaseResult {
    use DType::{Bf16, E4m3, F16};
    let mut failures = Vec::new();
    let shapes = [
        (128, 1, 8, 8, 1, 40, Bf16, Bf16, 4),
        (256, 3, 4, 4, 4, 24, F16, F16, 6),
        (64, 16, 2, 12, 2, 64, Bf16, E4m3, 5),
        (128, 64, 8, 1, 1, 48, Bf16, Bf16, 3),
    ];
    for (i, &(head_dim, page, kv_heads, group, q_len, requests, dt, kv, splits)) in
        shapes.iter().enumerate()
    {
        let lens = (0..requests as u32)
            .map(|r| match r % 8 {
                0 => 0,
                1 => 1,
                _ => 300 + (r * 977) % 2700,
            })
            .collect();
        let mut c = base(head_dim, page, group, q_len, lens);
        c.kv_heads = kv_heads;
        (c.dtype, c.kv_dtype) = (dt, kv);
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.splits = Splits::Fixed(splits);
        c.kv_layout = if i % 2 == 1 {
            KvLayout::Hnd
        } else {
            KvLayout::Nhd
        };
        c.sinks = i == 2;
        c.seed = 10_200 + i as u64;
        // "N CTAs (waves of W)" in the report: more than one wave.
        let multi_wave = |r: &str| {
            let num = |s: &str| s.trim().parse::<u32>().ok();
            let (head, tail) = r.split_once(" CTAs (waves of ").unwrap_or(("", ""));
            let ctas = head.rsplit(' ').next().and_then(num);
            let wave = tail.split(')').next().and_then(num);
            matches!((ctas, wave), (Some(n), Some(w)) if n > w)
        };
        let [on, off] = [true, false].map(|on| {
            c.prefetch = Some(on);
            run_case_expecting(d, &c, "more than one wave of CTAs", multi_wave)
        });
        bitwise_pair(&mut failures, i, "prefetch on and off", on, off, &c);
    }
    all_passed(failures)
}

/// One small fp8 case per mode (the sanitizer runs' fp8 coverage; the sweep is too long under
/// racecheck).
fn fp8_quick(d: &Device) -> CaseResult {
    for (i, mut c) in sweep_fp8().into_iter().take(6).enumerate() {
        c.kv_lens = vec![0, 1, 97, 300];
        c.head_dim = [64, 128, 256][i % 3];
        case_result(d, &c)?;
    }
    Ok(Outcome::Pass)
}

/// The portable sm_80 module (mma.sync, software fp8 decoding, `mbarrier.test_wait`) on this
/// GPU: every fp8 mode and both 16-bit types over a few shapes, and the head-dim-256 row-split
/// kernels. Skips where this GPU runs the sm_80 module anyway.
fn sm80_module(d: &Device) -> CaseResult {
    use ferroflash::ModuleArch;
    if d.arch() == ModuleArch::Sm80 {
        return Ok(Outcome::Skip(
            "this GPU runs the sm_80 module in every other case".into(),
        ));
    }
    let d80 = Device::with_module(
        d.context().new_stream().map_err(|e| format!("{e:?}"))?,
        ModuleArch::Sm80,
    )
    .map_err(|e| e.to_string())?;
    let all = sweep_fp8();
    for (i, mut c) in all.into_iter().enumerate().filter(|(i, _)| i % 5 == 0) {
        case_result(&d80, &c)?;
        if i % 10 == 0 {
            (c.dtype, c.kv_dtype, c.scales) = (DType::F16, DType::F16, None);
            case_result(&d80, &c)?;
        }
    }
    // Head dim 256, row split (session 25): on sm_80 the `_d256_w64` over e4m3 keep O in a
    // local array (xtask's KNOWN_SPILLS), a code path of its own.
    let d256 = [
        (2, 16, 2, DType::Bf16, "_w32,"),
        (4, 16, 4, DType::E4m3, "_w64,"),
        (8, 8, 4, DType::E5m2, "_w64,"),
    ];
    for (i, (group, q_len, m_tiles, kv, tag)) in d256.into_iter().enumerate() {
        let mut c = base(256, 16, group, q_len, vec![0, 1, 97, 900]);
        cycle_layout_case(&mut c, i, (DType::Bf16, kv), 9900);
        c.m_tiles = Some(m_tiles);
        run_case_expecting(&d80, &c, "the d256 row-split kernel", |r| r.contains(tag))?;
    }
    Ok(Outcome::Pass)
}

/// NaN and infinity in Q, K or V (at keys every query of the request sees) propagate into the
/// outputs exactly where the float64 reference has them (O and LSE parity), for 16-bit and fp8
/// caches, split and unsplit; the other requests stay finite and correct. fp8 e4m3 has no
/// infinity: an infinite value is stored saturated (±448 · scale) and must stay finite.
fn nan_inf_inputs(d: &Device) -> CaseResult {
    let modes = [
        (DType::Bf16, DType::Bf16),
        (DType::F16, DType::F16),
        (DType::Bf16, DType::E4m3),
        (DType::Bf16, DType::E5m2),
        (DType::E4m3, DType::E4m3),
    ];
    let poisons = [
        Poison::Q(f32::NAN),
        Poison::K(f32::NAN),
        Poison::V(f32::NAN),
        Poison::V(f32::INFINITY),
        Poison::K(f32::NEG_INFINITY),
    ];
    for (i, (q, kv)) in modes.into_iter().enumerate() {
        for (j, poison) in poisons.into_iter().enumerate() {
            let mut c = base(128, 16, 4, 2, vec![700, 50, 0]);
            c.kv_heads = 2;
            (c.dtype, c.kv_dtype) = (q, kv);
            c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
            c.splits = [Splits::Auto, Splits::Fixed(3)][(i + j) % 2];
            c.poison = Some(poison);
            c.seed = 900 + (5 * i + j) as u64;
            case_result(d, &c)?;
        }
    }
    Ok(Outcome::Pass)
}

/// Device buffers the soak's launch-only iterations share: K/V pools of each element width
/// (finite random codes; any layout reads them as `[pages, page_size, kv_heads, head_dim]`), Q of
/// each width, O, LSE, sinks and scale tables, sized for the largest shape drawn.
struct SoakBuffers {
    k16: CudaSlice<u16>,
    v16: CudaSlice<u16>,
    k8: CudaSlice<u8>,
    v8: CudaSlice<u8>,
    q16: CudaSlice<u16>,
    q8: CudaSlice<u8>,
    o: CudaSlice<u16>,
    lse: CudaSlice<f32>,
    sinks: CudaSlice<f32>,
    scales: CudaSlice<f32>,
}

/// Pool elements per K or V pool of the soak (64 MiB of 16-bit codes).
const SOAK_POOL_ELEMS: usize = 32 << 20;
/// Largest Q/O of the soak: 5 requests x 16 tokens x 32 q heads x 256 dims.
const SOAK_QO_ELEMS: usize = 5 * 16 * 32 * 256;

impl SoakBuffers {
    fn new(d: &Device) -> Result<SoakBuffers, String> {
        let s = d.stream();
        let e = |e: cudarc::driver::DriverError| format!("{e:?}");
        let mut rng = SplitMix64(0x050a_4b0f);
        // A block of finite values, repeated: codes of N(0, 1) in bf16 (16-bit pools serve as
        // bf16 and f16: N(0, 1) bf16 codes are finite f16 values too) and e4m3 (finite in e5m2
        // as well: e4m3 codes read as e5m2 are finite except 0x7c-0x7f / 0xfc-0xff, which
        // e4m3 uses only for |x| >= 384, never drawn here).
        let vals: Vec<f32> = (0..1 << 16).map(|_| rng.normal()).collect();
        let b16: Vec<u16> = vals
            .iter()
            .map(|&x| half::bf16::from_f32(x).to_bits())
            .collect();
        let b8: Vec<u8> = match Storage::encode(DType::E4m3, &vals) {
            Storage::U8(v) => v,
            Storage::U16(_) => unreachable!("e4m3 codes are bytes"),
        };
        let rep16 = |n: usize| (0..n).map(|i| b16[i % b16.len()]).collect::<Vec<u16>>();
        let rep8 = |n: usize, off: usize| {
            (0..n)
                .map(|i| b8[(i + off) % b8.len()])
                .collect::<Vec<u8>>()
        };
        Ok(SoakBuffers {
            k16: s.clone_htod(&rep16(SOAK_POOL_ELEMS)).map_err(e)?,
            v16: s.clone_htod(&rep16(SOAK_POOL_ELEMS)).map_err(e)?,
            k8: s.clone_htod(&rep8(SOAK_POOL_ELEMS, 0)).map_err(e)?,
            v8: s.clone_htod(&rep8(SOAK_POOL_ELEMS, 77)).map_err(e)?,
            q16: s.clone_htod(&rep16(SOAK_QO_ELEMS)).map_err(e)?,
            q8: s.clone_htod(&rep8(SOAK_QO_ELEMS, 5)).map_err(e)?,
            o: s.alloc_zeros::<u16>(SOAK_QO_ELEMS).map_err(e)?,
            lse: s.alloc_zeros::<f32>(SOAK_QO_ELEMS / 64).map_err(e)?,
            sinks: s
                .clone_htod(
                    &(0..64)
                        .map(|i| (i % 7) as f32 * 0.25 - 0.5)
                        .collect::<Vec<f32>>(),
                )
                .map_err(e)?,
            scales: s
                .clone_htod(
                    &(0..64)
                        .map(|i| 0.5 + (i % 5) as f32 * 0.25)
                        .collect::<Vec<f32>>(),
                )
                .map_err(e)?,
        })
    }
}

/// One launch-only soak iteration: plan `c` over the shared pools (random page ids, possibly
/// repeated: reads only), launch through `run_raw`, and require every output element of the
/// batch written and finite.
fn soak_launch(
    d: &Device,
    b: &mut SoakBuffers,
    c: &DecodeCase,
    rng: &mut SplitMix64,
) -> Result<(), String> {
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    let e = |e: cudarc::driver::DriverError| format!("{e:?}");
    let kv_bytes = if c.kv_dtype.is_fp8() { 1 } else { 2 };
    let row = c.page_size * c.kv_heads * c.head_dim;
    let num_pages = (SOAK_POOL_ELEMS / row) as u32;
    let mut cfg = DecodeConfig::new(
        (c.kv_heads * c.group) as u32,
        c.kv_heads as u32,
        c.head_dim as u32,
        c.page_size as u32,
        num_pages,
        Dtype16::Bf16,
    );
    config_dtypes(&mut cfg, c.dtype, c.kv_dtype);
    (cfg.softcap, cfg.window_left, cfg.splits) = (c.softcap, c.window_left, c.splits);
    cfg.scales = c.scales.unwrap_or_default();
    cfg.kv_layout = c.kv_layout;
    cfg.early_kv = c.early_kv;
    let q_indptr: Vec<u32> = (0..=c.kv_lens.len() as u32).map(|r| r * c.q_len).collect();
    let mut page_indptr = vec![0u32];
    let mut page_indices = Vec::new();
    for &l in &c.kv_lens {
        let pages = l.div_ceil(c.page_size as u32);
        page_indices.extend((0..pages).map(|_| (rng.next_u64() % num_pages as u64) as u32));
        page_indptr.push(page_indices.len() as u32);
    }
    let plan = DecodePlan::new(
        d,
        &cfg,
        &BatchTables {
            q_indptr: &q_indptr,
            kv_lens: &c.kv_lens,
            page_indptr: &page_indptr,
            page_indices: &page_indices,
        },
    )
    .map_err(|e| format!("plan: {e}"))?;
    let n_o = plan.token_rows() * cfg.q_heads as usize * c.head_dim;
    let s = d.stream();
    s.memcpy_htod(&vec![0x7fc0u16; n_o], &mut b.o.slice_mut(..n_o))
        .map_err(e)?;
    let addr8 = |x: &CudaSlice<u8>| x.device_ptr(s).0;
    let addr16 = |x: &CudaSlice<u16>| x.device_ptr(s).0;
    let (k, v) = if kv_bytes == 1 {
        (addr8(&b.k8), addr8(&b.v8))
    } else {
        (addr16(&b.k16), addr16(&b.v16))
    };
    let scales = b.scales.device_ptr(s).0;
    let raw = ferroflash::RawTensors {
        q: if c.dtype.is_fp8() {
            addr8(&b.q8)
        } else {
            addr16(&b.q16)
        },
        k_pool: k,
        v_pool: v,
        o: b.o.device_ptr_mut(s).0,
        lse: b.lse.device_ptr_mut(s).0,
        sinks: if c.sinks { b.sinks.device_ptr(s).0 } else { 0 },
        q_scale: if c.scales.is_some() { scales } else { 0 },
        k_scale: if c.scales.is_some() { scales + 4 } else { 0 },
        v_scale: if c.scales.is_some() { scales + 8 } else { 0 },
    };
    // SAFETY: every buffer is sized for the largest shape the soak draws (Q/O/LSE for 5 x 16
    // tokens of 32 heads of 256 dims; pools of SOAK_POOL_ELEMS elements, `num_pages` chosen to
    // fit; 64 sinks and 64 - 2 scales from the offsets used, at most 5 x 4 per table) and
    // outlives the launch, which completes before the copy back below.
    unsafe { plan.run_raw(d, raw, s.cu_stream()) }.map_err(|e| format!("run: {e}"))?;
    let o: Vec<u16> = s.clone_dtoh(&b.o.slice(..n_o)).map_err(e)?;
    let f16_out = cfg.dtype == Dtype16::F16;
    match o.iter().position(|&x| {
        if f16_out {
            !half::f16::from_bits(x).is_finite()
        } else {
            !half::bf16::from_bits(x).is_finite()
        }
    }) {
        Some(i) => Err(format!(
            "output element {i} of {n_o} not written or not finite (bits {:#06x})",
            o[i]
        )),
        None => Ok(()),
    }
}

/// Soak: `FF_SOAK_LAUNCHES` (default 10,000) launches of random shapes (head dims, page sizes,
/// ratios, lengths incl. 0, new tokens, every dtype mode, scale layouts, options, splits). Each
/// plans its own batch (plan buffers allocated and freed every time) over shared pools and
/// requires every output element written and finite; every 100th instead runs the full case
/// (fresh inputs, two runs bitwise equal, float64 reference). Free device memory must be back to
/// its level after warm-up. Runs only when named (`gpu-tests soak`).
fn soak(d: &Device) -> CaseResult {
    use cudarc::driver::result::mem_get_info;
    let n: u64 = std::env::var("FF_SOAK_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let modes: Vec<(DType, DType)> = [(DType::Bf16, DType::Bf16), (DType::F16, DType::F16)]
        .into_iter()
        .chain(FP8_MODES)
        .collect();
    let layouts = SCALE_LAYOUTS;
    let mut bufs = SoakBuffers::new(d)?;
    let mut rng = SplitMix64(0x50a4);
    let mut baseline = None;
    let mut checked = 0;
    let pick = |rng: &mut SplitMix64, k: usize| (rng.next_u64() % k as u64) as usize;
    let t0 = std::time::Instant::now();
    for i in 0..n {
        let (q, kv) = modes[pick(&mut rng, modes.len())];
        let requests = 1 + pick(&mut rng, 5);
        let c = DecodeCase {
            // A padded head dim for one case in four: any multiple of 16 up to 256 over 16-bit
            // Q and K/V, 80, 96 or 112 over an fp8 KV cache under a 16-bit Q (not in the sm_80 module).
            head_dim: if !kv.is_fp8() && pick(&mut rng, 4) == 0 {
                16 * (1 + pick(&mut rng, 16))
            } else if kv.is_fp8()
                && !q.is_fp8()
                && d.arch() != ferroflash::ModuleArch::Sm80
                && pick(&mut rng, 4) == 0
            {
                [80, 96, 112][pick(&mut rng, 3)]
            } else {
                [64, 128, 256][pick(&mut rng, 3)]
            },
            page_size: [1, 2, 3, 5, 16, 24, 64][pick(&mut rng, 7)],
            kv_heads: [1, 2, 4][pick(&mut rng, 3)],
            group: [1, 2, 4, 7, 8][pick(&mut rng, 5)],
            q_len: 1 + pick(&mut rng, 16) as u32,
            kv_lens: (0..requests)
                .map(|_| {
                    if pick(&mut rng, 8) == 0 {
                        0
                    } else {
                        pick(&mut rng, 5000) as u32
                    }
                })
                .collect(),
            dtype: q,
            kv_dtype: kv,
            softcap: (pick(&mut rng, 6) == 0).then_some(20.0),
            window_left: (pick(&mut rng, 6) == 0).then_some(pick(&mut rng, 200) as u32),
            sinks: pick(&mut rng, 4) == 0,
            scales: if kv.is_fp8() || pick(&mut rng, 4) == 0 {
                Some(layouts[pick(&mut rng, 3)])
            } else {
                None
            },
            scale: [0.5, 1.0, 2.0][pick(&mut rng, 3)],
            splits: [
                Splits::Auto,
                Splits::Auto,
                Splits::Fixed(1 + pick(&mut rng, 8) as u32),
            ][pick(&mut rng, 3)],
            seed: 20_000 + i,
            poison: None,
            m_tiles: None,
            tail: None,
            balance: ferroflash::Balance::Auto,
            cluster_merge: true,
            max_cluster_splits: None,
            combine_parts: None,
            decoy_first: false,
            narrow_rows: None,
            paired_tiles: None,
            kv_head_pairs: None,
            row_split: None,
            wgmma: None,
            tma: None,
            kv_layout: [KvLayout::Nhd, KvLayout::Hnd][pick(&mut rng, 2)],
            prefetch: None,
            early_kv: pick(&mut rng, 2) == 1,
            late_rows: None,
            far_pages: false,
        };
        let r = if i % 100 == 99 {
            let mut small = c.clone();
            small.kv_lens.iter_mut().for_each(|l| *l %= 600);
            checked += 1;
            run_case(d, &small).map(|_| ())
        } else {
            soak_launch(d, &mut bufs, &c, &mut rng)
        };
        r.map_err(|e| format!("launch {i}: {e}\n    case: {c:?}"))?;
        if (i + 1) % 500 == 0 {
            d.stream().synchronize().map_err(|e| format!("{e:?}"))?;
            let free = mem_get_info().map_err(|e| format!("{e:?}"))?.0;
            println!(
                "  soak: {} launches, {} checked against the reference, {:.0} s, {} MiB free",
                i + 1,
                checked,
                t0.elapsed().as_secs_f64(),
                free >> 20
            );
            use std::io::Write;
            let _ = std::io::stdout().flush();
        }
        if i == 99 {
            d.stream().synchronize().map_err(|e| format!("{e:?}"))?;
            baseline = Some(mem_get_info().map_err(|e| format!("{e:?}"))?.0);
        }
    }
    d.stream().synchronize().map_err(|e| format!("{e:?}"))?;
    let end = mem_get_info().map_err(|e| format!("{e:?}"))?.0;
    if let Some(b) = baseline {
        let lost = b.saturating_sub(end);
        println!("  soak: {n} launches, {checked} against the reference; free device memory after warm-up {} MiB, at the end {} MiB", b >> 20, end >> 20);
        if lost > 16 << 20 {
            return Err(format!(
                "device memory not returned: {} MiB less free than after warm-up",
                lost >> 20
            ));
        }
    }
    Ok(Outcome::Pass)
}

fn splits_agree(d: &Device) -> CaseResult {
    for (q, kv) in [
        (DType::Bf16, DType::Bf16),
        (DType::Bf16, DType::E4m3),
        (DType::E4m3, DType::E4m3),
    ] {
        for splits in [
            Splits::Fixed(1),
            Splits::Fixed(2),
            Splits::Fixed(7),
            Splits::Auto,
        ] {
            let mut c = base(128, 16, 4, 1, vec![3000, 17, 0, 1200]);
            (c.dtype, c.kv_dtype) = (q, kv);
            c.scales = kv.is_fp8().then_some(ScaleLayout::PerRequestKvHead);
            c.splits = splits;
            case_result(d, &c)?;
            // The experimental tail split: the block ends in small chunks of their own slots.
            c.tail = Some(ferroflash::TailSplit {
                percent: 30,
                chunk_tiles: 2,
            });
            case_result(d, &c)?;
        }
    }
    Ok(Outcome::Pass)
}

/// The last-wave split (host/src/plan.rs, "Last-wave split"): one CTA per SM (head dim 256,
/// 64 rows per kv head: `_d256_g64` on sm_90a, the row-split kernel elsewhere) and one or a
/// few blocks more than the SMs (of 10-12 tiles: longer ones get split or balanced plans), so
/// the blocks of the last wave are cut into pieces merged by the combine while the others stay
/// whole. Pages 1, 16 and 32, bf16 and f16, one and two kv heads, a window and sinks on one
/// case: against the reference, bitwise stable, and each plan must have split blocks without
/// being balanced.
fn last_wave_split(d: &Device) -> CaseResult {
    let sms = d.caps().sm_count;
    let mut failures = Vec::new();
    for (i, &(page, kv_heads, extra, len, dt)) in [
        (32, 1, 1u32, 732u32, DType::Bf16),
        (1, 2, 2, 732, DType::F16),
        (16, 1, 3, 640, DType::Bf16),
    ]
    .iter()
    .enumerate()
    {
        // kv_heads x requests = sms + extra blocks (rounded up to whole requests).
        let requests = (sms + extra).div_ceil(kv_heads as u32);
        let mut c = base(256, page, 16, 4, vec![len; requests as usize]);
        c.kv_heads = kv_heads;
        (c.dtype, c.kv_dtype) = (dt, dt);
        c.window_left = (i == 1).then_some(300);
        c.sinks = i == 2;
        c.seed = 10_400 + i as u64;
        let one_per_sm = format!("(waves of {sms})");
        let want = |r: &str| {
            !r.contains(" 0 merges") && r.contains("balanced false") && r.contains(&one_per_sm)
        };
        if let Err(e) = run_case_expecting(
            d,
            &c,
            "one CTA per SM, split last-wave blocks, not balanced",
            want,
        ) {
            failures.push(format!("case {i}: {e}"));
        }
    }
    all_passed(failures)
}

/// Balanced plans (`Balance::On`; host/src/plan.rs, "Balanced plans"): blocks cut into
/// pieces of unequal length at slot boundaries, merged by the combine, in dispatch order. 16-bit
/// and fp8 caches, pages 1, 3, 16 and 64, head dims 64, 128 and 256, four new tokens (causal),
/// sinks, softcap, a window shorter than a piece, empty requests, ragged lengths: against the
/// reference, bitwise stable, and each plan must be balanced.
fn balanced_plans(d: &Device) -> CaseResult {
    let ragged: Vec<u32> = (0..24u32)
        .map(|i| {
            if i % 7 == 3 {
                0
            } else {
                900 + (i * 1733) % 7000
            }
        })
        .collect();
    for (i, (head_dim, page, group, q_len, (q, kv), lens)) in [
        (128, 16, 4, 1, (DType::Bf16, DType::Bf16), vec![3500u32; 20]),
        (128, 3, 4, 4, (DType::Bf16, DType::Bf16), ragged.clone()),
        (64, 1, 8, 1, (DType::F16, DType::F16), vec![4100; 18]),
        (256, 64, 2, 2, (DType::Bf16, DType::Bf16), vec![2900; 24]),
        (128, 16, 4, 1, (DType::Bf16, DType::E4m3), ragged),
        (128, 16, 4, 1, (DType::E4m3, DType::E4m3), vec![5000; 15]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = base(head_dim, page, group, q_len, lens);
        // Enough tiles for every slot (the variants at four CTAs per SM need twice the heads).
        c.kv_heads = if kv.is_fp8() || head_dim == 64 { 4 } else { 2 };
        (c.dtype, c.kv_dtype) = (q, kv);
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.balance = ferroflash::Balance::On;
        c.sinks = i % 2 == 1;
        c.softcap = (i % 3 == 2).then_some(30.0);
        c.window_left = (i == 3).then_some(100);
        c.seed = 900 + i as u64;
        run_case_expecting(d, &c, "a balanced plan", |r| r.contains("balanced true"))?;
    }
    Ok(Outcome::Pass)
}

/// Split-KV merged inside thread-block clusters (every block in the same number of splits,
/// 2..=`MAX_CLUSTER_SPLITS`: See Note [cluster merge] in docs/DESIGN.md): 16-bit and fp8 caches, head dims 64,
/// 128 and 256, one and two m tiles, sinks, softcap and window, empty splits (a window shorter
/// than the range), against the reference and bitwise stable across two runs; each case must
/// have run in cluster mode, and again with the combine kernel (`cluster_merge = false`; past 4
/// splits also with `max_cluster_splits = 4`).
fn cluster_merge(d: &Device) -> CaseResult {
    for (i, (head_dim, group, q_len, splits, (q, kv))) in [
        (128, 4, 1, 2, (DType::Bf16, DType::Bf16)),
        (128, 4, 1, 4, (DType::Bf16, DType::Bf16)),
        (64, 8, 4, 3, (DType::F16, DType::F16)),
        (256, 4, 2, 4, (DType::Bf16, DType::Bf16)),
        (128, 8, 4, 4, (DType::Bf16, DType::E4m3)),
        (128, 4, 1, 3, (DType::E4m3, DType::E4m3)),
        (128, 1, 16, 2, (DType::F16, DType::E5m2)),
        (128, 4, 1, 8, (DType::Bf16, DType::E4m3)),
        (128, 4, 1, 6, (DType::Bf16, DType::Bf16)),
        (64, 4, 1, 8, (DType::F16, DType::F16)),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = base(
            head_dim,
            [16, 3, 1, 64][i % 4],
            group,
            q_len,
            vec![1000 + 61 * i as u32; 3],
        );
        c.kv_heads = 2;
        (c.dtype, c.kv_dtype) = (q, kv);
        c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
        c.splits = Splits::Fixed(splits);
        c.sinks = i % 2 == 0;
        c.softcap = (i % 3 == 1).then_some(30.0);
        // A window shorter than a split leaves the first splits without a visible key.
        c.window_left = (i % 3 == 2).then_some(100);
        c.seed = 500 + i as u64;
        // Fixed(n) cuts whole tiles, so a block may get fewer than n splits (17 tiles in 8
        // splits: 6 chunks of 3); the plan must be clustered all the same.
        run_case_expecting(d, &c, "a cluster-merge plan", |r| {
            !r.contains("clusters of 0,")
        })?;
        if splits > 4 {
            // Over the configured largest cluster: the combine kernel.
            c.max_cluster_splits = Some(4);
            run_case_expecting(d, &c, "the combine (max_cluster_splits 4)", |r| {
                r.contains("clusters of 0,")
            })?;
            c.max_cluster_splits = None;
        }
        c.cluster_merge = false;
        let report = run_case(d, &c).map_err(|e| format!("combine: {e}\n    case: {c:?}"))?;
        if !report.contains("clusters of 0,") {
            return Err(format!("cluster_merge = false still clustered: {report}"));
        }
    }
    Ok(Outcome::Pass)
}

/// The combine over column parts (See Note [combine parts] in docs/DESIGN.md): automatic,
/// one CTA per block and the most parts (`head_dim / 16`), each after a decoy call on a zero Q
/// with the same plan (the decoy's partials must not reach the checked calls), against the
/// reference and bitwise stable. 16-bit and fp8 caches, one and two m tiles, 2 to 64 splits,
/// empty splits (window), sinks, ragged lengths with an empty request.
fn combine_parts(d: &Device) -> CaseResult {
    for (i, (head_dim, group, q_len, splits, (q, kv), lens)) in [
        (
            128,
            4,
            1,
            Splits::Auto,
            (DType::Bf16, DType::Bf16),
            vec![32768],
        ),
        (
            128,
            4,
            1,
            Splits::Fixed(64),
            (DType::Bf16, DType::Bf16),
            vec![5000, 700, 0, 64],
        ),
        (
            64,
            8,
            4,
            Splits::Fixed(3),
            (DType::F16, DType::F16),
            vec![1000, 97],
        ),
        (
            256,
            4,
            2,
            Splits::Fixed(5),
            (DType::Bf16, DType::Bf16),
            vec![2049],
        ),
        (
            128,
            8,
            4,
            Splits::Auto,
            (DType::Bf16, DType::E4m3),
            vec![4096, 54, 3000],
        ),
        (
            128,
            4,
            1,
            Splits::Fixed(7),
            (DType::E4m3, DType::E4m3),
            vec![1500],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        for parts in [None, Some(1), Some(head_dim as u32 / 16)] {
            let mut c = base(head_dim, [16, 3, 1, 64][i % 4], group, q_len, lens.clone());
            c.kv_heads = if i == 0 { 8 } else { 2 };
            (c.dtype, c.kv_dtype) = (q, kv);
            c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
            c.splits = splits;
            c.sinks = i % 2 == 1;
            c.window_left = (i == 2).then_some(100);
            c.cluster_merge = false;
            c.combine_parts = parts;
            c.decoy_first = true;
            c.seed = 700 + i as u64;
            run_case_expecting(d, &c, "split blocks", |r| !r.contains(" 0 merges"))?;
        }
    }
    Ok(Outcome::Pass)
}

/// More cluster-merge coverage (added after session 6's last device call): the 16-bit d128 m32
/// variants (four load warps, all of which meet the cluster barriers), the row-split w32 and
/// w64 ones, and non-finite inputs (NaN and inf in Q, K or V of request 0 must reach O and LSE
/// as in the reference, through the cluster merge's weights).
fn cluster_merge_more(d: &Device) -> CaseResult {
    let mut cases = Vec::new();
    for (i, (dt, splits)) in [
        (DType::Bf16, 2),
        (DType::F16, 4),
        (DType::Bf16, 3),
        (DType::F16, 2),
    ]
    .into_iter()
    .enumerate()
    {
        // 32 rows (m32, then w32), then 64 (w64).
        let mut c = base(128, 16, 8, if i < 3 { 4 } else { 8 }, vec![900; 2]);
        c.kv_heads = 2;
        (c.dtype, c.kv_dtype) = (dt, dt);
        c.splits = Splits::Fixed(splits);
        c.sinks = i % 2 == 0;
        c.seed = 600 + i as u64;
        c.row_split = (i < 2).then_some(false);
        // Pinned: a batch this short gets 16-row CTAs from the planner (`plan::m_tiles_for`).
        c.m_tiles = Some(if i < 3 { 2 } else { 4 });
        // 64 rows: the row-split `_w64` (the TMA case runs `_g64` in clusters).
        c.wgmma = Some(false);
        cases.push(c);
    }
    for (j, poison) in [
        Poison::Q(f32::NAN),
        Poison::K(f32::NAN),
        Poison::V(f32::INFINITY),
        Poison::K(f32::NEG_INFINITY),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = base(128, 16, 4, 2, vec![700; 3]);
        c.kv_heads = 2;
        c.splits = Splits::Fixed(2 + j as u32 % 3);
        c.poison = Some(poison);
        c.seed = 700 + j as u64;
        cases.push(c);
    }
    for c in cases {
        run_case_expecting(d, &c, "a cluster-merge plan", |r| {
            !r.contains("clusters of 0,")
        })?;
    }
    Ok(Outcome::Pass)
}

/// The config's `m_tiles` override: more than 16 packed rows per kv head (8:1 GQA, 4 new
/// tokens) in one or two 16-row tiles per CTA, 16-bit and fp8 caches, split and unsplit, against
/// the reference.
fn m_tiles_override(d: &Device) -> CaseResult {
    for (i, (m, (q, kv))) in [Some(1), Some(2)]
        .into_iter()
        .flat_map(|m| [(DType::Bf16, DType::Bf16), (DType::F16, DType::E4m3)].map(|t| (m, t)))
        .enumerate()
    {
        for head_dim in [64, 128] {
            let mut c = base(head_dim, 16, 8, 4, vec![700, 0, 97]);
            c.kv_heads = 2;
            (c.dtype, c.kv_dtype) = (q, kv);
            c.scales = kv.is_fp8().then_some(ScaleLayout::PerKvHead);
            c.splits = [Splits::Auto, Splits::Fixed(3)][i % 2];
            c.m_tiles = m;
            c.seed = 300 + i as u64;
            case_result(d, &c)?;
        }
    }
    Ok(Outcome::Pass)
}

fn empty_requests(d: &Device) -> CaseResult {
    for sinks in [false, true] {
        let mut c = base(128, 16, 4, 4, vec![0, 0, 5]);
        c.sinks = sinks;
        case_result(d, &c)?;
    }
    Ok(Outcome::Pass)
}

/// Wrong shapes, dtypes and alignment are refused with typed errors and nothing is written.
fn bad_tensors(d: &Device) -> CaseResult {
    use ferroflash::{Error, RawTensors};
    let cfg = DecodeConfig::new(8, 2, 128, 16, 4, Dtype16::Bf16);
    let (q_indptr, kv_lens, page_indptr, page_indices) = ([0u32, 1], [20u32], [0u32, 2], [3u32, 1]);
    let tables = BatchTables {
        q_indptr: &q_indptr,
        kv_lens: &kv_lens,
        page_indptr: &page_indptr,
        page_indices: &page_indices,
    };
    let plan = DecodePlan::new(d, &cfg, &tables).map_err(|e| e.to_string())?;
    let s = d.stream();
    let alloc16 = |n: usize| {
        s.clone_htod(&vec![0x7fc0u16; n])
            .map_err(|e| format!("{e:?}"))
    };
    let pool = cfg.pool_elems();
    let (q, k, v) = (alloc16(8 * 128)?, alloc16(pool)?, alloc16(pool)?);
    let short_q = alloc16(8 * 128 - 1)?;
    let q32 = s
        .clone_htod(&vec![0f32; 8 * 128])
        .map_err(|e| format!("{e:?}"))?;
    let mut o = alloc16(8 * 128)?;
    let mut o32 = s
        .clone_htod(&vec![0f32; 8 * 128])
        .map_err(|e| format!("{e:?}"))?;
    match plan.run(d, DecodeTensors::new(&short_q, &k, &v, &mut o)) {
        Err(Error::ShapeMismatch { name: "q", .. }) => {}
        r => return Err(format!("short q: {r:?}")),
    }
    let mut long_o = alloc16(8 * 128 + 8)?;
    match plan.run(d, DecodeTensors::new(&q, &k, &v, &mut long_o)) {
        Err(Error::ShapeMismatch { name: "o", .. }) => {}
        r => return Err(format!("long o: {r:?}")),
    }
    match plan.run(d, DecodeTensors::new(&q32, &q32, &q32, &mut o32)) {
        Err(Error::DtypeMismatch { name: "q", .. }) => {}
        r => return Err(format!("f32 q: {r:?}")),
    }
    // half::f16 queries for a bf16 config: same size, other format.
    let q_f16 = s
        .alloc_zeros::<half::f16>(8 * 128)
        .map_err(|e| format!("{e:?}"))?;
    match plan.run(d, DecodeTensors::new(&q_f16, &k, &v, &mut o)) {
        Err(Error::ElemMismatch {
            name: "q",
            got: "f16",
            need: "bf16",
        }) => {}
        r => return Err(format!("f16 q for a bf16 config: {r:?}")),
    }
    let raw = |q: u64| RawTensors {
        q,
        k_pool: 256,
        v_pool: 512,
        o: 768,
        ..Default::default()
    };
    // SAFETY: rejected by the alignment check before anything is launched.
    match unsafe { plan.run_raw(d, raw(4096 + 2), s.cu_stream()) } {
        Err(Error::Misaligned { name: "q", .. }) => {}
        r => return Err(format!("misaligned q: {r:?}")),
    }
    // SAFETY: rejected (null) before anything is launched.
    match unsafe { plan.run_raw(d, raw(0), s.cu_stream()) } {
        Err(Error::InvalidArgument { name: "q", .. }) => {}
        r => return Err(format!("null q: {r:?}")),
    }
    // O in place over Q (and LSE over a pool) through run_raw: refused before any launch
    // (other CTAs may still read those rows).
    {
        use cudarc::driver::DevicePtr;
        let (qa, _gq) = q.device_ptr(s);
        let (ka, _gk) = k.device_ptr(s);
        let (va, _gv) = v.device_ptr(s);
        let (oa, _go) = o.device_ptr(s);
        let over = |o: u64, lse: u64| RawTensors {
            q: qa,
            k_pool: ka,
            v_pool: va,
            o,
            lse,
            ..Default::default()
        };
        // SAFETY: rejected (O overlaps Q) before anything is launched.
        match unsafe { plan.run_raw(d, over(qa, 0), s.cu_stream()) } {
            Err(Error::InvalidArgument { name: "o", .. }) => {}
            r => return Err(format!("o over q: {r:?}")),
        }
        // SAFETY: rejected (LSE inside the V pool) before anything is launched.
        match unsafe { plan.run_raw(d, over(oa, va + 256), s.cu_stream()) } {
            Err(Error::InvalidArgument { name: "lse", .. }) => {}
            r => return Err(format!("lse over v_pool: {r:?}")),
        }
    }
    // The plan on another module of the same context (sm_80's has no cluster merge): refused
    // before any launch. (The same check refuses another context; that case needs a second
    // GPU and is not exercised here.)
    if d.arch() != ferroflash::ModuleArch::Sm80 {
        let d80 = Device::with_module(
            d.context().new_stream().map_err(|e| format!("{e:?}"))?,
            ferroflash::ModuleArch::Sm80,
        )
        .map_err(|e| e.to_string())?;
        match plan.run(&d80, DecodeTensors::new(&q, &k, &v, &mut o)) {
            Err(Error::WrongDevice { name: "plan" }) => {}
            r => return Err(format!("plan run on another module: {r:?}")),
        }
        // SAFETY: rejected (another module) before anything is launched.
        match unsafe { plan.run_raw(&d80, raw(4096), s.cu_stream()) } {
            Err(Error::WrongDevice { name: "plan" }) => {}
            r => return Err(format!("plan run_raw on another module: {r:?}")),
        }
    }
    // An fp8 cache config: 16-bit pools and a wrong-length scale table are refused.
    let mut cfg8 = cfg.clone();
    cfg8.kv_fp8 = Some(Fp8Format::E4m3);
    let plan8 = DecodePlan::new(d, &cfg8, &tables).map_err(|e| e.to_string())?;
    match plan8.run(d, DecodeTensors::new(&q, &k, &v, &mut o)) {
        Err(Error::DtypeMismatch { name: "k_pool", .. }) => {}
        r => return Err(format!("16-bit pools for an e4m3 cache: {r:?}")),
    }
    let (k8, v8) = (
        s.alloc_zeros::<u8>(pool).map_err(|e| format!("{e:?}"))?,
        s.alloc_zeros::<u8>(pool).map_err(|e| format!("{e:?}"))?,
    );
    let bad_scale = s.clone_htod(&[1f32; 3]).map_err(|e| format!("{e:?}"))?;
    let mut t8 = DecodeTensors::new(&q, &k8, &v8, &mut o);
    t8.k_scale = Some(&bad_scale);
    match plan8.run(d, t8) {
        Err(Error::ShapeMismatch {
            name: "k_scale", ..
        }) => {}
        r => return Err(format!("3 k scales for 2 kv heads: {r:?}")),
    }
    s.synchronize().map_err(|e| format!("{e:?}"))?;
    let after: Vec<u16> = s.clone_dtoh(&o).map_err(|e| format!("{e:?}"))?;
    if after.iter().any(|&b| b != 0x7fc0) {
        return Err("an output was written although every call was refused".into());
    }
    Ok(Outcome::Pass)
}

/// Graph mode: capture one run of a capacity-sized plan, then `update` to another batch
/// (other lengths, request count, page table and data in the same buffers) and replay; both
/// replays must match the float64 reference, and a replay must equal a direct run bitwise.
/// Also with the experimental tail split (its larger grid reserved at capture), and with the
/// grid launched in clusters (sm_90a): batches split evenly into a divisor of the cluster size
/// merge in them (groups of 2 in clusters of 4, the last cluster half idle; groups of 4), the
/// others go to the combine from the same clustered grid.
fn graph_replay(d: &Device) -> CaseResult {
    // `graph_cluster: Some(4)` under `max_cluster_splits: 1` means no clusters (as in direct
    // plans), not an error.
    let mut cfg = DecodeConfig::new(16, 4, 128, 16, 64, Dtype16::Bf16);
    (cfg.graph_cluster, cfg.max_cluster_splits) = (Some(4), 1);
    let cap = ferroflash::GraphCapacity {
        max_requests: 4,
        max_new_tokens: 1,
        max_page_entries: 64,
    };
    match DecodePlan::for_graphs(d, &cfg, cap) {
        Ok(p) if p.launch_cluster() <= 1 => {}
        Ok(p) => {
            return Err(format!(
                "max_cluster_splits 1: launched in clusters of {}",
                p.launch_cluster()
            ))
        }
        Err(e) => return Err(format!("max_cluster_splits 1, graph_cluster Some(4): {e}")),
    }
    graph_replay_with(d, None, 4, false, None, 128)?;
    graph_replay_with(
        d,
        Some(ferroflash::TailSplit {
            percent: 25,
            chunk_tiles: 2,
        }),
        4,
        false,
        None,
        128,
    )?;
    // At most 2 new tokens x group 4 = 8 rows: the narrow kernel.
    graph_replay_with(d, None, 2, false, None, 128)?;
    // Up to 16 new tokens x group 4 = 64 rows: the row-split _w64 kernel, or the wgmma _g64
    // one on sm_90a (checked).
    graph_replay_with(d, None, 16, false, None, 128)?;
    // A balanced plan (blocks cut at slot boundaries, dispatch order) replayed after updates.
    graph_replay_with(d, None, 4, true, None, 128)?;
    // Clustered grids: (splits per block, cluster size).
    graph_replay_with(d, None, 4, false, Some((2, 4)), 128)?;
    graph_replay_with(d, None, 2, false, Some((4, 4)), 128)?;
    // Padded head dims (See Note [padded head dims]): 192 in 16-row CTAs, 80 in clustered
    // grids, 96 in the row-split `_w64` over HND pages (the 16-token graph's layout).
    graph_replay_with(d, None, 4, false, None, 192)?;
    graph_replay_with(d, None, 4, false, Some((2, 4)), 80)?;
    graph_replay_with(d, None, 16, false, None, 96)?;
    // Kv-head pairs (See Note [kv-head pairs]): 96 over NHD pages, four kv heads read as two
    // of 192 (checked).
    graph_replay_with(d, None, 4, false, None, 96)
}

/// Graph capture and replay with `max_new_tokens` new tokens at most (the batches' new tokens
/// are capped to it, and scaled by 4 from 8 up); 2 or fewer runs the narrow variant, 16 the
/// row-split `_w64` one or, on sm_90a, the wgmma `_g64` one (pinned, checked), over HND pages.
/// `clusters`: `Some((splits, n))` fixes the splits per block and launches the grid in clusters
/// of `n` (three kv heads, so that a batch of three requests has an odd number of blocks), and
/// adds a batch whose blocks all split `splits` ways, which must merge in the clusters on
/// sm_90a.
fn graph_replay_with(
    d: &Device,
    tail: Option<ferroflash::TailSplit>,
    max_new_tokens: u32,
    balanced: bool,
    clusters: Option<(u32, u32)>,
    head_dim: usize,
) -> CaseResult {
    use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    use ferroflash::{GraphCapacity, RawTensors};
    // Balanced plans need a batch past one wave: 40 requests of a few thousand keys.
    let (max_requests, pool_pages) = if balanced {
        (40u32, 12000u32)
    } else {
        (4, 400)
    };
    let kv_heads = if clusters.is_some() { 3usize } else { 4 };
    let (group, page) = (4usize, 16usize);
    let cap = GraphCapacity {
        max_requests,
        max_new_tokens,
        max_page_entries: pool_pages,
    };
    let mut cfg = DecodeConfig::new(
        (kv_heads * group) as u32,
        kv_heads as u32,
        head_dim as u32,
        page as u32,
        pool_pages,
        Dtype16::Bf16,
    );
    cfg.tail = tail;
    if balanced {
        cfg.balance = ferroflash::Balance::On;
    }
    if let Some((splits, n)) = clusters {
        cfg.splits = ferroflash::Splits::Fixed(splits);
        cfg.graph_cluster = Some(n);
    }
    let clustered = clusters.is_some() && d.arch() == ferroflash::ModuleArch::Sm90a;
    // The 16-token graph reads HND pages (the others NHD).
    if max_new_tokens == 16 {
        cfg.kv_layout = KvLayout::Hnd;
    }
    let narrow = max_new_tokens as usize * group <= 8;
    cfg.narrow_rows = Some(narrow);
    if max_new_tokens as usize * group > 32 {
        // 64-row CTAs: the planner takes them only when the capacity's keys fill the SMs
        // (`plan::m_tiles_for`), more than this pool holds.
        cfg.m_tiles = Some(4);
    }
    // Kv-head pairs for 96 over NHD pages (four kv heads).
    let pairs = head_dim == 96 && cfg.kv_layout == KvLayout::Nhd && clusters.is_none();
    cfg.kv_head_pairs = Some(pairs);
    let mut plan = DecodePlan::for_graphs(d, &cfg, cap).map_err(|e| e.to_string())?;
    if plan.kernel_config().is_kv_pair_view() != pairs {
        return Err(format!(
            "graph plan kv-head pairs {}, expected {pairs}",
            plan.kernel_config().is_kv_pair_view()
        ));
    }
    if clustered && plan.launch_cluster() != clusters.unwrap().1 {
        return Err(format!(
            "graph plan launched in clusters of {}, asked for {:?}",
            plan.launch_cluster(),
            clusters
        ));
    }
    if plan.kernel().ends_with("_m8") != narrow
        || (max_new_tokens as usize * group > 32)
            != (plan.kernel().ends_with("_w64") || plan.kernel().ends_with("_g64"))
    {
        return Err(format!(
            "graph plan kernel {} (narrow expected: {narrow}, {max_new_tokens} new tokens)",
            plan.kernel()
        ));
    }
    let s = d.stream();
    let err = |e: cudarc::driver::DriverError| format!("{e:?}");
    let rows = cap.max_tokens() * kv_heads * group * head_dim;
    let mut g_q = s.alloc_zeros::<u16>(rows).map_err(err)?;
    let mut g_k = s.alloc_zeros::<u16>(cfg.pool_elems()).map_err(err)?;
    let mut g_v = s.alloc_zeros::<u16>(cfg.pool_elems()).map_err(err)?;
    let mut g_o = s.alloc_zeros::<u16>(rows).map_err(err)?;
    let mut g_lse = s
        .alloc_zeros::<f32>(cap.max_tokens() * kv_heads * group)
        .map_err(err)?;
    let raw = RawTensors {
        q: g_q.device_ptr(s).0,
        k_pool: g_k.device_ptr(s).0,
        v_pool: g_v.device_ptr(s).0,
        o: g_o.device_ptr_mut(s).0,
        lse: g_lse.device_ptr_mut(s).0,
        ..Default::default()
    };
    s.synchronize().map_err(err)?;
    s.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(err)?;
    // SAFETY: the buffers above are sized for the capacity and outlive the graph.
    let captured = unsafe { plan.run_raw(d, raw, s.cu_stream()) };
    let graph = s
        .end_capture(CUgraphInstantiate_flags(0))
        .map_err(err)?
        .ok_or("empty graph")?;
    captured.map_err(|e| e.to_string())?;
    let batches: Vec<(Vec<u32>, Vec<u32>)> = if balanced {
        vec![
            (
                (0..40).map(|i| 1 + i % 4).collect(),
                (0..40).map(|i| 2500 + (i * 611) % 2000).collect(),
            ),
            (
                (0..36).map(|i| 1 + i % 3).collect(),
                (0..36)
                    .map(|i| {
                        if i % 9 == 4 {
                            0
                        } else {
                            1000 + (i * 1777) % 4000
                        }
                    })
                    .collect(),
            ),
        ]
    } else {
        let mut b = vec![
            (vec![1, 4, 2], vec![100, 1500, 0]),
            (vec![4, 1, 1, 3], vec![3000, 17, 64, 900]),
            // Short keys, no split: every combine CTA idle (the grid's last one still waits
            // for the decode grid), most decode CTAs idle.
            (vec![2], vec![40]),
        ];
        if clusters.is_some() {
            // Every block long enough for the fixed splits: merged in the clusters.
            b.push((vec![1, 2, 3], vec![700, 1200, 2000]));
        }
        b
    };
    for (seed, (q_lens, kv_lens)) in batches.iter().enumerate() {
        let scale = if max_new_tokens >= 8 { 4 } else { 1 };
        let q_lens: Vec<u32> = q_lens
            .iter()
            .map(|&q| (q * scale).min(max_new_tokens))
            .collect();
        let problem = Problem {
            q_heads: kv_heads * group,
            kv_heads,
            head_dim,
            page_size: page,
            kv_layout: cfg.kv_layout,
            q_lens: q_lens.clone(),
            kv_lens: kv_lens.clone(),
            sm_scale: 1.0 / (head_dim as f32).sqrt(),
            softcap: None,
            window_left: None,
            q_dtype: DType::Bf16,
            kv_dtype: DType::Bf16,
        };
        let x = generate(
            &problem,
            &GenOptions {
                seed: 77 + seed as u64,
                ..GenOptions::default()
            },
        );
        let q_indptr = problem.q_indptr();
        plan.update(
            d,
            &BatchTables {
                q_indptr: &q_indptr,
                kv_lens,
                page_indptr: &x.page_indptr,
                page_indices: &x.page_indices,
            },
        )
        .map_err(|e| e.to_string())?;
        if balanced && !plan.plan().balanced {
            return Err(format!("batch {seed}: the graph plan is not balanced"));
        }
        if kv_lens.len() == 1 && !plan.plan().merge.is_empty() && clusters.is_none() {
            return Err(format!("batch {seed}: 40 keys were split"));
        }
        if clustered {
            let splits = clusters.unwrap().0;
            let even = plan.plan().merge.len() as u32 * splits == plan.plan().work.len() as u32
                && plan.plan().merge.iter().all(|m| m.num_splits == splits);
            let want = if even { splits } else { 0 };
            if plan.cluster_splits() != want {
                return Err(format!(
                    "batch {seed}: merged in groups of {}, expected {want} ({} CTAs, {} merges)",
                    plan.cluster_splits(),
                    plan.plan().work.len(),
                    plan.plan().merge.len()
                ));
            }
            if seed == 3 && want == 0 {
                return Err("the evenly split batch was not merged in clusters".into());
            }
        }
        s.memcpy_htod(u16_bits(&x.q_bits), &mut g_q.slice_mut(..x.q.len()))
            .map_err(err)?;
        s.memcpy_htod(u16_bits(&x.k_bits), &mut g_k.slice_mut(..x.k_pool.len()))
            .map_err(err)?;
        s.memcpy_htod(u16_bits(&x.v_bits), &mut g_v.slice_mut(..x.v_pool.len()))
            .map_err(err)?;
        s.memcpy_htod(&vec![0x7fc0u16; rows], &mut g_o)
            .map_err(err)?;
        s.memcpy_htod(&vec![f32::NAN; g_lse.len()], &mut g_lse)
            .map_err(err)?;
        graph.launch().map_err(err)?;
        s.synchronize().map_err(err)?;
        let n_o = x.q.len();
        let o_bits: Vec<u16> = s.clone_dtoh(&g_o).map_err(err)?;
        let lse: Vec<f32> = s.clone_dtoh(&g_lse).map_err(err)?;
        let o: Vec<f32> = o_bits[..n_o]
            .iter()
            .map(|&b| half::bf16::from_bits(b).to_f32())
            .collect();
        let reference = reference_f64(&problem, &x);
        let matched = reference_matched(&problem, &x, DType::Bf16);
        compare(
            &o,
            &lse[..n_o / head_dim],
            &reference,
            &matched,
            tolerance_for(DType::Bf16, DType::Bf16),
        )
        .map_err(|e| format!("batch {seed} after update: {e}"))?;
        // SAFETY: same buffers as the captured call.
        unsafe { plan.run_raw(d, raw, s.cu_stream()) }.map_err(|e| e.to_string())?;
        s.synchronize().map_err(err)?;
        let direct: Vec<u16> = s.clone_dtoh(&g_o).map_err(err)?;
        if direct[..n_o] != o_bits[..n_o] {
            return Err(format!("batch {seed}: graph replay and direct run differ"));
        }
    }
    if balanced {
        return Ok(Outcome::Pass);
    }
    // Beyond the capacity: typed errors, the plan keeps its last batch.
    let too_many = plan.update(
        d,
        &BatchTables {
            q_indptr: &[0, 1, 2, 3, 4, 5],
            kv_lens: &[1; 5],
            page_indptr: &[0, 1, 2, 3, 4, 5],
            page_indices: &[0, 1, 2, 3, 4],
        },
    );
    if too_many.is_ok() {
        return Err("update with 5 requests over a capacity of 4 was accepted".into());
    }
    let long = plan.update(
        d,
        &BatchTables {
            q_indptr: &[0, max_new_tokens + 1],
            kv_lens: &[17],
            page_indptr: &[0, 2],
            page_indices: &[0, 1],
        },
    );
    if !matches!(long, Err(ferroflash::Error::NewTokens { .. })) {
        return Err(format!(
            "{} new tokens over a capacity of {max_new_tokens}: {long:?}",
            max_new_tokens + 1
        ));
    }
    Ok(Outcome::Pass)
}

/// `DecodePlan::set_timeline` (the benchmark's `--timeline`): a split batch, 16-bit and fp8 K/V,
/// run with and without a timeline. Every decode CTA and every combine CTA stamps its record,
/// the events of a CTA are in order, the tile and split counts are the plan's, the combine
/// passes its dependency only after every decode CTA finished, and the output is bitwise the
/// same as without the timeline.
fn timeline_records(d: &Device) -> CaseResult {
    use ferroflash_contract::decode::KV_TILE_TOKENS;
    use ferroflash_contract::params::TimelineEvent as E;
    let err = |e: cudarc::driver::DriverError| format!("{e:?}");
    let ff = |e: ferroflash::Error| e.to_string();
    for fp8 in [false, true] {
        let (q_heads, kv_heads, head_dim, page) = (8u32, 2u32, 128u32, 16u32);
        let kv_lens = [3000u32, 1, 700];
        let pages: Vec<u32> = kv_lens.iter().map(|l| l.div_ceil(page)).collect();
        let num_pages: u32 = pages.iter().sum::<u32>() + 3;
        let mut cfg =
            DecodeConfig::new(q_heads, kv_heads, head_dim, page, num_pages, Dtype16::Bf16);
        if fp8 {
            cfg.kv_fp8 = Some(Fp8Format::E4m3);
        }
        let mut page_indptr = vec![0u32];
        for p in &pages {
            page_indptr.push(page_indptr.last().unwrap() + p);
        }
        // Reversed page ids: a shuffled table.
        let page_indices: Vec<u32> = (0..page_indptr[3]).rev().collect();
        let q_indptr = [0u32, 1, 2, 3];
        let tables = BatchTables {
            q_indptr: &q_indptr,
            kv_lens: &kv_lens,
            page_indptr: &page_indptr,
            page_indices: &page_indices,
        };
        let mut plan = DecodePlan::new(d, &cfg, &tables).map_err(ff)?;
        if plan.plan().merge.is_empty() {
            return Err("the case should be split (no combine grid)".into());
        }
        let s = d.stream();
        let mut rng = SplitMix64(77);
        let mut bits16 = |n: usize| -> Vec<u16> {
            (0..n)
                .map(|_| half::bf16::from_f32(rng.normal()).to_bits())
                .collect()
        };
        let q = s
            .clone_htod(&bits16(3 * (q_heads * head_dim) as usize))
            .map_err(err)?;
        let pool = cfg.pool_elems();
        let mut o = s
            .alloc_zeros::<u16>(3 * (q_heads * head_dim) as usize)
            .map_err(err)?;
        // K/V values: a fixed pattern (fp8 codes without NaNs, or bf16 in [-2, 2)).
        let (plain, stamped, tl) = if fp8 {
            let codes: Vec<u8> = (0..pool).map(|i| (i * 37 % 251) as u8 & 0x7e).collect();
            let kv = s.clone_htod(&codes).map_err(err)?;
            run_plain_then_stamped(d, &mut plan, &q, &kv, &mut o)?
        } else {
            let vals: Vec<u16> = (0..pool)
                .map(|i| half::bf16::from_f32(((i * 37 % 251) as f32 - 125.0) / 64.0).to_bits())
                .collect();
            let kv = s.clone_htod(&vals).map_err(err)?;
            run_plain_then_stamped(d, &mut plan, &q, &kv, &mut o)?
        };
        if plain != stamped {
            return Err(format!("fp8 {fp8}: output changed with the timeline on"));
        }
        let (dec, comb) = tl.read(d).map_err(ff)?;
        let work = &plan.plan().work;
        let merge = &plan.plan().merge;
        // `combine_parts` CTAs per merge item, item-major.
        let parts = plan.combine_parts() as usize;
        if dec.len() != work.len() || comb.len() != merge.len() * parts {
            return Err(format!(
                "fp8 {fp8}: {} / {} records for {} / {} x {parts} CTAs",
                dec.len(),
                comb.len(),
                work.len(),
                merge.len()
            ));
        }
        let sm_count = d.caps().sm_count as u64;
        let mut last_exit = 0;
        for (i, (r, w)) in dec.iter().zip(work).enumerate() {
            let tiles = (w.kv_end - w.kv_start).div_ceil(KV_TILE_TOKENS) as u64;
            let ev = |e: E| r[e as usize];
            let ordered = if tiles > 0 {
                ev(E::Entry) > 0
                    && ev(E::Entry) <= ev(E::DependencyMet)
                    && ev(E::DependencyMet) <= ev(E::FirstData)
                    && ev(E::FirstData) <= ev(E::LoopEnd)
                    && ev(E::LastIssue) >= ev(E::Entry)
                    && ev(E::LoopEnd) <= ev(E::MergeDone)
                    && ev(E::MergeDone) <= ev(E::Exit)
            } else {
                ev(E::Entry) > 0
                    && ev(E::Entry) <= ev(E::LoopEnd)
                    && ev(E::LoopEnd) <= ev(E::MergeDone)
                    && ev(E::MergeDone) <= ev(E::Exit)
            };
            if !ordered || ev(E::Tiles) != tiles || ev(E::SmId) >= sm_count {
                return Err(format!(
                    "fp8 {fp8}: decode CTA {i} (tiles {tiles}): record {r:?}"
                ));
            }
            last_exit = last_exit.max(ev(E::Exit));
        }
        for (i, (r, m)) in comb
            .iter()
            .zip(merge.iter().flat_map(|m| std::iter::repeat_n(m, parts)))
            .enumerate()
        {
            let ev = |e: E| r[e as usize];
            if !(ev(E::Entry) > 0
                && ev(E::Entry) <= ev(E::DependencyMet)
                && ev(E::DependencyMet) <= ev(E::Exit))
                || ev(E::Tiles) != m.num_splits as u64
                || ev(E::SmId) >= sm_count
            {
                return Err(format!("fp8 {fp8}: combine CTA {i}: record {r:?}"));
            }
            if ev(E::DependencyMet) < last_exit {
                return Err(format!("fp8 {fp8}: combine CTA {i} passed its dependency at {} before the last decode exit {last_exit}", ev(E::DependencyMet)));
            }
        }
    }
    Ok(Outcome::Pass)
}

/// Run `plan` (K and V from the same pool) without a timeline, then with one; the outputs of
/// both runs and the timeline.
fn run_plain_then_stamped<KV: 'static>(
    d: &Device,
    plan: &mut DecodePlan,
    q: &CudaSlice<u16>,
    kv: &CudaSlice<KV>,
    o: &mut CudaSlice<u16>,
) -> Result<(Vec<u16>, Vec<u16>, ferroflash::Timeline), String> {
    let s = d.stream();
    let mut run = |plan: &DecodePlan| -> Result<Vec<u16>, String> {
        plan.run(d, DecodeTensors::new(q, kv, kv, &mut *o))
            .map_err(|e| e.to_string())?;
        s.synchronize().map_err(|e| format!("{e:?}"))?;
        s.clone_dtoh(&*o).map_err(|e| format!("{e:?}"))
    };
    let plain = run(plan)?;
    let tl = plan.new_timeline(d).map_err(|e| e.to_string())?;
    plan.set_timeline(d, Some(&tl));
    let stamped = run(plan);
    plan.set_timeline(d, None);
    Ok((plain, stamped?, tl))
}

/// One shape of [`back_to_back`].
struct ChainShape {
    what: &'static str,
    q_len: u32,
    kv_lens: Vec<u32>,
    fp8: bool,
    cluster_merge: bool,
    early_kv: bool,
    splits: Splits,
    /// Whether the plan must merge splits (by the combine or in clusters).
    split: bool,
}

/// Back-to-back calls (See Note [early K/V tiles] and the PDL chain in docs/DESIGN.md): one
/// plan run [`CHAIN_CALLS`] times with a different Q into a different O and LSE each time,
/// queued with no synchronisation between the calls (each call's CTAs may enter while the
/// previous call's decode or combine still runs, and every call writes the same workspace),
/// then the same calls captured in one CUDA graph and replayed twice. Every output must be
/// bitwise the output of that call run alone (synchronised before and after). Shapes: a
/// split plan merged by the combine, one merged in clusters, fp8 K/V, early K/V off, and a
/// ragged spec-decode batch with an empty request.
fn back_to_back(d: &Device) -> CaseResult {
    let auto = Splits::Auto;
    let shapes = [
        ChainShape {
            what: "1 x 20000 keys, combine",
            q_len: 1,
            kv_lens: vec![20000],
            fp8: false,
            cluster_merge: false,
            early_kv: true,
            splits: auto,
            split: true,
        },
        ChainShape {
            what: "4 x 3000 keys, 4 splits in clusters",
            q_len: 1,
            kv_lens: vec![3000; 4],
            fp8: false,
            cluster_merge: true,
            early_kv: true,
            splits: Splits::Fixed(4),
            split: true,
        },
        ChainShape {
            what: "fp8 K/V, 2 x 9000 keys",
            q_len: 1,
            kv_lens: vec![9000, 7001],
            fp8: true,
            cluster_merge: true,
            early_kv: true,
            splits: auto,
            split: true,
        },
        ChainShape {
            what: "early K/V off, combine",
            q_len: 1,
            kv_lens: vec![12000, 5],
            fp8: false,
            cluster_merge: false,
            early_kv: false,
            splits: auto,
            split: true,
        },
        ChainShape {
            what: "4 new tokens, ragged with an empty request",
            q_len: 4,
            kv_lens: vec![6000, 0, 333, 2500],
            fp8: false,
            cluster_merge: true,
            early_kv: true,
            splits: auto,
            split: false,
        },
    ];
    for sh in &shapes {
        chain_shape(d, sh).map_err(|e| format!("{}: {e}", sh.what))?;
    }
    Ok(Outcome::Pass)
}

/// Calls per chain in [`back_to_back`].
const CHAIN_CALLS: usize = 4;

fn chain_shape(d: &Device, sh: &ChainShape) -> Result<(), String> {
    use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    let err = |e: cudarc::driver::DriverError| format!("{e:?}");
    let ff = |e: ferroflash::Error| e.to_string();
    let (q_heads, kv_heads, head_dim, page) = (16u32, 4u32, 128u32, 16u32);
    let pages: Vec<u32> = sh.kv_lens.iter().map(|l| l.div_ceil(page)).collect();
    let num_pages: u32 = pages.iter().sum::<u32>() + 7;
    let mut cfg = DecodeConfig::new(q_heads, kv_heads, head_dim, page, num_pages, Dtype16::Bf16);
    if sh.fp8 {
        cfg.kv_fp8 = Some(Fp8Format::E4m3);
    }
    cfg.cluster_merge = sh.cluster_merge;
    cfg.early_kv = sh.early_kv;
    cfg.splits = sh.splits;
    let mut page_indptr = vec![0u32];
    for p in &pages {
        page_indptr.push(page_indptr.last().unwrap() + p);
    }
    // A shuffled table over a pool with spare pages.
    let mut rng = SplitMix64(0xb2b + sh.kv_lens[0] as u64);
    let mut ids: Vec<u32> = (0..num_pages).collect();
    rng.shuffle(&mut ids);
    let page_indices = &ids[..*page_indptr.last().unwrap() as usize];
    let q_indptr: Vec<u32> = (0..=sh.kv_lens.len() as u32)
        .map(|r| r * sh.q_len)
        .collect();
    let plan = DecodePlan::new(
        d,
        &cfg,
        &BatchTables {
            q_indptr: &q_indptr,
            kv_lens: &sh.kv_lens,
            page_indptr: &page_indptr,
            page_indices,
        },
    )
    .map_err(ff)?;
    let merges = !plan.plan().merge.is_empty() || plan.cluster_splits() > 1;
    if sh.split && !merges {
        return Err(format!("plan {} does not split", plan.kernel()));
    }
    let s = d.stream();
    let pool = cfg.pool_elems();
    // N(0, 1) values as bf16 bits (the pools and every call's Q).
    let bf16s = |rng: &mut SplitMix64, n: usize| -> Vec<u16> {
        (0..n)
            .map(|_| half::bf16::from_f32(rng.normal()).to_bits())
            .collect()
    };
    let (k16, v16, k8, v8);
    let (k_ptr, v_ptr) = if sh.fp8 {
        // e4m3 codes below 0x5f (|x| <= 28, no NaN), either sign.
        let mut codes = |salt: u64| -> Vec<u8> {
            (0..pool)
                .map(|i| ((rng.next_u64() ^ salt ^ i as u64) as u8 % 0x5f) | (i as u8 & 0x80))
                .collect()
        };
        k8 = s.clone_htod(&codes(1)).map_err(err)?;
        v8 = s.clone_htod(&codes(2)).map_err(err)?;
        (k8.device_ptr(s).0, v8.device_ptr(s).0)
    } else {
        k16 = s.clone_htod(&bf16s(&mut rng, pool)).map_err(err)?;
        v16 = s.clone_htod(&bf16s(&mut rng, pool)).map_err(err)?;
        (k16.device_ptr(s).0, v16.device_ptr(s).0)
    };
    let rows = plan.token_rows() * q_heads as usize;
    let n_o = rows * head_dim as usize;
    let mut qs = Vec::new();
    for _ in 0..CHAIN_CALLS {
        qs.push(s.clone_htod(&bf16s(&mut rng, n_o)).map_err(err)?);
    }
    let mut os = Vec::new();
    let mut lses = Vec::new();
    for _ in 0..CHAIN_CALLS {
        os.push(s.alloc_zeros::<u16>(n_o).map_err(err)?);
        lses.push(s.alloc_zeros::<f32>(rows).map_err(err)?);
    }
    // Poison every output, then queue calls `which` on the stream (no synchronisation).
    let poison = |os: &mut Vec<CudaSlice<u16>>, lses: &mut Vec<CudaSlice<f32>>| {
        for (o, l) in os.iter_mut().zip(lses.iter_mut()) {
            s.memcpy_htod(&vec![0x7fc0u16; n_o], o).map_err(err)?;
            s.memcpy_htod(&vec![f32::NAN; rows], l).map_err(err)?;
        }
        s.synchronize().map_err(err)
    };
    // Addresses taken once, outside any capture (cudarc's tracking would record events on
    // the stream, which a capture refuses).
    let raws: Vec<ferroflash::RawTensors> = (0..CHAIN_CALLS)
        .map(|i| ferroflash::RawTensors {
            q: qs[i].device_ptr(s).0,
            k_pool: k_ptr,
            v_pool: v_ptr,
            o: os[i].device_ptr_mut(s).0,
            lse: lses[i].device_ptr_mut(s).0,
            ..Default::default()
        })
        .collect();
    s.synchronize().map_err(err)?;
    let queue = |which: std::ops::Range<usize>| -> Result<(), String> {
        for raw in &raws[which] {
            // SAFETY: Q, O and LSE hold the plan's token rows, the pools `pool_elems`
            // elements; every buffer outlives the calls, which complete before the copies
            // back (or the graph's replays, synchronised).
            unsafe { plan.run_raw(d, *raw, s.cu_stream()) }.map_err(ff)?;
        }
        Ok(())
    };
    let read = |os: &Vec<CudaSlice<u16>>, lses: &Vec<CudaSlice<f32>>| {
        let mut out = Vec::new();
        for (o, l) in os.iter().zip(lses) {
            let o: Vec<u16> = s.clone_dtoh(o).map_err(err)?;
            let l: Vec<u32> = s
                .clone_dtoh(l)
                .map_err(err)?
                .iter()
                .map(|x: &f32| x.to_bits())
                .collect();
            out.push((o, l));
        }
        Ok::<_, String>(out)
    };
    // Alone: each call synchronised before and after.
    poison(&mut os, &mut lses)?;
    for i in 0..CHAIN_CALLS {
        queue(i..i + 1)?;
        s.synchronize().map_err(err)?;
    }
    let alone = read(&os, &lses)?;
    for (i, (o, _)) in alone.iter().enumerate() {
        if let Some(j) = o
            .iter()
            .position(|&b| !half::bf16::from_bits(b).is_finite())
        {
            return Err(format!(
                "call {i} alone: output element {j} not finite or not written"
            ));
        }
    }
    let compare_all = |got: &[(Vec<u16>, Vec<u32>)], how: &str| -> Result<(), String> {
        for (i, (g, a)) in got.iter().zip(&alone).enumerate() {
            if g != a {
                let j = g.0.iter().zip(&a.0).position(|(x, y)| x != y);
                return Err(format!(
                    "{how}: call {i} differs from the same call alone (first O element {j:?})"
                ));
            }
        }
        Ok(())
    };
    for round in 0..3 {
        poison(&mut os, &mut lses)?;
        queue(0..CHAIN_CALLS)?;
        s.synchronize().map_err(err)?;
        compare_all(&read(&os, &lses)?, &format!("back to back, round {round}"))?;
    }
    s.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(err)?;
    // End the capture whatever happened inside it (a stream left capturing breaks every
    // later case).
    let captured = queue(0..CHAIN_CALLS);
    let graph = s.end_capture(CUgraphInstantiate_flags(0));
    captured?;
    let graph = graph.map_err(err)?.ok_or("empty graph")?;
    for replay in 0..2 {
        poison(&mut os, &mut lses)?;
        graph.launch().map_err(err)?;
        s.synchronize().map_err(err)?;
        compare_all(&read(&os, &lses)?, &format!("graph replay {replay}"))?;
    }
    Ok(())
}
