//! The ellipsoid method on SDFs (`narrowphase::sdf`) against the support
//! family (GJK, MPR, GJK + EPA) and parry3d 0.31, in the protocol of
//! ellipsoid-method-sdf-collision §5 (López-Adeva & Merchante, CAD 170, 2024).
//!
//! # Workloads (§5.1; two bodies of the same type)
//! - `box`: half-extents 1, 2/3, 1/3 (3:2:1); `rounded_box`: the same outer
//!   size, a box of half-extents 0.9, 0.567, 0.233 ⊕ a ball of radius 0.1
//!   (parry: `RoundCuboid`); `cone`: half-height 0.5, radius 0.5;
//!   `ellipsoid`: semi-axes 1, 2/3, 1/3 (its SDF is the paper's Eq. 21 lower
//!   bound; parry has no ellipsoid, its column is a hull of
//!   [`ELLIPSOID_HULL_POINTS`] surface points: another geometry);
//! - `polyN`: hulls (`hull::quickhull`; parry's own hull of the same points)
//!   of N = 50, 200, 500, 1000 points uniform on the unit sphere, axes scaled
//!   3:2:1, pairs from a pool of [`POOL`]; SDF by Algorithm 4.
//!
//! # Poses
//! As `support_family`: random rotations, a random direction `u`, B moved
//! along `u` to touching (bisection on our f64 GJK) and then by `s·R̄`, `s`
//! uniform in [−0.05, 0.05], `R̄` the mean bounding radius. The paper uses
//! 1000 rotations × 100 separations; here [`Knobs::poses`] random instances
//! (300; 100 in quick mode) per workload.
//!
//! # What is printed
//! 1. Per-instance timing in the paper's way, `min over k samples of (time of
//!    m evaluations)/m` (k = 7, m = 20; quick: 5, 10), the competitors of an
//!    instance interleaved sample by sample: the share of instances where the
//!    ellipsoid method is faster than each competitor, beside the paper's
//!    share (vs GJK). Collision: ellipsoid `collision()` vs `gjk::intersect`,
//!    `mpr::intersect`, parry `intersection_test`. Distance: ellipsoid
//!    `distance()` vs `gjk::distance` (separated instances), vs
//!    `mpr::penetration` and `contact` (GJK + EPA) (penetrating instances).
//! 2. criterion groups `<workload>_hit` and `<workload>_dist` (one iteration
//!    runs every instance once) and a table of medians per query with the
//!    ratio ellipsoid / GJK (same precision).
//! 3. Warm vs cold on trajectories of small motions: ellipsoid `distance()`
//!    cold vs warm (`warm.moved(|Δt| + |Δθ|·ρ)` summed over both bodies, ρ the
//!    largest distance of a body point from its pose origin), and a cold
//!    start that keeps the previous face hints ("hints"), with our GJK
//!    `distance` cold vs warm (`GjkWarmStart`) beside it; the variants
//!    interleaved pass by pass. The worst warm/cold disagreement is printed
//!    with each run's certificate checked at the other run's optimum.
//! 4. Iterations (mean / max), `Undetermined` answers (must be 0), flag
//!    agreement with GJK outside |s| < 1e-6, and distance sanity (exact SDFs:
//!    `2φ` equals the GJK distance; lower bounds: never above it).
//!
//! Budgets: the ellipsoid method's defaults (500 iterations, relative
//! tolerance 1e-7 in f64, 1.2e-4 in f32); our f64 GJK / MPR / EPA with the
//! same relative tolerance 1e-7 (64 iterations), f32 with their defaults.
//!
//! ```text
//! cargo bench --features std --bench ellipsoid_method -- --warm-up-time 1 --measurement-time 3
//! ELLIPSOID_BENCH_ONLY=box,poly50   # only these workloads
//! ELLIPSOID_BENCH_QUICK=1           # 100 poses, k = 5, m = 10, 8 trajectories
//! ELLIPSOID_BENCH_POSES=500         # instances per workload
//! ELLIPSOID_BENCH_CRITERION=0       # the paper's protocol and checks only
//! ```

use std::f64::consts::{FRAC_PI_2, TAU};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, SamplingMode, Throughput};
use nalgebra::{Point3, Rotation3, Unit, Vector3};
use narrowphase::hull::{quickhull, OwnedPolytope};
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart};
use narrowphase::sdf::Sdf;
use narrowphase::support::contact;
use parry3d::math::Pose as PPose;
use parry3d::shape::Shape as PShape;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// Shared with the other bench of the §5.1 protocol (one module per purpose).
#[path = "common/criterion_medians.rs"]
mod criterion_medians;
#[path = "common/pair_protocol.rs"]
mod pair_protocol;
#[path = "common/parry_bodies.rs"]
mod parry_bodies;
use criterion_medians::{criterion_dir, median_ns};
use pair_protocol::{
    ellipsoid_points, pick, polytope_points, pose, rotation, touching, unit_vector, ELLIPSOID_HULL_POINTS, POOL, S_MAX,
};
use parry_bodies::{parry_hull, parry_pose, pvec};

/// Rotation per trajectory frame (rad), both bodies.
const SPIN: f64 = 0.01;

/// Our f64 support-family budget: the ellipsoid method's f64 tolerance.
fn budget64() -> Budget<f64> {
    Budget::new(64, 1e-7)
}

// ---------------------------------------------------------------------------
// Knobs.

#[derive(Clone, Copy, Debug)]
struct Knobs {
    poses: usize,
    traj: usize,
    frames: usize,
    /// k: samples per instance (the minimum is kept).
    samples: usize,
    /// m: evaluations per sample.
    evals: usize,
    criterion: bool,
}

