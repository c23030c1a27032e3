//! The ellipsoid method against closed forms: two balls (Lemma 3, all three
//! regimes) and axis-aligned boxes (distance of the gap, inscribed ball of
//! the overlap box), in 2D and 3D, f32 and f64; warm starts; bad input.

use crate::common;

use crate::common::rng;
use nalgebra::{SVector, Vector2, Vector3};
use narrowphase::query::Undetermined;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart};
use narrowphase::sdf::{Ball, BoxN, Halfspace, Sdf, SdfAccuracy, SdfSample, Transformed};
use narrowphase::shape::{Placed, Sphere};
use rand::Rng;

fn translated<S, const D: usize>(s: S, t: SVector<f64, D>) -> Transformed<S, f64, D> {
    Transformed::new(s, nalgebra::SMatrix::identity(), 1.0, t).unwrap()
}

fn solve<const D: usize>(a: &impl Sdf<f64, D>, b: &impl Sdf<f64, D>) -> EllipsoidMethodOutcome<f64, D> {
    EllipsoidMethod::distance().solve(a, b, &mut EllipsoidWarmStart::default())
}

/// Lemma 3: `φ* = max(−R_A, −R_B, (|c_A − c_B| − R_A − R_B)/2)`.
fn lemma3(ra: f64, rb: f64, d: f64) -> f64 {
    (-ra).max(-rb).max((d - ra - rb) / 2.0)
}

fn balls<const D: usize>(seed: u64) {
    let mut rng = rng(seed);
    let mut regimes = [0usize; 3];
    for _ in 0..300 {
        let ra = rng.random_range(0.1..2.0);
        let rb = rng.random_range(0.1..2.0);
        let ca = SVector::<f64, D>::from_fn(|_, _| rng.random_range(-1.2..1.2));
        let cb = SVector::<f64, D>::from_fn(|_, _| rng.random_range(-1.2..1.2));
        let d = (ca - cb).norm();
        let a = translated(Sphere::new(ra).unwrap(), ca);
        let b = translated(Sphere::new(rb).unwrap(), cb);
        let truth = lemma3(ra, rb, d);
        regimes[if d > ra + rb {
            0
        } else if d > (ra - rb).abs() {
            1
        } else {
            2
        }] += 1;
        let out = solve(&a, &b);
        let c = out.contact().unwrap_or_else(|| panic!("{out:?}"));
        let tol = 1e-6 * ra.max(rb);
        assert!((c.phi - truth).abs() < tol, "phi {} vs {truth}", c.phi);
        assert!(c.bounds.lower <= truth + 1e-12 && truth <= c.bounds.upper + 1e-12, "{:?} {truth}", c.bounds);
        assert_eq!(out.is_penetrating(), Some(truth <= 0.0));
        // The optimum is where both balls' SDFs certify the value.
        let fa = (c.x - ca).norm() - ra;
        let fb = (c.x - cb).norm() - rb;
        assert!((fa.max(fb) - c.phi).abs() < 1e-9);
        if truth > 0.0 {
            // Witness points: the closest points of the balls.
            let u = (cb - ca) / d;
            assert!((c.point_a - (ca + u * ra)).norm() < 1e-3 * ra.max(rb).max(1.0));
            assert!((c.point_b - (cb - u * rb)).norm() < 1e-3 * ra.max(rb).max(1.0));
            assert!((c.normal - u).norm() < 1e-3);
            assert!((c.signed_distance() - (d - ra - rb)).abs() < 2.0 * tol);
        } else {
            assert!((c.inscribed_radius() + truth).abs() < tol);
        }
    }
    assert!(regimes.iter().all(|&n| n > 10), "all three regimes sampled: {regimes:?}");
}

#[test]
fn two_balls_match_lemma3_in_2d_and_3d() {
    balls::<2>(1);
    balls::<3>(2);
}

