//! GJK: distance, closest points and intersection of two convex bodies given
//! by their support maps (GJK paper §2–3).
//!
//! Each iteration takes the support point `w = s_{A−B}(−v)` of the CSO and
//! replaces `v` by the point of `conv(W ∪ {w})` closest to the origin. Two
//! numbers bracket the distance `d` at every step (the duality gap):
//! - `upper = |v|`, since `v` is a point of the CSO;
//! - `lower = max_k (d_k · w_k) / |d_k|` over the support queries, `d_k`
//!   the direction of the `k`-th (`v` itself, except for the first query and
//!   momentum steps), since the plane through `w_k` with normal `d_k`
//!   supports the CSO (GJK paper §3, Lemma 2).
//!
//! The first query's plane counts too. From a cold start it runs along the
//! centres' offset and decides most clear pairs of an intersection or
//! threshold query without a second support query; from a warm start it
//! runs along the last query's best plane, which still nearly closes the
//! gap after a small motion. On curved bodies a warm start whose first
//! plane is poor (after a large motion) starts again from the centres'
//! offset, with momentum, as a cold query does.
//!
//! A warm start also finds the last answer's simplex again: its points'
//! support directions, kept in each body's own frame, give the same points
//! of the moved bodies ([`WarmSeeds`]). With the first plane's lower bound
//! that simplex's closest point often closes the gap at once; four points
//! around the origin (the last answer an overlap) answer one again. They
//! are points of the bodies, so the bracket below holds as for any
//! simplex. A cylinder against a cone along 20-frame trajectories (0.6° a
//! frame, tolerance 1e-6, `f64`): 8.8 → 4.9 iterations a query.
//!
//! The loop stops when `upper − lower ≤ tolerance · scale`, where `scale` is
//! the largest support-point coordinate seen on either body: it is the size of
//! the problem and also bounds the cancellation error of `a − b` far from the
//! origin. Every exit carries the bounds; reaching the iteration cap is
//! [`GjkOutcome::Undetermined`], never a separation. Every loop test is
//! written so that a NaN stops the loop (`!(x > y)` forms).
//!
//! **Momentum on curved pairs.** Where either body is curved beyond its
//! margin ([`SupportMap::core_curved`]: ellipsoids, superquadrics; not the
//! segment of a capsule) plain GJK converges only linearly. A cold query
//! there takes its first support points along Nesterov-averaged directions (Montaut et al., "Collision Detection
//! Accelerated: An Optimization Perspective", RSS 2022) for at most
//! sixteen steps, then plain GJK finishes (in `contact` only once a support
//! plane has shown the bodies apart: an overlap's simplex goes on to EPA,
//! and plain GJK's is the better start). The lower bound of each support
//! plane is taken along its own direction, so the bracket above holds
//! throughout. On random ellipsoid pairs within 5 % of contact in f64, the
//! apart ones: 22.9 → 9.7 iterations at tolerance 1e-6, 34.2 → 14.8 at the
//! default 1e-9; the overlapping ones 6.7 → 6.5.

use super::box_pair::{self, ForGjk};
use super::closed_form::{self, CoreGap, MarginVerdict};
use super::frame::ToWorld;
use super::simplex::Simplex;
use crate::math::{max, max_abs, norm, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Proximity, Separation, Threshold, Undetermined, Witness};
use crate::shape::{Core, CorePrimitive, Cso, CsoPoint, Relative, SupportMap, SupportWarmStart};

/// Caller-owned warm-start state for temporally coherent queries (one per
/// pair of bodies), and the statistics of the last run.
///
/// A cold cache ([`GjkWarmStart::default`]) starts from the direction between the
/// bodies' centres. After a query it holds the direction of the best support
/// plane found (the last iterate where none certified a gap) and the last
/// support vertices of both bodies (hill-climbing hints), so the next query
/// of the same pair after a small motion starts next to the answer. That
/// plane's direction is accurate to about `√(2·tolerance·scale / R)` (`R`
/// the bodies' radius of curvature), the last iterate's only to
/// `√(2·tolerance·scale / d)` at distance `d`: near contact on curved
/// bodies the plane is the sharper start, and its first support query
/// alone bounds the distance to within the tolerance after a small enough
/// motion. After a large one, where that plane still certifies a gap but
/// falls short of the first support point's length by more than
/// `√tolerance` of it, a pair with a curved body starts again as a cold
/// query (the cached plane's bound kept), for one support query more.
///
/// It also holds the support directions of the last answer's simplex in
/// each body's own frame ([`WarmSeeds`]), where both bodies have one
/// ([`SupportMap::attitude`]: primitives and [`Placed`](crate::shape::Placed)
/// shapes): the next query finds the same points of the moved bodies again,
/// a simplex next to the answer. Any state is safe to pass: a direction
/// gives a point of the body whatever the pair, so a cache of another pair
/// or of no motion only costs support queries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GjkWarmStart<R: Real> {
    /// Direction of the last query's best support plane (CSO space, from B
    /// towards A); zero when cold.
    pub direction: Vec3<R>,
    /// Hill-climbing hint for body A.
    pub hint_a: SupportWarmStart,
    /// Hill-climbing hint for body B.
    pub hint_b: SupportWarmStart,
    /// Iterations of the last query.
    pub iterations: u32,
    /// Where the last query's final simplex came from, for the next one.
    pub seeds: WarmSeeds<R>,
}

/// The support directions, in each body's own frame
/// ([`SupportMap::attitude`]), that gave the points of a query's final
/// simplex. After a small motion the same directions give the same points
/// of the bodies, moved with them: points of the bodies, so a simplex of
/// them bounds the distance from above as any GJK simplex does, next to
/// the answer. From a cached plane alone, GJK rebuilds that simplex one
/// support query at a time; on bodies with flat faces and curved rims
/// (cylinders, cones) its first point is a far corner of the face.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WarmSeeds<R: Real> {
    /// Body A's directions, in its own frame.
    pub a: [Vec3<R>; 4],
    /// Body B's directions, in its own frame.
    pub b: [Vec3<R>; 4],
    /// How many of them hold seeds (0: none; above 4 counts as 4).
    pub len: u8,
}

