//! Closest points of two cores in closed form — point or segment against
//! point, segment or box, point against cylinder — with the certificate GJK
//! would give: the distance of the two points found is an upper bound, and the
//! gap between the cores' support values along their direction a lower
//! bound. [`contact`](super::contact::contact) and
//! [`clearance`](super::contact::clearance) take the closed form when the
//! two bounds agree to the budget's tolerance and certify a gap, and run GJK
//! otherwise (overlapping or touching cores, a pair with no closed form).
//!
//! Two boxes are answered by their separating axes
//! ([`super::separating_axes`]): the depth where they overlap, the distance
//! where the features facing each other across the best axis meet, else
//! the distance of the corner nearest the other box.

use super::separating_axes::{box_axes, BoxAxes};
use crate::math::{max, max_abs, min, norm, Mat3, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Penetration, Proximity, Separation, Undetermined, Witness};
use crate::shape::CorePrimitive;

/// Two cores' closest points and the certified bounds on their distance,
/// in the frame the cores were given in (the pair frame).
pub(crate) struct CoreGap<R: Real> {
    /// Distance of the closest points found.
    pub distance: R,
    /// `lower ≤ distance of the cores ≤ upper`.
    pub bounds: Bounds<R>,
    /// The closest points and the unit normal from A's core to B's.
    pub witness: Witness<R>,
    /// Largest coordinate involved: the scale of the rounding and of the
    /// tolerance.
    pub scale: R,
}

impl<R: Real> CoreGap<R> {
    /// As a separation of the cores.
    pub fn separation(&self) -> Separation<R> {
        Separation { distance: self.distance, bounds: self.bounds, witness: self.witness }
    }
}

/// The closed-form gap of two cores, or `None` when the pair has no closed
/// form here (two boxes), the cores touch or
/// overlap (the points found coincide, or the lower bound does not clear
/// the rounding `16·ε·scale`), or the bounds are further apart than
/// `tolerance · scale` (rounding on near-parallel segments), or anything is
/// not finite. The caller then runs GJK, which decides all of these.
#[inline(always)]
pub(crate) fn core_gap<R: Real>(a: &CorePrimitive<R>, b: &CorePrimitive<R>, tolerance: R) -> Option<CoreGap<R>> {
    let Closest { point_a, d, gap } = closest(a, b)?;
    // A squared distance in the normal range has a finite, positive root;
    // anything else (coinciding points, underflow, overflow, NaN) is
    // GJK's to decide.
    let squared = d.dot(&d);
    if !(squared >= R::MIN_POSITIVE && squared <= R::MAX) {
        return None;
    }
    let distance = Real::sqrt(squared);
    // The points found lie in the primitives: their coordinates are within
    // the primitives' extents.
    let scale = max(extent(a), extent(b));
    let floor = R::lit(16.0) * R::EPSILON * scale;
    // The tests on the lower bound `min(gap, |d|²) / |d|`, times `|d|`: they
    // need not wait for the division, which only the answer reads.
    let scaled = min(gap, squared);
    if !(scaled > floor * distance) || squared - scaled > max(tolerance * scale, floor) * distance {
        return None;
    }
    let inv = R::ONE / distance;
    let lower = min(gap * inv, distance);
    Some(CoreGap {
        distance,
        bounds: Bounds { lower, upper: distance },
        witness: Witness { point_a: Pt3::from(point_a), point_b: Pt3::from(point_a + d), normal: d * inv },
        scale,
    })
}

/// The gap the plane normal to `toward_b` certifies between the two cores
/// (the least `n·x` over B minus the greatest over A, `n` the unit
/// `toward_b`), when it exceeds both `threshold` and the rounding of the
/// support values: the cores are then farther apart than `threshold`
/// without computing their closest points. Returns the certified bounds;
/// the upper one is the distance of two points of the cores.
pub(crate) fn plane_clears<R: Real>(
    a: &CorePrimitive<R>,
    b: &CorePrimitive<R>,
    toward_b: &Vec3<R>,
    threshold: R,
) -> Option<Bounds<R>> {
    let len = norm(toward_b);
    if !(len > R::ZERO) {
        return None;
    }
    let n = toward_b * (R::ONE / len);
    let lower = lowest(b, &n) - highest(a, &n);
    let floor = R::lit(16.0) * R::EPSILON * max(extent(a), extent(b));
    if !(lower > threshold && lower > floor) {
        return None;
    }
    let upper = norm(&(anchor(b) - anchor(a)));
    Some(Bounds { lower: min(lower, upper), upper })
}

/// A point of the primitive (its first point, a box's or a cylinder's centre).
fn anchor<R: Real>(c: &CorePrimitive<R>) -> Vec3<R> {
    match c {
        CorePrimitive::Point(p) | CorePrimitive::Segment(p, _) => *p,
        CorePrimitive::Cuboid { center, .. } | CorePrimitive::Cylinder { center, .. } => *center,
    }
}

