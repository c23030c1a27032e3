//! `EllipsoidMethod::solve_from` on two arbitrary SDF bodies, in f32 or f64,
//! in 3D and in 2D.
//!
//! 3D input: two bodies, each a primitive (sphere, cuboid, capsule, cylinder,
//! cone, capped cone, ellipsoid, bipyramid polytope with 3 to 40 ring
//! vertices, halfspace), optionally rounded or given a fake bounding ball,
//! placed by a pose (identity, axis-angle or a raw quaternion: a zero or huge
//! one gives a NaN or non-orthonormal rotation). Then an arbitrary budget
//! (at most 2000 iterations), collision (`Stop::Decided`) or distance
//! (`Stop::Converged`) mode, an optional `InitialRegion` — either genuine
//! (halfspaces from the support map or the bounding ball, an upper bound that
//! is a value of `φ_AB`) or arbitrary (wrong halfspaces, any bound) — a cold
//! query, then one body moves by an arbitrary translation, the motion is
//! declared with `warm.moved(m)` (a genuine over-estimate, or an arbitrary
//! value) and a warm query runs, beside a cold query on the moved pair.
//! 2D input: two of `BoxN<2>`, disc, stadium (`Capsule`) under `Transformed`
//! (angle, optional reflection, scale, translation), cold and warm.
//! Numbers are small fixed-point values or raw `f64` bits, as in
//! `gjk_distance.rs`.
//!
//! Oracles (every answer, cold and warm):
//! - no panic; no hang: `iterations <= max_iterations`;
//! - determined: `phi`, `x`, `point_a/b`, `normal`, `upper` finite, `lower`
//!   finite or −∞ (a collision query decided before any lower bound),
//!   `lower <= upper <= phi`; `Separated ⇒ upper > 0 and lower >= 0` (a
//!   proof: `lower > 0`, or a collision query's proof that `A ∩ B` is
//!   empty, with `lower = 0`); `Penetrating ⇒ upper <= 0` (a common point)
//!   or touching within the tolerance: `lower <= 0 < upper` with
//!   `upper − lower` within the method's documented tolerance
//!   (`tolerance · size + 16ε·(coords + size)`, `size` the larger finite
//!   bounding radius, `coords` the largest centre coordinate);
//! - `Undetermined`: bounds without NaN; `lower <= upper` unless a made-up
//!   `InitialRegion` or motion was given;
//!
//! Cross-checks, only when the input is "genuine" (finite orthonormal poses,
//! finite shapes, true bounding balls, `InitialRegion` absent or genuine,
//! declared motion ≥ the real one). `band` = `1e-3·size` (f32) or
//! `1e-6·size` (f64), `size` = largest finite bounding radius + largest
//! centre coordinate. The truth is GJK (`gjk::intersect` for the flag,
//! `gjk::distance` for bounds `[dl, du]` on the distance) on the same
//! `Placed` bodies; for a halfspace, the other body's support point along
//! `−n`; in 2D, GJK on the 3D bodies whose `z = 0` slices are the 2D shapes
//! (symmetric about that plane, so flags and distances are the same).
//! What the method certifies (module docs) and is checked:
//! - `Penetrating` with `upper <= 0` means a point with `φ̂_AB ≤ 0` (or a
//!   genuine upper bound `≤ 0`): with right-sign SDFs the bodies meet, so
//!   GJK's `dl ≤ 2·band`; touching within the tolerance (`upper > 0`) with
//!   exact SDFs bounds `φ* = dl/2` by `upper`: `dl ≤ 2·(upper + band)`
//!   (neither is checked when a body is `LooseLowerBound`: a rounded
//!   polytope or ellipsoid may report contact within its bound's error);
//! - `bounds.lower` is a certified lower bound of `φ*` (half the distance /
//!   minus the inscribed radius): every cut keeps the part of `E` where
//!   a supporting-halfspace linearisation is below the level, and each
//!   linearisation is `≤` the exact `φ_AB` (a supporting plane is below the
//!   SDF) and `A ∩ B ⊂ E` throughout, so when GJK says intersecting,
//!   `lower <= band` for every accuracy (a Separated answer with
//!   `lower > band` is a wrong flag); with exact SDFs (`certified` bounds:
//!   the cutting-plane argument needs convexity, which the lower-bound SDFs
//!   lack) also `lower <= du/2 + band` and `lower <= φ_AB(y) + band` at
//!   sample points `y`
//!   (centres, the segment between them, the answer's points) — this is how
//!   a "Separated" answer on a pair that overlaps by more than the band is
//!   caught (the answer may be `Separated` only when `φ* > −tol`);
//! - exact SDFs: `upper` is a value of `φ_AB` (or a genuine bound), so
//!   `upper >= dl/2 − band`;
//! - warm vs cold (moved pair): no `Penetrating` answer beside a
//!   `Separated` one with `lower > band` (conflicting certificates), or,
//!   for a `Penetrating` answer touching within the tolerance with exact
//!   SDFs, `lower > upper + band`.
//! Touching pairs (within the band) may get either flag.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Matrix2, Rotation3, SVector, Translation3, Vector2, Vector3};
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart, InitialRegion};
use narrowphase::sdf::{Ball, BoxN, CappedCone, Halfspace, Sdf, SdfAccuracy, SdfSample, SdfWarmStart, Transformed};
use shared::bodies::{bipyramid, seed_num, seed_rot, PolyStore, Rot};
use shared::checks::known_reason;
use shared::num::{nums, v3, Num};
use shared::seeds::{encode_enum, encode_struct, Rng};

type Body = shared::bodies::Body<Prim, Wrap>;

#[derive(Arbitrary, Debug)]
enum Prim {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Cone(Num, Num),
    /// Half-height, bottom and top radii.
    CappedCone(Num, Num, Num),
    Ellipsoid([Num; 3]),
    /// Ring of `3 + n % 38` vertices of radius `r` in z = 0, apexes at
    /// `+top` and `−bottom`.
    Bipyramid {
        n: u8,
        r: Num,
        top: Num,
        bottom: Num,
    },
    /// `n·x ≤ offset`.
    Halfspace([Num; 3], Num),
}

