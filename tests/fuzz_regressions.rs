//! Findings of the fuzz campaign (issue 8), each rebuilt by hand from its
//! input in `fuzz/regressions/<target>/` and checked against ground truth
//! from closed forms. A test marked `#[ignore = "kernel bug: …"]` fails today
//! and documents an open kernel fix (see `fuzz/regressions/README.md`).

use nalgebra::{Matrix3, Point3, Quaternion, Rotation2, Translation2, Translation3, UnitQuaternion, Vector2, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids, AlgebraicOutcome};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;

fn at<R: Real>(x: f64, y: f64, z: f64) -> Pose<R> {
    Pose::from_parts(Translation3::new(R::lit(x), R::lit(y), R::lit(z)), Default::default())
}

/// Support value `h(n) = c·n + |Λ(a) n|` of an axis-aligned ellipsoid
/// (semi-axes `a`, centre `c`), exact in f64.
fn h_ellipsoid(a: [f64; 3], c: [f64; 3], n: [f64; 3]) -> f64 {
    let s = (0..3).map(|i| (a[i] * n[i]).powi(2)).sum::<f64>().sqrt();
    (0..3).map(|i| c[i] * n[i]).sum::<f64>() + s
}

/// `max over unit n of gap(n)` by a spherical grid and a shrinking local
/// search: with `gap(n) = −h_A(n) − h_B(−n)` from closed-form support
/// functions, a positive value is a separating plane (a proof of the
/// distance being at least that).
fn best_gap(gap: impl Fn(Vector3<f64>) -> f64) -> f64 {
    let dir = |t: f64, p: f64| Vector3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos());
    let (mut best, mut bt, mut bp) = (f64::NEG_INFINITY, 0.0, 0.0);
    for i in 0..=180 {
        for j in 0..360 {
            let (t, p) = (std::f64::consts::PI * i as f64 / 180.0, std::f64::consts::TAU * j as f64 / 360.0);
            let g = gap(dir(t, p));
            if g > best {
                (best, bt, bp) = (g, t, p);
            }
        }
    }
    let mut step = 0.02;
    while step > 1e-12 {
        let mut moved = false;
        for (dt, dp) in [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)] {
            let g = gap(dir(bt + dt, bp + dp));
            if g > best {
                (best, bt, bp, moved) = (g, bt + dt, bp + dp, true);
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    best
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

// ------------------------------------------------------ ellipsoid_pair ----

/// `fuzz/regressions/ellipsoid_pair/f32-thin-a-no-critical-point-colliding`:
/// A = (126, 48, 0.4921875) at (127.9375, 35, 0), B = (35, 0.0625, 10^(10/32))
/// at the origin, f32. The plane with normal n = (−0.3773, −0.9261, 0)
/// separates them by 2.39 (closed-form support values); f64 says separated
/// in both orders, f32 in the order (B, A). In the order (A, B) f32 loses
/// the positive critical point of the quartic (coefficients 1.6–3 % off:
/// A, mapped to the unit ball, has a 1:256 axis) and `classify` answers a
/// non-touching `Penetrating { λ: 0, value: +∞ }`.
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

/// `fuzz/regressions/ellipsoid_pair/f32-thin-a-colliding-value-1336`:
/// A = (85.97265625, 49, 0.4921875) at (127, 0, 0), B as above at the
/// origin, f32: the plane x = 38 separates them (A starts at x = 41.03, B
/// ends at x = 35), yet `ellipsoids(A, B)` answers a non-touching
/// `Penetrating { value: 1336 }` (the order (B, A) is right).
#[test]
fn f32_thin_a_separated_by_a_plane_is_not_colliding() {
    let ea = Ellipsoid::new(Vector3::new(85.972_656_f32, 49.0, 0.492_187_5)).unwrap();
    let eb = Ellipsoid::new(Vector3::new(35.0_f32, 0.0625, 10f32.powf(10.0 / 32.0))).unwrap();
    let (pa, pb) = (at::<f32>(127.0, 0.0, 0.0), at::<f32>(0.0, 0.0, 0.0));
    // Ground truth: axis-aligned extents along x.
    assert!(127.0 - 85.972_656 > 41.0 && 35.0 < 41.0);
    assert_eq!(ellipsoids(&eb, &pb, &ea, &pa).is_penetrating(), Some(false));
    let f64_out = ellipsoids(
        &Ellipsoid::new(Vector3::new(85.97265625, 49.0, 0.4921875)).unwrap(),
        &at::<f64>(127.0, 0.0, 0.0),
        &Ellipsoid::new(Vector3::new(35.0, 0.0625, 10f64.powf(10.0 / 32.0))).unwrap(),
        &at::<f64>(0.0, 0.0, 0.0),
    );
    assert_eq!(f64_out.is_penetrating(), Some(false));
    let out = ellipsoids(&ea, &pa, &eb, &pb);
    assert!(not_hard_colliding(&out), "6 apart along x, f32 says {out:?}");
}

/// `fuzz/regressions/ellipsoid_pair/f32-2d-circle-needle-false-separated`:
/// f32, 2D. A = circle r = 16.0625 at (16.0625, 16.0625) (rotated 16.06
/// rad); B = ellipse (16.0625, 0.0625) — a 257:1 needle — at (−0.508,
/// 0.492) rotated by 1/64 rad. B's tip `c_B + R·(16.0625, 0)` = (15.55,
/// 0.74) is 15.33 from A's centre: inside A by 0.73. f64: `Penetrating`;
/// f32 `ellipses(B, A)`: `Penetrating`; f32 `ellipses(A, B)`: **`Separated`**
/// (value −32768, "certified") — a missed collision. Same cause as the 3D
/// f32 findings: the cubic's coefficients in the frame where A is the unit
/// disc lose their accuracy when B is thin, beyond the rounding bound τ.
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

// -------------------------------------------------------- superquadric ----

/// `fuzz/regressions/superquadric/f32-2d-rectangle-disc-false-interior-cone`:
/// superellipse (10.02734375, 10^(35/32) = 12.36), ε = 0.01 (nearly a
/// rectangle) at (32.98, 0); ellipse (101.015625, 101.03125) at (101.39,
/// 101.39); f32, default tolerance. Ground truth: the superellipse lies in
/// its bounding rectangle [22.95, 43.01] × [−12.36, 12.36], whose nearest
/// point to the ellipse's centre is 106.6 away > 101.04, the ellipse's
/// largest semi-axis: separated by ≥ 5.5. `Stop::Converged` says separated
/// (margin 1.047); `Stop::Decided` stops at its first iterate with a
/// *certified* `Penetrating` (margin 1.075 > 1): the interior-cone test of
/// `certify` used the radial bound `L·sin α / sin(α + θ)` of
/// `conv(B(0, ρ) ∪ {x_eb})` at an angle `θ = 38°` beyond the tangent point of
/// the cone (`θ > π/2 − α`, `α = 77.5°`), where the hull's radius is only `ρ`.
#[test]
fn f32_2d_rectangle_disc_is_not_certified_colliding() {
    let se = Superellipse::new(Vector2::new(10.027_344_f32, 10f32.powf(35.0 / 32.0)), 0.01).unwrap();
    let el = Ellipse::new(Vector2::new(101.015_625_f32, 101.031_25)).unwrap();
    let p1 = Pose2::from_parts(Translation2::new(32.980_47_f32, 0.0), Rotation2::identity());
    let p2 = Pose2::from_parts(Translation2::new(101.394_53_f32, 101.394_53), Rotation2::identity());
    // Ground truth from the bounding rectangle.
    let (dx, dy): (f64, f64) = (101.39453125 - (32.98046875 + 10.02734375), 101.39453125 - 10f64.powf(35.0 / 32.0));
    assert!(dx.hypot(dy) - 101.03125 > 5.0);
    let budget = Budget::new(162, Budget::<f32>::default().tolerance);
    let margin = ellipse_superellipse(&se, &p1, &el, &p2, &budget, Stop::Converged);
    assert_eq!(margin.is_penetrating(), Some(false), "{margin:?}");
    let decide = ellipse_superellipse(&se, &p1, &el, &p2, &budget, Stop::Decided);
    assert_ne!(decide.is_penetrating(), Some(true), "{decide:?}");
}

/// The same false certificate in 3D (hand-made from the 2D finding): a
/// nearly cubic superquadric (10, 12, 12), ε = (0.01, 0.01), at (33, 0, 0)
/// and a ball of radius 101 at (101.4, 101.4, 0), f32. Its bounding box's
/// nearest point (43, 12, 0) is 106.8 from the ball's centre: separated by
/// ≥ 5.8. `Stop::Decided` answers a certified `Penetrating` at iteration 1.
#[test]
fn f32_3d_box_ball_is_not_certified_colliding() {
    let sq = Superquadric::new(Vector3::new(10.0_f32, 12.0, 12.0), 0.01, 0.01).unwrap();
    let e = Ellipsoid::new(Vector3::new(101.0_f32, 101.0, 101.0)).unwrap();
    let (p1, p2) = (at::<f32>(33.0, 0.0, 0.0), at::<f32>(101.4, 101.4, 0.0));
    assert!((101.4f64 - 43.0).hypot(101.4 - 12.0) - 101.0 > 5.0_f64);
    let margin = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Converged);
    assert_eq!(margin.is_penetrating(), Some(false), "{margin:?}");
    let decide = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Decided);
    assert_ne!(decide.is_penetrating(), Some(true), "{decide:?}");
}

