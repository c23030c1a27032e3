//! The convex polytope's approximate SDF by the paper's Algorithm 4: hill
//! climbing over the face adjacency graph.
//!
//! With `c` the polytope's vertex mean (strictly inside) and the face planes
//! `nₐ·x = dₐ` rewritten about it (`δₐ = dₐ − nₐ·c > 0`), the ray from `c`
//! through `x` leaves the polytope through the face maximising
//! `sₐ = nₐ·(x − c)/δₐ` (Eq. 22 minimises the ray parameter `1/sₐ`). That face's
//! plane value `nₐ·x − dₐ = δₐ(sₐ − 1)` is returned: a supporting halfspace, so
//! a lower bound of the SDF, and positive exactly when `sₐ > 1`, i.e. when
//! `x` is outside (Proposition 6).
//!
//! Maximising `sₐ` is the support query of the polar reciprocal, whose
//! vertices `nₐ/δₐ` are joined exactly when the faces share an edge: a
//! linear function on a convex polytope has no local maximum on its vertex
//! graph that is not global, so an ascent from any face ends at the right
//! one; each step moves to the first better neighbour it reads. Strict
//! ascent never revisits a face, so no visited set is needed and the face
//! count caps the walk; ties (coplanar faces, which are one polar vertex
//! seen as several) fall back to a scan of all faces. The caller's
//! [`SdfWarmStart`] keeps the face found last (the paper's `a₀`): after a
//! small motion the walk is a step or two.

use super::{Ball, Sdf, SdfAccuracy, SdfSample, SdfWarmStart};
use crate::math::{Real, Vec3};
use crate::shape::{Bounded, Plane, Polytope, SupportMap};

/// Relative difference, in units of the scalar type's ε, below which two
/// faces' ray ratios count as tied: coplanar faces up to rounding.
pub const TIE_TOLERANCE_EPS: f64 = 16.0;

/// `(nₐ·(x − c), δₐ)` of face `a`: `sₐ` as a fraction with a positive
/// denominator, so faces compare without a division.
#[inline(always)]
fn ratio<R: Real>(plane: &Plane<R>, y: &Vec3<R>, c: &Vec3<R>) -> (R, R) {
    (plane.normal.dot(y), plane.offset - plane.normal.dot(c))
}

