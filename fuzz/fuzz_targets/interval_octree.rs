//! Interval extensions and the interval octree (Liu et al. Algorithm 1) on
//! arbitrary bodies: sphere, box, capsule, cylinder, torus, halfspace, each
//! under an arbitrary similarity (rotation from a raw quaternion, scale,
//! translation), alone or in a CSG pair (union, intersection, difference,
//! smooth union); arbitrary depth, cell budget, stack and output sizes
//! (zero and invalid ones included); f32 or f64.
//!
//! Oracles:
//! - no panic; `Err` only for what the API documents (`BadParams` for a
//!   depth above `MAX_DEPTH` or an empty stack, `BadRegion` for unbounded or
//!   invalid regions);
//! - bookkeeping: `visited ≤ max_cells`, `stored ≤ out.len()`,
//!   `stored + overflow = inside + undecided`, `nonfinite ≤ undecided`;
//!   a stack of `required_stack(3, depth)` never drops a cell unless the
//!   budget ran out or the mode is `Decide`;
//! - verdicts are proofs: `Penetrating` ⇔ `inside > 0`, and every stored
//!   inside cell's corners and centre evaluate below `tol` for both
//!   bodies; `Separated` has no dropped, undecided or NaN cell, and no
//!   sampled point of the region (a 5³ lattice) is inside both bodies by
//!   more than `tol` (`tol = 64·ε·scale`, the pointwise evaluation's own
//!   rounding);
//! - containment: on an arbitrary box, the interval of each body holds its
//!   pointwise values at the box's corners and centre (within `tol`).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::Vector3;
use narrowphase::error::OctreeError;
use narrowphase::math::Real;
use narrowphase::query::Stop;
use narrowphase::sdf::interval::Interval;
use narrowphase::sdf::octree::{self, Cell, CellClass, KeptCell, OctreeParams, OctreeVerdict};
use narrowphase::sdf::{Aabb, Difference, Halfspace, Intersection, IntervalSdf, Sdf, SmoothUnion, Torus, Transformed, Union};
use narrowphase::shape::{Capsule, Cuboid, Cylinder, Sphere};

#[path = "shared/mod.rs"]
mod shared;
use shared::bodies::seed_num;
use shared::num::{nums, v3, Num};
use shared::seeds::{encode_enum, encode_struct, Rng};
use shared::sdf_bodies::{box_scale, quat_rotation, sdf_enum, seed_quat, seed_translation};

#[derive(Arbitrary, Debug)]
enum PrimIn {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Torus(Num, Num),
    Halfspace([Num; 3], Num),
}

#[derive(Arbitrary, Debug)]
struct Placement {
    quat: Option<[Num; 4]>,
    scale: Num,
    translation: [Num; 3],
}

#[derive(Arbitrary, Debug)]
struct PrimBody {
    prim: PrimIn,
    at: Placement,
}

#[derive(Arbitrary, Debug)]
enum BodyIn {
    Prim(PrimBody),
    Union(PrimBody, PrimBody),
    Intersection(PrimBody, PrimBody),
    Difference(PrimBody, PrimBody),
    Smooth(PrimBody, PrimBody, Num),
}

#[derive(Arbitrary, Debug)]
struct Input {
    f32: bool,
    a: BodyIn,
    b: BodyIn,
    depth: u8,
    max_cells: u16,
    decide: bool,
    /// `None`: the stack the bound asks for; else this many cells (0–255).
    stack: Option<u8>,
    out: u8,
    probe: ([Num; 3], [Num; 3]),
}

encode_enum!(PrimIn { Sphere(r), Cuboid(h), Capsule(h, r), Cylinder(h, r), Torus(big, small), Halfspace(n, c) });
encode_struct!(Placement { quat, scale, translation });
encode_struct!(PrimBody { prim, at });
encode_enum!(BodyIn { Prim(p), Union(p, q), Intersection(p, q), Difference(p, q), Smooth(p, q, k) });
encode_struct!(Input { f32, a, b, depth, max_cells, decide, stack, out, probe });

