//! `fuzz/regressions/ellipsoid_method/`: the ellipsoid method on SDFs
//! (`sdf::ellipsoid_method`) and the SDFs and support maps it reads, far
//! from the origin and at the limits of the floating-point range. The
//! defect class: an SDF or a support map that overflows an unscaled product
//! at a finite point and answers NaN, infinity or a wrong finite value,
//! which the method cannot always detect. The `Sdf` contract: a finite
//! value with the right sign at every finite point; the `SupportMap`
//! contract: any nonzero finite direction.

// The f32 literals are the inputs' values in full (multiples of 1/256,
// exact in f32); the lint's shortest round-trip form would hide that.
#![allow(clippy::excessive_precision)]

use nalgebra::{Quaternion, Translation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::EllipsoidMethodOutcome;
use narrowphase::sdf::{Ball, SdfAccuracy, SdfSample};

use super::Bipyramid;

/// An SDF reporting a made-up bounding ball (the fuzz target's `BadBall`):
/// the method's answers may then be approximate, but never non-finite.
struct BadBall<S> {
    shape: S,
    ball: Ball<f32, 3>,
}

impl<S: Sdf<f32, 3>> Sdf<f32, 3> for BadBall<S> {
    fn eval(&self, x: &Vector3<f32>) -> SdfSample<f32, 3> {
        self.shape.eval(x)
    }
    fn eval_hinted(&self, x: &Vector3<f32>, hint: &mut SdfWarmStart) -> SdfSample<f32, 3> {
        self.shape.eval_hinted(x, hint)
    }
    fn accuracy(&self) -> SdfAccuracy {
        self.shape.accuracy()
    }
    fn bounding_ball(&self) -> Ball<f32, 3> {
        self.ball
    }
}

/// `f32-ellipsoid-far-nan-sdf-penetrating-nan-point`: the ellipsoid SDF far
/// from the body (|x| ≈ 2.5e24 in f32). Its `k0·(k0 − 1)/k1` squares `|x/a|`
/// and, computed unscaled, overflows to `inf/inf` = NaN. Truth: a positive
/// finite value and a finite gradient, in f32 and (further out) in f64.
#[test]
fn ellipsoid_sdf_is_finite_far_away_f32() {
    let e = Ellipsoid::new(Vector3::new(38.257_812_5_f32, 66.257_812_5, 1.257_812_5)).unwrap();
    for x in [
        Vector3::new(0.003_906_25_f32, -2.457_267e24, 66.257_81),
        Vector3::new(1.0e20_f32, 0.0, 0.0),
        Vector3::new(0.0_f32, 0.0, -3.0e19),
    ] {
        let s: SdfSample<f32, 3> = e.eval(&x);
        assert!(s.value.is_finite() && s.value > 0.0, "value {} at {x:?}", s.value);
        assert!(s.gradient.iter().all(|g| g.is_finite()), "gradient {:?} at {x:?}", s.gradient);
    }
    // f64 has the same overflow further out.
    let e = Ellipsoid::new(Vector3::new(38.257_812_5_f64, 66.257_812_5, 1.257_812_5)).unwrap();
    let s: SdfSample<f64, 3> = e.eval(&Vector3::new(0.0, 1.0e160, 0.0));
    assert!(s.value.is_finite() && s.value > 0.0, "f64 value {}", s.value);
}

/// The same input as a collision query: a capsule far away (y ≈ −2.5e24)
/// and the ellipsoid at the origin reporting the ball (0, 0) (not a true
/// one). The first evaluation point is inside the capsule, where a NaN φ_B
/// taken as `max(φ_A, NaN)` = φ_A ≤ 0 would stop the query at once with a
/// `Penetrating` answer and a NaN `point_b`. Truth: bodies 2.5e24 apart are
/// not penetrating, and a determined answer has finite points.
#[test]
fn collision_far_ellipsoid_with_nan_sdf_is_not_penetrating_f32() {
    let q =
        UnitQuaternion::new_normalize(Quaternion::new(66.257_812_5_f32, 66.257_812_5, 66.257_812_5, -58.230_468_75));
    let a = Placed::new(
        Capsule::new(66.257_812_5_f32, 66.257_812_5).unwrap(),
        Pose::from_parts(Translation3::new(0.003_906_25, -2.457_267_2e24, 66.257_812_5), q.to_rotation_matrix()),
    );
    let ellipsoid = Ellipsoid::new(Vector3::new(38.257_812_5_f32, 66.257_812_5, 1.257_812_5)).unwrap();
    let b = Placed::new(
        BadBall { shape: ellipsoid, ball: Ball { center: Vector3::zeros(), radius: 0.0 } },
        Pose::identity(),
    );
    let mut method = EllipsoidMethod::<f32>::collision();
    method.budget.max_iterations = 0;
    let out = method.solve(&a, &b, &mut EllipsoidWarmStart::default());
    if let Some(c) = out.contact() {
        let finite = c.x.iter().chain(c.point_a.iter()).chain(c.point_b.iter()).all(|v| v.is_finite());
        assert!(finite, "determined answer with a non-finite point: {out:?}");
    }
    assert!(
        !matches!(out, EllipsoidMethodOutcome::Penetrating(_)),
        "bodies 2.5e24 apart reported penetrating: {out:?}"
    );
}

/// `f64-flat-bottom-bipyramid21-cone-penetrating-4.1-apart`, as a collision
/// query: a pyramid with a flat base triangulated as a fan (see
/// `polytope_sdf::polytope_sdf_sign_with_a_flat_triangulated_base`) at
/// (56.47, 121.47, 55.20) and a cone (half-height = radius = 121.47) at
/// (51.2, 0, 66.26), f64. Truth: GJK's distance 4.1431; a polytope SDF with
/// the wrong sign outside the base gives `Penetrating` (φ_AB = −2.41 at a
/// point outside the pyramid).
#[test]
fn collision_flat_based_pyramid_and_cone_apart_f64() {
    let bp = Bipyramid::fan_pyramid(21, 51.199_218_75, 66.363_281_25);
    let a = Placed::new(
        bp.polytope(),
        Pose::from_parts(Translation3::new(56.472_656_25, 121.472_656_25, 55.195_312_5), Default::default()),
    );
    let b = Placed::new(
        Cone::new(121.472_656_25, 121.472_656_25).unwrap(),
        Pose::from_parts(
            Translation3::new(51.199_218_75, 8.724_631_406_935_315e-298, 66.257_812_5),
            Default::default(),
        ),
    );
    let gjk = gjk::distance(&a, &b, &Budget::new(200, 1e-12), &mut GjkWarmStart::default());
    let GjkOutcome::Separated(s) = gjk else { panic!("GJK: {gjk:?}") };
    assert!((s.distance - 4.1431).abs() < 1e-3, "{s:?}");
    let mut method = EllipsoidMethod::<f64>::collision();
    method.budget.max_iterations = 16962 % 2001;
    let out = method.solve(&a, &b, &mut EllipsoidWarmStart::default());
    assert!(!matches!(out, EllipsoidMethodOutcome::Penetrating(_)), "apart by 4.14, reported {out:?}");
}

/// `f32-cone-1e28-away-sdf-zero-warm-penetrating`: the exact SDFs at a point
/// 1.3e28 away in f32, where an unscaled `math::norm` (`sqrt(v·v)`)
/// overflows beyond |v| ≈ 1.8e19. Then every edge distance of the capped
/// cone (and `Cone`) is `inf`, none is nearest, and the "on the surface up
/// to rounding" branch answers 0 — a finite value of the wrong sign; the
/// other shapes answer `+inf` (right sign, not finite; the cylinder's
/// gradient NaN). Truth: positive, finite values and finite gradients.
#[test]
fn exact_sdfs_far_away_f32_are_positive_and_finite() {
    let far = Vector3::new(1.339_159_8e28_f32, 0.0, 0.0);
    let shapes: Vec<(&str, Box<dyn Sdf<f32, 3>>)> = vec![
        ("cone", Box::new(Cone::new(66.363_281_25_f32, 0.257_812_5).unwrap())),
        ("capped cone", Box::new(narrowphase::sdf::CappedCone::new(1.0_f32, 1.0, 0.5).unwrap())),
        ("cylinder", Box::new(Cylinder::new(1.0_f32, 1.0).unwrap())),
        ("cuboid", Box::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap())),
        ("sphere", Box::new(Sphere::new(1.0_f32).unwrap())),
        ("capsule", Box::new(Capsule::new(1.0_f32, 1.0).unwrap())),
    ];
    let mut bad = vec![];
    for (name, s) in &shapes {
        let v = s.eval(&far);
        if !(v.value.is_finite() && v.value > 0.0 && v.gradient.iter().all(|g| g.is_finite())) {
            bad.push((*name, v.value, v.gradient));
        }
    }
    assert!(bad.is_empty(), "(shape, value, gradient) at {far:?}: {bad:?}");
}

