//! EPA, the expanding polytope algorithm: penetration depth, deepest points
//! and contact normal of two intersecting convex bodies given by their
//! support maps (Jovanoski, *The Gilbert–Johnson–Keerthi (GJK)
//! Algorithm*, Univ. Salzburg 2008, §5).
//!
//! EPA starts from the terminal simplex of GJK
//! ([`GjkOutcome::Penetrating`](super::gjk::GjkOutcome::Penetrating)), a
//! set of CSO points whose hull contains the origin (or lies within GJK's
//! tolerance of it), and grows a polytope `P ⊂ A − B` towards the boundary of
//! the CSO: each iteration takes the face of `P` closest to the origin, asks
//! the CSO for its support point `w` along that face's outward normal `n`,
//! removes the faces `w` sees and closes the hole with a fan of triangles to
//! `w`. Two numbers bracket the depth `δ = min_{|u|=1} h(u)` (`h` the support
//! function of the CSO) at every step:
//! - `lower = min_f d_f`, the distance of the closest face: the polytope lies
//!   inside the CSO and contains the origin, so a ball of that radius does
//!   too. Each `d_f` is the smallest of `n_f · v` over the three vertices of
//!   the face, which bounds the distance of the triangle from below for *any*
//!   unit `n_f`, so rounding in a normal never breaks the certificate;
//! - `upper = min_k n_k · w_k`, the smallest support value seen: every
//!   support plane bounds `δ` from above.
//!
//! The loop stops when the closest face's own gap `n · w − d ≤ tolerance ·
//! scale`, `scale` being the largest support-point coordinate seen on either
//! body (as in GJK). Since `upper ≤ n · w` and `lower = d`, this implies
//! `upper − lower ≤ tolerance · scale`; requiring it of the face itself also
//! certifies the reported normal (`h(n) ≤ depth + tolerance · scale`: moving
//! B by the depth along it separates the bodies), which the global gap alone
//! does not (with the origin on the polytope's boundary, a face through it
//! has `d = 0` whatever its normal). Measured on sphere pairs, the two rules
//! stop at the same iteration but in rare cases.
//!
//! A support point that does not rise above the closest face's own vertices
//! (a sliver whose normal the rounding tilted, `n · w ≤ max_v n · v`) means
//! no expansion can help: EPA then stops if the gap is within the precision
//! floor `max(tolerance, 1024·ε) · scale` (as GJK does when it stalls) and
//! answers [`Undetermined::Degenerate`] with the bounds otherwise.
//!
//! # Storage
//! All storage is a caller-owned [`Epa`] workspace with const-generic
//! capacities: `V` vertices and `F` faces. Each iteration adds one vertex and
//! a closed triangulated sphere with `V` vertices has at most `2V − 4` faces
//! (dead face slots are reused), so `V = N + 4`, `F = 2N + 4` suffice for `N`
//! iterations: [`DefaultEpa`] is sized for the default 64. Running out of
//! either is [`Undetermined::OutOfCapacity`] with the bounds reached.
//!
//! # Start-up from 1, 2 or 3 points
//! GJK may stop on a point, a segment or a triangle when the origin lies on
//! it (touching contact, or a lower-dimensional simplex through a deep
//! overlap). EPA picks affinely independent points from the simplex and,
//! where there are not enough, asks the CSO for more: along the six axes
//! (1 point), four directions orthogonal to the segment (2 points), or both
//! ways along the triangle normal (3 points), keeping the farthest. The
//! resulting tetrahedron need not contain the origin: choosing the face with
//! the smallest *signed* distance makes the first iterations grow the
//! polytope over the origin before the depth is refined.
//!
//! If the CSO is flat (no support point leaves the line or plane of the
//! points by more than `16·ε·scale`), its penetration depth is zero: EPA
//! answers a zero-depth [`Proximity::Penetrating`] whose upper bound is the
//! smallest support value seen — a touching contact — when that bound is
//! within the tolerance, and [`Undetermined::Degenerate`] otherwise.
//!
//! # Outcomes
//! - [`Proximity::Penetrating`] with `depth = max(lower, 0)` (the distance of
//!   the closest face), `bounds = [lower, upper]` clamped at zero (GJK's
//!   "intersecting" allows the origin to lie up to its tolerance outside the
//!   CSO: touching within tolerance is a zero-depth penetration), the closest
//!   face's outward normal (from A towards B), and witness points from the
//!   barycentric coordinates of the origin's projection on that face applied
//!   to the body points of its vertices, so that
//!   `point_a − point_b = depth · normal` (to rounding) and moving B by
//!   `depth · normal` separates the bodies (within tolerance). Where the CSO
//!   is flat, several coplanar faces tie for closest; the witness is taken
//!   from the one that contains the projection.
//! - [`Proximity::Undetermined`] when the iteration cap
//!   ([`Undetermined::IterationCap`]), the vertex or face capacity
//!   ([`Undetermined::OutOfCapacity`]), the arithmetic
//!   ([`Undetermined::Degenerate`]: the visible region stopped being a disk
//!   bounded by one simple loop, a new face had no normal (its three
//!   points collinear in the arithmetic), the stall above,
//!   or a support plane clearly separating the origin from the CSO — the
//!   input was not an intersecting simplex) or a NaN
//!   ([`Undetermined::NonFinite`]) stops it. Its bounds are on the *signed*
//!   distance: `[−upper, −lower]` once the polytope contains the origin
//!   (`lower ≥ 0`), `[−upper, d₀]` before (`d₀` the distance of the origin
//!   from the input simplex, whose hull lies in the CSO). The workspace's
//!   polytope stays consistent (closed, every adjacency alive) on every
//!   exit; nothing is left half-expanded.
//!
//! Curved bodies converge slowly (each iteration refines the polytope near
//! the contact only by one vertex): with 64 iterations, sphere pairs reach
//! a relative gap of about `1e-4`. [`Epa::penetration`] therefore raises a
//! budget's relative tolerance to at least [`DEPTH_TOLERANCE`] (`1e-6`),
//! and [`penetration`] (a workspace on the stack) also runs twice the
//! budget's iterations, as [`contact`](super::contact::contact) does; a run
//! the cap still stops is [`Undetermined::IterationCap`] with valid bounds.
//!
//! Every loop has a hard cap (the iteration budget, the capacities) and every
//! loop test is written so that a NaN stops it.

use super::frame::ToWorld;
use super::simplex::Simplex;
use crate::math::{any_orthogonal, finite_vec, max, max_abs, min, norm, normalize, Pt3, Real, Vec3};
use crate::query::{Bounds, Budget, Penetration, Proximity, Undetermined, Witness};
use crate::shape::{Cso, CsoPoint, Relative, SupportMap};

/// Relative tolerance below which EPA does not try to certify a depth
/// ([`Epa::penetration`] and [`contact`](super::contact::contact) raise a
/// finer one to it): EPA converges linearly on curved bodies, and `1e-6` of
/// the bodies' size (a micrometre on a metre) is within reach of its
/// workspace where f64's `1e-9` is not. Polytope pairs converge exactly
/// anyway.
pub const DEPTH_TOLERANCE: f64 = 1.0e-6;

