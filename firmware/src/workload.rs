//! The measured workloads: one query per call between `Probe::start` and
//! `Probe::stop`, over fixed corpora (splitmix64 streams), per query family.
//! `icount` counts the instructions between the two, `stack` the stack
//! high-water mark; the host unit tests run them with a no-op probe.
//!
//! Inputs are built before `start` and results consumed after `stop`, so a
//! measurement covers the call of the public query and nothing else (plus a
//! constant call overhead, measured by the `empty` family and subtracted).
//!
//! Families that other query families (`sdf`, `minkowski`) will add go at the
//! end of [`FAMILIES`] with their own corpus function.

use core::hint::black_box;

use nalgebra::{Rotation3, Unit, Vector3};
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use narrowphase::support::epa::DefaultEpa;

use crate::rng::Rng;
use crate::{pose32, poly200};

type V3 = Vector3<f64>;

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
    /// trajectory, one warm-started cache (hill climbing from the hints).
    GjkPoly200Warm,
    /// The same frames, a cold cache each.
    GjkPoly200Cold,
    /// `contact` (GJK, then EPA on a `DefaultEpa` on the stack), 30
    /// penetrating box–box poses.
    EpaContactBoxBox,
    /// `Epa::penetration` alone, caller-owned `DefaultEpa`, from GJK's
    /// terminal simplex, the same 30 poses.
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
}

/// Every family, in the order they run.
pub const FAMILIES: [Family; 12] = [
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
        }
    }

    /// Queries in the corpus.
    pub fn count(self) -> usize {
        match self {
            Family::Empty => 8,
            Family::GjkBoxBoxCold | Family::GjkIntersectBoxBox | Family::MprIntersectBoxBox => BOX_POSES,
            Family::GjkPoly200Warm | Family::GjkPoly200Cold => FRAMES,
            Family::EpaContactBoxBox | Family::EpaWorkspaceBoxBox | Family::MprPenetrationBoxBox => DEEP_POSES,
            Family::ContactCapsuleCapsule => 50,
            Family::SqrtReal | Family::SqrtLibm => 16,
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
}

impl Answers {
    fn gjk(&mut self, o: &GjkOutcome<f32>) {
        match o.is_intersecting() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
    fn prox(&mut self, o: &Proximity<f32>) {
        match o.is_colliding() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
    fn mpr(&mut self, o: &MprOutcome<f32>) {
        match o.is_intersecting() {
            Some(true) => self.contact += 1,
            Some(false) => self.separated += 1,
            None => self.undetermined += 1,
        }
    }
}

const BOX_POSES: usize = 50;
const DEEP_POSES: usize = 30;
const FRAMES: usize = 50;
const HALF_A: [f32; 3] = [0.10, 0.15, 0.05];
const HALF_B: [f32; 3] = [0.12, 0.08, 0.10];

fn boxes() -> Option<(Cuboid<f32>, Cuboid<f32>)> {
    Some((Cuboid::new(Vector3::from(HALF_A)).ok()?, Cuboid::new(Vector3::from(HALF_B)).ok()?))
}

/// Pose `i` of a box-box corpus: random rotations, B's centre in a random
/// direction at `lo..hi` from A's.
fn box_pose(seed: u64, i: usize, lo: f64, hi: f64) -> (Pose<f32>, Pose<f32>) {
    let mut rng = Rng::new(seed.wrapping_mul(1000).wrapping_add(i as u64));
    let ra = rng.rotation();
    let rb = rng.rotation();
    let d = rng.unit() * rng.range(lo, hi);
    (pose32(V3::zeros(), &ra), pose32(d, &rb))
}

/// Frame `k` of the polytope trajectory: A fixed, B approaching along x
/// while turning about a fixed axis (~1.4° per frame).
fn poly_frame(k: usize) -> (Pose<f32>, Pose<f32>) {
    let s = k as f64 / (FRAMES - 1) as f64;
    let axis = Unit::new_normalize(V3::new(0.3, 0.5, 0.8));
    let ra = Rotation3::from_axis_angle(&Vector3::y_axis(), 0.3);
    let rb = Rotation3::from_axis_angle(&axis, 1.2 * s);
    let c = V3::new(0.9 - 0.4 * s, 0.05 * libm::sin(6.28 * s), 0.02);
    (pose32(V3::zeros(), &ra), pose32(c, &rb))
}

fn capsule_pose(i: usize) -> (Pose<f32>, Pose<f32>) {
    let mut rng = Rng::new(77_000 + i as u64);
    (pose32(V3::zeros(), &rng.rotation()), pose32(rng.unit() * rng.range(0.05, 0.6), &rng.rotation()))
}

/// Runs every query of `family` once, bracketed by `probe`. `epa` is the
/// caller-owned workspace of [`Family::EpaWorkspaceBoxBox`].
pub fn run<P: Probe>(family: Family, probe: &mut P, epa: &mut DefaultEpa<f32>) -> Answers {
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
                let mut cache = GjkCache::default();
                match family {
                    Family::GjkBoxBoxCold => {
                        probe.start();
                        let o = gjk::distance(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.gjk(&black_box(o));
                    }
                    Family::GjkIntersectBoxBox => {
                        probe.start();
                        let o = gjk::intersect(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.gjk(&black_box(o));
                    }
                    _ => {
                        probe.start();
                        let o = mpr::intersect(&a, &b, &budget);
                        probe.stop();
                        ans.mpr(&black_box(o));
                    }
                }
            }
        }
        Family::GjkPoly200Warm | Family::GjkPoly200Cold => {
            let Ok(poly) = poly200() else {
                ans.undetermined += 1;
                return ans;
            };
            let mut warm = GjkCache::default();
            for k in 0..family.count() {
                let (pa, pb) = poly_frame(k);
                let (a, b) = (black_box(Placed::new(poly, pa)), black_box(Placed::new(poly, pb)));
                let mut cold = GjkCache::default();
                let cache = if family == Family::GjkPoly200Warm { &mut warm } else { &mut cold };
                probe.start();
                let o = gjk::distance(&a, &b, &budget, cache);
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
                        let mut cache = GjkCache::default();
                        probe.start();
                        let o = contact(&a, &b, &budget, &mut cache);
                        probe.stop();
                        ans.prox(&black_box(o));
                    }
                    Family::EpaWorkspaceBoxBox => {
                        let GjkOutcome::Intersecting(simplex) = gjk::distance(&a, &b, &budget, &mut GjkCache::default())
                        else {
                            ans.undetermined += 1;
                            continue;
                        };
                        let simplex = black_box(simplex);
                        probe.start();
                        let o = epa.penetration(&a, &b, &simplex, &budget);
                        probe.stop();
                        ans.prox(&black_box(o));
                    }
                    _ => {
                        probe.start();
                        let o = mpr::penetration(&a, &b, &budget);
                        probe.stop();
                        ans.mpr(&black_box(o));
                    }
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
                let mut cache = GjkCache::default();
                probe.start();
                let o = contact(&a, &b, &budget, &mut cache);
                probe.stop();
                ans.prox(&black_box(o));
            }
        }
        Family::SqrtReal | Family::SqrtLibm => {
            let mut rng = Rng::new(9);
            for _ in 0..family.count() {
                let x = black_box(rng.range(1e-3, 1e3) as f32);
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
