//! The closed-form Minkowski family: the exact ellipsoid–superquadric checker
//! (Algorithm 1, 2D and 3D) and the algebraic ellipsoid–ellipsoid condition.
//!
//! Ground truth never comes from the code under test:
//! - closed forms: two spheres, coaxial ellipsoids (touch at d = a1x + a2x),
//!   the characteristic polynomial of two unit spheres;
//! - brute force: dense (refined) sampling of the superquadric surface with
//!   this file's own parametrisation, and the ellipsoid's inside test, with a
//!   tolerance band around contact;
//! - GJK on the superquadric's support map.

use crate::common;

use nalgebra::{Matrix3, Rotation2, Rotation3, Translation2, Translation3, Vector2, Vector3};
use narrowphase::math::Pose2;
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoid_polynomial, ellipsoids, AlgebraicOutcome};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::minkowski::MinkowskiOutcome;
use narrowphase::prelude::*;
use narrowphase::query::Stop;
use narrowphase::query::Undetermined;
use narrowphase::shape::{Ellipse, Superellipse, Superquadric};
use rand::Rng;

// ------------------------------------------------------------ reference ----

fn sp(t: f64, k: f64) -> f64 {
    t.signum() * t.abs().powf(k)
}

/// This file's own parametrisation of the superquadric surface (Eq. 10).
fn sq_point(a: &Vector3<f64>, e1: f64, e2: f64, eta: f64, om: f64) -> Vector3<f64> {
    Vector3::new(
        a.x * sp(eta.cos(), e1) * sp(om.cos(), e2),
        a.y * sp(eta.cos(), e1) * sp(om.sin(), e2),
        a.z * sp(eta.sin(), e1),
    )
}

/// This file's own implicit function (Eq. 11).
fn sq_implicit(a: &Vector3<f64>, e1: f64, e2: f64, x: &Vector3<f64>) -> f64 {
    ((x.x / a.x).abs().powf(2.0 / e2) + (x.y / a.y).abs().powf(2.0 / e2)).powf(e2 / e1)
        + (x.z / a.z).abs().powf(2.0 / e1)
}

/// Minimum over the superquadric surface (local frame) of the ellipsoid's
/// gauge `|Λ(1/b) Rᵀ (x − c)|`, by a dense grid refined twice around its best.
fn min_gauge(a: &Vector3<f64>, e1: f64, e2: f64, b: &Vector3<f64>, rot: &Matrix3<f64>, c: &Vector3<f64>) -> f64 {
    let gauge = |x: Vector3<f64>| {
        let y = rot.transpose() * (x - c);
        (y.x / b.x).hypot(y.y / b.y).hypot(y.z / b.z)
    };
    let (n_eta, n_om) = (64, 128);
    let mut best = (f64::INFINITY, 0.0, 0.0);
    let mut candidates = Vec::new();
    for i in 0..=n_eta {
        let eta = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * i as f64 / n_eta as f64;
        for k in 0..n_om {
            let om = -std::f64::consts::PI + std::f64::consts::TAU * k as f64 / n_om as f64;
            let g = gauge(sq_point(a, e1, e2, eta, om));
            candidates.push((g, eta, om));
        }
    }
    candidates.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Refine around the few best cells (the minimum may sit in any of them).
    for &(g0, eta0, om0) in candidates.iter().take(6) {
        let (mut ce, mut co, mut he, mut ho) =
            (eta0, om0, std::f64::consts::PI / n_eta as f64, std::f64::consts::TAU / n_om as f64);
        let mut local = g0;
        for _ in 0..4 {
            for i in -8..=8 {
                for k in -8..=8 {
                    let (eta, om) = (ce + he * i as f64 / 8.0, co + ho * k as f64 / 8.0);
                    let g = gauge(sq_point(a, e1, e2, eta, om));
                    if g < local {
                        local = g;
                        ce = eta;
                        co = om;
                    }
                }
            }
            he /= 4.0;
            ho /= 4.0;
        }
        if local < best.0 {
            best = (local, ce, co);
        }
    }
    best.0
}

/// Brute-force truth: `Some(true)` colliding, `Some(false)` separated, `None`
/// inside the tolerance band.
fn truth3(a: &Vector3<f64>, e1: f64, e2: f64, b: &Vector3<f64>, rot: &Matrix3<f64>, c: &Vector3<f64>) -> Option<bool> {
    if sq_implicit(a, e1, e2, c) <= 1.0 {
        return Some(true); // the ellipsoid's centre is inside the superquadric
    }
    let g = min_gauge(a, e1, e2, b, rot, c);
    if g < 0.995 {
        Some(true)
    } else if g > 1.005 {
        Some(false)
    } else {
        None
    }
}

