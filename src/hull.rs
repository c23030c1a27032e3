//! Host-side convex hull builder (quickhull, 3D) producing [`PolytopeData`].
//!
//! Firmware never builds hulls: it receives validated arrays as `static`s.
//! This module (behind the `std` feature) turns a point cloud into those
//! arrays: [`quickhull`] returns an [`OwnedPolytope`] whose
//! [`to_rust_source`](OwnedPolytope::to_rust_source) prints them as Rust
//! source for a firmware crate to paste.
//!
//! # What comes out
//! - only the extreme points of the cloud, re-indexed (interior points,
//!   points on a face or in the middle of an edge, and near-duplicates are
//!   dropped, and so are vertices that are corners only within the rounding
//!   of their coordinates, which [`Polytope::new`] rejects: the hull is then
//!   built again without them, and they stay inside it within
//!   [`tolerance`](OwnedPolytope::tolerance)); every output vertex is
//!   bit-for-bit one of the input points
//!   ([`source_indices`](OwnedPolytope::source_indices) says which);
//! - coplanar triangles merged into convex polygon faces (a box has 6 quads);
//! - outward unit face planes, counter-clockwise loops, the vertex adjacency
//!   (each vertex's neighbours in counter-clockwise order seen from outside)
//!   and the face adjacency exactly as [`Polytope`] expects;
//! - a result that has passed [`Polytope::new`]: `quickhull(..)?.polytope()`
//!   never fails.
//!
//! # Tolerances
//! All computations run in `f64` on the exact input values, with tolerances
//! relative to the cloud's size `D` (its bounding-box diagonal) and never below
//! the rounding of its coordinates (`C`, the largest absolute coordinate, times
//! the machine epsilon `ε` of `R`):
//! - resolution `r = 1.1·max(1e-4·D, 64·ε·C)`: points closer than `r` are
//!   duplicates (the validator of [`Polytope`] cannot tell them apart, its
//!   tolerance is `max(1e-4·size, 64·ε·C)`), and a cloud thinner than `r` is
//!   [`HullError::Degenerate`];
//! - planarity `t = max(PLANARITY_TOLERANCE·D, 8·ε·C)`: a point less than `t`
//!   above the hull is inside; triangles within `2t` of a common plane are
//!   merged into one face when their union is a convex polygon (within `2t`);
//! - visibility at the rounding level of `f64`: the triangulated hull is kept
//!   convex up to rounding while it grows (tolerating concave edges up to `t`
//!   would fold long thin triangles over each other).
//!
//! Every input point lies inside every face plane within
//! [`tolerance`](OwnedPolytope::tolerance) `= r + 8t`.
//!
//! # Cost
//! Quickhull is `O(n log n)` typically; the final validation is
//! `O(V² + V·F)`. Intended for up to a few thousand hull vertices; the `u16`
//! offsets of [`PolytopeData`] cap a triangulated hull at about 10 900
//! vertices (`2E ≤ 65 535`), see [`HullError::TooManyVertices`].
//!
//! # Examples
//!
//! ```
//! use narrowphase::hull::quickhull;
//! use narrowphase::shape::{SupportWarmStart, SupportMap};
//! use nalgebra::{Point3, Vector3};
//!
//! // The 8 corners of a box plus its centre and a point on one face.
//! let mut pts = vec![Point3::new(0.0_f32, 0.0, 0.0), Point3::new(1.0, 0.5, 0.25)];
//! for i in 0..8 {
//!     let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
//!     pts.push(Point3::new(s(0), 0.5 * s(1), 0.25 * s(2)));
//! }
//! let hull = quickhull(&pts).unwrap();
//! let data = hull.data();
//! assert_eq!((data.vertices.len(), data.faces.len()), (8, 6)); // 6 quads
//! assert!(data.face_offsets.windows(2).all(|w| w[1] - w[0] == 4));
//!
//! let poly = hull.polytope().unwrap();
//! let p = poly.support_hinted(&Vector3::new(1.0, 1.0, 1.0), &mut SupportWarmStart::default());
//! assert_eq!(p, Point3::new(1.0, 0.5, 0.25));
//! ```

use crate::error::HullError;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::string::String;
use std::vec;
use std::vec::Vec;

use crate::error::PolytopeError;
use crate::error::ShapeError;
use crate::math::{normalize, Pt3, Real, Vec3};
use crate::shape::{is_strict_corner, max_extent, min_extent, Plane, Polytope, PolytopeData, MAX_VERTICES};

/// Relative planarity tolerance of the builder (a multiple of the cloud's
/// bounding-box diagonal): points closer than this to the hull count as on
/// it, and faces that agree within it are merged. Kept well below the
/// validator's relative tolerance (`1e-4`, see [`Polytope::new`]) so that the
/// merged faces pass validation with a wide margin.
pub const PLANARITY_TOLERANCE: f64 = 1.0e-6;

/// The validator's relative tolerance (`CONVEXITY_TOLERANCE` in
/// `shape/polytope.rs`, not exported), which sets the builder's
/// duplicate-point resolution.
const VALIDATOR_TOLERANCE: f64 = 1.0e-4;

/// Rounds of merging before giving up on merging (see [`quickhull`]).
const MERGE_ROUNDS: usize = 8;

/// Rounds of dropping vertices that are corners only within rounding and
/// building again from the other vertices (see [`quickhull`]); as a rule the
/// first build has none, and each round has fewer vertices.
const CORNER_ROUNDS: usize = 16;

