//! Helpers for benchmarks: the streaming-read bandwidth probe (the "read ceiling" every decode
//! number is reported against) and the paged read probe (the same loads through a page table,
//! cut as a decode plan cuts them); kernels in `kernels-gpu/src/kernels/bench.rs`.

use crate::device::Device;
use crate::error::{Error, Result};
use cudarc::driver::CudaSlice;
use ferroflash_contract::params::{DecodeWork, PagedReadParams};

pub use crate::launch::read_probe;

/// The pools' shape as the probe addresses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolShape {
    /// Tokens per page (a power of two).
    pub page_size: u32,
    /// KV heads.
    pub kv_heads: u32,
    /// Bytes of one (token, kv head) row (a power of two, 16 or more).
    pub row_bytes: u32,
}

/// How the paged read probe cuts the bytes into CTAs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeCut {
    /// As the plan: each CTA reads one kv head's rows of its key range (256-byte pieces of a
    /// page at bf16 d128).
    KvHead,
    /// Each plan item's key range in `kv_heads` near-equal parts, one per CTA, each reading
    /// every kv head of its tokens: whole NHD pages (a page's K or V is contiguous). The same
    /// CTAs and bytes per CTA as the plan's cut.
    Token,
}

/// The paged read probe of one plan and page table: each CTA reads the K and V rows of one work
/// item's key range and kv head, and nothing else happens (`ferroflash bench --paged-probe`).
pub struct PagedReadProbe {
    pub(crate) ids: CudaSlice<u32>,
    pub(crate) items: CudaSlice<u32>,
    pub(crate) page_size: u32,
    pub(crate) kv_heads: u32,
    pub(crate) row_chunks: u32,
    ctas: u32,
    threads: u32,
    pages: usize,
    pub(crate) mode: u32,
}

impl PagedReadProbe {
    /// Threads per SM (2048, the most an SM holds; eight 16-byte loads in flight each: 256 KiB
    /// per SM), shared by the CTAs one wave puts on an SM.
    pub const THREADS_PER_SM: u32 = 2048;

    /// Validate `work` (a plan's work list) against the page table (`page_indptr`,
    /// `page_indices`) and upload both. The
    /// CTAs get `THREADS_PER_SM / ceil(CTAs / SMs)` threads (at most 1024), so the grid is one
    /// wave.
    pub fn new(
        dev: &Device,
        cut: ProbeCut,
        work: &[DecodeWork],
        page_indptr: &[u32],
        page_indices: &[u32],
        shape: PoolShape,
    ) -> Result<PagedReadProbe> {
        let (items, kv_heads, row_chunks) =
            probe_items(cut, work, page_indptr, page_indices.len(), shape)?;
        let page_size = shape.page_size;
        let pages = page_indices
            .iter()
            .map(|&p| p as usize + 1)
            .max()
            .unwrap_or(0);
        let per_sm = (work.len() as u32)
            .div_ceil(dev.caps().sm_count.max(1))
            .max(1);
        let threads = (Self::THREADS_PER_SM / per_sm / 32 * 32).clamp(32, 1024);
        let s = dev.stream();
        let up = |v: &[u32]| {
            s.clone_htod(if v.is_empty() { &[0u32][..] } else { v })
                .map_err(Error::driver("paged read probe upload"))
        };
        Ok(PagedReadProbe {
            ids: up(page_indices)?,
            items: up(&items)?,
            page_size,
            kv_heads,
            row_chunks,
            ctas: work.len() as u32,
            threads,
            pages,
            mode: Self::DEFAULT_MODE,
        })
    }

    /// The xor a thread's loads must equal for it to write its scratch word: a value real data
    /// practically never gives, so almost nothing is written.
    pub const DEFAULT_MODE: u32 = 0x9e37_79b9;

    /// The same probe writing the scratch word of every thread whose loads xor to `mode` (a
    /// test places one 16-byte chunk `[mode, 0, 0, 0]` in zeroed pools and counts the threads
    /// that read it).
    pub fn with_mode(mut self, mode: u32) -> Self {
        self.mode = mode;
        self
    }

    /// CTAs of one launch (one per work item).
    pub fn ctas(&self) -> u32 {
        self.ctas
    }

    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Bytes each pool must hold for the page ids given.
    pub fn pool_bytes(&self) -> usize {
        self.pages * (self.page_size * self.kv_heads * self.row_chunks * 16) as usize
    }

    /// One pass over both pools (`k`, `v`: device pools of the layout
    /// `[pages, page_size, kv_heads, row]`), on `dev`'s stream. `scratch` holds one word per
    /// thread (`ctas() * threads()`).
    pub fn run<T: cudarc::driver::DeviceRepr>(
        &self,
        dev: &Device,
        k: &CudaSlice<T>,
        v: &CudaSlice<T>,
        scratch: &mut CudaSlice<u32>,
    ) -> Result<()> {
        use cudarc::driver::DevicePtr;
        let s = dev.stream();
        let bytes = k.len().min(v.len()) * std::mem::size_of::<T>();
        let (ka, _g1) = k.device_ptr(s);
        let (va, _g2) = v.device_ptr(s);
        crate::launch::paged_read_probe(dev, self, ka, va, bytes, scratch)
    }
}

