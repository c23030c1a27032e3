//! Shared input model of the support-map fuzz targets (`gjk_intersect`,
//! `epa`, `mpr`, `superquadric`, `ellipsoid_pair`): the house style of
//! `gjk_distance.rs` (numbers as fixed-point `Small(i16)` or raw `f64` bits,
//! every primitive, a bipyramid polytope over borrowed arrays, wrappers,
//! poses) plus the tolerance band the cross-family oracles use.
//!
//! Included by each target with `#[path = "shared/bodies.rs"] mod bodies;`
//! (not a target itself). Not every target uses every item.
#![allow(dead_code)]

use arbitrary::Arbitrary;
use nalgebra::{Matrix3, Point3, Quaternion, Rotation3, Translation3, UnitQuaternion, Vector3};
use narrowphase::prelude::*;
use narrowphase::shape::Plane;

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Num {
    /// `i / 256`: within ±128, exact in both precisions.
    Small(i16),
    /// Raw bits: NaN, ±inf, subnormal, huge.
    Raw(f64),
}

impl Num {
    pub fn get(self) -> f64 {
        match self {
            Num::Small(i) => i as f64 / 256.0,
            Num::Raw(x) => x,
        }
    }
    pub fn small(self) -> bool {
        matches!(self, Num::Small(_))
    }
}

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

#[derive(Arbitrary, Debug)]
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

#[derive(Arbitrary, Debug)]
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

#[derive(Arbitrary, Debug)]
pub struct Body {
    pub prim: Prim,
    pub wrap: Wrap,
    pub translation: [Num; 3],
    pub rotation: Rot,
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

/// Largest bipyramid ring the store holds (targets map their input into
/// their own smaller range where they want the old corpus to replay).
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

pub fn v3<R: Real>(n: &[Num; 3]) -> Vector3<R> {
    Vector3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

pub fn s3<R: Real>(n: &[Size; 3]) -> Vector3<R> {
    Vector3::new(R::lit(n[0].get()), R::lit(n[1].get()), R::lit(n[2].get()))
}

fn wrap<'a, R: Real, S: Shape<R> + 'a>(shape: S, w: &Wrap) -> Option<Box<dyn Shape<R> + 'a>> {
    Some(match w {
        Wrap::None => Box::new(shape),
        Wrap::Rounded(r) => Box::new(Rounded::new(shape, Sphere::new(R::lit(r.get())).ok()?)),
        Wrap::Linear(m) => {
            let m = Matrix3::from_iterator(m.iter().map(|x| R::lit(x.get())));
            Box::new(Affine::new(shape, m, Vector3::zeros()).ok()?)
        }
    })
}

/// The shape of `body` (`None` when a constructor rejects it).
pub fn shape<'a, R: Real>(body: &Body, store: &'a mut PolyStore<R>) -> Option<Box<dyn Shape<R> + 'a>> {
    let l = |x: &Num| R::lit(x.get());
    match &body.prim {
        Prim::Sphere(r) => wrap(Sphere::new(l(r)).ok()?, &body.wrap),
        Prim::Cuboid(h) => wrap(Cuboid::new(v3(h)).ok()?, &body.wrap),
        Prim::Capsule(h, r) => wrap(Capsule::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Cylinder(h, r) => wrap(Cylinder::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Cone(h, r) => wrap(Cone::new(l(h), l(r)).ok()?, &body.wrap),
        Prim::Ellipsoid(a) => wrap(Ellipsoid::new(s3(a)).ok()?, &body.wrap),
        Prim::Bipyramid { n, r, top, bottom } => {
            let (r, top, bottom) = (r.get(), top.get(), bottom.get());
            if !(r > 0.0 && top > 0.0 && bottom > 0.0 && (r + top + bottom).is_finite()) {
                return None;
            }
            store.bipyramid(3 + *n as usize % (MAX_RING - 2), r, top, bottom);
            wrap(store.polytope()?, &body.wrap)
        }
        Prim::Superquadric(a, e1, e2) => {
            wrap(Superquadric::new(s3(a), R::lit(e1.get()), R::lit(e2.get())).ok()?, &body.wrap)
        }
    }
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

pub fn pose<R: Real>(body: &Body) -> Pose<R> {
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

/// A budget from the input: the cap as given, the tolerance if it is
/// meaningful (finite, above 16 ε: a zero tolerance is a known, open GJK
/// warm-start issue, `fuzz/regressions/gjk_distance/README.md`).
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

/// A pose the oracles can reason about: finite, and its rotation a rotation
/// (`|RᵀR − I| < 1e-4`). Poses are not validated by the library: a raw
/// quaternion whose norm overflows normalises to zero, and the "rotation"
/// then maps every direction to zero (a sphere's support map becomes its
/// centre, while its margin still says ball). Only the no-panic and
/// well-formedness oracles apply to such input.
pub fn rigid<R: Real>(p: &Pose<R>) -> bool {
    let m = p.rotation.matrix().map(|x| x.to_f64());
    let finite = m
        .iter()
        .chain(p.translation.vector.iter().map(|x| x.to_f64()).collect::<Vec<_>>().iter())
        .all(|x| x.is_finite());
    finite && (m.transpose() * m - Matrix3::identity()).abs().max() < 1e-4
}

/// `NARROWPHASE_FUZZ_SKIP_KNOWN=1`: step over the findings recorded in
/// `fuzz/regressions/README.md` that are still open in the kernel, to fuzz
/// past them (default: every oracle is strict).
pub fn skip_known() -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SKIP.get_or_init(|| std::env::var("NARROWPHASE_FUZZ_SKIP_KNOWN").is_ok_and(|v| v == "1"))
}
