//! Bodies of a scene: a description that can live in flash, and the
//! validated shape the queries see.

use crate::error::ShapeError;
use crate::math::{Mat3, Pt3, Real, Vec3};
use crate::shape::{
    Attitude, Bounded, Capsule, Cone, CorePrimitive, Cuboid, Cylinder, Ellipsoid, Polytope, PolytopeData, Rounded,
    Sphere, SupportMap, SupportWarmStart,
};

/// The parameters of one convex body, unvalidated: every constructor is a
/// `const fn`, so a robot description is a `static` (in flash on a
/// microcontroller). [`Shape::new`] (called by
/// [`Scene::add_body`](super::Scene::add_body)) validates it with the
/// shape's own constructor and gives the same [`ShapeError`].
///
/// Every shape is in its local frame, centred at the origin, its axis (if
/// any) along +z, like the kernel's primitives.
///
/// ```
/// use narrowphase::scene::ShapeDesc;
/// static FOREARM: ShapeDesc<'static, f32> = ShapeDesc::capsule(0.15, 0.05);
/// assert!(narrowphase::scene::Shape::new(&FOREARM).is_ok());
/// assert!(narrowphase::scene::Shape::new(&ShapeDesc::sphere(-1.0_f32)).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ShapeDesc<'a, R: Real> {
    /// A ball: [`Sphere`].
    Sphere {
        /// Radius.
        radius: R,
    },
    /// A capsule along z: [`Capsule`].
    Capsule {
        /// Half-length of the core segment.
        half_length: R,
        /// Radius.
        radius: R,
    },
    /// A box: [`Cuboid`].
    Cuboid {
        /// Half-extents along x, y, z.
        half_extents: [R; 3],
    },
    /// A cylinder along z: [`Cylinder`].
    Cylinder {
        /// Half-height.
        half_height: R,
        /// Radius.
        radius: R,
    },
    /// A cone along z: [`Cone`].
    Cone {
        /// Half-height.
        half_height: R,
        /// Base radius.
        radius: R,
    },
    /// An ellipsoid: [`Ellipsoid`].
    Ellipsoid {
        /// Semi-axes along x, y, z.
        semi_axes: [R; 3],
    },
    /// A convex polytope viewing borrowed (e.g. `&'static`) arrays: [`Polytope`].
    Polytope(PolytopeData<'a, R>),
    /// A box with rounded edges: the box swept by a ball ([`Rounded`]).
    RoundedCuboid {
        /// Half-extents of the inner box.
        half_extents: [R; 3],
        /// Rounding radius (added to every half-extent).
        radius: R,
    },
    /// A polytope swept by a ball ([`Rounded`]): a gripper with a safety skin.
    RoundedPolytope {
        /// The inner polytope.
        data: PolytopeData<'a, R>,
        /// Rounding radius.
        radius: R,
    },
}

