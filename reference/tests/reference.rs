//! Tests of the references, the generator and the tolerance check.

use approx::assert_abs_diff_eq;
use ferroflash_reference::check::{compare, tolerance_for};
use ferroflash_reference::gen::{generate, GenOptions, ScaleMode};
use ferroflash_reference::{
    dense_f64, reference_f64, reference_matched, DType, Inputs, Output, Problem,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

fn problem(
    q_heads: usize,
    kv_heads: usize,
    head_dim: usize,
    page_size: usize,
    q_lens: Vec<u32>,
    kv_lens: Vec<u32>,
) -> Problem {
    Problem {
        q_heads,
        kv_heads,
        head_dim,
        page_size,
        kv_layout: ferroflash_contract::KvLayout::Nhd,
        q_lens,
        kv_lens,
        sm_scale: 1.0 / (head_dim as f32).sqrt(),
        softcap: None,
        window_left: None,
        q_dtype: DType::Bf16,
        kv_dtype: DType::Bf16,
    }
}

/// Max abs difference, treating equal infinities (and NaN against NaN) as equal.
fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            if x == y || (x.is_nan() && y.is_nan()) {
                0.0
            } else {
                (x - y).abs()
            }
        })
        .fold(
            0.0,
            |m, d| if d.is_nan() { f64::INFINITY } else { m.max(d) },
        )
}

fn assert_same(a: &Output, b: &Output, tol: f64, what: &str) {
    let (d_o, dl) = (max_diff(&a.o, &b.o), max_diff(&a.lse, &b.lse));
    assert!(
        d_o < tol && dl < tol,
        "{what}: max |dO| {d_o:e}, max |dLSE| {dl:e}"
    );
}

fn rel_l2(a: &[f64], b: &[f64]) -> f64 {
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    let den: f64 = b.iter().map(|y| y * y).sum();
    num.sqrt() / den.sqrt().max(f64::MIN_POSITIVE)
}

/// A random problem with random options, for the given page size, GQA ratio and q_len.
fn random_case(
    rng: &mut StdRng,
    page_size: usize,
    ratio: usize,
    q_len: u32,
) -> (Problem, GenOptions) {
    let kv_heads = if ratio == 7 {
        1
    } else {
        *[1, 2].choose(rng).unwrap()
    };
    let p = page_size as u32;
    let kv_lens = vec![0, 1, p.saturating_sub(1), p, p + 1, 54, 97];
    let mut pr = problem(
        ratio * kv_heads,
        kv_heads,
        *[4, 8].choose(rng).unwrap(),
        page_size,
        vec![q_len; kv_lens.len()],
        kv_lens,
    );
    pr.window_left = rng.gen_bool(0.5).then(|| rng.gen_range(0..24));
    pr.softcap = rng.gen_bool(0.5).then(|| rng.gen_range(1.0..20.0));
    pr.q_dtype = *DType::ALL.choose(rng).unwrap();
    pr.kv_dtype = *DType::ALL.choose(rng).unwrap();
    let opts = GenOptions {
        seed: rng.gen(),
        spare_pages: rng.gen_range(0..4),
        scale: *[0.3, 1.0, 3.0].choose(rng).unwrap(),
        sinks: rng.gen_bool(0.5),
        kv_scale_mode: if rng.gen_bool(0.5) {
            ScaleMode::PerTensor
        } else {
            ScaleMode::PerHead
        },
    };
    (pr, opts)
}

fn sweep(page_size: usize) {
    let mut rng = StdRng::seed_from_u64(page_size as u64);
    for ratio in [1, 4, 7] {
        for q_len in [1, 4, 16] {
            let (p, o) = random_case(&mut rng, page_size, ratio, q_len);
            let x = generate(&p, &o);
            assert_same(
                &reference_f64(&p, &x),
                &dense_f64(&p, &x),
                1e-9,
                &format!("{p:?} {o:?}"),
            );
        }
    }
}

