//! The GJK simplex (1 to 4 CSO points) and its distance subalgorithm: the
//! point of the simplex closest to the origin, in barycentric form, and the
//! smallest sub-simplex that supports it (GJK paper §2).
//!
//! The case analysis follows the Voronoi regions of the vertices, edges and
//! faces (as in Ericson, *Real-Time Collision Detection* §5.1). Degenerate
//! simplices (a flat triangle, a flat tetrahedron) never divide by zero: a
//! flat triangle is answered by its edges, a flat tetrahedron by its faces.

use crate::math::{Real, Vec3};
use crate::shape::CsoPoint;

/// A GJK simplex: up to four CSO points with the barycentric weights of the
/// closest point to the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Simplex<R: Real> {
    pts: [CsoPoint<R>; 4],
    bary: [R; 4],
    /// The closest point, computed directly (not from the weights) where
    /// that is more accurate: see [`Simplex::reduce`].
    closest: Vec3<R>,
    len: u8,
    /// Which of four records a caller keeps per point each point has: a
    /// permutation of 0..4 moved with the points, so that the slot of the
    /// point pushed next holds a record no kept point uses (GJK's warm
    /// start keeps each point's support directions there).
    tags: [u8; 4],
}

impl<R: Real> Simplex<R> {
    /// The one-point simplex `{p}`.
    pub fn one(p: CsoPoint<R>) -> Self {
        Self { pts: [p; 4], bary: [R::ONE, R::ZERO, R::ZERO, R::ZERO], closest: p.w, len: 1, tags: [0, 1, 2, 3] }
    }

    /// The tetrahedron `pts` around the origin, `bary` the origin's
    /// barycentric weights in it (known to the caller in closed form).
    #[inline(always)]
    pub(crate) fn around_origin(pts: [CsoPoint<R>; 4], bary: [R; 4]) -> Self {
        Self { pts, bary, closest: Vec3::zeros(), len: 4, tags: [0, 1, 2, 3] }
    }

    /// The points (1 to 4).
    pub fn points(&self) -> &[CsoPoint<R>] {
        self.pts.get(..self.len as usize).unwrap_or(&[])
    }

