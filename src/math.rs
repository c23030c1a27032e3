//! The math layer: one scalar trait for `f32` and `f64`, vector aliases, and the
//! few scalar kernels the queries need.
//!
//! # Why a trait and not a compile-time alias
//! Cargo unifies features across a dependency graph, so an `f64` *feature* would
//! silently switch every other user of the crate in the same firmware image.
//! A generic [`Real`] keeps both precisions available side by side and keeps
//! features additive. Everything in the kernel is generic over `R: Real`.
//!
//! # Square root
//! [`Real::sqrt`] is the only square root the kernel calls, and it is correctly
//! rounded on every target, so host tests and the MCU compute the same bits:
//! - `thumbv7em-none-eabihf` (and every other hard-float Arm target): the FPU's
//!   `vsqrt.f32` through `core::arch::asm!` — one instruction instead of the
//!   ~100 integer instructions `libm::sqrtf` compiles to there;
//! - x86 and x86-64 built with AVX (`-C target-cpu=native` on most hosts, or
//!   `x86-64-v3`): the `sqrtss`/`sqrtsd` intrinsics, which the compiler
//!   encodes as `vsqrtss`/`vsqrtsd`. `libm` takes the legacy SSE instruction
//!   through inline assembly, and a legacy SSE instruction among AVX code
//!   stalls the x86 cores that track the AVX registers' upper halves: GJK on
//!   ellipsoids ran 4.4 times slower. Without AVX, `libm`'s instruction is
//!   the same one the intrinsic would give (and the code layout the one the
//!   benchmarks were measured with);
//! - everywhere else, and for `f64` on single-precision FPUs: `libm::sqrt{f,}`,
//!   which is IEEE correctly rounded like the hardware instruction.
//!
//! micromath's approximate square root is deliberately not used: it differs
//! from the exact value by percents (√169 → 13.28), and std's inherent `sqrt`
//! silently takes priority over it on host builds, so host tests would no
//! longer describe what the MCU computes.
//!
//! Do not call nalgebra's `norm()`/`normalize()` in kernel code: they go
//! through simba's `ComplexField::sqrt`, which is `libm` on every target.
//! Use [`norm`] and [`normalize`] from this module.

use nalgebra::{Matrix3, Point3, RealField, SVector, Vector3};

/// 3D vector.
pub type Vec3<R> = Vector3<R>;
/// 3D point.
pub type Pt3<R> = Point3<R>;
/// 3×3 matrix.
pub type Mat3<R> = Matrix3<R>;
/// A rigid pose: rotation matrix and translation (`x_world = R·x + t`).
///
/// A rotation matrix rather than a quaternion: a support query rotates twice
/// (`Rᵀ` in, `R` out), 15 multiply–adds each with a matrix.
pub type Pose<R> = nalgebra::IsometryMatrix3<R>;
/// A rigid pose in the plane: rotation matrix and translation.
pub type Pose2<R> = nalgebra::IsometryMatrix2<R>;

/// The scalar type of the kernel: `f32` or `f64`.
///
/// It extends nalgebra's [`RealField`] (so vectors and matrices work) with the
/// constants and kernels whose exact behaviour the kernel depends on.
pub trait Real: RealField + Copy + core::fmt::Debug + Default + 'static {
    /// Machine epsilon.
    const EPSILON: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// 2.
    const TWO: Self;
    /// 0.5.
    const HALF: Self;

    /// Correctly rounded square root (hardware instruction where the target
    /// has one; see the module docs). Negative input gives NaN.
    fn sqrt(self) -> Self;
    /// `true` when neither NaN nor infinite.
    fn finite(self) -> bool;
    /// Conversion from `f64` (rounded to nearest for `f32`).
    fn lit(x: f64) -> Self;
    /// Conversion to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// Absolute value.
    fn abs_(self) -> Self;
    /// The next representable value towards +∞ (identity on NaN and +∞;
    /// `−MAX` from −∞). Interval arithmetic widens every rounded bound by
    /// one step so that the true value stays inside (outward rounding).
    fn next_up_(self) -> Self;
    /// The next representable value towards −∞ (identity on NaN and −∞).
    fn next_down_(self) -> Self;
}

