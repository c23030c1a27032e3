//! The exact ellipsoid–superquadric checker (`minkowski::superquadric`,
//! Algorithm 1 of Ruan et al.) in 3D and its ellipse–superellipse twin in 2D,
//! both modes, f32 or f64, on arbitrary shapes and poses: exponents near 0
//! and 2 (and outside the admissible range), sizes on a log scale (ratios of
//! 1e3 and more), raw `f64` bits (NaN, ±inf, huge).
//!
//! Oracles:
//! - no panic; constructors answer `Ok` or a typed error; the checker never
//!   spends more than `max(cap, 1) + 1` evaluations (no hang);
//! - a determined answer has a finite margin `>= 0`, finite boundary point,
//!   contact point and residual, and a unit normal; `Undetermined` carries a
//!   reason; non-finite poses are `Undetermined::NonFinite`;
//! - **certificates are proofs**: `Decide` and `Margin` never give opposite
//!   *certified* answers;
//! - **the separating plane, checked with the shapes' own support maps**: a
//!   certified separation means `n·c_E − h_E(n) ≥ h_S(n)` for the reported
//!   normal `n` (the tangent plane at the contact point separates), up to the
//!   band `slack`;
//! - **flag agreement with GJK** on the superquadric's support map (3D,
//!   well-conditioned inputs: fixed-point poses, sizes in [1/16, 128],
//!   exponents in [0.05, 1.95]): every hit gives the plane bound
//!   `d ≥ n·(c_E − x_eb)` (the tangent plane of `S ⊕ E` at the boundary
//!   point), so GJK contact contradicts it beyond the band, and GJK's upper
//!   bound lies above it; a converged colliding answer with margin `m` has
//!   depth `≥ (1 − m)·ρ − |p₀|·residual` (`ρ` the inradius bound of
//!   `S ⊕ E`), which contradicts a GJK separation beyond the band.
#![no_main]

#[path = "shared/mod.rs"]
mod shared;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nalgebra::Vector2;
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::minkowski::RayHit;
use narrowphase::prelude::*;
use shared::bodies::*;
use shared::checks::known_reason;
use shared::num::nums;
use shared::seeds::{encode_enum, encode_struct, Rng};

#[derive(Arbitrary, Debug)]
struct In3 {
    sq_axes: [Size; 3],
    e1: Exponent,
    e2: Exponent,
    sq_t: [Num; 3],
    sq_r: Rot,
    e_axes: [Size; 3],
    e_t: [Num; 3],
    e_r: Rot,
}

#[derive(Arbitrary, Debug)]
struct In2 {
    se_axes: [Size; 2],
    e: Exponent,
    se_t: [Num; 2],
    se_angle: Num,
    el_axes: [Size; 2],
    el_t: [Num; 2],
    el_angle: Num,
}

#[derive(Arbitrary, Debug)]
enum Dim {
    Three(In3),
    Two(In2),
}

#[derive(Arbitrary, Debug)]
struct Input {
    f64: bool,
    dim: Dim,
    max_iterations: u8,
    tolerance: Option<Num>,
}

encode_struct!(In3 { sq_axes, e1, e2, sq_t, sq_r, e_axes, e_t, e_r });
encode_struct!(In2 { se_axes, e, se_t, se_angle, el_axes, el_t, el_angle });
encode_enum!(Dim { Three(i), Two(i) });
encode_struct!(Input { f64, dim, max_iterations, tolerance });

/// Random shapes and poses (3D and 2D, both precisions), half of them well
/// conditioned (the GJK cross-check's domain), with budgets.
fn seeds() -> Vec<Input> {
    let mut rng = Rng::new(4);
    let mut out = Vec::new();
    for i in 0..400 {
        let well = i % 2 == 0;
        let size = |rng: &mut Rng| if well { Size::Small(rng.range(16, 8192) as i16) } else { seed_size(rng) };
        let exponent = |rng: &mut Rng| if well { Exponent::Mid(rng.range(0, 65535) as u16) } else { seed_exponent(rng) };
        let num = |rng: &mut Rng| if well { Num::Small(rng.range(-1024, 1024) as i16) } else { seed_num(rng) };
        let dim = if i % 4 < 3 {
            Dim::Three(In3 {
                sq_axes: [size(&mut rng), size(&mut rng), size(&mut rng)],
                e1: exponent(&mut rng),
                e2: exponent(&mut rng),
                sq_t: [num(&mut rng), num(&mut rng), num(&mut rng)],
                sq_r: if well { Rot::AxisAngle(nums([0.3, -0.2, 1.0])) } else { seed_rot(&mut rng) },
                e_axes: [size(&mut rng), size(&mut rng), size(&mut rng)],
                e_t: [num(&mut rng), num(&mut rng), num(&mut rng)],
                e_r: if well { Rot::Identity } else { seed_rot(&mut rng) },
            })
        } else {
            Dim::Two(In2 {
                se_axes: [size(&mut rng), size(&mut rng)],
                e: exponent(&mut rng),
                se_t: [num(&mut rng), num(&mut rng)],
                se_angle: num(&mut rng),
                el_axes: [size(&mut rng), size(&mut rng)],
                el_t: [num(&mut rng), num(&mut rng)],
                el_angle: num(&mut rng),
            })
        };
        let max_iterations = if i % 8 == 7 { rng.pick(&[0, 1, 2, 5, 255]) } else { 64 };
        let tolerance = (i % 6 == 5).then(|| seed_num(&mut rng));
        out.push(Input { f64: i % 3 != 0, dim, max_iterations, tolerance });
    }
    out
}

