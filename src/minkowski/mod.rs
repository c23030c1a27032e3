//! Bodies seen through closed-form Minkowski sums: exact ellipsoid–superquadric
//! (3D) and ellipse–superellipse (2D) collision by Ruan et al., *Efficient
//! exact collision detection between ellipsoids and superquadrics via
//! closed-form Minkowski sums* (ICRA 2019, "the paper"), and the algebraic
//! ellipsoid–ellipsoid separation condition of Wang, Wang & Kim (CAGD 2001).
//!
//! - [`superquadric`]: the paper's Algorithm 1. The ellipsoid shrinks to its
//!   centre `p₀`, the superquadric grows into the closed-form boundary of
//!   `S ⊕ E` (Eq. 3–6); a bounded, allocation-free root finder puts the
//!   boundary point `x_eb(ψ̃)` on the ray through `p₀` (Eq. 15 in 2D, Eq. 17
//!   in 3D) and `|p₀|` against `|x_eb(ψ̃)|` decides (Eq. 13). Every answer
//!   carries the continuous margin `|p₀| / |x_eb|`, the boundary point as a
//!   witness, the iterations and the final residual.
//! - [`ellipsoid_pair`]: the characteristic polynomial `det(λA + B)` of two
//!   ellipsoids (quartic) or ellipses (cubic); the bodies are separated iff it
//!   has two distinct positive roots.
//!
//! Undetermined is never reported as separated: a separated answer of the
//! exact checker is certified by a separating plane, a colliding one by a
//! cone of interior points or by convergence to contact within tolerance.

pub mod ellipsoid_pair;
pub mod superquadric;

use crate::math::Real;
use crate::query::Undetermined;

/// What the exact checker found on the ray from the superquadric's centre
/// through the ellipsoid's centre.
///
/// `V` is the point type: `Vector3<R>` in 3D, `Vector2<R>` in 2D.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RayHit<R: Real, V> {
    /// `|p₀| / |x_eb(ψ̃)|`: above 1 separated, below 1 colliding, a smooth
    /// and scale-free measure (0 for coincident centres; saturated at the
    /// largest finite value when the ratio overflows). Exact to the
    /// residual when the solver converged; from the last iterate when the
    /// answer was certified earlier (see [`converged`](Self::converged)).
    pub margin: R,
    /// World position of the boundary point `x_eb(ψ̃)` of the Minkowski
    /// sum: where the ellipsoid's centre would be when the bodies touch,
    /// moving along the ray.
    pub boundary_point: V,
    /// World position of the superquadric surface point `x_a(ψ̃)` that the
    /// ellipsoid touches there (the contact witness).
    pub contact_point: V,
    /// Unit outward normal of the superquadric at `contact_point` (world).
    pub normal: V,
    /// Final residual: the sine of the angle between `x_eb(ψ̃)` and `p₀`
    /// (Eq. 14/16 divided by `|x_eb|`).
    pub residual: R,
    /// Root-finder iterations (evaluations of `x_eb` and its Jacobian).
    pub iterations: u32,
    /// `true` when the residual met the budget's tolerance.
    pub converged: bool,
    /// `true` when the answer is proved (a separating plane, or `p₀` inside
    /// a cone of interior points); `false` for contact within tolerance
    /// (converged, `|p₀| ≈ |x_eb|`), which is reported as colliding.
    pub certified: bool,
}

/// The answer of the exact checker.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use = "an outcome may be Undetermined; match it"]
pub enum MinkowskiOutcome<R: Real, V> {
    /// The bodies are apart (`|p₀| > |x_eb(ψ̃)|`).
    Separated(RayHit<R, V>),
    /// The bodies overlap or touch (`|p₀| ≤ |x_eb(ψ̃)|`).
    Penetrating(RayHit<R, V>),
    /// The root finder could not settle within its budget, or the input was
    /// not finite. Never a guessed "separated".
    Undetermined {
        /// Why.
        reason: Undetermined,
        /// Iterations spent.
        iterations: u32,
        /// Residual reached (NaN when nothing was evaluated).
        residual: R,
    },
}

impl<R: Real, V> MinkowskiOutcome<R, V> {
    /// `Some(true)` colliding, `Some(false)` separated, `None` undetermined.
    pub fn is_penetrating(&self) -> Option<bool> {
        match self {
            MinkowskiOutcome::Separated(_) => Some(false),
            MinkowskiOutcome::Penetrating(_) => Some(true),
            MinkowskiOutcome::Undetermined { .. } => None,
        }
    }
    /// The hit, when determined.
    pub fn hit(&self) -> Option<&RayHit<R, V>> {
        match self {
            MinkowskiOutcome::Separated(h) | MinkowskiOutcome::Penetrating(h) => Some(h),
            MinkowskiOutcome::Undetermined { .. } => None,
        }
    }
    /// Iterations spent, in every case.
    pub fn iterations(&self) -> u32 {
        match self {
            MinkowskiOutcome::Separated(h) | MinkowskiOutcome::Penetrating(h) => h.iterations,
            MinkowskiOutcome::Undetermined { iterations, .. } => *iterations,
        }
    }
}
