//! MPR (`mpr::intersect`, `mpr::penetration`) on two arbitrary placed
//! shapes, f32 or f64, against GJK and EPA.
//!
//! Inputs: the model of `shared/bodies.rs`, a budget.
//!
//! Oracles (`slack` = `(8·tolerance + 8192·ε)·scale`):
//! - no panic; no hang (the solver counts support queries against the cap:
//!   a run is bounded by construction; libFuzzer's timeout catches the rest);
//! - `Separated`: finite `lower_bound > 0`, unit axis; `Penetrating` from
//!   `penetration`: depth, bounds and witness finite, `lower <= depth <=
//!   upper`, depth >= 0, unit normal (from `intersect`, `upper` may be +∞);
//!   `Undetermined`: a reason, bounds without NaN, `lower <= upper`;
//! - **flag agreement with GJK outside the band**: MPR's certified lower
//!   bound beyond `slack` contradicts GJK contact, and MPR's penetration
//!   contradicts a GJK separation certified beyond `slack`; MPR's lower
//!   bound never exceeds GJK's certified upper bound (+ slack);
//! - `intersect` and `penetration` agree with each other the same way;
//! - **penetration bounds**: MPR's `upper` (a support value) bounds EPA's
//!   depth from above: EPA's certified `lower <= MPR upper + slack`;
//! - **checked by GJK** (finite, well-conditioned inputs): moving B by
//!   `upper + slack` along MPR's normal separates the bodies (`upper` is a
//!   support value along it). Not checked: that moving by `lower − slack`
//!   keeps them overlapping — the portal's plane distance bounds `h(n)`, not
//!   the exit of the ray along `n`, which can be shorter.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use nalgebra::Translation3;
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use shared::bodies::*;
use shared::checks::{finite_witness, undetermined, unit};

fn check<R: Real>(what: &str, o: &MprOutcome<R>, converged: bool) {
    match o {
        MprOutcome::Separated { lower_bound, axis } => {
            let lo = lower_bound.to_f64();
            assert!(lo.is_finite() && lo > 0.0 && finite3(axis), "{what}: {o:?}");
            unit(what, axis, o);
        }
        MprOutcome::Penetrating(p) => {
            let (d, lo, hi) = (p.depth.to_f64(), p.bounds.lower.to_f64(), p.bounds.upper.to_f64());
            assert!(d.is_finite() && !lo.is_nan() && !hi.is_nan(), "{what}: non-finite {p:?}");
            if converged {
                assert!(lo.is_finite() && hi.is_finite(), "{what}: non-finite bounds {p:?}");
            }
            finite_witness(what, &p.witness, p);
            assert!(d >= 0.0 && lo <= d && d <= hi, "{what}: bounds {p:?}");
            unit(what, &p.witness.normal, p);
        }
        MprOutcome::Undetermined { reason, bounds } => undetermined(what, reason, bounds, o),
    }
}

fn agree_gjk<R: Real>(what: &str, m: &MprOutcome<R>, g: &GjkOutcome<R>, slack: f64) {
    match (m, g) {
        (MprOutcome::Separated { lower_bound, .. }, GjkOutcome::Penetrating(_)) => {
            let lo = lower_bound.to_f64();
            assert!(lo <= slack, "{what}: MPR separated by >= {lo}, GJK intersecting (band {slack}):\n{m:?}\n{g:?}");
        }
        (MprOutcome::Separated { lower_bound, .. }, GjkOutcome::Separated(s)) => {
            let (lo, hi) = (lower_bound.to_f64(), s.bounds.upper.to_f64());
            assert!(lo <= hi + slack, "{what}: MPR lower bound {lo} above GJK's upper {hi}: {s:?}");
        }
        (MprOutcome::Penetrating(_), GjkOutcome::Separated(s)) => {
            let lo = s.bounds.lower.to_f64();
            assert!(lo <= slack, "{what}: MPR penetrating, GJK separated by >= {lo} (band {slack}):\n{m:?}\n{g:?}");
        }
        _ => {}
    }
}

fn agree_mpr<R: Real>(x: &MprOutcome<R>, y: &MprOutcome<R>, slack: f64) {
    for (p, q) in [(x, y), (y, x)] {
        if let (MprOutcome::Separated { lower_bound, .. }, MprOutcome::Penetrating(_)) = (p, q) {
            let lo = lower_bound.to_f64();
            assert!(lo <= slack, "intersect vs penetration: separated by {lo} vs penetrating:\n{p:?}\n{q:?}");
        }
    }
}

fn run<R: Real>(input: &PairIn) {
    let mut stores = [PolyStore::<R>::new(), PolyStore::<R>::new()];
    let Some(pair) = input.build::<R>(&mut stores) else { return };
    let (a, b) = pair.placed();
    let (pb, budget) = (pair.pb, pair.budget);

    let hit = mpr::intersect(&a, &b, &budget);
    check("mpr::intersect", &hit, false);
    let pen = mpr::penetration(&a, &b, &budget);
    check("mpr::penetration", &pen, true);
    let g = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());

    let Some(scale) = scale_of(&a, &b) else { return };
    if !(rigid(&pair.pa) && rigid(&pb)) {
        return;
    }
    let slack = slack(budget.tolerance, scale);
    agree_gjk("intersect", &hit, &g, slack);
    agree_gjk("penetration", &pen, &g, slack);
    agree_mpr(&hit, &pen, slack);
    let MprOutcome::Penetrating(p) = &pen else { return };
    let upper = p.bounds.upper.to_f64();
    if let Proximity::Penetrating(e) = contact(&a, &b, &budget, &mut GjkWarmStart::default()) {
        let lo = e.bounds.lower.to_f64();
        assert!(lo <= upper + slack, "EPA's depth >= {lo} above MPR's directional upper bound {upper}: {e:?} {p:?}");
    }

    if !(well_conditioned(&input.a) && well_conditioned(&input.b)) {
        return;
    }
    let n = p.witness.normal;
    let shifted = |d: f64| Placed::new(&*pair.sb, Translation3::from(n * R::lit(d)) * pb);
    let scale2 = scale_of(&a, &shifted(upper + slack)).unwrap_or(scale).max(scale);
    let band = shared::bodies::slack(budget.tolerance, scale2);
    if let GjkOutcome::Penetrating(_) = gjk::distance(&a, &shifted(upper + band), &budget, &mut GjkWarmStart::default()) {
        panic!("moving B by MPR's upper + {band} along its normal leaves contact: {p:?}");
    }
}

fuzz_target!(init: shared::seeds::write(seed_pairs), |input: PairIn| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