impl<R: Real> Polytope<'_, R> {
    /// Index of the face maximising `nₐ·(x − c)/δₐ` by Algorithm 4, from
    /// face `start` (out-of-range starts at 0).
    ///
    /// Ties: a flat face split into coplanar triangles (as mesh exporters
    /// write them, and as validation accepts within its tolerance) is one
    /// vertex of the polar seen as several, so the climb can stop on a
    /// triangle of the flat region while the exit face lies past another
    /// triangle of it. When the walk ends next to a neighbour whose ratio
    /// ties with its own (within [`TIE_TOLERANCE_EPS`]`·ε`, i.e. coplanar up
    /// to rounding), or runs out of steps, the face is found by
    /// [`sdf_face_scan`](Self::sdf_face_scan) instead: exact, `O(F)`, and
    /// rare on hulls without coplanar faces. (A tolerance as wide as the
    /// validation's, 1e-4, sent a third of the 500-point hull queries to the
    /// scan: 5× slower.) Faces that validation accepts as convex within its
    /// tolerance but that are slightly concave can still stop the walk early.
    pub fn sdf_face_climb(&self, x: &Vec3<R>, start: usize) -> usize {
        let faces = self.data().faces;
        let c = self.center().coords;
        let y = x - c;
        let mut a = if start < faces.len() { start } else { 0 };
        let Some(plane) = faces.get(a) else { return 0 };
        let (mut num, mut den) = ratio(plane, &y, &c);
        let tie = R::EPSILON * R::lit(TIE_TOLERANCE_EPS);
        // Strict ascent visits each face at most once.
        for _ in 0..faces.len() {
            let (num_a, den_a) = (num, den);
            let mut next = a;
            let mut tied = false;
            for &b in self.face_neighbours(a) {
                let b = b as usize;
                if let Some(p) = faces.get(b) {
                    let (n2, d2) = ratio(p, &y, &c);
                    // n2/d2 > num/den with both denominators positive:
                    // move at once (first improvement, as the support
                    // climb: more, shorter steps read fewer faces in all).
                    if n2 * den > num * d2 {
                        num = n2;
                        den = d2;
                        next = b;
                        break;
                    }
                    let (l, r) = (n2 * den_a, num_a * d2);
                    tied |= b != a && !((l - r).abs_() > tie * (l.abs_() + r.abs_()));
                }
            }
            if next == a {
                return if tied { self.sdf_face_scan(x) } else { a };
            }
            a = next;
        }
        self.sdf_face_scan(x)
    }

    /// From face `start`, steepest ascent of the plane value `nₐ·x − dₐ` over
    /// the face adjacency graph. Every plane value is a lower bound of the SDF
    /// (Eq. 21), so this only tightens Algorithm 4's answer and keeps its
    /// sign (inside every plane value is negative; outside it only grows).
    /// Inside, the largest plane value is the exact SDF; the local maximum
    /// found is usually it, but not always (a face graph can have local
    /// maxima of this non-linear objective).
    pub fn sdf_face_refine(&self, x: &Vec3<R>, start: usize) -> usize {
        let faces = self.data().faces;
        let mut a = if start < faces.len() { start } else { 0 };
        let Some(plane) = faces.get(a) else { return 0 };
        let mut best = plane.normal.dot(x) - plane.offset;
        for _ in 0..faces.len() {
            let mut next = a;
            for &b in self.face_neighbours(a) {
                let b = b as usize;
                if let Some(p) = faces.get(b) {
                    let v = p.normal.dot(x) - p.offset;
                    if v > best {
                        best = v;
                        next = b;
                    }
                }
            }
            if next == a {
                break;
            }
            a = next;
        }
        a
    }

    /// The same face by scanning every face (reference and small polytopes).
    pub fn sdf_face_scan(&self, x: &Vec3<R>) -> usize {
        let c = self.center().coords;
        let y = x - c;
        let mut best = 0;
        let (mut num, mut den) = (-R::ONE, R::ONE);
        for (i, p) in self.data().faces.iter().enumerate() {
            let (n2, d2) = ratio(p, &y, &c);
            if i == 0 || n2 * den > num * d2 {
                num = n2;
                den = d2;
                best = i;
            }
        }
        best
    }

    #[inline]
    fn face_sample(&self, x: &Vec3<R>, face: usize) -> SdfSample<R, 3> {
        match self.data().faces.get(face) {
            Some(p) => SdfSample { value: p.normal.dot(x) - p.offset, gradient: p.normal },
            None => SdfSample { value: R::ZERO, gradient: Vec3::zeros() },
        }
    }
}

impl<R: Real> Sdf<R, 3> for Polytope<'_, R> {
    /// Algorithm 4 from face 0 (use [`eval_hinted`](Sdf::eval_hinted) to
    /// warm-start it).
    #[inline]
    fn eval(&self, x: &Vec3<R>) -> SdfSample<R, 3> {
        self.eval_hinted(x, &mut SdfWarmStart(0))
    }
    /// Algorithm 4 from the hinted face; the hint becomes the face found.
    #[inline]
    fn eval_hinted(&self, x: &Vec3<R>, hint: &mut SdfWarmStart) -> SdfSample<R, 3> {
        let face = self.sdf_face_climb(x, hint.0 as usize);
        hint.0 = face as u32;
        let face = self.sdf_face_refine(x, face);
        self.face_sample(x, face)
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::LowerBound
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        let (c, r) = self.bounding_sphere();
        Ball { center: c.coords, radius: r }
    }
}
