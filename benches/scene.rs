//! The threshold query against the full distance query on clear pairs, and
//! one scene tick against the same pairs queried by hand.
//!
//! # Workloads
//! - `clear_pairs/<query>_<pair>`: [`INSTANCES`] random clear instances per
//!   pair type (random rotations, surfaces 0.1 to 0.6 apart, sizes about
//!   0.3), margin 0.05: every instance is clear. `threshold` is
//!   `gjk::distance_below` (boxes, cylinder–cone) or `contact::clearance`
//!   (capsules), `distance` is `gjk::distance` or `contact::contact`; both
//!   cold (a fresh warm start per query), so the ratio is the early exit's
//!   alone. Pair types: `box_f32`, `box_f64`, `capsule_f32`,
//!   `cylinder_cone_f32`.
//! - `tick/<variant>`: a cell of a 3-link capsule arm, a table and a person
//!   (torso capsule, head sphere), 10 pairs, the arm sweeping over
//!   [`TICKS`] precomputed poses: `scene` runs `Scene::tick` (broad phase,
//!   threshold queries, contact inside the margins, warm starts);
//!   `hand_wired` loops `contact` over the same pairs with one warm cache
//!   per pair and no broad phase; `parry3d_hand_wired` loops parry3d's
//!   `query::contact` over them with each pair's margin (or distance bound)
//!   as the prediction distance.
//!
//! Each criterion iteration runs every instance (or one tick); the table at
//! the end divides criterion's median by the instances per iteration.
//!
//! Run: `cargo bench --features std --bench scene -- --warm-up-time 1 --measurement-time 2`.

#[cfg(feature = "std")]
mod bench {
    use std::hint::black_box;
    use std::path::PathBuf;
    use std::time::Duration;

    use criterion::Criterion;
    use nalgebra::{Rotation3, Translation3, Unit, Vector3};
    use narrowphase::math::{Pose, Real};
    use narrowphase::prelude::*;
    use narrowphase::scene::{BodyDesc, PairQuery, PairSettings, Scene, Shape, ShapeDesc, TickBudget};
    use narrowphase::support::contact::{clearance, contact};
    use parry3d::math::{Pose as PPose, Rot3 as PRot};
    use parry3d::shape::Shape as PShape;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Clear instances per pair type.
    pub const INSTANCES: usize = 256;
    /// Precomputed ticks of the arm's sweep.
    pub const TICKS: usize = 256;
    const MARGIN: f64 = 0.05;
    /// Two placed bodies.
    type Instance<R> = (Placed<Shape<'static, R>, R>, Placed<Shape<'static, R>, R>);
    const PAIRS: [&str; 4] = ["box_f32", "box_f64", "capsule_f32", "cylinder_cone_f32"];

    fn rotation(rng: &mut ChaCha8Rng) -> Rotation3<f64> {
        let v = Vector3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        Rotation3::from_axis_angle(&Unit::new_normalize(v + Vector3::new(0.0, 0.0, 1e-3)), rng.random_range(0.0..3.1))
    }

    fn cast<R: Real>(p: &Pose<f64>) -> Pose<R> {
        Pose::from_parts(
            Translation3::from(p.translation.vector.map(R::lit)),
            Rotation3::from_matrix_unchecked(p.rotation.matrix().map(R::lit)),
        )
    }

    /// Random clear instances of two shapes: B moved along a random
    /// direction until the surfaces are `gap` apart (bisection on the f64
    /// kernel distance), `gap` uniform in [0.1, 0.6].
    fn instances<R: Real>(a: ShapeDesc<'static, R>, b: ShapeDesc<'static, R>, seed: u64) -> Vec<Instance<R>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (sa, sb) = (Shape::new(&a).unwrap(), Shape::new(&b).unwrap());
        (0..INSTANCES)
            .map(|_| {
                let pa = Pose::from_parts(Translation3::identity(), rotation(&mut rng));
                let rb = rotation(&mut rng);
                let u = rotation(&mut rng) * Vector3::x();
                let gap = rng.random_range(0.1..0.6);
                let place = |s: f64| Pose::from_parts(Translation3::from(u * s), rb);
                let dist = |s: f64| {
                    let x = Placed::new(sa, cast::<R>(&pa));
                    let y = Placed::new(sb, cast::<R>(&place(s)));
                    contact(&x, &y, &Budget::default(), &mut GjkWarmStart::default())
                        .signed_distance()
                        .unwrap()
                        .to_f64()
                };
                let (mut lo, mut hi) = (0.0, 5.0);
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if dist(mid) < gap {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (Placed::new(sa, cast::<R>(&pa)), Placed::new(sb, cast::<R>(&place(hi))))
            })
            .collect()
    }

