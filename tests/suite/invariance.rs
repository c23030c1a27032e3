//! Answers depend on the relative placement only: every query of the
//! support family, the ellipsoid method and the algebraic ellipsoid test
//! re-run with the whole scene rotated and moved 1 m to 10 km from the
//! world origin, in f32 and f64, against closed-form truths computed in
//! f64 from the very poses the queries were given. Also the named cases of
//! the certificate contract: far placements, coincident round bodies,
//! poses that are not rigid, EPA's room, curved bodies in f64, budgets.

use crate::common;

use crate::common::{point_segment, rng, rotation, segment_segment, unit_vector};
use nalgebra::{Matrix3, Point3, Rotation3, Translation3, Vector3};
use narrowphase::math::Real;
use narrowphase::prelude::*;
use narrowphase::support::contact::{contact, contact_with};
use narrowphase::support::epa::Epa;
use rand::Rng;

/// A body of the family, sizes in f64.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Sphere(f64),
    Capsule(f64, f64),
    Cuboid([f64; 3]),
}

/// A placed body in precision `R`, behind one type.
enum Body<R: Real> {
    Sphere(Placed<Sphere<R>, R>),
    Capsule(Placed<Capsule<R>, R>),
    Cuboid(Placed<Cuboid<R>, R>),
}

impl<R: Real> Body<R> {
    fn new(kind: Kind, pose: Pose<R>) -> Self {
        match kind {
            Kind::Sphere(r) => Body::Sphere(Placed::new(Sphere::new(R::lit(r)).unwrap(), pose)),
            Kind::Capsule(h, r) => Body::Capsule(Placed::new(Capsule::new(R::lit(h), R::lit(r)).unwrap(), pose)),
            Kind::Cuboid(h) => {
                let half = Vector3::new(R::lit(h[0]), R::lit(h[1]), R::lit(h[2]));
                Body::Cuboid(Placed::new(Cuboid::new(half).unwrap(), pose))
            }
        }
    }
    fn shape(&self) -> &dyn SupportMap<R> {
        match self {
            Body::Sphere(b) => b,
            Body::Capsule(b) => b,
            Body::Cuboid(b) => b,
        }
    }
    /// The pose the queries see (after the constructor's orthonormalisation), exactly in f64.
    fn pose64(&self) -> Pose<f64> {
        let p = match self {
            Body::Sphere(b) => b.pose(),
            Body::Capsule(b) => b.pose(),
            Body::Cuboid(b) => b.pose(),
        };
        let m = p.rotation.matrix().map(|x| x.to_f64());
        let t = p.translation.vector.map(|x| x.to_f64());
        Pose::from_parts(Translation3::from(t), Rotation3::from_matrix_unchecked(m))
    }
}

fn segment(pose: &Pose<f64>, h: f64) -> (Point3<f64>, Point3<f64>) {
    (pose * Point3::new(0.0, 0.0, -h), pose * Point3::new(0.0, 0.0, h))
}

/// Signed distance of a point from a box (negative inside).
fn point_box(p: &Point3<f64>, half: &[f64; 3], pose: &Pose<f64>) -> f64 {
    let q = pose.inverse_transform_point(p);
    let out = Vector3::from_fn(|i, _| (q[i].abs() - half[i]).max(0.0));
    let inside = (0..3).map(|i| q[i].abs() - half[i]).fold(f64::MIN, f64::max);
    if inside > 0.0 {
        out.norm()
    } else {
        inside
    }
}