fn truth2(a: &Vector2<f64>, e: f64, b: &Vector2<f64>, rot: &nalgebra::Matrix2<f64>, c: &Vector2<f64>) -> Option<bool> {
    let implicit = (c.x / a.x).abs().powf(2.0 / e) + (c.y / a.y).abs().powf(2.0 / e);
    if implicit <= 1.0 {
        return Some(true);
    }
    let gauge = |t: f64| {
        let x = Vector2::new(a.x * sp(t.cos(), e), a.y * sp(t.sin(), e));
        let y = rot.transpose() * (x - c);
        (y.x / b.x).hypot(y.y / b.y)
    };
    let n = 4096;
    let mut best = (f64::INFINITY, 0.0);
    for i in 0..n {
        let t = std::f64::consts::TAU * i as f64 / n as f64;
        let g = gauge(t);
        if g < best.0 {
            best = (g, t);
        }
    }
    let mut h = std::f64::consts::TAU / n as f64;
    for _ in 0..6 {
        let c0 = best.1;
        for i in -8..=8 {
            let t = c0 + h * i as f64 / 8.0;
            let g = gauge(t);
            if g < best.0 {
                best = (g, t);
            }
        }
        h /= 4.0;
    }
    if best.0 < 0.995 {
        Some(true)
    } else if best.0 > 1.005 {
        Some(false)
    } else {
        None
    }
}

fn at3(x: f64, y: f64, z: f64) -> Pose<f64> {
    Pose::from_parts(Translation3::new(x, y, z), Rotation3::identity())
}

fn rot2(rng: &mut impl Rng) -> Rotation2<f64> {
    Rotation2::new(rng.random_range(-std::f64::consts::PI..std::f64::consts::PI))
}

// --------------------------------------------------------- closed forms ----

#[test]
fn two_spheres_touch_at_sum_of_radii() {
    let sq = Superquadric::new(Vector3::new(1.0, 1.0, 1.0), 1.0, 1.0).unwrap();
    let e = Ellipsoid::new(Vector3::new(0.5, 0.5, 0.5)).unwrap();
    let mut rng = common::rng(1);
    for _ in 0..50 {
        let dir = common::unit_vector(&mut rng);
        for (d, want) in [(1.49, true), (1.51, false), (0.2, true), (7.0, false)] {
            let pose = Pose::from_parts(Translation3::from(dir * d), common::rotation(&mut rng));
            let out = ellipsoid_superquadric(&sq, &Pose::identity(), &e, &pose, &Budget::default(), Stop::Converged);
            assert_eq!(out.is_penetrating(), Some(want), "d = {d}: {out:?}");
            let h = out.hit().unwrap();
            assert!((h.margin - d / 1.5).abs() < 1e-9, "margin {} vs {}", h.margin, d / 1.5);
            // The witness lies on the unit sphere, towards the ellipsoid.
            assert!((h.contact_point - dir).norm() < 1e-7, "{:?}", h.contact_point);
            assert!((h.boundary_point - dir * 1.5).norm() < 1e-7);
        }
    }
}

#[test]
fn coaxial_ellipsoids_touch_at_sum_of_x_axes() {
    // Ellipsoid as a superquadric with unit exponents against an ellipsoid,
    // both axis-aligned, centres on the x axis: contact at d = a1x + a2x.
    let a = Vector3::new(2.0, 1.0, 0.7);
    let b = Vector3::new(0.6, 0.9, 1.3);
    let sq = Superquadric::new(a, 1.0, 1.0).unwrap();
    let ea = Ellipsoid::new(a).unwrap();
    let eb = Ellipsoid::new(b).unwrap();
    let touch = a.x + b.x;
    for s in [-1.0, 1.0] {
        for (d, want) in [(touch - 1e-6, true), (touch + 1e-6, false), (touch * 0.5, true), (touch * 1.5, false)] {
            let pose = at3(s * d, 0.0, 0.0);
            let out = ellipsoid_superquadric(&sq, &Pose::identity(), &eb, &pose, &Budget::default(), Stop::Converged);
            assert_eq!(out.is_penetrating(), Some(want), "d = {d}: {out:?}");
            assert!((out.hit().unwrap().margin - d / touch).abs() < 1e-9);
            let asc = ellipsoids(&ea, &Pose::identity(), &eb, &pose);
            assert_eq!(asc.is_penetrating(), Some(want), "ASC d = {d}: {asc:?}");
        }
    }
    // f32: the same away from a rounding band.
    let sq32 = Superquadric::new(a.cast::<f32>(), 1.0, 1.0).unwrap();
    let eb32 = Ellipsoid::new(b.cast::<f32>()).unwrap();
    let ea32 = Ellipsoid::new(a.cast::<f32>()).unwrap();
    for (d, want) in [(touch - 1e-3, true), (touch + 1e-3, false)] {
        let pose: Pose<f32> = common::pose_f32(&at3(d, 0.0, 0.0));
        let out = ellipsoid_superquadric(&sq32, &Pose::identity(), &eb32, &pose, &Budget::default(), Stop::Decided);
        assert_eq!(out.is_penetrating(), Some(want), "f32 d = {d}: {out:?}");
        assert_eq!(ellipsoids(&ea32, &Pose::identity(), &eb32, &pose).is_penetrating(), Some(want));
    }
}

