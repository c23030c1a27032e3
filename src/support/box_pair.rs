//! Two boxes in closed form, by their separating axes
//! ([`super::separating_axes`]): overlapping, the depth along the least
//! overlap; apart, the distance where the features facing each other
//! across the best axis meet, else the distance of the corner nearest the
//! other box. Each answer carries the certificate GJK would give, and the
//! caller runs GJK where the closed form leaves it open.

use super::closed_form::{clamp_to_box, point_in_box, segments};
use super::separating_axes::{box_axes, BoxAxes};
use super::simplex::Simplex;
use crate::math::{max, max_abs, min, norm, sgn, Mat3, Pt3, Real, Vec3};
use crate::query::{Bounds, Penetration, Proximity, Separation, Witness};
use crate::shape::{CorePrimitive, CsoPoint};

/// Two boxes' contact by the separating-axis test ([`box_axes`]), in
/// closed form: overlapping, the depth ([`Boxes::depth`]); apart, the
/// distance where the features facing each other across the best axis
/// meet across it, else from the corner nearest the other box
/// ([`Boxes::apart`]); within the tolerance of touching, where the
/// rounding (or an axis's tilt) certifies neither the gap nor the depth,
/// touching: the depth along the best axis between a point of each box, 0
/// where they are apart or the point is one of both ([`Boxes::touching`]).
/// `tolerance` is the distance's, `depth_tolerance` the depth's (relative
/// to the scale). `None` when the pair is not two boxes, where the closed
/// form does not certify the answer to the tolerance (GJK, then EPA
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
        if let Some(p) = boxes.depth(&axes, depth_tolerance) {
            return Some(Proximity::Penetrating(p));
        }
    } else if let Some(Separation { distance, bounds, witness }) = boxes.apart(&axes, tolerance) {
        // Rebuilt field by field: moved whole (`map(Proximity::Separated)`)
        // the answer went through a byte-wise copy, at an odd offset, of
        // about 400 instructions on the Cortex-M4F.
        return Some(Proximity::Separated(Separation { distance, bounds, witness }));
    }
    // Touching within the tolerance, neither the gap nor the depth
    // certified: the depth along the axis between a point of each box
    // (0 where they are apart), its bounds minus the signed distance's,
    // clamped at 0 (touching within the tolerance is contact, as in
    // `with_margins`).
    let (pa, pb, distance) = boxes.touching(&axes, tolerance)?;
    let n = axes.normal;
    Some(Proximity::Penetrating(Penetration {
        depth: max((pa - pb).dot(&n), R::ZERO),
        bounds: Bounds { lower: R::ZERO, upper: max(-distance.lower, R::ZERO) },
        witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: n },
    }))
}

/// What the separating axes say of two boxes for GJK's distance and
/// intersection queries ([`box_gjk`]).
pub(crate) enum ForGjk<R: Real> {
    /// Apart: their distance, certified ([`Boxes::apart`]).
    Apart(Separation<R>),
    /// Overlapping: a tetrahedron of CSO points around the origin, the
    /// answer GJK gives and EPA starts from.
    Overlapping(Enclosing<R>),
    /// Touching within the tolerance, the gap not certified: a point of
    /// A and one of B at most `tolerance · scale` apart (GJK's one-point
    /// answer "touching within the tolerance"), and the best axis (unit,
    /// from A towards B).
    Touching {
        /// A's point.
        a: Vec3<R>,
        /// B's point.
        b: Vec3<R>,
        /// The best axis.
        normal: Vec3<R>,
    },
}

