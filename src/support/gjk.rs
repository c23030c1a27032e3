//! GJK: distance, closest points and intersection of two convex bodies given
//! by their support maps (GJK paper §2–3).
//!
//! Each iteration takes the support point `w = s_{A−B}(−v)` of the CSO and
//! replaces `v` by the point of `conv(W ∪ {w})` closest to the origin. Two
//! numbers bracket the distance `d` at every step (the duality gap):
//! - `upper = |v|`, since `v` is a point of the CSO;
//! - `lower = max_k (v_k · w_k) / |v_k|`, since the plane through `w_k` with
//!   normal `v_k` supports the CSO (GJK paper §3, Lemma 2).
//!
//! The loop stops when `upper − lower ≤ tolerance · scale`, where `scale` is
//! the largest support-point coordinate seen on either body: it is the size of
//! the problem and also bounds the cancellation error of `a − b` far from the
//! origin. Every exit carries the bounds; reaching the iteration cap is
//! [`GjkOutcome::Undetermined`], never a separation. Every loop test is
//! written so that a NaN stops the loop (`!(x > y)` forms).

use super::simplex::Simplex;
use crate::math::{max, max_abs, norm, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Separation, Threshold, Undetermined, Witness};
use crate::shape::{Cso, Relative, SupportMap, SupportWarmStart};

/// Caller-owned warm-start state for temporally coherent queries (one per
/// pair of bodies), and the statistics of the last run.
///
/// A cold cache ([`GjkWarmStart::default`]) starts from the direction between the
/// bodies' centres. After a query it holds the last search direction and the
/// last support vertices of both bodies (hill-climbing hints), so the next
/// query of the same pair after a small motion starts next to the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GjkWarmStart<R: Real> {
    /// Last search direction (CSO space); zero when cold.
    pub direction: Vec3<R>,
    /// Hill-climbing hint for body A.
    pub hint_a: SupportWarmStart,
    /// Hill-climbing hint for body B.
    pub hint_b: SupportWarmStart,
    /// Iterations of the last query.
    pub iterations: u32,
}

impl<R: Real> GjkWarmStart<R> {
    /// A cold cache.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The answer of a GJK query.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum GjkOutcome<R: Real> {
    /// Certified apart (`bounds.lower > 0`): distance, closest points, normal.
    Separated(Separation<R>),
    /// The bodies intersect or touch within tolerance: the origin lies in
    /// (or within `tolerance · scale` of) the CSO. The terminal simplex (1 to
    /// 4 points) is what [`super::epa`] starts from.
    Penetrating(Simplex<R>),
    /// Could not decide: the reason and the distance bounds reached.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Bounds on the distance (`lower` may be 0 or below when nothing
        /// rules contact out).
        bounds: Bounds<R>,
    },
}

impl<R: Real> GjkOutcome<R> {
    /// `Some(true)` intersecting, `Some(false)` separated, `None` undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            GjkOutcome::Separated(_) => Some(false),
            GjkOutcome::Penetrating(_) => Some(true),
            GjkOutcome::Undetermined { .. } => None,
        }
    }
}

/// Distance and closest points between `a` and `b`.
///
/// `cache` is read for the warm start and updated with the final direction,
/// the hints and the iteration count. Use a fresh [`GjkWarmStart::default`] for a
/// cold start.
///
/// ```
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
/// let a = Placed::new(Sphere::new(1.0_f64).unwrap(), Pose::identity());
/// let b = Placed::new(Sphere::new(0.5_f64).unwrap(),
///     Pose::from_parts(Translation3::new(0.0, 3.0, 0.0), Default::default()));
/// let mut cache = GjkWarmStart::default();
/// let GjkOutcome::Separated(s) = gjk::distance(&a, &b, &Budget::default(), &mut cache) else { panic!() };
/// assert!((s.distance - 1.5).abs() < 1e-9);
/// assert!(s.bounds.lower > 0.0 && s.bounds.contains(1.5));
/// assert!((s.witness.normal - Vector3::y()).norm() < 1e-6);
/// ```
pub fn distance<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    run(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, false, &origin.coords)
}

/// Boolean intersection test: like [`distance`] but stops as soon as a
/// separating plane is found (`v · w > 0`). A [`GjkOutcome::Separated`]
/// answer then carries valid bounds (`lower > 0`) but its `distance` is only
/// the upper bound reached, not the converged distance.
///
/// ```
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Capsule::new(1.0_f32, 0.5).unwrap(),
///     Pose::from_parts(Translation3::new(1.4, 0.0, 0.0), Default::default()));
/// let hit = gjk::intersect(&a, &b, &Budget::default(), &mut GjkWarmStart::default());
/// assert_eq!(hit.is_penetrating(), Some(true));
/// ```
pub fn intersect<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    run(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, true, &origin.coords)
}

