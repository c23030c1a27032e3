//! A robot control tick on the emulated Cortex-M4F (QEMU mps2-an386), the
//! firmware twin of `examples/host_demo.rs`: 50 ticks of seven pairs, each
//! query checked against a closed form computed in f64 on the target.
//!
//! - gripper box / ball: `gjk::distance` warm-started from the pair's own
//!   `GjkWarmStart` (and a cold query beside it), vs the exact box–sphere distance;
//! - tool tip / link capsule: `contact` (margin path), vs the exact
//!   point–segment distance minus the radii;
//! - pusher box / table box (pressing in, axis-aligned): `contact` = GJK then
//!   EPA, vs the exact depth (smallest overlap); `mpr::penetration`'s depth,
//!   an upper bound of the minimal depth; `gjk::intersect`;
//! - two balls: `mpr::penetration`, exact for spheres; `gjk::intersect`;
//! - a 200-vertex polytope (hill climbing, warm hints) turning under a ball
//!   that hovers over one of its faces: `gjk::distance` vs the height over the
//!   face;
//! - gripper box / ball again through their SDFs: the ellipsoid method
//!   (`narrowphase::sdf`, `EllipsoidMethod::distance`) warm-started with the
//!   declared motion, vs the exact distance (and the collision flag);
//! - a superquadric fixture / an ellipsoid sliding along its x axis: the
//!   closed-form Minkowski checker (`narrowphase::minkowski`, `Stop::Converged`),
//!   whose margin (the scale of the centre ray at contact) is exactly
//!   `x / (a₁ + e₁)` there by symmetry.
//!
//! Results are printed with defmt (the kernel's types implement
//! `defmt::Format`); the exit status is 0 only if every check passed and no
//! query was undetermined. Run: `cargo xtask demo` (or, in `firmware/`,
//! `cargo run --release --bin demo`).
#![no_std]
#![no_main]
// `!(a <= b)` on purpose: a NaN must fail a check.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

#[path = "../fw.rs"]
mod fw;

use cortex_m_rt::entry;
use nalgebra::{Rotation3, Vector3};
use narrowphase::minkowski::superquadric::ellipsoid_superquadric;
use narrowphase::minkowski::MinkowskiOutcome;
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use narrowphase_firmware::cases::{slack_f32, tol_f32};
use narrowphase_firmware::{poly200, pose32, truth};

type V3 = Vector3<f64>;

const TICKS: usize = 50;
const REPORT: [usize; 3] = [0, 25, 49];

/// Running tally of one pair.
struct Pair {
    name: &'static str,
    checks: u32,
    failures: u32,
    max_err: f64,
    min_distance: f32,
    warm_iterations: u32,
    cold_iterations: u32,
}

impl Pair {
    const fn new(name: &'static str) -> Self {
        Self {
            name,
            checks: 0,
            failures: 0,
            max_err: 0.0,
            min_distance: f32::INFINITY,
            warm_iterations: 0,
            cold_iterations: 0,
        }
    }
    fn check(&mut self, k: usize, what: &'static str, value: f32, exact: f64, tol: f64) {
        self.checks += 1;
        let err = (value as f64 - exact).abs();
        if err > self.max_err || err.is_nan() {
            self.max_err = err;
        }
        if !(err <= tol) {
            self.failures += 1;
            defmt::error!(
                "tick {=usize} {=str} {=str}: {=f32} vs exact {=f64} (tol {=f64})",
                k,
                self.name,
                what,
                value,
                exact,
                tol
            );
        }
    }
    fn fail(&mut self, k: usize, what: &'static str) {
        self.checks += 1;
        self.failures += 1;
        defmt::error!("tick {=usize} {=str}: {=str}", k, self.name, what);
    }
}

/// The signed distance of a GJK answer (0 for contact), if determined.
fn gjk_value(o: &GjkOutcome<f32>) -> Option<f32> {
    match o {
        GjkOutcome::Separated(s) => Some(s.distance),
        GjkOutcome::Penetrating(_) => Some(0.0),
        GjkOutcome::Undetermined { .. } => None,
    }
}

#[entry]
fn main() -> ! {
    let ok = run();
    fw::exit(ok)
}