/// Closest points of two primitives found in closed form, with the gap
/// that the plane normal to their difference certifies; the gap is scaled
/// by the difference's length, so that it does not wait for the square root
/// and the division.
struct Closest<R: Real> {
    /// A's point.
    point_a: Vec3<R>,
    /// B's point less A's.
    d: Vec3<R>,
    /// `|d|` times (B's least support value along `d/|d|` less A's
    /// greatest): `|d|` times a lower bound on the primitives' distance.
    gap: R,
}

impl<R: Real> Closest<R> {
    /// The same points for the pair taken the other way round. The gap
    /// is the same number: B's least value along `−n` less A's greatest is
    /// A's least along `n` less B's greatest, negated twice.
    fn swapped(self) -> Self {
        Self { point_a: self.point_a + self.d, d: -self.d, gap: self.gap }
    }
}

/// Closest points of the two primitives, where there is a closed form.
#[inline(always)]
fn closest<R: Real>(a: &CorePrimitive<R>, b: &CorePrimitive<R>) -> Option<Closest<R>> {
    use CorePrimitive::{Cuboid, Cylinder, Point, Segment};
    // By reference: a copy of two primitives (a box's is 16 words) cost a
    // capsule pair more than its segments' arithmetic.
    let (pa, pb) = match (a, b) {
        (Point(p), Point(q)) => (*p, *q),
        (Point(p), Segment(q0, q1)) => segments(p, p, q0, q1),
        (Segment(p0, p1), Point(q)) => segments(p0, p1, q, q),
        (Segment(p0, p1), Segment(q0, q1)) => segments(p0, p1, q0, q1),
        (Point(p), Cuboid { center, axes, half_extents }) => return Some(near_box(p, p, center, axes, half_extents)),
        (Cuboid { center, axes, half_extents }, Point(q)) => {
            return Some(near_box(q, q, center, axes, half_extents).swapped())
        }
        (Segment(p0, p1), Cuboid { center, axes, half_extents }) => {
            return Some(near_box(p0, p1, center, axes, half_extents))
        }
        (Cuboid { center, axes, half_extents }, Segment(q0, q1)) => {
            return Some(near_box(q0, q1, center, axes, half_extents).swapped())
        }
        (Point(p), Cylinder { center, axis, half_height, radius }) => {
            return Some(ball_cylinder(p, center, axis, *half_height, *radius))
        }
        (Cylinder { center, axis, half_height, radius }, Point(q)) => {
            return Some(ball_cylinder(q, center, axis, *half_height, *radius).swapped())
        }
        _ => return None,
    };
    let d = pb - pa;
    Some(Closest { point_a: pa, d, gap: lowest(b, &d) - highest(a, &d) })
}

/// Closest points of segment `[p0, p1]` (a point when the ends are equal)
/// and a box, computed in the box's frame: there the box's support values
/// need no rotation, and one rotation takes the difference back.
#[inline(always)]
fn near_box<R: Real>(p0: &Vec3<R>, p1: &Vec3<R>, center: &Vec3<R>, axes: &Mat3<R>, half: &Vec3<R>) -> Closest<R> {
    let a = axes.tr_mul(&(p0 - center));
    let (point_a, q, highest) = if p0 == p1 {
        (*p0, a, None)
    } else {
        let b = axes.tr_mul(&(p1 - p0));
        let t = segment_near_box(&a, &b, half);
        (p0 + (p1 - p0) * t, a + b * t, Some(a + b))
    };
    let e = clamp_to_box(&q, half) - q;
    // The box's least value along e (its centre is the origin here) less
    // the segment's greatest, at one of its ends.
    let top = match highest {
        None => e.dot(&a),
        Some(end) => max(e.dot(&a), e.dot(&end)),
    };
    let gap = -(half.x * e.x.abs() + half.y * e.y.abs() + half.z * e.z.abs()) - top;
    Closest { point_a, d: axes * e, gap }
}

