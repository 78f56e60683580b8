//! Paged KV-cache address math, shared by the host validator, the CPU reference and the kernels.
//!
//! A K (or V) pool holds `num_pages` pages of `page_size` consecutive tokens of one request, in
//! one of two row-major layouts ([`KvLayout`]):
//! - "NHD" `[num_pages, page_size, kv_heads, head_dim]`: one token's heads are contiguous, so one
//!   kv head's rows in a page are `kv_heads * head_dim` elements apart;
//! - "HND" `[num_pages, kv_heads, page_size, head_dim]`: one kv head's rows of a page are
//!   contiguous (`page_size * head_dim` elements), which a decode CTA reading one kv head gets as
//!   one long run per page (See Note [kv layout] in docs/DESIGN.md).
//!
//! Either way the `head_dim` elements of one (token, kv head) row are contiguous, and a request's
//! token `t` lives in page `page_table[t / page_size]`, slot `t % page_size`.

/// Order of the token and kv-head axes inside a page (the names of FlashInfer's `kv_layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum KvLayout {
    /// `[num_pages, page_size, kv_heads, head_dim]`.
    #[default]
    Nhd = 0,
    /// `[num_pages, kv_heads, page_size, head_dim]`.
    Hnd = 1,
}

/// Geometry of one K or V page pool. All sizes in elements unless the name says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct PagedKvLayout {
    /// Tokens per page (any value >= 1).
    pub page_size_tokens: u32,
    /// KV heads per token.
    pub kv_heads: u32,
    /// Elements per (token, head) row.
    pub head_dim: u32,
    /// Axis order inside a page.
    pub layout: KvLayout,
}

impl PagedKvLayout {
    /// Rows (of `head_dim` elements) in one page.
    pub const fn page_stride_rows(&self) -> u64 {
        self.page_size_tokens as u64 * self.kv_heads as u64
    }
    /// Rows between consecutive tokens (slots) of one kv head in a page.
    pub const fn slot_stride_rows(&self) -> u32 {
        match self.layout {
            KvLayout::Nhd => self.kv_heads,
            KvLayout::Hnd => 1,
        }
    }
    /// Rows between consecutive kv heads of one slot in a page.
    pub const fn head_stride_rows(&self) -> u32 {
        match self.layout {
            KvLayout::Nhd => 1,
            KvLayout::Hnd => self.page_size_tokens,
        }
    }
    /// Elements in one page.
    pub const fn page_stride_elems(&self) -> u64 {
        self.page_stride_rows() * self.head_dim as u64
    }
    /// Which entry of the request's page table holds token `t`, and its slot in that page.
    #[inline(always)]
    pub const fn locate(&self, token: u32) -> (u32, u32) {
        (token / self.page_size_tokens, token % self.page_size_tokens)
    }
    /// Row index (in units of `head_dim` elements) of (`page_id`, `slot`, `kv_head`) in the pool.
    #[inline(always)]
    pub const fn row_index(&self, page_id: u32, slot: u32, kv_head: u32) -> u64 {
        page_id as u64 * self.page_stride_rows()
            + slot as u64 * self.slot_stride_rows() as u64
            + kv_head as u64 * self.head_stride_rows() as u64
    }
    /// Element offset of the row (`page_id`, `slot`, `kv_head`) in the pool.
    #[inline(always)]
    pub const fn row_offset_elems(&self, page_id: u32, slot: u32, kv_head: u32) -> u64 {
        self.row_index(page_id, slot, kv_head) * self.head_dim as u64
    }
    /// The kv head that pool element `elem` belongs to.
    pub const fn kv_head_of_elem(&self, elem: u64) -> u32 {
        let row = elem / self.head_dim as u64;
        match self.layout {
            KvLayout::Nhd => (row % self.kv_heads as u64) as u32,
            KvLayout::Hnd => ((row / self.page_size_tokens as u64) % self.kv_heads as u64) as u32,
        }
    }
    /// Pages needed to hold `kv_len_tokens` tokens.
    pub const fn pages_for(&self, kv_len_tokens: u32) -> u32 {
        kv_len_tokens.div_ceil(self.page_size_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn offsets() {
        let l = PagedKvLayout {
            page_size_tokens: 3,
            kv_heads: 2,
            head_dim: 4,
            layout: KvLayout::Nhd,
        };
        assert_eq!(l.locate(7), (2, 1));
        assert_eq!(l.row_offset_elems(5, 1, 1), 5 * 24 + 8 + 4);
        assert_eq!(l.pages_for(0), 0);
        assert_eq!(l.pages_for(3), 1);
        assert_eq!(l.pages_for(4), 2);
        // HND: page 5, head 1 (3 rows of 4 per head), slot 1.
        let h = PagedKvLayout {
            layout: KvLayout::Hnd,
            ..l
        };
        assert_eq!(h.row_offset_elems(5, 1, 1), 5 * 24 + 12 + 4);
        assert_eq!(h.page_stride_elems(), l.page_stride_elems());
    }

    /// Both layouts are bijections from (page, slot, head) onto the pool's rows, and
    /// `kv_head_of_elem` inverts the head.
    #[test]
    fn layouts_are_bijections() {
        for layout in [KvLayout::Nhd, KvLayout::Hnd] {
            for (page_size, kv_heads) in [(1, 1), (3, 2), (16, 8), (5, 3)] {
                let l = PagedKvLayout {
                    page_size_tokens: page_size,
                    kv_heads,
                    head_dim: 8,
                    layout,
                };
                let pages = 4u32;
                let n = (pages * page_size * kv_heads) as usize;
                let mut seen = [false; 512];
                for page in 0..pages {
                    for slot in 0..page_size {
                        for head in 0..kv_heads {
                            let row = l.row_index(page, slot, head);
                            assert!(row / l.page_stride_rows() == page as u64);
                            assert!(!seen[row as usize], "{layout:?} row {row} twice");
                            seen[row as usize] = true;
                            let e = l.row_offset_elems(page, slot, head) + 7;
                            assert_eq!(l.kv_head_of_elem(e), head);
                        }
                    }
                }
                assert!(seen[..n].iter().all(|&s| s));
            }
        }
    }
}
