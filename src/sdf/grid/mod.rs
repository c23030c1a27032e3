//! Sampled SDF grids over borrowed slices (Krayer et al., *GPU-based
//! intersection with distance fields*, §3.2 and §4.3): no copy, no
//! allocation, the caller owns the samples (a `static` array on firmware, a
//! buffer filled by [`fill_zeroth`] / [`fill_first_order`] from an analytic
//! SDF on the host).
//!
//! - [`Grid`]: zeroth order — one value per sample, trilinear interpolation
//!   (error `O(h²)` where the SDF is smooth, `O(h)` at its kinks).
//! - [`FirstOrderGrid`]: first order — four values per sample, the paper's
//!   Eq. 9–12 (the "Dutch Taylor" form): trilinear interpolation of the
//!   per-sample expansions `f(xᵢ) + ½∇f(xᵢ)·(x − xᵢ)`, which reproduces every
//!   quadratic exactly (error `O(h³)` where the SDF is smooth). At equal
//!   memory (the zeroth-order grid with ∛4 times the samples per axis) it is
//!   the more accurate near a smooth curved surface, by 10–100× once the
//!   cells are well below the radius of curvature; near kinks (a box's edges
//!   and corners) the two are on par. See `tests/suite/sdf_grid.rs`.
//! - [`GridValue`]: the stored number type: `f32`, `f64`, and with the `f16`
//!   feature `F16` (IEEE binary16, the crate's own conversion), which halves
//!   the memory (§4.3: a first-order `F16` grid needs twice the bytes of a
//!   zeroth-order `f32` grid of the same resolution).
//!
//! # Layout
//! A [`GridLayout`] is `nx × ny × nz` samples (at least 2 per axis) at
//! `origin + spacing·(i, j, k)`. Sample `(i, j, k)` is element
//! `i + nx·(j + ny·k)` of the slice: **x fastest, then y, then z**. A
//! first-order grid stores four consecutive values per sample, in that order.
//!
//! # Robustness
//! Construction checks everything evaluation relies on (slice length, at
//! least 2 samples per axis, finite positive spacing, finite origin and
//! bounds, every stored value finite: an `O(n)` scan) and answers a typed
//! [`GridError`]. Evaluation then never panics and never reads out of bounds:
//! the cell is found in floating point, clamped before the cast to an index,
//! NaN handled before it, and every read goes through `get`. A NaN point
//! gives a NaN value; any other point a finite or `+∞` value (`+∞` only
//! where its distance to the grid overflows).
//!
//! # Outside the grid
//! Both grids are SDFs of all space. At a point `x` outside the grid box
//! `B`, with `c` the nearest point of `B` (the clamp of `x`) and `f̃` the
//! interpolated field, the value is
//!
//! `φ(x) = √(|x − c|² + max(f̃(c), 0)²)`.
//!
//! For a body inside `B`, every body point `y` sees `x` across the face of
//! `B` through `c` (`(x − c)·(y − c) ≤ 0`), so `|x − y|² ≥ |x − c|² + |c − y|²`:
//! with the exact field this is a lower bound of the true distance, tighter
//! than both `|x − c|` and `f(c) − |x − c|`. It is positive outside `B` (the
//! sign is right), equal to `f̃` on the boundary where `f̃ ≥ 0` (continuous),
//! and its gradient `((x − c) + max(f̃(c), 0)·∇_∥f̃(c))/φ` (`∇_∥`: the
//! components along the axes where `x` is not clamped) points away from `B`
//! and has length at most 1. The grid's interpolation error carries over.
//! Bodies that reach out of `B` get the right sign inside `B` only.

#[cfg(feature = "f16")]
mod half;

#[cfg(feature = "f16")]
#[cfg_attr(docsrs, doc(cfg(feature = "f16")))]
pub use half::F16;

use super::{Aabb, Ball, Sdf, SdfAccuracy, SdfSample};
use crate::error::GridError;
use crate::math::{finite_vec, is_nan, max, min, norm, normalize, Real, Vec3};
use nalgebra::Vector4;

/// A number type a grid stores: converted to the evaluation scalar `R` on
/// every read, from it when a builder fills a buffer.
///
/// Implemented for `f32`, `f64` and, with the `f16` feature, `F16`.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::GridValue;
/// assert_eq!(<f32 as GridValue>::from_real(0.1_f64), 0.1_f32);
/// assert_eq!(0.5_f32.to_real::<f64>(), 0.5);
/// ```
pub trait GridValue: Copy {
    /// The stored value as `R` (exact when `R` is at least as wide).
    fn to_real<R: Real>(self) -> R;
    /// `x` rounded to the storage type (to nearest).
    fn from_real<R: Real>(x: R) -> Self;
}

impl GridValue for f32 {
    #[inline]
    fn to_real<R: Real>(self) -> R {
        // Not through f64: that costs two soft-float calls on an f32-only FPU.
        nalgebra::convert::<f32, R>(self)
    }
    #[inline]
    fn from_real<R: Real>(x: R) -> Self {
        nalgebra::convert_unchecked::<R, f32>(x)
    }
}

