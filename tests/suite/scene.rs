//! The scene layer and the threshold queries against ground truth that
//! does not come from the code under test: closed forms (sphere–sphere,
//! capsule–capsule through a segment–segment closest-point solver written
//! here, sphere–box, axis-aligned box–box), brute-force sampling, and the
//! per-pair kernel query (`contact`) run directly on the same placed pair
//! for the scene's bookkeeping.

use nalgebra::{Isometry3, Point3, Rotation3, SMatrix, Translation3, Unit, UnitQuaternion, Vector3, Vector6};
use narrowphase::error::SceneError;
use narrowphase::math::{Pose, Real};
use narrowphase::prelude::*;
use narrowphase::query::Threshold;
use narrowphase::scene::derivative::{joint_gradient, TwistGradient};
use narrowphase::scene::{
    BodyDesc, PairOutcome, PairQuery, PairSettings, PairUndetermined, Scene, ShapeDesc, TickBudget,
};
use narrowphase::support::contact::{clearance, contact};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------- ground truth

type V = Vector3<f64>;

/// Closest points of segments `[p1, q1]` and `[p2, q2]` (Ericson, Real-Time
/// Collision Detection §5.1.9), in f64.
fn segment_closest(p1: V, q1: V, p2: V, q2: V) -> (V, V) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(&d1);
    let e = d2.dot(&d2);
    let f = d2.dot(&r);
    let tiny = 1e-300;
    let (s, t);
    if a <= tiny && e <= tiny {
        return (p1, p2);
    }
    if a <= tiny {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let s0 = if denom > tiny { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// A capsule in f64 terms: segment end points and radius.
#[derive(Clone, Copy, Debug)]
struct Cap {
    p: V,
    q: V,
    r: f64,
}

fn cap_of(pose: &Pose<f64>, half: f64, r: f64) -> Cap {
    let axis = pose.rotation * V::z() * half;
    Cap { p: pose.translation.vector - axis, q: pose.translation.vector + axis, r }
}

fn capsule_distance(a: &Cap, b: &Cap) -> f64 {
    let (x, y) = segment_closest(a.p, a.q, b.p, b.q);
    (y - x).norm() - a.r - b.r
}

/// Sphere (centre, radius) to an axis-aligned box at the origin (half-extents h), signed.
fn sphere_box_distance(c: V, r: f64, h: V) -> f64 {
    let q = c.abs() - h;
    let outside = q.map(|x| x.max(0.0)).norm();
    let inside = q.x.max(q.y).max(q.z).min(0.0);
    outside + inside - r
}

/// Two axis-aligned boxes apart along at least one axis: Euclidean gap.
fn box_box_distance(ca: V, ha: V, cb: V, hb: V) -> f64 {
    let gap = ((cb - ca).abs() - ha - hb).map(|x| x.max(0.0));
    gap.norm()
}

fn random_rotation(rng: &mut ChaCha8Rng) -> Rotation3<f64> {
    let axis = Unit::new_normalize(V::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0) + 1e-3,
    ));
    Rotation3::from_axis_angle(&axis, rng.random_range(0.0..std::f64::consts::PI))
}

fn random_pose(rng: &mut ChaCha8Rng, spread: f64) -> Pose<f64> {
    let t =
        V::new(rng.random_range(-spread..spread), rng.random_range(-spread..spread), rng.random_range(-spread..spread));
    Pose::from_parts(Translation3::from(t), random_rotation(rng))
}

fn to_f32(p: &Pose<f64>) -> Pose<f32> {
    Pose::from_parts(
        Translation3::from(p.translation.vector.cast::<f32>()),
        Rotation3::from_matrix_unchecked(p.rotation.matrix().cast::<f32>()),
    )
}

fn at(x: f64, y: f64, z: f64) -> Pose<f64> {
    Pose::from_parts(Translation3::new(x, y, z), Rotation3::identity())
}

// ---------------------------------------------------------- threshold queries

/// Checks one threshold answer against the true signed distance `d`:
/// `Clear` only when `d > threshold`, `Within` only when `d <= threshold`
/// (up to the tolerance), bounds contain `d` (up to `slack`).
fn check_threshold<R: Real>(t: Threshold<R>, d: f64, threshold: f64, slack: f64, what: &str) -> Option<bool> {
    let b = t.bounds();
    match t {
        Threshold::Clear { .. } => {
            assert!(d > threshold - slack, "{what}: Clear but d = {d} < threshold {threshold}");
            assert!(b.lower.to_f64() > threshold, "{what}: Clear with lower bound {:?} <= threshold", b.lower);
        }
        Threshold::Within { .. } => {
            assert!(d <= threshold + slack, "{what}: Within but d = {d} > threshold {threshold}");
        }
        Threshold::Undetermined { .. } => {}
    }
    assert!(b.lower.to_f64() <= d + slack && d <= b.upper.to_f64() + slack, "{what}: bounds {b:?} miss {d}");
    t.is_clear()
}