/// A convex polytope owning its arrays (the output of [`quickhull`]).
///
/// [`data`](Self::data) borrows them as [`PolytopeData`];
/// [`to_rust_source`](Self::to_rust_source) prints them for firmware.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnedPolytope<R: Real> {
    vertices: Vec<Pt3<R>>,
    vertex_adjacency_offsets: Vec<u16>,
    vertex_adjacency: Vec<u16>,
    faces: Vec<Plane<R>>,
    face_offsets: Vec<u16>,
    face_vertices: Vec<u16>,
    face_adjacency: Vec<u16>,
    source: Vec<usize>,
    tolerance: R,
}

impl<R: Real> OwnedPolytope<R> {
    /// The arrays, borrowed in the layout [`Polytope::new`] takes.
    pub fn data(&self) -> PolytopeData<'_, R> {
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

    /// Validates the arrays and wraps them in a [`Polytope`].
    ///
    /// # Errors
    ///
    /// Those of [`Polytope::new`] ([`ShapeError::Polytope`]); never for the
    /// output of [`quickhull`], which ran the same check before returning it.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::hull::quickhull;
    /// use narrowphase::shape::SupportMap;
    /// use nalgebra::{Point3, Vector3};
    /// let pts = [[0.0_f64, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.1, 0.1, 0.1]]
    ///     .map(|[x, y, z]| Point3::new(x, y, z));
    /// let hull = quickhull(&pts).unwrap();
    /// let tetra = hull.polytope().unwrap();
    /// assert_eq!(tetra.vertex_count(), 4); // the interior point is dropped
    /// assert_eq!(tetra.support(&Vector3::new(1.0, 2.0, 3.0)), Point3::new(0.0, 0.0, 1.0));
    /// ```
    pub fn polytope(&self) -> Result<Polytope<'_, R>, ShapeError> {
        Polytope::new(self.data())
    }

    /// For each hull vertex, the index of the input point it is.
    pub fn source_indices(&self) -> &[usize] {
        &self.source
    }

    /// Every input point `p` satisfies `n·p ≤ d + tolerance` for every face
    /// plane `(n, d)` (see the module docs).
    pub fn tolerance(&self) -> R {
        self.tolerance
    }

    /// Rust source declaring the arrays as `static`s named
    /// `{NAME}_VERTICES`, `{NAME}_FACES`, … and a `static {NAME}:
    /// PolytopeData<'static, R>` over them, with fully qualified paths
    /// (`nalgebra::…`, `narrowphase::shape::…`), ready to paste into a
    /// firmware crate and wrap with `Polytope::new({NAME})`.
    ///
    /// `name` is upper-cased; characters other than ASCII letters, digits and
    /// `_` become `_`. Floats are printed so that they read back bit-exact.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::hull::quickhull;
    /// use nalgebra::Point3;
    /// let pts = [[0.0_f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    ///     .map(|[x, y, z]| Point3::new(x, y, z));
    /// let src = quickhull(&pts).unwrap().to_rust_source("tetra");
    /// assert!(src.contains("pub static TETRA_VERTICES: [nalgebra::Point3<f32>; 4] = ["));
    /// assert!(src.contains("pub static TETRA: narrowphase::shape::PolytopeData<'static, f32>"));
    /// ```
    pub fn to_rust_source(&self, name: &str) -> String {
        let name = sanitize(name);
        let ty = if R::EPSILON.to_f64() == f32::EPSILON as f64 { "f32" } else { "f64" };
        let num = |x: R| -> String {
            if ty == "f32" {
                let v = x.to_f64() as f32;
                std::format!("{v:?}")
            } else {
                std::format!("{:?}", x.to_f64())
            }
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Generated by narrowphase::hull::quickhull: {} vertices, {} faces.",
            self.vertices.len(),
            self.faces.len()
        );
        let _ = writeln!(s, "pub static {name}_VERTICES: [nalgebra::Point3<{ty}>; {}] = [", self.vertices.len());
        for p in &self.vertices {
            let _ = writeln!(s, "    nalgebra::Point3::new({}, {}, {}),", num(p.x), num(p.y), num(p.z));
        }
        let _ = writeln!(s, "];");
        let _ = writeln!(s, "pub static {name}_FACES: [narrowphase::shape::Plane<{ty}>; {}] = [", self.faces.len());
        for f in &self.faces {
            let _ = writeln!(
                s,
                "    narrowphase::shape::Plane {{ normal: nalgebra::Vector3::new({}, {}, {}), offset: {} }},",
                num(f.normal.x),
                num(f.normal.y),
                num(f.normal.z),
                num(f.offset)
            );
        }
        let _ = writeln!(s, "];");
        for (suffix, items) in [
            ("VERTEX_ADJACENCY_OFFSETS", &self.vertex_adjacency_offsets),
            ("VERTEX_ADJACENCY", &self.vertex_adjacency),
            ("FACE_OFFSETS", &self.face_offsets),
            ("FACE_VERTICES", &self.face_vertices),
            ("FACE_ADJACENCY", &self.face_adjacency),
        ] {
            let _ = writeln!(s, "pub static {name}_{suffix}: [u16; {}] = [", items.len());
            for chunk in items.chunks(16) {
                let line: Vec<String> = chunk.iter().map(|i| std::format!("{i}")).collect();
                let _ = writeln!(s, "    {},", line.join(", "));
            }
            let _ = writeln!(s, "];");
        }
        let _ = writeln!(s, "pub static {name}: narrowphase::shape::PolytopeData<'static, {ty}> =");
        let _ = writeln!(s, "    narrowphase::shape::PolytopeData {{");
        for (field, suffix) in [
            ("vertices", "VERTICES"),
            ("vertex_adjacency_offsets", "VERTEX_ADJACENCY_OFFSETS"),
            ("vertex_adjacency", "VERTEX_ADJACENCY"),
            ("faces", "FACES"),
            ("face_offsets", "FACE_OFFSETS"),
            ("face_vertices", "FACE_VERTICES"),
            ("face_adjacency", "FACE_ADJACENCY"),
        ] {
            let _ = writeln!(s, "        {field}: &{name}_{suffix},");
        }
        let _ = writeln!(s, "    }};");
        s
    }
}

