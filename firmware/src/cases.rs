//! The kernel's core checks, run on the target by `ontarget_tests` and on the
//! host by this crate's unit tests: the same inputs (a fixed splitmix64
//! stream), the same closed forms (`crate::truth`, f64), the same tolerances.
//!
//! Each check reports the kernel's number (`value`, f32), the closed form
//! (`truth`) and whether it passed. The cases mirror the host tests under
//! `tests/`: closed-form sphere/box/capsule distances (gjk.rs), a warm-started
//! trajectory, EPA depth on boxes (epa.rs), MPR depth and boolean answers
//! (mpr.rs), polytope support by hill climbing against brute force and the
//! distance to a face (polytope.rs), and bad input (NaN, infinity, a broken
//! polytope) giving `Undetermined::NonFinite` or a typed `ShapeError`.

use nalgebra::{Point3, Rotation3, Vector3};
use narrowphase::minkowski::superquadric::ellipsoid_superquadric;
use narrowphase::minkowski::MinkowskiOutcome;
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use narrowphase::support::epa::Epa;

use crate::rng::Rng;
use crate::truth;
use crate::{poly200, pose32};

type V3 = Vector3<f64>;

/// One check: the kernel's answer against the closed form.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(target_os = "none", derive(defmt::Format))]
pub struct Check {
    /// Case family.
    pub name: &'static str,
    /// Index within the family.
    pub index: u16,
    /// The kernel's number (a distance or depth; 1/0 for a yes/no answer).
    pub value: f32,
    /// The closed form (or the expected yes/no as 1/0).
    pub truth: f64,
    /// Allowed `|value − truth|`.
    pub tol: f64,
    /// Passed (the value and, where there is one, the certificate).
    pub ok: bool,
}

/// Passed and failed checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Checks that passed.
    pub passed: u32,
    /// Checks that failed.
    pub failed: u32,
}

/// Relative tolerance of the default f32 budget (1000·ε).
const REL: f64 = 1000.0 * f32::EPSILON as f64;

/// Allowed error of a converged f32 distance or depth at problem scale
/// `scale` (the largest coordinate involved): twice the budget's gap, plus
/// the rounding of f32 inputs.
pub fn tol_f32(scale: f64) -> f64 {
    2.0 * REL * scale + 1e-6
}

/// Slack on a certificate (`lower <= truth <= upper`): f32 rounding of the
/// support points.
pub fn slack_f32(scale: f64) -> f64 {
    32.0 * f32::EPSILON as f64 * scale.max(1.0)
}

struct Out<'s> {
    sink: &'s mut dyn FnMut(&Check),
    tally: Tally,
}

impl Out<'_> {
    fn put(&mut self, name: &'static str, index: usize, value: f32, truth: f64, tol: f64, ok: bool) {
        let c = Check { name, index: index as u16, value, truth, tol, ok };
        if ok {
            self.tally.passed += 1;
        } else {
            self.tally.failed += 1;
        }
        (self.sink)(&c);
    }
    fn yes_no(&mut self, name: &'static str, index: usize, value: bool, truth: bool) {
        self.put(name, index, value as u8 as f32, truth as u8 as f64, 0.0, value == truth);
    }
    /// A GJK distance answer against the exact signed distance `truth`.
    fn gjk(&mut self, name: &'static str, index: usize, out: &GjkOutcome<f32>, truth: f64, scale: f64) {
        let (tol, slack) = (tol_f32(scale), slack_f32(scale));
        let (value, ok) = match out {
            GjkOutcome::Separated(s) => {
                let (lo, hi) = (s.bounds.lower as f64, s.bounds.upper as f64);
                let ok = s.bounds.lower > 0.0
                    && (s.distance as f64 - truth).abs() <= tol
                    && lo - slack <= truth
                    && truth <= hi + slack;
                (s.distance, ok)
            }
            // Contact: the exact distance must be within the tolerance.
            GjkOutcome::Penetrating(_) => (0.0, truth <= tol),
            GjkOutcome::Undetermined { .. } => (f32::NAN, false),
        };
        self.put(name, index, value, truth.max(0.0), tol, ok);
    }
    /// A contact answer (signed distance) against the exact signed distance.
    fn proximity(&mut self, name: &'static str, index: usize, out: &Proximity<f32>, truth: f64, scale: f64) {
        let (tol, slack) = (tol_f32(scale), slack_f32(scale));
        let (value, ok) = match out {
            Proximity::Separated(s) => {
                (s.distance, truth > -tol && (s.distance as f64 - truth).abs() <= tol && s.bounds.lower > 0.0)
            }
            Proximity::Penetrating(p) => {
                // Bounds are on the depth: lower <= -truth <= upper.
                let depth = -truth;
                let ok = (p.depth as f64 - depth).abs() <= tol
                    && p.bounds.lower as f64 - slack <= depth
                    && depth <= p.bounds.upper as f64 + slack;
                (-p.depth, ok)
            }
            Proximity::Undetermined { .. } => (f32::NAN, false),
        };
        self.put(name, index, value, truth, tol, ok);
    }
}

