//! The ellipsoid method on `φ_AB(x) = max(φ_A(x), φ_B(x))` (the paper's
//! §3–4): collision, distance and inscribed-ball penetration of two bodies
//! given by their SDFs, in any small dimension.
//!
//! `φ_AB` is an implicit function of `A ∩ B`, and its minimum `φ*`
//! (Proposition 1) is
//! - negative when the bodies overlap: `−φ*` is the radius of the largest
//!   ball inscribed in `A ∩ B` (the Chebyshev ball, centred at the optimum
//!   `x*`), a penetration measure that agrees with the translational depth
//!   on flat contacts (`2·(−φ*)`) and underestimates it on sharp ones;
//! - positive when they are apart: half their distance, attained halfway
//!   between the closest points.
//!
//! For convex bodies `φ_AB` is convex, and the ellipsoid method minimises it
//! with certified bounds `f⁻ ≤ φ* ≤ f⁺` (Algorithm 2): each step evaluates
//! `f` and a subgradient at the centre of an ellipsoid known to contain
//! `x*`, and replaces it by the smallest ellipsoid holding the part where
//! the linearisation does not exceed `f⁺` (Algorithm 1).
//!
//! # Exact flags from approximate SDFs
//! `φ_AB < 0` exactly where both SDFs are negative (an R-function), so with
//! SDFs that are lower bounds with the right sign ([`SdfAccuracy::LowerBound`])
//! the collision answer is still exact: every cutting plane is a supporting
//! halfspace of a true body, so no cut ever removes a point of `A ∩ B`. The
//! distance and depth are then those of the approximation, and the bounds
//! are not a proof: the cutting-plane argument needs a convex function, and
//! the bounds (the ellipsoid's Eq. 21 value, the polytope's Algorithm 4) are
//! not convex inside the body ([`SdfContact::certified`] is `false`).
//!
//! # Starting region
//! Algorithm 3 on the bodies' bounding balls grown by an upper bound `f⁺`
//! (Proposition 3), evaluated first at the optimum of the two balls
//! (Lemma 3, which also gives the first lower bound), then cut by the known
//! bounding halfspaces (Proposition 4): those of [`InitialRegion`] and, on a
//! warm start, the supporting halfspaces found by the previous query, moved
//! by the declared motion. Bounding balls that do not meet are a proof of
//! separation; [`Stop::Decided`] returns it at once.

use super::region::{lens, Cut, SearchEllipsoid};
use super::{project, Ball, Sdf, SdfAccuracy, SdfSample, SdfWarmStart};
use crate::math::{is_nan, max, min, norm, normalize, Real};
use crate::query::{Bounds, Budget, Stop, Undetermined};
use nalgebra::SVector;

/// Options of the ellipsoid method: budget and stopping rule.
///
/// The tolerance of the [`Budget`] is relative to the size of the problem
/// (the larger finite bounding radius), plus the rounding error of the
/// coordinates (`16·ε` times their magnitude).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EllipsoidMethod<R> {
    /// Iteration cap and relative tolerance on `f⁺ − f⁻`.
    pub budget: Budget<R>,
    /// When to stop.
    pub stop: Stop,
}

impl<R: Real> EllipsoidMethod<R> {
    /// The default budget: 500 iterations, relative tolerance
    /// `max(1000·ε, 1e-7)` (≈1.2e-4 for f32, 1e-7 for f64). The method
    /// converges linearly — each step shrinks the ellipsoid's volume by at
    /// least `e^(−1/(2(n+1)))` — so the f64 machine-precision tolerance of
    /// GJK's default budget would cost hundreds of extra steps.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// let b = EllipsoidMethod::<f32>::default_budget();
    /// assert_eq!((b.max_iterations, b.tolerance), (500, 1000.0 * f32::EPSILON));
    /// assert_eq!(EllipsoidMethod::<f64>::default_budget().tolerance, 1e-7);
    /// ```
    pub fn default_budget() -> Budget<R> {
        Budget { max_iterations: 500, tolerance: max(R::EPSILON * R::lit(1000.0), R::lit(1.0e-7)) }
    }
    /// Collision detection: stop at the first certain sign.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Translation3;
    /// let ball = |x: f64| Placed::new(Sphere::new(1.0).unwrap(),
    ///     Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default()));
    /// let m = EllipsoidMethod::collision();
    /// assert_eq!(m.solve(&ball(0.0), &ball(1.5), &mut EllipsoidWarmStart::default()).is_penetrating(), Some(true));
    /// assert_eq!(m.solve(&ball(0.0), &ball(2.5), &mut EllipsoidWarmStart::default()).is_penetrating(), Some(false));
    /// ```
    pub fn collision() -> Self {
        Self { budget: Self::default_budget(), stop: Stop::Decided }
    }
    /// Distance (apart) or inscribed-ball depth (overlapping) to tolerance.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Translation3;
    /// let ball = |x: f64| Placed::new(Sphere::new(1.0).unwrap(),
    ///     Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default()));
    /// let m = EllipsoidMethod::distance();
    /// // Unit balls 3 apart: distance 1.
    /// let apart = m.solve(&ball(0.0), &ball(3.0), &mut EllipsoidWarmStart::default());
    /// assert!((apart.contact().unwrap().signed_distance() - 1.0).abs() < 1e-5);
    /// // 1.5 apart: their lens is 0.5 wide, its inscribed ball has radius 0.25.
    /// let deep = m.solve(&ball(0.0), &ball(1.5), &mut EllipsoidWarmStart::default());
    /// assert!((deep.contact().unwrap().inscribed_radius() - 0.25).abs() < 1e-5);
    /// ```
    pub fn distance() -> Self {
        Self { budget: Self::default_budget(), stop: Stop::Converged }
    }
}