impl<R: Real> Default for WarmSeeds<R> {
    fn default() -> Self {
        Self { a: [Vec3::zeros(); 4], b: [Vec3::zeros(); 4], len: 0 }
    }
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
/// **Sphere-swept bodies** (spheres, capsules, [`Rounded`](crate::shape::Rounded)
/// shapes: margins `m = m_A + m_B > 0`, see [`SupportMap::margin`]) are
/// measured on their cores, as in [`contact`](super::contact::contact):
/// the distance is `d(cores) − m` exactly, and GJK never meets a round
/// surface (on a capsule it would converge only linearly). Cores that are
/// closed-form primitives ([`SupportMap::core_primitive_from`]: points,
/// segments, boxes, a point against a cylinder) take no iteration at all
/// (the cache records one).
/// Bodies that touch or overlap while their cores are apart get
/// [`GjkOutcome::Penetrating`] with one CSO point: a point of both bodies
/// (`a = b`, on the segment between the cores' closest points, each within
/// its body's margin of its core), or, touching from outside within the
/// tolerance, the two surface points facing each other. A point of both
/// certifies the overlap by itself; [`super::epa`] grows its first
/// tetrahedron from it. Overlapping cores (but two boxes', below), and
/// cores whose bounds straddle the margins, run GJK on the bodies as any
/// other pair.
///
/// **Two boxes** (or the box cores of two rounded boxes, the margins then
/// applied as above) are answered by their fifteen separating axes without
/// iterating (the cache records one iteration): apart, the distance as
/// [`contact`](super::contact::contact) finds it, certified; overlapping,
/// or touching within rounding, four CSO points around the origin, each a
/// corner of one box less a point of both (the corners of the Freudenthal
/// simplex of that box holding the point), with the origin's weights in
/// them; within the tolerance of touching where the rounding certifies
/// neither a gap nor a point of both, a point of each box (the one-point
/// answer "touching within the tolerance"); at a tolerance finer than the
/// rounding (0 among them), a point of both boxes as computed (one CSO
/// point, 0: the evidence of GJK's own overlap test, a tetrahedron of
/// computed points around the origin). GJK runs where the axes leave the
/// answer open (bounds the rounding keeps apart by more than the
/// tolerance, a touch at a finer tolerance with no such point).
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
    answer::<R, A, B, true>(a, b, budget, cache)
}

/// Boolean intersection test: like [`distance`] but stops as soon as a
/// separating plane is found (`d · w > 0` for a support query's direction
/// `d` and point `w`; the first query's, along the warm start's direction
/// or the centres' offset, included). A [`GjkOutcome::Separated`]
/// answer then carries valid bounds (`lower > 0`) but its `distance` is only
/// the upper bound reached, not the converged distance (on the
/// closed-form pairs of [`distance`] other than boxes, it is the distance
/// itself).
///
/// For the yes/no alone, [`distance_below`] at threshold 0 decides the same
/// question with less work where the bodies overlap: its answer is bounds,
/// where this one is the simplex [`super::epa`] starts from (on
/// sphere-swept bodies whose cores are apart, a point of both bodies).
/// Two boxes are answered by their separating axes: apart along one, with
/// its gap as the lower bound and the distance of the corners facing each
/// other across it as the upper bound and the witness; overlapping, with
/// four points around the origin, as in [`distance`].
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
    answer::<R, A, B, false>(a, b, budget, cache)
}

/// [`distance`] (`CONVERGE`) and [`intersect`]: the closed forms, then
/// ([`by_gjk`]) the cores' GJK (sphere-swept bodies) or two boxes' axes,
/// then GJK on the bodies, which converges, or for an intersection test
/// stops at the first certified separation (on the cores: farther apart
/// than the margins).
#[inline(always)]
fn answer<R, A, B, const CONVERGE: bool>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    let m = a.margin() + b.margin();
    // The closed form gets views and an origin of its own, which nothing
    // takes the address of: the GJK paths pass theirs out of line, so they
    // live in memory, where x86 stored the origin as two words and the
    // closed form's first subtraction reloaded it across both.
    if m > R::ZERO {
        // The answer is built here, in the return slot: built in the
        // closed form and returned through an `Option`, the simplex of a
        // touching pair was copied (45 instructions a query on x86).
        match closed_form_bodies(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, &origin.coords) {
            Some(CoreVerdict::Apart(s)) => return GjkOutcome::Separated(s),
            Some(CoreVerdict::Touching { core, d, ma, mb }) => {
                return GjkOutcome::Penetrating(point_of_both(&core, d, ma, mb, &origin.coords))
            }
            None => {}
        }
    }
    by_gjk::<R, A, B, CONVERGE>(a, b, budget, cache)
}

/// [`answer`] beyond the closed forms: the cores' GJK or two boxes' axes,
/// then GJK on the bodies. Out of line, so that a caller's loop takes the
/// closed forms inline and calls GJK as one function: inlined with them
/// into the support-family bench's loops, GJK on curved bodies took 17 %
/// more time from a warm start (and 7 % less from a cold one).
#[inline(never)]
fn by_gjk<R, A, B, const CONVERGE: bool>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let exit_above = if CONVERGE { R::INFINITY } else { R::ZERO };
    // The margins and the origin taken again rather than passed in: as
    // arguments (four more scalars) they cost the Cortex-M4F 6–38
    // instructions a query more than these loads.
    let m = a.margin() + b.margin();
    // The GJK paths' origin is a copy: they take its address.
    let origin = Pt3::from(a.center().coords);
    let (a, b) = (&Relative::new(a, origin), &Relative::new(b, origin));
    if m > R::ZERO {
        match on_cores(a, b, budget, cache, exit_above + m, &origin.coords) {
            OnCores::Separated(s) => return GjkOutcome::Separated(s),
            OnCores::Touching { cores, ma, mb } => {
                return GjkOutcome::Penetrating(point_of_both(&cores.witness, cores.distance, ma, mb, &origin.coords))
            }
            OnCores::Overlapping(e) => return GjkOutcome::Penetrating(e.simplex(&origin.coords)),
            OnCores::Bodies => {}
        }
    } else {
        match boxes(a, b, budget, cache, exit_above) {
            Some(ForGjk::Apart(s)) => return separated_at(s, &origin.coords),
            Some(ForGjk::Overlapping(e)) => return GjkOutcome::Penetrating(e.simplex(&origin.coords)),
            Some(ForGjk::Touching { a, b, .. }) => return GjkOutcome::Penetrating(one_point(a, b, &origin.coords)),
            None => {}
        }
    }
    run(a, b, budget, cache, exit_above, &origin.coords)
}

/// GJK on `a` and `b` as given, its answer's points moved by `to_world`
/// (the public queries run it in the pair frame, see [`super::frame`]; the
/// move is made here, on the answer in place, because a copy of an answer
/// that holds a simplex costs a firmware tick hundreds of instructions).
/// It stops at the first certified lower bound above `exit_above` (0 for
/// [`intersect`]: the first certified separation; the margins for
/// [`intersect`] on cores; `R::INFINITY` to converge).
pub(super) fn run<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    exit_above: R,
    to_world: &Vec3<R>,
) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    descend(a, b, budget, cache, &Full { exit_above, to_world, before_epa: false })
}

/// [`run`] to convergence in the pair frame, for `contact`: an overlap's
/// simplex goes on to EPA. On curved pairs the momentum then waits for a
/// support plane to show the bodies apart, so that an overlap is found by
/// plain GJK, whose simplex is the better start for EPA (with momentum
/// from the start: 5 % more time in `contact` on overlapping ellipsoids).
pub(super) fn run_before_epa<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> GjkOutcome<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    descend(a, b, budget, cache, &Full { exit_above: R::INFINITY, to_world: &Vec3::zeros(), before_epa: true })
}

