//! The benchmark and check drivers.
//!
//! Method (shared/notes/house-style.md, "Benchmarks"): K/V pools hold `R` disjoint sets of pages
//! (`R * KV bytes >= rot_gib`, so L2 never holds the working set; `--rot-gib 0` or less: one
//! set reused by every call, a diagnostic); set `r` has its own region of
//! the pool, its own page table (a random permutation of that region) and its own plan, as in
//! the peers' harness. Time = median per call over 30 replays of a CUDA graph of
//! `max(16, R)` calls cycling through the sets; "eager" = median of 60 single calls timed with
//! events. Bytes = Q + K/V of the real tokens + O (the peers' `min_bytes`), reported as TB/s and
//! as % of the copy and read ceilings (the peers' env.json when given, else measured here).

use crate::workloads::Spec;
use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaSlice};
use ferroflash::KvLayout;
use ferroflash::{
    bench, BatchTables, DecodeConfig, DecodePlan, DecodeTensors, Device, Dtype16, Error, Fp8Format,
    GraphCapacity, ScaleLayout, Splits,
};
use ferroflash_reference::gen::{generate, GenOptions};
use ferroflash_reference::{reference_f64, DType, Inputs, Problem, Storage};
use std::io::Write;
use std::time::Instant;

const GIB: f64 = (1u64 << 30) as f64;

use ferroflash_reference::gen::SplitMix64 as Rng;

fn drv(op: &'static str) -> impl Fn(cudarc::driver::DriverError) -> String {
    move |e| format!("{op}: {e:?}")
}
fn ff(e: Error) -> String {
    e.to_string()
}

