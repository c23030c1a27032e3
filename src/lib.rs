//! # narrowphase
//!
//! A `#![no_std]`, allocation-free, bounded collision-detection kernel for
//! robot controllers: proximity queries between convex bodies seen through
//! their support functions (GJK, EPA, MPR), their signed distance functions
//! (the ellipsoid method) or closed-form Minkowski sums, and between general
//! (non-convex) SDF bodies (interval octree, projected gradients, particles).
//!
//! - [`math`]: the [`Real`](math::Real) scalar trait (f32 and f64), the
//!   hardware square root on Cortex-M4F.
//! - [`shape`]: primitives with support maps, the fixed-data convex polytope
//!   with hill climbing, placements, Minkowski sums, hulls.
//! - [`query`]: the shared vocabulary — three-valued outcomes with
//!   certificates, budgets, errors.
//! - [`support`]: GJK (distance, intersection, warm start), EPA, MPR.
//! - [`sdf`]: signed distance functions of the primitives (exact or lower
//!   bounds with the right sign; the polytope by hill climbing on its faces)
//!   and the ellipsoid method: collision, distance, inscribed-ball
//!   penetration, warm start — in 2D and 3D; the torus, CSG and sampled
//!   grids; the general SDF–SDF methods: [`sdf::octree`] (interval
//!   arithmetic), [`sdf::gradient`] and [`sdf::particles`].
//! - [`minkowski`]: exact ellipsoid–superquadric and ellipsoid–ellipsoid
//!   tests.
//! - `gpu` (feature `gpu`, std): the particle method for many pairs at once
//!   on a GPU (wgpu).
//!
//! Every loop has a hard cap, no query panics, and "undetermined" is never
//! reported as "separated".
//!
//! # Examples
//!
//! ```
//! use narrowphase::prelude::*;
//! use nalgebra::{Translation3, Vector3};
//!
//! let a = Placed::new(Sphere::new(1.0_f32).unwrap(), Pose::identity());
//! let b = Placed::new(
//!     Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(),
//!     Pose::from_parts(Translation3::new(3.0, 0.0, 0.0), Default::default()),
//! );
//! match gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
//!     GjkOutcome::Separated(s) => assert!((s.distance - 1.0).abs() < 1e-4),
//!     other => panic!("{other:?}"),
//! }
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// `!(a < b)` is how the kernel makes NaN stop a loop or fail a check; the
// lint would have it rewritten into `a >= b`, which lets NaN through.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(feature = "std")]
extern crate std;

pub mod error;
pub mod math;
pub mod minkowski;
pub mod query;
pub mod scene;
pub mod sdf;
pub mod shape;
pub mod support;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod hull;

#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub mod gpu;

/// The names most users need.
pub mod prelude {
    pub use crate::error::SceneError;
    pub use crate::error::ShapeError;
    pub use crate::math::{Pose, Pose2, Pt3, Real, Vec3};
    pub use crate::minkowski::MinkowskiOutcome;
    pub use crate::query::Threshold;
    pub use crate::query::{Bounds, Budget, Penetration, Proximity, Separation, Stop, Undetermined, Witness};
    pub use crate::scene::derivative::TwistGradient;
    pub use crate::scene::{BodyDesc, PairOutcome, PairQuery, PairSettings, Scene, ShapeDesc, TickBudget, TickSummary};
    pub use crate::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart};
    pub use crate::sdf::{Aabb, Difference, Intersection, IntervalSdf, Sdf, SdfWarmStart, SmoothUnion, Torus, Union};
    pub use crate::shape::{
        Affine, Attitude, Bounded, Capsule, Cone, ConvexHull, Cuboid, Cylinder, Ellipsoid, MinkowskiSum, Placed,
        Polytope, PolytopeData, Rounded, Sphere, SupportMap, SupportWarmStart,
    };
    pub use crate::shape::{Ellipse, Superellipse, Superquadric};
    pub use crate::support::contact::{contact, contact_with};
    pub use crate::support::epa;
    pub use crate::support::gjk::{self, GjkOutcome, GjkWarmStart};
    pub use crate::support::mpr::{self, MprOutcome};
}

