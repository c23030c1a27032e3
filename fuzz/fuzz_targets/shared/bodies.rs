//! The input model of the support-map targets (`gjk_intersect`, `epa`,
//! `mpr`, `superquadric`, `ellipsoid_pair`; `gjk_distance` and
//! `ellipsoid_method` build on its pieces): every primitive and the
//! superquadric, a bipyramid polytope over borrowed arrays, wrappers, poses
//! from fixed-point or raw numbers, plus the tolerance band the cross-family
//! oracles use, and the seeds of these targets (`seed_*`).

use arbitrary::Arbitrary;
use nalgebra::{
    Matrix3, Point3, Quaternion, Rotation2, Rotation3, Translation2, Translation3, UnitQuaternion, Vector2, Vector3,
};
use narrowphase::prelude::*;
use narrowphase::shape::Plane;

pub use super::num::{v3, Num};
use super::num::{nums, RAW};
use super::seeds::{encode_enum, encode_struct, Rng};

/// A shape exponent: near 0, near 2, anywhere in between, or raw.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Exponent {
    /// `0.01 + k·1e-4` (the smallest accepted is 0.01).
    NearZero(u8),
    /// `1.99 − k·1e-4` (the largest accepted is 1.99).
    NearTwo(u8),
    /// `0.05 + 1.9·k/65535`.
    Mid(u16),
    Raw(f64),
}

impl Exponent {
    pub fn get(self) -> f64 {
        match self {
            Exponent::NearZero(k) => 0.01 + k as f64 * 1e-4,
            Exponent::NearTwo(k) => 1.99 - k as f64 * 1e-4,
            Exponent::Mid(k) => 0.05 + 1.9 * k as f64 / 65535.0,
            Exponent::Raw(x) => x,
        }
    }
    /// Away from the exponents where the shape is nearly a box/octahedron
    /// (GJK converges slowly on the sharp corners there).
    pub fn mid(self) -> bool {
        matches!(self, Exponent::Mid(_))
    }
}

/// A size: fixed point, or `10^(k/32)` (so ratios up to 1e4 and beyond are
/// common), or raw.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Size {
    Small(i16),
    Log(i8),
    Raw(f64),
}

impl Size {
    pub fn get(self) -> f64 {
        match self {
            Size::Small(i) => i as f64 / 256.0,
            Size::Log(k) => 10f64.powf(k as f64 / 32.0),
            Size::Raw(x) => x,
        }
    }
    pub fn finite_kind(self) -> bool {
        !matches!(self, Size::Raw(_))
    }
}

/// The same number as a size (`Small` and `Raw` have the same values).
impl From<Num> for Size {
    fn from(n: Num) -> Self {
        match n {
            Num::Small(i) => Size::Small(i),
            Num::Raw(x) => Size::Raw(x),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Prim {
    Sphere(Num),
    Cuboid([Num; 3]),
    Capsule(Num, Num),
    Cylinder(Num, Num),
    Cone(Num, Num),
    Ellipsoid([Size; 3]),
    /// Ring of `3 + n % 38` vertices of radius `r` in z = 0, apexes at
    /// `+top` and `−bottom`.
    Bipyramid {
        n: u8,
        r: Num,
        top: Num,
        bottom: Num,
    },
    Superquadric([Size; 3], Exponent, Exponent),
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Wrap {
    None,
    Rounded(Num),
    Linear([Num; 9]),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Rot {
    Identity,
    AxisAngle([Num; 3]),
    Quat([Num; 4]),
}

/// A placed body: a primitive `P` under a wrapper `W` (the targets that
/// have primitives or wrappers of their own name them), then a pose.
#[derive(Arbitrary, Debug, Clone)]
pub struct Body<P = Prim, W = Wrap> {
    pub prim: P,
    pub wrap: W,
    pub translation: [Num; 3],
    pub rotation: Rot,
}

/// Two bodies and a budget: the head of the support-family targets' inputs.
#[derive(Arbitrary, Debug, Clone)]
pub struct PairIn {
    pub f64: bool,
    pub a: Body,
    pub b: Body,
    pub max_iterations: u8,
    pub tolerance: Option<Num>,
}

/// A [`PairIn`] built: both shapes (borrowing their stores), their poses,
/// the budget.
pub struct Pair<'a, R: Real> {
    pub sa: Box<dyn Shape<R> + 'a>,
    pub sb: Box<dyn Shape<R> + 'a>,
    pub pa: Pose<R>,
    pub pb: Pose<R>,
    pub budget: Budget<R>,
}

impl PairIn {
    /// The pair, or `None` when a constructor rejects a shape.
    pub fn build<'a, R: Real>(&self, stores: &'a mut [PolyStore<R>; 2]) -> Option<Pair<'a, R>> {
        let [store_a, store_b] = stores;
        Some(Pair {
            sa: shape(&self.a, store_a)?,
            sb: shape(&self.b, store_b)?,
            pa: pose(&self.a),
            pb: pose(&self.b),
            budget: budget(self.max_iterations, self.tolerance),
        })
    }
}

/// A shape placed by a pose, as the queries see it.
pub type PlacedShape<'s, 'a, R> = Placed<&'s (dyn Shape<R> + 'a), R>;

impl<'a, R: Real> Pair<'a, R> {
    /// Both bodies placed by these poses.
    pub fn placed_at(&self, pa: Pose<R>, pb: Pose<R>) -> (PlacedShape<'_, 'a, R>, PlacedShape<'_, 'a, R>) {
        (Placed::new(&*self.sa, pa), Placed::new(&*self.sb, pb))
    }
    /// Both bodies placed by their own poses.
    pub fn placed(&self) -> (PlacedShape<'_, 'a, R>, PlacedShape<'_, 'a, R>) {
        self.placed_at(self.pa, self.pb)
    }
}

/// A rigid motion applied to both bodies (invariance oracles).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Motion {
    pub translation: [i8; 3],
    pub axis_angle: [i8; 3],
}

