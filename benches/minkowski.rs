//! The closed-form Minkowski family against GJK on meshes and the algebraic
//! condition, in one criterion run (Ruan et al., ICRA 2019, §V).
//!
//! # Workloads
//! The paper's protocol: one body fixed at the origin, [`POSES`] random poses
//! of the other (random rotation, translation uniform in the cube of
//! half-width the sum of the bounding radii, so that colliding and separated
//! poses mix), the shapes of `examples/accuracy_table.rs` (both from
//! `common/ruan2019.rs`):
//! - `es3`: superquadric (a = 1.5, 1, 0.8; ε = 0.4, 1.3) against an
//!   ellipsoid (1.2, 0.7, 0.5);
//! - `ee3`: ellipsoid (1.5, 1, 0.8) against the same moving ellipsoid;
//! - `es2`, `ee2`: the 2D twins (superellipse 1.5 × 1, ε = 0.5; ellipses).
//!
//! # Cases (criterion groups `<workload>_hit`, f64 unless marked)
//! - `exact` / `exact_f32`: our Algorithm 1, [`Stop::Decided`];
//!   `exact_margin`: [`Stop::Converged`] (converged margin and witness);
//! - `asc` / `asc_f32` (E–E only): the algebraic condition;
//! - `gjk_sm`: `gjk::intersect` on the exact support maps (superquadric or
//!   ellipsoid against ellipsoid), exact too;
//! - `gjk_mesh25`, `gjk_mesh100` (3D), `gjk_mesh50` (2D, prisms):
//!   `gjk::intersect` between the moving ellipsoid's exact support map and an
//!   inscribed hull of the fixed body with the paper's Table II vertex counts
//!   (hill-climbing support maps with warm hints, cold `GjkWarmStart`).
//!
//! Each criterion iteration runs every pose once; divide the median by
//! [`POSES`] for the time per query. Agreement with the exact answers and
//! iteration counts are printed before timing.
//!
//! ```text
//! cargo bench --features std --bench minkowski -- --warm-up-time 1 --measurement-time 3
//! # interleaved rounds, medians and ratios (robust on a loaded machine):
//! MINKOWSKI_PAIRED=101 cargo bench --features std --bench minkowski
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Vector2, Vector3};
use narrowphase::math::Pose2;
use narrowphase::minkowski::ellipsoid_pair::{ellipses, ellipsoids};
use narrowphase::minkowski::superquadric::{ellipse_superellipse, ellipsoid_superquadric};
use narrowphase::prelude::*;
use narrowphase::query::Stop;
use narrowphase::sdf::Sdf;
use narrowphase::shape::{Ellipse, Superellipse, Superquadric};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[path = "common/ruan2019.rs"]
mod ruan2019;
use ruan2019::{
    ellipse_prism, mesh2, mesh3, pose2, pose3, E2A_AXES, E2B_AXES, EA_AXES, EB_AXES, SE_AXES, SE_EPS, SQ_AXES, SQ_EPS,
};

/// Poses per workload (the paper's 1000).
const POSES: usize = 1000;

fn poses3(rng: &mut ChaCha8Rng, l: f64) -> Vec<Pose<f64>> {
    (0..POSES).map(|_| pose3(rng, l)).collect()
}

fn poses2(rng: &mut ChaCha8Rng, l: f64) -> Vec<(Pose2<f64>, Pose<f64>)> {
    (0..POSES).map(|_| pose2(rng, l)).collect()
}

fn gjk_hit<A: SupportMap<f64>, B: SupportMap<f64>>(a: &A, b: &B) -> (Option<bool>, u32) {
    let mut cache = GjkWarmStart::default();
    let hit = gjk::intersect(a, b, &Budget::default(), &mut cache).is_penetrating();
    (hit, cache.iterations)
}

