//! Superquadric (3D), superellipse and ellipse (2D): Ruan et al., *Efficient
//! exact collision detection between ellipsoids and superquadrics via
//! closed-form Minkowski sums* (ICRA 2019), Eq. 7–12.
//!
//! A superquadric with semi-axes `a = (a1, a2, a3)` and exponents `ε1, ε2`
//! is the set `Φ(x) ≤ 1` with (Eq. 11)
//!
//! ```text
//! Φ(x) = (|x/a1|^(2/ε2) + |y/a2|^(2/ε2))^(ε2/ε1) + |z/a3|^(2/ε1)
//! ```
//!
//! and the parametric surface (Eq. 10, signed powers `t^ε := sign(t)|t|^ε`)
//! `x(η, ω) = (a1 cos^ε1 η cos^ε2 ω, a2 cos^ε1 η sin^ε2 ω, a3 sin^ε1 η)`.
//! Its gradient in parametric form (Eq. 12, derived again here: the paper's
//! z component prints `sin^(2−ε2) η`, the derivative of Eq. 11 gives
//! `sin^(2−ε1) η`) is
//! `∇Φ(η, ω) = (2/ε1)·(cos^(2−ε1) η cos^(2−ε2) ω / a1, cos^(2−ε1) η sin^(2−ε2) ω / a2, sin^(2−ε1) η / a3)`.
//!
//! The body is convex for exponents in `(0, 2)`; the constructors accept
//! `[MIN_EXPONENT, 2 − MIN_EXPONENT]` and reject the rest with
//! [`ShapeError::BadExponent`].
//!
//! # Closed forms used by the kernel
//! `Φ^(ε1/2)` is a nested `ℓp` norm of `u = x / a` (`p1 = 2/ε1` outside,
//! `p2 = 2/ε2` inside), the *gauge* of the body. Its dual norm (conjugate
//! exponents `q = 2/(2−ε)`) gives the support function, and the support point
//! follows in closed form level by level (`ℓp` duality):
//! with `y = a ∘ d`, `s = ‖(y1, y2)‖_q2`, `H = ‖(s, y3)‖_q1`,
//! `u3 = (y3/H)^(q1−1)`, `uᵢ = (s/H)^(q1−1) (yᵢ/s)^(q2−1)` (signed powers),
//! and `x = a ∘ u`. Every power is taken of a ratio `≤ 1`, so nothing
//! overflows for exponents near 0 or 2.
//!
//! The SDF is the tangent-plane lower bound at the radial surface point
//! `y = x / gauge(x)`: `φ̂(x) = n·(x − y)` with `n` the unit outward normal at
//! `y`. The halfspace `n·z ≤ n·y` supports the convex body, so `φ̂ ≤ φ`
//! everywhere, with the sign of `φ` (ellipsoid-method paper, Eq. 21).

