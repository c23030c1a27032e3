//! `fuzz/regressions/gjk_distance/`: GJK distance (`support::gjk`) bounds
//! and witnesses at the edge of rounding: touching bodies, flat and needle
//! cones, sliver triangles of polytopes, zero tolerances and warm starts.
//! Truth: closed-form distances, brute force over a cone's generators or a
//! polytope's triangles, and touching pairs built from dyadic coordinates.

use nalgebra::{Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;

use super::at;
use crate::common::pose_f32;
use crate::polytope_gjk::{mesh, point_triangle, Mesh};

/// Distance from a point to a polytope (outside it) by its triangles.
fn point_mesh_distance(p: &Point3<f64>, m: &Mesh) -> f64 {
    m.tris.iter().map(|t| point_triangle(p, t)).fold(f64::INFINITY, f64::min)
}

/// `f32-sphere-sphere-lower-above-upper-1ulp`: two f32 spheres whose centres
/// are 4.06 apart. Truth: the closed-form distance, with
/// `lower ≤ distance = upper` (a lower bound one ulp above the upper one is
/// the failure mode).
#[test]
fn f32_sphere_sphere_lower_bound_is_never_above_the_distance() {
    let a = Placed::new(Sphere::new(0.921875_f32).unwrap(), pose_f32(&at(-0.6953125, 0.0, 0.0)));
    let b = Placed::new(Sphere::new(0.1875_f32).unwrap(), pose_f32(&at(0.00390625, 4.0, 0.0)));
    let GjkOutcome::Separated(s) = gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) else {
        panic!()
    };
    let truth = (0.6992188f64.powi(2) + 16.0).sqrt() - 0.921875 - 0.1875;
    assert!(s.bounds.lower <= s.distance && s.distance == s.bounds.upper);
    assert!((s.distance as f64 - truth).abs() < 1e-5);
}

/// `f32-flat-cone-sphere-lower-above-exact`: a disc-like cone (radius 32,
/// half-height 0.125) and a small sphere above its slanted surface, f32. The
/// support points carry rounding of ε·32 and so do the bounds; they must
/// bracket the exact distance (brute force over the cone's generating
/// segments in f64) to a few ε·scale.
#[test]
fn f32_flat_cone_bounds_hold_up_to_support_rounding() {
    let a = Placed::new(Cone::new(0.125_f32, 32.0).unwrap(), pose_f32(&at(5.99609375, 0.125, -0.0234375)));
    let b = Placed::new(Sphere::new(0.0625_f32).unwrap(), pose_f32(&at(0.125, 0.125, 0.9765625)));
    // Exact: the sphere centre is above the cone's slanted surface; brute force over
    // the cone's generating segments in f64.
    let centre = Point3::new(0.125 - 5.99609375, 0.0, 0.9765625 + 0.0234375);
    let mut exact = f64::INFINITY;
    for k in 0..20000 {
        let t = k as f64 * std::f64::consts::TAU / 20000.0;
        let rim = Point3::new(32.0 * t.cos(), 32.0 * t.sin(), -0.125);
        let apex = Point3::new(0.0, 0.0, 0.125);
        // The centre is above the slanted surface: the closest point is on a generator.
        let ab = rim - apex;
        let s = ((centre - apex).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
        exact = exact.min((centre - (apex + ab * s)).norm());
    }
    let exact = exact - 0.0625;
    let GjkOutcome::Separated(s) = gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) else {
        panic!()
    };
    let slack = 16.0 * f32::EPSILON as f64 * 38.0;
    assert!((s.bounds.lower as f64) <= exact + slack && exact - slack <= s.bounds.upper as f64, "{s:?} exact {exact}");
}

/// `f64-needle-cone-sphere-zero-tolerance-warm-distance-11pct-low`: a needle
/// cone (half-height 72.89, radius 0.0156) and a sphere, warm-started with
/// tolerances 0 and 4.6e-308. Guards the projection onto a sliver triangle's
/// plane: a "closest point" far outside the triangle (1e5 away) is shorter
/// but wrong, and accepting it gives a warm distance 11 % low. Truth: the
/// distance 56.15527 and a witness on the cone.
#[test]
fn f64_needle_cone_warm_start_with_zero_tolerance() {
    // The failure mode: a sliver triangle's plane "projection" 1e5 away
    // (z = 122112), accepted because it is shorter, gives a warm distance of
    // 49.69.
    let a = Placed::new(Cone::new(72.89, 0.0156).unwrap(), at::<f64>(0.0, 16.0, 0.0));
    let b = Placed::new(Sphere::new(9.0).unwrap(), at(44.0, 64.0625, 16.0));
    let mut cache = GjkWarmStart::default();
    let mut answers = vec![];
    for tolerance in [0.0, 4.6e-308, 0.0] {
        match gjk::distance(&a, &b, &Budget::new(64, tolerance), &mut cache) {
            GjkOutcome::Separated(s) => answers.push(s),
            GjkOutcome::Undetermined { bounds, .. } => {
                assert!(bounds.lower <= 56.15528 && bounds.upper >= 56.15526, "{bounds:?}")
            }
            other => panic!("{other:?}"),
        }
    }
    for s in answers {
        assert!((s.distance - 56.1552701).abs() < 1e-5, "{s:?}");
        let p = s.witness.point_a;
        assert!(p.coords.norm() < 200.0, "witness far outside the cone: {p:?}");
    }
}

