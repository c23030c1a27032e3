//! The intersection region of two analytic SDFs by interval arithmetic on an
//! octree (Liu et al. §3, Algorithm 1).
//!
//! The region where the bodies can meet (the intersection of their bounding
//! boxes) is split recursively. For each cell both interval extensions
//! ([`IntervalSdf`]) are evaluated on the whole cell:
//! - one lower bound above zero: the cell is outside that body, dropped;
//! - both upper bounds below zero: every point of the cell is inside both
//!   bodies — a proof of intersection; the cell is kept;
//! - otherwise the cell is split into `2^D` children, until the depth limit,
//!   where it is kept as *unresolved*.
//!
//! The answer is three-valued: [`OctreeVerdict::Penetrating`] (a cell
//! proved inside both), [`OctreeVerdict::Separated`] (every cell proved
//! outside one body; this needs the bounding boxes to contain the bodies, as
//! [`Sdf::bounding_box`](super::Sdf::bounding_box) promises), or
//! [`OctreeVerdict::Undetermined`] — touching bodies, features below the depth
//! limit's cell size, an exhausted budget or stack, NaN. The kept cells'
//! centres are the detection points of the gradient methods
//! ([`super::gradient`], Liu et al. §4.2).
//!
//! # Memory: a caller-owned stack instead of the paper's queue
//! The paper pops cells from a FIFO queue (breadth first), whose length
//! grows with the number of cells of a level, up to `2^(D·depth)`. The
//! result does not depend on the order, so this traversal is depth first on
//! a caller-owned stack: it never holds more than
//! [`required_stack`]`(D, depth) = depth·(2^D − 1) + 1` cells (57 for a
//! depth-8 octree in 3D), known before the query. A smaller stack is
//! allowed: a cell that does not fit is counted in
//! [`OctreeReport::dropped`] and the verdict can no longer be `Separated`.
//!
//! The price of depth first: kept cells arrive region by region, so when
//! the output overflows ([`OctreeReport::overflow`]) the stored cells may
//! all come from the first region found, where the paper's queue would have
//! given coarse cells of every region first. For detection points size the
//! output for the depth (at most `2^(D·depth)` cells; in practice the
//! surface of the overlap) or use a shallow depth (3–4).

use super::interval::{box_intervals, Interval};
use super::{Aabb, IntervalSdf};
use crate::error::OctreeError;
use crate::math::Real;
use crate::query::{Stop, Undetermined};

/// Deepest octree accepted (`2^-24` of the region per axis: below the
/// resolution of `f32` coordinates).
pub const MAX_DEPTH: u8 = 24;

/// Stack capacity for which a depth-first octree of `depth` levels in `D`
/// dimensions never drops a cell: `depth·(2^D − 1) + 1` (`D ≤ 16`).
pub const fn required_stack(dim: usize, depth: u8) -> usize {
    depth as usize * ((1usize << dim) - 1) + 1
}

/// A cell of the octree: its box and its depth (0 for the whole region).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell<R: Real, const D: usize> {
    /// The cell.
    pub aabb: Aabb<R, D>,
    /// Number of splits from the region.
    pub depth: u8,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for Cell<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Cell {{ aabb: {}, depth: {} }}", self.aabb, self.depth)
    }
}

impl<R: Real, const D: usize> Default for Cell<R, D> {
    fn default() -> Self {
        let z = nalgebra::SVector::zeros();
        Self { aabb: Aabb { min: z, max: z }, depth: 0 }
    }
}

/// What the octree knows about a kept cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CellClass {
    /// Every point of the cell is inside both bodies.
    InsideBoth,
    /// Neither proved inside both nor outside one at the depth limit.
    Unresolved,
}

/// A kept cell and its class.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KeptCell<R: Real, const D: usize> {
    /// The cell.
    pub cell: Cell<R, D>,
    /// Inside both, or unresolved.
    pub class: CellClass,
}

