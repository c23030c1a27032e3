//! `contact`, the threshold query and GJK's distance and intersection
//! queries on two boxes (and rounded boxes), which decide by the fifteen
//! separating axes and the corners where they suffice, against
//! ground truth computed here: the distance of two separated boxes by brute force over
//! their features (every vertex against the other box, every edge against
//! every edge), and the depth of overlapping ones by EPA run directly at a
//! tight tolerance.

use crate::common::{pose_f32, rng, rotation, segment_segment, SupportOnly};
use nalgebra::{Point3, Rotation3, Translation3, Vector3};
use narrowphase::math::Pose;
use narrowphase::prelude::*;
use narrowphase::query::Threshold;
use narrowphase::support::contact::{clearance, contact};
use narrowphase::support::{epa, Simplex};
use rand::Rng;

/// A box: pose and half-extents, with an optional rounding radius.
#[derive(Clone, Copy, Debug)]
struct Block {
    pose: Pose<f64>,
    half: Vector3<f64>,
    rounding: f64,
}

impl Block {
    fn vertices(&self) -> [Point3<f64>; 8] {
        core::array::from_fn(|k| {
            let s = |bit: usize| if k >> bit & 1 == 1 { 1.0 } else { -1.0 };
            self.pose * Point3::new(s(0) * self.half.x, s(1) * self.half.y, s(2) * self.half.z)
        })
    }

    /// The twelve edges: vertex pairs whose indices differ in one bit.
    fn edges(&self) -> Vec<(Point3<f64>, Point3<f64>)> {
        let v = self.vertices();
        let mut e = Vec::new();
        for k in 0..8 {
            for bit in 0..3 {
                if k >> bit & 1 == 0 {
                    e.push((v[k], v[k | 1 << bit]));
                }
            }
        }
        e
    }

    /// The same box at its pose and half-extents rounded to `f32`, in `f64`
    /// (exactly the box an `f32` query sees).
    fn rounded_to_f32(&self) -> Block {
        Block {
            pose: nalgebra::convert(pose_f32(&self.pose)),
            half: self.half.map(|x| f64::from(x as f32)),
            rounding: self.rounding,
        }
    }

    /// Distance from `p` to the box (zero inside).
    fn point_distance(&self, p: &Point3<f64>) -> f64 {
        let x = self.pose.inverse_transform_point(p).coords;
        x.zip_map(&self.half, |x, h| (x.abs() - h).max(0.0)).norm()
    }

    fn body<R: narrowphase::math::Real>(&self, to: impl Fn(f64) -> R, pose: Pose<R>) -> Box<dyn SupportMap<R>> {
        let half = Vector3::new(to(self.half.x), to(self.half.y), to(self.half.z));
        let cuboid = Cuboid::new(half).unwrap();
        if self.rounding > 0.0 {
            Box::new(Placed::new(Rounded::new(cuboid, Sphere::new(to(self.rounding)).unwrap()), pose))
        } else {
            Box::new(Placed::new(cuboid, pose))
        }
    }
}

/// Distance of two boxes' cores by brute force: the closest points of two
/// convex polytopes are a vertex of one against the other, or an edge
/// against an edge. Zero when they overlap through a vertex; an overlap
/// through edges and faces only reads as a small positive number, which
/// the caller tells apart with GJK.
fn core_distance(a: &Block, b: &Block) -> f64 {
    let mut best = f64::INFINITY;
    for v in a.vertices() {
        best = best.min(b.point_distance(&v));
    }
    for v in b.vertices() {
        best = best.min(a.point_distance(&v));
    }
    for (p0, p1) in a.edges() {
        for (q0, q1) in b.edges() {
            best = best.min(segment_segment(&p0, &p1, &q0, &q1));
        }
    }
    best
}

/// The signed distance of two boxes (no rounding) in `f64`: plain GJK at
/// 1e-12 through the support functions, then the brute-force distance
/// apart and minus EPA's depth at 1e-10 overlapping. `None` where either
/// does not decide.
fn signed_distance(a: &Block, b: &Block) -> Option<f64> {
    let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
    let fine = Budget::new(256, 1e-12);
    match gjk::distance(&SupportOnly(&*ba), &SupportOnly(&*bb), &fine, &mut GjkWarmStart::default()) {
        GjkOutcome::Separated(_) => Some(core_distance(a, b)),
        GjkOutcome::Penetrating(simplex) => match epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-10)) {
            Proximity::Penetrating(p) => Some(-p.depth),
            _ => None,
        },
        GjkOutcome::Undetermined { .. } => None,
    }
}

/// A pair of boxes around contact: random sizes and turns, some resting
/// face on face (B turned about A's z only, offset along A's z), some
/// rounded; `spread` the largest gap sought.
fn random_pair(g: &mut impl Rng, case: usize) -> (Block, Block) {
    let size = |g: &mut dyn rand::RngCore| {
        Vector3::new(g.random_range(0.05..0.6), g.random_range(0.05..0.6), g.random_range(0.02..0.4))
    };
    let (ha, hb) = (size(g), size(g));
    let pa = Pose::from_parts(Translation3::new(g.random_range(-3.0..3.0), 1.0, -0.5), rotation(g));
    let rounding = |g: &mut dyn rand::RngCore| if g.random_bool(0.25) { g.random_range(0.005..0.05) } else { 0.0 };
    let (ra, rb) = (rounding(g), rounding(g));
    let gap = g.random_range(-0.2..0.3);
    let pb = if case % 3 == 0 {
        // Stacked: B on A's top face, turned about A's z, slid sideways.
        let turn = Rotation3::from_axis_angle(&Vector3::z_axis(), g.random_range(0.0..1.6));
        let side = Vector3::new(g.random_range(-0.5..0.5), g.random_range(-0.5..0.5), 0.0);
        let up = ha.z + hb.z + ra + rb + gap;
        Pose::from_parts(Translation3::from((pa * Point3::from(side + Vector3::z() * up)).coords), pa.rotation * turn)
    } else {
        // Anywhere around A, the centres `reach + gap` apart along a random
        // direction (the gap is then only roughly the distance).
        let dir = crate::common::unit_vector(g);
        let reach = ha.norm() * 0.6 + hb.norm() * 0.6 + ra + rb;
        Pose::from_parts(Translation3::from(pa.translation.vector + dir * (reach + gap)), rotation(g))
    };
    (Block { pose: pa, half: ha, rounding: ra }, Block { pose: pb, half: hb, rounding: rb })
}

