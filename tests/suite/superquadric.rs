//! The superquadric and superellipse shapes: implicit and parametric forms
//! (Eq. 7–12), the closed-form support map, the SDF lower bound, the
//! bounding ball. Ground truth: this file's own formulas and dense sampling.

use crate::common;

use nalgebra::{Vector2, Vector3};
use narrowphase::sdf::{Sdf, SdfAccuracy};
use narrowphase::shape::{Bounded, Superellipse, Superquadric, SupportMap};
use rand::Rng;

fn sp(t: f64, k: f64) -> f64 {
    t.signum() * t.abs().powf(k)
}

fn implicit(a: &Vector3<f64>, e1: f64, e2: f64, x: &Vector3<f64>) -> f64 {
    ((x.x / a.x).abs().powf(2.0 / e2) + (x.y / a.y).abs().powf(2.0 / e2)).powf(e2 / e1)
        + (x.z / a.z).abs().powf(2.0 / e1)
}

fn surface(a: &Vector3<f64>, e1: f64, e2: f64, n_eta: usize, n_om: usize) -> Vec<Vector3<f64>> {
    let mut out = Vec::with_capacity((n_eta + 1) * n_om);
    for i in 0..=n_eta {
        let eta = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * i as f64 / n_eta as f64;
        for k in 0..n_om {
            let om = -std::f64::consts::PI + std::f64::consts::TAU * k as f64 / n_om as f64;
            out.push(Vector3::new(
                a.x * sp(eta.cos(), e1) * sp(om.cos(), e2),
                a.y * sp(eta.cos(), e1) * sp(om.sin(), e2),
                a.z * sp(eta.sin(), e1),
            ));
        }
    }
    out
}

fn random_sq(rng: &mut impl Rng) -> (Vector3<f64>, f64, f64) {
    (
        Vector3::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0), rng.random_range(0.3..3.0)),
        rng.random_range(0.1..1.9),
        rng.random_range(0.1..1.9),
    )
}

#[test]
fn parametric_surface_and_gradient_match_the_implicit_form() {
    let mut rng = common::rng(11);
    for _ in 0..50 {
        let (a, e1, e2) = random_sq(&mut rng);
        let s = Superquadric::new(a, e1, e2).unwrap();
        for _ in 0..20 {
            let eta = rng.random_range(-1.5..1.5);
            let om = rng.random_range(-3.1..3.1);
            let x = s.surface_point(eta, om);
            assert!((implicit(&a, e1, e2, &x) - 1.0).abs() < 1e-9, "{x}");
            assert!((s.implicit(&x) - 1.0).abs() < 1e-9);
            assert!((s.gauge(&x) - 1.0).abs() < 1e-9);
            // Eq. 12 against central differences of this file's implicit form.
            let h = 1e-6;
            let num = Vector3::from_fn(|i, _| {
                let mut p = x;
                let mut m = x;
                p[i] += h;
                m[i] -= h;
                (implicit(&a, e1, e2, &p) - implicit(&a, e1, e2, &m)) / (2.0 * h)
            });
            let g = s.surface_gradient(eta, om);
            if num.norm() < 1e4 && x.iter().all(|c| c.abs() > 1e-3) {
                assert!((g - num).norm() < 1e-4 * (1.0 + num.norm()), "{g} vs {num}");
            }
            // The radial normal is the unit gradient.
            let n = s.radial_normal(&(x * 2.5)).unwrap();
            assert!((n - g / g.norm()).norm() < 1e-9, "{n} vs {g}");
        }
    }
}

#[test]
fn support_map_maximises_over_dense_samples() {
    let mut rng = common::rng(12);
    for _ in 0..60 {
        let (a, e1, e2) = random_sq(&mut rng);
        let s = Superquadric::new(a, e1, e2).unwrap();
        let s32 = Superquadric::new(a.cast::<f32>(), e1 as f32, e2 as f32).unwrap();
        let pts = surface(&a, e1, e2, 90, 180);
        for _ in 0..10 {
            let d = common::unit_vector(&mut rng) * rng.random_range(0.01..100.0);
            let sup = s.support(&d).coords;
            // On the surface (this file's implicit form) ...
            assert!((implicit(&a, e1, e2, &sup) - 1.0).abs() < 1e-8, "{sup}");
            // ... and at least as far along d as every sample.
            let best = pts.iter().map(|p| p.dot(&d)).fold(f64::NEG_INFINITY, f64::max);
            assert!(sup.dot(&d) >= best - 1e-9 * d.norm() * a.norm(), "{} < {best}", sup.dot(&d));
            // Not much further than the samples: the sampling is dense.
            assert!(sup.dot(&d) <= best + 0.02 * d.norm() * a.norm(), "{} > {best}", sup.dot(&d));
            let sup32 = s32.support(&d.cast::<f32>()).coords.cast::<f64>();
            assert!((sup32.dot(&d) - sup.dot(&d)).abs() < 1e-4 * d.norm() * a.norm());
        }
        // Axis directions reach the semi-axes; zero and NaN directions do not panic.
        assert!((s.support(&Vector3::x()).x - a.x).abs() < 1e-12);
        assert!((s.support(&-Vector3::z()).z + a.z).abs() < 1e-12);
        assert_eq!(s.support(&Vector3::zeros()).coords, Vector3::zeros());
        let _ = s.support(&Vector3::new(f64::NAN, 1.0, 0.0));
        // The bounding ball contains every sample.
        let (_, r) = s.bounding_sphere();
        assert!(pts.iter().all(|p| p.norm() <= r * (1.0 + 1e-12)), "radius {r}");
        assert_eq!(Sdf::<f64, 3>::bounding_ball(&s).radius, r);
    }
}

