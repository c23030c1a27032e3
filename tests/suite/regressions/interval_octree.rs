//! `fuzz/regressions/interval_octree/`: the interval octree
//! (`sdf::octree`) and the point and interval evaluations of the SDFs it
//! reads. Truth: closed-form SDF values at the corners of the cells it
//! keeps, and the near operand of a union.

use nalgebra::{Matrix3, Vector3};
use narrowphase::sdf::interval::Interval;
use narrowphase::sdf::{IntervalSdf, Sdf, SmoothUnion, Transformed};
use narrowphase::shape::Sphere;

/// `f64-halfspace-subnormal-scale-nan-in-inside-cell`: body A = halfspace
/// (normal ∝ (8.9e-159, 6.0e-154, 32.125), offset 6.0e-154) placed by
/// `Transformed` with the subnormal scale 3.981992e-317 at (−5.02, 0.22,
/// 0.78), united with a ball (radius 32.125 × scale 100.39 at (100.39,
/// 100.39, 100.39)); B = union of two capsules. The octree keeps the cell
/// [100.39, 1360.2] × [0, 1259.8] × [100.39, 2620.0] as inside both
/// (rightly: it lies inside the ball), and φ_A at its corner (100.39, 0,
/// 100.39) is −3124.66 by the closed form. Guards `Transformed`'s local
/// point `Qᵀ(x − t)/s`: with s = 4e-317 it overflows to (∞, −∞, ∞) at every
/// point farther than `s·MAX ≈ 7e-9` from `t`, the halfspace's `n·y` is
/// then ∞ − ∞ = NaN and `Union` propagates it. `Transformed::new` refuses a
/// scale outside `min_extent..=max_extent` (`ShapeError::BadAspect`, the
/// crate's rule for sizes), which keeps `(x − t)/s` finite for every `x`
/// and `t` within the extent. Truth below: closed forms of the halfspace
/// (`u·(x − t) − s·c`), the ball and the capsules.
#[test]
fn transformed_scale_below_the_extent_is_refused_and_accepted_ones_stay_finite() {
    use nalgebra::Matrix3;
    use narrowphase::error::ShapeError;
    use narrowphase::query::Stop;
    use narrowphase::sdf::octree::{self, CellClass, KeptCell, OctreeParams, OctreeVerdict};
    use narrowphase::sdf::{Halfspace, Transformed, Union};
    use narrowphase::shape::{max_extent, min_extent, Capsule, Sphere};
    let n = |i: i16| i as f64 / 256.0;
    let id = Matrix3::identity();
    let normal = Vector3::new(8.854_494_587_439_063e-159, 6.013_470_017_073_296e-154, n(8224));
    let offset = 6.014_521_290_176_741e-154;
    let th = Vector3::new(n(-1286), n(57), n(199));
    let half = Halfspace::new(normal, offset).unwrap();
    // The fuzz input's scale (and any below `min_extent` or above
    // `max_extent`) is refused.
    assert_eq!(Transformed::new(half, id, 3.981_992e-317, th).err(), Some(ShapeError::BadAspect));
    assert_eq!(Transformed::new(half, id, min_extent::<f64>() / 2.0, th).err(), Some(ShapeError::BadAspect));
    assert_eq!(Transformed::new(half, id, max_extent::<f64>() * 2.0, th).err(), Some(ShapeError::BadAspect));
    let h32 = Halfspace::new(Vector3::new(0.0_f32, 0.0, 1.0), 0.5).unwrap();
    assert_eq!(
        Transformed::new(h32, Matrix3::identity(), 1.0e-40_f32, Vector3::zeros()).err(),
        Some(ShapeError::BadAspect)
    );

    // The same bodies with the smallest accepted scale: the octree's inside
    // cells evaluate finite, at the closed-form values, inside both.
    let s = min_extent::<f64>();
    let unit = normal / n(8224); // |normal| = 32.125 exactly in f64 (the rest is below its ulp)
    let (ball_c, ball_r) = (Vector3::repeat(n(25700)), n(8224) * n(25700));
    let a = Union::new(
        Transformed::new(half, id, s, th).unwrap(),
        Transformed::new(Sphere::new(n(8224)).unwrap(), id, n(25700), ball_c).unwrap(),
    );
    let phi_a = |x: &Vector3<f64>| f64::min(unit.dot(&(x - th)) - s * offset, (x - ball_c).norm() - ball_r);
    // Capsule (axis z) of half-length h, radius r, scaled by σ, at t.
    let caps = [
        (n(25600), n(25700), n(8224), Vector3::new(n(10272), 0.0, n(8253))),
        (n(25700), n(25700), n(25700), Vector3::new(n(25700), 0.0, n(25700))),
    ];
    let cap = |k: usize| {
        let (h, r, sig, t) = caps[k];
        Transformed::new(Capsule::new(h, r).unwrap(), id, sig, t).unwrap()
    };
    let b = Union::new(cap(0), cap(1));
    let phi_b = |x: &Vector3<f64>| {
        caps.iter()
            .map(|&(h, r, sig, t)| {
                let d = x - t;
                Vector3::new(d.x, d.y, f64::max(d.z.abs() - sig * h, 0.0)).norm() - sig * r
            })
            .fold(f64::INFINITY, f64::min)
    };
    // The input's cell corner: inside the ball, so inside A.
    let p = Vector3::new(n(25700), 0.0, n(25700));
    let (va, vb) = (a.eval(&p).value, b.eval(&p).value);
    assert!((va - phi_a(&p)).abs() < 1e-9 && va < -3124.0, "φ_A {va} vs {}", phi_a(&p));
    assert!((vb - phi_b(&p)).abs() < 1e-9 && vb < 0.0, "φ_B {vb} vs {}", phi_b(&p));
    let params = OctreeParams { max_depth: 4, max_cells: 25700, stop: Stop::Converged };
    let mut stack = vec![Default::default(); octree::required_stack(3, 4)];
    let mut out = vec![KeptCell::<f64, 3>::default(); 100];
    let rep = octree::intersect(&a, &b, &params, &mut stack, &mut out).unwrap();
    assert_eq!(rep.verdict, OctreeVerdict::Penetrating, "{rep:?}");
    let mut checked = 0;
    for k in out.iter().take(rep.stored as usize).filter(|k| k.class == CellClass::InsideBoth) {
        let bx = k.cell.aabb;
        let pts = (0..8).map(|c| Vector3::from_fn(|i, _| if c >> i & 1 == 0 { bx.min[i] } else { bx.max[i] }));
        for x in pts.chain([bx.center()]) {
            let (va, vb) = (a.eval(&x).value, b.eval(&x).value);
            let (ta, tb) = (phi_a(&x), phi_b(&x));
            assert!((va - ta).abs() <= 1e-9 * ta.abs().max(1.0), "φ_A {va} vs {ta} at {x:?}");
            assert!((vb - tb).abs() <= 1e-9 * tb.abs().max(1.0), "φ_B {vb} vs {tb} at {x:?}");
            assert!(ta <= 0.0 && tb <= 0.0, "inside cell {bx:?}: {ta}, {tb} at {x:?}");
            checked += 1;
        }
    }
    assert!(checked > 0);

    // Every accepted extreme keeps the local point finite: the scale at both
    // limits, the translation at one corner of the extent, the point at the
    // opposite one (f64 and f32). Truth for the ball and the halfspace: the
    // closed forms in f64.
    fn extremes<R: narrowphase::math::Real>(hs: Halfspace<R, 3>) {
        let (lo, hi, e) = (min_extent::<R>(), max_extent::<R>(), max_extent::<R>());
        for s in [lo, R::ONE, hi] {
            for sign in [R::ONE, -R::ONE] {
                let t = Vector3::repeat(e * sign);
                let x = -t;
                let ball = Transformed::new(Sphere::new(R::ONE).unwrap(), Matrix3::identity(), s, t).unwrap();
                let plane = Transformed::new(hs, Matrix3::identity(), s, t).unwrap();
                let (vb, vp) = (ball.eval(&x).value.to_f64(), plane.eval(&x).value.to_f64());
                let d = (x - t).map(|c| c.to_f64());
                let (tb, tp) = (d.norm() - s.to_f64(), d.z - s.to_f64() * 0.5);
                let rel = 1e3 * R::EPSILON.to_f64();
                assert!((vb - tb).abs() <= rel * tb.abs(), "ball, scale {s:?}: {vb} vs {tb}");
                assert!((vp - tp).abs() <= rel * tp.abs(), "halfspace, scale {s:?}: {vp} vs {tp}");
            }
        }
    }
    extremes(Halfspace::new(Vector3::new(0.0_f64, 0.0, 1.0), 0.5).unwrap());
    extremes(Halfspace::new(Vector3::new(0.0_f32, 0.0, 1.0), 0.5).unwrap());
}

/// The smooth union's point formula `b + (a − b)·h` in f32 with `|b| ≫ |a|`
/// (one operand 1.4e34 away) loses `a` (0 instead of −970) unless it takes
/// the near operand as it is. Truth: the value of the near operand, inside
/// the union's interval.
#[test]
fn smooth_union_keeps_the_near_operand() {
    let at =
        |t: Vector3<f32>, r: f32| Transformed::new(Sphere::new(r).unwrap(), Matrix3::identity(), 32.125, t).unwrap();
    let near = at(Vector3::new(32.125, 42.125, 32.125), 32.0);
    let far = at(Vector3::new(32.125, 1.436e34, 32.84), 32.125);
    let s = SmoothUnion::new(near, far, 32.125).unwrap();
    let x = Vector3::zeros();
    let v = s.eval(&x).value;
    assert_eq!(v, near.eval(&x).value);
    let range = s.eval_interval(&[Interval::point(0.0); 3]);
    assert!(range.contains(v), "{v} ∉ {range:?}");
}
