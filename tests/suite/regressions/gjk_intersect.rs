//! `fuzz/regressions/gjk_intersect/`: see the README there.

use super::at;
use nalgebra::Vector3;
use narrowphase::prelude::*;

/// The bounds of an answer about bodies apart by more than the largest
/// float: never contact, never a NaN, `lower ≤ upper`.
pub(super) fn beyond_the_largest_float(what: &str, out: &GjkOutcome<f64>) {
    match out {
        GjkOutcome::Penetrating(_) => panic!("{what}: contact {out:?}"),
        GjkOutcome::Separated(s) => {
            assert!(s.bounds.lower > 0.0 && s.bounds.lower <= s.bounds.upper, "{what}: {out:?}")
        }
        GjkOutcome::Undetermined { bounds, .. } => {
            assert!(!bounds.lower.is_nan() && !bounds.upper.is_nan(), "{what}: NaN bounds {out:?}");
            assert!(bounds.lower <= bounds.upper, "{what}: {out:?}");
        }
    }
}

/// `f64-box-cone-near-max-floats-first-plane-nan-lower`: a thin box at
/// z = 1.7e308 and a cone at y = −9.0e307, so that the centres' offset and
/// the first support point have coordinates near the largest float. The
/// first support plane's bound `d·w / |d|` overflowed to `∞/∞ = NaN`, and
/// an intersection query with no iterations to run answered `IterationCap`
/// with a NaN lower bound. Truth: the z extents alone (the box within 1e-6
/// of 1.7e308, the cone within 3 of the origin) put the bodies apart by
/// more than 1e308.
#[test]
fn f64_box_and_cone_near_the_largest_floats_keep_ordered_finite_bounds() {
    let a = Placed::new(Cuboid::new(Vector3::new(2.0, 2.0, 1e-6)).unwrap(), at::<f64>(7.3e-304, 2.0, 1.7e308));
    let b = Placed::new(Cone::new(3.0, 3.0).unwrap(), at::<f64>(-85.73, -8.98846567431192e307, 0.297));
    for cap in [0, 1, 64] {
        let budget = Budget::new(cap, Budget::<f64>::default().tolerance);
        let out = gjk::intersect(&a, &b, &budget, &mut GjkWarmStart::default());
        beyond_the_largest_float(&format!("intersect, cap {cap}"), &out);
        let out = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());
        beyond_the_largest_float(&format!("distance, cap {cap}"), &out);
    }
}
