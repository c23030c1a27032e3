//! The projected-gradient methods of Liu et al. (*Real-time collision
//! detection between general SDFs*, §4.2–4.4): detection points, the
//! intersection test (Algorithm 2) and contact generation (Algorithm 3).
//!
//! Both algorithms are one primitive: **minimise the SDF of one body over
//! the other body by projected gradient steps** (Eq. 8–9). A point `x`
//! inside A takes the step `x − s∇φ_B(x)`; when that leaves A it is
//! projected back onto A by the SDF projection `x − φ_A(x)∇φ_A(x)` (Eq. 8).
//! - [`intersection_test`] (Algorithm 2) stops as soon as the iterate is
//!   inside both bodies ([`IntersectionOutcome::Penetrating`]); the point is a
//!   proof of overlap for SDFs whose sign is right.
//! - [`contact`] (Algorithm 3) runs the minimisation to its end twice:
//!   `p_a = argmin_{x∈A} φ_B(x)`, the deepest point of A inside B, and
//!   `p_b = argmin_{x∈B} φ_A(x)`, the deepest point of B inside A, each a
//!   local minimiser found from the starting point.
//! - [`contacts`] runs Algorithm 2 from every detection point, Algorithm 3
//!   from every hit, and merges the contacts of one region (same points, or
//!   joined by a segment inside both bodies), so that k separate contact
//!   regions give k contacts (non-convex bodies: tori, CSG).
//! - [`lattice_points`] makes detection points: the cell centres of a
//!   regular split of a box (§4.2; the octree of [`super::octree`] gives the
//!   centres of its kept cells instead — [`contacts`] takes any slice);
//!   [`protrusion_points`] adds points inside thin protrusions of a body
//!   (§4.2, Fig. 6), which a coarse lattice misses.
//!
//! # Where this departs from the paper's pseudocode, and why
//! The paper's text is the specification; its pseudocode is loose:
//! 1. **Step-size control.** The paper uses a fixed step `s` and ends "when
//!    the step size of the solver falls below a user-defined tolerance ε".
//!    A fixed step never shrinks and, with `|∇φ| = 1`, oscillates by `s`
//!    around an interior minimiser. Here a step is accepted only when it
//!    lowers the objective (`φ_B` for `p_a`); a rejected step halves `s`, an
//!    accepted one doubles it again up to the initial step. The objective
//!    never increases over the feasible iterates (monotone descent), and the
//!    run stalls when `s` falls below the tolerance or an accepted step moved
//!    the point by less than the tolerance (both: no descent direction left
//!    at that resolution); a stall is a stationary point of the constrained
//!    problem once the check of decision 7 confirms it.
//! 2. **Algorithm 3's loop condition.** `while φ_A < 0 and φ_B < 0` ends as
//!    soon as a projection lands on A's surface (`φ_A = 0`), i.e. after one
//!    step; the deepest point then depends on the step size, not on the
//!    bodies. Here Algorithm 3 has no inside-test in its loop: it minimises
//!    `φ_B` over A until stationary, which is what the text asks ("the
//!    deepest point on the surface of A that penetrates into B"). Since the
//!    descent is monotone and the start is inside both, `φ_B(p_a) ≤ φ_B(x₀) < 0`:
//!    `p_a` is never shallower than the start.
//! 3. **Normals.** Eq. 10 says `n_a = −∇φ_A(p_a)`, line 8 of Algorithm 3
//!    uses `∇φ_B(p_a)`. At a converged `p_a` on A's surface where both SDFs
//!    are smooth they are the same unit vector (first-order optimality:
//!    `∇φ_B(p_a) = −λ∇φ_A(p_a)`, `λ ≥ 0`), and `n_a` is the unit of their
//!    sum `∇φ_B − ∇φ_A`. They differ where one body has an edge or a corner
//!    at the deepest point: its SDF returns one face's normal there (a
//!    subgradient, 45° off for a ball pressed onto a cube edge), so `n_a`
//!    takes only the other body's gradient — a body counts as smooth at the
//!    point when its gradient agrees with its central differences over
//!    `h = √tolerance·scale` (within [`SMOOTH_AGREEMENT`]); where neither is
//!    smooth, the central differences of both (they average the faces'
//!    normals). Fallbacks: the exact gradients, then `p_b − p_a`. `n_a` is
//!    "the way to move A out of B": `∇φ_B(p_a)` points out of B,
//!    `−∇φ_A(p_a)` into A's side. `n_b` likewise, `≈ −n_a`.
//! 4. **Strictly inside.** After a projection onto A's surface `φ_A` is zero
//!    up to rounding, so the paper's strict test `φ_A < 0` may never pass.
//!    The intersection test projects onto the level set `φ_A = −tol` instead
//!    (`tol` the absolute tolerance below), a body shrunk by the tolerance:
//!    overlaps shallower than the tolerance can be missed, found points are
//!    strictly inside. Contact generation projects onto `φ = 0`.
//! 5. **Projection.** Eq. 8 is exact for an exact SDF. For a lower bound
//!    ([`SdfAccuracy::LowerBound`](super::SdfAccuracy)) one projection falls
//!    short; it is repeated up to [`PROJECTION_CAP`] times; a point that
//!    still cannot be brought inside rejects the step (halves `s`).
//! 6. **Narrow valleys.** Near a contact at an edge or along a tube the
//!    objective restricted to the other body is a narrow valley (the
//!    distance to a line, seen on a surface passing close to it): gradient
//!    steps zigzag across it and crawl along it (hundreds of steps for a
//!    ball 0.015 from a cube edge). After every two accepted gradient steps
//!    the descent therefore tries the *parallel tangents* extrapolation
//!    (PARTAN, Shah–Buehler–Kempthorne 1964): points `x + β(x − x₋₂)`,
//!    `β = 1, 2, 4, 8`, projected, kept while they lower the objective
//!    (at most [`EXTRAPOLATION_CAP`] trials). It keeps the descent monotone
//!    and cut those runs to about a hundred steps in the tests.
//! 7. **Edges and corners.** Where the minimiser lies on an edge of the
//!    objective body (a ball pressed onto a cube edge: `φ_cube` is the
//!    larger of two face distances there), its SDF's gradient is one face's
//!    normal; every step along it leaves the ridge, none lowers the
//!    objective, and plain step halving stalls far from the minimiser
//!    (0.2–0.6 units in that test). Two remedies from nonsmooth
//!    optimisation (gradient sampling / bundle directions):
//!    - a rejected trial of step `s` whose gradient differs from the
//!      direction used by more than `max(`[`SMOOTH_AGREEMENT`]`, 2s/|φ|)`
//!      saw the other side of a ridge (near a convex feature a distance
//!      field's gradient turns by about `s/|φ|` over a step `s`; a face
//!      normal jumps): the next trial goes along the least-norm point of
//!      the segment between the two gradients, which runs along the ridge;
//!    - a stall is accepted as stationary only when the gradient by central
//!      differences over `h = √tolerance·scale` agrees with the direction
//!      used — one check of `2D` evaluations at a smooth minimiser.
//!      Otherwise the descent goes on along that smoothed gradient (which
//!      averages the faces' normals) and at its next stall compares with
//!      `h/8`, until `h` is below the tolerance. Each check counts as one
//!      iteration.
//!
//!    With both, the ball-on-edge runs converge in 50–90 steps to 1e-5.
//!
//! # Scale and tolerances
//! The **scale** is the diagonal of the detection box, the intersection of
//! the two bodies' [`bounding_box`](super::Sdf::bounding_box)es (the region
//! the detection points come from, and the size of the overlap to resolve);
//! where that box is empty or flat (bodies at most touching) or infinite,
//! the smaller finite diagonal of the two boxes. The initial step is
//! `step·scale`, the absolute tolerance `tol = tolerance·scale` (never below
//! 16 ulps of the largest start coordinate), the merge radius
//! `merge·scale`, the central-difference length `h = √tolerance·scale`. Two unbounded bodies (two halfspaces) have no scale:
//! [`Undetermined::NonFinite`].
//!
//! # What the answers mean
//! - `Penetrating` (and `hits > 0` in a [`GradientReport`]) proves overlap when
//!   both SDFs have the right sign (every [`SdfAccuracy`](super::SdfAccuracy)
//!   but `LooseLowerBound`): the point is inside both.
//! - `LocalMinimum` means only that the descent from *this* detection point
//!   stopped at a local minimum of `φ_B` over A outside B. For two convex
//!   bodies with exact SDFs the problem is convex and that minimum is the
//!   distance (up to the tolerance), so a miss means "apart or touching
//!   within the tolerance" — but nothing here certifies it; for non-convex
//!   bodies other detection points may still hit. It is **never** a proof
//!   of separation.
//! - Depths: `depth_a = −φ_B(p_a)`, `depth_b = −φ_A(p_b)` (the paper's
//!   queries), `depth = max(depth_a, depth_b)`. For exact SDFs `depth` is a
//!   lower bound of the penetration depth (the shortest separating
//!   translation must move `p_a` out of B, by at least `−φ_B(p_a)`, φ being
//!   1-Lipschitz), and equal to it where the deepest points are opposite
//!   each other (a ball on a face).