fn sanitize(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_uppercase() } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

type V3 = Vec3<f64>;

/// The builder's tolerances (absolute, in the cloud's units).
#[derive(Clone, Copy, Debug)]
struct Tol {
    /// Planarity: a point less than this above the hull is inside.
    plane: f64,
    /// Merging of triangles into one face, and convexity of its loop.
    merge: f64,
    /// Duplicate-point distance, and minimal thickness of the cloud.
    resolution: f64,
    /// Rounding noise of a distance computed in `f64`: the visibility
    /// threshold, so that the hull under construction stays convex up to
    /// rounding (a concavity allowed up to `plane` would turn into folded
    /// faces wherever long thin triangles meet).
    noise: f64,
}

/// Builds the convex hull of `points` with quickhull (Barber, Dobkin &
/// Huhdanpaa 1996), merges coplanar triangles into polygons and returns the
/// validated arrays. See the [module docs](self) for the guarantees and the
/// tolerances.
///
/// Never panics; every input it cannot turn into a solid hull gives a
/// [`HullError`].
///
/// # Errors
///
/// - [`HullError::TooFewPoints`] for fewer than 4 points;
/// - [`HullError::TooManyVertices`] for more than `u32::MAX` points, or a
///   hull whose vertices, faces, loops or adjacency lists do not fit the
///   `u16` indices and offsets of [`PolytopeData`];
/// - [`HullError::NonFinite`] if a coordinate is NaN or infinite;
/// - [`HullError::TooLarge`] if a coordinate exceeds [`max_extent`] of `R`;
/// - [`HullError::Degenerate`] if the cloud has no volume at the builder's
///   resolution: coincident, collinear or coplanar points (within the
///   resolution), or a bounding-box diagonal below [`min_extent`];
/// - [`HullError::Numerical`] if the floating-point construction became
///   inconsistent (not expected for finite input);
/// - [`HullError::Invalid`] if the result failed [`Polytope::new`] (not
///   expected; [`PolytopeError::NotACorner`] also when vertices that are
///   corners only within rounding were still found after every round of
///   dropping them).
///
/// # Examples
///
/// ```
/// use narrowphase::hull::quickhull;
/// use narrowphase::error::HullError;
/// use nalgebra::Point3;
/// let flat: Vec<_> = (0..10).map(|i| Point3::new(i as f64, (i * i) as f64, 0.0)).collect();
/// assert_eq!(quickhull(&flat), Err(HullError::Degenerate));
/// assert_eq!(quickhull(&flat[..3]), Err(HullError::TooFewPoints));
/// let mut nan = flat.clone();
/// nan[4].y = f64::NAN;
/// assert_eq!(quickhull(&nan), Err(HullError::NonFinite));
/// ```
pub fn quickhull<R: Real>(points: &[Pt3<R>]) -> Result<OwnedPolytope<R>, HullError> {
    if points.len() < 4 {
        return Err(HullError::TooFewPoints);
    }
    if points.len() > u32::MAX as usize {
        return Err(HullError::TooManyVertices);
    }
    let pts: Vec<V3> = points.iter().map(|p| V3::new(p.x.to_f64(), p.y.to_f64(), p.z.to_f64())).collect();
    if !pts.iter().all(|p| p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
        return Err(HullError::NonFinite);
    }
    let coord = pts.iter().fold(0.0_f64, |m, p| m.max(p.x.abs()).max(p.y.abs()).max(p.z.abs()));
    if coord > max_extent::<R>().to_f64() {
        return Err(HullError::TooLarge);
    }
    let (mut lo, mut hi) = (pts[0], pts[0]);
    for p in &pts {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    let diag = crate::math::norm(&(hi - lo));
    if !(diag > 0.0) || diag < min_extent::<R>().to_f64() {
        return Err(HullError::Degenerate);
    }
    let eps = R::EPSILON.to_f64();
    let plane = (PLANARITY_TOLERANCE * diag).max(8.0 * eps * coord).max(64.0 * f64::EPSILON * coord);
    let tol = Tol {
        plane,
        merge: 2.0 * plane,
        resolution: 1.1 * (VALIDATOR_TOLERANCE * diag).max(64.0 * eps * coord),
        noise: 256.0 * f64::EPSILON * (coord + diag),
    };

    let mut kept = dedupe(&pts, &lo, tol.resolution);
    if kept.len() < 4 {
        return Err(HullError::Degenerate);
    }
    let mut dropped = false;
    // A vertex that is a corner only within rounding (reflex or flat by
    // less than its coordinates' rounding, which no tolerance of the
    // triangulation sees: quickhull keeps a vertex it took early, however
    // flat later points make it) is not a corner `Polytope::new` accepts:
    // hill climbing could stop there wrongly. Such vertices are dropped and
    // the hull built again from the other vertices only (so no point that
    // the first build left inside turns up as a new flat vertex), until none
    // is left: each round has fewer vertices.
    for _ in 0..CORNER_ROUNDS {
        let hull = build(points, &pts, &kept, tol)?;
        let data = hull.data();
        let flat: Vec<usize> = (0..data.vertices.len()).filter(|&v| !is_strict_corner(&data, v)).collect();
        if flat.is_empty() {
            // After a drop, every input point must still be inside the hull
            // within its tolerance (checked, `O(n·F)`, only then).
            let inside = |p: &V3| {
                data.faces
                    .iter()
                    .all(|f| f.normal.map(|c| c.to_f64()).dot(p) - f.offset.to_f64() <= hull.tolerance.to_f64())
            };
            if dropped && !pts.iter().all(inside) {
                return Err(HullError::Numerical);
            }
            hull.polytope().map_err(|e| match e {
                ShapeError::Polytope(p) => HullError::Invalid(p),
                _ => HullError::Numerical,
            })?;
            return Ok(hull);
        }
        kept = (0..data.vertices.len()).filter(|v| !flat.contains(v)).map(|v| hull.source[v] as u32).collect();
        dropped = true;
        if kept.len() < 4 {
            return Err(HullError::Degenerate);
        }
    }
    Err(HullError::Invalid(PolytopeError::NotACorner))
}

/// One hull of `pts[kept]`: triangulated, coplanar triangles merged,
/// assembled (not yet validated).
fn build<R: Real>(points: &[Pt3<R>], pts: &[V3], kept: &[u32], tol: Tol) -> Result<OwnedPolytope<R>, HullError> {
    let tris = Quickhull::run(pts, kept, tol)?;
    // Merge coplanar triangles; where a merged face would mislead hill
    // climbing, keep the triangles at the offending vertices and merge again
    // (a few rounds, then no merging at all, which always passes).
    let mut no_merge = vec![false; pts.len()];
    let mut faces = Vec::new();
    for round in 0..=MERGE_ROUNDS {
        if round == MERGE_ROUNDS {
            no_merge.fill(true);
        }
        faces = merge_coplanar(pts, &tris, tol, &no_merge);
        drop_edge_points(pts, &mut faces);
        let bad = bad_cones(pts, &faces, tol.plane);
        if bad.is_empty() {
            break;
        }
        for v in bad {
            no_merge[v as usize] = true;
        }
    }
    assemble(points, pts, faces, tol)
}

/// Indices of the points kept after dropping every point within `res` of an
/// earlier kept one (a hash grid of cell `res`).
fn dedupe(pts: &[V3], lo: &V3, res: f64) -> Vec<u32> {
    let cell = |p: &V3| -> [i64; 3] {
        let q = (p - lo) / res;
        [q.x.floor() as i64, q.y.floor() as i64, q.z.floor() as i64]
    };
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut kept = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        let c = cell(p);
        let mut duplicate = false;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                        if list.iter().any(|&j| crate::math::norm(&(pts[j as usize] - p)) <= res) {
                            duplicate = true;
                            break 'search;
                        }
                    }
                }
            }
        }
        if !duplicate {
            grid.entry(c).or_default().push(i as u32);
            kept.push(i as u32);
        }
    }
    kept
}