/// The parameter of the point of segment `a + b·t`, `t ∈ [0, 1]` (box
/// coordinates), nearest to the box of half-extents `half` centred at the
/// origin. The squared distance `Σ max(|xᵢ(t)| − hᵢ, 0)²` is
/// convex and piecewise quadratic in `t`, with breaks where some `xᵢ(t)`
/// crosses `±hᵢ` (at most six). On each piece the active faces are fixed,
/// so the piece's minimiser is one division; the least of the pieces'
/// minima is the segment's.
fn segment_near_box<R: Real>(a: &Vec3<R>, b: &Vec3<R>, half: &Vec3<R>) -> R {
    let (a, b, h) = ([a.x, a.y, a.z], [b.x, b.y, b.z], [half.x, half.y, half.z]);
    // The ends and the breaks inside (0, 1), the unused slots at +∞;
    // sorted by insertion (fixed bounds: no panic path, no slice sort).
    let mut ts = [R::INFINITY; 8];
    ts[0] = R::ZERO;
    ts[1] = R::ONE;
    let mut k = 2;
    for i in 0..3 {
        if b[i] != R::ZERO {
            for face in [h[i], -h[i]] {
                let t = (face - a[i]) / b[i];
                if t > R::ZERO && t < R::ONE && k < 8 {
                    ts[k] = t;
                    k += 1;
                }
            }
        }
    }
    for i in 1..8 {
        let mut j = i;
        while j > 0 && ts[j] < ts[j - 1] {
            ts.swap(j, j - 1);
            j -= 1;
        }
    }
    let (mut best_t, mut best) = (R::ZERO, R::INFINITY);
    for k in 1..8 {
        let (t0, t1) = (ts[k - 1], ts[k]);
        if !(t1 <= R::ONE) {
            break;
        }
        // The faces active on this piece, read at its middle.
        let mid = (t0 + t1) * R::HALF;
        let (mut num, mut den) = (R::ZERO, R::ZERO);
        let mut target = [None; 3];
        for i in 0..3 {
            let x = a[i] + b[i] * mid;
            let c = if x > h[i] {
                h[i]
            } else if x < -h[i] {
                -h[i]
            } else {
                continue;
            };
            target[i] = Some(c);
            num += (a[i] - c) * b[i];
            den += b[i] * b[i];
        }
        let t = if den > R::ZERO { max(t0, min(-num / den, t1)) } else { t0 };
        let mut value = R::ZERO;
        for i in 0..3 {
            if let Some(c) = target[i] {
                let e = a[i] + b[i] * t - c;
                value += e * e;
            }
        }
        if value < best {
            (best_t, best) = (t, value);
        }
    }
    best_t
}

/// Closest points of segments `[p0, p1]` and `[q0, q1]` (either may be a
/// point: equal ends). Minimises `|p0 + s·u − q0 − t·w|²` over the unit
/// square: the interior stationary point of the two normal equations, its
/// `s` clamped, `t` taken optimal for that `s` and clamped, and `s` taken
/// optimal again for a clamped `t` — the minimiser of a convex quadratic
/// over the square lies on the edge the unconstrained one leaves by.
fn segments<R: Real>(p0: &Vec3<R>, p1: &Vec3<R>, q0: &Vec3<R>, q1: &Vec3<R>) -> (Vec3<R>, Vec3<R>) {
    let u = p1 - p0;
    let w = q1 - q0;
    let r = p0 - q0;
    let (uu, ww, uw) = (u.dot(&u), w.dot(&w), u.dot(&w));
    let (ur, wr) = (u.dot(&r), w.dot(&r));
    // NaN goes to 0 (`min` keeps its NaN first argument, `max` then 0).
    let clamp = |x: R| max(R::ZERO, min(x, R::ONE));
    // The three divisions are independent of each other: taken first, as
    // reciprocals, they overlap in the divider instead of queueing along
    // the chain s₀ → t → s. Any s, t in [0, 1] give points of the
    // segments; the caller's certificate does not rest on their rounding.
    let inv = |x: R| if x > R::ZERO { R::ONE / x } else { R::ZERO };
    let (inv_uu, inv_ww) = (inv(uu), inv(ww));
    let det = uu * ww - uw * uw;
    // Parallel (or a point): any s will do; take A's start and B's best.
    let inv_det = if det > R::EPSILON * uu * ww { R::ONE / det } else { R::ZERO };
    let s0 = clamp((uw * wr - ww * ur) * inv_det);
    // `t` optimal for `s₀`, then `s` for `t`, each the 1-D minimiser clamped.
    let t = clamp((s0 * uw + wr) * inv_ww);
    let s = clamp((t * uw - ur) * inv_uu);
    (p0 + u * s, q0 + w * t)
}

/// Closest points of point `p` and a solid cylinder ([`near_cylinder`]),
/// with the gap the plane normal to their difference certifies (the
/// cylinder's least support value along it less `p`'s).
#[inline(always)]
fn ball_cylinder<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axis: &Vec3<R>, half_height: R, radius: R) -> Closest<R> {
    let d = near_cylinder(p, center, axis, half_height, radius) - p;
    let gap = d.dot(&(center - p)) - cylinder_reach(axis, half_height, radius, &d);
    Closest { point_a: *p, d, gap }
}

/// Closest point of the solid cylinder to `p`. The cylinder is a disc times
/// a segment in orthogonal subspaces (across and along the axis), so its
/// nearest point takes each part's own: the axial coordinate clamped to
/// `±half_height`, the offset across the axis shortened to `radius` when
/// longer (`p` itself when inside). Rounding only moves the point within
/// the cylinder's rounding; the caller's certificate does not rest on it.
fn near_cylinder<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axis: &Vec3<R>, half_height: R, radius: R) -> Vec3<R> {
    let (along, across) = along_and_across(p, center, axis);
    let squared = across.dot(&across);
    let across = if squared > radius * radius { across * (radius / Real::sqrt(squared)) } else { across };
    center + axis * max(-half_height, min(along, half_height)) + across
}

