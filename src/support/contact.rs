//! Contact query: GJK for the distance, EPA for the penetration when the
//! bodies overlap — one three-valued [`Proximity`] answer.

use super::epa::{DefaultEpa, Epa, WideEpa};
use super::frame::ToWorld;
use super::gjk::{self, GjkOutcome, GjkWarmStart};
use super::Simplex;
use super::{box_pair, closed_form};
use crate::math::{max, max_abs, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Penetration, Proximity, Separation, Threshold, Undetermined};
use crate::shape::{Core, Cso, Relative, SupportMap};

/// Signed distance, witness points and normal of `a` and `b`.
///
/// **Frame.** The query computes with both bodies seen from A's centre
/// ([`Relative`]): the answer depends on the
/// relative placement only, at any distance from the world origin.
///
/// **Margins.** When the bodies are sphere-swept (spheres, capsules,
/// [`Rounded`](crate::shape::Rounded) shapes: [`SupportMap::margin`] > 0),
/// GJK runs on their cores and the margins `m = m_A + m_B` are applied in
/// closed form: `signed distance = d(cores) − m`, exact for such bodies
/// (the CSO is `(core_A − core_B) ⊕ ball(m)`, whose boundary is at
/// `m − d` from an outside origin). When the cores overlap, EPA runs on the
/// cores and the depth is `depth(cores) + m`: it never meets a round
/// surface (Jolt's convex-radius idea), and coincident cores (concentric
/// spheres, capsules on one axis) are exact, depth `m`.
///
/// **Closed forms.** When both cores are primitives with a closed-form
/// closest point ([`SupportMap::core_primitive_from`]: a sphere's centre, a
/// capsule's segment, a box, a cylinder, also rounded) and they are apart,
/// the query does not iterate: point or segment against point, segment or
/// box, point against cylinder. The
/// answer is certified as GJK's is: the distance of the two points found
/// bounds the cores' distance from above, the gap between their support
/// values along the normal from below. Touching or overlapping cores, and
/// bounds that rounding leaves further apart than the tolerance, go to GJK
/// (then EPA). The warm start then records one iteration.
///
/// **Boxes.** Two boxes (the bodies, or the cores of rounded boxes) are
/// answered by their fifteen separating axes (face normals and edge
/// crosses) without GJK: overlapping, the least overlap is the depth,
/// exact and certified, with the deepest points on both surfaces; apart,
/// where the features facing each other across the best axis meet across
/// it (a face over a face, an edge across an edge, a corner over a face),
/// their points are the distance apart, certified by the axis's gap; where
/// they do not, the closest points hold a corner (a corner nearest a corner
/// or an edge), and the corner of either box nearest the other gives the
/// distance, certified by the support gap along its direction. GJK runs
/// only where rounding leaves those bounds apart. A sphere whose centre is
/// inside a cylinder (or a rounded one) takes the shallower of the side's
/// and the nearer cap's depth, exact too.
///
/// Otherwise GJK runs on the bodies; a separation is returned as is, an
/// intersection is handed to EPA, and an undetermined GJK answer passes
/// through with its bounds turned into signed-distance bounds (GJK's upper
/// bound `|v|` holds for the signed distance; its lower bound only when
/// positive, else `−∞`).
///
/// **EPA's budget.** EPA runs on a workspace on the stack
/// ([`DefaultEpa`], 7.4 KiB, in f32; [`WideEpa`], 23.3 KiB, in f64) with
/// twice the budget's iterations, within the workspace's room, to the
/// relative tolerance `max(tolerance, DEPTH_TOLERANCE)`: EPA converges
/// linearly on curved bodies, and f64's default `1e-9` is out of its reach.
///
/// **Witness accuracy.** A separated answer's witness points are convex
/// combinations of support points: each lies in its body and within
/// `bounds.gap()` (plus rounding) of its surface, and `point_b − point_a =
/// distance · normal` to rounding. On polytope pairs the gap closes exactly;
/// on curved surfaces a witness can slide along the surface by about
/// `sqrt(2·gap·r)` (`r` the radius of curvature there) while the distance
/// is certified to the gap. A penetrating answer's points satisfy
/// `point_a − point_b = depth · normal`. World-frame witness coordinates
/// carry the rounding of their own magnitude (half an ulp each).
///
/// `cache` warm-starts GJK as in [`gjk::distance`]; after a penetration it
/// keeps EPA's final hill-climbing hints and `−normal` as the next starting
/// direction (where the bodies will separate).
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::support::contact::contact;
/// use nalgebra::{Translation3, Vector3};
///
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(), Pose::identity());
/// let near = |x: f64| Placed::new(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap(),
///     Pose::from_parts(Translation3::new(x, 0.0, 0.3), Default::default()));
/// let budget = Budget::default();
/// let mut cache = GjkWarmStart::default();
/// match contact(&a, &near(2.5), &budget, &mut cache) {
///     Proximity::Separated(s) => assert!((s.distance - 0.5).abs() < 1e-9),
///     other => panic!("{other:?}"),
/// }
/// match contact(&a, &near(1.75), &budget, &mut cache) {
///     Proximity::Penetrating(p) => {
///         assert!((p.depth - 0.25).abs() < 1e-9);
///         assert!((p.witness.normal - Vector3::x()).norm() < 1e-9);
///     }
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(contact(&a, &near(1.75), &budget, &mut cache).signed_distance().map(|d| (d + 0.25).abs() < 1e-9), Some(true));
/// ```
pub fn contact<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    contact_by(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, OnStack, &origin.coords)
}

