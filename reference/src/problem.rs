//! Problem shape ([`Problem`]), input data ([`Inputs`]), results ([`Output`]) and the per-token
//! visibility rule ([`QueryRow`]).

use std::ops::Range;

use ferroflash_contract::{KvLayout, PagedKvLayout};

use crate::dtype::{DType, Storage};

/// Largest supported `q_len` per request.
pub const MAX_Q_LEN: u32 = 16;

/// Shape and options of one batched decode-attention call; no data.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Query heads.
    pub q_heads: usize,
    /// KV heads; divides `q_heads`.
    pub kv_heads: usize,
    /// Elements per head.
    pub head_dim: usize,
    /// Tokens per KV page.
    pub page_size: usize,
    /// Axis order inside a K/V page (NHD or HND, see [`ferroflash_contract::paged`]).
    pub kv_layout: KvLayout,
    /// Query tokens per request (1..=16).
    pub q_lens: Vec<u32>,
    /// KV tokens per request, including its query tokens (may be 0 or below `q_len`).
    pub kv_lens: Vec<u32>,
    /// Softmax scale applied to `q · k` (typically `1 / sqrt(head_dim)`).
    pub sm_scale: f32,
    /// Logit softcap `c > 0`: `s = c * tanh(s / c)`.
    pub softcap: Option<f32>,
    /// Sliding window: key `j` is visible to position `pos` only if `j >= pos - w`.
    pub window_left: Option<u32>,
    /// Storage dtype of Q.
    pub q_dtype: DType,
    /// Storage dtype of K and V.
    pub kv_dtype: DType,
}

impl Problem {
    /// Requests in the batch.
    pub fn num_requests(&self) -> usize {
        self.q_lens.len()
    }

    /// Query tokens over all requests.
    pub fn total_tokens(&self) -> usize {
        self.q_lens.iter().map(|&l| l as usize).sum()
    }

    /// Prefix sum of `q_lens` (length `num_requests + 1`).
    pub fn q_indptr(&self) -> Vec<u32> {
        std::iter::once(0)
            .chain(self.q_lens.iter().scan(0u32, |acc, &l| {
                *acc += l;
                Some(*acc)
            }))
            .collect()
    }

    /// Query heads per kv head.
    pub fn group(&self) -> usize {
        self.q_heads / self.kv_heads
    }

    /// The kv head read by q head `h`.
    pub fn kv_head_of(&self, h: usize) -> usize {
        h / self.group()
    }

    /// The paged layout of one K or V pool.
    pub fn layout(&self) -> PagedKvLayout {
        PagedKvLayout {
            page_size_tokens: self.page_size as u32,
            kv_heads: self.kv_heads as u32,
            head_dim: self.head_dim as u32,
            layout: self.kv_layout,
        }
    }

    /// The dtype the kernel stores softmax probabilities in before `P · V`: f16 when Q is f16
    /// or K/V are fp8 (fp8 V is decoded to f16), bf16 otherwise.
    pub fn p_dtype(&self) -> DType {
        if self.q_dtype == DType::F16 || self.kv_dtype.is_fp8() {
            DType::F16
        } else {
            DType::Bf16
        }
    }

    /// Checks the shape and options.
    pub fn validate(&self) -> Result<(), String> {
        if self.q_heads == 0 || self.kv_heads == 0 || self.head_dim == 0 || self.page_size == 0 {
            return Err(format!(
                "zero size: q_heads {} kv_heads {} head_dim {} page_size {}",
                self.q_heads, self.kv_heads, self.head_dim, self.page_size
            ));
        }
        if !self.q_heads.is_multiple_of(self.kv_heads) {
            return Err(format!(
                "q_heads {} not a multiple of kv_heads {}",
                self.q_heads, self.kv_heads
            ));
        }
        if self.q_lens.len() != self.kv_lens.len() {
            return Err(format!(
                "{} q_lens but {} kv_lens",
                self.q_lens.len(),
                self.kv_lens.len()
            ));
        }
        if let Some((r, l)) = self
            .q_lens
            .iter()
            .enumerate()
            .find(|(_, &l)| !(1..=MAX_Q_LEN).contains(&l))
        {
            return Err(format!("request {r}: q_len {l} outside 1..={MAX_Q_LEN}"));
        }
        if !self.sm_scale.is_finite() {
            return Err(format!("sm_scale {} not finite", self.sm_scale));
        }
        if let Some(c) = self.softcap {
            if !(c > 0.0 && c.is_finite()) {
                return Err(format!("softcap {c} must be finite and > 0"));
            }
        }
        Ok(())
    }

