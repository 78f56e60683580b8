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
    pub const WGMMA_SW128_ATTN: &str = "ff_test_wgmma_sw128_attn";
    pub const TCGEN05_MMA: &str = "ff_test_tcgen05_mma";
}

/// Test helpers that are not primitive self-tests.
pub mod testing {
    /// The early-K/V test's late writer (See Note [early K/V tiles] in docs/DESIGN.md).
    pub const LATE_WRITE: &str = "ff_late_write";
}

/// Benchmark helpers.
pub mod bench {
    /// Streaming-read bandwidth probe.
    pub const READ: &str = "ff_bench_read";
    /// The same reads through a page table, CTA by CTA as a decode plan cuts them.
    pub const READ_PAGED: &str = "ff_bench_read_paged";
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

/// The fixed entries with the modules that must carry them (decode variants: [`all_entries`]).
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
    (selftest::WGMMA_SW128_ATTN, ArchSet::Sm90aOnly),
    (selftest::TCGEN05_MMA, ArchSet::Sm100aOnly),
    (decode::COMBINE_BF16, ArchSet::All),
    (decode::COMBINE_F16, ArchSet::All),
    (testing::LATE_WRITE, ArchSet::Sm90aOnly),
    (bench::READ, ArchSet::All),
    (bench::READ_PAGED, ArchSet::All),
];

/// Decode kernels and the combine kernels.
///
/// Decode entry names: `ff_decode_{q}_d{head_dim}_m{rows per CTA: 8 (narrow), 16, 32}` (or
/// `_w{32, 64}` for the row-split consumers, See Note [row-split consumers]; `_m8p` for narrow
/// ones with paired tiles, See Note [paired fp8 tiles]) when Q, K/V and
/// O share a 16-bit type; `ff_decode_{q}_{kv}kv_d.._m..` for a 16-bit Q (and O) over an fp8 KV cache;
/// `ff_decode_{fp8}_d.._m..` for all-fp8 Q/K/V with a bf16 output; `_d{64,128,256}p_..` for
/// the padded variants of 16-bit Q over 16-bit K/V (any head dim up to 64, 128 or 256 that is
/// a multiple of 16) and over an fp8 KV cache (`_{kv}kv_d128p_..`: 80, 96, 112;
/// `_{kv}kv_d256p_..`: 144 ..= 240, and the kv-head-pair view of 80-112).
pub mod decode {
    use super::Elem::{self, Bf16, E4m3, E5m2, F16};
    use super::Variant;

    pub const BF16_D128_M16: &str = "ff_decode_bf16_d128_m16";
    pub const COMBINE_BF16: &str = "ff_decode_combine_bf16";
    pub const COMBINE_F16: &str = "ff_decode_combine_f16";

    /// One table row of [`VARIANTS`]: name, (Q, K/V, O) types, head dim, m16 tiles, row
    /// groups, narrow.
    #[allow(clippy::too_many_arguments)]
    const fn v(
        name: &'static str,
        q: Elem,
        kv: Elem,
        out: Elem,
        head_dim: u32,
        m_tiles: u32,
        row_groups: u32,
        narrow: bool,
    ) -> Variant {
        Variant {
            name,
            q,
            kv,
            out,
            head_dim,
            m_tiles,
            row_groups,
            narrow,
            wgmma: false,
            paired: false,
            padded: false,
        }
    }

