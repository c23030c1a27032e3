//! GJK, EPA and MPR on convex polytopes against brute force:
//! - the exact distance of two disjoint polytopes by enumerating
//!   vertex–face and edge–edge feature pairs;
//! - the collision boolean by the separating-axis theorem over face normals
//!   and edge–edge cross products.
//!
//! Hulls come from quickhull; the brute force uses only their vertices, face
//! loops and edges, not the support maps.

use crate::common::*;
use nalgebra::{Point3, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;
use rand::Rng;

/// A placed polytope as triangles, edges and face normals in the world frame.
pub(crate) struct Mesh {
    verts: Vec<Point3<f64>>,
    pub(crate) tris: Vec<[Point3<f64>; 3]>,
    edges: Vec<(Point3<f64>, Point3<f64>)>,
    normals: Vec<Vector3<f64>>,
}

pub(crate) fn mesh(p: &Polytope<'_, f64>, pose: &Pose<f64>) -> Mesh {
    let d = p.data();
    let verts: Vec<_> = d.vertices.iter().map(|v| pose.transform_point(v)).collect();
    let mut tris = vec![];
    let mut edges = vec![];
    let mut normals = vec![];
    for f in 0..d.faces.len() {
        let lp: Vec<usize> = p.face_loop(f).iter().map(|&i| i as usize).collect();
        for k in 1..lp.len() - 1 {
            tris.push([verts[lp[0]], verts[lp[k]], verts[lp[k + 1]]]);
        }
        for k in 0..lp.len() {
            let (a, b) = (lp[k], lp[(k + 1) % lp.len()]);
            if a < b {
                edges.push((verts[a], verts[b]));
            }
        }
        normals.push(pose.rotation * d.faces[f].normal);
    }
    Mesh { verts, tris, edges, normals }
}

/// Distance from a point to a triangle.
pub(crate) fn point_triangle(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let inside = (0..3).all(|i| (t[(i + 1) % 3] - t[i]).cross(&(p - t[i])).dot(&n) >= 0.0);
    if inside {
        ((p - t[0]).dot(&n) / n.norm()).abs()
    } else {
        (0..3).map(|i| point_segment(p, &t[i], &t[(i + 1) % 3])).fold(f64::INFINITY, f64::min)
    }
}

fn brute_distance(a: &Mesh, b: &Mesh) -> f64 {
    let mut d = f64::INFINITY;
    for p in &a.verts {
        for t in &b.tris {
            d = d.min(point_triangle(p, t));
        }
    }
    for p in &b.verts {
        for t in &a.tris {
            d = d.min(point_triangle(p, t));
        }
    }
    for (a0, a1) in &a.edges {
        for (b0, b1) in &b.edges {
            d = d.min(segment_segment(a0, a1, b0, b1));
        }
    }
    d
}

/// Separating-axis theorem: the largest gap between the projections over the
/// candidate axes (face normals of both, cross products of edge directions).
/// Positive means separated (and is a lower bound of the distance).
fn sat_gap(a: &Mesh, b: &Mesh) -> f64 {
    let proj = |m: &Mesh, d: &Vector3<f64>| {
        m.verts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.coords.dot(d)), hi.max(p.coords.dot(d))))
    };
    let gap = |d: Vector3<f64>| {
        let n = d.norm();
        if n < 1e-9 {
            return f64::NEG_INFINITY;
        }
        let d = d / n;
        let (alo, ahi) = proj(a, &d);
        let (blo, bhi) = proj(b, &d);
        (blo - ahi).max(alo - bhi)
    };
    let mut best = f64::NEG_INFINITY;
    for n in a.normals.iter().chain(&b.normals) {
        best = best.max(gap(*n));
    }
    for (a0, a1) in &a.edges {
        for (b0, b1) in &b.edges {
            best = best.max(gap((a1 - a0).cross(&(b1 - b0))));
        }
    }
    best
}

fn random_cloud(rng: &mut impl Rng, n: usize) -> Vec<Point3<f64>> {
    (0..n).map(|_| Point3::from(unit_vector(rng).component_mul(&Vector3::new(0.9, 0.6, 0.3)))).collect()
}

