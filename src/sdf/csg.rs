//! Constructive solid geometry on SDFs: union, intersection and difference
//! (`min`/`max`, Krayer et al. Eq. 6–7; Liu et al. §3 use the same operators
//! through interval arithmetic, [`IntervalSdf`](super::IntervalSdf)), and the
//! polynomial smooth union, which neither paper uses (it rounds the crease
//! of a union for bodies modelled that way).
//!
//! The results are general (non-convex) bodies for the octree, gradient and
//! particle methods. Their SDFs are exact only where the table says:
//!
//! | operator | value | accuracy (exact inputs) |
//! |---|---|---|
//! | [`Union`] `A ∪ B` | `min(φ_A, φ_B)` | exact outside, depth underestimated inside: [`SdfAccuracy::Approximate`] |
//! | [`Intersection`] `A ∩ B` | `max(φ_A, φ_B)` | exact inside, lower bound outside: [`SdfAccuracy::LowerBound`] |
//! | [`Difference`] `A ∖ B` | `max(φ_A, −φ_B)` | as the intersection with the complement of `B` |
//! | [`SmoothUnion`] | `smin_k(φ_A, φ_B)` ∈ `[min − k/4, min]` | defines a blended body: [`SdfAccuracy::Approximate`] |

use super::{Aabb, Ball, Sdf, SdfAccuracy, SdfSample};
use crate::error::ShapeError;
use crate::math::{max, min, norm, Real};
use nalgebra::SVector;

/// The union `A ∪ B`.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{Sdf, Transformed, Union};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix3, Vector3};
/// let ball = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), Matrix3::identity(), 1.0, Vector3::new(x, 0.0, 0.0)).unwrap();
/// let dumbbell = Union::new(ball(-2.0), ball(2.0));
/// assert!((dumbbell.eval(&Vector3::zeros()).value - 1.0).abs() < 1e-12); // between the balls
/// assert!(dumbbell.eval(&Vector3::new(2.0, 0.0, 0.0)).value < 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Union<A, B> {
    /// First operand.
    pub a: A,
    /// Second operand.
    pub b: B,
}

/// The intersection `A ∩ B`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Intersection<A, B> {
    /// First operand.
    pub a: A,
    /// Second operand.
    pub b: B,
}

/// The difference `A ∖ B` (`A` with `B` carved out).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Difference<A, B> {
    /// The body carved from.
    pub a: A,
    /// The body carved out.
    pub b: B,
}

/// The smooth union of `A` and `B` with blend radius `k`: the polynomial
/// smooth minimum `smin_k(a, b) = mix(b, a, h) − k·h(1 − h)`,
/// `h = clamp(½ + ½(b − a)/k, 0, 1)`. It equals `min(a, b)` where
/// `|a − b| ≥ k` and never drops below `min(a, b) − k/4`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SmoothUnion<A, B, R> {
    /// First operand.
    pub a: A,
    /// Second operand.
    pub b: B,
    k: R,
}

impl<A, B> Union<A, B> {
    /// `A ∪ B`.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<A, B> Intersection<A, B> {
    /// `A ∩ B`.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<A, B> Difference<A, B> {
    /// `A ∖ B`.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<A, B, R: Real> SmoothUnion<A, B, R> {
    /// The smooth union with blend radius `k` (finite, positive).
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if `k` is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// let blend = SmoothUnion::new(Sphere::new(1.0_f32).unwrap(), Torus::new(2.0, 0.5).unwrap(), 0.2).unwrap();
    /// assert_eq!(blend.blend(), 0.2);
    /// let sharp = SmoothUnion::new(Sphere::new(1.0_f32).unwrap(), Torus::new(2.0, 0.5).unwrap(), 0.0);
    /// assert_eq!(sharp.err(), Some(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(a: A, b: B, k: R) -> Result<Self, ShapeError> {
        if !k.finite() {
            return Err(ShapeError::NonFinite);
        }
        if !(k > R::ZERO) {
            return Err(ShapeError::NonPositiveSize);
        }
        Ok(Self { a, b, k })
    }
    /// The blend radius `k`.
    pub fn blend(&self) -> R {
        self.k
    }
}

/// The smaller of two boxes' hull: the box of both.
fn box_hull<R: Real, const D: usize>(a: &Aabb<R, D>, b: &Aabb<R, D>) -> Aabb<R, D> {
    let mut out = *a;
    for i in 0..D {
        out.min[i] = min(a.min[i], b.min[i]);
        out.max[i] = max(a.max[i], b.max[i]);
    }
    out
}

/// A ball holding two balls.
fn ball_hull<R: Real, const D: usize>(a: &Ball<R, D>, b: &Ball<R, D>) -> Ball<R, D> {
    let d = norm(&(b.center - a.center));
    if d + b.radius <= a.radius {
        return *a;
    }
    if d + a.radius <= b.radius {
        return *b;
    }
    // Centre on the segment; radius (d + ra + rb)/2, rounded up a little.
    let radius = (d + a.radius + b.radius) * R::HALF;
    let t = if d > R::ZERO { (radius - a.radius) / d } else { R::ZERO };
    let center = a.center + (b.center - a.center) * t;
    Ball { center, radius: radius * (R::ONE + R::EPSILON * R::lit(4.0)) }
}