/// Where one GJK descent stops and what it answers. The loop
/// ([`descend`]) is the same for every query; the distance and
/// intersection queries answer a [`GjkOutcome`] ([`Full`]), the threshold
/// query a [`Threshold`] ([`Below`]). The `stops_*` tests run inside the
/// loop; each answer method is called once, at the exit the loop took;
/// `floor` is the rounding of a support value ([`rounding`]), the level
/// above which a lower bound certifies anything.
trait Rule<R: Real> {
    type Out;
    /// Top of an iteration, `bounds.upper = |v|`: stop before the next
    /// support query? (`eps`: the tolerance times the scale.)
    fn stops_at_upper(&self, bounds: Bounds<R>, eps: R) -> bool;
    /// The lower bound has just moved: stop early?
    fn stops_at_lower(&self, bounds: Bounds<R>, floor: R) -> bool;
    /// Stopped by the input, the numbers or the iteration cap, with the
    /// distance bounds reached.
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, floor: R) -> Self::Out;
    /// The answer where [`stops_at_upper`](Self::stops_at_upper) stopped.
    fn at_upper(&self, simplex: &mut Simplex<R>, bounds: Bounds<R>, eps: R, floor: R) -> Self::Out;
    /// The answer where [`stops_at_lower`](Self::stops_at_lower) stopped.
    fn at_lower(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, floor: R) -> Self::Out;
    /// The gap closed to the tolerance, or rounding stopped the descent;
    /// `v` is the last iterate (no longer than `bounds.upper`).
    fn conclude(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, eps: R, floor: R) -> Self::Out;
    /// The simplex contains the origin: the bodies overlap.
    fn overlap(&self, simplex: Simplex<R>) -> Self::Out;
    /// Whether the momentum of curved pairs waits for a positive lower
    /// bound (see [`run_before_epa`]).
    fn momentum_waits(&self) -> bool {
        false
    }
}

/// The distance and intersection queries' rule.
struct Full<'w, R: Real> {
    /// Stop at a certified lower bound above this (`R::INFINITY`: never).
    exit_above: R,
    to_world: &'w Vec3<R>,
    /// An overlap goes on to EPA ([`run_before_epa`]).
    before_epa: bool,
}