/// [`contact`] with a caller-owned EPA workspace: nothing large on the
/// stack (a [`DefaultEpa`] is 7.4 KiB in f32, 11.9 KiB in f64), so a firmware
/// task can keep one in a `static` and pass it every tick. EPA runs at
/// most [`Epa::MAX_ITERATIONS`] iterations, the workspace's room, whatever
/// the budget: a larger cap is clamped to it, and a run the clamp stops is
/// [`Undetermined::IterationCap`], never a capacity error.
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::support::contact::contact_with;
/// use narrowphase::support::epa::Epa;
/// use nalgebra::{Translation3, Vector3};
///
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(),
///     Pose::from_parts(Translation3::new(1.75, 0.0, 0.3), Default::default()));
/// let mut epa = Epa::<f32, 36, 68>::new(); // room for 32 iterations; keep it in a static on an MCU
/// let budget = Budget::new(32, 1e-4);
/// match contact_with(&a, &b, &budget, &mut GjkWarmStart::default(), &mut epa) {
///     Proximity::Penetrating(p) => assert!((p.depth - 0.25).abs() < 1e-3),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn contact_with<R, A, B, const V: usize, const F: usize>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    epa: &mut Epa<R, V, F>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let origin = a.center();
    contact_by(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, epa, &origin.coords)
}

/// Where [`contact`] runs EPA: a workspace built on the stack only when EPA
/// runs, or the caller's.
trait Workspace<R: Real> {
    fn run<A, B>(self, cso: &mut Cso<'_, A, B>, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized;
}

/// A [`DefaultEpa`] (f32) or [`WideEpa`] (f64) on the stack, built when
/// EPA runs: its stack (7.4 KiB, 23.3 KiB) is taken only on that path, and
/// building it writes its lengths only.
struct OnStack;

impl<R: Real> Workspace<R> for OnStack {
    fn run<A, B>(self, cso: &mut Cso<'_, A, B>, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        // f64 (the only precision this fine) gets the room its tolerance
        // needs on curved bodies; f32 stops at its precision floor first.
        if R::EPSILON < R::lit(1.0e-10) {
            WideEpa::<R>::new().run(cso, simplex, budget)
        } else {
            DefaultEpa::<R>::new().run(cso, simplex, budget)
        }
    }
}

impl<R: Real, const V: usize, const F: usize> Workspace<R> for &mut Epa<R, V, F> {
    fn run<A, B>(self, cso: &mut Cso<'_, A, B>, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        Epa::run(self, cso, simplex, budget)
    }
}

/// A caller's workspace that also reports the EPA iterations it ran (the
/// scene counts them against its tick budget).
struct Counting<'e, R: Real, const V: usize, const F: usize> {
    epa: &'e mut Epa<R, V, F>,
    used: &'e mut u32,
}

impl<R: Real, const V: usize, const F: usize> Workspace<R> for Counting<'_, R, V, F> {
    fn run<A, B>(self, cso: &mut Cso<'_, A, B>, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        let out = Epa::run(self.epa, cso, simplex, budget);
        *self.used = self.epa.iterations();
        out
    }
}

/// [`contact_with`], and the EPA iterations it ran in `epa_iterations`
/// (0 when EPA did not run).
pub(crate) fn contact_counted<R, A, B, const V: usize, const F: usize>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    epa: &mut Epa<R, V, F>,
    epa_iterations: &mut u32,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    *epa_iterations = 0;
    let origin = a.center();
    let work = Counting { epa, used: epa_iterations };
    contact_by(&Relative::new(a, origin), &Relative::new(b, origin), budget, cache, work, &origin.coords)
}