/// Cold and warm threshold queries on 3 000 box pairs in f64 against the
/// brute-force distance (apart) and EPA's depth (overlapping): `Clear`
/// only above the threshold, `Within` only at or below it, the bounds
/// holding the signed distance, never undetermined. Nine in ten
/// overlapping pairs and 99 % of the pairs apart within the threshold are
/// decided in one step, by the separating axes and the corners.
#[test]
fn clearance_on_boxes_agrees_with_the_features_and_epa() {
    let mut g = rng(91);
    let budget = Budget::default();
    let (mut overlapping, mut overlapping_at_once, mut near, mut near_at_once) = (0, 0, 0, 0);
    for case in 0..3000 {
        let (a, b) = random_pair(&mut g, case);
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let m = a.rounding + b.rounding;
        let apart = gjk::distance(&*ba, &*bb, &Budget::new(64, 1e-12), &mut GjkWarmStart::default());
        // The truth, and how far it is known: exact to rounding when apart;
        // EPA's certified interval when overlapping (rounded boxes are
        // curved, where EPA stops at its tolerance).
        let (truth, known) = match apart {
            GjkOutcome::Separated(_) => (core_distance(&a, &b) - m, 1e-10),
            GjkOutcome::Penetrating(simplex) => {
                let Proximity::Penetrating(p) = epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-10)) else {
                    continue;
                };
                (-p.depth, p.bounds.gap() + 1e-10)
            }
            GjkOutcome::Undetermined { .. } => continue,
        };
        if truth.abs() < 1e-7 {
            continue; // touching: either answer is right
        }
        let threshold = g.random_range(0.0..0.25);
        let mut cache = GjkWarmStart::default();
        for warm in [false, true] {
            let out = clearance(&*ba, &*bb, threshold, &budget, &mut cache);
            let (bounds, clear) = match out {
                Threshold::Clear { bounds } => (bounds, true),
                Threshold::Within { bounds } => (bounds, false),
                Threshold::Undetermined { .. } => panic!("case {case} (warm {warm}): {out:?}, truth {truth}"),
            };
            assert!(
                bounds.lower <= truth + known && truth <= bounds.upper + known,
                "case {case} (warm {warm}): {out:?} against {truth}"
            );
            if (truth - threshold).abs() > known {
                assert_eq!(
                    clear,
                    truth > threshold,
                    "case {case} (warm {warm}): {out:?} against {truth} at {threshold}"
                );
            }
            if !warm && truth < 0.0 {
                overlapping += 1;
                overlapping_at_once += usize::from(cache.iterations == 1);
            }
            if !warm && truth >= 0.0 && truth <= threshold {
                near += 1;
                near_at_once += usize::from(cache.iterations == 1);
            }
        }
    }
    assert!(overlapping > 400 && near > 150, "{overlapping} overlapping, {near} pairs apart within the threshold");
    assert!(
        overlapping_at_once * 10 >= overlapping * 9,
        "{overlapping_at_once} of {overlapping} overlapping in one step"
    );
    assert!(near_at_once * 100 >= near * 99, "{near_at_once} of {near} pairs apart within the threshold in one step");
}

/// The same pairs in f32, poses rounded: the answer agrees with the f64
/// truth wherever the truth is farther than f32 rounding from the
/// threshold, and the bounds hold it to f32 rounding.
#[test]
fn clearance_on_boxes_in_f32() {
    let mut g = rng(92);
    let budget = Budget::<f32>::default();
    for case in 0..1500 {
        let (a, b) = random_pair(&mut g, case);
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let m = a.rounding + b.rounding;
        let truth = match gjk::distance(&*ba, &*bb, &Budget::new(64, 1e-12), &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(_) => core_distance(&a, &b) - m,
            GjkOutcome::Penetrating(simplex) => {
                match epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-10)) {
                    Proximity::Penetrating(p) => -p.depth,
                    _ => continue,
                }
            }
            GjkOutcome::Undetermined { .. } => continue,
        };
        let threshold = g.random_range(0.0..0.25);
        let (a32, b32) = (a.body(|x| x as f32, pose_f32(&a.pose)), b.body(|x| x as f32, pose_f32(&b.pose)));
        let out = clearance(&*a32, &*b32, threshold as f32, &budget, &mut GjkWarmStart::default());
        let rounding = 2e-5;
        let (bounds, clear) = match out {
            Threshold::Clear { bounds } => (bounds, true),
            Threshold::Within { bounds } => (bounds, false),
            Threshold::Undetermined { .. } => panic!("case {case}: {out:?}, truth {truth}"),
        };
        assert!(
            f64::from(bounds.lower) <= truth + rounding && truth <= f64::from(bounds.upper) + rounding,
            "case {case}: {out:?} against {truth}"
        );
        if (truth - threshold).abs() > rounding {
            assert_eq!(clear, truth > threshold, "case {case}: {out:?} against {truth} at {threshold}");
        }
    }
}

/// `contact` on 3 000 box pairs in f64, apart ones against the brute-force
/// distance (to 1e-9, the bounds holding it, the witnesses on the
/// surfaces, `point_b − point_a = distance · normal`), overlapping ones
/// against EPA's certified depth. Nine in ten overlapping pairs and 99 %
/// of the pairs apart are answered in one step (no GJK): by the separating
/// axes, and apart pairs whose closest points hold a corner by the corners.
#[test]
fn contact_on_boxes_agrees_with_the_features_and_epa() {
    let mut g = rng(93);
    let budget = Budget::default();
    let (mut apart, mut apart_at_once, mut overlapping, mut overlapping_at_once) = (0, 0, 0, 0);
    for case in 0..3000 {
        let (a, b) = random_pair(&mut g, case);
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let m = a.rounding + b.rounding;
        let mut cache = GjkWarmStart::default();
        let out = contact(&*ba, &*bb, &budget, &mut cache);
        match gjk::distance(&*ba, &*bb, &Budget::new(64, 1e-12), &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(_) => {
                let truth = core_distance(&a, &b) - m;
                let Proximity::Separated(s) = out else { panic!("case {case}: {out:?} against {truth}") };
                assert!((s.distance - truth).abs() <= 1e-9, "case {case}: {} against {truth}", s.distance);
                assert!(s.bounds.lower <= truth + 1e-12 && truth <= s.bounds.upper + 1e-12, "case {case}: {s:?}");
                let w = &s.witness;
                assert!(((w.point_b - w.point_a) - w.normal * s.distance).norm() <= 1e-9, "case {case}: {w:?}");
                let surface = |block: &Block, p: &Point3<f64>| (block.point_distance(p) - block.rounding).abs();
                assert!(surface(&a, &w.point_a) <= 1e-9 && surface(&b, &w.point_b) <= 1e-9, "case {case}: {w:?}");
                apart += 1;
                apart_at_once += usize::from(cache.iterations == 1);
            }
            GjkOutcome::Penetrating(simplex) => {
                let Proximity::Penetrating(e) = epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-10)) else {
                    continue;
                };
                let Proximity::Penetrating(p) = out else { panic!("case {case}: {out:?} against EPA {e:?}") };
                assert!(
                    p.bounds.lower <= e.bounds.upper + 1e-9 && e.bounds.lower <= p.bounds.upper + 1e-9,
                    "case {case}: {p:?} against EPA {e:?}"
                );
                let w = &p.witness;
                assert!(((w.point_a - w.point_b) - w.normal * p.depth).norm() <= 1e-9, "case {case}: {w:?}");
                overlapping += 1;
                overlapping_at_once += usize::from(cache.iterations == 1);
            }
            GjkOutcome::Undetermined { .. } => {}
        }
    }
    assert!(apart > 800 && overlapping > 800, "{apart} apart, {overlapping} overlapping");
    assert!(apart_at_once * 100 >= apart * 99, "{apart_at_once} of {apart} apart pairs in one step");
    assert!(
        overlapping_at_once * 10 >= overlapping * 9,
        "{overlapping_at_once} of {overlapping} overlapping in one step"
    );
}

