//! The gripper: a tapered box (a frustum of a rectangular pyramid), given
//! as `static` arrays in the layout of `narrowphase::shape::PolytopeData`,
//! as firmware keeps a polytope in flash.
//!
//! Its frame: z along the tool axis, the wide face (0.09 × 0.07 m) at
//! z = −0.036 against the wrist, the narrow one (0.048 × 0.028 m) at
//! z = +0.036 towards the tip. Each side rises 0.072 over an inset of
//! 0.021, a 7-24-25 triangle, so the side normals are exact decimals
//! (±0.96, 0.28): the planes below are what the vertices span.

use nalgebra::{Point3, Vector3};
use narrowphase::shape::{Plane, PolytopeData};

/// Half-height along z.
pub const HALF_HEIGHT: f32 = 0.036;
/// Half-extents of the wide (wrist) face along x, y.
const BASE: [f32; 2] = [0.045, 0.035];
/// Half-extents of the narrow (tip) face: the base inset by 0.021.
const TIP: [f32; 2] = [0.024, 0.014];
const Z: f32 = HALF_HEIGHT;

/// Vertices 0–3 on the wide face, 4–7 above them on the narrow one,
/// counter-clockwise seen from +z starting at (+x, +y).
static VERTICES: [Point3<f32>; 8] = [
    Point3::new(BASE[0], BASE[1], -Z),
    Point3::new(-BASE[0], BASE[1], -Z),
    Point3::new(-BASE[0], -BASE[1], -Z),
    Point3::new(BASE[0], -BASE[1], -Z),
    Point3::new(TIP[0], TIP[1], Z),
    Point3::new(-TIP[0], TIP[1], Z),
    Point3::new(-TIP[0], -TIP[1], Z),
    Point3::new(TIP[0], -TIP[1], Z),
];

/// Every vertex has three neighbours: two on its face, one across.
static VERTEX_ADJACENCY_OFFSETS: [u16; 9] = [0, 3, 6, 9, 12, 15, 18, 21, 24];
static VERTEX_ADJACENCY: [u16; 24] = [
    1, 3, 4, //
    0, 2, 5, //
    1, 3, 6, //
    0, 2, 7, //
    0, 5, 7, //
    1, 4, 6, //
    2, 5, 7, //
    3, 4, 6, //
];

const fn plane(x: f32, y: f32, z: f32, offset: f32) -> Plane<f32> {
    Plane { normal: Vector3::new(x, y, z), offset }
}

/// Outward planes: wide face, narrow face, then the sides +x, −x, +y, −y.
/// A side's offset is its normal dotted with any of its vertices, e.g.
/// 0.96 · 0.045 − 0.28 · 0.036 = 0.03312 for +x.
static FACES: [Plane<f32>; 6] = [
    plane(0.0, 0.0, -1.0, Z),
    plane(0.0, 0.0, 1.0, Z),
    plane(0.96, 0.0, 0.28, 0.03312),
    plane(-0.96, 0.0, 0.28, 0.03312),
    plane(0.0, 0.96, 0.28, 0.02352),
    plane(0.0, -0.96, 0.28, 0.02352),
];

/// Face loops, counter-clockwise seen from outside.
static FACE_OFFSETS: [u16; 7] = [0, 4, 8, 12, 16, 20, 24];
static FACE_VERTICES: [u16; 24] = [
    0, 3, 2, 1, // −z
    4, 5, 6, 7, // +z
    3, 0, 4, 7, // +x
    1, 2, 6, 5, // −x
    0, 1, 5, 4, // +y
    2, 3, 7, 6, // −y
];
/// The face across loop edge `k → k+1`, aligned with `FACE_VERTICES`.
static FACE_ADJACENCY: [u16; 24] = [
    2, 5, 3, 4, //
    4, 3, 5, 2, //
    0, 4, 1, 5, //
    0, 5, 1, 4, //
    0, 3, 1, 2, //
    0, 2, 1, 3, //
];

/// The gripper's arrays (validated when the scene adds the body).
pub const GRIPPER: PolytopeData<'static, f32> = PolytopeData {
    vertices: &VERTICES,
    vertex_adjacency_offsets: &VERTEX_ADJACENCY_OFFSETS,
    vertex_adjacency: &VERTEX_ADJACENCY,
    faces: &FACES,
    face_offsets: &FACE_OFFSETS,
    face_vertices: &FACE_VERTICES,
    face_adjacency: &FACE_ADJACENCY,
};
