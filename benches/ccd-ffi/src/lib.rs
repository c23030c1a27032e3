//! Bench-only bindings to libccd 2.1 as packaged by Debian (`libccd-dev`),
//! which is built in double precision (`CCD_DOUBLE`, see `/usr/include/ccd/config.h`).
//!
//! The raw layer mirrors `/usr/include/ccd/ccd.h` exactly; the safe layer takes
//! any [`Convex`] object (a support function and a centre in `f64`) and calls
//! libccd through monomorphised `extern "C"` trampolines, passing the objects
//! as `*const c_void`.
//!
//! `CCD_INIT` is a C macro, so [`Ccd::default`] replicates its defaults:
//! `first_dir = ccdFirstDirDefault`, `max_iterations = ULONG_MAX`,
//! `epa_tolerance = 1e-4`, `mpr_tolerance = 1e-4`, `dist_tolerance = 1e-6`.
//! libccd has no distance query.

use core::ffi::{c_int, c_ulong, c_void};

/// Raw declarations from `ccd/ccd.h` and `ccd/vec3.h` (libccd 2.1, double).
#[allow(non_camel_case_types, missing_docs)]
pub mod sys {
    use super::*;

    /// `ccd_real_t` with `CCD_DOUBLE`.
    pub type ccd_real_t = f64;

    /// `struct _ccd_vec3_t { ccd_real_t v[3]; }`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct ccd_vec3_t {
        pub v: [ccd_real_t; 3],
    }

    /// `void (*)(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec)`.
    pub type ccd_support_fn = Option<unsafe extern "C" fn(*const c_void, *const ccd_vec3_t, *mut ccd_vec3_t)>;
    /// `void (*)(const void *obj1, const void *obj2, ccd_vec3_t *dir)`.
    pub type ccd_first_dir_fn = Option<unsafe extern "C" fn(*const c_void, *const c_void, *mut ccd_vec3_t)>;
    /// `void (*)(const void *obj1, ccd_vec3_t *center)`.
    pub type ccd_center_fn = Option<unsafe extern "C" fn(*const c_void, *mut ccd_vec3_t)>;

    /// `struct _ccd_t`, field for field.
    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct ccd_t {
        pub first_dir: ccd_first_dir_fn,
        pub support1: ccd_support_fn,
        pub support2: ccd_support_fn,
        pub center1: ccd_center_fn,
        pub center2: ccd_center_fn,
        pub max_iterations: c_ulong,
        pub epa_tolerance: ccd_real_t,
        pub mpr_tolerance: ccd_real_t,
        pub dist_tolerance: ccd_real_t,
    }

    extern "C" {
        pub fn ccdFirstDirDefault(o1: *const c_void, o2: *const c_void, dir: *mut ccd_vec3_t);
        /// 1 if the objects intersect, 0 otherwise.
        pub fn ccdGJKIntersect(obj1: *const c_void, obj2: *const c_void, ccd: *const ccd_t) -> c_int;
        /// 0 and the translation that separates intersecting objects (GJK +
        /// EPA), -1 when they do not intersect, -2 on allocation failure.
        pub fn ccdGJKSeparate(
            obj1: *const c_void,
            obj2: *const c_void,
            ccd: *const ccd_t,
            sep: *mut ccd_vec3_t,
        ) -> c_int;
        /// 0 with depth, direction and position (GJK + EPA); -1 when not
        /// intersecting, -2 on allocation failure.
        pub fn ccdGJKPenetration(
            obj1: *const c_void,
            obj2: *const c_void,
            ccd: *const ccd_t,
            depth: *mut ccd_real_t,
            dir: *mut ccd_vec3_t,
            pos: *mut ccd_vec3_t,
        ) -> c_int;
        /// 1 if the objects intersect, 0 otherwise.
        pub fn ccdMPRIntersect(obj1: *const c_void, obj2: *const c_void, ccd: *const ccd_t) -> c_int;
        /// 0 with depth, direction and position; -1 when not intersecting.
        pub fn ccdMPRPenetration(
            obj1: *const c_void,
            obj2: *const c_void,
            ccd: *const ccd_t,
            depth: *mut ccd_real_t,
            dir: *mut ccd_vec3_t,
            pos: *mut ccd_vec3_t,
        ) -> c_int;
    }
}

