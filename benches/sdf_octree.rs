//! The interval octree (Liu et al. §3, Algorithm 1): cells visited and time
//! per query, by depth and mode, f32 and f64.
//!
//! # Workloads (each a fixed set of [`POSES`] random poses)
//! - `balls_hit`: two unit balls overlapping by 0–0.5;
//! - `balls_apart`: two unit balls 0.05–0.5 apart (boxes overlapping);
//! - `boxes`: two rotated boxes (0.6 × 0.4 × 0.3, 0.5 × 0.5 × 0.2) at random
//!   poses within 1.6 of each other (mixed verdicts);
//! - `tori`: two linked rings (core 1, tube 0.25) turned by random small
//!   angles about the scene of `tests/suite/sdf_interval.rs` (two overlap
//!   regions).
//!
//! Cases `decide_d{4,6,8}` ([`Stop::Decided`]: stop at the first cell
//! inside both) and `collect_d{4,6}` ([`Stop::Converged`]: the whole
//! region, the detection points). Each criterion iteration runs every pose
//! once: divide by [`POSES`]. The cells visited (median, max) and verdict
//! counts are printed before timing.
//!
//! ```text
//! cargo bench --features std --bench sdf_octree -- --warm-up-time 1 --measurement-time 2
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Matrix3, Rotation3, Vector3};
use narrowphase::math::Real;
use narrowphase::prelude::*;
use narrowphase::query::Stop;
use narrowphase::sdf::octree::{self, Cell, KeptCell, OctreeParams, OctreeVerdict};
use narrowphase::sdf::{IntervalSdf, Torus, Transformed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const POSES: usize = 64;

type Body<R> = Transformed<Shape<R>, R, 3>;

/// The shapes of the workloads behind one type.
#[derive(Clone, Copy, Debug)]
enum Shape<R: Real> {
    Ball(Sphere<R>),
    Box(Cuboid<R>),
    Torus(Torus<R>),
}

impl<R: Real> narrowphase::sdf::Sdf<R, 3> for Shape<R> {
    fn eval(&self, x: &Vector3<R>) -> narrowphase::sdf::SdfSample<R, 3> {
        match self {
            Shape::Ball(s) => s.eval(x),
            Shape::Box(s) => s.eval(x),
            Shape::Torus(s) => s.eval(x),
        }
    }
    fn accuracy(&self) -> narrowphase::sdf::SdfAccuracy {
        narrowphase::sdf::SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> narrowphase::sdf::Ball<R, 3> {
        match self {
            Shape::Ball(s) => narrowphase::sdf::Sdf::<R, 3>::bounding_ball(s),
            Shape::Box(s) => s.bounding_ball(),
            Shape::Torus(s) => s.bounding_ball(),
        }
    }
    fn bounding_box(&self) -> narrowphase::sdf::Aabb<R, 3> {
        match self {
            Shape::Ball(s) => narrowphase::sdf::Sdf::<R, 3>::bounding_box(s),
            Shape::Box(s) => s.bounding_box(),
            Shape::Torus(s) => s.bounding_box(),
        }
    }
}

impl<R: Real> IntervalSdf<R, 3> for Shape<R> {
    fn eval_interval(
        &self,
        b: &[narrowphase::sdf::interval::Interval<R>; 3],
    ) -> narrowphase::sdf::interval::Interval<R> {
        match self {
            Shape::Ball(s) => s.eval_interval(b),
            Shape::Box(s) => s.eval_interval(b),
            Shape::Torus(s) => s.eval_interval(b),
        }
    }
}

fn place<R: Real>(s: Shape<R>, r: &Rotation3<f64>, t: Vector3<f64>) -> Body<R> {
    Transformed::new(s, r.matrix().map(R::lit), R::ONE, t.map(R::lit)).expect("valid pose")
}

fn random_rotation(rng: &mut ChaCha8Rng) -> Rotation3<f64> {
    let axis = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis), rng.random_range(0.0..std::f64::consts::TAU))
}

