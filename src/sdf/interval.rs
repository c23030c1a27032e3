//! Interval arithmetic with outward rounding (Liu et al. §3, after Moore).
//!
//! An [`Interval`] `[lo, hi]` stands for every real number between its
//! bounds. Each operation returns an interval that contains every result of
//! the operation on members of its operands: the bounds are computed in the
//! working precision (round to nearest, at most half an ulp off) and then
//! widened by one representable step each way (`next_down`/`next_up`), so
//! the exact real result is always inside, for `f32` as for `f64`. Exact
//! operations (negation, `abs`, `min`, `max`) are not widened.
//!
//! NaN is not a number here either: an operation with a NaN bound gives a
//! NaN bound, and every test on such an interval (`lo > 0`, `hi < 0`) is
//! false, so the octree never classifies such a cell ([`super::octree`]).
//!
//! Caveat: on a core that flushes subnormals to zero, a bound within a
//! subnormal of zero may lose its last step (the error is below 1.2e-38 for
//! `f32`); the Cortex-M FPUs keep subnormals by default.

use crate::error::ShapeError;
use crate::math::{is_nan, Real};
use core::ops::{Add, Mul, Neg, Sub};

/// A closed interval `[lo, hi]` of reals.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::interval::Interval;
/// let x = Interval::new(-1.0_f32, 2.0).unwrap();
/// let y = x * x; // [-2, 4]: the product knows nothing of the dependency
/// assert!(y.lo() <= -2.0 && y.hi() >= 4.0);
/// let s = x.sqr(); // [0, 4]: the square does
/// assert!(s.lo() == 0.0 && s.hi() >= 4.0 && s.hi() < 4.001);
/// // Outward rounding: 0.1 + 0.2 is not representable, the true sum is inside.
/// let t = Interval::point(0.1_f64) + Interval::point(0.2);
/// assert!(t.lo() < t.hi() && t.contains(0.1 + 0.2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Interval<R> {
    lo: R,
    hi: R,
}

impl<R: Real> Interval<R> {
    /// `[lo, hi]`. Infinite bounds are allowed; a point interval `lo = hi`
    /// too.
    ///
    /// # Errors
    ///
    /// - [`ShapeError::NonFinite`] if a bound is NaN;
    /// - [`ShapeError::NonPositiveSize`] if `lo > hi`.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::interval::Interval;
    /// use narrowphase::error::ShapeError;
    /// let all = Interval::new(f64::NEG_INFINITY, f64::INFINITY).unwrap();
    /// assert!(all.contains(1e300));
    /// assert_eq!(Interval::new(1.0, 0.0), Err(ShapeError::NonPositiveSize));
    /// assert_eq!(Interval::new(f64::NAN, 0.0), Err(ShapeError::NonFinite));
    /// ```
    pub fn new(lo: R, hi: R) -> Result<Self, ShapeError> {
        if is_nan(lo) || is_nan(hi) {
            return Err(ShapeError::NonFinite);
        }
        if !(lo <= hi) {
            return Err(ShapeError::NonPositiveSize);
        }
        Ok(Self { lo, hi })
    }

    /// The degenerate interval `[x, x]`.
    #[inline]
    pub fn point(x: R) -> Self {
        Self { lo: x, hi: x }
    }

    /// Bounds as computed, without checks (the operations below keep
    /// `lo ≤ hi` for valid operands).
    #[inline(always)]
    pub(crate) fn raw(lo: R, hi: R) -> Self {
        Self { lo, hi }
    }

    /// `[lo, hi]` widened one step each way: the enclosure of a result whose
    /// bounds were rounded to nearest.
    #[inline(always)]
    fn outward(lo: R, hi: R) -> Self {
        Self { lo: lo.next_down_(), hi: hi.next_up_() }
    }

    /// The invalid interval (NaN bounds).
    #[inline]
    fn nan() -> Self {
        let nan = R::INFINITY * R::ZERO;
        Self { lo: nan, hi: nan }
    }

    /// Lower bound.
    #[inline(always)]
    pub fn lo(&self) -> R {
        self.lo
    }

