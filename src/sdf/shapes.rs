//! The signed distance functions of the primitives, and placement.
//!
//! | shape | dimension | accuracy |
//! |---|---|---|
//! | [`Sphere`] (ball, disc) | any | exact |
//! | [`BoxN`], [`Cuboid`] | any, 3 | exact |
//! | [`Rounded`](crate::shape::Rounded) (`S ⊕ ball(r)`) | 3 | as `S` (exact when `S` is; see [`SdfAccuracy`]) |
//! | [`Capsule`] (stadium in 2D) | any | exact |
//! | [`Cylinder`] | 3 | exact |
//! | [`CappedCone`], [`Cone`] | 3 | exact |
//! | [`Halfspace`] | any | exact |
//! | [`Ellipsoid`] | 3 | lower bound, right sign (tangent plane at the radial point, Eq. 21) |
//! | [`Polytope`](crate::shape::Polytope) | 3 | lower bound, right sign (Algorithm 4) |
//! | [`Transformed`] (rotation, translation, uniform scale) | any | as the shape |
//! | [`Placed`] (3D pose) | 3 | as the shape |

use super::{Aabb, Ball, Sdf, SdfAccuracy, SdfSample, SdfWarmStart};
use crate::error::ShapeError;
use crate::math::{finite_vec, is_nan, max, norm, normalize, Real, Vec3};
use crate::shape::{
    check_sizes, Bounded, Capsule, Cone, Cuboid, Cylinder, Ellipsoid, MinkowskiSum, Placed, Sphere, Superellipse,
    Superquadric,
};
use nalgebra::{SMatrix, SVector, Vector2};

#[inline(always)]
fn sample<R: Real, const D: usize>(value: R, gradient: SVector<R, D>) -> SdfSample<R, D> {
    SdfSample { value, gradient }
}

/// `x/|x|`, or zero at the origin (a valid subgradient of `|x|` there). A
/// NaN length stays NaN (so the SDF value does: a NaN point must never look
/// like the centre).
#[inline(always)]
fn unit_or_zero<R: Real, const D: usize>(x: &SVector<R, D>) -> (R, SVector<R, D>) {
    let n = norm(x);
    if n > R::ZERO {
        (n, x / n)
    } else {
        (n, SVector::zeros())
    }
}

// ---------------------------------------------------------------------------
// Ball

impl<R: Real, const D: usize> Sdf<R, D> for Sphere<R> {
    /// `|x| − r`; the subgradient 0 at the centre.
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        let (n, g) = unit_or_zero(x);
        sample(n - self.radius(), g)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        Ball { center: SVector::zeros(), radius: self.radius() }
    }
}

// ---------------------------------------------------------------------------
// Box

/// An axis-aligned box `|xᵢ| ≤ bᵢ` in `D` dimensions (a rectangle in 2D;
/// [`Cuboid`] is the 3D shape of the support family and has the same SDF).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{BoxN, Sdf};
/// use nalgebra::Vector2;
/// let rect = BoxN::new(Vector2::new(2.0_f32, 1.0)).unwrap();
/// assert_eq!(rect.eval(&Vector2::new(5.0, 5.0)).value, 5.0); // corner (2,1): (3,4)
/// assert_eq!(rect.eval(&Vector2::new(0.5, 0.0)).value, -1.0); // nearest: y faces
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxN<R: Real, const D: usize> {
    half_extents: SVector<R, D>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for BoxN<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "BoxN {{ half_extents: {} }}", self.half_extents.as_slice())
    }
}

