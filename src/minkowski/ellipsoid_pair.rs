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
//! `A = diag(1, 1, 1, −1)`, which scales `f` by a positive constant. With
//! `D = diag(1, 1, 1, −1) = D⁻¹`, `det(λD + B) = −det(λI + DB)`, so the monic
//! `P(λ) = det(λI + DB)` has the same roots and its coefficients are the sums
//! of principal minors of `DB` (no polynomial arithmetic, no allocation).
//! `P(0) > 0` and `P(∞) = ∞`, so two positive roots exist iff the minimum
//! of `P` over `λ > 0` is negative: the positive critical points (roots of
//! the cubic, resp. quadratic, `P′`, in closed form and polished by Newton
//! steps) decide.
//!
//! # Near touching
//! `P(λ*)` at the positive minimiser is compared with a rounding bound
//! `τ = 256·ε·Σ|cᵢ λ*ⁱ|`: below `−τ` separated (certified), above `τ`
//! colliding; in the band (a double root within rounding) the pair is
//! reported colliding with `touching = true`, like GJK's contact within
//! tolerance: never a guessed separation.

use super::Pose2;
use crate::math::{finite_vec, max, Real, Vec3};
use crate::query::Undetermined;
use crate::shape::{Ellipse, Ellipsoid, Pose};
use nalgebra::{Matrix2, Matrix3, Matrix4, Vector2};

/// The certificate of the algebraic test.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AlgebraicCertificate<R: Real> {
    /// The positive `λ` minimising `P` (0 when `P` has no positive critical
    /// point: then it has no positive root).
    pub lambda: R,
    /// `P(λ) / τ`: the minimum over `λ > 0` in units of its rounding bound
    /// (below −1 separated, above 1 overlapping).
    pub value: R,
    /// Contact within rounding (positive double root): reported colliding.
    pub touching: bool,
}

/// The answer of the algebraic separation test.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AlgebraicOutcome<R: Real> {
    /// Two distinct positive roots: the bodies are apart.
    Separated(AlgebraicCertificate<R>),
    /// No positive root (overlap) or a positive double root (touching).
    Colliding(AlgebraicCertificate<R>),
    /// Non-finite input or coefficients.
    Undetermined {
        /// Why.
        reason: Undetermined,
    },
}

impl<R: Real> AlgebraicOutcome<R> {
    /// `Some(true)` colliding, `Some(false)` separated, `None` undetermined.
    pub fn is_colliding(&self) -> Option<bool> {
        match self {
            AlgebraicOutcome::Separated(_) => Some(false),
            AlgebraicOutcome::Colliding(_) => Some(true),
            AlgebraicOutcome::Undetermined { .. } => None,
        }
    }
}

/// Ellipsoid–ellipsoid separation by the sign of the quartic `det(λA + B)`
/// on `λ > 0`.
///
/// ```
/// use narrowphase::minkowski::ellipsoid_pair::ellipsoids;
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
/// let a = Ellipsoid::new(Vector3::new(2.0_f64, 1.0, 1.0)).unwrap();
/// let b = Ellipsoid::new(Vector3::new(1.0, 0.5, 0.5)).unwrap();
/// let at = |x: f64| Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default());
/// assert_eq!(ellipsoids(&a, &Pose::identity(), &b, &at(2.9)).is_colliding(), Some(true));
/// assert_eq!(ellipsoids(&a, &Pose::identity(), &b, &at(3.1)).is_colliding(), Some(false));
/// ```
pub fn ellipsoids<R: Real>(
    a: &Ellipsoid<R>,
    pose_a: &Pose<R>,
    b: &Ellipsoid<R>,
    pose_b: &Pose<R>,
) -> AlgebraicOutcome<R> {
    match ellipsoid_polynomial(a, pose_a, b, pose_b) {
        Some(c) => classify(&c),
        None => AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite },
    }
}

