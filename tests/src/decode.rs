//! Paged decode against the float64 reference: sweeps of page size, head ratio, new tokens,
//! head dim and awkward lengths; NaN-poisoned outputs; shuffled page tables with spare pages;
//! every case run twice and required bitwise equal (a moving result is a race).

use crate::{Case, CaseResult, Outcome};
use ferroflash::{BatchTables, DecodeConfig, DecodePlan, DecodeTensors, Device, Dtype16, Splits};
use ferroflash_reference::check::{compare, tolerance_for};
use ferroflash_reference::gen::{generate, GenOptions, ScaleMode};
use ferroflash_reference::{reference_f64, reference_matched, DType, Inputs, Problem, Storage};

/// One decode test configuration.
#[derive(Clone, Debug)]
pub struct DecodeCase {
    pub head_dim: usize,
    pub page_size: usize,
    pub kv_heads: usize,
    pub group: usize,
    pub q_len: u32,
    pub kv_lens: Vec<u32>,
    pub dtype: DType,
    pub softcap: Option<f32>,
    pub window_left: Option<u32>,
    pub sinks: bool,
    pub per_head_scales: bool,
    pub scale: f32,
    pub splits: Splits,
    pub seed: u64,
}

/// The awkward lengths of the house style for page size `page`.
pub fn awkward_lens(page: u32) -> Vec<u32> {
    let mut v = vec![0, 1, page.saturating_sub(1).max(1), page, page + 1, 54, 97, 4096];
    v.dedup();
    v
}

fn u16_bits(s: &Storage) -> &[u16] {
    match s {
        Storage::U16(v) => v,
        Storage::U8(_) => panic!("16-bit case with fp8 storage"),
    }
}

/// Run one case: plan, run twice, compare with the reference. Returns a one-line summary.
pub fn run_case(dev: &Device, c: &DecodeCase) -> Result<String, String> {
    let problem = Problem {
        q_heads: c.kv_heads * c.group,
        kv_heads: c.kv_heads,
        head_dim: c.head_dim,
        page_size: c.page_size,
        q_lens: vec![c.q_len; c.kv_lens.len()],
        kv_lens: c.kv_lens.clone(),
        sm_scale: 1.0 / (c.head_dim as f32).sqrt(),
        softcap: c.softcap,
        window_left: c.window_left,
        q_dtype: c.dtype,
        kv_dtype: c.dtype,
    };
    let opts = GenOptions {
        seed: c.seed,
        spare_pages: 5,
        scale: c.scale,
        sinks: c.sinks,
        kv_scale_mode: if c.per_head_scales { ScaleMode::PerHead } else { ScaleMode::PerTensor },
    };
    let x: Inputs = generate(&problem, &opts);
    let dtype = if c.dtype == DType::F16 { Dtype16::F16 } else { Dtype16::Bf16 };
    let mut cfg = DecodeConfig::new(problem.q_heads as u32, c.kv_heads as u32, c.head_dim as u32, c.page_size as u32, x.num_pages as u32, dtype);
    cfg.softcap = c.softcap;
    cfg.window_left = c.window_left;
    cfg.splits = c.splits;
    cfg.sm_scale = Some(problem.sm_scale);
    let q_indptr = problem.q_indptr();
    let plan = DecodePlan::new(dev, &cfg, &BatchTables { q_indptr: &q_indptr, kv_lens: &c.kv_lens, page_indptr: &x.page_indptr, page_indices: &x.page_indices })
        .map_err(|e| format!("plan: {e}"))?;
    let s = dev.stream();
    let up16 = |v: &[u16]| s.clone_htod(v).map_err(|e| format!("upload: {e:?}"));
    let upf = |v: &[f32]| s.clone_htod(v).map_err(|e| format!("upload: {e:?}"));
    let g_q = up16(u16_bits(&x.q_bits))?;
    let g_k = up16(u16_bits(&x.k_bits))?;
    let g_v = up16(u16_bits(&x.v_bits))?;
    let g_sinks = match &x.sinks {
        Some(v) => Some(upf(v)?),
        None => None,
    };
    let g_ks = upf(&x.k_scale)?;
    let g_vs = upf(&x.v_scale)?;
    let n_o = problem.total_tokens() * problem.q_heads * c.head_dim;
    let n_lse = problem.total_tokens() * problem.q_heads;
    let mut outs = Vec::new();
    for _ in 0..2 {
        // NaN-poisoned outputs (0x7fc0 is NaN in bf16 and f16): an element the kernel forgets to write fails the NaN parity check.
        let mut g_o = up16(&vec![0x7fc0u16; n_o])?;
        let mut g_lse = upf(&vec![f32::NAN; n_lse])?;
        plan.run(
            dev,
            DecodeTensors {
                q: &g_q,
                k_pool: &g_k,
                v_pool: &g_v,
                o: &mut g_o,
                lse: Some(&mut g_lse),
                sinks: g_sinks.as_ref(),
                k_scale: c.per_head_scales.then_some(&g_ks),
                v_scale: c.per_head_scales.then_some(&g_vs),
            },
        )
        .map_err(|e| format!("run: {e}"))?;
        s.synchronize().map_err(|e| format!("kernel: {e:?}"))?;
        let o: Vec<u16> = s.clone_dtoh(&g_o).map_err(|e| format!("{e:?}"))?;
        let lse: Vec<f32> = s.clone_dtoh(&g_lse).map_err(|e| format!("{e:?}"))?;
        outs.push((o, lse));
    }
    if outs[0].0 != outs[1].0 || outs[0].1.iter().map(|x| x.to_bits()).ne(outs[1].1.iter().map(|x| x.to_bits())) {
        return Err("two runs of the same plan differ bitwise (race?)".into());
    }
    let (o_bits, lse) = &outs[0];
    let o: Vec<f32> = o_bits.iter().map(|&b| if dtype == Dtype16::F16 { half::f16::from_bits(b).to_f32() } else { half::bf16::from_bits(b).to_f32() }).collect();
    let reference = reference_f64(&problem, &x);
    let matched = reference_matched(&problem, &x, c.dtype);
    let report = compare(&o, lse, &reference, &matched, tolerance_for(c.dtype, c.dtype)).map_err(|e| format!("{e} [seed {}]", c.seed))?;
    Ok(format!("{report}; {} CTAs, {} merges, {}", plan.plan().work.len(), plan.plan().merge.len(), plan.kernel()))
}

