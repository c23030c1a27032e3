//! Ground truth in f64 that does not come from the code under test: the
//! signed distance of two round-cored bodies from closed forms, or a
//! bracket around it where no closed form is at hand.
//!
//! A body is a core — a point, a segment, a box or a cylinder, placed by a
//! rigid pose — swept by a ball of radius `radius` ≥ 0: a sphere is a
//! swept point, a capsule a swept segment, a rounded box a swept box; a
//! box and a cylinder have radius 0. Support functions add under Minkowski
//! sums, so the signed distance of two such bodies is the signed distance
//! of their cores minus both radii.
//!
//! Exact (to the rounding of a few f64 operations):
//! - point and segment cores against each other: the closest points of two
//!   segments, the minimum of a convex quadratic over the parameter square
//!   taken over its interior critical point and its four edges (where it is
//!   a clamped one-dimensional minimum); a point is a segment of length 0;
//! - a point against a box or a cylinder: the point's signed distance to the
//!   solid (negative inside: the distance to the nearest face).
//!
//! Other pairs (at least one box or cylinder core, neither a point) get a
//! bracket `lo ≤ signed distance ≤ hi`:
//! - `lo = max_n (−h_A(n) − h_B(−n))` over a set of unit directions `n`
//!   (`h` the support function): the gap between the two supporting planes
//!   normal to `n` bounds the signed distance from below for every `n`, and
//!   equals it at the optimal direction (the separating hyperplane theorem
//!   for disjoint bodies, the definition of the penetration depth for
//!   overlapping ones). The set: the centre offset, the axes of both cores,
//!   their cross products, and the direction between the points of each
//!   projection below;
//! - `hi = |p − q|` for points `p` and `q` of the two cores, from
//!   alternating projections (each core's closest point to the other's last
//!   one), which converge to a closest pair for disjoint convex sets: there
//!   the direction `q − p` closes the bracket. For intersecting cores they
//!   meet and `hi` falls to 0, an upper bound only;
//! - boxes, segments and points are polytopes, and the axes and cross
//!   products above include every facet normal of the Minkowski difference
//!   of two of them (the separating axes of two boxes). When no facet
//!   separates them (`lo ≤ 0`) the difference holds the origin and the
//!   signed distance is the largest facet gap: exact, `lo = hi`. Cylinders
//!   have no such finite set: an overlapping pair keeps `[lo, 0]`.
//!
//! Every computation is made in the frame of body A's position, so the truth
//! carries no rounding of the world coordinates.

use nalgebra::{Matrix3, Vector3};

type V = Vector3<f64>;

/// A core in its own frame (centred at the origin, axis along +z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Core {
    Point,
    /// From `−half·z` to `+half·z`.
    Segment {
        half: f64,
    },
    Box {
        half: V,
    },
    /// Half-height along z, radius.
    Cylinder {
        half: f64,
        radius: f64,
    },
}

/// A core placed in the world and swept by a ball.
#[derive(Clone, Copy, Debug)]
pub struct Solid {
    pub core: Core,
    /// Radius of the sweeping ball (0 for a box or a cylinder).
    pub radius: f64,
    /// An orthonormal rotation (see [`orthonormal`]).
    pub rot: Matrix3<f64>,
    pub pos: V,
}

/// The columns of `m` made orthonormal by Gram–Schmidt: x normalised, y
/// made orthogonal to x and normalised, z = x × y — the documented rule by
/// which the kernel makes a pose it accepts rigid.
pub fn orthonormal(m: &Matrix3<f64>) -> Matrix3<f64> {
    let x = m.column(0).into_owned();
    let x = x / x.norm();
    let y = m.column(1).into_owned();
    let y = y - x * x.dot(&y);
    let y = y / y.norm();
    Matrix3::from_columns(&[x, y, x.cross(&y)])
}

/// Lower and upper bounds on a signed distance; `lo == hi` when exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bracket {
    pub lo: f64,
    pub hi: f64,
}

impl Bracket {
    pub fn exact(d: f64) -> Self {
        Self { lo: d, hi: d }
    }
    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }
    fn minus(self, m: f64) -> Self {
        Self { lo: self.lo - m, hi: self.hi - m }
    }
}

