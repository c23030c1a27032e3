//! Shapes and the traits through which the query families see them.
//!
//! Every primitive lives in its own local frame, centred at the origin, with
//! its axis (where it has one) along **+z** (the URDF/ROS convention; the GJK
//! paper §4.1 uses +y). Put a shape in the world with [`Placed`] (a rigid
//! pose) or [`Affine`] (any invertible linear map plus offset).
//!
//! Constructors validate their parameters and return a typed [`ShapeError`]:
//! no NaN or infinity, sizes positive, within [`max_extent`] and no smaller
//! than [`min_extent`], and an aspect ratio within [`MAX_ASPECT`] times the
//! type's precision allows.

mod capsule;
mod cone;
mod cuboid;
mod cylinder;
mod ellipsoid;
mod polytope;
mod primitive;
mod sphere;
mod superquadric;
mod transform;

pub use capsule::Capsule;
pub use cone::Cone;
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
pub use ellipsoid::Ellipsoid;
#[cfg(feature = "std")]
pub(crate) use polytope::is_strict_corner;
pub use polytope::{Plane, Polytope, PolytopeData, CONVEXITY_TOLERANCE, HILL_CLIMB_MIN_VERTICES, MAX_VERTICES};
pub use primitive::CorePrimitive;
pub use sphere::Sphere;
pub use superquadric::{signed_pow, Ellipse, Superellipse, Superquadric, MIN_EXPONENT};
#[cfg(feature = "gpu")]
pub(crate) use transform::orthonormalised;
pub use transform::{
    check_pose, Affine, ConvexHull, Cso, CsoPoint, MinkowskiSum, Placed, Relative, Rounded, ROTATION_TOLERANCE,
};

use crate::error::ShapeError;
use crate::math::{Mat3, Pt3, Real, Vec3};

/// The caller-owned hint of a hill-climbing support map: the index of the
/// vertex returned last. Shapes that do not climb ignore it.
///
/// It starts [`COLD`](Self::COLD) (no vertex yet, also the
/// [`Default`]): a [`Polytope`] then starts its climb from the vertex it
/// stored for the direction's sector at construction, a few steps from the
/// answer. Any index out of range counts as cold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SupportWarmStart(pub u32);

impl SupportWarmStart {
    /// No vertex yet.
    pub const COLD: Self = Self(u32::MAX);
}

impl Default for SupportWarmStart {
    fn default() -> Self {
        Self::COLD
    }
}

/// A convex body seen through its support function (GJK paper §2, §4).
pub trait SupportMap<R: Real> {
    /// A point `p` of the body maximising `dir · p`.
    ///
    /// `dir` need not be unit length. For a zero or non-finite `dir` the
    /// result is some point of the body (never a panic); for a NaN `dir` it
    /// may be NaN, which the queries detect.
    fn support(&self, dir: &Vec3<R>) -> Pt3<R>;

