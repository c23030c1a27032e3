//! A sphere against a cylinder (or a rounded cylinder), which `contact`,
//! `clearance` and the GJK entry points answer in closed form when the
//! sphere's centre is outside the cylinder, against ground truth written
//! here: the distance from a point to a solid cylinder in the cylinder's
//! frame, `sqrt(max(ρ − r, 0)² + max(|z| − h, 0)²)` outside and
//! `−min(r − ρ, h − |z|)` inside (`ρ` the distance from the axis), and
//! GJK on the same bodies with the sphere seen as a polytope-free support
//! map that has no closed form.

use crate::common::{pose, rng, rotation, unit_vector};
use nalgebra::{Point3, Rotation3, Translation3, Vector3};
use narrowphase::math::{Pose, Real};
use narrowphase::prelude::*;
use narrowphase::query::Threshold;
use narrowphase::shape::CorePrimitive;
use narrowphase::support::contact::{clearance, contact};
use rand::Rng;

/// A ball, a cylinder (rounded by `rounding` when positive) and where they are.
#[derive(Clone, Copy, Debug)]
struct Case {
    ball: f64,
    centre: Vector3<f64>,
    half_height: f64,
    radius: f64,
    rounding: f64,
    at: Pose<f64>,
}

impl Case {
    fn random(g: &mut impl Rng) -> Self {
        let (half_height, radius) = (g.random_range(0.02..0.6), g.random_range(0.02..0.5));
        let at = pose(g, 0.5);
        // Around the cylinder in every region: over a cap, beside the side,
        // off the rim, on the axis, inside.
        let local = Vector3::new(
            g.random_range(-1.5..1.5) * radius,
            g.random_range(-1.5..1.5) * radius,
            g.random_range(-1.6..1.6) * half_height,
        );
        let local = if g.random_bool(0.1) { Vector3::new(0.0, 0.0, local.z) } else { local };
        Case {
            ball: g.random_range(0.01..0.3),
            centre: at.transform_point(&Point3::from(local)).coords,
            half_height,
            radius,
            rounding: if g.random_bool(0.3) { g.random_range(0.005..0.05) } else { 0.0 },
            at,
        }
    }

    /// The ball centre's distance to the cylinder (negative inside).
    fn centre_to_cylinder(&self) -> f64 {
        point_cylinder(&Point3::from(self.centre), &self.at, self.half_height, self.radius)
    }

    /// The bodies' signed distance.
    fn truth(&self) -> f64 {
        self.centre_to_cylinder() - self.rounding - self.ball
    }
}

/// Signed distance from `p` to the solid cylinder along the local z of `at`.
pub(crate) fn point_cylinder(p: &Point3<f64>, at: &Pose<f64>, h: f64, r: f64) -> f64 {
    let x = at.inverse_transform_point(p).coords;
    let (rho, z) = ((x.x * x.x + x.y * x.y).sqrt(), x.z.abs());
    if rho <= r && z <= h {
        -(r - rho).min(h - z)
    } else {
        ((rho - r).max(0.0).powi(2) + (z - h).max(0.0).powi(2)).sqrt()
    }
}

/// The pair in precision `R`, the ball first or the cylinder first.
fn bodies<R: Real>(c: &Case) -> (Box<dyn SupportMap<R>>, Box<dyn SupportMap<R>>) {
    let lit = |x: f64| R::lit(x);
    let cyl_pose = Pose::<R>::from_parts(
        Translation3::from(c.at.translation.vector.map(lit)),
        Rotation3::from_matrix_unchecked(c.at.rotation.matrix().map(lit)),
    );
    let ball_pose = Pose::<R>::from_parts(Translation3::from(c.centre.map(lit)), Rotation3::identity());
    let ball = Box::new(Placed::new(Sphere::new(lit(c.ball)).unwrap(), ball_pose));
    let cylinder = Cylinder::new(lit(c.half_height), lit(c.radius)).unwrap();
    let cylinder: Box<dyn SupportMap<R>> = if c.rounding > 0.0 {
        Box::new(Placed::new(Rounded::new(cylinder, Sphere::new(lit(c.rounding)).unwrap()), cyl_pose))
    } else {
        Box::new(Placed::new(cylinder, cyl_pose))
    };
    (ball, cylinder)
}

