//! Sampled SDF grids (Krayer et al. §3.2): time per evaluation of the
//! zeroth-order (trilinear) and first-order (Eq. 9–12) grids of a torus
//! (39 × 39 × 15 samples, h = 0.05), f32 and F16 storage, against the
//! analytic SDF; memory per grid printed first. Each criterion iteration
//! evaluates 1024 random points: divide by 1024.
//!
//! ```text
//! cargo bench --features std,f16 --bench sdf_grid -- --warm-up-time 1 --measurement-time 2
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Vector3;
use narrowphase::sdf::grid::{fill_first_order, fill_zeroth, GridLayout, F16};
use narrowphase::sdf::{Aabb, Sdf, Torus};
use rand::{Rng, SeedableRng};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let torus = Torus::new(0.6_f32, 0.25).unwrap();
    let b = Aabb::new(Vector3::new(-0.95, -0.95, -0.35), Vector3::new(0.95, 0.95, 0.35)).unwrap();
    let layout = GridLayout::covering(&b, 0.05_f32).unwrap();
    println!("torus grid {:?} samples, h = 0.05", layout.dims());
    let mut z = vec![0.0_f32; layout.samples()];
    let mut f = vec![0.0_f32; 4 * layout.samples()];
    let mut h = vec![F16::ZERO; 4 * layout.samples()];
    let zg = fill_zeroth(&torus, &layout, &mut z).unwrap();
    let fg = fill_first_order(&torus, &layout, &mut f).unwrap();
    let hg = fill_first_order(&torus, &layout, &mut h).unwrap();
    println!(
        "memory: zeroth f32 {} B, first-order f32 {} B, first-order F16 {} B",
        zg.memory_bytes(),
        fg.memory_bytes(),
        hg.memory_bytes()
    );
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let pts: Vec<Vector3<f32>> = (0..1024)
        .map(|_| Vector3::new(r.random_range(-0.9..0.9), r.random_range(-0.9..0.9), r.random_range(-0.3..0.3)))
        .collect();
    let mut g = c.benchmark_group("grid_eval_1024_points");
    g.bench_function("torus analytic", |bch| {
        bch.iter(|| pts.iter().map(|p| torus.eval(black_box(p)).value).sum::<f32>())
    });
    g.bench_function("zeroth f32", |bch| bch.iter(|| pts.iter().map(|p| zg.eval(black_box(p)).value).sum::<f32>()));
    g.bench_function("first-order f32", |bch| {
        bch.iter(|| pts.iter().map(|p| fg.eval(black_box(p)).value).sum::<f32>())
    });
    g.bench_function("first-order F16", |bch| {
        bch.iter(|| pts.iter().map(|p| hg.eval(black_box(p)).value).sum::<f32>())
    });
    g.finish();
}
criterion_group!(benches, bench);
criterion_main!(benches);
