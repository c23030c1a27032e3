//! The cell as a controller sees it: every pair asked once per tick along
//! joint trajectories, each pair keeping its warm start from tick to tick
//! (ours: a [`GjkWarmStart`] per pair; coal: `GJKInitialGuess::CachedGuess`
//! and the support hints of the pair's functor, as pinocchio keeps one
//! functor per collision pair).
//!
//! [`TRAJECTORIES`] trajectories of [`TICKS`] ticks at 1 kHz: the joints
//! start at a random configuration within 80 % of their limits and turn at
//! constant speeds of up to [`JOINT_SPEED`] rad/s each (up to 1 mrad a
//! tick); the person walks at up to 0.5 m/s. The 51 pairs of the cold
//! table's classes (hull–hull, hull–box, hull–capsule, hull–ball) are asked
//! in one pass per tick. Queries (`f64`, ours at `Budget::default()`, coal
//! at its defaults with the early stop):
//! - `hit`: `gjk::intersect` against `collide` with `distance_upper_bound = 0`;
//! - `near`: `gjk::distance_below(MARGIN)` against `collide` with
//!   `security_margin = distance_upper_bound = MARGIN`;
//! - `dist`: `gjk::distance` against coal's GJK distance.
//!
//! Each is timed warm and cold (a fresh start per query, on the same
//! ticks), ours and coal's, in every round; the table gives medians over
//! the rounds of ns per query and of the per-round ratios.

use std::f64::consts::PI;
use std::hint::black_box;

use coal_ffi::{Pair as CoalPair, Transform as CoalTf};
use nalgebra::{IsometryMatrix3, Rotation3, Translation3, Vector3};
use narrowphase::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::bench::{forward, median, profile_loop, time_pass, LIMITS, MARGIN};
use crate::coal_bodies::coal_tf;

/// Trajectories.
pub const TRAJECTORIES: usize = 16;
/// Controller ticks per trajectory (1 ms each).
pub const TICKS: usize = 250;
/// The fastest joint speed drawn (rad/s).
pub const JOINT_SPEED: f64 = 1.0;
/// Timing rounds: one at each of the sixteen stack positions.
pub const ROUNDS: usize = 16;
/// Pairs asked per tick (as in the cold classes).
pub const PAIRS: usize = 51;
/// The control period (s).
const TICK: f64 = 1e-3;

/// The cell's bodies, their shapes once.
pub struct Bodies<'p> {
    pub links: Vec<Polytope<'p, f64>>,
    pub table: (Cuboid<f64>, IsometryMatrix3<f64>),
    pub torso: Capsule<f64>,
    pub forearm: Capsule<f64>,
    pub head: Sphere<f64>,
}

/// The poses of one tick: links 0 to 7, torso, forearm, head; and coal's
/// transforms of links 0 to 7, table, torso, forearm, head.
pub struct Tick {
    links: [IsometryMatrix3<f64>; 8],
    torso: IsometryMatrix3<f64>,
    forearm: IsometryMatrix3<f64>,
    head: IsometryMatrix3<f64>,
    coal: [CoalTf; 12],
}

/// The trajectories' ticks, trajectory after trajectory.
pub fn ticks(table: &IsometryMatrix3<f64>) -> Vec<Tick> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut out = Vec::with_capacity(TRAJECTORIES * TICKS);
    for _ in 0..TRAJECTORIES {
        let q0: [f64; 7] = std::array::from_fn(|i| rng.random_range(-0.8 * LIMITS[i]..0.8 * LIMITS[i]));
        let dq: [f64; 7] = std::array::from_fn(|_| rng.random_range(-JOINT_SPEED..JOINT_SPEED));
        let bearing = rng.random_range(-PI..PI);
        let dist = rng.random_range(0.45..1.0);
        let start = Vector3::new(dist * bearing.cos(), dist * bearing.sin(), 0.0);
        let walk = rng.random_range(-PI..PI);
        let speed = rng.random_range(0.0..0.5);
        let velocity = Vector3::new(walk.cos(), walk.sin(), 0.0) * speed;
        let elevation: f64 = rng.random_range(-0.6..0.3);
        for k in 0..TICKS {
            let t = k as f64 * TICK;
            let q: [f64; 7] = std::array::from_fn(|i| q0[i] + dq[i] * t);
            let links = forward(&q);
            let feet = start + velocity * t;
            let torso = IsometryMatrix3::translation(feet.x, feet.y, 0.95);
            let head = IsometryMatrix3::translation(feet.x, feet.y, 1.55);
            let towards = (-feet).normalize();
            let dir = Vector3::new(towards.x * elevation.cos(), towards.y * elevation.cos(), elevation.sin());
            let shoulder = Vector3::new(feet.x, feet.y, 1.3) + towards.cross(&Vector3::z()) * 0.2;
            let rot = Rotation3::rotation_between(&Vector3::z(), &dir).unwrap_or_else(Rotation3::identity);
            let forearm = IsometryMatrix3::from_parts(Translation3::from(shoulder + dir * 0.3), rot);
            let coal = std::array::from_fn(|i| match i {
                0..8 => coal_tf(&links[i]),
                8 => coal_tf(table),
                9 => coal_tf(&torso),
                10 => coal_tf(&forearm),
                _ => coal_tf(&head),
            });
            out.push(Tick { links, torso, forearm, head, coal });
        }
    }
    out
}

