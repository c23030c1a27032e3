//! Shared helpers for the integration tests: seeded randomness and poses.
#![allow(dead_code)]

use nalgebra::{Rotation3, Translation3, Unit, Vector3};
use narrowphase::shape::Pose;
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
