//! `Polytope::new` on arbitrary arrays, and its hill-climbing support map
//! against the scan, f32 or f64.
//!
//! Two sources of arrays:
//! - **raw**: every array straight from the input (lengths, offsets,
//!   indices, coordinates, planes — fixed-point or raw `f64` bits);
//! - **hull**: `hull::quickhull` of an arbitrary point cloud (4 to 80 points,
//!   duplicates and coplanar points common), then up to 8 mutations of its
//!   arrays (move a vertex, tilt a plane, shift an offset, overwrite an
//!   index, truncate an array, swap two loop entries).
//!
//! Oracles:
//! - no panic, no hang: `Polytope::new` returns `Ok` or a typed
//!   `ShapeError::Polytope(_)` (any other variant is a finding);
//! - `quickhull` never panics, and its output always validates
//!   (`OwnedPolytope::polytope` is documented never to fail);
//! - if `Ok`: for every probe direction (finite), `support_index_climb`
//!   from any start (the input's hints, out-of-range ones included, and every
//!   vertex for small polytopes) returns an in-range index whose support
//!   value is the scan's up to the validation tolerance (`tol·|d|`, the
//!   documented "optimal up to that tolerance"); `support_hinted` returns a vertex and leaves an
//!   in-range hint; the bounding sphere holds every vertex.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Point3, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;
use narrowphase::error::ShapeError;
use narrowphase::shape::{Plane, CONVEXITY_TOLERANCE};

#[path = "shared/mod.rs"]
mod shared;
use shared::bodies::seed_num;
use shared::num::{nums, Num};
use shared::seeds::{encode_enum, encode_struct, Rng};

#[derive(Arbitrary, Debug)]
struct Raw {
    vertices: Vec<[Num; 3]>,
    vertex_adjacency_offsets: Vec<u16>,
    vertex_adjacency: Vec<u16>,
    faces: Vec<([Num; 3], Num)>,
    face_offsets: Vec<u16>,
    face_vertices: Vec<u16>,
    face_adjacency: Vec<u16>,
}

#[derive(Arbitrary, Debug)]
enum Array {
    VertexAdjacencyOffsets,
    VertexAdjacency,
    FaceOffsets,
    FaceVertices,
    FaceAdjacency,
}

#[derive(Arbitrary, Debug)]
enum Mutation {
    MoveVertex(u16, [Num; 3]),
    TiltNormal(u16, [Num; 3]),
    ShiftOffset(u16, Num),
    SetIndex(Array, u16, u16),
    Truncate(Array, u16),
    SwapLoop(u16, u16),
    DropVertex,
    DropFace,
}

#[derive(Arbitrary, Debug)]
enum Source {
    Raw(Raw),
    Hull { points: Vec<[Num; 3]>, mutations: Vec<Mutation> },
}

#[derive(Arbitrary, Debug)]
struct Input {
    f64: bool,
    source: Source,
    directions: Vec<[Num; 3]>,
    hints: Vec<u32>,
}

encode_struct!(Raw {
    vertices,
    vertex_adjacency_offsets,
    vertex_adjacency,
    faces,
    face_offsets,
    face_vertices,
    face_adjacency,
});
encode_enum!(Array { VertexAdjacencyOffsets, VertexAdjacency, FaceOffsets, FaceVertices, FaceAdjacency });
encode_enum!(Mutation {
    MoveVertex(i, d),
    TiltNormal(f, d),
    ShiftOffset(f, d),
    SetIndex(a, i, v),
    Truncate(a, n),
    SwapLoop(i, j),
    DropVertex,
    DropFace,
});
encode_enum!(Source { Raw(raw), Hull { points, mutations } });
encode_struct!(Input { f64, source, directions, hints });