impl<R: Real, const D: usize> BoxN<R, D> {
    /// A box with the given half-extents (finite, positive).
    ///
    /// # Errors
    ///
    /// The half-extents are checked in order and the first that fails decides:
    /// - [`ShapeError::NonFinite`] if a half-extent is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](crate::shape::min_extent)`..=`[`max_extent`](crate::shape::max_extent) of `R`, or,
    ///   all of them valid, the largest is more than
    ///   [`MAX_ASPECT`](crate::shape::MAX_ASPECT)` / ε` times the smallest.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::BoxN;
    /// use narrowphase::error::ShapeError;
    /// use nalgebra::Vector2;
    /// assert_eq!(BoxN::new(Vector2::new(2.0_f64, 1.0)).unwrap().half_extents(), Vector2::new(2.0, 1.0));
    /// assert_eq!(BoxN::new(Vector2::new(2.0_f64, 0.0)), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(half_extents: SVector<R, D>) -> Result<Self, ShapeError> {
        check_sizes(half_extents.as_slice())?;
        Ok(Self { half_extents })
    }
    /// The half-extents.
    pub fn half_extents(&self) -> SVector<R, D> {
        self.half_extents
    }
}

/// Exact SDF of the box `|xᵢ| ≤ bᵢ`: outside the length of the excess
/// `max(|x| − b, 0)`, inside the largest `|xᵢ| − bᵢ` (the nearest face), whose
/// normal is the subgradient (ties: the first axis).
#[inline]
fn box_sdf<R: Real, const D: usize>(b: &SVector<R, D>, x: &SVector<R, D>) -> SdfSample<R, D> {
    let mut outside = SVector::<R, D>::zeros();
    let mut inside = -R::INFINITY;
    let mut axis = 0;
    for i in 0..D {
        let q = x[i].abs_() - b[i];
        // A NaN coordinate fails both comparisons below and would be skipped
        // (a NaN point must not answer -b, "inside"): NaN in, NaN out.
        if is_nan(q) {
            return sample(q, SVector::zeros());
        }
        if q > R::ZERO {
            outside[i] = if x[i] < R::ZERO { -q } else { q };
        }
        if q > inside {
            inside = q;
            axis = i;
        }
    }
    if inside > R::ZERO {
        let (n, g) = unit_or_zero(&outside);
        return sample(n, g);
    }
    let mut g = SVector::zeros();
    if axis < D {
        g[axis] = if x[axis] < R::ZERO { -R::ONE } else { R::ONE };
    }
    sample(inside, g)
}

impl<R: Real, const D: usize> Sdf<R, D> for BoxN<R, D> {
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        box_sdf(&self.half_extents, x)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        Ball { center: SVector::zeros(), radius: norm(&self.half_extents) }
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        Aabb { min: -self.half_extents, max: self.half_extents }
    }
}

impl<R: Real> Sdf<R, 3> for Cuboid<R> {
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        box_sdf(&self.half_extents(), x)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        Ball { center: Vec3::zeros(), radius: norm(&self.half_extents()) }
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        Aabb { min: -self.half_extents(), max: self.half_extents() }
    }
}

// ---------------------------------------------------------------------------
// Rounded bodies

impl<R: Real, S: Sdf<R, 3>> Sdf<R, 3> for MinkowskiSum<S, Sphere<R>> {
    /// `φ_S − r`: exact for an exact convex `S` (the rounded body's support
    /// function is `h_S + r`, so its depth and its distance both move by `r`).
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        self.eval_hinted(x, &mut SdfWarmStart(0))
    }
    #[inline]
    fn eval_hinted(&self, x: &Vec3<R>, hint: &mut SdfWarmStart) -> SdfSample<R, 3> {
        let s = self.a.eval_hinted(x, hint);
        sample(s.value - self.b.radius(), s.gradient)
    }
    /// Exact when `S` is; otherwise only a lower bound whose sign may be
    /// wrong within the bound's error of the surface
    /// ([`SdfAccuracy::LooseLowerBound`]).
    fn accuracy(&self) -> SdfAccuracy {
        match self.a.accuracy() {
            SdfAccuracy::Exact => SdfAccuracy::Exact,
            _ => SdfAccuracy::LooseLowerBound,
        }
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        let b = self.a.bounding_ball();
        Ball { center: b.center, radius: b.radius + self.b.radius() }
    }
}

// ---------------------------------------------------------------------------
// Capsule