/// The budget of an EPA stage after GJK: twice the iterations of the
/// budget (GJK rarely needs its cap; EPA adds one vertex per iteration),
/// within the workspace's room ([`Epa::MAX_ITERATIONS`]), and the
/// relative tolerance `max(tolerance, DEPTH_TOLERANCE)`.
pub(crate) fn depth_budget<R: Real>(budget: &Budget<R>) -> Budget<R> {
    Budget::new(budget.max_iterations.saturating_mul(2), max(budget.tolerance, R::lit(DEPTH_TOLERANCE)))
}

/// Capacity-free index meaning "none".
const NONE: u16 = u16::MAX;

/// A triangle of the polytope: vertices counter-clockwise seen from outside,
/// `adj[k]` the face across the edge `v[k] → v[k+1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Face<R: Real> {
    v: [u16; 3],
    adj: [u16; 3],
    /// Unit outward normal.
    normal: Vec3<R>,
    /// `min_k normal · v_k`: signed distance of the origin below the face
    /// (a lower bound of the distance of the triangle when positive).
    dist: R,
    alive: bool,
    /// Seen from the new support point (scratch of one expansion).
    visible: bool,
}

/// A horizon edge `a → b` (as in the visible face it bounded), the face
/// beyond it and the new face that will replace the visible one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Edge {
    a: u16,
    b: u16,
    /// The non-visible face across the edge, and the index of the edge in it.
    outer: u16,
    outer_edge: u8,
    /// Slot of the new face `(a, b, w)`.
    slot: u16,
}

/// Caller-owned EPA workspace with room for `V` vertices and `F` faces.
///
/// Use [`DefaultEpa`] (64 iterations) unless a smaller budget or footprint
/// is wanted; `V = N + 4`, `F = 2N + 4` for `N` iterations (see the module
/// docs). Both capacities must be below `u16::MAX`. The workspace is plain
/// data and can live in a `static` (the constructor is `const`).
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use narrowphase::support::epa::DefaultEpa;
/// use nalgebra::{Translation3, Vector3};
///
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Cuboid::new(Vector3::new(1.0_f64, 1.0, 1.0)).unwrap(),
///     Pose::from_parts(Translation3::new(1.5, 0.2, 0.0), Default::default()));
/// let budget = Budget::default();
/// let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else { panic!() };
/// let mut epa = DefaultEpa::<f64>::new();
/// let Proximity::Penetrating(p) = epa.penetration(&a, &b, &simplex, &budget) else { panic!() };
/// assert!((p.depth - 0.5).abs() < 1e-9);
/// assert!((p.witness.normal - Vector3::x()).norm() < 1e-9);
/// assert!(p.bounds.contains(0.5));
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Epa<R: Real, const V: usize, const F: usize> {
    /// The polytope's vertices. A fixed-capacity vector, as the other three:
    /// building an empty workspace writes its lengths only (filling arrays
    /// of `WideEpa<f64>`'s size was about a sixth of a penetration query on
    /// 50-vertex hulls, x86).
    verts: heapless::Vec<CsoPoint<R>, V, u16>,
    /// Face slots up to the high-water mark (dead ones are reused).
    faces: heapless::Vec<Face<R>, F, u16>,
    /// The horizon of the last expansion, as one closed loop.
    horizon: heapless::Vec<Edge, V, u16>,
    /// The faces the last expansion's point sees (a breadth-first queue).
    queue: heapless::Vec<u16, F, u16>,
    /// Dead slots below the high-water mark (free for new faces).
    n_dead: u16,
    /// At most [`Self::MAX_ITERATIONS`], below `u16::MAX` (the indices
    /// are `u16`).
    iterations: u16,
}

/// The workspace for the default budget of 64 iterations: 68 vertices, 132
/// faces.
pub type DefaultEpa<R> = Epa<R, 68, 132>;

/// The workspace [`contact`](super::contact::contact) uses in f64: room for
/// 128 iterations (132 vertices, 260 faces; 23.3 KiB in f64). Curved bodies need
/// them: EPA refines its polytope by one vertex per iteration and converges
/// linearly there; on random penetrating ellipsoid pairs it reaches a
/// relative gap of `1e-6` within 128 iterations on all but 0.2 %.
pub type WideEpa<R> = Epa<R, 132, 260>;

/// Scale-relative thresholds and the bounds reached so far.
struct Track<R: Real> {
    /// Largest support-point coordinate seen (either body).
    scale: R,
    /// `min n · w` over the unit directions probed: upper bound on the depth.
    upper: R,
    /// The direction achieving `upper`.
    upper_dir: Vec3<R>,
    /// Distance of the origin from the input simplex: an upper bound on the
    /// signed distance before the polytope contains the origin.
    d0: R,
    tol: R,
    /// Whether a body climbs (its hints go stale when the direction turns).
    climbs: bool,
    /// The last direction probed; zero before the first probe, which thus
    /// starts from cold hints (the ones a caller passes in answered GJK's
    /// directions, not the start polytope's face normals).
    last_dir: Vec3<R>,
}

impl<R: Real> Track<R> {
    fn see(&mut self, p: &CsoPoint<R>) {
        self.scale = max(self.scale, max(max_abs(&p.a.coords), max_abs(&p.b.coords)));
    }
    /// Convergence tolerance.
    fn eps(&self) -> R {
        self.tol * self.scale
    }
    /// Size below which a point counts as lying on a line or a plane.
    fn eps_rank(&self) -> R {
        R::EPSILON * R::lit(16.0) * self.scale
    }
    /// The precision floor: a gap the arithmetic cannot close (as in GJK).
    fn eps_floor(&self) -> R {
        max(self.tol, R::EPSILON * R::lit(1024.0)) * self.scale
    }
    /// How far in front of a face the new point must be for the face to be
    /// removed. Faces closer than this stay (a reflex edge of at most this
    /// size), which keeps new faces away from slivers whose normals the
    /// rounding decides.
    fn eps_visible(&self) -> R {
        max(R::EPSILON * R::lit(16.0), self.tol * R::lit(0.25)) * self.scale
    }
    /// Signed-distance bounds given the current closest face distance.
    /// A support value below the face distance is rounding (the face lies
    /// inside the CSO); the two then swap places so that the bracket stays
    /// ordered (for example f32 at coordinates ~1e10, lower 91776 >
    /// upper 91690, within the 1e3 rounding of those coordinates).
    fn bounds(&self, lower: Option<R>) -> Bounds<R> {
        let upper = match lower {
            Some(d) if d >= R::ZERO => -d,
            _ => self.d0,
        };
        let support = -self.upper;
        Bounds { lower: min(support, upper), upper: max(support, upper) }
    }
}

/// The CSO point with everything at the origin.
const fn zero_point<R: Real>() -> CsoPoint<R> {
    CsoPoint {
        w: Vec3::new(R::ZERO, R::ZERO, R::ZERO),
        a: Pt3::new(R::ZERO, R::ZERO, R::ZERO),
        b: Pt3::new(R::ZERO, R::ZERO, R::ZERO),
    }
}

/// `Err` for a broken internal invariant (an index out of range): never
/// expected, reported as degenerate rather than panicking.
const BROKEN: Undetermined = Undetermined::Degenerate;

impl<R: Real, const V: usize, const F: usize> Epa<R, V, F> {
    const INDEX_CHECK: () = assert!(V < u16::MAX as usize && F < u16::MAX as usize, "EPA capacities must fit u16");

