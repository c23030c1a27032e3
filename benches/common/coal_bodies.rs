//! Our f64 geometry as coal sees it: poses as `Transform3s` and polytopes
//! as `Convex<Triangle>` (shared by the benches that time coal).

use coal_ffi::{Shape as CoalShape, Transform as CoalTf};
use narrowphase::prelude::*;

/// Our pose as coal's `Transform3s` (rotation matrix by rows, translation).
pub fn coal_tf(p: &Pose<f64>) -> CoalTf {
    let m = p.rotation.matrix();
    let t = p.translation.vector;
    CoalTf::new(
        [[m[(0, 0)], m[(0, 1)], m[(0, 2)]], [m[(1, 0)], m[(1, 1)], m[(1, 2)]], [m[(2, 0)], m[(2, 1)], m[(2, 2)]]],
        [t.x, t.y, t.z],
    )
}

/// coal's `Convex<Triangle>` of one of our hulls: its vertices and its face
/// loops fanned into triangles (`None` where coal is not installed).
pub fn coal_convex(p: &Polytope<f64>) -> Option<CoalShape> {
    let v: Vec<[f64; 3]> = p.data().vertices.iter().map(|x| [x.x, x.y, x.z]).collect();
    let tris = coal_ffi::fan((0..p.data().faces.len()).map(|f| p.face_loop(f)));
    CoalShape::convex(&v, &tris)
}
