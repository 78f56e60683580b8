//! Decode entry points: one per (dtype, head dim, rows per CTA), plus the combine kernels.
//! Names are listed in `ferroflash_contract::names::decode`.

use crate::attention::combine::combine_cta;
use crate::attention::decode::decode_cta;
use crate::tile::{Bf16, F16};
use ferroflash_contract::decode::stages_for;
use ferroflash_contract::params::DecodeParams;

macro_rules! decode_entry {
    ($name:ident, $elem:ty, $d:literal, $mt:literal) => {
        /// Paged decode CTA (see `attention::decode`).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(p: DecodeParams) {
            // SAFETY: launch contract of `decode_cta`, established by the host launch layer.
            unsafe { decode_cta::<$elem, $d, { $d / 8 }, { $d / 16 }, $mt, { stages_for($d, 2) as usize }>(&p) }
        }
    };
}

decode_entry!(ff_decode_bf16_d64_m16, Bf16, 64, 1);
decode_entry!(ff_decode_bf16_d64_m32, Bf16, 64, 2);
decode_entry!(ff_decode_bf16_d128_m16, Bf16, 128, 1);
decode_entry!(ff_decode_bf16_d128_m32, Bf16, 128, 2);
decode_entry!(ff_decode_bf16_d256_m16, Bf16, 256, 1);
decode_entry!(ff_decode_f16_d64_m16, F16, 64, 1);
decode_entry!(ff_decode_f16_d64_m32, F16, 64, 2);
decode_entry!(ff_decode_f16_d128_m16, F16, 128, 1);
decode_entry!(ff_decode_f16_d128_m32, F16, 128, 2);
decode_entry!(ff_decode_f16_d256_m16, F16, 256, 1);

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