    const EMPTY_FACE: Face<R> = Face {
        v: [0; 3],
        adj: [NONE; 3],
        normal: Vec3::new(R::ZERO, R::ZERO, R::ZERO),
        dist: R::ZERO,
        alive: false,
        visible: false,
    };

    /// An empty workspace. `const`, so it can initialise a `static`.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::INDEX_CHECK;
        Self {
            verts: heapless::Vec::new(),
            faces: heapless::Vec::new(),
            horizon: heapless::Vec::new(),
            queue: heapless::Vec::new(),
            n_dead: 0,
            iterations: 0,
        }
    }

    /// The iterations this workspace has room for, `min(V − 4, (F − 4) / 2)`
    /// (the start-up takes four vertices; each iteration adds one vertex
    /// and at most two faces net). EPA runs at most this many iterations
    /// whatever the budget's cap, so a cap above the workspace's room ends
    /// in [`Undetermined::IterationCap`], never in
    /// [`Undetermined::OutOfCapacity`].
    pub const MAX_ITERATIONS: u32 = {
        let by_vertices = V.saturating_sub(4);
        let by_faces = F.saturating_sub(4) / 2;
        let n = if by_vertices < by_faces { by_vertices } else { by_faces };
        if n > u32::MAX as usize {
            u32::MAX
        } else {
            n as u32
        }
    };

    /// Iterations (support queries after start-up) of the last query.
    pub fn iterations(&self) -> u32 {
        u32::from(self.iterations)
    }

    /// Vertices of the final polytope of the last query (some may be
    /// interior, left over from removed faces).
    pub fn vertex_count(&self) -> usize {
        self.verts.len()
    }

    /// Penetration depth, deepest points and contact normal of `a` and `b`,
    /// starting from `simplex`, the terminal simplex of
    /// [`GjkOutcome::Penetrating`](super::gjk::GjkOutcome::Penetrating)
    /// (1 to 4 CSO points whose hull contains the origin or lies within the
    /// tolerance of it). See the module docs for the outcomes and bounds.
    ///
    /// # Examples
    ///
    /// ```
    /// use narrowphase::prelude::*;
    /// use narrowphase::support::epa::Epa;
    /// use nalgebra::{Translation3, Vector3};
    ///
    /// let a = Placed::new(Sphere::new(1.0_f32).unwrap(), Pose::identity());
    /// let b = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(),
    ///     Pose::from_parts(Translation3::new(0.0, 0.0, 1.8), Default::default()));
    /// let budget = Budget::default();
    /// let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else { panic!() };
    /// let mut epa = Epa::<f32, 36, 68>::new(); // room for 32 iterations
    /// match epa.penetration(&a, &b, &simplex, &Budget::new(32, 1e-3)) {
    ///     Proximity::Penetrating(p) => {
    ///         assert!((p.depth - 0.2).abs() < 2e-3);
    ///         assert!((p.witness.normal - Vector3::z()).norm() < 0.05);
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    ///
    /// The budget's cap holds as given (within this workspace's room); its
    /// relative tolerance is raised to at least [`DEPTH_TOLERANCE`]: EPA
    /// converges linearly on curved bodies, adding one vertex per
    /// iteration, and a finer tolerance (f64's default `1e-9`) would end
    /// there in the cap. Polytope pairs converge exactly.
    pub fn penetration<A, B>(&mut self, a: &A, b: &B, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        let budget = Budget::new(budget.max_iterations, max(budget.tolerance, R::lit(DEPTH_TOLERANCE)));
        self.in_pair_frame(a, b, simplex, &budget)
    }

    /// EPA on `a` and `b` from the caller's world-frame `simplex`, run with
    /// `budget` as it is.
    fn in_pair_frame<A, B>(&mut self, a: &A, b: &B, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        // The pair frame (see `super::frame`): the caller's world-frame
        // simplex is moved to A's centre, EPA runs there, and the witness
        // points go back. A simplex's CSO points `w = a − b` do not move.
        let origin = a.center();
        let mut local = *simplex;
        local.move_by(&-origin.coords);
        let mut answer = self.run(&mut Cso::new(&Relative::new(a, origin), &Relative::new(b, origin)), &local, budget);
        answer.to_world(&origin.coords);
        answer
    }

    /// [`penetration`](Self::penetration) on a CSO whose hill-climbing hints
    /// the caller keeps.
    pub(crate) fn run<A, B>(
        &mut self,
        cso: &mut Cso<'_, A, B>,
        simplex: &Simplex<R>,
        budget: &Budget<R>,
    ) -> Proximity<R>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        self.verts.clear();
        self.faces.clear();
        self.n_dead = 0;
        self.iterations = 0;
        let undetermined = |reason, bounds| Proximity::Undetermined { reason, bounds };
        let tol = budget.tolerance;
        if !budget.is_valid() {
            return undetermined(Undetermined::InvalidBudget, Bounds::unknown());
        }
        let pts = simplex.points();
        if pts.is_empty() {
            return undetermined(Undetermined::Degenerate, Bounds::unknown());
        }
        if !pts.iter().all(|p| p.is_finite() && finite_vec(&p.w)) {
            return undetermined(Undetermined::NonFinite, Bounds::unknown());
        }
        let mut reduced = *simplex;
        reduced.reduce();
        let d0 = norm(&reduced.closest());
        if !d0.finite() {
            return undetermined(Undetermined::NonFinite, Bounds::unknown());
        }
        let climbs = cso.a.climbs() || cso.b.climbs();
        let mut t = Track {
            scale: R::ZERO,
            upper: R::INFINITY,
            upper_dir: Vec3::x(),
            d0,
            tol,
            climbs,
            last_dir: Vec3::zeros(),
        };
        pts.iter().for_each(|p| t.see(p));

        match self.start(cso, pts, &mut t) {
            Ok(true) => {}
            Ok(false) => return flat(&t, &reduced),
            Err(reason) => return undetermined(reason, t.bounds(None)),
        }

        for it in 0..budget.max_iterations.min(Self::MAX_ITERATIONS) {
            self.iterations = u16::try_from(it + 1).unwrap_or(u16::MAX);
            let Some((f, face)) = self.closest() else {
                return undetermined(Undetermined::NonFinite, t.bounds(None));
            };
            let p = match probe(cso, &face.normal, &mut t) {
                Ok(p) => p,
                Err(reason) => return undetermined(reason, t.bounds(Some(face.dist))),
            };
            let h = face.normal.dot(&p.w);
            if !(h - face.dist > t.eps()) {
                return self.finish(&face, &t);
            }
            // A support point no higher than the face's own vertices (a
            // sliver whose normal the rounding tilted): expanding cannot
            // help. The gap is then the precision floor of the face.
            let top = match self.top(&face) {
                Ok(top) => top,
                Err(reason) => return undetermined(reason, t.bounds(Some(face.dist))),
            };
            if !(h - top > t.eps_rank()) {
                if !(h - face.dist > t.eps_floor()) {
                    return self.finish(&face, &t);
                }
                return undetermined(Undetermined::Degenerate, t.bounds(Some(face.dist)));
            }
            if let Err(reason) = self.expand(f, p, t.eps_visible()) {
                return undetermined(reason, t.bounds(Some(face.dist)));
            }
        }
        let lower = self.closest().map(|(_, f)| f.dist);
        undetermined(Undetermined::IterationCap, t.bounds(lower))
    }

    /// Builds the starting tetrahedron. `Ok(false)`: the CSO is flat.
    fn start<A, B>(
        &mut self,
        cso: &mut Cso<'_, A, B>,
        pts: &[CsoPoint<R>],
        t: &mut Track<R>,
    ) -> Result<bool, Undetermined>
    where
        A: SupportMap<R> + ?Sized,
        B: SupportMap<R> + ?Sized,
    {
        let p0 = *pts.first().ok_or(BROKEN)?;

        // Second point: the farthest from p0, else an axis support.
        let from_p0 = |p: &CsoPoint<R>| norm(&(p.w - p0.w));
        let mut p1 = farthest(pts, from_p0);
        if !(p1.1 > t.eps_rank()) {
            for dir in [Vec3::x(), -Vec3::x(), Vec3::y(), -Vec3::y(), Vec3::z(), -Vec3::z()] {
                let q = probe(cso, &dir, t)?;
                let d = from_p0(&q);
                if d > p1.1 {
                    p1 = (q, d);
                }
            }
            if !(p1.1 > t.eps_rank()) {
                return Ok(false);
            }
        }
        let p1 = p1.0;

        // Third: the farthest from the line, else a support orthogonal to it.
        let u = normalize(&(p1.w - p0.w)).ok_or(Undetermined::Degenerate)?;
        let from_line = |p: &CsoPoint<R>| norm(&(p.w - p0.w).cross(&u));
        let mut p2 = farthest(pts, from_line);
        if !(p2.1 > t.eps_rank()) {
            let o1 = any_orthogonal(&u);
            let o2 = u.cross(&o1);
            for dir in [o1, -o1, o2, -o2] {
                let q = probe(cso, &dir, t)?;
                let d = from_line(&q);
                if d > p2.1 {
                    p2 = (q, d);
                }
            }
            if !(p2.1 > t.eps_rank()) {
                return Ok(false);
            }
        }
        let p2 = p2.0;

        // Fourth: the farthest from the plane, else a support along ±normal.
        let n = normalize(&(p1.w - p0.w).cross(&(p2.w - p0.w))).ok_or(Undetermined::Degenerate)?;
        // A vertex of the face is never the fourth point, whatever the
        // rounding of its height (it reaches `16·ε·scale` on faces of edges
        // longer than `scale`: a touching pair built a flat tetrahedron).
        let from_plane = |p: &CsoPoint<R>| {
            if p.w == p0.w || p.w == p1.w || p.w == p2.w {
                R::ZERO
            } else {
                n.dot(&(p.w - p0.w)).abs_()
            }
        };
        let mut p3 = farthest(pts, from_plane);
        if !(p3.1 > t.eps_rank()) {
            for dir in [n, -n] {
                let q = probe(cso, &dir, t)?;
                let d = from_plane(&q);
                if d > p3.1 {
                    p3 = (q, d);
                }
            }
            if !(p3.1 > t.eps_rank()) {
                return Ok(false);
            }
        }
        let p3 = p3.0;

        // Orient: p3 below the face (p0, p1, p2) counter-clockwise.
        let (p1, p2) = if n.dot(&(p3.w - p0.w)) > R::ZERO { (p2, p1) } else { (p1, p2) };
        if V < 4 || F < 4 {
            return Err(Undetermined::OutOfCapacity);
        }
        // Empty: `run` cleared the workspace before starting.
        for p in [p0, p1, p2, p3] {
            self.verts.push(p).map_err(|_| Undetermined::OutOfCapacity)?;
        }
        const TETRA: [[u16; 3]; 4] = [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
        for v in TETRA.iter() {
            let w = [self.vert(v[0])?.w, self.vert(v[1])?.w, self.vert(v[2])?.w];
            let (normal, dist) = plane(&w[0], &w[1], &w[2]).ok_or(Undetermined::Degenerate)?;
            let face = Face { v: *v, adj: [NONE; 3], normal, dist, alive: true, visible: false };
            self.faces.push(face).map_err(|_| Undetermined::OutOfCapacity)?;
        }
        // Adjacency by matching each edge with its reverse.
        for i in 0..4 {
            let vi = self.faces.get(i).ok_or(BROKEN)?.v;
            for k in 0..3 {
                let (a, b) = (vi[k], vi[(k + 1) % 3]);
                let j = (0..4)
                    .find(|&j| self.faces.get(j).is_some_and(|f| (0..3).any(|e| f.v[e] == b && f.v[(e + 1) % 3] == a)));
                let j = j.ok_or(BROKEN)?;
                let face = self.faces.get_mut(i).ok_or(BROKEN)?;
                face.adj[k] = j as u16;
            }
        }
        Ok(true)
    }

    /// The face containing `p` (the projection of the origin on `face`) and
    /// its barycentric coordinates there. Where the CSO is flat, many faces
    /// are coplanar and rounding picks which one is closest; the projection
    /// may then lie outside the chosen face (far outside a needle), and
    /// extrapolated weights would amplify the rounding of the witness
    /// points. Walk across edges towards `p`, to faces whose plane holds `p`
    /// within `eps` (coplanar up to rounding), while `p` gets more inside,
    /// at most `F` steps.
    fn locate(&self, face: &Face<R>, p: &Vec3<R>, eps: R) -> Result<([CsoPoint<R>; 3], [R; 3]), Undetermined> {
        let inside = -Real::sqrt(R::EPSILON);
        let mut cur = *face;
        let mut best: Option<([CsoPoint<R>; 3], [R; 3], R)> = None;
        for _ in 0..F {
            let pts = [*self.vert(cur.v[0])?, *self.vert(cur.v[1])?, *self.vert(cur.v[2])?];
            let Some(l) = barycentric(&pts[0].w, &pts[1].w, &pts[2].w, p) else {
                break;
            };
            let (k, lmin) = (0..3).fold((0, l[0]), |(k, m), i| if l[i] < m { (i, l[i]) } else { (k, m) });
            // Strictly better each step, so no face is visited twice.
            match best {
                Some((_, _, b)) if !(lmin > b) => break,
                _ => best = Some((pts, l, lmin)),
            }
            if !(lmin < inside) {
                break;
            }
            // Across the edge opposite the most negative weight.
            let g = *self.face(cur.adj[(k + 1) % 3])?;
            if !g.alive || !((g.normal.dot(p) - g.dist).abs_() <= eps) {
                break;
            }
            cur = g;
        }
        best.map(|(pts, l, _)| (pts, l)).ok_or(Undetermined::Degenerate)
    }

    /// The largest `normal · v` over the face's vertices.
    fn top(&self, face: &Face<R>) -> Result<R, Undetermined> {
        let mut top = -R::INFINITY;
        for v in face.v {
            top = max(top, face.normal.dot(&self.vert(v)?.w));
        }
        Ok(top)
    }

    fn vert(&self, i: u16) -> Result<&CsoPoint<R>, Undetermined> {
        self.verts.get(i as usize).ok_or(BROKEN)
    }

    fn face(&self, i: u16) -> Result<&Face<R>, Undetermined> {
        self.faces.get(i as usize).ok_or(BROKEN)
    }

    /// The live face with the smallest signed distance. The scan keeps an
    /// index and a distance; the face is copied once, at the end.
    fn closest(&self) -> Option<(u16, Face<R>)> {
        let (mut best, mut best_dist) = (None, R::INFINITY);
        for (i, f) in self.faces.iter().enumerate() {
            if f.alive && f.dist < best_dist && f.dist >= -R::MAX {
                (best, best_dist) = (Some(i), f.dist);
            }
        }
        let i = best?;
        // Rebuilt field by field: copied whole, the face went through a
        // byte-wise copy at an odd offset (about 60 instructions an
        // iteration on the Cortex-M4F).
        let Face { v, adj, normal, dist, alive, visible } = *self.faces.get(i)?;
        Some((i as u16, Face { v, adj, normal, dist, alive, visible }))
    }

    /// Adds `p` (in front of face `start`): removes the faces it sees and
    /// closes the hole with a fan of new faces to `p`. The polytope is left
    /// unchanged where the visible region is not a disk or there is no
    /// room; a new face with no normal is reported
    /// ([`Undetermined::Degenerate`]) after the fan is complete, the
    /// polytope closed and consistent.
    fn expand(&mut self, start: u16, p: CsoPoint<R>, eps_visible: R) -> Result<(), Undetermined> {
        if self.verts.is_full() {
            return Err(Undetermined::OutOfCapacity);
        }
        if let Err(e) = self.flood(start, &p.w, eps_visible).and_then(|()| self.horizon()) {
            // Leave no face marked.
            for f in self.faces.iter_mut() {
                f.visible = false;
            }
            return Err(e);
        }
        // The visible faces (`queue`) and the loop around them (`horizon`).
        let n_seen = self.queue.len();

        // Commit: the new vertex, the removal, the fan.
        let fallback_normal = self.face(start)?.normal;
        // Below `V < u16::MAX` (`INDEX_CHECK`), and not full (checked above).
        let wi = self.verts.len() as u16;
        self.verts.push(p).map_err(|_| BROKEN)?;
        for q in self.queue.iter() {
            if let Some(f) = self.faces.get_mut(*q as usize) {
                f.alive = false;
                f.visible = false;
            }
        }
        // Below the high-water mark, so within `F` (`u16`): saturating only
        // keeps the arithmetic free of an overflow path.
        self.n_dead = self.n_dead.saturating_add(n_seen as u16);
        // Slots for the fan: first those of the faces just removed, then
        // fresh ones past the high-water mark, then (a full workspace) any
        // other dead slot; `horizon` checked that there are enough.
        let (mut reused, mut cursor) = (0, 0);
        for e in self.horizon.iter_mut() {
            let nf = self.faces.len();
            let slot = if reused < n_seen {
                reused += 1;
                *self.queue.get(reused - 1).ok_or(BROKEN)? as usize
            } else if nf < F {
                self.faces.push(Self::EMPTY_FACE).map_err(|_| BROKEN)?;
                nf
            } else {
                let free = (cursor..nf).find(|&s| self.faces.get(s).is_some_and(|f| !f.alive)).ok_or(BROKEN)?;
                cursor = free + 1;
                free
            };
            let face = self.faces.get_mut(slot).ok_or(BROKEN)?;
            if slot < nf && !face.alive {
                self.n_dead = self.n_dead.saturating_sub(1);
            }
            face.alive = true;
            e.slot = slot as u16;
        }
        let n_edges = self.horizon.len();
        let mut planar = true;
        for j in 0..n_edges {
            let e = *self.horizon.get(j).ok_or(BROKEN)?;
            // The neighbours in the loop, without a division (a remainder
            // by a variable is a 64-bit division on x86, tens of cycles).
            let next = self.horizon.get(if j + 1 == n_edges { 0 } else { j + 1 }).ok_or(BROKEN)?.slot;
            let prev = self.horizon.get(if j == 0 { n_edges - 1 } else { j - 1 }).ok_or(BROKEN)?.slot;
            let (a, b) = (self.vert(e.a)?.w, self.vert(e.b)?.w);
            // A triangle with no normal in this arithmetic (its points
            // collinear) takes the expanded face's, with the distance over
            // its own vertices: a valid certificate for any unit normal, so
            // the polytope is complete and consistent when the expansion
            // then reports it. Checked here, once, rather than before the
            // commit: the planes are a quarter of an iteration's work.
            let (normal, dist) = plane(&a, &b, &p.w).unwrap_or_else(|| {
                planar = false;
                let n = fallback_normal;
                (n, min(min(n.dot(&a), n.dot(&b)), n.dot(&p.w)))
            });
            let face = self.faces.get_mut(e.slot as usize).ok_or(BROKEN)?;
            *face = Face { v: [e.a, e.b, wi], adj: [e.outer, next, prev], normal, dist, alive: true, visible: false };
            let outer = self.faces.get_mut(e.outer as usize).ok_or(BROKEN)?;
            if let Some(x) = outer.adj.get_mut(e.outer_edge as usize) {
                *x = e.slot;
            }
        }
        if planar {
            Ok(())
        } else {
            Err(Undetermined::Degenerate)
        }
    }

    /// Marks the connected set of faces that `w` sees, from `start`, and
    /// lists them in `queue`.
    fn flood(&mut self, start: u16, w: &Vec3<R>, eps_visible: R) -> Result<(), Undetermined> {
        self.faces.get_mut(start as usize).ok_or(BROKEN)?.visible = true;
        self.queue.clear();
        self.queue.push(start).map_err(|_| BROKEN)?;
        // Each face is queued at most once: at most F rounds.
        for head in 0..F {
            if head >= self.queue.len() {
                break;
            }
            let f = *self.queue.get(head).ok_or(BROKEN)?;
            let adj = self.face(f)?.adj;
            for g in adj {
                let gf = self.faces.get_mut(g as usize).ok_or(BROKEN)?;
                if !gf.alive {
                    return Err(BROKEN);
                }
                if gf.visible || !(gf.normal.dot(w) - gf.dist > eps_visible) {
                    continue;
                }
                gf.visible = true;
                self.queue.push(g).map_err(|_| BROKEN)?;
            }
        }
        Ok(())
    }

    /// Collects the boundary of the visible faces into `horizon`, ordered as
    /// one closed loop; checks that the loop is simple and that there is
    /// room for the new faces.
    fn horizon(&mut self) -> Result<(), Undetermined> {
        self.horizon.clear();
        for qi in 0..self.queue.len() {
            let f = *self.queue.get(qi).ok_or(BROKEN)?;
            let face = *self.face(f)?;
            for k in 0..3 {
                let g = face.adj[k];
                let gf = self.face(g)?;
                if gf.visible {
                    continue;
                }
                let (a, b) = (face.v[k], face.v[(k + 1) % 3]);
                let outer_edge = (0..3).find(|&e| gf.v[e] == b && gf.v[(e + 1) % 3] == a).ok_or(BROKEN)?;
                // More boundary edges than vertices: not a simple loop.
                let edge = Edge { a, b, outer: g, outer_edge: outer_edge as u8, slot: NONE };
                self.horizon.push(edge).map_err(|_| Undetermined::Degenerate)?;
            }
        }
        let n = self.horizon.len();
        if n < 3 {
            return Err(Undetermined::Degenerate);
        }
        // Simple: every vertex starts one edge only.
        for i in 0..n {
            let a = self.horizon.get(i).ok_or(BROKEN)?.a;
            if self.horizon.iter().skip(i + 1).any(|e| e.a == a) {
                return Err(Undetermined::Degenerate);
            }
        }
        // Chain into one loop.
        for i in 0..n - 1 {
            let end = self.horizon.get(i).ok_or(BROKEN)?.b;
            let j = (i + 1..n).find(|&j| self.horizon.get(j).is_some_and(|e| e.a == end));
            let j = j.ok_or(Undetermined::Degenerate)?;
            // Checked here so that `swap` keeps no bounds-check panic.
            if i + 1 >= self.horizon.len() || j >= self.horizon.len() {
                return Err(BROKEN);
            }
            self.horizon.swap(i + 1, j);
        }
        let (first, last) = (self.horizon.first().ok_or(BROKEN)?, self.horizon.get(n - 1).ok_or(BROKEN)?);
        if last.b != first.a {
            return Err(Undetermined::Degenerate);
        }
        // Room: dead slots, the visible faces, and the never used ones.
        let nf = self.faces.len();
        if self.n_dead as usize + self.queue.len() + (F - nf) < n {
            return Err(Undetermined::OutOfCapacity);
        }
        Ok(())
    }

    /// The converged answer from the closest face.
    fn finish(&self, face: &Face<R>, t: &Track<R>) -> Proximity<R> {
        let eps = t.eps();
        let bounds = t.bounds(Some(face.dist));
        if t.upper < -eps {
            // A support plane puts the origin clearly outside the CSO: the
            // input was not an intersecting simplex.
            return Proximity::Undetermined { reason: Undetermined::Degenerate, bounds };
        }
        let proj = face.normal * face.dist;
        let (pts, l) = match self.locate(face, &proj, t.eps_rank()) {
            Ok(x) => x,
            Err(reason) => return Proximity::Undetermined { reason, bounds },
        };
        let combine = |f: fn(&CsoPoint<R>) -> Vec3<R>| pts.iter().zip(l).fold(Vec3::zeros(), |s, (p, l)| s + f(p) * l);
        let point_a = Pt3::from(combine(|p| p.a.coords));
        let point_b = Pt3::from(combine(|p| p.b.coords));
        let depth = max(face.dist, R::ZERO);
        let up = max(t.upper, R::ZERO);
        Proximity::Penetrating(Penetration {
            depth,
            bounds: Bounds { lower: min(depth, up), upper: max(depth, up) },
            witness: Witness { point_a, point_b, normal: face.normal },
        })
    }
}

