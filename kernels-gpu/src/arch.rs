//! The device prelude: the only module with `asm!`. One function per PTX instruction form, named
//! after it, each with its contract and a `# Safety` section. PTX ISA references are to the
//! "Parallel Thread Execution ISA" manual, version 8.x/9.0, section names quoted.
//!
//! Warp-collective forms (`shfl`, `ldmatrix`, `mma`, `wgmma`, `tcgen05`) must be reached in
//! warp-uniform (warpgroup-uniform for `wgmma`) control flow: rustc does not mark inline-asm call
//! sites convergent, so callers keep them out of divergent branches.
//!
//! Arch gating: `mma` e4m3 and fp8 conversions need sm_89 (`cfg(target_feature = "sm_89")`),
//! `wgmma` needs sm_90a, `tcgen05` needs sm_100a. Each gated function exists only in the PTX
//! builds whose target has the feature, so calling one from code built for an older arch is a
//! compile error, not a silent fallback.
#![allow(clippy::missing_safety_doc)]

use core::arch::asm;
use core::arch::nvptx;
use core::marker::PhantomData;

// ------------------------------------------------------------------------------------------------
// Address spaces as types
// ------------------------------------------------------------------------------------------------

/// A 32-bit `.shared::cta` address of a `T`. Shared-memory instructions take these; a generic or
/// global pointer cannot be passed where a shared address is expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Smem<T> {
    addr: u32,
    _t: PhantomData<*mut T>,
}

impl<T> Smem<T> {
    /// Wrap a raw shared address.
    #[inline(always)]
    pub const fn from_addr(addr: u32) -> Self {
        Smem { addr, _t: PhantomData }
    }
    /// The raw 32-bit shared address.
    #[inline(always)]
    pub const fn addr(self) -> u32 {
        self.addr
    }
    /// Address `n` elements further.
    #[inline(always)]
    pub const fn add(self, n: u32) -> Self {
        Smem::from_addr(self.addr + n * core::mem::size_of::<T>() as u32)
    }
    /// Address `bytes` further, as another element type.
    #[inline(always)]
    pub const fn byte_add<U>(self, bytes: u32) -> Smem<U> {
        Smem::from_addr(self.addr + bytes)
    }
}

/// A global-memory address of a `T` (a 64-bit generic address that points into global memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Gmem<T> {
    addr: u64,
    _t: PhantomData<*mut T>,
}

impl<T> Gmem<T> {
    /// Wrap a device address received from the host.
    #[inline(always)]
    pub const fn from_addr(addr: u64) -> Self {
        Gmem { addr, _t: PhantomData }
    }
    /// The raw 64-bit address.
    #[inline(always)]
    pub const fn addr(self) -> u64 {
        self.addr
    }
    /// Address `n` elements further.
    #[inline(always)]
    pub const fn add(self, n: u64) -> Self {
        Gmem::from_addr(self.addr + n * core::mem::size_of::<T>() as u64)
    }
    /// Address `bytes` further, as another element type.
    #[inline(always)]
    pub const fn byte_add<U>(self, bytes: u64) -> Gmem<U> {
        Gmem::from_addr(self.addr + bytes)
    }
    /// As a raw pointer for ordinary loads and stores.
    #[inline(always)]
    pub const fn ptr(self) -> *mut T {
        self.addr as *mut T
    }
}

// ------------------------------------------------------------------------------------------------
// Special registers ("Special Registers")
// ------------------------------------------------------------------------------------------------

/// `%tid.x`.
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}
/// `%ntid.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_dim_x() }
}
/// `%ctaid.x`.
#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_x() }
}
/// `%ctaid.y`.
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_y() }
}
/// `%ctaid.z`.
#[inline(always)]
pub fn block_idx_z() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_z() }
}
/// `%nctaid.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_grid_dim_x() }
}
/// `%laneid`: the thread's lane in its warp, 0..32.
#[inline(always)]
pub fn lane_id() -> u32 {
    let r: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}
/// `x`, through an opaque `mov`: LLVM cannot hoist what is computed from the result out of a
/// loop (the asm is not `pure`), so per-tile address math is redone in the loop instead of
/// being held in registers across it.
#[inline(always)]
pub fn launder_u32(x: u32) -> u32 {
    let r: u32;
    // SAFETY: a register move has no preconditions.
    unsafe { asm!("mov.b32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(nomem, nostack)) };
    r
}
/// `%smid`: the SM this block runs on (diagnostics only; not stable across a launch).
#[inline(always)]
pub fn sm_id() -> u32 {
    let r: u32;
    // SAFETY: as above.
    unsafe { asm!("mov.u32 {r}, %smid;", r = out(reg32) r, options(nomem, nostack)) };
    r
}
/// `%globaltimer`: nanoseconds of a clock shared by all SMs (diagnostics only).
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    let r: u64;
    // SAFETY: as above; not `pure`: every read is a new time.
    unsafe { asm!("mov.u64 {r}, %globaltimer;", r = out(reg64) r, options(nomem, nostack)) };
    r
}

/// Abort the kernel (`trap`).
///
/// # Safety
/// Always safe to call; marked unsafe because it ends the launch with an error.
#[inline(always)]
pub unsafe fn trap() -> ! {
    // SAFETY: the caller accepts that the launch fails.
    unsafe { nvptx::trap() }
}

// ------------------------------------------------------------------------------------------------
// Dynamic shared memory and barriers
// ------------------------------------------------------------------------------------------------

/// The dynamic shared-memory window. Its alignment (128 B) becomes the `.align` of the PTX
/// `.extern .shared` array, which `cp.async` 16-B copies, `ldmatrix` and `wgmma` descriptors need.
#[repr(C, align(128))]
pub struct DynamicSmem([u8; 0]);

/// `cvta.to.shared.u64` + `cvt.u32.u64`: the 32-bit shared address of the dynamic window's
/// first byte. Its size is the launch's `sharedMemBytes`.
#[inline(always)]
pub fn dynamic_smem_base() -> Smem<u8> {
    let generic = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<DynamicSmem>();
    let s: u32;
    // SAFETY: `generic` is a generic address of shared memory, which cvta.to.shared accepts.
    unsafe {
        asm!(
            "{{ .reg .u64 t; cvta.to.shared.u64 t, {g}; cvt.u32.u64 {s}, t; }}",
            g = in(reg64) generic as u64,
            s = out(reg32) s,
            options(pure, nomem, nostack)
        )
    };
    Smem::from_addr(s)
}

/// `bar.sync 0`: all threads of the block meet here; orders their shared and global accesses.
///
/// # Safety
/// Every thread of the block must reach it the same number of times.
#[inline(always)]
pub unsafe fn bar_sync_all() {
    // SAFETY: forwarded to the caller.
    unsafe { nvptx::_syncthreads() }
}

/// `bar.sync id, count`: a named barrier for `count` threads (a multiple of 32).
///
/// # Safety
/// Exactly `count` threads (whole warps) must use barrier `id` (1..16) at each phase.
#[inline(always)]
pub unsafe fn bar_sync_named(id: u32, count: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("bar.sync {id}, {n};", id = in(reg32) id, n = in(reg32) count, options(nostack)) };
}

