//! The separating-axis test of two boxes: the boundary of their CSO has its
//! facet normals among the boxes' face normals and the cross products of
//! their edge directions (fifteen axes, Gottschalk, Lin and Manocha, "OBBTree",
//! SIGGRAPH 1996). Along each unit axis `l` the two boxes' shadows overlap by
//! `reach_A(l) + reach_B(l) − |t·l|` (`t` the offset of the centres,
//! `reach` a box's half-width along `l`), negative where they are apart.
//!
//! - Apart along some axis by `s`: the boxes are at least `s` apart (any
//!   unit direction's gap is a lower bound on the distance).
//! - Overlapping along all fifteen: the least overlap is the penetration
//!   depth, along its axis (every other direction overlaps at least as
//!   much).
//!
//! Computed in A's frame: there A's axes are the coordinate axes and B's
//! are the columns of `R = R_Aᵀ R_B`, so every half-width is a sum of
//! `|Rᵢⱼ|` times half-extents, with no rotation per axis (27 products for
//! `R`, then a few per axis).

use crate::math::{max, max_abs, min, Mat3, Real, Vec3};

/// What the fifteen axes say of two boxes ([`box_axes`]).
pub(crate) struct BoxAxes<R: Real> {
    /// The least overlap of the boxes' shadows over the axes, each edge
    /// axis's raised by its tilt (below): the depth where positive, minus
    /// the largest gap where negative. Raised, an edge axis from nearly
    /// parallel edges, whose overlap the rounding may move by the boxes'
    /// size, is not taken for its rounding; and the overlap stays an upper
    /// bound on the exact one along the axis.
    pub overlap: R,
    /// Its axis: unit, in the frame the boxes were given in, oriented from
    /// A's centre towards B's.
    pub normal: Vec3<R>,
    /// How far the computed `overlap` may be from the exact one along the
    /// exact axis, rounding included: an edge axis from nearly parallel
    /// edges is tilted by up to `ε/|u × w|`, which moves its overlap by that
    /// much of the pair's size.
    pub slack: R,
    /// A lower bound on the exact least overlap over the fifteen axes (the
    /// depth, where positive): each axis's computed overlap less twice its
    /// slack (the raise and the rounding), the least of them. A tilted
    /// axis may hide a smaller overlap than the least computed, but only
    /// by its own slack: one whose computed overlap is well above the
    /// least does not loosen the bound.
    pub depth_lower: R,
    /// Largest coordinate involved (the scale of the rounding).
    pub scale: R,
    /// The rounding of a coordinate at that scale, `16·ε·scale`.
    pub rounding: R,
}

impl<R: Real> BoxAxes<R> {
    /// Bounds on the depth of boxes overlapping along every axis:
    /// `depth_lower` below, the least overlap plus the rounding above.
    pub fn depth_bounds(&self) -> (R, R) {
        (self.depth_lower, self.overlap + self.rounding)
    }

    /// A lower bound on the distance of boxes apart along the best axis:
    /// its gap less its slack (any unit direction's gap bounds the distance).
    pub fn gap_lower(&self) -> R {
        -self.overlap - self.slack
    }
}

