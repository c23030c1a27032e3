//! The exact ellipsoid–superquadric checker (the paper's Algorithm 1) in 3D
//! and its ellipse–superellipse twin in 2D.
//!
//! # The closed-form boundary (Eq. 3–6)
//! In the superquadric's frame let the ellipsoid have shape matrix
//! `B = R Λ(b) Rᵀ` and centre `p₀`. Shrinking space by `T = R Λ(r/b) Rᵀ`,
//! `r = min b` (Eq. 3), turns the ellipsoid into a ball of radius `r`; the
//! offset surface of the shrunk superquadric (Eq. 5), stretched back by
//! `T⁻¹`, is the boundary of `S ⊕ E` (Eq. 6):
//!
//! ```text
//! x_eb(ψ) = x_a(ψ) + r T⁻²∇Φ / |T⁻¹∇Φ| = x_a(ψ) + B²∇Φ / |B∇Φ|
//! ```
//!
//! (`r` cancels: the second form is the ellipsoid's support point in the
//! direction of the superquadric's normal, which is what the kernel
//! evaluates). `x_a` and `∇Φ` are the parametric forms of Eq. 7–12.
//!
//! # The root finder (Eq. 15, Eq. 17)
//! The boundary point on the ray through `p₀` solves `x_eb(ψ) × p₀ = 0` with
//! `x_eb · p₀ > 0`.
//! - **3D** (Eq. 17, two unknowns `η, ω`): the cross product is written in
//!   an orthonormal basis `(u, v)` of `p₀⊥` (two independent equations), and
//!   solved by Newton's method with the analytic Jacobian, damped
//!   Levenberg–Marquardt style when a step does not reduce `1 − cos∠(x_eb, p₀)`
//!   (which also keeps it off the antipodal root). The first guess is the
//!   pair of angles of `p₀` seen from the superquadric (the `η, ω` whose
//!   surface point lies on the ray); when the damping stalls it restarts from
//!   the best point of a coarse grid (twice at most).
//! - **2D** (Eq. 15, one unknown `θ`): the angle `δ(θ)` from `x_eb(θ)` to
//!   `p₀` decreases monotonically through its unique root; it is bracketed
//!   by stepping from the first guess and solved by Newton's method kept
//!   inside the bracket (bisection otherwise).
//!
//! The derivatives of the signed powers `|t|^(ε−1)` are infinite where
//! `t = 0` when `ε < 1`; the Jacobian floors `|t|` at `√ε_mach` there (the
//! damping absorbs the error; the answer never depends on the Jacobian).
//!
//! # The decision (Eq. 13) and its certificates
//! Every iterate `x_eb(ψ)` is a point of the boundary of `K = S ⊕ E` with
//! outward normal `n = ∇Φ/|∇Φ|`, so the decision need not wait for an exact
//! root:
//! - **separated** as soon as `n·p₀ > n·x_eb` (the tangent plane of `K`
//!   separates `p₀` from `K`), which for the root is `|p₀| > |x_eb|`;
//! - **colliding** as soon as `p₀` lies in the convex hull of `x_eb` and the
//!   ball of radius `ρ` inside `K` (`ρ` = a lower bound of the inradius of the
//!   superquadric + the smallest semi-axis of the ellipsoid): for the root
//!   this is `|p₀| < |x_eb|`;
//! - a converged root (`sin∠ ≤ tolerance`) that certifies neither is contact
//!   within tolerance, reported as colliding with `certified = false`.
//!
//! [`Stop::Decided`] returns at the first certificate; [`Stop::Converged`]
//! iterates to the tolerance first so that the margin `|p₀| / |x_eb|` and
//! the witness are exact to the residual.

use super::{MinkowskiOutcome, RayHit};
use crate::math::Pose;
use crate::math::Pose2;
use crate::math::{any_orthogonal, finite_vec, max, min, norm, Mat3, Real, Vec3};
use crate::query::{Budget, Stop, Undetermined};
use crate::shape::{signed_pow, Ellipse, Ellipsoid, Superellipse, Superquadric};
use nalgebra::{Matrix2, RealField, SMatrix, SVector, Vector2};

/// Largest number of grid restarts of the 3D solver.
const MAX_RESTARTS: u32 = 2;
/// Consecutive rejected damped steps that count as a stall.
const MAX_REJECTS: u32 = 10;
/// Steps after which a start that has not come near the root is replaced by
/// the best point of a coarse grid.
const SLOW_PROGRESS: u32 = 16;
/// Extra steps tried after convergence to turn "contact within tolerance"
/// into a certified answer.
const MAX_POLISH: u32 = 2;

/// The powers one evaluation needs of `t = cos` or `sin` of an angle, from a
/// single `powf`: the surface factor `spow(t, ε)`, the gradient factor
/// `spow(t, 2 − ε) = t·|t|/|t|^ε`, and their derivatives in `t`,
/// `ε|t|^(ε−1)` and `(2 − ε)|t|^(1−ε)`, with `|t|` floored at `floor` there
/// (the derivatives are infinite at `t = 0` for one of the two exponents).
#[derive(Clone, Copy)]
struct Pw<R> {
    x: R,
    dx: R,
    g: R,
    dg: R,
}

#[inline(always)]
fn powers<R: Real>(t: R, e: R, floor: R) -> Pw<R> {
    let at = t.abs_();
    let k = R::TWO - e;
    let sgn = if t < R::ZERO { -R::ONE } else { R::ONE };
    if at > floor {
        let p = nalgebra::ComplexField::powf(at, e);
        Pw { x: sgn * p, dx: e * p / at, g: sgn * at * at / p, dg: k * at / p }
    } else {
        let pf = nalgebra::ComplexField::powf(floor, e);
        let p = if at > R::ZERO { nalgebra::ComplexField::powf(at, e) } else { R::ZERO };
        let g = if p > R::ZERO { sgn * at * at / p } else { R::ZERO };
        Pw { x: sgn * p, dx: e * pf / floor, g, dg: k * floor / pf }
    }
}

/// One evaluation of the boundary point and its Jacobian, in the local frame.
struct Eval<R: Real, const D: usize> {
    x_eb: SVector<R, D>,
    x_a: SVector<R, D>,
    /// Unit outward normal (of the superquadric at `x_a` and of `K` at `x_eb`).
    n: SVector<R, D>,
    /// `∂x_eb/∂ψ`, one column per parameter (`D − 1` used).
    jac: [SVector<R, D>; 2],
}