impl GridValue for f64 {
    #[inline]
    fn to_real<R: Real>(self) -> R {
        R::lit(self)
    }
    #[inline]
    fn from_real<R: Real>(x: R) -> Self {
        x.to_f64()
    }
}

/// `nx × ny × nz` samples at `origin + spacing·(i, j, k)`: cubic cells,
/// at least 2 samples per axis, x fastest in memory (see the
/// [module docs](self)).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::GridLayout;
/// use narrowphase::error::GridError;
/// use nalgebra::Vector3;
/// let l = GridLayout::new([3, 5, 2], Vector3::new(-1.0_f32, -1.0, 0.0), 0.5).unwrap();
/// assert_eq!(l.samples(), 30);
/// assert_eq!(l.bounds().max, Vector3::new(0.0, 1.0, 0.5));
/// assert_eq!(l.point(2, 4, 1), Some(Vector3::new(0.0, 1.0, 0.5)));
/// assert_eq!(GridLayout::new([3, 1, 2], Vector3::zeros(), 0.5_f32), Err(GridError::TooFewSamples));
/// assert_eq!(GridLayout::new([3, 3, 3], Vector3::zeros(), f32::NAN), Err(GridError::BadSpacing));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLayout<R: Real> {
    dims: [usize; 3],
    origin: Vec3<R>,
    spacing: R,
    samples: usize,
    far: Vec3<R>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format> defmt::Format for GridLayout<R> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "GridLayout {{ dims: {}, origin: {}, spacing: {} }}",
            self.dims,
            self.origin.as_slice(),
            self.spacing
        )
    }
}

/// The most samples a [`GridLayout`] takes along one axis, 2³¹.
pub const MAX_SAMPLES_PER_AXIS: usize = 1 << 31;

/// `i` as `R` (exact up to 2²⁴ in `f32`, 2⁵³ in `f64`).
#[inline]
fn real_of<R: Real>(i: usize) -> R {
    // One conversion instruction (through f64 it costs two soft-float calls
    // on an f32-only FPU); the fallback is unreachable for f32 and f64.
    R::from_usize(i).unwrap_or(R::ZERO)
}

/// `t ∈ [0, 2³¹]` truncated to an integer (its floor). For single precision
/// directly (one instruction on an FPU), otherwise through f64; `as`
/// saturates.
#[inline(always)]
fn floor_index<R: Real>(t: R) -> usize {
    if R::EPSILON > R::lit(1e-10) {
        nalgebra::convert_unchecked::<R, f32>(t) as u32 as usize
    } else {
        t.to_f64() as u32 as usize
    }
}

