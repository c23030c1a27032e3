//! The pair list: which pairs a tick checks, with what margin, and what it
//! answered last.

use crate::math::Real;
use crate::query::{Bounds, Undetermined, Witness};
use crate::support::gjk::GjkWarmStart;

/// What a pair's query must answer.
///
/// Every mode first asks the threshold question ("is the signed distance
/// above the threshold?") and stops as soon as GJK's certified bounds
/// decide it; only a pair inside its threshold is measured further.
///
/// ```
/// use narrowphase::scene::{PairQuery, PairSettings};
/// // Distances of the person to the arm up to 0.5 m, a violation below 0.2 m.
/// let person = PairSettings::new(0.2_f32, PairQuery::DistanceUpTo(0.5));
/// assert_eq!(person.threshold(), 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PairQuery<R: Real> {
    /// Only whether the signed distance is at least the margin: a pair
    /// inside it is [`PairOutcome::WithinMargin`] with bounds and no
    /// witness points. The cheapest mode.
    Clearance,
    /// The distance, witness points and normal whenever the distance is
    /// at most `bound` (at least the margin); beyond it the pair is
    /// [`PairOutcome::Clear`] as soon as that is certain. A pair between
    /// its margin and the bound is [`PairOutcome::Near`].
    DistanceUpTo(R),
    /// Full contact (distance or depth, witness points, normal) for a pair
    /// inside its margin; clear beyond it.
    Contact,
}

/// The settings of one pair.
///
/// ```
/// use narrowphase::scene::{PairSettings, PairQuery};
/// let s = PairSettings::new(0.05_f32, PairQuery::Contact);
/// assert_eq!(s.threshold(), 0.05);
/// assert_eq!(PairSettings::new(0.05_f32, PairQuery::DistanceUpTo(0.2)).threshold(), 0.2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PairSettings<R: Real> {
    /// Security margin: the pair is in violation when its signed distance
    /// is below it. Finite and not negative.
    pub margin: R,
    /// What to answer.
    pub query: PairQuery<R>,
}

impl<R: Real> PairSettings<R> {
    /// Settings with the given margin and query. `const`, for tables in flash.
    ///
    /// ```
    /// use narrowphase::scene::{PairSettings, PairQuery};
    /// const PERSON: PairSettings<f32> = PairSettings::new(0.3, PairQuery::DistanceUpTo(0.6));
    /// assert_eq!(PERSON.margin, 0.3);
    /// ```
    pub const fn new(margin: R, query: PairQuery<R>) -> Self {
        Self { margin, query }
    }

    /// The distance beyond which the pair is clear: the margin, or the
    /// bound of [`PairQuery::DistanceUpTo`] when that is larger.
    ///
    /// ```
    /// use narrowphase::scene::{PairSettings, PairQuery};
    /// assert_eq!(PairSettings::new(0.3_f64, PairQuery::DistanceUpTo(0.1)).threshold(), 0.3);
    /// ```
    pub fn threshold(&self) -> R {
        match self.query {
            PairQuery::DistanceUpTo(bound) => crate::math::max(bound, self.margin),
            PairQuery::Clearance | PairQuery::Contact => self.margin,
        }
    }

    /// `true` when the margin (and the bound, if any) are finite and not negative.
    pub(crate) fn is_valid(&self) -> bool {
        let ok = |x: R| x.finite() && x >= R::ZERO;
        ok(self.margin) && !matches!(self.query, PairQuery::DistanceUpTo(b) if !ok(b))
    }
}

/// A measured pair: signed distance (negative depth), its certificate,
/// witness points and the unit normal from body A to body B (see
/// [`Witness`]).
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
/// let _ = scene.tick(&TickBudget::new(100));
/// let m = scene.pairs()[0].outcome.measured().copied().unwrap();
/// // Overlapping by 0.25: the normal points from A to B (+x).
/// assert!((m.signed_distance + 0.25).abs() < 1e-9 && m.bounds.contains(-0.25));
/// assert!((m.witness.normal.x - 1.0).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Measured<R: Real> {
    /// Signed distance: the distance when apart, minus the depth when
    /// overlapping.
    pub signed_distance: R,
    /// Certified bounds on the signed distance.
    pub bounds: Bounds<R>,
    /// Closest (or deepest) points and normal, world frame.
    pub witness: Witness<R>,
}