fn knobs() -> Knobs {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let quick = var("ELLIPSOID_BENCH_QUICK").is_some_and(|v| v != "0");
    let mut k = if quick {
        Knobs { poses: 100, traj: 8, frames: 25, samples: 5, evals: 10, criterion: true }
    } else {
        Knobs { poses: 300, traj: 20, frames: 25, samples: 7, evals: 20, criterion: true }
    };
    if let Some(n) = var("ELLIPSOID_BENCH_POSES").and_then(|v| v.parse().ok()) {
        k.poses = n;
    }
    if var("ELLIPSOID_BENCH_CRITERION").is_some_and(|v| v == "0") {
        k.criterion = false;
    }
    k
}

// ---------------------------------------------------------------------------
// Geometry helpers.

/// Largest displacement of a point at most `rho` from the pose origin.
fn motion(old: &Pose<f64>, new: &Pose<f64>, rho: f64) -> f64 {
    (new.translation.vector - old.translation.vector).norm() + (new.rotation * old.rotation.inverse()).angle() * rho
}

// ---------------------------------------------------------------------------
// Workloads and instances.

struct Work<S32, S64> {
    name: String,
    s32: Vec<S32>,
    s64: Vec<S64>,
    parry: Vec<Box<dyn PShape>>,
    /// Rotation from parry's local frame to ours (cone axis: y vs z).
    fix: Rotation3<f64>,
    /// parry's shape is the same geometry (false for the ellipsoid stand-in).
    parry_exact: bool,
    /// The paper's share "SDF faster than GJK" (collision), where given.
    paper: Option<f64>,
}

#[derive(Clone, Copy)]
struct Inst<S32, S64> {
    a32: Placed<S32, f32>,
    b32: Placed<S32, f32>,
    a64: Placed<S64, f64>,
    b64: Placed<S64, f64>,
    pa: PPose,
    ia: usize,
    pb: PPose,
    ib: usize,
    /// Separation parameter (units of R̄) and `s·R̄`.
    s: f64,
    gap: f64,
    /// Motion bound since the previous frame (trajectories; 0 at the first).
    moved: f64,
}

