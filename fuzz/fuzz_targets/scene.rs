//! The scene layer (`narrowphase::scene`): random scenes of spheres,
//! capsules, boxes, rounded boxes and cylinders, random pair lists, random
//! pose streams, `Scene::tick` after each batch of moves, in f32 or f64.
//!
//! Inputs: bodies (shape from fixed-point or raw numbers, parent), added
//! one by one or as a batch; an allowed-collision list and the settings of
//! the pairs built from the tree; then ticks, each with pair edits (enable
//! with settings, disable, allow, rebuild from the tree), moves and a
//! budget (total iterations, per-pair cap and tolerance). Moves: a new pose;
//! a small motion (translation up to 0.12 m, rotation up to 0.25 rad per
//! axis: warm starts kept unless it exceeds the scene's jump rule); a move
//! of the whole scene to an offset of up to 1e3 m in f32 and 1e6 m in f64
//! (every posed body set again: a jump, warm starts dropped); one entry of
//! the pose perturbed (NaN, ∞, a tiny or a large change); a mirrored
//! rotation; an unchecked quaternion through `set_isometry`. Body indices
//! beyond the scene are common.
//!
//! The model. The target keeps its own copy of what the scene must hold:
//! bodies and parents, the last pose each body accepted, the
//! allowed-collision matrix, the pair list with its settings (in insertion
//! order). Each pair's truth comes from `shared/closed_form.rs` (f64, in
//! the pair's frame), from the poses as given made rigid by Gram–Schmidt
//! as `Placed` documents: exact for spheres and capsules among themselves
//! and for a sphere against anything; for the other pairs a bracket
//! `lo ≤ d ≤ hi` (exact for overlapping box–box and capsule–box pairs and,
//! once the projections converge, for separated ones).
//!
//! Bands. `band = (8·tolerance + 8192·ε)·size + 2·ε·ρ`: `size = |c_a − c_b|
//! + 2·(r_a + r_b)` from the bodies' positions and circumradii (the size of
//! the pair in its own frame, as in `shared/placement.rs`), ρ the largest
//! coordinate of both translations as given (the rounding of the world
//! coordinates: the answer may depend on the relative placement only), the
//! tolerance the per-pair budget's. A measured penetration is judged with
//! the tolerance `contact` gives EPA, `max(tolerance, DEPTH_TOLERANCE)`.
//!
//! Oracles:
//! - no panic, no hang; every edit, pose and body the model calls invalid
//!   returns the typed `SceneError` (one of those that apply: `UnknownBody`,
//!   `SelfPair`, `BadMargin`, `PairCapacity { needed }` with the exact
//!   count, `BodyCapacity`, `Shape(_)`, `Pose { body, NonFinite |
//!   NotARotation }`), every valid one succeeds, and a refused call changes
//!   nothing: the scene's bodies, parents, pose translations, pair list
//!   (pairs, order, settings), allowed-collision matrix, adjacency and
//!   `find_pair` equal the model's before every tick;
//! - **`Clear` never inside the threshold**: a pair answered `Clear` has
//!   `lower_bound > threshold` and the truth's upper bound `hi ≥ threshold −
//!   band` (so never below its margin), and `lower_bound ≤ hi + band`;
//! - `Near` only in `DistanceUpTo` mode, with `margin ≤ lower ≤ threshold`
//!   and `hi ≥ margin − band`, `lo ≤ threshold + band + gap`;
//!   `WithinMargin` has `lo ≤ margin + band (+ gap)`, a measurement exactly
//!   outside `Clearance` mode (`gap`: the measurement's certificate width,
//!   below);
//! - measured signed distances agree with the truth: `lo − band − gap ≤ d
//!   ≤ hi + band + gap` (`|d − truth|` within it where exact), `gap` the
//!   width of the measurement's own certificate (the tolerance's at
//!   convergence, wider where rounding stalled the descent: GJK then
//!   answers with the bounds it reached); their certified bounds (finite)
//!   hold the truth within the band, and so do every undetermined answer's
//!   (within EPA's band: they may come from EPA); `lower ≤ d ≤ upper`; unit
//!   normal, finite witnesses, `point_b − point_a = d·normal` within the
//!   band, and a separation's witness points lie in their bodies (signed
//!   distance at most the band);
//! - a body without a pose makes its pairs `NoPose` and nothing else does;
//!   a pair decided by bounding spheres is `Clear`, used no iterations; a
//!   narrow-phase answer used at least one; no pair uses more than `4·cap`
//!   (the per-pair cap for the threshold query, the cap for `contact`'s GJK
//!   and twice it for EPA); with a budget of 0 every pair is culled,
//!   `NoPose` or `NotReached`, and with `4·cap` per pair (+3) none is
//!   `NotReached`; every bounding sphere holds its body;
//! - the summary's counts are those of the per-pair outcomes (an
//!   undetermined pair is never counted clear; `penetrating` counts a
//!   negative measured distance, or a negative certified upper bound where
//!   unmeasured), they add up to the pair count, `all_clear` agrees, the
//!   iterations are the pairs' sum and never exceed the budget, and
//!   `closest` is a decided pair with the smallest certified lower bound.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Matrix3, Quaternion, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::error::{SceneError, ShapeError};
use narrowphase::prelude::*;
use narrowphase::scene::{Measured, PairUndetermined, TickSummary};
use narrowphase::shape::{max_extent, min_extent, MAX_ASPECT};
use narrowphase::support::contact::DEPTH_TOLERANCE;
use shared::bodies::{rotation, slack, Rot};
use shared::checks::{finite_witness, known_reason, unit};
use shared::closed_form::{self, orthonormal, Bracket, Core, Solid};
use shared::num::{nums, Num};
use shared::seeds::{encode_enum, encode_struct, Rng};

/// Body capacity of the scene under test; inputs name up to two more.
const BODIES: usize = 8;
/// Pair capacity: fewer than the 28 pairs of eight bodies, so that
/// `pairs_from_tree` and `enable_pair` can overflow it.
const PAIRS: usize = 20;

