//! Capped cone along z with base radius `r` at `z = -h` and apex at `z = h`
//! (GJK paper §4.1 with the axis on z): with `sin α = r / sqrt(r² + (2h)²)`,
//! `s(v) = (0, 0, h)` if `vz > |v| sin α`, else the base rim point
//! `(r·vx/σ, r·vy/σ, -h)` (or `(0, 0, -h)` when `σ = 0`).
//!
//! The origin is the mid-height point of the axis, not the centroid.

use super::cylinder::disc_support;
use super::{check_sizes, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{norm, Pt3, Real, Vec3};

/// A solid cone along z, apex up.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Cone, SupportMap};
/// use nalgebra::Vector3;
/// let c = Cone::new(1.0_f32, 0.5).unwrap();
/// assert_eq!(c.support(&Vector3::z()).z, 1.0);   // the apex
/// assert_eq!(c.support(&-Vector3::z()).z, -1.0); // the base
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cone<R> {
    half_height: R,
    radius: R,
    sin_alpha: R,
    cos_alpha: R,
}

impl<R: Real> Cone<R> {
    /// Half-height and base radius (both positive, finite).
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
    /// // Height 2, base radius 1.5: the slant side rises 2 over 1.5, so
    /// // (cos α, sin α) = (2, 1.5) / 2.5.
    /// let c = Cone::new(1.0_f64, 1.5).unwrap();
    /// let (cos, sin) = c.side_normal();
    /// assert!((cos - 0.8).abs() < 1e-15 && (sin - 0.6).abs() < 1e-15);
    /// assert_eq!(Cone::new(1.0_f64, f64::NAN), Err(ShapeError::NonFinite));
    /// ```
    pub fn new(half_height: R, radius: R) -> Result<Self, ShapeError> {
        check_sizes(&[half_height, radius])?;
        let two_h = half_height + half_height;
        let slant = Real::sqrt(radius * radius + two_h * two_h);
        Ok(Self { half_height, radius, sin_alpha: radius / slant, cos_alpha: two_h / slant })
    }
    /// Half-height.
    pub fn half_height(&self) -> R {
        self.half_height
    }
    /// Base radius.
    pub fn radius(&self) -> R {
        self.radius
    }
    /// `(cos α, sin α)` of the half-angle at the apex: the unit outward
    /// normal of the slanted side in the `(ρ, z)` plane.
    pub fn side_normal(&self) -> (R, R) {
        (self.cos_alpha, self.sin_alpha)
    }
}

impl<R: Real> SupportMap<R> for Cone<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        // The apex wins when its value `h·d_z` is at least the base rim's
        // `r·|d_xy| − h·d_z`. Compared directly, not as `d_z > |d|·sin α`:
        // for a flat cone `sin α` rounds to 1 and the apex would never win.
        let rho = norm(&nalgebra::Vector2::new(dir.x, dir.y));
        let two_h = self.half_height + self.half_height;
        if two_h * dir.z > self.radius * rho {
            Pt3::new(R::ZERO, R::ZERO, self.half_height)
        } else {
            let (x, y) = disc_support(dir, self.radius);
            Pt3::new(x, y, -self.half_height)
        }
    }
    fn center(&self) -> Pt3<R> {
        // A point strictly inside: a quarter of the way up from the base.
        Pt3::new(R::ZERO, R::ZERO, -self.half_height * R::HALF)
    }
}

impl<R: Real> Bounded<R> for Cone<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        let r = self.radius;
        let h = self.half_height;
        (Pt3::origin(), Real::sqrt(r * r + h * h))
    }
}
