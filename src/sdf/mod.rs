//! Bodies seen through their signed distance function (SDF), and the
//! ellipsoid method that finds their distance or penetration from it
//! (López-Adeva & Merchante, *Signed distance function collision detection
//! using the ellipsoid method*, CAD 170, 2024 — "the paper" below).
//!
//! - [`Sdf`]: a value and a (sub)gradient at a point, in any small dimension
//!   `D`, exact or a lower bound with the right sign ([`SdfAccuracy`]);
//! - the SDFs of the primitives, as [`Sdf`] on the [`shape`](crate::shape)
//!   types and on [`BoxN`], [`CappedCone`], [`Halfspace`] (exact: ball, box,
//!   rounded bodies, capsule, capped cylinder, capped cone, halfspace;
//!   bounds: ellipsoid, superquadric, convex polytope by the paper's
//!   Algorithm 4), placement by an isometry and a uniform scale
//!   ([`Transformed`]);
//! - [`ellipsoid_method`]: the paper's Algorithms 1–3, Propositions 1–5 and
//!   Corollary 1 — collision, distance, inscribed-ball penetration, warm start.
//!
//! Sign convention: `φ(x) < 0` inside, `> 0` outside, `|∇φ| = 1` where the
//! gradient exists. Where it does not (skeleton, edges, corners) the shapes
//! return a subgradient as the paper's §2.3 describes: the normal of a
//! supporting halfspace on the surface, `(x − p(x))/φ(x)` for one projection
//! `p(x)` elsewhere, or a convex combination; its length is at most 1.

mod aabb;
mod csg;
pub mod ellipsoid_method;
pub mod gradient;
pub mod grid;
pub mod interval;
mod interval_sdf;
pub mod octree;
pub mod particles;
mod polytope_sdf;
mod region;
mod shapes;
mod torus;

pub use aabb::Aabb;
pub use csg::{Difference, Intersection, SmoothUnion, Union};
pub use interval_sdf::IntervalSdf;
pub use polytope_sdf::TIE_TOLERANCE_EPS;
pub use shapes::{BoxN, CappedCone, Halfspace, Transformed};
pub use torus::Torus;

use crate::math::Real;
use nalgebra::SVector;

/// Whether an [`Sdf`] returns the true signed distance or only a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SdfAccuracy {
    /// The exact signed distance (up to rounding).
    Exact,
    /// A lower bound of the signed distance with the same sign everywhere
    /// (zero exactly on the surface): collision answers stay exact, distance
    /// and depth are approximate (the paper's Eq. 21 and Proposition 6).
    LowerBound,
    /// A lower bound of the signed distance whose sign may be wrong outside
    /// the body, within the bound's error of the surface (a rounded body
    /// around a [`LowerBound`](Self::LowerBound) SDF): collision answers are
    /// then conservative — a pair reported apart is apart, a pair reported
    /// colliding may be apart by up to that error.
    LooseLowerBound,
    /// Close to the signed distance but neither exact nor a bound: CSG
    /// unions and smooth unions (right sign, depth underestimated inside),
    /// sampled grids (sign right away from the surface, within the grid's
    /// interpolation error of it). Fine for the general SDF–SDF methods
    /// (octree, gradients, particles); the ellipsoid method needs convex
    /// bodies and gives no certificate with such an SDF.
    Approximate,
}

/// The caller-owned hint of an SDF evaluated by local search (the polytope's
/// Algorithm 4 keeps the face it found last, the paper's `a₀`). Shapes with a
/// closed form ignore it. Starting value 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SdfWarmStart(pub u32);

/// The value and a (sub)gradient of an SDF at one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdfSample<R: Real, const D: usize> {
    /// `φ(x)`: negative inside.
    pub value: R,
    /// A subgradient of `φ` at `x` (the gradient where it exists), length ≤ 1.
    pub gradient: SVector<R, D>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for SdfSample<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "SdfSample {{ value: {}, gradient: {} }}", self.value, self.gradient.as_slice())
    }
}

/// A ball `|x − center| ≤ radius`, e.g. a bounding sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball<R: Real, const D: usize> {
    /// Centre.
    pub center: SVector<R, D>,
    /// Radius (non-negative).
    pub radius: R,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for Ball<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Ball {{ center: {}, radius: {} }}", self.center.as_slice(), self.radius)
    }
}

/// A body in `D` dimensions seen through its signed distance function.
///
/// Implementations must return, for every finite `x`, a finite value whose
/// sign is the sign of the true SDF (zero on the surface), a subgradient of
/// length at most 1, and never panic; for non-finite `x` anything
/// non-panicking (the queries check their inputs).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{Sdf, SdfAccuracy};
/// use narrowphase::shape::Sphere;
/// use nalgebra::Vector2;
///
/// // A sphere is a disc in 2D.
/// let disc = Sphere::new(1.0_f64).unwrap();
/// let s = Sdf::<f64, 2>::eval(&disc, &Vector2::new(3.0, 4.0));
/// assert_eq!(s.value, 4.0);
/// assert_eq!(s.gradient, Vector2::new(0.6, 0.8));
/// assert_eq!(Sdf::<f64, 2>::accuracy(&disc), SdfAccuracy::Exact);
/// ```
pub trait Sdf<R: Real, const D: usize> {
    /// Value and subgradient at `x`.
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D>;

    /// As [`eval`](Self::eval), warm-started from (and updating) a
    /// caller-owned hint; only shapes evaluated by local search use it.
    #[inline]
    fn eval_hinted(&self, x: &SVector<R, D>, hint: &mut SdfWarmStart) -> SdfSample<R, D> {
        let _ = hint;
        self.eval(x)
    }

    /// Exact, or a lower bound with the right sign.
    fn accuracy(&self) -> SdfAccuracy;

    /// A ball containing the body (the ellipsoid method starts from two of
    /// them). It need not be tight. A ball that does not contain the body
    /// voids the method's certificate: the method checks every sample
    /// against it and answers `Undetermined::Degenerate` when one
    /// contradicts it (it cannot see every such mistake).
    fn bounding_ball(&self) -> Ball<R, D>;

    /// An axis-aligned box containing the body (the octree, the detection
    /// points and the particles start from the intersection of two of
    /// them). The default is the box of [`bounding_ball`](Self::bounding_ball);
    /// shapes override it where a tighter box is cheap.
    #[inline]
    fn bounding_box(&self) -> Aabb<R, D> {
        let b = self.bounding_ball();
        Aabb::around(&b.center, b.radius)
    }
}

impl<R: Real, const D: usize, T: Sdf<R, D> + ?Sized> Sdf<R, D> for &T {
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        (**self).eval(x)
    }
    #[inline]
    fn eval_hinted(&self, x: &SVector<R, D>, hint: &mut SdfWarmStart) -> SdfSample<R, D> {
        (**self).eval_hinted(x, hint)
    }
    fn accuracy(&self) -> SdfAccuracy {
        (**self).accuracy()
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        (**self).bounding_ball()
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        (**self).bounding_box()
    }
}

/// The projection of `x` onto the surface along the gradient,
/// `p(x) = x − φ(x)∇φ(x)` (exact for exact SDFs where the gradient exists).
#[inline]
pub fn project<R: Real, const D: usize>(x: &SVector<R, D>, s: &SdfSample<R, D>) -> SVector<R, D> {
    x - s.gradient * s.value
}
