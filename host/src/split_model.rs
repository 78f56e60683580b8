//! The split model: how long a decode grid takes, estimated from its CTAs' sizes, so that the
//! planner can compare ways to cut the KV axis (See Note [split heuristic] in docs/DESIGN.md).
//! Pure arithmetic, no CUDA types.
//!
//! # Unit
//!
//! One *tile-time*: what a CTA takes to stream one 64-key tile while a full wave of CTAs
//! (`sm_count * ctas_per_sm`) streams at the HBM ceiling. Both decode families have the same
//! one on the H200 (~1.9-2.1 us): a 16-bit tile (32 KiB at D = 128) at two CTAs per SM, an fp8
//! tile (16 KiB) at four.
//!
//! # The estimate
//!
//! - Every CTA costs its tiles plus [`CTA_OVERHEAD_TILES`]: the start (dependency, page ids,
//!   first bytes) and the end (last tile, in-CTA merge, writes).
//! - `d` is the costliest CTA and `n = Σ cost / d`: how many CTAs of `d` carry the same work.
//!   The work list runs longest first, so shorter CTAs fill in behind the long ones.
//! - `n <= wave`: `T = d / min(speedup, wave / n)`. CTAs with spare bandwidth stream faster, up to
//!   [`SHARED_SPEEDUP`] when some SMs hold more than one CTA (those set the pace) and
//!   [`LONE_SPEEDUP`] when `n <= sm_count` (one CTA per SM).
//! - `n > wave`: `k = floor(n / wave)` full waves and a remainder `r`:
//!   `T = k d + d / min(SHARED_SPEEDUP, wave / r) - TAIL_OVERLAP d (1 - r / wave)`. The
//!   remainder starts as the first CTAs of the last full wave end (SMs differ in speed), so a
//!   small remainder costs less than a whole wave.
//! - A split plan adds its merge: [`CLUSTER_MERGE_TILES`] when every split block merges inside
//!   a thread-block cluster, else the combine kernel, [`COMBINE_TILES`] plus
//!   [`COMBINE_TILES_PER_WAVE`] per wave's worth of merged blocks plus
//!   [`COMBINE_TILES_PER_ROUND`] per dependent round of loads past the first in the sum over
//!   the most-split block's splits (a chain of round trips when a few units hold hundreds of
//!   splits).
//!
//! The constants were fitted (least squares on log time, on a grid of values) to 51 H200
//! measurements of session 21: forced split counts on 14 shapes of 16-bit and fp8 K/V (8-2048
//! blocks of 8-1024 tiles, ragged batches included) and the W-workloads. The estimate is within
//! 5% on 45 of them and within 8% on 48. The worst are an unsplit grid that fills half a wave
//! (272 fp8 CTAs: 94.8 us in the benchmark's graph, 79.1 eager, where the next call's CTAs,
//! launched early, take the idle slots) and a ragged batch. [`LONE_SPEEDUP`] was then lowered
//! from the fitted 1.6 to 1.3, which the fit hardly sees, because at 1.6 the planner cut an
//! MQA batch into half as many CTAs as before and it ran 8% slower (docs/perf.md, session 21).

/// A CTA's start and end, in tile-times.
pub const CTA_OVERHEAD_TILES: f64 = 1.5;
/// Fastest a CTA streams, against a full wave, while some SMs hold more than one CTA.
pub const SHARED_SPEEDUP: f64 = 1.2;
/// Fastest a CTA streams, against a full wave, alone on its SM.
pub const LONE_SPEEDUP: f64 = 1.3;
/// Share of a CTA's time by which the remainder after the last full wave overlaps it.
pub const TAIL_OVERLAP: f64 = 0.5;
/// The cluster merge after the last tile, in tile-times.
pub const CLUSTER_MERGE_TILES: f64 = 1.0;
/// The combine kernel's hand-over and fixed work, in tile-times.
pub const COMBINE_TILES: f64 = 2.5;
/// The combine's work per wave's worth of merged blocks, in tile-times.
pub const COMBINE_TILES_PER_WAVE: f64 = 1.0;
/// Each dependent round of loads of the combine's sum past the first
/// (`ferroflash_contract::decode::combine_rounds`: 64 splits per round for up to 64 (row, 4
/// columns) units per CTA), in tile-times. Fitted in session 26 (docs/perf.md): 2 x 33K keys at
/// head dim 64 (two blocks of 16 rows) in 129 splits (3 rounds) took 15.4 us, in 104 (2 rounds)
/// 13.4, with the same decode estimate.
pub const COMBINE_TILES_PER_ROUND: f64 = 1.0;

/// How the split blocks of a plan are merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// No block is split.
    None,
    /// Inside thread-block clusters (See Note [cluster merge]).
    Cluster,
    /// By the combine kernel, `blocks` split blocks, the most-split of them summed in `rounds`
    /// dependent rounds of loads.
    Combine { blocks: u64, rounds: u32 },
}

/// The device's parallelism, as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slots {
    pub sm_count: u32,
    /// Resident CTAs per SM of the decode variant.
    pub ctas_per_sm: u32,
}

impl Slots {
    /// CTAs resident at once.
    pub fn wave(&self) -> f64 {
        (self.sm_count.max(1) * self.ctas_per_sm.max(1)) as f64
    }
}

/// The CTAs of a grid, summed as the model needs them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridShape {
    /// Σ (tiles + overhead) over the CTAs, tile-times.
    pub cost_tiles: f64,
    /// The costliest CTA, tile-times.
    pub max_cost_tiles: f64,
}

