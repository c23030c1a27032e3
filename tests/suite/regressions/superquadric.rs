//! `fuzz/regressions/superquadric/`: the exact ellipsoid ⊕ superquadric
//! checker (`minkowski::superquadric`) in 2D and 3D — certificates that must
//! hold for the bodies as given, and poses it cannot trust.

use nalgebra::{Matrix3, Quaternion, Rotation2, Translation2, Translation3, UnitQuaternion, Vector2, Vector3};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;

use super::at;

/// `f32-2d-rectangle-disc-false-interior-cone`: superellipse (10.02734375,
/// 10^(35/32) = 12.36), ε = 0.01 (nearly a rectangle) at (32.98, 0);
/// ellipse (101.015625, 101.03125) at (101.39, 101.39); f32, default
/// tolerance. Ground truth: the superellipse lies in its bounding rectangle
/// [22.95, 43.01] × [−12.36, 12.36], whose nearest point to the ellipse's
/// centre is 106.6 away > 101.04, the ellipse's largest semi-axis:
/// separated by ≥ 5.5. Guards the interior-cone test of `certify`: the
/// radial bound `L·sin α / sin(α + θ)` of `conv(B(0, ρ) ∪ {x_eb})` holds
/// only up to the cone's tangent point (`θ ≤ π/2 − α`); beyond it the hull's
/// radius is `ρ`, and the wider bound would certify `Penetrating` at the
/// first iterate of `Stop::Decided` (margin 1.075 > 1 here, at θ = 38°,
/// α = 77.5°).
#[test]
fn f32_2d_rectangle_disc_is_not_certified_colliding() {
    let se = Superellipse::new(Vector2::new(10.027_344_f32, 10f32.powf(35.0 / 32.0)), 0.01).unwrap();
    let el = Ellipse::new(Vector2::new(101.015_625_f32, 101.031_25)).unwrap();
    let p1 = Pose2::from_parts(Translation2::new(32.980_47_f32, 0.0), Rotation2::identity());
    let p2 = Pose2::from_parts(Translation2::new(101.394_53_f32, 101.394_53), Rotation2::identity());
    // Ground truth from the bounding rectangle.
    let (dx, dy): (f64, f64) = (101.39453125 - (32.98046875 + 10.02734375), 101.39453125 - 10f64.powf(35.0 / 32.0));
    assert!(dx.hypot(dy) - 101.03125 > 5.0);
    let budget = Budget::new(162, Budget::<f32>::default().tolerance);
    let margin = ellipse_superellipse(&se, &p1, &el, &p2, &budget, Stop::Converged);
    assert_eq!(margin.is_penetrating(), Some(false), "{margin:?}");
    let decide = ellipse_superellipse(&se, &p1, &el, &p2, &budget, Stop::Decided);
    assert_ne!(decide.is_penetrating(), Some(true), "{decide:?}");
}

/// The interior-cone bound of the test above in 3D (a pair made by hand
/// after the 2D input): a nearly cubic superquadric (10, 12, 12), ε = (0.01,
/// 0.01), at (33, 0, 0) and a ball of radius 101 at (101.4, 101.4, 0), f32.
/// Ground truth: its bounding box's nearest point (43, 12, 0) is 106.8 from
/// the ball's centre, so they are separated by ≥ 5.8; `Stop::Decided` must
/// not certify `Penetrating`.
#[test]
fn f32_3d_box_ball_is_not_certified_colliding() {
    let sq = Superquadric::new(Vector3::new(10.0_f32, 12.0, 12.0), 0.01, 0.01).unwrap();
    let e = Ellipsoid::new(Vector3::new(101.0_f32, 101.0, 101.0)).unwrap();
    let (p1, p2) = (at::<f32>(33.0, 0.0, 0.0), at::<f32>(101.4, 101.4, 0.0));
    assert!((101.4f64 - 43.0).hypot(101.4 - 12.0) - 101.0 > 5.0_f64);
    let margin = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Converged);
    assert_eq!(margin.is_penetrating(), Some(false), "{margin:?}");
    let decide = ellipsoid_superquadric(&sq, &p1, &e, &p2, &Budget::default(), Stop::Decided);
    assert_ne!(decide.is_penetrating(), Some(true), "{decide:?}");
}

