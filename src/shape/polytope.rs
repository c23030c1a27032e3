//! Convex polytope over borrowed, validated data, with a hill-climbing support
//! map on the vertex adjacency graph (GJK paper §4.1).
//!
//! # Why borrowed slices
//! Firmware keeps the geometry in flash as `const`/`static` arrays produced on
//! the host (by [`crate::hull`] under the `std` feature, or any other tool).
//! [`Polytope`] is a validated *view* over those arrays: no copy, no
//! allocation, and the capacity is whatever the arrays hold — up to
//! [`MAX_VERTICES`] vertices (indices are `u16`). Validation runs once at
//! construction, `O(V·F)`, and every later access is total (no index can be
//! out of range, and the code still uses checked access so no panic path is
//! linked).
//!
//! # Layout
//! - `vertices[i]`;
//! - vertex adjacency in CSR form: the neighbours of vertex `i` are
//!   `vertex_adjacency[vertex_adjacency_offsets[i] .. vertex_adjacency_offsets[i+1]]`;
//! - `faces[f]`: the outward plane `n·x = d` (`|n| = 1`, inside is `n·x ≤ d`);
//! - face loops in CSR form, counter-clockwise seen from outside:
//!   `face_vertices[face_offsets[f] .. face_offsets[f+1]]`;
//! - face adjacency aligned with the loops: `face_adjacency[k]` is the face on
//!   the other side of the edge `face_vertices[k] → next vertex of the loop`.

use super::{Attitude, Bounded, SupportMap, SupportWarmStart};
use crate::error::PolytopeError;
use crate::error::ShapeError;
use crate::math::{max, max_abs, norm, Pt3, Real, Vec3};

/// Largest vertex (and face) count: indices are `u16`.
pub const MAX_VERTICES: usize = u16::MAX as usize;

/// From this many vertices on, [`Polytope::support`] climbs the adjacency
/// graph instead of scanning every vertex. A cold hint starts from a stored
/// vertex of the direction's sector, so even cold climbs take a few steps:
/// inside GJK on 50-point protocol hulls climbing took a third fewer
/// instructions than the scan and 2–10 % less time (x86-64,
/// docs/benchmarks.md); coal switches at the same 32 vertices.
pub const HILL_CLIMB_MIN_VERTICES: usize = 32;

/// Relative tolerance of the convexity and planarity checks, as a multiple of
/// the polytope's size (largest vertex distance from the vertex mean).
pub const CONVEXITY_TOLERANCE: f64 = 1.0e-4;

/// An outward face plane `normal · x = offset`, `|normal| = 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Plane<R: Real> {
    /// Unit outward normal.
    pub normal: Vec3<R>,
    /// Signed distance of the plane from the origin along the normal.
    pub offset: R,
}

/// The arrays describing a convex polytope (see the module docs for the layout).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PolytopeData<'a, R: Real> {
    /// Vertex positions.
    pub vertices: &'a [Pt3<R>],
    /// CSR offsets into `vertex_adjacency`, length `vertices.len() + 1`.
    pub vertex_adjacency_offsets: &'a [u16],
    /// Neighbour vertex indices.
    pub vertex_adjacency: &'a [u16],
    /// Outward face planes.
    pub faces: &'a [Plane<R>],
    /// CSR offsets into `face_vertices` (and `face_adjacency`), length
    /// `faces.len() + 1`.
    pub face_offsets: &'a [u16],
    /// Face loops, counter-clockwise seen from outside.
    pub face_vertices: &'a [u16],
    /// The face across each loop edge, aligned with `face_vertices`.
    pub face_adjacency: &'a [u16],
}

/// A validated convex polytope (a view over [`PolytopeData`]).
///
/// Support queries take a caller-owned [`SupportWarmStart`] (the last support
/// vertex); from [`HILL_CLIMB_MIN_VERTICES`] vertices on they climb the vertex
/// graph from it, which costs a few dot products when the direction moved
/// little since the last query. A cold hint ([`SupportWarmStart::COLD`],
/// which GJK also passes after its search direction turned far) starts the
/// climb from a vertex stored at construction for the direction's sector
/// (one of 26 around the axes and diagonals, at most about 35° wide): its
/// support vertex, so the first query of a large polytope and GJK's first
/// turns climb a few steps, not across it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Polytope<'a, R: Real> {
    data: PolytopeData<'a, R>,
    center: Pt3<R>,
    radius: R,
    /// The support vertex of each sector's direction ([`sector`]).
    seeds: [u16; SECTORS],
}

