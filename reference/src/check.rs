//! The tolerance policy: is a kernel's output close enough to the reference?
//!
//! [`compare`] runs these checks, in order, and fails on the first violated one with a message
//! that names the check, the worst index and the values involved:
//!
//! 1. **Non-finite parity of O.** Where the f64 reference is NaN the kernel must be NaN, where it
//!    is ±inf the kernel must be the same infinity, and where it is finite the kernel must be
//!    finite.
//! 2. **Non-finite parity of LSE**, the same rule: in particular a `-inf` LSE (no visible key and
//!    no sink) must be `-inf` exactly in the kernel, and nowhere else.
//! 3. **O error.** `err = ||out - ref||_2 / max(||ref||_2, tiny)` over the O elements where the
//!    reference is finite, for the kernel (`err_kernel`) and for the matched-precision reference
//!    (`err_matched`). The kernel passes iff `err_kernel <= 2 * err_matched + atol`: it may be up
//!    to twice as far from the truth as an implementation that rounds like it, plus a small
//!    slack for reordered sums and approximate `ex2`/`tanh`.
//! 4. **LSE error.** Over the entries where both are finite,
//!    `|lse_kernel - lse_ref| <= 1e-3 * max(1, |lse_ref|)`.

use crate::dtype::DType;
use crate::problem::Output;

/// Relative LSE tolerance (see the module doc).
pub const LSE_RTOL: f64 = 1e-3;

/// Absolute slack on the relative L2 error of O.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Added to `2 * err_matched` (relative-error units).
    pub atol: f64,
}

/// The slack for an output dtype and a KV dtype: `8e-3` when KV is fp8, else `2e-3` for an f16
/// output and `4e-3` for a bf16 output (`8e-3` for an fp8 output).
pub fn tolerance_for(out: DType, kv: DType) -> Tolerance {
    let atol = match (out, kv.is_fp8()) {
        (_, true) => 8e-3,
        (DType::F16, false) => 2e-3,
        (DType::Bf16, false) => 4e-3,
        (DType::E4m3 | DType::E5m2, false) => 8e-3,
    };
    Tolerance { atol }
}

/// What [`compare`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    /// Relative L2 error of the kernel's O against the f64 reference.
    pub err_kernel: f64,
    /// Relative L2 error of the matched-precision O against the f64 reference.
    pub err_matched: f64,
    /// Largest `|lse_kernel - lse_ref|` over finite entries.
    pub lse_max_abs: f64,
    /// The bound `err_kernel` had to meet: `2 * err_matched + atol`.
    pub bound: f64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "err_kernel {:.3e} <= bound {:.3e} (err_matched {:.3e}), lse max abs diff {:.3e}",
            self.err_kernel, self.bound, self.err_matched, self.lse_max_abs
        )
    }
}

