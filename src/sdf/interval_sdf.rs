//! Interval extensions of the analytic SDFs (Liu et al. §3, Eq. 3–6): for a
//! box of points, an interval that contains the SDF's value at every point
//! of the box. The octree ([`super::octree`]) discards a cell when one
//! body's interval is above zero and keeps it as "inside both" when both are
//! below zero.
//!
//! Each extension evaluates the shape's own formula with [`Interval`]
//! operations (a natural interval extension), which contains the exact range;
//! it is wider than the range where a variable appears twice (the dependency
//! problem) and narrows as the box shrinks.
//!
//! | shape | extension |
//! |---|---|
//! | [`Sphere`] (any D) | `√Σ Xᵢ² − r` |
//! | [`BoxN`], [`Cuboid`] | Eq. 3: `‖Max(Q, 0)‖ + Min(Max(Qᵢ), 0)`, `Q = |X| − b` |
//! | [`Capsule`] (any D) | `√(Σ Xᵢ² + Max(|Z| − h, 0)²) − r` |
//! | [`Cylinder`] | the box in `(ρ, z)` with `ρ = √(X² + Y²)` |
//! | [`Torus`] | `√((ρ − R)² + Z²) − r` |
//! | [`Halfspace`] | `Σ nᵢXᵢ − c` |
//! | [`Rounded`](crate::shape::Rounded) | the shape's interval `− r` |
//! | [`Transformed`], [`Placed`] | the shape's interval on the enclosure of the moved box |
//! | [`Union`], [`Intersection`], [`Difference`] | `Min`, `Max`, `Max(A, −B)` |
//! | [`SmoothUnion`] | `[Min.lo − k/4, Min.hi]` (the smooth minimum's bound) |

use super::interval::Interval;
use super::{Difference, Halfspace, Intersection, Sdf, SmoothUnion, Torus, Transformed, Union};
use crate::math::Real;
use crate::sdf::BoxN;
use crate::shape::{Capsule, Cuboid, Cylinder, MinkowskiSum, Placed, Sphere};
use nalgebra::{SMatrix, SVector};

/// An [`Sdf`] with an interval extension.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::interval::Interval;
/// use narrowphase::sdf::IntervalSdf;
/// use narrowphase::shape::Sphere;
/// let ball = Sphere::new(1.0_f64).unwrap();
/// // The box [2, 3] × [0, 1] × [0, 1] lies entirely outside the unit ball.
/// let cell = [Interval::new(2.0, 3.0).unwrap(), Interval::new(0.0, 1.0).unwrap(), Interval::new(0.0, 1.0).unwrap()];
/// let range = IntervalSdf::<f64, 3>::eval_interval(&ball, &cell);
/// assert!(range.lo() > 0.0 && range.lo() <= 1.0 && range.hi() >= 11.0_f64.sqrt() - 1.0);
/// ```
pub trait IntervalSdf<R: Real, const D: usize>: Sdf<R, D> {
    /// An interval containing `φ(x)` for every `x` in the box `b` (one
    /// interval per axis). NaN bounds when the box or the shape is invalid.
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R>;
}

impl<R: Real, const D: usize, T: IntervalSdf<R, D> + ?Sized> IntervalSdf<R, D> for &T {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        (**self).eval_interval(b)
    }
}

/// `√Σ Xᵢ²` over a slice of intervals.
#[inline]
fn norm_interval<R: Real>(xs: &[Interval<R>]) -> Interval<R> {
    let mut sum = Interval::point(R::ZERO);
    for x in xs {
        sum = sum + x.sqr();
    }
    sum.sqrt()
}

/// Eq. 3 for half-extents `b`.
#[inline]
fn box_interval<R: Real>(x: &[Interval<R>], b: &[R]) -> Interval<R> {
    let zero = Interval::point(R::ZERO);
    let mut outside = zero;
    let mut inside = Interval::point(-R::INFINITY);
    for (xi, &bi) in x.iter().zip(b.iter()) {
        let q = xi.abs().add_real(-bi);
        outside = outside + q.max(zero).sqr();
        inside = inside.max(q);
    }
    outside.sqrt() + inside.min(zero)
}

impl<R: Real, const D: usize> IntervalSdf<R, D> for Sphere<R> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        norm_interval(b).add_real(-self.radius())
    }
}