/// Direction sectors of the cold-start table: each coordinate of a
/// direction is negative, small or positive (small: under half the largest
/// coordinate's magnitude), 3³ cells; the middle one only holds zero and
/// NaN directions.
const SECTORS: usize = 27;

/// The sector of `dir` (0..27): coordinate `k` contributes `3^k` times 0
/// (negative), 1 (small) or 2 (positive). Within a sector `dir` is at most
/// about 35° from the sector's direction (the signs, small ones as 0).
#[inline(always)]
fn sector<R: Real>(dir: &Vec3<R>) -> usize {
    let (ax, ay, az) = (dir.x.abs_(), dir.y.abs_(), dir.z.abs_());
    let half = max_abs(dir) * R::HALF;
    // NaN fails `a >= half`: the middle cell.
    let digit = |c: R, a: R| {
        if !(a >= half) {
            1
        } else if c > R::ZERO {
            2
        } else {
            0
        }
    };
    digit(dir.x, ax) + 3 * digit(dir.y, ay) + 9 * digit(dir.z, az)
}

/// The direction of sector `k` (its digits minus one).
fn sector_direction<R: Real>(k: usize) -> Vec3<R> {
    let digit = |d: usize| R::lit(((k / d) % 3) as f64 - 1.0);
    Vec3::new(digit(1), digit(3), digit(9))
}

#[inline(always)]
fn range(offsets: &[u16], i: usize) -> core::ops::Range<usize> {
    let lo = offsets.get(i).copied().unwrap_or(0) as usize;
    let hi = offsets.get(i + 1).copied().unwrap_or(0) as usize;
    lo..hi.max(lo)
}

#[inline(always)]
fn slice<'a>(items: &'a [u16], offsets: &[u16], i: usize) -> &'a [u16] {
    items.get(range(offsets, i)).unwrap_or(&[])
}

impl<'a, R: Real> Polytope<'a, R> {
    /// Validate `data` and wrap it (`O(V·F)`, once; every later access is
    /// total).
    ///
    /// # Errors
    ///
    /// [`ShapeError::Polytope`] with the first check that failed:
    /// - [`PolytopeError::BadCount`]: fewer than 4 vertices or faces, or more
    ///   than [`MAX_VERTICES`];
    /// - [`PolytopeError::BadIndex`]: an offsets array of the wrong length, not
    ///   starting at 0, decreasing or not ending at its array's length, or an
    ///   index out of range;
    /// - [`PolytopeError::NonFinite`]: a NaN or infinite vertex or plane;
    /// - [`PolytopeError::DuplicateVertex`]: two vertices closer than the
    ///   tolerance ([`CONVEXITY_TOLERANCE`] times the size, at least the
    ///   coordinates' rounding), or all of them coincide;
    /// - [`PolytopeError::BadNormal`]: a face normal whose squared length is
    ///   more than `1e-3` from 1;
    /// - [`PolytopeError::BadFace`]: a loop of fewer than 3 vertices, with a
    ///   vertex off its plane or repeated, or running clockwise seen from
    ///   outside;
    /// - [`PolytopeError::NotConvex`]: a vertex outside a face plane by more
    ///   than the tolerance;
    /// - [`PolytopeError::NotClosed`], [`PolytopeError::BadFaceAdjacency`],
    ///   [`PolytopeError::BadVertexAdjacency`]: the loops do not form a
    ///   closed, consistently oriented surface of Euler characteristic 2, or
    ///   an adjacency array does not match it;
    /// - [`PolytopeError::NotACorner`]: a vertex that is not a strict corner
    ///   beyond rounding (hill climbing could stop there).
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::shape::{Plane, Polytope, PolytopeData, SupportWarmStart, SupportMap};
    /// use nalgebra::{Point3, Vector3};
    /// // A tetrahedron.
    /// let v = [Point3::new(0.0_f32, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0),
    ///          Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, 0.0, 1.0)];
    /// let k = 1.0 / 3.0_f32.sqrt();
    /// let faces = [
    ///     Plane { normal: -Vector3::z(), offset: 0.0 },          // 0 2 1
    ///     Plane { normal: -Vector3::y(), offset: 0.0 },          // 0 1 3
    ///     Plane { normal: -Vector3::x(), offset: 0.0 },          // 0 3 2
    ///     Plane { normal: Vector3::new(k, k, k), offset: k },    // 1 2 3
    /// ];
    /// let face_offsets = [0u16, 3, 6, 9, 12];
    /// let face_vertices = [0u16, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
    /// let face_adjacency = [2u16, 3, 1, 0, 3, 2, 1, 3, 0, 0, 2, 1];
    /// let adj_offsets = [0u16, 3, 6, 9, 12];
    /// let adj = [1u16, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2];
    /// let p = Polytope::new(narrowphase::shape::PolytopeData {
    ///     vertices: &v, vertex_adjacency_offsets: &adj_offsets, vertex_adjacency: &adj,
    ///     faces: &faces, face_offsets: &face_offsets, face_vertices: &face_vertices,
    ///     face_adjacency: &face_adjacency,
    /// }).unwrap();
    /// let mut hint = SupportWarmStart::default();
    /// assert_eq!(p.support_hinted(&Vector3::new(0.1, 0.2, 1.0), &mut hint), v[3]);
    /// assert_eq!(hint, SupportWarmStart(3));
    ///
    /// // The same arrays with a vertex left out are refused.
    /// use narrowphase::error::{PolytopeError, ShapeError};
    /// let few = narrowphase::shape::PolytopeData { vertices: &v[..3], ..*p.data() };
    /// assert_eq!(Polytope::new(few), Err(ShapeError::Polytope(PolytopeError::BadCount)));
    /// ```
    pub fn new(data: PolytopeData<'a, R>) -> Result<Self, ShapeError> {
        validate(&data).map_err(ShapeError::Polytope)?;
        let (center, radius) = centre_and_radius(data.vertices);
        let mut p = Self { data, center, radius, seeds: [0; SECTORS] };
        // At most `MAX_VERTICES` vertices (validated): every index fits.
        p.seeds = core::array::from_fn(|k| u16::try_from(p.support_index_scan(&sector_direction(k))).unwrap_or(0));
        Ok(p)
    }