#[test]
fn threshold_sphere_capsule_box_pairs_never_clear_inside_the_threshold() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let budget64 = Budget::<f64>::default();
    let budget32 = Budget::<f32>::default();
    let (mut clear, mut within, mut undetermined) = (0, 0, 0);
    for i in 0..3000 {
        let kind = i % 4;
        let pa = random_pose(&mut rng, 0.3);
        let pb = random_pose(&mut rng, 1.2);
        let (ra, rb) = (rng.random_range(0.05..0.4), rng.random_range(0.05..0.4));
        let (ha, hb) = (rng.random_range(0.05..0.5), rng.random_range(0.05..0.5));
        let he = V::new(rng.random_range(0.1..0.5), rng.random_range(0.1..0.5), rng.random_range(0.1..0.5));
        // True distance, and a threshold near it: a hair either side, or further off.
        let (d, t64, t32): (f64, Threshold<f64>, Threshold<f32>);
        let pick = |rng: &mut ChaCha8Rng, d: f64| match rng.random_range(0..3) {
            0 => d + rng.random_range(-1e-3..1e-3),
            1 => d + rng.random_range(-0.2..0.2),
            _ => (d + rng.random_range(-1e-6..1e-6)).max(0.0),
        };
        let threshold;
        match kind {
            0 => {
                d = (pb.translation.vector - pa.translation.vector).norm() - ra - rb;
                threshold = pick(&mut rng, d).max(0.0);
                let a = Placed::new(Sphere::new(ra).unwrap(), pa);
                let b = Placed::new(Sphere::new(rb).unwrap(), pb);
                t64 = clearance(&a, &b, threshold, &budget64, &mut GjkWarmStart::default());
                let a = Placed::new(Sphere::new(ra as f32).unwrap(), to_f32(&pa));
                let b = Placed::new(Sphere::new(rb as f32).unwrap(), to_f32(&pb));
                t32 = clearance(&a, &b, threshold as f32, &budget32, &mut GjkWarmStart::default());
            }
            1 => {
                d = capsule_distance(&cap_of(&pa, ha, ra), &cap_of(&pb, hb, rb));
                threshold = pick(&mut rng, d).max(0.0);
                let a = Placed::new(Capsule::new(ha, ra).unwrap(), pa);
                let b = Placed::new(Capsule::new(hb, rb).unwrap(), pb);
                t64 = clearance(&a, &b, threshold, &budget64, &mut GjkWarmStart::default());
                let a = Placed::new(Capsule::new(ha as f32, ra as f32).unwrap(), to_f32(&pa));
                let b = Placed::new(Capsule::new(hb as f32, rb as f32).unwrap(), to_f32(&pb));
                t32 = clearance(&a, &b, threshold as f32, &budget32, &mut GjkWarmStart::default());
            }
            2 => {
                // Box at the origin, axis-aligned; sphere anywhere.
                let c = pb.translation.vector;
                d = sphere_box_distance(c, rb, he);
                threshold = pick(&mut rng, d).max(0.0);
                let a = Placed::new(Cuboid::new(he).unwrap(), Pose::identity());
                let b = Placed::new(Sphere::new(rb).unwrap(), pb);
                t64 = clearance(&a, &b, threshold, &budget64, &mut GjkWarmStart::default());
                let a = Placed::new(Cuboid::new(he.cast::<f32>()).unwrap(), Pose::identity());
                let b = Placed::new(Sphere::new(rb as f32).unwrap(), to_f32(&pb));
                t32 = clearance(&a, &b, threshold as f32, &budget32, &mut GjkWarmStart::default());
            }
            _ => {
                // Axis-aligned boxes, separated along x at least: gjk::distance_below directly.
                let hb3 = V::new(hb, ha, rb);
                let cb = V::new(
                    he.x + hb3.x + rng.random_range(0.0..0.5),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                );
                d = box_box_distance(V::zeros(), he, cb, hb3);
                threshold = pick(&mut rng, d).max(0.0);
                let a = Placed::new(Cuboid::new(he).unwrap(), Pose::identity());
                let b = Placed::new(Cuboid::new(hb3).unwrap(), at(cb.x, cb.y, cb.z));
                t64 = gjk::distance_below(&a, &b, threshold, &budget64, &mut GjkWarmStart::default());
                let a = Placed::new(Cuboid::new(he.cast::<f32>()).unwrap(), Pose::identity());
                let b = Placed::new(Cuboid::new(hb3.cast::<f32>()).unwrap(), to_f32(&at(cb.x, cb.y, cb.z)));
                t32 = gjk::distance_below(&a, &b, threshold as f32, &budget32, &mut GjkWarmStart::default());
            }
        }
        let what = format!("case {i} kind {kind}");
        // f64: the tolerance 2.2e-13 · scale; f32: 1.2e-4 · scale plus the rounding of the f32 inputs.
        match check_threshold(t64, d, threshold, 1e-9, &what) {
            Some(true) => clear += 1,
            Some(false) => within += 1,
            None => undetermined += 1,
        }
        let _ = check_threshold(t32, d, threshold as f32 as f64, 5e-4, &format!("{what} f32"));
        // The strict safety property, f32 included: never Clear when d < threshold by more than input rounding.
        if d < threshold - 1e-5 {
            assert_ne!(t32.is_clear(), Some(true), "{what} f32: clear inside the threshold");
        }
    }
    assert!(clear > 500 && within > 500, "clear {clear} within {within}");
    assert!(undetermined < 30, "undetermined {undetermined}");
}

#[test]
fn threshold_stops_earlier_than_the_distance_query_on_clear_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut threshold_its, mut distance_its) = (0u32, 0u32);
    for _ in 0..500 {
        let a = Placed::new(Cylinder::new(0.3, 0.2).unwrap(), random_pose(&mut rng, 0.1));
        let b = Placed::new(
            Cone::new(0.3, 0.2).unwrap(),
            Pose::from_parts(Translation3::new(1.5, 0.2, 0.1), random_rotation(&mut rng)),
        );
        let mut c1 = GjkWarmStart::default();
        let t = gjk::distance_below(&a, &b, 0.2, &Budget::default(), &mut c1);
        assert_eq!(t.is_clear(), Some(true));
        threshold_its += c1.iterations;
        let mut c2 = GjkWarmStart::default();
        let GjkOutcome::Separated(s) = gjk::distance(&a, &b, &Budget::<f64>::default(), &mut c2) else { panic!() };
        assert!(t.bounds().lower <= s.distance + 1e-12);
        distance_its += c2.iterations;
    }
    assert!(threshold_its * 2 < distance_its, "threshold {threshold_its} vs distance {distance_its} iterations");
}

#[test]
fn threshold_rejects_nan_and_caps_iterations() {
    let a = Placed::new(Sphere::new(1.0_f32).unwrap(), Pose::identity());
    let b = Placed::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(), to_f32(&at(3.0, 0.0, 0.0)));
    let nan = gjk::distance_below(&a, &b, f32::NAN, &Budget::default(), &mut GjkWarmStart::default());
    assert!(matches!(nan, Threshold::Undetermined { reason: Undetermined::NonFinite, .. }));
    let nan = clearance(&a, &b, f32::NAN, &Budget::default(), &mut GjkWarmStart::default());
    assert!(matches!(nan, Threshold::Undetermined { .. }));
    // One GJK iteration with the threshold a hair below the true distance 1
    // (a cylinder and a box off its axis: no closed form, and the first
    // support planes, along the centres' offset and then the first iterate,
    // are tilted from the normal): not decidable, not clear.
    let c = Placed::new(Cylinder::new(1.0_f32, 1.0).unwrap(), Pose::identity());
    let off = Placed::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(), to_f32(&at(3.0, 0.5, 0.0)));
    let capped = clearance(&off, &c, 0.999_999, &Budget::new(1, 1e-4), &mut GjkWarmStart::default());
    assert_ne!(capped.is_clear(), Some(true));
    // The sphere–box pair is answered in closed form, exactly: clear.
    let exact = clearance(&b, &a, 0.999_9, &Budget::new(1, 1e-4), &mut GjkWarmStart::default());
    assert!(matches!(exact, Threshold::Clear { bounds } if bounds.contains(1.0)));
}

// -------------------------------------------------------------------- scene