/// The same logical K/V stored as HND pages gives the same result as NHD pages, bit for bit,
/// from both references.
#[test]
fn hnd_pages_give_the_nhd_result() {
    use ferroflash_contract::KvLayout;
    let mut rng = StdRng::seed_from_u64(0x4d);
    for page_size in [1, 3, 16] {
        for ratio in [1, 4] {
            let (p, o) = random_case(&mut rng, page_size, ratio, 4);
            let x = generate(&p, &o);
            let hnd = Problem {
                kv_layout: KvLayout::Hnd,
                ..p.clone()
            };
            let (from, to) = (p.layout(), hnd.layout());
            let transpose = |pool: &[f32]| {
                let mut out = vec![f32::NAN; pool.len()];
                let d = p.head_dim;
                for page in 0..x.num_pages as u32 {
                    for slot in 0..page_size as u32 {
                        for h in 0..p.kv_heads as u32 {
                            let a = from.row_offset_elems(page, slot, h) as usize;
                            let b = to.row_offset_elems(page, slot, h) as usize;
                            out[b..b + d].copy_from_slice(&pool[a..a + d]);
                        }
                    }
                }
                out
            };
            let y = Inputs {
                k_pool: transpose(&x.k_pool),
                v_pool: transpose(&x.v_pool),
                ..x.clone()
            };
            let want = reference_f64(&p, &x);
            for got in [reference_f64(&hnd, &y), dense_f64(&hnd, &y)] {
                assert_same(&got, &want, 1e-12, &format!("HND {p:?}"));
            }
        }
    }
}

#[test]
fn paged_matches_dense_page1() {
    sweep(1);
}

#[test]
fn paged_matches_dense_page3() {
    sweep(3);
}

#[test]
fn paged_matches_dense_page16() {
    sweep(16);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn paged_matches_dense_prop(
        page_size in 1usize..8, kv_heads in 1usize..3, ratio in 1usize..5, head_dim in 1usize..6,
        lens in proptest::collection::vec((1u32..=16, 0u32..40), 1..4),
        window in proptest::option::of(0u32..20), softcap in proptest::option::of(0.5f32..10.0),
        sinks: bool, seed: u64,
    ) {
        let (q_lens, kv_lens) = lens.into_iter().unzip();
        let mut p = problem(kv_heads * ratio, kv_heads, head_dim, page_size, q_lens, kv_lens);
        p.window_left = window;
        p.softcap = softcap;
        let x = generate(&p, &GenOptions { seed, sinks, scale: 2.0, ..GenOptions::default() });
        let (a, b) = (reference_f64(&p, &x), dense_f64(&p, &x));
        prop_assert!(max_diff(&a.o, &b.o) < 1e-9 && max_diff(&a.lse, &b.lse) < 1e-9);
    }
}

#[test]
fn no_visible_keys() {
    // Request 0: no KV at all. Request 1: kv_len 2 < q_len 4, so tokens 0 and 1 (positions -2
    // and -1) see nothing while tokens 2 and 3 see keys.
    let mut p = problem(2, 1, 4, 2, vec![3, 4], vec![0, 2]);
    let x = generate(&p, &GenOptions::default());
    for out in [
        reference_f64(&p, &x),
        dense_f64(&p, &x),
        reference_matched(&p, &x, DType::Bf16),
    ] {
        let empty_rows = 0..(3 + 2) * 2;
        for row in empty_rows.clone() {
            assert_eq!(out.lse[row], f64::NEG_INFINITY, "row {row}");
            assert!(out.o[row * 4..][..4].iter().all(|&v| v == 0.0));
        }
        assert!(out.lse[empty_rows.end..].iter().all(|l| l.is_finite()));
    }

    let x = generate(
        &p,
        &GenOptions {
            sinks: true,
            ..GenOptions::default()
        },
    );
    let sinks = x.sinks.clone().unwrap();
    for out in [reference_f64(&p, &x), dense_f64(&p, &x)] {
        for row in 0..10 {
            assert_eq!(out.lse[row], sinks[row % 2] as f64, "row {row}");
            assert!(out.o[row * 4..][..4].iter().all(|&v| v == 0.0));
        }
    }
    let m = reference_matched(&p, &x, DType::Bf16);
    for row in 0..10 {
        assert_abs_diff_eq!(m.lse[row], sinks[row % 2] as f64, epsilon = 1e-5);
    }

    // A window shorter than the distance to every key behaves the same.
    p.window_left = Some(0);
    p.kv_lens = vec![0, 0];
    let x = generate(&p, &GenOptions::default());
    assert!(reference_f64(&p, &x)
        .lse
        .iter()
        .all(|&l| l == f64::NEG_INFINITY));
}

