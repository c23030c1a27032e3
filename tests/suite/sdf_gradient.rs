//! The projected-gradient methods (Liu et al. §4.2–4.4) against ground truth
//! that does not come from them: closed-form deepest points (a ball on a
//! cube, a dumbbell on a slab, a ball in a channel), brute-force sampling of
//! the intersection region (linked tori), the ellipsoid method's collision
//! flag and the test's own closed-form SDFs (random convex pairs); bad input.

use crate::common::{pose, rng};
use nalgebra::{Matrix3, Rotation3, SVector, Vector2, Vector3};
use narrowphase::error::GradientError;
use narrowphase::error::ShapeError;
use narrowphase::math::Pose;
use narrowphase::query::Undetermined;
use narrowphase::sdf::ellipsoid_method::{EllipsoidMethod, EllipsoidWarmStart};
use narrowphase::sdf::gradient::{
    contact, contacts, intersection_test, lattice_points, protrusion_points, ContactOutcome, GradientContact,
    GradientParams, GradientReport, IntersectionOutcome,
};
use narrowphase::sdf::{
    Aabb, Ball, BoxN, Difference, Halfspace, Sdf, SdfAccuracy, SdfSample, Torus, Transformed, Union,
};
use narrowphase::shape::{Capsule, Cuboid, Cylinder, Placed, Sphere};
use rand::Rng;

type V3 = Vector3<f64>;

fn translated<S, const D: usize>(s: S, t: SVector<f64, D>) -> Transformed<S, f64, D> {
    Transformed::new(s, nalgebra::SMatrix::identity(), 1.0, t).unwrap()
}

/// Lattice detection points over the detection box, then [`contacts`].
fn run<const D: usize, const N: usize>(
    a: &impl Sdf<f64, D>,
    b: &impl Sdf<f64, D>,
    per_axis: u32,
    params: &GradientParams<f64>,
    out: &mut [GradientContact<f64, D>; N],
) -> GradientReport {
    let region = match a.bounding_box().intersection(&b.bounding_box()) {
        Some(r) => r,
        None => return GradientReport::default(),
    };
    let mut points = vec![SVector::<f64, D>::zeros(); (per_axis as usize).pow(D as u32)];
    let n = lattice_points(&region, per_axis, &mut points).unwrap();
    contacts(a, b, &points[..n], params, out).unwrap()
}

// ---------------------------------------------------------------------------
// Ball entering a cube (Liu et al. §5.1, Fig. 9–10)

/// The closed forms of a unit ball A with centre `c` (cube frame) against
/// the cube `|x_i| ≤ 1` (B):
/// - `p_b = argmin_{x∈cube} |x − c| − r = clamp(c)`, exact for every `c`;
/// - face contact (`c` over the top face, shallow enough that the lowest
///   point of the ball is nearest the top face):
///   `p_a = c − r·e_z`, `depth = 1 + r − c_z` (`φ_cube ≥ z − 1` inside,
///   with equality only there);
/// - the symmetric edge and corner approaches `c = (t, y, t)`, `(t, t, t)`:
///   `p_a = c − r·u`, `u` the unit of `c − clamp(c)` (by symmetry and the
///   same bound with the averaged face terms).
struct Truth {
    p_a: V3,
    p_b: V3,
    depth_a: f64,
    depth_b: f64,
}

fn cube_ball_truth(c: &V3, r: f64) -> Truth {
    let p_b = c.map(|v| v.clamp(-1.0, 1.0));
    let gap = c - p_b;
    let u = gap.normalize();
    let p_a = c - u * r;
    // φ_cube(p_a) inside: −min_i(1 − |p_i|).
    let depth_a = (0..3).map(|i| 1.0 - p_a[i].abs()).fold(f64::INFINITY, f64::min);
    Truth { p_a, p_b, depth_a, depth_b: r - gap.norm() }
}

struct Errors {
    point: Vec<f64>,
    depth: f64,
}