    /// One [`QueryRow`] per query token, in token order.
    pub fn query_rows(&self) -> Vec<QueryRow> {
        let mut rows = Vec::with_capacity(self.total_tokens());
        for (r, (&q_len, &kv_len)) in self.q_lens.iter().zip(&self.kv_lens).enumerate() {
            for i in 0..q_len {
                let pos = kv_len as i64 - q_len as i64 + i as i64;
                rows.push(QueryRow {
                    request: r,
                    pos,
                    keys: visible_keys(kv_len, pos, self.window_left),
                });
            }
        }
        rows
    }
}

/// Where one query token sits and which keys it sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryRow {
    /// Its request.
    pub request: usize,
    /// Its absolute position `kv_len - q_len + i` (negative when `kv_len < q_len`).
    pub pos: i64,
    /// The visible keys: `j <= pos`, `j < kv_len` and, with a window `w`, `j >= pos - w`.
    /// Empty when none is visible.
    pub keys: Range<u32>,
}

/// The visible key range of a query at `pos` in a sequence of `kv_len` keys.
fn visible_keys(kv_len: u32, pos: i64, window_left: Option<u32>) -> Range<u32> {
    let end = (pos + 1).clamp(0, kv_len as i64);
    let start = window_left.map_or(0, |w| (pos - w as i64).clamp(0, end));
    start as u32..end as u32
}

/// Input data of a [`Problem`], all as decoded f32 element values, plus the raw codes.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// `[total_tokens, q_heads, head_dim]` decoded Q values (before `q_scale`).
    pub q: Vec<f32>,
    /// K pool in `Problem::kv_layout` (NHD: `[num_pages, page_size, kv_heads, head_dim]`),
    /// decoded values (before `k_scale`).
    pub k_pool: Vec<f32>,
    /// Like `k_pool`, for V.
    pub v_pool: Vec<f32>,
    /// Pages in each pool.
    pub num_pages: usize,
    /// CSR row pointers of the page table (`num_requests + 1` entries).
    pub page_indptr: Vec<u32>,
    /// Page ids, request after request.
    pub page_indices: Vec<u32>,
    /// Dequantisation scale of Q.
    pub q_scale: f32,
    /// Dequantisation scale of K, per kv head (all equal for a per-tensor scale).
    pub k_scale: Vec<f32>,
    /// Dequantisation scale of V, per kv head.
    pub v_scale: Vec<f32>,
    /// One sink logit per q head.
    pub sinks: Option<Vec<f32>>,
    /// Extra per-(request, kv head) scale factors on top of the scales above.
    pub request_scales: Option<RequestScales>,
    /// Raw codes of `q` in `q_dtype`.
    pub q_bits: Storage,
    /// Raw codes of `k_pool` in `kv_dtype`.
    pub k_bits: Storage,
    /// Raw codes of `v_pool` in `kv_dtype`.
    pub v_bits: Storage,
}

impl Inputs {
    /// Inputs from element values already representable in `p`'s dtypes (the codes are their
    /// encodings), with unit scales and no sinks.
    pub fn from_values(
        p: &Problem,
        q: Vec<f32>,
        k_pool: Vec<f32>,
        v_pool: Vec<f32>,
        num_pages: usize,
        page_indptr: Vec<u32>,
        page_indices: Vec<u32>,
    ) -> Inputs {
        Inputs {
            q_bits: Storage::encode(p.q_dtype, &q),
            k_bits: Storage::encode(p.kv_dtype, &k_pool),
            v_bits: Storage::encode(p.kv_dtype, &v_pool),
            q,
            k_pool,
            v_pool,
            num_pages,
            page_indptr,
            page_indices,
            q_scale: 1.0,
            k_scale: vec![1.0; p.kv_heads],
            v_scale: vec![1.0; p.kv_heads],
            sinks: None,
            request_scales: None,
        }
    }

    /// The factor on `q · k` of request `r`, kv head `kvh` (without `sm_scale`).
    pub fn qk_scale(&self, p: &Problem, r: usize, kvh: usize) -> f32 {
        let extra = self.request_scales.as_ref().map_or(1.0, |s| {
            s.q[r * p.kv_heads + kvh] * s.k[r * p.kv_heads + kvh]
        });
        self.q_scale * self.k_scale[kvh] * extra
    }

    /// The factor on the output of request `r`, kv head `kvh`.
    pub fn v_scale_of(&self, p: &Problem, r: usize, kvh: usize) -> f32 {
        self.v_scale[kvh]
            * self
                .request_scales
                .as_ref()
                .map_or(1.0, |s| s.v[r * p.kv_heads + kvh])
    }

