//! The questions a robot controller asks every tick, on a robot cell's
//! geometry, against coal 3.0 (the collision library of pinocchio) when it
//! is installed.
//!
//! # The cell
//! A 7-axis arm in the proportions of the common 7-kg-payload arms (joint
//! axes z, y, z, y, z, y, z; iiwa-like link lengths and joint limits), each
//! link a convex hull of its surface samples the way a URDF's collision
//! meshes are hulled: a cylinder along the link with a rounded base and a
//! joint housing across its far end, 72 to 140 hull vertices (see
//! [`detail`] for denser and coarser meshes). A table (a
//! box) and a person (capsule torso, ball head, capsule forearm reaching
//! towards the arm). [`CONFIGS`] random joint configurations within the
//! limits, a new place for the person each time.
//!
//! # Pairs
//! Every link against every other link but its neighbours (hull–hull), the
//! links from the second on against the table (hull–box), every link
//! against the torso and the forearm (hull–capsule) and the head
//! (hull–ball). Most pairs are clear by centimetres to a metre, as in a
//! working cell; random configurations also fold the arm into itself or
//! the table now and then.
//!
//! # Queries (`f64`, cold: a fresh warm start per query, coal's guesses
//! reset), each timed over every pair of a class once per round
//! - `hit`: `gjk::intersect` against coal's `collide` (`enable_contact`
//!   false), with its default request (`distance_upper_bound` the largest
//!   double: coal's GJK runs to the distance) and with the request a caller
//!   tunes for a yes/no question (`distance_upper_bound = 0`: GJK stops at
//!   its first separating plane, "early stop").
//! - `near`: `gjk::distance_below(MARGIN)` against `collide` with
//!   `security_margin = MARGIN` (default and early stop, `distance_upper_bound
//!   = MARGIN`): is the pair closer than the margin?
//! - `dist`: `gjk::distance` against coal's GJK distance
//!   (`enable_signed_distance = false`).
//! - `signed`: `contact` against coal's signed distance (GJK, then EPA).
//!
//! Ours at `Budget::default()`, coal at its default requests (and the
//! early stop above). The `ours f32` column gives our `f32` times beside
//! them.
//!
//! # Trajectories
//! A second table asks the same pairs once per controller tick along joint
//! trajectories, each pair keeping its warm start from tick to tick, ours
//! and coal's, warm and cold (see [`trajectory`]).
//!
//! # Timing
//! [`ROUNDS`] rounds (`ROBOT_CELL_ROUNDS` overrides); every round runs each
//! case once over each class, in one order, so load that changes during
//! the run moves both sides of a ratio alike. Round `r` runs at stack
//! position `r mod 16` (`stack_position`: on Intel cores a store across a
//! page boundary can double one case's time at one position), so the
//! default rounds visit each position twice. The table gives the median
//! ns per query over the rounds and the median of the per-round ratios
//! ours ÷ coal. Before timing, every yes/no answer is compared with coal's
//! and with our exact `f64` distance.
//!
//! ```text
//! cargo bench --features std --bench robot_cell
//! taskset -c 1 cargo bench --features std --bench robot_cell   # pinned
//! ROBOT_CELL_DETAIL=5 cargo bench --features std --bench robot_cell   # denser link meshes
//! # one loop alone, for callgrind (instructions per query = Ir / (reps · pairs)):
//! ROBOT_CELL_PROFILE=hull-box/hit:20 valgrind --tool=callgrind \
//!   --toggle-collect='*profile_loop*' target/release/deps/robot_cell-<hash>
//! # the trajectories, warm (instructions per query = Ir / (reps · 4000 · 51)):
//! ROBOT_CELL_PROFILE=trajectory/dist:1 valgrind --tool=callgrind ...
//! ```

#[cfg(feature = "std")]
#[path = "common/coal_bodies.rs"]
mod coal_bodies;

#[cfg(feature = "std")]
#[path = "common/stack_position.rs"]
mod stack_position;

