//! Ball of radius `r` centred at the origin. Support: `r · v/|v|`.

use super::{check_sizes, unit_or_zero, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{Mat3, Pt3, Real, Vec3};

/// A ball (solid sphere) centred at the origin.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Sphere, SupportMap};
/// use nalgebra::Vector3;
/// let s = Sphere::new(2.0_f32).unwrap();
/// assert_eq!(s.support(&Vector3::new(0.0, 3.0, 0.0)).y, 2.0);
/// assert!(Sphere::new(f32::NAN).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sphere<R> {
    radius: R,
}

impl<R: Real> Sphere<R> {
    /// A ball of the given radius (finite, positive).
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if `radius` is NaN or infinite;
    /// - [`ShapeError::NonPositiveSize`] if it is zero or negative;
    /// - [`ShapeError::BadAspect`] if it lies outside
    ///   [`min_extent`](super::min_extent)`..=`[`max_extent`](super::max_extent) of `R`.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// assert_eq!(Sphere::new(2.0_f32).unwrap().radius(), 2.0);
    /// assert_eq!(Sphere::new(0.0_f32), Err(ShapeError::NonPositiveSize));
    /// assert_eq!(Sphere::new(f32::INFINITY), Err(ShapeError::NonFinite));
    /// assert_eq!(Sphere::new(1e20_f32), Err(ShapeError::BadAspect)); // beyond max_extent for f32
    /// ```
    pub fn new(radius: R) -> Result<Self, ShapeError> {
        check_sizes(&[radius])?;
        Ok(Self { radius })
    }
    /// The radius.
    pub fn radius(&self) -> R {
        self.radius
    }
}

impl<R: Real> SupportMap<R> for Sphere<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        Pt3::from(unit_or_zero(dir) * self.radius)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn curved(&self) -> bool {
        true
    }
    /// The core is a centre, whatever the radius: known without reading it,
    /// so the queries on the core compile without the momentum.
    #[inline]
    fn core_curved(&self) -> bool {
        false
    }
    #[inline]
    fn margin(&self) -> R {
        self.radius
    }
    #[inline]
    fn support_core(&self, _dir: &Vec3<R>, _hint: &mut super::SupportWarmStart) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<super::CorePrimitive<R>> {
        Some(super::CorePrimitive::Point(-origin.coords))
    }
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<super::CorePrimitive<R>> {
        let _ = rotation;
        Some(super::CorePrimitive::Point(*offset))
    }
}

impl<R: Real> Bounded<R> for Sphere<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (Pt3::origin(), self.radius)
    }
}