/// GJK on `a` and `b` as given, its answer's points moved by `to_world`
/// (the public queries run it in the pair frame, see [`super::frame`]; the
/// move is made here, on the answer in place, because a copy of an answer
/// that holds a simplex costs a firmware tick hundreds of instructions).
/// `early_exit` stops at the first certified separation ([`intersect`]).
pub(super) fn run<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    early_exit: bool,
    to_world: &Vec3<R>,
) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    descend(a, b, budget, cache, &Full { early_exit, to_world })
}

/// Where one GJK descent stops and what it answers. The loop
/// ([`descend`]) is the same for every query; the distance and
/// intersection queries answer a [`GjkOutcome`] ([`Full`]), the threshold
/// query a [`Threshold`] ([`Below`]). Each method is called at one exit of
/// the loop; `floor` is the rounding of a support value ([`rounding`]), the
/// level above which a lower bound certifies anything.
trait Rule<R: Real> {
    type Out;
    /// Stopped by the input, the numbers or the iteration cap, with the
    /// distance bounds reached.
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, floor: R) -> Self::Out;
    /// Top of an iteration, `bounds.upper = |v|`: stop before the next
    /// support query? (`eps`: the tolerance times the scale.)
    fn at_upper(&self, simplex: &mut Simplex<R>, bounds: Bounds<R>, eps: R, floor: R) -> Option<Self::Out>;
    /// The lower bound has just moved: stop early?
    fn at_lower(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, floor: R) -> Option<Self::Out>;
    /// The gap closed to the tolerance, or rounding stopped the descent;
    /// `v` is the last iterate (no longer than `bounds.upper`).
    fn conclude(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, eps: R, floor: R) -> Self::Out;
    /// The simplex contains the origin: the bodies overlap.
    fn overlap(&self, simplex: Simplex<R>) -> Self::Out;
}

/// The distance and intersection queries' rule.
struct Full<'w, R: Real> {
    early_exit: bool,
    to_world: &'w Vec3<R>,
}

impl<R: Real> Rule<R> for Full<'_, R> {
    type Out = GjkOutcome<R>;
    #[inline]
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, _floor: R) -> GjkOutcome<R> {
        GjkOutcome::Undetermined { reason, bounds }
    }
    #[inline]
    fn at_upper(&self, simplex: &mut Simplex<R>, bounds: Bounds<R>, eps: R, _floor: R) -> Option<GjkOutcome<R>> {
        // The origin is within tolerance of the CSO: contact.
        if bounds.upper > eps {
            return None;
        }
        simplex.move_by(self.to_world);
        Some(GjkOutcome::Penetrating(*simplex))
    }
    #[inline]
    fn at_lower(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, floor: R) -> Option<GjkOutcome<R>> {
        (self.early_exit && bounds.lower > floor).then(|| separated(simplex, v, bounds, self.to_world))
    }
    #[inline]
    fn conclude(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, eps: R, floor: R) -> GjkOutcome<R> {
        conclude(simplex, v, bounds, eps, floor, self.to_world)
    }
    #[inline]
    fn overlap(&self, mut simplex: Simplex<R>) -> GjkOutcome<R> {
        simplex.move_by(self.to_world);
        GjkOutcome::Penetrating(simplex)
    }
}

/// The threshold query's rule: is the distance below `threshold`?
struct Below<R: Real> {
    threshold: R,
}

impl<R: Real> Below<R> {
    /// Signed-distance bounds: GJK's lower bound certifies only above the
    /// rounding; below it the bodies may overlap.
    #[inline]
    fn certified(bounds: Bounds<R>, floor: R) -> Bounds<R> {
        let lower = if bounds.lower > floor { crate::math::min(bounds.lower, bounds.upper) } else { -R::INFINITY };
        Bounds { lower, upper: bounds.upper }
    }
}

impl<R: Real> Rule<R> for Below<R> {
    type Out = Threshold<R>;
    #[inline]
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, floor: R) -> Threshold<R> {
        Threshold::Undetermined { reason, bounds: Self::certified(bounds, floor) }
    }
    #[inline]
    fn at_upper(&self, _simplex: &mut Simplex<R>, bounds: Bounds<R>, eps: R, floor: R) -> Option<Threshold<R>> {
        // Certified below the threshold, or touching within tolerance.
        (bounds.upper < self.threshold || !(bounds.upper > eps))
            .then(|| Threshold::Within { bounds: Self::certified(bounds, floor) })
    }
    #[inline]
    fn at_lower(&self, _simplex: &Simplex<R>, _v: Vec3<R>, bounds: Bounds<R>, floor: R) -> Option<Threshold<R>> {
        (bounds.lower > self.threshold && bounds.lower > floor)
            .then(|| Threshold::Clear { bounds: Self::certified(bounds, floor) })
    }
    /// Converged (or stalled) with `lower <= threshold`: within the
    /// threshold when the distance is within the tolerance of it.
    #[inline]
    fn conclude(&self, _simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, eps: R, floor: R) -> Threshold<R> {
        let bounds =
            Self::certified(Bounds { lower: bounds.lower, upper: crate::math::min(bounds.upper, norm(&v)) }, floor);
        if bounds.upper <= self.threshold + eps {
            Threshold::Within { bounds }
        } else {
            Threshold::Undetermined { reason: Undetermined::Degenerate, bounds }
        }
    }
    #[inline]
    fn overlap(&self, _simplex: Simplex<R>) -> Threshold<R> {
        Threshold::Within { bounds: Bounds { lower: -R::INFINITY, upper: R::ZERO } }
    }
}

