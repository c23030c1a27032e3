//! MPR — Minkowski Portal Refinement (XenoCollide, G. Snethen, *Game
//! Programming Gems 7*, 2008): a boolean intersection test and the
//! penetration along the centre direction, on the CSO `A − B` seen through
//! its support map.
//!
//! # The method
//! MPR never looks for the point of the CSO closest to the origin (that is
//! GJK's job). It shoots a ray from an interior point `v0` of the CSO (the
//! centre of A minus the centre of B, [`Cso::center`]) through the origin and
//! asks where the ray leaves the CSO:
//!
//! 1. **Portal discovery.** Support points `v1`, `v2`, `v3` are chosen until
//!    the ray passes through the triangle `(v1, v2, v3)`, the *portal*. Every
//!    point `vi` is a point of the CSO, so the tetrahedron `(v0, v1, v2, v3)`
//!    lies inside it.
//! 2. **Portal refinement.** With `n` the outward normal of the portal:
//!    - if the origin lies on `v0`'s side of the portal plane, it lies inside
//!      the tetrahedron, hence inside the CSO: **penetrating**;
//!    - the support point `v4 = s(n)` gives the support plane `n·x ≤ n·v4`
//!      of the whole CSO; if `n·v4 < 0` that plane separates the origin from
//!      the CSO: **separated**, with the certified lower bound `−n̂·v4` on the
//!      distance;
//!    - otherwise the portal is replaced by the one of the three triangles
//!      `(v4, vi, vj)` the ray passes through, which lies further out.
//!
//! [`intersect`] stops at the first portal that decides. [`penetration`] goes
//! on refining once the origin is known to be inside, until the support plane
//! is within `tolerance · scale` of the portal plane; the portal normal is then
//! the CSO's outward normal where the centre ray leaves it (up to the
//! tolerance) and the distance from the origin to the portal plane is the
//! depth along that normal.
//!
//! # Certificates and what "depth" means here
//! - [`MprOutcome::Separated`] always comes from a support plane of the CSO
//!   (`n·x ≤ n·w < 0` for every CSO point `x`): its `lower_bound` is a
//!   certified lower bound on the distance, never an estimate.
//! - [`MprOutcome::Penetrating`]: the origin lies in a tetrahedron spanned by
//!   CSO points (or, for touching contact, within `tolerance · scale` of a
//!   point of the CSO). Its `bounds` bracket `h(n̂)`, the support value
//!   of the CSO along the reported normal `n̂`: the length of the translation
//!   of B along `n̂` that separates the bodies. `bounds.lower` is the distance
//!   from the origin to the portal plane (signed: negative only for a contact
//!   within tolerance), `bounds.upper` the support distance `n̂·s(n̂)`. The
//!   upper bound is also an upper bound on EPA's depth (the smallest
//!   separating translation over *all* directions); the lower bound is not a
//!   lower bound on EPA's depth: MPR's depth is directional, it follows the
//!   line between the centres, which need not be the direction of least
//!   penetration.
//! - [`MprOutcome::Undetermined`]: the budget ran out, the input or an
//!   intermediate value was not finite, or the CSO is flat (within tolerance)
//!   around the origin. Its `bounds` bracket the *signed* distance (negative
//!   inside) as far as the method got: `lower = max −n̂·s(n̂)` over every
//!   support plane seen, `upper = 0` once the origin was found inside (by a
//!   portal checked as below), else `+∞`. Never reported as separated.
//!
//! # Tolerances and budget
//! `scale` is the largest coordinate of the bodies' centres and of every
//! support point seen on either body (as in [`super::gjk`]): the size of the
//! problem and the size of the cancellation error of `a − b`. Every support
//! query (one per discovery or refinement step, two or three for the setup)
//! counts as one iteration of [`Budget::max_iterations`]; reaching the cap is
//! [`Undetermined::IterationCap`].
//!
//! Measured on random pairs of primitives (spheres, boxes, capsules,
//! cylinders, cones, ellipsoids), support queries per call, median / 90th
//! percentile: [`intersect`] 4 / 6 when penetrating and 1 / 5 when separated;
//! [`penetration`] 15 / 21 in `f32` and 38 / 57 in `f64` at the default
//! tolerance. Portal refinement converges linearly (each decade of tolerance
//! costs about three steps on curved contacts), so `f64` penetration at a
//! tolerance of `1000·ε` (`2.2e-13`) occasionally exceeds a cap of 64 (2
//! pairs in 1000); the default `1e-9` leaves room. A capped run answers
//! [`Undetermined::IterationCap`] with `bounds.upper = 0` (intersection
//! known, depth not converged).
//!
//! Degree-3 and degree-4 products (triple products, `|n|²` of portal
//! normals) would overflow for coordinates beyond `MAX^¼` (1.4e9 in f32,
//! 1.2e77 in f64) although the shapes accept sizes up to
//! [`max_extent`](crate::shape::max_extent). Such problems (coordinates
//! above 6.7e7 / 1.8e75, or below 2.2e-8 / 7.9e-76) run on both bodies scaled
//! by a power of two into `[1, 2³²)`: exact, so the answer is the original
//! problem's, scaled back. Known from the centres, that costs nothing; known
//! only from the support points (a huge body at the origin), the query runs
//! a second time, up to twice the budget's support queries. Scales beyond
//! `MAX / 64`, and a second run whose support points still leave the range,
//! answer [`Undetermined::NonFinite`]: never a decision taken on overflowed
//! products.
//!
//! **Needles.** On a long thin CSO (a needle of aspect `k = L/w`) the
//! centre ray grazes the surface and every portal spans the needle: points
//! `L` long and `w` apart. There the plain side tests `det(v0, a, b)` (triple
//! products) and portal normals lose their sign in the rounding (for
//! example points 1e10 long and 100 wide, a false `Penetrating` 29 apart).
//! Every proof of penetration is therefore checked with a robust form of the
//! same tests (on the parts of `a`, `b` orthogonal to the ray, and portal
//! normals from the two shortest edges: rounding `ε·L`-sized, not `ε·L²/w`),
//! and a run that ends [`Undetermined::Degenerate`] — a failed check among
//! the causes — runs again with the robust form throughout (up to twice the
//! budget's support queries). The flag and the bounds are then right up to
//! aspects near `1/ε` (tested on needles of aspect 1e3…1e10 in f64: 3 of 600
//! pairs undetermined). The check's own orientations are determinants of
//! vectors projected orthogonally to the longest one: a portal through a
//! needle's two ends and its middle has no short edge, and a normal from
//! its edges put the origin 233 inside a portal it was 54 outside of.
//! What the robust checks cost on the M4F and the host is measured in
//! docs/benchmarks.md. The witness points interpolate such a portal: its barycentric
//! coordinates are uncertain by `ε·k` (the coordinates' rounding `ε·L` across
//! a width `w`), so the witnesses are uncertain along the needle by up to
//! `ε·k·L`: measured up to `2.4e-6·L` in f64 (aspects to 1e10: 1.3e4 on a
//! needle 5.4e9 long) and `8.6e-5·L` in f32 (aspects to 3e3), while the
//! flag and the bounds hold (tests/suite/mpr.rs, `needles_beside_a_sphere_…`).
//!
//! # Special cases
//! - **Concentric bodies** (`v0` within `tolerance · scale` of the origin):
//!   the interior point is moved half-way towards the CSO support point in
//!   the direction of `v0` (or `+x`), which keeps it inside the CSO by
//!   convexity; the penetration is then measured along that arbitrary
//!   direction.
//! - **Origin on the segment `v0 v1`** (the centre ray leaves the CSO
//!   through the very first support point, e.g. two spheres): the answer is
//!   exact, `depth = n̂·v1 = h(n̂)` along the centre direction.
//! - **Flat CSO** (no extent beyond the plane of `v0, v1, v2` within the
//!   tolerance while the origin lies in that plane): [`Undetermined::Degenerate`].
//!   A flat CSO away from the origin is still separated by a support plane.
//!
//! # Examples
//!
//! ```
//! use narrowphase::prelude::*;
//! use narrowphase::support::mpr::MprOutcome;
//! use nalgebra::{Translation3, Vector3};
//! let a = Placed::new(Sphere::new(1.0_f64).unwrap(), Pose::identity());
//! let b = Placed::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(),
//!     Pose::from_parts(Translation3::new(0.0, 0.0, 1.5), Default::default()));
//! let MprOutcome::Penetrating(p) = mpr::penetration(&a, &b, &Budget::default()) else { panic!() };
//! assert!((p.depth - 0.5).abs() < 1e-9);            // 1 + 1 − 1.5 along the centre line
//! assert!((p.witness.normal - Vector3::z()).norm() < 1e-6);
//! assert!(p.bounds.lower <= p.depth && p.depth <= p.bounds.upper);
//! ```