/// `f64-bipyramid40-sphere-upper-below-exact`: a 40-point ring of radius
/// 83.246 with apexes at z = +28.109 and −0.109 (sliver triangles near the
/// closest point) and a sphere, three warm-started queries. Truth: the
/// distance by brute force over the hull's triangles; the upper bound is
/// never below it and the lower bound never above it (an "upper bound"
/// 7.8e-10 below the truth is the failure mode).
#[test]
fn f64_bipyramid_sphere_upper_bound_is_never_below_the_truth() {
    // 40-point ring of radius 83.246 with apexes at z = +28.109 and −0.109:
    // sliver triangles near convergence, on the warm-started queries.
    let mut pts: Vec<Point3<f64>> = (0..40)
        .map(|k| {
            let t = k as f64 * std::f64::consts::TAU / 40.0;
            Point3::new(83.246 * t.cos(), 83.246 * t.sin(), 0.0)
        })
        .collect();
    pts.push(Point3::new(0.0, 0.0, 28.109));
    pts.push(Point3::new(0.0, 0.0, -0.109));
    let hull = quickhull(&pts).unwrap();
    let poly = hull.polytope().unwrap();
    let c = Point3::new(28.145, 28.109, 28.109);
    let truth = point_mesh_distance(&c, &mesh(&poly, &Pose::identity())) - 12.109;
    let a = Placed::new(poly, Pose::identity());
    let b = Placed::new(Sphere::new(12.109).unwrap(), at(c.x, c.y, c.z));
    let mut cache = GjkWarmStart::default();
    for round in 0..3 {
        match gjk::distance(&a, &b, &Budget::default(), &mut cache) {
            GjkOutcome::Separated(s) => {
                let slack = 1e-13 * 120.0;
                assert!(s.bounds.upper >= truth - slack, "round {round}: upper {} < truth {truth}", s.bounds.upper);
                assert!(s.bounds.lower <= truth + slack, "round {round}: lower {} > truth {truth}", s.bounds.lower);
            }
            other => panic!("round {round}: {other:?}"),
        }
    }
}

/// `f64-cone-resting-on-ball-warm-separated-by-rounding`: f64, a cone
/// (half-height 50.2, radius 18.2) whose base lies in the plane z = 0, on a
/// ball of radius 50.2 whose top is the point (50.2, 50.2, 0) under that
/// base: touching, distance exactly 0 (every coordinate is a dyadic
/// number). Guards the rounding floor of a certificate: a lower bound
/// certifies separation only above the rounding of a support value
/// (`16ε·scale`; the ball's rotated support point is 2.8e-14 off here), so
/// no answer, cold or warm, may certify a gap.
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

/// `stall-below-rounding-inverted-bounds`: f64, a ball of radius 50.2
/// centred at (50.2, 50.2, 50.2) and a ball of radius 6.9e-67 centred at
/// (50.2, 2e-139, 50.2) — on the first one's surface, so they touch
/// (overlap by 6.9e-67) —, a tolerance of 9.3e-302 and a huge cached
/// direction. A stall below the rounding floor can leave bounds crossed by
/// ulps (lower 6.2e-15 > upper 3.1e-15). Truth: touching, so never
/// `Separated`, and any bracket is ordered.
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

/// `f64-flat-cone-apex-lost-to-rounded-half-angle`: a cone 100 high with a
/// base radius of 1.6e11 (its half-angle's sine rounds to 1 in f64) and a
/// sphere whose centre lies inside it. Truth: the point-in-cone test in
/// the cone's frame (height above the base, radius there), and the cone's
/// apex as its support along +z.
#[test]
fn f64_flat_cone_keeps_its_apex_and_a_sphere_inside_is_not_apart() {
    let (h, r) = (50.1953125_f64, 156842099712.39063_f64);
    let cone = Cone::new(h, r).unwrap();
    assert_eq!(cone.support(&Vector3::z()), Point3::new(0.0, 0.0, h));
    let c = 66.2578125;
    let a = Placed::new(cone, at(c, c, c));
    let centre = Vector3::new(50.1953125, c, c);
    let b = Placed::new(Sphere::new(7.02734375_f64).unwrap(), at(centre.x, centre.y, centre.z));
    // The sphere's centre in the cone's frame: 25.1 above the base's plane
    // (of 100.4), 16.1 from the axis, where the cone's radius is 1.2e11.
    let local = centre - Vector3::new(c, c, c);
    let above_base = local.z + h;
    let rho = (local.x * local.x + local.y * local.y).sqrt();
    assert!(above_base > 0.0 && above_base < 2.0 * h && rho < r * (1.0 - above_base / (2.0 * h)));
    let out =
        gjk::distance(&a, &b, &Budget::new(208, Budget::<f64>::default().tolerance), &mut GjkWarmStart::default());
    assert!(!matches!(out, GjkOutcome::Separated(_)), "{out:?}");
}