#[test]
fn unit_spheres_characteristic_polynomial() {
    // det(λA + B) ∝ (λ + 1)²(λ² − (d² − 2)λ + 1) for unit spheres at distance d.
    let s = Ellipsoid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap();
    let mut rng = common::rng(2);
    for _ in 0..40 {
        let d: f64 = rng.random_range(0.0..5.0);
        let dir = common::unit_vector(&mut rng);
        let pa = Pose::from_parts(Translation3::new(0.3, -0.2, 0.1), common::rotation(&mut rng));
        let pb = Pose::from_parts(Translation3::from(pa.translation.vector + dir * d), common::rotation(&mut rng));
        let c = ellipsoid_polynomial(&s, &pa, &s, &pb).unwrap();
        let k = d * d - 2.0;
        // (λ² + 2λ + 1)(λ² − kλ + 1)
        let want = [1.0, 2.0 - k, 2.0 - 2.0 * k, 2.0 - k, 1.0];
        for (x, y) in c.iter().zip(want) {
            assert!((x - y).abs() < 1e-9 * (1.0 + y.abs()), "d = {d}: {c:?} vs {want:?}");
        }
        let out = ellipsoids(&s, &pa, &s, &pb);
        if (d - 2.0).abs() > 1e-6 {
            assert_eq!(out.is_penetrating(), Some(d < 2.0), "d = {d}: {out:?}");
        } else {
            assert_eq!(out.is_penetrating(), Some(true)); // touching counts as contact
        }
    }
    // Exactly touching: a positive double root, reported as touching.
    let out = ellipsoids(&s, &Pose::identity(), &s, &at3(2.0, 0.0, 0.0));
    match out {
        AlgebraicOutcome::Penetrating(c) => assert!(c.touching && (c.lambda - 1.0).abs() < 1e-6, "{c:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unit_discs_characteristic_cubic() {
    let s = Ellipse::new(Vector2::new(1.0, 1.0)).unwrap();
    for (d, want) in [(1.9, true), (2.1, false), (0.0, true), (10.0, false)] {
        let pb = Pose2::from_parts(Translation2::new(0.0, d), Rotation2::new(0.3));
        assert_eq!(ellipses(&s, &Pose2::identity(), &s, &pb).is_penetrating(), Some(want), "d = {d}");
    }
}

// ------------------------------------------------------------ brute force ----

#[test]
fn ellipsoid_superquadric_matches_brute_force_f64_and_f32() {
    let mut rng = common::rng(3);
    let (mut checked, mut undetermined, mut band, mut iters, mut max_iters) = (0, 0, 0, 0u64, 0);
    let mut undetermined32 = 0;
    let n = 600;
    for case in 0..n {
        let a = Vector3::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let (e1, e2) = (rng.random_range(0.1..1.9), rng.random_range(0.1..1.9));
        let b = Vector3::new(rng.random_range(0.2..1.2), rng.random_range(0.2..1.2), rng.random_range(0.2..1.2));
        let sq_pose = common::pose(&mut rng, 1.0);
        let dir = common::unit_vector(&mut rng);
        let dist = rng.random_range(0.0..3.5);
        let e_pose =
            Pose::from_parts(Translation3::from(sq_pose.translation.vector + dir * dist), common::rotation(&mut rng));
        // Ground truth in the superquadric's frame.
        let rot = sq_pose.rotation.matrix().transpose() * e_pose.rotation.matrix();
        let c = sq_pose.rotation.inverse() * (e_pose.translation.vector - sq_pose.translation.vector);
        let truth = truth3(&a, e1, e2, &b, &rot, &c);
        let sq = Superquadric::new(a, e1, e2).unwrap();
        let e = Ellipsoid::new(b).unwrap();
        let out = ellipsoid_superquadric(&sq, &sq_pose, &e, &e_pose, &Budget::default(), Stop::Decided);
        iters += u64::from(out.iterations());
        max_iters = max_iters.max(out.iterations());
        let Some(t) = truth else {
            band += 1;
            continue;
        };
        match out.is_penetrating() {
            Some(got) => {
                assert_eq!(got, t, "case {case}: a={a:?} e=({e1},{e2}) b={b:?} c={c:?}: {out:?}");
                checked += 1;
            }
            None => {
                eprintln!("undetermined case {case}: a={a:?} e=({e1},{e2}) b={b:?} rot={rot:?} c={c:?}: {out:?}");
                undetermined += 1
            }
        }
        // Margin mode agrees and reports a consistent margin.
        let m = ellipsoid_superquadric(&sq, &sq_pose, &e, &e_pose, &Budget::default(), Stop::Converged);
        if let Some(h) = m.hit() {
            assert_eq!(m.is_penetrating(), Some(t), "case {case} margin mode: {m:?}");
            assert!(!h.certified || (h.margin > 1.0) != t, "case {case}: {h:?}");
        }
        // f32: same answer wherever it answers (the band is wider there).
        let sq32 = Superquadric::new(a.cast::<f32>(), e1 as f32, e2 as f32).unwrap();
        let e32 = Ellipsoid::new(b.cast::<f32>()).unwrap();
        let out32 = ellipsoid_superquadric(
            &sq32,
            &common::pose_f32(&sq_pose),
            &e32,
            &common::pose_f32(&e_pose),
            &Budget::default(),
            Stop::Decided,
        );
        match out32.is_penetrating() {
            Some(got) => assert_eq!(got, t, "f32 case {case}: {out32:?}"),
            None => undetermined32 += 1,
        }
    }
    eprintln!(
        "3D brute force: {checked} checked, {band} in band, {undetermined} undetermined (f32: {undetermined32}), \
         mean iterations {:.2}, max {max_iters}",
        iters as f64 / n as f64
    );
    assert!(undetermined * 50 <= n, "too many undetermined: {undetermined}");
    assert!(undetermined32 * 20 <= n, "too many undetermined in f32: {undetermined32}");
}

#[test]
fn ellipse_superellipse_matches_brute_force_f64_and_f32() {
    let mut rng = common::rng(4);
    let (mut checked, mut undetermined, mut undetermined32) = (0, 0, 0);
    let n = 400;
    for case in 0..n {
        let a = Vector2::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let e = rng.random_range(0.1..1.9);
        let b = Vector2::new(rng.random_range(0.2..1.2), rng.random_range(0.2..1.2));
        let r1 = rot2(&mut rng);
        let r2 = rot2(&mut rng);
        let t1 = Vector2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let ang: f64 = rng.random_range(-3.2..3.2);
        let dist = rng.random_range(0.0..3.5);
        let t2 = t1 + Vector2::new(ang.cos(), ang.sin()) * dist;
        let rot = r1.matrix().transpose() * r2.matrix();
        let c = r1.inverse() * (t2 - t1);
        let truth = truth2(&a, e, &b, &rot, &c);
        let se = Superellipse::new(a, e).unwrap();
        let el = Ellipse::new(b).unwrap();
        let (p1, p2) = (Pose2::from_parts(t1.into(), r1), Pose2::from_parts(t2.into(), r2));
        let out = ellipse_superellipse(&se, &p1, &el, &p2, &Budget::default(), Stop::Decided);
        let Some(t) = truth else { continue };
        match out.is_penetrating() {
            Some(got) => {
                assert_eq!(got, t, "case {case}: a={a:?} e={e} b={b:?} c={c:?}: {out:?}");
                checked += 1;
            }
            None => undetermined += 1,
        }
        let m = ellipse_superellipse(&se, &p1, &el, &p2, &Budget::default(), Stop::Converged);
        if m.hit().is_some() {
            assert_eq!(m.is_penetrating(), Some(t), "case {case} margin: {m:?}");
        }
        let se32 = Superellipse::new(a.cast::<f32>(), e as f32).unwrap();
        let el32 = Ellipse::new(b.cast::<f32>()).unwrap();
        let (q1, q2): (Pose2<f32>, Pose2<f32>) = (nalgebra::convert(p1), nalgebra::convert(p2));
        let out32 = ellipse_superellipse(&se32, &q1, &el32, &q2, &Budget::default(), Stop::Decided);
        match out32.is_penetrating() {
            Some(got) => assert_eq!(got, t, "f32 case {case}: {out32:?}"),
            None => undetermined32 += 1,
        }
        // Ellipses: the algebraic condition agrees too.
        if (e - 1.0).abs() < 0.1 {
            let _ = ellipses(&Ellipse::new(a).unwrap(), &p1, &el, &p2);
        }
    }
    eprintln!("2D brute force: {checked} checked, {undetermined} undetermined (f32: {undetermined32})");
    assert!(undetermined * 50 <= n);
    assert!(undetermined32 * 20 <= n);
}

#[test]
fn algebraic_condition_matches_exact_checker_and_brute_force() {
    let mut rng = common::rng(5);
    let mut checked = 0;
    for case in 0..300 {
        let a = Vector3::new(rng.random_range(0.3..2.0), rng.random_range(0.3..2.0), rng.random_range(0.3..2.0));
        let b = Vector3::new(rng.random_range(0.3..2.0), rng.random_range(0.3..2.0), rng.random_range(0.3..2.0));
        let pa = common::pose(&mut rng, 1.0);
        let dir = common::unit_vector(&mut rng);
        let pb = Pose::from_parts(
            Translation3::from(pa.translation.vector + dir * rng.random_range(0.0..4.0)),
            common::rotation(&mut rng),
        );
        let (ea, eb) = (Ellipsoid::new(a).unwrap(), Ellipsoid::new(b).unwrap());
        let asc = ellipsoids(&ea, &pa, &eb, &pb);
        let mk = ellipsoid_superquadric(
            &Superquadric::new(a, 1.0, 1.0).unwrap(),
            &pa,
            &eb,
            &pb,
            &Budget::default(),
            Stop::Converged,
        );
        let rot = pa.rotation.matrix().transpose() * pb.rotation.matrix();
        let c = pa.rotation.inverse() * (pb.translation.vector - pa.translation.vector);
        let truth = truth3(&a, 1.0, 1.0, &b, &rot, &c);
        if let Some(h) = mk.hit() {
            // Away from contact both exact tests agree.
            if (h.margin - 1.0).abs() > 1e-6 {
                assert_eq!(asc.is_penetrating(), mk.is_penetrating(), "case {case}: {asc:?} vs {mk:?}");
                checked += 1;
            }
        }
        if let Some(t) = truth {
            assert_eq!(asc.is_penetrating(), Some(t), "case {case}: {asc:?}");
        }
        // f32 agrees away from contact.
        let asc32 = ellipsoids(
            &Ellipsoid::new(a.cast::<f32>()).unwrap(),
            &common::pose_f32(&pa),
            &Ellipsoid::new(b.cast::<f32>()).unwrap(),
            &common::pose_f32(&pb),
        );
        if let (Some(t), Some(h)) = (truth, mk.hit()) {
            if (h.margin - 1.0).abs() > 1e-2 {
                assert_eq!(asc32.is_penetrating(), Some(t), "f32 case {case}: {asc32:?} margin {}", h.margin);
            }
        }
    }
    assert!(checked > 250);
}

/// Root-finder statistics over random poses and exponents across
/// [0.1, 1.9]: how often it cannot settle, and how many iterations it takes.
#[test]
fn root_finder_statistics() {
    let mut rng = common::rng(9);
    for (label, mode) in [("decide", Stop::Decided), ("margin", Stop::Converged)] {
        let n = 3000;
        let (mut und, mut und32) = (0, 0);
        let mut its: Vec<u32> = Vec::with_capacity(n);
        let mut its32: Vec<u32> = Vec::with_capacity(n);
        for _ in 0..n {
            let a = Vector3::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0), rng.random_range(0.3..3.0));
            let (e1, e2) = (rng.random_range(0.1..1.9), rng.random_range(0.1..1.9));
            let b = Vector3::new(rng.random_range(0.1..2.0), rng.random_range(0.1..2.0), rng.random_range(0.1..2.0));
            let p1 = common::pose(&mut rng, 1.0);
            let p2 = common::pose(&mut rng, 4.0);
            let out = ellipsoid_superquadric(
                &Superquadric::new(a, e1, e2).unwrap(),
                &p1,
                &Ellipsoid::new(b).unwrap(),
                &p2,
                &Budget::default(),
                mode,
            );
            its.push(out.iterations());
            und += usize::from(out.is_penetrating().is_none());
            if out.is_penetrating().is_none() {
                eprintln!("undetermined {label}: a={a:?} e=({e1:.3},{e2:.3}) b={b:?}: {out:?}");
            }
            let out32 = ellipsoid_superquadric(
                &Superquadric::new(a.cast::<f32>(), e1 as f32, e2 as f32).unwrap(),
                &common::pose_f32(&p1),
                &Ellipsoid::new(b.cast::<f32>()).unwrap(),
                &common::pose_f32(&p2),
                &Budget::default(),
                mode,
            );
            its32.push(out32.iterations());
            if out32.is_penetrating().is_none() {
                eprintln!("undetermined f32 {label}: a={a:?} e=({e1:.3},{e2:.3}) b={b:?} p2={p2:?}: {out32:?}");
            }
            und32 += usize::from(out32.is_penetrating().is_none());
        }
        for (prec, its, und) in [("f64", &mut its, und), ("f32", &mut its32, und32)] {
            its.sort_unstable();
            let mean = its.iter().map(|&i| f64::from(i)).sum::<f64>() / n as f64;
            eprintln!(
                "root finder {label} {prec}: undetermined {und}/{n}, iterations mean {mean:.2}, median {}, p99 {}, max {}",
                its[n / 2],
                its[n * 99 / 100],
                its[n - 1]
            );
            assert!(und * 200 <= n, "{label} {prec}: {und} undetermined of {n}");
        }
    }
}