use sys::*;

/// A convex body as libccd sees it: a support function and an interior point.
pub trait Convex {
    /// The point of the body furthest along `dir` (world frame).
    fn support(&self, dir: [f64; 3]) -> [f64; 3];
    /// A point inside the body (MPR starts from it).
    fn center(&self) -> [f64; 3];
}

/// A [`Convex`] made of two closures.
pub struct FnConvex<S, C> {
    /// Support function.
    pub support: S,
    /// Centre.
    pub center: C,
}

impl<S: Fn([f64; 3]) -> [f64; 3], C: Fn() -> [f64; 3]> Convex for FnConvex<S, C> {
    #[inline]
    fn support(&self, dir: [f64; 3]) -> [f64; 3] {
        (self.support)(dir)
    }
    #[inline]
    fn center(&self) -> [f64; 3] {
        (self.center)()
    }
}

unsafe extern "C" fn support_trampoline<T: Convex>(obj: *const c_void, dir: *const ccd_vec3_t, out: *mut ccd_vec3_t) {
    // SAFETY: libccd passes back the `obj` pointer we gave it, which is a
    // `&T` alive for the duration of the call; `dir`/`out` are valid vectors.
    let (obj, dir) = unsafe { (&*(obj as *const T), (*dir).v) };
    unsafe { (*out).v = obj.support(dir) };
}

unsafe extern "C" fn center_trampoline<T: Convex>(obj: *const c_void, out: *mut ccd_vec3_t) {
    // SAFETY: as for `support_trampoline`.
    let obj = unsafe { &*(obj as *const T) };
    unsafe { (*out).v = obj.center() };
}

/// Depth, direction and position reported by libccd's penetration queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdPenetration {
    /// Penetration depth.
    pub depth: f64,
    /// Unit direction: moving object 2 by `depth · dir` separates the objects.
    pub dir: [f64; 3],
    /// A contact position.
    pub pos: [f64; 3],
}

/// libccd parameters (a safe `ccd_t` without the callbacks, which are filled
/// per call from the object types).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ccd {
    /// `max_iterations`.
    pub max_iterations: c_ulong,
    /// `epa_tolerance`.
    pub epa_tolerance: f64,
    /// `mpr_tolerance`.
    pub mpr_tolerance: f64,
    /// `dist_tolerance`.
    pub dist_tolerance: f64,
}

impl Default for Ccd {
    /// The defaults of the `CCD_INIT` macro.
    fn default() -> Self {
        Self { max_iterations: c_ulong::MAX, epa_tolerance: 1e-4, mpr_tolerance: 1e-4, dist_tolerance: 1e-6 }
    }
}

impl Ccd {
    #[inline]
    fn raw<A: Convex, B: Convex>(&self) -> ccd_t {
        ccd_t {
            first_dir: Some(ccdFirstDirDefault),
            support1: Some(support_trampoline::<A>),
            support2: Some(support_trampoline::<B>),
            center1: Some(center_trampoline::<A>),
            center2: Some(center_trampoline::<B>),
            max_iterations: self.max_iterations,
            epa_tolerance: self.epa_tolerance,
            mpr_tolerance: self.mpr_tolerance,
            dist_tolerance: self.dist_tolerance,
        }
    }

    /// `ccdGJKIntersect`.
    #[inline]
    pub fn gjk_intersect<A: Convex, B: Convex>(&self, a: &A, b: &B) -> bool {
        let ccd = self.raw::<A, B>();
        // SAFETY: the callbacks match the object types; the objects outlive the call.
        unsafe { ccdGJKIntersect(a as *const A as *const c_void, b as *const B as *const c_void, &ccd) == 1 }
    }

    /// `ccdMPRIntersect`.
    #[inline]
    pub fn mpr_intersect<A: Convex, B: Convex>(&self, a: &A, b: &B) -> bool {
        let ccd = self.raw::<A, B>();
        // SAFETY: as above.
        unsafe { ccdMPRIntersect(a as *const A as *const c_void, b as *const B as *const c_void, &ccd) == 1 }
    }