type TheScene<R> = Scene<'static, R, BODIES, PAIRS>;
type V = Vector3<f64>;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ShapeIn {
    Sphere(Num),
    /// Half-length, radius.
    Capsule(Num, Num),
    Cuboid([Num; 3]),
    /// Half-extents of the inner box, rounding radius.
    RoundedCuboid([Num; 3], Num),
    /// Half-height, radius.
    Cylinder(Num, Num),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct BodyIn {
    shape: ShapeIn,
    parent: Option<u8>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum QueryIn {
    Clearance,
    DistanceUpTo(Num),
    Contact,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct SettingsIn {
    margin: Num,
    query: QueryIn,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Edit {
    Enable { a: u8, b: u8, settings: SettingsIn },
    Disable { a: u8, b: u8 },
    Allow { a: u8, b: u8 },
    Tree(SettingsIn),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Move {
    /// A new pose relative to the scene's offset.
    Place { body: u8, translation: [Num; 3], rotation: Rot },
    /// A small motion: `translation/1024` m, then the rotation by the
    /// axis-angle vector `rotation/512` rad in the body's frame.
    Nudge { body: u8, translation: [i8; 3], rotation: [i8; 3] },
    /// The whole scene moved to the offset `10^k · direction/|direction|`
    /// (`k = exponent % 4` in f32, `% 7` in f64; 0 for a zero direction).
    Shift { direction: [i8; 3], exponent: u8 },
    /// Entry `entry % 12` of the body's pose (9 of the rotation, row by
    /// row, then 3 of the translation) changed by `delta`.
    Perturb { body: u8, entry: u8, delta: Num },
    /// Column `column % 3` of the body's rotation negated: a reflection.
    Mirror { body: u8, column: u8 },
    /// `set_isometry` with the body's translation and the unchecked
    /// quaternion `q` (w, i, j, k).
    Quaternion { body: u8, q: [Num; 4] },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct PerPair {
    max_iterations: u8,
    /// Used where it lies in `(16ε, 0.01)` or is not a valid tolerance
    /// (NaN, ∞, negative: every query answers `InvalidBudget`); the default
    /// otherwise.
    tolerance: Option<Num>,
}

#[derive(Arbitrary, Debug, Clone)]
struct TickIn {
    edits: Vec<Edit>,
    moves: Vec<Move>,
    iterations: u16,
    per_pair: Option<PerPair>,
}

#[derive(Arbitrary, Debug, Clone)]
struct Input {
    f64: bool,
    /// Bodies through `add_bodies` rather than `add_body`.
    batch: bool,
    bodies: Vec<BodyIn>,
    allowed: Vec<(u8, u8)>,
    tree: SettingsIn,
    ticks: Vec<TickIn>,
}

encode_enum!(ShapeIn { Sphere(r), Capsule(h, r), Cuboid(h), RoundedCuboid(h, r), Cylinder(h, r) });
encode_struct!(BodyIn { shape, parent });
encode_enum!(QueryIn { Clearance, DistanceUpTo(b), Contact });
encode_struct!(SettingsIn { margin, query });
encode_enum!(Edit { Enable { a, b, settings }, Disable { a, b }, Allow { a, b }, Tree(s) });
encode_enum!(Move {
    Place { body, translation, rotation },
    Nudge { body, translation, rotation },
    Shift { direction, exponent },
    Perturb { body, entry, delta },
    Mirror { body, column },
    Quaternion { body, q },
});
encode_struct!(PerPair { max_iterations, tolerance });
encode_struct!(TickIn { edits, moves, iterations, per_pair });
encode_struct!(Input { f64, batch, bodies, allowed, tree, ticks });

/// Most inputs stay within these (the rest is ignored).
const MAX_INPUT_BODIES: usize = BODIES + 2;
const MAX_TICKS: usize = 12;
const MAX_EDITS: usize = 8;
const MAX_MOVES: usize = 16;

/// A body index: `0..=9` as given (8 and 9 are beyond the scene's
/// capacity), 250 and above as they are, the rest wrapped into `0..=9`.
fn index(i: u8) -> u16 {
    if i >= 250 {
        i as u16
    } else {
        (i % 10) as u16
    }
}

// ------------------------------------------------------------------ the model

/// What the model expects of a call that may be refused.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Valid,
    Invalid,
    /// Near a documented limit: either answer is right.
    Unsure,
}

/// The shape's description, its core and radius (f64, from the values in
/// `R`), and whether the constructors must accept it: sizes finite and
/// positive, within `[min_extent, max_extent]`, each group's ratio within
/// `MAX_ASPECT / ε` (with a factor 2 of room; between that and the limits
/// either answer is right).
fn shape<R: Real>(s: &ShapeIn) -> (ShapeDesc<'static, R>, Core, f64, Verdict) {
    let l = |x: &Num| R::lit(x.get());
    let f = |x: R| x.to_f64();
    let v3 = |h: &[Num; 3]| h.map(|x| l(&x));
    let (desc, core, radius, groups): (_, _, _, Vec<Vec<R>>) = match s {
        ShapeIn::Sphere(r) => (ShapeDesc::sphere(l(r)), Core::Point, f(l(r)), vec![vec![l(r)]]),
        ShapeIn::Capsule(h, r) => {
            (ShapeDesc::capsule(l(h), l(r)), Core::Segment { half: f(l(h)) }, f(l(r)), vec![vec![l(h), l(r)]])
        }
        ShapeIn::Cuboid(h) => {
            let h = v3(h);
            (ShapeDesc::cuboid(h), Core::Box { half: V::from(h.map(f)) }, 0.0, vec![h.to_vec()])
        }
        ShapeIn::RoundedCuboid(h, r) => {
            let h = v3(h);
            let core = Core::Box { half: V::from(h.map(f)) };
            (ShapeDesc::rounded_cuboid(h, l(r)), core, f(l(r)), vec![h.to_vec(), vec![l(r)]])
        }
        ShapeIn::Cylinder(h, r) => {
            let core = Core::Cylinder { half: f(l(h)), radius: f(l(r)) };
            (ShapeDesc::cylinder(l(h), l(r)), core, 0.0, vec![vec![l(h), l(r)]])
        }
    };
    let (lo, hi) = (2.0 * min_extent::<R>().to_f64(), 0.5 * max_extent::<R>().to_f64());
    let aspect = 0.5 * MAX_ASPECT / R::EPSILON.to_f64();
    let mut verdict = Verdict::Valid;
    for g in &groups {
        let g: Vec<f64> = g.iter().map(|x| x.to_f64()).collect();
        if g.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return (desc, core, radius, Verdict::Invalid);
        }
        let (min, max) = g.iter().fold((f64::INFINITY, 0.0_f64), |(a, b), x| (a.min(*x), b.max(*x)));
        if !(min >= lo && max <= hi && max <= aspect * min) {
            verdict = Verdict::Unsure;
        }
    }
    (desc, core, radius, verdict)
}

/// Whether `set_pose` must accept `pose`: finite, `RᵀR − I` within 1e-4
/// (`ROTATION_TOLERANCE`; within half of it accepted, beyond twice refused,
/// either answer in between: the scene computes the test in `R`), and no
/// reflection.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PoseVerdict {
    Rigid,
    NonFinite,
    NotARotation,
    Unsure,
}

fn pose_verdict<R: Real>(pose: &Pose<R>) -> PoseVerdict {
    let m = pose.rotation.matrix().map(|x| x.to_f64());
    let t = pose.translation.vector.map(|x| x.to_f64());
    if !m.iter().chain(t.iter()).all(|x| x.is_finite()) {
        return PoseVerdict::NonFinite;
    }
    let deviation = (m.transpose() * m - Matrix3::identity()).abs().max();
    if !(deviation <= 2e-4) || !(m.determinant() > 0.0) {
        PoseVerdict::NotARotation
    } else if deviation <= 0.5e-4 {
        PoseVerdict::Rigid
    } else {
        PoseVerdict::Unsure
    }
}

fn pose_of<R: Real>(t: &V, m: &Matrix3<f64>) -> Pose<R> {
    Pose::from_parts(Translation3::from(t.map(R::lit)), Rotation3::from_matrix_unchecked(m.map(R::lit)))
}

fn settings<R: Real>(s: &SettingsIn) -> PairSettings<R> {
    let query = match s.query {
        QueryIn::Clearance => PairQuery::Clearance,
        QueryIn::DistanceUpTo(b) => PairQuery::DistanceUpTo(R::lit(b.get())),
        QueryIn::Contact => PairQuery::Contact,
    };
    PairSettings::new(R::lit(s.margin.get()), query)
}

/// Margin (and bound) finite and not negative.
fn valid_settings<R: Real>(s: &PairSettings<R>) -> bool {
    let ok = |x: R| x.to_f64().is_finite() && x.to_f64() >= 0.0;
    ok(s.margin) && !matches!(s.query, PairQuery::DistanceUpTo(b) if !ok(b))
}

struct MBody<R: Real> {
    core: Core,
    radius: f64,
    parent: Option<u16>,
    /// The last pose the scene accepted.
    given: Option<Pose<R>>,
    /// The placement relative to the scene's offset (f64, rigid): what a
    /// small motion moves and a shift of the scene keeps.
    rel: (V, Matrix3<f64>),
}

impl<R: Real> MBody<R> {
    fn solid(&self) -> Option<Solid> {
        let g = self.given?;
        let rot = orthonormal(&g.rotation.matrix().map(|x| x.to_f64()));
        Some(Solid { core: self.core, radius: self.radius, rot, pos: g.translation.vector.map(|x| x.to_f64()) })
    }
}

struct Model<R: Real> {
    bodies: Vec<MBody<R>>,
    allowed: [[bool; BODIES]; BODIES],
    pairs: Vec<(u16, u16, PairSettings<R>)>,
    offset: V,
}

impl<R: Real> Model<R> {
    fn known(&self, i: u16) -> bool {
        (i as usize) < self.bodies.len()
    }
    fn find(&self, a: u16, b: u16) -> Option<usize> {
        self.pairs.iter().position(|p| (p.0 == a && p.1 == b) || (p.0 == b && p.1 == a))
    }
    fn adjacent(&self, a: u16, b: u16) -> bool {
        let parent = |i: u16| self.bodies.get(i as usize).and_then(|x| x.parent);
        parent(a) == Some(b) || parent(b) == Some(a)
    }
    fn allowed(&self, a: u16, b: u16) -> bool {
        self.known(a) && self.known(b) && self.allowed[a as usize][b as usize]
    }
    /// The pairs `pairs_from_tree` lists.
    fn tree(&self) -> Vec<(u16, u16)> {
        let n = self.bodies.len() as u16;
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| !self.adjacent(a, b) && !self.allowed(a, b))
            .collect()
    }
}

/// Checks a call's result: success is allowed when `may`, and required when
/// no error applies as well; a refusal must be one of `errors` (the errors
/// that apply; their order is not documented, so any of them).
fn expect<T: core::fmt::Debug>(
    what: &dyn core::fmt::Debug,
    r: &Result<T, SceneError>,
    errors: &[SceneError],
    may: bool,
) {
    let must = may && errors.is_empty();
    match r {
        Ok(_) => assert!(may, "{what:?}: accepted, expected one of {errors:?}"),
        Err(e) => {
            assert!(!must, "{what:?}: refused with {e:?}, expected success");
            assert!(errors.contains(e), "{what:?}: refused with {e:?}, expected one of {errors:?}");
        }
    }
}

// ------------------------------------------------------------------ the calls

fn add_bodies<R: Real>(scene: &mut TheScene<R>, model: &mut Model<R>, input: &Input) {
    let bodies: Vec<_> = input.bodies.iter().take(MAX_INPUT_BODIES).collect();
    let built: Vec<_> = bodies
        .iter()
        .map(|b| {
            let (shape, core, radius, verdict) = shape::<R>(&b.shape);
            let parent = b.parent.map(index);
            (BodyDesc { shape, parent }, core, radius, verdict)
        })
        .collect();
    // What adding body `k` (the model holding `n` bodies) must or may do.
    let expected = |k: usize, n: usize| {
        let (desc, _, _, verdict) = &built[k];
        let mut errors = Vec::new();
        if *verdict != Verdict::Valid {
            for e in [ShapeError::NonFinite, ShapeError::NonPositiveSize, ShapeError::BadAspect] {
                errors.push(SceneError::Shape(e));
            }
        }
        if let Some(p) = desc.parent.filter(|&p| p as usize >= n) {
            errors.push(SceneError::UnknownBody(p));
        }
        if n >= BODIES {
            errors.push(SceneError::BodyCapacity);
        }
        let may = *verdict != Verdict::Invalid && desc.parent.is_none_or(|p| (p as usize) < n) && n < BODIES;
        (errors, may)
    };
    let push = |model: &mut Model<R>, k: usize| {
        let (desc, core, radius, _) = &built[k];
        model.bodies.push(MBody {
            core: *core,
            radius: *radius,
            parent: desc.parent,
            given: None,
            rel: (V::zeros(), Matrix3::identity()),
        });
    };
    if input.batch {
        let descs: Vec<BodyDesc<'static, R>> = built.iter().map(|b| b.0).collect();
        let before = scene.bodies().len();
        let r = scene.add_bodies(&descs);
        let added = scene.bodies().len() - before;
        for k in 0..added {
            let (errors, may) = expected(k, model.bodies.len());
            expect(&("add_bodies: body", k, &bodies[k]), &Ok::<(), SceneError>(()), &errors, may);
            push(model, k);
        }
        match &r {
            Ok(()) => assert_eq!(added, built.len(), "add_bodies succeeded with {added} of {} bodies", built.len()),
            Err(_) => {
                assert!(added < built.len(), "add_bodies failed after adding every body: {r:?}");
                let (errors, may) = expected(added, model.bodies.len());
                expect(&("add_bodies: refused body", added, &bodies[added]), &r, &errors, may);
            }
        }
    } else {
        for k in 0..built.len() {
            let n = model.bodies.len();
            let (errors, may) = expected(k, n);
            let r = scene.add_body(&built[k].0);
            expect(&("add_body", k, &bodies[k]), &r, &errors, may);
            if let Ok(i) = r {
                assert_eq!(i as usize, n, "add_body returned index {i} for body {n}");
                push(model, k);
            }
        }
    }
}

fn edit<R: Real>(scene: &mut TheScene<R>, model: &mut Model<R>, e: &Edit) {
    let unknown = |model: &Model<R>, a: u16, b: u16| {
        let mut errors: Vec<SceneError> =
            [a, b].into_iter().filter(|&i| !model.known(i)).map(SceneError::UnknownBody).collect();
        if a == b {
            errors.push(SceneError::SelfPair);
        }
        errors
    };
    match *e {
        Edit::Enable { a, b, settings: s } => {
            let (a, b, s) = (index(a), index(b), settings::<R>(&s));
            let mut errors = unknown(model, a, b);
            if !valid_settings(&s) {
                errors.push(SceneError::BadMargin);
            }
            let listed = model.find(a, b);
            if listed.is_none() && model.pairs.len() >= PAIRS {
                errors.push(SceneError::PairCapacity { needed: model.pairs.len() + 1 });
            }
            let r = scene.enable_pair(a, b, &s);
            expect(&("enable_pair", a, b, s), &r, &errors, true);
            if let Ok(i) = r {
                match listed {
                    Some(j) => {
                        assert_eq!(i, j, "enable_pair({a}, {b}) of listed pair {j} returned {i}");
                        model.pairs[j].2 = s;
                    }
                    None => {
                        assert_eq!(i, model.pairs.len(), "enable_pair({a}, {b}) appended at {i}");
                        model.pairs.push((a, b, s));
                    }
                }
                model.allowed[a as usize][b as usize] = false;
                model.allowed[b as usize][a as usize] = false;
            }
        }
        Edit::Disable { a, b } | Edit::Allow { a, b } => {
            let (a, b) = (index(a), index(b));
            let errors = unknown(model, a, b);
            let r =
                if matches!(e, Edit::Disable { .. }) { scene.disable_pair(a, b) } else { scene.allow_collision(a, b) };
            expect(&(e, a, b), &r, &errors, true);
            if r.is_ok() {
                model.allowed[a as usize][b as usize] = true;
                model.allowed[b as usize][a as usize] = true;
                if let Some(j) = model.find(a, b) {
                    model.pairs.remove(j);
                }
            }
        }
        Edit::Tree(s) => {
            let s = settings::<R>(&s);
            let wanted = model.tree();
            let mut errors = Vec::new();
            if !valid_settings(&s) {
                errors.push(SceneError::BadMargin);
            }
            if wanted.len() > PAIRS {
                errors.push(SceneError::PairCapacity { needed: wanted.len() });
            }
            let r = scene.pairs_from_tree(&s);
            expect(&("pairs_from_tree", s), &r, &errors, true);
            if r.is_ok() {
                model.pairs = wanted.into_iter().map(|(a, b)| (a, b, s)).collect();
            }
        }
    }
}

/// Checks `set_pose`'s (or `set_isometry`'s) answer for `pose` against
/// the model; records an accepted pose.
fn posed<R: Real>(
    model: &mut Model<R>,
    what: &dyn core::fmt::Debug,
    body: u16,
    pose: &Pose<R>,
    r: Result<(), SceneError>,
) {
    let known = model.known(body);
    let verdict = pose_verdict(pose);
    let mut errors = Vec::new();
    if !known {
        errors.push(SceneError::UnknownBody(body));
    }
    match verdict {
        PoseVerdict::NonFinite => errors.push(SceneError::Pose { body, error: ShapeError::NonFinite }),
        PoseVerdict::NotARotation | PoseVerdict::Unsure => {
            errors.push(SceneError::Pose { body, error: ShapeError::NotARotation })
        }
        PoseVerdict::Rigid => {}
    }
    let may = known && matches!(verdict, PoseVerdict::Rigid | PoseVerdict::Unsure);
    expect(&(what, body, pose), &r, &errors, may);
    if r.is_ok() {
        let offset = model.offset;
        let b = &mut model.bodies[body as usize];
        b.given = Some(*pose);
        let t = pose.translation.vector.map(|x| x.to_f64());
        b.rel = (t - offset, orthonormal(&pose.rotation.matrix().map(|x| x.to_f64())));
    }
}

/// The body's relative placement (identity for an unknown or unposed body).
fn rel_of<R: Real>(model: &Model<R>, body: u16) -> (V, Matrix3<f64>) {
    match model.bodies.get(body as usize) {
        Some(b) if b.given.is_some() => b.rel,
        _ => (V::zeros(), Matrix3::identity()),
    }
}

/// The body's pose as last given (the offset alone for an unknown or
/// unposed body).
fn given_of<R: Real>(model: &Model<R>, body: u16) -> Pose<R> {
    match model.bodies.get(body as usize).and_then(|b| b.given) {
        Some(g) => g,
        None => pose_of(&model.offset, &Matrix3::identity()),
    }
}

/// `set_pose`, checked and recorded; whether the pose was accepted.
fn set_pose<R: Real>(
    scene: &mut TheScene<R>,
    model: &mut Model<R>,
    what: &dyn core::fmt::Debug,
    body: u16,
    pose: Pose<R>,
) -> bool {
    let r = scene.set_pose(body, &pose);
    let accepted = r.is_ok();
    posed(model, what, body, &pose, r);
    accepted
}

fn apply_move<R: Real>(scene: &mut TheScene<R>, model: &mut Model<R>, m: &Move) {
    let small_f32 = R::EPSILON.to_f64() > 1e-10;
    match *m {
        Move::Place { body, translation, rotation: rot } => {
            let body = index(body);
            let t = V::from(translation.map(|x| x.get()));
            let r = rotation::<f64>(&rot).into_inner();
            set_pose(scene, model, m, body, pose_of(&(t + model.offset), &r));
        }
        Move::Nudge { body, translation, rotation: w } => {
            let body = index(body);
            let (t, r) = rel_of(model, body);
            let dt = V::from(translation.map(|x| x as f64 / 1024.0));
            let dr = Rotation3::new(V::from(w.map(|x| x as f64 / 512.0))).into_inner();
            let (t, r) = (t + dt, orthonormal(&(r * dr)));
            // An accepted motion keeps the relative placement unrounded.
            if set_pose(scene, model, m, body, pose_of(&(t + model.offset), &r)) {
                model.bodies[body as usize].rel = (t, r);
            }
        }
        Move::Shift { direction, exponent } => {
            let s = V::from(direction.map(|x| x as f64));
            let k = exponent as i32 % if small_f32 { 4 } else { 7 };
            model.offset = if s.norm() > 0.0 { s * (10f64.powi(k) / s.norm()) } else { V::zeros() };
            for body in 0..model.bodies.len() as u16 {
                if model.bodies[body as usize].given.is_some() {
                    let (t, r) = model.bodies[body as usize].rel;
                    if set_pose(scene, model, m, body, pose_of(&(t + model.offset), &r)) {
                        model.bodies[body as usize].rel = (t, r);
                    }
                }
            }
        }
        Move::Perturb { body, entry, delta } => {
            let body = index(body);
            let mut pose = given_of(model, body);
            let d = R::lit(delta.get());
            let e = entry as usize % 12;
            if e < 9 {
                let mut rot = pose.rotation.into_inner();
                rot[(e / 3, e % 3)] += d;
                pose.rotation = Rotation3::from_matrix_unchecked(rot);
            } else {
                pose.translation.vector[e - 9] += d;
            }
            set_pose(scene, model, m, body, pose);
        }
        Move::Mirror { body, column } => {
            let body = index(body);
            let mut pose = given_of(model, body);
            let mut rot = pose.rotation.into_inner();
            let c = column as usize % 3;
            let negated = -rot.column(c);
            rot.set_column(c, &negated);
            pose.rotation = Rotation3::from_matrix_unchecked(rot);
            set_pose(scene, model, m, body, pose);
        }
        Move::Quaternion { body, q } => {
            let body = index(body);
            let l = |x: Num| R::lit(x.get());
            let q = UnitQuaternion::new_unchecked(Quaternion::new(l(q[0]), l(q[1]), l(q[2]), l(q[3])));
            let translation = given_of(model, body).translation;
            let iso = nalgebra::Isometry3::from_parts(translation, q);
            let r = scene.set_isometry(body, &iso);
            let finite = [q.w, q.i, q.j, q.k].iter().all(|x| x.to_f64().is_finite());
            // The pose `set_pose` is handed: the quaternion's matrix as it is.
            let pose =
                Pose::from_parts(translation, Rotation3::from_matrix_unchecked(q.to_rotation_matrix().into_inner()));
            if finite {
                posed(model, m, body, &pose, r);
            } else {
                let mut errors = vec![SceneError::Pose { body, error: ShapeError::NonFinite }];
                if !model.known(body) {
                    errors.push(SceneError::UnknownBody(body));
                }
                expect(&("set_isometry", body, q), &r, &errors, false);
            }
        }
    }
}

fn tick_budget<R: Real>(t: &TickIn) -> TickBudget<R> {
    let mut budget = TickBudget::new(t.iterations as u32);
    if let Some(p) = &t.per_pair {
        budget.per_pair.max_iterations = p.max_iterations as u32;
        if let Some(x) = p.tolerance.map(|x| R::lit(x.get())) {
            let f = x.to_f64();
            if !(f.is_finite() && f >= 0.0) || (f > 16.0 * R::EPSILON.to_f64() && f < 0.01) {
                budget.per_pair.tolerance = x;
            }
        }
    }
    budget
}

// ------------------------------------------------------------------ the checks

/// The scene holds what the model holds.
fn check_structure<R: Real>(scene: &TheScene<R>, model: &Model<R>) {
    let bodies = scene.bodies();
    assert_eq!(bodies.len(), model.bodies.len(), "body count");
    let eps = R::EPSILON.to_f64();
    for (i, (b, m)) in bodies.iter().zip(&model.bodies).enumerate() {
        assert_eq!(b.parent(), m.parent, "body {i}: parent");
        assert_eq!(b.has_pose(), m.given.is_some(), "body {i}: has_pose");
        let Some(given) = &m.given else { continue };
        assert_eq!(b.placed().pose().translation, given.translation, "body {i}: translation");
        // The world bounding sphere holds the body.
        let solid = m.solid().unwrap();
        let (c, r) = b.bounding_sphere();
        let (c, r) = (c.coords.map(|x| x.to_f64()), r.to_f64());
        let far = solid.farthest_from(&c);
        let rho = c.abs().max().max(solid.pos.abs().max());
        assert!(
            far <= r * (1.0 + 64.0 * eps) + 4.0 * eps * rho,
            "body {i}: bounding sphere ({c:?}, {r}) misses a point {far} away: {solid:?}"
        );
    }
    let pairs: Vec<_> = scene.pairs().iter().map(|p| (p.a, p.b, p.settings)).collect();
    assert_eq!(pairs, model.pairs, "pair list");
    let n = model.bodies.len() as u16;
    for a in 0..n {
        for b in 0..n {
            if a != b {
                assert_eq!(scene.is_allowed(a, b), model.allowed(a, b), "is_allowed({a}, {b})");
            }
            assert_eq!(scene.are_adjacent(a, b), model.adjacent(a, b), "are_adjacent({a}, {b})");
            assert_eq!(scene.find_pair(a, b), model.find(a, b), "find_pair({a}, {b})");
        }
    }
}

/// The bands of one pair (see the module's documentation).
struct Bands {
    /// Certified bounds, clear and near decisions, measured distances.
    band: f64,
    /// Measured penetrations (EPA's tolerance).
    depth: f64,
}

fn bands<R: Real>(a: &Solid, b: &Solid, tolerance: R) -> Bands {
    let size = (a.pos - b.pos).norm() + 2.0 * (a.circumradius() + b.circumradius());
    let rho = a.pos.abs().max().max(b.pos.abs().max());
    let t = tolerance.to_f64();
    let t = if t.is_finite() && t >= 0.0 { t } else { 0.0 };
    let coordinates = 2.0 * R::EPSILON.to_f64() * rho;
    Bands {
        band: slack(R::lit(t), size) + coordinates,
        depth: slack(R::lit(t.max(DEPTH_TOLERANCE)), size) + coordinates,
    }
}

/// Bounds hold the truth within `band`, without NaN, `lower ≤ upper`.
fn holds<R: Real>(what: &str, bounds: &Bounds<R>, truth: &Bracket, band: f64, o: &dyn core::fmt::Debug) {
    let (lo, hi) = (bounds.lower.to_f64(), bounds.upper.to_f64());
    assert!(!lo.is_nan() && !hi.is_nan() && lo <= hi, "{what}: bounds {bounds:?}: {o:?}");
    assert!(
        lo <= truth.hi + band && hi >= truth.lo - band,
        "{what}: bounds [{lo}, {hi}] miss the truth {truth:?} (band {band}): {o:?}"
    );
}

fn check_measured<R: Real>(
    what: &str,
    m: &Measured<R>,
    truth: &Bracket,
    a: &Solid,
    b: &Solid,
    bands: &Bands,
    o: &dyn core::fmt::Debug,
) {
    let d = m.signed_distance.to_f64();
    let band = if d < 0.0 { bands.depth } else { bands.band };
    assert!(d.is_finite(), "{what}: signed distance {d}: {o:?}");
    holds(what, &m.bounds, truth, band, o);
    let (lo, hi) = (m.bounds.lower.to_f64(), m.bounds.upper.to_f64());
    assert!(lo.is_finite() && hi.is_finite(), "{what}: measured bounds [{lo}, {hi}]: {o:?}");
    assert!(lo <= d && d <= hi, "{what}: signed distance {d} outside its bounds [{lo}, {hi}]: {o:?}");
    // A descent that rounding stalls before the tolerance answers with the
    // bounds it reached: the value is as good as its certificate's gap.
    let gap = hi - lo;
    assert!(
        truth.lo - band - gap <= d && d <= truth.hi + band + gap,
        "{what}: measured {d}, truth {truth:?} (band {band}, certificate gap {gap}): {o:?}"
    );
    finite_witness(what, &m.witness, o);
    unit(what, &m.witness.normal, o);
    let w = &m.witness;
    let (pa, pb, n) =
        (w.point_a.coords.map(|x| x.to_f64()), w.point_b.coords.map(|x| x.to_f64()), w.normal.map(|x| x.to_f64()));
    let off = ((pb - pa) - n * d).norm();
    assert!(off <= band, "{what}: point_b − point_a is {off} from d·normal (band {band}): {o:?}");
    if d > 0.0 {
        let (ea, eb) = (a.sd_point(&pa), b.sd_point(&pb));
        assert!(
            ea <= band && eb <= band,
            "{what}: witness points {ea}, {eb} outside their bodies (band {band}): {o:?}"
        );
    }
}

fn check_tick<R: Real + core::fmt::Display>(
    scene: &TheScene<R>,
    model: &Model<R>,
    budget: &TickBudget<R>,
    s: &TickSummary<R>,
) {
    let pairs = scene.pairs();
    let mut count = TickSummary::<R> { pairs: pairs.len() as u16, ..TickSummary::default() };
    let mut iterations = 0u64;
    for (i, p) in pairs.iter().enumerate() {
        let o = &p.outcome;
        iterations += p.iterations as u64;
        let settings = p.settings;
        let (margin, threshold) = (settings.margin, settings.threshold());
        let (mf, tf) = (margin.to_f64(), threshold.to_f64());
        let solids = (model.bodies[p.a as usize].solid(), model.bodies[p.b as usize].solid());
        let ctx = (i, p, &solids);
        let ctx: &dyn core::fmt::Debug = &ctx;

        // Bookkeeping.
        match o {
            PairOutcome::Clear { .. } => {
                count.clear += 1;
                count.culled += u16::from(p.culled);
            }
            PairOutcome::Near(_) => count.near += 1,
            PairOutcome::WithinMargin { bounds, measured } => {
                count.within_margin += 1;
                let overlap = measured.map_or(bounds.upper < R::ZERO, |m| m.signed_distance < R::ZERO);
                count.penetrating += u16::from(overlap);
            }
            PairOutcome::Undetermined { reason, .. } => {
                count.undetermined += 1;
                count.not_reached += u16::from(*reason == PairUndetermined::NotReached);
            }
        }
        if p.culled {
            assert!(matches!(o, PairOutcome::Clear { .. }) && p.iterations == 0, "culled but {ctx:?}");
        }
        let narrow = matches!(o, PairOutcome::Near(_) | PairOutcome::WithinMargin { .. })
            || matches!(o, PairOutcome::Clear { .. } if !p.culled);
        if narrow {
            assert!(p.iterations >= 1, "decided by the narrow phase with no iteration: {ctx:?}");
        }
        // The clearance query gets at most the cap, `contact` the cap for
        // GJK and twice it for EPA.
        let cap = budget.per_pair.max_iterations as u64;
        assert!(p.iterations as u64 <= 4 * cap, "{} iterations for a cap of {cap}: {ctx:?}", p.iterations);
        if budget.iterations as u64 >= 4 * cap * pairs.len() as u64 + 3 {
            assert!(
                !matches!(o, PairOutcome::Undetermined { reason: PairUndetermined::NotReached, .. }),
                "not reached with a budget of {} for {} pairs of cap {cap}: {ctx:?}",
                budget.iterations,
                pairs.len()
            );
        }
        if budget.iterations == 0 {
            let idle = matches!(
                o,
                PairOutcome::Undetermined { reason: PairUndetermined::NoPose | PairUndetermined::NotReached, .. }
            );
            assert!(p.culled || idle, "budget 0 but {ctx:?}");
        }
        let (Some(a), Some(b)) = solids else {
            assert!(
                matches!(o, PairOutcome::Undetermined { reason: PairUndetermined::NoPose, .. }),
                "a body without a pose, but {ctx:?}"
            );
            continue;
        };
        assert!(
            !matches!(o, PairOutcome::Undetermined { reason: PairUndetermined::NoPose, .. }),
            "NoPose with both bodies posed: {ctx:?}"
        );

        // Against the truth, where it is a number: f64 holds the squares of
        // every f32 coordinate, not of every f64 one.
        let truth = closed_form::signed_distance(&a, &b);
        let bands = bands(&a, &b, budget.per_pair.tolerance);
        if !(bands.depth < 1e150) || truth.lo.is_nan() || truth.hi.is_nan() {
            continue;
        }
        let band = bands.band;
        let ctx = (ctx, truth, band);
        match o {
            PairOutcome::Clear { lower_bound } => {
                let lower = lower_bound.to_f64();
                assert!(*lower_bound > threshold, "Clear with lower bound {lower} <= threshold {tf}: {ctx:?}");
                assert!(
                    truth.hi >= mf - band,
                    "CLEAR INSIDE THE MARGIN: the signed distance is at most {}, below the margin {mf} \
                     by more than the band {band}: {ctx:?}",
                    truth.hi
                );
                assert!(
                    truth.hi >= tf - band,
                    "Clear, but the signed distance {} is below the threshold {tf}: {ctx:?}",
                    truth.hi
                );
                assert!(lower <= truth.hi + band, "Clear with lower bound {lower} above the truth: {ctx:?}");
            }
            PairOutcome::Near(m) => {
                assert!(matches!(settings.query, PairQuery::DistanceUpTo(_)), "Near outside DistanceUpTo: {ctx:?}");
                let lower = m.bounds.lower;
                assert!(lower >= margin && lower <= threshold, "Near with lower bound {lower:?}: {ctx:?}");
                assert!(truth.hi >= mf - band, "Near, but the signed distance is below the margin: {ctx:?}");
                let gap = (m.bounds.upper - m.bounds.lower).to_f64();
                assert!(truth.lo <= tf + band + gap, "Near, but the signed distance is beyond the threshold: {ctx:?}");
                check_measured("Near", m, &truth, &a, &b, &bands, &ctx);
            }
            PairOutcome::WithinMargin { bounds, measured } => {
                let clearance = settings.query == PairQuery::Clearance;
                assert_eq!(measured.is_none(), clearance, "WithinMargin measured iff not in Clearance mode: {ctx:?}");
                let wide = if measured.is_some_and(|m| m.signed_distance < R::ZERO) { bands.depth } else { band };
                // A measurement is within the margin by its lower bound: the
                // distance may exceed it by the certificate's gap.
                let gap = measured.map_or(0.0, |m| (m.bounds.upper - m.bounds.lower).to_f64());
                assert!(
                    truth.lo <= mf + wide + gap,
                    "WithinMargin, but the signed distance is beyond the margin: {ctx:?}"
                );
                holds("WithinMargin", bounds, &truth, wide, &ctx);
                if let Some(m) = measured {
                    assert_eq!(*bounds, m.bounds, "WithinMargin's bounds are its measurement's: {ctx:?}");
                    check_measured("WithinMargin", m, &truth, &a, &b, &bands, &ctx);
                }
            }
            PairOutcome::Undetermined { reason, bounds } => {
                if let PairUndetermined::Query(r) = reason {
                    known_reason(r);
                }
                holds("Undetermined", bounds, &truth, bands.depth, &ctx);
            }
        }
    }

    // The summary.
    assert_eq!(
        (s.pairs, s.clear, s.culled, s.near, s.within_margin, s.penetrating, s.undetermined, s.not_reached),
        (
            count.pairs,
            count.clear,
            count.culled,
            count.near,
            count.within_margin,
            count.penetrating,
            count.undetermined,
            count.not_reached
        ),
        "summary {s:?} against the pairs' outcomes"
    );
    assert_eq!(s.clear + s.near + s.within_margin + s.undetermined, s.pairs, "counts do not add up: {s:?}");
    assert_eq!(s.all_clear(), s.within_margin == 0 && s.undetermined == 0, "all_clear: {s:?}");
    assert_eq!(s.iterations as u64, iterations, "summary iterations against the pairs' sum: {s:?}");
    assert!(s.iterations <= budget.iterations, "{} iterations over the budget {}", s.iterations, budget.iterations);
    let decided: Vec<(usize, Bounds<R>)> = pairs
        .iter()
        .enumerate()
        .filter(|(_, p)| !matches!(p.outcome, PairOutcome::Undetermined { .. }))
        .map(|(i, p)| (i, p.outcome.bounds()))
        .collect();
    match s.closest {
        None => assert!(decided.is_empty(), "no closest pair among {} decided: {s:?}", decided.len()),
        Some(c) => {
            let i = c.pair as usize;
            let mine = decided.iter().find(|(j, _)| *j == i);
            assert!(mine.is_some_and(|(_, b)| *b == c.bounds), "closest {c:?} is not a decided pair's bounds");
            for (j, b) in &decided {
                assert!(c.bounds.lower <= b.lower, "closest {c:?}, but pair {j} has lower bound {:?}", b.lower);
            }
        }
    }
    // The summary's one-line display: every count and bound formats.
    let _ = format!("{s}");
}

fn run<R: Real + core::fmt::Display>(input: &Input) {
    let mut scene = TheScene::<R>::new();
    let mut model =
        Model::<R> { bodies: Vec::new(), allowed: [[false; BODIES]; BODIES], pairs: Vec::new(), offset: V::zeros() };
    add_bodies(&mut scene, &mut model, input);
    for &(a, b) in input.allowed.iter().take(MAX_EDITS) {
        edit(&mut scene, &mut model, &Edit::Allow { a, b });
    }
    edit(&mut scene, &mut model, &Edit::Tree(input.tree));
    check_structure(&scene, &model);
    for t in input.ticks.iter().take(MAX_TICKS) {
        for e in t.edits.iter().take(MAX_EDITS) {
            edit(&mut scene, &mut model, e);
        }
        for m in t.moves.iter().take(MAX_MOVES) {
            apply_move(&mut scene, &mut model, m);
        }
        check_structure(&scene, &model);
        let budget = tick_budget::<R>(t);
        let summary = scene.tick(&budget);
        check_tick(&scene, &model, &budget, &summary);
    }
}

// ------------------------------------------------------------------ seeds

fn n(x: f64) -> Num {
    Num::of(x)
}

fn contact(margin: f64) -> SettingsIn {
    SettingsIn { margin: n(margin), query: QueryIn::Contact }
}

fn place(body: u8, t: [f64; 3], rotation: Rot) -> Move {
    Move::Place { body, translation: nums(t), rotation }
}

fn tick(moves: Vec<Move>, iterations: u16) -> TickIn {
    TickIn { edits: Vec::new(), moves, iterations, per_pair: None }
}

fn axis_angle(v: [f64; 3]) -> Rot {
    Rot::AxisAngle(nums(v))
}

/// Seeds: a robot cell (an arm of three links and a tool on a base, a
/// table, a person, an obstacle) through a stream of ticks — small motions,
/// a jump, the cell moved far from the origin, budgets from plenty to none,
/// invalid edits and poses; every pair of shape kinds at distances around
/// the margin in each query mode; random scenes and streams; capacity
/// overflows and invalid shapes; both precisions throughout.
fn seeds() -> Vec<Input> {
    let mut out = Vec::new();
    let mut rng = Rng::new(11);
    for f64 in [false, true] {
        out.push(cell(f64, &mut rng));
        out.push(Input { batch: true, ..cell(f64, &mut rng) });
    }
    // Every pair of kinds, B at a distance near the margin along x, each
    // query mode, then B creeping towards A and away.
    let kinds = |r: &mut Rng| {
        let s = |r: &mut Rng| n(r.pick(&[0.0625, 0.125, 0.25, 0.5]));
        [
            ShapeIn::Sphere(s(r)),
            ShapeIn::Capsule(s(r), s(r)),
            ShapeIn::Cuboid([s(r), s(r), s(r)]),
            ShapeIn::RoundedCuboid([s(r), s(r), s(r)], n(0.03125)),
            ShapeIn::Cylinder(s(r), s(r)),
        ]
    };
    for round in 0..2 {
        for ka in 0..5 {
            for kb in 0..5 {
                let (sa, sb) = (kinds(&mut rng)[ka], kinds(&mut rng)[kb]);
                let margin = rng.pick(&[0.0, 0.01, 0.05, 0.1]);
                let query = match rng.below(3) {
                    0 => QueryIn::Clearance,
                    1 => QueryIn::DistanceUpTo(n(margin + 0.125)),
                    _ => QueryIn::Contact,
                };
                let x = rng.pick(&[0.25, 0.5, 0.625, 0.75, 1.0, 1.25]);
                let rot = if round == 0 { Rot::Identity } else { axis_angle([0.25, -0.5, 0.75]) };
                let mut ticks = vec![tick(vec![place(0, [0.0; 3], Rot::Identity), place(1, [x, 0.0, 0.0], rot)], 1000)];
                for step in [-8i8, -8, -8, 16, 16] {
                    ticks.push(tick(
                        vec![Move::Nudge { body: 1, translation: [step, 1, 0], rotation: [0, 2, 1] }],
                        1000,
                    ));
                }
                out.push(Input {
                    f64: (ka + kb + round) % 2 == 0,
                    batch: false,
                    bodies: vec![BodyIn { shape: sa, parent: None }, BodyIn { shape: sb, parent: None }],
                    allowed: Vec::new(),
                    tree: SettingsIn { margin: n(margin), query },
                    ticks,
                });
            }
        }
    }
    for k in 0..48 {
        out.push(random_scene(k % 2 == 0, &mut rng));
    }
    // Capacity: ten bodies (two refused), 28 pairs wanted for 20, then
    // fewer after allowing some, then appended beyond the capacity.
    for f64 in [false, true] {
        let bodies = (0..10).map(|_| BodyIn { shape: ShapeIn::Sphere(n(0.125)), parent: None }).collect();
        let mut edits = vec![Edit::Tree(contact(0.05))];
        for b in 1..8 {
            edits.push(Edit::Allow { a: 0, b });
        }
        edits.push(Edit::Tree(contact(0.05)));
        edits.push(Edit::Enable { a: 0, b: 1, settings: contact(0.1) });
        edits.push(Edit::Enable { a: 0, b: 2, settings: contact(0.1) });
        let moves = (0..8).map(|i| place(i, [0.25 * i as f64, 0.0, 0.0], Rot::Identity)).collect();
        out.push(Input {
            f64,
            batch: f64,
            bodies,
            allowed: Vec::new(),
            tree: contact(0.05),
            ticks: vec![TickIn { edits, moves, iterations: 3000, per_pair: None }],
        });
    }
    // Invalid shapes and settings, and ticks before any pose.
    for f64 in [false, true] {
        let raw = |x: f64| Num::Raw(x);
        let shapes = [
            ShapeIn::Sphere(raw(f64::NAN)),
            ShapeIn::Capsule(n(-0.5), n(0.1)),
            ShapeIn::Cuboid([n(0.0), n(1.0), n(1.0)]),
            ShapeIn::Cylinder(raw(1e-9), n(100.0)),
            ShapeIn::RoundedCuboid([n(0.5); 3], raw(f64::INFINITY)),
            ShapeIn::Sphere(raw(1e30)),
            ShapeIn::Capsule(raw(1e-20), n(0.5)),
            ShapeIn::Sphere(n(0.25)),
            ShapeIn::Sphere(n(0.25)),
        ];
        let bodies = shapes.iter().map(|&shape| BodyIn { shape, parent: Some(7) }).collect();
        let bad = SettingsIn { margin: raw(f64::NAN), query: QueryIn::DistanceUpTo(n(-1.0)) };
        let edits = vec![
            Edit::Tree(bad),
            Edit::Enable { a: 0, b: 0, settings: contact(0.1) },
            Edit::Enable { a: 0, b: 9, settings: contact(0.1) },
            Edit::Enable { a: 255, b: 1, settings: bad },
            Edit::Allow { a: 1, b: 1 },
            Edit::Disable { a: 3, b: 8 },
        ];
        out.push(Input {
            f64,
            batch: !f64,
            bodies,
            allowed: vec![(0, 1), (250, 0)],
            tree: contact(0.05),
            ticks: vec![TickIn { edits, moves: Vec::new(), iterations: 100, per_pair: None }, tick(Vec::new(), 0)],
        });
    }
    out
}

/// Seeds: the robot cell and its stream of ticks.
fn cell(f64: bool, rng: &mut Rng) -> Input {
    let body = |shape, parent| BodyIn { shape, parent };
    let bodies = vec![
        body(ShapeIn::Cylinder(n(0.1), n(0.08)), None),   // 0 base
        body(ShapeIn::Capsule(n(0.2), n(0.05)), Some(0)), // 1 upper arm
        body(ShapeIn::Capsule(n(0.2), n(0.04)), Some(1)), // 2 forearm
        body(ShapeIn::RoundedCuboid(nums([0.03, 0.02, 0.04]), n(0.01)), Some(2)), // 3 tool
        body(ShapeIn::Cuboid(nums([0.4, 0.3, 0.02])), None), // 4 table
        body(ShapeIn::Capsule(n(0.3), n(0.15)), None),    // 5 torso
        body(ShapeIn::Sphere(n(0.1)), Some(5)),           // 6 head
        body(ShapeIn::Sphere(n(0.05)), None),             // 7 obstacle
    ];
    let person = SettingsIn { margin: n(0.15), query: QueryIn::DistanceUpTo(n(0.3)) };
    let first = TickIn {
        edits: vec![
            Edit::Enable { a: 2, b: 6, settings: person },
            Edit::Enable { a: 3, b: 5, settings: person },
            Edit::Enable { a: 3, b: 4, settings: SettingsIn { margin: n(0.02), query: QueryIn::Clearance } },
        ],
        moves: vec![
            place(0, [0.0, 0.0, 0.1], Rot::Identity),
            place(1, [0.0, 0.0, 0.45], Rot::Identity),
            place(2, [0.2, 0.0, 0.65], axis_angle([0.0, 1.5703125, 0.0])),
            place(3, [0.45, 0.0, 0.6], Rot::Identity),
            place(4, [0.6, 0.0, 0.3], Rot::Identity),
            place(5, [0.5, 0.55, 0.3], Rot::Identity),
            place(6, [0.5, 0.5, 0.75], Rot::Identity),
            place(7, [0.45, 0.0, 0.4], Rot::Identity),
        ],
        iterations: 2000,
        per_pair: None,
    };
    let mut ticks = vec![first];
    let mut small = || rng.range(-40, 40) as i8;
    for _ in 0..3 {
        let moves = (1..4)
            .map(|body| Move::Nudge {
                body,
                translation: [small(), small(), small()],
                rotation: [small(), small(), small()],
            })
            .collect();
        ticks.push(tick(moves, 2000));
    }
    ticks.push(tick(
        vec![place(3, [0.6, 0.0, 0.35], axis_angle([1.0, 0.0, 0.0])), place(7, [0.5, 0.4, 0.5], Rot::Identity)],
        2000,
    ));
    ticks.push(tick(vec![Move::Shift { direction: [3, -1, 2], exponent: if f64 { 6 } else { 3 } }], 2000));
    ticks.push(tick(vec![Move::Nudge { body: 2, translation: [-20, 0, 10], rotation: [0, 0, 30] }], 2000));
    ticks.push(tick(vec![Move::Nudge { body: 3, translation: [5, 5, -5], rotation: [0; 3] }], 20));
    ticks.push(tick(Vec::new(), 0));
    ticks.push(TickIn {
        edits: vec![
            Edit::Enable { a: 3, b: 3, settings: person },
            Edit::Enable { a: 1, b: 9, settings: person },
            Edit::Enable { a: 0, b: 7, settings: SettingsIn { margin: Num::Raw(f64::NAN), query: QueryIn::Contact } },
            Edit::Tree(SettingsIn { margin: n(-1.0), query: QueryIn::Contact }),
            Edit::Disable { a: 5, b: 6 },
        ],
        moves: vec![
            Move::Perturb { body: 2, entry: 0, delta: Num::Raw(f64::NAN) },
            Move::Perturb { body: 2, entry: 4, delta: n(0.01) },
            Move::Perturb { body: 2, entry: 10, delta: Num::Raw(f64::INFINITY) },
            Move::Perturb { body: 3, entry: 1, delta: Num::Raw(1e-6) },
            Move::Mirror { body: 1, column: 2 },
            Move::Quaternion { body: 4, q: nums([2.0, 0.0, 0.0, 0.0]) },
            Move::Quaternion { body: 6, q: nums([0.5, 0.5, 0.5, 0.5]) },
            Move::Quaternion { body: 5, q: [Num::Raw(f64::NAN), n(0.0), n(0.0), n(1.0)] },
            place(9, [0.0; 3], Rot::Identity),
            Move::Shift { direction: [0; 3], exponent: 0 },
        ],
        iterations: 5000,
        per_pair: Some(PerPair { max_iterations: 16, tolerance: Some(Num::Raw(1e-3)) }),
    });
    // 19 pairs: the 28 of eight bodies but the four adjacent ones and five
    // allowed (the person may lean on the table; the base cannot meet the
    // table or the person).
    let allowed = vec![(4, 5), (4, 6), (0, 4), (0, 5), (0, 6)];
    Input { f64, batch: false, bodies, allowed, tree: contact(0.05), ticks }
}

/// Seeds: a random scene of two to eight bodies near one another, a random
/// stream of ticks.
fn random_scene(f64: bool, rng: &mut Rng) -> Input {
    let count = rng.range(2, 8) as usize;
    let size = |rng: &mut Rng| Num::Small(rng.range(12, 128) as i16);
    let bodies = (0..count)
        .map(|i| {
            let shape = match rng.below(5) {
                0 => ShapeIn::Sphere(size(rng)),
                1 => ShapeIn::Capsule(size(rng), size(rng)),
                2 => ShapeIn::Cuboid([size(rng), size(rng), size(rng)]),
                3 => ShapeIn::RoundedCuboid([size(rng), size(rng), size(rng)], Num::Small(rng.range(1, 16) as i16)),
                _ => ShapeIn::Cylinder(size(rng), size(rng)),
            };
            let parent = (i > 0 && rng.below(3) == 0).then(|| rng.below(i) as u8);
            BodyIn { shape, parent }
        })
        .collect();
    let settings = |rng: &mut Rng| {
        let margin = Num::Small(rng.range(0, 40) as i16);
        let query = match rng.below(3) {
            0 => QueryIn::Clearance,
            1 => QueryIn::DistanceUpTo(Num::Small(rng.range(0, 80) as i16)),
            _ => QueryIn::Contact,
        };
        SettingsIn { margin, query }
    };
    let rot = |rng: &mut Rng| match rng.below(3) {
        0 => Rot::Identity,
        1 => Rot::AxisAngle([0; 3].map(|_| Num::Small(rng.range(-800, 800) as i16))),
        _ => Rot::Quat([0; 4].map(|_| Num::Small(rng.range(-256, 256) as i16))),
    };
    let coordinate = |rng: &mut Rng| Num::Small(rng.range(-200, 200) as i16);
    let mut ticks = Vec::new();
    let first = (0..count as u8)
        .map(|body| Move::Place { body, translation: [0; 3].map(|_| coordinate(rng)), rotation: rot(rng) })
        .collect();
    ticks.push(TickIn { edits: Vec::new(), moves: first, iterations: 4000, per_pair: None });
    for _ in 0..rng.range(2, 6) {
        let mut moves = Vec::new();
        for _ in 0..rng.range(1, 4) {
            let body = rng.below(count) as u8;
            let small = |rng: &mut Rng| rng.range(-60, 60) as i8;
            moves.push(match rng.below(10) {
                0 => Move::Place { body, translation: [0; 3].map(|_| coordinate(rng)), rotation: rot(rng) },
                1 => Move::Shift { direction: [0; 3].map(|_| rng.range(-5, 5) as i8), exponent: rng.range(0, 6) as u8 },
                2 => Move::Perturb {
                    body,
                    entry: rng.range(0, 11) as u8,
                    delta: Num::Raw(rng.pick(&[1e-7, 1e-5, 1e-3, f64::NAN])),
                },
                _ => {
                    Move::Nudge { body, translation: [0; 3].map(|_| small(rng)), rotation: [0; 3].map(|_| small(rng)) }
                }
            });
        }
        let edits = match rng.below(4) {
            0 => vec![Edit::Enable { a: rng.below(count) as u8, b: rng.below(count) as u8, settings: settings(rng) }],
            1 => vec![Edit::Allow { a: rng.below(count) as u8, b: rng.below(count) as u8 }],
            _ => Vec::new(),
        };
        let iterations = rng.pick(&[0, 3, 20, 100, 500, 4000]);
        let per_pair = (rng.below(3) == 0).then(|| PerPair {
            max_iterations: rng.pick(&[1, 4, 16, 64, 255]),
            tolerance: (rng.below(2) == 0).then(|| Num::Raw(rng.pick(&[1e-3, 1e-5, f64::NAN]))),
        });
        ticks.push(TickIn { edits, moves, iterations, per_pair });
    }
    Input { f64, batch: rng.below(2) == 0, bodies, allowed: Vec::new(), tree: settings(rng), ticks }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