/// `f64-box-capsule-near-max-floats-first-plane-nan-lower`: a thin box at
/// z = 1.7e308 and a capsule at x = 1.7e308: the first support plane's
/// bound overflowed to NaN (see the intersection case in
/// `gjk_intersect.rs`), and the distance query with no iterations to run
/// answered `IterationCap` with a NaN lower bound. Truth: the box's z
/// extent alone (within 1e-6 of 1.7e308, the capsule within 6 of z = 0)
/// puts the bodies apart by more than 1e308.
#[test]
fn f64_box_and_capsule_near_the_largest_floats_keep_ordered_finite_bounds() {
    let a = Placed::new(Cuboid::new(Vector3::new(2.0, 2.0, 1e-6)).unwrap(), at::<f64>(1.0, 6.0, 1.7e308));
    let b = Placed::new(Capsule::new(3.0, 3.0).unwrap(), at::<f64>(1.7e308, 3.29, 0.0));
    for cap in [0, 1, 64] {
        let budget = Budget::new(cap, Budget::<f64>::default().tolerance);
        let out = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());
        super::gjk_intersect::beyond_the_largest_float(&format!("distance, cap {cap}"), &out);
    }
}

/// `f32-affine-needle-ellipsoid-sliver-triangle-longer-iterate`: a rounded
/// cone beside a needle ellipsoid 5.7e5 long (an ellipsoid under a shear),
/// f32. GJK's triangles there are slivers along the needle at coordinates
/// near 3e5, where the newest point's edge tests cancel: one answered an
/// old vertex 76 711 away as the closest point of a triangle whose edge was
/// 38.7 away, and GJK answered `Separated` at distance 76 711. Truth: an
/// explicit pair of points, one in each body by their closed-form
/// membership tests, 8.85 apart; the answer may exceed that only by the
/// tolerance and rounding at the pair's size.
#[test]
fn f32_cone_beside_a_needle_ellipsoid_answers_within_the_tolerance() {
    let cone_at = Vector3::new(96.25, 0.0, 22.5078125);
    let a = Placed::new(
        Rounded::new(Cone::new(0.25_f32, 3.0).unwrap(), Sphere::new(0.5).unwrap()),
        pose_f32(&at(cone_at.x, cone_at.y, cone_at.z)),
    );
    let semi = Vector3::new(42.16965, 72.79297, 3328.0);
    let linear = nalgebra::Matrix3::from_columns(&[
        Vector3::new(2.0, 1.0, 0.25),
        Vector3::new(0.0, 0.0, 2.0625),
        Vector3::new(0.0, 85.3359375, 7.109375),
    ]);
    let needle_at = Vector3::new(0.0, -60.13671875, 0.0546875);
    let needle = Affine::new(Ellipsoid::new(semi.cast::<f32>()).unwrap(), linear.cast::<f32>(), Vector3::zeros());
    let b = Placed::new(needle.unwrap(), pose_f32(&at(needle_at.x, needle_at.y, needle_at.z)));

    // In the rounded cone: 0.4 beside its base rim (radius 3 at z = −0.25).
    let in_a = cone_at + Vector3::new(-3.4, 0.0, -0.25);
    // In the ellipsoid: its preimage inside the axis-aligned one.
    let in_b = Vector3::new(84.0, 0.0, 22.0);
    let pre = linear.try_inverse().unwrap() * (in_b - needle_at);
    assert!(pre.component_div(&semi).norm_squared() < 1.0);
    let apart_at_most = (in_a - in_b).norm();
    // The pair's size: the ellipsoid's extent along y, |row y of linear·diag(semi)|.
    let scale = (linear * nalgebra::Matrix3::from_diagonal(&semi)).row(1).norm() + needle_at.y.abs();
    let budget = Budget::<f32>::default();
    let slack = (f64::from(budget.tolerance) + 16.0 * f64::from(f32::EPSILON)) * scale;
    let mut cache = GjkWarmStart::default();
    for query in ["cold", "warm"] {
        match gjk::distance(&a, &b, &budget, &mut cache) {
            GjkOutcome::Separated(s) => {
                assert!(s.bounds.lower <= s.distance && s.distance == s.bounds.upper, "{query}: {s:?}");
                assert!(
                    f64::from(s.distance) <= apart_at_most + slack,
                    "{query}: {s:?}, truth at most {apart_at_most}"
                );
            }
            GjkOutcome::Penetrating(_) => assert!(apart_at_most <= slack),
            out => panic!("{query}: {out:?}"),
        }
    }
}