/// The monic characteristic polynomial `P(λ) ∝ det(λA + B)` of two
/// ellipsoids, coefficients from `λ⁰` to `λ⁴` (`None` for non-finite input).
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
    let ra = pose_a.rotation.matrix();
    let rb = pose_b.rotation.matrix();
    let ta = pose_a.translation.vector;
    let tb = pose_b.translation.vector;
    if !ra.iter().chain(rb.iter()).all(|c| c.finite()) || !finite_vec(&ta) || !finite_vec(&tb) {
        return None;
    }
    let sa = a.semi_axes();
    let sb = b.semi_axes();
    // Frame where A is the unit ball: x' = Λ(1/a) Raᵀ (x − ta).
    let inv_a = Vec3::new(R::ONE / sa.x, R::ONE / sa.y, R::ONE / sa.z);
    let c = (ra.transpose() * (tb - ta)).component_mul(&inv_a);
    // B: (x' − c)ᵀ Q (x' − c) ≤ 1 with Q = NᵀN, N = Λ(1/b) Rbᵀ Ra Λ(a).
    let inv_b = Vec3::new(R::ONE / sb.x, R::ONE / sb.y, R::ONE / sb.z);
    let n = Matrix3::from_diagonal(&inv_b) * rb.transpose() * ra * Matrix3::from_diagonal(&sa);
    let q = n.transpose() * n;
    let qc = q * c;
    let k = c.dot(&qc) - R::ONE;
    // DB with D = diag(1, 1, 1, −1): the last row negated.
    #[rustfmt::skip]
    let m = Matrix4::new(
        q.m11, q.m12, q.m13, -qc.x,
        q.m21, q.m22, q.m23, -qc.y,
        q.m31, q.m32, q.m33, -qc.z,
        qc.x, qc.y, qc.z, -k,
    );
    if !m.iter().all(|v| v.finite()) {
        return None;
    }
    // P(λ) = λ⁴ + c1 λ³ + c2 λ² + c3 λ + c4, cₖ = sum of principal k-minors.
    let c1 = m.trace();
    let minor2 = |aii: R, ajj: R, aij: R, aji: R| aii * ajj - aij * aji;
    let c2 = minor2(m.m11, m.m22, m.m12, m.m21)
        + minor2(m.m11, m.m33, m.m13, m.m31)
        + minor2(m.m11, m.m44, m.m14, m.m41)
        + minor2(m.m22, m.m33, m.m23, m.m32)
        + minor2(m.m22, m.m44, m.m24, m.m42)
        + minor2(m.m33, m.m44, m.m34, m.m43);
    let mut c3 = R::ZERO;
    for skip in 0..4 {
        c3 += minor3(&m, skip).determinant();
    }
    let c4 = det4(&m);
    Some([c4, c3, c2, c1, R::ONE])
}

/// Ellipse–ellipse separation by the sign of the cubic `det(λA + B)` on
/// `λ > 0`.
///
/// ```
/// use narrowphase::minkowski::{ellipsoid_pair::ellipses, Pose2};
/// use narrowphase::shape::Ellipse;
/// use nalgebra::{Translation2, Vector2};
/// let a = Ellipse::new(Vector2::new(1.0_f32, 1.0)).unwrap();
/// let at = |x: f32| Pose2::from_parts(Translation2::new(x, 0.0), Default::default());
/// assert_eq!(ellipses(&a, &Pose2::identity(), &a, &at(1.9)).is_colliding(), Some(true));
/// assert_eq!(ellipses(&a, &Pose2::identity(), &a, &at(2.1)).is_colliding(), Some(false));
/// ```
pub fn ellipses<R: Real>(a: &Ellipse<R>, pose_a: &Pose2<R>, b: &Ellipse<R>, pose_b: &Pose2<R>) -> AlgebraicOutcome<R> {
    let ra = pose_a.rotation.matrix();
    let rb = pose_b.rotation.matrix();
    let ta = pose_a.translation.vector;
    let tb = pose_b.translation.vector;
    if !ra.iter().chain(rb.iter()).all(|c| c.finite()) || !finite_vec(&ta) || !finite_vec(&tb) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    let sa = a.semi_axes();
    let sb = b.semi_axes();
    let inv_a = Vector2::new(R::ONE / sa.x, R::ONE / sa.y);
    let c = (ra.transpose() * (tb - ta)).component_mul(&inv_a);
    let inv_b = Vector2::new(R::ONE / sb.x, R::ONE / sb.y);
    let n = Matrix2::from_diagonal(&inv_b) * rb.transpose() * ra * Matrix2::from_diagonal(&sa);
    let q = n.transpose() * n;
    let qc = q * c;
    let k = c.dot(&qc) - R::ONE;
    #[rustfmt::skip]
    let m = Matrix3::new(
        q.m11, q.m12, -qc.x,
        q.m21, q.m22, -qc.y,
        qc.x, qc.y, -k,
    );
    if !m.iter().all(|v| v.finite()) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    let c1 = m.trace();
    let c2 = (m.m11 * m.m22 - m.m12 * m.m21) + (m.m11 * m.m33 - m.m13 * m.m31) + (m.m22 * m.m33 - m.m23 * m.m32);
    let c3 = m.determinant();
    classify(&[c3, c2, c1, R::ONE, R::ZERO])
}