use super::{Aabb, Sdf, SdfSample, SdfWarmStart};
use crate::error::GradientError;
use crate::math::{finite_vec, max, min, norm, normalize, Real};
use crate::query::{Budget, Undetermined};
use nalgebra::SVector;

/// Projections (Eq. 8) tried per step before the step is rejected: one is
/// exact for an exact SDF; lower bounds converge from outside in a few.
pub const PROJECTION_CAP: u32 = 8;

/// Trials of one parallel-tangents line search (steps `1, 2, 4, 8` times
/// the displacement of the last two gradient steps).
pub const EXTRAPOLATION_CAP: u32 = 4;

/// A stalled descent whose smoothed gradient (decision 7) differs from its
/// direction by at most this (unit vectors) is stationary.
pub const SMOOTH_AGREEMENT: f64 = 1.0e-2;

/// Points tested on the segment between two contacts' midpoints to decide
/// whether they belong to one contact region ([`contacts`]).
pub const MERGE_SAMPLES: u32 = 8;

/// Step size, tolerance, caps and merge radius of the gradient methods;
/// lengths relative to the scale (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::GradientParams;
/// let p = GradientParams::<f32>::default();
/// assert_eq!(p.budget.max_iterations, 256);
/// assert!(p.check().is_ok());
/// assert!(GradientParams { step: 0.0, ..p }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GradientParams<R> {
    /// `max_iterations`: cap on the iterations of one descent (one run of
    /// Algorithm 2; each of the two descents of Algorithm 3); an iteration
    /// is a gradient step, an extrapolation trial or a stall check, each at
    /// most `2 + PROJECTION_CAP` SDF evaluations (a stall check `2D`).
    /// `tolerance`:
    /// relative to the scale, the smallest step and the smallest move that
    /// still count as progress; also the depth of the shrunk body the
    /// intersection test searches.
    pub budget: Budget<R>,
    /// Initial (and largest) step, relative to the scale. The paper starts at
    /// one unit for bodies of about 2.5 units.
    pub step: R,
    /// Two contacts whose `p_a` and whose `p_b` both lie within
    /// `merge·scale` of each other are one contact region (the deeper is kept).
    pub merge: R,
    /// In [`contacts`]: a hit whose straight segment to a stored contact's
    /// midpoint `(p_a + p_b)/2` lies inside both bodies is in that contact's
    /// region; skip Algorithm 3 from it (counted in
    /// [`GradientReport::covered`]). For convex pairs the contact from it
    /// would be the same; for a non-convex overlap region a deeper local
    /// minimum inside the same region could be missed. `false` runs
    /// Algorithm 3 from every hit, as the paper does.
    pub skip_covered_hits: bool,
}

impl<R: Real> Default for GradientParams<R> {
    /// 256 iterations per descent, tolerance `max(1000·ε, 1e-6)` (≈1.2e-4
    /// for f32, 1e-6 for f64), step 0.25 (a quarter of the detection box's
    /// diagonal), merge radius 0.02, covered hits skipped.
    fn default() -> Self {
        Self {
            budget: Budget { max_iterations: 256, tolerance: max(R::EPSILON * R::lit(1000.0), R::lit(1.0e-6)) },
            step: R::lit(0.25),
            merge: R::lit(0.02),
            skip_covered_hits: true,
        }
    }
}

impl<R: Real> GradientParams<R> {
    /// Checks that `step` and `tolerance` are finite and positive and
    /// `merge` finite and not negative. Zero iterations are allowed: every
    /// descent then stops at its cap.
    ///
    /// # Errors
    ///
    /// [`GradientError::InvalidParams`] when one of the three is out of
    /// range.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::sdf::gradient::GradientParams;
    /// use narrowphase::error::GradientError;
    /// let p = GradientParams::<f64>::default();
    /// assert_eq!(GradientParams { merge: 0.0, ..p }.check(), Ok(()));
    /// assert_eq!(GradientParams { merge: -0.1, ..p }.check(), Err(GradientError::InvalidParams));
    /// ```
    pub fn check(&self) -> Result<(), GradientError> {
        let ok = self.step.finite()
            && self.step > R::ZERO
            && self.budget.tolerance.finite()
            && self.budget.tolerance > R::ZERO
            && self.merge.finite()
            && self.merge >= R::ZERO;
        if ok {
            Ok(())
        } else {
            Err(GradientError::InvalidParams)
        }
    }

    fn undetermined_reason(&self) -> Undetermined {
        let finite = self.step.finite() && self.budget.tolerance.finite() && self.merge.finite();
        if finite {
            Undetermined::Degenerate
        } else {
            Undetermined::NonFinite
        }
    }
}

/// The answer of the intersection test (Algorithm 2) from one detection point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum IntersectionOutcome<R: Real, const D: usize> {
    /// `point` is inside both bodies (`φ_A < 0` and `φ_B < 0` evaluated
    /// there): the bodies overlap.
    Penetrating {
        /// A point inside both bodies.
        point: SVector<R, D>,
        /// Gradient steps taken (a start already inside both takes 0).
        iterations: u32,
    },
    /// The descent from this detection point stopped (step below the
    /// tolerance) at `closest`, a point of A where `φ_B` is locally minimal
    /// and not negative. **Not a proof of separation**: other detection
    /// points may hit (non-convex bodies), and overlaps shallower than the
    /// tolerance are not searched. For convex bodies with exact SDFs
    /// `phi_b` approximates their distance.
    LocalMinimum {
        /// The point of A (within the tolerance) where the descent stopped.
        closest: SVector<R, D>,
        /// `φ_B(closest)`.
        phi_b: R,
        /// Gradient steps taken.
        iterations: u32,
    },
    /// The test could not run to an answer: the iteration cap, a NaN or
    /// infinite value (input point, SDF value, parameters), or a start that
    /// could not be projected into A.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Gradient steps taken.
        iterations: u32,
    },
}

