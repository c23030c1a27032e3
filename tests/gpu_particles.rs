//! The wgpu particle pipeline against the CPU particle method (the
//! reference): WGSL SDF twins against their Rust originals, and contacts
//! pair by pair on identical scenes (same particle sets, same steps).
//!
//! These run for real on whatever adapter wgpu finds — Mesa's lavapipe (a
//! CPU Vulkan) in CI — and skip with a printed reason only when there is no
//! adapter at all.
#![cfg(feature = "gpu")]

mod common;

use common::*;
use nalgebra::{Translation3, Vector3};
use narrowphase::gpu::{GpuError, GpuParticles, GpuShape};
use narrowphase::prelude::*;
use narrowphase::sdf::particles::{particle_contacts, ParticleContact, ParticleParams};
use narrowphase::sdf::Sdf;
use rand::Rng;

fn gpu() -> Option<GpuParticles> {
    match GpuParticles::new_blocking() {
        Ok(g) => {
            println!("GPU: {}", g.adapter_info());
            Some(g)
        }
        Err(GpuError::NoAdapter(why)) => {
            println!("SKIPPED: no GPU adapter at all ({why})");
            None
        }
        Err(e) => panic!("GPU set-up failed: {e}"),
    }
}

fn random_shape(rng: &mut impl Rng, i: usize) -> GpuShape {
    let s = |rng: &mut dyn rand::RngCore, lo: f32, hi: f32| rng.random_range(lo..hi);
    match i % 5 {
        0 => GpuShape::Sphere(Sphere::new(s(rng, 0.2, 0.8)).unwrap()),
        1 => GpuShape::Cuboid(Cuboid::new(Vector3::new(s(rng, 0.1, 0.7), s(rng, 0.1, 0.7), s(rng, 0.1, 0.7))).unwrap()),
        2 => GpuShape::Capsule(Capsule::new(s(rng, 0.1, 0.6), s(rng, 0.1, 0.4)).unwrap()),
        3 => GpuShape::Cylinder(Cylinder::new(s(rng, 0.1, 0.6), s(rng, 0.1, 0.5)).unwrap()),
        _ => {
            let major = s(rng, 0.4, 0.8);
            GpuShape::Torus(Torus::new(major, s(rng, 0.05, 0.3).min(major * 0.8)).unwrap())
        }
    }
}

fn random_pose(rng: &mut impl Rng, spread: f64) -> Pose<f32> {
    pose_f32(&pose(rng, spread))
}

/// Every WGSL SDF twin equals its Rust original at random points around its
/// shape (value to f32 rounding; gradient where no rounding flips a branch).
#[test]
fn wgsl_sdfs_match_the_rust_ones() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = rng(31);
    let shapes: Vec<GpuShape> = (0..25).map(|i| random_shape(&mut rng, i)).collect();
    gpu.upload_shapes(&shapes).unwrap();
    let poses: Vec<Pose<f32>> = (0..shapes.len()).map(|_| random_pose(&mut rng, 2.0)).collect();
    let placed = gpu.placed(&poses);
    let points: Vec<(u32, Vector3<f32>)> = (0..20_000)
        .map(|k| {
            let i = k % shapes.len();
            let c = poses[i].translation.vector;
            let d = Vector3::new(rng.random_range(-1.2..1.2), rng.random_range(-1.2..1.2), rng.random_range(-1.2..1.2));
            (i as u32, c + d)
        })
        .collect();
    let got = gpu.probe_blocking(&poses, &points).unwrap();
    let (mut worst_value, mut gradient_flips) = (0.0_f32, 0);
    for ((i, x), g) in points.iter().zip(&got) {
        let cpu = placed[*i as usize].eval(x);
        let err = (g.value - cpu.value).abs();
        worst_value = worst_value.max(err);
        assert!(err < 2e-5, "shape {:?}: GPU {} vs CPU {} at {x:?}", shapes[*i as usize], g.value, cpu.value);
        if (g.gradient - cpu.gradient).norm() > 1e-3 {
            gradient_flips += 1;
        }
    }
    println!(
        "WGSL twins: {} points, worst value error {worst_value:.2e}, gradient branch flips {gradient_flips}",
        points.len()
    );
    assert!(gradient_flips <= points.len() / 1000, "{gradient_flips} gradients differ");
}