/// Signed distance, bounds, witness points (ball's, cylinder's), normal from
/// the ball to the cylinder, and the iterations the cache records; `None`
/// when undetermined.
type Answer = (f64, [f64; 2], [Point3<f64>; 2], Vector3<f64>, u32);

fn answer<R: Real>(c: &Case, ball_first: bool) -> Option<Answer> {
    let (ball, cylinder) = bodies::<R>(c);
    let mut cache = GjkWarmStart::default();
    let out = if ball_first {
        contact(&*ball, &*cylinder, &Budget::default(), &mut cache)
    } else {
        contact(&*cylinder, &*ball, &Budget::default(), &mut cache)
    };
    let f = |x: R| x.to_f64();
    let pt = |p: &Point3<R>| Point3::new(f(p.x), f(p.y), f(p.z));
    let (d, bounds, a, b, n) = match out {
        Proximity::Separated(s) => (
            f(s.distance),
            [f(s.bounds.lower), f(s.bounds.upper)],
            pt(&s.witness.point_a),
            pt(&s.witness.point_b),
            s.witness.normal.map(f),
        ),
        Proximity::Penetrating(p) => (
            -f(p.depth),
            [-f(p.bounds.upper), -f(p.bounds.lower)],
            pt(&p.witness.point_a),
            pt(&p.witness.point_b),
            p.witness.normal.map(f),
        ),
        Proximity::Undetermined { .. } => return None,
    };
    // As the ball's point, the cylinder's, and the normal from the ball.
    Some(if ball_first { (d, bounds, [a, b], n, cache.iterations) } else { (d, bounds, [b, a], -n, cache.iterations) })
}

/// Random balls around cylinders and rounded cylinders, both orders, in
/// precision `R`: the signed distance equals the point–cylinder distance
/// less the radii, the bounds hold it, the witness points lie on the two
/// surfaces and the normal joins them; a ball whose centre is outside the
/// cylinder takes one closed-form step.
fn balls_around_cylinders<R: Real>(band: f64) {
    let mut g = rng(81);
    let (mut closed, mut penetrating, mut inside) = (0, 0, 0);
    for case in 0..3000 {
        let c = Case::random(&mut g);
        let truth = c.truth();
        // A centre within the tolerance of the surface (cores touching)
        // goes to GJK and EPA, which answer to the budget's tolerance.
        let touching = c.centre_to_cylinder().abs() <= 1e-3;
        let band = if touching { band.max(Budget::<R>::default().tolerance.to_f64()) } else { band };
        let tol = band * (1.0 + c.at.translation.vector.amax() + c.half_height + c.radius);
        for ball_first in [true, false] {
            let Some((d, [lo, hi], [pa, pb], n, iterations)) = answer::<R>(&c, ball_first) else {
                panic!("case {case}: undetermined, truth {truth}");
            };
            assert!(
                (d - truth).abs() <= tol,
                "case {case} ({ball_first}): {d} vs {truth}, centre to cylinder {}, it {iterations}, {c:?}",
                c.centre_to_cylinder()
            );
            assert!(lo - tol <= truth && truth <= hi + tol, "case {case}: {truth} outside [{lo}, {hi}]");
            let on_ball = ((pa.coords - c.centre).norm() - c.ball).abs();
            let on_cylinder = (point_cylinder(&pb, &c.at, c.half_height, c.radius) - c.rounding).abs();
            assert!(on_ball <= tol && on_cylinder <= tol, "case {case} {ball_first}: witnesses {on_ball:e} {on_cylinder:e} {c:?} d {d} pa {pa:?} pb {pb:?} n {n:?} inside {}", c.centre_to_cylinder());
            if truth.abs() > 10.0 * tol {
                // The normal joins the witnesses: B's less A's is d·n either way.
                assert!(((pb - pa) - n * d).norm() <= tol * 10.0, "case {case}: normal");
            }
            if c.centre_to_cylinder() > 10.0 * tol {
                closed += 1;
                assert_eq!(iterations, 1, "case {case}: a centre outside the cylinder is a closed form");
                penetrating += usize::from(truth < -10.0 * tol);
            } else if c.centre_to_cylinder() < -10.0 * tol {
                inside += 1;
            }
        }
    }
    assert!(
        closed > 3000 && penetrating > 300 && inside > 500,
        "closed {closed}, penetrating {penetrating}, inside {inside}"
    );
}