/// A NaN in part of a box's rotation (one column) or in its translation
/// leaves some of the fifteen axes finite; neither `contact` nor the
/// threshold query may then answer apart or clear.
#[test]
fn boxes_with_a_nan_in_their_pose_are_never_apart() {
    use nalgebra::Matrix3;
    let half = Vector3::new(0.3, 0.2, 0.1);
    let a = Placed::new(Cuboid::new(half).unwrap(), Pose::identity());
    let mut turned = Matrix3::identity();
    turned[(0, 1)] = f64::NAN;
    let far = Translation3::new(5.0, 0.0, 0.0);
    let poses = [
        Pose::from_parts(far, Rotation3::from_matrix_unchecked(turned)),
        Pose::from_parts(Translation3::new(f64::NAN, 0.0, 0.0), Rotation3::identity()),
        Pose::from_parts(Translation3::new(0.0, 0.0, f64::NAN), Rotation3::identity()),
    ];
    for (k, pose) in poses.into_iter().enumerate() {
        let b = Placed::new(Cuboid::new(half).unwrap(), pose);
        for (x, y) in [(&a, &b), (&b, &a)] {
            let out = contact(x, y, &Budget::default(), &mut GjkWarmStart::default());
            assert!(!matches!(out, Proximity::Separated(_)), "pose {k}: {out:?}");
            let t = clearance(x, y, 0.1, &Budget::default(), &mut GjkWarmStart::default());
            assert_ne!(t.is_clear(), Some(true), "pose {k}: {t:?}");
        }
    }
}

/// A corner of B placed `g` from a corner of A along A's corner diagonal,
/// B turned at random and moved so that its corner is its lowest point
/// along that diagonal: the two corners are the closest points and the
/// distance is `g` (the plane through A's corner normal to the diagonal
/// supports A, the parallel one through B's corner supports B). No axis
/// of the fifteen is the diagonal, so no pair of facing features meets:
/// `contact` and the threshold query answer from the corners, in one
/// step, in either order, `f64` and `f32`.
#[test]
fn boxes_nearest_at_their_corners() {
    let mut g = rng(95);
    let half_a = Vector3::new(0.3, 0.2, 0.1);
    let n = Vector3::new(1.0, 1.0, 1.0).normalize();
    for case in 0..500 {
        let half_b = Vector3::new(g.random_range(0.05..0.4), g.random_range(0.05..0.4), g.random_range(0.05..0.4));
        let turn = rotation(&mut g);
        // B's corner lowest along n: the signs opposite to n in B's frame.
        let local = turn.inverse() * n;
        let corner_b =
            turn * Vector3::new(-local.x.signum(), -local.y.signum(), -local.z.signum()).component_mul(&half_b);
        let gap = g.random_range(1e-3..0.5);
        let corner_a = half_a;
        let centre = corner_a + n * gap - corner_b;
        let a = Placed::new(Cuboid::new(half_a).unwrap(), Pose::identity());
        let b = Placed::new(Cuboid::new(half_b).unwrap(), Pose::from_parts(Translation3::from(centre), turn));
        for swap in [false, true] {
            let (x, y): (&dyn SupportMap<f64>, &dyn SupportMap<f64>) = if swap { (&b, &a) } else { (&a, &b) };
            let mut cache = GjkWarmStart::default();
            let Proximity::Separated(s) = contact(x, y, &Budget::default(), &mut cache) else {
                panic!("case {case}: not separated at {gap}")
            };
            assert!((s.distance - gap).abs() <= 1e-10, "case {case}: {} against {gap}", s.distance);
            assert!(s.bounds.contains(gap), "case {case}: {s:?} against {gap}");
            let (on_a, on_b) =
                if swap { (s.witness.point_b, s.witness.point_a) } else { (s.witness.point_a, s.witness.point_b) };
            assert!((on_a.coords - corner_a).norm() <= 1e-12, "case {case}: {on_a} against A's corner");
            assert!((on_b.coords - (centre + corner_b)).norm() <= 1e-12, "case {case}: {on_b} against B's corner");
            assert_eq!(cache.iterations, 1, "case {case}: {s:?}");
            for (threshold, clear) in [(gap * 0.9, true), (gap * 1.1, false)] {
                let mut cache = GjkWarmStart::default();
                let t = clearance(x, y, threshold, &Budget::default(), &mut cache);
                assert_eq!(t.is_clear(), Some(clear), "case {case}: {t:?} at {threshold} against {gap}");
                assert!(t.bounds().contains(gap), "case {case}: {t:?} against {gap}");
            }
        }
        // f32: the same answer to f32 rounding of the poses.
        let a32 = Placed::new(Cuboid::new(half_a.cast::<f32>()).unwrap(), Pose::identity());
        let b32 = Placed::new(
            Cuboid::new(half_b.cast::<f32>()).unwrap(),
            pose_f32(&Pose::from_parts(Translation3::from(centre), turn)),
        );
        let Proximity::Separated(s) = contact(&a32, &b32, &Budget::default(), &mut GjkWarmStart::default()) else {
            panic!("case {case}: f32 not separated at {gap}")
        };
        assert!((f64::from(s.distance) - gap).abs() <= 1e-5, "case {case}: f32 {} against {gap}", s.distance);
    }
}

/// Checks that `simplex` is four CSO points of the boxes `a` and `b` around
/// the origin: each `w = a − b` with `a` in box A and `b` in box B, weights
/// nonnegative and summing to one, `Σ λ w = 0`, a tetrahedron of volume.
/// `tol` is the rounding allowed, relative to the boxes' size.
fn assert_encloses_origin<R: narrowphase::math::Real>(
    simplex: &Simplex<R>,
    a: &Block,
    b: &Block,
    tol: f64,
    case: usize,
) {
    let f = |x: R| x.to_f64();
    let v = |p: &nalgebra::Vector3<R>| Vector3::new(f(p.x), f(p.y), f(p.z));
    assert_eq!(simplex.len(), 4, "case {case}: {simplex:?}");
    let size = a.half.norm() + b.half.norm() + (a.pose.translation.vector - b.pose.translation.vector).norm();
    let mut sum = Vector3::zeros();
    for (p, &w) in simplex.points().iter().zip(simplex.weights()) {
        let (pa, pb, pw) = (Point3::from(v(&p.a.coords)), Point3::from(v(&p.b.coords)), v(&p.w));
        assert!(a.point_distance(&pa) <= tol * size, "case {case}: {pa} not in A");
        assert!(b.point_distance(&pb) <= tol * size, "case {case}: {pb} not in B");
        assert!((pw - (pa - pb)).norm() <= tol * size, "case {case}: w {pw} against a − b {}", pa - pb);
        assert!(f(w) >= 0.0, "case {case}: weights {:?}", simplex.weights());
        sum += pw * f(w);
    }
    let total: f64 = simplex.weights().iter().map(|&w| f(w)).sum();
    assert!((total - 1.0).abs() <= tol, "case {case}: weights {:?}", simplex.weights());
    assert!(sum.norm() <= tol * size, "case {case}: Σ λ w = {sum}");
    let w: Vec<Vector3<f64>> = simplex.points().iter().map(|p| v(&p.w)).collect();
    let volume = (w[1] - w[0]).cross(&(w[2] - w[0])).dot(&(w[3] - w[0])).abs();
    assert!(volume > 1e-6 * size.powi(3), "case {case}: a flat tetrahedron, volume {volume}");
}

