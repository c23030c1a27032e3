//! The measured workloads: one query per call between `Probe::start` and
//! `Probe::stop`, over fixed corpora (splitmix64 streams), per query family.
//! `icount` counts the instructions between the two, `stack` the stack
//! high-water mark; the host unit tests run them with a no-op probe.
//!
//! Inputs are built before `start` and results consumed after `stop`, so a
//! measurement covers the call of the public query and nothing else (plus a
//! constant call overhead, measured by the `empty` family and subtracted).
//!
//! A new query family gets a [`Family`] variant, a corpus and a
//! never-inlined wrapper here; `icount` and `stack` pick it up from
//! [`FAMILIES`], and the stored tables get its row with `--update`.

use core::hint::black_box;

use nalgebra::{Rotation3, Translation3, Unit, Vector3};
use narrowphase::minkowski::superquadric::ellipsoid_superquadric;
use narrowphase::minkowski::MinkowskiOutcome;
use narrowphase::prelude::*;
use narrowphase::query::Threshold;
use narrowphase::support::contact::contact;
use narrowphase::support::epa::DefaultEpa;

use crate::rng::Rng;

/// Brackets one query.
pub trait Probe {
    /// Right before the query.
    fn start(&mut self);
    /// Right after it.
    fn stop(&mut self);
}

/// A probe that does nothing (host tests).
pub struct NoProbe;

impl Probe for NoProbe {
    fn start(&mut self) {}
    fn stop(&mut self) {}
}

/// A query family and its corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Nothing between the markers but one `black_box`: the overhead.
    Empty,
    /// `gjk::distance`, box–box, cold cache, 50 random poses (some overlapping).
    GjkBoxBoxCold,
    /// `gjk::intersect` on the same poses.
    GjkIntersectBoxBox,
    /// `gjk::distance` between two 200-vertex polytopes along a 50-frame
    /// trajectory, one cache warm-started from the previous frame (hill
    /// climbing from the hints; the cache is primed by an unmeasured frame 0).
    GjkPoly200Warm,
    /// The same frames, a cold cache each.
    GjkPoly200Cold,
    /// `contact` (GJK, then EPA on a `DefaultEpa` on the stack), 30
    /// penetrating box–box poses.
    EpaContactBoxBox,
    /// `Epa::penetration` alone, caller-owned `DefaultEpa`, from GJK's
    /// terminal simplex (plain GJK on the boxes' support functions:
    /// `gjk::distance` answers boxes in closed form), the same 30 poses.
    EpaWorkspaceBoxBox,
    /// `mpr::penetration`, the same 30 poses.
    MprPenetrationBoxBox,
    /// `mpr::intersect`, the 50 box–box poses.
    MprIntersectBoxBox,
    /// `contact` on capsules (the margin path: GJK on the segments), 50 poses.
    ContactCapsuleCapsule,
    /// `Real::sqrt` for f32 (`vsqrt.f32` on hard-float Arm).
    SqrtReal,
    /// `libm::sqrtf`.
    SqrtLibm,
    /// The ellipsoid method (`narrowphase::sdf`), collision query
    /// (`EllipsoidMethod::collision`, stop at the sign), box–box, the 50
    /// poses of the GJK family, cold.
    EllipsoidCollisionBoxBox,
    /// The ellipsoid method, distance/penetration query
    /// (`EllipsoidMethod::distance`), the same poses, cold.
    EllipsoidDistanceBoxBox,
    /// The closed-form Minkowski checker (`narrowphase::minkowski`),
    /// ellipsoid–superquadric, `Stop::Decided`, 50 random poses.
    MinkowskiEllipsoidSuperquadric,
    /// `gjk::distance_below` (is the distance below 0.05?), box–box, the 50
    /// poses of the GJK family, cold: the threshold query beside the full
    /// distance query.
    ClearanceBoxBox,
    /// `contact`, box–box, the 50 poses of the GJK family (apart and
    /// overlapping), cold: the separating axes, GJK where they leave it open.
    ContactBoxBox,
    /// One control tick of a robot cell (`narrowphase::scene`): a 7-link
    /// capsule arm, a table and a person (torso capsule, head sphere),
    /// 10 bodies and 36 pairs, poses set and `Scene::tick` run, along a
    /// 50-tick motion of the arm towards the table and the person.
    SceneTickArm,
    /// Worst-case bound of `gjk::distance` box–box: the random poses of
    /// [`Family::GjkBoxBoxCold`] (the first [`SWEEP_RANDOM`]) and the
    /// near-touching and degenerate poses of [`adversarial_box_pose`], each
    /// run once per iteration cap `1..=SWEEP_CAPS` (see [`Family::sweep_caps`]).
    GjkBoxBoxSweep,
    /// The same for `gjk::intersect`.
    GjkIntersectBoxBoxSweep,
    /// The same for `gjk::distance_below` (threshold 0.05).
    ClearanceBoxBoxSweep,
    /// The same for `mpr::intersect` (its cap counts support queries).
    MprIntersectBoxBoxSweep,
    /// [`Family::GjkBoxBoxSweep`]'s poses, caps and tolerances with the
    /// boxes seen through their support functions alone ([`SupportOnly`]):
    /// GJK iterates on every pose, so that the sweep measures its iterations
    /// on all of them, not only on those the closed forms leave to it.
    /// `cargo xtask icount` takes the `step` of the sweep of the same name
    /// without `plain_` as the larger of the two.
    PlainGjkBoxBoxSweep,
    /// The same for `gjk::intersect`.
    PlainGjkIntersectBoxBoxSweep,
    /// The same for `gjk::distance_below`.
    PlainClearanceBoxBoxSweep,
    /// The same for `gjk::distance` between the 200-vertex polytopes, cold,
    /// every fifth frame of [`Family::GjkPoly200Cold`], caps
    /// `1..=POLY_SWEEP_CAPS`.
    GjkPoly200Sweep,
}