#[test]
fn balls_around_cylinders_equal_the_point_cylinder_distance_in_f64() {
    balls_around_cylinders::<f64>(1e-12);
}

#[test]
fn balls_around_cylinders_equal_the_point_cylinder_distance_in_f32() {
    // The bodies are the f64 case rounded to f32: the band covers it.
    balls_around_cylinders::<f32>(2e-6);
}

/// A ball over the middle of a cap (the direction along the axis, where the
/// half-width across the axis is zero), on the axis inside, at a rim, and
/// far from the world origin: exact answers, and the closed form where the
/// centre is outside.
#[test]
fn balls_over_caps_rims_and_far_away() {
    let at = |x: f64, y: f64, z: f64| Pose::from_parts(Translation3::new(x, y, z), Rotation3::identity());
    let tilted = Rotation3::from_axis_angle(&Vector3::x_axis(), 0.3);
    let far = Vector3::new(1.0e4, -2.0e4, 5.0e3);
    let cases = [
        // Over the middle of the top cap: 0.7 − 0.5 − 0.1.
        (Vector3::new(0.0, 0.0, 0.7), at(0.0, 0.0, 0.0), 0.1),
        // Beside the side: 1.0 − 0.4 − 0.2.
        (Vector3::new(1.0, 0.0, 0.1), at(0.0, 0.0, 0.0), 0.3),
        // Off the rim, along the diagonal: √(0.3² + 0.3²) − 0.1.
        (Vector3::new(0.7, 0.0, 0.8), at(0.0, 0.0, 0.0), 0.0),
        // On the axis inside: depth min(0.4, 0.5 − 0.2) + 0.1.
        (Vector3::new(0.0, 0.0, 0.2), at(0.0, 0.0, 0.0), 0.0),
        // Over a cap 10 km from the origin, tilted: 0.2 − 0.05 − 0.1.
        (far + tilted * Vector3::new(0.0, 0.0, 0.7), Pose::from_parts(Translation3::from(far), tilted), 0.05),
    ];
    for (i, (centre, at, rounding)) in cases.into_iter().enumerate() {
        let c = Case { ball: 0.1, centre, half_height: 0.5, radius: 0.4, rounding, at };
        let truth = c.truth();
        let (d, [lo, hi], _, _, iterations) = answer::<f64>(&c, true).unwrap_or_else(|| panic!("case {i}"));
        let tol = 1e-12 * (1.0 + far.amax());
        assert!((d - truth).abs() <= tol && lo <= truth + tol && truth <= hi + tol, "case {i}: {d} vs {truth}");
        if c.centre_to_cylinder() > 0.0 {
            assert_eq!(iterations, 1, "case {i}: closed form");
        }
        let (d32, ..) = answer::<f32>(&c, false).unwrap_or_else(|| panic!("case {i} in f32"));
        assert!((d32 - truth).abs() <= 2e-6 * (1.0 + far.amax()), "case {i} f32: {d32} vs {truth}");
    }
}