/// HBM ceilings in TB/s.
#[derive(Clone, Copy, Debug)]
struct Ceilings {
    copy_tbps: f64,
    read_tbps: f64,
    own_read_tbps: f64,
    source: &'static str,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Time `f` (which enqueues work on the device stream) with events: median over `reps`.
fn time_events(
    dev: &Device,
    reps: usize,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let ctx = dev.context();
    let s = dev.stream();
    let (a, b) = (
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(drv("event"))?,
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(drv("event"))?,
    );
    let mut ms = Vec::new();
    for _ in 0..reps {
        a.record(s).map_err(drv("record"))?;
        f()?;
        b.record(s).map_err(drv("record"))?;
        b.synchronize().map_err(drv("sync"))?;
        ms.push(a.elapsed_ms(&b).map_err(drv("elapsed"))? as f64);
    }
    Ok(median(&mut ms))
}

/// Capture what `launch` enqueues on `dev`'s stream into a CUDA graph (not yet uploaded). The
/// capture is ended even when `launch` fails; its error is returned then.
fn capture_graph(
    dev: &Device,
    launch: impl FnOnce() -> Result<(), String>,
) -> Result<CudaGraph, String> {
    let s = dev.stream();
    s.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(drv("begin capture"))?;
    let r = launch();
    let g = s
        .end_capture(CUgraphInstantiate_flags(0))
        .map_err(drv("end capture"))?;
    r?;
    g.ok_or_else(|| "empty graph".to_string())
}

fn measure_ceilings(dev: &Device) -> Result<(f64, f64), String> {
    let s = dev.stream();
    let bytes = 4usize << 30;
    let src = s.alloc_zeros::<u8>(bytes).map_err(drv("alloc"))?;
    let mut dst = s.alloc_zeros::<u8>(bytes).map_err(drv("alloc"))?;
    let (grid, threads) = (dev.caps().sm_count * 8, 512);
    let mut scratch = s
        .alloc_zeros::<u32>((grid * threads) as usize)
        .map_err(drv("alloc"))?;
    bench::read_probe(dev, &src.as_view(), &mut scratch, grid, threads).map_err(ff)?;
    let read_ms = time_events(dev, 10, || {
        bench::read_probe(dev, &src.as_view(), &mut scratch, grid, threads).map_err(ff)
    })?;
    let copy_ms = time_events(dev, 10, || {
        s.memcpy_dtod(&src, &mut dst).map_err(drv("copy"))
    })?;
    Ok((
        2.0 * bytes as f64 / copy_ms / 1e9,
        bytes as f64 / read_ms / 1e9,
    ))
}

/// One (workload, page size) case on the device.
struct Case {
    name: String,
    page: u32,
    cfg: DecodeConfig,
    q_indptr: Vec<u32>,
    lens: Vec<u32>,
    plans: Vec<DecodePlan>,
    tables: Vec<(Vec<u32>, Vec<u32>)>,
    q: Buf,
    k: Buf,
    v: Buf,
    o: CudaSlice<u16>,
    lse: CudaSlice<f32>,
    /// (Q, K/V) dtypes.
    dtypes: (DType, DType),
    /// Decoded values of the pool pattern (before the K/V scale).
    block: Vec<f32>,
    /// Decoded Q values (before the Q scale).
    q_vals: Vec<f32>,
    /// Per-tensor (q, k, v) scales and their device tables (fp8 only).
    scales: [f32; 3],
    scale_tabs: Option<[CudaSlice<f32>; 3]>,
    min_bytes: f64,
    /// `--paged-probe`: one probe per set and its scratch; `run` launches it instead of decode
    /// (every set's plan has the same work list length, so one scratch serves all).
    probe: Option<(Vec<ferroflash::bench::PagedReadProbe>, CudaSlice<u32>)>,
    /// `--graph-plan N`: graph-mode plans with N times the batch as their capacity.
    graph_cap: Option<u32>,
}

/// A device tensor of 16-bit or fp8 codes.
enum Buf {
    B16(CudaSlice<u16>),
    B8(CudaSlice<u8>),
}

impl Buf {
    fn upload(dev: &Device, codes: &Storage) -> Result<Buf, String> {
        let s = dev.stream();
        Ok(match codes {
            Storage::U16(v) => Buf::B16(s.clone_htod(v).map_err(drv("upload"))?),
            Storage::U8(v) => Buf::B8(s.clone_htod(v).map_err(drv("upload"))?),
        })
    }
    /// `elems` elements, element `e` = `pattern[(e + offset) % len]`.
    /// A pool of `elems` elements repeating `pattern` from `offset`; left unwritten when `fill`
    /// is false (`--plan-only`, which launches nothing). One period is uploaded and the rest
    /// copied on the device (the host-side fill of a large pool cost about a second per case).
    fn fill(
        dev: &Device,
        pattern: &Storage,
        elems: usize,
        offset: usize,
        fill: bool,
    ) -> Result<Buf, String> {
        fn go<T: Copy + cudarc::driver::DeviceRepr>(
            dev: &Device,
            pat: &[T],
            elems: usize,
            offset: usize,
            fill: bool,
        ) -> Result<CudaSlice<T>, String> {
            let s = dev.stream();
            // SAFETY: every element is written by the copies below before any kernel reads it,
            // or (`fill` false) no kernel reads the pool.
            let mut pool = unsafe { s.alloc::<T>(elems) }.map_err(drv("alloc pool"))?;
            if !fill || elems == 0 {
                return Ok(pool);
            }
            // One period from the host, then doubling copies on the device: with `m` a
            // multiple of the period, element `m + i` equals element `i`.
            let period = pat.len();
            let first = elems.min(period);
            let src: Vec<T> = (0..first).map(|i| pat[(i + offset) % period]).collect();
            s.memcpy_htod(&src, &mut pool.slice_mut(0..first))
                .map_err(drv("fill pool"))?;
            let mut m = first;
            while m < elems {
                let n = m.min(elems - m);
                let (head, mut tail) = pool.split_at_mut(m);
                s.memcpy_dtod(&head.slice(0..n), &mut tail.slice_mut(0..n))
                    .map_err(drv("fill pool"))?;
                m += n;
            }
            Ok(pool)
        }
        Ok(match pattern {
            Storage::U16(p) => Buf::B16(go(dev, p, elems, offset, fill)?),
            Storage::U8(p) => Buf::B8(go(dev, p, elems, offset, fill)?),
        })
    }
}

/// `x / amax_scale` codes of `vals` in `dtype` with the scale (1 for 16-bit dtypes).
fn encode_scaled(dtype: DType, vals: &[f32]) -> (Storage, f32) {
    let s = match dtype {
        DType::E4m3 => ferroflash::quant::amax_scale(vals.iter().copied(), Fp8Format::E4m3),
        DType::E5m2 => ferroflash::quant::amax_scale(vals.iter().copied(), Fp8Format::E5m2),
        _ => 1.0,
    };
    let scaled: Vec<f32> = vals.iter().map(|v| v / s).collect();
    (Storage::encode(dtype, &scaled), s)
}

/// Plan overrides of a benchmark run (`--splits`, `--m-tiles`, `--row-split`, `--tail`, ...); the default is the planner's
/// own choice.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    pub splits: Splits,
    pub m_tiles: Option<u32>,
    /// `--row-split auto|on|off`.
    pub row_split: Option<bool>,
    /// `--wgmma on|off`.
    pub wgmma: Option<bool>,
    /// `--tma auto|on|off`.
    pub tma: Option<bool>,
    /// `--prefetch auto|on|off` (the next-wave prefetch).
    pub next_wave_prefetch: Option<bool>,
    pub tail: Option<ferroflash::TailSplit>,
    /// `--balance auto|on|off`.
    pub balance: ferroflash::Balance,
    /// `--cluster on|off`.
    pub cluster_merge: bool,
    /// `--cluster-max N`.
    pub max_cluster_splits: u32,
    /// `--combine-parts auto|N`.
    pub combine_parts: Option<u32>,
    /// `--narrow auto|on|off`.
    pub narrow_rows: Option<bool>,
    /// `--paired auto|on|off`.
    pub paired_tiles: Option<bool>,
    /// `--kv-pairs auto|on|off`.
    pub kv_head_pairs: Option<bool>,
    /// `--early-kv on|off`.
    pub early_kv: bool,
    /// `--kv-layout nhd|hnd`.
    pub kv_layout: KvLayout,
    /// `--paged-probe [kv-head|token]`: time the paged read probe instead of decode.
    pub paged_probe: Option<ferroflash::bench::ProbeCut>,
    /// `--plan-only`: build each case's plan on this device and print it, without checking or
    /// timing (which plan a GPU's caps give, e.g. after a planner change).
    pub plan_only: bool,
    /// `--graph-plan N`: graph-mode plans (`DecodePlan::for_graphs`, then `update` with the
    /// batch) whose capacity is N times the batch (requests and page entries; new tokens as
    /// the workload's): what an engine replaying captured graphs gets.
    pub graph_plan: Option<u32>,
    /// `--graph-cluster auto|off|N`.
    pub graph_cluster: Option<u32>,
}

/// Value pattern of the pools: element `e` holds `block[e % block.len()]`.
const BLOCK_ELEMS: usize = 1 << 24;

