//! Shapes built from shapes (GJK paper §4.2–4.4): rigid placement, affine
//! images, Minkowski sums, convex hulls, and the configuration-space obstacle
//! `A − B` that GJK, EPA and MPR walk on.

use super::{Bounded, SupportHint, SupportMap};
use crate::math::{norm, Mat3, Pt3, Real, Vec3};
use crate::query::ShapeError;

/// A rigid pose: rotation matrix and translation (`x_world = R·x + t`).
///
/// A rotation matrix rather than a quaternion: a support query rotates twice
/// (`Rᵀ` in, `R` out), 15 multiply–adds each with a matrix.
pub type Pose<R> = nalgebra::IsometryMatrix3<R>;

/// A shape placed in the world by a rigid pose: `s(v) = R·s_A(Rᵀv) + t`.
///
/// ```
/// use narrowphase::shape::{Cuboid, Placed, Pose, SupportMap};
/// use nalgebra::{Translation3, Vector3};
/// let b = Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap();
/// let p = Placed::new(b, Pose::from_parts(Translation3::new(5.0, 0.0, 0.0), Default::default()));
/// assert_eq!(p.support(&Vector3::x()).x, 6.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Placed<S, R: Real> {
    /// The shape in its local frame.
    pub shape: S,
    /// Its pose in the world.
    pub pose: Pose<R>,
}

impl<S, R: Real> Placed<S, R> {
    /// Place `shape` at `pose`.
    pub fn new(shape: S, pose: Pose<R>) -> Self {
        Self { shape, pose }
    }
}

impl<R: Real, S: SupportMap<R>> SupportMap<R> for Placed<S, R> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support(&local))
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support_hinted(&local, hint))
    }
    fn center(&self) -> Pt3<R> {
        self.pose.transform_point(&self.shape.center())
    }
    #[inline]
    fn margin(&self) -> R {
        self.shape.margin()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support_core(&local, hint))
    }
}

impl<R: Real, S: Bounded<R>> Bounded<R> for Placed<S, R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let (c, r) = self.shape.bounding_sphere();
        (self.pose.transform_point(&c), r)
    }
}

/// The image of a shape under `T(x) = B·x + c`, any invertible `B`
/// (scaling, shear, reflection): `s(v) = T(s_A(Bᵀv))` (GJK paper Theorem 2).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Affine<S, R: Real> {
    /// The shape.
    pub shape: S,
    linear: Mat3<R>,
    linear_t: Mat3<R>,
    offset: Vec3<R>,
    /// Frobenius norm of `B`, an upper bound of its largest singular value.
    scale: R,
}

impl<S, R: Real> Affine<S, R> {
    /// The image of `shape` under `x ↦ linear·x + offset`. `linear` must be
    /// finite and invertible (relative to its own size and the precision).
    pub fn new(shape: S, linear: Mat3<R>, offset: Vec3<R>) -> Result<Self, ShapeError> {
        if !linear.iter().all(|x| x.finite()) || !crate::math::finite_vec(&offset) {
            return Err(ShapeError::NonFinite);
        }
        let scale = Real::sqrt(linear.iter().fold(R::ZERO, |s, &x| s + x * x));
        // |det| relative to scale³: a singular map squashes the body flat.
        let det = linear.determinant();
        if !(det.abs_() > scale * scale * scale * R::EPSILON * R::lit(16.0)) {
            return Err(ShapeError::BadAspect);
        }
        Ok(Self { shape, linear, linear_t: linear.transpose(), offset, scale })
    }
    /// The linear part `B`.
    pub fn linear(&self) -> &Mat3<R> {
        &self.linear
    }
    /// The offset `c`.
    pub fn offset(&self) -> &Vec3<R> {
        &self.offset
    }
}

impl<R: Real, S: SupportMap<R>> SupportMap<R> for Affine<S, R> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let p = self.shape.support(&(self.linear_t * dir));
        Pt3::from(self.linear * p.coords + self.offset)
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        let p = self.shape.support_hinted(&(self.linear_t * dir), hint);
        Pt3::from(self.linear * p.coords + self.offset)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::from(self.linear * self.shape.center().coords + self.offset)
    }
}

impl<R: Real, S: Bounded<R>> Bounded<R> for Affine<S, R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let (c, r) = self.shape.bounding_sphere();
        (Pt3::from(self.linear * c.coords + self.offset), r * self.scale)
    }
}

/// The Minkowski sum `A ⊕ B = {a + b}`: `s(v) = s_A(v) + s_B(v)` (GJK paper §4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MinkowskiSum<A, B> {
    /// First summand (receives the hint).
    pub a: A,
    /// Second summand.
    pub b: B,
}

/// A sphere-swept ("rounded") shape: `S ⊕ ball(r)`.
pub type Rounded<S, R> = MinkowskiSum<S, super::Sphere<R>>;

impl<A, B> MinkowskiSum<A, B> {
    /// `a ⊕ b`.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<R: Real, A: SupportMap<R>, B: SupportMap<R>> SupportMap<R> for MinkowskiSum<A, B> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        self.a.support(dir) + self.b.support(dir).coords
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        self.a.support_hinted(dir, hint) + self.b.support(dir).coords
    }
    fn center(&self) -> Pt3<R> {
        self.a.center() + self.b.center().coords
    }
    /// Margins add: `(Ca ⊕ ball(ma)) ⊕ (Cb ⊕ ball(mb)) = (Ca ⊕ Cb) ⊕ ball(ma + mb)`.
    #[inline]
    fn margin(&self) -> R {
        self.a.margin() + self.b.margin()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        self.a.support_core(dir, hint) + self.b.support_core(dir, &mut SupportHint(0)).coords
    }
}