impl Motion {
    /// Translation up to ±127/4, rotation up to ±127/32 rad per axis.
    pub fn pose<R: Real>(&self) -> Pose<R> {
        let t = self.translation.map(|x| R::lit(x as f64 / 4.0));
        let r = self.axis_angle.map(|x| R::lit(x as f64 / 32.0));
        Pose::from_parts(Translation3::new(t[0], t[1], t[2]), Rotation3::new(Vector3::new(r[0], r[1], r[2])))
    }
}

/// What the queries need of a body.
pub trait Shape<R: Real>: SupportMap<R> + Bounded<R> {}
impl<R: Real, T: SupportMap<R> + Bounded<R>> Shape<R> for T {}

/// Largest bipyramid ring the store holds. A target may draw from a smaller
/// range (`build`'s `ring`): the range is part of how its inputs decode.
pub const MAX_RING: usize = 64;
const MAX_V: usize = MAX_RING + 2;
const MAX_F: usize = 2 * MAX_RING;

/// Storage for a bipyramid's arrays (the polytope borrows them).
pub struct PolyStore<R: Real> {
    n: usize,
    vertices: [Point3<R>; MAX_V],
    adjacency_offsets: [u16; MAX_V + 1],
    adjacency: [u16; 6 * MAX_RING],
    faces: [Plane<R>; MAX_F],
    face_offsets: [u16; MAX_F + 1],
    face_vertices: [u16; 3 * MAX_F],
    face_adjacency: [u16; 3 * MAX_F],
}

impl<R: Real> PolyStore<R> {
    pub fn new() -> Self {
        Self {
            n: 0,
            vertices: [Point3::origin(); MAX_V],
            adjacency_offsets: [0; MAX_V + 1],
            adjacency: [0; 6 * MAX_RING],
            faces: [Plane { normal: Vector3::zeros(), offset: R::ZERO }; MAX_F],
            face_offsets: [0; MAX_F + 1],
            face_vertices: [0; 3 * MAX_F],
            face_adjacency: [0; 3 * MAX_F],
        }
    }