    /// `ccdGJKPenetration` (GJK then EPA); `None` when not intersecting.
    #[inline]
    pub fn gjk_penetration<A: Convex, B: Convex>(&self, a: &A, b: &B) -> Option<CcdPenetration> {
        self.penetration(a, b, ccdGJKPenetration)
    }

    /// `ccdMPRPenetration`; `None` when not intersecting.
    #[inline]
    pub fn mpr_penetration<A: Convex, B: Convex>(&self, a: &A, b: &B) -> Option<CcdPenetration> {
        self.penetration(a, b, ccdMPRPenetration)
    }

    /// `ccdGJKSeparate`: the translation of object 2 that separates
    /// intersecting objects (GJK + EPA); `None` when they do not intersect.
    #[inline]
    pub fn gjk_separate<A: Convex, B: Convex>(&self, a: &A, b: &B) -> Option<[f64; 3]> {
        let ccd = self.raw::<A, B>();
        let mut sep = ccd_vec3_t::default();
        // SAFETY: as above; `sep` is a valid out-pointer.
        let rc =
            unsafe { ccdGJKSeparate(a as *const A as *const c_void, b as *const B as *const c_void, &ccd, &mut sep) };
        (rc == 0).then_some(sep.v)
    }

    #[inline]
    fn penetration<A: Convex, B: Convex>(
        &self,
        a: &A,
        b: &B,
        f: unsafe extern "C" fn(
            *const c_void,
            *const c_void,
            *const ccd_t,
            *mut ccd_real_t,
            *mut ccd_vec3_t,
            *mut ccd_vec3_t,
        ) -> c_int,
    ) -> Option<CcdPenetration> {
        let ccd = self.raw::<A, B>();
        let mut depth = 0.0;
        let mut dir = ccd_vec3_t::default();
        let mut pos = ccd_vec3_t::default();
        // SAFETY: as above; the out-pointers are valid locals.
        let rc = unsafe {
            f(a as *const A as *const c_void, b as *const B as *const c_void, &ccd, &mut depth, &mut dir, &mut pos)
        };
        (rc == 0).then_some(CcdPenetration { depth, dir: dir.v, pos: pos.v })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ball {
        c: [f64; 3],
        r: f64,
    }

    impl Convex for Ball {
        fn support(&self, d: [f64; 3]) -> [f64; 3] {
            let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if n == 0.0 {
                return self.c;
            }
            [self.c[0] + self.r * d[0] / n, self.c[1] + self.r * d[1] / n, self.c[2] + self.r * d[2] / n]
        }
        fn center(&self) -> [f64; 3] {
            self.c
        }
    }

    #[test]
    fn layout_matches_header() {
        // 5 function pointers, unsigned long, 3 doubles on LP64.
        assert_eq!(core::mem::size_of::<ccd_t>(), 5 * 8 + 8 + 3 * 8);
        assert_eq!(core::mem::size_of::<ccd_vec3_t>(), 24);
    }

    #[test]
    fn balls() {
        let ccd = Ccd::default();
        let a = Ball { c: [0.0; 3], r: 1.0 };
        let b = Ball { c: [1.5, 0.0, 0.0], r: 1.0 };
        let far = Ball { c: [2.5, 0.0, 0.0], r: 1.0 };
        assert!(ccd.gjk_intersect(&a, &b));
        assert!(ccd.mpr_intersect(&a, &b));
        assert!(!ccd.gjk_intersect(&a, &far));
        assert!(!ccd.mpr_intersect(&a, &far));
        // libccd's EPA stops on a polytope of the ball: 0.4976 here with the
        // default epa_tolerance (1e-4 is not a bound on the depth error).
        let p = ccd.gjk_penetration(&a, &b).unwrap();
        assert!((p.depth - 0.5).abs() < 1e-2, "{p:?}");
        let p = ccd.mpr_penetration(&a, &b).unwrap();
        assert!((p.depth - 0.5).abs() < 1e-3, "{p:?}");
        assert!(p.dir[0] > 0.99, "{p:?}");
        assert!(ccd.gjk_penetration(&a, &far).is_none());
        assert!(ccd.gjk_separate(&a, &far).is_none());
        let sep = ccd.gjk_separate(&a, &b).unwrap();
        assert!((sep[0] - 0.5).abs() < 1e-2, "{sep:?}");
    }
}