/// `fuzz/regressions/superquadric/f64-zero-rotation-coincident-nan`: a
/// superquadric pose whose rotation comes from `UnitQuaternion::
/// new_normalize` of a quaternion with a 2.8e180 component: the norm
/// overflows and the "rotation" is the zero matrix (finite; poses are not
/// validated). The local centre offset is then 0, the coincident-centres
/// shortcut answers a *determined* `Penetrating` whose boundary point is NaN
/// (the ellipsoid's shape matrix `rot·B²·rotᵀ` is zero: `0/0` in its
/// support). Every other path checks finiteness (`settle`) and would answer
/// `Undetermined::NonFinite`; a determined answer must not carry NaN.
#[test]
fn f64_zero_rotation_coincident_centres_has_no_nan() {
    let sq = Superquadric::new(Vector3::new(47.0, 47.0, 0.13671875), 0.0133, 0.01).unwrap();
    let l = |k: f64| 10f64.powf(k / 32.0);
    let e = Ellipsoid::new(Vector3::new(l(101.0), l(101.0), l(-8.0))).unwrap();
    let q = Quaternion::<f64>::new(101.39453125, 2.77448001762435e180, 101.39453125, 101.39453125);
    let rot = UnitQuaternion::new_normalize(q).to_rotation_matrix();
    assert!(rot.matrix().iter().all(|x| x.is_finite()));
    let p1 = Pose::from_parts(Translation3::new(4.38952151221776e48, 101.39453125, 101.39453125), rot);
    let out = ellipsoid_superquadric(&sq, &p1, &e, &Pose::identity(), &Budget::new(0, 1e-12), Stop::Decided);
    if let Some(h) = out.hit() {
        let all = h.boundary_point.iter().chain(h.contact_point.iter()).chain(h.normal.iter());
        assert!(all.into_iter().all(|x: &f64| x.is_finite()), "{out:?}");
        assert!((h.normal.norm() - 1.0).abs() < 1e-6, "{out:?}");
    }
}

