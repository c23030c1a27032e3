//! `gjk::distance` on two arbitrary placed shapes, in f32 or f64.
//!
//! The input picks two shapes (every primitive, a bipyramid polytope with 3 to
//! 40 ring vertices — above 32 vertices its support map hill-climbs — each
//! optionally rounded or put through a linear map), two poses (identity, axis-
//! angle or a raw quaternion, normalised: a zero quaternion gives a NaN
//! rotation), a budget and optionally a pre-filled warm-start cache (any
//! direction, any hint index, any seed directions and count). Numbers are either small fixed-point values
//! (so that touching, nested and coincident configurations are common) or raw
//! `f64` bit patterns (NaN, infinities, subnormals, huge values). Constructors
//! may reject a shape (then the input is skipped); `Placed::new`
//! re-orthonormalises a rotation (a NaN one stays NaN) and caches are not
//! validated, so non-finite poses and caches reach the query.
//!
//! Oracles, for the first query (from the input's cache) and a second,
//! warm-started one:
//! - no panic;
//! - `Separated`: distance, bounds and witness finite,
//!   `bounds.lower <= distance <= bounds.upper` and `bounds.lower > 0`;
//!   and, when every input is finite, `lower <= |centre_a − centre_b|` (the
//!   centres are inside the bodies) and `upper >= ` the gap between the
//!   bounding spheres (up to the tolerance and rounding);
//! - `Penetrating`: with finite inputs, the bounding spheres are not apart
//!   by more than the tolerance;
//! - `Undetermined`: a reason (exhaustive match) and bounds without NaN,
//!   `lower <= upper`;
//! - warm and cold answers agree on separated/intersecting unless the pair
//!   is within the tolerance of touching;
//! - **placement invariance** (rigid poses): both bodies moved by one offset
//!   `T` of up to 1e4 (f32) or 1e8 (f64), queried from the same cache, give
//!   no certain answer against the first query's (a separation certified
//!   beyond the band beside contact), and two separations have overlapping
//!   certified intervals; the band (`shared/placement.rs`) is `2·ε·|coordinate|`
//!   for the rounding of the moved poses plus `slack` at the size of the
//!   pair, never at `|T|`.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use narrowphase::prelude::*;
use shared::bodies::{self, build, finite_pose, pose, rigid, seed_num, seed_pairs, PolyStore, Size};
use shared::seeds::{encode_enum, encode_struct, Rng};
use shared::checks::{agree_gjk, finite_witness, undetermined};
use shared::num::{v3, Num};

type Body<P = bodies::Prim> = bodies::Body<P>;
use shared::placement::{self, pair_size, Offset};

/// The primitives of this target: those of `shared/bodies.rs` but the
/// superquadric, ellipsoid semi-axes as plain numbers.
#[derive(Arbitrary, Debug)]
enum Prim {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Cone(Num, Num),
    Ellipsoid([Num; 3]),
    /// Ring of `3 + n % 38` vertices of radius `r` in z = 0, apexes at
    /// `+top` and `−bottom`.
    Bipyramid {
        n: u8,
        r: Num,
        top: Num,
        bottom: Num,
    },
}

/// The ring sizes this target draws (3 to 40; the store holds more): the
/// range is part of how the inputs decode.
const MAX_RING: usize = 40;

impl Prim {
    /// The same primitive in the shared model.
    fn model(&self) -> bodies::Prim {
        match *self {
            Prim::Sphere(r) => bodies::Prim::Sphere(r),
            Prim::Cuboid(h) => bodies::Prim::Cuboid(h),
            Prim::Capsule(h, r) => bodies::Prim::Capsule(h, r),
            Prim::Cylinder(h, r) => bodies::Prim::Cylinder(h, r),
            Prim::Cone(h, r) => bodies::Prim::Cone(h, r),
            Prim::Ellipsoid(a) => bodies::Prim::Ellipsoid(a.map(Size::from)),
            Prim::Bipyramid { n, r, top, bottom } => bodies::Prim::Bipyramid { n, r, top, bottom },
        }
    }
}

#[derive(Arbitrary, Debug)]
struct CacheIn {
    direction: [Num; 3],
    hint_a: u32,
    hint_b: u32,
}

#[derive(Arbitrary, Debug)]
struct Input {
    f64: bool,
    a: Body<Prim>,
    b: Body<Prim>,
    max_iterations: u8,
    tolerance: Option<Num>,
    cache: Option<CacheIn>,
    offset: Offset,
    /// Last, so that inputs written before it decode as before (`None`).
    seeds: Option<SeedsIn>,
}

/// A warm start's seed directions, any numbers and any count.
#[derive(Arbitrary, Debug)]
struct SeedsIn {
    a: [[Num; 3]; 4],
    b: [[Num; 3]; 4],
    len: u8,
}

encode_enum!(Prim {
    Sphere(r),
    Cuboid(h),
    Capsule(h, r),
    Cylinder(h, r),
    Cone(h, r),
    Ellipsoid(a),
    Bipyramid { n, r, top, bottom },
});
encode_struct!(CacheIn { direction, hint_a, hint_b });
encode_struct!(SeedsIn { a, b, len });
encode_struct!(Input { f64, a, b, max_iterations, tolerance, cache, offset, seeds });

