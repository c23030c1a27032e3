//! The particle method (Krayer et al.) against ground truth that does not
//! come from it: closed forms (balls, boxes, the cube–sphere cap, linked
//! rings, a thin plate), an unlimited buffer for the k-deepest and thinning
//! rules, and the ellipsoid method's collision flag on convex pairs.

use crate::common::*;
use nalgebra::{Matrix3, Rotation3, SVector, Vector2, Vector3, Vector4};
use narrowphase::error::ParticleError;
use narrowphase::prelude::*;
use narrowphase::sdf::ellipsoid_method::EllipsoidMethod;
use narrowphase::sdf::particles::{
    iterate_projection, particle_contacts, particle_count, particle_position, sample_resolution, ParticleContact,
    ParticleParams, MAX_PARTICLES,
};
use narrowphase::sdf::{Ball, BoxN, Sdf, SdfAccuracy, SdfSample, Transformed};
use rand::Rng;

fn ball(c: Vector3<f64>, r: f64) -> Transformed<Sphere<f64>, f64, 3> {
    Transformed::new(Sphere::new(r).unwrap(), Matrix3::identity(), 1.0, c).unwrap()
}

/// Algorithm 1: about Nⁿ particles, resolutions ordered like the sides, one
/// sample across a flat side, any dimension.
#[test]
fn sample_resolution_follows_the_box() {
    let mut rng = rng(21);
    fn check<const D: usize>(e: SVector<f64, D>, n: u32) {
        let r = sample_resolution(&e, n).unwrap();
        let total: f64 = r.iter().map(|&v| v as f64).product();
        let target = (n as f64).powi(D as i32);
        assert!(r.iter().all(|&v| v >= 1), "{e:?} {n}: {r:?}");
        // Rounding each side by at most ½ (and sides forced up to 1): the
        // total stays within a factor of the target.
        let flat = e.iter().filter(|&&x| x < e.max() / target).count();
        if flat == 0 {
            assert!(total >= 0.5 * target && total <= 2.0 * target, "{e:?} {n}: {r:?} = {total} vs {target}");
        }
        for i in 0..D {
            for j in 0..D {
                if e[i] > 2.0 * e[j] {
                    assert!(r[i] >= r[j], "{e:?}: {r:?}");
                }
            }
            if e[i] == 0.0 {
                assert_eq!(r[i], 1);
            }
        }
        assert_eq!(particle_count(&r), Some(total as u32));
    }
    for _ in 0..300 {
        let n = rng.random_range(1..=20);
        check(Vector3::from_fn(|_, _| rng.random_range(0.01..3.0)), n);
        check(Vector2::from_fn(|_, _| rng.random_range(0.0..3.0)), n);
        check(Vector4::from_fn(|_, _| rng.random_range(0.1..3.0)), n.min(12));
        check(SVector::<f64, 1>::new(rng.random_range(0.0..3.0)), n);
        // A flat side (touching faces).
        check(Vector3::new(rng.random_range(0.5..3.0), rng.random_range(0.5..3.0), 0.0), n);
    }
    assert_eq!(sample_resolution(&Vector3::new(1.0_f64, 1.0, 1.0), 10).unwrap(), [10, 10, 10]);
    assert_eq!(sample_resolution(&Vector3::new(0.0_f64, 0.0, 0.0), 10).unwrap(), [1, 1, 1]);
    assert_eq!(sample_resolution(&Vector3::new(1.0_f64, 1.0, 1.0), 0), Err(ParticleError::ZeroResolution));
    assert_eq!(sample_resolution(&Vector3::new(f64::NAN, 1.0, 1.0), 5), Err(ParticleError::BadRegion));
    assert_eq!(sample_resolution(&Vector3::new(-1.0_f64, 1.0, 1.0), 5), Err(ParticleError::BadRegion));
    assert_eq!(sample_resolution(&Vector3::new(1.0_f64, f64::INFINITY, 1.0), 5), Err(ParticleError::BadRegion));
    assert_eq!(sample_resolution(&Vector3::new(1.0_f64, 1.0, 1.0), 300), Err(ParticleError::TooManyParticles));
    assert!(particle_count(&[1 << 13, 1 << 12]).is_none() || MAX_PARTICLES >= 1 << 25);
}