/// A triangle of the hull under construction (or of the finished hull).
#[derive(Clone, Debug)]
struct Tri {
    /// Counter-clockwise seen from outside.
    v: [u32; 3],
    /// `adj[i]`: the triangle across the edge `v[i] → v[(i+1)%3]`.
    adj: [u32; 3],
    normal: V3,
    offset: f64,
    /// Points above this triangle, not yet on the hull.
    outside: Vec<u32>,
    alive: bool,
}

impl Tri {
    fn dist(&self, p: &V3) -> f64 {
        self.normal.dot(p) - self.offset
    }
}

/// Unit normal and offset of the plane through `a, b, c` (counter-clockwise).
fn plane_through(pts: &[V3], a: u32, b: u32, c: u32) -> Option<(V3, f64)> {
    let (pa, pb, pc) = (pts[a as usize], pts[b as usize], pts[c as usize]);
    let n = normalize(&(pb - pa).cross(&(pc - pa)))?;
    Some((n, n.dot(&(pa + pb + pc)) / 3.0))
}

struct Quickhull<'p> {
    pts: &'p [V3],
    tol: Tol,
    tris: Vec<Tri>,
}

impl<'p> Quickhull<'p> {
    fn new_tri(&mut self, v: [u32; 3], adj: [u32; 3]) -> Result<u32, HullError> {
        let (normal, offset) = plane_through(self.pts, v[0], v[1], v[2]).ok_or(HullError::Numerical)?;
        self.tris.push(Tri { v, adj, normal, offset, outside: Vec::new(), alive: true });
        Ok((self.tris.len() - 1) as u32)
    }

    /// Whether the cone face `(a, b, eye)` would not be convex with the
    /// triangle `g` across `a → b` (see the repair step in `run`).
    fn concave(&self, a: u32, b: u32, eye: u32, g: u32) -> bool {
        let tg = &self.tris[g as usize];
        let Some(&c) = tg.v.iter().find(|&&v| v != a && v != b) else { return true };
        let Some((n, d)) = plane_through(self.pts, a, b, eye) else { return true };
        let (pe, pc) = (self.pts[eye as usize], self.pts[c as usize]);
        n.dot(&pc) - d > self.tol.noise || (tg.dist(&pe) >= -self.tol.noise && n.dot(&tg.normal) < 0.0)
    }

    /// Assigns `p` to the first of `faces` it is above; `false` if none.
    fn assign(&mut self, p: u32, faces: &[u32]) -> bool {
        let q = self.pts[p as usize];
        for &f in faces {
            let t = &mut self.tris[f as usize];
            if t.dist(&q) > self.tol.plane {
                t.outside.push(p);
                return true;
            }
        }
        false
    }

