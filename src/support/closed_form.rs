//! Closest points of two cores in closed form — point or segment against
//! point, segment or box, point against cylinder — with the certificate GJK
//! would give: the distance of the two points found is an upper bound, and the
//! gap between the cores' support values along their direction a lower
//! bound. [`contact`](super::contact::contact) and
//! [`clearance`](super::contact::clearance) take the closed form when the
//! two bounds agree to the budget's tolerance and certify a gap, and run GJK
//! otherwise (overlapping or touching cores, a pair with no closed form).
//! Two boxes have their own module, [`super::box_pair`].

use crate::math::{max, max_abs, min, norm, root_and_reciprocal, Mat3, Pt3, Real, Vec3};
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
    let (distance, inv) = root_and_reciprocal(squared)?;
    // The points found lie in the primitives: their coordinates are within
    // the primitives' extents.
    let scale = max(extent(a), extent(b));
    let floor = R::lit(16.0) * R::EPSILON * scale;
    // The tests on the lower bound `min(gap, |d|²) / |d|`, times `|d|`: they
    // need not wait for the reciprocal, which only the answer reads.
    let scaled = min(gap, squared);
    if !(scaled > floor * distance) || squared - scaled > max(tolerance * scale, floor) * distance {
        return None;
    }
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
    let (pa, d) = match (a, b) {
        (Point(p), Point(q)) => (*p, q - p),
        (Point(p), Segment(q0, q1)) => {
            let (wt, r) = toward_segment(p, q0, q1);
            (*p, wt - r)
        }
        (Segment(p0, p1), Point(q)) => {
            let (us, r) = toward_segment(q, p0, p1);
            (p0 + us, r - us)
        }
        (Segment(p0, p1), Segment(q0, q1)) => segments(p0, p1, q0, q1),
        (Point(p), Cuboid { center, axes, half_extents }) => {
            return Some(near_box(p, None, center, axes, half_extents))
        }
        (Cuboid { center, axes, half_extents }, Point(q)) => {
            return Some(near_box(q, None, center, axes, half_extents).swapped())
        }
        (Segment(p0, p1), Cuboid { center, axes, half_extents }) => {
            return Some(near_box(p0, Some(p1), center, axes, half_extents))
        }
        (Cuboid { center, axes, half_extents }, Segment(q0, q1)) => {
            return Some(near_box(q0, Some(q1), center, axes, half_extents).swapped())
        }
        (Point(p), Cylinder { center, axis, half_height, radius }) => {
            return Some(ball_cylinder(p, center, axis, *half_height, *radius))
        }
        (Cylinder { center, axis, half_height, radius }, Point(q)) => {
            return Some(ball_cylinder(q, center, axis, *half_height, *radius).swapped())
        }
        _ => return None,
    };
    Some(Closest { point_a: pa, d, gap: lowest(b, &d) - highest(a, &d) })
}