/// Overlap of two boxes by the separating-axis theorem (15 axes): exact
/// up to a band of `slack`; `None` inside the band.
fn boxes_overlap(ha: &[f64; 3], pa: &Pose<f64>, hb: &[f64; 3], pb: &Pose<f64>, slack: f64) -> Option<bool> {
    let (ra, rb) = (pa.rotation.matrix(), pb.rotation.matrix());
    let t = pb.translation.vector - pa.translation.vector;
    let mut axes: Vec<Vector3<f64>> = Vec::new();
    for i in 0..3 {
        axes.push(ra.column(i).into());
        axes.push(rb.column(i).into());
        for j in 0..3 {
            let c = ra.column(i).cross(&rb.column(j));
            if c.norm() > 1e-9 {
                axes.push(c.normalize());
            }
        }
    }
    let mut min_gap = f64::MIN;
    for n in axes {
        let ext = |r: &Matrix3<f64>, h: &[f64; 3]| (0..3).map(|k| h[k] * r.column(k).dot(&n).abs()).sum::<f64>();
        min_gap = min_gap.max(t.dot(&n).abs() - ext(ra, ha) - ext(rb, hb));
    }
    outside_band(min_gap, slack)
}

/// Overlap from a signed gap (a distance, or SAT's largest axis gap):
/// `None` within `slack` of zero.
fn outside_band(gap: f64, slack: f64) -> Option<bool> {
    if gap > slack {
        Some(false)
    } else if gap < -slack {
        Some(true)
    } else {
        None
    }
}

/// The signed distance by closed form, where there is one.
fn truth(ka: Kind, pa: &Pose<f64>, kb: Kind, pb: &Pose<f64>) -> Option<f64> {
    let ca = Point3::from(pa.translation.vector);
    let cb = Point3::from(pb.translation.vector);
    match (ka, kb) {
        (Kind::Sphere(ra), Kind::Sphere(rb)) => Some((ca - cb).norm() - ra - rb),
        (Kind::Sphere(ra), Kind::Capsule(h, rb)) => {
            let (b0, b1) = segment(pb, h);
            Some(point_segment(&ca, &b0, &b1) - ra - rb)
        }
        (Kind::Capsule(h, ra), Kind::Sphere(rb)) => {
            let (a0, a1) = segment(pa, h);
            Some(point_segment(&cb, &a0, &a1) - ra - rb)
        }
        (Kind::Capsule(ha, ra), Kind::Capsule(hb, rb)) => {
            let (a0, a1) = segment(pa, ha);
            let (b0, b1) = segment(pb, hb);
            Some(segment_segment(&a0, &a1, &b0, &b1) - ra - rb)
        }
        (Kind::Cuboid(h), Kind::Sphere(r)) => Some(point_box(&cb, &h, pa) - r),
        (Kind::Sphere(r), Kind::Cuboid(h)) => Some(point_box(&ca, &h, pb) - r),
        _ => None,
    }
}

/// Overlap by an independent test: the closed form's sign, or SAT for boxes.
fn overlap(ka: Kind, pa: &Pose<f64>, kb: Kind, pb: &Pose<f64>, slack: f64) -> Option<bool> {
    if let (Kind::Cuboid(ha), Kind::Cuboid(hb)) = (ka, kb) {
        return boxes_overlap(&ha, pa, &hb, pb, slack);
    }
    outside_band(truth(ka, pa, kb, pb)?, slack)
}

fn kind(rng: &mut impl Rng) -> Kind {
    match rng.random_range(0..3) {
        0 => Kind::Sphere(rng.random_range(0.02..0.4)),
        1 => Kind::Capsule(rng.random_range(0.02..0.4), rng.random_range(0.02..0.2)),
        _ => Kind::Cuboid([rng.random_range(0.02..0.3), rng.random_range(0.02..0.3), rng.random_range(0.02..0.3)]),
    }
}

/// A pair near contact in a frame of its own: B at a few body sizes from
/// A, some apart, some overlapping, some a few millimetres from touching.
fn relative_pair(rng: &mut impl Rng) -> (Kind, Pose<f64>, Kind, Pose<f64>) {
    let (ka, kb) = (kind(rng), kind(rng));
    let pa = Pose::from_parts(Translation3::identity(), rotation(rng));
    let reach = rng.random_range(0.0..0.9);
    let pb = Pose::from_parts(Translation3::from(unit_vector(rng) * reach), rotation(rng));
    (ka, pa, kb, pb)
}