/// A 3-link capsule arm on a base, a table, and a person (torso capsule and head sphere).
static ROBOT: [BodyDesc<'static, f64>; 7] = [
    BodyDesc::root(ShapeDesc::cylinder(0.1, 0.12)),      // 0 base
    BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), 0),   // 1 upper arm
    BodyDesc::child(ShapeDesc::capsule(0.15, 0.04), 1),  // 2 forearm
    BodyDesc::child(ShapeDesc::capsule(0.05, 0.03), 2),  // 3 wrist
    BodyDesc::root(ShapeDesc::cuboid([0.6, 0.4, 0.02])), // 4 table
    BodyDesc::root(ShapeDesc::capsule(0.3, 0.15)),       // 5 person torso
    BodyDesc::child(ShapeDesc::sphere(0.11), 5),         // 6 person head
];

#[test]
fn scene_pair_set_is_the_tree_minus_adjacent_minus_allowed() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..50 {
        let n = rng.random_range(2..12u16);
        let mut scene = Scene::<f64, 12, 66>::new();
        let mut parent = vec![None; n as usize];
        for i in 0..n {
            let p = if i > 0 && rng.random_bool(0.7) { Some(rng.random_range(0..i)) } else { None };
            parent[i as usize] = p;
            let desc = BodyDesc { shape: ShapeDesc::sphere(0.1), parent: p };
            assert_eq!(scene.add_body(&desc), Ok(i));
        }
        let mut allowed = std::collections::HashSet::new();
        for _ in 0..rng.random_range(0..6) {
            let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
            if a != b {
                scene.allow_collision(a, b).unwrap();
                allowed.insert((a.min(b), a.max(b)));
            }
        }
        scene.pairs_from_tree(&PairSettings::new(0.1, PairQuery::Clearance)).unwrap();
        let mut expected = std::collections::BTreeSet::new();
        for a in 0..n {
            for b in a + 1..n {
                let adjacent = parent[b as usize] == Some(a) || parent[a as usize] == Some(b);
                if !adjacent && !allowed.contains(&(a, b)) {
                    expected.insert((a, b));
                }
            }
        }
        let got: std::collections::BTreeSet<_> = scene.pairs().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(got, expected);
        assert_eq!(scene.pairs().len(), expected.len());
    }
}

#[test]
fn scene_answers_equal_contact_run_directly_on_each_pair() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut scene = Scene::<f64, 7, 21>::new();
    scene.add_bodies(&ROBOT).unwrap();
    // Every pair measured: a bound larger than the scene.
    scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::DistanceUpTo(100.0))).unwrap();
    let budget = TickBudget::new(100_000);
    let mut measured = 0;
    for _ in 0..40 {
        for i in 0..7 {
            scene.set_pose(i, &random_pose(&mut rng, 0.6)).unwrap();
        }
        let summary = scene.tick(&budget);
        assert_eq!(summary.undetermined, 0);
        for pair in scene.pairs() {
            let (a, b) = (scene.bodies()[pair.a as usize].placed(), scene.bodies()[pair.b as usize].placed());
            let direct = contact(a, b, &Budget::default(), &mut GjkWarmStart::default());
            let d = direct.signed_distance().expect("direct contact decided");
            let m = pair.outcome.measured().unwrap_or_else(|| panic!("pair not measured: {:?}", pair.outcome));
            assert!((m.signed_distance - d).abs() < 1e-6, "scene {} vs direct {d}", m.signed_distance);
            assert_eq!(pair.outcome.violates_margin(), Some(d < 0.05 || m.bounds.lower < 0.05));
            measured += 1;
        }
    }
    assert!(measured > 500);
}

/// World capsule of a scene body (capsule bodies only).
fn body_capsule(scene: &Scene<'_, f64, 7, 21>, i: usize) -> Cap {
    let (half, r) = match ROBOT[i].shape {
        ShapeDesc::Capsule { half_length, radius } => (half_length, radius),
        ShapeDesc::Sphere { radius } => (0.0, radius),
        _ => unreachable!(),
    };
    cap_of(scene.bodies()[i].placed().pose(), half, r)
}

#[test]
fn scene_outcomes_match_closed_forms_for_capsules_and_spheres() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut scene = Scene::<f64, 7, 21>::new();
    scene.add_bodies(&ROBOT).unwrap();
    let margin = 0.1;
    scene.pairs_from_tree(&PairSettings::new(margin, PairQuery::Contact)).unwrap();
    let round = [1usize, 2, 3, 5, 6];
    let (mut clear, mut within, mut culled) = (0, 0, 0);
    for _ in 0..300 {
        for i in 0..7 {
            scene.set_pose(i, &random_pose(&mut rng, 0.5)).unwrap();
        }
        let summary = scene.tick(&TickBudget::new(100_000));
        culled += summary.culled;
        for pair in scene.pairs() {
            let (a, b) = (pair.a as usize, pair.b as usize);
            if !(round.contains(&a) && round.contains(&b)) {
                continue;
            }
            let d = capsule_distance(&body_capsule(&scene, a), &body_capsule(&scene, b));
            if is_clear_at(&pair.outcome, d, margin) {
                clear += 1;
            } else {
                within += 1;
            }
        }
    }
    assert!(clear > 100 && within > 100 && culled > 100, "clear {clear} within {within} culled {culled}");
}

/// Checks a `Contact` pair's outcome against the true signed distance `d`:
/// clear only beyond the margin, with a lower bound below `d`; within the
/// margin only at or below it, measured to 1e-9. Anything else fails.
/// Returns whether the pair was clear.
fn is_clear_at(outcome: &PairOutcome<f64>, d: f64, margin: f64) -> bool {
    match outcome {
        PairOutcome::Clear { lower_bound } => {
            assert!(d > margin && *lower_bound <= d + 1e-12, "clear at {d}, lower {lower_bound}");
            true
        }
        PairOutcome::WithinMargin { measured: Some(m), .. } => {
            assert!(d <= margin + 1e-9, "within margin at {d}");
            assert!((m.signed_distance - d).abs() < 1e-9, "{} vs {d}", m.signed_distance);
            false
        }
        other => panic!("unexpected {other:?} at {d}"),
    }
}

