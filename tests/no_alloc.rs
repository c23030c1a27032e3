//! The queries never touch the heap.
//!
//! A counting global allocator (wrapping `System`) counts the allocations of
//! the current thread. Everything that may allocate — shapes, polytope arrays
//! (a generated prism, and quickhull hulls under the `std` feature), poses —
//! is built before counting starts; then GJK distance and intersection (cold
//! and warm), EPA (from the GJK simplex and through `contact`), MPR
//! (intersection and penetration) and the ellipsoid method (collision cold,
//! distance warm-started) run on a few hundred pairs in f32 and f64,
//! and the count must not move.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use nalgebra::{Point3, Rotation3, Translation3, Unit, Vector3};
use narrowphase::prelude::*;
use narrowphase::shape::Plane;
use narrowphase::support::{contact, epa, mpr};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: no panic while the thread-local is being torn down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

// ---------------------------------------------------------------------------
// A prism over a regular n-gon (2n vertices: hill climbing from 32 on),
// with every array built by hand in the layout `Polytope` expects.

struct PrismArrays<R: Real> {
    vertices: Vec<Point3<R>>,
    adj_offsets: Vec<u16>,
    adj: Vec<u16>,
    faces: Vec<Plane<R>>,
    face_offsets: Vec<u16>,
    face_vertices: Vec<u16>,
    face_adjacency: Vec<u16>,
}

impl<R: Real> PrismArrays<R> {
    /// Bottom vertices `0..n` at z = −h, top `n..2n` at z = +h, radius `r`.
    fn new(n: usize, r: f64, h: f64) -> Self {
        let l = |x: f64| R::lit(x);
        let ang = |i: usize| std::f64::consts::TAU * (i % n) as f64 / n as f64;
        let mut vertices = vec![];
        for z in [-h, h] {
            for i in 0..n {
                vertices.push(Point3::new(l(r * ang(i).cos()), l(r * ang(i).sin()), l(z)));
            }
        }
        let (prev, next) = (|i: usize| (i + n - 1) % n, |i: usize| (i + 1) % n);
        let mut adj_offsets = vec![0u16];
        let mut adj = vec![];
        for i in 0..n {
            adj.extend([prev(i), next(i), n + i].map(|x| x as u16));
            adj_offsets.push(adj.len() as u16);
        }
        for i in 0..n {
            adj.extend([n + prev(i), n + next(i), i].map(|x| x as u16));
            adj_offsets.push(adj.len() as u16);
        }
        // Faces: 0 bottom, 1 top, 2 + i the side from angle i to i + 1.
        let side = |i: usize| (2 + i % n) as u16;
        let mut faces = vec![
            Plane { normal: Vector3::new(l(0.0), l(0.0), l(-1.0)), offset: l(h) },
            Plane { normal: Vector3::new(l(0.0), l(0.0), l(1.0)), offset: l(h) },
        ];
        let mut face_offsets = vec![0u16];
        let mut face_vertices = vec![];
        let mut face_adjacency = vec![];
        // Bottom, counter-clockwise seen from below: n−1, n−2, …, 0; the edge
        // j → j−1 borders side j−1.
        for j in (0..n).rev() {
            face_vertices.push(j as u16);
            face_adjacency.push(side(prev(j)));
        }
        face_offsets.push(face_vertices.len() as u16);
        // Top: n, n+1, …; the edge i → i+1 borders side i.
        for i in 0..n {
            face_vertices.push((n + i) as u16);
            face_adjacency.push(side(i));
        }
        face_offsets.push(face_vertices.len() as u16);
        let half = std::f64::consts::PI / n as f64;
        for i in 0..n {
            let m = ang(i) + half;
            faces.push(Plane { normal: Vector3::new(l(m.cos()), l(m.sin()), l(0.0)), offset: l(r * half.cos()) });
            face_vertices.extend([i, next(i), n + next(i), n + i].map(|x| x as u16));
            face_adjacency.extend([0, side(next(i)), 1, side(prev(i))]);
            face_offsets.push(face_vertices.len() as u16);
        }
        Self { vertices, adj_offsets, adj, faces, face_offsets, face_vertices, face_adjacency }
    }

    fn polytope(&self) -> Polytope<'_, R> {
        Polytope::new(PolytopeData {
            vertices: &self.vertices,
            vertex_adjacency_offsets: &self.adj_offsets,
            vertex_adjacency: &self.adj,
            faces: &self.faces,
            face_offsets: &self.face_offsets,
            face_vertices: &self.face_vertices,
            face_adjacency: &self.face_adjacency,
        })
        .expect("valid prism")
    }
}

// ---------------------------------------------------------------------------

fn rotation(rng: &mut impl Rng) -> Rotation3<f64> {
    let axis = Unit::new_normalize(Vector3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0) + 1e-3,
    ));
    Rotation3::from_axis_angle(&axis, rng.random_range(0.0..std::f64::consts::TAU))
}