// The negated comparisons (`!(a > b)`) are deliberate: a NaN must take the
// stopping branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::frame::{in_pair_frame, ToWorld};
use crate::math::{finite_vec, max, max_abs, min, norm, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Penetration, Undetermined, Witness};
use crate::shape::{Cso, CsoPoint, SupportMap};

/// The answer of an MPR query.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum MprOutcome<R: Real> {
    /// Certified apart: every CSO point `x` satisfies `axis·x ≤ −lower_bound`,
    /// i.e. `axis·a + lower_bound ≤ axis·b` for every `a` in A and `b` in B.
    Separated {
        /// Certified lower bound (`> 0`) on the distance between the bodies
        /// (not the distance: MPR stops at the first separating plane).
        lower_bound: R,
        /// Unit normal of the separating plane, pointing from A towards B.
        axis: Vec3<R>,
    },
    /// The bodies overlap (or touch within tolerance). Depth, bounds and
    /// witness are those along the final portal normal; see the module docs
    /// for what they certify. From [`intersect`] they are those of the
    /// deciding portal, not converged (`bounds.upper` may be `+∞`).
    Penetrating(Penetration<R>),
    /// Could not decide.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Bounds on the signed distance (negative = penetrating) reached:
        /// `upper <= 0` means the bodies were found to intersect.
        bounds: Bounds<R>,
    },
}