/// Balls around a cylinder (a tool, a person's head, a cylindrical post)
/// in a scene: every pair's outcome agrees with the point–cylinder
/// distance less the ball's radius, measured exactly within the margin,
/// with the centre outside the cylinder or inside it.
#[test]
fn scene_outcomes_match_the_point_cylinder_distance_for_balls_and_a_cylinder() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut scene = Scene::<f64, 5, 4>::new();
    let (half_height, radius, ball) = (0.4, 0.15, 0.05);
    scene.add_body(&BodyDesc::root(ShapeDesc::cylinder(half_height, radius))).unwrap();
    for _ in 0..4 {
        scene.add_body(&BodyDesc::root(ShapeDesc::sphere(ball))).unwrap();
    }
    let margin = 0.1;
    for b in 1..5 {
        scene.enable_pair(0, b, &PairSettings::new(margin, PairQuery::Contact)).unwrap();
    }
    let (mut clear, mut within, mut inside) = (0, 0, 0);
    for _ in 0..500 {
        let at = random_pose(&mut rng, 0.3);
        scene.set_pose(0, &at).unwrap();
        for b in 1..5 {
            let local = V::new(rng.random_range(-0.4..0.4), rng.random_range(-0.4..0.4), rng.random_range(-0.7..0.7));
            let centre = at.transform_point(&Point3::from(local));
            scene.set_pose(b, &Pose::from_parts(Translation3::from(centre.coords), Rotation3::identity())).unwrap();
        }
        scene.tick(&TickBudget::new(100_000));
        for pair in scene.pairs() {
            let ball_body = if pair.a == 0 { pair.b } else { pair.a };
            let centre = Point3::from(scene.bodies()[ball_body as usize].placed().pose().translation.vector);
            let to_cylinder = crate::closed_form_cylinder::point_cylinder(&centre, &at, half_height, radius);
            let d = to_cylinder - ball;
            if is_clear_at(&pair.outcome, d, margin) {
                clear += 1;
            } else {
                within += 1;
                inside += usize::from(to_cylinder < 0.0);
            }
        }
    }
    assert!(clear > 300 && within > 300 && inside > 100, "clear {clear} within {within} inside {inside}");
}

/// Two capsules walked apart across their margin and bound and back, one
/// tick per step: a pair measured on one tick is measured again at once on
/// the next, so every tick's outcome is checked against the segment
/// distance as the pair enters and leaves each band (clear beyond the
/// bound with a lower bound below the distance, near between margin and
/// bound, within the margin below it). Ticking the same poses again gives
/// the same outcome with no more work, and a measurement after a
/// measurement takes fewer iterations than one after a clear tick (no
/// threshold query before it).
#[test]
fn scene_pair_walked_across_its_margin_and_bound_matches_the_segment_distance() {
    let (half, r, margin, bound) = (0.3, 0.05, 0.05, 0.2);
    let mut scene = Scene::<f64, 2, 1>::new();
    for _ in 0..2 {
        scene.add_body(&BodyDesc::root(ShapeDesc::capsule(half, r))).unwrap();
    }
    scene.enable_pair(0, 1, &PairSettings::new(margin, PairQuery::DistanceUpTo(bound))).unwrap();
    let tilt = Rotation3::from_axis_angle(&Vector3::y_axis(), 0.4);
    let a = Pose::from_parts(Translation3::new(0.1, -0.2, 0.3), Rotation3::from_axis_angle(&Vector3::x_axis(), 0.3));
    scene.set_pose(0, &a).unwrap();
    let steps: Vec<f64> = (0..=60).chain((0..60).rev()).map(|k| -0.05 + 0.01 * f64::from(k)).collect();
    let (mut bands, mut previous) = ([0usize; 3], None);
    let (mut after_clear, mut after_measured) = (vec![], vec![]);
    for x in steps {
        let b = Pose::from_parts(Translation3::new(0.1 + 2.0 * r + x, -0.2, 0.3), tilt);
        scene.set_pose(1, &b).unwrap();
        let d = capsule_distance(&cap_of(&a, half, r), &cap_of(&b, half, r));
        let mut outcomes = [None; 2];
        for slot in &mut outcomes {
            let summary = scene.tick(&TickBudget::new(1000));
            assert_eq!(summary.undetermined, 0);
            let pair = scene.pairs()[0];
            let band = match pair.outcome {
                PairOutcome::Clear { lower_bound } => {
                    assert!(
                        d > bound && lower_bound > bound && lower_bound <= d + 1e-12,
                        "clear at {d}: {lower_bound}"
                    );
                    0
                }
                PairOutcome::Near(m) => {
                    assert!(d >= margin - 1e-9 && d <= bound + 1e-9, "near at {d}");
                    assert!((m.signed_distance - d).abs() < 1e-9, "{} vs {d}", m.signed_distance);
                    1
                }
                PairOutcome::WithinMargin { measured: Some(m), .. } => {
                    assert!(d <= margin + 1e-9, "within the margin at {d}");
                    assert!((m.signed_distance - d).abs() < 1e-9, "{} vs {d}", m.signed_distance);
                    2
                }
                other => panic!("{other:?} at {d}"),
            };
            *slot = Some((band, pair.iterations));
        }
        let [Some((band, first)), Some((band_again, second))] = outcomes else { unreachable!() };
        assert_eq!(band, band_again, "at {d}");
        assert!(second <= first, "at {d}: {second} iterations again, {first} the first time");
        // A measured tick after a measured one skips the threshold query.
        if band > 0 {
            let after = if previous.is_some_and(|p| p > 0) { &mut after_measured } else { &mut after_clear };
            after.push(first);
            after_measured.push(second);
        }
        previous = Some(band);
        bands[band] += 1;
    }
    assert!(bands.iter().all(|&n| n > 10), "{bands:?}");
    assert!(!after_clear.is_empty() && after_measured.iter().max() < after_clear.iter().min());
}

#[test]
fn scene_tick_budget_is_never_exceeded_and_unreached_pairs_are_undetermined() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut scene = Scene::<f64, 7, 21>::new();
    scene.add_bodies(&ROBOT).unwrap();
    scene.pairs_from_tree(&PairSettings::new(0.3, PairQuery::Contact)).unwrap();
    for total in [0u32, 1, 3, 7, 15, 40] {
        for i in 0..7 {
            // Packed together: nothing is culled.
            scene.set_pose(i, &random_pose(&mut rng, 0.05)).unwrap();
        }
        let summary = scene.tick(&TickBudget::new(total));
        assert!(summary.iterations <= total, "{} > {total}", summary.iterations);
        let used: u32 = scene.pairs().iter().map(|p| p.iterations).sum();
        assert_eq!(used, summary.iterations);
        for pair in scene.pairs() {
            let (a, b) = (scene.bodies()[pair.a as usize].placed(), scene.bodies()[pair.b as usize].placed());
            let d = contact(a, b, &Budget::default(), &mut GjkWarmStart::default()).signed_distance().unwrap();
            if let PairOutcome::Clear { .. } = pair.outcome {
                assert!(d > 0.3, "clear at {d}");
            }
        }
        if total == 0 {
            assert_eq!(summary.not_reached + summary.culled, summary.pairs);
        }
    }
}

