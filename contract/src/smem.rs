//! Shared-memory plans: every byte offset a kernel uses in dynamic shared memory comes from here.
//! Plans are `const fn`s of the tile shape, so the host (launch size) and the device (offsets)
//! derive them from the same numbers.

/// Round `x` up to a multiple of `align` (a power of two).
pub const fn align_up(x: u32, align: u32) -> u32 {
    (x + align - 1) & !(align - 1)
}

/// Shared-memory plan of the primitive self-tests: one 8 KiB scratch region.
pub const PRIMITIVE_TEST_SMEM_BYTES: u32 = 8192;