/// The distance between the segments `[p1, q1]` and `[p2, q2]`.
///
/// `f(s, t) = |p1 + s·d1 − p2 − t·d2|²` is a convex quadratic on the square
/// `[0, 1]²`: its minimum is the interior critical point when that lies in
/// the square, else on an edge, where fixing one parameter leaves a convex
/// parabola in the other whose minimum is its critical point clamped to
/// `[0, 1]`. Every candidate is a pair of points of the segments, so the
/// result is never below the distance; it is the distance up to rounding.
pub fn segment_distance(p1: V, q1: V, p2: V, q2: V) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, b, e) = (d1.dot(&d1), d1.dot(&d2), d2.dot(&d2));
    let (c, f) = (d1.dot(&r), d2.dot(&r));
    let at = |s: f64, t: f64| (r + d1 * s - d2 * t).norm();
    // ∂f/∂t = 0: t = (f + s·b)/e; ∂f/∂s = 0: s = (t·b − c)/a.
    let t_of = |s: f64| if e > 0.0 { ((f + s * b) / e).clamp(0.0, 1.0) } else { 0.0 };
    let s_of = |t: f64| if a > 0.0 { ((t * b - c) / a).clamp(0.0, 1.0) } else { 0.0 };
    let mut best = f64::INFINITY;
    for x in [0.0, 1.0] {
        best = best.min(at(x, t_of(x))).min(at(s_of(x), x));
    }
    let det = a * e - b * b;
    if det > 0.0 {
        let (s, t) = ((b * f - c * e) / det, (a * f - b * c) / det);
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(at(s, t));
        }
    }
    best
}

impl Solid {
    /// The same solid with its position moved by `−origin`.
    pub fn seen_from(&self, origin: &V) -> Solid {
        Solid { pos: self.pos - origin, ..*self }
    }

    fn local(&self, x: &V) -> V {
        self.rot.transpose() * (x - self.pos)
    }

    fn world(&self, y: &V) -> V {
        self.rot * y + self.pos
    }

    /// The core's axes in the world: a box's three, a segment's or a
    /// cylinder's one, none for a point.
    fn axes(&self) -> impl Iterator<Item = V> + '_ {
        let range = match self.core {
            Core::Point => 0..0,
            Core::Segment { .. } | Core::Cylinder { .. } => 2..3,
            Core::Box { .. } => 0..3,
        };
        range.map(|i| self.rot.column(i).into_owned())
    }

    /// End points of a point or segment core.
    fn segment(&self) -> Option<(V, V)> {
        let axis = self.rot.column(2).into_owned();
        match self.core {
            Core::Point => Some((self.pos, self.pos)),
            Core::Segment { half } => Some((self.pos - axis * half, self.pos + axis * half)),
            _ => None,
        }
    }

    /// Support function of the core: `max n·x` over it.
    pub fn core_support(&self, n: &V) -> f64 {
        let m = self.rot.transpose() * n;
        let local = match self.core {
            Core::Point => 0.0,
            Core::Segment { half } => half * m.z.abs(),
            Core::Box { half } => half.x * m.x.abs() + half.y * m.y.abs() + half.z * m.z.abs(),
            Core::Cylinder { half, radius } => radius * m.x.hypot(m.y) + half * m.z.abs(),
        };
        n.dot(&self.pos) + local
    }

    /// The point of the core closest to `x`.
    pub fn project(&self, x: &V) -> V {
        let y = self.local(x);
        let p = match self.core {
            Core::Point => V::zeros(),
            Core::Segment { half } => V::new(0.0, 0.0, y.z.clamp(-half, half)),
            Core::Box { half } => {
                V::new(y.x.clamp(-half.x, half.x), y.y.clamp(-half.y, half.y), y.z.clamp(-half.z, half.z))
            }
            Core::Cylinder { half, radius } => {
                let rho = y.x.hypot(y.y);
                let k = if rho > radius { radius / rho } else { 1.0 };
                V::new(y.x * k, y.y * k, y.z.clamp(-half, half))
            }
        };
        self.world(&p)
    }

    /// Signed distance from `x` to the core (negative inside a box or a
    /// cylinder).
    pub fn core_sd(&self, x: &V) -> f64 {
        let y = self.local(x);
        let outside_inside = |q: &[f64]| {
            let out = q.iter().map(|v| v.max(0.0) * v.max(0.0)).sum::<f64>().sqrt();
            let inside = q.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v)).min(0.0);
            out + inside
        };
        match self.core {
            Core::Point => y.norm(),
            Core::Segment { half } => V::new(y.x, y.y, (y.z.abs() - half).max(0.0)).norm(),
            Core::Box { half } => outside_inside(&[y.x.abs() - half.x, y.y.abs() - half.y, y.z.abs() - half.z]),
            Core::Cylinder { half, radius } => outside_inside(&[y.x.hypot(y.y) - radius, y.z.abs() - half]),
        }
    }

    /// Signed distance from `x` to the solid.
    pub fn sd_point(&self, x: &V) -> f64 {
        self.core_sd(x) - self.radius
    }

    /// Largest distance from the position to a point of the solid.
    pub fn circumradius(&self) -> f64 {
        self.farthest_from(&self.pos)
    }

    /// Largest distance from `c` to a point of the solid: the farthest
    /// point of the core (a box corner, a segment end, a point of a
    /// cylinder's rim) plus the radius.
    pub fn farthest_from(&self, c: &V) -> f64 {
        let y = self.local(c);
        let core = match self.core {
            Core::Point => y.norm(),
            Core::Segment { half } => V::new(y.x, y.y, y.z.abs() + half).norm(),
            Core::Box { half } => (y.abs() + half).norm(),
            Core::Cylinder { half, radius } => (y.x.hypot(y.y) + radius).hypot(y.z.abs() + half),
        };
        core + self.radius
    }
}

