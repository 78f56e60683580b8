//! FP8 formats (OCP 8-bit floating point, as PTX `e4m3` / `e5m2`).
//!
//! | format | bias | max finite | inf | NaN codes | min subnormal |
//! |---|---:|---:|---|---|---:|
//! | e4m3 (`E4M3FN`) | 7 | 448 | none | `0x7f`, `0xff` | 2^-9 |
//! | e5m2 | 15 | 57344 | `0x7c`, `0xfc` | exponent 31, mantissa != 0 | 2^-16 |
//!
//! Encoding (`encode`) rounds to nearest, ties to even, and **saturates**: a finite value or an
//! infinity beyond the largest finite code becomes that code (PTX `cvt.rn.satfinite`), NaN stays
//! NaN (`0x7f` / `0x7e` with the sign of the input for e4m3 / e5m2). Decoding is exact in f32.

/// One of the two fp8 formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Fp8Format {
    /// 4 exponent bits, 3 mantissa bits, no infinities (OCP E4M3FN).
    E4m3 = 0,
    /// 5 exponent bits, 2 mantissa bits, IEEE-like infinities and NaNs.
    E5m2 = 1,
}

impl Fp8Format {
    /// Mantissa bits.
    pub const fn mantissa_bits(self) -> u32 {
        match self {
            Fp8Format::E4m3 => 3,
            Fp8Format::E5m2 => 2,
        }
    }
    /// Exponent bias.
    pub const fn bias(self) -> i32 {
        match self {
            Fp8Format::E4m3 => 7,
            Fp8Format::E5m2 => 15,
        }
    }
    /// Largest finite value.
    pub const fn max_finite(self) -> f32 {
        match self {
            Fp8Format::E4m3 => 448.0,
            Fp8Format::E5m2 => 57344.0,
        }
    }
    /// Largest finite code with the sign bit clear.
    const fn max_finite_code(self) -> u8 {
        match self {
            Fp8Format::E4m3 => 0x7e,
            Fp8Format::E5m2 => 0x7b,
        }
    }
    /// Whether `code` is a NaN.
    pub const fn is_nan(self, code: u8) -> bool {
        let c = code & 0x7f;
        match self {
            Fp8Format::E4m3 => c == 0x7f,
            Fp8Format::E5m2 => c > 0x7c,
        }
    }

    /// Exact value of `code` as f32.
    pub fn decode(self, code: u8) -> f32 {
        let sign = if code & 0x80 != 0 { -1.0f32 } else { 1.0 };
        let m_bits = self.mantissa_bits();
        let c = (code & 0x7f) as u32;
        let exp = (c >> m_bits) as i32;
        let man = c & ((1 << m_bits) - 1);
        if self.is_nan(code) {
            return f32::NAN;
        }
        if self == Fp8Format::E5m2 && exp == 31 {
            return sign * f32::INFINITY;
        }
        let one = (1u32 << m_bits) as f32;
        let mag = if exp == 0 {
            (man as f32 / one) * pow2(1 - self.bias())
        } else {
            (1.0 + man as f32 / one) * pow2(exp - self.bias())
        };
        sign * mag
    }

    /// Round-to-nearest-even, saturating encode (see the module doc).
    pub fn encode(self, x: f32) -> u8 {
        if x.is_nan() {
            return match self {
                Fp8Format::E4m3 => 0x7f,
                Fp8Format::E5m2 => 0x7e,
            } | if x.is_sign_negative() { 0x80 } else { 0 };
        }
        let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = if x < 0.0 { -x } else { x };
        let top = self.max_finite_code();
        if a >= self.max_finite() {
            return sign | top;
        }
        // Binary search for the largest code whose value is <= a (positive codes are monotonic).
        let (mut lo, mut hi) = (0u8, top);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.decode(mid) <= a {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let below = self.decode(lo);
        let above = self.decode(lo + 1);
        let code = if a - below < above - a {
            lo
        } else if a - below > above - a {
            lo + 1
        } else if lo % 2 == 0 {
            lo
        } else {
            lo + 1
        };
        sign | code
    }
}

/// 2^e for the small exponents fp8 needs, exact.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(Fp8Format::E4m3.decode(0x7e), 448.0);
        assert_eq!(Fp8Format::E4m3.decode(0x01), 2f32.powi(-9));
        assert_eq!(Fp8Format::E4m3.decode(0x38), 1.0);
        assert_eq!(Fp8Format::E5m2.decode(0x7b), 57344.0);
        assert_eq!(Fp8Format::E5m2.decode(0x01), 2f32.powi(-16));
        assert_eq!(Fp8Format::E5m2.decode(0x3c), 1.0);
        assert!(Fp8Format::E5m2.decode(0x7c).is_infinite());
        assert!(Fp8Format::E4m3.decode(0xff).is_nan());
    }

    #[test]
    fn roundtrip_all_codes() {
        for f in [Fp8Format::E4m3, Fp8Format::E5m2] {
            for c in 0..=255u8 {
                let v = f.decode(c);
                if v.is_nan() {
                    assert!(f.is_nan(f.encode(v)));
                } else if v.is_infinite() {
                    // saturating encode: inf becomes the largest finite code.
                    assert_eq!(f.encode(v) & 0x7f, f.max_finite_code());
                } else if v == 0.0 {
                    assert_eq!(f.encode(v), c, "{f:?} zero code {c:#x}");
                } else {
                    assert_eq!(f.encode(v), c, "{f:?} code {c:#x} value {v}");
                }
            }
        }
    }

    #[test]
    fn ties_to_even_and_saturation() {
        let f = Fp8Format::E4m3;
        // 1.0 (0x38) and 1.125 (0x39): the midpoint goes to the even code 0x38.
        assert_eq!(f.encode(1.0625), 0x38);
        // 1.125 (0x39) and 1.25 (0x3a): midpoint -> 0x3a.
        assert_eq!(f.encode(1.1875), 0x3a);
        assert_eq!(f.encode(1e9), 0x7e);
        assert_eq!(f.encode(-1e9), 0xfe);
        assert_eq!(f.encode(f32::INFINITY), 0x7e);
        assert_eq!(Fp8Format::E5m2.encode(1e9), 0x7b);
        // Below half the smallest subnormal rounds to zero.
        assert_eq!(f.encode(2f32.powi(-11)), 0x00);
    }
}