/// Point clouds: a cube's corners, an octahedron, points on a sphere, on a
/// cone's mantle, on a box's edges, nearly coplanar and duplicated ones, of
/// 4 to 80 points; as hulls (with and without mutations of their arrays)
/// and as the raw arrays of their hulls.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(11);
    let mut out = Vec::new();
    for i in 0..160 {
        let n = rng.pick(&[4, 6, 8, 12, 20, 40, 80]);
        let pts: Vec<[f64; 3]> = (0..n)
            .map(|k| {
                let (a, b) = (k as f64 * 2.399_963, (k as f64 + 0.5) / n as f64);
                let (z, r) = (1.0 - 2.0 * b, (1.0 - (1.0 - 2.0 * b).powi(2)).sqrt());
                let [x, y, w] = [rng.range(-8, 8) as f64, rng.range(-8, 8) as f64, rng.range(-8, 8) as f64];
                match i % 6 {
                    0 => [(k & 1) as f64 * 2.0 - 1.0, (k >> 1 & 1) as f64 * 2.0 - 1.0, (k >> 2 & 1) as f64 * 2.0 - 1.0],
                    1 => [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]][k % 6],
                    2 => [r * a.cos() * 4.0, r * a.sin() * 4.0, z * 4.0],
                    3 => [(1.0 - b) * a.cos() * 3.0, (1.0 - b) * a.sin() * 3.0, b * 5.0],
                    4 => [x / 8.0, y / 8.0, if k % 3 == 0 { w / 1024.0 } else { 0.0 }],
                    _ => [x, y, w].map(|c| c / 4.0 + [0.0, 1.5, -1.0][k % 3] * ((k / 3) % 2) as f64),
                }
            })
            .collect();
        let points: Vec<[Num; 3]> = pts.iter().map(|p| nums(*p)).collect();
        let mutations = (0..if i % 3 == 0 { rng.range(1, 4) } else { 0 })
            .map(|_| match rng.below(8) {
                0 => Mutation::MoveVertex(rng.next() as u16, [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]),
                1 => Mutation::TiltNormal(rng.next() as u16, [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]),
                2 => Mutation::ShiftOffset(rng.next() as u16, seed_num(&mut rng)),
                3 => Mutation::SetIndex(Array::FaceVertices, rng.next() as u16, rng.next() as u16),
                4 => Mutation::Truncate(Array::VertexAdjacency, rng.next() as u16),
                5 => Mutation::SwapLoop(rng.next() as u16, rng.next() as u16),
                6 => Mutation::DropVertex,
                _ => Mutation::DropFace,
            })
            .collect();
        let directions = (0..rng.below(5)).map(|_| [seed_num(&mut rng), seed_num(&mut rng), seed_num(&mut rng)]).collect();
        let hints = (0..rng.below(4)).map(|_| rng.pick(&[0, 1, 7, 63, 200, u32::MAX])).collect();
        let source = match i % 4 {
            3 => {
                let cloud: Vec<Point3<f64>> = points.iter().map(p3).collect();
                let Ok(hull) = quickhull(&cloud) else { continue };
                let d = hull.data();
                let raw = |x: f64| Num::Raw(x);
                Source::Raw(Raw {
                    vertices: d.vertices.iter().map(|v| v.coords.into()).map(|c: [f64; 3]| c.map(raw)).collect(),
                    vertex_adjacency_offsets: d.vertex_adjacency_offsets.to_vec(),
                    vertex_adjacency: d.vertex_adjacency.to_vec(),
                    faces: d.faces.iter().map(|f| (<[f64; 3]>::from(f.normal).map(raw), raw(f.offset))).collect(),
                    face_offsets: d.face_offsets.to_vec(),
                    face_vertices: d.face_vertices.to_vec(),
                    face_adjacency: d.face_adjacency.to_vec(),
                })
            }
            _ => Source::Hull { points, mutations },
        };
        out.push(Input { f64: i % 2 == 0, source, directions, hints });
    }
    out
}

/// Owned arrays (the polytope borrows them).
struct Arrays<R: Real> {
    vertices: Vec<Point3<R>>,
    vertex_adjacency_offsets: Vec<u16>,
    vertex_adjacency: Vec<u16>,
    faces: Vec<Plane<R>>,
    face_offsets: Vec<u16>,
    face_vertices: Vec<u16>,
    face_adjacency: Vec<u16>,
}