impl Case {
    fn build(
        dev: &Device,
        spec: &Spec,
        page: u32,
        rot_gib: f64,
        knobs: Knobs,
    ) -> Result<Case, String> {
        let lens = spec.lens()?;
        let (qh, kvh, d) = (spec.q_heads, spec.kv_heads, spec.head_dim);
        let (q_dtype, kv_dtype) = spec.dtypes()?;
        let pages_of = |l: u32| l.div_ceil(page);
        let pages_needed: u32 = lens.iter().map(|&l| pages_of(l)).sum();
        let row_elems = (kvh * d) as usize;
        let kv_bytes = 2.0
            * lens.iter().map(|&l| l as f64).sum::<f64>()
            * row_elems as f64
            * kv_dtype.bytes() as f64;
        // `--rot-gib 0`: one set, the same pages every call (a diagnostic: L2 and TLB warm).
        let sets = if rot_gib <= 0.0 {
            1
        } else {
            ((rot_gib * GIB / kv_bytes.max(1.0)).ceil() as u32).max(2)
        };
        let num_pages = sets * pages_needed.max(1) + 7;
        let mut cfg = DecodeConfig::new(qh, kvh, d, page, num_pages, Dtype16::Bf16);
        if q_dtype == DType::F16 {
            cfg.dtype = Dtype16::F16;
        }
        cfg.kv_fp8 = match kv_dtype {
            DType::E4m3 => Some(Fp8Format::E4m3),
            DType::E5m2 => Some(Fp8Format::E5m2),
            _ => None,
        };
        cfg.q_fp8 = q_dtype.is_fp8();
        cfg.scales = ScaleLayout::PerTensor;
        cfg.splits = knobs.splits;
        cfg.m_tiles = knobs.m_tiles;
        cfg.row_split = knobs.row_split;
        cfg.wgmma = knobs.wgmma;
        cfg.tma = knobs.tma;
        cfg.next_wave_prefetch = knobs.next_wave_prefetch;
        cfg.tail = knobs.tail;
        cfg.balance = knobs.balance;
        cfg.cluster_merge = knobs.cluster_merge;
        cfg.max_cluster_splits = knobs.max_cluster_splits;
        cfg.combine_parts = knobs.combine_parts;
        cfg.narrow_rows = knobs.narrow_rows;
        cfg.paired_tiles = knobs.paired_tiles;
        cfg.kv_head_pairs = knobs.kv_head_pairs;
        cfg.graph_cluster = knobs.graph_cluster;
        cfg.early_kv = knobs.early_kv;
        cfg.kv_layout = knobs.kv_layout;
        let s = dev.stream();
        let pool_elems = cfg.pool_elems();
        let mut rng = Rng(0x5eed ^ page as u64);
        let raw: Vec<f32> = (0..BLOCK_ELEMS).map(|_| rng.normal()).collect();
        let (pattern, kv_scale) = encode_scaled(kv_dtype, &raw);
        let block = pattern.decode(kv_dtype);
        let fill = !knobs.plan_only;
        let k = Buf::fill(dev, &pattern, pool_elems, 0, fill)?;
        let v = Buf::fill(dev, &pattern, pool_elems, BLOCK_ELEMS / 3, fill)?;
        let q_indptr: Vec<u32> = (0..=lens.len() as u32).map(|r| r * spec.q_len).collect();
        let tokens = *q_indptr.last().unwrap() as usize;
        // Graph mode: q and o hold the capacity's rows (the batch's first).
        let token_rows = tokens * knobs.graph_plan.unwrap_or(1) as usize;
        let q_raw: Vec<f32> = (0..token_rows * (qh * d) as usize)
            .map(|_| rng.normal())
            .collect();
        let (q_codes, q_scale) = encode_scaled(q_dtype, &q_raw);
        let q = Buf::upload(dev, &q_codes)?;
        let q_vals = q_codes.decode(q_dtype);
        let scales = [q_scale, kv_scale, kv_scale];
        let scale_tabs = if kv_dtype.is_fp8() {
            let t = |x: f32| s.clone_htod(&[x]).map_err(drv("scales"));
            Some([t(q_scale)?, t(kv_scale)?, t(kv_scale)?])
        } else {
            None
        };
        let o = s
            .alloc_zeros::<u16>(token_rows * (qh * d) as usize)
            .map_err(drv("o"))?;
        let lse = s
            .alloc_zeros::<f32>(token_rows * qh as usize)
            .map_err(drv("lse"))?;
        // Set r draws its pages from its own region [r * need, (r + 1) * need) of the pool,
        // shuffled (the peers' layout: one shuffled pool copy per rotation).
        let mut ids: Vec<u32> = (0..sets * pages_needed).collect();
        for set in 0..sets as usize {
            let n = pages_needed as usize;
            rng.shuffle(&mut ids[set * n..(set + 1) * n]);
        }
        let mut plans = Vec::new();
        let mut tables = Vec::new();
        for set in 0..sets {
            let mine = &ids[(set * pages_needed) as usize..((set + 1) * pages_needed) as usize];
            let mut indptr = vec![0u32];
            for &l in &lens {
                indptr.push(indptr.last().unwrap() + pages_of(l));
            }
            let t = BatchTables {
                q_indptr: &q_indptr,
                kv_lens: &lens,
                page_indptr: &indptr,
                page_indices: mine,
            };
            plans.push(match knobs.graph_plan {
                None => DecodePlan::new(dev, &cfg, &t).map_err(ff)?,
                Some(f) => {
                    let cap = GraphCapacity {
                        max_requests: lens.len() as u32 * f,
                        max_new_tokens: spec.q_len,
                        max_page_entries: pages_needed * f,
                    };
                    let mut p = DecodePlan::for_graphs(dev, &cfg, cap).map_err(ff)?;
                    p.update(dev, &t).map_err(ff)?;
                    p
                }
            });
            tables.push((indptr, mine.to_vec()));
        }
        let probe = if let Some(cut) = knobs.paged_probe {
            if knobs.kv_layout != KvLayout::Nhd {
                return Err("--paged-probe reads NHD pages only".into());
            }
            let row_bytes = d * kv_dtype.bytes() as u32;
            let probes = plans
                .iter()
                .zip(&tables)
                .map(|(p, (indptr, ids))| {
                    ferroflash::bench::PagedReadProbe::new(
                        dev,
                        cut,
                        &p.plan().work,
                        indptr,
                        ids,
                        ferroflash::bench::PoolShape {
                            page_size: page,
                            kv_heads: kvh,
                            row_bytes,
                        },
                    )
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(ff)?;
            let threads = probes[0].ctas() as usize * probes[0].threads() as usize;
            let scratch = s
                .alloc_zeros::<u32>(threads)
                .map_err(drv("probe scratch"))?;
            Some((probes, scratch))
        } else {
            None
        };
        // The peers' min_bytes: K/V of the real tokens at their element size, Q and O at 2 bytes.
        let min_bytes = kv_bytes + 2.0 * (tokens * (qh * d) as usize * 2) as f64;
        Ok(Case {
            name: spec.name.clone(),
            page,
            cfg,
            q_indptr,
            lens,
            plans,
            tables,
            q,
            k,
            v,
            o,
            lse,
            dtypes: (q_dtype, kv_dtype),
            block,
            q_vals,
            scales,
            scale_tabs,
            min_bytes,
            probe,
            graph_cap: knobs.graph_plan,
        })
    }

    fn run(&mut self, dev: &Device, set: usize) -> Result<(), String> {
        if let Some((probes, scratch)) = self.probe.as_mut() {
            return match (&self.k, &self.v) {
                (Buf::B16(k), Buf::B16(v)) => probes[set].run(dev, k, v, scratch),
                (Buf::B8(k), Buf::B8(v)) => probes[set].run(dev, k, v, scratch),
                _ => return Err("unsupported dtype combination".into()),
            }
            .map_err(ff);
        }
        let plan = &self.plans[set];
        let tabs = self.scale_tabs.as_ref();
        macro_rules! go {
            ($q:expr, $k:expr, $v:expr) => {
                plan.run(
                    dev,
                    DecodeTensors {
                        q: $q,
                        k_pool: $k,
                        v_pool: $v,
                        o: &mut self.o,
                        lse: Some(&mut self.lse),
                        sinks: None,
                        q_scale: tabs.map(|t| &t[0]),
                        k_scale: tabs.map(|t| &t[1]),
                        v_scale: tabs.map(|t| &t[2]),
                    },
                )
            };
        }
        match (&self.q, &self.k, &self.v) {
            (Buf::B16(q), Buf::B16(k), Buf::B16(v)) => go!(q, k, v),
            (Buf::B16(q), Buf::B8(k), Buf::B8(v)) => go!(q, k, v),
            (Buf::B8(q), Buf::B8(k), Buf::B8(v)) => go!(q, k, v),
            _ => return Err("unsupported dtype combination".into()),
        }
        .map_err(ff)
    }

    /// Relative error ||out - ref|| / ||ref|| over up to `max_requests` requests of set 0
    /// (the longest and the last), against the float64 CPU reference.
    fn check(&mut self, dev: &Device, max_requests: usize) -> Result<f64, String> {
        self.run(dev, 0)?;
        let s = dev.stream();
        s.synchronize().map_err(drv("sync"))?;
        let o: Vec<u16> = s.clone_dtoh(&self.o).map_err(drv("o"))?;
        let (qh, kvh, d, page) = (
            self.cfg.q_heads as usize,
            self.cfg.kv_heads as usize,
            self.cfg.head_dim as usize,
            self.page as usize,
        );
        let n = self.lens.len();
        let mut picks: Vec<usize> = vec![(0..n).max_by_key(|&r| self.lens[r]).unwrap(), n - 1];
        picks.dedup();
        picks.truncate(max_requests);
        let (indptr, ids) = &self.tables[0];
        let (mut num, mut den) = (0f64, 0f64);
        for r in picks {
            let q_len = (self.q_indptr[r + 1] - self.q_indptr[r]) as usize;
            let kv_len = self.lens[r];
            let my_pages = &ids[indptr[r] as usize..indptr[r + 1] as usize];
            let page_elems = page * kvh * d;
            let gather = |offset: usize| -> Vec<f32> {
                my_pages
                    .iter()
                    .flat_map(|&pid| (0..page_elems).map(move |e| pid as usize * page_elems + e))
                    .map(|e| self.block[(e + offset) % BLOCK_ELEMS])
                    .collect()
            };
            let q0 = self.q_indptr[r] as usize * qh * d;
            let q = self.q_vals[q0..q0 + q_len * qh * d].to_vec();
            let (q_dtype, kv_dtype) = self.dtypes;
            let problem = Problem {
                q_heads: qh,
                kv_heads: kvh,
                head_dim: d,
                page_size: page,
                kv_layout: self.cfg.kv_layout,
                q_lens: vec![q_len as u32],
                kv_lens: vec![kv_len],
                sm_scale: 1.0 / (d as f32).sqrt(),
                softcap: None,
                window_left: None,
                q_dtype,
                kv_dtype,
            };
            let k_pool = gather(0);
            let v_pool = gather(BLOCK_ELEMS / 3);
            let n = my_pages.len();
            let mut x = Inputs::from_values(
                &problem,
                q,
                k_pool,
                v_pool,
                n,
                vec![0, n as u32],
                (0..n as u32).collect(),
            );
            x.q_scale = self.scales[0];
            x.k_scale = vec![self.scales[1]; kvh];
            x.v_scale = vec![self.scales[2]; kvh];
            let reference = reference_f64(&problem, &x);
            let f16_out = self.cfg.dtype == Dtype16::F16;
            for (i, &want) in reference.o.iter().enumerate() {
                let b = o[q0 + i];
                let got = if f16_out {
                    half::f16::from_bits(b).to_f64()
                } else {
                    half::bf16::from_bits(b).to_f64()
                };
                if !got.is_finite() {
                    return Err(format!("non-finite output at request {r}, element {i}"));
                }
                num += (got - want).powi(2);
                den += want * want;
            }
        }
        Ok((num / den.max(1e-300)).sqrt())
    }
}

/// Record per-CTA timestamps of the last call of a graph of `calls` calls (as timed, so the
/// call overlaps the previous call's combine), write them to `dir/timeline-<case>.json`, and
/// return a one-line summary in microseconds from the first decode CTA's entry.
fn record_timeline(dev: &Device, c: &mut Case, calls: usize, dir: &str) -> Result<String, String> {
    use ferroflash_contract::params::TimelineEvent as E;
    let sets = c.plans.len();
    let grids = |p: &DecodePlan| (p.plan().work.len(), p.plan().merge.len());
    if c.plans.iter().any(|p| grids(p) != grids(&c.plans[0])) {
        return Err("timeline: the sets' plans have different grids".into());
    }
    let tl = c.plans[0].new_timeline(dev).map_err(ff)?;
    for p in &mut c.plans {
        p.set_timeline(dev, Some(&tl));
    }
    let g = capture_graph(dev, || (0..calls).try_for_each(|i| c.run(dev, i % sets)));
    for p in &mut c.plans {
        p.set_timeline(dev, None);
    }
    let g = g?;
    for _ in 0..2 {
        g.launch().map_err(drv("graph"))?;
    }
    dev.stream().synchronize().map_err(drv("sync"))?;
    let (dec, comb) = tl.read(dev).map_err(ff)?;
    let tiles = tl.tile_stamps(dev).map_err(ff)?;
    let (dec, tiles): (Vec<_>, Vec<_>) = dec
        .into_iter()
        .zip(tiles)
        .filter(|(r, _)| r[E::Entry as usize] != 0)
        .unzip();
    // Only kernels built with FF_TILE_STAMPS=1 stamp tiles (`cargo xtask timeline` reads them).
    let stamped = tiles.iter().flatten().any(|&x| x != 0);
    let comb: Vec<_> = comb
        .into_iter()
        .filter(|r| r[E::Entry as usize] != 0)
        .collect();
    if dec.is_empty() {
        return Err("timeline: no decode CTA stamped".into());
    }
    let t0 = dec.iter().map(|r| r[E::Entry as usize]).min().unwrap();
    let us = |x: u64| (x as f64 - t0 as f64) * 1e-3;
    let tile_bytes = 2
        * ferroflash_contract::decode::KV_TILE_TOKENS as usize
        * c.cfg.head_dim as usize
        * c.dtypes.1.bytes();
    // Events a CTA did not reach (no first tile or last issue in an empty split) stay 0.
    let col = |rs: &[ferroflash::TimelineRecord], e: E| -> Vec<f64> {
        rs.iter()
            .filter(|r| r[e as usize] != 0)
            .map(|r| us(r[e as usize]))
            .collect()
    };
    let stats = |mut v: Vec<f64>| -> [f64; 3] {
        if v.is_empty() {
            return [f64::NAN; 3];
        }
        // `median` sorts `v`: min and max are its ends afterwards.
        let m = median(&mut v);
        [v[0], m, v[v.len() - 1]]
    };
    let fmt = |n: &str, x: [f64; 3]| format!("{n} {:.1}/{:.1}/{:.1}", x[0], x[1], x[2]);
    let mut line = vec![
        fmt("entry", stats(col(&dec, E::Entry))),
        fmt("dep", stats(col(&dec, E::DependencyMet))),
        fmt("first", stats(col(&dec, E::FirstData))),
        fmt("issued", stats(col(&dec, E::LastIssue))),
        fmt("loop", stats(col(&dec, E::LoopEnd))),
        fmt("merged", stats(col(&dec, E::MergeDone))),
        fmt("exit", stats(col(&dec, E::Exit))),
    ];
    if !comb.is_empty() {
        line.push(fmt("c.entry", stats(col(&comb, E::Entry))));
        line.push(fmt("c.dep", stats(col(&comb, E::DependencyMet))));
        line.push(fmt("c.exit", stats(col(&comb, E::Exit))));
    }
    let file = format!("{dir}/timeline-{}-p{}.json", c.name, c.page);
    let json = serde_json::json!({
        "workload": c.name,
        "page": c.page,
        "events": ["entry", "dependency_met", "first_data", "loop_end", "exit", "sm_id", "tiles", "last_issue", "merge_done", "cluster_met", "remote_done"],
        "t0_ns": t0,
        "tile_bytes": tile_bytes,
        "decode": dec,
        "combine": comb,
        "tile_stamps": if stamped { serde_json::json!(tiles) } else { serde_json::Value::Null },
    });
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    std::fs::write(&file, json.to_string()).map_err(|e| format!("{file}: {e}"))?;
    Ok(format!(
        "timeline (us, min/median/max): {}",
        line.join("; ")
    ))
}

/// Run one case and return its JSON record.
fn bench_case(
    dev: &Device,
    spec: &Spec,
    page: u32,
    ceil: Ceilings,
    rot_gib: f64,
    knobs: Knobs,
    timeline_dir: Option<&str>,
) -> Result<serde_json::Value, String> {
    let t0 = Instant::now();
    let mut c = Case::build(dev, spec, page, rot_gib, knobs)?;
    let probe = c.probe.is_some();
    if knobs.plan_only {
        let (note, model_us) = plan_note(dev, &c, ceil);
        return Ok(serde_json::json!({
            "peer": "ferroflash",
            "workload": c.name,
            "layout": layout_name(&c, page),
            "status": "plan",
            "model_us": model_us,
            "note": note,
        }));
    }
    let rel_err = if probe { f64::NAN } else { c.check(dev, 2)? };
    let sets = c.plans.len();
    let calls = sets.max(16);
    for set in 0..sets {
        c.run(dev, set)?;
    }
    // Graph of `calls` calls cycling through the sets.
    let graph = capture_graph(dev, || (0..calls).try_for_each(|i| c.run(dev, i % sets)));
    let (ms, timing) = match &graph {
        Ok(g) => {
            g.upload().map_err(drv("graph upload"))?;
            g.launch().map_err(drv("graph"))?;
            (
                time_events(dev, 30, || g.launch().map_err(drv("graph")))? / calls as f64,
                "graph",
            )
        }
        Err(e) => {
            eprintln!("  graph capture failed ({e}); timing with events");
            let mut i = 0;
            (
                time_events(dev, 30, || {
                    for _ in 0..calls {
                        c.run(dev, i % sets)?;
                        i += 1;
                    }
                    Ok(())
                })? / calls as f64,
                "events",
            )
        }
    };
    let mut i = 0;
    let eager_ms = time_events(dev, 60, || {
        i += 1;
        c.run(dev, i % sets)
    })?;
    if let Some(dir) = timeline_dir.filter(|_| !probe) {
        println!("  {}", record_timeline(dev, &mut c, calls, dir)?);
    }
    let rel_err_after = if probe { f64::NAN } else { c.check(dev, 1)? };
    let tbps = c.min_bytes / (ms * 1e-3) / 1e12;
    let plan = c.plans[0].plan();
    let (note, model_us) = if probe {
        (String::new(), f64::NAN)
    } else {
        plan_note(dev, &c, ceil)
    };
    Ok(serde_json::json!({
        "peer": if probe { "ferroflash-paged-probe" } else { "ferroflash" },
        "workload": c.name,
        "layout": layout_name(&c, page),
        "min_bytes": c.min_bytes,
        "ms": ms,
        "eager_ms": eager_ms,
        "tbps": tbps,
        "pct_copy": 100.0 * tbps / ceil.copy_tbps,
        "pct_read": 100.0 * tbps / ceil.read_tbps,
        "pct_own_read": 100.0 * tbps / ceil.own_read_tbps,
        "rel_err": rel_err.max(rel_err_after),
        "rel_err_after": rel_err_after,
        "timing": timing,
        "status": "ok",
        "note": if probe { format!(
            "paged read probe: {} CTAs x {} threads, {} ({} merged blocks), no decode",
            plan.work.len(),
            c.probe.as_ref().map_or(0, |p| p.0[0].threads()),
            match knobs.paged_probe {
                Some(ferroflash::bench::ProbeCut::Token) => "token cut (whole pages)",
                _ => "the plan's cut",
            },
            plan.merge.len(),
        ) } else { note },
        "sets": sets,
        "model_us": model_us,
        "ceilings_from": ceil.source,
        "setup_s": (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    }))
}

fn layout_name(c: &Case, page: u32) -> String {
    let graph = c
        .graph_cap
        .map_or(String::new(), |f| format!(" graph-plan x{f}"));
    match c.cfg.kv_layout {
        KvLayout::Nhd => format!("paged p{page}{graph}"),
        KvLayout::Hnd => format!("paged p{page} hnd{graph}"),
    }
}

/// A case's plan in words, and the split model's estimate in us (Note [split heuristic]): one
/// tile-time is a tile of K/V per CTA of a full wave streaming at the read ceiling.
fn plan_note(dev: &Device, c: &Case, ceil: Ceilings) -> (String, f64) {
    let plan = c.plans[0].plan();
    let wave = (dev.caps().sm_count * c.plans[0].ctas_per_sm()) as f64;
    let tile_us = c.plans[0].kv_tile_bytes() as f64 * wave / (ceil.read_tbps * 1e12) * 1e6;
    let model_us = c.plans[0].model_estimate_tiles(dev) * tile_us;
    let note = format!(
        "{} CTAs ({}/SM){}, {} merged blocks{}{}, {}, model {model_us:.1} us",
        plan.work.len(),
        c.plans[0].ctas_per_sm(),
        if plan.balanced { ", balanced" } else { "" },
        plan.merge.len(),
        if !plan.merge.is_empty() && c.plans[0].cluster_splits() == 0 {
            format!(" x{} combine CTAs", c.plans[0].combine_parts())
        } else {
            String::new()
        },
        match (
            c.plans[0].cluster_splits(),
            plan.merge.first().map(|m| m.num_splits)
        ) {
            (0, Some(n))
                if n <= ferroflash_contract::decode::MAX_CLUSTER_SPLITS
                    && plan.merge.iter().all(|m| m.num_splits == n) =>
                format!(
                    " (clusters of {n}: {} fit, not used)",
                    c.plans[0].cluster_capacity(dev, n).unwrap_or(0)
                ),
            (0, _) => match c.plans[0].launch_cluster() {
                0 => String::new(),
                lc => format!(" (grid in clusters of {lc})"),
            },
            (n, _) => match c.plans[0].launch_cluster() {
                lc if lc == n => format!(" in clusters of {n}"),
                lc => format!(" in groups of {n} (clusters of {lc})"),
            },
        },
        c.plans[0].kernel(),
    );
    let note = if c.plans[0].kernel_config().is_kv_pair_view() {
        format!("{note} (kv-head pairs)")
    } else {
        note
    };
    (note, model_us)
}

fn read_env_ceilings(path: &str) -> Option<(f64, f64)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let c = v.get("ceilings")?;
    Some((c.get("copy_tbps")?.as_f64()?, c.get("read_tbps")?.as_f64()?))
}

/// `ferroflash bench`.
pub fn bench(
    specs: &[Spec],
    jsonl: Option<&str>,
    env_json: Option<&str>,
    rot_gib: f64,
    knobs: Knobs,
    timeline_dir: Option<&str>,
) -> Result<(), String> {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(Error::NoDriver) | Err(Error::NoDevice { .. }) => return cpu_fallback(specs),
        Err(e) => return Err(e.to_string()),
    };
    // SAFETY: the benchmark uses one stream only, so cudarc's cross-stream event tracking is not
    // needed; without it, decode calls can be captured into a CUDA graph.
    unsafe { dev.context().disable_event_tracking() };
    println!(
        "device: {} ({} SMs, sm_{}{}), module {} ({})",
        dev.caps().name,
        dev.caps().sm_count,
        dev.caps().compute_capability.0,
        dev.caps().compute_capability.1,
        dev.arch().name(),
        dev.kernel_source()
    );
    let (own_copy, own_read) = measure_ceilings(&dev)?;
    let env_path = env_json
        .map(str::to_string)
        .or_else(|| std::env::var("OUT").ok().map(|o| format!("{o}/env.json")));
    let ceil = match env_path.as_deref().and_then(read_env_ceilings) {
        Some((c, r)) => Ceilings {
            copy_tbps: c,
            read_tbps: r,
            own_read_tbps: own_read,
            source: "peers env.json",
        },
        None => Ceilings {
            copy_tbps: own_copy,
            read_tbps: own_read,
            own_read_tbps: own_read,
            source: "measured here",
        },
    };
    println!("ceilings: copy {:.2} TB/s, read {:.2} TB/s ({}); this process measured copy {own_copy:.2}, read {own_read:.2}", ceil.copy_tbps, ceil.read_tbps, ceil.source);
    if ferroflash::TILE_STAMPS_BUILD {
        println!("note: a diagnostic build (FF_TILE_STAMPS=1): the kernels test for per-tile stamps, fp8 K/V ~4% slower");
    }
    let mut out = match jsonl {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("{p}: {e}"))?,
        ),
        None => None,
    };
    println!(
        "{:<22} {:<10} {:>9} {:>9} {:>7} {:>7} {:>7} {:>9}  note",
        "workload", "layout", "us", "eager us", "TB/s", "%read", "%copy", "rel err"
    );
    let mut failed = false;
    for spec in specs {
        for &page in &spec.page_sizes {
            let rec = bench_case(&dev, spec, page, ceil, rot_gib, knobs, timeline_dir);
            match rec {
                Ok(r) => {
                    if r["status"] == "plan" {
                        println!(
                            "{:<22} {:<10} plan: {}",
                            spec.name,
                            r["layout"].as_str().unwrap(),
                            r["note"].as_str().unwrap()
                        );
                    } else if r["status"] == "ok" {
                        println!(
                            "{:<22} {:<10} {:>9.1} {:>9.1} {:>7.2} {:>7.1} {:>7.1} {:>9.1e}  {}",
                            spec.name,
                            r["layout"].as_str().unwrap(),
                            r["ms"].as_f64().unwrap() * 1e3,
                            r["eager_ms"].as_f64().unwrap() * 1e3,
                            r["tbps"].as_f64().unwrap(),
                            r["pct_read"].as_f64().unwrap(),
                            r["pct_copy"].as_f64().unwrap(),
                            r["rel_err"].as_f64().unwrap_or(f64::NAN),
                            r["note"].as_str().unwrap()
                        );
                    } else {
                        println!(
                            "{:<22} {:<10} skip: {}",
                            spec.name,
                            r["layout"].as_str().unwrap(),
                            r["error"].as_str().unwrap_or("")
                        );
                    }
                    if let Some(f) = out.as_mut() {
                        writeln!(f, "{r}").map_err(|e| e.to_string())?;
                    }
                }
                Err(e) => {
                    failed = true;
                    println!("{:<22} p{page:<9} FAILED: {e}", spec.name);
                }
            }
        }
    }
    if failed {
        Err("some cases failed".into())
    } else {
        Ok(())
    }
}