/// Runs every case, handing each check to `sink`.
pub fn run_all(sink: &mut dyn FnMut(&Check)) -> Tally {
    let mut out = Out { sink, tally: Tally::default() };
    gjk_closed_forms(&mut out);
    gjk_warm_trajectory(&mut out);
    epa_boxes(&mut out);
    mpr_cases(&mut out);
    polytope_cases(&mut out);
    sdf_cases(&mut out);
    minkowski_cases(&mut out);
    bad_input(&mut out);
    out.tally
}

fn at(c: V3) -> Pose<f32> {
    pose32(c, &Rotation3::identity())
}

fn gjk_closed_forms(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let mut rng = Rng::new(1);
    // Sphere–sphere.
    for i in 0..16 {
        let (ca, cb) = (rng.cube(2.0), rng.cube(2.0));
        let (ra, rb) = (rng.range(0.1, 0.8) as f32, rng.range(0.1, 0.8) as f32);
        let (pa, pb) = (at(ca), at(cb));
        let (Ok(sa), Ok(sb)) = (Sphere::new(ra), Sphere::new(rb)) else { return out.yes_no("shape", i, false, true) };
        let (a, b) = (Placed::new(sa, pa), Placed::new(sb, pb));
        let d = pa.translation.vector.cast::<f64>() - pb.translation.vector.cast::<f64>();
        let exact = libm::sqrt(d.dot(&d)) - ra as f64 - rb as f64;
        let o = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());
        out.gjk("gjk_sphere_sphere", i, &o, exact, 3.0);
        // The boolean test agrees away from touching.
        let hit = gjk::intersect(&a, &b, &budget, &mut GjkWarmStart::default());
        if exact.abs() > tol_f32(3.0) {
            out.yes_no("gjk_intersect_sphere_sphere", i, hit.is_penetrating() == Some(true), exact < 0.0);
        }
    }
    // Sphere–box, rotated boxes.
    for i in 0..24 {
        let h = V3::new(rng.range(0.2, 1.5), rng.range(0.2, 1.5), rng.range(0.2, 1.5));
        let pb = pose32(rng.cube(1.0), &rng.rotation());
        let (c, r) = (rng.cube(3.0), rng.range(0.05, 0.6) as f32);
        let ps = at(c);
        let (Ok(bx), Ok(sp)) = (Cuboid::new(h.cast::<f32>()), Sphere::new(r)) else {
            return out.yes_no("shape", i, false, true);
        };
        let h = h.cast::<f32>().cast::<f64>();
        let exact = truth::sphere_box(&ps.translation.vector.cast::<f64>(), r as f64, &pb, &h);
        let o = gjk::distance(&Placed::new(bx, pb), &Placed::new(sp, ps), &budget, &mut GjkWarmStart::default());
        out.gjk("gjk_sphere_box", i, &o, exact, 5.0);
    }
    // Axis-aligned boxes.
    for i in 0..16 {
        let (ha, hb) = (rng.cube(1.0).map(|x| 0.2 + x.abs()), rng.cube(1.0).map(|x| 0.2 + x.abs()));
        let (ca, cb) = (rng.cube(2.0), rng.cube(2.0));
        let (pa, pb) = (at(ca), at(cb));
        let (Ok(ba), Ok(bb)) = (Cuboid::new(ha.cast::<f32>()), Cuboid::new(hb.cast::<f32>())) else {
            return out.yes_no("shape", i, false, true);
        };
        let d = pb.translation.vector.cast::<f64>() - pa.translation.vector.cast::<f64>();
        let (ha, hb) = (ha.cast::<f32>().cast::<f64>(), hb.cast::<f32>().cast::<f64>());
        let depth = truth::aabb_depth(&d, &ha, &hb);
        let exact = if depth > 0.0 { -depth } else { truth::aabb_distance(&d, &ha, &hb) };
        let o = gjk::distance(&Placed::new(ba, pa), &Placed::new(bb, pb), &budget, &mut GjkWarmStart::default());
        out.gjk("gjk_box_box_aa", i, &o, exact, 4.0);
    }
    // Capsule–capsule, rotated: segment distance minus the radii.
    for i in 0..16 {
        let (la, lb) = (rng.range(0.1, 1.0) as f32, rng.range(0.1, 1.0) as f32);
        let (ra, rb) = (rng.range(0.05, 0.4) as f32, rng.range(0.05, 0.4) as f32);
        let pa = pose32(rng.cube(1.5), &rng.rotation());
        let pb = pose32(rng.cube(1.5), &rng.rotation());
        let (Ok(a), Ok(b)) = (Capsule::new(la, ra), Capsule::new(lb, rb)) else {
            return out.yes_no("shape", i, false, true);
        };
        let (a0, a1) = truth::capsule_segment(&pa, la as f64);
        let (b0, b1) = truth::capsule_segment(&pb, lb as f64);
        let exact = truth::segment_segment(&a0, &a1, &b0, &b1) - ra as f64 - rb as f64;
        let o = gjk::distance(&Placed::new(a, pa), &Placed::new(b, pb), &budget, &mut GjkWarmStart::default());
        out.gjk("gjk_capsule_capsule", i, &o, exact, 3.0);
    }
}