// ----------------------------------------------------------------- mpr ----

/// `fuzz/regressions/mpr/f64-needle-cone-cylinder-penetrating-29-apart`: a
/// cylinder (half-height 57.19, radius 52.2) at (57.22, 57.22, 0) and a
/// needle cone (half-height 6.98e10, radius 57: aspect 1.2e9, accepted by
/// `Cone::new` up to 4.5e13) at (0.22, 109.22, 109.49) rotated by the
/// normalised quaternion (109.43, 57.05, 57.22, 57.22), f64. A separating
/// plane perpendicular to the cone (closed-form support functions) leaves
/// a gap ≥ 0.9 (GJK certifies ≥ 5.47; the same pair with a 1e3…1e7 long
/// cone is 29.4 apart); `mpr::intersect` answers `Penetrating` with depth 47.2. The centre ray
/// starts 3.5e10 away (the cone's centre is a quarter of its height up) and
/// the portal's triple products (`v0·(p1×p3)`, the portal normal of CSO
/// points 1e10 apart but ~60 wide) lose their sign in the rounding: the
/// "origin behind the portal" test then proves nothing.
/// Fixed 2026-11-24 (replayed in exact rational arithmetic: the first
/// portal did not contain the ray — `det(v0, v3, v2)` is −1.3e15, computed
/// ≥ 0 with an error of ~4e16): the side tests `det(v0, a, b)` now run on
/// the parts of `a`, `b` orthogonal to the ray, and the portal normal is
/// the cross product of its two shortest edges (from the two long ones the
/// next portal's orientation flipped by rounding). MPR then answers
/// `Separated` with a certificate of 4.97.
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

/// `fuzz/regressions/mpr/f64-ellipsoid-1e110-penetrating-1.7e109-apart`: B
/// = `Affine(Sphere(8.44e107), M)` with M's columns (0, 57.2, 57.2),
/// (57.2, 57.2, 86), (86.3, 86.3, 86.3), at (86.3, 86.3, 3.01e109); A = a
/// sphere of radius 57 at (57.2, 57.2, 57.2). A closed-form separating plane
/// leaves a gap of 4e108 (GJK: 1.67e109); `mpr::intersect` answers
/// `Penetrating` (depth 8.3e109). The same pair scaled by 1/8.44e107 is
/// `Separated` (right): MPR is not scale-invariant up to `max_extent` (1.3e151
/// in f64) — its triple products and `|n|²` of portal normals (fourth powers
/// of the size) overflow from ~1e77 on, which `max_extent` ("squared lengths
/// never overflow") does not cover.
/// Fixed: MPR runs such problems scaled by a power of two (exact) into the
/// range where its products cannot overflow (`tests/mpr.rs`,
/// `scale_covariant_far_beyond_the_product_range`).
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

// ------------------------------------------------------------ polytope ----

