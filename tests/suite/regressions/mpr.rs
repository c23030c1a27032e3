//! `fuzz/regressions/mpr/`: MPR (`support::mpr`) on needles, far-away and
//! huge bodies. Defect classes: portal orientation tests that lose their
//! sign in rounding on bodies far longer than wide, products of degree 3
//! and 4 that overflow on huge bodies, and NaN reaching an answer. Truth:
//! separating planes from closed-form support functions, and dense sampling
//! of a superquadric's cross-section.

use nalgebra::{Matrix3, Quaternion, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;

use super::{at, best_gap};

/// `f64-needle-cone-cylinder-penetrating-29-apart`: a cylinder (half-height
/// 57.19, radius 52.2) at (57.22, 57.22, 0) and a needle cone (half-height
/// 6.98e10, radius 57: aspect 1.2e9, accepted by `Cone::new` up to 4.5e13)
/// at (0.22, 109.22, 109.49) rotated by the normalised quaternion (109.43,
/// 57.05, 57.22, 57.22), f64. A separating plane perpendicular to the cone
/// (closed-form support functions) leaves a gap ≥ 0.9. Guards the portal's
/// orientation tests: the centre ray starts 3.5e10 away (the cone's centre
/// is a quarter of its height up), the portal's points are 1e10 apart but
/// ~60 wide, and triple products `det(v0, a, b)` of such vectors (−1.3e15
/// exactly for the first portal, with a rounding error of ~4e16) carry no
/// sign. MPR computes the side tests on the parts of `a`, `b` orthogonal to
/// the ray and the portal normal from its two shortest edges; neither query
/// may answer `Penetrating`, and a separation certificate must hold against
/// the closed-form supports along its own axis.
#[test]
fn f64_needle_cone_and_cylinder_are_not_penetrating_in_mpr() {
    let s = |i: f64| i / 256.0;
    let (ha, ra, ca) = (s(14640.0), s(13363.0), Vector3::new(s(14649.0), s(14649.0), 0.0));
    let (hb, rb, cb) = (69831115271.99998, s(14592.0), Vector3::new(s(57.0), s(27961.0), s(28029.0)));
    let q = UnitQuaternion::new_normalize(Quaternion::new(s(28013.0), s(14605.0), s(14649.0), s(14649.0)));
    let a = Placed::new(Cylinder::new(ha, ra).unwrap(), at::<f64>(ca.x, ca.y, ca.z));
    let b = Placed::new(Cone::new(hb, rb).unwrap(), Pose::from_parts(Translation3::from(cb), q.to_rotation_matrix()));
    // Ground truth: closed-form support functions along directions n (from
    // A to B) perpendicular to the cone's axis (then h_cone(−n) = r_b):
    // gap(n) = −h_A(n) − h_B(−n), maximised over the angle.
    let h_cyl = |d: Vector3<f64>| ra * d.xy().norm() + ha * d.z.abs();
    let h_cone = |d: Vector3<f64>| (hb * d.z).max(rb * d.xy().norm() - hb * d.z);
    let gap_at = |phi: f64| {
        let n = q * Vector3::new(phi.cos(), phi.sin(), 0.0);
        -(ca.dot(&n) + h_cyl(n)) - (cb.dot(&-n) + h_cone(q.inverse() * -n))
    };
    let mut phi = (0..3600).map(|i| std::f64::consts::TAU * i as f64 / 3600.0).fold(0.0, |b, p| {
        if gap_at(p) > gap_at(b) {
            p
        } else {
            b
        }
    });
    let mut step = 1e-3;
    while step > 1e-12 {
        if gap_at(phi + step) > gap_at(phi) {
            phi += step;
        } else if gap_at(phi - step) > gap_at(phi) {
            phi -= step;
        } else {
            step *= 0.5;
        }
    }
    let gap = gap_at(phi);
    assert!(gap > 0.5, "closed-form gap {gap}");
    for out in [mpr::intersect(&a, &b, &Budget::default()), mpr::penetration(&a, &b, &Budget::default())] {
        assert_ne!(out.is_penetrating(), Some(true), "{gap} apart: {out:?}");
        // A separation certificate must hold against the closed-form
        // supports along its own axis (rounding of coordinates ~1e11: 1e-4).
        if let mpr::MprOutcome::Separated { lower_bound, axis } = out {
            let along = -(ca.dot(&axis) + h_cyl(axis)) - (cb.dot(&-axis) + h_cone(q.inverse() * -axis));
            assert!(lower_bound <= along + 1e-4, "certified {lower_bound}, closed form along its axis {along}");
        }
    }
}

/// `f64-superquadric-needle-portal-tilt-penetrating-12-apart`: the same class
/// with a tilted portal. f64, A = a superquadric with semi-axes (57.2,
/// 1.57e11, 73.3) and exponents (1.9817, 1.9778) at (117.1, 57.2, 0.8),
/// rotated by the normalised quaternion (−53.8, −122.6, 73.3, 73.3); B = a
/// sphere of radius 66.3 at (0.19, 112, 1.3e-201). A portal normal taken
/// from two edges 1.6e11 long has a tilt error (ε·L/w) far above 54, the
/// origin's true distance outside the portal; the sides are decided by a
/// determinant of vectors projected orthogonally to the longest one.
/// Ground truth: |y| ≪ a₂ near B, so A is locally the cylinder over the
/// superellipse `|x/a₁|^(2/ε₁) + |z/a₃|^(2/ε₁) ≤ 1`; the distance from B's
/// centre to it, by dense sampling, minus the radius is the gap (12.445).
#[test]
fn f64_superquadric_needle_is_not_penetrating_in_mpr() {
    let s = |i: f64| i / 256.0;
    let (a1, a2, a3) = (s(14649.0), 156842167410.52167, s(18761.0));
    let (e1, e2) = (1.99 - 83e-4, 1.99 - 122e-4);
    let sq = Superquadric::new(Vector3::new(a1, a2, a3), e1, e2).unwrap();
    let q = UnitQuaternion::new_normalize(Quaternion::new(s(-13767.0), s(-31396.0), s(18761.0), s(18758.0)));
    let ta = Vector3::new(s(29974.0), s(14640.0), s(204.0));
    let (cb, r) = (Vector3::new(s(48.0), s(28673.0), 1.2872034186456376e-201), s(16962.0));
    let a = Placed::new(sq, Pose::from_parts(Translation3::from(ta), q.to_rotation_matrix()));
    let b = Placed::new(Sphere::new(r).unwrap(), at::<f64>(cb.x, cb.y, cb.z));
    let p = q.inverse() * (cb - ta);
    assert!(p.y.abs() < 1e3, "B's centre is beside the needle's middle: {p:?}");
    let sp = |v: f64, e: f64| v.signum() * v.abs().powf(e);
    let nearest = (0..2_000_000)
        .map(|i| {
            let t = std::f64::consts::TAU * i as f64 / 2e6;
            ((a1 * sp(t.cos(), e1) - p.x).powi(2) + (a3 * sp(t.sin(), e1) - p.z).powi(2)).sqrt()
        })
        .fold(f64::INFINITY, f64::min);
    let gap = nearest - r;
    assert!(gap > 12.0, "closed-form gap {gap}");
    let budget = Budget::<f64> { max_iterations: 48, ..Budget::default() };
    for out in [mpr::intersect(&a, &b, &budget), mpr::penetration(&a, &b, &budget)] {
        assert_ne!(out.is_penetrating(), Some(true), "{gap} apart: {out:?}");
        if let mpr::MprOutcome::Separated { lower_bound, .. } = out {
            assert!(lower_bound <= gap + 1e-3, "certified {lower_bound} above the gap {gap}");
        }
    }
}

/// `f64-ellipsoid-1e110-penetrating-1.7e109-apart`: B = `Affine(Sphere(8.44e107),
/// M)` with M's columns (0, 57.2, 57.2), (57.2, 57.2, 86), (86.3, 86.3,
/// 86.3), at (86.3, 86.3, 3.01e109); A = a sphere of radius 57 at (57.2,
/// 57.2, 57.2). A closed-form separating plane leaves a gap of 4e108.
/// Guards scale covariance up to `max_extent` (1.3e151 in f64): MPR's
/// triple products and the `|n|²` of portal normals (fourth powers of the
/// size) overflow from ~1e77 on, so MPR runs such problems scaled by an
/// exact power of two; the same pair scaled by 1/8.44e107 and the pair as
/// given must both not answer `Penetrating` (see also
/// `mpr::scale_covariant_far_beyond_the_product_range`).
#[test]
fn f64_ellipsoid_at_1e110_is_not_penetrating_in_mpr() {
    let s = |i: f64| i / 256.0;
    let m = Matrix3::from_iterator([
        0.0,
        s(14649.0),
        s(14649.0),
        s(14649.0),
        s(14649.0),
        s(22016.0),
        s(22102.0),
        s(22102.0),
        s(22102.0),
    ]);
    let (r, tb) = (8.440074906843462e107, Vector3::new(s(22098.0), s(22102.0), 3.0135035074060696e109));
    let (ra, ca) = (s(14602.0), Vector3::new(s(14640.0), s(14649.0), s(14649.0)));
    let build = |k: f64| {
        let b = Placed::new(
            Affine::new(Sphere::new(r / k).unwrap(), m, Vector3::zeros()).unwrap(),
            at::<f64>(tb.x / k, tb.y / k, tb.z / k),
        );
        let a = Placed::new(Sphere::new(ra / k).unwrap(), at::<f64>(ca.x / k, ca.y / k, ca.z / k));
        (a, b)
    };
    // Ground truth: a separating plane from closed-form support functions
    // (h_B(d) = t·d + r|Mᵀd|).
    let gap = best_gap(|n| -(ca.dot(&n) + ra) - (tb.dot(&-n) + r * (m.transpose() * -n).norm()));
    assert!(gap > 3e108, "closed-form gap {gap:e}");
    let (a, b) = build(r);
    assert_eq!(mpr::intersect(&a, &b, &Budget::default()).is_penetrating(), Some(false));
    let (a, b) = build(1.0);
    let out = mpr::intersect(&a, &b, &Budget::default());
    assert_ne!(out.is_penetrating(), Some(true), "{gap:e} apart: {out:?}");
}

/// `f64-affine-cone-1.6e151-penetrating-6.6e150-apart`: A = a cone
/// (half-height 2.5e149, radius 8e150) under the linear map with columns
/// (1, 0.25, 0), (0, 1.5, 0), (0.125, 0, −128), rotated by the axis-angle
/// vector (1, 118.88, −84.13) and placed at (3e150, 8e150, 8e150); B = a
/// unit sphere near the origin. The map stretches the cone to ~6e151, past
/// `max_extent` (1.3e151), and puts its interior point 1.6e151 from the
/// origin. MPR ran such problems unscaled, its degree-4 products overflowed,
/// and both queries answered `Penetrating` (depth 1.9e151). Truth: a
/// separating plane from closed-form support functions (the cone's is
/// `max(h·u_z, −h·u_z + r·|u_xy|)`), and every separation certificate holds
/// along its own axis against them.
#[test]
fn f64_affine_cone_beyond_max_extent_is_not_penetrating_in_mpr() {
    let (h, r) = (2.5e149, 8e150);
    let m = Matrix3::from_iterator([1.0, 0.25, 0.0, 0.0, 1.5, 0.0, 0.125, 0.0, -128.0]);
    let rot = Rotation3::new(Vector3::new(256.0, 30434.0, -21537.0) / 256.0);
    let t = Vector3::new(3e150, 8e150, 8e150);
    let cb = Vector3::new(0.0, -3.720663582180594e-103, 1.0);
    let a = Placed::new(
        Affine::new(Cone::new(h, r).unwrap(), m, Vector3::zeros()).unwrap(),
        Pose::from_parts(Translation3::from(t), rot),
    );
    let b = Placed::new(Sphere::new(1.0).unwrap(), at::<f64>(cb.x, cb.y, cb.z));
    let h_a = |n: Vector3<f64>| {
        let u = m.transpose() * (rot.inverse() * n);
        t.dot(&n) + (h * u.z).max(-h * u.z + r * u.xy().norm())
    };
    let gap = |n: Vector3<f64>| -h_a(n) - (cb.dot(&-n) + 1.0);
    let best = best_gap(gap);
    assert!(best > 6e150, "closed-form gap {best:e}");
    for out in [mpr::intersect(&a, &b, &Budget::default()), mpr::penetration(&a, &b, &Budget::default())] {
        match out {
            MprOutcome::Separated { lower_bound, axis } => {
                assert!(lower_bound <= gap(axis) * (1.0 + 1e-9), "{best:e} apart, certificate {out:?}")
            }
            _ => panic!("{best:e} apart: {out:?}"),
        }
    }
}

/// `crash-aa0e7979dfb66f93a3193b17b8ddf965f5cae6c8`: a sphere under a linear
/// map with entries −2e81 (a body ~1e83 across) against an affine capsule,
/// where `n·n` of a portal normal overflows. Truth: a determined answer
/// never carries NaN witnesses (an overflow is `Undetermined::NonFinite`).
#[test]
fn f64_mpr_never_answers_with_nan_witnesses() {
    let s = |i: f64| i / 256.0;
    let big = -1.993854408381186e81;
    let ma = Matrix3::from_iterator([80.0, -204.0, 26569.0, 0.0, 14649.0, 11833.0, 0.0, 14649.0, 14649.0].map(s));
    let mb = Matrix3::from_iterator([0.0, big, big, big, big, big, big, big, s(-199.0)]);
    let a = Placed::new(
        Affine::new(Capsule::new(s(19761.0), s(12495.0)).unwrap(), ma, Vector3::zeros()).unwrap(),
        Pose::from_parts(Translation3::new(s(57.0), 0.0, 0.0), Default::default()),
    );
    let b = Placed::new(
        Affine::new(Sphere::new(s(14592.0)).unwrap(), mb, Vector3::zeros()).unwrap(),
        Pose::from_parts(Translation3::new(91536490624.99998, s(28049.0), s(911.0)), Default::default()),
    );
    let budget = Budget::new(192, Budget::<f64>::default().tolerance);
    for out in [mpr::intersect(&a, &b, &budget), mpr::penetration(&a, &b, &budget)] {
        if let MprOutcome::Penetrating(p) = out {
            let w = p.witness;
            assert!(w.point_a.coords.iter().chain(w.point_b.coords.iter()).all(|c| c.is_finite()), "{out:?}");
        }
    }
}

/// `f32-tiny-centre-zero-budget-nan-bounds`: f32, a box (0.5, 57.2, 0.22) at
/// (2.6e-30, 0, 2.5e-319 → 0) and a ball of radius 57.2 at the origin, a
/// budget of 0 iterations. The run stops before any support point, its
/// scale is the centres' 2.6e-30, below MPR's product range, and the factor
/// that would rescale it into that range (2¹²⁸) is infinite in f32. Truth:
/// an iteration cap with ordered bounds that are not NaN (and, with a
/// budget, the two bodies overlap: the ball holds the box's centre).
#[test]
fn f32_zero_budget_with_a_tiny_centre_has_no_nan_bounds() {
    let s = |i: f32| i / 256.0;
    let a = Placed::new(
        Cuboid::new(Vector3::new(s(128.0), s(14649.0), s(57.0))).unwrap(),
        Pose::from_parts(Translation3::new(2.586_058_8e-30_f32, 0.0, 0.0), Default::default()),
    );
    let b = Placed::new(Sphere::new(s(14649.0)).unwrap(), Pose::identity());
    for out in [mpr::intersect(&a, &b, &Budget::new(0, 1e-4)), mpr::penetration(&a, &b, &Budget::new(0, 1e-4))] {
        match out {
            MprOutcome::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                assert!(!bounds.lower.is_nan() && !bounds.upper.is_nan() && bounds.lower <= bounds.upper, "{out:?}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(mpr::intersect(&a, &b, &Budget::default()).is_penetrating(), Some(true));
}