impl<R: Real> GridLayout<R> {
    /// `dims` samples per axis from `origin`, `spacing` apart.
    ///
    /// # Errors
    ///
    /// In this order, the first failure decides:
    /// - [`GridError::TooFewSamples`] if a `dims` entry is below 2;
    /// - [`GridError::TooManySamples`] if one is above
    ///   [`MAX_SAMPLES_PER_AXIS`], or their product overflows `usize`;
    /// - [`GridError::NonFiniteOrigin`] if `origin` has a NaN or infinite
    ///   coordinate;
    /// - [`GridError::BadSpacing`] if `spacing` is NaN, infinite, zero or
    ///   negative;
    /// - [`GridError::NonFiniteBounds`] if the far corner overflows, or a
    ///   coordinate of the grid box lies beyond the kernel's extent
    ///   `sqrt(MAX)/1e3` ([`max_extent`](crate::shape::max_extent));
    /// - [`GridError::BadSpacing`] if `spacing` is too small to tell
    ///   neighbouring samples apart at these coordinates (not above
    ///   `64·ε·max|coordinate|`).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::grid::GridLayout;
    /// use narrowphase::error::GridError;
    /// use nalgebra::Vector3;
    /// let l = GridLayout::new([2, 3, 4], Vector3::new(0.0_f64, 0.0, 0.0), 0.5).unwrap();
    /// assert_eq!((l.samples(), l.bounds().max), (24, Vector3::new(0.5, 1.0, 1.5)));
    /// // 1e-6 apart at x = 1e4: f32 cannot tell the samples apart.
    /// let far = Vector3::new(1.0e4_f32, 0.0, 0.0);
    /// assert_eq!(GridLayout::new([4, 4, 4], far, 1.0e-6), Err(GridError::BadSpacing));
    /// ```
    pub fn new(dims: [usize; 3], origin: Vec3<R>, spacing: R) -> Result<Self, GridError> {
        if dims.iter().any(|&n| n < 2) {
            return Err(GridError::TooFewSamples);
        }
        if dims.iter().any(|&n| n > MAX_SAMPLES_PER_AXIS) {
            return Err(GridError::TooManySamples);
        }
        let samples = dims.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n)).ok_or(GridError::TooManySamples)?;
        if !finite_vec(&origin) {
            return Err(GridError::NonFiniteOrigin);
        }
        if !(spacing > R::ZERO) || !spacing.finite() {
            return Err(GridError::BadSpacing);
        }
        let far = Vec3::new(
            origin.x + spacing * real_of::<R>(dims[0].saturating_sub(1)),
            origin.y + spacing * real_of::<R>(dims[1].saturating_sub(1)),
            origin.z + spacing * real_of::<R>(dims[2].saturating_sub(1)),
        );
        if !finite_vec(&far) {
            return Err(GridError::NonFiniteBounds);
        }
        let scale = origin.iter().chain(far.iter()).fold(R::ZERO, |m, c| max(m, c.abs_()));
        // Within the kernel's extent (as shape sizes): beyond it the
        // evaluation's products overflow (for example f32 spacing 4.5e24).
        if !(scale <= crate::shape::max_extent::<R>()) {
            return Err(GridError::NonFiniteBounds);
        }
        if !(spacing > R::lit(64.0) * R::EPSILON * scale) {
            return Err(GridError::BadSpacing);
        }
        Ok(Self { dims, origin, spacing, samples, far })
    }

    /// The layout with cells of size `spacing` that covers `bounds`, centred
    /// on it: `⌈extent/spacing⌉ + 1` samples per axis (at least 2). Inflate
    /// `bounds` first to keep a margin around a body (the field's sign
    /// outside the grid is right only for bodies inside it).
    ///
    /// # Errors
    ///
    /// - [`GridError::NonFiniteOrigin`] if `bounds` has a NaN, infinite or
    ///   inverted bound;
    /// - [`GridError::BadSpacing`] if `spacing` is NaN, infinite, zero or
    ///   negative;
    /// - [`GridError::TooManySamples`] if an axis would need more than
    ///   [`MAX_SAMPLES_PER_AXIS`] samples;
    /// - then those of [`new`](Self::new) for the layout found (a product of
    ///   the samples that overflows `usize`, a box beyond the kernel's
    ///   extent, a spacing too small for the coordinates).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::Aabb;
    /// use narrowphase::sdf::grid::GridLayout;
    /// use nalgebra::Vector3;
    /// let b = Aabb::new(Vector3::new(-1.0_f64, -0.5, 0.0), Vector3::new(1.0, 0.5, 0.0)).unwrap();
    /// let l = GridLayout::covering(&b, 0.25).unwrap();
    /// assert_eq!(l.dims(), [9, 5, 2]);
    /// assert!(l.bounds().min.z <= 0.0 && l.bounds().max.z >= 0.0);
    /// ```
    pub fn covering(bounds: &Aabb<R, 3>, spacing: R) -> Result<Self, GridError> {
        if !bounds.is_finite() || bounds.check().is_err() {
            return Err(GridError::NonFiniteOrigin);
        }
        if !(spacing > R::ZERO) || !spacing.finite() {
            return Err(GridError::BadSpacing);
        }
        let extent = bounds.extent();
        let center = bounds.center();
        let mut dims = [2usize; 3];
        for (d, e) in dims.iter_mut().zip(extent.iter()) {
            let cells = libm::ceil(e.to_f64() / spacing.to_f64());
            if !(cells < MAX_SAMPLES_PER_AXIS as f64) {
                return Err(GridError::TooManySamples);
            }
            *d = core::cmp::max(cells as usize + 1, 2);
        }
        let half_span = |n: usize| spacing * real_of::<R>(n.saturating_sub(1)) * R::HALF;
        let origin =
            Vec3::new(center.x - half_span(dims[0]), center.y - half_span(dims[1]), center.z - half_span(dims[2]));
        Self::new(dims, origin, spacing)
    }

    /// Samples per axis.
    #[inline]
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }
    /// World position of sample `(0, 0, 0)`.
    #[inline]
    pub fn origin(&self) -> Vec3<R> {
        self.origin
    }
    /// Cell size `h`.
    #[inline]
    pub fn spacing(&self) -> R {
        self.spacing
    }
    /// `nx·ny·nz`.
    #[inline]
    pub fn samples(&self) -> usize {
        self.samples
    }
    /// The box from the first sample to the last.
    #[inline]
    pub fn bounds(&self) -> Aabb<R, 3> {
        Aabb { min: self.origin, max: self.far }
    }
    /// Slice position of sample `(i, j, k)`, `None` outside the grid.
    #[inline]
    pub fn index(&self, i: usize, j: usize, k: usize) -> Option<usize> {
        let [nx, ny, nz] = self.dims;
        (i < nx && j < ny && k < nz).then(|| i + nx * (j + ny * k))
    }
    /// World position of sample `(i, j, k)`, `None` outside the grid.
    #[inline]
    pub fn point(&self, i: usize, j: usize, k: usize) -> Option<Vec3<R>> {
        self.index(i, j, k)?;
        Some(self.origin + Vec3::new(real_of::<R>(i), real_of::<R>(j), real_of::<R>(k)) * self.spacing)
    }

    /// Calls `f(n, point)` for every sample in slice order (x fastest),
    /// stopping at the first error.
    fn for_each_sample(&self, mut f: impl FnMut(usize, Vec3<R>) -> Result<(), GridError>) -> Result<(), GridError> {
        let [nx, ny, nz] = self.dims;
        let mut n = 0;
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let p = Vec3::new(real_of::<R>(i), real_of::<R>(j), real_of::<R>(k));
                    f(n, self.origin + p * self.spacing)?;
                    n += 1;
                }
            }
        }
        Ok(())
    }

    /// The cell of a point of the closed grid box: the slice position of its
    /// lower corner and the position inside it, each coordinate in `[0, 1]`.
    /// The clamp happens in floating point before the cast, so any finite
    /// input gives an index inside the grid; `None` for NaN.
    #[inline]
    fn locate(&self, c: &Vec3<R>) -> Option<(usize, [R; 3])> {
        let mut cell = [0usize; 3];
        let mut frac = [R::ZERO; 3];
        let coords = [c.x - self.origin.x, c.y - self.origin.y, c.z - self.origin.z];
        for a in 0..3 {
            let n = self.dims[a];
            let t = coords[a] / self.spacing;
            if is_nan(t) {
                return None;
            }
            let t = min(max(t, R::ZERO), real_of::<R>(n.saturating_sub(1)));
            // t ≥ 0 and finite: the cast truncates, which is the floor; it
            // saturates, and the integer clamp keeps the last cell's index
            // (n ≤ 2³¹, so u32 holds every index: a cheaper cast than usize).
            let i = core::cmp::min(floor_index(t), n.saturating_sub(2));
            cell[a] = i;
            frac[a] = min(max(t - real_of::<R>(i), R::ZERO), R::ONE);
        }
        let [nx, ny, _] = self.dims;
        Some((cell[0] + nx * (cell[1] + ny * cell[2]), frac))
    }

    /// Offsets of the 8 corners of a cell from its lower corner, corner `q`
    /// having bit 0 = +x, bit 1 = +y, bit 2 = +z.
    #[inline]
    fn corner_offsets(&self) -> [usize; 8] {
        let (sy, sz) = (self.dims[0], self.dims[0] * self.dims[1]);
        [0, 1, sy, sy + 1, sz, sz + 1, sz + sy, sz + sy + 1]
    }
}

