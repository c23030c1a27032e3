//! Shapes built from shapes (GJK paper §4.2–4.4): rigid placement, affine
//! images, Minkowski sums, convex hulls, and the configuration-space obstacle
//! `A − B` that GJK, EPA and MPR walk on.

use super::{Attitude, Bounded, CorePrimitive, SupportMap, SupportWarmStart};
use crate::error::ShapeError;
use crate::math::{norm, Mat3, Pose, Pt3, Real, Vec3};

/// A shape placed in the world by a rigid pose: `s(v) = R·s_A(Rᵀv) + t`.
///
/// The rotation is kept orthonormal: [`Placed::try_new`] and
/// [`Placed::set_pose`] refuse a non-finite pose or a rotation further than
/// [`ROTATION_TOLERANCE`] from orthonormal with a typed error, and every
/// constructor re-orthonormalises the rotation it keeps (Gram–Schmidt on
/// its columns), so the support map, the margins of round bodies and the
/// SDF all see the same rigid body. A scaled or sheared map is an
/// [`Affine`] image, not a pose.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Cuboid, Placed, SupportMap};
/// use narrowphase::math::Pose;
/// use nalgebra::{Translation3, Vector3};
/// let b = Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap();
/// let p = Placed::try_new(b, Pose::from_parts(Translation3::new(5.0, 0.0, 0.0), Default::default())).unwrap();
/// assert_eq!(p.support(&Vector3::x()).x, 6.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Placed<S, R: Real> {
    /// The shape in its local frame.
    pub shape: S,
    pose: Pose<R>,
}

/// Largest deviation from orthonormal accepted in a pose's rotation: the
/// largest entry of `RᵀR − I`. Forward kinematics in f32 drifts by about
/// 1e-6 per chain; a scaled or sheared matrix is off by far more.
pub const ROTATION_TOLERANCE: f64 = 1.0e-4;

/// Checks that `pose` is a finite rigid motion: the test [`Placed::try_new`]
/// and [`Placed::set_pose`] apply.
///
/// # Errors
///
/// - [`ShapeError::NonFinite`] if an entry of the rotation matrix or the
///   translation is NaN or infinite;
/// - [`ShapeError::NotARotation`] if an entry of `RᵀR − I` exceeds
///   [`ROTATION_TOLERANCE`] in magnitude (a scale or a shear), or
///   `det R ≤ 0` (a reflection).
///
/// # Examples
///
/// ```
/// use narrowphase::shape::check_pose;
/// use narrowphase::prelude::*;
/// use nalgebra::{Matrix3, Rotation3, Translation3, Vector3};
/// let spin = Rotation3::from_axis_angle(&Vector3::z_axis(), 0.3);
/// let turn = Pose::from_parts(Translation3::new(1.0_f32, 2.0, 3.0), spin);
/// assert_eq!(check_pose(&turn), Ok(()));
/// let mirror = Pose::from_parts(Translation3::new(0.0, 0.0, 0.0),
///     Rotation3::from_matrix_unchecked(Matrix3::from_diagonal(&Vector3::new(1.0_f32, 1.0, -1.0))));
/// assert_eq!(check_pose(&mirror), Err(ShapeError::NotARotation));
/// let lost = Pose::from_parts(Translation3::new(f32::NAN, 0.0, 0.0), Default::default());
/// assert_eq!(check_pose(&lost), Err(ShapeError::NonFinite));
/// ```
pub fn check_pose<R: Real>(pose: &Pose<R>) -> Result<(), ShapeError> {
    let m = pose.rotation.matrix();
    if !m.iter().all(|x| x.finite()) || !crate::math::finite_vec(&pose.translation.vector) {
        return Err(ShapeError::NonFinite);
    }
    let gram = m.transpose() * m;
    let tol = R::lit(ROTATION_TOLERANCE);
    for i in 0..3 {
        for j in 0..3 {
            let target = if i == j { R::ONE } else { R::ZERO };
            if !((gram[(i, j)] - target).abs_() <= tol) {
                return Err(ShapeError::NotARotation);
            }
        }
    }
    if !(m.determinant() > R::ZERO) {
        return Err(ShapeError::NotARotation);
    }
    Ok(())
}

/// The pose with its rotation's columns made orthonormal by Gram–Schmidt
/// (x first, then y, z = x × y): a fixed, branch-free cost. Non-finite
/// or degenerate columns stay non-finite and are caught by the queries.
/// Everything that places a shape (a [`Placed`], the GPU's pose buffer)
/// goes through it, so all of them see one rigid body.
pub(crate) fn orthonormalised<R: Real>(pose: &Pose<R>) -> Pose<R> {
    let m = pose.rotation.matrix();
    let x = m.column(0).into_owned();
    let x = x / crate::math::norm(&x);
    let y = m.column(1).into_owned();
    let y = y - x * x.dot(&y);
    let y = y / crate::math::norm(&y);
    let z = x.cross(&y);
    let r = nalgebra::Rotation3::from_matrix_unchecked(Mat3::from_columns(&[x, y, z]));
    Pose::from_parts(pose.translation, r)
}