impl<R: Real, const D: usize> Sdf<R, D> for Capsule<R> {
    /// Distance to the core segment along the last axis, minus the radius
    /// (a stadium in 2D); the subgradient 0 on the segment.
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        let mut d = *x;
        if D > 0 {
            let h = self.half_length();
            let z = x[D - 1];
            d[D - 1] = z - if z > h {
                h
            } else if z < -h {
                -h
            } else {
                z
            };
        }
        let (n, g) = unit_or_zero(&d);
        sample(n - self.radius(), g)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        Ball { center: SVector::zeros(), radius: self.half_length() + self.radius() }
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        let mut half = SVector::repeat(self.radius());
        if D > 0 {
            half[D - 1] = self.half_length() + self.radius();
        }
        Aabb { min: -half, max: half }
    }
}

// ---------------------------------------------------------------------------
// Solids of revolution about z: 2D SDFs in (ρ, z), ρ = |(x, y)|

/// Lifts a 2D sample in `(ρ, z)` back to 3D: `g = gρ·(x, y)/ρ + gz·e_z`.
/// On the axis the radial part is dropped (a valid subgradient: the radial
/// subgradients there form a disc around 0).
#[inline(always)]
fn lift<R: Real>(x: &Vec3<R>, rho: R, s: SdfSample<R, 2>) -> SdfSample<R, 3> {
    let (gx, gy) =
        if rho > R::ZERO { (s.gradient.x * x.x / rho, s.gradient.x * x.y / rho) } else { (R::ZERO, R::ZERO) };
    sample(s.value, Vec3::new(gx, gy, s.gradient.y))
}

impl<R: Real> Sdf<R, 3> for Cylinder<R> {
    /// The 2D box SDF in `(ρ, z)` with half-extents `(r, h)`.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        let rho = norm(&Vector2::new(x.x, x.y));
        let s = box_sdf(&Vector2::new(self.radius(), self.half_height()), &Vector2::new(rho, x.z));
        lift(x, rho, s)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        Ball { center: Vec3::zeros(), radius: norm(&Vector2::new(self.radius(), self.half_height())) }
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        let half = Vec3::new(self.radius(), self.radius(), self.half_height());
        Aabb { min: -half, max: half }
    }
}

/// A capped cone (frustum) along z: radius `r_bottom` at `z = −h`, `r_top` at
/// `z = h` (one of them may be 0: a cone). [`Cone`] is the case `r_top = 0`.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{CappedCone, Sdf};
/// use nalgebra::Vector3;
/// let c = CappedCone::new(1.0_f64, 1.0, 0.5).unwrap();
/// assert!((c.eval(&Vector3::new(0.0, 0.0, 3.0)).value - 2.0).abs() < 1e-12); // above the top disc
/// // The centre is nearest to the slanted side through (1, −1) and (0.5, 1) in (ρ, z).
/// assert!((c.eval(&Vector3::zeros()).value + 1.5 / 4.25_f64.sqrt()).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CappedCone<R: Real> {
    half_height: R,
    r_bottom: R,
    r_top: R,
    /// Unit outward normal of the slanted side in `(ρ, z)`.
    side_normal: Vector2<R>,
}