    /// The triangulated hull of `pts[kept]`.
    fn run(pts: &'p [V3], kept: &[u32], tol: Tol) -> Result<Vec<Tri>, HullError> {
        let mut qh = Quickhull { pts, tol, tris: Vec::new() };
        let [a, b, c, d] = initial_simplex(pts, kept, tol.resolution)?;
        // Faces (a b c), (b a d), (c b d), (a c d); d is below (a b c).
        qh.new_tri([a, b, c], [1, 2, 3])?;
        qh.new_tri([b, a, d], [0, 3, 2])?;
        qh.new_tri([c, b, d], [0, 1, 3])?;
        qh.new_tri([a, c, d], [0, 2, 1])?;
        let all = [0, 1, 2, 3];
        for &p in kept {
            if p != a && p != b && p != c && p != d {
                qh.assign(p, &all);
            }
        }
        // Faces with outside points, each pushed once (when created): the
        // loop ends when it is empty. Each step that does work puts its eye
        // on the hull for good, so there are at most `kept.len()` of them.
        let mut pending: Vec<u32> = vec![0, 1, 2, 3];
        let mut steps = 0usize;
        // Scratch: per-triangle visit marks, per-vertex horizon links.
        let mut seen: Vec<u32> = Vec::new();
        let mut visible_mark: Vec<u32> = Vec::new();
        let mut next_of: Vec<(u32, u32)> = vec![(u32::MAX, 0); pts.len()];
        let mut round = 0u32;
        while let Some(f) = pending.pop() {
            let t = &qh.tris[f as usize];
            if !t.alive || t.outside.is_empty() {
                continue;
            }
            steps += 1;
            if steps > kept.len() {
                return Err(HullError::Numerical);
            }
            // The eye: the farthest outside point.
            let mut eye = t.outside[0];
            let mut far = f64::NEG_INFINITY;
            for &p in &t.outside {
                let dd = t.dist(&pts[p as usize]);
                if dd > far {
                    far = dd;
                    eye = p;
                }
            }
            let pe = pts[eye as usize];
            round += 1;
            seen.resize(qh.tris.len(), 0);
            visible_mark.resize(qh.tris.len(), 0);
            // Visible set: the triangles connected to f that the eye is above
            // (beyond rounding: the hull stays convex).
            let mut visible = vec![f];
            seen[f as usize] = round;
            visible_mark[f as usize] = round;
            let mut k = 0;
            while let Some(&g) = visible.get(k) {
                k += 1;
                for nb in qh.tris[g as usize].adj {
                    if seen[nb as usize] != round {
                        seen[nb as usize] = round;
                        if qh.tris[nb as usize].dist(&pe) > tol.noise {
                            visible_mark[nb as usize] = round;
                            visible.push(nb);
                        }
                    }
                }
            }
            // Repair: a neighbour joins the visible set when the cone face
            // over the shared edge would not be convex with it (the
            // opposite vertex above the cone face, or a fold: the eye in its
            // plane on its side of the edge). Each (face, edge) pair is
            // tested once; the list grows while it is read.
            let mut k = 0;
            while let Some(&g) = visible.get(k) {
                k += 1;
                for i in 0..3 {
                    let tg = &qh.tris[g as usize];
                    let nb = tg.adj[i];
                    if visible_mark[nb as usize] != round && qh.concave(tg.v[i], tg.v[(i + 1) % 3], eye, nb) {
                        visible_mark[nb as usize] = round;
                        seen[nb as usize] = round;
                        visible.push(nb);
                    }
                }
            }
            // Horizon: directed edges of visible triangles whose neighbour is
            // not visible. It must be one simple loop.
            let mut horizon: Vec<(u32, u32, u32)> = Vec::new();
            for &g in &visible {
                let tg = &qh.tris[g as usize];
                for i in 0..3 {
                    let nb = tg.adj[i];
                    if visible_mark[nb as usize] != round {
                        let (from, to) = (tg.v[i], tg.v[(i + 1) % 3]);
                        if next_of[from as usize].0 == round {
                            return Err(HullError::Numerical);
                        }
                        next_of[from as usize] = (round, horizon.len() as u32);
                        horizon.push((from, to, nb));
                    }
                }
            }
            let mut ordered = Vec::with_capacity(horizon.len());
            let mut e = 0usize;
            for step in 1..=horizon.len() {
                let Some(&edge) = horizon.get(e) else { return Err(HullError::Numerical) };
                ordered.push(edge);
                let (r, nx) = next_of[edge.1 as usize];
                e = nx as usize;
                // Back at the start exactly when every edge has been used:
                // one loop, not several.
                if r != round || (e == 0) != (step == horizon.len()) {
                    return Err(HullError::Numerical);
                }
            }
            if horizon.len() < 3 || e != 0 {
                return Err(HullError::Numerical);
            }
            // The cone from the eye over the horizon.
            let first = qh.tris.len() as u32;
            let m = ordered.len() as u32;
            for (i, &(from, to, nb)) in ordered.iter().enumerate() {
                let i = i as u32;
                let next = first + (i + 1) % m;
                let prev = first + (i + m - 1) % m;
                let id = qh.new_tri([from, to, eye], [nb, next, prev])?;
                let tn = &mut qh.tris[nb as usize];
                let slot = (0..3).find(|&j| tn.v[j] == to && tn.v[(j + 1) % 3] == from).ok_or(HullError::Numerical)?;
                tn.adj[slot] = id;
            }
            let new_faces: Vec<u32> = (first..first + m).collect();
            let mut orphans = Vec::new();
            for &g in &visible {
                let tg = &mut qh.tris[g as usize];
                tg.alive = false;
                orphans.append(&mut tg.outside);
            }
            for p in orphans {
                if p != eye {
                    qh.assign(p, &new_faces);
                }
            }
            pending.extend(new_faces.iter().filter(|&&g| !qh.tris[g as usize].outside.is_empty()));
        }
        compact(qh.tris)
    }
}

