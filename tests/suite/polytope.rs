//! The polytope validator and the quickhull builder against ground truth
//! that does not come from the code under test:
//! - hand-written tetrahedron and cube data, accepted as written and rejected
//!   with the right [`PolytopeError`] once corrupted;
//! - random clouds, where every claim about the hull is checked by brute
//!   force over the input points (containment, vertices are input points,
//!   support values, loop orientation, planarity);
//! - hill climbing against the linear scan on large hulls;
//! - degenerate and hostile input to the builder (typed errors, no panic).

use nalgebra::{Point3, Vector3};
use narrowphase::error::PolytopeError;
use narrowphase::error::ShapeError;
use narrowphase::shape::{Plane, Polytope, PolytopeData, SupportMap, SupportWarmStart};

/// Owned copies of the arrays, to corrupt one at a time.
#[derive(Clone, Debug)]
struct Arrays {
    v: Vec<Point3<f64>>,
    adj_off: Vec<u16>,
    adj: Vec<u16>,
    faces: Vec<Plane<f64>>,
    face_off: Vec<u16>,
    loops: Vec<u16>,
    face_adj: Vec<u16>,
}

impl Arrays {
    fn data(&self) -> PolytopeData<'_, f64> {
        PolytopeData {
            vertices: &self.v,
            vertex_adjacency_offsets: &self.adj_off,
            vertex_adjacency: &self.adj,
            faces: &self.faces,
            face_offsets: &self.face_off,
            face_vertices: &self.loops,
            face_adjacency: &self.face_adj,
        }
    }

    fn check(&self) -> Result<(), PolytopeError> {
        match Polytope::new(self.data()) {
            Ok(_) => Ok(()),
            Err(ShapeError::Polytope(e)) => Err(e),
            Err(e) => panic!("unexpected error kind {e:?}"),
        }
    }

    /// Loop `f` as a slice range.
    fn face(&self, f: usize) -> core::ops::Range<usize> {
        self.face_off[f] as usize..self.face_off[f + 1] as usize
    }
}

/// The tetrahedron of the `Polytope::new` doc example, written by hand.
fn tetrahedron() -> Arrays {
    let k = 1.0 / 3.0_f64.sqrt();
    Arrays {
        v: vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(0.0, 0.0, 1.0),
        ],
        adj_off: vec![0, 3, 6, 9, 12],
        adj: vec![1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2],
        faces: vec![
            Plane { normal: -Vector3::z(), offset: 0.0 },
            Plane { normal: -Vector3::y(), offset: 0.0 },
            Plane { normal: -Vector3::x(), offset: 0.0 },
            Plane { normal: Vector3::new(k, k, k), offset: k },
        ],
        face_off: vec![0, 3, 6, 9, 12],
        loops: vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],
        face_adj: vec![2, 3, 1, 0, 3, 2, 1, 3, 0, 0, 2, 1],
    }
}

/// The cube `[-1, 1]³`, written by hand: vertex `i` has coordinate
/// `2·bit − 1` with bits x = 1, y = 2, z = 4. Faces −x, +x, −y, +y, −z, +z.
fn cube() -> Arrays {
    let v = (0..8)
        .map(|i| {
            Point3::new((i & 1) as f64 * 2.0 - 1.0, (i >> 1 & 1) as f64 * 2.0 - 1.0, (i >> 2 & 1) as f64 * 2.0 - 1.0)
        })
        .collect();
    let axis = |i: usize, s: f64| {
        let mut n = Vector3::zeros();
        n[i] = s;
        Plane { normal: n, offset: 1.0 }
    };
    Arrays {
        v,
        adj_off: vec![0, 3, 6, 9, 12, 15, 18, 21, 24],
        // Neighbours of i: i^1, i^2, i^4.
        adj: vec![1, 2, 4, 0, 3, 5, 3, 0, 6, 2, 1, 7, 5, 6, 0, 4, 7, 1, 7, 4, 2, 6, 5, 3],
        faces: vec![axis(0, -1.0), axis(0, 1.0), axis(1, -1.0), axis(1, 1.0), axis(2, -1.0), axis(2, 1.0)],
        face_off: vec![0, 4, 8, 12, 16, 20, 24],
        loops: vec![0, 4, 6, 2, 1, 3, 7, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 7, 6],
        // Across each loop edge, e.g. −x: 0→4 −y, 4→6 +z, 6→2 +y, 2→0 −z.
        face_adj: vec![2, 5, 3, 4, 4, 3, 5, 2, 4, 1, 5, 0, 0, 5, 1, 4, 0, 3, 1, 2, 2, 1, 3, 0],
    }
}

#[test]
fn hand_written_data_is_accepted() {
    assert_eq!(tetrahedron().check(), Ok(()));
    let c = cube();
    assert_eq!(c.check(), Ok(()));
    let p = Polytope::new(c.data()).unwrap();
    assert_eq!(p.vertex_count(), 8);
    assert_eq!(p.face_loop(5), &[4, 5, 7, 6]);
    assert_eq!(p.face_neighbours(0), &[2, 5, 3, 4]);
    for i in 0..8 {
        let d = Vector3::new(
            if i & 1 == 1 { 1.0 } else { -1.0 },
            if i & 2 == 2 { 0.5 } else { -0.5 },
            if i & 4 == 4 { 0.25 } else { -0.25 },
        );
        assert_eq!(p.support_index_scan(&d), i);
        for start in 0..8 {
            assert_eq!(p.support_index_climb(&d, start), i);
        }
        assert_eq!(p.support(&d), c.v[i]);
    }
    // Out-of-range start and hint: no panic, still the optimum.
    assert_eq!(p.support_index_climb(&Vector3::new(1.0, 1.0, 1.0), 1000), 7);
    assert_eq!(p.support_hinted(&Vector3::new(-1.0, -1.0, -1.0), &mut SupportWarmStart(u32::MAX)), c.v[0]);
}

#[test]
fn hand_written_cube_is_consistent() {
    // The hand-written adjacency agrees with a brute-force reading of the loops.
    let c = cube();
    for f in 0..6 {
        let r = c.face(f);
        let lp = &c.loops[r.clone()];
        for (i, k) in r.enumerate() {
            let (a, b) = (lp[i], lp[(i + 1) % lp.len()]);
            let g = c.face_adj[k] as usize;
            let lg = &c.loops[c.face(g)];
            let twin = (0..lg.len()).any(|j| lg[j] == b && lg[(j + 1) % lg.len()] == a);
            assert!(twin, "face {f} edge {a}->{b}: face {g} has no twin");
        }
        // Loop counter-clockwise seen from outside: (p1-p0)×(p2-p0) along the normal.
        let (p0, p1, p2) = (c.v[lp[0] as usize], c.v[lp[1] as usize], c.v[lp[2] as usize]);
        assert!((p1 - p0).cross(&(p2 - p0)).dot(&c.faces[f].normal) > 0.0);
    }
}