/// Every primitive alone and in every CSG pair, placed by similarities
/// (scales 1/4 to 4, odd ones sometimes), in both precisions, both modes,
/// with depths and budgets small enough to run fast, and odd stacks.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(8);
    let prim = |k: usize, rng: &mut Rng| {
        let mut s = || Num::of(rng.pick(&[0.25, 0.5, 1.0, 1.5]));
        match k % 6 {
            0 => PrimIn::Sphere(s()),
            1 => PrimIn::Cuboid([s(), s(), s()]),
            2 => PrimIn::Capsule(s(), s()),
            3 => PrimIn::Cylinder(s(), s()),
            4 => PrimIn::Torus(Num::of(1.0), s()),
            _ => PrimIn::Halfspace(nums([0.0, 0.5, 1.0]), s()),
        }
    };
    let body = |k: usize, odd: bool, rng: &mut Rng| {
        let mut p = |k: usize| PrimBody {
            prim: prim(k, rng),
            at: Placement {
                quat: seed_quat(rng),
                scale: if odd { seed_num(rng) } else { Num::of(rng.pick(&[0.25, 1.0, 4.0])) },
                translation: seed_translation(rng),
            },
        };
        match k / 6 % 5 {
            0 => BodyIn::Prim(p(k)),
            1 => BodyIn::Union(p(k), p(k + 1)),
            2 => BodyIn::Intersection(p(k), p(k + 2)),
            3 => BodyIn::Difference(p(k), p(k + 3)),
            _ => BodyIn::Smooth(p(k), p(k + 4), Num::of(0.25)),
        }
    };
    let mut out = Vec::new();
    for i in 0..300 {
        let odd = i % 7 == 6;
        let (a, b) = (body(i % 30, odd, &mut rng), body(i / 30 * 3 % 30, odd, &mut rng));
        let corner = |rng: &mut Rng| [seed_num(rng), seed_num(rng), seed_num(rng)];
        let probe = (corner(&mut rng), corner(&mut rng));
        out.push(Input {
            f32: i % 2 == 0,
            a,
            b,
            depth: if odd { rng.pick(&[0, 9, 16, 40]) } else { rng.range(1, 6) as u8 },
            max_cells: rng.pick(&[0, 1, 64, 512, 4096]),
            decide: i % 3 == 0,
            stack: if odd { Some(rng.range(0, 8) as u8) } else { None },
            out: rng.pick(&[0, 1, 8, 255]),
            probe,
        });
    }
    out
}

type T<S, R> = Transformed<S, R, 3>;

sdf_enum! {
    /// A primitive under a similarity.
    enum Prim<R> + IntervalSdf {
        Sphere(T<Sphere<R>, R>),
        Cuboid(T<Cuboid<R>, R>),
        Capsule(T<Capsule<R>, R>),
        Cylinder(T<Cylinder<R>, R>),
        Torus(T<Torus<R>, R>),
        Halfspace(T<Halfspace<R, 3>, R>),
    }
}

sdf_enum! {
    /// A primitive or a CSG pair of them.
    enum Body<R> + IntervalSdf {
        Prim(Prim<R>),
        Union(Union<Prim<R>, Prim<R>>),
        Intersection(Intersection<Prim<R>, Prim<R>>),
        Difference(Difference<Prim<R>, Prim<R>>),
        Smooth(SmoothUnion<Prim<R>, Prim<R>, R>),
    }
}

fn prim<R: Real>(p: &PrimBody) -> Option<Prim<R>> {
    let q = quat_rotation::<R>(&p.at.quat)?;
    let (s, t) = (R::lit(p.at.scale.get()), v3::<R>(&p.at.translation));
    let r = |x: Num| R::lit(x.get());
    Some(match &p.prim {
        PrimIn::Sphere(rad) => Prim::Sphere(T::new(Sphere::new(r(*rad)).ok()?, q, s, t).ok()?),
        PrimIn::Cuboid(h) => Prim::Cuboid(T::new(Cuboid::new(v3(h)).ok()?, q, s, t).ok()?),
        PrimIn::Capsule(h, rad) => Prim::Capsule(T::new(Capsule::new(r(*h), r(*rad)).ok()?, q, s, t).ok()?),
        PrimIn::Cylinder(h, rad) => Prim::Cylinder(T::new(Cylinder::new(r(*h), r(*rad)).ok()?, q, s, t).ok()?),
        PrimIn::Torus(big, small) => Prim::Torus(T::new(Torus::new(r(*big), r(*small)).ok()?, q, s, t).ok()?),
        PrimIn::Halfspace(n, c) => Prim::Halfspace(T::new(Halfspace::new(v3(n), r(*c)).ok()?, q, s, t).ok()?),
    })
}

fn body<R: Real>(b: &BodyIn) -> Option<Body<R>> {
    Some(match b {
        BodyIn::Prim(p) => Body::Prim(prim(p)?),
        BodyIn::Union(p, q) => Body::Union(Union::new(prim(p)?, prim(q)?)),
        BodyIn::Intersection(p, q) => Body::Intersection(Intersection::new(prim(p)?, prim(q)?)),
        BodyIn::Difference(p, q) => Body::Difference(Difference::new(prim(p)?, prim(q)?)),
        BodyIn::Smooth(p, q, k) => Body::Smooth(SmoothUnion::new(prim(p)?, prim(q)?, R::lit(k.get())).ok()?),
    })
}