#[derive(Arbitrary, Debug)]
enum Wrap {
    None,
    Rounded(Num),
    /// The same SDF reporting this bounding ball (usually not a true one).
    BadBall([Num; 3], Num),
}

#[derive(Arbitrary, Debug)]
enum RegionIn {
    None,
    /// Halfspaces along these directions that do contain the bodies, and
    /// optionally `φ_AB` at a centre as the upper bound.
    Genuine {
        dir_a: Option<[Num; 3]>,
        dir_b: Option<[Num; 3]>,
        upper_at_a: Option<bool>,
    },
    /// Anything.
    Arbitrary {
        upper: Num,
        ha: Option<([Num; 3], Num)>,
        hb: Option<([Num; 3], Num)>,
    },
}

#[derive(Arbitrary, Debug)]
enum MotionIn {
    /// The true displacement plus `|extra|`.
    Genuine(Num),
    /// Anything (negative / non-finite: a cold start).
    Arbitrary(Num),
}

#[derive(Arbitrary, Debug)]
struct Query {
    max_iterations: u16,
    tolerance: Option<Num>,
    converged: bool,
}

#[derive(Arbitrary, Debug)]
struct Input3 {
    a: Body,
    b: Body,
    first: Query,
    region: RegionIn,
    move_b: bool,
    delta: [Num; 3],
    motion: MotionIn,
    second: Query,
}

#[derive(Arbitrary, Debug)]
enum Prim2 {
    Rect([Num; 2]),
    Disc(Num),
    /// Half-length along the local y axis, radius.
    Stadium(Num, Num),
}

#[derive(Arbitrary, Debug)]
struct Body2 {
    prim: Prim2,
    angle: Num,
    reflect: bool,
    scale: Num,
    translation: [Num; 2],
}

#[derive(Arbitrary, Debug)]
struct Input2 {
    a: Body2,
    b: Body2,
    first: Query,
    region: Option<(Num, Option<([Num; 2], Num)>, Option<([Num; 2], Num)>)>,
    delta: [Num; 2],
    motion: MotionIn,
    second: Query,
}

#[derive(Arbitrary, Debug)]
enum Input {
    F32(Input3),
    F64(Input3),
    F32in2D(Input2),
    F64in2D(Input2),
}

encode_enum!(Prim {
    Sphere(r),
    Cuboid(h),
    Capsule(h, r),
    Cylinder(h, r),
    Cone(h, r),
    CappedCone(h, rb, rt),
    Ellipsoid(a),
    Bipyramid { n, r, top, bottom },
    Halfspace(n, d),
});
encode_enum!(Wrap { None, Rounded(r), BadBall(c, r) });
encode_enum!(RegionIn { None, Genuine { dir_a, dir_b, upper_at_a }, Arbitrary { upper, ha, hb } });
encode_enum!(MotionIn { Genuine(x), Arbitrary(x) });
encode_struct!(Query { max_iterations, tolerance, converged });
encode_struct!(Input3 { a, b, first, region, move_b, delta, motion, second });
encode_enum!(Prim2 { Rect(h), Disc(r), Stadium(h, r) });
encode_struct!(Body2 { prim, angle, reflect, scale, translation });
encode_struct!(Input2 { a, b, first, region, delta, motion, second });
encode_enum!(Input { F32(i), F64(i), F32in2D(i), F64in2D(i) });

/// Every pair of primitive kinds, mostly genuine (true balls, no region or
/// a genuine one, declared motions at least the real ones) in both modes,
/// some with made-up balls, regions and motions; 2D pairs likewise.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(12);
    let num = |rng: &mut Rng, odd: bool| if odd { seed_num(rng) } else { Num::of(rng.pick(&[0.25, 0.5, 1.0, 1.5, 2.0])) };
    let mut out = Vec::new();
    for i in 0..400 {
        let odd = i % 6 == 5;
        let body = |k: usize, rng: &mut Rng| {
            let mut s = || num(rng, odd);
            let prim = match k % 9 {
                0 => Prim::Sphere(s()),
                1 => Prim::Cuboid([s(), s(), s()]),
                2 => Prim::Capsule(s(), s()),
                3 => Prim::Cylinder(s(), s()),
                4 => Prim::Cone(s(), s()),
                5 => Prim::CappedCone(s(), s(), s()),
                6 => Prim::Ellipsoid([s(), s(), s()]),
                7 => Prim::Bipyramid { n: (k * 7) as u8, r: s(), top: s(), bottom: s() },
                _ => Prim::Halfspace(nums([0.25, -0.5, 1.0]), s()),
            };
            let wrap = match rng.below(8) {
                0 => Wrap::Rounded(Num::of(0.25)),
                1 if odd => Wrap::BadBall(nums([0.0, 1.0, 0.0]), Num::of(0.5)),
                _ => Wrap::None,
            };
            let t = |rng: &mut Rng| Num::of(rng.pick(&[0.0, 0.5, 1.0, 2.0, 3.5, -1.5]));
            let translation = [t(rng), t(rng), t(rng)];
            let rotation = if odd { seed_rot(rng) } else { rng.pick(&[Rot::Identity, Rot::AxisAngle(nums([0.5, 0.25, -1.0]))]) };
            Body { prim, wrap, translation, rotation }
        };
        let query = |rng: &mut Rng| Query {
            max_iterations: if odd { rng.pick(&[0, 1, 5, 2000]) } else { 200 },
            tolerance: odd.then(|| seed_num(rng)),
            converged: rng.below(2) == 0,
        };
        let motion = if odd { MotionIn::Arbitrary(seed_num(&mut rng)) } else { MotionIn::Genuine(Num::of(0.0)) };
        let input = if i % 5 < 4 {
            let region = match i % 3 {
                0 => RegionIn::None,
                1 => RegionIn::Genuine { dir_a: Some(nums([1.0, 0.5, 0.0])), dir_b: None, upper_at_a: Some(i % 2 == 0) },
                _ if odd => RegionIn::Arbitrary { upper: seed_num(&mut rng), ha: Some((nums([1.0, 0.0, 0.0]), Num::of(1.0))), hb: None },
                _ => RegionIn::Genuine { dir_a: None, dir_b: Some(nums([0.0, -1.0, 0.5])), upper_at_a: None },
            };
            let (a, b) = (body(i % 9, &mut rng), body(i / 9 % 9, &mut rng));
            let delta = nums([rng.pick(&[0.0, 0.125, 1.0, -3.0]), 0.5, 0.0]);
            let i3 = Input3 { a, b, first: query(&mut rng), region, move_b: i % 2 == 0, delta, motion, second: query(&mut rng) };
            if i % 2 == 0 { Input::F64(i3) } else { Input::F32(i3) }
        } else {
            let b2 = |rng: &mut Rng| Body2 {
                prim: match rng.below(3) {
                    0 => Prim2::Rect([num(rng, odd), num(rng, odd)]),
                    1 => Prim2::Disc(num(rng, odd)),
                    _ => Prim2::Stadium(num(rng, odd), num(rng, odd)),
                },
                angle: Num::of(rng.pick(&[0.0, 0.5, 1.25, 3.0])),
                reflect: rng.below(4) == 0,
                scale: Num::of(rng.pick(&[0.5, 1.0, 2.0])),
                translation: nums([rng.pick(&[0.0, 1.0, 2.5]), rng.pick(&[0.0, -1.0, 0.5])]),
            };
            let (a, b) = (b2(&mut rng), b2(&mut rng));
            let region = odd.then(|| (seed_num(&mut rng), Some((nums([1.0, 0.0]), Num::of(2.0))), None));
            let i2 = Input2 { a, b, first: query(&mut rng), region, delta: nums([0.5, -0.25]), motion, second: query(&mut rng) };
            if i % 2 == 0 { Input::F64in2D(i2) } else { Input::F32in2D(i2) }
        };
        out.push(input);
    }
    out
}

