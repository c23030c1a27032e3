//! The shared query vocabulary: outcomes, certified bounds, budgets, errors.
//!
//! Every query of every family answers with one of three things:
//! - **separated**: the bodies are apart, with a distance and a certificate
//!   `lower <= distance <= upper`;
//! - **penetrating** (or intersecting): the bodies overlap;
//! - **undetermined**: the method could not tell within its budget, its
//!   capacity, or the numbers it was given — with an [`Undetermined`] reason and
//!   the bounds it had reached. Undetermined is never reported as separated.

use crate::math::{Pt3, Real, Vec3};

/// Why a query could not decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Undetermined {
    /// The iteration cap of the [`Budget`] was reached before the
    /// tolerance was met.
    IterationCap,
    /// A fixed-capacity buffer (EPA faces/vertices, a queue) ran out.
    OutOfCapacity,
    /// The problem is degenerate for the method (flat simplex where a
    /// volume was needed, no progress possible with the current precision).
    Degenerate,
    /// An input or an intermediate value was NaN or infinite.
    NonFinite,
    /// The [`Budget`] cannot be used: a negative, NaN or infinite tolerance.
    InvalidBudget,
}

impl core::fmt::Display for Undetermined {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Undetermined::IterationCap => "the iteration cap was reached before the tolerance",
            Undetermined::OutOfCapacity => "a fixed-capacity buffer ran out",
            Undetermined::Degenerate => "the problem is degenerate for the method at this precision",
            Undetermined::NonFinite => "an input or intermediate value was NaN or infinite",
            Undetermined::InvalidBudget => "the budget's tolerance is negative, NaN or infinite",
        })
    }
}

/// When an iterative query may stop: as soon as its answer's sign is
/// certain, or only once its value has converged.
///
/// The same choice in every family that has it: the ellipsoid method
/// ([`EllipsoidMethod`](crate::sdf::ellipsoid_method::EllipsoidMethod)), the superquadric
/// checkers ([`ellipsoid_superquadric`](crate::minkowski::superquadric::ellipsoid_superquadric))
/// and the interval octree ([`OctreeParams`](crate::sdf::octree::OctreeParams)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Stop {
    /// At the first certificate of the sign (a collision test): separated
    /// or penetrating is proved, the value is that of the last iterate.
    /// The ellipsoid method cuts at level 0 (the feasibility form) and may
    /// report a `Separated` lower bound of just 0; the octree returns at
    /// the first cell inside both bodies.
    #[default]
    Decided,
    /// When the value meets the budget's tolerance (distance, depth or
    /// margin), then decide. The octree visits the whole region and keeps
    /// every cell inside both bodies or unresolved (the intersection
    /// region and the detection points of contact generation).
    Converged,
}

/// A certified interval `lower <= value <= upper`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Bounds<R> {
    /// Certified lower bound.
    pub lower: R,
    /// Certified upper bound.
    pub upper: R,
}

impl<R: Real> Bounds<R> {
    /// Nothing known: `[-inf, +inf]`.
    pub fn unknown() -> Self {
        Self { lower: -R::INFINITY, upper: R::INFINITY }
    }
    /// `upper - lower`.
    pub fn gap(&self) -> R {
        self.upper - self.lower
    }
    /// `lower <= x <= upper` (false for NaN).
    pub fn contains(&self, x: R) -> bool {
        self.lower <= x && x <= self.upper
    }
}

/// Iteration cap and relative tolerance of an iterative query.
///
/// The tolerance is **relative**: each method multiplies it by the scale of
/// its problem (for GJK the largest support-point magnitude seen, which also
/// covers the cancellation error of `a − b` far from the origin). Callers on a
/// hard real-time tick pass a smaller `max_iterations` and still get valid
/// bounds (as an [`Undetermined::IterationCap`] outcome when it bites).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Budget<R> {
    /// Hard cap on iterations of the main loop.
    pub max_iterations: u32,
    /// Relative tolerance on the gap `upper - lower`.
    pub tolerance: R,
}

impl<R: Real> Default for Budget<R> {
    /// 64 iterations, tolerance `max(1000·ε, 1e-9)`: ≈1.2e-4 for f32
    /// (0.12 mm on a metre, the precision's own limit), 1e-9 for f64 (a
    /// nanometre on a metre: far below what a robot can use, and reached
    /// by GJK on curved bodies, which converges linearly there, within the
    /// cap; `1000·ε` of f64 would need three times the iterations).
    fn default() -> Self {
        Self { max_iterations: 64, tolerance: crate::math::max(R::EPSILON * R::lit(1000.0), R::lit(1.0e-9)) }
    }
}

impl<R: Real> Budget<R> {
    /// A budget with the given cap and relative tolerance.
    pub const fn new(max_iterations: u32, tolerance: R) -> Self {
        Self { max_iterations, tolerance }
    }

    /// `true` when the tolerance is finite and not negative: a query given
    /// any other budget answers [`Undetermined::InvalidBudget`].
    pub fn is_valid(&self) -> bool {
        // One range test (NaN fails it), two float comparisons where
        // `is_finite` compiles to a dozen integer instructions.
        self.tolerance >= R::ZERO && self.tolerance <= R::MAX
    }
}