fn cube_ball_frames(params: &GradientParams<f64>, per_axis: u32) -> (Errors, usize, usize) {
    let r = 1.0;
    let mut rng = rng(90);
    let mut errors = Errors { point: Vec::new(), depth: 0.0 };
    let (mut penetrating, mut apart) = (0, 0);
    // 60 face frames (the ball sinks into the top face with a lateral
    // drift), 15 edge frames, 15 corner frames; every third frame with the
    // cube rotated and moved.
    let mut centres = Vec::new();
    for k in 0..60 {
        let t = k as f64 / 59.0;
        centres.push(V3::new(-0.3 + 0.6 * t, 0.25 - 0.4 * t, 2.2 - 0.8 * t));
    }
    for k in 0..15 {
        let t = 1.0 + (0.75 - 0.45 * k as f64 / 14.0);
        centres.push(V3::new(t, 0.2, t)); // |c − edge| from 1.06 to 0.42
    }
    for k in 0..15 {
        let t = 1.0 + (0.62 - 0.35 * k as f64 / 14.0);
        centres.push(V3::new(t, t, t)); // |c − corner| from 1.07 to 0.47
    }
    for (k, c) in centres.iter().enumerate() {
        let placement: Pose<f64> = if k % 3 == 0 { pose(&mut rng, 3.0) } else { Pose::identity() };
        let cube = Placed::new(Cuboid::new(V3::new(1.0, 1.0, 1.0)).unwrap(), placement);
        let world_c = placement * nalgebra::Point3::from(*c);
        let ball = translated(Sphere::new(r).unwrap(), world_c.coords);
        let truth = cube_ball_truth(c, r);
        let to_world = |p: &V3| (placement * nalgebra::Point3::from(*p)).coords;
        let mut out = [GradientContact::default(); 4];
        let report = run(&ball, &cube, per_axis, params, &mut out);
        assert_eq!(report.undetermined, 0, "frame {k}: {report:?}");
        if truth.depth_b <= 0.0 {
            apart += 1;
            assert_eq!(
                report.hits,
                0,
                "frame {k}: a hit on an apart pair ({truth:?} vs {report:?})",
                truth = truth.depth_b
            );
            continue;
        }
        penetrating += 1;
        // A convex pair: one contact region.
        assert_eq!((report.stored, report.dropped), (1, 0), "frame {k}: {report:?}");
        let got = out[0];
        assert!(got.converged, "frame {k}: {got:?}");
        let e_a = (got.p_a - to_world(&truth.p_a)).norm();
        let e_b = (got.p_b - to_world(&truth.p_b)).norm();
        errors.point.push(e_a);
        errors.point.push(e_b);
        errors.depth = errors.depth.max((got.depth_a - truth.depth_a).abs()).max((got.depth_b - truth.depth_b).abs());
        // Normals: move the ball out along the outward gap direction.
        let u = placement.rotation * (c - truth.p_b).normalize();
        assert!((got.n_a - u).norm() < 1e-2, "frame {k}: n_a {:?} vs {u:?}", got.n_a);
        assert!((got.n_b + u).norm() < 1e-2, "frame {k}: n_b {:?} vs {:?}", got.n_b, -u);
    }
    (errors, penetrating, apart)
}

fn summary(e: &[f64]) -> (f64, f64) {
    (e.iter().sum::<f64>() / e.len() as f64, e.iter().cloned().fold(0.0, f64::max))
}

#[test]
fn ball_entering_a_cube_matches_the_closed_form_deepest_points() {
    let params = GradientParams::default();
    let (errors, penetrating, apart) = cube_ball_frames(&params, 2);
    let (mean, max) = summary(&errors.point);
    println!(
        "cube-ball f64, {penetrating} penetrating + {apart} apart frames, 2^3 detection points: \
         contact point error mean {mean:.2e}, max {max:.2e}; depth error max {:.2e} (tolerance {:.0e} relative)",
        errors.depth, params.budget.tolerance
    );
    assert!(penetrating > 60 && apart > 15, "{penetrating} {apart}");
    // The detection box of these frames is at most ~3.5 across: the
    // absolute tolerance is below 3.5e-6. Face frames converge to it; the
    // ball on an edge or a corner (a ridge of the cube's SDF) to ~1e-4.
    assert!(max < 5e-4, "max contact point error {max:.2e}");
    assert!(mean < 2e-5, "mean contact point error {mean:.2e}");
    assert!(errors.depth < 1e-5, "depth error {:.2e}", errors.depth);
}

#[test]
fn f32_ball_entering_a_cube() {
    let params = GradientParams::<f32>::default();
    let mut errors = Vec::new();
    for k in 0..30 {
        let t = k as f32 / 29.0;
        let c = Vector3::new(0.2 - 0.4 * t, 0.1, 1.95 - 0.6 * t);
        let ball = Transformed::new(Sphere::new(1.0_f32).unwrap(), Matrix3::identity(), 1.0, c).unwrap();
        let cube = BoxN::new(Vector3::new(1.0_f32, 1.0, 1.0)).unwrap();
        let region = ball.bounding_box().intersection(&cube.bounding_box()).unwrap();
        let mut points = [Vector3::zeros(); 27];
        let n = lattice_points(&region, 3, &mut points).unwrap();
        let mut out = [GradientContact::default(); 2];
        let report = contacts(&ball, &cube, &points[..n], &params, &mut out).unwrap();
        let depth = 2.0 - c.z;
        assert_eq!(report.undetermined, 0);
        if depth < 0.0 {
            assert_eq!(report.hits, 0);
            continue;
        }
        assert_eq!(report.stored, 1, "{report:?}");
        let got = out[0];
        errors.push((got.p_a - (c - Vector3::z())).norm() as f64);
        errors.push((got.p_b - Vector3::new(c.x, c.y, 1.0)).norm() as f64);
        assert!((got.depth - depth).abs() < 2e-3, "{got:?} vs {depth}");
    }
    let (mean, max) = summary(&errors);
    println!("cube-ball f32: contact point error mean {mean:.2e}, max {max:.2e} over {} points", errors.len());
    assert!(errors.len() > 40);
    // f32 tolerance 1.2e-4 relative, scale ≤ 3.5.
    assert!(max < 3e-3 && mean < 1e-3, "{mean} {max}");
}