fn corners<R: Real>(b: &Aabb<R, 3>) -> impl Iterator<Item = Vector3<R>> + '_ {
    (0..9).map(move |k| {
        if k == 8 {
            b.center()
        } else {
            Vector3::from_fn(|i, _| if k >> i & 1 == 0 { b.min[i] } else { b.max[i] })
        }
    })
}

fn run<R: Real>(input: &Input) {
    let (Some(a), Some(b)) = (body::<R>(&input.a), body::<R>(&input.b)) else { return };
    let depth = input.depth % 32;
    let params = OctreeParams {
        max_depth: depth,
        max_cells: input.max_cells as u32,
        stop: if input.decide { Stop::Decided } else { Stop::Converged },
    };
    let want = octree::required_stack(3, depth.min(octree::MAX_DEPTH));
    let stack_len = input.stack.map_or(want, |n| n as usize);
    let mut stack = vec![Cell::<R, 3>::default(); stack_len];
    let mut out = vec![KeptCell::<R, 3>::default(); input.out as usize];
    let result = octree::intersect(&a, &b, &params, &mut stack, &mut out);

    // The scale of the problem for rounding tolerances: the region's extent
    // from the origin.
    let region = a.bounding_box().intersection(&b.bounding_box());
    let scale = region.map_or(R::ONE, |r| box_scale(&[&r]));
    let tol = R::EPSILON * R::lit(64.0) * scale;

    let rep = match result {
        Err(OctreeError::BadParams) => {
            assert!(depth > octree::MAX_DEPTH || stack_len == 0, "BadParams for depth {depth}, stack {stack_len}");
            return;
        }
        Err(OctreeError::BadRegion) => {
            let (ba, bb) = (a.bounding_box(), b.bounding_box());
            let bad_box = ba.check().is_err() || bb.check().is_err();
            assert!(bad_box || region.is_some_and(|r| !r.is_finite()), "BadRegion for {ba:?}, {bb:?}");
            return;
        }
        Err(e) => panic!("undocumented error {e:?}"),
        Ok(rep) => rep,
    };
    assert!(rep.visited <= params.max_cells, "{rep:?}");
    assert!(rep.stored as usize <= out.len());
    assert_eq!(rep.stored + rep.overflow, rep.inside + rep.unresolved, "{rep:?}");
    assert!(rep.nonfinite <= rep.unresolved);
    if stack_len >= want && params.stop == Stop::Converged && rep.visited < params.max_cells {
        assert_eq!(rep.dropped, 0, "the bound's stack dropped cells: {rep:?}");
    }
    match rep.verdict {
        OctreeVerdict::Penetrating => {
            assert!(rep.inside > 0);
            for k in out.iter().take(rep.stored as usize).filter(|k| k.class == CellClass::InsideBoth) {
                for p in corners(&k.cell.aabb) {
                    let (va, vb) = (a.eval(&p).value, b.eval(&p).value);
                    assert!(va <= tol && vb <= tol, "inside cell {k:?}: φ_A {va:?}, φ_B {vb:?} at {p:?}");
                }
            }
        }
        OctreeVerdict::Separated => {
            assert_eq!((rep.inside, rep.unresolved, rep.dropped, rep.nonfinite), (0, 0, 0, 0), "{rep:?}");
            if let Some(r) = region {
                let e = r.extent();
                for i in 0..125 {
                    let f = Vector3::new(i % 5, i / 5 % 5, i / 25).map(|v| R::lit(v as f64 / 4.0));
                    let p = r.min + e.component_mul(&f);
                    let (va, vb) = (a.eval(&p).value, b.eval(&p).value);
                    assert!(!(va < -tol && vb < -tol), "Separated, yet {p:?} is inside both: {va:?}, {vb:?}");
                }
            }
        }
        OctreeVerdict::Undetermined { .. } => assert_eq!(rep.inside, 0),
    }

    // Containment on an arbitrary box.
    let (p, q) = (v3::<R>(&input.probe.0), v3::<R>(&input.probe.1));
    let lo = p.zip_map(&q, |x, y| if x < y { x } else { y });
    let hi = p.zip_map(&q, |x, y| if x < y { y } else { x });
    if let Ok(probe) = Aabb::new(lo, hi) {
        if probe.is_finite() {
            let xs: [Interval<R>; 3] = core::array::from_fn(|i| Interval::new(lo[i], hi[i]).unwrap());
            let big = box_scale(&[&probe]);
            let big = if big > scale { big } else { scale };
            let tol = R::EPSILON * R::lit(64.0) * big;
            for s in [&a, &b] {
                let range = s.eval_interval(&xs);
                if range.is_nan() {
                    continue;
                }
                for x in corners(&probe) {
                    let v = s.eval(&x).value;
                    if v.is_finite() {
                        assert!(range.lo() - tol <= v && v <= range.hi() + tol, "{v:?} ∉ {range:?} at {x:?}");
                    }
                }
            }
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
