//! CPU ground truth for ferroflash paged decode attention.
//!
//! This crate holds everything the GPU tests and benchmarks compare against:
//!
//! * [`reference_f64`]: the float64 reference, a naive two-pass softmax read straight from the
//!   paged cache;
//! * [`dense_f64`]: an independent, deliberately plain implementation (gather, full masked score
//!   matrix, softmax) used only to test [`reference_f64`];
//! * [`reference_matched`]: a "matched-precision" reference in f32 that rounds where the GPU
//!   kernel rounds, which tells how far from [`reference_f64`] a correct kernel can land;
//! * [`gen`]: a seeded random problem generator (scrambled page tables, garbage in unused slots,
//!   fp8 scales);
//! * [`check`]: the tolerance policy ([`check::compare`]).
//!
//! # Semantics
//!
//! A batch holds [`Problem::num_requests`] requests. Request `r` has `kv_lens[r]` tokens of KV in
//! total and `q_lens[r]` (1..=16) query tokens. The query tokens are the *last* `q_len` tokens of
//! the sequence: query token `i` (0-based) has absolute position `pos = kv_len - q_len + i`,
//! computed in `i64`, which is negative when `kv_len < q_len`. Key `j` (0-based, `j < kv_len`)
//! is visible to it iff
//!
//! * `j <= pos` (causal, bottom-right aligned), and
//! * with a sliding window `window_left = Some(w)`: `j >= pos - w`.
//!
//! `kv_len = 0` means no keys at all.
//!
//! **Queries.** `q` is `[total_tokens, q_heads, head_dim]` decoded element values; the tokens of
//! request `r` are rows `q_indptr[r]..q_indptr[r + 1]`, `q_indptr` being the prefix sum of
//! `q_lens`. Grouped-query attention: q head `h` reads kv head `h / (q_heads / kv_heads)`.
//!
//! **KV.** `k_pool` and `v_pool` are each `[num_pages, page_size, kv_heads, head_dim]` (NHD) or
//! `[num_pages, kv_heads, page_size, head_dim]` (HND, `Problem::kv_layout`) decoded element
//! values (what the stored bf16/f16/fp8 codes decode to, before scales). The page table is CSR:
//! token `t` of request `r` lives in page `page_indices[page_indptr[r] + t / page_size]`, slot
//! `t % page_size` (offsets from [`ferroflash_contract::PagedKvLayout`]).
//!
//! **Scores.** With `kvh` the kv head of q head `h`,
//! `s = (q · k) * q_scale * k_scale[kvh] * sm_scale`; with a logit softcap `c`,
//! `s = c * tanh(s / c)`. An attention sink (one logit per q head) is a virtual key whose logit
//! is used as is (no scale, no cap): it enters the softmax denominator and adds no value.
//!
//! **Outputs.** `O[token, h, :] = Σ_j softmax_j * v_j * v_scale[kvh]` and
//! `LSE[token, h] = ln Σ exp(s)` over the visible keys and the sink. With no visible key and no
//! sink, `O = 0` exactly and `LSE = -inf` (never NaN); with a sink but no key, `O = 0` and
//! `LSE = sink`. Non-finite inputs are not special-cased: NaN propagates.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
mod dtype;
mod exact;
pub mod gen;
mod matched;
mod problem;

pub use dtype::{DType, Storage};
pub use exact::{dense_f64, reference_f64};
pub use matched::reference_matched;
pub use problem::{Inputs, Output, Problem, QueryRow, RequestScales};