/// Axis-aligned boxes: apart, the distance between the boxes; overlapping,
/// the intersection is a box whose inscribed ball has its smallest
/// half-extent as radius.
fn boxes<const D: usize>(seed: u64) {
    let mut rng = rng(seed);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..300 {
        let ha = SVector::<f64, D>::from_fn(|_, _| rng.random_range(0.2..1.5));
        let hb = SVector::<f64, D>::from_fn(|_, _| rng.random_range(0.2..1.5));
        let ca = SVector::<f64, D>::from_fn(|_, _| rng.random_range(-2.0..2.0));
        let cb = SVector::<f64, D>::from_fn(|_, _| rng.random_range(-2.0..2.0));
        let a = translated(BoxN::new(ha).unwrap(), ca);
        let b = translated(BoxN::new(hb).unwrap(), cb);
        let gap = SVector::<f64, D>::from_fn(|i, _| ((ca[i] - cb[i]).abs() - ha[i] - hb[i]).max(0.0));
        let overlap = SVector::<f64, D>::from_fn(|i, _| {
            let lo = (ca[i] - ha[i]).max(cb[i] - hb[i]);
            let hi = (ca[i] + ha[i]).min(cb[i] + hb[i]);
            (hi - lo) / 2.0
        });
        let truth = if gap.norm() > 0.0 {
            apart += 1;
            gap.norm() / 2.0
        } else {
            overlapping += 1;
            -overlap.min()
        };
        let out = solve(&a, &b);
        let c = out.contact().unwrap_or_else(|| panic!("{out:?}"));
        assert!((c.phi - truth).abs() < 1e-5, "phi {} vs {truth}: {c:?}", c.phi);
        if truth.abs() > 1e-5 {
            assert_eq!(out.is_penetrating(), Some(truth < 0.0));
        }
    }
    assert!(apart > 20 && overlapping > 20, "{apart} {overlapping}");
}

#[test]
fn axis_aligned_boxes_match_the_closed_form_in_2d_and_3d() {
    boxes::<2>(3);
    boxes::<3>(4);
}

#[test]
fn f32_balls_and_boxes() {
    let a =
        Transformed::new(Sphere::new(1.0_f32).unwrap(), nalgebra::Matrix3::identity(), 1.0, Vector3::zeros()).unwrap();
    let b = Transformed::new(
        BoxN::new(Vector3::new(0.5_f32, 0.5, 0.5)).unwrap(),
        nalgebra::Matrix3::identity(),
        1.0,
        Vector3::new(2.0, 0.0, 0.0),
    )
    .unwrap();
    let out = EllipsoidMethod::distance().solve(&a, &b, &mut EllipsoidWarmStart::default());
    let c = out.contact().unwrap();
    assert!((c.signed_distance() - 0.5).abs() < 1e-3, "{c:?}");
    // Overlapping discs in 2D, f32: the inscribed ball of the lens.
    let a =
        Transformed::new(Sphere::new(1.0_f32).unwrap(), nalgebra::Matrix2::identity(), 1.0, Vector2::zeros()).unwrap();
    let b = Transformed::new(Sphere::new(1.0_f32).unwrap(), nalgebra::Matrix2::identity(), 1.0, Vector2::new(1.5, 0.0))
        .unwrap();
    let out = EllipsoidMethod::distance().solve(&a, &b, &mut EllipsoidWarmStart::default());
    assert!((out.contact().unwrap().inscribed_radius() - 0.25).abs() < 1e-3);
}

#[test]
fn collision_query_stops_at_the_sign() {
    let mut rng = rng(5);
    for _ in 0..200 {
        let ra = rng.random_range(0.1..2.0);
        let rb = rng.random_range(0.1..2.0);
        let cb = Vector3::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0), 0.0);
        let a = Sphere::new(ra).unwrap();
        let b = translated(Sphere::new(rb).unwrap(), cb);
        let truth = lemma3(ra, rb, cb.norm());
        let fast = EllipsoidMethod::collision().solve(&a, &b, &mut EllipsoidWarmStart::default());
        let full = EllipsoidMethod::distance().solve(&a, &b, &mut EllipsoidWarmStart::default());
        if truth.abs() > 1e-6 {
            assert_eq!(fast.is_penetrating(), Some(truth < 0.0), "{fast:?}");
        }
        assert!(fast.contact().unwrap().iterations <= full.contact().unwrap().iterations);
    }
}