/// One token, one head, d = 2, two keys stored in scrambled pages of size 1:
/// q = [1, 2], k0 = [1, 0], k1 = [0, 1], v0 = [1, 0], v1 = [0, 1], so s = [1, 2].
fn hand_case() -> (Problem, Inputs) {
    let mut p = problem(1, 1, 2, 1, vec![1], vec![2]);
    p.sm_scale = 1.0;
    // Page 1 holds token 0, page 0 holds token 1.
    let k_pool = vec![0.0, 1.0, 1.0, 0.0];
    let v_pool = vec![0.0, 1.0, 1.0, 0.0];
    let q = vec![1.0, 2.0];
    let mut x = Inputs::from_values(&p, q, k_pool, v_pool, 2, vec![0, 2], vec![1, 0]);
    x.q_scale = 0.5;
    x.k_scale = vec![2.0];
    (p, x)
}

#[test]
fn hand_computed() {
    let (mut p, mut x) = hand_case();
    let check = |p: &Problem, x: &Inputs, o: [f64; 2], lse: f64| {
        for out in [reference_f64(p, x), dense_f64(p, x)] {
            assert_abs_diff_eq!(out.o[0], o[0], epsilon = 1e-14);
            assert_abs_diff_eq!(out.o[1], o[1], epsilon = 1e-14);
            assert_abs_diff_eq!(out.lse[0], lse, epsilon = 1e-14);
        }
        let m = reference_matched(p, x, DType::F16);
        assert_abs_diff_eq!(m.o[0], o[0], epsilon = 2e-3);
        assert_abs_diff_eq!(m.o[1], o[1], epsilon = 2e-3);
        assert_abs_diff_eq!(m.lse[0], lse, epsilon = 1e-5);
    };
    // softmax([1, 2]) = [1/(1+e), e/(1+e)], LSE = ln(e + e^2).
    check(
        &p,
        &x,
        [0.2689414213699951, 0.7310585786300049],
        2.3132616875182226,
    );
    // v_scale doubles O.
    x.v_scale = vec![2.0];
    check(
        &p,
        &x,
        [2.0 * 0.2689414213699951, 2.0 * 0.7310585786300049],
        2.3132616875182226,
    );
    x.v_scale = vec![1.0];
    // A sink of logit 0 adds e^0 to the denominator and nothing to O.
    x.sinks = Some(vec![0.0]);
    check(
        &p,
        &x,
        [0.24472847105479764, 0.6652409557748219],
        2.40760596444438,
    );
    x.sinks = None;
    // Softcap 1: s = [tanh 1, tanh 2].
    p.softcap = Some(1.0);
    check(
        &p,
        &x,
        [0.4495637632184801, 0.55043623678152],
        1.561071737430265,
    );
    p.softcap = None;
    // Window 0: the token at position 1 sees key 1 only.
    p.window_left = Some(0);
    check(&p, &x, [0.0, 1.0], 2.0);
}

#[test]
fn nan_propagates() {
    let (p, mut x) = hand_case();
    x.q[0] = f32::NAN;
    for out in [reference_f64(&p, &x), dense_f64(&p, &x)] {
        assert!(out.o.iter().all(|v| v.is_nan()) && out.lse[0].is_nan());
    }
}

fn matched_cases() -> Vec<(Problem, Inputs, DType)> {
    let mut rng = StdRng::seed_from_u64(7);
    let mut cases = Vec::new();
    for q_dtype in DType::ALL {
        for kv_dtype in DType::ALL {
            let out = if q_dtype == DType::F16 {
                DType::F16
            } else {
                DType::Bf16
            };
            let mut p = problem(4, 2, 16, 5, vec![1, 3, 16], vec![40, 17, 70]);
            p.q_dtype = q_dtype;
            p.kv_dtype = kv_dtype;
            p.softcap = rng.gen_bool(0.3).then_some(15.0);
            let o = GenOptions {
                seed: rng.gen(),
                sinks: rng.gen_bool(0.5),
                scale: *[0.5, 1.0, 2.0].choose(&mut rng).unwrap(),
                ..GenOptions::default()
            };
            cases.push((p.clone(), generate(&p, &o), out));
        }
    }
    cases
}

