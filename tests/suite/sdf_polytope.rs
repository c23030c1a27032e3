//! The polytope SDF (the paper's Algorithm 4) on random hulls against brute
//! force over all faces:
//! - the face it climbs to is the face of Eq. 22 found by scanning every
//!   face (the ray from the interior point leaves through it), from any
//!   starting face;
//! - the plane-value ascent that follows only raises the value;
//! - the value is a lower bound of the exact SDF with the same sign; the
//!   exact SDF is `max over faces of n·x − d` inside (brute force) and GJK's
//!   point distance outside;
//! - on the polytope's surface it is exact (zero).

use crate::common::*;
use nalgebra::{Point3, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;
use narrowphase::sdf::{Sdf, SdfWarmStart};
use rand::Rng;

fn cloud(rng: &mut impl Rng, n: usize) -> Vec<Point3<f64>> {
    (0..n).map(|_| Point3::from(unit_vector(rng).component_mul(&Vector3::new(0.9, 0.6, 0.3)))).collect()
}

/// Eq. 22 by brute force: the face whose plane the ray from `c` through `x`
/// meets first (smallest positive ray parameter), as a value.
fn ray_face_value(p: &Polytope<'_, f64>, x: &Vector3<f64>) -> f64 {
    let c = p.center().coords;
    let mut best_t = f64::INFINITY;
    let mut value = f64::NAN;
    for f in p.data().faces {
        let along = f.normal.dot(&(x - c));
        if along > 0.0 {
            let t = (f.offset - f.normal.dot(&c)) / along;
            if t < best_t {
                best_t = t;
                value = f.normal.dot(x) - f.offset;
            }
        }
    }
    value
}

fn exact_sdf(p: &Polytope<'_, f64>, x: &Vector3<f64>) -> f64 {
    let planes = p.data().faces.iter().map(|f| f.normal.dot(x) - f.offset).fold(f64::NEG_INFINITY, f64::max);
    if planes <= 0.0 {
        return planes;
    }
    let point = Placed::new(Sphere::new(1e-12).unwrap(), at(x.x, x.y, x.z));
    match gjk::distance(p, &point, &Budget::new(200, 1e-12), &mut GjkWarmStart::default()) {
        GjkOutcome::Separated(s) => s.distance + 1e-12,
        other => panic!("{other:?}"),
    }
}

#[test]
fn algorithm4_matches_brute_force_and_bounds_the_exact_sdf() {
    let mut rng = rng(11);
    let (mut inside, mut inside_exact, mut worst_inside_gap, mut worst_outside_gap) = (0, 0, 0.0f64, 0.0f64);
    for n in [20, 50, 200, 500] {
        for _ in 0..4 {
            let hull = quickhull(&cloud(&mut rng, n)).unwrap();
            let p = hull.polytope().unwrap();
            let faces = p.data().faces.len();
            for _ in 0..300 {
                let x = unit_vector(&mut rng).component_mul(&Vector3::new(0.9, 0.6, 0.3)) * rng.random_range(0.0..2.0);
                let start = rng.random_range(0..faces);
                let climbed = p.sdf_face_climb(&x, start);
                let scanned = p.sdf_face_scan(&x);
                let value = |f: usize| {
                    let pl = p.data().faces[f];
                    pl.normal.dot(&x) - pl.offset
                };
                let s = p.eval_hinted(&x, &mut SdfWarmStart(start as u32));
                // Algorithm 4, then the plane-value ascent from its face.
                assert_eq!(s.value, value(p.sdf_face_refine(&x, climbed)));
                assert!(s.value >= value(climbed));
                // Same ray face (ties between faces give the same s, not
                // necessarily the same index: compare the values of Eq. 22).
                let brute = ray_face_value(&p, &x);
                assert!(
                    (value(climbed) - brute).abs() < 1e-9,
                    "climb {} scan {} brute {brute}",
                    value(climbed),
                    value(scanned)
                );
                let exact = exact_sdf(&p, &x);
                assert!(s.value <= exact + 1e-9, "bound {} above exact {exact}", s.value);
                if exact.abs() > 1e-9 {
                    assert_eq!(s.value > 0.0, exact > 0.0, "sign: {} vs {exact}", s.value);
                }
                if exact < 0.0 {
                    inside += 1;
                    if (exact - s.value).abs() < 1e-9 {
                        inside_exact += 1;
                    }
                    worst_inside_gap = worst_inside_gap.max(exact - s.value);
                } else {
                    worst_outside_gap = worst_outside_gap.max(exact - s.value);
                }
            }
            // Exact (zero) on the surface: the vertices.
            for v in p.data().vertices {
                assert!(Sdf::eval(&p, &v.coords).value.abs() < 1e-9);
            }
        }
    }
    println!(
        "Algorithm 4: inside {inside} points, equal to the exact SDF at {inside_exact} ({:.1}%), worst gap inside {worst_inside_gap:.3}, outside {worst_outside_gap:.3}",
        100.0 * inside_exact as f64 / inside as f64
    );
}

#[test]
fn the_face_hint_follows_a_moving_point() {
    let mut rng = rng(12);
    let hull = quickhull(&cloud(&mut rng, 500)).unwrap();
    let p = hull.polytope().unwrap();
    let mut hint = SdfWarmStart(0);
    for k in 0..500 {
        let t = k as f64 * 0.01;
        let x = Vector3::new(1.2 * t.cos(), 0.8 * t.sin(), 0.3 * (2.0 * t).sin());
        let warm = p.eval_hinted(&x, &mut hint);
        assert!(warm.value >= ray_face_value(&p, &x) - 1e-12);
        assert_eq!(hint.0 as usize, p.sdf_face_climb(&x, hint.0 as usize), "the hint is a fixed point");
    }
    // Out-of-range and NaN input: no panic.
    let _ = p.eval_hinted(&Vector3::new(f64::NAN, 0.0, 0.0), &mut SdfWarmStart(u32::MAX));
    assert!(p.sdf_face_climb(&Vector3::x(), usize::MAX) < p.data().faces.len());
}
