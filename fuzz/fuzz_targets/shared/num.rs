//! The numbers every input is made of.

use arbitrary::Arbitrary;
use nalgebra::Vector3;
use narrowphase::math::Real;

/// A number from the input: small fixed-point values make touching, nested
/// and coincident configurations common; raw bits bring NaN, ±∞, subnormal
/// and huge values.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Num {
    /// `i / 256`: within ±128, exact in both precisions.
    Small(i16),
    /// Raw bits: NaN, ±inf, subnormal, huge.
    Raw(f64),
}

impl Num {
    pub fn get(self) -> f64 {
        match self {
            Num::Small(i) => i as f64 / 256.0,
            Num::Raw(x) => x,
        }
    }
    pub fn small(self) -> bool {
        matches!(self, Num::Small(_))
    }
}

/// A vector of three input numbers, rounded to `R`.
pub fn v3<R: Real>(n: &[Num; 3]) -> Vector3<R> {
    Vector3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

super::seeds::encode_enum!(Num { Small(i), Raw(x) });

impl Num {
    /// The fixed-point number nearest `x` (within ±128).
    pub fn of(x: f64) -> Self {
        Num::Small((x * 256.0).round().clamp(-32768.0, 32767.0) as i16)
    }
}

/// A fixed-point vector.
pub fn nums<const N: usize>(x: [f64; N]) -> [Num; N] {
    x.map(Num::of)
}

/// Raw values that fixed point cannot reach: NaN, ±∞, huge, tiny,
/// subnormal, negative zero.
pub const RAW: [f64; 8] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e30, -3e38, 1e-30, 5e-324, -0.0];