/// The scene moved: rotated by `q` about the world origin, then moved by `offset`.
fn moved(p: &Pose<f64>, q: &Rotation3<f64>, offset: &Vector3<f64>) -> Pose<f64> {
    Pose::from_parts(Translation3::from(q * p.translation.vector + offset), q * p.rotation)
}

fn to<R: Real>(p: &Pose<f64>) -> Pose<R> {
    let m = p.rotation.matrix().map(R::lit);
    let t = p.translation.vector.map(R::lit);
    Pose::from_parts(Translation3::from(t), Rotation3::from_matrix_unchecked(m))
}

/// Counts of the family run, per query: checked against a truth, and undetermined.
#[derive(Default, Debug)]
struct Tally {
    checked: usize,
    undetermined: usize,
}

/// Runs every support-family query on `pairs` pairs moved to `offset` (along
/// a random direction) and rotated, asserting that certified bounds hold
/// the truth within `slack` (relative to the bodies' size, never to the
/// offset) and that booleans agree outside that band.
fn family<R: Real>(seed: u64, offset: f64, pairs: usize, slack: f64) -> Tally {
    let mut rng = rng(seed);
    let mut tally = Tally::default();
    let budget = Budget::<R>::default();
    for i in 0..pairs {
        let (ka, pa, kb, pb) = relative_pair(&mut rng);
        let q = rotation(&mut rng);
        let shift = unit_vector(&mut rng) * offset;
        let a = Body::<R>::new(ka, to(&moved(&pa, &q, &shift)));
        let b = Body::<R>::new(kb, to(&moved(&pb, &q, &shift)));
        let (wa, wb) = (a.pose64(), b.pose64());
        let ctx = format!("{} offset {offset:e} #{i}: {ka:?} vs {kb:?}", core::any::type_name::<R>());
        let (sa, sb) = (a.shape(), b.shape());

        // contact: certified signed-distance bounds.
        let out = contact(sa, sb, &budget, &mut GjkWarmStart::default());
        if let Some(d) = truth(ka, &wa, kb, &wb) {
            let (lo, hi) = match out {
                Proximity::Separated(s) => (s.bounds.lower.to_f64(), s.bounds.upper.to_f64()),
                Proximity::Penetrating(p) => (-p.bounds.upper.to_f64(), -p.bounds.lower.to_f64()),
                Proximity::Undetermined { bounds, .. } => {
                    tally.undetermined += 1;
                    (bounds.lower.to_f64(), bounds.upper.to_f64())
                }
            };
            assert!(lo - slack <= d && d <= hi + slack, "contact {ctx}: truth {d} outside [{lo}, {hi}]: {out:?}");
            tally.checked += 1;
        }
        if let Some(hit) = overlap(ka, &wa, kb, &wb, slack) {
            let answers = [
                ("contact", out.is_penetrating()),
                ("gjk::intersect", gjk::intersect(sa, sb, &budget, &mut GjkWarmStart::default()).is_penetrating()),
                ("gjk::distance", gjk::distance(sa, sb, &budget, &mut GjkWarmStart::default()).is_penetrating()),
                ("mpr::intersect", mpr::intersect(sa, sb, &budget).is_penetrating()),
                ("mpr::penetration", mpr::penetration(sa, sb, &budget).is_penetrating()),
            ];
            for (name, answer) in answers {
                match answer {
                    Some(x) => assert_eq!(x, hit, "{name} {ctx}"),
                    None => tally.undetermined += 1,
                }
                tally.checked += 1;
            }
        }
    }
    tally
}

const OFFSETS: [f64; 6] = [0.0, 1.0, 10.0, 100.0, 1.0e3, 1.0e4];