/// The fixed part of one query, local frame.
struct Problem<R: Real, const D: usize> {
    p: SVector<R, D>,
    p_norm: R,
    dir: SVector<R, D>,
    /// Inradius lower bound of `K = S ⊕ E`.
    rho: R,
    tol: R,
    /// Closed-form support function of `K` for the separating-plane proof:
    /// the superquadric's semi-axes and dual exponents `qᵢ = 2/(2 − εᵢ)`
    /// (`[q1, q2]`; 2D: `[q, q]`), the ellipsoid's rotation (local frame)
    /// and semi-axes.
    sq_a: SVector<R, D>,
    q: [R; 2],
    e_rot: nalgebra::SMatrix<R, D, D>,
    e_b: SVector<R, D>,
}

/// `‖(x, y)‖_q`, scaled by the larger magnitude (no overflow).
fn lq<R: Real>(x: R, y: R, q: R) -> R {
    let (x, y) = (x.abs_(), y.abs_());
    let m = max(x, y);
    if !(m > R::ZERO) || !m.finite() {
        return m;
    }
    let f = |t: R| if t > R::ZERO { nalgebra::ComplexField::powf(t / m, q) } else { R::ZERO };
    m * nalgebra::ComplexField::powf(f(x) + f(y), R::ONE / q)
}

/// `h_K(n) = h_S(n) + h_E(n)` in closed form: `h_S(n) = ‖(‖(a₁n₁, a₂n₂)‖_q2,
/// a₃n₃)‖_q1` (the dual of the superquadric's nested `ℓp` gauge; 2D:
/// `‖(a₁n₁, a₂n₂)‖_q`) and `h_E(n) = |Λ(b) R_Eᵀ n|` (from the factors: `B²`
/// itself loses a thin ellipsoid's short axis to rounding).
fn support_k<R: Real, const D: usize>(pb: &Problem<R, D>, n: &SVector<R, D>) -> R {
    let y = pb.sq_a.component_mul(n);
    let c = |i: usize| y.get(i).copied().unwrap_or(R::ZERO);
    let [q1, q2] = pb.q;
    let hs = if D == 3 { lq(lq(c(0), c(1), q2), c(2), q1) } else { lq(c(0), c(1), q1) };
    let he = norm(&(pb.e_rot.transpose() * n).component_mul(&pb.e_b));
    hs + he
}

enum Verdict {
    Separated,
    Penetrating,
    Open,
}

struct Check<R: Real> {
    sin: R,
    cos: R,
    len: R,
    verdict: Verdict,
}

fn certify<R: Real, const D: usize>(pb: &Problem<R, D>, ev: &Eval<R, D>) -> Check<R> {
    let len = norm(&ev.x_eb);
    let along = pb.dir.dot(&ev.x_eb);
    let perp = norm(&(ev.x_eb - pb.dir * along));
    let (cos, sin) = if len > R::ZERO { (along / len, perp / len) } else { (R::ZERO, R::ONE) };
    let slack = R::EPSILON * R::lit(8.0);
    let mut verdict = Verdict::Open;
    // Separated: the tangent plane at x_eb (normal n) separates p₀ from K —
    // and, since x_eb and n come out of a rounded evaluation (a corner of a
    // near-box turns n fast; B² of a thin ellipsoid loses its short axis),
    // the plane is re-checked with K's support value in closed form:
    // n·p₀ > h_K(n) proves it for any unit n.
    let separating = ev.n.dot(&(pb.p - ev.x_eb)) > slack * (pb.p_norm + len) && {
        let h = support_k(pb, &ev.n);
        let nn = norm(&ev.n);
        ev.n.dot(&pb.p) - h > slack * (pb.p_norm * nn + h) * R::lit(4.0)
    };
    if separating {
        verdict = Verdict::Separated;
    } else if len > R::ZERO && pb.rho > R::ZERO {
        // p₀ in H = conv(B(0, ρ) ∪ {X}), X = x_eb, |X| = L, θ = ∠(X, p₀).
        //
        // Radial function of H. Let sin α = ρ/L (α: half-angle of the
        // tangent cone from X; ρ ≥ L means H = B(0, ρ)). A tangent from X
        // touches the ball at T with ∠(X, T) = π/2 − α (right angle at T).
        // - θ ≤ π/2 − α: the ray meets the tangent segment XT; in the
        //   triangle (0, X, P) the angles are θ at 0 and α at X, so by the
        //   sine rule |P| = L sin α / sin(α + θ).
        // - θ > π/2 − α (cos(α + θ) < 0, including every θ ≥ π/2): the ray
        //   leaves H through the ball, |P| = ρ (the tangent-line formula
        //   would give more than ρ there: the hull does not reach it).
        // Both agree (= ρ) at θ = π/2 − α, so a rounding flip of the branch
        // test is harmless.
        //
        // x_eb is a boundary point of K only up to rounding, e = slack·(|p₀|
        // + L). If |X − X'| ≤ e for a true boundary point X', then
        // μX ∈ conv(B(0, ρ) ∪ {X'}) for μ = ρ/(ρ + e) (μX = μX' + (1 − μ)y,
        // |y| = μe/(1 − μ) = ρ), so H built on μX ⊆ K: the cone test uses
        // L' = μL (same direction, same θ). The shrink μ is ≈ 1 − e/ρ, the
        // geometric amplification of a thin cone.
        //
        // The ellipsoid's part s = x_eb − x_a comes from B²n/|Bn|, and B² of
        // a thin ellipsoid loses its short axis to rounding: s may lie
        // outside E. With u = Λ(1/b) R_Eᵀ s, s/max(|u|, 1) ∈ E, a point of
        // K within (|u| − 1)⁺·|s| of x_eb: that distance joins e.
        let s_e = ev.x_eb - ev.x_a;
        let u = (pb.e_rot.transpose() * s_e).component_div(&pb.e_b);
        let over = max(norm(&u) - R::ONE, R::ZERO) * norm(&s_e);
        let e = slack * (pb.p_norm + len) + over;
        let l_eff = len * pb.rho / (pb.rho + e);
        let sa = min(pb.rho / l_eff, R::ONE);
        let ca = Real::sqrt(max(R::ZERO, R::ONE - sa * sa));
        let radial = if cos > R::ZERO && ca * cos - sa * sin >= R::ZERO {
            let denom = sa * cos + ca * sin;
            if denom > R::ZERO {
                min(l_eff * sa / denom, max(l_eff, pb.rho))
            } else {
                pb.rho
            }
        } else {
            pb.rho
        };
        if e.finite() && pb.p_norm < radial * (R::ONE - slack) {
            verdict = Verdict::Penetrating;
        }
    }
    Check { sin, cos, len, verdict }
}