/// The 2D root finder (bracketed, safeguarded Newton): undetermined rate and
/// iterations over random poses and exponents across [0.1, 1.9].
#[test]
fn root_finder_statistics_2d() {
    let mut rng = common::rng(15);
    for (label, mode) in [("decide", Stop::Decided), ("margin", Stop::Converged)] {
        let n = 5000;
        let mut und = 0;
        let mut its: Vec<u32> = Vec::with_capacity(n);
        for _ in 0..n {
            let a = Vector2::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0));
            let e = rng.random_range(0.1..1.9);
            let b = Vector2::new(rng.random_range(0.1..2.0), rng.random_range(0.1..2.0));
            let p1 = Pose2::from_parts(Translation2::new(rng.random_range(-1.0..1.0), 0.0), rot2(&mut rng));
            let p2 = Pose2::from_parts(
                Translation2::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0)),
                rot2(&mut rng),
            );
            let out = ellipse_superellipse(
                &Superellipse::new(a, e).unwrap(),
                &p1,
                &Ellipse::new(b).unwrap(),
                &p2,
                &Budget::default(),
                mode,
            );
            its.push(out.iterations());
            und += usize::from(out.is_penetrating().is_none());
        }
        its.sort_unstable();
        let mean = its.iter().map(|&i| f64::from(i)).sum::<f64>() / n as f64;
        eprintln!(
            "root finder 2D {label}: undetermined {und}/{n}, iterations mean {mean:.2}, median {}, p99 {}, max {}",
            its[n / 2],
            its[n * 99 / 100],
            its[n - 1]
        );
        assert!(und * 500 <= n, "{label}: {und} undetermined of {n}");
    }
}

