//! The robot cell of the firmware demo (`src/bin/demo.rs`), also run by the
//! host tests and by `examples/host_demo.rs`: one description, one motion,
//! one set of checks on every side.
//!
//! A 6-axis arm (five capsule links and a polytope gripper), a table and a
//! person (capsule torso, sphere head) walking up to the arm and away are
//! described once ([`BODIES`], a `static`); the scene is built once
//! ([`build`]); then each of [`TICKS`] control ticks (1 ms apart) the
//! joints follow a smooth trajectory, forward kinematics in f32 gives every
//! link's pose ([`motion`]), the poses are set and `Scene::tick` runs
//! ([`CellDemo::tick`]). [`CellDemo::check`] then compares every pair's
//! answer with a closed form computed in f64 without the kernel's queries
//! (`check.rs`, `crate::truth`).
//!
//! `no_std`, no allocation; it uses `crate::truth` and nothing else of the
//! firmware library, so the host demo can include both files by `#[path]`.

mod check;
mod gripper;
pub mod motion;
mod run;

pub use check::{Slack, Verdict};
pub use gripper::GRIPPER;
pub use run::{CellDemo, Failure, Line, Tally, TickReport, DIGEST};

use narrowphase::error::SceneError;
use narrowphase::scene::{BodyDesc, PairQuery, PairSettings, Scene, ShapeDesc, TickBudget};

/// Control ticks: one second at 1 kHz.
pub const TICKS: usize = 1000;

/// Bodies in the cell.
pub const BODY_COUNT: usize = 9;

/// Pairs checked: the 36 pairs of 9 bodies less 6 adjacent (a link and its
/// parent) and 3 in the allowed-collision matrix.
pub const PAIR_COUNT: usize = 27;

/// The scene: 9 bodies, 27 pairs, the default EPA workspace (7.4 KiB).
pub type CellScene = Scene<'static, f32, BODY_COUNT, PAIR_COUNT>;

/// Body indices.
pub mod body {
    /// The column, turning about z (joint 1).
    pub const COLUMN: u16 = 0;
    /// Upper arm (after joint 2, shoulder pitch).
    pub const UPPER_ARM: u16 = 1;
    /// Forearm (after joint 3, elbow pitch).
    pub const FOREARM: u16 = 2;
    /// First wrist link (after joint 4, roll about the forearm).
    pub const WRIST_1: u16 = 3;
    /// Second wrist link (after joint 5, wrist pitch).
    pub const WRIST_2: u16 = 4;
    /// The gripper (after joint 6, tool roll): a polytope.
    pub const GRIPPER: u16 = 5;
    /// The table, a box.
    pub const TABLE: u16 = 6;
    /// The person's torso, a vertical capsule.
    pub const TORSO: u16 = 7;
    /// The person's head, a ball.
    pub const HEAD: u16 = 8;
}

/// Names for the report lines, by body index.
pub const NAMES: [&str; BODY_COUNT] =
    ["column", "upper arm", "forearm", "wrist 1", "wrist 2", "gripper", "table", "torso", "head"];

/// Capsule half-lengths and radii of the arm's links 0–4: each capsule's
/// core runs from its joint to the next (see [`motion`]).
pub const LINKS: [(f32, f32); 5] = [(0.2, 0.08), (0.2, 0.065), (0.175, 0.055), (0.04, 0.045), (0.04, 0.04)];

/// Half-extents of the table top.
pub const TABLE_HALF: [f32; 3] = [0.3, 0.45, 0.02];
/// Torso capsule: half-length, radius.
pub const TORSO_CAPSULE: (f32, f32) = (0.28, 0.17);
/// Head radius.
pub const HEAD_RADIUS: f32 = 0.11;

/// The cell, in flash: the arm is a chain (each link the child of the one
/// before), the table a root, the head a child of the torso.
pub static BODIES: [BodyDesc<'static, f32>; BODY_COUNT] = [
    BodyDesc::root(ShapeDesc::capsule(LINKS[0].0, LINKS[0].1)),
    BodyDesc::child(ShapeDesc::capsule(LINKS[1].0, LINKS[1].1), 0),
    BodyDesc::child(ShapeDesc::capsule(LINKS[2].0, LINKS[2].1), 1),
    BodyDesc::child(ShapeDesc::capsule(LINKS[3].0, LINKS[3].1), 2),
    BodyDesc::child(ShapeDesc::capsule(LINKS[4].0, LINKS[4].1), 3),
    BodyDesc::child(ShapeDesc::polytope(GRIPPER), 4),
    BodyDesc::root(ShapeDesc::cuboid(TABLE_HALF)),
    BodyDesc::root(ShapeDesc::capsule(TORSO_CAPSULE.0, TORSO_CAPSULE.1)),
    BodyDesc::child(ShapeDesc::sphere(HEAD_RADIUS), 7),
];

/// Arm against itself: 2 cm, clearance only.
pub const SELF_PAIRS: PairSettings<f32> = PairSettings::new(0.02, PairQuery::Clearance);
/// Links against the table: 3 cm, clearance only.
pub const TABLE_PAIRS: PairSettings<f32> = PairSettings::new(0.03, PairQuery::Clearance);
/// Gripper against the table: 5 cm, measured inside (the pick).
pub const GRIPPER_TABLE_PAIR: PairSettings<f32> = PairSettings::new(0.05, PairQuery::Contact);
/// Arm against the person: 15 cm, distances measured up to 35 cm.
pub const PERSON_PAIRS: PairSettings<f32> = PairSettings::new(0.15, PairQuery::DistanceUpTo(0.35));

/// Iterations (GJK + EPA, all pairs) one tick may use. The busiest tick
/// of the motion uses well under half of it (the host test asserts a
/// factor 2 of headroom), so no pair is ever left undetermined.
pub const BUDGET_ITERATIONS: u32 = 400;

/// The tick budget: [`BUDGET_ITERATIONS`], the default per-pair budget
/// (64 iterations, relative tolerance 1000·ε).
pub fn budget() -> TickBudget<f32> {
    TickBudget::new(BUDGET_ITERATIONS)
}

/// Builds the scene: bodies, the allowed-collision matrix, the pairs.
///
/// Allowed to touch (never checked): the forearm and the second wrist link
/// — the first wrist link between them is 8 cm long, their radii add up to
/// 9.5 cm, so they always overlap — and the table and the person.
///
/// # Errors
/// A `SceneError` if a shape does not validate or a capacity is short.
pub fn build(scene: &mut CellScene) -> Result<(), SceneError> {
    use body::{COLUMN, FOREARM, HEAD, TABLE, TORSO, WRIST_2};
    scene.add_bodies(&BODIES)?;
    for (a, b) in [(FOREARM, WRIST_2), (TABLE, TORSO), (TABLE, HEAD)] {
        scene.allow_collision(a, b)?;
    }
    scene.pairs_from_tree(&SELF_PAIRS)?;
    for link in COLUMN..=body::GRIPPER {
        let table = if link == body::GRIPPER { GRIPPER_TABLE_PAIR } else { TABLE_PAIRS };
        scene.enable_pair(link, TABLE, &table)?;
        scene.enable_pair(link, TORSO, &PERSON_PAIRS)?;
        scene.enable_pair(link, HEAD, &PERSON_PAIRS)?;
    }
    Ok(())
}