/// Keeps the live triangles and renumbers their adjacency (which only names
/// live triangles) to positions in the compacted list.
fn compact(tris: Vec<Tri>) -> Result<Vec<Tri>, HullError> {
    let mut index = vec![u32::MAX; tris.len()];
    let mut next = 0u32;
    for (slot, t) in index.iter_mut().zip(&tris) {
        if t.alive {
            *slot = next;
            next += 1;
        }
    }
    let mut live: Vec<Tri> = tris.into_iter().filter(|t| t.alive).collect();
    for t in &mut live {
        for a in &mut t.adj {
            *a = *index.get(*a as usize).filter(|&&i| i != u32::MAX).ok_or(HullError::Numerical)?;
        }
    }
    Ok(live)
}

/// Four points spanning a tetrahedron of maximal-ish volume, ordered so that
/// the fourth is below the counter-clockwise triangle of the first three.
fn initial_simplex(pts: &[V3], kept: &[u32], res: f64) -> Result<[u32; 4], HullError> {
    let p = |i: u32| pts[i as usize];
    let mut ext = [kept[0]; 6];
    for &i in kept {
        for axis in 0..3 {
            if p(i)[axis] < p(ext[2 * axis])[axis] {
                ext[2 * axis] = i;
            }
            if p(i)[axis] > p(ext[2 * axis + 1])[axis] {
                ext[2 * axis + 1] = i;
            }
        }
    }
    let (mut a, mut b, mut best) = (ext[0], ext[1], -1.0);
    for &i in &ext {
        for &j in &ext {
            let dd = crate::math::norm(&(p(i) - p(j)));
            if dd > best {
                (a, b, best) = (i, j, dd);
            }
        }
    }
    let dir = normalize(&(p(b) - p(a))).ok_or(HullError::Degenerate)?;
    let (mut c, mut best) = (a, -1.0);
    for &i in kept {
        let dd = crate::math::norm(&(p(i) - p(a)).cross(&dir));
        if dd > best {
            (c, best) = (i, dd);
        }
    }
    if !(best > res) {
        return Err(HullError::Degenerate);
    }
    let n = normalize(&(p(b) - p(a)).cross(&(p(c) - p(a)))).ok_or(HullError::Degenerate)?;
    let (mut d, mut best) = (a, -1.0);
    for &i in kept {
        let dd = n.dot(&(p(i) - p(a))).abs();
        if dd > best {
            (d, best) = (i, dd);
        }
    }
    if !(best > res) {
        return Err(HullError::Degenerate);
    }
    if n.dot(&(p(d) - p(a))) > 0.0 {
        Ok([a, c, b, d])
    } else {
        Ok([a, b, c, d])
    }
}

/// A polygon face: its loop (input-point indices) and outward unit normal.
struct Face {
    ring: Vec<u32>,
    normal: V3,
    /// Made of more than one triangle.
    merged: bool,
}

/// Merges adjacent triangles lying within the merge tolerance of a common
/// plane into convex polygons: regions grow from the largest triangles over
/// neighbours whose vertices are all within the tolerance of the seed's
/// plane, then shrink (releasing the triangles at the offending vertices)
/// until their boundary is one simple loop, convex within the tolerance.
/// Released triangles seed regions of their own in a later pass. Triangles
/// at a `no_merge` vertex stay alone.
fn merge_coplanar(pts: &[V3], tris: &[Tri], tol: Tol, no_merge: &[bool]) -> Vec<Face> {
    let p = |i: u32| pts[i as usize];
    let area: Vec<f64> =
        tris.iter().map(|t| crate::math::norm(&(p(t.v[1]) - p(t.v[0])).cross(&(p(t.v[2]) - p(t.v[0]))))).collect();
    let mut order: Vec<usize> = (0..tris.len()).collect();
    order.sort_by(|&i, &j| area[j].total_cmp(&area[i]));
    let mut region = vec![NONE; tris.len()];
    let mut faces = Vec::new();
    let mut rid = 0u32;
    // Each pass settles at least its first seed, so at most one pass per
    // triangle; in practice two.
    for _ in 0..=tris.len() {
        let mut settled_all = true;
        for &s in &order {
            if region[s] != NONE {
                continue;
            }
            settled_all = false;
            let seed = &tris[s];
            rid += 1;
            region[s] = rid;
            let mut members = vec![s as u32];
            let mut k = 0;
            let alone = |t: &Tri| t.v.iter().any(|&v| no_merge[v as usize]);
            if alone(seed) {
                k = 1;
            }
            while let Some(&t) = members.get(k) {
                k += 1;
                for nb in tris[t as usize].adj {
                    let tn = &tris[nb as usize];
                    if region[nb as usize] == NONE
                        && !alone(tn)
                        && tn.normal.dot(&seed.normal) > 0.0
                        && tn.v.iter().all(|&v| seed.dist(&p(v)).abs() <= tol.merge)
                    {
                        region[nb as usize] = rid;
                        members.push(nb);
                    }
                }
            }
            let mut ring = None;
            for _ in 0..=members.len() {
                let bad = match boundary_loop(pts, tris, &members, &region, rid, &seed.normal, tol.merge) {
                    Ok(r) => {
                        ring = Some(r);
                        break;
                    }
                    Err(bad) => bad,
                };
                // Release the triangles at the bad vertices (all but the
                // seed when none would go), keep the seed's component.
                for &t in &members {
                    if t as usize != s && tris[t as usize].v.iter().any(|v| bad.contains(v)) {
                        region[t as usize] = NONE;
                    }
                }
                if members.iter().all(|&t| region[t as usize] == rid) {
                    for &t in &members {
                        if t as usize != s {
                            region[t as usize] = NONE;
                        }
                    }
                }
                let old = rid;
                rid += 1;
                region[s] = rid;
                let mut kept = vec![s as u32];
                let mut k = 0;
                while let Some(&t) = kept.get(k) {
                    k += 1;
                    for nb in tris[t as usize].adj {
                        if region[nb as usize] == old {
                            region[nb as usize] = rid;
                            kept.push(nb);
                        }
                    }
                }
                for &t in &members {
                    if region[t as usize] == old {
                        region[t as usize] = NONE;
                    }
                }
                members = kept;
            }
            match ring {
                Some(ring) => faces.push(Face { ring, normal: seed.normal, merged: members.len() > 1 }),
                // Not expected (a lone triangle is a convex loop): keep the
                // triangles as they are.
                None => faces.extend(members.iter().map(|&t| {
                    let t = &tris[t as usize];
                    Face { ring: t.v.to_vec(), normal: t.normal, merged: false }
                })),
            }
        }
        if settled_all {
            break;
        }
    }
    faces
}

