//! The search ellipsoid of the ellipsoid method: its cut (the paper's
//! Algorithm 1) and its starting value from two balls (Algorithm 3, Lemma 2).

use crate::math::{is_nan, norm, Real};
use nalgebra::{SMatrix, SVector};

/// The ellipsoid `E = {M·u + e : |u| ≤ 1}` (Eq. 7), kept as the factor `M`
/// of `P = M·Mᵀ` (Eq. 8) rather than as `P`.
///
/// Why the factor: near the optimum the ellipsoid becomes very eccentric
/// (thin across the contact, long along it, axis ratios of 10⁴ and more),
/// and the rank-one update of `P` then loses the thin direction to
/// cancellation — seen as an ellipsoid that no longer holds the optimum and
/// a lower bound above the true value. With `M`, `hᵀPh = |Mᵀh|²` is a sum of
/// squares computed to the precision of each column, and the update
/// `M' = c·(M − γ·(Mw)wᵀ)` (with `(I − γwwᵀ)² = I − βwwᵀ`) never subtracts
/// two large numbers to get a small one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SearchEllipsoid<R: Real, const D: usize> {
    pub e: SVector<R, D>,
    pub m: SMatrix<R, D, D>,
}

/// `Mᵀh` and its length `sqrt(hᵀPh)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Extent<R: Real, const D: usize> {
    pub v: SVector<R, D>,
    pub width: R,
}

/// What a cut did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The ellipsoid now bounds `E ∩ H`.
    Done,
    /// `E` lies entirely outside `H` (`α ≥ 1`): what it was meant to hold
    /// is not in `E`, or rounding says so.
    Empty,
    /// `|Mᵀh|` is zero (zero normal, or `M` collapsed) or a result was not
    /// finite; the ellipsoid is unchanged.
    Degenerate,
}

impl<R: Real, const D: usize> SearchEllipsoid<R, D> {
    /// The ball `|x − c| ≤ r`.
    pub fn ball(c: SVector<R, D>, r: R) -> Self {
        Self { e: c, m: SMatrix::identity() * r }
    }

    /// The extent of `E` along `h`: `Mᵀh` and `sqrt(hᵀPh) = |Mᵀh|`, so that
    /// `min {h·x : x ∈ E} = h·e − |Mᵀh|` (Eq. 10). [`cut_along`](Self::cut_along)
    /// reuses it.
    #[inline]
    pub fn extent(&self, h: &SVector<R, D>) -> Extent<R, D> {
        let v = self.m.tr_mul(h);
        Extent { width: norm(&v), v }
    }

    /// Algorithm 1: replaces `E` by the smallest ellipsoid containing
    /// `E ∩ {x : h·x ≤ δ}`. Shallow cuts (`α < 0`) are taken down to
    /// `α = −1/n`; a halfspace containing `E` leaves it as it is.
    pub fn cut(&mut self, h: &SVector<R, D>, delta: R) -> Cut {
        let ext = self.extent(h);
        self.cut_along(h, delta, &ext)
    }

    /// [`cut`](Self::cut) with the extent along `h` already computed.
    pub fn cut_along(&mut self, h: &SVector<R, D>, delta: R, ext: &Extent<R, D>) -> Cut {
        let (v, s) = (ext.v, ext.width);
        if !(s > R::ZERO) || !s.finite() {
            return Cut::Degenerate;
        }
        let alpha = (h.dot(&self.e) - delta) / s;
        let n = R::lit(D as f64);
        if !(alpha < R::ONE) {
            return if alpha.finite() { Cut::Empty } else { Cut::Degenerate };
        }
        if alpha * n <= -R::ONE {
            return Cut::Done;
        }
        let w = v / s;
        // g = P h / sqrt(hᵀPh) = M w.
        let g = self.m * w;
        let one_n_alpha = R::ONE + n * alpha;
        let e = self.e - g * (one_n_alpha / (n + R::ONE));
        let shrink = n * n / (n * n - R::ONE) * (R::ONE - alpha * alpha);
        let beta = R::TWO * one_n_alpha / ((n + R::ONE) * (R::ONE + alpha));
        let rest = R::ONE - beta;
        let gamma = R::ONE - if rest > R::ZERO { Real::sqrt(rest) } else { R::ZERO };
        let m = (self.m - g * w.transpose() * gamma) * Real::sqrt(shrink);
        if !(e.iter().all(|c| c.finite()) && m.iter().all(|c| c.finite())) {
            return Cut::Degenerate;
        }
        self.e = e;
        self.m = m;
        Cut::Done
    }
}

/// Lemma 2: the ellipsoid of revolution with semi-axis `a` along the unit
/// vector `u` and `b` across it: `P = b²I + (a² − b²)uuᵀ`, whose symmetric
/// square root is `M = bI + (a − b)uuᵀ`.
fn revolution<R: Real, const D: usize>(a: R, b: R, u: &SVector<R, D>) -> SMatrix<R, D, D> {
    SMatrix::identity() * b + u * u.transpose() * (a - b)
}

