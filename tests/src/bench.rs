//! The benchmark's diagnostic kernels: the paged read probe reads exactly the rows of its items.

use crate::{Case, CaseResult, Outcome, Rng};
use ferroflash::bench::{PagedReadProbe, PoolShape, ProbeCut};
use ferroflash::Device;
use ferroflash_contract::params::DecodeWork;

/// The cases of this module.
pub fn cases() -> Vec<Case> {
    vec![Case {
        name: "bench/paged_probe_reads_every_row_once",
        run: paged_probe,
    }]
}

const PAGE: u32 = 4;
const HEADS: u32 = 2;
/// bf16 at head dim 64: eight 16-byte chunks per row.
const ROW_CHUNKS: u32 = 8;
/// The marker's first word; every other word of the pools is zero.
const MARK: u32 = 0x1234_5678;

/// Pools of zeros with one 16-byte chunk `[MARK, 0, 0, 0]`, moved over sampled chunks of both
/// pools (every chunk at a range edge, the spare pages' first chunks, and random ones). The
/// probe, with `MARK` as its mode, sets the scratch word of every thread whose loads xor to it:
/// one thread when the chunk is a row of some item, none otherwise. A chunk read twice by one
/// thread cancels, by two threads sets two words: both fail. Both cuts (they read the same
/// rows), ranges long enough for the eight-load loop (> 8 x 1024 chunks), shuffled pages with
/// spares.
fn paged_probe(d: &Device) -> CaseResult {
    let lens = [1400u32, 37];
    let pages: Vec<u32> = lens.iter().map(|l| l.div_ceil(PAGE)).collect();
    let used: u32 = pages.iter().sum();
    let num_pages = used + 9;
    let mut rng = Rng(0x9a6e);
    let mut ids: Vec<u32> = (0..num_pages).collect();
    rng.shuffle(&mut ids);
    let spare: Vec<u32> = ids[used as usize..].to_vec();
    let ids = &ids[..used as usize];
    let indptr = [0, pages[0], used];
    let item = |request, kv_head, kv_start, kv_end| DecodeWork {
        request,
        kv_head,
        kv_start,
        kv_end,
        ..DecodeWork::default()
    };
    // As a plan cuts: every kv head of a request in the same splits (request 0 in two, ranges
    // of 600 and 800 keys: 9600 and 12800 chunks per CTA of 1024 threads; request 1 whole).
    let bounds: [&[u32]; 2] = [&[0, 600, 1400], &[0, 37]];
    let work: Vec<DecodeWork> = (0..2u32)
        .flat_map(|r| {
            bounds[r as usize]
                .windows(2)
                .flat_map(move |k| (0..HEADS).map(move |h| item(r, h, k[0], k[1])))
        })
        .collect();
    let shape = PoolShape {
        page_size: PAGE,
        kv_heads: HEADS,
        row_bytes: ROW_CHUNKS * 16,
    };
    let row_u16 = (ROW_CHUNKS * 8) as usize;
    let pool_u16 = num_pages as usize * (PAGE * HEADS) as usize * row_u16;
    let s = d.stream();
    let e = |x: cudarc::driver::DriverError| format!("{x:?}");
    let mut pools = [
        s.alloc_zeros::<u16>(pool_u16).map_err(e)?,
        s.alloc_zeros::<u16>(pool_u16).map_err(e)?,
    ];
    // Pool row of item `w`'s token `t` (NHD: page, token in page, kv head).
    let row_of = |w: &DecodeWork, t: u32| {
        let page = ids[(indptr[w.request as usize] + t / PAGE) as usize];
        (page * PAGE + t % PAGE) * HEADS + w.kv_head
    };
    // Readers of each chunk index, the same in the K and the V pool.
    let chunks_per_pool = pool_u16 / 8;
    let mut expect = vec![0u32; chunks_per_pool];
    for w in &work {
        for t in w.kv_start..w.kv_end {
            let row = row_of(w, t);
            for c in 0..ROW_CHUNKS {
                expect[(row * ROW_CHUNKS + c) as usize] += 1;
            }
        }
    }
    if expect.iter().any(|&n| n > 1) {
        return Err("test setup: overlapping items".into());
    }
    // Sampled chunks: every item's first and last row's chunks, the spare pages' first chunk,
    // and random chunks of both pools.
    let mut sample: Vec<(usize, usize)> = Vec::new();
    for w in &work {
        for t in [w.kv_start, w.kv_end - 1] {
            let row = row_of(w, t);
            for c in 0..ROW_CHUNKS {
                sample.extend([0, 1].map(|p| (p, (row * ROW_CHUNKS + c) as usize)));
            }
        }
    }
    for &pg in &spare {
        let c = (pg * PAGE * HEADS * ROW_CHUNKS) as usize;
        sample.extend([(0, c), (1, c)]);
    }
    for _ in 0..600 {
        let p = (rng.next_u64() % 2) as usize;
        sample.push((p, (rng.next_u64() % chunks_per_pool as u64) as usize));
    }
    let mut mark = [0u16; 8];
    mark[0] = MARK as u16;
    mark[1] = (MARK >> 16) as u16;
    for cut in [ProbeCut::KvHead, ProbeCut::Token] {
        let probe = PagedReadProbe::new(d, cut, &work, &indptr, ids, shape)
            .map_err(|x| x.to_string())?
            .with_mode(MARK);
        let words = probe.ctas() as usize * probe.threads() as usize;
        let mut scratch = s.alloc_zeros::<u32>(words).map_err(e)?;
        let (mut hits, mut misses) = (0, 0);
        for &(p, c) in &sample {
            s.memcpy_htod(&mark, &mut pools[p].slice_mut(c * 8..c * 8 + 8))
                .map_err(e)?;
            s.memset_zeros(&mut scratch).map_err(e)?;
            probe
                .run(d, &pools[0], &pools[1], &mut scratch)
                .map_err(|x| x.to_string())?;
            let got: Vec<u32> = s.clone_dtoh(&scratch).map_err(e)?;
            s.memcpy_htod(&[0u16; 8], &mut pools[p].slice_mut(c * 8..c * 8 + 8))
                .map_err(e)?;
            let readers = got.iter().filter(|&&w| w != 0).count() as u32;
            if readers != expect[c] {
                return Err(format!(
                    "{cut:?} cut: {} pool chunk {c}: read by {readers} threads, expected {}",
                    ["K", "V"][p],
                    expect[c]
                ));
            }
            if readers == 1 {
                hits += 1
            } else {
                misses += 1
            }
        }
        if hits == 0 || misses == 0 {
            return Err(format!(
                "{cut:?} cut: sample has {hits} read and {misses} unread chunks"
            ));
        }
    }
    Ok(Outcome::Pass)
}
