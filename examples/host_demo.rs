//! A robot control tick on the host: a gripper, a tool tip, a second arm's
//! link and five fixed obstacles move through 100 ticks (10 ms each). Every
//! tick runs, for each of eight pairs:
//! - GJK distance with the pair's own warm-started [`GjkWarmStart`], as a
//!   controller would;
//! - EPA (one caller-owned workspace, reused) when GJK finds contact: the
//!   penetration depth and normal (`support::contact::contact` packages these
//!   two steps in one call; the demo spells them out);
//! - as cross-checks: a cold GJK query, GJK's boolean `intersect`, and MPR
//!   (`mpr::penetration`).
//!
//! Run it with `cargo run --release --example host_demo` (`-- --quiet` prints
//! the summary only). CI runs it in debug as the `demo` step of
//! `cargo xtask test` (`cargo xtask test --only demo`); `cargo xtask demo` is
//! the firmware demo on the emulated Cortex-M4F instead.
//!
//! It exits non-zero when
//! - any query answers `Undetermined`;
//! - a result disagrees with the closed form computed here in f64 for the
//!   three pairs that have one (sphere–sphere, sphere–capsule, box–sphere):
//!   GJK's certified bounds must bracket the exact distance and EPA's the
//!   exact depth; MPR's depth along its normal can not be below the exact
//!   (minimal) depth, and for two spheres equals it; a contact answer needs an
//!   exact distance within the tolerance;
//! - the warm and the cold GJK query, GJK `distance` and `intersect`, or GJK
//!   and MPR disagree on contact (away from touching).
//!
//! The polytope is a regular octahedron given as `static` arrays in the
//! layout `narrowphase::shape::PolytopeData` documents — what a host tool
//! (e.g. the `std` feature's hull builder) would write into firmware flash.

use std::f32::consts::PI;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use nalgebra::{Matrix3, Point3, Rotation3, Translation3, Vector3};
use narrowphase::prelude::*;
use narrowphase::shape::Plane;
use narrowphase::support::epa::Epa;
use narrowphase::support::mpr::MprOutcome;
// --- The octahedron fixture: |x| + |y| + |z| <= S ---------------------------

/// Half-diagonal of the octahedron (m).
const S: f32 = 0.08;
/// 1/√3: the components of the face normals.
const K: f32 = 0.577_350_26;

/// Vertices `±x, ±y, ±z` (indices 0..6: +x −x +y −y +z −z).
static OCTA_VERTICES: [Point3<f32>; 6] = [
    Point3::new(S, 0.0, 0.0),
    Point3::new(-S, 0.0, 0.0),
    Point3::new(0.0, S, 0.0),
    Point3::new(0.0, -S, 0.0),
    Point3::new(0.0, 0.0, S),
    Point3::new(0.0, 0.0, -S),
];

/// Each vertex touches the four others that are not its opposite.
static OCTA_VERTEX_ADJACENCY_OFFSETS: [u16; 7] = [0, 4, 8, 12, 16, 20, 24];
static OCTA_VERTEX_ADJACENCY: [u16; 24] = [
    2, 3, 4, 5, // +x
    2, 3, 4, 5, // −x
    0, 1, 4, 5, // +y
    0, 1, 4, 5, // −y
    0, 1, 2, 3, // +z
    0, 1, 2, 3, // −z
];

const fn face(sx: f32, sy: f32, sz: f32) -> Plane<f32> {
    Plane { normal: Vector3::new(sx * K, sy * K, sz * K), offset: S * K }
}

/// One face per octant, normal `(±1, ±1, ±1)/√3`.
static OCTA_FACES: [Plane<f32>; 8] = [
    face(1.0, 1.0, 1.0),
    face(1.0, 1.0, -1.0),
    face(1.0, -1.0, 1.0),
    face(1.0, -1.0, -1.0),
    face(-1.0, 1.0, 1.0),
    face(-1.0, 1.0, -1.0),
    face(-1.0, -1.0, 1.0),
    face(-1.0, -1.0, -1.0),
];