#[test]
fn scene_processes_last_ticks_most_urgent_pairs_first() {
    let mut scene = Scene::<f64, 4, 6>::new();
    for _ in 0..4 {
        scene.add_body(&BodyDesc::root(ShapeDesc::cuboid([0.3, 0.3, 0.3]))).unwrap();
    }
    scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::Contact)).unwrap();
    // Boxes 2 and 3 overlap; 0 and 1 are 0.1 apart, inside each other's bounding spheres.
    for (i, x) in [0.0, 0.7, 2.0, 2.5].iter().enumerate() {
        scene.set_pose(i as u16, &at(*x, 0.0, 0.0)).unwrap();
    }
    let _ = scene.tick(&TickBudget::new(10_000));
    let urgent = scene.find_pair(2, 3).unwrap();
    assert!(matches!(scene.pairs()[urgent].outcome, PairOutcome::WithinMargin { measured: Some(_), .. }));
    assert!(matches!(scene.pairs()[scene.find_pair(0, 1).unwrap()].outcome, PairOutcome::Clear { .. }));
    // Next tick with one iteration in all: the overlapping pair gets it.
    let summary = scene.tick(&TickBudget::new(1));
    assert_eq!(summary.iterations, 1);
    assert_eq!(scene.pairs()[urgent].iterations, 1);
    let near = scene.find_pair(0, 1).unwrap();
    assert!(matches!(
        scene.pairs()[near].outcome,
        PairOutcome::Undetermined { reason: PairUndetermined::NotReached, .. }
    ));
}

#[test]
fn scene_summary_counts_and_display() {
    let mut scene = Scene::<f32, 3, 3>::new();
    for _ in 0..3 {
        scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap();
    }
    scene.pairs_from_tree(&PairSettings::new(0.2, PairQuery::Contact)).unwrap();
    for (i, x) in [0.0_f32, 0.9, 5.0].iter().enumerate() {
        scene.set_pose(i as u16, &Pose::from_parts(Translation3::new(*x, 0.0, 0.0), Rotation3::identity())).unwrap();
    }
    let s = scene.tick(&TickBudget::new(1000));
    assert_eq!((s.pairs, s.clear, s.culled, s.within_margin, s.penetrating, s.undetermined), (3, 2, 2, 1, 1, 0));
    let closest = s.closest.unwrap();
    assert_eq!(scene.pairs()[closest.pair as usize].a, 0);
    assert!((closest.bounds.upper + 0.1).abs() < 1e-4, "{closest:?}");
    let line = format!("{s}");
    assert!(line.starts_with("pairs 3: clear 2 (culled 2), near 0, within margin 1 (penetrating 1)"), "{line}");
}

#[test]
fn scene_refuses_bad_input_and_loses_nothing() {
    let mut scene = Scene::<f64, 3, 2>::new();
    scene.add_bodies(&ROBOT[..3]).unwrap();
    assert_eq!(scene.add_body(&ROBOT[3]), Ok(3).map(|_: u16| 3).and(Err(SceneError::BodyCapacity)));
    assert_eq!(
        scene.add_body(&BodyDesc::root(ShapeDesc::sphere(-1.0))),
        Err(SceneError::Shape(ShapeError::NonPositiveSize))
    );
    let s = PairSettings::new(0.1, PairQuery::Contact);
    assert_eq!(scene.enable_pair(0, 0, &s), Err(SceneError::SelfPair));
    assert_eq!(scene.enable_pair(0, 9, &s), Err(SceneError::UnknownBody(9)));
    assert_eq!(scene.enable_pair(0, 2, &PairSettings::new(f64::NAN, PairQuery::Contact)), Err(SceneError::BadMargin));
    assert_eq!(
        scene.enable_pair(0, 2, &PairSettings::new(0.1, PairQuery::DistanceUpTo(-1.0))),
        Err(SceneError::BadMargin)
    );
    assert_eq!(scene.enable_pair(0, 2, &s), Ok(0));
    assert_eq!(scene.enable_pair(0, 1, &s), Ok(1));
    assert_eq!(scene.enable_pair(1, 2, &s), Err(SceneError::PairCapacity { needed: 3 }));
    assert_eq!(scene.pairs().len(), 2);
    // Three bodies, none adjacent to 0–2... 0–1 and 1–2 are adjacent: one pair from the tree.
    scene.pairs_from_tree(&s).unwrap();
    assert_eq!(scene.pairs().len(), 1);
    // Poses.
    let good = at(0.1, 0.2, 0.3);
    scene.set_pose(0, &good).unwrap();
    let nan = at(f64::NAN, 0.0, 0.0);
    assert_eq!(scene.set_pose(0, &nan), Err(SceneError::Pose { body: 0, error: ShapeError::NonFinite }));
    let scaled = Pose::from_parts(
        Translation3::new(0.0, 0.0, 0.0),
        Rotation3::from_matrix_unchecked(nalgebra::Matrix3::identity() * 1.01),
    );
    assert_eq!(scene.set_pose(0, &scaled), Err(SceneError::Pose { body: 0, error: ShapeError::NotARotation }));
    assert_eq!(scene.set_pose(7, &good), Err(SceneError::UnknownBody(7)));
    assert_eq!(scene.bodies()[0].placed().pose(), &good, "the refused poses left the body where it was");
    // A pair with an unposed body is undetermined, never clear.
    let _ = scene.tick(&TickBudget::new(100));
    assert!(matches!(scene.pairs()[0].outcome, PairOutcome::Undetermined { reason: PairUndetermined::NoPose, .. }));
}

#[test]
fn scene_isometry_pose_equals_matrix_pose() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut one = Scene::<f64, 7, 21>::new();
    let mut two = Scene::<f64, 7, 21>::new();
    one.add_bodies(&ROBOT).unwrap();
    two.add_bodies(&ROBOT).unwrap();
    let s = PairSettings::new(0.05, PairQuery::DistanceUpTo(10.0));
    one.pairs_from_tree(&s).unwrap();
    two.pairs_from_tree(&s).unwrap();
    for i in 0..7 {
        let p = random_pose(&mut rng, 0.5);
        one.set_pose(i, &p).unwrap();
        let iso = Isometry3::from_parts(p.translation, UnitQuaternion::from_rotation_matrix(&p.rotation));
        two.set_isometry(i, &iso).unwrap();
    }
    let _ = one.tick(&TickBudget::new(100_000));
    let _ = two.tick(&TickBudget::new(100_000));
    for (x, y) in one.pairs().iter().zip(two.pairs()) {
        let (dx, dy) = (x.outcome.measured().unwrap().signed_distance, y.outcome.measured().unwrap().signed_distance);
        assert!((dx - dy).abs() < 1e-12);
    }
    let q = UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(f64::NAN, 0.0, 0.0, 0.0));
    assert_eq!(
        two.set_isometry(0, &Isometry3::from_parts(Translation3::identity(), q)),
        Err(SceneError::Pose { body: 0, error: ShapeError::NonFinite })
    );
}

