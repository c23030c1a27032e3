//! The particle method (`sdf::particles`, Krayer et al. Algorithms 1–2):
//! `sample_resolution` for D = 1…4 with arbitrary extents and N;
//! `iterate_projection` and `particle_contacts` on arbitrary bodies (sphere,
//! box, capsule, cylinder under a rigid pose from a raw quaternion — convex,
//! GJK gives the truth —, a torus, CSG pairs), arbitrary parameters (invalid
//! ones included), output capacities 0–15; f32 or f64.
//!
//! Oracles:
//! - no panic; `sample_resolution`: `ZeroResolution` iff `N = 0`,
//!   `BadRegion` iff an extent is NaN, infinite or negative, `Ok` otherwise
//!   unless `TooManyParticles` (only when `Nᴰ > MAX_PARTICLES`); an `Ok`
//!   resolution has every entry ≥ 1, 1 on a flat side, and a product
//!   ≤ `MAX_PARTICLES`;
//! - `iterate_projection`: steps ≤ `max_steps`; a hit has
//!   `max(φ_A, φ_B) < ε` and `depth = min(φ_A, φ_B)` at its point;
//! - `particle_contacts`: `BadParams` only when documented (step cap 0, ε
//!   or thinning NaN, infinite or negative); `stored ≤ capacity`,
//!   `hits ≤ particles`, `stored + merged ≤ hits`, a full buffer whenever
//!   something was dropped (the buffer keeps the deepest), at most one
//!   contact per thinning cell, each stored contact finite with
//!   `depth = min(φ_A, φ_B)` at its point;
//! - no hit for convex `Placed` pairs GJK certifies apart by more than the
//!   band.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Matrix3, Quaternion, Rotation3, SVector, Translation3, UnitQuaternion, Vector3};
use narrowphase::math::Real;
use narrowphase::query::Budget;
use narrowphase::sdf::particles::{iterate_projection, particle_contacts, sample_resolution, ParticleContact, ParticleParams, MAX_PARTICLES};
use narrowphase::error::ParticleError;
use narrowphase::sdf::{Aabb, Ball, Difference, Intersection, Sdf, SdfAccuracy, SdfSample, Torus, Transformed, Union};
use narrowphase::shape::{Capsule, Cuboid, Cylinder, Placed, Sphere};
use narrowphase::math::Pose;
use narrowphase::support::gjk::{self, GjkWarmStart, GjkOutcome};

#[path = "shared/bodies.rs"]
mod bodies;
use bodies::Num;

#[derive(Arbitrary, Debug)]
enum PrimIn {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Torus(Num, Num),
}

#[derive(Arbitrary, Debug)]
struct PrimBody {
    prim: PrimIn,
    quat: Option<[Num; 4]>,
    translation: [Num; 3],
}

#[derive(Arbitrary, Debug)]
enum BodyIn {
    Prim(PrimBody),
    Union(PrimBody, PrimBody),
    Intersection(PrimBody, PrimBody),
    Difference(PrimBody, PrimBody),
}

#[derive(Arbitrary, Debug)]
struct Input {
    f32: bool,
    dim: u8,
    extent: [Num; 4],
    n: u16,
    a: BodyIn,
    b: BodyIn,
    resolution: u8,
    max_steps: u8,
    epsilon: Option<Num>,
    thinning: Option<Num>,
    points: Vec<[Num; 3]>,
    capacity: u8,
}

#[derive(Clone, Copy, Debug)]
enum Prim<R: Real> {
    Sphere(Placed<Sphere<R>, R>),
    Cuboid(Placed<Cuboid<R>, R>),
    Capsule(Placed<Capsule<R>, R>),
    Cylinder(Placed<Cylinder<R>, R>),
    Torus(Transformed<Torus<R>, R, 3>),
}

macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            Prim::Sphere($b) => $e,
            Prim::Cuboid($b) => $e,
            Prim::Capsule($b) => $e,
            Prim::Cylinder($b) => $e,
            Prim::Torus($b) => $e,
        }
    };
}