/// Triangles, counter-clockwise seen from outside.
static OCTA_FACE_OFFSETS: [u16; 9] = [0, 3, 6, 9, 12, 15, 18, 21, 24];
static OCTA_FACE_VERTICES: [u16; 24] = [
    0, 2, 4, // + + +
    0, 5, 2, // + + −
    0, 4, 3, // + − +
    0, 3, 5, // + − −
    1, 4, 2, // − + +
    1, 2, 5, // − + −
    1, 3, 4, // − − +
    1, 5, 3, // − − −
];
/// The face across loop edge `k → k+1`, aligned with `OCTA_FACE_VERTICES`.
static OCTA_FACE_ADJACENCY: [u16; 24] = [
    1, 4, 2, //
    3, 5, 0, //
    0, 6, 3, //
    2, 7, 1, //
    6, 0, 5, //
    4, 1, 7, //
    7, 2, 4, //
    5, 3, 6, //
];

fn octahedron() -> Result<Polytope<'static, f32>, ShapeError> {
    Polytope::new(PolytopeData {
        vertices: &OCTA_VERTICES,
        vertex_adjacency_offsets: &OCTA_VERTEX_ADJACENCY_OFFSETS,
        vertex_adjacency: &OCTA_VERTEX_ADJACENCY,
        faces: &OCTA_FACES,
        face_offsets: &OCTA_FACE_OFFSETS,
        face_vertices: &OCTA_FACE_VERTICES,
        face_adjacency: &OCTA_FACE_ADJACENCY,
    })
}

// --- The scene ------------------------------------------------------------

const TICKS: usize = 100;
/// Ticks at which every pair is printed.
const REPORT_TICKS: [usize; 5] = [0, 25, 50, 75, 99];

const GRIPPER_HALF: Vector3<f32> = Vector3::new(0.04, 0.06, 0.02);
const TIP_RADIUS: f32 = 0.015;
/// The tool tip below the gripper, in the gripper frame.
const TIP_OFFSET: Vector3<f32> = Vector3::new(0.0, 0.0, -0.035);
const LINK_HALF_LENGTH: f32 = 0.15;
const LINK_RADIUS: f32 = 0.035;
const BALL_RADIUS: f32 = 0.05;
const BALL_CENTRE: Vector3<f32> = Vector3::new(0.3, 0.0, 0.24);

fn pose(t: Vector3<f32>, r: Rotation3<f32>) -> Pose<f32> {
    Pose::from_parts(Translation3::from(t), r)
}

fn fixed(x: f32, y: f32, z: f32) -> Pose<f32> {
    pose(Vector3::new(x, y, z), Rotation3::identity())
}

/// Where the moving bodies are at tick `k`.
struct Poses {
    gripper: Pose<f32>,
    tip: Pose<f32>,
    link: Pose<f32>,
}

fn poses(k: usize) -> Poses {
    let s = k as f32 / (TICKS - 1) as f32;
    // The gripper sweeps along x through the work cell, yawing and bobbing.
    let gripper = pose(
        Vector3::new(-0.6 + 1.2 * s, 0.0, 0.30 + 0.02 * (2.0 * PI * s).sin()),
        Rotation3::from_axis_angle(&Vector3::z_axis(), 0.5 * (PI * s).sin()),
    );
    let tip = pose(gripper.translation.vector + gripper.rotation * TIP_OFFSET, Rotation3::identity());
    // A second arm's forearm: moves along y and pitches from upright to flat.
    let link =
        pose(Vector3::new(0.35, -0.35 + 0.5 * s, 0.16), Rotation3::from_axis_angle(&Vector3::x_axis(), 0.5 * PI * s));
    Poses { gripper, tip, link }
}

// --- Closed forms (f64) -----------------------------------------------------

fn to64(v: &Vector3<f32>) -> Vector3<f64> {
    v.cast::<f64>()
}

fn rot64(p: &Pose<f32>) -> Matrix3<f64> {
    p.rotation.matrix().cast::<f64>()
}

