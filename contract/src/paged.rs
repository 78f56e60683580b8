//! Paged KV-cache address math, shared by the host validator, the CPU reference and the kernels.
//!
//! A K (or V) pool is `[num_pages, page_size, kv_heads, head_dim]`, row-major ("NHD" pages): the
//! `head_dim` elements of one (token, kv head) are contiguous, one token's heads are contiguous,
//! and one page holds `page_size` consecutive tokens of one request. A request's token `t` lives
//! in page `page_table[t / page_size]`, slot `t % page_size`.

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
}

impl PagedKvLayout {
    /// Elements between consecutive tokens of one page.
    pub const fn token_stride_elems(&self) -> u64 {
        self.kv_heads as u64 * self.head_dim as u64
    }
    /// Elements in one page.
    pub const fn page_stride_elems(&self) -> u64 {
        self.page_size_tokens as u64 * self.token_stride_elems()
    }
    /// Which entry of the request's page table holds token `t`, and its slot in that page.
    #[inline(always)]
    pub const fn locate(&self, token: u32) -> (u32, u32) {
        (token / self.page_size_tokens, token % self.page_size_tokens)
    }
    /// Element offset of the row (`page_id`, `slot`, `kv_head`) in the pool.
    #[inline(always)]
    pub const fn row_offset_elems(&self, page_id: u32, slot: u32, kv_head: u32) -> u64 {
        page_id as u64 * self.page_stride_elems()
            + slot as u64 * self.token_stride_elems()
            + kv_head as u64 * self.head_dim as u64
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
        };
        assert_eq!(l.locate(7), (2, 1));
        assert_eq!(l.row_offset_elems(5, 1, 1), 5 * 24 + 8 + 4);
        assert_eq!(l.pages_for(0), 0);
        assert_eq!(l.pages_for(3), 1);
        assert_eq!(l.pages_for(4), 2);
    }
}