impl<S, R: Real> Placed<S, R> {
    /// Place `shape` at `pose`, its rotation re-orthonormalised (see the
    /// type's docs). Prefer [`try_new`](Self::try_new) where the pose comes
    /// from outside the program: it says when the rotation is not one.
    pub fn new(shape: S, pose: Pose<R>) -> Self {
        Self { shape, pose: orthonormalised(&pose) }
    }

    /// Place `shape` at `pose` after checking it with [`check_pose`]; the
    /// rotation kept is re-orthonormalised as in [`new`](Self::new).
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if an entry of the rotation matrix or the
    ///   translation is NaN or infinite;
    /// - [`ShapeError::NotARotation`] if an entry of `RᵀR − I` exceeds
    ///   [`ROTATION_TOLERANCE`] in magnitude (a scale or a shear), or
    ///   `det R ≤ 0` (a reflection).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::{Matrix3, Rotation3, Translation3};
    /// let scaled = Pose::from_parts(Translation3::new(0.0_f64, 0.0, 0.0),
    ///     Rotation3::from_matrix_unchecked(Matrix3::identity() * 2.0));
    /// assert_eq!(Placed::try_new(Sphere::new(1.0).unwrap(), scaled), Err(ShapeError::NotARotation));
    /// ```
    pub fn try_new(shape: S, pose: Pose<R>) -> Result<Self, ShapeError> {
        check_pose(&pose)?;
        Ok(Self::new(shape, pose))
    }

    /// The pose (rotation orthonormal).
    #[inline]
    pub fn pose(&self) -> &Pose<R> {
        &self.pose
    }

    /// Move the shape to `pose`, validated as in [`try_new`](Self::try_new).
    ///
    /// # Errors
    ///
    /// On an error the shape stays where it was.
    /// - [`ShapeError::NonFinite`] if an entry of the rotation matrix or the
    ///   translation is NaN or infinite;
    /// - [`ShapeError::NotARotation`] if an entry of `RᵀR − I` exceeds
    ///   [`ROTATION_TOLERANCE`] in magnitude (a scale or a shear), or
    ///   `det R ≤ 0` (a reflection).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::{Matrix3, Rotation3, Translation3};
    /// let mut ball = Placed::new(Sphere::new(1.0_f64).unwrap(), Pose::identity());
    /// ball.set_pose(Pose::from_parts(Translation3::new(2.0, 0.0, 0.0), Default::default())).unwrap();
    /// let sheared = Pose::from_parts(Translation3::new(5.0, 0.0, 0.0),
    ///     Rotation3::from_matrix_unchecked(Matrix3::new(1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)));
    /// assert_eq!(ball.set_pose(sheared), Err(ShapeError::NotARotation));
    /// assert_eq!(ball.pose().translation.vector.x, 2.0); // unchanged
    /// ```
    pub fn set_pose(&mut self, pose: Pose<R>) -> Result<(), ShapeError> {
        check_pose(&pose)?;
        self.pose = orthonormalised(&pose);
        Ok(())
    }
}