const NONE: u32 = u32::MAX;

/// The boundary of region `rid` (the triangles `members`) as one simple
/// loop, convex within `tol` about `normal`; or the vertices that prevent it
/// (where the boundary touches itself, lies off the first loop, or turns
/// inwards by more than `tol`).
fn boundary_loop(
    pts: &[V3],
    tris: &[Tri],
    members: &[u32],
    region: &[u32],
    rid: u32,
    normal: &V3,
    tol: f64,
) -> Result<Vec<u32>, Vec<u32>> {
    let mut next_of: HashMap<u32, u32> = HashMap::new();
    let mut bad = Vec::new();
    let mut first = None;
    for &t in members {
        let tt = &tris[t as usize];
        for i in 0..3 {
            if region[tt.adj[i] as usize] != rid {
                first = first.or(Some(tt.v[i]));
                if next_of.insert(tt.v[i], tt.v[(i + 1) % 3]).is_some() {
                    bad.push(tt.v[i]);
                }
            }
        }
    }
    if !bad.is_empty() {
        return Err(bad);
    }
    let Some(start) = first else { return Err(bad) };
    let mut ring = Vec::with_capacity(next_of.len());
    let mut cur = start;
    for _ in 0..next_of.len() {
        ring.push(cur);
        match next_of.get(&cur) {
            Some(&n) => cur = n,
            None => break,
        }
        if cur == start {
            break;
        }
    }
    if cur != start || ring.len() < 3 {
        return Err(ring);
    }
    if ring.len() != next_of.len() {
        // Several loops (a hole): the other loops' vertices are bad.
        return Err(next_of.keys().copied().filter(|v| !ring.contains(v)).collect());
    }
    let n = ring.len();
    for i in 0..n {
        let (u, v, w) = (pts[ring[(i + n - 1) % n] as usize], pts[ring[i] as usize], pts[ring[(i + 1) % n] as usize]);
        // Height of v over the chord u→w, positive outwards.
        let h = (v - u).cross(&(w - v)).dot(normal);
        if h < -tol * crate::math::norm(&(w - u)) {
            bad.push(ring[i]);
        }
    }
    if bad.is_empty() {
        Ok(ring)
    } else {
        Err(bad)
    }
}

/// Removes from the loops the vertices in the middle of an edge (on just
/// two faces after merging, which makes them collinear with their loop
/// neighbours within the tolerance). Vertices inside a merged face are on no
/// loop already.
fn drop_edge_points(pts: &[V3], faces: &mut [Face]) {
    let mut on_faces: Vec<Vec<u32>> = vec![Vec::new(); pts.len()];
    for (f, face) in faces.iter().enumerate() {
        for &v in &face.ring {
            on_faces[v as usize].push(f as u32);
        }
    }
    for (v, fs) in on_faces.iter().enumerate() {
        if let [f, g] = fs[..] {
            let (f, g) = (f as usize, g as usize);
            if f != g && faces[f].ring.len() > 3 && faces[g].ring.len() > 3 {
                faces[f].ring.retain(|&x| x as usize != v);
                faces[g].ring.retain(|&x| x as usize != v);
            }
        }
    }
}

