//! One case per `arch` primitive: small-integer inputs, exact expected results computed here.

use crate::{skip_or_fail, Case, CaseResult, Outcome, Rng};
use ferroflash::{selftest, Device};
use ferroflash_contract::fp8::Fp8Format;
use ferroflash_contract::names::selftest as n;
use half::{bf16, f16};

/// The primitive cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "device/preload_loads_every_kernel",
            run: preload,
        },
        Case {
            name: "prim/special_registers",
            run: sreg,
        },
        Case {
            name: "prim/cp_async_zfill",
            run: cp_async,
        },
        Case {
            name: "prim/ld_global_v4_nc_and_plain",
            run: ld_nc_v4,
        },
        Case {
            name: "prim/shfl_bfly_idx",
            run: shfl,
        },
        Case {
            name: "prim/ldmatrix_x4_trans",
            run: ldmatrix,
        },
        Case {
            name: "prim/mma_m16n8k16_bf16",
            run: |d| mma(d, n::MMA_BF16, Elem::Bf16),
        },
        Case {
            name: "prim/mma_m16n8k16_f16",
            run: |d| mma(d, n::MMA_F16, Elem::F16),
        },
        Case {
            name: "prim/mma_m16n8k32_e4m3",
            run: |d| mma(d, n::MMA_E4M3, Elem::E4m3),
        },
        Case {
            name: "prim/cvt_fp8x2_f16x2_all_codes",
            run: cvt_fp8,
        },
        Case {
            name: "prim/ex2_approx",
            run: ex2,
        },
        Case {
            name: "prim/wgmma_m64n64k16_bf16",
            run: |d| wgmma(d, n::WGMMA_BF16, Elem::Bf16),
        },
        Case {
            name: "prim/wgmma_m64n64k32_e4m3",
            run: |d| wgmma(d, n::WGMMA_E4M3, Elem::E4m3),
        },
        Case {
            name: "prim/wgmma_sw128_attention_step",
            run: wgmma_sw128_attn,
        },
        Case {
            name: "prim/tcgen05_mma_bf16",
            run: tcgen05,
        },
    ]
}

/// Every decode, combine and probe entry of the device's module loads as a module of its own
/// (Note [one module per entry] in docs/DESIGN.md): the driver accepts each one-entry PTX and
/// finds the function in it. Runs first, so the other cases find their kernels loaded.
fn preload(d: &Device) -> CaseResult {
    d.preload().map_err(|e| e.to_string())?;
    Ok(Outcome::Pass)
}

fn run(d: &Device, name: &str, input: &[u32]) -> Result<Vec<u32>, CaseResult> {
    selftest::run(d, name, input).map_err(skip_or_fail)
}

macro_rules! try_run {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(r) => return r,
        }
    };
}

fn expect_eq(what: &str, got: &[u32], want: &[u32]) -> CaseResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} words, want {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(Outcome::Pass),
        Some(i) => Err(format!(
            "{what}: word {i} = {:#x}, want {:#x}",
            got[i], want[i]
        )),
    }
}

fn sreg(d: &Device) -> CaseResult {
    let out = try_run!(run(d, n::SREG, &[]));
    let want: Vec<u32> = (0..128u32)
        .flat_map(|g| [g % 64, g / 64, 64, g % 32])
        .collect();
    expect_eq("tid/ctaid/ntid/laneid", &out, &want)
}

fn pattern(len: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed);
    (0..len).map(|_| r.next_u64() as u32).collect()
}

fn cp_async(d: &Device) -> CaseResult {
    let input = pattern(128, 1);
    let out = try_run!(run(d, n::CP_ASYNC, &input));
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut want = vec![0u8; 512];
    for chunk in 0..32 {
        let n = chunk % 17;
        want[16 * chunk..16 * chunk + n].copy_from_slice(&bytes[16 * chunk..16 * chunk + n]);
    }
    let want: Vec<u32> = want
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    expect_eq("cp.async 16 B with src_bytes = chunk % 17", &out, &want)
}

