//! The pair protocol of `benches/ellipsoid_method.rs` and
//! `benches/support_family.rs` (ellipsoid-method-sdf-collision §5.1): random
//! rotations and directions, B slid along a direction to touching A, the
//! point sets of the polytope and ellipsoid workloads, and the protocol's
//! constants, so that both benches time the same instances.

use std::f64::consts::TAU;

use nalgebra::{Point3, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use rand::Rng;

/// Hulls per polytope workload.
pub const POOL: usize = 4;
/// Points of parry's stand-in for the ellipsoid (a hull of surface points).
pub const ELLIPSOID_HULL_POINTS: usize = 400;
/// Separation range in units of the mean bounding radius.
pub const S_MAX: f64 = 0.05;

/// A unit vector, uniform on the sphere (rejection sampling in the ball).
pub fn unit_vector(rng: &mut impl Rng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

/// Uniform random rotation (Shoemake, via a uniform unit quaternion).
pub fn rotation(rng: &mut impl Rng) -> Rotation3<f64> {
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let q = nalgebra::Quaternion::new(
        u1.sqrt() * (TAU * u3).cos(),
        (1.0 - u1).sqrt() * (TAU * u2).sin(),
        (1.0 - u1).sqrt() * (TAU * u2).cos(),
        u1.sqrt() * (TAU * u3).sin(),
    );
    UnitQuaternion::from_quaternion(q).to_rotation_matrix()
}

pub fn pose(t: Vector3<f64>, r: Rotation3<f64>) -> Pose<f64> {
    Pose::from_parts(Translation3::from(t), r)
}

/// N points uniform on the unit sphere, axes scaled 3:2:1 (largest 1).
pub fn polytope_points(rng: &mut impl Rng, n: usize) -> Vec<Point3<f64>> {
    let scale = Vector3::new(1.0, 2.0 / 3.0, 1.0 / 3.0);
    (0..n).map(|_| Point3::from(unit_vector(rng).component_mul(&scale))).collect()
}

/// Fibonacci points on the ellipsoid surface (parry's stand-in).
pub fn ellipsoid_points(semi: Vector3<f64>, n: usize) -> Vec<Point3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5.0_f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let th = golden * i as f64;
            Point3::from(Vector3::new(r * th.cos(), r * th.sin(), z).component_mul(&semi))
        })
        .collect()
}

/// Indices of a pair drawn from pools of `na` (A) and `nb` (B) bodies; B's
/// index differs from A's when B's pool has more than one body.
pub fn pick(rng: &mut impl Rng, na: usize, nb: usize) -> (usize, usize) {
    let ia = rng.random_range(0..na);
    let mut ib = rng.random_range(0..nb);
    if nb > 1 && ib == ia {
        ib = (ib + 1) % nb;
    }
    (ia, ib)
}

/// The translation `t` along the unit vector `u` at which `b`, rotated by
/// `rot_b` and placed at A's origin + `u·t`, touches `a`: 60 bisection steps
/// on our f64 GJK between 0 (local origins together: overlap) and the
/// support-plane offset (projections on `u` just touch: apart). An
/// undetermined answer counts as overlap; the flag says whether one came.
pub fn touching<SA, SB>(a: &Placed<SA, f64>, b: SB, rot_b: Rotation3<f64>, u: Vector3<f64>) -> (f64, bool)
where
    SA: SupportMap<f64>,
    SB: SupportMap<f64> + Copy,
{
    let o = a.pose().translation.vector;
    let b_at = |t: f64| Placed::new(b, pose(o + u * t, rot_b));
    let h_a = u.dot(&(a.support(&u).coords - o));
    let h_b = -u.dot(&(b_at(0.0).support(&-u).coords - o));
    let (mut lo, mut hi) = (0.0, h_a + h_b);
    let budget = Budget::default();
    let mut shaky = false;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        match gjk::intersect(a, &b_at(mid), &budget, &mut GjkWarmStart::default()).is_penetrating() {
            Some(true) => lo = mid,
            Some(false) => hi = mid,
            None => {
                shaky = true;
                lo = mid
            }
        }
    }
    (0.5 * (lo + hi), shaky)
}
