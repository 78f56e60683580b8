//! Storage dtypes and their raw bits.

use ferroflash_contract::Fp8Format;
use half::{bf16, f16};

/// A storage dtype of Q, K or V (or of the output, for the 16-bit ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// bfloat16.
    Bf16,
    /// IEEE half precision.
    F16,
    /// fp8 e4m3 (OCP E4M3FN, no infinities).
    E4m3,
    /// fp8 e5m2.
    E5m2,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 4] = [DType::Bf16, DType::F16, DType::E4m3, DType::E5m2];

    /// Bytes per stored element.
    pub const fn bytes(self) -> usize {
        match self {
            DType::Bf16 | DType::F16 => 2,
            DType::E4m3 | DType::E5m2 => 1,
        }
    }

    /// The fp8 format, or `None` for the 16-bit dtypes.
    pub const fn fp8(self) -> Option<Fp8Format> {
        match self {
            DType::E4m3 => Some(Fp8Format::E4m3),
            DType::E5m2 => Some(Fp8Format::E5m2),
            DType::Bf16 | DType::F16 => None,
        }
    }

    /// Whether this is an fp8 dtype.
    pub const fn is_fp8(self) -> bool {
        self.fp8().is_some()
    }

    /// Largest finite value.
    pub fn max_finite(self) -> f32 {
        match self {
            DType::Bf16 => bf16::MAX.to_f32(),
            DType::F16 => f16::MAX.to_f32(),
            DType::E4m3 | DType::E5m2 => self.fp8().map_or(0.0, Fp8Format::max_finite),
        }
    }

    /// The value `x` has after being stored in this dtype (round to nearest even; fp8
    /// saturates, see [`Fp8Format::encode`]).
    pub fn round(self, x: f32) -> f32 {
        match self {
            DType::Bf16 => bf16::from_f32(x).to_f32(),
            DType::F16 => f16::from_f32(x).to_f32(),
            DType::E4m3 | DType::E5m2 => {
                let f = self.fp8().expect("fp8 dtype");
                f.decode(f.encode(x))
            }
        }
    }

    /// Short lowercase name (`bf16`, `f16`, `e4m3`, `e5m2`).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bf16 => "bf16",
            DType::F16 => "f16",
            DType::E4m3 => "e4m3",
            DType::E5m2 => "e5m2",
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Raw storage codes of a tensor, ready for upload: `u16` bits for bf16/f16, `u8` codes for fp8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// bf16 or f16 bit patterns.
    U16(Vec<u16>),
    /// fp8 codes.
    U8(Vec<u8>),
}

impl Storage {
    /// Stores `values` in `dtype` (rounding as [`DType::round`]).
    pub fn encode(dtype: DType, values: &[f32]) -> Storage {
        match dtype {
            DType::Bf16 => Storage::U16(
                values
                    .iter()
                    .map(|&x| bf16::from_f32(x).to_bits())
                    .collect(),
            ),
            DType::F16 => {
                Storage::U16(values.iter().map(|&x| f16::from_f32(x).to_bits()).collect())
            }
            DType::E4m3 | DType::E5m2 => {
                let f = dtype.fp8().expect("fp8 dtype");
                Storage::U8(values.iter().map(|&x| f.encode(x)).collect())
            }
        }
    }

    /// The element values the codes decode to. Panics if the storage width does not match
    /// `dtype`.
    pub fn decode(&self, dtype: DType) -> Vec<f32> {
        match (self, dtype) {
            (Storage::U16(b), DType::Bf16) => {
                b.iter().map(|&c| bf16::from_bits(c).to_f32()).collect()
            }
            (Storage::U16(b), DType::F16) => {
                b.iter().map(|&c| f16::from_bits(c).to_f32()).collect()
            }
            (Storage::U8(b), DType::E4m3 | DType::E5m2) => {
                let f = dtype.fp8().expect("fp8 dtype");
                b.iter().map(|&c| f.decode(c)).collect()
            }
            _ => panic!(
                "storage of {}-byte codes cannot hold {dtype}",
                self.elem_bytes()
            ),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Storage::U16(b) => b.len(),
            Storage::U8(b) => b.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per element (2 or 1).
    pub fn elem_bytes(&self) -> usize {
        match self {
            Storage::U16(_) => 2,
            Storage::U8(_) => 1,
        }
    }

    /// The codes as little-endian bytes (the device layout).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Storage::U16(b) => b.iter().flat_map(|c| c.to_le_bytes()).collect(),
            Storage::U8(b) => b.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_matches_storage() {
        let xs = [0.0f32, -1.5, 2.71, 1e-3, 500.0, -7e4, f32::INFINITY];
        for d in DType::ALL {
            let s = Storage::encode(d, &xs);
            assert_eq!(s.len(), xs.len());
            assert_eq!(s.elem_bytes(), d.bytes());
            assert_eq!(s.to_le_bytes().len(), xs.len() * d.bytes());
            let back = s.decode(d);
            for (x, y) in xs.iter().zip(&back) {
                assert_eq!(d.round(*x).to_bits(), y.to_bits(), "{d} {x}");
            }
        }
        assert_eq!(DType::E4m3.round(1e9), 448.0);
        assert_eq!(DType::Bf16.round(1.0 + 1.0 / 512.0), 1.0);
    }
}