impl<R: Real> Sdf<R, 3> for Prim<R> {
    fn eval(&self, x: &Vector3<R>) -> SdfSample<R, 3> {
        each!(self, b => b.eval(x))
    }
    fn accuracy(&self) -> SdfAccuracy {
        each!(self, b => b.accuracy())
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        each!(self, b => b.bounding_ball())
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        each!(self, b => b.bounding_box())
    }
}

#[derive(Clone, Copy, Debug)]
enum Body<R: Real> {
    Prim(Prim<R>),
    Union(Union<Prim<R>, Prim<R>>),
    Intersection(Intersection<Prim<R>, Prim<R>>),
    Difference(Difference<Prim<R>, Prim<R>>),
}

macro_rules! each_body {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            Body::Prim($b) => $e,
            Body::Union($b) => $e,
            Body::Intersection($b) => $e,
            Body::Difference($b) => $e,
        }
    };
}

impl<R: Real> Sdf<R, 3> for Body<R> {
    fn eval(&self, x: &Vector3<R>) -> SdfSample<R, 3> {
        each_body!(self, b => b.eval(x))
    }
    fn accuracy(&self) -> SdfAccuracy {
        each_body!(self, b => b.accuracy())
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        each_body!(self, b => b.bounding_ball())
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        each_body!(self, b => b.bounding_box())
    }
}

fn v3<R: Real>(v: &[Num; 3]) -> Vector3<R> {
    Vector3::new(R::lit(v[0].get()), R::lit(v[1].get()), R::lit(v[2].get()))
}

fn prim<R: Real>(p: &PrimBody) -> Option<Prim<R>> {
    let rot = match &p.quat {
        None => Matrix3::identity(),
        Some(q) => {
            let q = Quaternion::new(q[0].get(), q[1].get(), q[2].get(), q[3].get());
            if !(q.norm() > 1e-3 && q.norm().is_finite()) {
                return None;
            }
            UnitQuaternion::from_quaternion(q).to_rotation_matrix().into_inner().map(R::lit)
        }
    };
    let t = v3::<R>(&p.translation);
    if !t.iter().all(|c| c.finite()) {
        return None;
    }
    let pose = Pose::from_parts(Translation3::from(t), Rotation3::from_matrix_unchecked(rot));
    let r = |x: Num| R::lit(x.get());
    Some(match &p.prim {
        PrimIn::Sphere(rad) => Prim::Sphere(Placed::new(Sphere::new(r(*rad)).ok()?, pose)),
        PrimIn::Cuboid(h) => Prim::Cuboid(Placed::new(Cuboid::new(v3(h)).ok()?, pose)),
        PrimIn::Capsule(h, rad) => Prim::Capsule(Placed::new(Capsule::new(r(*h), r(*rad)).ok()?, pose)),
        PrimIn::Cylinder(h, rad) => Prim::Cylinder(Placed::new(Cylinder::new(r(*h), r(*rad)).ok()?, pose)),
        PrimIn::Torus(big, small) => {
            Prim::Torus(Transformed::new(Torus::new(r(*big), r(*small)).ok()?, rot, R::ONE, t).ok()?)
        }
    })
}

fn body<R: Real>(b: &BodyIn) -> Option<Body<R>> {
    Some(match b {
        BodyIn::Prim(p) => Body::Prim(prim(p)?),
        BodyIn::Union(p, q) => Body::Union(Union::new(prim(p)?, prim(q)?)),
        BodyIn::Intersection(p, q) => Body::Intersection(Intersection::new(prim(p)?, prim(q)?)),
        BodyIn::Difference(p, q) => Body::Difference(Difference::new(prim(p)?, prim(q)?)),
    })
}