/// `f64-zero-rotation-coincident-nan`: a superquadric pose whose rotation
/// comes from `UnitQuaternion::new_normalize` of a quaternion with a
/// 2.8e180 component: the norm overflows and the "rotation" is the zero
/// matrix (finite; poses are not validated). The local centre offset is
/// then 0, which takes the coincident-centres shortcut, where the
/// ellipsoid's shape matrix `rot·B²·rotᵀ` is zero (`0/0` in its support).
/// Truth: a determined answer carries finite points and a unit normal
/// (every other path checks finiteness and answers
/// `Undetermined::NonFinite`).
#[test]
fn f64_zero_rotation_coincident_centres_has_no_nan() {
    let sq = Superquadric::new(Vector3::new(47.0, 47.0, 0.13671875), 0.0133, 0.01).unwrap();
    let l = |k: f64| 10f64.powf(k / 32.0);
    let e = Ellipsoid::new(Vector3::new(l(101.0), l(101.0), l(-8.0))).unwrap();
    let q = Quaternion::<f64>::new(101.39453125, 2.77448001762435e180, 101.39453125, 101.39453125);
    let rot = UnitQuaternion::new_normalize(q).to_rotation_matrix();
    assert!(rot.matrix().iter().all(|x| x.is_finite()));
    let p1 = Pose::from_parts(Translation3::new(4.38952151221776e48, 101.39453125, 101.39453125), rot);
    let out = ellipsoid_superquadric(&sq, &p1, &e, &Pose::identity(), &Budget::new(0, 1e-12), Stop::Decided);
    if let Some(h) = out.hit() {
        let all = h.boundary_point.iter().chain(h.contact_point.iter()).chain(h.normal.iter());
        assert!(all.into_iter().all(|x: &f64| x.is_finite()), "{out:?}");
        assert!((h.normal.norm() - 1.0).abs() < 1e-6, "{out:?}");
    }
}

/// `crash-4b7b1ae5421078d8c45be74ed641a60ee24e483a`: a pose rotation from a
/// raw quaternion whose components (−3.4e-161) square to subnormals is not
/// orthonormal (its normalisation is off by ~1.7e-3). Closed form: such a
/// matrix scales lengths, so no answer built on it can carry a unit normal
/// (a certified `Separated` with a normal of length 1.0017 is the failure
/// mode); the checker must say `Degenerate`, in 2D as in 3D, while a true
/// rotation still decides.
#[test]
fn non_orthonormal_pose_rotations_are_degenerate_in_the_superquadric_checker() {
    use narrowphase::query::Stop;
    let sq = Superquadric::new(Vector3::new(1.0_f64, 0.5, 0.8), 1.2, 0.7).unwrap();
    let e = Ellipsoid::new(Vector3::new(0.3, 0.2, 0.4)).unwrap();
    let apart = Translation3::new(5.0, 0.0, 0.0);
    let skewed = nalgebra::Rotation3::from_matrix_unchecked(Matrix3::identity() * 1.0017);
    for mode in [Stop::Decided, Stop::Converged] {
        let bad = ellipsoid_superquadric(
            &sq,
            &Pose::from_parts(apart, skewed),
            &e,
            &Pose::identity(),
            &Budget::default(),
            mode,
        );
        assert!(matches!(bad, MinkowskiOutcome::Undetermined { reason: Undetermined::Degenerate, .. }), "{bad:?}");
        let good = ellipsoid_superquadric(
            &sq,
            &Pose::from_parts(apart, Default::default()),
            &e,
            &Pose::identity(),
            &Budget::default(),
            mode,
        );
        assert_eq!(good.is_penetrating(), Some(false), "{good:?}");
    }
    let se = Superellipse::new(Vector2::new(1.0_f64, 0.5), 0.7).unwrap();
    let el = Ellipse::new(Vector2::new(0.3, 0.2)).unwrap();
    let skewed2 = Pose2::from_parts(
        Translation2::new(5.0, 0.0),
        nalgebra::Rotation2::from_matrix_unchecked(nalgebra::Matrix2::identity() * 1.0017),
    );
    let bad = ellipse_superellipse(&se, &skewed2, &el, &Pose2::identity(), &Budget::default(), Stop::Decided);
    assert!(matches!(bad, MinkowskiOutcome::Undetermined { reason: Undetermined::Degenerate, .. }), "{bad:?}");
}