impl<S32, S64> Work<S32, S64>
where
    S32: SupportMap<f32> + Sdf<f32, 3> + Copy,
    S64: SupportMap<f64> + Sdf<f64, 3> + Bounded<f64> + Copy,
{
    fn place(
        &self,
        (ia, ib): (usize, usize),
        pose_a: Pose<f64>,
        rot_b: Rotation3<f64>,
        u: Vector3<f64>,
        s: f64,
    ) -> Inst<S32, S64> {
        let a = Placed::new(self.s64[ia], pose_a);
        let o = pose_a.translation.vector;
        let r_mean = 0.5 * (self.s64[ia].bounding_sphere().1 + self.s64[ib].bounding_sphere().1);
        let t = touching(&a, self.s64[ib], rot_b, u).0 + s * r_mean;
        let pose_b = pose(o + u * t, rot_b);
        Inst {
            a32: Placed::new(self.s32[ia], nalgebra::convert(pose_a)),
            b32: Placed::new(self.s32[ib], nalgebra::convert(pose_b)),
            a64: a,
            b64: Placed::new(self.s64[ib], pose_b),
            pa: parry_pose(&pose_a, &self.fix),
            ia,
            pb: parry_pose(&pose_b, &self.fix),
            ib,
            s,
            gap: s * r_mean,
            moved: 0.0,
        }
    }

    fn pick(&self, rng: &mut impl Rng) -> (usize, usize) {
        pick(rng, self.s64.len(), self.s64.len())
    }

    fn random(&self, rng: &mut impl Rng, n: usize) -> Vec<Inst<S32, S64>> {
        (0..n)
            .map(|_| {
                let ids = self.pick(rng);
                let o =
                    Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                let (ra, rb, u) = (rotation(rng), rotation(rng), unit_vector(rng));
                let s = rng.random_range(-S_MAX..S_MAX);
                self.place(ids, pose(o, ra), rb, u, s)
            })
            .collect()
    }

    /// Slowly moving pairs: both bodies spin by [`SPIN`] per frame about fixed
    /// random axes, B follows the touching position with `s` oscillating in
    /// range (0.3 rad of phase per frame).
    fn trajectories(&self, rng: &mut impl Rng, kn: &Knobs) -> Vec<Vec<Inst<S32, S64>>> {
        let rho = |i: usize| {
            let (c, r) = self.s64[i].bounding_sphere();
            c.coords.norm() + r
        };
        (0..kn.traj)
            .map(|_| {
                let ids = self.pick(rng);
                let o =
                    Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                let (mut ra, mut rb, u) = (rotation(rng), rotation(rng), unit_vector(rng));
                let wa = Rotation3::from_axis_angle(&Unit::new_normalize(unit_vector(rng)), SPIN);
                let wb = Rotation3::from_axis_angle(&Unit::new_normalize(unit_vector(rng)), SPIN);
                let phase = rng.random_range(0.0..TAU);
                let mut out: Vec<Inst<S32, S64>> = vec![];
                for f in 0..kn.frames {
                    let s = S_MAX * (phase + 0.3 * f as f64).sin();
                    let mut inst = self.place(ids, pose(o, ra), rb, u, s);
                    if let Some(p) = out.last() {
                        inst.moved = motion(p.a64.pose(), inst.a64.pose(), rho(ids.0))
                            + motion(p.b64.pose(), inst.b64.pose(), rho(ids.1));
                    }
                    out.push(inst);
                    ra = wa * ra;
                    rb = wb * rb;
                }
                out
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------
// Per-instance timing (the paper's Eq. 23).

/// `(instance, m)`: run one query m times on one instance.
type Probe<'a> = Box<dyn FnMut(usize, usize) + 'a>;

/// ns per query of every probe on every listed instance: min over k samples
/// of (time of m evaluations)/m, the probes interleaved sample by sample.
fn time_instances(idx: &[usize], probes: &mut [Probe<'_>], kn: &Knobs) -> Vec<Vec<f64>> {
    let mut best = vec![vec![f64::INFINITY; idx.len()]; probes.len()];
    for (j, &i) in idx.iter().enumerate() {
        for p in probes.iter_mut() {
            p(i, 1);
        }
        for _ in 0..kn.samples {
            for (c, p) in probes.iter_mut().enumerate() {
                let t = Instant::now();
                p(i, kn.evals);
                let ns = t.elapsed().as_secs_f64() * 1e9 / kn.evals as f64;
                best[c][j] = best[c][j].min(ns);
            }
        }
    }
    best
}

/// One pass over a trajectory.
type Pass<'a, T> = Box<dyn FnMut(&[T]) + 'a>;

/// ns per query of each variant: the fastest of `samples` passes over
/// every trajectory in order, the variants interleaved pass by pass.
fn time_passes<T>(traj: &[Vec<T>], samples: usize, variants: &mut [Pass<'_, T>]) -> Vec<f64> {
    let frames: usize = traj.iter().map(Vec::len).sum();
    let mut best = vec![f64::INFINITY; variants.len()];
    for _ in 0..samples {
        for (k, run) in variants.iter_mut().enumerate() {
            let t = Instant::now();
            for tr in traj {
                run(tr);
            }
            best[k] = best[k].min(t.elapsed().as_secs_f64() * 1e9 / frames.max(1) as f64);
        }
    }
    best
}

/// A cold start that keeps another state's face hints.
fn with_hints<R: Real>(from: &EllipsoidWarmStart<R, 3>) -> EllipsoidWarmStart<R, 3> {
    let mut w = EllipsoidWarmStart::default();
    w.hint_a = from.hint_a;
    w.hint_b = from.hint_b;
    w
}

fn share(fast: &[f64], slow: &[f64]) -> String {
    if fast.is_empty() {
        return "-".into();
    }
    let n = fast.iter().zip(slow).filter(|(f, s)| f < s).count();
    format!("{:.1}%", 100.0 * n as f64 / fast.len() as f64)
}

fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn mean_max(xs: &[u32]) -> String {
    let m = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len().max(1) as f64;
    format!("{m:.1}/{}", xs.iter().copied().max().unwrap_or(0))
}

fn iterations<R: Real>(o: &EllipsoidMethodOutcome<R, 3>) -> u32 {
    match o {
        EllipsoidMethodOutcome::Separated(c) | EllipsoidMethodOutcome::Penetrating(c) => c.iterations,
        EllipsoidMethodOutcome::Undetermined { iterations, .. } => *iterations,
    }
}

// ---------------------------------------------------------------------------
// The report, collected over workloads and printed at the end.

#[derive(Default)]
struct Report {
    shares: Vec<String>,
    hit_times: Vec<String>,
    dist: Vec<String>,
    warm: Vec<String>,
    iters: Vec<String>,
    sanity: Vec<String>,
    /// Undetermined answers / disagreements, with details.
    alarms: Vec<String>,
}

#[allow(clippy::too_many_lines)]
fn protocol<S32, S64>(
    work: &Work<S32, S64>,
    inst: &[Inst<S32, S64>],
    traj: &[Vec<Inst<S32, S64>>],
    kn: &Knobs,
    rep: &mut Report,
) where
    S32: SupportMap<f32> + Sdf<f32, 3> + Copy,
    S64: SupportMap<f64> + Sdf<f64, 3> + Copy,
{
    let name = &work.name;
    let (ec64, ed64) = (EllipsoidMethod::<f64>::collision(), EllipsoidMethod::<f64>::distance());
    let (ec32, ed32) = (EllipsoidMethod::<f32>::collision(), EllipsoidMethod::<f32>::distance());
    let (b64, b32) = (budget64(), Budget::<f32>::default());
    let exact = Sdf::<f64, 3>::accuracy(&work.s64[0]) == narrowphase::sdf::SdfAccuracy::Exact;

    // --- 4. Iterations, undetermined, agreement, distance sanity. ---------
    let (mut it_c64, mut it_c32, mut it_d64, mut it_d32, mut it_gjk) = (vec![], vec![], vec![], vec![], vec![]);
    let mut undet = [0usize; 4];
    let (mut dis64, mut dis32, mut near32, mut wrong_truth, mut gjk_undet, mut parry_wrong) = (0, 0, 0, 0, 0, 0);
    let (mut sep_lo, mut sep_hi, mut sep_sum, mut n_sep) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0);
    let (mut pen_hi, mut pen_sum, mut n_pen) = (f64::NEG_INFINITY, 0.0, 0);
    for (i, x) in inst.iter().enumerate() {
        let c64 = ec64.solve(&x.a64, &x.b64, &mut EllipsoidWarmStart::default());
        let c32 = ec32.solve(&x.a32, &x.b32, &mut EllipsoidWarmStart::default());
        let d64 = ed64.solve(&x.a64, &x.b64, &mut EllipsoidWarmStart::default());
        let d32 = ed32.solve(&x.a32, &x.b32, &mut EllipsoidWarmStart::default());
        it_c64.push(iterations(&c64));
        it_c32.push(iterations(&c32));
        it_d64.push(iterations(&d64));
        it_d32.push(iterations(&d32));
        for (k, (label, hit)) in [
            ("collision f64", c64.is_penetrating()),
            ("collision f32", c32.is_penetrating()),
            ("distance f64", d64.is_penetrating()),
            ("distance f32", d32.is_penetrating()),
        ]
        .iter()
        .enumerate()
        {
            if hit.is_none() {
                undet[k] += 1;
                let dbg = match k {
                    0 => format!("{c64:?}"),
                    1 => format!("{c32:?}"),
                    2 => format!("{d64:?}"),
                    _ => format!("{d32:?}"),
                };
                let msg = format!("UNDETERMINED {name} instance {i} (s = {:+.6}) {label}: {dbg}", x.s);
                println!("!!! {msg}");
                rep.alarms.push(msg);
            }
        }
        let mut cache = GjkWarmStart::default();
        let g64 = gjk::intersect(&x.a64, &x.b64, &b64, &mut cache).is_penetrating();
        it_gjk.push(cache.iterations);
        let g32 = gjk::intersect(&x.a32, &x.b32, &b32, &mut GjkWarmStart::default()).is_penetrating();
        gjk_undet += g64.is_none() as usize;
        if x.s.abs() >= 1e-6 {
            if let (Some(e), Some(g)) = (c64.is_penetrating(), g64) {
                if e != g {
                    dis64 += 1;
                    let msg = format!(
                        "DISAGREE {name} instance {i} (s = {:+.6}): ellipsoid f64 {e}, GJK f64 {g}; {c64:?}",
                        x.s
                    );
                    println!("!!! {msg}");
                    rep.alarms.push(msg);
                }
            }
            wrong_truth += (c64.is_penetrating().is_some_and(|e| e != (x.s < 0.0))) as usize;
        }
        if let (Some(e), Some(g)) = (c32.is_penetrating(), g32) {
            if e != g {
                if x.gap.abs() < 1e-3 {
                    near32 += 1;
                } else {
                    dis32 += 1;
                    let msg = format!(
                        "DISAGREE {name} instance {i} (s = {:+.6}): ellipsoid f32 {e}, GJK f32 {g}; {c32:?}",
                        x.s
                    );
                    println!("!!! {msg}");
                    rep.alarms.push(msg);
                }
            }
        }
        if work.parry_exact && x.s.abs() >= 1e-4 {
            let p = parry3d::query::intersection_test(&x.pa, &*work.parry[x.ia], &x.pb, &*work.parry[x.ib]);
            parry_wrong += p.map_or(true, |r| r.intersecting != (x.s < 0.0)) as usize;
        }
        // Distance sanity against GJK (separated) and GJK + EPA (penetrating).
        if let Some(c) = d64.contact() {
            match contact::contact(&x.a64, &x.b64, &Budget::default(), &mut GjkWarmStart::default()) {
                Proximity::Separated(sp) if x.s > 1e-6 => {
                    let e = c.signed_distance() - sp.distance;
                    sep_lo = sep_lo.min(e);
                    sep_hi = sep_hi.max(e);
                    sep_sum += e;
                    n_sep += 1;
                }
                Proximity::Penetrating(p) if x.s < -1e-6 => {
                    let e = -c.signed_distance() - p.depth;
                    pen_hi = pen_hi.max(e);
                    pen_sum += e;
                    n_pen += 1;
                }
                _ => {}
            }
        }
    }
    rep.iters.push(format!(
        "{name:<12} {:>12} {:>12} {:>12} {:>12} {:>10} {:>13} {:>8} {:>9} {:>6} {:>6}",
        mean_max(&it_c64),
        mean_max(&it_c32),
        mean_max(&it_d64),
        mean_max(&it_d32),
        mean_max(&it_gjk),
        format!("{}/{}/{}/{}", undet[0], undet[1], undet[2], undet[3]),
        dis64,
        format!("{dis32}/{near32}"),
        wrong_truth,
        if work.parry_exact { parry_wrong.to_string() } else { "n/a".into() },
    ));
    if gjk_undet > 0 {
        rep.alarms.push(format!("{name}: our f64 GJK intersect undetermined on {gjk_undet} instances"));
    }
    let acc = if exact { "exact" } else { "lower bound" };
    rep.sanity.push(format!(
        "{name:<12} {acc:<12} {n_sep:>5} {sep_lo:>+11.2e} {sep_hi:>+11.2e} {:>+11.2e} {n_pen:>5} {pen_hi:>+11.2e} {:>+11.2e}",
        sep_sum / n_sep.max(1) as f64,
        pen_sum / n_pen.max(1) as f64
    ));
    if exact && (sep_lo < -1e-5 || sep_hi > 1e-5 || pen_hi > 1e-5) {
        rep.alarms.push(format!(
            "{name}: exact SDFs but ellipsoid distance off GJK/EPA: 2φ − d in [{sep_lo:e}, {sep_hi:e}], 2r − depth ≤ {pen_hi:e}"
        ));
    }
    if !exact && sep_hi > 1e-5 {
        rep.alarms.push(format!("{name}: lower-bound SDFs but ellipsoid distance above GJK's by {sep_hi:e}"));
    }

    // --- 1. Per-instance shares. --------------------------------------------
    let all: Vec<usize> = (0..inst.len()).collect();
    let pa = &work.parry;
    let mut hit: Vec<Probe<'_>> = vec![
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ = black_box(ec64.solve(black_box(&x.a64), black_box(&x.b64), &mut EllipsoidWarmStart::default()));
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ =
                    black_box(gjk::intersect(black_box(&x.a64), black_box(&x.b64), &b64, &mut GjkWarmStart::default()));
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ = black_box(mpr::intersect(black_box(&x.a64), black_box(&x.b64), &b64));
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                black_box(parry3d::query::intersection_test(black_box(&x.pa), &*pa[x.ia], &x.pb, &*pa[x.ib]).ok());
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ = black_box(ec32.solve(black_box(&x.a32), black_box(&x.b32), &mut EllipsoidWarmStart::default()));
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ =
                    black_box(gjk::intersect(black_box(&x.a32), black_box(&x.b32), &b32, &mut GjkWarmStart::default()));
            }
        }),
    ];
    let t = time_instances(&all, &mut hit, kn);
    drop(hit);
    let stand_in = if work.parry_exact { "" } else { "*" };
    rep.shares.push(format!(
        "{name:<12} {:>5} {:>11} {:>7} {:>11} {:>11} {:>11}",
        inst.len(),
        share(&t[0], &t[1]),
        work.paper.map_or("-".into(), |p| format!("{p:.1}%")),
        share(&t[0], &t[2]),
        format!("{}{stand_in}", share(&t[0], &t[3])),
        share(&t[4], &t[5]),
    ));
    rep.hit_times.push(format!(
        "{name:<12} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>8.2} {:>8.2}",
        median(&t[0]),
        median(&t[1]),
        median(&t[2]),
        median(&t[3]),
        median(&t[4]),
        median(&t[5]),
        median(&t[0]) / median(&t[1]),
        median(&t[4]) / median(&t[5]),
    ));

    let sep: Vec<usize> = all.iter().copied().filter(|&i| inst[i].s > 0.0).collect();
    let pen: Vec<usize> = all.iter().copied().filter(|&i| inst[i].s < 0.0).collect();
    let ed = |i: usize, m: usize| {
        let x = &inst[i];
        for _ in 0..m {
            let _ = black_box(ed64.solve(black_box(&x.a64), black_box(&x.b64), &mut EllipsoidWarmStart::default()));
        }
    };
    let mut sep_probes: Vec<Probe<'_>> = vec![
        Box::new(ed),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ =
                    black_box(gjk::distance(black_box(&x.a64), black_box(&x.b64), &b64, &mut GjkWarmStart::default()));
            }
        }),
    ];
    let ts = time_instances(&sep, &mut sep_probes, kn);
    drop(sep_probes);
    let mut pen_probes: Vec<Probe<'_>> = vec![
        Box::new(ed),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ = black_box(mpr::penetration(black_box(&x.a64), black_box(&x.b64), &b64));
            }
        }),
        Box::new(|i, m| {
            let x = &inst[i];
            for _ in 0..m {
                let _ = black_box(contact::contact(
                    black_box(&x.a64),
                    black_box(&x.b64),
                    &b64,
                    &mut GjkWarmStart::default(),
                ));
            }
        }),
    ];
    let tp = time_instances(&pen, &mut pen_probes, kn);
    drop(pen_probes);
    rep.dist.push(format!(
        "{name:<12} {:>4} {:>9} {:>9.0} {:>9.0} {:>4} {:>9} {:>9} {:>9.0} {:>9.0} {:>9.0}",
        sep.len(),
        share(&ts[0], &ts[1]),
        median(&ts[0]),
        median(&ts[1]),
        pen.len(),
        share(&tp[0], &tp[1]),
        share(&tp[0], &tp[2]),
        median(&tp[0]),
        median(&tp[1]),
        median(&tp[2]),
    ));

    // --- 3. Warm vs cold on trajectories. -------------------------------------
    let frames: usize = traj.iter().map(Vec::len).sum();
    let (mut itc, mut itw, mut diff) = (vec![], vec![], 0.0_f64);
    let mut worst = None;
    for (ti, tr) in traj.iter().enumerate() {
        let mut warm = EllipsoidWarmStart::default();
        for (f, x) in tr.iter().enumerate() {
            if f > 0 {
                warm.moved(x.moved);
            }
            let c = ed64.solve(&x.a64, &x.b64, &mut EllipsoidWarmStart::default());
            let w = ed64.solve(&x.a64, &x.b64, &mut warm);
            itc.push(iterations(&c));
            itw.push(iterations(&w));
            match (c.contact(), w.contact()) {
                (Some(c), Some(w)) => {
                    let d = (c.signed_distance() - w.signed_distance()).abs();
                    if d > diff {
                        diff = d;
                        worst = Some((ti, f, x.s, *c, *w));
                    }
                }
                _ => {
                    let msg =
                        format!("UNDETERMINED {name} trajectory frame {f} (s = {:+.6}): cold {c:?} warm {w:?}", x.s);
                    println!("!!! {msg}");
                    rep.alarms.push(msg);
                }
            }
        }
    }
    // One sample = every frame of every trajectory in order; min over k.
    // Hints only: a cold start each frame that keeps the previous query's
    // Algorithm 4 face hints (separates the hints from the warm region).
    let mut it_hint = vec![];
    for tr in traj {
        let mut hints = EllipsoidWarmStart::default();
        for x in tr {
            let mut w = with_hints(&hints);
            it_hint.push(iterations(&ed64.solve(&x.a64, &x.b64, &mut w)));
            hints = w;
        }
    }
    let mut variants: Vec<Pass<'_, Inst<S32, S64>>> = vec![
        Box::new(|tr| {
            for x in tr {
                let _ = black_box(ed64.solve(black_box(&x.a64), black_box(&x.b64), &mut EllipsoidWarmStart::default()));
            }
        }),
        Box::new(|tr| {
            let mut warm = EllipsoidWarmStart::default();
            for (f, x) in tr.iter().enumerate() {
                if f > 0 {
                    warm.moved(x.moved);
                }
                let _ = black_box(ed64.solve(black_box(&x.a64), black_box(&x.b64), &mut warm));
            }
        }),
        Box::new(|tr| {
            let mut hints = EllipsoidWarmStart::default();
            for x in tr {
                let mut w = with_hints(&hints);
                let _ = black_box(ed64.solve(black_box(&x.a64), black_box(&x.b64), &mut w));
                hints = w;
            }
        }),
        Box::new(|tr| {
            for x in tr {
                let _ =
                    black_box(gjk::distance(black_box(&x.a64), black_box(&x.b64), &b64, &mut GjkWarmStart::default()));
            }
        }),
        Box::new(|tr| {
            let mut cache = GjkWarmStart::default();
            for x in tr {
                let _ = black_box(gjk::distance(black_box(&x.a64), black_box(&x.b64), &b64, &mut cache));
            }
        }),
    ];
    let t = time_passes(traj, kn.samples.max(3), &mut variants);
    drop(variants);
    let [e_cold, e_warm, e_hint, g_cold, g_warm] = [t[0], t[1], t[2], t[3], t[4]];
    let mean_moved = traj.iter().flat_map(|t| t.iter().skip(1)).map(|x| x.moved).sum::<f64>()
        / traj.iter().map(|t| t.len().saturating_sub(1)).sum::<usize>().max(1) as f64;
    rep.warm.push(format!(
        "{name:<12} {frames:>6} {mean_moved:>8.4} {e_cold:>9.0} {e_warm:>9.0} {:>6.2} {e_hint:>9.0} {:>10} {:>10} {:>10} {diff:>9.1e} {g_cold:>9.0} {g_warm:>9.0} {:>6.2}",
        e_warm / e_cold,
        mean_max(&itc),
        mean_max(&itw),
        mean_max(&it_hint),
        g_warm / g_cold,
    ));
    if let Some((ti, f, s, c, w)) = worst.filter(|_| diff > 1e-6) {
        let x = &traj[ti][f];
        let truth = match contact::contact(&x.a64, &x.b64, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Separated(sp) => format!("GJK distance {:.6e}", sp.distance),
            Proximity::Penetrating(p) => format!("EPA depth {:.6e}", p.depth),
            Proximity::Undetermined { .. } => "GJK/EPA undetermined".into(),
        };
        rep.warm.push(format!(
            "  {name} worst |warm - cold|: trajectory {ti} frame {f} (s = {s:+.4}): 2φ cold {:.6e} [{:.3e}, {:.3e}] it {}, warm {:.6e} [{:.3e}, {:.3e}] it {}; {truth}",
            c.signed_distance(),
            2.0 * c.bounds.lower,
            2.0 * c.bounds.upper,
            c.iterations,
            w.signed_distance(),
            2.0 * w.bounds.lower,
            2.0 * w.bounds.upper,
            w.iterations,
        ));
        // Each optimum under the other run's certificate: φ_AB = max(φ_A, φ_B)
        // re-evaluated (face hints from 0) at the other run's point.
        let phi = |p: &Vector3<f64>| Sdf::<f64, 3>::eval(&x.a64, p).value.max(Sdf::<f64, 3>::eval(&x.b64, p).value);
        let (at_w, at_c) = (phi(&w.x), phi(&c.x));
        let note = |v: f64, lower: f64| if v < lower { "BELOW that lower bound" } else { "ok" };
        rep.warm.push(format!(
            "    2φ_AB(x_warm) = {:.6e} vs cold lower {:.6e}: {}; 2φ_AB(x_cold) = {:.6e} vs warm lower {:.6e}: {}",
            2.0 * at_w,
            2.0 * c.bounds.lower,
            note(at_w, c.bounds.lower),
            2.0 * at_c,
            2.0 * w.bounds.lower,
            note(at_c, w.bounds.lower),
        ));
    }
}