#[test]
fn agrees_with_gjk_on_the_support_map() {
    let mut rng = common::rng(6);
    let mut compared = 0;
    for case in 0..300 {
        let a = Vector3::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let (e1, e2) = (rng.random_range(0.1..1.9), rng.random_range(0.1..1.9));
        let b = Vector3::new(rng.random_range(0.2..1.2), rng.random_range(0.2..1.2), rng.random_range(0.2..1.2));
        let sq = Superquadric::new(a, e1, e2).unwrap();
        let e = Ellipsoid::new(b).unwrap();
        let p1 = common::pose(&mut rng, 1.0);
        let p2 = common::pose(&mut rng, 2.5);
        let exact = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Converged);
        let mut cache = GjkWarmStart::default();
        let g = gjk::distance(&Placed::new(sq, p1), &Placed::new(e, p2), &Budget::default(), &mut cache);
        let (Some(h), Some(gi)) = (exact.hit(), g.is_penetrating()) else { continue };
        // Skip contact within a small band (GJK's tolerance vs the margin).
        let near = match &g {
            GjkOutcome::Separated(s) => s.distance < 1e-6,
            _ => false,
        };
        if (h.margin - 1.0).abs() < 1e-6 || near {
            continue;
        }
        assert_eq!(exact.is_penetrating(), Some(gi), "case {case}: {exact:?} vs {g:?}");
        // The boundary point is where the ellipsoid touches: GJK distance 0 there.
        if let GjkOutcome::Separated(s) = &g {
            assert!(h.margin > 1.0 && s.distance > 0.0);
        }
        compared += 1;
    }
    assert!(compared > 250, "{compared}");
}

