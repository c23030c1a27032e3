//! The gradient methods (`sdf::gradient`: Liu et al. Algorithms 2 and 3) on
//! arbitrary bodies: sphere, box, capsule, cylinder under a rigid pose from a
//! raw quaternion (`Placed`, convex: GJK gives the truth), a torus under a
//! similarity (`Transformed`), alone or in a CSG pair (union, intersection,
//! difference); detection points arbitrary (NaN, inf, huge) or a lattice
//! over the bounding boxes' intersection (`lattice_points`); parameters
//! arbitrary (invalid ones included); output capacities 0–7; f32 or f64.
//!
//! Oracles:
//! - no panic; `contacts` answers `Err(InvalidParams)` exactly when
//!   `GradientParams::check` documents it (recomputed here);
//! - `intersection_test`: iterations ≤ the cap; `Penetrating` points are inside
//!   both bodies by their SDFs (`φ < tol`, `tol = 64·ε·scale`);
//! - `contacts`: `tried` = number of points, `hits ≤ tried`,
//!   `stored ≤ capacity`, `distinct = stored + dropped`; each stored contact
//!   has finite `p_a`, `p_b`, `depth_a = −φ_B(p_a)`, `depth_b = −φ_A(p_b)`
//!   (within `tol`), `depth = max(depth_a, depth_b) > 0`; unit normals;
//! - a "hit" (a `Penetrating` or `hits > 0`) never for convex `Placed` pairs that
//!   GJK certifies apart by more than the band
//!   (`(8·tolerance + 8192·ε)·scale`).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::Vector3;
use narrowphase::error::GradientError;
use narrowphase::math::Real;
use narrowphase::query::Budget;
use narrowphase::sdf::gradient::{
    contacts, intersection_test, lattice_points, GradientContact, GradientParams, IntersectionOutcome,
};
use narrowphase::sdf::Sdf;

#[path = "shared/mod.rs"]
mod shared;
use shared::num::{v3, Num};
use shared::bodies::seed_num;
use shared::sdf_bodies::{body, gjk_lower, pair_scale, seed_body_in, BodyIn};
use shared::seeds::{encode_struct, Rng};

#[derive(Arbitrary, Debug)]
struct ParamsIn {
    max_iterations: u16,
    tolerance: Option<Num>,
    step: Option<Num>,
    merge: Option<Num>,
    skip_covered_hits: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    f32: bool,
    a: BodyIn,
    b: BodyIn,
    params: ParamsIn,
    /// Lattice points per axis over the boxes' intersection (0–4).
    per_axis: u8,
    points: Vec<[Num; 3]>,
    capacity: u8,
}

encode_struct!(ParamsIn { max_iterations, tolerance, step, merge, skip_covered_hits });
encode_struct!(Input { f32, a, b, params, per_axis, points, capacity });

/// Every pair of body kinds (primitives and CSG pairs) in both precisions,
/// with default and odd parameters, lattices and arbitrary points.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(6);
    let mut out = Vec::new();
    for i in 0..400 {
        let (a, b) = (seed_body_in(i % 20, &mut rng), seed_body_in(i / 20 % 20, &mut rng));
        let odd = i % 5 == 4;
        let params = ParamsIn {
            max_iterations: if odd { rng.pick(&[0, 1, 3, 511]) } else { 64 },
            tolerance: odd.then(|| seed_num(&mut rng)),
            step: (odd && i % 2 == 0).then(|| seed_num(&mut rng)),
            merge: (i % 7 == 0).then(|| seed_num(&mut rng)),
            skip_covered_hits: i % 2 == 0,
        };
        let points = (0..rng.below(4)).map(|_| [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]).collect();
        let (per_axis, capacity) = (rng.range(0, 4) as u8, rng.range(0, 7) as u8);
        out.push(Input { f32: i % 2 == 0, a, b, params, per_axis, points, capacity });
    }
    out
}