/// What the 3D GJK cross-check needs of a body.
trait Convex<R: Real>: Sdf<R, 3> + SupportMap<R> + Bounded<R> {}
impl<R: Real, T: Sdf<R, 3> + SupportMap<R> + Bounded<R>> Convex<R> for T {}

/// An SDF with a made-up bounding ball.
struct BadBall<S, R: Real> {
    shape: S,
    ball: Ball<R, 3>,
}

impl<R: Real, S: Sdf<R, 3>> Sdf<R, 3> for BadBall<S, R> {
    fn eval(&self, x: &Vector3<R>) -> SdfSample<R, 3> {
        self.shape.eval(x)
    }
    fn eval_hinted(&self, x: &Vector3<R>, hint: &mut SdfWarmStart) -> SdfSample<R, 3> {
        self.shape.eval_hinted(x, hint)
    }
    fn accuracy(&self) -> SdfAccuracy {
        self.shape.accuracy()
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        self.ball
    }
}

/// The ring sizes this target draws (3 to 40; the store holds more): the
/// range is part of how the inputs decode.
const MAX_RING: usize = 40;

fn f64v<R: Real, const D: usize>(v: &SVector<R, D>) -> SVector<f64, D> {
    v.map(|x| x.to_f64())
}

/// A built body and what the oracles know about it.
enum Built<'a, R: Real> {
    /// Has a support map (GJK cross-check possible).
    Convex(Box<dyn Convex<R> + 'a>),
    /// SDF only: capped cone, halfspace, fake ball.
    SdfOnly(Box<dyn Sdf<R, 3> + 'a>),
}

#[derive(Default, Clone, Copy)]
struct Meta {
    /// The bounding ball contains the body.
    genuine: bool,
    /// A halfspace: local normal and offset (rounding included).
    half: Option<(Vector3<f64>, f64)>,
}

fn wrap_convex<'a, R: Real, S: Convex<R> + 'a>(s: S, w: &Wrap, meta: &mut Meta) -> Option<Built<'a, R>> {
    Some(match w {
        Wrap::None => Built::Convex(Box::new(s)),
        Wrap::Rounded(r) => Built::Convex(Box::new(Rounded::new(s, Sphere::new(R::lit(r.get())).ok()?))),
        Wrap::BadBall(c, r) => {
            meta.genuine = false;
            Built::SdfOnly(Box::new(BadBall { shape: s, ball: Ball { center: v3(c), radius: R::lit(r.get()) } }))
        }
    })
}

fn wrap_sdf<'a, R: Real, S: Sdf<R, 3> + 'a>(s: S, w: &Wrap, meta: &mut Meta) -> Option<Built<'a, R>> {
    Some(match w {
        Wrap::None => Built::SdfOnly(Box::new(s)),
        Wrap::Rounded(r) => {
            let sphere = Sphere::new(R::lit(r.get())).ok()?;
            if let Some((_, off)) = &mut meta.half {
                *off += sphere.radius().to_f64();
            }
            Built::SdfOnly(Box::new(Rounded::new(s, sphere)))
        }
        Wrap::BadBall(c, r) => {
            meta.genuine = false;
            Built::SdfOnly(Box::new(BadBall { shape: s, ball: Ball { center: v3(c), radius: R::lit(r.get()) } }))
        }
    })
}