/// A monotone function of the angle `θ = ∠(x_eb, p₀)`: `sin θ` for
/// `θ ≤ π/2`, `2 − sin θ` beyond; 0 at the root, 2 at the antipodal one.
/// (`sin θ` from the perpendicular component keeps full relative precision
/// near the root, where `1 − cos θ` rounds to 0.)
#[inline]
fn objective<R: Real, const D: usize>(pb: &Problem<R, D>, ev: &Eval<R, D>) -> R {
    let len = norm(&ev.x_eb);
    if !(len > R::ZERO) {
        return R::TWO;
    }
    let along = pb.dir.dot(&ev.x_eb);
    let sin = norm(&(ev.x_eb - pb.dir * along)) / len;
    if along > R::ZERO {
        sin
    } else {
        R::TWO - sin
    }
}

struct Frame<R: Real, const D: usize> {
    rot: nalgebra::SMatrix<R, D, D>,
    t: SVector<R, D>,
}

fn hit<R: Real, const D: usize>(
    pb: &Problem<R, D>,
    ev: &Eval<R, D>,
    c: &Check<R>,
    fr: &Frame<R, D>,
    iterations: u32,
    certified: bool,
) -> RayHit<R, SVector<R, D>> {
    // Saturated at the largest finite value: a far, tiny pair overflows
    // |p₀| / |x_eb| (the answer stands; the margin stays a number).
    let margin = if c.len > R::ZERO { min(pb.p_norm / c.len, R::MAX) } else { R::MAX };
    RayHit {
        margin,
        boundary_point: fr.rot * ev.x_eb + fr.t,
        contact_point: fr.rot * ev.x_a + fr.t,
        normal: fr.rot * ev.n,
        residual: c.sin,
        iterations,
        converged: c.cos > R::ZERO && c.sin <= pb.tol,
        certified,
    }
}

/// Shared end of the loop: `Some(outcome)` when the iteration stops here.
fn settle<R: Real, const D: usize>(
    pb: &Problem<R, D>,
    ev: &Eval<R, D>,
    fr: &Frame<R, D>,
    stop: Stop,
    iterations: u32,
    polish: &mut u32,
) -> Option<MinkowskiOutcome<R, SVector<R, D>>> {
    let c = certify(pb, ev);
    if !c.sin.finite() || !c.len.finite() || !finite_vec(&ev.x_eb) {
        return Some(MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, iterations, residual: c.sin });
    }
    let converged = c.cos > R::ZERO && c.sin <= pb.tol;
    let certified = !matches!(c.verdict, Verdict::Open);
    if certified && (stop == Stop::Decided || converged) {
        let h = hit(pb, ev, &c, fr, iterations, true);
        return Some(match c.verdict {
            Verdict::Separated => MinkowskiOutcome::Separated(h),
            _ => MinkowskiOutcome::Penetrating(h),
        });
    }
    if converged {
        if *polish >= MAX_POLISH {
            // Contact within tolerance: neither side provable.
            return Some(MinkowskiOutcome::Penetrating(hit(pb, ev, &c, fr, iterations, false)));
        }
        *polish += 1;
    }
    None
}

/// Coincident centres (`p₀ = 0`, inside `K`): colliding, with the witness of
/// the first boundary point — unless that evaluation is not finite (a pose
/// that is not a rigid motion can make the ellipsoid's matrix 0 and its
/// support `0/0`), which, like every other exit (`settle`), is undetermined:
/// a determined answer never carries NaN or a zero normal (degenerate).
fn coincident<R: Real, const D: usize>(
    pb: &Problem<R, D>,
    ev: &Eval<R, D>,
    fr: &Frame<R, D>,
) -> MinkowskiOutcome<R, SVector<R, D>> {
    let c = certify(pb, ev);
    let mut h = hit(pb, ev, &c, fr, 1, true);
    h.margin = R::ZERO;
    h.residual = R::ZERO;
    let nn = norm(&h.normal);
    let finite = finite_vec(&h.boundary_point) && finite_vec(&h.contact_point) && finite_vec(&h.normal);
    if !finite {
        return MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, iterations: 1, residual: R::ZERO };
    }
    if !(nn > R::HALF && nn < R::TWO) {
        // Not a unit normal: the pose's rotation is not a rotation.
        return MinkowskiOutcome::Undetermined { reason: Undetermined::Degenerate, iterations: 1, residual: R::ZERO };
    }
    MinkowskiOutcome::Penetrating(h)
}

/// The iteration cap: a certificate still decides (not converged),
/// otherwise undetermined.
fn at_cap<R: Real, const D: usize>(
    pb: &Problem<R, D>,
    ev: &Eval<R, D>,
    fr: &Frame<R, D>,
    iterations: u32,
    reason: Undetermined,
) -> MinkowskiOutcome<R, SVector<R, D>> {
    let c = certify(pb, ev);
    match c.verdict {
        Verdict::Separated => MinkowskiOutcome::Separated(hit(pb, ev, &c, fr, iterations, true)),
        Verdict::Penetrating => MinkowskiOutcome::Penetrating(hit(pb, ev, &c, fr, iterations, true)),
        Verdict::Open => MinkowskiOutcome::Undetermined { reason, iterations, residual: c.sin },
    }
}

fn check_budget<R: Real>(budget: &Budget<R>) -> Option<R> {
    if !budget.is_valid() {
        return None;
    }
    // Never ask for more than the arithmetic can give.
    Some(max(budget.tolerance, R::EPSILON * R::lit(16.0)))
}

fn undetermined_at_start<R: Real, V>(reason: Undetermined) -> MinkowskiOutcome<R, V> {
    MinkowskiOutcome::Undetermined { reason, iterations: 0, residual: R::INFINITY }
}

// ---------------------------------------------------------------- 3D ----

/// `(C, S, dC/dx, dS/dx)` with `(C, S) = (cos^γ x, sin^γ x)/|·|` (signed
/// powers, `γ ≥ 1`): a point of the unit circle that moves smoothly with `x`.
#[inline]
fn reparam<R: Real>(x: R, gamma: R) -> (R, R, R, R) {
    let (s, c) = nalgebra::ComplexField::sin_cos(x);
    if gamma == R::ONE {
        return (c, s, -s, c);
    }
    let pw = |t: R| {
        let at = t.abs_();
        if at > R::ZERO {
            let p = nalgebra::ComplexField::powf(at, gamma);
            (if t < R::ZERO { -p } else { p }, gamma * p / at)
        } else {
            (R::ZERO, R::ZERO)
        }
    };
    let (ct, dct) = pw(c);
    let (st, dst) = pw(s);
    let (dct, dst) = (-dct * s, dst * c);
    let n = Real::sqrt(ct * ct + st * st);
    let (cc, ss) = (ct / n, st / n);
    let dn = (ct * dct + st * dst) / n;
    (cc, ss, (dct - cc * dn) / n, (dst - ss * dn) / n)
}

