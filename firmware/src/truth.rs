//! Closed forms in f64: the ground truth the cases and the cell demo
//! compare with. Nothing here calls the kernel; inputs are the f32 values
//! the kernel saw, widened.

use nalgebra::{Matrix3, Vector3};
use narrowphase::prelude::Pose;
use narrowphase::shape::PolytopeData;

type V3 = Vector3<f64>;

fn len(v: &V3) -> f64 {
    libm::sqrt(v.dot(v))
}

/// Rotation and translation of an f32 pose, widened to f64.
pub fn pose64(p: &Pose<f32>) -> (Matrix3<f64>, V3) {
    (p.rotation.matrix().cast::<f64>(), p.translation.vector.cast::<f64>())
}

/// Signed distance from a point (box frame) to a box with half-extents `h`.
pub fn point_box(local: &V3, h: &V3) -> f64 {
    let q = V3::new(libm::fabs(local.x) - h.x, libm::fabs(local.y) - h.y, libm::fabs(local.z) - h.z);
    let outside = V3::new(q.x.max(0.0), q.y.max(0.0), q.z.max(0.0));
    len(&outside) + q.x.max(q.y).max(q.z).min(0.0)
}

/// Signed distance between a ball (`centre`, `r`) and a placed box.
pub fn sphere_box(centre: &V3, r: f64, box_pose: &Pose<f32>, h: &V3) -> f64 {
    let (rot, t) = pose64(box_pose);
    point_box(&(rot.transpose() * (centre - t)), h) - r
}

/// Distance between two disjoint axis-aligned boxes with centre offset `d`
/// (0 when they overlap).
pub fn aabb_distance(d: &V3, ha: &V3, hb: &V3) -> f64 {
    let gap = |i: usize| (libm::fabs(d[i]) - ha[i] - hb[i]).max(0.0);
    len(&V3::new(gap(0), gap(1), gap(2)))
}

/// Penetration depth (minimal translation) of two overlapping axis-aligned
/// boxes: their Minkowski difference is a box, so it is the smallest overlap
/// over the three axes; negative when they do not overlap.
pub fn aabb_depth(d: &V3, ha: &V3, hb: &V3) -> f64 {
    let overlap = |i: usize| ha[i] + hb[i] - libm::fabs(d[i]);
    overlap(0).min(overlap(1)).min(overlap(2))
}

/// Distance from `p` to the segment `[a, b]`.
pub fn point_segment(p: &V3, a: &V3, b: &V3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(&ab) / ab.dot(&ab)).clamp(0.0, 1.0);
    len(&(p - (a + ab * t)))
}

/// Exact distance between segments `[a0, a1]` and `[b0, b1]`: the four
/// endpoint-to-segment distances and, when it lies inside both, the critical
/// point of the two lines.
pub fn segment_segment(a0: &V3, a1: &V3, b0: &V3, b1: &V3) -> f64 {
    let mut best = point_segment(a0, b0, b1)
        .min(point_segment(a1, b0, b1))
        .min(point_segment(b0, a0, a1))
        .min(point_segment(b1, a0, a1));
    let (u, v, w) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, b, c, d, e) = (u.dot(&u), u.dot(&v), v.dot(&v), u.dot(&w), v.dot(&w));
    let den = a * c - b * b;
    if den > 1e-12 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(len(&(w + u * s - v * t)));
        }
    }
    best
}

/// End points of a capsule's segment (axis +z, half length `half`).
pub fn capsule_segment(p: &Pose<f32>, half: f64) -> (V3, V3) {
    let (rot, t) = pose64(p);
    let axis = rot * V3::new(0.0, 0.0, half);
    (t - axis, t + axis)
}

