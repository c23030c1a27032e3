//! Our f64 geometry as parry3d (f32) sees it: vectors, poses with the local
//! frame fix (parry puts capsule, cylinder and cone axes on +y, we on +z),
//! and convex hulls built by parry from the same points.

use nalgebra::{Point3, Rotation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use parry3d::math::{Pose as PPose, Rot3 as PRot, Vector as PVec};
use parry3d::shape::Shape as PShape;

pub fn pvec(v: &Vector3<f64>) -> PVec {
    PVec::new(v.x as f32, v.y as f32, v.z as f32)
}

/// Our world pose (f64) with parry's local-frame fix → parry pose (f32).
pub fn parry_pose(p: &Pose<f64>, fix: &Rotation3<f64>) -> PPose {
    let q = UnitQuaternion::from_rotation_matrix(&(p.rotation * fix));
    let rot = PRot::from_xyzw(q.i as f32, q.j as f32, q.k as f32, q.w as f32).normalize();
    PPose::from_parts(pvec(&p.translation.vector), rot)
}

/// parry's own convex hull of `points`.
pub fn parry_hull(points: &[Point3<f64>]) -> Box<dyn PShape> {
    let pts: Vec<PVec> = points.iter().map(|p| pvec(&p.coords)).collect();
    Box::new(parry3d::shape::ConvexPolyhedron::from_convex_hull(&pts).expect("parry hull"))
}