/// A body of the shared model in this target's (`None` for a superquadric).
fn from_model(b: &Body) -> Option<Body<Prim>> {
    let prim = match b.prim.clone() {
        bodies::Prim::Sphere(r) => Prim::Sphere(r),
        bodies::Prim::Cuboid(h) => Prim::Cuboid(h),
        bodies::Prim::Capsule(h, r) => Prim::Capsule(h, r),
        bodies::Prim::Cylinder(h, r) => Prim::Cylinder(h, r),
        bodies::Prim::Cone(h, r) => Prim::Cone(h, r),
        bodies::Prim::Ellipsoid(a) => Prim::Ellipsoid(a.map(|x| Num::Raw(x.get()))),
        bodies::Prim::Bipyramid { n, r, top, bottom } => Prim::Bipyramid { n, r, top, bottom },
        bodies::Prim::Superquadric(..) => return None,
    };
    Some(Body { prim, wrap: b.wrap.clone(), translation: b.translation, rotation: b.rotation })
}

/// The shared pairs without superquadrics, some with a warm-start cache
/// (a direction, hints in and out of range), each with an offset.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(3);
    let mut out = Vec::new();
    for (i, p) in seed_pairs().iter().enumerate() {
        let (Some(a), Some(b)) = (from_model(&p.a), from_model(&p.b)) else { continue };
        let cache = (i % 3 == 0).then(|| CacheIn {
            direction: [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)],
            hint_a: rng.pick(&[0, 1, 7, 40, 1 << 30]),
            hint_b: rng.pick(&[0, 2, 65, u32::MAX]),
        });
        let tolerance = match i % 5 {
            0 => Some(Num::Raw(rng.pick(&[0.0, 1e-300, 4.6e-308, 1e-12, 1e-5]))),
            _ => p.tolerance,
        };
        let offset = Offset { direction: [rng.range(-9, 9) as i8, 3, rng.range(-9, 9) as i8], exponent: i as u8 };
        let num3 = |rng: &mut Rng| [seed_num(rng), seed_num(rng), seed_num(rng)];
        let seeds = (i % 4 == 1).then(|| SeedsIn {
            a: [num3(&mut rng), num3(&mut rng), num3(&mut rng), num3(&mut rng)],
            b: [num3(&mut rng), num3(&mut rng), num3(&mut rng), num3(&mut rng)],
            len: rng.pick(&[1, 3, 4, 200]),
        });
        out.push(Input { f64: p.f64, a, b, max_iterations: p.max_iterations, tolerance, cache, offset, seeds });
    }
    out
}

/// Rounding allowance on `lower <= distance`, in units of `ε · size` (the
/// largest of the distance, the witness coordinates and the bounding-sphere
/// extents),
/// from `NARROWPHASE_FUZZ_LOWER_ULPS` (default 0: the documented contract).
/// Set it (e.g. to 64) to fuzz past a known ulp-level excess of the lower
/// bound while it is open.
fn lower_bound_allowance() -> f64 {
    static ULPS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *ULPS.get_or_init(|| std::env::var("NARROWPHASE_FUZZ_LOWER_ULPS").ok().and_then(|v| v.parse().ok()).unwrap_or(0.0))
}

fn finite(x: f64) -> bool {
    x.is_finite()
}

/// Geometry known without GJK (f64), when every input is finite.
struct Geometry {
    /// Gap between the bounding spheres: a lower bound of the distance.
    sphere_gap: f64,
    /// Distance between the centres: an upper bound of the distance.
    centre_distance: f64,
    /// Slack: tolerance and rounding relative to the size of the problem.
    slack: f64,
    /// Size of the problem: the largest bounding-sphere extent from the origin.
    scale: f64,
}

fn check<R: Real>(what: &str, o: &GjkOutcome<R>, geo: &Option<Geometry>) {
    match o {
        GjkOutcome::Separated(s) => {
            let (d, lo, hi) = (s.distance.to_f64(), s.bounds.lower.to_f64(), s.bounds.upper.to_f64());
            assert!(finite(d) && finite(lo) && finite(hi), "{what}: non-finite separation {s:?}");
            finite_witness(what, &s.witness, s);
            let w = &s.witness;
            let witness_size = w.point_a.iter().chain(w.point_b.iter()).fold(d, |m, x| m.max(x.to_f64().abs()));
            let size = geo.as_ref().map_or(witness_size, |g| g.scale.max(witness_size));
            let allowance = lower_bound_allowance() * R::EPSILON.to_f64() * size;
            assert!(lo <= d + allowance && d <= hi, "{what}: distance outside its bounds {s:?}");
            assert!(lo > 0.0, "{what}: separated without a positive lower bound {s:?}");
            if let Some(g) = geo {
                assert!(
                    lo <= g.centre_distance + g.slack,
                    "{what}: lower bound {lo} above the centre distance {} {s:?}",
                    g.centre_distance
                );
                assert!(
                    hi >= g.sphere_gap - g.slack,
                    "{what}: upper bound {hi} below the bounding-sphere gap {} {s:?}",
                    g.sphere_gap
                );
            }
        }
        GjkOutcome::Penetrating(_) => {
            if let Some(g) = geo {
                assert!(
                    g.sphere_gap <= g.slack,
                    "{what}: contact reported but the bounding spheres are {} apart",
                    g.sphere_gap
                );
            }
        }
        GjkOutcome::Undetermined { reason, bounds } => undetermined(what, reason, bounds, o),
    }
}