/// `gjk::distance` and `gjk::intersect` on two boxes, answered by their
/// separating axes, against plain GJK on the same boxes seen through their
/// support functions (at 1e-12): the same verdict on every pair; apart,
/// the distance of the brute-force features to 1e-9 with both witnesses
/// on their boxes (the intersection test: bounds that hold it, witnesses
/// on the boxes); overlapping, four CSO points around the origin (each
/// a point of A less a point of B, nonnegative weights, `Σ λ w = 0`, a
/// tetrahedron of volume) from which EPA finds the depth that plain GJK's
/// simplex gives it and that `contact` answers. 99 % of the pairs in one
/// step. `f64` over 3 000 pairs around contact, then `f32` on the same poses
/// to `f32` rounding.
#[test]
fn gjk_on_boxes_agrees_with_plain_gjk_and_encloses_the_origin() {
    let mut g = rng(97);
    let mut tally = Tally::default();
    for case in 0..3000 {
        let (mut a, mut b) = random_pair(&mut g, case);
        (a.rounding, b.rounding) = (0.0, 0.0);
        tally.add(gjk_agrees_with_plain_gjk(&a, &b, case));
    }
    tally.check(800);
}

/// Pairs decided by plain GJK, apart and overlapping, and those that
/// `gjk::distance` answered in one step.
#[derive(Default)]
struct Tally {
    apart: usize,
    overlapping: usize,
    at_once: usize,
}

impl Tally {
    fn add(&mut self, pair: Option<(bool, bool)>) {
        if let Some((penetrating, once)) = pair {
            *(if penetrating { &mut self.overlapping } else { &mut self.apart }) += 1;
            self.at_once += usize::from(once);
        }
    }

    /// At least `each` pairs apart and overlapping, 99 % in one step.
    fn check(&self, each: usize) {
        let Tally { apart, overlapping, at_once } = *self;
        assert!(apart > each && overlapping > each, "{apart} apart, {overlapping} overlapping");
        assert!(at_once * 100 >= (apart + overlapping) * 99, "{at_once} of {} pairs in one step", apart + overlapping);
    }
}

/// The checks of `gjk_on_boxes_agrees_with_plain_gjk_and_encloses_the_origin`
/// on one pair of boxes: `None` where plain GJK does not decide, else
/// whether they overlap and whether `gjk::distance` took one step.
fn gjk_agrees_with_plain_gjk(a: &Block, b: &Block, case: usize) -> Option<(bool, bool)> {
    let (fine, budget) = (Budget::new(256, 1e-12), Budget::default());
    let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
    let plain =
        gjk::distance(&SupportOnly(&*ba), &SupportOnly(&*bb), &fine, &mut GjkWarmStart::default()).is_penetrating();
    let penetrating = plain?;
    let mut cache = GjkWarmStart::default();
    let out = gjk::distance(&*ba, &*bb, &budget, &mut cache);
    let hit = gjk::intersect(&*ba, &*bb, &budget, &mut GjkWarmStart::default());
    assert_eq!(out.is_penetrating(), Some(penetrating), "case {case}: {out:?}");
    assert_eq!(hit.is_penetrating(), Some(penetrating), "case {case}: {hit:?}");
    match out {
        GjkOutcome::Separated(s) => {
            let truth = core_distance(a, b);
            assert!((s.distance - truth).abs() <= 1e-9, "case {case}: {} against {truth}", s.distance);
            assert!(s.bounds.lower > 0.0 && s.bounds.lower <= truth + 1e-12 && truth <= s.bounds.upper + 1e-12);
            let w = &s.witness;
            assert!(a.point_distance(&w.point_a) <= 1e-12 && b.point_distance(&w.point_b) <= 1e-12);
            assert!(((w.point_b - w.point_a) - w.normal * s.distance).norm() <= 1e-9, "case {case}: {w:?}");
        }
        GjkOutcome::Penetrating(simplex) => {
            assert_encloses_origin(&simplex, a, b, 1e-12, case);
            let GjkOutcome::Penetrating(reference) =
                gjk::distance(&SupportOnly(&*ba), &SupportOnly(&*bb), &fine, &mut GjkWarmStart::default())
            else {
                unreachable!()
            };
            let depth = |s: &Simplex<f64>| match epa::penetration(&*ba, &*bb, s, &Budget::new(200, 1e-10)) {
                Proximity::Penetrating(p) => p.depth,
                other => panic!("case {case}: EPA {other:?}"),
            };
            let (ours, theirs) = (depth(&simplex), depth(&reference));
            assert!((ours - theirs).abs() <= 1e-8, "case {case}: EPA {ours} from ours, {theirs} from GJK's");
            let Proximity::Penetrating(p) = contact(&*ba, &*bb, &budget, &mut GjkWarmStart::default()) else {
                panic!("case {case}: contact not penetrating")
            };
            assert!((p.depth - ours).abs() <= 1e-8, "case {case}: contact {} against EPA {ours}", p.depth);
            let w = &p.witness;
            assert!(a.point_distance(&w.point_a) <= 1e-9 && b.point_distance(&w.point_b) <= 1e-9, "case {case}: {w:?}");
            assert!(((w.point_a - w.point_b) - w.normal * p.depth).norm() <= 1e-9, "case {case}: {w:?}");
        }
        GjkOutcome::Undetermined { .. } => unreachable!(),
    }
    // The intersection test stops at a separating axis: bounds that hold
    // the brute-force distance, the upper one attained by a corner of each
    // box.
    if let GjkOutcome::Separated(s) = hit {
        let truth = core_distance(a, b);
        assert!(s.bounds.lower > 0.0 && s.bounds.lower <= truth + 1e-12, "case {case}: {s:?} against {truth}");
        assert!(truth <= s.bounds.upper + 1e-12 && s.distance <= s.bounds.upper, "case {case}: {s:?} against {truth}");
        let w = &s.witness;
        assert!(a.point_distance(&w.point_a) <= 1e-12 && b.point_distance(&w.point_b) <= 1e-12, "case {case}: {w:?}");
        assert!(((w.point_b - w.point_a) - w.normal * s.distance).norm() <= 1e-12, "case {case}: {w:?}");
    }
    // f32: the same verdict where the pair is not within f32 rounding
    // of touching, the same enclosure to f32 rounding; touching within
    // the tolerance, GJK may answer with fewer points (its closest point
    // within the tolerance of the origin, the boxes that close).
    let (a32, b32) = (a.body(|x| x as f32, pose_f32(&a.pose)), b.body(|x| x as f32, pose_f32(&b.pose)));
    let out32 = gjk::distance(&*a32, &*b32, &Budget::default(), &mut GjkWarmStart::default());
    if let GjkOutcome::Penetrating(simplex) = &out32 {
        if simplex.len() == 4 {
            assert_encloses_origin(simplex, a, b, 1e-5, case);
        } else {
            let size = a.half.norm() + b.half.norm() + (a.pose.translation.vector - b.pose.translation.vector).norm();
            let tolerance = f64::from(Budget::<f32>::default().tolerance) * size;
            assert!(core_distance(a, b) <= tolerance, "case {case}: f32 touching {simplex:?}");
        }
    }
    if let GjkOutcome::Separated(s) = &out32 {
        // The bounds hold the distance, to the rounding of the poses in f32.
        let (truth, slack) = (core_distance(a, b), 1e-6);
        let (lower, upper) = (f64::from(s.bounds.lower), f64::from(s.bounds.upper));
        assert!(lower - slack <= truth && truth <= upper + slack, "case {case}: f32 {s:?} against {truth}");
    }
    Some((penetrating, cache.iterations == 1))
}

