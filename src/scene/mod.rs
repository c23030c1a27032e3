//! The controller's front door: a fixed-capacity scene of convex bodies,
//! the pairs to check, and one call per control tick.
//!
//! A robot is described once — bodies with their shapes and a parent
//! index each ([`BodyDesc`], [`ShapeDesc`]: `const fn` constructors, so the
//! description can be a `static` in flash) — and the scene is built from
//! it at start-up ([`Scene::new`] is `const`; the shapes are validated by
//! [`Scene::add_body`]). The pair list comes from the kinematic tree
//! (every pair except a body and its parent), minus the allowed-collision
//! matrix, plus explicit edits; each pair has a security margin and a
//! [`PairQuery`]: clearance only, distance up to a bound, or full contact.
//!
//! Each tick the controller sets the poses ([`Scene::set_pose`] from the
//! kernel's matrix pose, [`Scene::set_isometry`] from a unit-quaternion
//! isometry; both validated) and calls [`Scene::tick`] with a
//! [`TickBudget`]. The tick runs a broad phase (world bounding spheres),
//! then per pair, most urgent first, the cheapest query that decides what
//! was asked: the threshold query
//! ([`clearance`](crate::support::contact::clearance)) stops as soon as
//! GJK's certified bounds put the pair on one side of its margin; only
//! pairs inside are measured ([`contact_with`](crate::support::contact::contact_with),
//! with the scene's one EPA workspace), and a pair measured on the last
//! tick is measured again at once. Each pair keeps its GJK warm start
//! from tick to tick. A pair the budget did not reach is undetermined,
//! never clear. [`derivative`] turns a measured pair into the gradient of
//! its signed distance with respect to the bodies' twists and the joints.
//!
//! A three-link arm, a table and a person, ticked once, checked against
//! closed forms:
//!
//! ```
//! use narrowphase::prelude::*;
//! use narrowphase::scene::{BodyDesc, PairOutcome, PairSettings, PairQuery, Scene, ShapeDesc, TickBudget};
//! use nalgebra::{Rotation3, Translation3, Vector3};
//!
//! static CELL: [BodyDesc<'static, f64>; 6] = [
//!     BodyDesc::root(ShapeDesc::capsule(0.2, 0.05)),       // 0 upper arm
//!     BodyDesc::child(ShapeDesc::capsule(0.25, 0.04), 0),  // 1 forearm
//!     BodyDesc::child(ShapeDesc::capsule(0.05, 0.03), 1),  // 2 hand
//!     BodyDesc::root(ShapeDesc::cuboid([0.2, 0.3, 0.02])), // 3 table
//!     BodyDesc::root(ShapeDesc::capsule(0.3, 0.15)),       // 4 person's torso
//!     BodyDesc::child(ShapeDesc::sphere(0.1), 4),          // 5 person's head
//! ];
//! let mut scene = Scene::<f64, 6, 16>::new();
//! scene.add_bodies(&CELL)?;
//! scene.allow_collision(3, 4)?; // the person may lean on the table
//! scene.allow_collision(3, 5)?;
//! scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::Contact))?;
//! // The person gets a wider margin, and distances up to 0.3 m.
//! let person = PairSettings::new(0.15, PairQuery::DistanceUpTo(0.3));
//! for link in 0..3 {
//!     scene.enable_pair(link, 4, &person)?;
//!     scene.enable_pair(link, 5, &person)?;
//! }
//! assert_eq!(scene.pairs().len(), 10); // 15 − 3 adjacent − 2 allowed
//!
//! let at = |x, y, z| Pose::from_parts(Translation3::new(x, y, z), Rotation3::identity());
//! let along_x = Rotation3::from_axis_angle(&Vector3::y_axis(), core::f64::consts::FRAC_PI_2);
//! scene.set_pose(0, &at(0.0, 0.0, 0.3))?;                      // core z ∈ [0.1, 0.5]
//! scene.set_pose(1, &Pose::from_parts(Translation3::new(0.25, 0.0, 0.5), along_x))?; // core x ∈ [0, 0.5]
//! scene.set_pose(2, &at(0.5, 0.0, 0.4))?;                      // core z ∈ [0.35, 0.45]
//! scene.set_pose(3, &at(0.6, 0.0, 0.2))?;                      // top at z = 0.22
//! scene.set_pose(4, &at(0.5, 0.45, 0.0))?;
//! scene.set_pose(5, &at(0.5, 0.25, 0.45))?;
//!
//! let summary = scene.tick(&TickBudget::new(2000));
//! assert_eq!((summary.within_margin, summary.near, summary.undetermined), (2, 1, 0));
//!
//! let outcome = |a, b| scene.pairs()[scene.find_pair(a, b).unwrap()].outcome;
//! // Hand above the table: 0.32 − 0.22 = 0.1, beyond the margin 0.05.
//! let PairOutcome::Clear { lower_bound } = outcome(2, 3) else { panic!() };
//! assert!(lower_bound > 0.05 && lower_bound <= 0.1 + 1e-12);
//! // Head to hand: centre 0.25 from the hand's core, radii 0.1 + 0.03.
//! let m = outcome(2, 5).measured().copied().unwrap();
//! assert!((m.signed_distance - 0.12).abs() < 1e-9);
//! // Head to forearm: |(0, 0.25, −0.05)| − 0.14.
//! let d = (0.25_f64 * 0.25 + 0.05 * 0.05).sqrt() - 0.14;
//! assert!((outcome(1, 5).measured().unwrap().signed_distance - d).abs() < 1e-9);
//! // The summary's closest pair is the one with the smallest certified lower
//! // bound: the hand–table pair (0.1 apart) may be closer than head–forearm.
//! let closest = summary.closest.unwrap();
//! assert_eq!(Some(closest.pair as usize), scene.find_pair(2, 3));
//! assert!(closest.bounds.lower <= 0.1 + 1e-12);
//! // Torso to hand: near (between the margin and the bound), |(0, 0.45, −0.05)| − 0.18.
//! let PairOutcome::Near(m) = outcome(2, 4) else { panic!() };
//! assert!((m.signed_distance - ((0.45_f64 * 0.45 + 0.05 * 0.05).sqrt() - 0.18)).abs() < 1e-9);
//! # Ok::<(), narrowphase::error::SceneError>(())
//! ```

