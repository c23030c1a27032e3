//! One control tick: poses in, bounding spheres, pairs by urgency, the
//! cheapest query that decides each, one budget for all.

use super::pairs::{Measured, Pair, PairOutcome, PairQuery, PairUndetermined};
use super::{Body, Scene};
use crate::math::{norm, Real};
use crate::query::{Bounds, Budget, Proximity, Threshold};
use crate::support::contact::{clearance, contact_counted};
use core::fmt;

/// The work allowed in one tick, in a deterministic unit: iterations of
/// GJK and EPA (one support query of the pair each), summed over all
/// pairs. The same scene, poses and budget give the same answers and the
/// same count on every target.
///
/// The broad phase (one bounding-sphere test per pair) is not counted: it
/// is a fixed cost per pair.
///
/// ```
/// use narrowphase::scene::TickBudget;
/// let b = TickBudget::<f32>::new(2000);
/// assert_eq!(b.per_pair.max_iterations, 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TickBudget<R: Real> {
    /// Total GJK + EPA iterations of the tick. Pairs the budget does not
    /// reach are [`PairUndetermined::NotReached`]; the tick never uses more.
    pub iterations: u32,
    /// Iteration cap and relative tolerance of each pair's queries
    /// (GJK gets the cap, EPA twice it, as in
    /// [`contact`](crate::support::contact::contact)).
    pub per_pair: Budget<R>,
}

impl<R: Real> TickBudget<R> {
    /// `iterations` for the whole tick, the default [`Budget`] per pair.
    ///
    /// ```
    /// use narrowphase::scene::TickBudget;
    /// assert_eq!(TickBudget::<f64>::new(500).iterations, 500);
    /// ```
    pub fn new(iterations: u32) -> Self {
        Self { iterations, per_pair: Budget::default() }
    }
}

/// The pair with the smallest certified lower bound on its signed
/// distance, among the pairs decided this tick.
///
/// A clear pair's lower bound is where its threshold query stopped (just
/// above its threshold, often well below its distance), so the closest
/// pair may be a clear one: no pair is closer than `bounds.lower`, which
/// is what a controller can rely on.
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::scene::{BodyDesc, PairOutcome, PairQuery, PairSettings, Scene, ShapeDesc, TickBudget};
/// use nalgebra::Translation3;
/// let mut scene = Scene::<f64, 2, 1>::new();
/// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
/// scene.enable_pair(0, 1, &PairSettings::new(0.2, PairQuery::Contact)).unwrap();
/// scene.set_pose(0, &Pose::identity()).unwrap();
/// scene.set_pose(1, &Pose::from_parts(Translation3::new(0.75, 0.0, 0.0), Default::default())).unwrap();
/// let summary = scene.tick(&TickBudget::new(100));
/// let closest = summary.closest.unwrap();
/// assert_eq!(closest.pair, 0);
/// assert!(closest.bounds.contains(-0.25));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Closest<R: Real> {
    /// Index into [`Scene::pairs`].
    pub pair: u16,
    /// Its certified signed-distance bounds.
    pub bounds: Bounds<R>,
}

/// What one tick found, in counts (the per-pair answers are in
/// [`Scene::pairs`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TickSummary<R: Real> {
    /// Pairs in the list.
    pub pairs: u16,
    /// Pairs certified clear (by either phase).
    pub clear: u16,
    /// Of those, decided by bounding spheres alone.
    pub culled: u16,
    /// [`PairOutcome::Near`] pairs.
    pub near: u16,
    /// Pairs within their margin (penetrating ones included).
    pub within_margin: u16,
    /// Of those, with a measured negative signed distance (overlap).
    pub penetrating: u16,
    /// Undetermined pairs (the budget's and the queries').
    pub undetermined: u16,
    /// Of those, not reached by the budget.
    pub not_reached: u16,
    /// GJK + EPA iterations used.
    pub iterations: u32,
    /// The decided pair with the smallest certified lower bound.
    pub closest: Option<Closest<R>>,
}

