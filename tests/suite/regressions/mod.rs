//! Regression tests for the inputs kept in `fuzz/regressions/<target>/`, one
//! submodule per fuzz target (the `[[bin]]` names of `fuzz/Cargo.toml`).
//! Each test rebuilds its input by hand, states the defect class it guards
//! and checks the kernel against ground truth that does not come from the
//! code under test: closed-form support functions and separating planes,
//! bounding boxes, dense sampling, exact arithmetic on dyadic inputs. The
//! inputs and their descriptions are in `fuzz/regressions/`.
//!
//! Many inputs are written as `i / 256` (the fuzz targets' fixed-point
//! encoding of coordinates and sizes), so they are exact in f32 and f64.

mod ellipsoid_method;
mod ellipsoid_pair;
mod epa;
mod gjk_distance;
mod gjk_intersect;
mod grid_sampling;
mod interval_octree;
mod mpr;
mod particle_projection;
mod polytope;
mod polytope_sdf;
mod scene;
mod superquadric;

use nalgebra::{Translation3, Vector3};
use narrowphase::prelude::*;
use narrowphase::shape::{Plane, PolytopeData};

/// A pose with identity rotation at `(x, y, z)`, in either precision.
fn at<R: Real>(x: f64, y: f64, z: f64) -> Pose<R> {
    Pose::from_parts(Translation3::new(R::lit(x), R::lit(y), R::lit(z)), Default::default())
}

/// `max over unit n of gap(n)` by a spherical grid and a shrinking local
/// search: with `gap(n) = −h_A(n) − h_B(−n)` from closed-form support
/// functions, a positive value is a separating plane (a proof of the
/// distance being at least that).
fn best_gap(gap: impl Fn(Vector3<f64>) -> f64) -> f64 {
    let dir = |t: f64, p: f64| Vector3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos());
    let (mut best, mut bt, mut bp) = (f64::NEG_INFINITY, 0.0, 0.0);
    for i in 0..=180 {
        for j in 0..360 {
            let (t, p) = (std::f64::consts::PI * i as f64 / 180.0, std::f64::consts::TAU * j as f64 / 360.0);
            let g = gap(dir(t, p));
            if g > best {
                (best, bt, bp) = (g, t, p);
            }
        }
    }
    let mut step = 0.02;
    while step > 1e-12 {
        let mut moved = false;
        for (dt, dp) in [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)] {
            let g = gap(dir(bt + dt, bp + dp));
            if g > best {
                (best, bt, bp, moved) = (g, bt + dt, bp + dp, true);
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    best
}

/// A bipyramid as in the fuzz targets: ring `0..n` of radius `r` in z = 0,
/// apexes `+top` (vertex n) and `−bottom` (vertex n + 1); top face `i` is
/// `(i, i+1, T)`, bottom face `n + i` is `(i+1, i, B)`. The arrays are built
/// by hand (no quickhull), so `Polytope::new` judges exactly these faces.
struct Bipyramid {
    vertices: Vec<nalgebra::Point3<f64>>,
    adjacency_offsets: Vec<u16>,
    adjacency: Vec<u16>,
    faces: Vec<Plane<f64>>,
    face_offsets: Vec<u16>,
    face_vertices: Vec<u16>,
    face_adjacency: Vec<u16>,
}

impl Bipyramid {
    fn new(n: usize, r: f64, top: f64, bottom: f64) -> Self {
        let (t, b) = (n, n + 1);
        let mut p = ring(n, r);
        p.push(Vector3::new(0.0, 0.0, top));
        p.push(Vector3::new(0.0, 0.0, -bottom));
        let mut loops: Vec<Vec<usize>> = (0..n).map(|i| vec![i, (i + 1) % n, t]).collect();
        loops.extend((0..n).map(|i| vec![(i + 1) % n, i, b]));
        Self::from_loops(p, &loops)
    }

    /// The same ring and top apex over an exactly flat base triangulated as
    /// a fan from ring vertex 0 (no vertex inside the base).
    fn fan_pyramid(n: usize, r: f64, top: f64) -> Self {
        let mut p = ring(n, r);
        p.push(Vector3::new(0.0, 0.0, top));
        let mut loops: Vec<Vec<usize>> = (0..n).map(|i| vec![i, (i + 1) % n, n]).collect();
        loops.extend((1..n - 1).map(|i| vec![0, i + 1, i]));
        Self::from_loops(p, &loops)
    }

    /// The arrays of a closed mesh given by its counter-clockwise face loops.
    fn from_loops(p: Vec<Vector3<f64>>, loops: &[Vec<usize>]) -> Self {
        let mut faces = vec![];
        let (mut face_offsets, mut face_vertices, mut face_adjacency) = (vec![0u16], vec![], vec![]);
        let mut neighbours = vec![vec![]; p.len()];
        for lp in loops {
            let normal = (p[lp[1]] - p[lp[0]]).cross(&(p[lp[2]] - p[lp[0]])).normalize();
            faces.push(Plane { normal, offset: normal.dot(&p[lp[0]]) });
            for (k, &a) in lp.iter().enumerate() {
                let b = lp[(k + 1) % lp.len()];
                // The face holding the twin edge b → a.
                let across = loops
                    .iter()
                    .position(|m| (0..m.len()).any(|j| m[j] == b && m[(j + 1) % m.len()] == a))
                    .expect("closed mesh");
                face_vertices.push(a as u16);
                face_adjacency.push(across as u16);
                neighbours[a].push(b as u16);
            }
            face_offsets.push(face_vertices.len() as u16);
        }
        let mut adjacency_offsets = vec![0u16];
        let mut adjacency = vec![];
        for nb in neighbours {
            adjacency.extend(nb);
            adjacency_offsets.push(adjacency.len() as u16);
        }
        Self {
            vertices: p.into_iter().map(nalgebra::Point3::from).collect(),
            adjacency_offsets,
            adjacency,
            faces,
            face_offsets,
            face_vertices,
            face_adjacency,
        }
    }

    fn data(&self) -> PolytopeData<'_, f64> {
        PolytopeData {
            vertices: &self.vertices,
            vertex_adjacency_offsets: &self.adjacency_offsets,
            vertex_adjacency: &self.adjacency,
            faces: &self.faces,
            face_offsets: &self.face_offsets,
            face_vertices: &self.face_vertices,
            face_adjacency: &self.face_adjacency,
        }
    }

    fn polytope(&self) -> Polytope<'_, f64> {
        Polytope::new(self.data()).unwrap()
    }
}

/// `n` points of a circle of radius `r` in z = 0.
fn ring(n: usize, r: f64) -> Vec<Vector3<f64>> {
    (0..n)
        .map(|i| {
            let a = core::f64::consts::TAU * i as f64 / n as f64;
            Vector3::new(r * a.cos(), r * a.sin(), 0.0)
        })
        .collect()
}
