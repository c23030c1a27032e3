//! `gjk::intersect` (the boolean GJK with early exit) on two arbitrary placed
//! shapes, in f32 or f64, against `gjk::distance`, itself with the bodies
//! swapped, and after a rigid motion of the pair.
//!
//! Inputs: the model of `shared/bodies.rs` (every primitive and the
//! superquadric, a bipyramid polytope, rounded or linearly mapped, poses from
//! fixed-point or raw numbers), a budget, a rigid motion.
//!
//! Oracles (`slack` = `(8·tolerance + 8192·ε)·scale`, `scale` the largest
//! bounding-sphere extent from the origin):
//! - no panic; `cache.iterations <= max_iterations` (no hang);
//! - `Separated`: finite bounds and witness, `0 < lower <= upper`, unit
//!   normal; `Undetermined`: a reason, bounds without NaN, `lower <= upper`;
//! - **certificates agree with `gjk::distance`**: two certified intervals
//!   hold the same distance, so `intersect.lower <= distance.upper + slack`;
//! - **flag agreement outside the band**: a separated answer (either query)
//!   whose lower bound exceeds `slack` contradicts an intersecting one (which
//!   means "within `tolerance · scale` of touching");
//! - **symmetry**: `intersect(b, a)` obeys the same flag rule against
//!   `intersect(a, b)`, and its lower bound against the distance's upper;
//! - **rigid-motion invariance** (well-conditioned, finite inputs only): the
//!   same rule after moving both bodies by one rigid motion, with the slack
//!   of the larger of the two scales.
#![no_main]

#[path = "shared/bodies.rs"]
mod bodies;

use arbitrary::Arbitrary;
use bodies::*;
use libfuzzer_sys::fuzz_target;
use narrowphase::prelude::*;

#[derive(Arbitrary, Debug)]
struct Input {
    f64: bool,
    a: Body,
    b: Body,
    max_iterations: u8,
    tolerance: Option<Num>,
    motion: Motion,
}

/// Checks one outcome alone; returns its certified lower bound when separated.
fn check<R: Real>(what: &str, o: &GjkOutcome<R>, cache: &GjkWarmStart<R>, budget: &Budget<R>) -> Option<f64> {
    assert!(cache.iterations <= budget.max_iterations, "{what}: {} iterations over the cap", cache.iterations);
    match o {
        GjkOutcome::Separated(s) => {
            let (d, lo, hi) = (s.distance.to_f64(), s.bounds.lower.to_f64(), s.bounds.upper.to_f64());
            assert!(d.is_finite() && lo.is_finite() && hi.is_finite(), "{what}: non-finite {s:?}");
            let w = &s.witness;
            assert!(finite_p(&w.point_a) && finite_p(&w.point_b) && finite3(&w.normal), "{what}: witness {s:?}");
            assert!(0.0 < lo && lo <= hi && d <= hi, "{what}: bounds {s:?}");
            let n = w.normal.map(|x| x.to_f64()).norm();
            assert!((n - 1.0).abs() < 1e-3, "{what}: normal of length {n}: {s:?}");
            Some(lo)
        }
        GjkOutcome::Penetrating(_) => None,
        GjkOutcome::Undetermined { reason, bounds } => {
            match reason {
                Undetermined::IterationCap
                | Undetermined::OutOfCapacity
                | Undetermined::Degenerate
                | Undetermined::NonFinite
                | Undetermined::InvalidBudget => {}
            }
            let (lo, hi) = (bounds.lower.to_f64(), bounds.upper.to_f64());
            assert!(!lo.is_nan() && !hi.is_nan() && !(lo > hi), "{what}: bounds {o:?}");
            None
        }
    }
}

/// Two decided answers about the same pair: a certified separation beyond the
/// band contradicts contact.
fn agree<R: Real>(what: &str, x: &GjkOutcome<R>, y: &GjkOutcome<R>, slack: f64) {
    let lower = |o: &GjkOutcome<R>| match o {
        GjkOutcome::Separated(s) => Some(s.bounds.lower.to_f64()),
        _ => None,
    };
    for (p, q) in [(x, y), (y, x)] {
        if let (Some(lo), GjkOutcome::Penetrating(_)) = (lower(p), q) {
            assert!(lo <= slack, "{what}: separated by {lo} (band {slack}) vs intersecting:\n{p:?}\n{q:?}");
        }
    }
}

fn run<R: Real>(input: &Input) {
    let (mut store_a, mut store_b) = (PolyStore::<R>::new(), PolyStore::<R>::new());
    let Some(sa) = shape::<R>(&input.a, &mut store_a) else { return };
    let Some(sb) = shape::<R>(&input.b, &mut store_b) else { return };
    let (pa, pb) = (pose::<R>(&input.a), pose::<R>(&input.b));
    let a = Placed::new(&*sa, pa);
    let b = Placed::new(&*sb, pb);
    let budget = budget::<R>(input.max_iterations, input.tolerance);

    let mut cache = GjkWarmStart::default();
    let hit = gjk::intersect(&a, &b, &budget, &mut cache);
    let hit_lower = check("intersect(a, b)", &hit, &cache, &budget);
    let mut cache = GjkWarmStart::default();
    let dist = gjk::distance(&a, &b, &budget, &mut cache);
    check("distance(a, b)", &dist, &cache, &budget);
    let mut cache = GjkWarmStart::default();
    let swapped = gjk::intersect(&b, &a, &budget, &mut cache);
    let swapped_lower = check("intersect(b, a)", &swapped, &cache, &budget);

    let Some(scale) = scale_of(&a, &b) else { return };
    let poses_finite = rigid(&pa) && rigid(&pb);
    if !poses_finite {
        return;
    }
    let slack = slack(budget.tolerance, scale);
    // Two certified intervals of the same distance overlap.
    if let GjkOutcome::Separated(s) = &dist {
        for lo in [hit_lower, swapped_lower].into_iter().flatten() {
            let hi = s.bounds.upper.to_f64();
            assert!(lo <= hi + slack, "intersect's lower bound {lo} above distance's upper {hi}: {s:?}");
        }
    }
    agree("intersect vs distance", &hit, &dist, slack);
    agree("intersect(a, b) vs intersect(b, a)", &hit, &swapped, slack);
    agree("distance(a, b) vs intersect(b, a)", &dist, &swapped, slack);

    if !(well_conditioned(&input.a) && well_conditioned(&input.b)) {
        return;
    }
    let m = input.motion.pose::<R>();
    let (ma, mb) = (Placed::new(&*sa, m * pa), Placed::new(&*sb, m * pb));
    let Some(moved_scale) = scale_of(&ma, &mb) else { return };
    let mut cache = GjkWarmStart::default();
    let moved = gjk::intersect(&ma, &mb, &budget, &mut cache);
    check("intersect after a rigid motion", &moved, &cache, &budget);
    let band = bodies::slack(budget.tolerance, scale.max(moved_scale));
    agree("rigid motion (intersect)", &hit, &moved, band);
    agree("rigid motion (distance vs moved intersect)", &dist, &moved, band);
}

fuzz_target!(|input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