use super::{check_sizes, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{finite_vec, is_nan, max, min, normalize, Pt3, Real, Vec3};
use nalgebra::{ComplexField, Vector2};

/// Smallest exponent accepted (and `2 − MIN_EXPONENT` the largest): below it
/// the powers `|t|^(2/ε)` and `|t|^(ε/(2−ε))` leave the range where `f32`
/// resolves the shape.
pub const MIN_EXPONENT: f64 = 0.01;

/// `|x|^k` for `x ≥ 0` (libm `powf`/`pow` underneath).
#[inline(always)]
pub(crate) fn pow_abs<R: Real>(x: R, k: R) -> R {
    ComplexField::powf(x.abs_(), k)
}

/// The signed power `sign(t)·|t|^k` of the paper's Eq. 7 and 10, `0` at
/// `t = 0` (for `k > 0`). NaN stays NaN.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::signed_pow;
/// assert_eq!(signed_pow(-8.0_f64, 1.0 / 3.0), -2.0);
/// assert_eq!(signed_pow(0.0_f32, 0.5), 0.0);
/// ```
#[inline]
pub fn signed_pow<R: Real>(t: R, k: R) -> R {
    let a = t.abs_();
    if a == R::ZERO {
        return R::ZERO;
    }
    let m = ComplexField::powf(a, k);
    if t < R::ZERO {
        -m
    } else {
        m
    }
}

fn check_exponent<R: Real>(e: R) -> Result<(), ShapeError> {
    if !e.finite() {
        return Err(ShapeError::NonFinite);
    }
    let lo = R::lit(MIN_EXPONENT);
    if !(e >= lo) || !(e <= R::TWO - lo) {
        return Err(ShapeError::BadExponent);
    }
    Ok(())
}

/// `‖(x, y)‖_p` for `x, y ≥ 0`, scaled so that no power overflows.
#[inline]
pub(crate) fn lp2<R: Real>(x: R, y: R, p: R) -> R {
    let m = max(x, y);
    if !(m > R::ZERO) {
        // 0 at the origin; a NaN stays NaN (`max` keeps a NaN first operand).
        return if is_nan(m) { m } else { R::ZERO };
    }
    m * pow_abs(pow_abs(x / m, p) + pow_abs(y / m, p), R::ONE / p)
}

/// Support point of the unit `ℓp` ball in 2D for a direction `y` whose
/// dual norm `‖y‖_q = h` is given: `uᵢ = sign(yᵢ)(|yᵢ|/h)^(q−1)`.
#[inline]
fn lq_support_2<R: Real>(y1: R, y2: R, h: R, qm1: R) -> (R, R) {
    if !(h > R::ZERO) {
        return (R::ZERO, R::ZERO);
    }
    (signed_pow(y1 / h, qm1), signed_pow(y2 / h, qm1))
}

/// Factor `c` with `|u|₂ ≤ c·‖u‖_p` in 2D: `2^max(0, 1/2 − 1/p)`.
fn l2_over_lp<R: Real>(e: R) -> R {
    // 1/2 − 1/p = (1 − ε)/2.
    let k = max(R::ZERO, (R::ONE - e) * R::HALF);
    pow_abs(R::TWO, k)
}

/// A solid superquadric centred at the origin, axes along x, y, z.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Superquadric, SupportMap};
/// use nalgebra::Vector3;
/// // A rounded box: 2 x 1.5 x 1 half-sizes, exponents 0.3 and 0.5.
/// let s = Superquadric::new(Vector3::new(2.0_f64, 1.5, 1.0), 0.3, 0.5).unwrap();
/// assert!((s.support(&Vector3::x()).x - 2.0).abs() < 1e-12);
/// assert!(s.implicit(&Vector3::new(1.0, 0.5, 0.2)) < 1.0); // inside
/// assert!(Superquadric::new(Vector3::new(1.0_f64, 1.0, 1.0), 2.5, 1.0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Superquadric<R: Real> {
    semi_axes: Vec3<R>,
    e1: R,
    e2: R,
    /// 2/ε1, 2/ε2.
    p1: R,
    p2: R,
    /// q − 1 = ε/(2 − ε) for the dual norms, and q itself.
    q1: R,
    q2: R,
    radius: R,
    min_axis: R,
    inradius: R,
}