/// `ferroflash check`: correctness on the workloads (sampled requests vs the CPU reference).
pub fn check(specs: &[Spec], knobs: Knobs) -> Result<(), String> {
    let dev = Device::new(0)
        .map_err(|e| format!("{e} (the CPU reference alone runs with `ferroflash bench`)"))?;
    let mut bad = 0;
    for spec in specs {
        for &page in &spec.page_sizes {
            let r = Case::build(&dev, spec, page, 0.0, knobs).and_then(|mut c| c.check(&dev, 2));
            match r {
                Ok(e) if e < 1e-2 => println!("PASS {} p{page}: rel err {e:.2e}", spec.name),
                Ok(e) => {
                    bad += 1;
                    println!("FAIL {} p{page}: rel err {e:.2e}", spec.name)
                }
                Err(e) => {
                    bad += 1;
                    println!("FAIL {} p{page}: {e}", spec.name)
                }
            }
        }
    }
    if bad > 0 {
        Err(format!("{bad} workloads failed"))
    } else {
        Ok(())
    }
}

/// Without a GPU: run the float64 CPU reference on a reduced copy of each workload (2 requests,
/// KV capped at 2048 keys) so the command still shows the math and the data layout.
fn cpu_fallback(specs: &[Spec]) -> Result<(), String> {
    println!(
        "no CUDA GPU here: running the float64 CPU reference (rayon) on reduced workloads instead."
    );
    println!("For GPU numbers, run `cargo xtask bundle` and `bash target/bundle/run.sh bench` on a GPU machine (README).");
    println!(
        "{:<22} {:<8} {:>8} {:>10} {:>10} {:>12}",
        "workload", "layout", "requests", "keys/req", "ms", "GB/s (CPU)"
    );
    for spec in specs {
        let (q_dtype, kv_dtype) = spec.dtypes()?;
        let lens: Vec<u32> = spec
            .lens()?
            .into_iter()
            .take(2)
            .map(|l| l.min(2048))
            .collect();
        let page = spec.page_sizes[0];
        let p = Problem {
            q_heads: spec.q_heads as usize,
            kv_heads: spec.kv_heads as usize,
            head_dim: spec.head_dim as usize,
            page_size: page as usize,
            kv_layout: KvLayout::Nhd,
            q_lens: vec![spec.q_len; lens.len()],
            kv_lens: lens.clone(),
            sm_scale: 1.0 / (spec.head_dim as f32).sqrt(),
            softcap: None,
            window_left: None,
            q_dtype,
            kv_dtype,
        };
        let x = generate(&p, &GenOptions::default());
        let t = Instant::now();
        let out = reference_f64(&p, &x);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let bytes = 2.0
            * lens.iter().map(|&l| l as f64).sum::<f64>()
            * (spec.kv_heads * spec.head_dim) as f64
            * kv_dtype.bytes() as f64;
        assert!(out.o.iter().all(|v| v.is_finite()));
        println!(
            "{:<22} p{:<7} {:>8} {:>10} {:>10.1} {:>12.2}",
            spec.name,
            page,
            lens.len(),
            lens[0],
            ms,
            bytes / (ms * 1e-3) / 1e9
        );
    }
    Ok(())
}

