//! EPA through the two public entry points: `support::contact::contact` (GJK,
//! then EPA or the margin path) and `epa::penetration` from the terminal
//! simplex of `gjk::distance`, on two arbitrary placed shapes, f32 or f64.
//!
//! Inputs: the model of `shared/bodies.rs`, a budget.
//!
//! Oracles (`slack` = `(8·tolerance + 8192·ε)·scale`):
//! - no panic; EPA's iterations within the cap (no hang);
//! - `Penetrating`: depth, bounds and witness finite, `0 <= lower <= depth
//!   <= upper`, unit normal; `Separated`: finite, `0 < lower <= distance <=
//!   upper`; `Undetermined`: a reason, bounds without NaN, `lower <= upper`;
//! - **sign agreement with GJK**: a penetration whose certified lower bound
//!   exceeds `slack` contradicts a GJK separation, and GJK's certified
//!   separation beyond `slack` contradicts any penetration; a separated
//!   `contact` answer and GJK's distance bracket the same number;
//! - **the certificate, checked by GJK** (finite, well-conditioned inputs):
//!   moving B by `(upper + slack)` along the normal separates the bodies
//!   (GJK does not report contact; on the margin path plus the normal's
//!   tilt, `t·gap/d_core`, allowed by the core certificate's gap), moving it by `lower − slack` (when
//!   positive) leaves them overlapping (GJK does not certify a separation
//!   beyond the band).
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use libfuzzer_sys::fuzz_target;
use nalgebra::Translation3;
use narrowphase::prelude::*;
use narrowphase::support::contact::{contact, DEPTH_TOLERANCE};
use narrowphase::support::epa::DefaultEpa;
use shared::bodies::*;
use shared::checks::{finite_witness, undetermined, unit};

fn check<R: Real>(what: &str, o: &Proximity<R>) {
    match o {
        Proximity::Separated(s) => {
            let (d, lo, hi) = (s.distance.to_f64(), s.bounds.lower.to_f64(), s.bounds.upper.to_f64());
            assert!(d.is_finite() && lo.is_finite() && hi.is_finite(), "{what}: non-finite {s:?}");
            finite_witness(what, &s.witness, s);
            assert!(0.0 < lo && lo <= d && d <= hi, "{what}: bounds {s:?}");
        }
        Proximity::Penetrating(p) => {
            let (d, lo, hi) = (p.depth.to_f64(), p.bounds.lower.to_f64(), p.bounds.upper.to_f64());
            assert!(d.is_finite() && lo.is_finite() && hi.is_finite(), "{what}: non-finite {p:?}");
            finite_witness(what, &p.witness, p);
            assert!(0.0 <= lo && lo <= d && d <= hi, "{what}: bounds {p:?}");
            unit(what, &p.witness.normal, p);
        }
        Proximity::Undetermined { reason, bounds } => undetermined(what, reason, bounds, o),
    }
}

/// A penetration's certified depth beyond the band contradicts a certified
/// separation beyond the band, and the two must not both be certified.
/// Bounds on the signed distance an answer certifies.
fn signed_bounds<R: Real>(o: &Proximity<R>) -> (f64, f64) {
    match o {
        Proximity::Separated(s) => (s.bounds.lower.to_f64(), s.bounds.upper.to_f64()),
        Proximity::Penetrating(p) => (-p.bounds.upper.to_f64(), -p.bounds.lower.to_f64()),
        Proximity::Undetermined { bounds, .. } => (bounds.lower.to_f64(), bounds.upper.to_f64()),
    }
}

fn agree<R: Real>(what: &str, o: &Proximity<R>, g: &GjkOutcome<R>, slack: f64) {
    match (o, g) {
        (Proximity::Penetrating(p), GjkOutcome::Separated(s)) => {
            let (depth_lo, gap_lo) = (p.bounds.lower.to_f64(), s.bounds.lower.to_f64());
            assert!(
                depth_lo <= slack && gap_lo <= slack,
                "{what}: penetrating (depth >= {depth_lo}) but GJK separated (distance >= {gap_lo}), band {slack}:\n{o:?}\n{g:?}"
            );
        }
        (Proximity::Separated(s), GjkOutcome::Penetrating(_)) => {
            let lo = s.bounds.lower.to_f64();
            assert!(lo <= slack, "{what}: separated by >= {lo} but GJK intersecting (band {slack}): {o:?}");
        }
        (Proximity::Separated(s), GjkOutcome::Separated(t)) => {
            let (a, b) = (s.bounds, t.bounds);
            assert!(
                a.lower.to_f64() <= b.upper.to_f64() + slack && b.lower.to_f64() <= a.upper.to_f64() + slack,
                "{what}: disjoint certificates of one distance: {s:?} vs {t:?}"
            );
        }
        _ => {}
    }
}