/// Every family, in the order they run.
pub const FAMILIES: [Family; 26] = [
    Family::Empty,
    Family::GjkBoxBoxCold,
    Family::GjkIntersectBoxBox,
    Family::GjkPoly200Warm,
    Family::GjkPoly200Cold,
    Family::EpaContactBoxBox,
    Family::EpaWorkspaceBoxBox,
    Family::MprPenetrationBoxBox,
    Family::MprIntersectBoxBox,
    Family::ContactCapsuleCapsule,
    Family::SqrtReal,
    Family::SqrtLibm,
    Family::EllipsoidCollisionBoxBox,
    Family::EllipsoidDistanceBoxBox,
    Family::MinkowskiEllipsoidSuperquadric,
    Family::ClearanceBoxBox,
    Family::ContactBoxBox,
    Family::SceneTickArm,
    Family::GjkBoxBoxSweep,
    Family::GjkIntersectBoxBoxSweep,
    Family::ClearanceBoxBoxSweep,
    Family::MprIntersectBoxBoxSweep,
    Family::GjkPoly200Sweep,
    Family::PlainGjkBoxBoxSweep,
    Family::PlainGjkIntersectBoxBoxSweep,
    Family::PlainClearanceBoxBoxSweep,
];

impl Family {
    /// Name in reports and in the stored tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::Empty => "empty",
            Family::GjkBoxBoxCold => "gjk_distance_box_box_cold",
            Family::GjkIntersectBoxBox => "gjk_intersect_box_box",
            Family::GjkPoly200Warm => "gjk_distance_poly200_warm",
            Family::GjkPoly200Cold => "gjk_distance_poly200_cold",
            Family::EpaContactBoxBox => "contact_epa_box_box",
            Family::EpaWorkspaceBoxBox => "epa_penetration_box_box",
            Family::MprPenetrationBoxBox => "mpr_penetration_box_box",
            Family::MprIntersectBoxBox => "mpr_intersect_box_box",
            Family::ContactCapsuleCapsule => "contact_capsule_capsule",
            Family::SqrtReal => "sqrt_f32_real",
            Family::SqrtLibm => "sqrt_f32_libm",
            Family::EllipsoidCollisionBoxBox => "ellipsoid_method_collision_box_box",
            Family::EllipsoidDistanceBoxBox => "ellipsoid_method_distance_box_box",
            Family::MinkowskiEllipsoidSuperquadric => "minkowski_ellipsoid_superquadric",
            Family::ClearanceBoxBox => "gjk_distance_below_box_box",
            Family::ContactBoxBox => "contact_box_box",
            Family::SceneTickArm => "scene_tick_arm_cell",
            Family::GjkBoxBoxSweep => "gjk_distance_box_box_sweep",
            Family::GjkIntersectBoxBoxSweep => "gjk_intersect_box_box_sweep",
            Family::ClearanceBoxBoxSweep => "gjk_distance_below_box_box_sweep",
            Family::MprIntersectBoxBoxSweep => "mpr_intersect_box_box_sweep",
            Family::GjkPoly200Sweep => "gjk_distance_poly200_sweep",
            Family::PlainGjkBoxBoxSweep => "plain_gjk_distance_box_box_sweep",
            Family::PlainGjkIntersectBoxBoxSweep => "plain_gjk_intersect_box_box_sweep",
            Family::PlainClearanceBoxBoxSweep => "plain_gjk_distance_below_box_box_sweep",
        }
    }

    /// For the iteration-cap sweeps, the caps each pose runs at (`1..=caps`,
    /// pose-major: the counts of one pose are consecutive). The cost of
    /// iteration `k` is the count at cap `k` less the count at cap `k − 1`
    /// (both include their exit); `cargo xtask icount` derives the
    /// worst-case bound `first + (cap − 1) · max step` from them.
    pub fn sweep_caps(self) -> Option<usize> {
        match self {
            Family::GjkBoxBoxSweep
            | Family::GjkIntersectBoxBoxSweep
            | Family::ClearanceBoxBoxSweep
            | Family::MprIntersectBoxBoxSweep
            | Family::PlainGjkBoxBoxSweep
            | Family::PlainGjkIntersectBoxBoxSweep
            | Family::PlainClearanceBoxBoxSweep => Some(SWEEP_CAPS),
            Family::GjkPoly200Sweep => Some(POLY_SWEEP_CAPS),
            _ => None,
        }
    }

    /// Queries in the corpus.
    pub fn count(self) -> usize {
        match self {
            Family::Empty => 8,
            Family::GjkBoxBoxCold
            | Family::GjkIntersectBoxBox
            | Family::MprIntersectBoxBox
            | Family::EllipsoidCollisionBoxBox
            | Family::EllipsoidDistanceBoxBox
            | Family::ClearanceBoxBox
            | Family::ContactBoxBox => BOX_POSES,
            Family::SceneTickArm => TICKS,
            Family::GjkPoly200Warm | Family::GjkPoly200Cold => FRAMES,
            Family::EpaContactBoxBox | Family::EpaWorkspaceBoxBox | Family::MprPenetrationBoxBox => DEEP_POSES,
            Family::ContactCapsuleCapsule | Family::MinkowskiEllipsoidSuperquadric => 50,
            Family::SqrtReal | Family::SqrtLibm => 16,
            Family::GjkBoxBoxSweep
            | Family::GjkIntersectBoxBoxSweep
            | Family::ClearanceBoxBoxSweep
            | Family::MprIntersectBoxBoxSweep
            | Family::PlainGjkBoxBoxSweep
            | Family::PlainGjkIntersectBoxBoxSweep
            | Family::PlainClearanceBoxBoxSweep => (SWEEP_RANDOM + ADVERSARIAL_POSES) * SWEEP_CAPS,
            Family::GjkPoly200Sweep => FRAMES.div_ceil(POLY_SWEEP_STRIDE) * POLY_SWEEP_CAPS,
        }
    }
}

