//! The SDFs of the primitives against an independent reference: for a convex
//! body with support function `h`, the signed distance is
//! `φ(x) = max over unit n of (n·x − h(n))`, inside and outside. In 3D the
//! reference is the support family's code on the shapes' *support maps*:
//! GJK's distance from the point outside, EPA's depth of the point inside.
//! In 2D it maximises over the circle of directions (sampling, then a
//! one-dimensional search).
//!
//! Exact SDFs must match it; lower bounds must stay below it with the same
//! sign. Every SDF's linearisation must bound the reference from below
//! (`φ(x) + g·(y − x) ≤ φ_ref(y)`): the cutting-plane property the ellipsoid
//! method relies on.

use crate::common;

use crate::common::{pose, rng, unit_vector};
use nalgebra::{Point3, SVector, Vector2, Vector3};
use narrowphase::math::Pose;
use narrowphase::prelude::{Budget, GjkOutcome, GjkWarmStart, Proximity};
use narrowphase::sdf::{BoxN, CappedCone, Sdf, SdfAccuracy, Transformed};
use narrowphase::shape::{
    Affine, Capsule, Cone, Cuboid, Cylinder, Ellipsoid, MinkowskiSum, Placed, Sphere, SupportMap,
};
use narrowphase::support::{epa::Epa, gjk};
use rand::Rng;

/// The signed distance from `x` to a convex body by the support family:
/// GJK's distance to a point outside, EPA's depth of a point inside (a large
/// EPA workspace and a tight tolerance). Returns certified bounds
/// `(lower, upper)` on the signed distance (EPA converges slowly on round
/// surfaces; its bounds are still valid when it stops at the cap).
fn reference_3d(body: &dyn SupportMap<f64>, x: &Vector3<f64>) -> (f64, f64) {
    let r = 1e-12;
    let point = Placed::new(Sphere::new(r).unwrap(), common::at(x.x, x.y, x.z));
    let budget = Budget::new(2000, 1e-11);
    match gjk::distance(&body, &point, &budget, &mut GjkWarmStart::default()) {
        GjkOutcome::Separated(s) => (s.bounds.lower + r, s.bounds.upper + r),
        GjkOutcome::Penetrating(simplex) => {
            let mut epa = Box::new(Epa::<f64, 2004, 4004>::new());
            match epa.penetration(&body, &point, &simplex, &budget) {
                Proximity::Penetrating(p) => (-p.bounds.upper + r, -p.bounds.lower + r),
                Proximity::Separated(s) => (s.bounds.lower + r, s.bounds.upper + r),
                Proximity::Undetermined { bounds, .. } => (bounds.lower + r, bounds.upper + r),
            }
        }
        other => panic!("GJK reference undetermined at {x:?}: {other:?}"),
    }
}

/// A frustum's support map: the better of its two rim discs (independent
/// of the SDF's trapezoid formula).
struct Frustum {
    h: f64,
    r0: f64,
    r1: f64,
}

impl SupportMap<f64> for Frustum {
    fn support(&self, n: &Vector3<f64>) -> Point3<f64> {
        let rho = (n.x * n.x + n.y * n.y).sqrt();
        let rim = |r: f64, z: f64| {
            if rho > 0.0 {
                Point3::new(r * n.x / rho, r * n.y / rho, z)
            } else {
                Point3::new(0.0, 0.0, z)
            }
        };
        let (p0, p1) = (rim(self.r0, -self.h), rim(self.r1, self.h));
        if p0.coords.dot(n) >= p1.coords.dot(n) {
            p0
        } else {
            p1
        }
    }
    fn center(&self) -> Point3<f64> {
        Point3::origin()
    }
}