/// A scene of 1200 pairs of mixed primitives: the GPU's contacts equal the
/// CPU particle method's pair by pair — same hit counts up to particles
/// whose `ε` test rounding flips, same points, normals and depths.
#[test]
fn gpu_contacts_equal_the_cpu_method_pair_by_pair() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = rng(32);
    let shapes: Vec<GpuShape> = (0..300).map(|i| random_shape(&mut rng, i)).collect();
    gpu.upload_shapes(&shapes).unwrap();
    let poses: Vec<Pose<f32>> = (0..shapes.len()).map(|_| random_pose(&mut rng, 2.5)).collect();
    let placed = gpu.placed(&poses);
    // Pairs whose bounding boxes meet (the broad phase's output), and one
    // pair of balls whose boxes meet but which are apart (zero hits).
    let mut pairs = Vec::new();
    'outer: for a in 0..shapes.len() as u32 {
        for b in a + 1..shapes.len() as u32 {
            if placed[a as usize].bounding_box().intersection(&placed[b as usize].bounding_box()).is_some() {
                pairs.push((a, b));
                if pairs.len() >= 1200 {
                    break 'outer;
                }
            }
        }
    }
    assert!(pairs.len() >= 1000, "{} pairs", pairs.len());
    let params = ParticleParams { resolution: 6, ..ParticleParams::default() };
    let frame = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
    let (mut flips, mut total_hits, mut zero_pairs, mut worst) = (0usize, 0usize, 0usize, 0.0_f32);
    let mut buffer = vec![ParticleContact::default(); 1 << 12];
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let cpu = particle_contacts(&placed[a as usize], &placed[b as usize], &params, &mut buffer).unwrap();
        assert_eq!(cpu.dropped, 0);
        let cpu_hits = &buffer[..cpu.stored as usize];
        let gpu_hits = frame.pair(k);
        total_hits += cpu_hits.len();
        if cpu_hits.is_empty() && gpu_hits.is_empty() {
            zero_pairs += 1;
        }
        let (mut i, mut j) = (0, 0);
        while i < cpu_hits.len() || j < gpu_hits.len() {
            match (cpu_hits.get(i), gpu_hits.get(j)) {
                (Some(c), Some(g)) if c.particle == g.particle => {
                    let e = (c.point - g.point).norm().max((c.depth - g.depth).abs());
                    worst = worst.max(e);
                    assert!(e < 1e-4, "pair {k} particle {}: CPU {c:?} GPU {g:?}", c.particle);
                    assert!((c.normal - g.normal).norm() < 1e-2 || e < 1e-6, "pair {k}: normals {c:?} {g:?}");
                    i += 1;
                    j += 1;
                }
                (Some(c), Some(g)) if c.particle < g.particle => {
                    flips += 1;
                    i += 1;
                }
                (Some(_), None) => {
                    flips += 1;
                    i += 1;
                }
                _ => {
                    flips += 1;
                    j += 1;
                }
            }
        }
    }
    println!(
        "{} pairs, {} particles, {total_hits} CPU contacts, {} GPU contacts, {flips} particles decided differently, worst point/depth difference {worst:.2e}, {zero_pairs} pairs without contact",
        pairs.len(),
        frame.particles,
        frame.contacts.len()
    );
    assert!(flips * 1000 <= total_hits.max(1), "{flips} of {total_hits}");
    assert!(zero_pairs > 0 && total_hits > 1000);
}

/// A pair whose boxes meet but whose bodies do not: no contact; pairs
/// naming a missing shape, a wrong pose count, and a frame beyond the
/// dispatch limit are errors.
#[test]
fn zero_hits_and_errors() {
    let Some(mut gpu) = gpu() else { return };
    let ball = GpuShape::Sphere(Sphere::new(1.0).unwrap());
    gpu.upload_shapes(&[ball, ball]).unwrap();
    let apart = [Pose::identity(), Pose::from_parts(Translation3::new(1.5, 1.5, 0.0), Default::default())];
    let frame = gpu.contacts_blocking(&apart, &[(0, 1)], &ParticleParams::default()).unwrap();
    assert!(frame.particles > 0 && frame.pair(0).is_empty(), "{frame:?}");
    let touching = [Pose::identity(), Pose::from_parts(Translation3::new(1.5, 0.0, 0.0), Default::default())];
    let frame = gpu.contacts_blocking(&touching, &[(0, 1)], &ParticleParams::default()).unwrap();
    assert!(!frame.pair(0).is_empty());
    assert!(matches!(
        gpu.contacts_blocking(&apart, &[(0, 2)], &ParticleParams::default()),
        Err(GpuError::BadIndex { .. })
    ));
    assert!(matches!(
        gpu.contacts_blocking(&apart[..1], &[(0, 1)], &ParticleParams::default()),
        Err(GpuError::BadIndex { .. })
    ));
    // 300 overlapping pairs at N = 200: 2.4e9 particles in one frame.
    let big = ParticleParams { resolution: 200, ..ParticleParams::default() };
    let pairs = vec![(0, 1); 300];
    match gpu.contacts_blocking(&touching, &pairs, &big) {
        Err(GpuError::LimitExceeded { what, requested, limit }) => {
            println!("limit: {what}: {requested} > {limit}");
            assert!(requested > limit);
        }
        other => panic!("{other:?}"),
    }
}
