//! Shared helpers for the integration tests: seeded randomness and poses.
#![allow(dead_code)]

use nalgebra::{Point3, Rotation3, Translation3, Unit, Vector3};
use narrowphase::math::Pose;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn unit_vector(rng: &mut impl Rng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

pub fn rotation(rng: &mut impl Rng) -> Rotation3<f64> {
    let axis = Unit::new_normalize(unit_vector(rng));
    Rotation3::from_axis_angle(&axis, rng.random_range(0.0..std::f64::consts::TAU))
}

pub fn pose(rng: &mut impl Rng, spread: f64) -> Pose<f64> {
    let t = Vector3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Pose::from_parts(Translation3::from(t), rotation(rng))
}

pub fn pose_f32(p: &Pose<f64>) -> Pose<f32> {
    nalgebra::convert(*p)
}

pub fn at(x: f64, y: f64, z: f64) -> Pose<f64> {
    Pose::from_parts(Translation3::new(x, y, z), Rotation3::identity())
}

/// Distance from a point to a segment (clamped projection).
pub fn point_segment(p: &Point3<f64>, a: &Point3<f64>, b: &Point3<f64>) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
    (p - (a + ab * t)).norm()
}

/// Exact segment–segment distance: the four endpoint-to-segment cases plus
/// the interior critical point of the two lines when it lies inside both.
pub fn segment_segment(a0: &Point3<f64>, a1: &Point3<f64>, b0: &Point3<f64>, b1: &Point3<f64>) -> f64 {
    let mut best = point_segment(a0, b0, b1)
        .min(point_segment(a1, b0, b1))
        .min(point_segment(b0, a0, a1))
        .min(point_segment(b1, a0, a1));
    let (u, v, w) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, b, c, d, e) = (u.dot(&u), u.dot(&v), v.dot(&v), u.dot(&w), v.dot(&w));
    let den = a * c - b * b;
    if den > 1e-14 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(((a0 + u * s) - (b0 + v * t)).norm());
        }
    }
    best
}

/// The budget at the precision's own limit (64 iterations, relative
/// tolerance `1000·ε`), for tests that probe the arithmetic itself; the
/// default budget stops at `1e-9` in f64.
#[allow(dead_code)]
pub fn precise<R: narrowphase::math::Real>() -> narrowphase::query::Budget<R> {
    narrowphase::query::Budget::new(64, R::EPSILON * R::lit(1000.0))
}

/// A body seen through its support function alone (no margin, no core
/// primitive): the queries run plain GJK (and EPA) on it, never a closed
/// form, which makes it an independent reference for the closed forms.
pub struct SupportOnly<'s, R: narrowphase::math::Real>(pub &'s dyn narrowphase::prelude::SupportMap<R>);

impl<R: narrowphase::math::Real> narrowphase::prelude::SupportMap<R> for SupportOnly<'_, R> {
    fn support(&self, dir: &Vector3<R>) -> Point3<R> {
        self.0.support(dir)
    }
    fn center(&self) -> Point3<R> {
        self.0.center()
    }
}