impl<R: Real, const D: usize> IntersectionOutcome<R, D> {
    /// The point inside both bodies, if found.
    pub fn found(&self) -> Option<&SVector<R, D>> {
        match self {
            Self::Penetrating { point, .. } => Some(point),
            _ => None,
        }
    }
    /// Gradient steps taken.
    pub fn iterations(&self) -> u32 {
        match *self {
            Self::Penetrating { iterations, .. }
            | Self::LocalMinimum { iterations, .. }
            | Self::Undetermined { iterations, .. } => iterations,
        }
    }
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for IntersectionOutcome<R, D> {
    fn format(&self, f: defmt::Formatter) {
        match self {
            Self::Penetrating { point, iterations } => {
                defmt::write!(f, "Penetrating {{ point: {}, iterations: {} }}", point.as_slice(), iterations)
            }
            Self::LocalMinimum { closest, phi_b, iterations } => defmt::write!(
                f,
                "LocalMinimum {{ closest: {}, phi_b: {}, iterations: {} }}",
                closest.as_slice(),
                phi_b,
                iterations
            ),
            Self::Undetermined { reason, iterations } => {
                defmt::write!(f, "Undetermined {{ reason: {}, iterations: {} }}", reason, iterations)
            }
        }
    }
}

/// One contact of Algorithm 3: the deepest points and the separating
/// directions (see the [module docs](self) for the conventions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradientContact<R: Real, const D: usize> {
    /// The deepest point of A inside B: a local minimiser of `φ_B` over A.
    pub p_a: SVector<R, D>,
    /// The deepest point of B inside A: a local minimiser of `φ_A` over B.
    pub p_b: SVector<R, D>,
    /// Unit direction to move A to separate: `∇φ_B − ∇φ_A` at `p_a`,
    /// normalised (line 8 and Eq. 10 of the paper at once; module docs,
    /// decision 3).
    pub n_a: SVector<R, D>,
    /// Unit direction to move B to separate: `∇φ_A − ∇φ_B` at `p_b`, normalised.
    pub n_b: SVector<R, D>,
    /// `−φ_B(p_a) > 0`.
    pub depth_a: R,
    /// `−φ_A(p_b) > 0`.
    pub depth_b: R,
    /// `max(depth_a, depth_b)`: for exact SDFs a lower bound of the
    /// penetration depth (shortest separating translation).
    pub depth: R,
    /// Gradient steps of both descents.
    pub iterations: u32,
    /// Both descents stopped at a stationary point (not at the cap).
    pub converged: bool,
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for GradientContact<R, D> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "GradientContact {{ p_a: {}, p_b: {}, n_a: {}, n_b: {}, depth: {}, iterations: {}, converged: {} }}",
            self.p_a.as_slice(),
            self.p_b.as_slice(),
            self.n_a.as_slice(),
            self.n_b.as_slice(),
            self.depth,
            self.iterations,
            self.converged
        )
    }
}

/// The answer of contact generation (Algorithm 3) from one starting point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum ContactOutcome<R: Real, const D: usize> {
    /// Both descents converged and found penetration (`converged` is true).
    Penetrating(GradientContact<R, D>),
    /// Both descents converged without penetration: the start was not
    /// inside both bodies and the local minima `φ_B(p_a)`, `φ_A(p_b)` are
    /// not negative. Not a proof of separation (local minima).
    LocalMinimum {
        /// Where the descent over A stopped.
        p_a: SVector<R, D>,
        /// Where the descent over B stopped.
        p_b: SVector<R, D>,
        /// `φ_B(p_a)`.
        phi_b_at_p_a: R,
        /// `φ_A(p_b)`.
        phi_a_at_p_b: R,
        /// Gradient steps of both descents.
        iterations: u32,
    },
    /// The cap bit (then `best` holds the contact reached so far when it
    /// penetrates, with `converged == false`; it is still at least as deep
    /// as the start), or a NaN/degenerate value (`best` is `None`).
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// The contact reached at the cap, if any.
        best: Option<GradientContact<R, D>>,
        /// Gradient steps of both descents.
        iterations: u32,
    },
}

impl<R: Real, const D: usize> ContactOutcome<R, D> {
    /// The converged contact, if any.
    pub fn contact(&self) -> Option<&GradientContact<R, D>> {
        match self {
            Self::Penetrating(c) => Some(c),
            _ => None,
        }
    }
}

#[cfg(feature = "defmt")]
impl<R: Real + defmt::Format, const D: usize> defmt::Format for ContactOutcome<R, D> {
    fn format(&self, f: defmt::Formatter) {
        match self {
            Self::Penetrating(c) => defmt::write!(f, "Penetrating({})", c),
            Self::LocalMinimum { phi_b_at_p_a, phi_a_at_p_b, iterations, .. } => defmt::write!(
                f,
                "LocalMinimum {{ phi_b_at_p_a: {}, phi_a_at_p_b: {}, iterations: {} }}",
                phi_b_at_p_a,
                phi_a_at_p_b,
                iterations
            ),
            Self::Undetermined { reason, best, iterations } => {
                defmt::write!(f, "Undetermined {{ reason: {}, best: {}, iterations: {} }}", reason, best, iterations)
            }
        }
    }
}

/// The counts of one [`contacts`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GradientReport {
    /// Detection points tried (all of them).
    pub tried: u32,
    /// Detection points whose intersection test found a point inside both
    /// bodies. `hits > 0` proves overlap; `hits == 0` proves nothing.
    pub hits: u32,
    /// Contacts written to the caller's buffer (`out[..stored]`), after merging.
    pub stored: u32,
    /// Contacts merged into a stored one (same region).
    pub merged: u32,
    /// Hits inside a stored contact's region, Algorithm 3 skipped
    /// ([`GradientParams::skip_covered_hits`]).
    pub covered: u32,
    /// Contacts that matched no stored contact while the buffer was full.
    /// They are not merged among themselves (no storage), so one lost
    /// region may be counted more than once.
    pub dropped: u32,
    /// Distinct contact regions seen: `stored + dropped` (exact when nothing
    /// was dropped, an upper bound otherwise).
    pub distinct: u32,
    /// Detection points whose intersection test or contact generation was
    /// undetermined (NaN point or value, cap of Algorithm 2, degenerate).
    pub undetermined: u32,
    /// Contacts stored or merged although a descent of Algorithm 3 hit the
    /// cap (`converged == false` on them).
    pub unconverged: u32,
    /// Gradient steps of all runs (saturating).
    pub iterations: u32,
}

impl GradientReport {
    /// `true` when some detection point found a point inside both bodies (a
    /// proof of overlap). `false` is **not** a proof of separation.
    pub fn overlap_found(&self) -> bool {
        self.hits > 0
    }
}

// ---------------------------------------------------------------------------
// Scale