    /// Fills in a bipyramid; ring `0..n`, top apex `n`, bottom apex `n + 1`.
    /// Top face `i` is `(i, i+1, T)`, bottom face `n + i` is `(i+1, i, B)`.
    pub fn bipyramid(&mut self, n: usize, r: f64, top: f64, bottom: f64) {
        self.n = n;
        let (t, b) = (n, n + 1);
        let mut p64 = [Vector3::<f64>::zeros(); MAX_V];
        for (i, p) in p64.iter_mut().enumerate().take(n) {
            let a = core::f64::consts::TAU * i as f64 / n as f64;
            *p = Vector3::new(r * a.cos(), r * a.sin(), 0.0);
        }
        p64[t] = Vector3::new(0.0, 0.0, top);
        p64[b] = Vector3::new(0.0, 0.0, -bottom);
        for i in 0..n + 2 {
            self.vertices[i] = Point3::new(R::lit(p64[i].x), R::lit(p64[i].y), R::lit(p64[i].z));
        }
        let mut k = 0;
        for i in 0..n + 2 {
            self.adjacency_offsets[i] = k as u16;
            let neighbours: &mut dyn Iterator<Item = usize> =
                if i < n { &mut [(i + n - 1) % n, (i + 1) % n, t, b].into_iter() } else { &mut (0..n) };
            for j in neighbours {
                self.adjacency[k] = j as u16;
                k += 1;
            }
        }
        self.adjacency_offsets[n + 2] = k as u16;
        for i in 0..n {
            let (next, prev) = ((i + 1) % n, (i + n - 1) % n);
            let loops = [([i, next, t], [n + i, next, prev]), ([next, i, b], [i, n + prev, n + next])];
            for (half, (lp, adj)) in loops.into_iter().enumerate() {
                let f = half * n + i;
                let (p0, p1, p2) = (p64[lp[0]], p64[lp[1]], p64[lp[2]]);
                let normal = (p1 - p0).cross(&(p2 - p0)).normalize();
                self.faces[f] = Plane {
                    normal: Vector3::new(R::lit(normal.x), R::lit(normal.y), R::lit(normal.z)),
                    offset: R::lit(normal.dot(&p0)),
                };
                for c in 0..3 {
                    self.face_vertices[3 * f + c] = lp[c] as u16;
                    self.face_adjacency[3 * f + c] = adj[c] as u16;
                }
            }
        }
        for f in 0..=2 * n {
            self.face_offsets[f] = (3 * f) as u16;
        }
    }

    pub fn polytope(&self) -> Option<Polytope<'_, R>> {
        let (nv, nf) = (self.n + 2, 2 * self.n);
        Polytope::new(PolytopeData {
            vertices: &self.vertices[..nv],
            vertex_adjacency_offsets: &self.adjacency_offsets[..nv + 1],
            vertex_adjacency: &self.adjacency[..self.adjacency_offsets[nv] as usize],
            faces: &self.faces[..nf],
            face_offsets: &self.face_offsets[..nf + 1],
            face_vertices: &self.face_vertices[..3 * nf],
            face_adjacency: &self.face_adjacency[..3 * nf],
        })
        .ok()
    }
}

pub fn s3<R: Real>(n: &[Size; 3]) -> Vector3<R> {
    Vector3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

pub fn wrap<'a, R: Real, S: Shape<R> + 'a>(shape: S, w: &Wrap) -> Option<Box<dyn Shape<R> + 'a>> {
    Some(match w {
        Wrap::None => Box::new(shape),
        Wrap::Rounded(r) => Box::new(Rounded::new(shape, Sphere::new(R::lit(r.get())).ok()?)),
        Wrap::Linear(m) => {
            let m = Matrix3::from_iterator(m.iter().map(|x| R::lit(x.get())));
            Box::new(Affine::new(shape, m, Vector3::zeros()).ok()?)
        }
    })
}

/// The bipyramid of ring `3 + n % (ring − 2)` in `store` (`None` unless the
/// radius and apexes are positive with a finite sum, or when
/// `Polytope::new` refuses it).
pub fn bipyramid<'a, R: Real>(
    store: &'a mut PolyStore<R>,
    ring: usize,
    n: u8,
    r: Num,
    top: Num,
    bottom: Num,
) -> Option<Polytope<'a, R>> {
    let (r, top, bottom) = (r.get(), top.get(), bottom.get());
    if !(r > 0.0 && top > 0.0 && bottom > 0.0 && (r + top + bottom).is_finite()) {
        return None;
    }
    store.bipyramid(3 + n as usize % (ring - 2), r, top, bottom);
    store.polytope()
}

