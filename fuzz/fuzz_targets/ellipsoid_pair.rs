//! The algebraic ellipsoid–ellipsoid (and ellipse–ellipse) separation test
//! (`minkowski::ellipsoid_pair`, Wang, Wang & Kim 2001), f32 or f64, on
//! arbitrary semi-axes (log-scale sizes: ratios of 1e3 and more; raw bits)
//! and poses, against the exact Minkowski checker (an ellipsoid is the
//! superquadric with ε₁ = ε₂ = 1, an ellipse the superellipse with ε = 1),
//! GJK and EPA.
//!
//! Oracles:
//! - no panic; `Undetermined` only as `NonFinite`; a determined answer has a
//!   finite `λ >= 0` and a `value` that is not NaN, and `touching` only on a
//!   colliding answer; non-finite poses are undetermined;
//! - on well-conditioned inputs (sizes in [1/16, 128], fixed-point poses),
//!   outside the bands (the algebraic band is `touching`; the geometric one
//!   `slack` = `(8·tolerance + 8192·ε)·scale`):
//!   - **vs the Minkowski checker**: its tangent plane of `S ⊕ E` bounds the
//!     distance from below (`n·(c_B − x_eb)`): beyond the band the pair is
//!     not colliding; a converged colliding answer with margin `m` bounds the
//!     depth by `(1 − m)·ρ − |p₀|·residual`: beyond the band not separated;
//!   - **vs GJK / EPA**: GJK's certified distance beyond the band means not
//!     colliding (unless `touching`); EPA's certified depth beyond the band
//!     means not separated;
//!   - **symmetry** (`(a, b)` vs `(b, a)`) and **rigid-motion invariance**:
//!     never `Separated` against a non-touching `Penetrating`.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids, AlgebraicOutcome};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;
use shared::bodies::*;
use shared::seeds::{encode_enum, encode_struct, Rng};

#[derive(Arbitrary, Debug)]
struct In3 {
    a: [Size; 3],
    ta: [Num; 3],
    ra: Rot,
    b: [Size; 3],
    tb: [Num; 3],
    rb: Rot,
    motion: Motion,
}

#[derive(Arbitrary, Debug)]
struct In2 {
    a: [Size; 2],
    ta: [Num; 2],
    ra: Num,
    b: [Size; 2],
    tb: [Num; 2],
    rb: Num,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Three(bool, In3),
    Two(bool, In2),
}

encode_struct!(In3 { a, ta, ra, b, tb, rb, motion });
encode_struct!(In2 { a, ta, ra, b, tb, rb });
encode_enum!(Input { Three(f64, i), Two(f64, i) });

/// Random pairs (3D and 2D, both precisions), two in three well
/// conditioned (the cross-checks' domain): round, thin (ratios up to 1e3)
/// and flat ellipsoids, touching, overlapping and apart.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(5);
    let mut out = Vec::new();
    for i in 0..400 {
        let well = i % 3 != 0;
        let size = |rng: &mut Rng| {
            if well {
                let (small, log) = (Size::Small(rng.range(16, 32767) as i16), Size::Log(rng.range(-38, 67) as i8));
                rng.pick(&[small, log])
            } else {
                seed_size(rng)
            }
        };
        let num = |rng: &mut Rng| if well { Num::Small(rng.range(-8192, 8192) as i16) } else { seed_num(rng) };
        let input = if i % 4 < 3 {
            let rot = |rng: &mut Rng| if well { Rot::AxisAngle([num(rng), num(rng), num(rng)]) } else { seed_rot(rng) };
            let mut small = || rng.range(-127, 127) as i8;
            let motion = Motion { translation: [small(), small(), small()], axis_angle: [small(), small(), small()] };
            Input::Three(
                i % 2 == 0,
                In3 {
                    a: [size(&mut rng), size(&mut rng), size(&mut rng)],
                    ta: [num(&mut rng), num(&mut rng), num(&mut rng)],
                    ra: rot(&mut rng),
                    b: [size(&mut rng), size(&mut rng), size(&mut rng)],
                    tb: [num(&mut rng), num(&mut rng), num(&mut rng)],
                    rb: rot(&mut rng),
                    motion,
                },
            )
        } else {
            Input::Two(
                i % 2 == 0,
                In2 {
                    a: [size(&mut rng), size(&mut rng)],
                    ta: [num(&mut rng), num(&mut rng)],
                    ra: num(&mut rng),
                    b: [size(&mut rng), size(&mut rng)],
                    tb: [num(&mut rng), num(&mut rng)],
                    rb: num(&mut rng),
                },
            )
        };
        out.push(input);
    }
    out
}

