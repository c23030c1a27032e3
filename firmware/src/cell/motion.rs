//! The motion of the cell, in f32 as a controller computes it: the arm's
//! joint trajectory and forward kinematics, the person's walk, the poses
//! handed to `Scene::set_pose`.
//!
//! The arm picks a part from the table and swings it towards the place
//! where the person comes to stand; the person walks in, brushes the wrist
//! and walks out. A second of motion at 1 kHz: the moves are
//! time-compressed (the person covers 1.24 m in a third of a second), which
//! changes nothing for the collision checks of each tick.
//!
//! Trigonometry is `libm::sinf`/`cosf`, called explicitly, so the host and
//! the target compute the same bits (a host build could otherwise pick the
//! platform's `sinf` through `std`).

use nalgebra::{Matrix3, Rotation3, Translation3, Vector3};
use narrowphase::prelude::Pose;

use super::gripper::HALF_HEIGHT;
use super::{BODY_COUNT, LINKS, TICKS};

/// Joint angles (rad): base yaw about z, shoulder pitch, elbow pitch,
/// wrist roll about the forearm, wrist pitch, tool roll.
pub type Joints = [f32; 6];

/// Arm stretched forward over the table, the gripper pointing down and out.
const HOME: Joints = [0.0, 0.3, 1.2, 0.0, 0.9, 0.0];
/// Gripper pointing down, its tip about 10 cm over the table.
const ABOVE: Joints = [0.2, 0.6639, 1.4252, 0.0, 1.0525, 0.0];
/// The same, tip about 2 cm over the table (inside the gripper's 5 cm margin).
const PICK: Joints = [0.2, 0.776, 1.4543, 0.0, 0.9113, 0.0];
/// Swung towards +y, where the person comes to stand; wrist and tool rolled.
const PLACE: Joints = [1.25, 0.3525, 1.5094, 0.3, 1.2797, 0.8];

/// Waypoints (time in s, joints); a minimum-jerk blend between each two,
/// at rest at every waypoint.
const ARM_PATH: [(f32, Joints); 7] =
    [(0.0, HOME), (0.25, ABOVE), (0.38, PICK), (0.45, PICK), (0.55, ABOVE), (0.82, PLACE), (1.0, PLACE)];

/// The person's torso axis on the floor plan (time, x, y): far out, walking
/// in until the torso overlaps the first wrist link by up to 3 cm, standing,
/// walking out.
const PERSON_PATH: [(f32, f32, f32); 5] =
    [(0.0, 0.3, 1.9), (0.35, 0.3, 1.9), (0.68, 0.3, 0.66), (0.85, 0.3, 0.66), (1.0, 0.3, 1.5)];

/// Height of the torso's centre and of the head's.
const TORSO_Z: f32 = 1.05;
const HEAD_Z: f32 = 1.58;
/// Centre of the table top; it does not move.
const TABLE_CENTRE: [f32; 3] = [0.65, 0.0, 0.28];
/// The column's core starts 5 cm over the floor, at the base.
const COLUMN_FOOT: f32 = 0.05;

/// Minimum-jerk blend: 0 → 1 with zero speed and acceleration at both ends.
fn blend(s: f32) -> f32 {
    let s = s.clamp(0.0, 1.0);
    s * s * s * (10.0 + s * (-15.0 + 6.0 * s))
}

/// The stretch of `path` that holds `t` (the last one after the end), and
/// the blend of how far along it `t` is; `None` for fewer than 2 waypoints.
fn segment<T: Copy>(path: &[(f32, T)], t: f32) -> Option<(T, T, f32)> {
    let mut found = None;
    for w in path.windows(2) {
        if let [(t0, a), (t1, b)] = *w {
            found = Some((a, b, blend((t - t0) / (t1 - t0))));
            if t <= t1 {
                break;
            }
        }
    }
    found
}

/// The joint angles at time `t` (s).
pub fn joints(t: f32) -> Joints {
    let (a, b, s) = segment(&ARM_PATH, t).unwrap_or((HOME, HOME, 0.0));
    let mut q = a;
    for (q, (a, b)) in q.iter_mut().zip(a.iter().zip(b.iter())) {
        *q = a + (b - a) * s;
    }
    q
}

/// Where the person's torso axis is on the floor at time `t` (s).
pub fn person(t: f32) -> (f32, f32) {
    let path = PERSON_PATH.map(|(t, x, y)| (t, (x, y)));
    let far = (PERSON_PATH[0].1, PERSON_PATH[0].2);
    let ((x0, y0), (x1, y1), s) = segment(&path, t).unwrap_or((far, far, 0.0));
    (x0 + (x1 - x0) * s, y0 + (y1 - y0) * s)
}

fn rot_z(a: f32) -> Matrix3<f32> {
    let (s, c) = (libm::sinf(a), libm::cosf(a));
    Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
}

fn rot_y(a: f32) -> Matrix3<f32> {
    let (s, c) = (libm::sinf(a), libm::cosf(a));
    Matrix3::new(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
}

fn pose(centre: Vector3<f32>, r: Matrix3<f32>) -> Pose<f32> {
    Pose::from_parts(Translation3::from(centre), Rotation3::from_matrix_unchecked(r))
}

/// Forward kinematics: the poses of the column, the four links and the
/// gripper for joint angles `q`.
///
/// Each link's frame is its parent's turned by its joint (about z for the
/// yaw and the rolls, about y for the pitches); its capsule core runs along
/// the frame's z from its joint to the next one, so the pose is the
/// segment's midpoint. The gripper's wide face sits on the last joint.
pub fn arm(q: &Joints) -> [Pose<f32>; 6] {
    let turns = [rot_z(q[0]), rot_y(q[1]), rot_y(q[2]), rot_z(q[3]), rot_y(q[4]), rot_z(q[5])];
    let mut r = Matrix3::identity();
    let mut joint = Vector3::new(0.0, 0.0, COLUMN_FOOT);
    let mut poses = [Pose::identity(); 6];
    for (i, (turn, out)) in turns.iter().zip(poses.iter_mut()).enumerate() {
        r *= turn;
        let axis: Vector3<f32> = r.column(2).into_owned();
        let half = LINKS.get(i).map_or(HALF_HEIGHT, |l| l.0);
        *out = pose(joint + axis * half, r);
        joint += axis * (2.0 * half);
    }
    poses
}

/// Every body's pose at tick `tick` (t = tick · 1 ms), in body order.
pub fn poses(tick: usize) -> [Pose<f32>; BODY_COUNT] {
    let t = tick as f32 / TICKS as f32;
    let arm = arm(&joints(t));
    let (x, y) = person(t);
    let mut all = [Pose::identity(); BODY_COUNT];
    for (slot, p) in all.iter_mut().zip(arm) {
        *slot = p;
    }
    let fixed = [
        pose(Vector3::from(TABLE_CENTRE), Matrix3::identity()),
        pose(Vector3::new(x, y, TORSO_Z), Matrix3::identity()),
        pose(Vector3::new(x, y, HEAD_Z), Matrix3::identity()),
    ];
    for (slot, p) in all.iter_mut().skip(6).zip(fixed) {
        *slot = p;
    }
    all
}
