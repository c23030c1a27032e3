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
use nalgebra::SVector;
use narrowphase::error::ParticleError;
use narrowphase::math::Real;
use narrowphase::query::Budget;
use narrowphase::sdf::particles::{
    iterate_projection, particle_contacts, sample_resolution, ParticleContact, ParticleParams, MAX_PARTICLES,
};
use narrowphase::sdf::Sdf;

#[path = "shared/mod.rs"]
mod shared;
use shared::num::{v3, Num};
use shared::bodies::seed_num;
use shared::sdf_bodies::{body, gjk_lower, pair_scale, seed_body_in, BodyIn};
use shared::seeds::{encode_struct, Rng};

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

encode_struct!(Input { f32, dim, extent, n, a, b, resolution, max_steps, epsilon, thinning, points, capacity });

/// Every pair of body kinds (primitives and CSG pairs) in both precisions,
/// resolutions in 1–4 dimensions with flat, huge and invalid extents, and
/// default and odd parameters.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(7);
    let mut out = Vec::new();
    for i in 0..400 {
        let (a, b) = (seed_body_in(i % 20, &mut rng), seed_body_in(i / 20 % 20, &mut rng));
        let odd = i % 5 == 4;
        let extent = core::array::from_fn(|_| if odd { seed_num(&mut rng) } else { Num::of(rng.pick(&[0.0, 1.0, 2.5, 100.0])) });
        let points = (0..rng.below(4)).map(|_| [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]).collect();
        out.push(Input {
            f32: i % 2 == 0,
            dim: rng.range(0, 3) as u8,
            extent,
            n: rng.pick(&[0, 1, 5, 12, 40, 399]),
            a,
            b,
            resolution: rng.range(0, 12) as u8,
            max_steps: if odd { rng.pick(&[0, 1, 39]) } else { 16 },
            epsilon: odd.then(|| seed_num(&mut rng)),
            thinning: (i % 3 == 0).then(|| if odd { seed_num(&mut rng) } else { Num::of(0.25) }),
            points,
            capacity: rng.range(0, 15) as u8,
        });
    }
    out
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
    let scale = pair_scale(&a, &b);
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
    // `BadParams` (documented): no steps, ε NaN, infinite or negative, a
    // thinning cell that is not finite and positive (a cell of 0 would put
    // every hit in a cell of its own).
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

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f32 {
        run::<f32>(&input);
    } else {
        run::<f64>(&input);
    }
});