impl<R: Real> Rule<R> for Full<'_, R> {
    type Out = GjkOutcome<R>;
    /// The origin is within tolerance of the CSO: contact.
    #[inline]
    fn stops_at_upper(&self, bounds: Bounds<R>, eps: R) -> bool {
        !(bounds.upper > eps)
    }
    #[inline]
    fn stops_at_lower(&self, bounds: Bounds<R>, floor: R) -> bool {
        bounds.lower > floor && bounds.lower > self.exit_above
    }
    #[inline]
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, _floor: R) -> GjkOutcome<R> {
        GjkOutcome::Undetermined { reason, bounds }
    }
    #[inline]
    fn at_upper(&self, simplex: &mut Simplex<R>, _bounds: Bounds<R>, _eps: R, _floor: R) -> GjkOutcome<R> {
        simplex.move_by(self.to_world);
        GjkOutcome::Penetrating(*simplex)
    }
    #[inline]
    fn at_lower(&self, simplex: &Simplex<R>, v: Vec3<R>, bounds: Bounds<R>, _floor: R) -> GjkOutcome<R> {
        separated(simplex, v, bounds, self.to_world)
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
    #[inline]
    fn momentum_waits(&self) -> bool {
        self.before_epa
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
    /// Certified below the threshold, or touching within tolerance.
    #[inline]
    fn stops_at_upper(&self, bounds: Bounds<R>, eps: R) -> bool {
        bounds.upper < self.threshold || !(bounds.upper > eps)
    }
    #[inline]
    fn stops_at_lower(&self, bounds: Bounds<R>, floor: R) -> bool {
        bounds.lower > self.threshold && bounds.lower > floor
    }
    #[inline]
    fn undetermined(&self, reason: Undetermined, bounds: Bounds<R>, floor: R) -> Threshold<R> {
        Threshold::Undetermined { reason, bounds: Self::certified(bounds, floor) }
    }
    #[inline]
    fn at_upper(&self, _simplex: &mut Simplex<R>, bounds: Bounds<R>, _eps: R, floor: R) -> Threshold<R> {
        Threshold::Within { bounds: Self::certified(bounds, floor) }
    }
    #[inline]
    fn at_lower(&self, _simplex: &Simplex<R>, _v: Vec3<R>, bounds: Bounds<R>, floor: R) -> Threshold<R> {
        Threshold::Clear { bounds: Self::certified(bounds, floor) }
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
    let cold = !(dir.dot(&dir) > R::ZERO) || !crate::math::finite_vec(&dir);
    if cold {
        dir = cso.center();
        if !(dir.dot(&dir) > R::ZERO) {
            dir = Vec3::x();
        }
    }
    let mut first = cso.support_point(&-dir);
    if !first.support_is_finite() {
        return rule.undetermined(Undetermined::NonFinite, Bounds::unknown(), R::ZERO);
    }
    let mut scale = max(max_abs(&first.a.coords), max_abs(&first.b.coords));
    // The first support plane certifies a lower bound along its own
    // direction, as every later one does. After a small motion it is the
    // best of them for a while: the cached direction is nearly the normal,
    // where the next directions (the iterates `v`) tilt by the error of the
    // closest point over the distance; and a plane that still separates
    // decides a yes/no query without a second support query. Only a finite
    // bound counts: near the largest floats `dir·w` overflows (∞, or
    // ∞/∞ = NaN), and the loop then answers `NonFinite` at its first `|v|`.
    let mut best_dir = dir;
    let along = dir.dot(&first.w);
    if along > R::ZERO {
        let lower = along / norm(&dir);
        if lower.finite() {
            bounds.lower = lower;
        }
    }
    let curved = a.core_curved() || b.core_curved();
    // A warm start on curved bodies whose first plane certifies a poor gap
    // (its gap to the first point above `√tolerance` of that point's
    // length: the bodies turned too far since the cached plane, see
    // `cold_restart`) starts again from the
    // centres' offset, with momentum, as a cold query does, keeping the
    // first plane's bound. From the poor plane, plain GJK needed more
    // iterations than a cold query (ellipsoids within 5 % of contact, 0.6°
    // a frame, f64: 12.9 against 8.6 at tolerance 1e-6, 22.5 against 12.7
    // at 1e-9); with the restart 9.5 and 13.6 support queries. After small
    // motions the first plane is good and the warm start runs as before.
    let mut restarted = false;
    if !cold && curved && !(budget.max_iterations > 0 && rule.stops_at_lower(bounds, rounding(scale))) {
        if let Some((centres, p)) = cold_restart(&mut cso, &first.w, bounds.lower, tolerance) {
            scale = max(scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
            let lower = centres.dot(&p.w) / norm(&centres);
            if lower > bounds.lower && lower.finite() {
                (bounds.lower, best_dir) = (lower, centres);
            }
            (first, dir, restarted) = (p, centres, true);
        }
    }
    let mut simplex = Simplex::one(first);
    let mut v = first.w;
    let mut vv = v.dot(&v);
    // Per simplex point (by its tag): the direction `d` whose support
    // point `s(−d)` it is, or the cached seed it came from.
    let mut dirs = [dir; 4];
    let mut from_seed = [NO_SEED; 4];
    let mut seeded = false;
    let climbs = a.climbs() || b.climbs();
    let mut last_dir = dir;
    // Momentum (Nesterov, after Montaut et al., RSS 2022) when either body
    // is curved beyond a margin (`core_curved`: an ellipsoid, not a capsule,
    // whose GJK runs on its segment and on the whole body only where the
    // segments overlap), where plain GJK converges only linearly: the support
    // direction `d` averages the iterates and the last support points
    // instead of being `v` itself. Off for good at the first step that does
    // not help. Measured near contact (f64, 1e-9, iterations of the pairs
    // apart, plain → momentum): an ellipsoid against a box 25.6 → 21.7,
    // against a cylinder 30.3 → 20.6, against a 50-point hull 24.7 → 22.5.
    // Not between two flat-faced bodies: cylinder–cone 21.5 → 20.5 apart
    // but 5.4 → 6.6 overlapping, box–box 5.2 → 5.4. Not from a warm start
    // either (unless restarted, above): it begins near the answer, where
    // momentum only oscillates.
    let mut momentum = Momentum::new((cold || restarted) && curved, dir, v);

    // The loop only decides where it stops; the answer is built once, after
    // it, from the state it stopped in (built at each exit, the answer — a
    // simplex and more — was copied out of the loop several times over on
    // the Cortex-M4F).
    let mut exit = Exit::Cap;
    'descent: {
        // The first support plane may decide already (an intersection or a
        // threshold query that the cached plane still clears).
        if budget.max_iterations > 0 && rule.stops_at_lower(bounds, rounding(scale)) {
            cache.iterations = 1;
            exit = Exit::Lower;
            break 'descent;
        }
        // The last final simplex's points, found again along their own
        // directions: with four (an enclosing tetrahedron) alone, else with
        // the first point.
        if cache.seeds.len > 0 && !restarted && budget.max_iterations > 0 {
            match grow_from_seeds(&mut cso, &cache.seeds, &mut simplex, &mut from_seed, &mut scale) {
                Grown::Inside => {
                    (cache.iterations, exit, seeded) = (1, Exit::Overlap, true);
                    break 'descent;
                }
                Grown::Around => {
                    (v, seeded) = (simplex.closest(), true);
                    vv = v.dot(&v);
                }
                Grown::Not => {}
            }
        }
        for it in 1..=budget.max_iterations {
            cache.iterations = it;
            let eps = tolerance * scale;
            bounds.upper = Real::sqrt(vv);
            if !bounds.upper.finite() {
                exit = Exit::NonFiniteDistance;
                break;
            }
            if rule.stops_at_upper(bounds, eps) {
                exit = Exit::Upper;
                break;
            }
            let (d, d_len) = momentum.direction(&v, bounds.upper, !rule.momentum_waits() || bounds.lower > R::ZERO);
            if climbs {
                cso.forget_stale_hints(&d, &last_dir);
            }
            last_dir = d;
            let p = cso.support_point(&-d);
            if !p.support_is_finite() {
                exit = Exit::NonFiniteSupport;
                break;
            }
            scale = max(scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
            // Support plane in direction −d: every CSO point x has d·x ≥ d·w.
            let lower = d.dot(&p.w) / d_len;
            if lower > bounds.lower {
                (bounds.lower, best_dir) = (lower, d);
            }
            if rule.stops_at_lower(bounds, rounding(scale)) {
                exit = Exit::Lower;
                break;
            }
            if !(bounds.upper - bounds.lower > tolerance * scale) {
                exit = Exit::Converged;
                break;
            }
            // No progress along v from the new point (it is already a vertex, or
            // its support plane along v is within the tolerance of v): plain
            // GJK has converged; a momentum step only missed, and the next one
            // looks along v.
            if simplex.contains(&p.w) || momentum.misses(&v, &p.w, bounds.upper, tolerance * scale) {
                if momentum.stop() {
                    continue;
                }
                exit = Exit::Converged;
                break;
            }
            let previous_vv = vv;
            let t = simplex.tag(simplex.len()) & 3;
            (dirs[t], from_seed[t]) = (d, NO_SEED);
            simplex.push(p);
            if simplex.reduce_newest(previous_vv) {
                exit = Exit::Overlap;
                break;
            }
            v = simplex.closest();
            vv = v.dot(&v);
            if !(vv < previous_vv) {
                // Rounding stopped the descent (Theorem 1 says |v| strictly
                // decreases in exact arithmetic). The new iterate is as valid a
                // CSO point as the last (a convex combination of support points),
                // only not shorter beyond rounding: stop with it rather than keep
                // a copy of the last simplex on every iteration. After a momentum
                // step the point may just not have helped: look along v next.
                if momentum.stop() {
                    continue;
                }
                exit = Exit::Converged;
                break;
            }
            momentum.seen(&p.w);
        }
    }
    // The best support plane's direction where one showed a positive lower
    // bound: it is accurate to the square root of the tolerance over the
    // bodies' curvature, the iterate `v` only to that over the distance.
    cache.direction = if bounds.lower > R::ZERO { best_dir } else { v };
    cache.hint_a = cso.hint_a;
    cache.hint_b = cso.hint_b;
    // Seeds for the next query where this one, warm, needed them (or ran
    // out of iterations): where a warm start found its answer in a few
    // support queries without them (most polytope and box pairs),
    // recording them costs more than they save; a cold query (a fresh
    // cache, often one per query) leaves none, which spared a cold query
    // on 200-point hulls 6 % of its instructions on the Cortex-M4F.
    if seeded || (!cold && (cache.iterations >= SEED_AFTER || matches!(exit, Exit::Cap))) {
        cache.seeds = seeds_of(a, b, &simplex, &dirs, &from_seed, &cache.seeds);
    } else {
        cache.seeds.len = 0;
    }
    let floor = rounding(scale);
    match exit {
        Exit::NonFiniteDistance => rule.undetermined(Undetermined::NonFinite, Bounds::unknown(), floor),
        Exit::NonFiniteSupport => rule.undetermined(Undetermined::NonFinite, bounds, floor),
        Exit::Upper => rule.at_upper(&mut simplex, bounds, tolerance * scale, floor),
        Exit::Lower => rule.at_lower(&simplex, v, bounds, floor),
        Exit::Converged => rule.conclude(&simplex, v, bounds, tolerance * scale, floor),
        Exit::Overlap => rule.overlap(simplex),
        Exit::Cap => rule.undetermined(Undetermined::IterationCap, bounds, floor),
    }
}

/// Marks a simplex point found by GJK's own support query (not a seed).
const NO_SEED: u8 = u8::MAX;

/// What [`grow_from_seeds`] made of the simplex.
enum Grown {
    /// No seed gave a point: the simplex is as it was.
    Not,
    /// Grown, and reduced to the part around its closest point.
    Around,
    /// Grown into a tetrahedron around the origin.
    Inside,
}

/// [`descend`]'s warm start from the last answer's simplex: the points of
/// the bodies along `seeds`' directions (turned from each body's own frame
/// into the pair frame), pushed onto `simplex` (its first point, along the
/// cached plane), or making it alone when there are four (the last answer
/// an enclosing tetrahedron), then reduced. `from_seed` records which seed
/// each point came from. Out of line: inlined, its simplex and turns added
/// a third to the stack of every GJK query on the Cortex-M4F.
#[inline(never)]
fn grow_from_seeds<R, A, B>(
    cso: &mut Cso<'_, A, B>,
    seeds: &WarmSeeds<R>,
    simplex: &mut Simplex<R>,
    from_seed: &mut [u8; 4],
    scale: &mut R,
) -> Grown
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (turn_a, turn_b) = (cso.a.attitude(), cso.b.attitude());
    let n = usize::from(seeds.len).min(4);
    let mut grown = false;
    for (j, (sa, sb)) in seeds.a.iter().zip(seeds.b.iter()).take(n).enumerate() {
        let (Some(da), Some(db)) = (turn_a.from_own(sa), turn_b.from_own(sb)) else {
            break;
        };
        let p = cso.point_along(&da, &db);
        if !p.support_is_finite() {
            break;
        }
        *scale = max(*scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
        let t = if n == 4 && !grown {
            *simplex = Simplex::one(p);
            0
        } else {
            let t = simplex.tag(simplex.len());
            simplex.push(p);
            t
        };
        if let Some(f) = from_seed.get_mut(t) {
            *f = j as u8;
        }
        grown = true;
    }
    if !grown {
        Grown::Not
    } else if simplex.reduce() {
        Grown::Inside
    } else {
        Grown::Around
    }
}

/// The iterations from which a query leaves seeds for the next (it always
/// does when it started from seeds itself).
const SEED_AFTER: u32 = 4;

/// The seeds of the next query: each point of `simplex`'s support
/// directions in the bodies' own frames (a seed's own, or `−d` and `d` for
/// GJK's support point `s(−d)`); none where a body's attitude is unknown.
#[inline(never)]
fn seeds_of<R, A, B>(
    a: &A,
    b: &B,
    simplex: &Simplex<R>,
    dirs: &[Vec3<R>; 4],
    from_seed: &[u8; 4],
    old: &WarmSeeds<R>,
) -> WarmSeeds<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (turn_a, turn_b) = (a.attitude(), b.attitude());
    let mut out = WarmSeeds::default();
    for k in 0..simplex.len() {
        let t = simplex.tag(k) & 3;
        let j = usize::from(from_seed[t]);
        let own = match (old.a.get(j), old.b.get(j)) {
            (Some(sa), Some(sb)) => Some((*sa, *sb)),
            _ => turn_a.to_own(&-dirs[t]).zip(turn_b.to_own(&dirs[t])),
        };
        let (Some((sa, sb)), Some(oa), Some(ob)) = (own, out.a.get_mut(k), out.b.get_mut(k)) else {
            return WarmSeeds::default();
        };
        (*oa, *ob) = (sa, sb);
        out.len = k as u8 + 1;
    }
    out
}

/// For [`descend`]'s warm start on curved bodies: when the first support
/// plane certifies a gap but a poor one (`0 < lower` and `|w₀| − lower`
/// above `√tolerance · |w₀|`), the centres' offset and the cold start's
/// first support point along it; `None` where the plane is good, where it
/// certifies nothing (overlapping bodies: `contact`'s cached direction
/// after a penetration, `−normal`, found the overlap again in 3.3–3.9
/// iterations where a restart took 7–9), where the centres coincide, or
/// where the point is not finite (the warm start then goes on as it was).
/// Out of line: most queries never restart.
#[inline(never)]
fn cold_restart<R, A, B>(
    cso: &mut Cso<'_, A, B>,
    w0: &Vec3<R>,
    lower: R,
    tolerance: R,
) -> Option<(Vec3<R>, CsoPoint<R>)>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let up = norm(w0);
    if !(lower > R::ZERO && up - lower > Real::sqrt(tolerance) * up) {
        return None;
    }
    let centres = cso.center();
    if !(centres.dot(&centres) > R::ZERO) {
        return None;
    }
    let p = cso.support_point(&-centres);
    p.support_is_finite().then_some((centres, p))
}

/// Momentum steps at most, counted from the first support point: the
/// averaging pays in the first iterations, where plain GJK's linear rate is
/// slow; near the optimum the momentum oscillates. Measured on pairs of
/// ellipsoids (semi-axes 1, 2/3, 1/3, f64, cold), iterations mean, plain →
/// 16 steps (12 steps; no limit):
/// - 500 poses within 5 % of contact (the support-family bench's
///   protocol), the 231 apart: 22.9 → 9.7 at tolerance 1e-6, 34.2 → 14.8
///   (12: 17.2; no limit: 14.5) at 1e-9, 45.3 → 22.6 (12: 28.1; no limit:
///   19.8) at 1e-12; the 269 overlapping 6.7 → 6.3–6.5 (no limit: 7.2–7.4,
///   the most 73);
/// - 500 random poses 1 to 3 apart between centres: 11.0 → 8.1 at 1e-6,
///   16.3 → 13.2 at 1e-9, 21.4 → 17.1 at 1e-12, the most 53 → 40 at 1e-12.
const MOMENTUM_STEPS: u32 = 16;

/// The momentum of [`descend`] on curved bodies: the support direction is
/// `d ← δ·d + (1 − δ)·y` with `y = δ·v + (1 − δ)·w`, `w` the last support
/// point and `δ = (k + 1)/(k + 3)` at the `k`-th support query (Montaut
/// et al., "Collision Detection Accelerated: An Optimization Perspective",
/// RSS 2022, algorithm 2). The count starts at the first support point
/// (`k = 0`), and `d` at the direction that found it: the first
/// accelerated step then still leans on that direction. Counted from the
/// second query with `d = v` instead (a step late, the first direction
/// dropped), the same pairs near contact take about twice the iterations.
/// Every support plane still certifies a lower bound along its own
/// direction (`d·w / |d|`), so the bounds hold whatever the direction; the
/// stopping tests that read progress along `v` hand back to plain GJK
/// instead of stopping.
struct Momentum<R: Real> {
    on: bool,
    steps: u32,
    d: Vec3<R>,
    w: Vec3<R>,
}

impl<R: Real> Momentum<R> {
    #[inline(always)]
    fn new(on: bool, dir: Vec3<R>, v: Vec3<R>) -> Self {
        Self { on, steps: 1, d: dir, w: v }
    }

    /// The support direction and its length: `v` and `|v|` when off, from
    /// the [`MOMENTUM_STEPS`]-th step on, and while not `apart` (for
    /// `contact`, until a positive lower bound).
    #[inline(always)]
    fn direction(&mut self, v: &Vec3<R>, v_len: R, apart: bool) -> (Vec3<R>, R) {
        if !self.on || self.steps >= MOMENTUM_STEPS {
            self.on = false;
            return (*v, v_len);
        }
        if !apart {
            // Waiting (see `run_before_epa`): a plain step along `v`, after
            // which the momentum starts as from a first support point (`d`
            // the direction that found it, `w` the point, from `seen`); the
            // plain steps meanwhile do not count against the limit.
            (self.d, self.steps) = (*v, 1);
            return (*v, v_len);
        }
        let k = R::lit(f64::from(self.steps));
        let delta = (k + R::ONE) / (k + R::lit(3.0));
        let y = v * delta + self.w * (R::ONE - delta);
        let d = self.d * delta + y * (R::ONE - delta);
        let len = norm(&d);
        if !(len > R::ZERO) || !len.finite() {
            self.on = false;
            return (*v, v_len);
        }
        self.d = d;
        (d, len)
    }

    /// Whether the momentum step's point `w` brings nothing along `v`: its
    /// support plane along `v` (`v·w / |v|`) within `eps` of `|v|`, where
    /// plain GJK would stop. Never when off: plain GJK's own lower bound
    /// says that.
    #[inline(always)]
    fn misses(&self, v: &Vec3<R>, w: &Vec3<R>, v_len: R, eps: R) -> bool {
        self.on && !(v_len - v.dot(w) / v_len > eps)
    }

    /// A step was taken with support point `w`.
    #[inline(always)]
    fn seen(&mut self, w: &Vec3<R>) {
        if self.on {
            self.w = *w;
            self.steps += 1;
        }
    }

    /// Turns the momentum off; `true` when it was on (the step to retry
    /// along `v`), `false` when plain GJK was running already.
    #[inline(always)]
    fn stop(&mut self) -> bool {
        core::mem::replace(&mut self.on, false)
    }
}

/// Where [`descend`]'s loop stopped.
#[derive(Clone, Copy)]
enum Exit {
    /// `|v|` overflowed or is NaN.
    NonFiniteDistance,
    /// A support point is not finite.
    NonFiniteSupport,
    /// The rule stopped at the top of an iteration ([`Rule::stops_at_upper`]).
    Upper,
    /// The rule stopped when the lower bound moved ([`Rule::stops_at_lower`]).
    Lower,
    /// The gap closed to the tolerance, or rounding stopped the descent.
    Converged,
    /// The simplex holds the origin.
    Overlap,
    /// The iteration cap.
    Cap,
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
/// with `lower = −∞` where GJK decides (it computes no depth; the closed
/// forms and boxes below bound the depth too). The iteration cap is
/// [`Threshold::Undetermined`], never `Clear`.
///
/// On clear pairs this costs a few iterations where [`distance`] needs all
/// of them (the lower bound passes the threshold long before the gap
/// closes). Sphere-swept bodies (see [`distance`]) are decided on their
/// cores against `threshold + m`: the signed distance is `d(cores) − m`
/// exactly, so the answer and its bounds carry over with `m` subtracted.
/// Closed-form cores are decided without iterating: first by the plane
/// normal to the warm start's direction (a warm start usually clears a
/// clear pair with it, as GJK's first iteration would), then by the cores'
/// closest points; their bounds are then those of the signed distance (a
/// negative lower bound where the bodies overlap).
///
/// Two boxes (or two rounded boxes, on their cores) take the same first
/// plane, then their fifteen separating axes (face normals and edge
/// crosses): overlapping boxes are `Within` with their depth in the bounds,
/// boxes apart along an axis by more than the threshold `Clear`, and boxes
/// within the threshold at their distance in closed form (where their
/// facing features meet across the best axis, as a box resting on another,
/// else from the corner of either box nearest the other), all without
/// iterating. GJK runs only where rounding leaves those bounds apart.
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
    let (a, b) = (&Relative::new(a, origin), &Relative::new(b, origin));
    let m = a.margin() + b.margin();
    if !(m > R::ZERO) {
        if let Some(t) = box_threshold(a, b, R::ZERO, threshold, budget, cache, true) {
            return t;
        }
        return run_threshold(a, b, threshold, budget, cache);
    }
    if let Some(t) = closed_form_threshold(a, b, m, threshold, budget, cache) {
        return t;
    }
    let shift = |bounds| shifted(bounds, m);
    match run_threshold(&Core(a), &Core(b), threshold + m, budget, cache) {
        // Clear only when the shifted bound still clears the threshold: the
        // rounding of `threshold + m` may have let the cores' test pass by an ulp.
        Threshold::Clear { bounds } if bounds.lower - m > threshold => Threshold::Clear { bounds: shift(bounds) },
        Threshold::Clear { bounds } => Threshold::Within { bounds: shift(bounds) },
        Threshold::Within { bounds } => Threshold::Within { bounds: shift(bounds) },
        Threshold::Undetermined { reason, bounds } => Threshold::Undetermined { reason, bounds: shift(bounds) },
    }
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

/// [`distance`] and [`intersect`] on sphere-swept bodies (margins
/// `m = m_A + m_B > 0`) that [`closed_form_bodies`] leaves open: the
/// cores' distance, for two box cores by their separating axes
/// ([`box_pair::box_gjk`], overlapping ones then [`OnCores::Overlapping`]),
/// else by GJK on the cores, which never meets a round surface. Cores farther apart
/// than `m` are the bodies' separation (witness points moved out to the
/// surfaces); cores apart by less (or within the tolerance above) are
/// [`OnCores::Touching`], for the caller to answer with a point of both
/// bodies ([`point_of_both`]). [`OnCores::Bodies`], the cache as it
/// was, for overlapping cores and cores the bounds leave undecided against
/// `m`: the caller runs GJK on the bodies, whose simplex is what EPA
/// expects from a deep overlap, and which may certify what the cores'
/// rounding could not. The cores' GJK stops at a certified lower bound
/// above `exit_above` ([`intersect`] passes the margins: the bodies are
/// then certified apart, at the upper bound reached; [`distance`] passes
/// `R::INFINITY`). Points moved by `to_world`.
///
/// Out of line: the margin path stays out of the GJK loop that margin-free
/// pairs inline.
#[inline(never)]
fn on_cores<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    exit_above: R,
    to_world: &Vec3<R>,
) -> OnCores<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (ma, mb) = (a.margin(), b.margin());
    let m = ma + mb;
    // Not the seeds: a copy of the whole cache cost a capsule pair's
    // closed form a tenth of its time on the Cortex-M4F, and the cores'
    // seeds are directions, which give points of the bodies too.
    let entry = (cache.direction, cache.hint_a, cache.hint_b, cache.iterations);
    let scale = |s: &Separation<R>| max(max(max_abs(&s.witness.point_a.coords), max_abs(&s.witness.point_b.coords)), m);
    let cores = match boxes(&Core(a), &Core(b), budget, cache, exit_above) {
        Some(ForGjk::Apart(s)) => {
            let scale = scale(&s);
            Some((s, scale))
        }
        // Overlapping (or touching) box cores: their four CSO points
        // around the origin are the bodies' too.
        Some(ForGjk::Overlapping(e)) => return OnCores::Overlapping(e),
        // Box cores touching within the tolerance: the bodies overlap (or
        // touch) by the margins, at the cores' points.
        Some(ForGjk::Touching { a: pa, b: pb, normal }) => {
            let d = norm(&(pb - pa));
            let normal = if d > R::ZERO { (pb - pa) / d } else { normal };
            let witness = Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal };
            // Read by `point_of_both` for its witness and distance only.
            let cores = Separation { distance: d, bounds: Bounds { lower: R::ZERO, upper: d }, witness };
            return OnCores::Touching { cores, ma, mb };
        }
        None => match run(&Core(a), &Core(b), budget, cache, exit_above, &Vec3::zeros()) {
            GjkOutcome::Separated(s) => {
                let scale = scale(&s);
                Some((s, scale))
            }
            _ => None,
        },
    };
    if let Some((cores, scale)) = cores {
        match closed_form::with_margins(&cores, scale, ma, mb, budget, to_world) {
            Proximity::Separated(s) => return OnCores::Separated(s),
            Proximity::Penetrating(_) => return OnCores::Touching { cores, ma, mb },
            Proximity::Undetermined { .. } => {}
        }
    }
    // The bodies' GJK starts where the caller's cache said, not where the
    // cores' run stopped (the bodies' CSO is another set).
    (cache.direction, cache.hint_a, cache.hint_b, cache.iterations) = entry;
    OnCores::Bodies
}