/// A box sweeping past a ball with one warm-started cache, as a control loop
/// runs it; every tick against the closed form.
fn gjk_warm_trajectory(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let half = V3::new(0.04, 0.06, 0.02);
    let (Ok(bx), Ok(ball)) = (Cuboid::new(half.cast::<f32>()), Sphere::new(0.05_f32)) else {
        return out.yes_no("shape", 0, false, true);
    };
    let ball_at = at(V3::new(0.3, 0.0, 0.24));
    let mut cache = GjkWarmStart::default();
    for k in 0..20 {
        let s = k as f64 / 19.0;
        let pose = pose32(
            V3::new(-0.2 + 1.0 * s, 0.0, 0.30),
            &Rotation3::from_axis_angle(&Vector3::z_axis(), 0.5 * libm::sin(3.0 * s)),
        );
        let exact =
            truth::sphere_box(&ball_at.translation.vector.cast::<f64>(), 0.05, &pose, &half.cast::<f32>().cast());
        let o = gjk::distance(&Placed::new(bx, pose), &Placed::new(ball, ball_at), &budget, &mut cache);
        out.gjk("gjk_warm_box_ball", k, &o, exact, 1.0);
    }
}

/// EPA on overlapping axis-aligned boxes: the depth is the smallest overlap.
fn epa_boxes(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let mut rng = Rng::new(2);
    let mut epa = Epa::<f32, 36, 68>::new();
    for i in 0..16 {
        let (ha, hb) = (rng.cube(0.5).map(|x| 0.3 + x.abs()), rng.cube(0.5).map(|x| 0.3 + x.abs()));
        // Centres overlapping on every axis by 10 % to 90 % of the smaller extent.
        let d = V3::from_fn(|k, _| {
            let s = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
            s * (ha[k] + hb[k] - rng.range(0.1, 0.9) * ha[k].min(hb[k]))
        });
        let (pa, pb) = (at(V3::zeros()), at(d));
        let (Ok(ba), Ok(bb)) = (Cuboid::new(ha.cast::<f32>()), Cuboid::new(hb.cast::<f32>())) else {
            return out.yes_no("shape", i, false, true);
        };
        let d = pb.translation.vector.cast::<f64>();
        let (ha, hb) = (ha.cast::<f32>().cast::<f64>(), hb.cast::<f32>().cast::<f64>());
        let exact = -truth::aabb_depth(&d, &ha, &hb);
        let (a, b) = (Placed::new(ba, pa), Placed::new(bb, pb));
        // The packaged query (GJK, then EPA with a DefaultEpa on the stack).
        let o = contact(&a, &b, &budget, &mut GjkWarmStart::default());
        out.proximity("epa_contact_box_box", i, &o, exact, 3.0);
        // GJK's terminal simplex into a caller-owned workspace.
        if let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
            let p = epa.penetration(&a, &b, &simplex, &budget);
            out.proximity("epa_workspace_box_box", i, &p, exact, 3.0);
        } else {
            out.yes_no("epa_workspace_box_box", i, false, true);
        }
    }
}