/// Compile-time proof that the public types implement `defmt::Format` for
/// the scalar types the kernel supports (never called, so never linked).
#[cfg(feature = "defmt")]
#[allow(dead_code)]
fn _defmt_format_is_implemented() {
    fn check<T: defmt::Format>() {}
    fn for_real<R: math::Real + defmt::Format>()
    where
        math::Vec3<R>: defmt::Format,
        math::Pt3<R>: defmt::Format,
    {
    }
    use shape::*;
    use support::*;
    check::<query::Proximity<f32>>();
    check::<query::Proximity<f64>>();
    check::<gjk::GjkOutcome<f32>>();
    check::<gjk::GjkWarmStart<f32>>();
    check::<gjk::WarmSeeds<f64>>();
    check::<Attitude<f32>>();
    check::<mpr::MprOutcome<f32>>();
    check::<epa::DefaultEpa<f32>>();
    check::<Simplex<f64>>();
    check::<Placed<Sphere<f32>, f32>>();
    check::<Affine<Cuboid<f32>, f32>>();
    check::<MinkowskiSum<Capsule<f32>, Cylinder<f32>>>();
    check::<ConvexHull<Cone<f32>, Ellipsoid<f32>>>();
    check::<Polytope<'static, f32>>();
    check::<PolytopeData<'static, f32>>();
    check::<Cso<'static, dyn SupportMap<f32>, Sphere<f32>>>();
    check::<error::ShapeError>();
    check::<minkowski::MinkowskiOutcome<f32, math::Vec3<f32>>>();
    check::<minkowski::MinkowskiOutcome<f64, nalgebra::Vector2<f64>>>();
    check::<minkowski::ellipsoid_pair::AlgebraicOutcome<f32>>();
    check::<Superquadric<f32>>();
    check::<Superellipse<f64>>();
    check::<Ellipse<f32>>();
    check::<sdf::ellipsoid_method::EllipsoidMethod<f32>>();
    check::<sdf::ellipsoid_method::EllipsoidMethodOutcome<f32, 3>>();
    check::<sdf::ellipsoid_method::EllipsoidMethodOutcome<f64, 2>>();
    check::<sdf::ellipsoid_method::EllipsoidWarmStart<f32, 3>>();
    check::<sdf::ellipsoid_method::SdfContact<f64, 3>>();
    check::<sdf::ellipsoid_method::InitialRegion<f32, 3>>();
    check::<sdf::SdfSample<f32, 3>>();
    check::<sdf::Ball<f32, 2>>();
    check::<sdf::SdfAccuracy>();
    check::<sdf::SdfWarmStart>();
    check::<query::Stop>();
    check::<sdf::BoxN<f32, 2>>();
    check::<sdf::CappedCone<f32>>();
    check::<sdf::Halfspace<f64, 3>>();
    check::<sdf::Transformed<Sphere<f32>, f32, 2>>();
    check::<sdf::Aabb<f32, 3>>();
    check::<sdf::Torus<f32>>();
    check::<sdf::Union<Sphere<f32>, sdf::Torus<f32>>>();
    check::<sdf::Intersection<Sphere<f32>, Cuboid<f32>>>();
    check::<sdf::Difference<Cuboid<f32>, Sphere<f32>>>();
    check::<sdf::SmoothUnion<Sphere<f32>, Sphere<f32>, f32>>();
    check::<sdf::interval::Interval<f64>>();
    check::<sdf::octree::Cell<f32, 3>>();
    check::<sdf::octree::KeptCell<f64, 2>>();
    check::<sdf::octree::CellClass>();
    check::<sdf::octree::OctreeParams>();
    check::<sdf::octree::OctreeVerdict>();
    check::<sdf::octree::OctreeReport>();
    check::<error::OctreeError>();
    check::<query::Threshold<f32>>();
    check::<scene::ShapeDesc<'static, f32>>();
    check::<scene::BodyDesc<'static, f64>>();
    check::<scene::Shape<'static, f32>>();
    check::<scene::Body<'static, f32>>();
    check::<scene::Scene<'static, f32, 4, 6>>();
    check::<error::SceneError>();
    check::<scene::PairQuery<f32>>();
    check::<scene::PairSettings<f32>>();
    check::<scene::Measured<f64>>();
    check::<scene::PairUndetermined>();
    check::<scene::PairOutcome<f32>>();
    check::<scene::Pair<f32>>();
    check::<scene::TickBudget<f32>>();
    check::<scene::TickSummary<f32>>();
    check::<scene::Closest<f64>>();
    check::<scene::derivative::TwistGradient<f32>>();
    for_real::<f32>();
    for_real::<f64>();
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