#[test]
fn scene_jumps_and_warm_starts_give_the_cold_answers() {
    // A smooth trajectory with one jump: every tick equals a cold direct query.
    let mut scene = Scene::<f64, 7, 21>::new();
    scene.add_bodies(&ROBOT).unwrap();
    scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::DistanceUpTo(100.0))).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let base: Vec<_> = (0..7).map(|_| random_pose(&mut rng, 0.6)).collect();
    for k in 0..60 {
        let s = k as f64 * 0.01 + if k == 30 { 2.0 } else { 0.0 };
        for (i, p) in base.iter().enumerate() {
            let turn = Rotation3::from_axis_angle(&Vector3::z_axis(), s * (i as f64 + 1.0));
            scene
                .set_pose(
                    i as u16,
                    &Pose::from_parts(Translation3::from(p.translation.vector + V::x() * s), turn * p.rotation),
                )
                .unwrap();
        }
        let _ = scene.tick(&TickBudget::new(100_000));
        for pair in scene.pairs() {
            let (a, b) = (scene.bodies()[pair.a as usize].placed(), scene.bodies()[pair.b as usize].placed());
            let d = contact(a, b, &Budget::default(), &mut GjkWarmStart::default()).signed_distance().unwrap();
            assert!((pair.outcome.measured().unwrap().signed_distance - d).abs() < 1e-6);
        }
    }
}

#[test]
fn scene_description_lives_in_a_static_and_the_scene_is_const() {
    static ARM7: [BodyDesc<'static, f32>; 7] = [
        BodyDesc::root(ShapeDesc::cylinder(0.1, 0.1)),
        BodyDesc::child(ShapeDesc::capsule(0.1, 0.06), 0),
        BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), 1),
        BodyDesc::child(ShapeDesc::capsule(0.05, 0.05), 2),
        BodyDesc::child(ShapeDesc::capsule(0.15, 0.04), 3),
        BodyDesc::child(ShapeDesc::capsule(0.04, 0.04), 4),
        BodyDesc::child(ShapeDesc::rounded_cuboid([0.03, 0.05, 0.02], 0.01), 5),
    ];
    const EMPTY: Scene<'static, f32, 8, 28> = Scene::new();
    let mut scene = EMPTY;
    scene.add_bodies(&ARM7).unwrap();
    scene.pairs_from_tree(&PairSettings::new(0.02, PairQuery::Clearance)).unwrap();
    assert_eq!(scene.pairs().len(), 21 - 6);
}

// -------------------------------------------------------------- derivatives

/// The gradient of `dist` with respect to the world twists of its two
/// poses, by central differences (step 1e-6) under small rigid motions.
fn fd_twist_gradient(
    a: &Pose<f64>,
    b: &Pose<f64>,
    dist: &dyn Fn(&Pose<f64>, &Pose<f64>) -> f64,
) -> (Vector6<f64>, Vector6<f64>) {
    let h = 1e-6;
    let moved = |p: &Pose<f64>, xi: &Vector6<f64>, s: f64| {
        let w = V::new(xi[3], xi[4], xi[5]) * s;
        let v = V::new(xi[0], xi[1], xi[2]) * s;
        let r = Rotation3::new(w);
        // World-frame twist at the origin: every body point x moves to R·x + h·v, whose
        // velocity at h = 0 is v + ω × x (first order is all central differences need).
        Pose::from_parts(Translation3::from(r * p.translation.vector + v), r * p.rotation)
    };
    let mut ga = Vector6::zeros();
    let mut gb = Vector6::zeros();
    for k in 0..6 {
        let mut xi = Vector6::zeros();
        xi[k] = 1.0;
        ga[k] = (dist(&moved(a, &xi, h), b) - dist(&moved(a, &xi, -h), b)) / (2.0 * h);
        gb[k] = (dist(a, &moved(b, &xi, h)) - dist(a, &moved(b, &xi, -h))) / (2.0 * h);
    }
    (ga, gb)
}

fn rel_err(g: &Vector6<f64>, r: &Vector6<f64>) -> f64 {
    (g - r).amax() / r.amax().max(1e-300)
}

#[test]
fn gradient_of_capsule_pairs_matches_closed_form_in_f64_and_f32() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (ha, ra, hb, rb) = (0.2, 0.05, 0.15, 0.04);
    let closed = |a: &Pose<f64>, b: &Pose<f64>| capsule_distance(&cap_of(a, ha, ra), &cap_of(b, hb, rb));
    let (mut worst64, mut worst32, mut n) = (0.0_f64, 0.0_f64, 0);
    while n < 300 {
        let pa = random_pose(&mut rng, 0.3);
        let pb = random_pose(&mut rng, 0.6);
        let (ca, cb) = (cap_of(&pa, ha, ra), cap_of(&pb, hb, rb));
        let d = capsule_distance(&ca, &cb);
        // Away from parallel axes (the closest points are not unique there) and from overlap of the cores.
        let (da, db) = ((ca.q - ca.p).normalize(), (cb.q - cb.p).normalize());
        if da.cross(&db).norm() < 0.2 || d < -0.05 {
            continue;
        }
        n += 1;
        let (ga, gb) = fd_twist_gradient(&pa, &pb, &closed);
        // f64 scene.
        let mut s64 = Scene::<f64, 2, 1>::new();
        s64.add_body(&BodyDesc::root(ShapeDesc::capsule(ha, ra))).unwrap();
        s64.add_body(&BodyDesc::root(ShapeDesc::capsule(hb, rb))).unwrap();
        s64.enable_pair(0, 1, &PairSettings::new(10.0, PairQuery::Contact)).unwrap();
        s64.set_pose(0, &pa).unwrap();
        s64.set_pose(1, &pb).unwrap();
        let _ = s64.tick(&TickBudget::new(1000));
        let g = s64.pairs()[0].twist_gradient().unwrap();
        worst64 = worst64.max(rel_err(&g.a, &ga)).max(rel_err(&g.b, &gb));
        // f32 scene, same poses.
        let mut s32 = Scene::<f32, 2, 1>::new();
        s32.add_body(&BodyDesc::root(ShapeDesc::capsule(ha as f32, ra as f32))).unwrap();
        s32.add_body(&BodyDesc::root(ShapeDesc::capsule(hb as f32, rb as f32))).unwrap();
        s32.enable_pair(0, 1, &PairSettings::new(10.0, PairQuery::Contact)).unwrap();
        s32.set_pose(0, &to_f32(&pa)).unwrap();
        s32.set_pose(1, &to_f32(&pb)).unwrap();
        let _ = s32.tick(&TickBudget::new(1000));
        let g = s32.pairs()[0].twist_gradient().unwrap();
        worst32 = worst32.max(rel_err(&g.a.cast(), &ga)).max(rel_err(&g.b.cast(), &gb));
    }
    println!(
        "capsule gradient vs closed-form finite differences: worst relative error f64 {worst64:.2e}, f32 {worst32:.2e}"
    );
    assert!(worst64 <= 1e-8, "f64 {worst64}");
    assert!(worst32 <= 1e-4, "f32 {worst32}");
}

