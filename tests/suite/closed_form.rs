//! The pairs `contact` and `clearance` answer in closed form (sphere and
//! capsule cores against each other, a sphere against a box or a rounded
//! box), against ground truth written here: the segment distance of
//! `common::segment_segment` (endpoint cases and the interior critical
//! point), the point–box distance `sqrt(Σ max(|xᵢ| − hᵢ, 0)²)`, and GJK on
//! the same bodies.

use crate::common::{point_segment, pose, rng, rotation, segment_segment, SupportOnly};
use nalgebra::{Point3, Rotation3, Translation3, Vector3};
use narrowphase::math::{Pose, Real};
use narrowphase::prelude::*;
use narrowphase::query::{Threshold, Undetermined};
use narrowphase::shape::CorePrimitive;
use narrowphase::support::contact::{clearance, contact};
use rand::Rng;

/// A round body: a sphere (`half = 0`) or a capsule along its local z.
#[derive(Clone, Copy, Debug)]
struct Round {
    half: f64,
    radius: f64,
    pose: Pose<f64>,
}

impl Round {
    fn core(&self) -> (Point3<f64>, Point3<f64>) {
        let h = Vector3::new(0.0, 0.0, self.half);
        (self.pose.transform_point(&Point3::from(-h)), self.pose.transform_point(&Point3::from(h)))
    }
}

/// Signed distance of two round bodies: core distance minus the radii
/// (`common::segment_segment` and `point_segment` take segments of non-zero
/// length: a sphere's core is its centre).
fn round_truth(a: &Round, b: &Round) -> f64 {
    let ((a0, a1), (b0, b1)) = (a.core(), b.core());
    let core = match (a.half > 0.0, b.half > 0.0) {
        (true, true) => segment_segment(&a0, &a1, &b0, &b1),
        (true, false) => point_segment(&b0, &a0, &a1),
        (false, true) => point_segment(&a0, &b0, &b1),
        (false, false) => (b0 - a0).norm(),
    };
    core - a.radius - b.radius
}

/// `contact` on the pair in precision `R`, as f64 signed distance, bounds,
/// witness points and normal; `None` when undetermined.
/// Signed distance, bounds, witness points, normal and GJK-cache iterations.
type Answer = (f64, [f64; 2], [Point3<f64>; 2], Vector3<f64>, u32);

/// The round body in precision `R`: f32 bodies get the f64 pose rounded to
/// f32 (then re-orthonormalised by `Placed::new`), f64 bodies the pose
/// itself.
fn body<R: Real>(r: &Round) -> Box<dyn SupportMap<R>> {
    let lit = |x: f64| if R::EPSILON > R::lit(1e-10) { R::lit(x as f32 as f64) } else { R::lit(x) };
    let p = Pose::<R>::from_parts(
        Translation3::from(r.pose.translation.vector.map(lit)),
        Rotation3::from_matrix_unchecked(r.pose.rotation.matrix().map(lit)),
    );
    if r.half > 0.0 {
        Box::new(Placed::new(Capsule::new(R::lit(r.half), R::lit(r.radius)).unwrap(), p))
    } else {
        Box::new(Placed::new(Sphere::new(R::lit(r.radius)).unwrap(), p))
    }
}

fn answer<R: Real>(a: &Round, b: &Round) -> Option<Answer> {
    let (ba, bb) = (body::<R>(a), body::<R>(b));
    let mut cache = GjkWarmStart::default();
    let out = contact(&*ba, &*bb, &Budget::default(), &mut cache);
    let f = |x: R| x.to_f64();
    let pt = |p: &Point3<R>| Point3::new(f(p.x), f(p.y), f(p.z));
    match out {
        Proximity::Separated(s) => Some((
            f(s.distance),
            [f(s.bounds.lower), f(s.bounds.upper)],
            [pt(&s.witness.point_a), pt(&s.witness.point_b)],
            s.witness.normal.map(f),
            cache.iterations,
        )),
        Proximity::Penetrating(p) => Some((
            -f(p.depth),
            [-f(p.bounds.upper), -f(p.bounds.lower)],
            [pt(&p.witness.point_a), pt(&p.witness.point_b)],
            p.witness.normal.map(f),
            cache.iterations,
        )),
        Proximity::Undetermined { .. } => None,
    }
}

/// Distance from `p` to the round body's surface, signed (negative inside).
fn to_surface(r: &Round, p: &Point3<f64>) -> f64 {
    let (c0, c1) = r.core();
    let core = if r.half > 0.0 { point_segment(p, &c0, &c1) } else { (p - c0).norm() };
    core - r.radius
}

fn random_round(g: &mut impl Rng, spread: f64) -> Round {
    let half = if g.random_bool(0.3) { 0.0 } else { g.random_range(0.02..0.6) };
    Round { half, radius: g.random_range(0.01..0.3), pose: pose(g, spread) }
}