impl<R: Real, const V: usize, const F: usize> Default for Epa<R, V, F> {
    fn default() -> Self {
        Self::new()
    }
}

/// The support point along the unit `dir`, with its support plane recorded.
fn probe<R, A, B>(cso: &mut Cso<'_, A, B>, dir: &Vec3<R>, t: &mut Track<R>) -> Result<CsoPoint<R>, Undetermined>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    if t.climbs {
        cso.forget_stale_hints(dir, &t.last_dir);
        t.last_dir = *dir;
    }
    let p = cso.support_point(dir);
    if !p.support_is_finite() {
        return Err(Undetermined::NonFinite);
    }
    t.see(&p);
    let h = dir.dot(&p.w);
    if !h.finite() {
        return Err(Undetermined::NonFinite);
    }
    if h < t.upper {
        t.upper = h;
        t.upper_dir = *dir;
    }
    Ok(p)
}

/// The point of `pts` maximising `f`, with the value.
fn farthest<R: Real>(pts: &[CsoPoint<R>], f: impl Fn(&CsoPoint<R>) -> R) -> (CsoPoint<R>, R) {
    let mut best: Option<(CsoPoint<R>, R)> = None;
    for p in pts {
        let d = f(p);
        match best {
            Some((_, b)) if !(d > b) => {}
            _ => best = Some((*p, d)),
        }
    }
    // `pts` is never empty here; the fallback only keeps this total.
    best.unwrap_or((zero_point(), R::ZERO))
}