impl<R: Real, const D: usize> Default for KeptCell<R, D> {
    fn default() -> Self {
        Self { cell: Cell::default(), class: CellClass::Unresolved }
    }
}

/// Parameters of [`intersect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OctreeParams {
    /// Depth limit, at most [`MAX_DEPTH`] (the paper's "level").
    pub max_depth: u8,
    /// Budget of cells evaluated (each costs two interval evaluations).
    pub max_cells: u32,
    /// [`Stop::Decided`] or [`Stop::Converged`].
    pub stop: Stop,
}

impl Default for OctreeParams {
    /// Depth 6 (cells 1/64 of the region per axis), 20 000 cells,
    /// [`Stop::Converged`].
    fn default() -> Self {
        Self { max_depth: 6, max_cells: 20_000, stop: Stop::Converged }
    }
}

/// The three-valued answer of the octree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum OctreeVerdict {
    /// A cell lies inside both bodies: they intersect (a proof).
    Penetrating,
    /// Every cell lies outside one of the bodies: they do not intersect
    /// (a proof, given bounding boxes that contain the bodies).
    Separated,
    /// Neither could be shown. `Degenerate`: unresolved cells at the depth
    /// limit (touching or tiny overlaps); `IterationCap`: the cell budget
    /// ran out; `OutOfCapacity`: the stack was too small; `NonFinite`: an
    /// interval had a NaN bound.
    Undetermined {
        /// Why.
        reason: Undetermined,
    },
}

/// What [`intersect`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OctreeReport {
    /// The answer.
    pub verdict: OctreeVerdict,
    /// Cells evaluated.
    pub visited: u32,
    /// Cells proved inside both (kept).
    pub inside: u32,
    /// Cells proved outside a body (dropped).
    pub outside: u32,
    /// Cells left unresolved at the depth limit (kept).
    pub unresolved: u32,
    /// Kept cells written to the output (the first ones found).
    pub stored: u32,
    /// Kept cells that did not fit in the output.
    pub overflow: u32,
    /// Cells never evaluated: no room on the stack, or the budget ran out.
    pub dropped: u32,
    /// Cells with a NaN interval bound (kept as unresolved).
    pub nonfinite: u32,
}

impl OctreeReport {
    /// No cell visited, nothing found: `Separated` (disjoint boxes), and the
    /// start of every count.
    const NOTHING: Self = Self {
        verdict: OctreeVerdict::Separated,
        visited: 0,
        inside: 0,
        outside: 0,
        unresolved: 0,
        stored: 0,
        overflow: 0,
        dropped: 0,
        nonfinite: 0,
    };
}

/// `BadParams` for a depth beyond [`MAX_DEPTH`], an empty stack, or a
/// dimension outside `1..=16`.
fn check_params<const D: usize>(params: &OctreeParams, stack_len: usize) -> Result<(), OctreeError> {
    if params.max_depth > MAX_DEPTH || stack_len == 0 || D == 0 || D > 16 {
        return Err(OctreeError::BadParams);
    }
    Ok(())
}

/// The region where two bodies can meet: the intersection of their
/// bounding boxes, `None` when the boxes do not meet (the bodies are then
/// apart).
pub fn region<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>>(a: &A, b: &B) -> Option<Aabb<R, D>> {
    a.bounding_box().intersection(&b.bounding_box())
}