/// The trilinear weights of the 8 corners (corner bits as in
/// [`GridLayout::corner_offsets`]).
#[inline]
fn weights<R: Real>(f: &[R; 3]) -> [R; 8] {
    let [fx, fy, fz] = *f;
    let (gx, gy, gz) = (R::ONE - fx, R::ONE - fy, R::ONE - fz);
    [gx * gy * gz, fx * gy * gz, gx * fy * gz, fx * fy * gz, gx * gy * fz, fx * gy * fz, gx * fy * fz, fx * fy * fz]
}

/// `g`, scaled down to length 1 when longer.
#[inline]
fn clamp_unit<R: Real>(g: Vec3<R>) -> Vec3<R> {
    let n = norm(&g);
    if n > R::ONE {
        g / n
    } else {
        g
    }
}

/// Scans a slice for NaN, infinities and values beyond the kernel's extent
/// (`sqrt(MAX)/1e3`, as for shape sizes: the interpolation's products of
/// such values overflow — a stored 9e307 gives NaN).
fn check_values<R: Real, T: GridValue>(values: &[T]) -> Result<(), GridError> {
    let limit = crate::shape::max_extent::<R>();
    match values.iter().position(|v| !(v.to_real::<R>().abs_() <= limit)) {
        Some(index) => Err(GridError::NonFiniteValue { index }),
        None => Ok(()),
    }
}

/// A value whose every component is NaN: the answer at a NaN point.
#[inline]
fn nan_sample<R: Real>() -> SdfSample<R, 3> {
    let nan = R::lit(f64::NAN);
    SdfSample { value: nan, gradient: Vec3::repeat(nan) }
}

/// The field at any point from the field inside the box (see "Outside the
/// grid" in the module docs).
#[inline]
fn eval_anywhere<R: Real>(
    layout: &GridLayout<R>,
    x: &Vec3<R>,
    inside: impl Fn(&Vec3<R>) -> Option<SdfSample<R, 3>>,
) -> SdfSample<R, 3> {
    if x.iter().any(|&c| is_nan(c)) {
        return nan_sample();
    }
    let (lo, hi) = (layout.origin, layout.far);
    let c = Vec3::new(min(max(x.x, lo.x), hi.x), min(max(x.y, lo.y), hi.y), min(max(x.z, lo.z), hi.z));
    let Some(s) = inside(&c) else {
        return nan_sample();
    };
    let d = x - c;
    if d == Vec3::zeros() {
        return s;
    }
    // Outside: φ = √(|x − c|² + max(f̃(c), 0)²), through the overflow-safe norm.
    let fp = max(s.value, R::ZERO);
    let phi = norm(&Vector4::new(d.x, d.y, d.z, fp));
    let along = Vec3::new(
        if d.x == R::ZERO { s.gradient.x } else { R::ZERO },
        if d.y == R::ZERO { s.gradient.y } else { R::ZERO },
        if d.z == R::ZERO { s.gradient.z } else { R::ZERO },
    );
    let gradient = if phi.finite() {
        // phi > 0 since d ≠ 0.
        along * (fp / phi) + d / phi
    } else {
        // A distance beyond the float range: the direction away from the box.
        let signs = d.map(|v| {
            if v.finite() {
                R::ZERO
            } else if v > R::ZERO {
                R::ONE
            } else {
                -R::ONE
            }
        });
        normalize(&d).or_else(|| normalize(&signs)).unwrap_or_else(Vec3::zeros)
    };
    SdfSample { value: phi, gradient: clamp_unit(gradient) }
}

