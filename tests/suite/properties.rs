//! Property tests (proptest) of the invariants the fuzz targets check, at
//! larger counts than CI's short fuzz run and on well-conditioned f64 input:
//! symmetry, rigid-motion invariance, certified bounds bracketing closed-form
//! values, and flag agreement between families (GJK, MPR, EPA, the exact
//! Minkowski checker, the algebraic ellipsoid test) outside a tolerance band;
//! 2D variants with the ellipsoid method on 2D SDFs and the ellipse tests.

use nalgebra::{Matrix2, Rotation2, Rotation3, Translation2, Translation3, Vector2, Vector3};
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids, AlgebraicOutcome};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;
use narrowphase::sdf::{BoxN, Transformed};
use narrowphase::support::contact::contact;
use proptest::prelude::*;

/// What the queries need of a body.
trait Body: SupportMap<f64> + Bounded<f64> {}
impl<T: SupportMap<f64> + Bounded<f64>> Body for T {}

#[derive(Clone, Debug)]
enum Prim {
    Sphere(f64),
    Cuboid([f64; 3]),
    Capsule(f64, f64),
    Cylinder(f64, f64),
    Cone(f64, f64),
    Ellipsoid([f64; 3]),
}

impl Prim {
    fn shape(&self) -> Box<dyn Body> {
        let v = |a: &[f64; 3]| Vector3::new(a[0], a[1], a[2]);
        match self {
            Prim::Sphere(r) => Box::new(Sphere::new(*r).unwrap()),
            Prim::Cuboid(h) => Box::new(Cuboid::new(v(h)).unwrap()),
            Prim::Capsule(h, r) => Box::new(Capsule::new(*h, *r).unwrap()),
            Prim::Cylinder(h, r) => Box::new(Cylinder::new(*h, *r).unwrap()),
            Prim::Cone(h, r) => Box::new(Cone::new(*h, *r).unwrap()),
            Prim::Ellipsoid(a) => Box::new(Ellipsoid::new(v(a)).unwrap()),
        }
    }
}

fn size() -> impl Strategy<Value = f64> {
    0.1..2.0f64
}

fn prim() -> impl Strategy<Value = Prim> {
    prop_oneof![
        size().prop_map(Prim::Sphere),
        [size(), size(), size()].prop_map(Prim::Cuboid),
        (size(), size()).prop_map(|(h, r)| Prim::Capsule(h, r)),
        (size(), size()).prop_map(|(h, r)| Prim::Cylinder(h, r)),
        (size(), size()).prop_map(|(h, r)| Prim::Cone(h, r)),
        [size(), size(), size()].prop_map(Prim::Ellipsoid),
    ]
}

fn pose(spread: f64) -> impl Strategy<Value = Pose<f64>> {
    ([-spread..spread, -spread..spread, -spread..spread], [-3.2..3.2f64, -3.2..3.2, -3.2..3.2]).prop_map(|(t, r)| {
        Pose::from_parts(Translation3::new(t[0], t[1], t[2]), Rotation3::new(Vector3::new(r[0], r[1], r[2])))
    })
}

fn scale(a: &dyn Body, b: &dyn Body) -> f64 {
    let (ca, ra) = a.bounding_sphere();
    let (cb, rb) = b.bounding_sphere();
    (ca.coords.norm() + ra).max(cb.coords.norm() + rb)
}

/// The band of "touching within tolerance" for the default f64 budget.
fn band(scale: f64) -> f64 {
    (8.0 * Budget::<f64>::default().tolerance + 8192.0 * f64::EPSILON) * scale
}

fn dist(a: &dyn Body, b: &dyn Body) -> GjkOutcome<f64> {
    gjk::distance(&a, &b, &Budget::default(), &mut GjkWarmStart::default())
}