impl<R: Real> Superquadric<R> {
    /// Semi-axes along x, y, z (positive, finite) and the exponents `ε1`
    /// (north–south, z) and `ε2` (east–west, xy), each in
    /// `[MIN_EXPONENT, 2 − MIN_EXPONENT]`; `ε1 = ε2 = 1` is an ellipsoid.
    ///
    /// # Errors
    ///
    /// The semi-axes are checked first, then `ε1`, then `ε2`; the first
    /// failure decides:
    /// - [`ShapeError::NonFinite`] if a semi-axis is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](super::min_extent)`..=`[`max_extent`](super::max_extent) of `R`, or,
    ///   all semi-axes valid, the largest is more than [`MAX_ASPECT`](super::MAX_ASPECT)` / ε`
    ///   times the smallest (`ε` the machine epsilon of `R`): too thin to resolve.
    /// - [`ShapeError::NonFinite`] if an exponent is NaN or infinite;
    /// - [`ShapeError::BadExponent`] if it lies outside `[MIN_EXPONENT, 2 − MIN_EXPONENT]`.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Vector3;
    /// let box_like = Superquadric::new(Vector3::new(1.0_f64, 1.0, 1.0), 0.1, 0.1).unwrap();
    /// assert_eq!(box_like.exponents(), (0.1, 0.1));
    /// // ε2 = 2 lies beyond 2 − MIN_EXPONENT: refused.
    /// assert_eq!(Superquadric::new(Vector3::new(1.0_f64, 1.0, 1.0), 1.0, 2.0), Err(ShapeError::BadExponent));
    /// ```
    pub fn new(semi_axes: Vec3<R>, e1: R, e2: R) -> Result<Self, ShapeError> {
        let max_axis = check_sizes(semi_axes.as_slice())?;
        check_exponent(e1)?;
        check_exponent(e2)?;
        let min_axis = min(min(semi_axes.x, semi_axes.y), semi_axes.z);
        let c = l2_over_lp(e1) * l2_over_lp(e2);
        let radius = min(max_axis * c, crate::math::norm(&semi_axes));
        // ‖u‖_p ≤ 2^max(0, 1/p − 1/2)|u|₂ and 1/p − 1/2 = (ε − 1)/2.
        let k1 = max(R::ZERO, (e1 - R::ONE) * R::HALF);
        let k2 = max(R::ZERO, (e2 - R::ONE) * R::HALF);
        let inradius = min_axis / (pow_abs(R::TWO, k1) * pow_abs(R::TWO, k2));
        Ok(Self {
            semi_axes,
            e1,
            e2,
            p1: R::TWO / e1,
            p2: R::TWO / e2,
            q1: R::TWO / (R::TWO - e1),
            q2: R::TWO / (R::TWO - e2),
            radius,
            min_axis,
            inradius,
        })
    }
    /// The semi-axes.
    pub fn semi_axes(&self) -> Vec3<R> {
        self.semi_axes
    }
    /// The exponents `(ε1, ε2)`.
    pub fn exponents(&self) -> (R, R) {
        (self.e1, self.e2)
    }
    /// The implicit function `Φ` of Eq. 11 (`< 1` inside, `1` on the surface).
    pub fn implicit(&self, x: &Vec3<R>) -> R {
        pow_abs(self.gauge(x), self.p1)
    }
    /// The gauge `Φ^(ε1/2)`: positively homogeneous of degree 1, `≤ 1` inside;
    /// `x / gauge(x)` is the surface point on the ray from the centre.
    pub fn gauge(&self, x: &Vec3<R>) -> R {
        let a = &self.semi_axes;
        let r12 = lp2((x.x / a.x).abs_(), (x.y / a.y).abs_(), self.p2);
        lp2(r12, (x.z / a.z).abs_(), self.p1)
    }
    /// The surface point `x(η, ω)` of Eq. 10.
    pub fn surface_point(&self, eta: R, omega: R) -> Vec3<R> {
        let ce = signed_pow(eta.cos(), self.e1);
        let a = &self.semi_axes;
        Vec3::new(
            a.x * ce * signed_pow(omega.cos(), self.e2),
            a.y * ce * signed_pow(omega.sin(), self.e2),
            a.z * signed_pow(eta.sin(), self.e1),
        )
    }
    /// The gradient `∇Φ(η, ω)` of Eq. 12 (outward, not normalised).
    pub fn surface_gradient(&self, eta: R, omega: R) -> Vec3<R> {
        let (k1, k2) = (R::TWO - self.e1, R::TWO - self.e2);
        let ce = signed_pow(eta.cos(), k1);
        let a = &self.semi_axes;
        let f = R::TWO / self.e1;
        Vec3::new(
            f * ce * signed_pow(omega.cos(), k2) / a.x,
            f * ce * signed_pow(omega.sin(), k2) / a.y,
            f * signed_pow(eta.sin(), k1) / a.z,
        )
    }
    /// The unit outward normal at the surface point on the ray from the
    /// centre through `x` (`None` at the centre or for non-finite `x`).
    pub fn radial_normal(&self, x: &Vec3<R>) -> Option<Vec3<R>> {
        let a = &self.semi_axes;
        let u = Vec3::new(x.x / a.x, x.y / a.y, x.z / a.z);
        let r12 = lp2(u.x.abs_(), u.y.abs_(), self.p2);
        let g = lp2(r12, u.z.abs_(), self.p1);
        if !(g > R::ZERO) || !g.finite() {
            return None;
        }
        let pm1 = self.p1 - R::ONE;
        let dz = signed_pow(u.z / g, pm1);
        let dr = pow_abs(r12 / g, pm1);
        let (dx, dy) = if r12 > R::ZERO {
            let qm = self.p2 - R::ONE;
            (dr * signed_pow(u.x / r12, qm), dr * signed_pow(u.y / r12, qm))
        } else {
            (R::ZERO, R::ZERO)
        };
        normalize(&Vec3::new(dx / a.x, dy / a.y, dz / a.z))
    }
    /// Smallest semi-axis.
    pub fn min_axis(&self) -> R {
        self.min_axis
    }
    /// A lower bound on the inradius (the largest ball about the centre
    /// inside the body): `min axis / (c(ε1)·c(ε2))`, where `c(ε)` bounds the
    /// ratio of the `ℓ_{2/ε}` norm to the Euclidean one.
    pub fn inradius_lower_bound(&self) -> R {
        self.inradius
    }
}