/// A zeroth-order sampled SDF: one value per sample, trilinear
/// interpolation, over a borrowed slice (x fastest, see the
/// [module docs](self)).
///
/// The gradient is the gradient of the trilinear interpolant (piecewise
/// bilinear: across a cell face its tangential components are continuous,
/// the normal one jumps), scaled down to length 1 when longer. Outside the grid box, see the module docs.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::{fill_zeroth, Grid, GridLayout};
/// use narrowphase::sdf::{Aabb, Sdf, SdfAccuracy};
/// use narrowphase::shape::Sphere;
/// use nalgebra::Vector3;
///
/// let ball = Sphere::new(0.5_f32).unwrap();
/// let layout = GridLayout::new([17, 17, 17], Vector3::repeat(-1.0), 0.125).unwrap();
/// let mut buf = [0.0_f32; 17 * 17 * 17];
/// let grid = fill_zeroth(&ball, &layout, &mut buf).unwrap();
/// assert_eq!(grid.memory_bytes(), 17 * 17 * 17 * 4);
/// assert_eq!(grid.accuracy(), SdfAccuracy::Approximate);
/// let s = grid.eval(&Vector3::new(0.3, 0.2, 0.1));
/// let exact = ball.eval(&Vector3::new(0.3, 0.2, 0.1)).value;
/// assert!((s.value - exact).abs() < 0.01);
/// assert!(grid.eval(&Vector3::new(5.0, 0.0, 0.0)).value > 4.0); // outside the grid: still a distance
///
/// // A view over existing data is validated the same way.
/// let again = Grid::new(layout, &buf).unwrap();
/// assert_eq!(again.eval(&Vector3::zeros()).value, -0.5); // a sample point: exact
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grid<'a, R: Real, T: GridValue = R> {
    layout: GridLayout<R>,
    values: &'a [T],
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, T: GridValue> defmt::Format for Grid<'_, R, T> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Grid {{ layout: {}, values: {} }}", self.layout, self.values.len())
    }
}

impl<'a, R: Real, T: GridValue> Grid<'a, R, T> {
    /// A view of `values` (one per sample, x fastest), after checking its
    /// length and scanning every value (`O(n)`).
    ///
    /// # Errors
    ///
    /// - [`GridError::LengthMismatch`] if `values.len()` is not
    ///   [`layout.samples()`](GridLayout::samples);
    /// - [`GridError::NonFiniteValue`] with the first value that is NaN,
    ///   infinite or beyond the kernel's extent `sqrt(MAX)/1e3` of `R`
    ///   ([`max_extent`](crate::shape::max_extent)), where the
    ///   interpolation's products would overflow.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::grid::{Grid, GridLayout};
    /// use narrowphase::sdf::Sdf;
    /// use narrowphase::error::GridError;
    /// use nalgebra::Vector3;
    /// let layout = GridLayout::new([2, 2, 2], Vector3::zeros(), 1.0_f32).unwrap();
    /// // φ = x − 0.5: a plane, which trilinear interpolation reproduces.
    /// let values = [-0.5_f32, 0.5, -0.5, 0.5, -0.5, 0.5, -0.5, 0.5];
    /// let grid = Grid::new(layout, &values).unwrap();
    /// assert!((grid.eval(&Vector3::new(0.75, 0.5, 0.5)).value - 0.25).abs() < 1e-6);
    /// let mut bad = values;
    /// bad[3] = f32::NAN;
    /// assert_eq!(Grid::new(layout, &bad).err(), Some(GridError::NonFiniteValue { index: 3 }));
    /// assert_eq!(Grid::new(layout, &values[..7]).err(), Some(GridError::LengthMismatch { expected: 8, found: 7 }));
    /// ```
    pub fn new(layout: GridLayout<R>, values: &'a [T]) -> Result<Self, GridError> {
        if values.len() != layout.samples {
            return Err(GridError::LengthMismatch { expected: layout.samples, found: values.len() });
        }
        check_values::<R, T>(values)?;
        Ok(Self { layout, values })
    }
    /// The layout.
    #[inline]
    pub fn layout(&self) -> &GridLayout<R> {
        &self.layout
    }
    /// The stored values.
    #[inline]
    pub fn values(&self) -> &'a [T] {
        self.values
    }
    /// Bytes of sample storage: `values().len() × size_of::<T>()`.
    #[inline]
    pub fn memory_bytes(&self) -> usize {
        core::mem::size_of_val(self.values)
    }
    /// The stored value of sample `(i, j, k)`, `None` outside the grid.
    #[inline]
    pub fn sample(&self, i: usize, j: usize, k: usize) -> Option<R> {
        Some(self.values.get(self.layout.index(i, j, k)?)?.to_real())
    }

    /// Value and gradient of the interpolant at a point of the grid box.
    #[inline]
    fn eval_inside(&self, c: &Vec3<R>) -> Option<SdfSample<R, 3>> {
        let (base, f) = self.layout.locate(c)?;
        let offsets = self.layout.corner_offsets();
        let mut v = [R::ZERO; 8];
        for (slot, off) in v.iter_mut().zip(offsets.iter()) {
            *slot = self.values.get(base + off)?.to_real();
        }
        let w = weights(&f);
        let value = w.iter().zip(v.iter()).fold(R::ZERO, |acc, (&wi, &vi)| acc + wi * vi);
        // d/dfx of the trilinear form: the bilinear (y, z) blend of the
        // x-differences; likewise for y and z.
        let [fx, fy, fz] = f;
        let (gx, gy, gz) = (R::ONE - fx, R::ONE - fy, R::ONE - fz);
        let dx = (v[1] - v[0]) * gy * gz + (v[3] - v[2]) * fy * gz + (v[5] - v[4]) * gy * fz + (v[7] - v[6]) * fy * fz;
        let dy = (v[2] - v[0]) * gx * gz + (v[3] - v[1]) * fx * gz + (v[6] - v[4]) * gx * fz + (v[7] - v[5]) * fx * fz;
        let dz = (v[4] - v[0]) * gx * gy + (v[5] - v[1]) * fx * gy + (v[6] - v[2]) * gx * fy + (v[7] - v[3]) * fx * fy;
        let gradient = clamp_unit(Vec3::new(dx, dy, dz) / self.layout.spacing);
        Some(SdfSample { value, gradient })
    }
}