fn run() -> bool {
    let budget = Budget::<f32>::default();
    let (Ok(sq), Ok(ell)) = (
        Superquadric::new(Vector3::new(0.12_f32, 0.08, 0.06), 0.5, 0.7),
        Ellipsoid::new(Vector3::new(0.05_f32, 0.04, 0.03)),
    ) else {
        defmt::error!("a shape failed to build");
        return false;
    };
    let (Ok(gripper), Ok(ball), Ok(tip), Ok(link), Ok(pusher), Ok(table), Ok(small), Ok(poly)) = (
        Cuboid::new(Vector3::new(0.04_f32, 0.06, 0.02)),
        Sphere::new(0.05_f32),
        Sphere::new(0.015_f32),
        Capsule::new(0.15_f32, 0.035),
        Cuboid::new(Vector3::new(0.05_f32, 0.05, 0.05)),
        Cuboid::new(Vector3::new(0.4_f32, 0.3, 0.02)),
        Sphere::new(0.03_f32),
        poly200(),
    ) else {
        defmt::error!("a shape failed to build");
        return false;
    };
    let half = |b: &Cuboid<f32>| b.half_extents().cast::<f64>();
    let ball_at = pose32(V3::new(0.3, 0.0, 0.24), &Rotation3::identity());
    let table_at = pose32(V3::new(0.0, 0.0, -0.02), &Rotation3::identity());
    let face = 7usize;
    let face_loop = poly.face_loop(face);
    let Some(plane) = poly.data().faces.get(face) else { return false };
    let n_local = plane.normal.cast::<f64>();
    let mut centroid = V3::zeros();
    for &v in face_loop {
        centroid += poly.data().vertices.get(v as usize).map(|p| p.coords.cast::<f64>()).unwrap_or_default();
    }
    centroid /= face_loop.len().max(1) as f64;

    let mut pairs = [
        Pair::new("gripper/ball"),
        Pair::new("tip/link"),
        Pair::new("pusher/table"),
        Pair::new("ball/ball"),
        Pair::new("poly200/ball"),
        Pair::new("gripper/ball (SDF)"),
        Pair::new("superquadric/ellipsoid"),
    ];
    let mut caches = [GjkWarmStart::<f32>::default(); 5];
    let mut sdf_warm = EllipsoidWarmStart::<f32, 3>::default();
    let sdf_method = EllipsoidMethod::<f32>::distance();
    let mut last_gripper: Option<(V3, f64)> = None;
    defmt::println!("narrowphase firmware demo: {=usize} pairs x {=usize} ticks, f32, {}", pairs.len(), TICKS, budget);

    for k in 0..TICKS {
        let s = k as f64 / (TICKS - 1) as f64;
        let report = REPORT.contains(&k);
        if report {
            defmt::println!("-- tick {=usize}", k);
        }
        // Gripper sweeping past the ball, yawing.
        {
            let p = &mut pairs[0];
            let g = pose32(
                V3::new(-0.2 + 1.0 * s, 0.0, 0.30),
                &Rotation3::from_axis_angle(&Vector3::z_axis(), 0.5 * libm::sin(3.0 * s)),
            );
            let (a, b) = (Placed::new(gripper, g), Placed::new(ball, ball_at));
            let exact = truth::sphere_box(&ball_at.translation.vector.cast(), 0.05, &g, &half(&gripper));
            let warm = gjk::distance(&a, &b, &budget, &mut caches[0]);
            let mut cold_cache = GjkWarmStart::default();
            let cold = gjk::distance(&a, &b, &budget, &mut cold_cache);
            p.warm_iterations += caches[0].iterations;
            p.cold_iterations += cold_cache.iterations;
            for (what, o) in [("warm GJK", &warm), ("cold GJK", &cold)] {
                match gjk_value(o) {
                    Some(d) => p.check(k, what, d, exact.max(0.0), tol_f32(1.0)),
                    None => p.fail(k, "GJK undetermined"),
                }
            }
            if let GjkOutcome::Separated(sep) = &warm {
                p.min_distance = p.min_distance.min(sep.distance);
                if !(sep.bounds.lower as f64 - slack_f32(1.0) <= exact
                    && exact <= sep.bounds.upper as f64 + slack_f32(1.0))
                {
                    p.fail(k, "exact distance outside GJK's certified bounds");
                }
            }
            if report {
                defmt::println!("gripper/ball warm GJK ({=u32} iterations): {}", caches[0].iterations, warm);
            }
        }
        // Tool tip below the gripper vs the link of a second arm.
        {
            let p = &mut pairs[1];
            let tip_at = pose32(V3::new(0.1 + 0.3 * s, -0.1, 0.2), &Rotation3::identity());
            let link_at = pose32(V3::new(0.35, -0.1, 0.16), &Rotation3::from_axis_angle(&Vector3::x_axis(), 1.2 * s));
            let (a0, a1) = truth::capsule_segment(&link_at, 0.15);
            let c = tip_at.translation.vector.cast::<f64>();
            let exact = truth::point_segment(&c, &a0, &a1) - 0.015 - 0.035;
            let o = contact(&Placed::new(tip, tip_at), &Placed::new(link, link_at), &budget, &mut caches[1]);
            match o.signed_distance() {
                Some(d) => {
                    p.check(k, "contact", d, exact, tol_f32(1.0));
                    p.min_distance = p.min_distance.min(d);
                }
                None => p.fail(k, "contact undetermined"),
            }
            if report {
                defmt::println!("tip/link contact: {}", o);
            }
        }
        // Pusher box pressing into the table: EPA depth.
        {
            let p = &mut pairs[2];
            let push = pose32(V3::new(0.1 * s, 0.05, 0.045 - 0.03 * s), &Rotation3::identity());
            let (a, b) = (Placed::new(pusher, push), Placed::new(table, table_at));
            let d = table_at.translation.vector.cast::<f64>() - push.translation.vector.cast::<f64>();
            let depth = truth::aabb_depth(&d, &half(&pusher), &half(&table));
            let signed = if depth > 0.0 { -depth } else { truth::aabb_distance(&d, &half(&pusher), &half(&table)) };
            let o = contact(&a, &b, &budget, &mut caches[2]);
            match o.signed_distance() {
                Some(v) => {
                    p.check(k, "contact (EPA)", v, signed, tol_f32(1.0));
                    p.min_distance = p.min_distance.min(v);
                }
                None => p.fail(k, "contact undetermined"),
            }
            let hit = gjk::intersect(&a, &b, &budget, &mut GjkWarmStart::default());
            if signed.abs() > tol_f32(1.0) && hit.is_penetrating() != Some(signed < 0.0) {
                p.fail(k, "gjk::intersect disagrees with the closed form");
            }
            match mpr::penetration(&a, &b, &budget) {
                // MPR's depth is along its portal normal: never below the
                // minimal depth (up to the tolerance).
                MprOutcome::Penetrating(m) if depth > 0.0 => {
                    if !(depth <= m.bounds.upper as f64 + tol_f32(1.0)) {
                        p.fail(k, "MPR's depth bound is below the exact depth");
                    }
                }
                MprOutcome::Separated { .. } if depth <= 0.0 => {}
                MprOutcome::Undetermined { .. } => p.fail(k, "MPR undetermined"),
                _ if depth.abs() <= tol_f32(1.0) => {}
                _ => p.fail(k, "MPR disagrees with the closed form"),
            }
            if report {
                defmt::println!("pusher/table contact (GJK + EPA): {}", o);
            }
        }
        // Two balls, the second moving through the first: MPR is exact.
        {
            let p = &mut pairs[3];
            let (ca, cb) = (V3::new(0.0, 0.3, 0.1), V3::new(0.2 - 0.3 * s, 0.32, 0.1));
            let (pa, pb) = (pose32(ca, &Rotation3::identity()), pose32(cb, &Rotation3::identity()));
            let (a, b) = (Placed::new(ball, pa), Placed::new(small, pb));
            let dv = pb.translation.vector.cast::<f64>() - pa.translation.vector.cast::<f64>();
            let exact = libm::sqrt(dv.dot(&dv)) - 0.05 - 0.03;
            let o = mpr::penetration(&a, &b, &budget);
            match &o {
                MprOutcome::Penetrating(m) => p.check(k, "MPR depth", -m.depth, exact, tol_f32(1.0)),
                MprOutcome::Separated { lower_bound, .. } => {
                    if !(exact > 0.0 && (*lower_bound as f64) <= exact + slack_f32(1.0)) {
                        p.fail(k, "MPR separation certificate vs the closed form");
                    }
                    p.checks += 1;
                }
                MprOutcome::Undetermined { .. } => p.fail(k, "MPR undetermined"),
            }
            let hit = gjk::intersect(&a, &b, &budget, &mut caches[3]);
            if exact.abs() > tol_f32(1.0) && hit.is_penetrating() != Some(exact < 0.0) {
                p.fail(k, "gjk::intersect disagrees with the closed form");
            }
            p.min_distance = p.min_distance.min(exact as f32);
            if report {
                defmt::println!("ball/ball MPR: {}", o);
            }
        }
        // A 200-vertex polytope turning under a ball over one of its faces.
        {
            let p = &mut pairs[4];
            let rot = Rotation3::from_axis_angle(&Vector3::y_axis(), 0.8 * s);
            let origin = V3::new(-0.3, 0.2, 0.5);
            let pp = pose32(origin, &rot);
            // The face as the polytope's f32 pose places it.
            let (r64, t64) = truth::pose64(&pp);
            let n = r64 * n_local;
            let n = n / libm::sqrt(n.dot(&n));
            let centre = r64 * centroid + t64;
            let height = 0.05 + 0.1 * s;
            let bp = pose32(centre + n * height, &Rotation3::identity());
            let exact = n.dot(&(bp.translation.vector.cast::<f64>() - centre)) - 0.03;
            let o = gjk::distance(&Placed::new(poly, pp), &Placed::new(small, bp), &budget, &mut caches[4]);
            let mut cold_cache = GjkWarmStart::default();
            let _ = gjk::distance(&Placed::new(poly, pp), &Placed::new(small, bp), &budget, &mut cold_cache);
            p.warm_iterations += caches[4].iterations;
            p.cold_iterations += cold_cache.iterations;
            match gjk_value(&o) {
                Some(d) => {
                    p.check(k, "warm GJK", d, exact, tol_f32(1.0));
                    p.min_distance = p.min_distance.min(d);
                }
                None => p.fail(k, "GJK undetermined"),
            }
            if report {
                defmt::println!("poly200/ball warm GJK, hints {} / {}: {}", caches[4].hint_a, caches[4].hint_b, o);
            }
        }
        // The gripper and the ball through their SDFs: the ellipsoid method,
        // warm-started with the motion since the last tick.
        {
            let p = &mut pairs[5];
            let (c, yaw) = (V3::new(-0.2 + 1.0 * s, 0.0, 0.30), 0.5 * libm::sin(3.0 * s));
            let g = pose32(c, &Rotation3::from_axis_angle(&Vector3::z_axis(), yaw));
            if let Some((c0, yaw0)) = last_gripper {
                // Points of the gripper move by at most |Δc| + |Δyaw|·radius.
                let r = libm::sqrt(0.04 * 0.04 + 0.06 * 0.06 + 0.02 * 0.02);
                let dc = c - c0;
                sdf_warm.moved((libm::sqrt(dc.dot(&dc)) + libm::fabs(yaw - yaw0) * r) as f32);
            }
            last_gripper = Some((c, yaw));
            let exact = truth::sphere_box(&ball_at.translation.vector.cast(), 0.05, &g, &half(&gripper));
            let o = sdf_method.solve(&Placed::new(gripper, g), &Placed::new(ball, ball_at), &mut sdf_warm);
            match (&o, o.is_penetrating()) {
                (EllipsoidMethodOutcome::Separated(c), Some(false)) => {
                    p.check(k, "ellipsoid method distance", c.signed_distance(), exact, tol_f32(1.0));
                    p.min_distance = p.min_distance.min(c.signed_distance());
                    p.warm_iterations += c.iterations;
                    let (lo, hi) = (2.0 * c.bounds.lower as f64, 2.0 * c.bounds.upper as f64);
                    if !(lo - slack_f32(1.0) <= exact && exact <= hi + slack_f32(1.0)) {
                        p.fail(k, "exact distance outside the ellipsoid method's certified bounds");
                    }
                }
                (_, Some(hit)) => {
                    p.checks += 1;
                    if exact.abs() > tol_f32(1.0) && hit != (exact < 0.0) {
                        p.fail(k, "ellipsoid method's collision flag vs the closed form");
                    }
                }
                (_, None) => p.fail(k, "ellipsoid method undetermined"),
            }
            if report {
                defmt::println!("gripper/ball ellipsoid method: {}", o);
            }
        }
        // An ellipsoid sliding along the x axis of a superquadric fixture.
        {
            let p = &mut pairs[6];
            let x = 0.3 - 0.2 * s;
            let (fixture, slider) =
                (pose32(V3::zeros(), &Rotation3::identity()), pose32(V3::new(x, 0.0, 0.0), &Rotation3::identity()));
            let x = slider.translation.vector.x as f64;
            let exact = x / (0.12 + 0.05);
            let o = ellipsoid_superquadric(&sq, &fixture, &ell, &slider, &budget, Stop::Converged);
            match &o {
                MinkowskiOutcome::Separated(h) | MinkowskiOutcome::Penetrating(h) => {
                    p.check(k, "superquadric margin", h.margin, exact, tol_f32(1.0));
                    if libm::fabs(exact - 1.0) > tol_f32(1.0) && o.is_penetrating() != Some(exact < 1.0) {
                        p.fail(k, "superquadric collision flag vs the closed form");
                    }
                    p.min_distance = p.min_distance.min(h.margin);
                }
                MinkowskiOutcome::Undetermined { .. } => p.fail(k, "superquadric checker undetermined"),
            }
            if report {
                defmt::println!("superquadric/ellipsoid margin: {}", o);
            }
        }
    }

    defmt::println!("summary over {=usize} ticks:", TICKS);
    let (mut checks, mut failures) = (0, 0);
    for p in &pairs {
        defmt::println!(
            "  {=str}: {=u32} checks, {=u32} failed, max |error| {=f64}, min distance (margin) {=f32}, iterations warm {=u32} / cold {=u32}",
            p.name,
            p.checks,
            p.failures,
            p.max_err,
            p.min_distance,
            p.warm_iterations,
            p.cold_iterations
        );
        checks += p.checks;
        failures += p.failures;
    }
    if failures == 0 {
        defmt::println!("all {=u32} checks passed", checks);
    } else {
        defmt::error!("{=u32} of {=u32} checks failed", failures, checks);
    }
    failures == 0
}