/// Agreement with the exact answers and mean iterations, printed before timing.
fn report(name: &str, exact: &[bool], got: &[(Option<bool>, u32)]) {
    let agree = exact.iter().zip(got).filter(|(e, g)| g.0 == Some(**e)).count();
    let und = got.iter().filter(|g| g.0.is_none()).count();
    let its = got.iter().map(|g| f64::from(g.1)).sum::<f64>() / got.len() as f64;
    let max = got.iter().map(|g| g.1).max().unwrap_or(0);
    println!(
        "{name:<28} agreement with exact {:6.2}%  undetermined {und}  iterations mean {its:5.2} max {max}",
        100.0 * agree as f64 / exact.len() as f64
    );
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2019);
    let id = Pose::identity();
    let budget = Budget::default();

    // ------------------------------------------------------------ 3D ----
    let sq = Superquadric::new(Vector3::from(SQ_AXES), SQ_EPS.0, SQ_EPS.1).expect("sq");
    let ea_sq = Superquadric::new(Vector3::from(EA_AXES), 1.0, 1.0).expect("ea");
    let ea = Ellipsoid::new(Vector3::from(EA_AXES)).expect("ea");
    let eb = Ellipsoid::new(Vector3::from(EB_AXES)).expect("eb");
    let sq32 = Superquadric::new(Vector3::from(SQ_AXES).cast::<f32>(), SQ_EPS.0 as f32, SQ_EPS.1 as f32).expect("sq");
    let ea_sq32 = Superquadric::new(Vector3::from(EA_AXES).cast::<f32>(), 1.0, 1.0).expect("ea");
    let ea32 = Ellipsoid::new(Vector3::from(EA_AXES).cast::<f32>()).expect("ea");
    let eb32 = Ellipsoid::new(Vector3::from(EB_AXES).cast::<f32>()).expect("eb");
    let meshes_sq = [mesh3(&sq, 25), mesh3(&sq, 100)];
    let meshes_ea = [mesh3(&ea_sq, 25), mesh3(&ea_sq, 100)];
    let l3 = sq.bounding_sphere().1 + EB_AXES[0];
    let poses = poses3(&mut rng, l3);
    let poses32: Vec<Pose<f32>> = poses.iter().map(|p| nalgebra::convert(*p)).collect();

    for (wl, fixed, fixed32, meshes) in [("es3", &sq, &sq32, &meshes_sq), ("ee3", &ea_sq, &ea_sq32, &meshes_ea)] {
        let polys = [meshes[0].polytope().expect("p"), meshes[1].polytope().expect("p")];
        let exact_runs: Vec<(Option<bool>, u32)> = poses
            .iter()
            .map(|p| {
                let o = ellipsoid_superquadric(fixed, &id, &eb, p, &budget, Stop::Decided);
                (o.is_penetrating(), o.iterations())
            })
            .collect();
        let exact: Vec<bool> = exact_runs.iter().map(|r| r.0.unwrap_or(true)).collect();
        println!("\n{wl}: {} of {POSES} poses colliding", exact.iter().filter(|&&e| e).count());
        report("exact (Decide)", &exact, &exact_runs);
        let margin: Vec<_> = poses
            .iter()
            .map(|p| {
                let o = ellipsoid_superquadric(fixed, &id, &eb, p, &budget, Stop::Converged);
                (o.is_penetrating(), o.iterations())
            })
            .collect();
        report("exact (Margin)", &exact, &margin);
        let f32runs: Vec<_> = poses32
            .iter()
            .map(|p| {
                let o = ellipsoid_superquadric(fixed32, &Pose::identity(), &eb32, p, &Budget::default(), Stop::Decided);
                (o.is_penetrating(), o.iterations())
            })
            .collect();
        report("exact f32 (Decide)", &exact, &f32runs);
        let sm: Vec<_> = poses.iter().map(|p| gjk_hit(&Placed::new(*fixed, id), &Placed::new(eb, *p))).collect();
        report("gjk support maps", &exact, &sm);
        for (k, poly) in polys.iter().enumerate() {
            let m: Vec<_> = poses.iter().map(|p| gjk_hit(&Placed::new(*poly, id), &Placed::new(eb, *p))).collect();
            report(&format!("gjk mesh{}", [25, 100][k]), &exact, &m);
        }
        if wl == "ee3" {
            let asc: Vec<_> = poses.iter().map(|p| (ellipsoids(&ea, &id, &eb, p).is_penetrating(), 0)).collect();
            report("asc", &exact, &asc);
            let asc32: Vec<_> =
                poses32.iter().map(|p| (ellipsoids(&ea32, &Pose::identity(), &eb32, p).is_penetrating(), 0)).collect();
            report("asc f32", &exact, &asc32);
        }

        let b32 = Budget::default();
        let id32 = Pose::<f32>::identity();
        let a_sm = Placed::new(*fixed, id);
        let a_m: Vec<_> = polys.iter().map(|poly| Placed::new(*poly, id)).collect();
        let mut cases: Vec<Case> = vec![
            (
                "exact".into(),
                Box::new(|| {
                    for p in &poses {
                        let _ =
                            black_box(ellipsoid_superquadric(fixed, &id, &eb, black_box(p), &budget, Stop::Decided));
                    }
                }),
            ),
            (
                "exact_f32".into(),
                Box::new(|| {
                    for p in &poses32 {
                        let _ =
                            black_box(ellipsoid_superquadric(fixed32, &id32, &eb32, black_box(p), &b32, Stop::Decided));
                    }
                }),
            ),
            (
                "exact_margin".into(),
                Box::new(|| {
                    for p in &poses {
                        let _ =
                            black_box(ellipsoid_superquadric(fixed, &id, &eb, black_box(p), &budget, Stop::Converged));
                    }
                }),
            ),
            (
                "gjk_sm".into(),
                Box::new(|| {
                    for p in &poses {
                        let mut cache = GjkWarmStart::default();
                        let _ = black_box(gjk::intersect(&a_sm, &Placed::new(eb, *black_box(p)), &budget, &mut cache));
                    }
                }),
            ),
        ];
        for (k, a) in a_m.iter().enumerate() {
            let poses = &poses;
            cases.push((
                format!("gjk_mesh{}", [25, 100][k]),
                Box::new(move || {
                    for p in poses {
                        let mut cache = GjkWarmStart::default();
                        let _ = black_box(gjk::intersect(a, &Placed::new(eb, *black_box(p)), &budget, &mut cache));
                    }
                }),
            ));
        }
        if wl == "ee3" {
            cases.push((
                "asc".into(),
                Box::new(|| {
                    for p in &poses {
                        let _ = black_box(ellipsoids(&ea, &id, &eb, black_box(p)));
                    }
                }),
            ));
            cases.push((
                "asc_f32".into(),
                Box::new(|| {
                    for p in &poses32 {
                        let _ = black_box(ellipsoids(&ea32, &id32, &eb32, black_box(p)));
                    }
                }),
            ));
        }
        run_cases(c, &format!("{wl}_hit"), &cases);
    }

    // ------------------------------------------------------------ 2D ----
    let se = Superellipse::new(Vector2::from(SE_AXES), SE_EPS).expect("se");
    let e2a_se = Superellipse::new(Vector2::from(E2A_AXES), 1.0).expect("e2a");
    let e2a = Ellipse::new(Vector2::from(E2A_AXES)).expect("e2a");
    let e2b = Ellipse::new(Vector2::from(E2B_AXES)).expect("e2b");
    let prism_b = ellipse_prism(&E2B_AXES);
    let prism_a = ellipse_prism(&E2A_AXES);
    let l2 = Sdf::<f64, 2>::bounding_ball(&se).radius + E2B_AXES[0];
    let poses = poses2(&mut rng, l2);
    for (wl, fixed) in [("es2", &se), ("ee2", &e2a_se)] {
        let mesh = mesh2(fixed, 50);
        let poly = mesh.polytope().expect("p");
        let exact_runs: Vec<_> = poses
            .iter()
            .map(|(p2, _)| {
                let o = ellipse_superellipse(fixed, &Pose2::identity(), &e2b, p2, &budget, Stop::Decided);
                (o.is_penetrating(), o.iterations())
            })
            .collect();
        let exact: Vec<bool> = exact_runs.iter().map(|r| r.0.unwrap_or(true)).collect();
        println!("\n{wl}: {} of {POSES} poses colliding", exact.iter().filter(|&&e| e).count());
        report("exact (Decide)", &exact, &exact_runs);
        let m: Vec<_> =
            poses.iter().map(|(_, p3)| gjk_hit(&Placed::new(poly, id), &Placed::new(&prism_b, *p3))).collect();
        report("gjk mesh50 (prisms)", &exact, &m);
        if wl == "ee2" {
            let asc: Vec<_> = poses
                .iter()
                .map(|(p2, _)| (ellipses(&e2a, &Pose2::identity(), &e2b, p2).is_penetrating(), 0))
                .collect();
            report("asc", &exact, &asc);
            let sm: Vec<_> =
                poses.iter().map(|(_, p3)| gjk_hit(&Placed::new(&prism_a, id), &Placed::new(&prism_b, *p3))).collect();
            report("gjk support maps (prisms)", &exact, &sm);
        }
        let a_m = Placed::new(poly, id);
        let mut cases: Vec<Case> = vec![
            (
                "exact".into(),
                Box::new(|| {
                    for (p2, _) in &poses {
                        let _ = black_box(ellipse_superellipse(
                            fixed,
                            &Pose2::identity(),
                            &e2b,
                            black_box(p2),
                            &budget,
                            Stop::Decided,
                        ));
                    }
                }),
            ),
            (
                "gjk_mesh50".into(),
                Box::new(|| {
                    for (_, p3) in &poses {
                        let mut cache = GjkWarmStart::default();
                        let _ = black_box(gjk::intersect(
                            &a_m,
                            &Placed::new(&prism_b, *black_box(p3)),
                            &budget,
                            &mut cache,
                        ));
                    }
                }),
            ),
        ];
        if wl == "ee2" {
            cases.push((
                "asc".into(),
                Box::new(|| {
                    for (p2, _) in &poses {
                        let _ = black_box(ellipses(&e2a, &Pose2::identity(), &e2b, black_box(p2)));
                    }
                }),
            ));
        }
        run_cases(c, &format!("{wl}_hit"), &cases);
    }
}