impl<R: Real, T: GridValue> Sdf<R, 3> for Grid<'_, R, T> {
    /// Trilinear interpolation inside the grid box; outside, see the module
    /// docs. NaN point: NaN value and gradient.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        eval_anywhere(&self.layout, x, |c| self.eval_inside(c))
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Approximate
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        ball_around(&self.layout)
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        self.layout.bounds()
    }
}

/// The ball around the grid box (its half diagonal, rounded up).
fn ball_around<R: Real>(layout: &GridLayout<R>) -> Ball<R, 3> {
    let b = layout.bounds();
    let center = b.center();
    let half = (b.max - center).zip_map(&(center - b.min), max);
    let radius = norm(&half) * (R::ONE + R::lit(4.0) * R::EPSILON);
    Ball { center, radius }
}

/// A first-order sampled SDF (Krayer et al. Eq. 9–12): four values per
/// sample over a borrowed slice, `[aₓ, a_y, a_z, b]` at slice positions
/// `4n..4n + 4` for sample `n` (x fastest, see the [module docs](self)), with
/// `a = ½∇f(xᵢ)` and `b = f(xᵢ)`.
///
/// # The frame of Eq. 10–11
/// Eq. 10 stores `b = f(xᵢ) − ½∇f(xᵢ)·xᵢ` and Eq. 11 evaluates
/// `f(x) ≈ x·ā + b̄` from the trilinearly interpolated `(ā, b̄)`; both hold
/// in any frame. In world coordinates `b` grows with the distance to the
/// world origin and the final sum cancels large terms, which ruins `F16`
/// storage (and loses bits in `f32`). Here `xᵢ` is taken in **the sample's
/// own frame** when stored (`xᵢ = 0`, so `b = f(xᵢ)`) and in **the cell's
/// frame** (origin at its lower corner) when evaluated: the corner values
/// `bᵢ − aᵢ·oᵢ` (`oᵢ` the corner's offset, at most `h√3`) are formed on
/// the fly and Eq. 11 is applied to `x` relative to the corner. Every term is
/// then of the size of `f` and `h`, whatever the grid's position, and the
/// result is the same interpolant
/// `Σ wᵢ (f(xᵢ) + ½∇f(xᵢ)·(x − xᵢ))`, which reproduces quadratics exactly.
///
/// # Gradient
/// `2ā`, the trilinear interpolation of the sampled gradients (continuous
/// across cells, exact for quadratic fields like the value), scaled down to
/// length 1 when longer. Outside the grid box, see the module docs.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::{fill_first_order, GridLayout};
/// use narrowphase::sdf::Sdf;
/// use narrowphase::shape::Sphere;
/// use nalgebra::Vector3;
///
/// let ball = Sphere::new(0.5_f32).unwrap();
/// let layout = GridLayout::new([9, 9, 9], Vector3::repeat(-1.0), 0.25).unwrap();
/// let mut buf = [0.0_f32; 4 * 9 * 9 * 9];
/// let grid = fill_first_order(&ball, &layout, &mut buf).unwrap();
/// assert_eq!(grid.memory_bytes(), 4 * 9 * 9 * 9 * 4);
/// let p = Vector3::new(0.3, 0.2, 0.1);
/// let s = grid.eval(&p);
/// assert!((s.value - ball.eval(&p).value).abs() < 0.01); // 8 samples per unit length
/// assert!((s.gradient - ball.eval(&p).gradient).norm() < 0.1);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FirstOrderGrid<'a, R: Real, T: GridValue = R> {
    layout: GridLayout<R>,
    values: &'a [T],
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, T: GridValue> defmt::Format for FirstOrderGrid<'_, R, T> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "FirstOrderGrid {{ layout: {}, values: {} }}", self.layout, self.values.len())
    }
}

/// `4 × samples`, or [`GridError::TooManySamples`].
fn first_order_len<R: Real>(layout: &GridLayout<R>) -> Result<usize, GridError> {
    layout.samples.checked_mul(4).ok_or(GridError::TooManySamples)
}