/// The GJK descent (Jovanoski §3): support queries towards the origin from
/// the closest point `v` of the simplex, certified bounds `lower ≤ d ≤
/// |v|` after each, at most `budget.max_iterations` iterations; `rule`
/// decides where it stops and what it answers.
#[inline(always)]
fn descend<R, A, B, S>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>, rule: &S) -> S::Out
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
    S: Rule<R>,
{
    cache.iterations = 0;
    if !budget.is_valid() {
        return rule.undetermined(Undetermined::InvalidBudget, Bounds::unknown(), R::ZERO);
    }
    let mut cso = Cso::new(a, b);
    cso.hint_a = cache.hint_a;
    cso.hint_b = cache.hint_b;
    let tolerance = budget.tolerance;
    let mut bounds = Bounds { lower: R::ZERO, upper: R::INFINITY };

    // Start: the cached direction if there is one, else the centre offset.
    let mut dir = cache.direction;
    if !(dir.dot(&dir) > R::ZERO) || !crate::math::finite_vec(&dir) {
        dir = cso.center();
        if !(dir.dot(&dir) > R::ZERO) {
            dir = Vec3::x();
        }
    }
    let first = cso.support_point(&-dir);
    if !first.is_finite() {
        return rule.undetermined(Undetermined::NonFinite, Bounds::unknown(), R::ZERO);
    }
    let mut scale = max(max_abs(&first.a.coords), max_abs(&first.b.coords));
    let mut simplex = Simplex::one(first);
    let mut v = first.w;
    let mut vv = v.dot(&v);

    let mut outcome = None;
    for it in 1..=budget.max_iterations {
        cache.iterations = it;
        let eps = tolerance * scale;
        bounds.upper = Real::sqrt(vv);
        if !bounds.upper.finite() {
            outcome = Some(rule.undetermined(Undetermined::NonFinite, Bounds::unknown(), rounding(scale)));
            break;
        }
        if let Some(o) = rule.at_upper(&mut simplex, bounds, eps, rounding(scale)) {
            outcome = Some(o);
            break;
        }
        let p = cso.support_point(&-v);
        if !p.is_finite() {
            outcome = Some(rule.undetermined(Undetermined::NonFinite, bounds, rounding(scale)));
            break;
        }
        scale = max(scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
        // Support plane in direction −v: every CSO point x has v·x ≥ v·w.
        let vw = v.dot(&p.w);
        bounds.lower = max(bounds.lower, vw / bounds.upper);
        if let Some(o) = rule.at_lower(&simplex, v, bounds, rounding(scale)) {
            outcome = Some(o);
            break;
        }
        // Converged, or no progress possible: the new point is already a vertex.
        if !(bounds.upper - bounds.lower > tolerance * scale) || simplex.contains(&p.w) {
            outcome = Some(rule.conclude(&simplex, v, bounds, tolerance * scale, rounding(scale)));
            break;
        }
        let previous_vv = vv;
        simplex.push(p);
        if simplex.reduce() {
            outcome = Some(rule.overlap(simplex));
            break;
        }
        v = simplex.closest();
        vv = v.dot(&v);
        if !(vv < previous_vv) {
            // Rounding stopped the descent (Theorem 1 says |v| strictly
            // decreases in exact arithmetic). The new iterate is as valid a
            // CSO point as the last (a convex combination of support points),
            // only not shorter beyond rounding: stop with it rather than keep
            // a copy of the last simplex on every iteration.
            outcome = Some(rule.conclude(&simplex, v, bounds, tolerance * scale, rounding(scale)));
            break;
        }
    }
    cache.direction = v;
    cache.hint_a = cso.hint_a;
    cache.hint_b = cso.hint_b;
    outcome.unwrap_or_else(|| rule.undetermined(Undetermined::IterationCap, bounds, rounding(scale)))
}

/// The rounding of a support value at coordinates of size `scale`: a lower
/// bound at or below it proves nothing (for example a cone resting exactly
/// on a ball — distance 0 — got a "certified" lower bound of 1.4e-14 from a
/// support point 2.8e-14 off, and a warm query answered `Separated` where the
/// cold one answered contact).
#[inline]
fn rounding<R: Real>(scale: R) -> R {
    R::lit(16.0) * R::EPSILON * scale
}

/// The answer where the iteration stops (points moved by `to_world`) — the tolerance met, or no further
/// progress possible in this precision (the descent stalled before the gap
/// closed). The lower bound is a certificate only above the rounding
/// (`floor`): then separated, with bounds telling how far the distance got.
/// Below it nothing rules contact out: contact when the distance is within
/// the tolerance (`eps`), else undetermined, never "separated" — with the
/// lower bound clamped to the upper one, as both are within rounding and
/// may cross by ulps (for example 6.2e-15 above 3.1e-15).
fn conclude<R: Real>(
    simplex: &Simplex<R>,
    v: Vec3<R>,
    bounds: Bounds<R>,
    eps: R,
    floor: R,
    to_world: &Vec3<R>,
) -> GjkOutcome<R> {
    if bounds.lower > floor {
        separated(simplex, v, bounds, to_world)
    } else if !(bounds.upper > eps) {
        let mut simplex = *simplex;
        simplex.move_by(to_world);
        GjkOutcome::Penetrating(simplex)
    } else {
        let lower = crate::math::min(bounds.lower, bounds.upper);
        GjkOutcome::Undetermined { reason: Undetermined::Degenerate, bounds: Bounds { lower, upper: bounds.upper } }
    }
}

/// The separated answer, its witness points moved by `to_world`. Bounds hold up to the rounding of the support
/// points (a few ε·scale): at convergence the computed lower bound may exceed
/// `|v|` by ulps, and is then clamped to it.
fn separated<R: Real>(simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, to_world: &Vec3<R>) -> GjkOutcome<R> {
    let (pa, pb) = simplex.witnesses();
    let (pa, pb) = (pa + to_world, pb + to_world);
    let d = norm(&v);
    GjkOutcome::Separated(Separation {
        distance: d,
        bounds: Bounds { lower: crate::math::min(bounds.lower, d), upper: d },
        witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: -v / d },
    })
}

