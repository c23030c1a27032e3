//! The wgpu particle pipeline against the CPU particle method (the
//! reference): WGSL SDF twins against their Rust originals, and contacts
//! pair by pair on identical scenes (same particle sets, same steps).
//!
//! These run for real on whatever adapter wgpu finds — Mesa's lavapipe (a
//! CPU Vulkan) in CI — and skip with a printed reason only when there is no
//! adapter at all.

mod common;

use common::*;
use nalgebra::{Translation3, Vector3};
use narrowphase::error::GpuError;
use narrowphase::gpu::{FrameContacts, GpuContact, GpuParticles, GpuShape};
use narrowphase::prelude::*;
use narrowphase::sdf::grid::{fill_first_order, FirstOrderGrid, GridLayout};
use narrowphase::sdf::particles::{
    iterate_projection, pair_setup, particle_contacts, particle_position, ParticleContact, ParticleParams, Projection,
};
use narrowphase::sdf::{CappedCone, Sdf};
use rand::Rng;

fn gpu() -> Option<GpuParticles> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("xdg-{}", std::process::id()));
        if std::fs::create_dir_all(&dir).is_ok() {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
            }
            std::env::set_var("XDG_RUNTIME_DIR", dir);
        }
    }
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

/// A first-order grid of `body` (spacing `h`, two cells of margin). The
/// values leak: `'static` for the test's shapes (a few hundred KB).
fn grid_of<S: Sdf<f32, 3>>(body: &S, h: f32) -> FirstOrderGrid<'static, f32> {
    let layout = GridLayout::covering(&body.bounding_box().inflated(2.0 * h), h).unwrap();
    let values: &'static mut [f32] = Box::leak(vec![0.0; 4 * layout.samples()].into_boxed_slice());
    fill_first_order(body, &layout, values).unwrap()
}

/// Sphere, box, capsule, cylinder, torus, cone, capped cone, and a
/// first-order grid of one of those (every eighth shape).
fn random_shape(rng: &mut impl Rng, i: usize) -> GpuShape<'static> {
    let s = |rng: &mut dyn rand::RngCore, lo: f32, hi: f32| rng.random_range(lo..hi);
    match i % 8 {
        0 => GpuShape::Sphere(Sphere::new(s(rng, 0.2, 0.8)).unwrap()),
        1 => GpuShape::Cuboid(Cuboid::new(Vector3::new(s(rng, 0.1, 0.7), s(rng, 0.1, 0.7), s(rng, 0.1, 0.7))).unwrap()),
        2 => GpuShape::Capsule(Capsule::new(s(rng, 0.1, 0.6), s(rng, 0.1, 0.4)).unwrap()),
        3 => GpuShape::Cylinder(Cylinder::new(s(rng, 0.1, 0.6), s(rng, 0.1, 0.5)).unwrap()),
        4 => {
            let major = s(rng, 0.4, 0.8);
            GpuShape::Torus(Torus::new(major, s(rng, 0.05, 0.3).min(major * 0.8)).unwrap())
        }
        5 => GpuShape::Cone(Cone::new(s(rng, 0.1, 0.6), s(rng, 0.1, 0.6)).unwrap()),
        6 => GpuShape::CappedCone(CappedCone::new(s(rng, 0.1, 0.6), s(rng, 0.0, 0.6), s(rng, 0.1, 0.6)).unwrap()),
        _ => {
            let body = random_shape(rng, i / 8 % 7);
            GpuShape::Grid(grid_of(&body, s(rng, 0.04, 0.1)))
        }
    }
}

/// The CPU twins of `shapes` at `poses` (what `GpuParticles::placed` gives
/// for the uploaded copies).
fn twins<'a>(shapes: &[GpuShape<'a>], poses: &[Pose<f32>]) -> Vec<Placed<GpuShape<'a>, f32>> {
    shapes.iter().zip(poses).map(|(s, p)| Placed::new(*s, *p)).collect()
}