impl<R: Real> CappedCone<R> {
    /// Half-height `h > 0` and the two end radii (finite, non-negative, at
    /// least one positive).
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if a radius or the half-height is NaN or
    ///   infinite;
    /// - [`ShapeError::NonPositiveSize`] if a radius is negative, both are
    ///   zero, or the half-height is zero or negative;
    /// - [`ShapeError::BadAspect`] if the half-height or the larger radius
    ///   lies outside [`min_extent`](crate::shape::min_extent)`..=`[`max_extent`](crate::shape::max_extent)
    ///   of `R`, or one of the two is more than
    ///   [`MAX_ASPECT`](crate::shape::MAX_ASPECT)` / ε` times the other.
    ///
    /// The radii's finiteness and signs are checked first, then the
    /// half-height, then the larger radius.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::CappedCone;
    /// use narrowphase::error::ShapeError;
    /// let cone = CappedCone::new(1.0_f32, 1.0, 0.0).unwrap(); // a sharp apex is fine
    /// assert_eq!(cone.radii(), (1.0, 0.0));
    /// assert_eq!(CappedCone::new(1.0_f32, 0.0, 0.0), Err(ShapeError::NonPositiveSize));
    /// assert_eq!(CappedCone::new(1.0_f32, -1.0, 0.5), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(half_height: R, r_bottom: R, r_top: R) -> Result<Self, ShapeError> {
        if !(r_bottom.finite() && r_top.finite()) {
            return Err(ShapeError::NonFinite);
        }
        if r_bottom < R::ZERO || r_top < R::ZERO {
            return Err(ShapeError::NonPositiveSize);
        }
        check_sizes(&[half_height, max(r_bottom, r_top)])?;
        // Side edge (r_bottom, −h) → (r_top, h), counter-clockwise in (ρ, z):
        // outward normal (dz, −dρ) / length.
        let two_h = half_height + half_height;
        let side_normal = normalize(&Vector2::new(two_h, r_bottom - r_top)).ok_or(ShapeError::NonFinite)?;
        Ok(Self { half_height, r_bottom, r_top, side_normal })
    }
    /// Half-height.
    pub fn half_height(&self) -> R {
        self.half_height
    }
    /// Radius at `z = −h` and at `z = h`.
    pub fn radii(&self) -> (R, R) {
        (self.r_bottom, self.r_top)
    }
    /// The slanted side's outward unit normal in `(ρ, z)` (the GPU twin
    /// takes it as computed here, bit for bit).
    #[cfg(feature = "gpu")]
    pub(crate) fn side_normal(&self) -> Vector2<R> {
        self.side_normal
    }

    /// Exact 2D SDF of the trapezoid cross-section at `p = (ρ ≥ 0, z)`.
    fn eval_2d(&self, p: Vector2<R>) -> SdfSample<R, 2> {
        let h = self.half_height;
        // Edges (a → b) counter-clockwise, with their outward unit normals.
        let corners = [
            (Vector2::new(R::ZERO, -h), Vector2::new(self.r_bottom, -h), Vector2::new(R::ZERO, -R::ONE)),
            (Vector2::new(self.r_bottom, -h), Vector2::new(self.r_top, h), self.side_normal),
            (Vector2::new(self.r_top, h), Vector2::new(R::ZERO, h), Vector2::new(R::ZERO, R::ONE)),
        ];
        // Inside a convex polygon the SDF is the largest signed distance to
        // an edge line (only these three edges can be nearest for ρ ≥ 0).
        let mut best = -R::INFINITY;
        let mut best_normal = Vector2::zeros();
        let mut nearest = R::INFINITY;
        let mut nearest_vec = Vector2::zeros();
        for (a, b, n) in corners {
            let line = n.dot(&(p - a));
            // NaN in, NaN out (a NaN line fails every comparison below).
            if is_nan(line) {
                return sample(line, Vector2::zeros());
            }
            if line > best {
                best = line;
                best_normal = n;
            }
            let ab = b - a;
            let len2 = ab.dot(&ab);
            let t = if len2 > R::ZERO { (p - a).dot(&ab) / len2 } else { R::ZERO };
            let t = if t < R::ZERO {
                R::ZERO
            } else if t > R::ONE {
                R::ONE
            } else {
                t
            };
            let d = p - (a + ab * t);
            // Far away the squares overflow: such a candidate counts as MAX
            // (the first one wins; they differ by the body's size only).
            let d2 = d.dot(&d);
            let d2 = if d2.finite() { d2 } else { R::MAX };
            if d2 < nearest {
                nearest = d2;
                nearest_vec = d;
            }
        }
        if best > R::ZERO {
            // Outside: distance to the nearest edge.
            let (n, g) = unit_or_zero(&nearest_vec);
            // On the surface up to rounding: the edge normal is the better subgradient.
            if n > R::ZERO {
                return sample(n, g);
            }
            return sample(R::ZERO, best_normal);
        }
        sample(best, best_normal)
    }
}

impl<R: Real> Sdf<R, 3> for CappedCone<R> {
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        let rho = norm(&Vector2::new(x.x, x.y));
        lift(x, rho, self.eval_2d(Vector2::new(rho, x.z)))
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        let r = max(self.r_bottom, self.r_top);
        Ball { center: Vec3::zeros(), radius: norm(&Vector2::new(r, self.half_height)) }
    }
}