/// Algorithm 1 of Liu et al. over the intersection of the bodies' bounding
/// boxes ([`region`]; disjoint boxes give `Separated` with no cell visited).
/// Kept cells go to `out` in the order found (those that do not fit are
/// counted in [`OctreeReport::overflow`]); `stack` is the traversal's
/// working memory ([`required_stack`]).
///
/// # Errors
///
/// - [`OctreeError::BadRegion`] if a body's bounding box has a NaN or
///   inverted bound, or the boxes meet in a region that is not finite (two
///   bodies unbounded along the same axis);
/// - [`OctreeError::BadParams`] if `params.max_depth` exceeds
///   [`MAX_DEPTH`], `stack` is empty, or `D` is outside `1..=16`.
///
/// Parameters are checked before the boxes are compared: disjoint boxes
/// with bad parameters are refused too.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::octree::{self, CellClass, KeptCell, OctreeParams, OctreeVerdict};
/// use narrowphase::sdf::{Torus, Transformed};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix3, Vector3};
///
/// let ring = Torus::new(2.0_f64, 0.5).unwrap();
/// // A ball in the ring's hole touches nothing; one on the tube overlaps it.
/// let ball = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), Matrix3::identity(), 1.0, Vector3::new(x, 0.0, 0.0)).unwrap();
/// let mut stack = [Default::default(); octree::required_stack(3, 6)];
/// let mut out = [KeptCell::default(); 64];
/// let params = OctreeParams::default();
///
/// let apart = octree::intersect(&ring, &ball(0.0), &params, &mut stack, &mut out).unwrap();
/// assert_eq!(apart.verdict, OctreeVerdict::Separated);
///
/// let hit = octree::intersect(&ring, &ball(2.5), &params, &mut stack, &mut out).unwrap();
/// assert_eq!(hit.verdict, OctreeVerdict::Penetrating);
/// assert!(out[..hit.stored as usize].iter().any(|c| c.class == CellClass::InsideBoth));
/// ```
pub fn intersect<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>>(
    a: &A,
    b: &B,
    params: &OctreeParams,
    stack: &mut [Cell<R, D>],
    out: &mut [KeptCell<R, D>],
) -> Result<OctreeReport, OctreeError> {
    let (ba, bb) = (a.bounding_box(), b.bounding_box());
    if ba.check().is_err() || bb.check().is_err() {
        return Err(OctreeError::BadRegion);
    }
    // Parameters are checked whether or not the boxes meet: a bad call is
    // refused the same way for every pose.
    check_params::<D>(params, stack.len())?;
    match ba.intersection(&bb) {
        Some(r) => intersect_in(a, b, &r, params, stack, out),
        None => Ok(OctreeReport::NOTHING),
    }
}