// ---------------------------------------------------------------------------
// criterion groups.

struct Case<'a> {
    group: String,
    id: &'static str,
    n: usize,
    run: Box<dyn FnMut() + 'a>,
}

fn cases<'a, S32, S64>(work: &'a Work<S32, S64>, inst: &'a [Inst<S32, S64>]) -> Vec<Case<'a>>
where
    S32: SupportMap<f32> + Sdf<f32, 3> + Copy,
    S64: SupportMap<f64> + Sdf<f64, 3> + Copy,
{
    let (ec64, ed64) = (EllipsoidMethod::<f64>::collision(), EllipsoidMethod::<f64>::distance());
    let ec32 = EllipsoidMethod::<f32>::collision();
    let (b64, b32) = (budget64(), Budget::<f32>::default());
    let pa = &work.parry;
    let n = inst.len();
    let hit = format!("{}_hit", work.name);
    let dist = format!("{}_dist", work.name);
    let case = |group: &String, id: &'static str, run: Box<dyn FnMut() + 'a>| Case { group: group.clone(), id, n, run };
    vec![
        case(
            &hit,
            "ellipsoid_f32",
            Box::new(move || {
                for x in inst {
                    let _ =
                        black_box(ec32.solve(black_box(&x.a32), black_box(&x.b32), &mut EllipsoidWarmStart::default()));
                }
            }),
        ),
        case(
            &hit,
            "ellipsoid_f64",
            Box::new(move || {
                for x in inst {
                    let _ =
                        black_box(ec64.solve(black_box(&x.a64), black_box(&x.b64), &mut EllipsoidWarmStart::default()));
                }
            }),
        ),
        case(
            &hit,
            "gjk_f32",
            Box::new(move || {
                for x in inst {
                    let _ = black_box(gjk::intersect(
                        black_box(&x.a32),
                        black_box(&x.b32),
                        &b32,
                        &mut GjkWarmStart::default(),
                    ));
                }
            }),
        ),
        case(
            &hit,
            "gjk_f64",
            Box::new(move || {
                for x in inst {
                    let _ = black_box(gjk::intersect(
                        black_box(&x.a64),
                        black_box(&x.b64),
                        &b64,
                        &mut GjkWarmStart::default(),
                    ));
                }
            }),
        ),
        case(
            &hit,
            "mpr_f64",
            Box::new(move || {
                for x in inst {
                    let _ = black_box(mpr::intersect(black_box(&x.a64), black_box(&x.b64), &b64));
                }
            }),
        ),
        case(
            &hit,
            "parry",
            Box::new(move || {
                for x in inst {
                    black_box(parry3d::query::intersection_test(black_box(&x.pa), &*pa[x.ia], &x.pb, &*pa[x.ib]).ok());
                }
            }),
        ),
        case(
            &dist,
            "ellipsoid_f64",
            Box::new(move || {
                for x in inst {
                    let _ =
                        black_box(ed64.solve(black_box(&x.a64), black_box(&x.b64), &mut EllipsoidWarmStart::default()));
                }
            }),
        ),
        case(
            &dist,
            "gjk_f64",
            Box::new(move || {
                for x in inst {
                    let _ = black_box(gjk::distance(
                        black_box(&x.a64),
                        black_box(&x.b64),
                        &b64,
                        &mut GjkWarmStart::default(),
                    ));
                }
            }),
        ),
        case(
            &dist,
            "contact_f64",
            Box::new(move || {
                for x in inst {
                    let _ = black_box(contact::contact(
                        black_box(&x.a64),
                        black_box(&x.b64),
                        &b64,
                        &mut GjkWarmStart::default(),
                    ));
                }
            }),
        ),
        case(
            &dist,
            "parry",
            Box::new(move || {
                for x in inst {
                    black_box(parry3d::query::distance(black_box(&x.pa), &*pa[x.ia], &x.pb, &*pa[x.ib]).ok());
                }
            }),
        ),
    ]
}

