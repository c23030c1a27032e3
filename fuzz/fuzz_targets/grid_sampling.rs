//! Sampled SDF grids (`sdf::grid::Grid`): arbitrary layouts (dims 0, 1, huge;
//! NaN/inf/huge origin and spacing) and arbitrary value slices (length
//! mismatches, NaN inside), and grids filled from analytic SDFs (sphere,
//! box, torus under an arbitrary similarity) evaluated at arbitrary points
//! (NaN, inf, huge included); f32 or f64 (F16 is skipped: the fuzz crate
//! builds without the `f16` feature).
//!
//! Oracles:
//! - no panic; `GridLayout::new`, `Grid::new`, `FirstOrderGrid::new` answer
//!   exactly the documented error, in the documented order (too few samples,
//!   too many, non-finite origin, bad spacing, non-finite bounds, spacing
//!   below `64·ε·max|coordinate|`; length mismatch, then the first
//!   non-finite value);
//! - grids built from an analytic exact SDF by `fill_zeroth` /
//!   `fill_first_order`: exact at the sample points (within rounding),
//!   error vs the analytic SDF inside the grid box within the bounds
//!   `tests/suite/sdf_grid.rs` derives (`h·√3/2` zeroth order, `1.5·h·√3/2`
//!   first order, plus rounding), sign right where the analytic value is
//!   beyond that bound, gradient length ≤ 1 (+rounding), positive outside
//!   the grid box (the body lies inside it), never NaN for a non-NaN point.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::Vector3;
use narrowphase::error::GridError;
use narrowphase::math::Real;
use narrowphase::sdf::grid::{fill_first_order, fill_zeroth, FirstOrderGrid, Grid, GridLayout, GridValue};
use narrowphase::sdf::{Sdf, SdfAccuracy, Torus, Transformed};
use narrowphase::shape::{Cuboid, Sphere};

#[path = "shared/mod.rs"]
mod shared;
use shared::bodies::seed_num;
use shared::num::{nums, v3, Num};
use shared::seeds::{encode_enum, encode_struct, Rng};
use shared::sdf_bodies::{quat_rotation, seed_quat, seed_translation};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Dim {
    Small(u8),
    Huge(u64),
}