#[test]
fn bad_count() {
    let mut t = tetrahedron();
    t.v.truncate(3);
    assert_eq!(t.check(), Err(PolytopeError::BadCount));
    let mut t = tetrahedron();
    t.faces.truncate(3);
    assert_eq!(t.check(), Err(PolytopeError::BadCount));
    let e = Arrays {
        v: vec![],
        adj_off: vec![0],
        adj: vec![],
        faces: vec![],
        face_off: vec![0],
        loops: vec![],
        face_adj: vec![],
    };
    assert_eq!(e.check(), Err(PolytopeError::BadCount));
}

#[test]
fn bad_index() {
    // Offsets one short.
    let mut t = tetrahedron();
    t.adj_off.pop();
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    let mut t = tetrahedron();
    t.face_off.pop();
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    // Offsets not starting at 0, decreasing, or not ending at the length.
    let mut t = tetrahedron();
    t.face_off[0] = 1;
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    let mut t = tetrahedron();
    t.adj_off[2] = 2;
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    let mut t = tetrahedron();
    t.adj.push(0);
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    // An index out of range in each index array.
    let mut t = tetrahedron();
    t.loops[4] = 4;
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    let mut t = tetrahedron();
    t.adj[7] = 9;
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    let mut t = tetrahedron();
    t.face_adj[11] = 4;
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
    // Face adjacency not aligned with the loops.
    let mut t = tetrahedron();
    t.face_adj.pop();
    assert_eq!(t.check(), Err(PolytopeError::BadIndex));
}

#[test]
fn non_finite() {
    let mut t = tetrahedron();
    t.v[2].y = f64::NAN;
    assert_eq!(t.check(), Err(PolytopeError::NonFinite));
    let mut c = cube();
    c.v[7].z = f64::INFINITY;
    assert_eq!(c.check(), Err(PolytopeError::NonFinite));
    let mut c = cube();
    c.faces[3].offset = f64::NAN;
    assert_eq!(c.check(), Err(PolytopeError::NonFinite));
    let mut c = cube();
    c.faces[1].normal.x = f64::NEG_INFINITY;
    assert_eq!(c.check(), Err(PolytopeError::NonFinite));
}

#[test]
fn bad_normal() {
    let mut c = cube();
    c.faces[2] = Plane { normal: Vector3::new(0.0, -2.0, 0.0), offset: 2.0 };
    assert_eq!(c.check(), Err(PolytopeError::BadNormal));
    let mut c = cube();
    c.faces[4].normal = Vector3::zeros();
    assert_eq!(c.check(), Err(PolytopeError::BadNormal));
}

#[test]
fn duplicate_vertex() {
    let mut t = tetrahedron();
    t.v[3] = t.v[1];
    assert_eq!(t.check(), Err(PolytopeError::DuplicateVertex));
    // Closer than the relative tolerance (1e-4 of the size) also counts.
    let mut c = cube();
    c.v[6] = c.v[7] + Vector3::new(1e-6, 0.0, 0.0);
    assert_eq!(c.check(), Err(PolytopeError::DuplicateVertex));
    // All vertices at one point: no size at all.
    let mut t = tetrahedron();
    t.v = vec![Point3::new(1.0, 2.0, 3.0); 4];
    assert_eq!(t.check(), Err(PolytopeError::DuplicateVertex));
}

#[test]
fn bad_face() {
    // A face with two vertices (the next one gets four).
    let mut t = tetrahedron();
    t.face_off[1] = 2;
    assert_eq!(t.check(), Err(PolytopeError::BadFace));
    // A loop vertex off its plane: the +x plane moved out.
    let mut c = cube();
    c.faces[1].offset = 1.5;
    assert_eq!(c.check(), Err(PolytopeError::BadFace));
    // A vertex moved off the planes of its faces.
    let mut c = cube();
    c.v[7] = Point3::new(1.2, 1.0, 1.0);
    assert_eq!(c.check(), Err(PolytopeError::BadFace));
    // A vertex repeated in a loop.
    let mut c = cube();
    c.loops[2] = 0; // −x: 0 4 0 2
    assert_eq!(c.check(), Err(PolytopeError::BadFace));
}

/// Planes of the triangles of `a` computed from their loops (so that they are
/// exactly planar and the convexity check is the first to fail).
fn planes_from_triangles(a: &mut Arrays) {
    for f in 0..a.faces.len() {
        let lp = &a.loops[a.face(f)];
        let (p0, p1, p2) = (a.v[lp[0] as usize], a.v[lp[1] as usize], a.v[lp[2] as usize]);
        let n = (p1 - p0).cross(&(p2 - p0)).normalize();
        a.faces[f] = Plane { normal: n, offset: n.dot(&p0.coords) };
    }
}

/// A triangular bipyramid: equator 0 1 2 at z = 0, apexes 3 (top), 4 (bottom).
fn bipyramid(a0: Point3<f64>) -> Arrays {
    let s = 3.0_f64.sqrt() / 2.0;
    let v = vec![
        a0,
        Point3::new(-0.5, s, 0.0),
        Point3::new(-0.5, -s, 0.0),
        Point3::new(0.0, 0.0, 1.0),
        Point3::new(0.0, 0.0, -1.0),
    ];
    // Top: 0 1 3, 1 2 3, 2 0 3; bottom: 1 0 4, 2 1 4, 0 2 4.
    let loops = vec![0, 1, 3, 1, 2, 3, 2, 0, 3, 1, 0, 4, 2, 1, 4, 0, 2, 4];
    let face_adj = vec![3, 1, 2, 4, 2, 0, 5, 0, 1, 0, 5, 4, 1, 3, 5, 2, 4, 3];
    let mut a = Arrays {
        v,
        adj_off: vec![0, 4, 8, 12, 15, 18],
        adj: vec![1, 2, 3, 4, 0, 2, 3, 4, 0, 1, 3, 4, 0, 1, 2, 0, 1, 2],
        faces: vec![Plane { normal: Vector3::z(), offset: 0.0 }; 6],
        face_off: vec![0, 3, 6, 9, 12, 15, 18],
        loops,
        face_adj,
    };
    planes_from_triangles(&mut a);
    a
}

#[test]
fn not_convex() {
    // The convex bipyramid is accepted...
    assert_eq!(bipyramid(Point3::new(1.0, 0.0, 0.0)).check(), Ok(()));
    // ... and rejected once the equator vertex 0 is pushed inside (its two
    // edges to the apexes become reflex).
    assert_eq!(bipyramid(Point3::new(-0.2, 0.0, 0.0)).check(), Err(PolytopeError::NotConvex));
    // A flipped normal: the +x face seen as an inward plane.
    let mut c = cube();
    c.faces[1] = Plane { normal: -Vector3::x(), offset: -1.0 };
    assert_eq!(c.check(), Err(PolytopeError::NotConvex));
    // The lower apex pulled up inside: the lower faces turn over.
    let mut b = bipyramid(Point3::new(1.0, 0.0, 0.0));
    b.v[4] = Point3::new(0.0, 0.0, 0.5);
    planes_from_triangles(&mut b);
    assert_eq!(b.check(), Err(PolytopeError::NotConvex));
}

