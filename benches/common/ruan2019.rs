//! The bodies, inscribed meshes and random poses of Ruan et al. (ICRA 2019,
//! §V, Table II), shared by `benches/minkowski.rs` (timing) and
//! `examples/accuracy_table.rs` (the accuracy table), so that both run the
//! same experiment.
//!
//! Meshes are inscribed polytopes: the radial projections onto the surface
//! of evenly spread directions (Fibonacci sphere in 3D, uniform angles in
//! 2D), hulled by `narrowphase::hull::quickhull`. 2D bodies go through the 3D
//! GJK as prisms of equal height (two prisms intersect iff their
//! cross-sections do).

use nalgebra::{Matrix3, Point3, Rotation2, Rotation3, Translation2, Translation3, UnitQuaternion, Vector2, Vector3};
use narrowphase::hull::{quickhull, OwnedPolytope};
use narrowphase::math::Pose2;
use narrowphase::prelude::*;
use narrowphase::shape::{Superellipse, Superquadric};
use rand::Rng;

/// Superquadric (3D) of the experiments: semi-axes and exponents.
pub const SQ_AXES: [f64; 3] = [1.5, 1.0, 0.8];
pub const SQ_EPS: (f64, f64) = (0.4, 1.3);
/// First ellipsoid of the E–E cases (same semi-axes as the superquadric).
pub const EA_AXES: [f64; 3] = SQ_AXES;
/// The moving ellipsoid.
pub const EB_AXES: [f64; 3] = [1.2, 0.7, 0.5];
/// 2D: superellipse, first ellipse, moving ellipse.
pub const SE_AXES: [f64; 2] = [1.5, 1.0];
pub const SE_EPS: f64 = 0.5;
pub const E2A_AXES: [f64; 2] = SE_AXES;
pub const E2B_AXES: [f64; 2] = [1.2, 0.6];
/// Half-height of the 2D prisms.
const PRISM: f64 = 1.0;

/// `n` evenly spread unit directions (Fibonacci sphere).
fn fibonacci(n: usize) -> Vec<Vector3<f64>> {
    let golden = std::f64::consts::PI * (3.0 - 5.0_f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let t = golden * i as f64;
            Vector3::new(r * t.cos(), r * t.sin(), z)
        })
        .collect()
}

/// Inscribed 3D mesh of `n` vertices: directions projected radially onto the
/// surface.
pub fn mesh3(sq: &Superquadric<f64>, n: usize) -> OwnedPolytope<f64> {
    let pts: Vec<Point3<f64>> = fibonacci(n).iter().map(|d| Point3::from(d / sq.gauge(d))).collect();
    quickhull(&pts).expect("hull")
}

/// Inscribed 2D mesh of `n` vertices as a prism: uniform angles projected
/// onto the curve.
pub fn mesh2(se: &Superellipse<f64>, n: usize) -> OwnedPolytope<f64> {
    let mut pts = Vec::with_capacity(2 * n);
    for i in 0..n {
        let t = std::f64::consts::TAU * i as f64 / n as f64;
        let d = Vector2::new(t.cos(), t.sin());
        let p = d / se.gauge(&d);
        pts.push(Point3::new(p.x, p.y, PRISM));
        pts.push(Point3::new(p.x, p.y, -PRISM));
    }
    quickhull(&pts).expect("hull")
}

/// An exact elliptic prism of semi-axes `b` (GJK on the support map).
pub fn ellipse_prism(b: &[f64; 2]) -> Affine<Cylinder<f64>, f64> {
    let lin = Matrix3::from_diagonal(&Vector3::new(b[0], b[1], 1.0));
    Affine::new(Cylinder::new(PRISM, 1.0).expect("cylinder"), lin, Vector3::zeros()).expect("affine")
}

/// A pose of the moving body in 3D: a random rotation (the normalised
/// quaternion of four components uniform in [−0.5, 0.5]) and a translation
/// uniform in the cube `[−l, l]³`.
pub fn pose3(rng: &mut impl Rng, l: f64) -> Pose<f64> {
    let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        rng.random::<f64>() - 0.5,
        rng.random::<f64>() - 0.5,
        rng.random::<f64>() - 0.5,
        rng.random::<f64>() - 0.5,
    ));
    let t = Vector3::new(rng.random_range(-l..l), rng.random_range(-l..l), rng.random_range(-l..l));
    Pose::from_parts(Translation3::from(t), Rotation3::from(q))
}

/// A pose of the moving body in 2D (uniform angle, translation uniform in
/// `[−l, l]²`), and the same pose for its prism in 3D.
pub fn pose2(rng: &mut impl Rng, l: f64) -> (Pose2<f64>, Pose<f64>) {
    let ang = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
    let t = Vector2::new(rng.random_range(-l..l), rng.random_range(-l..l));
    (
        Pose2::from_parts(Translation2::from(t), Rotation2::new(ang)),
        Pose::from_parts(Translation3::new(t.x, t.y, 0.0), Rotation3::from_axis_angle(&Vector3::z_axis(), ang)),
    )
}