impl<R: Real> Arrays<R> {
    fn data(&self) -> PolytopeData<'_, R> {
        PolytopeData {
            vertices: &self.vertices,
            vertex_adjacency_offsets: &self.vertex_adjacency_offsets,
            vertex_adjacency: &self.vertex_adjacency,
            faces: &self.faces,
            face_offsets: &self.face_offsets,
            face_vertices: &self.face_vertices,
            face_adjacency: &self.face_adjacency,
        }
    }

    fn array(&mut self, a: &Array) -> &mut Vec<u16> {
        match a {
            Array::VertexAdjacencyOffsets => &mut self.vertex_adjacency_offsets,
            Array::VertexAdjacency => &mut self.vertex_adjacency,
            Array::FaceOffsets => &mut self.face_offsets,
            Array::FaceVertices => &mut self.face_vertices,
            Array::FaceAdjacency => &mut self.face_adjacency,
        }
    }

    fn mutate(&mut self, m: &Mutation) {
        let l = |x: &Num| R::lit(x.get());
        let v3 = |n: &[Num; 3]| Vector3::new(l(&n[0]), l(&n[1]), l(&n[2]));
        match m {
            Mutation::MoveVertex(i, d) => {
                let n = self.vertices.len().max(1);
                if let Some(p) = self.vertices.get_mut(*i as usize % n) {
                    *p += v3(d) * R::lit(1.0 / 64.0);
                }
            }
            Mutation::TiltNormal(f, d) => {
                let n = self.faces.len().max(1);
                if let Some(p) = self.faces.get_mut(*f as usize % n) {
                    p.normal += v3(d) * R::lit(1.0 / 1024.0);
                }
            }
            Mutation::ShiftOffset(f, d) => {
                let n = self.faces.len().max(1);
                if let Some(p) = self.faces.get_mut(*f as usize % n) {
                    p.offset += l(d) * R::lit(1.0 / 1024.0);
                }
            }
            Mutation::SetIndex(a, i, v) => {
                let arr = self.array(a);
                let n = arr.len().max(1);
                if let Some(x) = arr.get_mut(*i as usize % n) {
                    *x = *v % 128;
                }
            }
            Mutation::Truncate(a, n) => {
                let arr = self.array(a);
                let len = arr.len();
                arr.truncate(len.saturating_sub(1 + *n as usize % 4));
            }
            Mutation::SwapLoop(i, j) => {
                let n = self.face_vertices.len();
                if n > 0 {
                    self.face_vertices.swap(*i as usize % n, *j as usize % n);
                }
            }
            Mutation::DropVertex => {
                self.vertices.pop();
            }
            Mutation::DropFace => {
                self.faces.pop();
            }
        }
    }
}