struct Sq3<R: Real> {
    a: Vec3<R>,
    e1: R,
    e2: R,
    /// `B²` of the ellipsoid in the superquadric's frame.
    m: Mat3<R>,
    floor: R,
    /// Reparametrisation exponents `1/min(ε, 2 − ε)` (see [`Sq3::eval`]).
    g1: R,
    g2: R,
}

impl<R: Real> Sq3<R> {
    /// Evaluation at the solver's variables `(α, β)`: the paper's angles
    /// reparametrised so that no signed power has a cusp,
    /// `(cos η, sin η) ∝ (cos^γ1 α, sin^γ1 α)` with `γ = 1/min(ε, 2 − ε)`
    /// (then `x_a ∝ cos^(γε) α` and `∇Φ ∝ cos^(γ(2−ε)) α`, both exponents ≥ 1:
    /// finite derivatives everywhere). `γ = 1` is the paper's angle.
    fn eval(&self, alpha: R, beta: R) -> Eval<R, 3> {
        let (ce, se, dce, dse) = reparam(alpha, self.g1);
        let (cw, sw, dcw, dsw) = reparam(beta, self.g2);
        self.eval_cs(&[ce, se, cw, sw], &[dce, dse, dcw, dsw])
    }

    /// The solver's variables `(α, β)` of `[cos η, sin η, cos ω, sin ω]`.
    fn angles(&self, cs: &[R; 4]) -> (R, R) {
        let [ce, se, cw, sw] = *cs;
        let undo = |c: R, s: R, g: R| {
            if g == R::ONE {
                RealField::atan2(s, c)
            } else {
                let i = R::ONE / g;
                RealField::atan2(signed_pow(s, i), signed_pow(c, i))
            }
        };
        (undo(ce, se, self.g1), undo(cw, sw, self.g2))
    }

    /// Evaluation from `[cos η, sin η, cos ω, sin ω]` and their derivatives
    /// with respect to the solver's two variables.
    fn eval_cs(&self, cs: &[R; 4], dcs: &[R; 4]) -> Eval<R, 3> {
        let [ce, se, cw, sw] = *cs;
        let [dce, dse, dcw, dsw] = *dcs;
        let f = self.floor;
        let a = &self.a;
        let pe_c = powers(ce, self.e1, f);
        let pe_s = powers(se, self.e1, f);
        let pw_c = powers(cw, self.e2, f);
        let pw_s = powers(sw, self.e2, f);
        // Surface point, Eq. 10, and its partial derivatives.
        let x_a = Vec3::new(a.x * pe_c.x * pw_c.x, a.y * pe_c.x * pw_s.x, a.z * pe_s.x);
        let xa_eta = Vec3::new(a.x * pe_c.dx * dce * pw_c.x, a.y * pe_c.dx * dce * pw_s.x, a.z * pe_s.dx * dse);
        let xa_om = Vec3::new(a.x * pe_c.x * pw_c.dx * dcw, a.y * pe_c.x * pw_s.dx * dsw, R::ZERO);
        // Gradient, Eq. 12 (without the constant 2/ε1), and its derivatives.
        let g = Vec3::new(pe_c.g * pw_c.g / a.x, pe_c.g * pw_s.g / a.y, pe_s.g / a.z);
        let g_eta = Vec3::new(pe_c.dg * dce * pw_c.g / a.x, pe_c.dg * dce * pw_s.g / a.y, pe_s.dg * dse / a.z);
        let g_om = Vec3::new(pe_c.g * pw_c.dg * dcw / a.x, pe_c.g * pw_s.dg * dsw / a.y, R::ZERO);
        // Ellipsoid support in direction g: B²g/|Bg| (Eq. 6 with r cancelled).
        let w = self.m * g;
        let q = g.dot(&w);
        let sq = Real::sqrt(q);
        let s_e = w / sq;
        let ds = |dg: &Vec3<R>| (self.m * dg - w * (w.dot(dg) / q)) / sq;
        let gn = norm(&g);
        Eval { x_eb: x_a + s_e, x_a, n: g / gn, jac: [xa_eta + ds(&g_eta), xa_om + ds(&g_om)] }
    }
}

/// `(R, p, M)` of [`relative_frame`].
type RelativeFrame<R, const D: usize> = (SMatrix<R, D, D>, SVector<R, D>, SMatrix<R, D, D>);

/// The ellipse(oid) seen from the superquadric's frame (poses `(r1, t1)` and
/// `(r2, t2)`, ellipse semi-axes `b`): the relative rotation `R = r1ᵀr2`, the
/// centre `p = r1ᵀ(t2 − t1)` and the shape matrix `M = R·diag(b²)·Rᵀ`; `Err(NonFinite)`
/// when a pose or the offset is not finite, `Err(Degenerate)` when a rotation
/// is not orthonormal. Shared by 2D and 3D.
fn relative_frame<R: Real, const D: usize>(
    r1: &SMatrix<R, D, D>,
    t1: &SVector<R, D>,
    r2: &SMatrix<R, D, D>,
    t2: &SVector<R, D>,
    b: &SVector<R, D>,
) -> Result<RelativeFrame<R, D>, Undetermined> {
    if !r1.iter().chain(r2.iter()).chain(t1.iter()).chain(t2.iter()).all(|c| c.finite()) {
        return Err(Undetermined::NonFinite);
    }
    // Rotations within 1e3·ε of orthonormal (as `sdf::Transformed` asks):
    // a pose built from a quaternion whose norm underflowed is not one, and
    // its normals are not unit (for example length 1.0017).
    let tol = R::EPSILON * R::lit(1.0e3);
    let orthonormal = |r: &SMatrix<R, D, D>| (r.tr_mul(r) - SMatrix::<R, D, D>::identity()).abs().max() < tol;
    if !orthonormal(r1) || !orthonormal(r2) {
        return Err(Undetermined::Degenerate);
    }
    let rot = r1.transpose() * r2;
    let p = r1.transpose() * (t2 - t1);
    if !p.iter().all(|c| c.finite()) {
        return Err(Undetermined::NonFinite);
    }
    let m = rot * SMatrix::from_diagonal(&b.component_mul(b)) * rot.transpose();
    Ok((rot, p, m))
}