impl<'a, R: Real, T: GridValue> FirstOrderGrid<'a, R, T> {
    /// A view of `values` (`[½∇f, f]` per sample, x fastest), after checking
    /// its length and scanning every value (`O(n)`).
    ///
    /// # Errors
    ///
    /// - [`GridError::TooManySamples`] if `4 × samples` overflows `usize`;
    /// - [`GridError::LengthMismatch`] if `values.len()` is not
    ///   `4 × samples`;
    /// - [`GridError::NonFiniteValue`] with the first value that is NaN,
    ///   infinite or beyond the kernel's extent `sqrt(MAX)/1e3` of `R`
    ///   ([`max_extent`](crate::shape::max_extent)).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::grid::{FirstOrderGrid, GridLayout};
    /// use narrowphase::sdf::Sdf;
    /// use nalgebra::Vector3;
    /// let layout = GridLayout::new([2, 2, 2], Vector3::zeros(), 1.0_f64).unwrap();
    /// // φ = z − 0.25 at every sample: ½∇φ = (0, 0, ½), φ = k − 0.25 on layer k.
    /// let mut values = [0.0_f64; 32];
    /// for (n, v) in values.chunks_exact_mut(4).enumerate() {
    ///     v.copy_from_slice(&[0.0, 0.0, 0.5, (n / 4) as f64 - 0.25]);
    /// }
    /// let grid = FirstOrderGrid::new(layout, &values).unwrap();
    /// let s = grid.eval(&Vector3::new(0.3, 0.6, 0.5));
    /// assert!((s.value - 0.25).abs() < 1e-12 && (s.gradient - Vector3::z()).norm() < 1e-12);
    /// assert!(FirstOrderGrid::new(layout, &values[..8]).is_err());
    /// ```
    pub fn new(layout: GridLayout<R>, values: &'a [T]) -> Result<Self, GridError> {
        let expected = first_order_len(&layout)?;
        if values.len() != expected {
            return Err(GridError::LengthMismatch { expected, found: values.len() });
        }
        check_values::<R, T>(values)?;
        Ok(Self { layout, values })
    }
    /// A view of values that [`new`](Self::new) accepted before (a copy of
    /// a validated grid's): no second `O(n)` scan. Every read stays
    /// bounds-checked, so wrong data gives wrong values, never a panic.
    #[cfg(feature = "gpu")]
    pub(crate) fn from_validated(layout: GridLayout<R>, values: &'a [T]) -> Self {
        Self { layout, values }
    }
    /// The layout.
    #[inline]
    pub fn layout(&self) -> &GridLayout<R> {
        &self.layout
    }
    /// The stored values.
    #[inline]
    pub fn values(&self) -> &'a [T] {
        self.values
    }
    /// Bytes of sample storage: `values().len() × size_of::<T>()`.
    #[inline]
    pub fn memory_bytes(&self) -> usize {
        core::mem::size_of_val(self.values)
    }
    /// The stored `(½∇f, f)` of sample `(i, j, k)`, `None` outside the grid.
    #[inline]
    pub fn sample(&self, i: usize, j: usize, k: usize) -> Option<(Vec3<R>, R)> {
        let n = self.layout.index(i, j, k)?;
        let v = self.values.get(4 * n..4 * n + 4)?;
        match v {
            [ax, ay, az, b] => Some((Vec3::new(ax.to_real(), ay.to_real(), az.to_real()), b.to_real())),
            _ => None,
        }
    }

    /// Value and gradient of the interpolant at a point of the grid box.
    #[inline]
    fn eval_inside(&self, c: &Vec3<R>) -> Option<SdfSample<R, 3>> {
        let (base, f) = self.layout.locate(c)?;
        let offsets = self.layout.corner_offsets();
        let w = weights(&f);
        let h = self.layout.spacing;
        // x − xᵢ in cell units for each corner: f − (corner bit), per axis.
        let [x0, y0, z0] = f;
        let (x1, y1, z1) = (x0 - R::ONE, y0 - R::ONE, z0 - R::ONE);
        let rel = [
            [x0, y0, z0],
            [x1, y0, z0],
            [x0, y1, z0],
            [x1, y1, z0],
            [x0, y0, z1],
            [x1, y0, z1],
            [x0, y1, z1],
            [x1, y1, z1],
        ];
        let mut value = R::ZERO;
        let mut a_bar = Vec3::zeros();
        for ((off, &wq), [ux, uy, uz]) in offsets.iter().zip(w.iter()).zip(rel) {
            let n = base + off;
            let [ax, ay, az, b] = match self.values.get(4 * n..4 * n + 4)? {
                [ax, ay, az, b] => [ax.to_real::<R>(), ay.to_real(), az.to_real(), b.to_real()],
                _ => return None,
            };
            value += wq * (b + (ax * ux + ay * uy + az * uz) * h);
            a_bar += Vec3::new(ax, ay, az) * wq;
        }
        Some(SdfSample { value, gradient: clamp_unit(a_bar * R::TWO) })
    }
}

