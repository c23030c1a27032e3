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
}

impl<R: Real> Simplex<R> {
    /// The one-point simplex `{p}`.
    pub fn one(p: CsoPoint<R>) -> Self {
        Self { pts: [p; 4], bary: [R::ONE, R::ZERO, R::ZERO, R::ZERO], closest: p.w, len: 1 }
    }

    /// The tetrahedron `pts` around the origin, `bary` the origin's
    /// barycentric weights in it (known to the caller in closed form).
    pub(crate) fn around_origin(pts: [CsoPoint<R>; 4], bary: [R; 4]) -> Self {
        Self { pts, bary, closest: Vec3::zeros(), len: 4 }
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
        let w: [Vec3<R>; 4] = self.pts.map(|p| p.w);
        let sub = match self.len {
            1 => Sub::new(&[0], &[R::ONE]),
            2 => segment(&w, 0, 1),
            3 => triangle(&w, 0, 1, 2),
            _ => match tetrahedron(&w) {
                Tetrahedron::Outside(s) => s,
                Tetrahedron::Inside(weights) => {
                    // Origin enclosed: weights by signed volumes.
                    self.bary = weights;
                    self.closest = Vec3::zeros();
                    return true;
                }
            },
        };
        // Keep the supporting points, in place: `sub.idx` increases, so
        // moving point `idx[k]` to slot `k` in order never overwrites a point
        // still to be moved (no copy of the whole simplex).
        for (k, (&i, &l)) in sub.idx.iter().zip(&sub.lambda).take(sub.n).enumerate() {
            if i & 3 != k {
                self.pts[k & 3] = self.pts[i & 3];
            }
            self.bary[k & 3] = l;
        }
        self.len = sub.n as u8;
        let combined = sub.point(&w);
        self.closest = match sub.plane {
            // The plane projection has the more accurate direction, but it is
            // only trusted where it agrees with the convex combination (which
            // is inside the triangle by construction) to rounding: a sliver
            // triangle's normal can be noise, and its "projection" anywhere.
            Some(proj) if sub.n == 3 => {
                let (a, b, c) = (w[sub.idx[0] & 3], w[sub.idx[1] & 3], w[sub.idx[2] & 3]);
                let size = crate::math::max(a.norm_squared(), crate::math::max(b.norm_squared(), c.norm_squared()));
                let slack = size * R::EPSILON * R::EPSILON * R::lit(4096.0);
                if (proj - combined).norm_squared() <= slack {
                    proj
                } else {
                    combined
                }
            }
            _ => combined,
        };
        false
    }
}

/// A sub-simplex: indices into the parent (increasing) and barycentric
/// weights; for a face, also the origin's projection on its plane, when
/// computed.
#[derive(Clone, Copy)]
struct Sub<R: Real> {
    idx: [usize; 3],
    lambda: [R; 3],
    n: usize,
    plane: Option<Vec3<R>>,
}

impl<R: Real> Sub<R> {
    fn new(idx: &[usize], lambda: &[R]) -> Self {
        let mut s = Sub { idx: [0; 3], lambda: [R::ZERO; 3], n: 0, plane: None };
        for ((d, l), (&i, &x)) in s.idx.iter_mut().zip(s.lambda.iter_mut()).zip(idx.iter().zip(lambda)) {
            *d = i & 3;
            *l = x;
            s.n += 1;
        }
        s
    }
    fn point(&self, w: &[Vec3<R>; 4]) -> Vec3<R> {
        self.idx.iter().zip(&self.lambda).take(self.n).fold(Vec3::zeros(), |s, (&i, &l)| s + w[i & 3] * l)
    }
}

fn segment<R: Real>(w: &[Vec3<R>; 4], i: usize, j: usize) -> Sub<R> {
    let (a, b) = (w[i & 3], w[j & 3]);
    let ab = b - a;
    let t_num = -a.dot(&ab);
    if !(t_num > R::ZERO) {
        return Sub::new(&[i], &[R::ONE]);
    }
    let den = ab.dot(&ab);
    if !(t_num < den) {
        return Sub::new(&[j], &[R::ONE]);
    }
    let t = t_num / den;
    Sub::new(&[i, j], &[R::ONE - t, t])
}