#[test]
fn support_family_answers_do_not_depend_on_the_placement_f64() {
    for (k, &offset) in OFFSETS.iter().enumerate() {
        let t = family::<f64>(100 + k as u64, offset, 300, 1e-9);
        assert!(t.checked > 600 && t.undetermined * 100 <= t.checked, "f64 offset {offset:e}: {t:?}");
    }
}

#[test]
fn support_family_answers_do_not_depend_on_the_placement_f32() {
    // f32's rounding at the bodies' size (≤ 1 m): a few 1e-7 per operation.
    for (k, &offset) in OFFSETS.iter().enumerate() {
        let t = family::<f32>(200 + k as u64, offset, 300, 2e-5);
        assert!(t.checked > 600 && t.undetermined * 100 <= t.checked, "f32 offset {offset:e}: {t:?}");
    }
}

/// Two boxes of half extent 0.05, 5 mm apart along x, at x = 100 m in f32.
#[test]
fn boxes_five_millimetres_apart_at_a_hundred_metres_f32() {
    let cube = Cuboid::new(Vector3::new(0.05_f32, 0.05, 0.05)).unwrap();
    let at = |x: f32| Placed::new(cube, Pose::from_parts(Translation3::new(x, 0.0, 0.0), Rotation3::identity()));
    let (a, b) = (at(100.0), at(100.105));
    let gap = (100.105_f32 - 100.0 - 0.1) as f64; // the separation of the f32 poses, exactly
    match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
        Proximity::Separated(s) => {
            assert!(s.bounds.lower > 0.0);
            assert!((s.distance as f64 - gap).abs() < 1e-6, "{s:?} vs {gap}");
            assert!((s.witness.normal - Vector3::x()).norm() < 1e-5);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(gjk::intersect(&a, &b, &Budget::default(), &mut GjkWarmStart::default()).is_penetrating(), Some(false));
    assert_eq!(mpr::intersect(&a, &b, &Budget::default()).is_penetrating(), Some(false));
}

/// Capsule pairs 0.1 m apart at offsets 1e4, 1e6 and 1e9 in f32: the poses
/// are exact floats, so the relative placement is exact too.
#[test]
fn capsules_a_decimetre_apart_far_from_the_origin_f32() {
    for offset in [1.0e4_f32, 1.0e6, 1.0e9] {
        let cap = Capsule::new(0.3_f32, 0.05).unwrap();
        let a = Placed::new(cap, Pose::from_parts(Translation3::new(offset, offset, 0.0), Rotation3::identity()));
        // Parallel axes 0.2 apart in y: 0.1 between the surfaces.
        let b = Placed::new(cap, Pose::from_parts(Translation3::new(offset, offset + 0.2, 0.0), Rotation3::identity()));
        let dy = ((offset + 0.2) - offset) as f64; // what f32 made of the 0.2 m
        let truth = dy - 0.1;
        match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Separated(s) => {
                assert!((s.distance as f64 - truth).abs() <= 1e-6 * truth.max(1.0), "{offset}: {s:?} vs {truth}")
            }
            Proximity::Penetrating(p) => assert!(truth <= 0.0, "{offset}: {p:?} vs {truth}"),
            other => panic!("{offset}: {other:?}"),
        }
    }
}

#[test]
fn concentric_spheres_are_exact() {
    fn check<R: Real>(eps: f64) {
        let origin = Pose::from_parts(Translation3::new(R::lit(3.0), R::lit(-2.0), R::lit(1.0)), Rotation3::identity());
        let a = Placed::new(Sphere::new(R::lit(0.3)).unwrap(), origin);
        let b = Placed::new(Sphere::new(R::lit(0.2)).unwrap(), origin);
        match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Penetrating(p) => {
                assert!((p.depth.to_f64() - 0.5).abs() < eps, "{p:?}");
                assert!(p.bounds.contains(R::lit(0.5)) || (p.bounds.lower.to_f64() - 0.5).abs() < eps, "{p:?}");
                let d = p.witness.point_a - p.witness.point_b - p.witness.normal * p.depth;
                assert!(d.norm().to_f64() < eps * 10.0, "{p:?}");
            }
            other => panic!("{other:?}"),
        }
    }
    check::<f32>(1e-6);
    check::<f64>(1e-12);
}