    /// As [`support`](Self::support), warm-started from (and updating) a
    /// caller-owned hint. Only hill-climbing shapes use the hint.
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        let _ = hint;
        self.support(dir)
    }

    /// A point in the interior of the body (relative interior for flat
    /// bodies): the centre. MPR starts its portal from it.
    fn center(&self) -> Pt3<R>;

    /// The radius of the ball swept over this body's *core*, when the body is
    /// one: `self = core ⊕ ball(margin)` (a sphere: its centre; a capsule: its
    /// segment; [`Rounded`]: the inner shape). Zero for other bodies.
    /// [`contact`](crate::support::contact::contact) runs GJK on the cores
    /// and needs EPA only when the cores themselves overlap.
    #[inline]
    fn margin(&self) -> R {
        R::ZERO
    }

    /// Support point of the core (see [`margin`](Self::margin)); the
    /// body's own support point when it has no margin.
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        self.support_hinted(dir, hint)
    }

    /// `support_hinted(dir) − origin`, rounded at the size of the result
    /// and of the body, not at the size of the world coordinates.
    ///
    /// The queries of [`support`](crate::support) compute in a frame local
    /// to the pair ([`Relative`]): a body 5 mm from another at 10 km from
    /// the world origin must not lose the 5 mm to the rounding of
    /// `R·x + t` at 10 km (half a millimetre in f32). A shape that adds a
    /// large offset of its own (a pose, an affine offset) overrides this
    /// and subtracts `origin` from its offset *before* adding the rest, as
    /// [`Placed`] and [`Affine`] do. The default subtracts afterwards,
    /// which is exact enough for shapes whose support points are their own
    /// stored coordinates (primitives centred at their origin, a
    /// polytope's vertices).
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.support_hinted(dir, hint) - origin
    }

    /// [`support_core`](Self::support_core) relative to `origin`, rounded
    /// as [`support_from`](Self::support_from).
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.support_core(dir, hint) - origin
    }

    /// [`center`](Self::center) relative to `origin`, rounded as
    /// [`support_from`](Self::support_from).
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        self.center() - origin
    }

    /// The core (see [`margin`](Self::margin)) as a closed-form primitive
    /// seen from `origin`, rounded as [`support_from`](Self::support_from),
    /// when it is one: a sphere's centre, a capsule's segment, a box, a
    /// cylinder.
    /// [`contact`](crate::support::contact::contact) and
    /// [`clearance`](crate::support::contact::clearance) answer a pair of
    /// such cores in closed form (point or segment against point, segment
    /// or box, point against cylinder) and run GJK otherwise. `None` (the
    /// default) for every other body.
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        let _ = origin;
        None
    }

    /// How the body's own frame is turned in the frame of its support
    /// points: [`Attitude::Unturned`] for a shape at its own origin (every
    /// primitive), the pose's rotation for a [`Placed`] one,
    /// [`Attitude::Unknown`] (the default) where the body has no frame that
    /// moves with it. GJK's warm start keeps the directions of its last
    /// support queries in each body's own frame, so that after a motion the
    /// same points of the bodies are found again; a body of unknown
    /// attitude starts from the cached plane only.
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unknown
    }

    /// Whether [`support_hinted`](Self::support_hinted) uses its hint (the
    /// body, or its core, climbs a vertex graph: a [`Polytope`]). GJK then
    /// passes a cold hint when its search direction turned far, since the
    /// polytope's stored vertex for the new direction is closer than the
    /// last answer. `false` (the default) for every other body: no hint to
    /// reset, no test.
    #[inline]
    fn climbs(&self) -> bool {
        false
    }

    /// Whether the body's surface is curved where GJK meets it (an
    /// ellipsoid, a superquadric, a sphere-swept body, an affine image of
    /// one): GJK converges only linearly on such a body, and the distance
    /// queries then accelerate it with momentum ([`gjk`](crate::support::gjk)).
    /// `false` (the default) for bodies of flat faces, edges and vertices
    /// (boxes, polytopes, cylinders, cones), where plain GJK ends in a few
    /// steps.
    #[inline]
    fn curved(&self) -> bool {
        false
    }

    /// [`curved`](Self::curved) for the core (see [`margin`](Self::margin)):
    /// a sphere's centre and a capsule's segment are not curved. The default
    /// says the body's own when it has no margin.
    #[inline]
    fn core_curved(&self) -> bool {
        self.curved() && !(self.margin() > R::ZERO)
    }

    /// [`core_primitive_from`](Self::core_primitive_from) the body's own
    /// origin, turned by `rotation` and moved by `offset`: what
    /// [`Placed`] asks of its shape. The default moves the primitive;
    /// spheres, capsules and boxes build the moved one directly (a capsule's
    /// segment from the rotation's axis column, a box's axes as the rotation
    /// itself), with the same values: the products they skip are by the
    /// local frame's zeros and ones, which are exact.
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<CorePrimitive<R>> {
        Some(self.core_primitive_from(&Pt3::origin())?.moved(rotation, offset))
    }
}

