//! Seeded random inputs for a [`Problem`].
//!
//! What [`generate`] guarantees, so that common kernel bugs show up:
//!
//! * **Scrambled page table.** The pool has `Σ pages_for(kv_len) + spare_pages` pages; the page
//!   ids handed to the requests are the head of a random permutation of the pool, never
//!   `0..n` and never sorted when two or more pages are used.
//! * **Garbage everywhere else.** Spare pages and the slots past `kv_len` in a request's last
//!   page hold random values like the live ones, so a kernel that reads them gets a wrong answer.
//! * **Consistent codes.** `q`, `k_pool` and `v_pool` are exactly the decoded values of
//!   `q_bits`, `k_bits` and `v_bits` in the problem's dtypes.
//! * **Scales.** Values are drawn from `N(0, scale^2)` and stored as `round(x / s)` with the
//!   dequantisation scale `s` recorded (`q_scale`, `k_scale`, `v_scale`), so `decoded * s ≈ x`.
//!   For fp8, `s = amax / (max_finite / 2)` over the tensor (or the kv head, with
//!   [`ScaleMode::PerHead`]) so the codes span the format's range. For the 16-bit dtypes `s` is
//!   1, except K/V with [`ScaleMode::PerHead`], which get a random `s` in `[0.5, 2)` per kv head
//!   to exercise the per-head scale path.
//! * **Sinks** (if enabled): `N(0, 1)` per q head.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

use crate::dtype::{DType, Storage};
use crate::problem::{Inputs, Problem};

/// How K and V scales are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleMode {
    /// One scale for the whole tensor (the per-head vectors hold equal values).
    PerTensor,
    /// One scale per kv head.
    PerHead,
}

/// Options of [`generate`].
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// RNG seed; equal options give equal inputs.
    pub seed: u64,
    /// Extra, unused pages in the pool (filled with random values).
    pub spare_pages: usize,
    /// Standard deviation of the inputs; large values make the softmax peaked.
    pub scale: f32,
    /// Whether to draw attention sinks.
    pub sinks: bool,
    /// Layout of the K/V scales.
    pub kv_scale_mode: ScaleMode,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            seed: 0,
            spare_pages: 3,
            scale: 1.0,
            sinks: false,
            kv_scale_mode: ScaleMode::PerTensor,
        }
    }
}

/// Random inputs for `p` (see the module doc). Panics if `p` fails validation.
pub fn generate(p: &Problem, o: &GenOptions) -> Inputs {
    if let Err(e) = p.validate() {
        panic!("invalid attention problem: {e}");
    }
    let mut rng = StdRng::seed_from_u64(o.seed);
    let layout = p.layout();

    // Page table: the head of a random permutation of the pool.
    let pages: Vec<u32> = p.kv_lens.iter().map(|&l| layout.pages_for(l)).collect();
    let mut page_indptr = vec![0u32];
    page_indptr.extend(pages.iter().scan(0u32, |acc, &n| {
        *acc += n;
        Some(*acc)
    }));
    let used = *page_indptr.last().expect("non-empty") as usize;
    let num_pages = used + o.spare_pages;
    let mut perm: Vec<u32> = (0..num_pages as u32).collect();
    perm.shuffle(&mut rng);
    let mut page_indices = perm[..used].to_vec();
    if used >= 2 && page_indices.windows(2).all(|w| w[0] < w[1]) {
        page_indices.swap(0, 1);
    }

    // Values.
    let normal = Normal::new(0.0f32, o.scale.abs()).expect("finite scale");
    let mut draw = |n: usize| -> Vec<f32> { (0..n).map(|_| normal.sample(&mut rng)).collect() };
    let q_raw = draw(p.total_tokens() * p.q_heads * p.head_dim);
    let pool_len = num_pages * p.page_size * p.kv_heads * p.head_dim;
    let k_raw = draw(pool_len);
    let v_raw = draw(pool_len);

    let (q_bits, q, q_scale) = {
        let s = match p.q_dtype.fp8() {
            Some(_) => fp8_scale(p.q_dtype, amax(q_raw.iter())),
            None => 1.0,
        };
        let (bits, vals) = store(p.q_dtype, &q_raw, |_| s);
        (bits, vals, s)
    };
    let k_scale = kv_scales(p, o.kv_scale_mode, &k_raw, &mut rng);
    let v_scale = kv_scales(p, o.kv_scale_mode, &v_raw, &mut rng);
    let head_of = |i: usize| layout.kv_head_of_elem(i as u64) as usize;
    let (k_bits, k_pool) = store(p.kv_dtype, &k_raw, |i| k_scale[head_of(i)]);
    let (v_bits, v_pool) = store(p.kv_dtype, &v_raw, |i| v_scale[head_of(i)]);

    let sinks = o.sinks.then(|| {
        let n01 = Normal::new(0.0f32, 1.0).expect("valid");
        (0..p.q_heads).map(|_| n01.sample(&mut rng)).collect()
    });

    Inputs {
        q,
        k_pool,
        v_pool,
        num_pages,
        page_indptr,
        page_indices,
        q_scale,
        request_scales: None,
        k_scale,
        v_scale,
        sinks,
        q_bits,
        k_bits,
        v_bits,
    }
}