fn build<'a, R: Real>(body: &Body, store: &'a mut PolyStore<R>) -> Option<(Built<'a, R>, Meta)> {
    let l = |x: &Num| R::lit(x.get());
    let mut meta = Meta { genuine: true, half: None };
    let w = &body.wrap;
    let built = match &body.prim {
        Prim::Sphere(r) => wrap_convex(Sphere::new(l(r)).ok()?, w, &mut meta),
        Prim::Cuboid(h) => wrap_convex(Cuboid::new(v3(h)).ok()?, w, &mut meta),
        Prim::Capsule(h, r) => wrap_convex(Capsule::new(l(h), l(r)).ok()?, w, &mut meta),
        Prim::Cylinder(h, r) => wrap_convex(Cylinder::new(l(h), l(r)).ok()?, w, &mut meta),
        Prim::Cone(h, r) => wrap_convex(Cone::new(l(h), l(r)).ok()?, w, &mut meta),
        Prim::CappedCone(h, rb, rt) => wrap_sdf(CappedCone::new(l(h), l(rb), l(rt)).ok()?, w, &mut meta),
        Prim::Ellipsoid(a) => wrap_convex(Ellipsoid::new(v3(a)).ok()?, w, &mut meta),
        Prim::Bipyramid { n, r, top, bottom } => {
            wrap_convex(bipyramid(store, MAX_RING, *n, *r, *top, *bottom)?, w, &mut meta)
        }
        Prim::Halfspace(n, off) => {
            let h = Halfspace::new(v3::<R>(n), l(off)).ok()?;
            meta.half = Some((f64v(&h.normal()), h.offset().to_f64()));
            wrap_sdf(h, w, &mut meta)
        }
    }?;
    Some((built, meta))
}

/// The pose, and whether it is finite and orthonormal.
fn pose<R: Real>(body: &Body) -> (Pose<R>, bool) {
    let p = shared::bodies::pose(body);
    (p, pose_ok(&p))
}

fn pose_ok<R: Real>(p: &Pose<R>) -> bool {
    let m = p.rotation.matrix().map(|x| x.to_f64());
    let finite = m.iter().all(|x| x.is_finite()) && f64v(&p.translation.vector).iter().all(|x| x.is_finite());
    finite && (m.transpose() * m - nalgebra::Matrix3::identity()).abs().max() < 64.0 * R::EPSILON.to_f64()
}

