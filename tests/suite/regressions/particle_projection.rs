//! `fuzz/regressions/particle_projection/`: the particle method's
//! projection (`sdf::particles`) and the SDFs at NaN points. The `Sdf`
//! contract: NaN in, NaN out (the consumers — iterated projection, the
//! ellipsoid method, the gradient methods — refuse NaN values, but a finite
//! value at a NaN point is believed).

use nalgebra::Vector3;
use narrowphase::sdf::{Sdf, Torus};

/// Every SDF of the crate at a point with a NaN coordinate: NaN in, NaN out.
fn assert_nan_at_nan_points<S: Sdf<f64, 3>>(name: &str, s: &S) {
    for x in [
        Vector3::new(f64::NAN, 0.0, 0.0),
        Vector3::new(0.3, f64::NAN, -0.2),
        Vector3::new(0.1, 0.2, f64::NAN),
        Vector3::new(f64::NAN, f64::INFINITY, 0.0),
        Vector3::new(f64::NAN, f64::NAN, f64::NAN),
    ] {
        let v = s.eval(&x).value;
        assert!(v.is_nan(), "{name} at {x:?}: {v}");
    }
}

/// `f32-nan-point-inside-a-box-and-a-cylinder-122-apart`: a box and a
/// cylinder ~122 apart, a projection started at (NaN, ∞, 0). Guards NaN
/// coordinates in the SDFs: a per-axis loop whose comparisons a NaN fails
/// both of reads the point as "inside", and through a pose 0·∞ = NaN makes
/// every local coordinate NaN (a hit at depth −∞ between bodies 122 apart
/// is the failure mode). Truth: no value at a NaN point, so no hit; and
/// every SDF of the crate answers NaN at five NaN points.
#[test]
fn a_nan_point_is_never_inside_a_box_or_a_cylinder() {
    use narrowphase::math::Pose;
    use narrowphase::sdf::particles::iterate_projection;
    use narrowphase::sdf::{BoxN, CappedCone, Halfspace, Transformed, Union};
    use narrowphase::shape::{Capsule, Cone, Cuboid, Cylinder, Ellipsoid, Placed, Rounded, Sphere};
    let s = |k: f32| k / 256.0;
    let pose = |x: f32, y: f32, z: f32| Pose::from_parts(nalgebra::Translation3::new(x, y, z), Default::default());
    let a =
        Placed::new(Cuboid::new(Vector3::new(s(514.0), s(4610.0), s(514.0))).unwrap(), pose(s(2056.0), 0.0, -128.0));
    let b = Placed::new(Cylinder::new(s(514.0), s(514.0)).unwrap(), pose(s(514.0), s(514.0), s(514.0)));
    let p = iterate_projection(&Vector3::new(f32::NAN, f32::INFINITY, 0.0), &a, &b, 0.0, 2);
    assert!(!p.hit, "{p:?}");

    let ball = Sphere::new(1.0).unwrap();
    let cube = Cuboid::new(Vector3::new(1.0, 0.5, 0.25)).unwrap();
    assert_nan_at_nan_points("sphere", &ball);
    assert_nan_at_nan_points("cuboid", &cube);
    assert_nan_at_nan_points("box", &BoxN::new(Vector3::new(1.0, 2.0, 3.0)).unwrap());
    assert_nan_at_nan_points("capsule", &Capsule::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("cylinder", &Cylinder::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("cone", &Cone::new(1.0, 0.5).unwrap());
    assert_nan_at_nan_points("capped cone", &CappedCone::new(1.0, 0.5, 0.25).unwrap());
    assert_nan_at_nan_points("ellipsoid", &Ellipsoid::new(Vector3::new(1.0, 0.5, 0.25)).unwrap());
    assert_nan_at_nan_points("halfspace", &Halfspace::new(Vector3::new(0.0, 0.0, 1.0), 0.5).unwrap());
    assert_nan_at_nan_points("torus", &Torus::new(1.0, 0.25).unwrap());
    assert_nan_at_nan_points("rounded box", &Rounded::new(cube, Sphere::new(0.1).unwrap()));
    assert_nan_at_nan_points("placed box", &Placed::new(cube, Pose::identity()));
    let t = Transformed::new(cube, nalgebra::Matrix3::identity(), 2.0, Vector3::new(1.0, 0.0, 0.0)).unwrap();
    assert_nan_at_nan_points("transformed box", &t);
    assert_nan_at_nan_points("union", &Union::new(ball, cube));
    let sq = narrowphase::shape::Superquadric::new(Vector3::new(1.0, 0.5, 0.25), 0.5, 1.5).unwrap();
    assert_nan_at_nan_points("superquadric", &sq);
    let corners: Vec<nalgebra::Point3<f64>> =
        (0..8).map(|i| nalgebra::Point3::new((i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64 * 0.5)).collect();
    let hull = narrowphase::hull::quickhull(&corners).unwrap();
    assert_nan_at_nan_points("polytope", &hull.polytope().unwrap());
}