impl<R: Real> TickSummary<R> {
    /// `true` when every pair was decided and none is within its margin.
    ///
    /// ```
    /// use narrowphase::scene::TickSummary;
    /// assert!(TickSummary::<f32>::default().all_clear());
    /// ```
    pub fn all_clear(&self) -> bool {
        self.within_margin == 0 && self.undetermined == 0
    }
}

impl<R: Real + fmt::Display> fmt::Display for TickSummary<R> {
    /// One readable line: `pairs 39: clear 35 (culled 30), near 1, within margin 2 (penetrating 0),
    /// undetermined 1 (not reached 1); closest pair 4 ≥ 0.0123; 212 iterations`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pairs {}: clear {} (culled {}), near {}, within margin {} (penetrating {}), undetermined {} (not reached {})",
            self.pairs,
            self.clear,
            self.culled,
            self.near,
            self.within_margin,
            self.penetrating,
            self.undetermined,
            self.not_reached
        )?;
        if let Some(c) = &self.closest {
            write!(f, "; closest pair {} in [{}, {}]", c.pair, c.bounds.lower, c.bounds.upper)?;
        }
        write!(f, "; {} iterations", self.iterations)
    }
}

impl<R: Real, const BODIES: usize, const PAIRS: usize, const EPA_V: usize, const EPA_F: usize>
    Scene<'_, R, BODIES, PAIRS, EPA_V, EPA_F>
{
    /// One tick: every listed pair answered from the current poses, most
    /// urgent first (the smallest lower bound minus margin of the last
    /// tick; new and undetermined pairs first), within `budget`.
    ///
    /// Per pair, in order:
    /// 1. a body without a pose: [`PairUndetermined::NoPose`];
    /// 2. broad phase: bounding spheres farther apart than the pair's
    ///    [`threshold`](super::PairSettings::threshold) (centre distance
    ///    minus both radii, a certified lower bound): [`PairOutcome::Clear`];
    /// 3. no budget left: [`PairUndetermined::NotReached`];
    /// 4. the threshold query ([`clearance`]) on the pair, warm-started
    ///    from the pair's own cache (dropped when a body jumped): clear
    ///    when certified, undetermined when not decided. Skipped for a
    ///    pair measured last tick ([`PairOutcome::measured`]) whose bodies
    ///    did not jump, when the budget left pays for the measurement:
    ///    such a pair is most likely within its threshold again, and goes
    ///    straight to step 5's measurement;
    /// 5. within the threshold: [`PairQuery::Clearance`] answers
    ///    [`PairOutcome::WithinMargin`] with bounds; the other modes run
    ///    [`contact_with`](crate::support::contact::contact_with) with the
    ///    scene's shared EPA workspace, capped at a third of the budget left
    ///    (GJK takes at most the cap, EPA twice it), and classify the
    ///    measurement by its certified bounds (clear, near or within the
    ///    margin, whatever the threshold query said or would have said).
    ///
    /// Returns the counts; the answers are in [`pairs`](Self::pairs).
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::scene::{BodyDesc, PairOutcome, PairSettings, PairQuery, Scene, ShapeDesc, TickBudget};
    /// use nalgebra::Translation3;
    /// let at = |x: f32| Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default());
    /// let mut scene = Scene::<f32, 3, 3>::new();
    /// for _ in 0..3 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
    /// scene.pairs_from_tree(&PairSettings::new(0.2, PairQuery::Contact)).unwrap();
    /// for (i, x) in [0.0, 1.1, 5.0].into_iter().enumerate() { scene.set_pose(i as u16, &at(x)).unwrap(); }
    /// let summary = scene.tick(&TickBudget::new(1000));
    /// assert_eq!((summary.within_margin, summary.clear, summary.culled), (1, 2, 2));
    /// let m = scene.pairs()[0].outcome.measured().unwrap(); // bodies 0 and 1: 0.1 apart
    /// assert!((m.signed_distance - 0.1).abs() < 1e-5);
    /// ```
    pub fn tick(&mut self, budget: &TickBudget<R>) -> TickSummary<R> {
        self.sort_by_urgency();
        let mut summary = TickSummary { pairs: self.pairs.len() as u16, ..TickSummary::default() };
        let mut remaining = budget.iterations;
        let Self { bodies, pairs, order, epa, .. } = self;
        for &index in order.iter() {
            let Some(pair) = pairs.get_mut(index as usize) else { continue };
            let (Some(a), Some(b)) = (bodies.get(pair.a as usize), bodies.get(pair.b as usize)) else {
                continue;
            };
            let used = run_pair(pair, a, b, remaining, &budget.per_pair, epa);
            remaining = remaining.saturating_sub(used);
            summary.iterations += used;
            tally(&mut summary, pair, index);
        }
        for body in bodies.iter_mut() {
            body.jumped = false;
        }
        summary
    }

    /// Orders the pair indices by the urgency of the last answers: an
    /// insertion sort, linear when the order changed little since the
    /// last tick (`PAIRS²/2` comparisons at worst). Each entry's urgency
    /// is computed once as it is inserted, and the sorted prefix's last
    /// one is carried to the next insertion: on an order that changed
    /// little, one urgency per pair (computed for both sides of every
    /// comparison it was a sixth of a Cortex-M4F tick of 36 pairs).
    fn sort_by_urgency(&mut self) {
        if self.order.len() != self.pairs.len() {
            self.order.clear();
            for i in 0..self.pairs.len() {
                let _ = self.order.push(i as u16);
            }
        }
        let urgency = |i: u16| self.pairs.get(i as usize).map_or(-R::INFINITY, Pair::urgency);
        let order = &mut self.order;
        // The urgency of the sorted prefix's last entry.
        let mut last = order.first().map_or(-R::INFINITY, |&i| urgency(i));
        for i in 1..order.len() {
            let Some(&y) = order.get(i) else { break };
            let key = urgency(y);
            // Move y forward while strictly more urgent (stable: ties keep
            // their order). Where it stays, it is the prefix's last; where it
            // moves, the last is the entry it passed first.
            if !(key < last) {
                last = key;
                continue;
            }
            order.swap(i - 1, i);
            let mut j = i - 1;
            while j > 0 {
                let Some(&x) = order.get(j - 1) else { break };
                if key < urgency(x) {
                    order.swap(j - 1, j);
                    j -= 1;
                } else {
                    break;
                }
            }
        }
    }
}