/// Distance between the segment `[a, b]` and the box `|x_i| ≤ h_i`, both in
/// the box frame; 0 when they meet.
///
/// Along the segment `p(t) = a + t (b − a)`, the squared distance
/// `g(t) = Σ_i max(|p_i(t)| − h_i, 0)²` is convex and, between the (at most
/// six) parameters where a coordinate crosses `±h_i`, one quadratic; its
/// minimum over `[0, 1]` is at an end, a crossing, or the vertex of one of
/// those quadratics, all of which are tried.
pub fn segment_box_distance(a: &V3, b: &V3, h: &V3) -> f64 {
    let (a, d, h) = ([a.x, a.y, a.z], [b.x - a.x, b.y - a.y, b.z - a.z], [h.x, h.y, h.z]);
    let g = |t: f64| {
        let mut s = 0.0;
        for i in 0..3 {
            let e = (libm::fabs(a[i] + t * d[i]) - h[i]).max(0.0);
            s += e * e;
        }
        s
    };
    // The ends and the crossings, sorted.
    let mut ts = [0.0_f64, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let mut n = 2;
    for i in 0..3 {
        if d[i] != 0.0 {
            for side in [-1.0, 1.0] {
                let t = (side * h[i] - a[i]) / d[i];
                if t > 0.0 && t < 1.0 {
                    if let Some(slot) = ts.get_mut(n) {
                        *slot = t;
                        n += 1;
                    }
                }
            }
        }
    }
    let ts = ts.get_mut(..n).unwrap_or_default();
    ts.sort_unstable_by(f64::total_cmp);
    let mut best = ts.iter().fold(f64::INFINITY, |m, &t| m.min(g(t)));
    for w in ts.windows(2) {
        let (t0, t1) = (w[0], w[1]);
        // On (t0, t1) each coordinate is inside its slab or beyond one
        // side: the quadratic sums (p_i − side·h_i)² over the latter.
        let mid = 0.5 * (t0 + t1);
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..3 {
            let x = a[i] + mid * d[i];
            let side = if x > h[i] {
                1.0
            } else if x < -h[i] {
                -1.0
            } else {
                0.0
            };
            if side != 0.0 {
                num += d[i] * (a[i] - side * h[i]);
                den += d[i] * d[i];
            }
        }
        if den > 0.0 {
            best = best.min(g((-num / den).clamp(t0, t1)));
        }
    }
    libm::sqrt(best)
}

/// Signed distance between the segment `[a, b]` and the box `|x_i| ≤ h_i`
/// (box frame): the distance when apart, minus the penetration depth (the
/// shortest translation that separates them) when they overlap.
///
/// Overlapping, the depth is the distance from the origin to the boundary
/// of the Minkowski difference box ⊕ (−segment), a zonotope whose facet
/// normals are the box axes and the axes crossed with the segment: the
/// least support value over those normals.
pub fn segment_box(a: &V3, b: &V3, h: &V3) -> f64 {
    let distance = segment_box_distance(a, b, h);
    if distance > 0.0 {
        return distance;
    }
    let (m, u) = ((a + b) * 0.5, (b - a) * 0.5);
    let mut depth = f64::INFINITY;
    let mut along = |n: V3| {
        let l = len(&n);
        if l > 1e-12 * (len(&u) + 1e-300) {
            let n = n / l;
            let support = h.x * libm::fabs(n.x) + h.y * libm::fabs(n.y) + h.z * libm::fabs(n.z) + libm::fabs(n.dot(&u));
            depth = depth.min(support - libm::fabs(n.dot(&m)));
        }
    };
    for axis in [V3::x(), V3::y(), V3::z()] {
        along(axis);
        along(axis.cross(&u));
    }
    -depth.max(0.0)
}

/// A convex polytope for the closed forms: the hull of the vertices of a
/// `PolytopeData` (f32, widened), placed by `x ↦ rot · x + t` into the
/// frame the closed forms work in. Only the vertices and the face loops are
/// read, never the stored planes: the kernel's support map is the vertices'.
pub struct Hull<'a> {
    data: &'a PolytopeData<'a, f32>,
    rot: Matrix3<f64>,
    t: V3,
}

impl<'a> Hull<'a> {
    /// The polytope `data` placed by `rot`, `t`.
    pub fn new(data: &'a PolytopeData<'a, f32>, rot: Matrix3<f64>, t: V3) -> Self {
        Self { data, rot, t }
    }

    fn vertex(&self, i: u16) -> V3 {
        let p = self.data.vertices.get(i as usize).map_or(V3::zeros(), |p| p.coords.cast::<f64>());
        self.rot * p + self.t
    }

    fn face_count(&self) -> usize {
        self.data.face_offsets.len().saturating_sub(1)
    }