fn random_pose(rng: &mut impl Rng, spread: f64) -> Pose<f32> {
    pose_f32(&pose(rng, spread))
}

/// The CPU particle method on pair `(a, b)`: every particle's projection, by
/// particle index (the GPU pipeline's contacts are these, the hits).
fn cpu_pair(
    placed: &[Placed<GpuShape, f32>],
    (a, b): (u32, u32),
    params: &ParticleParams<f32>,
) -> Vec<(u32, Projection<f32, 3>)> {
    let (pa, pb) = (&placed[a as usize], &placed[b as usize]);
    let Some(setup) = pair_setup(pa, pb, params).unwrap() else { return Vec::new() };
    (0..setup.count)
        .map(|i| {
            let p = particle_position(&setup.region, &setup.resolution, i).unwrap();
            (i, iterate_projection(&p, pa, pb, setup.epsilon, params.max_steps))
        })
        .collect()
}

/// Whether pair `(a, b)` has a sampled grid.
fn has_grid(placed: &[Placed<GpuShape, f32>], (a, b): (u32, u32)) -> bool {
    [a, b].iter().any(|&i| matches!(placed[i as usize].shape, GpuShape::Grid(_)))
}

/// A GPU hit that took another path than the CPU's: it must still be a hit
/// by the CPU's own evaluation — `max(φ_A, φ_B) < ε` at its point, depth
/// `min(φ_A, φ_B)` and normal `∇φ_B` there (within f32 rounding of the
/// pair's size), within the step cap.
///
/// Why paths part on grids: outside its box a grid's field is
/// `√(|x − c|² + max(f̃(c), 0)²)`, `c` the nearest box point, whose gradient
/// jumps across the planes of the box's faces — and a projection step from
/// outside lands exactly on such a plane (up to rounding). Whether the next
/// point counts as on this side or that is decided by the last bit of an
/// FMA, which the GPU and the CPU round differently.
fn assert_valid_hit(
    a: &Placed<GpuShape, f32>,
    b: &Placed<GpuShape, f32>,
    epsilon: f32,
    max_steps: u32,
    g: &GpuContact,
) {
    let (sa, sb) = (a.eval(&g.point), b.eval(&g.point));
    let rounding = 64.0 * f32::EPSILON * (a.bounding_ball().radius + b.bounding_ball().radius);
    let what = format!("{g:?}: φ_A {} φ_B {}, ε {epsilon}", sa.value, sb.value);
    assert!(sa.value.max(sb.value) < epsilon + rounding, "not a hit: {what}");
    assert!((g.depth - sa.value.min(sb.value)).abs() <= rounding, "depth: {what}");
    assert!((g.normal - sb.gradient).norm() < 1e-2, "normal {:?}: {what}", sb.gradient);
    assert!(g.steps <= max_steps, "{what}");
}