/// The shape of `prim` under `w`, bipyramid rings drawn from `3..ring + 1`
/// (`None` when a constructor rejects it).
pub fn build<'a, R: Real>(
    prim: &Prim,
    w: &Wrap,
    ring: usize,
    store: &'a mut PolyStore<R>,
) -> Option<Box<dyn Shape<R> + 'a>> {
    let l = |x: &Num| R::lit(x.get());
    match prim {
        Prim::Sphere(r) => wrap(Sphere::new(l(r)).ok()?, w),
        Prim::Cuboid(h) => wrap(Cuboid::new(v3(h)).ok()?, w),
        Prim::Capsule(h, r) => wrap(Capsule::new(l(h), l(r)).ok()?, w),
        Prim::Cylinder(h, r) => wrap(Cylinder::new(l(h), l(r)).ok()?, w),
        Prim::Cone(h, r) => wrap(Cone::new(l(h), l(r)).ok()?, w),
        Prim::Ellipsoid(a) => wrap(Ellipsoid::new(s3(a)).ok()?, w),
        Prim::Bipyramid { n, r, top, bottom } => wrap(bipyramid(store, ring, *n, *r, *top, *bottom)?, w),
        Prim::Superquadric(a, e1, e2) => wrap(Superquadric::new(s3(a), R::lit(e1.get()), R::lit(e2.get())).ok()?, w),
    }
}

/// The shape of `body` (`None` when a constructor rejects it).
pub fn shape<'a, R: Real>(body: &Body, store: &'a mut PolyStore<R>) -> Option<Box<dyn Shape<R> + 'a>> {
    build(&body.prim, &body.wrap, MAX_RING, store)
}

pub fn s2<R: Real>(n: &[Size; 2]) -> Vector2<R> {
    Vector2::new(R::lit(n[0].get()), R::lit(n[1].get()))
}

/// A 2D pose: translation and angle from the input.
pub fn pose2<R: Real>(t: &[Num; 2], angle: &Num) -> Pose2<R> {
    Pose2::from_parts(Translation2::new(R::lit(t[0].get()), R::lit(t[1].get())), Rotation2::new(R::lit(angle.get())))
}

/// The extent of a 2D body from the origin: `|t| + ` its largest semi-axis.
pub fn extent2<R: Real>(t: &Vector2<R>, axes: &Vector2<R>) -> f64 {
    t.map(|x| x.to_f64()).norm() + axes.map(|x| x.to_f64()).max()
}

pub fn rotation<R: Real>(rot: &Rot) -> Rotation3<R> {
    match rot {
        Rot::Identity => Rotation3::identity(),
        Rot::AxisAngle(v) => Rotation3::new(v3(v)),
        Rot::Quat(q) => {
            let q = Quaternion::new(R::lit(q[0].get()), R::lit(q[1].get()), R::lit(q[2].get()), R::lit(q[3].get()));
            UnitQuaternion::new_normalize(q).to_rotation_matrix()
        }
    }
}

pub fn pose_of<R: Real>(translation: &[Num; 3], rot: &Rot) -> Pose<R> {
    Pose::from_parts(Translation3::from(v3::<R>(translation)), rotation(rot))
}

pub fn pose<R: Real>(body: &Body<impl Sized, impl Sized>) -> Pose<R> {
    pose_of(&body.translation, &body.rotation)
}

pub fn rot_small(rot: &Rot) -> bool {
    match rot {
        Rot::Identity => true,
        Rot::AxisAngle(v) => v.iter().all(|x| x.small()),
        // A quaternion near zero normalises badly: well conditioned only
        // when it is clearly away from zero.
        Rot::Quat(q) => q.iter().all(|x| x.small()) && q.iter().map(|x| x.get() * x.get()).sum::<f64>() > 0.25,
    }
}

/// Every number of the body is fixed point, no linear map (its condition
/// number is arbitrary), no extreme exponent, and sizes not below 1/16: the
/// inputs for which tolerance bands in units of `tolerance · scale` are
/// meaningful.
pub fn well_conditioned(body: &Body) -> bool {
    let prim = match &body.prim {
        Prim::Sphere(r) => r.get() >= 0.0625,
        Prim::Cuboid(h) => h.iter().all(|x| x.get() >= 0.0625),
        Prim::Capsule(h, r) | Prim::Cylinder(h, r) | Prim::Cone(h, r) => h.get() >= 0.0625 && r.get() >= 0.0625,
        Prim::Ellipsoid(a) => a.iter().all(|x| x.finite_kind() && x.get() >= 0.0625 && x.get() <= 128.0),
        Prim::Bipyramid { r, top, bottom, .. } => [r, top, bottom].iter().all(|x| x.small() && x.get() >= 0.0625),
        Prim::Superquadric(a, e1, e2) => {
            a.iter().all(|x| x.finite_kind() && x.get() >= 0.0625 && x.get() <= 128.0) && e1.mid() && e2.mid()
        }
    };
    let wrap = match &body.wrap {
        Wrap::None => true,
        Wrap::Rounded(r) => r.small(),
        Wrap::Linear(_) => false,
    };
    prim && wrap && body.translation.iter().all(|x| x.small()) && rot_small(&body.rotation)
}