impl<R: Real> SupportMap<R> for Superquadric<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    /// Closed form by `ℓp` duality (see the module docs).
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        if !finite_vec(dir) {
            return Pt3::origin();
        }
        let a = &self.semi_axes;
        let y = a.component_mul(dir);
        let s = lp2(y.x.abs_(), y.y.abs_(), self.q2);
        let h = lp2(s, y.z.abs_(), self.q1);
        if !(h > R::ZERO) || !h.finite() {
            return Pt3::origin();
        }
        let (t, u3) = lq_support_2(s, y.z, h, self.q1 - R::ONE);
        let (u1, u2) = lq_support_2(y.x, y.y, s, self.q2 - R::ONE);
        Pt3::new(a.x * t * u1, a.y * t * u2, a.z * u3)
    }
    #[inline]
    fn curved(&self) -> bool {
        true
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
}

impl<R: Real> Bounded<R> for Superquadric<R> {
    /// Centre and `min(max axis · c(ε1) c(ε2), |a|)`: for exponents `≤ 1` the
    /// corners reach beyond the largest semi-axis.
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (Pt3::origin(), self.radius)
    }
}

/// A solid superellipse in the plane (Eq. 7–9): `|x/a1|^(2/ε) + |y/a2|^(2/ε) ≤ 1`.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::Superellipse;
/// use narrowphase::sdf::Sdf;
/// use nalgebra::Vector2;
/// let s = Superellipse::new(Vector2::new(2.0_f64, 1.0), 0.5).unwrap();
/// assert!((s.support(&Vector2::new(0.0, 1.0)).y - 1.0).abs() < 1e-12);
/// let d = Sdf::<f64, 2>::eval(&s, &Vector2::new(3.0, 0.0));
/// assert!((d.value - 1.0).abs() < 1e-12); // exact on the axes
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Superellipse<R: Real> {
    semi_axes: Vector2<R>,
    e: R,
    p: R,
    q: R,
    radius: R,
}