impl<R: Real> Sdf<R, 3> for Cone<R> {
    /// Exact: the capped cone with a zero top radius.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        self.as_capped().eval(x)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        self.as_capped().bounding_ball()
    }
}

impl<R: Real> Cone<R> {
    /// The same cone as a [`CappedCone`] (`r_top = 0`).
    #[inline]
    pub fn as_capped(&self) -> CappedCone<R> {
        // The cone's own (cos α, sin α): no square root per evaluation.
        let (cos, sin) = self.side_normal();
        let side_normal = Vector2::new(cos, sin);
        CappedCone { half_height: self.half_height(), r_bottom: self.radius(), r_top: R::ZERO, side_normal }
    }
}

// ---------------------------------------------------------------------------
// Halfspace

/// The halfspace `n·x ≤ offset` (`|n| = 1`): a floor, a wall, a table top.
/// Unbounded: its [`bounding_ball`](Sdf::bounding_ball) has an infinite
/// radius, which the ellipsoid method handles (the other body's ball bounds
/// the search).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{Halfspace, Sdf};
/// use nalgebra::Vector3;
/// let floor = Halfspace::new(Vector3::z(), 0.0_f32).unwrap();
/// assert_eq!(floor.eval(&Vector3::new(4.0, 5.0, 0.25)).value, 0.25);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halfspace<R: Real, const D: usize> {
    normal: SVector<R, D>,
    offset: R,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for Halfspace<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Halfspace {{ normal: {}, offset: {} }}", self.normal.as_slice(), self.offset)
    }
}

impl<R: Real, const D: usize> Halfspace<R, D> {
    /// `normal · x ≤ offset`; `normal` need not be unit length, it is
    /// normalised (the offset is not rescaled: it is the distance from the
    /// origin along the unit normal).
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if `offset` or a component of `normal` is
    ///   NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if `normal` is zero (no direction).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::{Halfspace, Sdf};
    /// use narrowphase::error::ShapeError;
    /// use nalgebra::Vector2;
    /// let wall = Halfspace::new(Vector2::new(3.0_f64, 4.0), 1.0).unwrap();
    /// assert_eq!(wall.normal(), Vector2::new(0.6, 0.8));
    /// assert!((wall.eval(&Vector2::new(3.0, 4.0)).value - 4.0).abs() < 1e-12); // 5 − 1
    /// assert_eq!(Halfspace::new(Vector2::zeros(), 1.0_f64), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(normal: SVector<R, D>, offset: R) -> Result<Self, ShapeError> {
        if !(offset.finite() && normal.iter().all(|c| c.finite())) {
            return Err(ShapeError::NonFinite);
        }
        let normal = normalize(&normal).ok_or(ShapeError::NonPositiveSize)?;
        Ok(Self { normal, offset })
    }
    /// Unit outward normal.
    pub fn normal(&self) -> SVector<R, D> {
        self.normal
    }
    /// Offset along the normal.
    pub fn offset(&self) -> R {
        self.offset
    }
}

impl<R: Real, const D: usize> Sdf<R, D> for Halfspace<R, D> {
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        sample(self.normal.dot(x) - self.offset, self.normal)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        Ball { center: self.normal * self.offset, radius: R::INFINITY }
    }
}

// ---------------------------------------------------------------------------
// Ellipsoid (lower bound)