fn mpr_cases(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let mut rng = Rng::new(3);
    // Overlapping spheres: MPR's depth along the centre ray is exact.
    for i in 0..16 {
        let (ra, rb) = (rng.range(0.2, 1.0) as f32, rng.range(0.2, 1.0) as f32);
        let c = rng.unit() * rng.range(0.2, 0.95) * (ra + rb) as f64;
        let pa = at(rng.cube(1.0));
        let pb = at(pa.translation.vector.cast::<f64>() + c);
        let (Ok(sa), Ok(sb)) = (Sphere::new(ra), Sphere::new(rb)) else { return out.yes_no("shape", i, false, true) };
        let d = pb.translation.vector.cast::<f64>() - pa.translation.vector.cast::<f64>();
        let depth = ra as f64 + rb as f64 - libm::sqrt(d.dot(&d));
        let (tol, slack) = (tol_f32(3.0), slack_f32(3.0));
        match mpr::penetration(&Placed::new(sa, pa), &Placed::new(sb, pb), &budget) {
            MprOutcome::Penetrating(p) => {
                let ok = (p.depth as f64 - depth).abs() <= tol && depth <= p.bounds.upper as f64 + slack;
                out.put("mpr_depth_sphere_sphere", i, p.depth, depth, tol, ok)
            }
            _ => out.put("mpr_depth_sphere_sphere", i, f32::NAN, depth, tol, false),
        }
    }
    // Axis-aligned boxes: the boolean test against the closed form, and a
    // separating certificate never above the exact distance.
    for i in 0..16 {
        let (ha, hb) = (rng.cube(0.6).map(|x| 0.2 + x.abs()), rng.cube(0.6).map(|x| 0.2 + x.abs()));
        let (pa, pb) = (at(rng.cube(1.0)), at(rng.cube(1.0)));
        let (Ok(ba), Ok(bb)) = (Cuboid::new(ha.cast::<f32>()), Cuboid::new(hb.cast::<f32>())) else {
            return out.yes_no("shape", i, false, true);
        };
        let d = pb.translation.vector.cast::<f64>() - pa.translation.vector.cast::<f64>();
        let (ha, hb) = (ha.cast::<f32>().cast::<f64>(), hb.cast::<f32>().cast::<f64>());
        let depth = truth::aabb_depth(&d, &ha, &hb);
        let tol = tol_f32(3.0);
        if depth.abs() <= tol {
            continue;
        }
        match mpr::intersect(&Placed::new(ba, pa), &Placed::new(bb, pb), &budget) {
            MprOutcome::Separated { lower_bound, .. } => {
                let exact = truth::aabb_distance(&d, &ha, &hb);
                let ok = depth < 0.0 && lower_bound > 0.0 && lower_bound as f64 <= exact + slack_f32(3.0);
                out.put("mpr_intersect_box_box", i, 0.0, (depth > 0.0) as u8 as f64, 0.0, ok)
            }
            MprOutcome::Penetrating(_) => {
                out.put("mpr_intersect_box_box", i, 1.0, (depth > 0.0) as u8 as f64, 0.0, depth > 0.0)
            }
            MprOutcome::Undetermined { .. } => out.put("mpr_intersect_box_box", i, f32::NAN, 0.0, 0.0, false),
        }
    }
}

fn polytope_cases(out: &mut Out) {
    let Ok(poly) = poly200() else { return out.yes_no("poly200_validates", 0, false, true) };
    out.yes_no("poly200_validates", 0, true, true);
    let verts = poly.data().vertices;
    let mut rng = Rng::new(4);
    // Hill climbing from a random start reaches the brute-force maximum.
    let mut start = 0usize;
    for i in 0..32 {
        let dir = rng.unit();
        let best = verts.iter().map(|p| dir.dot(&p.coords.cast::<f64>())).fold(f64::NEG_INFINITY, f64::max);
        let dir32 = dir.cast::<f32>();
        let climb = poly.support_index_climb(&dir32, start);
        let got = verts.get(climb).map(|p| dir.dot(&p.coords.cast::<f64>())).unwrap_or(f64::NAN);
        let tol = 1e-6;
        out.put("poly_support_climb", i, got as f32, best, tol, (got - best).abs() <= tol);
        let scan = poly.support_index_scan(&dir32);
        out.yes_no("poly_support_scan_eq_climb", i, verts.get(scan) == verts.get(climb), true);
        start = (rng.next_u64() % verts.len() as u64) as usize;
    }
    // A ball above a face's centroid, at height t along the face normal: the
    // centroid is the closest point (the face plane supports the polytope),
    // so the distance is t − r.
    let data = poly.data();
    let faces = data.faces.len();
    let Ok(ball) = Sphere::new(0.01_f32) else { return };
    for i in 0..16 {
        let f = (rng.next_u64() % faces as u64) as usize;
        let face_loop = poly.face_loop(f);
        let Some(plane) = data.faces.get(f) else { continue };
        let n = plane.normal.cast::<f64>();
        let n = n / libm::sqrt(n.dot(&n));
        let mut centroid = V3::zeros();
        for &v in face_loop {
            centroid += verts.get(v as usize).map(|p| p.coords.cast::<f64>()).unwrap_or_default();
        }
        centroid /= face_loop.len().max(1) as f64;
        let t = rng.range(0.02, 0.2);
        let pb = at(centroid + n * t);
        let c = pb.translation.vector.cast::<f64>();
        // Exact for the rounded centre: its height over the face plane.
        let exact = n.dot(&(c - centroid)) - 0.01;
        let o = gjk::distance(
            &Placed::new(poly, Pose::identity()),
            &Placed::new(ball, pb),
            &Budget::default(),
            &mut GjkWarmStart::default(),
        );
        out.gjk("gjk_poly200_face", i, &o, exact, 0.5);
    }
}