/// Absolute lengths of one query.
#[derive(Clone, Copy, Debug)]
struct Frame<R> {
    step: R,
    tol: R,
    merge: R,
    /// Central-difference step of the normals: `√tolerance·scale`.
    normal_step: R,
}

fn diagonal<R: Real, const D: usize>(b: &Aabb<R, D>) -> Option<R> {
    if !b.is_finite() {
        return None;
    }
    let d = norm(&b.extent());
    if d.finite() && d > R::ZERO {
        Some(d)
    } else {
        None
    }
}

/// The scale of a pair (module docs): the detection box's diagonal, or the
/// smaller finite diagonal of the two boxes.
fn scale<R: Real, const D: usize, A, B>(a: &A, b: &B) -> Option<R>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    let (ba, bb) = (a.bounding_box(), b.bounding_box());
    let detection = ba.intersection(&bb).and_then(|d| diagonal(&d));
    if detection.is_some() {
        // A box intersection flat on some axis has zero diagonal only when
        // flat on every axis; a box that is flat on one axis but not the
        // others still gives a useful length.
        return detection;
    }
    match (diagonal(&ba), diagonal(&bb)) {
        (Some(x), Some(y)) => Some(min(x, y)),
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

fn frame<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    params: &GradientParams<R>,
    x0: &SVector<R, D>,
) -> Result<Frame<R>, Undetermined>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    if params.check().is_err() {
        return Err(params.undetermined_reason());
    }
    if !finite_vec(x0) {
        return Err(Undetermined::NonFinite);
    }
    let s = scale(a, b).ok_or(Undetermined::NonFinite)?;
    Ok(frame_at(s, params, x0))
}

fn frame_at<R: Real, const D: usize>(s: R, params: &GradientParams<R>, x0: &SVector<R, D>) -> Frame<R> {
    let magnitude = x0.iter().fold(R::ZERO, |m, c| max(m, c.abs_()));
    let floor = R::EPSILON * R::lit(16.0) * magnitude;
    let tol = max(params.budget.tolerance * s, floor);
    let normal_step = max(Real::sqrt(params.budget.tolerance) * s, tol);
    Frame { step: params.step * s, tol, merge: params.merge * s, normal_step }
}

// ---------------------------------------------------------------------------
// The projected-gradient descent (Eq. 8–9)

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Inside both bodies (only when asked to stop there).
    Inside,
    /// No descent at the tolerance's resolution.
    Stationary,
    Cap,
    NonFinite,
    /// The start could not be projected into the constraint body.
    Infeasible,
}

struct Descent<R: Real, const D: usize> {
    x: SVector<R, D>,
    /// Objective sample at `x`.
    obj: SdfSample<R, D>,
    /// Constraint sample at `x`.
    con: SdfSample<R, D>,
    iterations: u32,
    end: End,
}

fn finite_sample<R: Real, const D: usize>(s: &SdfSample<R, D>) -> bool {
    s.value.finite() && finite_vec(&s.gradient)
}

/// Brings `x` to `φ_C ≤ level` (`+ tol/2` after a projection) by at most [`PROJECTION_CAP`]
/// projections onto the level set `φ_C = level` (Eq. 8). `Err` on a
/// non-finite value, `Ok(None)` when the cap or a vanishing gradient stops it.
#[allow(clippy::type_complexity)]
fn project_into<R: Real, const D: usize, C: Sdf<R, D> + ?Sized>(
    con: &C,
    x: SVector<R, D>,
    level: R,
    tol: R,
    hint: &mut SdfWarmStart,
) -> Result<Option<(SVector<R, D>, SdfSample<R, D>)>, ()> {
    let mut x = x;
    // A point above the level is always projected at least once, onto the
    // level itself; only a projected point may keep the rounding allowance
    // `tol/2` (a trial accepted in that band unprojected would lower the
    // objective by leaving the body, and win against every honest step).
    let mut accept = level;
    for _ in 0..PROJECTION_CAP {
        let s = con.eval_hinted(&x, hint);
        if !finite_sample(&s) || !finite_vec(&x) {
            return Err(());
        }
        if s.value <= accept {
            return Ok(Some((x, s)));
        }
        accept = level + tol * R::HALF;
        if !(s.gradient.dot(&s.gradient) > R::ZERO) {
            return Ok(None);
        }
        x -= s.gradient * (s.value - level);
    }
    let s = con.eval_hinted(&x, hint);
    if !finite_sample(&s) || !finite_vec(&x) {
        return Err(());
    }
    Ok(if s.value <= accept { Some((x, s)) } else { None })
}