/// Two boxes in closed form ([`box_pair::box_gjk`]): apart, their
/// separation (an axis's bounds alone where its gap is above `exit_above`);
/// overlapping, a tetrahedron of CSO points around the origin.
/// The cache then records one iteration and the direction GJK would keep
/// (`a − b` of the closest points; `−normal` on an overlap, where the
/// bodies will separate). `None` for any other pair, an invalid budget or
/// one of no iterations, or where the closed form leaves the answer open.
#[inline]
fn boxes<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>, exit_above: R) -> Option<ForGjk<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (pa, pb) = core_primitives(a, b, budget)?;
    let answer = box_pair::box_gjk(&pa, &pb, budget.tolerance, exit_above)?;
    cache.direction = match &answer {
        ForGjk::Apart(s) => s.witness.point_a - s.witness.point_b,
        ForGjk::Overlapping(e) => -e.normal,
        ForGjk::Touching { normal, .. } => -*normal,
    };
    cache.iterations = 1;
    Some(answer)
}

/// A separation in the pair frame as GJK's answer, its points moved by
/// `to_world` (rebuilt field by field: a move of the whole answer costs
/// the firmware a byte-wise copy).
#[inline(always)]
fn separated_at<R: Real>(s: Separation<R>, to_world: &Vec3<R>) -> GjkOutcome<R> {
    let Separation { distance, bounds, mut witness } = s;
    witness.to_world(to_world);
    GjkOutcome::Separated(Separation { distance, bounds, witness })
}