/// A named case: one call runs every pose once.
type Case<'a> = (String, Box<dyn Fn() + 'a>);

/// Criterion, or with `MINKOWSKI_PAIRED=R` interleaved rounds: every case
/// once per round, `R` rounds, medians per query and ratios to the first
/// GJK mesh case (robust on a loaded machine: the load hits every case of a
/// round alike).
fn run_cases(c: &mut Criterion, group: &str, cases: &[Case]) {
    if let Some(rounds) = std::env::var("MINKOWSKI_PAIRED").ok().and_then(|r| r.parse::<usize>().ok()) {
        let mut times = vec![Vec::with_capacity(rounds); cases.len()];
        for _ in 0..rounds {
            for (k, (_, f)) in cases.iter().enumerate() {
                let t = std::time::Instant::now();
                f();
                times[k].push(t.elapsed().as_secs_f64() * 1e9 / POSES as f64);
            }
        }
        let med: Vec<f64> = times
            .iter_mut()
            .map(|v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
            .collect();
        let base = |name: &str| cases.iter().position(|(n, _)| n == name).map(|k| med[k]);
        println!("\n{group} (paired, {rounds} rounds, median ns per query):");
        for (k, (name, _)) in cases.iter().enumerate() {
            let r25 = base("gjk_mesh25").or(base("gjk_mesh50")).map_or(f64::NAN, |b| med[k] / b);
            let r100 = base("gjk_mesh100").map_or(f64::NAN, |b| med[k] / b);
            println!("  {name:<14} {:9.1} ns   ×coarse mesh {r25:5.2}   ×mesh100 {r100:5.2}", med[k]);
        }
        return;
    }
    let mut g = c.benchmark_group(group);
    for (name, f) in cases {
        g.bench_function(name.as_str(), |bn| bn.iter(f));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
