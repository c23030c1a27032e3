//! `fuzz/regressions/epa/`: EPA (`support::epa`) and the margin path of
//! `contact` on needles and huge flat bodies. Truth: GJK's certificate on
//! the whole bodies, and separating planes from closed-form support
//! functions.

use nalgebra::{Point3, Translation3, Vector3};
use narrowphase::hull::quickhull;
use narrowphase::prelude::*;

use super::at;

/// `crash-a0baeb646973cfb3ee1ad00a77b910c57aea5a04`: f32, a flat cone
/// (half-height 2.26e6, radius 8.59e9) against a rounded ball 2.36e6 above
/// it. At coordinates ~1e10 (f32 ulp ≈ 1e3) a support value can come out
/// below the closest face's distance; the bracket must stay ordered whatever
/// the answer (an inverted one, lower 91776 > upper 91690, is the failure
/// mode).
#[test]
fn f32_epa_bounds_stay_ordered_at_1e10() {
    let s = |i: f32| i / 256.0;
    let a = Placed::new(
        Cone::new(2261634.5_f32, 8589934591.996).unwrap(),
        Pose::from_parts(
            Translation3::new(s(16705.0), s(16705.0), s(24129.0)),
            nalgebra::Rotation3::new(Vector3::repeat(s(24158.0))),
        ),
    );
    let b = Placed::new(
        Rounded::new(Sphere::new(s(24158.0)).unwrap(), Sphere::new(s(16731.0)).unwrap()),
        Pose::from_parts(Translation3::new(s(16705.0), s(16705.0), 2359295.999999992), Default::default()),
    );
    let budget = Budget::new(255, Budget::<f32>::default().tolerance);
    let check = |what: &str, o: &Proximity<f32>| match o {
        // Not inverted; NaN is the non-finite answers' business, not this test's.
        Proximity::Undetermined { bounds, .. } => {
            let nan = bounds.lower.is_nan() || bounds.upper.is_nan();
            assert!(nan || bounds.lower <= bounds.upper, "{what}: {o:?}")
        }
        Proximity::Penetrating(p) => assert!(p.bounds.lower <= p.depth && p.depth <= p.bounds.upper, "{what}: {o:?}"),
        Proximity::Separated(s) => {
            assert!(s.bounds.lower <= s.distance && s.distance <= s.bounds.upper, "{what}: {o:?}")
        }
    };
    check("contact", &narrowphase::support::contact::contact(&a, &b, &budget, &mut GjkWarmStart::default()));
    if let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
        check("epa", &epa::penetration(&a, &b, &simplex, &budget));
    }
}

/// `crash-6370a532cdc57d2fbedfb37b4145a298a2f473ad`: f64, a capsule of
/// half-length 8.3e8 and radius 65.25 (aspect ~1e7) against a small capsule.
/// GJK on the whole bodies certifies a distance ≥ 2.39. Guards `contact`'s
/// margin path (GJK on the segment cores): a core GJK that stalls with
/// bounds straddling the margin sum (signed distance in [−4.37, 21.5]) is
/// not contact; `contact` answers `Penetrating` only when the upper bound is
/// within the tolerance, otherwise `Undetermined` with bounds that contain
/// the truth.
#[test]
fn f64_needle_capsule_contact_is_not_penetrating_when_gjk_certifies_a_gap() {
    use narrowphase::support::contact::contact;
    let s = |k: f64| k / 256.0;
    let rot = nalgebra::Rotation3::new(Vector3::new(s(22359.0), s(22359.0), s(15120.0)));
    let pose = |x: f64, y: f64, z: f64, r| Pose::from_parts(Translation3::new(x, y, z), r);
    let a = Placed::new(
        Capsule::new(830374530.5098039, s(16705.0)).unwrap(),
        pose(s(-16575.0), s(22359.0), s(22359.0), rot),
    );
    let b = Placed::new(
        Capsule::new(s(22359.0), s(59.0)).unwrap(),
        pose(s(15163.0), s(8659.0), s(15163.0), Default::default()),
    );
    let budget = Budget { max_iterations: 229, ..Budget::default() };
    let g = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default());
    let GjkOutcome::Separated(g) = g else { panic!("{g:?}") };
    assert!(g.bounds.lower > 0.0, "{g:?}");
    match contact(&a, &b, &budget, &mut GjkWarmStart::default()) {
        Proximity::Penetrating(p) => panic!("penetrating, GJK certifies ≥ {}: {p:?}", g.bounds.lower),
        Proximity::Separated(s) => assert!(s.bounds.upper >= g.bounds.lower, "{s:?} vs {g:?}"),
        Proximity::Undetermined { bounds, .. } => {
            assert!(bounds.lower <= g.bounds.upper && bounds.upper >= g.bounds.lower, "{bounds:?} vs {g:?}")
        }
    }
}