fn case_result(dev: &Device, c: &DecodeCase) -> CaseResult {
    run_case(dev, c).map(|_| Outcome::Pass).map_err(|e| format!("{e}\n    case: {c:?}"))
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
                    dtype: if i.is_multiple_of(2) { DType::Bf16 } else { DType::F16 },
                    softcap: (i % 5 == 1).then_some(30.0),
                    window_left: (i % 7 == 3).then_some(40),
                    sinks: i % 4 == 2,
                    per_head_scales: i % 6 == 5,
                    scale: [0.5, 1.0, 3.0, 8.0][(i % 4) as usize],
                    splits: [Splits::Auto, Splits::Fixed(1), Splits::Fixed(3), Splits::Auto][(i % 4) as usize],
                    seed: 1000 + i,
                });
                i += 1;
            }
        }
    }
    v
}

/// Named cases for the suite.
pub fn cases() -> Vec<Case> {
    vec![
        Case { name: "decode/sweep_dims_pages_ratios_tokens", run: |d| {
            for c in sweep() {
                case_result(d, &c)?;
            }
            Ok(Outcome::Pass)
        } },
        Case { name: "decode/splits1_equals_splitsn", run: splits_agree },
        Case { name: "decode/empty_requests_zero_and_neg_inf", run: empty_requests },
        Case { name: "decode/bad_tensors_rejected_before_launch", run: bad_tensors },
        Case { name: "decode/cuda_graph_replay_after_update", run: graph_replay },
    ]
}

fn base(head_dim: usize, page: usize, group: usize, q_len: u32, kv_lens: Vec<u32>) -> DecodeCase {
    DecodeCase { head_dim, page_size: page, kv_heads: 8, group, q_len, kv_lens, dtype: DType::Bf16, softcap: None, window_left: None, sinks: false, per_head_scales: false, scale: 1.0, splits: Splits::Auto, seed: 7 }
}

