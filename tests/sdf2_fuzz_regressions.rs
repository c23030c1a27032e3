//! Findings of the SDF family II fuzz targets (`fuzz/fuzz_targets/
//! grid_sampling.rs`, `gradient_contacts.rs`, `particle_projection.rs`,
//! `interval_octree.rs`), rebuilt by hand with closed-form ground truth. The inputs are kept in
//! `fuzz/regressions/<target>/`. A kernel bug still open is
//! `#[ignore = "kernel bug: <file>: <what>"]`.

use nalgebra::Vector3;
use narrowphase::error::GridError;
use narrowphase::sdf::grid::{fill_first_order, FirstOrderGrid, GridLayout};
use narrowphase::sdf::{Sdf, Torus};

/// `grid_sampling/f64-torus-subnormal-axis-offset-infinite-gradient`: a
/// torus (R = 112.1, r = 0.79) at a point a subnormal distance (1e-309)
/// from its axis. Closed form: the nearest circle point is at distance
/// `√(R² + z²)` (every circle point is), value `√(R² + z²) − r`; the
/// gradient is a unit vector (or zero where the direction is not unique),
/// never infinite or NaN. `Torus::eval` computes `q.x / d / ρ` and
/// multiplies by `x.x`, `x.y`: with a subnormal ρ the quotient overflows to
/// ∞, giving ∞ and NaN (0·∞) components, and `fill_first_order` then
/// refuses a grid around the torus.
#[test]
fn torus_gradient_is_finite_a_subnormal_distance_from_its_axis() {
    let (big, small, z) = (112.1_f64, 0.79, 48.7);
    let torus = Torus::new(big, small).unwrap();
    for x in [Vector3::new(0.0, 1.0e-309, z), Vector3::new(1.0e-309, 1.0e-309, z), Vector3::new(0.0, 0.0, z)] {
        let s = torus.eval(&x);
        let want = (big * big + z * z).sqrt() - small;
        assert!((s.value - want).abs() < 1e-12, "{:?} vs {want}", s.value);
        assert!(s.gradient.iter().all(|g| g.is_finite()), "gradient {:?} at {x:?}", s.gradient);
        assert!(s.gradient.norm() <= 1.0 + 1e-12, "gradient {:?}", s.gradient);
    }
    // f32: subnormal below ~1.2e-38.
    let t32 = Torus::new(112.1_f32, 0.79).unwrap();
    let s = t32.eval(&Vector3::new(0.0, 1.0e-40, 48.7));
    assert!(s.gradient.iter().all(|g| g.is_finite()), "f32 gradient {:?}", s.gradient);
    // The grid around it fills (the fuzz input's layout, torus at the sample
    // (25.265625, 0, ·) column: a subnormal distance from its axis).
    let layout = GridLayout::new(
        [3, 3, 2],
        Vector3::new(-72.19073486328125, -97.45635986328125, -48.728179931640625),
        97.45635986328125,
    )
    .unwrap();
    let placed = narrowphase::sdf::Transformed::new(
        Torus::new(28697.0 / 256.0, 203.0 / 256.0).unwrap(),
        nalgebra::Matrix3::identity(),
        221.0 / 256.0,
        Vector3::new(6468.0 / 256.0, 1.390_670_498_443_31e-309, 0.0),
    )
    .unwrap();
    let mut buf = vec![0.0_f64; 4 * layout.samples()];
    assert!(fill_first_order(&placed, &layout, &mut buf).is_ok());
}

/// `grid_sampling/f64-first-order-huge-finite-values-nan-at-sample`: a
/// first-order grid whose stored values are all finite (so
/// `FirstOrderGrid::new` accepts it, as documented) but one is −8.99e307.
/// The module docs promise "a NaN point gives a NaN value; any other point
/// a finite or +∞ value", and a first-order grid reproduces its stored value
/// at a sample point (Eq. 9–12: the expansion at its own sample is `f(xᵢ)`).
/// At the first sample (the grid's origin) the stored value is 7.02734375;
/// the evaluation answers NaN (the interpolation's products overflow).
///
/// Fixed: a grid refuses values beyond the kernel's extent `sqrt(MAX)/1e3`
/// (`GridError::NonFiniteValue`, as shapes refuse such sizes); within it
/// the evaluation is finite and exact at the samples.
#[test]
fn first_order_grid_with_huge_finite_values_is_not_nan() {
    let h = 1799.0 / 256.0; // 7.02734375
    let layout = GridLayout::new([2, 2, 7], Vector3::repeat(h), h).unwrap();
    let cycle = [h, h, 9217.0 / 256.0, h, -8.988_465_674_303_4e307, 0.0];
    let values: Vec<f64> = (0..4 * layout.samples()).map(|i| cycle[i % cycle.len()]).collect();
    assert!(matches!(FirstOrderGrid::new(layout, &values[..]), Err(GridError::NonFiniteValue { index: 4 })));
    let cycle = [h, h, 9217.0 / 256.0, h, -1.0e140, 0.0];
    let values: Vec<f64> = (0..4 * layout.samples()).map(|i| cycle[i % cycle.len()]).collect();
    let grid = FirstOrderGrid::new(layout, &values[..]).unwrap();
    for (i, j, k) in [(0, 0, 0), (1, 1, 6), (0, 1, 3)] {
        let p = layout.point(i, j, k).unwrap();
        let n = layout.index(i, j, k).unwrap();
        let stored = values[4 * n + 3];
        let v = grid.eval(&p).value;
        assert!(!v.is_nan(), "NaN at sample ({i}, {j}, {k})");
        assert!((v - stored).abs() <= 1e-9 * stored.abs().max(1.0), "{v} vs stored {stored} at ({i}, {j}, {k})");
    }
}

