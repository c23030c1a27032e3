//! Bench-only bindings to coal 3.0 (the C++ collision library, hpp-fcl's
//! successor, which pinocchio uses), double precision, through a small C++
//! shim (`shim/shim.cpp`) that `build.rs` compiles against the installed
//! coal (`pip install libcoal==3.0.3 cmeel-eigen`; see `build.rs` for where
//! it looks).
//!
//! Without coal the crate still builds: [`available`] is `false` and every
//! constructor answers `None`, so callers skip coal's rows.
//!
//! Queries go through coal's per-pair functors `coal::ComputeDistance` and
//! `coal::ComputeCollision`, as pinocchio calls them (one functor per shape
//! pair, kept between queries). A [`Pair`] holds both and its requests:
//! - [`Pair::distance`]: `DistanceRequest` with `enable_signed_distance =
//!   false` (GJK only; overlapping shapes answer 0 or less than GJK's
//!   tolerance);
//! - [`Pair::signed_distance`]: `enable_signed_distance = true` (GJK, then
//!   EPA when GJK finds a collision): minus the penetration depth when the
//!   shapes overlap, with coal's normal (unit, from shape a towards shape b);
//! - [`Pair::collide`]: `CollisionRequest` with `enable_contact = false`
//!   (GJK stops at the first proof either way; no EPA);
//! - [`Pair::distance_warm`]: as `distance`, warm-started from the pair's
//!   previous warm query (`GJKInitialGuess::CachedGuess` and the support-vertex
//!   hints);
//! - [`Pair::collide_within_warm`]: as `collide_within`, warm-started the
//!   same way from the pair's previous warm collision query.
//!
//! The cold queries reset the functor's cached GJK direction and support
//! hints first, so every query starts where a fresh solver (`coal::distance`)
//! starts. Every request keeps coal's defaults otherwise: GJK and EPA
//! tolerance 1e-6, 128 GJK and 64 EPA iterations, the default (Van den
//! Bergen) stopping rule, relative. [`Gjk`] picks the GJK variant.
//!
//! Shape constructors take narrowphase's parameters (half sizes) and convert
//! to coal's, which take full lengths: `Box(x, y, z)` full side lengths,
//! `Capsule(radius, lz)`, `Cylinder(radius, lz)` and `Cone(radius, lz)` the
//! full length along z (base at `-lz/2`, apex at `+lz/2` for the cone),
//! `Ellipsoid(rx, ry, rz)` semi-axes. Axes and origins then coincide with
//! narrowphase's shapes.

use core::ffi::{c_char, c_int, c_void};
use core::marker::PhantomData;
use core::ptr::NonNull;

/// What a bench prints instead of coal's rows when coal is not installed.
pub const SKIPPED: &str =
    "coal not installed (pip install libcoal==3.0.3 cmeel-eigen, then cargo clean --release -p coal-ffi): skipped";

/// Whether coal was found when this crate was built.
pub const fn available() -> bool {
    !cfg!(coal_missing)
}