#[test]
fn not_closed() {
    // The +z face removed: the adjacency that named it now names −z, which
    // holds no twin edge.
    let mut c = cube();
    c.faces.pop();
    c.face_off.pop();
    c.loops.truncate(20);
    c.face_adj.truncate(20);
    for g in &mut c.face_adj {
        if *g == 5 {
            *g = 4;
        }
    }
    assert_eq!(c.check(), Err(PolytopeError::NotClosed));
    // One loop reversed: inconsistent orientation.
    let mut c = cube();
    c.loops[20..24].reverse();
    assert_eq!(c.check(), Err(PolytopeError::NotClosed));
}

#[test]
fn bad_vertex_adjacency() {
    // Asymmetric: 4 no longer lists 0 (while 0 lists 4).
    let mut c = cube();
    assert_eq!(&c.adj[12..15], &[5, 6, 0]);
    c.adj[14] = 7;
    assert_eq!(c.check(), Err(PolytopeError::BadVertexAdjacency));
    // A neighbour listed twice (and another missing).
    let mut t = tetrahedron();
    t.adj[2] = 1; // 0: 1 2 1
    assert_eq!(t.check(), Err(PolytopeError::BadVertexAdjacency));
    // A vertex listed as its own neighbour, on top of the real ones.
    let mut t = tetrahedron();
    t.adj.insert(3, 0);
    for o in &mut t.adj_off[1..] {
        *o += 1;
    }
    assert_eq!(t.check(), Err(PolytopeError::BadVertexAdjacency));
}

#[test]
fn bad_face_adjacency() {
    // A face named as its own neighbour.
    let mut c = cube();
    c.face_adj[0] = 0;
    assert_eq!(c.check(), Err(PolytopeError::BadFaceAdjacency));
    // +z names −x across 4→5 instead of −y: −y finds its twin in +z, but
    // +z does not name it back.
    let mut c = cube();
    assert_eq!(c.face_adj[20], 2);
    c.face_adj[20] = 0;
    assert_eq!(c.check(), Err(PolytopeError::BadFaceAdjacency));
}

/// Loops that run clockwise seen from outside (every loop reversed, the
/// adjacency realigned) are rejected: the layout requires counter-clockwise.
#[test]
fn clockwise_loops_are_rejected() {
    let c = cube();
    let mut r = c.clone();
    for f in 0..6 {
        let range = c.face(f);
        let lp = &c.loops[range.clone()];
        let ad = &c.face_adj[range.clone()];
        let n = lp.len();
        for i in 0..n {
            // Reversed loop: vertex lp[n-1-i]; its edge lp[n-1-i] → lp[n-2-i]
            // is the twin of the original edge lp[n-2-i] → lp[n-1-i].
            r.loops[range.start + i] = lp[n - 1 - i];
            r.face_adj[range.start + i] = ad[(2 * n - 2 - i) % n];
        }
    }
    assert_eq!(r.check(), Err(PolytopeError::BadFace), "clockwise loops accepted");
}

/// Face adjacency of `a`'s loops by brute force (the face holding each twin).
fn face_adjacency_of(a: &Arrays) -> Vec<u16> {
    let mut out = Vec::new();
    for f in 0..a.faces.len() {
        let lp = &a.loops[a.face(f)];
        for i in 0..lp.len() {
            let (x, y) = (lp[i], lp[(i + 1) % lp.len()]);
            let g = (0..a.faces.len())
                .find(|&g| {
                    let lg = &a.loops[a.face(g)];
                    (0..lg.len()).any(|j| lg[j] == y && lg[(j + 1) % lg.len()] == x)
                })
                .unwrap();
            out.push(g as u16);
        }
    }
    out
}

/// A vertex in the middle of an edge (on two faces only, two neighbours)
/// would stop hill climbing short of the maximum: it is rejected.
#[test]
fn edge_midpoint_vertex_is_rejected() {
    let mut c = cube();
    c.v.push(Point3::new(1.0, 0.0, 1.0)); // vertex 8, on the edge 5–7
                                          // +x: 1 3 7 8 5; +z: 4 5 8 7 6.
    c.loops = vec![0, 4, 6, 2, 1, 3, 7, 8, 5, 0, 1, 5, 4, 2, 6, 7, 3, 0, 2, 3, 1, 4, 5, 8, 7, 6];
    c.face_off = vec![0, 4, 9, 13, 17, 21, 26];
    c.face_adj = face_adjacency_of(&c);
    // 5: 4 1 8 (was 7); 7: 6 8 (was 5) 3; 8: 5 7.
    c.adj = vec![1, 2, 4, 0, 3, 5, 3, 0, 6, 2, 1, 7, 5, 6, 0, 4, 8, 1, 7, 4, 2, 6, 8, 3, 5, 7];
    c.adj_off = vec![0, 3, 6, 9, 12, 15, 18, 21, 24, 26];
    let accepted = c.check();
    let p = Polytope::new(c.data());
    let d = Vector3::new(-1.0, 0.0, 0.001);
    let best = p.map(|p| d.dot(&c.v[p.support_index_scan(&d)].coords));
    let climbed = p.map(|p| d.dot(&c.v[p.support_index_climb(&d, 8)].coords));
    // Were it accepted, the climb from 8 would end at 8 (value −0.999) while
    // the maximum is 1.001.
    assert_eq!(accepted, Err(PolytopeError::NotACorner), "climbed {climbed:?}, best {best:?}");
}

mod hull {
    use super::*;
    use narrowphase::error::HullError;
    use narrowphase::hull::{quickhull, OwnedPolytope};
    use narrowphase::math::Real;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    use crate::common::unit_vector as unit;

    fn cast<R: Real>(p: &[Point3<f64>]) -> Vec<Point3<R>> {
        p.iter().map(|p| p.map(R::lit)).collect()
    }

    fn to64<R: Real>(p: &Point3<R>) -> Point3<f64> {
        p.map(|c| c.to_f64())
    }

    /// Points on the ellipsoid with semi-axes 3, 2, 1.
    fn ellipsoid(rng: &mut ChaCha8Rng, n: usize) -> Vec<Point3<f64>> {
        (0..n).map(|_| Point3::from(unit(rng).component_mul(&Vector3::new(3.0, 2.0, 1.0)))).collect()
    }

    /// Uniform in the cube `[-1, 1]³` shifted by `offset`.
    fn in_cube(rng: &mut ChaCha8Rng, n: usize, offset: Vector3<f64>) -> Vec<Point3<f64>> {
        (0..n)
            .map(|_| {
                Point3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
                    + offset
            })
            .collect()
    }