    /// The loop of face `f` (vertex indices, counter-clockwise from outside).
    fn face(&self, f: usize) -> &'a [u16] {
        let offsets = self.data.face_offsets;
        let (lo, hi) =
            (offsets.get(f).copied().unwrap_or(0) as usize, offsets.get(f + 1).copied().unwrap_or(0) as usize);
        self.data.face_vertices.get(lo..hi).unwrap_or_default()
    }

    /// Calls `f` with each loop edge of face `face` as (start, end).
    fn for_each_loop_edge(&self, face: usize, mut f: impl FnMut(u16, u16)) {
        let l = self.face(face);
        for (k, &v) in l.iter().enumerate() {
            if let Some(&w) = l.get(k + 1).or(l.first()) {
                f(v, w);
            }
        }
    }

    /// Outward unit normal (Newell's, from the loop) and offset of face `f`.
    fn plane(&self, f: usize) -> (V3, f64) {
        let mut n = V3::zeros();
        let mut centre = V3::zeros();
        self.for_each_loop_edge(f, |i, j| {
            let (p, q) = (self.vertex(i), self.vertex(j));
            n += p.cross(&q);
            centre += p;
        });
        let n = n / len(&n);
        let count = self.face(f).len().max(1) as f64;
        (n, n.dot(&centre) / count)
    }

    /// Calls `f` with every edge once (each edge is in two loops, once in
    /// each direction: the one running from the lower index is kept).
    fn for_each_edge(&self, mut f: impl FnMut(V3, V3)) {
        for face in 0..self.face_count() {
            self.for_each_loop_edge(face, |i, j| {
                if i < j {
                    f(self.vertex(i), self.vertex(j));
                }
            });
        }
    }

    /// Support value `max_v n · v`.
    fn support(&self, n: &V3) -> f64 {
        (0..self.data.vertices.len()).fold(f64::NEG_INFINITY, |m, i| m.max(n.dot(&self.vertex(i as u16))))
    }

    /// A sphere holding every vertex: their mean, the largest distance.
    fn bounding_sphere(&self) -> (V3, f64) {
        let count = self.data.vertices.len();
        let mean = (0..count).fold(V3::zeros(), |s, i| s + self.vertex(i as u16)) / count.max(1) as f64;
        (mean, (0..count).fold(0.0, |r: f64, i| r.max(len(&(self.vertex(i as u16) - mean)))))
    }

    /// Distance from `p` to face `f`, given `s = n · p − offset > 0`: the
    /// height over the plane when `p` projects inside the loop, else the
    /// distance to the nearest loop edge.
    fn face_distance(&self, p: &V3, f: usize, n: &V3, s: f64) -> f64 {
        let q = p - n * s;
        let (mut inside, mut edge) = (true, f64::INFINITY);
        self.for_each_loop_edge(f, |i, j| {
            let (v, w) = (self.vertex(i), self.vertex(j));
            inside &= (w - v).cross(&(q - v)).dot(n) >= 0.0;
            edge = edge.min(point_segment(p, &v, &w));
        });
        if inside {
            s
        } else {
            edge
        }
    }
}

/// Signed distance from `p` to a hull: inside, minus the distance to the
/// nearest face plane; outside, the distance to the nearest face seen
/// from `p` (the closest point lies on a face whose plane `p` is beyond).
pub fn point_hull(p: &V3, hull: &Hull<'_>) -> f64 {
    let (mut inside, mut outside) = (f64::NEG_INFINITY, f64::INFINITY);
    for f in 0..hull.face_count() {
        let (n, offset) = hull.plane(f);
        let s = n.dot(p) - offset;
        inside = inside.max(s);
        if s > 0.0 {
            outside = outside.min(hull.face_distance(p, f, &n, s));
        }
    }
    if inside <= 0.0 {
        inside
    } else {
        outside
    }
}