fn check_hit<R: Real, V: core::fmt::Debug>(
    what: &str,
    o: &MinkowskiOutcome<R, V>,
    cap: u32,
    finite: impl Fn(&V) -> bool,
    norm: impl Fn(&V) -> f64,
) {
    assert!(o.iterations() <= cap.max(1) + 1, "{what}: {} evaluations, cap {cap}: {o:?}", o.iterations());
    match o {
        MinkowskiOutcome::Separated(h) | MinkowskiOutcome::Penetrating(h) => {
            let m = h.margin.to_f64();
            assert!(m.is_finite() && m >= 0.0, "{what}: margin {m}: {o:?}");
            assert!(h.residual.to_f64().is_finite(), "{what}: residual: {o:?}");
            assert!(finite(&h.boundary_point) && finite(&h.contact_point) && finite(&h.normal), "{what}: {o:?}");
            let n = norm(&h.normal);
            assert!((n - 1.0).abs() < 1e-3, "{what}: normal of length {n}: {o:?}");
        }
        MinkowskiOutcome::Undetermined { reason, .. } => known_reason(reason),
    }
}

fn certified<R: Real, V>(o: &MinkowskiOutcome<R, V>) -> Option<bool> {
    o.hit().filter(|h| h.certified).and(o.is_penetrating())
}

fn three<R: Real>(i: &In3, budget: &Budget<R>) {
    let Ok(sq) = Superquadric::new(s3::<R>(&i.sq_axes), R::lit(i.e1.get()), R::lit(i.e2.get())) else { return };
    let Ok(el) = Ellipsoid::new(s3::<R>(&i.e_axes)) else { return };
    let (p1, p2) = (pose_of::<R>(&i.sq_t, &i.sq_r), pose_of::<R>(&i.e_t, &i.e_r));
    let finite = |v: &Vec3<R>| finite3(v);
    let nrm = |v: &Vec3<R>| v.map(|x| x.to_f64()).norm();
    let decide = ellipsoid_superquadric(&sq, &p1, &el, &p2, budget, Stop::Decided);
    check_hit("3D decide", &decide, budget.max_iterations, finite, nrm);
    let margin = ellipsoid_superquadric(&sq, &p1, &el, &p2, budget, Stop::Converged);
    check_hit("3D margin", &margin, budget.max_iterations, finite, nrm);
    if !(finite_pose(&p1) && finite_pose(&p2)) {
        assert!(
            matches!(decide, MinkowskiOutcome::Undetermined { reason: Undetermined::NonFinite, .. }),
            "non-finite pose: {decide:?}"
        );
        return;
    }
    if let (Some(x), Some(y)) = (certified(&decide), certified(&margin)) {
        assert_eq!(x, y, "certified answers disagree:\n{decide:?}\n{margin:?}");
    }
    if !(rigid(&p1) && rigid(&p2)) {
        return;
    }
    let (a, b) = (Placed::new(sq, p1), Placed::new(el, p2));
    let Some(scale) = scale_of(&a, &b) else { return };
    let slack = slack(budget.tolerance, scale);
    // The ellipsoid's support `B²n/|Bn|` loses `ε·aspect` relative accuracy
    // on a needle: the plane check's band grows with the aspect ratio.
    let aspect = |v: Vec3<R>| v.max().to_f64() / v.min().to_f64();
    let plane_band = slack * aspect(el.semi_axes()).max(aspect(sq.semi_axes())).max(1.0);
    let c_e = p2.translation.vector.map(|x| x.to_f64());
    for o in [&decide, &margin] {
        if let MinkowskiOutcome::Separated(h) = o {
            // The tangent plane separates: h_S(n) + h_E(n) <= n·c_E (world).
            let n = h.normal;
            let hs = n.map(|x| x.to_f64()).dot(&a.support(&n).coords.map(|x| x.to_f64()));
            let low_e = n.map(|x| x.to_f64()).dot(&b.support(&-n).coords.map(|x| x.to_f64()));
            assert!(
                hs <= low_e + plane_band,
                "separated, but the plane along {n:?} does not separate: h_S = {hs}, min over E = {low_e} (band {plane_band}): {o:?}"
            );
        }
    }

    let well = i.sq_axes.iter().chain(&i.e_axes).all(|x| x.finite_kind() && x.get() >= 0.0625 && x.get() <= 128.0)
        && i.e1.mid()
        && i.e2.mid()
        && i.sq_t.iter().chain(&i.e_t).all(|x| x.small())
        && rot_small(&i.sq_r)
        && rot_small(&i.e_r);
    if !well {
        return;
    }
    let g = gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default());
    let gslack = shared::bodies::slack(Budget::<R>::default().tolerance.max(budget.tolerance), scale);
    let rho =
        (sq.inradius_lower_bound().to_f64()) + el.semi_axes().iter().fold(f64::INFINITY, |m, x| m.min(x.to_f64()));
    for o in [&decide, &margin] {
        let Some(h) = o.hit() else { continue };
        let plane_gap = plane_bound(h, &c_e);
        match &g {
            GjkOutcome::Penetrating(_) => assert!(
                plane_gap <= gslack,
                "GJK intersecting but the tangent plane of S ⊕ E is {plane_gap} from the centre (band {gslack}): {o:?}"
            ),
            GjkOutcome::Separated(s) => {
                let hi = s.bounds.upper.to_f64();
                assert!(plane_gap <= hi + gslack, "plane bound {plane_gap} above GJK's upper {hi}: {o:?} {s:?}");
                if let MinkowskiOutcome::Penetrating(h) = o {
                    if h.converged {
                        let p0 = (c_e - p1.translation.vector.map(|x| x.to_f64())).norm();
                        let depth = (1.0 - h.margin.to_f64()) * rho - p0 * h.residual.to_f64();
                        let lo = s.bounds.lower.to_f64();
                        assert!(
                            depth <= gslack || lo <= gslack,
                            "colliding with depth >= {depth} but GJK separated by >= {lo} (band {gslack}): {o:?} {s:?}"
                        );
                    }
                }
            }
            GjkOutcome::Undetermined { .. } => {}
        }
    }
}