/// (group, id, queries per iteration) registered with criterion.
type Registry = Vec<(String, String, f64)>;

fn drive(c: &mut Criterion, reg: &mut Registry, mut cases: Vec<Case<'_>>) {
    let mut i = 0;
    while i < cases.len() {
        let g = cases[i].group.clone();
        let mut group = c.benchmark_group(g.clone());
        group.sampling_mode(SamplingMode::Flat).sample_size(10).throughput(Throughput::Elements(cases[i].n as u64));
        while i < cases.len() && cases[i].group == g {
            let case = &mut cases[i];
            reg.push((g.clone(), case.id.to_string(), case.n as f64));
            group.bench_function(case.id, |b| b.iter(&mut case.run));
            i += 1;
        }
        group.finish();
    }
}

fn print_table(dir: &Path, reg: &Registry, since: SystemTime) {
    let rows: Vec<(String, String, f64)> = reg
        .iter()
        .filter_map(|(g, id, n)| median_ns(dir, g, id, since).map(|ns| (g.clone(), id.clone(), ns / n)))
        .collect();
    if rows.is_empty() {
        return;
    }
    println!("\n## criterion: median ns per query (median per iteration / instances); ratio = ellipsoid / GJK (same precision)");
    println!("{:<18} {:<14} {:>10} {:>8}", "group", "impl", "ns/query", "ell/gjk");
    for (g, id, ns) in &rows {
        let ratio = id
            .strip_prefix("ellipsoid_")
            .and_then(|p| rows.iter().find(|r| r.0 == *g && r.1 == format!("gjk_{p}")))
            .map_or(String::new(), |r| format!("{:.2}", ns / r.2));
        println!("{g:<18} {id:<14} {ns:>10.1} {ratio:>8}");
    }
}