impl<R: Real> Sdf<R, 3> for Ellipsoid<R> {
    /// The paper's Eq. 21 with one halfspace: the tangent plane at the point
    /// `y = x/k₀` where the ray from the centre through `x` meets the surface
    /// (`k₀ = |x/a|`, `k₁ = |x/a²|`): `φ̂ = n·(x − y) = k₀(k₀ − 1)/k₁`.
    /// A supporting halfspace contains the body, so `φ̂ ≤ φ` everywhere, with
    /// equality on the surface and the same sign; the plane's normal
    /// `n = (x/a²)/k₁` is the gradient returned. At the centre: `−min(a)`.
    ///
    /// Far from the body `|x/a|` and `|x/a²|` overflow: both are computed on
    /// `x/s` with `s = max |xᵢ|` (when above 1) and the value rebuilt as
    /// `k₀′(s·k₀′ − 1)/k₁′`, finite wherever `s·k₀′` is.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        let a = self.semi_axes();
        let scale = max(crate::math::max_abs(x), R::ONE);
        let u = (x / scale).component_div(&a);
        let w = u.component_div(&a);
        let k0 = norm(&u);
        let k1 = norm(&w);
        if !(k1 > R::ZERO) {
            // The centre (or NaN in, NaN out: `k1 + …` keeps the NaN).
            return sample(-a.min() + k1, Vec3::zeros());
        }
        sample(k0 * (scale * k0 - R::ONE) / k1, w / k1)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::LowerBound
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        Ball { center: Vec3::zeros(), radius: self.semi_axes().max() }
    }
}

// ---------------------------------------------------------------------------
// Placement

impl<R: Real, S: Sdf<R, 3>> Sdf<R, 3> for Placed<S, R> {
    /// `φ(x) = φ_S(Rᵀ(x − t))`, gradient rotated back.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        self.eval_hinted(x, &mut SdfWarmStart(0))
    }
    #[inline]
    fn eval_hinted(&self, x: &Vec3<R>, hint: &mut SdfWarmStart) -> SdfSample<R, 3> {
        let local = self.pose().rotation.inverse_transform_vector(&(x - self.pose().translation.vector));
        let s = self.shape.eval_hinted(&local, hint);
        sample(s.value, self.pose().rotation * s.gradient)
    }
    fn accuracy(&self) -> SdfAccuracy {
        self.shape.accuracy()
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        let b = self.shape.bounding_ball();
        Ball { center: self.pose().rotation * b.center + self.pose().translation.vector, radius: b.radius }
    }
    /// The local box under the pose, boxed again (`|Q|·half` around the
    /// moved centre), or the ball's box when that is smaller on an axis.
    fn bounding_box(&self) -> Aabb<R, 3> {
        let q = *self.pose().rotation.matrix();
        let local = self.shape.bounding_box();
        let boxed = rotated_box(&q, R::ONE, &self.pose().translation.vector, &local);
        tighter(boxed, Aabb::around(&self.bounding_ball().center, self.bounding_ball().radius))
    }
}

/// The box of `{s·Q·x + t : x ∈ b}` (infinite bounds stay infinite).
fn rotated_box<R: Real, const D: usize>(
    q: &SMatrix<R, D, D>,
    scale: R,
    t: &SVector<R, D>,
    b: &Aabb<R, D>,
) -> Aabb<R, D> {
    if !b.is_finite() {
        let inf = SVector::repeat(R::INFINITY);
        return Aabb { min: -inf, max: inf };
    }
    let c = b.center();
    let half = b.max * R::HALF - b.min * R::HALF;
    let c2 = q * c * scale + t;
    let mut h2 = SVector::<R, D>::zeros();
    for i in 0..D {
        for j in 0..D {
            let w = q[(i, j)].abs_();
            if w > R::ZERO {
                h2[i] += w * half[j] * scale;
            }
        }
    }
    Aabb { min: c2 - h2, max: c2 + h2 }
}

/// The axis-wise tighter of two boxes that both contain a body (`max`/`min`
/// keep the second argument's bound when the first is NaN).
fn tighter<R: Real, const D: usize>(a: Aabb<R, D>, b: Aabb<R, D>) -> Aabb<R, D> {
    let mut out = a;
    for i in 0..D {
        out.min[i] = max(b.min[i], a.min[i]);
        out.max[i] = crate::math::min(b.max[i], a.max[i]);
    }
    out
}