/// Launch shapes `CTAS_PER_SMxTHREADS,...` of `ferroflash probe --configs`.
pub fn probe_shapes(configs: &str) -> Result<Vec<(u32, u32)>, String> {
    configs
        .split(',')
        .map(|c| {
            let bad = || format!("--configs {c}: CTAS_PER_SMxTHREADS, e.g. 8x512");
            let (a, b) = c.trim().split_once('x').ok_or_else(bad)?;
            let per_sm: u32 = a.parse().map_err(|_| bad())?;
            let threads: u32 = b.parse().map_err(|_| bad())?;
            if per_sm == 0 || threads == 0 || threads > 1024 || !threads.is_multiple_of(32) {
                return Err(bad());
            }
            Ok((per_sm, threads))
        })
        .collect()
}

/// `ferroflash probe`: the streaming-read ceiling as a function of the bytes one kernel reads.
/// Short kernels (tens of microseconds, like decode at small batch) pay a launch ramp and a
/// drain that a 4 GiB read hides; this measures that curve on the same GPU. Each size is read by
/// 16 launches over disjoint regions of an 8 GiB buffer (never L2 resident), back to back on the
/// stream and as one CUDA graph (the decode benchmark's timing), for each launch shape in
/// `configs` (`CTAS_PER_SMxTHREADS`); the median of 10 rounds is reported per launch.
pub fn probe(configs: &str) -> Result<(), String> {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIP probe: no GPU ({e})");
            return Ok(());
        }
    };
    let shapes = probe_shapes(configs)?;
    // SAFETY: one stream only (as in `bench`): without cross-stream event tracking the launches
    // can be captured into a graph.
    unsafe { dev.context().disable_event_tracking() };
    let s = dev.stream().clone();
    let total = 8usize << 30;
    let src = s.alloc_zeros::<u8>(total).map_err(drv("alloc"))?;
    let max_threads = shapes.iter().map(|&(a, b)| a * b).max().unwrap_or(1) * dev.caps().sm_count;
    let mut scratch = s
        .alloc_zeros::<u32>(max_threads as usize)
        .map_err(drv("alloc"))?;
    println!(
        "{:>8} {:>10} {:>12} {:>8} {:>12} {:>8}",
        "shape", "MiB", "eager us", "TB/s", "graph us", "TB/s"
    );
    for &(per_sm, threads) in &shapes {
        let grid = dev.caps().sm_count * per_sm;
        for mib in [32usize, 64, 128, 256, 512, 1024, 4096] {
            let bytes = mib << 20;
            let regions = (total / bytes).max(1);
            let mut next = 0usize;
            let mut sixteen = |scratch: &mut cudarc::driver::CudaSlice<u32>| -> Result<(), String> {
                for _ in 0..16 {
                    let off = (next % regions) * bytes;
                    next += 1;
                    bench::read_probe(&dev, &src.slice(off..off + bytes), scratch, grid, threads)
                        .map_err(ff)?;
                }
                Ok(())
            };
            sixteen(&mut scratch)?;
            let eager = time_events(&dev, 10, || sixteen(&mut scratch))? / 16.0;
            let g = capture_graph(&dev, || sixteen(&mut scratch))?;
            g.upload().map_err(drv("graph upload"))?;
            g.launch().map_err(drv("graph"))?;
            let graph = time_events(&dev, 10, || g.launch().map_err(drv("graph")))? / 16.0;
            let tbs = |ms: f64| bytes as f64 / (ms * 1e-3) / 1e12;
            println!(
                "{:>8} {mib:>10} {:>12.1} {:>8.2} {:>12.1} {:>8.2}",
                format!("{per_sm}x{threads}"),
                eager * 1e3,
                tbs(eager),
                graph * 1e3,
                tbs(graph)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod probe_tests {
    use super::probe_shapes;
    #[test]
    fn shapes_parse_and_reject() {
        assert_eq!(
            probe_shapes("8x512, 2x1024").unwrap(),
            vec![(8, 512), (2, 1024)]
        );
        for bad in ["8", "x512", "8x0", "0x512", "4x2048", "4x100", "8x512,"] {
            assert!(probe_shapes(bad).is_err(), "{bad}");
        }
    }
}