/// Closest (or deepest) points on the two bodies and the unit normal
/// pointing from body A towards body B.
///
/// For a separated pair `point_b - point_a = distance · normal`; for a
/// penetrating pair `point_a - point_b = depth · normal`, i.e. moving B by
/// `depth · normal` separates the bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Witness<R: Real> {
    /// Point on (the surface of) body A, world frame.
    pub point_a: Pt3<R>,
    /// Point on (the surface of) body B, world frame.
    pub point_b: Pt3<R>,
    /// Unit normal from A towards B.
    pub normal: Vec3<R>,
}

/// The answer for a separated pair.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Separation<R: Real> {
    /// The distance reported: the length of the witness segment, always equal
    /// to `bounds.upper` and attained by the witness points.
    pub distance: R,
    /// Certificate: `bounds.lower > 0` proves separation.
    pub bounds: Bounds<R>,
    /// Closest points and normal.
    pub witness: Witness<R>,
}

/// The answer for a penetrating pair.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Penetration<R: Real> {
    /// Penetration depth by the method's own definition, between the bounds:
    /// for EPA the length of the smallest translation that separates the
    /// bodies; for MPR the depth along its portal normal (an upper bound of
    /// EPA's).
    pub depth: R,
    /// Certificate on the depth.
    pub bounds: Bounds<R>,
    /// Deepest points and normal (`point_a - point_b = depth · normal`).
    pub witness: Witness<R>,
}

/// The three-valued proximity of two bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum Proximity<R: Real> {
    /// Apart, with distance and witness points.
    Separated(Separation<R>),
    /// Overlapping, with depth and witness points.
    Penetrating(Penetration<R>),
    /// Could not tell; `bounds` bracket the *signed* distance (negative =
    /// depth) as far as the method got.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Signed-distance bounds reached so far.
        bounds: Bounds<R>,
    },
}

impl<R: Real> Proximity<R> {
    /// `Some(true)` when penetrating, `Some(false)` when separated, `None`
    /// when undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            Proximity::Separated(_) => Some(false),
            Proximity::Penetrating(_) => Some(true),
            Proximity::Undetermined { .. } => None,
        }
    }

    /// The signed distance (negative depth when penetrating), if determined.
    pub fn signed_distance(&self) -> Option<R> {
        match self {
            Proximity::Separated(s) => Some(s.distance),
            Proximity::Penetrating(p) => Some(-p.depth),
            Proximity::Undetermined { .. } => None,
        }
    }
}

/// The answer of a threshold query: "is the distance of the two bodies
/// below `threshold`?", decided as soon as the certified bounds allow.
///
/// GJK brackets the distance `d` between a certified lower bound and the
/// length of a point of the configuration-space obstacle; the query stops as
/// soon as the bracket lies on one side of the threshold, usually long
/// before it converges. Undetermined is never reported as [`Clear`](Threshold::Clear).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum Threshold<R: Real> {
    /// Certified: `bounds.lower > threshold`, so the signed distance is
    /// above the threshold.
    Clear {
        /// Bounds on the signed distance reached when the query stopped.
        bounds: Bounds<R>,
    },
    /// The signed distance is at most the threshold: certified below it
    /// (`bounds.upper < threshold`), or equal to it within the budget's
    /// tolerance (the query converged with the threshold inside its bounds),
    /// or the bodies touch or overlap. The safe side of a tie.
    Within {
        /// Bounds on the signed distance. Where the bodies overlap, `lower`
        /// is `−∞` unless the query measured the depth on its way (closed-form
        /// pairs and boxes do; GJK does not).
        bounds: Bounds<R>,
    },
    /// Could not decide within the budget or the precision: neither
    /// answer is certified.
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Signed-distance bounds reached so far.
        bounds: Bounds<R>,
    },
}

impl<R: Real> Threshold<R> {
    /// `Some(true)` when certified clear, `Some(false)` when within the
    /// threshold, `None` when undetermined.
    ///
    /// ```
    /// use narrowphase::query::{Bounds, Threshold};
    /// let t = Threshold::Clear { bounds: Bounds { lower: 0.3_f32, upper: 0.5 } };
    /// assert_eq!(t.is_clear(), Some(true));
    /// ```
    pub fn is_clear(&self) -> Option<bool> {
        match self {
            Threshold::Clear { .. } => Some(true),
            Threshold::Within { .. } => Some(false),
            Threshold::Undetermined { .. } => None,
        }
    }

    /// The signed-distance bounds carried by every variant.
    ///
    /// ```
    /// use narrowphase::query::{Bounds, Threshold, Undetermined};
    /// let b = Bounds { lower: -1.0_f64, upper: 2.0 };
    /// let t = Threshold::Undetermined { reason: Undetermined::IterationCap, bounds: b };
    /// assert_eq!(t.bounds(), b);
    /// ```
    pub fn bounds(&self) -> Bounds<R> {
        match self {
            Threshold::Clear { bounds } | Threshold::Within { bounds } | Threshold::Undetermined { bounds, .. } => {
                *bounds
            }
        }
    }
}
