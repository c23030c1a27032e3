//! Findings of the SDF family II fuzz targets (`fuzz/fuzz_targets/
//! grid_sampling.rs`, `gradient_contacts.rs`, `particle_projection.rs`),
//! rebuilt by hand with closed-form ground truth. The inputs are kept in
//! `fuzz/regressions/<target>/`. A kernel bug still open is
//! `#[ignore = "kernel bug: <file>: <what>"]`.

use nalgebra::Vector3;
use narrowphase::sdf::grid::{fill_first_order, FirstOrderGrid, GridError, GridLayout};
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
    use narrowphase::sdf::particles::iterate_projection;
    use narrowphase::sdf::{BoxN, CappedCone, Halfspace, Transformed, Union};
    use narrowphase::shape::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, Placed, Pose, Rounded, Sphere};
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