/// Random sphere and capsule pairs, apart, touching and overlapping, in f64
/// and f32: the signed distance equals the segment distance minus the radii,
/// the bounds contain it, the witness points lie on the surfaces and the
/// normal joins them; apart pairs take one closed-form step.
fn round_pairs<R: Real>(band: f64) {
    let mut g = rng(71);
    let (mut apart, mut overlapping) = (0, 0);
    for case in 0..3000 {
        let (a, b) = (random_round(&mut g, 0.8), random_round(&mut g, 0.8));
        let truth = round_truth(&a, &b);
        let size = 1.0 + a.half.max(b.half);
        let Some((d, [lo, hi], [pa, pb], n, iterations)) = answer::<R>(&a, &b) else {
            panic!("case {case}: undetermined, truth {truth}");
        };
        let tol = band * size;
        assert!((d - truth).abs() <= tol, "case {case}: {d} vs {truth}");
        assert!(lo - tol <= truth && truth <= hi + tol, "case {case}: {truth} outside [{lo}, {hi}]");
        assert!(to_surface(&a, &pa).abs() <= tol && to_surface(&b, &pb).abs() <= tol, "case {case}: witnesses");
        if truth > 10.0 * tol {
            apart += 1;
            assert_eq!(iterations, 1, "case {case}: apart cores are a closed form");
            assert!(((pb - pa) - n * d).norm() <= tol, "case {case}: normal");
        } else if truth < -10.0 * tol {
            overlapping += 1;
            assert!(((pa - pb) - n * (-d)).norm() <= tol, "case {case}: penetration normal");
        }
    }
    assert!(apart > 1000 && overlapping > 150, "apart {apart}, overlapping {overlapping}");
}

#[test]
fn sphere_and_capsule_pairs_equal_the_segment_distance_in_f64() {
    round_pairs::<f64>(1e-12);
}

#[test]
fn sphere_and_capsule_pairs_equal_the_segment_distance_in_f32() {
    // f32 poses are the f64 ones rounded: the band covers that rounding.
    round_pairs::<f32>(2e-6);
}

/// Sphere and capsule pairs apart by distances across the whole range the
/// closed form takes (its `1/|d|` is `|d|·(1/|d|²)`, for `|d|²` up to
/// `1/MIN_POSITIVE`: about 9.2e18 in f32, 6.7e153 in f64): one step, the
/// distance within a few roundings of the segment distance at its scale,
/// the normal unit and along the witnesses' difference. Beyond the range
/// GJK answers, and an answer it gives is right.
fn far_round_pairs<R: Real>(band: f64, taken: &[f64], beyond: &[f64]) {
    let mut g = rng(97);
    for (k, &far) in taken.iter().chain(beyond).enumerate() {
        let a = random_round(&mut g, 0.5);
        let mut b = random_round(&mut g, 0.5);
        let u = rotation(&mut g) * Vector3::x();
        b.pose.translation.vector = u * far;
        // Beyond 1e12 the segments' lengths are below what the tolerance
        // resolves (and in f64 a capsule's ends at 1e18 round together):
        // the centres' distance less the radii, within the half-lengths.
        let (truth, tol) = if far < 1e12 {
            (round_truth(&a, &b), band * (far + 1.0))
        } else {
            let centres = (b.pose.translation.vector - a.pose.translation.vector).norm();
            (centres - a.radius - b.radius, band * far + a.half + b.half)
        };
        let closed = k < taken.len();
        match answer::<R>(&a, &b) {
            Some((d, [lo, hi], [pa, pb], n, iterations)) => {
                assert!((d - truth).abs() <= tol, "{far:e}: {d:e} vs {truth:e}");
                assert!(lo - tol <= truth && truth <= hi + tol, "{far:e}: {truth:e} outside [{lo:e}, {hi:e}]");
                assert!((n.norm() - 1.0).abs() <= 8.0 * R::EPSILON.to_f64(), "{far:e}: |n| = {}", n.norm());
                assert!(((pb - pa) - n * d).norm() <= tol, "{far:e}: normal");
                if closed {
                    assert_eq!(iterations, 1, "{far:e}: a closed form");
                }
            }
            None => assert!(!closed, "{far:e}: undetermined, truth {truth:e}"),
        }
    }
}

#[test]
fn far_apart_pairs_take_the_closed_form_up_to_its_range() {
    far_round_pairs::<f32>(2e-6, &[1e-2, 1.0, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18, 9e18], &[1.2e19, 1.7e19]);
    far_round_pairs::<f64>(1e-12, &[1e-2, 1.0, 1e6, 1e12, 1e50, 1e100, 1e150, 6e153], &[7e153, 1e154]);
}