fn sphere_sphere(ca: &Vector3<f32>, ra: f32, cb: &Vector3<f32>, rb: f32) -> f64 {
    (to64(ca) - to64(cb)).norm() - ra as f64 - rb as f64
}

fn sphere_capsule(c: &Vector3<f32>, r: f32, link: &Pose<f32>, half: f32, radius: f32) -> f64 {
    let axis = rot64(link) * Vector3::z() * half as f64;
    let mid = to64(&link.translation.vector);
    let (p0, p1) = (mid - axis, mid + axis);
    let q = to64(c);
    let d = p1 - p0;
    let t = ((q - p0).dot(&d) / d.dot(&d)).clamp(0.0, 1.0);
    (q - (p0 + d * t)).norm() - r as f64 - radius as f64
}

fn box_sphere(b: &Pose<f32>, half: &Vector3<f32>, c: &Vector3<f32>, r: f32) -> f64 {
    let local = rot64(b).transpose() * (to64(c) - to64(&b.translation.vector));
    let h = to64(half);
    let outside =
        Vector3::new((local.x.abs() - h.x).max(0.0), (local.y.abs() - h.y).max(0.0), (local.z.abs() - h.z).max(0.0));
    let inside = (local.x.abs() - h.x).max(local.y.abs() - h.y).max(local.z.abs() - h.z).min(0.0);
    outside.norm() + inside - r as f64
}

// --- Bookkeeping -------------------------------------------------------------

/// Absolute slack on the certificate: f32 rounding of coordinates below 1 m.
const BOUND_SLACK: f64 = 1.0e-5;

#[derive(Clone, Copy, PartialEq)]
enum Check {
    None,
    SphereSphere,
    TipLink,
    GripperBall,
}

struct PairStats {
    name: &'static str,
    check: Check,
    cache: GjkWarmStart<f32>,
    min_distance: f32,
    min_tick: usize,
    contacts: usize,
    first_contact: Option<usize>,
    max_depth: f32,
    max_iterations: u32,
    max_epa_iterations: u32,
    warm_iterations: u64,
    cold_iterations: u64,
    mpr_penetrating: usize,
    undetermined: usize,
    closed_form_checks: usize,
    max_closed_form_error: f64,
    time: Duration,
}

impl PairStats {
    fn new(name: &'static str, check: Check) -> Self {
        Self {
            name,
            check,
            cache: GjkWarmStart::default(),
            min_distance: f32::INFINITY,
            min_tick: 0,
            contacts: 0,
            first_contact: None,
            max_depth: 0.0,
            max_iterations: 0,
            max_epa_iterations: 0,
            warm_iterations: 0,
            cold_iterations: 0,
            mpr_penetrating: 0,
            undetermined: 0,
            closed_form_checks: 0,
            max_closed_form_error: 0.0,
            time: Duration::ZERO,
        }
    }
}

fn describe(o: &GjkOutcome<f32>) -> String {
    match o {
        GjkOutcome::Separated(s) => {
            format!("separated  d = {:9.6} m  bounds [{:9.6}, {:9.6}]", s.distance, s.bounds.lower, s.bounds.upper)
        }
        GjkOutcome::Penetrating(simplex) => format!("CONTACT    (terminal simplex of {} points)", simplex.len()),
        GjkOutcome::Undetermined { reason, bounds } => {
            format!("UNDETERMINED {reason:?}  bounds [{:e}, {:e}]", bounds.lower, bounds.upper)
        }
    }
}

fn describe_epa(o: &Proximity<f32>) -> String {
    match o {
        Proximity::Penetrating(p) => format!(
            "depth {:.6} m  bounds [{:.6}, {:.6}]  normal ({:+.3}, {:+.3}, {:+.3})",
            p.depth, p.bounds.lower, p.bounds.upper, p.witness.normal.x, p.witness.normal.y, p.witness.normal.z
        ),
        Proximity::Separated(s) => format!("separated?! d = {}", s.distance),
        Proximity::Undetermined { reason, bounds } => {
            format!("UNDETERMINED {reason:?}  bounds [{:e}, {:e}]", bounds.lower, bounds.upper)
        }
    }
}

