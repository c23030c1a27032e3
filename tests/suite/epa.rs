//! EPA and the GJK+EPA contact query against ground truth computed here,
//! independently of the code under test: the separating-axis theorem for box
//! pairs (15 axes), closed forms for spheres and a sphere inside a box.

use crate::common::SupportOnly;
use nalgebra::{Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::math::Pose;
use narrowphase::prelude::*;
use narrowphase::shape::CsoPoint;
use narrowphase::support::contact::contact;
use narrowphase::support::epa::{self, DefaultEpa, Epa, DEPTH_TOLERANCE};
use narrowphase::support::Simplex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type V3 = Vector3<f64>;

// ---------------------------------------------------------------- ground truth

/// A box in f64: half-extents, rotation, centre.
#[derive(Clone, Copy, Debug)]
struct BoxSpec {
    half: V3,
    rot: Matrix3<f64>,
    centre: V3,
}

impl BoxSpec {
    /// Projected radius along `n`.
    fn radius(&self, n: &V3) -> f64 {
        (0..3).map(|i| n.dot(&self.rot.column(i)).abs() * self.half[i]).sum()
    }
    /// Largest of `|local_i| / half_i`: 1 on the surface.
    fn surface_ratio(&self, p: &V3) -> f64 {
        let l = self.rot.transpose() * (p - self.centre);
        (0..3).map(|i| l[i].abs() / self.half[i]).fold(0.0, f64::max)
    }
    fn placed<R: Real>(&self) -> Placed<Cuboid<R>, R> {
        let rot = Rotation3::from_matrix_unchecked(self.rot.map(R::lit));
        let t = self.centre.map(R::lit);
        Placed::new(Cuboid::new(self.half.map(R::lit)).unwrap(), Pose::from_parts(Translation3::from(t), rot))
    }
}

/// Support value of `A − B` along unit `n`: `h_A(n) + h_B(−n)`.
fn h_boxes(a: &BoxSpec, b: &BoxSpec, n: &V3) -> f64 {
    a.radius(n) + b.radius(n) - n.dot(&(b.centre - a.centre))
}

/// SAT over the 15 axes: (depth, normal from A towards B, best overlap on an
/// axis not parallel to the minimum — the margin of the minimum).
fn sat(a: &BoxSpec, b: &BoxSpec) -> (f64, V3, f64) {
    let mut axes = Vec::new();
    for i in 0..3 {
        axes.push(a.rot.column(i).into_owned());
        axes.push(b.rot.column(i).into_owned());
        for j in 0..3 {
            let c = a.rot.column(i).cross(&b.rot.column(j));
            if c.norm() > 1e-6 {
                axes.push(c.normalize());
            }
        }
    }
    let d = b.centre - a.centre;
    let overlap = |l: &V3| {
        let n = if l.dot(&d) < 0.0 { -l } else { *l };
        (a.radius(&n) + b.radius(&n) - n.dot(&d), n)
    };
    let (depth, normal) = axes.iter().map(overlap).min_by(|x, y| x.0.partial_cmp(&y.0).unwrap()).unwrap();
    let second =
        axes.iter().filter(|l| l.dot(&normal).abs() < 0.999).map(|l| overlap(l).0).fold(f64::INFINITY, f64::min);
    (depth, normal, second)
}

// ---------------------------------------------------------------- generators

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn rotation(r: &mut ChaCha8Rng) -> Matrix3<f64> {
    loop {
        let q = nalgebra::Quaternion::new(
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
        );
        if q.norm() > 0.1 && q.norm() < 1.0 {
            return *UnitQuaternion::from_quaternion(q).to_rotation_matrix().matrix();
        }
    }
}

fn unit(r: &mut ChaCha8Rng) -> V3 {
    loop {
        let v = V3::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        if v.norm() > 0.1 && v.norm() < 1.0 {
            return v.normalize();
        }
    }
}

fn random_box(r: &mut ChaCha8Rng, centre: V3) -> BoxSpec {
    let half = V3::new(r.random_range(0.2..1.5), r.random_range(0.2..1.5), r.random_range(0.2..1.5));
    BoxSpec { half, rot: rotation(r), centre }
}

/// A penetrating random box pair with SAT depth above `min_depth`.
fn penetrating_pair(r: &mut ChaCha8Rng, min_depth: f64) -> (BoxSpec, BoxSpec, (f64, V3, f64)) {
    loop {
        let ca = V3::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0), 0.0);
        let a = random_box(r, ca);
        let dist = r.random_range(0.0..2.5);
        let cb = a.centre + unit(r) * dist;
        let b = random_box(r, cb);
        let s = sat(&a, &b);
        if s.0 > min_depth {
            return (a, b, s);
        }
    }
}