/// Knowledge the caller has about where the optimum is (Propositions 3–4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InitialRegion<R: Real, const D: usize> {
    /// An upper bound `φ⁺ ≥ φ*`, e.g. from the previous tick (`+∞`: none).
    pub upper_bound: R,
    /// A halfspace `{x : h·x ≤ δ}` containing body A, as `(h, δ)`.
    pub halfspace_a: Option<(SVector<R, D>, R)>,
    /// A halfspace containing body B.
    pub halfspace_b: Option<(SVector<R, D>, R)>,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for InitialRegion<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "InitialRegion {{ upper_bound: {}, halfspace_a: {}, halfspace_b: {} }}",
            self.upper_bound,
            self.halfspace_a.is_some(),
            self.halfspace_b.is_some()
        )
    }
}

impl<R: Real, const D: usize> Default for InitialRegion<R, D> {
    fn default() -> Self {
        Self { upper_bound: R::INFINITY, halfspace_a: None, halfspace_b: None }
    }
}

/// The answer of a determined query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdfContact<R: Real, const D: usize> {
    /// `φ_AB(x)` at the point returned, the best value found (`≥ f⁺`, equal
    /// unless a warm-start bound was better): half the distance when apart,
    /// minus the inscribed-ball radius when overlapping.
    pub phi: R,
    /// `f⁻ ≤ φ* ≤ f⁺`: a certificate when [`certified`](Self::certified).
    pub bounds: Bounds<R>,
    /// Both SDFs exact: `bounds` is a proof. With a lower-bound SDF the
    /// collision flag is still exact (outside the tolerance band) but the
    /// approximation is not convex inside the body, so the bounds of an
    /// overlapping pair are estimates (seen off by up to 8 % of the depth).
    pub certified: bool,
    /// The optimum `x*` (the centre of the inscribed ball, or the midpoint
    /// of the closest points).
    pub x: SVector<R, D>,
    /// `x − φ_A(x)∇φ_A(x)`: on A's surface (closest or deepest point).
    pub point_a: SVector<R, D>,
    /// `x − φ_B(x)∇φ_B(x)`: on B's surface.
    pub point_b: SVector<R, D>,
    /// Unit normal from A towards B: `(∇φ_A − ∇φ_B)/|…|` at `x`.
    pub normal: SVector<R, D>,
    /// Iterations of Algorithm 2 used.
    pub iterations: u32,
}

impl<R: Real, const D: usize> SdfContact<R, D> {
    /// The distance `2φ*` (apart; negative when overlapping: `−2·radius`).
    pub fn signed_distance(&self) -> R {
        self.phi + self.phi
    }
    /// The inscribed-ball radius `−φ*` (overlapping; negative when apart).
    pub fn inscribed_radius(&self) -> R {
        -self.phi
    }
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for SdfContact<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "SdfContact {{ phi: {}, bounds: {}, certified: {}, x: {}, normal: {}, iterations: {} }}",
            self.phi,
            self.bounds,
            self.certified,
            self.x.as_slice(),
            self.normal.as_slice(),
            self.iterations
        )
    }
}