fn describe_mpr(o: &MprOutcome<f32>) -> String {
    match o {
        MprOutcome::Separated { lower_bound, .. } => format!("separated (d >= {lower_bound:.6})"),
        MprOutcome::Penetrating(p) => format!("penetrating, depth along the centre ray's normal {:.6}", p.depth),
        MprOutcome::Undetermined { reason, .. } => format!("UNDETERMINED {reason:?}"),
    }
}

/// The distance, or 0 for a contact.
fn distance_of(o: &GjkOutcome<f32>) -> Option<f32> {
    match o {
        GjkOutcome::Separated(s) => Some(s.distance),
        GjkOutcome::Penetrating(_) => Some(0.0),
        GjkOutcome::Undetermined { .. } => None,
    }
}

fn main() -> ExitCode {
    let quiet = std::env::args().any(|a| a == "--quiet" || a == "-q");
    match run(quiet) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problems) => {
            eprintln!("\nhost_demo: {} problem(s):", problems.len());
            for p in problems.iter().take(20) {
                eprintln!("  {p}");
            }
            ExitCode::FAILURE
        }
    }
}

/// EPA's iteration cap. Two spheres are the slow case: the polytope must
/// approximate a ball to the tolerance, which took 64+ iterations here (the
/// default workspace, `DefaultEpa`, is sized for 64).
const EPA_ITERATIONS: usize = 128;
/// An EPA workspace for `EPA_ITERATIONS`: `N + 4` vertices, `2N + 4` faces.
type DemoEpa = Epa<f32, { EPA_ITERATIONS + 4 }, { 2 * EPA_ITERATIONS + 4 }>;

/// The queries' budgets and the checks' tolerances.
struct Settings {
    /// GJK: the default (64 iterations, relative tolerance 1000·ε).
    distance: Budget<f32>,
    /// EPA and MPR refine a polytope or a portal against curved surfaces,
    /// which converges slowly. The tolerance is relative to the pair's own
    /// size (the queries compute in the pair frame): 2e-3 of the tool tip
    /// and ball (about 7 cm across) is 0.14 mm, what a controller asks of a
    /// depth. (`contact` would answer this pair exactly: it adds the radii
    /// to the centres' distance; the demo runs EPA to show its bounds.)
    depth: Budget<f32>,
    /// Contact is reported within `tolerance · scale` of touching; the scene
    /// stays within 1 m of the origin, so scale <= ~1.
    contact_tolerance: f64,
    /// Slack of the depth checks.
    depth_slack: f64,
}