/// An edge of B resting on A's top face: B tilted about its own x axis
/// (so that its lowest feature is an edge along x, not a face), turned
/// about A's z, slid so that the edge crosses the face's border as often
/// as not, a hair above or below the face. The features facing each other
/// are an edge and a face, whose common part the closed forms clip in one
/// step; the same checks as on random pairs, in `f64` and `f32`, and
/// `contact`'s witnesses on both boxes.
#[test]
fn gjk_on_an_edge_resting_on_a_face_agrees_with_plain_gjk() {
    let mut g = rng(101);
    let mut tally = Tally::default();
    for case in 0..1000 {
        let size = |g: &mut dyn rand::RngCore| {
            Vector3::new(g.random_range(0.05..0.6), g.random_range(0.05..0.6), g.random_range(0.02..0.4))
        };
        let (ha, hb) = (size(&mut g), size(&mut g));
        let pa = Pose::from_parts(Translation3::new(g.random_range(-3.0..3.0), 1.0, -0.5), rotation(&mut g));
        let tilt = g.random_range(0.3..1.27_f64);
        let turn = Rotation3::from_axis_angle(&Vector3::z_axis(), g.random_range(0.0..std::f64::consts::TAU))
            * Rotation3::from_axis_angle(&Vector3::x_axis(), tilt);
        // B's lowest point below its centre: its edge along x.
        let drop = hb.y * tilt.sin() + hb.z * tilt.cos();
        let gap = g.random_range(-0.01..0.01);
        let side = Vector3::new(g.random_range(-1.2..1.2) * ha.x, g.random_range(-1.2..1.2) * ha.y, ha.z + drop + gap);
        let pb = Pose::from_parts(Translation3::from((pa * Point3::from(side)).coords), pa.rotation * turn);
        let (a, b) = (Block { pose: pa, half: ha, rounding: 0.0 }, Block { pose: pb, half: hb, rounding: 0.0 });
        tally.add(gjk_agrees_with_plain_gjk(&a, &b, case));
    }
    tally.check(200);
}

/// Every overlapping pair of 30 000 random box pairs (about 13 000; a
/// few dozen of them slivers, where alternating projections between the
/// boxes creep and the point of both comes from an edge of one box
/// crossing the other) is answered by `gjk::distance` in one step, with
/// four CSO points around the origin, in `f64` and, where the overlap is
/// deeper than `f32` rounding, in `f32`. The verdict is plain GJK's on the
/// boxes seen through their support functions.
#[test]
fn gjk_on_every_overlapping_box_pair_answers_in_one_step() {
    let mut g = rng(211);
    let fine = Budget::new(256, 1e-12);
    let (mut overlapping, mut deep) = (0, 0);
    for case in 0..30_000 {
        let (mut a, mut b) = random_pair(&mut g, case);
        (a.rounding, b.rounding) = (0.0, 0.0);
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let plain = gjk::distance(&SupportOnly(&*ba), &SupportOnly(&*bb), &fine, &mut GjkWarmStart::default());
        if plain.is_penetrating() != Some(true) {
            continue;
        }
        overlapping += 1;
        let mut cache = GjkWarmStart::default();
        let GjkOutcome::Penetrating(simplex) = gjk::distance(&*ba, &*bb, &Budget::default(), &mut cache) else {
            panic!("case {case}: not penetrating");
        };
        assert_eq!(cache.iterations, 1, "case {case}: {} steps", cache.iterations);
        assert_encloses_origin(&simplex, &a, &b, 1e-12, case);
        let Proximity::Penetrating(p) = epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-10)) else {
            panic!("case {case}: EPA");
        };
        if p.depth > 1e-3 {
            deep += 1;
            let (a32, b32) = (a.body(|x| x as f32, pose_f32(&a.pose)), b.body(|x| x as f32, pose_f32(&b.pose)));
            let mut cache = GjkWarmStart::default();
            let GjkOutcome::Penetrating(simplex) = gjk::distance(&*a32, &*b32, &Budget::default(), &mut cache) else {
                panic!("case {case}: f32 not penetrating at depth {}", p.depth);
            };
            assert_eq!(cache.iterations, 1, "case {case}: f32 {} steps", cache.iterations);
            assert_encloses_origin(&simplex, &a, &b, 1e-5, case);
        }
    }
    assert!(overlapping > 10_000 && deep > 9_000, "{overlapping} overlapping, {deep} deeper than 1e-3");
}

/// Overlapping boxes where the point of both lies on a face, an edge or the
/// centre of the box whose corners are taken (weights of zero, ties in the
/// Freudenthal order): identical boxes at one pose, a box inside another,
/// a thin plate through a block, boxes overlapping face on face. Each
/// answer encloses the origin, and EPA from it finds the depth the
/// separating-axis theorem gives.
#[test]
fn gjk_on_nested_and_coincident_boxes_encloses_the_origin() {
    let id = Rotation3::identity();
    let block = |half: [f64; 3], at: [f64; 3], turn: Rotation3<f64>| Block {
        pose: Pose::from_parts(Translation3::new(at[0], at[1], at[2]), turn),
        half: Vector3::from(half),
        rounding: 0.0,
    };
    let turned = Rotation3::from_axis_angle(&Vector3::z_axis(), 0.4);
    // (A, B, depth): the least overlap along the fifteen axes.
    let cases = [
        (block([0.3, 0.2, 0.1], [0.0; 3], id), block([0.3, 0.2, 0.1], [0.0; 3], id), 0.2),
        (block([0.5, 0.5, 0.5], [0.0; 3], id), block([0.1, 0.1, 0.1], [0.05, 0.0, 0.0], id), 0.55),
        (block([0.5, 0.4, 0.3], [0.0; 3], id), block([0.6, 0.05, 0.6], [0.1, 0.0, 0.0], turned), 0.0),
        (block([0.5, 0.5, 0.2], [0.0; 3], id), block([0.3, 0.3, 0.2], [0.1, 0.2, 0.35], id), 0.05),
        (block([0.5, 0.5, 0.2], [0.0; 3], id), block([0.5, 0.5, 0.2], [0.0, 0.0, 0.3], id), 0.1),
    ];
    for (case, (a, b, depth)) in cases.into_iter().enumerate() {
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        for swap in [false, true] {
            let (x, y, p, q) = if swap { (&bb, &ba, &b, &a) } else { (&ba, &bb, &a, &b) };
            let mut cache = GjkWarmStart::default();
            let GjkOutcome::Penetrating(simplex) = gjk::distance(&**x, &**y, &Budget::default(), &mut cache) else {
                panic!("case {case}: not penetrating")
            };
            assert_eq!(cache.iterations, 1, "case {case}");
            assert_encloses_origin(&simplex, p, q, 1e-12, case);
            let Proximity::Penetrating(e) = epa::penetration(&**x, &**y, &simplex, &Budget::new(200, 1e-10)) else {
                panic!("case {case}: EPA not penetrating")
            };
            if depth > 0.0 {
                assert!((e.depth - depth).abs() <= 1e-9, "case {case}: EPA {} against {depth}", e.depth);
            }
            let Proximity::Penetrating(c) = contact(&**x, &**y, &Budget::default(), &mut cache) else {
                panic!("case {case}: contact not penetrating")
            };
            assert!((c.depth - e.depth).abs() <= 1e-9, "case {case}: contact {} against EPA {}", c.depth, e.depth);
        }
    }
}