/// Compares a frame with the CPU pair by pair; returns (CPU hits, GPU hits,
/// particles whose hit/miss or normal differs, grid-pair hits reached by
/// another path — each checked to be a hit).
fn compare(
    frame: &FrameContacts,
    placed: &[Placed<GpuShape, f32>],
    pairs: &[(u32, u32)],
    params: &ParticleParams<f32>,
) -> (usize, usize, usize, usize) {
    let (mut cpu_hits, mut gpu_hits, mut flipped, mut paths) = (0, 0, 0, 0);
    assert_eq!(frame.ranges.len(), pairs.len());
    for (k, &pair) in pairs.iter().enumerate() {
        let cpu = cpu_pair(placed, pair, params);
        let gpu = frame.pair(k);
        // Sorted by particle index, all of pair k, no duplicates.
        assert!(gpu.windows(2).all(|w| w[0].particle < w[1].particle), "pair {k}: not sorted/unique");
        assert!(gpu.iter().all(|c| c.pair == k as u32));
        let hits: Vec<_> = cpu.iter().filter(|(_, p)| p.hit).collect();
        cpu_hits += hits.len();
        gpu_hits += gpu.len();
        let scale = placed[pair.0 as usize].bounding_ball().radius + placed[pair.1 as usize].bounding_ball().radius;
        for c in gpu {
            let Some((_, p)) = cpu.get(c.particle as usize) else {
                panic!("pair {k}: particle {} unknown", c.particle)
            };
            let grid = has_grid(placed, pair);
            if !p.hit && !grid {
                flipped += 1;
                continue;
            }
            // Same particle, same steps: same point, normal, depth within f32 rounding
            // (accumulated over the steps, relative to the pair's size).
            let tol = 2e-4 * scale;
            let same = p.hit
                && (c.point - p.point).norm() <= tol
                && (c.depth - p.depth).abs() <= tol
                && c.steps.abs_diff(p.steps) <= 1;
            if !same && grid {
                let setup = pair_setup(&placed[pair.0 as usize], &placed[pair.1 as usize], params).unwrap().unwrap();
                assert_valid_hit(
                    &placed[pair.0 as usize],
                    &placed[pair.1 as usize],
                    setup.epsilon,
                    params.max_steps,
                    c,
                );
                paths += 1;
                continue;
            }
            assert!(same, "pair {k} particle {}: GPU {c:?} vs CPU {p:?}", c.particle);
            // Normals can turn where a gradient jumps (box edges) within rounding of the point.
            if (c.normal - p.normal).norm() > 1e-3 {
                flipped += 1;
            }
        }
        flipped += hits.iter().filter(|(i, _)| gpu.binary_search_by_key(i, |c| c.particle).is_err()).count();
    }
    (cpu_hits, gpu_hits, flipped, paths)
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
    let placed = twins(&shapes, &poses);
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
    // The pipeline's own CPU twins (its host copy of the uploaded shapes,
    // grid values included) are the shapes the test built.
    let kept = gpu.placed(&poses);
    assert!(kept.iter().zip(&placed).all(|(k, p)| k.shape == p.shape && k.pose() == p.pose()));
    assert!(points.iter().all(|(i, x)| kept[*i as usize].eval(x) == placed[*i as usize].eval(x)));
}