#[test]
fn capsules_on_one_axis_and_crossing_are_exact() {
    fn check<R: Real>(offset: f64, b_rot: Rotation3<f64>, eps: f64) {
        let a = Placed::new(Capsule::new(R::lit(0.4), R::lit(0.1)).unwrap(), to::<R>(&common::at(1.0, 2.0, 3.0)));
        let pb = Pose::from_parts(Translation3::new(1.0, 2.0, 3.0 + offset), b_rot);
        let b = Placed::new(Capsule::new(R::lit(0.3), R::lit(0.05)).unwrap(), to::<R>(&pb));
        match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Penetrating(p) => assert!((p.depth.to_f64() - 0.15).abs() < eps, "{offset}: {p:?}"),
            other => panic!("{offset}: {other:?}"),
        }
    }
    for offset in [0.0, 1e-5, 0.1] {
        check::<f32>(offset, Rotation3::identity(), 1e-6);
        check::<f64>(offset, Rotation3::identity(), 1e-12);
    }
    // Crossing through a common point: the cores' CSO is a flat parallelogram.
    let crossing = Rotation3::from_axis_angle(&Vector3::x_axis(), 1.2);
    check::<f32>(0.0, crossing, 1e-6);
    check::<f64>(0.0, crossing, 1e-12);
}

#[test]
fn poses_that_are_not_rigid_are_refused_or_made_rigid() {
    let scaled =
        Pose::from_parts(Translation3::new(0.0, 0.0, 0.0), Rotation3::from_matrix_unchecked(Matrix3::identity() * 2.0));
    let mut shear = Matrix3::identity();
    shear[(0, 1)] = 0.3;
    let sheared = Pose::from_parts(Translation3::new(0.0, 0.0, 0.0), Rotation3::from_matrix_unchecked(shear));
    let mirror = Pose::from_parts(
        Translation3::identity(),
        Rotation3::from_matrix_unchecked(Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0))),
    );
    let ball = Sphere::new(0.5_f64).unwrap();
    for bad in [scaled, sheared, mirror] {
        assert_eq!(Placed::try_new(ball, bad), Err(ShapeError::NotARotation));
    }
    let nan = Pose::from_parts(Translation3::new(f64::NAN, 0.0, 0.0), Rotation3::identity());
    assert_eq!(Placed::try_new(ball, nan), Err(ShapeError::NonFinite));
    // A drifted rotation (1e-6, as forward kinematics leaves it) is accepted, made orthonormal.
    let drift = Rotation3::from_matrix_unchecked(Rotation3::from_euler_angles(0.3, 0.2, 0.1).matrix() * (1.0 + 1e-6));
    let p = Placed::try_new(ball, Pose::from_parts(Translation3::identity(), drift)).unwrap();
    let m = p.pose().rotation.matrix();
    assert!((m.transpose() * m - Matrix3::identity()).norm() < 1e-14);
    // `new` makes any rotation rigid: the margin path and the support map
    // then see the same body (a 2·I matrix answered with the scaled shape
    // on one path and the unscaled radius on the other).
    let a = Placed::new(ball, scaled);
    let near = Placed::new(ball, Pose::from_parts(Translation3::new(1.5, 0.0, 0.0), Rotation3::identity()));
    let far = Placed::new(ball, Pose::from_parts(Translation3::new(0.9, 0.0, 0.0), Rotation3::identity()));
    assert!(
        (contact(&a, &near, &Budget::default(), &mut GjkWarmStart::default()).signed_distance().unwrap() - 0.5).abs()
            < 1e-12
    );
    assert!(
        (contact(&a, &far, &Budget::default(), &mut GjkWarmStart::default()).signed_distance().unwrap() + 0.1).abs()
            < 1e-12
    );
    // set_pose validates and leaves the body where it was on an error.
    let mut moved = near;
    assert_eq!(moved.set_pose(sheared), Err(ShapeError::NotARotation));
    assert_eq!(moved, near);
}