/// How the answers came out (soundness: `undetermined` must stay 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answers {
    /// Separated answers.
    pub separated: u32,
    /// Contact / penetrating answers.
    pub contact: u32,
    /// Undetermined answers (a failure of the workload).
    pub undetermined: u32,
    /// Runs of a sweep stopped by their iteration cap (expected there).
    pub capped: u32,
}

impl Answers {
    fn gjk(&mut self, o: &GjkOutcome<f32>) {
        match o.is_penetrating() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
    fn prox(&mut self, o: &Proximity<f32>) {
        match o.is_penetrating() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
    fn sdf(&mut self, o: &EllipsoidMethodOutcome<f32, 3>) {
        self.flag(o.is_penetrating())
    }
    fn minkowski<V>(&mut self, o: &MinkowskiOutcome<f32, V>) {
        self.flag(o.is_penetrating())
    }
    fn flag(&mut self, f: Option<bool>) {
        match f {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
    fn threshold(&mut self, o: &Threshold<f32>) {
        self.flag(o.is_clear().map(|clear| !clear))
    }
    /// One answer per tick: undetermined if any pair is, contact if any
    /// pair is within its margin, separated otherwise.
    fn tick(&mut self, s: &TickSummary<f32>) {
        if s.undetermined > 0 {
            self.undetermined += 1;
        } else if s.within_margin > 0 {
            self.contact += 1;
        } else {
            self.separated += 1;
        }
    }
    /// A sweep's answer at `cap` of `caps`: a stop at the cap is expected
    /// below the largest cap; at the largest, and for any other
    /// undetermined answer, it is a failure (the sweep must reach every
    /// pose's last iteration).
    fn swept(&mut self, flag: Option<bool>, capped: bool, (cap, caps): (usize, usize)) {
        if capped && cap < caps {
            self.capped += 1;
        } else {
            self.flag(flag);
        }
    }
    fn mpr(&mut self, o: &MprOutcome<f32>) {
        match o.is_penetrating() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
}

const BOX_POSES: usize = 50;
const DEEP_POSES: usize = 30;
const FRAMES: usize = 50;
const TICKS: usize = 50;
/// Caps of the box sweeps (every pose's iterations end below it).
pub const SWEEP_CAPS: usize = 12;
/// Random box poses in the sweeps.
const SWEEP_RANDOM: usize = 20;
/// Near-touching and degenerate box poses in the sweeps.
const ADVERSARIAL_POSES: usize = 15;
/// Caps of the polytope sweep.
pub const POLY_SWEEP_CAPS: usize = 24;
/// Every how many frames of the polytope trajectory the sweep takes.
const POLY_SWEEP_STRIDE: usize = 5;
const HALF_A: [f32; 3] = [0.10, 0.15, 0.05];
const HALF_B: [f32; 3] = [0.12, 0.08, 0.10];

fn boxes() -> Option<(Cuboid<f32>, Cuboid<f32>)> {
    Some((Cuboid::new(Vector3::from(HALF_A)).ok()?, Cuboid::new(Vector3::from(HALF_B)).ok()?))
}

fn pose(t: Vector3<f32>, r: Rotation3<f32>) -> Pose<f32> {
    Pose::from_parts(Translation3::from(t), r)
}

/// Pose `i` of a box-box corpus: random rotations, B's centre in a random
/// direction at `lo..hi` from A's.
fn box_pose(seed: u64, i: usize, lo: f32, hi: f32) -> (Pose<f32>, Pose<f32>) {
    let mut rng = Rng::new(seed.wrapping_mul(1000).wrapping_add(i as u64));
    let ra = rng.rotation32();
    let rb = rng.rotation32();
    let d = rng.unit32() * rng.range32(lo, hi);
    (pose(Vector3::zeros(), ra), pose(d, rb))
}

/// Pose `j` of the sweeps' adversarial box poses: faces parallel and
/// touching, a hair apart or a hair inside; edges crossing at a touch;
/// a vertex on a face; the centres coincident; faces coplanar side by side
/// (flat simplices); a near-parallel tilt of 1e-4 rad; a sliver of an
/// overlap; two touches at tolerance 0, one the closed forms answer and
/// one they leave to GJK.
fn adversarial_box_pose(j: usize) -> (Pose<f32>, Pose<f32>) {
    let id = Rotation3::identity();
    let touch_x = HALF_A[0] + HALF_B[0];
    // A turned 45° about y (its top an edge along y), B 45° about x (its
    // bottom an edge along x): the two edges cross above A's centre.
    let (edge_a, edge_b) = (
        Rotation3::from_axis_angle(&Vector3::y_axis(), core::f32::consts::FRAC_PI_4),
        Rotation3::from_axis_angle(&Vector3::x_axis(), core::f32::consts::FRAC_PI_4),
    );
    let edges = core::f32::consts::FRAC_1_SQRT_2 * (HALF_A[0] + HALF_A[2] + HALF_B[1] + HALF_B[2]);
    // B's vertex (+hx, +hy, +hz) turned straight down, at its distance below B's centre.
    let corner = Vector3::from(HALF_B);
    let down = Rotation3::rotation_between(&corner, &-Vector3::z()).unwrap_or(id);
    let tilt = Rotation3::from_axis_angle(&Vector3::y_axis(), 1e-4);
    let (ra, t, rb) = match j {
        0 => (id, Vector3::new(touch_x, 0.0, 0.0), id),
        1 => (id, Vector3::new(touch_x + 1e-5, 0.0, 0.0), id),
        2 => (id, Vector3::new(touch_x - 1e-5, 0.0, 0.0), id),
        3 => (id, Vector3::new(touch_x, 0.03, 0.02), id),
        4 => (edge_a, Vector3::new(0.0, 0.0, edges), edge_b),
        5 => (edge_a, Vector3::new(0.0, 0.0, edges + 1e-5), edge_b),
        6 => (id, Vector3::new(0.0, 0.0, HALF_A[2] + corner.norm()), down),
        7 => (id, Vector3::zeros(), id),
        // Top faces coplanar, side by side, apart and touching.
        8 => (id, Vector3::new(touch_x + 0.01, 0.0, HALF_B[2] - HALF_A[2]), id),
        9 => (id, Vector3::new(0.0, HALF_A[1] + HALF_B[1], HALF_B[2] - HALF_A[2]), id),
        10 => (id, Vector3::new(touch_x + 1e-5, 0.0, 0.0), tilt),
        11 => (id, Vector3::new(touch_x - 1e-3, 0.0, 0.0), tilt),
        // A sliver of an overlap (one of 29 among 200 000 random poses)
        // where alternating projections find no point of both boxes: the
        // closed forms take it from an edge crossing the other box.
        12 => (
            Rotation3::from_matrix_unchecked(nalgebra::Matrix3::from_column_slice(&[
                0.514_637_9,
                0.782_245_2,
                -0.351_056_2,
                0.418_956_58,
                0.127_807_63,
                0.898_966_5,
                0.748_079_8,
                -0.609_719_46,
                -0.261_952_07,
            ])),
            Vector3::new(0.060_221_136, 0.063_936_8, -0.319_371_3),
            Rotation3::from_matrix_unchecked(nalgebra::Matrix3::from_column_slice(&[
                0.008_735_537_5,
                -0.413_844_94,
                -0.910_305_4,
                0.910_813_8,
                0.379_027_34,
                -0.163_573_77,
                0.412_724_82,
                -0.827_689_9,
                0.380_246_76,
            ])),
        ),
        // Faces touching, as pose 0, queried at tolerance 0
        // (`sweep_tolerance`): the closed forms answer from a point of
        // both boxes as computed.
        13 => (id, Vector3::new(touch_x, 0.0, 0.0), id),
        // A touch, both boxes turned at random (one of about half such
        // touches in `f32`, where rounding puts every candidate point just
        // outside one box), queried at tolerance 0:
        // the closed forms leave it to GJK, whose iterations the sweep
        // then counts.
        _ => (
            Rotation3::from_matrix_unchecked(nalgebra::Matrix3::from_column_slice(&[
                -0.314_153_82,
                0.050_430_533,
                0.948_031_7,
                0.784_104_76,
                -0.549_209_5,
                0.289_047_75,
                0.535_244_9,
                0.834_161_64,
                0.132_993_43,
            ])),
            Vector3::new(-0.090_420_485, 0.034_328_334, 0.206_436_49),
            Rotation3::from_matrix_unchecked(nalgebra::Matrix3::from_column_slice(&[
                0.762_353_4,
                -0.612_242_46,
                0.209_705_6,
                0.048_069_62,
                0.376_714_77,
                0.925_081_25,
                -0.645_373_17,
                -0.695_158_36,
                0.316_620_05,
            ])),
        ),
    };
    (pose(Vector3::zeros(), ra), pose(t, rb))
}

/// The tolerance of the box sweeps' pose `i`: 0 for the last two
/// adversarial poses, `default` for the others.
fn sweep_tolerance(i: usize, default: f32) -> f32 {
    if i + 2 >= SWEEP_RANDOM + ADVERSARIAL_POSES {
        0.0
    } else {
        default
    }
}

/// The threshold of the threshold sweep's pose `i`: 0 for the touches at
/// tolerance 0 (the contact question; at a positive threshold a touch is
/// certified within it), [`CLEARANCE`] for the others.
fn sweep_threshold(i: usize) -> f32 {
    if i + 2 >= SWEEP_RANDOM + ADVERSARIAL_POSES {
        0.0
    } else {
        CLEARANCE
    }
}

/// Pose `i` of the box sweeps: the random poses first, then the adversarial ones.
fn sweep_box_pose(i: usize) -> (Pose<f32>, Pose<f32>) {
    if i < SWEEP_RANDOM {
        box_pose(1, i, 0.05, 0.45)
    } else {
        adversarial_box_pose(i - SWEEP_RANDOM)
    }
}

/// Frame `k` (0..=FRAMES) of the polytope trajectory: A fixed, B
/// approaching along x while turning about a fixed axis (~1.4° per frame).
fn poly_frame(k: usize) -> (Pose<f32>, Pose<f32>) {
    let s = k as f32 / FRAMES as f32;
    let axis = Unit::new_normalize(Vector3::new(0.3, 0.5, 0.8));
    let ra = Rotation3::from_axis_angle(&Vector3::y_axis(), 0.3);
    let rb = Rotation3::from_axis_angle(&axis, 1.2 * s);
    // 6.28: just a wobble frequency (the stored counts were measured with it).
    #[allow(clippy::approx_constant)]
    let c = Vector3::new(0.9 - 0.4 * s, 0.05 * libm::sinf(6.28 * s), 0.02);
    (pose(Vector3::zeros(), ra), pose(c, rb))
}

fn capsule_pose(i: usize) -> (Pose<f32>, Pose<f32>) {
    let mut rng = Rng::new(77_000 + i as u64);
    let ra = rng.rotation32();
    let d = rng.unit32() * rng.range32(0.05, 0.6);
    (pose(Vector3::zeros(), ra), pose(d, rng.rotation32()))
}

// The queries behind calls that are never inlined: the measured region (and
// the stack frame) then holds exactly one call of the public API, as a
// controller's own function would make it; inlined, the query's locals
// (e.g. the `DefaultEpa` inside `contact`) would sit in the harness's frame,
// outside the stack measurement, and its arithmetic could move across the
// markers.

type Boxes = Placed<Cuboid<f32>, f32>;
type Polys<'s> = Placed<Polytope<'s, f32>, f32>;
type Capsules = Placed<Capsule<f32>, f32>;

#[inline(never)]
fn gjk_distance_box(a: &Boxes, b: &Boxes, budget: &Budget<f32>, cache: &mut GjkWarmStart<f32>) -> GjkOutcome<f32> {
    gjk::distance(a, b, budget, cache)
}

/// Boxes seen through their support functions alone.
type PlainBoxes<'s> = SupportOnly<'s, Boxes>;

#[inline(never)]
fn plain_gjk_distance_box(
    a: &PlainBoxes,
    b: &PlainBoxes,
    budget: &Budget<f32>,
    cache: &mut GjkWarmStart<f32>,
) -> GjkOutcome<f32> {
    gjk::distance(a, b, budget, cache)
}

#[inline(never)]
fn plain_gjk_intersect_box(
    a: &PlainBoxes,
    b: &PlainBoxes,
    budget: &Budget<f32>,
    cache: &mut GjkWarmStart<f32>,
) -> GjkOutcome<f32> {
    gjk::intersect(a, b, budget, cache)
}

#[inline(never)]
fn plain_clearance_box(
    a: &PlainBoxes,
    b: &PlainBoxes,
    threshold: f32,
    budget: &Budget<f32>,
    cache: &mut GjkWarmStart<f32>,
) -> Threshold<f32> {
    gjk::distance_below(a, b, threshold, budget, cache)
}

#[inline(never)]
fn gjk_intersect_box(a: &Boxes, b: &Boxes, budget: &Budget<f32>, cache: &mut GjkWarmStart<f32>) -> GjkOutcome<f32> {
    gjk::intersect(a, b, budget, cache)
}

#[inline(never)]
fn gjk_distance_poly(a: &Polys, b: &Polys, budget: &Budget<f32>, cache: &mut GjkWarmStart<f32>) -> GjkOutcome<f32> {
    gjk::distance(a, b, budget, cache)
}

#[inline(never)]
fn contact_box(a: &Boxes, b: &Boxes, budget: &Budget<f32>, cache: &mut GjkWarmStart<f32>) -> Proximity<f32> {
    contact(a, b, budget, cache)
}

#[inline(never)]
fn contact_capsule(a: &Capsules, b: &Capsules, budget: &Budget<f32>, cache: &mut GjkWarmStart<f32>) -> Proximity<f32> {
    contact(a, b, budget, cache)
}

#[inline(never)]
fn epa_box(
    epa: &mut DefaultEpa<f32>,
    a: &Boxes,
    b: &Boxes,
    simplex: &narrowphase::support::Simplex<f32>,
    budget: &Budget<f32>,
) -> Proximity<f32> {
    epa.penetration(a, b, simplex, budget)
}

#[inline(never)]
fn mpr_intersect_box(a: &Boxes, b: &Boxes, budget: &Budget<f32>) -> MprOutcome<f32> {
    mpr::intersect(a, b, budget)
}

#[inline(never)]
fn mpr_penetration_box(a: &Boxes, b: &Boxes, budget: &Budget<f32>) -> MprOutcome<f32> {
    mpr::penetration(a, b, budget)
}

#[inline(never)]
fn ellipsoid_box(
    method: &EllipsoidMethod<f32>,
    a: &Boxes,
    b: &Boxes,
    warm: &mut EllipsoidWarmStart<f32, 3>,
) -> EllipsoidMethodOutcome<f32, 3> {
    method.solve(a, b, warm)
}

#[inline(never)]
fn minkowski_sq(
    sq: &Superquadric<f32>,
    sq_pose: &Pose<f32>,
    e: &Ellipsoid<f32>,
    e_pose: &Pose<f32>,
    budget: &Budget<f32>,
) -> MinkowskiOutcome<f32, Vector3<f32>> {
    ellipsoid_superquadric(sq, sq_pose, e, e_pose, budget, Stop::Decided)
}

fn sq_pose(i: usize) -> (Pose<f32>, Pose<f32>) {
    let mut rng = Rng::new(88_000 + i as u64);
    let ra = rng.rotation32();
    let d = rng.unit32() * rng.range32(0.1, 0.5);
    (pose(Vector3::zeros(), ra), pose(d, rng.rotation32()))
}

#[inline(never)]
fn clearance_box(
    a: &Placed<Cuboid<f32>, f32>,
    b: &Placed<Cuboid<f32>, f32>,
    threshold: f32,
    budget: &Budget<f32>,
    cache: &mut GjkWarmStart<f32>,
) -> Threshold<f32> {
    gjk::distance_below(a, b, threshold, budget, cache)
}

/// The box threshold queries' threshold.
const CLEARANCE: f32 = 0.05;

/// The robot cell of [`Family::SceneTickArm`]: links 0–6 a chain of
/// capsules (each link adjacent to the next), 7 the table, 8 the person's
/// torso, 9 the head. The table and the person may touch; the arm keeps
/// 5 cm from the table (clearance only) and 10 cm from the person (full
/// contact: distance, witnesses, normal).
static ARM_CELL: [BodyDesc<'static, f32>; 10] = [
    BodyDesc::root(ShapeDesc::capsule(0.08, 0.06)),
    BodyDesc::child(ShapeDesc::capsule(0.15, 0.055), 0),
    BodyDesc::child(ShapeDesc::capsule(0.15, 0.05), 1),
    BodyDesc::child(ShapeDesc::capsule(0.12, 0.045), 2),
    BodyDesc::child(ShapeDesc::capsule(0.1, 0.04), 3),
    BodyDesc::child(ShapeDesc::capsule(0.06, 0.035), 4),
    BodyDesc::child(ShapeDesc::capsule(0.04, 0.03), 5),
    BodyDesc::root(ShapeDesc::cuboid([0.4, 0.6, 0.02])),
    BodyDesc::root(ShapeDesc::capsule(0.3, 0.17)),
    BodyDesc::child(ShapeDesc::sphere(0.11), 8),
];

fn arm_cell(scene: &mut Scene<'static, f32, 10, 40, 36, 68>) -> Result<(), narrowphase::error::SceneError> {
    scene.add_bodies(&ARM_CELL)?;
    scene.allow_collision(7, 8)?;
    scene.allow_collision(7, 9)?;
    scene.pairs_from_tree(&PairSettings::new(0.02, PairQuery::Clearance))?;
    for link in 0..7 {
        scene.enable_pair(link, 7, &PairSettings::new(0.05, PairQuery::Clearance))?;
        scene.enable_pair(link, 8, &PairSettings::new(0.1, PairQuery::Contact))?;
        scene.enable_pair(link, 9, &PairSettings::new(0.1, PairQuery::Contact))?;
    }
    Ok(())
}

/// Poses of the cell at tick `t`: the arm's joints (about y, and the base
/// about z) sweep it over the table and towards the person.
fn arm_cell_poses(t: usize) -> [Pose<f32>; 10] {
    let s = t as f32 / TICKS as f32;
    let half = [0.08_f32, 0.15, 0.15, 0.12, 0.1, 0.06, 0.04];
    let base = Rotation3::from_axis_angle(&Vector3::z_axis(), 0.9 * s);
    let mut joint = Vector3::new(0.0_f32, 0.0, 0.1);
    let mut pitch = 0.0_f32;
    let mut poses = [Pose::identity(); 10];
    for (i, h) in half.iter().enumerate() {
        pitch += if i == 0 { 0.0 } else { 0.35 + 0.25 * libm::sinf(3.0 * s + i as f32) };
        let r = base * Rotation3::from_axis_angle(&Vector3::y_axis(), pitch);
        let axis = r * Vector3::z();
        let centre = joint + axis * *h;
        joint += axis * (2.0 * h);
        if let Some(p) = poses.get_mut(i) {
            *p = pose(centre, r);
        }
    }
    let tail = [
        pose(Vector3::new(0.55, 0.0, -0.05), Rotation3::identity()),
        pose(Vector3::new(0.45, 0.6, 0.45), Rotation3::identity()),
        pose(Vector3::new(0.45, 0.6, 0.95), Rotation3::identity()),
    ];
    for (slot, p) in poses.iter_mut().skip(7).zip(tail) {
        *slot = p;
    }
    poses
}

/// One tick: every pose set (validated), then the scene's tick.
#[inline(never)]
fn tick_arm(
    scene: &mut Scene<'static, f32, 10, 40, 36, 68>,
    poses: &[Pose<f32>; 10],
    budget: &TickBudget<f32>,
) -> Option<TickSummary<f32>> {
    for (i, p) in poses.iter().enumerate() {
        scene.set_pose(i as u16, p).ok()?;
    }
    Some(scene.tick(budget))
}

/// Why a GJK answer is undetermined (`None` when it is not).
fn undetermined_gjk(o: &GjkOutcome<f32>) -> Option<Undetermined> {
    match o {
        GjkOutcome::Undetermined { reason, .. } => Some(*reason),
        _ => None,
    }
}

/// Runs every query of `family` once, bracketed by `probe`. `poly` is the
/// 200-vertex polytope ([`crate::poly200`], validated once by the caller),
/// `epa` the caller-owned workspace of [`Family::EpaWorkspaceBoxBox`].
pub fn run<P: Probe>(family: Family, probe: &mut P, poly: &Polytope<'_, f32>, epa: &mut DefaultEpa<f32>) -> Answers {
    let mut ans = Answers::default();
    let budget = Budget::<f32>::default();
    let Some((box_a, box_b)) = boxes() else {
        ans.undetermined += 1;
        return ans;
    };
    match family {
        Family::Empty => {
            for i in 0..family.count() {
                let x = black_box(i as f32);
                probe.start();
                black_box(x);
                probe.stop();
            }
        }
        Family::GjkBoxBoxCold | Family::GjkIntersectBoxBox | Family::MprIntersectBoxBox => {
            for i in 0..family.count() {
                let (pa, pb) = box_pose(1, i, 0.05, 0.45);
                let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                let mut cache = GjkWarmStart::default();
                match family {
                    Family::GjkBoxBoxCold => {
                        probe.start();
                        let o = gjk_distance_box(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.gjk(&black_box(o));
                    }
                    Family::GjkIntersectBoxBox => {
                        probe.start();
                        let o = gjk_intersect_box(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.gjk(&black_box(o));
                    }
                    _ => {
                        probe.start();
                        let o = mpr_intersect_box(&a, &b, &budget);
                        probe.stop();
                        ans.mpr(&black_box(o));
                    }
                }
            }
        }
        Family::GjkPoly200Warm | Family::GjkPoly200Cold => {
            let poly = *poly;
            // Frame 0 primes the warm cache unmeasured: every measured query
            // (frames 1..=count) starts from the previous frame's answer.
            let mut warm = GjkWarmStart::default();
            let (pa, pb) = poly_frame(0);
            ans.gjk(&gjk_distance_poly(&Placed::new(poly, pa), &Placed::new(poly, pb), &budget, &mut warm));
            ans.separated = 0;
            ans.contact = 0;
            for k in 1..=family.count() {
                let (pa, pb) = poly_frame(k);
                let (a, b) = (black_box(Placed::new(poly, pa)), black_box(Placed::new(poly, pb)));
                let mut cold = GjkWarmStart::default();
                let cache = if family == Family::GjkPoly200Warm { &mut warm } else { &mut cold };
                probe.start();
                let o = gjk_distance_poly(&a, &b, &budget, cache);
                probe.stop();
                ans.gjk(&black_box(o));
            }
        }
        Family::EpaContactBoxBox | Family::EpaWorkspaceBoxBox | Family::MprPenetrationBoxBox => {
            for i in 0..family.count() {
                let (pa, pb) = box_pose(2, i, 0.0, 0.12);
                let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                match family {
                    Family::EpaContactBoxBox => {
                        let mut cache = GjkWarmStart::default();
                        probe.start();
                        let o = contact_box(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.prox(&black_box(o));
                    }
                    Family::EpaWorkspaceBoxBox => {
                        // GJK's own terminal simplex (on boxes `gjk::distance`
                        // answers in closed form, with another tetrahedron).
                        let (plain_a, plain_b) = (SupportOnly(&a), SupportOnly(&b));
                        let GjkOutcome::Penetrating(simplex) =
                            gjk::distance(&plain_a, &plain_b, &budget, &mut GjkWarmStart::default())
                        else {
                            ans.undetermined += 1;
                            continue;
                        };
                        let simplex = black_box(simplex);
                        probe.start();
                        let o = epa_box(epa, &a, &b, &simplex, &budget);
                        probe.stop();
                        ans.prox(&black_box(o));
                    }
                    _ => {
                        probe.start();
                        let o = mpr_penetration_box(&a, &b, &budget);
                        probe.stop();
                        ans.mpr(&black_box(o));
                    }
                }
            }
        }
        Family::EllipsoidCollisionBoxBox | Family::EllipsoidDistanceBoxBox => {
            let method = if family == Family::EllipsoidCollisionBoxBox {
                EllipsoidMethod::<f32>::collision()
            } else {
                EllipsoidMethod::<f32>::distance()
            };
            for i in 0..family.count() {
                let (pa, pb) = box_pose(1, i, 0.05, 0.45);
                let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                let mut warm = EllipsoidWarmStart::default();
                probe.start();
                let o = ellipsoid_box(&method, &a, &b, &mut warm);
                probe.stop();
                ans.sdf(&black_box(o));
            }
        }
        Family::MinkowskiEllipsoidSuperquadric => {
            let (Ok(sq), Ok(e)) = (
                Superquadric::new(Vector3::new(0.15_f32, 0.1, 0.08), 0.6, 0.8),
                Ellipsoid::new(Vector3::new(0.1_f32, 0.06, 0.04)),
            ) else {
                ans.undetermined += 1;
                return ans;
            };
            for i in 0..family.count() {
                let (pa, pb) = sq_pose(i);
                let (pa, pb) = (black_box(pa), black_box(pb));
                probe.start();
                let o = minkowski_sq(&sq, &pa, &e, &pb, &budget);
                probe.stop();
                ans.minkowski(&black_box(o));
            }
        }
        Family::ContactBoxBox => {
            for i in 0..family.count() {
                let (pa, pb) = box_pose(1, i, 0.05, 0.45);
                let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                let mut cache = GjkWarmStart::default();
                probe.start();
                let o = contact_box(&a, &b, &budget, &mut cache);
                probe.stop();
                ans.prox(&black_box(o));
            }
        }
        Family::ClearanceBoxBox => {
            for i in 0..family.count() {
                let (pa, pb) = box_pose(1, i, 0.05, 0.45);
                let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                let mut cache = GjkWarmStart::default();
                probe.start();
                let o = clearance_box(&a, &b, CLEARANCE, &budget, &mut cache);
                probe.stop();
                ans.threshold(&black_box(o));
            }
        }
        Family::SceneTickArm => {
            let mut scene = Scene::<f32, 10, 40, 36, 68>::new();
            if arm_cell(&mut scene).is_err() {
                ans.undetermined += 1;
                return ans;
            }
            let tick_budget = TickBudget::new(400);
            for t in 0..family.count() {
                let poses = black_box(arm_cell_poses(t));
                probe.start();
                let s = tick_arm(&mut scene, &poses, &tick_budget);
                probe.stop();
                match s {
                    Some(s) => ans.tick(&black_box(s)),
                    None => ans.undetermined += 1,
                }
            }
        }
        Family::ContactCapsuleCapsule => {
            let (Ok(ca), Ok(cb)) = (Capsule::new(0.15_f32, 0.035), Capsule::new(0.1_f32, 0.05)) else {
                ans.undetermined += 1;
                return ans;
            };
            for i in 0..family.count() {
                let (pa, pb) = capsule_pose(i);
                let (a, b) = (black_box(Placed::new(ca, pa)), black_box(Placed::new(cb, pb)));
                let mut cache = GjkWarmStart::default();
                probe.start();
                let o = contact_capsule(&a, &b, &budget, &mut cache);
                probe.stop();
                ans.prox(&black_box(o));
            }
        }
        Family::GjkBoxBoxSweep
        | Family::GjkIntersectBoxBoxSweep
        | Family::ClearanceBoxBoxSweep
        | Family::MprIntersectBoxBoxSweep
        | Family::PlainGjkBoxBoxSweep
        | Family::PlainGjkIntersectBoxBoxSweep
        | Family::PlainClearanceBoxBoxSweep => {
            for i in 0..SWEEP_RANDOM + ADVERSARIAL_POSES {
                let (pa, pb) = sweep_box_pose(i);
                for cap in 1..=SWEEP_CAPS {
                    let (a, b) = (black_box(Placed::new(box_a, pa)), black_box(Placed::new(box_b, pb)));
                    let budget = Budget::new(cap as u32, sweep_tolerance(i, budget.tolerance));
                    let mut cache = GjkWarmStart::default();
                    let (plain_a, plain_b) = (SupportOnly(&a), SupportOnly(&b));
                    let gjk_answer = |o: GjkOutcome<f32>| (o.is_penetrating(), undetermined_gjk(&o));
                    let threshold_answer = |o: Threshold<f32>| match o {
                        Threshold::Undetermined { reason, .. } => (None, Some(reason)),
                        o => (o.is_clear().map(|clear| !clear), None),
                    };
                    let (flag, reason) = match family {
                        Family::PlainGjkBoxBoxSweep => {
                            probe.start();
                            let o = plain_gjk_distance_box(&plain_a, &plain_b, &budget, &mut cache);
                            probe.stop();
                            gjk_answer(black_box(o))
                        }
                        Family::PlainGjkIntersectBoxBoxSweep => {
                            probe.start();
                            let o = plain_gjk_intersect_box(&plain_a, &plain_b, &budget, &mut cache);
                            probe.stop();
                            gjk_answer(black_box(o))
                        }
                        Family::PlainClearanceBoxBoxSweep => {
                            probe.start();
                            let o = plain_clearance_box(&plain_a, &plain_b, sweep_threshold(i), &budget, &mut cache);
                            probe.stop();
                            threshold_answer(black_box(o))
                        }
                        Family::GjkBoxBoxSweep => {
                            probe.start();
                            let o = gjk_distance_box(&a, &b, &budget, &mut cache);
                            probe.stop();
                            gjk_answer(black_box(o))
                        }
                        Family::GjkIntersectBoxBoxSweep => {
                            probe.start();
                            let o = gjk_intersect_box(&a, &b, &budget, &mut cache);
                            probe.stop();
                            gjk_answer(black_box(o))
                        }
                        Family::ClearanceBoxBoxSweep => {
                            probe.start();
                            let o = clearance_box(&a, &b, sweep_threshold(i), &budget, &mut cache);
                            probe.stop();
                            threshold_answer(black_box(o))
                        }
                        _ => {
                            probe.start();
                            let o = mpr_intersect_box(&a, &b, &budget);
                            probe.stop();
                            match black_box(o) {
                                MprOutcome::Undetermined { reason, .. } => (None, Some(reason)),
                                o => (o.is_penetrating(), None),
                            }
                        }
                    };
                    ans.swept(flag, reason == Some(Undetermined::IterationCap), (cap, SWEEP_CAPS));
                }
            }
        }
        Family::GjkPoly200Sweep => {
            let poly = *poly;
            for k in (1..=FRAMES).step_by(POLY_SWEEP_STRIDE) {
                let (pa, pb) = poly_frame(k);
                for cap in 1..=POLY_SWEEP_CAPS {
                    let (a, b) = (black_box(Placed::new(poly, pa)), black_box(Placed::new(poly, pb)));
                    let budget = Budget::new(cap as u32, budget.tolerance);
                    let mut cache = GjkWarmStart::default();
                    probe.start();
                    let o = gjk_distance_poly(&a, &b, &budget, &mut cache);
                    probe.stop();
                    let o = black_box(o);
                    let capped = undetermined_gjk(&o) == Some(Undetermined::IterationCap);
                    ans.swept(o.is_penetrating(), capped, (cap, POLY_SWEEP_CAPS));
                }
            }
        }
        Family::SqrtReal | Family::SqrtLibm => {
            let mut rng = Rng::new(9);
            for _ in 0..family.count() {
                let x = black_box(rng.range32(1e-3, 1e3));
                let y = if family == Family::SqrtReal {
                    probe.start();
                    let y = <f32 as Real>::sqrt(x);
                    black_box(y);
                    probe.stop();
                    y
                } else {
                    probe.start();
                    let y = libm::sqrtf(x);
                    black_box(y);
                    probe.stop();
                    y
                };
                // Both are correctly rounded: the same bits as f64's, rounded.
                if y != libm::sqrt(x as f64) as f32 {
                    ans.undetermined += 1;
                } else {
                    ans.separated += 1;
                }
            }
        }
    }
    ans
}

/// A body seen through its support function alone (no core primitive):
/// GJK iterates on it where a pair of boxes would take the closed form.
struct SupportOnly<'s, S: SupportMap<f32>>(&'s S);

impl<S: SupportMap<f32>> SupportMap<f32> for SupportOnly<'_, S> {
    fn support(&self, dir: &Vector3<f32>) -> nalgebra::Point3<f32> {
        self.0.support(dir)
    }
    fn center(&self) -> nalgebra::Point3<f32> {
        self.0.center()
    }
}
