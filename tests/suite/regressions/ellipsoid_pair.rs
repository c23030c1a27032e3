//! `fuzz/regressions/ellipsoid_pair/`: the algebraic ellipsoid–ellipsoid and
//! ellipse–ellipse checker (`minkowski::ellipsoid_pair`) on thin bodies. The
//! defect class: the polynomial's coefficients, computed in the frame where
//! A is the unit ball, lose their accuracy when a body is thin (1:256 and
//! more), beyond the rounding bound of `classify`, so one order of the pair
//! could certify the wrong answer while the other is right. Truth:
//! separating planes from closed-form support functions, or a point of one
//! body inside the other.

use nalgebra::{Rotation2, Translation2, Vector2, Vector3};
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids, AlgebraicOutcome};
use narrowphase::prelude::*;

use super::{at, best_gap};

/// Support value `h(n) = c·n + |Λ(a) n|` of an axis-aligned ellipsoid
/// (semi-axes `a`, centre `c`), exact in f64.
fn h_ellipsoid(a: [f64; 3], c: [f64; 3], n: [f64; 3]) -> f64 {
    let s = (0..3).map(|i| (a[i] * n[i]).powi(2)).sum::<f64>().sqrt();
    (0..3).map(|i| c[i] * n[i]).sum::<f64>() + s
}

/// The bounds of "not colliding": `Separated`, or a colliding answer that
/// admits it is within rounding of touching.
fn not_hard_colliding<R: Real>(o: &AlgebraicOutcome<R>) -> bool {
    match o {
        AlgebraicOutcome::Separated(_) => true,
        AlgebraicOutcome::Penetrating(c) => c.touching,
        AlgebraicOutcome::Undetermined { .. } => true,
    }
}

/// `f32-thin-a-no-critical-point-colliding`: A = (126, 48, 0.4921875) at
/// (127.9375, 35, 0), B = (35, 0.0625, 10^(10/32)) at the origin, f32. The
/// plane with normal n = (−0.3773, −0.9261, 0) separates them by 2.39
/// (closed-form support values). Guards the order (A, B), where A mapped to
/// the unit ball has a 1:256 axis: a quartic whose f32 coefficients are
/// 1.6–3 % off can lose its positive critical point, and `classify` must not
/// turn that into a non-touching `Penetrating { λ: 0, value: +∞ }`.
#[test]
fn f32_thin_a_no_critical_point_is_not_colliding() {
    let (a, ca) = ([126.0, 48.0, 0.4921875], [127.9375, 35.0, 0.0]);
    let (b, cb) = ([35.0, 0.0625, 10f64.powf(10.0 / 32.0)], [0.0, 0.0, 0.0]);
    // Ground truth: h_A(n) + h_B(−n) < 0 for this n (from A towards B)
    // proves a gap.
    let n = [-0.377_306_883_529_890_3, -0.926_088_287_174_047_9, 0.0];
    let m = n.map(|x: f64| -x);
    let gap = -(h_ellipsoid(a, ca, n) + h_ellipsoid(b, cb, m));
    assert!(gap > 2.3, "closed-form gap {gap}");
    let ea = Ellipsoid::new(Vector3::new(a[0] as f32, a[1] as f32, a[2] as f32)).unwrap();
    let eb = Ellipsoid::new(Vector3::new(b[0] as f32, b[1] as f32, b[2] as f32)).unwrap();
    let (pa, pb) = (at::<f32>(ca[0], ca[1], ca[2]), at::<f32>(0.0, 0.0, 0.0));
    assert_eq!(ellipsoids(&eb, &pb, &ea, &pa).is_penetrating(), Some(false));
    let out = ellipsoids(&ea, &pa, &eb, &pb);
    assert!(not_hard_colliding(&out), "separated by {gap}, f32 says {out:?}");
}