fn ld_nc_v4(d: &Device) -> CaseResult {
    let input = pattern(256, 2);
    let out = try_run!(run(d, n::LD_NC_V4, &input));
    expect_eq("ld.global.nc.v4 / ld.global.v4 copy", &out, &input)
}

fn shfl(d: &Device) -> CaseResult {
    let input: Vec<u32> = (0..32).map(|l| l * 1000 + 7).collect();
    let out = try_run!(run(d, n::SHFL, &input));
    let mut want = Vec::new();
    for k in 0..5 {
        want.extend((0..32usize).map(|l| input[l ^ (1 << k)]));
    }
    want.extend((0..32usize).map(|l| input[(7 * l + 3) % 32]));
    expect_eq("shfl bfly(1..16) then idx((7l+3)%32)", &out, &want)
}

fn ldmatrix(d: &Device) -> CaseResult {
    // Element (matrix i, row r, col c) = 64 i + 8 r + c, as u16; two per word.
    let elems: Vec<u32> = (0..256).collect();
    let input: Vec<u32> = elems.chunks(2).map(|p| p[0] | (p[1] << 16)).collect();
    let out = try_run!(run(d, n::LDMATRIX, &input));
    let at = |i: u32, r: u32, c: u32| 64 * i + 8 * r + c;
    let mut want = Vec::new();
    for l in 0..32u32 {
        for i in 0..4 {
            want.push(at(i, l / 4, 2 * (l % 4)) | (at(i, l / 4, 2 * (l % 4) + 1) << 16));
        }
        for i in 0..4 {
            want.push(at(i, 2 * (l % 4), l / 4) | (at(i, 2 * (l % 4) + 1, l / 4) << 16));
        }
    }
    expect_eq("ldmatrix x4 / x4.trans", &out, &want)
}

#[derive(Clone, Copy)]
enum Elem {
    Bf16,
    F16,
    E4m3,
}

impl Elem {
    fn bytes(self) -> usize {
        match self {
            Elem::E4m3 => 1,
            _ => 2,
        }
    }
    /// Stored bits of a small integer (exact in every format).
    fn bits(self, v: i32) -> u32 {
        match self {
            Elem::Bf16 => bf16::from_f32(v as f32).to_bits() as u32,
            Elem::F16 => f16::from_f32(v as f32).to_bits() as u32,
            Elem::E4m3 => Fp8Format::E4m3.encode(v as f32) as u32,
        }
    }
    /// Pack a row of values (32 bytes) into 8 words.
    fn pack(self, vals: &[i32]) -> Vec<u32> {
        let per_word = 4 / self.bytes();
        let shift = 8 * self.bytes();
        vals.chunks(per_word)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u32, |w, (j, &v)| w | (self.bits(v) << (shift * j)))
            })
            .collect()
    }
}

/// Random small-integer matrices `rows x k` with `k * bytes == 32`.
fn small_ints(rows: usize, k: usize, seed: u64) -> Vec<i32> {
    let mut r = Rng(seed);
    (0..rows * k).map(|_| r.int(-3, 3)).collect()
}

/// D[m][n] = Σ_k A[m][k] B[n][k] (+ c), as f32 bits.
fn matmul_bits(a: &[i32], b: &[i32], m: usize, n: usize, k: usize, c: f32) -> Vec<u32> {
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let s: i32 = (0..k).map(|x| a[i * k + x] * b[j * k + x]).sum();
            d.push((s as f32 + c).to_bits());
        }
    }
    d
}

fn mma(d: &Device, name: &str, e: Elem) -> CaseResult {
    let k = 32 / e.bytes();
    let (a, b) = (small_ints(16, k, 3), small_ints(8, k, 4));
    let mut input = e.pack(&a);
    input.extend(e.pack(&b));
    let out = try_run!(run(d, name, &input));
    expect_eq(
        "D = A·B + 1 (16x8)",
        &out,
        &matmul_bits(&a, &b, 16, 8, k, 1.0),
    )
}