/// Why a pair has no decided answer this tick.
///
/// ```
/// use narrowphase::scene::{BodyDesc, PairOutcome, PairQuery, PairSettings, Scene, ShapeDesc, TickBudget, PairUndetermined};
/// let mut scene = Scene::<f32, 2, 1>::new();
/// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
/// scene.enable_pair(0, 1, &PairSettings::new(0.2, PairQuery::Contact)).unwrap();
/// let _ = scene.tick(&TickBudget::new(100)); // no poses set yet
/// assert!(matches!(scene.pairs()[0].outcome, PairOutcome::Undetermined { reason: PairUndetermined::NoPose, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PairUndetermined {
    /// The pair's query ran and could not decide.
    Query(Undetermined),
    /// The tick's budget ran out before the pair's turn (or before its
    /// query could start).
    NotReached,
    /// One of the pair's bodies has had no pose set yet.
    NoPose,
}

/// A pair's answer for the last tick. Never `Clear` unless certified.
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
/// let _ = scene.tick(&TickBudget::new(100));
/// assert!(matches!(scene.pairs()[0].outcome, PairOutcome::WithinMargin { measured: Some(_), .. }));
/// assert_eq!(scene.pairs()[0].outcome.violates_margin(), Some(true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PairOutcome<R: Real> {
    /// Certified: the signed distance is above the pair's
    /// [`threshold`](PairSettings::threshold), by the broad phase (bounding
    /// spheres) or by the narrow phase.
    Clear {
        /// A certified lower bound on the signed distance (above the
        /// threshold).
        lower_bound: R,
    },
    /// [`PairQuery::DistanceUpTo`] only: measured at least the margin away
    /// (certified) but within the bound.
    Near(Measured<R>),
    /// The signed distance is below the margin, or not certified above it:
    /// equal to it within the query's tolerance, or within the certified
    /// bounds of a GJK run that rounding stopped before the tolerance
    /// (`bounds.lower` is then at most the margin). On the safe side: a pair
    /// is never reported clear unless certified clear.
    WithinMargin {
        /// Certified bounds on the signed distance.
        bounds: Bounds<R>,
        /// Distance or depth, witnesses, normal; `None` in
        /// [`PairQuery::Clearance`] mode.
        measured: Option<Measured<R>>,
    },
    /// Not decided: never read as clear.
    Undetermined {
        /// Why.
        reason: PairUndetermined,
        /// Signed-distance bounds reached (unknown when the query did not run).
        bounds: Bounds<R>,
    },
}

impl<R: Real> PairOutcome<R> {
    /// `Some(true)` when the pair is within its margin, `Some(false)` when
    /// it is clear or near, `None` when undetermined.
    ///
    /// ```
    /// use narrowphase::scene::PairOutcome;
    /// assert_eq!(PairOutcome::Clear { lower_bound: 1.0_f32 }.violates_margin(), Some(false));
    /// ```
    pub fn violates_margin(&self) -> Option<bool> {
        match self {
            PairOutcome::Clear { .. } | PairOutcome::Near(_) => Some(false),
            PairOutcome::WithinMargin { .. } => Some(true),
            PairOutcome::Undetermined { .. } => None,
        }
    }

    /// The measurement, where the pair was measured.
    ///
    /// ```
    /// use narrowphase::scene::PairOutcome;
    /// assert!(PairOutcome::Clear { lower_bound: 1.0_f64 }.measured().is_none());
    /// ```
    pub fn measured(&self) -> Option<&Measured<R>> {
        match self {
            PairOutcome::Near(m) | PairOutcome::WithinMargin { measured: Some(m), .. } => Some(m),
            _ => None,
        }
    }

