//! The launch layer: the only place in the host crate with `unsafe`.
//!
//! A kernel trusts every address and size in its parameter block. The functions here take
//! parameter blocks that were built by validating code (types with private constructors, or
//! tables checked here), so what they pass is in range. What this layer cannot check: that a
//! device address handed in through the raw-pointer API really points at live device memory of
//! the stated size; those entry points are `unsafe fn` and say so.

use crate::device::Device;
use crate::error::{Error, Result};
use cudarc::driver::sys::{CUfunction_attribute_enum, CUstream};
use cudarc::driver::CudaFunction;

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: (u32, u32, u32),
    pub block_threads: u32,
    pub smem_bytes: u32,
}

/// Marker for `#[repr(C)]` parameter blocks passed to a kernel by value.
///
/// # Safety
/// The type must be `#[repr(C)]`, `Copy`, and match the kernel's parameter layout exactly.
pub(crate) unsafe trait KernelParams: Copy {}

// SAFETY: `SelfTestParams` is `#[repr(C)]` in the contract and the self-test kernels take it.
unsafe impl KernelParams for ferroflash_contract::params::SelfTestParams {}
// SAFETY: `PagedReadParams` is `#[repr(C)]` in the contract and `ff_bench_read_paged` takes it.
unsafe impl KernelParams for ferroflash_contract::params::PagedReadParams {}

/// Refuse `smem_bytes` over the device's opt-in limit; raise the kernel's limit past 48 KiB.
fn set_smem_limit(dev: &Device, func: &CudaFunction, smem_bytes: u32) -> Result<()> {
    if smem_bytes > dev.caps().max_smem_per_block_optin_bytes {
        return Err(Error::InvalidArgument {
            name: "shared memory",
            why: format!(
                "{smem_bytes} B exceeds the device's {} B",
                dev.caps().max_smem_per_block_optin_bytes
            ),
        });
    }
    if smem_bytes > 48 * 1024 {
        func.set_attribute(
            CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            smem_bytes as i32,
        )
        .map_err(Error::driver("cuFuncSetAttribute"))?;
    }
    Ok(())
}

/// Launch `func` with one by-value parameter block on `stream`.
///
/// # Safety
/// Every address in `params` must be valid for what the kernel does with it (the callers in this
/// crate establish that by validation), and `stream` must belong to `dev`'s context.
pub(crate) unsafe fn launch_raw<P: KernelParams>(
    dev: &Device,
    func: &CudaFunction,
    dims: LaunchDims,
    stream: CUstream,
    params: &P,
) -> Result<()> {
    set_smem_limit(dev, func, dims.smem_bytes)?;
    // cuLaunchKernel takes one pointer per kernel parameter; the kernel has one: the block.
    let mut args = [params as *const P as *mut std::ffi::c_void];
    // SAFETY: the parameter block is `#[repr(C)]` and matches the kernel (KernelParams); its
    // addresses are valid per this function's contract; cuLaunchKernel copies the block.
    unsafe {
        cudarc::driver::result::launch_kernel(
            func.cu_function(),
            dims.grid,
            (dims.block_threads, 1, 1),
            dims.smem_bytes,
            stream,
            &mut args,
        )
        .map_err(Error::driver("cuLaunchKernel"))
    }
}