/// Minimises `φ_obj` over `{φ_con ≤ level}` from `x0` by projected gradient
/// steps with step halving (module docs). With `stop_inside`, stops at the
/// first iterate with `φ_obj < 0` and `φ_con < 0`.
#[allow(clippy::too_many_arguments)]
fn descend<R: Real, const D: usize, O, C>(
    obj: &O,
    con: &C,
    x0: &SVector<R, D>,
    level: R,
    frame: &Frame<R>,
    max_iterations: u32,
    stop_inside: bool,
) -> Descent<R, D>
where
    O: Sdf<R, D> + ?Sized,
    C: Sdf<R, D> + ?Sized,
{
    let (mut hint_o, mut hint_c) = (SdfWarmStart(0), SdfWarmStart(0));
    let mut out = Descent {
        x: *x0,
        obj: obj.eval_hinted(x0, &mut hint_o),
        con: con.eval_hinted(x0, &mut hint_c),
        iterations: 0,
        end: End::NonFinite,
    };
    if !finite_vec(x0) || !finite_sample(&out.obj) || !finite_sample(&out.con) {
        return out;
    }
    let inside = |o: &SdfSample<R, D>, c: &SdfSample<R, D>| o.value < R::ZERO && c.value < R::ZERO;
    if stop_inside && inside(&out.obj, &out.con) {
        out.end = End::Inside;
        return out;
    }
    // Make the start feasible (one iteration).
    if !(out.con.value <= level) {
        if max_iterations == 0 {
            out.end = End::Cap;
            return out;
        }
        out.iterations = 1;
        match project_into(con, *x0, level, frame.tol, &mut hint_c) {
            Err(()) => return out,
            Ok(None) => {
                out.end = End::Infeasible;
                return out;
            }
            Ok(Some((x, c))) => {
                out.x = x;
                out.con = c;
                out.obj = obj.eval_hinted(&x, &mut hint_o);
                if !finite_sample(&out.obj) {
                    return out;
                }
            }
        }
    }
    let mut s = frame.step;
    // The iterate two accepted gradient steps ago (parallel tangents).
    let mut anchor = out.x;
    let mut since = 0u32;
    // The descent direction: the gradient, or after a stall at an edge the
    // central-difference gradient over `smoothing` (decision 7).
    let mut dir = out.obj.gradient;
    let mut smoothing: Option<R> = None;
    let mut next_h = frame.normal_step;
    let mut tiny_move = false;
    loop {
        if stop_inside && inside(&out.obj, &out.con) {
            out.end = End::Inside;
            return out;
        }
        if out.iterations >= max_iterations {
            out.end = End::Cap;
            return out;
        }
        if tiny_move || !(s >= frame.tol) {
            // Stalled: stationary unless a smoothed gradient (over a
            // smaller length each time) points elsewhere.
            tiny_move = false;
            out.iterations += 1;
            let g = if next_h >= frame.tol { normalize(&central_gradient(obj, &out.x, next_h)) } else { None };
            let Some(g) = g else {
                out.end = End::Stationary;
                return out;
            };
            if norm(&(g - dir)) <= R::lit(SMOOTH_AGREEMENT) {
                out.end = End::Stationary;
                return out;
            }
            smoothing = Some(next_h);
            dir = g;
            s = min(next_h * R::lit(4.0), frame.step);
            next_h *= R::lit(0.125);
            anchor = out.x;
            since = 0;
            continue;
        }
        out.iterations += 1;
        let trial = out.x - dir * s;
        let (t, tc) = match project_into(con, trial, level, frame.tol, &mut hint_c) {
            Err(()) => {
                out.end = End::NonFinite;
                return out;
            }
            Ok(None) => {
                s *= R::HALF;
                continue;
            }
            Ok(Some(p)) => p,
        };
        let to = obj.eval_hinted(&t, &mut hint_o);
        if !finite_sample(&to) {
            out.end = End::NonFinite;
            return out;
        }
        if !(to.value < out.obj.value) {
            s *= R::HALF;
            // The trial crossed a ridge of the objective (its gradient
            // differs): go on along the least-norm convex combination of
            // the two gradients, which follows the ridge (decision 7).
            // A smooth distance field's gradient turns by at most about
            // `step/|φ|` (level sets of curvature radius ≥ |φ| near a convex
            // feature); a larger turn is a ridge.
            let turn = max(R::lit(SMOOTH_AGREEMENT), (s + s + s + s) / out.obj.value.abs_());
            if norm(&(to.gradient - dir)) > turn {
                if let Some(g) = normalize(&least_norm(&dir, &to.gradient)) {
                    dir = g;
                }
            }
            continue;
        }
        let moved = norm(&(t - out.x));
        out.x = t;
        out.obj = to;
        out.con = tc;
        tiny_move = !(moved >= frame.tol);
        s = min(s + s, frame.step);
        since += 1;
        if since >= 2 && !tiny_move {
            // Parallel tangents (module docs, decision 6): a doubling
            // line search along `x − anchor`, each trial one iteration.
            let d = out.x - anchor;
            let mut beta = R::ONE;
            for _ in 0..EXTRAPOLATION_CAP {
                if out.iterations >= max_iterations {
                    break;
                }
                out.iterations += 1;
                let Ok(Some((t, tc))) = project_into(con, out.x + d * beta, level, frame.tol, &mut hint_c) else {
                    break;
                };
                let to = obj.eval_hinted(&t, &mut hint_o);
                if !finite_sample(&to) || !(to.value < out.obj.value) {
                    break;
                }
                out.x = t;
                out.obj = to;
                out.con = tc;
                beta += beta;
            }
            anchor = out.x;
            since = 0;
        }
        dir = match smoothing.and_then(|h| normalize(&central_gradient(obj, &out.x, h))) {
            Some(g) => g,
            None => out.obj.gradient,
        };
    }
}

/// The point of the segment `[u, v]` nearest the origin.
fn least_norm<R: Real, const D: usize>(u: &SVector<R, D>, v: &SVector<R, D>) -> SVector<R, D> {
    let d = u - v;
    let dd = d.dot(&d);
    if !(dd > R::ZERO) {
        return *u;
    }
    // u·λ + v·(1 − λ) with λ = −v·(u − v)/|u − v|², clamped to [0, 1].
    let l = -v.dot(&d) / dd;
    let l = if l > R::ONE {
        R::ONE
    } else if l > R::ZERO {
        l
    } else {
        R::ZERO
    };
    v + d * l
}

/// The gradient of `φ` at `p` by central differences of the values over `h`
/// (`2D` evaluations): at an edge or a corner it averages the normals of the
/// faces that meet there.
fn central_gradient<R: Real, const D: usize, S: Sdf<R, D> + ?Sized>(sdf: &S, p: &SVector<R, D>, h: R) -> SVector<R, D> {
    SVector::<R, D>::from_fn(|i, _| {
        let mut e = SVector::<R, D>::zeros();
        if let Some(c) = e.get_mut(i) {
            *c = h;
        }
        (sdf.eval(&(p + e)).value - sdf.eval(&(p - e)).value) / (h + h)
    })
}

// ---------------------------------------------------------------------------
// Algorithm 2

/// Algorithm 2 from the detection point `x0`: moves it into A (Eq. 8), then
/// down `φ_B` inside A (Eq. 9) until it is inside both bodies, or no step
/// lowers `φ_B` any more, or the cap. See [`IntersectionOutcome`]; a zero
/// iteration cap still answers `Penetrating` for a start inside both.
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::{intersection_test, GradientParams, IntersectionOutcome};
/// use narrowphase::sdf::{Sdf, Transformed};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix3, Vector3};
/// let ball = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), Matrix3::identity(), 1.0, Vector3::new(x, 0.0, 0.0)).unwrap();
/// let (a, b) = (ball(0.0), ball(1.9)); // overlap 0.1 deep
/// let out = intersection_test(&a, &b, &Vector3::new(0.0, 3.0, 0.0), &GradientParams::default());
/// let p = out.found().expect("overlap");
/// assert!(a.eval(p).value < 0.0 && b.eval(p).value < 0.0);
/// let far = ball(2.5);
/// let out = intersection_test(&a, &far, &Vector3::new(1.0, 0.5, 0.0), &GradientParams::default());
/// match out {
///     IntersectionOutcome::LocalMinimum { phi_b, .. } => assert!((phi_b - 0.5).abs() < 1e-3), // the gap
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn intersection_test<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    x0: &SVector<R, D>,
    params: &GradientParams<R>,
) -> IntersectionOutcome<R, D>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    match frame(a, b, params, x0) {
        Ok(f) => intersection_in(a, b, x0, params, &f),
        Err(reason) => IntersectionOutcome::Undetermined { reason, iterations: 0 },
    }
}

fn intersection_in<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    x0: &SVector<R, D>,
    params: &GradientParams<R>,
    f: &Frame<R>,
) -> IntersectionOutcome<R, D>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    let d = descend(b, a, x0, -f.tol, f, params.budget.max_iterations, true);
    let iterations = d.iterations;
    match d.end {
        End::Inside => IntersectionOutcome::Penetrating { point: d.x, iterations },
        End::Stationary => IntersectionOutcome::LocalMinimum { closest: d.x, phi_b: d.obj.value, iterations },
        End::Cap => IntersectionOutcome::Undetermined { reason: Undetermined::IterationCap, iterations },
        End::NonFinite => IntersectionOutcome::Undetermined { reason: Undetermined::NonFinite, iterations },
        End::Infeasible => IntersectionOutcome::Undetermined { reason: Undetermined::Degenerate, iterations },
    }
}

// ---------------------------------------------------------------------------
// Algorithm 3

