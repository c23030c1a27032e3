//! The ellipsoid method against the support family (GJK + EPA, independent
//! code) on 10⁵ random pairs of bodies with exact SDFs: the collision flag
//! must agree outside a thin band around contact; apart, `2φ*` must be the
//! GJK distance; overlapping, the inscribed ball's diameter must not exceed
//! EPA's translational depth (the paper's Fig. 6: it underestimates it).
//! Then polytopes (approximate SDFs, Algorithm 4): the flag is still exact.

use crate::common::*;
use nalgebra::{Point3, Vector3};
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidMethodOutcome, EllipsoidWarmStart};
use narrowphase::sdf::{Ball, Sdf, SdfAccuracy, SdfSample, SdfWarmStart};
use narrowphase::shape::SupportWarmStart;
use narrowphase::support::contact::contact;
use rand::Rng;

/// One body that is both a support map and an SDF.
#[derive(Clone, Copy, Debug)]
enum Body {
    Sphere(Placed<Sphere<f64>, f64>),
    Cuboid(Placed<Cuboid<f64>, f64>),
    Capsule(Placed<Capsule<f64>, f64>),
    Cylinder(Placed<Cylinder<f64>, f64>),
    Cone(Placed<Cone<f64>, f64>),
    Rounded(Placed<Rounded<Cuboid<f64>, f64>, f64>),
}

macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            Body::Sphere($b) => $e,
            Body::Cuboid($b) => $e,
            Body::Capsule($b) => $e,
            Body::Cylinder($b) => $e,
            Body::Cone($b) => $e,
            Body::Rounded($b) => $e,
        }
    };
}

impl SupportMap<f64> for Body {
    fn support(&self, d: &Vector3<f64>) -> Point3<f64> {
        each!(self, b => b.support(d))
    }
    fn support_hinted(&self, d: &Vector3<f64>, h: &mut SupportWarmStart) -> Point3<f64> {
        each!(self, b => b.support_hinted(d, h))
    }
    fn center(&self) -> Point3<f64> {
        each!(self, b => b.center())
    }
    fn margin(&self) -> f64 {
        each!(self, b => b.margin())
    }
    fn support_core(&self, d: &Vector3<f64>, h: &mut SupportWarmStart) -> Point3<f64> {
        each!(self, b => b.support_core(d, h))
    }
}

impl Sdf<f64, 3> for Body {
    fn eval(&self, x: &Vector3<f64>) -> SdfSample<f64, 3> {
        each!(self, b => Sdf::eval(b, x))
    }
    fn eval_hinted(&self, x: &Vector3<f64>, h: &mut SdfWarmStart) -> SdfSample<f64, 3> {
        each!(self, b => b.eval_hinted(x, h))
    }
    fn accuracy(&self) -> SdfAccuracy {
        each!(self, b => b.accuracy())
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        each!(self, b => b.bounding_ball())
    }
}

fn random_body(rng: &mut impl Rng) -> Body {
    let p = pose(rng, 0.9);
    let kind = rng.random_range(0..6);
    let mut s = || rng.random_range(0.15..0.8);
    match kind {
        0 => Body::Sphere(Placed::new(Sphere::new(s()).unwrap(), p)),
        1 => Body::Cuboid(Placed::new(Cuboid::new(Vector3::new(s(), s(), s())).unwrap(), p)),
        2 => Body::Capsule(Placed::new(Capsule::new(s(), s() * 0.5).unwrap(), p)),
        3 => Body::Cylinder(Placed::new(Cylinder::new(s(), s()).unwrap(), p)),
        4 => Body::Cone(Placed::new(Cone::new(s(), s()).unwrap(), p)),
        _ => Body::Rounded(Placed::new(
            MinkowskiSum::new(Cuboid::new(Vector3::new(s(), s(), s())).unwrap(), Sphere::new(s() * 0.3).unwrap()),
            p,
        )),
    }
}

/// Signed distance by GJK/EPA, or certified bounds when EPA stops early.
fn reference(a: &Body, b: &Body) -> (f64, f64) {
    match contact(a, b, &Budget::new(64, 1e-7), &mut GjkWarmStart::default()) {
        Proximity::Separated(s) => (s.bounds.lower, s.bounds.upper),
        Proximity::Penetrating(p) => (-p.bounds.upper, -p.bounds.lower),
        Proximity::Undetermined { bounds, .. } => (bounds.lower, bounds.upper),
    }
}