/// Placement: cell centres, x fastest, every particle inside the box.
#[test]
fn particles_sit_at_cell_centres() {
    let region = narrowphase::sdf::Aabb::new(Vector3::new(-1.0, 0.0, 2.0), Vector3::new(1.0, 3.0, 2.5)).unwrap();
    let res = [4, 3, 2];
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..24 {
        let p = particle_position(&region, &res, i).unwrap();
        let (ix, iy, iz) = (i % 4, i / 4 % 3, i / 12);
        let want =
            Vector3::new(-1.0 + 0.5 * (ix as f64 + 0.5), 1.0 * (iy as f64 + 0.5), 2.0 + 0.25 * (iz as f64 + 0.5));
        assert!((p - want).norm() < 1e-12, "{i}: {p:?} vs {want:?}");
        seen.insert((ix, iy, iz));
    }
    assert_eq!(seen.len(), 24);
    assert_eq!(particle_position(&region, &res, 24), None);
    assert_eq!(particle_position(&region, &[4, 0, 2], 0), None);
}

/// The paper's cube–sphere scene (Fig. 9–10): a unit ball sinking into a
/// cube of side 2 through a face, an edge and a corner, the cube at random
/// poses too. Every contact lies on the surface of the intersection (one SDF
/// zero within ε, the other ≤ it) with depth = min of the closed forms; the
/// deepest contact approaches the closed-form deepest point.
#[test]
fn cube_sphere_contacts_match_the_closed_form() {
    let mut rng = rng(22);
    let params = ParticleParams { resolution: 15, ..ParticleParams::default() };
    let mut out = vec![ParticleContact::default(); 4096];
    let (mut errors, mut frames) = (Vec::new(), 0);
    for frame in 0..60 {
        let pose = if frame % 3 == 0 { pose(&mut rng, 0.3) } else { Pose::identity() };
        let cube = Placed::new(Cuboid::new(Vector3::repeat(1.0)).unwrap(), pose);
        // Approach along the face normal, an edge diagonal or a corner diagonal.
        let dir = match frame % 3 {
            0 => Vector3::z(),
            1 => Vector3::new(1.0, 0.0, 1.0).normalize(),
            _ => Vector3::repeat(1.0).normalize(),
        };
        let depth = 0.02 + 0.3 * (frame as f64 / 60.0);
        // Distance from the cube's centre to its surface along dir: 1 on a
        // face, √2 to an edge, √3 to a corner.
        let reach = match frame % 3 {
            0 => 1.0,
            1 => 2f64.sqrt(),
            _ => 3f64.sqrt(),
        };
        let centre_local = dir * (reach + 1.0 - depth);
        let centre = pose * nalgebra::Point3::from(centre_local);
        let sphere = ball(centre.coords, 1.0);
        let rep = particle_contacts(&cube, &sphere, &params, &mut out).unwrap();
        assert!(rep.hits > 0, "frame {frame}: {rep:?}");
        let eps = params.epsilon * norm(&rep.region.unwrap().extent());
        let cs = out[..rep.stored as usize].to_vec();
        for c in &cs {
            let (da, db) = (cube.eval(&c.point).value, sphere.eval(&c.point).value);
            assert!(da.max(db) < eps + 1e-12, "frame {frame}: {c:?} not on A ∩ B ({da}, {db})");
            assert!((c.depth - da.min(db)).abs() < 1e-12);
            assert!(
                (c.normal - (c.point - centre.coords).normalize()).norm() < 1e-9
                    || (c.point - centre.coords).norm() < 1e-9
            );
        }
        // Face approaches (the cube's local +z): the deepest point of the
        // overlap is the ball's bottom, `depth` into the cube, and no point
        // of A ∩ B is deeper than that in either body (the cube's top-face
        // point under the centre is `depth` into the ball).
        let deepest = cs.iter().map(|c| c.depth).fold(f64::INFINITY, f64::min);
        if frame % 3 == 0 {
            assert!(deepest >= -depth - 1e-9, "frame {frame}: {deepest} deeper than the truth {depth}");
            errors.push(deepest + depth);
        }
        frames += 1;
    }
    errors.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    println!(
        "cube–sphere, N = 15: {frames} frames; face frames: deepest-contact depth error mean {mean:.2e}, max {:.2e}",
        errors.last().unwrap()
    );
    // Particles are 1/15 of the region apart; the deepest lands within a cell.
    assert!(*errors.last().unwrap() < 0.05, "{errors:?}");
}