/// A shape under `x ↦ s·Q·x + t` in `D` dimensions: rotation `Q`
/// (orthonormal), uniform scale `s > 0`, translation `t`.
/// `φ(x) = s·φ_S(Qᵀ(x − t)/s)` — exact for an exact `φ_S`, since a
/// similarity scales every distance by `s`.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{Sdf, Transformed};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix2, Vector2};
/// let disc = Transformed::new(Sphere::new(1.0_f64).unwrap(), Matrix2::identity(), 3.0, Vector2::new(10.0, 0.0)).unwrap();
/// assert!((disc.eval(&Vector2::new(14.0, 0.0)).value - 1.0).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transformed<S, R: Real, const D: usize> {
    /// The shape in its local frame.
    pub shape: S,
    rotation: SMatrix<R, D, D>,
    scale: R,
    translation: SVector<R, D>,
}

#[cfg(feature = "defmt")]
impl<S: defmt::Format, R: Real + defmt::Format, const D: usize> defmt::Format for Transformed<S, R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "Transformed {{ shape: {}, scale: {}, translation: {} }}",
            self.shape,
            self.scale,
            self.translation.as_slice()
        )
    }
}

impl<S, R: Real, const D: usize> Transformed<S, R, D> {
    /// `shape` under `x ↦ scale·rotation·x + translation`, after checking
    /// the three: `rotation` orthonormal within `1e3·ε` (a reflection is
    /// accepted too, distances do not change), `scale` finite, positive and a
    /// size the shapes accept, `translation` finite.
    ///
    /// The scale's limits keep the local point `Qᵀ(x − t)/s` finite wherever
    /// `|x − t| ≤ MAX·min_extent` (≈3.7e22 in f32, 2.7e157 in f64), so for
    /// every `x` and `t` within `max_extent`. Without them the division
    /// overflows: with a scale of 4e-317, `(x − t)/s` is infinite at every
    /// point farther than `s·MAX ≈ 7e-9` from `t`, and a halfspace would
    /// answer `n·(∞, −∞, ∞) = NaN` at finite points.
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if an entry of `rotation` or
    ///   `translation`, or `scale`, is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if `scale` is zero or negative;
    /// - [`ShapeError::BadAspect`] if `scale` lies outside
    ///   [`min_extent`](crate::shape::min_extent)`..=`[`max_extent`](crate::shape::max_extent)
    ///   of `R`;
    /// - [`ShapeError::NotARotation`] if an entry of `QᵀQ − I` is `1e3·ε` or
    ///   more in magnitude (`ε` the machine epsilon of `R`: a scaled or
    ///   sheared `rotation`; the scale belongs in `scale`).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::{Sdf, Transformed};
    /// use narrowphase::shape::Sphere;
    /// use narrowphase::error::ShapeError;
    /// use nalgebra::{Matrix2, Vector2};
    /// let unit = || Sphere::new(1.0_f64).unwrap();
    /// let quarter = Matrix2::new(0.0, -1.0, 1.0, 0.0); // 90° turn
    /// assert!(Transformed::new(unit(), quarter, 2.0, Vector2::new(1.0, 0.0)).is_ok());
    /// let skew = Matrix2::new(1.0, 0.1, 0.0, 1.0);
    /// assert_eq!(Transformed::new(unit(), skew, 1.0, Vector2::zeros()).err(), Some(ShapeError::NotARotation));
    /// assert_eq!(Transformed::new(unit(), quarter, 0.0, Vector2::zeros()).err(), Some(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(shape: S, rotation: SMatrix<R, D, D>, scale: R, translation: SVector<R, D>) -> Result<Self, ShapeError> {
        if !(rotation.iter().all(|c| c.finite()) && translation.iter().all(|c| c.finite()) && scale.finite()) {
            return Err(ShapeError::NonFinite);
        }
        if !(scale > R::ZERO) {
            return Err(ShapeError::NonPositiveSize);
        }
        if scale > crate::shape::max_extent::<R>() || scale < crate::shape::min_extent::<R>() {
            return Err(ShapeError::BadAspect);
        }
        let err = (rotation.transpose() * rotation - SMatrix::<R, D, D>::identity()).abs().max();
        if !(err < R::EPSILON * R::lit(1.0e3)) {
            return Err(ShapeError::NotARotation);
        }
        Ok(Self { shape, rotation, scale, translation })
    }
    /// The rotation `Q`.
    pub fn rotation(&self) -> &SMatrix<R, D, D> {
        &self.rotation
    }
    /// The uniform scale `s`.
    pub fn scale(&self) -> R {
        self.scale
    }
    /// The translation `t`.
    pub fn translation(&self) -> &SVector<R, D> {
        &self.translation
    }
}

