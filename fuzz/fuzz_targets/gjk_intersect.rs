//! `gjk::intersect` (the boolean GJK with early exit) on two arbitrary placed
//! shapes, in f32 or f64, against `gjk::distance`, itself with the bodies
//! swapped, after a rigid motion of the pair, and with the pair moved far
//! from the origin.
//!
//! Inputs: the model of `shared/bodies.rs` (every primitive and the
//! superquadric, a bipyramid polytope, rounded or linearly mapped, poses from
//! fixed-point or raw numbers), a budget, a rigid motion, an offset.
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
//!   of the larger of the two scales;
//! - **placement invariance** (rigid poses): both bodies moved by one offset
//!   `T` of up to 1e4 (f32) or 1e8 (f64), the same rule against the unmoved
//!   `intersect` and `distance`, with the band of `shared/placement.rs`:
//!   `2·ε·|coordinate|` for the rounding of the moved poses plus `slack` at
//!   the size of the pair, never at `|T|`.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use narrowphase::prelude::*;
use shared::bodies::*;
use shared::checks::{agree_gjk, finite_witness, undetermined, unit};
use shared::placement::{self, pair_size, Offset};

#[derive(Arbitrary, Debug)]
struct Input {
    pair: PairIn,
    motion: Motion,
    offset: Offset,
}

shared::seeds::encode_struct!(Input { pair, motion, offset });

/// The shared pairs, each with a motion and an offset of up to 1e4 (f32)
/// or 1e8 (f64).
fn seeds() -> Vec<Input> {
    let mut rng = shared::seeds::Rng::new(2);
    let mut small = || rng.range(-127, 127) as i8;
    seed_pairs()
        .into_iter()
        .enumerate()
        .map(|(i, pair)| Input {
            pair,
            motion: Motion { translation: [small(), small(), small()], axis_angle: [small(), small(), small()] },
            offset: Offset { direction: [small(), small(), small()], exponent: (i % 9) as u8 },
        })
        .collect()
}

/// Checks one outcome alone; returns its certified lower bound when separated.
fn check<R: Real>(what: &str, o: &GjkOutcome<R>, cache: &GjkWarmStart<R>, budget: &Budget<R>) -> Option<f64> {
    assert!(cache.iterations <= budget.max_iterations, "{what}: {} iterations over the cap", cache.iterations);
    match o {
        GjkOutcome::Separated(s) => {
            let (d, lo, hi) = (s.distance.to_f64(), s.bounds.lower.to_f64(), s.bounds.upper.to_f64());
            assert!(d.is_finite() && lo.is_finite() && hi.is_finite(), "{what}: non-finite {s:?}");
            finite_witness(what, &s.witness, s);
            assert!(0.0 < lo && lo <= hi && d <= hi, "{what}: bounds {s:?}");
            unit(what, &s.witness.normal, s);
            Some(lo)
        }
        GjkOutcome::Penetrating(_) => None,
        GjkOutcome::Undetermined { reason, bounds } => {
            undetermined(what, reason, bounds, o);
            None
        }
    }
}

fn run<R: Real>(input: &Input) {
    let mut stores = [PolyStore::<R>::new(), PolyStore::<R>::new()];
    let Some(pair) = input.pair.build::<R>(&mut stores) else { return };
    let (a, b) = pair.placed();
    let budget = pair.budget;

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
    if !(rigid(&pair.pa) && rigid(&pair.pb)) {
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
    agree_gjk("intersect vs distance", &hit, &dist, slack);
    agree_gjk("intersect(a, b) vs intersect(b, a)", &hit, &swapped, slack);
    agree_gjk("distance(a, b) vs intersect(b, a)", &dist, &swapped, slack);

    // The pair moved far from the origin.
    if let (Some(t), Some(size)) = (input.offset.vector::<R>(), pair_size(&a, &b)) {
        let (pa, pb) = (placement::moved(&pair.pa, &t), placement::moved(&pair.pb, &t));
        if let Some(band) = placement::band(budget.tolerance, size, [&pa, &pb]) {
            let (fa, fb) = pair.placed_at(pa, pb);
            let mut cache = GjkWarmStart::default();
            let far = gjk::intersect(&fa, &fb, &budget, &mut cache);
            check("intersect after moving the pair by T", &far, &cache, &budget);
            agree_gjk("placement: intersect vs intersect moved by T", &hit, &far, band);
            agree_gjk("placement: distance vs intersect moved by T", &dist, &far, band);
        }
    }

    if !(well_conditioned(&input.pair.a) && well_conditioned(&input.pair.b)) {
        return;
    }
    let m = input.motion.pose::<R>();
    let (ma, mb) = pair.placed_at(m * pair.pa, m * pair.pb);
    let Some(moved_scale) = scale_of(&ma, &mb) else { return };
    let mut cache = GjkWarmStart::default();
    let moved = gjk::intersect(&ma, &mb, &budget, &mut cache);
    check("intersect after a rigid motion", &moved, &cache, &budget);
    let band = shared::bodies::slack(budget.tolerance, scale.max(moved_scale));
    agree_gjk("rigid motion (intersect)", &hit, &moved, band);
    agree_gjk("rigid motion (distance vs moved intersect)", &dist, &moved, band);
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.pair.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