    /// The data this polytope views.
    pub fn data(&self) -> &PolytopeData<'a, R> {
        &self.data
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.data.vertices.len()
    }

    /// Neighbours of vertex `i` (empty for an out-of-range `i`).
    pub fn neighbours(&self, i: usize) -> &'a [u16] {
        slice(self.data.vertex_adjacency, self.data.vertex_adjacency_offsets, i)
    }

    /// Vertex loop of face `f` (empty for an out-of-range `f`).
    pub fn face_loop(&self, f: usize) -> &'a [u16] {
        slice(self.data.face_vertices, self.data.face_offsets, f)
    }

    /// Faces across the edges of face `f`, aligned with [`face_loop`](Self::face_loop).
    pub fn face_neighbours(&self, f: usize) -> &'a [u16] {
        slice(self.data.face_adjacency, self.data.face_offsets, f)
    }

    /// Support vertex by scanning every vertex. Returns its index.
    #[inline]
    pub fn support_index_scan(&self, dir: &Vec3<R>) -> usize {
        let mut best = 0;
        let mut best_dot = -R::INFINITY;
        for (i, p) in self.data.vertices.iter().enumerate() {
            let d = dir.dot(&p.coords);
            if d > best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    /// Support vertex by hill climbing on the vertex graph, starting at
    /// `start`, or with an out-of-range `start` (as
    /// [`SupportWarmStart::COLD`]) at the stored support vertex of `dir`'s
    /// sector. Returns its index.
    ///
    /// Each step moves to the first strictly better neighbour found, not
    /// the best one: more, shorter steps, which read fewer neighbours in
    /// all (x86, `f64`: a GJK query on hulls of 50 to 1000 points runs
    /// 4–8 % fewer instructions than with steepest ascent). Strict ascent
    /// cannot cycle, and the walk ends after at most `V` steps (also
    /// enforced as a cap).
    /// On a convex polytope whose vertices are all corners (validated:
    /// [`PolytopeError::NotACorner`]) a vertex with no strictly better
    /// neighbour is a global maximiser (the edge cone at a corner contains
    /// the polytope), so flat plateaus need no visited set: they simply stop
    /// the walk at a vertex that is already optimal. Within the convexity
    /// tolerance the answer is optimal up to that tolerance.
    #[inline]
    pub fn support_index_climb(&self, dir: &Vec3<R>, start: usize) -> usize {
        let verts = self.data.vertices;
        let mut cur = if start < verts.len() { start } else { self.seeds.get(sector(dir)).map_or(0, |&s| s as usize) };
        let mut best_dot = match verts.get(cur) {
            Some(p) => dir.dot(&p.coords),
            None => return 0,
        };
        for _ in 0..verts.len() {
            let mut next = cur;
            for &j in self.neighbours(cur) {
                if let Some(p) = verts.get(j as usize) {
                    let d = dir.dot(&p.coords);
                    if d > best_dot {
                        best_dot = d;
                        next = j as usize;
                        break;
                    }
                }
            }
            if next == cur {
                break;
            }
            cur = next;
        }
        cur
    }

    #[inline(always)]
    fn vertex(&self, i: usize) -> Pt3<R> {
        self.data.vertices.get(i).copied().unwrap_or(self.center)
    }
}

impl<R: Real> SupportMap<R> for Polytope<'_, R> {
    #[inline]
    fn attitude(&self) -> Attitude<R> {
        Attitude::Unturned
    }
    #[inline]
    fn support(&self, dir: &Vec3<R>) -> Pt3<R> {
        self.support_hinted(dir, &mut SupportWarmStart::default())
    }
    #[inline]
    fn support_hinted(&self, dir: &Vec3<R>, hint: &mut SupportWarmStart) -> Pt3<R> {
        let i = if self.data.vertices.len() < HILL_CLIMB_MIN_VERTICES {
            self.support_index_scan(dir)
        } else {
            self.support_index_climb(dir, hint.0 as usize)
        };
        hint.0 = i as u32;
        self.vertex(i)
    }
    fn center(&self) -> Pt3<R> {
        self.center
    }
    #[inline]
    fn climbs(&self) -> bool {
        self.data.vertices.len() >= HILL_CLIMB_MIN_VERTICES
    }
}

