//! Property tests of the decode planner (pure Rust, no GPU): coverage, ordering, slots, limits
//! and determinism over generated batches. `FF_PLAN_CASES` sets the case count (default 10,000).

use ferroflash::plan::{
    cluster_order, dispatch_end_tiles, graph_max_ctas, max_auto_ctas, plan, Balance, Plan,
    PlanInput, Splits, TailSplit, MAX_SPLITS, MAX_TAIL_CHUNKS, MIN_TILES_PER_SPLIT,
    WORKSPACE_ALIGN_BYTES,
};
use ferroflash::split_model::CTA_OVERHEAD_TILES;
use ferroflash_contract::decode::{KV_TILE_TOKENS, M_TILE_ROWS};
use ferroflash_contract::params::{DecodeWork, FINAL_OUTPUT};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

#[derive(Clone, Debug)]
struct Batch {
    q_lens: Vec<u32>,
    kv_lens: Vec<u32>,
    kv_heads: u32,
    group: u32,
    head_dim: u32,
    sm_count: u32,
    ctas_per_sm: u32,
    splits: Splits,
    /// The config's override (`None`: the planner's choice).
    m_tiles: Option<u32>,
    /// Experimental tail split (`None`: off).
    tail: Option<TailSplit>,
    /// Clusters the device holds, by size (empty: the combine merges every split).
    cluster_capacity: Vec<u32>,
    balance: Balance,
    /// A CUDA-graph plan's grid (`None`: a direct plan).
    max_ctas: Option<u64>,
}

fn batch() -> impl Strategy<Value = Batch> {
    let len = prop_oneof![Just(0u32), 1u32..130, 1u32..5000, 30_000u32..70_000];
    (1usize..40).prop_flat_map(move |n| {
        (
            prop::collection::vec(1u32..=16, n),
            prop::collection::vec(len.clone(), n),
            1u32..9,
            prop::sample::select(vec![1u32, 2, 4, 7, 8, 12, 16]),
            prop::sample::select(vec![64u32, 128, 256]),
            prop::sample::select(vec![1u32, 8, 108, 132]),
            1u32..4,
            prop_oneof![Just(Splits::Auto), (1u32..400).prop_map(Splits::Fixed)],
            prop_oneof![
                Just(None),
                Just(Some(1u32)),
                Just(Some(2u32)),
                Just(Some(4u32))
            ],
            prop_oneof![
                Just(None),
                (1u32..=90, 1u32..=20).prop_map(|(percent, chunk_tiles)| Some(TailSplit {
                    percent,
                    chunk_tiles
                }))
            ],
            prop_oneof![Just(Vec::new()), prop::collection::vec(0u32..300, 9),],
            (
                prop_oneof![Just(Balance::Auto), Just(Balance::On), Just(Balance::Off)],
                any::<bool>(),
                1u64..=4,
            ),
        )
            .prop_map(
                |(
                    q_lens,
                    kv_lens,
                    kv_heads,
                    group,
                    head_dim,
                    sm_count,
                    ctas_per_sm,
                    splits,
                    m_tiles,
                    tail,
                    cluster_capacity,
                    (balance, graph, capacity_factor),
                )| {
                    // Two and four tiles exist only up to head_dim 128 (the config refuses the rest).
                    let m_tiles = m_tiles.map(|m| if head_dim > 128 { 1 } else { m });
                    // A CUDA-graph plan's grid for a capacity of 1-4 times this batch's
                    // blocks (graph plans fix the variant, so only with m_tiles given).
                    let max_ctas = m_tiles.filter(|_| graph).map(|m| {
                        let blocks: u64 = q_lens
                            .iter()
                            .map(|&q| {
                                (q * group).div_ceil(M_TILE_ROWS * m) as u64 * kv_heads as u64
                            })
                            .sum();
                        graph_max_ctas(blocks * capacity_factor, (sm_count * ctas_per_sm) as u64)
                    });
                    Batch {
                        q_lens,
                        kv_lens,
                        kv_heads,
                        group,
                        head_dim,
                        sm_count,
                        ctas_per_sm,
                        splits,
                        m_tiles,
                        tail,
                        cluster_capacity,
                        balance,
                        max_ctas,
                    }
                },
            )
    })
}