/// What the ellipsoid method found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum EllipsoidMethodOutcome<R: Real, const D: usize> {
    /// Certified apart: `f⁻ > 0`, or (a collision query, [`Stop::Decided`])
    /// `A ∩ B` proven empty, with `bounds.lower` then 0.
    Separated(SdfContact<R, D>),
    /// Overlapping (`f⁺ ≤ 0`: a common point was found), or touching within
    /// the tolerance: `f⁻ ≤ 0 < f⁺` with the gap `f⁺ − f⁻` within the
    /// tolerance, where `phi` may be positive by at most that gap. The other
    /// query families report touching the same way; a pair is reported apart
    /// only with a proof.
    Penetrating(SdfContact<R, D>),
    /// The cap was reached, or the input or the arithmetic failed; `bounds`
    /// bracket `φ*` as far as the method got.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Bounds on `φ*` (half the signed distance).
        bounds: Bounds<R>,
        /// Iterations used.
        iterations: u32,
    },
}

impl<R: Real, const D: usize> EllipsoidMethodOutcome<R, D> {
    /// `Some(true)` overlapping, `Some(false)` apart, `None` undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            Self::Separated(_) => Some(false),
            Self::Penetrating(_) => Some(true),
            Self::Undetermined { .. } => None,
        }
    }
    /// The contact, when determined.
    pub fn contact(&self) -> Option<&SdfContact<R, D>> {
        match self {
            Self::Separated(c) | Self::Penetrating(c) => Some(c),
            Self::Undetermined { .. } => None,
        }
    }
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for EllipsoidMethodOutcome<R, D> {
    fn format(&self, f: defmt::Formatter) {
        match self {
            Self::Separated(c) => defmt::write!(f, "Separated({})", c),
            Self::Penetrating(c) => defmt::write!(f, "Penetrating({})", c),
            Self::Undetermined { reason, bounds, iterations } => {
                defmt::write!(
                    f,
                    "Undetermined {{ reason: {}, bounds: {}, iterations: {} }}",
                    reason,
                    bounds,
                    iterations
                )
            }
        }
    }
}

/// Caller-owned warm-start state (Propositions 4–5, Corollary 1).
///
/// After a query it holds the optimum, both SDF samples there and the
/// bounds. Before the next query, declare how far the bodies moved with
/// [`moved`](Self::moved): the largest displacement of any point of A plus
/// that of any point of B (for a translation, its length; for a rigid
/// motion, `|Δt| + |Δθ|·radius`). The next query then starts from
/// - the upper bound `max(min(φ_A,0), min(φ_B,0), (φ_A + φ_B + m)/2)` —
///   Lemma 3 on the balls the old samples certify, i.e. Corollary 1
///   generalised to any point and any motion (exact SDFs only) — and the
///   value at the old optimum;
/// - the lower bound `f⁻ − m/2` (Proposition 5, exact SDFs only);
/// - the two supporting halfspaces `φ(x*) + ∇φ(x*)·(y − x*) ≤ m` of the bodies
///   (Proposition 4), which cut the starting ellipsoid to a slab around the
///   contact.
///
/// A fresh value (`Default`) means a cold start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EllipsoidWarmStart<R: Real, const D: usize> {
    valid: bool,
    exact: bool,
    x: SVector<R, D>,
    a: SdfSample<R, D>,
    b: SdfSample<R, D>,
    lower: R,
    motion: R,
    /// Algorithm 4's face hint for A (and the same for any hinted SDF).
    pub hint_a: SdfWarmStart,
    /// The hint for B.
    pub hint_b: SdfWarmStart,
    /// Iterations of the last query.
    pub iterations: u32,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for EllipsoidWarmStart<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "EllipsoidWarmStart {{ valid: {}, motion: {}, iterations: {} }}",
            self.valid,
            self.motion,
            self.iterations
        )
    }
}

impl<R: Real, const D: usize> Default for EllipsoidWarmStart<R, D> {
    fn default() -> Self {
        let zero = SdfSample { value: R::ZERO, gradient: SVector::zeros() };
        Self {
            valid: false,
            exact: false,
            x: SVector::zeros(),
            a: zero,
            b: zero,
            lower: -R::INFINITY,
            motion: R::ZERO,
            hint_a: SdfWarmStart(0),
            hint_b: SdfWarmStart(0),
            iterations: 0,
        }
    }
}