impl<R: Real> MprOutcome<R> {
    /// `Some(true)` penetrating, `Some(false)` separated, `None` undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            MprOutcome::Separated { .. } => Some(false),
            MprOutcome::Penetrating(_) => Some(true),
            MprOutcome::Undetermined { .. } => None,
        }
    }

    /// The same answer, rebuilt field by field. Moved whole out of the
    /// solver's `Result`, an answer went through a byte-wise copy at an odd
    /// offset (about 260 instructions a move on the Cortex-M4F, a fifth of
    /// `mpr::intersect`); rebuilt, it is a few stores.
    #[inline(always)]
    fn rebuilt(self) -> Self {
        match self {
            MprOutcome::Separated { lower_bound, axis } => MprOutcome::Separated { lower_bound, axis },
            MprOutcome::Penetrating(Penetration { depth, bounds, witness }) => {
                MprOutcome::Penetrating(Penetration { depth, bounds, witness })
            }
            MprOutcome::Undetermined { reason, bounds } => MprOutcome::Undetermined { reason, bounds },
        }
    }
}

impl<R: Real> ToWorld<R> for MprOutcome<R> {
    #[inline]
    fn to_world(&mut self, offset: &Vec3<R>) {
        if let MprOutcome::Penetrating(p) = self {
            p.witness.to_world(offset);
        }
    }
}

/// Boolean intersection test: stops at the first portal that decides.
///
/// A [`MprOutcome::Penetrating`] answer carries the deciding portal's
/// distance from the origin as `depth` (a lower bound of the penetration along
/// its normal, `bounds.upper = +∞` when no support point was taken along that
/// normal) and the witness points of the origin's projection on it: cheap,
/// not converged. Use [`penetration`] for a converged depth.
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::support::mpr::MprOutcome;
/// use nalgebra::{Translation3, Vector3};
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Capsule::new(1.0_f32, 0.5).unwrap(),
///     Pose::from_parts(Translation3::new(1.4, 0.0, 0.0), Default::default()));
/// assert_eq!(mpr::intersect(&a, &b, &Budget::default()).is_penetrating(), Some(true));
///
/// let c = Placed::new(Sphere::new(0.5_f32).unwrap(),
///     Pose::from_parts(Translation3::new(0.0, 2.0, 0.0), Default::default()));
/// match mpr::intersect(&a, &c, &Budget::default()) {
///     // The certificate: A lies below the plane, C above it, 0 < lower_bound <= 0.5.
///     MprOutcome::Separated { lower_bound, axis } => {
///         assert!(lower_bound > 0.0 && lower_bound <= 0.5 + 1e-5);
///         assert!(axis.y > 0.0);
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn intersect<R, A, B>(a: &A, b: &B, budget: &Budget<R>) -> MprOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    in_pair_frame(a, b, |a, b| run(a, b, budget, false))
}

/// Intersection test and penetration along the centre direction.
///
/// On [`MprOutcome::Penetrating`], the portal has been refined until the
/// support plane along its normal is within `tolerance · scale` of it:
/// `witness.normal` is the portal normal, pointing from A towards B, `depth`
/// the distance from the origin to the portal plane (`bounds.lower`, clamped
/// at 0 for a touching contact), `bounds.upper` the support distance along
/// the normal, and `point_a − point_b = depth · normal` (the witness points
/// are the portal's body points weighted by the barycentric coordinates of the
/// origin's projection on the portal; an affine, not always convex,
/// combination). Separated and undetermined answers are as for [`intersect`].
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::support::mpr::MprOutcome;
/// use nalgebra::{Translation3, Vector3};
/// let a = Placed::new(Sphere::new(1.0_f32).unwrap(), Pose::identity());
/// let b = Placed::new(Sphere::new(0.5_f32).unwrap(),
///     Pose::from_parts(Translation3::new(1.0, 0.0, 0.0), Default::default()));
/// let MprOutcome::Penetrating(p) = mpr::penetration(&a, &b, &Budget::default()) else { panic!() };
/// assert!((p.depth - 0.5).abs() < 1e-5);
/// assert!((p.witness.normal - Vector3::x()).norm() < 1e-4);
/// let d = p.witness.point_a - p.witness.point_b;
/// assert!((d - p.witness.normal * p.depth).norm() < 1e-4);
/// ```
pub fn penetration<R, A, B>(a: &A, b: &B, budget: &Budget<R>) -> MprOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    in_pair_frame(a, b, |a, b| run(a, b, budget, true))
}

/// The running state: the CSO with its hints, the budget spent, the scale,
/// and the signed-distance bounds reached.
struct State<'s, R: Real, A: ?Sized, B: ?Sized> {
    cso: Cso<'s, A, B>,
    max_iterations: u32,
    tolerance: R,
    iterations: u32,
    scale: R,
    bounds: Bounds<R>,
}

/// Early exit of the solver: the outcome to report.
type Exit<R> = MprOutcome<R>;

impl<'s, R: Real, A: SupportMap<R> + ?Sized, B: SupportMap<R> + ?Sized> State<'s, R, A, B> {
    fn new(a: &'s A, b: &'s B, budget: &Budget<R>) -> Self {
        Self {
            cso: Cso::new(a, b),
            max_iterations: budget.max_iterations,
            tolerance: budget.tolerance,
            iterations: 0,
            scale: R::ZERO,
            bounds: Bounds::unknown(),
        }
    }

