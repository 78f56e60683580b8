//! Helpers for benchmarks: the streaming-read bandwidth probe (the "read ceiling" every decode
//! number is reported against) and the paged read probe (the same loads through a page table,
//! cut as a decode plan cuts them); kernels in `kernels-gpu/src/kernels/bench.rs`.

use crate::device::Device;
use crate::error::{Error, Result};
use cudarc::driver::CudaSlice;
use ferroflash_contract::params::{DecodeWork, PagedReadParams};

pub use crate::launch::read_probe;

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
}

impl PagedReadProbe {
    /// Threads per SM (2048, the most an SM holds; eight 16-byte loads in flight each: 256 KiB
    /// per SM), shared by the CTAs one wave puts on an SM.
    pub const THREADS_PER_SM: u32 = 2048;

    /// Validate `work` (a plan's work list) against the page table (`page_indptr`,
    /// `page_indices`) and upload both. `row_bytes`: bytes of one (token, kv head) row; it and
    /// `page_size` must be powers of two (16 bytes or more for the row). The
    /// CTAs get `THREADS_PER_SM / ceil(CTAs / SMs)` threads (at most 1024), so the grid is one
    /// wave.
    pub fn new(
        dev: &Device,
        work: &[DecodeWork],
        page_indptr: &[u32],
        page_indices: &[u32],
        page_size: u32,
        kv_heads: u32,
        row_bytes: u32,
    ) -> Result<PagedReadProbe> {
        let bad = |why: String| Error::InvalidArgument {
            name: "paged read probe",
            why,
        };
        // The kernel addresses with shifts: page size and 16-byte chunks per row are powers of two.
        if !page_size.is_power_of_two()
            || kv_heads == 0
            || row_bytes % 16 != 0
            || !(row_bytes / 16).is_power_of_two()
        {
            return Err(bad(format!(
                "page size {page_size}, kv heads {kv_heads}, row bytes {row_bytes}"
            )));
        }
        let mut items = Vec::with_capacity(work.len() * PagedReadParams::ITEM_WORDS);
        for w in work {
            let r = w.request as usize;
            let (lo, hi) = match (page_indptr.get(r), page_indptr.get(r + 1)) {
                (Some(&lo), Some(&hi)) if lo <= hi && hi as usize <= page_indices.len() => (lo, hi),
                _ => return Err(bad(format!("request {r} outside the page table"))),
            };
            let pages = w.kv_end.div_ceil(page_size);
            if w.kv_start > w.kv_end || w.kv_head >= kv_heads || pages > hi - lo {
                return Err(bad(format!("work item {w:?} outside its pages")));
            }
            items.extend([lo, w.kv_head, w.kv_start, w.kv_end]);
        }
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
            row_chunks: row_bytes / 16,
            ctas: work.len() as u32,
            threads,
            pages,
        })
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