impl<R: Real, T: GridValue> Sdf<R, 3> for FirstOrderGrid<'_, R, T> {
    /// Eq. 9–12 inside the grid box (in the cell's frame, see the type's
    /// docs); outside, see the module docs. NaN point: NaN value and
    /// gradient.
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        eval_anywhere(&self.layout, x, |c| self.eval_inside(c))
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Approximate
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        ball_around(&self.layout)
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        self.layout.bounds()
    }
}

/// Fills `out` with `sdf` sampled on `layout` (x fastest) and returns the
/// zeroth-order grid over it.
///
/// # Errors
///
/// - [`GridError::LengthMismatch`] if `out.len()` is not the number of
///   samples (nothing is written then);
/// - [`GridError::NonFiniteValue`] with the first sample whose value is NaN
///   or infinite once stored as `T` (for example beyond `F16::MAX`); the
///   samples before it are written then.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::{fill_zeroth, GridLayout};
/// use narrowphase::error::GridError;
/// use narrowphase::shape::Sphere;
/// use nalgebra::Vector3;
/// let layout = GridLayout::new([4, 4, 4], Vector3::repeat(-1.5_f64), 1.0).unwrap();
/// let mut short = [0.0_f64; 63];
/// let r = fill_zeroth(&Sphere::new(1.0).unwrap(), &layout, &mut short);
/// assert_eq!(r.err(), Some(GridError::LengthMismatch { expected: 64, found: 63 }));
/// ```
pub fn fill_zeroth<'a, R: Real, T: GridValue, S: Sdf<R, 3> + ?Sized>(
    sdf: &S,
    layout: &GridLayout<R>,
    out: &'a mut [T],
) -> Result<Grid<'a, R, T>, GridError> {
    if out.len() != layout.samples {
        return Err(GridError::LengthMismatch { expected: layout.samples, found: out.len() });
    }
    let mut slots = out.iter_mut();
    layout.for_each_sample(|index, p| {
        let v = T::from_real(sdf.eval(&p).value);
        if !v.to_real::<f64>().is_finite() {
            return Err(GridError::NonFiniteValue { index });
        }
        // The length was checked: a slot is always there.
        if let Some(slot) = slots.next() {
            *slot = v;
        }
        Ok(())
    })?;
    Ok(Grid { layout: *layout, values: out })
}

/// Fills `out` with `[½∇f, f]` of `sdf` at every sample of `layout` (x
/// fastest; the gradient is the SDF's own, the frame is the sample's own —
/// see [`FirstOrderGrid`]) and returns the first-order grid over it.
///
/// # Errors
///
/// - [`GridError::TooManySamples`] if `4 × samples` overflows `usize`;
/// - [`GridError::LengthMismatch`] if `out.len()` is not `4 × samples`
///   (nothing is written then);
/// - [`GridError::NonFiniteValue`] with the first value or gradient
///   component that is NaN or infinite once stored as `T` (for example
///   beyond `F16::MAX`); the values before it are written then.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::grid::{fill_first_order, GridLayout};
/// use narrowphase::sdf::Torus;
/// use nalgebra::Vector3;
/// let ring = Torus::new(0.6_f32, 0.2).unwrap();
/// let layout = GridLayout::new([12, 12, 5], Vector3::new(-1.1, -1.1, -0.4), 0.2).unwrap();
/// let mut buf = [0.0_f32; 4 * 12 * 12 * 5];
/// let grid = fill_first_order(&ring, &layout, &mut buf).unwrap();
/// let (half_gradient, value) = grid.sample(0, 0, 0).unwrap();
/// assert!(value > 0.0 && half_gradient.norm() <= 0.5 + 1e-6);
/// ```
pub fn fill_first_order<'a, R: Real, T: GridValue, S: Sdf<R, 3> + ?Sized>(
    sdf: &S,
    layout: &GridLayout<R>,
    out: &'a mut [T],
) -> Result<FirstOrderGrid<'a, R, T>, GridError> {
    let expected = first_order_len(layout)?;
    if out.len() != expected {
        return Err(GridError::LengthMismatch { expected, found: out.len() });
    }
    let mut chunks = out.chunks_exact_mut(4);
    layout.for_each_sample(|n, p| {
        let s = sdf.eval(&p);
        let a = s.gradient * R::HALF;
        // The length was checked: a chunk is always there.
        let chunk = chunks.next().unwrap_or_default();
        for (k, (slot, v)) in chunk.iter_mut().zip([a.x, a.y, a.z, s.value]).enumerate() {
            let v = T::from_real(v);
            if !v.to_real::<f64>().is_finite() {
                return Err(GridError::NonFiniteValue { index: 4 * n + k });
            }
            *slot = v;
        }
        Ok(())
    })?;
    Ok(FirstOrderGrid { layout: *layout, values: out })
}

/// Compile-time proof that the public types implement `defmt::Format`.
#[cfg(feature = "defmt")]
#[allow(dead_code)]
fn _defmt_check() {
    fn check<T: defmt::Format>() {}
    check::<GridError>();
    check::<GridLayout<f32>>();
    check::<Grid<'static, f32, f32>>();
    check::<FirstOrderGrid<'static, f32, f32>>();
    check::<Grid<'static, f64, f32>>();
    #[cfg(feature = "f16")]
    check::<F16>();
}