/// Per-kv-head dequantisation scales of one pool (see the module doc).
fn kv_scales(p: &Problem, mode: ScaleMode, raw: &[f32], rng: &mut StdRng) -> Vec<f32> {
    let (hkv, d, layout) = (p.kv_heads, p.head_dim, p.layout());
    match (p.kv_dtype.fp8(), mode) {
        (Some(_), ScaleMode::PerTensor) => vec![fp8_scale(p.kv_dtype, amax(raw.iter())); hkv],
        (Some(_), ScaleMode::PerHead) => {
            // One pass over the pool: each row's largest magnitude into its kv head's.
            let mut head_amax = vec![0f32; hkv];
            for (row, r) in raw.chunks(d).enumerate() {
                let h = layout.kv_head_of_elem((row * d) as u64) as usize;
                head_amax[h] = head_amax[h].max(amax(r.iter()));
            }
            head_amax
                .into_iter()
                .map(|a| fp8_scale(p.kv_dtype, a))
                .collect()
        }
        (None, ScaleMode::PerTensor) => vec![1.0; hkv],
        (None, ScaleMode::PerHead) => (0..hkv).map(|_| rng.gen_range(0.5f32..2.0)).collect(),
    }
}

/// The scale that maps `amax` to half the fp8 format's largest value (1 for an all-zero tensor).
fn fp8_scale(dtype: DType, amax: f32) -> f32 {
    if amax > 0.0 && amax.is_finite() {
        amax / (dtype.max_finite() / 2.0)
    } else {
        1.0
    }
}

fn amax<'a>(xs: impl Iterator<Item = &'a f32>) -> f32 {
    xs.fold(0.0f32, |m, x| m.max(x.abs()))
}

/// Stores `raw[i] / scale_of(i)` in `dtype`: the codes and their decoded values.
fn store(dtype: DType, raw: &[f32], scale_of: impl Fn(usize) -> f32) -> (Storage, Vec<f32>) {
    let scaled: Vec<f32> = raw
        .iter()
        .enumerate()
        .map(|(i, &x)| x / scale_of(i))
        .collect();
    let bits = Storage::encode(dtype, &scaled);
    let vals = bits.decode(dtype);
    (bits, vals)
}

/// A tiny, fast, seeded generator (splitmix64) for test and benchmark data where `rand`'s
/// distributions are not needed or too slow (filling gigabytes of K/V).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Integer in `lo..=hi`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i32
    }
    /// Approximately N(0, 1): a sum of four uniforms with matched variance (benchmark data).
    pub fn normal(&mut self) -> f32 {
        let u: f32 = (0..4)
            .map(|_| (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
            .sum();
        (u - 2.0) * 3f32.sqrt()
    }
    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, (self.next_u64() % (i as u64 + 1)) as usize);
        }
    }
}
