//! The particle method (Krayer et al.) on one core: contacts per second and
//! time per pair at the paper's Table 1 base resolutions N = 5, 10, 15, 20.
//!
//! # Workloads (16 poses each, f32 and f64)
//! - `sphere_box`: a unit ball sunk 0–0.3 into a cube of side 2 at random
//!   tilts (the paper's cube–sphere scene);
//! - `box_box`: two rotated boxes overlapping;
//! - `rings`: two linked rings (core 1, tube 0.25) with small random turns.
//!
//! Each criterion iteration runs every pose once: divide by 16 for the time
//! per pair. Particles, hits and contacts per pair are printed first; the
//! contacts/s column divides the hits (every hit is a contact: the buffer
//! holds them all) by the median time.
//!
//! ```text
//! cargo bench --features std --bench sdf_particles -- --warm-up-time 1 --measurement-time 2
//! ```

use std::f64::consts::PI;
use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use narrowphase::math::Real;
use narrowphase::prelude::*;
use narrowphase::sdf::particles::{particle_contacts, ParticleContact, ParticleParams};
use narrowphase::sdf::{Aabb, Ball, Sdf, SdfAccuracy, SdfSample, Transformed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const POSES: usize = 16;
const RESOLUTIONS: [u32; 4] = [5, 10, 15, 20];

/// The workloads' shapes behind one type, placed.
#[derive(Clone, Copy, Debug)]
enum Shape<R: Real> {
    Ball(Sphere<R>),
    Box(Cuboid<R>),
    Ring(Torus<R>),
}

type Body<R> = Transformed<Shape<R>, R, 3>;

impl<R: Real> Sdf<R, 3> for Shape<R> {
    fn eval(&self, x: &Vector3<R>) -> SdfSample<R, 3> {
        match self {
            Shape::Ball(s) => s.eval(x),
            Shape::Box(s) => s.eval(x),
            Shape::Ring(s) => s.eval(x),
        }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<R, 3> {
        match self {
            Shape::Ball(s) => Sdf::<R, 3>::bounding_ball(s),
            Shape::Box(s) => s.bounding_ball(),
            Shape::Ring(s) => s.bounding_ball(),
        }
    }
    fn bounding_box(&self) -> Aabb<R, 3> {
        match self {
            Shape::Ball(s) => Sdf::<R, 3>::bounding_box(s),
            Shape::Box(s) => s.bounding_box(),
            Shape::Ring(s) => s.bounding_box(),
        }
    }
}

fn place<R: Real>(s: Shape<R>, r: &Rotation3<f64>, t: Vector3<f64>) -> Body<R> {
    Transformed::new(s, r.matrix().map(R::lit), R::ONE, t.map(R::lit)).expect("valid pose")
}

fn turn(rng: &mut ChaCha8Rng, max_angle: f64) -> Rotation3<f64> {
    let axis = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    Rotation3::from_axis_angle(&Unit::new_normalize(axis), rng.random_range(0.0..max_angle))
}

fn workload<R: Real>(name: &str) -> Vec<(Body<R>, Body<R>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    (0..POSES)
        .map(|_| match name {
            "sphere_box" => {
                let cube = Shape::Box(Cuboid::new(Vector3::repeat(R::ONE)).expect("cube"));
                let ball = Shape::Ball(Sphere::new(R::ONE).expect("ball"));
                let depth = rng.random_range(0.0..0.3);
                (
                    place(cube, &turn(&mut rng, 0.3), Vector3::zeros()),
                    place(ball, &Rotation3::identity(), Vector3::z() * (2.0 - depth)),
                )
            }
            "box_box" => {
                let a = Shape::Box(Cuboid::new(Vector3::new(0.6, 0.4, 0.3).map(R::lit)).expect("box"));
                let b = Shape::Box(Cuboid::new(Vector3::new(0.5, 0.5, 0.2).map(R::lit)).expect("box"));
                let t =
                    Vector3::new(rng.random_range(-0.4..0.4), rng.random_range(-0.4..0.4), rng.random_range(-0.3..0.3));
                (place(a, &turn(&mut rng, PI), Vector3::zeros()), place(b, &turn(&mut rng, PI), t))
            }
            _ => {
                let ring = Shape::Ring(Torus::new(R::ONE, R::lit(0.25)).expect("ring"));
                let upright = Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2);
                (
                    place(ring, &Rotation3::identity(), Vector3::zeros()),
                    place(ring, &(turn(&mut rng, 0.1) * upright), Vector3::x()),
                )
            }
        })
        .collect()
}

const WORKLOADS: [&str; 3] = ["sphere_box", "box_box", "rings"];

fn run_all<R: Real>(
    pairs: &[(Body<R>, Body<R>)],
    p: &ParticleParams<R>,
    out: &mut [ParticleContact<R, 3>],
) -> (u64, u64) {
    let (mut particles, mut hits) = (0u64, 0u64);
    for (a, b) in pairs {
        let rep = particle_contacts(a, b, p, out).expect("valid query");
        particles += rep.particles as u64;
        hits += rep.hits as u64;
    }
    (particles, hits)
}

fn table<R: Real>(label: &str) {
    let mut out = vec![ParticleContact::<R, 3>::default(); 1 << 14];
    println!("\n{label}: per pair (mean of {POSES} poses); time = median of 21 plain timed runs of all poses");
    println!("| workload | N | particles | contacts | µs per pair | contacts/s | particles/s |");
    println!("|---|--:|--:|--:|--:|--:|--:|");
    for w in WORKLOADS {
        let pairs = workload::<R>(w);
        for n in RESOLUTIONS {
            let p = ParticleParams { resolution: n, ..ParticleParams::default() };
            let (particles, hits) = run_all(&pairs, &p, &mut out);
            let mut times: Vec<f64> = (0..21)
                .map(|_| {
                    let t = Instant::now();
                    black_box(run_all(&pairs, &p, &mut out));
                    t.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
            let t = times[times.len() / 2];
            println!(
                "| {w} | {n} | {} | {} | {:.1} | {:.0}k | {:.1}M |",
                particles / POSES as u64,
                hits / POSES as u64,
                t / POSES as f64 * 1e6,
                hits as f64 / t / 1e3,
                particles as f64 / t / 1e6
            );
        }
    }
}

fn bench_precision<R: Real>(c: &mut Criterion, suffix: &str) {
    let mut out = vec![ParticleContact::<R, 3>::default(); 1 << 14];
    for w in WORKLOADS {
        let pairs = workload::<R>(w);
        let mut g = c.benchmark_group(format!("particles_{w}{suffix}"));
        for n in RESOLUTIONS {
            let p = ParticleParams { resolution: n, ..ParticleParams::default() };
            g.bench_function(format!("n{n}"), |bch| bch.iter(|| black_box(run_all(&pairs, &p, &mut out))));
        }
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    table::<f32>("f32");
    table::<f64>("f64");
    bench_precision::<f32>(c, "_f32");
    bench_precision::<f64>(c, "");
    let _ = Matrix3::<f64>::identity();
}

criterion_group!(particle_benches, benches);
criterion_main!(particle_benches);
