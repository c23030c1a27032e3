//! Exact separation of two ellipsoids (or ellipses) by the algebraic
//! condition of Wang, Wang & Kim, *An algebraic condition for the separation
//! of two ellipsoids* (CAGD 18, 2001).
//!
//! Write each body as `Xᵀ A X ≤ 0` in homogeneous coordinates `X = (x, 1)`.
//! The characteristic polynomial `f(λ) = det(λA + B)` (a quartic in 3D, a
//! cubic in 2D) always has negative roots; the bodies are **separated iff
//! `f` has two distinct positive roots**, touch externally iff it has a
//! positive double root, and overlap otherwise. (For unit spheres at
//! distance `d`: `f ∝ (λ + 1)²(λ² − (d² − 2)λ + 1)`.)
//!
//! # Evaluation
//! An affine change of coordinates maps `A` to the unit ball,
//! `A = diag(1, 1, 1, −1)`, which scales `f` by a positive constant; a
//! translation to `B`'s centre (determinant 1) then makes
//! `f ∝ det [[λI + Q, λc], [λcᵀ, λ(|c|² − 1) − 1]]`, and its Schur
//! complement gives the monic `P(λ)` (same roots) with coefficients that
//! are products and sums of squares of the data, no `1/a` left where it
//! could cancel (see `polynomial3`; the textbook sum of principal minors
//! of `DB` cancelled terms of size `|c|⁴|Q|²` down to `det Q`, percents off
//! in f32 for a thin `A`). Each coefficient comes with its magnitude (the
//! same sum with every term positive), the scale of its rounding error.
//!
//! `P(0) > 0` and `P(∞) = ∞`, so two positive roots exist iff `P < 0`
//! somewhere on `λ > 0`. `λ` is first rescaled by the roots' scale
//! (Fujiwara's bound), which keeps `P(λ)` finite in f32 when `λ*` is large. The roots of `P″` (closed form, a quadratic) and
//! a bound `U` on the roots of `P′` split `(0, U)` into intervals where
//! `P′` is monotone; each sign change `−` → `+` of `P′` is a local
//! minimiser, found by a bracketed Newton iteration (bounded). No critical
//! point is lost to a closed-form cubic's discriminant.
//!
//! # Near touching
//! `P(λ*)` at the best positive minimiser is compared with a rounding
//! bound `τ = 256·ε·Σ mᵢ λ*ⁱ` (`mᵢ` the magnitudes): below `−τ` separated
//! (certified: a point where `P < 0`), above `τ` colliding (certified
//! when `P − w > τ` too, `w` the slope times the width of the final
//! bracket); otherwise (a double root within rounding) the pair is
//! reported colliding with `touching = true`, like GJK's contact within
//! tolerance: never a guessed separation. When `P′` has no sign change
//! `−` → `+` and `P′(U) > 0`, `P` increases on `(0, ∞)`: colliding,
//! `λ = 0`, `value = ∞`; if `P′(U) > 0` is not confirmed, undetermined.
//! Everything runs in the query's own precision (f32 stays single
//! precision on the Cortex-M4F).

use crate::math::Pose;
use crate::math::Pose2;
use crate::math::{finite_vec, max, Real, Vec3};
use crate::query::Undetermined;
use crate::shape::{Ellipse, Ellipsoid};
use nalgebra::{Matrix2, Matrix3, Vector2};

/// The certificate of the algebraic test.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AlgebraicCertificate<R: Real> {
    /// The positive `λ` minimising `P` (0 when `P` increases on `λ > 0`:
    /// then it has no positive root).
    pub lambda: R,
    /// `P(λ) / τ`: the minimum over `λ > 0` in units of its rounding bound
    /// (below −1 separated, above 1 overlapping).
    pub value: R,
    /// Contact within rounding (positive double root), or an overlap not
    /// proved beyond rounding: reported colliding, uncertified.
    pub touching: bool,
}