/// Boxes touching exactly (face on face, edge across edge): `Penetrating`
/// at the default tolerance ("touching within the tolerance", as GJK
/// answers it), in one step, with four CSO points around the origin to
/// rounding. At tolerance zero, never apart: face on face, contact in one
/// step from a point of both boxes as computed (one CSO point, 0); edge
/// across edge, where rounding puts every such point just outside one
/// box, GJK decides (here it finds the touch undecidable in `f64`).
#[test]
fn gjk_on_touching_boxes_answers_contact_in_one_step() {
    let id = Rotation3::identity();
    let (about_y, about_x) = (
        Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_4),
        Rotation3::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_4),
    );
    let (ha, hb) = (Vector3::new(0.3, 0.2, 0.1), Vector3::new(0.2, 0.1, 0.15));
    let ridges = std::f64::consts::FRAC_1_SQRT_2 * (ha.x + ha.z + hb.y + hb.z);
    let block = |half: Vector3<f64>, at: Vector3<f64>, turn: Rotation3<f64>| Block {
        pose: Pose::from_parts(Translation3::from(at), turn),
        half,
        rounding: 0.0,
    };
    let cases = [
        (block(ha, Vector3::zeros(), id), block(hb, Vector3::new(ha.x + hb.x, 0.05, 0.0), id)),
        (block(ha, Vector3::zeros(), about_y), block(hb, Vector3::new(0.0, 0.0, ridges), about_x)),
    ];
    for (case, (a, b)) in cases.into_iter().enumerate() {
        assert!(core_distance(&a, &b) <= 1e-12, "case {case}: not touching");
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let mut cache = GjkWarmStart::default();
        let GjkOutcome::Penetrating(simplex) = gjk::distance(&*ba, &*bb, &Budget::default(), &mut cache) else {
            panic!("case {case}: not in contact")
        };
        assert_eq!(cache.iterations, 1, "case {case}");
        assert_encloses_origin(&simplex, &a, &b, 1e-12, case);
        let hit = gjk::intersect(&*ba, &*bb, &Budget::default(), &mut GjkWarmStart::default());
        assert_eq!(hit.is_penetrating(), Some(true), "case {case}: {hit:?}");
        // At tolerance zero: never apart; face on face, contact in one
        // step from a point of both boxes as computed.
        let exact = Budget::new(64, 0.0);
        let mut cache = GjkWarmStart::default();
        let out = gjk::distance(&*ba, &*bb, &exact, &mut cache);
        let hit = gjk::intersect(&*ba, &*bb, &exact, &mut GjkWarmStart::default());
        let below = clearance(&*ba, &*bb, 0.0, &exact, &mut GjkWarmStart::default());
        let answer = contact(&*ba, &*bb, &exact, &mut GjkWarmStart::default());
        assert!(
            out.is_penetrating() != Some(false) && hit.is_penetrating() != Some(false),
            "case {case}: {out:?} {hit:?}"
        );
        assert!(!matches!(below, Threshold::Clear { .. }), "case {case}: {below:?}");
        assert!(!matches!(answer, Proximity::Separated(_)), "case {case}: {answer:?}");
        if case == 0 {
            let GjkOutcome::Penetrating(point) = out else { panic!("{out:?}") };
            assert_eq!((point.len(), point.points()[0].w, cache.iterations), (1, Vector3::zeros(), 1), "{point:?}");
            assert_eq!(hit.is_penetrating(), Some(true));
            assert!(matches!(below, Threshold::Within { bounds } if bounds.upper == 0.0), "{below:?}");
            let Proximity::Penetrating(p) = answer else { panic!("{answer:?}") };
            assert!(p.depth == 0.0 && p.bounds.lower == 0.0 && p.bounds.upper <= 1e-13, "{p:?}");
        }
    }
}

/// Rounded boxes: `gjk::distance` measures the cores by their separating
/// axes and applies the margins, against plain GJK on the cores seen
/// through their support functions (at 1e-12): apart by more than the
/// margins, the distance `d(cores) − m` to 1e-9 (the intersection test:
/// bounds that hold it, witnesses in the bodies); cores overlapping, four
/// CSO points of the cores around the origin (the bodies' points too), in
/// one step for 99 % of them, from which EPA finds the depth `contact`
/// answers.
#[test]
fn gjk_on_rounded_boxes_measures_the_cores() {
    let mut g = rng(99);
    let fine = Budget::new(256, 1e-12);
    let (mut apart, mut overlapping, mut at_once) = (0, 0, 0);
    for case in 0..3000 {
        let (mut a, mut b) = random_pair(&mut g, case);
        (a.rounding, b.rounding) = (g.random_range(0.005..0.05), g.random_range(0.005..0.05));
        let m = a.rounding + b.rounding;
        let (core_a, core_b) = (Block { rounding: 0.0, ..a }, Block { rounding: 0.0, ..b });
        let (ca, cb) = (core_a.body(|x| x, a.pose), core_b.body(|x| x, b.pose));
        let cores = gjk::distance(&SupportOnly(&*ca), &SupportOnly(&*cb), &fine, &mut GjkWarmStart::default());
        let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
        let mut cache = GjkWarmStart::default();
        let out = gjk::distance(&*ba, &*bb, &Budget::default(), &mut cache);
        match cores {
            GjkOutcome::Separated(c) if c.distance > m + 1e-9 => {
                let GjkOutcome::Separated(s) = out else { panic!("case {case}: {out:?} against cores {}", c.distance) };
                assert!(
                    (s.distance - (c.distance - m)).abs() <= 1e-9,
                    "case {case}: {} against {}",
                    s.distance,
                    c.distance - m
                );
                // The intersection test: apart, with bounds that hold the
                // bodies' distance and witnesses in the bodies.
                let hit = gjk::intersect(&*ba, &*bb, &Budget::default(), &mut GjkWarmStart::default());
                let GjkOutcome::Separated(h) = hit else { panic!("case {case}: {hit:?}") };
                let truth = c.distance - m;
                assert!(h.bounds.lower > 0.0 && h.bounds.lower <= truth + 1e-9, "case {case}: {h:?} against {truth}");
                assert!(truth <= h.bounds.upper + 1e-9, "case {case}: {h:?} against {truth}");
                let w = &h.witness;
                let (da, db) = (core_a.point_distance(&w.point_a), core_b.point_distance(&w.point_b));
                assert!(da <= a.rounding + 1e-9 && db <= b.rounding + 1e-9, "case {case}: {w:?}");
                apart += 1;
            }
            GjkOutcome::Penetrating(_) => {
                let GjkOutcome::Penetrating(simplex) = out else {
                    panic!("case {case}: {out:?} with overlapping cores")
                };
                // Where the closed form left the cores to GJK, the bodies'
                // GJK answered (its points are not the cores').
                at_once += usize::from(cache.iterations == 1);
                if cache.iterations == 1 {
                    assert_encloses_origin(&simplex, &core_a, &core_b, 1e-12, case);
                }
                // EPA on the round bodies converges linearly: its bounds,
                // where it stops short, must still hold `contact`'s depth.
                let Proximity::Penetrating(p) = contact(&*ba, &*bb, &Budget::default(), &mut GjkWarmStart::default())
                else {
                    panic!("case {case}: contact")
                };
                match epa::penetration(&*ba, &*bb, &simplex, &Budget::new(200, 1e-8)) {
                    // EPA's depth is its lower bound; where it stops on the
                    // round sides before its bounds meet, they hold `contact`'s.
                    Proximity::Penetrating(e) => {
                        let b = e.bounds;
                        assert!(
                            b.lower - 1e-9 <= p.depth
                                && p.depth <= b.upper + 1e-9
                                && (p.depth - e.depth).abs() <= 1e-6 + (b.upper - b.lower),
                            "case {case}: contact {} against EPA {e:?}",
                            p.depth
                        )
                    }
                    Proximity::Undetermined { bounds, .. } => {
                        assert!(
                            bounds.lower - 1e-9 <= -p.depth && -p.depth <= bounds.upper + 1e-9,
                            "case {case}: {bounds:?}"
                        )
                    }
                    other => panic!("case {case}: EPA {other:?}"),
                }
                overlapping += 1;
            }
            _ => {}
        }
    }
    assert!(apart > 500 && overlapping > 300, "{apart} apart, {overlapping} with overlapping cores");
    assert!(at_once * 100 >= overlapping * 99, "{at_once} of {overlapping} overlapping cores in one step");
}