/// A disc sinking into a rectangle's long side, in 2D.
#[test]
fn disc_on_a_rectangle_in_2d() {
    let rect = BoxN::new(Vector2::new(2.0, 0.5)).unwrap();
    for k in 0..10 {
        let c = Vector2::new(-0.5 + 0.1 * k as f64, 1.4 - 0.03 * k as f64);
        let disc = translated(Sphere::new(1.0).unwrap(), c);
        let mut out = [GradientContact::default(); 2];
        let report = run(&disc, &rect, 4, &GradientParams::default(), &mut out);
        assert_eq!(report.stored, 1, "{report:?}");
        let got = out[0];
        assert!((got.p_a - (c - Vector2::y())).norm() < 1e-4, "{got:?}");
        assert!((got.p_b - Vector2::new(c.x, 0.5)).norm() < 1e-4, "{got:?}");
        assert!((got.depth - (1.5 - c.y)).abs() < 1e-6);
        assert!((got.n_a - Vector2::y()).norm() < 1e-4);
    }
}

// ---------------------------------------------------------------------------
// Linked tori: two contact regions, found by brute-force sampling

/// The torus SDF written out here (independent of the crate's).
fn torus_phi(x: &V3, major: f64, minor: f64) -> f64 {
    let rho = (x.x * x.x + x.y * x.y).sqrt();
    ((rho - major).powi(2) + x.z * x.z).sqrt() - minor
}

/// Samples `{φ_A < 0, φ_B < 0}` on a grid and splits it into 26-connected
/// components. Returns, per component, its sample points.
fn components(inside: impl Fn(&V3) -> bool, region: &Aabb<f64, 3>, n: usize) -> (Vec<Vec<V3>>, f64) {
    let cell = region.extent() / n as f64;
    let at = |i: usize, j: usize, k: usize| {
        region.min + V3::new((i as f64 + 0.5) * cell.x, (j as f64 + 0.5) * cell.y, (k as f64 + 0.5) * cell.z)
    };
    let idx = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let mut label = vec![usize::MAX; n * n * n];
    let mut mask = vec![false; n * n * n];
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                mask[idx(i, j, k)] = inside(&at(i, j, k));
            }
        }
    }
    let mut comps: Vec<Vec<V3>> = Vec::new();
    for start in 0..n * n * n {
        if !mask[start] || label[start] != usize::MAX {
            continue;
        }
        let id = comps.len();
        let mut stack = vec![start];
        label[start] = id;
        let mut pts = Vec::new();
        while let Some(s) = stack.pop() {
            let (i, j, k) = (s / (n * n), (s / n) % n, s % n);
            pts.push(at(i, j, k));
            for di in -1i64..=1 {
                for dj in -1i64..=1 {
                    for dk in -1i64..=1 {
                        let (a, b, c) = (i as i64 + di, j as i64 + dj, k as i64 + dk);
                        if a < 0 || b < 0 || c < 0 || a >= n as i64 || b >= n as i64 || c >= n as i64 {
                            continue;
                        }
                        let t = idx(a as usize, b as usize, c as usize);
                        if mask[t] && label[t] == usize::MAX {
                            label[t] = id;
                            stack.push(t);
                        }
                    }
                }
            }
        }
        comps.push(pts);
    }
    (comps, cell.norm())
}