    /// Barycentric weights of the closest point, aligned with [`points`](Self::points).
    pub fn weights(&self) -> &[R] {
        self.bary.get(..self.len as usize).unwrap_or(&[])
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Never empty; for clippy's sake.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `true` when `w` is (bitwise) one of the points already.
    pub fn contains(&self, w: &Vec3<R>) -> bool {
        self.points().iter().any(|p| p.w == *w)
    }

    /// The point of the simplex closest to the origin (`Σ λᵢ wᵢ` up to
    /// rounding; zero when the origin is enclosed).
    pub fn closest(&self) -> Vec3<R> {
        self.closest
    }

    /// `(Σ λᵢ aᵢ, Σ λᵢ bᵢ)`: the witness points on A and B.
    pub fn witnesses(&self) -> (Vec3<R>, Vec3<R>) {
        (self.combine(|p| p.a.coords), self.combine(|p| p.b.coords))
    }

    fn combine(&self, f: impl Fn(&CsoPoint<R>) -> Vec3<R>) -> Vec3<R> {
        self.points().iter().zip(self.weights()).fold(Vec3::zeros(), |s, (p, &l)| s + f(p) * l)
    }

    /// Moves the simplex's body points by `offset` (a change of
    /// frame): the CSO points `w = a − b`, computed where they were
    /// accurate, are kept as they are.
    pub(crate) fn move_by(&mut self, offset: &Vec3<R>) {
        for p in self.pts.iter_mut() {
            p.a += offset;
            p.b += offset;
        }
    }

    /// The record tag of point `k` (see `tags`), and of the point pushed
    /// next at `k = len`.
    #[inline]
    pub(crate) fn tag(&self, k: usize) -> usize {
        usize::from(self.tags.get(k).copied().unwrap_or(0) & 3)
    }

    /// Append `p` (when there is room; a full simplex is left unchanged).
    pub fn push(&mut self, p: CsoPoint<R>) {
        if let Some(slot) = self.pts.get_mut(self.len as usize) {
            *slot = p;
            self.len += 1;
        }
    }

    /// Replace the simplex by the smallest sub-simplex supporting its point
    /// closest to the origin, and set the weights. Returns `true` when the
    /// origin lies inside a full-volume tetrahedron (the simplex then keeps
    /// its four points and the closest point is the origin).
    ///
    /// When the closest point is inside a triangle it is computed as the
    /// projection of the origin on the triangle's plane, `n (n·a) / |n|²`:
    /// its *direction* is then accurate to rounding even when the origin is
    /// very close to a large face, where `Σ λᵢ wᵢ` loses the direction to
    /// cancellation (that matters: GJK's lower bound uses the direction).
    pub fn reduce(&mut self) -> bool {
        self.reduce_by(false, R::INFINITY)
    }

    /// [`reduce`](Self::reduce) when the point pushed last is known to
    /// belong to the answer: GJK's step, whose new point `w` lies strictly
    /// beyond the support plane of the previous closest point `v`
    /// (`v·w < v·v`), so that the closest point of the grown simplex moves
    /// towards it. Only the regions that contain that point are examined
    /// (a vertex, two edges and a face of a triangle; three faces of a
    /// tetrahedron). The answer is a convex combination of the points either
    /// way; where the tests find no region with the point (rounding, a flat
    /// simplex), or answer a point farther than the previous closest point
    /// (cancellation; `previous` is its squared length, which GJK has at
    /// hand), the general case answers.
    pub(crate) fn reduce_newest(&mut self, previous: R) -> bool {
        self.reduce_by(true, previous)
    }

    #[inline(always)]
    fn reduce_by(&mut self, newest: bool, previous: R) -> bool {
        let w = &self.pts;
        let sub = match self.len {
            1 => Sub::vertex(w, 0),
            2 => segment(w, 0, 1),
            3 if newest => checked(triangle_newest(w, 0, 1, 2), previous, &|| triangle(w, 0, 1, 2)),
            3 => triangle(w, 0, 1, 2),
            // `w₃` as scalars: see `tetrahedron`.
            _ => return self.reduce_tetrahedron(newest, previous, w[3].w.x, w[3].w.y, w[3].w.z),
        };
        self.keep(sub);
        false
    }

    /// [`reduce_by`](Self::reduce_by) on a tetrahedron, out of line, its
    /// sub-simplex kept here: returned to GJK's loop instead, the 80-byte
    /// `Sub` went through memory, and x86 read its point back in other
    /// pairs of coordinates than its copy had stored, a stall on every
    /// step. Inlined into the loop, the tetrahedron made it slower still.
    #[inline(never)]
    fn reduce_tetrahedron(&mut self, newest: bool, previous: R, x: R, y: R, z: R) -> bool {
        let w = &self.pts;
        let sub = match tetrahedron(w, newest, x, y, z) {
            Tetrahedron::Outside(s) if newest => checked(s, previous, &|| {
                match tetrahedron_general(w) {
                    Tetrahedron::Outside(g) => g,
                    // Enclosed by the general tests' signs but not the
                    // newest ones': left to the next iteration.
                    Tetrahedron::Inside(_) => s,
                }
            }),
            Tetrahedron::Outside(s) => s,
            Tetrahedron::Inside(weights) => {
                // Origin enclosed: weights by signed volumes.
                self.bary = weights;
                self.closest = Vec3::zeros();
                return true;
            }
        };
        self.keep(sub);
        false
    }

    /// Keeps the sub-simplex `sub` of this one: its points, weights and
    /// closest point.
    #[inline(always)]
    fn keep(&mut self, sub: Sub<R>) {
        // Keep the supporting points, in place: `sub.idx` increases, so
        // moving point `idx[k]` to slot `k` in order never overwrites a point
        // still to be moved (no copy of the whole simplex).
        let [i0, i1, i2] = sub.idx.map(usize::from);
        // The tags are swapped, not copied: they stay a permutation.
        if i0 != 0 {
            self.pts[0] = self.pts[i0 & 3];
            self.tags.swap(0, i0 & 3);
        }
        if sub.n > 1 && i1 != 1 {
            self.pts[1] = self.pts[i1 & 3];
            self.tags.swap(1, i1 & 3);
        }
        if sub.n > 2 && i2 != 2 {
            self.pts[2] = self.pts[i2 & 3];
            self.tags.swap(2, i2 & 3);
        }
        self.bary = [sub.lambda[0], sub.lambda[1], sub.lambda[2], R::ZERO];
        self.len = sub.n;
        let combined = sub.point;
        // The plane projection has the more accurate direction, but it is
        // only trusted where it agrees with the convex combination (which
        // is inside the triangle by construction) to rounding: a sliver
        // triangle's normal can be noise, and its "projection" anywhere.
        self.closest = if sub.n == 3 {
            let proj = sub.plane;
            // The face's points, moved to the first three slots.
            let (a, b, c) = (self.pts[0].w, self.pts[1].w, self.pts[2].w);
            let size = crate::math::max(a.norm_squared(), crate::math::max(b.norm_squared(), c.norm_squared()));
            let slack = size * R::EPSILON * R::EPSILON * R::lit(4096.0);
            if (proj - combined).norm_squared() <= slack {
                proj
            } else {
                combined
            }
        } else {
            combined
        };
    }
}

/// The newest point's region tests subtract large, nearly equal products;
/// on a sliver triangle far from the origin (f32, coordinates near 3e5)
/// they cancel and can pick an edge whose closest point is an old vertex,
/// farther than the previous closest point (squared length `previous`),
/// which the grown simplex still holds. Such an answer breaks the tests'
/// own premise: the general tests answer too, and the shorter of the two
/// is kept (both are points of the simplex).
#[inline(always)]
fn checked<R: Real>(s: Sub<R>, previous: R, general: &dyn Fn() -> Sub<R>) -> Sub<R> {
    if s.point.norm_squared() <= previous {
        s
    } else {
        shorter(s, general())
    }
}

/// A sub-simplex: indices into the parent (increasing), barycentric
/// weights and the point `Σ λᵢ wᵢ` they give (computed once, where the
/// weights are: the tetrahedron compares its faces by it and the simplex
/// keeps it); for a face, also the origin's projection on its plane.
#[derive(Clone, Copy)]
struct Sub<R: Real> {
    idx: [u8; 3],
    n: u8,
    lambda: [R; 3],
    point: Vec3<R>,
    /// The origin's projection on the face's plane (a face only; `point`
    /// otherwise).
    plane: Vec3<R>,
}

impl<R: Real> Sub<R> {
    fn vertex(w: &[CsoPoint<R>; 4], i: usize) -> Self {
        let point = w[i & 3].w;
        Sub { idx: [(i & 3) as u8, 0, 0], n: 1, lambda: [R::ONE, R::ZERO, R::ZERO], point, plane: point }
    }
    fn edge(w: &[CsoPoint<R>; 4], i: usize, j: usize, t: R) -> Self {
        let (i, j) = (i & 3, j & 3);
        let l = [R::ONE - t, t, R::ZERO];
        let point = w[i].w * l[0] + w[j].w * l[1];
        Sub { idx: [i as u8, j as u8, 0], n: 2, lambda: l, point, plane: point }
    }
    fn face(w: &[CsoPoint<R>; 4], [i, j, k]: [usize; 3], l: [R; 3], plane: Vec3<R>) -> Self {
        let (i, j, k) = (i & 3, j & 3, k & 3);
        Sub {
            idx: [i as u8, j as u8, k as u8],
            n: 3,
            lambda: l,
            point: w[i].w * l[0] + w[j].w * l[1] + w[k].w * l[2],
            plane,
        }
    }
}

fn segment<R: Real>(w: &[CsoPoint<R>; 4], i: usize, j: usize) -> Sub<R> {
    let (a, b) = (w[i & 3].w, w[j & 3].w);
    let ab = b - a;
    let t_num = -a.dot(&ab);
    if !(t_num > R::ZERO) {
        return Sub::vertex(w, i);
    }
    let den = ab.dot(&ab);
    if !(t_num < den) {
        return Sub::vertex(w, j);
    }
    let t = t_num / den;
    Sub::edge(w, i, j, t)
}

/// The first test of a triangle's regions, at its vertex `a`: the edges
/// `ab`, `ac` and `d₁ = −ab·a`, `d₂ = −ac·a`, or `None` when the origin
/// lies in `a`'s own region (both non-positive).
#[inline(always)]
fn from_vertex<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Option<(Vec3<R>, Vec3<R>, R, R)> {
    let (ab, ac) = (b - a, c - a);
    let (d1, d2) = (-ab.dot(a), -ac.dot(a));
    if d1 <= R::ZERO && d2 <= R::ZERO {
        None
    } else {
        Some((ab, ac, d1, d2))
    }
}

fn triangle<R: Real>(w: &[CsoPoint<R>; 4], i: usize, j: usize, k: usize) -> Sub<R> {
    let (a, b, c) = (w[i & 3].w, w[j & 3].w, w[k & 3].w);
    let Some((ab, ac, d1, d2)) = from_vertex(&a, &b, &c) else {
        return Sub::vertex(w, i);
    };
    let d3 = -ab.dot(&b);
    let d4 = -ac.dot(&b);
    if d3 >= R::ZERO && d4 <= d3 {
        return Sub::vertex(w, j);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= R::ZERO && d1 >= R::ZERO && d3 <= R::ZERO {
        return segment(w, i, j);
    }
    let d5 = -ab.dot(&c);
    let d6 = -ac.dot(&c);
    if d6 >= R::ZERO && d5 <= d6 {
        return Sub::vertex(w, k);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= R::ZERO && d2 >= R::ZERO && d6 <= R::ZERO {
        return segment(w, i, k);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= R::ZERO && d4 - d3 >= R::ZERO && d5 - d6 >= R::ZERO {
        return segment(w, j, k);
    }
    let sum = va + vb + vc;
    if !(sum > R::ZERO) || !sum.finite() {
        // Flat (collinear) triangle or NaN: the closest point is on an edge.
        return best_of(w, [segment(w, i, j), segment(w, i, k), segment(w, j, k)]);
    }
    match face_weights(&a, &b, &c) {
        // The accurate weights confirm the face region.
        Some((l, p)) if l.iter().all(|&x| x >= R::ZERO) => Sub::face(w, [i, j, k], l, p),
        // The region tests and the accurate weights disagree (a sliver
        // triangle within rounding of flat): the closest point is on an edge,
        // up to rounding; never extrapolate outside the triangle.
        _ => best_of(w, [segment(w, i, j), segment(w, i, k), segment(w, j, k)]),
    }
}

/// [`triangle`] when the answer is known to involve `w[k]` (`i < j < k`,
/// see [`Simplex::reduce_newest`]): only the regions of vertex `k`, edges
/// `ik` and `jk` and the face are tested. With `a = w[k]` and the edges
/// `ab`, `ac` to `w[i]`, `w[j]`, the tests need five dot products:
/// `d₁ = −ab·a`, `d₂ = −ac·a` and the Gram entries; the edge tests are
/// the unnormalised face weights of the far vertices (Lagrange's
/// identity), `ab·ab·d₂ − ab·ac·d₁` for `w[j]` and `ac·ac·d₁ − ab·ac·d₂`
/// for `w[i]`. A face answer the accurate weights do not confirm goes to
/// [`triangle`].
fn triangle_newest<R: Real>(w: &[CsoPoint<R>; 4], i: usize, j: usize, k: usize) -> Sub<R> {
    let (a, b, c) = (w[k & 3].w, w[i & 3].w, w[j & 3].w);
    let Some((ab, ac, d1, d2)) = from_vertex(&a, &b, &c) else {
        return Sub::vertex(w, k);
    };
    let (abab, abac, acac) = (ab.dot(&ab), ab.dot(&ac), ac.dot(&ac));
    // Outside edge `ab` (the weight of `c` not positive), past `a`.
    if abab * d2 - abac * d1 <= R::ZERO && d1 >= R::ZERO {
        return segment(w, i, k);
    }
    // Outside edge `ac`, past `a`.
    if acac * d1 - abac * d2 <= R::ZERO && d2 >= R::ZERO {
        return segment(w, j, k);
    }
    match face_weights(&b, &c, &a) {
        Some((l, p)) if l.iter().all(|&x| x >= R::ZERO) => Sub::face(w, [i, j, k], l, p),
        _ => triangle(w, i, j, k),
    }
}

/// Barycentric weights of the origin's projection on the plane of `abc`, by
/// signed areas in the coordinate plane most aligned with the triangle
/// (Montanari et al.'s signed-volume idea): the error grows like
/// `ε·size²/area`, where the dot-product form above grows like its square,
/// which matters for the sliver triangles GJK builds near convergence.
///
/// Returns the weights and the projection `p` itself.
fn face_weights<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Option<([R; 3], Vec3<R>)> {
    let n = (b - a).cross(&(c - a));
    projection_weights(a, b, c, &n, n.dot(a))
}

/// [`face_weights`] from a normal `n` of the triangle's plane (any length,
/// any sign) and `n·a` (`a` may be any vertex: the plane's offset).
fn projection_weights<R: Real>(
    a: &Vec3<R>,
    b: &Vec3<R>,
    c: &Vec3<R>,
    n: &Vec3<R>,
    offset: R,
) -> Option<([R; 3], Vec3<R>)> {
    let nn = n.dot(n);
    if !(nn > R::ZERO) {
        return None;
    }
    let p = n * (offset / nn);
    // Drop the axis where |n| is largest: the points in the other two
    // coordinates, taken once (no index to check per use).
    let an = n.map(|x| x.abs_());
    let pts = [a, b, c, &p];
    let [a2, b2, c2, p2] = if an.x >= an.y && an.x >= an.z {
        pts.map(|v| [v.y, v.z])
    } else if an.y >= an.z {
        pts.map(|v| [v.z, v.x])
    } else {
        pts.map(|v| [v.x, v.y])
    };
    let area = |u: &[R; 2], v: &[R; 2], w: &[R; 2]| (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0]);
    // Normalised by their own sum (equal to area(a, b, c) in exact
    // arithmetic) so that the weights sum to 1 to rounding: Σλw is then a
    // true convex combination, and |Σλw| a true upper bound of the distance.
    let sub = [area(&p2, &b2, &c2), area(&a2, &p2, &c2), area(&a2, &b2, &p2)];
    let total = sub[0] + sub[1] + sub[2];
    let l = [sub[0] / total, sub[1] / total, sub[2] / total];
    if l.iter().all(|v| v.finite()) {
        Some((l, p))
    } else {
        None
    }
}

/// The one of two sub-simplices whose point is nearer the origin (`a` on a tie).
fn shorter<R: Real>(a: Sub<R>, b: Sub<R>) -> Sub<R> {
    if b.point.norm_squared() < a.point.norm_squared() {
        b
    } else {
        a
    }
}

fn best_of<R: Real, const N: usize>(w: &[CsoPoint<R>; 4], subs: [Sub<R>; N]) -> Sub<R> {
    let mut best = Sub::vertex(w, 0);
    let mut best_d = R::INFINITY;
    for s in subs.iter() {
        let d = s.point.norm_squared();
        if d < best_d {
            best = *s;
            best_d = d;
        }
    }
    best
}

/// Faces of the tetrahedron 0123, each listed with its opposite vertex last.
const FACES: [[usize; 4]; 4] = [[1, 2, 3, 0], [0, 2, 3, 1], [0, 1, 3, 2], [0, 1, 2, 3]];

/// The signed volumes (×6) with the origin in place of each vertex, the
/// total, and whether the tetrahedron is too flat for their signs to mean
/// anything (|total| below rounding relative to its size: `|total| ≤
/// 64·ε·L³` with `L = 2·max|wᵢ − w₃|`, at least its longest edge and at
/// most twice it, so that the test needs only the edges at `w₃`; the fourth
/// point within rounding of the plane of the other three). Treating a
/// tetrahedron as flat is always safe: the answer is then the best of its
/// four faces, and an enclosed origin is left to the next iterations
/// instead of claimed. Vertex `i`'s sub-volume has the sign of the total
/// exactly when the origin is on vertex `i`'s side of the opposite face.
///
/// All from the edges at `w₃` (the point GJK added last): with
/// `eᵢ = wᵢ − w₃`, the total is `−e₀·(e₁ × e₂)` and the sub-volume of
/// `wᵢ` (`i < 3`) is `w₃·(eⱼ × eₖ)` (`i, j, k` cyclic), the
/// origin's offset from `w₃` against the same cross products; `w₃`'s own
/// is taken at `w₀` from that face's edges. Differences of nearby points
/// before any product, as in the direct form, at about half its work.
#[inline(always)]
fn sub_volumes<R: Real>(w: &[CsoPoint<R>; 4], w3: &Vec3<R>) -> Volumes<R> {
    let (w0, w1, w2) = (&w[0].w, &w[1].w, &w[2].w);
    let (e0, e1, e2) = (w0 - w3, w1 - w3, w2 - w3);
    let normals = [e1.cross(&e2), e2.cross(&e0), e0.cross(&e1)];
    let [c12, c20, c01] = &normals;
    // Both forms below list the vertices in an odd permutation of
    // `w₀w₁w₂w₃` (and of each sub-tetrahedron): negated.
    let total = -e0.dot(c12);
    let (f1, f2) = (w1 - w0, w2 - w0);
    let v3 = f1.dot(&f2.cross(&-w0));
    let sub = [w3.dot(c12), w3.dot(c20), w3.dot(c01), v3];
    let l2 = [e0, e1, e2].iter().fold(R::ZERO, |m, e| crate::math::max(m, e.norm_squared())) * R::lit(4.0);
    let flat = !(total * total > l2 * l2 * l2 * R::EPSILON * R::EPSILON * R::lit(4096.0));
    Volumes { sub, total, flat, normals }
}

/// [`sub_volumes`]' answer.
struct Volumes<R: Real> {
    /// The signed sub-volumes, vertex by vertex.
    sub: [R; 4],
    /// The signed volume.
    total: R,
    /// Too flat for the signs to mean anything.
    flat: bool,
    /// Normals of the faces at `w₃` (opposite `w₀`, `w₁`, `w₂`), with
    /// `sub[i] = w₃·normals[i]`.
    normals: [Vec3<R>; 3],
}

/// Where the origin is against a tetrahedron.
enum Tetrahedron<R: Real> {
    /// Outside: the sub-simplex holding the closest point.
    Outside(Sub<R>),
    /// Inside: its barycentric weights.
    Inside([R; 4]),
}

/// [`tetrahedron`] by the general tests (no newest point), out of line:
/// the rare second opinion of [`Simplex::reduce_tetrahedron`].
#[inline(never)]
fn tetrahedron_general<R: Real>(w: &[CsoPoint<R>; 4]) -> Tetrahedron<R> {
    tetrahedron(w, false, w[3].w.x, w[3].w.y, w[3].w.z)
}

/// Closest point of a tetrahedron, or, when the origin is inside it, the
/// origin's barycentric weights (from the same signed volumes).
///
/// Outside, the closest point lies on a face the origin is beyond. The
/// faces are tried from the one the origin is farthest beyond in
/// barycentric terms (the most negative weight), and the first whose answer
/// is its own interior ends the search: the origin's projection on the
/// plane of a face it is beyond is the closest point of the half-space
/// behind that plane, which holds the whole tetrahedron. The other faces
/// are then skipped (on near-touching ellipsoids the origin is beyond two
/// faces of a tetrahedron on average).
///
/// With `newest` (see [`Simplex::reduce_newest`]) the three faces at `w₃`
/// are tested by [`triangle_newest`], and the face opposite `w₃` only when
/// none of them qualified; a flat tetrahedron is tested as without.
///
/// `x, y, z` are `w₃`'s coordinates, passed as scalars (in registers,
/// from GJK's loop through [`Simplex::reduce_tetrahedron`]): GJK stores
/// `w₃` just before, and x86 code generation loaded it as the pairs
/// `(x, y)` and `(y, z)`, the second across the two stores that wrote the
/// point; that load waited for the stores to reach the cache, about a
/// tenth of the tetrahedron's time. For the same reason [`sub_volumes`] is
/// inlined: out of line, it took `w₃` by reference, from a copy in memory
/// written as three words and read as pairs.
#[inline(always)]
fn tetrahedron<R: Real>(w: &[CsoPoint<R>; 4], newest: bool, x: R, y: R, z: R) -> Tetrahedron<R> {
    let Volumes { sub, total, flat, normals } = sub_volumes(w, &Vec3::new(x, y, z));
    let flat = flat || !total.finite();
    if !flat && sub.iter().all(|&v| !(v * total < R::ZERO)) {
        let (l0, l1, l2) = (sub[0] / total, sub[1] / total, sub[2] / total);
        return Tetrahedron::Inside([l0, l1, l2, R::ONE - l0 - l1 - l2]);
    }
    let newest = newest && !flat;
    // `beyond[i] < 0`: the origin is beyond the face opposite vertex `i`
    // (its barycentric weight times |total|). A flat tetrahedron makes every
    // face a candidate, which is still correct: it is the union of its faces.
    let beyond = if total < R::ZERO { sub.map(|v| -v) } else { sub };
    let first = (1..if newest { 3 } else { 4 }).fold(0, |m, i| if beyond[i] < beyond[m] { i } else { m });
    // The first face at `w₃` from its normal at hand: its projection
    // inside it is the answer (the region tests of `triangle_newest` agree
    // with the accurate weights there, which decide; they are needed only
    // to find an edge or a vertex).
    if newest && beyond[first & 3] < R::ZERO {
        if let (Some(n), [f0, f1, f2, _]) = (normals.get(first), FACES[first & 3]) {
            let (a, b, c) = (&w[f0 & 3].w, &w[f1 & 3].w, &w[f2 & 3].w);
            if let Some((l, p)) = projection_weights(a, b, c, n, sub[first & 3]) {
                if l.iter().all(|&x| x >= R::ZERO) {
                    return Tetrahedron::Outside(Sub::face(w, [f0, f1, f2], l, p));
                }
            }
        }
    }
    let mut best: Option<(Sub<R>, R)> = None;
    // The face opposite `w₃` comes last; with `newest` it is tried only
    // when no face at `w₃` qualified (rounding against the precondition).
    for i in core::iter::once(first).chain((0..4).filter(|&i| i != first)) {
        let at_newest = newest && i != 3;
        if !(flat || beyond[i & 3] < R::ZERO) || (newest && i == 3 && best.is_some()) {
            continue;
        }
        let [f0, f1, f2, _] = FACES[i & 3];
        let s = if at_newest { triangle_newest(w, f0, f1, f2) } else { triangle(w, f0, f1, f2) };
        if s.n == 3 && !flat {
            return Tetrahedron::Outside(s);
        }
        let dist = s.point.norm_squared();
        match best {
            Some((_, bd)) if !(dist < bd) => {}
            _ => best = Some((s, dist)),
        }
    }
    // Not flat, origin outside by the signs, yet no face qualified can only
    // happen with NaN; fall back to the first face (a valid simplex point).
    Tetrahedron::Outside(best.map_or_else(|| triangle(w, 0, 1, 2), |(s, _)| s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Pt3;

    fn pt(x: f64, y: f64, z: f64) -> CsoPoint<f64> {
        CsoPoint { w: Vec3::new(x, y, z), a: Pt3::new(x, y, z), b: Pt3::origin() }
    }

    fn simplex(ps: &[CsoPoint<f64>]) -> Simplex<f64> {
        let mut s = Simplex::one(ps[0]);
        for p in &ps[1..] {
            s.push(*p);
        }
        s
    }

    /// Brute force: minimum of |Σλw| over a fine barycentric grid.
    fn brute(ps: &[CsoPoint<f64>]) -> f64 {
        let n = 36;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                for k in 0..=(n - i - j) {
                    let l = [i, j, k, n - i - j - k].map(|x| x as f64 / n as f64);
                    let mut p = Vec3::zeros();
                    for (q, l) in ps.iter().zip(l.iter()) {
                        p += q.w * *l;
                    }
                    if ps.len() < 4 && l.iter().skip(ps.len()).any(|&x| x > 0.0) {
                        continue;
                    }
                    best = best.min(p.norm());
                }
            }
        }
        best
    }

    /// Uniform in [−1, 3) from a 64-bit LCG (no dependency in the kernel's
    /// unit tests).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 1.0
        }
    }

    #[test]
    fn closest_point_matches_brute_force() {
        let mut rnd = uniform(12345);
        for n in 2..=4 {
            for _ in 0..200 {
                let ps: [CsoPoint<f64>; 4] = core::array::from_fn(|_| pt(rnd(), rnd(), rnd()));
                let mut s = simplex(&ps[..n]);
                let inside = s.reduce();
                let d = s.closest().norm();
                let b = brute(&ps[..n]);
                if inside {
                    assert!(b < 0.1, "origin inside but brute force {b}");
                    assert!(d < 1e-12);
                } else {
                    // Grid resolution 1/36 of an edge of length <= ~7.
                    assert!(d <= b + 1e-9 && d >= b - 0.25, "n={n} d={d} brute={b}");
                }
                let wsum: f64 = s.weights().iter().sum();
                assert!((wsum - 1.0).abs() < 1e-9);
                assert!(s.weights().iter().all(|&l| l >= -1e-9));
            }
        }
    }

    /// GJK's loop in miniature (push a point, reduce), with a record per
    /// tag kept beside the simplex: after every reduction each point's tag
    /// still names the record of the point pushed with it, and the tags
    /// stay a permutation of 0..4.
    #[test]
    fn tags_follow_their_points_through_reductions() {
        let mut rnd = uniform(24680);
        let mut kept = [0usize; 5];
        for _ in 0..500 {
            let first = pt(rnd(), rnd(), rnd());
            let mut s = Simplex::one(first);
            let mut records = [first.w; 4];
            for _ in 0..6 {
                let p = pt(rnd(), rnd(), rnd());
                if s.len() < 4 {
                    records[s.tag(s.len())] = p.w;
                    s.push(p);
                }
                if s.reduce() {
                    break;
                }
                kept[s.len()] += 1;
                let mut seen = [false; 4];
                for (k, q) in s.points().iter().enumerate() {
                    assert_eq!(records[s.tag(k)], q.w, "point {k} lost its record");
                    seen[s.tag(k)] = true;
                }
                let mut tags: [usize; 4] = core::array::from_fn(|k| s.tag(k));
                tags.sort_unstable();
                assert_eq!(tags, [0, 1, 2, 3]);
                assert_eq!(seen.iter().filter(|&&x| x).count(), s.len());
            }
        }
        // Every size of kept simplex was reached.
        assert!(kept[1..4].iter().all(|&n| n > 0), "{kept:?}");
    }

    /// GJK's step: a simplex reduced to its closest point `v`, then a new
    /// point `p` with `v·p < v·v`; the newest-point cases must find the
    /// closest point of the grown simplex as brute force does.
    #[test]
    fn newest_point_reduction_matches_brute_force() {
        let mut rnd = uniform(987654321);
        let mut grown = [0usize; 5];
        for _ in 0..2000 {
            let n = 1 + (grown.iter().sum::<usize>() % 3);
            let ps: [CsoPoint<f64>; 3] = core::array::from_fn(|_| pt(rnd(), rnd(), rnd()));
            let mut s = simplex(&ps[..n]);
            if s.reduce() {
                continue;
            }
            let v = s.closest();
            let p = loop {
                let q = pt(rnd(), rnd(), rnd());
                if q.w.dot(&v) < v.dot(&v) {
                    break q;
                }
            };
            let before: heapless::Vec<CsoPoint<f64>, 4> = s.points().iter().copied().chain([p]).collect();
            s.push(p);
            grown[s.len()] += 1;
            let mut general = s;
            let inside_general = general.reduce();
            let inside = s.reduce_newest(v.dot(&v));
            // The general case examines every region: same answer.
            assert_eq!(inside, inside_general);
            assert!((s.closest() - general.closest()).norm() < 1e-12, "{:?} vs {:?}", s.closest(), general.closest());
            let d = s.closest().norm();
            let b = brute(&before);
            if inside {
                assert!(b < 0.1, "origin inside but brute force {b}");
                assert!(d < 1e-12);
            } else {
                assert!(d <= b + 1e-9 && d >= b - 0.25, "d={d} brute={b}");
                assert!(d < v.norm(), "no descent: {d} from {}", v.norm());
            }
            let wsum: f64 = s.weights().iter().sum();
            assert!((wsum - 1.0).abs() < 1e-9);
            assert!(s.weights().iter().all(|&l| l >= -1e-9));
        }
        // Every size of grown simplex was exercised.
        assert!(grown[2..].iter().all(|&g| g > 100), "{grown:?}");
    }

    /// A sliver triangle far from the origin in f32, as GJK builds it
    /// between a rounded cone and a needle ellipsoid 3e5 long: the newest
    /// point's edge tests cancel there. The reduction must not answer a
    /// point farther than the first edge's closest point (it answered an
    /// old vertex 76 711 away), and must be the triangle's closest point up
    /// to f32 rounding at that size. Truth: the same triangle in f64, by
    /// its plane projection and its three edges.
    #[test]
    fn newest_point_reduction_on_a_far_sliver_triangle_in_f32() {
        let p = |x: f32, y: f32, z: f32| CsoPoint { w: Vec3::new(x, y, z), a: Pt3::new(x, y, z), b: Pt3::origin() };
        let old = [p(93.23755, -283939.7, -23637.922), p(15.263142, 76448.914, 6336.305)];
        let newest = p(66.201965, 242775.53, 20302.863);
        let mut s = Simplex::one(old[0]);
        s.push(old[1]);
        assert!(!s.reduce());
        let edge = s.closest().norm();
        let previous = s.closest().norm_squared();
        s.push(newest);
        assert!(!s.reduce_newest(previous));
        let d = s.closest().norm();

        let [a, b, c] = [old[0].w, old[1].w, newest.w].map(|w| w.cast::<f64>());
        let on_segment = |a: Vec3<f64>, b: Vec3<f64>| {
            let t = (-a.dot(&(b - a)) / (b - a).norm_squared()).clamp(0.0, 1.0);
            (a + (b - a) * t).norm()
        };
        let n = (b - a).cross(&(c - a));
        let q = n * (n.dot(&a) / n.norm_squared());
        let inside = [(a, b), (b, c), (c, a)].iter().all(|(u, v)| (v - u).cross(&(q - u)).dot(&n) >= 0.0);
        let truth =
            [on_segment(a, b), on_segment(b, c), on_segment(c, a), if inside { q.norm() } else { f64::INFINITY }]
                .into_iter()
                .fold(f64::INFINITY, f64::min);
        let size = 283939.7;
        assert!(d <= edge, "the grown simplex answered {d}, farther than its edge's {edge}");
        assert!((f64::from(d) - truth).abs() <= 64.0 * f64::from(f32::EPSILON) * size, "{d} against {truth}");
    }

    #[test]
    fn flat_simplices_do_not_produce_nan() {
        // Collinear triangle and coplanar tetrahedron.
        let mut t = simplex(&[pt(-1.0, 1.0, 0.0), pt(0.5, 1.0, 0.0), pt(2.0, 1.0, 0.0)]);
        t.reduce();
        assert!((t.closest().norm() - 1.0).abs() < 1e-12);
        let mut q = simplex(&[pt(-1.0, -1.0, 1.0), pt(1.0, -1.0, 1.0), pt(0.0, 1.0, 1.0), pt(0.0, 0.0, 1.0)]);
        assert!(!q.reduce());
        assert!((q.closest().norm() - 1.0).abs() < 1e-12);
    }
}
