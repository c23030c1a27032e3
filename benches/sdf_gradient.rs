//! The projected-gradient methods (Liu et al. §4.3–4.4): time per query and
//! contacts per second, f32 and f64.
//!
//! # Workloads (one fixed pose each)
//! - `sphere_box`: a unit ball 0.2 deep in the top face of a cube of side 2;
//! - `box_box`: two cubes of side 2, one rotated (a corner and edges in the
//!   other's face region), 0.25 deep;
//! - `torus_torus`: linked rings (major 2 / minor 0.3, and major 0.6 /
//!   minor 0.15 tilted 50° about A's core circle): two contact regions.
//!
//! Detection points: the cell centres of a regular 2³ or 4³ split of the
//! detection box (`lattice_points`). The lead will add the octree's kept
//! cell centres as a third source (marked below).
//!
//! # Cases (criterion group `<workload>_<f32|f64>`)
//! - `intersect_<n>`: Algorithm 2 from the detection points in order until
//!   the first hit (a yes/no collision query);
//! - `contacts_<n>`: [`contacts`] with the default parameters: Algorithm 2
//!   from every point, Algorithm 3 from every hit not covered by a stored
//!   contact, merged; `contacts_all_<n>`: Algorithm 3 from every hit (the
//!   paper; `skip_covered_hits: false`). Contacts per second = distinct contacts (the
//!   table) / median time.
//!
//! ```text
//! cargo bench --features std --bench sdf_gradient -- --warm-up-time 1 --measurement-time 2
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Matrix3, Rotation3, SVector, Vector3};
use narrowphase::math::Real;
use narrowphase::sdf::gradient::{contacts, intersection_test, lattice_points, GradientContact, GradientParams};
use narrowphase::sdf::{BoxN, Sdf, Torus, Transformed};
use narrowphase::shape::Sphere;

fn lit<R: Real>(x: f64) -> R {
    R::lit(x)
}

fn v<R: Real>(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::new(lit(x), lit(y), lit(z))
}

fn m<R: Real>(q: &Matrix3<f64>) -> Matrix3<R> {
    q.map(lit)
}

/// Detection points: the lattice over the detection box.
fn detection_points<R: Real, A: Sdf<R, 3>, B: Sdf<R, 3>>(a: &A, b: &B, per_axis: u32) -> Vec<SVector<R, 3>> {
    let region = a.bounding_box().intersection(&b.bounding_box()).expect("boxes meet");
    let mut points = vec![SVector::<R, 3>::zeros(); (per_axis as usize).pow(3)];
    let n = lattice_points(&region, per_axis, &mut points).expect("lattice");
    points.truncate(n);
    points
    // ---- OCTREE DETECTION POINTS (lead): add a second source here — the
    // centres of the cells that `sdf::octree` keeps (inside or undecided)
    // for the same pair — and bench `contacts` on them like the lattices.
}

/// Algorithm 2 from the points in order until the first hit; the steps used.
fn first_hit<R: Real, A: Sdf<R, 3>, B: Sdf<R, 3>>(
    a: &A,
    b: &B,
    points: &[SVector<R, 3>],
    p: &GradientParams<R>,
) -> (bool, u32) {
    let mut steps = 0;
    for x0 in points {
        let out = intersection_test(a, b, x0, p);
        steps += out.iterations();
        if out.found().is_some() {
            return (true, steps);
        }
    }
    (false, steps)
}