    /// Upper bound.
    #[inline(always)]
    pub fn hi(&self) -> R {
        self.hi
    }

    /// `true` when `lo ≤ x ≤ hi`.
    #[inline]
    pub fn contains(&self, x: R) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// `true` when a bound is NaN (the result of an invalid operation).
    #[inline]
    pub fn is_nan(&self) -> bool {
        is_nan(self.lo) || is_nan(self.hi)
    }

    /// `hi − lo` (rounded up).
    #[inline]
    pub fn width(&self) -> R {
        (self.hi - self.lo).next_up_()
    }

    /// The midpoint (halves first: no overflow).
    #[inline]
    pub fn mid(&self) -> R {
        self.lo * R::HALF + self.hi * R::HALF
    }

    /// The smallest interval holding both.
    #[inline]
    pub fn hull(self, other: Self) -> Self {
        Self { lo: nan_min(self.lo, other.lo), hi: nan_max(self.hi, other.hi) }
    }

    /// `{|x|}`: `[min |·|, max |·|]`, or `[0, max]` when the interval holds 0.
    #[inline]
    pub fn abs(self) -> Self {
        if self.lo >= R::ZERO {
            self
        } else if self.hi <= R::ZERO {
            -self
        } else {
            let m = if -self.lo > self.hi { -self.lo } else { self.hi };
            Self { lo: R::ZERO, hi: m }
        }
    }

    /// `{x²}` (tighter than `x·x`, which ignores that both factors are equal).
    #[inline]
    pub fn sqr(self) -> Self {
        let a = self.abs();
        let lo = (a.lo * a.lo).next_down_();
        Self { lo: if lo < R::ZERO { R::ZERO } else { lo }, hi: (a.hi * a.hi).next_up_() }
    }

    /// `{√x : x ≥ 0}`: the part below zero is dropped (`[0, √hi]` when the
    /// interval straddles 0); an interval entirely below zero gives NaN.
    #[inline]
    pub fn sqrt(self) -> Self {
        if self.hi < R::ZERO {
            return Self::nan();
        }
        let lo = if self.lo > R::ZERO { Real::sqrt(self.lo).next_down_() } else { R::ZERO };
        Self { lo: if lo < R::ZERO { R::ZERO } else { lo }, hi: Real::sqrt(self.hi).next_up_() }
    }

    /// `{min(x, y)}` (exact).
    #[inline]
    pub fn min(self, other: Self) -> Self {
        Self { lo: nan_min(self.lo, other.lo), hi: nan_min(self.hi, other.hi) }
    }

    /// `{max(x, y)}` (exact).
    #[inline]
    pub fn max(self, other: Self) -> Self {
        Self { lo: nan_max(self.lo, other.lo), hi: nan_max(self.hi, other.hi) }
    }

    /// `{c·x}` for a real `c`.
    #[inline]
    pub fn scale(self, c: R) -> Self {
        let (p, q) = (self.lo * c, self.hi * c);
        if c >= R::ZERO {
            Self::outward(p, q)
        } else {
            Self::outward(q, p)
        }
    }

    /// `{x / c}` for a real `c > 0` (NaN bounds for any other `c`).
    #[inline]
    pub fn div_positive(self, c: R) -> Self {
        if !(c > R::ZERO) {
            return Self::nan();
        }
        Self::outward(self.lo / c, self.hi / c)
    }

    /// `{x + c}` for a real `c`.
    #[inline]
    pub fn add_real(self, c: R) -> Self {
        Self::outward(self.lo + c, self.hi + c)
    }
}

/// NaN-propagating minimum of two bounds.
#[inline(always)]
fn nan_min<R: Real>(a: R, b: R) -> R {
    if is_nan(a) {
        a
    } else if is_nan(b) || b < a {
        b
    } else {
        a
    }
}

/// NaN-propagating maximum of two bounds.
#[inline(always)]
fn nan_max<R: Real>(a: R, b: R) -> R {
    -nan_min(-a, -b)
}