/// The size of a placed pair: the largest bounding-sphere extent from the
/// origin (`None` when not finite).
pub fn scale_of<R: Real>(a: &(impl Bounded<R> + ?Sized), b: &(impl Bounded<R> + ?Sized)) -> Option<f64> {
    let (ca, ra) = a.bounding_sphere();
    let (cb, rb) = b.bounding_sphere();
    let s =
        (ca.coords.map(|x| x.to_f64()).norm() + ra.to_f64()).max(cb.coords.map(|x| x.to_f64()).norm() + rb.to_f64());
    s.is_finite().then_some(s)
}

/// The tolerance band of the cross-family flag oracles: a certified lower
/// bound on the distance (or depth) below this is "touching within
/// tolerance" for every family (`tolerance · scale` is each method's own
/// contact threshold; the rest is rounding of support points and poses).
pub fn slack<R: Real>(tolerance: R, scale: f64) -> f64 {
    (8.0 * tolerance.to_f64() + 8192.0 * R::EPSILON.to_f64()) * scale
}

pub fn finite3<R: Real>(v: &Vector3<R>) -> bool {
    v.iter().all(|x| x.to_f64().is_finite())
}

pub fn finite_p<R: Real>(p: &Point3<R>) -> bool {
    finite3(&p.coords)
}

/// A budget from the input: the cap as given, the tolerance when it lies in
/// `(16ε, 0.01)`, else the default. Within that range `slack` (in units of
/// `tolerance · scale`) describes every family's contact threshold; below
/// it the tolerance is under the rounding of a support value. Tolerances
/// down to the smallest positive number are `gjk_distance`'s.
pub fn budget<R: Real>(max_iterations: u8, tolerance: Option<Num>) -> Budget<R> {
    let mut budget = Budget::<R>::default();
    budget.max_iterations = max_iterations as u32;
    if let Some(t) = tolerance.map(|t| R::lit(t.get())) {
        if t.finite() && t > R::EPSILON * R::lit(16.0) && t < R::lit(0.01) {
            budget.tolerance = t;
        }
    }
    budget
}

/// Every entry of the pose is finite.
pub fn finite_pose<R: Real>(p: &Pose<R>) -> bool {
    p.rotation.matrix().iter().chain(p.translation.vector.iter()).all(|x| x.to_f64().is_finite())
}

/// A pose the oracles can reason about: finite, its rotation within 1e-4 of
/// orthonormal. `Placed::new` re-orthonormalises what it is given, while
/// the `minkowski` checkers take a pose as it is; far from a rotation (a
/// raw quaternion whose norm overflows normalises to the zero matrix) the
/// bodies the entry points see differ. Only the no-panic and
/// well-formedness oracles apply to such input.
pub fn rigid<R: Real>(p: &Pose<R>) -> bool {
    let m = p.rotation.matrix().map(|x| x.to_f64());
    finite_pose(p) && (m.transpose() * m - Matrix3::identity()).abs().max() < 1e-4
}


encode_enum!(Size { Small(i), Log(k), Raw(x) });
encode_enum!(Exponent { NearZero(k), NearTwo(k), Mid(k), Raw(x) });
encode_enum!(Prim {
    Sphere(r),
    Cuboid(h),
    Capsule(h, r),
    Cylinder(h, r),
    Cone(h, r),
    Ellipsoid(a),
    Bipyramid { n, r, top, bottom },
    Superquadric(a, e1, e2),
});
encode_enum!(Wrap { None, Rounded(r), Linear(m) });
encode_enum!(Rot { Identity, AxisAngle(v), Quat(q) });
encode_struct!(Body<P, W> { prim, wrap, translation, rotation });
encode_struct!(PairIn { f64, a, b, max_iterations, tolerance });
encode_struct!(Motion { translation, axis_angle });