/// Exact collision test of an ellipsoid and a superquadric (Algorithm 1, 3D).
///
/// The ellipsoid's centre, seen from the superquadric, is compared with the
/// boundary of their closed-form Minkowski sum on the same ray. `budget`
/// caps the root finder's evaluations and sets the relative tolerance on the
/// residual (the sine of the angle between `x_eb` and `p₀`).
///
/// # Examples
///
/// ```
/// use narrowphase::minkowski::superquadric::ellipsoid_superquadric;
/// use narrowphase::query::Stop;
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
///
/// let sq = Superquadric::new(Vector3::new(1.0_f64, 1.0, 1.0), 0.5, 0.5).unwrap();
/// let e = Ellipsoid::new(Vector3::new(0.5, 0.3, 0.3)).unwrap();
/// let at = |x: f64| Pose::from_parts(Translation3::new(x, 0.0, 0.0), Default::default());
/// let near = ellipsoid_superquadric(&sq, &Pose::identity(), &e, &at(1.4), &Budget::default(), Stop::Decided);
/// assert_eq!(near.is_penetrating(), Some(true));
/// let far = ellipsoid_superquadric(&sq, &Pose::identity(), &e, &at(1.6), &Budget::default(), Stop::Converged);
/// let hit = far.hit().unwrap();
/// assert_eq!(far.is_penetrating(), Some(false));
/// assert!((hit.margin - 1.6 / 1.5).abs() < 1e-9); // touches at x = 1 + 0.5
/// ```
pub fn ellipsoid_superquadric<R: Real>(
    superquadric: &Superquadric<R>,
    superquadric_pose: &Pose<R>,
    ellipsoid: &Ellipsoid<R>,
    ellipsoid_pose: &Pose<R>,
    budget: &Budget<R>,
    stop: Stop,
) -> MinkowskiOutcome<R, Vec3<R>> {
    let Some(tol) = check_budget(budget) else {
        return undetermined_at_start(Undetermined::InvalidBudget);
    };
    let r1 = superquadric_pose.rotation.matrix();
    let t1 = superquadric_pose.translation.vector;
    let b = ellipsoid.semi_axes();
    let (rot, p, m) =
        match relative_frame(r1, &t1, ellipsoid_pose.rotation.matrix(), &ellipsoid_pose.translation.vector, &b) {
            Ok(frame) => frame,
            Err(reason) => return undetermined_at_start(reason),
        };
    let (e1, e2) = superquadric.exponents();
    let gamma = |e: R| R::ONE / min(e, R::TWO - e);
    let gammas = (gamma(e1), gamma(e2));
    let mut sq = Sq3 { a: superquadric.semi_axes(), e1, e2, m, floor: Real::sqrt(R::EPSILON), g1: R::ONE, g2: R::ONE };
    let frame = Frame { rot: *r1, t: t1 };
    let b_min = min(min(b.x, b.y), b.z);
    let p_norm = norm(&p);
    let q = |e: R| R::TWO / (R::TWO - e);
    let mut pb = Problem {
        p,
        p_norm,
        dir: Vec3::x(),
        rho: superquadric.inradius_lower_bound() + b_min,
        tol,
        sq_a: superquadric.semi_axes(),
        q: [q(e1), q(e2)],
        e_rot: rot,
        e_b: b,
    };

    if !(p_norm > R::ZERO) {
        // Coincident centres: p₀ = 0 is inside K.
        let ev = sq.eval_cs(&[R::ONE, R::ZERO, R::ONE, R::ZERO], &[R::ZERO, R::ONE, R::ZERO, R::ONE]);
        return coincident(&pb, &ev, &frame);
    }
    pb.dir = p / p_norm;
    let u = any_orthogonal(&pb.dir);
    let v = pb.dir.cross(&u);

    // First guess: the angles of p₀ seen from the superquadric. The solver
    // starts in the paper's angles (γ = 1: cheapest, and most queries are
    // decided within two evaluations) and switches to the cusp-free
    // variables at its first restart.
    let d_paper = |cs: &[R; 4]| [-cs[1], cs[0], -cs[3], cs[2]];
    let mut cs = first_guess3(superquadric, &p);
    let mut ev = sq.eval_cs(&cs, &d_paper(&cs));
    let mut phi = objective(&pb, &ev);
    let mut iterations = 1u32;
    let mut polish = 0u32;
    if let Some(out) = settle(&pb, &ev, &frame, stop, iterations, &mut polish) {
        return out;
    }
    let cap = budget.max_iterations.max(1);
    if cap > 1 {
        // One fixed-point step for the ellipsoid's offset: x_a = L·p̂ − s_E(n).
        let s_e = ev.x_eb - ev.x_a;
        let target = pb.dir * norm(&ev.x_eb) - s_e;
        let a = superquadric.semi_axes();
        let cand_cs = cs_for(&Vec3::new(target.x / a.x, target.y / a.y, target.z / a.z), e1, e2);
        let cand = sq.eval_cs(&cand_cs, &d_paper(&cand_cs));
        iterations += 1;
        let cand_phi = objective(&pb, &cand);
        if cand_phi < phi {
            (cs, ev, phi) = (cand_cs, cand, cand_phi);
        }
    }
    let (mut eta, mut omega) = sq.angles(&cs);
    let mut mu = R::ZERO;
    let mut rejects = 0u32;
    let mut restarts = 0u32;
    let mut since_restart = 0u32;
    let mut radius = R::HALF;
    loop {
        if let Some(out) = settle(&pb, &ev, &frame, stop, iterations, &mut polish) {
            return out;
        }
        if iterations >= cap {
            return at_cap(&pb, &ev, &frame, iterations, Undetermined::IterationCap);
        }
        let stalled = rejects >= MAX_REJECTS;
        let slow = since_restart >= SLOW_PROGRESS && phi > R::lit(1.0e-6);
        if stalled || slow {
            let c = certify(&pb, &ev);
            if stalled && !matches!(c.verdict, Verdict::Open) {
                // Stalled short of the tolerance: the certificate still decides.
                let h = hit(&pb, &ev, &c, &frame, iterations, true);
                return match c.verdict {
                    Verdict::Separated => MinkowskiOutcome::Separated(h),
                    _ => MinkowskiOutcome::Penetrating(h),
                };
            }
            if restarts < MAX_RESTARTS {
                restarts += 1;
                rejects = 0;
                since_restart = 0;
                mu = R::ZERO;
                radius = R::HALF;
                if sq.g1 == R::ONE && sq.g2 == R::ONE && (gammas.0 != R::ONE || gammas.1 != R::ONE) {
                    // Switch to the cusp-free variables, keeping the iterate.
                    let cs_now = [eta.cos(), eta.sin(), omega.cos(), omega.sin()];
                    (sq.g1, sq.g2) = gammas;
                    (eta, omega) = sq.angles(&cs_now);
                    ev = sq.eval(eta, omega);
                    phi = objective(&pb, &ev);
                    iterations += 1;
                }
                let (ge, go) = grid_start3(&sq, &pb, restarts);
                let cand = sq.eval(ge, go);
                iterations += 1;
                let cand_phi = objective(&pb, &cand);
                if cand_phi < phi {
                    eta = ge;
                    omega = go;
                    ev = cand;
                    phi = cand_phi;
                }
                continue;
            }
            if stalled {
                return MinkowskiOutcome::Undetermined {
                    reason: Undetermined::Degenerate,
                    iterations,
                    residual: c.sin,
                };
            }
        }
        // Eq. 17 in the basis (u, v) of p₀⊥, divided by |x_eb| so that
        // |F|² = sin²∠(x_eb, p₀): F = (u·x̂, v·x̂), x̂ = x_eb/|x_eb|, and
        // ∂x̂ = (I − x̂x̂ᵀ)∂x_eb/|x_eb|.
        let len = norm(&ev.x_eb);
        let xh = ev.x_eb / len;
        let f = Vector2::new(u.dot(&xh), v.dot(&xh));
        let uu = (u - xh * f.x) / len;
        let vv = (v - xh * f.y) / len;
        let j = Matrix2::new(uu.dot(&ev.jac[0]), uu.dot(&ev.jac[1]), vv.dot(&ev.jac[0]), vv.dot(&ev.jac[1]));
        let step = damped_step(&j, &f, mu);
        let (mut d_eta, mut d_om) = match step {
            Some(s) => (s.x, s.y),
            None => (R::ZERO, R::ZERO),
        };
        // Trust region: at most `radius` (half a radian at most) per step.
        let big = max(d_eta.abs_(), d_om.abs_());
        if big > radius {
            d_eta = d_eta * radius / big;
            d_om = d_om * radius / big;
        }
        let cand_eta = wrap(eta + d_eta);
        let cand_om = wrap(omega + d_om);
        let cand = sq.eval(cand_eta, cand_om);
        iterations += 1;
        since_restart += 1;
        let cand_phi = objective(&pb, &cand);
        // Trust-region ratio: actual against predicted decrease of sin²θ
        // (the model |F + Jδ|², F = sin θ in the basis of p₀⊥).
        let model = f + j * Vector2::new(d_eta, d_om);
        let predicted = f.dot(&f) - model.dot(&model);
        let actual = phi * phi - cand_phi * cand_phi;
        let hit_radius = big > radius;
        if step.is_some() && cand_phi < phi {
            eta = cand_eta;
            omega = cand_om;
            ev = cand;
            phi = cand_phi;
            rejects = 0;
            if actual > R::lit(0.75) * predicted && hit_radius {
                radius = min(R::HALF, radius * R::TWO);
            } else if actual < R::lit(0.25) * predicted {
                radius = min(radius, big) * R::HALF;
            }
            mu *= R::lit(0.125);
            if mu < R::lit(1.0e-6) {
                mu = R::ZERO;
            }
        } else {
            rejects += 1;
            radius = min(radius, big) * R::lit(0.25);
            mu = if mu > R::ZERO { mu * R::lit(4.0) } else { R::lit(1.0e-3) };
        }
    }
}