#[test]
fn sdf_is_a_lower_bound_with_the_right_sign() {
    let mut rng = common::rng(13);
    for _ in 0..30 {
        let (a, e1, e2) = random_sq(&mut rng);
        let s = Superquadric::new(a, e1, e2).unwrap();
        assert_eq!(Sdf::<f64, 3>::accuracy(&s), SdfAccuracy::LowerBound);
        let pts = surface(&a, e1, e2, 120, 240);
        for _ in 0..30 {
            let x = common::unit_vector(&mut rng) * rng.random_range(0.0..2.0) * a.norm();
            let f = Sdf::<f64, 3>::eval(&s, &x);
            assert!((f.gradient.norm() - 1.0).abs() < 1e-9);
            let inside = implicit(&a, e1, e2, &x) < 1.0;
            assert_eq!(f.value < 0.0, inside, "{x}: {f:?}");
            // Outside: φ̂ ≤ true distance ≤ the sampled distance (an over-estimate).
            let d = pts.iter().map(|p| (p - x).norm()).fold(f64::INFINITY, f64::min);
            if !inside {
                assert!(f.value <= d + 1e-12, "{x}: {} vs {d}", f.value);
            }
            // Everywhere: φ̂ = n·(x − y) for the radial surface point y (this
            // file's implicit form) and a plane n·z = n·y that supports every
            // sample, so the depth min_n (h(n) − n·x) ≤ −φ̂ inside as well.
            let t = implicit(&a, e1, e2, &x).powf(-e1 / 2.0);
            if t.is_finite() {
                let y = x * t;
                assert!((f.value - f.gradient.dot(&(x - y))).abs() < 1e-9 * (1.0 + x.norm()), "{x}: {f:?}");
                let h = pts.iter().map(|p| p.dot(&f.gradient)).fold(f64::NEG_INFINITY, f64::max);
                assert!(
                    h <= f.gradient.dot(&y) + 1e-9 * a.norm(),
                    "plane does not support: {h} > {}",
                    f.gradient.dot(&y)
                );
            }
        }
        // Centre: −(smallest semi-axis).
        let c = Sdf::<f64, 3>::eval(&s, &Vector3::zeros());
        assert_eq!(c.value, -a.amin());
        // Surface points: zero.
        for p in pts.iter().step_by(997) {
            assert!(Sdf::<f64, 3>::eval(&s, p).value.abs() < 1e-9);
        }
    }
}

#[test]
fn superellipse_support_and_sdf() {
    let mut rng = common::rng(14);
    for _ in 0..60 {
        let a = Vector2::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0));
        let e = rng.random_range(0.1..1.9);
        let s = Superellipse::new(a, e).unwrap();
        let pts: Vec<Vector2<f64>> = (0..4000)
            .map(|i| {
                let t = std::f64::consts::TAU * i as f64 / 4000.0;
                Vector2::new(a.x * sp(t.cos(), e), a.y * sp(t.sin(), e))
            })
            .collect();
        for _ in 0..20 {
            let ang: f64 = rng.random_range(-3.2..3.2);
            let d = Vector2::new(ang.cos(), ang.sin());
            let sup = s.support(&d);
            let imp = (sup.x / a.x).abs().powf(2.0 / e) + (sup.y / a.y).abs().powf(2.0 / e);
            assert!((imp - 1.0).abs() < 1e-8);
            let best = pts.iter().map(|p| p.dot(&d)).fold(f64::NEG_INFINITY, f64::max);
            assert!(sup.dot(&d) >= best - 1e-9 && sup.dot(&d) <= best + 0.01 * a.norm());
            let x = d * rng.random_range(0.0..2.0) * a.norm();
            let f = Sdf::<f64, 2>::eval(&s, &x);
            let inside = (x.x / a.x).abs().powf(2.0 / e) + (x.y / a.y).abs().powf(2.0 / e) < 1.0;
            assert_eq!(f.value < 0.0, inside);
            let dist = pts.iter().map(|p| (p - x).norm()).fold(f64::INFINITY, f64::min);
            if !inside {
                assert!(f.value <= dist + 1e-12);
            }
        }
        let r = Sdf::<f64, 2>::bounding_ball(&s).radius;
        assert!(pts.iter().all(|p| p.norm() <= r * (1.0 + 1e-12)));
    }
}