/// Closest points of segment `[p0, p1]` (the point `p0` when `p1` is
/// `None`) and a box, computed in the box's frame: there the box's support
/// values need no rotation, and one rotation takes the difference back.
/// A point is told by the type, not by `p0 == p1`: a comparison cannot
/// rule the segment's branch out (it fails on NaN), and that branch's
/// out-of-line call then kept the box's half-extents in memory, where x86
/// stored them as two words and loaded them across both.
#[inline(always)]
fn near_box<R: Real>(
    p0: &Vec3<R>,
    p1: Option<&Vec3<R>>,
    center: &Vec3<R>,
    axes: &Mat3<R>,
    half: &Vec3<R>,
) -> Closest<R> {
    let a = axes.tr_mul(&(p0 - center));
    let (point_a, q, highest) = match p1 {
        None => (*p0, a, None),
        Some(p1) => {
            let b = axes.tr_mul(&(p1 - p0));
            let t = segment_near_box(&a, &b, half);
            (p0 + (p1 - p0) * t, a + b * t, Some(a + b))
        }
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

/// The point of segment `[q0, q1]` nearest point `p`, as its offset `w·t`
/// from `q0` (`w = q1 − q0`, `t` the projection's parameter clamped to
/// [0, 1]), and `p − q0`. The same numbers as [`segments`] with one
/// segment a point, whose clamped parameter is 0, without the chain
/// through that parameter which [`segments`] needs for two segments (the
/// interior solution's determinant and division, then `t` from it): on a
/// ball against a capsule it took about a third of the query's time.
#[inline(always)]
fn toward_segment<R: Real>(p: &Vec3<R>, q0: &Vec3<R>, q1: &Vec3<R>) -> (Vec3<R>, Vec3<R>) {
    let w = q1 - q0;
    let r = p - q0;
    let t = unit_interval(w.dot(&r) * reciprocal_or_zero(w.dot(&w)));
    (w * t, r)
}

/// `x` clamped to [0, 1]; NaN goes to 0 (`min` keeps its NaN first
/// argument, `max` then 0): a segment parameter.
#[inline(always)]
fn unit_interval<R: Real>(x: R) -> R {
    max(R::ZERO, min(x, R::ONE))
}

/// `1/x` for a positive `x`, else 0: a segment's squared length, 0 for a
/// point, whose parameter then stays 0.
#[inline(always)]
fn reciprocal_or_zero<R: Real>(x: R) -> R {
    if x > R::ZERO {
        R::ONE / x
    } else {
        R::ZERO
    }
}

/// Closest points of segments `[p0, p1]` and `[q0, q1]` (either may be a
/// point: equal ends): the first segment's, and the offset from it to the
/// second's. The offset is formed from the parameters, not as the
/// difference of two returned points: x86 code generation stored those
/// packed across the pair and loaded them back straddling two stores (a
/// failed store-to-load forwarding, about ten cycles). Minimises
/// `|p0 + s·u − q0 − t·w|²` over the unit square: the interior stationary
/// point of the two normal equations, its `s` clamped, `t` taken optimal
/// for that `s` and clamped, and `s` taken optimal again for a clamped `t`
/// — the minimiser of a convex quadratic over the square lies on the edge
/// the unconstrained one leaves by.
// Inlined into each caller: out of line in `gjk::distance` on capsules, a
// query took 24 more instructions on x86.
#[inline(always)]
pub(super) fn segments<R: Real>(p0: &Vec3<R>, p1: &Vec3<R>, q0: &Vec3<R>, q1: &Vec3<R>) -> (Vec3<R>, Vec3<R>) {
    let u = p1 - p0;
    let w = q1 - q0;
    let r = p0 - q0;
    let (uu, ww, uw) = (u.dot(&u), w.dot(&w), u.dot(&w));
    let (ur, wr) = (u.dot(&r), w.dot(&r));
    let clamp = unit_interval::<R>;
    // The three divisions are independent of each other: taken first, as
    // reciprocals, they overlap in the divider instead of queueing along
    // the chain s₀ → t → s. Any s, t in [0, 1] give points of the
    // segments; the caller's certificate does not rest on their rounding.
    let (inv_uu, inv_ww) = (reciprocal_or_zero(uu), reciprocal_or_zero(ww));
    let det = uu * ww - uw * uw;
    // Parallel (or a point): any s will do; take A's start and B's best.
    let inv_det = if det > R::EPSILON * uu * ww { R::ONE / det } else { R::ZERO };
    let s0 = clamp((uw * wr - ww * ur) * inv_det);
    // `t` optimal for `s₀`, then `s` for `t`, each the 1-D minimiser clamped.
    let t = clamp((s0 * uw + wr) * inv_ww);
    let s = clamp((t * uw - ur) * inv_uu);
    (p0 + u * s, w * t - (r + u * s))
}

/// Closest points of point `p` and a solid cylinder, with the gap the
/// plane normal to their difference certifies (the cylinder's least
/// support value along it less `p`'s). The cylinder is a disc times a
/// segment in orthogonal subspaces (across and along the axis), so its
/// nearest point takes each part's own: the axial coordinate clamped to
/// `±half_height`, the offset across the axis shortened to `radius` when
/// longer (`p` itself when inside). The difference is formed from those
/// two moves, not as the nearest point less `p`: no cancellation of the
/// centre's coordinates, and fewer live vectors (x86 spilled the nearest
/// point as two words and reloaded it across both). Rounding only moves
/// the point within the cylinder's rounding; the certificate does not rest
/// on it.
#[inline(always)]
fn ball_cylinder<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axis: &Vec3<R>, half_height: R, radius: R) -> Closest<R> {
    let (along, across) = along_and_across(p, center, axis);
    let squared = across.dot(&across);
    let shorten = if squared > radius * radius { radius / Real::sqrt(squared) - R::ONE } else { R::ZERO };
    let d = axis * (max(-half_height, min(along, half_height)) - along) + across * shorten;
    let gap = d.dot(&(center - p)) - cylinder_reach(axis, half_height, radius, &d);
    Closest { point_a: *p, d, gap }
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
pub(super) fn point_in_box<R: Real>(p: &Vec3<R>, center: &Vec3<R>, axes: &Mat3<R>, half: &Vec3<R>) -> Vec3<R> {
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

/// `p` clamped to the box `[−half, half]`.
#[inline(always)]
pub(super) fn clamp_to_box<R: Real>(p: &Vec3<R>, half: &Vec3<R>) -> Vec3<R> {
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

/// What bounds on the bodies' signed distance say (the cores' bounds less
/// the margins, [`margin_verdict`]).
pub(crate) enum MarginVerdict {
    /// The bodies are apart: the lower bound is positive.
    Apart,
    /// The bodies overlap, or touch within the tolerance: the upper bound
    /// is at most `tolerance · scale`.
    Touching,
    /// The bounds straddle zero by more: either sign.
    Open,
}

/// The verdict on sphere-swept bodies whose signed distance is certified in
/// `[lo, hi]` (the cores' bounds less the margins), tolerance at `scale`.
/// Open where a stalled core GJK's bounds straddle the margins: the signed
/// distance may be either sign (a capsule of aspect 1e7 must not be
/// answered overlapping where GJK on the whole bodies certifies a gap).
#[inline(always)]
pub(crate) fn margin_verdict<R: Real>(lo: R, hi: R, tolerance: R, scale: R) -> MarginVerdict {
    if lo > R::ZERO {
        MarginVerdict::Apart
    } else if hi <= tolerance * scale {
        MarginVerdict::Touching
    } else {
        MarginVerdict::Open
    }
}

/// A separation of the cores (distance `d`, certificate `[lo, hi]`) as the
/// bodies' answer ([`margin_verdict`]): signed distance `d − m`; apart
/// when `lo > m`, touching or overlapping when `hi − m` is within the
/// tolerance at `scale` (depth `m − d`, clamped at 0), else undetermined.
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
    match margin_verdict(lo, hi, budget.tolerance, scale) {
        MarginVerdict::Apart => Proximity::Separated(Separation {
            distance: s.distance - m,
            bounds: Bounds { lower: lo, upper: hi },
            witness,
        }),
        // Overlapping, or touching within the tolerance (GJK's contract):
        // depth m − d, clamped at 0.
        MarginVerdict::Touching => Proximity::Penetrating(Penetration {
            depth: max(m - s.distance, R::ZERO),
            bounds: Bounds { lower: max(-hi, R::ZERO), upper: max(-lo, R::ZERO) },
            witness,
        }),
        MarginVerdict::Open => {
            Proximity::Undetermined { reason: Undetermined::Degenerate, bounds: Bounds { lower: lo, upper: hi } }
        }
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