/// `fuzz/regressions/polytope/f64-hull-reflex-vertex-1e-47-traps-climb`:
/// `quickhull` of 27 points (coordinates `i/256` up to 119.96, three of them
/// with x = 1.5e-47, 0 and −1.1e-204) gives 14 vertices, among them
/// v = (1.5e-47, 119, 119): inside the hull's face x = 0 (with its
/// neighbours (0, 119.46, 1.06), (0, 119.36, 119.46), (−1e-204, 13.05,
/// 13.05)), a reflex vertex by 1.5e-47, kept with three faces whose normals
/// differ by 1e-47. `Polytope::new` accepts it: `check_corners` asks for
/// exact linear independence of the incident normals, and convexity only up
/// to the tolerance. Hill climbing along +x from v stops at v (value
/// 1.5e-47: no neighbour is larger) while the scan finds 119.96: an error
/// of the polytope's whole size, not "optimal up to the tolerance" as the
/// docs of `support_index_climb` say. With 64 vertices or more, `support`
/// climbs, so GJK/MPR/EPA would see a wrong support point from such a hint.
/// Fixed: `Polytope::new` asks every vertex to be a strict corner beyond
/// rounding (the faces around it away from each edge put it above that
/// neighbour), and `quickhull` drops the vertices that are not and builds
/// again.
#[test]
fn f64_hull_reflex_vertex_does_not_trap_the_climb() {
    let s = |i: f64| i / 256.0;
    let raw: [[f64; 3]; 27] = [
        [s(0.0), s(30583.0), s(271.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30711.0), s(30583.0), s(24695.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30583.0), s(30574.0), s(30583.0)],
        [s(24695.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30583.0), s(1285.0), s(23387.0)],
        [s(23342.0), 1.7895767878486897e-284, s(1376.0)],
        [1.5197741196739586e-47, s(30464.0), s(30464.0)],
        [s(3328.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [s(30583.0), s(30465.0), s(271.0)],
        [s(12151.0), s(28279.0), s(0.0)],
        [s(30583.0), s(0.0), s(30464.0)],
        [s(0.0), s(30557.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [-1.075675313938059e-204, s(3341.0), s(3341.0)],
        [s(3332.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(30583.0), s(30465.0)],
        [s(30465.0), s(12151.0), s(28279.0)],
        [s(2048.0), s(30583.0), s(271.0)],
        [s(30583.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(119.0)],
    ];
    let pts: Vec<Point3<f64>> = raw.iter().map(|p| Point3::new(p[0], p[1], p[2])).collect();
    let hull = quickhull(&pts).unwrap();
    let p = hull.polytope().unwrap();
    let v = p.data().vertices;
    // Ground truth: the largest x of the input points.
    let best = raw.iter().fold(f64::NEG_INFINITY, |m, q| m.max(q[0]));
    assert_eq!(best, s(30711.0));
    let size = 120.0;
    for start in 0..v.len() {
        let i = p.support_index_climb(&Vector3::x(), start);
        assert!(v[i].x >= best - 1e-4 * size, "climb from {start} ({:?}) stopped at {:?}", v[start], v[i]);
    }
}

/// `fuzz/regressions/ellipsoid_pair/f64-thin-a-colliding-0.1-apart`: the
/// f32 class above, in f64. A = (0.191, 1, 126) at (35.14, 35.14, 0) — a
/// 660:1 plate — and B = (126, 35.06, 0.0625) at (65.43, 0, 0), identity
/// rotations. A closed-form separating plane leaves a gap of ≈ 0.10;
/// `ellipsoids(B, A)` says `Separated`, `ellipsoids(A, B)` a non-touching
/// `Penetrating` with value 1.8e13 τ (λ = 97533: the wrong critical point).
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

/// `fuzz/regressions/superquadric/crash-4b7b1ae5…` (campaign of
/// 2026-11-22): a pose rotation from a raw quaternion whose components
/// (−3.4e-161) square to subnormals is not orthonormal (its normalisation is
/// off by ~1.7e-3), and the checker answered a certified `Separated` with a
/// normal of length 1.0017. Closed form: such a matrix scales lengths, so no
/// answer built on it can carry a unit normal; the checker must say so
/// (`Degenerate`), in 2D as in 3D, while a true rotation still decides.
#[test]
fn non_orthonormal_pose_rotations_are_degenerate_in_the_superquadric_checker() {
    use narrowphase::query::Stop;
    let sq = Superquadric::new(Vector3::new(1.0_f64, 0.5, 0.8), 1.2, 0.7).unwrap();
    let e = Ellipsoid::new(Vector3::new(0.3, 0.2, 0.4)).unwrap();
    let apart = Translation3::new(5.0, 0.0, 0.0);
    let skewed = nalgebra::Rotation3::from_matrix_unchecked(Matrix3::identity() * 1.0017);
    for mode in [Stop::Decided, Stop::Converged] {
        let bad = ellipsoid_superquadric(
            &sq,
            &Pose::from_parts(apart, skewed),
            &e,
            &Pose::identity(),
            &Budget::default(),
            mode,
        );
        assert!(matches!(bad, MinkowskiOutcome::Undetermined { reason: Undetermined::Degenerate, .. }), "{bad:?}");
        let good = ellipsoid_superquadric(
            &sq,
            &Pose::from_parts(apart, Default::default()),
            &e,
            &Pose::identity(),
            &Budget::default(),
            mode,
        );
        assert_eq!(good.is_penetrating(), Some(false), "{good:?}");
    }
    let se = Superellipse::new(Vector2::new(1.0_f64, 0.5), 0.7).unwrap();
    let el = Ellipse::new(Vector2::new(0.3, 0.2)).unwrap();
    let skewed2 = Pose2::from_parts(
        Translation2::new(5.0, 0.0),
        nalgebra::Rotation2::from_matrix_unchecked(nalgebra::Matrix2::identity() * 1.0017),
    );
    let bad = ellipse_superellipse(&se, &skewed2, &el, &Pose2::identity(), &Budget::default(), Stop::Decided);
    assert!(matches!(bad, MinkowskiOutcome::Undetermined { reason: Undetermined::Degenerate, .. }), "{bad:?}");
}

/// `fuzz/regressions/epa/crash-a0baeb64…` (campaign of 2026-11-22): f32, a
/// flat cone (half-height 2.26e6, radius 8.59e9) against a rounded ball
/// 2.36e6 above it. EPA answered `Undetermined::Degenerate` with the bracket
/// inverted, lower 91776 > upper 91690: a support value below the closest
/// face's distance, which only rounding at coordinates ~1e10 (f32 ulp ≈ 1e3)
/// can produce. A bracket must stay ordered whatever the answer.
#[test]
fn f32_epa_bounds_stay_ordered_at_1e10() {
    let s = |i: f32| i / 256.0;
    let a = Placed::new(
        Cone::new(2261634.5_f32, 8589934591.996).unwrap(),
        Pose::from_parts(
            Translation3::new(s(16705.0), s(16705.0), s(24129.0)),
            nalgebra::Rotation3::new(Vector3::repeat(s(24158.0))),
        ),
    );
    let b = Placed::new(
        Rounded::new(Sphere::new(s(24158.0)).unwrap(), Sphere::new(s(16731.0)).unwrap()),
        Pose::from_parts(Translation3::new(s(16705.0), s(16705.0), 2359295.999999992), Default::default()),
    );
    let budget = Budget::new(255, Budget::<f32>::default().tolerance);
    let check = |what: &str, o: &Proximity<f32>| match o {
        Proximity::Undetermined { bounds, .. } => assert!(!(bounds.lower > bounds.upper), "{what}: {o:?}"),
        Proximity::Penetrating(p) => assert!(p.bounds.lower <= p.depth && p.depth <= p.bounds.upper, "{what}: {o:?}"),
        Proximity::Separated(s) => {
            assert!(s.bounds.lower <= s.distance && s.distance <= s.bounds.upper, "{what}: {o:?}")
        }
    };
    check("contact", &narrowphase::support::contact::contact(&a, &b, &budget, &mut GjkWarmStart::default()));
    if let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
        check("epa", &epa::penetration(&a, &b, &simplex, &budget));
    }
}

/// `fuzz/regressions/mpr/crash-aa0e7979…` (campaign of 2026-11-22): a
/// sphere under a linear map with entries −2e81 (a body ~1e83 across)
/// against an affine capsule. `mpr::intersect` answered `Penetrating` with
/// NaN witness points: `n·n` of the portal normal overflows (the open
/// overflow class above, at a smaller size). Now such an answer is
/// `Undetermined::NonFinite`; a determined answer never carries NaN.
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

/// `fuzz/regressions/mpr/f32-tiny-centre-zero-budget-nan-bounds` (the smoke
/// step, right after MPR learnt to rescale): f32, a box (0.5, 57.2, 0.22) at
/// (2.6e-30, 0, 2.5e-319 → 0) and a ball of radius 57.2 at the origin, a
/// budget of 0 iterations. The run stops before any support point, its
/// scale is the centres' 2.6e-30, below MPR's product range: the rescaled
/// rerun needed a factor of 2¹²⁸ — infinite in f32 — and the bounds came
/// back NaN. Truth: an iteration cap with bounds that are not NaN (and,
/// with a budget, the two bodies overlap: the ball holds the box's centre).
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

/// `fuzz/regressions/ellipsoid_method/crash-9b11c90667768c7c9107eb7831b370967837f83a`
/// (open since 2026-11-22, triaged 2026-11-24): f32, a cone (66 × 66) and a
/// ball ~21 apart, with an `InitialRegion` halfspace for the cone whose
/// offset the harness took from `support` along (−1.3e28, 0, 0). The disc
/// rim of the cone's (and cylinder's) support map computed `x² + y²`, which
/// overflowed: the support point was the disc's centre, 66 inside the true
/// one, so the "supporting" halfspace cut the cone and the ellipsoid method
/// certified φ* ≥ 25.7 where the truth is 10.5. The method was right for the
/// region it was given; the support map was wrong (its contract: any
/// nonzero finite direction). Truth: the support point along `k·d` is the
/// one along `d` for every primitive, for `k` from 1e-30 to 1e30 in f32
/// (and 1e-300..1e300 in f64).
#[test]
fn support_maps_are_scale_invariant_in_the_direction() {
    fn check<R: Real>(ks: &[f64]) {
        let l = R::lit;
        let bodies: [(&str, Box<dyn SupportMap<R>>); 6] = [
            ("cone", Box::new(Cone::new(l(1.0), l(1.0)).unwrap())),
            ("cylinder", Box::new(Cylinder::new(l(1.0), l(0.5)).unwrap())),
            ("capsule", Box::new(Capsule::new(l(1.0), l(0.5)).unwrap())),
            ("sphere", Box::new(Sphere::new(l(0.5)).unwrap())),
            ("ellipsoid", Box::new(Ellipsoid::new(Vector3::new(l(1.0), l(2.0), l(3.0))).unwrap())),
            ("box", Box::new(Cuboid::new(Vector3::new(l(1.0), l(2.0), l(3.0))).unwrap())),
        ];
        let dirs = [Vector3::new(-1.0, 0.0, 0.0), Vector3::new(0.6, 0.8, 0.0), Vector3::new(0.3, -0.4, 0.5)];
        for (name, body) in &bodies {
            for d in dirs {
                let unit = body.support(&d.map(l));
                for &k in ks {
                    let p = body.support(&(d * k).map(l));
                    let err = (p - unit).norm().to_f64();
                    assert!(err < 1e-5, "{name} along {d:?}·{k:e}: {p:?} vs {unit:?}");
                }
            }
        }
    }
    check::<f32>(&[1.3e28, 1e30, 1e20, 1e-20, 1e-30]);
    check::<f64>(&[1e300, 1e160, 1e-160, 1e-300]);
}

/// `fuzz/regressions/epa/crash-6370a532cdc57d2fbedfb37b4145a298a2f473ad`
/// (open since 2026-11-22, fixed 2026-11-24): f64, a capsule of half-length
/// 8.3e8 and radius 65.25 (aspect ~1e7) against a small capsule; `contact`
/// (the margin path: GJK on the segment cores) answered `Penetrating` with
/// depth 0 and upper bound 4.37 while GJK on the whole bodies certifies a
/// distance ≥ 2.39. The core GJK stalled with bounds that straddle the
/// margin sum (signed distance in [−4.37, 21.5]) and `from_cores` read every
/// lower bound below the margins as contact. Truth (GJK's certificate on
/// the whole bodies): not penetrating. Now `Undetermined` unless the upper
/// bound is within the tolerance.
#[test]
fn f64_needle_capsule_contact_is_not_penetrating_when_gjk_certifies_a_gap() {
    use narrowphase::support::contact::contact;
    let s = |k: f64| k / 256.0;
    let rot = nalgebra::Rotation3::new(Vector3::new(s(22359.0), s(22359.0), s(15120.0)));
    let pose = |x: f64, y: f64, z: f64, r| Pose::from_parts(Translation3::new(x, y, z), r);
    let a = Placed::new(
        Capsule::new(830374530.5098039, s(16705.0)).unwrap(),
        pose(s(-16575.0), s(22359.0), s(22359.0), rot),
    );
    let b = Placed::new(
        Capsule::new(s(22359.0), s(59.0)).unwrap(),
        pose(s(15163.0), s(8659.0), s(15163.0), Default::default()),
    );
    let budget = Budget { max_iterations: 229, ..Budget::default() };
    let GjkOutcome::Separated(g) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else { panic!() };
    assert!(g.bounds.lower > 0.0, "{g:?}");
    match contact(&a, &b, &budget, &mut GjkWarmStart::default()) {
        Proximity::Penetrating(p) => panic!("penetrating, GJK certifies ≥ {}: {p:?}", g.bounds.lower),
        Proximity::Separated(s) => assert!(s.bounds.upper >= g.bounds.lower, "{s:?} vs {g:?}"),
        Proximity::Undetermined { bounds, .. } => {
            assert!(bounds.lower <= g.bounds.upper && bounds.upper >= g.bounds.lower, "{bounds:?} vs {g:?}")
        }
    }
}

/// `fuzz/regressions/gjk_distance/f64-cone-resting-on-ball-warm-separated-by-rounding`
/// (campaign of 2026-11-24): f64, a cone (half-height 50.2, radius 18.2)
/// whose base lies in the plane z = 0, on a ball of radius 50.2 whose top
/// is the point (50.2, 50.2, 0) under that base: touching, distance exactly
/// 0 (every coordinate is a dyadic number). The cold query answered contact;
/// the warm one stalled and answered `Separated` with a "certified" lower
/// bound of 1.4e-14 — the rounding of the ball's rotated support point
/// (2.8e-14 off) — and a distance of 2.6e-8. Truth: distance 0, so no answer
/// may certify a gap above the rounding of the coordinates.
#[test]
fn f64_cone_resting_on_a_ball_is_never_certified_apart() {
    let s = |k: f64| k / 256.0;
    let a = Placed::new(Cone::new(s(12850.0), s(4658.0)).unwrap(), at::<f64>(s(12850.0), s(16690.0), s(12850.0)));
    let q = UnitQuaternion::new_normalize(Quaternion::new(0.0, 0.0, s(12800.0), s(12850.0)));
    let b = Placed::new(
        Sphere::new(s(12850.0)).unwrap(),
        Pose::from_parts(Translation3::new(s(12850.0), s(12850.0), s(-12850.0)), q.to_rotation_matrix()),
    );
    // `Separated` certifies a positive distance: never right for touching
    // bodies. Contact, or undetermined with bounds that reach 0 within the
    // rounding of the coordinates (~120), are.
    let rounding = 64.0 * f64::EPSILON * 120.0;
    let budget = Budget { max_iterations: 50, ..Budget::default() };
    let mut cache = GjkWarmStart::default();
    for query in ["cold", "warm", "warm again"] {
        match gjk::distance(&a, &b, &budget, &mut cache) {
            GjkOutcome::Separated(g) => panic!("{query}: touching bodies certified apart: {g:?}"),
            GjkOutcome::Penetrating(_) => {}
            GjkOutcome::Undetermined { bounds, .. } => assert!(bounds.lower <= rounding, "{query}: {bounds:?}"),
        }
    }
}

/// `fuzz/regressions/gjk_distance/stall-below-rounding-inverted-bounds`
/// (campaign of 2026-11-24, right after the rounding floor above): f64, a
/// ball of radius 50.2 centred at (50.2, 50.2, 50.2) and a ball of radius
/// 6.9e-67 centred at (50.2, 2e-139, 50.2) — on the first one's surface, so
/// they touch (overlap by 6.9e-67) —, a tolerance of 9.3e-302 and a huge
/// cached direction. GJK stalled below the rounding with bounds that had
/// crossed by ulps (lower 6.2e-15 > upper 3.1e-15) and returned them as
/// they were. Truth: touching, so never `Separated`, and any bracket is
/// ordered.
#[test]
fn f64_touching_balls_with_a_zero_tolerance_keep_ordered_bounds() {
    let s = |k: f64| k / 256.0;
    let a = Placed::new(Sphere::new(s(12850.0)).unwrap(), at::<f64>(s(12850.0), s(12850.0), s(12850.0)));
    let b = Placed::new(
        Sphere::new(6.921723952448961e-67).unwrap(),
        at::<f64>(s(12850.0), 2.0088007984550973e-139, s(12850.0)),
    );
    let budget = Budget { max_iterations: 167, tolerance: 9.332642013853119e-302 };
    let mut cache = GjkWarmStart {
        direction: Vector3::new(-1.864743433606487e159, s(12850.0), 8.310111124252399e-64),
        ..GjkWarmStart::default()
    };
    for query in ["cached direction", "warm"] {
        match gjk::distance(&a, &b, &budget, &mut cache) {
            GjkOutcome::Separated(g) => panic!("{query}: touching balls certified apart: {g:?}"),
            GjkOutcome::Penetrating(_) => {}
            GjkOutcome::Undetermined { bounds, .. } => assert!(bounds.lower <= bounds.upper, "{query}: {bounds:?}"),
        }
    }
}

/// `fuzz/regressions/epa/lead-gjk-contact-16x-tolerance-after-epa-shift`
/// (an unconfirmed lead of 11-22): f64, A = cone (half-height
/// 16.6, radius 59.2) at (0, 59.06, 59.48), B = a bipyramid (ring of 41
/// points of radius 123, apexes 59.2 up and 27.2 down) at (16.06, 112, 8),
/// identity rotations. `contact` and EPA find the depth; B moved by the
/// depth's upper bound plus 8.9e-10 along the normal is apart by ~8.7e-10 by
/// closed-form supports — 16× GJK's `tolerance·scale` — and `gjk::distance`
/// answered `Penetrating` on the 11-22 kernel. On today's kernel the
/// artifact passes the target, and this rebuild answers `Separated` (shifts
/// of 8.9e-10 … 1e-7, lower bounds within 3 % of the closed form) or
/// `Undetermined` with bounds around the gap (2e-10); it passes with the
/// GJK of 11-22 too, so which change closed the lead (EPA's upper bound
/// moved B elsewhere then) is not established. Kept as a guard of the
/// class: GJK never answers `Penetrating` for a pair a closed-form plane
/// separates by more than 16× its tolerance.
#[test]
fn f64_gjk_after_an_epa_shift_is_not_intersecting() {
    let s = |i: f64| i / 256.0;
    let (h, r) = (s(4251.0), s(15163.0));
    let ca = Vector3::new(0.0, s(15120.0), s(15227.0));
    let (n, ring, top, bottom) = (41, s(31488.0), s(15163.0), s(6955.0));
    let cb = Vector3::new(s(4112.0), s(28672.0), s(2048.0));
    let mut pts: Vec<Point3<f64>> = (0..n)
        .map(|i| {
            let t = std::f64::consts::TAU * i as f64 / n as f64;
            Point3::new(ring * t.cos(), ring * t.sin(), 0.0)
        })
        .collect();
    pts.push(Point3::new(0.0, 0.0, top));
    pts.push(Point3::new(0.0, 0.0, -bottom));
    let hull = quickhull(&pts).unwrap();
    let poly = hull.polytope().unwrap();
    let cone = Cone::new(h, r).unwrap();
    let a = Placed::new(cone, at::<f64>(ca.x, ca.y, ca.z));
    let b = Placed::new(poly, at::<f64>(cb.x, cb.y, cb.z));
    // Closed-form supports: the cone's apex at +h, base disc of radius r at
    // −h; the bipyramid by its vertices (brute force).
    let h_cone = |d: Vector3<f64>| ca.dot(&d) + (h * d.z).max(r * d.xy().norm() - h * d.z);
    let h_poly = |d: Vector3<f64>, c: Vector3<f64>| pts.iter().map(|p| (p.coords + c).dot(&d)).fold(f64::MIN, f64::max);
    let mut budget = Budget::<f64>::default();
    budget.max_iterations = 59; // as the fuzz input
    let mut checked = 0;
    let answers = [narrowphase::support::contact::contact(&a, &b, &budget, &mut GjkWarmStart::default()), {
        let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else {
            panic!("the pair overlaps")
        };
        epa::penetration(&a, &b, &simplex, &budget)
    }];
    for answer in answers {
        let Proximity::Penetrating(p) = answer else { panic!("{answer:?}") };
        let nrm = p.witness.normal;
        for extra in [2e-10, 8.9e-10, 4e-9, 1e-7] {
            let moved = cb + nrm * (p.bounds.upper + extra);
            // Apart along the normal by the closed forms (a separating plane).
            let apart = -h_cone(nrm) - h_poly(-nrm, moved);
            let shifted = Placed::new(poly, at::<f64>(moved.x, moved.y, moved.z));
            let g = gjk::distance(&a, &shifted, &budget, &mut GjkWarmStart::default());
            if apart > 16.0 * budget.tolerance * 250.0 {
                checked += 1;
                assert!(!matches!(g, GjkOutcome::Penetrating(_)), "apart by {apart:e} (shift + {extra:e}): {g:?}");
            }
        }
    }
    assert!(checked >= 4, "only {checked} shifts are clear of the tolerance");
}

/// `fuzz/regressions/mpr/f64-superquadric-needle-portal-tilt-penetrating-12-apart`
/// (found within two minutes of fuzzing the needle fix): f64, A = a
/// superquadric with semi-axes (57.2, 1.57e11, 73.3) and exponents (1.9817,
/// 1.9778) at (117.1, 57.2, 0.8), rotated by the normalised quaternion
/// (−53.8, −122.6, 73.3, 73.3); B = a sphere of radius 66.3 at (0.19, 112,
/// 1.3e-201). `mpr::intersect` answered `Penetrating` (depth 233) where
/// `mpr::penetration` certified a gap of 12.4: the robust check of the
/// portal (ends of the needle 3.2e11 apart and a point near the origin)
/// read the origin's side off a normal from two edges 1.6e11 long, whose
/// tilt error (ε·L/w) over that length is far more than 54, the origin's
/// true distance outside the portal. Now the sides are orientations from
/// a determinant of vectors projected orthogonally to the longest one.
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
    let mut budget = Budget::<f64>::default();
    budget.max_iterations = 48;
    for out in [mpr::intersect(&a, &b, &budget), mpr::penetration(&a, &b, &budget)] {
        assert_ne!(out.is_penetrating(), Some(true), "{gap} apart: {out:?}");
        if let mpr::MprOutcome::Separated { lower_bound, .. } = out {
            assert!(lower_bound <= gap + 1e-3, "certified {lower_bound} above the gap {gap}");
        }
    }
}
