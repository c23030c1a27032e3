//! Closed forms in f64: the ground truth the cases compare with. Nothing
//! here calls the kernel; inputs are the f32 values the kernel saw, widened.

use nalgebra::{Matrix3, Vector3};
use narrowphase::prelude::Pose;

type V3 = Vector3<f64>;

fn len(v: &V3) -> f64 {
    libm::sqrt(v.dot(v))
}

/// Rotation and translation of an f32 pose, widened to f64.
pub fn pose64(p: &Pose<f32>) -> (Matrix3<f64>, V3) {
    (p.rotation.matrix().cast::<f64>(), p.translation.vector.cast::<f64>())
}

/// Signed distance from a point (box frame) to a box with half-extents `h`.
pub fn point_box(local: &V3, h: &V3) -> f64 {
    let q = V3::new(libm::fabs(local.x) - h.x, libm::fabs(local.y) - h.y, libm::fabs(local.z) - h.z);
    let outside = V3::new(q.x.max(0.0), q.y.max(0.0), q.z.max(0.0));
    len(&outside) + q.x.max(q.y).max(q.z).min(0.0)
}

/// Signed distance between a ball (`centre`, `r`) and a placed box.
pub fn sphere_box(centre: &V3, r: f64, box_pose: &Pose<f32>, h: &V3) -> f64 {
    let (rot, t) = pose64(box_pose);
    point_box(&(rot.transpose() * (centre - t)), h) - r
}

/// Distance between two disjoint axis-aligned boxes with centre offset `d`
/// (0 when they overlap).
pub fn aabb_distance(d: &V3, ha: &V3, hb: &V3) -> f64 {
    let gap = |i: usize| (libm::fabs(d[i]) - ha[i] - hb[i]).max(0.0);
    len(&V3::new(gap(0), gap(1), gap(2)))
}

/// Penetration depth (minimal translation) of two overlapping axis-aligned
/// boxes: their Minkowski difference is a box, so it is the smallest overlap
/// over the three axes; negative when they do not overlap.
pub fn aabb_depth(d: &V3, ha: &V3, hb: &V3) -> f64 {
    let overlap = |i: usize| ha[i] + hb[i] - libm::fabs(d[i]);
    overlap(0).min(overlap(1)).min(overlap(2))
}

/// Distance from `p` to the segment `[a, b]`.
pub fn point_segment(p: &V3, a: &V3, b: &V3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(&ab) / ab.dot(&ab)).clamp(0.0, 1.0);
    len(&(p - (a + ab * t)))
}

/// Exact distance between segments `[a0, a1]` and `[b0, b1]`: the four
/// endpoint-to-segment distances and, when it lies inside both, the critical
/// point of the two lines.
pub fn segment_segment(a0: &V3, a1: &V3, b0: &V3, b1: &V3) -> f64 {
    let mut best = point_segment(a0, b0, b1)
        .min(point_segment(a1, b0, b1))
        .min(point_segment(b0, a0, a1))
        .min(point_segment(b1, a0, a1));
    let (u, v, w) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, b, c, d, e) = (u.dot(&u), u.dot(&v), v.dot(&v), u.dot(&w), v.dot(&w));
    let den = a * c - b * b;
    if den > 1e-12 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(len(&(w + u * s - v * t)));
        }
    }
    best
}

/// End points of a capsule's segment (axis +z, half length `half`).
pub fn capsule_segment(p: &Pose<f32>, half: f64) -> (V3, V3) {
    let (rot, t) = pose64(p);
    let axis = rot * V3::new(0.0, 0.0, half);
    (t - axis, t + axis)
}