/// [`contact`] on bodies seen in the pair frame, EPA run in `epa`; the
/// answer's points moved by `to_world` where each answer is built (a copy
/// of a finished answer costs a firmware tick more than the move).
fn contact_by<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    epa: impl Workspace<R>,
    to_world: &Vec3<R>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if a.margin() + b.margin() > R::ZERO {
        return from_cores(a, b, budget, cache, epa, to_world);
    }
    if let Some(mut answer) = boxes(a, b, budget, cache) {
        answer.to_world(to_world);
        return answer;
    }
    // GJK's simplex stays in the pair frame: EPA starts from it.
    match gjk::run_before_epa(a, b, budget, cache) {
        GjkOutcome::Separated(mut s) => {
            s.witness.to_world(to_world);
            Proximity::Separated(s)
        }
        GjkOutcome::Penetrating(simplex) => penetration(a, b, &simplex, budget, cache, epa, to_world),
        GjkOutcome::Undetermined { reason, bounds } => undetermined_gjk(reason, bounds, R::ZERO),
    }
}

/// An undetermined GJK run (on the bodies, or on their cores with margins
/// `m`) as signed-distance bounds: GJK's upper bound `|v|` holds for the
/// signed distance; its lower bound only when positive, else `−∞`.
fn undetermined_gjk<R: Real>(reason: Undetermined, bounds: Bounds<R>, m: R) -> Proximity<R> {
    let lower = if bounds.lower > R::ZERO { bounds.lower - m } else { -R::INFINITY };
    Proximity::Undetermined { reason, bounds: Bounds { lower, upper: bounds.upper - m } }
}

use super::epa::depth_budget;
pub use super::epa::DEPTH_TOLERANCE;

/// EPA from GJK's terminal simplex, with the cache's hints; after a
/// penetration the cache's direction is `−normal`, where the bodies will
/// separate. Out of line: inlined, EPA's body kept GJK's support calls
/// from being inlined on the common separated path of the margin query
/// (16 % more instructions for a capsule pair on a Cortex-M4F).
#[inline(never)]
fn penetration<R, A, B>(
    a: &A,
    b: &B,
    simplex: &Simplex<R>,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    epa: impl Workspace<R>,
    to_world: &Vec3<R>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let depth_budget = depth_budget(budget);
    let origin = Pt3::origin();
    if let (Some(pa), Some(pb)) = (a.core_primitive_from(&origin), b.core_primitive_from(&origin)) {
        // A point in a cylinder (a ball's centre in a cylinder): the depth
        // in closed form, instead of EPA's iterations. (Two boxes got their
        // separating-axis depth before GJK ran; where it was left open, it
        // is open here too.)
        if let Some(mut p) = closed_form::cylinder_penetration(&pa, &pb) {
            cache.direction = -p.witness.normal;
            p.witness.to_world(to_world);
            return Proximity::Penetrating(p);
        }
    }
    let mut cso = Cso::new(a, b);
    cso.hint_a = cache.hint_a;
    cso.hint_b = cache.hint_b;
    let mut out = epa.run(&mut cso, simplex, &depth_budget);
    cache.hint_a = cso.hint_a;
    cache.hint_b = cso.hint_b;
    if let Proximity::Penetrating(p) = &mut out {
        cache.direction = -p.witness.normal;
        p.witness.to_world(to_world);
    }
    out
}

/// The margin path of [`contact`]: GJK on the cores and, when the cores
/// overlap, EPA on the cores; the margins `m = m_A + m_B` in closed form
/// either way (the CSO is `(core_A − core_B) ⊕ ball(m)`, so its support
/// value along any unit `u` is the cores' plus `m`: signed distance
/// `d(cores) − m`, depth `depth(cores) + m`).
///
/// Cores that overlap are often flat — two points for concentric spheres,
/// two segments for capsules on one line or crossing — and their CSO then
/// has no volume: EPA answers depth zero along the flat set's normal, and
/// the depth is `m` exactly.
fn from_cores<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkWarmStart<R>,
    epa: impl Workspace<R>,
    to_world: &Vec3<R>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (ma, mb) = (a.margin(), b.margin());
    let m = ma + mb;
    if let Some(gap) = gjk::closed_form_gap(a, b, budget, cache) {
        return closed_form::with_margins(&gap.separation(), max(gap.scale, m), ma, mb, budget, to_world);
    }
    let (core_a, core_b) = (Core(a), Core(b));
    // GJK's tolerance at the problem's scale: "touching" below it.
    let scale = |s: &Separation<R>| max(max(max_abs(&s.witness.point_a.coords), max_abs(&s.witness.point_b.coords)), m);
    match boxes(&core_a, &core_b, budget, cache) {
        Some(Proximity::Separated(s)) => return closed_form::with_margins(&s, scale(&s), ma, mb, budget, to_world),
        Some(Proximity::Penetrating(p)) => return deepened(&p, ma, mb, to_world),
        _ => {}
    }
    match gjk::run_before_epa(&core_a, &core_b, budget, cache) {
        GjkOutcome::Separated(s) => closed_form::with_margins(&s, scale(&s), ma, mb, budget, to_world),
        GjkOutcome::Penetrating(simplex) => {
            match penetration(&core_a, &core_b, &simplex, budget, cache, epa, &Vec3::zeros()) {
                Proximity::Penetrating(p) => deepened(&p, ma, mb, to_world),
                Proximity::Undetermined { reason, bounds } => Proximity::Undetermined {
                    reason,
                    bounds: Bounds { lower: bounds.lower - m, upper: bounds.upper - m },
                },
                // EPA never answers separated; were it to, the bounds say nothing.
                Proximity::Separated(_) => {
                    Proximity::Undetermined { reason: Undetermined::Degenerate, bounds: Bounds::unknown() }
                }
            }
        }
        GjkOutcome::Undetermined { reason, bounds } => undetermined_gjk(reason, bounds, m),
    }
}