/// `det(m)` in closed form (the 2×2 sub-determinants of the first two and
/// the last two rows): no pivoting loop, no panic path.
fn det4<R: Real>(m: &Matrix4<R>) -> R {
    let s0 = m.m11 * m.m22 - m.m21 * m.m12;
    let s1 = m.m11 * m.m23 - m.m21 * m.m13;
    let s2 = m.m11 * m.m24 - m.m21 * m.m14;
    let s3 = m.m12 * m.m23 - m.m22 * m.m13;
    let s4 = m.m12 * m.m24 - m.m22 * m.m14;
    let s5 = m.m13 * m.m24 - m.m23 * m.m14;
    let c5 = m.m33 * m.m44 - m.m43 * m.m34;
    let c4 = m.m32 * m.m44 - m.m42 * m.m34;
    let c3 = m.m32 * m.m43 - m.m42 * m.m33;
    let c2 = m.m31 * m.m44 - m.m41 * m.m34;
    let c1 = m.m31 * m.m43 - m.m41 * m.m33;
    let c0 = m.m31 * m.m42 - m.m41 * m.m32;
    s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
}

/// The 3×3 principal minor of `m` without row and column `skip`.
fn minor3<R: Real>(m: &Matrix4<R>, skip: usize) -> Matrix3<R> {
    let mut out = Matrix3::zeros();
    for (r, i) in (0..4).filter(|&i| i != skip).enumerate() {
        for (c, j) in (0..4).filter(|&j| j != skip).enumerate() {
            if let (Some(dst), Some(src)) = (out.get_mut((r, c)), m.get((i, j))) {
                *dst = *src;
            }
        }
    }
    out
}

