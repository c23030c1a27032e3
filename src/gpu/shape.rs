//! The shapes the GPU evaluates, their CPU twins, and how they travel: one
//! 64-byte record per shape (the shader's `Shape`) and, for first-order
//! grids, their `[½∇f, f]` values concatenated in one storage buffer.

use std::vec::Vec;

use crate::math::Vec3;
use crate::sdf::grid::{FirstOrderGrid, GridLayout};
use crate::sdf::{Aabb, Ball, CappedCone, Sdf, SdfAccuracy, SdfSample, Torus};
use crate::shape::{Capsule, Cone, Cuboid, Cylinder, Sphere};

/// A shape the GPU evaluates (in its own frame; the pose comes per frame).
/// Its [`Sdf`] is the CPU twin: the CPU reference runs the same shapes.
///
/// A first-order grid borrows its values here; [`upload_shapes`] copies them
/// to the GPU (and keeps a host copy for [`placed`]), so the data need not
/// outlive the upload.
///
/// [`upload_shapes`]: super::GpuParticles::upload_shapes
/// [`placed`]: super::GpuParticles::placed
#[derive(Clone, Copy, Debug)]
pub enum GpuShape<'a> {
    /// A ball.
    Sphere(Sphere<f32>),
    /// A box.
    Cuboid(Cuboid<f32>),
    /// A capsule along z.
    Capsule(Capsule<f32>),
    /// A cylinder along z.
    Cylinder(Cylinder<f32>),
    /// A torus about z.
    Torus(Torus<f32>),
    /// A cone along z (apex at `+h`).
    Cone(Cone<f32>),
    /// A cone frustum along z.
    CappedCone(CappedCone<f32>),
    /// A sampled SDF, first order (Krayer et al. Eq. 9–12), f32 values.
    Grid(FirstOrderGrid<'a, f32>),
}

impl PartialEq for GpuShape<'_> {
    /// Primitives by their parameters; grids by layout and values.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (GpuShape::Sphere(a), GpuShape::Sphere(b)) => a == b,
            (GpuShape::Cuboid(a), GpuShape::Cuboid(b)) => a == b,
            (GpuShape::Capsule(a), GpuShape::Capsule(b)) => a == b,
            (GpuShape::Cylinder(a), GpuShape::Cylinder(b)) => a == b,
            (GpuShape::Torus(a), GpuShape::Torus(b)) => a == b,
            (GpuShape::Cone(a), GpuShape::Cone(b)) => a == b,
            (GpuShape::CappedCone(a), GpuShape::CappedCone(b)) => a == b,
            (GpuShape::Grid(a), GpuShape::Grid(b)) => a.layout() == b.layout() && a.values() == b.values(),
            _ => false,
        }
    }
}

/// Shader kinds (`Shape.kind.x` in `particles.wgsl`): 0–4 and 6 are the
/// primitives below, 5 a first-order grid.
const KIND_GRID: u32 = 5;

impl GpuShape<'_> {
    /// The shader's `Shape`: `params` (primitive sizes, or a grid's origin
    /// and spacing), `far` (a grid's far corner), `kind` (kind, offset of a
    /// grid's first sample in the value buffer), `dims` (a grid's samples per axis).
    fn record(&self, grid_offset: u32) -> ([f32; 8], [u32; 8]) {
        let prim = |kind: u32, p: [f32; 4]| ([p[0], p[1], p[2], p[3], 0.0, 0.0, 0.0, 0.0], [kind, 0, 0, 0, 0, 0, 0, 0]);
        // (h, r_bottom, r_top) and the side's normal in (ρ, z).
        let frustum = |c: &CappedCone<f32>| {
            let ((rb, rt), n) = (c.radii(), c.side_normal());
            ([c.half_height(), rb, rt, 0.0, n.x, n.y, 0.0, 0.0], [6, 0, 0, 0, 0, 0, 0, 0])
        };
        match self {
            GpuShape::Sphere(s) => prim(0, [s.radius(), 0.0, 0.0, 0.0]),
            GpuShape::Cuboid(c) => {
                let h = c.half_extents();
                prim(1, [h.x, h.y, h.z, 0.0])
            }
            GpuShape::Capsule(c) => prim(2, [c.half_length(), c.radius(), 0.0, 0.0]),
            GpuShape::Cylinder(c) => prim(3, [c.radius(), c.half_height(), 0.0, 0.0]),
            GpuShape::Torus(t) => prim(4, [t.major(), t.minor(), 0.0, 0.0]),
            GpuShape::Cone(c) => frustum(&c.as_capped()),
            GpuShape::CappedCone(c) => frustum(c),
            GpuShape::Grid(g) => {
                let l = g.layout();
                let (o, f, d) = (l.origin(), l.bounds().max, l.dims());
                (
                    [o.x, o.y, o.z, l.spacing(), f.x, f.y, f.z, 0.0],
                    [KIND_GRID, grid_offset, 0, 0, d[0] as u32, d[1] as u32, d[2] as u32, 0],
                )
            }
        }
    }

    /// The shader kind (for logs).
    #[cfg(feature = "defmt")]
    pub(super) fn kind(&self) -> u32 {
        self.record(0).1[0]
    }
}