/// What the cores say of two sphere-swept bodies ([`on_cores`]).
enum OnCores<R: Real> {
    /// The bodies are apart: their separation.
    Separated(Separation<R>),
    /// The bodies touch or overlap while the cores are apart: the cores'
    /// separation and the margins, for [`point_of_both`]. Small: the caller
    /// builds the simplex in its own answer, one copy of it fewer on the way
    /// out.
    Touching {
        /// The cores' separation.
        cores: Separation<R>,
        /// A's margin.
        ma: R,
        /// B's margin.
        mb: R,
    },
    /// Two boxes' cores overlap or touch: four CSO points of the cores
    /// around the origin ([`box_pair::box_gjk`]), which are the bodies'.
    Overlapping(box_pair::Enclosing<R>),
    /// The cores cannot decide: GJK on the bodies.
    Bodies,
}

/// Sphere-swept bodies whose cores are closed-form primitives
/// ([`closed_form_gap`]), margins `m > 0`: apart, the bodies'
/// separation (the cores' less `m`, witness points moved out to the
/// surfaces); touching or overlapping, the cores' closest points, from
/// which the caller builds a point of both ([`point_of_both`]). The cache
/// then records one iteration and the direction GJK would keep. `None`,
/// the cache untouched, where the closed form leaves the pair open
/// ([`on_cores`] then decides). Points moved by `to_world`.
#[inline(always)]
fn closed_form_bodies<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    to_world: &Vec3<R>,
) -> Option<CoreVerdict<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let entry = (cache.direction, cache.iterations);
    let gap = closed_form_gap(a, b, budget, cache)?;
    let (ma, mb) = (a.margin(), b.margin());
    let m = ma + mb;
    let bounds = shifted(gap.bounds, m);
    let answer = match closed_form::margin_verdict(bounds.lower, bounds.upper, budget.tolerance, max(gap.scale, m)) {
        MarginVerdict::Apart => CoreVerdict::Apart(Separation {
            distance: gap.distance - m,
            bounds,
            witness: closed_form::swept(&gap.witness, ma, mb, to_world),
        }),
        MarginVerdict::Touching => CoreVerdict::Touching { core: gap.witness, d: gap.distance, ma, mb },
        MarginVerdict::Open => {
            (cache.direction, cache.iterations) = entry;
            return None;
        }
    };
    Some(answer)
}