fn norm(v: &Vector3<f64>) -> f64 {
    v.norm()
}

/// Two linked rings overlapping in two places: contacts in both.
#[test]
fn linked_rings_give_two_contact_regions() {
    let ring =
        |c: Vector3<f64>, r: Rotation3<f64>| Placed::new(Torus::new(1.0, 0.25).unwrap(), Pose::from_parts(c.into(), r));
    let a = ring(Vector3::zeros(), Rotation3::identity());
    let b = ring(Vector3::x(), Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2));
    let mut out = vec![ParticleContact::default(); 2048];
    let rep = particle_contacts(&a, &b, &ParticleParams::default(), &mut out).unwrap();
    let cs = &out[..rep.stored as usize];
    let sides: std::collections::BTreeSet<bool> = cs.iter().map(|c| c.point.y > 0.0).collect();
    println!("linked rings, N = 10: {rep:?}");
    assert_eq!(sides.len(), 2, "{rep:?}");
    let deepest = cs.iter().map(|c| c.depth).fold(0.0, f64::min);
    // Closed form: 0.5 − (√2 − 1) deep at most.
    assert!(deepest >= -(0.5 - (2f64.sqrt() - 1.0)) - 1e-9 && deepest < -0.02, "{deepest}");
}

/// A thin plate (half-thickness 0.02) and a ball (radius 0.4) swept over
/// it, across its edge and into it. The documented rule: with N = 5 and the
/// default 16 steps every overlap deeper than 0.01 (a quarter of the plate's
/// thickness) is found, and no apart pose gives a hit.
#[test]
fn thin_plate_never_missed() {
    let plate = BoxN::new(Vector3::new(2.0, 2.0, 0.02)).unwrap();
    let mut out = vec![ParticleContact::default(); 256];
    for (n, steps) in [(5, 16), (10, 16), (5, 64)] {
        let params = ParticleParams { resolution: n, max_steps: steps, ..ParticleParams::default() };
        let (mut found, mut apart, mut missed, mut largest_missed) = (0, 0, 0, 0.0_f64);
        for i in 0..800 {
            let x = -2.5 + 5.0 * (i % 40) as f64 / 39.0;
            let gap = -0.03 + 0.06 * (i / 40) as f64 / 19.0;
            let c = Vector3::new(x, 0.3, 0.02 + 0.4 + gap);
            let sphere = ball(c, 0.4);
            let overlap = 0.4 - plate.eval(&c).value;
            let rep = particle_contacts(&plate, &sphere, &params, &mut out).unwrap();
            if overlap > 0.0 {
                if rep.hits > 0 {
                    found += 1;
                } else {
                    missed += 1;
                    largest_missed = largest_missed.max(overlap);
                    if n == 5 && steps == 16 {
                        assert!(overlap < 0.01, "missed an overlap of {overlap}: ball at {c:?}, {rep:?}");
                    }
                }
            } else {
                assert_eq!(rep.hits, 0, "ball at {c:?} is {} apart: {rep:?}", -overlap);
                apart += 1;
            }
        }
        println!(
            "thin plate, N = {n}, {steps} steps: {found} overlapping poses found, {missed} missed (largest missed overlap {largest_missed:.1e}), {apart} apart clear"
        );
    }
}