#[test]
fn linked_tori_give_two_contact_regions() {
    // A: major 2, minor 0.3, in the xy-plane. B: major 0.6, minor 0.15,
    // centred on A's core circle at (2, 0, 0), its axis tilted 50° from A's
    // tangent (y) towards z: B's core circle wraps A's tube (linked) as an
    // ellipse of semi-axes 0.6 and 0.39 seen along the tube, so the tubes
    // (0.3 + 0.15 = 0.45 apart at most to touch) overlap near the two ends
    // of the short axis only, and neither core circle enters the other
    // tube (the deepest points are unique and on the surfaces).
    let (ra, rb) = ((2.0, 0.3), (0.6, 0.15));
    let theta = 50f64.to_radians();
    let axis = V3::new(0.0, theta.cos(), theta.sin());
    let e1 = V3::x();
    let e2 = axis.cross(&e1);
    let rot = Matrix3::from_columns(&[e1, e2, axis]);
    let centre = V3::new(2.0, 0.0, 0.0);
    for (label, spin) in [("aligned", Rotation3::identity()), ("rotated", Rotation3::from_euler_angles(0.3, -0.5, 1.1))]
    {
        let q = *spin.matrix();
        let a = Transformed::new(Torus::new(ra.0, ra.1).unwrap(), q, 1.0, V3::zeros()).unwrap();
        let b = Transformed::new(Torus::new(rb.0, rb.1).unwrap(), q * rot, 1.0, q * centre).unwrap();
        let phi_a = |x: &V3| torus_phi(&(q.transpose() * x), ra.0, ra.1);
        let phi_b = |x: &V3| torus_phi(&(rot.transpose() * (q.transpose() * x - centre)), rb.0, rb.1);
        let region = a.bounding_box().intersection(&b.bounding_box()).unwrap();
        let (comps, cell) = components(|x| phi_a(x) < 0.0 && phi_b(x) < 0.0, &region, 60);
        assert_eq!(comps.len(), 2, "{label}: brute force sees {} regions", comps.len());
        let mut out = [GradientContact::default(); 8];
        // Algorithm 3 from every hit (the paper) here; the default skips
        // covered hits (checked on the slab and channel bodies).
        let params = GradientParams { skip_covered_hits: label == "rotated", ..GradientParams::default() };
        let report = run(&a, &b, 4, &params, &mut out);
        println!("tori {label}: {report:?}");
        assert_eq!((report.stored, report.dropped), (2, 0), "{label}: {report:?}");
        let mut seen = [false; 2];
        for c in &out[..2] {
            assert!(c.converged);
            // p_a (on A's surface, inside B) lies in the closure of one region.
            let near = |p: &V3| {
                comps
                    .iter()
                    .map(|pts| pts.iter().map(|q| (q - p).norm()).fold(f64::INFINITY, f64::min))
                    .collect::<Vec<_>>()
            };
            let d = near(&c.p_a);
            let which = if d[0] < d[1] { 0 } else { 1 };
            assert!(d[which] < cell, "{label}: p_a {:?} {d:?}", c.p_a);
            assert!(near(&c.p_b)[which] < cell, "{label}: p_b in the same region");
            seen[which] = true;
            // Its depth against the sampled minimum of φ_B over A's samples
            // of that region (φ is 1-Lipschitz: within half a cell).
            let sampled = comps[which].iter().map(phi_b).fold(f64::INFINITY, f64::min);
            assert!((phi_b(&c.p_a) - sampled).abs() < cell / 2.0, "{label}: {} vs {sampled}", phi_b(&c.p_a));
            assert!((c.depth_a + phi_b(&c.p_a)).abs() < 1e-12);
            assert!(phi_a(&c.p_a).abs() < 1e-5, "p_a on A's surface");
            assert!(phi_b(&c.p_b).abs() < 1e-5, "p_b on B's surface");
        }
        assert_eq!(seen, [true, true], "{label}: one contact per region");
        // By the symmetry (x, y, z) → (x, −y, −z) of the pair the two depths agree.
        assert!((out[0].depth - out[1].depth).abs() < 1e-5, "{:?} {:?}", out[0].depth, out[1].depth);
    }
}

// ---------------------------------------------------------------------------
// Non-convex CSG bodies with two contact regions (closed forms)

#[test]
fn dumbbell_on_a_slab_gives_two_closed_form_contacts() {
    let mut rng = rng(7);
    for _ in 0..5 {
        // Local frame: balls of radius 1 at (±1.5, 0, 0), slab top at z = −0.8.
        let placement = pose(&mut rng, 2.0);
        let q = *placement.rotation.matrix();
        let t = placement.translation.vector;
        let ball = |x: f64| Transformed::new(Sphere::new(1.0).unwrap(), q, 1.0, q * V3::new(x, 0.0, 0.0) + t).unwrap();
        let dumbbell = Union::new(ball(-1.5), ball(1.5));
        let slab =
            Transformed::new(BoxN::new(V3::new(4.0, 4.0, 1.0)).unwrap(), q, 1.0, q * V3::new(0.0, 0.0, -1.8) + t)
                .unwrap();
        assert_eq!(dumbbell.accuracy(), SdfAccuracy::Approximate);
        let mut out = [GradientContact::default(); 4];
        let report = run(&dumbbell, &slab, 3, &GradientParams::default(), &mut out);
        assert_eq!((report.stored, report.dropped, report.undetermined), (2, 0, 0), "{report:?}");
        let world = |p: V3| q * p + t;
        let mut xs = Vec::new();
        for c in &out[..2] {
            let local = q.transpose() * (c.p_a - t);
            let side = local.x.signum();
            assert!((c.p_a - world(V3::new(1.5 * side, 0.0, -1.0))).norm() < 1e-4, "{c:?}");
            assert!((c.p_b - world(V3::new(1.5 * side, 0.0, -0.8))).norm() < 1e-4, "{c:?}");
            assert!((c.depth - 0.2).abs() < 1e-6);
            assert!((c.n_a - q * V3::z()).norm() < 1e-4);
            xs.push(side);
        }
        assert!(xs[0] != xs[1], "one contact per ball");
    }
}

