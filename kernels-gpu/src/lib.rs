//! ferroflash device code.
//!
//! Layers, one direction of dependency (see docs/DESIGN.md):
//! `arch` (the only module with `asm!`: one fn per PTX instruction form) -> `tile` (typed
//! fragments and shared-memory tiles) -> `kernels` (entry points, short and readable).
//!
//! Built once per arch by `ptxbuild` with `-Ctarget-cpu=sm_80 | sm_90a | sm_100a`; arch-specific
//! code is gated with `cfg(target_feature = "...")`, never with a runtime `if`.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch, stdarch_nvptx, core_intrinsics)]
#![feature(gpu_launch_sized_workgroup_mem, gpu_intrinsics)]
#![allow(internal_features)]

pub mod arch;
pub mod attention;
pub mod kernels;
pub mod tile;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; no state is observed afterwards.
    unsafe { arch::trap() }
}