/// Levenberg–Marquardt step `(JᵀJ + μ diag(JᵀJ)) δ = −JᵀF`; plain Newton
/// `J δ = −F` for `μ = 0` when `J` is invertible.
fn damped_step<R: Real>(j: &Matrix2<R>, f: &Vector2<R>, mu: R) -> Option<Vector2<R>> {
    if mu == R::ZERO {
        let det = j.m11 * j.m22 - j.m12 * j.m21;
        let scale = (j.m11.abs_() + j.m12.abs_()) * (j.m21.abs_() + j.m22.abs_());
        if det.abs_() > R::EPSILON * R::lit(64.0) * scale && det.finite() {
            let dx = -(j.m22 * f.x - j.m12 * f.y) / det;
            let dy = -(-j.m21 * f.x + j.m11 * f.y) / det;
            return Some(Vector2::new(dx, dy));
        }
    }
    let jtj = j.transpose() * j;
    let g = j.transpose() * f;
    let damp = max(mu, R::lit(1.0e-9));
    let tr = jtj.m11 + jtj.m22;
    let a11 = jtj.m11 + damp * max(jtj.m11, tr * R::lit(1.0e-6));
    let a22 = jtj.m22 + damp * max(jtj.m22, tr * R::lit(1.0e-6));
    let det = a11 * a22 - jtj.m12 * jtj.m21;
    if !(det > R::ZERO) || !det.finite() {
        return None;
    }
    let dx = -(a22 * g.x - jtj.m12 * g.y) / det;
    let dy = -(-jtj.m21 * g.x + a11 * g.y) / det;
    Some(Vector2::new(dx, dy))
}

/// Keeps an angle in `(−π, π]`.
#[inline]
fn wrap<R: Real>(x: R) -> R {
    let pi = R::pi();
    let two_pi = R::two_pi();
    if x > pi {
        x - two_pi
    } else if x <= -pi {
        x + two_pi
    } else {
        x
    }
}

/// `[cos η, sin η, cos ω, sin ω]` of the surface point on the ray through `p`.
fn first_guess3<R: Real>(sq: &Superquadric<R>, p: &Vec3<R>) -> [R; 4] {
    let a = sq.semi_axes();
    let (e1, e2) = sq.exponents();
    cs_for(&Vec3::new(p.x / a.x, p.y / a.y, p.z / a.z), e1, e2)
}

/// `[cos η, sin η, cos ω, sin ω]` with
/// `(cos^k1 η cos^k2 ω, cos^k1 η sin^k2 ω, sin^k1 η) ∥ u` (signed powers):
/// the angles of a surface point (`k = ε`) or of a normal (`k = 2 − ε`,
/// `u = a ∘ n`), without trigonometry.
fn cs_for<R: Real>(u: &Vec3<R>, k1: R, k2: R) -> [R; 4] {
    let fallback = [R::ONE, R::ZERO, R::ONE, R::ZERO];
    let m = max(max(u.x.abs_(), u.y.abs_()), u.z.abs_());
    if !(m > R::ZERO) || !m.finite() {
        return fallback;
    }
    let u = u / m;
    // (cos ω, sin ω) ∝ (x^(1/k2), y^(1/k2)) =: (cw, sw), and
    // |cos η|^k1 ∝ ‖(x, y)‖_{2/k2} = |(cw, sw)|^k2, so cos η ∝ |(cw, sw)|^(k2/k1):
    // four powers in all (the ratios are at most 1: nothing overflows).
    let (inv1, inv2) = (R::ONE / k1, R::ONE / k2);
    let (cw, sw) = (signed_pow(u.x, inv2), signed_pow(u.y, inv2));
    let nw = Real::sqrt(cw * cw + sw * sw);
    let (ce, se) = (signed_pow(nw, k2 * inv1), signed_pow(u.z, inv1));
    let ne = Real::sqrt(ce * ce + se * se);
    let out = if nw > R::ZERO { [ce / ne, se / ne, cw / nw, sw / nw] } else { [ce / ne, se / ne, R::ONE, R::ZERO] };
    if out.iter().all(|c| c.finite()) {
        out
    } else {
        fallback
    }
}

