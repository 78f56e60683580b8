//! The matched-precision reference: f32 arithmetic that rounds where the GPU kernel rounds.
//!
//! Its distance from [`crate::reference_f64`] is the error a correct kernel is expected to show;
//! [`crate::check::compare`] allows a kernel twice that plus a small absolute slack.

use std::f32::consts::{LN_2, LOG2_E};

use rayon::prelude::*;

use crate::dtype::DType;
use crate::problem::{check_args, Inputs, Output, Problem};

/// Decode attention in f32, mirroring the kernel's roundings:
///
/// 1. `qk` = f32 dot product of the decoded Q and K elements (products are exact for every
///    supported dtype pair; the sum is sequential f32).
/// 2. Scores in the log2 domain with the scales folded into one factor:
///    `s2 = qk * (q_scale * k_scale * sm_scale * log2(e))`; with a softcap `c`,
///    `s2 = tanh(qk * (q_scale * k_scale * sm_scale / c)) * (c * log2(e))`.
///    A sink contributes `sink * log2(e)`.
/// 3. `m = max s2`, `p = exp2(s2 - m)` in f32, `l = Σ p` in f32 from the unrounded `p`.
/// 4. `P` rounded to [`Problem::p_dtype`] (bf16, or f16 for f16 Q), then
///    `acc = Σ P * v` with f32 accumulation.
/// 5. `O = acc * v_scale / l`, rounded to `out_dtype` (bf16 or f16; any [`DType`] is accepted);
///    `LSE = (m + log2 l) * ln 2` in f32, widened to f64.
///
/// The kernel's online softmax rescales per KV tile; this reference uses the final max for
/// every key (a single tile), which rounds `P` the same way up to the choice of max.
///
/// The empty rule is the same as the f64 reference (`O = 0`, `LSE = -inf` with no key and no
/// sink). Parallel over (token, q head). Panics if `p` or `x` fails validation.
pub fn reference_matched(p: &Problem, x: &Inputs, out_dtype: DType) -> Output {
    check_args(p, x);
    let (hq, d) = (p.q_heads, p.head_dim);
    let p_dtype = p.p_dtype();
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
            let qk_scale = x.qk_scale(p, qr.request, kvh) * p.sm_scale;
            let sink2 = x.sinks.as_ref().map(|s| s[h] * LOG2_E);

            let offsets: Vec<usize> = qr
                .keys
                .clone()
                .map(|t| x.kv_row_offset(p, qr.request, t, kvh))
                .collect();
            let s2: Vec<f32> = offsets
                .iter()
                .map(|&off| {
                    let qk = q
                        .iter()
                        .zip(&x.k_pool[off..off + d])
                        .fold(0.0f32, |acc, (&a, &b)| acc + a * b);
                    match p.softcap {
                        Some(c) => (qk * (qk_scale / c)).tanh() * (c * LOG2_E),
                        None => qk * (qk_scale * LOG2_E),
                    }
                })
                .collect();
            if s2.is_empty() && sink2.is_none() {
                return;
            }
            let m = s2
                .iter()
                .chain(sink2.as_ref())
                .copied()
                .fold(f32::NEG_INFINITY, f32::max);
            let mut l = sink2.map_or(0.0, |s| (s - m).exp2());
            let mut acc = vec![0.0f32; d];
            for (&s, &off) in s2.iter().zip(&offsets) {
                let pj = (s - m).exp2();
                l += pj;
                let pj = p_dtype.round(pj);
                for (a, &v) in acc.iter_mut().zip(&x.v_pool[off..off + d]) {
                    *a += pj * v;
                }
            }
            let v_scale = x.v_scale_of(p, qr.request, kvh);
            for (dst, a) in out.iter_mut().zip(acc) {
                *dst = out_dtype.round(a * v_scale / l) as f64;
            }
            *lse = ((m + l.log2()) * LN_2) as f64;
        });
    Output { o, lse }
}