/// Parallel, nearly parallel, crossing and end-to-end capsules: the
/// configurations where closed-form segment code usually goes wrong.
#[test]
fn degenerate_capsule_configurations() {
    let cap = |half: f64, x: f64, y: f64, z: f64, rot: Rotation3<f64>| Round {
        half,
        radius: 0.05,
        pose: Pose::from_parts(Translation3::new(x, y, z), rot),
    };
    let id = Rotation3::identity();
    let tilt = |angle: f64| Rotation3::from_axis_angle(&Vector3::x_axis(), angle);
    let cases = [
        // parallel, side by side, overlapping in z: 0.3 − 0.1
        (cap(0.5, 0.0, 0.0, 0.0, id), cap(0.5, 0.3, 0.0, 0.2, id)),
        // parallel, exactly on one line, end to end, 0.2 apart − 0.1
        (cap(0.5, 0.0, 0.0, 0.0, id), cap(0.5, 0.0, 0.0, 1.2, id)),
        // nearly parallel: 1e-7 rad
        (cap(0.5, 0.0, 0.0, 0.0, id), cap(0.5, 0.3, 0.0, 0.2, tilt(1e-7))),
        // crossing at right angles, 0.4 apart
        (cap(0.5, 0.0, 0.0, 0.0, id), cap(0.5, 0.4, 0.0, 0.1, tilt(std::f64::consts::FRAC_PI_2))),
        // end point against a mid point
        (cap(0.5, 0.0, 0.0, 0.0, id), cap(0.3, 0.0, 0.0, 0.9, tilt(std::f64::consts::FRAC_PI_2))),
    ];
    for (i, (a, b)) in cases.iter().enumerate() {
        let truth = round_truth(a, b);
        let (d, [lo, hi], ..) = answer::<f64>(a, b).unwrap_or_else(|| panic!("case {i} undetermined"));
        assert!((d - truth).abs() <= 1e-12 && lo <= truth + 1e-12 && truth <= hi + 1e-12, "case {i}: {d} vs {truth}");
        let (d32, ..) = answer::<f32>(a, b).unwrap_or_else(|| panic!("case {i} undetermined in f32"));
        assert!((d32 - truth).abs() <= 2e-6, "case {i} f32: {d32} vs {truth}");
    }
}

/// Spheres against boxes and rounded boxes: outside (closed form), and with
/// the centre inside the box (EPA on the cores), against
/// `sqrt(Σ max(|xᵢ| − hᵢ, 0)²) − r` outside and `−(min(hᵢ − |xᵢ|) + r)`
/// inside, in the box's frame.
#[test]
fn spheres_against_boxes_and_rounded_boxes() {
    let mut g = rng(72);
    let mut closed = 0;
    for case in 0..2000 {
        let half = Vector3::new(g.random_range(0.05..0.5), g.random_range(0.05..0.5), g.random_range(0.05..0.5));
        let rounding = if g.random_bool(0.5) { g.random_range(0.01..0.1) } else { 0.0 };
        let r = g.random_range(0.02..0.3);
        let box_pose = pose(&mut g, 0.5);
        let centre = box_pose.translation.vector + rotation(&mut g) * Vector3::new(g.random_range(0.0..1.2), 0.0, 0.0);
        let local = box_pose.inverse_transform_point(&Point3::from(centre)).coords;
        let outside = local.zip_map(&half, |x, h| (x.abs() - h).max(0.0)).norm();
        let inside = (0..3).map(|i| half[i] - local[i].abs()).fold(f64::INFINITY, f64::min);
        let truth = if outside > 0.0 { outside - rounding - r } else { -(inside + rounding + r) };
        let ball =
            Placed::new(Sphere::new(r).unwrap(), Pose::from_parts(Translation3::from(centre), Rotation3::identity()));
        let mut cache = GjkWarmStart::default();
        let out = if rounding > 0.0 {
            let b = Placed::new(Rounded::new(Cuboid::new(half).unwrap(), Sphere::new(rounding).unwrap()), box_pose);
            contact(&b, &ball, &Budget::default(), &mut cache)
        } else {
            contact(&ball, &Placed::new(Cuboid::new(half).unwrap(), box_pose), &Budget::default(), &mut cache)
        };
        let d = out.signed_distance().unwrap_or_else(|| panic!("case {case}: {out:?}"));
        assert!((d - truth).abs() <= 1e-9, "case {case}: {d} vs {truth}");
        closed += usize::from(outside > 1e-9 && cache.iterations == 1);
    }
    assert!(closed > 1000, "{closed} closed-form answers");
}