/// Counts one pair's answer into the summary.
fn tally<R: Real>(summary: &mut TickSummary<R>, pair: &Pair<R>, index: u16) {
    match &pair.outcome {
        PairOutcome::Clear { .. } => {
            summary.clear += 1;
            summary.culled += u16::from(pair.culled);
        }
        PairOutcome::Near(_) => summary.near += 1,
        PairOutcome::WithinMargin { bounds, measured } => {
            summary.within_margin += 1;
            let overlap = measured.map_or(bounds.upper < R::ZERO, |m| m.signed_distance < R::ZERO);
            summary.penetrating += u16::from(overlap);
        }
        PairOutcome::Undetermined { reason, .. } => {
            summary.undetermined += 1;
            summary.not_reached += u16::from(*reason == PairUndetermined::NotReached);
        }
    }
    if !matches!(pair.outcome, PairOutcome::Undetermined { .. }) {
        let bounds = pair.outcome.bounds();
        if summary.closest.is_none_or(|c| bounds.lower < c.bounds.lower) {
            summary.closest = Some(super::Closest { pair: index, bounds });
        }
    }
}

/// Answers one pair; returns the iterations it used.
fn run_pair<R: Real, const V: usize, const F: usize>(
    pair: &mut Pair<R>,
    a: &Body<'_, R>,
    b: &Body<'_, R>,
    remaining: u32,
    per_pair: &Budget<R>,
    epa: &mut crate::support::epa::Epa<R, V, F>,
) -> u32 {
    pair.culled = false;
    pair.iterations = 0;
    let undecided = |reason, bounds| PairOutcome::Undetermined { reason, bounds };
    if !(a.posed && b.posed) {
        pair.outcome = undecided(PairUndetermined::NoPose, Bounds::unknown());
        return 0;
    }
    if a.jumped || b.jumped {
        pair.cache = Default::default();
    }
    let margin = pair.settings.margin;
    let threshold = pair.settings.threshold();
    let ((ca, ra), (cb, rb)) = (a.bounding_sphere(), b.bounding_sphere());
    let gap = norm(&(cb - ca)) - ra - rb;
    if gap > threshold {
        pair.outcome = PairOutcome::Clear { lower_bound: gap };
        pair.culled = true;
        return 0;
    }
    if remaining == 0 {
        pair.outcome = undecided(PairUndetermined::NotReached, Bounds::unknown());
        return 0;
    }
    let (pa, pb) = (a.placed(), b.placed());
    let cap = |n: u32| Budget::new(per_pair.max_iterations.min(n), per_pair.tolerance);
    // A pair measured inside its threshold last tick, neither body having
    // jumped, is most likely inside it again: its threshold query would
    // only say so before the measurement, a second query on the pair. It
    // is measured at once, and the measurement's certified bounds classify
    // it, clear included. Where the budget left cannot pay for the
    // measurement, the threshold query still bounds the pair.
    let measures = pair.settings.query != PairQuery::Clearance;
    let measure_at_once = measures && pair.outcome.measured().is_some() && !(a.jumped || b.jumped) && remaining / 3 > 0;
    let (within, mut used) = if measure_at_once {
        // Never reported: the budget left pays for the measurement.
        (Bounds::unknown(), 0)
    } else {
        let decided = clearance(pa, pb, threshold, &cap(remaining), &mut pair.cache);
        let used = pair.cache.iterations;
        match decided {
            Threshold::Within { bounds } if measures => (bounds, used),
            decided => {
                pair.outcome = match decided {
                    Threshold::Clear { bounds } => PairOutcome::Clear { lower_bound: bounds.lower },
                    Threshold::Within { bounds } => PairOutcome::WithinMargin { bounds, measured: None },
                    Threshold::Undetermined { reason, bounds } => undecided(PairUndetermined::Query(reason), bounds),
                };
                pair.iterations = used;
                return used;
            }
        }
    };
    let left = remaining.saturating_sub(used) / 3;
    pair.outcome = if left == 0 {
        undecided(PairUndetermined::NotReached, within)
    } else {
        let mut epa_used = 0;
        let answer = contact_counted(pa, pb, &cap(left), &mut pair.cache, epa, &mut epa_used);
        used += pair.cache.iterations + epa_used;
        classify(answer, margin, threshold)
    };
    pair.iterations = used;
    used
}

/// A measured pair's outcome: clear above the threshold, near between the
/// margin and the threshold, within the margin otherwise (by the certified
/// bounds: a pair is `Near` or `Clear` only when its lower bound says so).
fn classify<R: Real>(answer: Proximity<R>, margin: R, threshold: R) -> PairOutcome<R> {
    let measured = match answer {
        Proximity::Separated(s) => Measured { signed_distance: s.distance, bounds: s.bounds, witness: s.witness },
        Proximity::Penetrating(p) => Measured {
            signed_distance: -p.depth,
            bounds: Bounds { lower: -p.bounds.upper, upper: -p.bounds.lower },
            witness: p.witness,
        },
        Proximity::Undetermined { reason, bounds } => {
            return PairOutcome::Undetermined { reason: PairUndetermined::Query(reason), bounds };
        }
    };
    let lower = measured.bounds.lower;
    if lower > threshold {
        PairOutcome::Clear { lower_bound: lower }
    } else if lower >= margin && margin < threshold {
        PairOutcome::Near(measured)
    } else {
        PairOutcome::WithinMargin { bounds: measured.bounds, measured: Some(measured) }
    }
}