impl Dim {
    fn get(self) -> usize {
        match self {
            Dim::Small(n) => (n % 8) as usize,
            Dim::Huge(n) => n as usize,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct RawGrid {
    dims: [Dim; 3],
    origin: [Num; 3],
    spacing: Num,
    first_order: bool,
    /// Values (at most 2048 used); `extra` shortens or lengthens the slice
    /// relative to the layout's need.
    values: Vec<Num>,
    extra: i8,
}

#[derive(Arbitrary, Debug)]
enum PrimIn {
    Sphere(Num),
    Cuboid([Num; 3]),
    Torus(Num, Num),
}

#[derive(Arbitrary, Debug)]
struct Analytic {
    prim: PrimIn,
    quat: Option<[Num; 4]>,
    scale: Num,
    translation: [Num; 3],
    /// Cells across the body's box: 2–17 per axis.
    cells: u8,
    /// Margin around the body, in cells (0–3).
    margin: u8,
    queries: Vec<[Num; 3]>,
    /// Points at fractions of the grid box (`k/255`), slightly outside too.
    inside: Vec<[u8; 3]>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    f32: bool,
    raw: RawGrid,
    analytic: Analytic,
}

encode_enum!(Dim { Small(n), Huge(n) });
encode_struct!(RawGrid { dims, origin, spacing, first_order, values, extra });
encode_enum!(PrimIn { Sphere(r), Cuboid(h), Torus(big, small) });
encode_struct!(Analytic { prim, quat, scale, translation, cells, margin, queries, inside });
encode_struct!(Input { f32, raw, analytic });

/// Layouts from degenerate to huge with fitting, short and long value
/// slices (smooth, steep, non-finite), and every analytic body under
/// similarities, in both precisions.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(9);
    let mut out = Vec::new();
    for i in 0..300 {
        let odd = i % 5 == 4;
        let mut dim = || if odd && rng.below(3) == 0 { Dim::Huge(rng.next()) } else { Dim::Small(rng.range(0, 7) as u8) };
        let dims = [dim(), dim(), dim()];
        let origin = if odd { [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)] } else { nums([-1.0, 0.0, 2.5]) };
        let spacing = if odd { seed_num(&mut rng) } else { Num::of(rng.pick(&[0.125, 0.5, 1.0])) };
        let values = (0..rng.pick(&[0, 1, 8, 64])).map(|k| if odd { seed_num(&mut rng) } else { Num::of(k as f64 * 0.25 - 2.0) }).collect();
        let raw = RawGrid { dims, origin, spacing, first_order: i % 2 == 0, values, extra: rng.pick(&[0, 0, 0, -1, 1, 100, -128]) };
        let prim = match i % 3 {
            0 => PrimIn::Sphere(Num::of(rng.pick(&[0.5, 1.0, 3.0]))),
            1 => PrimIn::Cuboid(nums([1.0, 0.5, rng.pick(&[0.25, 2.0])])),
            _ => PrimIn::Torus(Num::of(1.0), Num::of(rng.pick(&[0.125, 0.5]))),
        };
        let analytic = Analytic {
            prim,
            quat: seed_quat(&mut rng),
            scale: if odd { seed_num(&mut rng) } else { Num::of(rng.pick(&[0.5, 1.0, 2.0])) },
            translation: seed_translation(&mut rng),
            cells: rng.range(0, 15) as u8,
            margin: rng.range(0, 3) as u8,
            queries: (0..rng.below(4)).map(|_| [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]).collect(),
            inside: (0..rng.below(16)).map(|_| [rng.next() as u8, rng.next() as u8, rng.next() as u8]).collect(),
        };
        out.push(Input { f32: i % 2 == 1, raw, analytic });
    }
    out
}

/// The documented error of `GridLayout::new`, recomputed independently.
fn expected_layout_error<R: Real>(dims: [usize; 3], origin: &Vector3<R>, h: R) -> Option<GridError> {
    if dims.iter().any(|&n| n < 2) {
        return Some(GridError::TooFewSamples);
    }
    let max = narrowphase::sdf::grid::MAX_SAMPLES_PER_AXIS;
    if dims.iter().any(|&n| n > max) {
        return Some(GridError::TooManySamples);
    }
    let prod = (dims[0] as u128) * (dims[1] as u128) * (dims[2] as u128);
    if prod > usize::MAX as u128 {
        return Some(GridError::TooManySamples);
    }
    if origin.iter().any(|c| !c.finite()) {
        return Some(GridError::NonFiniteOrigin);
    }
    if !(h > R::ZERO) || !h.finite() {
        return Some(GridError::BadSpacing);
    }
    let far: Vector3<R> = Vector3::from_fn(|i, _| origin[i] + h * R::lit((dims[i] - 1) as f64));
    if far.iter().any(|c| !c.finite()) {
        return Some(GridError::NonFiniteBounds);
    }
    let scale = origin.iter().chain(far.iter()).fold(R::ZERO, |m, c| if c.abs() > m { c.abs() } else { m });
    // The kernel's extent, `sqrt(MAX)/1e3` (documented; ≈1.8e16 in f32).
    if !(scale <= Real::sqrt(R::MAX) / R::lit(1.0e3)) {
        return Some(GridError::NonFiniteBounds);
    }
    if !(h > R::lit(64.0) * R::EPSILON * scale) {
        return Some(GridError::BadSpacing);
    }
    None
}

fn run_raw<R: Real + GridValue>(raw: &RawGrid) {
    let dims = raw.dims.map(Dim::get);
    let origin = v3::<R>(&raw.origin);
    let h = R::lit(raw.spacing.get());
    let result = GridLayout::new(dims, origin, h);
    let want = expected_layout_error(dims, &origin, h);
    match (&result, want) {
        (Err(e), Some(w)) => {
            // `far` is computed with the crate's own conversions; a corner
            // within one rounding of overflow or of the resolution limit may
            // fall either way.
            if *e != w {
                let borderline = matches!(
                    (e, w),
                    (GridError::NonFiniteBounds, GridError::BadSpacing)
                        | (GridError::BadSpacing, GridError::NonFiniteBounds)
                );
                assert!(borderline, "layout {dims:?} {origin:?} {h:?}: {e:?}, documented {w:?}");
            }
            return;
        }
        (Ok(_), None) => {}
        (r, w) => panic!("layout {dims:?} {origin:?} {h:?}: {r:?}, documented {w:?}"),
    }
    let Ok(layout) = result else { return };
    let need = if raw.first_order { layout.samples().checked_mul(4) } else { Some(layout.samples()) };
    let Some(need) = need else { return };
    // Build a slice of `need + extra` values when small enough.
    let len = need as i64 + raw.extra as i64;
    if !(0..=4096).contains(&len) {
        return;
    }
    let len = len as usize;
    let vals: Vec<R> = (0..len)
        .map(|i| if raw.values.is_empty() { R::ZERO } else { R::lit(raw.values[i % raw.values.len()].get()) })
        .collect();
    // `NonFiniteValue`: NaN, infinite, or beyond the kernel's extent
    // `sqrt(MAX)/1e3` (documented: the interpolation's products of larger
    // values overflow; the spacing's part of that rule is the layout's
    // extent rule above).
    let extent = Real::sqrt(R::MAX) / R::lit(1.0e3);
    let first_bad = vals.iter().position(|v| !(v.abs() <= extent));
    let expected = if len != need {
        Some(GridError::LengthMismatch { expected: need, found: len })
    } else {
        first_bad.map(|index| GridError::NonFiniteValue { index })
    };
    let probe = [origin, layout.bounds().center(), layout.bounds().max + Vector3::repeat(h)];
    if raw.first_order {
        let g = FirstOrderGrid::new(layout, &vals[..]);
        assert_eq!(g.as_ref().err().copied(), expected, "first-order grid over {len} values");
        if let Ok(g) = g {
            for p in probe {
                let s = g.eval(&p);
                assert!(!(s.value != s.value), "NaN at {p:?}");
            }
        }
    } else {
        let g = Grid::new(layout, &vals[..]);
        assert_eq!(g.as_ref().err().copied(), expected, "grid over {len} values");
        if let Ok(g) = g {
            for p in probe {
                let s = g.eval(&p);
                assert!(!(s.value != s.value), "NaN at {p:?}");
            }
            // Sample points are exact up to the rounding of their
            // coordinates: `point(i, j, k)` is `origin + h·i` rounded, up to
            // `2ε·scale` off the true sample (`scale` the largest |coordinate|),
            // and the cell coordinate `(x − origin)/h` adds `ε·i` more: the
            // point lies `δ ≤ 4ε·(scale/h + n)` cells off the sample per axis
            // (≤ 1/16 by the `BadSpacing` rule). Along each axis the
            // trilinear interpolant moves by at most `δ·(max − min)` of the
            // values. Arbitrary values are not Lipschitz (in
            // `regressions/grid_sampling/f64-rounded-sample-point-steep-raw-values`
            // they jump by 28 across a cell of 8.3e-275: δ = 7.1e-11 puts the
            // value 3.0e-9 off the stored one), so that term is part of the
            // tolerance. Subnormal values round to absolute steps of the
            // smallest subnormal (`MIN_POSITIVE·ε`) where a relative
            // tolerance underflows to zero
            // (`regressions/grid_sampling/f64-subnormal-constant-values-rounded-by-one-subnormal`):
            // the interpolation's dozen roundings may add 16 of them.
            let [nx, ny, nz] = layout.dims();
            let (vmax, vmin) = vals
                .iter()
                .fold((-R::MAX, R::MAX), |(hi, lo), &x| (if x > hi { x } else { hi }, if x < lo { x } else { lo }));
            let b = layout.bounds();
            let scale = b.min.iter().chain(b.max.iter()).fold(R::ZERO, |m, c| if c.abs() > m { c.abs() } else { m });
            let n_max = R::lit(nx.max(ny).max(nz) as f64);
            let cells_off = R::lit(4.0) * R::EPSILON * (scale / h + n_max);
            for (i, j, k) in [(0, 0, 0), (nx - 1, ny - 1, nz - 1), (nx / 2, ny / 2, nz / 2)] {
                let (Some(p), Some(ix)) = (layout.point(i, j, k), layout.index(i, j, k)) else {
                    panic!("sample ({i}, {j}, {k}) missing")
                };
                let v = g.eval(&p).value;
                let want = vals[ix];
                let tol = R::lit(64.0)
                    * R::EPSILON
                    * (want.abs() + vals.iter().fold(R::ZERO, |m, x| if x.abs() > m { x.abs() } else { m }))
                    + R::lit(3.0) * cells_off * (vmax - vmin)
                    + R::lit(16.0) * R::MIN_POSITIVE * R::EPSILON;
                assert!((v - want).abs() <= tol, "sample ({i},{j},{k}) {v:?} vs stored {want:?} (tolerance {tol:?})");
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Body<R: Real> {
    Sphere(Transformed<Sphere<R>, R, 3>),
    Cuboid(Transformed<Cuboid<R>, R, 3>),
    Torus(Transformed<Torus<R>, R, 3>),
}

impl<R: Real> Body<R> {
    fn sdf(&self) -> &dyn Sdf<R, 3> {
        match self {
            Body::Sphere(b) => b,
            Body::Cuboid(b) => b,
            Body::Torus(b) => b,
        }
    }
}

fn body<R: Real>(a: &Analytic) -> Option<Body<R>> {
    let q = quat_rotation::<R>(&a.quat)?;
    let (s, t) = (R::lit(a.scale.get()), v3::<R>(&a.translation));
    let r = |x: Num| R::lit(x.get());
    Some(match &a.prim {
        PrimIn::Sphere(rad) => Body::Sphere(Transformed::new(Sphere::new(r(*rad)).ok()?, q, s, t).ok()?),
        PrimIn::Cuboid(h) => Body::Cuboid(Transformed::new(Cuboid::new(v3(h)).ok()?, q, s, t).ok()?),
        PrimIn::Torus(b, m) => Body::Torus(Transformed::new(Torus::new(r(*b), r(*m)).ok()?, q, s, t).ok()?),
    })
}

fn run_analytic<R: Real + GridValue>(a: &Analytic) {
    let Some(b) = body::<R>(a) else { return };
    let sdf = b.sdf();
    if sdf.accuracy() != SdfAccuracy::Exact {
        return;
    }
    let bb = sdf.bounding_box();
    if !bb.is_finite() {
        return;
    }
    let e = bb.extent();
    let size = e.x.max(e.y).max(e.z);
    if !(size > R::ZERO) || !size.finite() {
        return;
    }
    let cells = R::lit((2 + a.cells % 16) as f64);
    let h = size / cells;
    let margin = R::lit((a.margin % 4) as f64) * h;
    let Ok(layout) = GridLayout::covering(&bb.inflated(margin), h) else { return };
    if layout.samples() > 20 * 20 * 20 {
        return;
    }
    let scale =
        layout
            .bounds()
            .min
            .iter()
            .chain(layout.bounds().max.iter())
            .fold(size, |m, c| if c.abs() > m { c.abs() } else { m });
    // Rounding of evaluation (the analytic SDF's own, the grid's
    // interpolation) at this scale.
    let round = R::lit(256.0) * R::EPSILON * scale;
    let mut zbuf = vec![R::ZERO; layout.samples()];
    let mut fbuf = vec![R::ZERO; 4 * layout.samples()];
    let (Ok(zg), Ok(fg)) = (fill_zeroth(sdf, &layout, &mut zbuf[..]), fill_first_order(sdf, &layout, &mut fbuf[..]))
    else {
        panic!("filling a finite exact SDF failed: {layout:?}");
    };
    let sqrt3_2 = R::lit(0.866_025_403_784_438_6);
    let z_bound = h * sqrt3_2 + round;
    let f_bound = R::lit(1.5) * h * sqrt3_2 + round;
    // Sample points.
    let [nx, ny, nz] = layout.dims();
    for (i, j, k) in [(0, 0, 0), (nx - 1, 0, nz - 1), (nx / 2, ny / 2, nz / 2), (nx - 1, ny - 1, nz - 1)] {
        let Some(p) = layout.point(i, j, k) else { panic!("sample ({i}, {j}, {k}) missing") };
        let f = sdf.eval(&p).value;
        for (name, v) in [("zeroth", zg.eval(&p).value), ("first", fg.eval(&p).value)] {
            assert!((v - f).abs() <= round, "{name} at sample {p:?}: {v:?} vs {f:?}");
        }
    }
    let bounds = layout.bounds();
    let ext = bounds.extent();
    for q in a.inside.iter().take(64) {
        // Fractions −1/16…17/16 of the box: inside and a little outside.
        let f = Vector3::new(q[0], q[1], q[2]).map(|c| R::lit(c as f64 / 255.0 * 1.125 - 0.0625));
        let p = bounds.min + ext.component_mul(&f);
        let truth = sdf.eval(&p).value;
        let inside_box = bounds.contains(&p);
        for (name, s, bound) in [("zeroth", zg.eval(&p), z_bound), ("first", fg.eval(&p), f_bound)] {
            assert!(s.value.finite(), "{name} not finite at {p:?}");
            let g = s.gradient.norm();
            assert!(g <= R::ONE + R::lit(1e-3), "{name} gradient length {g:?} at {p:?}");
            if inside_box {
                assert!(
                    (s.value - truth).abs() <= bound,
                    "{name} at {p:?}: {:?} vs {truth:?} (bound {bound:?})",
                    s.value
                );
                if truth.abs() > bound {
                    assert!(
                        (s.value > R::ZERO) == (truth > R::ZERO),
                        "{name} sign at {p:?}: {:?} vs {truth:?}",
                        s.value
                    );
                }
            } else {
                assert!(s.value > R::ZERO, "{name} not positive outside the box at {p:?}: {:?}", s.value);
            }
        }
    }
    for q in a.queries.iter().take(16) {
        let p = v3::<R>(q);
        for (name, s) in [("zeroth", zg.eval(&p)), ("first", fg.eval(&p))] {
            let nan_point = p.iter().any(|c| c != c);
            if !nan_point {
                assert!(!(s.value != s.value), "{name} NaN at {p:?}");
                if !bounds.contains(&p) {
                    assert!(s.value > R::ZERO, "{name} not positive outside at {p:?}: {:?}", s.value);
                }
                if s.value.finite() {
                    let g = s.gradient.norm();
                    assert!(!(g > R::ONE + R::lit(1e-3)), "{name} gradient {g:?} at {p:?}");
                }
            }
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f32 {
        run_raw::<f32>(&input.raw);
        run_analytic::<f32>(&input.analytic);
    } else {
        run_raw::<f64>(&input.raw);
        run_analytic::<f64>(&input.analytic);
    }
});