fn indptr(v: &[u32]) -> Vec<u32> {
    std::iter::once(0)
        .chain(v.iter().scan(0, |a, &x| {
            *a += x;
            Some(*a)
        }))
        .collect()
}

fn run(b: &Batch) -> (Plan, Vec<u32>, Vec<u32>) {
    let q_indptr = indptr(&b.q_lens);
    let page_indptr = indptr(&b.kv_lens.iter().map(|l| l.div_ceil(16)).collect::<Vec<_>>());
    let p = plan(&PlanInput {
        q_indptr: &q_indptr,
        page_indptr: &page_indptr,
        q_lens: &b.q_lens,
        kv_lens: &b.kv_lens,
        q_heads: b.kv_heads * b.group,
        kv_heads: b.kv_heads,
        head_dim: b.head_dim,
        // The element size only steers the automatic m tiles (the properties hold for any).
        kv_elem_bytes: if b.kv_lens.len().is_multiple_of(2) {
            2
        } else {
            1
        },
        sm_count: b.sm_count,
        ctas_per_sm: b.ctas_per_sm,
        splits: b.splits,
        m_tiles: b.m_tiles,
        tail: b.tail,
        balance: b.balance,
        cluster_capacity: &b.cluster_capacity,
        max_ctas: b.max_ctas,
    });
    (p, q_indptr, page_indptr)
}