/// `barrier.sync id, count` (no `.aligned`): a named barrier that threads may reach from
/// different instructions or divergent code (sm_70+), e.g. warps of different roles meeting once.
///
/// # Safety
/// Exactly `count` threads (whole warps) must use barrier `id` at each phase.
#[inline(always)]
pub unsafe fn barrier_sync_unaligned(id: u32, count: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("barrier.sync {id}, {n};", id = in(reg32) id, n = in(reg32) count, options(nostack)) };
}

/// `fence.proxy.async.shared::cta`: make this thread's generic-proxy shared stores visible to
/// the async proxy (wgmma, tcgen05, TMA) after the next barrier.
#[inline(always)]
pub fn fence_proxy_async_shared_cta() {
    // SAFETY: a fence has no preconditions.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
}

/// `griddepcontrol.wait` (sm_90+): block until the grids this one depends on (programmatic
/// dependent launch) have completed and their memory operations are visible. A no-op when the
/// grid was launched without the programmatic-serialization attribute.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn griddepcontrol_wait() {
    // SAFETY: waiting has no preconditions.
    unsafe { asm!("griddepcontrol.wait;", options(nostack)) };
}

/// `griddepcontrol.launch_dependents` (sm_90+): allow the dependent grid to be scheduled once
/// every CTA of this grid has issued it (or exited). Memory written after it is visible to the
/// dependent only after its `griddepcontrol.wait`.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn griddepcontrol_launch_dependents() {
    // SAFETY: a scheduling hint.
    unsafe { asm!("griddepcontrol.launch_dependents;", options(nostack)) };
}

// ------------------------------------------------------------------------------------------------
// Shared memory loads and stores
// ------------------------------------------------------------------------------------------------

/// `st.shared.u32 [addr], v`.
///
/// # Safety
/// `dst` must be a 4-byte aligned address inside the block's shared memory.
#[inline(always)]
pub unsafe fn st_shared_u32(dst: Smem<u32>, v: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.shared.u32 [{a}], {v};", a = in(reg32) dst.addr(), v = in(reg32) v, options(nostack)) };
}

/// `ld.shared.u32 v, [addr]`.
///
/// # Safety
/// `src` must be a 4-byte aligned address inside the block's shared memory.
#[inline(always)]
pub unsafe fn ld_shared_u32(src: Smem<u32>) -> u32 {
    let v: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.shared.u32 {v}, [{a}];", a = in(reg32) src.addr(), v = out(reg32) v, options(nostack, readonly)) };
    v
}

/// `ld.shared.v4.u32`: 16 bytes from shared memory.
///
/// # Safety
/// `src` must be 16-byte aligned inside the block's shared memory.
#[inline(always)]
pub unsafe fn ld_shared_v4_u32(src: Smem<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.shared.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg32) src.addr(), a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly))
    };
    [a, b, c, d]
}

/// `st.shared.v2.u32`: 8 bytes to shared memory.
///
/// # Safety
/// `dst` must be 8-byte aligned inside the block's shared memory.
#[inline(always)]
pub unsafe fn st_shared_v2_u32(dst: Smem<[u32; 2]>, v: [u32; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.shared.v2.u32 [{p}], {{{a}, {b}}};", p = in(reg32) dst.addr(), a = in(reg32) v[0], b = in(reg32) v[1], options(nostack)) };
}

/// `st.shared.v4.u32`: 16 bytes to shared memory.
///
/// # Safety
/// `dst` must be 16-byte aligned inside the block's shared memory.
#[inline(always)]
pub unsafe fn st_shared_v4_u32(dst: Smem<[u32; 4]>, v: [u32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.shared.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg32) dst.addr(), a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack))
    };
}

// ------------------------------------------------------------------------------------------------
// Global memory
// ------------------------------------------------------------------------------------------------

/// `ld.global.nc.v4.u32`: 16 bytes through the non-coherent (read-only) path.
///
/// # Safety
/// `src` must be 16-byte aligned, readable, and not written by any thread during the launch.
#[inline(always)]
pub unsafe fn ld_global_nc_v4_u32(src: Gmem<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg64) src.addr(), a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly, pure))
    };
    [a, b, c, d]
}

/// `ld.global.nc.u32`: 4 bytes through the non-coherent path.
///
/// # Safety
/// As [`ld_global_nc_v4_u32`] with 4-byte alignment.
#[inline(always)]
pub unsafe fn ld_global_nc_u32(src: Gmem<u32>) -> u32 {
    let v: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.u32 {v}, [{p}];", p = in(reg64) src.addr(), v = out(reg32) v, options(nostack, readonly, pure)) };
    v
}

/// `ld.global.v4.u32`: 16 bytes through the coherent path (for data another grid wrote, e.g.
/// after `griddepcontrol.wait`).
///
/// # Safety
/// `src` must be 16-byte aligned and readable.
#[inline(always)]
pub unsafe fn ld_global_v4_u32(src: Gmem<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg64) src.addr(), a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly))
    };
    [a, b, c, d]
}

/// `ld.global.u32`: 4 bytes through the coherent path.
///
/// # Safety
/// `src` must be 4-byte aligned and readable.
#[inline(always)]
pub unsafe fn ld_global_u32(src: Gmem<u32>) -> u32 {
    let v: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.u32 {v}, [{p}];", p = in(reg64) src.addr(), v = out(reg32) v, options(nostack, readonly)) };
    v
}

/// `st.global.v2.u32`: 8 bytes to global memory.
///
/// # Safety
/// `dst` must be 8-byte aligned and writable.
#[inline(always)]
pub unsafe fn st_global_v2_u32(dst: Gmem<[u32; 2]>, v: [u32; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.global.v2.u32 [{p}], {{{a}, {b}}};", p = in(reg64) dst.addr(), a = in(reg32) v[0], b = in(reg32) v[1], options(nostack)) };
}

/// `st.global.v4.u32`: 16 bytes to global memory.
///
/// # Safety
/// `dst` must be 16-byte aligned and writable.
#[inline(always)]
pub unsafe fn st_global_v4_u32(dst: Gmem<[u32; 4]>, v: [u32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) dst.addr(), a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack))
    };
}

