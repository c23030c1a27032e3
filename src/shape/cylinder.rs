//! Capped cylinder along z, radius `r`, from `z = -h` to `z = h` (GJK paper
//! §4.1 with the axis on z): with `σ = sqrt(vx² + vy²)`,
//! `s(v) = (r·vx/σ, r·vy/σ, sgn(vz)·h)` if `σ > 0`, else `(0, 0, sgn(vz)·h)`.

use super::{check_sizes, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{max, sgn, Pt3, Real, Vec3};

/// A solid cylinder along z.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Cylinder, SupportMap};
/// use nalgebra::Vector3;
/// let c = Cylinder::new(1.0_f32, 2.0).unwrap();
/// let p = c.support(&Vector3::new(3.0, 4.0, -1.0));
/// assert!((p.x - 1.2).abs() < 1e-6 && (p.y - 1.6).abs() < 1e-6 && p.z == -1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cylinder<R> {
    half_height: R,
    radius: R,
}

impl<R: Real> Cylinder<R> {
    /// Half-height and radius (both positive, finite).
    ///
    /// # Errors
    ///
    /// The half-height and the radius are checked in order and the first that fails decides:
    /// - [`ShapeError::NonFinite`] if a size is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](super::min_extent)`..=`[`max_extent`](super::max_extent) of `R`, or,
    ///   all of them valid, the largest is more than [`MAX_ASPECT`](super::MAX_ASPECT)` / ε`
    ///   times the smallest (`ε` the machine epsilon of `R`): too thin to resolve.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// let c = Cylinder::new(1.0_f32, 2.0).unwrap();
    /// assert_eq!((c.half_height(), c.radius()), (1.0, 2.0));
    /// assert_eq!(Cylinder::new(0.0_f32, 2.0), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(half_height: R, radius: R) -> Result<Self, ShapeError> {
        check_sizes(&[half_height, radius])?;
        Ok(Self { half_height, radius })
    }
    /// Half-height.
    pub fn half_height(&self) -> R {
        self.half_height
    }
    /// Radius.
    pub fn radius(&self) -> R {
        self.radius
    }
}

/// `(r·vx/σ, r·vy/σ)` or `(0, 0)` when `σ = 0`: the rim point of a disc.
#[inline(always)]
pub(crate) fn disc_support<R: Real>(dir: &Vec3<R>, radius: R) -> (R, R) {
    let s2 = dir.x * dir.x + dir.y * dir.y;
    if s2.finite() && s2 >= R::MIN_POSITIVE {
        let k = radius / Real::sqrt(s2);
        return (dir.x * k, dir.y * k);
    }
    // Huge or tiny: `s2` overflowed or underflowed (for example along
    // (−1.3e28, 0, 0) in f32 the disc's support was its centre, so a cone's
    // "supporting" halfspace cut the cone). Divide by the larger component
    // first; zero or non-finite: the centre.
    let m = max(dir.x.abs_(), dir.y.abs_());
    if !(m > R::ZERO) || !m.finite() {
        return (R::ZERO, R::ZERO);
    }
    let (u, v) = (dir.x / m, dir.y / m);
    let k = radius / Real::sqrt(u * u + v * v);
    (u * k, v * k)
}

impl<R: Real> SupportMap<R> for Cylinder<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let (x, y) = disc_support(dir, self.radius);
        Pt3::new(x, y, sgn(dir.z) * self.half_height)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<super::CorePrimitive<R>> {
        // The identity's z column is the local axis, exactly.
        self.core_primitive_placed(&crate::math::Mat3::identity(), &-origin.coords)
    }
    #[inline]
    fn core_primitive_placed(
        &self,
        rotation: &crate::math::Mat3<R>,
        offset: &Vec3<R>,
    ) -> Option<super::CorePrimitive<R>> {
        Some(super::CorePrimitive::Cylinder {
            center: *offset,
            axis: rotation.column(2).into_owned(),
            half_height: self.half_height,
            radius: self.radius,
        })
    }
}

impl<R: Real> Bounded<R> for Cylinder<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let r = self.radius;
        let h = self.half_height;
        (Pt3::origin(), Real::sqrt(r * r + h * h))
    }
}