fn triangle<R: Real>(w: &[Vec3<R>; 4], i: usize, j: usize, k: usize) -> Sub<R> {
    let (a, b, c) = (w[i & 3], w[j & 3], w[k & 3]);
    let ab = b - a;
    let ac = c - a;
    let d1 = -ab.dot(&a);
    let d2 = -ac.dot(&a);
    if d1 <= R::ZERO && d2 <= R::ZERO {
        return Sub::new(&[i], &[R::ONE]);
    }
    let d3 = -ab.dot(&b);
    let d4 = -ac.dot(&b);
    if d3 >= R::ZERO && d4 <= d3 {
        return Sub::new(&[j], &[R::ONE]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= R::ZERO && d1 >= R::ZERO && d3 <= R::ZERO {
        return segment(w, i, j);
    }
    let d5 = -ab.dot(&c);
    let d6 = -ac.dot(&c);
    if d6 >= R::ZERO && d5 <= d6 {
        return Sub::new(&[k], &[R::ONE]);
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
        Some((l, p)) if l.iter().all(|&x| x >= R::ZERO) => Sub { plane: Some(p), ..Sub::new(&[i, j, k], &l) },
        // The region tests and the accurate weights disagree (a sliver
        // triangle within rounding of flat): the closest point is on an edge,
        // up to rounding; never extrapolate outside the triangle.
        _ => best_of(w, [segment(w, i, j), segment(w, i, k), segment(w, j, k)]),
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
    let nn = n.dot(&n);
    if !(nn > R::ZERO) {
        return None;
    }
    let p = n * (n.dot(a) / nn);
    // Drop the axis where |n| is largest.
    let an = n.map(|x| x.abs_());
    let (x, y) = if an.x >= an.y && an.x >= an.z {
        (1, 2)
    } else if an.y >= an.z {
        (2, 0)
    } else {
        (0, 1)
    };
    let area = |u: &Vec3<R>, v: &Vec3<R>, w: &Vec3<R>| (v[x] - u[x]) * (w[y] - u[y]) - (v[y] - u[y]) * (w[x] - u[x]);
    // Normalised by their own sum (equal to area(a, b, c) in exact
    // arithmetic) so that the weights sum to 1 to rounding: Σλw is then a
    // true convex combination, and |Σλw| a true upper bound of the distance.
    let sub = [area(&p, b, c), area(a, &p, c), area(a, b, &p)];
    let total = sub[0] + sub[1] + sub[2];
    let l = [sub[0] / total, sub[1] / total, sub[2] / total];
    if l.iter().all(|v| v.finite()) {
        Some((l, p))
    } else {
        None
    }
}

fn best_of<R: Real, const N: usize>(w: &[Vec3<R>; 4], subs: [Sub<R>; N]) -> Sub<R> {
    let mut best = Sub::new(&[0], &[R::ONE]);
    let mut best_d = R::INFINITY;
    for s in subs.iter() {
        let d = s.point(w).norm_squared();
        if d < best_d {
            best = *s;
            best_d = d;
        }
    }
    best
}

/// Faces of the tetrahedron 0123, each listed with its opposite vertex last.
const FACES: [[usize; 4]; 4] = [[1, 2, 3, 0], [0, 2, 3, 1], [0, 1, 3, 2], [0, 1, 2, 3]];

/// Signed volume (×6) of the tetrahedron `abcd`.
#[inline(always)]
fn volume<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>, d: &Vec3<R>) -> R {
    (b - a).dot(&(c - a).cross(&(d - a)))
}

/// The signed volumes with the origin in place of each vertex, and the total.
/// Vertex `i`'s sub-volume has the sign of the total exactly when the origin
/// is on vertex `i`'s side of the opposite face.
fn sub_volumes<R: Real>(w: &[Vec3<R>; 4]) -> ([R; 4], R) {
    let o = Vec3::zeros();
    let v = [
        volume(&o, &w[1], &w[2], &w[3]),
        volume(&w[0], &o, &w[2], &w[3]),
        volume(&w[0], &w[1], &o, &w[3]),
        volume(&w[0], &w[1], &w[2], &o),
    ];
    (v, volume(&w[0], &w[1], &w[2], &w[3]))
}

/// `true` when the tetrahedron is too flat for its volume signs to mean
/// anything: |volume| below rounding relative to its edge lengths.
fn is_flat<R: Real>(w: &[Vec3<R>; 4], total: R) -> bool {
    let mut l2 = R::ZERO;
    for i in 0..4 {
        for j in (i + 1)..4 {
            l2 = crate::math::max(l2, (w[i & 3] - w[j & 3]).norm_squared());
        }
    }
    // |total| ≤ ε·64·L³ (L = longest edge): the fourth point is within
    // rounding of the plane of the other three.
    !(total * total > l2 * l2 * l2 * R::EPSILON * R::EPSILON * R::lit(4096.0))
}

/// Where the origin is against a tetrahedron.
enum Tetrahedron<R: Real> {
    /// Outside: the sub-simplex holding the closest point.
    Outside(Sub<R>),
    /// Inside: its barycentric weights.
    Inside([R; 4]),
}

/// Closest point of a tetrahedron, or, when the origin is inside it, the
/// origin's barycentric weights (from the same signed volumes).
fn tetrahedron<R: Real>(w: &[Vec3<R>; 4]) -> Tetrahedron<R> {
    let (sub, total) = sub_volumes(w);
    let flat = is_flat(w, total) || !total.finite();
    if !flat && sub.iter().all(|&v| !(v * total < R::ZERO)) {
        let (l0, l1, l2) = (sub[0] / total, sub[1] / total, sub[2] / total);
        return Tetrahedron::Inside([l0, l1, l2, R::ONE - l0 - l1 - l2]);
    }
    // The closest point lies on a face the origin is beyond; a flat
    // tetrahedron makes every face a candidate, which is still correct: a
    // flat tetrahedron is the union of its faces.
    let mut best: Option<(Sub<R>, R)> = None;
    for f in FACES {
        let opposite = sub[f[3] & 3];
        if flat || opposite * total < R::ZERO {
            let s = triangle(w, f[0] & 3, f[1] & 3, f[2] & 3);
            let dist = s.point(w).norm_squared();
            match best {
                Some((_, bd)) if !(dist < bd) => {}
                _ => best = Some((s, dist)),
            }
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

    #[test]
    fn closest_point_matches_brute_force() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 1.0
        };
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