fn run(quiet: bool) -> Result<(), Vec<String>> {
    let distance = Budget::<f32>::default();
    let depth = Budget::<f32>::new(EPA_ITERATIONS as u32, 2.0e-3);
    let settings = Settings {
        distance,
        depth,
        contact_tolerance: 2.0 * distance.tolerance as f64,
        depth_slack: 4.0 * depth.tolerance as f64 + BOUND_SLACK,
    };

    let shape_err = |what: &str, e: ShapeError| vec![format!("building the {what}: {e:?}")];
    let gripper = Cuboid::new(GRIPPER_HALF).map_err(|e| shape_err("gripper", e))?;
    let tip = Sphere::new(TIP_RADIUS).map_err(|e| shape_err("tool tip", e))?;
    let link = Capsule::new(LINK_HALF_LENGTH, LINK_RADIUS).map_err(|e| shape_err("link", e))?;
    let post = Placed::new(Cylinder::new(0.3, 0.05).map_err(|e| shape_err("post", e))?, fixed(0.0, 0.09, 0.3));
    let fixture = Placed::new(octahedron().map_err(|e| shape_err("octahedron", e))?, fixed(-0.25, -0.15, 0.3));
    let ball = Placed::new(
        Sphere::new(BALL_RADIUS).map_err(|e| shape_err("ball", e))?,
        pose(BALL_CENTRE, Rotation3::identity()),
    );
    let cone = Placed::new(Cone::new(0.1, 0.08).map_err(|e| shape_err("cone", e))?, fixed(0.35, 0.1, 0.0));
    let ellipsoid = Placed::new(
        Ellipsoid::new(Vector3::new(0.1, 0.05, 0.03)).map_err(|e| shape_err("ellipsoid", e))?,
        pose(Vector3::new(0.35, -0.05, 0.42), Rotation3::from_axis_angle(&Vector3::y_axis(), 0.4)),
    );

    let mut pairs = [
        PairStats::new("gripper box / post cylinder", Check::None),
        PairStats::new("gripper box / octahedron", Check::None),
        PairStats::new("gripper box / ball", Check::GripperBall),
        PairStats::new("tool tip / ball", Check::SphereSphere),
        PairStats::new("tool tip / link capsule", Check::TipLink),
        PairStats::new("link capsule / cone", Check::None),
        PairStats::new("link capsule / ellipsoid", Check::None),
        PairStats::new("link capsule / post cylinder", Check::None),
    ];
    // One EPA workspace, owned by the caller and reused for every pair: no
    // allocation in the loop.
    let mut epa = DemoEpa::new();
    let mut problems: Vec<String> = Vec::new();

    if !quiet {
        println!(
            "narrowphase host demo: {} pairs x {TICKS} ticks, f32; GJK {:?}; EPA/MPR {:?}",
            pairs.len(),
            settings.distance,
            settings.depth
        );
    }
    for k in 0..TICKS {
        let p = poses(k);
        let gripper_w = Placed::new(gripper, p.gripper);
        let tip_w = Placed::new(tip, p.tip);
        let link_w = Placed::new(link, p.link);
        let bodies: [(&dyn SupportMap<f32>, &dyn SupportMap<f32>); 8] = [
            (&gripper_w, &post),
            (&gripper_w, &fixture),
            (&gripper_w, &ball),
            (&tip_w, &ball),
            (&tip_w, &link_w),
            (&link_w, &cone),
            (&link_w, &ellipsoid),
            (&link_w, &post),
        ];
        let report = !quiet && REPORT_TICKS.contains(&k);
        if report {
            println!("\ntick {k:3}  (t = {:.2} s)", k as f32 * 0.01);
        }
        for (stats, (a, b)) in pairs.iter_mut().zip(bodies) {
            let exact = match stats.check {
                Check::None => None,
                Check::SphereSphere => {
                    Some(sphere_sphere(&p.tip.translation.vector, TIP_RADIUS, &BALL_CENTRE, BALL_RADIUS))
                }
                Check::TipLink => {
                    Some(sphere_capsule(&p.tip.translation.vector, TIP_RADIUS, &p.link, LINK_HALF_LENGTH, LINK_RADIUS))
                }
                Check::GripperBall => Some(box_sphere(&p.gripper, &GRIPPER_HALF, &BALL_CENTRE, BALL_RADIUS)),
            };
            let name = stats.name;
            let mut log = |m: String| problems.push(format!("tick {k}, {name}: {m}"));
            tick_pair(k, stats, (a, b), &settings, &mut epa, exact, report, &mut log);
        }
    }

    summary(&pairs);
    if problems.is_empty() {
        println!("  all checks passed");
        Ok(())
    } else {
        Err(problems)
    }
}