/// The answer of the algebraic separation test.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum AlgebraicOutcome<R: Real> {
    /// Two distinct positive roots: the bodies are apart.
    Separated(AlgebraicCertificate<R>),
    /// No positive root (overlap) or a positive double root (touching).
    Penetrating(AlgebraicCertificate<R>),
    /// Non-finite input or coefficients, `P(0) = det Q` not positive (a pose
    /// whose rotation is not one, or `det Q` lost to underflow), or the sign
    /// of `P′` at the root bound not confirmed: all `NonFinite`.
    Undetermined {
        /// Why.
        reason: Undetermined,
    },
}

impl<R: Real> AlgebraicOutcome<R> {
    /// `Some(true)` colliding, `Some(false)` separated, `None` undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            AlgebraicOutcome::Separated(_) => Some(false),
            AlgebraicOutcome::Penetrating(_) => Some(true),
            AlgebraicOutcome::Undetermined { .. } => None,
        }
    }
}

/// Ellipsoid–ellipsoid separation by the sign of the quartic `det(λA + B)`
/// on `λ > 0`.
///
/// # Examples
///
/// ```
/// use narrowphase::minkowski::ellipsoid_pair::ellipsoids;
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
/// let a = Ellipsoid::new(Vector3::new(2.0_f64, 1.0, 1.0)).unwrap();
/// let b = Ellipsoid::new(Vector3::new(1.0, 0.5, 0.5)).unwrap();
/// let at = |x: f64| Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default());
/// assert_eq!(ellipsoids(&a, &Pose::identity(), &b, &at(2.9)).is_penetrating(), Some(true));
/// assert_eq!(ellipsoids(&a, &Pose::identity(), &b, &at(3.1)).is_penetrating(), Some(false));
/// ```
pub fn ellipsoids<R: Real>(
    a: &Ellipsoid<R>,
    pose_a: &Pose<R>,
    b: &Ellipsoid<R>,
    pose_b: &Pose<R>,
) -> AlgebraicOutcome<R> {
    match polynomial3(a, pose_a, b, pose_b) {
        Some((c, mag)) => classify(&c, &mag),
        None => AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite },
    }
}

/// The monic characteristic polynomial `P(λ) ∝ det(λA + B)` of two
/// ellipsoids, coefficients from `λ⁰` to `λ⁴` (`None` for non-finite input).
///
/// # Examples
///
/// ```
/// use narrowphase::minkowski::ellipsoid_pair::ellipsoid_polynomial;
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
/// let s = Ellipsoid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap();
/// let b = Pose::from_parts(Translation3::new(3.0, 0.0, 0.0), Default::default());
/// // (λ + 1)²(λ² − 7λ + 1) = λ⁴ − 5λ³ − 12λ² − 5λ + 1
/// let c = ellipsoid_polynomial(&s, &Pose::identity(), &s, &b).unwrap();
/// for (x, y) in c.iter().zip([1.0, -5.0, -12.0, -5.0, 1.0]) {
///     assert!((x - y).abs() < 1e-12);
/// }
/// ```
pub fn ellipsoid_polynomial<R: Real>(
    a: &Ellipsoid<R>,
    pose_a: &Pose<R>,
    b: &Ellipsoid<R>,
    pose_b: &Pose<R>,
) -> Option<[R; 5]> {
    polynomial3(a, pose_a, b, pose_b).map(|(c, _)| c)
}