    /// Every decode variant (all in every arch module but the `_g64` ones, sm_90a only; fp8 is
    /// converted in software on sm_80):
    /// name, (Q, K/V, O) types, head dim, m16 tiles, row groups, narrow.
    #[rustfmt::skip]
    pub const VARIANTS: &[Variant] = &[
        Variant { wgmma: true, ..v("ff_decode_bf16_d64_g64", Bf16, Bf16, Bf16, 64, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_f16_d64_g64", F16, F16, F16, 64, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_bf16_d128_g64", Bf16, Bf16, Bf16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_f16_d128_g64", F16, F16, F16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_bf16_e4m3kv_d128_g64", Bf16, E4m3, Bf16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_bf16_e5m2kv_d128_g64", Bf16, E5m2, Bf16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_f16_e4m3kv_d128_g64", F16, E4m3, F16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_f16_e5m2kv_d128_g64", F16, E5m2, F16, 128, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_bf16_d256_g64", Bf16, Bf16, Bf16, 256, 4, 4, false) },
        Variant { wgmma: true, ..v("ff_decode_f16_d256_g64", F16, F16, F16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d64p_m16", Bf16, Bf16, Bf16, 64, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d64p_m8", Bf16, Bf16, Bf16, 64, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_d64p_m32", Bf16, Bf16, Bf16, 64, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d64p_w32", Bf16, Bf16, Bf16, 64, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d64p_w64", Bf16, Bf16, Bf16, 64, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d128p_m16", Bf16, Bf16, Bf16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d128p_m8", Bf16, Bf16, Bf16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_d128p_m32", Bf16, Bf16, Bf16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d128p_w32", Bf16, Bf16, Bf16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d128p_w64", Bf16, Bf16, Bf16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d256p_m16", Bf16, Bf16, Bf16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d256p_m8", Bf16, Bf16, Bf16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_d256p_w32", Bf16, Bf16, Bf16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_d256p_w64", Bf16, Bf16, Bf16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_d64p_m16", F16, F16, F16, 64, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_d64p_m8", F16, F16, F16, 64, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_d64p_m32", F16, F16, F16, 64, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_d64p_w32", F16, F16, F16, 64, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_d64p_w64", F16, F16, F16, 64, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_d128p_m16", F16, F16, F16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_d128p_m8", F16, F16, F16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_d128p_m32", F16, F16, F16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_d128p_w32", F16, F16, F16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_d128p_w64", F16, F16, F16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_d256p_m16", F16, F16, F16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_d256p_m8", F16, F16, F16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_d256p_w32", F16, F16, F16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_d256p_w64", F16, F16, F16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d128p_m16", Bf16, E4m3, Bf16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d128p_m8", Bf16, E4m3, Bf16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d128p_m32", Bf16, E4m3, Bf16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d128p_w32", Bf16, E4m3, Bf16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d128p_w64", Bf16, E4m3, Bf16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d128p_m16", Bf16, E5m2, Bf16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d128p_m8", Bf16, E5m2, Bf16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d128p_m32", Bf16, E5m2, Bf16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d128p_w32", Bf16, E5m2, Bf16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d128p_w64", Bf16, E5m2, Bf16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d128p_m16", F16, E4m3, F16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d128p_m8", F16, E4m3, F16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d128p_m32", F16, E4m3, F16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d128p_w32", F16, E4m3, F16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d128p_w64", F16, E4m3, F16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d128p_m16", F16, E5m2, F16, 128, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d128p_m8", F16, E5m2, F16, 128, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d128p_m32", F16, E5m2, F16, 128, 2, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d128p_w32", F16, E5m2, F16, 128, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d128p_w64", F16, E5m2, F16, 128, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d256p_m16", Bf16, E4m3, Bf16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d256p_m8", Bf16, E4m3, Bf16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d256p_w32", Bf16, E4m3, Bf16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e4m3kv_d256p_w64", Bf16, E4m3, Bf16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d256p_m16", Bf16, E5m2, Bf16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d256p_m8", Bf16, E5m2, Bf16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d256p_w32", Bf16, E5m2, Bf16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_bf16_e5m2kv_d256p_w64", Bf16, E5m2, Bf16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d256p_m16", F16, E4m3, F16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d256p_m8", F16, E4m3, F16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d256p_w32", F16, E4m3, F16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_e4m3kv_d256p_w64", F16, E4m3, F16, 256, 4, 4, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d256p_m16", F16, E5m2, F16, 256, 1, 1, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d256p_m8", F16, E5m2, F16, 256, 1, 1, true) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d256p_w32", F16, E5m2, F16, 256, 2, 2, false) },
        Variant { padded: true, ..v("ff_decode_f16_e5m2kv_d256p_w64", F16, E5m2, F16, 256, 4, 4, false) },
        v("ff_decode_bf16_d64_m16", Bf16, Bf16, Bf16, 64, 1, 1, false),
        v("ff_decode_bf16_d64_m8", Bf16, Bf16, Bf16, 64, 1, 1, true),
        v("ff_decode_bf16_d64_m32", Bf16, Bf16, Bf16, 64, 2, 1, false),
        v("ff_decode_bf16_d64_w32", Bf16, Bf16, Bf16, 64, 2, 2, false),
        v("ff_decode_bf16_d64_w64", Bf16, Bf16, Bf16, 64, 4, 4, false),
        v("ff_decode_bf16_d128_m16", Bf16, Bf16, Bf16, 128, 1, 1, false),
        v("ff_decode_bf16_d128_m8", Bf16, Bf16, Bf16, 128, 1, 1, true),
        v("ff_decode_bf16_d128_m32", Bf16, Bf16, Bf16, 128, 2, 1, false),
        v("ff_decode_bf16_d128_w32", Bf16, Bf16, Bf16, 128, 2, 2, false),
        v("ff_decode_bf16_d128_w64", Bf16, Bf16, Bf16, 128, 4, 4, false),
        v("ff_decode_bf16_d256_m16", Bf16, Bf16, Bf16, 256, 1, 1, false),
        v("ff_decode_bf16_d256_m8", Bf16, Bf16, Bf16, 256, 1, 1, true),
        v("ff_decode_bf16_d256_w32", Bf16, Bf16, Bf16, 256, 2, 2, false),
        v("ff_decode_bf16_d256_w64", Bf16, Bf16, Bf16, 256, 4, 4, false),
        v("ff_decode_f16_d64_m16", F16, F16, F16, 64, 1, 1, false),
        v("ff_decode_f16_d64_m8", F16, F16, F16, 64, 1, 1, true),
        v("ff_decode_f16_d64_m32", F16, F16, F16, 64, 2, 1, false),
        v("ff_decode_f16_d64_w32", F16, F16, F16, 64, 2, 2, false),
        v("ff_decode_f16_d64_w64", F16, F16, F16, 64, 4, 4, false),
        v("ff_decode_f16_d128_m16", F16, F16, F16, 128, 1, 1, false),
        v("ff_decode_f16_d128_m8", F16, F16, F16, 128, 1, 1, true),
        v("ff_decode_f16_d128_m32", F16, F16, F16, 128, 2, 1, false),
        v("ff_decode_f16_d128_w32", F16, F16, F16, 128, 2, 2, false),
        v("ff_decode_f16_d128_w64", F16, F16, F16, 128, 4, 4, false),
        v("ff_decode_f16_d256_m16", F16, F16, F16, 256, 1, 1, false),
        v("ff_decode_f16_d256_m8", F16, F16, F16, 256, 1, 1, true),
        v("ff_decode_f16_d256_w32", F16, F16, F16, 256, 2, 2, false),
        v("ff_decode_f16_d256_w64", F16, F16, F16, 256, 4, 4, false),
        v("ff_decode_bf16_e4m3kv_d64_m16", Bf16, E4m3, Bf16, 64, 1, 1, false),
        v("ff_decode_bf16_e4m3kv_d64_m8", Bf16, E4m3, Bf16, 64, 1, 1, true),
        v("ff_decode_bf16_e4m3kv_d64_m32", Bf16, E4m3, Bf16, 64, 2, 1, false),
        v("ff_decode_bf16_e4m3kv_d64_w32", Bf16, E4m3, Bf16, 64, 2, 2, false),
        v("ff_decode_bf16_e4m3kv_d64_w64", Bf16, E4m3, Bf16, 64, 4, 4, false),
        v("ff_decode_bf16_e4m3kv_d128_m16", Bf16, E4m3, Bf16, 128, 1, 1, false),
        v("ff_decode_bf16_e4m3kv_d128_m8", Bf16, E4m3, Bf16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_bf16_e4m3kv_d128_m8p", Bf16, E4m3, Bf16, 128, 1, 1, true) },
        v("ff_decode_bf16_e4m3kv_d128_m32", Bf16, E4m3, Bf16, 128, 2, 1, false),
        v("ff_decode_bf16_e4m3kv_d128_w32", Bf16, E4m3, Bf16, 128, 2, 2, false),
        v("ff_decode_bf16_e4m3kv_d128_w64", Bf16, E4m3, Bf16, 128, 4, 4, false),
        v("ff_decode_bf16_e4m3kv_d256_m16", Bf16, E4m3, Bf16, 256, 1, 1, false),
        v("ff_decode_bf16_e4m3kv_d256_m8", Bf16, E4m3, Bf16, 256, 1, 1, true),
        v("ff_decode_bf16_e4m3kv_d256_w32", Bf16, E4m3, Bf16, 256, 2, 2, false),
        v("ff_decode_bf16_e4m3kv_d256_w64", Bf16, E4m3, Bf16, 256, 4, 4, false),
        v("ff_decode_bf16_e5m2kv_d64_m16", Bf16, E5m2, Bf16, 64, 1, 1, false),
        v("ff_decode_bf16_e5m2kv_d64_m8", Bf16, E5m2, Bf16, 64, 1, 1, true),
        v("ff_decode_bf16_e5m2kv_d64_m32", Bf16, E5m2, Bf16, 64, 2, 1, false),
        v("ff_decode_bf16_e5m2kv_d64_w32", Bf16, E5m2, Bf16, 64, 2, 2, false),
        v("ff_decode_bf16_e5m2kv_d64_w64", Bf16, E5m2, Bf16, 64, 4, 4, false),
        v("ff_decode_bf16_e5m2kv_d128_m16", Bf16, E5m2, Bf16, 128, 1, 1, false),
        v("ff_decode_bf16_e5m2kv_d128_m8", Bf16, E5m2, Bf16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_bf16_e5m2kv_d128_m8p", Bf16, E5m2, Bf16, 128, 1, 1, true) },
        v("ff_decode_bf16_e5m2kv_d128_m32", Bf16, E5m2, Bf16, 128, 2, 1, false),
        v("ff_decode_bf16_e5m2kv_d128_w32", Bf16, E5m2, Bf16, 128, 2, 2, false),
        v("ff_decode_bf16_e5m2kv_d128_w64", Bf16, E5m2, Bf16, 128, 4, 4, false),
        v("ff_decode_bf16_e5m2kv_d256_m16", Bf16, E5m2, Bf16, 256, 1, 1, false),
        v("ff_decode_bf16_e5m2kv_d256_m8", Bf16, E5m2, Bf16, 256, 1, 1, true),
        v("ff_decode_bf16_e5m2kv_d256_w32", Bf16, E5m2, Bf16, 256, 2, 2, false),
        v("ff_decode_bf16_e5m2kv_d256_w64", Bf16, E5m2, Bf16, 256, 4, 4, false),
        v("ff_decode_f16_e4m3kv_d64_m16", F16, E4m3, F16, 64, 1, 1, false),
        v("ff_decode_f16_e4m3kv_d64_m8", F16, E4m3, F16, 64, 1, 1, true),
        v("ff_decode_f16_e4m3kv_d64_m32", F16, E4m3, F16, 64, 2, 1, false),
        v("ff_decode_f16_e4m3kv_d64_w32", F16, E4m3, F16, 64, 2, 2, false),
        v("ff_decode_f16_e4m3kv_d64_w64", F16, E4m3, F16, 64, 4, 4, false),
        v("ff_decode_f16_e4m3kv_d128_m16", F16, E4m3, F16, 128, 1, 1, false),
        v("ff_decode_f16_e4m3kv_d128_m8", F16, E4m3, F16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_f16_e4m3kv_d128_m8p", F16, E4m3, F16, 128, 1, 1, true) },
        v("ff_decode_f16_e4m3kv_d128_m32", F16, E4m3, F16, 128, 2, 1, false),
        v("ff_decode_f16_e4m3kv_d128_w32", F16, E4m3, F16, 128, 2, 2, false),
        v("ff_decode_f16_e4m3kv_d128_w64", F16, E4m3, F16, 128, 4, 4, false),
        v("ff_decode_f16_e4m3kv_d256_m16", F16, E4m3, F16, 256, 1, 1, false),
        v("ff_decode_f16_e4m3kv_d256_m8", F16, E4m3, F16, 256, 1, 1, true),
        v("ff_decode_f16_e4m3kv_d256_w32", F16, E4m3, F16, 256, 2, 2, false),
        v("ff_decode_f16_e4m3kv_d256_w64", F16, E4m3, F16, 256, 4, 4, false),
        v("ff_decode_f16_e5m2kv_d64_m16", F16, E5m2, F16, 64, 1, 1, false),
        v("ff_decode_f16_e5m2kv_d64_m8", F16, E5m2, F16, 64, 1, 1, true),
        v("ff_decode_f16_e5m2kv_d64_m32", F16, E5m2, F16, 64, 2, 1, false),
        v("ff_decode_f16_e5m2kv_d64_w32", F16, E5m2, F16, 64, 2, 2, false),
        v("ff_decode_f16_e5m2kv_d64_w64", F16, E5m2, F16, 64, 4, 4, false),
        v("ff_decode_f16_e5m2kv_d128_m16", F16, E5m2, F16, 128, 1, 1, false),
        v("ff_decode_f16_e5m2kv_d128_m8", F16, E5m2, F16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_f16_e5m2kv_d128_m8p", F16, E5m2, F16, 128, 1, 1, true) },
        v("ff_decode_f16_e5m2kv_d128_m32", F16, E5m2, F16, 128, 2, 1, false),
        v("ff_decode_f16_e5m2kv_d128_w32", F16, E5m2, F16, 128, 2, 2, false),
        v("ff_decode_f16_e5m2kv_d128_w64", F16, E5m2, F16, 128, 4, 4, false),
        v("ff_decode_f16_e5m2kv_d256_m16", F16, E5m2, F16, 256, 1, 1, false),
        v("ff_decode_f16_e5m2kv_d256_m8", F16, E5m2, F16, 256, 1, 1, true),
        v("ff_decode_f16_e5m2kv_d256_w32", F16, E5m2, F16, 256, 2, 2, false),
        v("ff_decode_f16_e5m2kv_d256_w64", F16, E5m2, F16, 256, 4, 4, false),
        v("ff_decode_e4m3_d64_m16", E4m3, E4m3, Bf16, 64, 1, 1, false),
        v("ff_decode_e4m3_d64_m8", E4m3, E4m3, Bf16, 64, 1, 1, true),
        v("ff_decode_e4m3_d64_m32", E4m3, E4m3, Bf16, 64, 2, 1, false),
        v("ff_decode_e4m3_d64_w32", E4m3, E4m3, Bf16, 64, 2, 2, false),
        v("ff_decode_e4m3_d64_w64", E4m3, E4m3, Bf16, 64, 4, 4, false),
        v("ff_decode_e4m3_d128_m16", E4m3, E4m3, Bf16, 128, 1, 1, false),
        v("ff_decode_e4m3_d128_m8", E4m3, E4m3, Bf16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_e4m3_d128_m8p", E4m3, E4m3, Bf16, 128, 1, 1, true) },
        v("ff_decode_e4m3_d128_m32", E4m3, E4m3, Bf16, 128, 2, 1, false),
        v("ff_decode_e4m3_d128_w32", E4m3, E4m3, Bf16, 128, 2, 2, false),
        v("ff_decode_e4m3_d128_w64", E4m3, E4m3, Bf16, 128, 4, 4, false),
        v("ff_decode_e4m3_d256_m16", E4m3, E4m3, Bf16, 256, 1, 1, false),
        v("ff_decode_e4m3_d256_m8", E4m3, E4m3, Bf16, 256, 1, 1, true),
        v("ff_decode_e4m3_d256_w32", E4m3, E4m3, Bf16, 256, 2, 2, false),
        v("ff_decode_e4m3_d256_w64", E4m3, E4m3, Bf16, 256, 4, 4, false),
        v("ff_decode_e5m2_d64_m16", E5m2, E5m2, Bf16, 64, 1, 1, false),
        v("ff_decode_e5m2_d64_m8", E5m2, E5m2, Bf16, 64, 1, 1, true),
        v("ff_decode_e5m2_d64_m32", E5m2, E5m2, Bf16, 64, 2, 1, false),
        v("ff_decode_e5m2_d64_w32", E5m2, E5m2, Bf16, 64, 2, 2, false),
        v("ff_decode_e5m2_d64_w64", E5m2, E5m2, Bf16, 64, 4, 4, false),
        v("ff_decode_e5m2_d128_m16", E5m2, E5m2, Bf16, 128, 1, 1, false),
        v("ff_decode_e5m2_d128_m8", E5m2, E5m2, Bf16, 128, 1, 1, true),
        Variant { paired: true, ..v("ff_decode_e5m2_d128_m8p", E5m2, E5m2, Bf16, 128, 1, 1, true) },
        v("ff_decode_e5m2_d128_m32", E5m2, E5m2, Bf16, 128, 2, 1, false),
        v("ff_decode_e5m2_d128_w32", E5m2, E5m2, Bf16, 128, 2, 2, false),
        v("ff_decode_e5m2_d128_w64", E5m2, E5m2, Bf16, 128, 4, 4, false),
        v("ff_decode_e5m2_d256_m16", E5m2, E5m2, Bf16, 256, 1, 1, false),
        v("ff_decode_e5m2_d256_m8", E5m2, E5m2, Bf16, 256, 1, 1, true),
        v("ff_decode_e5m2_d256_w32", E5m2, E5m2, Bf16, 256, 2, 2, false),
        v("ff_decode_e5m2_d256_w64", E5m2, E5m2, Bf16, 256, 4, 4, false),
    ];
}

/// Element type of a decode operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Bf16,
    F16,
    E4m3,
    E5m2,
}

impl Elem {
    /// The format's short name (`bf16`, `f16`, `e4m3`, `e5m2`).
    pub const fn name(self) -> &'static str {
        match self {
            Elem::Bf16 => "bf16",
            Elem::F16 => "f16",
            Elem::E4m3 => "e4m3",
            Elem::E5m2 => "e5m2",
        }
    }
    /// Bytes per element.
    pub const fn bytes(self) -> u32 {
        match self {
            Elem::Bf16 | Elem::F16 => 2,
            Elem::E4m3 | Elem::E5m2 => 1,
        }
    }
}

/// One decode kernel variant: operand types and geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: &'static str,
    pub q: Elem,
    pub kv: Elem,
    pub out: Elem,
    /// The tiles' head dim (64, 128 or 256); with `padded`, the largest head dim the variant
    /// takes.
    pub head_dim: u32,
    /// Padded: any head dim up to `head_dim`, a multiple of 16 (Q, K/V and O rows of that
    /// many columns in memory, tiles of `head_dim` columns whose pad is zero; See Note [padded
    /// head dims] in docs/DESIGN.md); named `_d{head_dim}p`. 16-bit Q over 16-bit K/V (tiles
    /// of 64, 128, 256) or an fp8 KV cache (tiles of 128); no wgmma, no paired tiles.
    pub padded: bool,
    /// m16 tiles of packed query rows per CTA.
    pub m_tiles: u32,
    /// Row groups of the consumer warps (`DecodeGeometry::row_groups`): 1 for the key-split
    /// `_m8` / `_m16` / `_m32` variants, 2 and 4 for the row-split `_w32` and `_w64` ones.
    pub row_groups: u32,
    /// Narrow (with `m_tiles == 1`): at most 8 real rows per CTA, swapped-operand consumers
    /// (See Note [narrow rows] in docs/DESIGN.md); named `_m8`.
    pub narrow: bool,
    /// A wgmma consumer (`_g64`, only in the sm_90a module; See Note [wgmma consumer]).
    pub wgmma: bool,
    /// Paired tiles (narrow fp8 at head dim 128; `DecodeGeometry::paired`, See Note [paired
    /// fp8 tiles]); named `_m8p`.
    pub paired: bool,
}

/// Every entry (fixed ones and decode variants) with the modules that must carry it.
pub fn all_entries() -> impl Iterator<Item = (&'static str, ArchSet)> {
    ALL_ENTRIES
        .iter()
        .copied()
        .chain(decode::VARIANTS.iter().map(|v| {
            let set = if v.wgmma {
                ArchSet::Sm90aOnly
            } else if v.padded && v.kv.bytes() == 1 {
                ArchSet::Sm89Plus
            } else {
                ArchSet::All
            };
            (v.name, set)
        }))
}