/// `grid_sampling/f32-first-order-spacing-4.5e24-nan`: the same class in
/// f32 with moderate values but a spacing of 4.5e24 (accepted by
/// `GridLayout::new`: finite far corner). At the first sample the stored
/// value is 69.27 (a sample point reproduces its value); the evaluation
/// answers NaN.
///
/// Fixed: coordinates beyond the kernel's extent (`sqrt(MAX)/1e3`, 1.8e16
/// in f32) are `GridError::NonFiniteBounds`; the same grid with a spacing
/// within it (and its one value beyond it rejected) evaluates finitely.
#[test]
fn first_order_grid_with_huge_spacing_is_not_nan_f32() {
    let n = |i: i16| i as f32 / 256.0;
    let origin = Vector3::new(n(25460), n(22616), n(17733));
    assert_eq!(GridLayout::new([2, 4, 4], origin, 4.533_471_8e24_f32), Err(GridError::NonFiniteBounds));
    let layout = GridLayout::new([2, 4, 4], origin, 4.533_471_8e12_f32).unwrap();
    let big = n(17733);
    let cycle = [
        big,
        big,
        big,
        big,
        big,
        n(1093),
        n(255),
        big,
        big,
        5.143_601_6e13,
        7.083_748_6e-304_f64 as f32,
        big,
        big,
        n(-187),
        0.0,
    ];
    let values: Vec<f32> = (0..4 * layout.samples()).map(|i| cycle[i % cycle.len()]).collect();
    let grid = FirstOrderGrid::new(layout, &values[..]).unwrap();
    for (i, j, k) in [(0, 0, 0), (1, 3, 3), (0, 2, 1)] {
        let p = layout.point(i, j, k).unwrap();
        let stored = values[4 * layout.index(i, j, k).unwrap() + 3];
        let v = grid.eval(&p).value;
        assert!(!v.is_nan(), "NaN at sample ({i}, {j}, {k})");
        assert!((v - stored).abs() <= 1e-3 * stored.abs().max(1.0), "{v} vs stored {stored} at ({i}, {j}, {k})");
    }
}

/// Every SDF of the crate at a point with a NaN coordinate: NaN in, NaN out
/// (the documented contract; the consumers — iterated projection, the
/// ellipsoid method, the gradient methods — refuse NaN values, but a finite
/// value at a NaN point is believed).
fn assert_nan_at_nan_points<S: Sdf<f64, 3>>(name: &str, s: &S) {
    for x in [
        Vector3::new(f64::NAN, 0.0, 0.0),
        Vector3::new(0.3, f64::NAN, -0.2),
        Vector3::new(0.1, 0.2, f64::NAN),
        Vector3::new(f64::NAN, f64::INFINITY, 0.0),
        Vector3::new(f64::NAN, f64::NAN, f64::NAN),
    ] {
        let v = s.eval(&x).value;
        assert!(v.is_nan(), "{name} at {x:?}: {v}");
    }
}