fn check<R: Real>(what: &str, o: &AlgebraicOutcome<R>) {
    match o {
        AlgebraicOutcome::Separated(c) | AlgebraicOutcome::Penetrating(c) => {
            let l = c.lambda.to_f64();
            assert!(l.is_finite() && l >= 0.0, "{what}: λ = {l}: {o:?}");
            assert!(!c.value.to_f64().is_nan(), "{what}: NaN value: {o:?}");
            if let AlgebraicOutcome::Separated(c) = o {
                assert!(!c.touching, "{what}: separated and touching: {o:?}");
            }
        }
        AlgebraicOutcome::Undetermined { reason } => {
            assert_eq!(*reason, Undetermined::NonFinite, "{what}: {o:?}");
        }
    }
}

/// `Separated` against a non-touching `Penetrating` is a contradiction.
fn contradicts<R: Real>(x: &AlgebraicOutcome<R>, y: &AlgebraicOutcome<R>) -> bool {
    let hard = |o: &AlgebraicOutcome<R>| match o {
        AlgebraicOutcome::Separated(_) => Some(false),
        AlgebraicOutcome::Penetrating(c) if !c.touching => Some(true),
        _ => None,
    };
    matches!((hard(x), hard(y)), (Some(p), Some(q)) if p != q)
}

fn size_ok(s: &Size) -> bool {
    s.finite_kind() && s.get() >= 0.0625 && s.get() <= 128.0
}

fn three<R: Real>(i: &In3) {
    let (Ok(ea), Ok(eb)) = (Ellipsoid::new(s3::<R>(&i.a)), Ellipsoid::new(s3::<R>(&i.b))) else { return };
    let (pa, pb) = (pose_of::<R>(&i.ta, &i.ra), pose_of::<R>(&i.tb, &i.rb));
    let out = ellipsoids(&ea, &pa, &eb, &pb);
    check("ellipsoids(a, b)", &out);
    let swapped = ellipsoids(&eb, &pb, &ea, &pa);
    check("ellipsoids(b, a)", &swapped);
    if !(finite_pose(&pa) && finite_pose(&pb)) {
        assert!(out.is_penetrating().is_none(), "non-finite pose decided: {out:?}");
        return;
    }
    let well = i.a.iter().chain(&i.b).all(size_ok)
        && i.ta.iter().chain(&i.tb).all(|x| x.small())
        && rot_small(&i.ra)
        && rot_small(&i.rb);
    if !well {
        return;
    }
    assert!(!contradicts(&out, &swapped), "not symmetric:\n{out:?}\n{swapped:?}");
    let m = i.motion.pose::<R>();
    let moved = ellipsoids(&ea, &(m * pa), &eb, &(m * pb));
    check("after a rigid motion", &moved);
    assert!(!contradicts(&out, &moved), "not invariant under a rigid motion:\n{out:?}\n{moved:?}");

    let (a, b) = (Placed::new(ea, pa), Placed::new(eb, pb));
    let Some(scale) = scale_of(&a, &b) else { return };
    let budget = Budget::<R>::default();
    let slack = slack(budget.tolerance, scale);
    let hard_colliding = matches!(out, AlgebraicOutcome::Penetrating(c) if !c.touching);
    let separated = matches!(out, AlgebraicOutcome::Separated(_));

    // The exact checker, A as the superquadric ε = (1, 1).
    let Ok(sq) = Superquadric::new(ea.semi_axes(), R::ONE, R::ONE) else { return };
    let mk = ellipsoid_superquadric(&sq, &pa, &eb, &pb, &budget, Stop::Converged);
    if let Some(h) = mk.hit() {
        let c_b = pb.translation.vector.map(|x| x.to_f64());
        let n = h.normal.map(|x| x.to_f64());
        let gap = n.dot(&(c_b - h.boundary_point.map(|x| x.to_f64())));
        assert!(!(gap > slack && hard_colliding), "tangent plane {gap} from B's centre, but colliding: {out:?} {mk:?}");
        if let MinkowskiOutcome::Penetrating(h) = &mk {
            if h.converged {
                let rho = sq.inradius_lower_bound().to_f64()
                    + eb.semi_axes().iter().fold(f64::INFINITY, |m, x| m.min(x.to_f64()));
                let p0 = (c_b - pa.translation.vector.map(|x| x.to_f64())).norm();
                let depth = (1.0 - h.margin.to_f64()) * rho - p0 * h.residual.to_f64();
                assert!(
                    !(depth > slack && separated),
                    "depth >= {depth} by the checker, but separated: {out:?} {mk:?}"
                );
            }
        }
    }
    match gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
        GjkOutcome::Separated(s) => {
            let lo = s.bounds.lower.to_f64();
            assert!(!(lo > slack && hard_colliding), "GJK separated by >= {lo} (band {slack}), colliding: {out:?}");
        }
        GjkOutcome::Penetrating(_) => {
            // EPA converges slowly on curved bodies: a loose tolerance.
            let loose = Budget::new(64, R::lit(1e-3));
            if let Proximity::Penetrating(p) = contact(&a, &b, &loose, &mut GjkWarmStart::default()) {
                let lo = p.bounds.lower.to_f64();
                let band = shared::bodies::slack(loose.tolerance, scale);
                assert!(!(lo > band && separated), "EPA depth >= {lo} (band {band}), separated: {out:?}");
            }
        }
        GjkOutcome::Undetermined { .. } => {}
    }
}