#[inline(always)]
fn sqrt_f32(x: f32) -> f32 {
    #[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
    {
        // Stable Rust only offers the `sreg` register class with the `vfp2`
        // feature (double precision), which Cortex-M4F lacks, so the value
        // travels through a core register and `s0` is saved and restored
        // inside the block: 5 instructions around the 14-cycle `vsqrt.f32`.
        let y: u32;
        // SAFETY: hard-float Arm ABIs guarantee an FPU with `vsqrt.f32`;
        // the block touches only its operands and `s0`, which it restores;
        // no memory, no stack, no flags.
        unsafe {
            core::arch::asm!(
                "vmov {save}, s0",
                "vmov s0, {x}",
                "vsqrt.f32 s0, s0",
                "vmov {y}, s0",
                "vmov s0, {save}",
                x = in(reg) x.to_bits(),
                y = lateout(reg) y,
                save = out(reg) _,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        f32::from_bits(y)
    }
    #[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "avx"))]
    {
        x86_sqrt::f32(x)
    }
    #[cfg(not(any(
        all(target_arch = "arm", target_abi = "eabihf"),
        all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "avx")
    )))]
    {
        libm::sqrtf(x)
    }
}

#[inline(always)]
fn sqrt_f64(x: f64) -> f64 {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "avx"))]
    {
        x86_sqrt::f64(x)
    }
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "avx")))]
    {
        libm::sqrt(x)
    }
}

/// Square roots through the SSE2 intrinsics, which the compiler encodes as
/// `vsqrtss`/`vsqrtsd` where AVX is enabled (see the module docs). Built on
/// every x86 target with SSE2, so that the tests check them on any x86
/// host; [`Real::sqrt`] takes them where AVX is enabled.
#[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "sse2"))]
#[cfg_attr(not(target_feature = "avx"), allow(dead_code))]
mod x86_sqrt {
    #[cfg(target_arch = "x86")]
    use core::arch::x86 as arch;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64 as arch;

    #[inline(always)]
    pub(super) fn f32(x: f32) -> f32 {
        // SAFETY: SSE2 is enabled at compile time (the module's `cfg`).
        #[allow(unused_unsafe)]
        unsafe {
            arch::_mm_cvtss_f32(arch::_mm_sqrt_ss(arch::_mm_set_ss(x)))
        }
    }

    #[inline(always)]
    pub(super) fn f64(x: f64) -> f64 {
        // SAFETY: SSE2 is enabled at compile time (the module's `cfg`).
        #[allow(unused_unsafe)]
        unsafe {
            let v = arch::_mm_set_sd(x);
            arch::_mm_cvtsd_f64(arch::_mm_sqrt_sd(v, v))
        }
    }
}