fn run<R: Real>(input: &Input) {
    let (Some(a), Some(b)) = (body::<R>(&input.a), body::<R>(&input.b)) else { return };
    let def = GradientParams::<R>::default();
    let p = &input.params;
    let params = GradientParams {
        budget: Budget {
            max_iterations: (p.max_iterations % 512) as u32,
            tolerance: p.tolerance.map_or(def.budget.tolerance, |t| R::lit(t.get())),
        },
        step: p.step.map_or(def.step, |s| R::lit(s.get())),
        merge: p.merge.map_or(def.merge, |m| R::lit(m.get())),
        skip_covered_hits: p.skip_covered_hits,
    };
    let valid = params.step.finite()
        && params.step > R::ZERO
        && params.budget.tolerance.finite()
        && params.budget.tolerance > R::ZERO
        && params.merge.finite()
        && params.merge >= R::ZERO;

    // Scale: the bounding boxes' extent from the origin.
    let (ba, bb) = (a.bounding_box(), b.bounding_box());
    let scale = pair_scale(&a, &b);
    if !scale.finite() {
        return;
    }
    let tol = R::lit(64.0) * R::EPSILON * scale;

    let mut points: Vec<Vector3<R>> = input.points.iter().take(16).map(v3::<R>).collect();
    if let Some(region) = ba.intersection(&bb) {
        let n = (input.per_axis % 5) as u32;
        let mut lat = vec![Vector3::zeros(); 64];
        if let Ok(k) = lattice_points(&region, n, &mut lat) {
            assert!(k == (n as usize).pow(3), "lattice gave {k} for {n} per axis");
            for q in &lat[..k] {
                assert!(region.inflated(tol).contains(q), "lattice point {q:?} outside {region:?}");
            }
            points.extend_from_slice(&lat[..k]);
        }
    }

    let apart = if valid {
        let band = (R::lit(8.0) * params.budget.tolerance + R::lit(8192.0) * R::EPSILON) * scale;
        let budget = Budget { max_iterations: 200, tolerance: def.budget.tolerance };
        gjk_lower(&a, &b, &budget).is_some_and(|lower| lower > band)
    } else {
        false
    };

    if valid {
        for x in points.iter().take(8) {
            let out = intersection_test(&a, &b, x, &params);
            assert!(out.iterations() <= params.budget.max_iterations.max(1) * 2 + 2, "{out:?}");
            if let IntersectionOutcome::Penetrating { point, .. } = out {
                let (va, vb) = (a.eval(&point).value, b.eval(&point).value);
                assert!(va < tol && vb < tol, "Penetrating {point:?}: φ_A {va:?}, φ_B {vb:?}");
                assert!(!apart, "Penetrating {point:?} for bodies GJK certifies apart");
            }
        }
    }

    let cap = (input.capacity % 8) as usize;
    let mut out = vec![GradientContact::<R, 3>::default(); cap];
    let rep = match contacts(&a, &b, &points, &params, &mut out) {
        Err(GradientError::InvalidParams) => {
            assert!(!valid, "InvalidParams for {params:?}");
            return;
        }
        Err(e) => {
            assert!(valid || matches!(e, GradientError::InvalidParams), "{e:?} for invalid params {params:?}");
            return;
        }
        Ok(rep) => rep,
    };
    assert!(valid, "accepted invalid params {params:?}");
    assert_eq!(rep.tried as usize, points.len(), "{rep:?}");
    assert!(rep.hits <= rep.tried && rep.undetermined <= rep.tried, "{rep:?}");
    assert!(rep.stored as usize <= cap, "{rep:?}");
    assert_eq!(rep.distinct, rep.stored + rep.dropped, "{rep:?}");
    assert!(!(apart && rep.hits > 0), "{rep:?} for bodies GJK certifies apart");
    for c in &out[..rep.stored as usize] {
        assert!(c.p_a.iter().chain(c.p_b.iter()).all(|v| v.finite()), "{c:?}");
        let (pb_at_a, pa_at_b) = (b.eval(&c.p_a).value, a.eval(&c.p_b).value);
        let t = tol * R::lit(4.0) + R::lit(64.0) * R::EPSILON * c.depth.abs();
        assert!((c.depth_a + pb_at_a).abs() <= t, "depth_a {:?} vs φ_B(p_a) {pb_at_a:?}", c.depth_a);
        assert!((c.depth_b + pa_at_b).abs() <= t, "depth_b {:?} vs φ_A(p_b) {pa_at_b:?}", c.depth_b);
        let m = if c.depth_a > c.depth_b { c.depth_a } else { c.depth_b };
        assert!(c.depth == m && c.depth > R::ZERO, "{c:?}");
        for n in [c.n_a, c.n_b] {
            let l = n.norm();
            assert!((l - R::ONE).abs() < R::lit(1e-3), "normal length {l:?}: {c:?}");
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f32 {
        run::<f32>(&input);
    } else {
        run::<f64>(&input);
    }
});