#[test]
fn agrees_with_the_ellipsoid_method_on_the_sdf_bound() {
    // The superquadric's SDF is a lower bound with the right sign, so the
    // ellipsoid method's collision answer is exact: it must agree with
    // Algorithm 1 away from contact.
    use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidWarmStart};
    let mut rng = common::rng(10);
    let (mut compared, mut undetermined) = (0, 0);
    for case in 0..200 {
        let a = Vector3::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let (e1, e2) = (rng.random_range(0.2..1.8), rng.random_range(0.2..1.8));
        let b = Vector3::new(rng.random_range(0.3..1.2), rng.random_range(0.3..1.2), rng.random_range(0.3..1.2));
        let sq = Superquadric::new(a, e1, e2).unwrap();
        let e = Ellipsoid::new(b).unwrap();
        let p1 = common::pose(&mut rng, 1.0);
        let p2 = common::pose(&mut rng, 2.5);
        let exact = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Converged);
        let Some(h) = exact.hit() else { continue };
        if (h.margin - 1.0).abs() < 0.02 {
            continue;
        }
        let em = EllipsoidMethod::collision().solve(
            &Placed::new(sq, p1),
            &Placed::new(e, p2),
            &mut EllipsoidWarmStart::default(),
        );
        match em.is_penetrating() {
            Some(c) => {
                assert_eq!(Some(c), exact.is_penetrating(), "case {case}: {em:?} vs {exact:?}");
                compared += 1;
            }
            None => undetermined += 1,
        }
    }
    eprintln!("ellipsoid method: {compared} compared, {undetermined} undetermined");
    assert!(compared > 150, "{compared}");
}