fn p3<R: Real>(n: &[Num; 3]) -> Point3<R> {
    Point3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

/// The support oracle on a validated polytope.
fn check_support<R: Real>(p: &Polytope<'_, R>, input: &Input) {
    let verts = p.data().vertices;
    let nv = verts.len();
    let (centre, radius) = p.bounding_sphere();
    let size = verts.iter().fold(0.0f64, |m, v| m.max((v - centre).map(|x| x.to_f64()).norm()));
    let coord = verts.iter().fold(0.0f64, |m, v| v.coords.iter().fold(m, |m, x| m.max(x.to_f64().abs())));
    let eps = R::EPSILON.to_f64();
    let tol = (size * CONVEXITY_TOLERANCE).max(coord * eps * 64.0);
    for v in verts {
        let d = (v - centre).map(|x| x.to_f64()).norm();
        assert!(d <= radius.to_f64() * (1.0 + 8.0 * eps) + 8.0 * eps * coord, "vertex outside the bounding sphere");
    }
    // Unit directions (normalised in f64): `dir·p` with a huge `dir`
    // overflows (f32: |dir| ≈ 1e36 against coordinates ≈ 100), after which
    // neither the scan nor the climb can order the vertices. Directions in
    // GJK are CSO points, as large as the bodies, not more.
    let unit = |d: &[Num; 3]| {
        let v = Vector3::new(d[0].get(), d[1].get(), d[2].get());
        let n = v.norm();
        (n > 0.0 && n.is_finite()).then(|| (v / n).map(R::lit))
    };
    let mut dirs: Vec<Vector3<R>> = input.directions.iter().take(16).filter_map(unit).collect();
    dirs.extend([Vector3::x(), -Vector3::y(), Vector3::new(R::ONE, R::ONE, R::ONE)]);
    for dir in dirs.iter().filter(|d| d.iter().all(|x| x.finite())) {
        let dn = dir.map(|x| x.to_f64()).norm();
        let value = |i: usize| dir.map(|x| x.to_f64()).dot(&verts[i].coords.map(|x| x.to_f64()));
        let scan = p.support_index_scan(dir);
        assert!(scan < nv, "scan index {scan} out of range");
        let best = value(scan);
        // Rounding of the dot products themselves.
        let round = 8.0 * eps * dn * coord;
        let allow = tol * dn + round;
        let mut starts: Vec<usize> = input.hints.iter().take(8).map(|&h| h as usize).collect();
        if nv <= 24 {
            starts.extend(0..nv);
        }
        starts.push(usize::MAX);
        for start in starts {
            let i = p.support_index_climb(dir, start);
            assert!(i < nv, "climb index {i} out of range");
            let got = value(i);
            assert!(
                got >= best - allow,
                "climb from {start} stopped at vertex {i} ({got}), scan found {scan} ({best}); allowance {allow}, {nv} vertices"
            );
        }
        let mut hint = SupportWarmStart(input.hints.first().copied().unwrap_or(0));
        let s = p.support_hinted(dir, &mut hint);
        assert!((hint.0 as usize) < nv, "hint {} out of range", hint.0);
        assert!(verts.contains(&s), "support point {s:?} is not a vertex");
    }
}

fn typed(r: &Result<Polytope<'_, impl Real>, ShapeError>) {
    if let Err(e) = r {
        assert!(matches!(e, ShapeError::Polytope(_)), "Polytope::new answered {e:?}, not a polytope error");
    }
}

fn run<R: Real>(input: &Input) {
    match &input.source {
        Source::Raw(raw) => {
            let arrays = Arrays::<R> {
                vertices: raw.vertices.iter().map(p3).collect(),
                vertex_adjacency_offsets: raw.vertex_adjacency_offsets.clone(),
                vertex_adjacency: raw.vertex_adjacency.clone(),
                faces: raw
                    .faces
                    .iter()
                    .map(|(n, d)| Plane { normal: p3::<R>(n).coords, offset: R::lit(d.get()) })
                    .collect(),
                face_offsets: raw.face_offsets.clone(),
                face_vertices: raw.face_vertices.clone(),
                face_adjacency: raw.face_adjacency.clone(),
            };
            let r = Polytope::new(arrays.data());
            typed(&r);
            if let Ok(p) = r {
                check_support(&p, input);
            }
        }
        Source::Hull { points, mutations } => {
            let pts: Vec<Point3<R>> = points.iter().take(80).map(p3).collect();
            let Ok(hull) = quickhull(&pts) else { return };
            let p = hull.polytope();
            assert!(p.is_ok(), "quickhull's output fails validation: {p:?}");
            if let Ok(p) = &p {
                check_support(p, input);
            }
            if mutations.is_empty() {
                return;
            }
            let d = hull.data();
            let mut arrays = Arrays::<R> {
                vertices: d.vertices.to_vec(),
                vertex_adjacency_offsets: d.vertex_adjacency_offsets.to_vec(),
                vertex_adjacency: d.vertex_adjacency.to_vec(),
                faces: d.faces.to_vec(),
                face_offsets: d.face_offsets.to_vec(),
                face_vertices: d.face_vertices.to_vec(),
                face_adjacency: d.face_adjacency.to_vec(),
            };
            for m in mutations.iter().take(8) {
                arrays.mutate(m);
            }
            let r = Polytope::new(arrays.data());
            typed(&r);
            if let Ok(p) = r {
                check_support(&p, input);
            }
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    if input.f64 {
        run::<f64>(&input)
    } else {
        run::<f32>(&input)
    }
});
