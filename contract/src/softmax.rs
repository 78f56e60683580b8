//! Online-softmax state and its merge, the one definition used by the decode kernel (across its
//! KV tiles), the split-KV combine kernel (across splits) and the CPU matched reference.
//!
//! Scores are kept in the log2 domain: `s2 = score * log2(e)`, so that `exp` is one `ex2`.
//! A state summarises a set of keys as `(max_log2, sum)` with `sum = Σ 2^(s2 - max_log2)`; an
//! empty set is `(-inf, 0)`. Its log-sum-exp is `max_log2 + log2(sum)` (base 2).

/// Running max and normaliser of an online softmax (log2 domain).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SoftmaxState {
    /// Largest `score * log2(e)` seen, `-inf` when empty.
    pub max_log2: f32,
    /// `Σ 2^(s2 - max_log2)` over the keys seen.
    pub sum: f32,
}

/// How two partial outputs are combined: `o = o_a * scale_a + o_b * scale_b` (unnormalised).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MergeScales {
    pub scale_a: f32,
    pub scale_b: f32,
}

impl SoftmaxState {
    /// The state of an empty key set.
    pub const EMPTY: SoftmaxState = SoftmaxState {
        max_log2: f32::NEG_INFINITY,
        sum: 0.0,
    };

    /// Whether no key contributed.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.max_log2 == f32::NEG_INFINITY
    }

    /// Merge `b` into `self`. `exp2` is the caller's base-2 exponential (`ex2.approx` on the
    /// device, `f32::exp2` on the host). Returns the merged state and the factors that rescale
    /// each side's unnormalised accumulator. Empty sides get factor 0 and never produce NaN.
    #[inline(always)]
    pub fn merge(self, b: SoftmaxState, exp2: impl Fn(f32) -> f32) -> (SoftmaxState, MergeScales) {
        let m = if self.max_log2 > b.max_log2 {
            self.max_log2
        } else {
            b.max_log2
        };
        if m == f32::NEG_INFINITY {
            return (
                SoftmaxState::EMPTY,
                MergeScales {
                    scale_a: 0.0,
                    scale_b: 0.0,
                },
            );
        }
        let scale_a = if self.is_empty() {
            0.0
        } else {
            exp2(self.max_log2 - m)
        };
        let scale_b = if b.is_empty() {
            0.0
        } else {
            exp2(b.max_log2 - m)
        };
        let sum = self.sum * scale_a + b.sum * scale_b;
        (
            SoftmaxState { max_log2: m, sum },
            MergeScales { scale_a, scale_b },
        )
    }

    /// Base-2 log-sum-exp; `-inf` for an empty state. `log2` as for `merge`.
    #[inline(always)]
    pub fn lse_log2(&self, log2: impl Fn(f32) -> f32) -> f32 {
        if self.is_empty() {
            f32::NEG_INFINITY
        } else {
            self.max_log2 + log2(self.sum)
        }
    }
}

/// `ln(2)`: converts a base-2 LSE to the natural-log LSE the API returns.
pub const LN_2: f32 = core::f32::consts::LN_2;
/// `log2(e)`: folds the natural exponential into `ex2`.
pub const LOG2_E: f32 = core::f32::consts::LOG2_E;

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn merge_matches_direct() {
        let xs = [0.5f32, -1.0, 3.0, 2.0];
        let direct_m = 3.0f32;
        let direct_sum: f32 = xs.iter().map(|x| (x - direct_m).exp2()).sum();
        let part = |s: &[f32]| {
            let m = s.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            SoftmaxState {
                max_log2: m,
                sum: s.iter().map(|x| (x - m).exp2()).sum(),
            }
        };
        let (st, sc) = part(&xs[..2]).merge(part(&xs[2..]), f32::exp2);
        assert_eq!(st.max_log2, direct_m);
        assert!((st.sum - direct_sum).abs() < 1e-6);
        assert!((sc.scale_a - (0.5f32 - 3.0).exp2()).abs() < 1e-7);
        assert_eq!(sc.scale_b, 1.0);
    }
    #[test]
    fn empty_sides() {
        let a = SoftmaxState {
            max_log2: 1.0,
            sum: 2.0,
        };
        let (st, sc) = a.merge(SoftmaxState::EMPTY, f32::exp2);
        assert_eq!(st, a);
        assert_eq!((sc.scale_a, sc.scale_b), (1.0, 0.0));
        let (st, sc) = SoftmaxState::EMPTY.merge(SoftmaxState::EMPTY, f32::exp2);
        assert!(st.is_empty());
        assert_eq!((sc.scale_a, sc.scale_b), (0.0, 0.0));
        assert_eq!(st.lse_log2(f32::log2), f32::NEG_INFINITY);
    }
}
