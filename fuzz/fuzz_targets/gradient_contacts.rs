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
use nalgebra::{Matrix3, Quaternion, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::math::Real;
use narrowphase::query::Budget;
use narrowphase::sdf::gradient::{contacts, intersection_test, lattice_points, GradientContact, GradientParams, IntersectionOutcome};
use narrowphase::error::GradientError;
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

fuzz_target!(|input: Input| {
    if input.f32 {
        run::<f32>(&input);
    } else {
        run::<f64>(&input);
    }
});