fn f<R: Real>(x: R) -> f64 {
    x.to_f64()
}

fn v<R: Real>(x: &Vector3<R>) -> V3 {
    x.map(|c| c.to_f64())
}

fn p<R: Real>(x: &Pt3<R>) -> V3 {
    v(&x.coords)
}

fn simplex_of<A, B, R: Real>(a: &A, b: &B, budget: &Budget<R>) -> Simplex<R>
where
    A: SupportMap<R>,
    B: SupportMap<R>,
{
    match gjk::distance(a, b, budget, &mut GjkWarmStart::default()) {
        GjkOutcome::Penetrating(s) => s,
        other => panic!("GJK: {other:?}"),
    }
}

fn penetrating<R: Real>(out: Proximity<R>) -> Penetration<R> {
    match out {
        Proximity::Penetrating(p) => p,
        other => panic!("{other:?}"),
    }
}

/// `point_a − point_b = depth · normal` to the rounding of coordinates of
/// size ≤ 4, unit normal, depth within bounds.
fn check_witness_identity<R: Real>(pen: &Penetration<R>) {
    let tol = 128.0 * f(R::EPSILON);
    let w = &pen.witness;
    let d = p(&w.point_a) - p(&w.point_b) - v(&w.normal) * f(pen.depth);
    assert!(d.norm() <= tol, "point_a - point_b - depth n = {d:?}");
    assert!((v(&w.normal).norm() - 1.0).abs() < tol);
    assert!(pen.bounds.lower <= pen.depth && pen.depth <= pen.bounds.upper, "{pen:?}");
}

// ---------------------------------------------------------------- box–box vs SAT

fn box_box_against_sat<R: Real>(seed: u64, count: usize, tol: f64) {
    let mut r = rng(seed);
    let budget = Budget::<R>::default();
    let mut epa = DefaultEpa::<R>::new();
    let mut unique = 0;
    for k in 0..count {
        let (a, b, (depth, normal, second)) = penetrating_pair(&mut r, 1e-3);
        let (sa, sb) = (a.placed::<R>(), b.placed::<R>());
        let s = simplex_of(&sa, &sb, &budget);
        let pen = penetrating(epa.penetration(&sa, &sb, &s, &budget));
        let ctx = format!("#{k}: sat {depth} {normal:?} second {second}; epa {pen:?}");
        assert!((f(pen.depth) - depth).abs() <= tol, "depth {ctx}");
        assert!(f(pen.bounds.lower) <= depth + tol && depth <= f(pen.bounds.upper) + tol, "bounds {ctx}");
        assert!(pen.bounds.gap() <= R::lit(tol), "gap {ctx}");
        // The EPA normal is a minimising direction: its support value is the depth.
        let n = v(&pen.witness.normal);
        assert!((h_boxes(&a, &b, &n) - depth).abs() <= 4.0 * tol, "normal {ctx}");
        if second > depth + 0.05 {
            unique += 1;
            assert!((n - normal).norm() <= 1e-2, "normal vs SAT axis {ctx}");
        }
        // Witnesses on the surfaces.
        check_witness_identity(&pen);
        assert!((a.surface_ratio(&p(&pen.witness.point_a)) - 1.0).abs() <= 8.0 * tol, "point_a {ctx}");
        assert!((b.surface_ratio(&p(&pen.witness.point_b)) - 1.0).abs() <= 8.0 * tol, "point_b {ctx}");
    }
    assert!(unique > count / 2, "too few pairs with a unique SAT axis: {unique}");
}

#[test]
fn box_box_depth_matches_sat_f64() {
    box_box_against_sat::<f64>(1, 300, 1e-9);
}

#[test]
fn box_box_depth_matches_sat_f32() {
    box_box_against_sat::<f32>(2, 300, 5e-4);
}