/// Accuracy of `max(φ_A, φ_B)` (intersection-like operators).
fn max_accuracy(a: SdfAccuracy, b: SdfAccuracy) -> SdfAccuracy {
    use SdfAccuracy::*;
    match (a, b) {
        (Approximate, _) | (_, Approximate) => Approximate,
        (LooseLowerBound, _) | (_, LooseLowerBound) => LooseLowerBound,
        _ => LowerBound,
    }
}

impl<R: Real, const D: usize, A: Sdf<R, D>, B: Sdf<R, D>> Sdf<R, D> for Union<A, B> {
    /// `min(φ_A, φ_B)` and the gradient of the smaller.
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        let (sa, sb) = (self.a.eval(x), self.b.eval(x));
        // NaN in either operand stays NaN (never hidden by the other).
        if crate::math::is_nan(sa.value) {
            sa
        } else if crate::math::is_nan(sb.value) || sb.value < sa.value {
            sb
        } else {
            sa
        }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Approximate
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        ball_hull(&self.a.bounding_ball(), &self.b.bounding_ball())
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        box_hull(&self.a.bounding_box(), &self.b.bounding_box())
    }
}

/// `max(a, b)` of two samples, NaN-propagating.
#[inline]
fn max_sample<R: Real, const D: usize>(sa: SdfSample<R, D>, sb: SdfSample<R, D>) -> SdfSample<R, D> {
    if crate::math::is_nan(sa.value) {
        sa
    } else if crate::math::is_nan(sb.value) || sb.value > sa.value {
        sb
    } else {
        sa
    }
}

impl<R: Real, const D: usize, A: Sdf<R, D>, B: Sdf<R, D>> Sdf<R, D> for Intersection<A, B> {
    /// `max(φ_A, φ_B)` and the gradient of the larger.
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        max_sample(self.a.eval(x), self.b.eval(x))
    }
    fn accuracy(&self) -> SdfAccuracy {
        max_accuracy(self.a.accuracy(), self.b.accuracy())
    }
    /// The smaller of the two balls.
    fn bounding_ball(&self) -> Ball<R, D> {
        let (ba, bb) = (self.a.bounding_ball(), self.b.bounding_ball());
        if bb.radius < ba.radius {
            bb
        } else {
            ba
        }
    }
    /// The common part of the two boxes (`A`'s box when they do not meet:
    /// the body is then empty).
    fn bounding_box(&self) -> Aabb<R, D> {
        let ba = self.a.bounding_box();
        ba.intersection(&self.b.bounding_box()).unwrap_or(ba)
    }
}

impl<R: Real, const D: usize, A: Sdf<R, D>, B: Sdf<R, D>> Sdf<R, D> for Difference<A, B> {
    /// `max(φ_A, −φ_B)` (the complement of `B` has the SDF `−φ_B`).
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        let sb = self.b.eval(x);
        max_sample(self.a.eval(x), SdfSample { value: -sb.value, gradient: -sb.gradient })
    }
    /// A lower bound when `B` is exact (then `−φ_B` is the exact SDF of the
    /// complement); otherwise approximate.
    fn accuracy(&self) -> SdfAccuracy {
        match self.b.accuracy() {
            SdfAccuracy::Exact => max_accuracy(self.a.accuracy(), SdfAccuracy::Exact),
            _ => SdfAccuracy::Approximate,
        }
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        self.a.bounding_ball()
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        self.a.bounding_box()
    }
}

/// The polynomial smooth minimum and its blend weight `h` (the weight of `a`).
#[inline]
pub(crate) fn smooth_min<R: Real>(a: R, b: R, k: R) -> (R, R) {
    // NaN-preserving clamp to [0, 1].
    let t = R::HALF + R::HALF * (b - a) / k;
    let h = if t < R::ZERO {
        R::ZERO
    } else if t > R::ONE {
        R::ONE
    } else {
        t
    };
    // Outside the blend band the minimum itself: `b + (a − b)·1` would lose
    // `a` entirely when |b| ≫ |a| (for example an f32 smooth union with
    // one operand 1.4e34 away gave 0 for −970). Inside it |a − b| < k.
    if h >= R::ONE {
        (a, h)
    } else if h <= R::ZERO {
        (b, h)
    } else {
        (a * h + b * (R::ONE - h) - k * h * (R::ONE - h), h)
    }
}

impl<R: Real, const D: usize, A: Sdf<R, D>, B: Sdf<R, D>> Sdf<R, D> for SmoothUnion<A, B, R> {
    /// `smin_k(φ_A, φ_B)`; its gradient is `h∇φ_A + (1 − h)∇φ_B` (the terms
    /// from `∂h` cancel), length ≤ 1.
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        let (sa, sb) = (self.a.eval(x), self.b.eval(x));
        let (value, h) = smooth_min(sa.value, sb.value, self.k);
        SdfSample { value, gradient: sa.gradient * h + sb.gradient * (R::ONE - h) }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Approximate
    }
    /// The union's ball grown by `k/4` (the blend fills at most that much).
    fn bounding_ball(&self) -> Ball<R, D> {
        let b = ball_hull(&self.a.bounding_ball(), &self.b.bounding_ball());
        Ball { center: b.center, radius: b.radius + self.k * R::lit(0.25) }
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        box_hull(&self.a.bounding_box(), &self.b.bounding_box()).inflated(self.k * R::lit(0.25))
    }
}
