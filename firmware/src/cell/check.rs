//! Each pair's answer against the closed form of its signed distance,
//! computed in f64 from the description (`super::BODIES`) and the poses the
//! kernel saw, by `crate::truth` (no kernel query).
//!
//! The rules, with the slacks of [`Slack`]:
//! - `Clear { lower_bound }`: the exact distance is at least the certified
//!   bound (which is above the pair's threshold, so above its margin);
//! - `Near` and `WithinMargin`: the exact distance lies within the
//!   certified bounds; `WithinMargin` is not further than the margin;
//! - measured (`Near`, or `WithinMargin` outside clearance mode): the
//!   signed distance equals the exact one;
//! - `Undetermined`: fails.
// `!(a <= b)` on purpose: a NaN must fail a check.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix3, Vector3};
use narrowphase::prelude::Pose;
use narrowphase::scene::{Pair, PairOutcome, ShapeDesc};
use narrowphase::shape::PolytopeData;

use crate::truth::{self, Hull};

type V3 = Vector3<f64>;

/// A body as the closed forms see it, in the world frame, f64.
enum Solid<'a> {
    /// A capsule: its core segment and radius.
    Capsule {
        a: V3,
        b: V3,
        r: f64,
    },
    Ball {
        c: V3,
        r: f64,
    },
    Cuboid {
        rot: Matrix3<f64>,
        t: V3,
        h: V3,
    },
    Polytope {
        data: &'a PolytopeData<'a, f32>,
        rot: Matrix3<f64>,
        t: V3,
    },
}

impl<'a> Solid<'a> {
    /// The body described by `desc` at `pose`; `None` for a shape the
    /// closed forms do not cover (none in this cell).
    fn new(desc: &'a ShapeDesc<'a, f32>, pose: &Pose<f32>) -> Option<Self> {
        let (rot, t) = truth::pose64(pose);
        Some(match desc {
            ShapeDesc::Capsule { half_length, radius } => {
                let (a, b) = truth::capsule_segment(pose, *half_length as f64);
                Solid::Capsule { a, b, r: *radius as f64 }
            }
            ShapeDesc::Sphere { radius } => Solid::Ball { c: t, r: *radius as f64 },
            ShapeDesc::Cuboid { half_extents: h } => {
                Solid::Cuboid { rot, t, h: V3::new(h[0] as f64, h[1] as f64, h[2] as f64) }
            }
            ShapeDesc::Polytope(data) => Solid::Polytope { data, rot, t },
            _ => return None,
        })
    }

    /// A ball holding the body: (centre, radius).
    fn extent(&self) -> (V3, f64) {
        match self {
            Solid::Capsule { a, b, r } => ((a + b) * 0.5, (b - a).norm() * 0.5 + r),
            Solid::Ball { c, r } => (*c, *r),
            Solid::Cuboid { t, h, .. } => (*t, h.norm()),
            Solid::Polytope { data, t, .. } => {
                (*t, data.vertices.iter().fold(0.0, |m: f64, v| m.max(v.coords.cast::<f64>().norm())))
            }
        }
    }
}

/// `p` in the frame of a body at `rot`, `t`.
fn local(p: &V3, rot: &Matrix3<f64>, t: &V3) -> V3 {
    rot.transpose() * (p - t)
}

/// The exact signed distance of two bodies (negative: minus the depth).
fn signed_distance(x: &Solid<'_>, y: &Solid<'_>) -> Option<f64> {
    use Solid::*;
    Some(match (x, y) {
        (Capsule { a, b, r }, Capsule { a: c, b: d, r: s }) => truth::segment_segment(a, b, c, d) - r - s,
        (Capsule { a, b, r }, Ball { c, r: s }) | (Ball { c, r: s }, Capsule { a, b, r }) => {
            truth::point_segment(c, a, b) - r - s
        }
        (Ball { c, r }, Ball { c: d, r: s }) => (c - d).norm() - r - s,
        (Capsule { a, b, r }, Cuboid { rot, t, h }) | (Cuboid { rot, t, h }, Capsule { a, b, r }) => {
            truth::segment_box(&local(a, rot, t), &local(b, rot, t), h) - r
        }
        (Ball { c, r }, Cuboid { rot, t, h }) | (Cuboid { rot, t, h }, Ball { c, r }) => {
            truth::point_box(&local(c, rot, t), h) - r
        }
        (Polytope { data, rot, t }, Capsule { a, b, r }) | (Capsule { a, b, r }, Polytope { data, rot, t }) => {
            truth::segment_hull(a, b, &Hull::new(data, *rot, *t)) - r
        }
        (Polytope { data, rot, t }, Ball { c, r }) | (Ball { c, r }, Polytope { data, rot, t }) => {
            truth::point_hull(c, &Hull::new(data, *rot, *t)) - r
        }
        (Polytope { data, rot, t }, Cuboid { rot: rb, t: tb, h })
        | (Cuboid { rot: rb, t: tb, h }, Polytope { data, rot, t }) => {
            // The polytope placed in the box's frame.
            let hull = Hull::new(data, rb.transpose() * rot, rb.transpose() * (t - tb));
            truth::hull_box(&hull, h)
        }
        _ => return None,
    })
}