/// GJK's certified lower bound on the distance for two convex `Placed`
/// primitives (`None` when not both convex or GJK does not separate).
fn gjk_lower<R: Real>(a: &Body<R>, b: &Body<R>, budget: &Budget<R>) -> Option<R> {
    fn go<R: Real, A: narrowphase::shape::SupportMap<R>, B: narrowphase::shape::SupportMap<R>>(
        a: &A,
        b: &B,
        budget: &Budget<R>,
    ) -> Option<R> {
        match gjk::distance(a, b, budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(s) => Some(s.bounds.lower),
            _ => None,
        }
    }
    macro_rules! inner {
        ($pa:expr, $b:expr) => {
            match $b {
                Body::Prim(Prim::Sphere(q)) => go($pa, q, budget),
                Body::Prim(Prim::Cuboid(q)) => go($pa, q, budget),
                Body::Prim(Prim::Capsule(q)) => go($pa, q, budget),
                Body::Prim(Prim::Cylinder(q)) => go($pa, q, budget),
                _ => None,
            }
        };
    }
    match a {
        Body::Prim(Prim::Sphere(p)) => inner!(p, b),
        Body::Prim(Prim::Cuboid(p)) => inner!(p, b),
        Body::Prim(Prim::Capsule(p)) => inner!(p, b),
        Body::Prim(Prim::Cylinder(p)) => inner!(p, b),
        _ => None,
    }
}

fn resolution<R: Real, const D: usize>(input: &Input) {
    let e = SVector::<R, D>::from_fn(|i, _| R::lit(input.extent[i].get()));
    let n = (input.n % 400) as u32;
    let r = sample_resolution(&e, n);
    let bad = !e.iter().all(|x| x.finite() && *x >= R::ZERO);
    match r {
        Err(ParticleError::ZeroResolution) => assert_eq!(n, 0),
        Err(ParticleError::BadRegion) => assert!(n > 0 && bad, "BadRegion for {e:?}"),
        Err(ParticleError::TooManyParticles) => {
            assert!(n > 0 && !bad);
            // `Nᴰ` or the rounded resolution's product (documented): rounding
            // stays below `(N + 1)ᴰ`.
            assert!((n as f64 + 1.0).powi(D as i32) > MAX_PARTICLES as f64, "TooManyParticles for N = {n}, {e:?}");
        }
        Err(other) => panic!("{other:?} from sample_resolution"),
        Ok(res) => {
            assert!(n > 0 && !bad, "{res:?} for N = {n}, {e:?}");
            let prod = res.iter().fold(1u64, |p, &x| p * x as u64);
            assert!(prod <= MAX_PARTICLES as u64, "{res:?}");
            for (k, &x) in res.iter().enumerate() {
                assert!(x >= 1, "{res:?}");
                if e[k] == R::ZERO && e.iter().any(|y| *y > R::ZERO) {
                    assert_eq!(x, 1, "flat side {k} of {e:?}: {res:?}");
                }
            }
        }
    }
}

