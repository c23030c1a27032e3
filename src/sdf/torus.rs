//! The torus: the first non-convex primitive, for the general SDF–SDF
//! methods (interlocking rings have two contact regions).

use super::{Aabb, Ball, Sdf, SdfAccuracy, SdfSample};
use crate::error::ShapeError;
use crate::math::{norm, Real, Vec3};
use crate::shape::check_sizes;
use nalgebra::Vector2;

/// A torus about the z axis: the points within `minor` of the circle of
/// radius `major` in the xy-plane (`major > minor`: a ring with a hole).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::{Sdf, Torus};
/// use nalgebra::Vector3;
/// let ring = Torus::new(2.0_f64, 0.5).unwrap();
/// assert_eq!(ring.eval(&Vector3::new(2.0, 0.0, 0.0)).value, -0.5); // on the core circle
/// assert_eq!(ring.eval(&Vector3::zeros()).value, 1.5); // the hole's centre is outside
/// assert_eq!(ring.eval(&Vector3::new(0.0, 2.0, 1.5)).value, 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Torus<R: Real> {
    major: R,
    minor: R,
}

impl<R: Real> Torus<R> {
    /// A torus with core-circle radius `major` and tube radius `minor`
    /// (finite, positive, `minor < major`).
    ///
    /// # Errors
    ///
    /// `major` is checked first, then `minor`; the first failure decides:
    /// - [`ShapeError::NonFinite`] if a radius is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](crate::shape::min_extent)`..=`[`max_extent`](crate::shape::max_extent)
    ///   of `R`, if one radius is more than [`MAX_ASPECT`](crate::shape::MAX_ASPECT)` / ε`
    ///   times the other, or if `minor ≥ major`: a spindle torus has no hole
    ///   and its SDF is not this closed form.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// let ring = Torus::new(2.0_f32, 0.5).unwrap();
    /// assert_eq!((ring.major(), ring.minor()), (2.0, 0.5));
    /// assert_eq!(Torus::new(1.0_f32, 1.0), Err(ShapeError::BadAspect)); // no hole
    /// ```
    pub fn new(major: R, minor: R) -> Result<Self, ShapeError> {
        check_sizes(&[major, minor])?;
        if !(minor < major) {
            return Err(ShapeError::BadAspect);
        }
        Ok(Self { major, minor })
    }
    /// Radius of the core circle.
    pub fn major(&self) -> R {
        self.major
    }
    /// Radius of the tube.
    pub fn minor(&self) -> R {
        self.minor
    }
}

impl<R: Real> Sdf<R, 3> for Torus<R> {
    /// `|(ρ − R, z)| − r` with `ρ = |(x, y)|`: the distance to the core
    /// circle minus the tube radius. On the core circle the subgradient is 0;
    /// on the axis (every point of the circle is nearest) the radial part is
    /// dropped.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        let rho = norm(&Vector2::new(x.x, x.y));
        let q = Vector2::new(rho - self.major, x.z);
        let d = norm(&q);
        let value = d - self.minor;
        if !(d > R::ZERO) {
            return SdfSample { value, gradient: Vec3::zeros() };
        }
        let (gx, gy) = if rho > R::ZERO {
            // (x/ρ, y/ρ) is a unit vector: divide by ρ first, so that a
            // subnormal ρ cannot overflow the factor.
            let radial = q.x / d;
            (x.x / rho * radial, x.y / rho * radial)
        } else {
            (R::ZERO, R::ZERO)
        };
        SdfSample { value, gradient: Vec3::new(gx, gy, q.y / d) }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        Ball { center: Vec3::zeros(), radius: self.major + self.minor }
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        let r = self.major + self.minor;
        let half = Vec3::new(r, r, self.minor);
        Aabb { min: -half, max: half }
    }
}