/// Algorithm 3 from `x_inside` (normally a point found by
/// [`intersection_test`]): `p_a` minimises `φ_B` over A, `p_b` minimises
/// `φ_A` over B, each descent from `x_inside` with the budget's cap; the
/// normals and depths as in [`GradientContact`]. A start inside both gives
/// `depth_a ≥ −φ_B(x_inside) > 0` and `depth_b ≥ −φ_A(x_inside) > 0`
/// (monotone descent).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::{contact, GradientParams};
/// use narrowphase::sdf::{BoxN, Transformed};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix3, Vector3};
/// // A unit ball 0.2 deep in the top face (z = 1) of a cube of side 2.
/// let ball = Transformed::new(Sphere::new(1.0_f64).unwrap(), Matrix3::identity(), 1.0, Vector3::new(0.1, 0.0, 1.8)).unwrap();
/// let cube = BoxN::new(Vector3::new(1.0, 1.0, 1.0)).unwrap();
/// let c = *contact(&ball, &cube, &Vector3::new(0.1, 0.0, 0.9), &GradientParams::default()).contact().unwrap();
/// assert!((c.p_a - Vector3::new(0.1, 0.0, 0.8)).norm() < 1e-3); // lowest point of the ball
/// assert!((c.p_b - Vector3::new(0.1, 0.0, 1.0)).norm() < 1e-3); // face point under the centre
/// assert!((c.depth - 0.2).abs() < 1e-4);
/// assert!((c.n_a - Vector3::z()).norm() < 1e-6); // move the ball up
/// ```
pub fn contact<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    x_inside: &SVector<R, D>,
    params: &GradientParams<R>,
) -> ContactOutcome<R, D>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    match frame(a, b, params, x_inside) {
        Ok(f) => contact_in(a, b, x_inside, params, &f),
        Err(reason) => ContactOutcome::Undetermined { reason, best: None, iterations: 0 },
    }
}

/// The contact normal at `p` (decision 3): `∇φ_out − ∇φ_in`, taking only
/// the gradient of the body that is smooth at `p` when one is not (its
/// gradient disagrees with its central differences over `h`), and the
/// central differences of both when neither is.
fn contact_normal<R: Real, const D: usize, O, I>(out_of: &O, into: &I, p: &SVector<R, D>, h: R) -> SVector<R, D>
where
    O: Sdf<R, D> + ?Sized,
    I: Sdf<R, D> + ?Sized,
{
    let (go, gi) = (out_of.eval(p).gradient, into.eval(p).gradient);
    let (co, ci) = (central_gradient(out_of, p, h), central_gradient(into, p, h));
    let agree = R::lit(SMOOTH_AGREEMENT);
    // Smooth: the difference quotients match the gradient, length included
    // (on a capsule's core segment they nearly cancel while the gradient
    // has length 1).
    let smooth = |g: &SVector<R, D>, c: &SVector<R, D>| norm(&(c - g)) <= agree;
    match (smooth(&go, &co), smooth(&gi, &ci)) {
        (true, true) => go - gi,
        (true, false) => go,
        (false, true) => -gi,
        (false, false) => co - ci,
    }
}

fn unit_or<R: Real, const D: usize>(
    first: SVector<R, D>,
    second: SVector<R, D>,
    third: SVector<R, D>,
) -> Option<SVector<R, D>> {
    normalize(&first).or_else(|| normalize(&second)).or_else(|| normalize(&third))
}

fn contact_in<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    x: &SVector<R, D>,
    params: &GradientParams<R>,
    f: &Frame<R>,
) -> ContactOutcome<R, D>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    let cap = params.budget.max_iterations;
    // p_a: φ_B minimised over A (objective B, constraint A); p_b symmetric.
    let da = descend(b, a, x, R::ZERO, f, cap, false);
    let db = descend(a, b, x, R::ZERO, f, cap, false);
    let iterations = da.iterations.saturating_add(db.iterations);
    for end in [da.end, db.end] {
        let reason = match end {
            End::NonFinite => Undetermined::NonFinite,
            End::Infeasible => Undetermined::Degenerate,
            _ => continue,
        };
        return ContactOutcome::Undetermined { reason, best: None, iterations };
    }
    let converged = da.end == End::Stationary && db.end == End::Stationary;
    let (depth_a, depth_b) = (-da.obj.value, -db.obj.value);
    if !(depth_a > R::ZERO && depth_b > R::ZERO) {
        if converged {
            return ContactOutcome::LocalMinimum {
                p_a: da.x,
                p_b: db.x,
                phi_b_at_p_a: da.obj.value,
                phi_a_at_p_b: db.obj.value,
                iterations,
            };
        }
        return ContactOutcome::Undetermined { reason: Undetermined::IterationCap, best: None, iterations };
    }
    // n_a: the way out of B at p_a (module docs, decision 3).
    let h = f.normal_step;
    let n_a = unit_or(contact_normal(b, a, &da.x, h), da.obj.gradient - da.con.gradient, db.x - da.x);
    let n_b = unit_or(contact_normal(a, b, &db.x, h), db.obj.gradient - db.con.gradient, da.x - db.x);
    let (Some(n_a), Some(n_b)) = (n_a, n_b) else {
        return ContactOutcome::Undetermined { reason: Undetermined::Degenerate, best: None, iterations };
    };
    let c = GradientContact {
        p_a: da.x,
        p_b: db.x,
        n_a,
        n_b,
        depth_a,
        depth_b,
        depth: max(depth_a, depth_b),
        iterations,
        converged,
    };
    if converged {
        ContactOutcome::Penetrating(c)
    } else {
        ContactOutcome::Undetermined { reason: Undetermined::IterationCap, best: Some(c), iterations }
    }
}

// ---------------------------------------------------------------------------
// Many detection points