mod body;
pub mod derivative;
mod pairs;
mod tick;

pub use body::{BodyDesc, Shape, ShapeDesc};
pub use pairs::{Measured, Pair, PairOutcome, PairQuery, PairSettings, PairUndetermined};
pub use tick::{Closest, TickBudget, TickSummary};

use crate::error::{SceneError, ShapeError};
use crate::math::{norm, Pose, Pt3, Real};
use crate::shape::{Bounded, Placed};
use crate::support::epa::Epa;
use core::fmt;

/// A body moves by a *jump* when its pose changes by more than this
/// fraction of its bounding radius, or its rotation by more than
/// [`JUMP_ANGLE`], between two poses: the warm starts of its pairs are then
/// dropped (a start far from the answer costs more than a cold one).
pub const JUMP_FRACTION: f64 = 0.5;

/// Rotation (radians) between two poses of a body above which the move is
/// a jump (see [`JUMP_FRACTION`]).
pub const JUMP_ANGLE: f64 = 0.5;

/// `cos(JUMP_ANGLE)`, the test [`Scene::set_pose`] makes (a constant: the
/// cosine itself costs a microcontroller more than the rest of the pose
/// update).
const JUMP_COS: f64 = 0.877_582_561_890_372_8;

/// Largest number of bodies a scene holds: the allowed-collision matrix
/// keeps one 64-bit row per body.
pub const MAX_BODIES: usize = 64;

/// A body of a scene: its validated shape at its current pose, its parent
/// and its bounding sphere in the world (see [`Body::placed`] for an
/// example).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Body<'a, R: Real> {
    placed: Placed<Shape<'a, R>, R>,
    parent: Option<u16>,
    local_center: Pt3<R>,
    radius: R,
    world_center: Pt3<R>,
    posed: bool,
    jumped: bool,
}