impl GridShape {
    /// Add `count` CTAs of `tiles` tiles each.
    pub fn add(&mut self, tiles: f64, count: u64) {
        if count == 0 {
            return;
        }
        let cost = tiles + CTA_OVERHEAD_TILES;
        self.cost_tiles += cost * count as f64;
        self.max_cost_tiles = self.max_cost_tiles.max(cost);
    }
}

/// Estimated time of a grid and its merge, in tile-times (module doc).
pub fn estimate_tiles(grid: GridShape, slots: Slots, merge: Merge) -> f64 {
    let d = grid.max_cost_tiles;
    if d <= 0.0 {
        return 0.0;
    }
    let wave = slots.wave();
    let n = grid.cost_tiles / d;
    let stream = if n <= wave {
        let cap = if n <= slots.sm_count as f64 {
            LONE_SPEEDUP
        } else {
            SHARED_SPEEDUP
        };
        d / cap.min(wave / n)
    } else {
        let k = (n / wave).floor();
        let r = n - k * wave;
        let tail = if r > 1e-9 {
            d / SHARED_SPEEDUP.min(wave / r) - TAIL_OVERLAP * d * (1.0 - r / wave)
        } else {
            0.0
        };
        k * d + tail
    };
    stream + merge_tiles(merge, wave)
}

/// What merging the split blocks adds after the last tile, in tile-times, on a wave of `wave`
/// CTAs (module doc).
pub fn merge_tiles(merge: Merge, wave: f64) -> f64 {
    match merge {
        Merge::None => 0.0,
        Merge::Cluster => CLUSTER_MERGE_TILES,
        Merge::Combine { blocks, rounds } => {
            COMBINE_TILES
                + COMBINE_TILES_PER_WAVE * blocks as f64 / wave
                + COMBINE_TILES_PER_ROUND * rounds.saturating_sub(1) as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200_BF16: Slots = Slots {
        sm_count: 132,
        ctas_per_sm: 2,
    };

    fn uniform(ctas: u64, tiles: f64) -> GridShape {
        let mut g = GridShape::default();
        g.add(tiles, ctas);
        g
    }

    /// Session 21's measurements (us, H200, 16-bit K/V, page 16) against the estimate at
    /// ~1.93 us per tile-time: within 7% on these.
    #[test]
    fn close_to_measured_times() {
        let us = |ctas, tiles, merge| estimate_tiles(uniform(ctas, tiles), H200_BF16, merge) * 1.93;
        let cases = [
            // W2: 64 blocks in 4 splits of 32 tiles, clusters of 4.
            (us(256, 32.0, Merge::Cluster), 63.9),
            // W3: 512 unsplit blocks of 64 tiles.
            (us(512, 64.0, Merge::None), 241.0),
            // 96 blocks of 128 tiles in 5 splits, combine.
            (
                us(
                    480,
                    25.6,
                    Merge::Combine {
                        blocks: 96,
                        rounds: 1,
                    },
                ),
                101.4,
            ),
            // 192 blocks of 93.75 tiles, unsplit and in 4 splits.
            (us(192, 93.75, Merge::None), 163.1),
            (
                us(
                    768,
                    23.44,
                    Merge::Combine {
                        blocks: 192,
                        rounds: 1,
                    },
                ),
                145.8,
            ),
            // 384 unsplit blocks of 32 tiles.
            (us(384, 32.0, Merge::None), 104.3),
        ];
        for (est, measured) in cases {
            assert!(
                (est / measured - 1.0).abs() < 0.07,
                "{est} against {measured}"
            );
        }
    }

    #[test]
    fn a_full_wave_takes_one_cta_time() {
        let t = estimate_tiles(uniform(264, 30.0), H200_BF16, Merge::None);
        assert!((t - 31.5).abs() < 1e-9);
        // Twice the wave: twice the time.
        let t2 = estimate_tiles(uniform(528, 30.0), H200_BF16, Merge::None);
        assert!((t2 - 63.0).abs() < 1e-9);
    }

    #[test]
    fn a_small_remainder_costs_less_than_a_wave_but_more_than_nothing() {
        let full = estimate_tiles(uniform(264, 30.0), H200_BF16, Merge::None);
        let plus8 = estimate_tiles(uniform(272, 30.0), H200_BF16, Merge::None);
        let two = estimate_tiles(uniform(528, 30.0), H200_BF16, Merge::None);
        assert!(full < plus8 && plus8 < two);
    }

    #[test]
    fn monotone_in_work_and_merge() {
        for ctas in [1u64, 50, 132, 200, 264, 300, 600, 2000] {
            let a = estimate_tiles(uniform(ctas, 10.0), H200_BF16, Merge::None);
            let b = estimate_tiles(uniform(ctas, 11.0), H200_BF16, Merge::None);
            let c = estimate_tiles(uniform(ctas + 1, 10.0), H200_BF16, Merge::None);
            assert!(a < b && a <= c + 1e-9, "{ctas}");
            let m = estimate_tiles(uniform(ctas, 10.0), H200_BF16, Merge::Cluster);
            let k = estimate_tiles(
                uniform(ctas, 10.0),
                H200_BF16,
                Merge::Combine {
                    blocks: ctas,
                    rounds: 1,
                },
            );
            assert!(a < m && m < k);
        }
        assert_eq!(
            estimate_tiles(GridShape::default(), H200_BF16, Merge::None),
            0.0
        );
    }
}