// ---------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn run<S32, S64>(c: &mut Criterion, reg: &mut Registry, rep: &mut Report, kn: &Knobs, work: Work<S32, S64>, seed: u64)
where
    S32: SupportMap<f32> + Sdf<f32, 3> + Copy,
    S64: SupportMap<f64> + Sdf<f64, 3> + Bounded<f64> + Copy,
{
    let t0 = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let inst = work.random(&mut rng, kn.poses);
    let traj = work.trajectories(&mut rng, kn);
    let pen = inst.iter().filter(|x| x.s < 0.0).count();
    println!(
        "== {}: {} instances ({pen} penetrating), {} trajectories × {} frames",
        work.name,
        inst.len(),
        traj.len(),
        kn.frames
    );
    protocol(&work, &inst, &traj, kn, rep);
    println!("   paper protocol and checks: {:.1} s", t0.elapsed().as_secs_f64());
    if kn.criterion {
        drive(c, reg, cases(&work, &inst));
    }
}

fn primitive<S32, S64>(
    name: &str,
    s: (S32, S64, Box<dyn PShape>),
    fix: Rotation3<f64>,
    exact: bool,
    paper: Option<f64>,
) -> Work<S32, S64> {
    Work { name: name.into(), s32: vec![s.0], s64: vec![s.1], parry: vec![s.2], fix, parry_exact: exact, paper }
}