impl<R: Real, const D: usize> EllipsoidWarmStart<R, D> {
    /// Declare that the bodies moved by at most `displacement` (summed over
    /// both) since the last query; accumulates until the next query. A
    /// negative or non-finite value forgets the state (cold start).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use nalgebra::Translation3;
    /// let a = Placed::new(Sphere::new(1.0_f32).unwrap(), Pose::identity());
    /// let at_3 = Pose::from_parts(Translation3::new(3.0, 0.0, 0.0), Default::default());
    /// let b = Placed::new(Sphere::new(1.0).unwrap(), at_3);
    /// let mut warm = EllipsoidWarmStart::default();
    /// assert!(!warm.is_warm());
    /// let _ = EllipsoidMethod::distance().solve(&a, &b, &mut warm);
    /// assert!(warm.is_warm());
    /// warm.moved(0.1); // still warm: the next query starts from the old answer
    /// assert!(warm.is_warm());
    /// warm.moved(f32::NAN); // unknown motion: cold start
    /// assert!(!warm.is_warm());
    /// ```
    pub fn moved(&mut self, displacement: R) {
        if displacement >= R::ZERO && displacement.finite() {
            self.motion += displacement;
        } else {
            self.valid = false;
        }
    }
    /// Forget the state: the next query starts cold.
    pub fn reset(&mut self) {
        self.valid = false;
    }
    /// Whether the next query will be warm-started.
    pub fn is_warm(&self) -> bool {
        self.valid
    }
}

/// Value and subgradient both finite.
#[inline(always)]
fn finite_sample<R: Real, const D: usize>(s: &SdfSample<R, D>) -> bool {
    s.value.finite() && s.gradient.iter().all(|c| c.finite())
}

/// `(f, ∂f)` of `max(φ_A, φ_B)` from the two samples.
#[inline(always)]
fn combine<R: Real, const D: usize>(a: &SdfSample<R, D>, b: &SdfSample<R, D>) -> (R, SVector<R, D>) {
    if b.value > a.value {
        (b.value, b.gradient)
    } else {
        (a.value, a.gradient)
    }
}

/// Working state of one query.
struct Run<R: Real, const D: usize> {
    /// Certified bounds on φ*.
    upper: R,
    lower: R,
    /// The best point evaluated, its value and samples.
    best_value: R,
    best: SVector<R, D>,
    best_a: SdfSample<R, D>,
    best_b: SdfSample<R, D>,
    iterations: u32,
    /// The bounding balls, and whether every sample so far agreed with them.
    balls: (Ball<R, D>, Ball<R, D>),
    exact: bool,
    slack: R,
    balls_hold: bool,
    /// `A ∩ B` proven empty (a collision query's proof of `φ* > 0`, whose
    /// lower bound stays 0).
    apart: bool,
}

impl<R: Real, const D: usize> Run<R, D> {
    /// Does the sample contradict "the body lies in its ball"? With an exact
    /// SDF its value can never be below the ball's SDF; with a bound, a point
    /// inside the body can never be outside the ball.
    /// Compared squared, without a square root.
    fn leaks(&self, ball: &Ball<R, D>, x: &SVector<R, D>, s: &SdfSample<R, D>) -> bool {
        let d = x - ball.center;
        let d2 = d.dot(&d);
        if self.exact {
            // value < |d| − r − slack  <=>  value + r + slack < |d|
            let t = s.value + ball.radius + self.slack;
            t < R::ZERO || t * t < d2
        } else {
            // inside the body (value < −slack) but outside the ball (|d| > r + slack)
            let t = ball.radius + self.slack;
            s.value < -self.slack && t * t < d2
        }
    }

    fn offer(&mut self, x: &SVector<R, D>, a: &SdfSample<R, D>, b: &SdfSample<R, D>) -> (R, SVector<R, D>) {
        if self.leaks(&self.balls.0, x, a) || self.leaks(&self.balls.1, x, b) {
            self.balls_hold = false;
        }
        let (f, g) = combine(a, b);
        if f < self.upper {
            self.upper = f;
        }
        if f < self.best_value {
            self.best_value = f;
            self.best = *x;
            self.best_a = *a;
            self.best_b = *b;
        }
        (f, g)
    }
}