impl<'a, R: Real> ShapeDesc<'a, R> {
    /// A ball of the given radius.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const HEAD: ShapeDesc<'static, f64> = ShapeDesc::sphere(0.12);
    /// assert_eq!(HEAD, ShapeDesc::Sphere { radius: 0.12 });
    /// ```
    pub const fn sphere(radius: R) -> Self {
        ShapeDesc::Sphere { radius }
    }
    /// A capsule along z: half-length of the core segment, radius.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const LINK: ShapeDesc<'static, f32> = ShapeDesc::capsule(0.2, 0.05);
    /// assert!(matches!(LINK, ShapeDesc::Capsule { half_length, .. } if half_length == 0.2));
    /// ```
    pub const fn capsule(half_length: R, radius: R) -> Self {
        ShapeDesc::Capsule { half_length, radius }
    }
    /// A box with the given half-extents.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const TABLE: ShapeDesc<'static, f32> = ShapeDesc::cuboid([0.6, 0.4, 0.02]);
    /// assert!(narrowphase::scene::Shape::new(&TABLE).is_ok());
    /// ```
    pub const fn cuboid(half_extents: [R; 3]) -> Self {
        ShapeDesc::Cuboid { half_extents }
    }
    /// A cylinder along z.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const BASE: ShapeDesc<'static, f32> = ShapeDesc::cylinder(0.1, 0.08);
    /// assert!(narrowphase::scene::Shape::new(&BASE).is_ok());
    /// ```
    pub const fn cylinder(half_height: R, radius: R) -> Self {
        ShapeDesc::Cylinder { half_height, radius }
    }
    /// A cone along z (apex at `+half_height`).
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const TOOL: ShapeDesc<'static, f32> = ShapeDesc::cone(0.05, 0.02);
    /// assert!(narrowphase::scene::Shape::new(&TOOL).is_ok());
    /// ```
    pub const fn cone(half_height: R, radius: R) -> Self {
        ShapeDesc::Cone { half_height, radius }
    }
    /// An ellipsoid with the given semi-axes.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const TORSO: ShapeDesc<'static, f32> = ShapeDesc::ellipsoid([0.2, 0.12, 0.3]);
    /// assert!(narrowphase::scene::Shape::new(&TORSO).is_ok());
    /// ```
    pub const fn ellipsoid(semi_axes: [R; 3]) -> Self {
        ShapeDesc::Ellipsoid { semi_axes }
    }
    /// A polytope over borrowed arrays (validated when the body is added).
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// use narrowphase::shape::PolytopeData;
    /// let empty: PolytopeData<'_, f32> = PolytopeData { vertices: &[], vertex_adjacency_offsets: &[],
    ///     vertex_adjacency: &[], faces: &[], face_offsets: &[], face_vertices: &[], face_adjacency: &[] };
    /// assert!(narrowphase::scene::Shape::new(&ShapeDesc::polytope(empty)).is_err());
    /// ```
    pub const fn polytope(data: PolytopeData<'a, R>) -> Self {
        ShapeDesc::Polytope(data)
    }
    /// A box swept by a ball of radius `radius`.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// const CASE: ShapeDesc<'static, f32> = ShapeDesc::rounded_cuboid([0.1, 0.1, 0.1], 0.01);
    /// assert!(narrowphase::scene::Shape::new(&CASE).is_ok());
    /// ```
    pub const fn rounded_cuboid(half_extents: [R; 3], radius: R) -> Self {
        ShapeDesc::RoundedCuboid { half_extents, radius }
    }
    /// A polytope swept by a ball of radius `radius`.
    ///
    /// ```
    /// use narrowphase::scene::ShapeDesc;
    /// use narrowphase::shape::PolytopeData;
    /// let empty: PolytopeData<'_, f64> = PolytopeData { vertices: &[], vertex_adjacency_offsets: &[],
    ///     vertex_adjacency: &[], faces: &[], face_offsets: &[], face_vertices: &[], face_adjacency: &[] };
    /// assert!(matches!(ShapeDesc::rounded_polytope(empty, 0.01), ShapeDesc::RoundedPolytope { .. }));
    /// ```
    pub const fn rounded_polytope(data: PolytopeData<'a, R>, radius: R) -> Self {
        ShapeDesc::RoundedPolytope { data, radius }
    }
}

/// One body of a scene description: its shape and the body it hangs from
/// in the kinematic tree (`None` for a root: the robot's base, the
/// environment, a person). The parent list is what "skip adjacent links"
/// reads: a body and its parent are not paired by default.
///
/// ```
/// use narrowphase::scene::{BodyDesc, ShapeDesc};
/// static ARM: [BodyDesc<'static, f32>; 3] = [
///     BodyDesc::root(ShapeDesc::cylinder(0.1, 0.1)),
///     BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), 0),
///     BodyDesc::child(ShapeDesc::capsule(0.15, 0.04), 1),
/// ];
/// assert_eq!(ARM[2].parent, Some(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BodyDesc<'a, R: Real> {
    /// The shape.
    pub shape: ShapeDesc<'a, R>,
    /// Index of the parent body (added before this one), if any.
    pub parent: Option<u16>,
}

impl<'a, R: Real> BodyDesc<'a, R> {
    /// A body with no parent.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, ShapeDesc};
    /// const TABLE: BodyDesc<'static, f32> = BodyDesc::root(ShapeDesc::cuboid([0.6, 0.4, 0.02]));
    /// assert_eq!(TABLE.parent, None);
    /// ```
    pub const fn root(shape: ShapeDesc<'a, R>) -> Self {
        Self { shape, parent: None }
    }
    /// A body hanging from body `parent` (its index in the scene).
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, ShapeDesc};
    /// const LINK: BodyDesc<'static, f32> = BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), 0);
    /// assert_eq!(LINK.parent, Some(0));
    /// ```
    pub const fn child(shape: ShapeDesc<'a, R>, parent: u16) -> Self {
        Self { shape, parent: Some(parent) }
    }
}