fn run<R: Real>(input: &Input) {
    match input.dim % 4 {
        0 => resolution::<R, 1>(input),
        1 => resolution::<R, 2>(input),
        2 => resolution::<R, 3>(input),
        _ => resolution::<R, 4>(input),
    }
    let (Some(a), Some(b)) = (body::<R>(&input.a), body::<R>(&input.b)) else { return };
    let (ba, bb) = (a.bounding_box(), b.bounding_box());
    let scale = ba.min.iter().chain(ba.max.iter()).chain(bb.min.iter()).chain(bb.max.iter()).fold(R::ONE, |m, v| {
        if v.abs() > m {
            v.abs()
        } else {
            m
        }
    });
    if !scale.finite() {
        return;
    }
    let def = ParticleParams::<R>::default();
    let params = ParticleParams {
        resolution: (input.resolution % 13) as u32,
        max_steps: (input.max_steps % 40) as u32,
        epsilon: input.epsilon.map_or(def.epsilon, |e| R::lit(e.get())),
        thinning: input.thinning.map(|t| R::lit(t.get())),
    };
    let band = (R::lit(8.0) * R::lit(1e-3) + R::lit(8192.0) * R::EPSILON) * scale;
    let budget = Budget { max_iterations: 200, tolerance: R::EPSILON * R::lit(1000.0) };
    let apart = gjk_lower(&a, &b, &budget).is_some_and(|lower| lower > band);

    // Iterated projection from arbitrary points, absolute ε.
    let eps = if params.epsilon.finite() && params.epsilon >= R::ZERO { params.epsilon * scale } else { R::ZERO };
    for x in input.points.iter().take(8).map(v3::<R>) {
        let p = iterate_projection(&x, &a, &b, eps, params.max_steps);
        assert!(p.steps <= params.max_steps, "{p:?}");
        if p.hit {
            let (va, vb) = (a.eval(&p.point).value, b.eval(&p.point).value);
            let (hi, lo) = if va > vb { (va, vb) } else { (vb, va) };
            assert!(hi < eps, "hit with max(φ) = {hi:?} ≥ ε = {eps:?}");
            assert!(p.depth == lo, "depth {:?} vs min(φ) {lo:?}", p.depth);
            assert!(!(apart && p.steps == 0 && hi < -band), "a point inside both bodies GJK certifies apart");
        }
    }

    let cap = (input.capacity % 16) as usize;
    let mut out = vec![ParticleContact::<R, 3>::default(); cap];
    // A thinning cell of 0 is refused too (the code: `t > 0`; the docs of
    // `ParticleError::BadParams` say "NaN, infinite or negative": reported,
    // fuzz/regressions/particle_projection/doc-thinning-zero-is-bad-params).
    let bad_params = params.max_steps == 0
        || !(params.epsilon.finite() && params.epsilon >= R::ZERO)
        || params.thinning.is_some_and(|t| !(t.finite() && t > R::ZERO));
    let rep = match particle_contacts(&a, &b, &params, &mut out) {
        Err(ParticleError::BadParams) => {
            assert!(bad_params, "BadParams for {params:?}");
            return;
        }
        Err(e) => {
            assert!(!matches!(e, ParticleError::BadParams));
            return;
        }
        Ok(rep) => rep,
    };
    assert!(!bad_params || rep.region.is_none(), "accepted {params:?}: {rep:?}");
    assert!(rep.stored as usize <= cap, "{rep:?}");
    assert!(rep.hits <= rep.particles && rep.nonfinite <= rep.particles, "{rep:?}");
    assert!(rep.stored + rep.merged <= rep.hits, "{rep:?}");
    if rep.dropped > 0 {
        assert_eq!(rep.stored as usize, cap, "dropped with room left: {rep:?}");
    }
    let stored = &out[..rep.stored as usize];
    if params.thinning.is_some() {
        for (i, c) in stored.iter().enumerate() {
            assert!(stored[..i].iter().all(|d| d.cell != c.cell), "two contacts in cell {:?}", c.cell);
        }
    }
    for c in stored {
        assert!(c.point.iter().all(|v| v.finite()), "{c:?}");
        let (va, vb) = (a.eval(&c.point).value, b.eval(&c.point).value);
        let lo = if va < vb { va } else { vb };
        let tol = R::lit(64.0) * R::EPSILON * scale;
        assert!((c.depth - lo).abs() <= tol, "depth {:?} vs min(φ) {lo:?}", c.depth);
    }
    // A hit is "within ε of A ∩ B": only bodies apart by more than 2ε too.
    let eps_abs = params.epsilon * scale * R::lit(4.0);
    let apart_eps = gjk_lower(&a, &b, &budget).is_some_and(|lower| lower > band + eps_abs);
    assert!(!(apart_eps && rep.hits > 0), "{rep:?} for bodies GJK certifies apart");
}

fuzz_target!(|input: Input| {
    if input.f32 {
        run::<f32>(&input);
    } else {
        run::<f64>(&input);
    }
});