/// Two boxes' answer for GJK's distance and intersection queries, in closed
/// form: apart by more than `exit_above` along an axis (the intersection
/// test's early exit; `R::INFINITY` for the distance), that axis's
/// separation ([`Boxes::across`]); apart, their separation, as
/// [`box_contact`] finds it; overlapping,
/// or touching within rounding, a tetrahedron of CSO points around the
/// origin ([`Boxes::enclosing`]); within the tolerance of touching, where
/// neither is certified, a point of each box, or at a tolerance finer than
/// the rounding a point of both as computed ([`Boxes::touching`]). `None`
/// where the answer is left open (bounds apart by more than the tolerance,
/// no point of both boxes found), when the pair is not two boxes, or when
/// anything is not finite: GJK decides.
pub(crate) fn box_gjk<R: Real>(
    a: &CorePrimitive<R>,
    b: &CorePrimitive<R>,
    tolerance: R,
    exit_above: R,
) -> Option<ForGjk<R>> {
    let boxes = Boxes::of(a, b)?;
    let axes = boxes.axes()?;
    // GJK's early exit: a lower bound above `exit_above` and the rounding
    // ends the intersection test, and the axes give one without the
    // closest features.
    let gap = axes.gap_lower();
    if gap > exit_above && gap > axes.rounding {
        if let Some(s) = boxes.across(&axes, gap) {
            return Some(ForGjk::Apart(s));
        }
    }
    // Overlapping, or touching within rounding: GJK's answer is then a
    // simplex around the origin too ("intersecting or touching within the
    // tolerance").
    if axes.overlap > -axes.rounding {
        if let Some(e) = boxes.enclosing(&axes, tolerance) {
            return Some(ForGjk::Overlapping(e));
        }
    }
    if !(axes.overlap > R::ZERO) {
        if let Some(Separation { distance, bounds, witness }) = boxes.apart(&axes, tolerance) {
            // Rebuilt field by field, as in `box_contact`.
            return Some(ForGjk::Apart(Separation { distance, bounds, witness }));
        }
    }
    let (a, b, _) = boxes.touching(&axes, tolerance)?;
    Some(ForGjk::Touching { a, b, normal: axes.normal })
}

/// Four corners of one box and a point of the other, whose differences
/// are four CSO points around the origin: `corner − point` where the
/// corners are A's, `point − corner` where they are B's. `weights` are the
/// origin's barycentric weights in them.
pub(crate) struct Enclosing<R: Real> {
    corners: [Vec3<R>; 4],
    point: Vec3<R>,
    weights: [R; 4],
    of_a: bool,
    /// The axis of least overlap, unit, from A towards B.
    pub normal: Vec3<R>,
}