/// The closed form agrees with GJK on the same bodies (GJK converges on the
/// cores, which are polytopes: a point, a segment, a box).
#[test]
fn closed_form_agrees_with_gjk_on_the_cores() {
    let mut g = rng(73);
    for case in 0..500 {
        let (a, b) = (random_round(&mut g, 1.0), random_round(&mut g, 1.0));
        let ((a0, a1), (b0, b1)) = (a.core(), b.core());
        let seg = |p: Point3<f64>, q: Point3<f64>| {
            let c = Point3::from((p.coords + q.coords) / 2.0);
            let half = (q - p).norm() / 2.0;
            let dir = (q - p).try_normalize(0.0).unwrap_or_else(Vector3::z);
            let rot = Rotation3::rotation_between(&Vector3::z(), &dir)
                .unwrap_or_else(|| Rotation3::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI));
            // A thin box around the segment: GJK on a polytope, no closed form.
            Placed::new(
                Cuboid::new(Vector3::new(1e-9, 1e-9, half.max(1e-9))).unwrap(),
                Pose::from_parts(Translation3::from(c.coords), rot),
            )
        };
        let gjk = gjk::distance(&seg(a0, a1), &seg(b0, b1), &Budget::default(), &mut GjkWarmStart::default());
        let GjkOutcome::Separated(s) = gjk else { continue };
        let core = s.distance;
        if core <= 1e-6 {
            continue;
        }
        let (d, ..) = answer::<f64>(&a, &b).unwrap();
        assert!(
            (d - (core - a.radius - b.radius)).abs() <= 1e-8,
            "case {case}: {d} vs GJK {}",
            core - a.radius - b.radius
        );
    }
}

/// `clearance` in closed form: clear exactly when the distance exceeds the
/// threshold (up to rounding), never clear below it, cold or warm-started
/// from any direction.
#[test]
fn clearance_in_closed_form_is_never_clear_below_the_threshold() {
    let mut g = rng(74);
    for case in 0..3000 {
        let (a, b) = (random_round(&mut g, 0.8), random_round(&mut g, 0.8));
        let truth = round_truth(&a, &b);
        let threshold = truth + g.random_range(-0.01..0.01);
        let t = clearance(
            &*body::<f64>(&a),
            &*body::<f64>(&b),
            threshold,
            &Budget::default(),
            &mut GjkWarmStart::default(),
        );
        match t {
            Threshold::Clear { bounds } => {
                assert!(truth > threshold - 1e-12 && bounds.lower > threshold, "case {case}")
            }
            Threshold::Within { bounds } => {
                assert!(truth <= threshold + 1e-12 && bounds.upper >= truth - 1e-12, "case {case}")
            }
            Threshold::Undetermined { .. } => {}
        }
        if (truth - threshold).abs() > 1e-9 {
            assert!(!matches!(t, Threshold::Undetermined { .. }), "case {case}: undecided {truth} vs {threshold}");
        }
        // A warm start from anywhere (a stale direction, or one that points
        // the wrong way): its separating plane clears only what is clear.
        let mut warm = GjkWarmStart { direction: crate::common::unit_vector(&mut g), ..Default::default() };
        let t = clearance(&*body::<f64>(&a), &*body::<f64>(&b), threshold, &Budget::default(), &mut warm);
        if let Threshold::Clear { bounds } = t {
            assert!(truth > threshold - 1e-12 && bounds.lower > threshold, "case {case}: warm clear below");
            assert!(bounds.lower <= truth + 1e-12 && truth <= bounds.upper + 1e-12, "case {case}: warm bounds");
        }
    }
}

/// Distance from `p` to the box `half` at `pose`: `sqrt(Σ max(|xᵢ| − hᵢ, 0)²)`
/// in the box's frame.
fn point_box(p: &Point3<f64>, pose: &Pose<f64>, half: &Vector3<f64>) -> f64 {
    let x = pose.inverse_transform_point(p).coords;
    x.zip_map(half, |x, h| (x.abs() - h).max(0.0)).norm()
}

