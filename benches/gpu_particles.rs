//! The particle method on many pairs: the wgpu pipeline (whatever adapter
//! wgpu finds; Mesa's lavapipe on a machine without a GPU) against the CPU
//! particle method on one core and on all cores (`std::thread::scope` over
//! pairs), Table 1-style scenes (N = 5, 10, 15, 20) of primitives and
//! first-order grids (one shape in six). A plain timed loop:
//! each figure is the median of several frames. Prints a table.
//!
//! `cargo bench --features gpu --bench gpu_particles` (optional: `PAIRS=…`).

use std::time::{Duration, Instant};

use nalgebra::{Rotation3, Translation3, Unit, Vector3};
use narrowphase::gpu::{GpuParticles, GpuShape};
use narrowphase::math::Pose;
use narrowphase::sdf::grid::{fill_first_order, GridLayout};
use narrowphase::sdf::particles::{particle_contacts, ParticleContact, ParticleParams};
use narrowphase::sdf::Torus;
use narrowphase::shape::{Capsule, Cuboid, Cylinder, Placed, Sphere};

/// A small deterministic generator (no rand dependency in the bench).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// Sphere, box, capsule, cylinder, torus, and (every sixth) a first-order
/// grid of one of those, spacing 0.05 (values leaked: `'static`).
fn shape(rng: &mut Lcg, i: usize) -> GpuShape<'static> {
    match i % 6 {
        0 => GpuShape::Sphere(Sphere::new(rng.range(0.3, 0.8)).unwrap()),
        1 => GpuShape::Cuboid(
            Cuboid::new(Vector3::new(rng.range(0.2, 0.7), rng.range(0.2, 0.7), rng.range(0.2, 0.7))).unwrap(),
        ),
        2 => GpuShape::Capsule(Capsule::new(rng.range(0.2, 0.6), rng.range(0.15, 0.4)).unwrap()),
        3 => GpuShape::Cylinder(Cylinder::new(rng.range(0.2, 0.6), rng.range(0.2, 0.5)).unwrap()),
        4 => {
            let major = rng.range(0.4, 0.8);
            GpuShape::Torus(Torus::new(major, major * rng.range(0.2, 0.5)).unwrap())
        }
        _ => {
            use narrowphase::sdf::Sdf;
            let body = shape(rng, i / 6 % 5);
            let h = 0.05;
            let layout = GridLayout::covering(&body.bounding_box().inflated(2.0 * h), h).unwrap();
            let values: &'static mut [f32] = Box::leak(vec![0.0; 4 * layout.samples()].into_boxed_slice());
            GpuShape::Grid(fill_first_order(&body, &layout, values).unwrap())
        }
    }
}

fn pose(rng: &mut Lcg, spread: f32) -> Pose<f32> {
    let axis = Vector3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0) + 1e-3);
    let rot = Rotation3::from_axis_angle(&Unit::new_normalize(axis), rng.range(0.0, std::f32::consts::TAU));
    let t = Translation3::new(rng.range(-spread, spread), rng.range(-spread, spread), rng.range(-spread, spread));
    Pose::from_parts(t, rot)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// The CPU particle method over `pairs` (every hit kept): total hits.
fn cpu(placed: &[Placed<GpuShape, f32>], pairs: &[(u32, u32)], params: &ParticleParams<f32>) -> u64 {
    let cap = (params.resolution as usize + 2).pow(3);
    let mut buffer = vec![ParticleContact::default(); cap];
    pairs
        .iter()
        .map(|&(a, b)| {
            let r = particle_contacts(&placed[a as usize], &placed[b as usize], params, &mut buffer).unwrap();
            u64::from(r.stored)
        })
        .sum()
}