fn workload<R: Real, A: Sdf<R, 3>, B: Sdf<R, 3>>(c: &mut Criterion, name: &str, ty: &str, a: &A, b: &B) {
    let p = GradientParams::<R>::default();
    let group_name = format!("{name}_{ty}");
    let mut rows = Vec::new();
    let lattices: Vec<(u32, Vec<SVector<R, 3>>)> = [2u32, 4].iter().map(|&n| (n, detection_points(a, b, n))).collect();
    for (n, points) in &lattices {
        let mut out = [GradientContact::<R, 3>::default(); 16];
        let r = contacts(a, b, points, &p, &mut out).expect("contacts");
        let (hit, steps) = first_hit(a, b, points, &p);
        let depth = out[..r.stored as usize].iter().map(|c| c.depth.to_f64()).fold(0.0, f64::max);
        rows.push(format!(
            "  {:>3} points: first hit {:5} after {:4} steps | contacts {} (hits {}, merged {}, covered {}, dropped {}, unconverged {}, undetermined {}), {:6} steps, {:.1} steps/point, depth {:.4}",
            n.pow(3),
            hit,
            steps,
            r.distinct,
            r.hits,
            r.merged,
            r.covered,
            r.dropped,
            r.unconverged,
            r.undetermined,
            r.iterations,
            r.iterations as f64 / r.tried as f64,
            depth
        ));
    }
    println!("\n{group_name}:");
    for row in rows {
        println!("{row}");
    }
    let mut g = c.benchmark_group(group_name);
    g.sample_size(20);
    for (n, points) in &lattices {
        let k = n.pow(3);
        g.bench_function(format!("intersect_{k}"), |bn| bn.iter(|| first_hit(black_box(a), black_box(b), points, &p)));
        g.bench_function(format!("contacts_{k}"), |bn| {
            bn.iter(|| {
                let mut out = [GradientContact::<R, 3>::default(); 16];
                contacts(black_box(a), black_box(b), points, &p, &mut out).map(|r| r.stored)
            })
        });
        let all = GradientParams { skip_covered_hits: false, ..p };
        g.bench_function(format!("contacts_all_{k}"), |bn| {
            bn.iter(|| {
                let mut out = [GradientContact::<R, 3>::default(); 16];
                contacts(black_box(a), black_box(b), points, &all, &mut out).map(|r| r.stored)
            })
        });
    }
    g.finish();
}

fn typed<R: Real>(c: &mut Criterion, ty: &str) {
    let id = Matrix3::<f64>::identity();
    // sphere_box
    let ball = Transformed::new(Sphere::new(lit::<R>(1.0)).unwrap(), m(&id), R::ONE, v(0.3, 0.1, 1.8)).unwrap();
    let cube = BoxN::new(v::<R>(1.0, 1.0, 1.0)).unwrap();
    workload(c, "sphere_box", ty, &ball, &cube);
    // box_box: the rotated cube's lowest corner 0.25 below the top face.
    let q = *Rotation3::from_euler_angles(0.6, 0.4, 0.3).matrix();
    let lowest = (0..8)
        .map(|i| {
            let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
            (q * Vector3::new(s(0), s(1), s(2))).z
        })
        .fold(f64::INFINITY, f64::min);
    let rotated =
        Transformed::new(BoxN::new(v::<R>(1.0, 1.0, 1.0)).unwrap(), m(&q), R::ONE, v(0.2, -0.1, 0.75 - lowest))
            .unwrap();
    workload(c, "box_box", ty, &rotated, &cube);
    // torus_torus: linked, two regions.
    let theta = 50f64.to_radians();
    let axis = Vector3::new(0.0, theta.cos(), theta.sin());
    let e1 = Vector3::x();
    let rot = Matrix3::from_columns(&[e1, axis.cross(&e1), axis]);
    let big = Transformed::new(Torus::new(lit::<R>(2.0), lit(0.3)).unwrap(), m(&id), R::ONE, v(0.0, 0.0, 0.0)).unwrap();
    let small =
        Transformed::new(Torus::new(lit::<R>(0.6), lit(0.15)).unwrap(), m(&rot), R::ONE, v(2.0, 0.0, 0.0)).unwrap();
    workload(c, "torus_torus", ty, &big, &small);
}

fn benches(c: &mut Criterion) {
    typed::<f32>(c, "f32");
    typed::<f64>(c, "f64");
}

criterion_group!(gradient, benches);
criterion_main!(gradient);