/// The ellipsoid method (`narrowphase::sdf`) on exact SDFs: the distance of
/// a ball and a rotated box (`2φ*` when apart) and the collision flag of
/// axis-aligned boxes.
fn sdf_cases(out: &mut Out) {
    let mut rng = Rng::new(5);
    for i in 0..12 {
        let h = V3::new(rng.range(0.2, 1.5), rng.range(0.2, 1.5), rng.range(0.2, 1.5));
        let pb = pose32(rng.cube(1.0), &rng.rotation());
        let (c, r) = (rng.cube(3.0), rng.range(0.05, 0.6) as f32);
        let ps = at(c);
        let (Ok(bx), Ok(sp)) = (Cuboid::new(h.cast::<f32>()), Sphere::new(r)) else {
            return out.yes_no("shape", i, false, true);
        };
        let h = h.cast::<f32>().cast::<f64>();
        let exact = truth::sphere_box(&ps.translation.vector.cast::<f64>(), r as f64, &pb, &h);
        let o = EllipsoidMethod::<f32>::distance().solve(
            &Placed::new(bx, pb),
            &Placed::new(sp, ps),
            &mut EllipsoidWarmStart::default(),
        );
        let (tol, slack) = (tol_f32(5.0), slack_f32(5.0));
        match (&o, o.is_penetrating()) {
            (EllipsoidMethodOutcome::Separated(c), Some(false)) => {
                let (lo, hi) = (2.0 * c.bounds.lower as f64, 2.0 * c.bounds.upper as f64);
                let ok =
                    (c.signed_distance() as f64 - exact).abs() <= tol && lo - slack <= exact && exact <= hi + slack;
                out.put("sdf_distance_sphere_box", i, c.signed_distance(), exact, tol, ok);
            }
            (_, Some(hit)) => out.put("sdf_distance_sphere_box", i, 0.0, exact.max(0.0), tol, hit && exact <= tol),
            (_, None) => out.put("sdf_distance_sphere_box", i, f32::NAN, exact, tol, false),
        }
    }
    for i in 0..12 {
        let (ha, hb) = (rng.cube(0.6).map(|x| 0.2 + x.abs()), rng.cube(0.6).map(|x| 0.2 + x.abs()));
        let (pa, pb) = (at(rng.cube(1.0)), at(rng.cube(1.0)));
        let (Ok(ba), Ok(bb)) = (Cuboid::new(ha.cast::<f32>()), Cuboid::new(hb.cast::<f32>())) else {
            return out.yes_no("shape", i, false, true);
        };
        let d = pb.translation.vector.cast::<f64>() - pa.translation.vector.cast::<f64>();
        let (ha, hb) = (ha.cast::<f32>().cast::<f64>(), hb.cast::<f32>().cast::<f64>());
        let depth = truth::aabb_depth(&d, &ha, &hb);
        if depth.abs() <= tol_f32(3.0) {
            continue;
        }
        let o = EllipsoidMethod::<f32>::collision().solve(
            &Placed::new(ba, pa),
            &Placed::new(bb, pb),
            &mut EllipsoidWarmStart::default(),
        );
        out.yes_no("sdf_collision_box_box", i, o.is_penetrating() == Some(true), depth > 0.0);
    }
}