enum PlacedBody<'a, R: Real> {
    C(Placed<&'a dyn Convex<R>, R>),
    S(Placed<&'a dyn Sdf<R, 3>, R>),
}

impl<'a, R: Real> PlacedBody<'a, R> {
    fn new(b: &'a Built<'a, R>, pose: Pose<R>) -> Self {
        match b {
            Built::Convex(s) => PlacedBody::C(Placed::new(&**s, pose)),
            Built::SdfOnly(s) => PlacedBody::S(Placed::new(&**s, pose)),
        }
    }
    fn sdf(&self) -> &dyn Sdf<R, 3> {
        match self {
            PlacedBody::C(p) => p,
            PlacedBody::S(p) => p,
        }
    }
    fn support(&self) -> Option<&dyn SupportMap<R>> {
        match self {
            PlacedBody::C(p) => Some(p),
            PlacedBody::S(_) => None,
        }
    }
    fn pose(&self) -> &Pose<R> {
        match self {
            PlacedBody::C(p) => &p.pose(),
            PlacedBody::S(p) => &p.pose(),
        }
    }
}

fn budget<R: Real>(q: &Query) -> EllipsoidMethod<R> {
    let mut m = if q.converged { EllipsoidMethod::distance() } else { EllipsoidMethod::collision() };
    m.budget.max_iterations = (q.max_iterations % 2001) as u32;
    if let Some(t) = q.tolerance {
        m.budget.tolerance = R::lit(t.get());
    }
    m
}

/// The truth about a pair, where known.
#[derive(Debug, Clone)]
struct Truth {
    /// `Some(true)`: intersecting (within GJK's tolerance); `Some(false)`:
    /// apart; `None`: unknown.
    intersecting: Option<bool>,
    /// Bounds on the distance when apart.
    dist: Option<(f64, f64)>,
    /// `φ_AB` (exact SDFs) at sample points; `+inf` when not exact.
    sample_min: f64,
    band: f64,
    /// Both SDFs exact.
    exact: bool,
    /// A body is `LooseLowerBound`.
    loose: bool,
}

/// The method's tolerance on `f⁺ − f⁻` for the pair `a`, `b`, as
/// `EllipsoidMethod` documents it, with room for the rounding of that sum
/// and of the gap.
fn gap_tolerance<R: Real, const D: usize>(a: &dyn Sdf<R, D>, b: &dyn Sdf<R, D>, m: &EllipsoidMethod<R>) -> f64 {
    let (ba, bb) = (a.bounding_ball(), b.bounding_ball());
    let size = [ba.radius.to_f64(), bb.radius.to_f64()].into_iter().filter(|r| r.is_finite()).fold(0.0, f64::max);
    let coords = f64v(&ba.center).amax().max(f64v(&bb.center).amax());
    let eps = R::EPSILON.to_f64();
    (m.budget.tolerance.to_f64() * size + 16.0 * eps * (coords + size)) * (1.0 + 64.0 * eps)
}

fn check<R: Real, const D: usize>(
    what: &str,
    o: &EllipsoidMethodOutcome<R, D>,
    cap: u32,
    gap_tol: f64,
    sound: bool,
    truth: Option<&Truth>,
) {
    match o {
        EllipsoidMethodOutcome::Separated(c) | EllipsoidMethodOutcome::Penetrating(c) => {
            let (phi, lo, hi) = (c.phi.to_f64(), c.bounds.lower.to_f64(), c.bounds.upper.to_f64());
            assert!(c.iterations <= cap, "{what}: {} iterations > cap {cap}: {o:?}", c.iterations);
            // `lower` may be −∞ (no lower bound yet: a collision query decided at
            // once), never NaN or +∞.
            assert!(
                phi.is_finite() && !lo.is_nan() && lo < f64::INFINITY && hi.is_finite(),
                "{what}: non-finite answer {o:?}"
            );
            let all = c.x.iter().chain(c.point_a.iter()).chain(c.point_b.iter()).chain(c.normal.iter());
            assert!(all.map(|x| x.to_f64()).all(f64::is_finite), "{what}: non-finite point {o:?}");
            assert!(lo <= hi, "{what}: lower above upper {o:?}");
            assert!(hi <= phi, "{what}: upper bound above phi (the value at x) {o:?}");
            let penetrating = matches!(o, EllipsoidMethodOutcome::Penetrating(_));
            if penetrating {
                let rounding = 4.0 * R::EPSILON.to_f64() * (hi.abs() + lo.abs());
                assert!(
                    hi <= 0.0 || (lo <= 0.0 && hi - lo <= gap_tol + rounding),
                    "{what}: Penetrating with upper > 0, neither a common point nor touching within the tolerance {gap_tol} {o:?}"
                );
            } else {
                assert!(hi > 0.0 && lo >= 0.0, "{what}: Separated without a proof (upper <= 0 or lower < 0) {o:?}");
            }
            let Some(t) = truth else { return };
            let band = t.band;
            if penetrating && !t.loose {
                if let Some((dl, _)) = t.dist {
                    // Touching within the tolerance: `upper` bounds `φ*` for exact SDFs only.
                    let reach = if hi <= 0.0 {
                        0.0
                    } else if t.exact {
                        hi
                    } else {
                        f64::INFINITY
                    };
                    assert!(
                        dl <= 2.0 * (band + reach),
                        "{what}: Penetrating but GJK distance >= {dl} (band {band}) {o:?} {t:?}"
                    );
                }
            }
            if let Some((dl, du)) = t.dist {
                if t.exact {
                    assert!(
                        lo <= du * 0.5 + band,
                        "{what}: lower {lo} above half the GJK distance <= {du} {o:?} {t:?}"
                    );
                    assert!(
                        hi >= dl * 0.5 - band,
                        "{what}: upper {hi} below half the GJK distance >= {dl} {o:?} {t:?}"
                    );
                }
            }
            if t.intersecting == Some(true) {
                assert!(lo <= band, "{what}: certified apart (lower {lo}) but GJK intersects {o:?} {t:?}");
            }
            if t.exact {
                assert!(
                    lo <= t.sample_min + band,
                    "{what}: lower {lo} above φ_AB = {} at a sample point (band {band}) {o:?} {t:?}",
                    t.sample_min
                );
            }
        }
        EllipsoidMethodOutcome::Undetermined { reason, bounds, iterations } => {
            known_reason(reason);
            assert!(*iterations <= cap, "{what}: {iterations} iterations > cap {cap}: {o:?}");
            let (lo, hi) = (bounds.lower.to_f64(), bounds.upper.to_f64());
            assert!(!lo.is_nan() && !hi.is_nan(), "{what}: NaN bounds {o:?}");
            // A made-up `InitialRegion::upper_bound` (below the truth) can
            // leave them crossed: only checked when the inputs are sound.
            // So can a fake ball with an infinite tolerance (`tolerance·size`
            // = `inf·0` = NaN never stops the loop; the last cut may leave
            // `lower` an ulp above `upper`): checked on genuine inputs only.
            assert!(!(lo > hi) || !sound || truth.is_none(), "{what}: lower above upper {o:?}");
            // Certified bounds even when undetermined.
            if let Some(t) = truth {
                if let (Some((_, du)), true) = (t.dist, t.exact) {
                    assert!(lo <= du * 0.5 + t.band, "{what}: lower {lo} above half the GJK distance <= {du} {o:?}");
                }
                if t.intersecting == Some(true) {
                    assert!(lo <= t.band, "{what}: lower {lo} > 0 but GJK intersects {o:?} {t:?}");
                }
                if t.exact {
                    assert!(lo <= t.sample_min + t.band, "{what}: lower {lo} above φ_AB at a sample {o:?} {t:?}");
                }
            }
        }
    }
}

/// Conflicting certificates between two answers on the same pair: a
/// separation certified beyond what the contact answer allows (`band`, or
/// its upper bound plus `band` when it is touching within the tolerance with
/// exact SDFs; nothing then with other SDFs, whose values bound nothing
/// from above).
fn agree<R: Real, const D: usize>(x: &EllipsoidMethodOutcome<R, D>, y: &EllipsoidMethodOutcome<R, D>, t: &Truth) {
    if t.loose {
        return;
    }
    for (p, s) in [(x, y), (y, x)] {
        if let (EllipsoidMethodOutcome::Penetrating(c), EllipsoidMethodOutcome::Separated(d)) = (p, s) {
            let hi = c.bounds.upper.to_f64();
            let reach = if hi <= 0.0 {
                0.0
            } else if t.exact {
                hi
            } else {
                f64::INFINITY
            };
            let band = t.band;
            assert!(
                d.bounds.lower.to_f64() <= band + reach,
                "warm and cold answers conflict: {p:?} vs {s:?} (band {band})"
            );
        }
    }
}

fn is_exact(a: SdfAccuracy) -> bool {
    a == SdfAccuracy::Exact
}

fn eval_ab<R: Real, const D: usize>(a: &dyn Sdf<R, D>, b: &dyn Sdf<R, D>, y: &SVector<R, D>) -> f64 {
    let (fa, fb) = (a.eval(y).value.to_f64(), b.eval(y).value.to_f64());
    if fa.is_nan() || fb.is_nan() {
        f64::INFINITY
    } else {
        fa.max(fb)
    }
}

/// Sample points: ball centres, the segment between them.
fn samples<R: Real, const D: usize>(a: &dyn Sdf<R, D>, b: &dyn Sdf<R, D>, extra: &[SVector<R, D>]) -> f64 {
    let (ca, cb) = (a.bounding_ball().center, b.bounding_ball().center);
    let mut best = f64::INFINITY;
    for k in 0..=8 {
        let t = R::lit(k as f64 / 8.0);
        best = best.min(eval_ab(a, b, &(ca + (cb - ca) * t)));
    }
    for y in extra {
        best = best.min(eval_ab(a, b, y));
    }
    best
}

fn size_of<R: Real, const D: usize>(a: &dyn Sdf<R, D>, b: &dyn Sdf<R, D>) -> f64 {
    let (ba, bb) = (a.bounding_ball(), b.bounding_ball());
    let r = [ba.radius.to_f64(), bb.radius.to_f64()].into_iter().filter(|r| r.is_finite()).fold(0.0, f64::max);
    let c = f64v(&ba.center).amax().max(f64v(&bb.center).amax());
    r + c
}

fn band_of<R: Real>(size: f64) -> f64 {
    let rel = if R::EPSILON.to_f64() > 1e-10 { 1e-3 } else { 1e-6 };
    rel * size
}

/// GJK truth for two 3D bodies with support maps, or a halfspace and one.
fn gjk_truth<R: Real>(
    a: &PlacedBody<'_, R>,
    ma: &Meta,
    b: &PlacedBody<'_, R>,
    mb: &Meta,
) -> (Option<bool>, Option<(f64, f64)>) {
    let budget = Budget::<R>::default();
    if let (Some(sa), Some(sb)) = (a.support(), b.support()) {
        let flag = match gjk::intersect(sa, sb, &budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(_) => Some(false),
            GjkOutcome::Penetrating(_) => Some(true),
            GjkOutcome::Undetermined { .. } => None,
        };
        let dist = match gjk::distance(sa, sb, &Budget { max_iterations: 200, ..budget }, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(s) => Some((s.bounds.lower.to_f64(), s.bounds.upper.to_f64())),
            _ => None,
        };
        let dist = if flag == Some(true) { None } else { dist };
        return (flag, dist);
    }
    // A halfspace against a convex body: the other body's lowest point.
    let half = |h: &PlacedBody<'_, R>, m: &Meta, other: &PlacedBody<'_, R>| -> Option<f64> {
        let (n, off) = m.half?;
        let s = other.support()?;
        let p = h.pose();
        let rot = p.rotation.matrix().map(|x| x.to_f64());
        let t = f64v(&p.translation.vector);
        let nw = rot * n;
        let offw = off + nw.dot(&t);
        let dir = Vector3::new(R::lit(-nw.x), R::lit(-nw.y), R::lit(-nw.z));
        let lowest = f64v(&s.support(&dir).coords);
        // The body is `{n·x ≤ offset}` whatever `|n|` is.
        Some((nw.dot(&lowest) - offw) / nw.norm())
    };
    let gap = half(a, ma, b).or_else(|| half(b, mb, a));
    match gap {
        Some(g) if g.is_finite() => (Some(g <= 0.0), (g > 0.0).then_some((g, g))),
        _ => (None, None),
    }
}

fn truth3<R: Real>(a: &PlacedBody<'_, R>, ma: &Meta, b: &PlacedBody<'_, R>, mb: &Meta, extra: &[Vector3<R>]) -> Truth {
    let (sa, sb) = (a.sdf(), b.sdf());
    let exact = is_exact(sa.accuracy()) && is_exact(sb.accuracy());
    let loose = [sa.accuracy(), sb.accuracy()].contains(&SdfAccuracy::LooseLowerBound);
    let (intersecting, dist) = gjk_truth(a, ma, b, mb);
    let mut pts: Vec<Vector3<R>> = extra.to_vec();
    pts.push(a.pose().translation.vector);
    pts.push(b.pose().translation.vector);
    let sample_min = if exact { samples(sa, sb, &pts) } else { f64::INFINITY };
    Truth { intersecting, dist, sample_min, band: band_of::<R>(size_of(sa, sb)), exact, loose }
}

fn contact_points<R: Real, const D: usize>(o: &EllipsoidMethodOutcome<R, D>) -> Vec<SVector<R, D>> {
    o.contact().map(|c| vec![c.x, c.point_a, c.point_b]).unwrap_or_default()
}

fn region3<R: Real>(r: &RegionIn, a: &PlacedBody<'_, R>, b: &PlacedBody<'_, R>) -> (InitialRegion<R, 3>, bool) {
    match r {
        RegionIn::None => (InitialRegion::default(), true),
        RegionIn::Genuine { dir_a, dir_b, upper_at_a } => {
            let mut region = InitialRegion::default();
            let eps = R::EPSILON.to_f64();
            let contain = |body: &PlacedBody<'_, R>, d: &[Num; 3]| -> Option<(Vector3<R>, R)> {
                let h = v3::<R>(d);
                let hf = f64v(&h);
                if !hf.iter().all(|x| x.is_finite()) || hf.norm() == 0.0 {
                    return None;
                }
                let delta = match body.support() {
                    Some(s) => hf.dot(&f64v(&s.support(&h).coords)),
                    None => {
                        let ball = body.sdf().bounding_ball();
                        hf.dot(&f64v(&ball.center)) + hf.norm() * ball.radius.to_f64()
                    }
                };
                let slack = 64.0 * eps * hf.norm() * (1.0 + size_of(a.sdf(), b.sdf()));
                let delta = delta + slack;
                delta.is_finite().then(|| (h, R::lit(delta * (1.0 + 4.0 * eps.copysign(delta)))))
            };
            region.halfspace_a = dir_a.as_ref().and_then(|d| contain(a, d));
            region.halfspace_b = dir_b.as_ref().and_then(|d| contain(b, d));
            if let Some(at_a) = upper_at_a {
                let y = if *at_a { a.pose().translation.vector } else { b.pose().translation.vector };
                let v = eval_ab(a.sdf(), b.sdf(), &y);
                if v.is_finite() {
                    let slack = 64.0 * eps * (1.0 + size_of(a.sdf(), b.sdf()) + v.abs());
                    region.upper_bound = R::lit(v + slack);
                }
            }
            (region, true)
        }
        RegionIn::Arbitrary { upper, ha, hb } => {
            let hs = |h: &Option<([Num; 3], Num)>| h.as_ref().map(|(n, d)| (v3::<R>(n), R::lit(d.get())));
            (InitialRegion { upper_bound: R::lit(upper.get()), halfspace_a: hs(ha), halfspace_b: hs(hb) }, false)
        }
    }
}