    /// Absolute tolerance `tolerance · scale`.
    #[inline]
    fn eps(&self) -> R {
        self.tolerance * self.scale
    }

    fn undetermined(&self, reason: Undetermined) -> Exit<R> {
        MprOutcome::Undetermined { reason, bounds: self.bounds }
    }

    /// One support query (one iteration), checked for the cap and finiteness.
    #[inline(always)]
    fn support(&mut self, dir: &Vec3<R>) -> Result<CsoPoint<R>, Exit<R>> {
        if self.iterations >= self.max_iterations {
            return Err(self.undetermined(Undetermined::IterationCap));
        }
        self.iterations += 1;
        let p = self.cso.support_point(dir);
        if !p.support_is_finite() {
            return Err(self.undetermined(Undetermined::NonFinite));
        }
        self.scale = max(self.scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
        Ok(p)
    }

    /// The support plane `n̂·x ≤ n̂·p` of the CSO (`unit` is unit length and
    /// `p = s(unit)`): records its bound and exits when it separates.
    /// Returns the support value `h = n̂·p`.
    fn plane(&mut self, unit: &Vec3<R>, p: &CsoPoint<R>) -> Result<R, Exit<R>> {
        let h = unit.dot(&p.w);
        if !h.finite() {
            return Err(self.undetermined(Undetermined::NonFinite));
        }
        // The signed distance is at least −h(n̂) for every unit n̂ (both when
        // apart, distance = max −h, and inside, −depth = −min h).
        self.bounds.lower = max(self.bounds.lower, -h);
        if h < R::ZERO {
            return Err(MprOutcome::Separated { lower_bound: -h, axis: *unit });
        }
        Ok(h)
    }

    /// Support point and support plane along `dir` (nonzero, finite).
    fn probe(&mut self, dir: &Vec3<R>) -> Result<(CsoPoint<R>, Vec3<R>), Exit<R>> {
        let unit = match crate::math::normalize(dir) {
            Some(u) => u,
            None => return Err(self.undetermined(Undetermined::Degenerate)),
        };
        let p = self.support(&unit)?;
        self.plane(&unit, &p)?;
        Ok((p, unit))
    }
}

fn run<R, A, B>(a: &A, b: &B, budget: &Budget<R>, converge: bool) -> MprOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !budget.is_valid() {
        return MprOutcome::Undetermined { reason: Undetermined::InvalidBudget, bounds: Bounds::unknown() };
    }
    let (ca, cb) = (a.center(), b.center());
    let centres = max(max_abs(&ca.coords), max_abs(&cb.coords));
    // Far from the origin: scaled from the start.
    let first = if centres > product_range::<R>().1 {
        run_scaled(a, b, budget, converge, centres)
    } else {
        let (outcome, scale) = run_at(a, b, (ca, cb), budget, converge);
        Ran { outcome, scale, fits: in_product_range(scale) }
    };
    // Tiny problems (below the shapes' sizes) keep the unscaled answer.
    if first.fits || first.scale < crate::shape::min_extent() {
        return first.outcome;
    }
    // Bodies large (or tiny) for their centres: once more, scaled by the size reached.
    let second = run_scaled(a, b, budget, converge, first.scale);
    if second.fits {
        second.outcome
    } else {
        beyond_range()
    }
}

/// A run of the solver: its outcome, the problem's scale it reached, and
/// whether that scale kept its products in range (in the units it ran in).
struct Ran<R: Real> {
    outcome: MprOutcome<R>,
    scale: R,
    fits: bool,
}

/// The answer where the problem's products would leave the floating-point
/// range even scaled: coordinates near `R::MAX`, or a scaled run that met
/// support points far beyond the scale it was scaled by. Unscaled, the
/// overflow gave false `Penetrating` answers (for example a cone stretched
/// by an affine map to 6e151 reported 1.9e151 deep, 6.6e150 from a sphere).
fn beyond_range<R: Real>() -> MprOutcome<R> {
    MprOutcome::Undetermined { reason: Undetermined::NonFinite, bounds: Bounds::unknown() }
}

/// One run of the solver (`centres`: the bodies'); the outcome and the
/// problem's scale reached.
fn run_at<R, A, B>(a: &A, b: &B, centres: (Pt3<R>, Pt3<R>), budget: &Budget<R>, converge: bool) -> (MprOutcome<R>, R)
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let mut st = State::new(a, b, budget);
    let outcome = match solve::<R, A, B, false>(&mut st, centres, converge) {
        Ok(outcome) | Err(outcome) => outcome.rebuilt(),
    };
    // A degenerate end of the fast run (among them every portal that failed
    // the robust check) runs once more, robust.
    if !matches!(outcome, MprOutcome::Undetermined { reason: Undetermined::Degenerate, .. }) {
        return (outcome, st.scale);
    }
    run_robust(a, b, centres, budget, converge)
}

