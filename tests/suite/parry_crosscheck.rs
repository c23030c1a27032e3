//! Cross-check against parry3d (an independent GJK/EPA implementation) on
//! random primitive pairs: the same collision boolean outside a tolerance band
//! around contact, and the same distance within the stated tolerance.
//!
//! parry3d is f32 with glam types and puts the axis of capsules, cylinders and
//! cones on +y; ours is on +z, so parry's shapes get an extra rotation of +90°
//! about x (which maps +y to +z).

use crate::common::*;
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use parry3d::math::{Pose as PPose, Rot3, Vector as PVec};
use parry3d::shape as ps;
use rand::Rng;

fn parry_pose(p: &Pose<f64>, y_to_z: bool) -> PPose {
    let mut rot = p.rotation;
    if y_to_z {
        rot *= Rotation3::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2);
    }
    let q = UnitQuaternion::from_rotation_matrix(&rot);
    let t = p.translation.vector;
    PPose::from_parts(
        PVec::new(t.x as f32, t.y as f32, t.z as f32),
        Rot3::from_xyzw(q.i as f32, q.j as f32, q.k as f32, q.w as f32),
    )
}

struct Pair {
    ours: Box<dyn SupportMap<f32>>,
    parry: Box<dyn ps::Shape>,
    pose: PPose,
}

fn random_shape(rng: &mut impl Rng, pose: Pose<f64>) -> Pair {
    let mut s = || rng.random_range(0.1..1.5_f32);
    let pf = pose_f32(&pose);
    match (s() * 10.0) as u32 % 5 {
        0 => {
            let r = s();
            Pair {
                ours: Box::new(Placed::new(Sphere::new(r).unwrap(), pf)),
                parry: Box::new(ps::Ball::new(r)),
                pose: parry_pose(&pose, false),
            }
        }
        1 => {
            let h = Vector3::new(s(), s(), s());
            Pair {
                ours: Box::new(Placed::new(Cuboid::new(h).unwrap(), pf)),
                parry: Box::new(ps::Cuboid::new(PVec::new(h.x, h.y, h.z))),
                pose: parry_pose(&pose, false),
            }
        }
        2 => {
            let (h, r) = (s(), s());
            Pair {
                ours: Box::new(Placed::new(Capsule::new(h, r).unwrap(), pf)),
                parry: Box::new(ps::Capsule::new_y(h, r)),
                pose: parry_pose(&pose, true),
            }
        }
        3 => {
            let (h, r) = (s(), s());
            Pair {
                ours: Box::new(Placed::new(Cylinder::new(h, r).unwrap(), pf)),
                parry: Box::new(ps::Cylinder::new(h, r)),
                pose: parry_pose(&pose, true),
            }
        }
        _ => {
            let (h, r) = (s(), s());
            Pair {
                ours: Box::new(Placed::new(Cone::new(h, r).unwrap(), pf)),
                parry: Box::new(ps::Cone::new(h, r)),
                pose: parry_pose(&pose, true),
            }
        }
    }
}

/// `p` lies in the convex body (within 1e-4) by its support planes in 4000
/// directions spread on the sphere (Fibonacci lattice).
fn inside(shape: &dyn SupportMap<f32>, p: &nalgebra::Point3<f32>) -> bool {
    let n = 4000;
    (0..n).all(|k| {
        let z = 1.0 - 2.0 * (k as f64 + 0.5) / n as f64;
        let phi = k as f64 * 2.399963229728653;
        let r = (1.0 - z * z).sqrt();
        let d = Vector3::new((r * phi.cos()) as f32, (r * phi.sin()) as f32, z as f32);
        d.dot(&p.coords) <= d.dot(&shape.support(&d).coords) + 1e-4
    })
}

#[test]
fn distance_and_boolean_agree_with_parry3d() {
    let mut rng = rng(21);
    let band = 2e-3_f32; // f32 on shapes of size ~1 at distances ~3 from the origin
    let (mut compared, mut separated, mut intersecting) = (0, 0, 0);
    let mut worst = 0.0_f32;
    let (mut parry_looser, mut worst_parry) = (0, 0.0_f32);
    for i in 0..3000 {
        let (pa, pb) = (pose(&mut rng, 2.0), pose(&mut rng, 2.0));
        let a = random_shape(&mut rng, pa);
        let b = random_shape(&mut rng, pb);
        let theirs = parry3d::query::distance(&a.pose, &*a.parry, &b.pose, &*b.parry).unwrap().distance;
        let ours = gjk::distance(&*a.ours, &*b.ours, &Budget::default(), &mut GjkWarmStart::default());
        match ours {
            GjkOutcome::Separated(s) => {
                assert!(theirs > -band, "#{i}: ours separated {}, parry {theirs}", s.distance);
                if (s.distance - theirs).abs() >= band {
                    // Settle the disagreement independently of both GJKs: our
                    // witness points must lie in their bodies (checked against
                    // the support planes in many directions), which makes
                    // our distance an attained one, so a larger parry value is
                    // parry's inaccuracy. A smaller parry value is always ours.
                    assert!(s.distance < theirs, "#{i}: ours {} > parry {theirs}", s.distance);
                    assert!(
                        inside(&*a.ours, &s.witness.point_a) && inside(&*b.ours, &s.witness.point_b),
                        "#{i}: witness outside"
                    );
                    parry_looser += 1;
                    worst_parry = worst_parry.max(theirs - s.distance);
                } else {
                    worst = worst.max((s.distance - theirs).abs());
                }
                separated += 1;
            }
            GjkOutcome::Penetrating(_) => {
                assert!(theirs < band, "#{i}: ours intersecting, parry {theirs}");
                intersecting += 1;
            }
            GjkOutcome::Undetermined { reason, bounds } => {
                // Allowed only inside the band, and the bounds must hold parry's answer.
                assert!(theirs < band, "#{i}: undetermined {reason:?} {bounds:?}, parry {theirs}");
            }
        }
        compared += 1;
    }
    println!(
        "compared {compared}: {separated} separated, {intersecting} intersecting, worst |Δd| = {worst:e}; \
         parry above our attained distance by > {band} in {parry_looser} pairs (worst {worst_parry:e})"
    );
    assert!(parry_looser * 50 < compared, "too many disagreements: {parry_looser}");
    assert!(separated > 500 && intersecting > 500);
}