// ------------------------------------------------------------------------------------------------
// cp.async ("Data Movement: cp.async"), sm_80+
// ------------------------------------------------------------------------------------------------

/// `cp.async.cg.shared.global [dst], [src], 16, src_bytes`: copy `src_bytes` (0..=16) bytes
/// from global to shared, zero-filling the rest of the 16 bytes, bypassing L1.
/// With `src_bytes == 0` nothing is read and 16 zero bytes are written.
///
/// # Safety
/// `dst` and `src` 16-byte aligned; `src..src+src_bytes` readable; `dst` not read until a
/// `cp.async.wait_group` covering this copy and a barrier.
#[inline(always)]
pub unsafe fn cp_async_cg_16_zfill(dst: Smem<[u32; 4]>, src: Gmem<[u32; 4]>, src_bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};",
            d = in(reg32) dst.addr(), s = in(reg64) src.addr(), n = in(reg32) src_bytes, options(nostack))
    };
}

/// `createpolicy.fractional.L2::evict_first.b64`: an L2 cache policy (fraction 1.0) that marks
/// the lines a load brings in as the first to evict, for data read once.
#[inline(always)]
pub fn createpolicy_l2_evict_first() -> u64 {
    let policy: u64;
    // SAFETY: creates a value in a register; no memory access.
    unsafe { asm!("createpolicy.fractional.L2::evict_first.b64 {p}, 1.0;", p = out(reg64) policy, options(nostack, nomem, pure)) };
    policy
}

/// `cp.async.cg.shared.global.L2::cache_hint [dst], [src], 16, src_bytes, policy`:
/// [`cp_async_cg_16_zfill`] under an L2 cache policy from [`createpolicy_l2_evict_first`].
///
/// # Safety
/// As [`cp_async_cg_16_zfill`].
#[inline(always)]
pub unsafe fn cp_async_cg_16_zfill_hint(dst: Smem<[u32; 4]>, src: Gmem<[u32; 4]>, src_bytes: u32, policy: u64) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.cg.shared.global.L2::cache_hint [{d}], [{s}], 16, {n}, {c};",
            d = in(reg32) dst.addr(), s = in(reg64) src.addr(), n = in(reg32) src_bytes, c = in(reg64) policy, options(nostack))
    };
}

/// `prefetch.global.L2 [addr]`: bring the 128-byte line of `addr` into L2 (a hint: nothing is
/// returned, nothing waits for it).
///
/// # Safety
/// `addr` must be a readable global address.
#[inline(always)]
pub unsafe fn prefetch_global_l2(addr: Gmem<u8>) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("prefetch.global.L2 [{p}];", p = in(reg64) addr.addr(), options(nostack, readonly)) };
}

/// `cp.async.ca.shared.global [dst], [src], 4`: copy 4 bytes global -> shared.
///
/// # Safety
/// `dst` (4-byte aligned, inside shared memory) and `src` (4 readable bytes, 4-byte aligned).
#[inline(always)]
pub unsafe fn cp_async_ca_4(dst: Smem<u32>, src: Gmem<u32>) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.ca.shared.global [{d}], [{s}], 4;",
            d = in(reg32) dst.addr(), s = in(reg64) src.addr(), options(nostack))
    };
}

/// `cp.async.cg.shared.global [dst], [src], 16`: copy 16 bytes global -> shared.
///
/// # Safety
/// As [`cp_async_cg_16_zfill`] with all 16 source bytes readable.
#[inline(always)]
pub unsafe fn cp_async_cg_16(dst: Smem<[u32; 4]>, src: Gmem<[u32; 4]>) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16;",
            d = in(reg32) dst.addr(), s = in(reg64) src.addr(), options(nostack))
    };
}

/// `cp.async.commit_group`: close the group of this thread's outstanding cp.async copies.
#[inline(always)]
pub fn cp_async_commit_group() {
    // SAFETY: committing has no preconditions.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) };
}

/// `cp.async.wait_group N`: wait until at most `N` of this thread's committed groups are pending.
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    // SAFETY: waiting has no preconditions.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
}

// ------------------------------------------------------------------------------------------------
// Warp shuffles ("shfl.sync")
// ------------------------------------------------------------------------------------------------

/// `shfl.sync.bfly.b32`: value of lane `lane ^ lane_mask`, full warp.
///
/// # Safety
/// All 32 lanes must execute it together (warp-uniform control flow).
#[inline(always)]
pub unsafe fn shfl_sync_bfly_b32(v: u32, lane_mask: u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("shfl.sync.bfly.b32 {r}, {v}, {m}, 0x1f, 0xffffffff;",
            r = out(reg32) r, v = in(reg32) v, m = in(reg32) lane_mask, options(nostack, nomem))
    };
    r
}

/// `shfl.sync.idx.b32`: value of lane `src_lane` (0..32), full warp.
///
/// # Safety
/// All 32 lanes must execute it together.
#[inline(always)]
pub unsafe fn shfl_sync_idx_b32(v: u32, src_lane: u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("shfl.sync.idx.b32 {r}, {v}, {l}, 0x1f, 0xffffffff;",
            r = out(reg32) r, v = in(reg32) v, l = in(reg32) src_lane, options(nostack, nomem))
    };
    r
}

// ------------------------------------------------------------------------------------------------
// ldmatrix ("Warp-level matrix load instruction: ldmatrix")
// ------------------------------------------------------------------------------------------------

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8x8 b16 matrices. Lanes 8i..8i+7 give the
/// row addresses (16 B each) of matrix i; lane l receives in word i the elements
/// (row l/4, cols 2(l%4), 2(l%4)+1) of matrix i.
///
/// # Safety
/// Full warp; each row address 16-byte aligned in shared memory.
#[inline(always)]
pub unsafe fn ldmatrix_x4_b16(row: Smem<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg32) row.addr(), a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly))
    };
    [a, b, c, d]
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: as [`ldmatrix_x4_b16`], each matrix
/// transposed: lane l receives (rows 2(l%4), 2(l%4)+1; col l/4) of matrix i.
///
/// # Safety
/// As [`ldmatrix_x4_b16`].
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans_b16(row: Smem<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg32) row.addr(), a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly))
    };
    [a, b, c, d]
}