/// Seeds: a number: mostly fixed point of a typical size, sometimes tiny,
/// large, or raw (NaN, ±∞, huge, subnormal).
pub fn seed_num(rng: &mut Rng) -> Num {
    match rng.below(16) {
        0 => Num::Raw(rng.pick(&RAW)),
        1 => Num::Small(rng.range(-3, 3) as i16),
        2 => Num::Small(rng.range(-32768, 32767) as i16),
        3 => Num::Raw(rng.pick(&[1e10, 2.5e-8, 7.0e16, 1e100, 3e-200, 1.7e308])),
        _ => Num::of(rng.pick(&[0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.0625, 8.0])),
    }
}

/// Seeds: a size (see [`Size`]).
pub fn seed_size(rng: &mut Rng) -> Size {
    match rng.below(8) {
        0 => Size::Raw(rng.pick(&RAW)),
        1 | 2 => Size::Log(rng.range(-128, 127) as i8),
        3 => Size::Log(rng.range(-16, 16) as i8),
        _ => Size::from(seed_num(rng)),
    }
}

/// Seeds: an exponent (see [`Exponent`]).
pub fn seed_exponent(rng: &mut Rng) -> Exponent {
    match rng.below(8) {
        0 => Exponent::NearZero(rng.range(0, 255) as u8),
        1 => Exponent::NearTwo(rng.range(0, 255) as u8),
        2 => Exponent::Raw(rng.pick(&[0.0, 1.0, 2.0, 2.5, -1.0, f64::NAN, 0.005])),
        _ => Exponent::Mid(rng.range(0, 65535) as u16),
    }
}

/// Seeds: a primitive of kind `k` (the order of [`Prim`]).
pub fn seed_prim(k: usize, rng: &mut Rng) -> Prim {
    let n = rng.range(0, 255) as u8;
    let mut s = || seed_num(rng);
    match k % 8 {
        0 => Prim::Sphere(s()),
        1 => Prim::Cuboid([s(), s(), s()]),
        2 => Prim::Capsule(s(), s()),
        3 => Prim::Cylinder(s(), s()),
        4 => Prim::Cone(s(), s()),
        5 => Prim::Ellipsoid(core::array::from_fn(|_| seed_size(rng))),
        // Rings of 3 to 64: up to 32 vertices the support map scans, above it climbs.
        6 => Prim::Bipyramid { n, r: s(), top: s(), bottom: s() },
        _ => Prim::Superquadric(core::array::from_fn(|_| seed_size(rng)), seed_exponent(rng), seed_exponent(rng)),
    }
}

/// Seeds: a wrapper, a rotation and a translation within a few units of
/// the origin (pairs of them touch, overlap or stand apart).
pub fn seed_placement(rng: &mut Rng) -> (Wrap, [Num; 3], Rot) {
    let wrap = match rng.below(6) {
        0 => Wrap::Rounded(seed_num(rng)),
        1 => Wrap::Linear(nums([1.0, 0.25, 0.0, 0.0, 1.5, 0.0, 0.125, 0.0, 0.75])),
        2 => Wrap::Linear(core::array::from_fn(|_| seed_num(rng))),
        _ => Wrap::None,
    };
    let translation = core::array::from_fn(|_| seed_num(rng));
    (wrap, translation, seed_rot(rng))
}

/// Seeds: a rotation (see [`Rot`]).
pub fn seed_rot(rng: &mut Rng) -> Rot {
    match rng.below(3) {
        0 => Rot::Identity,
        1 => Rot::AxisAngle(core::array::from_fn(|_| seed_num(rng))),
        _ => Rot::Quat(core::array::from_fn(|_| seed_num(rng))),
    }
}

/// Seeds: a body of primitive kind `k`.
pub fn seed_body(k: usize, rng: &mut Rng) -> Body {
    let prim = seed_prim(k, rng);
    let (wrap, translation, rotation) = seed_placement(rng);
    Body { prim, wrap, translation, rotation }
}

impl Body {
    /// The body scaled by `s` about the origin (every length times `s`, as
    /// a raw number; rotations and linear maps as they are).
    pub fn scaled(&self, s: f64) -> Body {
        let n = |x: &Num| Num::Raw(x.get() * s);
        let z = |x: &Size| Size::Raw(x.get() * s);
        let prim = match &self.prim {
            Prim::Sphere(r) => Prim::Sphere(n(r)),
            Prim::Cuboid(h) => Prim::Cuboid(h.each_ref().map(n)),
            Prim::Capsule(h, r) => Prim::Capsule(n(h), n(r)),
            Prim::Cylinder(h, r) => Prim::Cylinder(n(h), n(r)),
            Prim::Cone(h, r) => Prim::Cone(n(h), n(r)),
            Prim::Ellipsoid(a) => Prim::Ellipsoid(a.each_ref().map(z)),
            Prim::Bipyramid { n: k, r, top, bottom } => Prim::Bipyramid { n: *k, r: n(r), top: n(top), bottom: n(bottom) },
            Prim::Superquadric(a, e1, e2) => Prim::Superquadric(a.each_ref().map(z), *e1, *e2),
        };
        let wrap = match &self.wrap {
            Wrap::None => Wrap::None,
            Wrap::Rounded(r) => Wrap::Rounded(n(r)),
            Wrap::Linear(m) => Wrap::Linear(*m),
        };
        Body { prim, wrap, translation: self.translation.each_ref().map(n), rotation: self.rotation }
    }
}