fn splits_agree(d: &Device) -> CaseResult {
    for splits in [Splits::Fixed(1), Splits::Fixed(2), Splits::Fixed(7), Splits::Auto] {
        let mut c = base(128, 16, 4, 1, vec![3000, 17, 0, 1200]);
        c.splits = splits;
        case_result(d, &c)?;
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
    let plan = DecodePlan::new(d, &cfg, &BatchTables { q_indptr: &q_indptr, kv_lens: &kv_lens, page_indptr: &page_indptr, page_indices: &page_indices }).map_err(|e| e.to_string())?;
    let s = d.stream();
    let alloc16 = |n: usize| s.clone_htod(&vec![0x7fc0u16; n]).map_err(|e| format!("{e:?}"));
    let pool = cfg.pool_elems();
    let (q, k, v) = (alloc16(8 * 128)?, alloc16(pool)?, alloc16(pool)?);
    let short_q = alloc16(8 * 128 - 1)?;
    let q32 = s.clone_htod(&vec![0f32; 8 * 128]).map_err(|e| format!("{e:?}"))?;
    let mut o = alloc16(8 * 128)?;
    let mut o32 = s.clone_htod(&vec![0f32; 8 * 128]).map_err(|e| format!("{e:?}"))?;
    let t = |q, o| DecodeTensors { q, k_pool: &k, v_pool: &v, o, lse: None, sinks: None, k_scale: None, v_scale: None };
    match plan.run(d, t(&short_q, &mut o)) {
        Err(Error::ShapeMismatch { name: "q", .. }) => {}
        r => return Err(format!("short q: {r:?}")),
    }
    let mut long_o = alloc16(8 * 128 + 8)?;
    match plan.run(d, t(&q, &mut long_o)) {
        Err(Error::ShapeMismatch { name: "o", .. }) => {}
        r => return Err(format!("long o: {r:?}")),
    }
    match plan.run(d, DecodeTensors { q: &q32, k_pool: &q32, v_pool: &q32, o: &mut o32, lse: None, sinks: None, k_scale: None, v_scale: None }) {
        Err(Error::DtypeMismatch { name: "q", .. }) => {}
        r => return Err(format!("f32 q: {r:?}")),
    }
    let raw = |q: u64| RawTensors { q, k_pool: 256, v_pool: 512, o: 768, ..Default::default() };
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
fn graph_replay(d: &Device) -> CaseResult {
    use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    use ferroflash::{GraphCapacity, RawTensors};
    let (kv_heads, group, head_dim, page, pool_pages) = (4usize, 4usize, 128usize, 16usize, 400u32);
    let cap = GraphCapacity { max_requests: 4, max_new_tokens: 4, max_page_entries: pool_pages };
    let cfg = DecodeConfig::new((kv_heads * group) as u32, kv_heads as u32, head_dim as u32, page as u32, pool_pages, Dtype16::Bf16);
    let mut plan = DecodePlan::for_graphs(d, &cfg, cap).map_err(|e| e.to_string())?;
    let s = d.stream();
    let err = |e: cudarc::driver::DriverError| format!("{e:?}");
    let rows = cap.max_tokens() * kv_heads * group * head_dim;
    let mut g_q = s.alloc_zeros::<u16>(rows).map_err(err)?;
    let mut g_k = s.alloc_zeros::<u16>(cfg.pool_elems()).map_err(err)?;
    let mut g_v = s.alloc_zeros::<u16>(cfg.pool_elems()).map_err(err)?;
    let mut g_o = s.alloc_zeros::<u16>(rows).map_err(err)?;
    let mut g_lse = s.alloc_zeros::<f32>(cap.max_tokens() * kv_heads * group).map_err(err)?;
    let raw = RawTensors {
        q: g_q.device_ptr(s).0,
        k_pool: g_k.device_ptr(s).0,
        v_pool: g_v.device_ptr(s).0,
        o: g_o.device_ptr_mut(s).0,
        lse: g_lse.device_ptr_mut(s).0,
        ..Default::default()
    };
    s.synchronize().map_err(err)?;
    s.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).map_err(err)?;
    // SAFETY: the buffers above are sized for the capacity and outlive the graph.
    let captured = unsafe { plan.run_raw(d, raw, s.cu_stream()) };
    let graph = s.end_capture(CUgraphInstantiate_flags(0)).map_err(err)?.ok_or("empty graph")?;
    captured.map_err(|e| e.to_string())?;
    let batches: [(Vec<u32>, Vec<u32>); 2] = [(vec![1, 4, 2], vec![100, 1500, 0]), (vec![4, 1, 1, 3], vec![3000, 17, 64, 900])];
    for (seed, (q_lens, kv_lens)) in batches.iter().enumerate() {
        let problem = Problem {
            q_heads: kv_heads * group,
            kv_heads,
            head_dim,
            page_size: page,
            q_lens: q_lens.clone(),
            kv_lens: kv_lens.clone(),
            sm_scale: 1.0 / (head_dim as f32).sqrt(),
            softcap: None,
            window_left: None,
            q_dtype: DType::Bf16,
            kv_dtype: DType::Bf16,
        };
        let x = generate(&problem, &GenOptions { seed: 77 + seed as u64, ..GenOptions::default() });
        let q_indptr = problem.q_indptr();
        plan.update(d, &BatchTables { q_indptr: &q_indptr, kv_lens, page_indptr: &x.page_indptr, page_indices: &x.page_indices }).map_err(|e| e.to_string())?;
        s.memcpy_htod(u16_bits(&x.q_bits), &mut g_q.slice_mut(..x.q.len())).map_err(err)?;
        s.memcpy_htod(u16_bits(&x.k_bits), &mut g_k.slice_mut(..x.k_pool.len())).map_err(err)?;
        s.memcpy_htod(u16_bits(&x.v_bits), &mut g_v.slice_mut(..x.v_pool.len())).map_err(err)?;
        s.memcpy_htod(&vec![0x7fc0u16; rows], &mut g_o).map_err(err)?;
        s.memcpy_htod(&vec![f32::NAN; g_lse.len()], &mut g_lse).map_err(err)?;
        graph.launch().map_err(err)?;
        s.synchronize().map_err(err)?;
        let n_o = x.q.len();
        let o_bits: Vec<u16> = s.clone_dtoh(&g_o).map_err(err)?;
        let lse: Vec<f32> = s.clone_dtoh(&g_lse).map_err(err)?;
        let o: Vec<f32> = o_bits[..n_o].iter().map(|&b| half::bf16::from_bits(b).to_f32()).collect();
        let reference = reference_f64(&problem, &x);
        let matched = reference_matched(&problem, &x, DType::Bf16);
        compare(&o, &lse[..n_o / head_dim], &reference, &matched, tolerance_for(DType::Bf16, DType::Bf16)).map_err(|e| format!("batch {seed} after update: {e}"))?;
        // SAFETY: same buffers as the captured call.
        unsafe { plan.run_raw(d, raw, s.cu_stream()) }.map_err(|e| e.to_string())?;
        s.synchronize().map_err(err)?;
        let direct: Vec<u16> = s.clone_dtoh(&g_o).map_err(err)?;
        if direct[..n_o] != o_bits[..n_o] {
            return Err(format!("batch {seed}: graph replay and direct run differ"));
        }
    }
    // Beyond the capacity: typed errors, the plan keeps its last batch.
    let too_many = plan.update(d, &BatchTables { q_indptr: &[0, 1, 2, 3, 4, 5], kv_lens: &[1; 5], page_indptr: &[0, 1, 2, 3, 4, 5], page_indices: &[0, 1, 2, 3, 4] });
    if too_many.is_ok() {
        return Err("update with 5 requests over a capacity of 4 was accepted".into());
    }
    let long = plan.update(d, &BatchTables { q_indptr: &[0, 5], kv_lens: &[5], page_indptr: &[0, 1], page_indices: &[0] });
    if !matches!(long, Err(ferroflash::Error::NewTokens { .. })) {
        return Err(format!("5 new tokens over a capacity of 4: {long:?}"));
    }
    Ok(Outcome::Pass)
}