/// How a body's own frame is turned in the frame of its support points
/// ([`SupportMap::attitude`]).
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use nalgebra::{Rotation3, Translation3, Vector3};
/// let turn = Rotation3::from_axis_angle(&Vector3::z_axis(), core::f64::consts::FRAC_PI_2);
/// let body = Placed::new(Sphere::new(1.0).unwrap(), Pose::from_parts(Translation3::new(5.0, 0.0, 0.0), turn));
/// let attitude = body.attitude();
/// // The body's own x axis points along the world's y axis.
/// let world = attitude.from_own(&Vector3::x()).unwrap();
/// assert!((world - Vector3::y()).norm() < 1e-12);
/// assert!((attitude.to_own(&world).unwrap() - Vector3::x()).norm() < 1e-12);
/// // A sum of a turned and an unturned part has no frame of its own.
/// assert_eq!(Attitude::of_parts(&attitude, &Attitude::Unturned), Attitude::Unknown);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Attitude<R: Real> {
    /// No frame that moves with the body is known.
    Unknown,
    /// The body's own frame is the support points' frame.
    Unturned,
    /// The body's own frame turned by this rotation.
    Turned(Mat3<R>),
}

impl<R: Real> Attitude<R> {
    /// `dir`, given in the support points' frame, in the body's own frame.
    #[inline]
    pub fn to_own(&self, dir: &Vec3<R>) -> Option<Vec3<R>> {
        match self {
            Attitude::Unknown => None,
            Attitude::Unturned => Some(*dir),
            Attitude::Turned(m) => Some(m.tr_mul(dir)),
        }
    }
    /// `dir`, given in the body's own frame, in the support points' frame.
    #[inline]
    pub fn from_own(&self, dir: &Vec3<R>) -> Option<Vec3<R>> {
        match self {
            Attitude::Unknown => None,
            Attitude::Unturned => Some(*dir),
            Attitude::Turned(m) => Some(m * dir),
        }
    }
    /// The attitude of a body made of two parts (a sum, a hull): unturned
    /// where both parts are, unknown otherwise (the parts may turn apart).
    #[inline]
    pub fn of_parts(a: &Self, b: &Self) -> Self {
        match (a, b) {
            (Attitude::Unturned, Attitude::Unturned) => Attitude::Unturned,
            _ => Attitude::Unknown,
        }
    }
    /// This attitude turned further by `rotation` (a pose's).
    #[inline]
    pub fn turned_by(&self, rotation: &Mat3<R>) -> Self {
        match self {
            Attitude::Unknown => Attitude::Unknown,
            Attitude::Unturned => Attitude::Turned(*rotation),
            Attitude::Turned(m) => Attitude::Turned(rotation * m),
        }
    }
}

/// A body seen through its core: the support map of
/// [`SupportMap::support_core`], no margin.
#[derive(Clone, Copy, Debug)]
pub struct Core<'s, S: ?Sized>(pub &'s S);

#[cfg(feature = "defmt")]
impl<S: ?Sized> defmt::Format for Core<'_, S> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Core")
    }
}

impl<R: Real, S: SupportMap<R> + ?Sized> SupportMap<R> for Core<'_, S> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        self.0.support_core(dir, &mut SupportWarmStart::default())
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        self.0.support_core(dir, hint)
    }
    fn center(&self) -> Pt3<R> {
        self.0.center()
    }
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.0.support_core_from(dir, hint, origin)
    }
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.0.support_core_from(dir, hint, origin)
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        self.0.center_from(origin)
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        self.0.core_primitive_from(origin)
    }
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<CorePrimitive<R>> {
        self.0.core_primitive_placed(rotation, offset)
    }
    #[inline]
    fn climbs(&self) -> bool {
        self.0.climbs()
    }
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        self.0.attitude()
    }
    #[inline]
    fn curved(&self) -> bool {
        self.0.core_curved()
    }
    #[inline]
    fn core_curved(&self) -> bool {
        self.0.core_curved()
    }
}

/// A body with a bounding sphere (and, from its support map, an AABB).
pub trait Bounded<R: Real> {
    /// Centre and radius of a sphere containing the body.
    fn bounding_sphere(&self) -> (Pt3<R>, R);
}