/// The same in 2D over the circle of directions.
fn reference_2d(h: &dyn Fn(&Vector2<f64>) -> f64, x: &Vector2<f64>) -> f64 {
    let f = |t: f64| {
        let n = Vector2::new(t.cos(), t.sin());
        n.dot(x) - h(&n)
    };
    let m = 720;
    let (mut t, mut v) = (0.0, f64::NEG_INFINITY);
    for i in 0..m {
        let ti = i as f64 * std::f64::consts::TAU / m as f64;
        let fi = f(ti);
        if fi > v {
            v = fi;
            t = ti;
        }
    }
    let mut step = 0.01;
    while step > 1e-12 {
        let (a, b) = (f(t + step), f(t - step));
        if a > v {
            v = a;
            t += step;
        } else if b > v {
            v = b;
            t -= step;
        } else {
            step *= 0.5;
        }
    }
    v
}

struct Report {
    worst_exact: f64,
    worst_gap: f64,
    count: usize,
}

/// Checks `sdf` at points around a body of size ~`scale` against the
/// reference. Returns the largest |error| (exact) or largest gap (bound).
fn check_3d(name: &str, sdf: &dyn Sdf<f64, 3>, h: &dyn SupportMap<f64>, scale: f64, seed: u64) -> Report {
    let mut rng = rng(seed);
    let mut rep = Report { worst_exact: 0.0, worst_gap: 0.0, count: 0 };
    let exact = sdf.accuracy() == SdfAccuracy::Exact;
    for _ in 0..100 {
        let x = unit_vector(&mut rng) * rng.random_range(0.0..2.0 * scale);
        let s = sdf.eval(&x);
        let (lo, hi) = reference_3d(h, &x);
        let tol = 1e-8 * scale;
        assert!(hi - lo < 1e-5 * scale, "{name}: reference too loose at {x:?}: [{lo}, {hi}]");
        assert!(s.gradient.norm() <= 1.0 + 1e-9, "{name}: |g| = {}", s.gradient.norm());
        if exact {
            assert!(lo - tol <= s.value && s.value <= hi + tol, "{name} at {x:?}: {} vs [{lo}, {hi}]", s.value);
            rep.worst_exact = rep.worst_exact.max((s.value - (lo + hi) / 2.0).abs());
        } else {
            assert!(s.value <= hi + tol, "{name} at {x:?}: bound {} above [{lo}, {hi}]", s.value);
            if lo > tol || hi < -tol {
                assert_eq!(s.value > 0.0, lo > 0.0, "{name} at {x:?}: sign of {} vs [{lo}, {hi}]", s.value);
            }
            rep.worst_gap = rep.worst_gap.max(lo - s.value);
        }
        // The linearisation is a global lower bound of the true SDF.
        for _ in 0..2 {
            let y = unit_vector(&mut rng) * rng.random_range(0.0..2.0 * scale);
            let lin = s.value + s.gradient.dot(&(y - x));
            assert!(lin <= reference_3d(h, &y).1 + tol, "{name}: cutting plane from {x:?} above the SDF at {y:?}");
        }
        rep.count += 1;
    }
    println!(
        "{name}: {} points, worst exact error {:.2e}, worst bound gap {:.3}",
        rep.count, rep.worst_exact, rep.worst_gap
    );
    rep
}

#[test]
fn exact_sdfs_match_the_support_function_reference() {
    let sphere = Sphere::new(0.8).unwrap();
    check_3d("sphere", &sphere, &sphere, 0.8, 1);
    let cube = Cuboid::new(Vector3::new(1.0, 0.6, 0.3)).unwrap();
    check_3d("cuboid", &cube, &cube, 1.0, 2);
    let rounded = MinkowskiSum::new(cube, Sphere::new(0.2).unwrap());
    check_3d("rounded cuboid", &rounded, &rounded, 1.2, 3);
    let capsule = Capsule::new(0.7, 0.3).unwrap();
    check_3d("capsule", &capsule, &capsule, 1.0, 4);
    let cylinder = Cylinder::new(0.5, 0.8).unwrap();
    check_3d("cylinder", &cylinder, &cylinder, 1.0, 5);
    let cone = Cone::new(0.6, 0.9).unwrap();
    check_3d("cone", &cone, &cone, 1.0, 6);
    let frustum = CappedCone::new(0.6, 0.9, 0.35).unwrap();
    check_3d("capped cone", &frustum, &Frustum { h: 0.6, r0: 0.9, r1: 0.35 }, 1.0, 7);
    let inverted = CappedCone::new(0.5, 0.0, 0.7).unwrap();
    check_3d("capped cone, apex down", &inverted, &Frustum { h: 0.5, r0: 0.0, r1: 0.7 }, 1.0, 8);
    let mut r = rng(9);
    let p = pose(&mut r, 2.0);
    let placed = Placed::new(cylinder, p);
    check_3d("placed cylinder", &placed, &placed, 3.0, 10);
    // A similarity: rotation, scale 2.5, translation; the support family's
    // affine image as the reference.
    let q = common::rotation(&mut r);
    let t = Vector3::new(0.5, -1.0, 2.0);
    let scaled = Transformed::new(cone, *q.matrix(), 2.5, t).unwrap();
    let image = Affine::new(cone, q.matrix() * 2.5, t).unwrap();
    check_3d("transformed cone", &scaled, &image, 5.0, 11);
}