/// What [`closed_form_bodies`] found: the bodies' separation, or cores
/// closer than the margins (within the tolerance), whose point of both
/// ([`point_of_both`]) the caller builds in its answer.
enum CoreVerdict<R: Real> {
    /// The bodies' separation, witness points on their surfaces.
    Apart(Separation<R>),
    Touching {
        /// The cores' closest points and normal.
        core: Witness<R>,
        /// Their distance.
        d: R,
        ma: R,
        mb: R,
    },
}

/// A point of both sphere-swept bodies whose cores' closest points `p_A`,
/// `p_B` are `d` apart, `d` below the margins `m = ma + mb` (or within the
/// tolerance above), as the one-point simplex `{a − b}`. Overlapping
/// (`d < m`): `a = b = p_A + (ma/m)·(p_B − p_A)`, within `d·ma/m < ma` of
/// A's core and `d·mb/m < mb` of B's, so in both bodies (to rounding), and
/// `a − b = 0`. Touching from outside (`d ≥ m`): the two surface points
/// facing each other, `p_A + ma·n` and `p_B − mb·n`, whose difference
/// `(m − d)·n` is within the tolerance of the origin. A point of both
/// bodies certifies the overlap by itself, and EPA grows its first
/// tetrahedron from it by support queries. Points moved by `to_world`.
fn point_of_both<R: Real>(core: &Witness<R>, d: R, ma: R, mb: R, to_world: &Vec3<R>) -> Simplex<R> {
    let (pa, pb) = (core.point_a.coords, core.point_b.coords);
    let m = ma + mb;
    let (a, b) = if d < m {
        // Along `p_B − p_A` rather than `d·n`: no wait for the normal's
        // division.
        let a = pa + (pb - pa) * (ma / m);
        (a, a)
    } else {
        (pa + core.normal * ma, pb - core.normal * mb)
    };
    one_point(a, b, to_world)
}

