//! The closed forms the cell demo adds (`truth`: segment–box, point–,
//! segment– and box–polytope) against brute force: dense samples of the
//! bodies for distances, dense samples of directions for depths, and the
//! box formulas for a polytope that is a box.

use std::vec::Vec;

use nalgebra::{Matrix3, Point3, Vector3};
use narrowphase::shape::PolytopeData;

use crate::cell::GRIPPER;
use crate::rng::Rng;
use crate::truth::{aabb_depth, aabb_distance, hull_box, point_box, point_hull, segment_box, segment_hull, Hull};

type V3 = Vector3<f64>;

fn lerp(a: &V3, b: &V3, t: f64) -> V3 {
    a + (b - a) * t
}

/// min over `n` + 1 points of the segment of `f` (≥ the exact minimum).
fn sample_segment(a: &V3, b: &V3, n: usize, f: impl Fn(&V3) -> f64) -> f64 {
    (0..=n).map(|i| f(&lerp(a, b, i as f64 / n as f64))).fold(f64::INFINITY, f64::min)
}

/// Tolerance of a depth found by sampling directions: a grid direction is
/// within ~π/n of the minimising facet normal, and the support value grows
/// by at most the facet's radius (< 1 m here) times that angle.
const DIRECTION_TOLERANCE: f64 = 1e-2;

/// Unit directions on a latitude–longitude grid, `n` × 2n.
fn directions(n: usize) -> impl Iterator<Item = V3> {
    (0..=n).flat_map(move |i| {
        let theta = core::f64::consts::PI * i as f64 / n as f64;
        (0..2 * n).map(move |j| {
            let phi = core::f64::consts::PI * j as f64 / n as f64;
            V3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
        })
    })
}

fn random_rotation(rng: &mut Rng) -> Matrix3<f64> {
    *rng.rotation().matrix()
}

fn gripper_vertices(rot: &Matrix3<f64>, t: &V3) -> Vec<V3> {
    GRIPPER.vertices.iter().map(|p| rot * p.coords.cast::<f64>() + t).collect()
}

/// Points filling the gripper, each with whether it is on the boundary:
/// a grid over the frustum's own parametrisation (it is the trilinear image
/// of a cube, corners = vertices 0..8).
fn gripper_samples(rot: &Matrix3<f64>, t: &V3, n: usize) -> Vec<(V3, bool)> {
    let v = gripper_vertices(rot, t);
    let mut out = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            for k in 0..=n {
                let (u, w, z) = (i as f64 / n as f64, j as f64 / n as f64, k as f64 / n as f64);
                // Face loop 0,1,2,3 at z = 0 and 4,5,6,7 above it.
                let ring = |o: usize| {
                    let x0 = lerp(&v[o], &v[o + 1], u);
                    let x1 = lerp(&v[o + 3], &v[o + 2], u);
                    lerp(&x0, &x1, w)
                };
                let boundary = [i, j, k].iter().any(|&c| c == 0 || c == n);
                out.push((lerp(&ring(0), &ring(4), z), boundary));
            }
        }
    }
    out
}

#[test]
fn segment_box_matches_samples() {
    let mut rng = Rng::new(0xB0C5);
    let mut overlaps = 0;
    for i in 0..400 {
        // The table top, and a thick box the segments often cross.
        let h = if i % 2 == 0 { V3::new(0.3, 0.45, 0.02) } else { V3::new(0.3, 0.2, 0.25) };
        let (a, b) = (rng.cube(0.8), rng.cube(0.8));
        let exact = segment_box(&a, &b, &h);
        overlaps += usize::from(exact < 0.0);
        if exact >= 0.0 {
            let sampled = sample_segment(&a, &b, 20_000, |p| point_box(p, &h).max(0.0));
            let step = (b - a).norm() / 20_000.0;
            assert!(exact <= sampled + 1e-12 && sampled <= exact + step, "{a:?} {b:?}: {exact} vs {sampled}");
        } else {
            // The depth is the least support value of box ⊕ (−segment).
            let (m, u) = ((a + b) * 0.5, (b - a) * 0.5);
            let sampled = directions(400)
                .map(|n| h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs() + n.dot(&u).abs() - n.dot(&m).abs())
                .fold(f64::INFINITY, f64::min);
            assert!(
                -exact <= sampled + 1e-12 && sampled <= -exact + DIRECTION_TOLERANCE,
                "{a:?} {b:?}: {exact} vs -{sampled}"
            );
        }
    }
    assert!((60..340).contains(&overlaps), "both sides tried: {overlaps} overlaps");
}