    fn bench_pairs<R: Real>(c: &mut Criterion, name: &str, set: &[Instance<R>]) {
        let budget = Budget::<R>::default();
        let margin = R::lit(MARGIN);
        let round = set[0].0.margin() + set[0].1.margin() > R::ZERO;
        // Every instance clear, and both queries agree.
        for (a, b) in set {
            let t = if round {
                clearance(a, b, margin, &budget, &mut GjkWarmStart::default())
            } else {
                gjk::distance_below(a, b, margin, &budget, &mut GjkWarmStart::default())
            };
            assert_eq!(t.is_clear(), Some(true));
            let d = contact(a, b, &budget, &mut GjkWarmStart::default()).signed_distance().unwrap();
            assert!(t.bounds().lower <= d + R::lit(1e-5));
        }
        let mut group = c.benchmark_group("clear_pairs");
        group.bench_function(format!("threshold/{name}"), |bch| {
            bch.iter(|| {
                let mut clear = 0;
                for (a, b) in set {
                    let t = if round {
                        clearance(a, b, margin, &budget, &mut GjkWarmStart::default())
                    } else {
                        gjk::distance_below(a, b, margin, &budget, &mut GjkWarmStart::default())
                    };
                    clear += usize::from(black_box(t).is_clear() == Some(true));
                }
                clear
            })
        });
        group.bench_function(format!("distance/{name}"), |bch| {
            bch.iter(|| {
                let mut clear = 0;
                for (a, b) in set {
                    if round {
                        let d = contact(a, b, &budget, &mut GjkWarmStart::default());
                        clear += usize::from(black_box(d).signed_distance().is_some_and(|d| d > margin));
                    } else {
                        let d = gjk::distance(a, b, &budget, &mut GjkWarmStart::default());
                        clear +=
                            usize::from(matches!(black_box(d), GjkOutcome::Separated(s) if s.bounds.lower > margin));
                    }
                }
                clear
            })
        });
        group.finish();
    }

    static CELL: [BodyDesc<'static, f32>; 6] = [
        BodyDesc::root(ShapeDesc::capsule(0.2, 0.05)),
        BodyDesc::child(ShapeDesc::capsule(0.25, 0.04), 0),
        BodyDesc::child(ShapeDesc::capsule(0.05, 0.03), 1),
        BodyDesc::root(ShapeDesc::cuboid([0.2, 0.3, 0.02])),
        BodyDesc::root(ShapeDesc::capsule(0.3, 0.15)),
        BodyDesc::child(ShapeDesc::sphere(0.1), 4),
    ];

