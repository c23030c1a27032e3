//! Interval arithmetic and the interval octree (Liu et al. §3, Algorithm 1).
//!
//! Ground truth:
//! - containment: every sampled value of a shape's SDF on a box lies in its
//!   interval; for `f32` shapes the reference values are the same shapes
//!   evaluated in `f64` (the exact value to ~1e-16, far finer than an `f32`
//!   ulp), so the outward rounding itself is checked, not just the formula;
//! - the octree's verdicts against closed forms (two balls: overlap iff
//!   `d < r₁ + r₂`) and against GJK (independent code, support functions)
//!   for rotated boxes and capsules: a proof (`Penetrating`/`Separated`)
//!   must never be wrong; `Undecided` is allowed only within a band of the
//!   depth limit's cell size around contact.

use crate::common::*;
use nalgebra::{Matrix3, Point3, Rotation3, SVector, Vector2, Vector3};
use narrowphase::error::OctreeError;
use narrowphase::prelude::*;
use narrowphase::query::Stop;
use narrowphase::sdf::interval::Interval;
use narrowphase::sdf::octree::{self, Cell, CellClass, KeptCell, OctreeParams, OctreeVerdict};
use narrowphase::sdf::{
    Aabb, Ball, BoxN, Difference, Halfspace, Intersection, IntervalSdf, Sdf, SdfAccuracy, SdfSample, SmoothUnion,
    Torus, Transformed, Union,
};
use proptest::prelude::*;
use rand::Rng;

fn boxed<const D: usize>(c: SVector<f64, D>, h: SVector<f64, D>) -> [Interval<f64>; D] {
    core::array::from_fn(|i| Interval::new(c[i] - h[i], c[i] + h[i]).unwrap())
}

/// Points of the box: its corners and `n` random interior points.
fn box_points<const D: usize>(rng: &mut impl Rng, b: &[Interval<f64>; D], n: usize) -> Vec<SVector<f64, D>> {
    let mut pts = Vec::new();
    for k in 0..(1usize << D) {
        pts.push(SVector::from_fn(|i, _| if k >> i & 1 == 0 { b[i].lo() } else { b[i].hi() }));
    }
    for _ in 0..n {
        pts.push(SVector::from_fn(|i, _| rng.random_range(b[i].lo()..=b[i].hi())));
    }
    pts
}

/// `eval(x) ∈ interval` for every sampled point, with a slack of a few
/// ulps of the problem's scale: the point evaluation rounds too, and where
/// its formula differs from the interval's (the capsule's clamp) the two
/// roundings may differ.
fn assert_contains<const D: usize, S: IntervalSdf<f64, D>>(
    s: &S,
    rng: &mut impl Rng,
    c: SVector<f64, D>,
    h: SVector<f64, D>,
) {
    let b = boxed(c, h);
    let range = s.eval_interval(&b);
    let scale = 1.0 + c.amax() + h.amax();
    let slack = 16.0 * f64::EPSILON * scale;
    for x in box_points(rng, &b, 40) {
        let v = s.eval(&x).value;
        assert!(
            range.lo() - slack <= v && v <= range.hi() + slack,
            "{v} outside {range:?} at {x:?} (box centre {c:?}, half {h:?})"
        );
    }
}

fn rand_vec<const D: usize>(rng: &mut impl Rng, lo: f64, hi: f64) -> SVector<f64, D> {
    SVector::from_fn(|_, _| rng.random_range(lo..hi))
}

fn rot(rng: &mut impl Rng) -> Matrix3<f64> {
    *rotation(rng).matrix()
}

