//! A CUDA device as ferroflash sees it: its capabilities, its stream, and the one PTX module
//! chosen for its compute capability.

use crate::error::{Error, Result};
use crate::module::{arch_set_of, needs, ModuleArch};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// What the planner and the launch layer need to know about a GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceCaps {
    /// Marketing name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Largest dynamic shared memory one block may opt into, bytes.
    pub max_smem_per_block_optin_bytes: u32,
    /// Shared memory per SM, bytes.
    pub smem_per_sm_bytes: u32,
    /// L2 cache, bytes.
    pub l2_bytes: u32,
    /// Device memory, bytes.
    pub total_mem_bytes: u64,
}

/// Whether a CUDA driver library can be loaded here. Never panics.
pub fn driver_present() -> bool {
    // SAFETY: only probes for the shared library; no driver call is made.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// A CUDA context (by its handle) and a module arch: see [`Device::key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceKey {
    ctx: usize,
    arch: ModuleArch,
}

/// A cluster occupancy query: (kernel, threads per CTA, shared memory bytes, cluster size).
pub(crate) type ClusterQuery = (&'static str, u32, u32, u32);

/// A GPU with its stream and loaded ferroflash module.
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    caps: DeviceCaps,
    arch: ModuleArch,
    /// Loaded kernels, each from its own one-entry module (See Note [one module per entry] in
    /// docs/DESIGN.md), JIT-compiled by the driver on first use, or from the embedded cubin.
    functions: Mutex<HashMap<&'static str, CudaFunction>>,
    /// The embedded cubin of this device's module, loaded on first use; `None` where the build
    /// embedded none, `FF_JIT_PTX=1` asks for the PTX path, or the driver refused the image.
    cubin: OnceLock<Option<Arc<CudaModule>>>,
    /// Answers of the cluster occupancy query.
    cluster_capacity: Mutex<HashMap<ClusterQuery, u32>>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("caps", &self.caps)
            .field("arch", &self.arch)
            .finish()
    }
}

impl Device {
    /// Open device `ordinal` with a new stream. Returns [`Error::NoDriver`] (never panics) where
    /// no driver is installed, [`Error::UnsupportedArch`] for GPUs older than sm_80.
    pub fn new(ordinal: usize) -> Result<Device> {
        if !driver_present() {
            return Err(Error::NoDriver);
        }
        let count =
            CudaContext::device_count().map_err(Error::driver("cuDeviceGetCount"))? as usize;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(Error::driver("cuCtxCreate"))?;
        let stream = ctx.new_stream().map_err(Error::driver("cuStreamCreate"))?;
        Device::from_stream(stream)
    }

    /// Use a caller's cudarc stream (candle, mistral.rs and other cudarc users share theirs).
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Device> {
        Device::from_stream_with(stream, None)
    }

    /// Like [`Device::from_stream`] with an explicit module instead of the one the compute
    /// capability selects, e.g. the portable sm_80 module on a Hopper GPU (the tests run the
    /// sm_80 code paths this way). Refused with [`Error::UnsupportedArch`] when the GPU cannot
    /// run that module (arch-specific modules run only on their own compute capability).
    pub fn with_module(stream: Arc<CudaStream>, arch: ModuleArch) -> Result<Device> {
        Device::from_stream_with(stream, Some(arch))
    }