/// A validated convex body, one variant per kernel shape; its support map
/// dispatches to the shape's (no allocator, no trait object). Round bodies
/// (sphere, capsule, the rounded variants) keep their margin, so the
/// queries decide them on their cores.
///
/// ```
/// use narrowphase::scene::{Shape, ShapeDesc};
/// use narrowphase::shape::SupportMap;
/// use nalgebra::Vector3;
/// let s = Shape::new(&ShapeDesc::rounded_cuboid([1.0_f64, 1.0, 1.0], 0.5)).unwrap();
/// assert_eq!(s.margin(), 0.5);
/// assert!((s.support(&Vector3::x()).x - 1.5).abs() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Shape<'a, R: Real> {
    /// A ball.
    Sphere(Sphere<R>),
    /// A capsule.
    Capsule(Capsule<R>),
    /// A box.
    Cuboid(Cuboid<R>),
    /// A cylinder.
    Cylinder(Cylinder<R>),
    /// A cone.
    Cone(Cone<R>),
    /// An ellipsoid.
    Ellipsoid(Ellipsoid<R>),
    /// A convex polytope.
    Polytope(Polytope<'a, R>),
    /// A rounded box.
    RoundedCuboid(Rounded<Cuboid<R>, R>),
    /// A rounded polytope.
    RoundedPolytope(Rounded<Polytope<'a, R>, R>),
}

impl<'a, R: Real> Shape<'a, R> {
    /// Validates a description with the shape's own constructor.
    ///
    /// # Errors
    /// The constructor's [`ShapeError`]: a NaN or infinite parameter, a
    /// size not positive, sizes too far apart, invalid polytope data.
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::scene::{Shape, ShapeDesc};
    /// assert_eq!(Shape::new(&ShapeDesc::capsule(f32::NAN, 0.1)), Err(ShapeError::NonFinite));
    /// ```
    pub fn new(desc: &ShapeDesc<'a, R>) -> Result<Self, ShapeError> {
        let v = |a: &[R; 3]| Vec3::new(a[0], a[1], a[2]);
        Ok(match *desc {
            ShapeDesc::Sphere { radius } => Shape::Sphere(Sphere::new(radius)?),
            ShapeDesc::Capsule { half_length, radius } => Shape::Capsule(Capsule::new(half_length, radius)?),
            ShapeDesc::Cuboid { half_extents } => Shape::Cuboid(Cuboid::new(v(&half_extents))?),
            ShapeDesc::Cylinder { half_height, radius } => Shape::Cylinder(Cylinder::new(half_height, radius)?),
            ShapeDesc::Cone { half_height, radius } => Shape::Cone(Cone::new(half_height, radius)?),
            ShapeDesc::Ellipsoid { semi_axes } => Shape::Ellipsoid(Ellipsoid::new(v(&semi_axes))?),
            ShapeDesc::Polytope(data) => Shape::Polytope(Polytope::new(data)?),
            ShapeDesc::RoundedCuboid { half_extents, radius } => {
                Shape::RoundedCuboid(Rounded::new(Cuboid::new(v(&half_extents))?, Sphere::new(radius)?))
            }
            ShapeDesc::RoundedPolytope { data, radius } => {
                Shape::RoundedPolytope(Rounded::new(Polytope::new(data)?, Sphere::new(radius)?))
            }
        })
    }
}

macro_rules! dispatch {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Shape::Sphere($s) => $e,
            Shape::Capsule($s) => $e,
            Shape::Cuboid($s) => $e,
            Shape::Cylinder($s) => $e,
            Shape::Cone($s) => $e,
            Shape::Ellipsoid($s) => $e,
            Shape::Polytope($s) => $e,
            Shape::RoundedCuboid($s) => $e,
            Shape::RoundedPolytope($s) => $e,
        }
    };
}

impl<R: Real> SupportMap<R> for Shape<'_, R> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        dispatch!(self, s => s.support(dir))
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        dispatch!(self, s => s.support_hinted(dir, hint))
    }
    #[inline]
    fn center(&self) -> Pt3<R> {
        dispatch!(self, s => s.center())
    }
    #[inline]
    fn margin(&self) -> R {
        dispatch!(self, s => s.margin())
    }
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        dispatch!(self, s => s.attitude())
    }
    #[inline]
    fn support_core(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        dispatch!(self, s => s.support_core(dir, hint))
    }
    #[inline]
    fn support_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        dispatch!(self, s => s.support_from(dir, hint, origin))
    }
    #[inline]
    fn support_core_from(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart, origin: &Pt3<R>) -> Vec3<R> {
        dispatch!(self, s => s.support_core_from(dir, hint, origin))
    }
    #[inline]
    fn center_from(&self, origin: &Pt3<R>) -> Vec3<R> {
        dispatch!(self, s => s.center_from(origin))
    }
    #[inline]
    fn core_primitive_from(&self, origin: &Pt3<R>) -> Option<CorePrimitive<R>> {
        dispatch!(self, s => s.core_primitive_from(origin))
    }
    #[inline]
    fn core_primitive_placed(&self, rotation: &Mat3<R>, offset: &Vec3<R>) -> Option<CorePrimitive<R>> {
        dispatch!(self, s => s.core_primitive_placed(rotation, offset))
    }
    #[inline]
    fn climbs(&self) -> bool {
        dispatch!(self, s => s.climbs())
    }
    #[inline]
    fn curved(&self) -> bool {
        dispatch!(self, s => s.curved())
    }
    #[inline]
    fn core_curved(&self) -> bool {
        dispatch!(self, s => s.core_curved())
    }
}

impl<R: Real> Bounded<R> for Shape<'_, R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        dispatch!(self, s => s.bounding_sphere())
    }
}