#[test]
fn ball_in_a_channel_gives_two_closed_form_contacts() {
    // B = box [−2, 2]³ minus the slot |x| < 0.9, z > −1.5: a U channel whose
    // walls press 0.1 into a unit ball at the origin from both sides.
    let block = BoxN::new(V3::new(2.0, 2.0, 2.0)).unwrap();
    let slot = translated(BoxN::new(V3::new(0.9, 3.0, 2.0)).unwrap(), V3::new(0.0, 0.0, 0.5));
    let channel = Difference::new(block, slot);
    let ball = Sphere::new(1.0).unwrap();
    let mut out = [GradientContact::default(); 4];
    let report = run(&ball, &channel, 4, &GradientParams::default(), &mut out);
    assert_eq!((report.stored, report.dropped), (2, 0), "{report:?}");
    let mut sides = Vec::new();
    for c in &out[..2] {
        let side = c.p_a.x.signum();
        assert!((c.p_a - V3::new(side, 0.0, 0.0)).norm() < 1e-4, "{c:?}");
        assert!((c.p_b - V3::new(0.9 * side, 0.0, 0.0)).norm() < 1e-4, "{c:?}");
        assert!((c.depth - 0.1).abs() < 1e-6, "{c:?}");
        assert!((c.n_a + V3::x() * side).norm() < 1e-4, "move the ball away from the wall: {c:?}");
        sides.push(side);
    }
    assert!(sides[0] != sides[1]);
}

// ---------------------------------------------------------------------------
// Agreement with the ellipsoid method on random convex pairs

enum Shape {
    Ball(f64),
    Box(V3),
    Capsule(f64, f64),
    Cylinder(f64, f64),
}

/// The test's own closed-form SDFs in the local frame.
fn local_phi(s: &Shape, p: &V3) -> f64 {
    match *s {
        Shape::Ball(r) => p.norm() - r,
        Shape::Box(h) => {
            let q = p.abs() - h;
            q.map(|v| v.max(0.0)).norm() + q.max().min(0.0)
        }
        Shape::Capsule(h, r) => {
            let z = p.z.clamp(-h, h);
            (p - V3::new(0.0, 0.0, z)).norm() - r
        }
        Shape::Cylinder(h, r) => {
            let d = Vector2::new((p.x * p.x + p.y * p.y).sqrt() - r, p.z.abs() - h);
            d.max().min(0.0) + d.map(|v| v.max(0.0)).norm()
        }
    }
}

struct Body {
    shape: Shape,
    pose: Pose<f64>,
}

impl Body {
    fn phi(&self, x: &V3) -> f64 {
        local_phi(&self.shape, &(self.pose.inverse_transform_point(&nalgebra::Point3::from(*x)).coords))
    }
}

/// The crate's SDF of a [`Body`] (boxed to mix shapes).
fn sdf(b: &Body) -> Box<dyn Sdf<f64, 3>> {
    match b.shape {
        Shape::Ball(r) => Box::new(Placed::new(Sphere::new(r).unwrap(), b.pose)),
        Shape::Box(h) => Box::new(Placed::new(Cuboid::new(h).unwrap(), b.pose)),
        Shape::Capsule(h, r) => Box::new(Placed::new(Capsule::new(h, r).unwrap(), b.pose)),
        Shape::Cylinder(h, r) => Box::new(Placed::new(Cylinder::new(h, r).unwrap(), b.pose)),
    }
}

fn random_body(rng: &mut impl Rng) -> Body {
    let kind = rng.random_range(0..4);
    let mut size = || rng.random_range(0.2..1.0);
    let shape = match kind {
        0 => Shape::Ball(size()),
        1 => Shape::Box(V3::new(size(), size(), size())),
        2 => Shape::Capsule(size(), size() * 0.6),
        _ => Shape::Cylinder(size(), size()),
    };
    Body { shape, pose: pose(rng, 1.0) }
}

#[test]
fn agrees_with_the_ellipsoid_method_on_random_convex_pairs() {
    let mut rng = rng(2024);
    let params = GradientParams::default();
    let (mut colliding, mut apart, mut skipped, mut missed, mut hits, mut capped) = (0, 0, 0, 0, 0, 0);
    for _ in 0..400 {
        let (ba, bb) = (random_body(&mut rng), random_body(&mut rng));
        let (a, b) = (sdf(&ba), sdf(&bb));
        let em = EllipsoidMethod::distance().solve(&*a, &*b, &mut EllipsoidWarmStart::default());
        let c = em.contact().unwrap_or_else(|| panic!("{em:?}"));
        // φ* is half the distance or minus the inscribed radius: skip a band
        // of 1 % of the smaller bounding radius around touching.
        let band = 0.01 * a.bounding_ball().radius.min(b.bounding_ball().radius);
        if c.phi.abs() < band {
            skipped += 1;
            continue;
        }
        let truth = em.is_penetrating().unwrap();
        let region = a.bounding_box().intersection(&b.bounding_box());
        let mut hit = false;
        if let Some(region) = region {
            let mut points = [V3::zeros(); 8];
            let n = lattice_points(&region, 2, &mut points).unwrap();
            for x0 in &points[..n] {
                match intersection_test(&*a, &*b, x0, &params) {
                    IntersectionOutcome::Penetrating { point, .. } => {
                        // Checked by the closed forms, not by the code under test.
                        assert!(ba.phi(&point) < 0.0 && bb.phi(&point) < 0.0, "{point:?}");
                        hit = true;
                        break;
                    }
                    IntersectionOutcome::LocalMinimum { closest, phi_b, .. } => {
                        assert!(ba.phi(&closest) < 1e-9, "closest is in A");
                        assert!(phi_b >= 0.0);
                    }
                    IntersectionOutcome::Undetermined { reason, .. } => {
                        // A descent that crawls along a narrow valley near
                        // touching runs into the cap: counted, never a hit.
                        assert_eq!(reason, Undetermined::IterationCap);
                        capped += 1;
                    }
                }
            }
        }
        if hit {
            hits += 1;
            assert!(truth, "a hit on a pair the ellipsoid method finds apart");
        }
        if truth {
            colliding += 1;
            missed += usize::from(!hit);
        } else {
            apart += 1;
        }
    }
    println!(
        "random convex pairs: {colliding} colliding ({hits} hit, {missed} missed), {apart} apart, {skipped} skipped \
         (|phi*| < 1% radius); {capped} descents (of 8 per pair) stopped at the cap"
    );
    // Capped descents (Undetermined) are rare: near-touching pairs whose
    // closest points lie along an edge of a box (a narrow valley).
    assert!(capped <= 8, "{capped}");
    assert!(colliding > 100 && apart > 100, "{colliding} {apart}");
    // Convex pairs with exact SDFs: the descent minimises a convex function
    // over a convex set, every detection point reaches the overlap. No miss
    // is allowed outside the touching band.
    assert_eq!(missed, 0);
}