/// A certified separation beyond the band contradicts contact.
fn gjk_agree(x: &GjkOutcome<f64>, y: &GjkOutcome<f64>, band: f64) -> Result<(), TestCaseError> {
    for (p, q) in [(x, y), (y, x)] {
        if let (GjkOutcome::Separated(s), GjkOutcome::Penetrating(_)) = (p, q) {
            prop_assert!(s.bounds.lower <= band, "{p:?} vs {q:?}");
        }
    }
    Ok(())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(2048))]

    /// GJK distance is symmetric: same flag outside the band, overlapping
    /// certificates, bounds bracket the value.
    #[test]
    fn gjk_distance_is_symmetric(pa in prim(), pb in prim(), xa in pose(3.0), xb in pose(3.0)) {
        let (sa, sb) = (pa.shape(), pb.shape());
        let (a, b) = (Placed::new(&*sa, xa), Placed::new(&*sb, xb));
        let s = scale(&a, &b);
        let (ab, ba) = (dist(&a, &b), dist(&b, &a));
        gjk_agree(&ab, &ba, band(s))?;
        if let (GjkOutcome::Separated(x), GjkOutcome::Separated(y)) = (&ab, &ba) {
            prop_assert!(x.bounds.lower <= x.distance && x.distance <= x.bounds.upper);
            // Both certificates hold the same distance (the distance itself is
            // only as accurate as its certificate: a stalled descent stops
            // with a gap above the tolerance).
            prop_assert!(x.bounds.lower <= y.bounds.upper + band(s) && y.bounds.lower <= x.bounds.upper + band(s), "{x:?} {y:?}");
        }
    }

    /// Moving both bodies by one rigid motion changes neither the flag
    /// (outside the band) nor the certified distance interval.
    #[test]
    fn gjk_is_rigid_motion_invariant(pa in prim(), pb in prim(), xa in pose(3.0), xb in pose(3.0), m in pose(5.0)) {
        let (sa, sb) = (pa.shape(), pb.shape());
        let (a, b) = (Placed::new(&*sa, xa), Placed::new(&*sb, xb));
        let (ma, mb) = (Placed::new(&*sa, m * xa), Placed::new(&*sb, m * xb));
        let s = scale(&a, &b).max(scale(&ma, &mb));
        let (x, y) = (dist(&a, &b), dist(&ma, &mb));
        gjk_agree(&x, &y, band(s))?;
        if let (GjkOutcome::Separated(x), GjkOutcome::Separated(y)) = (&x, &y) {
            prop_assert!(x.bounds.lower <= y.bounds.upper + band(s) && y.bounds.lower <= x.bounds.upper + band(s), "{x:?} {y:?}");
        }
    }

    /// Sphere pairs: GJK's certificate brackets `|c| − r_a − r_b`, the
    /// contact query's depth is `r_a + r_b − |c|` within its bounds.
    #[test]
    fn sphere_pair_bounds_bracket_the_closed_form(ra in size(), rb in size(), xa in pose(2.0), xb in pose(2.0)) {
        let (sa, sb) = (Sphere::new(ra).unwrap(), Sphere::new(rb).unwrap());
        let (a, b) = (Placed::new(sa, xa), Placed::new(sb, xb));
        let truth = (xa.translation.vector - xb.translation.vector).norm() - ra - rb;
        let s = scale(&a, &b);
        match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Separated(x) => {
                prop_assert!(truth > -band(s));
                prop_assert!(x.bounds.lower <= truth + band(s) && truth <= x.bounds.upper + band(s), "{x:?} {truth}");
            }
            Proximity::Penetrating(p) => {
                prop_assert!(truth < band(s));
                let depth = (-truth).max(0.0);
                prop_assert!(p.bounds.lower <= depth + band(s) && depth <= p.bounds.upper + band(s), "{p:?} {truth}");
                prop_assert!((p.witness.normal.norm() - 1.0).abs() < 1e-9);
            }
            other => prop_assert!(false, "{other:?}"),
        }
    }

    /// Axis-aligned box and sphere: the distance is the sphere centre's
    /// distance to the box minus the radius; GJK's certificate brackets it.
    #[test]
    fn box_sphere_bounds_bracket_the_closed_form(h in [size(), size(), size()], r in size(),
                                                 c in [-4.0..4.0f64, -4.0..4.0, -4.0..4.0]) {
        let bx = Cuboid::new(Vector3::new(h[0], h[1], h[2])).unwrap();
        let a = Placed::new(bx, Pose::identity());
        let b = Placed::new(Sphere::new(r).unwrap(), Pose::from_parts(Translation3::new(c[0], c[1], c[2]), Default::default()));
        let outside = Vector3::new((c[0].abs() - h[0]).max(0.0), (c[1].abs() - h[1]).max(0.0), (c[2].abs() - h[2]).max(0.0));
        let truth = outside.norm() - r;
        let s = scale(&a, &b);
        if let GjkOutcome::Separated(x) = dist(&a, &b) {
            prop_assert!(x.bounds.lower <= truth + band(s) && truth <= x.bounds.upper + band(s), "{x:?} {truth}");
        } else {
            prop_assert!(truth <= band(s), "GJK contact at distance {truth}");
        }
    }

    /// Two axis-aligned boxes: EPA's certified depth brackets the smallest
    /// overlap along the axes (polytopes converge exactly).
    #[test]
    fn box_box_epa_brackets_the_closed_form(ha in [size(), size(), size()], hb in [size(), size(), size()],
                                            u in [-0.99..0.99f64, -0.99..0.99, -0.99..0.99]) {
        let c: [f64; 3] = std::array::from_fn(|i| u[i] * (ha[i] + hb[i]));
        let a = Placed::new(Cuboid::new(Vector3::new(ha[0], ha[1], ha[2])).unwrap(), Pose::identity());
        let b = Placed::new(Cuboid::new(Vector3::new(hb[0], hb[1], hb[2])).unwrap(),
            Pose::from_parts(Translation3::new(c[0], c[1], c[2]), Default::default()));
        let overlap = (0..3).map(|i| ha[i] + hb[i] - c[i].abs()).fold(f64::INFINITY, f64::min);
        prop_assume!(overlap > 1e-3);
        let s = scale(&a, &b);
        match contact(&a, &b, &Budget::default(), &mut GjkWarmStart::default()) {
            Proximity::Penetrating(p) => {
                prop_assert!(p.bounds.lower <= overlap + band(s) && overlap <= p.bounds.upper + band(s), "{p:?} {overlap}");
            }
            Proximity::Undetermined { bounds, .. } => {
                prop_assert!(bounds.lower <= -overlap + band(s) && -overlap <= bounds.upper + band(s));
            }
            other => prop_assert!(false, "overlap {overlap}: {other:?}"),
        }
    }

    /// GJK and MPR agree on the flag outside the band.
    #[test]
    fn gjk_and_mpr_flags_agree(pa in prim(), pb in prim(), xa in pose(2.5), xb in pose(2.5)) {
        let (sa, sb) = (pa.shape(), pb.shape());
        let (a, b) = (Placed::new(&*sa, xa), Placed::new(&*sb, xb));
        let band = band(scale(&a, &b));
        let g = dist(&a, &b);
        for m in [mpr::intersect(&a, &b, &Budget::default()), mpr::penetration(&a, &b, &Budget::default())] {
            match (&m, &g) {
                (MprOutcome::Separated { lower_bound, .. }, GjkOutcome::Penetrating(_)) => {
                    prop_assert!(*lower_bound <= band, "{m:?} {g:?}")
                }
                (MprOutcome::Penetrating(_), GjkOutcome::Separated(s)) => prop_assert!(s.bounds.lower <= band, "{m:?} {g:?}"),
                _ => {}
            }
        }
    }
}