// ------------------------------------------------------------------------------------------------
// movmatrix ("Warp-level matrix transpose instruction: movmatrix")
// ------------------------------------------------------------------------------------------------

/// `movmatrix.sync.aligned.m8n8.trans.b16`: transpose one 8x8 b16 matrix held in the warp's
/// registers. Lane l holds (row l/4, cols 2(l%4), 2(l%4)+1) of the input and receives the same
/// positions of its transpose, i.e. (rows 2(l%4), 2(l%4)+1; col l/4) of the input (sm_75+).
///
/// # Safety
/// Full warp, uniform control flow.
#[inline(always)]
pub unsafe fn movmatrix_trans_b16(x: u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("movmatrix.sync.aligned.m8n8.trans.b16 {r}, {x};",
            r = out(reg32) r, x = in(reg32) x, options(nostack, nomem))
    };
    r
}

// ------------------------------------------------------------------------------------------------
// mma.sync ("Warp-level matrix multiply-accumulate instructions")
// ------------------------------------------------------------------------------------------------
// Fragment layouts (g = lane / 4, t = lane % 4), m16n8k16 16-bit:
//   A (16x16, row): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B (16x8, col):  b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C/D (16x8 f32): c0 c1 (g, 2t..2t+1), c2 c3 (g+8, 2t..2t+1)
// m16n8k32 8-bit: the same with 4 elements per word: a0 (g, 4t..4t+3), a1 (g+8, 4t..),
//   a2 (g, 4t+16..), a3 (g+8, 4t+16..); b0 (k 4t..4t+3, n g), b1 (k 4t+16.., n g).

macro_rules! mma_m16n8_f32 {
    ($name:ident, $form:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// Full warp, warp-uniform control flow.
        #[inline(always)]
        pub unsafe fn $name(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
            let (d0, d1, d2, d3): (f32, f32, f32, f32);
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(concat!($form, " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"),
                    d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                    b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                    c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                    options(nostack, nomem, pure))
            };
            [d0, d1, d2, d3]
        }
    };
}

mma_m16n8_f32!(
    mma_m16n8k16_bf16_f32,
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "`mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: D = A·B + C, bf16 inputs, f32 accumulate."
);
mma_m16n8_f32!(
    mma_m16n8k16_f16_f32,
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`: D = A·B + C, f16 inputs, f32 accumulate."
);
#[cfg(target_feature = "sm_89")]
mma_m16n8_f32!(
    mma_m16n8k32_e4m3_f32,
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
    "`mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32` (sm_89+): D = A·B + C, e4m3 inputs."
);

// ------------------------------------------------------------------------------------------------
// Conversions and special functions
// ------------------------------------------------------------------------------------------------

/// `cvt.rn.f16x2.e4m3x2` (sm_89+): two e4m3 codes (low byte -> low half) to two f16 (exact).
#[cfg(target_feature = "sm_89")]
#[inline(always)]
pub fn cvt_rn_f16x2_e4m3x2(codes: u16) -> u32 {
    let r: u32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.rn.f16x2.e4m3x2 {r}, {c};", r = out(reg32) r, c = in(reg16) codes, options(pure, nomem, nostack)) };
    r
}

/// `cvt.rn.f16x2.e5m2x2` (sm_89+): two e5m2 codes to two f16 (exact).
#[cfg(target_feature = "sm_89")]
#[inline(always)]
pub fn cvt_rn_f16x2_e5m2x2(codes: u16) -> u32 {
    let r: u32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.rn.f16x2.e5m2x2 {r}, {c};", r = out(reg32) r, c = in(reg16) codes, options(pure, nomem, nostack)) };
    r
}

/// `cvt.f32.f16`: one f16 (bits) to f32 (exact).
#[inline(always)]
pub fn cvt_f32_f16(h: u16) -> f32 {
    let r: f32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.f32.f16 {r}, {h};", r = out(reg32) r, h = in(reg16) h, options(pure, nomem, nostack)) };
    r
}

/// `mul.rn.f16x2`: lane-wise f16 product (subnormals kept).
#[inline(always)]
pub fn mul_rn_f16x2(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only arithmetic.
    unsafe { asm!("mul.rn.f16x2 {r}, {a}, {b};", r = out(reg32) r, a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack)) };
    r
}

/// `prmt.b32 d, a, b, sel`: byte permute; result byte `i` is byte `(sel >> 4 i) & 7` of the
/// eight bytes `{b, a}` (a = bytes 0-3, b = bytes 4-7).
#[inline(always)]
pub fn prmt_b32(a: u32, b: u32, sel: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only.
    unsafe { asm!("prmt.b32 {r}, {a}, {b}, {s};", r = out(reg32) r, a = in(reg32) a, b = in(reg32) b, s = in(reg32) sel, options(pure, nomem, nostack)) };
    r
}

/// `cvt.rn.bf16x2.f32 d, hi, lo`: round two f32 to bf16 (RNE), `lo` in the low half.
#[inline(always)]
pub fn cvt_rn_bf16x2_f32(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.rn.bf16x2.f32 {r}, {h}, {l};", r = out(reg32) r, h = in(reg32) hi, l = in(reg32) lo, options(pure, nomem, nostack)) };
    r
}

/// `cvt.rn.f16x2.f32 d, hi, lo`: round two f32 to f16 (RNE), `lo` in the low half.
#[inline(always)]
pub fn cvt_rn_f16x2_f32(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.rn.f16x2.f32 {r}, {h}, {l};", r = out(reg32) r, h = in(reg32) hi, l = in(reg32) lo, options(pure, nomem, nostack)) };
    r
}

/// `ex2.approx.ftz.f32`: 2^x (max rel. error 2^-22; exact for small integer x).
#[inline(always)]
pub fn ex2_approx_ftz_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only.
    unsafe { asm!("ex2.approx.ftz.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack)) };
    r
}

/// `fma.rn.f32`: a * b + c, rounded once.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only.
    unsafe { asm!("fma.rn.f32 {r}, {a}, {b}, {c};", r = out(reg32) r, a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, options(pure, nomem, nostack)) };
    r
}

/// `lg2.approx.ftz.f32`: log2(x).
#[inline(always)]
pub fn lg2_approx_ftz_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only.
    unsafe { asm!("lg2.approx.ftz.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack)) };
    r
}

/// `tanh.approx.f32` (sm_75+): tanh(x), for logit softcapping.
#[inline(always)]
pub fn tanh_approx_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only.
    unsafe { asm!("tanh.approx.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack)) };
    r
}

/// `rcp.approx.ftz.f32`: 1/x.
#[inline(always)]
pub fn rcp_approx_ftz_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only.
    unsafe { asm!("rcp.approx.ftz.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack)) };
    r
}

// ------------------------------------------------------------------------------------------------
// mbarrier ("Parallel Synchronization and Communication Instructions: mbarrier")
// ------------------------------------------------------------------------------------------------

/// `mbarrier.init.shared::cta.b64 [bar], count`.
///
/// # Safety
/// `bar` 8-byte aligned shared memory, not in use; made visible with a barrier before use.
#[inline(always)]
pub unsafe fn mbarrier_init_shared_b64(bar: Smem<u64>, count: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mbarrier.init.shared::cta.b64 [{b}], {n};", b = in(reg32) bar.addr(), n = in(reg32) count, options(nostack)) };
}

/// `mbarrier.arrive.shared::cta.b64`: one arrival on `bar` (release semantics at CTA scope:
/// this thread's prior memory accesses are visible to a thread whose wait observes the phase).
///
/// # Safety
/// `bar` an initialised mbarrier whose current phase expects this arrival.
#[inline(always)]
pub unsafe fn mbarrier_arrive_shared_b64(bar: Smem<u64>) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("{{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [{b}]; }}", b = in(reg32) bar.addr(), options(nostack)) };
}

/// `cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]`: arrive on `bar` once every
/// `cp.async` this thread issued so far has completed (`.noinc`: the arrival counts against the
/// count `bar` was initialised with). The copies' data is visible to threads whose wait on `bar`
/// observes the phase.
///
/// # Safety
/// `bar` an initialised mbarrier whose phase expects this arrival.
#[inline(always)]
pub unsafe fn cp_async_mbarrier_arrive_noinc_shared_b64(bar: Smem<u64>) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [{b}];", b = in(reg32) bar.addr(), options(nostack)) };
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], tx`: raise the phase's expected
/// transaction bytes by `tx` (0 allowed), then arrive once. A phase completes when every
/// expected arrival came and the bytes of every `complete_tx` (TMA copies) have landed.
///
/// # Safety
/// `bar` an initialised mbarrier whose current phase expects this arrival and, when `tx > 0`,
/// copies of `tx` bytes that signal it.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx_shared_b64(bar: Smem<u64>, tx: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!(
            "{{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [{b}], {tx}; }}",
            b = in(reg32) bar.addr(), tx = in(reg32) tx, options(nostack)
        )
    };
}