/// The same input as warm collision queries: a thin cone at x = 1.57e11
/// inside a halfspace (first query: `Penetrating`, right); the cone then
/// moves by (−1.339e28, 66.3, −66.7), the motion declared exactly. Truth
/// (closed-form support along the halfspace's normal): after the move the
/// cone is 2.1e26 outside the halfspace, so neither the warm nor a cold
/// query may answer `Penetrating` (a cone SDF of 0 at the previous optimum
/// gives φ_AB = 0 there).
#[test]
fn warm_collision_cone_moved_1e28_out_of_halfspace_f32() {
    let cone = Cone::new(66.363_281_25_f32, 0.257_812_5).unwrap();
    let half = narrowphase::sdf::Halfspace::new(Vector3::new(-1.0_f32, 0.000_476_792_3, 63.246_093_75), 63.246_093_75)
        .unwrap();
    let tb = Translation3::new(66.363_281_25_f32, 66.257_812_5, 66.257_812_5);
    let b = Placed::new(half, Pose::from_parts(tb, Default::default()));
    let ta = Vector3::new(156_858_284_923.482_33_f64 as f32, 66.257_812_5, 66.257_812_5);
    let a = Placed::new(cone, Pose::from_parts(Translation3::from(ta), Default::default()));
    let mut method = EllipsoidMethod::<f32>::collision();
    method.budget.max_iterations = 0;
    let mut warm = EllipsoidWarmStart::default();
    let first = method.solve(&a, &b, &mut warm);
    assert!(matches!(first, EllipsoidMethodOutcome::Penetrating(_)), "{first:?}");
    let ta2 = ta + Vector3::new(-1.339_159_842_497_502_3e28_f64 as f32, 66.320_312_5, -66.687_5);
    let real = (ta2.map(f64::from) - ta.map(f64::from)).norm();
    let a2 = Placed::new(cone, Pose::from_parts(Translation3::from(ta2), Default::default()));
    // After the move the cone is far outside the halfspace.
    let n = b.shape.normal().map(f64::from);
    let lowest = a2.support(&(-b.shape.normal())).coords.map(f64::from);
    let gap = n.dot(&lowest) - (63.246_093_75 + n.dot(&tb.vector.map(f64::from)));
    assert!(gap > 1e26, "gap {gap}");
    warm.moved((real * (1.0 + 16.0 * f64::from(f32::EPSILON))) as f32);
    let second = method.solve(&a2, &b, &mut warm);
    assert!(!matches!(second, EllipsoidMethodOutcome::Penetrating(_)), "2.1e26 apart, warm query: {second:?}");
    let cold = method.solve(&a2, &b, &mut EllipsoidWarmStart::default());
    assert!(!matches!(cold, EllipsoidMethodOutcome::Penetrating(_)), "2.1e26 apart, cold query: {cold:?}");
}