/// The k-deepest rule and thinning against an unlimited buffer.
#[test]
fn full_buffers_keep_the_deepest_and_thinning_one_per_cell() {
    let cube = Cuboid::new(Vector3::repeat(1.0)).unwrap();
    let sphere = ball(Vector3::new(0.3, -0.2, 1.7), 1.0);
    let mut all = vec![ParticleContact::default(); 8192];
    let params = ParticleParams { resolution: 12, ..ParticleParams::default() };
    let full = particle_contacts(&cube, &sphere, &params, &mut all).unwrap();
    assert_eq!(full.dropped, 0);
    let mut depths: Vec<f64> = all[..full.stored as usize].iter().map(|c| c.depth).collect();
    depths.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for k in [1usize, 7, 50] {
        let mut few = vec![ParticleContact::default(); k];
        let rep = particle_contacts(&cube, &sphere, &params, &mut few).unwrap();
        assert_eq!((rep.stored as usize, rep.dropped), (k, full.hits - k as u32));
        let mut got: Vec<f64> = few.iter().map(|c| c.depth).collect();
        got.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(got, depths[..k].to_vec(), "k = {k}");
    }
    // Thinning: one contact per cell, the deepest of the cell's hits.
    let cell = 0.1;
    let thin = ParticleParams { thinning: Some(cell), ..params };
    let mut out = vec![ParticleContact::default(); 8192];
    let rep = particle_contacts(&cube, &sphere, &thin, &mut out).unwrap();
    let region = rep.region.unwrap();
    let size = cell * region.extent().norm();
    let key = |p: &Vector3<f64>| ((p - region.min) / size).map(|v| v.floor() as i32);
    let mut best = std::collections::BTreeMap::new();
    for c in &all[..full.stored as usize] {
        let k = key(&c.point);
        let e = best.entry((k.x, k.y, k.z)).or_insert(f64::INFINITY);
        *e = e.min(c.depth);
    }
    assert_eq!(rep.stored as usize, best.len());
    assert_eq!(rep.merged, full.hits - rep.stored);
    for c in &out[..rep.stored as usize] {
        let k = key(&c.point);
        assert_eq!(c.depth, best[&(k.x, k.y, k.z)]);
    }
}

/// On convex pairs the method's "any hit" agrees with the ellipsoid method's
/// collision flag outside a band of the particle spacing.
#[test]
fn any_hit_agrees_with_the_ellipsoid_method() {
    let mut rng = rng(23);
    let params = ParticleParams::default();
    let mut out = vec![ParticleContact::default(); 64];
    let (mut agree, mut band) = (0, 0);
    for i in 0..300 {
        let pa = pose(&mut rng, 0.01);
        let pb = pose(&mut rng, 1.2);
        let (hit, truth) = match i % 3 {
            0 => {
                let (a, b) = (
                    Placed::new(Cuboid::new(Vector3::new(0.6, 0.4, 0.3)).unwrap(), pa),
                    Placed::new(Sphere::new(0.5).unwrap(), pb),
                );
                (
                    particle_contacts(&a, &b, &params, &mut out).unwrap().hits > 0,
                    EllipsoidMethod::distance().solve(&a, &b, &mut Default::default()),
                )
            }
            1 => {
                let (a, b) = (
                    Placed::new(Capsule::new(0.5, 0.3).unwrap(), pa),
                    Placed::new(Cylinder::new(0.4, 0.4).unwrap(), pb),
                );
                (
                    particle_contacts(&a, &b, &params, &mut out).unwrap().hits > 0,
                    EllipsoidMethod::distance().solve(&a, &b, &mut Default::default()),
                )
            }
            _ => {
                let (a, b) = (
                    Placed::new(Cuboid::new(Vector3::new(0.5, 0.5, 0.2)).unwrap(), pa),
                    Placed::new(Cuboid::new(Vector3::new(0.3, 0.6, 0.3)).unwrap(), pb),
                );
                (
                    particle_contacts(&a, &b, &params, &mut out).unwrap().hits > 0,
                    EllipsoidMethod::distance().solve(&a, &b, &mut Default::default()),
                )
            }
        };
        let Some(d) = truth.contact().map(|c| c.signed_distance()) else { continue };
        // Outside a band of 2 % of the bodies' size both must agree.
        if d.abs() < 0.02 {
            band += 1;
            continue;
        }
        assert_eq!(hit, d < 0.0, "case {i}: signed distance {d}, particle hit {hit}");
        agree += 1;
    }
    println!("particles vs ellipsoid method: {agree} agree, {band} in the band");
    assert!(agree > 250);
}