/// One pair, one tick: the control-loop queries, then the cross-checks.
// `!(x <= y)` on purpose: a NaN must fail a check.
#[allow(clippy::too_many_arguments, clippy::neg_cmp_op_on_partial_ord)]
fn tick_pair(
    k: usize,
    stats: &mut PairStats,
    (a, b): (&dyn SupportMap<f32>, &dyn SupportMap<f32>),
    settings: &Settings,
    epa: &mut DemoEpa,
    exact: Option<f64>,
    report: bool,
    problem: &mut dyn FnMut(String),
) {
    // The control-loop queries: GJK warm-started from this pair's cache,
    // then EPA from GJK's terminal simplex if they touch.
    let started = Instant::now();
    let warm = gjk::distance(a, b, &settings.distance, &mut stats.cache);
    let depth = match &warm {
        GjkOutcome::Penetrating(simplex) => Some(epa.penetration(a, b, simplex, &settings.depth)),
        _ => None,
    };
    stats.time += started.elapsed();
    let iterations = stats.cache.iterations;

    // Cross-checks: a cold query, the boolean test, MPR.
    let mut cold_cache = GjkWarmStart::default();
    let cold = gjk::distance(a, b, &settings.distance, &mut cold_cache);
    let hit = gjk::intersect(a, b, &settings.distance, &mut GjkWarmStart::default());
    let mpr = mpr::penetration(a, b, &settings.depth);

    stats.max_iterations = stats.max_iterations.max(iterations);
    stats.warm_iterations += iterations as u64;
    stats.cold_iterations += cold_cache.iterations as u64;
    match &warm {
        GjkOutcome::Undetermined { .. } => {
            stats.undetermined += 1;
            problem(format!("GJK {}", describe(&warm)));
        }
        GjkOutcome::Penetrating(_) => {
            stats.contacts += 1;
            stats.first_contact.get_or_insert(k);
        }
        GjkOutcome::Separated(_) => {}
    }
    if let Some(d) = distance_of(&warm) {
        if d < stats.min_distance {
            stats.min_distance = d;
            stats.min_tick = k;
        }
    }
    match &depth {
        Some(Proximity::Penetrating(p)) => {
            stats.max_depth = stats.max_depth.max(p.depth);
            stats.max_epa_iterations = stats.max_epa_iterations.max(epa.iterations());
        }
        Some(other) => {
            stats.undetermined += 1;
            problem(format!("EPA {}", describe_epa(other)));
        }
        None => {}
    }
    match &mpr {
        MprOutcome::Penetrating(_) => stats.mpr_penetrating += 1,
        MprOutcome::Undetermined { .. } => {
            stats.undetermined += 1;
            problem(format!("MPR {}", describe_mpr(&mpr)));
        }
        MprOutcome::Separated { .. } => {}
    }
    if report {
        println!("  {:<30} {}  iters {:2} (cold {:2})", stats.name, describe(&warm), iterations, cold_cache.iterations);
        if let Some(d) = &depth {
            println!("  {:<30}   EPA {} ({} iters)", "", describe_epa(d), epa.iterations());
        }
        println!("  {:<30}   MPR {}", "", describe_mpr(&mpr));
    }

    // Warm, cold, boolean and MPR answers must agree, up to a touch.
    let near_touch = distance_of(&warm).is_some_and(|d| (d as f64) <= settings.contact_tolerance);
    for (what, other) in [("cold distance", cold.is_penetrating()), ("intersect", hit.is_penetrating())] {
        if let (Some(x), Some(y)) = (warm.is_penetrating(), other) {
            if x != y && !near_touch {
                problem(format!("warm distance says {} but {what} says contact = {y}", describe(&warm)));
            }
        }
    }
    let mpr_touch = matches!(&mpr, MprOutcome::Penetrating(p) if (p.depth as f64) <= settings.depth_slack);
    if let (Some(x), Some(y)) = (warm.is_penetrating(), mpr.is_penetrating()) {
        if x != y && !near_touch && !mpr_touch {
            problem(format!("GJK says {} but MPR says {}", describe(&warm), describe_mpr(&mpr)));
        }
    }
    if let (GjkOutcome::Separated(w), GjkOutcome::Separated(c)) = (&warm, &cold) {
        let gap = (w.bounds.gap().max(c.bounds.gap())) as f64 + BOUND_SLACK;
        if ((w.distance - c.distance) as f64).abs() > gap {
            problem(format!("warm d = {} vs cold d = {}", w.distance, c.distance));
        }
    }

    // Closed forms (signed distance; its negative is the penetration depth).
    if let Some(exact) = exact {
        stats.closed_form_checks += 1;
        match &warm {
            GjkOutcome::Separated(s) => {
                let (lo, hi) = (s.bounds.lower as f64, s.bounds.upper as f64);
                stats.max_closed_form_error = stats.max_closed_form_error.max((s.distance as f64 - exact).abs());
                if !(lo - BOUND_SLACK <= exact && exact <= hi + BOUND_SLACK) {
                    problem(format!("exact distance {exact:.7} outside GJK's bounds [{lo:.7}, {hi:.7}]"));
                }
            }
            GjkOutcome::Penetrating(_) => {
                if exact > settings.contact_tolerance {
                    problem(format!("contact reported but the exact distance is {exact:.7}"));
                }
            }
            GjkOutcome::Undetermined { .. } => {}
        }
        let exact_depth = -exact;
        if let Some(Proximity::Penetrating(p)) = &depth {
            let (lo, hi) = (p.bounds.lower as f64, p.bounds.upper as f64);
            stats.max_closed_form_error = stats.max_closed_form_error.max((p.depth as f64 - exact_depth).abs());
            if !(lo - settings.depth_slack <= exact_depth && exact_depth <= hi + settings.depth_slack) {
                problem(format!("exact depth {exact_depth:.7} outside EPA's bounds [{lo:.7}, {hi:.7}]"));
            }
        }
        // MPR's depth is along the centre ray's exit normal: never below the
        // minimal depth, and equal to it for two spheres.
        if let MprOutcome::Penetrating(p) = &mpr {
            let (d, hi) = (p.depth as f64, p.bounds.upper as f64);
            let spheres = stats.check == Check::SphereSphere;
            if !(exact_depth <= hi + settings.depth_slack)
                || (spheres && !((d - exact_depth).abs() <= settings.depth_slack))
            {
                problem(format!("exact depth {exact_depth:.7} vs MPR depth {d:.7} (upper bound {hi:.7})"));
            }
        }
    }
}