#[test]
fn matched_close_and_compare_policy() {
    for (p, x, out) in matched_cases() {
        let (r, m) = (reference_f64(&p, &x), reference_matched(&p, &x, out));
        let err = rel_l2(&m.o, &r.o);
        assert!(err < 1e-2, "{p:?}: matched err {err}");
        let tol = tolerance_for(out, p.kv_dtype);
        let ko: Vec<f32> = m.o.iter().map(|&v| v as f32).collect();
        let kl: Vec<f32> = m.lse.iter().map(|&v| v as f32).collect();
        let rep = compare(&ko, &kl, &r, &m, tol)
            .unwrap_or_else(|e| panic!("matched vs itself rejected: {e}"));
        assert!(
            rep.err_kernel <= rep.bound && rep.lse_max_abs < 1e-3,
            "{rep}"
        );

        // 5% too large everywhere.
        let scaled: Vec<f32> = ko.iter().map(|v| v * 1.05).collect();
        let e = compare(&scaled, &kl, &r, &m, tol).unwrap_err();
        assert!(e.starts_with("O error"), "{e}");
        // One NaN.
        let mut nan = ko.clone();
        nan[5] = f32::NAN;
        let e = compare(&nan, &kl, &r, &m, tol).unwrap_err();
        assert!(
            e.contains("O non-finite parity") && e.contains("O[5]"),
            "{e}"
        );
        // A shifted LSE.
        let mut lse = kl.clone();
        lse[3] += 0.1 * lse[3].abs().max(1.0);
        let e = compare(&ko, &lse, &r, &m, tol).unwrap_err();
        assert!(e.starts_with("LSE error") && e.contains("LSE[3]"), "{e}");
    }
}

#[test]
fn compare_lse_neg_inf_parity() {
    let p = problem(1, 1, 4, 4, vec![2], vec![1]);
    let x = generate(&p, &GenOptions::default());
    let (r, m) = (
        reference_f64(&p, &x),
        reference_matched(&p, &x, DType::Bf16),
    );
    assert_eq!(r.lse[0], f64::NEG_INFINITY);
    let ko: Vec<f32> = m.o.iter().map(|&v| v as f32).collect();
    let mut kl: Vec<f32> = m.lse.iter().map(|&v| v as f32).collect();
    let tol = tolerance_for(DType::Bf16, DType::Bf16);
    compare(&ko, &kl, &r, &m, tol).unwrap();
    kl[0] = -1e30;
    let e = compare(&ko, &kl, &r, &m, tol).unwrap_err();
    assert!(
        e.contains("LSE non-finite parity") && e.contains("LSE[0]"),
        "{e}"
    );
    kl[0] = f32::NEG_INFINITY;
    kl[1] = f32::NEG_INFINITY;
    assert!(compare(&ko, &kl, &r, &m, tol)
        .unwrap_err()
        .contains("LSE[1]"));
}

#[test]
fn generator_page_table_and_codes() {
    let mut p = problem(4, 2, 8, 3, vec![1, 2, 4], vec![10, 0, 7]);
    for (i, q_dtype) in DType::ALL.into_iter().enumerate() {
        for (j, kv_dtype) in DType::ALL.into_iter().enumerate() {
            p.q_dtype = q_dtype;
            p.kv_dtype = kv_dtype;
            let o = GenOptions {
                seed: (i * 4 + j) as u64,
                spare_pages: 2,
                sinks: true,
                kv_scale_mode: ScaleMode::PerHead,
                ..GenOptions::default()
            };
            let x = generate(&p, &o);
            x.validate(&p).unwrap();
            assert_eq!(x, generate(&p, &o), "deterministic");

            // 4 + 0 + 3 pages used out of 9, distinct, in range, not sorted.
            assert_eq!(x.page_indptr, vec![0, 4, 4, 7]);
            assert_eq!(x.num_pages, 9);
            let mut ids = x.page_indices.clone();
            assert!(
                ids.windows(2).any(|w| w[0] > w[1]),
                "sorted page table {ids:?}"
            );
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), 7);
            assert!(ids.iter().all(|&id| id < 9));

            // Decoded values are exactly the codes' values.
            let same =
                |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same(&x.q, &x.q_bits.decode(q_dtype)));
            assert!(same(&x.k_pool, &x.k_bits.decode(kv_dtype)));
            assert!(same(&x.v_pool, &x.v_bits.decode(kv_dtype)));
            assert_eq!(x.sinks.as_ref().map(Vec::len), Some(4));
            assert_ne!(x.k_scale[0], x.k_scale[1], "per-head scales");

            // Slots past kv_len in request 0's last page (tokens 10, 11) hold garbage.
            let tail = x.kv_row_offset(&p, 0, 10, 0);
            assert!(x.k_pool[tail..tail + 2 * 8 * 2].iter().any(|&v| v != 0.0));
            if kv_dtype.is_fp8() {
                // The codes span the format's range.
                let f = kv_dtype.fp8().unwrap();
                let top = x.k_pool.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                assert!(
                    top >= f.max_finite() / 4.0 && top <= f.max_finite(),
                    "{kv_dtype} amax {top}"
                );
            }
        }
    }
}