impl<R: Real> EllipsoidMethod<R> {
    /// Runs the method on `a` and `b`; `warm` is read (when valid) and
    /// updated. See the module docs.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::{Sdf, Transformed};
    /// use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidWarmStart};
    /// use narrowphase::sdf::ellipsoid_method::EllipsoidMethodOutcome;
    /// use narrowphase::shape::{Cuboid, Placed, Sphere};
    /// use narrowphase::math::Pose;
    /// use nalgebra::{Translation3, Vector3};
    ///
    /// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(), Pose::identity());
    /// let b = Placed::new(Sphere::new(0.5).unwrap(), Pose::from_parts(Translation3::new(3.0, 0.0, 0.0), Default::default()));
    /// let mut warm = EllipsoidWarmStart::default();
    /// match EllipsoidMethod::distance().solve(&a, &b, &mut warm) {
    ///     EllipsoidMethodOutcome::Separated(c) => {
    ///         assert!((c.signed_distance() - 1.5).abs() < 1e-5);
    ///         assert!((c.point_a - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-3);
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// // Next tick: the sphere moved 0.7 towards the box.
    /// let b = Placed::new(Sphere::new(0.5).unwrap(), Pose::from_parts(Translation3::new(2.3, 0.0, 0.0), Default::default()));
    /// warm.moved(0.7);
    /// let out = EllipsoidMethod::distance().solve(&a, &b, &mut warm);
    /// assert!((out.contact().unwrap().signed_distance() - 0.8).abs() < 1e-5);
    /// ```
    pub fn solve<const D: usize, A, B>(
        &self,
        a: &A,
        b: &B,
        warm: &mut EllipsoidWarmStart<R, D>,
    ) -> EllipsoidMethodOutcome<R, D>
    where
        A: Sdf<R, D> + ?Sized,
        B: Sdf<R, D> + ?Sized,
    {
        self.solve_from(a, b, warm, &InitialRegion::default())
    }

    /// As [`solve`](Self::solve), with what the caller knows about the
    /// optimum's whereabouts (Propositions 3–4).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::sdf::ellipsoid_method::InitialRegion;
    /// use nalgebra::{Translation3, Vector3};
    /// let a = Placed::new(Sphere::new(1.0_f64).unwrap(), Pose::identity());
    /// let at_3 = Pose::from_parts(Translation3::new(3.0, 0.0, 0.0), Default::default());
    /// let b = Placed::new(Sphere::new(1.0).unwrap(), at_3);
    /// // Known: A lies in x ≤ 1, B in x ≥ 2, and φ* ≤ 1 (e.g. from the last tick).
    /// let known = InitialRegion {
    ///     upper_bound: 1.0,
    ///     halfspace_a: Some((Vector3::x(), 1.0)),
    ///     halfspace_b: Some((-Vector3::x(), -2.0)),
    /// };
    /// let out = EllipsoidMethod::distance().solve_from(&a, &b, &mut EllipsoidWarmStart::default(), &known);
    /// let c = out.contact().unwrap();
    /// assert!((c.signed_distance() - 1.0).abs() < 1e-5);
    /// assert!((c.normal - Vector3::x()).norm() < 1e-3); // from A towards B
    /// ```
    pub fn solve_from<const D: usize, A, B>(
        &self,
        a: &A,
        b: &B,
        warm: &mut EllipsoidWarmStart<R, D>,
        region: &InitialRegion<R, D>,
    ) -> EllipsoidMethodOutcome<R, D>
    where
        A: Sdf<R, D> + ?Sized,
        B: Sdf<R, D> + ?Sized,
    {
        let out = self.run(a, b, warm, region);
        // A determined answer has replaced the state; a capped run keeps the
        // old one (still valid knowledge, its motion still accumulating).
        if let EllipsoidMethodOutcome::Undetermined { reason: Undetermined::NonFinite, .. } = out {
            warm.valid = false;
        }
        out
    }

