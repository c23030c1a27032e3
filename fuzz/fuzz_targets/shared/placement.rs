//! Placement invariance: the support-family queries compute in a frame
//! local to the pair (`support::frame`: both bodies seen from A's centre),
//! so an answer depends on the relative placement only. The oracle moves
//! both bodies by one offset `T` and asks that the moved pair never get a
//! certain answer that contradicts the unmoved one.
//!
//! The band. A moved translation `t + T` is rounded to `R`: each coordinate
//! of magnitude up to `ρ` (the largest moved coordinate) carries half an
//! ulp, at most `ε·ρ/2`. The relative translation `t_b − t_a` therefore
//! moves by up to `ε·ρ` per coordinate, `√3·ε·ρ` in length, and the distance
//! (1-Lipschitz in the relative translation) by as much: `2·ε·ρ` covers it.
//! The frame origin (A's centre, rounded the same way) is subtracted from
//! both bodies alike and does not change the relative placement. On top of
//! that each answer carries its own threshold, `tolerance · scale` plus the
//! rounding of its support values, with `scale` the size of the pair in its
//! own frame, never `|T|`: that is `bodies::slack` at [`pair_size`].

use arbitrary::Arbitrary;
use nalgebra::{Translation3, Vector3};
use narrowphase::prelude::*;

use super::bodies::{rigid, slack};

/// An offset of the whole scene: `10^k` along a direction from the input.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Offset {
    pub direction: [i8; 3],
    pub exponent: u8,
}

impl Offset {
    /// `T = 10^k · s/|s|` with `k = exponent % (K + 1)`: `K = 4` in f32
    /// (up to 1e4, where an f32 coordinate's ulp is 1e-3), `K = 8` in f64
    /// (up to 1e8, ulp 1.5e-8). `None` for the zero direction.
    pub fn vector<R: Real>(&self) -> Option<Vector3<R>> {
        let s = Vector3::from(self.direction.map(|x| x as f64));
        let n = s.norm();
        if n == 0.0 {
            return None;
        }
        let k_max = if R::EPSILON.to_f64() > 1e-10 { 4 } else { 8 };
        let k = (self.exponent % (k_max + 1)) as i32;
        Some((s * (10f64.powi(k) / n)).map(R::lit))
    }
}

/// `p` moved by `t` (the translation rounded to `R`, the rotation as it is).
pub fn moved<R: Real>(p: &Pose<R>, t: &Vector3<R>) -> Pose<R> {
    Pose::from_parts(Translation3::from(p.translation.vector + t), p.rotation)
}

/// The size of the pair in its own frame, from the bounding spheres:
/// `|c_a − c_b| + 2·(r_a + r_b)` bounds every support coordinate a query
/// sees from A's centre (A's centre lies in A's ball). `None` when not
/// finite.
pub fn pair_size<R: Real>(a: &(impl Bounded<R> + ?Sized), b: &(impl Bounded<R> + ?Sized)) -> Option<f64> {
    let (ca, ra) = a.bounding_sphere();
    let (cb, rb) = b.bounding_sphere();
    let d = (ca.coords.map(|x| x.to_f64()) - cb.coords.map(|x| x.to_f64())).norm();
    let s = d + 2.0 * (ra.to_f64() + rb.to_f64());
    s.is_finite().then_some(s)
}

/// The band within which answers about the pair and about the pair moved to
/// `moved` may disagree: the rounding of the moved translations (`2·ε·ρ`)
/// plus each answer's threshold at the pair's size. `None` when a moved
/// pose is not finite.
pub fn band<R: Real>(tolerance: R, size: f64, moved: [&Pose<R>; 2]) -> Option<f64> {
    if !moved.iter().all(|p| rigid(p)) {
        return None;
    }
    let rho = moved.iter().flat_map(|p| p.translation.vector.iter().map(|x| x.to_f64().abs())).fold(0.0, f64::max);
    Some(2.0 * R::EPSILON.to_f64() * rho + slack(tolerance, size))
}

super::seeds::encode_struct!(Offset { direction, exponent });