/// The signed distance of `a` and `b`: exact for point and segment cores
/// against each other and for a point against any core, a bracket
/// otherwise (see the module's documentation).
pub fn signed_distance(a: &Solid, b: &Solid) -> Bracket {
    let origin = a.pos;
    let (a, b) = (a.seen_from(&origin), b.seen_from(&origin));
    let sweep = a.radius + b.radius;
    let core = match (a.segment(), b.segment(), a.core, b.core) {
        (Some((p1, q1)), Some((p2, q2)), _, _) => Bracket::exact(segment_distance(p1, q1, p2, q2)),
        (_, _, Core::Point, _) => Bracket::exact(b.core_sd(&a.pos)),
        (_, _, _, Core::Point) => Bracket::exact(a.core_sd(&b.pos)),
        _ => bracket(&a, &b),
    };
    core.minus(sweep)
}

/// Iterations of alternating projections in [`bracket`].
const PROJECTIONS: usize = 64;

/// `−h_A(n) − h_B(−n)` for the unit vector along `n` (`−∞` for a zero or
/// non-finite `n`): a lower bound on the signed distance of the cores.
/// `n` is brought to its largest component first: the cross product of two
/// nearly parallel axes can be 1e-161 long, whose squared length is
/// subnormal, and dividing by that length left a "unit" vector 1.0008 long
/// (a gap 0.08 % too large, above the distance it bounds).
fn gap(a: &Solid, b: &Solid, n: &V) -> f64 {
    let m = n.amax();
    if !(m > 0.0 && m.is_finite()) {
        return f64::NEG_INFINITY;
    }
    let n = n / m;
    let n = n / n.norm();
    -a.core_support(&n) - b.core_support(&-n)
}

/// Bounds on the signed distance of two cores, at least one of them a box
/// or a cylinder (see the module's documentation).
///
/// Where neither is a cylinder, the cores are polytopes (a point, a segment,
/// a box) and the directions tried include every facet normal of their
/// Minkowski difference (box face normals, and cross products of box edges
/// with box edges or the segment). When that difference holds the origin
/// (`lo ≤ 0`: no facet separates), the signed distance is the largest
/// facet gap, `lo` itself.
fn bracket(a: &Solid, b: &Solid) -> Bracket {
    let scale = (b.pos - a.pos).norm() + a.circumradius() + b.circumradius();
    let (axes_a, axes_b): (Vec<V>, Vec<V>) = (a.axes().collect(), b.axes().collect());
    let mut lo = gap(a, b, &(b.pos - a.pos));
    // Each axis both ways: B may lie on either side of A along it.
    let mut both_ways = |n: V| lo = lo.max(gap(a, b, &n)).max(gap(a, b, &-n));
    for u in axes_a.iter().chain(&axes_b) {
        both_ways(*u);
    }
    for u in &axes_a {
        for w in &axes_b {
            both_ways(u.cross(w));
        }
    }
    let polytopes = ![a.core, b.core].iter().any(|c| matches!(c, Core::Cylinder { .. }));
    if polytopes && lo <= 0.0 {
        return Bracket::exact(lo);
    }
    let mut hi = f64::INFINITY;
    let mut p = a.project(&b.pos);
    for _ in 0..PROJECTIONS {
        let q = b.project(&p);
        let next = a.project(&q);
        hi = hi.min((q - p).norm()).min((q - next).norm());
        lo = lo.max(gap(a, b, &(q - next)));
        if hi - lo <= 1e-15 * scale || next == p {
            break;
        }
        p = next;
    }
    // Rounding may cross the two by an ulp: the larger upper bound is safe.
    Bracket { lo, hi: hi.max(lo) }
}