fn cases() -> u32 {
    std::env::var("FF_PLAN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn plan_invariants(b in batch()) {
        let (p, q_indptr, page_indptr) = run(&b);
        let rpb = p.rows_per_block();
        prop_assert!([1, 2, 4].contains(&p.m_tiles));
        if let Some(m) = b.m_tiles {
            prop_assert_eq!(p.m_tiles, m);
        }
        // Group the work by output block.
        let mut blocks: BTreeMap<(u32, u32, u32), Vec<_>> = BTreeMap::new();
        for w in &p.work {
            let r = w.request as usize;
            // Scalars copied from the request tables.
            prop_assert_eq!(w.kv_len, b.kv_lens[r]);
            prop_assert_eq!(w.q_len, b.q_lens[r]);
            prop_assert_eq!(w.first_token, q_indptr[r]);
            prop_assert_eq!(w.first_page_entry, page_indptr[r]);
            prop_assert!(w.kv_head < b.kv_heads);
            blocks.entry((w.request, w.kv_head, w.row_start)).or_default().push(*w);
        }
        // Every (request, kv head, packed row) is in exactly one row block; every block's KV
        // ranges are contiguous, ordered, non-empty (one empty range for kv_len 0) and cover it.
        let mut expected_blocks = 0usize;
        for r in 0..b.q_lens.len() {
            let rows = b.q_lens[r] * b.group;
            for kvh in 0..b.kv_heads {
                for rb in 0..rows.div_ceil(rpb) {
                    expected_blocks += 1;
                    let mut items = blocks.get(&(r as u32, kvh, rb * rpb)).cloned().unwrap_or_default();
                    prop_assert!(!items.is_empty(), "block ({}, {}, {}) not covered", r, kvh, rb);
                    items.sort_by_key(|w| w.kv_start);
                    prop_assert_eq!(items[0].kv_start, 0);
                    prop_assert_eq!(items.last().unwrap().kv_end, b.kv_lens[r]);
                    for pair in items.windows(2) {
                        prop_assert_eq!(pair[0].kv_end, pair[1].kv_start);
                    }
                    if b.kv_lens[r] == 0 {
                        prop_assert_eq!(items.len(), 1);
                    } else {
                        prop_assert!(items.iter().all(|w| w.kv_start < w.kv_end));
                    }
                    prop_assert!(items.len() as u32 <= MAX_SPLITS);
                    // One item writes the output, or every item writes a partial slot.
                    if items.len() == 1 {
                        prop_assert_eq!(items[0].partial_slot, FINAL_OUTPUT);
                    } else {
                        prop_assert!(items.iter().all(|w| w.partial_slot != FINAL_OUTPUT));
                    }
                }
            }
        }
        prop_assert_eq!(blocks.len(), expected_blocks);
        // Slots: each split item has its own slot in [0, num_slots); each merge covers exactly
        // its block's slots, consecutively.
        let slots: Vec<u32> = p.work.iter().filter(|w| w.partial_slot != FINAL_OUTPUT).map(|w| w.partial_slot).collect();
        let unique: BTreeSet<u32> = slots.iter().copied().collect();
        prop_assert_eq!(unique.len(), slots.len());
        prop_assert_eq!(slots.len() as u32, p.num_slots);
        prop_assert!(slots.iter().all(|&s| s < p.num_slots));
        let mut merged = 0;
        for m in &p.merge {
            prop_assert!(m.num_splits >= 2);
            let items = &blocks[&(m.request, m.kv_head, m.row_start)];
            prop_assert_eq!(items.len() as u32, m.num_splits);
            let mut got: Vec<u32> = items.iter().map(|w| w.partial_slot).collect();
            got.sort();
            let want: Vec<u32> = (m.first_slot..m.first_slot + m.num_splits).collect();
            prop_assert_eq!(got, want);
            merged += m.num_splits;
        }
        prop_assert_eq!(merged, p.num_slots);
        // Workspace sizes follow from the slots.
        prop_assert_eq!(p.partial_lse_elems(), p.num_slots as usize * rpb as usize);
        prop_assert_eq!(p.partial_o_elems(b.head_dim), p.partial_lse_elems() * b.head_dim as usize);
        // One workspace: regions aligned, disjoint, inside the allocation, sized as used.
        let ws = p.workspace(b.head_dim);
        prop_assert_eq!(ws.partial_o_bytes, 4 * p.partial_o_elems(b.head_dim));
        prop_assert_eq!(ws.partial_lse_bytes, 4 * p.partial_lse_elems());
        prop_assert!(ws.partial_o_offset_bytes % WORKSPACE_ALIGN_BYTES == 0 && ws.partial_lse_offset_bytes % WORKSPACE_ALIGN_BYTES == 0);
        prop_assert!(ws.partial_o_offset_bytes + ws.partial_o_bytes <= ws.partial_lse_offset_bytes);
        prop_assert!(ws.partial_lse_offset_bytes + ws.partial_lse_bytes <= ws.total_bytes);
        // Grid within the launch limit.
        prop_assert!(p.work.len() < i32::MAX as usize);
        // Automatic splitting makes at most MAX_WAVE_SPLITS CTAs per block or MAX_AUTO_WAVES
        // waves (plus MAX_TAIL_CHUNKS per block with a tail).
        let wave = (b.sm_count * b.ctas_per_sm) as u64;
        let all_blocks = (p.merge.len() + p.work.iter().filter(|w| w.partial_slot == FINAL_OUTPUT).count()) as u64;
        if b.splits == Splits::Auto {
            let tail = if b.tail.is_some() { all_blocks * MAX_TAIL_CHUNKS as u64 } else { 0 };
            let cap = max_auto_ctas(all_blocks, wave) + tail;
            prop_assert!(p.work.len() as u64 <= cap, "{} CTAs over the graph capacity {}", p.work.len(), cap);
            // A graph plan's batch stays within its captured grid (the tail's chunks within
            // the reserve `for_graphs` adds for them).
            if let Some(grid) = b.max_ctas {
                prop_assert!(p.work.len() as u64 <= grid + tail, "{} CTAs over the graph grid {} + {}", p.work.len(), grid, tail);
            }
        }
        if p.balanced {
            // Only automatic splitting balances, and only where the caller allows it.
            prop_assert!(b.splits == Splits::Auto && b.tail.is_none() && b.balance != Balance::Off);
            // The hardware hands each CTA, in order, to the first slot that frees: simulated
            // with every CTA costing its tiles plus CTA_OVERHEAD_TILES, the last slot ends
            // within two minimum splits and two CTA overheads of the average (list scheduling
            // in a poor order ends up to a whole CTA later).
            let slots = (b.sm_count * b.ctas_per_sm) as usize;
            let tiles = |w: &DecodeWork| (w.kv_end - w.kv_start).div_ceil(KV_TILE_TOKENS) as u64;
            let total: u64 = p.work.iter().map(tiles).sum();
            let mut free: BinaryHeap<Reverse<(u64, usize)>> = (0..slots).map(|s| Reverse((0u64, s))).collect();
            let mut end = 0u64;
            // Times in half tiles (CTA_OVERHEAD_TILES = 1.5 is three of them): exact. The slot
            // popped frees no earlier than the one before it, so CTAs start in list order.
            prop_assert_eq!(CTA_OVERHEAD_TILES * 2.0, 3.0);
            for w in &p.work {
                let Reverse((start, s)) = free.pop().unwrap();
                let done = start + 2 * tiles(w) + 3;
                end = end.max(done);
                free.push(Reverse((done, s)));
            }
            // Half tiles.
            let avg = (2 * total + 3 * p.work.len() as u64) as f64 / slots as f64;
            let bound = avg + (4 * MIN_TILES_PER_SPLIT + 6) as f64;
            prop_assert!((end as f64) <= bound, "the last slot ends at {} half tiles, average {}", end, avg);
        } else {
            // Longest ranges first.
            prop_assert!(p.work.windows(2).all(|w| w[0].kv_end - w[0].kv_start >= w[1].kv_end - w[1].kv_start));
        }
        // Deterministic.
        prop_assert_eq!(run(&b).0, p);
    }

    /// Cluster order (See Note [cluster merge] in docs/DESIGN.md), over uniform batches (the
    /// only ones it applies to) and the random ones: offered exactly when every block is split
    /// into the same count within the cluster limit; then a permutation of the work list whose
    /// k-th group of `n` CTAs is merge block k's splits in slot (key) order.
    #[test]
    fn cluster_order_invariants(
        b in batch(),
        uniform in any::<bool>(),
        max_cluster in 2u32..=8,
    ) {
        let mut b = b;
        if uniform {
            let (q, kv) = (b.q_lens[0], b.kv_lens[0]);
            b.q_lens.iter_mut().for_each(|x| *x = q);
            b.kv_lens.iter_mut().for_each(|x| *x = kv);
            b.tail = None;
        }
        let (p, _, _) = run(&b);
        let eligible = !p.balanced
            && !p.merge.is_empty()
            && p.work.iter().all(|w| w.partial_slot != FINAL_OUTPUT)
            && p.merge.iter().all(|m| m.num_splits == p.merge[0].num_splits && m.num_splits <= max_cluster);
        match cluster_order(&p, max_cluster) {
            None => prop_assert!(!eligible, "eligible plan refused"),
            Some((n, work)) => {
                prop_assert!(eligible);
                prop_assert!((2..=max_cluster).contains(&n));
                prop_assert_eq!(work.len(), p.merge.len() * n as usize);
                for (m, c) in p.merge.iter().zip(work.chunks(n as usize)) {
                    for (k, w) in c.iter().enumerate() {
                        prop_assert_eq!(w.partial_slot, m.first_slot + k as u32);
                        prop_assert_eq!((w.request, w.kv_head, w.row_start), (m.request, m.kv_head, m.row_start));
                    }
                    prop_assert!(c.windows(2).all(|x| x[0].kv_end == x[1].kv_start));
                }
                let key = |w: &ferroflash_contract::params::DecodeWork| w.partial_slot;
                let (mut a, mut z) = (p.work.clone(), work);
                a.sort_by_key(key);
                z.sort_by_key(key);
                prop_assert_eq!(a, z);
            }
        }
    }

    /// The heap-priced dispatch equals the plain one: every CTA to the first slot that frees,
    /// found by a scan of all slots (the planner's version before session 62).
    #[test]
    fn dispatch_end_matches_scan(
        ranges in prop::collection::vec(1u32..20_000, 0..600),
        wave in 1usize..300,
    ) {
        let work: Vec<DecodeWork> = ranges
            .iter()
            .map(|&n| DecodeWork { kv_start: 0, kv_end: n, ..Default::default() })
            .collect();
        let mut free = vec![0f64; wave];
        let mut end = 0f64;
        for w in &work {
            let (k, t) = free
                .iter()
                .copied()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            let done = t + w.tiles() as f64 + CTA_OVERHEAD_TILES;
            free[k] = done;
            end = end.max(done);
        }
        prop_assert_eq!(dispatch_end_tiles(&work, wave).to_bits(), end.to_bits());
    }
}
