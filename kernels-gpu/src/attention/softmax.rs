//! Score transform and masks shared by the decode consumers.

use crate::arch::*;
use crate::tile::table_u32;
use ferroflash_contract::params::{DecodeParams, NONE_ADDR};
use ferroflash_contract::softmax::LOG2_E;

/// The sink logit of q head `q_head` in log2 units, or `-inf` without sinks.
#[inline(always)]
pub fn sink_log2(p: &DecodeParams, q_head: u32) -> f32 {
    if p.sinks != NONE_ADDR {
        // SAFETY: per-q-head table of `q_heads` entries, validated by the host.
        f32::from_bits(unsafe { table_u32(p.sinks, q_head) }) * LOG2_E
    } else {
        f32::NEG_INFINITY
    }
}

/// How raw `q·k` becomes a base-2 logit.
#[derive(Clone, Copy)]
pub struct ScoreTransform {
    /// Multiplies `q·k` (includes `log2(e)`, or `1 / softcap` when capping).
    pub scale: f32,
    /// `softcap * log2(e)`, or 0 when there is no softcap.
    pub softcap_log2: f32,
}

impl ScoreTransform {
    /// With a softcap, the score in units of `softcap_log2`: `tanh(qk · scale)`. Without one the
    /// consumers keep raw `qk` and multiply by `scale` inside the `exp2` argument's `fma`.
    #[inline(always)]
    pub fn capped_unit(&self, qk: f32) -> f32 {
        tanh_approx_f32(qk * self.scale)
    }
    /// The base-2 logit per score unit (> 0): `softcap_log2` with a softcap (units of
    /// [`capped_unit`](Self::capped_unit)), else `scale` (raw `qk`).
    #[inline(always)]
    pub fn unit_log2(&self) -> f32 {
        if self.softcap_log2 != 0.0 {
            self.softcap_log2
        } else {
            self.scale
        }
    }
}

/// One score in the consumers' units ([`ScoreTransform::unit_log2`] per unit), `-inf` where
/// `MASK` and the row does not see `key`. `MASK` and `CAP` (the call has a softcap) are tested
/// once per tile by the callers, so the per-score code is straight-line.
#[inline(always)]
pub fn masked_unit<const MASK: bool, const CAP: bool>(xf: &ScoreTransform, mask: &RowMask, qk: f32, key: i32) -> f32 {
    let u = if CAP { xf.capped_unit(qk) } else { qk };
    if MASK && !mask.visible(key) {
        f32::NEG_INFINITY
    } else {
        u
    }
}

/// Which keys one query row sees: `key < kv_end`, `key <= pos`, and with a window
/// `key >= pos - window_left` (bottom-right aligned causal mask among the new tokens).
#[derive(Clone, Copy)]
pub struct RowMask {
    pub pos: i32,
    pub kv_end: i32,
    pub window_left: i32,
}

impl RowMask {
    #[inline(always)]
    pub fn visible(&self, key: i32) -> bool {
        // Non-short-circuit: selects, not branches, in the per-score mask loops.
        (key < self.kv_end) & (key <= self.pos) & ((self.window_left < 0) | (key >= self.pos - self.window_left))
    }
}

/// The reference point for `exp2`: the running max, or 0 while the row has seen no key (so
/// `exp2(-inf - ref)` is 0, never NaN).
#[inline(always)]
pub fn exp_ref(max_log2: f32) -> f32 {
    if max_log2 == f32::NEG_INFINITY {
        0.0
    } else {
        max_log2
    }
}