/// `cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
/// [dst], [map, {c0, c1, c2, c3}], [bar], policy`: the TMA unit copies the box of the tensor map at generic
/// address `map` whose first element has coordinates `c` (innermost first) into `dst` in the
/// map's swizzle layout, and signals `bar` with the box's bytes ("Data Movement and Conversion
/// Instructions: cp.async.bulk.tensor"), the lines it brings into L2 under `policy` (from
/// [`createpolicy_l2_evict_first`]).
///
/// # Safety
/// `map` the generic address of a valid tensor map (64-byte aligned, in `.param`, `.const` or
/// `.global` space) whose box lies inside its tensor; `dst` this CTA's shared memory, aligned
/// to the swizzle atom (1024 bytes for the 128-byte swizzle), with room for the box and not
/// read or written until `bar`'s phase completes; `bar` expects the bytes (`expect_tx`).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn cp_async_bulk_tensor_4d_shared_global_hint(dst: Smem<u8>, map: u64, c: [i32; 4], bar: Smem<u64>, policy: u64) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [{d}], [{m}, {{{c0}, {c1}, {c2}, {c3}}}], [{b}], {p};",
            d = in(reg32) dst.addr(), m = in(reg64) map, c0 = in(reg32) c[0], c1 = in(reg32) c[1],
            c2 = in(reg32) c[2], c3 = in(reg32) c[3], b = in(reg32) bar.addr(), p = in(reg64) policy, options(nostack)
        )
    };
}

/// The generic address of parameter 0 of the kernel `$kernel` (its by-value parameter block):
/// `mov.b64` of the `.param` symbol, then `cvta.param.u64` (PTX ISA 7.7, "Data Movement and
/// Conversion Instructions: cvta"). Only meaningful inside the body of `$kernel` itself, which
/// is where the decode entries expand it; the TMA unit reads tensor maps through it without a
/// copy of the block (rustc cannot mark the parameter `__grid_constant__`).
#[macro_export]
macro_rules! kernel_param0_address {
    ($kernel:ident) => {{
        let a: u64;
        // SAFETY: reads no memory; the symbol is the enclosing kernel's parameter.
        unsafe {
            core::arch::asm!(
                concat!("mov.b64 {a}, ", stringify!($kernel), "_param_0;\n\tcvta.param.u64 {a}, {a};"),
                a = out(reg64) a, options(pure, nomem, nostack)
            )
        };
        a
    }};
}

/// Test (sm_80: `mbarrier.test_wait.parity`) or wait a while (sm_90+: `mbarrier.try_wait.parity`)
/// for the phase with `parity` of `bar` to complete; true once it has (acquire semantics).
///
/// # Safety
/// `bar` an initialised mbarrier.
#[inline(always)]
pub unsafe fn mbarrier_try_wait_parity_shared_b64(bar: Smem<u64>, parity: u32) -> bool {
    let done: u32;
    #[cfg(target_feature = "sm_90")]
    macro_rules! form {
        () => {
            "{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {ph}; selp.u32 {d}, 1, 0, p; }}"
        };
    }
    #[cfg(not(target_feature = "sm_90"))]
    macro_rules! form {
        () => {
            "{{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [{b}], {ph}; selp.u32 {d}, 1, 0, p; }}"
        };
    }
    // SAFETY: forwarded to the caller.
    unsafe { asm!(form!(), b = in(reg32) bar.addr(), ph = in(reg32) parity, d = out(reg32) done, options(nostack)) };
    done != 0
}

/// Spin on [`mbarrier_try_wait_parity_shared_b64`] until the phase with `parity` completes.
///
/// # Safety
/// As [`mbarrier_try_wait_parity_shared_b64`]; the phase must eventually complete.
#[inline(always)]
pub unsafe fn mbarrier_wait_parity_shared_b64(bar: Smem<u64>, parity: u32) {
    // SAFETY: forwarded to the caller.
    while !unsafe { mbarrier_try_wait_parity_shared_b64(bar, parity) } {}
}