/// The slacks of one pair's checks, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slack {
    /// On a certified bound: the f32 rounding of the poses and of the
    /// support points, 32 ε(f32) times the largest world coordinate of the
    /// pair (at least 1 m): the kernel's arithmetic is f32, the closed
    /// forms' f64 on the same f32 inputs.
    pub certificate: f64,
    /// On a measured signed distance: twice the gap the default budget
    /// accepts (relative tolerance 1000 ε(f32) times the pair's size, the
    /// scale of its pair frame: centre distance plus both radii), plus the
    /// certificate slack.
    pub value: f64,
}

impl Slack {
    fn new(x: &Solid<'_>, y: &Solid<'_>) -> Self {
        let ((cx, rx), (cy, ry)) = (x.extent(), y.extent());
        let world = (cx.norm() + rx).max(cy.norm() + ry).max(1.0);
        let size = (cy - cx).norm() + rx + ry;
        let eps = f32::EPSILON as f64;
        let certificate = 32.0 * eps * world;
        Self { certificate, value: 2.0 * 1000.0 * eps * size + certificate }
    }
}

/// One pair's check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The exact signed distance (NaN where there is no closed form).
    pub exact: f64,
    /// The kernel's value the check compared: the measured signed
    /// distance, or the certified bound that failed.
    pub reported: f64,
    /// |measured − exact| for a measured pair, else 0.
    pub error: f64,
    /// The slacks used.
    pub slack: Slack,
    /// `None` when the answer agrees with the closed form, else what failed.
    pub failure: Option<&'static str>,
}

/// Checks `pair`'s answer. `descs` is the cell's description, `poses` the
/// poses the kernel placed the bodies at.
pub fn check_pair(pair: &Pair<f32>, descs: &[narrowphase::scene::BodyDesc<'_, f32>], poses: &[Pose<f32>]) -> Verdict {
    let body = |i: u16| {
        let (d, p) = (descs.get(i as usize)?, poses.get(i as usize)?);
        Solid::new(&d.shape, p)
    };
    let no_closed_form = Slack { certificate: 0.0, value: 0.0 };
    let (Some(x), Some(y)) = (body(pair.a), body(pair.b)) else {
        return Verdict {
            exact: f64::NAN,
            reported: f64::NAN,
            error: 0.0,
            slack: no_closed_form,
            failure: Some("no closed form"),
        };
    };
    let slack = Slack::new(&x, &y);
    let exact = signed_distance(&x, &y).unwrap_or(f64::NAN);
    let margin = pair.settings.margin as f64;
    let mut v = Verdict { exact, reported: f64::NAN, error: 0.0, slack, failure: None };
    let (s, fail) = (slack.certificate, &mut v.failure);
    let mut require = |ok: bool, what: &'static str| {
        if !ok && fail.is_none() {
            *fail = Some(what);
        }
    };
    match &pair.outcome {
        PairOutcome::Clear { lower_bound } => {
            v.reported = *lower_bound as f64;
            require(v.reported - s <= exact, "reported clear, but closer than its certified lower bound");
        }
        PairOutcome::Undetermined { .. } => require(false, "undetermined"),
        outcome => {
            let bounds = outcome.bounds();
            let (lo, hi) = (bounds.lower as f64, bounds.upper as f64);
            v.reported = lo;
            require(lo - s <= exact && exact <= hi + s, "exact distance outside the certified bounds");
            if let PairOutcome::WithinMargin { .. } = outcome {
                require(exact <= margin + slack.value, "reported within the margin, but farther");
            }
            if let Some(m) = outcome.measured() {
                v.reported = m.signed_distance as f64;
                v.error = libm::fabs(v.reported - exact);
                require(v.error <= slack.value, "measured signed distance differs from the exact one");
            }
        }
    }
    if exact.is_nan() {
        v.failure = Some("no closed form");
    }
    v
}