#[cfg(feature = "std")]
#[path = "robot_cell/trajectory.rs"]
mod trajectory;

#[cfg(feature = "std")]
mod bench {
    use std::f64::consts::PI;
    use std::hint::black_box;

    use super::coal_bodies::{coal_convex, coal_tf};
    use super::stack_position::at_stack_position;
    use super::trajectory;
    use coal_ffi::{Gjk as CoalGjk, Pair as CoalPair, Shape as CoalShape, Transform as CoalTf};
    use nalgebra::{IsometryMatrix3, Point3, Rotation3, Translation3, Vector3};
    use narrowphase::hull::{quickhull, OwnedPolytope};
    use narrowphase::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random joint configurations (person placements with them).
    pub const CONFIGS: usize = 120;
    /// Timing rounds: two at each of the sixteen stack positions.
    pub const ROUNDS: usize = 32;
    /// The margin of the `near` question (metres).
    pub const MARGIN: f64 = 0.03;

    /// One link: its length along its z axis, its radius, the segments of
    /// its sampled circles.
    struct Link {
        length: f64,
        radius: f64,
        segments: usize,
    }

    /// Links 0 (the base, fixed) to 7 (flange and tool). Joint `i` (1..=7)
    /// sits at the far end of link `i − 1` and turns link `i`.
    const LINKS: [Link; 8] = [
        Link { length: 0.20, radius: 0.10, segments: 24 },
        Link { length: 0.16, radius: 0.075, segments: 32 },
        Link { length: 0.22, radius: 0.075, segments: 32 },
        Link { length: 0.20, radius: 0.068, segments: 28 },
        Link { length: 0.20, radius: 0.068, segments: 28 },
        Link { length: 0.19, radius: 0.06, segments: 24 },
        Link { length: 0.08, radius: 0.06, segments: 20 },
        Link { length: 0.14, radius: 0.045, segments: 16 },
    ];

    /// Joint limits (radians), iiwa-like: ±170°, ±120°, … ±175°.
    pub(crate) const LIMITS: [f64; 7] = [2.97, 2.09, 2.97, 2.09, 2.97, 2.09, 3.05];

    /// The mesh density: `ROBOT_CELL_DETAIL` multiplies every link's circle
    /// segments (default 1: 72 to 140 hull vertices; 5 gives 338 to 688,
    /// the hulls of dense CAD meshes; 0.3 gives 30 to 48, of simplified
    /// collision meshes).
    fn detail() -> f64 {
        std::env::var("ROBOT_CELL_DETAIL").ok().and_then(|s| s.parse().ok()).filter(|d: &f64| *d > 0.0).unwrap_or(1.0)
    }

    /// Surface samples of a link: a cylinder along z from 0 to `length`
    /// with a rounded base (three rings closing in), and a joint housing
    /// (a short cylinder across, along y) around its far end.
    fn link_points(l: &Link) -> Vec<Point3<f64>> {
        let mut p = Vec::new();
        let n = ((l.segments as f64 * detail()).round() as usize).max(6);
        let ring = |p: &mut Vec<Point3<f64>>, r: f64, z: f64, phase: f64| {
            for k in 0..n {
                let a = phase + 2.0 * PI * k as f64 / n as f64;
                p.push(Point3::new(r * a.cos(), r * a.sin(), z));
            }
        };
        for (j, t) in [0.0_f64, 0.5, 0.85].iter().enumerate() {
            // A quarter circle of profile: radius r·cos, depth r·sin.
            let ang = t * PI / 2.0;
            ring(&mut p, l.radius * ang.cos().max(0.3), -0.6 * l.radius * ang.sin(), 0.1 * j as f64);
        }
        ring(&mut p, l.radius, l.length * 0.5, 0.05);
        let hr = l.radius * 1.08;
        let hw = l.radius * 0.95;
        for k in 0..n {
            let a = 2.0 * PI * k as f64 / n as f64;
            for y in [-hw, hw] {
                p.push(Point3::new(hr * a.cos(), y, l.length + hr * a.sin()));
            }
        }
        p
    }