/// The closed-form Minkowski checker (`narrowphase::minkowski`): an
/// ellipsoid on an axis of an axis-aligned superquadric, both centrally
/// symmetric, touches it on that axis, so the margin (the scale of the
/// centre ray at contact) is `d / (a_k + e_k)`.
fn minkowski_cases(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let (Ok(sq), Ok(e)) = (
        Superquadric::new(Vector3::new(0.3_f32, 0.2, 0.15), 0.5, 0.8),
        Ellipsoid::new(Vector3::new(0.1_f32, 0.08, 0.05)),
    ) else {
        return out.yes_no("shape", 0, false, true);
    };
    let (a, ee) = ([0.3_f32, 0.2, 0.15], [0.1_f32, 0.08, 0.05]);
    let mut rng = Rng::new(6);
    for i in 0..12 {
        let k = i % 3;
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        let d = rng.range(0.5, 1.6) * (a[k] + ee[k]) as f64 * sign;
        let pe = at(V3::from_fn(|j, _| if j == k { d } else { 0.0 }));
        let d = pe.translation.vector[k] as f64;
        let exact = libm::fabs(d) / (a[k] as f64 + ee[k] as f64);
        let tol = tol_f32(2.0);
        match ellipsoid_superquadric(&sq, &Pose::identity(), &e, &pe, &budget, Stop::Converged) {
            o @ (MinkowskiOutcome::Separated(_) | MinkowskiOutcome::Penetrating(_)) => {
                let m = o.hit().map_or(f32::NAN, |h| h.margin);
                let flag_ok = libm::fabs(exact - 1.0) <= tol || o.is_penetrating() == Some(exact < 1.0);
                out.put("minkowski_sq_axis_margin", i, m, exact, tol, (m as f64 - exact).abs() <= tol && flag_ok);
            }
            MinkowskiOutcome::Undetermined { .. } => {
                out.put("minkowski_sq_axis_margin", i, f32::NAN, exact, tol, false)
            }
        }
    }
}

fn bad_input(out: &mut Out) {
    let budget = Budget::<f32>::default();
    let nonfinite = |r: Option<Undetermined>| r == Some(Undetermined::NonFinite);
    let Ok(s) = Sphere::new(1.0_f32) else { return out.yes_no("shape", 0, false, true) };
    let Ok(bx) = Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)) else { return out.yes_no("shape", 0, false, true) };
    for (i, bad) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY].into_iter().enumerate() {
        let a = Placed::new(s, Pose::identity());
        let b = Placed::new(bx, Pose::from_parts(nalgebra::Translation3::new(bad, 0.0, 3.0), Default::default()));
        let g = match gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Undetermined { reason, .. } => Some(reason),
            _ => None,
        };
        out.yes_no("bad_gjk_distance", i, nonfinite(g), true);
        let g = match gjk::intersect(&a, &b, &budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Undetermined { reason, .. } => Some(reason),
            _ => None,
        };
        out.yes_no("bad_gjk_intersect", i, nonfinite(g), true);
        let m = match mpr::penetration(&a, &b, &budget) {
            MprOutcome::Undetermined { reason, .. } => Some(reason),
            _ => None,
        };
        out.yes_no("bad_mpr", i, nonfinite(m), true);
        let c = match contact(&a, &b, &budget, &mut GjkWarmStart::default()) {
            Proximity::Undetermined { reason, .. } => Some(reason),
            _ => None,
        };
        out.yes_no("bad_contact", i, nonfinite(c), true);
        out.yes_no("bad_sphere", i, Sphere::new(bad) == Err(ShapeError::NonFinite), true);
        out.yes_no("bad_cuboid", i, Cuboid::new(Vector3::new(1.0, bad, 1.0)) == Err(ShapeError::NonFinite), true);
    }
    out.yes_no("bad_radius", 0, Sphere::new(-1.0_f32) == Err(ShapeError::NonPositiveSize), true);
    // A polytope with one vertex pulled to the centre is no longer convex
    // with that vertex a corner: a typed error, not a panic.
    if let Ok(poly) = poly200() {
        let data = *poly.data();
        let mut verts = [Point3::<f32>::origin(); 200];
        for (d, s) in verts.iter_mut().zip(data.vertices) {
            *d = *s;
        }
        verts[0] = Point3::origin();
        let broken = Polytope::new(PolytopeData { vertices: &verts[..data.vertices.len().min(200)], ..data });
        out.yes_no("bad_polytope", 0, matches!(broken, Err(ShapeError::Polytope(_))), true);
    }
}