/// coal's version string (`COAL_VERSION`), or `None` without coal.
pub fn version() -> Option<String> {
    // SAFETY: a static NUL-terminated string (or null from the stub).
    let p = unsafe { sys::npcoal_version() };
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null, NUL-terminated, static.
    Some(unsafe { core::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// The shim's C interface (`shim/shim.cpp`).
#[cfg(not(coal_missing))]
#[allow(missing_docs)]
mod sys {
    use super::*;

    extern "C" {
        pub fn npcoal_version() -> *const c_char;
        pub fn npcoal_box(x: f64, y: f64, z: f64) -> *mut c_void;
        pub fn npcoal_sphere(radius: f64) -> *mut c_void;
        pub fn npcoal_capsule(radius: f64, lz: f64) -> *mut c_void;
        pub fn npcoal_cylinder(radius: f64, lz: f64) -> *mut c_void;
        pub fn npcoal_cone(radius: f64, lz: f64) -> *mut c_void;
        pub fn npcoal_ellipsoid(rx: f64, ry: f64, rz: f64) -> *mut c_void;
        pub fn npcoal_convex(points: *const f64, n_points: u32, triangles: *const u32, n_triangles: u32)
            -> *mut c_void;
        pub fn npcoal_shape_free(shape: *mut c_void);
        pub fn npcoal_pair_new(a: *const c_void, b: *const c_void, variant: c_int) -> *mut c_void;
        pub fn npcoal_pair_free(pair: *mut c_void);
        pub fn npcoal_distance(
            pair: *mut c_void,
            tf_a: *const f64,
            tf_b: *const f64,
            mode: c_int,
            distance: *mut f64,
            normal: *mut f64,
            p1: *mut f64,
            p2: *mut f64,
        ) -> c_int;
        pub fn npcoal_pair_reset_warm(pair: *mut c_void);
        pub fn npcoal_collide(pair: *mut c_void, tf_a: *const f64, tf_b: *const f64) -> c_int;
        pub fn npcoal_collide_margin(
            pair: *mut c_void,
            tf_a: *const f64,
            tf_b: *const f64,
            margin: f64,
            early: c_int,
        ) -> c_int;
        pub fn npcoal_collide_warm(
            pair: *mut c_void,
            tf_a: *const f64,
            tf_b: *const f64,
            margin: f64,
            early: c_int,
        ) -> c_int;
        pub fn npcoal_last_iterations(pair: *const c_void, gjk: *mut u64, epa: *mut u64);
    }
}

/// Without coal: the same functions, answering null or failure.
#[cfg(coal_missing)]
#[allow(missing_docs, clippy::missing_safety_doc, clippy::too_many_arguments)]
mod sys {
    use super::*;
    use core::ptr::null_mut;

    pub unsafe fn npcoal_version() -> *const c_char {
        core::ptr::null()
    }
    pub unsafe fn npcoal_box(_: f64, _: f64, _: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_sphere(_: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_capsule(_: f64, _: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_cylinder(_: f64, _: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_cone(_: f64, _: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_ellipsoid(_: f64, _: f64, _: f64) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_convex(_: *const f64, _: u32, _: *const u32, _: u32) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_shape_free(_: *mut c_void) {}
    pub unsafe fn npcoal_pair_new(_: *const c_void, _: *const c_void, _: c_int) -> *mut c_void {
        null_mut()
    }
    pub unsafe fn npcoal_pair_free(_: *mut c_void) {}
    pub unsafe fn npcoal_distance(
        _: *mut c_void,
        _: *const f64,
        _: *const f64,
        _: c_int,
        _: *mut f64,
        _: *mut f64,
        _: *mut f64,
        _: *mut f64,
    ) -> c_int {
        -1
    }
    pub unsafe fn npcoal_pair_reset_warm(_: *mut c_void) {}
    pub unsafe fn npcoal_collide(_: *mut c_void, _: *const f64, _: *const f64) -> c_int {
        -1
    }
    pub unsafe fn npcoal_collide_warm(_: *mut c_void, _: *const f64, _: *const f64, _: f64, _: c_int) -> c_int {
        -1
    }
    pub unsafe fn npcoal_collide_margin(_: *mut c_void, _: *const f64, _: *const f64, _: f64, _: c_int) -> c_int {
        -1
    }
    pub unsafe fn npcoal_last_iterations(_: *const c_void, gjk: *mut u64, epa: *mut u64) {
        unsafe {
            *gjk = 0;
            *epa = 0;
        }
    }
}

/// A rigid transform as coal's `Transform3s` takes it: the rotation matrix
/// (row-major) and the translation; a point `p` of the shape is at
/// `R·p + t`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Transform([f64; 12]);

impl Transform {
    /// From a rotation matrix given by rows and a translation.
    pub fn new(rotation_rows: [[f64; 3]; 3], translation: [f64; 3]) -> Self {
        let [r0, r1, r2] = rotation_rows;
        Self([
            r0[0],
            r0[1],
            r0[2],
            r1[0],
            r1[1],
            r1[2],
            r2[0],
            r2[1],
            r2[2],
            translation[0],
            translation[1],
            translation[2],
        ])
    }

    /// A translation.
    pub fn translation(t: [f64; 3]) -> Self {
        Self::new([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], t)
    }

    fn as_ptr(&self) -> *const f64 {
        self.0.as_ptr()
    }
}

/// A coal shape (`coal::CollisionGeometry`), freed on drop.
#[derive(Debug)]
pub struct Shape {
    ptr: NonNull<c_void>,
}

impl Drop for Shape {
    fn drop(&mut self) {
        // SAFETY: made by one of the shim's constructors, freed once; pairs
        // borrowing it have ended (lifetime of `Pair`).
        unsafe { sys::npcoal_shape_free(self.ptr.as_ptr()) }
    }
}

impl Shape {
    fn wrap(p: *mut c_void) -> Option<Self> {
        NonNull::new(p).map(|ptr| Self { ptr })
    }

    /// A box of half-extents `half` (coal's `Box` of side lengths `2·half`).
    pub fn cuboid(half: [f64; 3]) -> Option<Self> {
        // SAFETY: plain values in, an owned pointer or null out.
        Self::wrap(unsafe { sys::npcoal_box(2.0 * half[0], 2.0 * half[1], 2.0 * half[2]) })
    }

    /// A ball.
    pub fn sphere(radius: f64) -> Option<Self> {
        // SAFETY: as above.
        Self::wrap(unsafe { sys::npcoal_sphere(radius) })
    }

    /// The segment from `(0,0,-h)` to `(0,0,h)` swept by a ball of `radius`
    /// (coal's `Capsule(radius, 2h)`).
    pub fn capsule(half_length: f64, radius: f64) -> Option<Self> {
        // SAFETY: as above.
        Self::wrap(unsafe { sys::npcoal_capsule(radius, 2.0 * half_length) })
    }

    /// A cylinder along z from `-h` to `h` (coal's `Cylinder(radius, 2h)`).
    pub fn cylinder(half_height: f64, radius: f64) -> Option<Self> {
        // SAFETY: as above.
        Self::wrap(unsafe { sys::npcoal_cylinder(radius, 2.0 * half_height) })
    }

    /// A cone along z, base of `radius` at `-h`, apex at `h` (coal's
    /// `Cone(radius, 2h)`).
    pub fn cone(half_height: f64, radius: f64) -> Option<Self> {
        // SAFETY: as above.
        Self::wrap(unsafe { sys::npcoal_cone(radius, 2.0 * half_height) })
    }

    /// An ellipsoid of semi-axes `semi` along x, y, z.
    pub fn ellipsoid(semi: [f64; 3]) -> Option<Self> {
        // SAFETY: as above.
        Self::wrap(unsafe { sys::npcoal_ellipsoid(semi[0], semi[1], semi[2]) })
    }

    /// A convex polytope (`coal::Convex<Triangle>`): its vertices and
    /// triangles covering its boundary (coal builds the vertex graph of its
    /// hill-climbing support from the triangles' edges). `None` on an index
    /// out of range, more than `u32::MAX` items, or without coal.
    pub fn convex(vertices: &[[f64; 3]], triangles: &[[u32; 3]]) -> Option<Self> {
        let n = u32::try_from(vertices.len()).ok()?;
        let t = u32::try_from(triangles.len()).ok()?;
        if triangles.iter().flatten().any(|&i| i >= n) {
            return None;
        }
        // SAFETY: the arrays are contiguous `[f64; 3]` / `[u32; 3]` of the
        // lengths passed; coal copies them.
        Self::wrap(unsafe { sys::npcoal_convex(vertices.as_ptr().cast(), n, triangles.as_ptr().cast(), t) })
    }
}

/// Triangles of polygon loops, each fanned from its first vertex.
pub fn fan<'a, I: Into<u32> + Copy + 'a>(loops: impl IntoIterator<Item = &'a [I]>) -> Vec<[u32; 3]> {
    let mut out = vec![];
    for l in loops {
        for k in 1..l.len().saturating_sub(1) {
            out.push([l[0].into(), l[k].into(), l[k + 1].into()]);
        }
    }
    out
}

/// coal's GJK variant (`QueryRequest::gjk_variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gjk {
    /// `GJKVariant::DefaultGJK`.
    Default,
    /// `GJKVariant::NesterovAcceleration`.
    Nesterov,
}

/// A signed-distance answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance {
    /// Distance, negative (minus the penetration depth) when overlapping.
    pub distance: f64,
    /// coal's normal: unit, from shape a towards shape b.
    pub normal: [f64; 3],
    /// Witness point on shape a (world frame).
    pub p1: [f64; 3],
    /// Witness point on shape b.
    pub p2: [f64; 3],
}

/// A collision query's status as its answer: 1 colliding, 0 apart, `None`
/// for an exception (or no coal).
fn answer(rc: c_int) -> Option<bool> {
    match rc {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

/// The functors and requests of one shape pair (see the crate docs).
#[derive(Debug)]
pub struct Pair<'a> {
    ptr: NonNull<c_void>,
    _shapes: PhantomData<&'a Shape>,
}

impl Drop for Pair<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `npcoal_pair_new`, freed once.
        unsafe { sys::npcoal_pair_free(self.ptr.as_ptr()) }
    }
}

impl<'a> Pair<'a> {
    /// The pair (a, b) with the given GJK variant; `None` without coal or
    /// when coal has no algorithm for the pair.
    pub fn new(a: &'a Shape, b: &'a Shape, gjk: Gjk) -> Option<Self> {
        let v = match gjk {
            Gjk::Default => 0,
            Gjk::Nesterov => 1,
        };
        // SAFETY: both shapes outlive the pair (`'a`).
        let p = unsafe { sys::npcoal_pair_new(a.ptr.as_ptr(), b.ptr.as_ptr(), v) };
        NonNull::new(p).map(|ptr| Self { ptr, _shapes: PhantomData })
    }

    #[inline]
    fn query(&mut self, ta: &Transform, tb: &Transform, mode: c_int) -> Option<Distance> {
        let mut d = Distance { distance: f64::NAN, normal: [f64::NAN; 3], p1: [f64::NAN; 3], p2: [f64::NAN; 3] };
        // SAFETY: a live pair, 12-double transforms, 1- and 3-double outputs.
        let rc = unsafe {
            sys::npcoal_distance(
                self.ptr.as_ptr(),
                ta.as_ptr(),
                tb.as_ptr(),
                mode,
                &mut d.distance,
                d.normal.as_mut_ptr(),
                d.p1.as_mut_ptr(),
                d.p2.as_mut_ptr(),
            )
        };
        (rc == 0).then_some(d)
    }

    /// GJK distance from cold guesses (`enable_signed_distance = false`).
    #[inline]
    pub fn distance(&mut self, ta: &Transform, tb: &Transform) -> Option<f64> {
        self.query(ta, tb, 0).map(|d| d.distance)
    }

    /// Signed distance from cold guesses: GJK, then EPA on overlap.
    #[inline]
    pub fn signed_distance(&mut self, ta: &Transform, tb: &Transform) -> Option<Distance> {
        self.query(ta, tb, 1)
    }

    /// As [`distance`](Self::distance), warm-started from this pair's
    /// previous `distance_warm` (its GJK direction and support hints).
    #[inline]
    pub fn distance_warm(&mut self, ta: &Transform, tb: &Transform) -> Option<f64> {
        self.query(ta, tb, 2).map(|d| d.distance)
    }

    /// Forget the warm starts: the next [`distance_warm`](Self::distance_warm)
    /// and [`collide_within_warm`](Self::collide_within_warm) start cold.
    pub fn reset_warm(&mut self) {
        // SAFETY: a live pair.
        unsafe { sys::npcoal_pair_reset_warm(self.ptr.as_ptr()) }
    }

    /// Boolean collision from cold guesses (`enable_contact = false`,
    /// coal's default request: GJK runs to the distance; see
    /// [`collide_within`](Self::collide_within) for the early stop).
    #[inline]
    pub fn collide(&mut self, ta: &Transform, tb: &Transform) -> Option<bool> {
        // SAFETY: a live pair and 12-double transforms.
        answer(unsafe { sys::npcoal_collide(self.ptr.as_ptr(), ta.as_ptr(), tb.as_ptr()) })
    }

    /// Whether the shapes are closer than `margin` (`security_margin`, cold
    /// guesses, `enable_contact = false`). `early`: `distance_upper_bound =
    /// margin`, so GJK stops once its lower bound clears the margin (without
    /// it coal's default request runs GJK to the distance).
    #[inline]
    pub fn collide_within(&mut self, ta: &Transform, tb: &Transform, margin: f64, early: bool) -> Option<bool> {
        // SAFETY: a live pair and 12-double transforms.
        let rc = unsafe {
            sys::npcoal_collide_margin(self.ptr.as_ptr(), ta.as_ptr(), tb.as_ptr(), margin, c_int::from(early))
        };
        answer(rc)
    }

    /// As [`collide_within`](Self::collide_within), warm-started from this
    /// pair's previous `collide_within_warm` (its GJK direction and support
    /// hints; [`reset_warm`](Self::reset_warm) forgets them).
    #[inline]
    pub fn collide_within_warm(&mut self, ta: &Transform, tb: &Transform, margin: f64, early: bool) -> Option<bool> {
        // SAFETY: a live pair and 12-double transforms.
        let rc = unsafe {
            sys::npcoal_collide_warm(self.ptr.as_ptr(), ta.as_ptr(), tb.as_ptr(), margin, c_int::from(early))
        };
        answer(rc)
    }

    /// GJK and EPA iterations of the last distance query (EPA 0 when it did
    /// not run).
    pub fn last_iterations(&self) -> (u64, u64) {
        let (mut g, mut e) = (0, 0);
        // SAFETY: a live pair; valid out-pointers.
        unsafe { sys::npcoal_last_iterations(self.ptr.as_ptr(), &mut g, &mut e) };
        (g, e)
    }
}

#[cfg(test)]
mod tests {
    //! Closed-form distances: each checks one of the conversions (half
    //! against full sizes, axes, the cone's apex, row-major rotations).

    use super::*;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() <= 1e-6 * want.abs().max(1.0), "got {got}, want {want}");
    }

    fn dist(a: &Shape, ta: Transform, b: &Shape, tb: Transform) -> f64 {
        let d = Pair::new(a, b, Gjk::Default).unwrap().distance(&ta, &tb).unwrap();
        let n = Pair::new(a, b, Gjk::Nesterov).unwrap().distance(&ta, &tb).unwrap();
        assert!((d - n).abs() <= 2e-6, "default {d} vs Nesterov {n}");
        d
    }

    fn at(x: f64, y: f64, z: f64) -> Transform {
        Transform::translation([x, y, z])
    }

    #[test]
    fn stub_without_coal() {
        if available() {
            assert!(version().is_some_and(|v| v.starts_with("3.")), "{:?}", version());
        } else {
            assert!(Shape::sphere(1.0).is_none() && version().is_none());
            println!("{SKIPPED}");
        }
    }

    #[test]
    fn conventions_match_narrowphase() {
        if !available() {
            println!("{SKIPPED}");
            return;
        }
        let ball = Shape::sphere(0.1).unwrap();
        // Box: half-extents (1, 0.5, 0.25).
        let b = Shape::cuboid([1.0, 0.5, 0.25]).unwrap();
        close(dist(&b, at(0.0, 0.0, 0.0), &ball, at(2.0, 0.0, 0.0)), 0.9);
        close(dist(&b, at(0.0, 0.0, 0.0), &ball, at(0.0, 0.0, 1.0)), 0.65);
        // Rotated a quarter turn about z (rows of R): x extent 0.5.
        let rz = Transform::new([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [0.0; 3]);
        close(dist(&b, rz, &ball, at(2.0, 0.0, 0.0)), 1.4);
        close(dist(&b, rz, &ball, at(0.0, 2.0, 0.0)), 0.9);
        // Capsule: half-length 0.5, radius 0.2, along z.
        let c = Shape::capsule(0.5, 0.2).unwrap();
        close(dist(&c, at(0.0, 0.0, 0.0), &c, at(0.0, 0.0, 2.0)), 0.6);
        close(dist(&c, at(0.0, 0.0, 0.0), &ball, at(0.0, 0.0, 1.0)), 0.2);
        // Cylinder: half-height 0.5, radius 0.3.
        let y = Shape::cylinder(0.5, 0.3).unwrap();
        close(dist(&y, at(0.0, 0.0, 0.0), &ball, at(0.0, 0.0, 1.0)), 0.4);
        close(dist(&y, at(0.0, 0.0, 0.0), &ball, at(1.0, 0.0, 0.0)), 0.6);
        // Cone: half-height 0.5, base radius 0.3 at z = -0.5, apex at +0.5.
        // A ball beside the apex's level, at ρ = 0.3: 0.3·cos α from the
        // slant side, cos α = 1/√(1 + 0.3²) (closer than the base rim would be).
        let k = Shape::cone(0.5, 0.3).unwrap();
        let slant = 0.3 / (1.0 + 0.09_f64).sqrt();
        close(dist(&k, at(0.0, 0.0, 0.0), &ball, at(0.3, 0.0, 0.5)), slant - 0.1);
        close(dist(&k, at(0.0, 0.0, 0.0), &ball, at(0.0, 0.0, -1.0)), 0.4);
        // A quarter turn about x takes the apex to -y: the same ball at
        // R·(0.3, 0, 0.5) = (0.3, -0.5, 0). Transposed, the ball would sit
        // on the base rim.
        let rx = Transform::new([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]], [0.0; 3]);
        close(dist(&k, rx, &ball, at(0.3, -0.5, 0.0)), slant - 0.1);
        // Ellipsoid: semi-axes (1, 0.5, 0.25).
        let e = Shape::ellipsoid([1.0, 0.5, 0.25]).unwrap();
        close(dist(&e, at(0.0, 0.0, 0.0), &ball, at(2.0, 0.0, 0.0)), 0.9);
        close(dist(&e, at(0.0, 0.0, 0.0), &ball, at(0.0, 0.0, 1.0)), 0.65);
        // Convex: the cube [-1, 1]³ from its quads, fanned.
        let v: Vec<[f64; 3]> =
            (0..8).map(|i| [[-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][(i >> 2) & 1]]).collect();
        let quads: [&[u16]; 6] =
            [&[0, 2, 6, 4], &[1, 5, 7, 3], &[0, 4, 5, 1], &[2, 3, 7, 6], &[0, 1, 3, 2], &[4, 6, 7, 5]];
        let t = fan(quads);
        assert_eq!(t.len(), 12);
        let cube = Shape::convex(&v, &t).unwrap();
        close(dist(&cube, at(0.0, 0.0, 0.0), &ball, at(3.0, 0.5, 0.0)), 1.9);
        close(dist(&cube, rz, &cube, at(0.0, 3.0, 0.0)), 1.0);
        assert!(Shape::convex(&v, &[[0, 1, 8]]).is_none());
    }

    #[test]
    fn penetration_and_collision() {
        if !available() {
            println!("{SKIPPED}");
            return;
        }
        let s = Shape::sphere(0.5).unwrap();
        let b = Shape::cuboid([0.5, 0.5, 0.5]).unwrap();
        for gjk in [Gjk::Default, Gjk::Nesterov] {
            let mut p = Pair::new(&b, &s, gjk).unwrap();
            // Overlap 0.2 along +x.
            let d = p.signed_distance(&at(0.0, 0.0, 0.0), &at(0.8, 0.0, 0.0)).unwrap();
            close(d.distance, -0.2);
            assert!((d.normal[0] - 1.0).abs() < 1e-6, "{d:?}");
            assert_eq!(p.collide(&at(0.0, 0.0, 0.0), &at(0.8, 0.0, 0.0)), Some(true));
            assert_eq!(p.collide(&at(0.0, 0.0, 0.0), &at(1.1, 0.0, 0.0)), Some(false));
            // 0.1 apart: within a margin of 0.15, not within 0.05.
            for early in [false, true] {
                assert_eq!(p.collide_within(&at(0.0, 0.0, 0.0), &at(1.1, 0.0, 0.0), 0.15, early), Some(true));
                assert_eq!(p.collide_within(&at(0.0, 0.0, 0.0), &at(1.1, 0.0, 0.0), 0.05, early), Some(false));
                assert_eq!(p.collide_within(&at(0.0, 0.0, 0.0), &at(0.8, 0.0, 0.0), 0.0, early), Some(true));
            }
            close(p.distance(&at(0.0, 0.0, 0.0), &at(1.1, 0.0, 0.0)).unwrap(), 0.1);
            // Warm queries along a path agree with cold ones.
            p.reset_warm();
            for k in 0..10 {
                let tb = at(1.1 + 0.01 * k as f64, 0.05 * k as f64, 0.0);
                let w = p.distance_warm(&at(0.0, 0.0, 0.0), &tb).unwrap();
                let c = p.distance(&at(0.0, 0.0, 0.0), &tb).unwrap();
                assert!((w - c).abs() < 2e-6, "{w} vs {c}");
            }
        }
        // Box–sphere has a closed form in coal; box–ellipsoid runs GJK (and EPA).
        let e = Shape::ellipsoid([0.5, 0.4, 0.3]).unwrap();
        let mut p = Pair::new(&b, &e, Gjk::Default).unwrap();
        close(p.distance(&at(0.0, 0.0, 0.0), &at(1.5, 0.0, 0.0)).unwrap(), 0.5);
        assert!(p.last_iterations().0 > 0 && p.last_iterations().1 == 0, "{:?}", p.last_iterations());
        close(p.signed_distance(&at(0.0, 0.0, 0.0), &at(0.9, 0.0, 0.0)).unwrap().distance, -0.1);
        assert!(p.last_iterations().1 > 0, "{:?}", p.last_iterations());
    }
}