fn cpu_threads(placed: &[Placed<GpuShape, f32>], pairs: &[(u32, u32)], params: &ParticleParams<f32>, n: usize) -> u64 {
    let chunk = pairs.len().div_ceil(n.max(1)).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = pairs.chunks(chunk).map(|c| s.spawn(move || cpu(placed, c, params))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

fn main() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join("xdg-gpu-bench");
        let _ = std::fs::create_dir_all(&dir);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
    let mut gpu = match GpuParticles::new_blocking() {
        Ok(g) => g,
        Err(e) => {
            println!("gpu_particles bench skipped: {e}");
            return;
        }
    };
    let want: usize = std::env::var("PAIRS").ok().and_then(|s| s.parse().ok()).unwrap_or(500);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rng = Lcg(7);
    let shapes: Vec<GpuShape> = (0..400).map(|i| shape(&mut rng, i)).collect();
    gpu.upload_shapes(&shapes).unwrap();
    let poses: Vec<Pose<f32>> = (0..shapes.len()).map(|_| pose(&mut rng, 2.0)).collect();
    // The CPU twins (what `gpu.placed` gives, without borrowing `gpu`).
    let placed: Vec<Placed<GpuShape, f32>> = shapes.iter().zip(&poses).map(|(s, p)| Placed::new(*s, *p)).collect();
    // The broad phase's output: pairs whose bounding boxes meet.
    let mut pairs = Vec::new();
    'outer: for a in 0..shapes.len() as u32 {
        for b in a + 1..shapes.len() as u32 {
            use narrowphase::sdf::Sdf;
            if placed[a as usize].bounding_box().intersection(&placed[b as usize].bounding_box()).is_some() {
                pairs.push((a, b));
                if pairs.len() >= want {
                    break 'outer;
                }
            }
        }
    }
    println!("adapter: {}; {} pairs of mixed primitives; CPU threads: {threads}", gpu.adapter_info(), pairs.len());
    println!(
        "{:>3} {:>10} {:>9} | {:>11} {:>11} {:>11} | {:>11} {:>11} {:>11} | {:>9} {:>9} {:>9}",
        "N",
        "particles",
        "hits",
        "GPU ms",
        "CPU1 ms",
        "CPUall ms",
        "GPU Mp/s",
        "CPU1 Mp/s",
        "CPUall Mp/s",
        "GPU µs/pr",
        "CPU1 µs/pr",
        "CPUall µs/pr"
    );
    for n in [5u32, 10, 15, 20] {
        let params = ParticleParams { resolution: n, max_steps: 16, epsilon: 1e-3, thinning: None };
        let samples = if n <= 10 { 7 } else { 3 };
        // Warm-up (buffers grow, pipelines compile), then timed frames.
        let frame = gpu.contacts_blocking(&poses, &pairs, &params).unwrap();
        let (particles, hits) = (frame.particles, frame.contacts.len() as u64);
        let time = |f: &mut dyn FnMut() -> u64| {
            median(
                (0..samples)
                    .map(|_| {
                        let t = Instant::now();
                        std::hint::black_box(f());
                        t.elapsed()
                    })
                    .collect(),
            )
        };
        let g = time(&mut || gpu.contacts_blocking(&poses, &pairs, &params).unwrap().contacts.len() as u64);
        let c1 = time(&mut || cpu(&placed, &pairs, &params));
        let cn = time(&mut || cpu_threads(&placed, &pairs, &params, threads));
        let cpu_hits = cpu(&placed, &pairs, &params);
        let mps = |d: Duration| particles as f64 / d.as_secs_f64() / 1e6;
        let per_pair = |d: Duration| d.as_secs_f64() * 1e6 / pairs.len() as f64;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{n:>3} {particles:>10} {hits:>9} | {:>11.2} {:>11.2} {:>11.2} | {:>11.2} {:>11.2} {:>11.2} | {:>9.1} {:>9.1} {:>9.1}{}",
            ms(g),
            ms(c1),
            ms(cn),
            mps(g),
            mps(c1),
            mps(cn),
            per_pair(g),
            per_pair(c1),
            per_pair(cn),
            if cpu_hits == hits { String::new() } else { format!("  (CPU hits {cpu_hits})") }
        );
    }
}