/// `f32-thin-a-colliding-value-1336`: A = (85.97265625, 49, 0.4921875) at
/// (127, 0, 0), B as above at the origin, f32. The plane x = 38 separates
/// them (A starts at x = 41.03, B ends at x = 35); neither order may answer
/// a non-touching `Penetrating` (the thin-body coefficient error gives one
/// with value 1336).
#[test]
fn f32_thin_a_separated_by_a_plane_is_not_colliding() {
    // Semi-axes (exact in f32: multiples of 1/256, and B's third one is
    // computed in f32 below).
    let axes_a = Vector3::new(85.97265625, 49.0, 0.4921875);
    let axes_b = Vector3::new(35.0, 0.0625, 10f64.powf(10.0 / 32.0));
    let ea = Ellipsoid::new(axes_a.cast::<f32>()).unwrap();
    let eb = Ellipsoid::new(Vector3::new(35.0_f32, 0.0625, 10f32.powf(10.0 / 32.0))).unwrap();
    let (pa, pb) = (at::<f32>(127.0, 0.0, 0.0), at::<f32>(0.0, 0.0, 0.0));
    // Ground truth: axis-aligned extents along x (A from 127 − a₁, B up to b₁).
    assert!(127.0 - axes_a.x > 41.0 && axes_b.x < 41.0);
    assert_eq!(ellipsoids(&eb, &pb, &ea, &pa).is_penetrating(), Some(false));
    let f64_out = ellipsoids(
        &Ellipsoid::new(axes_a).unwrap(),
        &at::<f64>(127.0, 0.0, 0.0),
        &Ellipsoid::new(axes_b).unwrap(),
        &at::<f64>(0.0, 0.0, 0.0),
    );
    assert_eq!(f64_out.is_penetrating(), Some(false));
    let out = ellipsoids(&ea, &pa, &eb, &pb);
    assert!(not_hard_colliding(&out), "6 apart along x, f32 says {out:?}");
}

/// `f32-2d-circle-needle-false-separated`: f32, 2D, the dangerous direction
/// of the class — a missed collision. A = circle r = 16.0625 at (16.0625,
/// 16.0625) (rotated 16.06 rad); B = ellipse (16.0625, 0.0625), a 257:1
/// needle, at (−0.508, 0.492) rotated by 1/64 rad. B's tip
/// `c_B + R·(16.0625, 0)` = (15.55, 0.74) is 15.33 from A's centre: inside
/// A by 0.73. Neither order may certify `Separated` (the cubic's f32
/// coefficients with B thin give a "certified" value of −32768).
#[test]
fn f32_2d_circle_and_needle_are_not_separated() {
    let s = |i: f64| i / 256.0;
    let (ra, ca, ta) = (s(4112.0), Vector2::new(s(4112.0), s(4112.0)), s(4112.0));
    let (ab, cb, tb) = (Vector2::new(s(4112.0), s(16.0)), Vector2::new(s(-130.0), s(126.0)), s(4.0));
    // Ground truth: B's tip lies inside A.
    let tip = cb + Rotation2::new(tb) * Vector2::new(ab.x, 0.0);
    assert!((tip - ca).norm() < ra - 0.7, "tip {tip:?} at {} from A's centre", (tip - ca).norm());
    let a = Ellipse::new(Vector2::new(ra as f32, ra as f32)).unwrap();
    let b = Ellipse::new(ab.cast::<f32>()).unwrap();
    let pa = Pose2::from_parts(Translation2::new(ca.x as f32, ca.y as f32), Rotation2::new(ta as f32));
    let pb = Pose2::from_parts(Translation2::new(cb.x as f32, cb.y as f32), Rotation2::new(tb as f32));
    assert_eq!(ellipses(&b, &pb, &a, &pa).is_penetrating(), Some(true));
    let out = ellipses(&a, &pa, &b, &pb);
    assert_ne!(out.is_penetrating(), Some(false), "overlapping by 0.73, f32 says {out:?}");
}

/// `f64-thin-a-colliding-0.1-apart`: the thin-body class in f64. A = (0.191,
/// 1, 126) at (35.14, 35.14, 0) — a 660:1 plate — and B = (126, 35.06,
/// 0.0625) at (65.43, 0, 0), identity rotations. A closed-form separating
/// plane leaves a gap of ≈ 0.10; the order (A, B) must not answer a
/// non-touching `Penetrating` (the wrong critical point, λ = 97533, gives
/// one with value 1.8e13 τ).
#[test]
fn f64_thin_a_plate_is_not_colliding() {
    let s = |i: f64| i / 256.0;
    let (a, ca) = ([s(49.0), 1.0, s(32256.0)], [s(8995.0), s(8995.0), 0.0]);
    let (b, cb) = ([s(32256.0), s(8976.0), s(16.0)], [s(16751.0), 0.0, 0.0]);
    let gap = best_gap(|n| -(h_ellipsoid(a, ca, [n.x, n.y, n.z]) + h_ellipsoid(b, cb, [-n.x, -n.y, -n.z])));
    assert!(gap > 0.03, "closed-form gap {gap}");
    let ea = Ellipsoid::new(Vector3::from(a)).unwrap();
    let eb = Ellipsoid::new(Vector3::from(b)).unwrap();
    let (pa, pb) = (at::<f64>(ca[0], ca[1], ca[2]), at::<f64>(cb[0], cb[1], cb[2]));
    assert_eq!(ellipsoids(&eb, &pb, &ea, &pa).is_penetrating(), Some(false));
    let out = ellipsoids(&ea, &pa, &eb, &pb);
    assert!(not_hard_colliding(&out), "{gap} apart, f64 says {out:?}");
}
