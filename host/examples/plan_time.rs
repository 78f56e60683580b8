//! Host planning time of the pure split planner (`ferroflash::plan::plan`) on ragged batches:
//! what an engine pays on the CPU per decode step before any launch (no GPU needed).
//! `cargo run --release -p ferroflash --example plan_time [BATCH [REPS]]` (one batch size only,
//! e.g. for `perf record` or `valgrind --tool=callgrind`).
use ferroflash::plan::{plan, Balance, PlanInput, Splits};
use std::time::Instant;

fn main() {
    let only: Option<u32> = std::env::args().nth(1).map(|a| a.parse().expect("BATCH"));
    // The median of single-plan times (this 2-core VM is shared: means wander by 2x).
    let reps: usize = std::env::args()
        .nth(2)
        .map_or(if only.is_some() { 2000 } else { 200 }, |a| {
            a.parse().expect("REPS")
        });
    let mut seed = 62u64;
    let mut rnd = move |n: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % n as u64) as u32
    };
    println!(
        "{:>6} {:>8} {:>10} {:>10} {:>8}",
        "batch", "q_len", "max keys", "median us", "ctas"
    );
    for &(batch, q_len, max_len) in &[
        (1u32, 1u32, 32768u32),
        (8, 1, 8192),
        (64, 1, 4096),
        (128, 1, 2048),
        (256, 1, 32768),
        (256, 4, 32768),
        (1024, 1, 8192),
    ] {
        let kv_lens: Vec<u32> = (0..batch).map(|_| q_len + rnd(max_len)).collect();
        if only.is_some_and(|b| b != batch) {
            continue;
        }
        let q_lens: Vec<u32> = vec![q_len; batch as usize];
        let mut q_indptr = vec![0u32];
        let mut page_indptr = vec![0u32];
        for (q, k) in q_lens.iter().zip(&kv_lens) {
            q_indptr.push(q_indptr.last().unwrap() + q);
            page_indptr.push(page_indptr.last().unwrap() + k.div_ceil(16));
        }
        let cluster_capacity = [0, 0, 132, 79, 62, 0, 0, 0, 30];
        let inp = PlanInput {
            q_indptr: &q_indptr,
            page_indptr: &page_indptr,
            q_lens: &q_lens,
            kv_lens: &kv_lens,
            q_heads: 32,
            kv_heads: 8,
            head_dim: 128,
            kv_elem_bytes: 2,
            sm_count: 132,
            ctas_per_sm: 2,
            splits: Splits::Auto,
            m_tiles: None,
            tail: None,
            balance: Balance::Auto,
            cluster_capacity: &cluster_capacity,
            max_ctas: None,
        };
        let p = plan(&inp);
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(plan(std::hint::black_box(&inp)));
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let us = times[reps / 2];
        println!(
            "{batch:>6} {q_len:>8} {max_len:>10} {us:>10.1} {:>8}",
            p.work.len()
        );
    }
}
