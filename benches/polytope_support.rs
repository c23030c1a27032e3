//! Time per support query on a [`Polytope`]: linear scan against hill
//! climbing, to place `HILL_CLIMB_MIN_VERTICES` (the vertex count from which
//! `Polytope::support` climbs instead of scanning).
//!
//! # Workload
//! Hulls (f32, `hull::quickhull`) of N points uniform on the unit sphere, all
//! of them extreme, so the hull has exactly N vertices: N = 8, 16, 24, 32, 48,
//! 64, 128, 500, 1000.
//!
//! # Queries (criterion group `polytope_support`, ids `<variant>/<N>`)
//! - `scan`: `support_index_scan` (every vertex, one dot product each);
//! - `climb_warm`: `support_index_climb` started from the previous answer,
//!   the direction turning slowly (about 2° per query: a GJK iteration or a
//!   control tick apart) — the case the hint is for;
//! - `climb_jump`: from the previous answer, the direction turning about 30°
//!   per query about a random axis (successive GJK iterations, whose search
//!   directions change more than a frame's);
//! - `climb_cold`: `support_index_climb` with no hint (`usize::MAX`: from
//!   the stored vertex of the direction's sector) in random directions (the
//!   first query of a GJK run on a fresh pair).
//!
//! Each iteration runs one query; the directions cycle through a precomputed
//! table of [`DIRS`] entries, so no generator runs inside the timing. At the
//! end a table of criterion's medians (ns per query) is printed.
//!
//! Run: `cargo bench --features std --bench polytope_support -- --warm-up-time 1 --measurement-time 2`.

#[cfg(feature = "std")]
mod bench {
    use std::hint::black_box;
    use std::path::PathBuf;
    use std::time::Duration;

    use criterion::Criterion;
    use nalgebra::{Point3, Rotation3, Unit, Vector3};
    use narrowphase::hull::{quickhull, OwnedPolytope};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Hull sizes (vertex counts).
    pub const SIZES: [usize; 9] = [8, 16, 24, 32, 48, 64, 128, 500, 1000];
    /// Directions per table (a power of two).
    const DIRS: usize = 4096;
    const VARIANTS: [&str; 4] = ["scan", "climb_warm", "climb_jump", "climb_cold"];

    fn unit(rng: &mut ChaCha8Rng) -> Vector3<f64> {
        loop {
            let v = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            let n = v.norm();
            if n > 0.1 && n <= 1.0 {
                return v / n;
            }
        }
    }

    /// A hull with exactly `n` vertices: `n` random points on the unit sphere.
    fn sphere_hull(rng: &mut ChaCha8Rng, n: usize) -> OwnedPolytope<f32> {
        loop {
            let pts: Vec<Point3<f32>> = (0..n).map(|_| Point3::from(unit(rng).map(|c| c as f32))).collect();
            if let Ok(h) = quickhull(&pts) {
                if h.data().vertices.len() == n {
                    return h;
                }
            }
        }
    }

    /// A turning direction: rotated by `angle` per step about an axis that
    /// drifts by `drift` per step.
    fn turning(rng: &mut ChaCha8Rng, angle: f64, drift: f64) -> Vec<Vector3<f32>> {
        let mut d = unit(rng);
        let mut axis = unit(rng);
        (0..DIRS)
            .map(|_| {
                axis = (axis + unit(rng) * drift).normalize();
                d = Rotation3::from_axis_angle(&Unit::new_normalize(axis), angle) * d;
                d.map(|c| c as f32)
            })
            .collect()
    }

    pub fn run(c: &mut Criterion) {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
        let random: Vec<Vector3<f32>> = (0..DIRS).map(|_| unit(&mut rng).map(|c| c as f32)).collect();
        let slow = turning(&mut rng, 0.035, 0.05);
        let jumps = turning(&mut rng, 0.5, 2.0);
        let mut group = c.benchmark_group("polytope_support");
        for &n in &SIZES {
            let hull = sphere_hull(&mut rng, n);
            let poly = hull.polytope().expect("valid hull");
            // The three agree (ties compared by value).
            let value = |d: &Vector3<f32>, i: usize| d.dot(&hull.data().vertices[i].coords);
            let (mut warm, mut jump) = (0, 0);
            for ((r, s), j) in random.iter().zip(&slow).zip(&jumps) {
                let best = value(r, poly.support_index_scan(r));
                assert!(value(r, poly.support_index_climb(r, usize::MAX)) >= best - 1e-6);
                warm = poly.support_index_climb(s, warm);
                assert!(value(s, warm) >= value(s, poly.support_index_scan(s)) - 1e-6);
                jump = poly.support_index_climb(j, jump);
                assert!(value(j, jump) >= value(j, poly.support_index_scan(j)) - 1e-6);
            }
            let mut i = 0usize;
            group.bench_function(format!("scan/{n}"), |b| {
                b.iter(|| {
                    i = (i + 1) & (DIRS - 1);
                    black_box(poly.support_index_scan(black_box(&random[i])))
                })
            });
            let mut i = 0usize;
            let mut hint = 0usize;
            group.bench_function(format!("climb_warm/{n}"), |b| {
                b.iter(|| {
                    i = (i + 1) & (DIRS - 1);
                    hint = poly.support_index_climb(black_box(&slow[i]), hint);
                    black_box(hint)
                })
            });
            let mut i = 0usize;
            let mut hint = 0usize;
            group.bench_function(format!("climb_jump/{n}"), |b| {
                b.iter(|| {
                    i = (i + 1) & (DIRS - 1);
                    hint = poly.support_index_climb(black_box(&jumps[i]), hint);
                    black_box(hint)
                })
            });
            let mut i = 0usize;
            group.bench_function(format!("climb_cold/{n}"), |b| {
                b.iter(|| {
                    i = (i + 1) & (DIRS - 1);
                    black_box(poly.support_index_climb(black_box(&random[i]), black_box(usize::MAX)))
                })
            });
        }
        group.finish();
    }

    /// Criterion's median for `id` (ns), from its `estimates.json`.
    fn median(id: &str) -> Option<f64> {
        let dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
        let text = std::fs::read_to_string(dir.join("criterion").join(id).join("new").join("estimates.json")).ok()?;
        let at = text.find("\"median\"")?;
        let rest = &text[at..];
        let p = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
        let num: String =
            rest[p..].chars().skip_while(|c| c.is_whitespace()).take_while(|c| !matches!(c, ',' | '}')).collect();
        num.trim().parse().ok()
    }

    pub fn table() {
        println!("\nmedian ns per support query (f32)");
        println!("{:>6} {:>10} {:>12} {:>12} {:>12}", "N", VARIANTS[0], VARIANTS[1], VARIANTS[2], VARIANTS[3]);
        for &n in &SIZES {
            let cell = |v: &str| {
                // Criterion stores `group/a/b` as `group/a_b`.
                median(&format!("polytope_support/{v}_{n}")).map_or_else(|| "-".to_string(), |m| format!("{m:.1}"))
            };
            println!(
                "{n:>6} {:>10} {:>12} {:>12} {:>12}",
                cell(VARIANTS[0]),
                cell(VARIANTS[1]),
                cell(VARIANTS[2]),
                cell(VARIANTS[3])
            );
        }
    }

    pub fn config() -> Criterion {
        Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2))
    }
}

#[cfg(feature = "std")]
fn main() {
    let mut c = bench::config().configure_from_args();
    bench::run(&mut c);
    c.final_summary();
    bench::table();
}

#[cfg(not(feature = "std"))]
fn main() {
    eprintln!("polytope_support builds its hulls with quickhull: run with `--features std`");
}