/// Algorithm 2 from every detection point, Algorithm 3 from every hit
/// (except, by default, hits inside the region of a contact already stored:
/// [`GradientParams::skip_covered_hits`]);
/// a contact of the same region as a stored one is merged into it (the
/// deeper one is kept), the others are stored in `out` in the order found.
/// Same region: `p_a` and `p_b` both within `merge·scale` of the stored
/// contact's (converged to the same points), or the straight segment
/// between the two contacts' midpoints `(p_a + p_b)/2` inside both bodies
/// (tested at [`MERGE_SAMPLES`] points). The second test is needed where
/// the deepest points are not unique — a flat face pressed into a body
/// (every point of the face is equally deep), a tube crossing another's
/// core — and different detection points converge to different points of
/// one region. `p_a` and `p_b` both lie in `A ∩ B`, so the segment test is
/// exact for convex bodies; for non-convex ones it may keep two contacts of
/// one curved region apart (more contacts, never fewer regions). A full buffer drops contacts and
/// counts them ([`GradientReport::dropped`]), never silently. Every run has
/// the budget's cap, so the work is at most `points.len()·3·max_iterations`
/// steps. Contacts cut by the cap are kept with `converged == false`.
/// A non-finite detection point is skipped and counted in
/// [`GradientReport::undetermined`].
///
/// # Errors
///
/// Checked before any detection point is tried:
/// - [`GradientError::InvalidParams`] if [`GradientParams::check`] fails;
/// - [`GradientError::Unbounded`] if the pair has no finite scale: the
///   bounding boxes meet in no region with a finite, non-zero diagonal, and
///   neither box has one either (two unbounded bodies).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::{contacts, lattice_points, GradientContact, GradientParams};
/// use narrowphase::sdf::{BoxN, Sdf, Transformed, Union};
/// use narrowphase::shape::Sphere;
/// use nalgebra::{Matrix3, Vector3};
/// // Two balls (one body) resting 0.2 deep on a slab: two contact regions.
/// let ball = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), Matrix3::identity(), 1.0, Vector3::new(x, 0.0, 0.0)).unwrap();
/// let dumbbell = Union::new(ball(-1.5), ball(1.5));
/// let slab = Transformed::new(BoxN::new(Vector3::new(4.0, 4.0, 1.0)).unwrap(), Matrix3::identity(), 1.0, Vector3::new(0.0, 0.0, -1.8)).unwrap();
/// let region = dumbbell.bounding_box().intersection(&slab.bounding_box()).unwrap();
/// let mut points = [Vector3::zeros(); 27];
/// let n = lattice_points(&region, 3, &mut points).unwrap();
/// let mut out = [GradientContact::default(); 4];
/// let report = contacts(&dumbbell, &slab, &points[..n], &GradientParams::default(), &mut out).unwrap();
/// assert_eq!((report.stored, report.dropped), (2, 0));
/// for c in &out[..2] {
///     assert!((c.depth - 0.2).abs() < 1e-4 && (c.p_a.x.abs() - 1.5).abs() < 1e-3);
/// }
/// ```
pub fn contacts<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    detection_points: &[SVector<R, D>],
    params: &GradientParams<R>,
    out: &mut [GradientContact<R, D>],
) -> Result<GradientReport, GradientError>
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    params.check()?;
    let s = scale(a, b).ok_or(GradientError::Unbounded)?;
    let mut report = GradientReport::default();
    let count = |n: u32| n.saturating_add(1);
    for x0 in detection_points {
        report.tried = count(report.tried);
        if !finite_vec(x0) {
            report.undetermined = count(report.undetermined);
            continue;
        }
        let f = frame_at(s, params, x0);
        let hit = intersection_in(a, b, x0, params, &f);
        report.iterations = report.iterations.saturating_add(hit.iterations());
        let IntersectionOutcome::Penetrating { point, .. } = hit else {
            if let IntersectionOutcome::Undetermined { .. } = hit {
                report.undetermined = count(report.undetermined);
            }
            continue;
        };
        report.hits = count(report.hits);
        if params.skip_covered_hits {
            let covered = out
                .iter()
                .take(report.stored as usize)
                .any(|c| segment_inside(a, b, &point, &((c.p_a + c.p_b) * R::HALF), f.tol));
            if covered {
                report.covered = count(report.covered);
                continue;
            }
        }
        let c = match contact_in(a, b, &point, params, &frame_at(s, params, &point)) {
            ContactOutcome::Penetrating(c) => c,
            ContactOutcome::Undetermined { best: Some(c), .. } => {
                report.unconverged = count(report.unconverged);
                c
            }
            ContactOutcome::Undetermined { iterations, .. } | ContactOutcome::LocalMinimum { iterations, .. } => {
                // LocalMinimum cannot follow a hit for SDFs of the right
                // sign (monotone descent from a point inside both).
                report.iterations = report.iterations.saturating_add(iterations);
                report.undetermined = count(report.undetermined);
                continue;
            }
        };
        report.iterations = report.iterations.saturating_add(c.iterations);
        merge_into(a, b, &c, &f, out, &mut report);
    }
    report.distinct = report.stored.saturating_add(report.dropped);
    Ok(report)
}

/// Same contact region: both points within the merge radius, or the
/// segment between the contacts' midpoints `(p_a + p_b)/2` inside both
/// bodies (within the tolerance) at [`MERGE_SAMPLES`] interior points.
fn same_region<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    c: &GradientContact<R, D>,
    old: &GradientContact<R, D>,
    f: &Frame<R>,
) -> bool
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    if norm(&(c.p_a - old.p_a)) <= f.merge && norm(&(c.p_b - old.p_b)) <= f.merge {
        return true;
    }
    segment_inside(a, b, &((c.p_a + c.p_b) * R::HALF), &((old.p_a + old.p_b) * R::HALF), f.tol)
}

/// [`MERGE_SAMPLES`] interior points of the segment `[m0, m1]` all inside
/// both bodies (within `tol`).
fn segment_inside<R: Real, const D: usize, A, B>(a: &A, b: &B, m0: &SVector<R, D>, m1: &SVector<R, D>, tol: R) -> bool
where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    let n = R::lit(f64::from(MERGE_SAMPLES + 1));
    (1..=MERGE_SAMPLES).all(|k| {
        let x = m0 + (m1 - m0) * (R::lit(f64::from(k)) / n);
        a.eval(&x).value <= tol && b.eval(&x).value <= tol
    })
}

fn merge_into<R: Real, const D: usize, A, B>(
    a: &A,
    b: &B,
    c: &GradientContact<R, D>,
    f: &Frame<R>,
    out: &mut [GradientContact<R, D>],
    report: &mut GradientReport,
) where
    A: Sdf<R, D> + ?Sized,
    B: Sdf<R, D> + ?Sized,
{
    let stored = out.iter_mut().take(report.stored as usize);
    for old in stored {
        if same_region(a, b, c, old, f) {
            report.merged = report.merged.saturating_add(1);
            // Prefer converged contacts, then the deeper one.
            let better = (c.converged && !old.converged) || (c.converged == old.converged && c.depth > old.depth);
            if better {
                *old = *c;
            }
            return;
        }
    }
    match out.get_mut(report.stored as usize) {
        Some(slot) => {
            *slot = *c;
            report.stored = report.stored.saturating_add(1);
        }
        None => report.dropped = report.dropped.saturating_add(1),
    }
}

impl<R: Real, const D: usize> Default for GradientContact<R, D> {
    /// All zero, `converged == false`: a placeholder to fill a buffer.
    fn default() -> Self {
        Self {
            p_a: SVector::zeros(),
            p_b: SVector::zeros(),
            n_a: SVector::zeros(),
            n_b: SVector::zeros(),
            depth_a: R::ZERO,
            depth_b: R::ZERO,
            depth: R::ZERO,
            iterations: 0,
            converged: false,
        }
    }
}

// ---------------------------------------------------------------------------
// Detection points

