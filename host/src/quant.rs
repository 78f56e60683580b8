//! FP8 quantisation helpers for K/V caches and queries (host side, exact).
//!
//! A tensor is stored as `code = encode(x / scale)` and read back as `decode(code) * scale`.
//! [`amax_scale`] picks `scale = amax / max_finite` so the largest magnitude lands on the
//! format's largest finite value. Encoding rounds to nearest-even and saturates: values beyond
//! the range (and ±inf) become ±max finite, NaN stays NaN (see `ferroflash_contract::fp8`).

use ferroflash_contract::fp8::Fp8Format;
use ferroflash_contract::PagedKvLayout;

/// Scale mapping the largest finite magnitude of `values` to `fmt`'s largest finite value.
/// Non-finite values are ignored; an all-zero (or empty) input gets scale 1.
pub fn amax_scale(values: impl IntoIterator<Item = f32>, fmt: Fp8Format) -> f32 {
    let amax = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0f32, |m, v| m.max(v.abs()));
    if amax > 0.0 {
        amax / fmt.max_finite()
    } else {
        1.0
    }
}

/// Codes of `values / scale` (`scale > 0`).
pub fn quantize<T: Copy + Into<f32>>(values: &[T], fmt: Fp8Format, scale: f32) -> Vec<u8> {
    assert!(
        scale > 0.0 && scale.is_finite(),
        "fp8 scale must be positive and finite, got {scale}"
    );
    let inv = 1.0 / scale;
    values.iter().map(|&v| fmt.encode(v.into() * inv)).collect()
}

/// Values of `codes` times `scale`.
pub fn dequantize(codes: &[u8], fmt: Fp8Format, scale: f32) -> Vec<f32> {
    codes.iter().map(|&c| fmt.decode(c) * scale).collect()
}

/// Quantise a K or V page pool (in `layout`'s axis order, NHD or HND) with one scale per
/// kv head (the kernels' per-kv-head `k_scale` / `v_scale`). Returns the codes and the scales.
pub fn quantize_pool_per_head<T: Copy + Into<f32>>(
    pool: &[T],
    layout: PagedKvLayout,
    fmt: Fp8Format,
) -> (Vec<u8>, Vec<f32>) {
    let d = layout.head_dim as usize;
    let heads = layout.kv_heads as usize;
    assert_eq!(
        pool.len() % (heads * d),
        0,
        "pool length is not a whole number of (token, kv head) rows"
    );
    let rows = pool.chunks_exact(d);
    let head_of = |row: usize| layout.kv_head_of_elem((row * d) as u64) as usize;
    let mut amax = vec![0f32; heads];
    for (i, row) in rows.clone().enumerate() {
        let h = head_of(i);
        for &v in row {
            let v: f32 = v.into();
            if v.is_finite() {
                amax[h] = amax[h].max(v.abs());
            }
        }
    }
    let scales: Vec<f32> = amax
        .iter()
        .map(|&a| if a > 0.0 { a / fmt.max_finite() } else { 1.0 })
        .collect();
    let codes = rows
        .enumerate()
        .flat_map(|(i, row)| quantize(row, fmt, scales[head_of(i)]))
        .collect();
    (codes, scales)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_error_is_within_half_an_ulp_of_the_format() {
        for fmt in [Fp8Format::E4m3, Fp8Format::E5m2] {
            let xs: Vec<f32> = (0..2000).map(|i| ((i as f32) * 0.37).sin() * 3.0).collect();
            let s = amax_scale(xs.iter().copied(), fmt);
            let back = dequantize(&quantize(&xs, fmt, s), fmt, s);
            // Relative spacing 2^-m: round-to-nearest is within half of it (normal range).
            let rel = 0.5 * 2f32.powi(-(fmt.mantissa_bits() as i32));
            for (x, y) in xs.iter().zip(&back) {
                if x.abs() > 1e-2 {
                    assert!(
                        (x - y).abs() <= rel * x.abs() * 1.0001,
                        "{fmt:?}: {x} -> {y}"
                    );
                }
            }
            let amax = xs.iter().fold(0f32, |m, v| m.max(v.abs()));
            assert_eq!(back.iter().fold(0f32, |m, v| m.max(v.abs())), amax);
        }
    }

    #[test]
    fn saturation_nan_and_zero() {
        let f = Fp8Format::E4m3;
        assert_eq!(
            quantize(&[1e6f32, -1e6, f32::INFINITY], f, 1.0),
            vec![0x7e, 0xfe, 0x7e]
        );
        assert!(f.is_nan(quantize(&[f32::NAN], f, 1.0)[0]));
        assert_eq!(amax_scale([0.0f32, 0.0], f), 1.0);
        assert_eq!(amax_scale([f32::NAN, 2.0 * 448.0, f32::INFINITY], f), 2.0);
    }

    /// Pages of 2 slots x 2 kv heads x head dim 4, in `layout`'s axis order.
    fn small_pages(layout: ferroflash_contract::KvLayout) -> PagedKvLayout {
        PagedKvLayout {
            page_size_tokens: 2,
            kv_heads: 2,
            head_dim: 4,
            layout,
        }
    }

    #[test]
    fn per_head_scales_are_independent() {
        let layout = small_pages(ferroflash_contract::KvLayout::Nhd);
        // 3 pages x 2 slots x 2 heads x 4: head 0 values up to 1, head 1 up to 100.
        let pool: Vec<f32> = (0..48)
            .map(|i| {
                if (i / 4) % 2 == 0 {
                    (i % 4) as f32 * 0.25
                } else {
                    (i % 4) as f32 * 25.0 + 25.0
                }
            })
            .collect();
        let (codes, scales) = quantize_pool_per_head(&pool, layout, Fp8Format::E4m3);
        assert_eq!(codes.len(), pool.len());
        assert_eq!(scales, vec![0.75 / 448.0, 100.0 / 448.0]);
        let row_scale = |i: usize| scales[(i / 4) % 2];
        for (i, &c) in codes.iter().enumerate() {
            let back = Fp8Format::E4m3.decode(c) * row_scale(i);
            assert!(
                (back - pool[i]).abs() <= 0.0625 * pool[i].abs() + 1e-6,
                "{i}: {} vs {back}",
                pool[i]
            );
        }
    }

    #[test]
    fn per_head_scales_follow_the_hnd_layout() {
        let layout = small_pages(ferroflash_contract::KvLayout::Hnd);
        // 3 pages x 2 heads x 2 slots x 4: head 0's rows (8 elements per page) up to 1, head 1's
        // up to 100.
        let pool: Vec<f32> = (0..48)
            .map(|i| if (i / 8) % 2 == 0 { 1.0 } else { 100.0 })
            .collect();
        let (_, scales) = quantize_pool_per_head(&pool, layout, Fp8Format::E4m3);
        assert_eq!(scales, vec![1.0 / 448.0, 100.0 / 448.0]);
    }

    #[test]
    fn half_inputs() {
        let xs = [half::bf16::from_f32(1.5), half::bf16::from_f32(-0.25)];
        assert_eq!(
            dequantize(&quantize(&xs, Fp8Format::E4m3, 1.0), Fp8Format::E4m3, 1.0),
            vec![1.5, -0.25]
        );
    }
}
