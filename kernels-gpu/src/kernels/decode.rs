//! Decode entry points: one per (operand types, head dim, rows per CTA: 8 narrow, 16, 32, and
//! the row-split 32 and 64), plus the combine kernels. Names are listed in `ferroflash_contract::names::decode::VARIANTS`.

use crate::attention::combine::combine_cta;
use crate::attention::decode::{decode_cta, Operands};
use crate::attention::kv::{Kv16, Kv8, KvFormat, QBf16AsF16, Q16, Q8};
use crate::tile::{Bf16, E4m3, E5m2, F16};
use ferroflash_contract::decode::{geometry_paired, geometry_wgmma, stages_for};
use ferroflash_contract::params::DecodeParams;

macro_rules! operands {
    ($(#[$doc:meta])* $name:ident: QK $eq:ty, PV $ev:ty, out $eo:ty, K/V $k:ty, Q $q:ty) => {
        $(#[$doc])*
        pub struct $name;
        impl Operands for $name {
            type EQ = $eq;
            type EV = $ev;
            type EO = $eo;
            type K = $k;
            type Q = $q;
        }
    };
}

operands!(/// bf16 Q, K, V, O.
    Bf16Ops: QK Bf16, PV Bf16, out Bf16, K/V Kv16, Q Q16);
operands!(/// f16 Q, K, V, O.
    F16Ops: QK F16, PV F16, out F16, K/V Kv16, Q Q16);
operands!(/// bf16 Q and O over an e4m3 KV cache: Q rows scaled into f16, K and V decoded to f16.
    Bf16E4m3Kv: QK F16, PV F16, out Bf16, K/V Kv8<E4m3>, Q QBf16AsF16);
operands!(/// bf16 Q and O over an e5m2 KV cache.
    Bf16E5m2Kv: QK F16, PV F16, out Bf16, K/V Kv8<E5m2>, Q QBf16AsF16);
operands!(/// f16 Q and O over an e4m3 KV cache.
    F16E4m3Kv: QK F16, PV F16, out F16, K/V Kv8<E4m3>, Q Q16);
operands!(/// f16 Q and O over an e5m2 KV cache.
    F16E5m2Kv: QK F16, PV F16, out F16, K/V Kv8<E5m2>, Q Q16);
operands!(/// e4m3 Q, K, V (decoded to f16), bf16 O.
    AllE4m3: QK F16, PV F16, out Bf16, K/V Kv8<E4m3>, Q Q8<E4m3>);
operands!(/// e5m2 Q, K, V (decoded to f16), bf16 O.
    AllE5m2: QK F16, PV F16, out Bf16, K/V Kv8<E5m2>, Q Q8<E5m2>);

macro_rules! decode_entry {
    ($name:ident, $ops:ty, $d:literal, $mt:literal) => {
        decode_entry!($name, $ops, $d, $mt, 1, false);
    };
    ($name:ident, $ops:ty, $d:literal, $mt:literal, $narrow:literal) => {
        decode_entry!($name, $ops, $d, $mt, 1, $narrow);
    };
    // wgmma (`_g64`) variants: 64 rows, one consumer warpgroup; sm_90a only (See Note [wgmma
    // consumer]).
    ($name:ident, $ops:ty, $d:literal, wgmma) => {
        #[cfg(target_feature = "sm_90a")]
        decode_entry!($name, $ops, $d, 1, 4, false, true, false, false);
    };
    // Padded (`_d{D}p`) variants: any head dim up to `$d`, a multiple of 16, in tiles of `$d`
    // columns (See Note [padded head dims]): the key-split layouts (`$mt` m16 tiles, or
    // narrow) and the row-split ones (`rows $rg`).
    ($name:ident, $ops:ty, $d:literal, pad $mt:literal) => {
        decode_entry!($name, $ops, $d, $mt, 1, false, false, false, true);
    };
    ($name:ident, $ops:ty, $d:literal, pad narrow) => {
        decode_entry!($name, $ops, $d, 1, 1, true, false, false, true);
    };
    ($name:ident, $ops:ty, $d:literal, pad rows $rg:literal) => {
        decode_entry!($name, $ops, $d, 1, $rg, false, false, false, true);
    };
    // Paired (`_m8p`) variants: narrow, the ring's tiles two at a time (See Note [paired fp8
    // tiles]).
    ($name:ident, $ops:ty, $d:literal, paired) => {
        decode_entry!($name, $ops, $d, 1, 1, true, false, true, false);
    };
    // Row-split (`_w`) variants: one m16 tile per warp, `$rg` row groups.
    ($name:ident, $ops:ty, $d:literal, rows $rg:literal) => {
        decode_entry!($name, $ops, $d, 1, $rg, false, false, false, false);
    };
    ($name:ident, $ops:ty, $d:literal, $mt:literal, $rg:literal, $narrow:literal) => {
        decode_entry!($name, $ops, $d, $mt, $rg, $narrow, false, false, false);
    };
    ($name:ident, $ops:ty, $d:literal, $mt:literal, $rg:literal, $narrow:literal, $wg:literal, $paired:literal, $pad:literal) => {
        /// Paged decode CTA (see `attention::decode`).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(p: DecodeParams) {
            // The TMA unit reads the K/V tensor maps from `p` in `.param` space; the address
            // is taken where the load warp uses it (a value live across the consumers' code
            // would cost two registers there).
            let params_addr = || -> u64 {
                #[cfg(target_feature = "sm_90")]
                return $crate::kernel_param0_address!($name);
                #[cfg(not(target_feature = "sm_90"))]
                return 0;
            };
            // SAFETY: launch contract of `decode_cta`, established by the host launch layer.
            unsafe {
                decode_cta::<
                    $ops,
                    $d,
                    { $d / 8 },
                    { $d / 16 },
                    $mt,
                    $rg,
                    { 2 * $rg },
                    { 4 / $rg },
                    {
                        if $wg {
                            geometry_wgmma($d, <<$ops as Operands>::K as KvFormat>::ELEM_BYTES).stages as usize
                        } else if $paired {
                            geometry_paired($d, <<$ops as Operands>::K as KvFormat>::ELEM_BYTES).stages as usize
                        } else {
                            stages_for($d, <<$ops as Operands>::K as KvFormat>::ELEM_BYTES, $mt * $rg, $narrow) as usize
                        }
                    },
                    $narrow,
                    $wg,
                    $paired,
                    $pad,
                >(&p, params_addr)
            }
        }
    };
}

decode_entry!(ff_decode_bf16_d64_g64, Bf16Ops, 64, wgmma);
decode_entry!(ff_decode_f16_d64_g64, F16Ops, 64, wgmma);
decode_entry!(ff_decode_bf16_d128_g64, Bf16Ops, 128, wgmma);
decode_entry!(ff_decode_f16_d128_g64, F16Ops, 128, wgmma);
decode_entry!(ff_decode_bf16_e4m3kv_d128_g64, Bf16E4m3Kv, 128, wgmma);
decode_entry!(ff_decode_bf16_e5m2kv_d128_g64, Bf16E5m2Kv, 128, wgmma);
decode_entry!(ff_decode_f16_e4m3kv_d128_g64, F16E4m3Kv, 128, wgmma);
decode_entry!(ff_decode_f16_e5m2kv_d128_g64, F16E5m2Kv, 128, wgmma);
decode_entry!(ff_decode_bf16_d256_g64, Bf16Ops, 256, wgmma);
decode_entry!(ff_decode_f16_d256_g64, F16Ops, 256, wgmma);
// Padded head dims (See Note [padded head dims]).
decode_entry!(ff_decode_bf16_d64p_m16, Bf16Ops, 64, pad 1);
decode_entry!(ff_decode_bf16_d64p_m8, Bf16Ops, 64, pad narrow);
decode_entry!(ff_decode_bf16_d64p_m32, Bf16Ops, 64, pad 2);
decode_entry!(ff_decode_bf16_d64p_w32, Bf16Ops, 64, pad rows 2);
decode_entry!(ff_decode_bf16_d64p_w64, Bf16Ops, 64, pad rows 4);
decode_entry!(ff_decode_bf16_d128p_m16, Bf16Ops, 128, pad 1);
decode_entry!(ff_decode_bf16_d128p_m8, Bf16Ops, 128, pad narrow);
decode_entry!(ff_decode_bf16_d128p_m32, Bf16Ops, 128, pad 2);
decode_entry!(ff_decode_bf16_d128p_w32, Bf16Ops, 128, pad rows 2);
decode_entry!(ff_decode_bf16_d128p_w64, Bf16Ops, 128, pad rows 4);
decode_entry!(ff_decode_bf16_d256p_m16, Bf16Ops, 256, pad 1);
decode_entry!(ff_decode_bf16_d256p_m8, Bf16Ops, 256, pad narrow);
decode_entry!(ff_decode_bf16_d256p_w32, Bf16Ops, 256, pad rows 2);
decode_entry!(ff_decode_bf16_d256p_w64, Bf16Ops, 256, pad rows 4);
decode_entry!(ff_decode_f16_d64p_m16, F16Ops, 64, pad 1);
decode_entry!(ff_decode_f16_d64p_m8, F16Ops, 64, pad narrow);
decode_entry!(ff_decode_f16_d64p_m32, F16Ops, 64, pad 2);
decode_entry!(ff_decode_f16_d64p_w32, F16Ops, 64, pad rows 2);
decode_entry!(ff_decode_f16_d64p_w64, F16Ops, 64, pad rows 4);
decode_entry!(ff_decode_f16_d128p_m16, F16Ops, 128, pad 1);
decode_entry!(ff_decode_f16_d128p_m8, F16Ops, 128, pad narrow);
decode_entry!(ff_decode_f16_d128p_m32, F16Ops, 128, pad 2);
decode_entry!(ff_decode_f16_d128p_w32, F16Ops, 128, pad rows 2);
decode_entry!(ff_decode_f16_d128p_w64, F16Ops, 128, pad rows 4);
decode_entry!(ff_decode_f16_d256p_m16, F16Ops, 256, pad 1);
decode_entry!(ff_decode_f16_d256p_m8, F16Ops, 256, pad narrow);
decode_entry!(ff_decode_f16_d256p_w32, F16Ops, 256, pad rows 2);
decode_entry!(ff_decode_f16_d256p_w64, F16Ops, 256, pad rows 4);
// Padded head dims over an fp8 KV cache: 80, 96, 112 (tiles of 128 columns), 144-240 (256); sm_89 and newer
// only (`ArchSet::Sm89Plus`): on sm_80 the extra entries shift LLVM's code for the module's
// existing fp8 `_w64` entries into spills, and sm_80 has no fp8 conversion instructions.
#[cfg(target_feature = "sm_89")]
mod padded_fp8kv {
    use super::*;
    decode_entry!(ff_decode_bf16_e4m3kv_d128p_m16, Bf16E4m3Kv, 128, pad 1);
    decode_entry!(ff_decode_bf16_e4m3kv_d128p_m8, Bf16E4m3Kv, 128, pad narrow);
    decode_entry!(ff_decode_bf16_e4m3kv_d128p_m32, Bf16E4m3Kv, 128, pad 2);
    decode_entry!(ff_decode_bf16_e4m3kv_d128p_w32, Bf16E4m3Kv, 128, pad rows 2);
    decode_entry!(ff_decode_bf16_e4m3kv_d128p_w64, Bf16E4m3Kv, 128, pad rows 4);
    decode_entry!(ff_decode_bf16_e5m2kv_d128p_m16, Bf16E5m2Kv, 128, pad 1);
    decode_entry!(ff_decode_bf16_e5m2kv_d128p_m8, Bf16E5m2Kv, 128, pad narrow);
    decode_entry!(ff_decode_bf16_e5m2kv_d128p_m32, Bf16E5m2Kv, 128, pad 2);
    decode_entry!(ff_decode_bf16_e5m2kv_d128p_w32, Bf16E5m2Kv, 128, pad rows 2);
    decode_entry!(ff_decode_bf16_e5m2kv_d128p_w64, Bf16E5m2Kv, 128, pad rows 4);
    decode_entry!(ff_decode_f16_e4m3kv_d128p_m16, F16E4m3Kv, 128, pad 1);
    decode_entry!(ff_decode_f16_e4m3kv_d128p_m8, F16E4m3Kv, 128, pad narrow);
    decode_entry!(ff_decode_f16_e4m3kv_d128p_m32, F16E4m3Kv, 128, pad 2);
    decode_entry!(ff_decode_f16_e4m3kv_d128p_w32, F16E4m3Kv, 128, pad rows 2);
    decode_entry!(ff_decode_f16_e4m3kv_d128p_w64, F16E4m3Kv, 128, pad rows 4);
    decode_entry!(ff_decode_f16_e5m2kv_d128p_m16, F16E5m2Kv, 128, pad 1);
    decode_entry!(ff_decode_f16_e5m2kv_d128p_m8, F16E5m2Kv, 128, pad narrow);
    decode_entry!(ff_decode_f16_e5m2kv_d128p_m32, F16E5m2Kv, 128, pad 2);
    decode_entry!(ff_decode_f16_e5m2kv_d128p_w32, F16E5m2Kv, 128, pad rows 2);
    decode_entry!(ff_decode_f16_e5m2kv_d128p_w64, F16E5m2Kv, 128, pad rows 4);
    // Tiles of 256 columns over an fp8 KV cache (session 60, change 141): head dims 144-240
    // and the kv-head-pair view of 80-112 (See Note [kv-head pairs]).
    decode_entry!(ff_decode_bf16_e4m3kv_d256p_m16, Bf16E4m3Kv, 256, pad 1);
    decode_entry!(ff_decode_bf16_e4m3kv_d256p_m8, Bf16E4m3Kv, 256, pad narrow);
    decode_entry!(ff_decode_bf16_e4m3kv_d256p_w32, Bf16E4m3Kv, 256, pad rows 2);
    decode_entry!(ff_decode_bf16_e4m3kv_d256p_w64, Bf16E4m3Kv, 256, pad rows 4);
    decode_entry!(ff_decode_bf16_e5m2kv_d256p_m16, Bf16E5m2Kv, 256, pad 1);
    decode_entry!(ff_decode_bf16_e5m2kv_d256p_m8, Bf16E5m2Kv, 256, pad narrow);
    decode_entry!(ff_decode_bf16_e5m2kv_d256p_w32, Bf16E5m2Kv, 256, pad rows 2);
    decode_entry!(ff_decode_bf16_e5m2kv_d256p_w64, Bf16E5m2Kv, 256, pad rows 4);
    decode_entry!(ff_decode_f16_e4m3kv_d256p_m16, F16E4m3Kv, 256, pad 1);
    decode_entry!(ff_decode_f16_e4m3kv_d256p_m8, F16E4m3Kv, 256, pad narrow);
    decode_entry!(ff_decode_f16_e4m3kv_d256p_w32, F16E4m3Kv, 256, pad rows 2);
    decode_entry!(ff_decode_f16_e4m3kv_d256p_w64, F16E4m3Kv, 256, pad rows 4);
    decode_entry!(ff_decode_f16_e5m2kv_d256p_m16, F16E5m2Kv, 256, pad 1);
    decode_entry!(ff_decode_f16_e5m2kv_d256p_m8, F16E5m2Kv, 256, pad narrow);
    decode_entry!(ff_decode_f16_e5m2kv_d256p_w32, F16E5m2Kv, 256, pad rows 2);
    decode_entry!(ff_decode_f16_e5m2kv_d256p_w64, F16E5m2Kv, 256, pad rows 4);
}
decode_entry!(ff_decode_bf16_d64_m16, Bf16Ops, 64, 1);
decode_entry!(ff_decode_bf16_d64_m8, Bf16Ops, 64, 1, true);
decode_entry!(ff_decode_bf16_d64_m32, Bf16Ops, 64, 2);
decode_entry!(ff_decode_bf16_d64_w32, Bf16Ops, 64, rows 2);
decode_entry!(ff_decode_bf16_d64_w64, Bf16Ops, 64, rows 4);
decode_entry!(ff_decode_bf16_d128_m16, Bf16Ops, 128, 1);
decode_entry!(ff_decode_bf16_d128_m8, Bf16Ops, 128, 1, true);
decode_entry!(ff_decode_bf16_d128_m32, Bf16Ops, 128, 2);
decode_entry!(ff_decode_bf16_d128_w32, Bf16Ops, 128, rows 2);
decode_entry!(ff_decode_bf16_d128_w64, Bf16Ops, 128, rows 4);
decode_entry!(ff_decode_bf16_d256_m16, Bf16Ops, 256, 1);
decode_entry!(ff_decode_bf16_d256_m8, Bf16Ops, 256, 1, true);
decode_entry!(ff_decode_bf16_d256_w32, Bf16Ops, 256, rows 2);
decode_entry!(ff_decode_bf16_d256_w64, Bf16Ops, 256, rows 4);
decode_entry!(ff_decode_f16_d64_m16, F16Ops, 64, 1);
decode_entry!(ff_decode_f16_d64_m8, F16Ops, 64, 1, true);
decode_entry!(ff_decode_f16_d64_m32, F16Ops, 64, 2);
decode_entry!(ff_decode_f16_d64_w32, F16Ops, 64, rows 2);
decode_entry!(ff_decode_f16_d64_w64, F16Ops, 64, rows 4);
decode_entry!(ff_decode_f16_d128_m16, F16Ops, 128, 1);
decode_entry!(ff_decode_f16_d128_m8, F16Ops, 128, 1, true);
decode_entry!(ff_decode_f16_d128_m32, F16Ops, 128, 2);
decode_entry!(ff_decode_f16_d128_w32, F16Ops, 128, rows 2);
decode_entry!(ff_decode_f16_d128_w64, F16Ops, 128, rows 4);
decode_entry!(ff_decode_f16_d256_m16, F16Ops, 256, 1);
decode_entry!(ff_decode_f16_d256_m8, F16Ops, 256, 1, true);
decode_entry!(ff_decode_f16_d256_w32, F16Ops, 256, rows 2);
decode_entry!(ff_decode_f16_d256_w64, F16Ops, 256, rows 4);
decode_entry!(ff_decode_bf16_e4m3kv_d64_m16, Bf16E4m3Kv, 64, 1);
decode_entry!(ff_decode_bf16_e4m3kv_d64_m8, Bf16E4m3Kv, 64, 1, true);
decode_entry!(ff_decode_bf16_e4m3kv_d64_m32, Bf16E4m3Kv, 64, 2);
decode_entry!(ff_decode_bf16_e4m3kv_d64_w32, Bf16E4m3Kv, 64, rows 2);
decode_entry!(ff_decode_bf16_e4m3kv_d64_w64, Bf16E4m3Kv, 64, rows 4);
decode_entry!(ff_decode_bf16_e4m3kv_d128_m16, Bf16E4m3Kv, 128, 1);
decode_entry!(ff_decode_bf16_e4m3kv_d128_m8, Bf16E4m3Kv, 128, 1, true);
decode_entry!(ff_decode_bf16_e4m3kv_d128_m8p, Bf16E4m3Kv, 128, paired);
decode_entry!(ff_decode_bf16_e4m3kv_d128_m32, Bf16E4m3Kv, 128, 2);
decode_entry!(ff_decode_bf16_e4m3kv_d128_w32, Bf16E4m3Kv, 128, rows 2);
decode_entry!(ff_decode_bf16_e4m3kv_d128_w64, Bf16E4m3Kv, 128, rows 4);
decode_entry!(ff_decode_bf16_e4m3kv_d256_m16, Bf16E4m3Kv, 256, 1);
decode_entry!(ff_decode_bf16_e4m3kv_d256_m8, Bf16E4m3Kv, 256, 1, true);
decode_entry!(ff_decode_bf16_e4m3kv_d256_w32, Bf16E4m3Kv, 256, rows 2);
decode_entry!(ff_decode_bf16_e4m3kv_d256_w64, Bf16E4m3Kv, 256, rows 4);
decode_entry!(ff_decode_bf16_e5m2kv_d64_m16, Bf16E5m2Kv, 64, 1);
decode_entry!(ff_decode_bf16_e5m2kv_d64_m8, Bf16E5m2Kv, 64, 1, true);
decode_entry!(ff_decode_bf16_e5m2kv_d64_m32, Bf16E5m2Kv, 64, 2);
decode_entry!(ff_decode_bf16_e5m2kv_d64_w32, Bf16E5m2Kv, 64, rows 2);
decode_entry!(ff_decode_bf16_e5m2kv_d64_w64, Bf16E5m2Kv, 64, rows 4);
decode_entry!(ff_decode_bf16_e5m2kv_d128_m16, Bf16E5m2Kv, 128, 1);
decode_entry!(ff_decode_bf16_e5m2kv_d128_m8, Bf16E5m2Kv, 128, 1, true);
decode_entry!(ff_decode_bf16_e5m2kv_d128_m8p, Bf16E5m2Kv, 128, paired);
decode_entry!(ff_decode_bf16_e5m2kv_d128_m32, Bf16E5m2Kv, 128, 2);
decode_entry!(ff_decode_bf16_e5m2kv_d128_w32, Bf16E5m2Kv, 128, rows 2);
decode_entry!(ff_decode_bf16_e5m2kv_d128_w64, Bf16E5m2Kv, 128, rows 4);
decode_entry!(ff_decode_bf16_e5m2kv_d256_m16, Bf16E5m2Kv, 256, 1);
decode_entry!(ff_decode_bf16_e5m2kv_d256_m8, Bf16E5m2Kv, 256, 1, true);
decode_entry!(ff_decode_bf16_e5m2kv_d256_w32, Bf16E5m2Kv, 256, rows 2);
decode_entry!(ff_decode_bf16_e5m2kv_d256_w64, Bf16E5m2Kv, 256, rows 4);
decode_entry!(ff_decode_f16_e4m3kv_d64_m16, F16E4m3Kv, 64, 1);
decode_entry!(ff_decode_f16_e4m3kv_d64_m8, F16E4m3Kv, 64, 1, true);
decode_entry!(ff_decode_f16_e4m3kv_d64_m32, F16E4m3Kv, 64, 2);
decode_entry!(ff_decode_f16_e4m3kv_d64_w32, F16E4m3Kv, 64, rows 2);
decode_entry!(ff_decode_f16_e4m3kv_d64_w64, F16E4m3Kv, 64, rows 4);
decode_entry!(ff_decode_f16_e4m3kv_d128_m16, F16E4m3Kv, 128, 1);
decode_entry!(ff_decode_f16_e4m3kv_d128_m8, F16E4m3Kv, 128, 1, true);
decode_entry!(ff_decode_f16_e4m3kv_d128_m8p, F16E4m3Kv, 128, paired);
decode_entry!(ff_decode_f16_e4m3kv_d128_m32, F16E4m3Kv, 128, 2);
decode_entry!(ff_decode_f16_e4m3kv_d128_w32, F16E4m3Kv, 128, rows 2);
decode_entry!(ff_decode_f16_e4m3kv_d128_w64, F16E4m3Kv, 128, rows 4);
decode_entry!(ff_decode_f16_e4m3kv_d256_m16, F16E4m3Kv, 256, 1);
decode_entry!(ff_decode_f16_e4m3kv_d256_m8, F16E4m3Kv, 256, 1, true);
decode_entry!(ff_decode_f16_e4m3kv_d256_w32, F16E4m3Kv, 256, rows 2);
decode_entry!(ff_decode_f16_e4m3kv_d256_w64, F16E4m3Kv, 256, rows 4);
decode_entry!(ff_decode_f16_e5m2kv_d64_m16, F16E5m2Kv, 64, 1);
decode_entry!(ff_decode_f16_e5m2kv_d64_m8, F16E5m2Kv, 64, 1, true);
decode_entry!(ff_decode_f16_e5m2kv_d64_m32, F16E5m2Kv, 64, 2);
decode_entry!(ff_decode_f16_e5m2kv_d64_w32, F16E5m2Kv, 64, rows 2);
decode_entry!(ff_decode_f16_e5m2kv_d64_w64, F16E5m2Kv, 64, rows 4);
decode_entry!(ff_decode_f16_e5m2kv_d128_m16, F16E5m2Kv, 128, 1);
decode_entry!(ff_decode_f16_e5m2kv_d128_m8, F16E5m2Kv, 128, 1, true);
decode_entry!(ff_decode_f16_e5m2kv_d128_m8p, F16E5m2Kv, 128, paired);
decode_entry!(ff_decode_f16_e5m2kv_d128_m32, F16E5m2Kv, 128, 2);
decode_entry!(ff_decode_f16_e5m2kv_d128_w32, F16E5m2Kv, 128, rows 2);
decode_entry!(ff_decode_f16_e5m2kv_d128_w64, F16E5m2Kv, 128, rows 4);
decode_entry!(ff_decode_f16_e5m2kv_d256_m16, F16E5m2Kv, 256, 1);
decode_entry!(ff_decode_f16_e5m2kv_d256_m8, F16E5m2Kv, 256, 1, true);
decode_entry!(ff_decode_f16_e5m2kv_d256_w32, F16E5m2Kv, 256, rows 2);
decode_entry!(ff_decode_f16_e5m2kv_d256_w64, F16E5m2Kv, 256, rows 4);
decode_entry!(ff_decode_e4m3_d64_m16, AllE4m3, 64, 1);
decode_entry!(ff_decode_e4m3_d64_m8, AllE4m3, 64, 1, true);
decode_entry!(ff_decode_e4m3_d64_m32, AllE4m3, 64, 2);
decode_entry!(ff_decode_e4m3_d64_w32, AllE4m3, 64, rows 2);
decode_entry!(ff_decode_e4m3_d64_w64, AllE4m3, 64, rows 4);
decode_entry!(ff_decode_e4m3_d128_m16, AllE4m3, 128, 1);
decode_entry!(ff_decode_e4m3_d128_m8, AllE4m3, 128, 1, true);
decode_entry!(ff_decode_e4m3_d128_m8p, AllE4m3, 128, paired);
decode_entry!(ff_decode_e4m3_d128_m32, AllE4m3, 128, 2);
decode_entry!(ff_decode_e4m3_d128_w32, AllE4m3, 128, rows 2);
decode_entry!(ff_decode_e4m3_d128_w64, AllE4m3, 128, rows 4);
decode_entry!(ff_decode_e4m3_d256_m16, AllE4m3, 256, 1);
decode_entry!(ff_decode_e4m3_d256_m8, AllE4m3, 256, 1, true);
decode_entry!(ff_decode_e4m3_d256_w32, AllE4m3, 256, rows 2);
decode_entry!(ff_decode_e4m3_d256_w64, AllE4m3, 256, rows 4);
decode_entry!(ff_decode_e5m2_d64_m16, AllE5m2, 64, 1);
decode_entry!(ff_decode_e5m2_d64_m8, AllE5m2, 64, 1, true);
decode_entry!(ff_decode_e5m2_d64_m32, AllE5m2, 64, 2);
decode_entry!(ff_decode_e5m2_d64_w32, AllE5m2, 64, rows 2);
decode_entry!(ff_decode_e5m2_d64_w64, AllE5m2, 64, rows 4);
decode_entry!(ff_decode_e5m2_d128_m16, AllE5m2, 128, 1);
decode_entry!(ff_decode_e5m2_d128_m8, AllE5m2, 128, 1, true);
decode_entry!(ff_decode_e5m2_d128_m8p, AllE5m2, 128, paired);
decode_entry!(ff_decode_e5m2_d128_m32, AllE5m2, 128, 2);
decode_entry!(ff_decode_e5m2_d128_w32, AllE5m2, 128, rows 2);
decode_entry!(ff_decode_e5m2_d128_w64, AllE5m2, 128, rows 4);
decode_entry!(ff_decode_e5m2_d256_m16, AllE5m2, 256, 1);
decode_entry!(ff_decode_e5m2_d256_m8, AllE5m2, 256, 1, true);
decode_entry!(ff_decode_e5m2_d256_w32, AllE5m2, 256, rows 2);
decode_entry!(ff_decode_e5m2_d256_w64, AllE5m2, 256, rows 4);

/// Split-KV combine, bf16 output.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_decode_combine_bf16(p: DecodeParams) {
    // SAFETY: launch contract of `combine_cta`.
    unsafe { combine_cta::<Bf16>(&p) }
}

/// Split-KV combine, f16 output.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ff_decode_combine_f16(p: DecodeParams) {
    // SAFETY: launch contract of `combine_cta`.
    unsafe { combine_cta::<F16>(&p) }
}
