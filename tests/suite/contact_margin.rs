//! `contact` on sphere-swept bodies (spheres, capsules, rounded boxes) takes
//! the margin path: GJK on the cores, margins in closed form. Checked against
//! closed forms in the penetrating regime, where EPA on round surfaces used
//! to hit its iteration cap with the default budget.

use crate::common::*;
use nalgebra::{Point3, Vector3};
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use rand::Rng;

fn check(out: Proximity<f64>, truth: f64, label: &str) {
    let band = 1e-9;
    match out {
        Proximity::Separated(s) => {
            assert!((s.distance - truth).abs() < band, "{label}: {} vs {truth}", s.distance);
            assert!(s.bounds.lower > 0.0 && s.bounds.lower <= truth + band && truth <= s.bounds.upper + band);
            let w = s.witness;
            assert!(((w.point_b - w.point_a) - w.normal * s.distance).norm() < 1e-7, "{label}: witness");
        }
        Proximity::Penetrating(p) => {
            assert!((-p.depth - truth).abs() < band, "{label}: depth {} vs {}", p.depth, -truth);
            assert!(p.bounds.lower <= -truth + band && -truth <= p.bounds.upper + band, "{label}: {:?}", p.bounds);
            let w = p.witness;
            assert!(((w.point_a - w.point_b) - w.normal * p.depth).norm() < 1e-7, "{label}: witness");
        }
        Proximity::Undetermined { reason, bounds } => panic!("{label}: {reason:?} {bounds:?} truth {truth}"),
    }
}

#[test]
fn capsules_spheres_and_rounded_boxes_with_the_default_budget() {
    let mut rng = rng(41);
    let mut penetrating = 0;
    for i in 0..1500 {
        let (h1, r1, h2, r2) = (
            rng.random_range(0.1..2.0),
            rng.random_range(0.05..1.0),
            rng.random_range(0.1..2.0),
            rng.random_range(0.05..1.0),
        );
        let (pa, pb) = (pose(&mut rng, 2.0), pose(&mut rng, 2.0));
        let end = |p: &Pose<f64>, h: f64, s: f64| p.transform_point(&Point3::new(0.0, 0.0, s * h));
        let seg = segment_segment(&end(&pa, h1, -1.0), &end(&pa, h1, 1.0), &end(&pb, h2, -1.0), &end(&pb, h2, 1.0));
        // Cores that overlap go to EPA on the full bodies: skip those (EPA's own tests cover them).
        if seg < 1e-6 {
            continue;
        }
        let a = Placed::new(Capsule::new(h1, r1).unwrap(), pa);
        let b = Placed::new(Capsule::new(h2, r2).unwrap(), pb);
        let truth = seg - r1 - r2;
        penetrating += (truth < 0.0) as usize;
        check(contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()), truth, &format!("capsules #{i}"));
        // A sphere against the capsule.
        let s = Placed::new(Sphere::new(r2).unwrap(), pb);
        let c = pb.translation.vector;
        let truth = point_segment(&c.into(), &end(&pa, h1, -1.0), &end(&pa, h1, 1.0)) - r1 - r2;
        if truth + r1 + r2 > 1e-6 {
            check(
                contact(&a, &s, &Budget::default(), &mut GjkWarmStart::default()),
                truth,
                &format!("capsule-sphere #{i}"),
            );
        }
    }
    assert!(penetrating > 300, "{penetrating}");
}

#[test]
fn rounded_box_against_sphere_and_f32() {
    let mut rng = rng(42);
    for i in 0..1000 {
        let half = Vector3::new(rng.random_range(0.1..1.0), rng.random_range(0.1..1.0), rng.random_range(0.1..1.0));
        let (round, r) = (rng.random_range(0.01..0.3), rng.random_range(0.05..0.5));
        let pa = pose(&mut rng, 1.5);
        let pb = pose(&mut rng, 1.5);
        let q = pa.inverse_transform_point(&Point3::from(pb.translation.vector));
        let clamped = Vector3::new(q.x.clamp(-half.x, half.x), q.y.clamp(-half.y, half.y), q.z.clamp(-half.z, half.z));
        let core = (q.coords - clamped).norm();
        if core < 1e-6 {
            continue; // centre inside the core box: EPA's domain
        }
        let truth = core - round - r;
        let a = Placed::new(Rounded::new(Cuboid::new(half).unwrap(), Sphere::new(round).unwrap()), pa);
        let b = Placed::new(Sphere::new(r).unwrap(), pb);
        check(contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()), truth, &format!("rounded box #{i}"));
        // f32: same answer within f32 tolerance, and never undetermined.
        let a32 = Placed::new(
            Rounded::new(Cuboid::new(half.cast::<f32>()).unwrap(), Sphere::new(round as f32).unwrap()),
            pose_f32(&pa),
        );
        let b32 = Placed::new(Sphere::new(r as f32).unwrap(), pose_f32(&pb));
        let d = contact(&a32, &b32, &Budget::default(), &mut GjkWarmStart::default()).signed_distance();
        let d = d.unwrap_or_else(|| panic!("#{i}: f32 undetermined"));
        assert!((d as f64 - truth).abs() < 2e-3, "#{i}: f32 {d} vs {truth}");
    }
}