#[test]
fn a_box_as_a_hull_matches_the_box_formulas() {
    let h = V3::new(0.2, 0.1, 0.05);
    let vertices: Vec<Point3<f32>> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit != 0 { 1.0 } else { -1.0 };
            Point3::new(s(1) * h.x as f32, s(2) * h.y as f32, s(4) * h.z as f32)
        })
        .collect();
    let face_vertices = [0u16, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6];
    let face_offsets = [0u16, 4, 8, 12, 16, 20, 24];
    // The closed forms read the vertices and the face loops only.
    let data = PolytopeData {
        vertices: &vertices,
        vertex_adjacency_offsets: &[],
        vertex_adjacency: &[],
        faces: &[],
        face_offsets: &face_offsets,
        face_vertices: &face_vertices,
        face_adjacency: &[],
    };
    let hb = h.map(|x| x as f32 as f64);
    let mut rng = Rng::new(0xC0BE);
    for _ in 0..400 {
        let p = rng.cube(0.5);
        let hull = Hull::new(&data, Matrix3::identity(), V3::zeros());
        assert!((point_hull(&p, &hull) - point_box(&p, &hb)).abs() < 1e-12, "{p:?}");
        let q = rng.cube(0.5);
        assert!((segment_hull(&p, &q, &hull) - segment_box(&p, &q, &hb)).abs() < 1e-9, "{p:?} {q:?}");
        // The same box moved by d against a box h2: axis-aligned closed forms.
        let (d, h2) = (rng.cube(0.5), V3::new(0.3, 0.45, 0.02));
        let moved = Hull::new(&data, Matrix3::identity(), d);
        let exact = hull_box(&moved, &h2);
        let expected =
            if aabb_depth(&d, &hb, &h2) > 0.0 { -aabb_depth(&d, &hb, &h2) } else { aabb_distance(&d, &hb, &h2) };
        assert!((exact - expected).abs() < 1e-9, "{d:?}: {exact} vs {expected}");
    }
}

#[test]
fn gripper_closed_forms_match_samples() {
    let mut rng = Rng::new(0x6217);
    let h = V3::new(0.3, 0.45, 0.02);
    let mut overlaps = [0; 3];
    for _ in 0..60 {
        let (rot, t) = (random_rotation(&mut rng), rng.cube(0.12));
        let hull = Hull::new(&GRIPPER, rot, t);
        let solid = gripper_samples(&rot, &t, 40);
        // A grid step of the frustum: points of the body are this close to a sample.
        let step = 0.1 / 40.0;
        let p = t + rng.cube(0.07);
        let exact = point_hull(&p, &hull);
        overlaps[0] += usize::from(exact <= 0.0);
        // Outside: the nearest point of the body; inside: of its boundary.
        let sampled =
            solid.iter().filter(|s| exact > 0.0 || s.1).map(|s| (s.0 - p).norm()).fold(f64::INFINITY, f64::min);
        assert!(exact.abs() <= sampled + 1e-12 && sampled <= exact.abs() + step, "{p:?}: {exact} vs {sampled}");
        let (a, b) = (t + rng.cube(0.12), t + rng.cube(0.12));
        let exact = segment_hull(&a, &b, &hull);
        overlaps[1] += usize::from(exact <= 0.0);
        if exact > 0.0 {
            let sampled = sample_segment(&a, &b, 400, |q| point_hull(q, &hull));
            assert!(exact <= sampled + 1e-12 && sampled <= exact + (b - a).norm() / 400.0, "{exact} vs {sampled}");
        } else {
            let v = gripper_vertices(&rot, &t);
            let sampled = directions(300)
                .map(|n| v.iter().map(|x| n.dot(x)).fold(f64::NEG_INFINITY, f64::max) - n.dot(&a).min(n.dot(&b)))
                .fold(f64::INFINITY, f64::min);
            assert!(-exact <= sampled + 1e-12 && sampled <= -exact + DIRECTION_TOLERANCE, "{exact} vs -{sampled}");
        }
        // Against the table top, the gripper near its top face or through it.
        let placed = Hull::new(&GRIPPER, rot, t + V3::new(0.25, 0.4, 0.02));
        let moved: Vec<V3> = solid.iter().map(|s| s.0 + V3::new(0.25, 0.4, 0.02)).collect();
        let exact = hull_box(&placed, &h);
        overlaps[2] += usize::from(exact <= 0.0);
        if exact > 0.0 {
            let sampled = moved.iter().map(|s| point_box(s, &h)).fold(f64::INFINITY, f64::min);
            assert!(exact <= sampled + 1e-12 && sampled <= exact + step, "{exact} vs {sampled}");
        } else {
            let v = gripper_vertices(&rot, &(t + V3::new(0.25, 0.4, 0.02)));
            let sampled = directions(300)
                .map(|n| {
                    v.iter().map(|x| n.dot(x)).fold(f64::NEG_INFINITY, f64::max)
                        + h.x * n.x.abs()
                        + h.y * n.y.abs()
                        + h.z * n.z.abs()
                })
                .fold(f64::INFINITY, f64::min);
            assert!(-exact <= sampled + 1e-12 && sampled <= -exact + DIRECTION_TOLERANCE, "{exact} vs -{sampled}");
        }
    }
    assert!(overlaps.iter().all(|n| (5..55).contains(n)), "both sides tried: {overlaps:?}");
}
