//! The float64 references: [`reference_f64`] (paged, two-pass) and [`dense_f64`] (gathered,
//! full score matrix), two independent codings of the semantics in the crate doc.

use rayon::prelude::*;

use crate::problem::{check_args, Inputs, Output, Problem};

/// Float64 paged decode attention: for every (query token, q head), a naive two-pass softmax
/// over the visible keys read straight from the paged cache. Parallel over (token, q head).
///
/// Panics if `p` or `x` fails validation.
pub fn reference_f64(p: &Problem, x: &Inputs) -> Output {
    check_args(p, x);
    let (hq, d) = (p.q_heads, p.head_dim);
    let rows = p.query_rows();
    let mut o = vec![0.0f64; p.total_tokens() * hq * d];
    let mut lse = vec![f64::NEG_INFINITY; p.total_tokens() * hq];
    o.par_chunks_mut(d)
        .zip(lse.par_iter_mut())
        .enumerate()
        .for_each(|(row, (out, lse))| {
            let (token, h) = (row / hq, row % hq);
            let qr = &rows[token];
            let kvh = p.kv_head_of(h);
            let q = &x.q[row * d..(row + 1) * d];
            let scale = x.qk_scale(p, qr.request, kvh) as f64 * p.sm_scale as f64;
            let sink = x.sinks.as_ref().map(|s| s[h] as f64);

            // Pass 1: scores and their max.
            let offsets: Vec<usize> = qr
                .keys
                .clone()
                .map(|t| x.kv_row_offset(p, qr.request, t, kvh))
                .collect();
            let scores: Vec<f64> = offsets
                .iter()
                .map(|&off| {
                    let qk: f64 = q
                        .iter()
                        .zip(&x.k_pool[off..off + d])
                        .map(|(&a, &b)| a as f64 * b as f64)
                        .sum();
                    let s = qk * scale;
                    match p.softcap {
                        Some(c) => c as f64 * (s / c as f64).tanh(),
                        None => s,
                    }
                })
                .collect();
            if scores.is_empty() && sink.is_none() {
                return; // O = 0, LSE = -inf.
            }
            let m = scores
                .iter()
                .chain(sink.as_ref())
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);

            // Pass 2: normaliser, then the weighted sum of V.
            let denom: f64 = scores
                .iter()
                .chain(sink.as_ref())
                .map(|&s| (s - m).exp())
                .sum();
            let v_scale = x.v_scale_of(p, qr.request, kvh) as f64;
            for (&s, &off) in scores.iter().zip(&offsets) {
                let w = (s - m).exp() / denom * v_scale;
                for (acc, &v) in out.iter_mut().zip(&x.v_pool[off..off + d]) {
                    *acc += w * v as f64;
                }
            }
            *lse = m + denom.ln();
        });
    Output { o, lse }
}

/// An independent, plain float64 implementation used to test [`reference_f64`]: per request,
/// gather K and V into contiguous `[kv_len, kv_heads, head_dim]` arrays, build the full masked
/// score matrix `[q_len, kv_len]` for each q head (`-inf` where masked, plus a sink column),
/// then softmax as `exp(s - max) / sum`. Parallel over requests.
///
/// Panics if `p` or `x` fails validation.
pub fn dense_f64(p: &Problem, x: &Inputs) -> Output {
    check_args(p, x);
    let (hq, hkv, d, ps) = (p.q_heads, p.kv_heads, p.head_dim, p.page_size);
    let layout = p.layout();
    let q_indptr = p.q_indptr();
    let per_request: Vec<Output> = (0..p.num_requests())
        .into_par_iter()
        .map(|r| {
            let (q_len, kv_len) = (p.q_lens[r] as usize, p.kv_lens[r] as usize);
            // Gather.
            let gather = |pool: &[f32]| -> Vec<f64> {
                let mut dense = Vec::with_capacity(kv_len * hkv * d);
                for t in 0..kv_len {
                    let page = x.page_indices[x.page_indptr[r] as usize + t / ps];
                    for kvh in 0..hkv {
                        let slot = (t % ps) as u32;
                        let base = layout.row_offset_elems(page, slot, kvh as u32) as usize;
                        dense.extend(pool[base..base + d].iter().map(|&v| v as f64));
                    }
                }
                dense
            };
            let (k, v) = (gather(&x.k_pool), gather(&x.v_pool));
            let q0 = q_indptr[r] as usize;
            let mut out = Output {
                o: vec![0.0; q_len * hq * d],
                lse: vec![f64::NEG_INFINITY; q_len * hq],
            };
            for h in 0..hq {
                let kvh = h / (hq / hkv);
                let scale = x.qk_scale(p, r, kvh) as f64 * p.sm_scale as f64;
                for i in 0..q_len {
                    let q = &x.q[((q0 + i) * hq + h) * d..][..d];
                    let pos = kv_len as i64 - q_len as i64 + i as i64;
                    let visible = |j: usize| {
                        let j = j as i64;
                        j <= pos && p.window_left.is_none_or(|w| pos - j <= w as i64)
                    };
                    if x.sinks.is_none() && !(0..kv_len).any(visible) {
                        continue; // O = 0, LSE = -inf.
                    }
                    // Full score row, -inf where masked; the sink is an extra column.
                    let mut s: Vec<f64> = (0..kv_len)
                        .map(|j| {
                            if !visible(j) {
                                return f64::NEG_INFINITY;
                            }
                            let kj = &k[(j * hkv + kvh) * d..][..d];
                            let dot: f64 = (0..d).map(|c| q[c] as f64 * kj[c]).sum::<f64>() * scale;
                            p.softcap
                                .map_or(dot, |c| c as f64 * (dot / c as f64).tanh())
                        })
                        .collect();
                    s.extend(x.sinks.as_ref().map(|sinks| sinks[h] as f64));
                    let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let e: Vec<f64> = s.iter().map(|&v| (v - max).exp()).collect();
                    let sum: f64 = e.iter().sum();
                    let row = i * hq + h;
                    for (j, &ej) in e.iter().take(kv_len).enumerate() {
                        let pj = ej / sum;
                        for c in 0..d {
                            out.o[row * d + c] +=
                                pj * v[(j * hkv + kvh) * d + c] * x.v_scale_of(p, r, kvh) as f64;
                        }
                    }
                    out.lse[row] = max + sum.ln();
                }
            }
            out
        })
        .collect();
    Output {
        o: per_request
            .iter()
            .flat_map(|r| r.o.iter().copied())
            .collect(),
        lse: per_request
            .iter()
            .flat_map(|r| r.lse.iter().copied())
            .collect(),
    }
}