/// An iteration cap above what the caller's EPA workspace holds is clamped
/// to the workspace: never a capacity error at run time.
#[test]
fn epa_cap_follows_the_workspace() {
    let mut rng = rng(5);
    let mut epa = Epa::<f32, 36, 68>::new();
    assert_eq!(Epa::<f32, 36, 68>::MAX_ITERATIONS, 32);
    for _ in 0..2000 {
        let a = Placed::new(Capsule::new(0.3_f32, 0.1).unwrap(), to(&common::pose(&mut rng, 0.3)));
        let b = Placed::new(Ellipsoid::new(Vector3::new(0.3_f32, 0.2, 0.1)).unwrap(), to(&common::pose(&mut rng, 0.3)));
        let out = contact_with(&a, &b, &Budget::new(500, 1e-7), &mut GjkWarmStart::default(), &mut epa);
        assert!(!matches!(out, Proximity::Undetermined { reason: Undetermined::OutOfCapacity, .. }), "{out:?}");
        assert!(epa.iterations() <= 32);
    }
}

/// Penetrating ellipsoid pairs in f64 decide at the default budget, and the
/// depth's bounds hold an independent upper bound: the support value along
/// a sampled direction (every direction's support value bounds the depth).
#[test]
fn penetrating_ellipsoids_decide_in_f64() {
    let mut rng = rng(9);
    let (mut decided, mut total) = (0, 0);
    for _ in 0..400 {
        let axes = |rng: &mut rand_chacha::ChaCha8Rng| {
            Vector3::new(rng.random_range(0.2..1.0), rng.random_range(0.2..1.0), rng.random_range(0.2..1.0))
        };
        let a = Placed::new(Ellipsoid::new(axes(&mut rng)).unwrap(), common::pose(&mut rng, 0.8));
        let b = Placed::new(Ellipsoid::new(axes(&mut rng)).unwrap(), common::pose(&mut rng, 0.8));
        if !matches!(
            gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default()),
            GjkOutcome::Penetrating(_)
        ) {
            continue;
        }
        total += 1;
        let out = contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default());
        if let Proximity::Penetrating(p) = out {
            decided += 1;
            let h = |u: &Vector3<f64>| u.dot(&(a.support(u) - b.support(&-u)));
            let upper = (0..200).map(|_| h(&unit_vector(&mut rng))).fold(f64::INFINITY, f64::min);
            assert!(p.bounds.lower <= upper + 1e-12, "{p:?} vs sampled {upper}");
            assert!(p.bounds.gap() <= 2e-6 * p.bounds.upper.max(1.0), "{p:?}");
            assert!(h(&p.witness.normal) <= p.depth + 2e-6, "moving B by depth·normal separates: {p:?}");
        }
    }
    assert!(total > 100 && decided * 100 >= total * 99, "{decided} of {total} decided");
}

#[test]
fn a_negative_tolerance_is_an_invalid_budget() {
    let a = Placed::new(Sphere::new(1.0_f64).unwrap(), Pose::identity());
    let bad = Budget::new(64, -1.0);
    assert!(!bad.is_valid());
    let reason = |p: Proximity<f64>| match p {
        Proximity::Undetermined { reason, .. } => Some(reason),
        _ => None,
    };
    assert_eq!(reason(contact(&a, &a, &bad, &mut GjkWarmStart::default())), Some(Undetermined::InvalidBudget));
    assert!(matches!(
        gjk::distance(&a, &a, &bad, &mut GjkWarmStart::default()),
        GjkOutcome::Undetermined { reason: Undetermined::InvalidBudget, .. }
    ));
    assert!(matches!(
        mpr::intersect(&a, &a, &bad),
        MprOutcome::Undetermined { reason: Undetermined::InvalidBudget, .. }
    ));
}