/// `n·(c_E − x_eb)`: the distance of the ellipsoid's centre beyond the
/// tangent plane of `S ⊕ E` at the boundary point (a lower bound of the
/// distance when positive).
fn plane_bound<R: Real>(h: &RayHit<R, Vec3<R>>, c_e: &nalgebra::Vector3<f64>) -> f64 {
    let n = h.normal.map(|x| x.to_f64());
    n.dot(&(c_e - h.boundary_point.map(|x| x.to_f64())))
}

fn two<R: Real>(i: &In2, budget: &Budget<R>) {
    let Ok(se) = Superellipse::new(s2(&i.se_axes), R::lit(i.e.get())) else { return };
    let Ok(el) = Ellipse::new(s2(&i.el_axes)) else { return };
    let (p1, p2) = (pose2(&i.se_t, &i.se_angle), pose2(&i.el_t, &i.el_angle));
    let finite = |v: &Vector2<R>| v.iter().all(|x| x.to_f64().is_finite());
    let nrm = |v: &Vector2<R>| v.map(|x| x.to_f64()).norm();
    let decide = ellipse_superellipse(&se, &p1, &el, &p2, budget, Stop::Decided);
    check_hit("2D decide", &decide, budget.max_iterations, finite, nrm);
    let margin = ellipse_superellipse(&se, &p1, &el, &p2, budget, Stop::Converged);
    check_hit("2D margin", &margin, budget.max_iterations, finite, nrm);
    if let (Some(x), Some(y)) = (certified(&decide), certified(&margin)) {
        assert_eq!(x, y, "2D certified answers disagree:\n{decide:?}\n{margin:?}");
    }
    let fin = [&p1, &p2]
        .iter()
        .all(|p| p.rotation.matrix().iter().chain(p.translation.vector.iter()).all(|x| x.to_f64().is_finite()));
    if !fin {
        return;
    }
    let scale = extent2(&p1.translation.vector, &se.semi_axes()).max(extent2(&p2.translation.vector, &el.semi_axes()));
    if !scale.is_finite() {
        return;
    }
    let aspect = |v: Vector2<R>| v.max().to_f64() / v.min().to_f64();
    let slack = slack(budget.tolerance, scale) * aspect(el.semi_axes()).max(aspect(se.semi_axes())).max(1.0);
    for o in [&decide, &margin] {
        if let MinkowskiOutcome::Separated(h) = o {
            let n = h.normal;
            let dot = |p: Vector2<R>| n.map(|x| x.to_f64()).dot(&p.map(|x| x.to_f64()));
            let hs = dot(p1.rotation * se.support(&(p1.rotation.inverse() * n)) + p1.translation.vector);
            let low_e = dot(p2.rotation * el.support(&(p2.rotation.inverse() * -n)) + p2.translation.vector);
            assert!(hs <= low_e + slack, "2D separated, plane does not separate: {hs} > {low_e} + {slack}: {o:?}");
        }
    }
}

fuzz_target!(init: shared::seeds::write(seeds), |input: Input| {
    let run = |f64: bool| {
        if f64 {
            let b = budget::<f64>(input.max_iterations, input.tolerance);
            match &input.dim {
                Dim::Three(i) => three::<f64>(i, &b),
                Dim::Two(i) => two::<f64>(i, &b),
            }
        } else {
            let b = budget::<f32>(input.max_iterations, input.tolerance);
            match &input.dim {
                Dim::Three(i) => three::<f32>(i, &b),
                Dim::Two(i) => two::<f32>(i, &b),
            }
        }
    };
    run(input.f64);
});