    /// Poses of the cell's six bodies over the sweep: the arm turning about
    /// z at its base, the forearm bending, the person fixed.
    fn sweep() -> Vec<[Pose<f32>; 6]> {
        (0..TICKS)
            .map(|k| {
                let s = k as f64 / TICKS as f64 * std::f64::consts::TAU;
                let yaw = Rotation3::from_axis_angle(&Vector3::z_axis(), 0.8 * s.sin());
                let bend =
                    Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2 + 0.3 * (2.0 * s).sin());
                let upper = Pose::from_parts(Translation3::new(0.0, 0.0, 0.3), yaw);
                let elbow = Vector3::new(0.0, 0.0, 0.5);
                let fore_dir = yaw * bend * Vector3::z();
                let fore = Pose::from_parts(Translation3::from(elbow + fore_dir * 0.25), yaw * bend);
                let wrist = elbow + fore_dir * 0.5;
                let hand = Pose::from_parts(Translation3::from(wrist - Vector3::z() * 0.1), yaw);
                let table = Pose::from_parts(Translation3::new(0.6, 0.0, 0.2), Rotation3::identity());
                let torso = Pose::from_parts(Translation3::new(0.5, 0.45, 0.0), Rotation3::identity());
                let head = Pose::from_parts(Translation3::new(0.5, 0.25, 0.45), Rotation3::identity());
                [upper, fore, hand, table, torso, head].map(|p| cast::<f32>(&p))
            })
            .collect()
    }

    fn cell() -> Scene<'static, f32, 6, 16> {
        let mut scene = Scene::new();
        scene.add_bodies(&CELL).unwrap();
        scene.allow_collision(3, 4).unwrap();
        scene.allow_collision(3, 5).unwrap();
        scene.pairs_from_tree(&PairSettings::new(0.05, PairQuery::Contact)).unwrap();
        let person = PairSettings::new(0.15, PairQuery::DistanceUpTo(0.3));
        for link in 0..3 {
            scene.enable_pair(link, 4, &person).unwrap();
            scene.enable_pair(link, 5, &person).unwrap();
        }
        scene
    }

    fn bench_tick(c: &mut Criterion) {
        let poses = sweep();
        let budget = TickBudget::<f32>::new(4000);
        let mut group = c.benchmark_group("tick");
        let mut scene = cell();
        let mut k = 0usize;
        let (mut culled, mut within, mut iterations) = (0u32, 0u32, 0u32);
        for p in &poses {
            for (i, pose) in p.iter().enumerate() {
                scene.set_pose(i as u16, pose).unwrap();
            }
            let s = scene.tick(&budget);
            assert_eq!(s.undetermined, 0);
            culled += u32::from(s.culled);
            within += u32::from(s.within_margin);
            iterations += s.iterations;
        }
        println!(
            "cell sweep: {} pairs, per tick on average {:.1} culled, {:.2} within margin, {:.1} iterations",
            scene.pairs().len(),
            culled as f64 / TICKS as f64,
            within as f64 / TICKS as f64,
            iterations as f64 / TICKS as f64
        );
        group.bench_function("scene", |b| {
            b.iter(|| {
                k = (k + 1) % TICKS;
                for (i, pose) in poses[k].iter().enumerate() {
                    scene.set_pose(i as u16, pose).unwrap();
                }
                black_box(scene.tick(&budget))
            })
        });
        // The same pairs by hand: one placed body per index, one cache per pair.
        let shapes: Vec<Shape<'static, f32>> = CELL.iter().map(|d| Shape::new(&d.shape).unwrap()).collect();
        let pairs: Vec<(usize, usize)> = scene.pairs().iter().map(|p| (p.a as usize, p.b as usize)).collect();
        let mut caches = vec![GjkWarmStart::<f32>::default(); pairs.len()];
        let per_pair = Budget::<f32>::default();
        let mut k = 0usize;
        group.bench_function("hand_wired", |b| {
            b.iter(|| {
                k = (k + 1) % TICKS;
                let placed: Vec<_> = (0..6).map(|i| Placed::new(shapes[i], poses[k][i])).collect();
                let mut within = 0;
                for (j, &(a, b)) in pairs.iter().enumerate() {
                    let d = contact(&placed[a], &placed[b], &per_pair, &mut caches[j]);
                    within += usize::from(d.signed_distance().is_some_and(|d| d < 0.05));
                }
                black_box(within)
            })
        });
        // The same pairs through parry3d's query functions, looped by hand:
        // `query::contact` with each pair's margin (or distance bound) as the
        // prediction distance, which is what parry offers for "closer than
        // m, and how close". No broad phase, as a user would write it.
        let parry_shapes: Vec<Box<dyn PShape>> = CELL.iter().map(parry_shape).collect();
        let predictions: Vec<f32> = scene
            .pairs()
            .iter()
            .map(|p| match p.settings.query {
                PairQuery::DistanceUpTo(bound) => bound,
                _ => p.settings.margin,
            })
            .collect();
        let parry_poses: Vec<Vec<PPose>> = poses.iter().map(|p| p.iter().map(parry_pose32).collect()).collect();
        let mut k = 0usize;
        group.bench_function("parry3d_hand_wired", |b| {
            b.iter(|| {
                k = (k + 1) % TICKS;
                let at = &parry_poses[k];
                let mut within = 0;
                for (j, &(a, b)) in pairs.iter().enumerate() {
                    let c =
                        parry3d::query::contact(&at[a], &*parry_shapes[a], &at[b], &*parry_shapes[b], predictions[j]);
                    within += usize::from(c.ok().flatten().is_some_and(|c| c.dist < 0.05));
                }
                black_box(within)
            })
        });
        group.finish();
    }

    /// The cell's body as parry3d sees it (capsules along z, as ours).
    fn parry_shape(d: &BodyDesc<'static, f32>) -> Box<dyn PShape> {
        match d.shape {
            ShapeDesc::Sphere { radius } => Box::new(parry3d::shape::Ball::new(radius)),
            ShapeDesc::Capsule { half_length, radius } => Box::new(parry3d::shape::Capsule::new_z(half_length, radius)),
            ShapeDesc::Cuboid { half_extents: [x, y, z] } => {
                Box::new(parry3d::shape::Cuboid::new(parry3d::math::Vector::new(x, y, z)))
            }
            _ => unreachable!("the bench cell has spheres, capsules and boxes only"),
        }
    }

    /// A pose as parry3d's (f32) isometry, with no local-frame fix: the
    /// cell's capsules are built along z on both sides.
    fn parry_pose32(p: &Pose<f32>) -> PPose {
        let q = nalgebra::UnitQuaternion::from_rotation_matrix(&p.rotation);
        let rot = PRot::from_xyzw(q.i, q.j, q.k, q.w).normalize();
        let t = p.translation.vector;
        PPose::from_parts(parry3d::math::Vector::new(t.x, t.y, t.z), rot)
    }

    pub fn run(c: &mut Criterion) {
        let boxes = instances::<f32>(ShapeDesc::cuboid([0.3, 0.2, 0.1]), ShapeDesc::cuboid([0.3, 0.2, 0.1]), 1);
        bench_pairs(c, PAIRS[0], &boxes);
        let boxes = instances::<f64>(ShapeDesc::cuboid([0.3, 0.2, 0.1]), ShapeDesc::cuboid([0.3, 0.2, 0.1]), 1);
        bench_pairs(c, PAIRS[1], &boxes);
        let caps = instances::<f32>(ShapeDesc::capsule(0.25, 0.08), ShapeDesc::capsule(0.2, 0.1), 2);
        bench_pairs(c, PAIRS[2], &caps);
        let cc = instances::<f32>(ShapeDesc::cylinder(0.25, 0.15), ShapeDesc::cone(0.25, 0.2), 3);
        bench_pairs(c, PAIRS[3], &cc);
        bench_tick(c);
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
        println!("\nclear pairs, median ns per query (criterion median / {INSTANCES} instances)");
        println!("{:>20} {:>10} {:>10} {:>8}", "pair", "threshold", "distance", "ratio");
        for name in PAIRS {
            let t = median(&format!("clear_pairs/threshold_{name}")).map(|m| m / INSTANCES as f64);
            let d = median(&format!("clear_pairs/distance_{name}")).map(|m| m / INSTANCES as f64);
            match (t, d) {
                (Some(t), Some(d)) => println!("{name:>20} {t:>10.1} {d:>10.1} {:>8.2}", t / d),
                _ => println!("{name:>20} {:>10} {:>10}", "-", "-"),
            }
        }
        let s = median("tick/scene");
        let h = median("tick/hand_wired");
        let p = median("tick/parry3d_hand_wired");
        if let (Some(s), Some(h), Some(p)) = (s, h, p) {
            println!(
                "\ncell tick (10 pairs, f32), median ns: scene {s:.0}, hand-wired contact loop {h:.0} (ratio {:.2}), \
                 parry3d contact loop {p:.0} (ratio {:.2})",
                s / h,
                s / p
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
    eprintln!("the scene bench needs `--features std`");
}