impl<'a, R: Real> Body<'a, R> {
    /// The shape at its current pose: what the queries see.
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// use nalgebra::Translation3;
    /// let mut scene = Scene::<f32, 2, 1>::new();
    /// scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap();
    /// scene.add_body(&BodyDesc::child(ShapeDesc::capsule(0.5, 0.1), 0)).unwrap();
    /// assert!(!scene.bodies()[1].has_pose());
    /// scene.set_pose(1, &Pose::from_parts(Translation3::new(1.0, 2.0, 3.0), Default::default())).unwrap();
    /// let body = &scene.bodies()[1];
    /// assert!(body.has_pose() && body.parent() == Some(0));
    /// assert_eq!(body.placed().pose().translation.vector.y, 2.0);
    /// let (centre, radius) = body.bounding_sphere();
    /// assert_eq!((centre.z, radius), (3.0, 0.6));
    /// ```
    pub fn placed(&self) -> &Placed<Shape<'a, R>, R> {
        &self.placed
    }
    /// The parent body, if any (see [`placed`](Self::placed) for an example).
    pub fn parent(&self) -> Option<u16> {
        self.parent
    }
    /// World bounding sphere (centre, radius) at the current pose (see
    /// [`placed`](Self::placed) for an example).
    pub fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (self.world_center, self.radius)
    }
    /// `true` once a pose has been set (see [`placed`](Self::placed) for
    /// an example).
    pub fn has_pose(&self) -> bool {
        self.posed
    }
}

/// A collision scene: up to `BODIES` bodies (at most [`MAX_BODIES`]) and
/// up to `PAIRS` pairs, the caller owns it; no allocation.
///
/// The pair list is the truth: a tick checks exactly the pairs in it.
/// [`pairs_from_tree`](Self::pairs_from_tree) builds it from every pair of
/// bodies that is neither a body and its parent ("skip adjacent links")
/// nor marked in the allowed-collision matrix
/// ([`allow_collision`](Self::allow_collision)); [`enable_pair`](Self::enable_pair)
/// and [`disable_pair`](Self::disable_pair) edit it one pair at a time.
///
/// The scene holds one EPA workspace shared by all its pairs, an
/// [`Epa<R, EPA_V, EPA_F>`](Epa) (by default [`DefaultEpa`](crate::support::epa::DefaultEpa),
/// room for 64 iterations; EPA runs at most
/// [`Epa::MAX_ITERATIONS`] whatever the budget, so a smaller workspace
/// bounds the depth queries' work and memory on a microcontroller, and a
/// larger one — such as [`WideEpa`](crate::support::epa::WideEpa)'s 132, 260 —
/// lets f64 penetrations of curved bodies converge to `1e-6`), and everything inline: in f32 on a 64-bit host, 7.4 KiB for the
/// workspace, 232 B per body capacity (less on a 32-bit target, whose
/// slices and pointers are half the size) and 108 B per pair capacity
/// (`Scene<f32, 8, 28>` is 12.4 KiB). Keep it in a `static` on a
/// microcontroller.
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc};
/// let mut scene = Scene::<f32, 4, 6>::new();
/// let base = scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap();
/// let link = scene.add_body(&BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), base)).unwrap();
/// let ball = scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap();
/// scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::Contact)).unwrap();
/// // base–link are adjacent: only base–ball and link–ball remain.
/// assert_eq!(scene.pairs().len(), 2);
/// assert!(scene.find_pair(base, link).is_none());
/// ```
pub struct Scene<
    'a,
    R: Real,
    const BODIES: usize,
    const PAIRS: usize,
    const EPA_V: usize = 68,
    const EPA_F: usize = 132,
> {
    bodies: heapless::Vec<Body<'a, R>, BODIES>,
    allowed: [u64; BODIES],
    pairs: heapless::Vec<Pair<R>, PAIRS>,
    order: heapless::Vec<u16, PAIRS>,
    epa: Epa<R, EPA_V, EPA_F>,
}

#[cfg(feature = "defmt")]
impl<R: Real, const BODIES: usize, const PAIRS: usize, const EPA_V: usize, const EPA_F: usize> defmt::Format
    for Scene<'_, R, BODIES, PAIRS, EPA_V, EPA_F>
{
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Scene {{ bodies: {}, pairs: {} }}", self.bodies.len(), self.pairs.len())
    }
}

impl<R: Real, const BODIES: usize, const PAIRS: usize, const EPA_V: usize, const EPA_F: usize> fmt::Debug
    for Scene<'_, R, BODIES, PAIRS, EPA_V, EPA_F>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scene").field("bodies", &self.bodies.len()).field("pairs", &self.pairs.len()).finish()
    }
}