// ------------------------------------------------------------------------------------------------
// Thread-block clusters ("Cluster of Cooperative Thread Arrays", "barrier.cluster", "mapa",
// distributed shared memory), sm_90+
// ------------------------------------------------------------------------------------------------

/// `%cluster_ctarank`: this CTA's rank in its cluster (0 when launched without clusters).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn cluster_cta_rank() -> u32 {
    let r: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { asm!("mov.u32 {r}, %cluster_ctarank;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`: every thread of every
/// CTA of the cluster meets here; shared-memory writes before it are visible to the cluster's
/// reads after it.
///
/// # Safety
/// Every non-exited thread of the cluster must reach it the same number of times (a thread
/// that never arrives hangs the cluster).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn barrier_cluster_sync() {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("barrier.cluster.arrive.release;", options(nostack));
        asm!("barrier.cluster.wait.acquire;", options(nostack));
    }
}

/// `barrier.cluster.arrive.relaxed` then `barrier.cluster.wait`: as [`barrier_cluster_sync`]
/// without ordering this thread's earlier memory accesses, so the arrive does not wait for its
/// global stores to be performed. For the last meeting before exit, where the barrier only
/// keeps each CTA's shared memory alive until the others' reads of it have returned (their
/// values used before the arrive).
///
/// # Safety
/// As [`barrier_cluster_sync`].
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn barrier_cluster_sync_relaxed() {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("barrier.cluster.arrive.relaxed;", options(nostack));
        asm!("barrier.cluster.wait;", options(nostack));
    }
}

/// `mapa.shared::cluster.u32`: the `.shared::cluster` address of `addr` in the shared memory of
/// the cluster's CTA `rank`.
///
/// # Safety
/// `rank` below the cluster size.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn mapa_shared_cluster<T>(addr: Smem<T>, rank: u32) -> DsmemAddr<T> {
    let r: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mapa.shared::cluster.u32 {r}, {a}, {k};", r = out(reg32) r, a = in(reg32) addr.addr(), k = in(reg32) rank, options(pure, nomem, nostack)) };
    DsmemAddr { addr: r, _t: PhantomData }
}

/// A 32-bit `.shared::cluster` address (of this or another CTA of the cluster), from
/// [`mapa_shared_cluster`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct DsmemAddr<T> {
    addr: u32,
    _t: PhantomData<*mut T>,
}

/// `ld.shared::cluster.u32`.
///
/// # Safety
/// `src` 4-byte aligned, mapped from a live CTA of the cluster whose writes were published by a
/// cluster barrier, and that CTA stays resident until a later cluster barrier.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn ld_shared_cluster_u32(src: DsmemAddr<u32>) -> u32 {
    let v: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.shared::cluster.u32 {v}, [{a}];", a = in(reg32) src.addr, v = out(reg32) v, options(nostack, readonly)) };
    v
}

/// `ld.shared::cluster.v4.u32`: 16 bytes.
///
/// # Safety
/// As [`ld_shared_cluster_u32`], 16-byte aligned.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub unsafe fn ld_shared_cluster_v4_u32(src: DsmemAddr<[u32; 4]>) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.shared::cluster.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg32) src.addr, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(nostack, readonly))
    };
    [a, b, c, d]
}

// ------------------------------------------------------------------------------------------------
// wgmma ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate"), sm_90a only
// ------------------------------------------------------------------------------------------------

/// Matrix descriptor of a `wgmma` shared-memory operand in the no-swizzle ("interleave") K-major
/// layout: 8x16-byte core matrices stored as 128 contiguous bytes; `lbo_bytes` between core
/// matrices adjacent in K, `sbo_bytes` between core matrices adjacent in M (or N).
#[inline(always)]
pub const fn wgmma_desc_no_swizzle(base: Smem<u8>, lbo_bytes: u32, sbo_bytes: u32) -> u64 {
    ((base.addr() as u64 >> 4) & 0x3fff) | (((lbo_bytes as u64 >> 4) & 0x3fff) << 16) | (((sbo_bytes as u64 >> 4) & 0x3fff) << 32)
}

/// Matrix descriptor of a `wgmma` shared-memory operand in the 128-byte-swizzle layout (mode 1):
/// rows of 128 bytes, 16-byte chunk `c` of row `r` stored at chunk `c ^ (r % 8)`, 8-row atoms
/// of 1024 bytes (the base 1024-byte aligned, so the base offset field stays 0). K-major:
/// `sbo_bytes` between 8-row groups, `lbo_bytes` unused (16); MN-major (transposed B):
/// `lbo_bytes` between 64-element (128-byte) blocks along N, `sbo_bytes` between 8-row groups
/// along K.
#[inline(always)]
pub const fn wgmma_desc_sw128(base: Smem<u8>, lbo_bytes: u32, sbo_bytes: u32) -> u64 {
    wgmma_desc_no_swizzle(base, lbo_bytes, sbo_bytes) | (1u64 << 62)
}

/// `wgmma.fence.sync.aligned`: order register/shared accesses before the next wgmma.
///
/// # Safety
/// Whole warpgroup, uniform control flow.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn wgmma_fence() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("wgmma.fence.sync.aligned;", options(nostack)) };
}

/// `wgmma.commit_group.sync.aligned`.
///
/// # Safety
/// Whole warpgroup, uniform control flow.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn wgmma_commit_group() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) };
}

/// `wgmma.wait_group.sync.aligned N`.
///
/// # Safety
/// Whole warpgroup, uniform control flow.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn wgmma_wait_group<const N: u32>() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack)) };
}

/// A compiler fence on registers an async `wgmma` writes or reads (CUTLASS's
/// `warpgroup_fence_operand`): an empty asm (a PTX comment) that takes and gives back each
/// register, ordered with the other asm statements, so that LLVM neither reads an accumulator
/// before the `wgmma.wait_group` that completes it nor moves a write to it across one. Emits no
/// instruction.
#[inline(always)]
pub fn pin_f32_registers(regs: &mut [f32]) {
    for r in regs {
        // SAFETY: no instruction; the register keeps its value.
        unsafe { asm!("// pin {r}", r = inout(reg32) * r, options(nostack)) };
    }
}

/// Accumulator of an m64n64 wgmma: 32 f32 per thread. Thread (warp w, lane l) holds, for
/// n-chunk j in 0..8: `[4j]` (row 16w+l/4, col 8j+2(l%4)), `[4j+1]` (same row, col+1),
/// `[4j+2]` (row +8, col), `[4j+3]` (row +8, col+1).
pub type WgmmaAccM64N64 = [f32; 32];