/// Detection points (§4.2): the centres of the `per_axis^D` cells of a
/// regular split of `region` (normally the detection box, the intersection
/// of the two bounding boxes), written to `out[..n]`, `n` returned; first
/// axis fastest.
///
/// # Errors
///
/// In this order, the first failure decides; nothing is written then:
/// - [`GradientError::InvalidBox`] if `region` has a NaN or inverted bound;
/// - [`GradientError::Unbounded`] if it has an infinite bound or its extent
///   overflows;
/// - [`GradientError::ZeroPoints`] if `per_axis` is 0;
/// - [`GradientError::Capacity`] if `out` holds fewer than `per_axis^D`
///   points (`needed` is `usize::MAX` when that count overflows).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::lattice_points;
/// use narrowphase::sdf::Aabb;
/// use nalgebra::Vector2;
/// let region = Aabb::new(Vector2::new(0.0_f32, 0.0), Vector2::new(2.0, 1.0)).unwrap();
/// let mut pts = [Vector2::zeros(); 4];
/// assert_eq!(lattice_points(&region, 2, &mut pts), Ok(4));
/// assert_eq!(pts, [Vector2::new(0.5, 0.25), Vector2::new(1.5, 0.25), Vector2::new(0.5, 0.75), Vector2::new(1.5, 0.75)]);
/// assert!(lattice_points(&region, 3, &mut pts).is_err()); // 9 do not fit
/// ```
pub fn lattice_points<R: Real, const D: usize>(
    region: &Aabb<R, D>,
    per_axis: u32,
    out: &mut [SVector<R, D>],
) -> Result<usize, GradientError> {
    region.check().map_err(GradientError::InvalidBox)?;
    if !region.is_finite() || !finite_vec(&region.extent()) {
        return Err(GradientError::Unbounded);
    }
    // Non-zero by type: the index arithmetic below has no division-by-zero
    // path.
    let n = core::num::NonZeroUsize::new(per_axis as usize).ok_or(GradientError::ZeroPoints)?;
    let needed = u32::try_from(D).ok().and_then(|d| n.get().checked_pow(d)).unwrap_or(usize::MAX);
    if needed > out.len() {
        return Err(GradientError::Capacity { needed, capacity: out.len() });
    }
    let cell = region.extent() / R::lit(per_axis as f64);
    for (k, slot) in out.iter_mut().take(needed).enumerate() {
        let mut rest = k;
        let mut p = region.min;
        for (pi, ci) in p.iter_mut().zip(cell.iter()) {
            let index = rest % n;
            rest /= n;
            *pi += *ci * (R::lit(index as f64) + R::HALF);
        }
        *slot = p;
    }
    Ok(needed)
}

/// Most grid samples one [`protrusion_points`] call visits (`2^24`: the
/// work stays bounded whatever `per_axis` is).
pub const MAX_PROTRUSION_SAMPLES: usize = 1 << 24;

/// The counts of one [`protrusion_points`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProtrusionReport {
    /// Grid samples visited.
    pub samples: usize,
    /// Samples that met the condition.
    pub found: usize,
    /// Written to `out[..stored]` (the first found, in grid order);
    /// `found − stored` were dropped for lack of room.
    pub stored: usize,
}

/// Surface protrusion detection points (§4.2, Fig. 6): the cell centres `x`
/// of a regular `per_axis^D` grid over `region` with `φ(x) < boundary`
/// whose `2D` axis neighbours `x ± reach·eᵢ` have `φ > boundary` in at
/// least `2D − 2` cases (the paper's "four of six" in 3D): points inside a
/// protrusion thinner than about `2·reach` (a spike, a fin, a thin shell),
/// which a coarse lattice of the detection box can miss, and, as the paper
/// notes, points just under convex parts of the surface. Transform them
/// with the body when it moves (the body here is already placed).
///
/// A full `out` is not an error: it is reported (`found > stored`), never
/// silent.
///
/// # Errors
///
/// In this order, the first failure decides; nothing is evaluated then:
/// - [`GradientError::InvalidBox`] if `region` has a NaN or inverted bound;
/// - [`GradientError::Unbounded`] if it has an infinite bound or its extent
///   overflows;
/// - [`GradientError::ZeroPoints`] if `per_axis` is 0;
/// - [`GradientError::InvalidParams`] if `reach` is NaN, infinite, zero or
///   negative, or `boundary` is NaN or infinite;
/// - [`GradientError::TooManySamples`] if `per_axis^D` exceeds
///   [`MAX_PROTRUSION_SAMPLES`] (`requested` is `usize::MAX` when that count
///   overflows).
///
/// # Examples
///
/// ```
/// use narrowphase::sdf::gradient::protrusion_points;
/// use narrowphase::sdf::{Sdf, Transformed, Union};
/// use narrowphase::shape::{Capsule, Sphere};
/// use nalgebra::{Matrix3, Rotation3, Vector3};
/// // A unit ball with a thin spike (radius 0.05) along +x up to x = 2.
/// let along_x = *Rotation3::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0).matrix();
/// let spike = Transformed::new(Capsule::new(0.5, 0.05).unwrap(), along_x, 1.0, Vector3::new(1.5, 0.0, 0.0)).unwrap();
/// let body = Union::new(Sphere::new(1.0_f64).unwrap(), spike);
/// let mut out = [Vector3::zeros(); 128];
/// let r = protrusion_points(&body, &body.bounding_box(), 41, 0.1, 0.0, &mut out).unwrap();
/// assert_eq!(r.found, r.stored);
/// let points = &out[..r.stored];
/// // Inside, within `reach` of the surface: the spike, and a few points just
/// // under the ball's curved surface (where it is convex, as the paper says).
/// assert!(points.iter().all(|p| (-0.1..0.0).contains(&body.eval(p).value)));
/// assert!(points.iter().filter(|p| p.x > 1.0 && p.y.abs() < 0.05 && p.z.abs() < 0.05).count() >= 14);
/// ```
pub fn protrusion_points<R: Real, const D: usize, S: Sdf<R, D> + ?Sized>(
    body: &S,
    region: &Aabb<R, D>,
    per_axis: u32,
    reach: R,
    boundary: R,
    out: &mut [SVector<R, D>],
) -> Result<ProtrusionReport, GradientError> {
    region.check().map_err(GradientError::InvalidBox)?;
    if !region.is_finite() || !finite_vec(&region.extent()) {
        return Err(GradientError::Unbounded);
    }
    // Non-zero by type: the index arithmetic below has no division-by-zero
    // path.
    let n = core::num::NonZeroUsize::new(per_axis as usize).ok_or(GradientError::ZeroPoints)?;
    if !(reach.finite() && reach > R::ZERO && boundary.finite()) {
        return Err(GradientError::InvalidParams);
    }
    let requested = u32::try_from(D).ok().and_then(|d| n.get().checked_pow(d)).unwrap_or(usize::MAX);
    if requested > MAX_PROTRUSION_SAMPLES {
        return Err(GradientError::TooManySamples { requested });
    }
    let cell = region.extent() / R::lit(per_axis as f64);
    let needed_outside = (2 * D).saturating_sub(2);
    let mut report = ProtrusionReport::default();
    for k in 0..requested {
        let mut rest = k;
        let mut x = region.min;
        for (xi, ci) in x.iter_mut().zip(cell.iter()) {
            let index = rest % n;
            rest /= n;
            *xi += *ci * (R::lit(index as f64) + R::HALF);
        }
        report.samples += 1;
        if !(body.eval(&x).value < boundary) {
            continue;
        }
        let mut outside = 0;
        for i in 0..D {
            let mut e = SVector::<R, D>::zeros();
            if let Some(c) = e.get_mut(i) {
                *c = reach;
            }
            outside += usize::from(body.eval(&(x + e)).value > boundary);
            outside += usize::from(body.eval(&(x - e)).value > boundary);
        }
        if outside < needed_outside {
            continue;
        }
        report.found += 1;
        if let Some(slot) = out.get_mut(report.stored) {
            *slot = x;
            report.stored += 1;
        }
    }
    Ok(report)
}

#[cfg(feature = "defmt")]
#[allow(dead_code)]
fn _defmt_check() {
    fn check<T: defmt::Format>() {}
    check::<GradientParams<f32>>();
    check::<GradientError>();
    check::<IntersectionOutcome<f32, 3>>();
    check::<GradientContact<f32, 3>>();
    check::<ContactOutcome<f32, 3>>();
    check::<GradientReport>();
    check::<ProtrusionReport>();
}