/// `p`'s offset from a cylinder's centre in the cylinder's two parts: its
/// coordinate along the unit `axis`, and the rest, across it.
#[inline(always)]
fn along_and_across<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axis: &Vec3<R>) -> (R, Vec3<R>) {
    let offset = p - center;
    let along = axis.dot(&offset);
    (along, offset - axis * along)
}

/// Closest point of the box to `p`: `p`'s box coordinates clamped to the
/// half-extents (`p` itself when inside).
fn point_in_box<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axes: &Mat3<R>, half: &Vec3<R>) -> Vec3<R> {
    center + axes * clamp_to_box(&axes.tr_mul(&(p - center)), half)
}

/// `max n·x` over the primitive.
#[inline(always)]
fn highest<R: Real>(c: &CorePrimitive<R>, n: &Vec3<R>) -> R {
    match c {
        CorePrimitive::Point(p) => n.dot(p),
        CorePrimitive::Segment(p, q) => max(n.dot(p), n.dot(q)),
        CorePrimitive::Cuboid { center, axes, half_extents } => n.dot(center) + reach(axes, half_extents, n),
        CorePrimitive::Cylinder { center, axis, half_height, radius } => {
            n.dot(center) + cylinder_reach_outlined(axis, *half_height, *radius, n)
        }
    }
}

/// `min n·x` over the primitive.
#[inline(always)]
fn lowest<R: Real>(c: &CorePrimitive<R>, n: &Vec3<R>) -> R {
    match c {
        CorePrimitive::Point(p) => n.dot(p),
        CorePrimitive::Segment(p, q) => min(n.dot(p), n.dot(q)),
        CorePrimitive::Cuboid { center, axes, half_extents } => n.dot(center) - reach(axes, half_extents, n),
        CorePrimitive::Cylinder { center, axis, half_height, radius } => {
            n.dot(center) - cylinder_reach_outlined(axis, *half_height, *radius, n)
        }
    }
}

/// A box's half-width along `n`: `Σ hᵢ |n · axisᵢ|`.
fn reach<R: Real>(axes: &Mat3<R>, half: &Vec3<R>, n: &Vec3<R>) -> R {
    let along = axes.tr_mul(n);
    half.x * along.x.abs() + half.y * along.y.abs() + half.z * along.z.abs()
}

/// A cylinder's half-width along `n`: `h·|n·axis| + r·|n⊥|`, `n⊥` the part
/// of `n` across the axis, taken as a vector (its length from
/// `|n|² − (n·axis)²` would cancel where `n` is nearly along the axis, a
/// ball over a cap).
#[inline(always)]
fn cylinder_reach<R: Real>(axis: &Vec3<R>, half_height: R, radius: R, n: &Vec3<R>) -> R {
    let along = n.dot(axis);
    half_height * along.abs() + radius * norm(&(n - axis * along))
}

/// [`cylinder_reach`] out of line, for [`highest`] and [`lowest`], which
/// every closed form inlines: its square root and its fallback would grow
/// the capsule pairs' code for an arm they never take.
#[inline(never)]
fn cylinder_reach_outlined<R: Real>(axis: &Vec3<R>, half_height: R, radius: R, n: &Vec3<R>) -> R {
    cylinder_reach(axis, half_height, radius, n)
}

/// Largest coordinate of the primitive (a box's by its centre and extents).
#[inline(always)]
fn extent<R: Real>(c: &CorePrimitive<R>) -> R {
    match c {
        CorePrimitive::Point(p) => max_abs(p),
        CorePrimitive::Segment(p, q) => max(max_abs(p), max_abs(q)),
        CorePrimitive::Cuboid { center, half_extents, .. } => {
            max_abs(center) + half_extents.x + half_extents.y + half_extents.z
        }
        CorePrimitive::Cylinder { center, half_height, radius, .. } => max_abs(center) + *half_height + *radius,
    }
}