/// Algorithm 3: the smallest ellipsoid containing the intersection of the
/// balls `S(c_a, r_a)` and `S(c_b, r_b)`; `None` when it is empty
/// (`|c_a − c_b| > r_a + r_b`). An infinite radius (an unbounded body) gives
/// the other ball; both infinite is `None` too (nothing bounds the search).
///
/// The lens is symmetric about the plane of its rim circle (radius `b`),
/// which cuts the centre line at `d_a` from `c_a`; the cap on the smaller
/// ball's side is the deeper one, `a = r_b − d_b` (Appendix B.2). The paper
/// writes `b = sqrt(r_a² − d_a²)`; `sqrt(r_b² − d_b²)` is the same in its
/// case 2 and gives the smaller ball itself in case 3.
pub(crate) fn lens<R: Real, const D: usize>(
    c_a: &SVector<R, D>,
    r_a: R,
    c_b: &SVector<R, D>,
    r_b: R,
) -> Option<SearchEllipsoid<R, D>> {
    let (c_a, r_a, c_b, r_b) = if r_b > r_a { (c_b, r_b, c_a, r_a) } else { (c_a, r_a, c_b, r_b) };
    // Now r_b <= r_a (or r_a is NaN: refused, never read as unbounded).
    if !r_b.finite() || !(r_b >= R::ZERO) || is_nan(r_a) {
        return None;
    }
    if !r_a.finite() {
        return Some(SearchEllipsoid::ball(*c_b, r_b));
    }
    let diff = c_b - c_a;
    let d = norm(&diff);
    if !(d <= r_a + r_b) {
        return None;
    }
    // Case 3 (the smaller ball lies in the larger one past its rim plane),
    // including concentric balls: the smaller ball.
    if d * d <= (r_a - r_b) * (r_a + r_b) || !(d > R::ZERO) {
        return Some(SearchEllipsoid::ball(*c_b, r_b));
    }
    let s = (r_a - r_b) * (r_a + r_b) / d;
    let d_a = (d + s) * R::HALF;
    let d_b = d - d_a;
    let u = diff / d;
    let b2 = (r_b - d_b) * (r_b + d_b);
    let b = if b2 > R::ZERO { Real::sqrt(b2) } else { R::ZERO };
    let a = r_b - d_b;
    if !(a > R::ZERO) || !(b > R::ZERO) {
        // Balls touching in one point: a tiny ball around it keeps P definite.
        let c = c_a + u * r_a;
        let tiny = (r_a + r_b) * R::EPSILON;
        return Some(SearchEllipsoid::ball(c, tiny));
    }
    Some(SearchEllipsoid { e: c_a + u * d_a, m: revolution(a, b, &u) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    fn inside<const D: usize>(e: &SearchEllipsoid<f64, D>, x: &SVector<f64, D>) -> bool {
        let y = x - e.e;
        let p = e.m * e.m.transpose();
        let q = y.dot(&(p.try_inverse().unwrap() * y));
        q <= 1.0 + 1e-9
    }

    #[test]
    fn lens_contains_the_intersection_and_touches_it() {
        // Brute force in 2D: sample the intersection of two discs.
        let (ca, ra, cb, rb) = (Vector2::new(0.0, 0.0), 2.0, Vector2::new(2.5, 0.5), 1.2);
        let e = lens(&ca, ra, &cb, rb).unwrap();
        let mut extreme: f64 = 0.0;
        for i in 0..400 {
            for j in 0..400 {
                let x = Vector2::new(-2.0 + 6.0 * i as f64 / 399.0, -3.0 + 6.0 * j as f64 / 399.0);
                if (x - ca).norm() <= ra && (x - cb).norm() <= rb {
                    assert!(inside(&e, &x), "{x:?}");
                    let y = x - e.e;
                    let p = e.m * e.m.transpose();
                    extreme = extreme.max(y.dot(&(p.try_inverse().unwrap() * y)));
                }
            }
        }
        // Minimal: the lens reaches the ellipse's boundary.
        assert!(extreme > 0.97, "{extreme}");
    }

    #[test]
    fn lens_cases() {
        let c = Vector3::zeros();
        assert!(lens(&c, 1.0, &Vector3::new(3.0, 0.0, 0.0), 1.0).is_none());
        // Case 3: small ball deep inside: itself.
        let e = lens(&c, 5.0, &Vector3::new(1.0, 0.0, 0.0), 1.0).unwrap();
        assert_eq!(e.e, Vector3::new(1.0, 0.0, 0.0));
        assert!((e.m - SMatrix::<f64, 3, 3>::identity()).norm() < 1e-12);
        // Unbounded body: the other ball.
        let e = lens(&c, f64::INFINITY, &Vector3::new(9.0, 0.0, 0.0), 2.0).unwrap();
        assert_eq!(e.e.x, 9.0);
        assert!(lens(&c, f64::INFINITY, &c, f64::INFINITY).is_none());
        assert!(lens(&c, f64::NAN, &c, 1.0).is_none());
        assert!(lens(&c, 1.0, &c, f64::NAN).is_none());
        assert!(lens(&c, 1.0, &Vector3::new(f64::NAN, 0.0, 0.0), 1.0).is_none());
    }

    #[test]
    fn cut_contains_the_kept_half_and_shrinks() {
        let mut e = SearchEllipsoid::ball(Vector2::new(0.0, 0.0), 1.0);
        let h = Vector2::new(1.0, 0.0);
        assert_eq!(e.cut(&h, 0.3), Cut::Done);
        // Points of the unit disc with x <= 0.3 stay inside.
        for k in 0..360 {
            let t = k as f64 * core::f64::consts::PI / 180.0;
            for r in [0.2, 0.6, 1.0] {
                let x = Vector2::new(r * t.cos(), r * t.sin());
                if x.x <= 0.3 {
                    assert!(inside(&e, &x), "{x:?}");
                }
            }
        }
        assert!(e.m.determinant().abs() < 1.0);
        assert_eq!(e.cut(&h, -10.0), Cut::Empty);
        assert_eq!(e.cut(&Vector2::zeros(), 0.0), Cut::Degenerate);
    }
}