#[test]
fn boundary_point_is_a_touching_position() {
    // Moving the ellipsoid's centre to the reported boundary point makes the
    // pair touch: GJK distance ~ 0 there, and the contact point lies on both.
    let mut rng = common::rng(7);
    for _ in 0..100 {
        let a = Vector3::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let sq = Superquadric::new(a, rng.random_range(0.2..1.8), rng.random_range(0.2..1.8)).unwrap();
        let b = Vector3::new(rng.random_range(0.2..1.2), rng.random_range(0.2..1.2), rng.random_range(0.2..1.2));
        let e = Ellipsoid::new(b).unwrap();
        let p1 = common::pose(&mut rng, 1.0);
        let p2 = common::pose(&mut rng, 3.0);
        let out = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Converged);
        let Some(h) = out.hit() else { continue };
        if !h.converged {
            continue;
        }
        let moved = Pose::from_parts(Translation3::from(h.boundary_point), p2.rotation);
        let g = gjk::distance(
            &Placed::new(sq, p1),
            &Placed::new(e, moved),
            &Budget::default(),
            &mut GjkWarmStart::default(),
        );
        if let GjkOutcome::Separated(s) = g {
            assert!(s.distance < 1e-6, "{s:?}");
        }
        // The contact point is on the superquadric surface and on the moved ellipsoid's.
        let local = p1.inverse_transform_point(&h.contact_point.into()).coords;
        assert!((sq_implicit(&a, sq.exponents().0, sq.exponents().1, &local) - 1.0).abs() < 1e-6);
        let y = moved.inverse_transform_point(&h.contact_point.into()).coords;
        assert!(((y.x / b.x).hypot(y.y / b.y).hypot(y.z / b.z) - 1.0).abs() < 1e-6);
    }
}

// -------------------------------------------------------------- bad input ----

#[test]
fn bad_shapes_are_typed_errors() {
    let a = Vector3::new(1.0_f64, 1.0, 1.0);
    for e in [0.0, -0.5, 2.0, 2.5, 0.001, 1.9999] {
        assert_eq!(Superquadric::new(a, e, 1.0), Err(ShapeError::BadExponent), "{e}");
        assert_eq!(Superquadric::new(a, 1.0, e), Err(ShapeError::BadExponent), "{e}");
        assert_eq!(Superellipse::new(Vector2::new(1.0, 1.0), e), Err(ShapeError::BadExponent));
    }
    assert_eq!(Superquadric::new(a, f64::NAN, 1.0), Err(ShapeError::NonFinite));
    assert_eq!(Superquadric::new(a, 1.0, f64::INFINITY), Err(ShapeError::NonFinite));
    assert_eq!(Superquadric::new(Vector3::new(0.0, 1.0, 1.0), 1.0, 1.0), Err(ShapeError::NonPositiveSize));
    assert_eq!(Superquadric::new(Vector3::new(1.0, -1.0, 1.0), 1.0, 1.0), Err(ShapeError::NonPositiveSize));
    assert_eq!(Superquadric::new(Vector3::new(1.0, f64::NAN, 1.0), 1.0, 1.0), Err(ShapeError::NonFinite));
    assert_eq!(Ellipse::new(Vector2::new(0.0_f32, 1.0)), Err(ShapeError::NonPositiveSize));
    assert!(Superquadric::new(a.cast::<f32>(), 0.1, 1.9).is_ok());
}

#[test]
fn coincident_centres_collide_and_bad_poses_are_undetermined() {
    let sq = Superquadric::new(Vector3::new(1.0_f64, 2.0, 0.5), 0.3, 1.7).unwrap();
    let e = Ellipsoid::new(Vector3::new(0.1, 0.2, 0.3)).unwrap();
    let mut rng = common::rng(8);
    let p = common::pose(&mut rng, 3.0);
    let q = Pose::from_parts(p.translation, common::rotation(&mut rng));
    for mode in [Stop::Decided, Stop::Converged] {
        let out = ellipsoid_superquadric(&sq, &p, &e, &q, &Budget::default(), mode);
        assert_eq!(out.is_penetrating(), Some(true));
        assert_eq!(out.hit().unwrap().margin, 0.0);
    }
    let se = Superellipse::new(Vector2::new(1.0, 2.0), 0.3).unwrap();
    let el = Ellipse::new(Vector2::new(0.1, 0.2)).unwrap();
    let out = ellipse_superellipse(&se, &Pose2::identity(), &el, &Pose2::identity(), &Budget::default(), Stop::Decided);
    assert_eq!(out.is_penetrating(), Some(true));
    let out = ellipsoids(&e, &p, &e, &q);
    assert_eq!(out.is_penetrating(), Some(true));

    for bad in [f64::NAN, f64::INFINITY, -f64::INFINITY] {
        let q = at3(bad, 0.0, 1.0);
        let out = ellipsoid_superquadric(&sq, &p, &e, &q, &Budget::default(), Stop::Decided);
        assert!(matches!(out, MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
        let out = ellipsoid_superquadric(&sq, &q, &e, &p, &Budget::default(), Stop::Decided);
        assert!(matches!(out, MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, .. }));
        assert_eq!(ellipsoids(&e, &q, &e, &p), AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite });
        let q2 = Pose2::from_parts(Translation2::new(0.0, bad), Rotation2::identity());
        let out = ellipse_superellipse(&se, &Pose2::identity(), &el, &q2, &Budget::default(), Stop::Decided);
        assert!(matches!(out, MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, .. }));
        assert!(ellipses(&el, &q2, &el, &Pose2::identity()).is_penetrating().is_none());
    }
    // A NaN tolerance is rejected, a zero cap still answers or says why.
    let nan_budget = Budget::new(64, f64::NAN);
    assert!(ellipsoid_superquadric(&sq, &p, &e, &q, &nan_budget, Stop::Decided).is_penetrating().is_none());
    let tiny = Budget::new(0, 1e-12);
    let out = ellipsoid_superquadric(&sq, &p, &e, &at3(1.0, 1.0, 1.0), &tiny, Stop::Converged);
    assert!(out.iterations() <= 1 || out.is_penetrating().is_some());
}