impl<R: Real, const D: usize> IntervalSdf<R, D> for BoxN<R, D> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        box_interval(b, self.half_extents().as_slice())
    }
}

impl<R: Real> IntervalSdf<R, 3> for Cuboid<R> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; 3]) -> Interval<R> {
        box_interval(b, self.half_extents().as_slice())
    }
}

impl<R: Real, const D: usize> IntervalSdf<R, D> for Capsule<R> {
    /// The axis is the last coordinate (as [`Sdf`] for the capsule).
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        let mut sum = Interval::point(R::ZERO);
        for (i, x) in b.iter().enumerate() {
            let along =
                if i + 1 == D { x.abs().add_real(-self.half_length()).max(Interval::point(R::ZERO)) } else { *x };
            sum = sum + along.sqr();
        }
        sum.sqrt().add_real(-self.radius())
    }
}

impl<R: Real> IntervalSdf<R, 3> for Cylinder<R> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; 3]) -> Interval<R> {
        let rho = norm_interval(&b[..2]);
        box_interval(&[rho, b[2]], &[self.radius(), self.half_height()])
    }
}

impl<R: Real> IntervalSdf<R, 3> for Torus<R> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; 3]) -> Interval<R> {
        let rho = norm_interval(&b[..2]);
        norm_interval(&[rho.add_real(-self.major()), b[2]]).add_real(-self.minor())
    }
}

impl<R: Real, const D: usize> IntervalSdf<R, D> for Halfspace<R, D> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        let n = self.normal();
        let mut sum = Interval::point(R::ZERO);
        for (i, x) in b.iter().enumerate() {
            sum = sum + x.scale(n[i]);
        }
        sum.add_real(-self.offset())
    }
}

impl<R: Real, S: IntervalSdf<R, 3>> IntervalSdf<R, 3> for MinkowskiSum<S, Sphere<R>> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; 3]) -> Interval<R> {
        self.a.eval_interval(b).add_real(-self.b.radius())
    }
}

/// The enclosure of `{Qᵀ(x − t)/s : x ∈ b}`, row by row.
#[inline]
fn local_box<R: Real, const D: usize>(
    q: &SMatrix<R, D, D>,
    t: &SVector<R, D>,
    s: R,
    b: &[Interval<R>; D],
) -> [Interval<R>; D] {
    let shifted: [Interval<R>; D] = core::array::from_fn(|j| b[j].add_real(-t[j]));
    core::array::from_fn(|i| {
        let mut sum = Interval::point(R::ZERO);
        for (j, x) in shifted.iter().enumerate() {
            // (Qᵀ)ᵢⱼ = Qⱼᵢ
            sum = sum + x.scale(q[(j, i)]);
        }
        if s == R::ONE {
            sum
        } else {
            sum.div_positive(s)
        }
    })
}

impl<R: Real, const D: usize, S: IntervalSdf<R, D>> IntervalSdf<R, D> for Transformed<S, R, D> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        let local = local_box(self.rotation(), self.translation(), self.scale(), b);
        self.shape.eval_interval(&local).scale(self.scale())
    }
}

impl<R: Real, S: IntervalSdf<R, 3>> IntervalSdf<R, 3> for Placed<S, R> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; 3]) -> Interval<R> {
        let local = local_box(self.pose().rotation.matrix(), &self.pose().translation.vector, R::ONE, b);
        self.shape.eval_interval(&local)
    }
}

impl<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>> IntervalSdf<R, D> for Union<A, B> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        self.a.eval_interval(b).min(self.b.eval_interval(b))
    }
}

impl<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>> IntervalSdf<R, D> for Intersection<A, B> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        self.a.eval_interval(b).max(self.b.eval_interval(b))
    }
}

impl<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>> IntervalSdf<R, D> for Difference<A, B> {
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        self.a.eval_interval(b).max(-self.b.eval_interval(b))
    }
}

impl<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>> IntervalSdf<R, D> for SmoothUnion<A, B, R> {
    /// `min − k/4 ≤ smin_k ≤ min` pointwise, so the interval of `min`
    /// lowered by `k/4` contains it.
    #[inline]
    fn eval_interval(&self, b: &[Interval<R>; D]) -> Interval<R> {
        let m = self.a.eval_interval(b).min(self.b.eval_interval(b));
        let drop = (self.blend() * R::lit(0.25)).next_up_();
        Interval::raw((m.lo() - drop).next_down_(), m.hi())
    }
}