/// As [`launch_raw`], with programmatic stream serialization (PDL): the kernel may start
/// before the previous kernel on `stream` finishes and must `griddepcontrol.wait` before reading
/// its results. Only for modules built for sm_90+.
///
/// # Safety
/// As [`launch_raw`]; the kernel waits on its dependency before touching the previous grid's
/// outputs.
pub(crate) unsafe fn launch_raw_dependent<P: KernelParams>(
    dev: &Device,
    func: &CudaFunction,
    dims: LaunchDims,
    cluster: u32,
    stream: CUstream,
    params: &P,
) -> Result<()> {
    use cudarc::driver::sys;
    set_smem_limit(dev, func, dims.smem_bytes)?;
    let mut args = [params as *const P as *mut std::ffi::c_void];
    let mut attrs = launch_attrs(cluster);
    let cfg = launch_config(dims, stream, &mut attrs, cluster);
    // SAFETY: as `launch_raw`; `cfg`, `attrs` and `args` outlive the call.
    unsafe {
        sys::cuLaunchKernelEx(
            &cfg,
            func.cu_function(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
        .result()
        .map_err(Error::driver("cuLaunchKernelEx"))
    }
}

/// Launch attributes: programmatic stream serialization (PDL), and when `cluster > 1` (counted
/// only then) a cluster of `cluster` CTAs along x with the load-balancing scheduling policy.
/// Under the default policy the H200 holds 62 clusters of 4 CTAs at two CTAs per SM (and 62 of
/// 8 at four per SM); under load balancing 66, so W2 and W6 (64 blocks in 4 splits) and W5 (64
/// in 8) merge in clusters: 2-3% faster than with the combine kernel (docs/perf.md, change 49).
fn launch_attrs(cluster: u32) -> [cudarc::driver::sys::CUlaunchAttribute; 3] {
    use cudarc::driver::sys;
    // SAFETY: a zeroed attribute is a valid "ignore" value; we then fill the ones we use.
    let mut a: [sys::CUlaunchAttribute; 3] = unsafe { std::mem::zeroed() };
    a[0].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a[0].value.programmaticStreamSerializationAllowed = 1;
    a[1].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a[1].value.clusterDim.x = cluster.max(1);
    a[1].value.clusterDim.y = 1;
    a[1].value.clusterDim.z = 1;
    a[2].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    a[2].value.clusterSchedulingPolicyPreference =
        sys::CUclusterSchedulingPolicy::CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING;
    a
}

fn launch_config(
    dims: LaunchDims,
    stream: CUstream,
    attrs: &mut [cudarc::driver::sys::CUlaunchAttribute; 3],
    cluster: u32,
) -> cudarc::driver::sys::CUlaunchConfig {
    cudarc::driver::sys::CUlaunchConfig {
        gridDimX: dims.grid.0,
        gridDimY: dims.grid.1,
        gridDimZ: dims.grid.2,
        blockDimX: dims.block_threads,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: dims.smem_bytes,
        hStream: stream,
        attrs: attrs.as_mut_ptr(),
        numAttrs: if cluster > 1 { 3 } else { 1 },
    }
}

/// Clusters of `cluster` CTAs of `kernel` (launch shape `dims`, grid ignored) that the device
/// can hold at once (`cuOccupancyMaxActiveClusters`); 0 when such a cluster cannot run.
pub(crate) fn max_active_clusters(
    dev: &Device,
    kernel: &'static str,
    dims: LaunchDims,
    cluster: u32,
) -> Result<u32> {
    let key = (kernel, dims.block_threads, dims.smem_bytes, cluster);
    dev.cached_cluster_capacity(key, || {
        max_active_clusters_uncached(dev, kernel, dims, cluster)
    })
}

fn max_active_clusters_uncached(
    dev: &Device,
    kernel: &'static str,
    dims: LaunchDims,
    cluster: u32,
) -> Result<u32> {
    let func = dev.function(kernel)?;
    let mut attrs = launch_attrs(cluster);
    let dims = LaunchDims {
        grid: (cluster, 1, 1),
        ..dims
    };
    let cfg = launch_config(dims, std::ptr::null_mut(), &mut attrs, cluster);
    let mut n: std::ffi::c_int = 0;
    // SAFETY: `cfg` describes a launch shape only (nothing runs); `n` outlives the call.
    let r = unsafe {
        cudarc::driver::sys::cuOccupancyMaxActiveClusters(&mut n, func.cu_function(), &cfg)
    };
    Ok(if r.result().is_ok() {
        n.max(0) as u32
    } else {
        0
    })
}

/// Run one primitive self-test (see [`crate::selftest`]): upload `input`, poison the output with
/// `0xffff_ffff`, launch with the dims of the self-test table, and return the output words.
pub(crate) fn run_selftest(
    dev: &Device,
    spec: &crate::selftest::SelfTestSpec,
    input: &[u32],
) -> Result<Vec<u32>> {
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    if input.len() != spec.input_words {
        return Err(Error::BufferTooSmall {
            name: "selftest input",
            got: input.len(),
            need: spec.input_words,
        });
    }
    let func = dev.function(spec.name)?;
    let stream = dev.stream();
    let map = Error::driver("selftest buffers");
    let g_in = stream
        .clone_htod(&if input.is_empty() {
            vec![0u32]
        } else {
            input.to_vec()
        })
        .map_err(map)?;
    let mut g_out = stream
        .clone_htod(&vec![0xffff_ffffu32; spec.output_words])
        .map_err(Error::driver("selftest output"))?;
    {
        let (in_ptr, _r) = g_in.device_ptr(stream);
        let (out_ptr, _w) = g_out.device_ptr_mut(stream);
        let params = ferroflash_contract::params::SelfTestParams {
            input: in_ptr,
            output: out_ptr,
            n: input.len() as u32,
            mode: 0,
        };
        // SAFETY: both buffers are live for the launch and sized by the self-test table, which
        // lists what each self-test kernel reads and writes.
        unsafe { launch_raw(dev, &func, spec.dims, stream.cu_stream(), &params)? };
    }
    stream
        .synchronize()
        .map_err(Error::driver("selftest launch"))?;
    stream
        .clone_dtoh(&g_out)
        .map_err(Error::driver("selftest readback"))
}

// SAFETY: `DecodeParams` is `#[repr(C)]` in the contract and the decode kernels take it.
unsafe impl KernelParams for ferroflash_contract::params::DecodeParams {}

/// Load `kernel`, raise its dynamic shared-memory limit to `smem_bytes`, and return how many
/// CTAs of `threads` threads fit on one SM (the planner's `ctas_per_sm`).
pub(crate) fn prepare(
    dev: &Device,
    kernel: &'static str,
    threads: u32,
    smem_bytes: u32,
) -> Result<u32> {
    let func = dev.function(kernel)?;
    if smem_bytes > dev.caps().max_smem_per_block_optin_bytes {
        return Err(Error::InvalidArgument {
            name: "shared memory",
            why: format!(
                "{kernel} needs {smem_bytes} B, device allows {}",
                dev.caps().max_smem_per_block_optin_bytes
            ),
        });
    }
    func.set_attribute(
        CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        smem_bytes as i32,
    )
    .map_err(Error::driver("cuFuncSetAttribute"))?;
    let n = func
        .occupancy_max_active_blocks_per_multiprocessor(threads, smem_bytes as usize, None)
        .map_err(Error::driver("occupancy"))?;
    Ok(n.max(1))
}

/// Launch the decode kernel and, when the plan split a request, the combine kernel after it.
///
/// Establishing validity is the caller's job inside this crate: `ferroflash::decode` builds `p`
/// only from validated tables and tensors, and `run_raw`'s caller vouches for raw addresses.
/// `decode` is `(kernel, launch shape, cluster size or 0)`, `combine` the combine kernel and its
/// launch shape when it runs.
pub(crate) fn decode(
    dev: &Device,
    decode: (&'static str, LaunchDims, u32),
    combine: Option<(&'static str, LaunchDims)>,
    stream: CUstream,
    p: &ferroflash_contract::params::DecodeParams,
) -> Result<()> {
    let (kernel, dims, cluster) = decode;
    let f = dev.function(kernel)?;
    if dims.grid.0 > 0 {
        // SAFETY: see the function doc: `p` was built from validated inputs. The decode CTAs
        // read their work item and page ids (plan buffers, uploaded before the previous kernel)
        // early and wait with griddepcontrol.wait before touching Q, K/V (with `early_kv`, the
        // rows before the new tokens go first), outputs or the workspace (See Note [PDL chain]
        // and Note [early K/V tiles] in docs/DESIGN.md).
        unsafe { launch_chained(dev, &f, dims, cluster, stream, p)? };
    }
    if let Some((combine_kernel, cd)) = combine {
        let fc = dev.function(combine_kernel)?;
        // SAFETY: as above; the decode launch before it on the same stream fills the workspace
        // and the combine waits for it with griddepcontrol.wait.
        unsafe { launch_chained(dev, &fc, cd, 0, stream, p)? };
    }
    Ok(())
}

/// A programmatic dependent launch (in clusters of `cluster` CTAs when > 1) on modules that
/// have `griddepcontrol` (sm_90a, sm_100a); a plain launch on the sm_80 module, whose kernels
/// carry no such wait (the planner never asks it for clusters).
///
/// # Safety
/// As [`launch_raw`].
unsafe fn launch_chained<P: KernelParams>(
    dev: &Device,
    f: &CudaFunction,
    dims: LaunchDims,
    cluster: u32,
    stream: CUstream,
    p: &P,
) -> Result<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        if dev.arch() == crate::ModuleArch::Sm80 {
            debug_assert!(cluster <= 1);
            launch_raw(dev, f, dims, stream, p)
        } else {
            launch_raw_dependent(dev, f, dims, cluster, stream, p)
        }
    }
}

/// Stream `buf` once with the bandwidth probe kernel (`grid` CTAs of `threads`), on `dev`'s
/// stream. `scratch` must hold one word per thread of the grid.
pub fn read_probe(
    dev: &Device,
    buf: &cudarc::driver::CudaView<u8>,
    scratch: &mut cudarc::driver::CudaSlice<u32>,
    grid: u32,
    threads: u32,
) -> Result<()> {
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    let need = grid as usize * threads as usize;
    if scratch.len() < need {
        return Err(Error::BufferTooSmall {
            name: "read probe scratch",
            got: scratch.len(),
            need,
        });
    }
    let chunks = buf.len() / 16;
    if chunks > u32::MAX as usize {
        return Err(Error::InvalidArgument {
            name: "read probe",
            why: "buffer over 64 GiB".into(),
        });
    }
    let f = dev.function(ferroflash_contract::names::bench::READ)?;
    let s = dev.stream();
    let (i, _g1) = buf.device_ptr(s);
    let (o, _g2) = scratch.device_ptr_mut(s);
    let p = ferroflash_contract::params::SelfTestParams {
        input: i,
        output: o,
        n: chunks as u32,
        mode: 0x9e37_79b9,
    };
    // SAFETY: the kernel reads `chunks` 16-byte chunks of `buf` (cudarc allocations are 256-byte
    // aligned) and writes at most one word per thread into `scratch`, sized above.
    unsafe {
        launch_raw(
            dev,
            &f,
            LaunchDims {
                grid: (grid, 1, 1),
                block_threads: threads,
                smem_bytes: 0,
            },
            s.cu_stream(),
            &p,
        )
    }
}

/// Launch the paged read probe (`ff_bench_read_paged`) of a validated [`crate::bench::PagedReadProbe`]
/// over pools of `pool_bytes` each, one CTA per item, on `dev`'s stream.
pub(crate) fn paged_read_probe(
    dev: &Device,
    probe: &crate::bench::PagedReadProbe,
    k_pool: u64,
    v_pool: u64,
    pool_bytes: usize,
    scratch: &mut cudarc::driver::CudaSlice<u32>,
) -> Result<()> {
    use cudarc::driver::{DevicePtr, DevicePtrMut};
    let grid = probe.ctas();
    let need = grid as usize * probe.threads() as usize;
    if scratch.len() < need {
        return Err(Error::BufferTooSmall {
            name: "paged read probe scratch",
            got: scratch.len(),
            need,
        });
    }
    if pool_bytes < probe.pool_bytes() {
        return Err(Error::BufferTooSmall {
            name: "paged read probe pool",
            got: pool_bytes,
            need: probe.pool_bytes(),
        });
    }
    let f = dev.function(ferroflash_contract::names::bench::READ_PAGED)?;
    let s = dev.stream();
    let (ids, _g1) = probe.ids.device_ptr(s);
    let (items, _g2) = probe.items.device_ptr(s);
    let (o, _g3) = scratch.device_ptr_mut(s);
    let p = ferroflash_contract::params::PagedReadParams {
        k_pool,
        v_pool,
        page_ids: ids,
        items,
        output: o,
        page_size: probe.page_size,
        kv_heads: probe.kv_heads,
        row_chunks: probe.row_chunks,
        mode: probe.mode,
    };
    // SAFETY: `PagedReadProbe::new` checked every item's rows against its page table and every
    // page id against `pool_bytes()`, and the pools hold at least that (checked above); the
    // kernel writes at most one word per thread into `scratch`, sized above.
    unsafe {
        launch_chained(
            dev,
            &f,
            LaunchDims {
                grid: (grid, 1, 1),
                block_threads: probe.threads(),
                smem_bytes: 0,
            },
            1,
            s.cu_stream(),
            &p,
        )
    }
}
