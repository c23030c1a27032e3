//! The paper's §5.1 protocol as a convergence test: box, rounded box, cone,
//! ellipsoid and random polyhedra of 50/200/500/1000 points scaled 3:2:1,
//! pairs of the same type, random rotations, a random direction `u`, B slid
//! along `u` to touching (bisection on GJK) and then by `s·R̄`,
//! `s ∈ [−0.05, 0.05]`, `R̄` the mean bounding radius.
//!
//! Every instance must reach the tolerance inside the cap (the paper reports
//! no failure; so must we), and the collision flag must equal GJK's even for
//! the approximate SDFs (ellipsoid, polytopes): the R-function property.
//! The iteration histograms are printed.

use crate::common::*;
use nalgebra::{Translation3, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart};
use narrowphase::sdf::Sdf;
use rand::Rng;

/// One instance: (A, B, s·R̄).
type Instance<S> = (Placed<S, f64>, Placed<S, f64>, f64);

/// Instances of one workload.
fn instances<S: SupportMap<f64> + Sdf<f64, 3> + Copy>(shape: S, count: usize, seed: u64) -> Vec<Instance<S>> {
    let mut rng = rng(seed);
    let r = shape.bounding_ball().radius;
    (0..count)
        .map(|_| {
            let a = Placed::new(shape, Pose::from_parts(Translation3::identity(), rotation(&mut rng)));
            let rb = rotation(&mut rng);
            let u = unit_vector(&mut rng);
            let at = |t: f64| Placed::new(shape, Pose::from_parts(Translation3::from(u * t), rb));
            let hits = |t: f64| {
                matches!(
                    gjk::intersect(&a, &at(t), &Budget::new(200, 1e-12), &mut GjkWarmStart::default()),
                    GjkOutcome::Penetrating(_)
                )
            };
            let (mut lo, mut hi) = (0.0, 2.0 * r + 1.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if hits(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let s = rng.random_range(-0.05..0.05) * r;
            (a, at(hi + s), s)
        })
        .collect()
}

fn histogram(iters: &[u32]) -> String {
    let edges = [8, 16, 32, 64, 128, 256, 512];
    let mut counts = [0usize; 8];
    for &i in iters {
        counts[edges.iter().position(|&e| i < e).unwrap_or(7)] += 1;
    }
    let mean = iters.iter().map(|&i| i as f64).sum::<f64>() / iters.len() as f64;
    let max = iters.iter().max().copied().unwrap_or(0);
    format!(
        "mean {mean:.1}, max {max}, <8:{} <16:{} <32:{} <64:{} <128:{} <256:{} <512:{} more:{}",
        counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7]
    )
}

fn workload<S: SupportMap<f64> + Sdf<f64, 3> + Copy>(name: &str, shape: S, count: usize, seed: u64) {
    let cases = instances(shape, count, seed);
    let (mut hit_iters, mut dist_iters) = (Vec::new(), Vec::new());
    for (i, (a, b, s)) in cases.iter().enumerate() {
        let hit = EllipsoidMethod::collision().solve(a, b, &mut EllipsoidWarmStart::default());
        let dist = EllipsoidMethod::distance().solve(a, b, &mut EllipsoidWarmStart::default());
        for out in [&hit, &dist] {
            if let EllipsoidMethodOutcome::Undetermined { .. } = out {
                panic!("{name} instance {i} (s = {s}): {out:?}");
            }
        }
        hit_iters.push(hit.contact().map_or(0, |c| c.iterations));
        dist_iters.push(dist.contact().map_or(0, |c| c.iterations));
        if s.abs() > 1e-6 {
            let gjk = gjk::intersect(a, b, &Budget::new(200, 1e-12), &mut GjkWarmStart::default());
            let truth = matches!(gjk, GjkOutcome::Penetrating(_));
            assert_eq!(hit.is_penetrating(), Some(truth), "{name} instance {i}: s = {s}");
            assert_eq!(dist.is_penetrating(), Some(truth), "{name} instance {i}: s = {s}");
        }
    }
    println!("{name:>12} collision: {}", histogram(&hit_iters));
    println!("{name:>12} distance:  {}", histogram(&dist_iters));
}

#[test]
fn paper_protocol_converges_everywhere_with_exact_flags() {
    let n = 150;
    workload("box", Cuboid::new(Vector3::new(1.5, 1.0, 0.5)).unwrap(), n, 1);
    workload(
        "rounded box",
        MinkowskiSum::new(Cuboid::new(Vector3::new(1.3, 0.8, 0.3)).unwrap(), Sphere::new(0.2).unwrap()),
        n,
        2,
    );
    workload("cone", Cone::new(1.0, 0.6).unwrap(), n, 3);
    workload("ellipsoid", Ellipsoid::new(Vector3::new(1.5, 1.0, 0.5)).unwrap(), n, 4);
    let mut rng = rng(5);
    for points in [50, 200, 500, 1000] {
        let cloud: Vec<_> = (0..points)
            .map(|_| nalgebra::Point3::from(unit_vector(&mut rng).component_mul(&Vector3::new(1.5, 1.0, 0.5))))
            .collect();
        let hull = quickhull(&cloud).unwrap();
        let p = hull.polytope().unwrap();
        workload(&format!("poly{points}"), p, n, 10 + points as u64);
    }
}