fn two<R: Real>(i: &In2) {
    let (Ok(ea), Ok(eb)) = (Ellipse::new(s2(&i.a)), Ellipse::new(s2(&i.b))) else { return };
    let (pa, pb) = (pose2(&i.ta, &i.ra), pose2(&i.tb, &i.rb));
    let out = ellipses(&ea, &pa, &eb, &pb);
    check("ellipses(a, b)", &out);
    let swapped = ellipses(&eb, &pb, &ea, &pa);
    check("ellipses(b, a)", &swapped);
    let well = i.a.iter().chain(&i.b).all(size_ok) && i.ta.iter().chain(&i.tb).chain([&i.ra, &i.rb]).all(|x| x.small());
    if !well {
        return;
    }
    assert!(!contradicts(&out, &swapped), "2D not symmetric:\n{out:?}\n{swapped:?}");
    let Ok(se) = Superellipse::new(ea.semi_axes(), R::ONE) else { return };
    let budget = Budget::<R>::default();
    let mk = ellipse_superellipse(&se, &pa, &eb, &pb, &budget, Stop::Converged);
    let scale = extent2(&pa.translation.vector, &ea.semi_axes()).max(extent2(&pb.translation.vector, &eb.semi_axes()));
    let slack = slack(budget.tolerance, scale);
    if let Some(h) = mk.hit() {
        let c_b = pb.translation.vector.map(|x| x.to_f64());
        let gap = h.normal.map(|x| x.to_f64()).dot(&(c_b - h.boundary_point.map(|x| x.to_f64())));
        let hard_colliding =
            matches!(out, AlgebraicOutcome::Penetrating(c) if !c.touching);
        assert!(!(gap > slack && hard_colliding), "2D: tangent line {gap} from B's centre, colliding: {out:?} {mk:?}");
        if let MinkowskiOutcome::Penetrating(h) = &mk {
            if h.converged {
                let rho = se.inradius_lower_bound().to_f64() + eb.semi_axes().map(|x| x.to_f64()).min();
                let p0 = (c_b - pa.translation.vector.map(|x| x.to_f64())).norm();
                let depth = (1.0 - h.margin.to_f64()) * rho - p0 * h.residual.to_f64();
                let separated = matches!(out, AlgebraicOutcome::Separated(_));
                assert!(!(depth > slack && separated), "2D: depth >= {depth}, separated: {out:?} {mk:?}");
            }
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    match &input {
        Input::Three(true, i) => three::<f64>(i),
        Input::Three(false, i) => three::<f32>(i),
        Input::Two(true, i) => two::<f64>(i),
        Input::Two(false, i) => two::<f32>(i),
    }
});