/// GJK on the same bodies, where the ball is an ellipsoid of equal semi-axes
/// (a body without a closed-form core): the closed form and GJK agree to
/// GJK's certificate.
#[test]
fn the_closed_form_agrees_with_gjk_on_a_ball_without_one() {
    let mut g = rng(82);
    let mut compared = 0;
    for case in 0..500 {
        let c = Case::random(&mut g);
        let (ball, cylinder) = bodies::<f64>(&c);
        let ellipsoid = Placed::new(
            Ellipsoid::new(Vector3::repeat(c.ball)).unwrap(),
            Pose::from_parts(Translation3::from(c.centre), rotation(&mut g)),
        );
        let precise = Budget::new(256, 1e-10);
        let GjkOutcome::Separated(s) = gjk::distance(&ellipsoid, &*cylinder, &precise, &mut GjkWarmStart::default())
        else {
            continue;
        };
        let Proximity::Separated(ours) = contact(&*ball, &*cylinder, &Budget::default(), &mut GjkWarmStart::default())
        else {
            panic!("case {case}: GJK finds the bodies apart, the closed form does not");
        };
        assert!(
            s.bounds.lower - 1e-9 <= ours.distance && ours.distance <= s.bounds.upper + 1e-9,
            "case {case}: {} outside GJK's [{}, {}]",
            ours.distance,
            s.bounds.lower,
            s.bounds.upper
        );
        compared += 1;
    }
    assert!(compared > 100, "{compared} compared");
}

/// `clearance` on balls and cylinders: clear exactly when the distance
/// exceeds the threshold (up to rounding), never clear below it, cold or
/// warm-started from any direction.
#[test]
fn clearance_of_balls_and_cylinders_is_never_clear_below_the_threshold() {
    let mut g = rng(83);
    for case in 0..3000 {
        let c = Case::random(&mut g);
        let truth = c.truth();
        let threshold = truth + g.random_range(-0.01..0.01);
        let (ball, cylinder) = bodies::<f64>(&c);
        let cold = clearance(&*ball, &*cylinder, threshold, &Budget::default(), &mut GjkWarmStart::default());
        let mut warm = GjkWarmStart { direction: unit_vector(&mut g), ..Default::default() };
        let warm = clearance(&*cylinder, &*ball, threshold, &Budget::default(), &mut warm);
        for (how, t) in [("cold", cold), ("warm", warm)] {
            match t {
                Threshold::Clear { bounds } => {
                    assert!(truth > threshold - 1e-12 && bounds.lower > threshold, "case {case} {how}: clear below");
                    assert!(bounds.lower <= truth + 1e-12 && truth <= bounds.upper + 1e-12, "case {case} {how}");
                }
                // Overlapping cores are within any threshold: the query
                // does not measure a depth (its lower bound is then −∞).
                Threshold::Within { bounds } => assert!(
                    (truth <= threshold + 1e-12 || bounds.lower == f64::NEG_INFINITY) && bounds.upper >= truth - 1e-12,
                    "case {case} {how}: within, truth {truth}, threshold {threshold}, {bounds:?}"
                ),
                Threshold::Undetermined { .. } => {
                    assert!((truth - threshold).abs() <= 1e-9, "case {case} {how}: undecided {truth} vs {threshold}")
                }
            }
        }
    }
}

/// A placed cylinder's core is the cylinder itself: its centre at the
/// placement, its axis the rotation's z column; the same as the local one
/// turned and moved.
#[test]
fn a_placed_cylinder_core_is_the_moved_local_one() {
    let mut g = rng(84);
    for _ in 0..300 {
        let p = pose(&mut g, 50.0);
        let kept = Placed::new(Sphere::new(1.0_f64).unwrap(), p).pose().rotation;
        let cylinder = Cylinder::new(g.random_range(0.01..2.0), g.random_range(0.01..2.0_f64)).unwrap();
        let placed = Placed::new(cylinder, p).core_primitive_from(&Point3::origin());
        let moved =
            cylinder.core_primitive_from(&Point3::origin()).map(|c| c.moved(kept.matrix(), &p.translation.vector));
        let Some(CorePrimitive::Cylinder { center, axis, half_height, radius }) = placed else {
            panic!("a cylinder's core is a cylinder")
        };
        assert!((center - p.translation.vector).norm() <= 1e-12);
        assert!((axis - kept * Vector3::z()).norm() <= 1e-15);
        assert_eq!((half_height, radius), (cylinder.half_height(), cylinder.radius()));
        let Some(CorePrimitive::Cylinder { center: c2, axis: a2, .. }) = moved else { panic!() };
        assert!((c2 - center).norm() <= 1e-12 && (a2 - axis).norm() <= 1e-15);
    }
}