/// Coefficients (low to high) and their magnitudes (the same sums with every
/// term taken positive: the scale of each coefficient's rounding error).
///
/// In the frame where A is the unit ball (`x' = Λ(1/a) Raᵀ (x − ta)`), B is
/// `(x' − c)ᵀ Q (x' − c) ≤ 1`, `Q = NᵀN`, `N = Λ(1/b) R Λ(a)`,
/// `R = Rbᵀ Ra`, `c = Λ(1/a) g`, `g = Raᵀ (tb − ta)`. Translating by `c`
/// (a congruence of both forms, determinant 1) gives
/// `det(λA + B) = det [[λI + Q, λc], [λcᵀ, λ(s − 1) − 1]]`, `s = |c|²`, and
/// the Schur complement with `adj(λI + Q) = λ²I + λ(tr Q·I − Q) + adj Q`
/// gives the monic `P(λ) = λ⁴ + c₃λ³ + c₂λ² + c₁λ + c₀` with
///
/// ```text
/// c₃ = 1 + t − |Nc|²          t = tr Q = |N|²_F
/// c₂ = t + e − |[c]ₓ adj N|²_F  e = tr adj Q = |adj N|²_F
/// c₁ = e + d − d·s            d = det Q = det(N)²
/// c₀ = d
/// ```
///
/// (`e·s − cᵀ adj(Q) c = tr(adj Q [c]ₓᵀ[c]ₓ)`, `adj Q = adj N adj Nᵀ`).
/// Every piece is a product or a sum of squares of accurately known
/// numbers: `N c = Λ(1/b) R g`, `[c]ₓ adj N = Λ(a)·[g]ₓ adj R·Λ(b)/Πb` and
/// `det N = det R · Π a/b` carry no `1/a` (expanding `det(λI + DB)` instead
/// cancels terms of size `|c|⁴|Q|²` down to `det Q`, percents off in f32
/// for a thin A). What is left are the three subtractions, whose error is
/// a few ε of the magnitudes returned with the coefficients.
#[allow(clippy::type_complexity)]
fn polynomial3<R: Real>(
    a: &Ellipsoid<R>,
    pose_a: &Pose<R>,
    b: &Ellipsoid<R>,
    pose_b: &Pose<R>,
) -> Option<([R; 5], [R; 5])> {
    let ra = pose_a.rotation.matrix();
    let rb = pose_b.rotation.matrix();
    let ta = pose_a.translation.vector;
    let tb = pose_b.translation.vector;
    if !ra.iter().chain(rb.iter()).all(|c| c.finite()) || !finite_vec(&ta) || !finite_vec(&tb) {
        return None;
    }
    let sa = a.semi_axes();
    let sb = b.semi_axes();
    let r = rb.transpose() * ra;
    let g = ra.transpose() * (tb - ta);
    let inv_b = Vec3::new(R::ONE / sb.x, R::ONE / sb.y, R::ONE / sb.z);
    // N = Λ(1/b) R Λ(a).
    let n = Matrix3::from_diagonal(&inv_b) * r * Matrix3::from_diagonal(&sa);
    let t = n.norm_squared();
    // N c = Λ(1/b) R g (the 1/a of c cancels the a of N).
    let nc = (r * g).component_mul(&inv_b);
    let ncn = nc.norm_squared();
    // adj N = adj Λ(a) · adj R · adj Λ(1/b); adj R = cofactor(R)ᵀ.
    let adj_r = cofactor(&r).transpose();
    let adj_a = Vec3::new(sa.y * sa.z, sa.x * sa.z, sa.x * sa.y);
    let pb = inv_b.x * inv_b.y * inv_b.z;
    let adj_ib = Vec3::new(pb * sb.x, pb * sb.y, pb * sb.z);
    let adj_n = Matrix3::from_diagonal(&adj_a) * adj_r * Matrix3::from_diagonal(&adj_ib);
    let e = adj_n.norm_squared();
    // [c]ₓ adj N, column k = Λ(a) (g × adj R col k) · adj_ib_k; magnitude
    // from |g| × |adj R| (every product positive).
    let mut x = R::ZERO;
    let mut x_mag = R::ZERO;
    for (col, w) in adj_r.column_iter().zip(adj_ib.iter()) {
        let col: Vec3<R> = col.into_owned();
        let cr = g.cross(&col).component_mul(&sa) * *w;
        let (ga, ca) = (g.map(|v| v.abs_()), col.map(|v| v.abs_()));
        let cm = Vec3::new(ga.y * ca.z + ga.z * ca.y, ga.z * ca.x + ga.x * ca.z, ga.x * ca.y + ga.y * ca.x)
            .component_mul(&sa)
            * w.abs_();
        x += cr.norm_squared();
        x_mag += cm.norm_squared();
    }
    let det_n = r.determinant() * (sa.x * inv_b.x) * (sa.y * inv_b.y) * (sa.z * inv_b.z);
    let d = det_n * det_n;
    let inv_a = Vec3::new(R::ONE / sa.x, R::ONE / sa.y, R::ONE / sa.z);
    let s = g.component_mul(&inv_a).norm_squared();
    let ds = d * s;
    let c = [d, e + d - ds, t + e - x, R::ONE + t - ncn, R::ONE];
    let mag = [d, e + d + ds, t + e + x_mag, R::ONE + t + ncn, R::ONE];
    if !c.iter().chain(mag.iter()).all(|v| v.finite()) {
        return None;
    }
    Some((c, mag))
}