/// `f64-halfspace-subnormal-normal-not-unit-lower-above-distance`:
/// `Halfspace::new` promises a unit normal, and the halfspace SDF is `Exact`
/// only with one. For a subnormal `v`, `v / norm(v)` divides by a subnormal
/// norm with ~13 significant bits (1.9e-5 off unit length here), and the
/// ellipsoid method's certified lower bound then exceeds the true
/// half-distance; `math::normalize` scales by `max|vᵢ|` first. Truth: `|n|`
/// within 4ε of 1, in f64 and f32.
#[test]
fn halfspace_normal_from_a_subnormal_vector_is_unit() {
    let h = narrowphase::sdf::Halfspace::new(Vector3::new(9.654e-321_f64, 2.277e-320, 0.0), -58.230_468_75).unwrap();
    let err = (h.normal().norm() - 1.0).abs();
    assert!(err <= 4.0 * f64::EPSILON, "|n| − 1 = {err:e} for {:?}", h.normal());
    let n = narrowphase::math::normalize(&Vector3::new(1.0e-40_f32, 3.0e-41, 0.0));
    if let Some(n) = n {
        assert!((n.norm() - 1.0).abs() <= 4.0 * f32::EPSILON, "f32: {n:?}");
    }
}

/// `crash-9b11c90667768c7c9107eb7831b370967837f83a`: f32, a cone (66 × 66)
/// and a ball ~21 apart, with an `InitialRegion` halfspace for the cone
/// whose offset the harness takes from `support` along (−1.3e28, 0, 0). A
/// disc rim support computing `x² + y²` unscaled overflows there and returns
/// the disc's centre, 66 inside the true support point; the "supporting"
/// halfspace then cuts the cone, and the ellipsoid method certifies
/// φ* ≥ 25.7 where the truth is 10.5. Truth: the support point along `k·d`
/// is the one along `d` for every primitive, for `k` from 1e-30 to 1e30 in
/// f32 (and 1e-300..1e300 in f64).
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