impl<R: Real> Bounded<R> for Polytope<'_, R> {
    fn bounding_sphere(&self) -> (Pt3<R>, R) {
        (self.center, self.radius)
    }
}

/// Vertex mean and the largest distance from it.
fn centre_and_radius<R: Real>(vertices: &[Pt3<R>]) -> (Pt3<R>, R) {
    let mut sum = Vec3::zeros();
    for p in vertices {
        sum += p.coords;
    }
    let n = R::lit(vertices.len().max(1) as f64);
    let c = Pt3::from(sum / n);
    let r = vertices.iter().fold(R::ZERO, |r, p| max(r, norm(&(p - c))));
    (c, r)
}

fn check_offsets(offsets: &[u16], count: usize, items: usize) -> Result<(), PolytopeError> {
    if offsets.len() != count + 1 || offsets.first() != Some(&0) {
        return Err(PolytopeError::BadIndex);
    }
    if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last().map(|&x| x as usize) != Some(items) {
        return Err(PolytopeError::BadIndex);
    }
    Ok(())
}

/// The directed loop edges of face `f` as `(from, to, k)` with `k` the index
/// into `face_vertices`/`face_adjacency`.
fn loop_edges<'d>(data: &'d PolytopeData<'_, impl Real>, f: usize) -> impl Iterator<Item = (usize, usize, usize)> + 'd {
    let r = range(data.face_offsets, f);
    let len = r.len();
    let start = r.start;
    (0..len).map(move |i| {
        let k = start + i;
        // Not `(i + 1) % len`: the closure cannot see that `len > 0` when it
        // runs, so the remainder kept a division-by-zero panic in release.
        let k_next = start + if i + 1 < len { i + 1 } else { 0 };
        let a = data.face_vertices.get(k).copied().unwrap_or(0) as usize;
        let b = data.face_vertices.get(k_next).copied().unwrap_or(0) as usize;
        (a, b, k)
    })
}

/// Each loop must turn counter-clockwise around its outward normal: its
/// Newell normal (twice the signed area vector) points along the plane normal.
fn check_orientation<R: Real>(data: &PolytopeData<'_, R>) -> Result<(), PolytopeError> {
    for (f, plane) in data.faces.iter().enumerate() {
        // Relative to the loop's first vertex: far from the origin the
        // absolute cross products would cancel.
        let first = slice(data.face_vertices, data.face_offsets, f).first().copied().unwrap_or(0) as usize;
        let origin = data.vertices.get(first).ok_or(PolytopeError::BadIndex)?;
        let mut area = Vec3::zeros();
        for (a, b, _) in loop_edges(data, f) {
            let (pa, pb) = match (data.vertices.get(a), data.vertices.get(b)) {
                (Some(pa), Some(pb)) => (pa - origin, pb - origin),
                _ => return Err(PolytopeError::BadIndex),
            };
            area += pa.cross(&pb);
        }
        if !(area.dot(&plane.normal) > R::ZERO) {
            return Err(PolytopeError::BadFace);
        }
    }
    Ok(())
}