/// A random pair of boxes (no rounding) apart, slid along their normal
/// to a gap of `±spread · size` (the same closest features; `size` the
/// pose's), rounded to `f32`: the rounded pair, its signed distance
/// computed in `f64`, and the size. `None` for a pair that overlaps
/// before the slide, or whose truth is not decided.
fn slid_into_touch(g: &mut impl Rng, case: usize, spread: f64) -> Option<(Block, Block, f64, f64)> {
    let (mut a, mut b) = random_pair(g, case);
    (a.rounding, b.rounding) = (0.0, 0.0);
    let (ba, bb) = (a.body(|x| x, a.pose), b.body(|x| x, b.pose));
    let fine = Budget::new(256, 1e-12);
    let GjkOutcome::Separated(s) =
        gjk::distance(&SupportOnly(&*ba), &SupportOnly(&*bb), &fine, &mut GjkWarmStart::default())
    else {
        return None;
    };
    let size = a.half.norm() + b.half.norm() + a.pose.translation.vector.norm();
    let gap = g.random_range(-spread..spread) * size;
    b.pose.translation.vector -= s.witness.normal * (s.distance - gap);
    let (ra, rb) = (a.rounded_to_f32(), b.rounded_to_f32());
    let truth = signed_distance(&ra, &rb)?;
    Some((ra, rb, truth, size))
}

/// The answers of [`ask_in_f32`]: `gjk::distance`, `gjk::intersect`, the
/// threshold query at 0, `contact`, and their caches (in that order).
type Answers = (GjkOutcome<f32>, GjkOutcome<f32>, Threshold<f32>, Proximity<f32>, [GjkWarmStart<f32>; 4]);

/// The four queries on a pair of boxes in `f32`, cold ([`Answers`]).
fn ask_in_f32(a: &Block, b: &Block, budget: &Budget<f32>) -> Answers {
    let (a32, b32) = (a.body(|x| x as f32, pose_f32(&a.pose)), b.body(|x| x as f32, pose_f32(&b.pose)));
    let mut caches = [GjkWarmStart::default(); 4];
    let out = gjk::distance(&*a32, &*b32, budget, &mut caches[0]);
    let hit = gjk::intersect(&*a32, &*b32, budget, &mut caches[1]);
    let below = clearance(&*a32, &*b32, 0.0, budget, &mut caches[2]);
    let answer = contact(&*a32, &*b32, budget, &mut caches[3]);
    (out, hit, below, answer, caches)
}

/// Box pairs within a few `f32` roundings of touching (random turns, B
/// slid along the pair's closest-point normal to a gap of ±4e-6 of its
/// size, then rounded to `f32`), where the separating axes certify neither
/// a gap nor a depth: `gjk::distance`, `gjk::intersect`, the threshold
/// query at 0 and `contact` all answer in one step. Each agrees with the
/// truth computed in `f64` on the rounded pose (plain GJK at 1e-12, the
/// brute-force distance, EPA's depth): a separation's bounds hold the distance; an
/// answer of contact (GJK's one point, `Within`, `contact`'s depth 0) only
/// where the distance is within the tolerance; `Clear` only where apart.
#[test]
fn boxes_within_rounding_of_touching_are_answered_in_one_step_in_f32() {
    let mut g = rng(223);
    let budget = Budget::<f32>::default();
    let (mut touching, mut apart) = (0, 0);
    for case in 0..1500 {
        let Some((ra, rb, truth, size)) = slid_into_touch(&mut g, case, 4e-6) else { continue };
        let within = f64::from(budget.tolerance) * size;
        let (out, hit, below, answer, caches) = ask_in_f32(&ra, &rb, &budget);
        for (k, cache) in caches.iter().enumerate() {
            assert_eq!(cache.iterations, 1, "case {case}: query {k} took {} steps", cache.iterations);
        }
        // The bounds hold the truth to the rounding of the f32 arithmetic.
        let slack = 1e-6 * size;
        let holds = |lower: f32, upper: f32| f64::from(lower) <= truth + slack && truth <= f64::from(upper) + slack;
        match out {
            GjkOutcome::Separated(s) => {
                apart += 1;
                assert!(s.bounds.lower > 0.0 && holds(s.bounds.lower, s.bounds.upper), "case {case}: {s:?}, {truth}");
            }
            GjkOutcome::Penetrating(_) => {
                touching += 1;
                assert!(truth <= within, "case {case}: touching at {truth}");
            }
            GjkOutcome::Undetermined { .. } => panic!("case {case}: {out:?}"),
        }
        assert_eq!(hit.is_penetrating(), out.is_penetrating(), "case {case}: {hit:?} against {out:?}");
        match below {
            Threshold::Clear { bounds } => assert!(bounds.lower > 0.0 && holds(bounds.lower, bounds.upper)),
            Threshold::Within { bounds } => assert!(
                truth <= within && holds(bounds.lower, bounds.upper),
                "case {case}: {below:?} against {truth}, within {within}"
            ),
            Threshold::Undetermined { .. } => panic!("case {case}: {below:?}"),
        }
        match answer {
            Proximity::Separated(s) => assert!(holds(s.bounds.lower, s.bounds.upper), "case {case}: {s:?}, {truth}"),
            Proximity::Penetrating(p) => {
                assert!(truth <= within, "case {case}: contact at {truth}");
                // A depth's bounds hold minus the signed distance, or, apart
                // within the tolerance, start at 0 (touching is contact).
                let touching = truth > 0.0 && p.bounds.lower == 0.0;
                assert!(holds(-p.bounds.upper, -p.bounds.lower) || touching, "case {case}: {p:?}, {truth}");
                let on = |block: &Block, point: &Point3<f32>| block.point_distance(&nalgebra::convert(*point));
                let (da, db) = (on(&ra, &p.witness.point_a), on(&rb, &p.witness.point_b));
                assert!(da <= within && db <= within, "case {case}: {p:?} {da} {db}, truth {truth}");
            }
            Proximity::Undetermined { .. } => panic!("case {case}: {answer:?}"),
        }
    }
    assert!(touching > 300 && apart > 50, "{touching} touching, {apart} apart");
}

