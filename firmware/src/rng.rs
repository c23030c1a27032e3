//! splitmix64: a tiny deterministic generator, identical on host and target.

use nalgebra::{Rotation3, UnitQuaternion, Vector3};

/// splitmix64 state.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi)` (53 random bits).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// Uniform in the cube `[-s, s)^3`.
    pub fn cube(&mut self, s: f64) -> Vector3<f64> {
        Vector3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
    }
    /// A unit vector, uniform on the sphere (rejection from the cube).
    pub fn unit(&mut self) -> Vector3<f64> {
        loop {
            let v = self.cube(1.0);
            let n2 = v.dot(&v);
            if n2 > 0.01 && n2 <= 1.0 {
                return v / libm::sqrt(n2);
            }
        }
    }
    /// A uniformly random rotation (unit quaternion from the 4-ball).
    pub fn rotation(&mut self) -> Rotation3<f64> {
        loop {
            let q = nalgebra::Quaternion::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let n2 = q.coords.dot(&q.coords);
            if n2 > 0.01 && n2 <= 1.0 {
                let q = nalgebra::Quaternion::from(q.coords / libm::sqrt(n2));
                return UnitQuaternion::new_unchecked(q).to_rotation_matrix();
            }
        }
    }
}

/// f32 versions for the measured workloads: the corpora are built on the
/// target between queries, where soft-float f64 would dominate a trace.
impl Rng {
    /// Uniform in `[lo, hi)` (24 random bits), f32.
    pub fn range32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as u32 as f32 / (1u32 << 24) as f32)
    }
    /// A unit vector, uniform on the sphere, f32.
    pub fn unit32(&mut self) -> Vector3<f32> {
        loop {
            let v = Vector3::new(self.range32(-1.0, 1.0), self.range32(-1.0, 1.0), self.range32(-1.0, 1.0));
            let n2 = v.dot(&v);
            if n2 > 0.01 && n2 <= 1.0 {
                return v / libm::sqrtf(n2);
            }
        }
    }
    /// A uniformly random rotation, f32.
    pub fn rotation32(&mut self) -> Rotation3<f32> {
        loop {
            let c = nalgebra::Vector4::new(
                self.range32(-1.0, 1.0),
                self.range32(-1.0, 1.0),
                self.range32(-1.0, 1.0),
                self.range32(-1.0, 1.0),
            );
            let n2 = c.dot(&c);
            if n2 > 0.01 && n2 <= 1.0 {
                let q = nalgebra::Quaternion::from(c / libm::sqrtf(n2));
                return UnitQuaternion::new_unchecked(q).to_rotation_matrix();
            }
        }
    }
}