/// Two boxes' contact by the separating-axis test ([`box_axes`]), in
/// closed form: overlapping, the depth ([`Boxes::depth`]); apart, the
/// distance where the features facing each other across the best axis
/// meet across it, else from the corner nearest the other box
/// ([`Boxes::apart`]). `tolerance` is the distance's,
/// `depth_tolerance` the depth's (relative to the scale). `None` when the
/// pair is not two boxes, when the boxes touch within rounding, where the
/// closed form does not certify the answer to the tolerance (GJK, then EPA
/// decide), or when anything is not finite.
pub(crate) fn box_contact<R: Real>(
    a: &CorePrimitive<R>,
    b: &CorePrimitive<R>,
    tolerance: R,
    depth_tolerance: R,
) -> Option<Proximity<R>> {
    let boxes = Boxes::of(a, b)?;
    let axes = boxes.axes()?;
    if axes.overlap > R::ZERO {
        boxes.depth(&axes, depth_tolerance).map(Proximity::Penetrating)
    } else {
        // Rebuilt field by field: moved whole (`map(Proximity::Separated)`)
        // the answer went through a byte-wise copy, at an odd offset, of
        // about 400 instructions on the Cortex-M4F.
        let Separation { distance, bounds, witness } = boxes.apart(&axes, tolerance)?;
        Some(Proximity::Separated(Separation { distance, bounds, witness }))
    }
}

/// Two boxes' signed-distance bounds by the separating-axis test
/// ([`box_axes`]), where they decide against `threshold`, and the best
/// axis (unit, from A towards B):
/// - overlapping along every axis: `Within`, the depth certified to the
///   axes' tilt (the deepest points are not needed);
/// - apart along some axis by more than `threshold` (less its slack):
///   `Clear`, the upper bound the distance of the centres;
/// - apart by at most `threshold`: the distance in closed form
///   ([`Boxes::apart`]), `Within` where it is at most `threshold`, `Clear`
///   where its lower bound is above (a corner's distance exceeds every
///   axis's gap).
///
/// The flag is `true` for `Clear`; the axis returned is the separation's
/// normal where the distance was computed. `None` otherwise (GJK decides),
/// and when the pair is not two boxes or anything is not finite.
pub(crate) fn box_threshold<R: Real>(
    a: &CorePrimitive<R>,
    b: &CorePrimitive<R>,
    threshold: R,
    tolerance: R,
) -> Option<(bool, Bounds<R>, Vec3<R>)> {
    let boxes = Boxes::of(a, b)?;
    let axes = boxes.axes()?;
    let n = axes.normal;
    if axes.overlap > R::ZERO {
        let (lower, upper) = axes.depth_bounds();
        return (lower > R::ZERO).then_some((false, Bounds { lower: -upper, upper: -lower }, n));
    }
    let gap = axes.gap_lower();
    if gap > threshold && gap > R::ZERO {
        return Some((true, Bounds { lower: gap, upper: max(norm(&(boxes.cb - boxes.ca)), gap) }, n));
    }
    let apart = boxes.apart(&axes, tolerance)?;
    let n = apart.witness.normal;
    if apart.bounds.lower > threshold {
        Some((true, apart.bounds, n))
    } else {
        (apart.bounds.upper <= threshold).then_some((false, apart.bounds, n))
    }
}

/// Two boxes, each as its centre, rotation and half-extents.
struct Boxes<'p, R: Real> {
    ca: &'p Vec3<R>,
    ra: &'p Mat3<R>,
    ha: &'p Vec3<R>,
    cb: &'p Vec3<R>,
    rb: &'p Mat3<R>,
    hb: &'p Vec3<R>,
}

impl<'p, R: Real> Boxes<'p, R> {
    /// The pair, when both primitives are boxes.
    fn of(a: &'p CorePrimitive<R>, b: &'p CorePrimitive<R>) -> Option<Self> {
        match (a, b) {
            (
                CorePrimitive::Cuboid { center: ca, axes: ra, half_extents: ha },
                CorePrimitive::Cuboid { center: cb, axes: rb, half_extents: hb },
            ) => Some(Self { ca, ra, ha, cb, rb, hb }),
            _ => None,
        }
    }

    fn axes(&self) -> Option<BoxAxes<R>> {
        box_axes(self.ca, self.ra, self.ha, self.cb, self.rb, self.hb)
    }

    /// Overlapping boxes: the least overlap over the axes is the depth,
    /// along its axis, certified to the axes' tilt; the deepest points
    /// are where the features facing each other across the axis meet
    /// ([`Boxes::facing_points`]). `None` when the bounds are further apart
    /// than `tolerance · scale` or the features do not meet.
    fn depth(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<Penetration<R>> {
        let (depth, n, scale, rounding) = (axes.overlap, axes.normal, axes.scale, axes.rounding);
        let (lower, upper) = axes.depth_bounds();
        if !(depth > R::ZERO) || !(depth - lower <= max(tolerance * scale, rounding * R::lit(2.0))) {
            return None;
        }
        let (pa, pb) = self.facing_points(&n, depth, max(tolerance * scale, rounding))?;
        Some(Penetration {
            depth,
            bounds: Bounds { lower: max(lower, R::ZERO), upper },
            witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: n },
        })
    }