/// The cofactor matrix of a 3×3 matrix.
fn cofactor<R: Real>(m: &Matrix3<R>) -> Matrix3<R> {
    let c0 = m.column(1).cross(&m.column(2));
    let c1 = m.column(2).cross(&m.column(0));
    let c2 = m.column(0).cross(&m.column(1));
    // Row i of adj(M) is (col_{i+1} × col_{i+2})ᵀ; the cofactor is its transpose.
    Matrix3::from_columns(&[c0, c1, c2])
}

/// Ellipse–ellipse separation by the sign of the cubic `det(λA + B)` on
/// `λ > 0`.
///
/// # Examples
///
/// ```
/// use narrowphase::minkowski::{ellipsoid_pair::ellipses};
/// use narrowphase::math::Pose2;
/// use narrowphase::shape::Ellipse;
/// use nalgebra::{Translation2, Vector2};
/// let a = Ellipse::new(Vector2::new(1.0_f32, 1.0)).unwrap();
/// let at = |x: f32| Pose2::from_parts(Translation2::new(x, 0.0), Default::default());
/// assert_eq!(ellipses(&a, &Pose2::identity(), &a, &at(1.9)).is_penetrating(), Some(true));
/// assert_eq!(ellipses(&a, &Pose2::identity(), &a, &at(2.1)).is_penetrating(), Some(false));
/// ```
pub fn ellipses<R: Real>(a: &Ellipse<R>, pose_a: &Pose2<R>, b: &Ellipse<R>, pose_b: &Pose2<R>) -> AlgebraicOutcome<R> {
    let ra = pose_a.rotation.matrix();
    let rb = pose_b.rotation.matrix();
    let ta = pose_a.translation.vector;
    let tb = pose_b.translation.vector;
    if !ra.iter().chain(rb.iter()).all(|c| c.finite()) || !finite_vec(&ta) || !finite_vec(&tb) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    // As in 3D (see `polynomial3`): with Q = NᵀN, N = Λ(1/b) R Λ(a),
    // R = Rbᵀ Ra, c = Λ(1/a) g, g = Raᵀ(tb − ta), s = |c|²,
    // det(λA + B) = det [[λI + Q, λc], [λcᵀ, λ(s − 1) − 1]] and, in 2D,
    // adj(λI + Q) = λI + adj Q, Q + adj Q = tr Q·I:
    // P(λ) = λ³ + (1 + t − |Nc|²) λ² + (t + d − d·s) λ + d,
    // t = |N|²_F, d = det(N)², det N = det R · Π a/b.
    let sa = a.semi_axes();
    let sb = b.semi_axes();
    let r = rb.transpose() * ra;
    let g = ra.transpose() * (tb - ta);
    let inv_b = Vector2::new(R::ONE / sb.x, R::ONE / sb.y);
    let n = Matrix2::from_diagonal(&inv_b) * r * Matrix2::from_diagonal(&sa);
    let t = n.norm_squared();
    let ncn = (r * g).component_mul(&inv_b).norm_squared();
    let det_n = (r.m11 * r.m22 - r.m12 * r.m21) * (sa.x * inv_b.x) * (sa.y * inv_b.y);
    let d = det_n * det_n;
    let s = Vector2::new(g.x / sa.x, g.y / sa.y).norm_squared();
    let ds = d * s;
    let c = [d, t + d - ds, R::ONE + t - ncn, R::ONE, R::ZERO];
    let mag = [d, t + d + ds, R::ONE + t + ncn, R::ONE, R::ZERO];
    if !c.iter().chain(mag.iter()).all(|v| v.finite()) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    classify(&c, &mag)
}

/// `P(λ)` and `Σ mᵢ λⁱ` for `P = Σ cᵢ λⁱ` with magnitudes `m` (low to high,
/// degree ≤ 4).
fn eval_poly<R: Real>(c: &[R; 5], mag: &[R; 5], x: R) -> (R, R) {
    let mut v = R::ZERO;
    let mut s = R::ZERO;
    for (&ci, &mi) in c.iter().zip(mag.iter()).rev() {
        v = v * x + ci;
        s = s * x.abs_() + max(mi, ci.abs_());
    }
    (v, s)
}