impl<R: Real, T: SupportMap<R> + ?Sized> SupportMap<R> for &T {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        (**self).support(dir)
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        (**self).support_hinted(dir, hint)
    }
    #[inline]
    fn center(&self) -> Pt3<R> {
        (**self).center()
    }
    #[inline]
    fn margin(&self) -> R {
        (**self).margin()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        (**self).support_core(dir, hint)
    }
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        (**self).support_from(dir, hint, origin)
    }
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        (**self).support_core_from(dir, hint, origin)
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        (**self).center_from(origin)
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        (**self).core_primitive_from(origin)
    }
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<CorePrimitive<R>> {
        (**self).core_primitive_placed(rotation, offset)
    }
    #[inline]
    fn climbs(&self) -> bool {
        (**self).climbs()
    }
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        (**self).attitude()
    }
    #[inline]
    fn curved(&self) -> bool {
        (**self).curved()
    }
    #[inline]
    fn core_curved(&self) -> bool {
        (**self).core_curved()
    }
}

impl<R: Real, T: Bounded<R> + ?Sized> Bounded<R> for &T {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (**self).bounding_sphere()
    }
}

/// Axis-aligned bounding box `[min, max]` of a convex body, exact, from six
/// support queries.
pub fn aabb<R: Real, S: SupportMap<R> + ?Sized>(shape: &S) -> (Pt3<R>, Pt3<R>) {
    let mut lo = Pt3::origin();
    let mut hi = Pt3::origin();
    for i in 0..3 {
        let mut d = Vec3::zeros();
        d[i] = R::ONE;
        hi[i] = shape.support(&d)[i];
        lo[i] = shape.support(&-d)[i];
    }
    (lo, hi)
}

/// Largest ratio between the largest and the smallest size parameter of one
/// shape, as a multiple of `1/ε` of the scalar type: a shape thinner than
/// `MAX_ASPECT · ε` of its own size cannot be resolved by the arithmetic.
pub const MAX_ASPECT: f64 = 1.0e-2;

/// Largest size or coordinate accepted: `sqrt(MAX) / 1e3`, so that squared
/// lengths and dot products of sums never overflow (≈1.8e16 for f32).
pub fn max_extent<R: Real>() -> R {
    Real::sqrt(R::MAX) / R::lit(1.0e3)
}

/// Smallest size accepted: `sqrt(MIN_POSITIVE) · 1e3`, so that squared
/// lengths stay normal numbers (≈1.1e-16 for f32).
pub fn min_extent<R: Real>() -> R {
    Real::sqrt(R::MIN_POSITIVE) * R::lit(1.0e3)
}

/// Validates a list of size parameters (all must be checked together for
/// the aspect ratio) and returns the largest.
pub(crate) fn check_sizes<R: Real>(sizes: &[R]) -> Result<R, ShapeError> {
    let mut lo = R::INFINITY;
    let mut hi = R::ZERO;
    for &s in sizes {
        if !s.finite() {
            return Err(ShapeError::NonFinite);
        }
        if !(s > R::ZERO) {
            return Err(ShapeError::NonPositiveSize);
        }
        if s > max_extent::<R>() || s < min_extent::<R>() {
            return Err(ShapeError::BadAspect);
        }
        lo = crate::math::min(lo, s);
        hi = crate::math::max(hi, s);
    }
    // hi / lo <= MAX_ASPECT / eps  <=>  hi * eps <= MAX_ASPECT * lo
    if hi * R::EPSILON > R::lit(MAX_ASPECT) * lo {
        return Err(ShapeError::BadAspect);
    }
    Ok(hi)
}

/// `dir / |dir|` for a support map of a round shape; zero when `dir` is zero
/// (the centre is then a valid answer).
#[inline(always)]
pub(crate) fn unit_or_zero<R: Real>(dir: &Vec3<R>) -> Vec3<R> {
    crate::math::normalize(dir).unwrap_or_else(Vec3::zeros)
}