/// Threshold query: is the distance of `a` and `b` below `threshold`?
///
/// GJK runs as in [`distance`] (in the pair frame, warm-started from
/// `cache`) but stops at the first iterate whose certified bounds lie on
/// one side of the threshold: `lower > threshold` answers
/// [`Threshold::Clear`], `upper < threshold` answers
/// [`Threshold::Within`]. Only when the threshold lies inside the bounds
/// does it run on to convergence; converged with the threshold still
/// inside, the distance equals it within the tolerance and the answer is
/// `Within` (the safe side). Touching or overlapping bodies are `Within`
/// with `lower = −∞` (no depth is computed). The iteration cap is
/// [`Threshold::Undetermined`], never `Clear`.
///
/// On clear pairs this costs a few iterations where [`distance`] needs all
/// of them (the lower bound passes the threshold long before the gap
/// closes). The bodies are taken as they are: for sphere-swept bodies
/// [`contact::clearance`](super::contact::clearance) applies the
/// threshold to their cores instead, which is exact and cheaper.
///
/// A NaN or infinite threshold answers [`Undetermined::NonFinite`].
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::query::Threshold;
/// use nalgebra::{Translation3, Vector3};
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(),
///     Pose::from_parts(Translation3::new(2.5, 0.0, 0.0), Default::default()));
/// let mut cache = GjkWarmStart::default();
/// // The true distance is 0.5.
/// let far = gjk::distance_below(&a, &b, 0.4, &Budget::default(), &mut cache);
/// assert!(matches!(far, Threshold::Clear { bounds } if bounds.lower > 0.4));
/// let near = gjk::distance_below(&a, &b, 0.6, &Budget::default(), &mut cache);
/// assert!(matches!(near, Threshold::Within { bounds } if bounds.upper < 0.6));
/// ```
pub fn distance_below<R, A, B>(
    a: &A,
    b: &B,
    threshold: R,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
) -> Threshold<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    run_threshold(&Relative::new(a, origin), &Relative::new(b, origin), threshold, budget, cache)
}

/// The loop of [`distance_below`] on `a` and `b` as given (the caller picks
/// the frame; the answer holds bounds only, no points). The bounds are on
/// the distance of `a` and `b`; a positive lower bound is reported only
/// above the rounding of the support values, `−∞` otherwise.
pub(super) fn run_threshold<R, A, B>(
    a: &A,
    b: &B,
    threshold: R,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
) -> Threshold<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !threshold.finite() {
        cache.iterations = 0;
        let reason = if budget.is_valid() { Undetermined::NonFinite } else { Undetermined::InvalidBudget };
        return Threshold::Undetermined { reason, bounds: Bounds::unknown() };
    }
    descend(a, b, budget, cache, &Below { threshold })
}