/// The robust run of [`run_at`] (see [`Ray`]): a second instance of the
/// solver, kept out of line so that the fast one stays as it was.
#[cold]
#[inline(never)]
fn run_robust<R, A, B>(
    a: &A,
    b: &B,
    centres: (Pt3<R>, Pt3<R>),
    budget: &Budget<R>,
    converge: bool,
) -> (MprOutcome<R>, R)
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let mut st = State::new(a, b, budget);
    match solve::<R, A, B, true>(&mut st, centres, converge) {
        Ok(outcome) | Err(outcome) => (outcome.rebuilt(), st.scale),
    }
}

/// Whether coordinates of size `scale` keep MPR's products in range: its
/// triple products and `|n|²` of portal normals are of degree 3 and 4 in the
/// coordinates (for example a false `Penetrating` 1.7e109 apart in f64,
/// where `max_extent` allows 1.3e151), so `scale⁴` (with room for sums)
/// must neither overflow nor leave the normal range.
fn in_product_range<R: Real>(scale: R) -> bool {
    let (lo, hi) = product_range::<R>();
    !(scale > hi) && !(scale < lo)
}

/// `(MIN_POSITIVE^¼ · 64, MAX^¼ / 64)`, rounded inwards, as literals (a
/// square root here would cost two `vsqrt` per query on an MCU).
#[inline]
fn product_range<R: Real>() -> (R, R) {
    if R::EPSILON > R::lit(1e-10) {
        (R::lit(2.2e-8), R::lit(6.7e7))
    } else {
        (R::lit(7.9e-76), R::lit(1.8e75))
    }
}

/// MPR on both bodies scaled by a power of two that brings `scale` to
/// `[1, 2³²)` — exact, so every sign test is the one of the original
/// problem — and the answer scaled back (exactly). Only scales from
/// [`min_extent`](crate::shape::min_extent) to `MAX / 64` are scaled: there
/// the factor and its inverse are finite and nonzero in both precisions (a
/// subnormal scale in f32 made the factor infinite and the bounds NaN), and
/// so is every answer scaled back (at most a few times the scale); beyond,
/// the answer is [`beyond_range`].
fn run_scaled<R, A, B>(a: &A, b: &B, budget: &Budget<R>, converge: bool, scale: R) -> Ran<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !(scale >= crate::shape::min_extent() && scale <= R::MAX * R::lit(0.015_625)) {
        return Ran { outcome: beyond_range(), scale, fits: false };
    }
    // 2⁻³² and 2³².
    let (step_down, step_up) = (R::lit(2.328_306_436_538_696_3e-10), R::lit(4_294_967_296.0));
    let (mut factor, mut s) = (R::ONE, scale);
    // From 2⁻⁵⁴ (f32) or 2⁻⁵⁰² (f64) to 2¹²² or 2¹⁰¹⁸: at most 32 steps, the
    // factor (at least 2⁻⁹⁶ or 2⁻⁹⁹²) and its inverse stay finite and normal.
    for _ in 0..40 {
        if !(s >= step_up) {
            break;
        }
        (factor, s) = (factor * step_down, s * step_down);
    }
    for _ in 0..40 {
        if !(s < R::ONE) {
            break;
        }
        (factor, s) = (factor * step_up, s * step_up);
    }
    let (sa, sb) = (Scaled { body: a, factor }, Scaled { body: b, factor });
    let (outcome, reached) = run_at(&sa, &sb, (sa.center(), sb.center()), budget, converge);
    let back = R::ONE / factor;
    let bounds = |b: Bounds<R>| Bounds { lower: b.lower * back, upper: b.upper * back };
    let outcome = match outcome {
        MprOutcome::Separated { lower_bound, axis } => MprOutcome::Separated { lower_bound: lower_bound * back, axis },
        MprOutcome::Penetrating(p) => MprOutcome::Penetrating(Penetration {
            depth: p.depth * back,
            bounds: bounds(p.bounds),
            witness: Witness {
                point_a: Pt3::from(p.witness.point_a.coords * back),
                point_b: Pt3::from(p.witness.point_b.coords * back),
                normal: p.witness.normal,
            },
        }),
        MprOutcome::Undetermined { reason, bounds: b } => MprOutcome::Undetermined { reason, bounds: bounds(b) },
    };
    Ran { outcome, scale: reached * back, fits: in_product_range(reached) }
}

/// A body scaled about the origin by `factor` (a power of two: exact).
struct Scaled<'a, R, S: ?Sized> {
    body: &'a S,
    factor: R,
}

impl<R: Real, S: SupportMap<R> + ?Sized> SupportMap<R> for Scaled<'_, R, S> {
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        Pt3::from(self.body.support(dir).coords * self.factor)
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut crate::shape::SupportWarmStart) -> Pt3<R> {
        Pt3::from(self.body.support_hinted(dir, hint).coords * self.factor)
    }
    #[inline]
    fn center(&self) -> Pt3<R> {
        Pt3::from(self.body.center().coords * self.factor)
    }
}