/// A question a controller asks of a pair.
#[derive(Clone, Copy, PartialEq)]
pub enum Query {
    Hit,
    Near,
    Dist,
}

impl Query {
    pub const ALL: [Query; 3] = [Query::Hit, Query::Near, Query::Dist];

    pub fn name(self) -> &'static str {
        match self {
            Query::Hit => "hit",
            Query::Near => "near",
            Query::Dist => "dist",
        }
    }
}

/// Our answer, as "the pair is in contact / within the margin" (`Some(true)`),
/// or `None` undecided; the cache's iterations are added to `iterations`.
fn ask<A: SupportMap<f64>, B: SupportMap<f64>>(
    q: Query,
    a: &A,
    b: &B,
    cache: &mut GjkWarmStart<f64>,
    iterations: &mut u64,
) -> Option<bool> {
    let budget = Budget::default();
    let out = match q {
        Query::Hit => gjk::intersect(a, b, &budget, cache).is_penetrating(),
        Query::Near => gjk::distance_below(a, b, MARGIN, &budget, cache).is_clear().map(|c| !c),
        Query::Dist => gjk::distance(a, b, &budget, cache).is_penetrating(),
    };
    *iterations += u64::from(cache.iterations);
    out
}

/// One tick over the cell's pairs, in the cold classes' order: `f` gets the
/// pair's index and our two bodies.
fn each_pair(bodies: &Bodies<'_>, tick: &Tick, f: &mut dyn FnMut(usize, Pair<'_>)) {
    let mut k = 0;
    for a in 0..8 {
        let la = Placed::new(bodies.links[a], tick.links[a]);
        for b in a + 2..8 {
            f(k, Pair::Hulls(la, Placed::new(bodies.links[b], tick.links[b])));
            k += 1;
        }
        if a >= 2 {
            f(k, Pair::Table(la, Placed::new(bodies.table.0, bodies.table.1)));
            k += 1;
        }
        f(k, Pair::Capsule(la, Placed::new(bodies.torso, tick.torso)));
        f(k + 1, Pair::Capsule(la, Placed::new(bodies.forearm, tick.forearm)));
        f(k + 2, Pair::Ball(la, Placed::new(bodies.head, tick.head)));
        k += 3;
    }
}

/// The coal pair index (`link · 12 + other`) of each of the [`PAIRS`], in
/// [`each_pair`]'s order, with the indices of the two transforms in
/// [`Tick::coal`].
fn coal_pairs_in_order() -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(PAIRS);
    for a in 0..8 {
        for b in a + 2..8 {
            out.push((a * 12 + b, a, b));
        }
        if a >= 2 {
            out.push((a * 12 + 8, a, 8));
        }
        for other in 9..12 {
            out.push((a * 12 + other, a, other));
        }
    }
    out
}