/// A hit that the CPU and the GPU reached after different numbers of steps.
/// The hit test `max(φ_A, φ_B) < ε` is decided at the rounding of the
/// coordinates (an ulp of the pair's size, ~6e-8 here, against `ε` ~2e-4):
/// where a value lands that close to `ε`, one side stops and the other takes
/// one more step. Then (checked here against the CPU's own iteration) the
/// step counts differ by one, the earlier stop's value is `ε` within that
/// rounding, and the points are one step — of length about `ε` — apart.
fn assert_one_step_apart<S: Sdf<f32, 3>>(
    a: &S,
    b: &S,
    params: &ParticleParams<f32>,
    cpu: &ParticleContact<f32, 3>,
    gpu: &narrowphase::gpu::GpuContact,
) {
    let setup = pair_setup(a, b, params).unwrap().unwrap();
    let x = particle_position(&setup.region, &setup.resolution, cpu.particle).unwrap();
    let p = iterate_projection(&x, a, b, setup.epsilon, params.max_steps);
    assert_eq!(p.point, cpu.point, "particle_contacts and iterate_projection agree");
    let earlier = if p.steps < gpu.steps { p.point } else { gpu.point };
    let value = a.eval(&earlier).value.max(b.eval(&earlier).value);
    let rounding = 64.0 * f32::EPSILON * (a.bounding_ball().radius + b.bounding_ball().radius);
    let what = format!("particle {}: CPU {p:?}, GPU {gpu:?}, ε {}", cpu.particle, setup.epsilon);
    assert_eq!(p.steps.abs_diff(gpu.steps), 1, "{what}");
    assert!((value - setup.epsilon).abs() <= rounding, "stop at {value}: {what}");
    assert!((p.point - gpu.point).norm() <= setup.epsilon * 1.01 + 1e-5, "{what}");
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
    let placed = twins(&shapes, &poses);
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
    let (mut flips, mut step_flips, mut paths, mut total_hits, mut zero_pairs, mut worst) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0.0_f32);
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
        let grid = has_grid(&placed, (a, b));
        let eps = pair_setup(&placed[a as usize], &placed[b as usize], &params).unwrap().map_or(0.0, |s| s.epsilon);
        let (mut i, mut j) = (0, 0);
        while i < cpu_hits.len() || j < gpu_hits.len() {
            match (cpu_hits.get(i), gpu_hits.get(j)) {
                (Some(c), Some(g)) if c.particle == g.particle => {
                    let e = (c.point - g.point).norm().max((c.depth - g.depth).abs());
                    if e < 1e-4 {
                        worst = worst.max(e);
                        assert!((c.normal - g.normal).norm() < 1e-2 || e < 1e-6, "pair {k}: normals {c:?} {g:?}");
                    } else if grid {
                        assert_valid_hit(&placed[a as usize], &placed[b as usize], eps, params.max_steps, g);
                        paths += 1;
                    } else {
                        assert_one_step_apart(&placed[a as usize], &placed[b as usize], &params, c, g);
                        step_flips += 1;
                    }
                    i += 1;
                    j += 1;
                }
                // A CPU hit the GPU does not have.
                (Some(c), g) if g.is_none_or(|g| c.particle < g.particle) => {
                    *(if grid { &mut paths } else { &mut flips }) += 1;
                    i += 1;
                }
                // A GPU hit the CPU does not have.
                (_, Some(g)) => {
                    if grid {
                        assert_valid_hit(&placed[a as usize], &placed[b as usize], eps, params.max_steps, g);
                        paths += 1;
                    } else {
                        flips += 1;
                    }
                    j += 1;
                }
                (Some(_), None) | (None, None) => unreachable!("the CPU-only arm takes (Some, None)"),
            }
        }
    }
    println!(
        "{} pairs, {} particles, {total_hits} CPU contacts, {} GPU contacts, {flips} particles decided differently, \
         {step_flips} stopped one step apart, {paths} grid-pair hits by another path, worst point/depth difference \
         otherwise {worst:.2e}, {zero_pairs} pairs without contact",
        pairs.len(),
        frame.particles,
        frame.contacts.len()
    );
    assert!(flips * 1000 <= total_hits.max(1), "{flips} of {total_hits}");
    assert!(step_flips * 1000 <= total_hits.max(1), "{step_flips} of {total_hits} stopped a step apart");
    assert!(paths * 50 <= total_hits.max(1), "{paths} of {total_hits} by another path");
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

#[test]
fn two_frames_reuse_buffers_and_match_every_projection() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = rng(62);
    let shapes: Vec<GpuShape> = (0..24).map(|k| random_shape(&mut rng, k)).collect();
    gpu.upload_shapes(&shapes).unwrap();
    let params = ParticleParams { resolution: 10, max_steps: 16, epsilon: 1e-3, thinning: None };
    // Two frames with different poses: the buffers are reused and must not leak between frames.
    for frame_no in 0..2 {
        let poses: Vec<Pose<f32>> = (0..shapes.len()).map(|_| random_pose(&mut rng, 0.8)).collect();
        let pairs: Vec<(u32, u32)> = (0..shapes.len() as u32)
            .flat_map(|a| (a + 1..shapes.len() as u32).map(move |b| (a, b)))
            .filter(|&(a, b)| (a + b + frame_no) % 4 == 0)
            .collect();
        let frame = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
        let placed = gpu.placed(&poses);
        let expected: u64 = pairs.iter().map(|&p| cpu_pair(&placed, p, &params).len() as u64).sum();
        assert_eq!(frame.particles, expected);
        let (cpu_hits, gpu_hits, flipped, paths) = compare(&frame, &placed, &pairs, &params);
        eprintln!(
            "frame {frame_no}: {} pairs, {} particles, hits CPU {cpu_hits} GPU {gpu_hits}, {flipped} differ, {paths} grid hits by another path",
            pairs.len(),
            frame.particles
        );
        assert!(cpu_hits > 1000, "the scene must make contacts");
        assert!(flipped * 500 <= cpu_hits, "{flipped} particles differ of {cpu_hits}");
        assert!(paths * 50 <= cpu_hits, "{paths} of {cpu_hits} by another path");
    }
}