/// Pairs of poses close enough that about half the pairs overlap.
fn poses<R: Real>(rng: &mut impl Rng, n: usize) -> Vec<(Pose<R>, Pose<R>)> {
    (0..n)
        .map(|_| {
            let t = Vector3::new(rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5));
            let a: Pose<f64> = Pose::from_parts(Translation3::new(0.1, -0.2, 0.3), rotation(rng));
            let b: Pose<f64> = Pose::from_parts(Translation3::from(t), rotation(rng));
            (nalgebra::convert(a), nalgebra::convert(b))
        })
        .collect()
}

/// What the queries answered, so that nothing is optimised away and the run
/// is known to have exercised every branch of interest.
#[derive(Default, Debug)]
struct Tally {
    queries: u64,
    separated: u64,
    intersecting: u64,
    epa_penetrating: u64,
    mpr_hits: u64,
    undetermined: u64,
    sdf_determined: u64,
}

/// Runs every query on `a` and `b` at each pose pair. Allocates nothing
/// itself: the caller counts around it.
fn run_pair<R, A, B>(a: A, b: B, poses: &[(Pose<R>, Pose<R>)], tally: &mut Tally)
where
    R: Real,
    A: SupportMap<R> + Sdf<R, 3> + Copy,
    B: SupportMap<R> + Sdf<R, 3> + Copy,
{
    let budget = Budget::<R>::default();
    let mut warm = GjkWarmStart::default();
    let mut sdf_warm = EllipsoidWarmStart::default();
    for (pa, pb) in poses {
        let (a, b) = (Placed::new(a, *pa), Placed::new(b, *pb));
        tally.queries += 1;

        let _ = gjk::intersect(&a, &b, &budget, &mut GjkWarmStart::default());
        let _ = gjk::intersect(&a, &b, &budget, &mut warm);
        let _ = gjk::distance(&a, &b, &budget, &mut warm);
        match gjk::distance(&a, &b, &budget, &mut GjkWarmStart::default()) {
            GjkOutcome::Separated(_) => tally.separated += 1,
            GjkOutcome::Penetrating(simplex) => {
                tally.intersecting += 1;
                if let Proximity::Penetrating(_) = epa::penetration(&a, &b, &simplex, &budget) {
                    tally.epa_penetrating += 1;
                }
            }
            GjkOutcome::Undetermined { .. } => tally.undetermined += 1,
        }
        let _ = contact::contact(&a, &b, &budget, &mut GjkWarmStart::default());
        let _ = contact::contact(&a, &b, &budget, &mut warm);

        if mpr::intersect(&a, &b, &budget).is_penetrating() == Some(true) {
            tally.mpr_hits += 1;
        }
        let _ = mpr::penetration(&a, &b, &budget);

        let hit = EllipsoidMethod::collision().solve(&a, &b, &mut EllipsoidWarmStart::default());
        // The next pose is anywhere: declare a motion that covers it.
        sdf_warm.moved(R::lit(100.0));
        let dist = EllipsoidMethod::distance().solve(&a, &b, &mut sdf_warm);
        tally.sdf_determined += hit.is_penetrating().is_some() as u64 + dist.is_penetrating().is_some() as u64;
    }
}

fn all_queries<R: Real>(seed: u64) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let l = |x: f64| R::lit(x);

    // Everything that allocates happens here, before counting.
    let sphere = Sphere::new(l(0.6)).unwrap();
    let cuboid = Cuboid::new(Vector3::new(l(0.9), l(0.6), l(0.3))).unwrap();
    let capsule = Capsule::new(l(0.5), l(0.3)).unwrap();
    let cylinder = Cylinder::new(l(0.5), l(0.5)).unwrap();
    let cone = Cone::new(l(0.6), l(0.5)).unwrap();
    let ellipsoid = Ellipsoid::new(Vector3::new(l(0.9), l(0.6), l(0.3))).unwrap();
    let rounded = MinkowskiSum::new(cuboid, Sphere::new(l(0.1)).unwrap());
    let prism_arrays = PrismArrays::<R>::new(20, 0.7, 0.4);
    let prism = prism_arrays.polytope();
    #[cfg(feature = "std")]
    let hulls: Vec<narrowphase::hull::OwnedPolytope<R>> = (0..2)
        .map(|_| {
            let pts: Vec<Point3<R>> = (0..200)
                .map(|_| {
                    let v = Vector3::new(
                        rng.random_range(-1.0..1.0f64),
                        rng.random_range(-1.0..1.0),
                        rng.random_range(-1.0..1.0),
                    )
                    .normalize();
                    Point3::new(l(v.x), l(v.y * 2.0 / 3.0), l(v.z / 3.0))
                })
                .collect();
            narrowphase::hull::quickhull(&pts).expect("hull")
        })
        .collect();
    #[cfg(feature = "std")]
    let (hull_a, hull_b) = (hulls[0].polytope().unwrap(), hulls[1].polytope().unwrap());
    let p: Vec<Vec<(Pose<R>, Pose<R>)>> = (0..10).map(|_| poses(&mut rng, 40)).collect();
    let mut tally = Tally::default();

    let before = allocations();
    run_pair(sphere, cuboid, &p[0], &mut tally);
    run_pair(cuboid, cuboid, &p[1], &mut tally);
    run_pair(capsule, cylinder, &p[2], &mut tally);
    run_pair(cone, ellipsoid, &p[3], &mut tally);
    run_pair(ellipsoid, ellipsoid, &p[4], &mut tally);
    run_pair(prism, prism, &p[5], &mut tally);
    run_pair(prism, capsule, &p[6], &mut tally);
    run_pair(rounded, cone, &p[7], &mut tally);
    #[cfg(feature = "std")]
    {
        run_pair(hull_a, hull_b, &p[8], &mut tally);
        run_pair(hull_a, cylinder, &p[9], &mut tally);
    }
    let after = allocations();

    assert_eq!(after - before, 0, "the queries allocated ({tally:?})");
    tally
}