/// One pair of bodies of a tick.
pub enum Pair<'p> {
    Hulls(Placed<Polytope<'p, f64>, f64>, Placed<Polytope<'p, f64>, f64>),
    Table(Placed<Polytope<'p, f64>, f64>, Placed<Cuboid<f64>, f64>),
    Capsule(Placed<Polytope<'p, f64>, f64>, Placed<Capsule<f64>, f64>),
    Ball(Placed<Polytope<'p, f64>, f64>, Placed<Sphere<f64>, f64>),
}

impl Pair<'_> {
    #[inline(always)]
    fn ask(&self, q: Query, cache: &mut GjkWarmStart<f64>, iterations: &mut u64) -> Option<bool> {
        match self {
            Pair::Hulls(a, b) => ask(q, a, b, cache, iterations),
            Pair::Table(a, b) => ask(q, a, b, cache, iterations),
            Pair::Capsule(a, b) => ask(q, a, b, cache, iterations),
            Pair::Ball(a, b) => ask(q, a, b, cache, iterations),
        }
    }

    fn exact(&self) -> Option<f64> {
        let (budget, w) = (Budget::default(), &mut GjkWarmStart::new());
        match self {
            Pair::Hulls(a, b) => contact(a, b, &budget, w).signed_distance(),
            Pair::Table(a, b) => contact(a, b, &budget, w).signed_distance(),
            Pair::Capsule(a, b) => contact(a, b, &budget, w).signed_distance(),
            Pair::Ball(a, b) => contact(a, b, &budget, w).signed_distance(),
        }
    }
}

/// One pass of our `q` over every tick: warm (caches kept per pair, reset
/// at each trajectory's start) or cold. Returns the "yes" answers and adds
/// the iterations.
fn ours_pass(bodies: &Bodies<'_>, ticks: &[Tick], q: Query, warm: bool, iterations: &mut u64) -> usize {
    let mut caches = [GjkWarmStart::<f64>::new(); PAIRS];
    let mut yes = 0;
    for (i, tick) in ticks.iter().enumerate() {
        if i % TICKS == 0 {
            caches = [GjkWarmStart::new(); PAIRS];
        }
        each_pair(bodies, tick, &mut |k, pair| {
            let Some(cache) = caches.get_mut(k) else { return };
            if !warm {
                *cache = GjkWarmStart::new();
            }
            yes += usize::from(black_box(pair.ask(q, cache, iterations)) == Some(true));
        });
    }
    yes
}

/// coal's answers to `q` over every tick, in [`coal_pairs_in_order`]'s
/// order, warm (each pair's guesses kept, reset at each trajectory's start)
/// or cold, each handed to `f`.
fn coal_each(
    coal: &mut [CoalPair<'_>],
    order: &[(usize, usize, usize)],
    ticks: &[Tick],
    q: Query,
    warm: bool,
    mut f: impl FnMut(Option<bool>),
) {
    for (i, tick) in ticks.iter().enumerate() {
        for &(p, ia, ib) in order {
            let Some(cp) = coal.get_mut(p) else { continue };
            if i % TICKS == 0 {
                cp.reset_warm();
            }
            let (ta, tb) = (&tick.coal[ia], &tick.coal[ib]);
            // coal's GJK distance of overlapping shapes is 0 or within its
            // tolerance (1e-6).
            f(match (q, warm) {
                (Query::Hit, true) => cp.collide_within_warm(ta, tb, 0.0, true),
                (Query::Hit, false) => cp.collide_within(ta, tb, 0.0, true),
                (Query::Near, true) => cp.collide_within_warm(ta, tb, MARGIN, true),
                (Query::Near, false) => cp.collide_within(ta, tb, MARGIN, true),
                (Query::Dist, true) => cp.distance_warm(ta, tb).map(|d| d <= 1e-6),
                (Query::Dist, false) => cp.distance(ta, tb).map(|d| d <= 1e-6),
            });
        }
    }
}

/// One pass of coal's `q` over every tick, warm or cold.
fn coal_pass(
    coal: &mut [CoalPair<'_>],
    order: &[(usize, usize, usize)],
    ticks: &[Tick],
    q: Query,
    warm: bool,
) -> usize {
    let mut yes = 0;
    coal_each(coal, order, ticks, q, warm, |answer| yes += usize::from(black_box(answer) == Some(true)));
    yes
}

/// Checks every warm answer against our exact signed distance, and coal's
/// warm answers against ours; prints the counts and the iterations per
/// query, warm and cold.
fn check(bodies: &Bodies<'_>, ticks: &[Tick], coal: &mut [CoalPair<'_>], order: &[(usize, usize, usize)]) {
    let mut exact = Vec::with_capacity(ticks.len() * PAIRS);
    for tick in ticks {
        each_pair(bodies, tick, &mut |_, pair| exact.push(pair.exact()));
    }
    let n = exact.len();
    let (hits, nears) = (
        exact.iter().filter(|d| d.is_some_and(|d| d <= 0.0)).count(),
        exact.iter().filter(|d| d.is_some_and(|d| d <= MARGIN)).count(),
    );
    println!(
        "\ntrajectories: {TRAJECTORIES} × {TICKS} ticks at 1 kHz, joints up to {JOINT_SPEED} rad/s, {PAIRS} pairs a \
         tick ({n} queries a pass; {hits} overlapping, {nears} within {MARGIN} m)"
    );
    for q in Query::ALL {
        let mut caches = [GjkWarmStart::<f64>::new(); PAIRS];
        let (mut wrong, mut undecided, mut coal_differs, mut it_warm) = (0, 0, 0, 0u64);
        let mut answers = Vec::with_capacity(n);
        for (i, tick) in ticks.iter().enumerate() {
            if i % TICKS == 0 {
                caches = [GjkWarmStart::new(); PAIRS];
            }
            each_pair(bodies, tick, &mut |k, pair| {
                if let Some(cache) = caches.get_mut(k) {
                    answers.push(pair.ask(q, cache, &mut it_warm));
                }
            });
        }
        for (answer, d) in answers.iter().zip(&exact) {
            let (Some(yes), Some(d)) = (answer, d) else {
                undecided += 1;
                continue;
            };
            let edge = if q == Query::Near { MARGIN } else { 0.0 };
            // Ties within 1e-9 of the boundary may go either way.
            if *yes != (*d <= edge) && (d - edge).abs() > 1e-9 {
                wrong += 1;
            }
        }
        let mut it_cold = 0;
        ours_pass(bodies, ticks, q, false, &mut it_cold);
        let mut k = 0;
        coal_each(coal, order, ticks, q, true, |theirs| {
            let ours = answers.get(k).copied().flatten();
            if theirs.is_some() && ours.is_some() && theirs != ours {
                coal_differs += 1;
            }
            k += 1;
        });
        println!(
            "{:<5} warm: {wrong} wrong, {undecided} undecided against our exact distance; coal's warm answer differs on \
             {coal_differs}; GJK iterations a query warm {:.2}, cold {:.2}",
            q.name(),
            it_warm as f64 / n as f64,
            it_cold as f64 / n as f64
        );
        assert_eq!(wrong, 0, "{}: a warm answer disagrees with the exact distance", q.name());
    }
}

/// The trajectory table: checks, then [`ROUNDS`] rounds of every query
/// warm and cold, ours and coal's.
pub fn run(bodies: &Bodies<'_>, ticks: &[Tick], coal: &mut [CoalPair<'_>]) {
    let order = coal_pairs_in_order();
    check(bodies, ticks, coal, &order);
    let n = ticks.len() * PAIRS;
    // Per query: ours warm, ours cold, coal warm, coal cold (ns per query).
    let mut times: Vec<[Vec<f64>; 4]> = Query::ALL.iter().map(|_| Default::default()).collect();
    for round in 0..ROUNDS {
        for (q, t) in Query::ALL.iter().zip(times.iter_mut()) {
            let mut it = 0;
            t[0].push(time_pass(n, round, &mut || ours_pass(bodies, ticks, *q, true, &mut it)));
            t[1].push(time_pass(n, round, &mut || ours_pass(bodies, ticks, *q, false, &mut it)));
            if !coal.is_empty() {
                t[2].push(time_pass(n, round, &mut || coal_pass(coal, &order, ticks, *q, true)));
                t[3].push(time_pass(n, round, &mut || coal_pass(coal, &order, ticks, *q, false)));
            }
        }
    }
    println!("\nmedian ns per query over {ROUNDS} rounds, warm = each pair's warm start kept from tick to tick");
    println!(
        "| query | ours warm | ours cold | coal warm | coal cold | ours warm ÷ coal warm | ours warm ÷ ours cold |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let ns = |xs: &Vec<f64>| if xs.is_empty() { "—".to_string() } else { format!("{:.0}", median(xs.clone())) };
    let ratio = |a: &Vec<f64>, b: &Vec<f64>| {
        if b.is_empty() {
            "—".to_string()
        } else {
            format!("{:.2}", median(a.iter().zip(b).map(|(x, y)| x / y).collect()))
        }
    };
    for (q, t) in Query::ALL.iter().zip(&times) {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            q.name(),
            ns(&t[0]),
            ns(&t[1]),
            ns(&t[2]),
            ns(&t[3]),
            ratio(&t[0], &t[2]),
            ratio(&t[0], &t[1]),
        );
    }
}

/// `reps` warm passes of our `query` (`hit`, `near` or `dist`) over the
/// trajectories, inside [`profile_loop`], for callgrind
/// (instructions per query = Ir / (reps · ticks · pairs)).
pub fn profile(bodies: &Bodies<'_>, ticks: &[Tick], query: &str, reps: usize) {
    let q = Query::ALL.into_iter().find(|q| q.name() == query).unwrap_or(Query::Hit);
    profile_loop(&mut || {
        let mut it = 0;
        for _ in 0..reps {
            black_box(ours_pass(bodies, ticks, q, true, &mut it));
        }
    });
}
