//! IEEE 754 binary16 ("half precision") storage for sampled grids, with the
//! crate's own conversions (no dependency): 1 sign bit, 5 exponent bits
//! (bias 15), 10 mantissa bits; subnormals down to 2⁻²⁴, largest finite
//! value 65504.

use super::GridValue;
use crate::math::Real;

/// An IEEE 754 binary16 value stored as its bit pattern (half the memory of
/// an `f32`; about 3.3 significant decimal digits).
///
/// Conversion from `f32`/`f64` rounds to nearest, ties to even, in one step
/// (no double rounding through `f32`); values from 65520 up round to
/// infinity, below 2⁻²⁵ to zero; subnormals are kept; NaN stays NaN (quiet,
/// sign kept). Conversion to `f32`/`f64` is exact.
///
/// Equality (`==`) compares bit patterns: `+0 ≠ −0` and a NaN equals itself.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::F16;
/// assert_eq!(F16::from_f32(1.0).to_bits(), 0x3C00);
/// assert_eq!(F16::from_f32(65504.0).to_f32(), 65504.0); // largest finite
/// assert_eq!(F16::from_f32(65520.0).to_f32(), f32::INFINITY); // rounds up past it
/// assert_eq!(F16::from_f64(1.0 + 1.0 / 2048.0).to_f32(), 1.0); // a tie rounds to even
/// assert_eq!(F16::from_bits(1).to_f64(), 2f64.powi(-24)); // smallest subnormal
/// assert!(F16::from_f32(f32::NAN).to_f32().is_nan());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct F16(pub u16);

impl F16 {
    /// The largest finite value, 65504.
    pub const MAX: Self = Self(0x7BFF);
    /// Positive infinity.
    pub const INFINITY: Self = Self(0x7C00);
    /// +0.
    pub const ZERO: Self = Self(0);

    /// The value with this bit pattern.
    #[inline]
    pub const fn from_bits(bits: u16) -> Self {
        Self(bits)
    }

    /// The bit pattern.
    #[inline]
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// `true` when neither NaN nor infinite.
    #[inline]
    pub const fn is_finite(self) -> bool {
        self.0 & 0x7C00 != 0x7C00
    }

    /// `x` rounded to the nearest binary16 value, ties to even (exact: `f32`
    /// widens to `f64` without rounding, then one rounding).
    #[inline]
    pub fn from_f32(x: f32) -> Self {
        Self::from_f64(x as f64)
    }

    /// `x` rounded to the nearest binary16 value, ties to even.
    pub fn from_f64(x: f64) -> Self {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        let biased = ((bits >> 52) & 0x7FF) as i32;
        let mantissa = bits & 0x000F_FFFF_FFFF_FFFF;
        if biased == 0x7FF {
            // Infinity, or NaN: quiet, with the top of the payload.
            return Self(if mantissa == 0 { sign | 0x7C00 } else { sign | 0x7E00 | ((mantissa >> 42) as u16 & 0x3FF) });
        }
        if biased == 0 {
            // Zero or an f64 subnormal (< 2⁻¹⁰²²): far below half of 2⁻²⁴.
            return Self(sign);
        }
        let exp = biased - 1023;
        if exp >= 16 {
            return Self(sign | 0x7C00);
        }
        if exp < -25 {
            // Below 2⁻²⁵, half the smallest subnormal: rounds to zero.
            return Self(sign);
        }
        // The value is `full · 2^(exp − 52)`. Its quantum in binary16 is
        // 2^(exp − 10) for normals (exp ≥ −14) and 2⁻²⁴ for subnormals; `q`
        // counts quanta, rounded to nearest even.
        let full = mantissa | (1u64 << 52);
        let shift: u32 = if exp >= -14 { 42 } else { (28 - exp) as u32 }; // 43..=53
        let q = full >> shift;
        let rem = full & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let q = if rem > half || (rem == half && q & 1 == 1) { q + 1 } else { q };
        // For normals q ∈ [2¹⁰, 2¹¹]: the implicit bit is subtracted, and a
        // carry to 2¹¹ moves into the exponent (up to infinity at 2¹⁶). For
        // subnormals q ≤ 2¹⁰, and 2¹⁰ is the smallest normal's pattern.
        let magnitude = if exp >= -14 { ((((exp + 15) as u64) << 10) + q).wrapping_sub(1024) } else { q };
        Self(sign | magnitude as u16)
    }

    /// The value as `f32` (exact).
    #[inline]
    pub fn to_f32(self) -> f32 {
        let b = self.0 as u32;
        let sign = (b & 0x8000) << 16;
        let magnitude = b & 0x7FFF;
        if magnitude >= 0x7C00 {
            // Infinity or NaN (payload kept).
            return f32::from_bits(sign | 0x7F80_0000 | ((magnitude & 0x3FF) << 13));
        }
        // Shifted into place, the exponent and mantissa bits are the f32
        // pattern of value·2⁻¹¹² (normal, or subnormal for a binary16
        // subnormal): one exact multiplication by 2¹¹² scales it back, with
        // no branch between normals and subnormals. (This relies on IEEE
        // subnormal inputs: an FPU set to flush them to zero, which neither
        // the host nor Cortex-M does by default, would read binary16
        // subnormals, below 6.1e-5, as 0.)
        const TWO_POW_112: f32 = 5_192_296_858_534_827_628_530_496_329_220_096.0;
        let v = f32::from_bits(magnitude << 13) * TWO_POW_112;
        f32::from_bits(v.to_bits() | sign)
    }

    /// The value as `f64` (exact).
    #[inline]
    pub fn to_f64(self) -> f64 {
        self.to_f32() as f64
    }
}

impl GridValue for F16 {
    #[inline]
    fn to_real<R: Real>(self) -> R {
        nalgebra::convert::<f32, R>(self.to_f32())
    }
    #[inline]
    fn from_real<R: Real>(x: R) -> Self {
        Self::from_f64(x.to_f64())
    }
}