/// Declared motion, and whether it is sound: at least the real one once
/// rounded to `R`, or negative / non-finite (a cold start). A tiny negative
/// `f64` rounds to `−0.0` in f32, which `moved` takes as a motion of 0.
fn motion<R: Real>(m: &MotionIn, real: f64) -> (R, bool) {
    let eps = R::EPSILON.to_f64();
    let v = match m {
        MotionIn::Genuine(extra) => {
            let e = extra.get().abs();
            (real + if e.is_finite() { e } else { 0.0 }) * (1.0 + 16.0 * eps)
        }
        MotionIn::Arbitrary(v) => v.get(),
    };
    let r = R::lit(v);
    let rv = r.to_f64();
    (r, !(rv >= 0.0 && rv.is_finite()) || rv >= real)
}

fn run3<R: Real>(input: &Input3) {
    let (mut store_a, mut store_b) = (PolyStore::<R>::new(), PolyStore::<R>::new());
    let Some((sa, ma)) = build::<R>(&input.a, &mut store_a) else { return };
    let Some((sb, mb)) = build::<R>(&input.b, &mut store_b) else { return };
    let (pa, oka) = pose::<R>(&input.a);
    let (pb, okb) = pose::<R>(&input.b);
    let a = PlacedBody::new(&sa, pa);
    let b = PlacedBody::new(&sb, pb);
    let finite_ball = |s: &dyn Sdf<R, 3>| {
        let ball = s.bounding_ball();
        ball.center.iter().all(|c| c.to_f64().is_finite()) && !ball.radius.to_f64().is_nan()
    };
    let genuine_bodies = ma.genuine && mb.genuine && oka && okb && finite_ball(a.sdf()) && finite_ball(b.sdf());

    let (region, region_ok) = region3(&input.region, &a, &b);
    let method = budget::<R>(&input.first);
    let mut warm = EllipsoidWarmStart::<R, 3>::default();
    let first = method.solve_from(a.sdf(), b.sdf(), &mut warm, &region);
    let genuine = genuine_bodies && region_ok;
    let truth = genuine.then(|| truth3(&a, &ma, &b, &mb, &contact_points(&first)));
    let tol = gap_tolerance(a.sdf(), b.sdf(), &method);
    check("cold query", &first, method.budget.max_iterations, tol, region_ok, truth.as_ref());

    // Move one body, declare the motion, query warm and cold.
    let delta = v3::<R>(&input.delta);
    let moved_pose = |p: &Pose<R>| Pose::from_parts(Translation3::from(p.translation.vector + delta), p.rotation);
    let (pa2, pb2) = if input.move_b { (pa, moved_pose(&pb)) } else { (moved_pose(&pa), pb) };
    let real = (f64v(&pa2.translation.vector) - f64v(&pa.translation.vector)).norm()
        + (f64v(&pb2.translation.vector) - f64v(&pb.translation.vector)).norm();
    let a2 = PlacedBody::new(&sa, pa2);
    let b2 = PlacedBody::new(&sb, pb2);
    let (m, m_ok) = motion::<R>(&input.motion, real);
    warm.moved(m);
    let method2 = budget::<R>(&input.second);
    let second = method2.solve(a2.sdf(), b2.sdf(), &mut warm);
    let cold = method2.solve(a2.sdf(), b2.sdf(), &mut EllipsoidWarmStart::default());
    let genuine2 = genuine_bodies && real.is_finite() && pose_ok(&pa2) && pose_ok(&pb2);
    let mut pts = contact_points(&second);
    pts.extend(contact_points(&cold));
    let truth2 = genuine2.then(|| truth3(&a2, &ma, &b2, &mb, &pts));
    // The warm query also inherits the first query's region-based knowledge
    // (its bounds): only sound when that region was genuine.
    let tol2 = gap_tolerance(a2.sdf(), b2.sdf(), &method2);
    check(
        "warm query",
        &second,
        method2.budget.max_iterations,
        tol2,
        m_ok && region_ok,
        truth2.as_ref().filter(|_| m_ok && region_ok),
    );
    check("cold query on the moved pair", &cold, method2.budget.max_iterations, tol2, true, truth2.as_ref());
    if let Some(t) = &truth2 {
        if m_ok && region_ok {
            agree(&second, &cold, t);
        }
    }
}