/// Checks a kernel's `O` (`[total_tokens, q_heads, head_dim]`) and `LSE` (`[total_tokens,
/// q_heads]`, natural log) against the f64 `reference`, with `matched` (the matched-precision
/// reference) setting the bar. See the module doc for the policy.
pub fn compare(
    kernel_o: &[f32],
    kernel_lse: &[f32],
    reference: &Output,
    matched: &Output,
    tol: Tolerance,
) -> Result<Report, String> {
    let lens = [
        ("kernel O", kernel_o.len(), reference.o.len()),
        ("matched O", matched.o.len(), reference.o.len()),
        ("kernel LSE", kernel_lse.len(), reference.lse.len()),
        ("matched LSE", matched.lse.len(), reference.lse.len()),
    ];
    for (name, got, want) in lens {
        if got != want {
            return Err(format!(
                "length: {name} has {got} elements, the reference {want}"
            ));
        }
    }
    let d = if reference.lse.is_empty() {
        1
    } else {
        (reference.o.len() / reference.lse.len()).max(1)
    };
    let o_name = |i: usize| {
        format!(
            "O[{i}] (row {} = token * q_heads + head, dim {})",
            i / d,
            i % d
        )
    };
    let lse_name = |i: usize| format!("LSE[{i}] (row {i} = token * q_heads + head)");

    // 1-2. Non-finite parity.
    for (i, (&k, &r)) in kernel_o.iter().zip(&reference.o).enumerate() {
        parity(k as f64, r).map_err(|e| format!("O non-finite parity: {}: {e}", o_name(i)))?;
    }
    for (i, (&k, &r)) in kernel_lse.iter().zip(&reference.lse).enumerate() {
        parity(k as f64, r).map_err(|e| format!("LSE non-finite parity: {}: {e}", lse_name(i)))?;
    }
    if let Some(i) =
        (0..matched.o.len()).find(|&i| reference.o[i].is_finite() && !matched.o[i].is_finite())
    {
        return Err(format!(
            "matched reference non-finite at {}: {} (reference {})",
            o_name(i),
            matched.o[i],
            reference.o[i]
        ));
    }

    // 3. O error.
    let err_kernel = rel_l2(kernel_o.iter().map(|&k| k as f64), &reference.o);
    let err_matched = rel_l2(matched.o.iter().copied(), &reference.o);
    let bound = 2.0 * err_matched + tol.atol;
    // Written so that a NaN error fails too.
    if err_kernel.is_nan() || err_kernel > bound {
        let worst = worst_abs(kernel_o.iter().map(|&k| k as f64), &reference.o);
        let detail = worst.map_or(String::new(), |(i, diff)| {
            format!(
                "; worst {}: kernel {} reference {} matched {} (|diff| {diff:.3e})",
                o_name(i),
                kernel_o[i],
                reference.o[i],
                matched.o[i]
            )
        });
        return Err(format!(
            "O error: err_kernel {err_kernel:.4e} > bound {bound:.4e} = 2 * err_matched {err_matched:.4e} + atol {:.1e}{detail}",
            tol.atol
        ));
    }

    // 4. LSE error.
    let mut lse_max_abs = 0.0f64;
    let mut worst: Option<(usize, f64)> = None;
    for (i, (&k, &r)) in kernel_lse.iter().zip(&reference.lse).enumerate() {
        if !r.is_finite() {
            continue;
        }
        let diff = (k as f64 - r).abs();
        lse_max_abs = lse_max_abs.max(diff);
        let ratio = diff / (LSE_RTOL * r.abs().max(1.0));
        if ratio > 1.0 && worst.is_none_or(|(_, w)| ratio > w) {
            worst = Some((i, ratio));
        }
    }
    if let Some((i, _)) = worst {
        let (k, r) = (kernel_lse[i] as f64, reference.lse[i]);
        return Err(format!(
            "LSE error: {}: kernel {k} reference {r}, |diff| {:.3e} > {LSE_RTOL:.0e} * max(1, |ref|) = {:.3e}",
            lse_name(i),
            (k - r).abs(),
            LSE_RTOL * r.abs().max(1.0)
        ));
    }

    Ok(Report {
        err_kernel,
        err_matched,
        lse_max_abs,
        bound,
    })
}

/// Ok iff `k` has `r`'s non-finite class: NaN for NaN, the same infinity, finite for finite.
fn parity(k: f64, r: f64) -> Result<(), String> {
    let ok = if r.is_nan() {
        k.is_nan()
    } else if r.is_infinite() {
        k == r
    } else {
        k.is_finite()
    };
    if ok {
        Ok(())
    } else {
        Err(format!("kernel {k}, reference {r}"))
    }
}

/// `||x - r||_2 / max(||r||_2, tiny)` over the entries where `r` is finite.
fn rel_l2(x: impl Iterator<Item = f64>, r: &[f64]) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for (x, &r) in x.zip(r) {
        if r.is_finite() {
            num += (x - r) * (x - r);
            den += r * r;
        }
    }
    num.sqrt() / den.sqrt().max(f64::MIN_POSITIVE)
}

/// Index and size of the largest `|x - r|` over finite `r` (NaN differences count as largest).
fn worst_abs(x: impl Iterator<Item = f64>, r: &[f64]) -> Option<(usize, f64)> {
    x.zip(r)
        .enumerate()
        .filter(|(_, (_, r))| r.is_finite())
        .map(|(i, (x, r))| (i, (x - r).abs()))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}