/// `P(λ)` and `Σ|cᵢ λⁱ|` for `P = Σ cᵢ λⁱ` (coefficients low to high, degree ≤ 4).
fn eval_poly<R: Real>(c: &[R; 5], x: R) -> (R, R) {
    let mut v = R::ZERO;
    let mut s = R::ZERO;
    for &ci in c.iter().rev() {
        v = v * x + ci;
        s = s * x.abs_() + ci.abs_();
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

/// Real roots of `P′` (a cubic for a quartic `P`, a quadratic for a cubic).
fn critical_points<R: Real>(c: &[R; 5]) -> ([R; 3], usize) {
    let [_, c1, c2, c3, c4] = *c;
    let mut out = [R::ZERO; 3];
    let mut n = 0usize;
    let mut push = |x: R, out: &mut [R; 3]| {
        if x.finite() {
            if let Some(slot) = out.get_mut(n) {
                *slot = x;
                n += 1;
            }
        }
    };
    if c4 != R::ZERO {
        // 4λ³ + 3c3 λ² + 2c2 λ + c1 = 0 → λ³ + b λ² + cc λ + d = 0.
        let b = R::lit(0.75) * c3 / c4;
        let cc = R::HALF * c2 / c4;
        let d = R::lit(0.25) * c1 / c4;
        let third = R::ONE / R::lit(3.0);
        let p = cc - b * b * third;
        let q = R::TWO * b * b * b / R::lit(27.0) - b * cc * third + d;
        let shift = -b * third;
        let disc = q * q * R::lit(0.25) + p * p * p / R::lit(27.0);
        if disc < R::ZERO && p < R::ZERO {
            let r = Real::sqrt(-p * third);
            let arg = (R::lit(1.5) * q / (p * r)).clamp(-R::ONE, R::ONE);
            let phi = nalgebra::ComplexField::acos(arg) * third;
            let two_pi_3 = R::two_pi() * third;
            for k in 0..3u32 {
                let t = R::TWO * r * (phi - two_pi_3 * R::lit(f64::from(k))).cos();
                push(t + shift, &mut out);
            }
        } else {
            let sd = Real::sqrt(max(disc, R::ZERO));
            let t = cbrt(-q * R::HALF + sd) + cbrt(-q * R::HALF - sd);
            push(t + shift, &mut out);
        }
    } else if c3 != R::ZERO {
        // 3c3 λ² + 2c2 λ + c1 = 0.
        let (qa, qb, qc) = (R::lit(3.0) * c3, R::TWO * c2, c1);
        let disc = qb * qb - R::lit(4.0) * qa * qc;
        if disc >= R::ZERO {
            let sd = Real::sqrt(disc);
            // Stable form: no cancellation.
            let t = -R::HALF * (qb + if qb < R::ZERO { -sd } else { sd });
            if t != R::ZERO {
                push(t / qa, &mut out);
                push(qc / t, &mut out);
            } else {
                push(R::ZERO, &mut out);
            }
        }
    }
    (out, n)
}

fn cbrt<R: Real>(x: R) -> R {
    crate::shape::signed_pow(x, R::ONE / R::lit(3.0))
}

fn classify<R: Real>(c: &[R; 5]) -> AlgebraicOutcome<R> {
    if !c.iter().all(|v| v.finite()) {
        return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
    }
    let (roots, n) = critical_points(c);
    let mut best: Option<(R, R, R)> = None; // (λ, P, scale)
    for &x0 in roots.iter().take(n) {
        let mut x = x0;
        // Polish the critical point (a few Newton steps on P′, bounded).
        for _ in 0..4 {
            let (d1, d2) = derivs(c, x);
            if d2 != R::ZERO && d2.finite() {
                let nx = x - d1 / d2;
                if nx.finite() {
                    x = nx;
                }
            }
        }
        if !(x > R::ZERO) {
            continue;
        }
        let (v, s) = eval_poly(c, x);
        if best.is_none_or(|(_, bv, bs)| v / s < bv / bs) {
            best = Some((x, v, s));
        }
    }
    let eps = R::EPSILON * R::lit(256.0);
    match best {
        Some((lambda, v, s)) => {
            let tau = eps * s;
            let value = if tau > R::ZERO { v / tau } else { v };
            if !value.finite() {
                return AlgebraicOutcome::Undetermined { reason: Undetermined::NonFinite };
            }
            let cert = AlgebraicCertificate { lambda, value, touching: !(value.abs_() > R::ONE) };
            if value < -R::ONE {
                AlgebraicOutcome::Separated(cert)
            } else {
                AlgebraicOutcome::Colliding(cert)
            }
        }
        None => {
            AlgebraicOutcome::Colliding(AlgebraicCertificate { lambda: R::ZERO, value: R::INFINITY, touching: false })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form_det4_matches_lu() {
        let m = Matrix4::new(2.0_f64, -1.0, 0.5, 3.0, 0.3, 4.0, -2.0, 1.0, 1.5, 0.2, 1.0, -0.7, -1.0, 2.5, 0.4, 0.9);
        assert!((det4(&m) - m.determinant()).abs() < 1e-12 * m.determinant().abs());
    }
}