fn main() {
    let start = Instant::now();
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let since = SystemTime::now();
    let kn = knobs();
    let only: Option<Vec<String>> = std::env::var("ELLIPSOID_BENCH_ONLY")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| v.split(',').map(|w| w.trim().to_string()).collect());
    let wanted = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|w| w == name));
    println!("knobs: {kn:?}");
    let (mut reg, mut rep) = (Registry::new(), Report::default());
    let id = Rotation3::identity();
    let half = Vector3::new(1.0, 2.0 / 3.0, 1.0 / 3.0);

    if wanted("box") {
        let s = (
            Cuboid::new(half.cast::<f32>()).unwrap(),
            Cuboid::new(half).unwrap(),
            Box::new(parry3d::shape::Cuboid::new(pvec(&half))) as Box<dyn PShape>,
        );
        run(&mut c, &mut reg, &mut rep, &kn, primitive("box", s, id, true, None), 31);
    }
    if wanted("rounded_box") {
        let r = 0.1;
        let inner = half.add_scalar(-r);
        let s = (
            MinkowskiSum::new(Cuboid::new(inner.cast::<f32>()).unwrap(), Sphere::new(r as f32).unwrap()),
            MinkowskiSum::new(Cuboid::new(inner).unwrap(), Sphere::new(r).unwrap()),
            Box::new(parry3d::shape::RoundCuboid {
                inner_shape: parry3d::shape::Cuboid::new(pvec(&inner)),
                border_radius: r as f32,
            }) as Box<dyn PShape>,
        );
        run(&mut c, &mut reg, &mut rep, &kn, primitive("rounded_box", s, id, true, Some(78.6)), 32);
    }
    if wanted("cone") {
        let s = (
            Cone::new(0.5_f32, 0.5).unwrap(),
            Cone::new(0.5_f64, 0.5).unwrap(),
            Box::new(parry3d::shape::Cone::new(0.5, 0.5)) as Box<dyn PShape>,
        );
        let y_to_z = Rotation3::from_axis_angle(&Vector3::x_axis(), FRAC_PI_2);
        run(&mut c, &mut reg, &mut rep, &kn, primitive("cone", s, y_to_z, true, None), 33);
    }
    if wanted("ellipsoid") {
        let s = (
            Ellipsoid::new(half.cast::<f32>()).unwrap(),
            Ellipsoid::new(half).unwrap(),
            parry_hull(&ellipsoid_points(half, ELLIPSOID_HULL_POINTS)),
        );
        run(&mut c, &mut reg, &mut rep, &kn, primitive("ellipsoid", s, id, false, Some(81.3)), 34);
    }
    for (k, (n, paper)) in [(50usize, 48.8), (200, 58.5), (500, 80.4), (1000, 94.5)].into_iter().enumerate() {
        let name = format!("poly{n}");
        if !wanted(&name) {
            continue;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(1000 + n as u64);
        let points: Vec<Vec<Point3<f64>>> = (0..POOL).map(|_| polytope_points(&mut rng, n)).collect();
        let owned64: Vec<OwnedPolytope<f64>> = points.iter().map(|p| quickhull(p).expect("quickhull f64")).collect();
        let owned32: Vec<OwnedPolytope<f32>> = points
            .iter()
            .map(|p| quickhull(&p.iter().map(|x| x.cast()).collect::<Vec<Point3<f32>>>()).expect("quickhull f32"))
            .collect();
        let work = Work {
            name,
            s32: owned32.iter().map(|o| o.polytope().expect("polytope f32")).collect(),
            s64: owned64.iter().map(|o| o.polytope().expect("polytope f64")).collect(),
            parry: points.iter().map(|p| parry_hull(p)).collect(),
            fix: id,
            parry_exact: true,
            paper: Some(paper),
        };
        run(&mut c, &mut reg, &mut rep, &kn, work, 41 + k as u64);
    }

    if kn.criterion {
        c.final_summary();
        print_table(&dir, &reg, since);
    }
    let Report { shares, hit_times, dist, warm, iters, sanity, alarms } = rep;
    println!(
        "\n## 1. Collision, per instance (min over k = {} samples of m = {} evaluations): share where the ellipsoid method is faster",
        kn.samples, kn.evals
    );
    println!(
        "{:<12} {:>5} {:>11} {:>7} {:>11} {:>11} {:>11}",
        "workload", "inst", "E64<GJK64", "paper", "E64<MPR64", "E64<parry", "E32<GJK32"
    );
    shares.iter().for_each(|l| println!("{l}"));
    println!("(* parry: a {ELLIPSOID_HULL_POINTS}-point hull stand-in, not the same geometry)");
    println!("\nmedian over instances of the per-instance time, ns");
    println!(
        "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "workload", "E64", "GJK64", "MPR64", "parry", "E32", "GJK32", "E64/GJK", "E32/GJK"
    );
    hit_times.iter().for_each(|l| println!("{l}"));
    println!("\n## 1b. Distance / penetration, per instance: ellipsoid distance() (E) vs GJK distance (separated), MPR penetration and GJK+EPA contact (penetrating)");
    println!(
        "{:<12} {:>4} {:>9} {:>9} {:>9} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "workload", "sep", "E<GJK", "E ns", "GJK ns", "pen", "E<MPR", "E<EPA", "E ns", "MPR ns", "EPA ns"
    );
    dist.iter().for_each(|l| println!("{l}"));
    println!("\n## 3. Warm vs cold, ellipsoid distance() f64 on trajectories (ns per query: min over samples of a pass over all frames; iterations mean/max)");
    println!(
        "{:<12} {:>6} {:>8} {:>9} {:>9} {:>6} {:>9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>6}",
        "workload",
        "frames",
        "moved",
        "E cold",
        "E warm",
        "w/c",
        "E hints",
        "it cold",
        "it warm",
        "it hints",
        "|Δ2φ|max",
        "GJK cold",
        "GJK warm",
        "w/c"
    );
    warm.iter().for_each(|l| println!("{l}"));
    println!("\n## 4. Iterations (mean/max), undetermined and agreement");
    println!(
        "{:<12} {:>12} {:>12} {:>12} {:>12} {:>10} {:>13} {:>8} {:>9} {:>6} {:>6}",
        "workload",
        "hit E64",
        "hit E32",
        "dist E64",
        "dist E32",
        "hit GJK64",
        "undet h/h/d/d",
        "E64≠GJK",
        "E32≠G32/n",
        "E64≠s",
        "parry≠s"
    );
    iters.iter().for_each(|l| println!("{l}"));
    println!("(undet: collision f64/f32, distance f64/f32; E64≠GJK: flags of f64 ellipsoid vs f64 GJK intersect, |s| ≥ 1e-6;");
    println!(" E32≠G32/n: f32 flags, |s·R̄| ≥ 1e-3 / near contact; E64≠s: vs the construction, |s| ≥ 1e-6; parry≠s: |s| ≥ 1e-4)");
    println!("\n## 4b. Distance sanity: ellipsoid distance() f64 vs our GJK/EPA (f64, default budget)");
    println!(
        "{:<12} {:<12} {:>5} {:>11} {:>11} {:>11} {:>5} {:>11} {:>11}",
        "workload", "SDF", "sep", "min 2φ-d", "max 2φ-d", "mean 2φ-d", "pen", "max 2r-dep", "mean 2r-dep"
    );
    sanity.iter().for_each(|l| println!("{l}"));
    println!("(exact SDFs: 2φ = d apart; 2r ≤ EPA depth overlapping. Lower bounds: 2φ ≤ d apart)");
    if alarms.is_empty() {
        println!("\nno undetermined answers, no disagreements");
    } else {
        println!("\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
        println!("!!! {} ALARMS (undetermined answers / disagreements / wrong distances):", alarms.len());
        alarms.iter().for_each(|a| println!("!!! {a}"));
        println!("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
    }
    println!("\ntotal run time {:.0} s", start.elapsed().as_secs_f64());
}