/// `P′(λ)` and `P″(λ)`.
fn derivs<R: Real>(c: &[R; 5], x: R) -> (R, R) {
    let [_, c1, c2, c3, c4] = *c;
    let (two, three, four) = (R::TWO, R::lit(3.0), R::lit(4.0));
    let d1 = ((four * c4 * x + three * c3) * x + two * c2) * x + c1;
    let d2 = (R::lit(12.0) * c4 * x + R::lit(6.0) * c3) * x + two * c2;
    (d1, d2)
}

/// The points that split `(0, U)` into intervals where `P′` is monotone:
/// 0, the positive roots of `P″` (a quadratic, resp. linear, polynomial;
/// stable closed form) below `U`, and `U`, a bound on the positive roots of
/// `P′` (twice Cauchy's). Sorted; the count is returned with them.
fn breakpoints<R: Real>(c: &[R; 5]) -> ([R; 4], usize) {
    let [_, c1, c2, c3, c4] = *c;
    // P′ = 4c4 λ³ + 3c3 λ² + 2c2 λ + c1 (c4 = 0: the 2D cubic P, c3 = 1).
    let lead = if c4 != R::ZERO { R::lit(4.0) * c4.abs_() } else { R::lit(3.0) * c3.abs_() };
    let big = max(max(R::lit(3.0) * c3.abs_(), R::TWO * c2.abs_()), c1.abs_());
    // Twice Cauchy's bound 1 + max|aᵢ| of the monic P′: P′(U) > 0 with a
    // margin no rounding of U or of P′(U) can eat (at the bound itself a
    // root may lie within an ulp of U).
    let u = R::TWO * (R::ONE + if c4 != R::ZERO { big } else { max(R::TWO * c2.abs_(), c1.abs_()) } / lead);
    let mut out = [R::ZERO, u, u, u];
    let mut n = 1usize;
    // P″ = 12c4 λ² + 6c3 λ + 2c2.
    let (qa, qb, qc) = (R::lit(12.0) * c4, R::lit(6.0) * c3, R::TWO * c2);
    // Negative: no root (only positive ones are kept).
    let mut roots = [-R::ONE, -R::ONE];
    if qa != R::ZERO {
        let disc = qb * qb - R::lit(4.0) * qa * qc;
        if disc >= R::ZERO {
            let sd = Real::sqrt(disc);
            let t = -R::HALF * (qb + if qb < R::ZERO { -sd } else { sd });
            if t != R::ZERO {
                roots = [t / qa, qc / t];
            } else {
                roots = [R::ZERO, R::ZERO];
            }
        }
    } else if qb != R::ZERO {
        roots = [-qc / qb, -R::ONE];
    }
    let [r0, r1] = roots;
    for z in if r1 < r0 { [r1, r0] } else { [r0, r1] } {
        if z > R::ZERO && z < u {
            if let Some(slot) = out.get_mut(n) {
                *slot = z;
                n += 1;
            }
        }
    }
    if let Some(slot) = out.get_mut(n) {
        *slot = u;
        n += 1;
    }
    (out, n)
}

/// Largest number of safeguarded Newton steps per interval.
const MAX_STEPS: u32 = 64;

/// A local minimiser of `P` in `[lo, hi]` where `P′(lo) < 0 ≤ P′(hi)` and
/// `P′` is monotone: `(λ, w)`, `w` a bound on how far `P(λ)` may lie above
/// the minimum over the bracket. The minimiser `λ*` lies in the final
/// bracket on the side where `P′` changes sign, and `|P′| ≤ |P′(λ)|`
/// between `λ` and `λ*` (monotone), so `P(λ) − P(λ*) ≤ |P′(λ)|·(hi − lo)`.
fn minimise<R: Real>(c: &[R; 5], mut lo: R, mut hi: R) -> (R, R) {
    let mut x = R::HALF * (lo + hi);
    let mut best = (x, R::INFINITY);
    for _ in 0..MAX_STEPS {
        let (d1, d2) = derivs(c, x);
        if !d1.finite() {
            break;
        }
        best = (x, d1.abs_());
        if d1 < R::ZERO {
            lo = x;
        } else {
            hi = x;
        }
        if d1 == R::ZERO || !(hi - lo > R::EPSILON * R::lit(4.0) * hi) {
            break;
        }
        let nx = x - d1 / d2;
        x = if nx > lo && nx < hi { nx } else { R::HALF * (lo + hi) };
    }
    let (x, d) = best;
    let w = d * (hi - lo);
    (x, if w.finite() { max(w, R::ZERO) } else { R::INFINITY })
}