impl<R: Real> Superellipse<R> {
    /// Semi-axes along x and y (positive, finite) and the exponent `ε` in
    /// `[MIN_EXPONENT, 2 − MIN_EXPONENT]`; `ε = 1` is an ellipse.
    ///
    /// # Errors
    ///
    /// The semi-axes are checked first, then `ε`; the first failure decides:
    /// - [`ShapeError::NonFinite`] if a semi-axis is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](super::min_extent)`..=`[`max_extent`](super::max_extent) of `R`, or,
    ///   all semi-axes valid, the largest is more than [`MAX_ASPECT`](super::MAX_ASPECT)` / ε`
    ///   times the smallest (`ε` the machine epsilon of `R`): too thin to resolve.
    /// - [`ShapeError::NonFinite`] if `e` is NaN or infinite;
    /// - [`ShapeError::BadExponent`] if it lies outside `[MIN_EXPONENT, 2 − MIN_EXPONENT]`.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Vector2;
    /// assert_eq!(Superellipse::new(Vector2::new(2.0_f32, 1.0), 0.5).unwrap().exponent(), 0.5);
    /// assert_eq!(Superellipse::new(Vector2::new(2.0_f32, 1.0), 0.0), Err(ShapeError::BadExponent));
    /// assert_eq!(Superellipse::new(Vector2::new(2.0_f32, 1.0), f32::NAN), Err(ShapeError::NonFinite));
    /// ```
    pub fn new(semi_axes: Vector2<R>, e: R) -> Result<Self, ShapeError> {
        let max_axis = check_sizes(semi_axes.as_slice())?;
        check_exponent(e)?;
        let radius = min(max_axis * l2_over_lp(e), crate::math::norm(&semi_axes));
        Ok(Self { semi_axes, e, p: R::TWO / e, q: R::TWO / (R::TWO - e), radius })
    }
    /// The semi-axes.
    pub fn semi_axes(&self) -> Vector2<R> {
        self.semi_axes
    }
    /// The exponent `ε`.
    pub fn exponent(&self) -> R {
        self.e
    }
    /// The implicit function of Eq. 8 (`< 1` inside).
    pub fn implicit(&self, x: &Vector2<R>) -> R {
        pow_abs(self.gauge(x), self.p)
    }
    /// The gauge `Φ^(ε/2)` (homogeneous of degree 1, `≤ 1` inside).
    pub fn gauge(&self, x: &Vector2<R>) -> R {
        lp2((x.x / self.semi_axes.x).abs_(), (x.y / self.semi_axes.y).abs_(), self.p)
    }
    /// The surface point `x(θ)` of Eq. 7.
    pub fn surface_point(&self, theta: R) -> Vector2<R> {
        Vector2::new(
            self.semi_axes.x * signed_pow(theta.cos(), self.e),
            self.semi_axes.y * signed_pow(theta.sin(), self.e),
        )
    }
    /// The gradient `∇Φ(θ)` of Eq. 9 (outward, not normalised).
    pub fn surface_gradient(&self, theta: R) -> Vector2<R> {
        let k = R::TWO - self.e;
        let f = R::TWO / self.e;
        Vector2::new(
            f * signed_pow(theta.cos(), k) / self.semi_axes.x,
            f * signed_pow(theta.sin(), k) / self.semi_axes.y,
        )
    }
    /// Support point (closed form by `ℓp` duality); the centre for a zero
    /// or non-finite direction.
    pub fn support(&self, dir: &Vector2<R>) -> Vector2<R> {
        if !finite_vec(dir) {
            return Vector2::zeros();
        }
        let a = &self.semi_axes;
        let y = a.component_mul(dir);
        let h = lp2(y.x.abs_(), y.y.abs_(), self.q);
        let (u1, u2) = lq_support_2(y.x, y.y, h, self.q - R::ONE);
        Vector2::new(a.x * u1, a.y * u2)
    }
    /// Unit outward normal at the surface point on the ray through `x`.
    pub fn radial_normal(&self, x: &Vector2<R>) -> Option<Vector2<R>> {
        let a = &self.semi_axes;
        let u = Vector2::new(x.x / a.x, x.y / a.y);
        let g = lp2(u.x.abs_(), u.y.abs_(), self.p);
        if !(g > R::ZERO) || !g.finite() {
            return None;
        }
        let pm1 = self.p - R::ONE;
        normalize(&Vector2::new(signed_pow(u.x / g, pm1) / a.x, signed_pow(u.y / g, pm1) / a.y))
    }
    /// Radius of the smallest origin-centred disc that holds the body.
    pub(crate) fn bounding_radius(&self) -> R {
        self.radius
    }
    /// Lower bound on the inradius: `min axis / 2^max(0, (ε − 1)/2)`.
    pub fn inradius_lower_bound(&self) -> R {
        let k = max(R::ZERO, (self.e - R::ONE) * R::HALF);
        min(self.semi_axes.x, self.semi_axes.y) / pow_abs(R::TWO, k)
    }
}

/// A solid ellipse in the plane, semi-axes along x and y.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::Ellipse;
/// use nalgebra::Vector2;
/// let e = Ellipse::new(Vector2::new(3.0_f32, 1.0)).unwrap();
/// assert_eq!(e.support(&Vector2::new(1.0, 0.0)).x, 3.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ellipse<R: Real> {
    semi_axes: Vector2<R>,
}

impl<R: Real> Ellipse<R> {
    /// Semi-axes along x and y (positive, finite).
    ///
    /// # Errors
    ///
    /// The semi-axes are checked in order and the first that fails decides:
    /// - [`ShapeError::NonFinite`] if a semi-axis is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](super::min_extent)`..=`[`max_extent`](super::max_extent) of `R`, or,
    ///   all semi-axes valid, the largest is more than [`MAX_ASPECT`](super::MAX_ASPECT)` / ε`
    ///   times the smallest (`ε` the machine epsilon of `R`): too thin to resolve.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Vector2;
    /// assert_eq!(Ellipse::new(Vector2::new(3.0_f32, 1.0)).unwrap().semi_axes(), Vector2::new(3.0, 1.0));
    /// assert_eq!(Ellipse::new(Vector2::new(3.0_f32, 0.0)), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(semi_axes: Vector2<R>) -> Result<Self, ShapeError> {
        check_sizes(semi_axes.as_slice())?;
        Ok(Self { semi_axes })
    }
    /// The semi-axes.
    pub fn semi_axes(&self) -> Vector2<R> {
        self.semi_axes
    }
    /// Support point `A²d/|Ad|`; the centre for a zero or non-finite `d`.
    pub fn support(&self, dir: &Vector2<R>) -> Vector2<R> {
        let ad = self.semi_axes.component_mul(dir);
        let n = crate::math::norm(&ad);
        if n > R::ZERO && n.finite() {
            self.semi_axes.component_mul(&ad) / n
        } else {
            Vector2::zeros()
        }
    }
}