impl<R: Real> Add for Interval<R> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::outward(self.lo + o.lo, self.hi + o.hi)
    }
}

impl<R: Real> Sub for Interval<R> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::outward(self.lo - o.hi, self.hi - o.lo)
    }
}

impl<R: Real> Neg for Interval<R> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self { lo: -self.hi, hi: -self.lo }
    }
}

impl<R: Real> Mul for Interval<R> {
    type Output = Self;
    /// The hull of the four corner products (a zero factor times an
    /// infinite bound is taken as 0, the limit of the products).
    #[inline]
    fn mul(self, o: Self) -> Self {
        let p = |a: R, b: R| if a == R::ZERO || b == R::ZERO { R::ZERO } else { a * b };
        let (p1, p2, p3, p4) = (p(self.lo, o.lo), p(self.lo, o.hi), p(self.hi, o.lo), p(self.hi, o.hi));
        let lo = nan_min(nan_min(p1, p2), nan_min(p3, p4));
        let hi = nan_max(nan_max(p1, p2), nan_max(p3, p4));
        Self::outward(lo, hi)
    }
}

/// The interval box `[lo, hi]` per axis of an [`Aabb`](super::Aabb).
#[inline]
pub fn box_intervals<R: Real, const D: usize>(b: &super::Aabb<R, D>) -> [Interval<R>; D] {
    core::array::from_fn(|i| Interval::raw(b.min[i], b.max[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact reference: f32 bounds and operations checked in f64, where the
    /// f32 operations below are exact (products of two f32 fit in f64).
    #[test]
    fn f32_operations_contain_the_exact_result() {
        let vals = [-3.7_f32, -1.0, -0.1, 0.0, 0.3, 1.0e-3, 2.5, 7.0e5, 1.1];
        for &a in &vals {
            for &b in &vals {
                let (x, y) = (Interval::point(a), Interval::point(b));
                let (ea, eb) = (a as f64, b as f64);
                let check = |i: Interval<f32>, exact: f64| {
                    assert!((i.lo() as f64) <= exact && exact <= i.hi() as f64, "{i:?} ∌ {exact}");
                };
                check(x + y, ea + eb);
                check(x - y, ea - eb);
                check(x * y, ea * eb);
                check(x.sqr(), ea * ea);
                check(x.scale(b), ea * eb);
                check(x.add_real(b), ea + eb);
                if b > 0.0 {
                    check(x.div_positive(b), ea / eb);
                }
                if a >= 0.0 {
                    check(x.sqrt(), ea.sqrt());
                }
            }
        }
    }

    #[test]
    fn ranges_and_special_values() {
        let x = Interval::new(-2.0_f64, 3.0).unwrap();
        let y = Interval::new(-1.0, 5.0).unwrap();
        let p = x * y;
        assert!(p.lo() <= -10.0 && p.hi() >= 15.0 && p.lo() > -10.0001 && p.hi() < 15.0001);
        assert_eq!(x.abs(), Interval::new(0.0, 3.0).unwrap());
        assert_eq!(x.min(y), Interval::new(-2.0, 3.0).unwrap());
        assert_eq!(x.max(y), Interval::new(-1.0, 5.0).unwrap());
        assert_eq!(Interval::new(-4.0, 9.0).unwrap().sqrt().lo(), 0.0);
        assert!(Interval::new(-4.0, -1.0).unwrap().sqrt().is_nan());
        assert!(Interval::new(f64::NAN, 1.0).is_err());
        assert!(Interval::new(2.0, 1.0).is_err());
        let inf = Interval::new(f64::NEG_INFINITY, f64::INFINITY).unwrap();
        let zero = inf * Interval::point(0.0);
        assert!(zero.contains(0.0) && zero.hi() < 1e-300 && zero.lo() > -1e-300, "{zero:?}");
        let nan = Interval::raw(f64::NAN, 1.0);
        assert!((nan + x).is_nan() && nan.min(x).is_nan() && nan.max(x).is_nan());
        assert!(!(nan.lo() > 0.0) && !(nan.hi() < 0.0));
    }
}
