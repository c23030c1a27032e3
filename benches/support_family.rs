//! Support-map family (GJK, EPA, MPR) against parry3d 0.31, libccd 2.1 and,
//! when installed, coal 3.0 in one criterion run (ARCHITECTURE.md §6).
//!
//! # Workloads
//! - `polyN`: the protocol of ellipsoid-method-sdf-collision §5.1 — convex
//!   hulls (our `hull::quickhull`; parry's own `ConvexPolyhedron::from_convex_hull`
//!   of the same points) of N = 50, 200, 500, 1000 points uniform on the unit
//!   sphere, axes scaled 3:2:1; pairs drawn from a pool of [`POOL`] hulls.
//! - `box`, `capsule`, `sphere_box` (a ball against a box), `cyl_cone` (a
//!   cylinder against a cone), `cylinder` (two cylinders), `sphere_cyl` (a
//!   ball against a cylinder), `ellipsoid`, `sphere` (two balls) and
//!   `sphere_capsule` (a ball against a capsule).
//!   parry has no ellipsoid: its column there is a convex hull of
//!   [`ELLIPSOID_HULL_POINTS`] surface points (different geometry and cost; not
//!   a like-for-like ratio).
//! - `hull_capsule`: 200-point hulls (as `poly200`) against a capsule, the
//!   pair a robot controller asks most (a link against a limb).
//!
//! # Poses
//! Random rotations for both bodies, a random direction `u`; B is first moved
//! along `u` to the touching position `t₁` (bisection on our f64 GJK), then by
//! `s · R̄` more, `s` uniform in [−0.05, 0.05] and `R̄` the mean bounding-sphere
//! radius. So `s > 0` is separated (distance ≤ s·R̄) and `s < 0` penetrating
//! (depth ≤ |s|·R̄). The `*_seq` groups use [`TRAJ`] slowly moving sequences of
//! [`FRAMES`] frames (small rotations per frame, `s` oscillating in the same
//! range) for warm starts.
//!
//! # Queries (criterion groups `<workload>_<query>`)
//! - `dist` (all random poses): ours `gjk::distance` cold (f32), parry3d
//!   `query::distance`; for `box` also `parry_gjk` (parry's generic GJK — its
//!   `query::distance` has a dedicated cuboid–cuboid routine).
//! - `seq` (trajectories): ours cold, ours warm (one `GjkWarmStart` per pair,
//!   reset at the first frame), parry3d `query::distance`.
//! - `hit` (all random poses): ours `gjk::intersect` and `mpr::intersect`
//!   (f32 and f64), parry3d `query::intersection_test`, libccd
//!   `ccdGJKIntersect` and `ccdMPRIntersect` (f64 only).
//! - `pen` (the penetrating poses): ours `contact` (GJK + EPA) and
//!   `mpr::penetration` (f32, f64), parry3d `query::contact` (prediction 0),
//!   libccd `ccdGJKPenetration` (GJK + EPA) and `ccdMPRPenetration`.
//!
//! libccd is given our f64 support maps (with the same hill-climbing hints our
//! queries use), so it measures its algorithms, not its shapes.
//!
//! coal (through `benches/coal-ffi`, f64, only when coal is installed; else
//! the bench prints why and leaves its rows out) gets its own shapes of the
//! same geometry (its `Convex<Triangle>` from our f64 hulls' vertices and
//! fanned faces) at the same poses (rotation matrix and translation), and is
//! called as pinocchio calls it: one `ComputeDistance` / `ComputeCollision`
//! functor per shape pair, coal's default requests (GJK and EPA tolerance
//! 1e-6), guesses reset before every cold query. Rows `coal` (default GJK)
//! and `coal_nesterov` (Nesterov-accelerated GJK):
//! - `dist`: `enable_signed_distance = false` (GJK only), against
//!   `ours_f64_cold` (our f64 GJK at coal's tolerance, [`budget_vs_coal`]);
//!   on round pairs and boxes also `ours_contact_f64` (`contact`: the
//!   cores' distance in closed form, radii added, or the boxes' separating
//!   axes; coal's capsule–capsule distance is closed-form too);
//! - `seq`: `coal_warm`, `coal_nesterov_warm` (`GJKInitialGuess::CachedGuess`
//!   and support hints carried along each trajectory) against `ours_f64_warm`;
//! - `hit`: `collide` with `enable_contact = false` and `distance_upper_bound
//!   = 0` (GJK stops at its first separating plane; coal's default request
//!   runs GJK to the distance), against `ours_gjk_f64` and `ours_below_f64`
//!   (`gjk::distance_below` at 0: the same yes/no, answered with bounds
//!   instead of the simplex EPA starts from);
//! - `pen`: `enable_signed_distance = true` (GJK + EPA), against
//!   `ours_epa_f64_tol1e-6` (`contact` at coal's tolerance) and `ours_epa_f64`.
//!
//! Each criterion iteration runs every pose of the set once; the table printed
//! at the end divides criterion's median by the number of poses (time per
//! query). Iteration counts and the agreement checks are printed before timing.
//!
//! ```text
//! cargo bench --features std --bench support_family -- --warm-up-time 1 --measurement-time 3
//! # only some workloads:
//! SUPPORT_FAMILY_ONLY=poly50,box cargo bench --features std --bench support_family
//! # interleaved timing (every case of a group once per round, R rounds,
//! # medians; a round is one pass over the poses, well under a millisecond
//! # a case, so it takes hundreds of rounds to steady the medians): robust
//! # ratios on a loaded machine, ~2 min for everything at the default 301.
//! # The rounds cycle through sixteen stack positions across a page (see
//! # `at_stack_position`). Ratios still move by a few percent from one
//! # process to the next (code placement, the machine's load): the
//! # documented figures are the medians of three runs.
//! SUPPORT_FAMILY_MODE=paired taskset -c 1 cargo bench --features std --bench support_family
//! # one case alone, for callgrind (instructions per query = Ir / (REPS · poses)):
//! SUPPORT_FAMILY_ONLY=poly50 SUPPORT_FAMILY_MODE=profile:poly50_dist/ours_f32_cold:4 \
//!   valgrind --tool=callgrind --toggle-collect='*profile_loop*' target/release/deps/support_family-<hash>
//! ```

use std::cell::Cell;
use std::f64::consts::{FRAC_PI_2, TAU};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, SystemTime};

use ccd_ffi::{Ccd, Convex};
use coal_ffi::{Gjk as CoalGjk, Pair as CoalPair, Shape as CoalShape, Transform as CoalTf};
use criterion::{Criterion, SamplingMode, Throughput};
use nalgebra::{Point3, Rotation3, Unit, Vector3};
use narrowphase::hull::{quickhull, OwnedPolytope};
use narrowphase::prelude::*;
use narrowphase::query::{Budget, Proximity};
use narrowphase::support::{contact, mpr};
use parry3d::math::Pose as PPose;
use parry3d::shape::Shape as PShape;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// Shared with the other bench of the §5.1 protocol (one module per purpose).
#[path = "common/coal_bodies.rs"]
mod coal_bodies;
#[path = "common/criterion_medians.rs"]
mod criterion_medians;
#[path = "common/pair_protocol.rs"]
mod pair_protocol;
#[path = "common/parry_bodies.rs"]
mod parry_bodies;
#[path = "common/stack_position.rs"]
mod stack_position;
use coal_bodies::{coal_convex, coal_tf};
use criterion_medians::{criterion_dir, median_ns};
use pair_protocol::{
    ellipsoid_points, pick, polytope_points, pose, rotation, touching, unit_vector, ELLIPSOID_HULL_POINTS, POOL, S_MAX,
};
use parry_bodies::{parry_hull, parry_pose, pvec};
use stack_position::at_stack_position;

/// Random poses per workload (`dist`, `hit`; `pen` uses the penetrating ones).
const POSES: usize = 500;
/// Trajectories × frames for the warm-start groups.
const TRAJ: usize = 25;
const FRAMES: usize = 20;

/// The budget of our f64 runs (the libccd comparison): libccd's default
/// `epa_tolerance`/`mpr_tolerance` 1e-4 as our relative tolerance. With the
/// f64 default (1000·ε ≈ 2.2e-13) EPA on curved bodies runs into its
/// iteration cap, as its docs say.
fn budget_vs_ccd() -> Budget<f64> {
    Budget::new(64, 1e-4)
}

/// The budget of our f64 rows against coal: coal's default tolerance 1e-6
/// (GJK and EPA) as our relative tolerance, and its GJK iteration cap 128.
fn budget_vs_coal() -> Budget<f64> {
    Budget::new(128, 1e-6)
}

// ---------------------------------------------------------------------------
// libccd sees our f64 shapes through their (hinted) support maps.