impl<R: Real, S: SupportMap<R>> SupportMap<R> for Placed<S, R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        self.shape.attitude().turned_by(self.pose.rotation.matrix())
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support(&local))
    }
    #[inline]
    fn climbs(&self) -> bool {
        self.shape.climbs()
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support_hinted(&local, hint))
    }
    /// The pose's translation when the shape is centred at its origin (every
    /// primitive: the test folds away), without a product by the rotation.
    #[inline]
    fn center(&self) -> Pt3<R> {
        let c = self.shape.center();
        if c == Pt3::origin() {
            Pt3::from(self.pose.translation.vector)
        } else {
            self.pose.transform_point(&c)
        }
    }
    #[inline]
    fn margin(&self) -> R {
        self.shape.margin()
    }
    #[inline]
    fn curved(&self) -> bool {
        self.shape.curved()
    }
    #[inline]
    fn core_curved(&self) -> bool {
        self.shape.core_curved()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.transform_point(&self.shape.support_core(&local, hint))
    }
    /// `R·s(Rᵀv) + (t − origin)`: the offset is taken first.
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.rotation * self.shape.support_hinted(&local, hint).coords
            + (self.pose.translation.vector - origin.coords)
    }
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose.rotation * self.shape.support_core(&local, hint).coords
            + (self.pose.translation.vector - origin.coords)
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        let c = self.shape.center();
        if c == Pt3::origin() {
            self.pose.translation.vector - origin.coords
        } else {
            self.pose.rotation * c.coords + (self.pose.translation.vector - origin.coords)
        }
    }
    /// The shape's core in its own frame, rotated, then moved by `t − origin`.
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        self.shape.core_primitive_placed(self.pose.rotation.matrix(), &(self.pose.translation.vector - origin.coords))
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
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if an entry of `linear` or `offset` is NaN
    ///   or infinite;
    /// - [`ShapeError::BadAspect`] if `linear` is singular or nearly so:
    ///   `|det B| ≤ 16·ε·‖B‖_F³` (`ε` the machine epsilon of `R`), which
    ///   squashes the body too flat for the precision.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::{Matrix3, Vector3};
    /// // A unit ball stretched 3× along x: an ellipsoid with semi-axes (3, 1, 1).
    /// let stretch = Matrix3::from_diagonal(&Vector3::new(3.0_f64, 1.0, 1.0));
    /// let e = Affine::new(Sphere::new(1.0).unwrap(), stretch, Vector3::new(0.0, 0.0, 1.0)).unwrap();
    /// assert!((e.support(&Vector3::x()) - nalgebra::Point3::new(3.0, 0.0, 1.0)).norm() < 1e-12);
    /// let flat = Matrix3::from_diagonal(&Vector3::new(1.0_f64, 1.0, 0.0));
    /// assert_eq!(Affine::new(Sphere::new(1.0).unwrap(), flat, Vector3::zeros()), Err(ShapeError::BadAspect));
    /// ```
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
    fn climbs(&self) -> bool {
        self.shape.climbs()
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        let p = self.shape.support_hinted(&(self.linear_t * dir), hint);
        Pt3::from(self.linear * p.coords + self.offset)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::from(self.linear * self.shape.center().coords + self.offset)
    }
    /// `B·s(Bᵀv) + (c − origin)`: the offset is taken first.
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        let p = self.shape.support_hinted(&(self.linear_t * dir), hint);
        self.linear * p.coords + (self.offset - origin.coords)
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        self.linear * self.shape.center().coords + (self.offset - origin.coords)
    }
    /// An affine image of a curved body is curved (and the map has no
    /// margin to strip: its image of a sphere-swept body is curved whole).
    #[inline]
    fn curved(&self) -> bool {
        self.shape.curved()
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
    fn attitude(&self) -> Attitude<R> {
        Attitude::of_parts(&self.a.attitude(), &self.b.attitude())
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        self.a.support(dir) + self.b.support(dir).coords
    }
    #[inline]
    fn climbs(&self) -> bool {
        // Only A gets the hint.
        self.a.climbs()
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
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
    /// A sum is curved where either term is.
    #[inline]
    fn curved(&self) -> bool {
        self.a.curved() || self.b.curved()
    }
    #[inline]
    fn core_curved(&self) -> bool {
        self.a.core_curved() || self.b.core_curved()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        self.a.support_core(dir, hint) + self.b.support_core(dir, &mut SupportWarmStart::default()).coords
    }
    /// The placement is A's; B is a summand around its own origin.
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.a.support_from(dir, hint, origin) + self.b.support(dir).coords
    }
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        self.a.support_core_from(dir, hint, origin) + self.b.support_core(dir, &mut SupportWarmStart::default()).coords
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        self.a.center_from(origin) + self.b.center().coords
    }
    /// A's core moved by B's when B's core is a point ([`Rounded`] shapes).
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        match self.b.core_primitive_from(&Pt3::origin())? {
            CorePrimitive::Point(p) => Some(self.a.core_primitive_from(origin)?.translated(&p)),
            _ => None,
        }
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
    fn attitude(&self) -> Attitude<R> {
        Attitude::of_parts(&self.a.attitude(), &self.b.attitude())
    }
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
    fn climbs(&self) -> bool {
        // Only A gets the hint.
        self.a.climbs()
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
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
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        let pa = self.a.support_from(dir, hint, origin);
        let pb = self.b.support_from(dir, &mut SupportWarmStart::default(), origin);
        if dir.dot(&pb) > dir.dot(&pa) {
            pb
        } else {
            pa
        }
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        (self.a.center_from(origin) + self.b.center_from(origin)) * R::lit(0.5)
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

/// A body seen from `origin`: every point is `x − origin`, computed by the
/// body's [`support_from`](SupportMap::support_from) family so that the
/// rounding follows the size of the body and its distance from `origin`,
/// not the size of the world coordinates.
///
/// The queries of [`support`](crate::support) run on both bodies seen from
/// body A's centre: an answer then depends on the relative placement only
/// (boxes 5 mm apart are 5 mm apart at 10 km from the world origin in f32),
/// and the witness points are moved back to the world frame at the end.
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::shape::Relative;
/// use nalgebra::{Point3, Translation3, Vector3};
/// let far = Placed::new(Sphere::new(0.5_f32).unwrap(),
///     Pose::from_parts(Translation3::new(10_000.0, 0.0, 0.0), Default::default()));
/// let seen = Relative::new(&far, Point3::new(10_000.0, 0.0, 0.0));
/// assert_eq!(seen.support(&Vector3::x()), Point3::new(0.5, 0.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Relative<'s, S: ?Sized, R: Real> {
    body: &'s S,
    origin: Pt3<R>,
}