// ---------------------------------------------------------------------------
// 2D

fn rot2<R: Real>(angle: f64, reflect: bool) -> Matrix2<R> {
    let (s, c) = angle.sin_cos();
    let m = Matrix2::new(c, -s, s, c);
    let m = if reflect { m * Matrix2::new(1.0, 0.0, 0.0, -1.0) } else { m };
    m.map(R::lit)
}

/// The 2D body and the 3D body whose `z = 0` slice it is.
type Body3Of<R> = Placed<Box<dyn Convex<R>>, R>;

fn build2<R: Real>(b: &Body2, delta: Vector2<R>) -> Option<(Box<dyn Sdf<R, 2>>, Option<Body3Of<R>>)> {
    let l = |x: &Num| R::lit(x.get());
    let angle = b.angle.get();
    let q = rot2::<R>(angle, b.reflect);
    let scale = l(&b.scale);
    let t = Vector2::new(l(&b.translation[0]), l(&b.translation[1])) + delta;
    let s = scale.to_f64();
    let (two, three): (Box<dyn Sdf<R, 2>>, Option<Box<dyn Convex<R>>>) = match &b.prim {
        Prim2::Rect(h) => {
            let he = Vector2::new(l(&h[0]), l(&h[1]));
            let three = Cuboid::new(Vector3::new(
                R::lit(he.x.to_f64() * s),
                R::lit(he.y.to_f64() * s),
                R::lit((he.x.to_f64() + he.y.to_f64()) * s),
            ))
            .ok()
            .map(|c| Box::new(c) as Box<dyn Convex<R>>);
            (Box::new(Transformed::new(BoxN::new(he).ok()?, q, scale, t).ok()?), three)
        }
        Prim2::Disc(r) => {
            let three = Sphere::new(R::lit(r.get() * s)).ok().map(|c| Box::new(c) as Box<dyn Convex<R>>);
            (Box::new(Transformed::new(Sphere::new(l(r)).ok()?, q, scale, t).ok()?), three)
        }
        Prim2::Stadium(h, r) => {
            let three =
                Capsule::new(R::lit(h.get() * s), R::lit(r.get() * s)).ok().map(|c| Box::new(c) as Box<dyn Convex<R>>);
            (Box::new(Transformed::new(Capsule::new(l(h), l(r)).ok()?, q, scale, t).ok()?), three)
        }
    };
    // 3D: rotate the local z axis (the capsule's) onto y, then by the angle
    // about z (the shapes are symmetric, so a reflection changes nothing).
    let rx = Rotation3::from_axis_angle(&Vector3::x_axis(), -core::f64::consts::FRAC_PI_2);
    let rz = Rotation3::from_axis_angle(&Vector3::z_axis(), angle);
    let rot = if matches!(b.prim, Prim2::Stadium(..)) { rz * rx } else { rz };
    let rot = Rotation3::from_matrix_unchecked(rot.matrix().map(R::lit));
    let pose = Pose::from_parts(Translation3::new(t.x, t.y, R::ZERO), rot);
    let three = three.filter(|_| pose_ok(&pose) && angle.is_finite()).map(|s| Placed::new(s, pose));
    Some((two, three))
}