    /// A box of half-extents `h`: its corners, points on its edges and faces
    /// (many coplanar and collinear points), and interior points.
    fn box_cloud(rng: &mut ChaCha8Rng, n: usize, h: Vector3<f64>) -> Vec<Point3<f64>> {
        let mut pts = Vec::new();
        for i in 0..8 {
            let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
            pts.push(Point3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z));
        }
        while pts.len() < n {
            let mut p: Vector3<f64> =
                Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            // Snap 0, 1 or 2 coordinates to a side (interior, face, edge),
            // some of them on a coarse grid to make exact repeats too.
            let snap = rng.random_range(0..3);
            for _ in 0..snap {
                let axis = rng.random_range(0..3);
                p[axis] = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            }
            if rng.random_bool(0.3) {
                p = p.map(|c| (c * 4.0).round() / 4.0);
            }
            pts.push(Point3::from(p.component_mul(&h)));
        }
        // Shuffle so that the corners are not first.
        for i in (1..pts.len()).rev() {
            let j = rng.random_range(0..=i);
            pts.swap(i, j);
        }
        pts
    }

    /// Rotates `pts` by a random rotation and shifts them.
    fn rotate(rng: &mut ChaCha8Rng, pts: &[Point3<f64>], shift: Vector3<f64>) -> Vec<Point3<f64>> {
        let axis = nalgebra::Unit::new_normalize(unit(rng));
        let rot = nalgebra::Rotation3::from_axis_angle(&axis, rng.random_range(0.0..6.0));
        pts.iter().map(|p| rot * p + shift).collect()
    }

    /// Every claim of the builder about `hull`, checked by brute force over
    /// the input `pts`. Returns the polytope's (vertex, face) counts.
    fn check_hull<R: Real>(pts: &[Point3<R>], rng: &mut ChaCha8Rng, label: &str) -> (usize, usize) {
        let hull: OwnedPolytope<R> = quickhull(pts).unwrap_or_else(|e| panic!("{label}: {e:?}"));
        let poly = hull.polytope().unwrap_or_else(|e| panic!("{label}: validator: {e:?}"));
        let data = hull.data();
        let tol = hull.tolerance().to_f64();
        let pts64: Vec<Point3<f64>> = pts.iter().map(to64).collect();
        let (lo, hi) = pts64.iter().fold((pts64[0], pts64[0]), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
        let diag = (hi - lo).norm();
        let coord = hi.coords.abs().max().max(lo.coords.abs().max());
        assert!(tol > 0.0 && tol < 3e-4 * diag + 400.0 * R::EPSILON.to_f64() * coord, "{label}: tolerance {tol}");

        // Every hull vertex is an input point (found by search, and the one
        // named by source_indices), and no two are equal.
        assert_eq!(hull.source_indices().len(), data.vertices.len());
        for (i, v) in data.vertices.iter().enumerate() {
            assert!(pts.contains(v), "{label}: vertex {i} is not an input point");
            assert_eq!(pts[hull.source_indices()[i]], *v, "{label}: source index of {i}");
            assert!(!data.vertices[..i].contains(v), "{label}: vertex {i} repeated");
        }
        // Every input point inside every face plane within the tolerance.
        for (f, plane) in data.faces.iter().enumerate() {
            let n = plane.normal.map(|c| c.to_f64());
            let d = plane.offset.to_f64();
            assert!((n.norm() - 1.0).abs() < 1e-6, "{label}: normal {f}");
            for (i, p) in pts64.iter().enumerate() {
                let h = n.dot(&p.coords) - d;
                assert!(h <= tol, "{label}: point {i} is {h} above face {f} (tolerance {tol})");
            }
        }
        // Faces: planar loops, counter-clockwise seen from outside (Newell
        // normal along the plane normal), at least 3 corners; each vertex on
        // at least 3 faces (a corner, not the middle of an edge or a face).
        let mut faces_at = vec![0usize; data.vertices.len()];
        for f in 0..data.faces.len() {
            let lp = poly.face_loop(f);
            assert!(lp.len() >= 3, "{label}: face {f}");
            let mut newell = Vector3::zeros();
            for (k, &a) in lp.iter().enumerate() {
                let b = lp[(k + 1) % lp.len()];
                let (pa, pb) = (to64(&data.vertices[a as usize]), to64(&data.vertices[b as usize]));
                newell += pa.coords.cross(&pb.coords);
                faces_at[a as usize] += 1;
            }
            let n = data.faces[f].normal.map(|c| c.to_f64());
            assert!(newell.dot(&n) > 0.0, "{label}: face {f} is clockwise");
            for &a in lp {
                let h = n.dot(&to64(&data.vertices[a as usize]).coords) - data.faces[f].offset.to_f64();
                assert!(h.abs() <= tol, "{label}: vertex {a} {h} off face {f}");
            }
        }
        assert!(faces_at.iter().all(|&k| k >= 3), "{label}: a vertex on fewer than 3 faces");
        // Vertex neighbours in counter-clockwise order seen from outside:
        // between consecutive neighbours q then p lies a face whose loop runs
        // p → v → q, and the turn from q to p is positive about its normal.
        let mut corner_of = std::collections::HashMap::new();
        for f in 0..data.faces.len() {
            let lp = poly.face_loop(f);
            for i in 0..lp.len() {
                corner_of.insert((lp[i], lp[(i + 1) % lp.len()], lp[(i + 2) % lp.len()]), f);
            }
        }
        for v in 0..data.vertices.len() {
            let nb = poly.neighbours(v);
            let pv = to64(&data.vertices[v]);
            for k in 0..nb.len() {
                let (q, p) = (nb[k], nb[(k + 1) % nb.len()]);
                let f = *corner_of
                    .get(&(p, v as u16, q))
                    .unwrap_or_else(|| panic!("{label}: no face between neighbours {q} and {p} of {v}"));
                let (a, b) = (to64(&data.vertices[q as usize]) - pv, to64(&data.vertices[p as usize]) - pv);
                // Convex within the tolerance: v not inside the chord q–p
                // by more than `tol`.
                let turn = a.cross(&b).dot(&data.faces[f].normal.map(|c| c.to_f64()));
                assert!(turn > -tol * (b - a).norm(), "{label}: turn at {v}: {turn}, face {f}");
            }
        }
        // Support in random directions: the brute-force maximum over the
        // input points, within the tolerance.
        let mut hint = SupportWarmStart::default();
        for _ in 0..40 {
            let d = unit(rng);
            let dr = d.map(R::lit);
            let truth = pts64.iter().map(|p| d.dot(&p.coords)).fold(f64::NEG_INFINITY, f64::max);
            let got = d.dot(&to64(&poly.support_hinted(&dr, &mut hint)).coords);
            let scan = d.dot(&to64(&data.vertices[poly.support_index_scan(&dr)]).coords);
            assert!(
                got <= truth + 1e-12 * diag && got >= truth - tol,
                "{label}: support {got} vs {truth} (scan {scan}, tolerance {tol}, {} vertices)",
                data.vertices.len()
            );
            assert!(scan >= truth - tol, "{label}: scan {scan} vs {truth}");
            // Hill climbing (from 32 vertices on) finds the scan's maximum,
            // up to the builder's planarity tolerance and rounding.
            let slack = 2e-6 * diag + 16.0 * R::EPSILON.to_f64() * coord;
            assert!(got >= scan - slack, "{label}: climb {got} vs scan {scan}");
        }
        (data.vertices.len(), data.faces.len())
    }

    /// Cloud sizes. The validator is `O(V²)`, about a second for 1000 hull
    /// vertices in a debug build: the ellipsoid clouds (all points on the
    /// hull) stop at 400, the cube clouds (a few percent on the hull) go to
    /// 1000; `hill_climbing_matches_scan` has a 1000-vertex hull.
    const SIZES: [usize; 7] = [4, 5, 8, 20, 60, 400, 1000];

    fn random_clouds<R: Real>(seed: u64) {
        let mut rng = rng(seed);
        for &n in &SIZES {
            if n <= 400 {
                let label = format!("ellipsoid {n}");
                let (nv, _) = check_hull::<R>(&cast(&ellipsoid(&mut rng, n)), &mut rng, &label);
                assert!(nv >= 4 && nv <= n, "{label}: {nv} vertices");
            }
            let off =
                Vector3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
            check_hull::<R>(&cast(&in_cube(&mut rng, n, off)), &mut rng, &format!("cube {n}"));
        }
    }

    #[test]
    fn random_clouds_f64() {
        random_clouds::<f64>(1);
    }

    #[test]
    fn random_clouds_f32() {
        random_clouds::<f32>(2);
    }

    /// Boxes with many coplanar and collinear points: exactly 8 corners and
    /// 6 quads, axis-aligned or rotated, f32 or f64, near or far from the
    /// origin.
    fn boxes<R: Real>(seed: u64) {
        let mut rng = rng(seed);
        for (k, &n) in [8usize, 9, 30, 100, 400].iter().enumerate() {
            let h = Vector3::new(rng.random_range(0.1..2.0), rng.random_range(0.1..2.0), rng.random_range(0.1..2.0));
            let cloud = box_cloud(&mut rng, n, h);
            let label = format!("box {n}");
            assert_eq!(check_hull::<R>(&cast(&cloud), &mut rng, &label), (8, 6), "{label}");
            let hull = quickhull(&cast::<R>(&cloud)).unwrap();
            assert!(hull.data().face_offsets.windows(2).all(|w| w[1] - w[0] == 4), "{label}: not quads");
            let shift = if k % 2 == 0 { Vector3::zeros() } else { Vector3::new(30.0, -20.0, 10.0) };
            let turned = rotate(&mut rng, &cloud, shift);
            let label = format!("rotated box {n}");
            assert_eq!(check_hull::<R>(&cast(&turned), &mut rng, &label), (8, 6), "{label}");
        }
    }

    #[test]
    fn boxes_f64() {
        boxes::<f64>(3);
    }

    #[test]
    fn boxes_f32() {
        boxes::<f32>(4);
    }

    /// Other clouds with structure: a regular grid (every point coplanar with
    /// many others), a cylinder (cocircular rims, coplanar caps), a cloud
    /// with many exact duplicates, a thin slab, a far-away small body.
    #[test]
    fn structured_clouds() {
        let mut rng = rng(5);
        let grid: Vec<Point3<f64>> =
            (0..125).map(|i| Point3::new((i % 5) as f64, (i / 5 % 5) as f64, (i / 25) as f64 * 0.5)).collect();
        assert_eq!(check_hull::<f64>(&grid, &mut rng, "grid"), (8, 6));
        assert_eq!(check_hull::<f32>(&cast(&grid), &mut rng, "grid f32"), (8, 6));

        let m = 24;
        let mut cyl = Vec::new();
        for i in 0..m {
            let a = i as f64 * std::f64::consts::TAU / m as f64;
            for z in [-1.0, 0.0, 1.0] {
                cyl.push(Point3::new(a.cos(), a.sin(), z));
            }
        }
        let (nv, nf) = check_hull::<f64>(&cyl, &mut rng, "cylinder");
        assert_eq!((nv, nf), (2 * m, m + 2), "cylinder: side quads and two caps");
        check_hull::<f32>(&cast(&cyl), &mut rng, "cylinder f32");

        let base = ellipsoid(&mut rng, 40);
        let dup: Vec<Point3<f64>> = (0..400).map(|i| base[i % 40]).collect();
        let (nv, _) = check_hull::<f64>(&dup, &mut rng, "duplicates");
        assert!(nv <= 40);

        let slab: Vec<Point3<f64>> =
            in_cube(&mut rng, 200, Vector3::zeros()).iter().map(|p| Point3::new(p.x, p.y, p.z * 0.01)).collect();
        check_hull::<f64>(&slab, &mut rng, "slab");
        check_hull::<f32>(&cast(&slab), &mut rng, "slab f32");

        let far: Vec<Point3<f64>> =
            ellipsoid(&mut rng, 100).iter().map(|p| p * 0.01 + Vector3::new(1000.0, -500.0, 20.0)).collect();
        check_hull::<f64>(&far, &mut rng, "far f64");
        check_hull::<f32>(&cast(&far), &mut rng, "far f32");
    }

    /// Hulls whose vertices are all on a sphere (so that the hull has about
    /// as many vertices as points), for the climbing tests.
    fn sphere_hull(rng: &mut ChaCha8Rng, n: usize) -> OwnedPolytope<f32> {
        let pts: Vec<Point3<f32>> = (0..n).map(|_| Point3::from(unit(rng)).map(|c| c as f32)).collect();
        quickhull(&pts).unwrap()
    }

    #[test]
    fn hill_climbing_matches_scan() {
        let mut rng = rng(6);
        for n in [50usize, 200, 1000] {
            let hull = sphere_hull(&mut rng, n);
            let poly = hull.polytope().unwrap();
            let nv = poly.vertex_count();
            assert!(nv * 10 >= n * 9, "{n} points, {nv} vertices");
            let verts = hull.data().vertices;
            let value = |d: &Vector3<f32>, i: usize| d.map(|c| c as f64).dot(&verts[i].coords.map(|c| c as f64));
            let dirs = 3000 * 50 / n.max(50) + 500;
            // Cold (start 0), warm after a random jump, and warm along a
            // slowly turning direction.
            let mut warm = 0usize;
            let mut turning = 0usize;
            let mut d_turn = unit(&mut rng);
            for i in 0..dirs {
                let d = unit(&mut rng).map(|c| c as f32);
                let best = value(&d, poly.support_index_scan(&d));
                let cold = poly.support_index_climb(&d, 0);
                assert!(value(&d, cold) >= best - 1e-6, "n={n} dir {i}: cold {} < {best}", value(&d, cold));
                // No hint: from the stored vertex of the direction's sector.
                let seeded = poly.support_index_climb(&d, usize::MAX);
                assert!(value(&d, seeded) >= best - 1e-6, "n={n} dir {i}: seeded {}", value(&d, seeded));
                warm = poly.support_index_climb(&d, warm);
                assert!(value(&d, warm) >= best - 1e-6, "n={n} dir {i}: warm");
                d_turn = (d_turn + unit(&mut rng) * 0.05).normalize();
                let dt = d_turn.map(|c| c as f32);
                turning = poly.support_index_climb(&dt, turning);
                let best = value(&dt, poly.support_index_scan(&dt));
                assert!(value(&dt, turning) >= best - 1e-6, "n={n} dir {i}: turning");
            }
            // Through the trait, with a hint the caller keeps.
            let mut hint = SupportWarmStart::default();
            for _ in 0..200 {
                let d = unit(&mut rng).map(|c| c as f32);
                let p = poly.support_hinted(&d, &mut hint);
                assert_eq!(p, verts[hint.0 as usize]);
                assert!(d.dot(&p.coords) >= d.dot(&verts[poly.support_index_scan(&d)].coords) - 1e-6);
            }
        }
    }

    /// Plateaus: directions along a face or edge normal of a box with many
    /// coplanar input points; climbing stops on an optimal vertex.
    #[test]
    fn hill_climbing_on_plateaus() {
        let mut rng = rng(7);
        let cloud = box_cloud(&mut rng, 300, Vector3::new(1.0, 2.0, 0.5));
        let hull = quickhull(&cloud).unwrap();
        let poly = hull.polytope().unwrap();
        let verts = hull.data().vertices;
        for d in [Vector3::x(), -Vector3::y(), Vector3::new(1.0, 1.0, 0.0), Vector3::new(0.0, -1.0, 1.0)] {
            let best = d.dot(&verts[poly.support_index_scan(&d)].coords);
            for start in (0..verts.len()).chain([usize::MAX]) {
                let i = poly.support_index_climb(&d, start);
                assert_eq!(d.dot(&verts[i].coords), best);
            }
        }
    }

    /// A cold hint starts at a vertex stored per direction sector: on the
    /// sectors' boundaries (a coordinate exactly half the largest), on the
    /// axes and diagonals, and for tiny and huge directions the climb still
    /// ends on the scanned optimum; zero, NaN and infinite directions give
    /// some vertex, no panic.
    #[test]
    fn cold_climbs_start_from_the_sector_seed() {
        let mut rng = rng(8);
        let hull = sphere_hull(&mut rng, 400);
        let poly = hull.polytope().unwrap();
        let verts = hull.data().vertices;
        let steps = [-1.0_f32, -0.5, -0.499, 0.0, 0.25, 0.5, 0.501, 1.0];
        let mut checked = 0;
        for &x in &steps {
            for &y in &steps {
                for &z in &steps {
                    let d = Vector3::new(x, y, z);
                    if d == Vector3::zeros() {
                        continue;
                    }
                    for scale in [1.0_f32, 1e-30, 1e30] {
                        let ds = d * scale;
                        let best = ds.dot(&verts[poly.support_index_scan(&ds)].coords);
                        let i = poly.support_index_climb(&ds, usize::MAX);
                        assert!(ds.dot(&verts[i].coords) >= best - best.abs() * 1e-6, "{ds:?}");
                        let mut hint = SupportWarmStart::COLD;
                        assert_eq!(poly.support_hinted(&ds, &mut hint), verts[i]);
                        assert_eq!(hint.0 as usize, i);
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 3 * (8 * 8 * 8 - 1));
        for d in [Vector3::zeros(), Vector3::new(f32::NAN, 1.0, 0.0), Vector3::new(f32::INFINITY, 0.0, 1.0)] {
            assert!(poly.support_index_climb(&d, usize::MAX) < verts.len(), "{d:?}");
        }
        assert_eq!(SupportWarmStart::default(), SupportWarmStart::COLD);
        // Which bodies use the hint (GJK resets it after a far turn).
        use narrowphase::shape::{Cuboid, Placed, SupportMap};
        assert!(poly.climbs() && Placed::new(poly, narrowphase::math::Pose::identity()).climbs());
        assert!(!Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap().climbs());
    }

    /// Clouds whose hull has vertices that are corners only within the
    /// rounding of their coordinates, which `Polytope::new` rejects (a stop
    /// of hill climbing there is no certified maximum): dense points on a
    /// cone's mantle cast to f32 (flat along the rulings; the first build
    /// had 52 such vertices, then 8, 3, …) and a rotated box with 3000
    /// points on its faces and edges (edge points a rounding off the edge
    /// line). `quickhull` drops them and builds again from the other
    /// vertices; the result passes `check_hull` (every input point inside
    /// within the tolerance, climbing = scanning from every vertex).
    #[test]
    fn flat_vertices_are_dropped_and_the_hull_rebuilt() {
        let mut rng = rng(287);
        let cone: Vec<Point3<f64>> = (0..3000)
            .map(|_| {
                let a: f64 = rng.random_range(0.0..6.3);
                let t: f64 = if rng.random_bool(0.3) { 1.0 } else { rng.random_range(0.0..1.0) };
                Point3::new(t * a.cos(), t * a.sin(), 1.0 - t)
            })
            .collect();
        check_hull::<f32>(&cast::<f32>(&cone), &mut rng, "dense cone, f32");
        let b = box_cloud(&mut rng, 3000, Vector3::new(1.0, 0.3, 2.0));
        let b = rotate(&mut rng, &b, Vector3::new(3.0, 1.0, -2.0));
        check_hull::<f64>(&b, &mut rng, "rotated box with edge points, f64");
        check_hull::<f32>(&cast::<f32>(&b), &mut rng, "rotated box with edge points, f32");
    }

    /// Many clouds of many kinds (slow: run with
    /// `cargo test --release --features std --test suite -- --ignored polytope::`):
    /// never a numerical failure, and every hull passes `check_hull`.
    #[test]
    #[ignore = "slow; run in release"]
    fn stress_many_clouds() {
        let mut rng = rng(1234);
        let lattice = |rng: &mut ChaCha8Rng, r: i32, rz: i32| {
            Point3::new(
                rng.random_range(-r..=r) as f64,
                rng.random_range(-r..=r) as f64,
                rng.random_range(-rz..=rz) as f64,
            )
        };
        for case in 0..3000 {
            let n = [4usize, 6, 10, 30, 100, 300, 1000, 3000][case % 8];
            let kind = (case / 8) % 12;
            let mut cloud: Vec<Point3<f64>> = match kind {
                0 => ellipsoid(&mut rng, n),
                1 => box_cloud(&mut rng, n.max(8), Vector3::new(1.0, 0.3, 2.0)),
                2 => {
                    let c = box_cloud(&mut rng, n.max(8), Vector3::new(1.0, 0.3, 2.0));
                    rotate(&mut rng, &c, Vector3::new(3.0, 1.0, -2.0))
                }
                // Lattice points in a ball; a rotated lattice slab.
                3 => (0..n).map(|_| lattice(&mut rng, 5, 5)).filter(|p| p.coords.norm() <= 5.0).collect(),
                4 => {
                    let g: Vec<_> = (0..n).map(|_| lattice(&mut rng, 3, 1)).collect();
                    rotate(&mut rng, &g, Vector3::new(100.0, 0.0, 0.0))
                }
                // A cylinder: dense cocircular rims and side points.
                5 => (0..n)
                    .map(|_| {
                        let a: f64 = rng.random_range(0.0..6.3);
                        let z = [-1.0, 1.0, rng.random_range(-1.0..1.0)][rng.random_range(0..3)];
                        Point3::new(a.cos(), a.sin(), z)
                    })
                    .collect(),
                // Thin slabs, 1e-2 to 1e-4 of the width.
                6 => (0..n)
                    .map(|_| {
                        let c = unit(&mut rng) * rng.random_range(0.0..1.0);
                        Point3::new(c.x, c.y, c.z * 10f64.powf(-rng.random_range(2.0..3.9)))
                    })
                    .collect(),
                // Tight clusters on a curve.
                7 => (0..n)
                    .map(|_| {
                        let cl = (rng.random_range(0..6) as f64) * 0.5;
                        Point3::new(cl, cl * cl, cl.sin()) + unit(&mut rng) * 1e-5 * rng.random_range(0.0..3.0)
                    })
                    .collect(),
                // Any scale, far from the origin.
                8 => {
                    let k = 10f64.powf(rng.random_range(-6.0..6.0));
                    let off = unit(&mut rng) * k * rng.random_range(0.0..300.0);
                    ellipsoid(&mut rng, n).iter().map(|p| p * k + off).collect()
                }
                // Near-duplicate pairs around the resolution.
                9 => {
                    let e = ellipsoid(&mut rng, n / 2 + 2);
                    e.iter().flat_map(|p| [*p, p + unit(&mut rng) * 3.6e-4 * rng.random_range(0.3..3.0)]).collect()
                }
                10 => {
                    let g: Vec<_> = (0..n).map(|_| lattice(&mut rng, 3, 3)).collect();
                    rotate(&mut rng, &g, Vector3::zeros())
                }
                // A cone: apex, base circle, points on the mantle.
                _ => (0..n)
                    .map(|_| {
                        let a: f64 = rng.random_range(0.0..6.3);
                        let t: f64 = if rng.random_bool(0.3) { 1.0 } else { rng.random_range(0.0..1.0) };
                        Point3::new(t * a.cos(), t * a.sin(), 1.0 - t)
                    })
                    .collect(),
            };
            if cloud.len() < 4 {
                cloud.extend(ellipsoid(&mut rng, 4));
            }
            let label = format!("case {case} kind {kind} n {n}");
            match quickhull(&cloud) {
                Ok(_) if n <= 300 || case % 17 == 0 => _ = check_hull::<f64>(&cloud, &mut rng, &label),
                Ok(_) | Err(HullError::Degenerate) => {}
                Err(e) => panic!("{label}: {e:?}"),
            }
            let c32 = cast::<f32>(&cloud);
            match quickhull(&c32) {
                Ok(_) if n <= 300 || case % 19 == 0 => _ = check_hull::<f32>(&c32, &mut rng, &label),
                Ok(_) | Err(HullError::Degenerate) => {}
                Err(e) => panic!("{label} f32: {e:?}"),
            }
        }
    }

    #[test]
    fn degenerate_input() {
        let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
        assert_eq!(quickhull::<f64>(&[]), Err(HullError::TooFewPoints));
        assert_eq!(quickhull(&[p(0.0, 0.0, 0.0)]), Err(HullError::TooFewPoints));
        assert_eq!(quickhull(&[p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)]), Err(HullError::TooFewPoints));
        assert_eq!(quickhull(&[p(f64::NAN, 0.0, 0.0); 3]), Err(HullError::TooFewPoints));
        // All identical (at the origin and elsewhere), f32 and f64.
        assert_eq!(quickhull(&[p(0.0, 0.0, 0.0); 10]), Err(HullError::Degenerate));
        assert_eq!(quickhull(&[p(1.5, -2.0, 3.0); 10]), Err(HullError::Degenerate));
        assert_eq!(quickhull(&[Point3::new(1.5_f32, -2.0, 3.0); 4]), Err(HullError::Degenerate));
        // Collinear.
        let line: Vec<_> = (0..50).map(|i| p(1.0, 2.0, 3.0) + Vector3::new(0.3, -0.2, 0.7) * i as f64).collect();
        assert_eq!(quickhull(&line), Err(HullError::Degenerate));
        assert_eq!(quickhull(&cast::<f32>(&line)), Err(HullError::Degenerate));
        // Coplanar: random points in a tilted plane, and a flat grid.
        let mut rng = rng(8);
        let (u, v) = (Vector3::new(1.0, 0.2, -0.3), Vector3::new(-0.1, 1.0, 0.4));
        let plane: Vec<_> = (0..300)
            .map(|_| p(5.0, 1.0, -2.0) + u * rng.random_range(-1.0..1.0) + v * rng.random_range(-1.0..1.0))
            .collect();
        assert_eq!(quickhull(&plane), Err(HullError::Degenerate));
        assert_eq!(quickhull(&cast::<f32>(&plane)), Err(HullError::Degenerate));
        let flat: Vec<_> = (0..16).map(|i| p((i % 4) as f64, (i / 4) as f64, 7.0)).collect();
        assert_eq!(quickhull(&flat), Err(HullError::Degenerate));
        // Square and its centre: 4+ points, coplanar.
        assert_eq!(
            quickhull(&[p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(1.0, 1.0, 0.0), p(0.0, 1.0, 0.0), p(0.5, 0.5, 0.0)]),
            Err(HullError::Degenerate)
        );
        // Non-finite anywhere.
        let mut cloud = ellipsoid(&mut rng, 20);
        cloud[7].y = f64::NAN;
        assert_eq!(quickhull(&cloud), Err(HullError::NonFinite));
        cloud[7].y = f64::INFINITY;
        assert_eq!(quickhull(&cloud), Err(HullError::NonFinite));
        let mut c32 = cast::<f32>(&ellipsoid(&mut rng, 20));
        c32[19].z = f32::NEG_INFINITY;
        assert_eq!(quickhull(&c32), Err(HullError::NonFinite));
        // Huge coordinates: beyond what squared lengths can hold.
        let huge: Vec<Point3<f32>> = cast(&ellipsoid(&mut rng, 20)).iter().map(|p: &Point3<f32>| p * 1e30).collect();
        assert_eq!(quickhull(&huge), Err(HullError::TooLarge));
        let mut big = cast::<f32>(&ellipsoid(&mut rng, 20));
        big[3].x = f32::MAX;
        assert_eq!(quickhull(&big), Err(HullError::TooLarge));
        let huge64: Vec<Point3<f64>> = ellipsoid(&mut rng, 20).iter().map(|p| p * 1e200).collect();
        assert_eq!(quickhull(&huge64), Err(HullError::TooLarge));
        // Large but representable: fine.
        let large: Vec<Point3<f32>> = cast(&ellipsoid(&mut rng, 50)).iter().map(|p: &Point3<f32>| p * 1e12).collect();
        check_hull(&large, &mut rng, "large f32");
        // Tiny: below the smallest accepted size.
        let tiny: Vec<Point3<f32>> = cast(&ellipsoid(&mut rng, 20)).iter().map(|p: &Point3<f32>| p * 1e-30).collect();
        assert_eq!(quickhull(&tiny), Err(HullError::Degenerate));
        // Thinner than the resolution: flat; a little thicker: a solid.
        let thin: Vec<_> =
            plane.iter().enumerate().map(|(i, q)| q + u.cross(&v).normalize() * (i % 2) as f64 * 1e-6).collect();
        assert_eq!(quickhull(&thin), Err(HullError::Degenerate));
        let thick: Vec<_> =
            plane.iter().enumerate().map(|(i, q)| q + u.cross(&v).normalize() * (i % 2) as f64 * 1e-2).collect();
        check_hull(&thick, &mut rng, "thick");
    }

    /// Hostile clouds: few points from a small set of special values (zero,
    /// signed zeros, subnormals, huge, NaN, infinities, grid values, exact
    /// repeats). The builder returns a typed error or a hull that validates;
    /// it never panics.
    #[test]
    fn hostile_clouds_never_panic() {
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            1e-300,
            f64::MIN_POSITIVE / 4.0,
            1e-7,
            1e7,
            1e20,
            -1e20,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut rng = rng(9);
        let mut ok = 0;
        for case in 0..600 {
            let n = rng.random_range(0..12);
            let p_special = [0.0, 0.02, 0.1][case % 3];
            let pick = |rng: &mut ChaCha8Rng| {
                if rng.random_bool(p_special) {
                    specials[rng.random_range(0..specials.len())]
                } else if rng.random_bool(0.5) {
                    rng.random_range(-2..=2) as f64
                } else {
                    rng.random_range(-2.0..2.0)
                }
            };
            let cloud: Vec<Point3<f64>> =
                (0..n).map(|_| Point3::new(pick(&mut rng), pick(&mut rng), pick(&mut rng))).collect();
            for result in [
                quickhull(&cloud).map(|h| h.polytope().is_ok()),
                quickhull(&cast::<f32>(&cloud)).map(|h| h.polytope().is_ok()),
            ] {
                match result {
                    Ok(valid) => {
                        assert!(valid, "case {case}: {cloud:?}");
                        ok += 1;
                    }
                    Err(HullError::Numerical | HullError::Invalid(_)) => {
                        panic!("case {case}: {result:?} for {cloud:?}")
                    }
                    Err(_) => {}
                }
            }
        }
        assert!(ok > 100, "{ok} hulls built");
    }

    /// The source printed by `to_rust_source` for this box, pasted below
    /// verbatim (between the markers), compiles, validates, and is what the
    /// builder prints.
    #[test]
    fn rust_source_round_trip() {
        let corners: Vec<Point3<f32>> = (0..8)
            .map(|i| {
                Point3::new(
                    if i & 1 == 1 { 1.0 } else { -1.0 },
                    if i & 2 == 2 { 0.5 } else { -0.5 },
                    if i & 4 == 4 { 0.25 } else { -0.25 },
                )
            })
            .collect();
        let mut cloud = corners.clone();
        cloud.push(Point3::new(0.0, 0.0, 0.0));
        cloud.push(Point3::new(1.0, 0.1, 0.2));
        let hull = quickhull(&cloud).unwrap();
        let printed = hull.to_rust_source("generated box");
        let this_file = include_str!("polytope.rs");
        let begin = this_file.find("// BEGIN GENERATED\n").unwrap() + "// BEGIN GENERATED\n".len();
        let end = this_file.rfind("// END GENERATED").unwrap();
        let pasted = &this_file[begin..end];
        assert_eq!(printed.trim(), pasted.trim(), "regenerate the block below:\n{printed}");
        let p = Polytope::new(generated::GENERATED_BOX).unwrap();
        assert_eq!(generated::GENERATED_BOX, hull.data());
        assert_eq!(p.vertex_count(), 8);
        assert_eq!(generated::GENERATED_BOX_FACES.len(), 6);
    }

    #[rustfmt::skip]
    mod generated {
// BEGIN GENERATED
// Generated by narrowphase::hull::quickhull: 8 vertices, 6 faces.
pub static GENERATED_BOX_VERTICES: [nalgebra::Point3<f32>; 8] = [
    nalgebra::Point3::new(-1.0, -0.5, -0.25),
    nalgebra::Point3::new(1.0, -0.5, -0.25),
    nalgebra::Point3::new(-1.0, 0.5, -0.25),
    nalgebra::Point3::new(1.0, 0.5, -0.25),
    nalgebra::Point3::new(-1.0, -0.5, 0.25),
    nalgebra::Point3::new(1.0, -0.5, 0.25),
    nalgebra::Point3::new(-1.0, 0.5, 0.25),
    nalgebra::Point3::new(1.0, 0.5, 0.25),
];
pub static GENERATED_BOX_FACES: [narrowphase::shape::Plane<f32>; 6] = [
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(0.0, 0.0, -1.0), offset: 0.25 },
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(0.0, 0.0, 1.0), offset: 0.25 },
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(0.0, 1.0, 0.0), offset: 0.5 },
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(0.0, -1.0, 0.0), offset: 0.5 },
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(1.0, 0.0, 0.0), offset: 1.0 },
    narrowphase::shape::Plane { normal: nalgebra::Vector3::new(-1.0, 0.0, 0.0), offset: 1.0 },
];
pub static GENERATED_BOX_VERTEX_ADJACENCY_OFFSETS: [u16; 9] = [
    0, 3, 6, 9, 12, 15, 18, 21, 24,
];
pub static GENERATED_BOX_VERTEX_ADJACENCY: [u16; 24] = [
    2, 1, 4, 5, 0, 3, 6, 3, 0, 1, 2, 7, 0, 5, 6, 7,
    4, 1, 4, 7, 2, 3, 6, 5,
];
pub static GENERATED_BOX_FACE_OFFSETS: [u16; 7] = [
    0, 4, 8, 12, 16, 20, 24,
];
pub static GENERATED_BOX_FACE_VERTICES: [u16; 24] = [
    2, 3, 1, 0, 7, 6, 4, 5, 7, 3, 2, 6, 1, 5, 4, 0,
    1, 3, 7, 5, 4, 6, 2, 0,
];
pub static GENERATED_BOX_FACE_ADJACENCY: [u16; 24] = [
    2, 4, 3, 5, 2, 5, 3, 4, 4, 0, 5, 1, 4, 1, 5, 0,
    0, 2, 1, 3, 1, 2, 0, 3,
];
pub static GENERATED_BOX: narrowphase::shape::PolytopeData<'static, f32> =
    narrowphase::shape::PolytopeData {
        vertices: &GENERATED_BOX_VERTICES,
        vertex_adjacency_offsets: &GENERATED_BOX_VERTEX_ADJACENCY_OFFSETS,
        vertex_adjacency: &GENERATED_BOX_VERTEX_ADJACENCY,
        faces: &GENERATED_BOX_FACES,
        face_offsets: &GENERATED_BOX_FACE_OFFSETS,
        face_vertices: &GENERATED_BOX_FACE_VERTICES,
        face_adjacency: &GENERATED_BOX_FACE_ADJACENCY,
    };
// END GENERATED
    }
}