fn run<R: Real>(input: &PairIn) {
    let mut stores = [PolyStore::<R>::new(), PolyStore::<R>::new()];
    let Some(pair) = input.build::<R>(&mut stores) else { return };
    let (a, b) = pair.placed();
    let (pb, budget) = (pair.pb, pair.budget);
    // The default EPA workspace holds 64 iterations; the input's cap (up to
    // 255) is clamped to it: never out of bounds.

    let answer = contact(&a, &b, &budget, &mut GjkWarmStart::default());
    check("contact", &answer);
    let g = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());
    let mut direct = None;
    let mut on_stack = None;
    if let GjkOutcome::Penetrating(simplex) = &g {
        let mut epa = DefaultEpa::<R>::new();
        let out = epa.penetration(&a, &b, simplex, &budget);
        check("Epa::penetration", &out);
        assert!(epa.iterations() <= budget.max_iterations, "EPA ran {} iterations", epa.iterations());
        // The stack workspace runs as contact's EPA stage (twice the cap,
        // WideEpa in f64): another answer, the same depth.
        let free = epa::penetration(&a, &b, simplex, &budget);
        check("epa::penetration", &free);
        direct = Some(out);
        on_stack = Some(free);
    }

    let Some(scale) = scale_of(&a, &b) else { return };
    if !(rigid(&pair.pa) && rigid(&pb)) {
        return;
    }
    let slack = slack(budget.tolerance, scale);
    agree("contact vs GJK", &answer, &g, slack);
    if let Some(out) = &direct {
        agree("EPA vs GJK", out, &g, slack);
    }
    if let (Some(x), Some(y)) = (&direct, &on_stack) {
        let ((xl, xh), (yl, yh)) = (signed_bounds(x), signed_bounds(y));
        assert!(
            xl <= yh + slack && yl <= xh + slack,
            "Epa::penetration [{xl}, {xh}] and epa::penetration [{yl}, {yh}] hold no common depth"
        );
    }

    if !(well_conditioned(&input.a) && well_conditioned(&input.b)) {
        return;
    }
    for (what, o) in [("contact", Some(&answer)), ("epa::penetration", direct.as_ref())] {
        let Some(Proximity::Penetrating(p)) = o else { continue };
        let n = p.witness.normal;
        let shifted = |d: f64| {
            let t = Translation3::from(n * R::lit(d));
            Placed::new(&*pair.sb, t * pb)
        };
        let out = shifted(p.bounds.upper.to_f64() + slack);
        let scale2 = scale_of(&a, &out).unwrap_or(scale).max(scale);
        // EPA certifies its depth and normal to `max(tolerance,
        // DEPTH_TOLERANCE)`, in `contact` and called directly alike.
        let tolerance = budget.tolerance.to_f64().max(DEPTH_TOLERANCE);
        let band = shared::bodies::slack(R::lit(tolerance), scale2);
        // On the margin path (sphere-swept bodies whose cores are apart) the
        // normal is GJK's direction between the cores, accurate to
        // |δθ|² ≤ 2·gap/d_core with the gap of its certificate: moving B by
        // t along it gains at least t·(1 − δθ²/2).
        let (hi, gap) = (p.bounds.upper.to_f64(), p.bounds.gap().to_f64());
        let core_distance = (a.margin() + b.margin()).to_f64() - hi;
        let tilt = if core_distance > 0.0 { (hi + band) * gap / core_distance } else { 0.0 };
        let cleared = shifted(hi + band + 2.0 * tilt);
        if let GjkOutcome::Penetrating(_) = gjk::distance(&a, &cleared, &budget, &mut GjkWarmStart::default()) {
            panic!("{what}: moving B by upper + {band} (+ {tilt} for the normal's tilt) along the normal leaves contact: {p:?}");
        }
        let lo = p.bounds.lower.to_f64() - band;
        if lo > 0.0 {
            if let GjkOutcome::Separated(s) = gjk::distance(&a, &shifted(lo), &budget, &mut GjkWarmStart::default()) {
                assert!(
                    s.bounds.lower.to_f64() <= band,
                    "{what}: moving B by lower − {band} = {lo} along the normal separates by {s:?}: {p:?}"
                );
            }
        }
    }
}

fuzz_target!(init: shared::seeds::write(seed_pairs), |input: PairIn| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