struct CcdBody<'a, S> {
    shape: &'a S,
    hint: Cell<SupportWarmStart>,
}

impl<'a, S> CcdBody<'a, S> {
    #[inline(always)]
    fn new(shape: &'a S) -> Self {
        Self { shape, hint: Cell::new(SupportWarmStart::COLD) }
    }
}

impl<S: SupportMap<f64>> Convex for CcdBody<'_, S> {
    #[inline]
    fn support(&self, d: [f64; 3]) -> [f64; 3] {
        let mut h = self.hint.get();
        let p = self.shape.support_hinted(&Vector3::from(d), &mut h);
        self.hint.set(h);
        [p.x, p.y, p.z]
    }
    #[inline]
    fn center(&self) -> [f64; 3] {
        let c = self.shape.center();
        [c.x, c.y, c.z]
    }
}

// ---------------------------------------------------------------------------
// Outcome helpers (the only places that look inside the result types).

fn gjk_signed<R: Real>(o: &GjkOutcome<R>) -> Option<f64> {
    match o {
        GjkOutcome::Separated(s) => Some(s.distance.to_f64()),
        GjkOutcome::Penetrating(_) => Some(0.0),
        GjkOutcome::Undetermined { .. } => None,
    }
}

fn mpr_hit<R: Real>(o: &mpr::MprOutcome<R>) -> Option<bool> {
    o.is_penetrating()
}

// ---------------------------------------------------------------------------
// Workloads.

/// The shapes of one workload: pools for bodies A and B in both precisions,
/// parry's versions, and the rotation from parry's local frame to ours (parry
/// puts capsule/cylinder/cone axes on +y, we on +z).
struct Spec<SA32, SB32, SA64, SB64> {
    name: String,
    a32: Vec<SA32>,
    b32: Vec<SB32>,
    a64: Vec<SA64>,
    b64: Vec<SB64>,
    pa: Vec<Box<dyn PShape>>,
    pb: Vec<Box<dyn PShape>>,
    fix_a: Rotation3<f64>,
    fix_b: Rotation3<f64>,
    /// parry's shape is the same geometry (false for the ellipsoid stand-in).
    parry_exact: bool,
    /// Also time parry's generic GJK (its dispatcher special-cases the pair).
    parry_gjk: bool,
    /// Pairs `contact` answers in closed form (round bodies: the cores'
    /// distance, radii added; two boxes: their separating axes): also time
    /// `contact` in the `dist` group against coal, whose capsule–capsule
    /// distance is closed-form.
    closed_form: bool,
    /// coal's shapes of the same geometry in our frames (empty without coal).
    coal_a: Vec<CoalShape>,
    coal_b: Vec<CoalShape>,
}

/// One pose set, ready for every library.
struct Pairs<SA32, SB32, SA64, SB64> {
    ours32: Vec<(Placed<SA32, f32>, Placed<SB32, f32>)>,
    ours64: Vec<(Placed<SA64, f64>, Placed<SB64, f64>)>,
    parry: Vec<(PPose, usize, PPose, usize)>,
    /// coal's transforms of A and B (our f64 poses) and the pool indices.
    coal: Vec<(CoalTf, usize, CoalTf, usize)>,
    /// Signed separation parameter, units of the mean bounding radius.
    s: Vec<f64>,
    /// `s · R̄`.
    gap: Vec<f64>,
    /// Poses where the bisection hit an undetermined GJK answer.
    shaky: usize,
}

impl<SA32, SB32, SA64, SB64> Pairs<SA32, SB32, SA64, SB64>
where
    SA32: Copy,
    SB32: Copy,
    SA64: Copy,
    SB64: Copy,
{
    fn new() -> Self {
        Self { ours32: vec![], ours64: vec![], parry: vec![], coal: vec![], s: vec![], gap: vec![], shaky: 0 }
    }
    fn len(&self) -> usize {
        self.s.len()
    }
    fn subset(&self, keep: impl Fn(usize) -> bool) -> Self {
        let idx: Vec<usize> = (0..self.len()).filter(|&i| keep(i)).collect();
        Self {
            ours32: idx.iter().map(|&i| self.ours32[i]).collect(),
            ours64: idx.iter().map(|&i| self.ours64[i]).collect(),
            parry: idx.iter().map(|&i| self.parry[i]).collect(),
            coal: idx.iter().map(|&i| self.coal[i]).collect(),
            s: idx.iter().map(|&i| self.s[i]).collect(),
            gap: idx.iter().map(|&i| self.gap[i]).collect(),
            shaky: self.shaky,
        }
    }
}

impl<SA32, SB32, SA64, SB64> Spec<SA32, SB32, SA64, SB64> {
    /// coal's functors for every (A, B) pair of the pools, indexed
    /// `ia · |B| + ib`; `None` without coal's shapes.
    fn coal_pairs(&self, gjk: CoalGjk) -> Option<Vec<CoalPair<'_>>> {
        if self.coal_a.is_empty() || self.coal_b.is_empty() {
            return None;
        }
        let mut out = vec![];
        for a in &self.coal_a {
            for b in &self.coal_b {
                out.push(CoalPair::new(a, b, gjk)?);
            }
        }
        Some(out)
    }
}