/// The one-point simplex `{a − b}` of a point `a` of A and `b` of B, the
/// body points moved by `to_world`.
#[inline(always)]
fn one_point<R: Real>(a: Vec3<R>, b: Vec3<R>, to_world: &Vec3<R>) -> Simplex<R> {
    Simplex::one(CsoPoint { w: a - b, a: Pt3::from(a + to_world), b: Pt3::from(b + to_world) })
}

/// The threshold query on sphere-swept bodies (margins `m > 0`) whose cores
/// are closed-form primitives: first the plane normal to the warm start's
/// direction (a warm start usually clears a clear pair with it, as GJK's
/// first iteration would), then the cores' closest points; the bounds are
/// the signed distance's (the cores' less `m`). `None` where neither
/// decides (no closed form, touching cores, a non-finite threshold); the
/// caller runs GJK.
#[inline]
fn closed_form_threshold<R, A, B>(
    a: &A,
    b: &B,
    m: R,
    threshold: R,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
) -> Option<Threshold<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if !threshold.finite() {
        return None;
    }
    if let Some(bounds) = warm_plane_clears(a, b, threshold + m, budget, cache) {
        let bounds = shifted(bounds, m);
        if bounds.lower > threshold {
            return Some(Threshold::Clear { bounds });
        }
    }
    let Some(gap) = closed_form_gap(a, b, budget, cache) else {
        // The warm plane was tried above; a cold cache's plane was not.
        let cold = cache.direction == Vec3::zeros();
        return box_threshold(a, b, m, threshold, budget, cache, cold);
    };
    let bounds = shifted(gap.bounds, m);
    Some(if bounds.lower > threshold { Threshold::Clear { bounds } } else { Threshold::Within { bounds } })
}

/// The threshold query on two boxes, or two rounded boxes (margins `m`)
/// on their cores: first (when `plane`: the caller has not tried it) the
/// plane normal to the warm start's direction, or the centres' offset when
/// cold (GJK's first support plane, which clears most clear pairs), then
/// the boxes' fifteen separating axes
/// ([`box_pair::box_threshold`]): overlapping boxes are `Within` with
/// their depth, boxes apart along an axis by more than the threshold
/// `Clear`, and boxes within it at their distance in closed form (facing
/// features across the best axis, or the nearest corner), `Within` or
/// `Clear` by it. The cache then records one iteration and the normal.
/// `None` for any other pair, a non-finite threshold, an invalid budget,
/// or where the closed form leaves the answer open: GJK decides.
#[inline]
fn box_threshold<R, A, B>(
    a: &A,
    b: &B,
    m: R,
    threshold: R,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    plane: bool,
) -> Option<Threshold<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (pa, pb) = core_primitives(a, b, budget)?;
    let (CorePrimitive::Cuboid { center: ca, .. }, CorePrimitive::Cuboid { center: cb, .. }) = (&pa, &pb) else {
        return None;
    };
    if !threshold.finite() {
        return None;
    }
    let cores_threshold = threshold + m;
    cache.iterations = 1;
    if plane {
        // The cache keeps `a − b`: B lies along its opposite.
        let toward_b = if cache.direction == Vec3::zeros() { cb - ca } else { -cache.direction };
        if let Some(bounds) = closed_form::plane_clears(&pa, &pb, &toward_b, cores_threshold) {
            let bounds = shifted(bounds, m);
            if bounds.lower > threshold {
                return Some(Threshold::Clear { bounds });
            }
        }
    }
    let (clear, bounds, normal) = box_pair::box_threshold(&pa, &pb, cores_threshold, budget.tolerance)?;
    cache.direction = -normal;
    let bounds = shifted(bounds, m);
    // Clear only when the shifted bound still clears the threshold (the
    // rounding of `threshold + m`).
    Some(if clear && bounds.lower > threshold { Threshold::Clear { bounds } } else { Threshold::Within { bounds } })
}

/// The cores' distance bounds as the bodies' signed-distance bounds: both
/// less the margins `m`.
#[inline]
fn shifted<R: Real>(bounds: Bounds<R>, m: R) -> Bounds<R> {
    Bounds { lower: bounds.lower - m, upper: bounds.upper - m }
}

/// The closed-form gap of the two cores ([`closed_form::core_gap`]) when
/// both are primitives with one and it certifies them apart; the cache then
/// records one iteration and the direction GJK would have kept.
// Inlined on hosts (x86: a capsule pair's `contact` 426 -> 396
// instructions, `gjk::distance` 448 -> 408); on bare-metal targets left to
// the compiler, which on the Cortex-M4F, short of registers, keeps
// `contact` 20 instructions shorter that way.
#[cfg_attr(target_os = "none", inline)]
#[cfg_attr(not(target_os = "none"), inline(always))]
pub(super) fn closed_form_gap<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
) -> Option<CoreGap<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (pa, pb) = core_primitives(a, b, budget)?;
    let gap = closed_form::core_gap(&pa, &pb, budget.tolerance)?;
    cache.direction = gap.witness.point_a - gap.witness.point_b;
    cache.iterations = 1;
    Some(gap)
}

/// Both cores as closed-form primitives in the pair frame
/// ([`SupportMap::core_primitive_from`] at the origin), when both are and
/// the budget allows work (an invalid budget, or one of no iterations, is
/// GJK's to refuse).
#[inline(always)]
pub(super) fn core_primitives<R, A, B>(a: &A, b: &B, budget: &Budget<R>) -> Option<(CorePrimitive<R>, CorePrimitive<R>)>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = Pt3::origin();
    let (pa, pb) = (a.core_primitive_from(&origin)?, b.core_primitive_from(&origin)?);
    (budget.is_valid() && budget.max_iterations > 0).then_some((pa, pb))
}

/// The cores certified farther apart than `threshold` by the plane normal
/// to the warm start's direction ([`closed_form::plane_clears`]), when both
/// are closed-form primitives; the cache then records one iteration.
#[inline]
fn warm_plane_clears<R, A, B>(
    a: &A,
    b: &B,
    threshold: R,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
) -> Option<Bounds<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    // The cheap tests before the primitives, not `core_primitives`: with
    // the primitives first (a shape's dispatch in a scene), the Cortex-M4F
    // scene tick took 10 % more instructions.
    if !budget.is_valid() || budget.max_iterations == 0 || cache.direction == Vec3::zeros() {
        return None;
    }
    let origin = Pt3::origin();
    let (pa, pb) = (a.core_primitive_from(&origin)?, b.core_primitive_from(&origin)?);
    // The cache keeps `a − b`: B lies along its opposite.
    let bounds = closed_form::plane_clears(&pa, &pb, &-cache.direction, threshold)?;
    cache.iterations = 1;
    Some(bounds)
}