/// Best start of a coarse grid: the first restart samples the boundary by
/// its normals (dense where the surface is flat), the second by the
/// parameters (dense where it is curved).
fn grid_start3<R: Real>(sq: &Sq3<R>, pb: &Problem<R, 3>, restart: u32) -> (R, R) {
    let mut best = (R::ZERO, R::ZERO);
    let mut best_phi = R::INFINITY;
    let (k1, k2) = (R::TWO - sq.e1, R::TWO - sq.e2);
    let tau = core::f64::consts::TAU;
    for i in 0..7u32 {
        let lat = -1.35 + 0.45 * f64::from(i);
        for k in 0..12u32 {
            let lon = -core::f64::consts::PI + tau * (f64::from(k) + 0.5) / 12.0;
            let (eta, omega) = if restart <= 1 {
                let (lat, lon) = (R::lit(lat), R::lit(lon));
                let n = Vec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin());
                sq.angles(&cs_for(&sq.a.component_mul(&n), k1, k2))
            } else {
                (R::lit(lat), R::lit(lon))
            };
            let phi = objective(pb, &sq.eval(eta, omega));
            if phi < best_phi {
                best_phi = phi;
                best = (eta, omega);
            }
        }
    }
    best
}

// ---------------------------------------------------------------- 2D ----

struct Se2<R: Real> {
    a: Vector2<R>,
    e: R,
    m: Matrix2<R>,
    floor: R,
}

impl<R: Real> Se2<R> {
    fn eval(&self, theta: R) -> Eval<R, 2> {
        let (s, c) = nalgebra::ComplexField::sin_cos(theta);
        self.eval_cs(c, s)
    }

    fn eval_cs(&self, c: R, s: R) -> Eval<R, 2> {
        let a = &self.a;
        let pc = powers(c, self.e, self.floor);
        let ps = powers(s, self.e, self.floor);
        let x_a = Vector2::new(a.x * pc.x, a.y * ps.x);
        let dx_a = Vector2::new(-a.x * pc.dx * s, a.y * ps.dx * c);
        let g = Vector2::new(pc.g / a.x, ps.g / a.y);
        let dg = Vector2::new(-pc.dg * s / a.x, ps.dg * c / a.y);
        let w = self.m * g;
        let q = g.dot(&w);
        let sq = Real::sqrt(q);
        let ds = (self.m * dg - w * (w.dot(&dg) / q)) / sq;
        let jac = dx_a + ds;
        Eval { x_eb: x_a + w / sq, x_a, n: g / norm(&g), jac: [jac, jac] }
    }
}

/// `δ = atan2(x_eb × p̂, x_eb · p̂)` and `dδ/dθ = −(x_eb × x_eb′)/|x_eb|²`.
fn angle2<R: Real>(pb: &Problem<R, 2>, ev: &Eval<R, 2>) -> (R, R) {
    let x = &ev.x_eb;
    let cross = x.x * pb.dir.y - x.y * pb.dir.x;
    let dot = x.dot(&pb.dir);
    let dx = &ev.jac[0];
    let d = -(x.x * dx.y - x.y * dx.x) / x.dot(x);
    (RealField::atan2(cross, dot), d)
}

