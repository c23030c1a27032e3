//! Checks of the parts the support-family answers have in common, so that
//! every target asks the same of them.

use core::fmt::Debug;
use nalgebra::Vector3;
use narrowphase::prelude::*;

use super::bodies::{finite3, finite_p};

/// `reason` is one the targets know. The match is exhaustive on purpose: a
/// new reason stops the fuzz crate from compiling until the oracles have
/// been looked at for it.
pub fn known_reason(reason: &Undetermined) {
    match reason {
        Undetermined::IterationCap
        | Undetermined::OutOfCapacity
        | Undetermined::Degenerate
        | Undetermined::NonFinite
        | Undetermined::InvalidBudget => {}
    }
}

/// An undetermined answer: a known reason, bounds without NaN, `lower <= upper`.
pub fn undetermined<R: Real>(what: &str, reason: &Undetermined, bounds: &Bounds<R>, o: &dyn Debug) {
    known_reason(reason);
    let (lo, hi) = (bounds.lower.to_f64(), bounds.upper.to_f64());
    assert!(!lo.is_nan() && !hi.is_nan(), "{what}: NaN bounds {o:?}");
    assert!(!(lo > hi), "{what}: lower bound above upper {o:?}");
}

/// Both witness points and the normal are finite.
pub fn finite_witness<R: Real>(what: &str, w: &Witness<R>, o: &dyn Debug) {
    assert!(finite_p(&w.point_a) && finite_p(&w.point_b) && finite3(&w.normal), "{what}: non-finite witness {o:?}");
}

/// `n` has unit length (to 1e-3: the normals are computed in `R`).
pub fn unit<R: Real>(what: &str, n: &Vector3<R>, o: &dyn Debug) {
    let l = n.map(|x| x.to_f64()).norm();
    assert!((l - 1.0).abs() < 1e-3, "{what}: normal of length {l}: {o:?}");
}

/// Two GJK answers about the same pair (or pairs whose distances differ by
/// less than `band`): a separation certified beyond the band contradicts
/// contact, which means "within `tolerance · scale` of touching".
pub fn agree_gjk<R: Real>(what: &str, x: &GjkOutcome<R>, y: &GjkOutcome<R>, band: f64) {
    let lower = |o: &GjkOutcome<R>| match o {
        GjkOutcome::Separated(s) => Some(s.bounds.lower.to_f64()),
        _ => None,
    };
    for (p, q) in [(x, y), (y, x)] {
        if let (Some(lo), GjkOutcome::Penetrating(_)) = (lower(p), q) {
            assert!(lo <= band, "{what}: separated by {lo} (band {band}) vs intersecting:\n{p:?}\n{q:?}");
        }
    }
}