#[test]
fn warm_start_follows_a_moving_box_with_fewer_iterations() {
    let a = BoxN::new(Vector3::new(1.0, 0.7, 0.4)).unwrap();
    let hb = Vector3::new(0.5, 0.6, 0.3);
    let mut warm = EllipsoidWarmStart::default();
    let (mut cold_iters, mut warm_iters) = (0u32, 0u32);
    let mut prev = Vector3::new(2.5, 0.3, 0.2);
    for k in 0..200 {
        let t = k as f64 * 0.01;
        let c = Vector3::new(2.5 - t, 0.3 + 0.2 * (3.0 * t).sin(), 0.2);
        let b = translated(BoxN::new(hb).unwrap(), c);
        warm.moved((c - prev).norm());
        prev = c;
        let w = EllipsoidMethod::distance().solve(&a, &b, &mut warm);
        let cold = solve(&a, &b);
        let (w, cold) = (w.contact().unwrap(), cold.contact().unwrap());
        assert!((w.phi - cold.phi).abs() < 1e-5, "step {k}: warm {} cold {}", w.phi, cold.phi);
        cold_iters += cold.iterations;
        warm_iters += w.iterations;
    }
    println!("iterations over 200 steps: cold {cold_iters}, warm {warm_iters}");
    assert!(warm_iters < cold_iters, "warm {warm_iters} cold {cold_iters}");
}

/// An SDF whose bounding ball does not contain it.
struct Liar;
impl Sdf<f64, 3> for Liar {
    fn eval(&self, x: &Vector3<f64>) -> SdfSample<f64, 3> {
        let n = x.norm();
        SdfSample { value: n - 5.0, gradient: if n > 0.0 { x / n } else { Vector3::zeros() } }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        Ball { center: Vector3::zeros(), radius: 1.0 }
    }
}

/// An SDF that returns NaN away from the origin.
struct Broken;
impl Sdf<f64, 3> for Broken {
    fn eval(&self, x: &Vector3<f64>) -> SdfSample<f64, 3> {
        SdfSample { value: if x.norm() > 0.5 { f64::NAN } else { x.norm() - 1.0 }, gradient: Vector3::x() }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        Ball { center: Vector3::zeros(), radius: 1.0 }
    }
}