#[test]
fn counter_sees_allocations() {
    let before = allocations();
    let v = std::hint::black_box(vec![1u8; 16]);
    assert!(allocations() > before);
    drop(v);
}

#[test]
fn queries_do_not_allocate_f32() {
    let t = all_queries::<f32>(1);
    assert!(t.queries >= 320, "{t:?}");
    assert!(t.separated > 0 && t.intersecting > 0 && t.epa_penetrating > 0 && t.mpr_hits > 0, "{t:?}");
    assert!(t.sdf_determined > 500, "{t:?}");
}

#[test]
fn queries_do_not_allocate_f64() {
    let t = all_queries::<f64>(2);
    assert!(t.queries >= 320, "{t:?}");
    assert!(t.separated > 0 && t.intersecting > 0 && t.epa_penetrating > 0 && t.mpr_hits > 0, "{t:?}");
    assert!(t.sdf_determined > 500, "{t:?}");
}

/// SDF family II: the interval octree, sampled grids (built into caller
/// buffers beforehand), the gradient methods and the particle method run
/// with caller-owned storage only.
#[test]
fn general_sdf_queries_do_not_allocate() {
    use nalgebra::Matrix3;
    use narrowphase::sdf::gradient::{self, GradientContact, GradientParams};
    use narrowphase::sdf::grid::fill_first_order;
    use narrowphase::sdf::octree::{self, Cell, KeptCell, OctreeParams};
    use narrowphase::sdf::particles::{particle_contacts, ParticleContact, ParticleParams};
    use narrowphase::sdf::{Sdf, Torus, Transformed};

    let ring = Placed::new(Torus::new(1.0_f64, 0.25).unwrap(), Pose::identity());
    let turned = Placed::new(
        Torus::new(1.0_f64, 0.25).unwrap(),
        Pose::from_parts(
            Translation3::new(1.0, 0.0, 0.0),
            Rotation3::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2),
        ),
    );
    let ball =
        Transformed::new(Sphere::new(0.6_f64).unwrap(), Matrix3::identity(), 1.0, Vector3::new(1.0, 0.0, 0.3)).unwrap();
    let layout = narrowphase::sdf::grid::GridLayout::covering(&ring.bounding_box().inflated(0.2), 0.1).unwrap();
    let mut values = vec![0.0_f64; 4 * layout.samples()];
    let mut stack = vec![Cell::<f64, 3>::default(); octree::required_stack(3, 6)];
    let mut kept = vec![KeptCell::<f64, 3>::default(); 512];
    let mut points = vec![Vector3::<f64>::zeros(); 512];
    let mut found = vec![GradientContact::<f64, 3>::default(); 8];
    let mut particles = vec![ParticleContact::<f64, 3>::default(); 32];

    let before = allocations();
    let grid = fill_first_order(&ring, &layout, &mut values).unwrap();
    let rep = octree::intersect(&ring, &turned, &OctreeParams::default(), &mut stack, &mut kept).unwrap();
    let n = rep.stored as usize;
    for (p, k) in points.iter_mut().zip(&kept[..n]) {
        *p = k.cell.aabb.center();
    }
    let r1 = gradient::contacts(&ring, &turned, &points[..n], &GradientParams::default(), &mut found).unwrap();
    let r2 = gradient::contacts(&grid, &ball, &points[..n.min(64)], &GradientParams::default(), &mut found).unwrap();
    let v = grid.eval(&Vector3::new(1.0, 0.0, 0.1)).value;
    let thin = ParticleParams { thinning: Some(0.05), ..ParticleParams::default() };
    let r3 = particle_contacts(&ring, &turned, &thin, &mut particles).unwrap();
    let after = allocations();
    assert_eq!(after, before, "SDF family II allocated");
    assert!(n > 0 && r1.stored >= 1 && r2.hits > 0 && v < 0.0, "{rep:?} {r1:?} {r2:?} {v}");
    assert!(r3.stored > 0 && r3.merged > 0, "{r3:?}");
}
