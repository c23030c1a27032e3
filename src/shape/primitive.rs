//! A body's core as a closed-form primitive: what the contact query needs
//! to answer the pairs robots use most (spheres, capsules, boxes, a sphere
//! against a cylinder) without iterating.

use crate::math::{Mat3, Real, Vec3};

/// The core of a body (see [`SupportMap::margin`](super::SupportMap::margin))
/// where it is a primitive with a closed-form closest point, in the frame
/// the caller asked for ([`SupportMap::core_primitive_from`](super::SupportMap::core_primitive_from)).
///
/// A sphere's core is its centre, a capsule's its segment, a box (or a
/// [`Rounded`](super::Rounded) box) its box, a cylinder (or a rounded one)
/// its cylinder.
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::shape::CorePrimitive;
/// use nalgebra::{Point3, Translation3, Vector3};
/// let capsule = Placed::new(Capsule::new(0.5_f64, 0.1).unwrap(),
///     Pose::from_parts(Translation3::new(10.0, 0.0, 0.0), Default::default()));
/// let core = capsule.core_primitive_from(&Point3::new(10.0, 0.0, 0.0));
/// assert_eq!(core, Some(CorePrimitive::Segment(Vector3::new(0.0, 0.0, -0.5), Vector3::new(0.0, 0.0, 0.5))));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CorePrimitive<R: Real> {
    /// A point.
    Point(Vec3<R>),
    /// A segment between two points.
    Segment(Vec3<R>, Vec3<R>),
    /// A box: `center + axes · x` for `|xᵢ| ≤ half_extents[i]`, `axes` a
    /// rotation matrix.
    Cuboid {
        /// Centre.
        center: Vec3<R>,
        /// Orientation: the box's local axes as columns.
        axes: Mat3<R>,
        /// Half-extents along the local axes.
        half_extents: Vec3<R>,
    },
    /// A solid cylinder: `center + axis · z + ρ` for `|z| ≤ half_height`
    /// and `ρ ⟂ axis`, `|ρ| ≤ radius`; `axis` a unit vector.
    Cylinder {
        /// Centre.
        center: Vec3<R>,
        /// Unit axis.
        axis: Vec3<R>,
        /// Half the length along the axis.
        half_height: R,
        /// Radius.
        radius: R,
    },
}

impl<R: Real> CorePrimitive<R> {
    /// The primitive moved by `offset`.
    ///
    /// ```
    /// use narrowphase::shape::CorePrimitive;
    /// use nalgebra::Vector3;
    /// let p = CorePrimitive::Point(Vector3::new(1.0_f32, 0.0, 0.0)).translated(&Vector3::new(0.0, 2.0, 0.0));
    /// assert_eq!(p, CorePrimitive::Point(Vector3::new(1.0, 2.0, 0.0)));
    /// ```
    #[inline]
    #[must_use]
    pub fn translated(&self, offset: &Vec3<R>) -> Self {
        match *self {
            Self::Point(p) => Self::Point(p + offset),
            Self::Segment(p, q) => Self::Segment(p + offset, q + offset),
            Self::Cuboid { center, axes, half_extents } => Self::Cuboid { center: center + offset, axes, half_extents },
            Self::Cylinder { center, axis, half_height, radius } => {
                Self::Cylinder { center: center + offset, axis, half_height, radius }
            }
        }
    }

    /// The primitive rotated by `rotation` about the origin, then moved by
    /// `offset`: `rotation · x + offset`.
    ///
    /// ```
    /// use narrowphase::shape::CorePrimitive;
    /// use nalgebra::{Matrix3, Vector3};
    /// let quarter = Matrix3::new(0.0_f64, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0); // about z
    /// let s = CorePrimitive::Segment(Vector3::zeros(), Vector3::x()).moved(&quarter, &Vector3::z());
    /// assert_eq!(s, CorePrimitive::Segment(Vector3::z(), Vector3::new(0.0, 1.0, 1.0)));
    /// ```
    #[inline]
    #[must_use]
    pub fn moved(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Self {
        match *self {
            Self::Point(p) => Self::Point(rotation * p + offset),
            Self::Segment(p, q) => Self::Segment(rotation * p + offset, rotation * q + offset),
            Self::Cuboid { center, axes, half_extents } => {
                Self::Cuboid { center: rotation * center + offset, axes: rotation * axes, half_extents }
            }
            Self::Cylinder { center, axis, half_height, radius } => {
                Self::Cylinder { center: rotation * center + offset, axis: rotation * axis, half_height, radius }
            }
        }
    }
}