/// The penetration of two cores (pair frame) as the bodies' with margins
/// `ma`, `mb`: depth and bounds plus the margins, witnesses moved out to
/// the surfaces, then by `to_world`.
fn deepened<R: Real>(p: &Penetration<R>, ma: R, mb: R, to_world: &Vec3<R>) -> Proximity<R> {
    let m = ma + mb;
    Proximity::Penetrating(Penetration {
        depth: p.depth + m,
        bounds: Bounds { lower: p.bounds.lower + m, upper: p.bounds.upper + m },
        witness: closed_form::swept(&p.witness, ma, mb, to_world),
    })
}

/// Two boxes (the bodies, or the cores of rounded ones) in closed form by
/// their separating axes ([`box_pair::box_contact`]): the depth where
/// they overlap, the distance where their facing features meet across the
/// best axis or from the nearest corner, without GJK. The cache then
/// records one iteration and `−normal` (the direction GJK would keep, from
/// B towards A). Pair frame;
/// `None` for any other pair, an invalid budget, or where the axes leave
/// the answer open (GJK, then EPA, decide).
fn boxes<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> Option<Proximity<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (pa, pb) = gjk::core_primitives(a, b, budget)?;
    let answer = box_pair::box_contact(&pa, &pb, budget.tolerance, depth_budget(budget).tolerance)?;
    let normal = match &answer {
        Proximity::Separated(s) => s.witness.normal,
        Proximity::Penetrating(p) => p.witness.normal,
        Proximity::Undetermined { .. } => return None,
    };
    cache.direction = -normal;
    cache.iterations = 1;
    Some(answer)
}

/// Threshold query on any convex pair: is the signed distance of `a` and
/// `b` below `threshold`? See [`Threshold`] for the three answers.
///
/// The query is [`gjk::distance_below`], here beside [`contact`] because
/// the two share one cache per pair: a controller asks `clearance` on most
/// ticks and `contact` for the pairs within their margin. Sphere-swept
/// bodies (margins `m = m_A + m_B > 0`) are decided on their cores against
/// `threshold + m`, closed-form cores without iterating; other bodies run
/// GJK on the bodies. Either way the query stops as soon as the certified
/// bounds decide, without converging the distance, and never needs EPA:
/// overlapping bodies are [`Threshold::Within`] with no depth.
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::query::Threshold;
/// use narrowphase::support::contact::clearance;
/// use nalgebra::Translation3;
/// let at = |x: f32| Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default());
/// let a = Placed::new(Capsule::new(0.5_f32, 0.1).unwrap(), at(0.0));
/// let b = Placed::new(Sphere::new(0.2_f32).unwrap(), at(1.0)); // distance 0.7
/// let mut cache = GjkWarmStart::default();
/// let t = clearance(&a, &b, 0.5, &Budget::default(), &mut cache);
/// assert!(matches!(t, Threshold::Clear { bounds } if bounds.lower > 0.5 && bounds.contains(0.7)));
/// assert_eq!(clearance(&a, &b, 0.8, &Budget::default(), &mut cache).is_clear(), Some(false));
/// ```
pub fn clearance<R, A, B>(a: &A, b: &B, threshold: R, budget: &Budget<R>, cache: &mut GjkWarmStart<R>) -> Threshold<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    gjk::distance_below(a, b, threshold, budget, cache)
}