fn run2<R: Real>(input: &Input2) {
    let Some((a, a3)) = build2::<R>(&input.a, Vector2::zeros()) else { return };
    let Some((b, b3)) = build2::<R>(&input.b, Vector2::zeros()) else { return };
    let l = |x: &Num| R::lit(x.get());
    let v2 = |n: &[Num; 2]| Vector2::new(l(&n[0]), l(&n[1]));
    let region = match &input.region {
        None => InitialRegion::default(),
        Some((u, ha, hb)) => InitialRegion {
            upper_bound: l(u),
            halfspace_a: ha.as_ref().map(|(n, d)| (v2(n), l(d))),
            halfspace_b: hb.as_ref().map(|(n, d)| (v2(n), l(d))),
        },
    };
    let truth = |a: &dyn Sdf<R, 2>,
                 b: &dyn Sdf<R, 2>,
                 a3: &Option<Placed<Box<dyn Convex<R>>, R>>,
                 b3: &Option<Placed<Box<dyn Convex<R>>, R>>,
                 extra: &[Vector2<R>]|
     -> Option<Truth> {
        let (a3, b3) = (a3.as_ref()?, b3.as_ref()?);
        let budget = Budget::<R>::default();
        let (sa, sb): (&dyn SupportMap<R>, &dyn SupportMap<R>) =
            (&Placed::new(&*a3.shape, *a3.pose()), &Placed::new(&*b3.shape, *b3.pose()));
        let intersecting = match gjk::intersect(sa, sb, &budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(_) => Some(false),
            GjkOutcome::Penetrating(_) => Some(true),
            GjkOutcome::Undetermined { .. } => None,
        };
        let dist = match gjk::distance(sa, sb, &Budget { max_iterations: 200, ..budget }, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(s) if intersecting != Some(true) => {
                Some((s.bounds.lower.to_f64(), s.bounds.upper.to_f64()))
            }
            _ => None,
        };
        let mut size = size_of(a, b);
        // The 3D bodies are rounded from the 2D ones: allow for it.
        size += 1.0;
        Some(Truth {
            intersecting,
            dist,
            sample_min: samples(a, b, extra),
            band: band_of::<R>(size),
            exact: true,
            loose: false,
        })
    };
    let method = budget::<R>(&input.first);
    let mut warm = EllipsoidWarmStart::<R, 2>::default();
    let first = method.solve_from(&*a, &*b, &mut warm, &region);
    let t1 = if input.region.is_none() { truth(&*a, &*b, &a3, &b3, &contact_points(&first)) } else { None };
    let tol = gap_tolerance(&*a, &*b, &method);
    check("2D cold query", &first, method.budget.max_iterations, tol, input.region.is_none(), t1.as_ref());

    // Move B by delta.
    let delta = v2(&input.delta);
    let Some((b2, b3moved)) = build2::<R>(&input.b, delta) else { return };
    let real = (f64v(&(v2(&input.b.translation) + delta)) - f64v(&v2(&input.b.translation))).norm();
    let (m, m_ok) = motion::<R>(&input.motion, real);
    warm.moved(m);
    let method2 = budget::<R>(&input.second);
    let second = method2.solve(&*a, &*b2, &mut warm);
    let cold = method2.solve(&*a, &*b2, &mut EllipsoidWarmStart::default());
    let mut pts = contact_points(&second);
    pts.extend(contact_points(&cold));
    let t2 = if real.is_finite() { truth(&*a, &*b2, &a3, &b3moved, &pts) } else { None };
    let sound_warm = m_ok && input.region.is_none();
    let tol2 = gap_tolerance(&*a, &*b2, &method2);
    let cap2 = method2.budget.max_iterations;
    check("2D warm query", &second, cap2, tol2, sound_warm, t2.as_ref().filter(|_| sound_warm));
    check("2D cold query on the moved pair", &cold, cap2, tol2, true, t2.as_ref());
    if let Some(t) = &t2 {
        if sound_warm {
            agree(&second, &cold, t);
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    match &input {
        Input::F32(i) => run3::<f32>(i),
        Input::F64(i) => run3::<f64>(i),
        Input::F32in2D(i) => run2::<f32>(i),
        Input::F64in2D(i) => run2::<f64>(i),
    }
});