#[test]
fn every_projection_of_a_thousand_pairs_and_a_corner_pair() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = rng(63);
    let mut shapes: Vec<GpuShape> = (0..60).map(|k| random_shape(&mut rng, k)).collect();
    // Two spheres whose bounding boxes overlap (at a corner) but which do not
    // touch: particles are projected, none hits.
    shapes.push(GpuShape::Sphere(Sphere::new(1.0).unwrap()));
    shapes.push(GpuShape::Sphere(Sphere::new(1.0).unwrap()));
    gpu.upload_shapes(&shapes).unwrap();
    let mut poses: Vec<Pose<f32>> = (0..60).map(|_| random_pose(&mut rng, 1.5)).collect();
    poses.push(Pose::identity());
    poses.push(Pose::from_parts(Translation3::new(1.6, 1.6, 1.6), Default::default()));
    let mut pairs: Vec<(u32, u32)> = (0..60u32).flat_map(|a| (a + 1..60).map(move |b| (a, b))).take(1200).collect();
    let apart = pairs.len();
    pairs.push((60, 61));
    let params = ParticleParams { resolution: 5, max_steps: 16, epsilon: 1e-3, thinning: None };
    let frame = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
    let placed = gpu.placed(&poses);
    let (cpu_hits, gpu_hits, flipped, paths) = compare(&frame, &placed, &pairs, &params);
    let touching = (0..pairs.len()).filter(|&k| !frame.pair(k).is_empty()).count();
    eprintln!(
        "{} pairs ({touching} with hits), {} particles, hits CPU {cpu_hits} GPU {gpu_hits}, {flipped} differ, {paths} grid hits by another path",
        pairs.len(),
        frame.particles
    );
    assert!(paths * 50 <= cpu_hits, "{paths} of {cpu_hits} by another path");
    assert!(touching > 50 && touching < pairs.len(), "a mix of touching and apart pairs");
    assert!(flipped * 200 <= cpu_hits.max(1), "{flipped} particles differ of {cpu_hits}");
    // The corner pair: particles, no hit.
    assert!(cpu_pair(&placed, (60, 61), &params).len() > 50);
    assert!(frame.pair(apart).is_empty());
}

/// A contact buffer too small for the frame: the write pass runs in batches
/// of whole pairs and the frame is the same as with one pass; a single pair
/// with more contacts than the buffer holds is a typed error.
#[test]
fn a_small_contact_buffer_gives_the_same_frame_in_batches() {
    let Some(mut gpu) = gpu() else { return };
    let mut rng = rng(64);
    let shapes: Vec<GpuShape> = (0..40).map(|k| random_shape(&mut rng, k)).collect();
    gpu.upload_shapes(&shapes).unwrap();
    let poses: Vec<Pose<f32>> = (0..shapes.len()).map(|_| random_pose(&mut rng, 1.0)).collect();
    let pairs: Vec<(u32, u32)> = (0..40u32).flat_map(|a| (a + 1..40).map(move |b| (a, b))).take(300).collect();
    let params = ParticleParams { resolution: 8, max_steps: 16, epsilon: 1e-3, thinning: None };
    let whole = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
    let largest = (0..pairs.len()).map(|k| whole.pair(k).len()).max().unwrap();
    assert!(whole.contacts.len() > 10 * largest, "{} contacts, largest pair {largest}", whole.contacts.len());
    // Room for the largest pair and a little more: many batches.
    assert_eq!(gpu.limit_contact_buffer(48 * (largest as u64 + 7)), 48 * (largest as u64 + 7));
    let batched = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
    assert_eq!(batched, whole);
    // One pair that does not fit: an error, and the pipeline still answers.
    gpu.limit_contact_buffer(48 * (largest as u64 - 1));
    match gpu.contacts_blocking(&poses, &pairs, &params) {
        Err(GpuError::LimitExceeded { what, requested, limit }) => {
            assert_eq!(
                (what, requested, limit),
                ("contact bytes of one pair", 48 * largest as u64, 48 * (largest as u64 - 1))
            )
        }
        other => panic!("{other:?}"),
    }
    gpu.limit_contact_buffer(u64::MAX);
    assert_eq!(gpu.contacts_blocking(&poses, &pairs, &params).unwrap(), whole);
}

