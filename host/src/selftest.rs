//! Primitive self-tests: the table of self-test kernels (what each reads, writes and is launched
//! with) and a runner. The expected results live with the GPU tests (`tests/`).

use crate::device::Device;
use crate::error::Result;
use crate::launch::LaunchDims;
use ferroflash_contract::names::selftest as n;
use ferroflash_contract::smem::PRIMITIVE_TEST_SMEM_BYTES;

/// How one self-test kernel is launched and what it reads and writes (u32 words).
#[derive(Clone, Copy, Debug)]
pub struct SelfTestSpec {
    pub name: &'static str,
    pub dims: LaunchDims,
    pub input_words: usize,
    pub output_words: usize,
}

const fn spec(
    name: &'static str,
    grid: u32,
    block: u32,
    input_words: usize,
    output_words: usize,
) -> SelfTestSpec {
    SelfTestSpec {
        name,
        dims: LaunchDims {
            grid: (grid, 1, 1),
            block_threads: block,
            smem_bytes: PRIMITIVE_TEST_SMEM_BYTES,
        },
        input_words,
        output_words,
    }
}

/// Every self-test kernel. Sizes match the kernels' documented contracts in
/// `kernels-gpu/src/kernels/selftest.rs`.
pub const SPECS: &[SelfTestSpec] = &[
    spec(n::SREG, 2, 64, 0, 4 * 128),
    spec(n::CP_ASYNC, 1, 32, 32 * 4, 32 * 4),
    spec(n::LD_NC_V4, 2, 32, 64 * 4, 64 * 4),
    spec(n::SHFL, 1, 32, 32, 192),
    spec(n::LDMATRIX, 1, 32, 128, 256),
    spec(n::MMA_BF16, 1, 32, 16 * 8 + 8 * 8, 128),
    spec(n::MMA_F16, 1, 32, 16 * 8 + 8 * 8, 128),
    spec(n::MMA_E4M3, 1, 32, 16 * 8 + 8 * 8, 128),
    spec(n::CVT_FP8, 1, 128, 0, 256),
    spec(n::EX2, 1, 32, 32, 32),
    spec(n::WGMMA_BF16, 1, 128, 2 * 64 * 8, 64 * 64),
    spec(n::WGMMA_E4M3, 1, 128, 2 * 64 * 8, 64 * 64),
    spec(n::TCGEN05_MMA, 1, 128, 128 * 8 + 64 * 8, 128 * 64),
    // Q, K, V (64 x 128 bf16 each) in; S (64 x 64 f32) and O (64 x 128 f32) out; three 16 KiB
    // swizzled tiles and up to 1 KiB of alignment in shared memory.
    with_smem(
        spec(n::WGMMA_SW128_ATTN, 1, 128, 3 * 64 * 64, 64 * 64 + 64 * 128),
        49 * 1024,
    ),
];

/// `s` with its own shared-memory window.
const fn with_smem(s: SelfTestSpec, smem_bytes: u32) -> SelfTestSpec {
    SelfTestSpec {
        dims: LaunchDims {
            smem_bytes,
            ..s.dims
        },
        ..s
    }
}

/// Run self-test `name` on `input`, returning its output words.
pub fn run(dev: &Device, name: &str, input: &[u32]) -> Result<Vec<u32>> {
    let spec =
        SPECS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| crate::Error::InvalidArgument {
                name: "selftest",
                why: format!("unknown self-test {name}"),
            })?;
    crate::launch::run_selftest(dev, spec, input)
}

/// Launch the early-K/V test's late writer (`ff_late_write`, sm_90a module only; See Note
/// [early K/V tiles] in docs/DESIGN.md) on `dev`'s stream, without waiting for it: it lets the
/// next programmatic-dependent launch on the stream (a decode call) start at once, waits
/// `delay_ns`, then copies 16-byte chunk `i` from address `pairs[2 i + 1]` to address
/// `pairs[2 i]`, for every `i < pairs.len() / 2`.
///
/// # Safety
/// Every address in `pairs` is a 16-byte aligned address in a device allocation that stays
/// live until the kernel has run; no destination chunk is read by any other kernel in flight
/// except as the test intends.
pub unsafe fn launch_late_write(
    dev: &Device,
    pairs: &cudarc::driver::CudaSlice<u64>,
    delay_ns: u32,
) -> Result<()> {
    use cudarc::driver::DevicePtr;
    let name = ferroflash_contract::names::testing::LATE_WRITE;
    let func = dev.function(name)?;
    let stream = dev.stream();
    let chunks = (pairs.len() / 2) as u32;
    let (addr, _sync) = pairs.device_ptr(stream);
    let params = ferroflash_contract::params::SelfTestParams {
        input: addr,
        output: 0,
        n: chunks,
        mode: delay_ns,
    };
    let dims = LaunchDims {
        grid: (chunks.div_ceil(256).clamp(1, 64), 1, 1),
        block_threads: 256,
        smem_bytes: 0,
    };
    // SAFETY: the caller vouches for every address in `pairs`; `pairs` itself is live for the
    // launch (cudarc orders its release after the stream's work).
    unsafe { crate::launch::launch_raw(dev, &func, dims, stream.cu_stream(), &params) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_selftest_entry_has_a_spec() {
        for name in ferroflash_contract::names::ALL_ENTRIES
            .iter()
            .map(|e| e.0)
            .filter(|n| n.starts_with("ff_test_"))
        {
            assert!(super::SPECS.iter().any(|s| s.name == name), "{name}");
        }
    }
}