/// `$body` with `$s` bound to the shape inside whichever variant `$shape` is.
macro_rules! each_shape {
    ($shape:expr, $s:ident => $body:expr) => {
        match $shape {
            GpuShape::Sphere($s) => $body,
            GpuShape::Cuboid($s) => $body,
            GpuShape::Capsule($s) => $body,
            GpuShape::Cylinder($s) => $body,
            GpuShape::Torus($s) => $body,
            GpuShape::Cone($s) => $body,
            GpuShape::CappedCone($s) => $body,
            GpuShape::Grid($s) => $body,
        }
    };
}

impl Sdf<f32, 3> for GpuShape<'_> {
    fn eval(&self, x: &Vec3<f32>) -> SdfSample<f32, 3> {
        each_shape!(self, s => Sdf::<f32, 3>::eval(s, x))
    }
    fn accuracy(&self) -> SdfAccuracy {
        each_shape!(self, s => Sdf::<f32, 3>::accuracy(s))
    }
    fn bounding_ball(&self) -> Ball<f32, 3> {
        each_shape!(self, s => Sdf::<f32, 3>::bounding_ball(s))
    }
    fn bounding_box(&self) -> Aabb<f32, 3> {
        each_shape!(self, s => Sdf::<f32, 3>::bounding_box(s))
    }
}

/// An uploaded shape as the host keeps it: a primitive, or a grid's layout
/// and the range of its values in [`ShapeStore::grid_values`].
#[derive(Clone, Copy, Debug)]
enum Stored {
    Prim(GpuShape<'static>),
    Grid { layout: GridLayout<f32>, start: usize, len: usize },
}

/// The host's copy of the uploaded shapes (the CPU twins borrow from it).
#[derive(Debug, Default)]
pub(super) struct ShapeStore {
    shapes: Vec<Stored>,
    grid_values: Vec<f32>,
}

impl ShapeStore {
    /// Copies `shapes` (grid values included).
    pub(super) fn new(shapes: &[GpuShape<'_>]) -> Self {
        let mut store = ShapeStore::default();
        for s in shapes {
            let stored = match *s {
                GpuShape::Sphere(p) => Stored::Prim(GpuShape::Sphere(p)),
                GpuShape::Cuboid(p) => Stored::Prim(GpuShape::Cuboid(p)),
                GpuShape::Capsule(p) => Stored::Prim(GpuShape::Capsule(p)),
                GpuShape::Cylinder(p) => Stored::Prim(GpuShape::Cylinder(p)),
                GpuShape::Torus(p) => Stored::Prim(GpuShape::Torus(p)),
                GpuShape::Cone(p) => Stored::Prim(GpuShape::Cone(p)),
                GpuShape::CappedCone(p) => Stored::Prim(GpuShape::CappedCone(p)),
                GpuShape::Grid(g) => {
                    let start = store.grid_values.len();
                    store.grid_values.extend_from_slice(g.values());
                    Stored::Grid { layout: *g.layout(), start, len: g.values().len() }
                }
            };
            store.shapes.push(stored);
        }
        store
    }

    pub(super) fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Shape `i` as uploaded (`None` past the end).
    pub(super) fn get(&self, i: usize) -> Option<GpuShape<'_>> {
        Some(match *self.shapes.get(i)? {
            Stored::Prim(p) => p,
            Stored::Grid { layout, start, len } => {
                // Validated when the caller built it: a view, no second scan.
                GpuShape::Grid(FirstOrderGrid::from_validated(layout, self.grid_values.get(start..start + len)?))
            }
        })
    }

    /// The shader's `Shape` records.
    pub(super) fn shape_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.shapes.len() * 64);
        for (i, stored) in self.shapes.iter().enumerate() {
            let offset = match stored {
                // In samples: the shader reads one vec4 per sample.
                Stored::Grid { start, .. } => (*start / 4) as u32,
                Stored::Prim(_) => 0,
            };
            let (floats, ints) = self.get(i).map_or(([0.0; 8], [0; 8]), |s| s.record(offset));
            floats.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
            ints.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        }
        bytes
    }

    /// Every grid's values, concatenated (at least one sample's 16 bytes: a
    /// binding cannot be empty).
    pub(super) fn grid_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.grid_values.len().max(4) * 4);
        self.grid_values.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        if bytes.is_empty() {
            bytes.resize(16, 0);
        }
        bytes
    }
}
