//! Link-time proof that no panic path survives optimisation in the kernel's
//! queries.
//!
//! The panic handler calls an `extern "C"` function that nothing defines. If
//! any reachable code can still panic after the release build's optimisation
//! (an index out of bounds, an `unwrap`, an overflow check, a slice range…),
//! the handler is linked and the link fails with
//! `undefined symbol: narrowphase_panic_path_survived_optimisation`.
//! Every query runs on opaque (`black_box`) inputs, so nothing is folded away
//! by constant propagation. The binary is only built, never run
//! (`cargo xtask test --only fw-panic-free`).
#![no_std]
#![no_main]

use core::hint::black_box;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug;
use nalgebra::Vector3;
use narrowphase::minkowski::ellipsoid_pair::ellipsoids;
use narrowphase::minkowski::superquadric::ellipsoid_superquadric;
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use narrowphase::support::epa::{DefaultEpa, Epa};
use narrowphase::support::Simplex;

extern "C" {
    /// Defined nowhere: referencing it fails the link.
    fn narrowphase_panic_path_survived_optimisation() -> !;
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: never linked successfully; that is the point.
    unsafe { narrowphase_panic_path_survived_optimisation() }
}

static mut EPA: DefaultEpa<f32> = DefaultEpa::new();

/// Every public query of the kernel on the pair `(a, b)`.
#[inline(never)]
fn queries<A: SupportMap<f32>, B: SupportMap<f32>>(a: &A, b: &B, epa: &mut DefaultEpa<f32>) -> u32 {
    let budget = black_box(Budget::<f32>::default());
    let mut cache = black_box(GjkWarmStart::default());
    let mut n = 0;
    let d = gjk::distance(a, b, &budget, &mut cache);
    n += black_box(d.is_penetrating()).is_some() as u32;
    let i = gjk::intersect(a, b, &budget, &mut cache);
    n += black_box(i.is_penetrating()).is_some() as u32;
    if let GjkOutcome::Penetrating(simplex) = d {
        let simplex: Simplex<f32> = black_box(simplex);
        n += black_box(epa.penetration(a, b, &simplex, &budget)).is_penetrating().is_some() as u32;
        n += black_box(epa::penetration(a, b, &simplex, &budget)).is_penetrating().is_some() as u32;
        let mut small = Epa::<f32, 12, 20>::new();
        n += black_box(small.penetration(a, b, &simplex, &budget)).is_penetrating().is_some() as u32;
    }
    n += black_box(contact(a, b, &budget, &mut cache)).is_penetrating().is_some() as u32;
    n += black_box(mpr::intersect(a, b, &budget)).is_penetrating().is_some() as u32;
    n += black_box(mpr::penetration(a, b, &budget)).is_penetrating().is_some() as u32;
    n
}

/// The ellipsoid method's queries (`narrowphase::sdf`) on `(a, b)`, cold
/// and warm-started.
#[inline(never)]
fn sdf_queries<A: Sdf<f32, 3>, B: Sdf<f32, 3>>(a: &A, b: &B) -> u32 {
    let mut warm = black_box(EllipsoidWarmStart::default());
    let mut n = 0;
    for method in [EllipsoidMethod::<f32>::collision(), EllipsoidMethod::<f32>::distance()] {
        let method = black_box(method);
        n += black_box(method.solve(a, b, &mut warm)).is_penetrating().is_some() as u32;
        warm.moved(black_box(0.01));
        n += black_box(method.solve(a, b, &mut warm)).is_penetrating().is_some() as u32;
    }
    n
}

fn v(x: f32) -> Vector3<f32> {
    black_box(Vector3::new(x, x, x))
}

#[entry]
fn main() -> ! {
    // SAFETY: the only reference to EPA.
    let epa = unsafe { &mut *core::ptr::addr_of_mut!(EPA) };
    let x = black_box(0.25_f32);
    let pose = |t: f32| black_box(Pose::from_parts(nalgebra::Translation3::from(v(t)), Default::default()));
    let mut n = 0;
    let shapes = (
        Sphere::new(x),
        Cuboid::new(v(x)),
        Capsule::new(x, x),
        Cylinder::new(x, x),
        Cone::new(x, x),
        Ellipsoid::new(v(x)),
    );
    if let (Ok(s), Ok(bx), Ok(c), Ok(cy), Ok(co), Ok(e)) = shapes {
        let (ps, pb) = (Placed::new(s, pose(x)), Placed::new(bx, pose(-x)));
        n += queries(&ps, &pb, epa);
        n += queries(&Placed::new(c, pose(x)), &Placed::new(cy, pose(-x)), epa);
        n += queries(&Placed::new(co, pose(x)), &Placed::new(e, pose(-x)), epa);
        n += queries(&MinkowskiSum::new(bx, s), &ConvexHull::new(c, co), epa);
        if let Ok(aff) = Affine::new(e, black_box(nalgebra::Matrix3::identity()), v(x)) {
            n += queries(&aff, &pb, epa);
        }
        // A polytope from opaque arrays: validation and hill climbing.
        if let Ok(p) = Polytope::new(black_box(narrowphase_firmware::poly200::POLY200)) {
            n += queries(&Placed::new(p, pose(x)), &Placed::new(p, pose(-x)), epa);
            n += queries(&Placed::new(p, pose(x)), &ps, epa);
            n += black_box(p.support_index_scan(&v(x))) as u32;
            n += black_box(p.support_index_climb(&v(x), black_box(3))) as u32;
        }
        // The ellipsoid method on SDFs.
        n += sdf_queries(&ps, &pb);
        n += sdf_queries(&Placed::new(cy, pose(x)), &Placed::new(co, pose(-x)));
        n += sdf_queries(&Placed::new(e, pose(x)), &MinkowskiSum::new(bx, s));
        if let Ok(p) = Polytope::new(black_box(narrowphase_firmware::poly200::POLY200)) {
            n += sdf_queries(&Placed::new(p, pose(x)), &pb);
        }
        // The closed-form Minkowski checkers.
        if let Ok(sq) = Superquadric::new(v(x), black_box(0.6), black_box(0.8)) {
            n += sdf_queries(&Placed::new(sq, pose(x)), &pb);
            for mode in [Stop::Decided, Stop::Converged] {
                let o = ellipsoid_superquadric(&sq, &pose(x), &e, &pose(-x), &black_box(Budget::default()), mode);
                n += black_box(o).is_penetrating().is_some() as u32;
            }
        }
        // The algebraic ellipsoid condition (its 4x4 determinant is in closed
        // form since nalgebra's LU kept a panic branch).
        n += black_box(ellipsoids(&e, &pose(x), &e, &pose(-x))).is_penetrating().is_some() as u32;
        // Dynamic dispatch, as a scene of mixed bodies would use it.
        let dyn_a: &dyn SupportMap<f32> = black_box(&ps);
        let dyn_b: &dyn SupportMap<f32> = black_box(&pb);
        n += queries(&dyn_a, &dyn_b, epa);
    }
    black_box(n);
    debug::exit(debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}
