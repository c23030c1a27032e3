//! `fuzz/regressions/polytope/`: polytope validation and hill climbing
//! (`shape::Polytope`, `hull::quickhull`). Truth: the input points
//! themselves.

use nalgebra::{Point3, Vector3};
use narrowphase::hull::quickhull;

/// `f64-hull-reflex-vertex-1e-47-traps-climb`: `quickhull` of 27 points
/// (coordinates `i/256` up to 119.96, three of them with x = 1.5e-47, 0 and
/// −1.1e-204). A vertex like v = (1.5e-47, 119, 119), inside the hull's face
/// x = 0 and reflex by 1.5e-47 with three faces whose normals differ by
/// 1e-47, traps hill climbing: along +x the climb from v stops at v (no
/// neighbour is larger) while the scan finds 119.96, an error of the
/// polytope's whole size (GJK, MPR and EPA climb from
/// `HILL_CLIMB_MIN_VERTICES` vertices on).
/// `Polytope::new` asks every vertex to be a strict corner beyond rounding
/// and `quickhull` drops the ones that are not. Truth: from every start the
/// climb along +x reaches the largest x of the input points.
#[test]
fn f64_hull_reflex_vertex_does_not_trap_the_climb() {
    let s = |i: f64| i / 256.0;
    let raw: [[f64; 3]; 27] = [
        [s(0.0), s(30583.0), s(271.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30711.0), s(30583.0), s(24695.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30583.0), s(30574.0), s(30583.0)],
        [s(24695.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(119.0), s(30583.0)],
        [s(30583.0), s(1285.0), s(23387.0)],
        [s(23342.0), 1.7895767878486897e-284, s(1376.0)],
        [1.5197741196739586e-47, s(30464.0), s(30464.0)],
        [s(3328.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [s(30583.0), s(30465.0), s(271.0)],
        [s(12151.0), s(28279.0), s(0.0)],
        [s(30583.0), s(0.0), s(30464.0)],
        [s(0.0), s(30557.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [-1.075675313938059e-204, s(3341.0), s(3341.0)],
        [s(3332.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(3341.0), s(3341.0)],
        [s(3341.0), s(30583.0), s(30465.0)],
        [s(30465.0), s(12151.0), s(28279.0)],
        [s(2048.0), s(30583.0), s(271.0)],
        [s(30583.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(30583.0)],
        [s(30583.0), s(30583.0), s(119.0)],
    ];
    let pts: Vec<Point3<f64>> = raw.iter().map(|p| Point3::new(p[0], p[1], p[2])).collect();
    let hull = quickhull(&pts).unwrap();
    let p = hull.polytope().unwrap();
    let v = p.data().vertices;
    // Ground truth: the largest x of the input points.
    let best = raw.iter().fold(f64::NEG_INFINITY, |m, q| m.max(q[0]));
    assert_eq!(best, s(30711.0));
    let size = 120.0;
    for start in 0..v.len() {
        let i = p.support_index_climb(&Vector3::x(), start);
        assert!(v[i].x >= best - 1e-4 * size, "climb from {start} ({:?}) stopped at {:?}", v[start], v[i]);
    }
}