macro_rules! impl_real {
    ($t:ty, $sqrt:expr) => {
        impl Real for $t {
            const EPSILON: Self = <$t>::EPSILON;
            const MAX: Self = <$t>::MAX;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            const INFINITY: Self = <$t>::INFINITY;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            #[inline(always)]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline(always)]
            fn finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn lit(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn abs_(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn next_up_(self) -> Self {
                // The bit patterns of finite floats of one sign are ordered
                // like their values: one step up is +1 on a positive value,
                // −1 on a negative one; both zeros step to the smallest
                // positive subnormal.
                if self.is_nan() || self == <$t>::INFINITY {
                    return self;
                }
                if self == 0.0 {
                    return <$t>::from_bits(1);
                }
                let bits = self.to_bits();
                <$t>::from_bits(if self > 0.0 { bits + 1 } else { bits - 1 })
            }
            #[inline]
            fn next_down_(self) -> Self {
                -(-self).next_up_()
            }
        }
    };
}

impl_real!(f32, sqrt_f32);
impl_real!(f64, sqrt_f64);

/// Euclidean length with the kernel's square root (any dimension).
///
/// The sum of squares overflows for components above `sqrt(MAX)` (≈1.8e19
/// in f32) and underflows below `sqrt(MIN_POSITIVE)`; then the vector is
/// scaled by its largest component first, so the length is right for every
/// finite vector. The common case costs one extra comparison.
#[inline(always)]
pub fn norm<R: Real, const D: usize>(v: &SVector<R, D>) -> R {
    let d = v.dot(v);
    if d.finite() && d >= R::MIN_POSITIVE {
        Real::sqrt(d)
    } else {
        norm_scaled(v)
    }
}

/// The largest `|vᵢ|`, NaN components skipped (the scale of the fallbacks
/// of [`norm`] and [`normalize`]).
#[inline]
fn largest_abs<R: Real, const D: usize>(v: &SVector<R, D>) -> R {
    v.iter().fold(R::ZERO, |m, c| max(m, c.abs_()))
}

#[cold]
#[inline(never)]
fn norm_scaled<R: Real, const D: usize>(v: &SVector<R, D>) -> R {
    let m = largest_abs(v);
    if !(m > R::ZERO) || !m.finite() {
        // Zero, NaN (m stays 0 or NaN is skipped by `max`) or infinite.
        return if v.iter().all(|c| c.finite()) { R::ZERO } else { v.dot(v) };
    }
    let u = v / m;
    m * Real::sqrt(u.dot(&u))
}

/// `(√s, 1/√s)` for a squared length `s`, or `None` unless `s` and `1/s`
/// are both in the normal range (`MIN_POSITIVE ≤ s ≤ 1/MIN_POSITIVE`: NaN,
/// zero, subnormal and huge lengths are the caller's fallback).
///
/// The reciprocal is `√s · (1/s)`: its division waits for `s` only and runs
/// beside the square root, where `1/√s` would wait for the root (on x86
/// about ten cycles fewer on the chain a closed-form query waits on). It is
/// within two roundings of `1/√s`.
#[inline(always)]
pub(crate) fn root_and_reciprocal<R: Real>(squared: R) -> Option<(R, R)> {
    if !(squared >= R::MIN_POSITIVE && squared <= R::ONE / R::MIN_POSITIVE) {
        return None;
    }
    let root = Real::sqrt(squared);
    let inv_squared = R::ONE / squared;
    Some((root, root * inv_squared))
}

/// `v / |v|`, or `None` when `v` is zero or not finite.
#[inline]
pub fn normalize<R: Real, const D: usize>(v: &SVector<R, D>) -> Option<SVector<R, D>> {
    let d = v.dot(v);
    if d.finite() && d >= R::MIN_POSITIVE {
        return Some(v / Real::sqrt(d));
    }
    // Huge or tiny: divide by the largest component first. (Dividing by
    // `norm(v)` would divide by a subnormal length with a dozen significant
    // bits, and the result would not be unit.)
    let m = largest_abs(v);
    if !(m > R::ZERO) || !m.finite() || !v.iter().all(|c| c.finite()) {
        return None;
    }
    let u = v / m;
    Some(u / Real::sqrt(u.dot(&u)))
}

/// `true` when every component is finite.
#[inline(always)]
pub fn finite_vec<R: Real, const D: usize>(v: &SVector<R, D>) -> bool {
    v.iter().all(|c| c.finite())
}

/// Largest absolute component (a cheap, sqrt-free scale).
#[inline(always)]
pub fn max_abs<R: Real>(v: &Vec3<R>) -> R {
    let (x, y, z) = (v.x.abs_(), v.y.abs_(), v.z.abs_());
    let m = if x > y { x } else { y };
    if m > z {
        m
    } else {
        z
    }
}

/// `+1` for `x >= 0` (and for `+0`/`-0`), `-1` otherwise — the `sgn` of the
/// GJK paper §4.1, which must never return 0 for a support point.
#[inline(always)]
pub fn sgn<R: Real>(x: R) -> R {
    if x < R::ZERO {
        -R::ONE
    } else {
        R::ONE
    }
}

/// `true` for NaN (the only value not equal to itself).
#[inline(always)]
#[allow(clippy::eq_op)]
pub fn is_nan<R: Real>(x: R) -> bool {
    x != x
}

/// NaN-aware maximum: returns `a` when `b` is NaN.
#[inline(always)]
pub fn max<R: Real>(a: R, b: R) -> R {
    if b > a {
        b
    } else {
        a
    }
}

/// NaN-aware minimum: returns `a` when `b` is NaN.
#[inline(always)]
pub fn min<R: Real>(a: R, b: R) -> R {
    if b < a {
        b
    } else {
        a
    }
}

/// Any unit vector orthogonal to `n` (which must be unit length).
#[inline]
pub fn any_orthogonal<R: Real>(n: &Vec3<R>) -> Vec3<R> {
    // Cross with the axis least aligned with n: |result| >= sqrt(2/3).
    let a = n.map(|c| c.abs_());
    let axis = if a.x <= a.y && a.x <= a.z {
        Vec3::x()
    } else if a.y <= a.z {
        Vec3::y()
    } else {
        Vec3::z()
    };
    let c = n.cross(&axis);
    normalize(&c).unwrap_or_else(Vec3::x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqrt_is_correctly_rounded() {
        // Reference: f64 sqrt of the f32 input, rounded once (exact for f32).
        let mut x = 1.0e-30_f32;
        while x < 1.0e30 {
            let reference = (libm::sqrt(x as f64)) as f32;
            assert_eq!(Real::sqrt(x), reference, "sqrt({x})");
            x *= 1.37;
        }
        assert_eq!(Real::sqrt(169.0_f32), 13.0);
        assert!(Real::sqrt(-1.0_f32).is_nan());
        assert_eq!(Real::sqrt(2.0_f64), core::f64::consts::SQRT_2);
    }

    /// `sqrt` against `libm`'s correctly rounded roots, bit for bit:
    /// perfect squares exactly, then a geometric sweep from the subnormals
    /// to near the largest float, zeros, infinities and NaN.
    fn check_sqrt(sqrt64: impl Fn(f64) -> f64, sqrt32: impl Fn(f32) -> f32) {
        for k in 0..2000_u32 {
            let r = f64::from(k) * 0.25;
            assert_eq!(sqrt64(r * r), r, "sqrt({})", r * r);
            assert_eq!(sqrt32((r * r) as f32), r as f32, "sqrtf({})", r * r);
        }
        let mut x = 1.0e-320_f64;
        while x < 1.0e308 {
            assert_eq!(sqrt64(x).to_bits(), libm::sqrt(x).to_bits(), "sqrt({x:e})");
            x *= 1.093;
        }
        let mut x = 1.0e-44_f32;
        while x < 1.0e38 {
            assert_eq!(sqrt32(x).to_bits(), libm::sqrtf(x).to_bits(), "sqrtf({x:e})");
            x *= 1.093;
        }
        assert_eq!(sqrt64(-0.0).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(sqrt32(-0.0).to_bits(), (-0.0_f32).to_bits());
        assert_eq!((sqrt64(f64::INFINITY), sqrt32(f32::INFINITY)), (f64::INFINITY, f32::INFINITY));
        assert!(sqrt64(-1.0).is_nan() && sqrt64(f64::NAN).is_nan());
        assert!(sqrt32(-1.0).is_nan() && sqrt32(f32::NAN).is_nan());
    }

    #[test]
    fn real_sqrt_is_libms_bit_for_bit() {
        check_sqrt(Real::sqrt, Real::sqrt);
    }

    #[cfg(all(any(target_arch = "x86_64", target_arch = "x86"), target_feature = "sse2"))]
    #[test]
    fn sse2_intrinsic_sqrt_is_libms_bit_for_bit() {
        check_sqrt(x86_sqrt::f64, x86_sqrt::f32);
    }

    #[test]
    fn next_up_and_down_step_one_representable_value() {
        // Against the standard library's own stepping (stable since 1.86).
        for x in [1.0_f32, -1.0, 0.0, -0.0, 3.4e38, -3.4e38, 1.0e-40, f32::MAX, f32::MIN_POSITIVE] {
            assert_eq!(x.next_up_().to_bits(), x.next_up().to_bits(), "{x}");
            assert_eq!(x.next_down_().to_bits(), x.next_down().to_bits(), "{x}");
        }
        for x in [1.0_f64, -1.0, 0.0, 1.0e300, -5.0e-324, f64::MAX] {
            assert_eq!(x.next_up_().to_bits(), x.next_up().to_bits(), "{x}");
            assert_eq!(x.next_down_().to_bits(), x.next_down().to_bits(), "{x}");
        }
        assert_eq!(f32::INFINITY.next_up_(), f32::INFINITY);
        assert_eq!(f32::NEG_INFINITY.next_up_(), -f32::MAX);
        assert!(f64::NAN.next_down_().is_nan());
    }

    #[test]
    fn norm_has_no_overflow_or_underflow() {
        let big = Vec3::new(3.0e30_f32, 4.0e30, 0.0);
        assert_eq!(norm(&big), 5.0e30);
        let tiny = Vec3::new(3.0e-30_f32, 4.0e-30, 0.0);
        assert!((norm(&tiny) - 5.0e-30).abs() < 1e-36);
        assert!(normalize(&tiny).is_some());
        let sub = Vec3::new(9.654e-321_f64, 2.277e-320, 0.0);
        assert!((normalize(&sub).unwrap().norm() - 1.0).abs() < 1e-15);
        assert_eq!(norm(&Vec3::<f32>::zeros()), 0.0);
        assert!(norm(&Vec3::new(f32::NAN, 1.0, 0.0)).is_nan());
        assert_eq!(norm(&Vec3::new(f32::INFINITY, 1.0, 0.0)), f32::INFINITY);
    }

    /// Against `1/√s` in `f64` (exact to far below an `f32` rounding), over
    /// the whole accepted range of `f32`; the root is the kernel's own,
    /// correctly rounded.
    #[test]
    fn root_and_reciprocal_is_within_two_roundings() {
        let mut s = f32::MIN_POSITIVE;
        let mut checked = 0;
        while s <= 1.0 / f32::MIN_POSITIVE {
            let (root, inv) = root_and_reciprocal(s).unwrap();
            assert_eq!(root, Real::sqrt(s));
            let truth = 1.0 / libm::sqrt(f64::from(s));
            let ulp = f64::from(f32::EPSILON) * truth;
            assert!((f64::from(inv) - truth).abs() <= 2.0 * ulp, "1/sqrt({s:e}): {inv:e} against {truth:e}");
            s *= 1.0137;
            checked += 1;
        }
        assert!(checked > 12_000, "{checked}");
        for out in [0.0_f32, -1.0, 1.0e-39, f32::NAN, f32::INFINITY, 1.0e38, f32::MAX] {
            assert!(root_and_reciprocal(out).is_none(), "{out:e}");
        }
        assert_eq!(root_and_reciprocal(0.25_f64), Some((0.5, 2.0)));
        assert!(root_and_reciprocal(f64::MIN_POSITIVE / 2.0).is_none());
        assert!(root_and_reciprocal(1.0e308_f64).is_none());
    }

    #[test]
    fn normalize_rejects_zero_and_nan() {
        assert!(normalize(&Vec3::<f32>::zeros()).is_none());
        assert!(normalize(&Vec3::new(f32::NAN, 0.0, 0.0)).is_none());
        let n = normalize(&Vec3::new(3.0_f64, 4.0, 0.0)).unwrap();
        assert!((n - Vec3::new(0.6, 0.8, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn orthogonal_is_orthogonal_unit() {
        for n in [Vec3::x(), Vec3::y(), Vec3::z(), Vec3::new(0.6_f64, 0.0, 0.8)] {
            let o = any_orthogonal(&n);
            assert!(o.dot(&n).abs() < 1e-12);
            assert!((o.norm() - 1.0).abs() < 1e-12);
        }
    }
}