    /// Boxes apart along the best axis: where the features facing each
    /// other across it meet across it, their points are the axis's gap
    /// apart, which bounds the distance from below; the distance, certified
    /// (upper bound: those points' distance). `None` when they touch within
    /// rounding, when the features do not meet (the closest points are off
    /// every face of the CSO), or when the bounds are further apart than
    /// `tolerance · scale`.
    fn gap(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<Separation<R>> {
        let (n, scale, rounding) = (axes.normal, axes.scale, axes.rounding);
        let lower = axes.gap_lower();
        if !(lower > rounding) {
            return None;
        }
        let (pa, pb) = self.facing_points(&n, axes.overlap, max(tolerance * scale, rounding))?;
        // `pb` is within the tolerance of B: its point there is a point of B.
        certified(pa, point_in_box(&pb, self.cb, self.rb, self.hb), lower, axes, tolerance)
    }

    /// Boxes apart along the best axis: their distance, certified, where
    /// the features facing each other across that axis meet
    /// ([`Boxes::gap`]), else where a corner of either box is nearest the
    /// other box ([`Boxes::corners`]).
    #[inline(always)]
    fn apart(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<Separation<R>> {
        self.gap(axes, tolerance).or_else(|| self.corners(axes, tolerance))
    }

    /// The distance of boxes apart whose closest points include a corner of
    /// either box: the least distance of the sixteen corners to the other
    /// box (each in closed form, in that box's frame), certified below by
    /// the gap of the two boxes' support values along its direction. Two
    /// boxes' closest points are a corner against a box, an edge across an
    /// edge (their common normal, one of the edge axes) or a face against
    /// a face (a face axis; where neither face's corner is in the closest
    /// set, edges of the two faces cross there, which an edge axis covers
    /// too), and parallel edges keep a closest pair at the end of the
    /// shorter overlap, a corner: where the facing features across the
    /// best axis do not meet, the closest points hold a corner. `None`
    /// where the bounds are further apart than `tolerance · scale` (the
    /// closest points were an edge across an edge after all, left open by
    /// rounding) or the boxes touch within rounding.
    fn corners(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<Separation<R>> {
        let rounding = axes.rounding;
        // B in A's frame (centre `t`, axes the columns of `r`), and A in
        // B's (centre `−rᵀt`, axes the columns of `rᵀ`).
        let r = self.ra.tr_mul(self.rb);
        let t = self.ra.tr_mul(&(self.cb - self.ca));
        let rt = r.transpose();
        let (sb, db) = nearest_corner(&t, &r, self.hb, self.ha);
        let (sa, da) = nearest_corner(&-(rt * t), &rt, self.ha, self.hb);
        // The corner, the nearest point of the other box, in the pair
        // frame; and the direction from A to B in A's frame.
        let (pa, pb, n) = if db <= da {
            let v = t + r * sb.component_mul(self.hb);
            let q = clamp_to_box(&v, self.ha);
            (self.ca + self.ra * q, self.ca + self.ra * v, v - q)
        } else {
            let u = rt * (sa.component_mul(self.ha) - t);
            let q = clamp_to_box(&u, self.hb);
            (self.cb + self.rb * u, self.cb + self.rb * q, r * (q - u))
        };
        // The support gap along `n`: B's least `n·x` less A's greatest.
        let len = norm(&n);
        if !(len > R::ZERO) {
            return None;
        }
        let n = n * (R::ONE / len);
        let reach_a = self.ha.x * n.x.abs() + self.ha.y * n.y.abs() + self.ha.z * n.z.abs();
        let nb = rt * n;
        let reach_b = self.hb.x * nb.x.abs() + self.hb.y * nb.y.abs() + self.hb.z * nb.z.abs();
        let lower = max(n.dot(&t) - reach_b - reach_a - rounding, axes.gap_lower());
        if !(lower > rounding) {
            return None;
        }
        certified(pa, pb, lower, axes, tolerance)
    }

    /// A point of box A and one of box B, `pa − pb = overlap · n`, on the
    /// features of the boxes that face each other across the unit axis `n`
    /// (from A towards B): A's feature farthest along `n` and B's farthest
    /// along `−n` (a vertex, an edge or a face: flat within `eps`), which
    /// meet across the axis when it is a face of the boxes' CSO. An edge
    /// facing an edge meets it at their closest points (closed form);
    /// other features by alternating projections between the two (boxes
    /// with some zero extents). `None` when they do not meet within `eps`.
    fn facing_points(&self, n: &Vec3<R>, overlap: R, eps: R) -> Option<(Vec3<R>, Vec3<R>)> {
        let (fa, ha_flat) = feature(self.ca, self.ra, self.ha, n, eps);
        let (fb, hb_flat) = feature(self.cb, self.rb, self.hb, &-n, eps);
        let shift = n * overlap;
        let edge = |h: &Vec3<R>| (h.x != R::ZERO) as u8 + (h.y != R::ZERO) as u8 + (h.z != R::ZERO) as u8 == 1;
        let pa = if edge(&ha_flat) && edge(&hb_flat) {
            // The projections converge only linearly between two segments.
            let (ea, eb) = (self.ra * ha_flat, self.rb * hb_flat);
            segments(&(fa - ea), &(fa + ea), &(fb - eb), &(fb + eb)).0
        } else {
            let mut pa = fa;
            for _ in 0..FEATURE_PROJECTIONS {
                let pb = point_in_box(&(pa - shift), &fb, self.rb, &hb_flat);
                pa = point_in_box(&(pb + shift), &fa, self.ra, &ha_flat);
            }
            pa
        };
        let pb = pa - shift;
        (norm(&(point_in_box(&pb, &fb, self.rb, &hb_flat) - pb)) <= eps).then_some((pa, pb))
    }
}

/// Two boxes' distance from a point of each, `pa` of A and `pb` of B (up
/// to rounding), and a lower bound on it: their distance, certified
/// (the upper bound their distance plus the rounding), where the bounds
/// agree to `tolerance · scale` (or twice the rounding). `None` where they
/// do not, or where the points coincide or their distance is not finite.
#[inline(always)]
fn certified<R: Real>(pa: Vec3<R>, pb: Vec3<R>, lower: R, axes: &BoxAxes<R>, tolerance: R) -> Option<Separation<R>> {
    let (scale, rounding) = (axes.scale, axes.rounding);
    let d = pb - pa;
    let squared = d.dot(&d);
    if !(squared >= R::MIN_POSITIVE && squared <= R::MAX) {
        return None;
    }
    let distance = Real::sqrt(squared);
    let upper = distance + rounding;
    if !(upper - lower <= max(tolerance * scale, rounding * R::lit(2.0))) {
        return None;
    }
    Some(Separation {
        distance,
        bounds: Bounds { lower: min(lower, distance), upper },
        witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: d * (R::ONE / distance) },
    })
}

/// The corner of a box (centre `c`, axes the columns of `axes`,
/// half-extents `own`) nearest the box `[−other, other]`: its signs (±1
/// per axis: the corner is `c + axes · (signs ∘ own)`) and its squared
/// distance. The eight corners from the centre by adding and subtracting
/// the three scaled axes; each one's distance by how far each coordinate
/// passes the other box's half-extent.
#[inline(always)]
fn nearest_corner<R: Real>(c: &Vec3<R>, axes: &Mat3<R>, own: &Vec3<R>, other: &Vec3<R>) -> (Vec3<R>, R) {
    let (u, v, w) = (axes.column(0) * own.x, axes.column(1) * own.y, axes.column(2) * own.z);
    let outside = |p: Vec3<R>| {
        let e = |x: R, h: R| max(x.abs() - h, R::ZERO);
        let (ex, ey, ez) = (e(p.x, other.x), e(p.y, other.y), e(p.z, other.z));
        ex * ex + ey * ey + ez * ez
    };
    let mut best = (Vec3::zeros(), R::INFINITY);
    for su in [R::ONE, -R::ONE] {
        let pu = c + u * su;
        for sv in [R::ONE, -R::ONE] {
            let puv = pu + v * sv;
            for sw in [R::ONE, -R::ONE] {
                let d = outside(puv + w * sw);
                if d < best.1 {
                    best = (Vec3::new(su, sv, sw), d);
                }
            }
        }
    }
    best
}

/// `p` clamped to the box `[−half, half]`.
#[inline(always)]
fn clamp_to_box<R: Real>(p: &Vec3<R>, half: &Vec3<R>) -> Vec3<R> {
    Vec3::new(max(-half.x, min(p.x, half.x)), max(-half.y, min(p.y, half.y)), max(-half.z, min(p.z, half.z)))
}

/// The penetration of a point into a solid cylinder (a ball's core in a
/// cylinder's, either order), exact: the point leaves the cylinder
/// soonest through the side (depth `r − ρ`, `ρ` its distance from the
/// axis, along its offset from the axis; any direction across the axis
/// when it is on it) or through the nearer cap (depth `h − |z|` along
/// `±axis`), whichever is shallower. The depth carries the rounding of the
/// coordinates, `16·ε·scale` either way. `None` when the pair is not a
/// point and a cylinder, when the point is not inside by more than that
/// rounding (the caller's EPA decides), or when anything is not finite.
pub(crate) fn cylinder_penetration<R: Real>(a: &CorePrimitive<R>, b: &CorePrimitive<R>) -> Option<Penetration<R>> {
    use CorePrimitive::{Cylinder, Point};
    let (point, center, axis, half_height, radius, point_first) = match (a, b) {
        (Point(p), Cylinder { center, axis, half_height, radius }) => (p, center, axis, *half_height, *radius, true),
        (Cylinder { center, axis, half_height, radius }, Point(p)) => (p, center, axis, *half_height, *radius, false),
        _ => return None,
    };
    let (along, across) = along_and_across(point, center, axis);
    // The rounding of `along` leaves a part along the axis in `across` of
    // about ε·|offset|: projected out once more, so that the direction
    // taken from it below is across the axis and unit to rounding.
    let across = across - axis * axis.dot(&across);
    let rho = norm(&across);
    let (side, cap) = (radius - rho, half_height - along.abs());
    let rounding = R::lit(16.0) * R::EPSILON * max(extent(a), extent(b));
    // `out`: the direction in which the point leaves the cylinder. Across
    // the axis, the offset's direction; within rounding of the axis that
    // direction is noise, and any direction across the axis leaves at the
    // same depth to rounding.
    let (depth, out) = if side < cap {
        let out = if rho > rounding { across * (R::ONE / rho) } else { crate::math::any_orthogonal(axis) };
        (side, out)
    } else {
        (cap, if along < R::ZERO { -axis } else { *axis })
    };
    if !(depth > rounding) || !depth.finite() || !out.iter().all(|x| x.finite()) {
        return None;
    }
    // The surface point the point leaves by; the normal from A to B, with
    // A's point less B's equal to depth·normal.
    let surface = point + out * depth;
    let (point_a, point_b, normal) = if point_first { (*point, surface, -out) } else { (surface, *point, out) };
    Some(Penetration {
        depth,
        bounds: Bounds { lower: max(depth - rounding, R::ZERO), upper: depth + rounding },
        witness: Witness { point_a: Pt3::from(point_a), point_b: Pt3::from(point_b), normal },
    })
}

/// Rounds of alternating projection that find the deepest points of two
/// box features: one when either is a vertex (the generic case), a few for
/// an edge across an edge or a face on a face.
const FEATURE_PROJECTIONS: usize = 4;

/// The feature of a box farthest along `dir`, as a box with zero extents
/// where the feature is not flat: centre and half-extents (in the box's
/// axes). An axis is flat when the box's extent along it moves the support
/// value by at most `eps`.
fn feature<R: Real>(c: &Vec3<R>, r: &Mat3<R>, h: &Vec3<R>, dir: &Vec3<R>, eps: R) -> (Vec3<R>, Vec3<R>) {
    let local = r.tr_mul(dir);
    let pick = |x: R, hx: R| {
        if (x.abs() * (hx + hx)) <= eps {
            (R::ZERO, hx)
        } else if x < R::ZERO {
            (-hx, R::ZERO)
        } else {
            (hx, R::ZERO)
        }
    };
    let ((ox, fx), (oy, fy), (oz, fz)) = (pick(local.x, h.x), pick(local.y, h.y), pick(local.z, h.z));
    (c + r * Vec3::new(ox, oy, oz), Vec3::new(fx, fy, fz))
}

/// A separation of the cores (distance `d`, certificate `[lo, hi]`) as the
/// bodies' answer: signed distance `d − m`; apart when `lo > m`, touching
/// or overlapping when `hi − m` is within the tolerance at `scale` (depth
/// `m − d`, clamped at 0), else undetermined.
pub(crate) fn with_margins<R: Real>(
    s: &Separation<R>,
    scale: R,
    ma: R,
    mb: R,
    budget: &Budget<R>,
    to_world: &Vec3<R>,
) -> Proximity<R> {
    let m = ma + mb;
    let witness = swept(&s.witness, ma, mb, to_world);
    let (lo, hi) = (s.bounds.lower - m, s.bounds.upper - m);
    if lo > R::ZERO {
        Proximity::Separated(Separation { distance: s.distance - m, bounds: Bounds { lower: lo, upper: hi }, witness })
    } else if hi <= budget.tolerance * scale {
        // Overlapping, or touching within the tolerance (GJK's
        // contract): depth m − d, clamped at 0.
        Proximity::Penetrating(Penetration {
            depth: max(m - s.distance, R::ZERO),
            bounds: Bounds { lower: max(-hi, R::ZERO), upper: max(-lo, R::ZERO) },
            witness,
        })
    } else {
        // A stalled core GJK whose bounds straddle the margins: the
        // signed distance may be either sign (a capsule of aspect
        // 1e7 must not be answered `Penetrating` where GJK on the
        // whole bodies certifies a gap).
        Proximity::Undetermined { reason: Undetermined::Degenerate, bounds: Bounds { lower: lo, upper: hi } }
    }
}

/// The witness of the cores moved out to the bodies' surfaces: A's point
/// by its margin along the normal (towards B), B's by its margin against
/// it, for a separation and a penetration alike; then by `to_world`.
pub(crate) fn swept<R: Real>(core: &Witness<R>, ma: R, mb: R, to_world: &Vec3<R>) -> Witness<R> {
    let n = core.normal;
    Witness {
        point_a: Pt3::from(core.point_a.coords + (n * ma + to_world)),
        point_b: Pt3::from(core.point_b.coords - (n * mb - to_world)),
        normal: n,
    }
}