macro_rules! wgmma_m64n64_ss {
    ($name:ident, $form:literal, $tail:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// `scale_d == false` ignores the accumulator's previous contents (D = A·B).
        ///
        /// # Safety
        /// Whole warpgroup (4 consecutive warps, first warp index % 4 == 0), uniform control flow;
        /// `a_desc`/`b_desc` describe initialised shared memory made visible to the async proxy
        /// (`fence.proxy.async`), `wgmma_fence` issued before; `acc` not read until
        /// `wgmma_wait_group` covers this operation.
        #[cfg(target_feature = "sm_90a")]
        #[inline(always)]
        pub unsafe fn $name(acc: &mut WgmmaAccM64N64, a_desc: u64, b_desc: u64, scale_d: bool) {
            let d = acc;
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(
                    "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
                    concat!($form, " {{{d0}, {d1}, {d2}, {d3}, {d4}, {d5}, {d6}, {d7}, {d8}, {d9}, {d10}, {d11}, {d12}, {d13}, {d14}, {d15}, {d16}, {d17}, {d18}, {d19}, {d20}, {d21}, {d22}, {d23}, {d24}, {d25}, {d26}, {d27}, {d28}, {d29}, {d30}, {d31}}}, {a}, {b}, p", $tail, "; }}"),
                    sd = in(reg32) scale_d as u32, a = in(reg64) a_desc, b = in(reg64) b_desc,
                    d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2], d3 = inout(reg32) d[3],
                    d4 = inout(reg32) d[4], d5 = inout(reg32) d[5], d6 = inout(reg32) d[6], d7 = inout(reg32) d[7],
                    d8 = inout(reg32) d[8], d9 = inout(reg32) d[9], d10 = inout(reg32) d[10], d11 = inout(reg32) d[11],
                    d12 = inout(reg32) d[12], d13 = inout(reg32) d[13], d14 = inout(reg32) d[14], d15 = inout(reg32) d[15],
                    d16 = inout(reg32) d[16], d17 = inout(reg32) d[17], d18 = inout(reg32) d[18], d19 = inout(reg32) d[19],
                    d20 = inout(reg32) d[20], d21 = inout(reg32) d[21], d22 = inout(reg32) d[22], d23 = inout(reg32) d[23],
                    d24 = inout(reg32) d[24], d25 = inout(reg32) d[25], d26 = inout(reg32) d[26], d27 = inout(reg32) d[27],
                    d28 = inout(reg32) d[28], d29 = inout(reg32) d[29], d30 = inout(reg32) d[30], d31 = inout(reg32) d[31],
                    options(nostack))
            };
        }
    };
}

wgmma_m64n64_ss!(
    wgmma_m64n64k16_f32_bf16_ss,
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
    ", 1, 1, 0, 0",
    "`wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` (sm_90a): D (64x64 f32) += A (64x16, K-major smem) · B (16x64, K-major smem)."
);
wgmma_m64n64_ss!(
    wgmma_m64n64k16_f32_f16_ss,
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16",
    ", 1, 1, 0, 0",
    "`wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` (sm_90a): D (64x64 f32) += A (64x16, K-major smem) · B (16x64, K-major smem)."
);
wgmma_m64n64_ss!(
    wgmma_m64n64k32_f32_e4m3_ss,
    "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3",
    ", 1, 1",
    "`wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3` (sm_90a): D (64x64 f32) += A (64x32 e4m3) · B (32x64 e4m3), both K-major in smem."
);

/// Accumulator of an m64n128 wgmma: 64 f32 per thread, the m64n64 layout over 16 n-chunks.
pub type WgmmaAccM64N128 = [f32; 64];

/// `wgmma` with A from registers and B transposed in shared memory, one fn per PTX form: `$acc`
/// the accumulator type, then its registers as `name index` pairs (the form's D operand list).
macro_rules! wgmma_rs_tb {
    ($name:ident, $acc:ty, $form:literal, $doc:literal, [$d0:ident $i0:literal $(, $dn:ident $in:literal)*]) => {
        #[doc = $doc]
        ///
        /// A comes from registers (`a`: the warp's m16 rows in the `mma.sync` m16n8k16 A layout),
        /// B from shared memory, transposed (N-major: `imm-trans-b` 1). `scale_d == false`
        /// ignores the accumulator's previous contents.
        ///
        /// # Safety
        /// As the m64n64 SS forms; `a` written before the `wgmma_fence` that precedes this.
        #[cfg(target_feature = "sm_90a")]
        #[inline(always)]
        pub unsafe fn $name(acc: &mut $acc, a: [u32; 4], b_desc: u64, scale_d: bool) {
            let d = acc;
            // SAFETY: forwarded to the caller.
            unsafe {
                asm!(
                    "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
                    concat!($form, " {{{", stringify!($d0), "}", $(", {", stringify!($dn), "}",)* "}}, {{{a0}, {a1}, {a2}, {a3}}}, {b}, p, 1, 1, 1; }}"),
                    sd = in(reg32) scale_d as u32, b = in(reg64) b_desc,
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                    $d0 = inout(reg32) d[$i0], $($dn = inout(reg32) d[$in],)*
                    options(nostack))
            };
        }
    };
}

/// `wgmma_rs_tb` over an m64n64 accumulator (P·V at head dim 64).
macro_rules! wgmma_m64n64_rs_tb {
    ($name:ident, $form:literal, $doc:literal) => {
        wgmma_rs_tb!($name, WgmmaAccM64N64, $form, $doc, [
    d0 0, d1 1, d2 2, d3 3, d4 4, d5 5, d6 6, d7 7, d8 8, d9 9, d10 10, d11 11, d12 12, d13 13,
    d14 14, d15 15, d16 16, d17 17, d18 18, d19 19, d20 20, d21 21, d22 22, d23 23, d24 24, d25 25,
    d26 26, d27 27, d28 28, d29 29, d30 30, d31 31
        ]);
    };
}