#[test]
fn collision_flags_agree_with_gjk_on_100k_pairs_and_distances_on_20k() {
    let mut rng = rng(100);
    let band = 1e-6;
    let (mut compared, mut in_band, mut colliding) = (0u32, 0u32, 0u32);
    let (mut worst_distance, mut distance_checks, mut depth_checks) = (0.0f64, 0u32, 0u32);
    let mut iterations = [0u64; 2];
    let collision = EllipsoidMethod::collision();
    let distance = EllipsoidMethod::distance();
    for i in 0..100_000 {
        let a = random_body(&mut rng);
        let b = random_body(&mut rng);
        let (lo, hi) = reference(&a, &b);
        let flag = collision.solve(&a, &b, &mut EllipsoidWarmStart::default());
        if let Some(c) = flag.contact() {
            iterations[0] += c.iterations as u64;
        }
        if lo > band || hi < -band {
            compared += 1;
            let truth = hi < 0.0;
            colliding += truth as u32;
            assert_eq!(flag.is_penetrating(), Some(truth), "pair {i}: {a:?} {b:?} reference [{lo}, {hi}]: {flag:?}");
        } else {
            in_band += 1;
        }
        if i < 20_000 {
            let out = distance.solve(&a, &b, &mut EllipsoidWarmStart::default());
            let c = out.contact().unwrap_or_else(|| panic!("pair {i}: {out:?}"));
            iterations[1] += c.iterations as u64;
            if lo > band && hi - lo < 1e-6 {
                let err = (c.signed_distance() - (lo + hi) / 2.0).abs();
                worst_distance = worst_distance.max(err);
                assert!(err < 1e-5, "pair {i}: 2φ = {} vs GJK [{lo}, {hi}]", c.signed_distance());
                // The certificate brackets the truth.
                assert!(
                    2.0 * c.bounds.lower <= hi + 1e-9 && lo <= 2.0 * c.bounds.upper + 1e-9,
                    "pair {i}: {:?} vs [{lo}, {hi}]\n{a:?}\n{b:?}\n{c:?}",
                    c.bounds
                );
                distance_checks += 1;
            }
            if hi < -band {
                // Inscribed-ball diameter <= translational depth (EPA's upper bound).
                assert!(
                    -c.signed_distance() <= -lo + 1e-6,
                    "pair {i}: diameter {} vs depth [{}, {}]",
                    -c.signed_distance(),
                    -hi,
                    -lo
                );
                depth_checks += 1;
            }
        }
    }
    println!(
        "compared {compared} flags ({colliding} colliding), {in_band} in the ±{band} band; {distance_checks} distances (worst error {worst_distance:.1e}), {depth_checks} depths; mean iterations: collision {:.1}, distance {:.1}",
        iterations[0] as f64 / 100_000.0,
        iterations[1] as f64 / 20_000.0
    );
    assert!(compared > 99_000 && colliding > 20_000 && compared - colliding > 20_000);
}

#[test]
fn f32_flags_agree_with_the_f64_reference() {
    let mut rng = rng(101);
    let to32 = |p: &Pose<f64>| pose_f32(p);
    let mut compared = 0;
    for i in 0..5_000 {
        let (ha, hb) = (
            Vector3::new(rng.random_range(0.2..0.8), rng.random_range(0.2..0.8), rng.random_range(0.2..0.8)),
            Vector3::new(rng.random_range(0.2..0.8), rng.random_range(0.2..0.8), rng.random_range(0.2..0.8)),
        );
        let (pa, pb) = (pose(&mut rng, 0.9), pose(&mut rng, 0.9));
        let a64 = Body::Cuboid(Placed::new(Cuboid::new(ha).unwrap(), pa));
        let b64 = Body::Cuboid(Placed::new(Cuboid::new(hb).unwrap(), pb));
        let (lo, hi) = reference(&a64, &b64);
        let a = Placed::new(Cuboid::new(ha.cast::<f32>()).unwrap(), to32(&pa));
        let b = Placed::new(Cuboid::new(hb.cast::<f32>()).unwrap(), to32(&pb));
        let out = EllipsoidMethod::<f32>::collision().solve(&a, &b, &mut EllipsoidWarmStart::default());
        if lo > 1e-3 || hi < -1e-3 {
            compared += 1;
            assert_eq!(out.is_penetrating(), Some(hi < 0.0), "pair {i}: [{lo}, {hi}] {out:?}");
        }
        if let EllipsoidMethodOutcome::Undetermined { .. } = out {
            panic!("pair {i}: {out:?}");
        }
    }
    assert!(compared > 4_500);
}