impl<SA32, SB32, SA64, SB64> Spec<SA32, SB32, SA64, SB64>
where
    SA32: SupportMap<f32> + Copy,
    SB32: SupportMap<f32> + Copy,
    SA64: SupportMap<f64> + Bounded<f64> + Copy,
    SB64: SupportMap<f64> + Bounded<f64> + Copy,
{
    /// Place one pair: A at `pose_a`, B rotated by `rot_b` and moved along `u`
    /// to touching plus `s · R̄`; counted in `out.shaky` when the bisection
    /// met an undetermined answer (the pose is still usable).
    fn place(
        &self,
        out: &mut Pairs<SA32, SB32, SA64, SB64>,
        (ia, ib): (usize, usize),
        pose_a: Pose<f64>,
        rot_b: Rotation3<f64>,
        u: Vector3<f64>,
        s: f64,
    ) {
        let a = Placed::new(self.a64[ia], pose_a);
        let o = pose_a.translation.vector;
        let r_mean = 0.5 * (self.a64[ia].bounding_sphere().1 + self.b64[ib].bounding_sphere().1);
        let (t1, shaky) = touching(&a, self.b64[ib], rot_b, u);
        let t = t1 + s * r_mean;
        let pose_b = pose(o + u * t, rot_b);
        out.ours64.push((a, Placed::new(self.b64[ib], pose_b)));
        out.ours32.push((
            Placed::new(self.a32[ia], nalgebra::convert(pose_a)),
            Placed::new(self.b32[ib], nalgebra::convert(pose_b)),
        ));
        out.parry.push((parry_pose(&pose_a, &self.fix_a), ia, parry_pose(&pose_b, &self.fix_b), ib));
        out.coal.push((coal_tf(&pose_a), ia, coal_tf(&pose_b), ib));
        out.s.push(s);
        out.gap.push(s * r_mean);
        out.shaky += shaky as usize;
    }

    fn pick(&self, rng: &mut impl Rng) -> (usize, usize) {
        pick(rng, self.a64.len(), self.b64.len())
    }

    fn random_pairs(&self, rng: &mut impl Rng) -> Pairs<SA32, SB32, SA64, SB64> {
        let mut out = Pairs::new();
        for _ in 0..POSES {
            let ids = self.pick(rng);
            let o = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            let (ra, rb, u) = (rotation(rng), rotation(rng), unit_vector(rng));
            let s = rng.random_range(-S_MAX..S_MAX);
            self.place(&mut out, ids, pose(o, ra), rb, u, s);
        }
        out
    }

    /// `TRAJ` sequences of `FRAMES` frames, stored frame-major per trajectory.
    fn trajectories(&self, rng: &mut impl Rng) -> Pairs<SA32, SB32, SA64, SB64> {
        let mut out = Pairs::new();
        for _ in 0..TRAJ {
            let ids = self.pick(rng);
            let o = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            let (ra, rb, u) = (rotation(rng), rotation(rng), unit_vector(rng));
            // ~0.6° per frame about fixed random axes; s oscillates in range.
            let wa = Rotation3::from_axis_angle(&Unit::new_normalize(unit_vector(rng)), 0.01);
            let wb = Rotation3::from_axis_angle(&Unit::new_normalize(unit_vector(rng)), 0.01);
            let phase = rng.random_range(0.0..TAU);
            let (mut ra_f, mut rb_f) = (ra, rb);
            for f in 0..FRAMES {
                let s = S_MAX * (phase + 0.3 * f as f64).sin();
                self.place(&mut out, ids, pose(o, ra_f), rb_f, u, s);
                ra_f = wa * ra_f;
                rb_f = wb * rb_f;
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------
// Checks printed once, outside timing.

/// GJK iterations along the trajectories (`FRAMES` frames each), cold and
/// warm-started from the previous frame, and the largest difference of the
/// two distances.
fn trajectory_iterations<R, A, B>(frames: &[(A, B)], budget: &Budget<R>) -> (Vec<u32>, Vec<u32>, f64)
where
    R: Real,
    A: SupportMap<R>,
    B: SupportMap<R>,
{
    let (mut it_c, mut it_w, mut warm_vs_cold) = (vec![], vec![], 0.0_f64);
    for tr in frames.chunks(FRAMES) {
        let mut warm = GjkWarmStart::default();
        for (a, b) in tr {
            let mut cold = GjkWarmStart::default();
            let dc = gjk_signed(&gjk::distance(a, b, budget, &mut cold));
            let dw = gjk_signed(&gjk::distance(a, b, budget, &mut warm));
            it_c.push(cold.iterations);
            it_w.push(warm.iterations);
            if let (Some(c), Some(w)) = (dc, dw) {
                warm_vs_cold = warm_vs_cold.max((c - w).abs());
            }
        }
    }
    (it_c, it_w, warm_vs_cold)
}

fn mean_max(xs: &[u32]) -> (f64, u32) {
    let m = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len().max(1) as f64;
    (m, xs.iter().copied().max().unwrap_or(0))
}

fn parry_distance(p: &(PPose, usize, PPose, usize), pa: &[Box<dyn PShape>], pb: &[Box<dyn PShape>]) -> f64 {
    parry3d::query::distance(&p.0, &*pa[p.1], &p.2, &*pb[p.3]).map(|d| d.distance as f64).unwrap_or(f64::NAN)
}

/// Largest |x − y| over pairs where both are known, with its index.
fn max_diff(xs: &[Option<f64>], ys: &[Option<f64>]) -> (f64, usize, usize) {
    let mut worst = (0.0, usize::MAX, 0);
    for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
        match (x, y) {
            (Some(x), Some(y)) => {
                let d = (x - y).abs();
                // A NaN difference counts as the worst.
                if d > worst.0 || d.is_nan() {
                    worst.0 = d;
                    worst.1 = i;
                }
            }
            _ => worst.2 += 1,
        }
    }
    worst
}

fn report_checks<SA32, SB32, SA64, SB64>(
    spec: &Spec<SA32, SB32, SA64, SB64>,
    poses: &Pairs<SA32, SB32, SA64, SB64>,
    seq: &Pairs<SA32, SB32, SA64, SB64>,
    pen: &Pairs<SA32, SB32, SA64, SB64>,
) where
    SA32: SupportMap<f32> + Copy,
    SB32: SupportMap<f32> + Copy,
    SA64: SupportMap<f64> + Copy,
    SB64: SupportMap<f64> + Copy,
{
    let budget32 = Budget::<f32>::default();
    let budget64 = Budget::<f64>::default();
    let name = &spec.name;
    println!("== {name}: {} random poses ({} penetrating), {} trajectory frames", poses.len(), pen.len(), seq.len());
    if poses.shaky + seq.shaky > 0 {
        println!("   pose bisection met {} undetermined f64 GJK answers", poses.shaky + seq.shaky);
    }

    // Support-function agreement with parry (same geometry, same frames).
    if spec.parry_exact {
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let mut worst: f64 = 0.0;
        for (k, p) in poses.parry.iter().enumerate().take(50) {
            let sa = spec.pa[p.1].as_support_map().expect("parry support map");
            let sb = spec.pb[p.3].as_support_map().expect("parry support map");
            for _ in 0..8 {
                let d = unit_vector(&mut rng);
                let (oa, ob) = (&poses.ours64[k].0, &poses.ours64[k].1);
                let ha = d.dot(&oa.support(&d).coords);
                let hb = d.dot(&ob.support(&d).coords);
                let pd = pvec(&d);
                let qa = pd.dot(sa.support_point(&p.0, pd)) as f64;
                let qb = pd.dot(sb.support_point(&p.2, pd)) as f64;
                worst = worst.max((ha - qa).abs()).max((hb - qb).abs());
            }
        }
        println!("   support-function agreement ours(f64) vs parry(f32): max |h_ours - h_parry| = {worst:.2e}");
        assert!(worst < 1e-4, "{name}: ours and parry see different geometry ({worst:e})");
    }

    // Distance: ours vs parry.
    let mut it_cold = vec![];
    let mut it_hit = vec![];
    let ours: Vec<Option<f64>> = poses
        .ours32
        .iter()
        .map(|(a, b)| {
            let mut cache = GjkWarmStart::default();
            let d = gjk_signed(&gjk::distance(a, b, &budget32, &mut cache));
            it_cold.push(cache.iterations);
            let mut cache = GjkWarmStart::default();
            let _ = gjk::intersect(a, b, &budget32, &mut cache);
            it_hit.push(cache.iterations);
            d
        })
        .collect();
    let parry: Vec<Option<f64>> = poses.parry.iter().map(|p| Some(parry_distance(p, &spec.pa, &spec.pb))).collect();
    let (worst, at, undetermined) = max_diff(&ours, &parry);
    let sep = poses.s.iter().filter(|&&s| s > 0.0).count();
    let ours_sep = ours.iter().filter(|d| d.is_some_and(|d| d > 0.0)).count();
    let parry_sep = parry.iter().filter(|d| d.is_some_and(|d| d > 0.0)).count();
    println!(
        "   dist: max |ours_f32 - parry| = {worst:.2e}{}; ours undetermined {undetermined}; separated: truth {sep}, ours {ours_sep}, parry {parry_sep}{}",
        if at != usize::MAX {
            format!(" (pose {at}: s={:+.4}, ours {:?}, parry {:?})", poses.s[at], ours[at], parry[at])
        } else {
            String::new()
        },
        if spec.parry_exact { "" } else { " [parry: polytope stand-in]" }
    );
    // f64 reference: our GJK in f64 with its certificate (lower ≈ upper).
    let mut loose = 0;
    let reference: Vec<Option<f64>> = poses
        .ours64
        .iter()
        .map(|(a, b)| match gjk::distance(a, b, &budget64, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(s) => {
                loose += (s.bounds.gap() > 1e-9) as usize;
                Some(s.distance)
            }
            GjkOutcome::Penetrating(_) => Some(0.0),
            GjkOutcome::Undetermined { .. } => None,
        })
        .collect();
    let fmt_worst = |label: &str, xs: &[Option<f64>]| {
        let (w, at, missing) = max_diff(xs, &reference);
        let mut s = format!("{label} {w:.2e}");
        if at != usize::MAX && w > 1e-4 {
            s += &format!(" (pose {at}: s={:+.4}, {:?} vs ref {:?})", poses.s[at], xs[at], reference[at]);
        }
        if missing > 0 {
            s += &format!(" [{missing} without an answer]");
        }
        s
    };
    println!(
        "   dist vs f64 reference (our f64 GJK; {loose} with a certified gap > 1e-9): {}; {}",
        fmt_worst("ours_f32", &ours),
        fmt_worst("parry", &parry)
    );
    // The construction puts the distance at or below s·R̄.
    let over = reference.iter().zip(&poses.gap).filter(|(d, g)| d.is_some_and(|d| d > g.max(0.0) + 1e-9)).count();
    if over > 0 {
        println!("   dist: f64 reference above the construction bound s·R̄ on {over} poses");
    }
    let (m, x) = mean_max(&it_cold);
    let (mh, xh) = mean_max(&it_hit);
    println!("   GJK iterations (random poses): distance mean {m:.2} max {x}; intersect mean {mh:.2} max {xh}");

    // Warm start on the trajectories, in f32 at the default budget and in
    // f64 at coal's (the timed rows' setting).
    let (it_c, it_w, warm_vs_cold) = trajectory_iterations(&seq.ours32, &budget32);
    let ((mc, xc), (mw, xw)) = (mean_max(&it_c), mean_max(&it_w));
    println!(
        "   GJK iterations (trajectories): cold mean {mc:.2} max {xc}; warm mean {mw:.2} max {xw}; max |warm - cold| = {warm_vs_cold:.2e}"
    );
    let (it_c, it_w, _) = trajectory_iterations(&seq.ours64, &budget_vs_coal());
    let ((mc, xc), (mw, xw)) = (mean_max(&it_c), mean_max(&it_w));
    println!("   GJK iterations (trajectories, f64 at coal's budget): cold mean {mc:.2} max {xc}; warm mean {mw:.2} max {xw}");

    // Boolean: disagreements with the construction (s < 0 overlaps).
    let ccd = Ccd::default();
    let truth: Vec<bool> = poses.s.iter().map(|&s| s < 0.0).collect();
    // Near contact (|s·R̄| below 1e-3) an f32 answer may go either way
    // within tolerance: those are counted apart ("near").
    let count = |f: &dyn Fn(usize) -> Option<bool>| {
        let (mut wrong, mut near, mut none) = (0, 0, 0);
        for (i, &t) in truth.iter().enumerate() {
            match f(i) {
                Some(h) if h != t && poses.gap[i].abs() < 1e-3 => near += 1,
                Some(h) if h != t => wrong += 1,
                None => none += 1,
                _ => {}
            }
        }
        format!("{wrong}/{near}/{none}")
    };
    println!(
        "   hit: wrong/near-contact/undetermined vs construction: ours_gjk {} ours_mpr {} ours_gjk64 {} ours_below64 {} ours_mpr64 {} parry {} ccd_gjk {} ccd_mpr {}",
        count(&|i| {
            let (a, b) = &poses.ours32[i];
            gjk::intersect(a, b, &budget32, &mut GjkWarmStart::default()).is_penetrating()
        }),
        count(&|i| {
            let (a, b) = &poses.ours32[i];
            mpr_hit(&mpr::intersect(a, b, &budget32))
        }),
        count(&|i| {
            let (a, b) = &poses.ours64[i];
            gjk::intersect(a, b, &budget_vs_ccd(), &mut GjkWarmStart::default()).is_penetrating()
        }),
        count(&|i| {
            let (a, b) = &poses.ours64[i];
            gjk::distance_below(a, b, 0.0, &budget_vs_ccd(), &mut GjkWarmStart::default()).is_clear().map(|c| !c)
        }),
        count(&|i| {
            let (a, b) = &poses.ours64[i];
            mpr_hit(&mpr::intersect(a, b, &budget_vs_ccd()))
        }),
        count(&|i| {
            let p = &poses.parry[i];
            parry3d::query::intersection_test(&p.0, &*spec.pa[p.1], &p.2, &*spec.pb[p.3]).ok().map(|r| r.intersecting)
        }),
        count(&|i| {
            let (a, b) = &poses.ours64[i];
            Some(ccd.gjk_intersect(&CcdBody::new(a), &CcdBody::new(b)))
        }),
        count(&|i| {
            let (a, b) = &poses.ours64[i];
            Some(ccd.mpr_intersect(&CcdBody::new(a), &CcdBody::new(b)))
        }),
    );

    // EPA iterations (f32, default budget) after GJK's terminal simplex.
    let mut it_epa = vec![];
    for (a, b) in &pen.ours32 {
        if let GjkOutcome::Penetrating(simplex) = gjk::distance(a, b, &budget32, &mut GjkWarmStart::default()) {
            let mut epa = narrowphase::support::epa::DefaultEpa::<f32>::new();
            let _ = epa.penetration(a, b, &simplex, &budget32);
            it_epa.push(epa.iterations());
        }
    }
    let (me, xe) = mean_max(&it_epa);
    println!("   EPA iterations (f32, penetrating poses): mean {me:.2} max {xe}");

    // Penetration: every answer is a depth d along a unit normal n (from A
    // towards B). Translating B by h(n) = max (a − b)·n separates the
    // bodies, so h(n) (computed in f64 from our support maps) is what the
    // answer actually achieves and an upper bound of the true (EPA) depth;
    // the smallest h(n) over the EPA answers is the best depth known.
    type Answer = Option<(f64, Vector3<f64>)>;
    let prox = |p: Proximity<f32>| -> Answer {
        match p {
            Proximity::Penetrating(p) => Some((p.depth as f64, p.witness.normal.cast())),
            _ => None,
        }
    };
    let prox64 = |p: Proximity<f64>| -> Answer {
        match p {
            Proximity::Penetrating(p) => Some((p.depth, p.witness.normal)),
            _ => None,
        }
    };
    let mprp = |p: mpr::MprOutcome<f32>| -> Answer {
        match p {
            mpr::MprOutcome::Penetrating(p) => Some((p.depth as f64, p.witness.normal.cast())),
            _ => None,
        }
    };
    let ccdp = |p: Option<ccd_ffi::CcdPenetration>| p.map(|p| (p.depth, Vector3::from(p.dir)));
    let answers: Vec<(&str, Vec<Answer>)> = vec![
        (
            "ours_epa_f32",
            pen.ours32
                .iter()
                .map(|(a, b)| prox(contact::contact(a, b, &budget32, &mut GjkWarmStart::default())))
                .collect(),
        ),
        (
            "ours_epa_f64",
            pen.ours64
                .iter()
                .map(|(a, b)| prox64(contact::contact(a, b, &budget_vs_ccd(), &mut GjkWarmStart::default())))
                .collect(),
        ),
        (
            "parry",
            pen.parry
                .iter()
                .map(|p| {
                    let c = parry3d::query::contact(&p.0, &*spec.pa[p.1], &p.2, &*spec.pb[p.3], 0.0).ok().flatten()?;
                    let n = c.normal1;
                    Some((-(c.dist as f64), Vector3::new(n.x as f64, n.y as f64, n.z as f64)))
                })
                .collect(),
        ),
        (
            "ccd_epa",
            pen.ours64.iter().map(|(a, b)| ccdp(ccd.gjk_penetration(&CcdBody::new(a), &CcdBody::new(b)))).collect(),
        ),
        ("ours_mpr_f32", pen.ours32.iter().map(|(a, b)| mprp(mpr::penetration(a, b, &budget32))).collect()),
        (
            "ccd_mpr",
            pen.ours64.iter().map(|(a, b)| ccdp(ccd.mpr_penetration(&CcdBody::new(a), &CcdBody::new(b)))).collect(),
        ),
    ];
    let achieved = |i: usize, n: &Vector3<f64>| {
        let n = n.normalize();
        let (a, b) = &pen.ours64[i];
        n.dot(&a.support(&n).coords) - n.dot(&b.support(&-n).coords)
    };
    let best: Vec<f64> = (0..pen.len())
        .map(|i| {
            answers
                .iter()
                .filter(|(name, _)| !name.contains("mpr") && (spec.parry_exact || *name != "parry"))
                .filter_map(|(_, xs)| xs[i].map(|(_, n)| achieved(i, &n)))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    println!(
        "   pen ({} poses; h(n) = separating translation along the reported normal n, best = smallest h(n) of the EPA answers):",
        pen.len()
    );
    println!(
        "     {:<13} {:>8} {:>5} {:>12} {:>12} {:>12}",
        "", "answered", "off", "max|d-h(n)|", "max h-best", "mean h-best"
    );
    for (name, xs) in &answers {
        let directional = name.contains("mpr");
        let (mut answered, mut off, mut worst_self, mut worst_best, mut sum_best) = (0, 0, 0.0_f64, 0.0_f64, 0.0);
        for (i, x) in xs.iter().enumerate() {
            if let Some((d, n)) = x {
                let h = achieved(i, n);
                answered += 1;
                worst_self = worst_self.max((d - h).abs());
                worst_best = worst_best.max(h - best[i]);
                sum_best += h - best[i];
                // Off by more than 1e-3: the depth is not what its normal
                // achieves, or (EPA) the normal is not the least-depth one.
                off += ((d - h).abs() > 1e-3 || (!directional && h - best[i] > 1e-3)) as usize;
            }
        }
        let note = if spec.parry_exact || *name != "parry" { "" } else { " [polytope stand-in]" };
        let note = if directional { " [directional: h-best not an error]" } else { note };
        println!(
            "     {name:<13} {answered:>8} {off:>5} {worst_self:>12.2e} {worst_best:>12.2e} {:>12.2e}{note}",
            sum_best / answered.max(1) as f64
        );
    }
}

/// coal's answers against ours on the same poses (nothing without coal).
fn report_coal<SA32, SB32, SA64, SB64>(
    spec: &Spec<SA32, SB32, SA64, SB64>,
    poses: &Pairs<SA32, SB32, SA64, SB64>,
    seq: &Pairs<SA32, SB32, SA64, SB64>,
    pen: &Pairs<SA32, SB32, SA64, SB64>,
) where
    SA32: Copy,
    SB32: Copy,
    SA64: SupportMap<f64> + Copy,
    SB64: SupportMap<f64> + Copy,
{
    let nb = spec.coal_b.len();
    // Reference distances: our f64 GJK at the precision's limit (certified
    // to about 2e-13 relative; the default budget stops at 1e-9).
    let precise = Budget::new(128, 1000.0 * f64::EPSILON);
    let reference: Vec<Option<f64>> = poses
        .ours64
        .iter()
        .map(|(a, b)| gjk_signed(&gjk::distance(a, b, &precise, &mut GjkWarmStart::default())))
        .collect();
    // Our penetration answers at coal's tolerance, and what a normal achieves
    // (as in `report_checks`: h(n) = max (a − b)·n, an upper bound of the depth).
    let ours_pen: Vec<Option<(f64, Vector3<f64>)>> = pen
        .ours64
        .iter()
        .map(|(a, b)| match contact::contact(a, b, &budget_vs_coal(), &mut GjkWarmStart::default()) {
            Proximity::Penetrating(p) => Some((p.depth, p.witness.normal)),
            _ => None,
        })
        .collect();
    let achieved = |i: usize, n: &Vector3<f64>| {
        let n = n.normalize();
        let (a, b) = &pen.ours64[i];
        n.dot(&a.support(&n).coords) - n.dot(&b.support(&-n).coords)
    };
    for (label, gjk) in [("coal", CoalGjk::Default), ("coal_nesterov", CoalGjk::Nesterov)] {
        let Some(mut pairs) = spec.coal_pairs(gjk) else { return };
        // Distance (GJK only) on the poses our reference finds separated.
        let (mut worst, mut worst_rel, mut at, mut compared, mut failed) = (0.0_f64, 0.0_f64, usize::MAX, 0, 0);
        let mut sep_coal = 0;
        let mut it = vec![];
        for (i, p) in poses.coal.iter().enumerate() {
            let pair = &mut pairs[p.1 * nb + p.3];
            let d = pair.distance(&p.0, &p.2);
            it.push(pair.last_iterations().0 as u32);
            let Some(d) = d else {
                failed += 1;
                continue;
            };
            sep_coal += (d > 0.0) as usize;
            if let Some(r) = reference[i].filter(|&r| r > 0.0) {
                compared += 1;
                let e = (d - r).abs();
                if e > worst || e.is_nan() {
                    worst = e;
                    at = i;
                }
                if r > 1e-3 {
                    worst_rel = worst_rel.max(e / r);
                }
            }
        }
        let (m, x) = mean_max(&it);
        println!(
            "   {label} dist vs our f64 reference on {compared} separated poses: max |coal - ref| = {worst:.2e}{}, max relative (ref > 1e-3) {worst_rel:.2e}; separated: coal {sep_coal}, ref {compared}; failed {failed}; GJK iterations mean {m:.2} max {x}",
            if at != usize::MAX { format!(" (pose {at}: s={:+.4})", poses.s[at]) } else { String::new() }
        );
        // Boolean against the construction, as in `report_checks`.
        let (mut wrong, mut near, mut none) = (0, 0, 0);
        for (i, p) in poses.coal.iter().enumerate() {
            match pairs[p.1 * nb + p.3].collide(&p.0, &p.2) {
                Some(h) if h != (poses.s[i] < 0.0) && poses.gap[i].abs() < 1e-3 => near += 1,
                Some(h) if h != (poses.s[i] < 0.0) => wrong += 1,
                None => none += 1,
                _ => {}
            }
        }
        println!("   {label} hit: wrong/near-contact/failed vs construction {wrong}/{near}/{none}");
        // Penetration (GJK + EPA) against ours at the same tolerance.
        let (mut answered, mut off, mut worst_self, mut worst_vs, mut sum_vs, mut worst_depth) =
            (0, 0, 0.0_f64, f64::NEG_INFINITY, 0.0, 0.0_f64);
        let mut it_epa = vec![];
        for (i, p) in pen.coal.iter().enumerate() {
            let pair = &mut pairs[p.1 * nb + p.3];
            let Some(c) = pair.signed_distance(&p.0, &p.2) else { continue };
            it_epa.push(pair.last_iterations().1 as u32);
            if c.distance.is_nan() || c.distance >= 0.0 {
                continue;
            }
            answered += 1;
            let (d, n) = (-c.distance, Vector3::from(c.normal));
            let h = achieved(i, &n);
            worst_self = worst_self.max((d - h).abs());
            if let Some((od, on)) = ours_pen[i] {
                let v = h - achieved(i, &on);
                worst_vs = worst_vs.max(v);
                sum_vs += v;
                worst_depth = worst_depth.max((d - od).abs());
                off += ((d - h).abs() > 1e-3 || v > 1e-3) as usize;
            }
        }
        let (me, xe) = mean_max(&it_epa);
        println!(
            "   {label} pen: {answered} of {} answered with a depth, {off} off by > 1e-3; max |d - h(n)| {worst_self:.2e}; h(n) - h(n_ours) max {worst_vs:.2e} mean {:.2e}; max |d - d_ours| {worst_depth:.2e}; EPA iterations mean {me:.2} max {xe}",
            pen.len(),
            sum_vs / answered.max(1) as f64
        );
        // Warm start along the trajectories.
        let (mut it_w, mut worst_w) = (vec![], 0.0_f64);
        let mut k = 0;
        for tr in seq.coal.chunks(FRAMES) {
            if let Some(p) = tr.first() {
                pairs[p.1 * nb + p.3].reset_warm();
            }
            for p in tr {
                let pair = &mut pairs[p.1 * nb + p.3];
                let w = pair.distance_warm(&p.0, &p.2);
                it_w.push(pair.last_iterations().0 as u32);
                let c = pair.distance(&p.0, &p.2);
                if let (Some(w), Some(c)) = (w, c) {
                    worst_w = worst_w.max((w - c).abs());
                }
                k += 1;
            }
        }
        let (mw, xw) = mean_max(&it_w);
        println!(
            "   {label} warm ({k} frames): GJK iterations mean {mw:.2} max {xw}; max |warm - cold| = {worst_w:.2e}"
        );
    }
}

// ---------------------------------------------------------------------------
// Timing.

/// One timed loop: every pose of a set through one implementation.
struct Case<'a> {
    group: String,
    id: &'static str,
    /// Queries per call of `run`.
    n: usize,
    run: Box<dyn FnMut() + 'a>,
}

fn cases<'a, SA32, SB32, SA64, SB64>(
    spec: &'a Spec<SA32, SB32, SA64, SB64>,
    poses: &'a Pairs<SA32, SB32, SA64, SB64>,
    seq: &'a Pairs<SA32, SB32, SA64, SB64>,
    pen: &'a Pairs<SA32, SB32, SA64, SB64>,
) -> Vec<Case<'a>>
where
    SA32: SupportMap<f32> + Copy,
    SB32: SupportMap<f32> + Copy,
    SA64: SupportMap<f64> + Copy,
    SB64: SupportMap<f64> + Copy,
{
    let b32 = Budget::<f32>::default();
    let b64 = budget_vs_ccd();
    let bc = budget_vs_coal();
    let ccd = Ccd::default();
    // coal's rows, and ours in f64 at coal's tolerance, only with coal.
    let with_coal = !spec.coal_a.is_empty() && !spec.coal_b.is_empty();
    let nb = spec.coal_b.len();
    let coal_variants = [("coal", CoalGjk::Default), ("coal_nesterov", CoalGjk::Nesterov)];
    let (pa, pb) = (&spec.pa, &spec.pb);
    let mut out: Vec<Case<'a>> = vec![];
    let mut add = |q: &str, id: &'static str, n: usize, run: Box<dyn FnMut() + 'a>| {
        out.push(Case { group: format!("{}_{q}", spec.name), id, n, run })
    };

    // Distance, random poses.
    let n = poses.len();
    add(
        "dist",
        "ours_f32_cold",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours32 {
                consume(gjk::distance(black_box(a), black_box(b), &b32, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "dist",
        "parry",
        n,
        Box::new(move || {
            for p in &poses.parry {
                black_box(parry3d::query::distance(&p.0, &*pa[p.1], &p.2, &*pb[p.3]).ok());
            }
        }),
    );
    if spec.parry_gjk {
        add(
            "dist",
            "parry_gjk",
            n,
            Box::new(move || {
                for p in &poses.parry {
                    let pos12 = p.0.inv_mul(&p.2);
                    let (sa, sb) = (pa[p.1].as_support_map().unwrap(), pb[p.3].as_support_map().unwrap());
                    black_box(parry3d::query::details::distance_support_map_support_map(&pos12, sa, sb));
                }
            }),
        );
    }

    if with_coal {
        add(
            "dist",
            "ours_f64_cold",
            n,
            Box::new(move || {
                for (a, b) in &poses.ours64 {
                    consume(gjk::distance(black_box(a), black_box(b), &bc, &mut GjkWarmStart::default()));
                }
            }),
        );
    }
    if with_coal && spec.closed_form {
        add(
            "dist",
            "ours_contact_f64",
            n,
            Box::new(move || {
                for (a, b) in &poses.ours64 {
                    consume(contact::contact(black_box(a), black_box(b), &bc, &mut GjkWarmStart::default()));
                }
            }),
        );
    }
    for (id, gjk) in coal_variants {
        if let Some(mut pairs) = spec.coal_pairs(gjk) {
            add(
                "dist",
                id,
                n,
                Box::new(move || {
                    for p in &poses.coal {
                        black_box(pairs[p.1 * nb + p.3].distance(&p.0, &p.2));
                    }
                }),
            );
        }
    }

    // Distance, trajectories: cold vs warm.
    let n = seq.len();
    add(
        "seq",
        "ours_f32_cold",
        n,
        Box::new(move || {
            for (a, b) in &seq.ours32 {
                consume(gjk::distance(black_box(a), black_box(b), &b32, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "seq",
        "ours_f32_warm",
        n,
        Box::new(move || {
            for tr in seq.ours32.chunks(FRAMES) {
                let mut cache = GjkWarmStart::default();
                for (a, b) in tr {
                    consume(gjk::distance(black_box(a), black_box(b), &b32, &mut cache));
                }
            }
        }),
    );
    add(
        "seq",
        "parry",
        n,
        Box::new(move || {
            for p in &seq.parry {
                black_box(parry3d::query::distance(&p.0, &*pa[p.1], &p.2, &*pb[p.3]).ok());
            }
        }),
    );

    if with_coal {
        add(
            "seq",
            "ours_f64_warm",
            n,
            Box::new(move || {
                for tr in seq.ours64.chunks(FRAMES) {
                    let mut cache = GjkWarmStart::default();
                    for (a, b) in tr {
                        consume(gjk::distance(black_box(a), black_box(b), &bc, &mut cache));
                    }
                }
            }),
        );
    }
    for (id, gjk) in [("coal_warm", CoalGjk::Default), ("coal_nesterov_warm", CoalGjk::Nesterov)] {
        if let Some(mut pairs) = spec.coal_pairs(gjk) {
            add(
                "seq",
                id,
                n,
                Box::new(move || {
                    for tr in seq.coal.chunks(FRAMES) {
                        if let Some(p) = tr.first() {
                            pairs[p.1 * nb + p.3].reset_warm();
                        }
                        for p in tr {
                            black_box(pairs[p.1 * nb + p.3].distance_warm(&p.0, &p.2));
                        }
                    }
                }),
            );
        }
    }

    // Boolean, random poses.
    let n = poses.len();
    add(
        "hit",
        "ours_gjk_f32",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours32 {
                consume(gjk::intersect(black_box(a), black_box(b), &b32, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "hit",
        "ours_mpr_f32",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours32 {
                consume(mpr::intersect(black_box(a), black_box(b), &b32));
            }
        }),
    );
    add(
        "hit",
        "parry",
        n,
        Box::new(move || {
            for p in &poses.parry {
                black_box(parry3d::query::intersection_test(&p.0, &*pa[p.1], &p.2, &*pb[p.3]).ok());
            }
        }),
    );
    if spec.parry_gjk {
        add(
            "hit",
            "parry_gjk",
            n,
            Box::new(move || {
                for p in &poses.parry {
                    let pos12 = p.0.inv_mul(&p.2);
                    let (sa, sb) = (pa[p.1].as_support_map().unwrap(), pb[p.3].as_support_map().unwrap());
                    black_box(parry3d::query::details::intersection_test_support_map_support_map(&pos12, sa, sb));
                }
            }),
        );
    }
    add(
        "hit",
        "ours_gjk_f64",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours64 {
                consume(gjk::intersect(black_box(a), black_box(b), &b64, &mut GjkWarmStart::default()));
            }
        }),
    );
    // The threshold query at 0: the same yes/no without an answer for EPA
    // to start from (on overlapping sphere-swept pairs `gjk::intersect`
    // builds four CSO points for it).
    add(
        "hit",
        "ours_below_f64",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours64 {
                consume(gjk::distance_below(black_box(a), black_box(b), 0.0, &b64, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "hit",
        "ours_mpr_f64",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours64 {
                consume(mpr::intersect(black_box(a), black_box(b), &b64));
            }
        }),
    );
    add(
        "hit",
        "ccd_gjk_f64",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours64 {
                black_box(ccd.gjk_intersect(&CcdBody::new(black_box(a)), &CcdBody::new(black_box(b))));
            }
        }),
    );
    add(
        "hit",
        "ccd_mpr_f64",
        n,
        Box::new(move || {
            for (a, b) in &poses.ours64 {
                black_box(ccd.mpr_intersect(&CcdBody::new(black_box(a)), &CcdBody::new(black_box(b))));
            }
        }),
    );

    for (id, gjk) in coal_variants {
        if let Some(mut pairs) = spec.coal_pairs(gjk) {
            add(
                "hit",
                id,
                n,
                Box::new(move || {
                    for p in &poses.coal {
                        black_box(pairs[p.1 * nb + p.3].collide_within(&p.0, &p.2, 0.0, true));
                    }
                }),
            );
        }
    }

    // Penetration, penetrating poses.
    let n = pen.len();
    add(
        "pen",
        "ours_epa_f32",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours32 {
                consume(contact::contact(black_box(a), black_box(b), &b32, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "pen",
        "ours_mpr_f32",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours32 {
                consume(mpr::penetration(black_box(a), black_box(b), &b32));
            }
        }),
    );
    add(
        "pen",
        "parry",
        n,
        Box::new(move || {
            for p in &pen.parry {
                black_box(parry3d::query::contact(&p.0, &*pa[p.1], &p.2, &*pb[p.3], 0.0).ok());
            }
        }),
    );
    add(
        "pen",
        "ours_epa_f64",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours64 {
                consume(contact::contact(black_box(a), black_box(b), &b64, &mut GjkWarmStart::default()));
            }
        }),
    );
    add(
        "pen",
        "ours_mpr_f64",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours64 {
                consume(mpr::penetration(black_box(a), black_box(b), &b64));
            }
        }),
    );
    add(
        "pen",
        "ccd_epa_f64",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours64 {
                black_box(ccd.gjk_penetration(&CcdBody::new(black_box(a)), &CcdBody::new(black_box(b))));
            }
        }),
    );
    add(
        "pen",
        "ccd_mpr_f64",
        n,
        Box::new(move || {
            for (a, b) in &pen.ours64 {
                black_box(ccd.mpr_penetration(&CcdBody::new(black_box(a)), &CcdBody::new(black_box(b))));
            }
        }),
    );
    if with_coal {
        add(
            "pen",
            "ours_epa_f64_tol1e-6",
            n,
            Box::new(move || {
                for (a, b) in &pen.ours64 {
                    consume(contact::contact(black_box(a), black_box(b), &bc, &mut GjkWarmStart::default()));
                }
            }),
        );
    }
    for (id, gjk) in coal_variants {
        if let Some(mut pairs) = spec.coal_pairs(gjk) {
            add(
                "pen",
                id,
                n,
                Box::new(move || {
                    for p in &pen.coal {
                        black_box(pairs[p.1 * nb + p.3].signed_distance(&p.0, &p.2));
                    }
                }),
            );
        }
    }
    out
}

/// How the cases are timed (environment variable `SUPPORT_FAMILY_MODE`).
#[derive(Clone, Debug, PartialEq)]
enum Mode {
    /// Criterion (default).
    Criterion,
    /// `paired:R`: R rounds, every case of a group once per round in turn,
    /// the median per case. Load that drifts while a group runs hits all its
    /// cases alike, which criterion's one-after-the-other runs cannot offer.
    Paired(usize),
    /// `profile:GROUP/ID[:REPS]`: run one case REPS times (default 10) inside
    /// [`profile_loop`] and nothing else, for
    /// `valgrind --tool=callgrind --toggle-collect='*profile_loop*'`.
    Profile(String, usize),
}

fn mode() -> Mode {
    let v = std::env::var("SUPPORT_FAMILY_MODE").unwrap_or_default();
    if let Some(r) = v.strip_prefix("paired") {
        Mode::Paired(r.trim_start_matches(':').parse().unwrap_or(301))
    } else if let Some(p) = v.strip_prefix("profile:") {
        let (name, reps) = match p.rsplit_once(':') {
            Some((n, r)) if r.parse::<usize>().is_ok() => (n.to_string(), r.parse().unwrap_or(10)),
            _ => (p.to_string(), 10),
        };
        Mode::Profile(name, reps)
    } else {
        Mode::Criterion
    }
}

/// Keeps a query's answer alive where it was built. `black_box(answer)`
/// would move it into `black_box`'s argument first: a copy the caller of a
/// query does not make (352 bytes for a `GjkOutcome<f64>`, 64 instructions
/// a query), while coal's answers come back as a few numbers.
#[inline(always)]
fn consume<T>(answer: T) {
    black_box(&answer);
}

#[inline(never)]
fn profile_loop(run: &mut dyn FnMut(), reps: usize) {
    for _ in 0..reps {
        run();
    }
}

/// (group, function, ns per query) of every case timed in this process, or
/// (group, function, queries per iteration) registered with criterion.
type Registry = Vec<(String, String, f64)>;

fn drive(c: &mut Criterion, reg: &mut Registry, mode: &Mode, mut cases: Vec<Case<'_>>) {
    match mode {
        Mode::Criterion => {
            let mut i = 0;
            while i < cases.len() {
                let g = cases[i].group.clone();
                let mut group = c.benchmark_group(g.clone());
                group
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(20)
                    .throughput(Throughput::Elements(cases[i].n as u64));
                while i < cases.len() && cases[i].group == g {
                    let case = &mut cases[i];
                    reg.push((g.clone(), case.id.to_string(), case.n as f64));
                    group.bench_function(case.id, |bch| bch.iter(&mut case.run));
                    i += 1;
                }
                group.finish();
            }
        }
        Mode::Paired(rounds) => {
            let mut i = 0;
            while i < cases.len() {
                let g = cases[i].group.clone();
                let end = (i..cases.len()).find(|&k| cases[k].group != g).unwrap_or(cases.len());
                let mut times = vec![vec![]; end - i];
                for case in &mut cases[i..end] {
                    (case.run)(); // warm-up
                }
                for round in 0..*rounds {
                    for (k, case) in cases[i..end].iter_mut().enumerate() {
                        times[k].push(at_stack_position(round, &mut case.run));
                    }
                }
                for (k, case) in cases[i..end].iter().enumerate() {
                    let t = &mut times[k];
                    t.sort_by(f64::total_cmp);
                    let ns = t[t.len() / 2] * 1e9 / case.n as f64;
                    reg.push((g.clone(), case.id.to_string(), ns));
                }
                i = end;
            }
        }
        Mode::Profile(name, reps) => {
            for case in &mut cases {
                if format!("{}/{}", case.group, case.id) == *name {
                    println!("profiling {name}: {reps} × {} queries", case.n);
                    profile_loop(&mut case.run, *reps);
                }
            }
        }
    }
}

fn run<SA32, SB32, SA64, SB64>(
    c: &mut Criterion,
    reg: &mut Registry,
    mode: &Mode,
    spec: Spec<SA32, SB32, SA64, SB64>,
    seed: u64,
) where
    SA32: SupportMap<f32> + Copy,
    SB32: SupportMap<f32> + Copy,
    SA64: SupportMap<f64> + Bounded<f64> + Copy,
    SB64: SupportMap<f64> + Bounded<f64> + Copy,
{
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let poses = spec.random_pairs(&mut rng);
    let seq = spec.trajectories(&mut rng);
    let pen = poses.subset(|i| poses.s[i] < 0.0);

    // One clearly separated pair: ours and parry must agree before timing.
    if spec.parry_exact {
        let mut probe = Pairs::new();
        let ids = spec.pick(&mut rng);
        spec.place(
            &mut probe,
            ids,
            pose(Vector3::zeros(), rotation(&mut rng)),
            rotation(&mut rng),
            unit_vector(&mut rng),
            0.3,
        );
        let (a, b) = &probe.ours32[0];
        let ours =
            gjk_signed(&gjk::distance(a, b, &Budget::default(), &mut GjkWarmStart::default())).unwrap_or(f64::NAN);
        let parry = parry_distance(&probe.parry[0], &spec.pa, &spec.pb);
        assert!((ours - parry).abs() < 1e-3, "{}: ours {ours} vs parry {parry} on a separated pair", spec.name);
    }
    // The same for coal, in f64, on five separated pairs, to coal's own
    // precision: its GJK stops once its upper and lower bounds are within
    // 1e-6·(1 + d) (a relative 1e-6 of these unit-sized bodies; polytopes and
    // closed forms agree to rounding). A wrong conversion (half against full
    // sizes, an axis, a transposed rotation) is off by 1e-2 or more.
    for gjk in [CoalGjk::Default, CoalGjk::Nesterov] {
        let Some(mut pairs) = spec.coal_pairs(gjk) else { break };
        for k in 0..5 {
            let mut probe = Pairs::new();
            let ids = spec.pick(&mut rng);
            let (ra, rb, u) = (rotation(&mut rng), rotation(&mut rng), unit_vector(&mut rng));
            spec.place(&mut probe, ids, pose(Vector3::new(0.3, -0.2, 0.1), ra), rb, u, 0.1 + 0.1 * k as f64);
            let (a, b) = &probe.ours64[0];
            let ours =
                gjk_signed(&gjk::distance(a, b, &Budget::default(), &mut GjkWarmStart::default())).unwrap_or(f64::NAN);
            let p = &probe.coal[0];
            let coal = pairs[p.1 * spec.coal_b.len() + p.3].distance(&p.0, &p.2).unwrap_or(f64::NAN);
            assert!(
                (ours - coal).abs() <= 1e-6 * (1.0 + ours),
                "{}: ours {ours} vs coal ({gjk:?}) {coal} on a separated pair",
                spec.name
            );
        }
    }

    if !matches!(mode, Mode::Profile(..)) {
        report_checks(&spec, &poses, &seq, &pen);
        report_coal(&spec, &poses, &seq, &pen);
    }
    drive(c, reg, mode, cases(&spec, &poses, &seq, &pen));
}

/// A workload of one primitive type against itself (or two types).
#[allow(clippy::too_many_arguments)]
fn primitive<SA32, SB32, SA64, SB64>(
    name: &str,
    a: (SA32, SA64, Box<dyn PShape>, Rotation3<f64>, Option<CoalShape>),
    b: (SB32, SB64, Box<dyn PShape>, Rotation3<f64>, Option<CoalShape>),
    parry_exact: bool,
    parry_gjk: bool,
) -> Spec<SA32, SB32, SA64, SB64> {
    Spec {
        name: name.to_string(),
        a32: vec![a.0],
        b32: vec![b.0],
        a64: vec![a.1],
        b64: vec![b.1],
        pa: vec![a.2],
        pb: vec![b.2],
        fix_a: a.3,
        fix_b: b.3,
        parry_exact,
        parry_gjk,
        closed_form: false,
        coal_a: a.4.into_iter().collect(),
        coal_b: b.4.into_iter().collect(),
    }
}

// ---------------------------------------------------------------------------
// The table.

/// The per-query medians: from criterion's estimates (criterion mode; the
/// registry holds the queries per iteration) or as measured (paired mode).
fn print_table(dir: &Path, reg: &Registry, since: SystemTime, mode: &Mode) {
    let mut rows: Vec<(String, String, f64)> = vec![];
    for (g, id, x) in reg {
        match mode {
            Mode::Criterion => {
                if let Some(ns) = median_ns(dir, g, id, since) {
                    rows.push((g.clone(), id.clone(), ns / x));
                }
            }
            _ => rows.push((g.clone(), id.clone(), *x)),
        }
    }
    if rows.is_empty() {
        return;
    }
    let how = match mode {
        Mode::Paired(r) => format!("median of {r} interleaved rounds"),
        _ => "criterion median / poses per iteration".to_string(),
    };
    println!(
        "\nMedian time per query ({how}), ns; ratios = ours / parry3d, ours (f64) / coal, ours (f64) / coal Nesterov"
    );
    println!("{:<20} {:<22} {:>10} {:>8} {:>8} {:>8}", "group", "impl", "ns/query", "/parry", "/coal", "/c_nest");
    let of = |g: &str, id: &str| rows.iter().find(|r| r.0 == g && r.1 == id).map(|r| r.2);
    let ratio = |ns: f64, reference: Option<f64>| reference.map(|r| format!("{:.2}", ns / r)).unwrap_or_default();
    for (g, id, ns) in &rows {
        let ours = id.starts_with("ours");
        let parry = if ours { ratio(*ns, of(g, "parry")) } else { String::new() };
        // Warm rows against coal's warm rows, the others against its cold ones.
        let (coal, nest) = match (ours && id.contains("f64"), id.contains("warm")) {
            (false, _) => (String::new(), String::new()),
            (true, false) => (ratio(*ns, of(g, "coal")), ratio(*ns, of(g, "coal_nesterov"))),
            (true, true) => (ratio(*ns, of(g, "coal_warm")), ratio(*ns, of(g, "coal_nesterov_warm"))),
        };
        println!("{g:<20} {id:<22} {ns:>10.1} {parry:>8} {coal:>8} {nest:>8}");
    }
}

// ---------------------------------------------------------------------------

/// A pool of hulls: the points (for parry and coal), ours in f32 and f64.
type HullPool = (Vec<Vec<Point3<f64>>>, Vec<OwnedPolytope<f32>>, Vec<OwnedPolytope<f64>>);

/// The protocol's pool of hulls of `n` random sphere points.
fn hull_pool(n: usize, seed: u64) -> HullPool {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let points: Vec<Vec<Point3<f64>>> = (0..POOL).map(|_| polytope_points(&mut rng, n)).collect();
    let owned64 = points.iter().map(|p| quickhull(p).expect("quickhull f64")).collect();
    let owned32 = points
        .iter()
        .map(|p| {
            let q: Vec<Point3<f32>> = p.iter().map(|x| x.cast()).collect();
            quickhull(&q).expect("quickhull f32")
        })
        .collect();
    (points, owned32, owned64)
}

fn main() {
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let since = SystemTime::now();
    let mode = mode();
    // `SUPPORT_FAMILY_ONLY=poly50,box`: run only these workloads.
    let only: Option<Vec<String>> =
        std::env::var("SUPPORT_FAMILY_ONLY").ok().map(|v| v.split(',').map(|w| w.trim().to_string()).collect());
    let wanted = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|w| w == name));
    let mut reg: Registry = vec![];
    match coal_ffi::version() {
        Some(v) => println!("coal {v}: rows coal (default GJK) and coal_nesterov (Nesterov-accelerated GJK)"),
        None => println!("{}", coal_ffi::SKIPPED),
    }
    let y_to_z = Rotation3::from_axis_angle(&Vector3::x_axis(), FRAC_PI_2);
    let id = Rotation3::identity();

    // §5.1 polytopes.
    for (k, &n) in [50usize, 200, 500, 1000].iter().enumerate() {
        if !wanted(&format!("poly{n}")) {
            continue;
        }
        let (points, owned32, owned64) = hull_pool(n, 1000 + n as u64);
        let v64: Vec<Polytope<f64>> = owned64.iter().map(|o| o.polytope().expect("polytope f64")).collect();
        let v32: Vec<Polytope<f32>> = owned32.iter().map(|o| o.polytope().expect("polytope f32")).collect();
        let verts: Vec<usize> = v32.iter().map(|p| p.vertex_count()).collect();
        println!("poly{n}: hull vertex counts (f32) {verts:?}");
        // coal's convex shapes of our f64 hulls (none without coal).
        let coal_pool = || v64.iter().map(coal_convex).collect::<Option<Vec<CoalShape>>>().unwrap_or_default();
        let (coal_a, coal_b) = (coal_pool(), coal_pool());
        let spec = Spec {
            name: format!("poly{n}"),
            a32: v32.clone(),
            b32: v32,
            a64: v64.clone(),
            b64: v64,
            pa: points.iter().map(|p| parry_hull(p)).collect(),
            pb: points.iter().map(|p| parry_hull(p)).collect(),
            fix_a: id,
            fix_b: id,
            parry_exact: true,
            parry_gjk: false,
            closed_form: false,
            coal_a,
            coal_b,
        };
        run(&mut c, &mut reg, &mode, spec, 7 + k as u64);
    }

    // A link's hull against a capsule (a person's limb, an arm link): the
    // pair a robot controller asks most, the hull from 200 sphere points.
    if wanted("hull_capsule") {
        let (points, owned32, owned64) = hull_pool(200, 1300);
        let v64: Vec<Polytope<f64>> = owned64.iter().map(|o| o.polytope().expect("polytope f64")).collect();
        let v32: Vec<Polytope<f32>> = owned32.iter().map(|o| o.polytope().expect("polytope f32")).collect();
        let coal_a = v64.iter().map(coal_convex).collect::<Option<Vec<CoalShape>>>().unwrap_or_default();
        let spec = Spec {
            name: "hull_capsule".to_string(),
            a32: v32,
            b32: vec![Capsule::new(0.5_f32, 0.3).unwrap()],
            a64: v64,
            b64: vec![Capsule::new(0.5_f64, 0.3).unwrap()],
            pa: points.iter().map(|p| parry_hull(p)).collect(),
            pb: vec![Box::new(parry3d::shape::Capsule::new_z(0.5, 0.3)) as Box<dyn PShape>],
            fix_a: id,
            fix_b: id,
            parry_exact: true,
            parry_gjk: false,
            closed_form: true,
            coal_a,
            coal_b: CoalShape::capsule(0.5, 0.3).into_iter().collect(),
        };
        run(&mut c, &mut reg, &mode, spec, 25);
    }

    // Primitives.
    let half = Vector3::new(1.0, 2.0 / 3.0, 1.0 / 3.0);
    let cuboid = || {
        (
            Cuboid::new(half.cast::<f32>()).unwrap(),
            Cuboid::new(half).unwrap(),
            Box::new(parry3d::shape::Cuboid::new(pvec(&half))) as Box<dyn PShape>,
            id,
            CoalShape::cuboid(half.into()),
        )
    };
    if wanted("box") {
        let spec = Spec { closed_form: true, ..primitive("box", cuboid(), cuboid(), true, true) };
        run(&mut c, &mut reg, &mode, spec, 21);
    }

    let capsule = || {
        (
            Capsule::new(0.5_f32, 0.3).unwrap(),
            Capsule::new(0.5_f64, 0.3).unwrap(),
            Box::new(parry3d::shape::Capsule::new_z(0.5, 0.3)) as Box<dyn PShape>,
            id,
            CoalShape::capsule(0.5, 0.3),
        )
    };
    if wanted("capsule") {
        let spec = Spec { closed_form: true, ..primitive("capsule", capsule(), capsule(), true, false) };
        run(&mut c, &mut reg, &mode, spec, 22);
    }

    // A ball against a box (a tool tip or a wrist against a table): both
    // coal and parry3d answer it in closed form.
    let sphere = || {
        (
            Sphere::new(0.5_f32).unwrap(),
            Sphere::new(0.5_f64).unwrap(),
            Box::new(parry3d::shape::Ball::new(0.5)) as Box<dyn PShape>,
            id,
            CoalShape::sphere(0.5),
        )
    };
    if wanted("sphere_box") {
        let spec = Spec { closed_form: true, ..primitive("sphere_box", sphere(), cuboid(), true, false) };
        run(&mut c, &mut reg, &mode, spec, 26);
    }
    // Two balls, and a ball against a capsule (a URDF's collision spheres
    // against each other and against a limb): closed forms in all three
    // libraries.
    if wanted("sphere") {
        let spec = Spec { closed_form: true, ..primitive("sphere", sphere(), sphere(), true, false) };
        run(&mut c, &mut reg, &mode, spec, 29);
    }
    if wanted("sphere_capsule") {
        let spec = Spec { closed_form: true, ..primitive("sphere_capsule", sphere(), capsule(), true, false) };
        run(&mut c, &mut reg, &mode, spec, 30);
    }

    let cylinder = || {
        (
            Cylinder::new(0.5_f32, 0.5).unwrap(),
            Cylinder::new(0.5_f64, 0.5).unwrap(),
            Box::new(parry3d::shape::Cylinder::new(0.5, 0.5)) as Box<dyn PShape>,
            y_to_z,
            CoalShape::cylinder(0.5, 0.5),
        )
    };
    let cone = (
        Cone::new(0.5_f32, 0.5).unwrap(),
        Cone::new(0.5_f64, 0.5).unwrap(),
        Box::new(parry3d::shape::Cone::new(0.5, 0.5)) as Box<dyn PShape>,
        y_to_z,
        CoalShape::cone(0.5, 0.5),
    );
    if wanted("cyl_cone") {
        run(&mut c, &mut reg, &mode, primitive("cyl_cone", cylinder(), cone, true, false), 23);
    }
    if wanted("cylinder") {
        run(&mut c, &mut reg, &mode, primitive("cylinder", cylinder(), cylinder(), true, false), 27);
    }
    // A ball against a cylinder (a URDF's spheres and cylinders): ours in
    // closed form while the centre is outside the cylinder.
    if wanted("sphere_cyl") {
        let spec = Spec { closed_form: true, ..primitive("sphere_cyl", sphere(), cylinder(), true, false) };
        run(&mut c, &mut reg, &mode, spec, 28);
    }

    let ellipsoid = || {
        (
            Ellipsoid::new(half.cast::<f32>()).unwrap(),
            Ellipsoid::new(half).unwrap(),
            parry_hull(&ellipsoid_points(half, ELLIPSOID_HULL_POINTS)),
            id,
            CoalShape::ellipsoid(half.into()),
        )
    };
    if wanted("ellipsoid") {
        run(&mut c, &mut reg, &mode, primitive("ellipsoid", ellipsoid(), ellipsoid(), false, false), 24);
    }

    if mode == Mode::Criterion {
        c.final_summary();
    }
    print_table(&dir, &reg, since, &mode);
}