    fn run<const D: usize, A, B>(
        &self,
        a: &A,
        b: &B,
        warm: &mut EllipsoidWarmStart<R, D>,
        region: &InitialRegion<R, D>,
    ) -> EllipsoidMethodOutcome<R, D>
    where
        A: Sdf<R, D> + ?Sized,
        B: Sdf<R, D> + ?Sized,
    {
        let undetermined = |reason, lower: R, upper: R, iterations| EllipsoidMethodOutcome::Undetermined {
            reason,
            bounds: Bounds { lower, upper },
            iterations,
        };
        if D < 2 {
            return undetermined(Undetermined::Degenerate, -R::INFINITY, R::INFINITY, 0);
        }
        let budget = &self.budget;
        if !budget.is_valid() {
            return undetermined(Undetermined::InvalidBudget, -R::INFINITY, R::INFINITY, 0);
        }
        let ball_a = a.bounding_ball();
        let ball_b = b.bounding_ball();
        // Finite centres and radii within the kernel's extent (`sqrt(MAX)/1e3`,
        // as for shape sizes): beyond it squared lengths and the witness
        // points x − φ∇φ overflow. A radius may be +∞ (an unbounded body).
        let limit = crate::shape::max_extent::<R>();
        let ok_ball = |c: &SVector<R, D>, r: R| {
            c.iter().all(|v| v.abs_() <= limit) && r >= R::ZERO && (r <= limit || r == R::INFINITY)
        };
        if !ok_ball(&ball_a.center, ball_a.radius) || !ok_ball(&ball_b.center, ball_b.radius) {
            return undetermined(Undetermined::NonFinite, -R::INFINITY, R::INFINITY, 0);
        }
        let (ra, rb) = (ball_a.radius, ball_b.radius);
        if !ra.finite() && !rb.finite() {
            return undetermined(Undetermined::Degenerate, -R::INFINITY, R::INFINITY, 0);
        }
        let exact = a.accuracy() == SdfAccuracy::Exact && b.accuracy() == SdfAccuracy::Exact;
        // Scale of the problem: the larger finite radius; rounding of the
        // coordinates on top.
        let size = if !ra.finite() {
            rb
        } else if !rb.finite() {
            ra
        } else {
            max(ra, rb)
        };
        let coords = max(ball_a.center.amax(), ball_b.center.amax());
        let tol = budget.tolerance * size + R::EPSILON * R::lit(16.0) * (coords + size);
        if is_nan(tol) {
            // An infinite tolerance times a zero size.
            return undetermined(Undetermined::NonFinite, -R::INFINITY, R::INFINITY, 0);
        }

        // Lemma 3 on the bounding balls: the first lower bound, and the
        // balls' own optimum as the first point to evaluate.
        let diff = ball_b.center - ball_a.center;
        let d = norm(&diff);
        if !d.finite() {
            // The centres are further apart than the type can represent.
            return undetermined(Undetermined::NonFinite, -R::INFINITY, R::INFINITY, 0);
        }
        let lemma3 = max(max(-ra, -rb), (d - ra - rb) * R::HALF);
        let x0 = if !ra.finite() {
            ball_b.center
        } else if !rb.finite() {
            ball_a.center
        } else {
            match normalize(&diff) {
                // The inscribed ball of the lens, or the middle of the gap:
                // at ra + φ from c_a along the centre line.
                Some(u) => ball_a.center + u * min(max(ra + lemma3, R::ZERO), d),
                None => ball_a.center,
            }
        };
        let mut run = Run {
            upper: R::INFINITY,
            lower: if lemma3.finite() { lemma3 } else { -R::INFINITY },
            best_value: R::INFINITY,
            best: x0,
            best_a: SdfSample { value: R::INFINITY, gradient: SVector::zeros() },
            best_b: SdfSample { value: R::INFINITY, gradient: SVector::zeros() },
            iterations: 0,
            balls: (ball_a, ball_b),
            exact,
            slack: tol,
            balls_hold: true,
            apart: false,
        };
        let (mut hint_a, mut hint_b) = (warm.hint_a, warm.hint_b);
        let sa = a.eval_hinted(&x0, &mut hint_a);
        let sb = b.eval_hinted(&x0, &mut hint_b);
        if !(finite_sample(&sa) && finite_sample(&sb)) {
            return undetermined(Undetermined::NonFinite, run.lower, run.upper, 0);
        }
        run.offer(&x0, &sa, &sb);

        // Warm start: the old optimum, Corollary 1, Proposition 5.
        let mut cuts: [Option<(SVector<R, D>, R)>; 4] = [None; 4];
        if let Some((h, delta)) = region.halfspace_a {
            cuts[0] = Some((h, delta));
        }
        if let Some((h, delta)) = region.halfspace_b {
            cuts[1] = Some((h, delta));
        }
        if region.upper_bound < run.upper {
            run.upper = region.upper_bound;
        }
        if warm.valid {
            let m = warm.motion;
            let x = warm.x;
            let sa = a.eval_hinted(&x, &mut hint_a);
            let sb = b.eval_hinted(&x, &mut hint_b);
            if !(finite_sample(&sa) && finite_sample(&sb)) {
                return undetermined(Undetermined::NonFinite, run.lower, run.upper, 0);
            }
            run.offer(&x, &sa, &sb);
            if exact && warm.exact {
                let (pa, pb) = (warm.a.value, warm.b.value);
                let cor1 = max(max(min(pa, R::ZERO), min(pb, R::ZERO)), (pa + pb + m) * R::HALF);
                if cor1 < run.upper {
                    run.upper = cor1;
                }
                let prop5 = warm.lower - m * R::HALF;
                if prop5 > run.lower {
                    run.lower = prop5;
                }
            }
            // Supporting halfspaces φ(x*) + g·(y − x*) ≤ 0 of the old bodies,
            // widened by the motion: {g·y ≤ g·x* − φ(x*) + m|g|}.
            let support = |s: &SdfSample<R, D>| {
                let g = s.gradient;
                let gn = norm(&g);
                (gn > R::ZERO).then(|| (g, g.dot(&x) - s.value + m * gn))
            };
            cuts[2] = support(&warm.a);
            cuts[3] = support(&warm.b);
        }
        if !run.upper.finite() && !is_nan(run.upper) && run.upper > R::ZERO {
            // No finite value yet (an SDF returned +inf): the paper's
            // pessimistic bound from the balls.
            run.upper = d + ra + rb;
        }
        if is_nan(run.upper) || is_nan(run.lower) {
            return undetermined(Undetermined::NonFinite, -R::INFINITY, R::INFINITY, 0);
        }
        let finish = |run: &Run<R, D>, warm: &mut EllipsoidWarmStart<R, D>, hints: (SdfWarmStart, SdfWarmStart)| {
            self.answer(run, warm, hints, exact)
        };

        // Collision query decided already?
        if self.stop == Stop::Decided && (run.upper <= R::ZERO || run.lower > R::ZERO) {
            return finish(&run, warm, (hint_a, hint_b));
        }

        // Starting ellipsoid: Proposition 3 (balls grown by f⁺), then
        // Proposition 4 (halfspaces widened by f⁺). A collision query only
        // needs to keep A ∩ B (see the loop below): no growth at all.
        let feasibility = self.stop == Stop::Decided;
        let margin = |upper: R| if feasibility { R::ZERO } else { upper };
        let grow = |r: R, upper: R| if r.finite() { r + margin(upper) } else { r };
        let Some(mut e) = lens(&ball_a.center, grow(ra, run.upper), &ball_b.center, grow(rb, run.upper)) else {
            // f⁺ < 0 and the grown balls miss each other: the balls did not
            // contain their bodies (the answer at the evaluated point stands).
            return finish(&run, warm, (hint_a, hint_b));
        };
        let start = e;
        let apply_cuts = |e: &mut SearchEllipsoid<R, D>, upper: R| {
            for (h, delta) in cuts.iter().flatten() {
                let widened = *delta + margin(upper) * norm(h);
                if e.cut(h, widened) != Cut::Done {
                    // An empty or degenerate cut from outside knowledge is
                    // ignored (only the sound part of the region is kept).
                }
            }
        };
        apply_cuts(&mut e, run.upper);

        // A collision query cuts at level 0 instead of f⁺ (the feasibility
        // form of the method): the ellipsoid then keeps A ∩ B rather than x*,
        // a deeper cut while f⁺ > 0. Its `min over E` of the linearisation
        // then bounds φ* only as `min(0, ·)` (x* ∈ A ∩ B ⊂ E when A ∩ B is not
        // empty) and, when positive, proves A ∩ B empty: separation.
        let mut separated = run.lower > R::ZERO;
        let mut restarts = 0u32;
        while run.iterations < budget.max_iterations {
            if run.upper - run.lower <= tol || feasibility && (run.upper <= R::ZERO || separated) {
                break;
            }
            run.iterations += 1;
            let x = e.e;
            let sa = a.eval_hinted(&x, &mut hint_a);
            let sb = b.eval_hinted(&x, &mut hint_b);
            // Both samples, not only the larger: `max(φ, NaN)` hides a NaN.
            if !(finite_sample(&sa) && finite_sample(&sb)) {
                return undetermined(Undetermined::NonFinite, run.lower, run.upper, run.iterations);
            }
            let (f, g) = run.offer(&x, &sa, &sb);
            let ext = e.extent(&g);
            let width = ext.width;
            let lin_min = f - width; // f + min over E of g·(y − x), x = e (Eq. 10)
            let bound = if feasibility {
                separated |= lin_min > R::ZERO;
                min(lin_min, R::ZERO)
            } else {
                lin_min
            };
            if bound > run.lower {
                run.lower = bound;
            }
            if !(width > R::ZERO) {
                if norm(&g) > R::ZERO {
                    // M collapsed along g: start again.
                    restarts += 1;
                    e = start;
                    apply_cuts(&mut e, run.upper);
                    continue;
                }
                // Zero subgradient: x minimises the convex f, φ* = f(x).
                run.lower = max(run.lower, min(f, run.upper));
                separated |= run.lower > R::ZERO;
                break;
            }
            // Keep {y : f + g·(y − x) ≤ level}.
            let level = if feasibility { min(run.upper, R::ZERO) } else { run.upper };
            match e.cut_along(&g, level - f + g.dot(&x), &ext) {
                Cut::Done => {}
                Cut::Empty => {
                    // min over E of the linearisation exceeds the level: the
                    // bound above has closed the gap (or proved A ∩ B empty).
                    if !feasibility {
                        run.lower = max(run.lower, min(lin_min, run.upper));
                    }
                    break;
                }
                Cut::Degenerate => {
                    // Loss of definiteness: restart from the starting region
                    // tightened by the current f⁺ (Proposition 3).
                    restarts += 1;
                    if restarts > 8 {
                        return undetermined(Undetermined::Degenerate, run.lower, run.upper, run.iterations);
                    }
                    let Some(fresh) = lens(&ball_a.center, grow(ra, run.upper), &ball_b.center, grow(rb, run.upper))
                    else {
                        break;
                    };
                    e = fresh;
                    apply_cuts(&mut e, run.upper);
                }
            }
        }
        if separated {
            // φ* > 0 is proven; 0 is the lower bound the proof gives.
            run.lower = max(run.lower, R::ZERO);
            run.apart = true;
        }
        let decided = run.upper - run.lower <= tol || feasibility && (run.upper <= R::ZERO || separated);
        if !decided && run.balls_hold {
            return undetermined(Undetermined::IterationCap, run.lower, run.upper, run.iterations);
        }
        finish(&run, warm, (hint_a, hint_b))
    }