/// Every vertex must be a strict corner, certified beyond rounding: for each
/// neighbour `u` (along the edge `v → u`), the incident faces of `v` that do
/// not hold that edge must put `v` strictly above `u`,
/// `Σ n_f · (v − u) > 16ε·|Σ n_f|·|v − u|`. A vertex inside a face or on an
/// edge fails (no face lies off its in-face edges), and so does a vertex that
/// is reflex by any amount, however small against the convexity tolerance:
/// hill climbing stops at a vertex with no strictly better neighbour, and at
/// a reflex vertex of a nearly flat corner that stop can be wrong by the
/// polytope's whole size (a hull vertex reflex by only 1.5e-47 can do that). The
/// faces holding the edge are left out of the sum because their planes
/// contain `u` only up to the convexity tolerance.
fn check_corners<R: Real>(data: &PolytopeData<'_, R>) -> Result<(), PolytopeError> {
    for v in 0..data.vertices.len() {
        if !is_strict_corner(data, v) {
            return Err(PolytopeError::NotACorner);
        }
    }
    Ok(())
}

/// The test of [`check_corners`] for one vertex (also used by the hull
/// builder, which drops the vertices that fail it and builds again). Runs
/// after the closure checks: it walks the faces around `v` through the face
/// adjacency, `O(F·L)` to find the first one and `O(degree·L)` after.
pub(crate) fn is_strict_corner<R: Real>(data: &PolytopeData<'_, R>, v: usize) -> bool {
    let (Some(pv), Ok(v16)) = (data.vertices.get(v), u16::try_from(v)) else { return false };
    let degree = slice(data.vertex_adjacency, data.vertex_adjacency_offsets, v).len();
    let Some(first) = (0..data.faces.len()).find(|&f| slice(data.face_vertices, data.face_offsets, f).contains(&v16))
    else {
        return false;
    };
    let normal = |f: usize| data.faces.get(f).map_or(Vec3::zeros(), |p| p.normal);
    // The normals of all faces around v, and of the last one walked.
    let (mut total, mut last) = (Vec3::zeros(), Vec3::zeros());
    if faces_around(data, v16, first, degree, |f, _| {
        total += normal(f);
        last = normal(f);
        true
    }) != Some(degree)
    {
        return false;
    }
    // The edge v → a is held by the face walked then and the one before.
    let rounding = R::EPSILON * R::lit(16.0);
    let mut before = last;
    faces_around(data, v16, first, degree, |f, a| {
        let away = total - normal(f) - before;
        before = normal(f);
        let Some(pa) = data.vertices.get(a) else { return false };
        let edge = pv - pa;
        away.dot(&edge) > rounding * norm(&away) * norm(&edge)
    }) == Some(degree)
}

/// Walks the faces around vertex `v` from face `first`: calls `visit(face,
/// a)` with `a` the vertex after `v` in that face's loop, then crosses the
/// edge into `v` to the next face. Stops when `visit` says `false` or the
/// walk is back at `first`; returns the number of faces visited when it got
/// back within `cap` steps, `None` otherwise.
fn faces_around<R: Real>(
    data: &PolytopeData<'_, R>,
    v: u16,
    first: usize,
    cap: usize,
    mut visit: impl FnMut(usize, usize) -> bool,
) -> Option<usize> {
    let mut f = first;
    for step in 0..cap {
        let r = range(data.face_offsets, f);
        let (start, len) = (r.start, r.len());
        let lp = data.face_vertices.get(r)?;
        let i = lp.iter().position(|&x| x == v)?;
        let next = *lp.get(if i + 1 < len { i + 1 } else { 0 })?;
        if !visit(f, next as usize) {
            return None;
        }
        // The loop edge prev → v: the face across it continues the walk.
        let k_prev = start + if i > 0 { i - 1 } else { len.saturating_sub(1) };
        f = *data.face_adjacency.get(k_prev)? as usize;
        if f == first {
            return Some(step + 1);
        }
    }
    None
}