impl<R: Real, const BODIES: usize, const PAIRS: usize, const EPA_V: usize, const EPA_F: usize> Default
    for Scene<'_, R, BODIES, PAIRS, EPA_V, EPA_F>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, R: Real, const BODIES: usize, const PAIRS: usize, const EPA_V: usize, const EPA_F: usize>
    Scene<'a, R, BODIES, PAIRS, EPA_V, EPA_F>
{
    const CAPACITY_CHECK: () = {
        assert!(BODIES <= MAX_BODIES, "a scene holds at most MAX_BODIES bodies");
        assert!(PAIRS <= u16::MAX as usize, "pair indices must fit u16");
    };

    /// An empty scene. `const`, so it can initialise a `static`.
    ///
    /// ```
    /// use narrowphase::scene::Scene;
    /// let scene = Scene::<f32, 8, 28>::new();
    /// assert_eq!(scene.bodies().len(), 0);
    /// ```
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_CHECK;
        Self {
            bodies: heapless::Vec::new(),
            allowed: [0; BODIES],
            pairs: heapless::Vec::new(),
            order: heapless::Vec::new(),
            epa: Epa::new(),
        }
    }

    /// Adds a body and returns its index. It has no pose until
    /// [`set_pose`](Self::set_pose): its pairs are
    /// [`PairUndetermined::NoPose`] until then.
    ///
    /// # Errors
    /// [`SceneError::Shape`] for a shape its constructor refuses,
    /// [`SceneError::UnknownBody`] for a parent not in the scene,
    /// [`SceneError::BodyCapacity`] when the scene is full.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// use narrowphase::error::SceneError;
    /// let mut scene = Scene::<f32, 2, 1>::new();
    /// assert_eq!(scene.add_body(&BodyDesc::child(ShapeDesc::sphere(1.0), 5)), Err(SceneError::UnknownBody(5)));
    /// assert_eq!(scene.add_body(&BodyDesc::root(ShapeDesc::sphere(1.0))), Ok(0));
    /// ```
    pub fn add_body(&mut self, desc: &BodyDesc<'a, R>) -> Result<u16, SceneError> {
        let shape = Shape::new(&desc.shape).map_err(SceneError::Shape)?;
        if let Some(p) = desc.parent {
            if p as usize >= self.bodies.len() {
                return Err(SceneError::UnknownBody(p));
            }
        }
        let index = self.bodies.len() as u16;
        let (local_center, radius) = shape.bounding_sphere();
        let body = Body {
            placed: Placed::new(shape, Pose::identity()),
            parent: desc.parent,
            local_center,
            radius,
            world_center: local_center,
            posed: false,
            jumped: false,
        };
        self.bodies.push(body).map_err(|_| SceneError::BodyCapacity)?;
        Ok(index)
    }

    /// Adds every body of a description (a `static` table, say), in order.
    ///
    /// # Errors
    /// As [`add_body`](Self::add_body); the bodies before the refused one
    /// stay added.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// static ROBOT: [BodyDesc<'static, f32>; 2] = [
    ///     BodyDesc::root(ShapeDesc::cylinder(0.1, 0.1)),
    ///     BodyDesc::child(ShapeDesc::capsule(0.2, 0.05), 0),
    /// ];
    /// let mut scene = Scene::<f32, 4, 6>::new();
    /// scene.add_bodies(&ROBOT).unwrap();
    /// assert_eq!(scene.bodies().len(), 2);
    /// ```
    pub fn add_bodies(&mut self, descs: &[BodyDesc<'a, R>]) -> Result<(), SceneError> {
        for d in descs {
            self.add_body(d)?;
        }
        Ok(())
    }

    /// The bodies, by index.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// let mut scene = Scene::<f64, 2, 1>::new();
    /// scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap();
    /// assert_eq!(scene.bodies().len(), 1);
    /// ```
    pub fn bodies(&self) -> &[Body<'a, R>] {
        &self.bodies
    }

    /// The pair list, in insertion order (the tick visits the pairs by
    /// urgency, but every pair keeps its own index).
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairQuery, PairSettings, Scene, ShapeDesc};
    /// let mut scene = Scene::<f64, 3, 3>::new();
    /// for _ in 0..3 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
    /// scene.pairs_from_tree(&PairSettings::new(0.1, PairQuery::Clearance)).unwrap();
    /// let listed: Vec<_> = scene.pairs().iter().map(|p| (p.a, p.b)).collect();
    /// assert_eq!(listed, [(0, 1), (0, 2), (1, 2)]);
    /// ```
    pub fn pairs(&self) -> &[Pair<R>] {
        &self.pairs
    }

    /// The index of the pair of `a` and `b` (either order), if listed.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairQuery, PairSettings, Scene, ShapeDesc};
    /// let mut scene = Scene::<f64, 3, 3>::new();
    /// for _ in 0..3 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
    /// scene.enable_pair(2, 0, &PairSettings::new(0.1, PairQuery::Contact)).unwrap();
    /// assert_eq!((scene.find_pair(0, 2), scene.find_pair(0, 1)), (Some(0), None));
    /// ```
    pub fn find_pair(&self, a: u16, b: u16) -> Option<usize> {
        self.pairs.iter().position(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
    }

    fn check_body(&self, i: u16) -> Result<(), SceneError> {
        if (i as usize) < self.bodies.len() {
            Ok(())
        } else {
            Err(SceneError::UnknownBody(i))
        }
    }

    fn check_pair(&self, a: u16, b: u16) -> Result<(), SceneError> {
        self.check_body(a)?;
        self.check_body(b)?;
        if a == b {
            return Err(SceneError::SelfPair);
        }
        Ok(())
    }

    fn set_allowed(&mut self, a: u16, b: u16, allowed: bool) {
        let (ia, ib) = (a as usize, b as usize);
        if let (Some(ra), Some(rb)) = (self.allowed.get(ia), self.allowed.get(ib)) {
            let (ra, rb) = if allowed { (ra | 1 << ib, rb | 1 << ia) } else { (ra & !(1 << ib), rb & !(1 << ia)) };
            if let Some(r) = self.allowed.get_mut(ia) {
                *r = ra;
            }
            if let Some(r) = self.allowed.get_mut(ib) {
                *r = rb;
            }
        }
    }

    /// `true` when the allowed-collision matrix exempts the pair: it is
    /// never checked (and [`pairs_from_tree`](Self::pairs_from_tree) leaves it out).
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// let mut scene = Scene::<f32, 2, 1>::new();
    /// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap(); }
    /// scene.allow_collision(0, 1).unwrap();
    /// assert!(scene.is_allowed(1, 0));
    /// ```
    pub fn is_allowed(&self, a: u16, b: u16) -> bool {
        self.allowed.get(a as usize).is_some_and(|r| b < 64 && r & (1 << b) != 0)
    }

    /// `true` when one body is the other's parent.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// let mut scene = Scene::<f32, 3, 3>::new();
    /// scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.5))).unwrap();
    /// scene.add_body(&BodyDesc::child(ShapeDesc::sphere(0.5), 0)).unwrap();
    /// scene.add_body(&BodyDesc::child(ShapeDesc::sphere(0.5), 1)).unwrap();
    /// assert!(scene.are_adjacent(1, 0) && !scene.are_adjacent(0, 2));
    /// ```
    pub fn are_adjacent(&self, a: u16, b: u16) -> bool {
        let parent = |i: u16| self.bodies.get(i as usize).and_then(|x| x.parent);
        parent(a) == Some(b) || parent(b) == Some(a)
    }

    /// Marks the pair in the allowed-collision matrix (it may touch: a
    /// gripper and the part it holds, two bodies that cannot meet) and
    /// removes it from the pair list.
    ///
    /// # Errors
    /// [`SceneError::UnknownBody`], [`SceneError::SelfPair`].
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc};
    /// let mut scene = Scene::<f32, 3, 3>::new();
    /// for _ in 0..3 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap(); }
    /// scene.allow_collision(0, 2).unwrap();
    /// scene.pairs_from_tree(&PairSettings::new(0.0, PairQuery::Clearance)).unwrap();
    /// assert_eq!(scene.pairs().len(), 2);
    /// assert!(scene.find_pair(2, 0).is_none());
    /// ```
    pub fn allow_collision(&mut self, a: u16, b: u16) -> Result<(), SceneError> {
        self.check_pair(a, b)?;
        self.set_allowed(a, b, true);
        if let Some(i) = self.find_pair(a, b) {
            self.pairs.remove(i);
            self.order.clear();
        }
        Ok(())
    }

    /// Removes the pair from the checks: the same as
    /// [`allow_collision`](Self::allow_collision).
    ///
    /// # Errors
    /// [`SceneError::UnknownBody`], [`SceneError::SelfPair`].
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc};
    /// let mut scene = Scene::<f32, 2, 1>::new();
    /// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap(); }
    /// scene.enable_pair(0, 1, &PairSettings::new(0.1, PairQuery::Contact)).unwrap();
    /// scene.disable_pair(1, 0).unwrap();
    /// assert!(scene.pairs().is_empty() && scene.is_allowed(0, 1));
    /// ```
    pub fn disable_pair(&mut self, a: u16, b: u16) -> Result<(), SceneError> {
        self.allow_collision(a, b)
    }

    /// Adds the pair `(a, b)` to the list with `settings` (or updates the
    /// settings of the listed pair), and clears its allowed-collision bit.
    /// Adjacent bodies can be paired this way. Returns the pair's index.
    ///
    /// # Errors
    /// [`SceneError::UnknownBody`], [`SceneError::SelfPair`],
    /// [`SceneError::BadMargin`], [`SceneError::PairCapacity`].
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc};
    /// use narrowphase::error::SceneError;
    /// let mut scene = Scene::<f32, 2, 1>::new();
    /// for _ in 0..2 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap(); }
    /// assert_eq!(scene.enable_pair(0, 1, &PairSettings::new(f32::NAN, PairQuery::Contact)), Err(SceneError::BadMargin));
    /// assert_eq!(scene.enable_pair(1, 1, &PairSettings::new(0.1, PairQuery::Contact)), Err(SceneError::SelfPair));
    /// assert_eq!(scene.enable_pair(0, 1, &PairSettings::new(0.1, PairQuery::Contact)), Ok(0));
    /// ```
    pub fn enable_pair(&mut self, a: u16, b: u16, settings: &PairSettings<R>) -> Result<usize, SceneError> {
        self.check_pair(a, b)?;
        if !settings.is_valid() {
            return Err(SceneError::BadMargin);
        }
        if let Some(i) = self.find_pair(a, b) {
            if let Some(p) = self.pairs.get_mut(i) {
                p.settings = *settings;
            }
            self.set_allowed(a, b, false);
            return Ok(i);
        }
        let needed = self.pairs.len() + 1;
        self.pairs.push(Pair::new(a, b, *settings)).map_err(|_| SceneError::PairCapacity { needed })?;
        self.set_allowed(a, b, false);
        self.order.clear();
        Ok(self.pairs.len() - 1)
    }

    /// Replaces the pair list by every pair `(a, b)`, `a < b`, that is
    /// neither adjacent (a body and its parent) nor allowed to collide,
    /// all with `settings`.
    ///
    /// # Errors
    /// [`SceneError::BadMargin`], or [`SceneError::PairCapacity`] with the
    /// number needed; the list is unchanged on an error.
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, PairSettings, PairQuery, Scene, ShapeDesc};
    /// use narrowphase::error::SceneError;
    /// let mut scene = Scene::<f32, 4, 2>::new();
    /// for _ in 0..4 { scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap(); }
    /// let err = scene.pairs_from_tree(&PairSettings::new(0.1, PairQuery::Clearance));
    /// assert_eq!(err, Err(SceneError::PairCapacity { needed: 6 }));
    /// assert!(scene.pairs().is_empty());
    /// ```
    pub fn pairs_from_tree(&mut self, settings: &PairSettings<R>) -> Result<(), SceneError> {
        if !settings.is_valid() {
            return Err(SceneError::BadMargin);
        }
        let n = self.bodies.len() as u16;
        let wanted = |s: &Self, a: u16, b: u16| !s.are_adjacent(a, b) && !s.is_allowed(a, b);
        let mut needed = 0;
        for a in 0..n {
            for b in a + 1..n {
                if wanted(self, a, b) {
                    needed += 1;
                }
            }
        }
        if needed > PAIRS {
            return Err(SceneError::PairCapacity { needed });
        }
        self.pairs.clear();
        self.order.clear();
        for a in 0..n {
            for b in a + 1..n {
                if wanted(self, a, b) {
                    // Cannot fail: counted above.
                    let _ = self.pairs.push(Pair::new(a, b, *settings));
                }
            }
        }
        Ok(())
    }

    /// Sets a body's world pose for the next tick (the pose of the shape's
    /// own frame). Validated: on an error the body keeps its pose.
    ///
    /// A move larger than [`JUMP_FRACTION`] of the body's bounding radius
    /// or a rotation beyond [`JUMP_ANGLE`] since the last pose drops the
    /// warm starts of the body's pairs at the next tick.
    ///
    /// # Errors
    /// [`SceneError::UnknownBody`]; [`SceneError::Pose`] with
    /// [`ShapeError::NonFinite`] or [`ShapeError::NotARotation`].
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// use narrowphase::error::SceneError;
    /// use nalgebra::{Matrix3, Rotation3, Translation3};
    /// let mut scene = Scene::<f64, 1, 1>::new();
    /// scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap();
    /// let sheared = Pose::from_parts(Translation3::new(0.0, 0.0, 0.0),
    ///     Rotation3::from_matrix_unchecked(Matrix3::new(1.0, 0.1, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)));
    /// assert_eq!(scene.set_pose(0, &sheared), Err(SceneError::Pose { body: 0, error: ShapeError::NotARotation }));
    /// assert!(scene.set_pose(0, &Pose::identity()).is_ok());
    /// ```
    pub fn set_pose(&mut self, body: u16, pose: &Pose<R>) -> Result<(), SceneError> {
        let b = self.bodies.get_mut(body as usize).ok_or(SceneError::UnknownBody(body))?;
        let old = *b.placed.pose();
        // Validated (finite, a rotation) by the placed shape itself.
        b.placed.set_pose(*pose).map_err(|error| SceneError::Pose { body, error })?;
        let new = b.placed.pose();
        if b.posed {
            let moved = norm(&(new.translation.vector - old.translation.vector));
            // cos θ = (tr(R_oldᵀ R_new) − 1) / 2, the trace being the sum of
            // the entrywise products of the two matrices.
            let trace = old.rotation.matrix().dot(new.rotation.matrix());
            let turned = !((trace - R::ONE) * R::HALF >= R::lit(JUMP_COS));
            b.jumped |= !(moved <= R::lit(JUMP_FRACTION) * b.radius) || turned;
        }
        b.world_center = new.transform_point(&b.local_center);
        b.posed = true;
        Ok(())
    }

    /// [`set_pose`](Self::set_pose) from a unit-quaternion isometry.
    ///
    /// # Errors
    /// As [`set_pose`](Self::set_pose): a quaternion built unchecked that is
    /// far from unit length gives [`ShapeError::NotARotation`].
    ///
    /// ```
    /// use narrowphase::scene::{BodyDesc, Scene, ShapeDesc};
    /// use narrowphase::error::SceneError;
    /// use narrowphase::prelude::ShapeError;
    /// use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};
    /// let mut scene = Scene::<f32, 1, 1>::new();
    /// scene.add_body(&BodyDesc::root(ShapeDesc::sphere(0.1))).unwrap();
    /// let ok = Isometry3::new(Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 0.0, 0.3));
    /// assert!(scene.set_isometry(0, &ok).is_ok());
    /// let q = UnitQuaternion::new_unchecked(Quaternion::new(2.0, 0.0, 0.0, 0.0));
    /// let bad = Isometry3::from_parts(Translation3::new(0.0, 0.0, 0.0), q);
    /// assert_eq!(scene.set_isometry(0, &bad), Err(SceneError::Pose { body: 0, error: ShapeError::NotARotation }));
    /// ```
    pub fn set_isometry(&mut self, body: u16, pose: &nalgebra::Isometry3<R>) -> Result<(), SceneError> {
        let q = pose.rotation.quaternion();
        if !(q.w.finite() && q.i.finite() && q.j.finite() && q.k.finite()) {
            return Err(SceneError::Pose { body, error: ShapeError::NonFinite });
        }
        let rotation = nalgebra::Rotation3::from_matrix_unchecked(pose.rotation.to_rotation_matrix().into_inner());
        self.set_pose(body, &Pose::from_parts(pose.translation, rotation))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jump_cosine_is_the_cosine_of_the_jump_angle() {
        assert!((super::JUMP_COS - libm::cos(super::JUMP_ANGLE)).abs() < 1e-15);
    }
}