#[test]
fn gjk_distance_matches_feature_enumeration_and_sat() {
    let mut rng = rng(31);
    let (mut separated, mut intersecting) = (0, 0);
    for i in 0..150 {
        let na = rng.random_range(8..40);
        let nb = rng.random_range(8..40);
        let ha = quickhull(&random_cloud(&mut rng, na)).unwrap();
        let hb = quickhull(&random_cloud(&mut rng, nb)).unwrap();
        let (pa, pb) = (ha.polytope().unwrap(), hb.polytope().unwrap());
        let (posa, posb) = (pose(&mut rng, 0.9), pose(&mut rng, 0.9));
        let (ma, mb) = (mesh(&pa, &posa), mesh(&pb, &posb));
        let a = Placed::new(pa, posa);
        let b = Placed::new(pb, posb);
        let sat = sat_gap(&ma, &mb);
        let band = 1e-9;
        match gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(s) => {
                let truth = brute_distance(&ma, &mb);
                assert!(sat > -band, "#{i}: SAT says overlapping ({sat}), GJK {}", s.distance);
                assert!((s.distance - truth).abs() < 1e-9, "#{i}: gjk {} brute {truth}", s.distance);
                assert!(s.bounds.lower <= truth + band && truth <= s.bounds.upper + band);
                separated += 1;
            }
            GjkOutcome::Penetrating(simplex) => {
                assert!(sat < band, "#{i}: SAT separates by {sat}");
                intersecting += 1;
                // EPA depth: no larger than the SAT minimum overlap (an upper bound
                // of the penetration depth: translating along that axis separates),
                // and positive.
                if let Proximity::Penetrating(p) = epa::penetration(&a, &b, &simplex, &Budget::default()) {
                    assert!(p.depth <= -sat + 1e-7, "#{i}: EPA {} vs SAT overlap {}", p.depth, -sat);
                    assert!(p.depth >= -1e-9);
                }
            }
            u => panic!("#{i}: {u:?}"),
        }
        // MPR agrees on the boolean outside the band.
        match mpr::intersect(&a, &b, &Budget::default()).is_penetrating() {
            Some(true) => assert!(sat < band, "#{i}: MPR intersecting, SAT {sat}"),
            Some(false) => assert!(sat > -band, "#{i}: MPR separated, SAT {sat}"),
            None => {}
        }
    }
    assert!(separated > 20 && intersecting > 20, "{separated} {intersecting}");
}

#[test]
fn hill_climbing_polytopes_warm_start_over_a_trajectory() {
    // 200-point hulls climb the vertex graph; a warm cache must give the same
    // distances as cold queries along a slow motion.
    let mut rng = rng(32);
    let ha = quickhull(&random_cloud(&mut rng, 200)).unwrap();
    let hb = quickhull(&random_cloud(&mut rng, 200)).unwrap();
    let (pa, pb) = (ha.polytope().unwrap(), hb.polytope().unwrap());
    assert!(pa.vertex_count() >= narrowphase::shape::HILL_CLIMB_MIN_VERTICES);
    let mut cache = GjkWarmStart::default();
    let (mut warm, mut cold) = (0, 0);
    for k in 0..200 {
        let t = k as f64 * 0.02;
        let posb =
            at(1.6 + 0.2 * t.sin(), 0.3 * t.cos(), 0.1) * nalgebra::Rotation3::from_euler_angles(0.3 * t, t, 0.0);
        let a = Placed::new(pa, Pose::identity());
        let b = Placed::new(pb, posb);
        let mut c0 = GjkWarmStart::default();
        let x = gjk::distance(&a, &b, &Budget::default(), &mut c0);
        let y = gjk::distance(&a, &b, &Budget::default(), &mut cache);
        cold += c0.iterations;
        warm += cache.iterations;
        match (x, y) {
            (GjkOutcome::Separated(x), GjkOutcome::Separated(y)) => {
                assert!((x.distance - y.distance).abs() < 1e-9, "{k}: cold {} warm {}", x.distance, y.distance);
                if k % 100 == 0 {
                    // Brute force is ~10⁶ feature pairs: only a few samples.
                    let truth = brute_distance(&mesh(&pa, &Pose::identity()), &mesh(&pb, &posb));
                    assert!((x.distance - truth).abs() < 1e-9, "{k}: {} {truth}", x.distance);
                }
            }
            (GjkOutcome::Penetrating(_), GjkOutcome::Penetrating(_)) => {}
            other => panic!("{k}: {other:?}"),
        }
    }
    assert!(warm <= cold, "warm {warm} cold {cold}");
}