/// Boxes within a few roundings of touching, queried in `f32` at
/// tolerances finer than the rounding (0 and `8·ε`), against the truth
/// computed in `f64` on the rounded pose (as above): contact (GJK's
/// simplex or one point, `Within` at threshold 0, `contact`'s depth) only
/// where the distance is within one rounding (`16·ε·size`), every answer's
/// bounds holding the distance. The
/// separating axes answer more than 7 in 10 of the contacts, from a
/// certified depth or a point of both boxes as computed; GJK the others,
/// where it may also find the question undecidable in this precision
/// (never "separated" without a gap above its rounding).
#[test]
fn boxes_within_rounding_of_touching_at_tolerances_finer_than_it_in_f32() {
    let mut g = rng(229);
    let budgets = [Budget::<f32>::new(64, 0.0), Budget::new(64, 8.0 * f32::EPSILON)];
    let rounding = 16.0 * f64::from(f32::EPSILON);
    let (mut claims, mut in_one_step, mut apart) = (0, 0, 0);
    for case in 0..3000 {
        // Within four roundings of touching.
        let Some((ra, rb, truth, size)) = slid_into_touch(&mut g, case, 4.0 * rounding) else { continue };
        let (out, hit, below, answer, caches) = ask_in_f32(&ra, &rb, &budgets[case % 2]);
        let claimed = [
            out.is_penetrating() == Some(true),
            hit.is_penetrating() == Some(true),
            matches!(below, Threshold::Within { .. }),
            matches!(answer, Proximity::Penetrating(_)),
        ];
        for (k, &contact) in claimed.iter().enumerate() {
            if contact {
                claims += 1;
                in_one_step += usize::from(caches[k].iterations == 1);
                assert!(truth <= rounding * size, "case {case}: query {k} claims contact at {truth} (size {size})");
            }
        }
        // A separation's bounds hold the distance to the rounding of the
        // f32 arithmetic.
        let slack = rounding * size;
        let holds = |lower: f32, upper: f32| f64::from(lower) <= truth + slack && truth <= f64::from(upper) + slack;
        if let GjkOutcome::Separated(s) = out {
            apart += 1;
            assert!(s.bounds.lower > 0.0 && holds(s.bounds.lower, s.bounds.upper), "case {case}: {s:?}, {truth}");
        }
        match below {
            Threshold::Clear { bounds } => {
                assert!(bounds.lower > 0.0 && holds(bounds.lower, bounds.upper), "case {case}: {below:?}, {truth}")
            }
            Threshold::Within { bounds } => {
                assert!(
                    bounds.lower <= bounds.upper && holds(bounds.lower, bounds.upper),
                    "case {case}: {below:?}, {truth}"
                )
            }
            Threshold::Undetermined { .. } => {}
        }
        match answer {
            Proximity::Separated(s) => assert!(holds(s.bounds.lower, s.bounds.upper), "case {case}: {s:?}, {truth}"),
            // A depth's bounds hold minus the signed distance, or, apart
            // within the rounding, start at 0.
            Proximity::Penetrating(p) => assert!(
                holds(-p.bounds.upper, -p.bounds.lower) || (truth > 0.0 && p.bounds.lower == 0.0),
                "case {case}: {p:?}, {truth}"
            ),
            Proximity::Undetermined { .. } => {}
        }
    }
    assert!(
        claims > 2000 && apart > 400 && in_one_step * 10 > claims * 7,
        "{claims} claims, {in_one_step} in one step, {apart} apart"
    );
}

/// Overlapping boxes turned nearly alike (B is A's turn times a turn of
/// 1e-4 to 0.1 rad about a random axis, its centre 0.5 to 0.9 of the way
/// into contact along a random direction): their nearly parallel edges
/// give edge axes that `f32` rounding tilts by up to `ε/θ`. The depth is
/// certified to each axis's own tilt, so `contact` answers 97 % of them in
/// one step (the rest, where such an axis's overlap is within its tilt of
/// the least, through EPA). The depth agrees with EPA's, run in `f64` at
/// 1e-10 on the rounded pose, to the tolerance, and its bounds hold it.
#[test]
fn contact_on_boxes_turned_nearly_alike_answers_in_one_step_in_f32() {
    let mut g = rng(227);
    let budget = Budget::<f32>::default();
    let (mut overlapping, mut at_once) = (0, 0);
    for case in 0..1000 {
        let size = |g: &mut dyn rand::RngCore| {
            Vector3::new(g.random_range(0.05..0.6), g.random_range(0.05..0.6), g.random_range(0.02..0.4))
        };
        let (ha, hb) = (size(&mut g), size(&mut g));
        let turn = rotation(&mut g);
        let axis = nalgebra::Unit::new_normalize(crate::common::unit_vector(&mut g));
        let nudge = Rotation3::from_axis_angle(&axis, 10f64.powf(g.random_range(-4.0..-1.0)));
        let dir = crate::common::unit_vector(&mut g);
        let reach = (ha + hb).component_mul(&(turn.inverse() * dir)).abs().sum();
        let centre = Vector3::new(g.random_range(-3.0..3.0), 1.0, -0.5);
        let a = Block { pose: Pose::from_parts(Translation3::from(centre), turn), half: ha, rounding: 0.0 };
        let b = Block {
            pose: Pose::from_parts(Translation3::from(centre + dir * reach * g.random_range(0.5..0.9)), turn * nudge),
            half: hb,
            rounding: 0.0,
        };
        let (ra, rb) = (a.rounded_to_f32(), b.rounded_to_f32());
        let Some(depth) = signed_distance(&ra, &rb).map(|d| -d).filter(|d| *d > 0.0) else { continue };
        overlapping += 1;
        let (a32, b32) = (ra.body(|x| x as f32, pose_f32(&ra.pose)), rb.body(|x| x as f32, pose_f32(&rb.pose)));
        let mut cache = GjkWarmStart::default();
        let Proximity::Penetrating(p) = contact(&*a32, &*b32, &budget, &mut cache) else {
            panic!("case {case}: not penetrating at depth {}", depth);
        };
        at_once += usize::from(cache.iterations == 1);
        let within = f64::from(budget.tolerance) * (centre.norm() + ha.norm() + hb.norm());
        assert!((f64::from(p.depth) - depth).abs() <= within, "case {case}: {p:?} against {}", depth);
        let (lower, upper) = (f64::from(p.bounds.lower), f64::from(p.bounds.upper));
        assert!(lower <= depth + 1e-6 && depth <= upper + 1e-6, "case {case}: {p:?} against {depth}");
    }
    assert!(overlapping > 400, "{overlapping} overlapping");
    assert!(at_once * 100 >= overlapping * 97, "{at_once} of {overlapping} in one step");
}