impl<R: Real, A: Bounded<R>, B: Bounded<R>> Bounded<R> for MinkowskiSum<A, B> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let (ca, ra) = self.a.bounding_sphere();
        let (cb, rb) = self.b.bounding_sphere();
        (ca + cb.coords, ra + rb)
    }
}

/// The convex hull of two shapes: `s(v)` is whichever of `s_A(v)`, `s_B(v)`
/// lies further along `v` (GJK paper §4.4). Nest it for more shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ConvexHull<A, B> {
    /// First shape (receives the hint).
    pub a: A,
    /// Second shape.
    pub b: B,
}

impl<A, B> ConvexHull<A, B> {
    /// `conv(a ∪ b)`.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<R: Real, A: SupportMap<R>, B: SupportMap<R>> SupportMap<R> for ConvexHull<A, B> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let pa = self.a.support(dir);
        let pb = self.b.support(dir);
        if dir.dot(&pb.coords) > dir.dot(&pa.coords) {
            pb
        } else {
            pa
        }
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportHint) -> Pt3<R> {
        let pa = self.a.support_hinted(dir, hint);
        let pb = self.b.support(dir);
        if dir.dot(&pb.coords) > dir.dot(&pa.coords) {
            pb
        } else {
            pa
        }
    }
    fn center(&self) -> Pt3<R> {
        nalgebra::center(&self.a.center(), &self.b.center())
    }
}

impl<R: Real, A: Bounded<R>, B: Bounded<R>> Bounded<R> for ConvexHull<A, B> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let (ca, ra) = self.a.bounding_sphere();
        let (cb, rb) = self.b.bounding_sphere();
        let c = nalgebra::center(&ca, &cb);
        let r = crate::math::max(norm(&(ca - c)) + ra, norm(&(cb - c)) + rb);
        (c, r)
    }
}

/// One support point of the CSO `A − B` with the two body points it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CsoPoint<R: Real> {
    /// `a − b`.
    pub w: Vec3<R>,
    /// The support point of A in direction `v`.
    pub a: Pt3<R>,
    /// The support point of B in direction `−v`.
    pub b: Pt3<R>,
}

impl<R: Real> CsoPoint<R> {
    /// `true` when every coordinate is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        crate::math::finite_vec(&self.a.coords) && crate::math::finite_vec(&self.b.coords)
    }
}

/// The configuration-space obstacle `A − B = {a − b}`:
/// `s(v) = s_A(v) − s_B(−v)`. The origin lies in it iff A and B intersect,
/// and its distance to the origin is the distance between A and B.
///
/// It keeps one support hint per body, so consecutive queries in close
/// directions (GJK, EPA, MPR iterations, or frames) warm-start hill climbing.
#[derive(Debug)]
pub struct Cso<'s, A: ?Sized, B: ?Sized> {
    /// Body A.
    pub a: &'s A,
    /// Body B.
    pub b: &'s B,
    /// Hill-climbing hint for A.
    pub hint_a: SupportHint,
    /// Hill-climbing hint for B.
    pub hint_b: SupportHint,
}

/// Logs the hints only: the bodies may be trait objects.
#[cfg(feature = "defmt")]
impl<A: ?Sized, B: ?Sized> defmt::Format for Cso<'_, A, B> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Cso {{ hint_a: {}, hint_b: {} }}", self.hint_a, self.hint_b)
    }
}

impl<'s, A: ?Sized, B: ?Sized> Cso<'s, A, B> {
    /// The CSO of `a` and `b`, with fresh hints.
    pub fn new(a: &'s A, b: &'s B) -> Self {
        Self { a, b, hint_a: SupportHint(0), hint_b: SupportHint(0) }
    }
}

impl<A: ?Sized, B: ?Sized> Cso<'_, A, B> {
    /// The support point in direction `v`, with its two body points.
    #[inline]
    pub fn support_point<R: Real>(&mut self, v: &Vec3<R>) -> CsoPoint<R>
    where
        A: SupportMap<R>,
        B: SupportMap<R>,
    {
        let a = self.a.support_hinted(v, &mut self.hint_a);
        let b = self.b.support_hinted(&-v, &mut self.hint_b);
        CsoPoint { w: a - b, a, b }
    }
    /// `center(A) − center(B)`: a point inside the CSO.
    #[inline]
    pub fn center<R: Real>(&self) -> Vec3<R>
    where
        A: SupportMap<R>,
        B: SupportMap<R>,
    {
        self.a.center() - self.b.center()
    }
}

impl<R: Real, A: SupportMap<R> + ?Sized, B: SupportMap<R> + ?Sized> SupportMap<R> for Cso<'_, A, B> {
    /// `s_A(v) − s_B(−v)` as a point (without the hints, which need `&mut`).
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        Pt3::from(self.a.support(dir) - self.b.support(&-dir))
    }
    fn center(&self) -> Pt3<R> {
        Pt3::from(self.a.center() - self.b.center())
    }
}