/// `Separated` against a non-touching `Penetrating`.
fn algebraic_contradicts(x: &AlgebraicOutcome<f64>, y: Option<bool>) -> bool {
    match (x, y) {
        (AlgebraicOutcome::Separated(_), Some(true)) => true,
        (AlgebraicOutcome::Penetrating(c), Some(false)) => !c.touching,
        _ => false,
    }
}

proptest! {
    #![proptest_config(config(1024))]

    /// Ellipsoids: the algebraic test, the exact Minkowski checker (ε = 1)
    /// and GJK agree outside the band; the algebraic test is symmetric.
    #[test]
    fn ellipsoid_families_agree(a in [size(), size(), size()], b in [size(), size(), size()], xa in pose(2.0), xb in pose(2.0)) {
        let ea = Ellipsoid::new(Vector3::new(a[0], a[1], a[2])).unwrap();
        let eb = Ellipsoid::new(Vector3::new(b[0], b[1], b[2])).unwrap();
        let alg = ellipsoids(&ea, &xa, &eb, &xb);
        let swapped = ellipsoids(&eb, &xb, &ea, &xa);
        prop_assert!(!algebraic_contradicts(&alg, swapped.is_penetrating().filter(|_| !matches!(swapped, AlgebraicOutcome::Penetrating(c) if c.touching))));
        let (pa, pb) = (Placed::new(ea, xa), Placed::new(eb, xb));
        let band = band(scale(&pa, &pb));
        match dist(&pa, &pb) {
            GjkOutcome::Separated(s) if s.bounds.lower > band => prop_assert!(!algebraic_contradicts(&alg, Some(false)), "{alg:?} {s:?}"),
            GjkOutcome::Penetrating(_) => {
                if let Proximity::Penetrating(p) = contact(&pa, &pb, &Budget::new(64, 1e-3), &mut GjkWarmStart::default()) {
                    if p.bounds.lower > 1e-2 * scale(&pa, &pb) {
                        prop_assert!(!algebraic_contradicts(&alg, Some(true)), "{alg:?} {p:?}");
                    }
                }
            }
            _ => {}
        }
        let sq = Superquadric::new(ea.semi_axes(), 1.0, 1.0).unwrap();
        let mk = ellipsoid_superquadric(&sq, &xa, &eb, &xb, &Budget::default(), Stop::Converged);
        if let Some(h) = mk.hit() {
            let gap = h.normal.dot(&(xb.translation.vector - h.boundary_point));
            if gap > band {
                prop_assert!(!algebraic_contradicts(&alg, Some(false)), "plane gap {gap}: {alg:?} {mk:?}");
            }
        }
    }

    /// 2D: ellipses — the algebraic test against the exact checker on the
    /// superellipse with ε = 1, symmetric, invariant under a rigid motion.
    #[test]
    fn ellipse_families_agree_2d(a in [size(), size()], b in [size(), size()],
                                 ta in [-2.0..2.0f64, -2.0..2.0], tb in [-2.0..2.0f64, -2.0..2.0],
                                 ra in -3.2..3.2f64, rb in -3.2..3.2f64, m in (-3.2..3.2f64, [-5.0..5.0f64, -5.0..5.0])) {
        let (ea, eb) = (Ellipse::new(Vector2::new(a[0], a[1])).unwrap(), Ellipse::new(Vector2::new(b[0], b[1])).unwrap());
        let pose = |t: [f64; 2], r: f64| Pose2::from_parts(Translation2::new(t[0], t[1]), Rotation2::new(r));
        let (xa, xb) = (pose(ta, ra), pose(tb, rb));
        let alg = ellipses(&ea, &xa, &eb, &xb);
        let hard = |o: &AlgebraicOutcome<f64>| match o {
            AlgebraicOutcome::Penetrating(c) if c.touching => None,
            o => o.is_penetrating(),
        };
        prop_assert!(!algebraic_contradicts(&alg, hard(&ellipses(&eb, &xb, &ea, &xa))));
        let mm = pose(m.1, m.0);
        prop_assert!(!algebraic_contradicts(&alg, hard(&ellipses(&ea, &(mm * xa), &eb, &(mm * xb)))));
        let se = Superellipse::new(ea.semi_axes(), 1.0).unwrap();
        let mk = ellipse_superellipse(&se, &xa, &eb, &xb, &Budget::default(), Stop::Converged);
        let scale = ta[0].hypot(ta[1]).max(tb[0].hypot(tb[1])) + 2.0;
        if let Some(h) = mk.hit() {
            let gap = h.normal.dot(&(xb.translation.vector - h.boundary_point));
            if gap > band(scale) {
                prop_assert!(!algebraic_contradicts(&alg, Some(false)), "plane gap {gap}: {alg:?} {mk:?}");
            }
            if let MinkowskiOutcome::Penetrating(h) = &mk {
                let rho = se.inradius_lower_bound() + eb.semi_axes().min();
                let p0 = (xb.translation.vector - xa.translation.vector).norm();
                if h.converged && (1.0 - h.margin) * rho - p0 * h.residual > band(scale) {
                    prop_assert!(!algebraic_contradicts(&alg, Some(true)), "{alg:?} {mk:?}");
                }
            }
        }
    }

    /// 2D: the ellipse method on two rotated boxes — symmetric (φ is) and
    /// invariant under a rigid motion of both, the certificate brackets φ.
    #[test]
    fn ellipsoid_method_2d_symmetric_and_invariant(ha in [size(), size()], hb in [size(), size()],
                                                   ta in [-2.0..2.0f64, -2.0..2.0], tb in [-2.0..2.0f64, -2.0..2.0],
                                                   ra in -3.2..3.2f64, rb in -3.2..3.2f64,
                                                   m in (-3.2..3.2f64, [-5.0..5.0f64, -5.0..5.0])) {
        let place = |h: [f64; 2], t: Vector2<f64>, r: f64| {
            let rot: Matrix2<f64> = *Rotation2::new(r).matrix();
            Transformed::new(BoxN::new(Vector2::new(h[0], h[1])).unwrap(), rot, 1.0, t).unwrap()
        };
        let (va, vb) = (Vector2::new(ta[0], ta[1]), Vector2::new(tb[0], tb[1]));
        let (a, b) = (place(ha, va, ra), place(hb, vb, rb));
        let rm = Rotation2::new(m.0);
        let shift = Vector2::new(m.1[0], m.1[1]);
        let (ma, mb) = (place(ha, rm * va + shift, ra + m.0), place(hb, rm * vb + shift, rb + m.0));
        let solve = |x: &dyn narrowphase::sdf::Sdf<f64, 2>, y: &dyn narrowphase::sdf::Sdf<f64, 2>| {
            EllipsoidMethod::distance().solve(x, y, &mut EllipsoidWarmStart::default())
        };
        let outs = [solve(&a, &b), solve(&b, &a), solve(&ma, &mb)];
        let phis: Vec<f64> = outs.iter().filter_map(|o| o.contact().map(|c| c.phi)).collect();
        for o in &outs {
            if let Some(c) = o.contact() {
                prop_assert!(c.bounds.lower <= c.phi + 1e-9 && c.phi <= c.bounds.upper + 1e-9, "{o:?}");
            }
        }
        let tol = 1e-5 * (ta[0].hypot(ta[1]).max(tb[0].hypot(tb[1])) + 3.0);
        for w in phis.windows(2) {
            prop_assert!((w[0] - w[1]).abs() <= tol, "φ differs: {phis:?}");
        }
        let flags: Vec<bool> = outs.iter().filter_map(|o| o.is_penetrating()).collect();
        if phis.iter().all(|p| p.abs() > tol) {
            prop_assert!(flags.windows(2).all(|w| w[0] == w[1]), "{outs:?}");
        }
    }
}