fn summary(pairs: &[PairStats]) {
    println!("\nsummary over {TICKS} ticks (GJK warm-started per pair vs a fresh cache; EPA on contact; MPR beside):");
    println!(
        "  {:<30} {:>9} {:>4} {:>8} {:>9} {:>4} {:>9} {:>10} {:>5} {:>9} {:>8}",
        "pair",
        "min d (m)",
        "tick",
        "contacts",
        "max depth",
        "MPR",
        "max iters",
        "iters w/c",
        "undet",
        "exact err",
        "ns/tick"
    );
    for s in pairs {
        let exact = if s.closed_form_checks > 0 { format!("{:.1e}", s.max_closed_form_error) } else { "-".into() };
        let contacts = match s.first_contact {
            Some(t) => format!("{} @{t}", s.contacts),
            None => "0".into(),
        };
        println!(
            "  {:<30} {:>9.6} {:>4} {:>8} {:>9.6} {:>4} {:>9} {:>10} {:>5} {:>9} {:>8}",
            s.name,
            s.min_distance,
            s.min_tick,
            contacts,
            s.max_depth,
            s.mpr_penetrating,
            format!("{}/{}", s.max_iterations, s.max_epa_iterations),
            format!("{:.2}/{:.2}", s.warm_iterations as f64 / TICKS as f64, s.cold_iterations as f64 / TICKS as f64),
            s.undetermined,
            exact,
            s.time.as_nanos() / TICKS as u128,
        );
    }
    let total = |f: fn(&PairStats) -> u64| pairs.iter().map(f).sum::<u64>();
    let min = pairs.iter().map(|s| s.min_distance).fold(f32::INFINITY, f32::min);
    let max_depth = pairs.iter().map(|s| s.max_depth).fold(0.0, f32::max);
    println!(
        "  total: min distance {min:.6} m (0 = contact), {} contact answers, max depth {max_depth:.6} m, \
         {} undetermined, {} closed-form checks, GJK iterations warm {} vs cold {}",
        total(|s| s.contacts as u64),
        total(|s| s.undetermined as u64),
        total(|s| s.closed_form_checks as u64),
        total(|s| s.warm_iterations),
        total(|s| s.cold_iterations),
    );
    println!("  (max iters = GJK/EPA; ns/tick = GJK + EPA time per pair and tick, debug builds are slow)");
}