    /// Checks every length, the page table and that the codes have the dtypes' widths.
    pub fn validate(&self, p: &Problem) -> Result<(), String> {
        let n = p.num_requests();
        let q_len = p.total_tokens() * p.q_heads * p.head_dim;
        let pool_len = self.num_pages * p.page_size * p.kv_heads * p.head_dim;
        let lens = [
            ("q", self.q.len(), q_len),
            ("k_pool", self.k_pool.len(), pool_len),
            ("v_pool", self.v_pool.len(), pool_len),
            ("q_bits", self.q_bits.len(), q_len),
            ("k_bits", self.k_bits.len(), pool_len),
            ("v_bits", self.v_bits.len(), pool_len),
            ("k_scale", self.k_scale.len(), p.kv_heads),
            ("v_scale", self.v_scale.len(), p.kv_heads),
            ("page_indptr", self.page_indptr.len(), n + 1),
        ];
        for (name, got, want) in lens {
            if got != want {
                return Err(format!("{name}: length {got}, expected {want}"));
            }
        }
        for (name, s, d) in [
            ("q_bits", &self.q_bits, p.q_dtype),
            ("k_bits", &self.k_bits, p.kv_dtype),
            ("v_bits", &self.v_bits, p.kv_dtype),
        ] {
            if s.elem_bytes() != d.bytes() {
                return Err(format!(
                    "{name}: {}-byte codes for dtype {d}",
                    s.elem_bytes()
                ));
            }
        }
        if let Some(s) = &self.request_scales {
            let want = n * p.kv_heads;
            for (name, v) in [
                ("request q", &s.q),
                ("request k", &s.k),
                ("request v", &s.v),
            ] {
                if v.len() != want {
                    return Err(format!(
                        "{name} scales: length {}, expected {want}",
                        v.len()
                    ));
                }
            }
        }
        if let Some(s) = &self.sinks {
            if s.len() != p.q_heads {
                return Err(format!("sinks: length {}, expected {}", s.len(), p.q_heads));
            }
        }
        if self.page_indptr.first() != Some(&0)
            || self.page_indptr.last().map(|&e| e as usize) != Some(self.page_indices.len())
        {
            return Err(format!(
                "page_indptr must run from 0 to page_indices.len() = {}: {:?}",
                self.page_indices.len(),
                self.page_indptr
            ));
        }
        let layout = p.layout();
        for r in 0..n {
            let (a, b) = (self.page_indptr[r], self.page_indptr[r + 1]);
            let need = layout.pages_for(p.kv_lens[r]);
            if b < a || b - a < need {
                return Err(format!(
                    "request {r}: page_indptr {a}..{b} holds fewer than the {need} pages of \
                     kv_len {}",
                    p.kv_lens[r]
                ));
            }
        }
        if let Some((i, &id)) = self
            .page_indices
            .iter()
            .enumerate()
            .find(|(_, &id)| id as usize >= self.num_pages)
        {
            return Err(format!(
                "page_indices[{i}] = {id} >= num_pages {}",
                self.num_pages
            ));
        }
        Ok(())
    }

    /// Element offset in a pool of the row of token `t`, kv head `kvh`, of request `r`.
    pub fn kv_row_offset(&self, p: &Problem, r: usize, t: u32, kvh: usize) -> usize {
        let layout = p.layout();
        let (entry, slot) = layout.locate(t);
        let page = self.page_indices[self.page_indptr[r] as usize + entry as usize];
        layout.row_offset_elems(page, slot, kvh as u32) as usize
    }
}

/// Per-(request, kv head) scale factors, `[num_requests * kv_heads]` each (request-major).
#[derive(Clone, Debug, PartialEq)]
pub struct RequestScales {
    /// Factors on Q's scale.
    pub q: Vec<f32>,
    /// Factors on K's scale.
    pub k: Vec<f32>,
    /// Factors on V's scale.
    pub v: Vec<f32>,
}

/// Attention results in f64.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `[total_tokens, q_heads, head_dim]`.
    pub o: Vec<f64>,
    /// `[total_tokens, q_heads]`, natural log.
    pub lse: Vec<f64>,
}

/// Panics with a clear message if `p` or `x` is malformed (the references' entry check).
pub(crate) fn check_args(p: &Problem, x: &Inputs) {
    if let Err(e) = p.validate().and_then(|()| x.validate(p)) {
        panic!("invalid attention problem: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility() {
        assert_eq!(visible_keys(10, 9, None), 0..10);
        assert_eq!(visible_keys(10, 5, Some(2)), 3..6);
        assert_eq!(visible_keys(10, 1, Some(5)), 0..2);
        assert_eq!(visible_keys(0, -1, None), 0..0);
        assert_eq!(visible_keys(2, -3, None), 0..0);
        assert_eq!(visible_keys(2, -1, Some(0)), 0..0);
        assert_eq!(visible_keys(5, 0, Some(0)), 0..1);
    }
}