fn workload<R: Real>(name: &str) -> Vec<(Body<R>, Body<R>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let ball = Shape::Ball(Sphere::new(R::ONE).expect("ball"));
    (0..POSES)
        .map(|_| {
            let dir = random_rotation(&mut rng) * Vector3::x();
            match name {
                "balls_hit" => (
                    place(ball, &Rotation3::identity(), Vector3::zeros()),
                    place(ball, &Rotation3::identity(), dir * (2.0 - rng.random_range(0.0..0.5))),
                ),
                "balls_apart" => (
                    place(ball, &Rotation3::identity(), Vector3::zeros()),
                    place(ball, &Rotation3::identity(), dir * (2.0 + rng.random_range(0.05..0.5))),
                ),
                "boxes" => {
                    let a = Shape::Box(Cuboid::new(Vector3::new(0.6, 0.4, 0.3).map(R::lit)).expect("box"));
                    let b = Shape::Box(Cuboid::new(Vector3::new(0.5, 0.5, 0.2).map(R::lit)).expect("box"));
                    let t = Vector3::new(
                        rng.random_range(-0.8..0.8),
                        rng.random_range(-0.8..0.8),
                        rng.random_range(-0.8..0.8),
                    );
                    (place(a, &random_rotation(&mut rng), Vector3::zeros()), place(b, &random_rotation(&mut rng), t))
                }
                _ => {
                    let ring = Shape::Torus(Torus::new(R::ONE, R::lit(0.25)).expect("torus"));
                    let wobble = Rotation3::from_scaled_axis(dir * rng.random_range(0.0..0.1));
                    let turn = Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2);
                    (place(ring, &Rotation3::identity(), Vector3::zeros()), place(ring, &(wobble * turn), Vector3::x()))
                }
            }
        })
        .collect()
}

const WORKLOADS: [&str; 4] = ["balls_hit", "balls_apart", "boxes", "tori"];

fn cases() -> Vec<(String, OctreeParams)> {
    let mut v = Vec::new();
    for d in [4u8, 6, 8] {
        v.push((format!("decide_d{d}"), OctreeParams { max_depth: d, max_cells: 1 << 20, stop: Stop::Decided }));
    }
    for d in [4u8, 6] {
        v.push((format!("collect_d{d}"), OctreeParams { max_depth: d, max_cells: 1 << 20, stop: Stop::Converged }));
    }
    v
}

fn run_all<R: Real>(
    pairs: &[(Body<R>, Body<R>)],
    p: &OctreeParams,
    stack: &mut [Cell<R, 3>],
    out: &mut [KeptCell<R, 3>],
) -> Vec<octree::OctreeReport> {
    pairs.iter().map(|(a, b)| octree::intersect(a, b, p, stack, out).expect("valid query")).collect()
}

fn table<R: Real>(label: &str) {
    let mut stack = vec![Cell::<R, 3>::default(); octree::required_stack(3, 8)];
    let mut out = vec![KeptCell::<R, 3>::default(); 1 << 14];
    println!("\n{label}: cells visited per query (median / max) and verdicts (hit / apart / undecided)");
    println!("| workload | case | visited median | visited max | hit | apart | undecided |");
    println!("|---|---|--:|--:|--:|--:|--:|");
    for w in WORKLOADS {
        let pairs = workload::<R>(w);
        for (name, p) in cases() {
            let reps = run_all(&pairs, &p, &mut stack, &mut out);
            let mut v: Vec<u32> = reps.iter().map(|r| r.visited).collect();
            v.sort();
            let count = |f: fn(&OctreeVerdict) -> bool| reps.iter().filter(|r| f(&r.verdict)).count();
            println!(
                "| {w} | {name} | {} | {} | {} | {} | {} |",
                v[v.len() / 2],
                v[v.len() - 1],
                count(|v| *v == OctreeVerdict::Penetrating),
                count(|v| *v == OctreeVerdict::Separated),
                count(|v| matches!(v, OctreeVerdict::Undetermined { .. }))
            );
        }
    }
}

fn bench_precision<R: Real>(c: &mut Criterion, suffix: &str) {
    let mut stack = vec![Cell::<R, 3>::default(); octree::required_stack(3, 8)];
    let mut out = vec![KeptCell::<R, 3>::default(); 1 << 14];
    for w in WORKLOADS {
        let pairs = workload::<R>(w);
        let mut g = c.benchmark_group(format!("octree_{w}{suffix}"));
        for (name, p) in cases() {
            g.bench_function(&name, |bch| {
                bch.iter(|| {
                    for (a, b) in &pairs {
                        black_box(octree::intersect(a, b, &p, &mut stack, &mut out).ok());
                    }
                })
            });
        }
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    table::<f64>("f64");
    table::<f32>("f32");
    bench_precision::<f64>(c, "");
    bench_precision::<f32>(c, "_f32");
    let _ = Matrix3::<f64>::identity();
}

criterion_group!(octree_benches, benches);
criterion_main!(octree_benches);