#[test]
fn gradient_matches_finite_differences_of_the_kernel_distance() {
    // Box, cylinder, sphere pairs: the kernel's own distance under small rigid motions.
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let shapes = [ShapeDesc::cuboid([0.2, 0.1, 0.15]), ShapeDesc::sphere(0.1), ShapeDesc::capsule(0.1, 0.05)];
    let mut worst = 0.0_f64;
    for k in 0..90 {
        let (sa, sb) = (shapes[k % 3], shapes[(k / 3) % 3]);
        let pa = random_pose(&mut rng, 0.2);
        let pb = Pose::from_parts(Translation3::new(0.8, rng.random_range(-0.1..0.1), 0.0), random_rotation(&mut rng));
        let a = narrowphase::scene::Shape::new(&sa).unwrap();
        let b = narrowphase::scene::Shape::new(&sb).unwrap();
        let kernel = |x: &Pose<f64>, y: &Pose<f64>| {
            contact(&Placed::new(a, *x), &Placed::new(b, *y), &Budget::default(), &mut GjkWarmStart::default())
                .signed_distance()
                .unwrap()
        };
        let (ga, gb) = fd_twist_gradient(&pa, &pb, &kernel);
        let mut scene = Scene::<f64, 2, 1>::new();
        scene.add_body(&BodyDesc::root(sa)).unwrap();
        scene.add_body(&BodyDesc::root(sb)).unwrap();
        scene.enable_pair(0, 1, &PairSettings::new(10.0, PairQuery::Contact)).unwrap();
        scene.set_pose(0, &pa).unwrap();
        scene.set_pose(1, &pb).unwrap();
        let _ = scene.tick(&TickBudget::new(1000));
        let g = scene.pairs()[0].twist_gradient().unwrap();
        worst = worst.max(rel_err(&g.a, &ga)).max(rel_err(&g.b, &gb));
    }
    println!("kernel gradient vs finite differences (box/sphere/capsule): worst relative error {worst:.2e}");
    assert!(worst <= 1e-6, "{worst}");
}

#[test]
fn joint_gradient_equals_the_chain_rule_by_hand() {
    let w = Witness {
        point_a: Point3::new(0.1, 0.2, 0.3),
        point_b: Point3::new(0.4, -0.1, 0.9),
        normal: V::new(0.3, -0.3, 0.6).normalize(),
    };
    let g = TwistGradient::from_witness(&w);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let ja = SMatrix::<f64, 6, 3>::from_fn(|_, _| rng.random_range(-1.0..1.0));
    let jb = SMatrix::<f64, 6, 3>::from_fn(|_, _| rng.random_range(-1.0..1.0));
    let dq = joint_gradient(&g, &ja, &jb);
    for k in 0..3 {
        // d/dt d for q̇ = e_k: twists are the Jacobians' columns.
        let ta: Vector6<f64> = ja.column(k).into_owned();
        let tb: Vector6<f64> = jb.column(k).into_owned();
        let n = w.normal;
        let vel =
            |t: &Vector6<f64>, p: &Point3<f64>| V::new(t[0], t[1], t[2]) + V::new(t[3], t[4], t[5]).cross(&p.coords);
        let by_hand = n.dot(&(vel(&tb, &w.point_b) - vel(&ta, &w.point_a)));
        assert!((dq[k] - by_hand).abs() < 1e-14);
    }
    // Views into a larger Jacobian work too.
    let big = SMatrix::<f64, 6, 7>::from_fn(|i, j| (i * 7 + j) as f64 * 0.01);
    let view = big.fixed_view::<6, 3>(0, 2);
    let dq2 = joint_gradient(&g, &view, &view);
    assert!(dq2.iter().all(|x| x.is_finite()));
}