    /// The link frames (world poses) of configuration `q`: joint `i` turns
    /// about z for odd `i`, about y for even `i`, at the far end of the
    /// previous link.
    pub(crate) fn forward(q: &[f64; 7]) -> [IsometryMatrix3<f64>; 8] {
        let mut frames = [IsometryMatrix3::identity(); 8];
        let mut t = IsometryMatrix3::identity();
        for i in 1..8 {
            let axis = if i % 2 == 1 { Vector3::z_axis() } else { Vector3::y_axis() };
            let step = IsometryMatrix3::from_parts(
                Translation3::new(0.0, 0.0, LINKS[i - 1].length),
                Rotation3::from_axis_angle(&axis, q[i - 1]),
            );
            t *= step;
            frames[i] = t;
        }
        frames
    }

    /// Hull of a link in both precisions, its coal shape.
    struct LinkHull {
        f64: OwnedPolytope<f64>,
        f32: OwnedPolytope<f32>,
        coal: Option<CoalShape>,
    }

    fn link_hull(l: &Link) -> LinkHull {
        let pts = link_points(l);
        let f64 = quickhull(&pts).expect("link hull f64");
        let p32: Vec<Point3<f32>> = pts.iter().map(|x| x.cast()).collect();
        let f32 = quickhull(&p32).expect("link hull f32");
        let coal = coal_convex(&f64.polytope().expect("link polytope"));
        LinkHull { f64, f32, coal }
    }

    fn cast(p: &IsometryMatrix3<f64>) -> Pose<f32> {
        p.cast::<f32>()
    }

    /// One class of pairs: shapes of one kind against another, placed.
    struct Class<A64, B64, A32, B32> {
        name: &'static str,
        ours64: Vec<(Placed<A64, f64>, Placed<B64, f64>)>,
        ours32: Vec<(Placed<A32, f32>, Placed<B32, f32>)>,
        coal: Vec<(usize, CoalTf, CoalTf)>,
    }

    /// Timings of one case over the rounds (ns per query).
    type Times = Vec<f64>;

    pub(crate) fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// ns per query of `f` (`n` queries), timed in round `round` at that
    /// round's stack position (see `stack_position`).
    pub(crate) fn time_pass(n: usize, round: usize, f: &mut dyn FnMut() -> usize) -> f64 {
        at_stack_position(round, &mut || _ = black_box(f())) * 1e9 / n.max(1) as f64
    }

    #[derive(Default)]
    struct Row {
        class: &'static str,
        query: &'static str,
        ours: Times,
        ours32: Times,
        coal: Times,
        coal_early: Times,
        pairs: usize,
    }