/// The vertices of merged faces whose edge cone does not contain the
/// polytope within `eta`: for a loop vertex `v` between `p` and `q`, some
/// hull vertex lies more than `eta` above the plane through `p, v, q`.
///
/// Hill climbing stops at a vertex none of whose neighbours is better; it is
/// exact when every vertex's edge cone contains the polytope, and off by at
/// most `eta` here. The faces of the triangulated hull pass by construction
/// (their planes support the hull up to rounding), but a merged face whose
/// vertices are off its plane by a tolerance can tilt the plane of two short
/// loop edges much more (near-duplicate points), so it is checked.
fn bad_cones(pts: &[V3], faces: &[Face], eta: f64) -> Vec<u32> {
    let mut corners: Vec<u32> = faces.iter().flat_map(|f| f.ring.iter().copied()).collect();
    corners.sort_unstable();
    corners.dedup();
    let mut bad = Vec::new();
    for face in faces.iter().filter(|f| f.merged) {
        let n = face.ring.len();
        for i in 0..n {
            let (p, v, q) = (face.ring[(i + n - 1) % n], face.ring[i], face.ring[(i + 1) % n]);
            let (pp, pv, pq) = (pts[p as usize], pts[v as usize], pts[q as usize]);
            let ok = match normalize(&(pv - pp).cross(&(pq - pv))) {
                Some(nl) => {
                    nl.dot(&face.normal) > 0.0 && corners.iter().all(|&u| nl.dot(&(pts[u as usize] - pv)) <= eta)
                }
                None => false,
            };
            if !ok {
                bad.push(v);
            }
        }
    }
    bad
}

/// Re-indexes the corners, builds the adjacencies and converts to `R`.
fn assemble<R: Real>(points: &[Pt3<R>], pts: &[V3], faces: Vec<Face>, tol: Tol) -> Result<OwnedPolytope<R>, HullError> {
    let n = pts.len();
    // Re-index the remaining corners in input order.
    let mut index = vec![u32::MAX; n];
    for face in &faces {
        for &v in &face.ring {
            index[v as usize] = 0;
        }
    }
    let mut source = Vec::new();
    for (v, slot) in index.iter_mut().enumerate() {
        if *slot == 0 {
            *slot = source.len() as u32;
            source.push(v);
        }
    }
    let nv = source.len();
    let nf = faces.len();
    let n_loop: usize = faces.iter().map(|f| f.ring.len()).sum();
    if nv > MAX_VERTICES || nf > MAX_VERTICES || n_loop > u16::MAX as usize {
        return Err(HullError::TooManyVertices);
    }
    let rings: Vec<Vec<u32>> = faces.iter().map(|f| f.ring.iter().map(|&v| index[v as usize]).collect()).collect();

    // Directed edge → (face, position in the face's loop).
    let mut edge_at: HashMap<(u32, u32), (u32, u32)> = HashMap::with_capacity(n_loop);
    let mut out_edge = vec![(u32::MAX, 0u32); nv];
    for (f, ring) in rings.iter().enumerate() {
        for (k, &a) in ring.iter().enumerate() {
            let b = ring[(k + 1) % ring.len()];
            if edge_at.insert((a, b), (f as u32, k as u32)).is_some() {
                return Err(HullError::Numerical);
            }
            out_edge[a as usize] = (f as u32, k as u32);
        }
    }
    let mut face_offsets = Vec::with_capacity(nf + 1);
    let mut face_vertices = Vec::with_capacity(n_loop);
    let mut face_adjacency = Vec::with_capacity(n_loop);
    face_offsets.push(0u16);
    for ring in &rings {
        for (k, &a) in ring.iter().enumerate() {
            let b = ring[(k + 1) % ring.len()];
            let &(g, _) = edge_at.get(&(b, a)).ok_or(HullError::Numerical)?;
            face_vertices.push(a as u16);
            face_adjacency.push(g as u16);
        }
        face_offsets.push(face_vertices.len() as u16);
    }
    // Neighbours of each vertex in rotation order: from the edge v→b of
    // face F, the twin b→v lies in face G, whose next edge v→c leaves v on
    // the far side of G. That walk turns clockwise seen from outside; it is
    // reversed to counter-clockwise.
    let mut vertex_adjacency_offsets = Vec::with_capacity(nv + 1);
    let mut vertex_adjacency = Vec::with_capacity(n_loop);
    vertex_adjacency_offsets.push(0u16);
    for (v, &(f0, k0)) in out_edge.iter().enumerate() {
        let start = vertex_adjacency.len();
        let (mut f, mut k) = (f0 as usize, k0 as usize);
        for step in 0..=n_loop {
            let ring = rings.get(f).ok_or(HullError::Numerical)?;
            let b = ring[(k + 1) % ring.len()];
            if step > 0 && (f, k) == (f0 as usize, k0 as usize) {
                break;
            }
            if step == n_loop {
                return Err(HullError::Numerical);
            }
            vertex_adjacency.push(b as u16);
            let &(g, k2) = edge_at.get(&(b, v as u32)).ok_or(HullError::Numerical)?;
            let len = rings[g as usize].len();
            (f, k) = (g as usize, (k2 as usize + 1) % len);
        }
        vertex_adjacency[start..].reverse();
        if vertex_adjacency.len() > u16::MAX as usize {
            return Err(HullError::TooManyVertices);
        }
        vertex_adjacency_offsets.push(vertex_adjacency.len() as u16);
    }

    let vertices: Vec<Pt3<R>> = source.iter().map(|&i| points[i]).collect();
    let exact: Vec<V3> = source.iter().map(|&i| pts[i]).collect();
    let mut planes = Vec::with_capacity(nf);
    for (face, ring) in faces.iter().zip(&rings) {
        // Round the normal first, then place the plane through the highest
        // loop vertex along the rounded normal.
        let normal = face.normal.map(R::lit);
        let nf64 = normal.map(|c| c.to_f64());
        let offset = ring.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(nf64.dot(&exact[v as usize])));
        planes.push(Plane { normal, offset: R::lit(offset) });
    }
    Ok(OwnedPolytope {
        vertices,
        vertex_adjacency_offsets,
        vertex_adjacency,
        faces: planes,
        face_offsets,
        face_vertices,
        face_adjacency,
        source,
        tolerance: R::lit(tol.resolution + 8.0 * tol.plane),
    })
}