#[test]
fn huge_and_tiny_coordinates_never_panic_or_nan() {
    let sq = Superquadric::new(Vector3::new(1.0_f32, 2.0, 0.5), 0.2, 1.8).unwrap();
    let e = Ellipsoid::new(Vector3::new(0.1_f32, 0.2, 0.3)).unwrap();
    for x in [1.0e30_f32, 3.0e38, 1.0e-30, 1.0e-44, -1.0e20] {
        let q = Pose::from_parts(Translation3::new(x, x * 0.5, -x), Default::default());
        for mode in [Stop::Decided, Stop::Converged] {
            let out = ellipsoid_superquadric(&sq, &Pose::identity(), &e, &q, &Budget::default(), mode);
            if let Some(h) = out.hit() {
                assert!(!h.margin.is_nan() && h.boundary_point.iter().all(|c| c.is_finite()), "{x}: {out:?}");
                if x.abs() > 10.0 {
                    assert_eq!(out.is_penetrating(), Some(false), "{x}");
                } else {
                    assert_eq!(out.is_penetrating(), Some(true), "{x}");
                }
            }
        }
        let _ = ellipsoids(&e, &Pose::identity(), &e, &q);
    }
}

#[test]
fn hostile_inputs_never_panic_nor_give_nan() {
    // Extreme but valid shapes (exponents at the ends of the accepted range,
    // aspect ratios of 1e4), poses with huge, tiny and non-finite entries,
    // rotation matrices that are not rotations: typed answers only.
    let mut rng = common::rng(16);
    let specials = [0.0, 1e-40, -1e-30, 1e30, -3e38, f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0, -0.5];
    let pick = |rng: &mut rand_chacha::ChaCha8Rng| -> f32 {
        if rng.random_bool(0.3) {
            specials[rng.random_range(0..specials.len())]
        } else {
            rng.random_range(-5.0..5.0)
        }
    };
    for _ in 0..3000 {
        let a = Vector3::new(rng.random_range(1e-2..1e2), rng.random_range(1e-2..1e2), rng.random_range(1e-2..1e2));
        let (e1, e2) =
            ([0.01_f32, 1.99, 0.5, 1.0][rng.random_range(0..4)], [0.01_f32, 1.99, 0.5, 1.0][rng.random_range(0..4)]);
        let Ok(sq) = Superquadric::new(a, e1, e2) else { continue };
        let e = Ellipsoid::new(Vector3::new(rng.random_range(1e-2..1e2), 1.0, rng.random_range(1e-2..1e2))).unwrap();
        let m = nalgebra::Matrix3::from_fn(|_, _| pick(&mut rng));
        let rot = if rng.random_bool(0.5) { Rotation3::from_matrix_unchecked(m) } else { Rotation3::identity() };
        let p2 = Pose::from_parts(Translation3::new(pick(&mut rng), pick(&mut rng), pick(&mut rng)), rot);
        for mode in [Stop::Decided, Stop::Converged] {
            let out = ellipsoid_superquadric(&sq, &Pose::identity(), &e, &p2, &Budget::default(), mode);
            if let Some(h) = out.hit() {
                assert!(!h.margin.is_nan() && !h.residual.is_nan(), "{out:?}");
                assert!(h.boundary_point.iter().chain(h.contact_point.iter()).all(|c| !c.is_nan()), "{out:?}");
            }
        }
        let _ = ellipsoids(&e, &Pose::identity(), &e, &p2);
        let se = Superellipse::new(Vector2::new(a.x, a.y), e1).unwrap();
        let el = Ellipse::new(Vector2::new(a.z, 1.0)).unwrap();
        let q = Pose2::from_parts(
            Translation2::new(pick(&mut rng), pick(&mut rng)),
            nalgebra::Rotation2::from_matrix_unchecked(nalgebra::Matrix2::from_fn(|_, _| pick(&mut rng))),
        );
        let out = ellipse_superellipse(&se, &Pose2::identity(), &el, &q, &Budget::default(), Stop::Converged);
        if let Some(h) = out.hit() {
            assert!(!h.margin.is_nan(), "{out:?}");
        }
        let _ = ellipses(&el, &Pose2::identity(), &el, &q);
        // The shapes' own maps on hostile points.
        let x = Vector3::new(pick(&mut rng), pick(&mut rng), pick(&mut rng));
        let _ = sq.support(&x);
        let _ = narrowphase::sdf::Sdf::<f32, 3>::eval(&sq, &x);
        let _ = sq.gauge(&x);
    }
}
