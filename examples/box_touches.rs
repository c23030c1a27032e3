//! Two boxes touching exactly, queried in `f32` at tolerance 0: how often
//! the separating axes answer (one step) and how often the answer is
//! contact or undetermined, over random turns; and, for every contact the
//! separating axes claim, the true distance of the rounded pose in `f64`.
//!
//! `cargo run --release --features std --example box_touches -- [POSES] [SEED]`
//!
//! The boxes are the firmware sweeps' (half-extents 0.10 × 0.15 × 0.05 and
//! 0.12 × 0.08 × 0.10). Each pose turns both at random, places B along a
//! random direction, and slides it along the `f64` GJK normal onto A; the
//! `f32` query then sees the pose rounded, within a rounding of touching
//! either way. The truth of a claimed contact is plain GJK in `f64` on the
//! rounded boxes, seen through their support functions only.

use nalgebra::{Point3, Rotation3, Translation3, Unit, Vector3};
use narrowphase::prelude::*;
use rand::{Rng, SeedableRng};

/// A body seen through its support function only (no closed form).
struct SupportOnly<'s, S>(&'s S);

impl<S: SupportMap<f64>> SupportMap<f64> for SupportOnly<'_, S> {
    fn support(&self, dir: &Vector3<f64>) -> Point3<f64> {
        self.0.support(dir)
    }
    fn center(&self) -> Point3<f64> {
        self.0.center()
    }
}

fn unit(g: &mut impl Rng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(g.random_range(-1.0..1.0), g.random_range(-1.0..1.0), g.random_range(-1.0..1.0));
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

fn cuboid<R: narrowphase::math::Real>(half: Vector3<R>, t: Vector3<R>, r: Rotation3<R>) -> Placed<Cuboid<R>, R> {
    Placed::new(Cuboid::new(half).expect("positive half-extents"), Pose::from_parts(Translation3::from(t), r))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let poses: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(7);
    let mut g = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (ha, hb) = (Vector3::new(0.10_f32, 0.15, 0.05), Vector3::new(0.12_f32, 0.08, 0.10));
    let (ha64, hb64): (Vector3<f64>, Vector3<f64>) = (nalgebra::convert(ha), nalgebra::convert(hb));
    let rounding = 16.0 * f64::from(f32::EPSILON);
    let exact = Budget::<f32>::new(64, 0.0);
    let (mut touches, mut one_step, mut contact, mut undetermined, mut apart) = (0, 0, 0, 0, 0);
    let mut worst = 0.0_f64;
    for _ in 0..poses {
        let turn = |g: &mut rand_chacha::ChaCha8Rng| {
            Rotation3::from_axis_angle(&Unit::new_normalize(unit(g)), g.random_range(0.0..std::f64::consts::TAU))
        };
        let (ra, rb) = (turn(&mut g), turn(&mut g));
        let mut t = unit(&mut g) * 0.5;
        let (a, b) = (cuboid(ha64, Vector3::zeros(), ra), cuboid(hb64, t, rb));
        let fine = Budget::new(256, 1e-14);
        let GjkOutcome::Separated(s) = gjk::distance(&a, &b, &fine, &mut GjkWarmStart::default()) else { continue };
        t -= s.witness.normal * s.distance;
        // The pose as `f32` sees it, and the same boxes exactly in `f64`.
        let (ra32, rb32, t32): (Rotation3<f32>, Rotation3<f32>, Vector3<f32>) =
            (nalgebra::convert(ra), nalgebra::convert(rb), nalgebra::convert(t));
        let (a32, b32) = (cuboid(ha, Vector3::zeros(), ra32), cuboid(hb, t32, rb32));
        let mut cache = GjkWarmStart::default();
        let out = gjk::distance(&a32, &b32, &exact, &mut cache);
        touches += 1;
        match out {
            GjkOutcome::Penetrating(_) => contact += 1,
            GjkOutcome::Separated(_) => apart += 1,
            GjkOutcome::Undetermined { .. } => undetermined += 1,
        }
        if cache.iterations == 1 {
            one_step += 1;
            if out.is_penetrating() == Some(true) {
                let a = cuboid(ha64, Vector3::zeros(), nalgebra::convert(ra32));
                let b = cuboid(hb64, nalgebra::convert(t32), nalgebra::convert(rb32));
                let truth = gjk::distance(&SupportOnly(&a), &SupportOnly(&b), &fine, &mut GjkWarmStart::default());
                if let GjkOutcome::Separated(s) = truth {
                    let scale = f64::from(t32.abs().max() + ha.sum() + hb.sum());
                    worst = worst.max(s.distance / (rounding * scale));
                }
            }
        }
    }
    println!("{touches} touches at tolerance 0 (f32), gjk::distance:");
    println!("  answered by the separating axes (one step): {one_step}");
    println!("  contact {contact}, undetermined {undetermined}, separated {apart}");
    println!("  largest true distance under a one-step contact: {worst:.4} roundings (16·ε·scale)");
}
