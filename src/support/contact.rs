//! Contact query: GJK for the distance, EPA for the penetration when the
//! bodies overlap — one three-valued [`Proximity`] answer.

use super::epa::{DefaultEpa, Epa};
use super::gjk::{self, GjkCache, GjkOutcome};
use super::Simplex;
use crate::math::{max, max_abs, Pt3, Real};
use crate::query::{Bounds, Budget, Penetration, Proximity, Separation, Undetermined, Witness};
use crate::shape::{Core, Cso, SupportMap};

/// Signed distance, witness points and normal of `a` and `b`.
///
/// **Margins.** When the bodies are sphere-swept (spheres, capsules,
/// [`Rounded`](crate::shape::Rounded) shapes: [`SupportMap::margin`] > 0),
/// GJK runs on their cores and the margins `m = m_A + m_B` are applied in
/// closed form: `signed distance = d(cores) − m`, exact for such bodies
/// (the CSO is `(core_A − core_B) ⊕ ball(m)`, whose boundary is at
/// `m − d` from an outside origin). EPA then runs only when the cores
/// themselves overlap, which spares it the slow convergence on round
/// surfaces (Jolt's convex-radius idea).
///
/// Otherwise it runs [`gjk::distance`]; a separation is returned as is, an intersection
/// is handed to EPA (a [`DefaultEpa`] workspace on the stack, the same
/// `budget`), and an undetermined GJK answer passes through with its bounds
/// turned into signed-distance bounds (GJK's upper bound `|v|` holds for the
/// signed distance; its lower bound only when positive, else `−∞`).
///
/// `cache` warm-starts GJK as in [`gjk::distance`]; after a penetration it
/// keeps EPA's final hill-climbing hints and `−normal` as the next starting
/// direction (where the bodies will separate).
///
/// Curved bodies converge slowly in EPA (the faces of the polytope approach
/// a curved surface quadratically): pass a tolerance suited to the scalar
/// type (e.g. `1e-3`) or expect [`Undetermined::IterationCap`]
/// with valid bounds.
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
/// let mut cache = GjkCache::default();
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
pub fn contact<R, A, B>(a: &A, b: &B, budget: &Budget<R>, cache: &mut GjkCache<R>) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    // The workspace is built only when EPA runs (zeroing 7.6 KB would cost
    // the margin path more than its GJK).
    contact_by(a, b, budget, cache, |cso, simplex| DefaultEpa::<R>::new().run(cso, simplex, budget))
}

/// [`contact`] with a caller-owned EPA workspace: nothing large on the
/// stack (a [`DefaultEpa`] is 7.6 KB in f32, 12 KB in f64), so a firmware
/// task can keep one in a `static` and pass it every tick. Its capacity
/// (`V`, `F`) bounds EPA's iterations: a budget beyond it ends in
/// [`Undetermined::OutOfCapacity`].
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
/// match contact_with(&a, &b, &budget, &mut GjkCache::default(), &mut epa) {
///     Proximity::Penetrating(p) => assert!((p.depth - 0.25).abs() < 1e-3),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn contact_with<R, A, B, const V: usize, const F: usize>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkCache<R>,
    epa: &mut Epa<R, V, F>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    contact_by(a, b, budget, cache, |cso, simplex| epa.run(cso, simplex, budget))
}

/// [`contact`] with EPA run by `epa` on the CSO and GJK's terminal simplex.
fn contact_by<R, A, B>(
    a: &A,
    b: &B,
    budget: &Budget<R>,
    cache: &mut GjkCache<R>,
    epa: impl FnOnce(&mut Cso<'_, A, B>, &Simplex<R>) -> Proximity<R>,
) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let (ma, mb) = (a.margin(), b.margin());
    let margin = ma + mb;
    if margin > R::ZERO {
        if let Some(answer) = from_cores(a, b, ma, mb, budget, cache) {
            return answer;
        }
    }
    match gjk::distance(a, b, budget, cache) {
        GjkOutcome::Separated(s) => Proximity::Separated(s),
        GjkOutcome::Intersecting(simplex) => {
            let mut cso = Cso::new(a, b);
            cso.hint_a = cache.hint_a;
            cso.hint_b = cache.hint_b;
            let out = epa(&mut cso, &simplex);
            cache.hint_a = cso.hint_a;
            cache.hint_b = cso.hint_b;
            if let Proximity::Penetrating(p) = &out {
                cache.direction = -p.witness.normal;
            }
            out
        }
        GjkOutcome::Undetermined { reason, bounds } => {
            let lower = if bounds.lower > R::ZERO { bounds.lower } else { -R::INFINITY };
            Proximity::Undetermined { reason, bounds: Bounds { lower, upper: bounds.upper } }
        }
    }
}

/// The margin path of [`contact`]: GJK on the cores, margins in closed form.
/// `None` when the cores overlap (EPA on the full bodies decides).
fn from_cores<R, A, B>(a: &A, b: &B, ma: R, mb: R, budget: &Budget<R>, cache: &mut GjkCache<R>) -> Option<Proximity<R>>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    let m = ma + mb;
    match gjk::distance(&Core(a), &Core(b), budget, cache) {
        GjkOutcome::Separated(s) => {
            // Core distance d with certificate [lo, hi]: signed distance d − m.
            let n = s.witness.normal;
            let point_a = Pt3::from(s.witness.point_a.coords + n * ma);
            let point_b = Pt3::from(s.witness.point_b.coords - n * mb);
            let (lo, hi) = (s.bounds.lower - m, s.bounds.upper - m);
            // GJK's tolerance at the problem's scale: "touching" below it.
            let scale = max(max(max_abs(&s.witness.point_a.coords), max_abs(&s.witness.point_b.coords)), m);
            Some(if lo > R::ZERO {
                Proximity::Separated(Separation {
                    distance: s.distance - m,
                    bounds: Bounds { lower: lo, upper: hi },
                    witness: Witness { point_a, point_b, normal: n },
                })
            } else if hi <= budget.tolerance * scale {
                // Overlapping, or touching within the tolerance (GJK's
                // contract): depth m − d, clamped at 0.
                Proximity::Penetrating(Penetration {
                    depth: max(m - s.distance, R::ZERO),
                    bounds: Bounds { lower: max(-hi, R::ZERO), upper: max(-lo, R::ZERO) },
                    witness: Witness { point_a, point_b, normal: n },
                })
            } else {
                // A stalled core GJK whose bounds straddle the margins: the
                // signed distance may be either sign (fuzz finding: a
                // capsule of aspect 1e7 answered `Penetrating` where GJK on
                // the whole bodies certifies a distance ≥ 2.39).
                Proximity::Undetermined { reason: Undetermined::Degenerate, bounds: Bounds { lower: lo, upper: hi } }
            })
        }
        GjkOutcome::Intersecting(_) => None,
        GjkOutcome::Undetermined { reason, bounds } => {
            let lower = if bounds.lower > R::ZERO { bounds.lower - m } else { -R::INFINITY };
            Some(Proximity::Undetermined { reason, bounds: Bounds { lower, upper: bounds.upper - m } })
        }
    }
}
