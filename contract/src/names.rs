//! Kernel entry names: the one list the host loads by and the tests check every PTX against.

/// Primitive self-test kernels (`kernels-gpu/src/kernels/selftest.rs`).
pub mod selftest {
    pub const SREG: &str = "ff_test_sreg";
    pub const CP_ASYNC: &str = "ff_test_cp_async";
    pub const LD_NC_V4: &str = "ff_test_ld_nc_v4";
    pub const SHFL: &str = "ff_test_shfl";
    pub const LDMATRIX: &str = "ff_test_ldmatrix";
    pub const MMA_BF16: &str = "ff_test_mma_bf16";
    pub const MMA_F16: &str = "ff_test_mma_f16";
    pub const MMA_E4M3: &str = "ff_test_mma_e4m3";
    pub const CVT_FP8: &str = "ff_test_cvt_fp8";
    pub const EX2: &str = "ff_test_ex2";
    pub const WGMMA_BF16: &str = "ff_test_wgmma_bf16";
    pub const WGMMA_E4M3: &str = "ff_test_wgmma_e4m3";
    pub const TCGEN05_MMA: &str = "ff_test_tcgen05_mma";
}

/// Benchmark helpers.
pub mod bench {
    /// Streaming-read bandwidth probe.
    pub const READ: &str = "ff_bench_read";
}

/// Which PTX modules carry an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchSet {
    /// Every arch module.
    All,
    /// sm_89 and newer (sm_90a, sm_100a modules).
    Sm89Plus,
    /// Only the sm_90a module.
    Sm90aOnly,
    /// Only the sm_100a module.
    Sm100aOnly,
}

/// Every entry with the modules that must carry it.
pub const ALL_ENTRIES: &[(&str, ArchSet)] = &[
    (selftest::SREG, ArchSet::All),
    (selftest::CP_ASYNC, ArchSet::All),
    (selftest::LD_NC_V4, ArchSet::All),
    (selftest::SHFL, ArchSet::All),
    (selftest::LDMATRIX, ArchSet::All),
    (selftest::MMA_BF16, ArchSet::All),
    (selftest::MMA_F16, ArchSet::All),
    (selftest::MMA_E4M3, ArchSet::Sm89Plus),
    (selftest::CVT_FP8, ArchSet::Sm89Plus),
    (selftest::EX2, ArchSet::All),
    (selftest::WGMMA_BF16, ArchSet::Sm90aOnly),
    (selftest::WGMMA_E4M3, ArchSet::Sm90aOnly),
    (selftest::TCGEN05_MMA, ArchSet::Sm100aOnly),
    (decode::BF16_D64_M16, ArchSet::All),
    (decode::BF16_D64_M32, ArchSet::All),
    (decode::BF16_D128_M16, ArchSet::All),
    (decode::BF16_D128_M32, ArchSet::All),
    (decode::BF16_D256_M16, ArchSet::All),
    (decode::F16_D64_M16, ArchSet::All),
    (decode::F16_D64_M32, ArchSet::All),
    (decode::F16_D128_M16, ArchSet::All),
    (decode::F16_D128_M32, ArchSet::All),
    (decode::F16_D256_M16, ArchSet::All),
    (decode::COMBINE_BF16, ArchSet::All),
    (decode::COMBINE_F16, ArchSet::All),
    (bench::READ, ArchSet::All),
];

/// Decode kernels: `ff_decode_{dtype}_d{head_dim}_m{rows per CTA}` and the combine kernels.
pub mod decode {
    pub const BF16_D64_M16: &str = "ff_decode_bf16_d64_m16";
    pub const BF16_D64_M32: &str = "ff_decode_bf16_d64_m32";
    pub const BF16_D128_M16: &str = "ff_decode_bf16_d128_m16";
    pub const BF16_D128_M32: &str = "ff_decode_bf16_d128_m32";
    pub const BF16_D256_M16: &str = "ff_decode_bf16_d256_m16";
    pub const F16_D64_M16: &str = "ff_decode_f16_d64_m16";
    pub const F16_D64_M32: &str = "ff_decode_f16_d64_m32";
    pub const F16_D128_M16: &str = "ff_decode_f16_d128_m16";
    pub const F16_D128_M32: &str = "ff_decode_f16_d128_m32";
    pub const F16_D256_M16: &str = "ff_decode_f16_d256_m16";
    pub const COMBINE_BF16: &str = "ff_decode_combine_bf16";
    pub const COMBINE_F16: &str = "ff_decode_combine_f16";

    /// (name, is_f16, head_dim, m_tiles) of every decode variant.
    pub const VARIANTS: &[(&str, bool, u32, u32)] = &[
        (BF16_D64_M16, false, 64, 1),
        (BF16_D64_M32, false, 64, 2),
        (BF16_D128_M16, false, 128, 1),
        (BF16_D128_M32, false, 128, 2),
        (BF16_D256_M16, false, 256, 1),
        (F16_D64_M16, true, 64, 1),
        (F16_D64_M32, true, 64, 2),
        (F16_D128_M16, true, 128, 1),
        (F16_D128_M32, true, 128, 2),
        (F16_D256_M16, true, 256, 1),
    ];
}