/// `λ = σμ` with `σ` the roots' scale (Fujiwara: every root has
/// `|λ| ≤ 2 max |cₙ₋ₖ|^(1/k)`, computed from the magnitudes): the
/// coefficients of `P(σμ)/σⁿ` and their magnitudes, and `σ`. Keeps `P` and
/// its rounding bound finite in f32 where `λ*` is large (a thin `B` far
/// away: `λ*⁴` past f32's range). Each scaled coefficient carries at most
/// a few roundings more, far inside `τ`.
fn rescale<R: Real>(c: &[R; 5], mag: &[R; 5]) -> ([R; 5], [R; 5], R) {
    let [m0, m1, m2, m3, m4] = *mag;
    let root = |x: R, k: R| nalgebra::ComplexField::powf(x, R::ONE / k);
    // Degree 4 (monic in λ⁴) or 3 (2D: c₄ = 0, monic in λ³).
    let (sigma, deg4) = if c[4] != R::ZERO {
        (max(max(m3, Real::sqrt(m2)), max(root(m1, R::lit(3.0)), Real::sqrt(Real::sqrt(m0)))), true)
    } else {
        (max(max(m2, Real::sqrt(m1)), root(m0, R::lit(3.0))), false)
    };
    if !(sigma > R::ZERO) || !sigma.finite() || !(m4 >= R::ZERO) {
        return (*c, *mag, R::ONE);
    }
    let mut out = (*c, *mag);
    // Multiply cᵢ by σ^(i − n): walk down from the leading term.
    let mut f = R::ONE;
    let top = if deg4 { 4 } else { 3 };
    for i in (0..=top).rev() {
        if let (Some(ci), Some(mi)) = (out.0.get_mut(i), out.1.get_mut(i)) {
            *ci /= f;
            *mi /= f;
        }
        f *= sigma;
    }
    (out.0, out.1, sigma)
}