/// `lead-gjk-contact-16x-tolerance-after-epa-shift`: f64, A = cone
/// (half-height 16.6, radius 59.2) at (0, 59.06, 59.48), B = a bipyramid
/// (ring of 41 points of radius 123, apexes 59.2 up and 27.2 down) at
/// (16.06, 112, 8), identity rotations. `contact` and EPA find the depth;
/// B moved along the normal by the depth's upper bound plus 2e-10 … 1e-7 is
/// apart by closed-form supports (a separating plane). Guards GJK after such
/// a shift: it never answers `Penetrating` for a pair a closed-form plane
/// separates by more than 16× its tolerance.
#[test]
fn f64_gjk_after_an_epa_shift_is_not_intersecting() {
    let s = |i: f64| i / 256.0;
    let (h, r) = (s(4251.0), s(15163.0));
    let ca = Vector3::new(0.0, s(15120.0), s(15227.0));
    let (n, ring, top, bottom) = (41, s(31488.0), s(15163.0), s(6955.0));
    let cb = Vector3::new(s(4112.0), s(28672.0), s(2048.0));
    let mut pts: Vec<Point3<f64>> = (0..n)
        .map(|i| {
            let t = std::f64::consts::TAU * i as f64 / n as f64;
            Point3::new(ring * t.cos(), ring * t.sin(), 0.0)
        })
        .collect();
    pts.push(Point3::new(0.0, 0.0, top));
    pts.push(Point3::new(0.0, 0.0, -bottom));
    let hull = quickhull(&pts).unwrap();
    let poly = hull.polytope().unwrap();
    let cone = Cone::new(h, r).unwrap();
    let a = Placed::new(cone, at::<f64>(ca.x, ca.y, ca.z));
    let b = Placed::new(poly, at::<f64>(cb.x, cb.y, cb.z));
    // Closed-form supports: the cone's apex at +h, base disc of radius r at
    // −h; the bipyramid by its vertices (brute force).
    let h_cone = |d: Vector3<f64>| ca.dot(&d) + (h * d.z).max(r * d.xy().norm() - h * d.z);
    let h_poly = |d: Vector3<f64>, c: Vector3<f64>| pts.iter().map(|p| (p.coords + c).dot(&d)).fold(f64::MIN, f64::max);
    // As the fuzz input: 59 iterations at the precision's limit (the default
    // tolerance when it was found).
    let budget = Budget::<f64> { max_iterations: 59, ..crate::common::precise() };
    let mut checked = 0;
    let answers = [narrowphase::support::contact::contact(&a, &b, &budget, &mut GjkWarmStart::default()), {
        let GjkOutcome::Penetrating(simplex) = gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) else {
            panic!("the pair overlaps")
        };
        epa::penetration(&a, &b, &simplex, &budget)
    }];
    for answer in answers {
        let Proximity::Penetrating(p) = answer else { panic!("{answer:?}") };
        let nrm = p.witness.normal;
        for extra in [2e-10, 8.9e-10, 4e-9, 1e-7] {
            let moved = cb + nrm * (p.bounds.upper + extra);
            // Apart along the normal by the closed forms (a separating plane).
            let apart = -h_cone(nrm) - h_poly(-nrm, moved);
            let shifted = Placed::new(poly, at::<f64>(moved.x, moved.y, moved.z));
            let g = gjk::distance(&a, &shifted, &budget, &mut GjkWarmStart::default());
            if apart > 16.0 * budget.tolerance * 250.0 {
                checked += 1;
                assert!(!matches!(g, GjkOutcome::Penetrating(_)), "apart by {apart:e} (shift + {extra:e}): {g:?}");
            }
        }
    }
    assert!(checked >= 4, "only {checked} shifts are clear of the tolerance");
}
