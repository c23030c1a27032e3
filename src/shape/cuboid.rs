//! Axis-aligned box with half-extents `h`. Support: `(sgn(vx)hx, sgn(vy)hy, sgn(vz)hz)`.

use super::{check_sizes, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{norm, sgn, Pt3, Real, Vec3};

/// A box centred at the origin, given by its half-extents.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Cuboid, SupportMap};
/// use nalgebra::Vector3;
/// let b = Cuboid::new(Vector3::new(1.0_f32, 2.0, 3.0)).unwrap();
/// let p = b.support(&Vector3::new(-1.0, 1.0, -1.0));
/// assert_eq!((p.x, p.y, p.z), (-1.0, 2.0, -3.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cuboid<R: Real> {
    half: Vec3<R>,
}

impl<R: Real> Cuboid<R> {
    /// A box with the given (positive, finite) half-extents.
    ///
    /// # Errors
    ///
    /// The half-extents are checked in order and the first that fails decides:
    /// - [`ShapeError::NonFinite`] if a half-extent is NaN or infinite;
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
    /// use nalgebra::Vector3;
    /// let b = Cuboid::new(Vector3::new(1.0_f64, 2.0, 3.0)).unwrap();
    /// assert_eq!(b.half_extents(), Vector3::new(1.0, 2.0, 3.0));
    /// assert_eq!(Cuboid::new(Vector3::new(1.0, 0.0, 1.0_f64)), Err(ShapeError::NonPositiveSize)); // flat
    /// assert_eq!(Cuboid::new(Vector3::new(1.0, f64::NAN, 1.0)), Err(ShapeError::NonFinite));
    /// ```
    pub fn new(half_extents: Vec3<R>) -> Result<Self, ShapeError> {
        check_sizes(half_extents.as_slice())?;
        Ok(Self { half: half_extents })
    }
    /// The half-extents.
    pub fn half_extents(&self) -> Vec3<R> {
        self.half
    }
}

impl<R: Real> SupportMap<R> for Cuboid<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        Pt3::new(sgn(dir.x) * self.half.x, sgn(dir.y) * self.half.y, sgn(dir.z) * self.half.z)
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<super::CorePrimitive<R>> {
        Some(super::CorePrimitive::Cuboid {
            center: -origin.coords,
            axes: crate::math::Mat3::identity(),
            half_extents: self.half,
        })
    }
    #[inline]
    fn core_primitive_placed(
        &self,
        rotation: &crate::math::Mat3<R>,
        offset: &Vec3<R>,
    ) -> Option<super::CorePrimitive<R>> {
        Some(super::CorePrimitive::Cuboid { center: *offset, axes: *rotation, half_extents: self.half })
    }
}

impl<R: Real> Bounded<R> for Cuboid<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (Pt3::origin(), norm(&self.half))
    }
}
