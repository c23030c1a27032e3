//! `fuzz/regressions/grid_sampling/`: sampled SDF grids (`sdf::grid`) and
//! the SDFs they sample, at subnormal and huge values and spacings. Truth:
//! closed-form SDF values, the stored values at exact sample points, and
//! the closed-form trilinear interpolant.

use nalgebra::Vector3;
use narrowphase::error::GridError;
use narrowphase::sdf::grid::{fill_first_order, FirstOrderGrid, GridLayout};
use narrowphase::sdf::{Sdf, Torus};

/// `f64-torus-subnormal-axis-offset-infinite-gradient`: a torus (R = 112.1,
/// r = 0.79) at a point a subnormal distance (1e-309) from its axis. Closed
/// form: every circle point is nearest, at distance `√(R² + z²)`, so the
/// value is `√(R² + z²) − r`; the gradient is a unit vector (or zero where
/// the direction is not unique), never infinite or NaN. Guards the
/// quotient `q.x / d / ρ` of `Torus::eval`, which overflows to ∞ for a
/// subnormal ρ (then 0·∞ = NaN components, and `fill_first_order` refuses
/// a grid around the torus).
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

/// `f64-first-order-huge-finite-values-nan-at-sample`: a first-order grid
/// whose stored values are finite but one is −8.99e307. The module docs
/// promise "a NaN point gives a NaN value; any other point a finite or +∞
/// value", and a first-order grid reproduces its stored value at a sample
/// point (Eq. 9–12: the expansion at its own sample is `f(xᵢ)`), but the
/// interpolation's products overflow to NaN at such values. Truth: a grid
/// refuses values beyond the kernel's extent `sqrt(MAX)/1e3`
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

/// `f32-first-order-spacing-4.5e24-nan`: the same class in f32 with moderate
/// values but a spacing of 4.5e24 (a finite far corner). Truth: coordinates
/// beyond the kernel's extent (`sqrt(MAX)/1e3`, 1.8e16 in f32) are
/// `GridError::NonFiniteBounds`; the same grid with a spacing within it
/// evaluates finitely and reproduces its stored values at the samples.
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

/// `f64-rounded-sample-point-steep-raw-values`: a zeroth-order grid, dims
/// 2 × 2 × 7, origin (−1.4860392705037317e-267, −1.48603973805866e-267,
/// 8.496448195736982e-275), spacing 8.313805000061395e-275 (accepted: above
/// `64·ε·1.49e-267`), raw values cycling (7.027, 35.027, 7.027, 1.49e-313).
/// The true sample `origin + h·(1, 1, 6)` is not representable: `point`
/// returns it rounded, and its x and y lie 7.1e-11 cells short of the
/// sample (the ulp of 1.49e-267 is 1.9e-283, 2.3e-9 of a cell). The
/// trilinear interpolant at that point is
/// `(1−δ)²·v₁₁ + δ(1−δ)·(v₀₁ + v₁₀) + δ²·v₀₀` = 7.1e-11·(7.027 + 35.027)
/// = 2.99e-9, not the stored 1.49e-313: raw values that jump by 28 across a
/// cell of 8.3e-275 are no SDF (for a 1-Lipschitz field the same offset
/// costs 1e-283), so a tolerance of `64·ε·(|v| + max|v|)` = 5e-13 at a
/// sample point must also allow the coordinate rounding times the range of
/// the values. Truth: the closed-form trilinear interpolant at the point's
/// exact cell coordinates (`p − origin` and `(p − origin) − h` are exact by
/// Sterbenz).
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
    // a value-only tolerance `64·ε·(|v| + max|v|)`, within that tolerance
    // plus the coordinate rounding (≤ 4ε·(max|coordinate|/h + n) cells per
    // axis) times the range of the values.
    let stored = v(1, 1, 6);
    assert!((got - 2.988e-9).abs() < 1e-12, "{got:e}");
    let value_tol = 64.0 * f64::EPSILON * (stored.abs() + 8967.0 / 256.0);
    assert!((got - stored).abs() > value_tol);
    let cells_off = 4.0 * f64::EPSILON * (1.486_04e-267 / h + 7.0);
    assert!((got - stored).abs() <= value_tol + 3.0 * cells_off * (8967.0 / 256.0 - stored));
    // A sample point whose coordinates are exact is reproduced exactly.
    assert_eq!(grid.eval(&layout.point(0, 0, 0).unwrap()).value, v(0, 0, 0));
}

/// `f64-subnormal-constant-values-rounded-by-one-subnormal` (the oracle's
/// mistake): a zeroth-order grid, dims 18 × 18 × 7, the origin and spacing
/// of the case above, every stored value 2.1729236908373e-311 (subnormal).
/// The interpolant of a constant field is the constant, but each of the
/// interpolation's products and sums of subnormals rounds to a multiple of
/// the smallest subnormal 2⁻¹⁰⁷⁴ = 4.9e-324: at the sample (1, 1, 6) the
/// grid answered one such step off. A relative tolerance `64·ε·(|v| +
/// max|v|)` underflows to 0 there; the rounding is absolute. Truth: the
/// stored constant, within 16 smallest subnormals (a dozen roundings).
#[test]
fn zeroth_order_grid_of_subnormal_values_is_within_subnormal_rounding() {
    use narrowphase::sdf::grid::Grid;
    let origin = Vector3::new(-1.486_039_270_503_731_7e-267_f64, -1.486_039_738_058_66e-267, 8.496_448_195_699_04e-275);
    let h = 8.313_805_000_061_395e-275;
    let layout = GridLayout::new([18, 18, 7], origin, h).unwrap();
    let stored = 2.172_923_690_837_3e-311_f64;
    assert!(stored < f64::MIN_POSITIVE, "subnormal");
    let values = vec![stored; layout.samples()];
    let grid = Grid::new(layout, &values[..]).unwrap();
    let smallest = f64::MIN_POSITIVE * f64::EPSILON;
    assert_eq!(smallest, f64::from_bits(1));
    assert_eq!(64.0 * f64::EPSILON * (2.0 * stored), 0.0, "the relative tolerance underflows");
    for (i, j, k) in [(0, 0, 0), (1, 1, 6), (9, 9, 3), (17, 17, 6)] {
        let got = grid.eval(&layout.point(i, j, k).unwrap()).value;
        assert!((got - stored).abs() <= 16.0 * smallest, "({i}, {j}, {k}): {got:e} vs {stored:e}");
    }
}
