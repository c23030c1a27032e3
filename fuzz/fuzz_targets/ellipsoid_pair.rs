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

#[path = "shared/bodies.rs"]
mod bodies;

use arbitrary::Arbitrary;
use bodies::*;
use libfuzzer_sys::fuzz_target;
use nalgebra::{Rotation2, Translation2, Vector2};
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids, AlgebraicOutcome};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;
use narrowphase::support::contact::contact;

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
    let finite = [&pa, &pb]
        .iter()
        .all(|p| p.rotation.matrix().iter().chain(p.translation.vector.iter()).all(|x| x.to_f64().is_finite()));
    if !finite {
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
                let band = bodies::slack(loose.tolerance, scale);
                assert!(!(lo > band && separated), "EPA depth >= {lo} (band {band}), separated: {out:?}");
            }
        }
        GjkOutcome::Undetermined { .. } => {}
    }
}

fn two<R: Real>(i: &In2) {
    let v2 = |s: &[Size; 2]| Vector2::new(R::lit(s[0].get()), R::lit(s[1].get()));
    let (Ok(ea), Ok(eb)) = (Ellipse::new(v2(&i.a)), Ellipse::new(v2(&i.b))) else { return };
    let pose = |t: &[Num; 2], a: &Num| {
        Pose2::from_parts(Translation2::new(R::lit(t[0].get()), R::lit(t[1].get())), Rotation2::new(R::lit(a.get())))
    };
    let (pa, pb) = (pose(&i.ta, &i.ra), pose(&i.tb, &i.rb));
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
    let ext = |t: &Vector2<R>, a: &Vector2<R>| t.map(|x| x.to_f64()).norm() + a.map(|x| x.to_f64()).max();
    let scale = ext(&pa.translation.vector, &ea.semi_axes()).max(ext(&pb.translation.vector, &eb.semi_axes()));
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

fuzz_target!(|input: Input| {
    match &input {
        Input::Three(true, i) => three::<f64>(i),
        Input::Three(false, i) => three::<f32>(i),
        Input::Two(true, i) => two::<f64>(i),
        Input::Two(false, i) => two::<f32>(i),
    }
});
