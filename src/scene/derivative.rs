//! Distance derivatives: how a pair's signed distance changes when its
//! bodies move, for a QP or control-barrier-function controller.
//!
//! **Convention.** A body's twist is `(v, ω)` in the world frame, taken at
//! the world origin: the velocity of a point `p` fixed to the body is
//! `v + ω × p`. For a measured pair with unit normal `n` from A to B and
//! witness points `p_A`, `p_B` (see [`Witness`]),
//!
//! ```text
//! d/dt signed_distance = n · ((v_B + ω_B × p_B) − (v_A + ω_A × p_A))
//!                      = [n; p_B × n] · (v_B; ω_B) + [−n; −(p_A × n)] · (v_A; ω_A)
//! ```
//!
//! so the gradient with respect to B's twist is `(n, p_B × n)` and with
//! respect to A's `(−n, −(p_A × n))`, each a 6-vector ordered `(v, ω)`. It
//! holds for a separated pair (the derivative of the distance where the
//! closest points are unique) and for a penetrating one (the derivative of
//! minus the depth along the fixed normal). Either witness point may stand
//! in for the other in the rotational term: they differ by a multiple of
//! `n`, and `n · (ω × n) = 0`.
//!
//! With a link Jacobian `J` (6×N, rows `(v; ω)` of the body's frame in the
//! same world convention) the joint-space gradient is
//! `d signed_distance / dq = J_Aᵀ g_A + J_Bᵀ g_B` ([`joint_gradient`]).
//!
//! **Accuracy.** The gradient is as good as the witness points and the
//! normal. The normal of a separated pair is the direction of GJK's last
//! iterate; on sphere-swept bodies (spheres, capsules, rounded shapes)
//! GJK runs on the cores — points, segments, polytopes — where it
//! converges exactly, and the gradient matches a closed form to the
//! rounding of the arithmetic. On curved bodies without a core (cylinder
//! rims, cones, ellipsoids) the witness points slide by about
//! `sqrt(2·gap·r)` for a distance gap `gap` at curvature radius `r` (see
//! [`contact`](crate::support::contact::contact)), and the normal's error
//! is of that order divided by `r`.

use crate::math::{Real, Vec3};
use crate::query::Witness;
use nalgebra::{Const, Matrix, SVector, Storage, Vector6, U6};

/// The gradient of a pair's signed distance with respect to the world
/// twists `(v, ω)` of its two bodies (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TwistGradient<R: Real> {
    /// With respect to body A's twist: `(−n, −(p_A × n))`.
    pub a: Vector6<R>,
    /// With respect to body B's twist: `(n, p_B × n)`.
    pub b: Vector6<R>,
}

impl<R: Real> TwistGradient<R> {
    /// The gradient at a measured pair's witness.
    ///
    /// ```
    /// use narrowphase::query::Witness;
    /// use narrowphase::scene::derivative::TwistGradient;
    /// use nalgebra::{Point3, Vector3, Vector6};
    /// // A at the origin, B 1 m up z, closest points on the z axis.
    /// let w = Witness { point_a: Point3::new(0.0_f64, 0.0, 0.2), point_b: Point3::new(0.0, 0.0, 0.7),
    ///     normal: Vector3::z() };
    /// let g = TwistGradient::from_witness(&w);
    /// // Moving B up at 1 m/s opens the gap at 1 m/s.
    /// assert_eq!(g.rate(&Vector6::zeros(), &Vector6::new(0.0, 0.0, 1.0, 0.0, 0.0, 0.0)), 1.0);
    /// ```
    pub fn from_witness(witness: &Witness<R>) -> Self {
        let n = witness.normal;
        let lin = |p: &Vec3<R>, s: R| {
            let m = p.cross(&n);
            Vector6::new(n.x * s, n.y * s, n.z * s, m.x * s, m.y * s, m.z * s)
        };
        Self { a: lin(&witness.point_a.coords, -R::ONE), b: lin(&witness.point_b.coords, R::ONE) }
    }

    /// `d/dt signed_distance` for the given world twists `(v, ω)` of A and B.
    ///
    /// ```
    /// use narrowphase::query::Witness;
    /// use narrowphase::scene::derivative::TwistGradient;
    /// use nalgebra::{Point3, Vector3, Vector6};
    /// let w = Witness { point_a: Point3::new(1.0_f32, 0.0, 0.0), point_b: Point3::new(2.0, 0.0, 0.0),
    ///     normal: Vector3::x() };
    /// // Spinning A about z moves its witness point sideways: no change.
    /// let spin = Vector6::new(0.0, 0.0, 0.0, 0.0, 0.0, 1.0);
    /// assert_eq!(TwistGradient::from_witness(&w).rate(&spin, &Vector6::zeros()), 0.0);
    /// ```
    pub fn rate(&self, twist_a: &Vector6<R>, twist_b: &Vector6<R>) -> R {
        self.a.dot(twist_a) + self.b.dot(twist_b)
    }
}

/// `d signed_distance / dq = J_Aᵀ g_A + J_Bᵀ g_B` for link Jacobians
/// `J_A`, `J_B` (6×N, rows `(v; ω)`, world frame at the world origin, as
/// the twists of [`TwistGradient`]). Pass a zero matrix for a body that
/// does not depend on `q` (the environment). Any nalgebra storage: owned
/// matrices or views into a larger Jacobian.
///
/// ```
/// use narrowphase::query::Witness;
/// use narrowphase::scene::derivative::{joint_gradient, TwistGradient};
/// use nalgebra::{Point3, SMatrix, Vector3};
/// // B's closest point (1, 0, 0) turns with a revolute joint about z through the
/// // origin; A is a fixed wall at y = 0.5, so the normal from A to B is −y.
/// let w = Witness { point_a: Point3::new(1.0_f64, 0.5, 0.0), point_b: Point3::new(1.0, 0.0, 0.0),
///     normal: -Vector3::y() };
/// let g = TwistGradient::from_witness(&w);
/// let mut jb = SMatrix::<f64, 6, 1>::zeros();
/// jb[(5, 0)] = 1.0; // ω = z per unit joint speed, v = 0 at the origin
/// let dq = joint_gradient(&g, &SMatrix::<f64, 6, 1>::zeros(), &jb);
/// // Turning about +z moves (1,0,0) towards +y, into the wall: the distance shrinks at 1 per radian.
/// assert!((dq[0] + 1.0).abs() < 1e-12);
/// ```
pub fn joint_gradient<R, const N: usize, SA, SB>(
    gradient: &TwistGradient<R>,
    jacobian_a: &Matrix<R, U6, Const<N>, SA>,
    jacobian_b: &Matrix<R, U6, Const<N>, SB>,
) -> SVector<R, N>
where
    R: Real,
    SA: Storage<R, U6, Const<N>>,
    SB: Storage<R, U6, Const<N>>,
{
    jacobian_a.tr_mul(&gradient.a) + jacobian_b.tr_mul(&gradient.b)
}