fn validate<R: Real>(data: &PolytopeData<'_, R>) -> Result<(), PolytopeError> {
    let nv = data.vertices.len();
    let nf = data.faces.len();
    if nv < 4 || nf < 4 || nv > MAX_VERTICES || nf > MAX_VERTICES {
        return Err(PolytopeError::BadCount);
    }
    check_offsets(data.vertex_adjacency_offsets, nv, data.vertex_adjacency.len())?;
    check_offsets(data.face_offsets, nf, data.face_vertices.len())?;
    if data.face_adjacency.len() != data.face_vertices.len()
        || data.vertex_adjacency.iter().any(|&i| i as usize >= nv)
        || data.face_vertices.iter().any(|&i| i as usize >= nv)
        || data.face_adjacency.iter().any(|&i| i as usize >= nf)
    {
        return Err(PolytopeError::BadIndex);
    }
    if !data.vertices.iter().all(|p| crate::math::finite_vec(&p.coords))
        || !data.faces.iter().all(|p| crate::math::finite_vec(&p.normal) && p.offset.finite())
    {
        return Err(PolytopeError::NonFinite);
    }
    let (_, size) = centre_and_radius(data.vertices);
    // Tolerances relative to the size, and never below the rounding of the
    // coordinates themselves (a small body far from the origin).
    let coord = data.vertices.iter().fold(R::ZERO, |m, p| max(m, crate::math::max_abs(&p.coords)));
    let tol = max(size * R::lit(CONVEXITY_TOLERANCE), coord * R::EPSILON * R::lit(64.0));
    if !(size > R::ZERO) {
        return Err(PolytopeError::DuplicateVertex);
    }
    for (i, p) in data.vertices.iter().enumerate() {
        if data.vertices.iter().skip(i + 1).any(|q| !(norm(&(q - p)) > tol)) {
            return Err(PolytopeError::DuplicateVertex);
        }
    }
    let unit_tol = R::lit(1.0e-3);
    for (f, plane) in data.faces.iter().enumerate() {
        if !((plane.normal.dot(&plane.normal) - R::ONE).abs_() <= unit_tol) {
            return Err(PolytopeError::BadNormal);
        }
        if range(data.face_offsets, f).len() < 3 {
            return Err(PolytopeError::BadFace);
        }
        let off_plane = |p: &Pt3<R>| plane.normal.dot(&p.coords) - plane.offset;
        for &i in slice(data.face_vertices, data.face_offsets, f) {
            let p = data.vertices.get(i as usize).ok_or(PolytopeError::BadIndex)?;
            if !(off_plane(p).abs_() <= tol) {
                return Err(PolytopeError::BadFace);
            }
        }
        if data.vertices.iter().any(|p| !(off_plane(p) <= tol)) {
            return Err(PolytopeError::NotConvex);
        }
    }
    // Closed and consistently oriented: the face across each directed loop
    // edge a→b (named by the face adjacency) holds the twin b→a, and names
    // this face back across it. With no vertex repeated in a loop, the Euler
    // check below and the adjacency count rule out doubly covered surfaces.
    let mut directed_edges = 0usize;
    for f in 0..nf {
        let lp = slice(data.face_vertices, data.face_offsets, f);
        for (k, &a) in lp.iter().enumerate() {
            if lp.iter().skip(k + 1).any(|&b| b == a) {
                return Err(PolytopeError::BadFace);
            }
        }
        for (a, b, k) in loop_edges(data, f) {
            directed_edges += 1;
            let g = data.face_adjacency.get(k).map_or(usize::MAX, |&x| x as usize);
            if g == f {
                return Err(PolytopeError::BadFaceAdjacency);
            }
            match loop_edges(data, g).find(|e| e.0 == b && e.1 == a) {
                None => return Err(PolytopeError::NotClosed),
                Some((_, _, k2)) => {
                    if data.face_adjacency.get(k2).map(|&x| x as usize) != Some(f) {
                        return Err(PolytopeError::BadFaceAdjacency);
                    }
                }
            }
            // The vertex graph must hold this edge.
            if !slice(data.vertex_adjacency, data.vertex_adjacency_offsets, a).contains(&(b as u16)) {
                return Err(PolytopeError::BadVertexAdjacency);
            }
        }
    }
    // ... and nothing else: as many adjacency entries as directed edges, each
    // distinct (a twin-edge check above covers symmetry).
    if data.vertex_adjacency.len() != directed_edges {
        return Err(PolytopeError::BadVertexAdjacency);
    }
    for i in 0..nv {
        let n = slice(data.vertex_adjacency, data.vertex_adjacency_offsets, i);
        for (k, &j) in n.iter().enumerate() {
            if j as usize == i || n.iter().skip(k + 1).any(|&m| m == j) {
                return Err(PolytopeError::BadVertexAdjacency);
            }
        }
    }
    check_orientation(data)?;
    check_corners(data)?;
    // Euler: V − E + F = 2 (E = directed / 2).
    if nv + nf != directed_edges / 2 + 2 {
        return Err(PolytopeError::NotClosed);
    }
    Ok(())
}