/// Unit normal of the triangle `abc` (counter-clockwise) and the smallest
/// `n · v` over its vertices, or `None` when the triangle has no normal.
///
/// The cross product is taken at the vertex opposite the longest edge (the
/// largest angle), which keeps needle-shaped faces' normals accurate.
fn plane<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Option<(Vec3<R>, R)> {
    let n = normalize(&cross(a, b, c))?;
    let dist = min(min(n.dot(a), n.dot(b)), n.dot(c));
    dist.finite().then_some((n, dist))
}

/// `(b − a) × (c − a)`, computed at the vertex opposite the longest edge.
fn cross<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>) -> Vec3<R> {
    let (ab, bc, ca) = (b - a, c - b, a - c);
    let (lab, lbc, lca) = (ab.dot(&ab), bc.dot(&bc), ca.dot(&ca));
    if lab >= lbc && lab >= lca {
        // Longest edge ab: at c, (a − c) × (b − c).
        ca.cross(&(-bc))
    } else if lbc >= lca {
        // Longest bc: at a.
        ab.cross(&(-ca))
    } else {
        // Longest ca: at b.
        bc.cross(&(-ab))
    }
}

/// Barycentric coordinates of the projection of `p` on the plane of `abc`.
///
/// Stable for needles (one short edge): the weight of the apex opposite the
/// shortest edge comes from the position along the needle, and the split
/// along the short edge is taken after it, so an error in the first weight
/// only moves the point by that error times the short edge.
fn barycentric<R: Real>(a: &Vec3<R>, b: &Vec3<R>, c: &Vec3<R>, p: &Vec3<R>) -> Option<[R; 3]> {
    let (lab, lbc, lca) = ((b - a).norm_squared(), (c - b).norm_squared(), (a - c).norm_squared());
    // (x, y) the shortest edge, z the apex; `order` maps back to (a, b, c).
    let (x, y, z, order) = if lab <= lbc && lab <= lca {
        (a, b, c, [0, 1, 2])
    } else if lbc <= lca {
        (b, c, a, [2, 0, 1])
    } else {
        (c, a, b, [1, 2, 0])
    };
    let e = y - x;
    let ee = e.dot(&e);
    let zx = z - x;
    let m = zx - e * (zx.dot(&e) / ee);
    let mm = m.dot(&m);
    if !(ee > R::ZERO) || !(mm > R::ZERO) || !mm.finite() {
        return None;
    }
    let px = p - x;
    let wz = px.dot(&m) / mm;
    let wy = (px - zx * wz).dot(&e) / ee;
    let w = [R::ONE - wy - wz, wy, wz];
    Some(order.map(|i| w[i]))
}