impl<R: Real, const D: usize, S: Sdf<R, D>> Sdf<R, D> for Transformed<S, R, D> {
    #[inline]
    fn eval(&self, x: &SVector<R, D>) -> SdfSample<R, D> {
        self.eval_hinted(x, &mut SdfWarmStart(0))
    }
    #[inline]
    fn eval_hinted(&self, x: &SVector<R, D>, hint: &mut SdfWarmStart) -> SdfSample<R, D> {
        let local = self.rotation.tr_mul(&(x - self.translation)) / self.scale;
        let s = self.shape.eval_hinted(&local, hint);
        sample(s.value * self.scale, self.rotation * s.gradient)
    }
    fn accuracy(&self) -> SdfAccuracy {
        self.shape.accuracy()
    }
    fn bounding_ball(&self) -> Ball<R, D> {
        let b = self.shape.bounding_ball();
        Ball { center: self.rotation * b.center * self.scale + self.translation, radius: b.radius * self.scale }
    }
    fn bounding_box(&self) -> Aabb<R, D> {
        let boxed = rotated_box(&self.rotation, self.scale, &self.translation, &self.shape.bounding_box());
        let ball = self.bounding_ball();
        tighter(boxed, Aabb::around(&ball.center, ball.radius))
    }
}

// The superquadric family: tangent-plane lower bounds at the radial
// boundary point (exact on the axes), the centre answered by the smallest
// semi-axis.

impl<R: Real> Sdf<R, 3> for Superquadric<R> {
    /// Tangent-plane lower bound at the radial surface point (module docs);
    /// at the centre `−min axis` with the gradient along that axis.
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        let g = self.gauge(x);
        // NaN in, NaN out (not the centre's value below).
        if is_nan(g) {
            return SdfSample { value: g, gradient: Vec3::zeros() };
        }
        let n = self.radial_normal(x);
        match n {
            Some(n) if g > R::ZERO => {
                let y = x / g;
                if finite_vec(&y) {
                    return SdfSample { value: n.dot(&(x - y)), gradient: n };
                }
                centre_sample3(&self.semi_axes())
            }
            _ => centre_sample3(&self.semi_axes()),
        }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::LowerBound
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        Ball { center: Vec3::zeros(), radius: Bounded::bounding_sphere(self).1 }
    }
}

fn centre_sample3<R: Real>(a: &Vec3<R>) -> SdfSample<R, 3> {
    let (mut k, mut m) = (0, a.x);
    if a.y < m {
        (k, m) = (1, a.y);
    }
    if a.z < m {
        (k, m) = (2, a.z);
    }
    let mut g = Vec3::zeros();
    if let Some(c) = g.get_mut(k) {
        *c = R::ONE;
    }
    SdfSample { value: -m, gradient: g }
}

impl<R: Real> Sdf<R, 2> for Superellipse<R> {
    /// Tangent-line lower bound at the radial boundary point.
    fn eval(&self, x: &Vector2<R>) -> SdfSample<R, 2> {
        let g = self.gauge(x);
        if is_nan(g) {
            return SdfSample { value: g, gradient: Vector2::zeros() };
        }
        if let Some(n) = self.radial_normal(x) {
            let y = x / g;
            if finite_vec(&y) {
                return SdfSample { value: n.dot(&(x - y)), gradient: n };
            }
        }
        let a = self.semi_axes();
        if a.x <= a.y {
            SdfSample { value: -a.x, gradient: Vector2::x() }
        } else {
            SdfSample { value: -a.y, gradient: Vector2::y() }
        }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::LowerBound
    }
    fn bounding_ball(&self) -> Ball<R, 2> {
        Ball { center: Vector2::zeros(), radius: self.bounding_radius() }
    }
}