    impl<A64, B64, A32, B32> Class<A64, B64, A32, B32>
    where
        A64: SupportMap<f64>,
        B64: SupportMap<f64>,
        A32: SupportMap<f32>,
        B32: SupportMap<f32>,
    {
        /// Compares the yes/no answers with coal's and with our exact
        /// distance; prints the counts.
        fn check(&self, coal_pairs: &mut [CoalPair<'_>]) {
            let (mut hits, mut nears, mut hit_diff, mut near_diff, mut undecided) = (0, 0, 0, 0, 0);
            let mut worst_gap: f64 = 0.0;
            for (k, (a, b)) in self.ours64.iter().enumerate() {
                let exact = contact(a, b, &Budget::default(), &mut GjkWarmStart::new()).signed_distance();
                let hit = gjk::intersect(a, b, &Budget::default(), &mut GjkWarmStart::new()).is_penetrating();
                let near = gjk::distance_below(a, b, MARGIN, &Budget::default(), &mut GjkWarmStart::new()).is_clear();
                let (Some(d), Some(hit), Some(clear)) = (exact, hit, near) else {
                    undecided += 1;
                    continue;
                };
                // Our answers against our exact distance (ties within 1e-9).
                assert!(hit == (d <= 1e-9) || d.abs() < 1e-9, "{}: intersect {hit} at distance {d}", self.name);
                assert!(clear == (d > MARGIN) || (d - MARGIN).abs() < 1e-9, "{}: near {clear} at {d}", self.name);
                hits += usize::from(hit);
                nears += usize::from(!clear);
                if let Some((ia, ta, tb)) = self.coal.get(k) {
                    let cp = &mut coal_pairs[*ia];
                    if cp.collide_within(ta, tb, 0.0, true).is_some_and(|c| c != hit) {
                        hit_diff += 1;
                        worst_gap = worst_gap.max(d.abs());
                    }
                    if cp.collide_within(ta, tb, MARGIN, true).is_some_and(|c| c == clear) {
                        near_diff += 1;
                        worst_gap = worst_gap.max((d - MARGIN).abs());
                    }
                }
            }
            println!(
                "{:<13} {:>5} pairs: {:>4} overlapping, {:>4} within {MARGIN} m; coal disagrees on {hit_diff} + {near_diff} \
                 (all within {worst_gap:.1e} m of the boundary); undecided {undecided}",
                self.name,
                self.ours64.len(),
                hits,
                nears
            );
        }

        fn rows(&self) -> Vec<Row> {
            ["hit", "near", "dist", "signed"]
                .iter()
                .map(|q| Row { class: self.name, query: q, pairs: self.ours64.len(), ..Row::default() })
                .collect()
        }

        /// `reps` passes of our `f64` `query` over the class, inside
        /// [`profile_loop`] (for callgrind's `--toggle-collect`).
        fn profile(&self, query: &str, reps: usize) {
            let budget = Budget::default();
            profile_loop(&mut || {
                for _ in 0..reps {
                    for (a, b) in &self.ours64 {
                        let w = &mut GjkWarmStart::new();
                        // Each answer kept by reference: by value, `black_box`
                        // would copy a 352-byte `GjkOutcome` that the timed
                        // passes (which keep one number) never copy.
                        match query {
                            "hit" => _ = black_box(&gjk::intersect(a, b, &budget, w)),
                            "near" => _ = black_box(&gjk::distance_below(a, b, MARGIN, &budget, w)),
                            "dist" => _ = black_box(&gjk::distance(a, b, &budget, w)),
                            _ => _ = black_box(&contact(a, b, &budget, w)),
                        }
                    }
                }
            });
        }

        /// One round: every query over every pair, ours f64, ours f32, coal.
        fn round(&self, round: usize, coal_pairs: &mut [CoalPair<'_>], rows: &mut [Row]) {
            let n = self.ours64.len();
            let budget64 = Budget::default();
            let budget32 = Budget::<f32>::default();
            for row in rows.iter_mut() {
                let q = row.query;
                let ours = time_pass(n, round, &mut || {
                    let mut count = 0;
                    for (a, b) in &self.ours64 {
                        let w = &mut GjkWarmStart::new();
                        count += match q {
                            "hit" => usize::from(gjk::intersect(a, b, &budget64, w).is_penetrating() == Some(true)),
                            "near" => {
                                usize::from(gjk::distance_below(a, b, MARGIN, &budget64, w).is_clear() == Some(false))
                            }
                            "dist" => usize::from(gjk::distance(a, b, &budget64, w).is_penetrating() == Some(true)),
                            _ => usize::from(contact(a, b, &budget64, w).is_penetrating() == Some(true)),
                        };
                    }
                    count
                });
                let ours32 = time_pass(n, round, &mut || {
                    let mut count = 0;
                    let m = MARGIN as f32;
                    for (a, b) in &self.ours32 {
                        let w = &mut GjkWarmStart::new();
                        count += match q {
                            "hit" => usize::from(gjk::intersect(a, b, &budget32, w).is_penetrating() == Some(true)),
                            "near" => usize::from(gjk::distance_below(a, b, m, &budget32, w).is_clear() == Some(false)),
                            "dist" => usize::from(gjk::distance(a, b, &budget32, w).is_penetrating() == Some(true)),
                            _ => usize::from(contact(a, b, &budget32, w).is_penetrating() == Some(true)),
                        };
                    }
                    count
                });
                row.ours.push(ours);
                row.ours32.push(ours32);
                if self.coal.len() == n && !coal_pairs.is_empty() {
                    let mut coal_pass = |early: bool| {
                        time_pass(n, round, &mut || {
                            let mut count = 0;
                            for (ia, ta, tb) in &self.coal {
                                let cp = &mut coal_pairs[*ia];
                                count += usize::from(match q {
                                    "hit" if early => cp.collide_within(ta, tb, 0.0, true) == Some(true),
                                    "hit" => cp.collide(ta, tb) == Some(true),
                                    "near" => cp.collide_within(ta, tb, MARGIN, early) == Some(true),
                                    "dist" => cp.distance(ta, tb).is_some_and(|d| d <= 0.0),
                                    _ => cp.signed_distance(ta, tb).is_some_and(|d| d.distance <= 0.0),
                                });
                            }
                            count
                        })
                    };
                    row.coal.push(coal_pass(false));
                    if matches!(q, "hit" | "near") {
                        row.coal_early.push(coal_pass(true));
                    }
                }
            }
        }
    }

    pub fn main() {
        if !coal_ffi::available() {
            println!("{}", coal_ffi::SKIPPED);
        }
        let rounds = std::env::var("ROBOT_CELL_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(ROUNDS);
        let mut hulls: Vec<LinkHull> = LINKS.iter().map(link_hull).collect();
        // coal's shapes: links 0..8, then the table, torso, forearm, head.
        let mut coal_shapes: Vec<CoalShape> = hulls.iter_mut().filter_map(|h| h.coal.take()).collect();
        let polys64: Vec<Polytope<'_, f64>> = hulls.iter().map(|h| h.f64.polytope().expect("f64")).collect();
        let polys32: Vec<Polytope<'_, f32>> = hulls.iter().map(|h| h.f32.polytope().expect("f32")).collect();
        let counts: Vec<usize> = polys64.iter().map(|p| p.vertex_count()).collect();
        println!("link hull vertices: {counts:?}");

        let table_half = Vector3::new(0.6, 0.45, 0.02);
        let table_pose = IsometryMatrix3::translation(0.45, 0.0, -0.02);
        let torso = (0.3, 0.17);
        let forearm = (0.14, 0.045);
        let head = 0.11;

        if coal_shapes.len() == hulls.len() {
            coal_shapes.extend(CoalShape::cuboid(table_half.into()));
            coal_shapes.extend(CoalShape::capsule(torso.0, torso.1));
            coal_shapes.extend(CoalShape::capsule(forearm.0, forearm.1));
            coal_shapes.extend(CoalShape::sphere(head));
        }
        let have_coal = coal_shapes.len() == hulls.len() + 4;
        // One coal pair (functors) per (link, other body); index = link · 12 + other.
        let mut coal_pairs: Vec<CoalPair<'_>> = Vec::new();
        if have_coal {
            for a in 0..8 {
                for b in 0..12 {
                    coal_pairs.push(CoalPair::new(&coal_shapes[a], &coal_shapes[b], CoalGjk::Default).expect("pair"));
                }
            }
        }
        let pair_index = |a: usize, b: usize| a * 12 + b;

        let mut hh = Class { name: "hull-hull", ours64: vec![], ours32: vec![], coal: vec![] };
        let mut hb = Class { name: "hull-box", ours64: vec![], ours32: vec![], coal: vec![] };
        let mut hc = Class { name: "hull-capsule", ours64: vec![], ours32: vec![], coal: vec![] };
        let mut hs = Class { name: "hull-ball", ours64: vec![], ours32: vec![], coal: vec![] };
        let table64 = Cuboid::new(table_half).expect("table");
        let table32 = Cuboid::new(table_half.cast::<f32>()).expect("table");
        let cap = |(h, r): (f64, f64)| {
            (Capsule::new(h, r).expect("capsule"), Capsule::new(h as f32, r as f32).expect("capsule"))
        };
        let (torso64, torso32) = cap(torso);
        let (arm64, arm32) = cap(forearm);
        let (head64, head32) = (Sphere::new(head).expect("head"), Sphere::new(head as f32).expect("head"));

        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        for _ in 0..CONFIGS {
            let q: [f64; 7] = std::array::from_fn(|i| rng.random_range(-LIMITS[i]..LIMITS[i]));
            let frames = forward(&q);
            // The person: 0.45 to 1.0 m from the base, facing it, the
            // forearm reaching towards the arm from the shoulder.
            let bearing = rng.random_range(-PI..PI);
            let dist = rng.random_range(0.45..1.0);
            let feet = Vector3::new(dist * bearing.cos(), dist * bearing.sin(), 0.0);
            let torso_pose = IsometryMatrix3::translation(feet.x, feet.y, 0.95);
            let head_pose = IsometryMatrix3::translation(feet.x, feet.y, 1.55);
            let towards = (-feet).normalize();
            let elevation: f64 = rng.random_range(-0.6..0.3);
            let dir = Vector3::new(towards.x * elevation.cos(), towards.y * elevation.cos(), elevation.sin());
            let shoulder = Vector3::new(feet.x, feet.y, 1.3) + towards.cross(&Vector3::z()) * 0.2;
            let arm_rot = Rotation3::rotation_between(&Vector3::z(), &dir).unwrap_or_else(Rotation3::identity);
            let arm_pose = IsometryMatrix3::from_parts(Translation3::from(shoulder + dir * 0.3), arm_rot);

            for a in 0..8 {
                let fa = frames[a];
                for b in a + 2..8 {
                    let fb = frames[b];
                    hh.ours64.push((Placed::new(polys64[a], fa), Placed::new(polys64[b], fb)));
                    hh.ours32.push((Placed::new(polys32[a], cast(&fa)), Placed::new(polys32[b], cast(&fb))));
                    hh.coal.push((pair_index(a, b), coal_tf(&fa), coal_tf(&fb)));
                }
                if a >= 2 {
                    hb.ours64.push((Placed::new(polys64[a], fa), Placed::new(table64, table_pose)));
                    hb.ours32.push((Placed::new(polys32[a], cast(&fa)), Placed::new(table32, cast(&table_pose))));
                    hb.coal.push((pair_index(a, 8), coal_tf(&fa), coal_tf(&table_pose)));
                }
                for (k, (c64, c32, pose)) in
                    [(torso64, torso32, torso_pose), (arm64, arm32, arm_pose)].into_iter().enumerate()
                {
                    hc.ours64.push((Placed::new(polys64[a], fa), Placed::new(c64, pose)));
                    hc.ours32.push((Placed::new(polys32[a], cast(&fa)), Placed::new(c32, cast(&pose))));
                    hc.coal.push((pair_index(a, 9 + k), coal_tf(&fa), coal_tf(&pose)));
                }
                hs.ours64.push((Placed::new(polys64[a], fa), Placed::new(head64, head_pose)));
                hs.ours32.push((Placed::new(polys32[a], cast(&fa)), Placed::new(head32, cast(&head_pose))));
                hs.coal.push((pair_index(a, 11), coal_tf(&fa), coal_tf(&head_pose)));
            }
        }
        if !have_coal {
            for c in [&mut hh.coal, &mut hb.coal, &mut hc.coal, &mut hs.coal] {
                c.clear();
            }
        }

        hh.check(&mut coal_pairs);
        hb.check(&mut coal_pairs);
        hc.check(&mut coal_pairs);
        hs.check(&mut coal_pairs);

        // `ROBOT_CELL_PROFILE=class/query:reps` (e.g. `hull-box/hit:200`):
        // only that loop, for callgrind; instructions per query = Ir /
        // (reps · pairs).
        let bodies = trajectory::Bodies {
            links: polys64.clone(),
            table: (table64, table_pose),
            torso: torso64,
            forearm: arm64,
            head: head64,
        };
        let ticks = trajectory::ticks(&table_pose);
        if let Ok(spec) = std::env::var("ROBOT_CELL_PROFILE") {
            let (what, reps) = spec.split_once(':').unwrap_or((&spec, "100"));
            let (class, query) = what.split_once('/').unwrap_or((what, "hit"));
            let reps = reps.parse().unwrap_or(100);
            match class {
                "trajectory" => trajectory::profile(&bodies, &ticks, query, reps),
                "hull-hull" => hh.profile(query, reps),
                "hull-box" => hb.profile(query, reps),
                "hull-capsule" => hc.profile(query, reps),
                _ => hs.profile(query, reps),
            }
            return;
        }
        let (mut rh, mut rb, mut rc, mut rs) = (hh.rows(), hb.rows(), hc.rows(), hs.rows());
        for round in 0..rounds {
            hh.round(round, &mut coal_pairs, &mut rh);
            hb.round(round, &mut coal_pairs, &mut rb);
            hc.round(round, &mut coal_pairs, &mut rc);
            hs.round(round, &mut coal_pairs, &mut rs);
        }

        println!("\nmedian ns per query over {rounds} rounds; ratios: medians of the per-round ours ÷ coal");
        println!("| class | pairs | query | ours f64 | ours f32 | coal | coal, early stop | ours ÷ coal | ours ÷ coal early |");
        println!("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        // The whole cell: pair-weighted sums of the classes, per round.
        let mut cell: Vec<Row> = ["hit", "near", "dist", "signed"]
            .iter()
            .map(|q| Row { class: "all pairs", query: q, ..Row::default() })
            .collect();
        for rows in [&rh, &rb, &rc, &rs] {
            for (row, total) in rows.iter().zip(cell.iter_mut()) {
                print_row(row);
                total.pairs += row.pairs;
                let add = |acc: &mut Times, xs: &Times| {
                    acc.resize(xs.len(), 0.0);
                    for (a, x) in acc.iter_mut().zip(xs) {
                        *a += x * row.pairs as f64;
                    }
                };
                add(&mut total.ours, &row.ours);
                add(&mut total.ours32, &row.ours32);
                add(&mut total.coal, &row.coal);
                add(&mut total.coal_early, &row.coal_early);
            }
        }
        for total in &mut cell {
            let n = total.pairs as f64;
            for xs in [&mut total.ours, &mut total.ours32, &mut total.coal, &mut total.coal_early] {
                xs.iter_mut().for_each(|x| *x /= n);
            }
            print_row(total);
        }

        trajectory::run(&bodies, &ticks, &mut coal_pairs);
    }

    #[inline(never)]
    pub(crate) fn profile_loop(f: &mut dyn FnMut()) {
        f();
    }

    fn print_row(row: &Row) {
        let ratio = |coal: &Times| {
            if coal.is_empty() {
                "—".to_string()
            } else {
                format!("{:.2}", median(row.ours.iter().zip(coal).map(|(o, c)| o / c).collect()))
            }
        };
        let ns = |xs: &Times| if xs.is_empty() { "—".to_string() } else { format!("{:.0}", median(xs.clone())) };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.class,
            row.pairs,
            row.query,
            ns(&row.ours),
            ns(&row.ours32),
            ns(&row.coal),
            ns(&row.coal_early),
            ratio(&row.coal),
            ratio(&row.coal_early),
        );
    }
}

fn main() {
    #[cfg(feature = "std")]
    bench::main();
}