/// Whether the segment `[a, b]` meets the hull: clipped against every face
/// plane (Cyrus–Beck), something is left.
fn segment_meets_hull(a: &V3, b: &V3, hull: &Hull<'_>) -> bool {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for f in 0..hull.face_count() {
        let (n, offset) = hull.plane(f);
        let (fa, fb) = (n.dot(a) - offset, n.dot(b) - offset);
        if fa > 0.0 && fb > 0.0 {
            return false;
        } else if fa > 0.0 {
            lo = lo.max(fa / (fa - fb));
        } else if fb > 0.0 {
            hi = hi.min(fa / (fa - fb));
        }
    }
    lo <= hi
}

/// Least support value of the Minkowski difference `hull − other` over the
/// unit directions `±n` of the candidates `f` offers: the penetration depth
/// when they include every facet normal of that difference. `other_support`
/// is the support function of the other body.
fn overlap_depth(
    hull: &Hull<'_>,
    other_support: impl Fn(&V3) -> f64,
    candidates: impl FnOnce(&mut dyn FnMut(V3)),
) -> f64 {
    let mut depth = f64::INFINITY;
    let mut along = |n: V3| {
        let l = len(&n);
        if l > 1e-12 {
            for n in [n / l, -n / l] {
                depth = depth.min(hull.support(&n) + other_support(&-n));
            }
        }
    };
    for f in 0..hull.face_count() {
        along(hull.plane(f).0);
    }
    candidates(&mut along);
    depth.max(0.0)
}

/// Signed distance between the segment `[a, b]` and a hull (same frame).
///
/// Apart: the closest points pair an end of the segment with the hull, or
/// the segment with an edge of the hull (an inner point of the segment
/// facing an inner point of a face only when they are parallel, where an
/// end or an edge does as well). Overlapping: the depth over the facet
/// normals of hull ⊕ (−segment), the faces' and each edge crossed with
/// the segment.
pub fn segment_hull(a: &V3, b: &V3, hull: &Hull<'_>) -> f64 {
    if !segment_meets_hull(a, b, hull) {
        let mut best = point_hull(a, hull).min(point_hull(b, hull));
        hull.for_each_edge(|p, q| best = best.min(segment_segment(a, b, &p, &q)));
        return best;
    }
    let d = b - a;
    -overlap_depth(hull, |n| n.dot(a).max(n.dot(b)), |along| hull.for_each_edge(|p, q| along((q - p).cross(&d))))
}

/// Signed distance between a hull, placed in the frame of the box
/// `|x_i| ≤ h_i`, and that box.
///
/// Apart: the closest points lie on an edge of one of them (vertex–face
/// and edge–edge pairs), so the distance is the least over the hull's
/// edges against the box and the box's edges against the hull (a box edge
/// is skipped when the hull's bounding sphere is already farther). They
/// overlap exactly when one of those edges meets the other body; the depth
/// is then the least support value of hull ⊕ (−box) over its facet
/// normals: the hull's faces, the box axes, hull edges × box axes.
pub fn hull_box(hull: &Hull<'_>, h: &V3) -> f64 {
    let (mut meet, mut best) = (false, f64::INFINITY);
    hull.for_each_edge(|p, q| {
        let d = segment_box_distance(&p, &q, h);
        meet |= d <= 0.0;
        best = best.min(d);
    });
    if !meet {
        let (centre, radius) = hull.bounding_sphere();
        for axis in 0..3 {
            for corner in [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]] {
                // The edge along `axis` at the corner's signs on the other two.
                let mut e = [[0.0; 3]; 2];
                let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
                for (end, sign) in e.iter_mut().zip([-1.0, 1.0]) {
                    end[axis] = sign * h[axis];
                    end[j] = corner[0] * h[j];
                    end[k] = corner[1] * h[k];
                }
                let (p, q) = (V3::from(e[0]), V3::from(e[1]));
                if point_segment(&centre, &p, &q) - radius >= best {
                    continue;
                }
                let d = segment_hull(&p, &q, hull);
                meet |= d <= 0.0;
                best = best.min(d);
            }
        }
    }
    if !meet {
        return best;
    }
    let box_support = |n: &V3| h.x * libm::fabs(n.x) + h.y * libm::fabs(n.y) + h.z * libm::fabs(n.z);
    -overlap_depth(hull, box_support, |along| {
        for axis in [V3::x(), V3::y(), V3::z()] {
            along(axis);
            hull.for_each_edge(|p, q| along((q - p).cross(&axis)));
        }
    })
}