#[test]
fn bad_input_is_typed_never_a_panic() {
    let s = Sphere::new(1.0).unwrap();
    // A ball that does not contain its body: flagged as Degenerate (the
    // samples contradict the ball), never a wrong certificate, never a panic.
    for x in [0.0, 3.0, 5.5, 7.0, 20.0] {
        let b = translated(s, Vector3::new(x, 0.0, 0.0));
        for m in [EllipsoidMethod::distance(), EllipsoidMethod::collision()] {
            let out = m.solve(&Liar, &b, &mut EllipsoidWarmStart::default());
            assert!(
                matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::Degenerate, .. }),
                "{out:?}"
            );
        }
    }
    // NaN from an SDF.
    let b = translated(s, Vector3::new(1.2, 0.0, 0.0));
    let out = EllipsoidMethod::distance().solve(&Broken, &b, &mut EllipsoidWarmStart::default());
    assert!(matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
    // Two unbounded bodies: nothing bounds the search.
    let floor = Halfspace::new(Vector3::z(), 0.0).unwrap();
    let out = EllipsoidMethod::distance().solve(&floor, &floor, &mut EllipsoidWarmStart::default());
    assert!(matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::Degenerate, .. }));
    // One unbounded body: fine.
    let ball = translated(s, Vector3::new(0.0, 0.0, 3.0));
    let out = solve(&floor, &ball);
    assert!((out.contact().unwrap().signed_distance() - 2.0).abs() < 1e-5, "{out:?}");
    // NaN tolerance, zero iterations, NaN warm-start motion.
    let mut m = EllipsoidMethod::distance();
    m.budget.tolerance = f64::NAN;
    assert!(matches!(
        m.solve(&s, &ball, &mut EllipsoidWarmStart::default()),
        EllipsoidMethodOutcome::Undetermined { .. }
    ));
    let mut m = EllipsoidMethod::distance();
    m.budget.max_iterations = 0;
    // Two balls are settled by their bounding balls alone (Lemma 3 meets
    // the value at the first point), even with no iteration.
    assert!(m.solve(&s, &ball, &mut EllipsoidWarmStart::default()).contact().is_some());
    let cube = translated(BoxN::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(), Vector3::new(0.3, 0.2, 3.0));
    match m.solve(&s, &cube, &mut EllipsoidWarmStart::default()) {
        EllipsoidMethodOutcome::Undetermined { reason, bounds, .. } => {
            assert_eq!(reason, Undetermined::IterationCap);
            assert!(bounds.lower <= 0.5 && 0.5 <= bounds.upper, "{bounds:?}");
        }
        other => panic!("{other:?}"),
    }
    let mut warm = EllipsoidWarmStart::default();
    let _ = solve(&s, &ball);
    let _ = EllipsoidMethod::distance().solve(&s, &ball, &mut warm);
    warm.moved(f64::NAN);
    assert!(!warm.is_warm());
    // Non-finite placement is refused at construction.
    assert!(Transformed::new(s, nalgebra::Matrix3::identity(), 1.0, Vector3::new(f64::NAN, 0.0, 0.0)).is_err());
    assert!(Transformed::new(s, nalgebra::Matrix3::identity() * 2.0, 1.0, Vector3::zeros()).is_err());
    assert!(Transformed::new(s, nalgebra::Matrix3::identity(), 0.0, Vector3::zeros()).is_err());
    // Centres further apart than f64 can hold (the input
    // `fuzz/regressions/ellipsoid_method/f64-spheres-1.8e308-apart-nan-point-read-as-centre`):
    // the first point is infinite, a rotation turns it into NaN, and an SDF
    // that read a NaN point as its centre would answer −r. NonFinite, not
    // Penetrating.
    let far_a = Placed::new(Sphere::new(4.0).unwrap(), common::at(37.0, -1.0, -3.0173347531925537e304));
    let far_b = Placed::new(Sphere::new(2.4).unwrap(), common::at(0.0, -1.7976931348623157e308, 0.0));
    let mut m = EllipsoidMethod::collision();
    m.budget.max_iterations = 0;
    let out = m.solve(&far_a, &far_b, &mut EllipsoidWarmStart::default());
    assert!(matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
    // A body beyond the kernel's extent (sqrt(MAX)/1e3): the witness
    // x − φ∇φ would overflow (φ ≈ 9e307, point_b = −∞: the input
    // `fuzz/regressions/ellipsoid_method/f64-body-at-9e307-witness-overflows`).
    let huge = Placed::new(Sphere::new(1.0).unwrap(), common::at(86.0, 33.0, -9.0e307));
    let out = EllipsoidMethod::distance().solve(&s, &huge, &mut EllipsoidWarmStart::default());
    assert!(matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
    let nan = Vector3::new(f64::NAN, 0.0, 0.0);
    assert!(Sdf::eval(&s, &nan).value.is_nan());
    assert!(Sdf::eval(&narrowphase::shape::Ellipsoid::new(Vector3::new(1.0, 2.0, 3.0)).unwrap(), &nan).value.is_nan());
    assert!(Sdf::eval(&narrowphase::shape::Capsule::new(1.0, 0.5).unwrap(), &nan).value.is_nan());
    // Dimension 1 has no ellipsoid method.
    let a1 = translated(Sphere::new(1.0).unwrap(), SVector::<f64, 1>::new(0.0));
    let out = solve(&a1, &a1);
    assert!(matches!(out, EllipsoidMethodOutcome::Undetermined { reason: Undetermined::Degenerate, .. }));
}