/// The centre ray (`v0` → origin) and the arithmetic of the side tests
/// `det(v0, a, b) = v0·(a × b)` (which side of the plane through the ray and
/// `a` the point `b` lies on).
///
/// Plain, the triple product rounds by `ε·|v0|·|a|·|b|`. On a needle-like
/// CSO all three vectors are nearly parallel and that is more than the
/// determinant itself: points 1e10 long but 100 wide lost its sign (for
/// example a false `Penetrating` 29 apart). Robust, it is computed on the
/// parts of `a` and `b` orthogonal to the ray (subtracting multiples of `v0`
/// from a column leaves the determinant unchanged), which carry errors of
/// `ε·|a|`, `ε·|b|`: a relative error of `ε·L/w` on a needle of length `L`
/// and width `w`. The plain form is the fast path (on an M4F the robust
/// form in every test cost +40 % instructions, +83 % for penetration): the
/// first proof of penetration and every `Penetrating` answer are checked
/// with the robust form ([`Ray::crossing`]), and a run that ends
/// [`Undetermined::Degenerate`] (a failed check among the causes) runs
/// again in a second instance of the solver (`ROBUST = true`) with robust
/// side tests and portal normals throughout.
struct Ray<R: Real, const ROBUST: bool> {
    v0: Vec3<R>,
    /// `v0 / |v0|²`.
    v0_inv: Vec3<R>,
}

impl<R: Real, const ROBUST: bool> Ray<R, ROBUST> {
    fn new(v0: Vec3<R>) -> Self {
        Self { v0, v0_inv: v0 / v0.dot(&v0) }
    }

    /// `det(v0, a, b)`, plain or robust.
    #[inline]
    fn det(&self, a: &Vec3<R>, b: &Vec3<R>) -> R {
        if ROBUST {
            self.det_across(a, b)
        } else {
            self.v0.dot(&a.cross(b))
        }
    }

    /// `det(v0, a, b)` on the parts of `a`, `b` orthogonal to the ray.
    /// Not [`robust_det`] with its longest-vector axis: projecting on the
    /// ray itself keeps the exact zeros of symmetric configurations (a ray
    /// through a portal edge), which the coaxial box tests rely on — with
    /// another axis they came out ±ulps and the three sides disagreed.
    #[inline(never)]
    fn det_across(&self, a: &Vec3<R>, b: &Vec3<R>) -> R {
        let across = |x: &Vec3<R>| x - self.v0 * self.v0_inv.dot(x);
        self.v0.dot(&across(a).cross(&across(b)))
    }

    /// The normal `(b − a) × (c − a)` of a portal, plain or robust.
    #[inline]
    fn normal(&self, a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Vec3<R> {
        if ROBUST {
            triangle_normal(a, b, c)
        } else {
            (b - a).cross(&(c - a))
        }
    }

    /// The portal checked with the robust arithmetic: `None` unless the ray
    /// passes through it (its three side tests agree; a zero is an edge);
    /// then the distance from the origin to the point where the ray crosses
    /// it, `0` when the origin lies between `v0` and the portal (inside the
    /// tetrahedron, so inside the CSO).
    ///
    /// The sides of the portal's plane are orientations
    /// `o(p) = det(v1 − p, v2 − p, v3 − p)`, affine in `p`, both computed by
    /// [`robust_det`]. The ray `(1 − s)·v0` meets the plane at
    /// `s = o(v0) / (o(v0) − o(0))`: the origin is inside when `s ≥ 1`; a
    /// crossing behind `v0` (`s ≤ 0`) is no portal of this ray (the line,
    /// not the ray, passed through it). A portal normal would not do: the
    /// plane through a needle's two ends and its middle is uncertain by
    /// `ε·L/w` in its tilt, which over the length `L` is more than the
    /// distances it decides (for example a normal from two edges 1.6e11
    /// long put the origin 233 inside a portal it was 54 outside of).
    #[inline(never)]
    fn crossing(&self, [q1, q2, q3]: &[CsoPoint<R>; 3]) -> Option<R> {
        let d = [self.det_across(&q1.w, &q2.w), self.det_across(&q2.w, &q3.w), self.det_across(&q3.w, &q1.w)];
        if !(d.iter().all(|x| *x <= R::ZERO) || d.iter().all(|x| *x >= R::ZERO)) {
            return None;
        }
        let at_origin = robust_det(&q1.w, &q2.w, &q3.w);
        let at_v0 = robust_det(&(q1.w - self.v0), &(q2.w - self.v0), &(q3.w - self.v0));
        // 1 − s: the crossing's place on the ray, 1 at v0, 0 at the origin.
        let t = at_origin / (at_origin - at_v0);
        if at_origin == R::ZERO || t <= R::ZERO {
            Some(R::ZERO) // at or beyond the origin: inside
        } else if t < R::ONE {
            Some(t * norm(&self.v0)) // between v0 and the origin: outside
        } else {
            None // behind v0 (or NaN): not a portal of this ray
        }
    }
}

/// `det(a, b, c)` with the two shorter vectors projected orthogonally to the
/// longest (which leaves the determinant unchanged): for nearly parallel
/// vectors of length `L` a width `w` apart, the projections carry errors of
/// `ε·L` against parts of size `w`, a relative `ε·L/w`, where the plain
/// triple product rounds by `ε·L³` against a value of size `L·w²`.
fn robust_det<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> R {
    let (la, lb, lc) = (a.dot(a), b.dot(b), c.dot(c));
    let across = |x: &Vec3<R>, axis: &Vec3<R>, l: R| x - axis * (axis.dot(x) / l);
    // det(a, b, c) = a·(b × c) = b·(c × a) = c·(a × b).
    if la >= lb && la >= lc {
        a.dot(&across(b, a, la).cross(&across(c, a, la)))
    } else if lb >= lc {
        b.dot(&across(c, b, lb).cross(&across(a, b, lb)))
    } else {
        c.dot(&across(a, c, lc).cross(&across(b, c, lc)))
    }
}

/// `(b − a) × (c − a)`, computed from the two shortest edges: the three
/// edge pairs give the same vector exactly, but the rounding of a cross
/// product is `ε` times the product of its edges' lengths, and a portal
/// across a needle-like CSO has two long, nearly parallel edges (its normal
/// from them flipped the portal's orientation test by rounding).
fn triangle_normal<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Vec3<R> {
    let (ab, bc, ca) = (b - a, c - b, a - c);
    let (lab, lbc, lca) = (ab.dot(&ab), bc.dot(&bc), ca.dot(&ca));
    if lab >= lbc && lab >= lca {
        bc.cross(&ca) // ab is the longest
    } else if lbc >= lca {
        ca.cross(&ab) // bc is the longest
    } else {
        ab.cross(&bc) // ca is the longest
    }
}

/// `true` when `|x × y| ≤ k·|x|·|y|`: `x` and `y` (nearly) parallel.
#[inline]
fn nearly_parallel<R: Real>(cross: &Vec3<R>, x: &Vec3<R>, y: &Vec3<R>, k: R) -> bool {
    !(cross.dot(cross) > k * k * x.dot(x) * y.dot(y))
}

fn solve<R, A, B, const ROBUST: bool>(
    st: &mut State<'_, R, A, B>,
    (ca, cb): (Pt3<R>, Pt3<R>),
    converge: bool,
) -> Result<MprOutcome<R>, Exit<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !finite_vec(&ca.coords) || !finite_vec(&cb.coords) {
        return Err(st.undetermined(Undetermined::NonFinite));
    }
    st.scale = max(max_abs(&ca.coords), max_abs(&cb.coords));
    let mut v0: Vec3<R> = ca - cb;