/// Seeds: every pair of primitive kinds in both precisions, several times
/// over, with budgets from no iteration to the most and tolerances from the
/// default to raw values; deep overlaps, needles and flat bodies; then
/// pairs scaled by 1e-30 … 1e150 (the queries rescale problems beyond the
/// range where their products are finite).
pub fn seed_pairs() -> Vec<PairIn> {
    let mut rng = Rng::new(1);
    let mut out = Vec::new();
    for round in 0..8 {
        for ka in 0..8 {
            for kb in 0..8 {
                let (a, b) = (seed_body(ka, &mut rng), seed_body(kb, &mut rng));
                let max_iterations = if round < 4 { 64 } else { rng.pick(&[0, 1, 2, 3, 5, 8, 16, 32, 128, 255]) };
                let tolerance = match rng.below(4) {
                    0 => Some(seed_num(&mut rng)),
                    _ => None,
                };
                out.push(PairIn { f64: rng.below(2) == 0, a, b, max_iterations, tolerance });
            }
        }
    }
    // Deep overlaps: B at A's centre (EPA's work, the simplex's degenerate
    // cases).
    for k in 0..64 {
        let (a, mut b) = (seed_body(k % 8, &mut rng), seed_body(k / 8, &mut rng));
        b.translation = a.translation;
        out.push(PairIn { f64: k % 2 == 0, a, b, max_iterations: 64, tolerance: None });
    }
    // Needles of aspect 1e3 … 1e9 beside, across and through a ball, and
    // flat bodies (a plate, a flat cone, a pyramid with a flat base).
    for (i, len) in [1e3, 1e5, 1e7, 1e9].into_iter().enumerate() {
        for (j, prim) in [Prim::Capsule, Prim::Cylinder, Prim::Cone].into_iter().enumerate() {
            for (k, y) in [0.0, 1.25, 3.0].into_iter().enumerate() {
                let (wrap, _, rotation) = seed_placement(&mut rng);
                let a = Body { prim: prim(Num::Raw(len), Num::of(0.5)), wrap, translation: nums([0.0, y, 0.0]), rotation };
                let b = seed_body(0, &mut rng);
                let b = Body { prim: Prim::Sphere(Num::of(1.0)), translation: nums([0.5, 0.0, 0.25]), ..b };
                out.push(PairIn { f64: (i + j + k) % 2 == 0, a, b, max_iterations: 64, tolerance: None });
            }
        }
    }
    for (k, prim) in [
        Prim::Cuboid([Num::of(2.0), Num::of(2.0), Num::Raw(1e-6)]),
        Prim::Cone(Num::Raw(1e-5), Num::of(2.0)),
        Prim::Bipyramid { n: 18, r: Num::of(2.0), top: Num::Raw(1e-40), bottom: Num::of(1.0) },
        Prim::Cylinder(Num::Raw(1e-7), Num::of(3.0)),
    ]
    .into_iter()
    .enumerate()
    {
        for kb in 0..8 {
            let a = Body { prim: prim.clone(), ..seed_body(0, &mut rng) };
            out.push(PairIn { f64: (k + kb) % 2 == 0, a, b: seed_body(kb, &mut rng), max_iterations: 64, tolerance: None });
        }
    }
    let scales = [1e-30, 1e-12, 1e-6, 1e6, 1e12, 1e30, 1e-80, 1e80, 1e150];
    for (i, pair) in out.clone().iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let s = scales[i / 3 % scales.len()];
        let f64 = s < 1e-20 || s > 1e20 || pair.f64;
        out.push(PairIn { f64, a: pair.a.scaled(s), b: pair.b.scaled(s), ..*pair });
    }
    out
}