#[test]
fn contact_query_matches_sat_and_separation() {
    let mut r = rng(3);
    let budget = Budget::<f64>::default();
    let mut cache = GjkWarmStart::default();
    let (mut sep, mut pen) = (0, 0);
    for _ in 0..300 {
        let a = random_box(&mut r, V3::zeros());
        let cb = unit(&mut r) * r.random_range(0.0..3.5);
        let b = random_box(&mut r, cb);
        let (depth, _, _) = sat(&a, &b);
        if depth.abs() < 1e-3 {
            continue;
        }
        match contact(&a.placed::<f64>(), &b.placed::<f64>(), &budget, &mut cache) {
            Proximity::Separated(s) => {
                assert!(depth < 0.0, "separated but SAT overlap {depth}");
                assert!(s.distance >= -depth - 1e-9, "distance {} below the SAT gap {}", s.distance, -depth);
                sep += 1;
            }
            Proximity::Penetrating(p) => {
                assert!((p.depth - depth).abs() < 1e-9, "{} vs {depth}", p.depth);
                pen += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(sep > 50 && pen > 50, "{sep} separated, {pen} penetrating");
}

// ---------------------------------------------------------------- symmetry

fn symmetry<R: Real>(seed: u64, tol: f64) {
    let mut r = rng(seed);
    let budget = Budget::<R>::default();
    for _ in 0..150 {
        let (a, b, (_, _, _)) = penetrating_pair(&mut r, 1e-3);
        let (sa, sb) = (a.placed::<R>(), b.placed::<R>());
        let ab = penetrating(contact(&sa, &sb, &budget, &mut GjkWarmStart::default()));
        let ba = penetrating(contact(&sb, &sa, &budget, &mut GjkWarmStart::default()));
        assert!((f(ab.depth) - f(ba.depth)).abs() <= tol, "{ab:?} {ba:?}");
        let (_, _, second) = sat(&a, &b);
        if second > f(ab.depth) + 0.05 {
            assert!((v(&ab.witness.normal) + v(&ba.witness.normal)).norm() <= 1e-2, "{ab:?} {ba:?}");
        }
    }
}

#[test]
fn symmetric_in_the_bodies_f64() {
    symmetry::<f64>(4, 1e-9);
}

#[test]
fn symmetric_in_the_bodies_f32() {
    symmetry::<f32>(5, 5e-4);
}

// ---------------------------------------------------------------- spheres

fn sphere_sphere<R: Real>(seed: u64, tol_rel: f64, tol: f64) {
    let mut r = rng(seed);
    let budget = Budget::new(64, R::lit(tol_rel));
    for k in 0..150 {
        let (r1, r2) = (r.random_range(0.3..1.5), r.random_range(0.3..1.5));
        let ca = V3::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        let dir = unit(&mut r);
        // Well-conditioned contacts: near-concentric spheres have every
        // direction nearly minimal and need the whole sphere refined.
        let d = r.random_range((0.3 * (r1 + r2))..(r1 + r2 - 0.01));
        let cb = ca + dir * d;
        let sphere = |rad: f64, c: V3| {
            Placed::new(
                Sphere::new(R::lit(rad)).unwrap(),
                Pose::from_parts(Translation3::from(c.map(R::lit)), Default::default()),
            )
        };
        let (sa, sb) = (sphere(r1, ca), sphere(r2, cb));
        let pen = penetrating(contact(&sa, &sb, &budget, &mut GjkWarmStart::default()));
        let depth = r1 + r2 - d;
        let ctx = format!("#{k}: {depth} {pen:?}");
        assert!((f(pen.depth) - depth).abs() <= tol, "{ctx}");
        assert!(f(pen.bounds.lower) <= depth + 1e-6 && depth <= f(pen.bounds.upper) + 1e-6, "{ctx}");
        assert!((v(&pen.witness.normal) - dir).norm() <= 0.1, "{ctx}");
        check_witness_identity(&pen);
        assert!(((p(&pen.witness.point_a) - ca).norm() - r1).abs() <= tol, "{ctx}");
        assert!(((p(&pen.witness.point_b) - cb).norm() - r2).abs() <= tol, "{ctx}");
    }
}

#[test]
fn sphere_sphere_closed_form_f64() {
    sphere_sphere::<f64>(6, 1e-4, 1e-3);
}

#[test]
fn sphere_sphere_closed_form_f32() {
    sphere_sphere::<f32>(7, 1e-3, 5e-3);
}

fn sphere_in_box<R: Real>(seed: u64, tol_rel: f64, tol: f64) {
    let mut r = rng(seed);
    let budget = Budget::new(64, R::lit(tol_rel));
    for k in 0..150 {
        let c0 = V3::new(r.random_range(-1.0..1.0), 0.5, -0.5);
        let bx = random_box(&mut r, c0);
        let local = V3::from_fn(|i, _| r.random_range(-0.95..0.95) * bx.half[i]);
        let c = bx.centre + bx.rot * local;
        let rad = r.random_range(0.1..1.0);
        let (i, gap) =
            (0..3).map(|i| (i, bx.half[i] - local[i].abs())).min_by(|x, y| x.1.partial_cmp(&y.1).unwrap()).unwrap();
        let depth = rad + gap;
        let normal = bx.rot.column(i) * local[i].signum();
        let sb = Placed::new(
            Sphere::new(R::lit(rad)).unwrap(),
            Pose::from_parts(Translation3::from(c.map(R::lit)), Default::default()),
        );
        let pen = penetrating(contact(&bx.placed::<R>(), &sb, &budget, &mut GjkWarmStart::default()));
        let ctx = format!("#{k}: {depth} {normal:?} {pen:?}");
        assert!((f(pen.depth) - depth).abs() <= tol, "{ctx}");
        check_witness_identity(&pen);
        assert!((bx.surface_ratio(&p(&pen.witness.point_a)) - 1.0).abs() <= tol, "{ctx}");
        assert!(((p(&pen.witness.point_b) - c).norm() - rad).abs() <= tol, "{ctx}");
        let second = (0..3).filter(|&j| j != i).map(|j| bx.half[j] - local[j].abs()).fold(f64::INFINITY, f64::min);
        if second > gap + 0.05 {
            assert!((v(&pen.witness.normal) - normal).norm() <= 0.05, "{ctx}");
        }
    }
}

#[test]
fn sphere_inside_box_closed_form_f64() {
    sphere_in_box::<f64>(8, 1e-6, 1e-5);
}

#[test]
fn sphere_inside_box_closed_form_f32() {
    sphere_in_box::<f32>(9, 1e-3, 5e-3);
}

// ---------------------------------------------------------------- short simplices

fn axis_box(centre: [f64; 3]) -> BoxSpec {
    BoxSpec { half: V3::new(1.0, 1.0, 1.0), rot: Matrix3::identity(), centre: V3::from(centre) }
}

fn cso_point<R: Real>(a: V3, b: V3) -> CsoPoint<R> {
    let (a, b) = (Pt3::from(a.map(R::lit)), Pt3::from(b.map(R::lit)));
    CsoPoint { w: a - b, a, b }
}

fn simplex<R: Real>(pts: &[(V3, V3)]) -> Simplex<R> {
    let mut s = Simplex::one(cso_point(pts[0].0, pts[0].1));
    for q in &pts[1..] {
        s.push(cso_point(q.0, q.1));
    }
    s
}

/// Touching boxes with the origin on a vertex, an edge, a face of the
/// terminal simplex: a zero-depth penetration.
fn touching<R: Real>() {
    let budget = Budget::<R>::default();
    let eps = f(budget.tolerance) * 4.0;
    let a = axis_box([0.0; 3]);
    let xyz = |x: f64, y: f64, z: f64| V3::new(x, y, z);
    let cases: [(BoxSpec, Vec<(V3, V3)>); 5] = [
        // Corner on corner: CSO = [-4, 0]³, the origin is its vertex.
        (axis_box([2.0, 2.0, 2.0]), vec![(xyz(1.0, 1.0, 1.0), xyz(1.0, 1.0, 1.0))]),
        // Edge on edge: the origin is on the segment (0,0,-2)–(0,0,2).
        (
            axis_box([2.0, 2.0, 0.0]),
            vec![(xyz(1.0, 1.0, -1.0), xyz(1.0, 1.0, 1.0)), (xyz(1.0, 1.0, 1.0), xyz(1.0, 1.0, -1.0))],
        ),
        // Face on face, origin on an edge of the triangle.
        (
            axis_box([2.0, 0.0, 0.0]),
            vec![
                (xyz(1.0, -1.0, -1.0), xyz(1.0, 1.0, 1.0)),
                (xyz(1.0, 1.0, -1.0), xyz(1.0, -1.0, 1.0)),
                (xyz(1.0, -1.0, 1.0), xyz(1.0, 1.0, -1.0)),
            ],
        ),
        // Face on face, origin inside the triangle.
        (
            axis_box([2.0, 0.0, 0.0]),
            vec![
                (xyz(1.0, -1.0, -1.0), xyz(1.0, 1.0, 1.0)),
                (xyz(1.0, 1.0, -1.0), xyz(1.0, -1.0, 1.0)),
                (xyz(1.0, 0.0, 1.0), xyz(1.0, 0.0, -1.0)),
            ],
        ),
        // Face on face, the terminal simplex a segment through the origin.
        (
            axis_box([2.0, 0.5, 0.0]),
            vec![(xyz(1.0, 1.0, 1.0), xyz(1.0, 0.5, 0.5)), (xyz(1.0, -1.0, -1.0), xyz(1.0, -0.5, -0.5))],
        ),
    ];
    for (k, (b, pts)) in cases.iter().enumerate() {
        let s = simplex::<R>(pts);
        let (sa, sb) = (a.placed::<R>(), b.placed::<R>());
        let pen = penetrating(epa::penetration(&sa, &sb, &s, &budget));
        assert!(f(pen.depth) <= eps && f(pen.bounds.upper) <= eps, "case {k}: {pen:?}");
        assert!(f(pen.bounds.lower) >= 0.0);
        // Moving B along the normal separates: the normal is in the CSO's
        // normal cone at the origin, i.e. h(n) ≈ 0.
        assert!(h_boxes(&a, b, &v(&pen.witness.normal)).abs() <= eps, "case {k}: {pen:?}");
        assert!((p(&pen.witness.point_a) - p(&pen.witness.point_b)).norm() <= eps, "case {k}: {pen:?}");
        // The same through GJK.
        let out = contact(&sa, &sb, &budget, &mut GjkWarmStart::default());
        assert!(out.signed_distance().is_some_and(|d| f(d).abs() <= eps), "case {k} (GJK): {out:?}");
    }
}

#[test]
fn touching_terminal_simplices_f64() {
    touching::<f64>();
}

#[test]
fn touching_terminal_simplices_f32() {
    touching::<f32>();
}

/// Deep overlaps starting from a segment or a triangle through the origin
/// (the points need not be support points: any point of A minus any point
/// of B is in the CSO), or from any single CSO point.
fn short_simplex_deep<R: Real>(seed: u64, tol: f64) {
    let mut r = rng(seed);
    let budget = Budget::<R>::default();
    let mut epa = DefaultEpa::<R>::new();
    for k in 0..100 {
        let (a, b, (depth, _, _)) = penetrating_pair(&mut r, 0.05);
        let (sa, sb) = (a.placed::<R>(), b.placed::<R>());
        // A point in both bodies: the centre of one if inside the other,
        // else skip this pair.
        let inside = |bx: &BoxSpec, q: &V3| bx.surface_ratio(q) < 0.9;
        let common = if inside(&a, &b.centre) {
            b.centre
        } else if inside(&b, &a.centre) {
            a.centre
        } else {
            continue;
        };
        let sup = |d: V3| {
            let q = sa.support(&d.map(R::lit));
            let s = sb.support(&(-d).map(R::lit));
            (p(&q), p(&s))
        };
        // Segment: w1 = s(d), w2 = -k w1 with a2 = common - k w1, b2 = common.
        let w1 = sup(unit(&mut r));
        let k1 = 0.05;
        let seg_end = (common - (w1.0 - w1.1) * k1, common);
        let two = [w1, seg_end];
        // Triangle: w3 = -(k (w1 + w2')) from two supports.
        let w2 = sup(unit(&mut r));
        let sum = (w1.0 - w1.1) + (w2.0 - w2.1);
        let tri_end = (common - sum * 0.025, common);
        let three = [w1, w2, tri_end];
        if !(inside(&a, &seg_end.0) && inside(&a, &tri_end.0)) {
            continue;
        }
        for pts in [&two[..], &three[..], &[w1][..]] {
            let s = simplex::<R>(pts);
            let pen = penetrating(epa.penetration(&sa, &sb, &s, &budget));
            assert!((f(pen.depth) - depth).abs() <= tol, "#{k} {}: {depth} {pen:?}", pts.len());
            check_witness_identity(&pen);
        }
    }
}

#[test]
fn segment_and_triangle_through_a_deep_overlap_f64() {
    short_simplex_deep::<f64>(10, 1e-9);
}

#[test]
fn segment_and_triangle_through_a_deep_overlap_f32() {
    short_simplex_deep::<f32>(11, 5e-4);
}

// ---------------------------------------------------------------- budgets

#[test]
fn a_tiny_workspace_clamps_the_cap_with_bracketing_bounds() {
    let mut r = rng(12);
    let budget = Budget::<f64>::default();
    let mut epa = Epa::<f64, 6, 8>::new();
    assert_eq!(Epa::<f64, 6, 8>::MAX_ITERATIONS, 2);
    let mut out_of_capacity = 0;
    for _ in 0..200 {
        let (a, b, (depth, _, _)) = penetrating_pair(&mut r, 1e-3);
        let (sa, sb) = (a.placed::<f64>(), b.placed::<f64>());
        let s = simplex_of(&sa, &sb, &budget);
        match epa.penetration(&sa, &sb, &s, &budget) {
            Proximity::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                out_of_capacity += 1;
                assert!(bounds.lower <= -depth + 1e-12 && -depth <= bounds.upper + 1e-12, "{bounds:?} vs -{depth}");
            }
            Proximity::Penetrating(p) => {
                assert!(p.bounds.lower - 1e-12 <= depth && depth <= p.bounds.upper + 1e-12, "{p:?} vs {depth}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(out_of_capacity > 150, "{out_of_capacity}");
}

#[test]
fn iteration_cap_bounds_bracket_the_depth() {
    let mut r = rng(13);
    for _ in 0..50 {
        let (a, b, (depth, _, _)) = penetrating_pair(&mut r, 1e-3);
        let (sa, sb) = (a.placed::<f64>(), b.placed::<f64>());
        let s = simplex_of(&sa, &sb, &Budget::default());
        for cap in 0..8 {
            match epa::penetration(&sa, &sb, &s, &Budget::new(cap, 1e-13)) {
                Proximity::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                    assert!(bounds.lower <= -depth + 1e-12 && -depth <= bounds.upper + 1e-12, "{bounds:?} vs -{depth}");
                }
                // Depths certified to `DEPTH_TOLERANCE` of the pair's size.
                Proximity::Penetrating(p) => {
                    assert!(p.bounds.lower - 1e-12 <= depth && depth <= p.bounds.upper + 1e-12, "{p:?} vs {depth}")
                }
                other => panic!("{other:?}"),
            }
        }
    }
    // Curved: the bounds bracket the closed form at every cap (the last
    // caps reach the depth tolerance, `DEPTH_TOLERANCE`, and answer it).
    let sa = Placed::new(Sphere::new(1.0).unwrap(), Pose::identity());
    let sb =
        Placed::new(Sphere::new(0.7).unwrap(), Pose::from_parts(Translation3::new(0.3, 0.9, -0.2), Default::default()));
    let depth = 1.7 - V3::new(0.3, 0.9, -0.2).norm();
    let s = simplex_of(&sa, &sb, &Budget::default());
    for cap in 0..64 {
        match epa::penetration(&sa, &sb, &s, &Budget::new(cap, 1e-12)) {
            Proximity::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                assert!(
                    bounds.lower <= -depth + 1e-12 && -depth <= bounds.upper + 1e-12,
                    "{cap}: {bounds:?} vs -{depth}"
                );
            }
            Proximity::Penetrating(p) => {
                assert!(p.bounds.lower - 1e-12 <= depth && depth <= p.bounds.upper + 1e-12, "{cap}: {p:?} vs {depth}");
                assert!(p.bounds.gap() <= 2.0 * DEPTH_TOLERANCE * 1.7, "{cap}: {p:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

// ---------------------------------------------------------------- scale

/// Far from the origin and with thin boxes: the tolerance follows the
/// coordinates (here ~1e3), the depth still matches SAT.
#[test]
fn far_from_origin_and_thin_boxes() {
    let mut r = rng(14);
    let budget = Budget::<f64>::default();
    let mut epa = DefaultEpa::<f64>::new();
    let offset = V3::new(1.0e3, -2.0e3, 5.0e2);
    for k in 0..200 {
        let (mut a, mut b, _) = penetrating_pair(&mut r, 1e-3);
        // Flatten one axis of each box to 1e-3 of the others every other time.
        if k % 2 == 0 {
            a.half[0] = 1e-3;
            b.half[2] = 1e-3;
        }
        a.centre += offset;
        b.centre += offset;
        let (depth, _, _) = sat(&a, &b);
        if depth < 1e-4 {
            continue;
        }
        let (sa, sb) = (a.placed::<f64>(), b.placed::<f64>());
        let s = simplex_of(&sa, &sb, &budget);
        let pen = penetrating(epa.penetration(&sa, &sb, &s, &budget));
        // EPA certifies the depth to `DEPTH_TOLERANCE` of the pair's size
        // (a few units: it runs in the pair frame), whatever the offset.
        let band = 4.0 * DEPTH_TOLERANCE;
        assert!(pen.bounds.lower - 1e-12 <= depth && depth <= pen.bounds.upper + 1e-12, "#{k}: {depth} {pen:?}");
        assert!((pen.depth - depth).abs() < band, "#{k}: {depth} {pen:?}");
        assert!((h_boxes(&a, &b, &pen.witness.normal) - depth).abs() < band, "#{k}: {depth} {pen:?}");
    }
}

/// Simplices GJK would not produce but a caller might: repeated points, a
/// flat tetrahedron around the origin, points inside the CSO.
#[test]
fn degenerate_input_simplices() {
    let a = BoxSpec { half: V3::new(1.0, 0.8, 0.6), rot: rotation(&mut rng(15)), centre: V3::zeros() };
    let b = BoxSpec { half: V3::new(0.7, 0.9, 0.5), rot: rotation(&mut rng(16)), centre: V3::new(0.4, -0.3, 0.2) };
    let (depth, _, _) = sat(&a, &b);
    let (sa, sb) = (a.placed::<f64>(), b.placed::<f64>());
    let budget = Budget::<f64>::default();
    let xyz = |x: f64, y: f64, z: f64| V3::new(x, y, z);
    let o = V3::zeros();
    let cases: Vec<Vec<(V3, V3)>> = vec![
        // The same point four times (the origin, inside the CSO).
        vec![(o, o); 4],
        // A flat square around the origin (z = 0), as a 4-point simplex.
        vec![(xyz(0.2, 0.2, 0.0), o), (xyz(-0.2, 0.2, 0.0), o), (xyz(-0.2, -0.2, 0.0), o), (xyz(0.2, -0.2, 0.0), o)],
        // Collinear points through the origin.
        vec![(xyz(0.1, 0.1, 0.1), o), (xyz(-0.1, -0.1, -0.1), o), (xyz(0.05, 0.05, 0.05), o)],
    ];
    for (k, pts) in cases.iter().enumerate() {
        // Points of A minus the centre of B, which is inside A: in the CSO.
        let pts: Vec<(V3, V3)> = pts.iter().map(|(p, q)| (p + b.centre, q + b.centre)).collect();
        let s = simplex::<f64>(&pts);
        let pen = penetrating(epa::penetration(&sa, &sb, &s, &budget));
        assert!((pen.depth - depth).abs() < 1e-9, "case {k}: {depth} {pen:?}");
    }
}

/// `contact_with` on a caller-owned workspace: the depth of SAT (ground
/// truth) on penetrating box pairs seen through their support functions
/// (EPA runs), the same answer as `contact` with the default workspace,
/// and a workspace too small for the budget ends in `OutOfCapacity` with
/// valid bounds, never out of bounds.
#[test]
fn contact_with_a_caller_workspace() {
    use narrowphase::support::contact::contact_with;
    let mut r = rng(77);
    let mut epa = Epa::<f64, 68, 132>::new();
    let mut tiny = Epa::<f64, 6, 8>::new();
    let budget = Budget::new(64, 1e-9);
    let (mut out_of_capacity, mut pairs) = (0, 0);
    for _ in 0..200 {
        let (a, b, (depth, _, _)) = penetrating_pair(&mut r, 0.05);
        let (boxes_a, boxes_b) = (a.placed::<f64>(), b.placed::<f64>());
        let (pa, pb) = (SupportOnly(&boxes_a), SupportOnly(&boxes_b));
        let own = contact_with(&pa, &pb, &budget, &mut GjkWarmStart::default(), &mut epa);
        assert_eq!(own, contact(&pa, &pb, &budget, &mut GjkWarmStart::default()));
        let p = penetrating(own);
        assert!((p.depth - depth).abs() < 1e-6, "{} vs SAT {depth}", p.depth);
        match contact_with(&pa, &pb, &budget, &mut GjkWarmStart::default(), &mut tiny) {
            Proximity::Undetermined { reason: Undetermined::IterationCap, bounds } => {
                assert!(bounds.lower <= -depth + 1e-9 && -depth - 1e-9 <= bounds.upper, "{bounds:?} vs {depth}");
                out_of_capacity += 1;
            }
            Proximity::Penetrating(q) => assert!((q.depth - depth).abs() < 1e-6),
            other => panic!("{other:?}"),
        }
        pairs += 1;
    }
    assert!(out_of_capacity > 0 && out_of_capacity < pairs, "{out_of_capacity} of {pairs}");
}

/// The support function of an ellipsoid `R·diag(h)·ball + c`:
/// `h(u) = c·u + |diag(h)·Rᵀu|`.
fn ellipsoid_support(c: &V3, rot: &Rotation3<f64>, half: &V3, u: &V3) -> f64 {
    c.dot(u) + half.component_mul(&(rot.inverse() * u)).norm()
}

/// Penetrating ellipsoids at the default `f64` budget: GJK then
/// `epa::penetration` decide every pair (none ends in the iteration cap),
/// and the certified bounds hold the depth `min_u h_{A−B}(u)` found by
/// sampling directions and refining the best by coordinate descent.
#[test]
fn penetrating_ellipsoids_decide_at_the_default_f64_budget() {
    let mut r = rng(91);
    let budget = Budget::<f64>::default();
    let dirs: Vec<V3> = (0..4000).map(|_| crate::common::unit_vector(&mut r)).collect();
    let mut decided = 0;
    while decided < 60 {
        let half =
            |r: &mut ChaCha8Rng| V3::new(r.random_range(0.1..1.0), r.random_range(0.1..1.0), r.random_range(0.1..1.0));
        let (ha, hb) = (half(&mut r), half(&mut r));
        let (ra, rb) = (crate::common::rotation(&mut r), crate::common::rotation(&mut r));
        let cb = crate::common::unit_vector(&mut r) * r.random_range(0.0..1.2);
        let a = Placed::new(Ellipsoid::new(ha).unwrap(), Pose::from_parts(Translation3::identity(), ra));
        let b = Placed::new(Ellipsoid::new(hb).unwrap(), Pose::from_parts(Translation3::from(cb), rb));
        let GjkOutcome::Penetrating(s) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else {
            continue;
        };
        // h_{A−B}(u) = h_A(u) + h_B(−u).
        let h = |u: &V3| {
            let u = u.normalize();
            ellipsoid_support(&V3::zeros(), &ra, &ha, &u) + ellipsoid_support(&cb, &rb, &hb, &-u)
        };
        let mut best = *dirs.iter().min_by(|x, y| h(x).total_cmp(&h(y))).unwrap();
        let mut step = 0.05;
        for _ in 0..20_000 {
            if step < 1e-9 {
                break;
            }
            let mut moved = false;
            for k in 0..3 {
                for sgn in [-1.0, 1.0] {
                    let mut t = best;
                    t[k] += sgn * step;
                    if h(&t) < h(&best) {
                        best = t.normalize();
                        moved = true;
                    }
                }
            }
            if !moved {
                step *= 0.5;
            }
        }
        let depth = h(&best);
        match epa::penetration(&a, &b, &s, &budget) {
            Proximity::Penetrating(p) => {
                assert!(p.bounds.lower <= depth + 1e-12, "{p:?} vs sampled {depth}");
                assert!(p.bounds.upper >= depth - 1e-9, "{p:?} vs sampled {depth}");
                assert!(p.bounds.gap() <= 2.0 * DEPTH_TOLERANCE * 2.0, "{p:?}");
                // The normal certifies to the tolerance (scale about 2): B
                // moved by the depth along it is apart within it.
                assert!(h(&p.witness.normal) <= p.bounds.lower + 2.0 * DEPTH_TOLERANCE * 2.0, "{p:?}");
            }
            other => panic!("undetermined at the default budget: {other:?}, depth {depth}"),
        }
        decided += 1;
    }
}