fn classify<R: Real>(c: &[R; 5], mag: &[R; 5]) -> AlgebraicOutcome<R> {
    if !c.iter().chain(mag.iter()).all(|v| v.finite()) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    // P(0) = det Q > 0 is what "a point with P < 0" proves two positive
    // roots from; 0 (a singular "rotation", or underflow) proves nothing.
    // Checked on the unscaled c₀ (σⁿ may overflow and flush c₀/σⁿ).
    if !(c[0] > R::ZERO) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    let (c, mag, sigma) = rescale(c, mag);
    let (c, mag) = (&c, &mag);
    let eps = R::EPSILON * R::lit(256.0);
    // P(0) = c₀ = det Q > 0 and P(∞) = ∞: two positive roots iff P < 0
    // somewhere on (0, ∞). P′ is monotone between consecutive breakpoints,
    // so every local minimiser of P in (0, ∞) is the one sign change
    // − → + of P′ on such an interval (found by a bracketed Newton
    // iteration); past U, P′ > 0. `best`: the most negative P/τ, with the
    // bracket's slack `w` for the colliding side.
    let (bp, n) = breakpoints(c);
    let mut best: Option<(R, R, R, R)> = None; // (λ, P, Σ mᵢλⁱ, w)
    let mut prev: Option<(R, R)> = None;
    for &z in bp.iter().take(n) {
        let (dz, _) = derivs(c, z);
        if let Some((lo, d_lo)) = prev {
            if d_lo < R::ZERO && !(dz < R::ZERO) && z > lo {
                let (x, w) = minimise(c, lo, z);
                let (v, s) = eval_poly(c, mag, x);
                if x > R::ZERO && best.is_none_or(|(_, bv, bs, _)| v / s < bv / bs) {
                    best = Some((x, v, s, w));
                }
            }
        }
        prev = Some((z, dz));
    }
    // P′(U) > 0 is what makes "no sign change − → +" mean "P′ ≥ 0 on
    // (0, ∞)"; if rounding (or a non-finite value) denies it, nothing is
    // proved.
    let end_ok = matches!(prev, Some((_, d)) if d > R::ZERO);
    match best {
        Some((mu, v, s, w)) => {
            let lambda = mu * sigma;
            let tau = eps * s;
            let value = if tau > R::ZERO { v / tau } else { v };
            if !value.finite() {
                return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
            }
            // Penetrating is proved when the minimum over the bracket, P − w,
            // is above the rounding bound; within it, touching.
            let low = if tau > R::ZERO { (v - w) / tau } else { v - w };
            let touching = !(value.abs_() > R::ONE) || (value > R::ONE && !(low > R::ONE));
            let cert = AlgebraicCertificate { lambda, value, touching };
            if value < -R::ONE {
                AlgebraicOutcome::Separated(cert)
            } else {
                AlgebraicOutcome::Penetrating(cert)
            }
        }
        None => {
            // P′ ≥ 0 at every breakpoint where it could turn: P increases on
            // (0, ∞) from P(0) = c₀ > 0 (c₀ = det(N)², computed as a product:
            // its sign is exact), no positive root.
            if end_ok {
                AlgebraicOutcome::Penetrating(AlgebraicCertificate {
                    lambda: R::ZERO,
                    value: R::INFINITY,
                    touching: false,
                })
            } else {
                AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix4, Rotation3, Translation3};

    /// The structured coefficients against the sums of principal minors of
    /// `DB` (the textbook form, f64, well-conditioned poses).
    #[test]
    fn structured_coefficients_match_principal_minors() {
        let a = Ellipsoid::new(Vec3::new(2.0_f64, 1.0, 0.5)).unwrap();
        let b = Ellipsoid::new(Vec3::new(0.7, 1.3, 0.9)).unwrap();
        let pa = Pose::from_parts(Translation3::new(0.3, -1.0, 2.0), Rotation3::from_euler_angles(0.3, -0.7, 1.1));
        let pb = Pose::from_parts(Translation3::new(2.5, 0.4, 1.0), Rotation3::from_euler_angles(-1.2, 0.2, 0.4));
        let (c, mag) = polynomial3(&a, &pa, &b, &pb).unwrap();
        // World quadrics: A = [[S, −S t], [−tᵀS, tᵀSt − 1]], S = R Λ(1/a²) Rᵀ.
        let quadric = |e: &Ellipsoid<f64>, p: &Pose<f64>| {
            let r = *p.rotation.matrix();
            let ax = e.semi_axes();
            let s = r * Matrix3::from_diagonal(&ax.map(|v| 1.0 / (v * v))) * r.transpose();
            let t = p.translation.vector;
            let st = s * t;
            let mut m = Matrix4::zeros();
            m.fixed_view_mut::<3, 3>(0, 0).copy_from(&s);
            m.fixed_view_mut::<3, 1>(0, 3).copy_from(&-st);
            m.fixed_view_mut::<1, 3>(3, 0).copy_from(&-st.transpose());
            m[(3, 3)] = t.dot(&st) - 1.0;
            m
        };
        let (qa, qb) = (quadric(&a, &pa), quadric(&b, &pb));
        // det(λA + B) sampled at 5 points, against c scaled by its λ⁴ term.
        let f = |l: f64| (qa * l + qb).determinant();
        let p = |l: f64| c.iter().rev().fold(0.0, |acc, ci| acc * l + ci);
        let k = f(1.0) / p(1.0);
        for l in [0.25, 0.5, 2.0, 3.0, 7.0] {
            assert!((f(l) - k * p(l)).abs() < 1e-10 * f(l).abs().max(1.0), "λ = {l}");
        }
        assert!(c.iter().zip(mag.iter()).all(|(ci, mi)| ci.abs() <= mi * (1.0 + 1e-12)));
    }
}