fn wgmma(d: &Device, name: &str, e: Elem) -> CaseResult {
    let k = 32 / e.bytes();
    let (a, b) = (small_ints(64, k, 5), small_ints(64, k, 6));
    let mut input = e.pack(&a);
    input.extend(e.pack(&b));
    let out = try_run!(run(d, name, &input));
    expect_eq(
        "D = A·B (64x64)",
        &out,
        &matmul_bits(&a, &b, 64, 64, k, 0.0),
    )
}

/// The 128-byte-swizzle wgmma layouts of a decode consumer (`ff_test_wgmma_sw128_attn`):
/// S = Q·Kᵀ with K-major operands, then O = bf16(S)·V with V N-major, at head dim 128. Q and K
/// in {-1, 0, 1} keep |S| <= 128, exact in bf16, and V in [-2, 2] keeps O exact in f32.
fn wgmma_sw128_attn(d: &Device) -> CaseResult {
    let mut r = Rng(11);
    let mut ints = |lo, hi| -> Vec<i32> { (0..64 * 128).map(|_| r.int(lo, hi)).collect() };
    let (q, k, v) = (ints(-1, 1), ints(-1, 1), ints(-2, 2));
    let mut input = Elem::Bf16.pack(&q);
    input.extend(Elem::Bf16.pack(&k));
    input.extend(Elem::Bf16.pack(&v));
    let out = try_run!(run(d, n::WGMMA_SW128_ATTN, &input));
    let s: Vec<i32> = (0..64 * 64)
        .map(|i| {
            (0..128)
                .map(|x| q[(i / 64) * 128 + x] * k[(i % 64) * 128 + x])
                .sum()
        })
        .collect();
    let o: Vec<i32> = (0..64 * 128)
        .map(|i| {
            (0..64)
                .map(|j| s[(i / 128) * 64 + j] * v[j * 128 + i % 128])
                .sum()
        })
        .collect();
    let mut want: Vec<u32> = s.iter().map(|&x| (x as f32).to_bits()).collect();
    want.extend(o.iter().map(|&x| (x as f32).to_bits()));
    expect_eq("S = Q·Kᵀ (64x64), then O = S·V (64x128)", &out, &want)
}

fn tcgen05(d: &Device) -> CaseResult {
    let (a, b) = (small_ints(128, 16, 7), small_ints(64, 16, 8));
    let mut input = Elem::Bf16.pack(&a);
    input.extend(Elem::Bf16.pack(&b));
    let out = try_run!(run(d, n::TCGEN05_MMA, &input));
    expect_eq(
        "D = A·B (128x64, tensor memory)",
        &out,
        &matmul_bits(&a, &b, 128, 64, 16, 0.0),
    )
}

fn cvt_fp8(d: &Device) -> CaseResult {
    let out = try_run!(run(d, n::CVT_FP8, &[]));
    for (fmt, base) in [(Fp8Format::E4m3, 0usize), (Fp8Format::E5m2, 128)] {
        for code in 0..=255u32 {
            let word = out[base + code as usize / 2];
            let got = f16::from_bits((word >> (16 * (code % 2))) as u16);
            let want = fmt.decode(code as u8);
            let ok = if want.is_nan() {
                got.is_nan()
            } else {
                got.to_f32() == want && got.is_sign_negative() == want.is_sign_negative()
            };
            if !ok {
                return Err(format!(
                    "{fmt:?} code {code:#04x}: got {got} ({:#06x}), want {want}",
                    got.to_bits()
                ));
            }
        }
    }
    Ok(Outcome::Pass)
}

fn ex2(d: &Device) -> CaseResult {
    let xs: Vec<i32> = (-10..22).collect();
    let input: Vec<u32> = xs.iter().map(|&x| (x as f32).to_bits()).collect();
    let out = try_run!(run(d, n::EX2, &input));
    let want: Vec<u32> = xs.iter().map(|&x| 2f32.powi(x).to_bits()).collect();
    expect_eq("ex2.approx of integers", &out, &want)
}