// ---------------------------------------------------------------------------
// Algorithm 2 and 3 directly

#[test]
fn contact_from_a_point_inside_is_at_least_as_deep_and_outside_is_not_penetrating() {
    let a = Sphere::new(1.0).unwrap();
    let b = translated(BoxN::new(V3::new(1.0, 1.0, 1.0)).unwrap(), V3::new(0.0, 0.0, -1.7));
    let x = V3::new(0.3, -0.2, -0.8); // inside both
    let c = *contact(&a, &b, &x, &GradientParams::default()).contact().unwrap();
    assert!(c.depth_a >= -b.eval(&x).value && c.depth_b >= -a.eval(&x).value);
    assert!((c.depth - 0.3).abs() < 1e-6);
    // Apart: the local minima are the distance.
    let far = translated(BoxN::new(V3::new(1.0, 1.0, 1.0)).unwrap(), V3::new(0.0, 0.0, -2.5));
    match contact(&a, &far, &V3::new(0.0, 0.0, -1.2), &GradientParams::default()) {
        ContactOutcome::LocalMinimum { phi_b_at_p_a, phi_a_at_p_b, p_a, p_b, .. } => {
            assert!((phi_b_at_p_a - 0.5).abs() < 1e-5 && (phi_a_at_p_b - 0.5).abs() < 1e-5);
            assert!((p_a - V3::new(0.0, 0.0, -1.0)).norm() < 1e-2);
            assert!((p_b.z + 1.5).abs() < 1e-6 && p_b.xy().norm() < 0.2, "{p_b:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn iteration_cap_gives_undetermined_with_the_best_contact() {
    let a = Sphere::new(1.0).unwrap();
    let b = translated(BoxN::new(V3::new(1.0, 1.0, 1.0)).unwrap(), V3::new(0.3, 0.2, -1.7));
    let tight = GradientParams { budget: narrowphase::query::Budget::new(2, 1e-9), ..GradientParams::default() };
    let x = V3::new(0.0, 0.0, -0.8);
    match contact(&a, &b, &x, &tight) {
        ContactOutcome::Undetermined { reason: Undetermined::IterationCap, best: Some(c), iterations } => {
            assert!(!c.converged && iterations <= 4);
            assert!(c.depth_a >= -b.eval(&x).value, "never shallower than the start");
        }
        other => panic!("{other:?}"),
    }
    // Zero iterations: a start outside stops at the cap at once, a start
    // inside both is found without a step.
    let zero = GradientParams { budget: narrowphase::query::Budget::new(0, 1e-6), ..GradientParams::default() };
    assert_eq!(
        intersection_test(&a, &b, &V3::new(3.0, 0.0, 0.0), &zero),
        IntersectionOutcome::Undetermined { reason: Undetermined::IterationCap, iterations: 0 }
    );
    assert_eq!(intersection_test(&a, &b, &x, &zero), IntersectionOutcome::Penetrating { point: x, iterations: 0 });
}

// ---------------------------------------------------------------------------
// Bad input

/// An SDF that answers NaN.
struct NanBody;
impl Sdf<f64, 3> for NanBody {
    fn eval(&self, _: &V3) -> SdfSample<f64, 3> {
        SdfSample { value: f64::NAN, gradient: V3::new(f64::NAN, 0.0, 0.0) }
    }
    fn accuracy(&self) -> SdfAccuracy {
        SdfAccuracy::Exact
    }
    fn bounding_ball(&self) -> Ball<f64, 3> {
        Ball { center: V3::zeros(), radius: 1.0 }
    }
}

#[test]
fn bad_input_is_reported() {
    let p = GradientParams::default();
    let a = Sphere::new(1.0).unwrap();
    let b = translated(Sphere::new(1.0).unwrap(), V3::new(1.5, 0.0, 0.0));
    let nan = V3::new(f64::NAN, 0.0, 0.0);
    // NaN detection point.
    assert_eq!(
        intersection_test(&a, &b, &nan, &p),
        IntersectionOutcome::Undetermined { reason: Undetermined::NonFinite, iterations: 0 }
    );
    assert!(matches!(contact(&a, &b, &nan, &p), ContactOutcome::Undetermined { reason: Undetermined::NonFinite, .. }));
    let mut out = [GradientContact::default(); 2];
    let r = contacts(&a, &b, &[nan, V3::new(0.7, 0.1, 0.0)], &p, &mut out).unwrap();
    assert_eq!((r.tried, r.undetermined, r.hits, r.stored), (2, 1, 1, 1), "{r:?}");
    // NaN SDF, either side.
    for out in [intersection_test(&NanBody, &b, &V3::zeros(), &p), intersection_test(&a, &NanBody, &V3::zeros(), &p)] {
        assert!(matches!(out, IntersectionOutcome::Undetermined { reason: Undetermined::NonFinite, .. }), "{out:?}");
    }
    assert!(matches!(
        contact(&a, &NanBody, &V3::zeros(), &p),
        ContactOutcome::Undetermined { reason: Undetermined::NonFinite, .. }
    ));
    // Zero capacity: the contact is counted as dropped, not lost silently.
    let r = contacts(&a, &b, &[V3::new(0.7, 0.0, 0.0)], &p, &mut []).unwrap();
    assert_eq!((r.hits, r.stored, r.dropped, r.distinct), (1, 0, 1, 1), "{r:?}");
    // Zero, negative, NaN step or tolerance.
    for bad in [
        GradientParams { step: 0.0, ..p },
        GradientParams { step: -1.0, ..p },
        GradientParams { budget: narrowphase::query::Budget::new(10, 0.0), ..p },
        GradientParams { merge: -1.0, ..p },
    ] {
        assert_eq!(contacts(&a, &b, &[V3::zeros()], &bad, &mut out), Err(GradientError::InvalidParams));
        assert_eq!(
            intersection_test(&a, &b, &V3::zeros(), &bad),
            IntersectionOutcome::Undetermined { reason: Undetermined::Degenerate, iterations: 0 }
        );
    }
    let nan_step = GradientParams { step: f64::NAN, ..p };
    assert_eq!(
        intersection_test(&a, &b, &V3::zeros(), &nan_step),
        IntersectionOutcome::Undetermined { reason: Undetermined::NonFinite, iterations: 0 }
    );
    // Two unbounded bodies: no scale.
    let h1 = Halfspace::new(V3::z(), 0.0).unwrap();
    let h2 = Halfspace::new(-V3::z(), 1.0).unwrap();
    assert_eq!(contacts(&h1, &h2, &[V3::zeros()], &p, &mut out), Err(GradientError::Unbounded));
    assert_eq!(
        intersection_test(&h1, &h2, &V3::zeros(), &p),
        IntersectionOutcome::Undetermined { reason: Undetermined::NonFinite, iterations: 0 }
    );
    // One unbounded body is fine: a ball 0.3 into a floor.
    let floor = Halfspace::new(V3::z(), -0.7).unwrap();
    let c = *contact(&a, &floor, &V3::new(0.0, 0.0, -0.9), &p).contact().unwrap();
    assert!((c.depth - 0.3).abs() < 1e-6 && (c.p_a - V3::new(0.0, 0.0, -1.0)).norm() < 1e-4, "{c:?}");
}

#[test]
fn lattice_points_are_cell_centres_and_bad_boxes_are_refused() {
    let region = Aabb::new(V3::new(-1.0, 0.0, 2.0), V3::new(1.0, 3.0, 2.5)).unwrap();
    let mut pts = [V3::zeros(); 64];
    assert_eq!(lattice_points(&region, 4, &mut pts), Ok(64));
    // Every cell centre once: (i + ½)/4 of each extent.
    let mut expected = Vec::new();
    for k in 0..4 {
        for j in 0..4 {
            for i in 0..4 {
                let f = |n: usize| (n as f64 + 0.5) / 4.0;
                expected.push(V3::new(-1.0 + 2.0 * f(i), 3.0 * f(j), 2.0 + 0.5 * f(k)));
            }
        }
    }
    for (p, e) in pts.iter().zip(&expected) {
        assert!((p - e).norm() < 1e-12, "{p:?} {e:?}");
    }
    let before = pts;
    assert_eq!(lattice_points(&region, 5, &mut pts), Err(GradientError::Capacity { needed: 125, capacity: 64 }));
    assert_eq!(pts, before, "nothing written on error");
    assert_eq!(lattice_points(&region, 0, &mut pts), Err(GradientError::ZeroPoints));
    assert_eq!(
        lattice_points(&region, u32::MAX, &mut pts),
        Err(GradientError::Capacity { needed: usize::MAX, capacity: 64 })
    );
    let inverted = Aabb { min: V3::new(1.0, 0.0, 0.0), max: V3::new(0.0, 1.0, 1.0) };
    assert_eq!(lattice_points(&inverted, 2, &mut pts), Err(GradientError::InvalidBox(ShapeError::NonPositiveSize)));
    let nan = Aabb { min: V3::new(f64::NAN, 0.0, 0.0), max: V3::new(1.0, 1.0, 1.0) };
    assert_eq!(lattice_points(&nan, 2, &mut pts), Err(GradientError::InvalidBox(ShapeError::NonFinite)));
    let infinite = Aabb { min: V3::new(f64::NEG_INFINITY, 0.0, 0.0), max: V3::new(1.0, 1.0, 1.0) };
    assert_eq!(lattice_points(&infinite, 2, &mut pts), Err(GradientError::Unbounded));
    // A huge finite box whose extent overflows.
    let huge = Aabb { min: V3::new(-f64::MAX, 0.0, 0.0), max: V3::new(f64::MAX, 1.0, 1.0) };
    assert_eq!(lattice_points(&huge, 2, &mut pts), Err(GradientError::Unbounded));
}

/// Merging: contacts of one region from many detection points are one.
#[test]
fn many_detection_points_on_one_region_merge_into_one_contact() {
    let a = translated(Sphere::new(1.0).unwrap(), V3::new(0.2, -0.1, 1.9));
    let b = BoxN::new(V3::new(1.0, 1.0, 1.0)).unwrap();
    let truth_a = V3::new(0.2, -0.1, 0.9);
    let mut depths = Vec::new();
    for skip in [false, true] {
        let params = GradientParams { skip_covered_hits: skip, ..GradientParams::default() };
        let mut out = [GradientContact::default(); 8];
        let report = run(&a, &b, 4, &params, &mut out);
        assert!(report.hits > 4, "{report:?}");
        assert_eq!(report.stored, 1);
        // Every hit is accounted for: stored, merged, covered (skipped).
        assert_eq!(report.merged + report.covered + report.stored, report.hits - report.undetermined, "{report:?}");
        assert_eq!(report.covered > 0, skip, "{report:?}");
        assert!((out[0].p_a - truth_a).norm() < 1e-4);
        depths.push(out[0].depth);
    }
    assert!((depths[0] - depths[1]).abs() < 1e-9 && (depths[0] - 0.1).abs() < 1e-6, "{depths:?}");
}

/// A thin spike poking into a slab (Liu et al. §4.2, Fig. 5–6): protrusion
/// points as detection points find its contact (closed form: the spike's
/// tip is the deepest point, 0.15 deep).
#[test]
fn protrusion_points_find_a_thin_spike() {
    let along_x = *Rotation3::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0).matrix();
    let spike = Transformed::new(Capsule::new(0.5, 0.05).unwrap(), along_x, 1.0, V3::new(1.5, 0.0, 0.0)).unwrap();
    let body = Union::new(Sphere::new(1.0).unwrap(), spike);
    let slab = translated(BoxN::new(V3::new(0.55, 1.5, 1.5)).unwrap(), V3::new(2.45, 0.0, 0.0)); // x ≥ 1.9
    let mut points = [V3::zeros(); 256];
    let r = protrusion_points(&body, &body.bounding_box(), 41, 0.1, 0.0, &mut points).unwrap();
    assert_eq!((r.samples, r.found), (41 * 41 * 41, r.stored));
    let mut out = [GradientContact::default(); 4];
    let report = contacts(&body, &slab, &points[..r.stored], &GradientParams::default(), &mut out).unwrap();
    assert_eq!(report.stored, 1, "{report:?}");
    let c = out[0];
    assert!((c.p_a - V3::new(2.05, 0.0, 0.0)).norm() < 1e-4, "{c:?}");
    assert!((c.depth - 0.15).abs() < 1e-6 && (c.depth_a - 0.15).abs() < 1e-6, "{c:?}");
    assert!((c.depth_b - 0.05).abs() < 1e-5, "the spike's axis inside the slab: {c:?}");
    assert!((c.n_b - V3::x()).norm() < 1e-4, "{c:?}");
    assert!((c.n_a + V3::x()).norm() < 1e-4, "{c:?}");
    // For comparison, the 2^3 lattice of the detection box.
    let mut lattice_out = [GradientContact::default(); 4];
    let lattice = run(&body, &slab, 2, &GradientParams::default(), &mut lattice_out);
    println!("spike: protrusion points {r:?} -> {report:?}; 2^3 lattice -> {lattice:?}");
    // Bad input and a full buffer.
    let bb = body.bounding_box();
    assert_eq!(protrusion_points(&body, &bb, 4, 0.0, 0.0, &mut points), Err(GradientError::InvalidParams));
    assert_eq!(protrusion_points(&body, &bb, 4, 0.1, f64::NAN, &mut points), Err(GradientError::InvalidParams));
    assert_eq!(
        protrusion_points(&body, &bb, 1000, 0.1, 0.0, &mut points),
        Err(GradientError::TooManySamples { requested: 1_000_000_000 })
    );
    assert_eq!(protrusion_points(&body, &bb, 0, 0.1, 0.0, &mut points), Err(GradientError::ZeroPoints));
    let small = protrusion_points(&body, &bb, 41, 0.1, 0.0, &mut points[..3]).unwrap();
    assert_eq!((small.found, small.stored), (r.found, 3));
}
