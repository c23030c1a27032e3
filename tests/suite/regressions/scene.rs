//! `fuzz/regressions/scene/`: pairs of a `Scene` whose answer the oracle
//! misjudged. Truth: face-to-face distances of axis-aligned boxes, in
//! closed form.

use nalgebra::{Matrix3, Rotation3, Translation3, Vector3};
use narrowphase::prelude::*;
use narrowphase::query::Threshold;
use narrowphase::support::contact::{clearance, contact};

/// `f64-rounded-box-on-box-subnormal-tilt-oracle-gap-not-unit`: a rounded
/// box (core 0.125 × 0.5 × 0.5 half-extents, radius 1/32) beside a box
/// (0.5, 0.5, 0.0625) at x = 0.75, turned by a rotation whose off-diagonal
/// entries are 1.3e-314 and 3.4e-161 (an identity to every digit of f64).
/// Their faces meet across x: the cores are 0.25 − 0.125 apart, the bodies
/// 0.125 − 1/32 = 0.09375, in either order, by `contact` and by the
/// threshold query at the pair's margin 0.1015625 and just below 0.09375.
#[test]
fn f64_rounded_box_resting_beside_a_box_turned_by_subnormal_angles() {
    let a = Placed::new(
        Rounded::new(Cuboid::new(Vector3::new(0.125, 0.5, 0.5)).unwrap(), Sphere::new(0.03125).unwrap()),
        Pose::identity(),
    );
    let (tiny, small) = (1.314805235e-314, 3.403000061956762e-161);
    let turn = Rotation3::from_matrix_unchecked(Matrix3::new(1.0, 0.0, -tiny, -0.0, 1.0, -small, tiny, small, 1.0));
    let b = Placed::new(
        Cuboid::new(Vector3::new(0.5, 0.5, 0.0625)).unwrap(),
        Pose::from_parts(Translation3::new(0.75, 0.0, -3.4030000619567615e-161), turn),
    );
    let truth = 0.125 - 0.03125;
    for (x, y) in [(&a as &dyn SupportMap<f64>, &b as &dyn SupportMap<f64>), (&b, &a)] {
        let Proximity::Separated(s) = contact(x, y, &Budget::default(), &mut GjkWarmStart::default()) else {
            panic!("not separated")
        };
        assert!((s.distance - truth).abs() <= 1e-12 && s.bounds.contains(truth), "{s:?}");
        let t = clearance(x, y, 0.1015625, &Budget::default(), &mut GjkWarmStart::default());
        assert!(
            matches!(t, Threshold::Within { bounds } if bounds.contains(truth) && bounds.upper - bounds.lower <= 1e-12),
            "{t:?}"
        );
        let t = clearance(x, y, truth - 1e-6, &Budget::default(), &mut GjkWarmStart::default());
        assert!(matches!(t, Threshold::Clear { bounds } if bounds.contains(truth)), "{t:?}");
    }
}