/// Segment–box distance by brute force: the point–box distance is convex
/// along the segment; sample it, then refine the best bracket by golden
/// sections.
fn segment_box(p0: &Point3<f64>, p1: &Point3<f64>, pose: &Pose<f64>, half: &Vector3<f64>) -> f64 {
    let f = |t: f64| point_box(&(p0 + (p1 - p0) * t), pose, half);
    let n = 200;
    let k = (0..=n).min_by(|&i, &j| f(i as f64 / n as f64).total_cmp(&f(j as f64 / n as f64))).unwrap();
    let (mut lo, mut hi) = (((k as f64 - 1.0) / n as f64).max(0.0), ((k as f64 + 1.0) / n as f64).min(1.0));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if f(x1) < f(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

/// Capsules against boxes and rounded boxes (robot links against a table),
/// in f64 and f32, against the brute-force segment–box distance.
#[test]
fn capsules_against_boxes_equal_the_segment_box_distance() {
    let mut g = rng(75);
    let mut closed = 0;
    for case in 0..1500 {
        let half = Vector3::new(g.random_range(0.02..0.6), g.random_range(0.02..0.6), g.random_range(0.01..0.4));
        let rounding = if g.random_bool(0.3) { g.random_range(0.005..0.05) } else { 0.0 };
        let cap = random_round(&mut g, 0.9);
        let cap = Round { half: cap.half.max(0.05), ..cap };
        let box_pose = pose(&mut g, 0.3);
        let (c0, c1) = cap.core();
        let truth = segment_box(&c0, &c1, &box_pose, &half) - cap.radius - rounding;
        if truth <= 1e-6 {
            continue; // overlapping cores go to EPA; other tests cover them
        }
        let capsule = Placed::new(Capsule::new(cap.half, cap.radius).unwrap(), cap.pose);
        let mut cache = GjkWarmStart::default();
        let out = if rounding > 0.0 {
            let b = Placed::new(Rounded::new(Cuboid::new(half).unwrap(), Sphere::new(rounding).unwrap()), box_pose);
            contact(&capsule, &b, &Budget::default(), &mut cache)
        } else {
            contact(&Placed::new(Cuboid::new(half).unwrap(), box_pose), &capsule, &Budget::default(), &mut cache)
        };
        let d = out.signed_distance().unwrap_or_else(|| panic!("case {case}: {out:?}"));
        assert!((d - truth).abs() <= 1e-9, "case {case}: {d} vs {truth}");
        if let Proximity::Separated(s) = out {
            assert!(s.bounds.lower <= truth + 1e-12 && truth <= s.bounds.upper + 1e-12, "case {case}: bounds");
        }
        closed += usize::from(cache.iterations == 1);
        // f32: the same pair, poses rounded.
        let p32 = |p: &Pose<f64>| crate::common::pose_f32(p);
        let capsule = Placed::new(Capsule::new(cap.half as f32, cap.radius as f32).unwrap(), p32(&cap.pose));
        let cuboid = Placed::new(Cuboid::new(half.map(|x| x as f32)).unwrap(), p32(&box_pose));
        let out = contact(&capsule, &cuboid, &Budget::default(), &mut GjkWarmStart::default());
        let d32 = out.signed_distance().unwrap_or_else(|| panic!("case {case} f32: {out:?}"));
        assert!((f64::from(d32) - (truth + rounding)).abs() <= 3e-6, "case {case} f32: {d32} vs {}", truth + rounding);
    }
    assert!(closed > 800, "{closed} closed-form answers");
}

/// Half-width of a box along the unit `l`: `Σ hᵢ |l · axisᵢ|`.
fn box_reach(pose: &Pose<f64>, half: &Vector3<f64>, l: &Vector3<f64>) -> f64 {
    let local = pose.rotation.inverse_transform_vector(l);
    half.x * local.x.abs() + half.y * local.y.abs() + half.z * local.z.abs()
}

/// Penetrating box pairs, random sizes and orientations, in f64 and f32,
/// against three independent checks: EPA run directly on the pair (its
/// certified bounds hold the depth), the overlap along 2 000 random
/// directions (none below the depth), and the translation itself: B moved
/// by `(depth + δ)·n` is apart by GJK, by `(depth − δ)·n` still overlapping.
#[test]
fn penetrating_boxes_take_the_separating_axis_depth() {
    let mut g = rng(76);
    let mut checked = 0;
    for case in 0..400 {
        let ha = Vector3::new(g.random_range(0.05..0.5), g.random_range(0.05..0.5), g.random_range(0.02..0.5));
        let hb = Vector3::new(g.random_range(0.05..0.5), g.random_range(0.05..0.5), g.random_range(0.02..0.5));
        let pa = Pose::from_parts(Translation3::new(0.3, -0.2, 0.1), rotation(&mut g));
        // Every fourth pair with parallel edges (B turned about A's z only).
        let rb = if case % 4 == 0 {
            pa.rotation * Rotation3::from_axis_angle(&Vector3::z_axis(), g.random_range(0.0..1.5))
        } else {
            rotation(&mut g)
        };
        let offset = rotation(&mut g) * Vector3::new(g.random_range(0.0..0.6), 0.0, 0.0);
        let pb = Pose::from_parts(Translation3::from(pa.translation.vector + offset), rb);
        let (a, b) = (Placed::new(Cuboid::new(ha).unwrap(), pa), Placed::new(Cuboid::new(hb).unwrap(), pb));
        let mut cache = GjkWarmStart::default();
        let Proximity::Penetrating(p) = contact(&a, &b, &Budget::default(), &mut cache) else { continue };
        checked += 1;
        let (depth, n) = (p.depth, p.witness.normal);
        assert!(p.bounds.lower <= depth && depth <= p.bounds.upper && p.bounds.gap() <= 1e-9, "case {case}: {p:?}");
        // EPA, run directly from GJK's simplex.
        let mut c2 = GjkWarmStart::default();
        if let GjkOutcome::Penetrating(simplex) = gjk::intersect(&a, &b, &Budget::default(), &mut c2) {
            if let Proximity::Penetrating(e) = epa::penetration(&a, &b, &simplex, &Budget::new(200, 1e-10)) {
                assert!(
                    e.bounds.lower <= depth + 1e-9 && depth <= e.bounds.upper + 1e-9,
                    "case {case}: {depth} vs EPA {e:?}"
                );
            }
        }
        // No direction overlaps less.
        let t = pb.translation.vector - pa.translation.vector;
        for _ in 0..2000 {
            let l = crate::common::unit_vector(&mut g);
            let overlap = box_reach(&pa, &ha, &l) + box_reach(&pb, &hb, &l) - t.dot(&l).abs();
            assert!(overlap >= depth - 1e-12, "case {case}: {overlap} < {depth}");
        }
        // The translation separates, and no less does.
        let moved = |s: f64| {
            let p = Pose::from_parts(Translation3::from(pb.translation.vector + n * s), rb);
            Placed::new(Cuboid::new(hb).unwrap(), p)
        };
        let apart = gjk::distance(&a, &moved(depth + 1e-6), &Budget::default(), &mut GjkWarmStart::default());
        assert!(matches!(apart, GjkOutcome::Separated(_)), "case {case}: not apart after the translation");
        let still = gjk::intersect(&a, &moved(depth - 1e-6), &Budget::default(), &mut GjkWarmStart::default());
        assert!(matches!(still, GjkOutcome::Penetrating(_)), "case {case}: apart before the translation");
        // Witnesses: point_a − point_b = depth · n, each on its box's surface.
        let on_surface = |pose: &Pose<f64>, half: &Vector3<f64>, q: &Point3<f64>| {
            let x = pose.inverse_transform_point(q).coords;
            let outside = x.zip_map(half, |x, h| (x.abs() - h).max(0.0)).norm();
            let inside = (0..3).map(|i| half[i] - x[i].abs()).fold(f64::INFINITY, f64::min);
            outside.max(inside.max(0.0))
        };
        assert!(((p.witness.point_a - p.witness.point_b) - n * depth).norm() <= 1e-9, "case {case}: witness");
        // Within EPA's stage tolerance (`DEPTH_TOLERANCE` of the pair's size):
        // a near-flat feature counts as flat.
        assert!(on_surface(&pb, &hb, &p.witness.point_b) <= 2e-6, "case {case}: point_b off B's surface");
        assert!(on_surface(&pa, &ha, &p.witness.point_a) <= 2e-6, "case {case}: point_a off A's surface");
        assert!(cache.iterations > 0);
        // f32: the same pair, within f32 rounding.
        let (a32, b32) = (
            Placed::new(Cuboid::new(ha.map(|x| x as f32)).unwrap(), crate::common::pose_f32(&pa)),
            Placed::new(Cuboid::new(hb.map(|x| x as f32)).unwrap(), crate::common::pose_f32(&pb)),
        );
        if let Proximity::Penetrating(q) = contact(&a32, &b32, &Budget::default(), &mut GjkWarmStart::default()) {
            assert!((f64::from(q.depth) - depth).abs() <= 2e-5, "case {case} f32: {} vs {depth}", q.depth);
        } else if depth > 1e-4 {
            panic!("case {case}: f32 not penetrating at depth {depth}");
        }
    }
    assert!(checked > 200, "{checked} penetrating pairs");
}

/// `gjk::distance`, `gjk::intersect` and `gjk::distance_below` take the
/// same closed form on round pairs: apart pairs in one step, with the
/// segment distance, witnesses on the surfaces and certified bounds;
/// overlapping pairs get a point of both bodies (a one-point simplex at the
/// origin), from which EPA finds the depth.
fn gjk_entry_points_on_round_pairs<R: Real>(band: f64) {
    let mut g = rng(75);
    let (mut apart, mut overlapping) = (0, 0);
    for case in 0..2000 {
        let (a, b) = (random_round(&mut g, 0.8), random_round(&mut g, 0.8));
        let truth = round_truth(&a, &b);
        let tol = band * (1.0 + a.half.max(b.half));
        let (ba, bb) = (body::<R>(&a), body::<R>(&b));
        let budget = Budget::default();
        let mut cache = GjkWarmStart::default();
        let distance = gjk::distance(&*ba, &*bb, &budget, &mut cache);
        let hit = gjk::intersect(&*ba, &*bb, &budget, &mut GjkWarmStart::default());
        let threshold = truth + g.random_range(-0.01..0.01);
        let below = gjk::distance_below(&*ba, &*bb, R::lit(threshold), &budget, &mut GjkWarmStart::default());
        match below {
            Threshold::Clear { bounds } => {
                assert!(truth > threshold - tol && bounds.lower.to_f64() > threshold, "case {case}: clear")
            }
            Threshold::Within { bounds } => {
                assert!(truth <= threshold + tol && bounds.upper.to_f64() >= truth - tol, "case {case}: within")
            }
            Threshold::Undetermined { .. } => assert!((truth - threshold).abs() <= tol, "case {case}: undecided"),
        }
        if truth > 10.0 * tol {
            apart += 1;
            let GjkOutcome::Separated(s) = distance else { panic!("case {case}: {distance:?}, truth {truth}") };
            assert_eq!(cache.iterations, 1, "case {case}: one closed-form step");
            assert!((s.distance.to_f64() - truth).abs() <= tol, "case {case}: {} vs {truth}", s.distance);
            assert!(s.bounds.lower.to_f64() > 0.0 && s.bounds.lower.to_f64() <= truth + tol);
            assert!(truth <= s.bounds.upper.to_f64() + tol, "case {case}: bounds");
            let pt = |p: &Point3<R>| p.map(|x| x.to_f64());
            let (pa, pb) = (pt(&s.witness.point_a), pt(&s.witness.point_b));
            assert!(to_surface(&a, &pa).abs() <= tol && to_surface(&b, &pb).abs() <= tol, "case {case}: witnesses");
            assert!(((pb - pa) - s.witness.normal.map(|x| x.to_f64()) * truth).norm() <= 2.0 * tol);
            assert_eq!(hit.is_penetrating(), Some(false), "case {case}: intersect");
        } else if truth < -10.0 * tol {
            overlapping += 1;
            let GjkOutcome::Penetrating(simplex) = distance else { panic!("case {case}: {distance:?}, truth {truth}") };
            assert_eq!(hit.is_penetrating(), Some(true), "case {case}: intersect");
            // Its points are CSO points (each body point in its body), and
            // their hull holds the origin: one point of both bodies.
            assert!(simplex.closest().norm().to_f64() <= tol, "case {case}: origin outside the simplex");
            assert_eq!(simplex.len(), 1, "case {case}: not one point of both bodies");
            // Its weights are the origin's barycentric coordinates: convex,
            // and the points they combine meet at the origin.
            let weights: Vec<f64> = simplex.weights().iter().map(|x| x.to_f64()).collect();
            assert!(weights.iter().all(|&l| l >= 0.0) && (weights.iter().sum::<f64>() - 1.0).abs() <= 1e-5);
            let combined = simplex
                .points()
                .iter()
                .zip(&weights)
                .fold(Vector3::zeros(), |acc, (p, l)| acc + p.w.map(|x| x.to_f64()) * *l);
            assert!(combined.norm() <= tol, "case {case}: weights combine to {combined:?}");
            for p in simplex.points() {
                let (pa, pb) = (p.a.map(|x| x.to_f64()), p.b.map(|x| x.to_f64()));
                assert!(to_surface(&a, &pa) <= tol && to_surface(&b, &pb) <= tol, "case {case}: simplex points");
                assert!(((pa - pb) - p.w.map(|x| x.to_f64())).norm() <= tol, "case {case}: w = a - b");
            }
            // EPA on the round surfaces themselves (`contact` runs it on
            // the cores) may stop at its cap; its bounds hold either way.
            let e = epa::penetration(&*ba, &*bb, &simplex, &Budget::new(64, R::lit(1e-4)));
            let (lo, hi) = match e {
                Proximity::Penetrating(p) => (-p.bounds.upper.to_f64(), -p.bounds.lower.to_f64()),
                Proximity::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                    (bounds.lower.to_f64(), bounds.upper.to_f64())
                }
                _ => panic!("case {case}: EPA from the simplex: {e:?}, truth {truth}"),
            };
            assert!(lo - tol <= truth && truth <= hi + tol, "case {case}: {truth} outside [{lo}, {hi}]");
            assert!(hi - lo <= 1e-2 * (1.0 + a.half.max(b.half)), "case {case}: EPA's bounds [{lo}, {hi}]");
        }
    }
    assert!(apart > 800 && overlapping > 100, "apart {apart}, overlapping {overlapping}");
}

#[test]
fn gjk_entry_points_take_the_closed_form_on_round_pairs_in_f64() {
    gjk_entry_points_on_round_pairs::<f64>(1e-12);
}

#[test]
fn gjk_entry_points_take_the_closed_form_on_round_pairs_in_f32() {
    gjk_entry_points_on_round_pairs::<f32>(2e-6);
}

/// Hulls against capsules and spheres (GJK on the hull and the capsule's
/// segment, the radius subtracted): `gjk::distance` agrees with GJK on the
/// whole bodies at a fine tolerance and a large cap, `gjk::intersect` with
/// the sign of that distance, and `gjk::distance_below` with a threshold
/// on either side of it.
#[test]
fn hulls_against_round_bodies_measure_the_cores() {
    let mut g = rng(76);
    let fine = Budget::new(2000, 1e-12);
    let (mut apart, mut overlapping) = (0, 0);
    for case in 0..300 {
        let cloud: Vec<Point3<f64>> = (0..40)
            .map(|_| Point3::from(crate::common::unit_vector(&mut g).component_mul(&Vector3::new(0.6, 0.4, 0.25))))
            .collect();
        let hull = narrowphase::hull::quickhull(&cloud).unwrap();
        let a = Placed::new(hull.polytope().unwrap(), pose(&mut g, 0.3));
        let r = random_round(&mut g, 1.0);
        let b = body::<f64>(&r);
        let reference = gjk::distance(&a, &SupportOnly(&*b), &fine, &mut GjkWarmStart::default());
        let budget = Budget::default();
        let d = gjk::distance(&a, &*b, &budget, &mut GjkWarmStart::default());
        let hit = gjk::intersect(&a, &*b, &budget, &mut GjkWarmStart::default());
        match reference {
            GjkOutcome::Separated(truth) if truth.bounds.lower > 1e-6 => {
                apart += 1;
                let GjkOutcome::Separated(s) = d else { panic!("case {case}: {d:?} vs {truth:?}") };
                assert!(
                    (s.distance - truth.distance).abs() < 1e-8,
                    "case {case}: {} vs {}",
                    s.distance,
                    truth.distance
                );
                assert!(s.bounds.lower <= truth.bounds.upper + 1e-9 && truth.bounds.lower <= s.bounds.upper + 1e-9);
                let GjkOutcome::Separated(h) = hit else { panic!("case {case}: intersect {hit:?}") };
                assert!(h.bounds.lower > 0.0 && h.bounds.lower <= truth.bounds.upper + 1e-9, "case {case}: {h:?}");
                for (t, clear) in [(truth.distance * 0.9, true), (truth.distance * 1.1, false)] {
                    let below = gjk::distance_below(&a, &*b, t, &budget, &mut GjkWarmStart::default());
                    assert_eq!(
                        below.is_clear(),
                        Some(clear),
                        "case {case}: threshold {t}, distance {}",
                        truth.distance
                    );
                }
            }
            GjkOutcome::Penetrating(_) => {
                overlapping += 1;
                assert!(matches!(d, GjkOutcome::Penetrating(_)), "case {case}: {d:?}");
                assert_eq!(hit.is_penetrating(), Some(true), "case {case}");
            }
            _ => {}
        }
    }
    assert!(apart > 100 && overlapping > 30, "apart {apart}, overlapping {overlapping}");
}

/// A placed sphere, capsule or box builds its core primitive directly from
/// the pose (the capsule's segment from the rotation's axis column, the
/// box's axes as the rotation): the same primitive, value for value, as the
/// one seen from the shape's own origin and then turned and moved, and its
/// points where the primitive's definition puts them (the centre, the two
/// segment ends at ±h along the placed z axis, the box's centre and axes).
#[test]
fn placed_core_primitives_are_the_moved_local_ones() {
    let mut g = rng(1717);
    for _ in 0..300 {
        let p = pose(&mut g, 50.0);
        let origin = Point3::from(Vector3::new(g.random_range(-50.0..50.0), g.random_range(-50.0..50.0), 0.0));
        // The rotation a `Placed` keeps (re-orthonormalised).
        let kept = Placed::new(Sphere::new(1.0_f64).unwrap(), p).pose().rotation;
        let (r, t) = (kept.matrix(), p.translation.vector - origin.coords);
        let h = g.random_range(0.01..2.0);
        let half = Vector3::new(g.random_range(0.01..1.0), g.random_range(0.01..1.0), g.random_range(0.01..1.0));
        let local = Point3::origin();
        let sphere = Sphere::new(0.3_f64).unwrap();
        let capsule = Capsule::new(h, 0.2_f64).unwrap();
        let cuboid = Cuboid::new(half).unwrap();
        let placed = |s: &dyn SupportMap<f64>| Placed::new(s, p).core_primitive_from(&origin);
        let moved = |s: &dyn SupportMap<f64>| s.core_primitive_from(&local).map(|c| c.moved(r, &t));
        for s in [&sphere as &dyn SupportMap<f64>, &capsule, &cuboid] {
            assert_eq!(placed(s), moved(s));
        }
        let axis = r * Vector3::z() * h;
        assert_eq!(placed(&sphere), Some(CorePrimitive::Point(t)));
        let Some(CorePrimitive::Segment(p0, p1)) = placed(&capsule) else { panic!("a capsule's core is a segment") };
        assert!((p0 - (t - axis)).norm() <= 1e-12 && (p1 - (t + axis)).norm() <= 1e-12);
        assert_eq!(placed(&cuboid), Some(CorePrimitive::Cuboid { center: t, axes: *r, half_extents: half }));
    }
}