    fn from_stream_with(stream: Arc<CudaStream>, forced: Option<ModuleArch>) -> Result<Device> {
        let ctx = stream.context().clone();
        let attr = |a: Attr, op: &'static str| ctx.attribute(a).map_err(Error::driver(op));
        let cc = ctx
            .compute_capability()
            .map_err(Error::driver("compute capability"))?;
        let caps = DeviceCaps {
            name: ctx.name().map_err(Error::driver("cuDeviceGetName"))?,
            compute_capability: cc,
            sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count")? as u32,
            max_smem_per_block_optin_bytes: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "smem opt-in",
            )? as u32,
            smem_per_sm_bytes: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                "smem per SM",
            )? as u32,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size")? as u32,
            total_mem_bytes: ctx.total_mem().map_err(Error::driver("cuDeviceTotalMem"))? as u64,
        };
        let native = ModuleArch::for_compute_capability(cc.0, cc.1)?;
        let arch = match forced {
            None => native,
            Some(ModuleArch::Sm80) => ModuleArch::Sm80,
            Some(a) if a == native => a,
            Some(_) => {
                return Err(Error::UnsupportedArch {
                    major: cc.0,
                    minor: cc.1,
                })
            }
        };
        Ok(Device {
            ctx,
            stream,
            caps,
            arch,
            functions: Mutex::new(HashMap::new()),
            cubin: OnceLock::new(),
            cluster_capacity: Mutex::new(HashMap::new()),
        })
    }

    /// The device's capabilities.
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }
    /// The PTX module in use.
    pub fn arch(&self) -> ModuleArch {
        self.arch
    }
    /// The stream ferroflash launches on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
    /// The CUDA context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
    /// What a plan built on this device is bound to: its CUDA context (where the plan's buffers
    /// live) and its module (the kernels the plan names).
    pub(crate) fn key(&self) -> DeviceKey {
        DeviceKey {
            ctx: self.ctx.cu_ctx() as usize,
            arch: self.arch,
        }
    }

    /// A kernel of the loaded module, or a typed error naming what the module lacks.
    pub(crate) fn function(&self, name: &'static str) -> Result<CudaFunction> {
        let set = arch_set_of(name).ok_or(Error::InvalidArgument {
            name: "kernel",
            why: format!("unknown entry {name}"),
        })?;
        let not_here = || Error::KernelNotInArch {
            kernel: name,
            arch: self.arch.name(),
            needs: needs(set),
        };
        if !self.arch.carries(set) {
            return Err(not_here());
        }
        let mut map = self.functions.lock().unwrap();
        if let Some(f) = map.get(name) {
            return Ok(f.clone());
        }
        // The module stays loaded while a function of it lives (cudarc keeps it).
        let module = match self.cubin_module() {
            Some(m) => m.clone(),
            None => {
                let text = self.arch.split().module_of(name).ok_or_else(not_here)?;
                self.ctx
                    .load_module(cudarc::nvrtc::Ptx::from_src(text))
                    .map_err(Error::driver("cuModuleLoadData"))?
            }
        };
        let f = module
            .load_function(name)
            .map_err(Error::driver("cuModuleGetFunction"))?;
        map.insert(name, f.clone());
        Ok(f)
    }

    /// The whole module from the embedded cubin, loaded once (no JIT); `None` sends the caller
    /// to the per-entry PTX.
    fn cubin_module(&self) -> Option<&Arc<CudaModule>> {
        self.cubin
            .get_or_init(|| {
                let image = self.arch.cubin()?;
                if std::env::var("FF_JIT_PTX").is_ok_and(|v| v == "1") {
                    return None;
                }
                self.ctx
                    .load_module(cudarc::nvrtc::Ptx::from_binary(image.to_vec()))
                    .ok()
            })
            .as_ref()
    }

    /// Where this device's kernels come from, for logs: `"embedded cubin"` (loaded without JIT)
    /// or `"PTX, JIT per entry"`.
    pub fn kernel_source(&self) -> &'static str {
        if self.cubin_module().is_some() {
            "embedded cubin"
        } else {
            "PTX, JIT per entry"
        }
    }

    /// Load (and have the driver JIT-compile) the kernels `ferroflash` may launch here now,
    /// rather than on their first use: every decode, combine and probe entry this device's
    /// module carries (not the self-tests and test helpers). Kernels load on first use otherwise, about 0.1-1 s
    /// each without the driver's JIT cache (docs/DESIGN.md, Note [one module per entry]); a
    /// server that must not pause mid-request, or that captures CUDA graphs in the global
    /// capture mode (which forbids module loads), calls this once at start-up. Plans load their
    /// own kernels when built.
    pub fn preload(&self) -> Result<()> {
        for (name, set) in ferroflash_contract::names::all_entries() {
            let test_only = name.starts_with("ff_test_")
                || name == ferroflash_contract::names::testing::LATE_WRITE;
            if self.arch.carries(set) && !test_only {
                self.function(name)?;
            }
        }
        Ok(())
    }

    /// `query()`'s answer for `key`, asked once per device (the occupancy API's answers do not
    /// change while the module is loaded).
    pub(crate) fn cached_cluster_capacity(
        &self,
        key: ClusterQuery,
        query: impl FnOnce() -> Result<u32>,
    ) -> Result<u32> {
        if let Some(&n) = self.cluster_capacity.lock().unwrap().get(&key) {
            return Ok(n);
        }
        let n = query()?;
        self.cluster_capacity.lock().unwrap().insert(key, n);
        Ok(n)
    }
}