/// The separating-axis test of the boxes `(ca, ra, ha)` and `(cb, rb, hb)`
/// (centre, rotation, half-extents). `None` when anything is not finite.
pub(crate) fn box_axes<R: Real>(
    ca: &Vec3<R>,
    ra: &Mat3<R>,
    ha: &Vec3<R>,
    cb: &Vec3<R>,
    rb: &Mat3<R>,
    hb: &Vec3<R>,
) -> Option<BoxAxes<R>> {
    let offset = cb - ca;
    let extents = ha.x + ha.y + ha.z + hb.x + hb.y + hb.z;
    // `|t|₁ ≥ |t|`: a bound on the size without a square root.
    let size = offset.x.abs() + offset.y.abs() + offset.z.abs() + extents;
    let scale = max(max_abs(ca), max_abs(cb)) + extents;
    let rounding = R::lit(16.0) * R::EPSILON * scale;
    // B's axes and the offset in A's frame: `r[j][i] = aᵢ · b_j` (column
    // `j` is B's axis `j`), `q[j][i]` its absolute value.
    let r: [[R; 3]; 3] = ra.tr_mul(rb).into();
    let q = r.map(|column| column.map(|x| x.abs()));
    let t = ra.tr_mul(&offset);
    let (h, g, t) = ([ha.x, ha.y, ha.z], [hb.x, hb.y, hb.z], [t.x, t.y, t.z]);
    // A tilt of `ε` on a unit axis moves its shadows by `ε` times the size:
    // four times that covers both boxes and the offset.
    let tilt = R::lit(4.0) * R::EPSILON * size;

    // The least overlap and its axis: 0–2 A's faces, 3–5 B's, 6 + 3i + j
    // A's edge i across B's edge j (rebuilt once, at the end), and the
    // least lower bound of an edge axis's exact overlap.
    let mut best = (R::INFINITY, 0_u8);
    let mut least = R::INFINITY;
    let mut consider = |overlap: R, axis: u8| {
        if overlap < best.0 {
            best = (overlap, axis);
        }
    };
    let [q0, q1, q2] = q;
    let [r0, r1, r2] = r;
    // A NaN in a rotation leaves some axes finite: every entry is checked
    // (a comparison with NaN would only skip the axes it touches).
    let entries = q0[0] + q0[1] + q0[2] + q1[0] + q1[1] + q1[2] + q2[0] + q2[1] + q2[2];
    if !(entries + t[0].abs() + t[1].abs() + t[2].abs()).finite() || !scale.finite() || !size.finite() {
        return None;
    }
    consider(h[0] + g[0] * q0[0] + g[1] * q1[0] + g[2] * q2[0] - t[0].abs(), 0);
    consider(h[1] + g[0] * q0[1] + g[1] * q1[1] + g[2] * q2[1] - t[1].abs(), 1);
    consider(h[2] + g[0] * q0[2] + g[1] * q1[2] + g[2] * q2[2] - t[2].abs(), 2);
    let face_b = |qj: [R; 3], rj: [R; 3], gj: R| {
        h[0] * qj[0] + h[1] * qj[1] + h[2] * qj[2] + gj - (t[0] * rj[0] + t[1] * rj[1] + t[2] * rj[2]).abs()
    };
    consider(face_b(q0, r0, g[0]), 3);
    consider(face_b(q1, r1, g[1]), 4);
    consider(face_b(q2, r2, g[2]), 5);
    // A's edge i across B's edge j: `c = eᵢ × b_j` in A's frame has
    // components `−r[j][i2]` at `i1` and `r[j][i1]` at `i2`; `c · b_k =
    // eᵢ · (b_j × b_k)`, `±r[l][i]` for the third index `l`. Its length is
    // taken from those two components (no cancellation where the edges are
    // nearly parallel); parallel edges (length within ε of 0) give no axis,
    // their direction being covered by the face axes.
    #[allow(clippy::too_many_arguments)]
    let mut edge = |i: usize,
                    i1: usize,
                    i2: usize,
                    rj: &[R; 3],
                    qj: &[R; 3],
                    gj1: R,
                    gj2: R,
                    qj1: &[R; 3],
                    qj2: &[R; 3],
                    axis: u8| {
        let (c1, c2) = (rj[i1], rj[i2]);
        let len = Real::sqrt(c1 * c1 + c2 * c2);
        if !(len > R::EPSILON) {
            return;
        }
        let along = t[i2] * c1 - t[i1] * c2;
        let reach = h[i1] * qj[i2] + h[i2] * qj[i1] + gj1 * qj2[i] + gj2 * qj1[i];
        let shadows = reach - along.abs();
        // Raised by the tilt's share, `tilt / len` (see `BoxAxes::overlap`);
        // the exact overlap is at least the raised one less twice that.
        consider((shadows + tilt) / len, axis);
        least = min(least, (shadows - tilt) / len);
    };
    // B's edge j with its two others, `j1 = j + 1`, `j2 = j + 2` (mod 3);
    // every index a constant (no bounds check survives).
    edge(0, 1, 2, &r0, &q0, g[1], g[2], &q1, &q2, 6);
    edge(0, 1, 2, &r1, &q1, g[2], g[0], &q2, &q0, 7);
    edge(0, 1, 2, &r2, &q2, g[0], g[1], &q0, &q1, 8);
    edge(1, 2, 0, &r0, &q0, g[1], g[2], &q1, &q2, 9);
    edge(1, 2, 0, &r1, &q1, g[2], g[0], &q2, &q0, 10);
    edge(1, 2, 0, &r2, &q2, g[0], g[1], &q0, &q1, 11);
    edge(2, 0, 1, &r0, &q0, g[1], g[2], &q1, &q2, 12);
    edge(2, 0, 1, &r1, &q1, g[2], g[0], &q2, &q0, 13);
    edge(2, 0, 1, &r2, &q2, g[0], g[1], &q0, &q1, 14);
    // Finite inputs give finite face axes; a guard only.
    let (overlap, axis) = best;
    if !overlap.finite() {
        return None;
    }
    let column = |m: &Mat3<R>, k: u8| match k % 3 {
        0 => m.column(0).into_owned(),
        1 => m.column(1).into_owned(),
        _ => m.column(2).into_owned(),
    };
    let (axis, len) = match axis {
        0..=2 => (column(ra, axis), R::ONE),
        3..=5 => (column(rb, axis), R::ONE),
        // From the world columns (not `r`): one rounding fewer.
        _ => {
            let c = column(ra, (axis - 6) / 3).cross(&column(rb, axis - 6));
            let len = Real::sqrt(c.dot(&c));
            if !(len > R::ZERO) {
                return None;
            }
            (c / len, len)
        }
    };
    let normal = if offset.dot(&axis) < R::ZERO { -axis } else { axis };
    Some(BoxAxes {
        overlap,
        normal,
        slack: tilt / len + rounding,
        // The face axes' overlaps (none raised; at least `overlap`) less
        // twice a unit axis's tilt, and the edge axes' bounds.
        depth_lower: min(least, overlap - (tilt + tilt)) - rounding,
        scale,
        rounding,
    })
}