    /// Certified bounds on the signed distance (a clear pair's upper bound
    /// is `+∞`: the query stopped before measuring it).
    ///
    /// ```
    /// use narrowphase::scene::PairOutcome;
    /// assert_eq!(PairOutcome::Clear { lower_bound: 1.0_f32 }.bounds().lower, 1.0);
    /// ```
    pub fn bounds(&self) -> Bounds<R> {
        match self {
            PairOutcome::Clear { lower_bound } => Bounds { lower: *lower_bound, upper: R::INFINITY },
            PairOutcome::Near(m) => m.bounds,
            PairOutcome::WithinMargin { bounds, .. } | PairOutcome::Undetermined { bounds, .. } => *bounds,
        }
    }
}

/// One entry of the pair list: the two bodies, the settings, the warm
/// start kept from tick to tick and the last answer.
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
/// let _ = scene.tick(&TickBudget::new(100));
/// let pair = &scene.pairs()[0];
/// assert_eq!((pair.a, pair.b, pair.culled), (0, 1, false));
/// assert!(pair.iterations > 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pair<R: Real> {
    /// Body A (the normal points from A to B).
    pub a: u16,
    /// Body B.
    pub b: u16,
    /// Margin and query.
    pub settings: PairSettings<R>,
    /// The pair's answer of the last tick.
    pub outcome: PairOutcome<R>,
    /// `true` when the last tick decided the pair by bounding spheres alone.
    pub culled: bool,
    /// GJK iterations plus EPA iterations the pair used in the last tick.
    pub iterations: u32,
    pub(crate) cache: GjkWarmStart<R>,
}

impl<R: Real> Pair<R> {
    /// The gradient of the signed distance with respect to the bodies'
    /// twists (see [`derivative`](super::derivative)), where the last tick
    /// measured the pair (`Near`, or `WithinMargin` outside
    /// [`PairQuery::Clearance`] mode).
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc, TickBudget};
    /// use narrowphase::prelude::*;
    /// use nalgebra::{Translation3, Vector6};
    /// let mut scene = Scene::<f64, 2, 1>::new();
    /// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
    /// scene.enable_pair(0, 1, &PairSettings::new(0.5, PairQuery::Contact)).unwrap();
    /// scene.set_pose(0, &Pose::identity()).unwrap();
    /// scene.set_pose(1, &Pose::from_parts(Translation3::new(0.0, 1.2, 0.0), Default::default())).unwrap();
    /// let _ = scene.tick(&TickBudget::new(100));
    /// let g = scene.pairs()[0].twist_gradient().unwrap();
    /// // B moving along +y at 1 m/s opens the gap at 1 m/s.
    /// assert!((g.rate(&Vector6::zeros(), &Vector6::new(0.0, 1.0, 0.0, 0.0, 0.0, 0.0)) - 1.0).abs() < 1e-12);
    /// ```
    pub fn twist_gradient(&self) -> Option<super::derivative::TwistGradient<R>> {
        self.outcome.measured().map(|m| super::derivative::TwistGradient::from_witness(&m.witness))
    }

    pub(crate) fn new(a: u16, b: u16, settings: PairSettings<R>) -> Self {
        Self {
            a,
            b,
            settings,
            outcome: PairOutcome::Undetermined { reason: PairUndetermined::NotReached, bounds: Bounds::unknown() },
            culled: false,
            iterations: 0,
            cache: GjkWarmStart::default(),
        }
    }

    /// How urgent the pair is for the next tick: its certified lower bound
    /// on the signed distance minus the margin (smaller is more urgent;
    /// undetermined pairs are `−∞`, first).
    pub(crate) fn urgency(&self) -> R {
        let lower = self.outcome.bounds().lower;
        if lower.finite() {
            lower - self.settings.margin
        } else {
            -R::INFINITY
        }
    }
}