/// An SDF that answers NaN: never a hit, counted.
struct Broken;
impl Sdf<f64, 3> for Broken {
    fn eval(&self, _: &Vector3<f64>) -> SdfSample<f64, 3> {
        SdfSample { value: f64::NAN, gradient: Vector3::zeros() }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        Ball { center: Vector3::zeros(), radius: 1.0 }
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let s = Sphere::new(1.0_f64).unwrap();
    let mut out = vec![ParticleContact::<f64, 3>::default(); 8];
    let p = ParticleParams::default();
    assert_eq!(
        particle_contacts(&s, &s, &ParticleParams { resolution: 0, ..p }, &mut out),
        Err(ParticleError::ZeroResolution)
    );
    assert_eq!(
        particle_contacts(&s, &s, &ParticleParams { max_steps: 0, ..p }, &mut out),
        Err(ParticleError::BadParams)
    );
    assert_eq!(
        particle_contacts(&s, &s, &ParticleParams { epsilon: f64::NAN, ..p }, &mut out),
        Err(ParticleError::BadParams)
    );
    assert_eq!(
        particle_contacts(&s, &s, &ParticleParams { thinning: Some(0.0), ..p }, &mut out),
        Err(ParticleError::BadParams)
    );
    assert_eq!(
        particle_contacts(&s, &s, &ParticleParams { resolution: 300, ..p }, &mut out),
        Err(ParticleError::TooManyParticles)
    );
    let floor = narrowphase::sdf::Halfspace::new(Vector3::z(), 0.0).unwrap();
    assert_eq!(particle_contacts(&floor, &floor, &p, &mut out), Err(ParticleError::BadRegion));
    // Apart bounding boxes: no particle, no error.
    let far = ball(Vector3::new(5.0, 0.0, 0.0), 1.0);
    let rep = particle_contacts(&s, &far, &p, &mut out).unwrap();
    assert!(rep.region.is_none() && rep.particles == 0);
    // NaN values: counted, never a hit.
    let rep = particle_contacts(&Broken, &s, &p, &mut out).unwrap();
    assert_eq!((rep.hits, rep.nonfinite), (0, rep.particles));
    let proj = iterate_projection(&Vector3::new(f64::NAN, 0.0, 0.0), &s, &s, 1e-6, 8);
    assert!(!proj.hit);
    // A zero-length buffer: every hit dropped, reported.
    let rep = particle_contacts(&s, &ball(Vector3::new(1.5, 0.0, 0.0), 1.0), &p, &mut []).unwrap();
    assert!(rep.hits > 0 && rep.dropped == rep.hits && rep.stored == 0);
}

/// f32: the cube–sphere face contact.
#[test]
fn f32_face_contact() {
    let cube = Cuboid::new(Vector3::repeat(1.0_f32)).unwrap();
    let sphere =
        Transformed::new(Sphere::new(1.0_f32).unwrap(), Matrix3::identity(), 1.0, Vector3::new(0.1, -0.2, 1.85))
            .unwrap();
    let mut out = vec![ParticleContact::<f32, 3>::default(); 1024];
    let rep =
        particle_contacts(&cube, &sphere, &ParticleParams { resolution: 20, ..ParticleParams::default() }, &mut out)
            .unwrap();
    let deepest = out[..rep.stored as usize].iter().map(|c| c.depth).fold(0.0, f32::min);
    assert!(rep.hits > 100 && (-0.15 - 1e-5..=-0.1).contains(&deepest), "{deepest} {rep:?}");
}