/// [`intersect`] over a given region (which must contain every common
/// point of the bodies for a `Separated` verdict to mean anything).
///
/// # Errors
///
/// - [`OctreeError::BadRegion`] if `region` has a NaN, infinite or
///   inverted bound;
/// - [`OctreeError::BadParams`] if `params.max_depth` exceeds
///   [`MAX_DEPTH`], `stack` is empty, or `D` is outside `1..=16`.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::octree::{self, KeptCell, OctreeParams, OctreeVerdict};
/// use narrowphase::sdf::{Aabb, Halfspace};
/// use narrowphase::error::OctreeError;
/// use nalgebra::Vector2;
/// // Two half-planes, y ≤ 0 and y ≥ −1, meet in a strip; the unbounded boxes
/// // need a region from the caller.
/// let below = Halfspace::new(Vector2::new(0.0_f64, 1.0), 0.0).unwrap();
/// let above = Halfspace::new(Vector2::new(0.0, -1.0), 1.0).unwrap();
/// let region = Aabb::new(Vector2::new(-2.0, -2.0), Vector2::new(2.0, 2.0)).unwrap();
/// let mut stack = [Default::default(); octree::required_stack(2, 6)];
/// let mut out = [KeptCell::default(); 16];
/// let params = OctreeParams::default();
/// let rep = octree::intersect_in(&below, &above, &region, &params, &mut stack, &mut out).unwrap();
/// assert_eq!(rep.verdict, OctreeVerdict::Penetrating);
/// // Without a region they cannot start.
/// assert_eq!(octree::intersect(&below, &above, &params, &mut stack, &mut out), Err(OctreeError::BadRegion));
/// ```
pub fn intersect_in<R: Real, const D: usize, A: IntervalSdf<R, D>, B: IntervalSdf<R, D>>(
    a: &A,
    b: &B,
    region: &Aabb<R, D>,
    params: &OctreeParams,
    stack: &mut [Cell<R, D>],
    out: &mut [KeptCell<R, D>],
) -> Result<OctreeReport, OctreeError> {
    if region.check().is_err() || !region.is_finite() {
        return Err(OctreeError::BadRegion);
    }
    check_params::<D>(params, stack.len())?;
    let mut rep = OctreeReport::NOTHING;
    let mut keep = |rep: &mut OctreeReport, cell: Cell<R, D>, class: CellClass| match out.get_mut(rep.stored as usize) {
        Some(slot) => {
            *slot = KeptCell { cell, class };
            rep.stored += 1;
        }
        None => rep.overflow += 1,
    };
    let children = 1usize << D;
    let mut top = 1usize;
    if let Some(first) = stack.first_mut() {
        *first = Cell { aabb: *region, depth: 0 };
    }
    // Each pass pops one cell; the cell budget bounds the loop (a split
    // pushes at most 2^D cells, each evaluated once).
    while top > 0 {
        if rep.visited >= params.max_cells {
            rep.dropped += top as u32;
            break;
        }
        top -= 1;
        let Some(&cell) = stack.get(top) else { break };
        rep.visited += 1;
        let x = box_intervals(&cell.aabb);
        let da = a.eval_interval(&x);
        let db = b.eval_interval(&x);
        if da.lo() > R::ZERO || db.lo() > R::ZERO {
            rep.outside += 1;
            continue;
        }
        if da.hi() < R::ZERO && db.hi() < R::ZERO {
            rep.inside += 1;
            keep(&mut rep, cell, CellClass::InsideBoth);
            if params.stop == Stop::Decided {
                rep.dropped += top as u32;
                break;
            }
            continue;
        }
        let nan = da.is_nan() || db.is_nan();
        // Axes with room for a midpoint (a flat region, e.g. from touching
        // boxes, is split along its other axes only).
        let mid = cell.aabb.center();
        let mut split_axes = 0usize;
        for i in 0..D {
            if cell.aabb.min[i] < mid[i] && mid[i] < cell.aabb.max[i] {
                split_axes |= 1 << i;
            }
        }
        if nan || cell.depth >= params.max_depth || split_axes == 0 {
            rep.unresolved += 1;
            rep.nonfinite += nan as u32;
            keep(&mut rep, cell, CellClass::Unresolved);
            continue;
        }
        for k in 0..children {
            if k & !split_axes != 0 {
                continue;
            }
            let mut child = cell;
            child.depth = cell.depth + 1;
            for i in 0..D {
                if split_axes >> i & 1 == 0 {
                    continue;
                }
                if k >> i & 1 == 0 {
                    child.aabb.max[i] = mid[i];
                } else {
                    child.aabb.min[i] = mid[i];
                }
            }
            match stack.get_mut(top) {
                Some(slot) => {
                    *slot = child;
                    top += 1;
                }
                None => rep.dropped += 1,
            }
        }
    }
    rep.verdict = if rep.inside > 0 {
        OctreeVerdict::Penetrating
    } else if rep.nonfinite > 0 {
        OctreeVerdict::Undetermined { reason: Undetermined::NonFinite }
    } else if rep.visited >= params.max_cells && rep.dropped > 0 {
        OctreeVerdict::Undetermined { reason: Undetermined::IterationCap }
    } else if rep.dropped > 0 {
        OctreeVerdict::Undetermined { reason: Undetermined::OutOfCapacity }
    } else if rep.unresolved > 0 {
        OctreeVerdict::Undetermined { reason: Undetermined::Degenerate }
    } else {
        OctreeVerdict::Separated
    };
    Ok(rep)
}

/// The interval of an SDF on a box (a convenience for callers that refine
/// their own regions).
pub fn range_on<R: Real, const D: usize, S: IntervalSdf<R, D>>(s: &S, b: &Aabb<R, D>) -> Interval<R> {
    s.eval_interval(&box_intervals(b))
}
