//! Axis-aligned boxes in `D` dimensions: the region where two bodies can
//! meet (the intersection of their bounding boxes) is where the octree
//! (Liu et al. §3), the detection points (§4.2) and the particles (Krayer et
//! al. §4.1) start.

use crate::error::ShapeError;
use crate::math::Real;
use nalgebra::SVector;

/// The box `min ≤ x ≤ max` (componentwise). Bounds may be infinite (the box
/// of a halfspace); [`Aabb::new`] refuses NaN and inverted bounds.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::Aabb;
/// use nalgebra::Vector3;
/// let a = Aabb::new(Vector3::new(0.0_f64, 0.0, 0.0), Vector3::new(2.0, 2.0, 2.0)).unwrap();
/// let b = Aabb::new(Vector3::new(1.0, 1.5, -1.0), Vector3::new(3.0, 3.0, 0.5)).unwrap();
/// let both = a.intersection(&b).unwrap();
/// assert_eq!(both.extent(), Vector3::new(1.0, 0.5, 0.5));
/// assert!(Aabb::new(Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 1.0)).is_err()); // inverted
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb<R: Real, const D: usize> {
    /// Lower corner.
    pub min: SVector<R, D>,
    /// Upper corner.
    pub max: SVector<R, D>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for Aabb<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Aabb {{ min: {}, max: {} }}", self.min.as_slice(), self.max.as_slice())
    }
}

impl<R: Real, const D: usize> Aabb<R, D> {
    /// The box `min ≤ x ≤ max`. Infinite bounds are accepted, and so is a
    /// flat box with `min = max` on an axis.
    ///
    /// # Errors
    ///
    /// Axis by axis, the first failure decides:
    /// - [`ShapeError::NonFinite`] if a bound is NaN;
    /// - [`ShapeError::NonPositiveSize`] if `min > max` (an inverted box).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::Aabb;
    /// use narrowphase::error::ShapeError;
    /// use nalgebra::Vector2;
    /// let flat = Aabb::new(Vector2::new(0.0_f32, 1.0), Vector2::new(2.0, 1.0)).unwrap();
    /// assert_eq!(flat.extent(), Vector2::new(2.0, 0.0));
    /// assert_eq!(Aabb::new(Vector2::new(0.0_f32, 1.0), Vector2::new(2.0, 0.5)), Err(ShapeError::NonPositiveSize));
    /// ```
    pub fn new(min: SVector<R, D>, max: SVector<R, D>) -> Result<Self, ShapeError> {
        let b = Self { min, max };
        b.check()?;
        Ok(b)
    }

    /// The box of a ball: centre ± radius on every axis.
    pub fn around(center: &SVector<R, D>, radius: R) -> Self {
        let r = SVector::repeat(radius);
        Self { min: center - r, max: center + r }
    }

    /// The same checks as [`new`](Self::new), for a box built field by field.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new): [`ShapeError::NonFinite`] for a NaN bound,
    /// [`ShapeError::NonPositiveSize`] for `min > max` on an axis.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::Aabb;
    /// use narrowphase::error::ShapeError;
    /// use nalgebra::Vector3;
    /// let b = Aabb { min: Vector3::new(0.0_f64, 0.0, f64::NAN), max: Vector3::repeat(1.0) };
    /// assert_eq!(b.check(), Err(ShapeError::NonFinite));
    /// ```
    pub fn check(&self) -> Result<(), ShapeError> {
        for i in 0..D {
            let (lo, hi) = (self.min[i], self.max[i]);
            if crate::math::is_nan(lo) || crate::math::is_nan(hi) {
                return Err(ShapeError::NonFinite);
            }
            if !(lo <= hi) {
                return Err(ShapeError::NonPositiveSize);
            }
        }
        Ok(())
    }

    /// `true` when every bound is finite.
    pub fn is_finite(&self) -> bool {
        self.min.iter().chain(self.max.iter()).all(|v| v.finite())
    }

    /// The common part of two boxes, `None` when they do not meet (or a
    /// bound is NaN). Boxes that only touch give a flat box.
    pub fn intersection(&self, other: &Self) -> Option<Self> {
        let mut out = *self;
        for i in 0..D {
            out.min[i] = crate::math::max(self.min[i], other.min[i]);
            out.max[i] = crate::math::min(self.max[i], other.max[i]);
            if !(out.min[i] <= out.max[i]) {
                return None;
            }
        }
        Some(out)
    }

    /// `max − min` per axis.
    pub fn extent(&self) -> SVector<R, D> {
        self.max - self.min
    }

    /// The centre `(min + max)/2` (halves first: no overflow).
    pub fn center(&self) -> SVector<R, D> {
        self.min * R::HALF + self.max * R::HALF
    }

    /// `true` when `x` lies in the closed box.
    pub fn contains(&self, x: &SVector<R, D>) -> bool {
        (0..D).all(|i| self.min[i] <= x[i] && x[i] <= self.max[i])
    }

    /// The box grown by `margin ≥ 0` on every side.
    pub fn inflated(&self, margin: R) -> Self {
        let m = SVector::repeat(margin);
        Self { min: self.min - m, max: self.max + m }
    }
}
