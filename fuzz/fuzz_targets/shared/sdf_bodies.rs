//! The SDF bodies of `gradient_contacts` and `particle_projection` (sphere,
//! box, capsule, cylinder under a rigid pose from a raw quaternion — convex,
//! so GJK gives the truth —, a torus under `Transformed`, alone or in a CSG
//! pair), and the pieces `interval_octree` and `grid_sampling` build their
//! own bodies from: [`sdf_enum!`] and [`quat_rotation`].

use arbitrary::Arbitrary;
use nalgebra::{Matrix3, Quaternion, Rotation3, Translation3, UnitQuaternion};
use narrowphase::math::{Pose, Real};
use narrowphase::query::Budget;
use narrowphase::sdf::{Aabb, Difference, Intersection, Sdf, Torus, Transformed, Union};
use narrowphase::shape::{Capsule, Cuboid, Cylinder, Placed, Sphere, SupportMap};
use narrowphase::support::gjk::{self, GjkOutcome, GjkWarmStart};

use super::num::{v3, Num};
use super::num::nums;
use super::seeds::{encode_enum, encode_struct, Rng};

/// An enum over SDF types, itself an SDF (3D) whose methods forward to the
/// variant; `IntervalSdf` too when the enum is declared with
/// `+ IntervalSdf`. The enum is `Clone, Copy, Debug`.
macro_rules! sdf_enum {
    ($(#[$m:meta])* $vis:vis enum $name:ident<$R:ident> { $($var:ident($ty:ty)),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        $vis enum $name<$R: ::narrowphase::math::Real> {
            $($var($ty)),+
        }

        impl<$R: ::narrowphase::math::Real> ::narrowphase::sdf::Sdf<$R, 3> for $name<$R> {
            fn eval(&self, x: &::nalgebra::Vector3<$R>) -> ::narrowphase::sdf::SdfSample<$R, 3> {
                match self { $(Self::$var(b) => b.eval(x)),+ }
            }
            fn accuracy(&self) -> ::narrowphase::sdf::SdfAccuracy {
                match self { $(Self::$var(b) => b.accuracy()),+ }
            }
            fn bounding_ball(&self) -> ::narrowphase::sdf::Ball<$R, 3> {
                match self { $(Self::$var(b) => b.bounding_ball()),+ }
            }
            fn bounding_box(&self) -> ::narrowphase::sdf::Aabb<$R, 3> {
                match self { $(Self::$var(b) => b.bounding_box()),+ }
            }
        }
    };
    ($(#[$m:meta])* $vis:vis enum $name:ident<$R:ident> + IntervalSdf { $($var:ident($ty:ty)),+ $(,)? }) => {
        sdf_enum! { $(#[$m])* $vis enum $name<$R> { $($var($ty)),+ } }

        impl<$R: ::narrowphase::math::Real> ::narrowphase::sdf::IntervalSdf<$R, 3> for $name<$R> {
            fn eval_interval(
                &self,
                x: &[::narrowphase::sdf::interval::Interval<$R>; 3],
            ) -> ::narrowphase::sdf::interval::Interval<$R> {
                match self { $(Self::$var(b) => b.eval_interval(x)),+ }
            }
        }
    };
}
pub(crate) use sdf_enum;

/// The rotation of an optional input quaternion (`None`: the identity),
/// normalised in f64 and rounded to `R`; `None` when its norm is below
/// 1e-3 or not finite (the rotation would be noise or NaN).
pub fn quat_rotation<R: Real>(q: &Option<[Num; 4]>) -> Option<Matrix3<R>> {
    let Some(q) = q else { return Some(Matrix3::identity()) };
    let q = Quaternion::new(q[0].get(), q[1].get(), q[2].get(), q[3].get());
    if !(q.norm() > 1e-3 && q.norm().is_finite()) {
        return None;
    }
    Some(UnitQuaternion::from_quaternion(q).to_rotation_matrix().into_inner().map(R::lit))
}

/// The largest |coordinate| of the boxes, at least 1: the scale of the
/// rounding tolerances.
pub fn box_scale<R: Real>(boxes: &[&Aabb<R, 3>]) -> R {
    let corners = boxes.iter().flat_map(|b| b.min.iter().chain(b.max.iter()));
    corners.fold(R::ONE, |m, v| if v.abs() > m { v.abs() } else { m })
}

#[derive(Arbitrary, Debug)]
pub enum PrimIn {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Torus(Num, Num),
}

#[derive(Arbitrary, Debug)]
pub struct PrimBody {
    pub prim: PrimIn,
    pub quat: Option<[Num; 4]>,
    pub translation: [Num; 3],
}

#[derive(Arbitrary, Debug)]
pub enum BodyIn {
    Prim(PrimBody),
    Union(PrimBody, PrimBody),
    Intersection(PrimBody, PrimBody),
    Difference(PrimBody, PrimBody),
}

sdf_enum! {
    /// A placed primitive.
    pub enum Prim<R> {
        Sphere(Placed<Sphere<R>, R>),
        Cuboid(Placed<Cuboid<R>, R>),
        Capsule(Placed<Capsule<R>, R>),
        Cylinder(Placed<Cylinder<R>, R>),
        Torus(Transformed<Torus<R>, R, 3>),
    }
}

sdf_enum! {
    /// A primitive or a CSG pair of them.
    pub enum Body<R> {
        Prim(Prim<R>),
        Union(Union<Prim<R>, Prim<R>>),
        Intersection(Intersection<Prim<R>, Prim<R>>),
        Difference(Difference<Prim<R>, Prim<R>>),
    }
}

/// The primitive (`None` when a constructor rejects it, the quaternion is
/// degenerate or the translation not finite).
pub fn prim<R: Real>(p: &PrimBody) -> Option<Prim<R>> {
    let rot = quat_rotation::<R>(&p.quat)?;
    let t = v3::<R>(&p.translation);
    if !t.iter().all(|c| c.finite()) {
        return None;
    }
    let pose = Pose::from_parts(Translation3::from(t), Rotation3::from_matrix_unchecked(rot));
    let r = |x: Num| R::lit(x.get());
    Some(match &p.prim {
        PrimIn::Sphere(rad) => Prim::Sphere(Placed::new(Sphere::new(r(*rad)).ok()?, pose)),
        PrimIn::Cuboid(h) => Prim::Cuboid(Placed::new(Cuboid::new(v3(h)).ok()?, pose)),
        PrimIn::Capsule(h, rad) => Prim::Capsule(Placed::new(Capsule::new(r(*h), r(*rad)).ok()?, pose)),
        PrimIn::Cylinder(h, rad) => Prim::Cylinder(Placed::new(Cylinder::new(r(*h), r(*rad)).ok()?, pose)),
        PrimIn::Torus(big, small) => {
            Prim::Torus(Transformed::new(Torus::new(r(*big), r(*small)).ok()?, rot, R::ONE, t).ok()?)
        }
    })
}

pub fn body<R: Real>(b: &BodyIn) -> Option<Body<R>> {
    Some(match b {
        BodyIn::Prim(p) => Body::Prim(prim(p)?),
        BodyIn::Union(p, q) => Body::Union(Union::new(prim(p)?, prim(q)?)),
        BodyIn::Intersection(p, q) => Body::Intersection(Intersection::new(prim(p)?, prim(q)?)),
        BodyIn::Difference(p, q) => Body::Difference(Difference::new(prim(p)?, prim(q)?)),
    })
}

/// The support map of a convex body (a lone `Placed` primitive).
fn convex<R: Real>(b: &Body<R>) -> Option<&dyn SupportMap<R>> {
    match b {
        Body::Prim(Prim::Sphere(p)) => Some(p),
        Body::Prim(Prim::Cuboid(p)) => Some(p),
        Body::Prim(Prim::Capsule(p)) => Some(p),
        Body::Prim(Prim::Cylinder(p)) => Some(p),
        _ => None,
    }
}

/// GJK's certified lower bound on the distance of two convex bodies
/// (`None` when not both convex or GJK does not separate them).
pub fn gjk_lower<R: Real>(a: &Body<R>, b: &Body<R>, budget: &Budget<R>) -> Option<R> {
    match gjk::distance(convex(a)?, convex(b)?, budget, &mut GjkWarmStart::default()) {
        GjkOutcome::Separated(s) => Some(s.bounds.lower),
        _ => None,
    }
}

/// The scale of a pair of bodies: [`box_scale`] of their bounding boxes.
pub fn pair_scale<R: Real>(a: &Body<R>, b: &Body<R>) -> R {
    box_scale(&[&a.bounding_box(), &b.bounding_box()])
}


encode_enum!(PrimIn { Sphere(r), Cuboid(h), Capsule(h, r), Cylinder(h, r), Torus(big, small) });
encode_struct!(PrimBody { prim, quat, translation });
encode_enum!(BodyIn { Prim(p), Union(p, q), Intersection(p, q), Difference(p, q) });

/// Seeds: a primitive of kind `k` (the order of [`PrimIn`]) of size about 1.
pub fn seed_prim_in(k: usize, rng: &mut Rng) -> PrimIn {
    let mut s = || Num::of(rng.pick(&[0.25, 0.5, 1.0, 1.5]));
    match k % 5 {
        0 => PrimIn::Sphere(s()),
        1 => PrimIn::Cuboid([s(), s(), s()]),
        2 => PrimIn::Capsule(s(), s()),
        3 => PrimIn::Cylinder(s(), s()),
        _ => PrimIn::Torus(Num::of(1.0), s()),
    }
}

/// Seeds: a quaternion (none, or one of a few rotations).
pub fn seed_quat(rng: &mut Rng) -> Option<[Num; 4]> {
    match rng.below(3) {
        0 => None,
        1 => Some(nums([0.9, 0.3, 0.0, 0.3])),
        _ => Some(nums([0.5, -0.5, 0.5, rng.pick(&[0.5, 0.25])])),
    }
}

/// Seeds: a translation within a few units of the origin.
pub fn seed_translation(rng: &mut Rng) -> [Num; 3] {
    let mut c = || rng.pick(&[0.0, 0.5, 1.0, 1.5, 2.5, -1.0]);
    nums([c(), c(), c()])
}

/// Seeds: a body of kind `k`: the primitive `k % 5`, alone (`k / 5 = 0`) or
/// in the CSG pair `k / 5` (union, intersection, difference).
pub fn seed_body_in(k: usize, rng: &mut Rng) -> BodyIn {
    let mut p = |k: usize| PrimBody { prim: seed_prim_in(k, rng), quat: seed_quat(rng), translation: seed_translation(rng) };
    match (k / 5) % 4 {
        0 => BodyIn::Prim(p(k)),
        1 => BodyIn::Union(p(k), p(k + 1)),
        2 => BodyIn::Intersection(p(k), p(k + 2)),
        _ => BodyIn::Difference(p(k), p(k + 3)),
    }
}