/// The probe's items (`ITEM_WORDS` per CTA), and the kv heads and 16-byte chunks per row the
/// kernel addresses with, for `work` cut as `cut`; every item checked against the page table
/// (`page_indptr` into `num_indices` entries). Pure (see [`PagedReadProbe::new`]).
fn probe_items(
    cut: ProbeCut,
    work: &[DecodeWork],
    page_indptr: &[u32],
    num_indices: usize,
    shape: PoolShape,
) -> Result<(Vec<u32>, u32, u32)> {
    let PoolShape {
        page_size,
        kv_heads,
        row_bytes,
    } = shape;
    let bad = |why: String| Error::InvalidArgument {
        name: "paged read probe",
        why,
    };
    // The kernel addresses with shifts: page size and 16-byte chunks per row are powers of two.
    let (heads_read, row_read) = match cut {
        ProbeCut::KvHead => (kv_heads, row_bytes),
        ProbeCut::Token => (1, kv_heads.saturating_mul(row_bytes)),
    };
    if !page_size.is_power_of_two()
        || kv_heads == 0
        || !row_read.is_multiple_of(16)
        || !(row_read / 16).is_power_of_two()
    {
        return Err(bad(format!(
            "page size {page_size}, kv heads {kv_heads}, row bytes {row_bytes}: powers of two needed"
        )));
    }
    let mut items = Vec::with_capacity(work.len() * PagedReadParams::ITEM_WORDS);
    for w in work {
        let r = w.request as usize;
        let (lo, hi) = match (page_indptr.get(r), page_indptr.get(r + 1)) {
            (Some(&lo), Some(&hi)) if lo <= hi && hi as usize <= num_indices => (lo, hi),
            _ => return Err(bad(format!("request {r} outside the page table"))),
        };
        if w.kv_start > w.kv_end || w.kv_head >= kv_heads || w.kv_end.div_ceil(page_size) > hi - lo
        {
            return Err(bad(format!("work item {w:?} outside its pages")));
        }
        match cut {
            ProbeCut::KvHead => items.extend([lo, w.kv_head, w.kv_start, w.kv_end]),
            ProbeCut::Token => {
                // Part `kv_head` of the range, every kv head of its tokens.
                let n = (w.kv_end - w.kv_start) as u64;
                let part = |h: u32| w.kv_start + (n * h as u64 / kv_heads as u64) as u32;
                items.extend([lo, 0, part(w.kv_head), part(w.kv_head + 1)]);
            }
        }
    }
    Ok((items, heads_read, row_read / 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(page_size: u32, kv_heads: u32, row_bytes: u32) -> PoolShape {
        PoolShape {
            page_size,
            kv_heads,
            row_bytes,
        }
    }

    fn item(request: u32, kv_head: u32, kv_start: u32, kv_end: u32) -> DecodeWork {
        DecodeWork {
            request,
            kv_head,
            kv_start,
            kv_end,
            ..DecodeWork::default()
        }
    }

    /// Two requests (100 and 37 keys, pages of 16), two kv heads, the first split in two.
    fn plan() -> (Vec<DecodeWork>, Vec<u32>) {
        let work = vec![
            item(0, 0, 0, 64),
            item(0, 1, 0, 64),
            item(0, 0, 64, 100),
            item(0, 1, 64, 100),
            item(1, 0, 0, 37),
            item(1, 1, 0, 37),
        ];
        (work, vec![0, 7, 10])
    }

    #[test]
    fn kv_head_cut_mirrors_the_plan() {
        let (work, indptr) = plan();
        let (items, heads, chunks) =
            probe_items(ProbeCut::KvHead, &work, &indptr, 10, sh(16, 2, 256)).unwrap();
        assert_eq!((heads, chunks), (2, 16));
        let want: Vec<u32> = work
            .iter()
            .flat_map(|w| [indptr[w.request as usize], w.kv_head, w.kv_start, w.kv_end])
            .collect();
        assert_eq!(items, want);
    }

    #[test]
    fn token_cut_reads_every_token_of_every_head_once() {
        let (work, indptr) = plan();
        let (items, heads, chunks) =
            probe_items(ProbeCut::Token, &work, &indptr, 10, sh(16, 2, 256)).unwrap();
        assert_eq!((heads, chunks), (1, 32), "rows of both heads");
        assert_eq!(items.len(), work.len() * PagedReadParams::ITEM_WORDS);
        // Per request, the parts tile its keys exactly once.
        for (r, len) in [(0u32, 100u32), (1, 37)] {
            let mut covered = vec![0u32; len as usize];
            for it in items.chunks(PagedReadParams::ITEM_WORDS) {
                if it[0] == indptr[r as usize] {
                    assert_eq!(it[1], 0);
                    (it[2]..it[3]).for_each(|t| covered[t as usize] += 1);
                }
            }
            assert!(covered.iter().all(|&c| c == 1), "request {r}: {covered:?}");
        }
    }

    #[test]
    fn bad_items_and_shapes_are_refused() {
        let (work, indptr) = plan();
        let ok = |w: &[DecodeWork], ps: u32, heads: u32, rb: u32| {
            probe_items(ProbeCut::KvHead, w, &indptr, 10, sh(ps, heads, rb)).is_ok()
        };
        assert!(ok(&work, 16, 2, 256));
        assert!(!ok(&work, 24, 2, 256), "page size not a power of two");
        assert!(!ok(&work, 16, 2, 192), "row chunks not a power of two");
        assert!(!ok(&work, 16, 2, 8), "row under 16 bytes");
        assert!(!ok(&work, 16, 1, 256), "kv head out of range");
        assert!(
            !ok(&[item(2, 0, 0, 16)], 16, 2, 256),
            "request outside the table"
        );
        assert!(
            !ok(&[item(1, 0, 0, 49)], 16, 2, 256),
            "keys past the request's pages"
        );
        assert!(!ok(&[item(0, 0, 65, 64)], 16, 2, 256), "reversed range");
        assert!(
            probe_items(ProbeCut::Token, &work, &indptr, 10, sh(16, 3, 256)).is_err(),
            "token rows of 3 heads are not a power of two"
        );
        assert!(
            probe_items(ProbeCut::KvHead, &work, &indptr, 9, sh(16, 2, 256)).is_err(),
            "indptr past the indices"
        );
    }
}