/// The answer for a flat CSO: zero depth when the support planes seen put
/// the boundary within the tolerance of the origin.
fn flat<R: Real>(t: &Track<R>, reduced: &Simplex<R>) -> Proximity<R> {
    let up = max(t.upper, R::ZERO);
    if !(up <= t.eps()) || t.upper < -t.eps() {
        return Proximity::Undetermined { reason: Undetermined::Degenerate, bounds: t.bounds(None) };
    }
    let (pa, pb) = reduced.witnesses();
    Proximity::Penetrating(Penetration {
        depth: R::ZERO,
        bounds: Bounds { lower: R::ZERO, upper: up },
        witness: Witness { point_a: Pt3::from(pa), point_b: Pt3::from(pb), normal: t.upper_dir },
    })
}

/// Penetration of `a` and `b` from a terminal GJK simplex, run as
/// [`contact`](super::contact::contact) runs its EPA stage: a workspace on
/// the stack ([`DefaultEpa`] in f32, 7.4 KiB; [`WideEpa`] in f64, 23.3 KiB,
/// the room f64's tolerance needs on curved bodies), twice the budget's
/// iterations within its room, and a relative tolerance of at least
/// [`DEPTH_TOLERANCE`]. [`Epa::penetration`], on a caller's workspace,
/// keeps the budget's cap as given.
///
/// # Examples
///
/// ```
/// use narrowphase::prelude::*;
/// use nalgebra::{Translation3, Vector3};
///
/// let a = Placed::new(Cuboid::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap(), Pose::identity());
/// let b = Placed::new(Cuboid::new(Vector3::new(0.5_f32, 0.5, 0.5)).unwrap(),
///     Pose::from_parts(Translation3::new(0.0, -1.25, 0.0), Default::default()));
/// let budget = Budget::default();
/// let GjkOutcome::Penetrating(s) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else { panic!() };
/// let Proximity::Penetrating(p) = epa::penetration(&a, &b, &s, &budget) else { panic!() };
/// assert!((p.depth - 0.25).abs() < 1e-4);
/// assert!((p.witness.normal + Vector3::y()).norm() < 1e-4); // from A towards B
/// ```
pub fn penetration<R, A, B>(a: &A, b: &B, simplex: &Simplex<R>, budget: &Budget<R>) -> Proximity<R>
where
    R: Real,
    A: SupportMap<R> + ?Sized,
    B: SupportMap<R> + ?Sized,
{
    // f64 (the only precision this fine) gets the room its tolerance
    // needs on curved bodies; f32 stops at its precision floor first.
    let budget = depth_budget(budget);
    if R::EPSILON < R::lit(1.0e-10) {
        WideEpa::<R>::new().in_pair_frame(a, b, simplex, &budget)
    } else {
        DefaultEpa::<R>::new().in_pair_frame(a, b, simplex, &budget)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::math::Pose;
    use crate::shape::{Cuboid, Placed, Sphere};
    use nalgebra::{Translation3, UnitQuaternion};
    use std::vec::Vec;

    fn cso_pt(a: Vec3<f64>, b: Vec3<f64>) -> CsoPoint<f64> {
        CsoPoint { w: a - b, a: Pt3::from(a), b: Pt3::from(b) }
    }

    fn placed_box(h: [f64; 3], t: [f64; 3], rot: UnitQuaternion<f64>) -> Placed<Cuboid<f64>, f64> {
        Placed::new(
            Cuboid::new(Vec3::new(h[0], h[1], h[2])).unwrap(),
            Pose::from_parts(Translation3::new(t[0], t[1], t[2]), rot.to_rotation_matrix()),
        )
    }

    /// Every live face: neighbours alive, each edge matched by its reverse,
    /// every vertex of the tetrahedral start below every face plane.
    fn check_topology<const V: usize, const F: usize>(epa: &Epa<f64, V, F>) {
        let live: Vec<usize> = (0..epa.faces.len()).filter(|&i| epa.faces[i].alive).collect();
        assert!(live.len() >= 4);
        for &i in &live {
            let f = &epa.faces[i];
            assert!((f.normal.norm() - 1.0).abs() < 1e-12);
            for k in 0..3 {
                let g = &epa.faces[f.adj[k] as usize];
                assert!(g.alive, "dangling adjacency");
                let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
                let e = (0..3).find(|&e| g.v[e] == b && g.v[(e + 1) % 3] == a).expect("reverse edge");
                assert_eq!(g.adj[e] as usize, i);
            }
        }
        // Euler: V - E + F = 2 over the referenced vertices.
        let mut used = std::collections::BTreeSet::new();
        live.iter().for_each(|&i| used.extend(epa.faces[i].v));
        assert_eq!(used.len() as i64 - (3 * live.len() as i64) / 2 + live.len() as i64, 2);
    }

    #[test]
    fn tetrahedron_start_is_consistent() {
        let a = placed_box([1.0; 3], [0.3, 0.2, 0.1], UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1));
        let b = placed_box([0.5, 0.7, 0.9], [0.0; 3], UnitQuaternion::identity());
        let mut epa = DefaultEpa::<f64>::new();
        let mut cso = Cso::new(&a, &b);
        let pts: Vec<CsoPoint<f64>> =
            [Vec3::x(), Vec3::y(), Vec3::z(), -Vec3::x()].iter().map(|d| cso.support_point(d)).collect();
        let mut t = Track {
            scale: 1.0,
            upper: f64::INFINITY,
            upper_dir: Vec3::x(),
            d0: 0.0,
            tol: 1e-12,
            climbs: false,
            last_dir: Vec3::zeros(),
        };
        assert!(epa.start(&mut cso, &pts, &mut t).unwrap());
        check_topology(&epa);
        for i in 0..4 {
            let f = epa.faces[i];
            for v in 0..4u16 {
                assert!(f.normal.dot(&epa.verts[v as usize].w) <= f.dist + 1e-12);
            }
        }
    }

    #[test]
    fn topology_stays_closed_while_expanding() {
        let a = placed_box([1.0, 0.6, 0.3], [0.3, 0.2, 0.1], UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1));
        let b = Placed::new(Sphere::new(0.8).unwrap(), Pose::identity());
        let s = match crate::support::gjk::distance(&a, &b, &Budget::default(), &mut Default::default()) {
            crate::support::gjk::GjkOutcome::Penetrating(s) => s,
            other => panic!("{other:?}"),
        };
        for cap in 1..60 {
            let mut epa = DefaultEpa::<f64>::new();
            let out = epa.penetration(&a, &b, &s, &Budget::new(cap, 1e-14));
            let ok = matches!(out, Proximity::Undetermined { reason: Undetermined::IterationCap, .. })
                || matches!(out, Proximity::Penetrating(_));
            assert!(ok, "{out:?}");
            check_topology(&epa);
        }
    }

    #[test]
    fn origin_inside_box_pair() {
        let a = placed_box([1.0; 3], [0.0; 3], UnitQuaternion::identity());
        let b = placed_box([1.0; 3], [1.2, 0.3, -0.1], UnitQuaternion::identity());
        let mut cso = Cso::new(&a, &b);
        let s = {
            let mut s = Simplex::one(cso.support_point(&Vec3::new(1.0, 0.1, 0.1)));
            s.push(cso.support_point(&Vec3::new(-1.0, 0.2, 0.1)));
            s
        };
        let Proximity::Penetrating(p) = penetration(&a, &b, &s, &Budget::default()) else { panic!() };
        assert!((p.depth - 0.8).abs() < 1e-12, "{p:?}");
        assert!((p.witness.normal - Vec3::x()).norm() < 1e-12);
        assert!((p.witness.point_a - p.witness.point_b - p.witness.normal * p.depth).norm() < 1e-12);
    }

    /// A unit square in the plane z = 0: a flat body.
    struct Square;
    impl SupportMap<f64> for Square {
        fn support(&self, d: &Vec3<f64>) -> Pt3<f64> {
            Pt3::new(crate::math::sgn(d.x), crate::math::sgn(d.y), 0.0)
        }
        fn center(&self) -> Pt3<f64> {
            Pt3::origin()
        }
    }

    #[test]
    fn flat_cso_is_a_zero_depth_contact() {
        let s = Simplex::one(cso_pt(Vec3::new(1.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 0.0)));
        match penetration(&Square, &Square, &s, &Budget::default()) {
            Proximity::Penetrating(p) => {
                assert_eq!(p.depth, 0.0);
                assert!(p.bounds.upper <= 1e-12);
                assert!(p.witness.normal.z.abs() > 0.99);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn non_finite_input() {
        let a = placed_box([1.0; 3], [0.0; 3], UnitQuaternion::identity());
        let s = Simplex::one(cso_pt(Vec3::new(f64::NAN, 0.0, 0.0), Vec3::zeros()));
        let out = penetration(&a, &a, &s, &Budget::default());
        assert!(matches!(out, Proximity::Undetermined { reason: Undetermined::NonFinite, .. }));
        let s = Simplex::one(cso_pt(Vec3::zeros(), Vec3::zeros()));
        let out = penetration(&a, &a, &s, &Budget::new(64, f64::NAN));
        assert!(matches!(out, Proximity::Undetermined { reason: Undetermined::InvalidBudget, .. }));
    }

    /// A box whose support map turns NaN below z = -0.5.
    struct Poisoned;
    impl SupportMap<f64> for Poisoned {
        fn support(&self, d: &Vec3<f64>) -> Pt3<f64> {
            let n = d.normalize();
            if n.z < -0.5 {
                Pt3::new(f64::NAN, 0.0, 0.0)
            } else {
                Pt3::new(crate::math::sgn(d.x), crate::math::sgn(d.y), crate::math::sgn(d.z))
            }
        }
        fn center(&self) -> Pt3<f64> {
            Pt3::origin()
        }
    }

    #[test]
    fn non_finite_support() {
        let b = placed_box([0.5; 3], [0.2, 0.1, 0.0], UnitQuaternion::identity());
        let mut cso = Cso::new(&Poisoned, &b);
        let mut s = Simplex::one(cso.support_point(&Vec3::new(1.0, 0.1, 0.2)));
        s.push(cso.support_point(&Vec3::new(-1.0, 0.3, 0.2)));
        let out = penetration(&Poisoned, &b, &s, &Budget::default());
        assert!(matches!(out, Proximity::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
    }

    #[test]
    fn a_cap_beyond_the_workspace_is_clamped_and_reuse_is_clean() {
        let a = placed_box([1.0, 0.6, 0.3], [0.3, 0.2, 0.1], UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1));
        let b = Placed::new(Sphere::new(0.8).unwrap(), Pose::identity());
        let s = match crate::support::gjk::distance(&a, &b, &Budget::default(), &mut Default::default()) {
            crate::support::gjk::GjkOutcome::Penetrating(s) => s,
            other => panic!("{other:?}"),
        };
        let mut epa = Epa::<f64, 12, 20>::new();
        assert_eq!(Epa::<f64, 12, 20>::MAX_ITERATIONS, 8);
        let out = epa.penetration(&a, &b, &s, &Budget::new(64, 1e-14));
        assert!(matches!(out, Proximity::Undetermined { reason: Undetermined::IterationCap, .. }), "{out:?}");
        assert_eq!(epa.iterations(), 8);
        check_topology(&epa);
        // The same workspace, a full-size query before and a small one after.
        let mut big = DefaultEpa::<f64>::new();
        let _ = big.penetration(&a, &b, &s, &Budget::new(64, 1e-14));
        let c = placed_box([1.0; 3], [1.5, 0.0, 0.0], UnitQuaternion::identity());
        let s = match crate::support::gjk::distance(&a, &c, &Budget::default(), &mut Default::default()) {
            crate::support::gjk::GjkOutcome::Penetrating(s) => s,
            other => panic!("{other:?}"),
        };
        let fresh = DefaultEpa::<f64>::new().penetration(&a, &c, &s, &Budget::default());
        let reused = big.penetration(&a, &c, &s, &Budget::default());
        assert_eq!(fresh, reused);
        check_topology(&big);
    }

    #[test]
    fn capacity_below_a_tetrahedron() {
        let a = placed_box([1.0; 3], [0.0; 3], UnitQuaternion::identity());
        let s = Simplex::one(cso_pt(Vec3::new(1.0, 1.0, 1.0), Vec3::new(-1.0, -1.0, -1.0)));
        let out = Epa::<f64, 3, 3>::new().penetration(&a, &a, &s, &Budget::default());
        assert!(matches!(out, Proximity::Undetermined { reason: Undetermined::OutOfCapacity, .. }), "{out:?}");
    }

    /// Two f32 unit boxes overlapping by about 1 cm along x, far from the world
    /// origin: the depth is the overlap (closed form for axis-aligned boxes
    /// whose other axes overlap fully), whatever the offset. In the world
    /// frame f32 rounds coordinates at 1e4 to 0.5 mm, which would leave the
    /// 1 cm depth with a millimetre of error.
    #[test]
    fn penetration_depends_on_the_relative_placement_only() {
        let unit = || Cuboid::new(Vec3::new(0.5_f32, 0.5, 0.5)).unwrap();
        for offset in [0.0_f32, 1.0e2, 1.0e4, 1.0e5] {
            let at = |x: f32| {
                Placed::new(unit(), Pose::from_parts(Translation3::new(offset + x, offset, 0.0), Default::default()))
            };
            let (a, b) = (at(0.0), at(0.99));
            let budget = Budget::<f32>::default();
            let gjk = crate::support::gjk::distance(&a, &b, &budget, &mut Default::default());
            let crate::support::gjk::GjkOutcome::Penetrating(simplex) = gjk else { panic!("{gjk:?}") };
            match penetration(&a, &b, &simplex, &budget) {
                Proximity::Penetrating(p) => {
                    // The overlap of the boxes as placed: B's centre is the f32 nearest offset + 0.99.
                    let truth = 1.0 - ((offset + 0.99) - offset);
                    assert!((p.depth - truth).abs() < 1e-5, "offset {offset}: depth {} for {truth}", p.depth);
                    assert!((p.witness.normal - Vec3::x()).norm() < 1e-3, "offset {offset}: {p:?}");
                    // Witness points are world points, half an ulp of their magnitude.
                    let ulp = f32::EPSILON * (offset + 1.0);
                    assert!((p.witness.point_a.x - (offset + 0.5)).abs() <= 4.0 * ulp + 1e-5, "{p:?}");
                }
                other => panic!("offset {offset}: {other:?}"),
            }
        }
    }

    #[test]
    fn workspace_sizes() {
        // Documented in the free function's docs.
        assert_eq!(core::mem::size_of::<DefaultEpa<f32>>(), 7632);
        assert_eq!(core::mem::size_of::<DefaultEpa<f64>>(), 12200);
        assert_eq!(core::mem::size_of::<WideEpa<f64>>(), 23848);
    }
}