#[test]
fn every_extension_contains_the_sampled_values() {
    let mut rng = rng(11);
    let sphere = Sphere::new(0.8).unwrap();
    let cube = Cuboid::new(Vector3::new(0.5, 0.7, 0.3)).unwrap();
    let capsule = Capsule::new(0.6, 0.3).unwrap();
    let cylinder = Cylinder::new(0.7, 0.4).unwrap();
    let torus = Torus::new(1.0, 0.3).unwrap();
    let floor = Halfspace::new(Vector3::new(0.3, -0.2, 1.0), 0.1).unwrap();
    let rounded = MinkowskiSum { a: cube, b: Sphere::new(0.1).unwrap() };
    for case in 0..300 {
        let c = rand_vec::<3>(&mut rng, -1.5, 1.5);
        // Sizes from cells of a deep octree to the whole scene.
        let h = rand_vec::<3>(&mut rng, 0.0, 1.0) * 10f64.powf(rng.random_range(-4.0..0.3));
        assert_contains(&sphere, &mut rng, c, h);
        assert_contains(&cube, &mut rng, c, h);
        assert_contains(&capsule, &mut rng, c, h);
        assert_contains(&cylinder, &mut rng, c, h);
        assert_contains(&torus, &mut rng, c, h);
        assert_contains(&floor, &mut rng, c, h);
        assert_contains(&rounded, &mut rng, c, h);
        let pose = pose(&mut rng, 0.8);
        assert_contains(&Placed::new(torus, pose), &mut rng, c, h);
        let t = Transformed::new(cylinder, rot(&mut rng), rng.random_range(0.3..3.0), rand_vec(&mut rng, -1.0, 1.0))
            .unwrap();
        assert_contains(&t, &mut rng, c, h);
        let moved = Transformed::new(sphere, Matrix3::identity(), 1.0, rand_vec(&mut rng, -1.0, 1.0)).unwrap();
        assert_contains(&Union::new(t, moved), &mut rng, c, h);
        assert_contains(&Intersection::new(t, moved), &mut rng, c, h);
        assert_contains(&Difference::new(t, moved), &mut rng, c, h);
        assert_contains(&SmoothUnion::new(t, moved, 0.3).unwrap(), &mut rng, c, h);
        // 2D: disc, rectangle, stadium, placed rectangle.
        let c2 = rand_vec::<2>(&mut rng, -1.5, 1.5);
        let h2 = rand_vec::<2>(&mut rng, 0.0, 0.8);
        assert_contains::<2, _>(&sphere, &mut rng, c2, h2);
        assert_contains::<2, _>(&capsule, &mut rng, c2, h2);
        let rect = BoxN::new(Vector2::new(0.4, 0.9)).unwrap();
        let q = *nalgebra::Rotation2::new(case as f64 * 0.37).matrix();
        assert_contains(&Transformed::new(rect, q, 1.5, Vector2::new(0.2, -0.3)).unwrap(), &mut rng, c2, h2);
    }
}