fn run<R: Real>(input: &Input) {
    let (mut store_a, mut store_b) = (PolyStore::<R>::new(), PolyStore::<R>::new());
    let Some(sa) = build::<R>(&input.a.prim.model(), &input.a.wrap, MAX_RING, &mut store_a) else { return };
    let Some(sb) = build::<R>(&input.b.prim.model(), &input.b.wrap, MAX_RING, &mut store_b) else { return };
    let (pa, pb) = (pose::<R>(&input.a), pose::<R>(&input.b));
    let a = Placed::new(&*sa, pa);
    let b = Placed::new(&*sb, pb);

    // A NaN or negative tolerance is an invalid budget (answered
    // `InvalidBudget`); every valid one, 0 and the subnormals included, is
    // fuzzed here (finer than the rounding, the closed forms answer a touch
    // only from a point of both bodies as computed).
    let mut budget = Budget::<R>::default();
    budget.max_iterations = input.max_iterations as u32;
    if let Some(t) = input.tolerance.map(|t| R::lit(t.get())) {
        if t.finite() && t >= R::ZERO {
            budget.tolerance = t;
        }
    }

    let geo = {
        let (ca, ra) = a.bounding_sphere();
        let (cb, rb) = b.bounding_sphere();
        let (ca, cb, ra, rb) = (ca.map(|x| x.to_f64()), cb.map(|x| x.to_f64()), ra.to_f64(), rb.to_f64());
        let (ma, mb) = (a.center().map(|x| x.to_f64()), b.center().map(|x| x.to_f64()));
        let scale = (ca.coords.norm() + ra).max(cb.coords.norm() + rb);
        let all = [scale, ma.coords.norm(), mb.coords.norm()];
        let poses_finite = finite_pose(a.pose()) && finite_pose(b.pose());
        (poses_finite && all.iter().all(|x| x.is_finite())).then(|| Geometry {
            sphere_gap: (ca - cb).norm() - ra - rb,
            centre_distance: (ma - mb).norm(),
            slack: (4.0 * budget.tolerance.to_f64() + 4096.0 * R::EPSILON.to_f64()) * scale,
            scale,
        })
    };

    let mut cache = GjkWarmStart::<R>::default();
    if let Some(c) = &input.cache {
        cache.direction = v3(&c.direction);
        cache.hint_a = SupportWarmStart(c.hint_a);
        cache.hint_b = SupportWarmStart(c.hint_b);
    }
    if let Some(s) = &input.seeds {
        cache.seeds.a = s.a.each_ref().map(v3);
        cache.seeds.b = s.b.each_ref().map(v3);
        cache.seeds.len = s.len;
    }
    let given = cache;
    let first = gjk::distance(&a, &b, &budget, &mut cache);
    check("first query", &first, &geo);
    let warm = gjk::distance(&a, &b, &budget, &mut cache);
    check("warm query", &warm, &geo);

    if let (Some(x), Some(y), Some(g)) = (first.is_penetrating(), warm.is_penetrating(), &geo) {
        // A contact answer means "within the tolerance of touching": a
        // separated answer beside it must then be within the slack too.
        let touching = [&first, &warm].iter().any(|o| match o {
            GjkOutcome::Separated(s) => s.distance.to_f64() <= g.slack,
            _ => false,
        });
        assert!(x == y || touching, "first and warm query disagree: {first:?} vs {warm:?}");
    }

    // The pair moved far from the origin, from the same cache (its direction
    // and hints do not depend on the placement): no certain answer against
    // the unmoved one, and the certified intervals of the two distances
    // (which differ by the rounding of the moved poses) overlap.
    if !(rigid(&pa) && rigid(&pb)) {
        return;
    }
    let (Some(t), Some(size)) = (input.offset.vector::<R>(), pair_size(&a, &b)) else { return };
    let (fa, fb) = (placement::moved(&pa, &t), placement::moved(&pb, &t));
    let Some(band) = placement::band(budget.tolerance, size, [&fa, &fb]) else { return };
    let far = gjk::distance(&Placed::new(&*sa, fa), &Placed::new(&*sb, fb), &budget, &mut given.clone());
    check("query on the pair moved by T", &far, &None);
    agree_gjk("placement: the pair vs the pair moved by T", &first, &far, band);
    if let (GjkOutcome::Separated(s), GjkOutcome::Separated(m)) = (&first, &far) {
        let (x, y) = (s.bounds, m.bounds);
        assert!(
            x.lower.to_f64() <= y.upper.to_f64() + band && y.lower.to_f64() <= x.upper.to_f64() + band,
            "placement: disjoint certificates (band {band}):\n{s:?}\n{m:?}"
        );
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