    // Concentric (or within tolerance): the origin is the interior point
    // itself. Move v0 half-way to a support point: still inside by convexity.
    if !(max_abs(&v0) > st.eps()) {
        let dir = if v0 == Vec3::zeros() { Vec3::x() } else { v0 };
        let (p, _) = st.probe(&dir)?;
        v0 = (v0 + p.w) * R::HALF;
        if !(max_abs(&v0) > st.eps()) {
            return Err(st.undetermined(Undetermined::Degenerate));
        }
    }

    let ray = Ray::<R, ROBUST>::new(v0);
    // v1: support along the centre ray v0 → origin.
    let (p1, r) = st.probe(&-v0)?;
    let e = p1.w - v0;
    let n = p1.w.cross(&v0);
    // Origin on the segment v0 v1 (within the relative tolerance of its
    // angle): the ray leaves the CSO at v1, exactly along r.
    if nearly_parallel(&n, &v0, &e, st.tolerance) {
        let depth = r.dot(&p1.w);
        return Ok(MprOutcome::Penetrating(Penetration {
            depth: max(depth, R::ZERO),
            bounds: Bounds { lower: depth, upper: depth },
            witness: Witness { point_a: p1.a, point_b: p1.b, normal: r },
        }));
    }

    // v2: support normal to the plane of v0, v1 and the origin.
    let (p2, _) = st.probe(&n)?;
    let (mut p1, mut p2) = (p1, p2);
    let mut n = (p1.w - v0).cross(&(p2.w - v0));
    // n·v0 = det(v0, v1, v2).
    let side = if ROBUST { ray.det_across(&p1.w, &p2.w) } else { n.dot(&v0) };
    if side > R::ZERO {
        core::mem::swap(&mut p1, &mut p2);
        n = -n;
    }

    // Discovery: find v3 such that the ray passes through (v1, v2, v3).
    let mut p3;
    loop {
        if nearly_parallel(&n, &(p1.w - v0), &(p2.w - v0), R::EPSILON) {
            return Err(st.undetermined(Undetermined::Degenerate));
        }
        let (p, unit) = st.probe(&n)?;
        p3 = p;
        // The CSO has no extent beyond the plane of (v0, v1, v2) in which the
        // origin lies: flat around the origin.
        if !(unit.dot(&(p3.w - v0)) > st.eps()) {
            return Err(st.undetermined(Undetermined::Degenerate));
        }
        if ray.det(&p1.w, &p3.w) < R::ZERO {
            p2 = p3; // origin outside the plane (v0, v1, v3)
        } else if ray.det(&p3.w, &p2.w) < R::ZERO {
            p1 = p3; // origin outside the plane (v0, v3, v2)
        } else {
            break;
        }
        n = (p1.w - v0).cross(&(p2.w - v0));
    }

