//! `gjk::distance` on two arbitrary placed shapes, in f32 or f64.
//!
//! The input picks two shapes (every primitive, a bipyramid polytope with 3 to
//! 40 ring vertices — above 32 vertices its support map hill-climbs — each
//! optionally rounded or put through a linear map), two poses (identity, axis-
//! angle or a raw quaternion, normalised: a zero quaternion gives a NaN
//! rotation), a budget and optionally a pre-filled warm-start cache (any
//! direction, any hint index). Numbers are either small fixed-point values
//! (so that touching, nested and coincident configurations are common) or raw
//! `f64` bit patterns (NaN, infinities, subnormals, huge values). Constructors
//! may reject a shape (then the input is skipped); poses and caches are not
//! validated by the library, so non-finite ones reach the query.
//!
//! Oracles, for the cold query and a second, warm-started one:
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
//!   is within the tolerance of touching.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Matrix3, Quaternion, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use narrowphase::query::Bounds;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Num {
    /// `i / 256`: within ±128, exact in both precisions.
    Small(i16),
    /// Raw bits: NaN, ±inf, subnormal, huge.
    Raw(f64),
}

impl Num {
    fn get(self) -> f64 {
        match self {
            Num::Small(i) => i as f64 / 256.0,
            Num::Raw(x) => x,
        }
    }
}

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

#[derive(Arbitrary, Debug)]
enum Wrap {
    None,
    Rounded(Num),
    Linear([Num; 9]),
}

#[derive(Arbitrary, Debug)]
enum Rot {
    Identity,
    AxisAngle([Num; 3]),
    Quat([Num; 4]),
}

#[derive(Arbitrary, Debug)]
struct Body {
    prim: Prim,
    wrap: Wrap,
    translation: [Num; 3],
    rotation: Rot,
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
    a: Body,
    b: Body,
    max_iterations: u8,
    tolerance: Option<Num>,
    cache: Option<CacheIn>,
}

/// What the queries need of a body.
trait Shape<R: Real>: SupportMap<R> + Bounded<R> {}
impl<R: Real, T: SupportMap<R> + Bounded<R>> Shape<R> for T {}

#[path = "shared/bodies.rs"]
mod bodies;
use bodies::PolyStore;
/// The ring sizes this target draws (3 to 40; the store holds more), kept
/// so that the recorded inputs replay as they were found.
const MAX_RING: usize = 40;

fn v3<R: Real>(n: &[Num; 3]) -> Vector3<R> {
    Vector3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

fn wrap<'a, R: Real, S: Shape<R> + 'a>(shape: S, w: &Wrap) -> Option<Box<dyn Shape<R> + 'a>> {
    Some(match w {
        Wrap::None => Box::new(shape),
        Wrap::Rounded(r) => Box::new(Rounded::new(shape, Sphere::new(R::lit(r.get())).ok()?)),
        Wrap::Linear(m) => {
            let m = Matrix3::from_iterator(m.iter().map(|x| R::lit(x.get())));
            Box::new(Affine::new(shape, m, Vector3::zeros()).ok()?)
        }
    })
}

fn shape<'a, R: Real>(body: &Body, store: &'a mut PolyStore<R>) -> Option<Box<dyn Shape<R> + 'a>> {
    let l = |x: &Num| R::lit(x.get());
    match &body.prim {
        Prim::Sphere(r) => wrap(Sphere::new(l(r)).ok()?, &body.wrap),
        Prim::Cuboid(h) => wrap(Cuboid::new(v3(h)).ok()?, &body.wrap),
        Prim::Capsule(h, r) => wrap(Capsule::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Cylinder(h, r) => wrap(Cylinder::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Cone(h, r) => wrap(Cone::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Ellipsoid(a) => wrap(Ellipsoid::new(v3(a)).ok()?, &body.wrap),
        Prim::Bipyramid { n, r, top, bottom } => {
            let (r, top, bottom) = (r.get(), top.get(), bottom.get());
            if !(r > 0.0 && top > 0.0 && bottom > 0.0 && (r + top + bottom).is_finite()) {
                return None;
            }
            store.bipyramid(3 + *n as usize % (MAX_RING - 2), r, top, bottom);
            wrap(store.polytope()?, &body.wrap)
        }
    }
}

fn pose<R: Real>(body: &Body) -> Pose<R> {
    let rotation = match &body.rotation {
        Rot::Identity => Rotation3::identity(),
        Rot::AxisAngle(v) => Rotation3::new(v3(v)),
        Rot::Quat(q) => {
            let q = Quaternion::new(R::lit(q[0].get()), R::lit(q[1].get()), R::lit(q[2].get()), R::lit(q[3].get()));
            UnitQuaternion::new_normalize(q).to_rotation_matrix()
        }
    };
    Pose::from_parts(Translation3::from(v3::<R>(&body.translation)), rotation)
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
            let w = &s.witness;
            assert!(
                w.point_a.iter().chain(w.point_b.iter()).chain(w.normal.iter()).all(|x| x.to_f64().is_finite()),
                "{what}: non-finite witness {s:?}"
            );
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
        GjkOutcome::Undetermined { reason, bounds } => {
            match reason {
                Undetermined::IterationCap
                | Undetermined::OutOfCapacity
                | Undetermined::Degenerate
                | Undetermined::NonFinite
                | Undetermined::InvalidBudget => {}
            }
            let Bounds { lower, upper } = *bounds;
            assert!(!lower.to_f64().is_nan() && !upper.to_f64().is_nan(), "{what}: NaN bounds {o:?}");
            assert!(!(lower > upper), "{what}: lower bound above upper {o:?}");
        }
    }
}

fn run<R: Real>(input: &Input) {
    let (mut store_a, mut store_b) = (PolyStore::<R>::new(), PolyStore::<R>::new());
    let Some(sa) = shape::<R>(&input.a, &mut store_a) else { return };
    let Some(sb) = shape::<R>(&input.b, &mut store_b) else { return };
    let a = Placed::new(&*sa, pose::<R>(&input.a));
    let b = Placed::new(&*sb, pose::<R>(&input.b));

    // A NaN, negative or zero tolerance is caller misuse the budget type does
    // not reject (a NaN one makes the first test report contact); keep
    // tolerances meaningful here.
    let mut budget = Budget::<R>::default();
    budget.max_iterations = input.max_iterations as u32;
    if let Some(t) = input.tolerance.map(|t| R::lit(t.get())) {
        if t.finite() && t > R::ZERO {
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
        let poses_finite = [&a.pose(), &b.pose()]
            .iter()
            .all(|p| p.rotation.matrix().iter().chain(p.translation.vector.iter()).all(|x| x.to_f64().is_finite()));
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
}

fuzz_target!(|input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