#[cfg(feature = "defmt")]
impl<S: ?Sized, R: Real> defmt::Format for Relative<'_, S, R> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Relative")
    }
}

impl<'s, S: ?Sized, R: Real> Relative<'s, S, R> {
    /// `body` seen from `origin` (a world point).
    pub fn new(body: &'s S, origin: Pt3<R>) -> Self {
        Self { body, origin }
    }
    /// The world point the body is seen from.
    pub fn origin(&self) -> &Pt3<R> {
        &self.origin
    }
}

impl<R: Real, S: SupportMap<R> + ?Sized> SupportMap<R> for Relative<'_, S, R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        self.body.attitude()
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        Pt3::from(self.body.support_from(dir, &mut SupportWarmStart::default(), &self.origin))
    }
    #[inline]
    fn climbs(&self) -> bool {
        self.body.climbs()
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        Pt3::from(self.body.support_from(dir, hint, &self.origin))
    }
    #[inline]
    fn center(&self) -> Pt3<R> {
        Pt3::from(self.body.center_from(&self.origin))
    }
    #[inline]
    fn margin(&self) -> R {
        self.body.margin()
    }
    #[inline]
    fn curved(&self) -> bool {
        self.body.curved()
    }
    #[inline]
    fn core_curved(&self) -> bool {
        self.body.core_curved()
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        Pt3::from(self.body.support_core_from(dir, hint, &self.origin))
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        let core = self.body.core_primitive_from(&self.origin)?;
        // Seen from this frame's own origin (the queries' case): no move.
        if origin.coords == Vec3::zeros() {
            Some(core)
        } else {
            Some(core.translated(&-origin.coords))
        }
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

    /// [`is_finite`](Self::is_finite) for a point the CSO's support built,
    /// where `w = a − b` was computed from the two body points: a
    /// difference is finite only when both operands are (IEEE 754), so
    /// checking `w` checks `a` and `b` too, at half the tests, and catches
    /// a difference that overflowed.
    #[inline(always)]
    pub(crate) fn support_is_finite(&self) -> bool {
        crate::math::finite_vec(&self.w)
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
    pub hint_a: SupportWarmStart,
    /// Hill-climbing hint for B.
    pub hint_b: SupportWarmStart,
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
        Self { a, b, hint_a: SupportWarmStart::COLD, hint_b: SupportWarmStart::COLD }
    }
}

/// Cosine² of the turn of a search direction beyond which
/// [`Cso::forget_stale_hints`] forgets the hints (measured on a 7-axis arm's
/// link hulls: 45° left 2–4 % more instructions than 26°; coal uses the
/// same 0.9 cosine).
const STALE_HINT_COS2: f64 = 0.81;

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
    /// The CSO point of A's support point along `da` and B's along `db`
    /// (a point of the CSO, a support point of it only where `db = −da`).
    #[inline]
    pub fn point_along<R: Real>(&mut self, da: &Vec3<R>, db: &Vec3<R>) -> CsoPoint<R>
    where
        A: SupportMap<R>,
        B: SupportMap<R>,
    {
        let a = self.a.support_hinted(da, &mut self.hint_a);
        let b = self.b.support_hinted(db, &mut self.hint_b);
        CsoPoint { w: a - b, a, b }
    }
    /// Forgets both hill-climbing hints ([`SupportWarmStart::COLD`]) when
    /// the search direction `dir` turned more than about 26° from `last`
    /// (cosine below 0.9), or either is zero or NaN: a polytope's stored
    /// vertex for the new direction's sector is then nearer the answer than
    /// the vertex that answered `last` (see [`SupportMap::climbs`]).
    #[inline]
    pub fn forget_stale_hints<R: Real>(&mut self, dir: &Vec3<R>, last: &Vec3<R>) {
        let k = dir.dot(last);
        if !(k > R::ZERO && k * k >= R::lit(STALE_HINT_COS2) * dir.dot(dir) * last.dot(last)) {
            self.hint_a = SupportWarmStart::COLD;
            self.hint_b = SupportWarmStart::COLD;
        }
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