/// The witness contract on pairs with closed-form surfaces: each separated
/// witness point in its body within the certified gap (plus rounding) of
/// its surface, and `point_b − point_a = distance · normal`.
#[test]
fn witness_points_lie_on_their_surfaces_within_the_gap() {
    let mut rng = rng(11);
    for i in 0..3000 {
        let (ka, pa, kb, pb) = relative_pair(&mut rng);
        let a = Body::<f64>::new(ka, pa);
        let b = Body::<f64>::new(kb, pb);
        let Proximity::Separated(s) = contact(a.shape(), b.shape(), &Budget::default(), &mut GjkWarmStart::default())
        else {
            continue;
        };
        let surface = |k: Kind, pose: &Pose<f64>, p: &Point3<f64>| match k {
            Kind::Sphere(r) => (p - Point3::from(pose.translation.vector)).norm() - r,
            Kind::Capsule(h, r) => {
                let (s0, s1) = segment(pose, h);
                point_segment(p, &s0, &s1) - r
            }
            Kind::Cuboid(h) => point_box(p, &h, pose),
        };
        let tol = s.bounds.gap() + 1e-12;
        let (da, db) = (surface(ka, &pa, &s.witness.point_a), surface(kb, &pb, &s.witness.point_b));
        assert!(da <= 1e-12 && da >= -tol, "#{i} A {ka:?}: {da} {s:?}");
        assert!(db <= 1e-12 && db >= -tol, "#{i} B {kb:?}: {db} {s:?}");
        let chord = s.witness.point_b - s.witness.point_a - s.witness.normal * s.distance;
        assert!(chord.norm() < 1e-12, "#{i}: {chord} {s:?}");
    }
}

/// The ellipsoid method and the algebraic ellipsoid test on the same
/// moved scenes: sphere pairs, `φ* = (|c_a − c_b| − r_a − r_b)/2`.
#[test]
fn sdf_and_closed_form_ellipsoid_queries_do_not_depend_on_the_placement() {
    use narrowphase::minkowski::ellipsoid_pair;
    use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidWarmStart};
    let mut rng = rng(13);
    for &offset in &OFFSETS {
        for _ in 0..100 {
            let (ra, rb) = (rng.random_range(0.05..0.5), rng.random_range(0.05..0.5));
            let q = rotation(&mut rng);
            let shift = unit_vector(&mut rng) * offset;
            let pa = moved(&Pose::identity(), &q, &shift);
            let pb = moved(
                &Pose::from_parts(
                    Translation3::from(unit_vector(&mut rng) * rng.random_range(0.8..1.2) * (ra + rb)),
                    Rotation3::identity(),
                ),
                &q,
                &shift,
            );
            let truth = ((pa.translation.vector - pb.translation.vector).norm() - ra - rb) / 2.0;
            let a = Placed::new(Sphere::new(ra).unwrap(), pa);
            let b = Placed::new(Sphere::new(rb).unwrap(), pb);
            let out = EllipsoidMethod::distance().solve(&a, &b, &mut EllipsoidWarmStart::default());
            if let Some(c) = out.contact() {
                assert!(c.bounds.lower - 1e-9 <= truth && truth <= c.bounds.upper + 1e-9, "{offset}: {truth} {out:?}");
            }
            let ea = Ellipsoid::new(Vector3::new(ra, ra, ra)).unwrap();
            let eb = Ellipsoid::new(Vector3::new(rb, rb, rb)).unwrap();
            if truth.abs() > 1e-9 {
                let hit = ellipsoid_pair::ellipsoids(&ea, &pa, &eb, &pb).is_penetrating();
                assert_ne!(hit, Some(truth > 0.0), "{offset}: {truth}");
            }
        }
    }
}