/// `wgmma_rs_tb` over an m64n128 accumulator (P·V per 128 head dims).
macro_rules! wgmma_m64n128_rs_tb {
    ($name:ident, $form:literal, $doc:literal) => {
        wgmma_rs_tb!($name, WgmmaAccM64N128, $form, $doc, [
    d0 0, d1 1, d2 2, d3 3, d4 4, d5 5, d6 6, d7 7, d8 8, d9 9, d10 10, d11 11, d12 12, d13 13,
    d14 14, d15 15, d16 16, d17 17, d18 18, d19 19, d20 20, d21 21, d22 22, d23 23, d24 24, d25 25,
    d26 26, d27 27, d28 28, d29 29, d30 30, d31 31, d32 32, d33 33, d34 34, d35 35, d36 36, d37 37,
    d38 38, d39 39, d40 40, d41 41, d42 42, d43 43, d44 44, d45 45, d46 46, d47 47, d48 48, d49 49,
    d50 50, d51 51, d52 52, d53 53, d54 54, d55 55, d56 56, d57 57, d58 58, d59 59, d60 60, d61 61,
    d62 62, d63 63
        ]);
    };
}

wgmma_m64n64_rs_tb!(
    wgmma_m64n64k16_f32_bf16_rs_tb,
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
    "`wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` (sm_90a): D (64x64 f32) += A (64x16 bf16, registers) · B (16x64 bf16, N-major smem)."
);
wgmma_m64n64_rs_tb!(
    wgmma_m64n64k16_f32_f16_rs_tb,
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16",
    "`wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` (sm_90a): D (64x64 f32) += A (64x16 f16, registers) · B (16x64 f16, N-major smem)."
);
wgmma_m64n128_rs_tb!(
    wgmma_m64n128k16_f32_bf16_rs_tb,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
    "`wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16` (sm_90a): D (64x128 f32) += A (64x16 bf16, registers) · B (16x128 bf16, N-major smem)."
);
wgmma_m64n128_rs_tb!(
    wgmma_m64n128k16_f32_f16_rs_tb,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
    "`wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16` (sm_90a): D (64x128 f32) += A (64x16 f16, registers) · B (16x128 f16, N-major smem)."
);

// ------------------------------------------------------------------------------------------------
// tcgen05 ("TensorCore 5th Generation Family Instructions"), sm_100a only. Assembled and
// inspected here; no sm_100 GPU is available to run them.
// ------------------------------------------------------------------------------------------------

/// Shared-memory matrix descriptor of `tcgen05.mma`, no swizzle, K-major (bits 46..48 = 0b001).
#[inline(always)]
pub const fn tcgen05_desc_no_swizzle(base: Smem<u8>, lbo_bytes: u32, sbo_bytes: u32) -> u64 {
    wgmma_desc_no_swizzle(base, lbo_bytes, sbo_bytes) | (1u64 << 46)
}

/// Instruction descriptor of `tcgen05.mma.kind::f16` with bf16 A/B, f32 D, both K-major.
#[inline(always)]
pub const fn tcgen05_idesc_bf16_f32(m: u32, n: u32) -> u32 {
    (1 << 4)            // D format: f32
        | (1 << 7)      // A format: bf16
        | (1 << 10)     // B format: bf16
        | ((n >> 3) << 17)
        | ((m >> 4) << 24)
}

/// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`: allocate `ncols`
/// (power of two >= 32) tensor-memory columns; the address is written to `dst`.
///
/// # Safety
/// One full warp; `dst` 4-byte shared; the same warp deallocates before exit.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_alloc_cg1(dst: Smem<u32>, ncols: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{d}], {n};", d = in(reg32) dst.addr(), n = in(reg32) ncols, options(nostack)) };
}

/// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
///
/// # Safety
/// One full warp.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_relinquish_alloc_permit_cg1() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", options(nostack)) };
}

/// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
///
/// # Safety
/// The warp that allocated; no tcgen05 operation on these columns pending.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_dealloc_cg1(taddr: u32, ncols: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("tcgen05.dealloc.cta_group::1.sync.aligned.b32 {t}, {n};", t = in(reg32) taddr, n = in(reg32) ncols, options(nostack)) };
}

/// `tcgen05.mma.cta_group::1.kind::f16 [d_tmem], a_desc, b_desc, idesc, enable_input_d`.
///
/// # Safety
/// Issued by one thread; descriptors valid, tensor memory allocated; completion observed through
/// `tcgen05_commit_cg1_mbarrier` before D is read.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_mma_cg1_kind_f16(d_tmem: u32, a_desc: u64, b_desc: u64, idesc: u32, accumulate: bool) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.b32 p, {e}, 0; tcgen05.mma.cta_group::1.kind::f16 [{d}], {a}, {b}, {i}, p; }}",
            d = in(reg32) d_tmem, a = in(reg64) a_desc, b = in(reg64) b_desc, i = in(reg32) idesc, e = in(reg32) accumulate as u32,
            options(nostack))
    };
}

/// `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar]`: arrive on
/// `bar` when this thread's prior tcgen05 operations complete.
///
/// # Safety
/// `bar` an initialised mbarrier.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_commit_cg1_mbarrier(bar: Smem<u64>) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{b}];", b = in(reg32) bar.addr(), options(nostack)) };
}

/// `tcgen05.ld.sync.aligned.32x32b.x8.b32` + `tcgen05.wait::ld`: 8 consecutive columns of this
/// thread's lane (row) of tensor memory.
///
/// # Safety
/// One full warp; the warp's lane quarter of `taddr` valid and its MMA complete.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub unsafe fn tcgen05_ld_32x32b_x8(taddr: u32) -> [u32; 8] {
    let r: [u32; 8];
    let (r0, r1, r2, r3, r4, r5, r6, r7): (u32, u32, u32, u32, u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("tcgen05.ld.sync.aligned.32x32b.x8.b32 {{{r0}, {r1}, {r2}, {r3}, {r4}, {r5}, {r6}, {r7}}}, [{t}]; tcgen05.wait::ld.sync.aligned;",
            t = in(reg32) taddr, r0 = out(reg32) r0, r1 = out(reg32) r1, r2 = out(reg32) r2, r3 = out(reg32) r3,
            r4 = out(reg32) r4, r5 = out(reg32) r5, r6 = out(reg32) r6, r7 = out(reg32) r7, options(nostack))
    };
    r = [r0, r1, r2, r3, r4, r5, r6, r7];
    r
}

/// `tcgen05.fence::before_thread_sync`.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub fn tcgen05_fence_before_thread_sync() {
    // SAFETY: a fence.
    unsafe { asm!("tcgen05.fence::before_thread_sync;", options(nostack)) };
}

/// `tcgen05.fence::after_thread_sync`.
#[cfg(target_feature = "sm_100a")]
#[inline(always)]
pub fn tcgen05_fence_after_thread_sync() {
    // SAFETY: a fence.
    unsafe { asm!("tcgen05.fence::after_thread_sync;", options(nostack)) };
}