/// `f32` intervals must contain the exact value, here the `f64` evaluation
/// of the same shape (same parameters, exactly representable).
#[test]
fn f32_intervals_contain_the_f64_values() {
    let mut rng = rng(12);
    // A shape's f32 interval evaluation and its f64 point evaluation.
    type Pair = (Box<dyn Fn(&[Interval<f32>; 3]) -> Interval<f32>>, Box<dyn Fn(&Vector3<f64>) -> f64>);
    let pairs: [Pair; 4] = [
        (
            Box::new(|b| IntervalSdf::<f32, 3>::eval_interval(&Torus::new(1.0_f32, 0.3).unwrap(), b)),
            Box::new(|x| Torus::new(1.0_f64, 0.3_f32 as f64).unwrap().eval(x).value),
        ),
        (
            Box::new(|b| Cuboid::new(Vector3::new(0.5_f32, 0.7, 0.3)).unwrap().eval_interval(b)),
            Box::new(|x| Cuboid::new(Vector3::new(0.5, 0.7_f32 as f64, 0.3_f32 as f64)).unwrap().eval(x).value),
        ),
        (
            Box::new(|b| Cylinder::new(0.7_f32, 0.4).unwrap().eval_interval(b)),
            Box::new(|x| Cylinder::new(0.7_f32 as f64, 0.4_f32 as f64).unwrap().eval(x).value),
        ),
        (
            Box::new(|b| IntervalSdf::<f32, 3>::eval_interval(&Capsule::new(0.6_f32, 0.3).unwrap(), b)),
            Box::new(|x| Sdf::<f64, 3>::eval(&Capsule::new(0.6_f32 as f64, 0.3_f32 as f64).unwrap(), x).value),
        ),
    ];
    let mut checked = 0;
    for _ in 0..400 {
        let c = rand_vec::<3>(&mut rng, -1.5, 1.5).map(|v| v as f32);
        let h = (rand_vec::<3>(&mut rng, 0.0, 1.0) * 10f64.powf(rng.random_range(-6.0..0.0))).map(|v| v as f32);
        let b32: [Interval<f32>; 3] = core::array::from_fn(|i| Interval::new(c[i] - h[i], c[i] + h[i]).unwrap());
        for (interval, exact) in &pairs {
            let range = interval(&b32);
            let b64: [Interval<f64>; 3] =
                core::array::from_fn(|i| Interval::new(b32[i].lo() as f64, b32[i].hi() as f64).unwrap());
            for x in box_points(&mut rng, &b64, 10) {
                let v = exact(&x);
                assert!(
                    range.lo() as f64 <= v + 1e-13 && v - 1e-13 <= range.hi() as f64,
                    "{v} outside {range:?} at {x:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    /// Interval operations contain the pointwise results of their members.
    #[test]
    fn operations_contain_members(a in -50.0f64..50.0, wa in 0.0f64..10.0, b in -50.0f64..50.0, wb in 0.0f64..10.0,
                                  s in 0.0f64..=1.0, t in 0.0f64..=1.0, c in -5.0f64..5.0) {
        let (x, y) = (Interval::new(a, a + wa).unwrap(), Interval::new(b, b + wb).unwrap());
        let (u, v) = (a + s * wa, b + t * wb);
        prop_assert!((x + y).contains(u + v));
        prop_assert!((x - y).contains(u - v));
        prop_assert!((x * y).contains(u * v));
        prop_assert!(x.sqr().contains(u * u));
        prop_assert!(x.abs().contains(u.abs()));
        prop_assert!(x.min(y).contains(u.min(v)));
        prop_assert!(x.max(y).contains(u.max(v)));
        prop_assert!(x.scale(c).contains(u * c));
        prop_assert!(x.add_real(c).contains(u + c));
        if u >= 0.0 {
            prop_assert!(x.sqrt().contains(u.sqrt()));
        }
        if c > 0.0 {
            prop_assert!(x.div_positive(c).contains(u / c));
        }
    }

    /// Shrinking the box shrinks the interval: the extension converges to
    /// the value (width linear in the box size for these Lipschitz shapes).
    #[test]
    fn widths_shrink_with_the_box(cx in -1.5f64..1.5, cy in -1.5f64..1.5, cz in -1.5f64..1.5, e in -6.0f64..-1.0) {
        let h = 10f64.powf(e);
        let b = boxed(Vector3::new(cx, cy, cz), Vector3::repeat(h));
        let torus = Torus::new(1.0, 0.3).unwrap();
        let w = torus.eval_interval(&b).width();
        // A 1-Lipschitz function varies by at most the box diagonal; the
        // natural extension may overestimate by a bounded factor.
        prop_assert!(w <= 20.0 * h + 1e-12, "width {} for half-size {}", w, h);
    }
}

fn ball(c: Vector3<f64>, r: f64) -> Transformed<Sphere<f64>, f64, 3> {
    Transformed::new(Sphere::new(r).unwrap(), Matrix3::identity(), 1.0, c).unwrap()
}

fn run<A: IntervalSdf<f64, 3>, B: IntervalSdf<f64, 3>>(
    a: &A,
    b: &B,
    params: &OctreeParams,
) -> (octree::OctreeReport, Vec<KeptCell<f64, 3>>) {
    let mut stack = vec![Cell::default(); octree::required_stack(3, params.max_depth)];
    let mut out = vec![KeptCell::default(); 4096];
    let rep = octree::intersect(a, b, params, &mut stack, &mut out).unwrap();
    assert!(rep.dropped == 0 || params.stop == Stop::Decided || rep.visited >= params.max_cells, "{rep:?}");
    out.truncate(rep.stored as usize);
    (rep, out)
}

/// Two balls: the octree's proofs against the closed form, and the band of
/// undecided answers no wider than the depth limit's cells.
#[test]
fn octree_on_two_balls_matches_the_closed_form() {
    let mut rng = rng(13);
    let params = OctreeParams { max_depth: 7, ..OctreeParams::default() };
    let (mut hits, mut apart, mut undecided, mut visited) = (0, 0, 0, Vec::new());
    for _ in 0..600 {
        let (ra, rb) = (rng.random_range(0.2..1.5), rng.random_range(0.2..1.5));
        let ca = rand_vec::<3>(&mut rng, -1.0, 1.0);
        let gap = rng.random_range(-0.5..0.5) * (ra + rb);
        let cb = ca + unit_vector(&mut rng) * (ra + rb + gap);
        let (a, b) = (ball(ca, ra), ball(cb, rb));
        let (rep, cells) = run(&a, &b, &params);
        visited.push(rep.visited);
        // The region is at most 2·min(ra, rb) + … wide; the depth limit's cell
        // diagonal bounds what can stay undecided.
        let Some(region) = octree::region(&a, &b) else {
            assert_eq!(rep.verdict, OctreeVerdict::Separated);
            assert!(gap > 0.0);
            apart += 1;
            continue;
        };
        let cell_diag = (region.extent() / 2f64.powi(params.max_depth as i32)).norm();
        match rep.verdict {
            OctreeVerdict::Penetrating => {
                assert!(gap < 0.0, "proof of overlap for balls {gap} apart");
                hits += 1;
                // Every inside cell lies in both balls: all corners inside.
                for k in cells.iter().filter(|k| k.class == CellClass::InsideBoth) {
                    for corner in 0..8 {
                        let p = Vector3::from_fn(|i, _| {
                            if corner >> i & 1 == 0 {
                                k.cell.aabb.min[i]
                            } else {
                                k.cell.aabb.max[i]
                            }
                        });
                        assert!((p - ca).norm() <= ra + 1e-12 && (p - cb).norm() <= rb + 1e-12);
                    }
                }
            }
            OctreeVerdict::Separated => {
                assert!(gap > 0.0, "proof of separation for balls overlapping by {}", -gap);
                apart += 1;
            }
            OctreeVerdict::Undetermined { reason: why } => {
                assert_eq!(why, Undetermined::Degenerate, "{rep:?}");
                assert!(gap.abs() < 4.0 * cell_diag, "undecided {gap} from contact, cells {cell_diag}");
                undecided += 1;
            }
        }
    }
    visited.sort();
    println!(
        "two balls, depth {}: {hits} intersecting, {apart} separated, {undecided} undecided; cells visited median {} max {}",
        params.max_depth,
        visited[visited.len() / 2],
        visited[visited.len() - 1]
    );
    assert!(hits > 200 && apart > 200);
}

/// Rotated boxes, capsules and cylinders: the proofs against GJK
/// (independent code on support functions).
#[test]
fn octree_proofs_agree_with_gjk() {
    let mut rng = rng(14);
    let params = OctreeParams { max_depth: 6, stop: Stop::Decided, ..OctreeParams::default() };
    let (mut agree, mut undecided) = (0, 0);
    for i in 0..400 {
        let pa = pose(&mut rng, 0.01);
        let pb = pose(&mut rng, 1.6);
        let verdict_and_truth = match i % 3 {
            0 => {
                let (a, b) = (
                    Cuboid::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(),
                    Cuboid::new(Vector3::new(0.5, 0.5, 0.2)).unwrap(),
                );
                let (a, b) = (Placed::new(a, pa), Placed::new(b, pb));
                (run(&a, &b, &params).0.verdict, gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::new()))
            }
            1 => {
                let (a, b) = (Capsule::new(0.6, 0.3).unwrap(), Cylinder::new(0.5, 0.4).unwrap());
                let (a, b) = (Placed::new(a, pa), Placed::new(b, pb));
                (run(&a, &b, &params).0.verdict, gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::new()))
            }
            _ => {
                let (a, b) = (Cylinder::new(0.3, 0.7).unwrap(), Cuboid::new(Vector3::new(0.2, 0.8, 0.4)).unwrap());
                let (a, b) = (Placed::new(a, pa), Placed::new(b, pb));
                (run(&a, &b, &params).0.verdict, gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::new()))
            }
        };
        let (verdict, truth) = verdict_and_truth;
        let Some(colliding) = truth.is_penetrating() else { continue };
        match verdict {
            OctreeVerdict::Penetrating => {
                assert!(colliding, "case {i}: octree proof of overlap, GJK says apart: {truth:?}");
                agree += 1;
            }
            OctreeVerdict::Separated => {
                assert!(!colliding, "case {i}: octree proof of separation, GJK says colliding");
                agree += 1;
            }
            OctreeVerdict::Undetermined { .. } => undecided += 1,
        }
    }
    println!("octree vs GJK: {agree} proofs agree, {undecided} undecided of 400");
    assert!(agree > 300, "{agree}");
}

fn torus_at(c: Vector3<f64>, r: Rotation3<f64>) -> Placed<Torus<f64>, f64> {
    Placed::new(Torus::new(1.0, 0.25).unwrap(), Pose::from_parts(c.into(), r))
}

/// Two linked rings: A (core radius 1, tube 0.25) in the xy-plane at the
/// origin; B, the same ring turned to the yz-plane and centred on A's core
/// at (1, 0, 0), so A's tube passes through B's hole. B's core comes within
/// √2 − 1 ≈ 0.41 < 0.5 of A's core at its two points (1, ±1, 0): the tubes
/// overlap in two separate regions, one on each side of the plane y = 0.
#[test]
fn interlocking_tori_give_two_regions() {
    let a = torus_at(Vector3::zeros(), Rotation3::identity());
    let b = torus_at(
        Vector3::new(1.0, 0.0, 0.0),
        Rotation3::from_axis_angle(&Vector3::y_axis(), core::f64::consts::FRAC_PI_2),
    );
    let params = OctreeParams { max_depth: 6, ..OctreeParams::default() };
    let (rep, cells) = run(&a, &b, &params);
    // Ground truth by brute force: the overlap of the two tubes by sampling.
    let mut rng = rng(15);
    let region = octree::region(&a, &b).unwrap();
    let mut truth = Vec::new();
    for _ in 0..200_000 {
        let p = Vector3::from_fn(|i, _| rng.random_range(region.min[i]..region.max[i]));
        if a.eval(&p).value < 0.0 && b.eval(&p).value < 0.0 {
            truth.push(p);
        }
    }
    assert!(!truth.is_empty());
    let inside: Vec<Vector3<f64>> =
        cells.iter().filter(|k| k.class == CellClass::InsideBoth).map(|k| k.cell.aabb.center()).collect();
    assert_eq!(rep.verdict, OctreeVerdict::Penetrating);
    let split = |p: &Vector3<f64>| p.y > 0.0;
    let truth_sides: std::collections::BTreeSet<bool> = truth.iter().map(split).collect();
    let found_sides: std::collections::BTreeSet<bool> = inside.iter().map(split).collect();
    println!(
        "linked tori: truth samples {} (sides {:?}), inside cells {} (sides {:?}), visited {}",
        truth.len(),
        truth_sides,
        inside.len(),
        found_sides,
        rep.visited
    );
    assert_eq!(truth_sides.len(), 2, "the test scene must have two overlap regions");
    assert_eq!(found_sides, truth_sides);
    // Soundness: no inside cell centre is outside a body.
    for p in &inside {
        assert!(a.eval(p).value < 0.0 && b.eval(p).value < 0.0);
    }
}

#[test]
fn csg_bodies_and_unbounded_halfspaces() {
    let params = OctreeParams::default();
    // A dumbbell (union of two balls) around a small ball in its middle: apart.
    let dumbbell = Union::new(ball(Vector3::new(-1.5, 0.0, 0.0), 1.0), ball(Vector3::new(1.5, 0.0, 0.0), 1.0));
    assert_eq!(run(&dumbbell, &ball(Vector3::zeros(), 0.3), &params).0.verdict, OctreeVerdict::Separated);
    assert_eq!(run(&dumbbell, &ball(Vector3::new(0.0, 0.0, 0.0), 0.7), &params).0.verdict, OctreeVerdict::Penetrating);
    // A cube with a ball carved out of its middle, and a small ball inside the cavity.
    let shell = Difference::new(Cuboid::new(Vector3::repeat(1.0)).unwrap(), Sphere::new(0.8).unwrap());
    assert_eq!(run(&shell, &ball(Vector3::zeros(), 0.5), &params).0.verdict, OctreeVerdict::Separated);
    assert_eq!(run(&shell, &ball(Vector3::new(0.0, 0.0, 0.6), 0.5), &params).0.verdict, OctreeVerdict::Penetrating);
    // Floor and ball: the region is the ball's box.
    let floor = Halfspace::new(Vector3::z(), 0.0).unwrap();
    assert_eq!(run(&floor, &ball(Vector3::new(3.0, 4.0, 0.5), 0.4), &params).0.verdict, OctreeVerdict::Separated);
    assert_eq!(run(&floor, &ball(Vector3::new(3.0, 4.0, 0.3), 0.4), &params).0.verdict, OctreeVerdict::Penetrating);
    // Two floors: no finite region.
    let mut stack = [Cell::default(); 64];
    let mut out = [KeptCell::default(); 4];
    assert_eq!(octree::intersect(&floor, &floor, &params, &mut stack, &mut out), Err(OctreeError::BadRegion));
}

/// Capacity and budget are reported, never hidden.
#[test]
fn small_stack_output_and_budget_are_reported() {
    let a = ball(Vector3::zeros(), 1.0);
    let b = ball(Vector3::new(1.0, 0.0, 0.0), 1.0);
    let params = OctreeParams { max_depth: 5, ..OctreeParams::default() };
    let mut out = [KeptCell::default(); 8];
    // Enough stack: everything evaluated, the output overflows (reported).
    let mut stack = vec![Cell::default(); octree::required_stack(3, 5)];
    let full = octree::intersect(&a, &b, &params, &mut stack, &mut out).unwrap();
    assert_eq!(full.dropped, 0);
    assert_eq!(full.verdict, OctreeVerdict::Penetrating);
    assert_eq!(full.stored, 8);
    assert_eq!(full.overflow, full.inside + full.unresolved - 8);
    // A stack one short of the bound: cells dropped and counted.
    let mut short = vec![Cell::default(); octree::required_stack(3, 5) - 1];
    // 2.12 apart, bounding boxes overlapping: the octree has work to do.
    let apart = ball(Vector3::new(1.5, 1.5, 0.0), 1.0);
    let r = octree::intersect(&a, &apart, &params, &mut short, &mut out).unwrap();
    let r_full = octree::intersect(&a, &apart, &params, &mut stack, &mut out).unwrap();
    assert_eq!(r_full.verdict, OctreeVerdict::Separated);
    if r.dropped > 0 {
        assert_eq!(r.verdict, OctreeVerdict::Undetermined { reason: Undetermined::OutOfCapacity });
    }
    let r = octree::intersect(&a, &apart, &params, &mut stack[..1], &mut out).unwrap();
    assert_eq!(r.verdict, OctreeVerdict::Undetermined { reason: Undetermined::OutOfCapacity });
    // Budget of 3 cells.
    let tight = OctreeParams { max_cells: 3, ..params };
    let r = octree::intersect(&a, &apart, &tight, &mut stack, &mut out).unwrap();
    assert_eq!(r.verdict, OctreeVerdict::Undetermined { reason: Undetermined::IterationCap });
    assert_eq!(r.visited, 3);
    // Bad parameters.
    let deep = OctreeParams { max_depth: octree::MAX_DEPTH + 1, ..params };
    assert_eq!(octree::intersect(&a, &b, &deep, &mut stack, &mut out), Err(OctreeError::BadParams));
    assert_eq!(octree::intersect(&a, &b, &params, &mut [], &mut out), Err(OctreeError::BadParams));
    // An inverted region.
    let inverted = Aabb { min: Vector3::repeat(1.0), max: Vector3::repeat(-1.0) };
    assert_eq!(octree::intersect_in(&a, &b, &inverted, &params, &mut stack, &mut out), Err(OctreeError::BadRegion));
    let nan = Aabb { min: Vector3::new(f64::NAN, 0.0, 0.0), max: Vector3::repeat(1.0) };
    assert_eq!(octree::intersect_in(&a, &b, &nan, &params, &mut stack, &mut out), Err(OctreeError::BadRegion));
}

/// An SDF whose interval extension returns NaN: undecided, never a proof.
#[derive(Clone, Copy)]
struct Broken;
impl Sdf<f64, 3> for Broken {
    fn eval(&self, _: &Vector3<f64>) -> SdfSample<f64, 3> {
        SdfSample { value: f64::NAN, gradient: Vector3::zeros() }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        Ball { center: Vector3::zeros(), radius: 1.0 }
    }
}
impl IntervalSdf<f64, 3> for Broken {
    fn eval_interval(&self, _: &[Interval<f64>; 3]) -> Interval<f64> {
        Interval::point(f64::NAN)
    }
}

#[test]
fn nan_intervals_are_undecided() {
    let params = OctreeParams::default();
    let (rep, _) = run(&Broken, &ball(Vector3::zeros(), 1.0), &params);
    assert_eq!(rep.verdict, OctreeVerdict::Undetermined { reason: Undetermined::NonFinite });
    assert!(rep.nonfinite > 0);
    let _ = Point3::<f64>::origin();
}

/// Liu et al.'s pipeline: the octree's kept cells (inside both first, then
/// undecided) give the detection points (§4.2), the gradient methods the
/// contacts (§4.3–4.4). On the linked rings: two contact regions, each
/// contact's points inside or on the other body, depth as the closed forms
/// give at the returned points.
#[test]
fn octree_cells_feed_the_gradient_contacts() {
    use narrowphase::sdf::gradient::{self, GradientContact, GradientParams};
    let a = torus_at(Vector3::zeros(), Rotation3::identity());
    let b = torus_at(
        Vector3::new(1.0, 0.0, 0.0),
        Rotation3::from_axis_angle(&Vector3::y_axis(), core::f64::consts::FRAC_PI_2),
    );
    let params = OctreeParams { max_depth: 4, ..OctreeParams::default() };
    let (rep, mut cells) = run(&a, &b, &params);
    // At depth 4 (cells 0.16 wide) the 0.086-deep overlaps hold no whole
    // cell: the verdict is undecided, the undecided cells are the candidates.
    assert_ne!(rep.verdict, OctreeVerdict::Separated);
    cells.sort_by_key(|k| k.class != CellClass::InsideBoth);
    let points: Vec<Vector3<f64>> = cells.iter().map(|k| k.cell.aabb.center()).collect();
    let mut out = [GradientContact::default(); 8];
    let report = gradient::contacts(&a, &b, &points, &GradientParams::default(), &mut out).unwrap();
    let found = &out[..report.stored as usize];
    println!("octree depth 4: {} kept cells → {} detection points → {report:?}", cells.len(), points.len());
    let sides: std::collections::BTreeSet<bool> = found.iter().map(|c| c.p_a.y > 0.0).collect();
    assert_eq!(sides.len(), 2, "two contact regions: {found:?}");
    for c in found {
        // p_a is on A (within tolerance) and inside B; p_b the other way.
        assert!(a.eval(&c.p_a).value.abs() < 1e-4 && b.eval(&c.p_a).value < 0.0, "{c:?}");
        assert!(b.eval(&c.p_b).value.abs() < 1e-4 && a.eval(&c.p_b).value < 0.0, "{c:?}");
        // Closed form: the cores come within √2 − 1 of each other, so the
        // deepest point of either tube in the other is 0.5 − (√2 − 1) deep.
        assert!((c.depth - (0.5 - (2f64.sqrt() - 1.0))).abs() < 2e-3, "depth {} ", c.depth);
    }
}