/// `particle_projection/f32-nan-point-inside-a-box-and-a-cylinder-122-apart`
/// (CI's smoke step): a box and a cylinder ~122 apart, a projection started
/// at (NaN, ∞, 0). The box SDF skipped a NaN coordinate (it fails both
/// comparisons of the per-axis loop) and answered "inside"; through a pose,
/// 0·∞ = NaN made every local coordinate NaN and both SDFs answered −∞: a
/// hit at depth −∞ between bodies 122 apart. Truth: no value at a NaN point,
/// so no hit.
#[test]
fn a_nan_point_is_never_inside_a_box_or_a_cylinder() {
    use narrowphase::math::Pose;
    use narrowphase::sdf::particles::iterate_projection;
    use narrowphase::sdf::{BoxN, CappedCone, Halfspace, Transformed, Union};
    use narrowphase::shape::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, Placed, Rounded, Sphere};
    let s = |k: f32| k / 256.0;
    let pose = |x: f32, y: f32, z: f32| Pose::from_parts(nalgebra::Translation3::new(x, y, z), Default::default());
    let a =
        Placed::new(Cuboid::new(Vector3::new(s(514.0), s(4610.0), s(514.0))).unwrap(), pose(s(2056.0), 0.0, -128.0));
    let b = Placed::new(Cylinder::new(s(514.0), s(514.0)).unwrap(), pose(s(514.0), s(514.0), s(514.0)));
    let p = iterate_projection(&Vector3::new(f32::NAN, f32::INFINITY, 0.0), &a, &b, 0.0, 2);
    assert!(!p.hit, "{p:?}");

    let ball = Sphere::new(1.0).unwrap();
    let cube = Cuboid::new(Vector3::new(1.0, 0.5, 0.25)).unwrap();
    assert_nan_at_nan_points("sphere", &ball);
    assert_nan_at_nan_points("cuboid", &cube);
    assert_nan_at_nan_points("box", &BoxN::new(Vector3::new(1.0, 2.0, 3.0)).unwrap());
    assert_nan_at_nan_points("capsule", &Capsule::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("cylinder", &Cylinder::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("cone", &Cone::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("capped cone", &CappedCone::new(1.0, 0.5, 0.25).unwrap());
    assert_nan_at_nan_points("ellipsoid", &Ellipsoid::new(Vector3::new(1.0, 0.5, 0.25)).unwrap());
    assert_nan_at_nan_points("halfspace", &Halfspace::new(Vector3::new(0.0, 0.0, 1.0), 0.5).unwrap());
    assert_nan_at_nan_points("torus", &Torus::new(1.0, 0.25).unwrap());
    assert_nan_at_nan_points("rounded box", &Rounded::new(cube, Sphere::new(0.1).unwrap()));
    assert_nan_at_nan_points("placed box", &Placed::new(cube, Pose::identity()));
    let t = Transformed::new(cube, nalgebra::Matrix3::identity(), 2.0, Vector3::new(1.0, 0.0, 0.0)).unwrap();
    assert_nan_at_nan_points("transformed box", &t);
    assert_nan_at_nan_points("union", &Union::new(ball, cube));
    let sq = narrowphase::shape::Superquadric::new(Vector3::new(1.0, 0.5, 0.25), 0.5, 1.5).unwrap();
    assert_nan_at_nan_points("superquadric", &sq);
    let corners: Vec<nalgebra::Point3<f64>> =
        (0..8).map(|i| nalgebra::Point3::new((i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64 * 0.5)).collect();
    let hull = narrowphase::hull::quickhull(&corners).unwrap();
    assert_nan_at_nan_points("polytope", &hull.polytope().unwrap());
}

/// `interval_octree/f64-halfspace-subnormal-scale-nan-in-inside-cell`: body
/// A = halfspace (normal ∝ (8.9e-159, 6.0e-154, 32.125), offset 6.0e-154)
/// placed by `Transformed` with the subnormal scale 3.981992e-317 at
/// (−5.02, 0.22, 0.78), united with a ball (radius 32.125 × scale 100.39 at
/// (100.39, 100.39, 100.39)); B = union of two capsules. The octree proved
/// the cell [100.39, 1360.2] × [0, 1259.8] × [100.39, 2620.0] inside both
/// (rightly: it lies inside the ball), but φ_A was NaN at its corner
/// (100.39, 0, 100.39), where the closed form gives −3124.66. Mechanism:
/// `Transformed::eval` computes the local point `Qᵀ(x − t)/s`; with
/// s = 4e-317 it overflows to (∞, −∞, ∞) at every point farther than
/// `s·MAX ≈ 7e-9` from `t`, and the halfspace's `n·y` is then ∞ − ∞ = NaN;
/// `Union` propagates the NaN. The constructor accepted any positive finite
/// scale, against the crate's rule for sizes (within
/// `min_extent..=max_extent`).
///
/// Fixed: `Transformed::new` refuses a scale outside
/// `min_extent..=max_extent` (`ShapeError::BadAspect`), which keeps
/// `(x − t)/s` finite for every `x` and `t` within the extent. Truth below: closed forms of the halfspace
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
    // The crash point: inside the ball, so inside A.
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

/// `grid_sampling/f64-rounded-sample-point-steep-raw-values` (the oracle,
/// not the kernel): a zeroth-order grid, dims 2 × 2 × 7, origin
/// (−1.4860392705037317e-267, −1.48603973805866e-267, 8.496448195736982e-275),
/// spacing 8.313805000061395e-275 (accepted: above `64·ε·1.49e-267`), raw
/// values cycling (7.027, 35.027, 7.027, 1.49e-313). At `point(1, 1, 6)`
/// the grid answered 2.99e-9, the stored value being 1.49e-313; the fuzz
/// oracle allowed `64·ε·(|v| + max|v|)` = 5e-13. The true sample
/// `origin + h·(1, 1, 6)` is not representable: `point` returns it rounded,
/// and its x and y lie 7.1e-11 cells short of the sample (the ulp of
/// 1.49e-267 is 1.9e-283, 2.3e-9 of a cell). The trilinear interpolant at
/// that point is `(1−δ)²·v₁₁ + δ(1−δ)·(v₀₁ + v₁₀) + δ²·v₀₀`
/// = 7.1e-11·(7.027 + 35.027) = 2.99e-9 — the right value there: raw
/// values that jump by 28 across a cell of 8.3e-275 are no SDF (for a
/// 1-Lipschitz field the same offset costs 1e-283). Truth below: the
/// closed-form trilinear interpolant at the point's exact cell coordinates
/// (`p − origin` and `(p − origin) − h` are exact by Sterbenz).
#[test]
fn zeroth_order_grid_at_a_rounded_sample_point_is_the_interpolant_there() {
    use narrowphase::sdf::grid::Grid;
    let origin =
        Vector3::new(-1.486_039_270_503_731_7e-267_f64, -1.486_039_738_058_66e-267, 8.496_448_195_736_982e-275);
    let h = 8.313_805_000_061_395e-275;
    let layout = GridLayout::new([2, 2, 7], origin, h).unwrap();
    let cycle = [1799.0 / 256.0, 8967.0 / 256.0, 1799.0 / 256.0, 1.491_222_140_16e-313];
    let values: Vec<f64> = (0..layout.samples()).map(|i| cycle[i % cycle.len()]).collect();
    let grid = Grid::new(layout, &values[..]).unwrap();
    let p = layout.point(1, 1, 6).unwrap();
    // The point's offset from the true sample, in cells: x and y are short
    // by the rounding of `origin + h` (exact differences, one rounding in the
    // division); z (origin and sample within a factor 8) is off by ~1e-15.
    let dx = ((p.x - origin.x) - h) / h;
    let dy = ((p.y - origin.y) - h) / h;
    assert!(dx < -7.0e-11 && dx > -7.2e-11 && dy == dx, "{dx:e} {dy:e}");
    // Closed form in the cell x ∈ [0, 1], y ∈ [0, 1], z ∈ [5, 6]. Every
    // layer holds the same values (slice position i + 2j + 4k, a cycle of
    // 4), so z's own offset (fz = 1 up to 1e-15) changes nothing.
    let v = |i: usize, j: usize, k: usize| values[layout.index(i, j, k).unwrap()];
    let (fx, fy) = (1.0 + dx, 1.0 + dy);
    let bilinear = |k: usize| {
        (1.0 - fx) * (1.0 - fy) * v(0, 0, k)
            + fx * (1.0 - fy) * v(1, 0, k)
            + (1.0 - fx) * fy * v(0, 1, k)
            + fx * fy * v(1, 1, k)
    };
    let fz = ((p.z - origin.z) / h - 5.0).clamp(0.0, 1.0);
    let want = (1.0 - fz) * bilinear(5) + fz * bilinear(6);
    let got = grid.eval(&p).value;
    assert!((got - want).abs() <= 1e-15 * 35.03, "{got:e} vs the interpolant {want:e}");
    // ≈ 7.1e-11 × (7.027 + 35.027): not the stored 1.49e-313, and far above
    // the old oracle's tolerance, within the corrected one (the coordinate
    // rounding, ≤ 4ε·(max|coordinate|/h + n) cells per axis, times the
    // range of the values).
    let stored = v(1, 1, 6);
    assert!((got - 2.988e-9).abs() < 1e-12, "{got:e}");
    let old_tol = 64.0 * f64::EPSILON * (stored.abs() + 8967.0 / 256.0);
    assert!((got - stored).abs() > old_tol);
    let cells_off = 4.0 * f64::EPSILON * (1.486_04e-267 / h + 7.0);
    assert!((got - stored).abs() <= old_tol + 3.0 * cells_off * (8967.0 / 256.0 - stored));
    // A sample point whose coordinates are exact is reproduced exactly.
    assert_eq!(grid.eval(&layout.point(0, 0, 0).unwrap()).value, v(0, 0, 0));
}