#[test]
fn scene_memory_per_body_and_pair() {
    use narrowphase::scene::{Body, Pair};
    let (body, pair) = (std::mem::size_of::<Body<'static, f32>>(), std::mem::size_of::<Pair<f32>>());
    let epa = std::mem::size_of::<narrowphase::support::epa::DefaultEpa<f32>>();
    let scene = std::mem::size_of::<Scene<'static, f32, 8, 28>>();
    println!("f32 on this host: body {body} B, pair {pair} B, EPA workspace {epa} B, Scene<f32, 8, 28> {scene} B");
    // Everything is inline: the scene is its parts plus small bookkeeping.
    assert!(scene <= epa + 8 * (body + 8) + 28 * (pair + 2) + 64);
}

/// Random scenes of spheres and capsules (closed-form distances), random
/// margins, queries and tick budgets, pose streams with small motions and
/// jumps: clear is never reported for a pair whose true distance is at or
/// below its threshold, and every measured or bounded answer holds the true
/// distance — in f64 and in f32.
#[test]
fn scene_never_reports_clear_inside_the_threshold_on_random_streams() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (mut clear, mut measured, mut undetermined) = (0, 0, 0);
    for _ in 0..40 {
        let n = rng.random_range(2..9usize);
        let bodies: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                let half = if rng.random_bool(0.3) { 0.0 } else { rng.random_range(0.05..0.4) };
                (half, rng.random_range(0.03..0.2))
            })
            .collect();
        let mut s64 = Scene::<f64, 8, 28>::new();
        let mut s32 = Scene::<f32, 8, 28>::new();
        for &(half, r) in &bodies {
            let (d64, d32) = if half == 0.0 {
                (ShapeDesc::sphere(r), ShapeDesc::sphere(r as f32))
            } else {
                (ShapeDesc::capsule(half, r), ShapeDesc::capsule(half as f32, r as f32))
            };
            s64.add_body(&BodyDesc::root(d64)).unwrap();
            s32.add_body(&BodyDesc::root(d32)).unwrap();
        }
        for a in 0..n as u16 {
            for b in a + 1..n as u16 {
                let margin = rng.random_range(0.0..0.3);
                let (q64, q32) = match rng.random_range(0..3) {
                    0 => (PairQuery::Clearance, PairQuery::Clearance),
                    1 => (PairQuery::Contact, PairQuery::Contact),
                    _ => {
                        let bound = rng.random_range(0.0..0.6);
                        (PairQuery::DistanceUpTo(bound), PairQuery::DistanceUpTo(bound as f32))
                    }
                };
                s64.enable_pair(a, b, &PairSettings::new(margin, q64)).unwrap();
                s32.enable_pair(a, b, &PairSettings::new(margin as f32, q32)).unwrap();
            }
        }
        let mut poses: Vec<Pose<f64>> = (0..n).map(|_| random_pose(&mut rng, 0.6)).collect();
        for _ in 0..20 {
            for (i, p) in poses.iter_mut().enumerate() {
                *p = if rng.random_bool(0.05) {
                    random_pose(&mut rng, 0.6)
                } else {
                    let nudge = Rotation3::new(V::new(0.02, -0.01, 0.03));
                    Pose::from_parts(
                        Translation3::from(p.translation.vector + V::new(0.01, 0.0, -0.01)),
                        nudge * p.rotation,
                    )
                };
                s64.set_pose(i as u16, p).unwrap();
                s32.set_pose(i as u16, &to_f32(p)).unwrap();
            }
            let budget = rng.random_range(0..300);
            let _ = s64.tick(&TickBudget::new(budget));
            let _ = s32.tick(&TickBudget::new(budget));
            for (p64, p32) in s64.pairs().iter().zip(s32.pairs()) {
                let (a, b) = (p64.a as usize, p64.b as usize);
                let cap = |i: usize| cap_of(&poses[i], bodies[i].0, bodies[i].1);
                let d = capsule_distance(&cap(a), &cap(b));
                let threshold = p64.settings.threshold();
                for (outcome, slack) in [(p64.outcome, 1e-9), (narrowphase_outcome_f64(&p32.outcome), 2e-5)] {
                    let bounds = outcome.bounds();
                    match outcome {
                        PairOutcome::Clear { lower_bound } => {
                            assert!(d > threshold - slack, "clear at {d}, threshold {threshold}");
                            assert!(lower_bound <= d + slack);
                            clear += 1;
                        }
                        PairOutcome::Near(m) | PairOutcome::WithinMargin { measured: Some(m), .. } => {
                            assert!((m.signed_distance - d).abs() < slack * 10.0, "{} vs {d}", m.signed_distance);
                            measured += 1;
                        }
                        PairOutcome::WithinMargin { measured: None, .. } => {
                            assert!(d <= threshold + slack * 10.0, "within at {d}, threshold {threshold}");
                        }
                        PairOutcome::Undetermined { .. } => undetermined += 1,
                    }
                    if !matches!(outcome, PairOutcome::Undetermined { reason: PairUndetermined::NotReached, .. }) {
                        assert!(
                            bounds.lower <= d + slack * 10.0 && d <= bounds.upper + slack * 10.0,
                            "{bounds:?} vs {d}"
                        );
                    }
                }
            }
        }
    }
    assert!(clear > 1000 && measured > 500 && undetermined > 50, "{clear} {measured} {undetermined}");
}

/// An f32 pair outcome widened to f64 for comparison.
fn narrowphase_outcome_f64(o: &PairOutcome<f32>) -> PairOutcome<f64> {
    use narrowphase::scene::Measured;
    let b = |b: Bounds<f32>| Bounds { lower: b.lower as f64, upper: b.upper as f64 };
    let m = |m: &Measured<f32>| Measured {
        signed_distance: m.signed_distance as f64,
        bounds: b(m.bounds),
        witness: Witness {
            point_a: m.witness.point_a.cast(),
            point_b: m.witness.point_b.cast(),
            normal: m.witness.normal.cast(),
        },
    };
    match o {
        PairOutcome::Clear { lower_bound } => PairOutcome::Clear { lower_bound: *lower_bound as f64 },
        PairOutcome::Near(x) => PairOutcome::Near(m(x)),
        PairOutcome::WithinMargin { bounds, measured } => {
            PairOutcome::WithinMargin { bounds: b(*bounds), measured: measured.as_ref().map(m) }
        }
        PairOutcome::Undetermined { reason, bounds } => {
            PairOutcome::Undetermined { reason: *reason, bounds: b(*bounds) }
        }
    }
}

#[test]
fn scene_with_a_wide_epa_workspace_equals_contact_on_curved_penetrations() {
    // f64 `contact` runs EPA in a WideEpa (132 vertices, 260 faces); a scene
    // given the same room answers the same depths.
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut scene = Scene::<f64, 2, 1, 132, 260>::new();
    scene.add_body(&BodyDesc::root(ShapeDesc::ellipsoid([0.3, 0.2, 0.1]))).unwrap();
    scene.add_body(&BodyDesc::root(ShapeDesc::cylinder(0.2, 0.15))).unwrap();
    scene.enable_pair(0, 1, &PairSettings::new(0.05, PairQuery::Contact)).unwrap();
    let mut penetrating = 0;
    for _ in 0..100 {
        let (pa, pb) = (random_pose(&mut rng, 0.05), random_pose(&mut rng, 0.2));
        scene.set_pose(0, &pa).unwrap();
        scene.set_pose(1, &pb).unwrap();
        let _ = scene.tick(&TickBudget::new(10_000));
        let (a, b) = (scene.bodies()[0].placed(), scene.bodies()[1].placed());
        let direct = contact(a, b, &Budget::default(), &mut GjkWarmStart::default());
        let m = scene.pairs()[0].outcome.measured().copied().expect("measured");
        let d = direct.signed_distance().expect("decided");
        // Both answers are certified: their bounds must overlap, and both
        // values meet EPA's relative tolerance 1e-6 at the bodies' size.
        let (x, y) = (m.bounds, direct_bounds(&direct));
        assert!(x.lower <= y.upper + 1e-12 && y.lower <= x.upper + 1e-12, "{x:?} vs {y:?}");
        assert!((m.signed_distance - d).abs() <= 2e-6, "{} vs {d}", m.signed_distance);
        penetrating += usize::from(d < 0.0);
    }
    assert!(penetrating > 50, "{penetrating}");
}

/// Signed-distance bounds of a decided `Proximity`.
fn direct_bounds(p: &Proximity<f64>) -> Bounds<f64> {
    match p {
        Proximity::Separated(s) => s.bounds,
        Proximity::Penetrating(p) => Bounds { lower: -p.bounds.upper, upper: -p.bounds.lower },
        Proximity::Undetermined { bounds, .. } => *bounds,
    }
}