#[test]
fn lower_bound_sdfs_stay_below_with_the_right_sign() {
    let e = Ellipsoid::new(Vector3::new(1.2, 0.7, 0.4)).unwrap();
    let rep = check_3d("ellipsoid", &e, &e, 1.2, 20);
    assert!(rep.worst_gap > 0.0);
    // On the surface the bound is exact (zero).
    let mut r = rng(21);
    for _ in 0..200 {
        let n = unit_vector(&mut r);
        let y = SupportMap::support(&e, &n).coords;
        assert!(Sdf::eval(&e, &y).value.abs() < 1e-12);
    }
}

#[test]
fn two_dimensional_sdfs_match_the_reference() {
    let mut r = rng(30);
    let rect = BoxN::new(Vector2::new(1.0, 0.4)).unwrap();
    let rect_h = |n: &Vector2<f64>| n.x.abs() * 1.0 + n.y.abs() * 0.4;
    let disc = Sphere::new(0.6).unwrap();
    let disc_h = |n: &Vector2<f64>| 0.6 * n.norm();
    let stadium = Capsule::new(0.5, 0.3).unwrap();
    let stadium_h = |n: &Vector2<f64>| 0.5 * n.y.abs() + 0.3 * n.norm();
    // The SDF, its closed-form support function, its name.
    type Case<'a> = (&'a dyn Sdf<f64, 2>, &'a dyn Fn(&Vector2<f64>) -> f64, &'a str);
    let cases: [Case; 3] = [(&rect, &rect_h, "rectangle"), (&disc, &disc_h, "disc"), (&stadium, &stadium_h, "stadium")];
    for (sdf, h, name) in cases {
        for _ in 0..300 {
            let x = Vector2::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0));
            let s = sdf.eval(&x);
            let truth = reference_2d(h, &x);
            assert!((s.value - truth).abs() < 1e-8, "{name} at {x:?}: {} vs {truth}", s.value);
            let y = Vector2::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0));
            assert!(s.value + s.gradient.dot(&(y - x)) <= reference_2d(h, &y) + 1e-8, "{name}");
        }
    }
}

#[test]
fn placement_moves_the_value_and_rotates_the_gradient() {
    let mut r = rng(40);
    let cube = Cuboid::new(Vector3::new(0.5, 0.4, 0.3)).unwrap();
    for _ in 0..100 {
        let p: Pose<f64> = pose(&mut r, 3.0);
        let placed = Placed::new(cube, p);
        let x = Point3::new(r.random_range(-3.0..3.0), r.random_range(-3.0..3.0), r.random_range(-3.0..3.0));
        let local = p.inverse_transform_point(&x);
        let a = Sdf::eval(&placed, &x.coords);
        let b = Sdf::eval(&cube, &local.coords);
        assert!((a.value - b.value).abs() < 1e-12);
        assert!((a.gradient - p.rotation * b.gradient).norm() < 1e-12);
        let _: SVector<f64, 3> = a.gradient;
    }
}