impl<R: Real> Enclosing<R> {
    /// The tetrahedron as GJK's simplex, the body points moved by
    /// `to_world` (the CSO points stay as computed, in the pair frame).
    #[inline(always)]
    pub fn simplex(&self, to_world: &Vec3<R>) -> Simplex<R> {
        let p = self.point;
        let cso = |corner: Vec3<R>| {
            let (a, b) = if self.of_a { (corner, p) } else { (p, corner) };
            CsoPoint { w: a - b, a: Pt3::from(a + to_world), b: Pt3::from(b + to_world) }
        };
        let [c0, c1, c2, c3] = self.corners;
        Simplex::around_origin([cso(c0), cso(c1), cso(c2), cso(c3)], self.weights)
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
///   axis's gap);
/// - touching within the tolerance, where neither certifies the sign: the
///   bounds from a point of each box, or, at a tolerance finer than the
///   rounding, 0 above from a point of both ([`Boxes::touching`]).
///
/// Bounds that hold the threshold are `Within` where they are no further
/// apart than `tolerance · scale` (a tie, as GJK answers it when it
/// converges there).
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
    let within = tolerance * axes.scale;
    // `Clear` above the threshold, `Within` at or below it, or on a tie
    // bracketed to the tolerance (the threshold query's contract).
    let decide = |bounds: Bounds<R>| {
        if bounds.lower > threshold {
            Some(true)
        } else {
            (bounds.upper <= threshold || bounds.upper - bounds.lower <= within).then_some(false)
        }
    };
    if axes.overlap > R::ZERO {
        let (lower, upper) = axes.depth_bounds();
        if lower > R::ZERO {
            return Some((false, Bounds { lower: -upper, upper: -lower }, n));
        }
    } else {
        let gap = axes.gap_lower();
        if gap > threshold && gap > R::ZERO {
            return Some((true, Bounds { lower: gap, upper: max(norm(&(boxes.cb - boxes.ca)), gap) }, n));
        }
        if let Some(apart) = boxes.apart(&axes, tolerance) {
            return decide(apart.bounds).map(|clear| (clear, apart.bounds, apart.witness.normal));
        }
    }
    // Touching within the tolerance, from outside or inside: the distance
    // is at most that of a point of each box.
    let (_, _, bounds) = boxes.touching(&axes, tolerance)?;
    decide(bounds).map(|clear| (clear, bounds, n))
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

    /// Overlapping boxes: four CSO points around the origin, from a point
    /// `m` of both boxes. With `m` written as a convex combination of four
    /// corners `cₖ` of one box, `m = Σ λₖ cₖ`, the origin is `Σ λₖ (cₖ − m)`,
    /// and each `cₖ − m` is a CSO point (`m` lies in the other box). The
    /// corners and weights are those of the Freudenthal (Kuhn) simplex of
    /// the box that holds `m`: with `m`'s box coordinates scaled to
    /// `yᵢ ∈ [0, 1]` and sorted, `y_π₁ ≥ y_π₂ ≥ y_π₃`, the corners step from
    /// the all-low one along `π₁`, then `π₂`, then `π₃`, with weights
    /// `1 − y_π₁`, `y_π₁ − y_π₂`, `y_π₂ − y_π₃`, `y_π₃` (all nonnegative).
    /// The corners are taken from the box whose least half-extent is
    /// larger (a tetrahedron of volume).
    ///
    /// `m` starts at the middle of the deepest points
    /// ([`Boxes::facing_points`]), `pa` on A's feature facing B and
    /// `pb = pa − depth·n` on B's: on a shallow overlap the segment between
    /// them lies in both boxes (each box's tangent cone at its facing
    /// feature holds the axis). A deep one can pass through a box, and the
    /// features meet only to the tolerance: the point is projected on B,
    /// then on A, and used once it lies in both boxes to rounding (a box
    /// inside another holds the first projection); failing that, the
    /// middle of an edge's piece inside the other box
    /// ([`Boxes::point_of_both`]).
    ///
    /// Boxes touching within rounding (no certified depth) get the same
    /// answer, the point of both certifying the contact, where the
    /// tolerance at the pair's scale exceeds four roundings. Where the
    /// features do not meet (another axis ties with this one within the
    /// rounding), the search starts from the centres. `None` where no point
    /// of both boxes was found, or where the tolerance is finer (a point of
    /// both as computed may still show the touch, [`Boxes::touching`]).
    fn enclosing(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<Enclosing<R>> {
        let (n, rounding) = (axes.normal, axes.rounding);
        // Touching within rounding (no certified depth): the point of both
        // boxes found below certifies contact to `2√3` roundings, which
        // must be within the tolerance GJK answers touching at.
        if !(axes.depth_bounds().0 > rounding) && !(R::lit(4.0) * rounding <= tolerance * axes.scale) {
            return None;
        }
        let (in_a, in_b) = self.meeting_point(axes, max(tolerance * axes.scale, rounding), rounding, true)?;
        let least = |h: &Vec3<R>| min(h.x, min(h.y, h.z));
        let of_a = least(self.ha) >= least(self.hb);
        // The corners' box, `m` there, and `m` as a point of the other box.
        let (c, r, h, local, point) = if of_a {
            (self.ca, self.ra, self.ha, in_a, self.cb + self.rb * in_b)
        } else {
            (self.cb, self.rb, self.hb, in_b, self.ca + self.ra * in_a)
        };
        if !(least(h) > rounding) {
            return None;
        }
        // Each axis's coordinate in [0, 1] and its full edge, sorted by the
        // coordinate, largest first (three compare-swaps, no indexing).
        let unit = |x: R, h: R| max(R::ZERO, min((x + h) / (h + h), R::ONE));
        // The columns as arrays: a column view times a scalar is built
        // through an iterator whose length check is a panic path.
        let [u, v, w]: [[R; 3]; 3] = (*r).into();
        let edge = |[x, y, z]: [R; 3], h: R| Vec3::new(x, y, z) * (h + h);
        let mut steps = [
            (unit(local.x, h.x), edge(u, h.x)),
            (unit(local.y, h.y), edge(v, h.y)),
            (unit(local.z, h.z), edge(w, h.z)),
        ];
        let order = |p: &mut (R, Vec3<R>), q: &mut (R, Vec3<R>)| {
            if q.0 > p.0 {
                core::mem::swap(p, q);
            }
        };
        let [s0, s1, s2] = &mut steps;
        order(s0, s1);
        order(s1, s2);
        order(s0, s1);
        let [(y1, e1), (y2, e2), (y3, e3)] = steps;
        let low = c - r * h;
        let (c1, c2) = (low + e1, low + e1 + e2);
        Some(Enclosing {
            corners: [low, c1, c2, c2 + e3],
            point,
            weights: [R::ONE - y1, y1 - y2, y2 - y3, y3],
            of_a,
            normal: n,
        })
    }

    /// A point of both boxes, in each box's coordinates
    /// ([`Boxes::point_of_both`]), searched from the points of the features
    /// facing each other across the best axis (flat within `eps`,
    /// [`Boxes::facing_points`]), or from the centres where those do not
    /// meet (another axis ties with it within the rounding, and the
    /// origin's nearest point on the CSO lies off this one's face).
    fn meeting_point(&self, axes: &BoxAxes<R>, eps: R, slack: R, crossing: bool) -> Option<(Vec3<R>, Vec3<R>)> {
        match self.facing_points(&axes.normal, axes.overlap, eps) {
            Some((pa, pb)) => self.point_of_both(&pa, &pb, slack, crossing),
            None => self.point_of_both(self.ca, self.cb, slack, crossing),
        }
    }

    /// A point of both boxes, in each box's coordinates: first by
    /// alternating projections from the middle of the deepest points `pa`,
    /// `pb` (on B, then on A), the first projection that the other box
    /// holds, its coordinates there (as computed) within the half-extents
    /// to `slack` (the rounding; 0 for a point of both as computed). Two
    /// rounds settle all but about one random overlapping pose in 400 (a
    /// sliver of an intersection, along which the projections creep);
    /// further rounds settle few of those. Then, with `crossing`, where an
    /// edge of one box crosses the other ([`edge_in_box`]): a nonempty
    /// intersection of two boxes is a polytope whose vertices are corners
    /// of one box inside the other or edges of one crossing faces of the
    /// other, so some edge of one box meets the other. `None` where
    /// rounding hides every such point: GJK decides.
    #[inline(never)]
    fn point_of_both(&self, pa: &Vec3<R>, pb: &Vec3<R>, slack: R, crossing: bool) -> Option<(Vec3<R>, Vec3<R>)> {
        let mut m = (pa + pb) * R::HALF;
        // A's last projection, which `m` is: B may hold it.
        let mut of_a = None;
        for _ in 0..BOTH_PROJECTIONS {
            let local_b = self.rb.tr_mul(&(m - self.cb));
            let in_b = clamp_to_box(&local_b, self.hb);
            if let Some(in_a) = of_a {
                if max_abs(&(local_b - in_b)) <= slack {
                    return Some((in_a, in_b));
                }
            }
            let local_a = self.ra.tr_mul(&(self.cb + self.rb * in_b - self.ca));
            let in_a = clamp_to_box(&local_a, self.ha);
            if max_abs(&(local_a - in_a)) <= slack {
                return Some((in_a, in_b));
            }
            m = self.ca + self.ra * in_a;
            of_a = Some(in_a);
        }
        if !crossing {
            return None;
        }
        let m = self.point_where_edges_cross(R::ZERO)?;
        let (local_a, local_b) = (self.ra.tr_mul(&(m - self.ca)), self.rb.tr_mul(&(m - self.cb)));
        let (in_a, in_b) = (clamp_to_box(&local_a, self.ha), clamp_to_box(&local_b, self.hb));
        (max(max_abs(&(local_a - in_a)), max_abs(&(local_b - in_b))) <= slack).then_some((in_a, in_b))
    }

    /// A point of both boxes, from where an edge of B crosses A, else where
    /// an edge of A crosses B ([`edge_in_box`]), each box widened by
    /// `widen` (a tolerance) as the other's edges are clipped to it. Out of
    /// line, with its callee: their locals stay off the stack of the usual
    /// path.
    #[inline(never)]
    fn point_where_edges_cross(&self, widen: R) -> Option<Vec3<R>> {
        let widened = |h: &Vec3<R>| h.map(|x| x + widen);
        match edge_in_box(self.cb, self.rb, self.hb, self.ca, self.ra, &widened(self.ha)) {
            Some(in_a) => Some(self.ca + self.ra * in_a),
            None => edge_in_box(self.ca, self.ra, self.ha, self.cb, self.rb, &widened(self.hb))
                .map(|in_b| self.cb + self.rb * in_b),
        }
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

    /// Boxes apart along the best axis by `gap` (its certified gap, above
    /// the rounding): that gap below, and above the distance of the
    /// corners that face each other across it (A's farthest along the
    /// axis, B's farthest against it: each box's support point), with
    /// those corners as the witness. `None` where their distance is not a
    /// normal, finite number. The corners, not [`feature`]'s points: its
    /// flatness test cost the intersection test 5 % on random poses.
    fn across(&self, axes: &BoxAxes<R>, gap: R) -> Option<Separation<R>> {
        let corner =
            |c: &Vec3<R>, r: &Mat3<R>, h: &Vec3<R>, dir: &Vec3<R>| c + r * r.tr_mul(dir).map(sgn).component_mul(h);
        let n = axes.normal;
        let (pa, pb) = (corner(self.ca, self.ra, self.ha, &n), corner(self.cb, self.rb, self.hb, &-n));
        let d = pb - pa;
        let squared = d.dot(&d);
        if !(squared >= R::MIN_POSITIVE && squared <= R::MAX) {
            return None;
        }
        let distance = Real::sqrt(squared);
        Some(Separation {
            distance,
            bounds: Bounds { lower: min(gap, distance), upper: distance + axes.rounding },
            witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: d * (R::ONE / distance) },
        })
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
        let (pa, pb, lower) = self.corner_pair(axes);
        if !(lower > axes.rounding) {
            return None;
        }
        certified(pa, pb, lower, axes, tolerance)
    }

    /// The corner of either box nearest the other box and its nearest
    /// point there, in the pair frame (`pa` of A, `pb` of B), and a lower
    /// bound on the boxes' distance: the support gap along their
    /// direction, or the best axis's ([`Boxes::corners`]; the best axis's
    /// alone where the two points coincide).
    #[inline(always)]
    fn corner_pair(&self, axes: &BoxAxes<R>) -> (Vec3<R>, Vec3<R>, R) {
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
            return (pa, pb, axes.gap_lower());
        }
        let n = n * (R::ONE / len);
        let reach_a = self.ha.x * n.x.abs() + self.ha.y * n.y.abs() + self.ha.z * n.z.abs();
        let nb = rt * n;
        let reach_b = self.hb.x * nb.x.abs() + self.hb.y * nb.y.abs() + self.hb.z * nb.z.abs();
        (pa, pb, max(n.dot(&t) - reach_b - reach_a - rounding, axes.gap_lower()))
    }

    /// Boxes that touch within the tolerance, where the closed forms do
    /// not certify the gap (its lower bound within the rounding of 0) or
    /// the depth (an overlap within the tilt of a nearly parallel edge
    /// pair's axis, or no point of both found): a point of each, `pa` of A
    /// and `pb` of B, whose distance is at most `tolerance · scale`
    /// (rounding included), from the features facing each other across the
    /// best axis, else from the corner nearest the other box; and bounds on
    /// the signed distance (above, the points' distance plus the rounding).
    /// At a tolerance within two roundings, which no two points can meet,
    /// a point of both as computed ([`Boxes::common_point`]). `None` where
    /// the boxes may be farther apart.
    #[inline(never)]
    fn touching(&self, axes: &BoxAxes<R>, tolerance: R) -> Option<(Vec3<R>, Vec3<R>, Bounds<R>)> {
        let (scale, rounding) = (axes.scale, axes.rounding);
        let within = tolerance * scale;
        if !(axes.gap_lower() <= within) {
            return None;
        }
        // A tolerance within two roundings (0 among them): no two points
        // show a touch to it, a point of both boxes may, where no axis
        // certifies a gap and the boxes overlap by at most the rounding
        // (the depth 0 it implies is then exact to two roundings).
        if !(rounding + rounding < within) {
            let touch = !(axes.gap_lower() > R::ZERO) && axes.overlap <= rounding;
            return if touch { self.common_point(axes) } else { None };
        }
        let (pa, pb, lower) = match self.facing_points(&axes.normal, axes.overlap, max(within, rounding)) {
            Some((pa, pb)) => (pa, point_in_box(&pb, self.cb, self.rb, self.hb), axes.gap_lower()),
            None => self.corner_pair(axes),
        };
        let upper = norm(&(pb - pa)) + rounding;
        (upper <= within).then_some((pa, pb, Bounds { lower, upper }))
    }

    /// Boxes that touch within rounding, queried at a tolerance finer than
    /// it ([`Boxes::touching`]): a point of both boxes as computed (its
    /// coordinates in each box's frame, as computed, within the box's
    /// half-extents, no rounding allowed), as both `pa` and `pb`, and
    /// bounds with 0 above. That is the evidence GJK's own overlap test
    /// rests on (the origin inside a tetrahedron of computed support
    /// points), and as exact: the point is within a few `ε·scale` of each
    /// box, less than one rounding. `None` where no such point is found:
    /// GJK decides.
    #[inline(never)]
    fn common_point(&self, axes: &BoxAxes<R>) -> Option<(Vec3<R>, Vec3<R>, Bounds<R>)> {
        // At a touch the facing features meet at the point: edges crossing
        // the other box ([`Boxes::point_of_both`]) find slivers of an
        // overlap, not touches, and are not tried.
        let (_, in_b) = self.meeting_point(axes, axes.rounding, R::ZERO, false)?;
        let p = self.cb + self.rb * in_b;
        Some((p, p, Bounds { lower: axes.gap_lower(), upper: R::ZERO }))
    }

    /// A point of box A and one of box B, `pa − pb = overlap · n`, on the
    /// features of the boxes that face each other across the unit axis `n`
    /// (from A towards B): A's feature farthest along `n` and B's farthest
    /// along `−n` (a vertex, an edge or a face: flat within `eps`), which
    /// meet across the axis when it is a face of the boxes' CSO. An edge
    /// facing an edge meets it at their closest points, an edge facing a
    /// face where the edge crosses the face (both in closed form); other
    /// features by alternating projections between the two (boxes with
    /// some zero extents), and, where those creep on overlapping boxes,
    /// where an edge of one feature crosses the other. `None` when they do
    /// not meet within `eps`.
    fn facing_points(&self, n: &Vec3<R>, overlap: R, eps: R) -> Option<(Vec3<R>, Vec3<R>)> {
        let (fa, ha_flat) = feature(self.ca, self.ra, self.ha, n, eps);
        let (fb, hb_flat) = feature(self.cb, self.rb, self.hb, &-n, eps);
        let shift = n * overlap;
        let dims = |h: &Vec3<R>| (h.x != R::ZERO) as u8 + (h.y != R::ZERO) as u8 + (h.z != R::ZERO) as u8;
        let on_b = |pb: &Vec3<R>| norm(&(point_in_box(pb, &fb, self.rb, &hb_flat) - pb)) <= eps;
        let pa = match (dims(&ha_flat), dims(&hb_flat)) {
            // The projections converge only linearly between two segments.
            (1, 1) => {
                let (ea, eb) = (self.ra * ha_flat, self.rb * hb_flat);
                Some(segments(&(fa - ea), &(fa + ea), &(fb - eb), &(fb + eb)).0)
            }
            // An edge against a face: the projections creep along the edge
            // where it leaves the face at a slant; the edge's piece over
            // the face is found by clipping, below.
            (1, 2) | (2, 1) => None,
            _ => {
                let mut pa = fa;
                for _ in 0..FEATURE_PROJECTIONS {
                    let pb = point_in_box(&(pa - shift), &fb, self.rb, &hb_flat);
                    let next = point_in_box(&(pb + shift), &fa, self.ra, &ha_flat);
                    // A fixed point (at once where A's feature is a vertex,
                    // after a round where B's is): the next rounds would
                    // repeat it.
                    if next == pa {
                        break;
                    }
                    pa = next;
                }
                Some(pa)
            }
        };
        if let Some(pa) = pa {
            let pb = pa - shift;
            if on_b(&pb) {
                return Some((pa, pb));
            }
            // Apart, the features need not meet (the closest points may
            // hold a corner): the caller tries the corners.
            if !(overlap > R::ZERO) {
                return None;
            }
        }
        // Overlapping features meet across the least overlap, but the
        // projections creep where their common part is a sliver (two faces
        // turned against each other in one plane meet at a wedge): a point
        // of both from an edge of either feature crossing the other
        // ([`edge_in_box`]), B's moved onto A's, each widened by the
        // tolerance (the moved feature lies in the other's plane only to
        // it).
        let moved = fb + shift;
        let features = Boxes { ca: &fa, ra: self.ra, ha: &ha_flat, cb: &moved, rb: self.rb, hb: &hb_flat };
        let p = features.point_where_edges_cross(eps)?;
        let pa = point_in_box(&p, &fa, self.ra, &ha_flat);
        let pb = pa - shift;
        on_b(&pb).then_some((pa, pb))
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

/// Rounds of alternating projection between two overlapping boxes before
/// [`edge_in_box`] ([`Boxes::point_of_both`]): the first settles about 19
/// poses in 20, the second all but one in 400, a third none of those.
const BOTH_PROJECTIONS: usize = 2;

/// The middle of the piece of an edge of box X (centre `cx`, axes `rx`,
/// half-extents `hx`) inside box Y, in Y's coordinates, for the first
/// edge that crosses Y; `None` where none does (to rounding). Each edge is
/// clipped to Y's three slabs (Liang and Barsky's parametric clipping): a
/// point `p + t·d`, `t ∈ [0, 1]`, lies in the slab `|x_i| ≤ h_i` for `t`
/// between `(±h_i − p_i)/d_i`, or for every `t` or none where `d_i` is 0.
///
/// The three edges at X's corner nearest Y's centre are tried first: they
/// are X's edges reaching deepest towards Y, the likeliest to cross it
/// where the boxes overlap in a thin piece (a corner or an edge of X
/// pushed into Y). The other nine follow; the order changes which point
/// is found, never whether one is.
fn edge_in_box<R: Real>(
    cx: &Vec3<R>,
    rx: &Mat3<R>,
    hx: &Vec3<R>,
    cy: &Vec3<R>,
    ry: &Mat3<R>,
    hy: &Vec3<R>,
) -> Option<Vec3<R>> {
    // X's centre and its three half-edges in Y's coordinates.
    let centre = ry.tr_mul(&(cx - cy));
    let [u, v, w]: [[R; 3]; 3] = (ry.transpose() * rx).into();
    let half = |[x, y, z]: [R; 3], h: R| Vec3::new(x, y, z) * h;
    let (u, v, w) = (half(u, hx.x), half(v, hx.y), half(w, hx.z));
    // Each half-edge signed towards Y's centre (the origin here): the
    // corner `centre + u + v + w` is X's nearest to it.
    let toward = |e: Vec3<R>| if e.dot(&centre) > R::ZERO { -e } else { e };
    let (u, v, w) = (toward(u), toward(v), toward(w));
    // The edges along `e` start at the corners `centre − e ± f ± g`; the
    // sign pair `(1, 1)` gives the edge at the nearest corner. With each
    // direction, `1/d_i` of its edges `d = 2e` where `d_i` is not 0 (0
    // marks a slab the edge runs along).
    let inverse = |e: Vec3<R>| (e + e).map(|x| if x != R::ZERO { R::ONE / x } else { R::ZERO });
    let edges = [(u, v, w, inverse(u)), (v, w, u, inverse(v)), (w, u, v, inverse(w))];
    let signs = [(R::ONE, -R::ONE), (-R::ONE, R::ONE), (-R::ONE, -R::ONE)];
    let at_corner = edges.iter().map(|&(e, f, g, inv)| (e, f + g, inv));
    let others = signs.iter().flat_map(|&(sf, sg)| edges.iter().map(move |&(e, f, g, inv)| (e, f * sf + g * sg, inv)));
    at_corner.chain(others).find_map(|(e, side, inv)| clip_edge(&(centre - e + side), &(e + e), &inv, hy))
}

/// The middle of the piece of the edge `p + t·d`, `t ∈ [0, 1]`, inside
/// the box of half-extents `h` centred at the origin ([`edge_in_box`]);
/// `inv` holds `1/d_i`, 0 where `d_i` is.
#[inline(always)]
fn clip_edge<R: Real>(p: &Vec3<R>, d: &Vec3<R>, inv: &Vec3<R>, h: &Vec3<R>) -> Option<Vec3<R>> {
    let (mut lo, mut hi) = (R::ZERO, R::ONE);
    for ((p, inv), h) in p.iter().zip(inv.iter()).zip(h.iter()) {
        if *inv == R::ZERO {
            if p.abs() > *h {
                return None;
            }
        } else {
            let (t0, t1) = ((-*h - *p) * *inv, (*h - *p) * *inv);
            lo = max(lo, min(t0, t1));
            hi = min(hi, max(t0, t1));
        }
        // Most edges miss the other box in the first slab.
        if lo > hi {
            return None;
        }
    }
    Some(p + d * ((lo + hi) * R::HALF))
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
