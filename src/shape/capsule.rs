//! Capsule: the segment from `(0,0,-h)` to `(0,0,h)` swept by a ball of radius
//! `r`. Support: `(0, 0, sgn(vz)·h) + r·v/|v|` (a Minkowski sum, GJK paper §4.3).

use super::{check_sizes, unit_or_zero, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{sgn, Mat3, Pt3, Real, Vec3};

/// A capsule along z: half-length `h` of the core segment, radius `r`.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Capsule, SupportMap};
/// use nalgebra::Vector3;
/// let c = Capsule::new(1.0_f64, 0.5).unwrap();
/// assert_eq!(c.support(&Vector3::z()).z, 1.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Capsule<R> {
    half_length: R,
    radius: R,
}

impl<R: Real> Capsule<R> {
    /// Half-length of the core segment and radius (both positive, finite).
    ///
    /// # Errors
    ///
    /// The half-length and the radius are checked in order and the first that fails decides:
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
    /// let c = Capsule::new(1.0_f32, 0.5).unwrap();
    /// assert_eq!((c.half_length(), c.radius()), (1.0, 0.5));
    /// assert_eq!(Capsule::new(1.0_f32, -0.5), Err(ShapeError::NonPositiveSize));
    /// // 1e9 : 1 is beyond what f32 resolves (about 8.4e4 : 1); f64 takes it.
    /// assert_eq!(Capsule::new(1.0_f32, 1e-9), Err(ShapeError::BadAspect));
    /// assert!(Capsule::new(1.0_f64, 1e-9).is_ok());
    /// ```
    pub fn new(half_length: R, radius: R) -> Result<Self, ShapeError> {
        check_sizes(&[half_length, radius])?;
        Ok(Self { half_length, radius })
    }
    /// Half-length of the core segment.
    pub fn half_length(&self) -> R {
        self.half_length
    }
    /// Radius.
    pub fn radius(&self) -> R {
        self.radius
    }
}

impl<R: Real> SupportMap<R> for Capsule<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let mut p = unit_or_zero(dir) * self.radius;
        p.z += sgn(dir.z) * self.half_length;
        Pt3::from(p)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn curved(&self) -> bool {
        true
    }
    /// The core is a segment, whatever the radius: known without reading it,
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
    fn support_core(&self, dir: &Vec3<R>, _hint: &mut super::SupportWarmStart) -> Pt3<R> {
        Pt3::new(R::ZERO, R::ZERO, sgn(dir.z) * self.half_length)
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<super::CorePrimitive<R>> {
        let h = Vec3::new(R::ZERO, R::ZERO, self.half_length);
        Some(super::CorePrimitive::Segment(-h - origin.coords, h - origin.coords))
    }
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<super::CorePrimitive<R>> {
        let axis = rotation.column(2) * self.half_length;
        Some(super::CorePrimitive::Segment(offset - axis, offset + axis))
    }
}

impl<R: Real> Bounded<R> for Capsule<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (Pt3::origin(), self.half_length + self.radius)
    }
}