    /// Builds the answer from the best point and stores the warm start.
    fn answer<const D: usize>(
        &self,
        run: &Run<R, D>,
        warm: &mut EllipsoidWarmStart<R, D>,
        hints: (SdfWarmStart, SdfWarmStart),
        exact: bool,
    ) -> EllipsoidMethodOutcome<R, D> {
        let (sa, sb) = (&run.best_a, &run.best_b);
        let x = run.best;
        if !run.balls_hold {
            // A body is not inside its bounding ball: the starting region and
            // Lemma 3's bound were wrong, so is the certificate.
            return EllipsoidMethodOutcome::Undetermined {
                reason: Undetermined::Degenerate,
                bounds: Bounds { lower: -R::INFINITY, upper: run.upper },
                iterations: run.iterations,
            };
        }
        if !(run.best_value.finite() && run.upper.finite() && !is_nan(run.lower)) {
            return EllipsoidMethodOutcome::Undetermined {
                reason: Undetermined::NonFinite,
                bounds: Bounds { lower: run.lower, upper: run.upper },
                iterations: run.iterations,
            };
        }
        let normal = normalize(&(sa.gradient - sb.gradient))
            .or_else(|| normalize(&sa.gradient))
            .or_else(|| normalize(&(-sb.gradient)))
            .unwrap_or_else(|| {
                let mut n = SVector::zeros();
                n[0] = R::ONE;
                n
            });
        let (point_a, point_b) = (project(&x, sa), project(&x, sb));
        if !(point_a.iter().chain(point_b.iter()).chain(x.iter()).all(|c| c.finite())) {
            return EllipsoidMethodOutcome::Undetermined {
                reason: Undetermined::NonFinite,
                bounds: Bounds { lower: run.lower, upper: run.upper },
                iterations: run.iterations,
            };
        }
        let contact = SdfContact {
            phi: run.best_value,
            bounds: Bounds { lower: min(run.lower, run.upper), upper: run.upper },
            x,
            point_a,
            point_b,
            normal,
            iterations: run.iterations,
            certified: exact,
        };
        *warm = EllipsoidWarmStart {
            valid: true,
            exact,
            x,
            a: *sa,
            b: *sb,
            lower: contact.bounds.lower,
            motion: R::ZERO,
            hint_a: hints.0,
            hint_b: hints.1,
            iterations: run.iterations,
        };
        // Apart only with a proof; a sign the tolerance leaves open is
        // touching, reported as contact.
        if run.upper > R::ZERO && (run.apart || run.lower > R::ZERO) {
            EllipsoidMethodOutcome::Separated(contact)
        } else {
            EllipsoidMethodOutcome::Penetrating(contact)
        }
    }
}