/// Exact collision test of an ellipse and a superellipse (Algorithm 1, 2D,
/// Eq. 15): see [`ellipsoid_superquadric`].
///
/// # Examples
///
/// ```
/// use narrowphase::minkowski::superquadric::ellipse_superellipse;
/// use narrowphase::query::Stop;
/// use narrowphase::math::Pose2;
/// use narrowphase::shape::{Ellipse, Superellipse};
/// use narrowphase::query::Budget;
/// use nalgebra::{Translation2, Vector2};
///
/// let s = Superellipse::new(Vector2::new(2.0_f32, 1.0), 0.4).unwrap();
/// let e = Ellipse::new(Vector2::new(0.5, 0.25)).unwrap();
/// let at = |y: f32| Pose2::from_parts(Translation2::new(0.0, y), Default::default());
/// let out = ellipse_superellipse(&s, &Pose2::identity(), &e, &at(1.2), &Budget::default(), Stop::Decided);
/// assert_eq!(out.is_penetrating(), Some(true)); // touches at y = 1.25
/// let out = ellipse_superellipse(&s, &Pose2::identity(), &e, &at(1.3), &Budget::default(), Stop::Decided);
/// assert_eq!(out.is_penetrating(), Some(false));
/// ```
pub fn ellipse_superellipse<R: Real>(
    superellipse: &Superellipse<R>,
    superellipse_pose: &Pose2<R>,
    ellipse: &Ellipse<R>,
    ellipse_pose: &Pose2<R>,
    budget: &Budget<R>,
    stop: Stop,
) -> MinkowskiOutcome<R, Vector2<R>> {
    let Some(tol) = check_budget(budget) else {
        return undetermined_at_start(Undetermined::InvalidBudget);
    };
    let r1 = superellipse_pose.rotation.matrix();
    let t1 = superellipse_pose.translation.vector;
    let b = ellipse.semi_axes();
    let (rot, p, m) =
        match relative_frame(r1, &t1, ellipse_pose.rotation.matrix(), &ellipse_pose.translation.vector, &b) {
            Ok(frame) => frame,
            Err(reason) => return undetermined_at_start(reason),
        };
    let se = Se2 { a: superellipse.semi_axes(), e: superellipse.exponent(), m, floor: Real::sqrt(R::EPSILON) };
    let frame = Frame { rot: *r1, t: t1 };
    let p_norm = norm(&p);
    let mut pb = Problem {
        p,
        p_norm,
        dir: Vector2::x(),
        rho: superellipse.inradius_lower_bound() + min(b.x, b.y),
        tol,
        sq_a: superellipse.semi_axes(),
        q: [R::TWO / (R::TWO - superellipse.exponent()); 2],
        e_rot: rot,
        e_b: b,
    };
    if !(p_norm > R::ZERO) {
        let ev = se.eval_cs(R::ONE, R::ZERO);
        return coincident(&pb, &ev, &frame);
    }
    pb.dir = p / p_norm;
    // First guess: the angle of p₀ seen from the superellipse.
    let a = superellipse.semi_axes();
    let (ux, uy) = (p.x / a.x, p.y / a.y);
    let um = max(ux.abs_(), uy.abs_());
    let inv_e = R::ONE / superellipse.exponent();
    let (mut c0, mut s0) = (signed_pow(ux / um, inv_e), signed_pow(uy / um, inv_e));
    let n0 = Real::sqrt(c0 * c0 + s0 * s0);
    (c0, s0) = (c0 / n0, s0 / n0);
    if !c0.finite() || !s0.finite() {
        (c0, s0) = (R::ONE, R::ZERO);
    }
    let mut ev = se.eval_cs(c0, s0);
    let mut iterations = 1u32;
    let mut polish = 0u32;
    let cap = budget.max_iterations.max(1);
    if let Some(out) = settle(&pb, &ev, &frame, stop, iterations, &mut polish) {
        return out;
    }
    let mut theta = RealField::atan2(s0, c0);
    // Bracket: δ decreases through its root; step towards it by π/8.
    let (mut delta, mut slope) = angle2(&pb, &ev);
    let h = R::pi() * R::lit(0.125);
    let forward = delta > R::ZERO;
    let (mut lo, mut hi) = (theta, theta);
    // δ at the bracket's ends (for the Illinois step).
    let (mut d_lo, mut d_hi) = (delta, delta);
    let mut bracketed = delta == R::ZERO;
    let mut probe = theta;
    for _ in 0..16 {
        if bracketed || iterations >= cap {
            break;
        }
        probe = if forward { probe + h } else { probe - h };
        let probe_ev = se.eval(probe);
        iterations += 1;
        let (d, s) = angle2(&pb, &probe_ev);
        if !d.finite() {
            return MinkowskiOutcome::Undetermined {
                reason: Undetermined::NonFinite,
                iterations,
                residual: R::INFINITY,
            };
        }
        if forward {
            if d <= R::ZERO {
                hi = probe;
                d_hi = d;
                bracketed = true;
            } else {
                lo = probe;
                d_lo = d;
            }
        } else if d > R::ZERO {
            lo = probe;
            d_lo = d;
            bracketed = true;
        } else {
            hi = probe;
            d_hi = d;
        }
        // Keep the better end as the current iterate.
        if d.abs_() < delta.abs_() {
            theta = probe;
            ev = probe_ev;
            delta = d;
            slope = s;
            if let Some(out) = settle(&pb, &ev, &frame, stop, iterations, &mut polish) {
                return out;
            }
        }
    }
    if !bracketed {
        let c = certify(&pb, &ev);
        let reason = if iterations >= cap { Undetermined::IterationCap } else { Undetermined::Degenerate };
        return MinkowskiOutcome::Undetermined { reason, iterations, residual: c.sin };
    }
    // Safeguarded Newton inside [lo, hi]: δ(lo) > 0 ≥ δ(hi).
    let mut slow = false;
    let mut last_side = 0i8;
    loop {
        if let Some(out) = settle(&pb, &ev, &frame, stop, iterations, &mut polish) {
            return out;
        }
        if iterations >= cap {
            return at_cap(&pb, &ev, &frame, iterations, Undetermined::IterationCap);
        }
        // Newton inside the bracket while it at least halves |δ|; otherwise
        // an Illinois (regula falsi) step on the bracket, bisection as the
        // last resort (Newton cycles across the cusps of the signed powers).
        let width = hi - lo;
        let mut next = if slope < R::ZERO && !slow {
            theta - delta / slope
        } else if d_lo > R::ZERO && d_hi < R::ZERO {
            lo + width * d_lo / (d_lo - d_hi)
        } else {
            R::lit(f64::NAN)
        };
        if !(next > lo && next < hi) {
            next = lo + width * R::HALF;
        }
        if !(width > R::lit(4.0) * R::EPSILON * (R::ONE + lo.abs_())) {
            // The bracket cannot shrink further (at a cusp of a signed power
            // δ jumps by more than the tolerance between neighbouring
            // angles): decide by the certificates of the current iterate.
            return at_cap(&pb, &ev, &frame, iterations, Undetermined::Degenerate);
        }
        theta = next;
        ev = se.eval(theta);
        iterations += 1;
        let (d, s) = angle2(&pb, &ev);
        if !d.finite() {
            return MinkowskiOutcome::Undetermined {
                reason: Undetermined::NonFinite,
                iterations,
                residual: R::INFINITY,
            };
        }
        if d > R::ZERO {
            lo = theta;
            d_lo = d;
            if last_side > 0 {
                d_hi *= R::HALF;
            }
            last_side = 1;
        } else {
            hi = theta;
            d_hi = d;
            if last_side < 0 {
                d_lo *= R::HALF;
            }
            last_side = -1;
        }
        slow = !(d.abs_() <= delta.abs_() * R::HALF);
        delta = d;
        slope = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_matches_finite_differences() {
        let m = Mat3::new(1.0, 0.2, 0.1, 0.2, 0.5, -0.1, 0.1, -0.1, 0.7);
        for (e1, e2) in [(1.0, 1.0), (0.5, 1.5), (1.7, 0.3)] {
            let sq = Sq3 {
                a: Vec3::new(1.0_f64, 2.0, 0.5),
                e1,
                e2,
                m,
                floor: 1e-8,
                g1: 1.0 / f64::min(e1, 2.0 - e1),
                g2: 1.0 / f64::min(e2, 2.0 - e2),
            };
            for (eta, om) in [(0.3, 0.4), (-0.7, 2.0), (1.1, -2.5)] {
                let ev = sq.eval(eta, om);
                let h = 1e-6;
                let de = (sq.eval(eta + h, om).x_eb - sq.eval(eta - h, om).x_eb) / (2.0 * h);
                let dw = (sq.eval(eta, om + h).x_eb - sq.eval(eta, om - h).x_eb) / (2.0 * h);
                assert!(
                    (de - ev.jac[0]).norm() < 1e-5 * (1.0 + de.norm()),
                    "{e1} {e2} {eta} {om}: {de} vs {}",
                    ev.jac[0]
                );
                assert!(
                    (dw - ev.jac[1]).norm() < 1e-5 * (1.0 + dw.norm()),
                    "{e1} {e2} {eta} {om}: {dw} vs {}",
                    ev.jac[1]
                );
            }
        }
        let m2 = Matrix2::new(1.0, 0.2, 0.2, 0.5);
        let se = Se2 { a: Vector2::new(1.0_f64, 2.0), e: 0.4, m: m2, floor: 1e-8 };
        for t in [0.3, 2.0, -2.5] {
            let h = 1e-6;
            let d = (se.eval(t + h).x_eb - se.eval(t - h).x_eb) / (2.0 * h);
            assert!((d - se.eval(t).jac[0]).norm() < 1e-5 * (1.0 + d.norm()));
        }
    }
}