    // Refinement.
    let mut portal = [p1, p2, p3];
    loop {
        let [q1, q2, q3] = portal;
        let n = ray.normal(&q1.w, &q2.w, &q3.w);
        // The portal must face away from v0 (orientation of the tetrahedron).
        if !(n.dot(&(q1.w - v0)) > R::ZERO) {
            return Err(st.undetermined(Undetermined::Degenerate));
        }
        let unit = match crate::math::normalize(&n) {
            Some(u) => u,
            None => return Err(st.undetermined(Undetermined::Degenerate)),
        };
        let dist = unit.dot(&q1.w); // signed distance origin → portal plane
        let inside = !(dist < R::ZERO);
        // The ray meets the portal at q = v0·(n̂·v1)/(n̂·v0), a CSO point if
        // the ray passes through the portal; inside, q is beyond the origin.
        // It decides touching contact below (checked before it is reported).
        let crossing = if inside { R::ZERO } else { norm(&v0) * (dist / unit.dot(&v0)) };
        let mut verified = false;
        if inside && st.bounds.upper > R::ZERO {
            // The first proof of penetration only from a portal checked with
            // the robust arithmetic (once: the cost matters on an MCU).
            if ray.crossing(&portal) != Some(R::ZERO) {
                return Err(st.undetermined(Undetermined::Degenerate));
            }
            st.bounds.upper = R::ZERO;
            verified = true;
        }
        if inside && !converge {
            return penetrating(st, &ray, &portal, verified, (&n, &unit, dist, R::INFINITY));
        }
        let p4 = st.support(&unit)?;
        let h = st.plane(&unit, &p4)?;
        let contact = !(min(st.bounds.upper, crossing) > st.eps());
        if contact && (!converge || !(h - dist > st.eps())) {
            return penetrating(st, &ray, &portal, verified, (&n, &unit, dist, h));
        }
        if portal.iter().any(|p| p.w == p4.w) {
            // The support point is a portal vertex and decided nothing.
            return Err(st.undetermined(Undetermined::Degenerate));
        }
        // Which of (v4,v2,v3), (v1,v4,v3), (v1,v2,v4) does the ray cross?
        // ti = det(v4−v0, vi−v0, −v0) = det(v0, vi, v4): the side of vi of
        // the plane through the ray and v4.
        let c = p4.w.cross(&v0);
        let t = |q: &CsoPoint<R>| if ROBUST { ray.det_across(&q.w, &p4.w) } else { q.w.dot(&c) };
        let slot = if !(t(&q1) < R::ZERO) {
            if t(&q2) > R::ZERO {
                0
            } else {
                2
            }
        } else if !(t(&q3) < R::ZERO) {
            1
        } else {
            0
        };
        if let Some(s) = portal.get_mut(slot) {
            *s = p4;
        }
    }
}

/// The penetration answer of a portal: `n` its (outward) normal, `unit` the
/// same normalised, `dist` the signed distance of its plane from the origin,
/// `upper` the support distance along `unit`. Only if the ray passes through
/// the portal by the robust side tests (see [`Ray`]; `verified`: already
/// checked); otherwise [`Undetermined::Degenerate`] (and the query runs
/// again, robust, if it was not).
fn penetrating<R, A, B, const ROBUST: bool>(
    st: &mut State<'_, R, A, B>,
    ray: &Ray<R, ROBUST>,
    portal: &[CsoPoint<R>; 3],
    verified: bool,
    (n, unit, dist, upper): (&Vec3<R>, &Vec3<R>, R, R),
) -> Result<MprOutcome<R>, Exit<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !verified && !matches!(ray.crossing(portal), Some(u) if !(u > st.eps())) {
        return Err(st.undetermined(Undetermined::Degenerate));
    }
    // h(n̂) >= n̂·v1 holds exactly; the two dot products may round apart.
    let upper = max(upper, dist);
    let [q1, q2, q3] = portal;
    // Barycentric coordinates of the origin's projection p = dist·n̂.
    let p = unit * dist;
    let nn = n.dot(n);
    // Sub-triangle areas from their shortest edges (on a needle's portal
    // the long edges' cross products put the witnesses ε·L²/w off).
    let l1 = n.dot(&ray.normal(&p, &q2.w, &q3.w)) / nn;
    let l2 = n.dot(&ray.normal(&p, &q3.w, &q1.w)) / nn;
    let l3 = R::ONE - l1 - l2;
    let point_a = Pt3::from(q1.a.coords * l1 + q2.a.coords * l2 + q3.a.coords * l3);
    let point_b = Pt3::from(q1.b.coords * l1 + q2.b.coords * l2 + q3.b.coords * l3);
    if !(finite_vec(&point_a.coords) && finite_vec(&point_b.coords)) {
        // `n·n` overflows for bodies beyond ~1e77 (for example NaN
        // witness points at 3.2e82); a determined answer never carries NaN.
        return Err(MprOutcome::Undetermined { reason: Undetermined::NonFinite, bounds: Bounds::unknown() });
    }
    Ok(MprOutcome::Penetrating(Penetration {
        depth: max(dist, R::ZERO),
        bounds: Bounds { lower: dist, upper },
        witness: Witness { point_a, point_b, normal: *unit },
    }))
}