#[test]
fn bad_input_is_a_typed_error_and_the_pipeline_recovers() {
    let Some(mut gpu) = gpu() else { return };
    let cube = GpuShape::Cuboid(Cuboid::new(Vector3::new(1.0, 1.0, 1.0)).unwrap());
    gpu.upload_shapes(&[cube, cube]).unwrap();
    let poses = [Pose::identity(), Pose::from_parts(Translation3::new(0.5, 0.0, 0.0), Default::default())];
    let small = ParticleParams { resolution: 4, max_steps: 16, epsilon: 1e-3, thinning: None };
    assert!(matches!(gpu.contacts_blocking(&poses, &[(0, 2)], &small), Err(GpuError::BadIndex { index: 2, .. })));
    assert!(matches!(gpu.contacts_blocking(&poses[..1], &[(0, 0)], &small), Err(GpuError::BadIndex { .. })));
    let mut bad = poses;
    bad[1].translation.vector.x = f32::NAN;
    assert_eq!(gpu.contacts_blocking(&bad, &[(0, 1)], &small), Err(GpuError::NonFinitePose(1)));
    let zero = ParticleParams { resolution: 0, ..small };
    assert!(matches!(gpu.contacts_blocking(&poses, &[(0, 1)], &zero), Err(GpuError::Particles(_))));
    // After the errors the pipeline still answers: the cube pair overlaps in a
    // 1.5 × 2 × 2 box (the CPU's particle set), every particle inside both
    // bodies: all hits at once.
    let frame = gpu.contacts_blocking(&poses, &[(0, 1)], &small).unwrap();
    let placed = gpu.placed(&poses);
    let setup = pair_setup(&placed[0], &placed[1], &small).unwrap().unwrap();
    assert!((setup.region.extent() - Vector3::new(1.5, 2.0, 2.0)).norm() < 1e-6);
    assert_eq!(frame.particles, u64::from(setup.count));
    let hits = frame.pair(0);
    assert_eq!(hits.len(), setup.count as usize);
    for c in hits {
        let p = c.point;
        // Inside A = [−1,1]³ and B = [−0.5,1.5]×[−1,1]², φ = −(distance to the nearest face);
        // Eq. 15's depth min(φ_A, φ_B) is the larger of the two distances, negated.
        let (ya, za) = (1.0 - p.y.abs(), 1.0 - p.z.abs());
        let in_a = (1.0 - p.x.abs()).min(ya).min(za);
        let in_b = (1.5 - p.x).min(p.x + 0.5).min(ya).min(za);
        let face = in_a.max(in_b);
        assert!(c.steps == 0 && (c.depth + face).abs() < 1e-5, "{c:?}");
    }
    // An empty frame.
    let empty = gpu.contacts_blocking(&poses, &[], &small).unwrap();
    assert!(empty.contacts.is_empty() && empty.ranges.is_empty());
}
