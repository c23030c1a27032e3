//! Ellipsoid with semi-axes `a = (a1, a2, a3)` along x, y, z. With `A = diag(a)`
//! it is the image of the unit ball under `A`, so by the affine rule (GJK
//! paper §4.2) `s(v) = A·(Av/|Av|) = A²v / |Av|`.

use super::{check_sizes, Attitude, Bounded, SupportMap};
use crate::error::ShapeError;
use crate::math::{norm, Pt3, Real, Vec3};

/// A solid ellipsoid centred at the origin.
///
/// # Examples
///
/// ```
/// use narrowphase::shape::{Ellipsoid, SupportMap};
/// use nalgebra::Vector3;
/// let e = Ellipsoid::new(Vector3::new(3.0_f64, 2.0, 1.0)).unwrap();
/// assert_eq!(e.support(&Vector3::y()).y, 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ellipsoid<R: Real> {
    semi_axes: Vec3<R>,
    max_axis: R,
}

impl<R: Real> Ellipsoid<R> {
    /// Semi-axes along x, y, z (positive, finite).
    ///
    /// # Errors
    ///
    /// The semi-axes are checked in order and the first that fails decides:
    /// - [`ShapeError::NonFinite`] if a semi-axis is NaN or infinite;
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
    /// let e = Ellipsoid::new(Vector3::new(3.0_f32, 2.0, 1.0)).unwrap();
    /// assert_eq!(e.semi_axes(), Vector3::new(3.0, 2.0, 1.0));
    /// assert_eq!(Ellipsoid::new(Vector3::new(3.0_f32, -2.0, 1.0)), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(semi_axes: Vec3<R>) -> Result<Self, ShapeError> {
        let max_axis = check_sizes(semi_axes.as_slice())?;
        Ok(Self { semi_axes, max_axis })
    }
    /// The semi-axes.
    pub fn semi_axes(&self) -> Vec3<R> {
        self.semi_axes
    }
}

impl<R: Real> SupportMap<R> for Ellipsoid<R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        let av = self.semi_axes.component_mul(dir);
        let n = norm(&av);
        if n > R::ZERO && n.finite() {
            Pt3::from(self.semi_axes.component_mul(&av) / n)
        } else {
            Pt3::origin()
        }
    }
    fn center(&self) -> Pt3<R> {
        Pt3::origin()
    }
    #[inline]
    fn curved(&self) -> bool {
        true
    }
}

impl<R: Real> Bounded<R> for Ellipsoid<R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (Pt3::origin(), self.max_axis)
    }
}
